//! The daemon killed: `touchmove run --trace` journalling a game and
//! serving it to an SSE client is killed with SIGKILL at 100 random moments
//! (many of them while its writer commits), and restarted each time on the
//! same journal, carrying on with the game where the journal stops (the
//! trace from the records the game does not reflect yet). The client
//! reconnects each time with the last id it received.
//!
//! At the end the journal holds the game's moves exactly as an
//! uninterrupted replay finds them, each once, in one game; and every event
//! the client received is the journal's event of that id, received once,
//! with no gap: nothing a client saw can be lost by a crash.
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng, rngs::StdRng};
use touchmove_board::outputs::journal::Journal;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::replay::{drive, session_for};
use touchmove_synth::{self as synth, HandStyle};

mod process;

const KILLS: usize = 100;
const TIME_CONTROL: &str = "90+30";
/// Game time runs this many times faster than the wall clock.
const SPEED: &str = "100";

fn fresh(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// A daemon on `trace` and `db`; returns it and the address it serves.
fn daemon(db: &Path, trace: &Path) -> (Child, SocketAddr) {
    let mut command = process::touchmove_run();
    command
        .args(["--bind", "127.0.0.1:0", "--speed", SPEED])
        .args(["--time-control", TIME_CONTROL, "--trace"])
        .arg(trace)
        .arg("--journal")
        .arg(db)
        .stderr(Stdio::null());
    process::spawn_serving(command, |_| {})
}

/// One SSE event a client received.
#[derive(Debug, Clone)]
struct Received {
    id: String,
    data: String,
}

/// An SSE client on its own thread, resuming after `last_id`; it ends
/// when the daemon goes away.
fn client(
    addr: SocketAddr,
    last_id: &str,
    got: Arc<Mutex<Vec<Received>>>,
) -> std::thread::JoinHandle<()> {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /events HTTP/1.0\r\nHost: test\r\nAccept: text/event-stream\r\nLast-Event-ID: {last_id}\r\n\r\n"
    )
    .unwrap();
    std::thread::spawn(move || {
        let mut id = None;
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.to_owned());
            } else if let Some(data) = line.strip_prefix("data: ") {
                let id = id.take().expect("every event has an id");
                got.lock().unwrap().push(Received {
                    id,
                    data: data.to_owned(),
                });
            }
        }
    })
}

fn moves_of<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<String> {
    events
        .into_iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move { uci, .. } => Some(uci.clone()),
            _ => None,
        })
        .collect()
}

fn received_moves(got: &[Received]) -> usize {
    got.iter()
        .filter(|r| r.data.contains("\"type\":\"move\""))
        .count()
}

/// What one journal went through.
struct Round {
    kills: usize,
    kills_while_publishing: usize,
    runs: usize,
    got: Vec<Received>,
}

/// Runs the daemon on a fresh journal, killing it at random moments until
/// `kills_left` kills were made or the client has received every move.
fn round(db: &Path, trace: &Path, rng: &mut StdRng, kills_left: usize, moves: usize) -> Round {
    let got = Arc::new(Mutex::new(Vec::<Received>::new()));
    let mut r = Round {
        kills: 0,
        kills_while_publishing: 0,
        runs: 0,
        got: Vec::new(),
    };
    let began = Instant::now();
    loop {
        r.runs += 1;
        let (mut child, addr) = daemon(db, trace);
        let last_id = got
            .lock()
            .unwrap()
            .last()
            .map_or_else(|| "0-0".to_owned(), |g| g.id.clone());
        let reader = client(addr, &last_id, Arc::clone(&got));
        let done = || received_moves(&got.lock().unwrap()) == moves;
        // Kill once the client has received `wait_for` more events (0:
        // while the daemon starts and resumes), a random while later.
        let before = got.lock().unwrap().len();
        let wait_for = rng.random_range(0..6usize);
        let waiting = Instant::now();
        while got.lock().unwrap().len() < before + wait_for
            && !done()
            && waiting.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_micros(200));
        }
        let finished = done();
        if !finished && r.kills < kills_left {
            std::thread::sleep(Duration::from_micros(rng.random_range(0..3_000)));
        }
        child.kill().unwrap();
        let status = child.wait().unwrap();
        reader.join().unwrap();
        assert_eq!(status.signal(), Some(9), "run {}: {status}", r.runs);
        if finished || r.kills >= kills_left {
            if finished {
                break;
            }
            // The kills are made: the game goes on undisturbed to its end.
            let (mut child, addr) = daemon(db, trace);
            let last_id = got.lock().unwrap().last().map(|g| g.id.clone());
            let reader = client(
                addr,
                &last_id.unwrap_or_else(|| "0-0".into()),
                Arc::clone(&got),
            );
            let waiting = Instant::now();
            while !done() && waiting.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
            child.kill().unwrap();
            child.wait().unwrap();
            reader.join().unwrap();
            break;
        }
        r.kills += 1;
        if wait_for > 0 {
            r.kills_while_publishing += 1;
        }
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "no end after {} runs: the client has {} of {moves} moves",
            r.runs,
            received_moves(&got.lock().unwrap())
        );
    }
    r.got = got.lock().unwrap().clone();
    r
}

/// The journal holds the replay's moves once, in one game, and every event
/// the client received, with no gap.
fn assert_journal_holds_the_game(db: &Path, expected: &[Event], r: &Round) {
    let expected_moves = moves_of(expected);
    let journal = Journal::open_read_only(db).unwrap();
    let games = journal.list().unwrap();
    assert_eq!(games.len(), 1, "one game, never begun twice");
    let game = games[0].id;
    let stored = journal.events_after(game, None).unwrap();
    assert_eq!(moves_of(&stored), expected_moves);
    // Resuming raised no alert the uninterrupted game does not: the board
    // read again after each restart was understood.
    let alerts = |events: &[Event]| -> Vec<&'static str> {
        events
            .iter()
            .filter(|e| e.kind.is_alert())
            .map(|e| e.kind.name())
            .collect()
    };
    assert_eq!(alerts(&stored), alerts(expected));
    assert!(journal.check().unwrap().is_ok());
    for (i, got) in r.got.iter().enumerate() {
        let (g, seq) = got.id.split_once('-').expect("ids are <game>-<seq>");
        assert_eq!(g, game.to_string(), "the journal's game number");
        let seq: usize = seq.parse().unwrap();
        assert_eq!(seq, i, "the client received every event once, in order");
        assert_eq!(
            stored[seq].to_json(),
            got.data,
            "the client's event {} is the journal's",
            got.id
        );
    }
    assert_eq!(received_moves(&r.got), expected_moves.len());
}

#[test]
fn killed_at_100_random_moments_the_daemon_loses_nothing_a_client_saw() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("daemon-crash");
    std::fs::create_dir_all(&dir).unwrap();
    // A game whose every move an occupancy board can tell even when the
    // daemon is down across it: no promotion (a promoted piece taken before
    // it moves leaves no trace of which piece it was).
    let (start, moves) = (5..)
        .map(|seed| synth::random_game(seed, 40))
        .find(|(_, moves)| moves.len() >= 36 && !moves.iter().any(|m| m.is_promotion()))
        .expect("a random game without a promotion");
    let synth = synth::synthesize(&start, &moves, &HandStyle::random(), 5);
    let trace = fresh(&dir, "game.trace");
    std::fs::write(&trace, synth.trace.to_string()).unwrap();

    // What `touchmove replay --events` concludes.
    let tc = TimeControl::parse_human(TIME_CONTROL).unwrap();
    let mut session = session_for(&synth.trace, None, None, Some(tc), None, None).unwrap();
    let all = drive(&mut session, &synth.trace, "game.trace").unwrap();
    let expected_moves = moves_of(&all);
    assert_eq!(expected_moves.len(), session.game().ply());
    assert!(expected_moves.len() >= 30, "{} plies", expected_moves.len());

    let mut rng = StdRng::seed_from_u64(0xdead_beef);
    let began = Instant::now();
    let (mut kills, mut while_publishing, mut rounds) = (0, 0, 0);
    while kills < KILLS {
        rounds += 1;
        let db = fresh(&dir, &format!("journal-{rounds}.sqlite3"));
        let r = round(&db, &trace, &mut rng, KILLS - kills, expected_moves.len());
        assert_journal_holds_the_game(&db, &all, &r);
        eprintln!(
            "journal {rounds}: {} kills ({} while publishing) in {} runs; the client received {} events",
            r.kills,
            r.kills_while_publishing,
            r.runs,
            r.got.len()
        );
        kills += r.kills;
        while_publishing += r.kills_while_publishing;
    }
    eprintln!(
        "{kills} kills in {rounds} journals, {:.1} s",
        began.elapsed().as_secs_f64()
    );
    assert!(
        while_publishing >= KILLS / 2,
        "only {while_publishing} kills landed while events were flowing"
    );
}
