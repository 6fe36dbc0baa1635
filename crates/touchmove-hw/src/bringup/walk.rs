//! The square walk: every sensor must leave the state it had in the start
//! position and come back (a piece lifted and put back, a piece put on an
//! empty square and taken off), in any order.
//!
//! While the builder walks, the tracker notes which sensors change in the
//! same scan as others (a piece moves one square at a time, so sensors that
//! keep changing together are ghosting or shorted) and how long each change
//! bounces before it holds. Chattering contacts are found by the filter's
//! health checks ([`chatter_config`]) over the whole check.
use std::collections::BTreeMap;

use super::faults::Sensor;
use touchmove_core::Millis;
use touchmove_core::filter::health::HealthConfig;

/// The health checks' settings for a board read `scan_rate_hz` times a
/// second: a contact chatters when it toggles a fifth of the scans of a
/// second (at least 10, at most the filter's default of 60 toggles).
pub fn chatter_config(scan_rate_hz: u32) -> HealthConfig {
    let toggles = (scan_rate_hz / 5).clamp(10, u32::from(HealthConfig::DEFAULT_CHATTER_TOGGLES));
    HealthConfig {
        chatter_toggles: toggles as u16,
        ..HealthConfig::default()
    }
}

/// Changes of one sensor closer than this belong to one burst (bounce).
pub(crate) const BURST_MS: Millis = 50;
/// Sensors changing together at least this many times are linked.
pub const TOGETHER_TIMES: u32 = 2;

/// What the walk has seen.
#[derive(Debug, Clone)]
pub struct Walk {
    /// The sensors occupied when the walk began.
    initial: u64,
    previous: u64,
    left: u64,
    toggled: u64,
    /// Sensors that read a piece at some scan of the walk.
    ever_occupied: u64,
    /// Sensors that read empty at some scan of the walk.
    ever_empty: u64,
    /// How often each pair of sensors changed in the same scan.
    together: BTreeMap<(u8, u8), u32>,
    last_change: [Option<Millis>; 64],
    burst_start: [Millis; 64],
    /// The longest burst of each sensor.
    bounce: [Millis; 64],
}

impl Walk {
    /// A walk from `initial` (sensor bits).
    pub fn new(initial: u64) -> Walk {
        Walk {
            initial,
            previous: initial,
            left: 0,
            toggled: 0,
            ever_occupied: initial,
            ever_empty: !initial,
            together: BTreeMap::new(),
            last_change: [None; 64],
            burst_start: [0; 64],
            bounce: [0; 64],
        }
    }

    /// One scan of the walk (sensor bits).
    pub fn observe(&mut self, t: Millis, sensors: u64) {
        self.ever_occupied |= sensors;
        self.ever_empty |= !sensors;
        let away = sensors ^ self.initial;
        self.toggled |= self.left & !away;
        self.left |= away;
        let changed = sensors ^ self.previous;
        self.previous = sensors;
        let list: Vec<u8> = (0..64u8).filter(|i| changed >> i & 1 == 1).collect();
        for &i in &list {
            let s = usize::from(i);
            match self.last_change[s] {
                Some(last) if t.saturating_sub(last) <= BURST_MS => {
                    self.bounce[s] = self.bounce[s].max(t - self.burst_start[s]);
                }
                _ => self.burst_start[s] = t,
            }
            self.last_change[s] = Some(t);
        }
        if (2..=16).contains(&list.len()) {
            for (k, &a) in list.iter().enumerate() {
                for &b in &list[k + 1..] {
                    *self.together.entry((a, b)).or_default() += 1;
                }
            }
        }
    }

    /// Sensors that left their start state and came back.
    pub fn toggled(&self) -> u64 {
        self.toggled
    }

    pub(crate) fn ever_occupied(&self) -> u64 {
        self.ever_occupied
    }

    /// The longest bounce of the sensors that do not chatter.
    pub(crate) fn longest_bounce(&self, chattering: u64) -> Millis {
        (0..64)
            .filter(|i| chattering >> i & 1 == 0)
            .map(|i| self.bounce[i])
            .max()
            .unwrap_or(0)
    }

    /// Groups of sensors (two or more) that changed together at least
    /// [`TOGETHER_TIMES`] times, chattering sensors left out.
    pub fn together(&self, chattering: u64) -> Vec<Vec<Sensor>> {
        let mut group: [u8; 64] = std::array::from_fn(|i| i as u8);
        fn root(group: &mut [u8; 64], mut i: u8) -> u8 {
            while group[usize::from(i)] != i {
                i = group[usize::from(i)];
            }
            i
        }
        let mut linked = 0u64;
        for (&(a, b), &n) in &self.together {
            if n < TOGETHER_TIMES || (chattering >> a | chattering >> b) & 1 == 1 {
                continue;
            }
            linked |= 1 << a | 1 << b;
            let (ra, rb) = (root(&mut group, a), root(&mut group, b));
            group[usize::from(ra.max(rb))] = ra.min(rb);
        }
        let mut groups: BTreeMap<u8, Vec<Sensor>> = BTreeMap::new();
        for i in (0..64u8).filter(|i| linked >> i & 1 == 1) {
            let r = root(&mut group, i);
            groups.entry(r).or_default().push(Sensor(i));
        }
        groups.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lift_and_return_toggles_and_bounce_is_measured() {
        let mut walk = Walk::new(1 << 8);
        walk.observe(0, 1 << 8);
        walk.observe(10, 0);
        walk.observe(20, 1 << 8);
        walk.observe(30, 0);
        assert_eq!(walk.toggled(), 1 << 8, "left and came back");
        walk.observe(1000, 1 << 8);
        assert_eq!(walk.longest_bounce(0), 20);
        assert!(walk.together(0).is_empty());
    }

    #[test]
    fn sensors_changing_together_are_grouped() {
        let mut walk = Walk::new(0);
        let group = 1u64 << 20 | 1 << 21 | 1 << 23;
        for k in 0..3 {
            walk.observe(1000 * k, group);
            walk.observe(1000 * k + 500, 0);
            walk.observe(1000 * k + 700, 1 << 40);
            walk.observe(1000 * k + 900, 0);
        }
        assert_eq!(
            walk.together(0),
            vec![vec![Sensor(20), Sensor(21), Sensor(23)]]
        );
    }
}
