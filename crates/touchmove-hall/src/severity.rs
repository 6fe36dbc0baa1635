//! How much an alert matters to the arbiter, and which alerts the board
//! resolves by itself.
//!
//! The arbiter's queue is ordered by severity, then by age (the oldest
//! first): what needs a ruling comes before what the players repair
//! themselves.
//!
//! | rank | alert | why |
//! |---|---|---|
//! | 0 | a completed illegal move | Article 7.4 / 7.5: a penalty, the position reinstated |
//! | 1 | a touch-move breach | Articles 4.3, 4.4, 4.6: the arbiter rules |
//! | 2 | a board offline | the record is not being kept |
//! | 3 | a sensor fault | the board cannot see a square |
//! | 4 | a journal that cannot save (`storage_failed`) | the record is not durable |
//! | 5 | displaced pieces | Articles 7.3 / 7.5 (2005): the players put them back |
//! | 6 | the rest: an illegal move not completed (the player may still correct it), a board sending bad messages | |
use touchmove_core::events::{Event, EventKind};

/// What an alert is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertCause {
    /// An alert event of the board's game.
    Event { game: u64, event: Event },
    /// The board went offline (status `offline`, or its Last Will).
    Offline,
    /// The board sends messages the hall refuses: how many so far, and
    /// the last one's reason and fault.
    BadMessages {
        rejected: u64,
        reason: &'static str,
        message: String,
    },
}

/// The rank of the least severe alerts.
pub(crate) const LOWEST: u8 = 6;

/// The alert's rank: 0 is the most severe.
pub fn rank(cause: &AlertCause) -> u8 {
    match cause {
        AlertCause::Event { event, .. } => match &event.kind {
            EventKind::IllegalMove {
                completed: true, ..
            } => 0,
            EventKind::TouchMove { .. } => 1,
            EventKind::SensorFault { .. } => 3,
            EventKind::StorageFailed { .. } => 4,
            EventKind::Displaced { .. } => 5,
            _ => LOWEST,
        },
        AlertCause::Offline => 2,
        AlertCause::BadMessages { .. } => LOWEST,
    }
}

/// The rank's name, as the pages show it.
pub(crate) fn label(rank: u8) -> &'static str {
    match rank {
        0 => "illegal move",
        1 => "touch-move",
        2 => "offline",
        3 => "sensor",
        4 => "storage",
        5 => "displaced",
        _ => "notice",
    }
}

/// Whether the board's own later state closes the alert, without a ruling:
/// displaced pieces put back (`restored`, Article 7.3), an illegal move
/// the player corrected before pressing the clock, a board back online, a
/// journal that saves again (`storage_restored`). A completed illegal
/// move, a touch-move breach and a sensor fault wait for the arbiter.
pub fn resolves_itself(cause: &AlertCause) -> bool {
    match cause {
        AlertCause::Event { event, .. } => matches!(
            event.kind,
            EventKind::Displaced { .. }
                | EventKind::StorageFailed { .. }
                | EventKind::IllegalMove {
                    completed: false,
                    ..
                }
        ),
        AlertCause::Offline => true,
        AlertCause::BadMessages { .. } => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;
    use touchmove_core::events::{Event, Side};

    fn cause(kind: EventKind) -> AlertCause {
        AlertCause::Event {
            game: 1,
            event: Event {
                t_ms: 0,
                seq: 1,
                kind,
            },
        }
    }

    fn illegal(completed: bool) -> AlertCause {
        cause(EventKind::IllegalMove {
            side: Side::White,
            completed,
            from: None,
            to: None,
            count: 1,
            article: None,
        })
    }

    #[test]
    fn the_order_of_the_queue() {
        let in_order = [
            illegal(true),
            cause(EventKind::TouchMove {
                side: Side::Black,
                article: "4.3a".into(),
                square: Square::E7,
            }),
            AlertCause::Offline,
            cause(EventKind::SensorFault {
                square: Square::A1,
                kind: "stuck".into(),
            }),
            cause(EventKind::StorageFailed {
                error: "full".into(),
                from_seq: None,
            }),
            cause(EventKind::Displaced {
                squares: vec![Square::H7],
                expected_fen: "x".into(),
                candidates: vec![],
            }),
            illegal(false),
        ];
        let ranks: Vec<u8> = in_order.iter().map(rank).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
        assert_eq!(label(rank(&illegal(true))), "illegal move");
        assert!(resolves_itself(&illegal(false)) && !resolves_itself(&illegal(true)));
        assert!(resolves_itself(&AlertCause::Offline));
    }
}
