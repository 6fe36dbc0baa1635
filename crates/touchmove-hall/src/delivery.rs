//! Hall-wide delivery counters: messages, events taken, duplicates, and
//! the board-to-hall latency histogram (plausible wall times only).
use serde::Serialize;

/// The longest board-to-hall latency kept to the millisecond; longer
/// ones count in the last bucket.
const LATENCY_BUCKETS: usize = 60_000;

/// Hall-wide delivery counters, with a histogram of latencies (1 ms buckets).
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    pub messages: u64,
    pub events: u64,
    pub duplicates: u64,
    /// Events with a plausible latency (counted in the histogram).
    timed: u64,
    latency_ms: Vec<u64>,
    max_latency_ms: i64,
}

impl Delivery {
    /// An event taken; `latency_ms`: `None` when its wall time cannot be right.
    pub fn accepted(&mut self, latency_ms: Option<i64>) {
        self.events += 1;
        let Some(latency_ms) = latency_ms else {
            return;
        };
        if self.latency_ms.is_empty() {
            self.latency_ms = vec![0; LATENCY_BUCKETS];
        }
        self.timed += 1;
        let bucket = latency_ms.clamp(0, LATENCY_BUCKETS as i64 - 1) as usize;
        self.latency_ms[bucket] += 1;
        self.max_latency_ms = self.max_latency_ms.max(latency_ms);
    }

    fn percentile(&self, p: f64) -> Option<u64> {
        if self.timed == 0 {
            return None;
        }
        let rank = ((p * self.timed as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (ms, count) in self.latency_ms.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return Some(ms as u64);
            }
        }
        None
    }

    pub fn stats(&self) -> DeliveryStats {
        DeliveryStats {
            messages: self.messages,
            events: self.events,
            duplicates: self.duplicates,
            latency_p50_ms: self.percentile(0.50),
            latency_p99_ms: self.percentile(0.99),
            latency_max_ms: (self.timed > 0).then_some(self.max_latency_ms),
        }
    }
}

/// Delivery across all boards (`/health`'s `delivery`). Latencies are the
/// hall's receive time minus the board's `wall_ms`, in whole milliseconds
/// of the two clocks (exact only when both run on one machine).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DeliveryStats {
    /// MQTT messages received (every topic, good or bad).
    pub messages: u64,
    /// Events taken, each `(board, game, seq)` once.
    pub events: u64,
    /// Events received again and dropped.
    pub duplicates: u64,
    pub latency_p50_ms: Option<u64>,
    pub latency_p99_ms: Option<u64>,
    pub latency_max_ms: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_percentiles_come_from_the_latency_histogram() {
        let mut d = Delivery::default();
        assert_eq!(d.stats().latency_p50_ms, None);
        for latency in (1..=100).rev() {
            d.accepted(Some(latency));
        }
        d.accepted(Some(-3)); // clocks a little apart: counted as 0
        d.accepted(None); // a board clock that cannot be right: not timed
        d.duplicates += 1;
        let s = d.stats();
        assert_eq!(s.events, 102);
        assert_eq!(s.duplicates, 1);
        assert_eq!(s.latency_p50_ms, Some(50));
        assert_eq!(s.latency_p99_ms, Some(99));
        assert_eq!(s.latency_max_ms, Some(100));
    }
}
