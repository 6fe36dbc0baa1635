//! Messages and events the registry's unit tests send.
use shakmaty::Square;
use touchmove_core::events::{Event, EventKind, Side};
use touchmove_wire::mqtt::{BoardTopics, Channel, EventMessage};

use super::board_log::START_FEN;
use super::{Received, Registry};

pub(super) const HALL: &str = "h";

pub(super) fn topic(board: &str, channel: Channel) -> String {
    BoardTopics::new(HALL, board).unwrap().topic(channel)
}

pub(super) fn ev(seq: u64, kind: EventKind) -> Event {
    Event {
        t_ms: seq * 1000,
        seq,
        kind,
    }
}

pub(super) fn started() -> EventKind {
    EventKind::GameStarted {
        fen: START_FEN.into(),
        profile: None,
    }
}

pub(super) fn lifted() -> EventKind {
    EventKind::PieceLifted {
        square: Square::E2,
        piece: Some('P'),
    }
}

pub(super) fn illegal() -> EventKind {
    EventKind::IllegalMove {
        side: Side::White,
        completed: false,
        from: Some(Square::E2),
        to: Some(Square::E5),
        count: 0,
        article: None,
    }
}

pub(super) fn completed_illegal() -> EventKind {
    EventKind::IllegalMove {
        side: Side::White,
        completed: true,
        from: Some(Square::E2),
        to: Some(Square::E5),
        count: 1,
        article: Some("7.4".into()),
    }
}

pub(super) fn displaced(square: Square) -> EventKind {
    EventKind::Displaced {
        squares: vec![square],
        expected_fen: START_FEN.into(),
        candidates: vec![],
    }
}

pub(super) fn restored() -> EventKind {
    EventKind::Restored {
        fen: START_FEN.into(),
    }
}

/// Sends `event` of `game` on `board`'s events topic, stamped 5 ms
/// before `now`.
pub(super) fn send(r: &mut Registry, board: &str, game: u64, event: Event, now: u64) -> Received {
    let m = EventMessage {
        game,
        wall_ms: now - 5,
        event,
    };
    r.receive(&topic(board, Channel::Events), m.to_json().as_bytes(), now)
}

/// The open alerts as `(board, type)`, in the queue's order.
pub(super) fn open_kinds(r: &Registry) -> Vec<(String, String)> {
    r.hall_json(0)["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["board"].as_str().unwrap().to_owned(),
                a["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
