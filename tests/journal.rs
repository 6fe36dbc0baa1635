//! The game journal: a real game's events written, the file closed and
//! reopened, the game restored exactly; SSE-style resumption without gap or
//! duplicate; duplicates, newer schema versions, foreign and damaged files
//! refused clearly and left untouched; the CLI's PGN export readable.
use std::path::{Path, PathBuf};
use std::process::Command;

use shakmaty::Color;
use touchmove_board::outputs::journal::{GameId, GameMeta, Journal, JournalError, SCHEMA_VERSION};
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::pgn;
use touchmove_core::replay::{drive, session_for};
use touchmove_core::session::Session;
use touchmove_synth::faults::{self, Fault, Knock};
use touchmove_synth::{self as synth, HandStyle};

/// A fresh path for a journal in this test's own directory.
fn db_path(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("journal-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sqlite3"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

fn time_control() -> TimeControl {
    TimeControl::parse_human("90+30").unwrap()
}

/// A random game with two completed illegal moves (reinstated), a knocked
/// piece and a touch-move breach, played with a clock: its events and the
/// session that concluded them.
fn faulted_game() -> (Vec<Event>, Session) {
    let (start, moves) = synth::random_game(7, 60);
    let s = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        3,
        &[
            (4, Fault::IllegalMoveReinstated),
            (9, Fault::KnockedPiece(Knock::OffBoard)),
            (13, Fault::IllegalMoveReinstated),
            (20, Fault::TouchMoveBreach),
        ],
    )
    .unwrap();
    let mut session = session_for(&s.trace, None, None, Some(time_control()), None, None).unwrap();
    let events = drive(&mut session, &s.trace, "synth").unwrap();
    let first = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::GameStarted { .. }))
        .expect("the game starts");
    (events[first..].to_vec(), session)
}

fn meta(session: &Session) -> GameMeta {
    let mut meta = GameMeta::new(
        "2026-03-14T15:09:26Z",
        session.config().start.clone(),
        session.config().profile,
    );
    meta.time_control = session.config().time_control.clone();
    meta.white = "Kasparov, G".into();
    meta.black = "Karpov, A".into();
    meta.event = "Journal test".into();
    meta
}

fn write_game(path: &Path, events: &[Event], session: &Session) -> GameId {
    let mut journal = Journal::open(path).unwrap();
    let game = journal.begin_game(&meta(session)).unwrap();
    for e in events {
        journal.append(game, e).unwrap();
    }
    game
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn a_game_written_and_reopened_is_restored_exactly() {
    let (events, session) = faulted_game();
    let live = session.game();
    assert!(live.ply() > 20, "a real game: {} plies", live.ply());
    assert!(
        live.illegal_moves(Color::White) + live.illegal_moves(Color::Black) == 2,
        "both reinstated illegal moves were counted"
    );
    let path = db_path("restore");
    let game = write_game(&path, &events, &session);

    let journal = Journal::open(&path).unwrap();
    let restored = journal.restore(game).unwrap();
    assert_eq!(restored.game.moves(), live.moves(), "moves, clk and emt");
    assert!(restored.game.moves().iter().all(|m| m.clock_ms.is_some()));
    assert_eq!(restored.game.fen(), live.fen());
    assert_eq!(restored.game.end(), live.end());
    for side in [Color::White, Color::Black] {
        assert_eq!(restored.illegal_counts[side], live.illegal_moves(side));
        assert_eq!(restored.game.illegal_moves(side), live.illegal_moves(side));
    }
    assert_eq!(restored.last_seq, Some(events.last().unwrap().seq));
    assert_eq!(restored.next_seq(), events.len() as u64);
    let last_clock = events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Clock {
                white_ms,
                black_ms,
                running,
                ..
            } => Some((e.t_ms, *white_ms, *black_ms, *running)),
            _ => None,
        })
        .unwrap();
    let clock = restored.clock.unwrap();
    assert_eq!(
        (clock.t_ms, clock.white_ms, clock.black_ms, clock.running),
        last_clock
    );
    assert_eq!(restored.meta, meta(&session));
    assert_eq!(
        journal.current_game().unwrap().map(|(id, _)| id),
        Some(game)
    );
}

#[test]
fn events_after_resumes_without_gap_or_duplicate() {
    let (events, session) = faulted_game();
    let path = db_path("resume");
    let game = write_game(&path, &events, &session);
    let journal = Journal::open_read_only(&path).unwrap();
    assert_eq!(journal.events_after(game, None).unwrap(), events);
    for last_seen in [0, 1, 17, events.len() as u64 / 2, events.len() as u64 - 1] {
        let missed = journal.events_after(game, Some(last_seen)).unwrap();
        assert_eq!(
            missed,
            events[last_seen as usize + 1..],
            "after {last_seen}"
        );
    }
    // A client that saw nothing of a later event learns of nothing.
    assert!(
        journal
            .events_after(game, Some(events.len() as u64 + 5))
            .unwrap()
            .is_empty()
    );
    // The JSON export is the events, byte for byte, one per line.
    let json = journal.export_json(game).unwrap();
    let lines: Vec<String> = events.iter().map(Event::to_json).collect();
    assert_eq!(json, lines.join("\n") + "\n");
}

#[test]
fn a_duplicate_or_a_gap_is_refused_not_stored() {
    let (events, session) = faulted_game();
    let path = db_path("duplicate");
    let mut journal = Journal::open(&path).unwrap();
    let game = journal.begin_game(&meta(&session)).unwrap();
    journal.append_batch(game, &events[..3]).unwrap();
    let err = journal.append(game, &events[1]).unwrap_err();
    assert!(
        matches!(err, JournalError::Duplicate { seq: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("already in the journal"), "{err}");
    let err = journal.append(game, &events[4]).unwrap_err();
    assert!(
        matches!(
            err,
            JournalError::OutOfOrder {
                seq: 4,
                expected: 3,
                ..
            }
        ),
        "{err}"
    );
    // A batch with one duplicate stores nothing of it.
    let err = journal.append_batch(game, &events[2..6]).unwrap_err();
    assert!(matches!(err, JournalError::Duplicate { seq: 2, .. }));
    drop(journal);
    // Reopened: the stored rows themselves refuse the duplicate.
    let mut journal = Journal::open(&path).unwrap();
    let err = journal.append(game, &events[2]).unwrap_err();
    assert!(
        matches!(err, JournalError::Duplicate { seq: 2, .. }),
        "{err}"
    );
    assert_eq!(journal.events_after(game, None).unwrap(), events[..3]);
    journal.append(game, &events[3]).unwrap();
    assert_eq!(journal.events_after(game, None).unwrap(), events[..4]);
    let err = journal.append(GameId(game.0 + 1), &events[0]).unwrap_err();
    assert!(matches!(err, JournalError::NoSuchGame { .. }), "{err}");
}

#[test]
fn a_journal_of_a_newer_version_is_refused_and_left_untouched() {
    let (events, session) = faulted_game();
    let path = db_path("newer");
    write_game(&path, &events[..10], &session);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1))
            .unwrap();
    }
    let before = bytes(&path);
    for result in [Journal::open(&path), Journal::open_read_only(&path)] {
        let err = result.unwrap_err();
        assert!(matches!(err, JournalError::TooNew { .. }), "{err}");
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(
            message.contains(&format!("schema version {}", SCHEMA_VERSION + 1))
                && message.contains(&format!("version {SCHEMA_VERSION} this touchmove knows")),
            "{message}"
        );
    }
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_file_that_is_not_a_journal_is_refused_and_left_untouched() {
    let path = db_path("text");
    std::fs::write(&path, "1. e4 e5 2. Nf3 Nc6 *\n".repeat(300)).unwrap();
    let before = bytes(&path);
    let err = Journal::open(&path).unwrap_err();
    assert!(matches!(err, JournalError::NotAJournal { .. }), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()));
    assert_eq!(bytes(&path), before);

    let other = db_path("other-program");
    {
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');")
            .unwrap();
    }
    let before = bytes(&other);
    let err = Journal::open(&other).unwrap_err();
    assert!(err.to_string().contains("another program"), "{err}");
    assert_eq!(bytes(&other), before);

    let missing = db_path("missing");
    let err = Journal::open_read_only(&missing).unwrap_err();
    assert!(matches!(err, JournalError::Missing { .. }), "{err}");
    assert!(!missing.exists(), "reading never creates a journal");
}

/// Overwrites `len` bytes at the middle of the file.
fn damage(path: &Path, len: usize) {
    let mut data = bytes(path);
    let middle = data.len() / 2;
    for (i, b) in data[middle..middle + len].iter_mut().enumerate() {
        *b = 0xA5 ^ (i as u8);
    }
    std::fs::write(path, data).unwrap();
}

#[test]
fn a_damaged_file_is_reported_never_truncated() {
    let (events, session) = faulted_game();
    let path = db_path("damaged");
    write_game(&path, &events, &session);
    // Closed: the WAL was checkpointed into the file and removed.
    assert!(!Path::new(&format!("{}-wal", path.display())).exists());
    let size = bytes(&path).len();
    assert!(size >= 8 * 4096, "several pages: {size} bytes");
    damage(&path, 3000);
    let before = bytes(&path);

    // The writer refuses it: SQLite's quick_check runs on opening.
    let err = Journal::open(&path).unwrap_err();
    assert!(matches!(err, JournalError::Corrupt { .. }), "{err}");
    let reported = err.to_string();
    assert!(reported.contains(&path.display().to_string()), "{reported}");
    assert!(reported.contains("damaged"), "{reported}");
    assert!(reported.contains("left untouched"), "{reported}");
    // The check reports the damage in full.
    let report = Journal::open_for_check(&path).unwrap().check().unwrap();
    assert!(!report.integrity.is_empty(), "{report}");
    assert!(report.to_string().contains("DAMAGED"), "{report}");
    assert_eq!(bytes(&path), before, "the file is left as it was");

    // The command line says so too, naming the file, with a failure status.
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["journal", "--db"])
        .arg(&path)
        .arg("check")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains("damaged") || text.contains("DAMAGED"),
        "{text}"
    );
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(bytes(&path), before);
}

#[test]
fn check_replays_every_game_and_names_a_bad_event() {
    let (events, session) = faulted_game();
    let path = db_path("check");
    let game = write_game(&path, &events, &session);
    let report = Journal::open_read_only(&path).unwrap().check().unwrap();
    assert!(report.is_ok(), "{report}");
    assert_eq!((report.games, report.events), (1, events.len() as u64));

    // A stored move changed behind the journal's back: its position no
    // longer follows.
    let seq = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::Move { ply: 3, .. }))
        .unwrap()
        .seq;
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let changed = conn
            .execute(
                "UPDATE events SET json = json_set(json, '$.uci', 'a1a8') WHERE game_id = ?1 AND seq = ?2",
                rusqlite::params![game.0, seq as i64],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    let journal = Journal::open_read_only(&path).unwrap();
    let report = journal.check().unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.problems.len(), 1, "{report}");
    assert_eq!(report.problems[0].game, game);
    assert_eq!(report.problems[0].seq, Some(seq));
    assert!(report.problems[0].message.contains("a1a8"), "{report}");
    let err = journal.restore(game).unwrap_err();
    assert!(
        matches!(err, JournalError::BadRecord { seq: Some(s), .. } if s == seq),
        "{err}"
    );
}

#[test]
fn pending_alerts_are_those_since_the_board_last_agreed() {
    let (events, session) = faulted_game();
    // Cut the game right after its first `displaced` (the knocked piece).
    let cut = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::Displaced { .. }))
        .expect("the knocked piece is reported");
    let path = db_path("alerts");
    let game = write_game(&path, &events[..=cut], &session);
    let journal = Journal::open(&path).unwrap();
    let restored = journal.restore(game).unwrap();
    assert_eq!(restored.pending_alerts.last(), Some(&events[cut]));
    assert!(restored.pending_alerts.iter().all(|e| e.kind.is_alert()));
    // Once the piece is back (`restored`), nothing is pending.
    let back = cut
        + events[cut..]
            .iter()
            .position(|e| matches!(e.kind, EventKind::Restored { .. }))
            .unwrap();
    let mut journal = Journal::open(&path).unwrap();
    journal.append_batch(game, &events[cut + 1..=back]).unwrap();
    assert!(journal.restore(game).unwrap().pending_alerts.is_empty());
}

#[test]
fn a_new_game_closes_the_one_in_progress_and_game_over_ends_it() {
    let (events, session) = faulted_game();
    let path = db_path("games");
    let mut journal = Journal::open(&path).unwrap();
    assert!(journal.current_game().unwrap().is_none());
    let first = journal.begin_game(&meta(&session)).unwrap();
    journal.append_batch(first, &events[..12]).unwrap();
    let second = journal.begin_game(&meta(&session)).unwrap();
    assert_eq!(journal.current_game().unwrap().unwrap().0, second);
    journal.append(second, &events[0]).unwrap();
    journal
        .append(
            second,
            &Event {
                t_ms: 5000,
                seq: 1,
                kind: EventKind::GameOver {
                    result: "0-1".into(),
                    reason: "resignation".into(),
                },
            },
        )
        .unwrap();
    assert!(journal.current_game().unwrap().is_none());
    assert_eq!(journal.last_game().unwrap().unwrap().0, second);
    let list = journal.list().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].reason.as_deref(), Some("abandoned"));
    assert_eq!(list[0].result, None);
    assert_eq!(list[0].events, 12);
    assert_eq!(list[1].result.as_deref(), Some("0-1"));
    assert_eq!(list[1].reason.as_deref(), Some("resignation"));
    assert!(list.iter().all(|g| g.ended));
    assert!(
        journal
            .export_pgn(second)
            .unwrap()
            .contains("[Result \"0-1\"]")
    );
}

#[test]
fn the_exported_pgn_reads_back_with_the_same_moves() {
    let (events, session) = faulted_game();
    let path = db_path("export");
    let game = write_game(&path, &events, &session);
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["journal", "export", "--pgn", &game.to_string(), "--db"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = pgn::read_all(&out.stdout[..]).unwrap();
    assert_eq!(games.len(), 1);
    let read = games.into_iter().next().unwrap().unwrap();
    let live = session.game();
    let moves: Vec<_> = live.moves().iter().map(|m| m.mv).collect();
    assert_eq!(read.moves, moves);
    let clocks: Vec<_> = live
        .moves()
        .iter()
        .map(|m| m.clock_ms.map(|ms| ms / 1000 * 1000))
        .collect();
    assert_eq!(read.clocks, clocks);
    assert_eq!(read.tag("White"), Some("Kasparov, G"));
    assert_eq!(read.tag("Date"), Some("2026.03.14"));
    assert_eq!(
        read.tag("TimeControl"),
        Some(time_control().to_pgn().as_str())
    );

    // `list` names the game and its players.
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["journal", "--db"])
        .arg(&path)
        .arg("list")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("Kasparov, G") && text.contains("2026-03-14T15:09:26Z"),
        "{text}"
    );
    assert!(text.contains(&format!(" {} ", live.ply())), "{text}");
}

#[test]
fn the_default_journal_is_in_the_state_directory() {
    use touchmove::cli::journal::default_db_path;
    assert_eq!(
        default_db_path(Some("/var/lib/touchmove")),
        Path::new("/var/lib/touchmove/journal.sqlite3")
    );
    assert_eq!(
        default_db_path(Some("/var/lib/a:/var/lib/b")),
        Path::new("/var/lib/a/journal.sqlite3")
    );
    assert_eq!(
        default_db_path(None),
        Path::new("touchmove-journal.sqlite3")
    );
}
