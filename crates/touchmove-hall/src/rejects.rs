//! The messages a board had refused: counted by reason, the last one
//! kept, and, once a board has sent [`ALERT_AFTER`] bad messages, one hall
//! alert for it ([`super::severity::AlertCause::BadMessages`]). And a
//! limit on the warnings they log, so that a flood of bad messages does
//! not flood the log.
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::limits::Reason;

/// How many refused messages make a board an alert (a single bad message
/// is counted, not yet an alert).
pub const ALERT_AFTER: u64 = 5;

/// One refused message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedMessage {
    pub at_ms: u64,
    pub topic: String,
    pub reason: &'static str,
    pub message: String,
}

/// A board's refused messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rejects {
    pub count: u64,
    by_reason: BTreeMap<Reason, u64>,
    pub last: Option<RefusedMessage>,
    /// `count` when the board's last bad-messages alert was raised.
    alerted_at: u64,
}

impl Rejects {
    /// How many messages were refused for `reason` (tests).
    #[cfg(test)]
    pub(crate) fn count_of(&self, reason: Reason) -> u64 {
        self.by_reason.get(&reason).copied().unwrap_or(0)
    }

    /// Counts one refused message.
    pub fn add(&mut self, reason: Reason, topic: &str, message: &str, now_ms: u64) {
        self.count += 1;
        *self.by_reason.entry(reason).or_default() += 1;
        self.last = Some(RefusedMessage {
            at_ms: now_ms,
            topic: topic.to_owned(),
            reason: reason.name(),
            message: message.to_owned(),
        });
    }

    /// Whether the refused messages since the last alert call for one.
    pub(crate) fn alert_due(&self) -> bool {
        self.count - self.alerted_at >= ALERT_AFTER
    }

    /// Notes that an alert was raised now.
    pub fn alerted(&mut self) {
        self.alerted_at = self.count;
    }

    /// `{"count", "by_reason": {"oversized": n, ...}, "last"}`.
    pub fn to_json(&self) -> Value {
        let by_reason: serde_json::Map<String, Value> = self
            .by_reason
            .iter()
            .map(|(r, n)| (r.name().to_owned(), json!(n)))
            .collect();
        json!({
            "count": self.count,
            "by_reason": by_reason,
            "last": self.last,
        })
    }
}

/// What to do with one more warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Say {
    /// Log it.
    Log,
    /// Log it, and that `n` were left out before it.
    LogAfterQuiet(u64),
    /// Leave it out.
    Quiet,
}

/// At most `burst` warnings per `window_ms`; the ones left out are
/// counted and named with the next one logged.
#[derive(Debug, Clone)]
pub(crate) struct LogLimit {
    window_ms: u64,
    burst: u32,
    window_start: u64,
    said: u32,
    left_out: u64,
}

impl LogLimit {
    pub fn new(window_ms: u64, burst: u32) -> LogLimit {
        LogLimit {
            window_ms,
            burst,
            window_start: 0,
            said: 0,
            left_out: 0,
        }
    }

    /// Whether a warning at `now_ms` is logged.
    pub fn say(&mut self, now_ms: u64) -> Say {
        if now_ms.saturating_sub(self.window_start) >= self.window_ms || now_ms < self.window_start
        {
            self.window_start = now_ms;
            self.said = 0;
        }
        if self.said >= self.burst {
            self.left_out += 1;
            return Say::Quiet;
        }
        self.said += 1;
        match std::mem::take(&mut self.left_out) {
            0 => Say::Log,
            n => Say::LogAfterQuiet(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_count_by_reason_and_call_for_one_alert_per_run() {
        let mut r = Rejects::default();
        for i in 0..ALERT_AFTER - 1 {
            r.add(Reason::Undecodable, "t", "not JSON", i);
            assert!(!r.alert_due());
        }
        r.add(Reason::Oversized, "t", "big", 9);
        assert!(r.alert_due());
        r.alerted();
        assert!(!r.alert_due());
        assert_eq!(r.count_of(Reason::Oversized), 1);
        let v = r.to_json();
        assert_eq!(v["count"], ALERT_AFTER);
        assert_eq!(v["by_reason"]["undecodable"], ALERT_AFTER - 1);
        assert_eq!(v["last"]["reason"], "oversized");
        assert_eq!(v["last"]["at_ms"], 9);
    }

    #[test]
    fn the_log_limit_lets_a_burst_through_then_counts() {
        let mut l = LogLimit::new(10_000, 3);
        assert_eq!(l.say(1_000), Say::Log);
        assert_eq!(l.say(1_001), Say::Log);
        assert_eq!(l.say(1_002), Say::Log);
        for t in 0..100 {
            assert_eq!(l.say(1_003 + t), Say::Quiet);
        }
        assert_eq!(l.say(11_000), Say::LogAfterQuiet(100));
        assert_eq!(l.say(11_001), Say::Log);
    }
}
