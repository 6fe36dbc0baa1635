//! The journal's disk fills mid-game: `touchmove run --trace` journals a
//! game on a small tmpfs while an SSE client follows it; the test fills the
//! tmpfs to the last byte, later frees it.
//!
//! Within a second of the fill `/health` answers 503 and the feed carries
//! the `storage_failed` alert; the record never stops (moves keep coming,
//! held in memory). When space returns the held events are committed in
//! order: the journal holds every event the client received, each once, the
//! game's moves as an uninterrupted replay finds them, and `touchmove
//! journal check` passes.
//!
//! Mounting a tmpfs needs root (CI runs as root).
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use touchmove_board::outputs::journal::Journal;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::replay::{drive, session_for};
use touchmove_synth::{self as synth, HandStyle};

mod process;

const TIME_CONTROL: &str = "90+30";

/// A tmpfs of its own, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        let _ = Command::new("umount").arg(dir).status();
        std::fs::create_dir_all(dir).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o"])
            .arg(format!("size={size}"))
            .arg("tmpfs")
            .arg(dir)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "cannot mount a tmpfs on {} ({status}): this test needs root",
            dir.display()
        );
        Tmpfs(dir.to_path_buf())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Writes a file until the filesystem has no byte left.
fn fill(path: &Path) -> u64 {
    let mut file = std::fs::File::create(path).unwrap();
    let block = vec![0x55u8; 4096];
    let mut written = 0u64;
    loop {
        match file.write(&block) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
            Err(e) => panic!("filling {}: {e}", path.display()),
        }
    }
    let _ = file.sync_all();
    written
}

/// A daemon, killed when dropped (a failed assertion leaves none behind).
struct Daemon(Child);

impl std::ops::Deref for Daemon {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Daemon {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn daemon(db: &Path, trace: &Path, speed: f64) -> (Daemon, SocketAddr) {
    let mut command = process::touchmove_run();
    command
        .args(["--bind", "127.0.0.1:0", "--speed"])
        .arg(speed.to_string())
        .args(["--time-control", TIME_CONTROL, "--trace"])
        .arg(trace)
        .arg("--journal")
        .arg(db)
        .stderr(Stdio::inherit());
    let (child, addr) = process::spawn_serving(command, |line| {
        if line.contains("journal") {
            eprintln!("daemon: {line}");
        }
    });
    (Daemon(child), addr)
}

/// The events an SSE client received, as `(id, json)`.
type Received = Arc<Mutex<Vec<(String, String)>>>;

fn follow(addr: SocketAddr, got: Received) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /events HTTP/1.0\r\nHost: test\r\nLast-Event-ID: 0-0\r\n\r\n"
    )
    .unwrap();
    std::thread::spawn(move || {
        let mut id = None;
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.to_owned());
            } else if let Some(data) = line.strip_prefix("data: ") {
                let id = id.take().expect("every event has an id");
                got.lock().unwrap().push((id, data.to_owned()));
            }
        }
    });
}

/// `GET path`: the status code and the body.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: test\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP answer: {answer:?}"));
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (status, body)
}

fn count(got: &Received, kind: &str) -> usize {
    let needle = format!("\"type\":\"{kind}\"");
    got.lock()
        .unwrap()
        .iter()
        .filter(|(_, d)| d.contains(&needle))
        .count()
}

/// Waits until `done` holds; the time it took, or `None` after `limit`.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let began = Instant::now();
    while began.elapsed() < limit {
        if done() {
            return Some(began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
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

/// A random game without promotions, synthesized into `dir/game.trace`:
/// the trace, the moves an uninterrupted replay finds, and the speed that
/// plays it in about 20 s.
fn game(dir: &Path, first_seed: u64, style_seed: u64) -> (PathBuf, Vec<String>, f64) {
    std::fs::create_dir_all(dir).unwrap();
    let (start, moves) = (first_seed..)
        .map(|seed| synth::random_game(seed, 40))
        .find(|(_, moves)| moves.len() >= 36 && !moves.iter().any(|m| m.is_promotion()))
        .expect("a random game");
    let synth = synth::synthesize(&start, &moves, &HandStyle::random(), style_seed);
    let trace = dir.join("game.trace");
    std::fs::write(&trace, synth.trace.to_string()).unwrap();
    let tc = TimeControl::parse_human(TIME_CONTROL).unwrap();
    let mut session = session_for(&synth.trace, None, None, Some(tc), None, None).unwrap();
    let expected_moves = moves_of(&drive(&mut session, &synth.trace, "game.trace").unwrap());
    assert!(expected_moves.len() >= 30);
    let game_ms = synth.trace.records.last().unwrap().t as f64;
    (trace, expected_moves, (game_ms / 20_000.0).max(1.0))
}

/// Waits for the client to have every move, then stops the daemon.
fn played_out(mut child: Daemon, got: &Received, expected_moves: &[String]) {
    assert!(
        wait_for(Duration::from_secs(60), || count(got, "move")
            == expected_moves.len())
        .is_some(),
        "the client receives every move: {} of {}",
        count(got, "move"),
        expected_moves.len()
    );
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The journal holds one game: its moves as the replay finds them, and
/// every event the client received, each once; `journal check` passes.
/// Returns the stored events.
fn assert_journalled(db: &Path, got: &Received, expected_moves: &[String]) -> Vec<Event> {
    let journal = Journal::open_read_only(db).unwrap();
    let games = journal.list().unwrap();
    assert_eq!(games.len(), 1, "one game");
    let stored = journal.events_after(games[0].id, None).unwrap();
    assert_eq!(
        moves_of(&stored),
        expected_moves,
        "every move once, in order"
    );
    let got = got.lock().unwrap().clone();
    assert_eq!(stored.len(), got.len(), "every event the client saw, once");
    for (i, (id, data)) in got.iter().enumerate() {
        assert_eq!(id, &format!("{}-{i}", games[0].id), "ids in order");
        assert_eq!(&stored[i].to_json(), data, "event {id}");
    }
    let check = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["journal", "check", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "journal check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    stored
}

#[test]
fn a_full_disk_holds_the_record_in_memory_and_commits_it_when_space_returns() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-full-disk");
    let (trace, expected_moves, speed) = game(&dir, 11, 3);
    let disk = Tmpfs::mount(&dir.join("disk"), "8m");
    let db = disk.0.join("journal.sqlite3");
    let (child, addr) = daemon(&db, &trace, speed);
    let got: Received = Arc::default();
    follow(addr, Arc::clone(&got));
    assert!(
        wait_for(Duration::from_secs(30), || count(&got, "move") >= 6).is_some(),
        "six moves published"
    );
    assert_eq!(get(addr, "/health").0, 200);

    // The disk fills.
    let filler = disk.0.join("filler");
    let moves_at_fill = count(&got, "move");
    let bytes = fill(&filler);
    eprintln!("filled the tmpfs with {bytes} bytes at move {moves_at_fill}");
    let failed = wait_for(Duration::from_secs(5), || {
        get(addr, "/health").0 == 503 && count(&got, "storage_failed") == 1
    })
    .expect("/health turns 503 and the feed carries storage_failed");
    eprintln!(
        "the failure was reported {} ms after the fill",
        failed.as_millis()
    );
    assert!(failed < Duration::from_secs(1), "reported after {failed:?}");
    let (_, health) = get(addr, "/health");
    let health: serde_json::Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["status"], "journal-failing");
    assert_eq!(health["journal"]["durable"], false);
    assert!(health["journal"]["error"].as_str().is_some(), "{health}");
    let state: serde_json::Value = serde_json::from_str(&get(addr, "/state").1).unwrap();
    assert!(
        state.to_string().contains("storage_failed"),
        "the display's state shows the alert: {state}"
    );

    // The record goes on while the disk is full.
    assert!(
        wait_for(Duration::from_secs(10), || count(&got, "move")
            >= moves_at_fill + 3)
        .is_some(),
        "moves keep coming while the journal cannot commit"
    );
    let (_, health) = get(addr, "/health");
    let held = serde_json::from_str::<serde_json::Value>(&health).unwrap()["journal"]["held"]
        .as_u64()
        .unwrap();
    assert!(held > 0, "events are held: {health}");

    // Space returns.
    std::fs::remove_file(&filler).unwrap();
    wait_for(Duration::from_secs(5), || {
        get(addr, "/health").0 == 200 && count(&got, "storage_restored") == 1
    })
    .expect("/health is ok again and the feed carries storage_restored");

    // The game plays out; then every event the client saw is journalled.
    played_out(child, &got, &expected_moves);
    let stored = assert_journalled(&db, &got, &expected_moves);
    let kinds: Vec<&str> = stored.iter().map(|e| e.kind.name()).collect();
    let failed_at = kinds.iter().position(|k| *k == "storage_failed").unwrap();
    let restored_at = kinds.iter().position(|k| *k == "storage_restored").unwrap();
    assert!(failed_at < restored_at);
}

/// Started again on a full disk (the journal cannot even be opened for
/// writing): the board starts, carries on with the journal's game read
/// back, says so, and commits what it held once space returns.
#[test]
fn a_daemon_started_on_a_full_disk_plays_on_and_commits_when_space_returns() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-full-disk-restart");
    let (trace, expected_moves, speed) = game(&dir, 21, 4);
    let disk = Tmpfs::mount(&dir.join("disk"), "8m");
    let db = disk.0.join("journal.sqlite3");
    let (mut child, addr) = daemon(&db, &trace, speed);
    let got: Received = Arc::default();
    follow(addr, Arc::clone(&got));
    assert!(wait_for(Duration::from_secs(30), || count(&got, "move") >= 6).is_some());
    // Stopped cleanly: the journal's write-ahead log is folded in and
    // removed, so opening it again needs new space.
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert!(child.wait().unwrap().success());

    let filler = disk.0.join("filler");
    fill(&filler);
    let (child, addr) = daemon(&db, &trace, speed);
    let got: Received = Arc::default();
    follow(addr, Arc::clone(&got));
    wait_for(Duration::from_secs(5), || {
        get(addr, "/health").0 == 503 && count(&got, "storage_failed") == 1
    })
    .expect("started on a full disk, it says the journal is failing");
    let moves_then = count(&got, "move");
    assert!(
        moves_then >= 6,
        "the journal's game is carried on: {moves_then} moves"
    );
    assert!(
        wait_for(Duration::from_secs(15), || count(&got, "move")
            >= moves_then + 3)
        .is_some(),
        "the record goes on"
    );
    std::fs::remove_file(&filler).unwrap();
    wait_for(Duration::from_secs(5), || {
        get(addr, "/health").0 == 200 && count(&got, "storage_restored") == 1
    })
    .expect("the journal opens and takes what was held");
    played_out(child, &got, &expected_moves);
    assert_journalled(&db, &got, &expected_moves);
}
