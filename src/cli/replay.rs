//! `touchmove replay`: runs a trace through the session in virtual time.
use std::path::PathBuf;

use clap::Args;

use touchmove_core::Millis;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::Event;
use touchmove_core::filter::Classify;
use touchmove_core::game::Profile;
use touchmove_core::game::pgn::{self, Tags};
use touchmove_core::replay::{SessionSetup, drive_numbered, parse_time_control};
use touchmove_core::session::Session;
use touchmove_core::trace::{self, Trace};

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
        let session = SessionSetup {
            profile: self.profile,
            start_fen: self.start_fen.as_deref(),
            time_control: time_control.clone(),
            settle_ms: self.settle_ms,
            nudge_ms: self.nudge_ms,
            classifier,
        }
        .build(trace)?;
        Ok((session, time_control))
    }
}

/// What a replay produced.
#[derive(Debug)]
pub struct Replayed {
    pub events: Vec<Event>,
    pub session: Session,
    pub time_control: Option<TimeControl>,
}

/// Replays a trace file as `touchmove replay` does.
pub fn replay_file(args: &ReplayArgs) -> anyhow::Result<Replayed> {
    let numbered = touchmove_hw::trace_file::read_numbered(&args.trace)?;
    let file = args.trace.display().to_string();
    args.session.check_header(&numbered, &file)?;
    let trace::NumberedTrace { trace, lines, .. } = numbered;
    let classifier: Option<Box<dyn Classify>> = match &args.calibration {
        Some(path) => {
            let calibration = crate::cli::calibrate::load_calibration(path)?;
            Some(Box::new(
                touchmove_core::filter::analog::AnalogClassifier::new(&calibration),
            ))
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
