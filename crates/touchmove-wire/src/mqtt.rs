//! The hall's wire contract over MQTT: topic names and payloads. Boards
//! publish, the hall (and anyone the broker lets read) subscribes. It
//! extends `../shared/spec/events.md` and never changes an event:
//!
//! | topic                                  | QoS | retained | payload                           |
//! |----------------------------------------|-----|----------|-----------------------------------|
//! | `touchmove/v1/<hall>/<board>/events`   | 1   | no       | [`EventMessage`]: the event + `game`, `wall_ms` |
//! | `touchmove/v1/<hall>/<board>/state`    | 1   | yes      | the daemon's `GET /state` JSON     |
//! | `touchmove/v1/<hall>/<board>/pgn`      | 1   | yes      | the daemon's `GET /game.pgn` text  |
//! | `touchmove/v1/<hall>/<board>/status`   | 1   | yes      | `online`; the Last Will `offline`  |
//! | `touchmove/v1/<hall>/<board>/replay`   | 1   | no       | [`ReplayRequest`] (hall → board)   |
//!
//! `seq` restarts at 0 with each game, so an event is known by
//! `(game, seq)`: `game` is the board's game number (its journal's, when
//! it keeps one). Consumers drop an event whose `(game, seq)` they already
//! have, and on a gap ask for a replay; the board answers from its journal
//! by publishing the missing events again on `events`.
use serde::{Deserialize, Serialize};
use serde_json::Value;

use touchmove_core::events::Event;

/// The contract's version, the second topic level.
pub(crate) const VERSION: &str = "v1";
/// The first topic level.
pub const ROOT: &str = "touchmove";

/// The payload of `status` while the board runs.
pub const ONLINE: &str = "online";
/// The payload of `status` after a clean stop, and the Last Will.
pub const OFFLINE: &str = "offline";

/// A hall or board id: a topic level, so no `/`, `+`, `#` or NUL, not
/// empty, at most 64 characters.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("must not be empty".into());
    }
    if id.chars().count() > 64 {
        return Err(format!(
            "{} is longer than 64 characters",
            touchmove_core::game::echo::quoted(id)
        ));
    }
    if let Some(c) = id
        .chars()
        .find(|c| matches!(c, '/' | '+' | '#' | '\0') || c.is_control())
    {
        return Err(format!(
            "{id:?} contains {c:?}; use letters, digits, '-', '_' or '.'"
        ));
    }
    Ok(())
}

/// The hall's broker login. The example ACL
/// (`systemd/mosquitto/touchmove.acl`) lets the user `hall` read every
/// board's topics and write replay requests, and its per-board patterns
/// (`touchmove/v1/+/%u/...`) apply to every user, the hall included.
pub const HALL_LOGIN: &str = "hall";

/// A board id: a topic level ([`check_id`]) and not [`HALL_LOGIN`]. A
/// board called `hall` would log in as the hall (the login defaults to the
/// board id), reading every board; and the hall's own login could publish
/// as that board.
pub fn check_board_id(id: &str) -> Result<(), String> {
    check_id(id)?;
    if id == HALL_LOGIN {
        return Err(format!(
            "{id:?} is reserved: it is the hall's broker login, which reads every board \
             (systemd/mosquitto/touchmove.acl); choose another board id"
        ));
    }
    Ok(())
}

/// One of a board's topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Events,
    State,
    Pgn,
    Status,
    Replay,
}

impl Channel {
    pub const ALL: [Channel; 5] = [
        Channel::Events,
        Channel::State,
        Channel::Pgn,
        Channel::Status,
        Channel::Replay,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Events => "events",
            Channel::State => "state",
            Channel::Pgn => "pgn",
            Channel::Status => "status",
            Channel::Replay => "replay",
        }
    }

    /// Whether the broker keeps the last message for new subscribers.
    pub fn retained(self) -> bool {
        matches!(self, Channel::State | Channel::Pgn | Channel::Status)
    }

    fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The topics of one board in one hall.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BoardTopics {
    pub hall: String,
    pub board: String,
}

impl BoardTopics {
    /// Checks both ids (see [`check_id`]).
    pub fn new(hall: &str, board: &str) -> Result<BoardTopics, String> {
        check_id(hall).map_err(|e| format!("hall id: {e}"))?;
        check_id(board).map_err(|e| format!("board id: {e}"))?;
        Ok(BoardTopics {
            hall: hall.to_owned(),
            board: board.to_owned(),
        })
    }

    pub fn topic(&self, channel: Channel) -> String {
        format!(
            "{ROOT}/{VERSION}/{}/{}/{}",
            self.hall,
            self.board,
            channel.name()
        )
    }
}

/// The filter a hall subscribes to: every board's topics.
pub fn hall_filter(hall: &str) -> String {
    format!("{ROOT}/{VERSION}/{hall}/+/+")
}

/// Reads a topic of the contract: `(hall, board, channel)`; `None` for
/// any other topic.
pub fn parse_topic(topic: &str) -> Option<(&str, &str, Channel)> {
    let mut parts = topic.split('/');
    let (root, version, hall, board, channel) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if parts.next().is_some() || root != ROOT || version != VERSION {
        return None;
    }
    if hall.is_empty() || board.is_empty() {
        return None;
    }
    Some((hall, board, Channel::from_name(channel)?))
}

/// An event as published on `events`: the contract's event object with
/// two more keys, `game` (the board's game number) and `wall_ms` (the
/// board's UNIX time in milliseconds when it published; a hall on the same
/// clock measures delivery latency from it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventMessage {
    pub game: u64,
    pub wall_ms: u64,
    pub event: Event,
}

/// A payload that is not what its topic carries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{topic}: {message}")]
pub struct BadPayload {
    pub topic: String,
    pub message: String,
}

impl EventMessage {
    pub fn to_json(&self) -> String {
        let mut object = serde_json::Map::new();
        object.insert("game".into(), self.game.into());
        object.insert("wall_ms".into(), self.wall_ms.into());
        if let Ok(Value::Object(fields)) = serde_json::to_value(&self.event) {
            object.extend(fields);
        }
        Value::Object(object).to_string()
    }

    /// Reads a payload of `topic` (named in the error).
    pub fn parse(topic: &str, payload: &[u8]) -> Result<EventMessage, BadPayload> {
        let bad = |message: String| BadPayload {
            topic: topic.to_owned(),
            message,
        };
        let value: Value =
            serde_json::from_slice(payload).map_err(|e| bad(format!("not JSON: {e}")))?;
        let Value::Object(mut object) = value else {
            return Err(bad("not a JSON object".into()));
        };
        let mut number = |key: &str| match object.remove(key) {
            Some(Value::Number(n)) if n.is_u64() => Ok(n.as_u64().unwrap_or_default()),
            Some(other) => Err(bad(format!("`{key}` must be a whole number, not {other}"))),
            None => Err(bad(format!("`{key}` is missing"))),
        };
        let game = number("game")?;
        let wall_ms = number("wall_ms")?;
        let event = serde_json::from_value(Value::Object(object))
            .map_err(|e| bad(format!("not an event: {e}")))?;
        Ok(EventMessage {
            game,
            wall_ms,
            event,
        })
    }
}

/// The hall asks a board to publish again the events of `game` after
/// `after_seq` (`None`: from the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    pub game: u64,
    #[serde(default)]
    pub after_seq: Option<u64>,
}

impl ReplayRequest {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a replay request always serialises")
    }

    pub fn parse(topic: &str, payload: &[u8]) -> Result<ReplayRequest, BadPayload> {
        serde_json::from_slice(payload).map_err(|e| BadPayload {
            topic: topic.to_owned(),
            message: format!("not a replay request ({{\"game\": N, \"after_seq\": N}}): {e}"),
        })
    }
}

/// Milliseconds since the UNIX epoch now (0 if the clock is before 1970).
pub fn wall_ms_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use touchmove_core::events::{EventKind, Side};

    #[test]
    fn topics_round_trip() {
        let t = BoardTopics::new("open-2026", "b12").unwrap();
        for channel in Channel::ALL {
            let topic = t.topic(channel);
            assert_eq!(parse_topic(&topic), Some(("open-2026", "b12", channel)));
        }
        assert_eq!(
            t.topic(Channel::Events),
            "touchmove/v1/open-2026/b12/events"
        );
        assert_eq!(hall_filter("h"), "touchmove/v1/h/+/+");
        assert_eq!(parse_topic("touchmove/v2/h/b/events"), None);
        assert_eq!(parse_topic("touchmove/v1/h/b/events/x"), None);
        assert_eq!(parse_topic("touchmove/v1/h/b/clock"), None);
    }

    #[test]
    fn the_hall_login_is_no_board_id() {
        assert!(check_board_id("board-7").is_ok());
        let e = check_board_id("hall").unwrap_err();
        assert!(e.contains("reserved") && e.contains("hall"), "{e}");
        assert!(check_board_id("a/b").is_err());
        // A hall may be called `hall`: only the login is reserved.
        assert!(check_id("hall").is_ok());
    }

    #[test]
    fn ids_that_would_break_topics_are_refused() {
        assert!(check_id("board-7").is_ok());
        for bad in ["", "a/b", "a+", "#", &"x".repeat(65)] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
        assert!(
            BoardTopics::new("h", "a/b")
                .unwrap_err()
                .starts_with("board id")
        );
    }

    #[test]
    fn event_message_round_trips_and_keeps_the_contract_fields() {
        let m = EventMessage {
            game: 3,
            wall_ms: 1_700_000_000_123,
            event: Event {
                t_ms: 5000,
                seq: 7,
                kind: EventKind::Move {
                    ply: 1,
                    side: Side::White,
                    san: "e4".into(),
                    uci: "e2e4".into(),
                    fen: "f".into(),
                    inferred: false,
                },
            },
        };
        let json = m.to_json();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["type"], "move");
        assert_eq!(v["seq"], 7);
        assert_eq!(v["game"], 3);
        assert_eq!(EventMessage::parse("t", json.as_bytes()).unwrap(), m);
    }

    #[test]
    fn events_naming_squares_read_back() {
        let json = r#"{"game":1,"wall_ms":2,"type":"piece_lifted","t_ms":16540,"seq":2,"square":"e2","piece":"P"}"#;
        let m = EventMessage::parse("t", json.as_bytes()).unwrap();
        assert_eq!(m.event.seq, 2);
        assert_eq!(m.to_json(), json);
    }

    #[test]
    fn bad_event_payloads_name_the_topic_and_the_fault() {
        let e = EventMessage::parse("x/events", b"{\"wall_ms\":1,\"type\":\"move\"}").unwrap_err();
        assert_eq!(e.to_string(), "x/events: `game` is missing");
        let e = EventMessage::parse("x/events", b"[1]").unwrap_err();
        assert!(e.message.contains("object"), "{e}");
        let e = EventMessage::parse("x/events", b"{\"game\":1,\"wall_ms\":1,\"type\":\"nope\"}")
            .unwrap_err();
        assert!(e.message.starts_with("not an event"), "{e}");
    }

    #[test]
    fn replay_requests() {
        let r = ReplayRequest {
            game: 2,
            after_seq: Some(10),
        };
        assert_eq!(
            ReplayRequest::parse("t", r.to_json().as_bytes()).unwrap(),
            r
        );
        assert_eq!(
            ReplayRequest::parse("t", b"{\"game\":4}").unwrap(),
            ReplayRequest {
                game: 4,
                after_seq: None
            }
        );
        assert!(ReplayRequest::parse("t", b"{\"game\":-1}").is_err());
    }
}
