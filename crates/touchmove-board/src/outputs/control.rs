//! Control commands (`POST /api/...`): what they carry, how their JSON
//! bodies are read (an error names the field), and the bearer-token check.
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use shakmaty::{Color, Role};

use tokio::sync::{mpsc, oneshot};
use touchmove_core::game::echo::quoted;
use touchmove_core::game::{DrawClaim, TagValue};
use touchmove_core::inference::arbiter::Irregularity;
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

/// The JSON object of a body, read into `T` by serde (unknown fields
/// refused); an error names the field at fault, found by
/// serde_path_to_error.
fn read<T: DeserializeOwned>(body: &[u8], fields: &[&'static str]) -> Result<T, BadBody> {
    let text = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    let value: Value = serde_json::from_slice(text).map_err(|e| BadBody {
        field: None,
        message: format!("the body is not JSON: {e}"),
    })?;
    if !value.is_object() {
        return Err(BadBody {
            field: None,
            message: "the body must be a JSON object".into(),
        });
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        // A missing field is reported at the object itself.
        let named = |f: &&str| {
            path == *f
                || path.starts_with(&format!("{f}["))
                || message.starts_with(&format!("missing field `{f}`"))
        };
        let field = fields.iter().copied().find(named);
        BadBody {
            field,
            message: match field {
                Some(f) if !message.contains(&format!("`{f}`")) => format!("`{f}`: {message}"),
                _ => message,
            },
        }
    })
}

/// A PGN tag value (a player's name): the one rule of
/// [`touchmove_core::game::tag_value`], as the configuration's `[game]` applies it.
fn tag(value: Option<String>, key: &'static str) -> Result<Option<String>, BadBody> {
    value
        .map(|v| {
            TagValue::new(v)
                .map(TagValue::into_string)
                .map_err(|e| BadBody::field(key, format!("`{key}`: {e}")))
        })
        .transpose()
}

/// A side as bodies name it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SideName {
    White,
    Black,
}

impl From<SideName> for Color {
    fn from(side: SideName) -> Color {
        match side {
            SideName::White => Color::White,
            SideName::Black => Color::Black,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGameBody {
    fen: Option<String>,
    chess960: Option<u32>,
    white: Option<String>,
    black: Option<String>,
    time_control: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PromoteBody {
    piece: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoBody {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResignBody {
    side: SideName,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockBody {
    white_ms: u64,
    black_ms: u64,
    reason: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum DrawKindName {
    Agree,
    Claim,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawBody {
    kind: DrawKindName,
    side: SideName,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReinstateBody {
    /// The last ply that remains (0 = the start).
    ply: usize,
    irregularity: IrregularityName,
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum IrregularityName {
    IllegalMove,
    Displaced,
}

/// UCI moves: a list, or one string of them.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a list of UCI moves, or one string of them")]
enum MovesBody {
    Text(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptBody {
    moves: Option<MovesBody>,
    candidate: Option<usize>,
    fen: Option<String>,
    note: Option<String>,
}

/// Reads the body of `POST /api/<name>`; `None` when `name` is no command
/// this module reads.
pub fn parse(name: &str, body: &[u8]) -> Option<Result<ControlCommand, BadBody>> {
    Some(match name {
        "new-game" => new_game(body),
        "promote" => promote(body),
        "adjust" => read::<NoBody>(body, &[]).map(|_| ControlCommand::Adjust),
        "resign" => {
            read::<ResignBody>(body, &["side"]).map(|b| ControlCommand::Resign(b.side.into()))
        }
        "clock" => read::<ClockBody>(body, &["white_ms", "black_ms", "reason"]).map(|b| {
            ControlCommand::SetClocks {
                white_ms: b.white_ms,
                black_ms: b.black_ms,
                reason: b.reason,
            }
        }),
        "draw" => draw(body),
        "reinstate" => read::<ReinstateBody>(body, &["ply", "irregularity", "note"]).map(|b| {
            ControlCommand::Reinstate {
                ply: b.ply,
                irregularity: match b.irregularity {
                    IrregularityName::IllegalMove => Irregularity::IllegalMove,
                    IrregularityName::Displaced => Irregularity::Displaced,
                },
                note: b.note,
            }
        }),
        "accept-position" => accept_position(body),
        _ => return None,
    })
}

fn new_game(body: &[u8]) -> Result<ControlCommand, BadBody> {
    let b: NewGameBody = read(body, &["fen", "chess960", "white", "black", "time_control"])?;
    if b.chess960.is_some_and(|n| n >= 960) {
        return Err(BadBody::field(
            "chess960",
            "`chess960` must be a number 0-959",
        ));
    }
    if b.fen.is_some() && b.chess960.is_some() {
        return Err(BadBody::field(
            "chess960",
            "give `fen` or `chess960`, not both",
        ));
    }
    Ok(ControlCommand::NewGame(NewGame {
        fen: b.fen,
        chess960: b.chess960,
        white: tag(b.white, "white")?,
        black: tag(b.black, "black")?,
        time_control: b.time_control,
    }))
}

fn promote(body: &[u8]) -> Result<ControlCommand, BadBody> {
    let b: PromoteBody = read(body, &["piece"])?;
    let role = match b.piece.to_ascii_lowercase().as_str() {
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
}

fn draw(body: &[u8]) -> Result<ControlCommand, BadBody> {
    let b: DrawBody = read(body, &["kind", "side", "reason"])?;
    let kind = match b.kind {
        DrawKindName::Agree => DrawKind::Agree,
        DrawKindName::Claim => DrawKind::Claim(match b.reason.as_deref() {
            None => None,
            Some("threefold") => Some(DrawClaim::Threefold),
            Some("fifty_moves") => Some(DrawClaim::FiftyMoves),
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
    };
    Ok(ControlCommand::Draw {
        kind,
        side: b.side.into(),
    })
}

fn accept_position(body: &[u8]) -> Result<ControlCommand, BadBody> {
    let b: AcceptBody = read(body, &["moves", "candidate", "fen", "note"])?;
    let accept = match (b.moves, b.candidate, b.fen) {
        (Some(MovesBody::Text(s)), None, None) => {
            Accept::Moves(s.split_whitespace().map(str::to_owned).collect())
        }
        (Some(MovesBody::List(moves)), None, None) => Accept::Moves(moves),
        (None, Some(candidate), None) => Accept::Candidate(candidate),
        (None, None, Some(fen)) => Accept::Fen(fen),
        _ => {
            return Err(BadBody {
                field: None,
                message: "give exactly one of `moves`, `candidate` or `fen`".into(),
            });
        }
    };
    Ok(ControlCommand::AcceptPosition {
        accept,
        note: b.note,
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
        let moves = bad("accept-position", r#"{"moves":[1]}"#);
        assert_eq!(moves.field, Some("moves"));
        assert!(moves.message.contains("UCI moves"), "{}", moves.message);
        let side = bad("resign", r#"{"side":"red"}"#);
        assert!(
            side.message.contains("`white` or `black`"),
            "{}",
            side.message
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
