//! What can go wrong with a journal, each naming the file.
use std::path::PathBuf;

use super::GameId;

/// An error of the journal. Every variant names the journal file.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file exists but is not an SQLite database, or is an SQLite
    /// database of another program. It is left as it is.
    #[error("{}: not a touchmove journal ({reason}); the file was left untouched", path.display())]
    NotAJournal { path: PathBuf, reason: String },
    /// SQLite found the file damaged. It is left as it is.
    #[error(
        "{}: the journal is damaged ({detail}); the file was left untouched: keep a copy; `touchmove journal check` lists the damage",
        path.display()
    )]
    Corrupt { path: PathBuf, detail: String },
    /// The journal was written by a newer touchmove: reading it with this
    /// build could misread it.
    #[error(
        "{}: the journal has schema version {found}, newer than the version {known} this touchmove knows; use a newer touchmove (the file was left untouched)",
        path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    /// A journal opened read-only needs a migration first.
    #[error(
        "{}: the journal has schema version {found}; this touchmove needs version {known}: open it once for writing to migrate it",
        path.display()
    )]
    NeedsMigration {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    /// No journal file at that path (read-only open).
    #[error("{}: no journal at this path", path.display())]
    Missing { path: PathBuf },
    /// The journal was opened read-only.
    #[error("{}: the journal was opened read-only", path.display())]
    ReadOnly { path: PathBuf },
    /// The event's `(game, seq)` is already stored: refused, not stored twice.
    #[error("{}: event {seq} of game {game} is already in the journal; refused", path.display())]
    Duplicate {
        path: PathBuf,
        game: GameId,
        seq: u64,
    },
    /// The event's `seq` leaves a gap: events of a game are numbered
    /// 0, 1, 2, ... and stored in that order.
    #[error(
        "{}: event {seq} of game {game} is out of order: the next event of that game is {expected}; refused",
        path.display()
    )]
    OutOfOrder {
        path: PathBuf,
        game: GameId,
        seq: u64,
        expected: u64,
    },
    /// No game with that id.
    #[error("{}: no game {game} in the journal", path.display())]
    NoSuchGame { path: PathBuf, game: GameId },
    /// A stored row that does not read back (JSON, FEN, profile, move).
    #[error("{}: game {game}{}: {reason}", path.display(), seq.map(|s| format!(", event {s}")).unwrap_or_default())]
    BadRecord {
        path: PathBuf,
        game: GameId,
        seq: Option<u64>,
        reason: String,
    },
    /// Any other SQLite failure (disk full, permissions, I/O).
    #[error("{}: {doing}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        doing: &'static str,
        #[source]
        source: rusqlite::Error,
    },
}

impl JournalError {
    /// The storage failed (a full disk, an unwritable file, I/O): not a
    /// damaged or foreign file. Writing may work again later.
    pub(crate) fn is_storage_failure(&self) -> bool {
        matches!(
            self,
            JournalError::Sqlite { .. } | JournalError::ReadOnly { .. }
        )
    }

    /// Wraps an SQLite error, telling damage and foreign files apart from
    /// other failures.
    pub(crate) fn sqlite(path: &std::path::Path, doing: &'static str, e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseCorrupt) => JournalError::Corrupt {
                path,
                detail: format!("{doing}: {e}"),
            },
            Some(ErrorCode::NotADatabase) => JournalError::NotAJournal {
                path,
                reason: format!("{doing}: {e}"),
            },
            _ => JournalError::Sqlite {
                path,
                doing,
                source: e,
            },
        }
    }
}

/// `Result` with a [`JournalError`].
pub type Result<T, E = JournalError> = std::result::Result<T, E>;
