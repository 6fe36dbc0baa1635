//! The HTTP face (axum): the display pages, the event feed over SSE and
//! WebSocket, the live PGN, the state, health, and the control endpoints.
//!
//! - `GET /`, `/index.html`, `/arbiter.html`, `/app.js`, `/app.css`: the
//!   display, embedded from `web/dist/`.
//! - `GET /events`: Server-Sent Events, `id: <game>-<seq>`, `data:` the event
//!   JSON. With `Last-Event-ID` the stream first resends what followed that
//!   id in the current game (an id of an earlier game: the current game from
//!   its start; a bare `<seq>` is read in the current game); without it,
//!   only new events. A client that lags behind the broadcast is sent a
//!   `: lagged` comment and its stream ends, so that it reconnects with its
//!   last id and gets the gap from the in-memory log.
//! - `GET /ws[?last=<game>-<seq>]`: the same events, one JSON text message each.
//! - `GET /game.pgn`: the live PGN (`[%clk]`, the result when over), with
//!   an `ETag` (304 to a matching `If-None-Match`).
//! - `GET /state`, `GET /health` (`status`, `game`; `journal`: `null`, or
//!   whether it holds the record and how many events it holds back; `mqtt`:
//!   `null`, or the broker and whether the board is connected to it). 503
//!   with `status` `journal-failing` while the journal cannot commit.
//! - `POST /api/<command>`: control, with `Authorization: Bearer <token>`.
//!
//! Served by [`super::serve`]: header timeouts, a connection cap, and 503
//! for a live stream beyond [`AppState::streams`].
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio::sync::{broadcast, oneshot};
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::BroadcastStream;

use super::control::{self, Control, Request};
use super::feed::{Feed, Item, Message, Resume};
use super::journal::durability::Durability;
use super::mqtt::publisher::MqttHealth;
use touchmove_wire::http::{asset, pgn_response};
use touchmove_wire::serve::StreamSlots;

const INDEX_HTML: &str = include_str!("../../../../web/dist/index.html");
const ARBITER_HTML: &str = include_str!("../../../../web/dist/arbiter.html");
const APP_JS: &str = include_str!("../../../../web/dist/app.js");
const APP_CSS: &str = include_str!("../../../../web/dist/app.css");

/// What the handlers share.
#[derive(Debug, Clone)]
pub struct AppState {
    pub feed: Arc<Feed>,
    pub control: Control,
    /// The MQTT publisher's link, when `[mqtt]` is set.
    pub mqtt: Option<Arc<MqttHealth>>,
    /// Whether the journal holds the record, when one is kept.
    pub journal: Option<Arc<Durability>>,
    /// The live streams' slots (SSE and WebSocket clients).
    pub streams: StreamSlots,
}

/// The router of every endpoint.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(|| async { page(INDEX_HTML) }))
        .route("/index.html", get(|| async { page(INDEX_HTML) }))
        .route("/arbiter.html", get(|| async { page(ARBITER_HTML) }))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        )
        .route("/events", get(events))
        .route("/ws", get(websocket))
        .route("/state", get(state_json))
        .route("/game.pgn", get(game_pgn))
        .route("/health", get(health))
        .route("/api/{command}", post(api))
        .with_state(state)
}

fn page(html: &'static str) -> Response {
    asset("text/html; charset=utf-8", html)
}

/// `ok`, or 503 with `status` `journal-failing` while the journal cannot
/// commit (the record goes on live, held in memory: `journal.held`).
async fn health(State(state): State<AppState>) -> Response {
    let journal = state.journal.as_ref().map(|d| d.report());
    let durable = journal.as_ref().is_none_or(|j| j.durable);
    (
        if durable {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        },
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(json!({
            "status": if durable { "ok" } else { "journal-failing" },
            "game": state.feed.game(),
            "journal": journal,
            "mqtt": state.mqtt.as_ref().map(|m| json!({
                "broker": m.broker,
                "connected": m.connected(),
            })),
        })),
    )
        .into_response()
}

async fn state_json(State(state): State<AppState>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        state.feed.state_json(),
    )
        .into_response()
}

async fn game_pgn(State(state): State<AppState>, headers: HeaderMap) -> Response {
    pgn_response(state.feed.pgn(), &headers)
}

/// What a live stream yields: an event, or the end (lag or shutdown).
enum Next {
    Event(Arc<Item>),
    Lagged,
}

/// The backlog, then the broadcast until it lags or closes.
fn live(
    backlog: Vec<Arc<Item>>,
    rx: broadcast::Receiver<Message>,
) -> impl tokio_stream::Stream<Item = Next> + Send + 'static {
    let live = BroadcastStream::new(rx).map_while(|m| match m {
        Ok(Message::Event(item)) => Some(Next::Event(item)),
        Ok(Message::Close) => None,
        Err(_lagged) => Some(Next::Lagged),
    });
    let mut lagged = false;
    tokio_stream::iter(backlog.into_iter().map(Next::Event))
        .chain(live)
        .map_while(move |n| {
            // The lag notice goes out once; the stream ends after it.
            if lagged {
                return None;
            }
            lagged = matches!(n, Next::Lagged);
            Some(n)
        })
}

async fn events(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let slot = match state.streams.take() {
        Ok(slot) => slot,
        Err(busy) => return busy,
    };
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    let (backlog, rx) = state.feed.subscribe(Resume::parse(last));
    let retry = tokio_stream::once(Ok::<_, Infallible>(
        SseEvent::default()
            .retry(Duration::from_millis(500))
            .comment("touchmove"),
    ));
    let stream = retry.chain(live(backlog, rx).map(move |n| {
        // The slot is the stream's while it lives.
        let _slot = &slot;
        Ok(match n {
            Next::Event(item) => SseEvent::default().id(item.id()).data(&item.json),
            Next::Lagged => SseEvent::default().comment("lagged"),
        })
    }));
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, "no-cache".parse().expect("a header"));
    response
}

#[derive(Debug, serde::Deserialize)]
struct WsQuery {
    last: Option<String>,
}

async fn websocket(
    State(state): State<AppState>,
    Query(query): Query<WsQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let slot = match state.streams.take() {
        Ok(slot) => slot,
        Err(busy) => return busy,
    };
    let (backlog, rx) = state.feed.subscribe(Resume::parse(query.last.as_deref()));
    upgrade.on_upgrade(move |socket| async move {
        ws_session(socket, backlog, rx).await;
        drop(slot);
    })
}

async fn ws_session(
    mut socket: WebSocket,
    backlog: Vec<Arc<Item>>,
    rx: broadcast::Receiver<Message>,
) {
    let mut stream = std::pin::pin!(live(backlog, rx));
    while let Some(next) = stream.next().await {
        let Next::Event(item) = next else {
            // Lagged: close; the client reconnects with `?last=` its last id.
            break;
        };
        if socket
            .send(WsMessage::Text(item.json.clone().into()))
            .await
            .is_err()
        {
            return;
        }
    }
    let _ = socket.send(WsMessage::Close(None)).await;
}

fn error(status: StatusCode, body: serde_json::Value) -> Response {
    (status, axum::Json(body)).into_response()
}

async fn api(
    State(state): State<AppState>,
    Path(command): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = control::bearer_rule(
        state.control.token.as_deref(),
        headers.get(header::AUTHORIZATION).map(|v| v.as_bytes()),
        "Set `token-file` in the [http] section of the configuration (or pass --token-file) to a file holding a secret",
    ) {
        return error(StatusCode::UNAUTHORIZED, json!({ "error": refusal }));
    }
    let command = match control::parse(&command, &body) {
        None => {
            return error(
                StatusCode::NOT_FOUND,
                json!({ "error": format!("no control command `{command}`") }),
            );
        }
        Some(Err(bad)) => return error(StatusCode::BAD_REQUEST, bad.to_json()),
        Some(Ok(command)) => command,
    };
    let (reply, answer) = oneshot::channel();
    if state
        .control
        .inbox
        .send(Request { command, reply })
        .await
        .is_err()
    {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({ "error": "the game loop is not running" }),
        );
    }
    match answer.await {
        Ok(Ok(value)) => axum::Json(value).into_response(),
        Ok(Err(control::Refused::Conflict(m))) => {
            error(StatusCode::CONFLICT, json!({ "error": m }))
        }
        Ok(Err(control::Refused::Invalid(bad))) => error(StatusCode::BAD_REQUEST, bad.to_json()),
        Ok(Err(control::Refused::Unsupported(m))) => {
            error(StatusCode::NOT_IMPLEMENTED, json!({ "error": m }))
        }
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({ "error": "the game loop stopped" }),
        ),
    }
}
