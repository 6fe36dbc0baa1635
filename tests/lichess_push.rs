//! The push of the round to Lichess, end to end: fake boards
//! (tests/hall_support) publish their PGN through the real Mosquitto, a
//! real hall (`touchmove_hall::start`) pushes it, and a local HTTP server
//! plays Lichess's `POST /api/broadcast/round/{id}/push` as Lichess
//! documents and implements it (lichess-org/api
//! `doc/specs/tags/broadcasts/broadcast-round-broadcastRoundId-push.yaml`,
//! lichess-org/lila `RelayPush.scala`): bearer token checked (401
//! otherwise), unknown round 404, the PGN split into games, one result per
//! game in order, `{"tags", "moves"}` for a game whose moves replay and
//! `{"tags", "error": "Cannot play ..."}` for one that does not, a 429 with
//! `Retry-After` when told to, a 503 when told to. It records every request.
mod hall_support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use hall_support::{FakeBoard, HALL_PASSWORD, broker};
use serde_json::{Value, json};
use touchmove_core::game::pgn::{PgnError, read_all};
use touchmove_hall::lichess::LichessOptions;
use touchmove_hall::{self as hall, HallOptions, RunningHall};
use touchmove_testkit::mosquitto::Mosquitto;

const HALL: &str = "olympiad";
const TOKEN: &str = "lip_test_token_0123";

/// One request the fake Lichess received.
#[derive(Debug, Clone)]
struct Received {
    round: String,
    at: Instant,
    status: u16,
    content_type: String,
    /// The `Board` tag of each game pushed, in order.
    boards: Vec<String>,
    /// Each game's tags, in order.
    games: Vec<BTreeMap<String, String>>,
}

#[derive(Default)]
struct FakeLichess {
    rounds: HashSet<String>,
    received: Mutex<Vec<Received>>,
    /// Rounds whose next push is answered 429 with this Retry-After.
    rate_limit_once: Mutex<HashMap<String, u64>>,
    /// Rounds whose next push is answered 503.
    fail_once: Mutex<HashSet<String>>,
}

impl FakeLichess {
    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn of_round(&self, round: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.round == round)
            .collect()
    }
}

/// The PGN's games, each as its own text (a tag line after movetext
/// starts the next game, as Lichess's `MultiPgn.split` reads them).
fn split_games(body: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current = String::new();
    let mut in_moves = false;
    for line in body.lines() {
        let tag = line.trim_start().starts_with('[');
        if tag && in_moves {
            games.push(std::mem::take(&mut current));
            in_moves = false;
        }
        if !tag && !line.trim().is_empty() {
            in_moves = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games
}

fn tags_of(game: &str) -> BTreeMap<String, String> {
    game.lines()
        .filter_map(|l| {
            let inner = l.trim().strip_prefix('[')?.strip_suffix(']')?;
            let (name, value) = inner.split_once(' ')?;
            let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
            Some((
                name.to_owned(),
                value.replace("\\\"", "\"").replace("\\\\", "\\"),
            ))
        })
        .collect()
}

fn json_error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

async fn push(
    State(fake): State<Arc<FakeLichess>>,
    Path(round): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let games_text = split_games(&body);
    let games: Vec<BTreeMap<String, String>> = games_text.iter().map(|g| tags_of(g)).collect();
    let mut record = Received {
        round: round.clone(),
        at: Instant::now(),
        status: 200,
        content_type: headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned(),
        boards: games
            .iter()
            .map(|t| t.get("Board").cloned().unwrap_or_default())
            .collect(),
        games: games.clone(),
    };
    let response = (|| {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if bearer != Some(&format!("Bearer {TOKEN}")) {
            return json_error(StatusCode::UNAUTHORIZED, "No such token");
        }
        if !fake.rounds.contains(&round) {
            return json_error(StatusCode::NOT_FOUND, "Not found");
        }
        if let Some(wait) = fake.rate_limit_once.lock().unwrap().remove(&round) {
            let mut r = json_error(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many requests. Try again later.",
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, wait.to_string().parse().unwrap());
            return r;
        }
        if fake.fail_once.lock().unwrap().remove(&round) {
            return (StatusCode::SERVICE_UNAVAILABLE, "<html>down</html>").into_response();
        }
        let results: Vec<Value> = games_text
            .iter()
            .zip(&games)
            .map(|(text, tags)| match read_all(text.as_bytes()) {
                Ok(mut read) if read.len() == 1 => match read.remove(0) {
                    Ok(g) => json!({"tags": tags, "moves": g.moves.len()}),
                    Err(PgnError::Move {
                        san,
                        move_number,
                        dots,
                        ..
                    }) => {
                        let by = if dots == "." { "white" } else { "black" };
                        json!({"tags": tags, "error": format!("Cannot play {san} at move {move_number}, by {by}")})
                    }
                    Err(e) => json!({"tags": tags, "error": e.to_string()}),
                },
                _ => json!({"tags": {}, "error": "Cannot parse moves"}),
            })
            .collect();
        axum::Json(json!({ "games": results })).into_response()
    })();
    record.status = response.status().as_u16();
    fake.received.lock().unwrap().push(record);
    response
}

/// Starts the fake Lichess; its base URL.
async fn fake_lichess(fake: Arc<FakeLichess>) -> String {
    let app = Router::new()
        .route("/api/broadcast/round/{round}/push", post(push))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

async fn start_hall(broker: &Mosquitto, lichess: Option<LichessOptions>) -> RunningHall {
    hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        round: Some("7".into()),
        lichess,
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap()
}

fn options(url: &str, rounds: &[&str], token: &str) -> LichessOptions {
    LichessOptions {
        url: url.to_owned(),
        min_interval_ms: 300,
        ..LichessOptions::new(rounds, token)
    }
}

/// Polls `check` every 20 ms until it holds; panics after 20 s.
async fn until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn push_json(hall: &RunningHall) -> Value {
    // reqwest is built without a default TLS provider (as the hall's).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = format!("http://{}/push.json", hall.addr);
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), 200);
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// Polls `/push.json` until `check` holds; the last answer.
async fn until_status(hall: &RunningHall, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let status = push_json(hall).await;
        if check(&status) {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {status:#}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A board's game: `plies` plies of a fixed opening, or an illegal king
/// move at move 2 for `illegal`.
fn pgn(board: usize, plies: usize, illegal: bool) -> String {
    const SAN: [&str; 8] = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"];
    let mut moves = String::new();
    for (i, san) in SAN.iter().take(plies).enumerate() {
        if i % 2 == 0 {
            moves.push_str(&format!("{}. ", i / 2 + 1));
        }
        moves.push_str(san);
        moves.push(' ');
    }
    if illegal {
        moves = "1. e4 e5 2. Ke3 ".into();
    }
    format!(
        "[Event \"Olympiad\"]\n[Site \"Hall\"]\n[Date \"2026.12.01\"]\n[Round \"?\"]\n[White \"White {board}\"]\n[Black \"Black {board}\"]\n[Result \"*\"]\n\n{moves}*\n"
    )
}

fn ids(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|i| format!("b{i}")).collect()
}

/// The last push answered 200 to `round`.
fn last_accepted(fake: &FakeLichess, round: &str) -> Option<Received> {
    fake.of_round(round)
        .into_iter()
        .rev()
        .find(|r| r.status == 200)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seventy_boards_go_to_two_rounds_in_board_order_with_a_429_and_a_rejected_game() {
    const FIRST: &str = "firstRnd";
    const SECOND: &str = "secondRd";
    let names = ids(1..=70);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let broker = broker(&refs);
    let fake = Arc::new(FakeLichess {
        rounds: [FIRST, SECOND].map(String::from).into(),
        ..FakeLichess::default()
    });
    // The second round's first push is answered 429, wait 2 s.
    fake.rate_limit_once
        .lock()
        .unwrap()
        .insert(SECOND.into(), 2);
    let url = fake_lichess(Arc::clone(&fake)).await;

    // Every board publishes its (retained) game before the hall starts;
    // b66's game has an illegal move.
    let boards: Vec<FakeBoard> = (1..=70)
        .map(|i| {
            let b = FakeBoard::connect(&broker, HALL, &format!("b{i}"), 1, Vec::new());
            b.online();
            b.pgn(&pgn(i, i % 8 + 1, i == 66));
            b
        })
        .collect();
    let hall = start_hall(&broker, Some(options(&url, &[FIRST, SECOND], TOKEN))).await;

    // Both rounds end with exactly their boards' games, in board order.
    until("every game pushed", || {
        last_accepted(&fake, FIRST).is_some_and(|r| r.boards == ids(1..=64))
            && last_accepted(&fake, SECOND).is_some_and(|r| r.boards == ids(65..=70))
    })
    .await;
    for r in fake.received() {
        assert!(r.games.len() <= 64, "{} games in one push", r.games.len());
        assert!(
            r.content_type.starts_with("text/plain"),
            "{}",
            r.content_type
        );
        let allowed = if r.round == FIRST {
            ids(1..=64)
        } else {
            ids(65..=70)
        };
        assert!(r.boards.iter().all(|b| allowed.contains(b)), "{r:?}");
        assert!(
            r.games.iter().all(|t| t["Round"] == "7"),
            "the hall's round"
        );
    }
    let first = last_accepted(&fake, FIRST).unwrap();
    assert_eq!(first.games[2]["White"], "White 3");

    // The 429 delayed the second round's next push by its wait.
    let second = fake.of_round(SECOND);
    let limited = second.iter().position(|r| r.status == 429).expect("a 429");
    let after = &second[limited + 1];
    let waited = after.at - second[limited].at;
    assert!(
        waited >= Duration::from_secs(2),
        "the push after the 429 came {waited:?} later"
    );

    // The rejected game shows in /push.json with Lichess's error; the
    // others with their moves.
    let status = until_status(&hall, "the second round's games", |s| {
        s["rounds"][1]["games"]
            .as_array()
            .is_some_and(|g| g.len() == 6)
    })
    .await;
    assert_eq!(status["enabled"], true);
    assert_eq!(status["left_out"], json!([]));
    let round = &status["rounds"][1];
    assert_eq!(round["round"], SECOND);
    assert_eq!(round["boards"], json!(ids(65..=70)));
    assert_eq!(round["last_error"], Value::Null);
    assert!(round["last_success_wall_ms"].as_u64().is_some());
    let games = round["games"].as_array().unwrap();
    let b66 = games.iter().find(|g| g["board"] == "b66").unwrap();
    assert_eq!(b66["white"], "White 66");
    assert_eq!(b66["moves"], Value::Null);
    assert_eq!(b66["error"], "Cannot play Ke3 at move 2, by white");
    let b67 = games.iter().find(|g| g["board"] == "b67").unwrap();
    assert_eq!(b67["error"], Value::Null);
    assert_eq!(b67["moves"], 67 % 8 + 1);
    assert_eq!(status["rounds"][0]["games"].as_array().unwrap().len(), 64);

    // Quiet: nothing changes, nothing is pushed.
    let before = fake.received().len();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(
        fake.received().len(),
        before,
        "unchanged rounds are not pushed"
    );

    // b3 plays on: the first round is pushed again, the second is not.
    let second_before = fake.of_round(SECOND).len();
    let first_before = fake.of_round(FIRST).len();
    boards[2].pgn(&pgn(3, 8, false));
    until("b3's change pushed", || {
        fake.of_round(FIRST).len() > first_before
    })
    .await;
    let status = until_status(&hall, "b3's 8 plies", |s| {
        s["rounds"][0]["games"][2]["moves"] == 8
    })
    .await;
    assert_eq!(status["rounds"][0]["games"][2]["board"], "b3");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(
        fake.of_round(FIRST).len(),
        first_before + 1,
        "one push for one change"
    );
    assert_eq!(
        fake.of_round(SECOND).len(),
        second_before,
        "the unchanged round is not pushed"
    );
    let status = push_json(&hall).await;
    assert_eq!(
        status["rounds"][0]["pushes"].as_u64().unwrap() as usize,
        fake.of_round(FIRST)
            .iter()
            .filter(|r| r.status == 200)
            .count()
    );

    hall.stop().await.unwrap();
    drop(boards);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_is_refused_once_and_not_retried() {
    const ROUND: &str = "abcdEFGH";
    let broker = broker(&["b1", "b2"]);
    let fake = Arc::new(FakeLichess {
        rounds: [ROUND.to_owned()].into(),
        ..FakeLichess::default()
    });
    let url = fake_lichess(Arc::clone(&fake)).await;
    let hall = start_hall(
        &broker,
        Some(options(&url, &[ROUND], "lip_wrong_token_000")),
    )
    .await;
    let b1 = FakeBoard::connect(&broker, HALL, "b1", 1, Vec::new());
    let b2 = FakeBoard::connect(&broker, HALL, "b2", 1, Vec::new());
    b1.pgn(&pgn(1, 2, false));
    b2.pgn(&pgn(2, 3, false));
    let status = until_status(&hall, "the refusal", |s| {
        s["rounds"][0]["last_error"].is_string()
    })
    .await;
    let error = status["rounds"][0]["last_error"].as_str().unwrap();
    assert!(
        error.starts_with("the token was refused: it needs study:write"),
        "{error}"
    );
    assert!(
        error.contains("401") && error.contains("No such token"),
        "{error}"
    );
    assert_eq!(status["rounds"][0]["pushes"], 0);
    assert_eq!(status["rounds"][0]["retry_at_wall_ms"], Value::Null);
    // The boards play on; the hall does not try again.
    b1.pgn(&pgn(1, 6, false));
    b2.pgn(&pgn(2, 7, false));
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let received = fake.received();
    assert_eq!(received.len(), 1, "one request, no retry: {received:?}");
    assert_eq!(received[0].status, 401);
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_beyond_the_rounds_are_left_out_and_a_server_error_is_retried() {
    const ROUND: &str = "12345678";
    let broker = broker(&["b1", "b2", "b10"]);

    // Without --lichess-round: no push, and /push.json says so.
    let plain = start_hall(&broker, None).await;
    assert_eq!(push_json(&plain).await, json!({"enabled": false}));
    plain.stop().await.unwrap();

    let fake = Arc::new(FakeLichess {
        rounds: [ROUND.to_owned()].into(),
        ..FakeLichess::default()
    });
    fake.fail_once.lock().unwrap().insert(ROUND.into());
    let url = fake_lichess(Arc::clone(&fake)).await;
    let boards: Vec<FakeBoard> = ["b10", "b2", "b1"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let b = FakeBoard::connect(&broker, HALL, id, 1, Vec::new());
            b.pgn(&pgn(i, 4, false));
            b
        })
        .collect();
    let hall = start_hall(
        &broker,
        Some(LichessOptions {
            games_per_round: 2,
            ..options(&url, &[ROUND], TOKEN)
        }),
    )
    .await;
    let status = until_status(&hall, "the push after the 503", |s| {
        s["rounds"][0]["pushes"] == 1
            && s["rounds"][0]["games"]
                .as_array()
                .is_some_and(|g| g.len() == 2)
    })
    .await;
    assert_eq!(status["left_out"], json!(["b10"]));
    assert_eq!(status["rounds"][0]["boards"], json!(["b1", "b2"]));
    assert_eq!(status["rounds"][0]["last_error"], Value::Null);
    let received = fake.received();
    assert_eq!(received[0].status, 503);
    let ok = received.iter().find(|r| r.status == 200).unwrap();
    // Retried after the backoff (1 s), not at once.
    assert!(ok.at - received[0].at >= Duration::from_secs(1));
    assert!(
        received
            .iter()
            .all(|r| !r.boards.contains(&"b10".to_owned()))
    );
    hall.stop().await.unwrap();
    drop(boards);
}
