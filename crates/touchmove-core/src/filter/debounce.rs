//! Per-square debounce in time: a square's raw change counts once it has
//! held, unchanged, for the stable window.
//!
//! Time is passed in. A scan's state holds until the next scan
//! (`../shared/spec/trace-format.md`), so a change first seen at `since`
//! is concluded at `since + stable_ms` if no scan up to and including that
//! instant contradicted it: either by the first scan at or after that
//! instant, or by [`Debounce::advance`] when time passes without scans.
//! A change that reverts within the window is dropped entirely; a square
//! that changes again to a third state (a Hall board seeing a white piece
//! replaced by a black one) restarts its window.
//!
//! The state is kept as bitboards, so an unchanged scan costs a couple of
//! 64-bit operations whatever the number of squares; only squares whose raw
//! state differs from the settled one are visited one by one.
use shakmaty::{Bitboard, Color, Square};

use super::scan_period::ScanPeriod;
use super::{SettledChange, SquareChange};
use crate::Millis;
use crate::scan::Snapshot;

/// Settings of the debounce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebounceConfig {
    /// How long a square's new raw state must hold before it counts (ms).
    /// Every settled change is reported exactly this late.
    pub stable_ms: Millis,
}

impl DebounceConfig {
    /// 8 ms. Reed contacts bounce for well under 1 ms, but a piece set down
    /// rocks on its base, and a magnet brought in at an angle crosses the
    /// switching threshold more than once: traces show toggles 2 ms apart
    /// (the format's own example), and electrical interference gives blips
    /// of a scan or two. At the usual scan rate of about 1 kHz, 8 ms is eight
    /// scans agreeing, which removes all of these. The window is added to
    /// every lift and every placement, so it stays short: the longer blips
    /// of a magnet slid across a square (tens of ms) are real occupancy, and
    /// telling them from moves is the inference's job (Article 4.6, the
    /// release of a piece), not the filter's. The window must exceed the
    /// scan period of slow boards; set it per board profile when it does not.
    pub const DEFAULT_STABLE_MS: Millis = 8;
}

impl Default for DebounceConfig {
    fn default() -> Self {
        DebounceConfig {
            stable_ms: Self::DEFAULT_STABLE_MS,
        }
    }
}

/// The debounce of all 64 squares.
///
/// Each square's state is one of: empty, occupied by a piece of unknown
/// colour, occupied by a white piece, occupied by a black one. It is kept in
/// two planes: a square is in `light` when a white (or unknown) piece stands
/// on it and in `dark` when a black (or unknown) one does; without colours
/// every occupied square is in `light` alone.
#[derive(Debug, Clone)]
pub struct Debounce {
    stable_ms: Millis,
    colours: bool,
    settled_light: u64,
    settled_dark: u64,
    raw_light: u64,
    raw_dark: u64,
    /// Squares whose raw state differs from the settled one.
    pending: u64,
    /// For each pending square, when its current raw state began.
    since: [Millis; 64],
    /// The earliest `since + stable_ms` over the pending squares (valid
    /// when `pending != 0`).
    deadline: Millis,
    /// The latest time seen.
    now: Millis,
    /// The scan period the readings show (for the inference: how late a
    /// reading may show a change; the window stays `stable_ms`, as the
    /// inference reads single-scan changes of a slow board itself).
    period: ScanPeriod,
}

impl Debounce {
    /// A debounce for a board that reports occupancy only; `initial` is
    /// taken as settled (it produces no changes).
    pub fn new(config: DebounceConfig, initial: Bitboard) -> Debounce {
        Debounce::from_planes(config, false, initial.0, 0)
    }

    /// A debounce for a board that tells colours (a calibrated Hall board);
    /// `initial` is taken as settled. A square in both colours of a snapshot
    /// holds a piece of unknown colour.
    pub(crate) fn with_colours(config: DebounceConfig, initial: Snapshot) -> Debounce {
        Debounce::from_planes(config, true, initial.white.0, initial.black.0)
    }

    fn from_planes(config: DebounceConfig, colours: bool, light: u64, dark: u64) -> Debounce {
        Debounce {
            stable_ms: config.stable_ms,
            colours,
            settled_light: light,
            settled_dark: dark,
            raw_light: light,
            raw_dark: dark,
            pending: 0,
            since: [0; 64],
            deadline: 0,
            now: 0,
            period: ScanPeriod::default(),
        }
    }

    /// The settings in use.
    pub fn config(&self) -> DebounceConfig {
        DebounceConfig {
            stable_ms: self.stable_ms,
        }
    }

    /// One occupancy scan at `t`: appends to `out`, in time order (ties in
    /// square order), every change concluded by `t`. Times must not
    /// decrease; an earlier time is taken as the latest time seen.
    ///
    /// On a board with colours, a square occupied before and after keeps its
    /// colour, and a newly occupied one holds a piece of unknown colour.
    #[inline]
    pub fn scan(&mut self, t: Millis, occupied: Bitboard, out: &mut Vec<SettledChange>) {
        let occ = occupied.0;
        if self.colours {
            let was = self.raw_light | self.raw_dark;
            let unknown = occ & !was;
            let light = (self.raw_light & occ) | unknown;
            let dark = (self.raw_dark & occ) | unknown;
            self.scan_planes(t, light, dark, out);
        } else {
            self.scan_planes(t, occ, 0, out);
        }
    }

    /// One scan that tells colours (from a [`super::Classify`]) at `t`. On a
    /// board without colours only the occupancy is used.
    #[inline]
    pub(crate) fn scan_colours(
        &mut self,
        t: Millis,
        snapshot: Snapshot,
        out: &mut Vec<SettledChange>,
    ) {
        if self.colours {
            self.scan_planes(t, snapshot.white.0, snapshot.black.0, out);
        } else {
            self.scan_planes(t, snapshot.occupied().0, 0, out);
        }
    }

    /// Time reached `t` without a scan: concludes the changes whose window
    /// has passed.
    #[inline]
    pub fn advance(&mut self, t: Millis, out: &mut Vec<SettledChange>) {
        let t = self.observe_time(t);
        if self.pending != 0 && self.deadline <= t {
            self.conclude(t, out);
        }
    }

    /// When a change will next be concluded if no scan contradicts it.
    pub fn next_deadline(&self) -> Option<Millis> {
        (self.pending != 0).then_some(self.deadline)
    }

    /// The settled occupancy.
    pub fn settled(&self) -> Bitboard {
        Bitboard(self.settled_light | self.settled_dark)
    }

    /// The settled pieces by colour, on a board that tells colours. A piece
    /// of unknown colour is in both.
    pub(crate) fn settled_colours(&self) -> Option<Snapshot> {
        self.colours.then_some(Snapshot {
            white: Bitboard(self.settled_light),
            black: Bitboard(self.settled_dark),
        })
    }

    /// The board's scan period as the readings show it (0: none shown).
    pub fn scan_period(&self) -> Millis {
        self.period.period()
    }

    /// What the readings so far tell of the scan period.
    pub fn scan_period_seen(&self) -> ScanPeriod {
        self.period
    }

    /// The occupancy of the latest scan.
    pub fn raw(&self) -> Bitboard {
        Bitboard(self.raw_light | self.raw_dark)
    }

    /// The squares whose latest scan differs from the settled state: changes
    /// still inside their window.
    pub fn pending(&self) -> Bitboard {
        Bitboard(self.pending)
    }

    #[inline]
    fn observe_time(&mut self, t: Millis) -> Millis {
        self.now = self.now.max(t);
        self.now
    }

    #[inline]
    fn scan_planes(&mut self, t: Millis, light: u64, dark: u64, out: &mut Vec<SettledChange>) {
        let t = self.observe_time(t);
        self.period.observe(t);
        // The previous scan's state held until now.
        if self.pending != 0 && self.deadline <= t {
            self.conclude(t, out);
        }
        let changed = (light ^ self.raw_light) | (dark ^ self.raw_dark);
        if changed == 0 {
            return;
        }
        self.apply(t, light, dark, changed);
        // Only a zero-length window concludes a change the instant it is seen.
        if self.pending != 0 && self.deadline <= t {
            self.conclude(t, out);
        }
    }

    #[cold]
    fn apply(&mut self, t: Millis, light: u64, dark: u64, changed: u64) {
        self.raw_light = light;
        self.raw_dark = dark;
        let pending = (light ^ self.settled_light) | (dark ^ self.settled_dark);
        // A square that reverted to its settled state is dropped; one that
        // changed to a new unsettled state starts its window now.
        for sq in Bitboard(pending & changed) {
            self.since[sq as usize] = t;
        }
        self.pending = pending;
        self.recompute_deadline();
    }

    fn recompute_deadline(&mut self) {
        let earliest = Bitboard(self.pending)
            .into_iter()
            .map(|sq| self.since[sq as usize])
            .min();
        if let Some(since) = earliest {
            self.deadline = since.saturating_add(self.stable_ms);
        }
    }

    /// Settles every pending square whose window has passed by `t`, in time
    /// order, ties in square order.
    #[cold]
    fn conclude(&mut self, t: Millis, out: &mut Vec<SettledChange>) {
        let mut due = 0u64;
        for sq in Bitboard(self.pending) {
            if self.since[sq as usize].saturating_add(self.stable_ms) <= t {
                due |= 1 << sq as u32;
            }
        }
        self.pending &= !due;
        while due != 0 {
            let Some(since) = Bitboard(due)
                .into_iter()
                .map(|sq| self.since[sq as usize])
                .min()
            else {
                break;
            };
            for sq in Bitboard(due) {
                if self.since[sq as usize] == since {
                    due &= !(1 << sq as u32);
                    self.settle(sq, since, out);
                }
            }
        }
        self.recompute_deadline();
    }

    fn settle(&mut self, sq: Square, since: Millis, out: &mut Vec<SettledChange>) {
        let bit = 1u64 << sq as u32;
        let was_occupied = (self.settled_light | self.settled_dark) & bit != 0;
        let now_occupied = (self.raw_light | self.raw_dark) & bit != 0;
        let t = since.saturating_add(self.stable_ms);
        let mut emit = |change| {
            out.push(SettledChange {
                t,
                since,
                square: sq,
                change,
            })
        };
        if was_occupied {
            // Also when one piece was exchanged for another of the other
            // colour without the square being seen empty.
            emit(SquareChange::Lifted);
        }
        if now_occupied {
            let colour = if !self.colours {
                None
            } else {
                match (self.raw_light & bit != 0, self.raw_dark & bit != 0) {
                    (true, false) => Some(Color::White),
                    (false, true) => Some(Color::Black),
                    _ => None,
                }
            };
            emit(SquareChange::Placed(colour));
        }
        self.settled_light = (self.settled_light & !bit) | (self.raw_light & bit);
        self.settled_dark = (self.settled_dark & !bit) | (self.raw_dark & bit);
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use shakmaty::Square::*;

    use super::*;

    const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);
    const W: Millis = DebounceConfig::DEFAULT_STABLE_MS;

    fn change(t: Millis, since: Millis, square: Square, change: SquareChange) -> SettledChange {
        SettledChange {
            t,
            since,
            square,
            change,
        }
    }

    /// Feeds `(t, occupancy)` scans, then lets time run to `end`.
    fn run(d: &mut Debounce, scans: &[(Millis, Bitboard)], end: Millis) -> Vec<SettledChange> {
        let mut out = Vec::new();
        for &(t, occ) in scans {
            d.scan(t, occ, &mut out);
        }
        d.advance(end, &mut out);
        out
    }

    #[test]
    fn a_lift_is_reported_exactly_one_window_late() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let lifted = START.without(E2);
        let mut out = Vec::new();
        for t in 0..100 {
            d.scan(t, if t >= 40 { lifted } else { START }, &mut out);
            if t < 40 + W {
                assert!(out.is_empty(), "reported early at {t}");
            }
        }
        assert_eq!(out, vec![change(40 + W, 40, E2, SquareChange::Lifted)]);
        assert_eq!(d.settled(), lifted);
        assert_eq!(d.next_deadline(), None);
    }

    #[test]
    fn the_spec_example_bounce_gives_one_lift_and_one_placement() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let scans = [
            (0, START),
            (1200, Bitboard(0xFFFF_0000_0000_EFFF)),
            (1202, START),
            (1204, Bitboard(0xFFFF_0000_0000_EFFF)),
            (1650, Bitboard(0xFFFF_0000_1000_EFFF)),
            (1651, Bitboard(0xFFFF_0000_0000_EFFF)),
            (1653, Bitboard(0xFFFF_0000_1000_EFFF)),
        ];
        let out = run(&mut d, &scans, 5000);
        assert_eq!(
            out,
            vec![
                change(1204 + W, 1204, E2, SquareChange::Lifted),
                change(1653 + W, 1653, E4, SquareChange::Placed(None)),
            ]
        );
        assert_eq!(d.settled(), Bitboard(0xFFFF_0000_1000_EFFF));
    }

    #[test]
    fn a_change_reverted_within_the_window_is_dropped_entirely() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let out = run(&mut d, &[(10, START.with(E4)), (10 + W - 1, START)], 1000);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.settled(), START);
        assert_eq!(d.pending(), Bitboard::EMPTY);
        assert_eq!(d.next_deadline(), None);
    }

    #[test]
    fn a_state_that_held_the_whole_window_counts_even_if_reverted_at_its_end() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let out = run(&mut d, &[(10, START.with(E4)), (10 + W, START)], 1000);
        assert_eq!(
            out,
            vec![
                change(10 + W, 10, E4, SquareChange::Placed(None)),
                // The revert is itself a change that then held.
                change(10 + 2 * W, 10 + W, E4, SquareChange::Lifted),
            ]
        );
    }

    #[test]
    fn time_passing_without_scans_concludes_at_the_deadline() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let mut out = Vec::new();
        d.scan(100, START.without(G1), &mut out);
        assert_eq!(d.next_deadline(), Some(100 + W));
        d.advance(100 + W - 1, &mut out);
        assert!(out.is_empty());
        d.advance(100 + W, &mut out);
        assert_eq!(out, vec![change(100 + W, 100, G1, SquareChange::Lifted)]);
        assert_eq!(d.next_deadline(), None);
    }

    #[test]
    fn changes_come_in_time_order_then_square_order() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let mut occ = START;
        let mut out = Vec::new();
        // h2 at 0, then a2 and e7 together at 3, then b1 at 5: all concluded
        // by one late scan.
        occ.discard(H2);
        d.scan(0, occ, &mut out);
        occ.discard(E7);
        occ.discard(A2);
        d.scan(3, occ, &mut out);
        occ.discard(B1);
        d.scan(5, occ, &mut out);
        assert_eq!(d.next_deadline(), Some(W));
        d.scan(500, occ, &mut out);
        assert_eq!(
            out,
            vec![
                change(W, 0, H2, SquareChange::Lifted),
                change(3 + W, 3, A2, SquareChange::Lifted),
                change(3 + W, 3, E7, SquareChange::Lifted),
                change(5 + W, 5, B1, SquareChange::Lifted),
            ]
        );
    }

    #[test]
    fn a_new_change_does_not_delay_an_older_one() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let mut out = Vec::new();
        d.scan(0, START.without(D2), &mut out);
        d.scan(W - 1, START.without(D2).without(D7), &mut out);
        assert_eq!(d.next_deadline(), Some(W));
        d.advance(W, &mut out);
        assert_eq!(out, vec![change(W, 0, D2, SquareChange::Lifted)]);
        assert_eq!(d.next_deadline(), Some(2 * W - 1));
    }

    #[test]
    fn colours_are_reported_and_a_direct_exchange_is_a_lift_then_a_placement() {
        let start = Snapshot::of_board(&shakmaty::Board::default());
        let mut d = Debounce::with_colours(DebounceConfig::default(), start);
        let mut out = Vec::new();
        // White lifts e2, a black piece appears on e4, and d7's black pawn is
        // replaced by a white piece without d7 being seen empty.
        let mut now = start;
        now.white.discard(E2);
        now.black.add(E4);
        now.black.discard(D7);
        now.white.add(D7);
        d.scan_colours(0, now, &mut out);
        d.advance(100, &mut out);
        assert_eq!(
            out,
            vec![
                change(W, 0, E2, SquareChange::Lifted),
                change(W, 0, E4, SquareChange::Placed(Some(Color::Black))),
                change(W, 0, D7, SquareChange::Lifted),
                change(W, 0, D7, SquareChange::Placed(Some(Color::White))),
            ]
        );
        assert_eq!(d.settled_colours(), Some(now));
    }

    #[test]
    fn occupancy_scans_on_a_colour_board_keep_known_colours() {
        let start = Snapshot::of_board(&shakmaty::Board::default());
        let mut d = Debounce::with_colours(DebounceConfig::default(), start);
        let mut out = Vec::new();
        d.scan(0, start.occupied().with(E4), &mut out);
        d.advance(100, &mut out);
        assert_eq!(out, vec![change(W, 0, E4, SquareChange::Placed(None))]);
        let settled = d.settled_colours().unwrap();
        assert_eq!(settled.white & !settled.black, start.white);
        assert_eq!(settled.black & !settled.white, start.black);
    }

    #[test]
    fn a_zero_window_passes_every_change_at_once() {
        let mut d = Debounce::new(DebounceConfig { stable_ms: 0 }, START);
        let mut out = Vec::new();
        d.scan(5, START.without(E2), &mut out);
        assert_eq!(out, vec![change(5, 5, E2, SquareChange::Lifted)]);
        d.scan(6, START, &mut out);
        assert_eq!(out[1], change(6, 6, E2, SquareChange::Placed(None)));
        assert_eq!(d.next_deadline(), None);
    }

    #[test]
    fn an_earlier_time_is_taken_as_the_latest() {
        let mut d = Debounce::new(DebounceConfig::default(), START);
        let mut out = Vec::new();
        d.scan(100, START.without(E2), &mut out);
        d.scan(50, START.without(E2).without(D2), &mut out);
        d.advance(100 + W, &mut out);
        assert_eq!(
            out,
            vec![
                change(100 + W, 100, D2, SquareChange::Lifted),
                change(100 + W, 100, E2, SquareChange::Lifted),
            ]
        );
    }

    /// Raw toggles of one square: real transitions with contact bounce, and
    /// short blips, generated from a seed. Returns the toggle times and the
    /// real transitions (the time the raw signal entered its final state).
    fn square_history(
        rng: &mut StdRng,
        initially_occupied: bool,
        end: Millis,
    ) -> (Vec<Millis>, Vec<(Millis, bool)>) {
        let mut toggles = Vec::new();
        let mut real = Vec::new();
        let mut occupied = initially_occupied;
        let mut t: Millis = rng.random_range(20..400);
        while t < end - 200 {
            if rng.random_bool(0.5) {
                // A lift or placement: an odd number of toggles, each bounce
                // state lasting 1 or 2 ms (well inside the window).
                let bounces = rng.random_range(0..4);
                for i in 0..(2 * bounces + 1) {
                    if i > 0 {
                        t += rng.random_range(1..=2);
                    }
                    toggles.push(t);
                }
                occupied = !occupied;
                real.push((t, occupied));
            } else {
                // Interference: the square flips for less than the window.
                toggles.push(t);
                t += rng.random_range(1..W);
                toggles.push(t);
            }
            // Quiet for longer than the window before anything else.
            t += rng.random_range(W + 1..600);
        }
        (toggles, real)
    }

    #[test]
    fn bounce_and_blips_are_suppressed_and_every_real_change_passes_exactly_one_window_late() {
        for seed in 0..20 {
            let mut rng = StdRng::seed_from_u64(seed);
            let end: Millis = 20_000;
            let mut histories = Vec::new();
            let mut expected = Vec::new();
            for sq in Square::ALL {
                // Every fourth square is touched at all.
                if rng.random_range(0..4) != 0 {
                    histories.push(Vec::new());
                    continue;
                }
                let (toggles, real) = square_history(&mut rng, START.contains(sq), end);
                for (since, occupied) in real {
                    let kind = if occupied {
                        SquareChange::Placed(None)
                    } else {
                        SquareChange::Lifted
                    };
                    expected.push(change(since + W, since, sq, kind));
                }
                histories.push(toggles);
            }
            expected.sort_by_key(|c| (c.t, c.square));

            // The raw board at every ms, scanned at 1 kHz.
            let mut raw_at = vec![START; end as usize];
            for (sq, toggles) in Square::ALL.into_iter().zip(&histories) {
                for &t in toggles {
                    for state in &mut raw_at[t as usize..] {
                        state.toggle(sq);
                    }
                }
            }
            let mut d = Debounce::new(DebounceConfig::default(), START);
            let mut every_scan = Vec::new();
            for (t, &occ) in raw_at.iter().enumerate() {
                d.scan(t as Millis, occ, &mut every_scan);
            }
            d.advance(end + 1000, &mut every_scan);
            assert!(!expected.is_empty());
            assert_eq!(every_scan, expected, "seed {seed}, scanning every ms");
            assert!(every_scan.iter().all(|c| c.t - c.since == W));

            // The same raw signal written as a trace writes it: changes only.
            let mut d = Debounce::new(DebounceConfig::default(), START);
            let mut changes_only = Vec::new();
            let mut last = START;
            for (t, &occ) in raw_at.iter().enumerate() {
                if occ != last {
                    d.scan(t as Millis, occ, &mut changes_only);
                    last = occ;
                }
            }
            d.advance(end + 1000, &mut changes_only);
            assert_eq!(changes_only, expected, "seed {seed}, changes only");
        }
    }
}
