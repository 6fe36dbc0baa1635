//! The journal writer: a thread of its own between the scan loop and the
//! feed. The scan loop hands it each step's events (a bounded channel: the
//! scan loop waits only when the disk has fallen that many steps behind);
//! it commits them to the journal in one transaction (one fsync) and only
//! then publishes them to the feed. So no client ever sees an event that a
//! power cut could take back.
//!
//! Without a journal it only publishes. Events concluded before any game
//! began (a sensor fault at power-on) belong to no game: they are published
//! without being journalled.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::events::{Event, EventKind};
use crate::game::Game;
use crate::outputs::feed::Feed;
use crate::outputs::journal::{GameId, GameMeta, Journal};

/// How many scan-loop steps may wait for the disk.
pub const QUEUE: usize = 256;

/// One scan-loop step's events.
pub struct Batch {
    pub events: Vec<Event>,
    /// What the journal keeps about the game a `game_started` of `events`
    /// begins.
    pub meta: Option<GameMeta>,
    /// The game after these events (for the live PGN).
    pub game: Game,
}

/// The writer's handle: where batches go, and whether the journal still
/// takes them.
pub struct Writer {
    pub tx: mpsc::SyncSender<Batch>,
    pub healthy: Arc<AtomicBool>,
    pub thread: JoinHandle<()>,
}

/// Starts the writer. `current`: the journal's game in progress (resumed).
pub fn spawn(
    feed: Arc<Feed>,
    journal: Option<Journal>,
    current: Option<GameId>,
) -> std::io::Result<Writer> {
    let (tx, rx) = mpsc::sync_channel::<Batch>(QUEUE);
    let healthy = Arc::new(AtomicBool::new(true));
    let thread_healthy = Arc::clone(&healthy);
    let thread = std::thread::Builder::new()
        .name("journal".into())
        .spawn(move || {
            let mut state = State {
                feed,
                journal,
                current,
                healthy: thread_healthy,
            };
            // Ends when the scan loop drops its sender, after the last batch.
            for batch in rx {
                state.take(batch);
            }
        })?;
    Ok(Writer {
        tx,
        healthy,
        thread,
    })
}

struct State {
    feed: Arc<Feed>,
    journal: Option<Journal>,
    current: Option<GameId>,
    healthy: Arc<AtomicBool>,
}

impl State {
    fn take(&mut self, batch: Batch) {
        if !self.healthy.load(Ordering::Relaxed) {
            // A batch the journal refused leaves a gap: later ones cannot
            // be numbered after it. Nothing more is published; the
            // watchdog lets systemd restart the daemon from the journal.
            return;
        }
        if let Err(e) = self.commit(&batch) {
            tracing::error!("journal: {e}; the events from seq {} are not published", {
                batch.events.first().map_or(0, |e| e.seq)
            });
            self.healthy.store(false, Ordering::Relaxed);
            return;
        }
        log_events(&batch.events);
        // The PGN first: a reader woken by the events finds it up to date.
        self.feed.update_pgn(&batch.game);
        self.feed.publish(&batch.events);
    }

    /// Commits the batch: each run of events of one game in one transaction.
    fn commit(&mut self, batch: &Batch) -> anyhow::Result<()> {
        let Some(journal) = &mut self.journal else {
            return Ok(());
        };
        let mut rest = batch.events.as_slice();
        while !rest.is_empty() {
            let starts = matches!(rest[0].kind, EventKind::GameStarted { .. });
            if starts {
                let meta = batch
                    .meta
                    .as_ref()
                    .ok_or_else(|| anyhow::anyhow!("a game began without its description"))?;
                let id = journal.begin_game(meta)?;
                self.current = Some(id);
                self.feed.set_next_game(id.0 as u64);
            }
            let end = rest
                .iter()
                .skip(1)
                .position(|e| matches!(e.kind, EventKind::GameStarted { .. }))
                .map_or(rest.len(), |i| i + 1);
            let (run, tail) = rest.split_at(end);
            if let Some(game) = self.current {
                journal.append_batch(game, run)?;
            }
            rest = tail;
        }
        Ok(())
    }
}

fn log_events(events: &[Event]) {
    for e in events {
        tracing::debug!("{}", e.to_json());
        match &e.kind {
            EventKind::Move { ply, san, .. } => tracing::info!("ply {ply}: {san}"),
            EventKind::GameOver { result, reason } => {
                tracing::info!("game over: {result} ({reason})")
            }
            EventKind::GameStarted { fen, .. } => tracing::info!("game started: {fen}"),
            k if k.is_alert() => tracing::info!("alert: {}", e.to_json()),
            _ => {}
        }
    }
}
