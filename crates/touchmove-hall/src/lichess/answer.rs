//! What Lichess answered a push, read into what the push loop does next.
//!
//! The answers, as Lichess documents and implements them (see the module
//! [`super`] for the sources):
//! - `200` `{"games": [{"tags": {..}, "moves": N} | {"tags": {..},
//!   "error": "..."}]}`: one entry per game pushed, in the order pushed; a
//!   game Lichess could not read or replay carries `error` (its tags, or
//!   none when the PGN itself did not parse). A round with a source URL
//!   answers a single entry with empty tags and the error "The relay has
//!   an upstream URL, and cannot be pushed to.".
//! - `400` `{"error": "..."}`: the PGN as a whole was refused; `413`: the
//!   body is over Lichess's limit (512 KiB of text).
//! - `401` `{"error": "No such token"}` (or another token fault), `403`
//!   `{"error": "Missing scope"}` or `{"error": "You can't do that"}` (the
//!   token's owner is not a contributor of the broadcast); `404`: no such
//!   round.
//! - `429`: a rate limit; Lichess's API documentation says to wait a
//!   minute before retrying. A `Retry-After` header, if one comes, says
//!   how long.
use std::collections::BTreeMap;

use serde::Deserialize;

/// What Lichess said about one game of a push.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GameResult {
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// The moves Lichess read (absent when the game was refused).
    #[serde(default)]
    pub moves: Option<u32>,
    /// Why the game was refused.
    #[serde(default)]
    pub error: Option<String>,
}

impl GameResult {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.get(name).map(String::as_str)
    }
}

#[derive(Debug, Deserialize)]
struct PushAnswer {
    games: Vec<GameResult>,
}

#[derive(Debug, Deserialize)]
struct ErrorAnswer {
    error: serde_json::Value,
}

/// What a push came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    /// Lichess took the push: one result per game.
    Accepted(Vec<GameResult>),
    /// Lichess refused this PGN as a whole (or the round takes no push):
    /// sending it again would not help; the next change is pushed.
    Rejected(String),
    /// Rate limited: wait this long before the next push to the round.
    RateLimited { wait_ms: u64, message: String },
    /// The token or the round was refused (401, 403, 404): no retry.
    Refused(String),
    /// A network error, a server error or an unreadable answer: retried
    /// with backoff.
    Failed(String),
}

/// How long to wait after a 429 that says nothing: a minute, as Lichess's
/// API documentation asks ("waiting one minute before retrying").
pub(crate) const DEFAULT_RATE_LIMIT_WAIT_MS: u64 = 60_000;
/// The longest wait a `Retry-After` is believed for.
pub(crate) const MAX_RATE_LIMIT_WAIT_MS: u64 = 3_600_000;

/// A `Retry-After` value (RFC 9110 §10.2.3: seconds, or an HTTP date) as
/// a wait in ms from `now_wall_ms`; `None` when it is neither.
pub(crate) fn retry_after_ms(value: &str, now_wall_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000).min(MAX_RATE_LIMIT_WAIT_MS));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let at_ms = at
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX);
    Some(
        at_ms
            .saturating_sub(now_wall_ms)
            .min(MAX_RATE_LIMIT_WAIT_MS),
    )
}

/// The `error` text of a JSON error answer, else the start of the body.
fn error_text(body: &str) -> String {
    match serde_json::from_str::<ErrorAnswer>(body) {
        Ok(ErrorAnswer {
            error: serde_json::Value::String(s),
        }) => s,
        Ok(ErrorAnswer { error }) => error.to_string(),
        Err(_) => {
            let body = body.trim();
            let cut: String = body.chars().take(200).collect();
            if cut.is_empty() {
                "no message".into()
            } else {
                cut
            }
        }
    }
}

/// The upstream-URL refusal comes as a 200 with one game entry without
/// tags: the round's own error, not a game's.
fn round_error(games: &[GameResult]) -> Option<&str> {
    match games {
        [only] if only.tags.is_empty() && only.moves.is_none() => {
            only.error.as_deref().filter(|e| e.contains("upstream"))
        }
        _ => None,
    }
}

/// Reads an HTTP answer to a push.
pub fn classify(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    now_wall_ms: u64,
) -> PushOutcome {
    match status {
        200..=299 => match serde_json::from_str::<PushAnswer>(body) {
            Ok(answer) => match round_error(&answer.games) {
                Some(e) => PushOutcome::Rejected(format!("Lichess refused the push: {e}")),
                None => PushOutcome::Accepted(answer.games),
            },
            Err(e) => PushOutcome::Failed(format!(
                "Lichess answered {status} with an unreadable body ({e})"
            )),
        },
        401 | 403 => PushOutcome::Refused(format!(
            "the token was refused: it needs study:write, and its owner must be a \
             contributor of the broadcast (Lichess: {status} {})",
            error_text(body)
        )),
        404 => PushOutcome::Refused(format!(
            "Lichess has no such broadcast round (404 {})",
            error_text(body)
        )),
        429 => {
            let wait_ms = retry_after
                .and_then(|v| retry_after_ms(v, now_wall_ms))
                .unwrap_or(DEFAULT_RATE_LIMIT_WAIT_MS);
            PushOutcome::RateLimited {
                wait_ms,
                message: format!(
                    "rate limited by Lichess (429 {}): waiting {} s",
                    error_text(body),
                    wait_ms.div_ceil(1000)
                ),
            }
        }
        413 => PushOutcome::Rejected(
            "Lichess refused the PGN as too large (413): fewer games per round \
             (--lichess-games-per-round) make it smaller"
                .into(),
        ),
        400..=499 => PushOutcome::Rejected(format!(
            "Lichess refused the PGN ({status} {})",
            error_text(body)
        )),
        _ => PushOutcome::Failed(format!("Lichess answered {status} {}", error_text(body))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_game_results_are_read_in_order() {
        let body = r#"{"games":[
            {"tags":{"White":"Ann","Black":"Bob","Board":"b1","Result":"*"},"moves":12},
            {"tags":{"White":"Cid","Black":"Dee"},"error":"Cannot play Qh8 at move 2, by white"}
        ]}"#;
        let PushOutcome::Accepted(games) = classify(200, None, body, 0) else {
            panic!("accepted");
        };
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, Some(12));
        assert_eq!(games[0].tag("Board"), Some("b1"));
        assert_eq!(games[0].error, None);
        assert_eq!(games[1].tag("White"), Some("Cid"));
        assert_eq!(games[1].moves, None);
        assert!(games[1].error.as_deref().unwrap().contains("Qh8"));
    }

    #[test]
    fn a_round_with_a_source_url_is_the_rounds_error() {
        let body = r#"{"games":[{"tags":{},"error":"The relay has an upstream URL, and cannot be pushed to."}]}"#;
        match classify(200, None, body, 0) {
            PushOutcome::Rejected(e) => assert!(e.contains("upstream URL"), "{e}"),
            other => panic!("{other:?}"),
        }
        // A game that did not parse also comes without tags, but is a game.
        let body = r#"{"games":[{"tags":{},"error":"Cannot parse moves"},{"tags":{"White":"A"},"moves":3}]}"#;
        assert!(matches!(classify(200, None, body, 0), PushOutcome::Accepted(g) if g.len() == 2));
    }

    #[test]
    fn token_and_round_refusals_stop_the_retries() {
        for (status, body) in [
            (401, r#"{"error":"No such token"}"#),
            (403, r#"{"error":"Missing scope"}"#),
        ] {
            match classify(status, None, body, 0) {
                PushOutcome::Refused(e) => {
                    assert!(e.starts_with("the token was refused: it needs study:write"));
                    assert!(e.contains(&status.to_string()), "{e}");
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(
            matches!(classify(404, None, r#"{"error":"Not found"}"#, 0), PushOutcome::Refused(e) if e.contains("no such broadcast round"))
        );
    }

    #[test]
    fn a_429_waits_what_it_says_or_a_minute() {
        let now = 1_700_000_000_000;
        match classify(429, Some("7"), r#"{"error":"Too many requests"}"#, now) {
            PushOutcome::RateLimited { wait_ms, message } => {
                assert_eq!(wait_ms, 7_000);
                assert!(message.contains("waiting 7 s"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            classify(429, None, "", now),
            PushOutcome::RateLimited {
                wait_ms: 60_000,
                ..
            }
        ));
        assert!(matches!(
            classify(429, Some("soon"), "", now),
            PushOutcome::RateLimited {
                wait_ms: 60_000,
                ..
            }
        ));
        // An HTTP date 90 s ahead.
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(now + 90_000);
        let date = httpdate::fmt_http_date(at);
        assert_eq!(retry_after_ms(&date, now), Some(90_000));
        // A date in the past: no wait; an absurd one: an hour at most.
        assert_eq!(
            retry_after_ms("Thu, 01 Jan 1970 00:00:10 GMT", now),
            Some(0)
        );
        assert_eq!(
            retry_after_ms("99999999", now),
            Some(MAX_RATE_LIMIT_WAIT_MS)
        );
    }

    #[test]
    fn server_errors_and_garbage_are_retried_bad_requests_are_not() {
        assert!(
            matches!(classify(502, None, "<html>", 0), PushOutcome::Failed(e) if e.contains("502"))
        );
        assert!(matches!(
            classify(200, None, "not json", 0),
            PushOutcome::Failed(_)
        ));
        assert!(
            matches!(classify(400, None, r#"{"error":"Cannot parse moves"}"#, 0), PushOutcome::Rejected(e) if e.contains("Cannot parse moves"))
        );
        assert!(
            matches!(classify(413, None, "", 0), PushOutcome::Rejected(e) if e.contains("413"))
        );
    }
}
