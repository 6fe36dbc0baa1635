//! From a scan to the sensors that read a piece, by wire.
//!
//! Backends hand over squares through the profile's mapping; the check
//! undoes it to reason about wires. A reed board's reading is its
//! occupancy. A Hall board has no calibration yet (that comes after the
//! wiring is right), so a sensor reads a piece when its level moves far
//! from the level it had on the empty board: more than ten of its own
//! standard deviations and, once the start position has shown how far a
//! piece moves a typical sensor, more than a fifth of that; it reads empty
//! again below half that threshold (hysteresis, so that noise near the
//! threshold does not flicker).
use std::collections::VecDeque;

use crate::mapping::Mapping;
use touchmove_core::Millis;
use touchmove_core::filter::analog::{Level, Stats};
use touchmove_core::scan::Scan;

/// The least threshold, in ADC counts, before the typical push is known.
const FLOOR_COUNTS: f64 = 30.0;
/// How long the recent levels of a Hall board are kept (for the empty level).
pub const WINDOW_MS: Millis = 500;

/// Reads scans into sensor bits.
#[derive(Debug, Clone)]
pub struct Reader {
    mapping: Mapping,
    /// Hall boards: the empty level of each sensor, once measured.
    empty: Option<[Level; 64]>,
    /// The typical distance a piece moves a sensor, once measured.
    typical_push: Option<f64>,
    /// Hall boards: sensors reading a piece now (for the hysteresis).
    held: u64,
    /// Hall boards: recent levels by sensor, newest last.
    recent: VecDeque<(Millis, [i32; 64])>,
    /// Hall boards: the latest levels by sensor.
    pub levels: Option<[i32; 64]>,
}

impl Reader {
    pub fn new(mapping: Mapping) -> Reader {
        Reader {
            mapping,
            empty: None,
            typical_push: None,
            held: 0,
            recent: VecDeque::new(),
            levels: None,
        }
    }

    /// The sensor bits a scan reads (bit `8 * row + column` of the wires).
    pub fn read(&mut self, t: Millis, scan: &Scan) -> u64 {
        match scan {
            Scan::Occupancy(squares) => self.mapping.to_sensors(*squares),
            Scan::Analog(by_square) => {
                let levels = self.mapping.levels_to_sensors(by_square);
                self.levels = Some(levels);
                self.recent.push_back((t, levels));
                while self
                    .recent
                    .front()
                    .is_some_and(|(old, _)| t.saturating_sub(*old) > WINDOW_MS)
                {
                    self.recent.pop_front();
                }
                let Some(empty) = &self.empty else {
                    return 0;
                };
                for (i, level) in levels.iter().enumerate() {
                    let distance = (f64::from(*level) - empty[i].mean).abs();
                    let threshold = self.threshold(&empty[i]);
                    if distance > threshold {
                        self.held |= 1 << i;
                    } else if distance < threshold / 2.0 {
                        self.held &= !(1 << i);
                    }
                }
                self.held
            }
        }
    }

    fn threshold(&self, empty: &Level) -> f64 {
        let by_noise = 10.0 * empty.sigma();
        match self.typical_push {
            Some(push) => by_noise.max(push / 5.0),
            None => by_noise.max(FLOOR_COUNTS),
        }
    }

    /// Hall boards: takes the levels of the last [`WINDOW_MS`] as the empty
    /// levels. `None` on a reed board or before any scan.
    pub(crate) fn measure_empty(&mut self) -> Option<[Level; 64]> {
        let levels = self.window_levels()?;
        self.empty = Some(levels);
        self.held = 0;
        Some(levels)
    }

    /// Mean and deviation of each sensor over the last [`WINDOW_MS`].
    pub(crate) fn window_levels(&self) -> Option<[Level; 64]> {
        if self.recent.is_empty() {
            return None;
        }
        let mut stats = [Stats::default(); 64];
        for (_, levels) in &self.recent {
            for (s, level) in stats.iter_mut().zip(levels) {
                s.push(f64::from(*level));
            }
        }
        Some(std::array::from_fn(|i| {
            stats[i].level().expect("at least one level")
        }))
    }

    /// The empty levels, once measured.
    pub fn empty(&self) -> Option<&[Level; 64]> {
        self.empty.as_ref()
    }

    /// Sets the typical push (the median over the pieces of the start position).
    pub(crate) fn set_typical_push(&mut self, push: f64) {
        self.typical_push = Some(push);
    }

    /// How far each sensor's latest level is from its empty level.
    pub(crate) fn push_of(&self, sensor: usize) -> Option<f64> {
        let (empty, levels) = (self.empty.as_ref()?, self.levels.as_ref()?);
        Some((f64::from(levels[sensor]) - empty[sensor].mean).abs())
    }
}

/// The median of some values (0 for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
