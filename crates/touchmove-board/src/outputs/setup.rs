//! The `/setup` page of `touchmove run --setup`: the board check of
//! [`touchmove_hw::bringup`] in a browser, for a Pi without a keyboard.
//!
//! - `GET /` and `GET /setup`: the page (`web/dist/setup.html`, with
//!   `setup.js` and `setup.css`).
//! - `GET /api/setup`: the check's state as JSON ([`SetupView`]).
//! - `GET /api/setup/events`: the same, as Server-Sent Events, one each
//!   time it changes (at most at the scan rate).
//! - `POST /api/setup/answer` with `{"answer": "next" | "skip"}`: the
//!   builder's answer; 409 with `{"error"}` when the step cannot be left
//!   yet (the message says why), 400 for a malformed body.
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::WatchStream;

use shakmaty::Bitboard;
use touchmove_hw::bringup::{Answer, Check};

const SETUP_HTML: &str = include_str!("../../../../web/dist/setup.html");
const SETUP_JS: &str = include_str!("../../../../web/dist/setup.js");
const SETUP_CSS: &str = include_str!("../../../../web/dist/setup.css");

/// An answer on its way to the check, with where its verdict goes.
pub(crate) type AnswerRequest = (Answer, oneshot::Sender<Result<(), String>>);

/// What the handlers share.
#[derive(Debug, Clone)]
pub struct SetupState {
    /// The latest view, as JSON text.
    pub view: watch::Receiver<Arc<String>>,
    pub answers: mpsc::UnboundedSender<AnswerRequest>,
}

/// What the page shows: the check's step, prompt and findings, and the
/// squares as the board reads them.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SetupView {
    pub profile: String,
    pub step: touchmove_hw::bringup::Step,
    pub title: &'static str,
    pub prompt: String,
    pub message: Option<String>,
    /// Squares reading a piece, and squares the walk has done.
    pub occupied: Vec<String>,
    pub walked: Vec<String>,
    pub findings: Vec<String>,
    /// Once done: whether the board is ready, the result's lines, and the
    /// corrected profile written.
    pub done: bool,
    pub ready: Option<bool>,
    pub result: Vec<String>,
    pub written: Option<String>,
}

fn names(squares: Bitboard) -> Vec<String> {
    squares.into_iter().map(|s| s.to_string()).collect()
}

impl SetupView {
    pub fn of(check: &Check, profile: &str, written: Option<&std::path::Path>) -> SetupView {
        let outcome = check.outcome();
        SetupView {
            profile: profile.to_owned(),
            step: check.step(),
            title: check.step().title(),
            prompt: check.prompt(),
            message: check.message().map(str::to_owned),
            occupied: names(check.live()),
            walked: names(check.walked()),
            findings: check.findings(),
            done: outcome.is_some(),
            ready: outcome.map(|o| o.faults.is_empty()),
            result: if outcome.is_some() {
                touchmove_hw::bringup::for_profile::summary(check, written)
            } else {
                Vec::new()
            },
            written: written.map(|p| p.display().to_string()),
        }
    }
}

/// The router of the setup endpoints.
pub fn router(state: SetupState) -> Router {
    Router::new()
        .route("/", get(|| async { page() }))
        .route("/setup", get(|| async { page() }))
        .route(
            "/setup.js",
            get(|| async { asset("text/javascript; charset=utf-8", SETUP_JS) }),
        )
        .route(
            "/setup.css",
            get(|| async { asset("text/css; charset=utf-8", SETUP_CSS) }),
        )
        .route("/api/setup", get(view))
        .route("/api/setup/events", get(events))
        .route("/api/setup/answer", post(answer))
        .route(
            "/health",
            get(|| async { axum::Json(json!({"status": "setup"})) }),
        )
        .with_state(state)
}

fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        SETUP_HTML,
    )
        .into_response()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn view(State(state): State<SetupState>) -> Response {
    let text = state.view.borrow().clone();
    (
        [(header::CONTENT_TYPE, "application/json")],
        text.as_str().to_owned(),
    )
        .into_response()
}

async fn events(State(state): State<SetupState>) -> impl IntoResponse {
    let stream = WatchStream::new(state.view.clone())
        .map(|text| Ok::<_, Infallible>(SseEvent::default().data(text.as_str())));
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

async fn answer(State(state): State<SetupState>, body: Bytes) -> Response {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        answer: Answer,
    }
    let body: Body = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({
                    "error": format!("the body must be {{\"answer\": \"next\" | \"skip\"}}: {e}"),
                    "field": "answer",
                })),
            )
                .into_response();
        }
    };
    let (tx, rx) = oneshot::channel();
    if state.answers.send((body.answer, tx)).is_err() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"error": "the check has stopped"})),
        )
            .into_response();
    }
    match rx.await {
        Ok(Ok(())) => axum::Json(json!({"ok": true})).into_response(),
        Ok(Err(message)) => {
            (StatusCode::CONFLICT, axum::Json(json!({"error": message}))).into_response()
        }
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"error": "the check has stopped"})),
        )
            .into_response(),
    }
}
