//! Durability: a writer journaling a real game from a trace is killed with
//! SIGKILL at 100 random moments (most of them while it commits), and
//! restarted each time on the same journal. At the end the journal holds
//! exactly the game's events — every move once, numbered without gap —
//! and every event the writer had published before a kill.
//!
//! The writer is `touchmove journal write-trace`: it publishes (prints)
//! each event only after the journal committed it, and on restart resumes
//! after what the journal holds, checking that the game restored from the
//! journal is the trace's game at that point.
use std::io::BufRead as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng, rngs::StdRng};
use touchmove::cli::replay::{drive, session_for};
use touchmove::clock::TimeControl;
use touchmove::events::{Event, EventKind};
use touchmove::outputs::journal::Journal;
use touchmove::synth::faults::{self, Fault};
use touchmove::synth::{self, HandStyle};

const KILLS: usize = 100;
const TIME_CONTROL: &str = "90+30";

fn fresh(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

fn writer(db: &Path, trace: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["journal", "--db"])
        .arg(db)
        .arg("write-trace")
        .arg(trace)
        .args([
            "--time-control",
            TIME_CONTROL,
            "--started-at",
            "2026-03-14T15:09:26Z",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the touchmove binary runs")
}

/// Reads the child's standard error to the end on a thread.
fn stderr_of(child: &mut Child) -> std::thread::JoinHandle<String> {
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default())
}

#[test]
fn killed_at_100_random_moments_the_journal_holds_the_game_once() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-crash");
    std::fs::create_dir_all(&dir).unwrap();
    let (start, moves) = synth::random_game(11, 120);
    let synth = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        5,
        &[(7, Fault::IllegalMoveReinstated)],
    )
    .unwrap();
    let trace = fresh(&dir, "game.trace");
    std::fs::write(&trace, synth.trace.to_string()).unwrap();
    let db = fresh(&dir, "journal.sqlite3");

    // What an uninterrupted run concludes.
    let tc = TimeControl::parse_human(TIME_CONTROL).unwrap();
    let mut session = session_for(&synth.trace, None, None, Some(tc), None, None).unwrap();
    let all = drive(&mut session, &synth.trace, "game.trace").unwrap();
    let first = all
        .iter()
        .position(|e| matches!(e.kind, EventKind::GameStarted { .. }))
        .unwrap();
    let expected: Vec<Event> = all[first..].to_vec();
    assert!(session.game().ply() > 40, "{} plies", session.game().ply());

    let mut rng = StdRng::seed_from_u64(0x7e57_ca5e);
    let mut published: Vec<String> = Vec::new();
    let mut kills = 0;
    let mut kills_while_writing = 0;
    let mut runs = 0;
    let began = Instant::now();
    while kills < KILLS {
        runs += 1;
        let mut child = writer(&db, &trace);
        let err = stderr_of(&mut child);
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // Kill once the writer has published `wait_for` events (0: while it
        // starts and catches up), a random while later: in the middle of
        // writing the next event, of committing it, or of reading scans.
        let wait_for = rng.random_range(0..8usize);
        let mut finished = false;
        for _ in 0..wait_for {
            match lines.next() {
                Some(line) => published.push(line.unwrap()),
                None => {
                    finished = true;
                    break;
                }
            }
        }
        if !finished {
            std::thread::sleep(Duration::from_micros(rng.random_range(0..3_000)));
            child.kill().unwrap();
        }
        published.extend(lines.map_while(Result::ok));
        let status = child.wait().unwrap();
        let stderr = err.join().unwrap();
        if status.signal() == Some(9) {
            kills += 1;
            if wait_for > 0 {
                kills_while_writing += 1;
            }
        } else {
            assert!(status.success(), "run {runs}: {status}: {stderr}");
            if finished {
                break;
            }
        }
    }
    // The last run goes to the end undisturbed.
    let mut child = writer(&db, &trace);
    let err = stderr_of(&mut child);
    let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    published.extend(lines.map_while(Result::ok));
    let status = child.wait().unwrap();
    assert!(status.success(), "{}", err.join().unwrap());
    eprintln!(
        "{kills} kills ({kills_while_writing} while writing) in {runs} runs, {:.1} s; {} events, {} published",
        began.elapsed().as_secs_f64(),
        expected.len(),
        published.len()
    );
    assert_eq!(
        kills, KILLS,
        "the game ended before every kill: lengthen it"
    );
    assert!(
        kills_while_writing >= KILLS / 2,
        "only {kills_while_writing} kills landed while events were being written"
    );

    let journal = Journal::open_read_only(&db).unwrap();
    let games = journal.list().unwrap();
    assert_eq!(games.len(), 1, "one game, never begun twice");
    let game = games[0].id;
    let stored = journal.events_after(game, None).unwrap();
    // Exactly the game's events: each once, numbered 0, 1, 2, ...
    assert_eq!(stored, expected);
    let stored_moves: Vec<String> = stored
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move { uci, .. } => Some(uci.clone()),
            _ => None,
        })
        .collect();
    let game_moves: Vec<String> = session
        .game()
        .moves()
        .iter()
        .map(|m| m.uci.to_string())
        .collect();
    assert_eq!(stored_moves, game_moves);
    assert!(journal.check().unwrap().is_ok());
    // Nothing a client was sent is missing: every published line is the
    // journal's event of that seq, and each was published once.
    let mut seen = vec![false; stored.len()];
    for line in &published {
        let e: Event = serde_json::from_str(line).unwrap();
        assert_eq!(&stored[e.seq as usize].to_json(), line);
        assert!(!seen[e.seq as usize], "event {} published twice", e.seq);
        seen[e.seq as usize] = true;
    }
    // An event committed by a writer killed before it could print it is in
    // the journal (a reconnecting client gets it from there): at most one
    // per kill.
    let unpublished = seen.iter().filter(|s| !**s).count();
    assert!(
        unpublished <= kills,
        "{unpublished} events never published, for {kills} kills"
    );
    let restored = journal.restore(game).unwrap();
    assert_eq!(restored.game.moves(), session.game().moves());
}
