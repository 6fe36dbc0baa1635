//! Alerts the board resolves by itself ([`severity::resolves_itself`]):
//! displaced pieces restored, an illegal move corrected before the clock
//! press, a board back online, a journal saving again. A resolved alert
//! is filed with the time and what resolved it; `active` says whether the
//! board still shows it (or is still offline).
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use touchmove_core::events::EventKind;

use super::alerts::{HallAlert, Resolved};
use super::board::{Board, Status};
use super::{Received, Registry};
use crate::severity::{self, AlertCause};

/// The alerts a board's view shows as pending: `(game, seq)`, the game
/// `None` when the retained state names none.
type Pending = HashSet<(Option<u64>, u64)>;

impl Board {
    /// Marks each event alert active while the board's view still holds it,
    /// and files as resolved the alerts the board resolved by itself.
    pub(super) fn refresh_active(&mut self, now_ms: u64) {
        if self.alerts.is_empty() {
            return;
        }
        let pending = self.pending_alerts();
        let through = self.view_through();
        // Newer open reports of each kind (a newer `displaced` replaces
        // the older one on the board).
        let newest: HashMap<&'static str, u64> =
            self.alerts.iter().fold(HashMap::new(), |mut m, a| {
                let e = m.entry(a.kind()).or_insert(a.id);
                *e = (*e).max(a.id);
                m
            });
        let resolved: Vec<(usize, &'static str)> = self
            .alerts
            .iter()
            .enumerate()
            .filter_map(|(i, alert)| {
                resolved_by(alert, &pending, through, &newest).map(|by| (i, by))
            })
            .collect();
        for (i, by) in resolved {
            self.alerts[i].resolved = Some(Resolved { at_ms: now_ms, by });
        }
        self.mark_active(&pending);
    }

    /// The view's pending alerts, without building the view (this runs
    /// for every message).
    fn pending_alerts(&self) -> Pending {
        if self.events_are_current() {
            let log = self.log.as_ref().expect("checked");
            log.reduced
                .alerts()
                .map(|e| (Some(log.game), e.seq))
                .collect()
        } else if let Some(state) = &self.state {
            let game = state.json.get("game").and_then(Value::as_u64);
            state
                .json
                .get("alerts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| a.get("seq").and_then(Value::as_u64))
                .map(|seq| (game, seq))
                .collect()
        } else {
            HashSet::new()
        }
    }

    /// `active`: an event alert while the view shows it (a journal's
    /// outage until it is resolved), an offline board while it stays
    /// offline; bad messages are left to [`Registry::receive`].
    fn mark_active(&mut self, pending: &Pending) {
        let offline = self.status == Status::Offline;
        for alert in &mut self.alerts {
            alert.active = match &alert.cause {
                AlertCause::Event { game, event } => {
                    let held = pending.contains(&(Some(*game), event.seq))
                        || pending.contains(&(None, event.seq));
                    let storage = matches!(event.kind, EventKind::StorageFailed { .. });
                    held || (storage && alert.resolved.is_none())
                }
                AlertCause::Offline => offline && alert.active,
                AlertCause::BadMessages { .. } => alert.active,
            };
        }
    }

    /// Files every open `storage_failed` alert of the board as resolved
    /// (the board said `storage_restored`).
    pub(super) fn storage_restored(&mut self, now_ms: u64) {
        for alert in &mut self.alerts {
            if let AlertCause::Event { event, .. } = &alert.cause
                && matches!(event.kind, EventKind::StorageFailed { .. })
                && alert.resolved.is_none()
            {
                alert.resolved = Some(Resolved {
                    at_ms: now_ms,
                    by: "storage_restored",
                });
                alert.active = false;
            }
        }
    }
}

/// What resolved an event alert the board no longer shows, if it is of a
/// kind that needs no ruling and the view has taken its event in (an
/// event held beyond a gap is not reduced yet and says nothing).
fn resolved_by(
    alert: &HallAlert,
    pending: &Pending,
    through: Option<(Option<u64>, i64)>,
    newest: &HashMap<&'static str, u64>,
) -> Option<&'static str> {
    let AlertCause::Event { game, event } = &alert.cause else {
        return None;
    };
    let shown = pending.contains(&(Some(*game), event.seq)) || pending.contains(&(None, event.seq));
    let (older_game, taken) = match through {
        Some((Some(g), _)) if g > *game => (true, true),
        Some((_, seq)) => (false, seq >= event.seq as i64),
        None => (false, false),
    };
    if shown || !taken || alert.resolved.is_some() || !severity::resolves_itself(&alert.cause) {
        return None;
    }
    Some(match &event.kind {
        // A journal's outage outlasts its game: only `storage_restored`
        // ends it.
        EventKind::StorageFailed { .. } if older_game => return None,
        EventKind::StorageFailed { .. } => "storage_restored",
        _ if older_game => "new_game",
        _ if newest.get(alert.kind()).is_some_and(|n| *n > alert.id) => "superseded",
        _ => "restored",
    })
}

impl Registry {
    /// The board's retained `status`: going offline raises an alert;
    /// back online resolves it.
    pub(super) fn status(&mut self, board: &str, status: Status, now_ms: u64) -> Received {
        let b = self.board(board, now_ms);
        let before = b.status;
        b.status = status;
        let mut received = Received::default();
        match (before, status) {
            (Status::Offline, Status::Offline) => {}
            (_, Status::Offline) => {
                self.raise(board, AlertCause::Offline, None, now_ms);
                received.alert = true;
            }
            (_, now) => {
                for alert in &mut self.board(board, now_ms).alerts {
                    if alert.cause == AlertCause::Offline {
                        alert.active = false;
                        // Back online: the board resolved it. A status
                        // cleared (the board taken away) waits for the
                        // arbiter.
                        if now == Status::Online && alert.resolved.is_none() {
                            alert.resolved = Some(Resolved {
                                at_ms: now_ms,
                                by: "online",
                            });
                        }
                    }
                }
            }
        }
        received
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use shakmaty::Square;
    use touchmove_core::events::EventKind;
    use touchmove_wire::mqtt::Channel;

    use super::super::test_support::*;
    use super::super::{Registry, Resolved};

    #[test]
    fn alerts_the_board_resolves_are_filed_as_resolved_without_an_ack() {
        let mut r = Registry::new(HALL);
        r.receive(&topic("b1", Channel::Status), b"online", 10);
        send(&mut r, "b1", 1, ev(0, started()), 20);
        send(&mut r, "b1", 1, ev(1, displaced(Square::H7)), 100);
        // A newer report of the same pieces replaces the first.
        send(&mut r, "b1", 1, ev(2, displaced(Square::G7)), 150);
        assert_eq!(r.open_count(), 1);
        let first = r.alerts().into_iter().find(|a| !a.is_open()).unwrap();
        assert_eq!(first.resolved.unwrap().by, "superseded");
        // The players put the piece back: no ruling, no acknowledgement.
        send(&mut r, "b1", 1, ev(3, restored()), 200);
        assert_eq!(r.open_count(), 0);
        let hall = r.hall_json(300);
        assert_eq!(hall["alerts"], json!([]));
        let closed = &hall["closed"][0];
        assert_eq!(closed["type"], "displaced");
        assert_eq!(closed["resolved_by"], "restored");
        assert_eq!(closed["resolved_ms"], 200);
        assert_eq!(closed["acknowledged"], false);
        assert_eq!(closed["open"], false);
        // An illegal move corrected before the clock press resolves too;
        // a completed one waits for the arbiter, restored or not.
        send(&mut r, "b1", 1, ev(4, illegal()), 400);
        send(&mut r, "b1", 1, ev(5, restored()), 450);
        assert_eq!(r.open_count(), 0);
        send(&mut r, "b1", 1, ev(6, completed_illegal()), 500);
        send(&mut r, "b1", 1, ev(7, restored()), 550);
        assert_eq!(open_kinds(&r), [("b1".into(), "illegal_move".into())]);
        // Offline, then back online: resolved by the board.
        r.receive(&topic("b1", Channel::Status), b"offline", 600);
        assert_eq!(r.open_count(), 2);
        r.receive(&topic("b1", Channel::Status), b"online", 700);
        assert_eq!(r.open_count(), 1);
        let offline = r
            .alerts()
            .into_iter()
            .find(|a| a.kind() == "offline")
            .unwrap();
        assert_eq!(
            offline.resolved,
            Some(Resolved {
                at_ms: 700,
                by: "online"
            })
        );
        // A journal that cannot save, until it saves again.
        send(
            &mut r,
            "b1",
            1,
            ev(
                8,
                EventKind::StorageFailed {
                    error: "No space left on device".into(),
                    from_seq: Some(8),
                },
            ),
            800,
        );
        assert_eq!(r.open_count(), 2);
        send(
            &mut r,
            "b1",
            1,
            ev(
                9,
                EventKind::StorageRestored {
                    committed: 2,
                    lost: 0,
                },
            ),
            900,
        );
        assert_eq!(open_kinds(&r), [("b1".into(), "illegal_move".into())]);
        let storage = r
            .alerts()
            .into_iter()
            .find(|a| a.kind() == "storage_failed")
            .unwrap();
        assert_eq!(storage.resolved.unwrap().by, "storage_restored");
        // Acknowledging the board acknowledges only what is open.
        assert_eq!(r.acknowledge("b1", None), Ok(1));
        assert_eq!(r.open_count(), 0);
    }

    #[test]
    fn an_alert_held_beyond_a_gap_is_not_resolved_before_it_is_reduced() {
        let mut r = Registry::new(HALL);
        send(&mut r, "b1", 1, ev(0, started()), 20);
        // seq 1 lost: the displaced (2) is held, not reduced yet.
        send(&mut r, "b1", 1, ev(2, displaced(Square::H7)), 100);
        send(&mut r, "b1", 1, ev(3, lifted()), 110);
        assert_eq!(r.open_count(), 1);
        assert!(r.alerts()[0].resolved.is_none());
        // The gap filled: reduced, still shown, still open.
        send(&mut r, "b1", 1, ev(1, lifted()), 200);
        assert_eq!(r.open_count(), 1);
        assert!(r.alerts()[0].active);
    }
}
