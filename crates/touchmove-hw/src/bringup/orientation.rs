//! Which way the sensor grid lies under the board, from the start position
//! and one or two lifted pieces.
//!
//! The start position fills ranks 1, 2, 7 and 8. Each candidate reading of
//! the wires is one of the eight [`Orientation`]s, with at most two pairs of
//! row wires or of column wires out of place. Its cost is the number of
//! squares where the reading differs from the start position (dead or
//! misplaced pieces) plus the number of wires out of place, so that a
//! plain orientation wins whenever it explains the reading, and swapped
//! wires are only concluded when they explain many squares at once.
//!
//! The start position cannot tell apart the four orientations that keep
//! ranks 1–2 and 7–8 in place (identity, half turn, files mirrored, ranks
//! mirrored): lifting the white queen (d1) does, since each puts d1 under
//! another sensor. When wires are swapped, lifting the black queen (d8)
//! tells which of the two filled lines on the far side is rank 8.
use shakmaty::{Bitboard, Rank, Square};

use super::faults::SwappedWires;
use crate::mapping::{Mapping, Orientation};

/// At most this many wires of one kind may be out of place in a candidate.
const MAX_DISPLACED: usize = 4;
/// A reading further than this from the start position under every
/// candidate is not the start position.
pub(crate) const MAX_MISMATCH: u32 = 8;

/// The squares of the start position: ranks 1, 2, 7 and 8.
pub(crate) fn start_squares() -> Bitboard {
    [0, 1, 6, 7]
        .into_iter()
        .map(|r| Bitboard::from_rank(Rank::new(r)))
        .fold(Bitboard::EMPTY, |a, b| a | b)
}

/// One way of reading the wires.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub base: Orientation,
    /// Wire row `y` reaches grid row `rows[y]`.
    pub rows: [u8; 8],
    /// Wire column `x` reaches grid column `columns[x]`.
    pub columns: [u8; 8],
    pub mapping: Mapping,
    /// Squares where the start reading differs, plus wires out of place.
    pub cost: u32,
}

impl Candidate {
    fn new(base: Orientation, rows: [u8; 8], columns: [u8; 8]) -> Candidate {
        let table: Vec<Square> = (0..64)
            .map(|i| base.square(u32::from(columns[i % 8]), u32::from(rows[i / 8])))
            .collect();
        let mapping = Mapping::from_squares(&table).expect("permuted wires keep a permutation");
        Candidate {
            base,
            rows,
            columns,
            mapping,
            cost: 0,
        }
    }

    fn displaced(&self) -> u32 {
        let out = |order: &[u8; 8]| {
            order
                .iter()
                .enumerate()
                .filter(|(i, v)| *i != usize::from(**v))
                .count()
        };
        (out(&self.rows) + out(&self.columns)) as u32
    }

    /// The swapped wires this candidate concludes, if any.
    pub fn swapped(&self) -> Vec<SwappedWires> {
        let mut found = Vec::new();
        for (line, order) in [("row", &self.rows), ("column", &self.columns)] {
            let wires: Vec<(u8, String)> = order
                .iter()
                .enumerate()
                .filter(|(i, v)| *i != usize::from(**v))
                .map(|(i, _)| {
                    let sensors: Vec<usize> = if line == "row" {
                        (0..8).map(|x| 8 * i + x).collect()
                    } else {
                        (0..8).map(|y| 8 * y + i).collect()
                    };
                    (i as u8, self.reads(&sensors))
                })
                .collect();
            if !wires.is_empty() {
                found.push(SwappedWires { line, wires });
            }
        }
        found
    }

    /// What a line of sensors reads: `rank 4`, `file c`.
    fn reads(&self, sensors: &[usize]) -> String {
        let squares: Vec<Square> = sensors.iter().map(|&s| self.mapping.square(s)).collect();
        if squares.iter().all(|s| s.rank() == squares[0].rank()) {
            format!("rank {}", squares[0].rank().char())
        } else {
            format!("file {}", squares[0].file().char())
        }
    }
}

/// Every order of eight wires with at most [`MAX_DISPLACED`] out of place.
fn near_orders() -> Vec<[u8; 8]> {
    let mut orders = Vec::new();
    let mut order: [u8; 8] = std::array::from_fn(|i| i as u8);
    permute(&mut order, 0, &mut orders);
    orders
}

fn permute(order: &mut [u8; 8], k: usize, out: &mut Vec<[u8; 8]>) {
    let displaced = order[..k]
        .iter()
        .enumerate()
        .filter(|(i, v)| *i != usize::from(**v))
        .count();
    if displaced > MAX_DISPLACED {
        return;
    }
    if k == 8 {
        out.push(*order);
        return;
    }
    for i in k..8 {
        order.swap(k, i);
        permute(order, k + 1, out);
        order.swap(k, i);
    }
}

/// All candidates, with their cost for the start reading `occupied`
/// (sensor bits) ignoring the sensors in `ignored` (stuck, chattering).
pub fn candidates(occupied: u64, ignored: u64) -> Vec<Candidate> {
    let identity: [u8; 8] = std::array::from_fn(|i| i as u8);
    let orders = near_orders();
    let start = start_squares();
    let mut all = Vec::with_capacity(orders.len() * 16);
    for base in Orientation::ALL {
        for order in &orders {
            all.push(Candidate::new(base, *order, identity));
            if *order != identity {
                all.push(Candidate::new(base, identity, *order));
            }
        }
    }
    for candidate in &mut all {
        let read = candidate.mapping.to_squares(occupied & !ignored);
        let counted = !candidate.mapping.to_squares(ignored);
        let mismatch = ((read ^ start) & counted).count() as u32;
        candidate.cost = mismatch + candidate.displaced();
    }
    all
}

/// The candidates of least cost, one per distinct mapping.
pub fn best(candidates: &[Candidate]) -> Vec<&Candidate> {
    let Some(least) = candidates.iter().map(|c| c.cost).min() else {
        return Vec::new();
    };
    let mut out: Vec<&Candidate> = Vec::new();
    for c in candidates.iter().filter(|c| c.cost == least) {
        if !out.iter().any(|o| o.mapping == c.mapping) {
            out.push(c);
        }
    }
    out
}

/// Keeps the candidates under which `sensor` reads `square`.
pub(crate) fn constrain(candidates: &mut Vec<Candidate>, sensor: usize, square: Square) {
    candidates.retain(|c| c.mapping.square(sensor) == square);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(mapping: &Mapping) -> u64 {
        mapping.to_sensors(start_squares())
    }

    #[test]
    fn a_plain_orientation_leaves_four_and_the_queen_picks_one() {
        for truth in Orientation::ALL {
            let mapping = Mapping::from_orientation(truth);
            let mut all = candidates(reading(&mapping), 0);
            assert_eq!(best(&all).len(), 4, "{}", truth.name());
            assert_eq!(best(&all)[0].cost, 0);
            constrain(&mut all, mapping.sensor(Square::D1), Square::D1);
            let found = best(&all);
            assert_eq!(found.len(), 1, "{}", truth.name());
            assert_eq!(found[0].mapping, mapping, "{}", truth.name());
            assert!(found[0].swapped().is_empty());
        }
    }

    #[test]
    fn two_swapped_row_wires_are_named() {
        // Identity, but the wires of rows 1 and 3 swapped at the header:
        // wire row 1 reads rank 4 and wire row 3 reads rank 2.
        let truth = Candidate::new(
            Orientation::Identity,
            [0, 3, 2, 1, 4, 5, 6, 7],
            std::array::from_fn(|i| i as u8),
        );
        let mut all = candidates(reading(&truth.mapping), 0);
        constrain(&mut all, truth.mapping.sensor(Square::D1), Square::D1);
        let found = best(&all);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].mapping, truth.mapping);
        let swapped = found[0].swapped();
        assert_eq!(
            swapped[0].to_string(),
            "row wires 1 and 3 are swapped: rows[1] reads rank 4, rows[3] reads rank 2"
        );
    }

    #[test]
    fn a_dead_square_does_not_hide_the_orientation() {
        let mapping = Mapping::from_orientation(Orientation::Rotate90);
        let dead = 1u64 << mapping.sensor(Square::B2);
        let mut all = candidates(reading(&mapping) & !dead, 0);
        assert_eq!(best(&all)[0].cost, 1);
        constrain(&mut all, mapping.sensor(Square::D1), Square::D1);
        assert_eq!(best(&all)[0].mapping, mapping);
    }
}
