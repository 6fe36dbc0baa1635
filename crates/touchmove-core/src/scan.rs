//! What the core reads: one raw scan of the 64 sensors, and the coloured
//! snapshot of the pieces a simulated or calibrated board reports.
use shakmaty::{Bitboard, Color};

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
