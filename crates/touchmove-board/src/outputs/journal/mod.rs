//! The game journal: every event of every game, committed durably to an
//! SQLite file before anything else sees it, so that a board that loses
//! power finds its game exactly where it was.
//!
//! - One writer (the daemon's journal task) holds a [`Journal`] opened with
//!   [`Journal::open`]; readers (`touchmove journal`, a feed serving
//!   `Last-Event-ID`) may open the same file with [`Journal::open_read_only`]
//!   at the same time (WAL mode).
//! - [`Journal::append`] returns only once the event is committed with
//!   `synchronous=FULL` (the WAL is fsynced): publish an event only after.
//! - A game is rebuilt from its events ([`Journal::restore`]): the moves
//!   replayed and checked legal, the completed illegal moves counted, the last
//!   clock reading, the end, the alerts still standing.
//! - A file that is not a journal, a damaged file, or a journal of a newer
//!   schema version is refused with an error naming it, and never written to.
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use shakmaty::{ByColor, Color};

use touchmove_core::Millis;
use touchmove_core::clock::{TimeControl, TimeControlTag};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::pgn::{self, Tags};
use touchmove_core::game::{Game, Profile, Start};

pub mod durability;
pub mod error;
pub mod rebuild;
pub mod schema;

pub use error::{JournalError, Result};
pub use rebuild::{LastClock, RebuildError};
pub use schema::SCHEMA_VERSION;

/// A game's number in the journal (1, 2, 3, ... in the order begun).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub i64);

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for GameId {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<GameId, String> {
        s.trim()
            .parse::<i64>()
            .ok()
            .filter(|n| *n > 0)
            .map(GameId)
            .ok_or_else(|| format!("{s:?} is not a game number (1, 2, 3, ...)"))
    }
}

/// What the journal keeps about a game besides its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameMeta {
    /// Wall-clock time the game began, as the caller writes it (RFC 3339,
    /// e.g. `2026-03-14T15:09:26Z`; the PGN `Date` is taken from its first
    /// ten characters when they read `YYYY-MM-DD`).
    pub started_at: String,
    pub start: Start,
    pub profile: Profile,
    /// The clock touchmove keeps, if any.
    pub time_control: Option<TimeControl>,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub round: String,
}

impl GameMeta {
    /// A game with unknown players and event (`?`, as PGN writes them).
    pub fn new(started_at: impl Into<String>, start: Start, profile: Profile) -> GameMeta {
        GameMeta {
            started_at: started_at.into(),
            start,
            profile,
            time_control: None,
            white: "?".into(),
            black: "?".into(),
            event: "?".into(),
            site: "?".into(),
            round: "?".into(),
        }
    }

    /// The PGN `Date` (`YYYY.MM.DD`, `????.??.??` when `started_at` does
    /// not begin with a date).
    pub(crate) fn pgn_date(&self) -> String {
        let date = self.started_at.get(..10).unwrap_or("");
        let b = date.as_bytes();
        let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b[i].is_ascii_digit());
        if b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && digits(0..4)
            && digits(5..7)
            && digits(8..10)
        {
            date.replace('-', ".")
        } else {
            "????.??.??".into()
        }
    }

    /// The PGN tags of the game.
    pub fn tags(&self) -> Tags {
        Tags {
            event: self.event.clone(),
            site: self.site.clone(),
            date: self.pgn_date(),
            round: self.round.clone(),
            white: self.white.clone(),
            black: self.black.clone(),
            time_control: self.time_control.as_ref().map(TimeControl::to_pgn),
            extra: Vec::new(),
        }
    }
}

/// One line of `touchmove journal list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub id: GameId,
    pub started_at: String,
    pub white: String,
    pub black: String,
    pub event: String,
    /// `1-0`, `0-1`, `1/2-1/2`; None while in progress or when abandoned.
    pub result: Option<String>,
    /// The `game_over` reason, or `abandoned`.
    pub reason: Option<String>,
    pub ended: bool,
    /// Plies in the record (the last `move` or `takeback`).
    pub plies: u64,
    pub events: u64,
}

/// A game restored from the journal.
#[derive(Debug, Clone)]
pub struct Restored {
    pub id: GameId,
    pub meta: GameMeta,
    /// The record: moves (with `[%clk]`/`[%emt]` where a clock ran), the
    /// completed illegal moves counted, the end.
    pub game: Game,
    /// The `seq` of the last event stored, None when none is.
    pub last_seq: Option<u64>,
    /// The `t_ms` of the last event stored.
    pub last_t_ms: Option<Millis>,
    /// The last clock reading; the time that passed since `t_ms` while the
    /// daemon was down is the caller's to report and charge.
    pub clock: Option<LastClock>,
    /// Alerts raised since the board last agreed with the game.
    pub pending_alerts: Vec<Event>,
    /// Completed illegal moves of each side (Article 7.4b of 2005, 7.5.5 of 2023).
    pub illegal_counts: ByColor<u32>,
}

impl Restored {
    /// The `seq` the game's next event must carry.
    pub fn next_seq(&self) -> u64 {
        self.last_seq.map_or(0, |s| s + 1)
    }
}

/// A game whose events do not replay, or that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameProblem {
    pub game: GameId,
    pub seq: Option<u64>,
    pub message: String,
}

/// What [`Journal::check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub path: PathBuf,
    /// The messages of SQLite's `integrity_check`; empty when it says `ok`.
    pub integrity: Vec<String>,
    pub games: usize,
    pub events: u64,
    pub problems: Vec<GameProblem>,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.integrity.is_empty() && self.problems.is_empty()
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        if self.integrity.is_empty() {
            writeln!(f, "{path}: SQLite integrity check: ok")?;
        } else {
            writeln!(f, "{path}: SQLite integrity check: the file is DAMAGED")?;
            for message in &self.integrity {
                writeln!(f, "{path}:   {message}")?;
            }
        }
        writeln!(
            f,
            "{path}: {} games, {} events replayed",
            self.games, self.events
        )?;
        for p in &self.problems {
            match p.seq {
                Some(seq) => writeln!(f, "{path}: game {}, event {seq}: {}", p.game, p.message)?,
                None => writeln!(f, "{path}: game {}: {}", p.game, p.message)?,
            }
        }
        if self.is_ok() {
            writeln!(f, "{path}: ok")?;
        }
        Ok(())
    }
}

/// The journal file, opened by the one writer or by a reader.
pub struct Journal {
    conn: Connection,
    path: PathBuf,
    read_only: bool,
    /// The next `seq` of each game written in this session.
    next_seq: HashMap<GameId, u64>,
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Journal")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .finish()
    }
}

fn sql_err<'p>(
    path: &'p Path,
    doing: &'static str,
) -> impl FnOnce(rusqlite::Error) -> JournalError + 'p {
    move |e| JournalError::sqlite(path, doing, e)
}

fn to_i64(n: u64) -> i64 {
    // Event numbers and milliseconds stay far below 2^63.
    i64::try_from(n).unwrap_or(i64::MAX)
}

const GAME_COLUMNS: &str = "id, started_at, start_fen, chess960, chess960_number, profile, \
     time_control, white, black, event, site, round";

/// A `games` row as stored.
struct GameRow {
    id: GameId,
    started_at: String,
    start_fen: String,
    chess960: bool,
    chess960_number: Option<u32>,
    profile: String,
    time_control: Option<String>,
    white: String,
    black: String,
    event: String,
    site: String,
    round: String,
}

impl GameRow {
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
        Ok(GameRow {
            id: GameId(r.get(0)?),
            started_at: r.get(1)?,
            start_fen: r.get(2)?,
            chess960: r.get(3)?,
            chess960_number: r.get(4)?,
            profile: r.get(5)?,
            time_control: r.get(6)?,
            white: r.get(7)?,
            black: r.get(8)?,
            event: r.get(9)?,
            site: r.get(10)?,
            round: r.get(11)?,
        })
    }

    fn meta(self, path: &Path) -> Result<(GameId, GameMeta)> {
        let bad = |reason: String| JournalError::BadRecord {
            path: path.to_path_buf(),
            game: self.id,
            seq: None,
            reason,
        };
        let start = match (self.chess960, self.chess960_number) {
            (true, Some(n)) => Start::chess960(n),
            (true, None) => Start::chess960_from_fen(&self.start_fen),
            (false, _) => Start::from_fen(&self.start_fen),
        }
        .map_err(|e| bad(format!("start position: {e}")))?;
        let profile: Profile = self
            .profile
            .parse()
            .map_err(|e| bad(format!("rules profile: {e}")))?;
        let time_control = match &self.time_control {
            None => None,
            Some(text) => match TimeControl::parse_pgn(text) {
                Ok(TimeControlTag::Timed(tc)) => Some(tc),
                Ok(_) => return Err(bad(format!("time control {text:?} keeps no time"))),
                Err(e) => return Err(bad(format!("time control: {e}"))),
            },
        };
        Ok((
            self.id,
            GameMeta {
                started_at: self.started_at,
                start,
                profile,
                time_control,
                white: self.white,
                black: self.black,
                event: self.event,
                site: self.site,
                round: self.round,
            },
        ))
    }
}

impl Journal {
    /// Opens the journal at `path` for writing, creating it if there is no
    /// file, migrating an older schema. Refuses (without writing to it) a
    /// file that is not SQLite or not a touchmove journal, a damaged file
    /// (`quick_check`), and a journal of a newer schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Journal> {
        Journal::open_with(path.as_ref(), schema::Mode::Write)
    }

    /// Opens an existing journal for reading only (`touchmove journal`,
    /// feeds reading back while the writer writes).
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Journal> {
        Journal::open_existing(path.as_ref(), schema::Mode::Read)
    }

    /// Opens an existing journal for reading only, without the
    /// `quick_check` of the other opens: [`Journal::check`] then reports
    /// the damage of a damaged file in full.
    pub fn open_for_check(path: impl AsRef<Path>) -> Result<Journal> {
        Journal::open_existing(path.as_ref(), schema::Mode::ToCheck)
    }

    /// Opens an existing journal that nobody writes, for reading, without
    /// creating anything beside it (SQLite's `immutable`): what a full disk
    /// still allows, for a journal closed cleanly (no write-ahead log).
    pub(crate) fn open_immutable(path: impl AsRef<Path>) -> Result<Journal> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(JournalError::Missing {
                path: path.to_path_buf(),
            });
        }
        let mut uri = String::from("file:");
        for c in path.to_string_lossy().chars() {
            match c {
                '%' | '?' | '#' | ' ' => uri.push_str(&format!("%{:02X}", c as u32)),
                c => uri.push(c),
            }
        }
        uri.push_str("?immutable=1");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(&uri, flags)
            .map_err(|e| JournalError::sqlite(path, "opening the file", e))?;
        schema::prepare(&mut conn, path, schema::Mode::Read)?;
        Ok(Journal {
            conn,
            path: path.to_path_buf(),
            read_only: true,
            next_seq: HashMap::new(),
        })
    }

    fn open_existing(path: &Path, mode: schema::Mode) -> Result<Journal> {
        if !path.exists() {
            return Err(JournalError::Missing {
                path: path.to_path_buf(),
            });
        }
        Journal::open_with(path, mode)
    }

    fn open_with(path: &Path, mode: schema::Mode) -> Result<Journal> {
        let read_only = mode != schema::Mode::Write;
        let flags = if read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let mut conn = Connection::open_with_flags(path, flags)
            .map_err(|e| JournalError::sqlite(path, "opening the file", e))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| JournalError::sqlite(path, "setting the busy timeout", e))?;
        schema::prepare(&mut conn, path, mode)?;
        Ok(Journal {
            conn,
            path: path.to_path_buf(),
            read_only,
            next_seq: HashMap::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sqlite(&self, doing: &'static str) -> impl FnOnce(rusqlite::Error) -> JournalError + '_ {
        move |e| JournalError::sqlite(&self.path, doing, e)
    }

    fn writable(&self) -> Result<()> {
        if self.read_only {
            Err(JournalError::ReadOnly {
                path: self.path.clone(),
            })
        } else {
            Ok(())
        }
    }

    /// Begins a game (before its `game_started` event is appended). A
    /// journal records one board: a game still open is closed as
    /// `abandoned` (no result) in the same transaction.
    pub fn begin_game(&mut self, meta: &GameMeta) -> Result<GameId> {
        self.writable()?;
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err(&path, "beginning a game"))?;
        tx.execute(
            "UPDATE games SET ended = 1, reason = 'abandoned' WHERE ended = 0",
            [],
        )
        .map_err(sql_err(&path, "closing the game in progress"))?;
        tx.execute(
            "INSERT INTO games (started_at, start_fen, chess960, chess960_number, profile, \
             time_control, white, black, event, site, round) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                meta.started_at,
                meta.start.fen(),
                meta.start.is_chess960(),
                meta.start.chess960_number(),
                meta.profile.name(),
                meta.time_control.as_ref().map(TimeControl::to_pgn),
                meta.white,
                meta.black,
                meta.event,
                meta.site,
                meta.round,
            ],
        )
        .map_err(sql_err(&path, "beginning a game"))?;
        let id = GameId(tx.last_insert_rowid());
        tx.commit()
            .map_err(sql_err(&path, "committing a new game"))?;
        self.next_seq.insert(id, 0);
        Ok(id)
    }

    /// The `seq` the next event of `game` must carry.
    fn expected_seq(&mut self, game: GameId) -> Result<u64> {
        if let Some(n) = self.next_seq.get(&game) {
            return Ok(*n);
        }
        let last: Option<Option<i64>> = self
            .conn
            .query_row(
                "SELECT (SELECT max(seq) FROM events WHERE game_id = ?1) FROM games WHERE id = ?1",
                [game.0],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| JournalError::sqlite(&self.path, "reading the last event", e))?;
        let next = match last {
            None => {
                return Err(JournalError::NoSuchGame {
                    path: self.path.clone(),
                    game,
                });
            }
            Some(None) => 0,
            Some(Some(seq)) => seq as u64 + 1,
        };
        self.next_seq.insert(game, next);
        Ok(next)
    }

    /// Stores one event of `game`, committed durably (fsync) before
    /// returning. Its `seq` must be the game's next: a `seq` already stored
    /// is refused ([`JournalError::Duplicate`]), a gap too. A `game_over`
    /// records the result and reason on the game in the same transaction.
    pub fn append(&mut self, game: GameId, event: &Event) -> Result<()> {
        self.append_batch(game, std::slice::from_ref(event))
    }

    /// Stores several events of `game` in one transaction (one fsync): all
    /// or none.
    pub fn append_batch(&mut self, game: GameId, events: &[Event]) -> Result<()> {
        self.writable()?;
        if events.is_empty() {
            return Ok(());
        }
        let mut expected = self.expected_seq(game)?;
        for e in events {
            if e.seq < expected {
                return Err(JournalError::Duplicate {
                    path: self.path.clone(),
                    game,
                    seq: e.seq,
                });
            }
            if e.seq > expected {
                return Err(JournalError::OutOfOrder {
                    path: self.path.clone(),
                    game,
                    seq: e.seq,
                    expected,
                });
            }
            expected += 1;
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err(&path, "starting to append"))?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO events (game_id, seq, t_ms, type, json) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql_err(&path, "appending an event"))?;
            for e in events {
                insert
                    .execute(params![
                        game.0,
                        to_i64(e.seq),
                        to_i64(e.t_ms),
                        e.kind.name(),
                        e.to_json()
                    ])
                    .map_err(|source| {
                        if source.sqlite_error_code()
                            == Some(rusqlite::ErrorCode::ConstraintViolation)
                        {
                            JournalError::Duplicate {
                                path: self.path.clone(),
                                game,
                                seq: e.seq,
                            }
                        } else {
                            JournalError::sqlite(&self.path, "appending an event", source)
                        }
                    })?;
                if let EventKind::GameOver { result, reason } = &e.kind {
                    tx.execute(
                        "UPDATE games SET result = ?2, reason = ?3, ended = 1 WHERE id = ?1",
                        params![game.0, result, reason],
                    )
                    .map_err(sql_err(&path, "recording the result"))?;
                }
            }
        }
        tx.commit().map_err(sql_err(&path, "committing events"))?;
        self.next_seq.insert(game, expected);
        Ok(())
    }

    /// The events of `game` after `after_seq` (all of them for None), in
    /// order: what a feed client that last saw `after_seq` missed.
    pub fn events_after(&self, game: GameId, after_seq: Option<u64>) -> Result<Vec<Event>> {
        self.meta_row(game)?;
        let after = after_seq.map_or(-1, to_i64);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, json FROM events WHERE game_id = ?1 AND seq > ?2 ORDER BY seq",
            )
            .map_err(self.sqlite("reading events"))?;
        let rows = stmt
            .query_map(params![game.0, after], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(self.sqlite("reading events"))?;
        let mut events = Vec::new();
        for row in rows {
            let (seq, json) = row.map_err(self.sqlite("reading events"))?;
            let bad = |reason: String| JournalError::BadRecord {
                path: self.path.clone(),
                game,
                seq: Some(seq as u64),
                reason,
            };
            let event: Event = serde_json::from_str(&json).map_err(|e| bad(e.to_string()))?;
            if to_i64(event.seq) != seq {
                return Err(bad(format!("the stored JSON says seq {}", event.seq)));
            }
            events.push(event);
        }
        Ok(events)
    }

    /// The stored JSON lines of `game`'s events, byte for byte.
    fn json_lines(&self, game: GameId) -> Result<String> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT json FROM events WHERE game_id = ?1 ORDER BY seq")
            .map_err(self.sqlite("reading events"))?;
        let rows = stmt
            .query_map([game.0], |r| r.get::<_, String>(0))
            .map_err(self.sqlite("reading events"))?;
        let mut text = String::new();
        for row in rows {
            text.push_str(&row.map_err(self.sqlite("reading events"))?);
            text.push('\n');
        }
        Ok(text)
    }

    fn meta_row(&self, game: GameId) -> Result<GameMeta> {
        let row = self
            .conn
            .query_row(
                &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
                [game.0],
                GameRow::read,
            )
            .optional()
            .map_err(self.sqlite("reading a game"))?;
        match row {
            Some(row) => Ok(row.meta(&self.path)?.1),
            None => Err(JournalError::NoSuchGame {
                path: self.path.clone(),
                game,
            }),
        }
    }

    /// What the journal keeps about `game`.
    pub fn game(&self, game: GameId) -> Result<GameMeta> {
        self.meta_row(game)
    }

    /// The game in progress: the last game begun that has not ended.
    pub fn current_game(&self) -> Result<Option<(GameId, GameMeta)>> {
        let row = self
            .conn
            .query_row(
                &format!(
                    "SELECT {GAME_COLUMNS} FROM games WHERE ended = 0 ORDER BY id DESC LIMIT 1"
                ),
                [],
                GameRow::read,
            )
            .optional()
            .map_err(self.sqlite("finding the game in progress"))?;
        row.map(|r| r.meta(&self.path)).transpose()
    }

    /// The last game begun, ended or not.
    pub fn last_game(&self) -> Result<Option<(GameId, GameMeta)>> {
        let row = self
            .conn
            .query_row(
                &format!("SELECT {GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT 1"),
                [],
                GameRow::read,
            )
            .optional()
            .map_err(self.sqlite("finding the last game"))?;
        row.map(|r| r.meta(&self.path)).transpose()
    }

    /// Every game, oldest first.
    pub fn list(&self) -> Result<Vec<GameSummary>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT g.id, g.started_at, g.white, g.black, g.event, g.result, g.reason, g.ended,
                    (SELECT count(*) FROM events e WHERE e.game_id = g.id),
                    (SELECT json_extract(e.json, '$.ply') FROM events e
                       WHERE e.game_id = g.id AND e.type IN ('move', 'takeback')
                       ORDER BY e.seq DESC LIMIT 1)
                 FROM games g ORDER BY g.id",
            )
            .map_err(self.sqlite("listing games"))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(GameSummary {
                    id: GameId(r.get(0)?),
                    started_at: r.get(1)?,
                    white: r.get(2)?,
                    black: r.get(3)?,
                    event: r.get(4)?,
                    result: r.get(5)?,
                    reason: r.get(6)?,
                    ended: r.get(7)?,
                    events: r.get::<_, i64>(8)? as u64,
                    plies: r.get::<_, Option<i64>>(9)?.unwrap_or(0) as u64,
                })
            })
            .map_err(self.sqlite("listing games"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(self.sqlite("listing games"))
    }

    /// Rebuilds `game` from its events (see [`Restored`]).
    pub fn restore(&self, game: GameId) -> Result<Restored> {
        let meta = self.meta_row(game)?;
        let events = self.events_after(game, None)?;
        let rebuilt = rebuild::rebuild(&meta.start, meta.profile, &events).map_err(|e| {
            JournalError::BadRecord {
                path: self.path.clone(),
                game,
                seq: Some(e.seq),
                reason: e.reason,
            }
        })?;
        let illegal_counts = ByColor {
            white: rebuilt.game.illegal_moves(Color::White),
            black: rebuilt.game.illegal_moves(Color::Black),
        };
        Ok(Restored {
            id: game,
            meta,
            game: rebuilt.game,
            last_seq: rebuilt.last_seq,
            last_t_ms: rebuilt.last_t_ms,
            clock: rebuilt.clock,
            pending_alerts: rebuilt.pending_alerts,
            illegal_counts,
        })
    }

    /// `game` as PGN (Seven Tag Roster from its metadata, `[%clk]` where a
    /// clock ran; `*` while in progress).
    pub fn export_pgn(&self, game: GameId) -> Result<String> {
        let restored = self.restore(game)?;
        Ok(pgn::write(&restored.game, &restored.meta.tags()))
    }

    /// `game`'s events, one JSON object per line, as stored (the form of
    /// `touchmove replay --events`).
    pub fn export_json(&self, game: GameId) -> Result<String> {
        self.meta_row(game)?;
        self.json_lines(game)
    }

    /// SQLite's full `integrity_check`, then every game's events replayed:
    /// numbered 0, 1, 2, ..., each move legal. A damaged file is reported in
    /// the report (or as [`JournalError::Corrupt`] when SQLite cannot even
    /// run the check); nothing is repaired or truncated.
    pub fn check(&self) -> Result<CheckReport> {
        let integrity = schema::integrity_messages(&self.conn, "integrity_check")
            .map_err(self.sqlite("checking integrity"))?
            .iter()
            .flat_map(|m| m.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("***"))
            .map(str::to_owned)
            .collect();
        let ids: Vec<GameId> = {
            let mut stmt = self
                .conn
                .prepare("SELECT id FROM games ORDER BY id")
                .map_err(self.sqlite("listing games"))?;
            let rows = stmt
                .query_map([], |r| r.get(0).map(GameId))
                .map_err(self.sqlite("listing games"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(self.sqlite("listing games"))?
        };
        let mut report = CheckReport {
            path: self.path.clone(),
            integrity,
            games: ids.len(),
            events: 0,
            problems: Vec::new(),
        };
        for game in ids {
            let problem = |seq, message| GameProblem { game, seq, message };
            // The file is named once by the report; a problem says what.
            let what = |e: JournalError| match e {
                JournalError::Corrupt { detail, .. } => format!("unreadable: {detail}"),
                JournalError::BadRecord { reason, .. } => reason,
                e => e.to_string(),
            };
            let meta = match self.meta_row(game) {
                Ok(meta) => meta,
                Err(e) => {
                    report.problems.push(problem(None, what(e)));
                    continue;
                }
            };
            let events = match self.events_after(game, None) {
                Ok(events) => events,
                Err(e) => {
                    let seq = match &e {
                        JournalError::BadRecord { seq, .. } => *seq,
                        _ => None,
                    };
                    report.problems.push(problem(seq, what(e)));
                    continue;
                }
            };
            report.events += events.len() as u64;
            if let Err(e) = rebuild::rebuild(&meta.start, meta.profile, &events) {
                report.problems.push(problem(Some(e.seq), e.reason));
            }
        }
        Ok(report)
    }
}

/// The wall clock now, UTC, as RFC 3339 to the second (`2026-03-14T15:09:26Z`):
/// the `started_at` of a game begun now.
pub fn wall_clock_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since 1970-01-01T00:00:00Z as RFC 3339 (proleptic Gregorian).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Civil date from days since the epoch (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        (rest / 60) % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_710_429_366), "2024-03-14T15:16:06Z");
    }

    #[test]
    fn pgn_date_from_started_at() {
        let mut meta = GameMeta::new("2024-03-14T15:16:06Z", Start::standard(), Profile::Casual);
        assert_eq!(meta.pgn_date(), "2024.03.14");
        meta.started_at = "yesterday".into();
        assert_eq!(meta.pgn_date(), "????.??.??");
    }

    #[test]
    fn a_journal_can_move_to_the_writer_thread() {
        fn send<T: Send>() {}
        send::<Journal>();
    }

    #[test]
    fn game_numbers_parse() {
        assert_eq!("12".parse::<GameId>(), Ok(GameId(12)));
        assert!("0".parse::<GameId>().is_err());
        assert!("x".parse::<GameId>().unwrap_err().contains("\"x\""));
    }
}
