//! Where scans come from: hardware backends, the simulated board and traces.
//!
//! Every backend is a small type behind [`Scanner`]; hardware access goes
//! through rppal or the embedded-hal traits so that tests drive fakes.
pub mod analog_adc;
pub mod bringup;
pub mod calibration;
pub mod clock_buttons;
pub mod gpio_matrix;
pub mod hal;
pub mod mapping;
pub mod mcp23017;
pub mod profile;
pub mod replay_trace;
pub mod shift_register;
pub mod sim;
pub mod trace_file;

use touchmove_core::Millis;
pub use touchmove_core::scan::Scan;

/// Why a scanner could not produce a scan.
#[derive(Debug, thiserror::Error)]
pub enum SensorError {
    /// The hardware is not there: not a Raspberry Pi, or the device node is missing.
    #[error("{0}")]
    Unavailable(String),
    /// The hardware answered, but not as expected.
    #[error("{0}")]
    Io(String),
    /// A finite source (a trace) has no more scans.
    #[error("end of input")]
    Exhausted,
}

/// A source of scans: one per backend.
pub trait Scanner {
    /// One line saying what this scanner reads (for logs and trace headers).
    fn describe(&self) -> String;
    /// Reads all 64 sensors once. `now` is the caller's time, used by
    /// simulated and replayed boards; hardware ignores it.
    fn scan(&mut self, now: Millis) -> Result<Scan, SensorError>;
}
