//! The arbiter's rulings on the position (Article 7): reinstating an
//! earlier position (7.4a / 7.5 of 2005, 7.5.1 / 7.4.1 of 2023) and
//! accepting moves the sensors did not read, with the clock following the
//! side to move and every ruling in the event log.
mod support;

use shakmaty::Color::{Black, White};
use shakmaty::Position;
use support::Hands;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Decision, Event, EventKind, Side};
use touchmove_core::game::Profile;
use touchmove_core::inference::arbiter::{Irregularity, RulingRefused};
use touchmove_core::inference::{Completion, InferenceConfig};
use touchmove_core::replay::drive;
use touchmove_core::session::{Session, SessionConfig};
use touchmove_core::trace::{Record, TimedRecord, Trace};

fn session(profile: Profile, fen: Option<&str>) -> Session {
    Session::new(
        SessionConfig {
            profile,
            start: fen.map_or_else(touchmove_core::game::Start::standard, |f| {
                touchmove_core::game::Start::from_fen(f).unwrap()
            }),
            time_control: Some(TimeControl::parse_human("10+0").unwrap()),
            inference: InferenceConfig {
                completion: Completion::ClockPress,
                ..InferenceConfig::default()
            },
            ..SessionConfig::default()
        },
        None,
    )
}

/// Drives the records of `h` from `from` on; returns where it stopped.
fn drive_from(s: &mut Session, h: &Hands, from: usize, out: &mut Vec<Event>) -> usize {
    let part = Trace {
        header: h.trace.header.clone(),
        records: h.trace.records[from..].to_vec(),
    };
    out.extend(drive(s, &part, "hands").unwrap());
    h.trace.records.len()
}

/// An `arbiter_decision`: what, the Article, the ply, the moves.
type Ruling = (Decision, Option<String>, Option<usize>, Vec<String>);

fn decision(events: &[Event]) -> Option<Ruling> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::ArbiterDecision {
            decision,
            article,
            ply,
            moves,
            ..
        } => Some((*decision, article.clone(), *ply, moves.clone())),
        _ => None,
    })
}

fn running(events: &[Event]) -> Option<Side> {
    events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Clock { running, .. } => Some(*running),
        _ => None,
    })?
}

#[test]
fn a_reinstated_position_takes_moves_back_and_waits_for_the_board() {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000)
        .carry("e2", "e4")
        .clock(White)
        .carry("e7", "e5")
        .clock(Black)
        .carry("g1", "f3")
        .clock(White)
        .carry("b8", "c6")
        .clock(Black);
    let mut s = session(Profile::FideStandard, None);
    let mut events = Vec::new();
    let mut done = drive_from(&mut s, &h, 0, &mut events);
    assert_eq!(s.game().ply(), 4);
    let t = h.t;

    // Found late: the arbiter goes back to the position after 2.Nf3.
    let mut ruling = Vec::new();
    s.reinstate(
        t,
        3,
        Irregularity::IllegalMove,
        Some("found at move 3".into()),
        &mut ruling,
    )
    .unwrap();
    let (d, article, ply, _) = decision(&ruling).expect("the ruling is logged");
    assert_eq!(d, Decision::Reinstate);
    assert_eq!(article.as_deref(), Some("7.5.1"));
    assert_eq!(ply, Some(3));
    let kinds: Vec<&str> = ruling.iter().map(|e| e.kind.name()).collect();
    assert_eq!(
        kinds,
        ["arbiter_decision", "takeback", "displaced", "clock"],
        "{ruling:?}"
    );
    match &ruling[2].kind {
        EventKind::Displaced { squares, .. } => {
            let names: Vec<String> = squares.iter().map(ToString::to_string).collect();
            assert_eq!(names, ["c6", "b8"]);
        }
        other => panic!("{other:?}"),
    }
    // Black is to move again: the clock runs for Black, not White.
    assert_eq!(running(&ruling), Some(Side::Black));
    assert_eq!(s.game().ply(), 3);
    assert_eq!(s.game().turn(), Black);

    // The knight goes back; the position stands; Black plays on.
    h.wait(500).carry("c6", "b8");
    let at = done;
    done = drive_from(&mut s, &h, at, &mut ruling);
    assert!(
        ruling
            .iter()
            .any(|e| matches!(e.kind, EventKind::Restored { .. })),
        "{ruling:?}"
    );
    h.carry("g8", "f6").clock(Black);
    drive_from(&mut s, &h, done, &mut ruling);
    assert_eq!(s.game().ply(), 4);
    assert_eq!(
        s.game().moves().last().unwrap().san.to_string(),
        "Nf6",
        "the replacing move is recorded"
    );
    assert_eq!(running(&ruling), Some(Side::White));
}

#[test]
fn the_2005_laws_cite_their_own_articles_and_bad_plies_are_refused() {
    let mut h = Hands::new(None, "fide-2005");
    h.wait(1000).carry("e2", "e4").clock(White);
    let mut s = session(Profile::Fide2005, None);
    let mut events = Vec::new();
    drive_from(&mut s, &h, 0, &mut events);
    let t = h.t;
    assert_eq!(
        s.reinstate(t, 5, Irregularity::Displaced, None, &mut events),
        Err(RulingRefused::NoSuchPly { ply: 5, plies: 1 })
    );
    let mut ruling = Vec::new();
    s.reinstate(t, 1, Irregularity::Displaced, None, &mut ruling)
        .unwrap();
    let (_, article, _, _) = decision(&ruling).unwrap();
    assert_eq!(article.as_deref(), Some("7.5"));
    // Nothing was taken back and the board is right: no other event.
    assert_eq!(ruling.len(), 1, "{ruling:?}");
    let mut ruling = Vec::new();
    s.reinstate(t, 0, Irregularity::IllegalMove, None, &mut ruling)
        .unwrap();
    assert_eq!(decision(&ruling).unwrap().1.as_deref(), Some("7.4a"));
}

/// A pawn promotes and the king answers while the sensors were not read:
/// the board cannot tell which piece the pawn became.
fn missed_promotion() -> (Hands, Session, Vec<Event>) {
    let fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1";
    let mut h = Hands::new(Some(fen), "fide-standard");
    h.wait(1000);
    let mut occ = h.occ;
    for sq in ["e7", "a2"] {
        occ.discard(sq.parse::<shakmaty::Square>().unwrap());
    }
    for sq in ["e8", "b2"] {
        occ.add(sq.parse::<shakmaty::Square>().unwrap());
    }
    h.occ = occ;
    h.trace.records.push(TimedRecord {
        t: h.t,
        record: Record::Occupancy(occ),
    });
    h.wait(3000);
    let mut s = session(Profile::FideStandard, Some(fen));
    let mut events = Vec::new();
    drive_from(&mut s, &h, 0, &mut events);
    (h, s, events)
}

#[test]
fn the_arbiter_accepts_one_of_the_listed_candidates() {
    let (h, mut s, events) = missed_promotion();
    let candidates = events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Candidates { lines } => Some(lines.clone()),
            _ => None,
        })
        .expect("the open candidates are announced");
    assert_eq!(candidates.len(), 4, "{candidates:?}");
    let rook = candidates
        .iter()
        .position(|c| c.starts_with("e7e8r"))
        .unwrap();
    let mut ruling = Vec::new();
    assert!(matches!(
        s.accept_candidate(h.t, 9, None, &mut ruling),
        Err(RulingRefused::NoCandidate { index: 9, count: 4 })
    ));
    s.accept_candidate(h.t, rook, Some("the players say rook".into()), &mut ruling)
        .unwrap();
    let (d, _, _, moves) = decision(&ruling).unwrap();
    assert_eq!(d, Decision::AcceptMoves);
    assert_eq!(moves, ["e7e8r", "a2b2"]);
    let kinds: Vec<&str> = ruling.iter().map(|e| e.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "arbiter_decision",
            "candidates",
            "move",
            "move_completed",
            "move",
            "move_completed",
        ],
        "{ruling:?}"
    );
    assert_eq!(
        s.game().position().board().to_string(),
        "4R3/8/8/8/8/8/1k6/4K3"
    );
}

#[test]
fn the_arbiter_accepts_a_position_by_its_fen_or_by_its_moves() {
    let (h, mut s, _) = missed_promotion();
    let mut ruling = Vec::new();
    // A position no short run of legal plies reaches is refused.
    assert!(matches!(
        s.accept_position(h.t, "8/8/8/8/8/8/1k6/4K2R w - - 0 2", None, &mut ruling),
        Err(RulingRefused::Unreachable { .. })
    ));
    assert!(matches!(
        s.accept_position(h.t, "not a fen", None, &mut ruling),
        Err(RulingRefused::BadFen(_))
    ));
    assert!(ruling.is_empty(), "a refused ruling changes nothing");
    s.accept_position(h.t, "4Q3/8/8/8/8/8/1k6/4K3 w - - 1 2", None, &mut ruling)
        .unwrap();
    assert_eq!(decision(&ruling).unwrap().3, ["e7e8q", "a2b2"]);
    assert_eq!(s.game().ply(), 2);

    // By moves: each is checked before any is played.
    let (h, mut s, _) = missed_promotion();
    let mut ruling = Vec::new();
    let err = s
        .accept_moves(h.t, &["e7e8q".into(), "a2a9".into()], None, &mut ruling)
        .unwrap_err();
    assert!(err.to_string().starts_with("move 1 (\"a2a9\")"), "{err}");
    assert_eq!(s.game().ply(), 0);
    // King and bishop against king is dead: no move follows it.
    let err = s
        .accept_moves(h.t, &["e7e8b".into(), "a2b2".into()], None, &mut ruling)
        .unwrap_err();
    assert!(
        err.to_string().contains("the game is over before it"),
        "{err}"
    );
    s.accept_moves(h.t, &["e7e8b".into()], None, &mut ruling)
        .unwrap();
    assert_eq!(s.game().moves()[0].san.to_string(), "e8=B");
    assert_eq!(s.game().ply(), 1);
    assert!(
        ruling.iter().any(
            |e| matches!(&e.kind, EventKind::GameOver { reason, .. } if reason == "dead_position")
        ),
        "{ruling:?}"
    );
}
