//! Hall boards: how far a piece moves each sensor from its empty level,
//! and the squares where that is too little to trust.
//!
//! A square is too thin when its margin ([`touchmove_core::filter::analog::margin`],
//! the distance of the levels over the sum of their deviations) is below
//! the least margin `touchmove calibrate` accepts, or when a piece moves it
//! less than half as far as the board's median square: calibration
//! thresholds allow a magnet about a third weaker than the one measured,
//! and such a square would lose its piece to the next weaker magnet.
use touchmove_core::filter::analog::{self as hall, Level, Stats};

use super::faults::{BoardFault, Sensor};
use super::reading::median;

/// The least margin, in standard deviations (as `touchmove calibrate`).
pub(crate) const MIN_MARGIN: f64 = 5.0;
/// A square moved less than this fraction of the median is too weak.
pub(crate) const MIN_PUSH_FRACTION: f64 = 0.5;
/// Levels measured under a piece before a square's margin is judged.
pub(crate) const MIN_SAMPLES: u64 = 5;

/// The thin squares, from the empty levels and the levels under a piece.
pub fn thin(empty: &[Level; 64], pieces: &[Stats; 64]) -> Vec<BoardFault> {
    let measured: Vec<(usize, Level)> = (0..64)
        .filter(|&i| pieces[i].count() >= MIN_SAMPLES)
        .filter_map(|i| pieces[i].level().map(|l| (i, l)))
        .collect();
    let median_push = median(
        measured
            .iter()
            .map(|(i, l)| (l.mean - empty[*i].mean).abs())
            .collect(),
    );
    measured
        .into_iter()
        .filter_map(|(i, piece)| {
            let margin = hall::margin(empty[i], piece);
            let push = (piece.mean - empty[i].mean).abs();
            (margin < MIN_MARGIN || push < MIN_PUSH_FRACTION * median_push).then_some(
                BoardFault::ThinMargin {
                    sensor: Sensor(i as u8),
                    margin,
                    push,
                    median_push,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weak_square_and_a_noisy_one_are_thin() {
        let empty = [Level {
            mean: 2000.0,
            std: 4.0,
        }; 64];
        let mut pieces = [Stats::default(); 64];
        for (i, stats) in pieces.iter_mut().enumerate() {
            let push = match i {
                12 => 120.0,
                _ => 400.0,
            };
            for k in 0..20 {
                let noise = if i == 30 { 80.0 } else { 4.0 };
                stats.push(2000.0 + push + if k % 2 == 0 { noise } else { -noise });
            }
        }
        let found: Vec<u8> = thin(&empty, &pieces)
            .iter()
            .map(|f| f.sensors()[0].0)
            .collect();
        assert_eq!(found, vec![12, 30]);
    }
}
