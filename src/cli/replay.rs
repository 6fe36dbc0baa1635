//! `touchmove replay`: runs a trace through the session in virtual time.
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use crate::Millis;
use crate::clock::TimeControl;
use crate::events::Event;
use crate::filter::{Classify, FilterError};
use crate::game::echo::quoted;
use crate::game::pgn::{self, Tags};
use crate::game::{Profile, Start};
use crate::inference::{Completion, InferenceConfig};
use crate::sensors::Scan;
use crate::sensors::trace::{self, Record, TimedRecord, Trace};
use crate::session::{Session, SessionConfig};

/// Arguments of `touchmove replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace file (format v1).
    pub trace: PathBuf,
    /// Print one JSON event per line (the default when --pgn is not given).
    #[arg(long)]
    pub events: bool,
    /// Print the game as PGN.
    #[arg(long)]
    pub pgn: bool,
    #[command(flatten)]
    pub session: SessionArgs,
    /// Calibration profile for `hall` traces.
    #[arg(long)]
    pub calibration: Option<PathBuf>,
}

/// How a trace's session is set up, overriding its header: the options
/// `replay` and `journal write-trace` share.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// Rules profile (overrides the trace header): fide-standard, fide-rapid,
    /// fide-blitz, fide-2005, casual.
    #[arg(long)]
    pub profile: Option<Profile>,
    /// Start position, FEN or X-FEN (overrides the trace header).
    #[arg(long)]
    pub start_fen: Option<String>,
    /// Time control of the clock touchmove keeps, e.g. `90+30`, `40/90,30+30`,
    /// or the PGN form `5400+30`.
    #[arg(long)]
    pub time_control: Option<String>,
    /// How long a piece must stand on a square to count as released (ms,
    /// 0 to 60000).
    #[arg(long, value_parser = window_ms())]
    pub settle_ms: Option<Millis>,
    /// A piece off its square for less than this and back on it was
    /// brushed, not touched (Article 4.3), in ms (default 120; 0 to 60000).
    #[arg(long, value_parser = window_ms())]
    pub nudge_ms: Option<Millis>,
}

/// The longest time window the command line takes (`--settle-ms`,
/// `--nudge-ms`, `--pause-ms`): a minute.
pub const MAX_WINDOW_MS: Millis = 60_000;

/// The value parser of a time window in milliseconds: 0 to
/// [`MAX_WINDOW_MS`], so that no window added to a time can wrap (clap
/// names the option and the value when one is out of range).
pub fn window_ms() -> clap::builder::RangedU64ValueParser<Millis> {
    clap::value_parser!(u64).range(0..=MAX_WINDOW_MS)
}

impl SessionArgs {
    /// Checks the header values of `numbered` that these arguments do not
    /// override, naming the file and the line.
    pub fn check_header(&self, numbered: &trace::NumberedTrace, file: &str) -> anyhow::Result<()> {
        numbered.check_session_header(file, self.start_fen.is_some(), self.profile.is_some())?;
        Ok(())
    }

    /// The session for `trace` and the time control it keeps.
    pub fn session(
        &self,
        trace: &Trace,
        classifier: Option<Box<dyn Classify>>,
    ) -> anyhow::Result<(Session, Option<TimeControl>)> {
        let time_control = self
            .time_control
            .as_deref()
            .map(parse_time_control)
            .transpose()?;
        let nudge_ms = self.nudge_ms;
        let session = session_for_with(
            trace,
            self.profile,
            self.start_fen.as_deref(),
            time_control.clone(),
            self.settle_ms,
            classifier,
            |inference| {
                if let Some(ms) = nudge_ms {
                    inference.nudge_ms = ms;
                }
            },
        )?;
        Ok((session, time_control))
    }
}

/// The longest time control text read: the longest real ones (several
/// periods with moves, bonus and delay) take some 40 characters.
pub const MAX_TIME_CONTROL_CHARS: usize = 200;

/// Parses a time control in the human or the PGN form.
pub fn parse_time_control(text: &str) -> anyhow::Result<TimeControl> {
    let length = text.chars().count();
    if length > MAX_TIME_CONTROL_CHARS {
        anyhow::bail!(
            "time control {} is {length} characters long; at most {MAX_TIME_CONTROL_CHARS}",
            quoted(text)
        );
    }
    match TimeControl::parse_human(text) {
        Ok(tc) => Ok(tc),
        Err(human) => match TimeControl::parse_pgn(text) {
            Ok(crate::clock::TimeControlTag::Timed(tc)) => Ok(tc),
            Ok(_) => anyhow::bail!("time control {} has no time to keep", quoted(text)),
            Err(_) => Err(human.into()),
        },
    }
}

/// What a replay produced.
#[derive(Debug)]
pub struct Replayed {
    pub events: Vec<Event>,
    pub session: Session,
    pub time_control: Option<TimeControl>,
}

/// Sets up a session for `trace` from its header and the overrides.
pub fn session_for(
    trace: &Trace,
    profile: Option<Profile>,
    start_fen: Option<&str>,
    time_control: Option<TimeControl>,
    settle_ms: Option<Millis>,
    classifier: Option<Box<dyn Classify>>,
) -> anyhow::Result<Session> {
    session_for_with(
        trace,
        profile,
        start_fen,
        time_control,
        settle_ms,
        classifier,
        |_| {},
    )
}

/// [`session_for`], with the hand tracker's settings adjusted by `tune`.
pub fn session_for_with(
    trace: &Trace,
    profile: Option<Profile>,
    start_fen: Option<&str>,
    time_control: Option<TimeControl>,
    settle_ms: Option<Millis>,
    classifier: Option<Box<dyn Classify>>,
    tune: impl FnOnce(&mut InferenceConfig),
) -> anyhow::Result<Session> {
    let profile = match profile {
        Some(p) => p,
        None => match &trace.header.profile {
            Some(name) => name.parse().context("the trace's `#! profile:` header")?,
            None => Profile::FideStandard,
        },
    };
    let start = match (start_fen, trace.header.start_fen.as_deref()) {
        (Some(fen), _) => Start::parse(fen).context("--start-fen")?,
        (None, Some(fen)) => Start::parse(fen).context("the trace's `#! start-fen:` header")?,
        (None, None) => Start::standard(),
    };
    let has_clock = trace
        .records
        .iter()
        .any(|r| matches!(r.record, Record::Clock(_)));
    let mut inference = InferenceConfig {
        completion: if has_clock || time_control.is_some() {
            Completion::ClockPress
        } else {
            Completion::Settle
        },
        ..InferenceConfig::default()
    };
    if let Some(ms) = settle_ms {
        inference.settle_ms = ms;
    }
    tune(&mut inference);
    let config = SessionConfig {
        start,
        profile,
        inference,
        time_control,
        ..SessionConfig::default()
    };
    Ok(Session::new(config, classifier))
}

/// Runs every record of `trace` through `session` in virtual time; after
/// the last record, time runs on until the board's timers have fired. An
/// error names the record by its number (see [`drive_numbered`] for lines).
pub fn drive(session: &mut Session, trace: &Trace, file: &str) -> anyhow::Result<Vec<Event>> {
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

/// [`drive`] for a trace read with its lines ([`trace::read_numbered`]):
/// an error names the file and the line of the record at fault.
pub fn drive_numbered(
    session: &mut Session,
    trace: &Trace,
    lines: &[usize],
    file: &str,
) -> anyhow::Result<Vec<Event>> {
    let mut events = Vec::new();
    for (i, record) in trace.records.iter().enumerate() {
        apply(session, record, &mut events).with_context(|| record_place(file, lines, i))?;
    }
    while let Some(deadline) = session.next_board_deadline() {
        session.advance(deadline, &mut events);
    }
    Ok(events)
}

/// Hands one trace record to the session at its time: a scan, a clock
/// press or a promotion choice.
pub fn apply(
    session: &mut Session,
    record: &TimedRecord,
    events: &mut Vec<Event>,
) -> Result<(), FilterError> {
    let t = record.t;
    match &record.record {
        Record::Occupancy(bb) => session.scan(t, &Scan::Occupancy(*bb), events)?,
        Record::Hall(values) => session.scan(t, &Scan::Analog(values.clone()), events)?,
        Record::Clock(side) => session.clock_button(t, *side, events),
        Record::Promote(role) => session.promote(t, *role, events),
    }
    Ok(())
}

/// Replays a trace file as `touchmove replay` does.
pub fn replay_file(args: &ReplayArgs) -> anyhow::Result<Replayed> {
    let numbered = trace::read_numbered(&args.trace)?;
    let file = args.trace.display().to_string();
    args.session.check_header(&numbered, &file)?;
    let trace::NumberedTrace { trace, lines, .. } = numbered;
    let classifier: Option<Box<dyn Classify>> = match &args.calibration {
        Some(path) => {
            let calibration = crate::cli::calibrate::load_calibration(path)?;
            Some(Box::new(crate::filter::hall::HallClassifier::new(
                &calibration,
            )))
        }
        None => None,
    };
    let (mut session, time_control) = args.session.session(&trace, classifier)?;
    let events = drive_numbered(&mut session, &trace, &lines, &file)?;
    Ok(Replayed {
        events,
        session,
        time_control,
    })
}

/// The PGN of a replayed game.
pub fn pgn_of(replayed: &Replayed) -> String {
    let tags = Tags {
        event: "touchmove replay".into(),
        time_control: replayed.time_control.as_ref().map(TimeControl::to_pgn),
        ..Tags::default()
    };
    pgn::write(replayed.session.game(), &tags)
}

pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    use std::io::Write as _;
    // Everything is concluded before anything is printed: a malformed
    // trace prints nothing on standard output.
    let replayed = replay_file(&args)?;
    let mut text = String::new();
    if args.events || !args.pgn {
        for e in &replayed.events {
            text.push_str(&e.to_json());
            text.push('\n');
        }
    }
    if args.pgn {
        text.push_str(&pgn_of(&replayed));
    }
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}
