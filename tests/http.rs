//! The daemon over real HTTP on loopback: a synthesized trace is played
//! through `touchmove_board::daemon` (fast, by a speed factor) and read back
//! through `/events`, `/game.pgn`, `/state` and the control endpoints.
//!
//! Requests are HTTP/1.0 over a plain TCP stream, so that streamed
//! responses are close-delimited and need no HTTP client crate.
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use touchmove_board::daemon::game_loop::GameSource;
use touchmove_board::daemon::{Options, Running, start};
use touchmove_board::time::VirtualClock;
use touchmove_core::game::pgn::{Tags, read_all};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_core::trace::Trace;
use touchmove_synth::{self as synth, HandStyle};

const TOKEN: &str = "test-token-0123456789";

fn trace(seed: u64) -> Trace {
    let (start, moves) = synth::random_game(seed, 24);
    synth::synthesize(&start, &moves, &HandStyle::careful(), seed).trace
}

/// What `touchmove replay --events` prints for `trace` (90+30 clock).
fn replay_lines(trace: &Trace) -> Vec<String> {
    let tc = parse_time_control("90+30").unwrap();
    let mut session = session_for(trace, None, None, Some(tc), None, None).unwrap();
    drive(&mut session, trace, "test")
        .unwrap()
        .iter()
        .map(|e| e.to_json())
        .collect()
}

async fn daemon(trace: Trace, token: Option<&str>, speed: f64) -> Running {
    start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: token.map(str::to_owned),
        speed,
        time_control: Some(parse_time_control("90+30").unwrap()),
        tags: Tags {
            white: "White Player".into(),
            black: "Black Player".into(),
            ..Tags::default()
        },
        ..Options::new(GameSource::Trace(Box::new(trace)))
    })
    .await
    .unwrap()
}

/// One request; returns the status and the body.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
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
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Opens `/events` and reads `(id, data)` pairs until `count` arrived or
/// nothing came for `idle`.
async fn sse(
    addr: SocketAddr,
    last_event_id: Option<&str>,
    count: usize,
    idle: Duration,
) -> Vec<(String, String)> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("GET /events HTTP/1.0\r\nHost: {addr}\r\nAccept: text/event-stream\r\n");
    if let Some(id) = last_event_id {
        head.push_str(&format!("Last-Event-ID: {id}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut lines = BufReader::new(stream).lines();
    let mut out = Vec::new();
    let mut id = String::new();
    while out.len() < count {
        let Ok(Ok(Some(line))) = tokio::time::timeout(idle, lines.next_line()).await else {
            break;
        };
        if let Some(rest) = line.strip_prefix("id: ") {
            id = rest.to_owned();
        } else if let Some(data) = line.strip_prefix("data: ") {
            out.push((std::mem::take(&mut id), data.to_owned()));
        }
    }
    out
}

/// The scan loop on a virtual clock: a game of minutes in real time
/// (speed 1) is played in game time without the test waiting for it, and
/// the feed is the replay's, event for event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_virtual_clock_the_game_runs_in_game_time_without_waiting() {
    let trace = trace(5);
    let expected = replay_lines(&trace);
    let last = trace.records.last().map_or(0, |r| r.t);
    assert!(last > 60_000, "a game of minutes: {last} ms");
    let clock = VirtualClock::new();
    let running = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        time_control: Some(parse_time_control("90+30").unwrap()),
        clock: clock.clone(),
        ..Options::new(GameSource::Trace(Box::new(trace)))
    })
    .await
    .unwrap();
    let events = sse(
        running.addr,
        Some("0-0"),
        expected.len(),
        Duration::from_secs(20),
    )
    .await;
    let got: Vec<&str> = events.iter().map(|(_, data)| data.as_str()).collect();
    assert_eq!(got, expected, "the feed is the replay");
    assert!(
        clock.elapsed() >= Duration::from_millis(last),
        "game time ran on the virtual clock: {:?} for a trace of {last} ms",
        clock.elapsed()
    );
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_equals_replay_and_resumes_without_gap_or_duplicate() {
    let trace = trace(11);
    let expected = replay_lines(&trace);
    assert!(
        expected.len() > 50,
        "a game with events: {}",
        expected.len()
    );
    let running = daemon(trace, Some(TOKEN), 40.0).await;
    let addr = running.addr;

    // The PGN, polled while the game is played, always parses.
    let poller = tokio::spawn(async move {
        let mut seen = Vec::new();
        for _ in 0..12 {
            let (status, body) = request(addr, "GET", "/game.pgn", &[], "").await;
            assert_eq!(status, 200);
            if !body.is_empty() {
                let games = read_all(body.as_bytes()).unwrap();
                assert_eq!(games.len(), 1, "{body}");
                let game = games
                    .into_iter()
                    .next()
                    .unwrap()
                    .unwrap_or_else(|e| panic!("{e}\n{body}"));
                assert_eq!(game.tag("White"), Some("White Player"));
                seen.push(game.moves.len());
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        seen
    });

    // An id of a game before the first: everything of the current game.
    let events = sse(addr, Some("0-0"), expected.len(), Duration::from_secs(20)).await;
    let data: Vec<String> = events.iter().map(|(_, d)| d.clone()).collect();
    assert_eq!(data, expected, "the SSE feed is `replay --events`");
    for (i, (id, _)) in events.iter().enumerate() {
        assert_eq!(id, &format!("1-{i}"));
    }

    // Resuming after event k gives exactly the events after it.
    for k in [0, 7, expected.len() / 2, expected.len() - 2] {
        let id = format!("1-{k}");
        let resumed = sse(addr, Some(&id), usize::MAX, Duration::from_millis(400)).await;
        let data: Vec<String> = resumed.into_iter().map(|(_, d)| d).collect();
        assert_eq!(data, expected[k + 1..], "resumed after {id}");
    }
    // A bare seq is read in the current game.
    let resumed = sse(addr, Some("5"), usize::MAX, Duration::from_millis(400)).await;
    assert_eq!(resumed.len(), expected.len() - 6);

    let seen = poller.await.unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen.len() >= 6);
    let (_, pgn) = request(addr, "GET", "/game.pgn", &[], "").await;
    let game = read_all(pgn.as_bytes()).unwrap().remove(0).unwrap();
    let plies = expected
        .iter()
        .filter(|l| l.contains(r#""type":"move""#))
        .count();
    assert_eq!(game.moves.len(), plies);
    assert!(pgn.contains("[%clk "), "{pgn}");

    let (status, state) = request(addr, "GET", "/state", &[], "").await;
    assert_eq!(status, 200);
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["moves"].as_array().unwrap().len(), plies);
    assert_eq!(state["seq"], (expected.len() - 1) as u64);
    assert_eq!(state["white"], "White Player");

    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_needs_the_token_and_a_well_formed_body() {
    let running = daemon(trace(5), Some(TOKEN), 40.0).await;
    let addr = running.addr;
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("Authorization", bearer.as_str())];
    let body = r#"{"side":"white"}"#;

    let (status, text) = request(addr, "POST", "/api/resign", &[], body).await;
    assert_eq!(status, 401, "{text}");
    let wrong = [("Authorization", "Bearer test-token-0123456788")];
    let (status, _) = request(addr, "POST", "/api/resign", &wrong, body).await;
    assert_eq!(status, 401);
    let (status, text) = request(addr, "POST", "/api/resign", &auth, r#"{"side":"red"}"#).await;
    assert_eq!(status, 400);
    let err: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(err["field"], "side");
    let (status, _) = request(addr, "POST", "/api/resign", &auth, "{not json").await;
    assert_eq!(status, 400);
    let (status, text) = request(addr, "POST", "/api/promote", &auth, r#"{"piece":"k"}"#).await;
    assert_eq!(status, 400);
    assert!(text.contains("piece"), "{text}");

    // Wait until the game has started, then resign for White.
    let live = tokio::spawn(sse(addr, Some("0-0"), 1, Duration::from_secs(10)));
    assert_eq!(live.await.unwrap().len(), 1);
    // The arbiter sets the clocks (6.14); a body without a reason is refused.
    let clocks = r#"{"white_ms":300000,"black_ms":240000}"#;
    let (status, text) = request(addr, "POST", "/api/clock", &auth, clocks).await;
    assert_eq!(status, 400);
    assert!(text.contains("reason"), "{text}");
    let clocks = r#"{"white_ms":300000,"black_ms":240000,"reason":"clock malfunction"}"#;
    let (status, text) = request(addr, "POST", "/api/clock", &auth, clocks).await;
    assert_eq!(status, 200, "{text}");
    // The `clock` event reaches the feed with the scan loop's next step.
    let mut black = serde_json::Value::Null;
    for _ in 0..40 {
        let (_, state) = request(addr, "GET", "/state", &[], "").await;
        let state: serde_json::Value = serde_json::from_str(&state).unwrap();
        black = state["clock"]["black_ms"].clone();
        if black == 240_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(black, 240_000);
    let (status, text) = request(addr, "POST", "/api/resign", &auth, body).await;
    assert_eq!(status, 200, "{text}");
    // The result, too, reaches the state with the scan loop's next step
    // (on a loaded machine that step may come late).
    let mut state = serde_json::Value::Null;
    for _ in 0..40 {
        let (_, text) = request(addr, "GET", "/state", &[], "").await;
        state = serde_json::from_str(&text).unwrap();
        if state["result"]["result"] == "0-1" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(state["result"]["result"], "0-1");
    assert_eq!(state["result"]["reason"], "resignation");
    let (_, pgn) = request(addr, "GET", "/game.pgn", &[], "").await;
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    // Resigning again: the game is over.
    let (status, _) = request(addr, "POST", "/api/resign", &auth, body).await;
    assert_eq!(status, 409);
    let (status, _) = request(
        addr,
        "POST",
        "/api/draw",
        &auth,
        r#"{"side":"white","kind":"agree"}"#,
    )
    .await;
    assert_eq!(status, 409);
    running.stop().await.unwrap();

    // Without a token, control is disabled and says how to enable it.
    let running = daemon(trace(5), None, 40.0).await;
    let (status, text) = request(running.addr, "POST", "/api/resign", &auth, body).await;
    assert_eq!(status, 401);
    assert!(text.contains("token-file"), "{text}");
    let (status, text) = request(running.addr, "GET", "/", &[], "").await;
    assert_eq!(status, 200);
    assert!(text.contains("<html") || text.contains("<!doctype") || text.contains("<!DOCTYPE"));
    let (status, _) = request(running.addr, "GET", "/health", &[], "").await;
    assert_eq!(status, 200);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arbiter_reinstates_and_accepts_positions_over_http() {
    // Slow enough that the game is still on when the arbiter rules.
    let running = daemon(trace(6), Some(TOKEN), 4.0).await;
    let addr = running.addr;
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("Authorization", bearer.as_str())];

    // Wait for the first move.
    let mut first_move = false;
    for _ in 0..200 {
        let (_, state) = request(addr, "GET", "/state", &[], "").await;
        let state: serde_json::Value = serde_json::from_str(&state).unwrap();
        if state["moves"].as_array().is_some_and(|m| !m.is_empty()) {
            first_move = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(first_move, "no move was made");

    // Malformed rulings name the field.
    let (status, text) = request(addr, "POST", "/api/reinstate", &auth, r#"{"ply":0}"#).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("irregularity"), "{text}");
    let (status, text) = request(
        addr,
        "POST",
        "/api/accept-position",
        &auth,
        r#"{"fen":"no fen at all"}"#,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    let err: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(err["field"], "fen");
    // No candidate is listed: the ruling does not apply now.
    let (status, text) = request(
        addr,
        "POST",
        "/api/accept-position",
        &auth,
        r#"{"candidate":0}"#,
    )
    .await;
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("no candidate 0"), "{text}");
    let (status, text) = request(
        addr,
        "POST",
        "/api/reinstate",
        &auth,
        r#"{"ply":900,"irregularity":"displaced"}"#,
    )
    .await;
    assert_eq!(status, 409, "{text}");

    // The arbiter sets the game back to its start (7.4.1 of 2023).
    let body = r#"{"ply":0,"irregularity":"displaced","note":"pieces knocked over"}"#;
    let (status, text) = request(addr, "POST", "/api/reinstate", &auth, body).await;
    assert_eq!(status, 200, "{text}");
    let events = sse(addr, Some("1-0"), 10_000, Duration::from_millis(800)).await;
    let decision = events
        .iter()
        .map(|(_, data)| serde_json::from_str::<serde_json::Value>(data).unwrap())
        .skip_while(|e| e["type"] != "arbiter_decision")
        .take(2)
        .collect::<Vec<_>>();
    assert_eq!(decision.len(), 2, "{events:?}");
    assert_eq!(decision[0]["decision"], "reinstate");
    assert_eq!(decision[0]["article"], "7.4.1");
    assert_eq!(decision[0]["note"], "pieces knocked over");
    assert_eq!(decision[1]["type"], "takeback");
    assert_eq!(decision[1]["ply"], 0);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_control_command_works_with_the_token() {
    let running = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: Some(TOKEN.into()),
        speed: 20.0,
        time_control: Some(parse_time_control("90+30").unwrap()),
        ..Options::new(GameSource::Demo {
            seed: 11,
            faults: false,
        })
    })
    .await
    .unwrap();
    let addr = running.addr;
    let state = || async move {
        let (_, text) = request(addr, "GET", "/state", &[], "").await;
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    let post = |command: &'static str, body: &'static str| async move {
        let bearer = format!("Bearer {TOKEN}");
        let auth = [("Authorization", bearer.as_str())];
        request(addr, "POST", &format!("/api/{command}"), &auth, body).await
    };

    // A new game: Chess960 position 0, named players, another clock.
    let body = r#"{"chess960":0,"white":"Ana Ruiz","black":"Bo Lind","time_control":"25+10"}"#;
    let (status, text) = post("new-game", body).await;
    assert_eq!(status, 200, "{text}");
    let mut fen = String::new();
    for _ in 0..200 {
        let s = state().await;
        fen = s["fen"].as_str().unwrap_or_default().to_owned();
        if s["white"] == "Ana Ruiz" && fen.starts_with("bbqnnrkr/") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(fen.starts_with("bbqnnrkr/"), "position 0 is set up: {fen}");
    let (_, pgn) = request(addr, "GET", "/game.pgn", &[], "").await;
    assert!(pgn.contains("[White \"Ana Ruiz\"]"), "{pgn}");
    assert!(pgn.contains("[TimeControl \"1500+10\"]"), "{pgn}");
    assert!(
        pgn.contains("[Variant \"Chess960\"]") || pgn.contains("[SetUp \"1\"]"),
        "{pgn}"
    );

    // Promotion choice and j'adoube are taken at any time of the game.
    let (status, text) = post("promote", r#"{"piece":"n"}"#).await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = post("adjust", "{}").await;
    assert_eq!(status, 200, "{text}");
    // A claim with nothing to claim is refused (and costs the claimant time).
    let (status, text) = post("draw", r#"{"side":"black","kind":"claim"}"#).await;
    assert_eq!(status, 409, "{text}");
    // An agreed draw ends the game.
    let (status, text) = post("draw", r#"{"side":"white","kind":"agree"}"#).await;
    assert_eq!(status, 200, "{text}");
    // The answer comes once the command is taken; the state follows when
    // its events are published (after the journal, on a busy machine a
    // moment later).
    let mut s = state().await;
    for _ in 0..200 {
        if !s["result"].is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        s = state().await;
    }
    assert_eq!(s["result"]["result"], "1/2-1/2", "{s}");
    assert_eq!(s["result"]["reason"], "agreement");
    running.stop().await.unwrap();
}

/// The raw answer to one request: status line and headers, and the body's bytes.
async fn raw(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.unwrap();
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    (
        String::from_utf8_lossy(&bytes[..split]).to_lowercase(),
        bytes[split + 4..].to_vec(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pgn_is_revalidated_by_etag_and_answers_are_gzipped_for_who_asks() {
    let running = daemon(trace(5), None, 40.0).await;
    let addr = running.addr;
    // Revalidating with the tag just given: 304 and no body (unless a
    // move came in between, so a few tries).
    let etag_of = |head: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix("etag: ").map(str::to_owned))
            .expect("an ETag")
    };
    let mut not_modified = false;
    for _ in 0..20 {
        let (head, full) = raw(addr, "/game.pgn", &[]).await;
        assert!(head.starts_with("http/1.0 200"), "{head}");
        let etag = etag_of(&head);
        let (head, body) = raw(addr, "/game.pgn", &[("If-None-Match", &etag)]).await;
        if head.starts_with("http/1.0 304") {
            assert!(body.is_empty());
            assert_eq!(etag_of(&head), etag);
            not_modified = true;
            break;
        }
        assert!(head.starts_with("http/1.0 200"), "{head}");
        assert_ne!(
            body, full,
            "a 200 to a matching tag only when the PGN changed"
        );
    }
    assert!(not_modified, "a matching If-None-Match gets 304");
    let (head, _) = raw(addr, "/game.pgn", &[("If-None-Match", "\"not-it\"")]).await;
    assert!(head.starts_with("http/1.0 200"), "{head}");

    // gzip on request, for the page's script and the PGN; never for SSE.
    let (plain_head, plain) = raw(addr, "/app.js", &[]).await;
    assert!(!plain_head.contains("content-encoding"), "{plain_head}");
    let (head, zipped) = raw(addr, "/app.js", &[("Accept-Encoding", "gzip")]).await;
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(
        zipped.len() * 2 < plain.len(),
        "gzip: {} of {} bytes",
        zipped.len(),
        plain.len()
    );
    assert_eq!(&zipped[..2], &[0x1f, 0x8b], "a gzip stream");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /events HTTP/1.0\r\nAccept-Encoding: gzip\r\n\r\n")
        .await
        .unwrap();
    let mut lines = BufReader::new(stream).lines();
    let mut sse_head = String::new();
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_secs(2), lines.next_line()).await
    {
        if line.is_empty() {
            break;
        }
        sse_head.push_str(&line.to_lowercase());
        sse_head.push('\n');
    }
    assert!(sse_head.contains("text/event-stream"), "{sse_head}");
    assert!(!sse_head.contains("content-encoding"), "{sse_head}");
    running.stop().await.unwrap();
}
