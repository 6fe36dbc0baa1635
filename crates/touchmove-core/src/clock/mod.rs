//! The chess clock (Article 6): time controls, the clock itself, and the
//! PGN forms of its times. Pure and time-injected: every call takes the time
//! in ms, nothing reads a wall clock.
//!
//! - [`time_control`]: [`TimeControl`] (periods, increments, delays), read
//!   from and written to the PGN `TimeControl` tag and a short human form.
//! - [`chess_clock`]: [`Clock`], started, pressed, paused, adjusted and
//!   advanced in time; it reports flag falls, the rules decide what they mean.
//! - [`format`](mod@format): `[%clk]` and `[%emt]` times.
//!
//! Article numbers are those of the FIDE Laws of 2005 unless said otherwise.
pub mod chess_clock;
pub mod format;
pub mod time_control;

pub use chess_clock::{
    Change, Clock, ClockError, ClockState, Completed, FlagReport, IgnoreReason, LogEntry, Pause,
    PauseReason, Press, SetTimes, Source, TimeReason,
};
pub use format::{format_clk, format_emt};
pub use time_control::{
    Bonus, DelayKind, ErrorKind, InvalidTimeControl, Period, TimeControl, TimeControlError,
    TimeControlTag,
};
