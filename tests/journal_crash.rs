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
use touchmove_board::outputs::journal::Journal;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::Game;
use touchmove_core::replay::{drive, session_for};
use touchmove_synth::faults::{self, Fault};
use touchmove_synth::{self as synth, HandStyle};

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

/// What one journal went through.
struct Round {
    kills: usize,
    kills_while_writing: usize,
    runs: usize,
    published: Vec<String>,
    by_last_run: usize,
}

/// Runs the writer on a fresh journal, killing it at random moments until
/// `kills_left` kills were made or the game is fully written, then once
/// more to the end undisturbed.
fn round(db: &Path, trace: &Path, rng: &mut StdRng, kills_left: usize) -> Round {
    let mut r = Round {
        kills: 0,
        kills_while_writing: 0,
        runs: 0,
        published: Vec::new(),
        by_last_run: 0,
    };
    while r.kills < kills_left {
        r.runs += 1;
        let mut child = writer(db, trace);
        let err = stderr_of(&mut child);
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // Kill once the writer has published `wait_for` events (0: while it
        // starts and catches up), a random while later: in the middle of
        // writing the next event, of committing it, or of reading scans.
        let wait_for = rng.random_range(0..8usize);
        let mut finished = false;
        for _ in 0..wait_for {
            match lines.next() {
                Some(line) => r.published.push(line.unwrap()),
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
        r.published.extend(lines.map_while(Result::ok));
        let status = child.wait().unwrap();
        let stderr = err.join().unwrap();
        if status.signal() == Some(9) {
            r.kills += 1;
            if wait_for > 0 {
                r.kills_while_writing += 1;
            }
        } else {
            assert!(status.success(), "run {}: {status}: {stderr}", r.runs);
            if finished {
                break;
            }
        }
    }
    // The last run goes to the end undisturbed.
    let mut child = writer(db, trace);
    let err = stderr_of(&mut child);
    let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let before = r.published.len();
    r.published.extend(lines.map_while(Result::ok));
    r.by_last_run = r.published.len() - before;
    let status = child.wait().unwrap();
    assert!(status.success(), "{}", err.join().unwrap());
    r
}

/// The journal holds exactly the game's events, each once, numbered
/// without gap, and every event the writer published.
fn assert_journal_holds_the_game(db: &Path, expected: &[Event], live: &Game, r: &Round) {
    let journal = Journal::open_read_only(db).unwrap();
    let games = journal.list().unwrap();
    assert_eq!(games.len(), 1, "one game, never begun twice");
    let game = games[0].id;
    let stored = journal.events_after(game, None).unwrap();
    assert_eq!(stored, expected);
    let stored_moves: Vec<String> = stored
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move { uci, .. } => Some(uci.clone()),
            _ => None,
        })
        .collect();
    let game_moves: Vec<String> = live.moves().iter().map(|m| m.uci.to_string()).collect();
    assert_eq!(stored_moves, game_moves);
    assert!(journal.check().unwrap().is_ok());
    // Nothing a client was sent is missing: every published line is the
    // journal's event of that seq, and each was published once.
    let mut seen = vec![false; stored.len()];
    for line in &r.published {
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
        unpublished <= r.kills,
        "{unpublished} events never published, for {} kills",
        r.kills
    );
    let restored = journal.restore(game).unwrap();
    assert_eq!(restored.game.moves(), live.moves());
}

#[test]
fn killed_at_100_random_moments_the_journal_holds_the_game_once() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-crash");
    std::fs::create_dir_all(&dir).unwrap();
    let (start, moves) = synth::random_game(11, 200);
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
    assert!(
        session.game().illegal_moves(shakmaty::Color::White)
            + session.game().illegal_moves(shakmaty::Color::Black)
            == 1
    );

    // On a fast disk the game may be fully written before the 100th kill:
    // the kills go on on a fresh journal.
    let mut rng = StdRng::seed_from_u64(0x7e57_ca5e);
    let began = Instant::now();
    let (mut kills, mut while_writing) = (0, 0);
    let mut rounds = 0;
    while kills < KILLS {
        rounds += 1;
        let db = fresh(&dir, &format!("journal-{rounds}.sqlite3"));
        let r = round(&db, &trace, &mut rng, KILLS - kills);
        assert_journal_holds_the_game(&db, &expected, session.game(), &r);
        eprintln!(
            "journal {rounds}: {} kills ({} while writing) in {} runs; {} events, {} published, {} by the last run",
            r.kills,
            r.kills_while_writing,
            r.runs,
            expected.len(),
            r.published.len(),
            r.by_last_run
        );
        kills += r.kills;
        while_writing += r.kills_while_writing;
    }
    eprintln!("{kills} kills in {:.1} s", began.elapsed().as_secs_f64());
    assert!(
        while_writing >= KILLS / 2,
        "only {while_writing} kills landed while events were being written"
    );
}
