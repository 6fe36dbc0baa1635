//! The arbiter's alerts: raised once each, open until the arbiter
//! acknowledges them or the board resolves them ([`super::resolution`]),
//! the open ones ordered by [`severity::rank`], then by age.
use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::board::Board;
use super::{ALERTS_KEPT, AckError, Registry};
use crate::acks::AckKey;
use crate::severity::{self, AlertCause};

/// One of the arbiter's alerts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallAlert {
    /// Unique in the hall, increasing.
    pub id: u64,
    pub board: String,
    pub cause: AlertCause,
    /// Hall wall time (UNIX ms) when the hall first saw it.
    pub first_seen_ms: u64,
    /// The board's wall time when it published the event (latency).
    pub board_wall_ms: Option<u64>,
    pub acknowledged: bool,
    /// Whether the board still shows it (or is still offline).
    pub active: bool,
    /// The board resolved it by itself (no acknowledgement needed).
    pub resolved: Option<Resolved>,
}

/// How the board resolved an alert by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// Hall wall time (UNIX ms) when the hall saw it resolved.
    pub at_ms: u64,
    /// What resolved it: `restored` (the board matches the game again),
    /// `superseded` (a newer report of the same kind replaced it),
    /// `new_game`, `online`, `storage_restored`.
    pub by: &'static str,
}

impl HallAlert {
    /// Neither acknowledged nor resolved by the board: the arbiter's queue.
    pub(crate) fn is_open(&self) -> bool {
        !self.acknowledged && self.resolved.is_none()
    }

    /// The queue's order: the most severe first, then the oldest.
    pub(crate) fn queue_key(&self) -> (u8, u64) {
        (severity::rank(&self.cause), self.id)
    }

    /// When it left the queue (acknowledged alerts: when first seen).
    pub(super) fn closed_ms(&self) -> u64 {
        self.resolved.map_or(self.first_seen_ms, |r| r.at_ms)
    }

    /// The alert's type: the event's `type`, or `offline`.
    pub fn kind(&self) -> &'static str {
        match &self.cause {
            AlertCause::Event { event, .. } => event.kind.name(),
            AlertCause::Offline => "offline",
            AlertCause::BadMessages { .. } => "bad_messages",
        }
    }

    pub fn to_json(&self) -> Value {
        let (game, seq, event) = match &self.cause {
            AlertCause::Event { game, event } => (
                Some(*game),
                Some(event.seq),
                serde_json::to_value(event).unwrap_or(Value::Null),
            ),
            AlertCause::Offline => (None, None, Value::Null),
            // Not an event of the contract: what the hall refused.
            AlertCause::BadMessages {
                rejected,
                reason,
                message,
            } => (
                None,
                None,
                json!({"type": "bad_messages", "rejected": rejected, "reason": reason, "message": message}),
            ),
        };
        let rank = severity::rank(&self.cause);
        json!({
            "id": self.id,
            "board": self.board,
            "type": self.kind(),
            "severity": rank,
            "severity_label": severity::label(rank),
            "open": self.is_open(),
            "resolved_ms": self.resolved.map(|r| r.at_ms),
            "resolved_by": self.resolved.map(|r| r.by),
            "game": game,
            "seq": seq,
            "event": event,
            "first_seen_ms": self.first_seen_ms,
            "board_wall_ms": self.board_wall_ms,
            "acknowledged": self.acknowledged,
            "active": self.active,
        })
    }
}

/// Open alerts first (by severity, then age), then the closed ones, the
/// newest first.
pub(super) fn queue_order(a: &HallAlert, b: &HallAlert) -> std::cmp::Ordering {
    b.is_open().cmp(&a.is_open()).then_with(|| {
        if a.is_open() {
            a.queue_key().cmp(&b.queue_key())
        } else {
            b.id.cmp(&a.id)
        }
    })
}

/// How an alert is kept among the acknowledged: its board and its
/// event's game and seq (an offline board is not kept).
fn ack_key(board: &str, cause: &AlertCause) -> Option<AckKey> {
    match cause {
        AlertCause::Event { game, event } => Some((board.to_owned(), *game, event.seq)),
        AlertCause::Offline | AlertCause::BadMessages { .. } => None,
    }
}

impl Board {
    /// The worst open alert (the card's badge).
    pub(super) fn worst_open(&self) -> Option<&HallAlert> {
        self.open_alerts().min_by_key(|a| a.queue_key())
    }

    pub(super) fn open_alerts(&self) -> impl Iterator<Item = &HallAlert> {
        self.alerts.iter().filter(|a| a.is_open())
    }
}

impl Registry {
    /// Raises the alert `event` of `board`'s game `game` unless it was
    /// raised before (a replay, the retained state and the live stream may
    /// each carry it). True when raised now.
    pub(super) fn raise_event_once(
        &mut self,
        board: &str,
        game: u64,
        event: touchmove_core::events::Event,
        board_wall_ms: Option<u64>,
        now_ms: u64,
    ) -> bool {
        if !self.board(board, now_ms).raised.insert((game, event.seq)) {
            return false;
        }
        self.raise(
            board,
            AlertCause::Event { game, event },
            board_wall_ms,
            now_ms,
        );
        true
    }

    /// Raises an alert of `board` (acknowledged already if the arbiter
    /// acknowledged it before); a board keeps at most [`ALERTS_KEPT`],
    /// dropping closed ones first.
    pub(super) fn raise(
        &mut self,
        board: &str,
        cause: AlertCause,
        board_wall_ms: Option<u64>,
        now_ms: u64,
    ) {
        let acknowledged = ack_key(board, &cause).is_some_and(|k| self.acknowledged.contains(&k));
        let id = self.next_alert;
        self.next_alert += 1;
        let b = self.board(board, now_ms);
        if b.alerts.len() >= ALERTS_KEPT {
            let drop = b.alerts.iter().position(|a| !a.is_open()).unwrap_or(0);
            b.alerts.remove(drop);
        }
        b.alerts.push(HallAlert {
            id,
            board: board.to_owned(),
            cause,
            first_seen_ms: now_ms,
            board_wall_ms,
            acknowledged,
            active: true,
            resolved: None,
        });
    }

    /// Alerts acknowledged before (read from the hall's file at start): if
    /// raised again, they come acknowledged.
    pub(crate) fn remember_acknowledged(&mut self, keys: BTreeSet<AckKey>) {
        self.acknowledged.extend(keys);
    }

    /// Every alert acknowledged, as kept in the hall's file.
    pub(crate) fn acknowledged_keys(&self) -> &BTreeSet<AckKey> {
        &self.acknowledged
    }

    /// The arbiter acknowledges one alert of `board` (`alert`: its id), or
    /// all its open alerts (`None`). Returns how many were acknowledged.
    pub fn acknowledge(&mut self, board: &str, alert: Option<u64>) -> Result<usize, AckError> {
        let b = self
            .boards
            .get_mut(board)
            .ok_or_else(|| AckError::UnknownBoard(board.to_owned()))?;
        let mut count = 0;
        match alert {
            Some(id) => {
                let a = b
                    .alerts
                    .iter_mut()
                    .find(|a| a.id == id)
                    .ok_or(AckError::UnknownAlert {
                        board: board.to_owned(),
                        alert: id,
                    })?;
                count += usize::from(!a.acknowledged);
                a.acknowledged = true;
                self.acknowledged.extend(ack_key(board, &a.cause));
            }
            None => {
                for a in b.alerts.iter_mut().filter(|a| a.is_open()) {
                    a.acknowledged = true;
                    count += 1;
                    self.acknowledged.extend(ack_key(board, &a.cause));
                }
            }
        }
        Ok(count)
    }

    /// Every alert of every board: the open ones by severity then age
    /// (the arbiter's queue), then the closed ones, the newest first.
    pub fn alerts(&self) -> Vec<&HallAlert> {
        let mut all: Vec<&HallAlert> = self.boards.values().flat_map(|b| &b.alerts).collect();
        all.sort_by(|a, b| queue_order(a, b));
        all
    }

    /// How many alerts wait for the arbiter.
    pub fn open_count(&self) -> usize {
        self.boards.values().map(|b| b.open_alerts().count()).sum()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use shakmaty::Square;
    use touchmove_wire::mqtt::Channel;

    use super::super::test_support::*;
    use super::super::{AckError, Registry};

    /// The ids of the hall view's boards, in their order.
    fn board_order(hall: &serde_json::Value) -> Vec<&str> {
        hall["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn the_queue_is_ordered_by_severity_then_age() {
        let mut r = Registry::new(HALL);
        for b in ["b1", "b2", "b3"] {
            r.receive(&topic(b, Channel::Status), b"online", 10);
            send(&mut r, b, 1, ev(0, started()), 20);
        }
        // The oldest: a displaced piece on b1, then b2 offline, then a
        // completed illegal move on b3, then another displaced on b2.
        send(&mut r, "b1", 1, ev(1, displaced(Square::H7)), 100);
        r.receive(&topic("b2", Channel::Status), b"offline", 200);
        send(&mut r, "b3", 1, ev(1, completed_illegal()), 300);
        send(&mut r, "b3", 1, ev(2, displaced(Square::A2)), 400);
        assert_eq!(
            open_kinds(&r),
            [
                ("b3".into(), "illegal_move".into()),
                ("b2".into(), "offline".into()),
                ("b1".into(), "displaced".into()),
                ("b3".into(), "displaced".into()),
            ]
        );
        let hall = r.hall_json(0);
        assert_eq!(hall["alerts"][0]["severity"], 0);
        assert_eq!(hall["alerts"][0]["severity_label"], "illegal move");
        // Boards by their worst open alert.
        let order = board_order(&hall);
        assert_eq!(order, ["b3", "b2", "b1"]);
        // A card's badge is its worst open alert, not its newest.
        let b3 = r.summary_json("b3", 0).unwrap();
        assert_eq!(b3["worst"]["type"], "illegal_move");
        assert_eq!(b3["alerts"][0]["type"], "illegal_move");
        assert_eq!(b3["open_alerts"], 2);
    }

    #[test]
    fn alerts_are_raised_once_stay_open_until_acknowledged() {
        let mut r = Registry::new(HALL);
        send(&mut r, "b1", 1, ev(0, started()), 100);
        let got = send(&mut r, "b1", 1, ev(1, completed_illegal()), 200);
        assert!(got.alert);
        assert!(!send(&mut r, "b1", 1, ev(1, completed_illegal()), 300).alert);
        let alerts = r.alerts();
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].kind(), "illegal_move");
        assert_eq!(alerts[0].first_seen_ms, 200);
        assert!(alerts[0].active);
        // The board restores the position: a completed illegal move is
        // still the arbiter's (Article 7.4), open until acknowledged.
        send(&mut r, "b1", 1, ev(2, restored()), 400);
        let alerts = r.alerts();
        assert!(alerts[0].is_open() && !alerts[0].acknowledged);
        let id = alerts[0].id;
        assert_eq!(
            r.acknowledge("b1", Some(99)),
            Err(AckError::UnknownAlert {
                board: "b1".into(),
                alert: 99
            })
        );
        assert_eq!(
            r.acknowledge("zz", None),
            Err(AckError::UnknownBoard("zz".into()))
        );
        assert_eq!(r.acknowledge("b1", Some(id)), Ok(1));
        assert_eq!(r.hall_json(0)["alerts"], json!([]));
    }

    #[test]
    fn offline_boards_are_alerts_and_sorted_first() {
        let mut r = Registry::new(HALL);
        for b in ["b10", "b2", "b1"] {
            r.receive(&topic(b, Channel::Status), b"online", 1);
        }
        assert_eq!(r.board_ids(), ["b1", "b2", "b10"]);
        let got = r.receive(&topic("b10", Channel::Status), b"offline", 5);
        assert!(got.alert);
        // The same retained status again raises nothing new.
        assert!(
            !r.receive(&topic("b10", Channel::Status), b"offline", 6)
                .alert
        );
        let hall = r.hall_json(10);
        let order = board_order(&hall);
        assert_eq!(order, ["b10", "b1", "b2"]);
        assert_eq!(hall["alerts"][0]["type"], "offline");
        assert_eq!(hall["alerts"][0]["active"], true);
        r.receive(&topic("b10", Channel::Status), b"online", 20);
        assert_eq!(r.hall_json(21)["alerts"], json!([]));
        assert_eq!(r.hall_json(21)["closed"][0]["active"], false);
        assert_eq!(r.hall_json(21)["closed"][0]["resolved_by"], "online");
    }
}
