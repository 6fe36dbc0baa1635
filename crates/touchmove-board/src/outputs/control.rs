//! Control commands (`POST /api/...`): what they carry, how their JSON
//! bodies are read (an error names the field), and the bearer-token check.
use serde_json::{Map, Value};
use shakmaty::{Color, Role};

use tokio::sync::{mpsc, oneshot};
use touchmove_core::game::TagValue;
use touchmove_core::game::echo::quoted;
pub use touchmove_wire::http::{BadBody, authorised, bearer_rule, constant_time_eq};

/// A new game's setup (`/api/new-game`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewGame {
    /// FEN or X-FEN of the start; `None` with no `chess960` is the standard start.
    pub fen: Option<String>,
    /// A Chess960 start position number (0-959).
    pub chess960: Option<u32>,
    pub white: Option<String>,
    pub black: Option<String>,
    /// As `--time-control` reads it, e.g. `90+30`.
    pub time_control: Option<String>,
}

/// What kind of draw (`/api/draw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawKind {
    /// 5.2c (2005) / 5.2.3 (2023).
    Agree,
    /// 9.2 / 9.3; the reason, when given, names the claim.
    Claim(Option<touchmove_core::game::DrawClaim>),
}

/// One control command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlCommand {
    NewGame(NewGame),
    Promote(Role),
    Adjust,
    Resign(Color),
    Draw {
        kind: DrawKind,
        side: Color,
    },
    /// The arbiter sets both clocks (Article 6.14), with a reason.
    SetClocks {
        white_ms: u64,
        black_ms: u64,
        reason: String,
    },
    /// The arbiter reinstates the position after `ply` (Article 7).
    Reinstate {
        ply: usize,
        irregularity: touchmove_core::inference::arbiter::Irregularity,
        note: Option<String>,
    },
    /// The arbiter accepts the board as reached by moves the sensors did
    /// not read.
    AcceptPosition {
        accept: Accept,
        note: Option<String>,
    },
}

/// How the arbiter names the position he accepts (`/api/accept-position`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accept {
    /// The moves, in UCI.
    Moves(Vec<String>),
    /// One of the candidate lines the last `displaced` event listed (0 = the first).
    Candidate(usize),
    /// The position; the short run of legal plies leading there is found.
    Fen(String),
}

/// Why a command was refused by the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The command does not apply now (HTTP 409).
    #[error("{0}")]
    Conflict(String),
    /// The command is not available here (HTTP 501).
    #[error("{0}")]
    Unsupported(String),
    /// A value in the body is not acceptable (HTTP 400).
    #[error("{}", .0.message)]
    Invalid(BadBody),
}

/// A command with the way back for its answer.
#[derive(Debug)]
pub struct Request {
    pub command: ControlCommand,
    pub reply: oneshot::Sender<Result<Value, Refused>>,
}

/// Where commands go: the scan loop's inbox, and the token they need.
#[derive(Debug, Clone)]
pub struct Control {
    pub token: Option<String>,
    pub inbox: mpsc::Sender<Request>,
}

fn object(body: &[u8]) -> Result<Map<String, Value>, BadBody> {
    let text = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(BadBody {
            field: None,
            message: "the body must be a JSON object".into(),
        }),
        Err(e) => Err(BadBody {
            field: None,
            message: format!("the body is not JSON: {e}"),
        }),
    }
}

fn check_keys(map: &Map<String, Value>, allowed: &[&'static str]) -> Result<(), BadBody> {
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(BadBody {
                field: None,
                message: format!(
                    "unknown field {} (known: {})",
                    quoted(key),
                    if allowed.is_empty() {
                        "none".to_owned()
                    } else {
                        allowed.join(", ")
                    }
                ),
            });
        }
    }
    Ok(())
}

fn opt_str(map: &Map<String, Value>, key: &'static str) -> Result<Option<String>, BadBody> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(BadBody::field(key, format!("`{key}` must be a string"))),
    }
}

/// A PGN tag value (a player's name): the one rule of
/// [`touchmove_core::game::tag_value`], as the configuration's `[game]` applies it.
fn opt_tag(map: &Map<String, Value>, key: &'static str) -> Result<Option<String>, BadBody> {
    opt_str(map, key)?
        .map(|v| {
            TagValue::new(v)
                .map(TagValue::into_string)
                .map_err(|e| BadBody::field(key, format!("`{key}`: {e}")))
        })
        .transpose()
}

fn req_str(map: &Map<String, Value>, key: &'static str) -> Result<String, BadBody> {
    opt_str(map, key)?.ok_or_else(|| BadBody::field(key, format!("`{key}` is required")))
}

fn side(map: &Map<String, Value>) -> Result<Color, BadBody> {
    match req_str(map, "side")?.as_str() {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        other => Err(BadBody::field(
            "side",
            format!(
                "`side` must be \"white\" or \"black\", not {}",
                quoted(other)
            ),
        )),
    }
}

/// Reads the body of `POST /api/<name>`; `None` when `name` is no command
/// this module reads.
pub fn parse(name: &str, body: &[u8]) -> Option<Result<ControlCommand, BadBody>> {
    let read = |allowed: &[&'static str]| {
        let map = object(body)?;
        check_keys(&map, allowed)?;
        Ok(map)
    };
    Some(match name {
        "new-game" => read(&["fen", "chess960", "white", "black", "time_control"]).and_then(
            |map: Map<String, Value>| {
                let chess960 = match map.get("chess960") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_u64().filter(|n| *n < 960).ok_or_else(|| {
                        BadBody::field("chess960", "`chess960` must be a number 0-959")
                    })? as u32),
                };
                let fen = opt_str(&map, "fen")?;
                if fen.is_some() && chess960.is_some() {
                    return Err(BadBody::field(
                        "chess960",
                        "give `fen` or `chess960`, not both",
                    ));
                }
                Ok(ControlCommand::NewGame(NewGame {
                    fen,
                    chess960,
                    white: opt_tag(&map, "white")?,
                    black: opt_tag(&map, "black")?,
                    time_control: opt_str(&map, "time_control")?,
                }))
            },
        ),
        "promote" => read(&["piece"]).and_then(|map| {
            let role = match req_str(&map, "piece")?.to_ascii_lowercase().as_str() {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                "n" => Role::Knight,
                other => {
                    return Err(BadBody::field(
                        "piece",
                        format!("`piece` must be one of q, r, b, n, not {}", quoted(other)),
                    ));
                }
            };
            Ok(ControlCommand::Promote(role))
        }),
        "adjust" => read(&[]).map(|_| ControlCommand::Adjust),
        "resign" => read(&["side"]).and_then(|map| Ok(ControlCommand::Resign(side(&map)?))),
        "clock" => read(&["white_ms", "black_ms", "reason"]).and_then(|map| {
            let ms = |key: &'static str| {
                map.get(key).and_then(Value::as_u64).ok_or_else(|| {
                    BadBody::field(
                        key,
                        format!("`{key}` must be a whole number of milliseconds"),
                    )
                })
            };
            Ok(ControlCommand::SetClocks {
                white_ms: ms("white_ms")?,
                black_ms: ms("black_ms")?,
                reason: req_str(&map, "reason")?,
            })
        }),
        "draw" => read(&["kind", "side", "reason"]).and_then(|map| {
            let side = side(&map)?;
            let reason = opt_str(&map, "reason")?;
            let kind = match req_str(&map, "kind")?.as_str() {
                "agree" => DrawKind::Agree,
                "claim" => DrawKind::Claim(match reason.as_deref() {
                    None => None,
                    Some("threefold") => Some(touchmove_core::game::DrawClaim::Threefold),
                    Some("fifty_moves") => Some(touchmove_core::game::DrawClaim::FiftyMoves),
                    Some(other) => {
                        return Err(BadBody::field(
                            "reason",
                            format!(
                                "`reason` must be \"threefold\" or \"fifty_moves\", not {}",
                                quoted(other)
                            ),
                        ));
                    }
                }),
                other => {
                    return Err(BadBody::field(
                        "kind",
                        format!(
                            "`kind` must be \"agree\" or \"claim\", not {}",
                            quoted(other)
                        ),
                    ));
                }
            };
            Ok(ControlCommand::Draw { kind, side })
        }),
        "reinstate" => read(&["ply", "irregularity", "note"]).and_then(|map| {
            use touchmove_core::inference::arbiter::Irregularity;
            let ply = map.get("ply").and_then(Value::as_u64).ok_or_else(|| {
                BadBody::field(
                    "ply",
                    "`ply` must be the last ply that remains (a whole number; 0 = the start)",
                )
            })? as usize;
            let irregularity = match req_str(&map, "irregularity")?.as_str() {
                "illegal_move" => Irregularity::IllegalMove,
                "displaced" => Irregularity::Displaced,
                other => {
                    return Err(BadBody::field(
                        "irregularity",
                        format!(
                            "`irregularity` must be \"illegal_move\" or \"displaced\", not {}",
                            quoted(other)
                        ),
                    ));
                }
            };
            Ok(ControlCommand::Reinstate {
                ply,
                irregularity,
                note: opt_str(&map, "note")?,
            })
        }),
        "accept-position" => read(&["moves", "candidate", "fen", "note"]).and_then(|map| {
            let given: Vec<&str> = ["moves", "candidate", "fen"]
                .into_iter()
                .filter(|k| map.get(*k).is_some_and(|v| !v.is_null()))
                .collect();
            let accept = match given.as_slice() {
                ["moves"] => {
                    let moves = match &map["moves"] {
                        Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                        Value::Array(items) => items
                            .iter()
                            .map(|v| v.as_str().map(str::to_owned))
                            .collect::<Option<Vec<String>>>()
                            .ok_or_else(|| {
                                BadBody::field("moves", "`moves` must be UCI moves as strings")
                            })?,
                        _ => {
                            return Err(BadBody::field(
                                "moves",
                                "`moves` must be a list of UCI moves or one string of them",
                            ));
                        }
                    };
                    Accept::Moves(moves)
                }
                ["candidate"] => Accept::Candidate(map["candidate"].as_u64().ok_or_else(|| {
                    BadBody::field(
                        "candidate",
                        "`candidate` must be the index of a listed candidate (0 = the first)",
                    )
                })? as usize),
                ["fen"] => Accept::Fen(req_str(&map, "fen")?),
                _ => {
                    return Err(BadBody {
                        field: None,
                        message: "give exactly one of `moves`, `candidate` or `fen`".into(),
                    });
                }
            };
            Ok(ControlCommand::AcceptPosition {
                accept,
                note: opt_str(&map, "note")?,
            })
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(authorised(Some(b"Bearer s3cret"), "s3cret"));
        assert!(!authorised(Some(b"Bearer s3cre"), "s3cret"));
        assert!(!authorised(Some(b"Basic s3cret"), "s3cret"));
        assert!(!authorised(None, "s3cret"));
    }

    #[test]
    fn bodies_name_the_field_at_fault() {
        let bad = |name, body: &str| parse(name, body.as_bytes()).unwrap().unwrap_err();
        assert_eq!(bad("promote", r#"{"piece":"k"}"#).field, Some("piece"));
        assert_eq!(bad("promote", "{}").field, Some("piece"));
        assert_eq!(bad("resign", r#"{"side":"red"}"#).field, Some("side"));
        assert_eq!(bad("resign", r#"{"side":1}"#).field, Some("side"));
        assert_eq!(
            bad("draw", r#"{"side":"white","kind":"x"}"#).field,
            Some("kind")
        );
        assert_eq!(
            bad(
                "new-game",
                r#"{"fen":"8/8/8/8/8/8/8/8 w - - 0 1","chess960":3}"#
            )
            .field,
            Some("chess960")
        );
        assert!(bad("adjust", "[").message.contains("not JSON"));
        assert!(
            bad("adjust", r#"{"x":1}"#)
                .message
                .contains("unknown field")
        );
        assert!(parse("nope", b"{}").is_none());
        assert_eq!(
            bad("reinstate", r#"{"irregularity":"x","ply":1}"#).field,
            Some("irregularity")
        );
        assert_eq!(
            bad("reinstate", r#"{"irregularity":"displaced"}"#).field,
            Some("ply")
        );
        assert_eq!(
            bad("accept-position", r#"{"moves":[1]}"#).field,
            Some("moves")
        );
        assert!(
            bad("accept-position", r#"{"moves":"e2e4","fen":"x"}"#)
                .message
                .contains("exactly one")
        );
        assert_eq!(
            parse("accept-position", br#"{"moves":"e2e4 e7e5"}"#).unwrap(),
            Ok(ControlCommand::AcceptPosition {
                accept: Accept::Moves(vec!["e2e4".into(), "e7e5".into()]),
                note: None
            })
        );
        assert_eq!(
            parse("resign", br#"{"side":"black"}"#).unwrap(),
            Ok(ControlCommand::Resign(Color::Black))
        );
        assert_eq!(parse("adjust", b"").unwrap(), Ok(ControlCommand::Adjust));
        assert_eq!(
            parse(
                "draw",
                br#"{"side":"white","kind":"claim","reason":"threefold"}"#
            )
            .unwrap(),
            Ok(ControlCommand::Draw {
                kind: DrawKind::Claim(Some(touchmove_core::game::DrawClaim::Threefold)),
                side: Color::White
            })
        );
    }
}
