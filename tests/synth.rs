//! The trace synthesizer: traces are well-formed, the board is right at
//! quiet times, each habit leaves its pattern, random games are rich, and
//! fault injectors announce exactly what they did.
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square};
use touchmove_core::Millis;
use touchmove_core::game::{self, Start};
use touchmove_core::scan::Snapshot;
use touchmove_core::trace::{Record, Trace};
use touchmove_synth::faults::{self, Fault, Knock};
use touchmove_synth::{
    self as synth, CaptureOrder, CastlingOrder, EnPassantOrder, Expected, HandStyle, Mix,
    PromoteInput, PromotionHands, Synthesized, Travel,
};

const CORPUS: &str = "/work/shared/corpus/pgn/197308bcf.pgn";

/// Occupancy the trace reports at time `t` (after every record at `t`).
fn occupancy_at(trace: &Trace, t: Millis) -> Bitboard {
    let mut occ = Bitboard::EMPTY;
    for r in &trace.records {
        if r.t > t {
            break;
        }
        if let Record::Occupancy(bb) = r.record {
            occ = bb;
        }
    }
    occ
}

/// The ideal board at time `t`.
fn snapshot_at(s: &Synthesized, t: Millis) -> Snapshot {
    let mut snap = s.timeline[0].1;
    for &(u, sn) in &s.timeline {
        if u > t {
            break;
        }
        snap = sn;
    }
    snap
}

/// Times non-decreasing, occupancy at time 0 first, only changes written.
fn assert_well_formed(s: &Synthesized) {
    let records = &s.trace.records;
    assert!(matches!(records[0].record, Record::Occupancy(_)));
    assert_eq!(records[0].t, 0);
    let mut last: Option<Bitboard> = None;
    for w in records.windows(2) {
        assert!(w[0].t <= w[1].t, "time decreases at {}", w[1].t);
    }
    for r in records {
        if let Record::Occupancy(bb) = r.record {
            assert_ne!(Some(bb), last, "unchanged scan written at {}", r.t);
            last = Some(bb);
        }
    }
    // Every line is a valid v1 record.
    for line in s.trace.to_string().lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.split(' ');
        parts.next().unwrap().parse::<u64>().unwrap();
        let rest: Vec<&str> = parts.collect();
        match rest.as_slice() {
            [hex] => assert_eq!(hex.len(), 16),
            ["clock", "white" | "black"] | ["promote", "q" | "r" | "b" | "n"] => {}
            other => panic!("bad record {other:?}"),
        }
    }
}

/// At quiet times the board shows the position after the moves so far:
/// in the trace (when there are no glitches) and in the timeline (always).
fn assert_quiet_times(start: &Chess, s: &Synthesized, trace_too: bool) {
    let mut pos = start.clone();
    let end = s.trace.records.last().unwrap().t;
    let mut quiet_from = 0;
    for (i, m) in s.moves.iter().enumerate() {
        check_quiet(
            s,
            &pos,
            quiet_from,
            m.first_lift.saturating_sub(1),
            trace_too,
        );
        pos.play_unchecked(m.mv);
        // Bounce settles within 12 ms of the last release.
        quiet_from = m.last_release + 13;
        let until = s.moves.get(i + 1).map_or(end, |n| n.first_lift - 1);
        check_quiet(s, &pos, quiet_from, until, trace_too);
    }
}

fn check_quiet(s: &Synthesized, pos: &Chess, from: Millis, to: Millis, trace_too: bool) {
    if from > to {
        return;
    }
    let want = Snapshot::of_board(pos.board());
    let mut times = vec![from, to];
    times.extend(
        s.trace
            .records
            .iter()
            .map(|r| r.t)
            .filter(|&t| t > from && t < to),
    );
    for t in times {
        // A nudged piece's square reads empty for a moment (bounce included).
        if s.nudges.iter().any(|n| t >= n.off && t <= n.on + 12) {
            continue;
        }
        assert_eq!(snapshot_at(s, t), want, "timeline at {t}");
        if trace_too {
            assert_eq!(
                occupancy_at(&s.trace, t),
                pos.board().occupied(),
                "trace at {t}"
            );
        }
    }
}

fn corpus_games(n: usize) -> Vec<game::pgn::PgnGame> {
    let games = touchmove::cli::read_pgn_file(std::path::Path::new(CORPUS)).unwrap();
    games.into_iter().take(n).map(Result::unwrap).collect()
}

/// Chess960 start position `n`.
fn chess960(n: u64) -> Chess {
    Start::chess960(n as u32).unwrap().position().clone()
}

#[test]
fn corpus_games_replay_cleanly_in_every_style() {
    let games = corpus_games(usize::MAX);
    for (i, game) in games.iter().enumerate() {
        // Every style on the first games, one style each on the rest.
        let n = HandStyle::NAMES.len();
        let names = if i < 12 {
            &HandStyle::NAMES[..]
        } else {
            &HandStyle::NAMES[i % n..=i % n]
        };
        for &name in names {
            let style = HandStyle::by_name(name).unwrap();
            let s = synth::from_pgn_game(game, &style, i as u64);
            assert_well_formed(&s);
            assert_quiet_times(game.start.position(), &s, style.glitches_per_minute == 0.0);
            let clean = synth::from_pgn_game(game, &style.clone().without_glitches(), i as u64);
            assert_quiet_times(game.start.position(), &clean, true);
            let moves: Vec<&Expected> = s
                .expected
                .iter()
                .filter(|e| matches!(e, Expected::Move { .. }))
                .collect();
            assert_eq!(moves.len(), game.moves.len());
            assert!(
                s.expected
                    .iter()
                    .all(|e| matches!(e, Expected::Move { .. } | Expected::GameOver { .. }))
            );
        }
    }
}

#[test]
fn random_games_replay_cleanly_including_chess960() {
    for seed in 0..40 {
        let (start, moves) = if seed % 2 == 0 {
            synth::random_game(seed, 120)
        } else {
            let start = chess960(seed * 37 % 960);
            let moves = synth::random_game_from(&start, seed, 120);
            (start, moves)
        };
        let style = HandStyle::random().without_glitches();
        let s = synth::synthesize(&start, &moves, &style, seed);
        assert_well_formed(&s);
        assert_quiet_times(&start, &s, true);
        assert_eq!(s.moves.len(), moves.len());
        if seed % 2 == 1 {
            assert!(s.trace.header.start_fen.is_some());
        }
    }
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    let (start, moves) = synth::random_game(7, 60);
    let style = HandStyle::random();
    let a = synth::synthesize(&start, &moves, &style, 1);
    let b = synth::synthesize(&start, &moves, &style, 1);
    let c = synth::synthesize(&start, &moves, &style, 2);
    assert_eq!(a.trace, b.trace);
    assert_ne!(a.trace, c.trace);
}

#[test]
fn header_names_profile_and_only_non_standard_starts() {
    let (start, moves) = synth::random_game(3, 10);
    let s = synth::synthesize(&start, &moves, &HandStyle::casual(), 3);
    assert_eq!(s.trace.header.start_fen, None);
    assert_eq!(s.trace.header.profile.as_deref(), Some("casual"));
    let start = chess960(0);
    let s = synth::synthesize(&start, &[], &HandStyle::random(), 3);
    assert_eq!(
        s.trace.header.start_fen.as_deref(),
        Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1")
    );
}

/// Random games from the standard start with many plies: a sample rich in every special move.
fn sample_games(n: u64) -> Vec<(Chess, Vec<Move>)> {
    (0..n).map(|seed| synth::random_game(seed, 160)).collect()
}

#[test]
fn random_games_hit_every_special_move() {
    let (mut captures, mut short, mut long, mut ep, mut promos, mut under) = (0, 0, 0, 0, 0, 0);
    for (start, moves) in sample_games(200) {
        let mut pos = start;
        for &m in &moves {
            assert!(pos.is_legal(m));
            match m {
                Move::Castle { .. } => match m.castling_side() {
                    Some(CastlingSide::KingSide) => short += 1,
                    _ => long += 1,
                },
                Move::EnPassant { .. } => ep += 1,
                _ => {}
            }
            if m.is_capture() {
                captures += 1;
            }
            match m.promotion() {
                Some(Role::Queen) => promos += 1,
                Some(_) => under += 1,
                None => {}
            }
            pos.play_unchecked(m);
        }
    }
    assert!(captures > 2000, "captures {captures}");
    assert!(short > 50, "O-O {short}");
    assert!(long > 50, "O-O-O {long}");
    assert!(ep > 50, "en passant {ep}");
    assert!(promos > 50, "promotions {promos}");
    assert!(under > 20, "under-promotions {under}");
}

#[test]
fn chess960_numbering_matches_the_standard_position_and_is_distinct() {
    assert_eq!(chess960(518).board(), Chess::default().board());
    let mut seen = std::collections::HashSet::new();
    for i in 0..960 {
        let pos = chess960(i);
        assert!(seen.insert(pos.board().clone()), "position {i} repeats");
    }
}

fn style_only(f: impl FnOnce(&mut HandStyle)) -> HandStyle {
    let mut style = HandStyle::random().noiseless();
    style.hesitate = 0.0;
    f(&mut style);
    style
}

/// Synthesizes the sample with `style` and calls `check` on each move of the chosen kind.
fn each_move(style: &HandStyle, games: u64, mut check: impl FnMut(&Synthesized, &Chess, usize)) {
    for (seed, (start, moves)) in sample_games(games).into_iter().enumerate() {
        let s = synth::synthesize(&start, &moves, style, seed as u64);
        assert_quiet_times(&start, &s, true);
        let mut pos = start;
        for i in 0..s.moves.len() {
            check(&s, &pos, i);
            pos.play_unchecked(s.moves[i].mv);
        }
    }
}

/// Every change of one square inside a time window, from the timeline.
fn square_history(s: &Synthesized, sq: Square, from: Millis, to: Millis) -> Vec<(Millis, bool)> {
    let mut out = Vec::new();
    let mut last = snapshot_at(s, from - 1).occupied().contains(sq);
    out.push((from - 1, last));
    for &(t, snap) in &s.timeline {
        if t >= from && t <= to && snap.occupied().contains(sq) != last {
            last = !last;
            out.push((t, last));
        }
    }
    out
}

#[test]
fn push_off_capture_leaves_the_square_empty_10_to_60_ms() {
    let style = style_only(|s| s.capture = Mix::only(CaptureOrder::PushOff));
    let mut seen = 0;
    each_move(&style, 20, |s, _, i| {
        let m = &s.moves[i];
        if let Move::Normal {
            to,
            capture: Some(_),
            promotion: None,
            ..
        } = m.mv
        {
            let h = square_history(s, to, m.first_lift, m.last_release);
            assert_eq!(h.len(), 3, "{h:?}");
            let empty = h[2].0 - h[1].0;
            assert!((10..=60).contains(&empty), "empty for {empty} ms");
            // The raw trace agrees: empty from the push, occupied again within bounce.
            let raw_empty: Vec<Millis> = s
                .trace
                .records
                .iter()
                .filter(|r| r.t >= m.first_lift && r.t <= m.last_release + 12)
                .filter(|r| matches!(r.record, Record::Occupancy(bb) if !bb.contains(to)))
                .map(|r| r.t)
                .collect();
            assert!(raw_empty.iter().all(|&t| t >= h[1].0 && t < h[2].0 + 12));
            seen += 1;
        }
    });
    assert!(seen > 100, "{seen}");
}

#[test]
fn sliding_blips_squares_passed_over_for_10_to_80_ms() {
    let style = style_only(|s| s.travel = Mix::only(Travel::Slide));
    let mut blips = 0;
    each_move(&style, 10, |s, pos, i| {
        let m = &s.moves[i];
        if let Move::Normal {
            from,
            to,
            capture: None,
            role: Role::Rook | Role::Bishop | Role::Queen,
            ..
        } = m.mv
        {
            for sq in shakmaty::attacks::between(from, to) {
                let h = square_history(s, sq, m.first_lift, m.last_release);
                if pos.board().occupied().contains(sq) {
                    assert_eq!(h.len(), 1, "an occupied square stays occupied");
                } else {
                    assert_eq!(h.len(), 3, "{h:?}");
                    let blip = h[2].0 - h[1].0;
                    assert!((10..=80).contains(&blip), "blip {blip}");
                    blips += 1;
                }
            }
        }
    });
    assert!(blips > 100, "{blips}");
}

#[test]
fn carried_pieces_touch_no_other_square() {
    let style = style_only(|s| s.travel = Mix::only(Travel::Carry));
    each_move(&style, 10, |s, pos, i| {
        let m = &s.moves[i];
        let before = pos.board().occupied();
        let mut after_pos = pos.clone();
        after_pos.play_unchecked(m.mv);
        let mut touched = before ^ after_pos.board().occupied();
        if let Some(from) = m.mv.from() {
            touched.add(from);
        }
        touched.add(m.mv.to());
        if let Move::Castle { king, rook } = m.mv {
            let side = m.mv.castling_side().unwrap();
            for sq in [king, rook, side.king_to(m.side), side.rook_to(m.side)] {
                touched.add(sq);
            }
        }
        let mut changed = Bitboard::EMPTY;
        for &(t, snap) in &s.timeline {
            if t >= m.first_lift && t <= m.last_release {
                changed |= snap.occupied() ^ before;
            }
        }
        assert!(
            (changed & !touched).is_empty(),
            "move {} changed {changed:?}",
            m.uci
        );
    });
}

#[test]
fn castling_orders_show_their_patterns_and_fide_never_starts_with_the_rook() {
    let check = |order: CastlingOrder, casual: bool| {
        let mut style = if casual {
            HandStyle::casual()
        } else {
            HandStyle::random()
        };
        style = style.noiseless();
        style.hesitate = 0.0;
        style.castling = Mix::only(order);
        let mut seen = 0;
        each_move(&style, 30, |s, _, i| {
            let m = &s.moves[i];
            let Move::Castle { king, rook } = m.mv else {
                return;
            };
            let side = m.mv.castling_side().unwrap();
            let (kt, rt) = (side.king_to(m.side), side.rook_to(m.side));
            let window: Vec<Snapshot> = s
                .timeline
                .iter()
                .filter(|(t, _)| *t >= m.first_lift && *t <= m.last_release)
                .map(|&(_, sn)| sn)
                .collect();
            let first = window[0].occupied();
            match order {
                CastlingOrder::KingFirst => {
                    assert!(!first.contains(king) && first.contains(rook));
                    assert!(
                        window
                            .iter()
                            .any(|sn| sn.occupied().contains(kt) && sn.occupied().contains(rook))
                    );
                }
                CastlingOrder::BothLifted => {
                    assert!(
                        !first.contains(king) && first.contains(rook),
                        "king lifted first"
                    );
                    assert!(window.iter().any(|sn| {
                        let o = sn.occupied();
                        !o.contains(king) && !o.contains(rook) && !o.contains(kt) && !o.contains(rt)
                    }));
                }
                CastlingOrder::RookFirst => {
                    assert!(first.contains(king) && !first.contains(rook));
                }
            }
            seen += 1;
        });
        assert!(seen > 10, "{order:?}: {seen}");
    };
    check(CastlingOrder::KingFirst, false);
    check(CastlingOrder::BothLifted, false);
    check(CastlingOrder::RookFirst, true);
    assert!(
        !HandStyle::random()
            .castling
            .allows(CastlingOrder::RookFirst)
    );
    for name in HandStyle::NAMES {
        let style = HandStyle::by_name(name).unwrap();
        assert_eq!(
            style.castling.allows(CastlingOrder::RookFirst),
            style.profile == "casual",
            "{name}"
        );
    }
}

#[test]
fn en_passant_captured_pawn_removed_first_or_last() {
    for order in [
        EnPassantOrder::CapturedFirst,
        EnPassantOrder::WhileHolding,
        EnPassantOrder::CapturedLast,
    ] {
        let style = style_only(|s| s.en_passant = Mix::only(order));
        let mut seen = 0;
        each_move(&style, 20, |s, _, i| {
            let m = &s.moves[i];
            let Move::EnPassant { from, to } = m.mv else {
                return;
            };
            let captured = Square::from_coords(to.file(), from.rank());
            let gone = square_history(s, captured, m.first_lift, m.last_release)[1].0;
            let left = square_history(s, from, m.first_lift, m.last_release)[1].0;
            let h_to = square_history(s, to, m.first_lift, m.last_release);
            let arrived = h_to.last().unwrap().0;
            match order {
                EnPassantOrder::CapturedFirst => assert!(gone < left),
                EnPassantOrder::WhileHolding => assert!(left < gone && gone < arrived),
                EnPassantOrder::CapturedLast => assert!(arrived < gone && gone == m.last_release),
            }
            seen += 1;
        });
        assert!(seen > 5, "{order:?}: {seen}");
    }
}

#[test]
fn promotions_set_down_or_direct_with_the_choice_entered_when_needed() {
    for hands in [PromotionHands::SetDownThenSwap, PromotionHands::Direct] {
        for input in [
            PromoteInput::Before,
            PromoteInput::After,
            PromoteInput::Omitted,
            PromoteInput::Late,
        ] {
            let style = style_only(|s| {
                s.promotion = Mix::only(hands);
                s.promote_input = Mix::only(input);
            });
            let mut seen = 0;
            each_move(&style, 25, |s, pos, i| {
                let m = &s.moves[i];
                let Some(role) = m.mv.promotion() else { return };
                let to = m.mv.to();
                let arrivals = square_history(s, to, m.first_lift, m.last_release)
                    .iter()
                    .skip(1)
                    .filter(|&&(_, occ)| occ)
                    .count();
                let expect = if hands == PromotionHands::SetDownThenSwap {
                    2
                } else {
                    1
                };
                assert_eq!(arrivals, expect, "{hands:?} {}", m.uci);
                let promotes: Vec<(Millis, Role)> = s
                    .trace
                    .records
                    .iter()
                    // (A late name may follow the press.)
                    .filter(|r| {
                        r.t >= m.first_lift && r.t <= m.clock.unwrap().max(m.last_release + 300)
                    })
                    .filter_map(|r| match r.record {
                        Record::Promote(r2) => Some((r_t(r), r2)),
                        _ => None,
                    })
                    .collect();
                fn r_t(r: &touchmove_core::trace::TimedRecord) -> Millis {
                    r.t
                }
                match (input, role) {
                    (PromoteInput::Omitted, Role::Queen) => assert!(promotes.is_empty()),
                    (PromoteInput::Omitted, _) => {
                        assert_eq!(promotes.len(), 1, "an under-promotion is always entered");
                        assert_eq!(promotes[0].1, role);
                    }
                    (PromoteInput::Late, _) => {
                        assert_eq!(promotes.len(), 1);
                        let after = promotes[0].0 - m.last_release;
                        assert!((50..=300).contains(&after), "{after} ms after the release");
                        assert_eq!(promotes[0].1, role);
                    }
                    (PromoteInput::Before, _) => {
                        assert_eq!(promotes.len(), 1);
                        assert!(promotes[0].0 < m.last_release && promotes[0].1 == role);
                    }
                    _ => {
                        assert_eq!(promotes.len(), 1);
                        assert!(promotes[0].0 > m.last_release && promotes[0].1 == role);
                    }
                }
                // The new piece has the mover's colour.
                let after = snapshot_at(s, m.last_release);
                assert!(after.by_color(pos.turn()).contains(to));
                seen += 1;
            });
            assert!(seen > 10, "{hands:?} {input:?}: {seen}");
        }
    }
}

#[test]
fn clock_presses_follow_releases_and_no_clock_leaves_400_ms() {
    let (start, moves) = synth::random_game(11, 120);
    let s = synth::synthesize(&start, &moves, &HandStyle::random(), 11);
    for m in &s.moves {
        let press = m.clock.expect("a clock press");
        assert!(press >= m.last_release + 150 && press <= m.last_release + 2500 + 1200);
        let side = s
            .trace
            .records
            .iter()
            .find(|r| r.t == press && matches!(r.record, Record::Clock(_)));
        assert_eq!(side.map(|r| &r.record), Some(&Record::Clock(m.side)));
    }
    let s = synth::synthesize(&start, &moves, &HandStyle::random().without_clock(), 11);
    assert!(
        s.trace
            .records
            .iter()
            .all(|r| !matches!(r.record, Record::Clock(_)))
    );
    for w in s.moves.windows(2) {
        assert!(w[0].clock.is_none());
        assert!(w[1].first_lift >= w[0].last_release + 400);
    }
}

#[test]
fn bounce_toggles_are_1_to_3_ms_apart_and_glitches_1_to_4_ms() {
    let (start, moves) = synth::random_game(5, 80);
    let mut style = HandStyle::carry();
    style.bounce = 1.0;
    style.glitches_per_minute = 30.0;
    let s = synth::synthesize(&start, &moves, &style, 5);
    assert_well_formed(&s);
    // Short toggles exist, and away from moves every deviation is a glitch of at most 4 ms.
    let short = s
        .trace
        .records
        .windows(2)
        .filter(|w| w[1].t - w[0].t <= 3)
        .count();
    assert!(short > 2 * moves.len(), "{short}");
    let mut glitches = 0;
    let mut pos = start.clone();
    for (i, m) in s.moves.iter().enumerate() {
        pos.play_unchecked(m.mv);
        let until = s
            .moves
            .get(i + 1)
            .map_or(m.last_release + 500, |n| n.first_lift - 1);
        let want = pos.board().occupied();
        let quiet: Vec<_> = s
            .trace
            .records
            .iter()
            .filter(|r| r.t > m.last_release + 12 && r.t < until)
            .filter(|r| matches!(r.record, Record::Occupancy(_)))
            .collect();
        for (j, r) in quiet.iter().enumerate() {
            if let Record::Occupancy(bb) = r.record
                && bb != want
            {
                assert_eq!((bb ^ want).count(), 1);
                let _ = j;
                let back = s
                    .trace
                    .records
                    .iter()
                    .find(|b| b.t > r.t && matches!(b.record, Record::Occupancy(_)))
                    .expect("a glitch ends");
                assert!(back.t - r.t <= 4 && back.record == Record::Occupancy(want));
                glitches += 1;
            }
        }
    }
    assert!(glitches > 5, "{glitches}");
}

/// The expected events other than moves and the end of the game.
fn alerts(s: &Synthesized) -> Vec<&Expected> {
    s.expected
        .iter()
        .filter(|e| !matches!(e, Expected::Move { .. } | Expected::GameOver { .. }))
        .collect()
}

fn move_events(s: &Synthesized) -> Vec<u32> {
    s.expected
        .iter()
        .filter_map(|e| match e {
            Expected::Move { ply, .. } => Some(*ply),
            _ => None,
        })
        .collect()
}

#[test]
fn illegal_placement_corrected_before_the_clock() {
    let (start, moves) = synth::random_game(21, 40);
    for at in [0, 5, 12, 25] {
        let s = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            at as u64,
            &[(at, Fault::IllegalPlacementCorrected)],
        )
        .unwrap();
        assert_well_formed(&s);
        assert_quiet_times(&start, &s, false);
        let alerts = alerts(&s);
        let side = if at % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let [
            Expected::IllegalMove {
                side: s2,
                completed: false,
                from,
                to: Some(x),
                count: 0,
            },
        ] = alerts.as_slice()
        else {
            panic!("{alerts:?}")
        };
        assert_eq!(*s2, side);
        assert_eq!(*from, moves[at].from());
        // The board once showed the piece on the illegal square, before the move's release.
        let mut pos = start.clone();
        for &m in &moves[..at] {
            pos.play_unchecked(m);
        }
        let wrong = (pos.board().occupied() ^ from.unwrap()) | *x;
        let m = &s.moves[at];
        assert!(
            s.timeline
                .iter()
                .any(|&(t, sn)| t > m.first_lift && t < m.last_release && sn.occupied() == wrong)
        );
        let i = s
            .expected
            .iter()
            .position(|e| e.kind() == "illegal_move")
            .unwrap();
        assert!(matches!(s.expected[i + 1], Expected::Move { ply, .. } if ply == at as u32 + 1));
        assert_eq!(move_events(&s).len(), moves.len());
    }
}

#[test]
fn illegal_move_completed_then_reinstated() {
    let (start, moves) = synth::random_game(22, 40);
    let s = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        1,
        &[
            (6, Fault::IllegalMoveReinstated),
            (10, Fault::IllegalMoveReinstated),
        ],
    )
    .unwrap();
    assert_well_formed(&s);
    let alerts: Vec<(&'static str, Option<u32>)> = s
        .expected
        .iter()
        .filter(|e| !matches!(e, Expected::Move { .. } | Expected::GameOver { .. }))
        .map(|e| match e {
            Expected::IllegalMove {
                completed: true,
                count,
                side: Color::White,
                ..
            } => ("illegal_move", Some(*count)),
            other => (other.kind(), None),
        })
        .collect();
    assert_eq!(
        alerts,
        vec![
            ("illegal_move", Some(1)),
            ("restored", None),
            ("illegal_move", Some(2)),
            ("restored", None)
        ]
    );
    // The clock was pressed on the illegal board.
    let mut pos = start.clone();
    for &m in &moves[..6] {
        pos.play_unchecked(m);
    }
    let Expected::IllegalMove {
        from: Some(from),
        to: Some(x),
        ..
    } = s
        .expected
        .iter()
        .find(|e| e.kind() == "illegal_move")
        .unwrap()
    else {
        panic!()
    };
    let wrong = (pos.board().occupied() ^ *from) | *x;
    let press = s
        .trace
        .records
        .iter()
        .find(|r| {
            r.t > s.moves[5].clock.unwrap() && matches!(r.record, Record::Clock(Color::White))
        })
        .unwrap();
    assert_eq!(occupancy_at(&s.trace, press.t), wrong);
    assert_eq!(move_events(&s).len(), moves.len());
}

#[test]
fn knocked_piece_is_displaced_then_restored() {
    let (start, moves) = synth::random_game(23, 40);
    for knock in [Knock::OffBoard, Knock::OntoNeighbour] {
        for at in [1, 8, 20] {
            let style = HandStyle::random().without_glitches();
            let s = faults::inject(
                &start,
                &moves,
                &style,
                at as u64,
                &[(at, Fault::KnockedPiece(knock))],
            )
            .unwrap();
            assert_well_formed(&s);
            let alerts = alerts(&s);
            let [
                Expected::Displaced {
                    squares,
                    expected_fen,
                },
                Expected::Restored { fen },
            ] = alerts.as_slice()
            else {
                panic!("{alerts:?}")
            };
            assert_eq!(expected_fen, fen);
            assert_eq!(squares.len(), if knock == Knock::OffBoard { 1 } else { 2 });
            // Between the moves, the board once differed from the game on exactly those squares.
            let mut pos = start.clone();
            for &m in &moves[..at] {
                pos.play_unchecked(m);
            }
            assert_eq!(&game::fen_of(&pos), fen);
            let wrong: Bitboard = squares.iter().copied().collect();
            let (a, b) = (s.moves[at - 1].clock.unwrap(), s.moves[at].first_lift);
            assert!(s.trace.records.iter().any(|r| r.t > a
                && r.t < b
                && occupancy_at(&s.trace, r.t) == pos.board().occupied() ^ wrong));
            // The piece was one the mover was not bound to move or capture.
            let sq = if knock == Knock::OffBoard {
                squares[0]
            } else {
                *squares
                    .iter()
                    .find(|&&q| pos.board().occupied().contains(q))
                    .unwrap()
            };
            let legal = pos.legal_moves();
            assert!(
                !legal
                    .iter()
                    .any(|m| m.from() == Some(sq) || m.to() == sq && m.is_capture())
            );
        }
    }
}

#[test]
fn touch_move_breach_names_the_touched_square_and_the_move_stands() {
    let (start, moves) = synth::random_game(24, 40);
    for at in [2, 9, 17] {
        let s = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            9,
            &[(at, Fault::TouchMoveBreach)],
        )
        .unwrap();
        assert_quiet_times(&start, &s, false);
        let i = s
            .expected
            .iter()
            .position(|e| e.kind() == "touch_move")
            .unwrap();
        let Expected::TouchMove {
            square,
            article,
            side,
        } = &s.expected[i]
        else {
            panic!()
        };
        assert_eq!(article.as_str(), "4.3a");
        assert!(
            matches!(&s.expected[i + 1], Expected::Move { ply, side: s2, .. } if *ply == at as u32 + 1 && s2 == side)
        );
        let mut pos = start.clone();
        for &m in &moves[..at] {
            pos.play_unchecked(m);
        }
        assert!(pos.board().by_color(*side).contains(*square));
        assert_ne!(Some(*square), moves[at].from());
        assert!(pos.legal_moves().iter().any(|m| m.from() == Some(*square)));
        // The touched square was the first to empty in that move.
        let m = &s.moves[at];
        let h = square_history(&s, *square, m.first_lift, m.last_release);
        assert_eq!(h[..2], [(m.first_lift - 1, true), (m.first_lift, false)]);
        assert_eq!(move_events(&s).len(), moves.len());
    }
}

#[test]
fn missed_plies_jump_in_one_scan() {
    let (start, moves) = synth::random_game(25, 40);
    for k in 1..=4 {
        let at = 10;
        let s = faults::inject(
            &start,
            &moves,
            &HandStyle::random().without_glitches(),
            4,
            &[(at, Fault::MissedPlies(k))],
        )
        .unwrap();
        assert_well_formed(&s);
        let jump = s.moves[at].first_lift;
        assert!(
            s.moves[at..at + k]
                .iter()
                .all(|m| m.first_lift == jump && m.clock.is_none())
        );
        let before = s.moves[at - 1].clock.unwrap();
        let mut pos = start.clone();
        for &m in &moves[..at] {
            pos.play_unchecked(m);
        }
        let occ_before = pos.board().occupied();
        for &m in &moves[at..at + k] {
            pos.play_unchecked(m);
        }
        assert!(s.trace.records.iter().all(|r| r.t <= before || r.t >= jump));
        let at_jump: Vec<_> = s.trace.records.iter().filter(|r| r.t == jump).collect();
        assert_eq!(at_jump.len(), 1);
        assert_eq!(occupancy_at(&s.trace, jump - 1), occ_before);
        assert_eq!(at_jump[0].record, Record::Occupancy(pos.board().occupied()));
        let unexplained = s.expected.iter().any(|e| e.kind() == "unexplained");
        assert_eq!(
            move_events(&s).len(),
            moves.len() - if unexplained { k } else { 0 }
        );
    }
}

#[test]
fn unplaceable_faults_are_errors() {
    let (start, moves) = synth::random_game(26, 20);
    let err = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        1,
        &[(moves.len(), Fault::TouchMoveBreach)],
    );
    assert!(err.is_err());
    let err = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        1,
        &[(3, Fault::MissedPlies(5))],
    );
    assert!(err.unwrap_err().to_string().contains("1 to 4"));
}

#[test]
fn illegal_input_moves_are_reported() {
    let start = Chess::default();
    let m = Move::Normal {
        role: Role::Pawn,
        from: Square::E2,
        capture: None,
        to: Square::E5,
        promotion: None,
    };
    let err = synth::try_synthesize(&start, &[m], &HandStyle::random(), 1).unwrap_err();
    assert_eq!(err.index, 0);
}

#[test]
fn pgn_reading_counts_games_and_names_bad_moves() {
    let games = corpus_games(usize::MAX);
    assert_eq!(games.len(), 211);
    assert!(games.iter().all(|g| g.moves.len() >= 2));
    let pgn = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"y\"]\n\n1. e4 e5 2. Ke3 *\n";
    let path =
        std::env::temp_dir().join(format!("touchmove-synth-{}-test.pgn", std::process::id()));
    std::fs::write(&path, pgn).unwrap();
    let mut args = cli_args("-");
    args.pgn = Some(path.clone());
    args.game = 2;
    let err = touchmove::cli::synth::run(args).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(
        err.contains("test.pgn")
            && err.contains("game 2")
            && err.contains("ply 3")
            && err.contains("Ke3"),
        "{err}"
    );
    let games = game::pgn::read_all(pgn.as_bytes()).unwrap();
    assert_eq!(games[0].as_ref().unwrap().moves.len(), 4);
    let err = games[1].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("game 2") && err.contains("ply 3") && err.contains("Ke3"),
        "{err}"
    );
    let pgn = "[FEN \"8/P7/8/8/8/8/8/k6K w - - 0 1\"]\n\n1. a8=N *\n";
    let games = game::pgn::read_all(pgn.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    assert_eq!(game.moves[0].promotion(), Some(Role::Knight));
    let s = synth::from_pgn_game(game, &HandStyle::random(), 1);
    assert_eq!(
        s.trace.header.start_fen.as_deref(),
        Some("8/P7/8/8/8/8/8/k6K w - - 0 1")
    );
    assert!(
        s.trace
            .records
            .iter()
            .any(|r| r.record == Record::Promote(Role::Knight))
    );
}

#[test]
fn wobbling_pieces_leave_their_square_5_to_40_ms_and_settle() {
    let mut style = HandStyle::carry().without_glitches();
    style.wobble = 1.0;
    style.capture = Mix::only(CaptureOrder::CapturedFirst);
    let (start, moves) = synth::random_game(31, 60);
    let s = synth::synthesize(&start, &moves, &style, 31);
    assert_quiet_times(&start, &s, true);
    let mut seen = 0;
    for m in &s.moves {
        let Move::Normal {
            to,
            promotion: None,
            ..
        } = m.mv
        else {
            continue;
        };
        let h = square_history(&s, to, m.first_lift, m.last_release);
        let tail: Vec<_> = h.iter().rev().take(3).rev().copied().collect();
        let [(_, true), (off, false), (on, true)] = tail.as_slice() else {
            panic!("{h:?}")
        };
        assert!((5..=40).contains(&(on - off)));
        assert_eq!(*on, m.last_release);
        seen += 1;
    }
    assert!(seen > 20);
}

#[test]
fn noiseless_styles_write_one_scan_per_change() {
    let (start, moves) = synth::random_game(32, 40);
    let style = HandStyle::carry().noiseless();
    let s = synth::synthesize(&start, &moves, &style, 32);
    let scans = s
        .trace
        .records
        .iter()
        .filter(|r| matches!(r.record, Record::Occupancy(_)))
        .count();
    // The timeline and the trace agree exactly.
    assert_eq!(scans, s.timeline.len());
    for &(t, snap) in &s.timeline {
        assert_eq!(occupancy_at(&s.trace, t), snap.occupied());
    }
}

#[test]
fn random_faults_cover_every_kind_and_replay_consistently() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let (start, moves) = synth::random_game(seed, 80);
        let (placed, s) =
            faults::inject_random(&start, &moves, &HandStyle::random(), seed, 4).unwrap();
        assert!(!placed.is_empty());
        assert_well_formed(&s);
        assert_eq!(s.moves.len(), moves.len());
        for e in &s.expected {
            kinds.insert(e.kind());
        }
        // Replaying the same list gives the same game.
        let again = faults::inject(&start, &moves, &HandStyle::random(), seed, &placed).unwrap();
        assert_eq!(again.trace, s.trace);
    }
    for kind in [
        "move",
        "illegal_move",
        "restored",
        "displaced",
        "touch_move",
    ] {
        assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
    }
}

#[test]
fn overlapping_slides_show_the_piece_on_two_squares_for_1_to_15_ms() {
    let mut style = HandStyle::slide().noiseless();
    style.slide_overlap = 1.0;
    style.hesitate = 0.0;
    style.capture = Mix::only(CaptureOrder::CapturedFirst);
    let mut seen = 0;
    each_move(&style, 5, |s, pos, i| {
        let m = &s.moves[i];
        let Move::Normal {
            from,
            capture: None,
            promotion: None,
            ..
        } = m.mv
        else {
            return;
        };
        let pieces = pos.board().occupied().count();
        let doubled: Vec<(Millis, Bitboard)> = s
            .timeline
            .iter()
            .filter(|(t, _)| *t >= m.first_lift && *t <= m.last_release)
            .filter(|(_, sn)| sn.occupied().count() == pieces + 1 && sn.occupied().contains(from))
            .map(|&(t, ref sn)| (t, sn.occupied() & !pos.board().occupied()))
            .collect();
        // A piece covers two squares only if they are neighbours: slid over
        // occupied squares first, it leaves its own before it reads again.
        let next_door = shakmaty::attacks::king_attacks(from);
        for (t, extra) in &doubled {
            assert!(extra.is_subset(next_door), "{} at {t}: {extra:?}", m.uci);
        }
        let first_empty = shakmaty::attacks::between(from, m.mv.to())
            .with(m.mv.to())
            .into_iter()
            .min_by_key(|sq| from.distance(*sq))
            .filter(|sq| !pos.board().occupied().contains(*sq));
        if m.mv.role() == Role::Knight || first_empty.is_none_or(|sq| !next_door.contains(sq)) {
            return;
        }
        assert!(!doubled.is_empty(), "{}", m.uci);
        let doubled: Vec<Millis> = doubled.iter().map(|(t, _)| *t).collect();
        let gone = square_history(s, from, m.first_lift, m.last_release)[1].0;
        assert!(
            gone - doubled[0] >= 1 && gone - doubled[0] <= 15,
            "{}",
            gone - doubled[0]
        );
        seen += 1;
    });
    assert!(seen > 50, "{seen}");
}

#[test]
fn touching_a_capturable_opponent_piece_then_moving_otherwise_breaks_4_3b() {
    let mut placed = 0;
    for seed in 0..10 {
        let (start, moves) = synth::random_game(40 + seed, 40);
        let Ok(s) = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            seed,
            &[(15, Fault::TouchedOpponentPiece)],
        ) else {
            continue;
        };
        let [
            Expected::TouchMove {
                side,
                article,
                square,
            },
        ] = alerts(&s).as_slice()
        else {
            panic!()
        };
        assert_eq!(article.as_str(), "4.3b");
        let mut pos = start.clone();
        for &m in &moves[..15] {
            pos.play_unchecked(m);
        }
        assert_eq!(*side, pos.turn());
        assert!(pos.board().by_color(!*side).contains(*square));
        let legal = pos.legal_moves();
        assert!(
            legal
                .iter()
                .any(|m| m.is_capture() && (m.to() == *square || m.is_en_passant()))
        );
        assert!(!(moves[15].is_capture() && moves[15].to() == *square));
        let m = &s.moves[15];
        let h = square_history(&s, *square, m.first_lift, m.last_release);
        assert_eq!(h[..2], [(m.first_lift - 1, true), (m.first_lift, false)]);
        placed += 1;
    }
    assert!(placed >= 5, "{placed}");
}

#[test]
fn castling_rook_first_breaks_4_4b_in_fide_profiles() {
    let mut placed = 0;
    for seed in 0..40 {
        let (start, moves) = synth::random_game(seed, 60);
        let Some(at) = moves.iter().position(|m| m.is_castle()) else {
            continue;
        };
        let s = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            seed,
            &[(at, Fault::RookBeforeKing)],
        )
        .unwrap();
        assert_quiet_times(&start, &s, false);
        let Move::Castle { king, rook } = moves[at] else {
            unreachable!()
        };
        let [
            Expected::TouchMove {
                article, square, ..
            },
        ] = alerts(&s).as_slice()
        else {
            panic!()
        };
        assert_eq!((article.as_str(), *square), ("4.4b", rook));
        let m = &s.moves[at];
        let rook_off = square_history(&s, rook, m.first_lift, m.last_release)[1].0;
        let king_off = square_history(&s, king, m.first_lift, m.last_release)[1].0;
        assert!(rook_off < king_off);
        placed += 1;
    }
    assert!(placed > 10, "{placed}");
    let (start, moves) = synth::random_game(1, 10);
    let at = moves.iter().position(|m| !m.is_castle()).unwrap();
    assert!(
        faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            1,
            &[(at, Fault::RookBeforeKing)]
        )
        .is_err()
    );
}

#[test]
fn hesitating_players_lift_the_piece_put_it_back_then_move_it() {
    let mut style = HandStyle::careful().noiseless();
    style.hesitate = 1.0;
    let mut seen = 0;
    each_move(&style, 3, |s, _, i| {
        let m = &s.moves[i];
        let from = m.mv.from().unwrap();
        let h = square_history(s, from, m.first_lift, m.last_release);
        assert_eq!(
            h[..4].iter().map(|&(_, o)| o).collect::<Vec<_>>(),
            [true, false, true, false]
        );
        assert_eq!(h[1].0, m.first_lift);
        seen += 1;
    });
    assert!(seen > 50);
    // Only moves are expected: the touched piece was the one moved.
    let (start, moves) = synth::random_game(3, 40);
    let s = synth::synthesize(&start, &moves, &style, 3);
    assert!(alerts(&s).is_empty());
}

#[test]
fn carried_pieces_may_brush_a_neighbour_of_their_target_for_10_to_80_ms() {
    let mut style = HandStyle::carry().noiseless();
    style.brush = 1.0;
    style.hesitate = 0.0;
    let mut seen = 0;
    each_move(&style, 5, |s, pos, i| {
        let m = &s.moves[i];
        let Move::Normal {
            to,
            promotion: None,
            capture: None,
            ..
        } = m.mv
        else {
            return;
        };
        let around = shakmaty::attacks::king_attacks(to) & !pos.board().occupied();
        if around.is_empty() {
            return;
        }
        let blips: Vec<Millis> = around
            .into_iter()
            .filter_map(|sq| {
                let h = square_history(s, sq, m.first_lift, m.last_release);
                (h.len() == 3).then(|| h[2].0 - h[1].0)
            })
            .collect();
        assert_eq!(blips.len(), 1, "{}", m.uci);
        assert!((10..=80).contains(&blips[0]));
        seen += 1;
    });
    assert!(seen > 50, "{seen}");
}

fn cli_args(out: &str) -> touchmove::cli::synth::SynthArgs {
    touchmove::cli::synth::SynthArgs {
        pgn: None,
        game: 1,
        all: false,
        random: None,
        plies: 40,
        chess960: false,
        seed: 5,
        style: "random".into(),
        no_clock: false,
        no_glitches: false,
        faults: 0,
        jumps: 0,
        expected: false,
        out: out.into(),
    }
}

#[test]
fn cli_writes_one_trace_per_game_and_refuses_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("touchmove-synth-test-{}", std::process::id()));
    let out = dir.to_string_lossy().into_owned();
    let mut args = cli_args(&out);
    args.random = Some(3);
    args.chess960 = true;
    args.expected = true;
    args.faults = 2;
    touchmove::cli::synth::run(args).unwrap();
    for seed in 5..8 {
        let trace = std::fs::read_to_string(dir.join(format!("random-{seed}.trace"))).unwrap();
        assert!(trace.starts_with("# touchmove-trace v1\n#! start-fen: "));
        let expected =
            std::fs::read_to_string(dir.join(format!("random-{seed}.expected.jsonl"))).unwrap();
        for line in expected.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["type"].is_string());
        }
    }
    let mut args = cli_args(&out);
    args.random = Some(2);
    args.style = "bullet".into();
    args.jumps = 2;
    args.expected = true;
    touchmove::cli::synth::run(args).unwrap();
    let trace = std::fs::read_to_string(dir.join("random-5.trace")).unwrap();
    assert!(trace.contains("style bullet") && trace.contains("profile: fide-blitz"));
    let mut args = cli_args(&out);
    args.random = Some(1);
    args.style = "blitz-hands".into();
    args.faults = 2;
    args.jumps = 1;
    touchmove::cli::synth::run(args).unwrap();
    let mut args = cli_args(&out);
    args.pgn = Some(CORPUS.into());
    args.all = true;
    touchmove::cli::synth::run(args).unwrap();
    assert!(dir.join("197308bcf-211.trace").exists());
    std::fs::remove_dir_all(&dir).unwrap();

    let mut args = cli_args("-");
    args.random = Some(2);
    assert!(
        touchmove::cli::synth::run(args)
            .unwrap_err()
            .to_string()
            .contains("one trace")
    );
    let mut args = cli_args("-");
    args.style = "wild".into();
    assert!(
        touchmove::cli::synth::run(args)
            .unwrap_err()
            .to_string()
            .contains("wild")
    );
    let mut args = cli_args("-");
    args.pgn = Some(CORPUS.into());
    args.game = 500;
    assert!(
        touchmove::cli::synth::run(args)
            .unwrap_err()
            .to_string()
            .contains("211 game")
    );
}
