//! What a board's view lacks, told in bounded size: the seqs missing
//! between the next one expected and the furthest one seen, as a count,
//! the first few, and the first few runs. The work is bounded by the
//! events held (at most [`super::limits::SEQ_WINDOW`]), never by the
//! size of the gap.
use serde::Serialize;

/// How many missing seqs are listed.
pub const LISTED: usize = 100;
/// How many runs of missing seqs are given.
pub const RANGES: usize = 16;

/// The missing seqs of one game.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Missing {
    /// How many seqs are missing in all.
    pub count: u64,
    /// The first [`LISTED`] of them.
    pub listed: Vec<u64>,
    /// The first [`RANGES`] runs, `[first, last]` both included.
    pub ranges: Vec<[u64; 2]>,
}

/// The seqs from `next` up to (not including) `horizon` that are not
/// `held`; `held` yields the held seqs at or after `next`, ascending.
pub fn missing(next: u64, horizon: u64, held: impl IntoIterator<Item = u64>) -> Missing {
    let mut out = Missing::default();
    let mut from = next;
    let run = |out: &mut Missing, from: u64, to: u64| {
        // The seqs from..to (excluded) are missing.
        if from >= to {
            return;
        }
        out.count += to - from;
        let room = LISTED - out.listed.len();
        out.listed.extend((from..to).take(room));
        if out.ranges.len() < RANGES {
            out.ranges.push([from, to - 1]);
        }
    };
    for seq in held {
        if seq >= horizon {
            break;
        }
        if seq < from {
            continue;
        }
        run(&mut out, from, seq);
        from = seq + 1;
    }
    run(&mut out, from, horizon);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_between_held_seqs() {
        let m = missing(1, 10, [3, 4, 8]);
        assert_eq!(m.count, 6);
        assert_eq!(m.listed, [1, 2, 5, 6, 7, 9]);
        assert_eq!(m.ranges, [[1, 2], [5, 7], [9, 9]]);
        assert_eq!(missing(4, 4, []), Missing::default());
    }

    #[test]
    fn a_huge_gap_is_a_count_and_a_range() {
        let m = missing(5, 1_000_000_000_000, [7]);
        assert_eq!(m.count, 1_000_000_000_000 - 6);
        assert_eq!(m.listed.len(), LISTED);
        assert_eq!(m.ranges, [[5, 6], [8, 999_999_999_999]]);
    }
}
