//! What the board's and the hall's HTTP servers answer alike: embedded
//! pages, PGN with an `ETag`, bodies that cannot be read, and the bearer
//! token of control endpoints.
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// An embedded file of the web pages, revalidated on each load.
pub fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A PGN with its `ETag`: 304 to a client whose `If-None-Match` names it,
/// so a broadcast polling every second costs a header, not the game.
pub fn pgn_response(pgn: String, request: &HeaderMap) -> Response {
    use std::hash::{DefaultHasher, Hash as _, Hasher as _};
    let mut hasher = DefaultHasher::new();
    pgn.hash(&mut hasher);
    let etag = format!("\"{:016x}\"", hasher.finish());
    let headers = [
        (
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8".to_owned(),
        ),
        (header::CACHE_CONTROL, "no-cache".to_owned()),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".to_owned()),
        (header::ETAG, etag.clone()),
    ];
    let matches = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    if matches {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, pgn).into_response()
}

/// A body that cannot be read: `field` is the key at fault (`None`: the body itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadBody {
    pub field: Option<&'static str>,
    pub message: String,
}

impl BadBody {
    pub fn field(field: &'static str, message: impl Into<String>) -> BadBody {
        BadBody {
            field: Some(field),
            message: message.into(),
        }
    }
    /// `{"error": ..., "field": ...}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({ "error": self.message, "field": self.field })
    }
}

/// Compares two byte strings in time independent of where they differ
/// (the length is not secret: tokens have a fixed length).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Whether an `Authorization` header carries `Bearer <token>`.
pub fn authorised(header: Option<&[u8]>, token: &str) -> bool {
    let Some(value) = header else {
        return false;
    };
    let Some(given) = value.strip_prefix(b"Bearer ") else {
        return false;
    };
    constant_time_eq(given.trim_ascii(), token.as_bytes())
}

/// The bearer-token rule of every control endpoint, the daemon's and the
/// hall's: without a configured token control is disabled (never open);
/// with one, the `Authorization` header must carry it. `Err`: the sentence
/// of the 401 answer; `enable` says how to configure a token.
pub fn bearer_rule(token: Option<&str>, header: Option<&[u8]>, enable: &str) -> Result<(), String> {
    let Some(token) = token else {
        return Err(format!(
            "control is disabled: no token is configured. {enable}, and send it as `Authorization: Bearer <token>`."
        ));
    };
    if !authorised(header, token) {
        return Err("missing or wrong bearer token (send `Authorization: Bearer <token>`)".into());
    }
    Ok(())
}
