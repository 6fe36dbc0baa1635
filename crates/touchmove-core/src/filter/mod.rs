//! From raw scans to settled per-square changes: debounce, and for Hall
//! boards per-square thresholds with hysteresis from a calibration profile.
//!
//! [`Filter`] is the step's front: it takes raw [`Scan`]s, turns analog
//! scans into pieces through a [`Classify`], debounces every square
//! ([`debounce`]) and watches the sensors' health ([`health`]).
pub mod analog;
pub mod debounce;
pub mod health;
pub mod scan_period;

use shakmaty::{Bitboard, Color, Square};

pub use debounce::{Debounce, DebounceConfig};
pub use health::{FaultKind, Health, HealthConfig, SensorFault};
pub use scan_period::ScanPeriod;

use crate::Millis;
use crate::scan::{Scan, Snapshot};

/// What happened on one square, once it has held for the stable window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SquareChange {
    /// The square became empty.
    Lifted,
    /// A piece now stands on the square; its colour where the board can tell.
    Placed(Option<Color>),
}

/// A settled change of one square. `t` is when the change was *concluded*
/// (the stable window after the raw change), `since` when it was first seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettledChange {
    pub t: Millis,
    pub since: Millis,
    pub square: Square,
    pub change: SquareChange,
}

/// Turns one raw analog scan of a Hall board into what stands where.
/// Implemented by the calibrated per-square thresholds (with hysteresis, so
/// the classifier keeps state between scans).
pub trait Classify {
    fn classify(&mut self, values: &[i32; 64]) -> crate::scan::Snapshot;

    /// Whether the snapshots tell white from black. When not, every occupied
    /// square is reported in `Snapshot::white`.
    fn tells_colour(&self) -> bool {
        true
    }
}

/// Settings of the filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FilterConfig {
    pub debounce: DebounceConfig,
    pub health: HealthConfig,
}

/// Why a scan could not be filtered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// An analog scan arrived, but no calibration says what its levels mean.
    #[error("an analog (hall) scan needs a calibration profile to be read")]
    Uncalibrated,
}

/// The debounced state of the board once the first scan has arrived.
#[derive(Debug, Clone)]
struct Started {
    debounce: Debounce,
    health: Health,
}

/// From raw scans to settled per-square changes and sensor faults.
///
/// The first scan is taken as the settled state and produces no changes;
/// every later change of a square is reported once it has held for the
/// stable window. With a classifier, analog scans are read through it and
/// placements carry the piece's colour.
pub struct Filter {
    config: FilterConfig,
    classifier: Option<Box<dyn Classify>>,
    state: Option<Started>,
    /// An expectation given before the first scan.
    expected: Option<Bitboard>,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter")
            .field("config", &self.config)
            .field("classifier", &self.classifier.is_some())
            .field("state", &self.state)
            .finish()
    }
}

impl Filter {
    /// A filter for an occupancy board (`classifier: None`) or a Hall board
    /// read through its calibration.
    pub fn new(config: FilterConfig, classifier: Option<Box<dyn Classify>>) -> Filter {
        Filter {
            config,
            classifier,
            state: None,
            expected: None,
        }
    }

    /// The settings in use.
    pub fn config(&self) -> FilterConfig {
        self.config
    }

    /// Whether a first scan has arrived.
    pub fn is_started(&self) -> bool {
        self.state.is_some()
    }

    /// The settled occupancy (empty before the first scan).
    pub fn settled(&self) -> Bitboard {
        self.state
            .as_ref()
            .map_or(Bitboard::EMPTY, |s| s.debounce.settled())
    }

    /// The settled pieces by colour, when the board tells colours.
    pub(crate) fn settled_colours(&self) -> Option<Snapshot> {
        self.state.as_ref()?.debounce.settled_colours()
    }

    /// The board's scan period as the readings show it (0: none shown).
    pub fn scan_period(&self) -> Millis {
        self.state.as_ref().map_or(0, |s| s.debounce.scan_period())
    }

    /// What the readings so far tell of the scan period (nothing before
    /// the first reading).
    pub fn scan_period_seen(&self) -> ScanPeriod {
        self.state
            .as_ref()
            .map_or_else(ScanPeriod::default, |s| s.debounce.scan_period_seen())
    }

    /// The occupancy of the latest scan, unfiltered.
    pub fn raw(&self) -> Bitboard {
        self.state
            .as_ref()
            .map_or(Bitboard::EMPTY, |s| s.debounce.raw())
    }

    /// One raw scan at `t`. Appends the changes concluded by `t` to
    /// `changes` (time order, ties in square order) and newly found faults
    /// to `faults`. Times must not decrease.
    pub fn scan(
        &mut self,
        t: Millis,
        scan: &Scan,
        changes: &mut Vec<SettledChange>,
        faults: &mut Vec<SensorFault>,
    ) -> Result<(), FilterError> {
        match scan {
            Scan::Occupancy(occupied) => {
                let occupied = *occupied;
                match &mut self.state {
                    Some(s) => {
                        s.debounce.scan(t, occupied, changes);
                        s.health.observe(t, occupied, faults);
                    }
                    None => {
                        let debounce = match self.classifier {
                            Some(_) => Debounce::with_colours(
                                self.config.debounce,
                                Snapshot {
                                    white: occupied,
                                    black: occupied,
                                },
                            ),
                            None => Debounce::new(self.config.debounce, occupied),
                        };
                        self.start(t, debounce, occupied);
                    }
                }
            }
            Scan::Analog(values) => {
                let classifier = self.classifier.as_mut().ok_or(FilterError::Uncalibrated)?;
                let snapshot = classifier.classify(values);
                if !classifier.tells_colour() {
                    // Occupancy only: every occupied square is in `white`.
                    let occupied = Scan::Occupancy(snapshot.occupied());
                    return self.scan(t, &occupied, changes, faults);
                }
                match &mut self.state {
                    Some(s) => {
                        s.debounce.scan_colours(t, snapshot, changes);
                        s.health.observe(t, snapshot.occupied(), faults);
                    }
                    None => {
                        let debounce = Debounce::with_colours(self.config.debounce, snapshot);
                        self.start(t, debounce, snapshot.occupied());
                    }
                }
            }
        }
        Ok(())
    }

    fn start(&mut self, t: Millis, mut debounce: Debounce, occupied: Bitboard) {
        let mut health = Health::new(self.config.health, occupied);
        // Anchor both clocks at the first scan.
        debounce.advance(t, &mut Vec::new());
        health.set_expected(t, self.expected.take(), &mut Vec::new());
        self.state = Some(Started { debounce, health });
    }

    /// Time reached `t` without a scan: concludes what is due.
    pub fn advance(
        &mut self,
        t: Millis,
        changes: &mut Vec<SettledChange>,
        faults: &mut Vec<SensorFault>,
    ) {
        if let Some(s) = &mut self.state {
            s.debounce.advance(t, changes);
            s.health.advance(t, faults);
        }
    }

    /// What the board should show from `t` on, for the stuck-sensor check
    /// ([`Health::set_expected`]); `None` while no fair expectation exists.
    pub fn set_expected(
        &mut self,
        t: Millis,
        expected: Option<Bitboard>,
        faults: &mut Vec<SensorFault>,
    ) {
        match &mut self.state {
            Some(s) => s.health.set_expected(t, expected, faults),
            None => self.expected = expected,
        }
    }

    /// When the filter next needs [`Filter::advance`] if no scan comes.
    pub fn next_deadline(&self) -> Option<Millis> {
        let s = self.state.as_ref()?;
        match (s.debounce.next_deadline(), s.health.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Square::*;

    use super::*;

    const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);
    const W: Millis = DebounceConfig::DEFAULT_STABLE_MS;

    /// Positive levels are white magnets, negative black, near zero empty.
    struct Threshold;

    impl Classify for Threshold {
        fn classify(&mut self, values: &[i32; 64]) -> Snapshot {
            let mut s = Snapshot::default();
            for (sq, &v) in Square::ALL.iter().zip(values) {
                if v > 100 {
                    s.white.add(*sq);
                } else if v < -100 {
                    s.black.add(*sq);
                }
            }
            s
        }
    }

    fn levels(snapshot: Snapshot) -> Scan {
        Scan::Analog(Box::new(std::array::from_fn(|i| {
            let sq = Square::new(i as u32);
            if snapshot.white.contains(sq) {
                900
            } else if snapshot.black.contains(sq) {
                -900
            } else {
                3
            }
        })))
    }

    #[test]
    fn the_first_scan_is_the_settled_state_and_later_changes_are_debounced() {
        let mut f = Filter::new(FilterConfig::default(), None);
        let (mut changes, mut faults) = (Vec::new(), Vec::new());
        assert!(!f.is_started());
        assert_eq!(f.next_deadline(), None);
        f.scan(500, &Scan::Occupancy(START), &mut changes, &mut faults)
            .unwrap();
        assert!(changes.is_empty());
        assert_eq!(f.settled(), START);
        f.scan(
            600,
            &Scan::Occupancy(START.without(G1)),
            &mut changes,
            &mut faults,
        )
        .unwrap();
        assert_eq!(f.next_deadline(), Some(600 + W));
        f.advance(600 + W, &mut changes, &mut faults);
        assert_eq!(
            changes,
            vec![SettledChange {
                t: 600 + W,
                since: 600,
                square: G1,
                change: SquareChange::Lifted
            }]
        );
        assert!(faults.is_empty());
        assert_eq!(f.settled_colours(), None);
    }

    #[test]
    fn analog_scans_go_through_the_classifier_and_carry_colours() {
        let mut f = Filter::new(FilterConfig::default(), Some(Box::new(Threshold)));
        let (mut changes, mut faults) = (Vec::new(), Vec::new());
        let start = Snapshot::of_board(&shakmaty::Board::default());
        f.scan(0, &levels(start), &mut changes, &mut faults)
            .unwrap();
        let mut moved = start;
        moved.black.discard(G8);
        moved.black.add(F6);
        f.scan(10, &levels(moved), &mut changes, &mut faults)
            .unwrap();
        f.advance(100, &mut changes, &mut faults);
        let kinds: Vec<_> = changes.iter().map(|c| (c.square, c.change)).collect();
        assert_eq!(
            kinds,
            vec![
                (F6, SquareChange::Placed(Some(Color::Black))),
                (G8, SquareChange::Lifted)
            ]
        );
        assert_eq!(f.settled_colours(), Some(moved));
    }

    #[test]
    fn an_analog_scan_without_calibration_is_an_error() {
        let mut f = Filter::new(FilterConfig::default(), None);
        let err = f
            .scan(
                0,
                &levels(Snapshot::default()),
                &mut Vec::new(),
                &mut Vec::new(),
            )
            .unwrap_err();
        assert_eq!(err, FilterError::Uncalibrated);
        assert!(!f.is_started());
    }

    #[test]
    fn faults_come_out_beside_changes() {
        let config = FilterConfig::default();
        let mut f = Filter::new(config, None);
        let (mut changes, mut faults) = (Vec::new(), Vec::new());
        // Expected before the first scan: a piece on e4 that is not there.
        f.set_expected(0, Some(START.with(E4)), &mut faults);
        f.scan(0, &Scan::Occupancy(START), &mut changes, &mut faults)
            .unwrap();
        assert_eq!(f.next_deadline(), Some(config.health.stuck_ms));
        // h3 chatters every millisecond for a second.
        let mut raw = START;
        for t in 1..1000 {
            raw.toggle(H3);
            f.scan(t, &Scan::Occupancy(raw), &mut changes, &mut faults)
                .unwrap();
        }
        assert!(changes.is_empty(), "{changes:?}");
        f.advance(config.health.stuck_ms, &mut changes, &mut faults);
        let found: Vec<_> = faults.iter().map(|f| (f.square, f.kind)).collect();
        assert_eq!(
            found,
            vec![(H3, FaultKind::Chatter), (E4, FaultKind::Stuck)]
        );
        // h3 has been quiet for far longer than the chatter clearing time,
        // in its last state: a piece stands there.
        let health = &f.state.as_ref().unwrap().health;
        assert_eq!(
            health.chattering() | health.stuck(),
            Bitboard::from_square(E4)
        );
        assert_eq!(changes.len(), 1);
        assert_eq!((changes[0].square, changes[0].since), (H3, 999));
    }
}
