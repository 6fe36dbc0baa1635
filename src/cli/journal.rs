//! `touchmove journal`: the games a board's journal holds — list them,
//! export one as PGN or JSON lines, check the file.
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};

use touchmove_board::outputs::journal::{GameId, GameMeta, Journal, wall_clock_now};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::{Game, Start, TagValue};
use touchmove_core::session::Session;
use touchmove_core::trace;

/// Arguments of `touchmove journal`.
#[derive(Debug, Args)]
pub struct JournalArgs {
    /// The journal file [default: $STATE_DIRECTORY/journal.sqlite3 when
    /// STATE_DIRECTORY is set (systemd), else ./touchmove-journal.sqlite3].
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: JournalCommand,
}

#[derive(Debug, Subcommand)]
pub enum JournalCommand {
    /// List the games: number, date, players, result, plies.
    List,
    /// Print one game as PGN or as its events (one JSON object per line).
    Export(ExportArgs),
    /// Check the file (SQLite integrity check) and replay every game.
    Check,
    /// Run a trace through the session, journaling every event before
    /// printing it; on a journal that holds part of the trace's events,
    /// resume after them (a test of durability).
    #[command(hide = true)]
    WriteTrace(WriteTraceArgs),
}

/// Which game: its number, `current` (in progress) or `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameRef {
    Id(GameId),
    Current,
    Last,
}

impl std::str::FromStr for GameRef {
    type Err = String;
    fn from_str(s: &str) -> Result<GameRef, String> {
        match s.trim() {
            "current" => Ok(GameRef::Current),
            "last" => Ok(GameRef::Last),
            other => other
                .parse()
                .map(GameRef::Id)
                .map_err(|e| format!("{e}, `current` or `last`")),
        }
    }
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("format").required(true).multiple(false)))]
pub struct ExportArgs {
    /// PGN (Seven Tag Roster, `[%clk]` where a clock ran).
    #[arg(long, group = "format")]
    pub pgn: bool,
    /// The game's events, one JSON object per line.
    #[arg(long, group = "format")]
    pub json: bool,
    /// The game: its number (see `list`), `current` or `last`.
    pub game: GameRef,
}

#[derive(Debug, Args)]
pub struct WriteTraceArgs {
    /// The trace file (format v1).
    pub trace: PathBuf,
    #[command(flatten)]
    pub session: super::replay::SessionArgs,
    /// Wall-clock start of the game [default: now].
    #[arg(long)]
    pub started_at: Option<String>,
    /// Pause after each journaled event (ms, 0 to 60000), to run at a human pace.
    #[arg(long, default_value_t = 0, value_parser = super::replay::window_ms())]
    pub pause_ms: u64,
}

/// The default journal path: `$STATE_DIRECTORY/journal.sqlite3` under
/// systemd's `StateDirectory=` (the first, if several), else
/// `./touchmove-journal.sqlite3`.
pub fn default_db_path(state_directory: Option<&str>) -> PathBuf {
    match state_directory
        .and_then(|dirs| dirs.split(':').next())
        .filter(|d| !d.is_empty())
    {
        Some(dir) => Path::new(dir).join("journal.sqlite3"),
        None => PathBuf::from("touchmove-journal.sqlite3"),
    }
}

pub fn run(args: JournalArgs) -> anyhow::Result<()> {
    let db = args
        .db
        .unwrap_or_else(|| default_db_path(std::env::var("STATE_DIRECTORY").ok().as_deref()));
    match args.command {
        JournalCommand::List => list(&db),
        JournalCommand::Export(export) => self::export(&db, &export),
        JournalCommand::Check => check(&db),
        JournalCommand::WriteTrace(write) => write_trace(&db, &write),
    }
}

fn print(text: &str) -> anyhow::Result<()> {
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

fn list(db: &Path) -> anyhow::Result<()> {
    let journal = Journal::open_read_only(db)?;
    let games = journal.list()?;
    let mut rows = vec![[
        "game".to_owned(),
        "started".to_owned(),
        "white".to_owned(),
        "black".to_owned(),
        "result".to_owned(),
        "plies".to_owned(),
        "event".to_owned(),
    ]];
    for g in &games {
        let result = match (&g.result, &g.reason, g.ended) {
            (Some(r), Some(why), _) => format!("{r} ({why})"),
            (Some(r), None, _) => r.clone(),
            (None, Some(why), true) => format!("* ({why})"),
            (None, _, true) => "*".to_owned(),
            (None, _, false) => "* (in progress)".to_owned(),
        };
        // One row a game: a value that reached the journal with a line
        // break (before the tag value rule) is shown on its row.
        let cell = |v: &str| TagValue::lossy(v).into_string();
        rows.push([
            g.id.to_string(),
            cell(&g.started_at),
            cell(&g.white),
            cell(&g.black),
            cell(&result),
            g.plies.to_string(),
            cell(&g.event),
        ]);
    }
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    if games.is_empty() {
        text = format!("{}: no games\n", db.display());
    }
    print(&text)
}

fn resolve(journal: &Journal, game: GameRef) -> anyhow::Result<GameId> {
    let path = journal.path().display();
    Ok(match game {
        GameRef::Id(id) => id,
        GameRef::Current => match journal.current_game()? {
            Some((id, _)) => id,
            None => bail!("{path}: no game in progress"),
        },
        GameRef::Last => match journal.last_game()? {
            Some((id, _)) => id,
            None => bail!("{path}: no games"),
        },
    })
}

fn export(db: &Path, args: &ExportArgs) -> anyhow::Result<()> {
    let journal = Journal::open_read_only(db)?;
    let game = resolve(&journal, args.game)?;
    let text = if args.pgn {
        journal.export_pgn(game)?
    } else {
        journal.export_json(game)?
    };
    print(&text)
}

fn check(db: &Path) -> anyhow::Result<()> {
    let journal = Journal::open_for_check(db)?;
    let report = journal.check()?;
    print(&report.to_string())?;
    if !report.is_ok() {
        let problems = report.integrity.len() + report.problems.len();
        bail!(
            "{}: the check found {problems} problem{}",
            db.display(),
            if problems == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// Where a run of `write-trace` stands in the journal.
struct Resume {
    /// The journal's games, oldest first: the trace's games in order.
    games: Vec<GameId>,
    /// Games the trace has begun so far in this run.
    begun: usize,
    /// The journal game of the trace's current game.
    current: Option<GameId>,
    /// Its events already in the journal (to compare, not to write again).
    stored: Vec<Event>,
    /// Events of the current game in the journal, stored before or now:
    /// when the session has emitted exactly these, the journal's game must
    /// be the session's.
    count: u64,
    /// The restored game is still to be compared with the session's.
    verify: bool,
}

fn write_trace(db: &Path, args: &WriteTraceArgs) -> anyhow::Result<()> {
    let numbered = touchmove_hw::trace_file::read_numbered(&args.trace)?;
    let file = args.trace.display().to_string();
    args.session.check_header(&numbered, &file)?;
    let trace::NumberedTrace { trace, lines, .. } = numbered;
    let (mut session, _) = args.session.session(&trace, None)?;
    let mut journal = Journal::open(db)?;
    let mut resume = Resume {
        games: journal.list()?.iter().map(|g| g.id).collect(),
        begun: 0,
        current: None,
        stored: Vec::new(),
        count: 0,
        verify: false,
    };
    let started_at = args.started_at.clone().unwrap_or_else(wall_clock_now);
    let mut out = std::io::stdout().lock();
    let mut events = Vec::new();
    for (i, record) in trace.records.iter().enumerate() {
        verify_restore(&journal, &mut resume, &session)?;
        events.clear();
        session
            .apply(record, &mut events)
            .with_context(|| touchmove_core::replay::record_place(&file, &lines, i))?;
        for e in &events {
            journal_event(
                &mut journal,
                &mut resume,
                &session,
                &started_at,
                args,
                e,
                &mut out,
            )?;
        }
    }
    let mut end = trace.records.last().map_or(0, |r| r.t);
    let mut ended = false;
    while !ended {
        verify_restore(&journal, &mut resume, &session)?;
        events.clear();
        // Deadlines to the last, then the end of the input (as `replay`).
        match session.next_board_deadline() {
            Some(deadline) => {
                session.advance(deadline, &mut events);
                end = end.max(deadline);
            }
            None => {
                session.input_ended(end, &mut events);
                ended = true;
            }
        }
        for e in &events {
            journal_event(
                &mut journal,
                &mut resume,
                &session,
                &started_at,
                args,
                e,
                &mut out,
            )?;
        }
    }
    verify_restore(&journal, &mut resume, &session)?;
    Ok(())
}

/// Journals one event of the trace (or checks it against the journal when
/// it is already there), then prints it: published only once committed.
fn journal_event(
    journal: &mut Journal,
    resume: &mut Resume,
    session: &Session,
    started_at: &str,
    args: &WriteTraceArgs,
    e: &Event,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    let path = journal.path().display().to_string();
    if let EventKind::GameStarted { fen, .. } = &e.kind {
        resume.begun += 1;
        let id = match resume.games.get(resume.begun - 1) {
            Some(&id) => {
                resume.stored = journal.events_after(id, None)?;
                resume.verify = !resume.stored.is_empty();
                resume.count = resume.stored.len() as u64;
                id
            }
            None => {
                let config = session.config();
                let start = if config.start.fen() == *fen {
                    config.start.clone()
                } else {
                    Start::from_fen(fen)?
                };
                let mut meta = GameMeta::new(started_at, start, config.profile);
                meta.time_control = config.time_control.clone();
                meta.event = "touchmove journal write-trace".into();
                meta.site = args.trace.display().to_string();
                resume.stored.clear();
                resume.count = 0;
                journal.begin_game(&meta)?
            }
        };
        resume.current = Some(id);
    }
    let Some(game) = resume.current else {
        // Before the first game: nothing to journal it under.
        return Ok(());
    };
    if let Some(stored) = resume.stored.get(e.seq as usize) {
        if stored != e {
            bail!(
                "{path}: game {game}, event {}: the journal holds {}, the trace gives {}",
                e.seq,
                stored.to_json(),
                e.to_json()
            );
        }
        return Ok(());
    }
    journal.append(game, e)?;
    resume.count = e.seq + 1;
    writeln!(out, "{}", e.to_json())?;
    out.flush()?;
    if args.pause_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(args.pause_ms));
    }
    Ok(())
}

/// Once the session has caught up with what the journal held, the game
/// restored from the journal must be the session's.
fn verify_restore(journal: &Journal, resume: &mut Resume, session: &Session) -> anyhow::Result<()> {
    let Some(game) = resume.current else {
        return Ok(());
    };
    if !resume.verify || resume.count != session.next_seq() {
        return Ok(());
    }
    resume.verify = false;
    let restored = journal.restore(game)?;
    let path = journal.path().display();
    if let Some(difference) = difference(&restored.game, session.game()) {
        bail!(
            "{path}: game {game} restored from the journal differs from the trace's: {difference}"
        );
    }
    Ok(())
}

/// The first difference between two records, if any.
pub fn difference(restored: &Game, live: &Game) -> Option<String> {
    if restored.moves().len() != live.moves().len() {
        return Some(format!(
            "{} plies against {}",
            restored.moves().len(),
            live.moves().len()
        ));
    }
    for (i, (a, b)) in restored.moves().iter().zip(live.moves()).enumerate() {
        if a != b {
            return Some(format!("ply {}: {a:?} against {b:?}", i + 1));
        }
    }
    if restored.fen() != live.fen() {
        return Some(format!("FEN {} against {}", restored.fen(), live.fen()));
    }
    for side in [shakmaty::Color::White, shakmaty::Color::Black] {
        if restored.illegal_moves(side) != live.illegal_moves(side) {
            return Some(format!(
                "{side:?} completed {} illegal moves against {}",
                restored.illegal_moves(side),
                live.illegal_moves(side)
            ));
        }
    }
    if restored.end() != live.end() {
        return Some(format!("end {:?} against {:?}", restored.end(), live.end()));
    }
    None
}
