//! The hall's HTTP face (axum).
//!
//! - `GET /` (`/hall.html`): the arbiter's dashboard, every board at a
//!   glance, alerts first; `GET /board/<id>`: one board's full view. Both
//!   embedded from `web/dist/` (`hall.html`, `board.html`, `hall.js`,
//!   `hall.css`).
//! - `GET /events`: Server-Sent Events for the dashboard. First `event:
//!   hall` with every board (as `GET /boards`), then `event: board` with a
//!   board's summary each time it changes (changes within 100 ms of each
//!   other are sent once per board), `event: meta` for the broker connection and bad
//!   payloads. `GET /events?board=<id>`: the same for one board, with its
//!   full view. A client that falls behind gets the whole hall again.
//!   Every message carries `now_ms`, the hall's clock, for the clocks.
//! - `GET /boards`: every board as JSON (by worst open alert, then natural
//!   order), the arbiter's queue (`alerts`: open ones by severity, then
//!   age) and the last alerts closed (`closed`); `GET /board/<id>.json`:
//!   one board.
//! - `GET /round.pgn`: the round, every board's game in natural board
//!   order with `[Board]` and `[Round]`, `[%clk]` kept; `ETag` and
//!   `Cache-Control: no-cache` so that broadcast services polling it get
//!   `304 Not Modified` until a board moves. `GET /board/<id>.pgn`: one.
//! - `GET /health`: `status` `ok` (HTTP 200) while the hall receives from
//!   the broker, else `degraded` (HTTP 503) with its `problems`; the
//!   messages refused by reason and the link's reconnects.
//! - `POST /api/acknowledge` `{"board": "b3", "alert": 17}` (without
//!   `alert`: every open alert of the board) and `POST /api/replay`
//!   `{"board": "b3", "game": 2, "after_seq": 10}` (`game`: the board's
//!   current one by default; `after_seq`: from the start), with
//!   `Authorization: Bearer <token>`; no token configured: control is
//!   disabled (401 saying how to enable it).
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use super::limits::Reason;
use super::registry::AckError;
use super::subscriber::ReplayAsker;
use super::{Notice, Shared};
use touchmove_wire::http::{self as control, BadBody};
use touchmove_wire::http::{asset, pgn_response};
use touchmove_wire::mqtt::{self as wire, BoardTopics, Channel, ReplayRequest};
use touchmove_wire::serve::StreamSlots;

/// How long `/events` gathers changes before it sends them.
const BATCH_WINDOW: Duration = Duration::from_millis(100);

const HALL_HTML: &str = include_str!("../../../web/dist/hall.html");
const BOARD_HTML: &str = include_str!("../../../web/dist/board.html");
const HALL_JS: &str = include_str!("../../../web/dist/hall.js");
const HALL_CSS: &str = include_str!("../../../web/dist/hall.css");

/// What the handlers share.
#[derive(Debug, Clone)]
pub struct HallState {
    pub shared: Arc<Shared>,
    pub publisher: ReplayAsker,
    /// The live streams' slots (`/events` clients).
    pub streams: StreamSlots,
}

/// The router of every endpoint.
pub fn router(state: HallState) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", HALL_HTML) }),
        )
        .route(
            "/hall.html",
            get(|| async { asset("text/html; charset=utf-8", HALL_HTML) }),
        )
        .route(
            "/hall.js",
            get(|| async { asset("text/javascript; charset=utf-8", HALL_JS) }),
        )
        .route(
            "/hall.css",
            get(|| async { asset("text/css; charset=utf-8", HALL_CSS) }),
        )
        .route("/events", get(events))
        .route("/boards", get(boards))
        .route("/board/{name}", get(board))
        .route("/round.pgn", get(round_pgn))
        .route("/health", get(health))
        .route("/api/{command}", post(api))
        .with_state(state)
}

fn json_response(value: Value) -> Response {
    ([(header::CACHE_CONTROL, "no-store")], axum::Json(value)).into_response()
}

fn error(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

async fn health(State(state): State<HallState>) -> Response {
    let now = wire::wall_ms_now();
    let (receiving, link) = {
        let link = state.shared.link();
        (
            link.receiving(now),
            json!({
                "up": link.is_up(),
                "reconnects": link.reconnects,
                "oversized_packets": link.oversized_packets,
                "session_resets": link.session_resets,
            }),
        )
    };
    let connected = state.shared.connected();
    let mut problems = Vec::new();
    if !connected {
        problems.push("not connected to the broker".to_owned());
    } else if !receiving {
        problems.push(format!(
            "the connection to the broker keeps failing (not yet up {} s in a row)",
            super::link::STABLE_MS / 1000
        ));
    }
    let registry = state.shared.registry();
    let (faults, _) = registry.faults();
    let rejected: Map<String, Value> = [
        Reason::Oversized,
        Reason::Undecodable,
        Reason::ImplausibleGame,
        Reason::GameTooLong,
    ]
    .into_iter()
    .map(|r| (r.name().to_owned(), json!(registry.rejected(r))))
    .collect();
    let ok = problems.is_empty();
    let body = json!({
        "status": if ok { "ok" } else { "degraded" },
        "problems": problems,
        "receiving": ok,
        "hall": registry.hall(),
        "broker": if connected { "connected" } else { "disconnected" },
        "boards": registry.board_ids().len(),
        "open_alerts": registry.open_count(),
        "bad_messages": faults,
        "rejected": rejected,
        "link": link,
        "delivery": registry.delivery(),
    });
    let code = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, json_response(body)).into_response()
}

fn hall_value(shared: &Shared) -> Value {
    let mut value = shared.registry().hall_json(wire::wall_ms_now());
    value["connected"] = json!(shared.connected());
    value
}

async fn boards(State(state): State<HallState>) -> Response {
    json_response(hall_value(&state.shared))
}

/// `/board/<id>` (the page), `/board/<id>.json`, `/board/<id>.pgn`.
async fn board(
    State(state): State<HallState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let registry = state.shared.registry();
    if registry.has_board(&name) {
        return asset("text/html; charset=utf-8", BOARD_HTML);
    }
    if let Some(id) = name.strip_suffix(".json")
        && let Some(value) = registry.board_json(id, wire::wall_ms_now())
    {
        return json_response(value);
    }
    if let Some(id) = name.strip_suffix(".pgn")
        && registry.has_board(id)
    {
        return match registry.board_pgn(id, state.shared.round.as_deref()) {
            Some(pgn) => pgn_response(pgn, &headers),
            None => error(
                StatusCode::NOT_FOUND,
                format!("board {id:?} has published no PGN yet"),
            ),
        };
    }
    let id = [".json", ".pgn"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(&name);
    error(
        StatusCode::NOT_FOUND,
        format!(
            "no board {id:?} in hall {:?} (boards appear once they publish; see GET /boards)",
            registry.hall()
        ),
    )
}

async fn round_pgn(State(state): State<HallState>, headers: HeaderMap) -> Response {
    let pgn = state
        .shared
        .registry()
        .round_pgn(state.shared.round.as_deref());
    pgn_response(pgn, &headers)
}

#[derive(Debug, serde::Deserialize)]
struct EventsQuery {
    board: Option<String>,
}

fn sse_event(name: &'static str, data: Value) -> Result<SseEvent, Infallible> {
    Ok(SseEvent::default().event(name).data(data.to_string()))
}

/// What one stream sends: the whole hall (or the board) first, then changes.
async fn stream(
    shared: Arc<Shared>,
    board: Option<String>,
    mut rx: broadcast::Receiver<Notice>,
    tx: mpsc::Sender<Result<SseEvent, Infallible>>,
) {
    let first = |shared: &Shared| match &board {
        None => sse_event("hall", hall_value(shared)),
        Some(id) => sse_event(
            "board",
            json!({
                "now_ms": wire::wall_ms_now(),
                "board": shared.registry().board_json(id, wire::wall_ms_now()),
            }),
        ),
    };
    if tx.send(first(&shared)).await.is_err() {
        return;
    }
    loop {
        let mut changed: Vec<String> = Vec::new();
        let mut meta = false;
        let mut resend = false;
        let mut take = |notice: Notice, changed: &mut Vec<String>| match notice {
            Notice::Board(id) => {
                if !changed.contains(&id) {
                    changed.push(id);
                }
                true
            }
            Notice::Hall => {
                meta = true;
                true
            }
            Notice::Close => false,
        };
        match rx.recv().await {
            Ok(n) => {
                if !take(n, &mut changed) {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => resend = true,
            Err(broadcast::error::RecvError::Closed) => return,
        }
        // A board's events come in bursts (a move is several): what
        // arrives within the window is sent once, per board, so that a
        // round's hundreds of events a second cost a summary per board
        // and window, not per event.
        tokio::time::sleep(BATCH_WINDOW).await;
        // Whatever else is already waiting goes in the same round.
        loop {
            match rx.try_recv() {
                Ok(n) => {
                    if !take(n, &mut changed) {
                        return;
                    }
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => resend = true,
                Err(_) => break,
            }
        }
        let mut out = Vec::new();
        if resend {
            out.push(first(&shared));
        } else {
            let now = wire::wall_ms_now();
            for id in &changed {
                match &board {
                    Some(mine) if mine != id => {}
                    Some(mine) => out.push(sse_event(
                        "board",
                        json!({ "now_ms": now, "board": shared.registry().board_json(mine, now) }),
                    )),
                    None => out.push(sse_event(
                        "board",
                        json!({ "now_ms": now, "board": shared.registry().summary_json(id, now) }),
                    )),
                }
            }
            if meta {
                let registry = shared.registry();
                let (count, faults) = registry.faults();
                out.push(sse_event(
                    "meta",
                    json!({
                        "now_ms": now,
                        "connected": shared.connected(),
                        "fault_count": count,
                        "faults": faults,
                    }),
                ));
            }
        }
        for event in out {
            if tx.send(event).await.is_err() {
                return;
            }
        }
    }
}

async fn events(State(state): State<HallState>, Query(query): Query<EventsQuery>) -> Response {
    let slot = match state.streams.take() {
        Ok(slot) => slot,
        Err(busy) => return busy,
    };
    let rx = state.shared.subscribe();
    let (tx, out) = mpsc::channel(64);
    let shared = Arc::clone(&state.shared);
    tokio::spawn(async move {
        // The slot is the stream's while it lives.
        stream(shared, query.board, rx, tx).await;
        drop(slot);
    });
    let retry = tokio_stream::once(Ok::<_, Infallible>(
        SseEvent::default()
            .retry(Duration::from_millis(1000))
            .comment("touchmove hall"),
    ));
    let mut response = Sse::new(tokio_stream::StreamExt::chain(
        retry,
        ReceiverStream::new(out),
    ))
    .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
    .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, "no-cache".parse().expect("a header"));
    response
}

/// Reads a control body: a JSON object with only `allowed` keys.
fn object(body: &[u8], allowed: &[&'static str]) -> Result<Map<String, Value>, BadBody> {
    let map = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            return Err(BadBody {
                field: None,
                message: "the body must be a JSON object".into(),
            });
        }
        Err(e) => {
            return Err(BadBody {
                field: None,
                message: format!("the body is not JSON: {e}"),
            });
        }
    };
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(BadBody {
            field: None,
            message: format!("unknown field {key:?} (known: {})", allowed.join(", ")),
        });
    }
    Ok(map)
}

fn board_field(map: &Map<String, Value>) -> Result<String, BadBody> {
    match map.get("board") {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(_) => Err(BadBody::field(
            "board",
            "`board` must be a board id (a string)",
        )),
        None => Err(BadBody::field("board", "`board` is required")),
    }
}

fn number_field(map: &Map<String, Value>, key: &'static str) -> Result<Option<u64>, BadBody> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| BadBody::field(key, format!("`{key}` must be a whole number"))),
    }
}

async fn api(
    State(state): State<HallState>,
    Path(command): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = control::bearer_rule(
        state.shared.token.as_deref(),
        headers.get(header::AUTHORIZATION).map(|v| v.as_bytes()),
        "Start the hall with --token-file FILE (a file whose first line is a secret)",
    ) {
        return error(StatusCode::UNAUTHORIZED, refusal);
    }
    let bad = |b: BadBody| (StatusCode::BAD_REQUEST, axum::Json(b.to_json())).into_response();
    match command.as_str() {
        "acknowledge" => {
            let parsed = object(&body, &["board", "alert"])
                .and_then(|map| Ok((board_field(&map)?, number_field(&map, "alert")?)));
            let (board, alert) = match parsed {
                Ok(p) => p,
                Err(b) => return bad(b),
            };
            let result = state.shared.registry().acknowledge(&board, alert);
            match result {
                Ok(count) => {
                    state.shared.notify(Notice::Board(board.clone()));
                    if let Err(e) = state.shared.save_acks() {
                        // Taken in memory; only a restart would forget it.
                        tracing::error!("acknowledgements not saved: {e:#}");
                        return error(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            format!(
                                "acknowledged, but not saved (a restart would forget it): {e:#}"
                            ),
                        );
                    }
                    json_response(json!({ "board": board, "acknowledged": count }))
                }
                Err(e @ (AckError::UnknownBoard(_) | AckError::UnknownAlert { .. })) => {
                    error(StatusCode::NOT_FOUND, e.to_string())
                }
            }
        }
        "replay" => {
            let parsed = object(&body, &["board", "game", "after_seq"]).and_then(|map| {
                Ok((
                    board_field(&map)?,
                    number_field(&map, "game")?,
                    number_field(&map, "after_seq")?,
                ))
            });
            let (board, game, after_seq) = match parsed {
                Ok(p) => p,
                Err(b) => return bad(b),
            };
            let (known, current, hall) = {
                let registry = state.shared.registry();
                (
                    registry.has_board(&board),
                    registry.current_game(&board),
                    registry.hall().to_owned(),
                )
            };
            if !known {
                return error(
                    StatusCode::NOT_FOUND,
                    format!("no board {board:?} in hall {hall:?}"),
                );
            }
            let Some(game) = game.or(current) else {
                return bad(BadBody::field(
                    "game",
                    format!("board {board:?} has no game yet: give `game`"),
                ));
            };
            let topic = match BoardTopics::new(&hall, &board) {
                Ok(t) => t.topic(Channel::Replay),
                Err(e) => return bad(BadBody::field("board", e)),
            };
            let request = ReplayRequest { game, after_seq };
            state.shared.registry().replay_asked(&board, game);
            match state.publisher.replay(&topic, request).await {
                Ok(()) => json_response(json!({ "topic": topic, "request": request })),
                Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
            }
        }
        other => error(
            StatusCode::NOT_FOUND,
            format!("no control command `{other}` (the hall has acknowledge and replay)"),
        ),
    }
}
