//! The hall dashboard in headless Chromium (web/test/hall.browser.mjs):
//! a hall with 20 fake boards publishing through Mosquitto; one board
//! emits an illegal move; the dashboard shows it in the alert strip with
//! that board highlighted and sorted first, within 1 s of the board's
//! publish (measured from the event's `wall_ms` to the DOM change, on one
//! machine clock). Screenshots go to target/browser-artefacts.
mod hall_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hall_support::{FakeBoard, HALL_PASSWORD, broker, game};
use touchmove::events::{EventKind, Side};
use touchmove::hall::{self, HallOptions};

const HALL: &str = "hall-browser";
const BOARDS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_an_illegal_move_within_a_second() {
    let root = env!("CARGO_MANIFEST_DIR");
    let ids: Vec<String> = (1..=BOARDS).map(|i| format!("b{i}")).collect();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let broker = broker(&id_refs);
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        round: Some("1".into()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap();
    let games: Vec<_> = (0..4).map(|s| game(60 + s, 12, "White", "Black")).collect();
    let mut boards = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let g = &games[i % games.len()];
        let mut board = FakeBoard::connect(&broker, HALL, id, 1, g.events.clone());
        board.white = format!("Player {}", 2 * i + 1);
        board.black = format!("Player {}", 2 * i + 2);
        board.online();
        for e in 0..g.events.len() {
            board.event(e);
        }
        board.state(g.events.len() - 1);
        board.pgn(&g.pgn);
        boards.push(board);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while hall.registry().board_ids().len() < BOARDS
        || ids
            .iter()
            .any(|id| hall.registry().held_seqs(id).len() < games[0].events.len().min(10))
    {
        assert!(
            Instant::now() < deadline,
            "the hall did not see the {BOARDS} boards"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let mut node = Command::new("node")
        .arg("test/hall.browser.mjs")
        .current_dir(format!("{root}/web"))
        .env("TOUCHMOVE_URL", format!("http://{}/", hall.addr))
        .env(
            "TOUCHMOVE_ARTEFACTS",
            format!("{root}/target/browser-artefacts"),
        )
        .env("TOUCHMOVE_BOARDS", BOARDS.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs web/test/hall.browser.mjs (npm ci in web/, chromium installed)");
    let stdout = node.stdout.take().unwrap();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut seen = Vec::new();
    loop {
        let line = tokio::task::block_in_place(|| lines_rx.recv_timeout(Duration::from_secs(30)));
        match line {
            Ok(l) if l == "READY" => break,
            Ok(l) => seen.push(l),
            Err(_) => {
                let out = node.wait_with_output().unwrap();
                panic!(
                    "the page never showed {BOARDS} boards: {seen:?}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
    // Board 13 (not first in natural order) sees an illegal move.
    let b13 = &boards[12];
    let at = b13.push(EventKind::IllegalMove {
        side: Side::White,
        completed: false,
        from: Some(shakmaty::Square::B1),
        to: Some(shakmaty::Square::B3),
        count: 0,
        article: Some("7.4".into()),
    });
    b13.event(at);
    let out = tokio::task::block_in_place(|| node.wait_with_output()).unwrap();
    let rest: Vec<String> = lines_rx.try_iter().collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed: {rest:?}\n{stderr}"
    );
    let latency: i64 = rest
        .iter()
        .find_map(|l| l.strip_prefix("LATENCY "))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no LATENCY line: {rest:?}"));
    let board = rest
        .iter()
        .find_map(|l| l.strip_prefix("LATENCY "))
        .unwrap();
    assert!(board.ends_with(" b13"), "{board}");
    assert!((0..1000).contains(&latency), "{latency} ms");
    eprintln!("publish to dashboard: {latency} ms");
    hall.stop().await.unwrap();
}
