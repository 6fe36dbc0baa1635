//! The time the daemon's scan loop reads and waits on: the wall clock when
//! live, a virtual clock in tests (time jumps to each deadline the loop
//! waits for, so a game of minutes runs in moments and no test depends on
//! the machine's speed).
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A source of time for the scan loop and the live feed.
pub trait LoopClock: Send + Sync + std::fmt::Debug {
    /// The time now.
    fn now(&self) -> Instant;
    /// Returns at `deadline` (at once if it has passed).
    fn sleep_until(&self, deadline: Instant);
}

/// The machine's monotonic clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct WallClock;

impl LoopClock for WallClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep_until(&self, deadline: Instant) {
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
    }
}

/// Virtual time: it starts when made and moves only when the loop waits
/// (to the deadline it waits for) or a test [`advance`](Self::advance)s it.
#[derive(Debug)]
pub struct VirtualClock {
    base: Instant,
    elapsed: Mutex<Duration>,
}

impl VirtualClock {
    pub fn new() -> Arc<VirtualClock> {
        Arc::new(VirtualClock {
            base: Instant::now(),
            elapsed: Mutex::new(Duration::ZERO),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Duration> {
        self.elapsed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Virtual time since the clock was made.
    pub fn elapsed(&self) -> Duration {
        *self.lock()
    }

    /// Moves time on by `by`.
    pub fn advance(&self, by: Duration) {
        *self.lock() += by;
    }
}

impl LoopClock for VirtualClock {
    fn now(&self) -> Instant {
        self.base + self.elapsed()
    }

    fn sleep_until(&self, deadline: Instant) {
        {
            let mut elapsed = self.lock();
            *elapsed = (*elapsed).max(deadline.saturating_duration_since(self.base));
        }
        // Lets the other threads (the journal writer, the server) run
        // between ticks, as the wall clock's sleep does.
        std::thread::yield_now();
    }
}

/// The wall clock, shared.
pub fn wall() -> Arc<dyn LoopClock> {
    Arc::new(WallClock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_moves_only_when_waited_on_or_advanced() {
        let clock = VirtualClock::new();
        let start = clock.now();
        assert_eq!(clock.now(), start);
        clock.sleep_until(start + Duration::from_secs(90 * 60));
        assert_eq!(clock.elapsed(), Duration::from_secs(90 * 60));
        // A deadline already passed does not move time back.
        clock.sleep_until(start + Duration::from_secs(1));
        assert_eq!(clock.now(), start + Duration::from_secs(90 * 60));
        clock.advance(Duration::from_millis(5));
        assert_eq!(
            clock.now() - start,
            Duration::from_millis(90 * 60 * 1000 + 5)
        );
    }
}
