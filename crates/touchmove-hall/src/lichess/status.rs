//! `GET /push.json`: the push to Lichess as the dashboard shows it.
//!
//! `{"enabled": false}` when the hall pushes nowhere, else
//! `{"enabled": true, "rounds": [{"round", "boards", "last_success_wall_ms",
//! "last_attempt_wall_ms", "last_error", "retry_at_wall_ms", "pushes",
//! "games": [{"board", "white", "black", "moves", "error"}]}], "left_out":
//! [...]}` (times: ms since the epoch, or `null`).
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

use super::schedule::{GameStatus, RoundPush};

/// One round in `/push.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundStatus {
    pub round: String,
    pub boards: Vec<String>,
    pub last_success_wall_ms: Option<u64>,
    pub last_attempt_wall_ms: Option<u64>,
    pub last_error: Option<String>,
    pub retry_at_wall_ms: Option<u64>,
    pub pushes: u64,
    pub games: Vec<GameStatus>,
}

impl RoundStatus {
    /// A round's state as shown, the clocks' pair being read now.
    pub fn of(round: &RoundPush, mono_now: u64, wall_now: u64) -> RoundStatus {
        RoundStatus {
            round: round.round.clone(),
            boards: round.boards.clone(),
            last_success_wall_ms: round.last_success_wall_ms,
            last_attempt_wall_ms: round.last_attempt_wall_ms,
            last_error: round.last_error.clone(),
            retry_at_wall_ms: round.retry_at_wall_ms(mono_now, wall_now),
            pushes: round.pushes,
            games: round.games.clone(),
        }
    }
}

/// The whole of `/push.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushStatus {
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Vec<RoundStatus>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<Vec<String>>,
}

impl PushStatus {
    pub fn disabled() -> PushStatus {
        PushStatus {
            enabled: false,
            rounds: None,
            left_out: None,
        }
    }

    pub fn enabled(rounds: Vec<RoundStatus>, left_out: Vec<String>) -> PushStatus {
        PushStatus {
            enabled: true,
            rounds: Some(rounds),
            left_out: Some(left_out),
        }
    }
}

/// The status the push loop writes and the HTTP server reads.
pub type SharedStatus = Arc<Mutex<PushStatus>>;

/// The router of `GET /push.json`, merged into the hall's.
pub fn router(status: SharedStatus) -> Router {
    Router::new()
        .route("/push.json", get(push_json))
        .with_state(status)
}

async fn push_json(State(status): State<SharedStatus>) -> Response {
    let status = status.lock().unwrap_or_else(|p| p.into_inner()).clone();
    ([(header::CACHE_CONTROL, "no-store")], axum::Json(status)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shape_the_dashboard_reads() {
        assert_eq!(
            serde_json::to_value(PushStatus::disabled()).unwrap(),
            json!({"enabled": false})
        );
        let mut round = RoundPush::new("abcdEFGH");
        round.set_boards(vec!["b1".into(), "b2".into()]);
        round.last_attempt_wall_ms = Some(1_000);
        let status =
            PushStatus::enabled(vec![RoundStatus::of(&round, 0, 5_000)], vec!["b3".into()]);
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!({
                "enabled": true,
                "rounds": [{
                    "round": "abcdEFGH",
                    "boards": ["b1", "b2"],
                    "last_success_wall_ms": null,
                    "last_attempt_wall_ms": 1000,
                    "last_error": null,
                    "retry_at_wall_ms": null,
                    "pushes": 0,
                    "games": [],
                }],
                "left_out": ["b3"],
            })
        );
    }
}
