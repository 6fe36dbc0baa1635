//! A session carried on after the daemon was down ([`Session::resume`]):
//! numbering and clock continue from the journal's last reading, the time
//! down is paused or charged, and the board read again is compared with the
//! game: the same board goes on quietly, a move in the making or moves
//! made meanwhile are understood.
mod support;

use shakmaty::Color::{Black, White};
use support::Hands;
use touchmove_core::Millis;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::inference::{Completion, InferenceConfig};
use touchmove_core::scan::Scan;
use touchmove_core::session::{ClockReading, Downtime, Resumption, Session, SessionConfig};
use touchmove_core::trace::{Record, Trace};

fn config() -> SessionConfig {
    SessionConfig {
        time_control: Some(TimeControl::parse_human("90+30").unwrap()),
        inference: InferenceConfig {
            completion: Completion::ClockPress,
            ..InferenceConfig::default()
        },
        ..SessionConfig::default()
    }
}

/// Feeds `trace`'s records in `from..=to` (by time) to `session`, then
/// lets time run 2 s past `to`.
fn feed(session: &mut Session, trace: &Trace, from: Millis, to: Millis) -> Vec<Event> {
    let mut out = Vec::new();
    for r in trace.records.iter().filter(|r| r.t >= from && r.t <= to) {
        match &r.record {
            Record::Occupancy(bb) => session.scan(r.t, &Scan::Occupancy(*bb), &mut out).unwrap(),
            Record::Clock(side) => session.clock_button(r.t, *side, &mut out),
            Record::Promote(role) => session.promote(r.t, *role, &mut out),
            Record::Analog(_) => unreachable!("occupancy traces only"),
        }
    }
    session.advance(to + 2000, &mut out);
    out
}

/// The board as it stood at `t`: the last occupancy record before.
fn board_at(trace: &Trace, t: Millis) -> Scan {
    trace
        .records
        .iter()
        .filter(|r| r.t <= t)
        .filter_map(|r| match r.record {
            Record::Occupancy(bb) => Some(Scan::Occupancy(bb)),
            _ => None,
        })
        .next_back()
        .unwrap()
}

fn last_reading(events: &[Event]) -> ClockReading {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Clock {
                white_ms,
                black_ms,
                running,
                ..
            } => Some(ClockReading {
                t: e.t_ms,
                white_ms: *white_ms,
                black_ms: *black_ms,
                running: running.map(Into::into),
            }),
            _ => None,
        })
        .unwrap()
}

fn moves(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move { uci, .. } => Some(uci.clone()),
            _ => None,
        })
        .collect()
}

/// Plays 1. e4 (pressed) and stops; returns the session, its events and
/// the hands, at the time the daemon went down.
fn before_the_crash() -> (Session, Vec<Event>, Hands) {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000).carry("e2", "e4").clock(White);
    let mut s = Session::new(config(), None);
    let events = feed(&mut s, &h.trace, 0, h.t);
    assert_eq!(moves(&events), ["e2e4"]);
    (s, events, h)
}

/// Resumes what `before` concluded at `t` (the daemon's view: the game,
/// the next seq, the last clock reading), reading the board at `t`.
fn resume(
    before: &Session,
    events: &[Event],
    trace: &Trace,
    t: Millis,
    downtime: Downtime,
) -> (Session, Vec<Event>) {
    let mut out = Vec::new();
    let mut s = Session::resume(
        config(),
        None,
        Resumption {
            game: before.game().clone(),
            next_seq: before.next_seq(),
            awaiting_press: None,
            clock: Some(last_reading(events)),
            t,
            downtime,
        },
        &mut out,
    );
    s.scan(t, &board_at(trace, t), &mut out).unwrap();
    (s, out)
}

/// Resumes at `up` and feeds the rest of the hands: the moves recorded
/// from the board read again on, which raise no alert.
fn read_on(before: &Session, events: &[Event], h: &Hands, up: Millis) -> Vec<String> {
    let (mut s, out) = resume(before, events, &h.trace, up, Downtime::Pause);
    let more = feed(&mut s, &h.trace, up + 1, h.t);
    assert!(
        out.iter().chain(&more).all(|e| !e.kind.is_alert()),
        "{out:?} {more:?}"
    );
    let mut all = moves(&out);
    all.extend(moves(&more));
    all
}

#[test]
fn the_same_board_goes_on_with_the_numbering_and_the_clock_paused() {
    let (before, events, mut h) = before_the_crash();
    let down_at = events.last().unwrap().t_ms;
    let reading = last_reading(&events);
    let (mut s, out) = resume(&before, &events, &h.trace, down_at, Downtime::Pause);
    // One event: the clock as it stands, numbered after the last.
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].seq, before.next_seq());
    let resumed = last_reading(&out);
    assert_eq!(
        (resumed.white_ms, resumed.black_ms, resumed.running),
        (reading.white_ms, reading.black_ms, Some(Black))
    );
    // Play goes on: Black answers.
    let from = h.t;
    h.carry("e7", "e5").clock(Black);
    let more = feed(&mut s, &h.trace, from, h.t);
    assert_eq!(moves(&more), ["e7e5"]);
    assert!(more.iter().all(|e| !e.kind.is_alert()), "{more:?}");
    assert_eq!(more[0].seq, before.next_seq() + 1);
    assert_eq!(s.game().ply(), 2);
}

#[test]
fn charged_downtime_comes_off_the_running_side() {
    let (before, events, h) = before_the_crash();
    let down_at = events.last().unwrap().t_ms;
    let reading = last_reading(&events);
    let (_, out) = resume(
        &before,
        &events,
        &h.trace,
        down_at,
        Downtime::Charge(60_000),
    );
    let resumed = last_reading(&out);
    assert_eq!(resumed.black_ms, reading.black_ms - 60_000);
    assert_eq!(resumed.white_ms, reading.white_ms);
}

#[test]
fn a_move_in_the_making_when_the_board_is_read_again_is_understood() {
    let (before, events, mut h) = before_the_crash();
    let from = h.t;
    // Black's pawn is in the air when the daemon comes back.
    h.lift("e7");
    let up = h.t - 1;
    h.place("e5").clock(Black);
    let (mut s, out) = resume(&before, &events, &h.trace, up, Downtime::Pause);
    assert!(from < up);
    assert!(out.iter().all(|e| !e.kind.is_alert()), "{out:?}");
    let more = feed(&mut s, &h.trace, up + 1, h.t);
    assert_eq!(moves(&more), ["e7e5"]);
    assert!(more.iter().all(|e| !e.kind.is_alert()), "{more:?}");
}

#[test]
fn a_piece_read_again_on_a_square_it_slides_over_has_not_moved_there() {
    let (before, events, mut h) = before_the_crash();
    // Black slides his d7 pawn to d5: the daemon comes back while the
    // pawn's magnet holds d6 (d7 open, d6 closed), which is d6 on the board.
    h.lift_then("d7", 5).place_then("d6", 20);
    let up = h.t;
    h.wait(40)
        .lift_then("d6", 60)
        .place_then("d5", 600)
        .clock(Black);
    assert_eq!(read_on(&before, &events, &h, up), ["d7d5"]);
}

#[test]
fn a_piece_in_the_air_when_the_board_is_read_again_is_not_an_unseen_capture() {
    let (mut before, mut events, mut h) = before_the_crash();
    let from = h.t;
    h.lift("d7");
    events.extend(feed(&mut before, &h.trace, from, h.t - 1));
    // Down: Black sets his pawn on d5 and presses; White lifts his e4 pawn.
    let down = h.t;
    h.place("d5").clock(Black).lift("e4");
    let up = h.t - 1;
    // The board read again (d7 and e4 empty, d5 full) is also 1... d5
    // 2. exd5 with the d5 pawn never seen leaving. White's pawn goes to e5.
    h.wait(300).place("e5").clock(White);
    h.carry("g8", "f6").clock(Black);
    assert!(down < up);
    assert_eq!(read_on(&before, &events, &h, up), ["d7d5", "e4e5", "g8f6"]);
}

#[test]
fn a_move_made_while_down_then_the_next_move_at_once_are_read() {
    let (before, events, mut h) = before_the_crash();
    // Down: Black plays ...Nf6 and presses; White lifts his d2 pawn and
    // sets it on d4 just after the board is read again.
    h.carry("g8", "f6").clock(Black).lift("d2");
    let up = h.t - 1;
    h.place("d4").clock(White);
    assert_eq!(read_on(&before, &events, &h, up), ["g8f6", "d2d4"]);
}

#[test]
fn a_capture_in_the_making_when_the_board_is_read_again_is_understood() {
    let (mut before, mut events, mut h) = before_the_crash();
    let from = h.t;
    h.carry("d7", "d5").clock(Black);
    events.extend(feed(&mut before, &h.trace, from, h.t));
    assert_eq!(before.game().ply(), 2);
    // White's pawn is in the air when the daemon comes back; it takes.
    h.lift("e4");
    let up = h.t - 1;
    h.lift("d5").place("d5").clock(White);
    let (mut s, out) = resume(&before, &events, &h.trace, up, Downtime::Pause);
    assert!(out.iter().all(|e| !e.kind.is_alert()), "{out:?}");
    let more = feed(&mut s, &h.trace, up + 1, h.t);
    assert_eq!(moves(&more), ["e4d5"]);
    assert!(more.iter().all(|e| !e.kind.is_alert()), "{more:?}");
}

#[test]
fn moves_made_while_the_board_was_not_read_are_found() {
    let (before, events, mut h) = before_the_crash();
    h.carry("e7", "e5")
        .clock(Black)
        .carry("g1", "f3")
        .clock(White);
    let up = h.t;
    let (mut s, out) = resume(&before, &events, &h.trace, up, Downtime::Pause);
    // Two plies (e5, Nf3) or three (e6, Nf3, e5) explain the board: the
    // next move tells which.
    assert!(out.iter().all(|e| !e.kind.is_alert()), "{out:?}");
    h.carry("b8", "c6").clock(Black);
    let more = feed(&mut s, &h.trace, up + 1, h.t);
    let mut all = moves(&out);
    all.extend(moves(&more));
    assert_eq!(all, ["e7e5", "g1f3", "b8c6"]);
    assert_eq!(s.game().ply(), 4);
}

#[test]
fn a_board_that_does_not_match_is_reported_displaced() {
    let (before, events, mut h) = before_the_crash();
    // A piece knocked off while the daemon was down, and an extra one.
    h.lift("a7").place("a4");
    h.lift("h2").place("h5");
    h.lift("b8").place("d4");
    let (mut s, mut out) = resume(&before, &events, &h.trace, h.t, Downtime::Pause);
    s.advance(h.t + 5000, &mut out);
    assert!(moves(&out).is_empty(), "{out:?}");
    assert!(
        out.iter()
            .any(|e| matches!(e.kind, EventKind::Displaced { .. })),
        "{out:?}"
    );
}

#[test]
fn with_the_arbiter_deciding_moves_made_meanwhile_are_only_listed() {
    let (before, events, mut h) = before_the_crash();
    h.carry("e7", "e5")
        .clock(Black)
        .carry("g1", "f3")
        .clock(White);
    let mut asking = config();
    asking.inference.resumed_board = touchmove_core::inference::ResumedBoard::AskArbiter;
    let mut out = Vec::new();
    let mut s = Session::resume(
        asking,
        None,
        Resumption {
            game: before.game().clone(),
            next_seq: before.next_seq(),
            awaiting_press: None,
            clock: Some(last_reading(&events)),
            t: h.t,
            downtime: Downtime::Pause,
        },
        &mut out,
    );
    s.scan(h.t, &board_at(&h.trace, h.t), &mut out).unwrap();
    s.advance(h.t + 5000, &mut out);
    assert!(moves(&out).is_empty(), "nothing is recorded: {out:?}");
    let candidates = out
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Displaced { candidates, .. } => Some(candidates.clone()),
            _ => None,
        })
        .expect("the board is reported displaced");
    assert_eq!(candidates, ["e7e5 g1f3"]);
    // The arbiter accepts the listed line.
    let mut ruling = Vec::new();
    s.accept_candidate(h.t + 6000, 0, None, &mut ruling)
        .unwrap();
    assert_eq!(moves(&ruling), ["e7e5", "g1f3"]);
    assert!(
        ruling
            .iter()
            .any(|e| matches!(e.kind, EventKind::Restored { .. })),
        "{ruling:?}"
    );
    assert_eq!(s.game().ply(), 3);
}

/// `trace` replayed until `down`, the daemon down until `up`, then resumed
/// from the journal and read on to the end. `None` when a promotion's piece
/// was named while it was down (not in the journal).
fn resumed(trace: &Trace, down: Millis, up: Millis) -> Option<(Session, Vec<Event>)> {
    use touchmove_core::replay::session_for;
    let mut before = session_for(trace, None, None, None, None, None).unwrap();
    let mut events = Vec::new();
    for r in trace.records.iter().filter(|r| r.t <= down) {
        before.apply(r, &mut events).unwrap();
    }
    before.advance(down, &mut events);
    let awaiting_press = events.iter().fold(None, |awaiting, e| match e.kind {
        EventKind::Move { ply, .. } => Some(ply),
        EventKind::MoveCompleted { ply } if awaiting == Some(ply) => None,
        _ => awaiting,
    });
    // A promotion's piece named for a move not yet recorded when
    // the daemon went down (or named while it was down) is not in
    // the journal: the board's guess stands in for it.
    let last_move = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Move { .. }))
        .map(|e| e.t_ms)
        .max()
        .unwrap_or(0);
    if trace
        .records
        .iter()
        .any(|r| r.t > last_move && r.t <= up && matches!(r.record, Record::Promote(_)))
    {
        return None;
    }
    Some(resumed_afresh(&before, awaiting_press, trace, up))
}

/// `before`'s game resumed at `up` from the board as it stood then (read
/// afresh, as a board daemon does), and the rest of `trace` read on.
fn resumed_afresh(
    before: &Session,
    awaiting_press: Option<usize>,
    trace: &Trace,
    up: Millis,
) -> (Session, Vec<Event>) {
    let mut out = Vec::new();
    let mut s = Session::resume(
        before.config().clone(),
        None,
        Resumption {
            game: before.game().clone(),
            next_seq: before.next_seq(),
            awaiting_press,
            clock: None,
            t: up,
            downtime: Downtime::Pause,
        },
        &mut out,
    );
    s.scan(up, &board_at(trace, up), &mut out).unwrap();
    read_rest(&mut s, trace, up, &mut out);
    (s, out)
}

/// `trace`'s records after `t` read by `s`, and its timers run out.
fn read_rest(s: &mut Session, trace: &Trace, t: Millis, out: &mut Vec<Event>) {
    for r in trace.records.iter().filter(|r| r.t > t) {
        s.apply(r, out).unwrap();
    }
    while let Some(deadline) = s.next_board_deadline() {
        s.advance(deadline, out);
    }
}

#[test]
fn a_promoted_piece_taken_before_it_moved_is_read_as_a_queen() {
    // Down while Black promoted on e1 (the new piece never seen, 3.7e);
    // White took it before it moved. Every piece it may have been reaches
    // the same position: the board can never tell, and a promotion nobody
    // named is a queen. (Once read as a rook, the first line found.)
    use touchmove_synth::{self as synth, HandStyle};
    let (start, game) = synth::random_game(5003, 120);
    let mut style = HandStyle::random();
    style.slide_overlap = 0.3;
    let synthesized = synth::synthesize(&start, &game, &style, 3 * 13 + 1);
    let source = support::source_uci(&start, &game);
    assert_eq!(source[47], "e2e1q");
    let (s, out) = resumed(&synthesized.trace, 428_242, 428_801).unwrap();
    let played = support::played_uci(&s);
    assert_eq!(played[..48], source[..48]);
    assert!(!out.iter().any(|e| e.kind.is_alert()));
}

/// The board read again at random moments of synthesized games while a
/// hand is at work (a piece in the air, a slide half done, moves made while
/// down): the record goes on exactly, with no alert. A sample by default; `TOUCHMOVE_FULL=1` resumes
/// 20 times in each of 100 games, with slides that close the next square
/// before they open the last one.
#[test]
fn resumed_at_random_moments_the_record_goes_on_exactly() {
    use rand::{RngExt, SeedableRng};
    use touchmove_synth::{self as synth, HandStyle};
    let full = std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1");
    let (games, kills) = if full { (100, 20) } else { (6, 5) };
    let mut style = HandStyle::random();
    style.slide_overlap = 0.3;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut failures = Vec::new();
    let (mut checked, mut opened) = (0, 0);
    for seed in 0..games {
        let (start, game) = synth::random_game(seed + 5000, 120);
        let synthesized = synth::synthesize(&start, &game, &style, seed * 13 + 1);
        let trace = &synthesized.trace;
        let source = support::source_uci(&start, &game);
        for _ in 0..kills {
            // Down while a hand is at work (most of a game is thinking).
            let m = &synthesized.moves[rng.random_range(0..synthesized.moves.len())];
            let down = rng.random_range(m.first_lift..=m.last_release + 50);
            let up = down + rng.random_range(0..600);
            let Some((s, out)) = resumed(trace, down, up) else {
                continue;
            };
            checked += 1;
            let played = support::played_uci(&s);
            let exact = played == source || (s.game().is_over() && source.starts_with(&played));
            // Still open at the end of the game, the game's own line among
            // the candidates: a board that can never tell (a pawn that
            // took on d5 or on f5, read again with the pawn in the air).
            let open = source.starts_with(&played)
                && out
                    .iter()
                    .rev()
                    .find_map(|e| match &e.kind {
                        EventKind::Candidates { lines } => Some(lines),
                        _ => None,
                    })
                    .is_some_and(|lines| {
                        lines.iter().any(|l| {
                            l.split(' ')
                                .eq(source[played.len()..].iter().map(String::as_str))
                        })
                    });
            if open {
                opened += 1;
            }
            if !(exact || open) || out.iter().any(|e| e.kind.is_alert()) {
                failures.push(format!(
                    "random game {} down {down} up {up}: {}",
                    seed + 5000,
                    match played.iter().zip(&source).position(|(a, b)| a != b) {
                        Some(i) => format!("ply {} read {} for {}", i + 1, played[i], source[i]),
                        None => format!("{} of {} plies", played.len(), source.len()),
                    }
                ));
            }
        }
    }
    if full {
        println!(
            "resumed: {} of {checked} read on exactly, {opened} of them open at the end",
            checked - failures.len()
        );
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_promotion_made_while_the_board_was_not_read_waits_for_its_piece() {
    // Down while Black's pawn went to c1 (its lift never read): the new
    // piece, a knight, is told by how it moves; a jump's test that a hand
    // set the piece down after lifting it has nothing to go on here.
    use touchmove_synth::{self as synth, HandStyle};
    let mut style = HandStyle::random();
    style.slide_overlap = 0.3;
    let (start, game) = synth::random_game(5069, 120);
    let synthesized = synth::synthesize(&start, &game, &style, 69 * 13 + 1);
    let source = support::source_uci(&start, &game);
    assert_eq!(source[115], "c2c1n");
    let (s, out) = resumed(&synthesized.trace, 1_211_014, 1_211_329).unwrap();
    assert_eq!(support::played_uci(&s), source);
    assert!(!out.iter().any(|e| e.kind.is_alert()));
}

/// Events other than the clock's, as JSON without their numbers.
fn unnumbered(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::Clock { .. }))
        .map(|e| format!("{} {:?}", e.t_ms, e.kind))
        .collect()
}

/// A daemon reading a trace, down at random moments and started again on
/// its journal, reads the trace again up to the journal's last event
/// (`replay::read_again`) and carries on from there (`Session::carry_on`):
/// every event after that moment is the uninterrupted session's, with the
/// journal's numbering after it — also when the daemon went down while a
/// capture read only from its captured square swapped within a scan
/// waited for its piece to stand, which the board read afresh no longer
/// shows (the daemon's kill test found those read as other plies).
#[test]
fn read_again_up_to_the_journal_a_session_carries_on_as_if_never_down() {
    use touchmove_core::replay::{read_again, session_for};
    use touchmove_synth::{self as synth, HandStyle};
    let mut waited = 0;
    for seed in 0..8 {
        let (start, game) = synth::random_game(seed + 70, 60);
        let synthesized = synth::synthesize(&start, &game, &HandStyle::random(), seed);
        let trace = &synthesized.trace;
        let tc = TimeControl::parse_human("90+30").unwrap();
        let whole = |t_end: Option<Millis>| {
            let mut s = session_for(trace, None, None, Some(tc.clone()), None, None).unwrap();
            let mut events = Vec::new();
            for r in trace
                .records
                .iter()
                .filter(|r| t_end.is_none_or(|e| r.t <= e))
            {
                s.apply(r, &mut events).unwrap();
            }
            (s, events)
        };
        let (mut all_session, mut all) = whole(None);
        while let Some(deadline) = all_session.next_board_deadline() {
            all_session.advance(deadline, &mut all);
        }
        let mut times: Vec<Millis> = all.iter().map(|e| e.t_ms).collect();
        times.dedup();
        for t in times {
            let (mut before, mut journal) = whole(Some(t));
            before.advance(t, &mut journal);
            assert!(journal.iter().all(|e| e.t_ms <= t));
            assert_eq!(unnumbered(&journal), unnumbered(&all[..journal.len()]));
            let resumption = Resumption {
                game: before.game().clone(),
                next_seq: before.next_seq(),
                awaiting_press: before.inference().awaiting_press(),
                clock: Some(last_reading(&journal)),
                t,
                downtime: Downtime::Pause,
            };
            let config = before.config().clone();
            let mut s = read_again(
                &trace.records[..trace.records.partition_point(|r| r.t <= t)],
                &config,
                t,
                &resumption,
            )
            .expect("the trace read again holds the journal's record");
            let mut out = Vec::new();
            s.carry_on(resumption, &mut out);
            assert_eq!(out[0].seq, before.next_seq(), "the journal's numbering");
            read_rest(&mut s, trace, t, &mut out);
            assert_eq!(
                unnumbered(&out),
                unnumbered(&all[journal.len()..]),
                "game {} down at {t}",
                seed + 70
            );
            assert_eq!(support::played_uci(&s), support::played_uci(&all_session));
            // (Whether the board read afresh would have read it too.)
            let (afresh, _) =
                resumed_afresh(&before, before.inference().awaiting_press(), trace, t);
            let afresh = support::played_uci(&afresh);
            if afresh != support::played_uci(&all_session) {
                waited += 1;
            }
        }
    }
    eprintln!("{waited} resumptions the board read afresh would have read otherwise");
}
