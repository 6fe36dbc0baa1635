//! From raw scans to settled per-square changes: debounce, and for Hall
//! boards per-square thresholds with hysteresis from a calibration profile.
pub mod hall;

use shakmaty::{Color, Square};

use crate::Millis;

/// What happened on one square, once it has held for the stable window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
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
    pub change: Change,
}

/// Turns one raw analog scan of a Hall board into what stands where.
/// Implemented by the calibrated per-square thresholds (with hysteresis, so
/// the classifier keeps state between scans).
pub trait Classify {
    fn classify(&mut self, values: &[i32; 64]) -> crate::sensors::Snapshot;

    /// Whether the snapshots tell white from black. When not, every occupied
    /// square is reported in `Snapshot::white`.
    fn tells_colour(&self) -> bool {
        true
    }
}
