//! The hall dashboard in headless Chromium (web/test/hall.browser.mjs):
//! a hall with 20 fake boards publishing through Mosquitto. A displaced
//! piece, then a board going offline, then a completed illegal move: the
//! arbiter's queue is by severity (the illegal move first, shown within
//! 1 s of the board's publish, measured from the event's `wall_ms` to the
//! row, on one machine clock); the displaced piece put back leaves the
//! queue without an Ack, filed as resolved; a new alert while the pointer
//! rests on the queue does not move its rows. Then filters, search, the
//! table view, the board page (the illegal move drawn) and axe-core on
//! both pages, light and dark. Screenshots go to target/browser-artefacts.
mod hall_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hall_support::{FakeBoard, HALL_PASSWORD, broker, game};
use serde_json::json;
use touchmove_core::events::{EventKind, Side};
use touchmove_hall::{self as hall, HallOptions};
use touchmove_wire::mqtt::Channel;

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
    // The boards publish once the hall receives them (events are not
    // retained: what a board sends before then is asked for only at a gap).
    let subscribed = Instant::now() + Duration::from_secs(30);
    while !hall.shared.connected() {
        assert!(Instant::now() < subscribed, "the hall never subscribed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
    // A generous wait: the machine may be busy with other builds.
    let deadline = Instant::now() + Duration::from_secs(30);
    while hall.registry().board_ids().len() < BOARDS
        || ids
            .iter()
            .any(|id| hall.registry().held_seqs(id).len() < games[0].events.len().min(10))
    {
        assert!(
            Instant::now() < deadline,
            "the hall did not see the {BOARDS} boards: {:?}",
            ids.iter()
                .map(|id| (id, hall.registry().held_seqs(id).len()))
                .collect::<Vec<_>>()
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
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs web/test/hall.browser.mjs (npm ci in web/, chromium installed)");
    let mut stdin = node.stdin.take().unwrap();
    let stdout = node.stdout.take().unwrap();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut seen = Vec::new();
    // Waits for the script's `want` line (the lines before it are kept).
    let wait_for = |want: &str, seen: &mut Vec<String>| loop {
        match tokio::task::block_in_place(|| lines_rx.recv_timeout(Duration::from_secs(40))) {
            Ok(l) if l == want => return true,
            Ok(l) => seen.push(l),
            Err(_) => return false,
        }
    };
    let fail = |node: std::process::Child, seen: &[String], step: &str| -> ! {
        let out = node.wait_with_output().unwrap();
        panic!(
            "the browser test stopped before {step}: {seen:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let go = |stdin: &mut std::process::ChildStdin| {
        stdin.write_all(b"GO\n").unwrap();
        stdin.flush().unwrap();
    };
    if !wait_for("READY", &mut seen) {
        fail(node, &seen, "READY");
    }
    // The oldest: b5's displaced piece; then b7 goes offline; then b13
    // completes an illegal move (the most severe, the newest).
    let b5 = &boards[4];
    let at = b5.push(EventKind::Displaced {
        squares: vec![shakmaty::Square::H2],
        expected_fen: games[4 % games.len()].final_fen.clone(),
        candidates: vec![],
    });
    b5.event(at);
    until(&hall, "b5 displaced", |r| r.open_count() == 1).await;
    let b7 = boards.remove(6);
    b7.die();
    until(&hall, "b7 offline", |r| r.open_count() == 2).await;
    let b13 = &boards[11];
    assert_eq!(b13.id, "b13");
    let at = b13.push(EventKind::IllegalMove {
        side: Side::White,
        completed: true,
        from: Some(shakmaty::Square::B1),
        to: Some(shakmaty::Square::B3),
        count: 1,
        article: Some("7.4".into()),
    });
    b13.event(at);
    go(&mut stdin);
    if !wait_for("ORDERED", &mut seen) {
        fail(node, &seen, "ORDERED");
    }
    // The players put b5's piece back.
    let b5 = &boards[4];
    let at = b5.push(EventKind::Restored {
        fen: games[4 % games.len()].final_fen.clone(),
    });
    b5.event(at);
    go(&mut stdin);
    if !wait_for("HOVERING", &mut seen) {
        fail(node, &seen, "HOVERING");
    }
    let b9 = &boards[7];
    assert_eq!(b9.id, "b9");
    let at = b9.push(EventKind::TouchMove {
        side: Side::Black,
        article: "4.3a".into(),
        square: shakmaty::Square::G8,
    });
    b9.event(at);
    go(&mut stdin);
    drop(stdin);
    let out = tokio::task::block_in_place(|| node.wait_with_output()).unwrap();
    let rest: Vec<String> = seen.into_iter().chain(lines_rx.try_iter()).collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed: {rest:?}\n{stderr}"
    );
    assert!(rest.iter().any(|l| l == "HELD"), "{rest:?}");
    let latency: i64 = rest
        .iter()
        .find_map(|l| l.strip_prefix("LATENCY "))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no LATENCY line: {rest:?}"));
    assert!((0..1000).contains(&latency), "{latency} ms");
    eprintln!("publish to dashboard: {latency} ms");
    hall.stop().await.unwrap();
}

/// Waits (10 s at most) until the hall's registry satisfies `done`.
async fn until(
    hall: &hall::RunningHall,
    what: &str,
    done: impl Fn(&touchmove_hall::registry::Registry) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done(&hall.registry()) {
        assert!(Instant::now() < deadline, "the hall never saw {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Where the boards of the round stand: each plays one of a few games,
/// from a ply of its own, one ply (all its events) at a time.
struct Seat {
    id: String,
    game: usize,
    /// The next event to publish.
    next: usize,
}

/// The index after the events of the next ply from `from` (up to and
/// including its `move_completed`), or the end of the game.
fn next_ply_end(events: &[touchmove_core::events::Event], from: usize) -> usize {
    events[from..]
        .iter()
        .position(|e| matches!(e.kind, EventKind::MoveCompleted { .. }))
        .map_or(events.len(), |i| from + i + 1)
}

/// The dashboard under a round: `TOUCHMOVE_FULL=1` runs the benchmark of
/// the README (1,500 boards, 100 of them moving each second, 60 s);
/// without it a small round (150 boards, 15 moving each second, 10 s)
/// checks that the page keeps up and stays virtualised. Every board's
/// events go through Mosquitto (one feeder client publishing as every
/// board) and the hall; web/test/hall.bench.mjs measures the page: first
/// render, main-thread busy share, the page's memory and DOM, and the time
/// from an alert's publication (its `wall_ms`) to its row in the queue.
/// The figures are printed and written to target/hall-bench.json.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_keeps_up_with_a_round() {
    let full = std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1");
    let (boards, moving, seconds) = if full { (1500, 100, 60) } else { (150, 15, 10) };
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = std::env::temp_dir().join(format!("touchmove-hall-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broker = hall_support::broker_with_feeder(&dir);
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        round: Some("1".into()),
        ..HallOptions::new(&broker.url(), "round")
    })
    .await
    .unwrap();
    let feeder = hall_support::Feeder::connect(&broker, "round");
    let games: Vec<_> = (0..12).map(|s| game(500 + s, 80, "W", "B")).collect();
    // Every board: online, then its game up to a few plies in.
    let mut seats: Vec<Seat> = (0..boards)
        .map(|i| {
            let g = &games[i % games.len()].events;
            let mut next = 0;
            for _ in 0..(1 + i % 6) {
                next = next_ply_end(g, next);
            }
            Seat {
                id: format!("b{}", i + 1),
                game: i % games.len(),
                next,
            }
        })
        .collect();
    let mut expected = 0;
    for (i, s) in seats.iter().enumerate() {
        feeder.publish(&s.id, Channel::Status, "online".into());
        let state = json!({
            "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "moves": [], "clock": null,
            "alerts": [], "result": null, "seq": -1, "white": format!("White {}", i + 1),
            "black": format!("Black {}", i + 1), "now_ms": 0, "history": [], "game": 1
        });
        feeder.publish(&s.id, Channel::State, state.to_string());
        for e in &games[s.game].events[..s.next] {
            feeder.event(&s.id, 1, e);
        }
        expected += s.next;
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let held: usize = {
            let r = hall.registry();
            r.board_ids().iter().map(|id| r.held_seqs(id).len()).sum()
        };
        if held >= expected {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the hall holds {held} of {expected} events"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let mut node = Command::new("node")
        .arg("test/hall.bench.mjs")
        .current_dir(format!("{root}/web"))
        .env("TOUCHMOVE_URL", format!("http://{}/", hall.addr))
        .env("TOUCHMOVE_BOARDS", boards.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs web/test/hall.bench.mjs");
    let mut stdin = node.stdin.take().unwrap();
    let stdout = node.stdout.take().unwrap();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let ready = tokio::task::block_in_place(|| lines_rx.recv_timeout(Duration::from_secs(60)));
    if ready.as_deref() != Ok("READY") {
        let out = node.wait_with_output().unwrap();
        panic!(
            "the page never showed the round: {ready:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // `moving` boards a second, one ply each, in turns of 100 ms; a
    // completed illegal move on some board every second.
    let start = Instant::now();
    let mut turn = 0usize;
    let mut alerts = 0;
    let mut plies = 0;
    let mut cursor = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        for _ in 0..moving / 10 {
            let s = &mut seats[cursor % boards];
            cursor += 1;
            let events = &games[s.game].events;
            let end = next_ply_end(events, s.next);
            for e in &events[s.next..end] {
                feeder.event(&s.id, 1, e);
            }
            if end > s.next {
                plies += 1;
            }
            s.next = end;
        }
        if turn % 10 == 5 {
            let s = &mut seats[(turn * 37) % boards];
            let last = &games[s.game].events[s.next - 1];
            let illegal = touchmove_core::events::Event {
                t_ms: last.t_ms + 1,
                seq: last.seq + 1,
                kind: EventKind::IllegalMove {
                    side: Side::White,
                    completed: true,
                    from: Some(shakmaty::Square::A2),
                    to: Some(shakmaty::Square::A5),
                    count: 1,
                    article: Some("7.4".into()),
                },
            };
            feeder.event(&s.id, 1, &illegal);
            // The board's game goes on from a game of its own: the seq
            // taken by the alert is not reused.
            alerts += 1;
            s.next = games[s.game].events.len();
        }
        turn += 1;
        let next = start + Duration::from_millis(100 * turn as u64);
        tokio::time::sleep_until(next.into()).await;
    }
    stdin
        .write_all(format!("GO {alerts}\n").as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    drop(stdin);
    let out = tokio::task::block_in_place(|| node.wait_with_output()).unwrap();
    let lines: Vec<String> = lines_rx.try_iter().collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench failed: {lines:?}\n{stderr}");
    // What the page logged (with TOUCHMOVE_PROFILE=1: where its time went).
    eprint!("{stderr}");
    let report: serde_json::Value = lines
        .iter()
        .find_map(|l| l.strip_prefix("REPORT "))
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no REPORT line: {lines:?}\n{stderr}"));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let report = json!({
        "boards": boards,
        "moving_per_second": moving,
        "seconds": seconds,
        "plies_published": plies,
        "alerts_published": alerts,
        "load_average": load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        "page": report,
    });
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    let _ = std::fs::write(
        format!(
            "{root}/target/hall-bench{}.json",
            if full { "-full" } else { "" }
        ),
        serde_json::to_string_pretty(&report).unwrap(),
    );
    // What must hold at any load: every alert reached its row, and only
    // the rows in view are in the DOM.
    assert_eq!(report["page"]["alerts_shown"], alerts, "{report}");
    assert!(
        report["page"]["cards_in_dom"].as_u64().unwrap() < boards as u64 / 2,
        "{report}"
    );
    assert!(
        report["page"]["rows_in_dom"].as_u64().unwrap() < boards as u64 / 2,
        "{report}"
    );
    // Boards with no alert come in natural order: the last row is the last board.
    assert_eq!(report["page"]["last_row"], format!("b{boards}"), "{report}");
    drop(feeder);
    hall.stop().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
