//! The journal's cost: one event appended and committed durably (WAL,
//! `synchronous=FULL`: an fsync per commit), a batch in one commit, a game
//! restored from its events, and opening a journal of many games (the
//! `quick_check` of every page). The file lives on the build's disk
//! (`target/tmp`), not in memory.
use std::path::{Path, PathBuf};

use divan::Bencher;
use divan::counter::ItemsCount;
use touchmove_board::outputs::journal::{GameId, GameMeta, Journal};
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::replay::{drive, session_for};
use touchmove_synth::{self as synth, HandStyle};

fn main() {
    divan::main();
}

fn db(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sqlite3"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// The events of a synthesized 80-ply game played with a clock.
fn game_events() -> (Vec<Event>, GameMeta) {
    let (start, moves) = synth::random_game(3, 80);
    let s = synth::synthesize(&start, &moves, &HandStyle::random(), 1);
    let tc = TimeControl::parse_human("90+30").unwrap();
    let mut session = session_for(&s.trace, None, None, Some(tc), None, None).unwrap();
    let events = drive(&mut session, &s.trace, "bench").unwrap();
    let first = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::GameStarted { .. }))
        .unwrap();
    let mut meta = GameMeta::new(
        "2026-03-14T15:09:26Z",
        session.config().start.clone(),
        session.config().profile,
    );
    meta.time_control = session.config().time_control.clone();
    (events[first..].to_vec(), meta)
}

/// An endless stream of a game's events, numbered on.
struct Stream {
    events: Vec<Event>,
    next: u64,
}

impl Stream {
    fn next(&mut self) -> Event {
        let mut e = self.events[self.next as usize % self.events.len()].clone();
        e.seq = self.next;
        self.next += 1;
        e
    }
}

fn writer(name: &str) -> (Journal, GameId, Stream) {
    let (events, meta) = game_events();
    let mut journal = Journal::open(db(name)).unwrap();
    let game = journal.begin_game(&meta).unwrap();
    (journal, game, Stream { events, next: 0 })
}

/// One event appended: returns once committed and fsynced.
#[divan::bench(sample_count = 50, sample_size = 20)]
fn append_one_event(bencher: Bencher) {
    let (mut journal, game, mut stream) = writer("append");
    bencher.bench_local(|| journal.append(game, &stream.next()).unwrap());
}

/// Eight events in one transaction: the cost of one commit shared.
#[divan::bench(sample_count = 50, sample_size = 5)]
fn append_batch_of_8(bencher: Bencher) {
    let (mut journal, game, mut stream) = writer("batch");
    bencher.counter(ItemsCount::new(8usize)).bench_local(|| {
        let batch: Vec<Event> = (0..8).map(|_| stream.next()).collect();
        journal.append_batch(game, &batch).unwrap()
    });
}

/// A whole game restored from its events (the daemon's start).
#[divan::bench(sample_count = 20)]
fn restore_80_plies(bencher: Bencher) {
    let (events, meta) = game_events();
    let mut journal = Journal::open(db("restore")).unwrap();
    let game = journal.begin_game(&meta).unwrap();
    journal.append_batch(game, &events).unwrap();
    bencher
        .counter(ItemsCount::new(events.len()))
        .bench_local(|| journal.restore(game).unwrap());
}

/// Opening (with `quick_check`) a journal of 200 such games.
#[divan::bench(sample_count = 10)]
fn open_200_games(bencher: Bencher) {
    let (events, meta) = game_events();
    let path = db("open");
    {
        let mut journal = Journal::open(&path).unwrap();
        for _ in 0..200 {
            let game = journal.begin_game(&meta).unwrap();
            journal.append_batch(game, &events).unwrap();
        }
    }
    bencher.bench_local(|| Journal::open(&path).unwrap());
}
