//! The journal writer: a thread of its own between the scan loop and the
//! feed. The scan loop hands it each step's events (a bounded channel: the
//! scan loop waits only when the disk has fallen that many steps behind);
//! it commits them to the journal in one transaction (one fsync) and only
//! then publishes them to the feed. So no client ever sees an event that a
//! power cut could take back.
//!
//! When the journal cannot commit (a full disk, an unwritable file) the
//! record must not stop: the events are published all the same, held in
//! memory (at most [`HELD_MAX`]) and committed in order, each once, as
//! soon as the journal takes writes again. It is tried again with every
//! step and every [`RETRY`]. The scan loop hears of the failure and of the
//! recovery ([`StorageNotice`]) and reports both into the record;
//! `/health` reads the [`Durability`].
//!
//! Without a journal it only publishes. Events concluded before any game
//! began (a sensor fault at power-on) belong to no game: they are published
//! without being journalled.
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::outputs::feed::Feed;
use crate::outputs::journal::durability::{Durability, DurabilityReport, HELD_MAX, StorageNotice};
use crate::outputs::journal::{GameId, GameMeta, Journal, JournalError};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::Game;

/// How many scan-loop steps may wait for the disk.
pub(crate) const QUEUE: usize = 256;

/// How often a failing journal is tried again while no events arrive.
pub const RETRY: Duration = Duration::from_millis(500);

/// How long the writer keeps trying a failing journal at shutdown.
const LAST_TRY: Duration = Duration::from_secs(2);

/// One scan-loop step's events.
pub struct Batch {
    pub events: Vec<Event>,
    /// What the journal keeps about the game a `game_started` of `events`
    /// begins.
    pub meta: Option<GameMeta>,
    /// The game after these events (for the live PGN).
    pub game: Game,
}

/// The writer's handle: where batches go, whether the journal holds the
/// record, and the changes of that the scan loop reports.
pub struct Writer {
    pub tx: mpsc::SyncSender<Batch>,
    pub durability: Arc<Durability>,
    pub notices: mpsc::Receiver<StorageNotice>,
    pub thread: JoinHandle<()>,
}

/// Starts the writer. `current`: the journal's game in progress (resumed).
/// `reopen`: a journal the storage would not open for writing: the writer
/// holds the record and tries to open it with every retry.
pub fn spawn(
    feed: Arc<Feed>,
    journal: Option<Journal>,
    reopen: Option<PathBuf>,
    current: Option<GameId>,
) -> std::io::Result<Writer> {
    let (tx, rx) = mpsc::sync_channel::<Batch>(QUEUE);
    let (notice_tx, notices) = mpsc::channel();
    let durability = Arc::new(Durability::default());
    let mut state = State {
        feed,
        journal,
        reopen,
        current,
        held: VecDeque::new(),
        held_events: 0,
        gap: false,
        failing: None,
        committed_late: 0,
        lost: 0,
        durability: Arc::clone(&durability),
        notices: notice_tx,
    };
    let thread = std::thread::Builder::new()
        .name("journal".into())
        .spawn(move || {
            loop {
                match rx.recv_timeout(RETRY) {
                    Ok(batch) => state.take(batch),
                    Err(mpsc::RecvTimeoutError::Timeout) => state.flush(),
                    // The scan loop dropped its sender after the last batch.
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            state.last_flush();
        })?;
    Ok(Writer {
        tx,
        durability,
        notices,
        thread,
    })
}

/// A run of events of one game (or of none), in order: what one
/// transaction commits.
struct Unit {
    /// The description of the game a `game_started` in front begins.
    begins: Option<GameMeta>,
    /// The journal's number of the game begun, once it is.
    begun: Option<GameId>,
    events: Vec<Event>,
    /// Already on the feed (a held unit).
    published: bool,
}

struct State {
    feed: Arc<Feed>,
    journal: Option<Journal>,
    /// The journal to open once the storage lets it.
    reopen: Option<PathBuf>,
    /// The journal's game the next unit without a `game_started` belongs to.
    current: Option<GameId>,
    /// Units not yet committed, oldest first.
    held: VecDeque<Unit>,
    held_events: usize,
    /// Events of the current game were left out (the bound was reached):
    /// the rest of it cannot follow them into the journal.
    gap: bool,
    /// The journal's answer while it refuses commits.
    failing: Option<String>,
    /// Events committed late since the failure began.
    committed_late: usize,
    lost: u64,
    durability: Arc<Durability>,
    notices: mpsc::Sender<StorageNotice>,
}

impl State {
    fn take(&mut self, batch: Batch) {
        for unit in units(batch.events.clone(), batch.meta) {
            self.hold(unit);
        }
        self.flush();
        log_events(&batch.events);
        // The PGN first: a reader woken by the events finds it up to date.
        self.feed.update_pgn(&batch.game);
        self.feed.publish(&batch.events);
        for unit in &mut self.held {
            unit.published = true;
        }
        self.report();
    }

    /// Queues a unit behind the held ones, or leaves it out of the journal
    /// when the bound is reached (or the game already has a gap).
    fn hold(&mut self, unit: Unit) {
        if self.journal.is_none() && self.reopen.is_none() {
            return;
        }
        if unit.begins.is_some() {
            // A new game starts whole: the gap of the last one ends here.
            self.gap = false;
        }
        if self.gap || self.held_events + unit.events.len() > HELD_MAX {
            if !self.gap {
                tracing::error!(
                    "journal: {} events held, the most kept in memory; later events of this game are left out of the journal (the live record keeps them)",
                    self.held_events
                );
            }
            self.gap = true;
            self.lost += unit.events.len() as u64;
            return;
        }
        self.held_events += unit.events.len();
        self.held.push_back(unit);
    }

    /// Commits the held units in order until one fails.
    fn flush(&mut self) {
        if self.journal.is_none()
            && let Some(path) = &self.reopen
        {
            match Journal::open(path) {
                Ok(journal) => {
                    tracing::info!("journal {}: open for writing", path.display());
                    self.journal = Some(journal);
                    self.reopen = None;
                }
                Err(e) => {
                    self.fail(e.to_string(), None);
                    self.report();
                    return;
                }
            }
        }
        while let Some(unit) = self.held.front_mut() {
            let Some(journal) = self.journal.as_mut() else {
                break;
            };
            match commit(journal, &mut self.current, unit) {
                Ok(id) => {
                    // The feed numbers the game as the journal does (a
                    // game begun late was numbered by the feed alone: the
                    // journal's next number, as games are numbered in turn).
                    if let Some(id) = id.filter(|_| !unit.published) {
                        self.feed.set_next_game(id.0 as u64);
                    }
                    let n = unit.events.len();
                    self.held.pop_front();
                    self.held_events -= n;
                    if self.failing.is_some() {
                        self.committed_late += n;
                    }
                }
                Err(e @ (JournalError::OutOfOrder { .. } | JournalError::NoSuchGame { .. })) => {
                    // Not the disk: these events cannot follow the
                    // journal's. Left out, like events beyond the bound.
                    tracing::error!(
                        "journal: {e}; the rest of this game is left out of the journal"
                    );
                    let from_seq = unit.events.first().map(|e| e.seq);
                    let n = unit.events.len();
                    self.held.pop_front();
                    self.held_events -= n;
                    self.lost += n as u64;
                    self.gap = true;
                    self.fail(e.to_string(), from_seq);
                }
                Err(e) => {
                    let from_seq = unit
                        .events
                        .first()
                        .filter(|_| unit.begins.is_some() || self.current.is_some())
                        .map(|e| e.seq);
                    if self.failing.is_none() {
                        tracing::error!(
                            "journal: {e}; the record goes on live and is held in memory (at most {HELD_MAX} events) until the journal takes writes again"
                        );
                    }
                    self.fail(e.to_string(), from_seq);
                    self.report();
                    return;
                }
            }
        }
        if self.failing.is_some() && !self.gap {
            self.failing = None;
            tracing::info!(
                "journal: takes writes again; {} held events committed, {} left out",
                self.committed_late,
                self.lost
            );
            let _ = self.notices.send(StorageNotice::Restored {
                committed: self.committed_late,
                lost: self.lost,
            });
        }
        self.report();
    }

    /// The journal no longer holds the record: said once per outage.
    fn fail(&mut self, error: String, from_seq: Option<u64>) {
        if self.failing.is_none() {
            self.failing = Some(error.clone());
            self.committed_late = 0;
            let _ = self.notices.send(StorageNotice::Failed { error, from_seq });
        }
    }

    /// At shutdown: a few more tries, then says what is lost.
    fn last_flush(&mut self) {
        let until = Instant::now() + LAST_TRY;
        self.flush();
        while !self.held.is_empty() && Instant::now() < until {
            std::thread::sleep(RETRY / 5);
            self.flush();
        }
        if !self.held.is_empty() {
            tracing::error!(
                "journal: stopping with {} events never committed ({}): they were published but are not in the journal",
                self.held_events,
                self.failing.as_deref().unwrap_or("no answer")
            );
        }
    }

    fn report(&self) {
        self.durability.set(DurabilityReport {
            durable: self.failing.is_none() && self.held.is_empty() && !self.gap,
            error: self.failing.clone(),
            held: self.held_events,
            held_max: HELD_MAX,
            lost: self.lost,
        });
    }
}

/// Commits one unit in one transaction (after the game's own, when it
/// begins one). Returns the game it began. A unit that failed keeps the
/// game it began, so a retry never begins it twice.
fn commit(
    journal: &mut Journal,
    current: &mut Option<GameId>,
    unit: &mut Unit,
) -> Result<Option<GameId>, JournalError> {
    let began = match (&unit.begins, unit.begun) {
        (Some(meta), None) => {
            let id = journal.begin_game(meta)?;
            unit.begun = Some(id);
            *current = Some(id);
            Some(id)
        }
        (_, begun) => begun,
    };
    if unit.begins.is_none()
        && let Some(first) = unit.events.first()
        && matches!(first.kind, EventKind::GameStarted { .. })
    {
        tracing::error!("journal: a game began without its description; it is not journalled");
        *current = None;
    }
    if let Some(game) = *current {
        match journal.append_batch(game, &unit.events) {
            // Committed before (an answer lost after the commit): once.
            Err(JournalError::Duplicate { seq, .. }) => {
                tracing::warn!(
                    "journal: seq {seq} of game {} was already committed",
                    game.0
                );
            }
            other => other?,
        }
    }
    Ok(began)
}

/// Splits a step's events into runs of one game each: a `game_started`
/// begins a run (described by `meta`).
fn units(events: Vec<Event>, meta: Option<GameMeta>) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for event in events {
        let starts = matches!(event.kind, EventKind::GameStarted { .. });
        match units.last_mut() {
            Some(unit) if !starts => unit.events.push(event),
            _ => units.push(Unit {
                begins: if starts { meta.clone() } else { None },
                begun: None,
                events: vec![event],
                published: false,
            }),
        }
    }
    units
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
