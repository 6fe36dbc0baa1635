//! `touchmove hall` against the real Mosquitto (the example ACL, users
//! `hall` and one per board): fake boards (tests/hall_support) publish
//! real events, retained state, PGN and status; the hall is started
//! in-process (`touchmove_hall::start`) and read over HTTP.
mod hall_support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hall_support::{FakeBoard, HALL_PASSWORD, broker, game};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use touchmove_core::events::{EventKind, Side};
use touchmove_core::game::pgn::read_all;
use touchmove_hall::{self as hall, HallOptions, RunningHall};
use touchmove_testkit::mosquitto::Mosquitto;
use touchmove_wire::mqtt::{Channel, ReplayRequest};

const HALL: &str = "open-2026";
const TOKEN: &str = "hall-token-0123456789";

async fn start_hall(broker: &Mosquitto, token: Option<&str>, client_id: &str) -> RunningHall {
    hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        token: token.map(str::to_owned),
        round: Some("5".into()),
        client_id: Some(client_id.into()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap()
}

/// Polls `check` every 20 ms until it holds; panics after 10 s.
async fn until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One HTTP/1.0 request: status, headers (lower-cased names) and body.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

async fn get_json(addr: SocketAddr, path: &str) -> Value {
    let (status, _, body) = request(addr, "GET", path, &[], "").await;
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_sees_every_event_drops_duplicates_and_fills_a_gap_by_replay() {
    let broker = broker(&["b1"]);
    let hall = start_hall(&broker, None, "hall-a").await;
    until("the hall's connection", || hall.shared.connected()).await;
    let g = game(11, 16, "Ann", "Bob");
    let n = g.events.len();
    assert!(n > 30, "a game of {n} events");
    let board = FakeBoard::connect(&broker, HALL, "b1", 3, g.events.clone());
    board.online();
    // Wait for the hall's subscription (the status reaches it).
    let status = || hall.registry().status_of("b1");
    until("b1 online", || {
        status() == Some(touchmove_hall::registry::Status::Online)
    })
    .await;

    // Events 0..10, 3 published twice.
    for i in 0..10 {
        board.event(i);
    }
    board.event(3);
    until("ten events", || hall.registry().held_seqs("b1").len() == 10).await;
    assert_eq!(hall.registry().stats("b1").unwrap().duplicates, 1);
    assert!(board.requests.lock().unwrap().is_empty());

    // 10..13 lost; 13.. arrive: the hall asks for the events after 9.
    board
        .answer
        .store(false, std::sync::atomic::Ordering::Relaxed);
    for i in 13..n {
        board.event(i);
    }
    until("the replay request", || {
        !board.requests.lock().unwrap().is_empty()
    })
    .await;
    assert_eq!(
        board.requests.lock().unwrap()[0],
        ReplayRequest {
            game: 3,
            after_seq: Some(9)
        }
    );
    // Unanswered, it is asked again (after the retry time).
    until("the second request", || {
        board.requests.lock().unwrap().len() >= 2
    })
    .await;
    assert_eq!(
        board.requests.lock().unwrap()[1],
        ReplayRequest {
            game: 3,
            after_seq: Some(9)
        }
    );
    board
        .answer
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let all: Vec<u64> = (0..n as u64).collect();
    until("every event", || hall.registry().held_seqs("b1") == all).await;
    assert_eq!(hall.registry().events("b1"), g.events);
    let stats = hall.registry().stats("b1").unwrap();
    assert_eq!(stats.gaps, 1);
    assert!(
        stats.duplicates > 1,
        "the replay resent what the hall had: {stats:?}"
    );

    // The view is the reduction of every event: the final position.
    let b = get_json(hall.addr, "/board/b1.json").await;
    assert_eq!(b["source"], "events");
    assert_eq!(b["fen"], g.final_fen.as_str());
    assert_eq!(b["seq"], n as u64 - 1);
    assert_eq!(b["missing"], serde_json::json!([]));
    assert_eq!(b["gap"], false);

    // A bad payload is counted and shown, and the hall goes on.
    board.raw(Channel::Events, "{\"game\": 3, \"type\": 1");
    until("the fault", || hall.registry().faults().0 == 1).await;
    let health = get_json(hall.addr, "/health").await;
    assert_eq!(health["bad_messages"], 1);
    assert_eq!(health["broker"], "connected");
    let boards = get_json(hall.addr, "/boards").await;
    assert!(
        boards["faults"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    assert_eq!(
        boards["faults"][0]["topic"],
        "touchmove/v1/open-2026/b1/events"
    );
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retained_state_survives_a_hall_restart() {
    let broker = broker(&["b1", "b2"]);
    let g1 = game(21, 10, "Ann", "Bob");
    let g2 = game(22, 12, "Cid", "Dee");
    let mut b1 = FakeBoard::connect(&broker, HALL, "b1", 1, g1.events.clone());
    b1.white = "Ann".into();
    b1.black = "Bob".into();
    let b2 = FakeBoard::connect(&broker, HALL, "b2", 7, g2.events.clone());
    for (board, g) in [(&b1, &g1), (&b2, &g2)] {
        board.online();
        board.state(g.events.len() - 1);
        board.pgn(&g.pgn);
    }
    let hall = start_hall(&broker, None, "hall-first").await;
    until("two boards", || hall.registry().board_ids().len() == 2).await;
    hall.stop().await.unwrap();

    // A new hall (another client, so nothing queued for it): the boards
    // show from what the broker retained, without any new event.
    let hall = start_hall(&broker, None, "hall-second").await;
    until("two boards again", || {
        let r = hall.registry();
        r.board_ids() == ["b1", "b2"] && r.board_pgn("b2", None).is_some()
    })
    .await;
    let b = get_json(hall.addr, "/board/b1.json").await;
    assert_eq!(b["source"], "state");
    assert_eq!(b["fen"], g1.final_fen.as_str());
    assert_eq!(b["white"], "Ann");
    assert_eq!(b["status"], "online");
    assert_eq!(b["game"], 1);
    assert_eq!(b["stats"]["events"], 0);
    let boards = get_json(hall.addr, "/boards").await;
    assert_eq!(boards["boards"][1]["fen"], g2.final_fen.as_str());
    assert_eq!(boards["boards"][1]["game"], 7);
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_that_dies_shows_as_an_offline_alert_and_illegal_moves_as_alerts() {
    let broker = broker(&["b3", "b4"]);
    let hall = start_hall(&broker, Some(TOKEN), "hall-c").await;
    until("the hall's connection", || hall.shared.connected()).await;
    let g = game(31, 6, "Ann", "Bob");
    let b3 = FakeBoard::connect(&broker, HALL, "b3", 1, g.events.clone());
    let b4 = FakeBoard::connect(&broker, HALL, "b4", 1, g.events.clone());
    b3.online();
    b4.online();
    for i in 0..g.events.len() {
        b4.event(i);
    }
    let at = b4.push(EventKind::IllegalMove {
        side: Side::White,
        completed: true,
        from: Some(shakmaty::Square::E1),
        to: Some(shakmaty::Square::E3),
        count: 1,
        article: Some("7.4".into()),
    });
    b4.event(at);
    until("b3 online", || {
        hall.registry().status_of("b3") == Some(touchmove_hall::registry::Status::Online)
    })
    .await;
    until("the illegal move alert", || {
        hall.registry().alerts().len() == 1
    })
    .await;

    b3.die();
    until("b3 offline", || {
        hall.registry().status_of("b3") == Some(touchmove_hall::registry::Status::Offline)
    })
    .await;
    let boards = get_json(hall.addr, "/boards").await;
    let alerts = boards["alerts"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = alerts
        .iter()
        .map(|a| (a["board"].as_str().unwrap(), a["type"].as_str().unwrap()))
        .collect();
    // The arbiter's queue: by severity (a completed illegal move before
    // an offline board), then by age.
    assert_eq!(kinds, [("b4", "illegal_move"), ("b3", "offline")]);
    assert_eq!(alerts[1]["active"], true);
    assert_eq!(alerts[0]["severity"], 0);
    // Boards by their worst open alert.
    let order: Vec<&str> = boards["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["b4", "b3"]);
    assert_eq!(boards["boards"][0]["open_alerts"], 1);
    assert_eq!(boards["boards"][1]["status"], "offline");

    // The arbiter acknowledges b4's alert: it leaves the open list.
    let auth = format!("Bearer {TOKEN}");
    let id = alerts[0]["id"].as_u64().unwrap();
    let (status, _, body) = request(
        hall.addr,
        "POST",
        "/api/acknowledge",
        &[("Authorization", &auth)],
        &format!("{{\"board\": \"b4\", \"alert\": {id}}}"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let boards = get_json(hall.addr, "/boards").await;
    assert_eq!(boards["alerts"].as_array().unwrap().len(), 1);
    assert_eq!(boards["boards"][0]["id"], "b3");
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_pgn_has_every_board_in_order_with_board_round_and_clocks() {
    let broker = broker(&["b2", "b10"]);
    let hall = start_hall(&broker, None, "hall-d").await;
    let games = [
        ("b10", game(41, 14, "Ann", "Bob")),
        ("b2", game(42, 18, "Cid", "Dee")),
    ];
    let mut boards = Vec::new();
    for (id, g) in &games {
        let board = FakeBoard::connect(&broker, HALL, id, 1, g.events.clone());
        board.pgn(&g.pgn);
        boards.push(board);
    }
    until("two PGNs", || {
        let r = hall.registry();
        r.board_pgn("b2", None).is_some() && r.board_pgn("b10", None).is_some()
    })
    .await;
    let (status, headers, body) = request(hall.addr, "GET", "/round.pgn", &[], "").await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/x-chess-pgn; charset=utf-8")
    );
    assert_eq!(header(&headers, "cache-control"), Some("no-cache"));
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    let etag = header(&headers, "etag").unwrap().to_owned();
    let read = read_all(body.as_bytes()).unwrap();
    assert_eq!(read.len(), 2);
    let read: Vec<_> = read.into_iter().map(Result::unwrap).collect();
    assert_eq!(read[0].tag("Board"), Some("b2"));
    assert_eq!(read[1].tag("Board"), Some("b10"));
    for (pgn, (_, g)) in read.iter().zip(games.iter().rev()) {
        assert_eq!(pgn.tag("Round"), Some("5"));
        assert_eq!(pgn.tag("TimeControl"), Some("5400+30"));
        assert!(!pgn.moves.is_empty());
        assert_eq!(pgn.moves.len(), pgn.clocks.len());
        assert!(
            pgn.clocks.iter().all(Option::is_some),
            "a [%clk] on every move"
        );
        assert_eq!(
            touchmove_core::game::fen_of(&pgn.moves.iter().fold(
                pgn.start.position().clone(),
                |mut p, m| {
                    use shakmaty::Position;
                    p.play_unchecked(*m);
                    p
                }
            )),
            g.final_fen
        );
    }
    // A poller with the ETag gets 304 until a board's PGN changes.
    let (status, _, body) = request(
        hall.addr,
        "GET",
        "/round.pgn",
        &[("If-None-Match", &etag)],
        "",
    )
    .await;
    assert_eq!((status, body.as_str()), (304, ""));
    // One board's PGN; an unknown board is a 404 with a sentence.
    let (status, _, body) = request(hall.addr, "GET", "/board/b10.pgn", &[], "").await;
    assert_eq!(status, 200);
    assert!(body.contains("[Board \"b10\"]") && body.contains("[%clk"));
    let (status, _, body) = request(hall.addr, "GET", "/board/b99.pgn", &[], "").await;
    assert_eq!(status, 404);
    assert!(body.contains("no board \\\"b99\\\""), "{body}");
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_needs_the_token_and_a_well_formed_body() {
    let broker = broker(&["b5"]);
    let hall = start_hall(&broker, Some(TOKEN), "hall-e").await;
    let g = game(51, 6, "Ann", "Bob");
    let board = FakeBoard::connect(&broker, HALL, "b5", 2, g.events.clone());
    board
        .answer
        .store(false, std::sync::atomic::Ordering::Relaxed);
    board.online();
    until("b5", || hall.registry().has_board("b5")).await;
    let body = r#"{"board": "b5"}"#;
    let post = |path: &'static str, auth: Option<String>, body: &'static str| {
        let addr = hall.addr;
        async move {
            let headers: Vec<(&str, &str)> = auth
                .as_deref()
                .map(|a| ("Authorization", a))
                .into_iter()
                .collect();
            request(addr, "POST", path, &headers, body).await
        }
    };
    let (status, _, text) = post("/api/acknowledge", None, body).await;
    assert_eq!(status, 401, "{text}");
    let (status, _, _) = post(
        "/api/replay",
        Some("Bearer wrong-token-0123456789".into()),
        body,
    )
    .await;
    assert_eq!(status, 401);
    let good = Some(format!("Bearer {TOKEN}"));
    let (status, _, text) = post("/api/acknowledge", good.clone(), r#"{"board": 5}"#).await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["field"],
        "board"
    );
    let (status, _, text) = post(
        "/api/replay",
        good.clone(),
        r#"{"board": "b5", "game": "x"}"#,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["field"],
        "game"
    );
    let (status, _, _) = post("/api/acknowledge", good.clone(), "[").await;
    assert_eq!(status, 400);
    let (status, _, _) = post("/api/acknowledge", good.clone(), r#"{"board": "nope"}"#).await;
    assert_eq!(status, 404);
    let (status, _, text) = post("/api/acknowledge", good.clone(), body).await;
    assert_eq!(status, 200, "{text}");
    // The replay request reaches the board (through the broker's ACL).
    let (status, _, text) = post(
        "/api/replay",
        good.clone(),
        r#"{"board": "b5", "game": 2, "after_seq": 4}"#,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    until("the board's request", || {
        !board.requests.lock().unwrap().is_empty()
    })
    .await;
    assert_eq!(
        board.requests.lock().unwrap()[0],
        ReplayRequest {
            game: 2,
            after_seq: Some(4)
        }
    );
    hall.stop().await.unwrap();

    // Without a token configured control is disabled, saying how to enable it.
    let hall = start_hall(&broker, None, "hall-f").await;
    let (status, _, text) = request(
        hall.addr,
        "POST",
        "/api/acknowledge",
        &[("Authorization", "Bearer x")],
        body,
    )
    .await;
    assert_eq!(status, 401);
    assert!(text.contains("--token-file"), "{text}");
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_alerts_stay_acknowledged_after_a_hall_restart() {
    let broker = broker(&["b4"]);
    let acks = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hall-acks.json");
    let _ = std::fs::remove_file(&acks);
    let start = |client_id: &'static str| {
        let acks = acks.clone();
        let url = broker.url();
        async move {
            hall::start(HallOptions {
                bind: "127.0.0.1:0".parse().unwrap(),
                password: Some(HALL_PASSWORD.into()),
                token: Some(TOKEN.into()),
                client_id: Some(client_id.into()),
                acks: Some(acks),
                ..HallOptions::new(&url, HALL)
            })
            .await
            .unwrap()
        }
    };
    let hall = start("hall-acks-1").await;
    until("the hall's connection", || hall.shared.connected()).await;
    let g = game(32, 6, "Ann", "Bob");
    let b4 = FakeBoard::connect(&broker, HALL, "b4", 1, g.events.clone());
    b4.online();
    for i in 0..g.events.len() {
        b4.event(i);
    }
    let at = b4.push(EventKind::IllegalMove {
        side: Side::Black,
        completed: true,
        from: Some(shakmaty::Square::E8),
        to: Some(shakmaty::Square::E6),
        count: 1,
        article: Some("7.5".into()),
    });
    b4.event(at);
    until("the illegal move alert", || {
        hall.registry().alerts().len() == 1
    })
    .await;
    let auth = format!("Bearer {TOKEN}");
    let (status, _, body) = request(
        hall.addr,
        "POST",
        "/api/acknowledge",
        &[("Authorization", &auth)],
        "{\"board\": \"b4\"}",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let kept = std::fs::read_to_string(&acks).unwrap();
    assert!(kept.contains(&format!("[\"b4\",1,{at}]")), "{kept}");
    hall.stop().await.unwrap();

    // A new hall replays the game from the board: the alert is raised
    // again, and comes acknowledged.
    let hall = start("hall-acks-2").await;
    until("the hall's connection", || hall.shared.connected()).await;
    until("b4 from its retained state", || {
        hall.registry().has_board("b4")
    })
    .await;
    let (status, _, body) = request(
        hall.addr,
        "POST",
        "/api/replay",
        &[("Authorization", &auth)],
        "{\"board\": \"b4\", \"game\": 1}",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    until("the replayed alert", || hall.registry().alerts().len() == 1).await;
    assert!(hall.registry().alerts()[0].acknowledged);
    let boards = get_json(hall.addr, "/boards").await;
    assert_eq!(boards["alerts"].as_array().unwrap().len(), 0, "{boards}");
    hall.stop().await.unwrap();

    // A damaged file is refused at start, by name.
    std::fs::write(&acks, "{not json").unwrap();
    let err = match hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        acks: Some(acks.clone()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    {
        Ok(_) => panic!("a damaged acknowledgements file is accepted"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("hall-acks.json: line 1"), "{err}");
}
