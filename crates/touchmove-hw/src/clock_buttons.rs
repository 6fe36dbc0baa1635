//! The chess clock's two buttons, wired to the Pi's GPIO: one per side, the
//! levers a player presses to complete his move (Article 6.7) and start his
//! opponent's clock. touchmove keeps the clocks itself (`touchmove_core::clock`);
//! these buttons only say who pressed when.
//!
//! [`ButtonPins`] reads whether each button is held now: on a Raspberry Pi
//! through rppal's embedded-hal pins ([`HalButtonPins`], [`open`]), in tests
//! through [`FakeButtons`]. The [`Debouncer`] is pure and time-injected: it
//! turns those samples into [`ButtonPress`] edges.
use std::sync::{Arc, Mutex};

use embedded_hal::digital::InputPin;
use shakmaty::Color;

use super::SensorError;
use super::hal::{self, pi};
use touchmove_core::Millis;

/// The default `debounce-ms`.
pub(crate) const DEFAULT_DEBOUNCE_MS: Millis = 20;
/// The longest `debounce-ms` a profile may ask for: longer would eat into
/// the time of a player who presses briefly.
pub(crate) const MAX_DEBOUNCE_MS: Millis = 200;

/// A validated `[clock]` table of a board profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockButtonsConfig {
    /// BCM number of White's button.
    pub white_pin: u8,
    /// BCM number of Black's button.
    pub black_pin: u8,
    /// A pressed button pulls its pin to ground (the pin has the internal
    /// pull-up); otherwise it pulls it to 3.3 V (internal pull-down).
    pub active_low: bool,
    /// How long a button must read pressed without a break to count.
    pub debounce_ms: Millis,
}

impl ClockButtonsConfig {
    /// The BCM number of `side`'s button.
    pub fn pin(&self, side: Color) -> u8 {
        match side {
            Color::White => self.white_pin,
            Color::Black => self.black_pin,
        }
    }
}

/// Whether each clock button is held now.
pub trait ButtonPins {
    /// `[white, black]`: true while that side's button is held down.
    fn read(&mut self) -> Result<[bool; 2], SensorError>;
}

/// A clock press: `side`'s button went down at `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ButtonPress {
    pub side: Color,
    /// When the button closed for good: the first sample of the unbroken
    /// run of "pressed" samples that made it count.
    pub t: Millis,
}

#[derive(Debug, Clone, Copy, Default)]
struct Side {
    /// The debounced state; `None` before the first sample.
    held: Option<bool>,
    /// A level differing from `held`, and the time it was first read.
    change: Option<(bool, Millis)>,
}

/// Turns samples of the two buttons into presses.
///
/// A button counts as pressed once it has read pressed in every sample for
/// `debounce_ms` (contact bounce and electrical spikes shorter than that
/// are ignored); the press is dated from the first of those samples.
/// Holding a button does not repeat the press: it must read released for
/// `debounce_ms` before it can be pressed again. A button already held at
/// the first sample is not a press. The two buttons are independent: when
/// both go down, each press is reported, the earlier first.
#[derive(Debug, Clone)]
pub struct Debouncer {
    debounce_ms: Millis,
    sides: [Side; 2],
}

impl Debouncer {
    pub fn new(debounce_ms: Millis) -> Debouncer {
        Debouncer {
            debounce_ms,
            sides: [Side::default(); 2],
        }
    }

    /// The buttons read `held` (`[white, black]`) at `t`; the presses this
    /// sample confirms are appended to `out` in time order. Samples come in
    /// time order.
    pub fn sample(&mut self, t: Millis, held: [bool; 2], out: &mut Vec<ButtonPress>) {
        let start = out.len();
        for (i, side) in [Color::White, Color::Black].into_iter().enumerate() {
            if let Some(at) = self.side_sample(i, t, held[i]) {
                out.push(ButtonPress { side, t: at });
            }
        }
        out[start..].sort_by_key(|p| p.t);
    }

    /// The debounced states, `[white, black]` (false before any sample).
    pub fn held(&self) -> [bool; 2] {
        self.sides.map(|s| s.held.unwrap_or(false))
    }

    /// One side's sample; the time of the press it confirms, if any.
    fn side_sample(&mut self, i: usize, t: Millis, level: bool) -> Option<Millis> {
        let debounce_ms = self.debounce_ms;
        let side = &mut self.sides[i];
        let Some(held) = side.held else {
            side.held = Some(level);
            return None;
        };
        if level == held {
            side.change = None;
            return None;
        }
        let since = match side.change {
            Some((changed_to, since)) if changed_to == level => since,
            _ => {
                side.change = Some((level, t));
                t
            }
        };
        if t.saturating_sub(since) < debounce_ms {
            return None;
        }
        side.held = Some(level);
        side.change = None;
        level.then_some(since)
    }
}

/// The two buttons and their debouncer.
pub struct ClockButtons {
    pins: Box<dyn ButtonPins + Send>,
    debouncer: Debouncer,
    description: String,
}

impl ClockButtons {
    pub fn new(
        pins: Box<dyn ButtonPins + Send>,
        debounce_ms: Millis,
        description: String,
    ) -> ClockButtons {
        ClockButtons {
            pins,
            debouncer: Debouncer::new(debounce_ms),
            description,
        }
    }

    /// One line saying which buttons these are (for logs).
    pub fn describe(&self) -> &str {
        &self.description
    }

    /// Reads the buttons at `t`; the presses confirmed are appended to `out`
    /// in time order. A failed read leaves the debouncer as it was.
    pub fn poll(&mut self, t: Millis, out: &mut Vec<ButtonPress>) -> Result<(), SensorError> {
        let held = self.pins.read()?;
        self.debouncer.sample(t, held, out);
        Ok(())
    }
}

impl std::fmt::Debug for ClockButtons {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClockButtons")
            .field("description", &self.description)
            .field("debouncer", &self.debouncer)
            .finish()
    }
}

/// Two embedded-hal input pins, White's and Black's.
pub struct HalButtonPins<I> {
    pins: [I; 2],
    active_low: bool,
}

impl<I: InputPin> HalButtonPins<I> {
    /// `pins` is `[white, black]`.
    pub fn new(pins: [I; 2], active_low: bool) -> HalButtonPins<I> {
        HalButtonPins { pins, active_low }
    }
}

impl<I: InputPin> ButtonPins for HalButtonPins<I> {
    fn read(&mut self) -> Result<[bool; 2], SensorError> {
        let mut held = [false; 2];
        for (i, pin) in self.pins.iter_mut().enumerate() {
            let side = if i == 0 { "White's" } else { "Black's" };
            let high = pin
                .is_high()
                .map_err(|e| hal::io_error(&format!("reading {side} clock button"), e))?;
            held[i] = high != self.active_low;
        }
        Ok(held)
    }
}

/// Opens the buttons on the Pi's GPIO; `who` names the profile in messages.
/// Off a Raspberry Pi it fails with one sentence saying what was tried.
pub fn open(config: &ClockButtonsConfig, who: &str) -> Result<ClockButtons, SensorError> {
    let gpio = pi::gpio(&format!("{who} [clock]"))?;
    let input = |bcm| {
        if config.active_low {
            pi::input_pullup(&gpio, bcm, who)
        } else {
            pi::input_pulldown(&gpio, bcm, who)
        }
    };
    let pins = [input(config.white_pin)?, input(config.black_pin)?];
    let description = format!(
        "clock buttons of {who}: White on BCM {}, Black on BCM {} (active {})",
        config.white_pin,
        config.black_pin,
        if config.active_low { "low" } else { "high" }
    );
    Ok(ClockButtons::new(
        Box::new(HalButtonPins::new(pins, config.active_low)),
        config.debounce_ms,
        description,
    ))
}

/// Buttons for tests: press and release them from the test, make reads fail.
#[derive(Debug, Clone, Default)]
pub struct FakeButtons {
    state: Arc<Mutex<FakeState>>,
}

#[derive(Debug, Default)]
struct FakeState {
    held: [bool; 2],
    failing: Option<String>,
    reads: u64,
}

impl FakeButtons {
    pub fn new() -> FakeButtons {
        FakeButtons::default()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, FakeState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Holds `side`'s button down (true) or lets it go (false).
    pub fn set(&self, side: Color, held: bool) {
        let i = match side {
            Color::White => 0,
            Color::Black => 1,
        };
        self.state().held[i] = held;
    }

    /// Every read fails with `message` until [`FakeButtons::repair`].
    pub fn fail(&self, message: &str) {
        self.state().failing = Some(message.to_owned());
    }

    pub fn repair(&self) {
        self.state().failing = None;
    }

    /// How many reads were attempted.
    pub fn reads(&self) -> u64 {
        self.state().reads
    }

    /// The pins end of these buttons, for [`ClockButtons::new`].
    pub fn pins(&self) -> Box<dyn ButtonPins + Send> {
        Box::new(self.clone())
    }
}

impl ButtonPins for FakeButtons {
    fn read(&mut self) -> Result<[bool; 2], SensorError> {
        let mut state = self.state();
        state.reads += 1;
        match &state.failing {
            Some(message) => Err(SensorError::Io(message.clone())),
            None => Ok(state.held),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Color = Color::White;
    const B: Color = Color::Black;

    /// Samples every `step` ms from `from` to `to` (inclusive) at the levels
    /// `levels(t)` gives; the presses confirmed.
    fn run(
        d: &mut Debouncer,
        from: Millis,
        to: Millis,
        step: Millis,
        levels: impl Fn(Millis) -> [bool; 2],
    ) -> Vec<ButtonPress> {
        let mut out = Vec::new();
        let mut t = from;
        while t <= to {
            d.sample(t, levels(t), &mut out);
            t += step;
        }
        out
    }

    #[test]
    fn a_bouncing_contact_is_one_press_dated_when_it_closed_for_good() {
        let mut d = Debouncer::new(20);
        // Released until 100, bounces 100-112, closed from 112 on.
        let bounce = |t: Millis| match t {
            0..100 => false,
            100..104 | 106..108 => true,
            104..106 | 108..112 => false,
            _ => true,
        };
        let presses = run(&mut d, 0, 300, 1, |t| [bounce(t), false]);
        assert_eq!(presses, [ButtonPress { side: W, t: 112 }]);
        assert_eq!(d.held(), [true, false]);
    }

    #[test]
    fn a_spike_shorter_than_the_debounce_time_is_not_a_press() {
        let mut d = Debouncer::new(20);
        let presses = run(&mut d, 0, 200, 5, |t| [false, (50..65).contains(&t)]);
        assert!(presses.is_empty(), "{presses:?}");
        // Read pressed from 250 to 270: 20 ms, it counts.
        let presses = run(&mut d, 205, 400, 5, |t| [false, (250..275).contains(&t)]);
        assert_eq!(presses, [ButtonPress { side: B, t: 250 }]);
    }

    #[test]
    fn holding_does_not_repeat_and_a_release_must_be_stable_too() {
        let mut d = Debouncer::new(20);
        // Pressed at 10 and held; a 10 ms release glitch at 500; released
        // at 1000; pressed again at 1500.
        let level = |t: Millis| matches!(t, 10..500 | 510..1000 | 1500..);
        let presses = run(&mut d, 0, 2000, 5, |t| [level(t), false]);
        assert_eq!(
            presses,
            [
                ButtonPress { side: W, t: 10 },
                ButtonPress { side: W, t: 1500 }
            ]
        );
    }

    #[test]
    fn a_button_held_at_the_first_sample_must_be_released_first() {
        let mut d = Debouncer::new(20);
        let presses = run(&mut d, 0, 100, 10, |_| [true, false]);
        assert!(presses.is_empty());
        let presses = run(&mut d, 110, 400, 10, |t| [!(110..200).contains(&t), false]);
        assert_eq!(presses, [ButtonPress { side: W, t: 200 }]);
    }

    #[test]
    fn both_buttons_pressed_together_are_reported_in_time_order() {
        let mut d = Debouncer::new(20);
        // Black closes at 30, White at 40: both confirmed by the sample at 60.
        let mut out = Vec::new();
        for t in [0, 30, 40] {
            d.sample(t, [t >= 40, t >= 30], &mut out);
        }
        assert!(out.is_empty());
        d.sample(60, [true, true], &mut out);
        assert_eq!(
            out,
            [
                ButtonPress { side: B, t: 30 },
                ButtonPress { side: W, t: 40 }
            ]
        );
    }

    #[test]
    fn without_debounce_a_single_sample_counts() {
        let mut d = Debouncer::new(0);
        let presses = run(&mut d, 0, 30, 10, |t| [false, t == 10 || t == 30]);
        assert_eq!(
            presses,
            [
                ButtonPress { side: B, t: 10 },
                ButtonPress { side: B, t: 30 }
            ]
        );
    }

    /// A pin at a fixed level, or failing.
    struct Level(Result<bool, ()>);

    #[derive(Debug)]
    struct PinFault;

    impl embedded_hal::digital::Error for PinFault {
        fn kind(&self) -> embedded_hal::digital::ErrorKind {
            embedded_hal::digital::ErrorKind::Other
        }
    }

    impl embedded_hal::digital::ErrorType for Level {
        type Error = PinFault;
    }

    impl InputPin for Level {
        fn is_high(&mut self) -> Result<bool, PinFault> {
            self.0.map_err(|()| PinFault)
        }
        fn is_low(&mut self) -> Result<bool, PinFault> {
            self.0.map(|h| !h).map_err(|()| PinFault)
        }
    }

    #[test]
    fn pin_levels_follow_the_polarity() {
        let mut low = HalButtonPins::new([Level(Ok(false)), Level(Ok(true))], true);
        assert_eq!(low.read().unwrap(), [true, false], "grounded = held");
        let mut high = HalButtonPins::new([Level(Ok(false)), Level(Ok(true))], false);
        assert_eq!(high.read().unwrap(), [false, true], "at 3.3 V = held");
        let mut broken = HalButtonPins::new([Level(Ok(true)), Level(Err(()))], true);
        let e = broken.read().unwrap_err().to_string();
        assert!(e.contains("Black's clock button"), "{e}");
    }

    #[test]
    fn a_failed_read_leaves_the_debouncer_as_it_was() {
        let fake = FakeButtons::new();
        let mut buttons = ClockButtons::new(fake.pins(), 20, "test".into());
        let mut out = Vec::new();
        buttons.poll(0, &mut out).unwrap();
        fake.set(W, true);
        buttons.poll(10, &mut out).unwrap();
        fake.fail("bus gone");
        let e = buttons.poll(20, &mut out).unwrap_err().to_string();
        assert_eq!(e, "bus gone");
        fake.repair();
        buttons.poll(30, &mut out).unwrap();
        assert_eq!(out, [ButtonPress { side: W, t: 10 }]);
        assert_eq!(fake.reads(), 4);
    }

    #[test]
    fn off_a_pi_opening_fails_with_one_sentence() {
        let model = std::fs::read_to_string("/proc/device-tree/model").unwrap_or_default();
        assert!(
            !model.contains("Raspberry Pi"),
            "this test expects a machine without the Pi's hardware"
        );
        let config = ClockButtonsConfig {
            white_pin: 5,
            black_pin: 6,
            active_low: true,
            debounce_ms: 20,
        };
        let e = open(&config, "board profile \"x\"").unwrap_err();
        assert!(matches!(e, SensorError::Unavailable(_)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("[clock]") && e.contains("not a Raspberry Pi"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }
}
