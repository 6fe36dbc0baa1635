//! Sensor health: squares whose sensor looks broken.
//!
//! - **Chatter**: a square whose raw reading toggles far more often than
//!   hands can move pieces (a loose wire, a dying reed, a Hall sensor at its
//!   threshold). Detected from the raw scans alone.
//! - **Stuck**: a square whose raw reading never changes while the position
//!   says otherwise for a long time (a reed welded shut, a dead sensor). Only
//!   the caller knows what the board should show, and when that is a fair
//!   expectation (not while a player holds a piece in the air), so it passes
//!   the expected occupancy in with [`Health::set_expected`].
//!
//! Each fault is reported once, then again only after it has cleared.
use std::fmt;

use shakmaty::{Bitboard, Square};

use crate::Millis;

/// How a square's sensor looks broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// The raw reading toggles too often to be hands.
    Chatter,
    /// The raw reading has not changed for a long time, contrary to the
    /// expected occupancy.
    Stuck,
}

impl FaultKind {
    /// The `kind` of the `sensor_fault` event (`../shared/spec/events.md`).
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Chatter => "chattering",
            FaultKind::Stuck => "stuck",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A square whose sensor looks broken, found at `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensorFault {
    pub t: Millis,
    pub square: Square,
    pub kind: FaultKind,
}

/// Thresholds of the health checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HealthConfig {
    /// A square chatters when its raw reading toggles this many times...
    pub chatter_toggles: u16,
    /// ...within this many milliseconds.
    pub chatter_window_ms: Millis,
    /// A chattering square is well again after this long without a toggle.
    pub chatter_clear_ms: Millis,
    /// A square is stuck when its raw reading has contradicted the expected
    /// occupancy, without changing, for this long.
    pub stuck_ms: Millis,
}

impl HealthConfig {
    /// 60 toggles. In bullet an exchange on one square takes its pieces
    /// off and on four or five times a second (the captured piece, the
    /// capturing one rocking as it lands, the recapture), each bouncing up
    /// to five times: up to about 40 raw toggles in a second. A failing
    /// contact or a sensor sitting at its threshold, read at about 1 kHz,
    /// toggles hundreds of times a second.
    pub const DEFAULT_CHATTER_TOGGLES: u16 = 60;
    /// One second.
    pub(crate) const DEFAULT_CHATTER_WINDOW_MS: Millis = 1_000;
    /// Five seconds of quiet before a chattering square counts as well again,
    /// so that an intermittent fault is not reported over and over.
    pub(crate) const DEFAULT_CHATTER_CLEAR_MS: Millis = 5_000;
    /// Thirty seconds: longer than a player thinking with a hand hovering,
    /// short enough to be told before the next move goes wrong.
    pub(crate) const DEFAULT_STUCK_MS: Millis = 30_000;
}

impl Default for HealthConfig {
    fn default() -> Self {
        HealthConfig {
            chatter_toggles: Self::DEFAULT_CHATTER_TOGGLES,
            chatter_window_ms: Self::DEFAULT_CHATTER_WINDOW_MS,
            chatter_clear_ms: Self::DEFAULT_CHATTER_CLEAR_MS,
            stuck_ms: Self::DEFAULT_STUCK_MS,
        }
    }
}

/// The health checks of all 64 squares, fed with raw occupancy.
#[derive(Debug, Clone)]
pub struct Health {
    config: HealthConfig,
    /// Ring length: `chatter_toggles`, at least 2.
    ring_len: usize,
    raw: u64,
    now: Millis,
    /// The latest `ring_len` toggle times of each square, square after square.
    toggles: Vec<Millis>,
    /// Per square: where the next toggle time goes in its ring.
    next: [u16; 64],
    /// Per square: how many toggle times its ring holds (up to `ring_len`).
    held: [u16; 64],
    chattering: u64,
    expected: Option<u64>,
    /// Squares whose raw reading contradicts the expectation.
    mismatch: u64,
    /// Per mismatching square: since when, without a raw change.
    mismatch_since: [Millis; 64],
    stuck: u64,
    /// Earliest time a mismatching square (not yet stuck) becomes stuck.
    stuck_deadline: Option<Millis>,
}

impl Health {
    /// Health checks starting from the raw occupancy `initial`.
    pub fn new(config: HealthConfig, initial: Bitboard) -> Health {
        let ring_len = usize::from(config.chatter_toggles.max(2));
        Health {
            config,
            ring_len,
            raw: initial.0,
            now: 0,
            toggles: vec![0; 64 * ring_len],
            next: [0; 64],
            held: [0; 64],
            chattering: 0,
            expected: None,
            mismatch: 0,
            mismatch_since: [0; 64],
            stuck: 0,
            stuck_deadline: None,
        }
    }

    /// The thresholds in use.
    pub fn config(&self) -> HealthConfig {
        self.config
    }

    /// Squares now reported as chattering.
    pub fn chattering(&self) -> Bitboard {
        Bitboard(self.chattering)
    }

    /// Squares now reported as stuck.
    pub fn stuck(&self) -> Bitboard {
        Bitboard(self.stuck)
    }

    /// One raw occupancy scan at `t`; appends newly found faults to `out`.
    #[inline]
    pub fn observe(&mut self, t: Millis, raw: Bitboard, out: &mut Vec<SensorFault>) {
        let t = self.observe_time(t);
        let toggled = raw.0 ^ self.raw;
        if toggled != 0 {
            self.raw = raw.0;
            self.record_toggles(t, toggled, out);
            self.update_mismatch(t, toggled);
        }
        self.check_time(t, out);
    }

    /// Time reached `t` without a scan.
    #[inline]
    pub fn advance(&mut self, t: Millis, out: &mut Vec<SensorFault>) {
        let t = self.observe_time(t);
        self.check_time(t, out);
    }

    /// What the board should show from `t` on, or `None` when the caller
    /// has no fair expectation (a move in progress). A square whose raw
    /// reading then contradicts the expectation without changing for
    /// `stuck_ms` is reported stuck. A stuck square clears when its reading
    /// changes or the expectation comes to agree with it; withdrawing the
    /// expectation stops the timing but clears nothing.
    pub fn set_expected(
        &mut self,
        t: Millis,
        expected: Option<Bitboard>,
        out: &mut Vec<SensorFault>,
    ) {
        let t = self.observe_time(t);
        let expected = expected.map(|bb| bb.0);
        if expected != self.expected {
            let before = self.mismatch;
            self.expected = expected;
            let mismatch = expected.map_or(0, |e| e ^ self.raw);
            // Agreement clears a stuck square; a withdrawn expectation does not.
            if let Some(e) = expected {
                self.stuck &= e ^ self.raw;
            }
            for sq in Bitboard(mismatch & !before) {
                self.mismatch_since[sq as usize] = t;
            }
            self.mismatch = mismatch;
            self.recompute_stuck_deadline();
        }
        self.check_time(t, out);
    }

    /// When a fault will next be found if nothing changes.
    pub fn next_deadline(&self) -> Option<Millis> {
        self.stuck_deadline
    }

    #[inline]
    fn observe_time(&mut self, t: Millis) -> Millis {
        self.now = self.now.max(t);
        self.now
    }

    #[inline]
    fn check_time(&mut self, t: Millis, out: &mut Vec<SensorFault>) {
        if self.chattering != 0 {
            self.clear_quiet(t);
        }
        if self.stuck_deadline.is_some_and(|d| d <= t) {
            self.find_stuck(t, out);
        }
    }

    #[cold]
    fn record_toggles(&mut self, t: Millis, toggled: u64, out: &mut Vec<SensorFault>) {
        let n = self.ring_len;
        for sq in Bitboard(toggled) {
            let i = sq as usize;
            let ring = &mut self.toggles[i * n..(i + 1) * n];
            let slot = usize::from(self.next[i]);
            ring[slot] = t;
            let next = (slot + 1) % n;
            self.next[i] = next as u16;
            self.held[i] = (self.held[i] + 1).min(n as u16);
            // With the ring full, `next` is the oldest of the last n toggles.
            let bit = 1u64 << i;
            if usize::from(self.held[i]) == n
                && t.saturating_sub(ring[next]) <= self.config.chatter_window_ms
                && self.chattering & bit == 0
            {
                self.chattering |= bit;
                out.push(SensorFault {
                    t,
                    square: sq,
                    kind: FaultKind::Chatter,
                });
            }
        }
    }

    #[cold]
    fn clear_quiet(&mut self, t: Millis) {
        let n = self.ring_len;
        for sq in Bitboard(self.chattering) {
            let i = sq as usize;
            let last = (usize::from(self.next[i]) + n - 1) % n;
            if t.saturating_sub(self.toggles[i * n + last]) >= self.config.chatter_clear_ms {
                self.chattering &= !(1u64 << i);
            }
        }
    }

    /// A raw change ends a square's run of contradicting the expectation
    /// (and its stuck fault), and may start a new one.
    #[cold]
    fn update_mismatch(&mut self, t: Millis, toggled: u64) {
        self.stuck &= !toggled;
        let Some(expected) = self.expected else {
            return;
        };
        let mismatch = expected ^ self.raw;
        for sq in Bitboard(mismatch & toggled) {
            self.mismatch_since[sq as usize] = t;
        }
        self.mismatch = mismatch;
        self.recompute_stuck_deadline();
    }

    fn recompute_stuck_deadline(&mut self) {
        self.stuck_deadline = Bitboard(self.mismatch & !self.stuck)
            .into_iter()
            .map(|sq| self.mismatch_since[sq as usize])
            .min()
            .map(|since| since.saturating_add(self.config.stuck_ms));
    }

    #[cold]
    fn find_stuck(&mut self, t: Millis, out: &mut Vec<SensorFault>) {
        for sq in Bitboard(self.mismatch & !self.stuck) {
            if self.mismatch_since[sq as usize].saturating_add(self.config.stuck_ms) <= t {
                self.stuck |= 1u64 << sq as u32;
                out.push(SensorFault {
                    t,
                    square: sq,
                    kind: FaultKind::Stuck,
                });
            }
        }
        self.recompute_stuck_deadline();
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use shakmaty::Square::*;

    use super::*;

    const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);

    fn fault(t: Millis, square: Square, kind: FaultKind) -> SensorFault {
        SensorFault { t, square, kind }
    }

    #[test]
    fn a_chattering_square_is_reported_once_until_it_clears() {
        let config = HealthConfig::default();
        let mut h = Health::new(config, START);
        let mut out = Vec::new();
        let mut raw = START;
        // e4 flips every 2 ms for two seconds.
        let mut t = 1000;
        while t < 3000 {
            raw.toggle(E4);
            h.observe(t, raw, &mut out);
            t += 2;
        }
        let found_at = 1000 + 2 * (Millis::from(config.chatter_toggles) - 1);
        assert_eq!(out, vec![fault(found_at, E4, FaultKind::Chatter)]);
        assert_eq!(h.chattering(), Bitboard::from_square(E4));
        // Quiet, but not long enough: still chattering, nothing new.
        h.advance(t + config.chatter_clear_ms - 10, &mut out);
        assert_eq!(h.chattering(), Bitboard::from_square(E4));
        h.advance(t + config.chatter_clear_ms, &mut out);
        assert_eq!(h.chattering(), Bitboard::EMPTY);
        assert_eq!(out.len(), 1);
        // It starts again: reported again.
        let mut t = t + config.chatter_clear_ms + 1;
        for _ in 0..config.chatter_toggles {
            raw.toggle(E4);
            h.observe(t, raw, &mut out);
            t += 3;
        }
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].kind, FaultKind::Chatter);
    }

    #[test]
    fn chatter_needs_the_toggles_within_the_window() {
        let config = HealthConfig {
            chatter_toggles: 5,
            chatter_window_ms: 100,
            ..HealthConfig::default()
        };
        let mut out = Vec::new();
        // Five toggles over 100 ms: chatter.
        let mut h = Health::new(config, Bitboard::EMPTY);
        let mut raw = Bitboard::EMPTY;
        for t in [0, 25, 50, 75, 100] {
            raw.toggle(A1);
            h.observe(t, raw, &mut out);
        }
        assert_eq!(out, vec![fault(100, A1, FaultKind::Chatter)]);
        // Five toggles over 104 ms, forever: never.
        out.clear();
        let mut h = Health::new(config, Bitboard::EMPTY);
        for i in 0..200 {
            raw.toggle(H8);
            h.observe(i * 26, raw, &mut out);
        }
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn hands_moving_pieces_with_bouncing_contacts_are_not_chatter() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut h = Health::new(HealthConfig::default(), START);
        let mut out = Vec::new();
        let mut raw = START;
        // Busy hands on d4: three lifts or placements a second, each
        // bouncing up to three times, for a minute.
        let mut t = 0;
        while t < 60_000 {
            let bounces = rng.random_range(0..=3);
            for i in 0..(2 * bounces + 1) {
                if i > 0 {
                    t += rng.random_range(1..=2);
                }
                raw.toggle(D4);
                h.observe(t, raw, &mut out);
            }
            t += 333;
        }
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn a_square_contradicting_the_expectation_without_changing_is_stuck() {
        let config = HealthConfig::default();
        let mut h = Health::new(config, START);
        let mut out = Vec::new();
        // After 1. e4 the position has a piece on e4 and none on e2; the e4
        // reed never closes, the e2 pawn really left.
        let raw = START.without(E2);
        h.observe(1000, raw, &mut out);
        h.set_expected(1500, Some(START.without(E2).with(E4)), &mut out);
        assert_eq!(h.next_deadline(), Some(1500 + config.stuck_ms));
        h.advance(1500 + config.stuck_ms - 1, &mut out);
        assert!(out.is_empty());
        h.advance(1500 + config.stuck_ms, &mut out);
        assert_eq!(
            out,
            vec![fault(1500 + config.stuck_ms, E4, FaultKind::Stuck)]
        );
        assert_eq!(h.next_deadline(), None);
        // Reported once.
        h.advance(1_000_000, &mut out);
        h.observe(1_000_001, raw, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(h.stuck(), Bitboard::from_square(E4));
        // The reed closes at last: it works, the fault clears.
        h.observe(1_000_002, raw.with(E4), &mut out);
        assert_eq!(h.stuck(), Bitboard::EMPTY);
        assert_eq!(h.next_deadline(), None);
    }

    #[test]
    fn a_square_that_keeps_changing_is_not_stuck() {
        let config = HealthConfig::default();
        let mut h = Health::new(config, START);
        let mut out = Vec::new();
        h.set_expected(0, Some(START), &mut out);
        // A player keeps lifting and replacing e2 every 20 s: each change
        // restarts the count.
        let mut raw = START;
        for i in 1..10 {
            raw.toggle(E2);
            h.observe(i * 20_000, raw, &mut out);
        }
        h.advance(9 * 20_000 + config.stuck_ms - 1, &mut out);
        assert!(out.is_empty(), "{out:?}");
        h.advance(9 * 20_000 + config.stuck_ms, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn without_an_expectation_nothing_is_stuck_and_nothing_clears() {
        let config = HealthConfig::default();
        let mut h = Health::new(config, START);
        let mut out = Vec::new();
        h.set_expected(0, Some(START.with(E4)), &mut out);
        h.advance(config.stuck_ms, &mut out);
        assert_eq!(h.stuck(), Bitboard::from_square(E4));
        // A move in progress: no expectation. The fault stays, no timing.
        h.set_expected(config.stuck_ms + 1, None, &mut out);
        assert_eq!(h.next_deadline(), None);
        assert_eq!(h.stuck(), Bitboard::from_square(E4));
        h.set_expected(config.stuck_ms + 2, Some(START.with(D4)), &mut out);
        // The new expectation agrees about e4: cleared; d4 is timed afresh.
        assert_eq!(h.stuck(), Bitboard::EMPTY);
        assert_eq!(h.next_deadline(), Some(2 * config.stuck_ms + 2));
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn fault_kinds_name_the_event_kinds() {
        assert_eq!(FaultKind::Chatter.as_str(), "chattering");
        assert_eq!(FaultKind::Stuck.to_string(), "stuck");
    }
}
