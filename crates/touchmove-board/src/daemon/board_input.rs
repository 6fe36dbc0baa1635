//! What a real board feeds the session each scan tick: the presses of its
//! clock buttons, if it has them, then one scan.
//!
//! The buttons are read first: a press the debouncer confirms now was made
//! a little earlier (when the contact closed), before the scan of this
//! tick. Its time is kept, but never earlier than the previous tick, which
//! the session has already seen. A button that cannot be read is reported
//! (at most once every [`BUTTON_WARNING_PERIOD_MS`]) and the board is
//! scanned all the same: the moves are still recorded, only not completed
//! until a press comes through.
use touchmove_core::Millis;
use touchmove_core::events::Event;
use touchmove_core::session::Session;
use touchmove_hw::clock_buttons::{ButtonPress, ClockButtons};
use touchmove_hw::{Scanner, SensorError};

/// How often a failing clock button is reported, at most.
pub const BUTTON_WARNING_PERIOD_MS: Millis = 10_000;

/// Lets a repeated warning through once per period and counts the others.
#[derive(Debug, Clone)]
pub(crate) struct Throttle {
    period_ms: Millis,
    last: Option<Millis>,
    suppressed: u64,
}

impl Throttle {
    pub fn new(period_ms: Millis) -> Throttle {
        Throttle {
            period_ms,
            last: None,
            suppressed: 0,
        }
    }

    /// The warning happened again at `t`: `Some(n)` if it is to be logged
    /// now, `n` being how many were held back since the last one logged.
    pub(crate) fn admit(&mut self, t: Millis) -> Option<u64> {
        match self.last {
            Some(last) if t.saturating_sub(last) < self.period_ms => {
                self.suppressed += 1;
                None
            }
            _ => {
                self.last = Some(t);
                Some(std::mem::take(&mut self.suppressed))
            }
        }
    }
}

/// A board's scanner and, if fitted, its clock buttons.
pub struct BoardInput {
    scanner: Box<dyn Scanner>,
    buttons: Option<ClockButtons>,
    presses: Vec<ButtonPress>,
    /// The time of the previous tick.
    last_t: Millis,
    button_warnings: Throttle,
}

impl BoardInput {
    pub fn new(scanner: Box<dyn Scanner>, buttons: Option<ClockButtons>) -> BoardInput {
        BoardInput {
            scanner,
            buttons,
            presses: Vec::new(),
            last_t: 0,
            button_warnings: Throttle::new(BUTTON_WARNING_PERIOD_MS),
        }
    }

    /// The scanner's description.
    pub fn describe(&self) -> String {
        self.scanner.describe()
    }

    /// One tick at `t`: the clock presses confirmed by now go to
    /// [`Session::clock_button`] (Article 6.7), then the board is scanned.
    /// The error is the scanner's (a button's is logged here); a scan the
    /// session refuses is logged too.
    pub fn tick(
        &mut self,
        session: &mut Session,
        t: Millis,
        out: &mut Vec<Event>,
    ) -> Result<(), SensorError> {
        if let Some(buttons) = &mut self.buttons {
            self.presses.clear();
            match buttons.poll(t, &mut self.presses) {
                Ok(()) => {
                    for press in &self.presses {
                        session.clock_button(press.t.max(self.last_t), press.side, out);
                    }
                }
                Err(e) => {
                    if let Some(held_back) = self.button_warnings.admit(t) {
                        let more = if held_back > 0 {
                            format!(" ({held_back} more failed reads since the last warning)")
                        } else {
                            String::new()
                        };
                        tracing::warn!("{}: {e}{more}", buttons.describe());
                    }
                }
            }
        }
        self.last_t = t;
        let scan = self.scanner.scan(t)?;
        if let Err(e) = session.scan(t, &scan, out) {
            tracing::warn!("scan at {t} ms: {e}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_warning_is_logged_once_per_period_with_the_count_held_back() {
        let mut throttle = Throttle::new(10_000);
        assert_eq!(throttle.admit(0), Some(0));
        assert_eq!(throttle.admit(10), None);
        assert_eq!(throttle.admit(9_999), None);
        assert_eq!(throttle.admit(10_000), Some(2));
        assert_eq!(throttle.admit(30_000), Some(0));
    }
}
