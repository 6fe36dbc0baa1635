//! The one enum that leaves the core, serialised exactly as
//! `../shared/spec/events.md` says: `{"type": ..., "t_ms": ..., "seq": ..., fields}`.
//!
//! Names and fields of the contract are stable; fields marked "extension"
//! are additions the contract allows.
use serde::{Deserialize, Serialize};
use shakmaty::{Color, Square};

use crate::Millis;

/// An event with its time and place in the game's sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Trace time in `replay`; milliseconds since the game started when live.
    pub t_ms: Millis,
    /// 0, 1, 2, ... in emission order within one game.
    pub seq: u64,
    pub kind: EventKind,
}

/// A side, as the contract writes it: `"white"` / `"black"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// Every event the core concludes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A game begins (start position set up and verified).
    GameStarted {
        fen: String,
        /// Extension: the rules profile.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profile: Option<String>,
    },
    /// A piece left its square (the sensor board's touch, F.2.2 of 2005).
    PieceLifted {
        #[serde(with = "square_name")]
        square: Square,
        /// FEN letter of the piece that stood there, if known.
        piece: Option<char>,
    },
    /// A piece was put down on a square and stayed.
    PiecePlaced {
        #[serde(with = "square_name")]
        square: Square,
    },
    /// A move has been made (Article 4.6).
    Move {
        ply: usize,
        side: Side,
        san: String,
        uci: String,
        fen: String,
        /// Extension: the sensors did not see this move made; the board
        /// showed its position later and legal play explains it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        inferred: bool,
    },
    /// The mover pressed the clock after a legal move (6.7), or the move
    /// ended the game.
    MoveCompleted { ply: usize },
    /// A piece released where no legal move explains the board (warning),
    /// or the clock pressed on such a board (`completed`; 7.4 / 7.5).
    IllegalMove {
        side: Side,
        completed: bool,
        #[serde(with = "opt_square_name")]
        from: Option<Square>,
        #[serde(with = "opt_square_name")]
        to: Option<Square>,
        /// Illegal moves completed by that side so far.
        count: u32,
        /// Extension: the article applied (`"7.4"` in 2005, `"7.5"` in 2023).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        article: Option<String>,
    },
    /// A touch-move obligation was broken (4.3, 4.4, 4.6/4.7).
    TouchMove {
        side: Side,
        article: String,
        #[serde(with = "square_name")]
        square: Square,
    },
    /// The board differs from the game position in a way no move in
    /// progress explains (7.3 / 7.5 of 2005; 7.4 of 2023).
    Displaced {
        #[serde(with = "square_names")]
        squares: Vec<Square>,
        expected_fen: String,
        /// Extension: candidate continuations (UCI, space-separated plies)
        /// when missed moves could not be told apart.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        candidates: Vec<String>,
    },
    /// The board matches the game position again.
    Restored { fen: String },
    /// Extension: moves the sensors did not read that several lines of
    /// legal plies explain; each line (UCI, space-separated) is still open
    /// and the hands' later moves will tell which. An empty list: the
    /// question is closed (the `move` events of the line that remained
    /// follow, or the board was explained otherwise).
    Candidates { lines: Vec<String> },
    /// Moves were taken back.
    Takeback { ply: usize, fen: String },
    /// A pawn stands on the last rank and the new piece is not yet known.
    PromotionPending {
        #[serde(with = "square_name")]
        square: Square,
    },
    /// The clock changed (start, press, flag, pause, adjustment).
    Clock {
        white_ms: Millis,
        black_ms: Millis,
        running: Option<Side>,
        /// Extension: what changed it (`start`, `press`, `flag`, `pause`,
        /// `resume`, `penalty`, `adjust`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A draw can now be claimed (9.2, 9.3).
    DrawClaimable { reason: String },
    /// The game ended.
    GameOver { result: String, reason: String },
    /// A square looks broken.
    SensorFault {
        #[serde(with = "square_name")]
        square: Square,
        kind: String,
    },
    /// Extension: the arbiter ruled on the position (Article 7). The
    /// events that carry the ruling out (`takeback`, `move`) follow it.
    ArbiterDecision {
        decision: Decision,
        /// The Article applied (`"7.4a"`, `"7.5"` of 2005; `"7.5.1"`,
        /// `"7.4.1"` of 2023), when one is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        article: Option<String>,
        /// `reinstate`: the last ply that remains (0 = none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<usize>,
        /// `accept_moves`: the plies accepted, in UCI.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        moves: Vec<String>,
        /// The arbiter's words, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Extension: the journal cannot commit (a full disk, an unwritable
    /// file). The record goes on live, held in memory and not durable,
    /// until the journal takes writes again (`storage_restored`).
    StorageFailed {
        /// What the journal answered.
        error: String,
        /// The first `seq` of this game not committed (`None`: the events
        /// held belong to no game yet).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_seq: Option<u64>,
    },
    /// Extension: the journal took every held event again, in order; the
    /// record is durable once more.
    StorageRestored {
        /// How many held events were committed late.
        committed: usize,
        /// Events the memory bound could not hold: lost from the journal
        /// (never from the live record). 0 unless the outage outlasted the
        /// bound.
        #[serde(default, skip_serializing_if = "is_zero")]
        lost: u64,
    },
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the arbiter ruled on the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The position after an earlier ply is reinstated (7.4a, 7.5 of 2005;
    /// 7.5.1, 7.4.1 of 2023): later moves are taken back and the board must
    /// be set up to it.
    Reinstate,
    /// Moves made while the sensors did not read them are accepted into
    /// the record (the board shows the position they lead to).
    AcceptMoves,
}

impl EventKind {
    /// The `type` name of the event.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::GameStarted { .. } => "game_started",
            EventKind::PieceLifted { .. } => "piece_lifted",
            EventKind::PiecePlaced { .. } => "piece_placed",
            EventKind::Move { .. } => "move",
            EventKind::MoveCompleted { .. } => "move_completed",
            EventKind::IllegalMove { .. } => "illegal_move",
            EventKind::TouchMove { .. } => "touch_move",
            EventKind::Displaced { .. } => "displaced",
            EventKind::Restored { .. } => "restored",
            EventKind::Candidates { .. } => "candidates",
            EventKind::Takeback { .. } => "takeback",
            EventKind::PromotionPending { .. } => "promotion_pending",
            EventKind::Clock { .. } => "clock",
            EventKind::DrawClaimable { .. } => "draw_claimable",
            EventKind::GameOver { .. } => "game_over",
            EventKind::SensorFault { .. } => "sensor_fault",
            EventKind::ArbiterDecision { .. } => "arbiter_decision",
            EventKind::StorageFailed { .. } => "storage_failed",
            EventKind::StorageRestored { .. } => "storage_restored",
        }
    }

    /// Alerts an arbiter must see: illegal moves, touch-move breaches,
    /// displaced pieces, sensor faults, a journal that cannot commit.
    pub fn is_alert(&self) -> bool {
        matches!(
            self,
            EventKind::IllegalMove { .. }
                | EventKind::TouchMove { .. }
                | EventKind::Displaced { .. }
                | EventKind::SensorFault { .. }
                | EventKind::StorageFailed { .. }
        )
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap};
        // The contract's order: type, t_ms, seq, then the fields.
        let value = serde_json::to_value(&self.kind).map_err(S::Error::custom)?;
        let serde_json::Value::Object(fields) = value else {
            return Err(S::Error::custom("an event kind serialises to an object"));
        };
        let mut map = serializer.serialize_map(Some(fields.len() + 2))?;
        map.serialize_entry("type", self.kind.name())?;
        map.serialize_entry("t_ms", &self.t_ms)?;
        map.serialize_entry("seq", &self.seq)?;
        for (key, value) in fields.iter().filter(|(k, _)| k.as_str() != "type") {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Event, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            t_ms: Millis,
            seq: u64,
            #[serde(flatten)]
            kind: EventKind,
        }
        let raw = Raw::deserialize(deserializer)?;
        Ok(Event {
            t_ms: raw.t_ms,
            seq: raw.seq,
            kind: raw.kind,
        })
    }
}

impl Event {
    /// One line of JSON, as `replay --events` prints it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events always serialise")
    }
}

mod square_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Square;

    pub(crate) fn serialize<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(sq)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        // Owned: a borrowed &str fails for input that cannot lend it (a
        // serde_json::Value, an escaped string).
        let name = String::deserialize(d)?;
        name.parse()
            .map_err(|_| serde::de::Error::custom(format!("{name:?} is not a square (a1..h8)")))
    }
}

mod opt_square_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Square;

    pub(crate) fn serialize<S: Serializer>(sq: &Option<Square>, s: S) -> Result<S::Ok, S::Error> {
        match sq {
            Some(sq) => s.collect_str(sq),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Square>, D::Error> {
        let name = Option::<String>::deserialize(d)?;
        name.map(|n| {
            n.parse()
                .map_err(|_| serde::de::Error::custom(format!("{n:?} is not a square (a1..h8)")))
        })
        .transpose()
    }
}

mod square_names {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Square;

    pub(crate) fn serialize<S: Serializer>(squares: &[Square], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(squares.iter().map(|sq| sq.to_string()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Square>, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        names
            .iter()
            .map(|n| {
                n.parse().map_err(|_| {
                    serde::de::Error::custom(format!("{n:?} is not a square (a1..h8)"))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_with_squares_read_from_a_json_value() {
        // MQTT consumers strip their own keys from a `Value` first: the
        // square fields must not need borrowed strings.
        let value = serde_json::json!({"type": "illegal_move", "t_ms": 1, "seq": 2, "side": "white",
            "completed": false, "from": "e2", "to": "e5", "count": 0});
        let event: Event = serde_json::from_value(value).unwrap();
        assert!(matches!(
            event.kind,
            EventKind::IllegalMove {
                from: Some(Square::E2),
                ..
            }
        ));
        let value = serde_json::json!({"type": "displaced", "t_ms": 1, "seq": 3, "squares": ["h7"], "expected_fen": "x"});
        assert!(serde_json::from_value::<Event>(value).is_ok());
    }

    #[test]
    fn serialises_in_the_contract_order_and_reads_back() {
        let e = Event {
            t_ms: 1700,
            seq: 3,
            kind: EventKind::Move {
                ply: 1,
                side: Side::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
                inferred: false,
            },
        };
        let json = e.to_json();
        assert_eq!(
            json,
            r#"{"type":"move","t_ms":1700,"seq":3,"ply":1,"side":"white","san":"e4","uci":"e2e4","fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
    }

    #[test]
    fn squares_and_nulls() {
        let e = Event {
            t_ms: 5,
            seq: 9,
            kind: EventKind::IllegalMove {
                side: Side::Black,
                completed: false,
                from: Some(Square::E7),
                to: None,
                count: 0,
                article: None,
            },
        };
        let json = e.to_json();
        assert_eq!(
            json,
            r#"{"type":"illegal_move","t_ms":5,"seq":9,"side":"black","completed":false,"from":"e7","to":null,"count":0}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
        let bad = r#"{"type":"piece_placed","t_ms":1,"seq":1,"square":"i9"}"#;
        let err = serde_json::from_str::<Event>(bad).unwrap_err().to_string();
        assert!(err.contains("\"i9\" is not a square"), "{err}");
    }
}
