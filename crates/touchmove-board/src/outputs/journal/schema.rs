//! The journal's SQLite schema, its version and the migrations between
//! versions, and the checks made before a file is used.
//!
//! The version is SQLite's `user_version`; `application_id` marks the file
//! as a touchmove journal, so another program's database is never taken
//! for one (nor written to).
use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::error::{JournalError, Result};

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// `application_id` of a touchmove journal: "Tmov".
pub(crate) const APPLICATION_ID: i64 = 0x546d_6f76;

/// `MIGRATIONS[v]` takes a journal from version `v` to `v + 1`.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: games and their events.
    "CREATE TABLE games (
        id              INTEGER PRIMARY KEY,
        started_at      TEXT NOT NULL,
        start_fen       TEXT NOT NULL,
        chess960        INTEGER NOT NULL DEFAULT 0 CHECK (chess960 IN (0, 1)),
        chess960_number INTEGER,
        profile         TEXT NOT NULL,
        time_control    TEXT,
        white           TEXT NOT NULL,
        black           TEXT NOT NULL,
        event           TEXT NOT NULL,
        site            TEXT NOT NULL,
        round           TEXT NOT NULL,
        result          TEXT,
        reason          TEXT,
        ended           INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1))
    );
    CREATE INDEX games_open ON games (ended, id);
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seq     INTEGER NOT NULL CHECK (seq >= 0),
        t_ms    INTEGER NOT NULL CHECK (t_ms >= 0),
        type    TEXT NOT NULL,
        json    TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;",
];

/// How a journal is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// By the one writer.
    Write,
    /// By a reader.
    Read,
    /// By a reader that runs the full integrity check itself.
    ToCheck,
}

/// What the file holds before anything is written to it.
struct Found {
    tables: i64,
    version: i64,
    application_id: i64,
}

fn inspect(conn: &Connection, path: &Path) -> Result<Found> {
    // The first read of the file: a file that is not SQLite fails here,
    // before any write could touch it.
    let tables = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| JournalError::sqlite(path, "reading the schema", e))?;
    let version = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| JournalError::sqlite(path, "reading the schema version", e))?;
    let application_id = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| JournalError::sqlite(path, "reading the application id", e))?;
    Ok(Found {
        tables,
        version,
        application_id,
    })
}

/// Runs SQLite's `quick_check`: every page readable, every record well
/// formed (O(size of the file)).
fn quick_check(conn: &Connection, path: &Path) -> Result<()> {
    let problems = integrity_messages(conn, "quick_check")
        .map_err(|e| JournalError::sqlite(path, "checking the file (quick_check)", e))?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(JournalError::Corrupt {
            path: path.to_path_buf(),
            detail: summary(&problems),
        })
    }
}

/// The messages of `PRAGMA integrity_check` or `quick_check`; empty when
/// SQLite answers `ok`.
pub(crate) fn integrity_messages(conn: &Connection, pragma: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA {pragma}"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut messages = Vec::new();
    for row in rows {
        let message = row?;
        if message != "ok" {
            messages.push(message);
        }
    }
    Ok(messages)
}

/// The first lines of a check's messages, for an error line.
pub(crate) fn summary(messages: &[String]) -> String {
    let lines: Vec<&str> = messages
        .iter()
        .flat_map(|m| m.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("***"))
        .collect();
    let mut text = lines.iter().take(3).copied().collect::<Vec<_>>().join("; ");
    if lines.len() > 3 {
        text.push_str(&format!("; and {} more", lines.len() - 3));
    }
    text
}

/// Checks a freshly opened file and brings it to [`SCHEMA_VERSION`]:
/// refuses a file that is not SQLite, another program's database, a
/// damaged file, or a journal of a newer version, each before writing
/// anything. Then (unless read-only) sets WAL and `synchronous=FULL` and
/// migrates.
pub(crate) fn prepare(conn: &mut Connection, path: &Path, mode: Mode) -> Result<()> {
    let read_only = mode != Mode::Write;
    let found = inspect(conn, path)?;
    let empty = found.tables == 0 && found.version == 0 && found.application_id == 0;
    if !empty && found.application_id != APPLICATION_ID {
        return Err(JournalError::NotAJournal {
            path: path.to_path_buf(),
            reason: format!(
                "an SQLite database of another program (application_id {:#x}, {} tables)",
                found.application_id, found.tables
            ),
        });
    }
    if found.version > SCHEMA_VERSION {
        return Err(JournalError::TooNew {
            path: path.to_path_buf(),
            found: found.version,
            known: SCHEMA_VERSION,
        });
    }
    if mode != Mode::ToCheck {
        quick_check(conn, path)?;
    }
    if read_only {
        if found.version < SCHEMA_VERSION {
            return Err(JournalError::NeedsMigration {
                path: path.to_path_buf(),
                found: found.version,
                known: SCHEMA_VERSION,
            });
        }
        return Ok(());
    }
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| JournalError::sqlite(path, "setting WAL mode", e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(JournalError::Sqlite {
            path: path.to_path_buf(),
            doing: "setting WAL mode",
            source: rusqlite::Error::InvalidParameterName(format!(
                "SQLite kept journal mode {mode:?}"
            )),
        });
    }
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        .map_err(|e| JournalError::sqlite(path, "setting synchronous=FULL", e))?;
    migrate(conn, path)
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| JournalError::sqlite(path, "starting the migration", e))?;
    // Read again inside the write lock: another process may have migrated.
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| JournalError::sqlite(path, "reading the schema version", e))?;
    if version > SCHEMA_VERSION {
        return Err(JournalError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    for sql in &MIGRATIONS[version as usize..] {
        tx.execute_batch(sql)
            .map_err(|e| JournalError::sqlite(path, "migrating the schema", e))?;
    }
    tx.execute_batch(&format!(
        "PRAGMA user_version = {SCHEMA_VERSION}; PRAGMA application_id = {APPLICATION_ID};"
    ))
    .map_err(|e| JournalError::sqlite(path, "writing the schema version", e))?;
    tx.commit()
        .map_err(|e| JournalError::sqlite(path, "committing the migration", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_below_the_current_has_a_migration() {
        assert_eq!(MIGRATIONS.len() as i64, SCHEMA_VERSION);
    }
}
