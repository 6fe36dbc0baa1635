//! Latency from the scan loop handing a step's events over to their
//! arrival at an SSE client on loopback (p50, p99, max), without a journal
//! and with one (each step committed, fsync included, before it is
//! published). The session's own work on a scan is measured in
//! `benches/inference.rs`; this is what the outputs add.
//!
//! `cargo bench --bench latency` (STEPS=n to change the number of steps).
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use touchmove_board::daemon::writer::{self, Batch};
use touchmove_board::outputs::control::Control;
use touchmove_board::outputs::feed::Feed;
use touchmove_board::outputs::http::{self, AppState};
use touchmove_board::outputs::journal::{GameMeta, Journal};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::pgn::Tags;
use touchmove_core::game::{Game, Profile, Start};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn measure(
    runtime: &tokio::runtime::Runtime,
    journal: Option<Journal>,
    steps: u64,
) -> Vec<Duration> {
    let start = Start::standard();
    let feed = Feed::new(1024, Tags::default(), start.fen());
    let (inbox, _inbox_rx) = tokio::sync::mpsc::channel(1);
    let app = http::router(AppState {
        feed: feed.clone(),
        control: Control { token: None, inbox },
        mqtt: None,
        journal: None,
        streams: touchmove_wire::serve::StreamSlots::new(64),
    });
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(async move { axum::serve(listener, app).await });

    let writer = writer::spawn(feed.clone(), journal, None, None).unwrap();
    let game = Game::new(start.clone(), Profile::FideStandard);
    let meta = GameMeta::new("2026-03-14T15:09:26Z", start.clone(), Profile::FideStandard);
    let started = Event {
        t_ms: 0,
        seq: 0,
        kind: EventKind::GameStarted {
            fen: start.fen(),
            profile: None,
        },
    };
    writer
        .tx
        .send(Batch {
            events: vec![started],
            meta: Some(meta),
            game: game.clone(),
        })
        .unwrap();

    // The client, resuming after the game's first event.
    let mut stream = TcpStream::connect(addr).unwrap();
    let (arrived_tx, arrived) = mpsc::channel::<Instant>();
    std::thread::sleep(Duration::from_millis(50));
    let id = format!("{}-0", feed.game());
    write!(
        stream,
        "GET /events HTTP/1.0\r\nHost: bench\r\nLast-Event-ID: {id}\r\n\r\n"
    )
    .unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("data: ") && arrived_tx.send(Instant::now()).is_err() {
                break;
            }
        }
    });

    let mut latencies = Vec::with_capacity(steps as usize);
    for seq in 1..=steps {
        let event = Event {
            t_ms: seq,
            seq,
            kind: EventKind::MoveCompleted { ply: seq as usize },
        };
        let handed = Instant::now();
        writer
            .tx
            .send(Batch {
                events: vec![event],
                meta: None,
                game: game.clone(),
            })
            .unwrap();
        let at = arrived
            .recv_timeout(Duration::from_secs(10))
            .expect("the event reaches the client");
        latencies.push(at - handed);
    }
    latencies.sort();
    latencies
}

fn report(name: &str, sorted: &[Duration]) {
    println!(
        "{name:<24} {:>6} steps  p50 {:>9.3?}  p99 {:>9.3?}  max {:>9.3?}",
        sorted.len(),
        percentile(sorted, 0.5),
        percentile(sorted, 0.99),
        sorted[sorted.len() - 1]
    );
}

fn main() {
    let steps: u64 = std::env::var("STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    report("no journal", &measure(&runtime, None, steps));
    let dir = std::env::temp_dir().join(format!("touchmove-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let journal = Journal::open(dir.join("journal.sqlite3")).unwrap();
    report("journal (fsync)", &measure(&runtime, Some(journal), steps));
    let _ = std::fs::remove_dir_all(&dir);
}
