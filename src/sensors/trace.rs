//! Trace format v1 (`../shared/spec/trace-format.md`): records and writer.
use std::fmt;

use shakmaty::{Bitboard, Color, Role};

use crate::Millis;

/// One record of a trace, without its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// `<t> <occ>`: an occupancy scan.
    Occupancy(Bitboard),
    /// `<t> clock <white|black>`: that side's clock button was pressed.
    Clock(Color),
    /// `<t> promote <q|r|b|n>`: a promotion choice was entered.
    Promote(Role),
    /// `<t> hall <v0>,...,<v63>`: one raw analog scan.
    Hall(Box<[i32; 64]>),
}

/// A record and the time it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedRecord {
    pub t: Millis,
    pub record: Record,
}

/// The optional header lines of a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `#! start-fen:` the starting position (FEN or X-FEN).
    pub start_fen: Option<String>,
    /// `#! profile:` the rules profile name.
    pub profile: Option<String>,
    /// `#! board:` what recorded it.
    pub board: Option<String>,
}

/// A whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub header: Header,
    pub records: Vec<TimedRecord>,
}

impl fmt::Display for TimedRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.t)?;
        match &self.record {
            Record::Occupancy(bb) => write!(f, "{:016X}", u64::from(*bb)),
            Record::Clock(color) => write!(f, "clock {}", color),
            Record::Promote(role) => write!(f, "promote {}", role.char()),
            Record::Hall(values) => {
                f.write_str("hall ")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# touchmove-trace v1")?;
        if let Some(fen) = &self.header.start_fen {
            writeln!(f, "#! start-fen: {fen}")?;
        }
        if let Some(profile) = &self.header.profile {
            writeln!(f, "#! profile: {profile}")?;
        }
        if let Some(board) = &self.header.board {
            writeln!(f, "#! board: {board}")?;
        }
        for record in &self.records {
            writeln!(f, "{record}")?;
        }
        Ok(())
    }
}
