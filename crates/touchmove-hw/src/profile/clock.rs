//! `[clock]`: the chess clock's buttons on the Pi's own GPIO.
use touchmove_core::Millis;

use super::checker::Checker;
use super::raw::RawClock;
use crate::clock_buttons::{self, ClockButtonsConfig};

impl Checker {
    /// `[clock]`: two free GPIO pins and the debounce time.
    pub(super) fn clock(&mut self, table: &RawClock) -> ClockButtonsConfig {
        let white_pin = self.bcm("clock.white-pin".into(), table.white_pin);
        let black_pin = self.bcm("clock.black-pin".into(), table.black_pin);
        let debounce_ms = match table.debounce_ms {
            None => clock_buttons::DEFAULT_DEBOUNCE_MS,
            Some(ms) => match Millis::try_from(ms) {
                Ok(ms) if ms <= clock_buttons::MAX_DEBOUNCE_MS => ms,
                _ => {
                    self.problem(
                        "clock.debounce-ms",
                        format!(
                            "{ms} ms is outside 0 to {} ms",
                            clock_buttons::MAX_DEBOUNCE_MS
                        ),
                    );
                    clock_buttons::DEFAULT_DEBOUNCE_MS
                }
            },
        };
        ClockButtonsConfig {
            white_pin,
            black_pin,
            active_low: table.active_low.unwrap_or(true),
            debounce_ms,
        }
    }
}
