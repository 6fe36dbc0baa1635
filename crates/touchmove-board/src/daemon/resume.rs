//! Opening the journal at start, and carrying on with its unfinished game:
//! the game rebuilt from its events, the feed seeded with them (so stream
//! ids `<game>-<seq>` hold across restarts), and what the scan loop needs
//! to resume the session.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::Context as _;

use super::game_loop::ResumedGame;
use crate::config::ClockDowntime;
use crate::outputs::feed::Feed;
use crate::outputs::journal::{GameId, Journal};
use touchmove_core::Millis;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::session::{ClockReading, Downtime, Resumption};

/// The journal, opened for writing, and its game in progress if resumed.
pub struct Opened {
    /// `None` when the storage refused to open it for writing (a full
    /// disk): see `reopen`.
    pub journal: Option<Journal>,
    /// The file the journal writer opens once the storage lets it.
    pub reopen: Option<PathBuf>,
    pub current: Option<GameId>,
    pub resume: Option<ResumedGame>,
}

/// Opens the journal at `path`; with `resume`, restores its unfinished
/// game into `feed` and returns it for the scan loop.
pub fn open(
    path: &Path,
    resume: bool,
    clock_downtime: ClockDowntime,
    speed: f64,
    feed: &Arc<Feed>,
) -> anyhow::Result<Opened> {
    // The last write (before this open touches the file): when the daemon
    // was last seen working.
    let last_write = last_write(path);
    // A journal the storage will not open for writing (a full disk) does
    // not keep the board from starting: its game is read back if it can
    // be, and the writer holds the record until the journal opens.
    let (reader, writable) = match Journal::open(path) {
        Ok(journal) => (Some(journal), true),
        Err(e) if e.is_storage_failure() => {
            tracing::error!(
                "journal {}: cannot open it for writing ({e}); the board starts anyway and holds its record in memory until the journal takes writes",
                path.display()
            );
            match Journal::open_read_only(path).or_else(|_| Journal::open_immutable(path)) {
                Ok(journal) => (Some(journal), false),
                Err(e) => {
                    tracing::error!(
                        "journal {}: cannot read it either ({e}); a game in progress in it is not carried on",
                        path.display()
                    );
                    (None, false)
                }
            }
        }
        Err(e) => return Err(e).context("the journal (--journal, [journal] path)"),
    };
    let reopen = (!writable).then(|| path.to_path_buf());
    let current = match &reader {
        Some(journal) if resume => journal.current_game()?,
        _ => None,
    };
    let (Some(journal), Some((id, meta))) = (&reader, current) else {
        tracing::info!("journal {}: no game in progress", path.display());
        return Ok(Opened {
            journal: reader.filter(|_| writable),
            reopen,
            current: None,
            resume: None,
        });
    };
    let restored = journal.restore(id)?;
    let events = journal.events_after(id, None)?;
    feed.seed(id.0 as u64, &events);
    feed.update_tags(|t| *t = meta.tags());
    feed.update_pgn(&restored.game);
    let t = restored.last_t_ms.unwrap_or(0);
    let downtime = match (clock_downtime, last_write) {
        (ClockDowntime::Charge, Some(at)) => {
            let wall = SystemTime::now()
                .duration_since(at)
                .unwrap_or_default()
                .as_secs_f64();
            Downtime::Charge((wall * 1000.0 * speed) as Millis)
        }
        (ClockDowntime::Charge, None) => {
            tracing::warn!("journal: its last write time is unknown; no downtime charged");
            Downtime::Pause
        }
        (ClockDowntime::Pause, _) => Downtime::Pause,
    };
    tracing::info!(
        "journal {}: carrying on with game {id} ({} plies, next event {}, downtime {downtime:?})",
        path.display(),
        restored.game.moves().len(),
        restored.next_seq(),
    );
    let resumption = Resumption {
        next_seq: restored.next_seq(),
        awaiting_press: awaiting_press(&events),
        clock: restored.clock.map(|c| ClockReading {
            t: c.t_ms,
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running.map(Into::into),
        }),
        t,
        downtime,
        game: restored.game,
    };
    Ok(Opened {
        journal: reader.filter(|_| writable),
        reopen,
        current: Some(id),
        resume: Some(ResumedGame { meta, resumption }),
    })
}

/// The ply made and not yet completed by its clock press, from a game's
/// events (Article 6.7).
pub fn awaiting_press(events: &[Event]) -> Option<usize> {
    let mut awaiting = None;
    for e in events {
        match &e.kind {
            EventKind::Move { ply, .. } => awaiting = Some(*ply),
            EventKind::MoveCompleted { ply } if awaiting == Some(*ply) => awaiting = None,
            EventKind::Takeback { .. } | EventKind::GameStarted { .. } => awaiting = None,
            EventKind::GameOver { .. } => awaiting = None,
            _ => {}
        }
    }
    awaiting
}

/// When the journal was last written: the later of the file's and its
/// write-ahead log's modification times.
fn last_write(path: &Path) -> Option<SystemTime> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    [path.to_path_buf(), wal.into()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64, kind: EventKind) -> Event {
        Event {
            t_ms: seq,
            seq,
            kind,
        }
    }

    fn mv(seq: u64, ply: usize) -> Event {
        ev(
            seq,
            EventKind::Move {
                ply,
                side: touchmove_core::events::Side::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: String::new(),
                inferred: false,
            },
        )
    }

    #[test]
    fn a_move_waits_for_its_press_until_completed() {
        assert_eq!(awaiting_press(&[]), None);
        assert_eq!(awaiting_press(&[mv(0, 1)]), Some(1));
        let completed = ev(1, EventKind::MoveCompleted { ply: 1 });
        assert_eq!(awaiting_press(&[mv(0, 1), completed.clone()]), None);
        assert_eq!(awaiting_press(&[mv(0, 1), completed, mv(2, 2)]), Some(2));
    }
}
