//! Clock times as PGN comments write them (`[%clk 1:29:59]`, `[%emt 0:00:07]`).
//!
//! The PGN supplement (2001) writes both commands as `h:mm:ss` in whole
//! seconds, and so do DGT LiveChess and lichess exports; chess.com adds
//! tenths, which not every reader takes. touchmove writes whole seconds and
//! truncates: the record never shows more time than a player had, and
//! `0:00:00` appears only within the last second, as on a clock that shows
//! seconds. Elapsed times are truncated alike, so a move of 0.9 s reads
//! `0:00:00`.
use crate::Millis;

/// `h:mm:ss`, truncated to the whole second, for `[%clk ...]` (remaining
/// time after a move). Hours are not padded and are not limited to 9.
pub fn format_clk(ms: Millis) -> String {
    hms(ms)
}

/// `h:mm:ss`, truncated to the whole second, for `[%emt ...]` (time the
/// mover used on the move, pauses excluded).
pub fn format_emt(ms: Millis) -> String {
    hms(ms)
}

fn hms(ms: Millis) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
