//! The hall's link to the broker, judged from its connects and failures
//! (times passed in, in milliseconds of any one clock): whether the hall
//! is receiving, how long to wait before connecting again, and when to
//! give up the persistent session.
//!
//! - A connection is *stable* once it has stayed up [`STABLE_MS`]; only
//!   then does the reconnect pause start again from its minimum, and only
//!   then is the hall receiving again after a failure. A hall that
//!   connects and fails at once, again and again, is not receiving, even
//!   while a connection is up for a moment.
//! - A packet too large for the client ends the connection before it can
//!   be acknowledged, so a persistent session gets it again on every
//!   connect. After [`SAME_FAILURE_LIMIT`] such failures in a row the
//!   next connect discards the session (clean session): what the broker
//!   queued for the hall is lost, and the gaps it leaves are replayed by
//!   the boards.
use std::time::Duration;

/// How long a connection stays up before it counts as working.
pub const STABLE_MS: u64 = 5_000;
/// How many failures on an oversized packet in a row discard the session.
pub const SAME_FAILURE_LIMIT: u32 = 3;
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The broker sent a packet of this many bytes, over the client's limit.
    Oversized(usize),
    /// Anything else (the broker away, refused, a timeout).
    Other,
}

/// What the hall knows of its link.
#[derive(Debug, Clone, Default)]
pub struct Link {
    /// When the current connection was acknowledged.
    up_since: Option<u64>,
    /// Failures since the last stable connection.
    failures: u32,
    /// The last failure, and how many times in a row it was the same
    /// oversized packet.
    last: Option<Failure>,
    same: u32,
    /// Connections acknowledged after the first.
    pub reconnects: u64,
    connects: u64,
    /// Packets over the client's limit (each ended a connection).
    pub oversized_packets: u64,
    /// Sessions discarded after repeated oversized packets.
    pub session_resets: u64,
    /// The next connect discards the session.
    clean_next: bool,
}

impl Link {
    pub fn new() -> Link {
        Link::default()
    }

    /// The broker acknowledged a connection at `now_ms`.
    pub fn connected(&mut self, now_ms: u64) {
        if self.connects > 0 {
            self.reconnects += 1;
        }
        self.connects += 1;
        self.up_since = Some(now_ms);
    }

    /// The connection ended (or a connect failed) at `now_ms`. Returns the
    /// pause before the next connect.
    pub fn failed(&mut self, failure: Failure, now_ms: u64) -> Duration {
        let was_stable = self
            .up_since
            .take()
            .is_some_and(|since| now_ms.saturating_sub(since) >= STABLE_MS);
        if was_stable {
            self.failures = 0;
            self.same = 0;
            self.last = None;
        }
        self.failures = self.failures.saturating_add(1);
        if let Failure::Oversized(_) = failure {
            self.oversized_packets += 1;
            self.same = if self.last == Some(failure) {
                self.same + 1
            } else {
                1
            };
            if self.same >= SAME_FAILURE_LIMIT {
                self.clean_next = true;
                self.same = 0;
            }
        } else {
            self.same = 0;
        }
        self.last = Some(failure);
        let doublings = self.failures.saturating_sub(1).min(16);
        (BACKOFF_MIN * 2u32.saturating_pow(doublings)).min(BACKOFF_MAX)
    }

    /// Whether the next connect discards the session; taken once.
    pub(crate) fn take_clean_session(&mut self) -> bool {
        let clean = std::mem::take(&mut self.clean_next);
        if clean {
            self.session_resets += 1;
        }
        clean
    }

    /// Whether the hall is receiving at `now_ms`: connected, and either
    /// no failure since the last stable connection or this one stable.
    pub fn receiving(&self, now_ms: u64) -> bool {
        self.up_since
            .is_some_and(|since| self.failures == 0 || now_ms.saturating_sub(since) >= STABLE_MS)
    }

    pub(crate) fn is_up(&self) -> bool {
        self.up_since.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_connection_receives_at_once_a_failing_one_only_once_stable() {
        let mut l = Link::new();
        assert!(!l.receiving(0));
        l.connected(10);
        assert!(l.receiving(11));
        assert_eq!(l.failed(Failure::Other, 20), BACKOFF_MIN);
        assert!(!l.receiving(21));
        l.connected(200);
        assert!(!l.receiving(300));
        assert!(l.receiving(200 + STABLE_MS));
        assert_eq!(l.reconnects, 1);
    }

    #[test]
    fn the_pause_grows_while_connections_fail_at_once() {
        let mut l = Link::new();
        let mut pauses = Vec::new();
        for i in 0..8 {
            l.connected(i * 10);
            pauses.push(l.failed(Failure::Other, i * 10 + 1).as_millis());
        }
        assert_eq!(pauses, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        // A stable connection starts again from the minimum.
        l.connected(1_000);
        assert_eq!(l.failed(Failure::Other, 1_000 + STABLE_MS), BACKOFF_MIN);
    }

    #[test]
    fn the_same_oversized_packet_again_and_again_discards_the_session() {
        let mut l = Link::new();
        for i in 0..SAME_FAILURE_LIMIT as u64 {
            assert!(!l.take_clean_session());
            l.connected(i * 100);
            l.failed(Failure::Oversized(2 << 20), i * 100 + 1);
        }
        assert!(l.take_clean_session());
        assert!(!l.take_clean_session());
        assert_eq!((l.oversized_packets, l.session_resets), (3, 1));
        // Different failures in between do not add up.
        let mut l = Link::new();
        for (i, f) in [
            Failure::Oversized(5 << 20),
            Failure::Other,
            Failure::Oversized(5 << 20),
            Failure::Oversized(6 << 20),
        ]
        .into_iter()
        .enumerate()
        {
            l.connected(i as u64 * 100);
            l.failed(f, i as u64 * 100 + 1);
        }
        assert!(!l.take_clean_session());
    }
}
