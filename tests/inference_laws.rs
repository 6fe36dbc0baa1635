//! The Laws on a sensor board, trace by trace: castling orders (4.4),
//! moving on after release (4.6 / 4.7), pressing without a move (7.5.3 of
//! 2023), promotion, takebacks in casual play, the end and a new game.
mod support;

use shakmaty::Color::{Black, White};
use shakmaty::Role;
use support::{Hands, kinds, played_uci};
use touchmove_core::events::EventKind;

const CASTLE_READY: &str = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8";

fn touch_moves(events: &[touchmove_core::events::Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TouchMove {
                article, square, ..
            } => Some((article.clone(), square.to_string())),
            _ => None,
        })
        .collect()
}

#[test]
fn king_first_castling_binds_then_completes() {
    let mut h = Hands::new(Some(CASTLE_READY), "fide-standard");
    h.wait(1000).carry("e1", "g1");
    // The king alone on g1 is not yet a move (4.6b) and no alert.
    h.wait(700).carry("h1", "f1").clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e1g1"]);
    assert!(
        support::alerts(&out.events).is_empty(),
        "{:?}",
        kinds(&out.events)
    );
}

#[test]
fn both_pieces_lifted_together_castles_long() {
    let mut h = Hands::new(Some(CASTLE_READY), "fide-standard");
    h.wait(1000)
        .lift("e1")
        .lift("a1")
        .place("c1")
        .place("d1")
        .clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e1c1"]);
    assert!(support::alerts(&out.events).is_empty());
}

/// When the move event of `uci` came.
fn move_time(events: &[touchmove_core::events::Event], want: &str) -> Option<u64> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::Move { uci, .. } if uci == want => Some(e.t_ms),
        _ => None,
    })
}

fn displaced_squares(events: &[touchmove_core::events::Event]) -> Vec<Vec<String>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Displaced { squares, .. } => {
                Some(squares.iter().map(|s| s.to_string()).collect())
            }
            _ => None,
        })
        .collect()
}

/// FIDE: White's rook carried h1-f1, `pause` ms, then the king carried
/// e1-g1 (each carry 1 s), then the press or, with no clock, a second.
fn castle_rook_first(pause: u64, clock: bool) -> support::Outcome {
    let mut h = Hands::new(Some(CASTLE_READY), "fide-standard");
    h.wait(1000).carry("h1", "f1").wait(pause).carry("e1", "g1");
    if clock {
        h.clock(White);
    } else {
        h.wait(1000);
    }
    h.run()
}

#[test]
fn rook_first_in_fide_then_the_king_is_castling_with_the_4_4b_breach() {
    // The rook set down on f1, the king lifted 1.4 s later and set down on
    // g1: the hands castled rook first. The record shows the castling the
    // board shows (no move recorded, then contradicted) and the arbiter
    // hears of the breach of 4.4b, on the rook's square.
    for clock in [true, false] {
        let out = castle_rook_first(800, clock);
        assert_eq!(played_uci(&out.session), ["e1g1"], "clock {clock}");
        assert_eq!(
            touch_moves(&out.events),
            [("4.4b".to_owned(), "h1".to_owned())],
            "clock {clock}"
        );
        assert!(
            displaced_squares(&out.events).is_empty(),
            "{:?}",
            kinds(&out.events)
        );
    }
}

#[test]
fn rook_first_in_fide_the_rook_move_stands_once_made_and_the_king_is_out_of_turn() {
    // The king lifted long after the rook was set down (the rook's move
    // made, 4.6): that move stands (4.4b sends the player to 4.3a) and
    // the king's is no move of the record.
    for clock in [true, false] {
        let out = castle_rook_first(2500, clock);
        assert_eq!(
            played_uci(&out.session),
            ["h1f1"],
            "4.4b: the rook was touched first"
        );
        assert_eq!(
            touch_moves(&out.events),
            [("4.4b".to_owned(), "h1".to_owned())]
        );
        assert!(displaced_squares(&out.events).contains(&vec!["e1".to_owned(), "g1".to_owned()]));
    }
}

#[test]
fn a_rook_move_to_the_square_its_king_crosses_is_made_at_the_press_or_the_next_touch() {
    // Rf1 with O-O still legal waits a moment for a king (rook-first
    // castling); the press (6.7) makes it at once, and so does the next
    // mover's touch (1.1): the move of the press-less hand stands.
    let mut h = Hands::new(Some(CASTLE_READY), "fide-standard");
    h.wait(1000).lift_then("h1", 400).place_then("f1", 300);
    let pressed_at = h.t;
    h.clock(White).carry("a7", "a6").clock(Black);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["h1f1", "a7a6"]);
    assert_eq!(move_time(&out.events, "h1f1"), Some(pressed_at));
    assert!(support::alerts(&out.events).is_empty());

    let mut h = Hands::new(Some(CASTLE_READY), "fide-standard");
    h.wait(1000).lift_then("h1", 400).place_then("f1", 400);
    let touched_at = h.t;
    h.lift_then("a7", 300)
        .place_then("a6", 200)
        .clock_then(White, 300)
        .clock(Black);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["h1f1", "a7a6"]);
    // (At the lift as the debounce reads it, long before the wait ends.)
    let made = move_time(&out.events, "h1f1").unwrap();
    assert!(
        (touched_at..touched_at + 50).contains(&made),
        "made at {made}, touched at {touched_at}"
    );
    assert!(
        support::alerts(&out.events).is_empty(),
        "{:?}",
        kinds(&out.events)
    );
}

#[test]
fn rook_first_in_casual_play_is_castling() {
    let mut h = Hands::new(Some(CASTLE_READY), "casual");
    h.wait(1000)
        .carry("h1", "f1")
        .wait(800)
        .carry("e1", "g1")
        .clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e1g1"]);
    assert!(
        support::alerts(&out.events).is_empty(),
        "{:?}",
        kinds(&out.events)
    );
}

#[test]
fn rook_first_in_casual_play_without_a_clock_is_castling() {
    // No clock: the rook's move is completed once it settles, and the
    // king lifted then is the same hand correcting it (a takeback of the
    // rook's move, then castling), not a touch out of turn.
    let mut h = Hands::new(Some(CASTLE_READY), "casual");
    h.wait(1000)
        .carry("h1", "f1")
        .wait(800)
        .carry("e1", "g1")
        .wait(1000);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e1g1"]);
    assert!(
        support::alerts(&out.events).is_empty(),
        "{:?}",
        kinds(&out.events)
    );
    assert!(kinds(&out.events).contains(&"takeback"));
}

#[test]
fn rook_first_castling_whose_rook_move_mates_is_still_castling_in_casual_play() {
    // The rook set down on d1 alone mates (5.1a) and ends the game; the
    // king then comes to c1 beside it: the hands castled (O-O-O mates too).
    let mut h = Hands::new(Some("3k4/2p1p1N1/1N6/8/8/8/8/R3K3 w Q - 0 1"), "casual");
    h.wait(1000)
        .carry("a1", "d1")
        .wait(800)
        .carry("e1", "c1")
        .wait(1000);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e1c1"]);
    assert!(out.session.game().is_over(), "{:?}", kinds(&out.events));
    assert!(kinds(&out.events).contains(&"takeback"));
}

#[test]
fn a_piece_moved_on_after_release_is_a_breach_and_the_first_move_stands() {
    for (profile, article) in [("fide-standard", "4.7"), ("fide-2005", "4.6")] {
        let mut h = Hands::new(None, profile);
        h.wait(1000)
            .carry("g1", "f3")
            .wait(500)
            .carry("f3", "h3")
            .clock(White);
        let out = h.run();
        assert_eq!(played_uci(&out.session), ["g1f3"], "{profile}");
        assert_eq!(
            touch_moves(&out.events),
            [(article.to_owned(), "f3".to_owned())],
            "{profile}"
        );
    }
    // Casual: the move is corrected.
    let mut h = Hands::new(None, "casual");
    h.wait(1000)
        .carry("g1", "f3")
        .wait(500)
        .carry("f3", "h3")
        .clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["g1h3"]);
}

#[test]
fn pressing_the_clock_without_a_move_is_illegal_in_2023_only() {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000).clock(White);
    let out = h.run();
    let illegal: Vec<_> = out
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::IllegalMove {
                completed,
                count,
                from,
                to,
                ..
            } => Some((*completed, *count, *from, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(illegal, [(true, 1, None, None)]);

    let mut h = Hands::new(None, "fide-2005");
    h.wait(1000).clock(White);
    assert!(support::alerts(&h.run().events).is_empty());
}

#[test]
fn an_illegal_move_completed_counts_and_the_second_loses_in_2023() {
    let mut h = Hands::new(None, "fide-standard");
    // Nb1-b3 is no knight move: a warning, then the press completes it.
    h.wait(1000).carry("b1", "b3").clock(White);
    // Reinstated, then a legal move with the same knight (4.3a).
    h.carry("b3", "b1").wait(300).carry("b1", "c3").clock(White);
    // Black does the same twice.
    h.carry("g8", "g6").clock(Black);
    h.carry("g6", "g8").wait(300).carry("g8", "g5").clock(Black);
    let out = h.run();
    let ends: Vec<_> = out
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::GameOver { result, reason } => Some((result.clone(), reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(played_uci(&out.session), ["b1c3"]);
    assert_eq!(ends, [("1-0".to_owned(), "illegal_moves".to_owned())]);
}

#[test]
fn promotion_with_input_after_placement_and_default_queen() {
    let fen = "8/4P3/8/8/8/2k5/8/4K3 w - - 0 60";
    // Pawn set down on e8 first, knight chosen afterwards: under-promotion.
    let mut h = Hands::new(Some(fen), "fide-standard");
    h.wait(1000)
        .carry("e7", "e8")
        .promote(Role::Knight)
        .clock(White);
    let out = h.run();
    assert!(kinds(&out.events).contains(&"promotion_pending"));
    assert_eq!(played_uci(&out.session), ["e7e8n"]);
    // No input: the default queen at the press.
    let mut h = Hands::new(Some(fen), "fide-standard");
    h.wait(1000).carry("e7", "e8").clock(White);
    assert_eq!(played_uci(&h.run().session), ["e7e8q"]);
    // Input before the pawn is moved.
    let mut h = Hands::new(Some(fen), "fide-standard");
    h.wait(1000)
        .promote(Role::Rook)
        .carry("e7", "e8")
        .clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e7e8r"]);
    assert!(!kinds(&out.events).contains(&"promotion_pending"));
}

#[test]
fn casual_takeback_shortens_the_record() {
    let mut h = Hands::new(None, "casual");
    h.wait(1000)
        .carry("e2", "e4")
        .clock(White)
        .carry("e7", "e5")
        .clock(Black);
    h.wait(500).carry("e5", "e7");
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e2e4"]);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Takeback { ply: 1, .. }))
    );
}

#[test]
fn after_the_end_no_moves_until_the_start_is_set_up_again() {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000)
        .carry("f2", "f3")
        .clock(White)
        .carry("e7", "e5")
        .clock(Black);
    h.carry("g2", "g4")
        .clock(White)
        .carry("d8", "h4")
        .clock(Black);
    // Mate. A further move is not recorded.
    h.carry("a2", "a3");
    // Reset the board to the start position.
    h.carry("a3", "a2")
        .carry("h4", "d8")
        .carry("g4", "g2")
        .carry("e5", "e7")
        .carry("f3", "f2");
    let out = h.run();
    let k = kinds(&out.events);
    let over = k.iter().position(|x| *x == "game_over").unwrap();
    assert_eq!(&k[over..], ["game_over", "game_started"]);
    assert_eq!(out.session.game().ply(), 0);
    let restart = out
        .events
        .iter()
        .rev()
        .find(|e| e.kind.name() == "game_started")
        .unwrap();
    assert_eq!(restart.seq, 0, "seq counts within one game");
}

#[test]
fn an_illegal_move_fixed_with_a_capture_is_not_read_while_the_hand_holds_the_captured_piece() {
    // White's knight goes a7-d7 (illegal) and the clock is pressed; the
    // player then fixes it his own way: he takes Black's bishop off c8 and
    // moves the knight from d7 onto c8 (Nxc8). While the bishop is in his
    // hand the board (a7 and c8 empty, d7 busy) is also what `Nxb5 Bd7`
    // leaves, but nobody lifted the pawn on b5: no line may capture it.
    let mut h = Hands::new(
        Some("rnbqkbn1/N1p3p1/5p2/1p1pp3/1PB1P3/6PP/P1PP1P2/R1B1K1NR w KQq - 0 11"),
        "fide-standard",
    );
    h.wait(1000).carry("a7", "d7").clock(White);
    h.lift_then("c8", 400)
        .lift_then("d7", 300)
        .place_then("c8", 600);
    h.clock(White);
    h.carry("d5", "d4").clock(Black);
    let out = h.run();
    assert_eq!(
        played_uci(&out.session),
        ["a7c8", "d5d4"],
        "{:?}",
        kinds(&out.events)
    );
    let illegal: Vec<_> = out
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::IllegalMove { completed, .. } => Some(*completed),
            _ => None,
        })
        .collect();
    assert_eq!(illegal, [false, true], "{:?}", kinds(&out.events));
}

#[test]
fn a_promotion_swapped_as_its_wait_runs_out_without_a_clock_is_made() {
    // No clock: a promotion whose piece is not named becomes a queen once
    // the wait has passed with the board still. Here the player swaps the
    // pawn for a queen just as the wait runs out; the reading must not
    // wait for ever on a deadline it cannot conclude while the swap settles.
    let mut h = Hands::new(Some("k7/4P3/8/8/8/8/8/4K3 w - - 0 1"), "casual");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 1600);
    h.lift_then("e8", 100).place_then("e8", 1000);
    h.carry("a8", "a7");
    let out = h.run();
    assert_eq!(
        played_uci(&out.session),
        ["e7e8q", "a8a7"],
        "{:?}",
        kinds(&out.events)
    );
}
