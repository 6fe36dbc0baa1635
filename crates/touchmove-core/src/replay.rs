//! Sets up a [`Session`] for a trace and drives the trace through it in
//! virtual time: what `touchmove replay`, the journal's trace export, the
//! daemon's simulated board and the tests share.
//!
//! ```
//! use touchmove_core::replay::{drive, session_for};
//! use touchmove_core::trace;
//!
//! // White's pawn leaves e2 (with a bounce) and stands on e4; the clock
//! // is pressed.
//! let text = "\
//! 0 FFFF00000000FFFF
//! 1200 FFFF00000000EFFF
//! 1202 FFFF00000000FFFF
//! 1204 FFFF00000000EFFF
//! 1900 FFFF00001000EFFF
//! 2600 clock white
//! ";
//! let trace = trace::parse(text, "e4.trace").unwrap();
//! let mut session = session_for(&trace, None, None, None, None, None).unwrap();
//! let events = drive(&mut session, &trace, "e4.trace").unwrap();
//! let sans: Vec<String> = session.game().moves().iter().map(|m| m.san.to_string()).collect();
//! assert_eq!(sans, ["e4"]);
//! // Touch (4.3), made (4.6), completed at the clock press (6.7).
//! let kinds: Vec<String> = events.iter().map(|e| e.to_json()).collect();
//! assert!(kinds.iter().any(|j| j.contains("\"move_completed\"")), "{kinds:#?}");
//! ```
use crate::Millis;
use crate::clock::{TimeControl, TimeControlError, TimeControlTag};
use crate::events::Event;
use crate::filter::{Classify, FilterError};
use crate::game::echo::quoted;
use crate::game::profile::UnknownProfile;
use crate::game::{Profile, Start, StartError};
use crate::inference::{Completion, InferenceConfig};
use crate::session::{Resumption, Session, SessionConfig};
use crate::trace::{Record, TimedRecord, Trace};

/// The longest time control text read: the longest real ones (several
/// periods with moves, bonus and delay) take some 40 characters.
pub(crate) const MAX_TIME_CONTROL_CHARS: usize = 200;

/// Why a time control given as text is not one the clock can keep.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadTimeControl {
    #[error("time control {text} is {length} characters long; at most {MAX_TIME_CONTROL_CHARS}")]
    TooLong { text: String, length: usize },
    #[error("time control {0} has no time to keep")]
    Untimed(String),
    #[error(transparent)]
    Unreadable(#[from] TimeControlError),
}

/// The longest period the human form is taken to mean: longer, and the
/// text is read in the PGN form (seconds) if it can be. `5400+30` is
/// 90 minutes plus 30 seconds, not 90 hours.
pub const MAX_HUMAN_PERIOD_MS: Millis = 10 * 60 * 60 * 1000;

/// Parses a time control in the human form (`90+30`, `40/90,30+30`:
/// minutes) or the PGN form (`5400+30`, `40/5400:1800+30`: seconds). A
/// text both forms read is taken in the human form, unless that gives a
/// period over [`MAX_HUMAN_PERIOD_MS`] (no real game has one).
///
/// ```
/// use touchmove_core::replay::parse_time_control;
///
/// let human = parse_time_control("90+30").unwrap();
/// let pgn = parse_time_control("5400+30").unwrap();
/// assert_eq!(human, pgn);
/// assert_eq!(human.to_pgn(), "5400+30");
/// assert!(parse_time_control("3x+2").is_err());
/// ```
pub fn parse_time_control(text: &str) -> Result<TimeControl, BadTimeControl> {
    let length = text.chars().count();
    if length > MAX_TIME_CONTROL_CHARS {
        return Err(BadTimeControl::TooLong {
            text: quoted(text),
            length,
        });
    }
    let implausible =
        |tc: &TimeControl| tc.periods().iter().any(|p| p.time_ms > MAX_HUMAN_PERIOD_MS);
    match TimeControl::parse_human(text) {
        Ok(tc) if !implausible(&tc) => Ok(tc),
        Ok(tc) => match TimeControl::parse_pgn(text) {
            Ok(TimeControlTag::Timed(pgn)) => Ok(pgn),
            _ => Ok(tc),
        },
        Err(human) => match TimeControl::parse_pgn(text) {
            Ok(TimeControlTag::Timed(tc)) => Ok(tc),
            Ok(_) => Err(BadTimeControl::Untimed(quoted(text))),
            Err(_) => Err(human.into()),
        },
    }
}

/// Why a session could not be set up for a trace.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error("the trace's `#! profile:` header: {0}")]
    HeaderProfile(UnknownProfile),
    #[error("--start-fen: {0}")]
    StartFen(StartError),
    #[error("the trace's `#! start-fen:` header: {0}")]
    HeaderStartFen(StartError),
}

/// How a session is set up for a trace: its header's profile and start,
/// with these overrides (`None`: the header's or the default).
#[derive(Default)]
pub struct SessionSetup<'a> {
    pub profile: Option<Profile>,
    /// FEN, X-FEN, `standard` or `chess960:N`.
    pub start_fen: Option<&'a str>,
    pub time_control: Option<TimeControl>,
    /// How long a piece must stand to count as released (4.6).
    pub settle_ms: Option<Millis>,
    /// A lift shorter than this, back on its square, is a brush (4.3).
    pub nudge_ms: Option<Millis>,
    /// Reads analog scans (a calibrated Hall-sensor board).
    pub classifier: Option<Box<dyn Classify>>,
}

impl SessionSetup<'_> {
    /// The session for `trace`. A trace with clock presses, or a time
    /// control, completes moves at the press (6.7); else on settling.
    pub fn build(self, trace: &Trace) -> Result<Session, SetupError> {
        let profile = match self.profile {
            Some(p) => p,
            None => match &trace.header.profile {
                Some(name) => name.parse().map_err(SetupError::HeaderProfile)?,
                None => Profile::FideStandard,
            },
        };
        let start = match (self.start_fen, trace.header.start_fen.as_deref()) {
            (Some(fen), _) => Start::parse(fen).map_err(SetupError::StartFen)?,
            (None, Some(fen)) => Start::parse(fen).map_err(SetupError::HeaderStartFen)?,
            (None, None) => Start::standard(),
        };
        let has_clock = trace
            .records
            .iter()
            .any(|r| matches!(r.record, Record::Clock(_)));
        let defaults = InferenceConfig::default();
        let inference = InferenceConfig {
            completion: if has_clock || self.time_control.is_some() {
                Completion::ClockPress
            } else {
                Completion::Settle
            },
            settle_ms: self.settle_ms.unwrap_or(defaults.settle_ms),
            nudge_ms: self.nudge_ms.unwrap_or(defaults.nudge_ms),
            ..defaults
        };
        let config = SessionConfig {
            start,
            profile,
            inference,
            time_control: self.time_control,
            ..SessionConfig::default()
        };
        Ok(Session::new(config, self.classifier))
    }
}

/// Sets up a session for `trace` from its header and the overrides (a
/// shorthand of [`SessionSetup`]).
pub fn session_for(
    trace: &Trace,
    profile: Option<Profile>,
    start_fen: Option<&str>,
    time_control: Option<TimeControl>,
    settle_ms: Option<Millis>,
    classifier: Option<Box<dyn Classify>>,
) -> Result<Session, SetupError> {
    SessionSetup {
        profile,
        start_fen,
        time_control,
        settle_ms,
        nudge_ms: None,
        classifier,
    }
    .build(trace)
}

/// A record a session could not take, named by its place in the trace.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {error}")]
pub struct ReplayError {
    /// `file:line`, or `file: record N` when the line is not known.
    pub place: String,
    pub error: FilterError,
}

/// How long time runs on after a trace's last record, at most, for the
/// board's timers to fire: ten minutes, far beyond any chain of them
/// (each window is at most a minute: `--settle-ms` and the others take
/// 0..=60000), so that a timer that renewed itself for ever cannot hold
/// a replay for ever.
pub const RUN_ON_MS: Millis = 600_000;

/// Runs every record of `trace` through `session` in virtual time; after
/// the last record, time runs on until the board's timers have fired. An
/// error names the record by its number (see [`drive_numbered`] for lines).
pub fn drive(session: &mut Session, trace: &Trace, file: &str) -> Result<Vec<Event>, ReplayError> {
    drive_numbered(session, trace, &[], file)
}

/// Where record `i` (0-based) of a trace stands, for an error:
/// `file:line` when `lines` knows its line, else `file: record N`.
pub fn record_place(file: &str, lines: &[usize], i: usize) -> String {
    match lines.get(i) {
        Some(line) => format!("{file}:{line}"),
        None => format!("{file}: record {}", i + 1),
    }
}

/// [`drive`] for a trace read with its lines: an error names the file and
/// the line of the record at fault.
pub fn drive_numbered(
    session: &mut Session,
    trace: &Trace,
    lines: &[usize],
    file: &str,
) -> Result<Vec<Event>, ReplayError> {
    let mut events = Vec::new();
    for (i, record) in trace.records.iter().enumerate() {
        session
            .apply(record, &mut events)
            .map_err(|error| ReplayError {
                place: record_place(file, lines, i),
                error,
            })?;
    }
    let last = trace.records.last().map_or(0, |r| r.t);
    let mut end = last;
    while let Some(deadline) = session
        .next_board_deadline()
        .filter(|d| *d <= last.saturating_add(RUN_ON_MS))
    {
        session.advance(deadline, &mut events);
        end = end.max(deadline);
    }
    session.input_ended(end, &mut events);
    Ok(events)
}

/// A trace's records up to `t` (`done`) read again by a session of its
/// own, to carry on a journal's game in place of a daemon that went down
/// at `t` ([`Session::carry_on`]): what the hands were doing then is
/// known as it was — a piece in the air, a capture waiting for its piece
/// to stand — where [`Session::resume`] reads the board afresh. The events
/// read again are the journal's already and are dropped. `None` when that
/// session's record is not the one `resume` restores (an arbiter's
/// ruling the trace does not hold, a journal of another trace).
pub fn read_again(
    done: &[TimedRecord],
    config: &SessionConfig,
    t: Millis,
    resume: &Resumption,
) -> Option<Session> {
    let mut session = Session::new(config.clone(), None);
    let mut events = Vec::new();
    for record in done {
        session.apply(record, &mut events).ok()?;
        events.clear();
    }
    session.advance(t, &mut events);
    session.holds_the_record_of(resume).then_some(session)
}

impl Session {
    /// Hands one trace record to the session at its time: a scan, a clock
    /// press or a promotion choice.
    pub fn apply(
        &mut self,
        record: &TimedRecord,
        events: &mut Vec<Event>,
    ) -> Result<(), FilterError> {
        let t = record.t;
        match &record.record {
            Record::Clock(side) => self.clock_button(t, *side, events),
            Record::Promote(role) => self.promote(t, *role, events),
            scan => {
                if let Some(scan) = scan.scan() {
                    self.scan(t, &scan, events)?;
                }
            }
        }
        Ok(())
    }
}
