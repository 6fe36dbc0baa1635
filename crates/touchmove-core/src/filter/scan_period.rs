//! The board's scan period, read off the readings' times: how late a
//! reading may show a change, and how long a single-scan blip lasts.
//!
//! A trace need not say how often its board was read, and may hold only
//! the readings that changed (`../shared/spec/trace-format.md`). Two clues
//! remain: the shortest gap between two readings (contacts bounce for a few
//! milliseconds, so on a board read every millisecond this is soon 1), and
//! the grid all reading times fall on (a board read every 10 ms writes
//! times that are multiples of 10). Written by hand because no crate reads
//! a sampling period off irregular sample times.
use crate::Millis;

/// A period of this or more is none: readings written only at their
/// changes, each timed to the millisecond. (Boards are read every
/// 1–100 ms: the board profiles in `hw/` scan at 10 to 200 Hz, a Hall
/// board read through an ADC at 10 Hz the slowest. A slow board's period
/// is told, and the inference allows for readings that show each change
/// up to a period late; taken for readings to the millisecond, a board
/// read every 50 ms had pieces slid over squares read as set down there.)
pub const MAX_SCAN_PERIOD_MS: Millis = 120;

/// What the readings so far tell of the scan period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanPeriod {
    last: Option<Millis>,
    /// The shortest gap below [`MAX_SCAN_PERIOD_MS`] between two readings.
    gap: Option<Millis>,
    /// The greatest common divisor of the reading times after 0 (0 before
    /// the first).
    grid: Millis,
}

impl ScanPeriod {
    /// A reading at `t` (times never decrease).
    #[inline]
    pub fn observe(&mut self, t: Millis) {
        if let Some(gap) = self
            .last
            .map(|l| t.saturating_sub(l))
            .filter(|g| *g > 0 && *g < MAX_SCAN_PERIOD_MS)
        {
            self.gap = Some(self.gap.map_or(gap, |g| g.min(gap)));
        }
        self.last = Some(t);
        // (Once the grid divides the time, the divisor stays; a grid of
        // 1 ms, the common case, costs one comparison per reading.)
        if self.grid != 1 && !t.is_multiple_of(self.grid) {
            self.grid = gcd(self.grid, t);
        }
    }

    /// The shortest gap seen between two readings (below
    /// [`MAX_SCAN_PERIOD_MS`]), if any: a board read every millisecond
    /// soon shows 1 ms (contacts bounce), one read every 10 ms never less
    /// than its period less its jitter.
    pub fn shortest_gap(&self) -> Option<Millis> {
        self.gap
    }

    /// The longest scan period the readings allow, in ms: the period
    /// they show, else the grid their times fall on so far (below
    /// [`MAX_SCAN_PERIOD_MS`]: a board read every 20 ms and written only
    /// at its changes may show no gap yet while its times are all
    /// multiples of 120), 0 before any reading after the first.
    pub fn longest(&self) -> Millis {
        match self.period() {
            0 if self.grid > 0 => self.grid.min(MAX_SCAN_PERIOD_MS),
            period => period,
        }
    }

    /// The scan period the readings show, in ms: 0 when they show none
    /// (too few readings yet, or readings timed to the millisecond).
    pub fn period(&self) -> Millis {
        let grid = Some(self.grid).filter(|g| *g > 0);
        [self.gap, grid]
            .into_iter()
            .flatten()
            .min()
            .filter(|p| *p < MAX_SCAN_PERIOD_MS)
            .unwrap_or(0)
    }
}

/// Euclid's greatest common divisor (of 0 and `b`: `b`).
fn gcd(a: Millis, b: Millis) -> Millis {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period_of(times: &[Millis]) -> Millis {
        let mut p = ScanPeriod::default();
        for &t in times {
            p.observe(t);
        }
        p.period()
    }

    #[test]
    fn readings_on_a_grid_show_its_period() {
        assert_eq!(period_of(&[0, 1020, 1140, 1360, 3000]), 20);
        assert_eq!(period_of(&[0, 1010, 1020, 5000]), 10);
    }

    #[test]
    fn readings_to_the_millisecond_show_a_millisecond() {
        assert_eq!(period_of(&[0, 1003, 1005, 1964]), 1);
        assert_eq!(period_of(&[0, 1201, 2407]), 1);
    }

    #[test]
    fn far_apart_readings_show_none_until_the_grid_is_fine_enough() {
        // 1000 and 3000 alone: a grid of 1000 ms is no board's period.
        assert_eq!(period_of(&[0, 1000, 3000]), 0);
        assert_eq!(period_of(&[]), 0);
    }

    #[test]
    fn the_longest_period_allowed_is_the_grid_until_a_period_shows() {
        let longest = |times: &[Millis]| {
            let mut p = ScanPeriod::default();
            for &t in times {
                p.observe(t);
            }
            p.longest()
        };
        assert_eq!(longest(&[0, 2880, 3000]), 120);
        assert_eq!(longest(&[0, 2880, 3000, 4260]), 60);
        assert_eq!(longest(&[0, 2880, 2900]), 20);
        assert_eq!(longest(&[0, 2881, 3000]), 1);
        assert_eq!(longest(&[0]), 0);
    }

    #[test]
    fn the_shortest_gap_bounds_the_period() {
        // A board read every 5 ms whose first readings fell on 40s.
        assert_eq!(period_of(&[0, 40, 80, 85]), 5);
    }
}
