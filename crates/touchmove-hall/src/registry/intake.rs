//! Every MQTT message the hall receives, untrusted ([`crate::limits`]):
//! its topic parsed, its size checked, handed to what its channel
//! carries; a refused one is a fault of the hall (the last
//! [`FAULTS_KEPT`] kept, all counted), counted for its board by reason,
//! and enough of them raise one alert for the board.
use serde::Serialize;

use touchmove_wire::mqtt::{self as wire, Channel, EventMessage, OFFLINE, ONLINE};

use super::board::Status;
use super::{BAD_MESSAGES_QUIET_MS, FAULTS_KEPT, REJECTING_BOARDS, Received, Registry};
use crate::limits::{self, Reason};
use crate::severity::AlertCause;

/// A payload the hall could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PayloadFault {
    pub at_ms: u64,
    pub topic: String,
    pub message: String,
}

impl Registry {
    /// Takes one MQTT message.
    pub fn receive(&mut self, topic: &str, payload: &[u8], now_ms: u64) -> Received {
        self.delivery.messages += 1;
        let Some((hall, board, channel)) = wire::parse_topic(topic) else {
            return self.fault(
                topic,
                "not a topic of the touchmove/v1 contract".into(),
                now_ms,
            );
        };
        if hall != self.hall {
            return self.fault(
                topic,
                format!("another hall ({hall:?}, not {:?})", self.hall),
                now_ms,
            );
        }
        if channel == Channel::Replay {
            // Requests (ours or another hall reader's) are not board news.
            return Received::default();
        }
        let board = board.to_owned();
        if let Err(message) = limits::check_size(payload.len()) {
            return self.reject(&board, topic, Reason::Oversized, message, now_ms);
        }
        match self.dispatch(&board, topic, channel, payload, now_ms) {
            Ok(received) => self.taken(board, received, now_ms),
            Err((reason, message)) => self.reject(&board, topic, reason, message, now_ms),
        }
    }

    /// Hands a board's message to what its channel carries.
    fn dispatch(
        &mut self,
        board: &str,
        topic: &str,
        channel: Channel,
        payload: &[u8],
        now_ms: u64,
    ) -> Result<Received, (Reason, String)> {
        match channel {
            Channel::Events => match EventMessage::parse(topic, payload) {
                Ok(message) => self.event(board, message, now_ms),
                Err(e) => Err((Reason::Undecodable, e.message)),
            },
            Channel::State => self.state(board, payload, now_ms),
            Channel::Pgn => self.pgn(board, payload, now_ms),
            Channel::Status => {
                let status = status_of(payload)?;
                Ok(self.status(board, status, now_ms))
            }
            Channel::Replay => unreachable!("returned above"),
        }
    }

    /// A board's message taken: the board was seen, its alerts are
    /// refreshed, and its bad-messages alert is no longer active once the
    /// board has sent nothing refused for [`BAD_MESSAGES_QUIET_MS`].
    fn taken(&mut self, board: String, mut received: Received, now_ms: u64) -> Received {
        let quiet = self
            .rejects
            .get(&board)
            .and_then(|r| r.last.as_ref())
            .is_none_or(|last| now_ms.saturating_sub(last.at_ms) >= BAD_MESSAGES_QUIET_MS);
        let b = self.board(&board, now_ms);
        b.last_seen_ms = now_ms;
        b.refresh_active(now_ms);
        if quiet {
            for a in &mut b.alerts {
                if let AlertCause::BadMessages { .. } = a.cause {
                    a.active = false;
                }
            }
        }
        received.changed = Some(board);
        received
    }

    /// A payload refused: counted and kept (the last [`FAULTS_KEPT`]).
    pub(super) fn fault(&mut self, topic: &str, message: String, now_ms: u64) -> Received {
        let fault = PayloadFault {
            at_ms: now_ms,
            topic: topic.to_owned(),
            message,
        };
        self.fault_count += 1;
        if self.faults.len() == FAULTS_KEPT {
            self.faults.remove(0);
        }
        self.faults.push(fault.clone());
        Received {
            fault: Some(fault),
            ..Received::default()
        }
    }

    /// A board's message refused: a fault of the hall, counted for the
    /// board by reason, and an alert once the board has sent enough.
    fn reject(
        &mut self,
        board: &str,
        topic: &str,
        reason: Reason,
        message: String,
        now_ms: u64,
    ) -> Received {
        let alert = self.count_reject(board, topic, reason, &message, now_ms);
        let mut received = self.fault(topic, message, now_ms);
        if let Some(cause) = alert {
            received.alert = self.raise_bad_messages(board, cause, now_ms);
            received.changed = Some(board.to_owned());
        } else if self.boards.contains_key(board) {
            received.changed = Some(board.to_owned());
        }
        received
    }

    /// Counts a refused message for the hall and, while at most
    /// [`REJECTING_BOARDS`] are told apart, for its board; the cause of
    /// the alert now due, if one is (else the open alert tells the latest).
    fn count_reject(
        &mut self,
        board: &str,
        topic: &str,
        reason: Reason,
        message: &str,
        now_ms: u64,
    ) -> Option<AlertCause> {
        *self.rejected.entry(reason).or_default() += 1;
        let tracked = self.rejects.len() < REJECTING_BOARDS || self.rejects.contains_key(board);
        if !tracked {
            return None;
        }
        let rejects = self.rejects.entry(board.to_owned()).or_default();
        rejects.add(reason, topic, message, now_ms);
        let cause = AlertCause::BadMessages {
            rejected: rejects.count,
            reason: reason.name(),
            message: message.to_owned(),
        };
        if rejects.alert_due() {
            rejects.alerted();
            return Some(cause);
        }
        if let Some(b) = self.boards.get_mut(board) {
            // The open alert tells the latest.
            for a in b.alerts.iter_mut().filter(|a| a.is_open()) {
                if let AlertCause::BadMessages { .. } = a.cause {
                    a.cause = cause.clone();
                    a.active = true;
                }
            }
        }
        None
    }

    /// The board's bad-messages alert: the one not acknowledged updated,
    /// else a new one raised (`true`).
    fn raise_bad_messages(&mut self, board: &str, cause: AlertCause, now_ms: u64) -> bool {
        let open = self
            .board(board, now_ms)
            .alerts
            .iter_mut()
            .find(|a| !a.acknowledged && matches!(a.cause, AlertCause::BadMessages { .. }));
        match open {
            Some(a) => {
                a.cause = cause;
                a.active = true;
                false
            }
            None => {
                self.raise(board, cause, None, now_ms);
                true
            }
        }
    }
}

/// A retained `status` payload: `online`, `offline`, or empty (the
/// retained status cleared: the board is gone).
fn status_of(payload: &[u8]) -> Result<Status, (Reason, String)> {
    match std::str::from_utf8(payload).map(str::trim) {
        Ok(ONLINE) => Ok(Status::Online),
        Ok(OFFLINE) => Ok(Status::Offline),
        Ok("") => Ok(Status::Unknown),
        _ => Err((
            Reason::Undecodable,
            format!(
                "a status must be {ONLINE:?} or {OFFLINE:?}, not {:?}",
                String::from_utf8_lossy(&payload[..payload.len().min(40)])
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use touchmove_wire::mqtt::Channel;

    use super::super::Registry;
    use super::super::test_support::*;

    #[test]
    fn bad_payloads_are_counted_with_topic_and_fault() {
        let mut r = Registry::new(HALL);
        let f = r
            .receive(&topic("b1", Channel::Events), b"{not json", 1)
            .fault
            .unwrap();
        assert!(f.message.starts_with("not JSON"), "{f:?}");
        let f = r.receive("elsewhere/x", b"1", 2).fault.unwrap();
        assert_eq!(f.topic, "elsewhere/x");
        let f = r
            .receive("touchmove/v1/other/b1/state", b"{}", 3)
            .fault
            .unwrap();
        assert!(f.message.contains("another hall"));
        let f = r
            .receive(&topic("b1", Channel::State), b"{\"fen\":\"x\"}", 4)
            .fault
            .unwrap();
        assert!(f.message.contains("seq"), "{f:?}");
        let f = r
            .receive(&topic("b1", Channel::Status), b"maybe", 5)
            .fault
            .unwrap();
        assert!(f.message.contains("online"));
        assert_eq!(r.faults().0, 5);
        assert_eq!(r.hall_json(0)["fault_count"], 5);
        assert!(!r.has_board("b1"));
    }
}
