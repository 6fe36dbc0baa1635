//! Board bring-up: `touchmove board check` and the daemon's `/setup` page.
//!
//! A [`Check`] is a pure, synchronous state machine in virtual time: it is
//! fed raw scans with their time and the builder's answers, says which
//! [`Step`] it is in and what to ask, what it has found, and at the end the
//! corrected mapping and the faults left to fix. The steps:
//!
//! 1. **Empty board** — every square reading a piece is stuck.
//! 2. **Start position** — which of the eight orientations, possibly with
//!    swapped row or column wires, turns the reading into ranks 1, 2, 7, 8
//!    ([`orientation`]);
//! 3. **Lift the white queen** (and, if still ambiguous, the black queen)
//!    to tell apart what the start position cannot;
//! 4. **Square walk** — every square must change and come back; dead,
//!    ghosting or shorted and chattering squares are listed ([`walk`]);
//!    Hall boards also get each square's margin ([`margins`]);
//! 5. **Done** — the [`CheckOutcome`]: the mapping for the corrected profile
//!    ([`profile_out`]), a debounce suggestion from the measured bounce,
//!    and the faults.
pub mod faults;
pub mod for_profile;
pub mod margins;
pub mod orientation;
pub mod profile_out;
pub mod reading;
pub mod walk;

use shakmaty::{Bitboard, Square};

use crate::mapping::Mapping;
pub use faults::{BoardFault, Sensor, SwappedWires};
use orientation::Candidate;
use reading::Reader;
use touchmove_core::Millis;
use touchmove_core::filter::analog::{Level, Stats};
use touchmove_core::filter::debounce::DebounceConfig;
use touchmove_core::filter::health::{FaultKind, Health, SensorFault};
use touchmove_core::scan::Scan;
use walk::Walk;

/// How long a reading must hold to count as the board's state (a lift,
/// the board put back, the readings of a step).
pub(crate) const HOLD_MS: Millis = 300;
/// How much worse than the best reading of the start position a reading
/// the queen's lift picks may fit (a square or two read wrong).
const LIFT_SLACK: u32 = 2;

/// Where the check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    EmptyBoard,
    StartPosition,
    LiftWhiteQueen,
    LiftBlackQueen,
    PutBack,
    Walk,
    Done,
}

impl Step {
    /// A short title.
    pub fn title(self) -> &'static str {
        match self {
            Step::EmptyBoard => "1. Empty board",
            Step::StartPosition => "2. Start position",
            Step::LiftWhiteQueen => "3. Lift the white queen",
            Step::LiftBlackQueen => "3. Lift the black queen",
            Step::PutBack => "3. Put it back",
            Step::Walk => "4. Square walk",
            Step::Done => "5. Result",
        }
    }
}

/// What the builder answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// The board is as asked: go on.
    Next,
    /// Leave this step as it is (an ambiguous lift: take the likeliest
    /// reading; the walk: finish it with the squares not walked listed).
    Skip,
}

/// Settings of a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckConfig {
    /// The profile's mapping: scans arrive as squares through it.
    pub mapping: Mapping,
    pub scan_rate_hz: u32,
    /// Whether the board gives analog (Hall) scans.
    pub analog: bool,
    /// Hall boards: the lowest and highest reading of the ADC; a sensor
    /// reading one of them on the empty board is shorted or unconnected.
    pub rails: (i32, i32),
}

/// The result of a finished check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// How the wires read the board (`None`: the start position was never
    /// read, so the profile's mapping stays).
    pub mapping: Option<Mapping>,
    /// Swapped wires the new mapping corrects.
    pub swapped: Vec<SwappedWires>,
    /// The longest bounce measured, and the debounce window suggested for
    /// it when the default is too short.
    pub bounce_ms: Millis,
    pub debounce_ms: Option<Millis>,
    /// What is left to fix.
    pub faults: Vec<BoardFault>,
    /// Remarks that are not faults (an ambiguity left, a skipped step).
    pub notes: Vec<String>,
}

/// A step could not be left yet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotYet(pub String);

/// The check; see the module documentation.
#[derive(Debug, Clone)]
pub struct Check {
    config: CheckConfig,
    step: Step,
    reader: Reader,
    now: Millis,
    /// The latest reading, and since when it has not changed.
    current: u64,
    current_since: Millis,
    /// The reading of the scan before.
    previous: u64,
    scans: u64,
    stuck: u64,
    railed: Vec<(u8, i32)>,
    /// The start position as read (sensor bits), and the candidates left.
    start: Option<u64>,
    candidates: Vec<Candidate>,
    chosen: Option<Candidate>,
    /// What the builder is told about the last attempt, if it failed.
    message: Option<String>,
    walk: Option<Walk>,
    /// The filter's health checks over every scan, and the sensors they
    /// found chattering.
    health: Health,
    chattering: u64,
    /// Hall boards: levels under a piece, by sensor.
    piece_levels: [Stats; 64],
    notes: Vec<String>,
    outcome: Option<CheckOutcome>,
}

impl Check {
    pub fn new(config: CheckConfig) -> Check {
        Check {
            reader: Reader::new(config.mapping),
            step: Step::EmptyBoard,
            now: 0,
            current: 0,
            current_since: 0,
            previous: 0,
            scans: 0,
            stuck: 0,
            railed: Vec::new(),
            start: None,
            candidates: Vec::new(),
            chosen: None,
            message: None,
            walk: None,
            health: Health::new(walk::chatter_config(config.scan_rate_hz), Bitboard::EMPTY),
            chattering: 0,
            piece_levels: [Stats::default(); 64],
            notes: Vec::new(),
            outcome: None,
            config,
        }
    }

    pub fn step(&self) -> Step {
        self.step
    }

    /// What to ask the builder now.
    pub fn prompt(&self) -> String {
        match self.step {
            Step::EmptyBoard => "Take every piece off the board, then press Enter.".into(),
            Step::StartPosition => "Set up the pieces as for a game (white on ranks 1 and 2, \
                 black on ranks 7 and 8), then press Enter."
                .into(),
            Step::LiftWhiteQueen => "Lift the white queen (d1) and hold it up.".into(),
            Step::LiftBlackQueen => "Now lift the black queen (d8) and hold it up.".into(),
            Step::PutBack => "Put the queen back on its square.".into(),
            Step::Walk => format!(
                "Lift each piece and put it back; then put a piece on each empty square and \
                 take it off again, in any order. {} of 64 squares done; press Enter when \
                 finished.",
                self.walked().count()
            ),
            Step::Done => match &self.outcome {
                Some(o) if o.faults.is_empty() => "The board is ready.".into(),
                Some(o) => format!("{} fault(s) to fix.", o.faults.len()),
                None => String::new(),
            },
        }
    }

    /// Why the last answer or lift was not accepted, if it was not.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The mapping the check reads the board with now: the one found, else
    /// the profile's.
    pub fn mapping(&self) -> Mapping {
        match &self.chosen {
            Some(c) => c.mapping,
            None => self.config.mapping,
        }
    }

    /// The squares reading a piece now, under [`Check::mapping`].
    pub fn live(&self) -> Bitboard {
        self.mapping().to_squares(self.current)
    }

    /// Squares the walk has seen change and come back.
    pub fn walked(&self) -> Bitboard {
        match &self.walk {
            Some(walk) => self.mapping().to_squares(walk.toggled()),
            None => Bitboard::EMPTY,
        }
    }

    /// What has been found so far, in words.
    pub fn findings(&self) -> Vec<String> {
        let mapping = self.mapping();
        let mut out: Vec<String> = Vec::new();
        if let Some(outcome) = &self.outcome {
            match outcome.mapping.map(|m| m.orientation()) {
                Some(Some(o)) => out.push(format!("the board reads as orientation {}", o.name())),
                Some(None) => out.push("the board reads through a table of squares".into()),
                None => {}
            }
            out.extend(
                outcome
                    .swapped
                    .iter()
                    .map(|s| format!("{s} (corrected in the profile)")),
            );
            out.extend(outcome.faults.iter().map(|f| f.describe(&mapping)));
            out.extend(outcome.notes.iter().cloned());
            return out;
        }
        out.extend(self.stuck_faults().iter().map(|f| f.describe(&mapping)));
        if let Some(chosen) = &self.chosen {
            match chosen.mapping.orientation() {
                Some(o) => out.push(format!("the board reads as orientation {}", o.name())),
                None => out.push("the board reads through a table of squares".into()),
            }
            out.extend(chosen.swapped().iter().map(|s| s.to_string()));
        }
        for i in (0..64).filter(|i| self.chattering >> i & 1 == 1) {
            out.push(BoardFault::Chatter { sensor: Sensor(i) }.describe(&mapping));
        }
        out
    }

    /// The outcome, once done.
    pub fn outcome(&self) -> Option<&CheckOutcome> {
        self.outcome.as_ref()
    }

    /// Hall boards: the latest levels by square, under [`Check::mapping`].
    pub fn levels(&self) -> Option<[i32; 64]> {
        let levels = self.reader.levels?;
        let by_square = self.mapping().levels_to_squares(&levels);
        Some(*by_square)
    }

    fn stuck_faults(&self) -> Vec<BoardFault> {
        let mut out: Vec<BoardFault> = (0..64u8)
            .filter(|i| self.stuck >> i & 1 == 1)
            .map(|i| BoardFault::Stuck { sensor: Sensor(i) })
            .collect();
        out.extend(self.railed.iter().map(|&(i, level)| BoardFault::Railed {
            sensor: Sensor(i),
            level,
        }));
        out
    }

    /// A scan at `t`.
    pub fn scan(&mut self, t: Millis, scan: &Scan) {
        self.now = t;
        self.scans += 1;
        let sensors = self.reader.read(t, scan);
        let mut faults: Vec<SensorFault> = Vec::new();
        // The health checks number sensors like squares: here they are wires.
        self.health.observe(t, Bitboard(sensors), &mut faults);
        for fault in faults {
            if fault.kind == FaultKind::Chatter {
                self.chattering |= 1 << usize::from(fault.square);
            }
        }
        // A chattering sensor does not keep the board from holding still.
        if (sensors ^ self.current) & !self.chattering != 0 || self.scans == 1 {
            self.current_since = t;
        }
        self.previous = self.current;
        self.current = sensors;
        if let Some(walk) = &mut self.walk {
            walk.observe(t, sensors);
            if let Some(levels) = self.reader.levels {
                // A level counts once its piece has stood a whole scan.
                let standing = sensors & self.previous;
                for i in (0..64).filter(|i| standing >> i & 1 == 1) {
                    self.piece_levels[i].push(f64::from(levels[i]));
                }
            }
        }
        match self.step {
            Step::LiftWhiteQueen | Step::LiftBlackQueen => self.watch_lift(),
            Step::PutBack if self.held(HOLD_MS) && self.matches_start() => {
                self.message = None;
                if self.chosen.is_some() {
                    self.start_walk();
                } else {
                    self.step = Step::LiftBlackQueen;
                }
            }
            Step::Walk => {
                let walked = self.walk.as_ref().map_or(0, |w| w.toggled());
                if walked == u64::MAX && self.held(2 * HOLD_MS) && self.matches_start() {
                    self.finish();
                }
            }
            _ => {}
        }
    }

    /// Whether the reading has held for `ms`.
    fn held(&self, ms: Millis) -> bool {
        self.now.saturating_sub(self.current_since) >= ms
    }

    fn noisy(&self) -> u64 {
        self.stuck | self.chattering
    }

    fn matches_start(&self) -> bool {
        self.start
            .is_some_and(|start| (start ^ self.current) & !self.noisy() == 0)
    }

    /// The builder's answer at `t`.
    pub fn answer(&mut self, t: Millis, answer: Answer) -> Result<(), NotYet> {
        self.now = self.now.max(t);
        let result = match (self.step, answer) {
            (Step::EmptyBoard, _) => self.read_empty(),
            (Step::StartPosition, Answer::Next) => self.read_start(),
            (Step::StartPosition, Answer::Skip) => {
                self.notes
                    .push("the start position was skipped: the profile's mapping is kept".into());
                self.start = Some(self.current);
                self.start_walk();
                Ok(())
            }
            (Step::LiftWhiteQueen | Step::LiftBlackQueen | Step::PutBack, Answer::Skip) => {
                let best = orientation::best(&self.candidates);
                if let Some(first) = best.first() {
                    self.notes.push(format!(
                        "{} readings fit the board equally well; the first was taken",
                        best.len()
                    ));
                    self.chosen = Some((*first).clone());
                }
                self.start_walk();
                Ok(())
            }
            (Step::LiftWhiteQueen | Step::LiftBlackQueen | Step::PutBack, Answer::Next) => {
                Err(NotYet(
                    "waiting for the queen: the check goes on by itself when it sees her".into(),
                ))
            }
            (Step::Walk, _) => {
                self.finish();
                Ok(())
            }
            (Step::Done, _) => Ok(()),
        };
        self.message = result.as_ref().err().map(|e| e.0.clone());
        result
    }

    fn read_empty(&mut self) -> Result<(), NotYet> {
        if !self.held(HOLD_MS) {
            return Err(NotYet("the board is still changing: wait a moment".into()));
        }
        self.stuck = self.current & !self.chattering;
        if let Some(levels) = self.reader.measure_empty() {
            self.railed = railed(&levels, self.config.rails);
        }
        self.step = Step::StartPosition;
        Ok(())
    }

    fn read_start(&mut self) -> Result<(), NotYet> {
        if !self.held(HOLD_MS) {
            return Err(NotYet("the board is still changing: wait a moment".into()));
        }
        if self.config.analog {
            // Before the typical push is known, the start position shows it.
            let pushes: Vec<f64> = (0..64)
                .filter(|i| self.current >> i & 1 == 1)
                .filter_map(|i| self.reader.push_of(i))
                .collect();
            self.reader.set_typical_push(reading::median(pushes));
        }
        let reading = self.current;
        let all = orientation::candidates(reading, self.stuck);
        let least = orientation::best(&all).first().map_or(u32::MAX, |c| c.cost);
        if least > orientation::MAX_MISMATCH {
            return Err(NotYet(format!(
                "this is not the start position under any orientation: {} of 64 squares \
                 read a piece; set up all 32 pieces on ranks 1, 2, 7 and 8",
                reading.count_ones()
            )));
        }
        self.start = Some(reading);
        self.candidates = all;
        self.step = Step::LiftWhiteQueen;
        Ok(())
    }

    /// Waits for exactly one piece of the start position to be lifted.
    fn watch_lift(&mut self) {
        let Some(start) = self.start else { return };
        if !self.held(HOLD_MS) {
            return;
        }
        let noisy = self.noisy();
        let gone = start & !self.current & !noisy;
        let extra = self.current & !start & !noisy;
        if gone.count_ones() != 1 || extra != 0 {
            return;
        }
        let sensor = gone.trailing_zeros() as usize;
        let square = if self.step == Step::LiftWhiteQueen {
            Square::D1
        } else {
            Square::D8
        };
        let mut left = self.candidates.clone();
        orientation::constrain(&mut left, sensor, square);
        let best = orientation::best(&left);
        // A lift only settles what the start position left open: a reading
        // that fits much worse than the best one is not the queen's square.
        let least = orientation::best(&self.candidates)
            .first()
            .map_or(0, |c| c.cost);
        if best.first().is_none_or(|c| c.cost > least + LIFT_SLACK) {
            self.message = Some(format!(
                "that piece (row {}, column {}) cannot be the {} under any reading that \
                 fits; put it back and lift the {}",
                sensor / 8,
                sensor % 8,
                if square == Square::D1 {
                    "white queen"
                } else {
                    "black queen"
                },
                if square == Square::D1 {
                    "white queen (d1)"
                } else {
                    "black queen (d8)"
                },
            ));
            return;
        }
        let unique = best.len() == 1;
        let first = best[0].clone();
        self.candidates = left;
        self.message = None;
        if unique || self.step == Step::LiftBlackQueen {
            if !unique {
                self.notes.push(format!(
                    "{} readings fit the board equally well after both queens; the first \
                     was taken (wires of squares left empty by the start position cannot be \
                     told apart)",
                    orientation::best(&self.candidates).len()
                ));
            }
            self.chosen = Some(first);
        }
        self.step = Step::PutBack;
    }

    fn start_walk(&mut self) {
        self.step = Step::Walk;
        let start = self.start.unwrap_or(self.current);
        self.walk = Some(Walk::new(start));
    }

    fn finish(&mut self) {
        let mut faults = self.stuck_faults();
        let mut bounce_ms = 0;
        if let Some(walk) = &self.walk {
            let chattering = self.chattering;
            let groups = walk.together(chattering);
            // A square of the start position that never read its piece is
            // dead; an empty one never seen with a piece may just not have
            // been walked (it is listed as such).
            let expected = self.mapping().to_sensors(orientation::start_squares());
            let dead: Vec<u8> = (0..64u8)
                .filter(|i| {
                    (self.stuck | chattering) >> i & 1 == 0
                        && expected >> i & 1 == 1
                        && walk.toggled() >> i & 1 == 0
                        && walk.ever_occupied() >> i & 1 == 0
                })
                .collect();
            // A dead switch on the column of a group that lights together
            // is a reversed diode (see `hal::matrix_circuit::MatrixWiring`).
            let mut explained: Vec<usize> = Vec::new();
            for &d in &dead {
                let ghosts: Vec<Sensor> = groups
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.iter().any(|s| s.column() == d % 8 && s.row() != d / 8))
                    .flat_map(|(k, g)| {
                        explained.push(k);
                        g.iter()
                            .copied()
                            .filter(|s| s.column() != d % 8)
                            .collect::<Vec<_>>()
                    })
                    .collect();
                if ghosts.is_empty() {
                    faults.push(BoardFault::Dead { sensor: Sensor(d) });
                } else {
                    faults.push(BoardFault::ReversedDiode {
                        sensor: Sensor(d),
                        ghosts,
                    });
                }
            }
            for (k, group) in groups.into_iter().enumerate() {
                if !explained.contains(&k) {
                    faults.push(BoardFault::Together { sensors: group });
                }
            }
            for i in (0..64u8).filter(|i| chattering >> i & 1 == 1) {
                faults.push(BoardFault::Chatter { sensor: Sensor(i) });
            }
            let accounted = self.stuck | chattering | dead.iter().fold(0u64, |a, d| a | 1 << d);
            let unseen: Vec<Sensor> = (0..64u8)
                .filter(|i| (walk.toggled() | accounted) >> i & 1 == 0)
                .map(Sensor)
                .collect();
            let ghosting = faults.iter().any(|f| {
                matches!(
                    f,
                    BoardFault::ReversedDiode { .. } | BoardFault::Together { .. }
                )
            });
            if ghosting && !unseen.is_empty() {
                // While a diode ghosts, a lifted piece can read as still
                // there: these squares are walked again once it is fixed.
                self.notes.push(format!(
                    "{} did not change while the ghosting lasted: walk them again once it is fixed",
                    faults::squares(&unseen, &self.mapping())
                ));
            } else {
                faults.extend(
                    unseen
                        .into_iter()
                        .map(|sensor| BoardFault::NotWalked { sensor }),
                );
            }
            bounce_ms = walk.longest_bounce(chattering);
            if let Some(empty) = self.reader.empty() {
                faults.extend(margins::thin(empty, &self.piece_levels));
            }
        }
        let mapping = self.chosen.as_ref().map(|c| c.mapping);
        let swapped = self.chosen.as_ref().map_or(Vec::new(), |c| c.swapped());
        let mut notes = std::mem::take(&mut self.notes);
        let debounce_ms = suggested_debounce(bounce_ms, self.config.scan_rate_hz);
        if let Some(ms) = debounce_ms {
            notes.push(format!(
                "contacts bounce for up to {bounce_ms} ms: debounce-ms = {ms} is written \
                 to the profile (the default is {} ms)",
                DebounceConfig::DEFAULT_STABLE_MS
            ));
        }
        self.outcome = Some(CheckOutcome {
            mapping,
            swapped,
            bounce_ms,
            debounce_ms,
            faults,
            notes,
        });
        self.step = Step::Done;
    }
}

/// The debounce window for contacts that bounce `bounce_ms`: one and a
/// half times the bounce plus one scan period, when that exceeds the
/// filter's default.
pub(crate) fn suggested_debounce(bounce_ms: Millis, scan_rate_hz: u32) -> Option<Millis> {
    let period = 1000 / Millis::from(scan_rate_hz.max(1));
    let window = (bounce_ms * 3).div_ceil(2) + period;
    (bounce_ms > 0 && window > DebounceConfig::DEFAULT_STABLE_MS)
        .then_some(window.min(crate::profile::MAX_DEBOUNCE_MS))
}

/// Hall sensors reading at the ADC's rails on the empty board.
fn railed(levels: &[Level; 64], (low, high): (i32, i32)) -> Vec<(u8, i32)> {
    levels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.mean <= f64::from(low) + 2.0 || l.mean >= f64::from(high) - 2.0)
        .map(|(i, l)| (i as u8, l.mean.round() as i32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use orientation::start_squares;

    fn check() -> Check {
        Check::new(CheckConfig {
            mapping: Mapping::default(),
            scan_rate_hz: 100,
            analog: false,
            rails: (0, 4095),
        })
    }

    /// Scans `board` every 10 ms for `ms`.
    fn hold(check: &mut Check, t: &mut Millis, board: Bitboard, ms: Millis) {
        let end = *t + ms;
        while *t < end {
            check.scan(*t, &Scan::Occupancy(board));
            *t += 10;
        }
    }

    #[test]
    fn a_changing_board_is_not_read_and_a_piece_left_on_it_is_stuck() {
        let mut c = check();
        let mut t = 0;
        hold(&mut c, &mut t, Bitboard::from(Square::E4), 100);
        assert!(c.answer(t, Answer::Next).is_err(), "not held long enough");
        hold(&mut c, &mut t, Bitboard::from(Square::E4), 400);
        c.answer(t, Answer::Next).unwrap();
        assert_eq!(c.step(), Step::StartPosition);
        assert!(
            c.findings()[0].starts_with("e4 (row 3, column 4) is stuck"),
            "{:?}",
            c.findings()
        );
    }

    #[test]
    fn a_lift_that_cannot_be_the_queen_is_refused_and_skip_ends_the_walk() {
        let mut c = check();
        let mut t = 0;
        hold(&mut c, &mut t, Bitboard::EMPTY, 400);
        c.answer(t, Answer::Next).unwrap();
        hold(&mut c, &mut t, start_squares(), 400);
        c.answer(t, Answer::Next).unwrap();
        assert_eq!(c.step(), Step::LiftWhiteQueen);
        // a2 is d1 under none of the four orientations that fit.
        hold(&mut c, &mut t, start_squares().without(Square::A2), 400);
        assert_eq!(c.step(), Step::LiftWhiteQueen);
        assert!(
            c.message().unwrap().contains("cannot be the white queen"),
            "{:?}",
            c.message()
        );
        hold(&mut c, &mut t, start_squares(), 400);
        hold(&mut c, &mut t, start_squares().without(Square::D1), 400);
        assert_eq!(c.step(), Step::PutBack);
        assert_eq!(c.mapping(), Mapping::default());
        hold(&mut c, &mut t, start_squares(), 400);
        assert_eq!(c.step(), Step::Walk);
        hold(&mut c, &mut t, start_squares().without(Square::B1), 200);
        hold(&mut c, &mut t, start_squares(), 200);
        c.answer(t, Answer::Skip).unwrap();
        let outcome = c.outcome().unwrap();
        assert_eq!(
            outcome.faults.len(),
            63,
            "every square but b1 was left unwalked"
        );
        assert!(outcome.faults.iter().all(|f| f.kind() == "not-walked"));
    }

    #[test]
    fn a_debounce_is_suggested_only_beyond_the_default() {
        assert_eq!(suggested_debounce(0, 100), None);
        assert_eq!(suggested_debounce(2, 1000), None);
        assert_eq!(suggested_debounce(20, 100), Some(40));
    }

    #[test]
    fn a_hall_sensor_at_a_rail_is_named() {
        let level = |mean| Level { mean, std: 1.0 };
        let mut levels = [level(2000.0); 64];
        levels[9] = level(0.0);
        levels[17] = level(4095.0);
        assert_eq!(railed(&levels, (0, 4095)), vec![(9, 0), (17, 4095)]);
    }
}
