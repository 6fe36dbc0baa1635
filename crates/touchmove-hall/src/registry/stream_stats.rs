//! Counters of one board's event stream, with its board-to-hall latency
//! (the hall-wide latency histogram is [`crate::delivery`]'s).
use serde::Serialize;

use crate::limits;

/// Counters of one board's event stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StreamStats {
    /// Events taken (each `(game, seq)` once).
    pub events: u64,
    pub duplicates: u64,
    /// Events of an older game than the current one.
    pub stale: u64,
    /// Gaps opened.
    pub gaps: u64,
    /// Replay requests made (first asks and retries).
    pub replays: u64,
    /// Hall receive time minus the board's `wall_ms` of the last event
    /// whose `wall_ms` is plausible.
    pub last_latency_ms: Option<i64>,
    pub max_latency_ms: Option<i64>,
    /// Events whose `wall_ms` cannot be right (left out of latencies).
    pub implausible_wall_ms: u64,
    /// Events too far ahead of the next expected seq to be held.
    pub beyond_window: u64,
    /// Times the board started again from a lower game number.
    pub renumbered: u64,
}

impl StreamStats {
    /// Notes the latency of an event the board stamped `wall_ms` and the
    /// hall received at `now_ms`: the latency, or `None` (counted) when
    /// the board's wall time cannot be right.
    pub(super) fn note_latency(&mut self, now_ms: u64, wall_ms: u64) -> Option<i64> {
        let latency = limits::plausible_latency(now_ms, wall_ms);
        match latency {
            Some(latency) => {
                self.last_latency_ms = Some(latency);
                self.max_latency_ms = Some(self.max_latency_ms.map_or(latency, |m| m.max(latency)));
            }
            None => self.implausible_wall_ms += 1,
        }
        latency
    }
}
