//! Where scans come from: hardware backends, the simulated board and traces.
//!
//! Every backend is a small type behind [`Scanner`]; hardware access goes
//! through rppal or the embedded-hal traits so that tests drive fakes.
pub mod clock_buttons;
pub mod gpio_matrix;
pub mod hal;
pub mod hall_adc;
pub mod mapping;
pub mod mcp23017;
pub mod profile;
pub mod replay_trace;
pub mod shift_register;
pub mod sim;
pub mod trace;

use shakmaty::{Bitboard, Color};

use crate::Millis;

/// One raw reading of the 64 sensors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// Occupancy: bit i set when square i (a1 = 0, h8 = 63) holds a piece.
    Occupancy(Bitboard),
    /// Raw analog levels of a Hall-sensor board, indexed by square.
    Analog(Box<[i32; 64]>),
}

/// What the physical board holds, with colours: the ground truth a simulated
/// board turns into scans, and what a calibrated Hall board can report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Snapshot {
    pub white: Bitboard,
    pub black: Bitboard,
}

impl Snapshot {
    pub fn occupied(&self) -> Bitboard {
        self.white | self.black
    }

    pub fn by_color(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The pieces of a position, as they stand on the board.
    pub fn of_board(board: &shakmaty::Board) -> Snapshot {
        Snapshot {
            white: board.white(),
            black: board.black(),
        }
    }
}

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
