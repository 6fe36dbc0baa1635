//! Two hands on the board (Article 1.1): the next mover lifts a piece
//! before the clock press, even before the last move's piece has settled;
//! and pieces brushed for a moment are not touched (4.3).
mod support;

use shakmaty::Color::{Black, White};
use shakmaty::Role;
use support::{Hands, Outcome, alerts, kinds, played_uci};
use touchmove_core::clock::TimeControl;
use touchmove_core::game::{Profile, Start};
use touchmove_core::replay::drive;
use touchmove_core::session::{Session, SessionConfig};

/// The record is these moves, with no alert.
fn read_exactly(out: &Outcome, moves: &[&str]) {
    assert_eq!(played_uci(&out.session), moves, "{:?}", kinds(&out.events));
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

#[test]
fn the_next_mover_grabs_within_the_settle_time_before_the_press() {
    let mut h = Hands::new(None, "fide-blitz");
    h.wait(1000).lift_then("e2", 200).place_then("e4", 100);
    // Black's hand is on e7 100 ms after White released e4; White presses 50 ms later.
    h.lift_then("e7", 50).clock_then(White, 250);
    h.place_then("e5", 120).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e2e4", "e7e5"]);
}

#[test]
fn the_next_mover_captures_the_piece_just_moved_before_the_press() {
    // 1. e4 d5 2. exd5 Qxd5 with Black's hand on d5 before White's press.
    let mut h = Hands::new(
        Some("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("e4", 100)
        .lift_then("d5", 60)
        .place_then("d5", 130);
    // Black lifts the white pawn on d5 to capture it; then White presses.
    h.lift_then("d5", 80).clock_then(White, 100);
    h.lift_then("d8", 200)
        .place_then("d5", 150)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e4d5", "d8d5"]);
}

#[test]
fn an_early_grab_before_the_release_is_the_next_movers_hand() {
    let mut h = Hands::new(None, "fide-blitz");
    h.wait(1000).lift_then("g1", 150);
    // Black's hand reaches g8 while White's knight is still in the air.
    h.lift_then("g8", 40)
        .place_then("f3", 300)
        .clock_then(White, 200);
    h.place_then("f6", 400).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["g1f3", "g8f6"]);
}

#[test]
fn a_brushed_piece_is_not_a_touch() {
    let mut h = Hands::new(None, "fide-standard");
    // White brushes the d2 pawn (60 ms off its square), then plays e4.
    h.wait(1000).lift_then("d2", 60).place_then("d2", 900);
    h.carry("e2", "e4").clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e2e4"]);
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

#[test]
fn a_lift_that_lasts_is_still_a_touch() {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000).lift_then("d2", 300).place_then("d2", 900);
    h.carry("e2", "e4").clock(White);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e2e4"]);
    assert_eq!(
        kinds(&out.events)
            .iter()
            .filter(|k| **k == "touch_move")
            .count(),
        1
    );
}

/// After White's e4, Black lifts d7 for `ms` just before a scan (at 19 ms
/// past a second), puts it back and plays e5; read by a board every 20 ms
/// (every reading on the 20 ms grid).
fn d7_off_between_20_ms_scans(ms: u64) -> Outcome {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1013).carry("e2", "e4").clock_then(White, 1000);
    h.wait(1019 - h.t % 1000)
        .lift_then("d7", ms)
        .place_then("d7", 900);
    h.carry("e7", "e5").clock(Black);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 20);
    h.run()
}

#[test]
fn a_brush_read_between_20_ms_scans_is_no_touch() {
    // A brush of 102 ms, off just before a scan and back just after one:
    // the board sees the square empty for 120 ms. Whether the brush lasted
    // the threshold is uncertain by a scan.
    read_exactly(&d7_off_between_20_ms_scans(102), &["e2e4", "e7e5"]);
}

#[test]
fn a_brush_whose_return_bounces_at_a_scan_is_no_touch() {
    // A board read every 10 ms (e4's bounce shows two readings 10 ms
    // apart). Black brushes d7: the square reads empty for 130 ms, of
    // which the brush may have lasted a scan less at each end (the scan
    // after its return fell in the contacts' bounce). Not surely a touch.
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000).lift_then("e2", 300).place_then("e4", 10);
    h.lift_then("e4", 10)
        .place_then("e4", 180)
        .clock_then(White, 1510);
    h.lift_then("d7", 130).place_then("d7", 900);
    h.carry("e7", "e5").clock(Black);
    read_exactly(&h.run(), &["e2e4", "e7e5"]);
}

#[test]
fn a_lift_read_between_20_ms_scans_that_surely_lasts_is_a_touch() {
    let out = d7_off_between_20_ms_scans(170);
    assert_eq!(played_uci(&out.session), ["e2e4", "e7e5"]);
    let touches = kinds(&out.events)
        .iter()
        .filter(|k| **k == "touch_move")
        .count();
    assert_eq!(touches, 1, "{:?}", kinds(&out.events));
}

#[test]
fn the_nudge_threshold_is_set_on_the_command_line() {
    // A 61 ms lift and return, then another piece moved (at times on no
    // scan grid: read to the millisecond).
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1003).lift_then("d2", 61).place_then("d2", 900);
    h.carry("e2", "e4").clock(White);
    let path = std::env::temp_dir().join(format!("touchmove-nudge-{}.trace", std::process::id()));
    std::fs::write(&path, h.trace.to_string()).unwrap();
    let touches = |extra: &[&str]| -> usize {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_touchmove"))
            .args(["replay", "--events"])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("\"type\":\"touch_move\""))
            .count()
    };
    assert_eq!(touches(&[]), 0, "a 60 ms brush is no touch by default");
    assert_eq!(
        touches(&["--nudge-ms", "40"]),
        1,
        "with 40 ms it is a touch (4.3a)"
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_reply_capturing_the_piece_just_moved_is_read_when_its_press_comes_first() {
    // 1. e4 d5 2. exd5 Qxd5: White's press is lost, and the square d5
    // never reads empty (the pawn taken and the queen set down between
    // two readings). Black's press says his move is made (6.7).
    let mut h = Hands::new(
        Some("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("e4", 100)
        .lift_then("d5", 60)
        .place_then("d5", 700);
    h.lift_then("d8", 900).clock_then(Black, 1000);
    h.carry("g1", "f3").clock(White);
    let out = h.run();
    read_exactly(&out, &["e4d5", "d8d5", "g1f3"]);
}

#[test]
fn a_missed_recapture_and_its_answer_are_read_at_the_answers_press() {
    // 4. Bxc6 dxc6 5. Nxe5: Black's recapture on c6 is never seen on c6
    // (the square stays occupied) and his press is lost; White answers by
    // taking on e5 and presses. The press tells the two plies (6.7): the
    // lifted d-pawn is not a hand still at work, and Black's next move is
    // no illegal move.
    let mut h = Hands::new(
        Some("r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("b5", 100)
        .lift_then("c6", 60)
        .place_then("c6", 300)
        .clock_then(White, 1200);
    h.lift_then("d7", 1500);
    h.lift_then("f3", 100)
        .lift_then("e5", 60)
        .place_then("e5", 400)
        .clock_then(White, 1500);
    h.carry("d8", "d4").clock(Black);
    let out = h.run();
    read_exactly(&out, &["b5c6", "d7c6", "f3e5", "d8d4"]);
}

#[test]
fn a_capture_the_sensors_missed_is_read_when_the_opponent_answers() {
    // 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5, then 4. Nxe5 made while the sensors
    // were not read: the board only shows f3 empty (e5 stayed occupied).
    // Four seconds later Black answers 4... Qf6, a square the knight could
    // not have reached had it still been in the hand.
    let mut h = Hands::new(
        Some("r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
        "fide-standard",
    );
    h.wait(1000).lift_then("f3", 4000);
    h.lift_then("d8", 400)
        .place_then("f6", 600)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["f3e5", "d8f6"]);
    assert_eq!(
        inferred(&out),
        [true, false],
        "the missed capture is marked inferred"
    );
}

#[test]
fn an_early_grab_by_a_piece_that_could_have_moved_there_waits_for_evidence() {
    // Black to move: the queen on b8 may take the bishop on c8 or go to b6,
    // and White's knight on a4 may go to b6 either way.
    let mut h = Hands::new(Some("1qB3k1/8/8/8/N7/8/8/6K1 b - - 0 1"), "fide-standard");
    // b8 empties (Qxc8 while the sensors were not read: c8 stays
    // occupied); White's knight rises before anything lands, then a piece
    // lands on b6 and White presses. Qxc8 Nb6 or Qb6 Nxb6: both explain it.
    h.wait(1000).lift_then("b8", 450).lift_then("a4", 1450);
    h.place_then("b6", 800).clock_then(White, 1500);
    let open = played_uci(&h.run().session);
    assert!(open.is_empty(), "recorded {open:?} before the board told");
    // Black's next move is the queen's from c8: only Qxc8 Nb6 allows it.
    h.lift_then("c8", 400)
        .place_then("a6", 600)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["b8c8", "a4b6", "c8a6"]);
    assert!(
        kinds(&out.events).contains(&"candidates"),
        "the open lines were told"
    );
}

#[test]
fn a_bullet_capture_begun_before_the_release_is_the_next_movers_hand() {
    // 19... Qc6 20. Bxd8: White takes the d8 rook off and lifts his bishop
    // while Black's queen is still in the air; Black presses as it lands.
    let mut h = Hands::new(
        Some("3r1rk1/2q1bppp/pB1ppnb1/8/1p3P2/1B2Q3/PPPN2PP/1K1R3R b - - 3 19"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("c7", 300)
        .lift_then("d8", 30)
        .lift_then("b6", 160)
        .place_then("c6", 100)
        .clock_then(Black, 150);
    h.place_then("d8", 200).clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["c7c6", "b6d8"]);
}

#[test]
fn the_piece_just_moved_lifted_again_at_once_is_no_touch_accusation() {
    // 2. e4, and 120 ms after the pawn is let go it is off e4 again, back
    // 350 ms later: the mover adjusting it or the opponent reaching for
    // it, the board cannot tell whose hand it was. Black then plays Nf6
    // instead of dxe4: no 4.3b accusation (certainty first).
    let mut h = Hands::new(
        Some("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2"),
        "fide-standard",
    );
    h.wait(1000).lift_then("e2", 400).place_then("e4", 120);
    h.lift_then("e4", 50).clock_then(White, 300);
    h.place_then("e4", 2000);
    h.lift_then("g8", 400)
        .place_then("f6", 600)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e2e4", "g8f6"]);
}

/// A sliding piece's magnet closes the switch of the square it reaches a
/// moment before it opens the one it leaves.
#[test]
fn a_capture_slid_in_with_both_squares_closed_is_read_under_the_next_movers_grab() {
    let mut h = Hands::new(
        Some("2b1k3/p2q1p2/Pr6/1p1p4/2Pb1B2/8/P5K1/5BNR b - - 0 28"),
        "fide-blitz",
    );
    // Black takes the c4 pawn off, slides his d5 pawn onto c4 (c4 reads
    // busy 12 ms before d5 reads empty); White grabs a2 before the press.
    h.wait(1000).lift_then("c4", 245).place_then("c4", 12);
    h.lift_then("d5", 290)
        .lift_then("a2", 285)
        .clock_then(Black, 30);
    h.place_then("a4", 170).clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["d5c4", "a2a4"]);
}

#[test]
fn a_rook_slid_with_both_squares_closed_then_the_next_mover_takes_a_pawn_first() {
    let mut h = Hands::new(
        Some("7r/5k2/3b4/p2P1b1P/P4p2/8/4N3/R1B1K1NR b - - 0 33"),
        "fide-blitz",
    );
    // Rg8 slid (g8 busy 13 ms before h8 empties); White takes the f4 pawn
    // off 160 ms later, lifts his knight, Black presses, Nxf4 set down.
    h.wait(1000).place_then("g8", 13).lift_then("h8", 161);
    h.lift_then("f4", 277)
        .lift_then("e2", 31)
        .clock_then(Black, 340);
    h.place_then("f4", 400).clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["h8g8", "e2f4"]);
}

#[test]
fn a_piece_lifted_off_the_line_between_two_squares_is_one_hand_not_a_jump() {
    let mut h = Hands::new(
        Some("8/3r3k/2q1Nn2/1p2p3/4P3/8/8/4K3 w - - 6 36"),
        "fide-standard",
    );
    // The knight slides from e6 towards f5, closing both switches, and is
    // lifted from there (both empty in one scan), then set down on g5.
    h.wait(1000)
        .place_then("f5", 13)
        .lift_together(&["e6", "f5"], 340);
    h.place_then("g5", 900).clock(White);
    h.carry("h7", "h8").clock(Black);
    let out = h.run();
    read_exactly(&out, &["e6g5", "h7h8"]);
}

#[test]
fn a_piece_of_the_mover_taken_off_after_his_release_is_no_touch_of_his() {
    let mut h = Hands::new(
        Some("2k2bnr/1R6/3r1p1p/5P2/P5NP/2p2Bp1/1B6/5RK1 w - - 0 27"),
        "fide-blitz",
    );
    // White plays Ne3; 116 ms after the knight lands Black takes the b2
    // bishop off (to capture it) and slides his c3 pawn onto b2 (b2 busy
    // 14 ms before c3 empties), all before White's press. The bishop off
    // and a piece back on b2 is not White touching his bishop (4.3a).
    h.wait(1000).lift_then("g4", 291).place_then("e3", 116);
    h.lift_then("b2", 145)
        .place_then("b2", 14)
        .lift_then("c3", 23);
    h.clock_then(White, 50).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["g4e3", "c3b2"]);
}

#[test]
fn a_blip_under_a_piece_in_the_air_is_no_capture() {
    let mut h = Hands::new(
        Some("r4b2/1bQ5/5k2/8/1r6/7p/n6P/5K2 w - - 0 37"),
        "fide-blitz",
    );
    // White brushes the b7 bishop while thinking (42 ms, no touch). The
    // queen leaves c7; 57 ms later interference opens b7's switch for one
    // 4 ms reading (the bishop never moved), and the queen lands on c1 243
    // ms after that, longer than the settle time. Qxb7 fits the board while
    // the queen is in the air, but nobody took the bishop.
    h.wait(1000).lift_then("b7", 42).place_then("b7", 5000);
    h.lift_then("c7", 57)
        .lift_then("b7", 4)
        .place_then("b7", 243)
        .place_then("c1", 600)
        .clock_then(White, 300);
    h.carry("f6", "e6").clock(Black);
    let out = h.run();
    read_exactly(&out, &["c7c1", "f6e6"]);
}

#[test]
fn the_next_mover_takes_the_piece_just_moved_before_the_turn_is_read() {
    let mut h = Hands::new(
        Some("1rbn1rk1/4nppp/p2q4/1p1p4/PPpP4/2P2NN1/4BPPP/RQ2R1K1 w - - 1 18"),
        "fide-blitz",
    );
    // axb5: the b5 pawn off, White's pawn set down on b5. 122 ms later Black
    // takes it off to recapture, before anything has settled, and slides
    // his a6 pawn on (b5 busy 14 ms before a6 empties). White presses and
    // lifts his e2 bishop while Black's hand goes to the clock: that bishop
    // is in the air, not a capture on c4 that nobody saw.
    h.wait(1000)
        .lift_then("a4", 59)
        .lift_then("b5", 53)
        .place_then("b5", 122)
        .lift_then("b5", 157)
        .place_then("b5", 14)
        .lift_then("a6", 55)
        .clock_then(White, 141)
        .lift_then("e2", 153)
        .clock_then(Black, 142)
        .place_then("d1", 142)
        .clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["a4b5", "a6b5", "e2d1"]);
}

#[test]
fn a_rook_brushing_the_square_the_king_left_is_no_rook_first_castling() {
    let mut h = Hands::new(
        Some("r1bqk2r/p2nbppp/2p1p3/2ppP3/2P5/3P1N2/PP3PPP/RNBQ1RK1 w kq - 1 9"),
        "fide-blitz",
    );
    // Nc3; Black lifts his king before White's press and sets it on g8,
    // then carries the rook from h8 to f8, brushing e8 on the way (39 ms).
    // The king was touched first: no breach of 4.4b.
    h.wait(1000).lift_then("b1", 285).place_then("c3", 126);
    h.lift_then("e8", 18).clock_then(White, 137);
    h.place_then("g8", 24)
        .lift_then("h8", 107)
        .place_then("e8", 39)
        .lift_then("e8", 32)
        .place_then("f8", 208)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["b1c3", "e8g8"]);
}

#[test]
fn a_pawn_swapped_for_its_new_piece_is_no_touch_of_the_next_mover() {
    let mut h = Hands::new(
        Some("rnbqkbnr/P1pp3p/6p1/2P5/5p2/3p4/1P2PPPP/RNBQKBNR w KQkq - 0 9"),
        "fide-blitz",
    );
    // axb8=Q: the pawn pushes the knight off b8, is taken off again a
    // second later and the queen set down (3.7e). Black takes the e2 pawn
    // off before White's press and plays dxe2. The pawn swapped off b8 is
    // White's hand, not Black touching the queen (4.3b).
    h.wait(1000)
        .lift_then("a7", 293)
        .lift_then("b8", 27)
        .place_then("b8", 998)
        .lift_then("b8", 1327)
        .place_then("b8", 159);
    h.lift_then("e2", 41).clock_then(White, 17);
    h.lift_then("d3", 232)
        .place_then("e2", 351)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["a7b8q", "d3e2"]);
}

#[test]
fn a_piece_leaving_its_square_as_the_press_comes_is_the_next_movers_hand() {
    let mut h = Hands::new(
        Some("6k1/p3bpp1/4p1n1/2p1P2p/2q4P/2B2NP1/PP3P2/3Q1K2 w - - 3 27"),
        "fide-blitz",
    );
    // Kg1; Black's queen slides c4–g4, closing d4 before c4 opens, and
    // c4's contacts bounce through the very moment White presses.
    h.wait(1000).lift_then("f1", 194).place_then("g1", 148);
    h.place_then("d4", 12)
        .lift_then("c4", 2)
        .place_then("c4", 1)
        .clock_then(White, 1)
        .lift_then("c4", 3)
        .lift_then("d4", 18)
        .place_then("e4", 24)
        .lift_then("e4", 13)
        .place_then("f4", 31)
        .lift_then("f4", 24)
        .place_then("g4", 460)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["f1g1", "c4g4"]);
}

#[test]
fn a_capture_pushed_off_before_the_opponents_press_is_read_at_its_own_press() {
    let mut h = Hands::new(
        Some("r1bqkb1r/pp2pp1p/2np1np1/8/2PNP3/2N2P2/PP4PP/R1BQKB1R b KQkq - 0 7"),
        "fide-blitz",
    );
    // Nxd4; before Black's press White's queen slides d1–d4 (d2 closing
    // before d1 opens) and pushes the knight off d4, whose contacts only
    // bounce. Black presses, lifts his f8 bishop; White presses; Bg7.
    h.wait(1000)
        .lift_then("c6", 37)
        .lift_then("d4", 46)
        .place_then("d4", 154);
    h.place_then("d2", 4)
        .lift_then("d1", 25)
        .lift_then("d2", 30)
        .place_then("d3", 35)
        .lift_then("d3", 44);
    for _ in 0..4 {
        h.lift_then("d4", 2).place_then("d4", 2);
    }
    h.clock_then(Black, 116)
        .lift_then("f8", 151)
        .clock_then(White, 3)
        .place_then("g7", 128)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["c6d4", "d1d4", "f8g7"]);
}

#[test]
fn a_square_reached_by_the_next_movers_slide_before_his_piece_leaves_is_no_move_of_the_mover() {
    let mut h = Hands::new(
        Some("8/p4p1k/1p2pPbp/3pP1p1/3P4/1P2PB1P/P3Q1K1/2q5 b - - 3 38"),
        "fide-blitz",
    );
    // Qc2. White takes the queen off c2 140 ms after it lands and slides
    // his e2 queen over d2 to c2: d2 closes 15 ms before e2 opens, so for a
    // moment the board shows Black's queen on d2 (Qd2) — which it never was.
    h.wait(1000).lift_then("c1", 237).place_then("c2", 140);
    h.lift_then("c2", 70)
        .place_then("d2", 15)
        .lift_then("e2", 50)
        .lift_then("d2", 43)
        .clock_then(Black, 1)
        .place_then("c2", 333)
        .clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["c1c2", "e2c2"]);
}

#[test]
fn a_knight_slid_onto_the_square_beside_it_before_it_leaves_is_no_move_of_the_mover() {
    let mut h = Hands::new(
        Some("4r1k1/pb4pp/6q1/1Pp2p2/P1P3n1/5N2/1Q4PP/4RBK1 b - - 5 28"),
        "fide-blitz",
    );
    // Rxe1+: the e1 rook off, the e8 rook slid down the file onto e1.
    h.wait(1000).lift_then("e1", 42).lift_then("e8", 24);
    for (on, off) in [("e7", 33), ("e6", 27), ("e5", 20), ("e4", 12), ("e3", 19)] {
        h.place_then(on, off).lift_then(on, 20);
    }
    h.place_then("e2", 28)
        .lift_then("e2", 26)
        .place_then("e1", 137);
    // Nxe1 before Black's press: the knight slides f3–e3–e2–e1, closing e3
    // 4 ms before f3 opens — for a moment the board shows Re3, which was
    // never played — and takes the rook on e1.
    h.place_then("e3", 4)
        .lift_then("f3", 24)
        .lift_then("e3", 19)
        .place_then("e2", 14)
        .lift_then("e2", 33)
        .lift_then("e1", 33)
        .place_then("e1", 125)
        .clock_then(Black, 127)
        .clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["e8e1", "f3e1"]);
}

#[test]
fn a_capture_quicker_than_a_scan_is_read_at_the_press_under_the_next_movers_grab() {
    // 2. exd5: the pawn on d5 taken off and White's set down between two
    // scans, so d5 never reads empty; Black grabs his knight before
    // White's press. White's piece is gone from e4 and nowhere new: with
    // his hand on the clock (6.7) it took on d5.
    let mut h = Hands::new(
        Some("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        "fide-blitz",
    );
    h.wait(1000).lift_then("e4", 230);
    h.lift_then("g8", 60).clock_then(White, 300);
    h.place_then("f6", 150).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e4d5", "g8f6"]);
}

#[test]
fn the_next_movers_slide_reaching_the_next_square_before_the_press_is_his() {
    // White's e4 is released; Black slides his rook from e8 to a8, and its
    // magnet closes d8 while e8 still reads occupied: White presses at that
    // very moment, before anything of Black's reads lifted.
    let mut h = Hands::new(Some("4r2k/8/8/8/8/8/4P3/4K3 w - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("e2", 250).place_then("e4", 140);
    h.place_then("d8", 11)
        .clock_then(White, 2)
        .lift_then("e8", 40);
    h.place_then("c8", 5).lift_then("d8", 40);
    h.place_then("b8", 5).lift_then("c8", 40);
    h.place_then("a8", 5)
        .lift_then("b8", 300)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e2e4", "e8a8"]);
}

#[test]
fn two_captures_quicker_than_a_scan_stay_open_until_the_piece_moves_on() {
    // Black's rook leaves a5 and takes on a3 or on d5 between two scans
    // (neither square ever reads empty); White grabs his king before
    // Black's press. Either capture explains the board: the lines stay
    // open, the king's move is read under both, and the rook's next move
    // (from a3) tells which.
    let mut h = Hands::new(Some("4k3/8/8/r2P4/8/N7/8/4K3 b - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("a5", 250);
    h.lift_then("e1", 60).clock_then(Black, 200);
    h.place_then("d1", 300).clock_then(White, 500);
    h.lift_then("a3", 250)
        .place_then("a2", 300)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["a5a3", "e1d1", "a3a2"]);
}

#[test]
fn of_captures_quicker_than_a_scan_the_square_that_opened_for_a_moment_is_taken() {
    // White's queen on c7 may take on c4, h2 or h7, and no square reads
    // empty long enough to settle; h2 opens for 4 ms as the bishop is
    // swapped for the queen. Black grabs his king before White's press.
    let mut h = Hands::new(Some("4k3/2Q4p/8/8/2b5/8/7b/4K3 w - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("c7", 250);
    h.lift_then("h2", 4).place_then("h2", 200);
    h.lift_then("e8", 60).clock_then(White, 300);
    h.place_then("d8", 150).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["c7h2", "e8d8"]);
}

#[test]
fn the_next_movers_piece_in_the_air_at_the_press_has_taken_nothing_yet() {
    // Black's king takes the rook on c6 between two scans; White grabs his
    // bishop, which could take on g3, before Black's press. White has not
    // pressed: his bishop is still in the air, not a capture on g3 that
    // the sensors missed. It goes to d2.
    let mut h = Hands::new(Some("8/8/2Rk4/8/8/6p1/8/4B1K1 b - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("d6", 250);
    h.lift_then("e1", 60).clock_then(Black, 300);
    h.place_then("d2", 150).clock_then(White, 1000);
    let out = h.run();
    read_exactly(&out, &["d6c6", "e1d2"]);
}

#[test]
fn a_slide_whose_first_step_reads_in_one_scan_is_a_piece_in_the_hand_not_a_jump() {
    // Black's rook slides from c3 to h3: c3 opens and d3 closes in one
    // scan, then the rook passes over e3, f3 and g3. With c3 alone empty
    // the board also equals four plies the sensors could have missed
    // (the rook taking on a6 while the bishop goes away and back): the
    // rook in the hand is read, not those.
    let mut h = Hands::new(Some("6k1/6PR/R7/5B2/6K1/2r5/8/8 b - - 5 51"), "fide-blitz");
    h.wait(1000)
        .lift_then("c3", 0)
        .place_then("d3", 20)
        .lift_then("d3", 240);
    for sq in ["e3", "f3", "g3"] {
        h.place_then(sq, 50).lift_then(sq, 230);
    }
    h.place_then("h3", 1200).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["c3h3"]);
}

/// A promotion with its new piece still in the mover's hand or on its
/// way: White's pawn on e7, Black's king far away and his rook on h2, so
/// that no new piece gives check and Black's reply is the same under each.
const PROMOTION: &str = "8/4P3/8/k7/8/8/7r/4K3 w - - 0 1";

/// Whether each `move` event was inferred (plies the sensors missed) rather
/// than read from the hands, in order.
fn inferred(out: &Outcome) -> Vec<bool> {
    out.events
        .iter()
        .filter_map(|e| match &e.kind {
            touchmove_core::events::EventKind::Move { inferred, .. } => Some(*inferred),
            _ => None,
        })
        .collect()
}

/// The plies' `move_completed` events, in order.
fn completed(out: &Outcome) -> Vec<usize> {
    support::completed_plies(&out.events)
}

#[test]
fn a_promotion_named_after_the_next_movers_grab_is_the_piece_named() {
    // e8=N: Black grabs his rook 200 ms after the new piece is set down
    // (the move is made, 1.1 and 4.6), the knight is named 100 ms later
    // (3.7e), then White presses (6.7). The record waited for the name.
    let mut h = Hands::new(Some(PROMOTION), "fide-blitz");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 200);
    h.lift_then("h2", 100).promote(Role::Knight);
    h.clock_then(White, 300).place_then("h7", 300);
    h.clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e7e8n", "h2h7"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn a_promotion_named_after_the_movers_press_is_the_piece_named() {
    // e8=R, pressed before it is named; Black then plays Rh7. The press
    // completes the move (6.7) once it is recorded, and its clock reading
    // is the ply's.
    let mut h = Hands::new(Some(PROMOTION), "fide-blitz");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 250);
    h.clock_then(White, 150).promote(Role::Rook);
    h.lift_then("h2", 300).place_then("h7", 300);
    h.clock_then(Black, 1000);
    let mut session = Session::new(
        SessionConfig {
            profile: "fide-blitz".parse::<Profile>().unwrap(),
            start: Start::from_fen(PROMOTION).unwrap(),
            time_control: Some(TimeControl::parse_human("3+2").unwrap()),
            ..SessionConfig::default()
        },
        None,
    );
    let events = drive(&mut session, &h.trace, "hands").unwrap();
    let out = Outcome { events, session };
    read_exactly(&out, &["e7e8r", "h2h7"]);
    assert_eq!(completed(&out), [1, 2]);
    let first = &out.session.game().moves()[0];
    // 3 minutes, 1,550 ms used, 2 s added at the press.
    assert_eq!(first.clock_ms, Some(180_000 - 1_550 + 2_000));
}

#[test]
fn a_promoted_piece_taken_before_it_is_named_is_the_piece_named() {
    // e8=B, and Black's rook on h8 takes it at once: his hand lifts the
    // new piece 150 ms after it was set down, White presses, the bishop
    // is named 60 ms later, and the rook lands on e8.
    let mut h = Hands::new(Some("7r/4P3/8/k7/8/8/8/4K3 w - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 150);
    h.lift_then("e8", 60)
        .clock_then(White, 60)
        .promote(Role::Bishop);
    h.lift_then("h8", 250).place_then("e8", 300);
    h.clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e7e8b", "h8e8"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn a_promotion_never_named_is_a_queen_once_the_next_move_stands() {
    // No name comes: the queen (3.7e) is recorded when Black's rook is
    // set down, and Black's move is read under it.
    let mut h = Hands::new(Some(PROMOTION), "fide-blitz");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 200);
    h.lift_then("h2", 100).clock_then(White, 300);
    h.place_then("h7", 300).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["e7e8q", "h2h7"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn without_a_clock_a_promotion_named_after_the_opponents_touch_is_the_piece_named() {
    // No clock (the move is completed when the board settles): Black
    // lifts his rook 200 ms after the new piece is set down, and the
    // knight is named 100 ms later.
    let mut h = Hands::new(Some(PROMOTION), "casual");
    h.wait(1000).lift_then("e7", 300).place_then("e8", 200);
    h.lift_then("h2", 100).promote(Role::Knight);
    h.wait(300).place_then("h7", 1000);
    let out = h.run();
    read_exactly(&out, &["e7e8n", "h2h7"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn without_a_clock_a_promoted_piece_taken_off_before_the_opponents_piece_is_captured() {
    // No clock, the new piece unnamed: Black sets his pawn down on e1 and
    // swaps it for the new piece; White first takes that piece off
    // (captured first), then lifts his king and sets it on e1. The hand
    // holding the new piece leaves the promotion on the board, and the
    // king's lift makes it (1.1, 4.6): Kxe1 is read, the record goes on.
    let mut h = Hands::new(Some("8/8/4k3/8/8/8/P2Kp3/8 b - - 0 1"), "fide-standard");
    h.wait(1000).lift_then("e2", 300).place_then("e1", 550);
    h.lift_then("e1", 2100).place_then("e1", 1140);
    h.lift_then("e1", 230)
        .lift_then("d2", 360)
        .place_then("e1", 3000);
    let out = h.run();
    read_exactly(&out, &["e2e1q", "d2e1"]);
    assert_eq!(inferred(&out), [false; 2], "every move read from the hands");
}

#[test]
fn a_capture_slid_in_while_the_square_it_leaves_still_bounces_is_a_capture() {
    // Black's king slides from d8 onto c7 (the queen there taken off
    // first): its magnet closes c7 50 ms before d8 opens, and d8's
    // contacts bounce for 10 ms as it leaves. The lift began at the first
    // toggle, within a slide's overlap of the arrival.
    let mut h = Hands::new(Some("3k4/2Q5/8/8/8/8/P7/4K3 b - - 0 1"), "fide-standard");
    h.wait(1000).lift_then("c7", 1000);
    h.place_then("c7", 48).lift_then("d8", 3);
    h.place_then("d8", 3).lift_then("d8", 3);
    h.place_then("d8", 3).lift_then("d8", 2000);
    h.lift_then("a2", 300).place_then("a3", 2000);
    let out = h.run();
    read_exactly(&out, &["d8c7", "a2a3"]);
    assert_eq!(inferred(&out), [false; 2], "every move read from the hands");
}

#[test]
fn a_name_long_after_the_promotion_while_the_opponents_pawn_is_in_the_air_is_his() {
    // White promotes on h8 and presses; the new piece is never named (a
    // queen). Black, his pawn on b2 already in his hand, names a rook a
    // second after White's piece stood, then sets b1=R down (3.7e).
    let mut h = Hands::new(Some("8/r6P/2k5/8/8/8/1p6/4K3 w - - 0 1"), "fide-blitz");
    h.wait(1000).lift_then("h7", 300).place_then("h8", 200);
    h.clock_then(White, 150).lift_then("b2", 800);
    h.promote(Role::Rook);
    h.wait(300).place_then("b1", 300).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["h7h8q", "b2b1r"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn a_pawn_slid_onto_the_last_rank_then_swapped_leaves_the_next_turn_its_own() {
    // c8=Q: the pawn slides from c7, its magnet closing c8 15 ms before c7
    // opens; it is swapped for a queen (3.7e). Black grabs his queen 120 ms
    // after the new piece stood, White presses; Black's Qe8 stands 110 ms
    // before White takes it (1.1) and lifts his queen, Black presses with
    // nothing in his hand. The promotion's own lifts (c7, the pawn off c8)
    // are no hands of Black's turn.
    let mut h = Hands::new(Some("5q2/2P2k2/8/8/8/8/8/4K3 w - - 0 1"), "fide-blitz");
    h.wait(1000).place_then("c8", 15).lift_then("c7", 1000);
    h.lift_then("c8", 500).promote(Role::Queen);
    h.wait(500).place_then("c8", 120);
    h.lift_then("f8", 170).clock_then(White, 5);
    h.place_then("e8", 110)
        .lift_then("e8", 30)
        .lift_then("c8", 70);
    h.clock_then(Black, 150).place_then("e8", 120);
    h.lift_then("f7", 100).clock_then(White, 200);
    h.lift_then("e8", 150)
        .place_then("e8", 200)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["c7c8q", "f8e8", "c8e8", "f7e8"]);
    assert_eq!(completed(&out), [1, 2, 3, 4]);
}

#[test]
fn a_knight_sliding_past_the_square_beside_it_as_the_opponent_presses_is_no_move_of_his() {
    // Black's Kc5 stands 150 ms; White's knight, slid from a1 towards c2,
    // closes b1 12 ms before Black's press and only then leaves a1. The
    // knight cannot move to b1, but it passes over it (1.1: White's hand
    // at work while Black's is on the clock, 6.7).
    let mut h = Hands::new(Some("8/4n1P1/8/3k4/3p4/3K4/p7/N7 b - - 9 60"), "fide-blitz");
    h.wait(1000).lift_then("d5", 200).place_then("c5", 150);
    h.place_then("b1", 12).clock_then(Black, 3);
    h.lift_then("a1", 20)
        .lift_then("b1", 15)
        .place_then("c2", 300);
    h.clock_then(White, 300)
        .lift_then("e7", 200)
        .place_then("g8", 300);
    h.clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["d5c5", "a1c2", "e7g8"]);
    assert_eq!(inferred(&out), [false; 3], "every move read from the hands");
}

#[test]
fn plies_read_again_in_one_line_go_in_the_order_the_hands_made_them() {
    // A coin set down on h4 as Black's king reaches c5: nothing explains
    // the board until it is taken off, three plies later (no knight's
    // walk to h4 nobody saw: the knight was seen leaving e7 only after
    // the coin stood). Black's two moves reach one position in either
    // order; the hands were seen: the king went first.
    let mut h = Hands::new(Some("8/4n1P1/8/3k4/3p4/3K4/p7/N7 b - - 9 60"), "fide-blitz");
    h.wait(1000).lift_then("d5", 200).place_then("c5", 100);
    h.place_then("h4", 400).clock_then(Black, 500);
    h.lift_then("a1", 200)
        .place_then("c2", 300)
        .clock_then(White, 500);
    h.lift_then("e7", 200)
        .place_then("g8", 300)
        .clock_then(Black, 500);
    h.lift_then("h4", 1000);
    h.lift_then("c2", 200)
        .place_then("a1", 300)
        .clock_then(White, 1000);
    let out = h.run();
    assert_eq!(
        played_uci(&out.session),
        ["d5c5", "a1c2", "e7g8", "c2a1"],
        "{:?}",
        kinds(&out.events)
    );
}

#[test]
fn a_promotion_completed_before_its_name_lets_the_next_grab_release_the_reply() {
    // b1=Q, never named: the new piece stands and White takes on d6 at
    // once (107 ms), his rook slid up the file; Black presses while it
    // slides (the promotion completed, 6.7, its piece still a queen by
    // default, 3.7e). Black grabs his new queen 100 ms after the rook
    // stood and before White's press: White's move was made (1.1, 4.6).
    let mut h = Hands::new(
        Some("3q4/2p2k1n/n2p2p1/5r1p/7P/6QP/1p2K3/3R4 b - - 3 30"),
        "fide-blitz",
    );
    h.wait(1000).lift_then("b2", 177).place_then("b1", 912);
    h.lift_then("b1", 600).place_then("b1", 107);
    h.lift_then("d6", 72).place_then("d2", 3).lift_then("d1", 9);
    h.lift_then("d2", 39)
        .clock_then(Black, 143)
        .place_then("d6", 100);
    h.lift_then("b1", 114).clock_then(White, 170);
    h.place_then("e1", 200).clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["b2b1q", "d1d6", "b1e1"]);
    assert_eq!(completed(&out), [1, 2, 3]);
}

#[test]
fn a_step_read_in_one_scan_and_made_at_the_press_is_no_jump_later() {
    // Read every 10 ms. Black's f7-f6 reads in one scan (the pawn slid
    // onto the next square); White's hand is already at work when Black
    // presses, so the press makes it. White's d4 stands; Black grabs his
    // b-pawn 120 ms later: d4 is made (1.1), not a line of four plies
    // explaining a board that jumped long before.
    let mut h = Hands::new(
        Some("rnbqkbnr/pppppppp/8/8/P7/8/1PPPPPPP/RNBQKBNR b KQkq - 0 1"),
        "fide-blitz",
    );
    h.wait(3055).place_then("f6", 3).lift_then("f7", 152);
    h.lift_then("d2", 40)
        .place_then("d3", 20)
        .lift_then("d3", 55);
    h.clock_then(Black, 5).place_then("d4", 120);
    h.lift_then("b7", 210)
        .place_then("b5", 57)
        .clock_then(White, 93);
    h.lift_then("b5", 40).lift_then("a4", 187);
    h.clock_then(Black, 3)
        .place_then("b5", 300)
        .clock_then(White, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["f7f6", "d2d4", "b7b5", "a4b5"]);
    assert_eq!(inferred(&out), [false; 4], "every move read from the hands");
}

#[test]
fn a_press_while_lines_are_open_reads_the_move_under_the_next_movers_grab() {
    // bxc5 or bxa5, quicker than a scan (neither square reads empty): two
    // lines stay open. Three plies later Black's Bxh6 is quicker than a
    // scan too, and White grabs his bishop 4 ms before Black's press: the
    // press reads Black's capture under each line (6.7, 1.1), as it would
    // on the record. Black's a5-a4 then tells the lines apart.
    let mut h = Hands::new(
        Some("rnbqkb1r/4pp1p/6pP/ppp5/1PPp4/3P4/P3PP1P/RNBQKBNR w KQkq - 0 8"),
        "fide-blitz",
    );
    h.wait(1000).lift_then("b4", 370).lift_then("a8", 41);
    h.clock_then(White, 250)
        .place_then("a7", 72)
        .clock_then(Black, 70);
    h.lift_then("f2", 300)
        .place_then("f3", 100)
        .clock_then(White, 200);
    h.lift_then("f8", 450)
        .lift_then("c1", 4)
        .clock_then(Black, 250);
    h.lift_then("h6", 20)
        .place_then("h6", 180)
        .clock_then(White, 200);
    h.lift_then("a5", 200)
        .place_then("a4", 100)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["b4c5", "a8a7", "f2f3", "f8h6", "c1h6", "a5a4"]);
}

#[test]
fn a_glitch_under_the_next_movers_king_releases_no_promotion() {
    // e8: the pawn stands on the last rank; Black's king square opens for
    // one 10 ms reading (a glitch, or a brush): no grab, so the promotion
    // is not made by it. The pawn is then swapped for a rook, named
    // (3.7e), and Black takes it.
    let mut h = Hands::new(
        Some("1k5r/4Pp1p/5n1b/pPpp4/7p/1P1P1P2/8/R1BK3R w - - 1 27"),
        "fide-blitz",
    );
    h.wait(1000).lift_then("e7", 220).place_then("e8", 240);
    h.lift_then("b8", 10).place_then("b8", 330);
    h.lift_then("e8", 1490).promote(Role::Rook);
    h.wait(120).place_then("e8", 130).clock_then(White, 40);
    h.lift_then("h8", 240)
        .lift_then("e8", 40)
        .place_then("e8", 120);
    h.clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["e7e8r", "h8e8"]);
}

#[test]
fn a_piece_sliding_on_as_the_opponent_presses_while_lines_are_open_is_no_move_yet() {
    // bxa3 or bxc3, quicker than a scan: two lines stay open. Nf3 and
    // ...a6 follow, and Black presses as White's queen, sliding d1-c2-b3,
    // stands on c2 for 50 ms: the press reads no queen move to c2 under
    // the lines (she slides on; once read, her arrival on b3 was a second
    // move and every line died), and Qb3 is read when she stands. ...c2
    // then tells the lines apart.
    let mut h = Hands::new(
        Some("rnbqkbnr/p2ppppp/8/8/1p6/P1P5/1P1PPPPP/RNBQKBNR b KQkq - 0 4"),
        "fide-blitz",
    );
    h.wait(1000).lift_then("b4", 370).clock_then(Black, 300);
    h.lift_then("g1", 200)
        .place_then("f3", 150)
        .clock_then(White, 300);
    h.lift_then("a7", 200)
        .place_then("a6", 190)
        .lift_then("d1", 40)
        .place_then("c2", 50)
        .clock_then(Black, 20)
        .lift_then("c2", 120)
        .place_then("b3", 200)
        .clock_then(White, 300);
    h.lift_then("c3", 100)
        .place_then("c2", 200)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["b4c3", "g1f3", "a7a6", "d1b3", "c3c2"]);
    // Under no line was the queen's passing over c2 a move.
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(&e.kind, touchmove_core::events::EventKind::Candidates { lines } if lines.iter().any(|l| l.contains("d1c2")))),
        "a line read the slide's first square as a move"
    );
}

#[test]
fn a_lift_read_with_a_blip_elsewhere_is_a_hand_not_a_jump() {
    // White's rook leaves h3 in the same 10 ms reading as a blip on e3
    // (its pawn reads gone for one reading). The blip is no piece moved
    // while the sensors were unread: Rh2 is a move of the hands, and
    // Black's grab of his knight 150 ms after it stands releases it
    // (1.1, 4.6). Before, the reading counted as a jump, lines of missed
    // plies were opened, and an illegal move was alerted.
    let mut h = Hands::new(
        Some("r1bqkb1r/1pp3pp/2n5/1p1pNp1P/1Q6/3Pp1PR/P1P1PP2/RN2KB2 w Qkq - 0 15"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_together(&["e3", "h3"], 10)
        .place_then("e3", 270)
        .place_then("h2", 150)
        .lift_then("c6", 320)
        .clock_then(White, 70)
        .place_then("b8", 540)
        .clock_then(Black, 450);
    h.lift_then("a2", 300)
        .place_then("a3", 450)
        .clock_then(White, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["h3h2", "c6b8", "a2a3"]);
}

#[test]
fn a_pawn_taken_en_passant_before_the_press_was_a_double_step() {
    // ...d5, set down for 115 ms, taken en passant by White's hand before
    // Black presses (two hands, 1.1): the board reads as ...d6 cxd6 too
    // (one position), but the hands set a pawn on d5, not on d6.
    let mut h = Hands::new(
        Some("rnbqkb1r/2pp1p2/5n2/p1P1P1p1/8/1P5P/1P2PPBK/RNBQ1R2 b kq - 0 12"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("d7", 133)
        .place_then("d5", 115)
        .lift_then("d5", 134)
        .place_then("d6", 15)
        .lift_then("c5", 122)
        .clock_then(Black, 50)
        .clock_then(White, 400);
    h.lift_then("f8", 200)
        .lift_then("d6", 150)
        .place_then("d6", 300)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["d7d5", "c5d6", "f8d6"]);
}

#[test]
fn a_king_slid_on_landing_before_its_square_lets_go_is_released_by_the_next_movers_capture() {
    // Kd2, slid from c1: the magnet closes d2 53 ms before c1 reads empty,
    // its contacts still bouncing as c1 lets go. Black's hand takes the d4
    // pawn off 105 ms later and lifts his knight to capture it, before
    // White's press (two hands, 1.1): the king's move was made when it
    // stood on d2 (4.6), not an illegal move with a pawn missing.
    let mut h = Hands::new(
        Some("5b2/8/2n1p2k/7B/3P3P/5p1R/8/2K3N1 w - - 0 36"),
        "fide-blitz",
    );
    h.wait(1000)
        .place_then("d2", 46)
        .lift_then("d2", 7)
        .lift_then("c1", 0)
        .place_then("d2", 3)
        .lift_then("d2", 3)
        .place_then("d2", 105)
        .lift_then("d4", 1)
        .place_then("d4", 3)
        .lift_then("d4", 20)
        .lift_then("c6", 178)
        .clock_then(White, 33)
        .place_then("d4", 249)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["c1d2", "c6d4"]);
}

#[test]
fn a_new_piece_rocking_as_it_lands_is_the_promotions_not_the_next_movers_hand() {
    // ...g1, the pawn swapped for the new piece (3.7e), which rocks as it
    // lands (g1 reads empty for 16 ms). White grabs his rook 118 ms after
    // it stands (the promotion made, 1.1) and plays Rg2; Black's hand
    // takes the e1 rook off and lifts the queen before White presses.
    // The rocking is no part of White's turn: not read as his rook taking
    // the new queen on g1 beside Rg2, and no illegal move.
    let mut h = Hands::new(
        Some("r5r1/2k4p/4pb2/8/N2n1P2/PP1QB2B/R5p1/2K1R3 b - - 1 34"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("g2", 224)
        .place_then("g1", 2)
        .lift_then("g1", 3)
        .place_then("g1", 1)
        .lift_then("g1", 3)
        .place_then("g1", 763)
        .lift_then("g1", 755)
        .place_then("g1", 48)
        .lift_then("g1", 16)
        .place_then("g1", 118)
        .lift_then("a2", 54)
        .clock_then(Black, 132)
        .place_then("g2", 100)
        .lift_then("e1", 27)
        .lift_then("g1", 69)
        .clock_then(White, 187)
        .place_then("e1", 306)
        .clock_then(Black, 1000);
    let out = h.run();
    read_exactly(&out, &["g2g1q", "a2g2", "g1e1"]);
}

#[test]
fn a_press_after_the_reply_was_read_as_a_missed_step_completes_the_move() {
    // ...e6, and White's c2-c3 read in one 10 ms scan (a step to the next
    // square: a ply the sensors missed, recorded and completed at once)
    // before Black presses (two hands, 1.1). Black's press completes his
    // ...e6 (6.7): no press without a move (7.5.3 of 2023).
    let mut h = Hands::new(
        Some("rnbqkbnr/ppppppp1/8/7p/6PP/8/PPPPPP2/RNBQKBNR b KQkq - 0 2"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("e7", 260)
        .place_then("e6", 390)
        .lift_then("c2", 0)
        .place_then("c3", 173)
        .clock_then(Black, 50)
        .clock_then(White, 207);
    h.lift_then("h5", 260)
        .lift_then("g4", 60)
        .place_then("g4", 137)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["e7e6", "c2c3", "h5g4"]);
    // Each ply completed once (...e6 at Black's press, after c3).
    let mut completed = support::completed_plies(&out.events);
    completed.sort_unstable();
    assert_eq!(completed, vec![1, 2, 3]);
}

#[test]
fn a_press_for_a_ply_read_among_missed_plies_completes_it() {
    // ...Bxh4 quicker than a scan (h4 never reads empty), and White's Rh2
    // made before Black presses (two hands, 1.1): the two plies are read
    // at one settle as plies the sensors missed, each completed as read.
    // Black's press that follows is his ...Bxh4's (6.7), not a press
    // without a move (7.5.3 of 2023).
    let mut h = Hands::new(Some("8/4b3/1k6/1P5p/7P/8/R7/6K1 b - - 3 43"), "fide-blitz");
    h.wait(1000)
        .lift_then("e7", 380)
        .lift_then("a2", 130)
        .place_then("h2", 170)
        .clock_then(Black, 30)
        .lift_then("b6", 43)
        .clock_then(White, 197)
        .lift_then("b5", 170)
        .place_then("b5", 118)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["e7h4", "a2h2", "b6b5"]);
}

#[test]
fn a_blip_read_just_before_the_press_is_not_part_of_the_move() {
    // Bc8 stands; h2 reads occupied in the one 10 ms reading before
    // White's press (interference) and empty at the next. The press
    // completes Bc8 (6.7): no illegal move with a piece on h2.
    let mut h = Hands::new(
        Some("1n1b1rk1/5p2/8/7p/1K1Rn2P/7B/8/6N1 w - - 0 38"),
        "fide-blitz",
    );
    // (The bishop slides h3-c8, blipping the squares it passes.)
    h.wait(1000)
        .lift_then("h3", 20)
        .place_then("g4", 20)
        .lift_then("g4", 30)
        .place_then("f5", 10)
        .lift_then("f5", 30)
        .place_then("e6", 20)
        .lift_then("e6", 30)
        .place_then("d7", 10)
        .lift_then("d7", 40)
        .place_then("c8", 90)
        .place_then("h2", 8)
        .clock_then(White, 2)
        .lift_then("h2", 2958)
        .lift_then("d8", 440)
        .place_then("e7", 300)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["h3c8", "d8e7"]);
}

#[test]
fn a_promotion_that_mates_only_as_a_queen_waits_for_its_name_under_open_lines() {
    // ...Nxd3 quicker than a scan (d3 never reads empty): ...Nxd3 or
    // ...Nxf3, two lines open. White promotes on h8 and swaps the pawn
    // for a bishop, named only after it stands (3.7e). As the queen the
    // lines guess, h8 would be mate; the pawn lifted off h8 is the swap,
    // not a move after the game ended: the lines wait for the name, and
    // White's f3-f4 later tells them apart.
    let mut h = Hands::new(Some("k7/pp5P/8/4n3/8/3P1P2/8/7K b - - 0 1"), "fide-blitz");
    h.wait(1000)
        .lift_then("e5", 300)
        .clock_then(Black, 400)
        .lift_then("h7", 300)
        .place_then("h8", 500)
        .lift_then("h8", 400)
        .place_then("h8", 300)
        .promote(Role::Bishop)
        .clock_then(White, 600)
        .lift_then("a8", 250)
        .place_then("b8", 300)
        .clock_then(Black, 600)
        .lift_then("f3", 250)
        .place_then("f4", 300)
        .clock_then(White, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["e5d3", "h7h8b", "a8b8", "f3f4"]);
    // The lines shown meanwhile were those two, never lines searched
    // afresh from the record as if they had died.
    for e in &out.events {
        if let touchmove_core::events::EventKind::Candidates { lines } = &e.kind {
            assert!(
                lines
                    .iter()
                    .all(|l| l.starts_with("e5d3") || l.starts_with("e5f3")),
                "{lines:?}"
            );
        }
    }
}

#[test]
fn a_capture_quicker_than_a_scan_whose_piece_the_reply_takes_before_the_press_is_no_illegal_move() {
    // Bxf7, the pawn and the bishop swapped within one 10 ms scan (f7
    // never reads empty); Black's hand takes the bishop off f7 before
    // White's late press, then his king slides onto f7. At the press the
    // board shows the bishop gone from c4 and f7 empty: the bishop in
    // White's hand (a press before the move is made), or Bxf7 made and
    // its bishop in Black's. A legal reading exists: no illegal move is
    // completed (a false accusation is worse than a missed one), and the
    // king landing on f7 tells.
    let mut h = Hands::new(
        Some("rnbqkbnr/p1ppppp1/1p6/7p/2B5/4P3/PPPP1PPP/RNBQK1NR w KQkq - 0 3"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("c4", 360)
        .lift_then("f7", 127)
        .clock_then(White, 257)
        .place_then("f7", 10)
        .lift_then("e8", 154)
        .clock_then(Black, 600)
        .lift_then("g2", 300)
        .place_then("g4", 300)
        .clock_then(White, 500)
        .lift_then("g8", 300)
        .place_then("h6", 300)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["c4f7", "e8f7", "g2g4", "g8h6"]);
    // White's press completes Bxf7 once it is recorded (6.7).
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3, 4]);
}

#[test]
fn a_promotion_read_as_lines_resolve_keeps_its_pawns_lift_until_its_piece_stands() {
    // ...Qxd2+ quicker than a scan (or ...Qa3: lines open), Kxd2 by
    // White's fast hand, then ...b1 with the pawn swapped for a queen
    // named before it stands 2.6 s later; White's rook grabs 8 ms before
    // Black's press (two hands, 1.1). The pawn's lift, read while the
    // lines were open, still makes the promotion: no displaced board.
    let mut h = Hands::new(
        Some("rn2kbnr/5ppp/b7/q1ppP3/3P4/N6P/Pp1BP1P1/R3KBNR b KQkq - 1 11"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("a5", 280)
        .clock_then(Black, 90)
        .lift_then("e1", 60)
        .lift_then("d2", 60)
        .place_then("d2", 50)
        .lift_then("d2", 20)
        .place_then("d2", 170)
        .lift_then("b2", 123)
        .clock_then(White, 47)
        .place_then("b1", 1050)
        .lift_then("b1", 294)
        .promote(Role::Queen)
        .wait(1946)
        .place_then("b1", 120)
        .lift_then("a1", 8)
        .clock_then(Black, 292)
        .lift_then("b1", 60)
        .place_then("b1", 170)
        .lift_then("g7", 29)
        .clock_then(White, 241)
        .place_then("g6", 207)
        .clock_then(Black, 1000);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    read_exactly(&out, &["a5d2", "e1d2", "b2b1q", "a1b1", "g7g6"]);
}

#[test]
fn a_rook_the_next_mover_took_before_the_late_press_is_the_move_the_press_completes() {
    // Bullet hands to the millisecond, every move grabbed: ...Re8 slid
    // b8-e8, White's hand takes the rook off e8 101 ms after it lands and
    // slides his a8 rook over b8-d8 to e8 while Black's late press comes;
    // ...Kxe8, Ne4, ...Kf7, Rb1 follow. The press completes ...Re8 (its
    // rook stood on e8 before White's hand took it), not ...Rxa8 read
    // from a blip on a8 (two moves fit, so the press was read as one
    // without a move, 7.5.3, and the record later caught up with
    // ...Rb1 Re8+ Kxe8 Ne4 Kf7 Rxb1, the same position by other plies).
    let mut h = Hands::new(
        Some("Rr6/4k3/4p3/4P3/7p/3n1BN1/6K1/6R1 b - - 1 41"),
        "fide-blitz",
    );
    h.wait(1000)
        .lift_then("b8", 2)
        .place_then("b8", 2)
        .lift_then("b8", 2)
        .place_then("b8", 3)
        .lift_then("b8", 25)
        .place_then("c8", 52)
        .lift_then("c8", 21)
        .place_then("d8", 19)
        .lift_then("a8", 3)
        .place_then("a8", 5)
        .lift_then("d8", 30)
        .clock_then(White, 16)
        .place_then("e8", 1)
        .lift_then("e8", 1)
        .place_then("e8", 99)
        .lift_then("e8", 3)
        .place_then("e8", 3)
        .lift_then("e8", 64)
        .place_then("b8", 4)
        .lift_then("a8", 10)
        .lift_then("b8", 22)
        .place_then("c8", 23)
        .lift_then("c8", 17)
        .place_then("d8", 22)
        .lift_then("d8", 23)
        .clock_then(Black, 6)
        .place_then("e8", 2)
        .lift_then("e8", 1)
        .place_then("e8", 1)
        .lift_then("e8", 1)
        .place_then("e8", 110)
        .lift_then("e8", 1)
        .place_then("e8", 1)
        .lift_then("e8", 47)
        .lift_then("e7", 2)
        .place_then("e7", 1)
        .lift_then("e7", 125)
        .clock_then(White, 123)
        .place_then("e8", 3)
        .lift_then("e8", 3)
        .place_then("e8", 105)
        .lift_then("g3", 2)
        .place_then("g3", 3)
        .lift_then("g3", 2)
        .place_then("g3", 2)
        .lift_then("g3", 110)
        .clock_then(Black, 21)
        .place_then("e4", 2)
        .lift_then("e4", 3)
        .place_then("e4", 3)
        .lift_then("e4", 3)
        .place_then("e4", 95)
        .lift_then("e8", 1)
        .place_then("e8", 2)
        .lift_then("e8", 111)
        .place_then("f7", 3)
        .lift_then("f7", 1)
        .place_then("f7", 3)
        .lift_then("f7", 3)
        .place_then("f7", 70)
        .clock_then(White, 30)
        .lift_then("g1", 3)
        .place_then("g1", 2)
        .lift_then("g1", 105)
        .place_then("b1", 2)
        .lift_then("b1", 1)
        .place_then("b1", 2)
        .lift_then("b1", 3)
        .place_then("b1", 165)
        .clock_then(Black, 30)
        .lift_then("d3", 2)
        .place_then("d3", 1)
        .lift_then("d3", 17)
        .clock_then(White, 140)
        .place_then("e1", 3)
        .lift_then("e1", 3)
        .place_then("e1", 1)
        .lift_then("e1", 2)
        .place_then("e1", 1000);
    let out = h.run();
    let played = played_uci(&out.session);
    assert_eq!(
        played[..6],
        ["b8e8", "a8e8", "e7e8", "g3e4", "e8f7", "g1b1"],
        "{:?}",
        kinds(&out.events)
    );
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

/// Hands from `fen` on a board read every 10 ms: the piece on `brushed`
/// off for one scan a second in, so the board has shown readings 10 ms
/// apart (not a board read every millisecond) before the hands start.
fn hands_at_10_ms(fen: &str, brushed: &str) -> Hands {
    let mut h = Hands::new(Some(fen), "fide-blitz");
    h.wait(1005)
        .lift_then(brushed, 10)
        .place_then(brushed, 1000);
    h
}

/// The hands read every 10 ms: the record is `moves`, with no alert.
fn read_at_10_ms(mut h: Hands, moves: &[&str]) {
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    read_exactly(&h.run(), moves);
}

/// A capture read in one scan of a board read every 10 ms: the capturing
/// piece and the captured one lifted together, the capturing piece set
/// down 20 ms later. A hand that quick is no jump (the sensors were read):
/// the next mover's grab 150 ms after the release still releases the move
/// (two hands, Article 1.1).
#[test]
fn a_capture_lifted_in_one_10_ms_scan_is_a_hand_not_a_jump() {
    // 7...e5 8. Qxa8 Bd6 9. e3, Black grabbing f8 before White's press.
    let mut h = Hands::new(
        Some("rQ1qkbnr/p2pp3/b4ppp/8/3P4/8/RPP1PPPP/1NBQKBNR b Kkq - 0 7"),
        "fide-blitz",
    );
    h.wait(1005).lift_then("e7", 140);
    // e5 set down with a bounce: the board shows readings 10 ms apart.
    h.place_then("e5", 10)
        .lift_then("e5", 10)
        .place_then("e5", 250)
        .clock_then(Black, 460);
    h.lift_together(&["a8", "b8"], 20)
        .place_then("a8", 150)
        .lift_then("f8", 330)
        .place_then("d6", 80)
        .clock_then(White, 250);
    h.lift_then("e2", 178)
        .clock_then(Black, 82)
        .place_then("e3", 118)
        .clock(White);
    read_at_10_ms(h, &["e7e5", "b8a8", "f8d6", "e2e3"]);
}

/// The next mover's capture lifted in one 10 ms scan while the last move's
/// piece settles: his capturing piece and the piece just moved, lifted
/// together 120 ms after its release. The move is made (4.6) and his
/// capture is read from the position after it.
#[test]
fn the_next_movers_capture_lifted_in_one_scan_while_the_move_settles() {
    // 8. d3 Qxd4 9. Qe2 Bxh3 10. Bxh3.
    let mut h = Hands::new(
        Some("rnb1kbnr/1pp1ppp1/3q4/p5Pp/P2P4/5P1N/1PPP3P/RNBQKB1R w KQkq - 0 8"),
        "fide-blitz",
    );
    h.wait(1005).lift_then("d2", 10).place_then("d2", 10);
    h.lift_then("d2", 120).place_then("d3", 120);
    h.lift_together(&["d4", "d6"], 40)
        .place_then("d4", 5)
        .clock_then(White, 145);
    h.lift_then("d1", 190)
        .place_then("e2", 22)
        .clock_then(Black, 50)
        .clock_then(White, 718);
    h.lift_then("c8", 230)
        .lift_then("h3", 30)
        .place_then("h3", 130)
        .lift_then("f1", 73)
        .clock_then(Black, 200)
        .place_then("h3", 300)
        .clock(White);
    read_at_10_ms(h, &["d2d3", "d6d4", "d1e2", "c8h3", "f1h3"]);
}

/// A capture at the press that the sensors never saw (the pawn swapped for
/// the captured one within a scan) may be exd7+ or exf7+; Black's queen
/// then takes on d7 in view (the pawn lifted off d7, the queen set down
/// there). At Black's press that outweighs a queen capture on f7 that
/// nobody saw made: the moves are recorded at once.
#[test]
fn a_capture_seen_made_outweighs_one_never_seen_at_the_press() {
    let mut h = hands_at_10_ms(
        "r1b1kb2/p1ppqp2/4PpQ1/2n4r/1pP5/8/PP1PB1PP/RNB1K1NR w KQq - 0 11",
        "d2",
    );
    // exd7+: the e6 pawn lifted, swapped for the d7 pawn unseen.
    h.lift_then("e6", 289).clock_then(White, 21);
    h.lift_then("e7", 10)
        .lift_then("d7", 30)
        .place_then("d7", 220)
        .lift_then("g6", 120)
        .place_then("c2", 42)
        .clock_then(Black, 500);
    h.trace = touchmove_synth::sampled::sampled(&h.trace, 10);
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e6d7", "e7d7", "g6c2"]);
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

/// Lines open over a capture nobody saw (Bxc7 or Bxf6), and the next
/// capture at a press is unseen too: Black's knight lifted off f6, its
/// captured pawn swapped within a scan, the clock pressed. Under the line
/// where the knight still stands the press makes the capture (6.7), as it
/// would on the record; the next move leaves that line alone.
#[test]
fn an_unseen_capture_at_the_press_extends_the_open_lines() {
    let mut h = hands_at_10_ms(
        "rnb1qrk1/2ppppb1/5n2/1N2B2p/1p1PP3/8/P1P2PPP/R2QKBNR w KQ - 1 10",
        "h2",
    );
    // 10. Bxc7, the pawn swapped for the bishop unseen.
    h.lift_then("e5", 230).clock_then(White, 900);
    h.carry("d7", "d5").wait(300).clock_then(Black, 800);
    h.lift_then("e4", 100)
        .lift_then("d5", 40)
        .place_then("d5", 300)
        .clock_then(White, 900);
    // 11...Nxd5, the pawn swapped for the knight unseen.
    h.lift_then("f6", 250).clock_then(Black, 900);
    h.carry("g1", "f3").wait(300).clock(White);
    read_at_10_ms(h, &["e5c7", "d7d5", "e4d5", "f6d5", "g1f3"]);
}

/// Lines open over 9...Bxb4 (bishop and pawn lifted in one scan) resolve
/// at White's press for 10. cxb4, Black's rook already lifted for his
/// reply while they were open: the lift stays his (two hands, 1.1), so
/// ...Rc6 set down with White's next grab before Black's press is read.
#[test]
fn a_lift_while_lines_resolve_at_a_press_stays_the_next_movers() {
    let mut h = hands_at_10_ms(
        "1nbqk2r/1ppp1p2/r4p2/p1b3pp/1P5P/N1P5/P2PPPB1/R1BQK1NR b KQk - 2 9",
        "a3",
    );
    h.lift_together(&["b4", "c5"], 210)
        .place_then("b4", 213)
        .clock_then(Black, 67);
    h.lift_then("c3", 20)
        .lift_then("b4", 10)
        .place_then("b4", 170)
        .lift_then("a6", 115)
        .clock_then(White, 175)
        .place_then("c6", 100)
        .lift_then("f2", 57)
        .clock_then(Black, 3)
        .place_then("f3", 60)
        .lift_then("f3", 80)
        .place_then("f4", 300)
        .clock(White);
    read_at_10_ms(h, &["c5b4", "c3b4", "a6c6", "f2f4"]);
}

/// The rook slid f1-e1-d1-c1 (two squares read in one 10 ms scan as it
/// passed e1), and Black took on f3 before White's press: Rc1 is made at
/// the press under Black's lifts, and the slide's scan is Rc1's, no jump
/// left for the next settle (which would read exf3 as a capture on d3).
#[test]
fn a_slide_read_in_one_scan_is_the_move_made_under_the_next_movers_lifts() {
    let mut h = hands_at_10_ms(
        "rnbk4/bp1pq1p1/p6n/1p6/1PP1p3/3P1P1K/PB6/RN3R2 w - - 3 21",
        "b1",
    );
    // The rook's magnet closes e1 as it opens f1, in one scan.
    h.place_then("e1", 0)
        .lift_then("f1", 40)
        .lift_then("e1", 20)
        .place_then("d1", 20)
        .lift_then("d1", 30)
        .place_then("c1", 150);
    // Black takes on f3 (the pawn off first) before White presses.
    h.lift_then("f3", 60)
        .lift_then("e4", 53)
        .clock_then(White, 127)
        .place_then("f3", 10)
        .lift_then("f3", 40)
        .place_then("f3", 120);
    h.lift_then("c4", 200)
        .lift_then("b5", 50)
        .place_then("b5", 15)
        .clock_then(Black, 300)
        .clock(White);
    read_at_10_ms(h, &["f1c1", "e4f3", "c4b5"]);
}

/// White's pawn slides c2-c3-c4, standing on c3 for 70 ms, and Black
/// brushes his queen (10 ms off a5) just as it leaves c3. A piece that has
/// stood for less than any reaction to a release takes is not released by
/// a lift (1.1, 4.6): the move is c4, not c3.
#[test]
fn a_brush_while_the_movers_piece_slides_over_a_square_releases_nothing() {
    let mut h = Hands::new(
        Some("rnb1kbnr/p3pppp/3p4/qpp5/8/8/PPPPP1PP/RNBQKBNR w KQkq - 4 8"),
        "fide-standard",
    );
    h.wait(1005).lift_then("b1", 10).place_then("b1", 1000);
    h.lift_then("c2", 260)
        .place_then("c3", 60)
        .lift_then("a5", 10)
        .place_then("a5", 0)
        .lift_then("c3", 270)
        .place_then("c4", 1650)
        .clock_then(White, 2000);
    h.lift_then("a5", 300)
        .lift_then("a2", 40)
        .place_then("a2", 700)
        .clock(Black);
    read_at_10_ms(h, &["c2c4", "a5a2"]);
}

/// White's queen in the air from f5; Black's bishop on c8 brushed (10 ms
/// off), then the bishop on f8 taken off and the queen set down there,
/// 25. Qxf8+ Kxf8. The lift of f8 while c8 settles is no grab releasing
/// Qxc8: the queen could take on f8 too, so that lift may be White's own
/// hand, and the settle tells where the queen stood (here: the moves that
/// follow).
#[test]
fn a_lift_the_movers_piece_could_have_captured_releases_nothing() {
    let mut h = hands_at_10_ms(
        "r1bqkbn1/4p1p1/npp4r/p1P2Q2/P4P2/5p1P/1P2P3/RNB1KB1R w KQq - 0 13",
        "b1",
    );
    h.lift_then("f5", 220)
        .lift_then("c8", 10)
        .place_then("c8", 120)
        .lift_then("f8", 40)
        .place_then("f8", 50)
        .lift_then("f8", 20)
        .place_then("f8", 116)
        .clock_then(White, 214);
    h.lift_then("f8", 250)
        .lift_then("e8", 170)
        .place_then("f8", 221)
        .clock_then(Black, 2100);
    // White's next move is no reply to Qxc8 (Black would have the move).
    h.lift_then("e2", 520).place_then("e3", 300).clock(White);
    read_at_10_ms(h, &["f5f8", "e8f8", "e2e3"]);
}

/// Four plies unread (the king out and back, the knight to a8, the new
/// bishop to a5), and 120 ms after the sensors are read again White's
/// hand lifts the king for his next move, and Black grabs the bishop on
/// a5 before White's press. The board read again is a position of its
/// own: the bishop stood on a5. (Judged only with the hands' changes on
/// top, it read as ...Bf2+ Kxf2, a dead position that ended the game.)
#[test]
fn the_board_read_again_is_judged_before_the_hand_that_follows_at_once() {
    let mut h = Hands::new(Some("8/8/1n4k1/8/8/8/8/4b1K1 w - - 0 57"), "fide-blitz");
    h.wait(1000)
        .read_again_then(&["e1", "b6"], &["a5", "a8"], 120)
        .lift_then("g1", 300)
        .place_then("f2", 140)
        .lift_then("a5", 65)
        .clock_then(White, 36)
        .place_then("d2", 160)
        .clock_then(Black, 1000);
    let out = h.run();
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
    let game = out.session.game();
    assert!(!game.is_over(), "{:?}", played_uci(&out.session));
    assert_eq!(
        game.fen().split(' ').next(),
        Some("n7/8/6k1/8/8/8/3b1K2/8"),
        "{:?}",
        played_uci(&out.session)
    );
}

#[test]
fn a_late_press_for_a_reply_read_at_the_opponents_press_completes_it_while_his_capture_is_at_work()
{
    // 32...Qxc5 33. bxc5 Rxb1: White's bxc5 is made before Black presses
    // for his queen, so Black's press reads both plies. Black's hand
    // takes the rook off b1 (his capture begun, two hands, 1.1) before
    // White's late press: that press is bxc5's (6.7), not the tale of
    // four plies nobody saw (`Bxf1 Ra1 Be2 Rf1`) that would leave b1
    // empty with White's move last.
    let mut h = Hands::new(
        Some("1r6/p3qp1k/2p1p1pP/2NpP3/1P3Q2/P7/2P1b2P/1R3BK1 b - - 4 32"),
        "fide-blitz",
    );
    // (A synthesized trace's readings, contact bounce and the rook's
    // slide included.)
    let readings = "0 -e7 3 +e7 5 -e7 6 +e7 7 -e7 69 -c5 70 +c5 72 -c5 74 +c5 77 -c5 \
        84 +c5 86 -c5 88 +c5 200 -b4 247 -c5 250 +c5 253 -c5 297 +c5 298 -c5 \
        299 +c5 319 -c5 349 +c5 350 -c5 351 +c5 588 black 618 -b1 620 +b1 \
        621 -b1 624 +b1 625 -b1 872 white 924 +b7 934 -b8 937 +b8 940 -b8 \
        944 -b7 959 +b6 989 -b6 997 +b5 1032 -b5 1048 +b4 1060 -b4 1080 +b3 \
        1109 -b3 1124 +b2 1144 -b2 1174 +b1 1177 -b1 1178 +b1 1179 -b1 \
        1182 +b1 1211 -b1 1250 +b1 1251 -b1 1254 +b1 1800 black";
    h.wait(1000);
    play_readings(&mut h, readings);
    let out = h.run();
    read_exactly(&out, &["e7c5", "b4c5", "b8b1"]);
}

/// A synthesized trace's readings, from now: milliseconds, then `-` a
/// square emptied, `+` one filled, or a side's press; then a second.
/// What the session reads of `readings` ([`play_readings`]) played from
/// `fen` under `profile`, a second after the start.
#[test]
fn a_piece_sliding_over_a_square_at_the_press_under_open_lines_is_a_hand_at_work() {
    // `9...Be6 10. Na3 dxc3 11. Bxe6` read in one jump (lines open over
    // the order of the plies), `11...Qxe6` made under them; Black presses
    // as White's knight slides from a3 to b5 over b3 and b4, so that at the
    // press the knight stands on b3 for a moment. No line is contradicted:
    // the lines are judged again when the board settles. (A blitz game's
    // readings.)
    let out = read_readings(
        "r1b1kb1r/pp2pppp/1nnq4/8/3p4/1BP2N2/PP3PPP/RNBQ1RK1 b kq - 1 9",
        "fide-blitz",
        "545 -b1 545 +a3 545 -b3 545 -d4 545 +e6 545 -c8 908 -d6 911 +d6 913 -d6 \
         1072 -e6 1075 +e6 1076 -e6 1079 +e6 1081 -e6 1303 +e6 1305 -e6 1306 +e6 \
         1309 -e6 1312 +e6 1485 -a3 1487 +a3 1489 -a3 1558 +b3 1598 black 1603 -b3 \
         1662 +b4 1689 -b4 1770 +b5 1771 -b5 1772 +b5 2330 white 4604 -e6 5004 +d7 \
         5323 -d1 5324 +d1 5325 -d1 5328 +d1 5331 -d1 5469 black 5700 +e2 6300 white",
    );
    let played = played_uci(&out.session);
    assert_eq!(played.len(), 8, "{:?}", kinds(&out.events));
    assert_eq!(
        played[4..],
        ["d6e6", "a3b5", "e6d7", "d1e2"],
        "{:?}",
        kinds(&out.events)
    );
    assert_eq!(
        out.session.game().fen(),
        "r3kb1r/pp1qpppp/1nn5/1N6/8/2p2N2/PP2QPPP/R1B2RK1 b kq - 3 13",
    );
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

#[test]
fn lines_open_over_plies_the_hands_played_past_a_settle_are_extended_deeper() {
    // `4...c5 5. Nd2 Nxd2` read in one jump (or `4...Nxd2 5. Nxd2 c5`),
    // `6. Qxd2 Nc6 7. Nf3 Qb6 8. c3` made under the lines. Then `8...cxd4`
    // is read only as the pawn leaving c5 (its captured pawn never read
    // gone), `9. exd4` empties e3, and at the settle after `9...Bf5` White's
    // bishop is on its way over e2 (Black presses then): four plies past
    // the lines' position, more than one settle reads. They are searched
    // as deep as a jump's, every piece seen lifted in order, once the
    // bishop stands on d3 (at the press it is sliding on: no position
    // yet), instead of every line being dropped (the record then never
    // caught up). (A blitz game's readings.)
    let out = read_readings(
        "rnbqkb1r/ppp1pppp/8/3p4/3PnB2/4P3/PPP2PPP/RN1QKBNR b KQkq - 2 4",
        "fide-blitz",
        "195 -b1 195 +d2 195 -e4 195 +c5 195 -c7 2092 -d1 2385 -d2 2647 +d2 2649 -d2 \
         2650 +d2 2815 -b8 2816 +b8 2817 -b8 2819 +b8 2822 -b8 2994 white 3161 +c6 \
         3162 -c6 3164 +c6 3671 black 4812 -g1 4814 +g1 4816 -g1 4971 +f3 4972 -f3 \
         4974 +f3 5234 -d8 5237 +d8 5239 -d8 5316 white 5330 +c7 5362 -c7 5458 +b6 \
         5459 -b6 5460 +b6 5795 -c2 6012 black 6195 +c3 6196 -c3 6197 +c3 6200 -c3 \
         6201 +c3 6300 white 12321 -c5 13899 -d4 13900 +d4 13901 -d4 13904 +d4 \
         13907 -d4 14044 -e3 14045 +e3 14048 -e3 14049 +e3 14050 -e3 14238 +d4 \
         14241 -d4 14244 +d4 14245 -d4 14246 +d4 14755 white 15006 -c8 15008 +c8 \
         15009 -c8 15012 +c8 15015 -c8 15067 +d7 15100 -d7 15132 +e6 15189 -e6 \
         15237 +f5 15239 -f5 15241 +f5 15391 -f1 15393 +f1 15394 -f1 15396 +f1 \
         15397 -f1 15541 +e2 15562 black 15604 -e2 15753 +d3 15756 -d3 15757 +d3 \
         15758 -d3 15759 +d3 16151 white 18755 -f5 18758 +f5 18761 -f5 18907 -d3 \
         18910 +d3 18912 -d3 19190 +d3 19192 -d3 19195 +d3 19196 -d3 19197 +d3 \
         19632 black 20236 -d2 20238 +d2 20239 -d2 20531 -d3 20587 +d3 20589 -d3 \
         20592 +d3 20855 -b6 20858 +b6 20859 -b6 20861 +b6 20861 white 20862 -b6 \
         20982 +b5 21045 -b5 21168 +a6 21171 -a6 21174 +a6 21177 -a6 21179 +a6 \
         21443 black",
    );
    read_exactly(
        &out,
        &[
            "c7c5", "b1d2", "e4d2", "d1d2", "b8c6", "g1f3", "d8b6", "c2c3", "c5d4", "e3d4", "c8f5",
            "f1d3", "f5d3", "d2d3", "b6a6",
        ],
    );
}

#[test]
fn a_jump_whose_capture_lands_where_a_piece_arrived_in_the_same_reading_extends_the_lines() {
    // `11. Be2 Nbd7 12. O-O` in one jump (or `11. Rg1 Nbd7 12. Ke2`, or
    // `11. Ke2 Nbd7 12. Rg1`: the same squares), fourteen plies made
    // under the three lines, then `26...b5 27. axb5` in one reading: b6
    // and a4 empty, b5 filled. Each pair of those squares is next door
    // (a slide), so no hand is ruled out, and under the lines the pieces
    // a4 and b6 were lifted in that one reading, in no order a reading
    // tells; the pawn read arriving on b5 is the capturing one. Before,
    // every line was dropped and the record stopped at move 10 for the
    // rest of the game; `29. Bxb5` then tells the lines apart. (A blitz
    // game's readings.)
    let out = read_readings(
        "rnbq1rk1/ppp1ppbp/3p1np1/8/3P1B2/4PN1P/PPP2PP1/RN1QKB1R w KQ - 1 6",
        "fide-blitz",
        "20620 -e1 20620 -h1 20620 -b8 20620 +g1 20620 +e2 20620 +d7 22900 -c7 23060 +c6 \
         23090 -c6 23260 +c5 23422 black 24120 -c2 24480 +c3 24780 -b7 24844 white 25010 +b6 \
         25252 black 25310 -b1 25700 +d2 26279 white 27940 -c8 28250 +b7 28753 black \
         29000 -a2 29140 +a4 29275 white 29410 -a7 29530 +a6 29730 -f4 29790 +g3 29840 -g3 \
         29910 +h2 30066 black 30305 white 31840 -b7 32120 +c6 32224 black 32390 -b2 \
         32620 +b4 32930 white 33270 -c5 33660 -b4 33720 +b4 34105 black 34610 -c3 \
         34950 -b4 34960 +b4 35316 white 44240 -a4 44240 -b6 44240 +b5 44860 -b5 45020 -c6 \
         45220 +b5 45260 -b5 45290 +b5 45866 black 46920 -e2 47030 -b5 47110 +b5 47290 -a6 \
         47590 -b5 47640 white 47650 +b5 47930 -d1 47937 black 48170 +e2 48514 white",
    );
    read_exactly(
        &out,
        &[
            "f1e2", "b8d7", "e1g1", "c7c5", "c2c3", "b7b6", "b1d2", "c8b7", "a2a4", "a7a6", "f4h2",
            "b7c6", "b2b4", "c5b4", "c3b4", "b6b5", "a4b5", "c6b5", "e2b5", "a6b5", "d1e2",
        ],
    );
}

#[test]
fn a_jump_read_with_the_next_movers_piece_in_the_hand_extends_the_open_lines() {
    // `11. h3 g6 12. g4 Ng7` in one jump (or `...Nf4 ...Ng6`, the pawn
    // left on g7: the same squares), lines open over fourteen plies; then
    // `24. Bg2 Ne6 25. Rhe1` in one reading, Black's g6 pawn already in
    // the hand in it (`25...g5`, bullet). Under the lines, the board is the
    // jump's plies with a hand at work, as a jump read with no line open
    // is: before, every line was dropped and the record stopped at move
    // 10 for the rest of the game. `...Ne6` tells the lines apart.
    let out = read_readings(
        "r1b1k2r/pp2qppp/1np5/3p3n/3P4/2N1PN2/PPQ2PPP/2KR1B1R w kq - 2 11",
        "fide-blitz",
        "22020 -g2 22020 -h2 22020 -h5 22020 +h3 22020 +g4 22020 +g6 22130 -c1 22310 +b1 \
         22415 white 23270 +d7 23290 -c8 23425 black 23510 -f3 23680 +e5 23832 white \
         23870 -e8 23900 -a8 24060 +c8 24250 +d8 24380 -a2 24633 black 24670 +a4 24710 -a4 \
         24740 +a4 24860 -a7 24935 white 24990 +a6 25020 -a6 25150 +a5 25300 -c2 \
         25359 black 25590 +b3 25850 +c7 25860 -c8 25894 white 26187 black 26200 -d1 \
         26460 +c1 26621 white 26710 -d7 26930 +e8 27080 -e3 27187 black 27200 +d3 \
         27260 -d3 27350 +e4 27390 -e4 27400 +e4 27678 white 27920 -f7 28030 +f6 28170 -e4 \
         28193 black 28290 -d5 28350 +d5 28510 -f6 28576 white 28680 -e5 28700 +e5 \
         28810 -d5 28920 +d6 29021 black 29060 -d6 29071 white 29090 -d8 29160 +d7 \
         29220 -d7 29310 +d6 29500 -c3 29649 black 29760 +b5 30069 white 30330 -c7 \
         30490 +b8 30740 -b5 30770 -d6 30820 +d6 30836 black 30914 white 30940 -e7 \
         31130 -d6 31150 +d6 31280 -b3 31419 black 31440 -b6 31470 +b6 31680 -e5 \
         31767 white 31830 -d4 31860 +d4 31983 black 56690 -f1 56690 -h1 56690 -g6 \
         56690 -g7 56690 +e1 56690 +g2 56690 +e6 56800 +g5 56856 black",
    );
    read_exactly(
        &out,
        &[
            "h2h3", "g7g6", "g2g4", "h5g7", "c1b1", "c8d7", "f3e5", "e8c8", "a2a4", "a7a5", "c2b3",
            "c8c7", "d1c1", "d7e8", "e3e4", "f7f6", "e4d5", "f6e5", "d5d6", "d8d6", "c3b5", "c7b8",
            "b5d6", "e7d6", "b3b6", "e5d4", "f1g2", "g7e6", "h1e1", "g6g5",
        ],
    );
}

fn read_readings(fen: &str, profile: &str, readings: &str) -> Outcome {
    let mut h = Hands::new(Some(fen), profile);
    h.wait(1000);
    play_readings(&mut h, readings);
    h.run()
}

fn play_readings(h: &mut Hands, readings: &str) {
    let words: Vec<&str> = readings.split_whitespace().collect();
    let mut at = 0;
    for pair in words.chunks(2) {
        let t: u64 = pair[0].parse().unwrap();
        h.wait(t - at);
        at = t;
        match pair[1] {
            "white" => h.clock_then(White, 0),
            "black" => h.clock_then(Black, 0),
            x if x.starts_with('=') => {
                let role = shakmaty::Role::from_char(x.chars().nth(1).unwrap()).unwrap();
                h.promote_then(role, 0)
            }
            x if x.starts_with('-') => h.lift_then(&x[1..], 0),
            x => h.place_then(&x[1..], 0),
        };
    }
    h.wait(1000);
}

#[test]
fn a_captured_piece_brushed_before_the_capturing_piece_left_is_no_capture_of_it() {
    // 13. Nxd4 exd4: White brushes the e5 pawn for 100 ms while thinking
    // (a nudge), then takes on d4 (the knight set down where Black's
    // stood); Black lifts e5 and takes the knight off d4 before White's
    // press. The knight could not have reached e5 before it left f3: the
    // press completes Nxd4, not Nxe5 with Black's pawn taken.
    let readings = "0 -e5 92 +e5 95 -e5 98 +e5 359 -f3 609 -d4 610 +d4 611 -d4 \
        622 +d4 623 -d4 626 +d4 629 -d4 632 +d4 670 -d4 691 +d4 694 -d4 696 +d4 \
        798 -e5 799 +e5 801 -e5 802 +e5 804 -e5 926 -d4 927 +d4 930 -d4 933 +d4 \
        934 -d4 936 white 977 +d4 980 -d4 983 +d4 1010 -d4 1038 +d4 1040 -d4 \
        1043 +d4 1046 -d4 1048 +d4 1346 black";
    let out = read_readings(
        "r2qkb1r/ppp2ppp/3pbn2/4p3/2BnP3/2NP1N2/PPP2PPP/R1BQK2R w KQkq - 1 7",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["f3d4", "e5d4"]);
}

#[test]
fn a_square_filled_before_the_piece_left_its_own_is_no_move_of_that_piece() {
    // 59. Bc5 Rxa5 60. bxa5: the bishop lands on c5; Black takes the
    // rook off a5 and slides his rook down the a-file over a7. The rook
    // on a5 could not have reached c5 before it left a5: the board (a7
    // filled by the sliding rook, a5 emptied, c5 filled) is no `Rc5`.
    let readings = "0 -a7 1 +a7 3 -a7 6 +a7 7 -a7 147 black 149 +c5 150 -c5 \
        153 +c5 154 -c5 156 +c5 283 -a5 286 +a5 287 -a5 353 +a7 357 -a8 359 +a8 \
        360 -a8 362 +a8 364 -a8 394 -a7 399 white 428 +a6 452 -a6 507 +a5 \
        509 -a5 510 +a5 549 -a5 577 +a5 578 -a5 580 +a5 583 -a5 584 +a5 \
        685 -b4 688 +b4 690 -b4 789 black 837 -a5 840 +a5 843 -a5 887 +a5 \
        889 -a5 892 +a5 894 -a5 897 +a5 923 -a5 946 +a5 947 -a5 950 +a5 \
        1250 white";
    let out = read_readings(
        "r1b3k1/B5bp/6p1/R2p2N1/1P2p3/2n3P1/5PBP/6K1 w - - 0 30",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["a7c5", "a8a5", "b4a5"]);
}

#[test]
fn a_capture_next_door_that_rocks_as_it_lands_while_its_square_still_reads_full_is_made() {
    // 36. Qxe5 fxe5: White lifts his queen and puts it back (a touch,
    // honoured), takes Black's queen off e5 and slides his own onto it
    // from f4 next door; it rocks as it lands while its magnet still
    // holds f4 for 65 ms. Black takes the queen off e5 before White's
    // press. The queen reached e5 as it left f4: the press completes
    // Qxe5, not Qxf6 (a capture nobody saw, f6 never read empty).
    let readings = "0 -f4 3 +f4 4 -f4 6 +f4 9 -f4 885 +f4 887 -f4 889 +f4 891 -f4 \
        892 +f4 3293 -e5 3294 +e5 3296 -e5 3298 +e5 3301 -e5 3807 +e5 3810 -e5 \
        3811 +e5 3812 -e5 3815 +e5 3842 -e5 3872 -f4 3872 +e5 3873 +f4 3875 -e5 \
        3876 -f4 3876 +e5 3877 -e5 3879 +e5 4168 -e5 4169 +e5 4170 -e5 4232 white \
        4361 -f6 4364 +f6 4367 -f6 4609 +e5 4612 -e5 4614 +e5 5071 black";
    let out = read_readings(
        "r6r/6k1/3p1pp1/1bpPq3/1p2PQ2/3P4/1P1R2BP/1R5K w - - 1 36",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["f4e5", "f6e5"]);
}

#[test]
fn a_pawn_rocking_as_it_captures_next_door_is_no_touch_of_the_piece_it_took() {
    // 10... bxc6 11. Qxc6: Black lifts his b-pawn and puts it back (a
    // touch, honoured), takes the knight off c6 and slides the pawn onto
    // it; it rocks as it lands while b7 still reads full for 65 ms.
    // White's queen, sliding from a4 to c6, closes b5 13 ms before
    // Black's press. The pawn reached c6 as it left b7: the press
    // completes bxc6, not b5 with the knight touched and put back (4.3b).
    let readings = "0 -b7 3 +b7 4 -b7 6 +b7 8 -b7 920 +b7 923 -b7 926 +b7 928 -b7 \
        930 +b7 1820 -c6 1823 +c6 1824 -c6 1826 +c6 1828 -c6 2040 +c6 2043 -c6 \
        2046 +c6 2047 -c6 2048 +c6 2069 -c6 2104 +c6 2104 -b7 2105 -c6 2106 +b7 \
        2107 +c6 2109 -b7 2110 -c6 2113 +c6 2339 +b5 2352 black 2353 -a4 2354 +a4 \
        2356 -a4 2391 -b5 2504 -c6 2506 +c6 2508 -c6 2524 +c6 2525 -c6 2527 +c6 \
        2529 -c6 2531 +c6 2858 white";
    let out = read_readings(
        "r1bqk2r/ppp2ppp/2Nbpn2/8/Q1BP4/2N5/PP3PPP/R1B2RK1 b kq - 0 10",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["b7c6", "a4c6"]);
}

#[test]
fn a_swap_while_a_piece_is_held_over_a_second_waits_for_where_it_stands() {
    // 20... Bg7, a board read every 10 ms: Black lifts his bishop on f6;
    // 250 ms later one scan of interference reads White's pawn on b2 gone
    // (the very reading a push-off `...Bxb2` gives); the bishop, held in
    // the air 1.2 s more, is set down on g7. `...Bxb2` was recorded a
    // second after the swap, then the board stood displaced for the rest
    // of the game. A hand holds its piece a second or two.
    let readings = "0 -f6 250 -b2 260 +b2 1460 +g7 2590 black 4000 -c2 4500 +c4 5000 white";
    let out = read_readings(
        "4r1k1/1p1brp1p/p1n2bp1/2Pp4/8/PN1BPNqP/KPPQ2P1/4RR2 b - - 1 20",
        "fide-standard",
        readings,
    );
    read_exactly(&out, &["f6g7", "c2c4"]);
}

#[test]
fn the_next_movers_slide_over_a_square_just_left_is_no_piece_put_back_there() {
    // 33. Bc1 Qxb2: White slides his bishop from d2 to c1; Black takes
    // White's queen off b2 before White's press and slides his queen
    // from e2 along the rank to b2, over d2 (closed 23 ms, e2 still held
    // for 6 ms) and c2. That is no bishop put back on d2 with `Qc1`
    // played and a touch-move breach (4.3a).
    let readings = "0 -d2 3 +d2 5 -d2 282 +c1 284 -c1 286 +c1 382 -b2 385 +b2 388 -b2 \
        391 +b2 393 -b2 445 +d2 451 -e2 453 +e2 455 -e2 457 +e2 460 -e2 468 -d2 \
        482 +c2 510 -c2 536 +b2 538 -b2 540 +b2 569 -b2 600 +b2 601 -b2 604 +b2 \
        606 -b2 606 white 608 +b2 810 black";
    let out = read_readings(
        "6k1/3b1ppp/p2b4/1p1P4/1P2n3/4NN2/1Q1BqPPP/6K1 w - - 6 33",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["d2c1", "e2b2"]);
}

#[test]
fn the_next_movers_slide_rocking_on_its_first_square_at_the_press_is_his_hand_at_work() {
    // 41... Rxb2 42. Ke3: Black takes the pawn off b2 and sets his rook
    // there; White's king slides from e2 onto e3 before Black's press,
    // rocking as it lands while its magnet still holds e2 for 51 ms. At
    // the press e3 reads full, and rocking: the press completes Rxb2, not
    // `Re3` with the pawn touched and put back (4.3).
    let readings = "53 -b2 56 +b2 59 -b2 60 +b2 62 -b2 102 -b3 104 +b3 105 -b3 107 +b3 \
        108 -b3 222 +b2 224 -b2 227 +b2 230 -b2 233 +b2 519 +e3 562 -e3 566 black \
        570 -e2 570 +e3 571 -e3 572 +e3 910 white";
    let out = read_readings(
        "8/5kp1/7p/4R3/3Pp3/1r6/1P2K3/8 b - - 2 41",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["b3b2", "e2e3"]);
}

#[test]
fn a_capture_whose_captured_piece_was_seen_taken_off_first_is_made_when_it_stands() {
    // No clock, a board read every 10 ms. 28... Rxd5: Black takes the
    // pawn off d5 and slides his rook there from f5. The captured piece
    // was seen taken off: no swap to wait on, the move is made when the
    // rook stands (it used to wait a second or two for the next mover's
    // touch). White then lifts his pawn on d7, names a rook and sets it
    // down on d8: 29. d8=R.
    let mut h = Hands::new(
        Some("rn4k1/3P1q2/p1p4b/3P1r1n/8/N4pP1/5P2/R4K2 b - - 2 28"),
        "casual",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -d5 120 -f5 260 +e5 310 -e5 450 +d5 460 -d5 470 +d5",
    );
    h.lift_then("d7", 110)
        .promote(Role::Rook)
        .wait(900)
        .place_then("d8", 1500);
    let out = h.run();
    read_exactly(&out, &["f5d5", "d7d8r"]);
    let made = out
        .events
        .iter()
        .find(|e| matches!(e.kind, touchmove_core::events::EventKind::Move { .. }))
        .map(|e| e.t_ms);
    assert!(made.is_some_and(|t| t < 1000 + 470 + 300), "{made:?}");
}

#[test]
fn a_slide_passing_over_a_square_sets_no_piece_there_for_a_longer_line() {
    // A board read every 10 ms. 30... Kxc6 31. Qa6+: Black's king takes
    // the rook on c6, pushing it off within a scan (c6 never reads
    // empty); White, before Black's press, slides his queen from e2 over
    // d3, c4 and b5 to a6. At the press the lines `Kxc6 Qa6+` and
    // `Kb7 Qd3 Kxc6 Qa6+` (and others) reach one position: the queen
    // passing over d3 for 30 ms set no piece down there, and the fewer
    // plies are recorded, not four plies nobody saw.
    let readings = "0 -c7 400 -e2 400 +d3 430 -d3 460 +c4 480 -c4 510 +b5 530 -b5 \
        570 +a6 628 black 680 -c6 840 +d7 956 white 1106 black";
    let out = read_readings(
        "r6r/p1k3p1/2R2n2/3p3p/3Pp3/6P1/1P2Q2P/R6K b - - 0 30",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["c7c6", "e2a6", "c6d7"]);
}

#[test]
fn castling_whose_king_stood_before_lines_opened_is_made_at_the_press() {
    // A board read every 10 ms. 9... O-O 10. Bc2: Black's king slides
    // from e8 to g8 (leaving e8 and reaching f8 in one scan), lines open
    // on that board, then his rook goes from h8 to f8; White lifts his
    // bishop on a4 before Black's press. The line of no plies holds the
    // king's lift from before it opened: the press completes O-O with
    // White's bishop in his hand, not O-O and `Bxc6` quicker than a scan.
    let mut h = Hands::new(
        Some("r2qk2r/1ppb1pbp/p1np1np1/4p3/B2PP3/2P2N1P/PP3PP1/RNBQR1K1 b kq - 0 9"),
        "fide-blitz",
    );
    h.wait(1000);
    h.read_again_then(&["e8"], &["f8"], 0);
    let readings = "30 -f8 120 +g8 150 -h8 340 +f8 450 -a4 546 black 720 +c2 730 -c2 \
        750 +c2 987 white";
    play_readings(&mut h, readings);
    let out = h.run();
    read_exactly(&out, &["e8g8", "a4c2"]);
}

#[test]
fn a_name_half_a_second_after_a_rocking_new_piece_first_stood_is_the_next_movers() {
    // 22. gxh8=Q e1=B+ 23. Nxe1 Bh6: White swaps his pawn on h8 for a
    // queen, which rocks as it lands (h8 open 14 ms 45 ms after it first
    // stood); Black lifts his pawn on e2, White presses, and a bishop is
    // named 510 ms after the queen first stood, 444 ms after it last
    // rocked: Black's name for his own promotion (3.7e), not White's.
    let readings = "0 -h8 2 +h8 5 -h8 6 +h8 7 -h8 31 -g7 32 +g7 34 -g7 263 +h8 266 -h8 \
        269 +h8 271 -h8 273 +h8 313 -h8 339 +h8 342 -h8 343 +h8 345 -h8 348 +h8 \
        981 -h8 983 +h8 985 -h8 1521 +h8 1523 -h8 1524 +h8 1566 -h8 1580 +h8 \
        1583 -h8 1584 +h8 1585 -h8 1587 +h8 1693 -e2 1695 +e2 1698 -e2 1699 +e2 \
        1701 -e2 1845 white 2031 =b 2216 +e1 2217 -e1 2218 +e1 2221 -e1 2222 +e1 \
        2276 -e1 2290 +e1 2291 -e1 2293 +e1 2294 -e1 2296 +e1 2450 -f3 2451 +f3 \
        2453 -f3 2477 black 2516 +f1 2545 -f1 2570 -e1 2571 +e1 2573 -e1 2597 +e1 \
        2629 -e1 2648 +e1 2650 -e1 2651 +e1 2654 -e1 2655 +e1 2873 -f8 2926 +g7 \
        2952 -g7 2998 white 3005 +h6 3006 -h6 3008 +h6 3011 -h6 3014 +h6 3207 black";
    let out = read_readings(
        "4kbnr/r3p1P1/2n1bp2/1P5p/QP4PP/5N1B/P3pK2/R1B3R1 w k - 0 22",
        "fide-blitz",
        readings,
    );
    read_exactly(&out, &["g7h8q", "e2e1b", "f3e1", "f8h6"]);
}

#[test]
fn a_glitch_beside_a_capture_a_moment_before_the_press_is_no_move() {
    // 3... cxd5 at bullet speed: Black holds the c6 pawn, takes White's
    // pawn off d5 and sets his own down there; interference fills c5 for
    // one scan 10 ms before his press (no hand could reach c5 and then the
    // clock that quickly, 6.7). The press completes cxd5, not c5.
    let mut h = Hands::new(
        Some("rnbqkbnr/pp2pppp/2p5/3P4/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -c6 90 -d5 120 +d5 260 +c5 270 -c5 271 black 320 -f1 470 +d3 840 white",
    );
    let out = h.run();
    read_exactly(&out, &["c6d5", "f1d3"]);
}

#[test]
fn a_glitch_next_door_before_the_piece_leaves_is_no_capture() {
    // 25... Qc7: interference opens c6 (White's knight) for one scan just
    // before Black lifts his queen from b7 next door; the queen stays in
    // the air for 280 ms, then lands on c7. Read at the settle, the board
    // (c6 full, b7 empty) looked like Qxc6 made by a slide that pushed the
    // knight off: a capture read only from one scan is waited for, and
    // the landing on c7 tells.
    let mut h = Hands::new(
        Some("r4rk1/1q3ppp/1RNp1b2/P2Pp3/5n1P/3B1P2/2PQ4/4K2R b K - 0 25"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -c6 10 +c6 30 -b7 310 +c7 426 black 500 -d2 600 +c3 650 -c3 740 +b4 \
         760 -b4 790 +b4 887 white",
    );
    let out = h.run();
    read_exactly(&out, &["b7c7", "d2b4"]);
}

#[test]
fn a_glitch_next_door_as_the_piece_leaves_is_no_capture() {
    // 32... Ra7: interference opens a2 (White's pawn) for one scan, just
    // as Black lifts his rook from a3 next door; the rook stays in the air
    // for 360 ms and lands on a7. Rxa2 read only from that one scan waits
    // (a swap), and the landing on a7 tells.
    let mut h = Hands::new(
        Some("4n3/2p2kp1/1r2pp2/2Np4/3P2Pp/rP2P2P/P4P2/R1R3K1 b - - 2 32"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -a2 10 +a2 10 -a3 370 +a7 1065 black 1200 -f2 1500 +f3 1800 white",
    );
    let out = h.run();
    read_exactly(&out, &["a3a7", "f2f3"]);
}

#[test]
fn a_piece_set_back_before_the_next_mover_lifts_is_the_movers() {
    // 29... Qxe3: Black lifts his queen from h3, interference opens g2
    // (White's queen) for one scan, Black sets the queen back on h3 a
    // second later, takes White's e3 pawn off, lifts the queen again and
    // sets it on e3. With e3 taken off, the board was not Qxg2 made (the
    // swap) and White lifting e3 with a piece of his set down on h3: no
    // White piece had been lifted when h3 was filled.
    let mut h = Hands::new(
        Some("3r2k1/2r2pp1/pp1N4/3RPP1p/2p2R2/4P2q/PP4Q1/5K2 b - - 3 29"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -h3 470 -g2 480 +g2 570 +c2 580 -c2 1050 +h3 1100 -h3 1130 +h3 2220 -e3 \
         2820 -h3 3760 +e3 4752 black",
    );
    let out = h.run();
    read_exactly(&out, &["h3e3"]);
}

#[test]
fn a_blip_lifting_a_piece_in_the_reading_before_the_press_is_no_lift() {
    // 18... O-O at bullet speed, then interference opens b2 (White's pawn)
    // for one scan, 10 ms before Black's press and read back full before
    // it: the press completes the castling, not an illegal move with b2
    // missing (6.7, 7.5).
    let mut h = Hands::new(
        Some("r3k2r/1p2b2p/2p2pb1/p4p2/P1pP1P1N/2N1P3/1P3KPP/R6R b kq - 1 18"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -e8 40 -h8 150 +g8 410 +f8 450 -b2 460 +b2 465 black 630 -h2 850 +h3 1022 white",
    );
    let out = h.run();
    read_exactly(&out, &["e8g8", "h2h3"]);
}

#[test]
fn a_blip_under_the_next_movers_piece_at_the_press_is_no_touch() {
    // 24. exd5 exd5: interference opens c5 (Black's queen) for one scan
    // just before White's press. The press makes exd5 with c5 read lifted
    // (Black's hand, 1.1); its return a scan later is a brush, not a touch:
    // Black's capture with the e6 pawn breaches no 4.3a.
    let mut h = Hands::new(
        Some("r3b1k1/6p1/4pr1p/2qp4/2p1P3/2P5/3QBPPP/2R2RK1 w - - 0 24"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -e4 170 -d5 180 +d5 1090 -c5 1100 +c5 1105 white 17120 -e6 17900 -d5 17930 +d5 \
         19112 black",
    );
    let out = h.run();
    read_exactly(&out, &["e4d5", "e6d5"]);
}

#[test]
fn a_blip_under_open_lines_while_a_piece_is_held_is_no_capture() {
    // 1. Nxa7 or Nxc7, the captured pawn never read leaving (two lines
    // open), four quiet plies, then 3... Qd5 with interference opening d2
    // (White's bishop) for one scan while the queen is in the air. Under
    // the lines that blip read Qxd2 made, and the queen landing on d5 then
    // contradicted every line, too deep for the record's search: the board
    // was called displaced for good. A capture read only from a blip waits
    // under the lines as it does on the record; 4. Nc6 tells them apart.
    let mut h = Hands::new(
        Some("3q3k/p1p3pp/8/1N6/8/8/3B2PP/6K1 w - - 0 1"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -b5 400 white 1000 -h8 1300 +g8 1500 black 2000 -g1 2300 +f1 2500 white \
         3000 -g8 3300 +f8 3500 black 4000 -f1 4300 +e1 4500 white \
         5000 -d8 5200 -d2 5210 +d2 5500 +d5 5700 black 6500 -a7 6800 +c6 7000 white",
    );
    let out = h.run();
    read_exactly(
        &out,
        &["b5a7", "h8g8", "g1f1", "g8f8", "f1e1", "d8d5", "a7c6"],
    );
}

#[test]
fn a_blip_in_the_reading_before_the_press_is_no_part_of_a_capture_nobody_saw() {
    // 31... hxg3: the pawn takes the knight between two scans (g3 never
    // read empty); interference fills f1 for one scan just before Black's
    // press. The press completes the capture, not an illegal move to f1.
    let mut h = Hands::new(
        Some("2k4b/3r4/p5p1/8/2P4p/p5NP/Pr6/2K5 b - - 3 31"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -h4 3630 +f1 3640 -f1 3641 black 4500 -c4 4800 +c5 5000 white",
    );
    let out = h.run();
    read_exactly(&out, &["h4g3", "c4c5"]);
}

#[test]
fn the_next_mover_reaches_for_no_piece_before_the_movers_piece_is_lifted() {
    // 9. Qxd8+ Kxd8: White brushes the c6 pawn (90 ms, no touch), takes
    // Black's queen off d8, lifts his own queen, and sets it on d8 while
    // interference opens c6 for one scan. Qxc6 with Black's queen "lifted
    // by Black" is no reading: d8 left before White's queen did, so it was
    // White's hand taking the captured piece off, not Black's reaching.
    let mut h = Hands::new(
        Some("r1Qqkb1r/pp2pp2/n1p4n/6p1/2pPP1P1/P7/1P3P1P/RNB1KBNR w KQkq - 0 9"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -c6 90 +c6 520 -d8 780 -c8 1310 -c6 1320 +c6 1670 +d8 2736 white \
         16298 -d8 16608 -e8 16800 +d8 17200 black",
    );
    let out = h.run();
    read_exactly(&out, &["c8d8", "e8d8"]);
}

#[test]
fn casual_castling_rook_first_pressed_as_the_king_lands_is_castling() {
    // Casual play with a clock: White castles rook first. The rook's move
    // settles (it is made, 4.6) before the king is lifted; the king is set
    // on g1 and the clock pressed 50 ms later, before the king's square
    // has settled; Black lifts his bishop 100 ms after the press. The
    // press completes the castling the hand corrected the rook's move
    // into, not `Rf1` with the king left displaced.
    let readings = "0 -h1 2 +h1 4 -h1 65 +f1 383 -e1 385 +e1 388 -e1 471 +g1 472 -g1 \
        473 +g1 523 white 625 -f8 627 +f8 630 -f8 725 +e7 825 black";
    let out = read_readings(
        "r4b1r/pppk3p/2nq1p2/1B1pp2Q/8/7P/PPPP1PP1/R1B1K2R w KQ - 2 12",
        "casual",
        readings,
    );
    read_exactly(&out, &["e1g1", "f8e7"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn a_capture_pushed_off_then_answered_and_played_on_is_read_and_time_ends() {
    // Casual play without a clock, at blitz speed: White's rook takes on
    // a8 pushing Black's rook off (a8 never reads empty for a scan),
    // Black takes the rook off a8 and recaptures with the f8 rook, and
    // White takes on b5 while the record still waits for the hand it
    // thought at work. The three plies are read once the board rests,
    // and the reading ends: the wait for that hand had renewed its own
    // deadline every 1.5 s, and time never ran out.
    let readings = "0 -a6 2 +a6 4 -a6 5 +a6 8 -a6 976 -a8 978 +a8 980 -a8 983 +a8 \
        984 -a8 986 +a8 988 -a8 989 +a8 990 -a8 992 +a8 1386 -a8 1513 -f8 1514 +f8 \
        1516 -f8 2092 +a8 2492 -b5 3002 -e2 3005 +e2 3008 -e2 4162 +b5 4164 -b5 4166 +b5";
    let out = read_readings(
        "r4rk1/2q2p1p/R2p2p1/1p1Pb3/6Q1/2P5/1P2B1PP/5R1K w - - 2 28",
        "casual",
        readings,
    );
    read_exactly(&out, &["a6a8", "f8a8", "e2b5"]);
    assert_eq!(
        out.session.next_board_deadline(),
        None,
        "a timer outlived the trace"
    );
}

#[test]
fn casual_castling_rook_first_under_the_next_movers_lift_is_castling() {
    // Casual play with a clock: White castles long rook first, the rook
    // slid a1-d1 and settled (made, 4.6) before the king is lifted; the
    // king stays 1.2 s in the air, lands on c1, and Black lifts his
    // knight 150 ms later, before c1 has settled (1.1). The king's move
    // corrected the rook's into castling, released by Black's lift: the
    // press completes O-O-O, and Black's knight move follows.
    let readings = "76 -a1 77 +a1 79 -a1 81 +a1 84 -a1 313 +b1 348 -b1 573 +c1 596 -c1 \
        838 +d1 873 -d1 913 +d1 915 -d1 916 +d1 1470 -e1 1472 +e1 1474 -e1 1475 +e1 \
        1478 -e1 2660 +c1 2661 -c1 2663 +c1 2665 -c1 2668 +c1 2815 -b8 3211 white \
        3745 +a6 4200 black";
    let out = read_readings(
        "rnb1r1k1/ppp2pbp/5np1/4p1B1/2P1P3/2N2N2/PP2BPPP/R3K2R w KQ - 2 10",
        "casual",
        readings,
    );
    read_exactly(&out, &["e1c1", "b8a6"]);
    assert_eq!(completed(&out), [1, 2]);
}

#[test]
fn a_glitch_under_a_piece_in_the_air_is_no_capture_on_a_board_read_every_20_ms() {
    // 3. Bh4 on a board read every 20 ms (every reading a multiple of it):
    // while the bishop is in the air, the f6 knight's square reads empty
    // for one reading (interference). That looks like `Bxf6` made in one
    // scan (a swap); it waits for the bishop to land, as at 10 ms.
    let out = read_readings(
        "rnbqkb1r/pppp1ppp/4pn2/6B1/3P4/8/PPP1PPPP/RN1QKBNR w KQkq - 0 3",
        "fide-standard",
        "0 -g5 100 -f6 120 +f6 300 +h4 500 white",
    );
    read_exactly(&out, &["g5h4"]);
}

#[test]
fn a_capture_is_no_explanation_of_a_piece_set_down_before_the_capturing_piece_left() {
    // Black's illegal a4-a7, completed (7.5) and reinstated: the pawn set
    // back on a4 and at once moved on to a3, then White lifts his c3 rook
    // (Rxc2 to come) before Black's press (a bullet game's readings, the
    // contacts bouncing). The board at the press (a3 full, c3 empty)
    // looks like `...a3 Rxa3`, but a3 was set down before the rook left
    // c3 and never touched since: the rook is in the air.
    let out = read_readings(
        "1r6/4kp1p/8/4P3/p4P2/2R5/1pn3PP/5RK1 b - - 1 29",
        "fide-standard",
        "256 -a4 257 +a4 260 -a4 507 +a7 509 -a7 511 +a7 624 black \
         6107 -a7 6109 +a7 6111 -a7 6113 +a7 6114 -a7 6222 +a4 6223 -a4 \
         6225 +a4 6227 -a4 6228 +a4 6229 -a4 6487 +a3 6489 -a3 6490 +a3 \
         6493 -a3 6495 +a3 6652 -c3 6653 +c3 6654 -c3 6655 +c3 6656 -c3 \
         6781 black 6811 -c2 6814 +c2 6817 -c2 6855 +c2 6857 -c2 6858 +c2 \
         7130 white",
    );
    assert_eq!(played_uci(&out.session), ["a4a3", "c3c2"]);
}

#[test]
fn a_capture_read_as_a_lift_then_played_on_is_recorded_at_the_press() {
    // `9. Qxe2` unseen but for the queen leaving d1 (the bishop it took
    // never read gone), `9...Qxe2+ 10. Kxe2` made by both hands, Black's
    // press before White's: White's press, within the grace a hand at
    // work has, completes the three plies, not an illegal move (7.5).
    // (A blitz game's readings.)
    let out = read_readings(
        "2kr1bnr/ppp2ppp/2n1p3/3P2Nq/8/2N5/PPP1bPPP/R1BQK2R w KQ - 0 9",
        "fide-blitz",
        "690 -d1 1650 -h5 1710 -e2 1920 +e2 2180 -e1 2300 -e2 2370 +e2 2454 black 2676 white \
         2700 -c6 2740 +d6 2800 -d6 2930 +e5 3110 -f2 3180 +f3 3200 -f3 3280 +f4 3297 black \
         3412 white",
    );
    read_exactly(&out, &["d1e2", "h5e2", "e1e2", "c6e5", "f2f4"]);
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3, 4, 5]);
}

#[test]
fn a_capture_pushing_its_piece_off_as_the_lift_bounces_is_made_under_the_next_hand() {
    // `13. Qxe2`: the queen's lift bounces on d1 for 10 ms while the
    // bishop on e2 is pushed off and the queen set down in 6 ms (the
    // square never settles empty); Black lifts c7 before White's press.
    // The push-off dates from the lift's first opening, not from when it
    // settled: the capture is made, not a completed illegal move (7.5).
    // (A bullet game's readings, captures in 5-20 ms.)
    let out = read_readings(
        "r2q1rk1/pppnbppp/3p4/3np1P1/7P/1P1PP3/PBPNbP1N/R2QK2R w KQ - 0 13",
        "fide-blitz",
        "71 -d1 73 +d1 75 -d1 77 +d1 78 -e2 80 -d1 81 +e2 83 -e2 84 +e2 212 -c7 214 +c7 \
         215 -c7 261 white 461 +c6 463 -c6 464 +c6 467 -c6 468 +c6 518 black 669 -d2 \
         672 +d2 675 -d2 678 +d2 679 -d2 816 +e4 1006 -a7 1007 +a7 1010 -a7 1075 white",
    );
    read_exactly(&out, &["d1e2", "c7c6", "d2e4"]);
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3]);
}

#[test]
fn a_jump_whose_first_reading_caught_a_piece_in_the_hand_is_read_when_it_lands() {
    // `10...c6 11. a3 Ba5 12. b4` in one jump, and Black's bishop already
    // lifted from a5 again in that first reading (a5 never read full):
    // the reading is the jump's plies with a hand at work. It sets the
    // bishop down on c7 130 ms later, before the reading settled: five
    // plies from the record, one more than a jump may hide, the last one's
    // landing read. Before, the board was `displaced` for the rest of the
    // game (bullet hands, the sensors not read for 26 s).
    let mut h = Hands::new(
        Some("rnbq1rk1/pppp1ppp/4pn2/8/1bPP4/2N1P3/PP2NPPP/R1BQKB1R b KQ - 2 5"),
        "fide-blitz",
    );
    h.wait(3040)
        .read_again_then(&["a2", "b2", "c7"], &["a3", "c6"], 130);
    play_readings(
        &mut h,
        "0 +c7 324 black 670 -e2 840 +g3 940 -d7 1050 +d6 1090 -d6 1190 +d5 1206 white \
         1400 -c4 1450 -d5 1490 +d5 1535 black 1779 white",
    );
    let out = h.run();
    read_exactly(
        &out,
        &[
            "c7c6", "a2a3", "b4a5", "b2b4", "a5c7", "e2g3", "d7d5", "c4d5",
        ],
    );
}

#[test]
fn a_capture_read_as_a_lift_under_open_lines_is_read_at_the_replys_press() {
    // `5...c5 6. c4 Nc6 7. Nf3` in one jump (or `...Na6 ...Nc5`, `...Nd7
    // ...Nc5`: lines open), `7...cxd4` seen, then `8. Nxd4` read only as
    // the knight lifted from f3 (d4 never read empty: a capture quicker
    // than a scan) and White's press missed; Black's `8...dxc4` in view
    // and his press. The lines waited for a hand at work over the whole
    // exchange (`9. Nxc6 Qxd1+ 10. Kxd1 bxc6 11. Bxc4 Bf5`), until no
    // line explained the board: a completed illegal move (7.5) and the
    // record stopped at move 5 for the game. Black's press completes a
    // move of his (6.7): under the lines White's capture came first.
    let mut h = Hands::new(
        Some("rnbqkbnr/pp2pppp/2p5/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3"),
        "fide-blitz",
    );
    h.wait(3000)
        .read_again_then(&["g1", "c2", "b8"], &["f3", "c4", "c5"], 0);
    play_readings(
        &mut h,
        "590 -d4 610 -c5 860 +d4 880 -d4 920 +d4 1047 black 7410 -f3 8890 -d5 8930 -c4 \
         8980 +c4 9050 black 9210 -d4 9260 -c6 9300 +c6 9420 -d1 9452 white 9470 -d8 \
         9760 +d1 9834 black 9860 -e1 10020 -d1 10050 +d1 10180 -b7 10307 white \
         10460 -c6 10480 +c6 10802 black 11790 -c4 11830 -f1 12010 +c4 12180 -c8 \
         12210 +d7 12270 -d7 12290 +e6 12310 -e6 12350 white 12360 +f5 12455 black",
    );
    let out = h.run();
    read_exactly(
        &out,
        &[
            "c6c5", "c2c4", "b8c6", "g1f3", "c5d4", "f3d4", "d5c4", "d4c6", "d8d1", "e1d1", "b7c6",
            "f1c4", "c8f5",
        ],
    );
}

#[test]
fn a_capture_read_as_a_lift_then_recaptured_under_open_lines_is_read_at_the_press() {
    // `4...c5 5. Nd2 Nxd2` in one jump (lines open, some with `Nc3`), then
    // `12...cxd4` read only as the pawn gone from c5 (d4 never read empty)
    // with Black's press missed, and `13. exd4` in view: White's hand takes
    // Black's pawn off d4 and sets his own there, and presses. The piece
    // taken off d4 is the recapture's, not a sign that `...cxd4` was seen.
    // Before, the lines waited for a hand at work until `13...Bf5` and
    // then none explained the board: a completed illegal move (7.5) and
    // the record stopped at move 4 for the game.
    let mut h = Hands::new(
        Some("rnbqkb1r/ppp1pppp/8/3p4/3PnB2/4P3/PPP2PPP/RN1QKBNR b KQkq - 2 4"),
        "fide-blitz",
    );
    h.wait(3000)
        .read_again_then(&["b1", "e4", "c7"], &["d2", "c5"], 0);
    play_readings(
        &mut h,
        "910 -d1 970 -d2 1020 +d2 1130 -b8 1240 white 1400 +c6 1728 black 2240 -g1 \
         2370 +f3 2560 -d8 2582 white 2620 +c7 2650 -c7 2720 +b6 2970 -c2 3088 black \
         3270 +c3 3314 white 9340 -c5 10090 -d4 10120 -e3 10270 +d4 10604 white \
         10640 -c8 10680 +d7 10710 -d7 10730 +e6 10780 -e6 10820 +f5 10920 -f1 \
         11016 black 11020 +e2 11080 -e2 11190 +d3 11380 -d3 11420 -f5 11442 white \
         11700 +d3",
    );
    let out = h.run();
    read_exactly(
        &out,
        &[
            "c7c5", "b1d2", "e4d2", "d1d2", "b8c6", "g1f3", "d8b6", "c2c3", "c5d4", "e3d4", "c8f5",
            "f1d3", "f5d3",
        ],
    );
}

#[test]
fn a_move_the_presser_made_in_view_outweighs_a_capture_nobody_saw_before_it() {
    // `18...Nxe5 19. dxe5 Bxc5` (bullet, read every 20 ms): the knight's
    // capture read only as d7 lifted (e5 never read empty), so `...Nxc5`
    // explains the board as well; White's pawn lifted from d4 before
    // Black's press. At Black's press after `...Bxc5`, `...Nxc5 dxc5
    // Bxc5` (White's capture nobody saw, then Black's in view) leaves the
    // same squares, but under `...Nxe5` the hands were seen making every
    // ply since, Black's last: the unseen capture is no line of its own.
    let out = read_readings(
        "3rrbk1/ppqn1ppp/2p5/2P1N3/P2P2Q1/4P3/1B3PPP/R3R1K1 b - - 0 18",
        "fide-blitz",
        "147 -d7 467 -d4 639 black 747 -e5 787 +e5 927 -f8 987 -c5 1027 +c5 1143 white \
         1229 black 1247 -e1 1427 +d1 1600 white 1627 -c7 1887 +b6 2256 black 2427 -b2 \
         2627 +c3 2787 -b6 2907 +b3 2954 white 2967 -b3 2987 +b3",
    );
    read_exactly(
        &out,
        &["d7e5", "d4e5", "f8c5", "e1d1", "c7b6", "b2c3", "b6b3"],
    );
}

#[test]
fn a_capture_read_as_a_lift_deeper_under_the_lines_may_be_a_piece_in_the_hand() {
    // `4. g3 O-O 5. Bg2` in one jump (lines open: `...Rg8 ...Kf8` as
    // well), then `6...c5 7. dxc5` with `7. dxc5` read only as the pawn
    // gone from d4 (c5 never read empty) and White's press missed, `7...
    // dxc5 8. Be3` in view, and Black's queen lifted from d8 150 ms before
    // the board settled. No line explained the board within a settle's
    // plies; as deep as a jump hides, only `...Qxd1` did (the queen's
    // capture read as a lift), and when the queen landed on a5 a moment
    // later every line was dropped: a completed illegal move (7.5) and the
    // record stopped at move 4 for the game. The plies before the queen's
    // stand beside, her still in the hand; where she lands tells.
    let mut h = Hands::new(
        Some("rnbqk2r/ppppppbp/5np1/8/2PP4/5N2/PP2PPPP/RNBQKB1R w KQkq - 2 4"),
        "fide-blitz",
    );
    h.wait(3000)
        .read_again_then(&["f1", "e8", "h8"], &["g3", "f8", "g8"], 0);
    play_readings(
        &mut h,
        "1010 -d7 1190 +d6 1312 black 1390 -b1 1540 +c3 1590 -c3 1610 +c3 1666 white \
         1740 -c7 1970 +c5 2168 black 9660 -d4 9770 -d6 9810 -c5 9850 +c5 9890 black \
         10080 -c1 10360 +e3 10459 white 10510 -d8 10680 +a5 10761 black 10840 -d1 \
         10900 +c2 10940 -c2 10990 +b3 11000 -b3 11080 +a4 11207 white 11290 -a5 \
         11530 +b6 11770 -a4 11871 black",
    );
    let out = h.run();
    read_exactly(
        &out,
        &[
            "g2g3", "e8g8", "f1g2", "d7d6", "b1c3", "c7c5", "d4c5", "d6c5", "c1e3", "d8a5", "d1a4",
            "a5b6",
        ],
    );
}

#[test]
fn a_board_settled_with_a_piece_next_to_its_own_square_is_no_slide_under_lines() {
    // 27. Qxc6+ with the black queen taken off c6 first and White's queen
    // in the air for 400 ms: the board settled with two pieces gone, and
    // captures nobody saw (`Qc2 ...Qxf6 Qxc4`) stood beside the hand at
    // work. When the queen landed on c6, those lines were kept as a slide
    // in progress (the bishop from b7, next door, its magnet closing c6
    // before it opens b7) although b7 never opened in the settle; `...Nxc6
    // Nxc4` extended them too, and the record stopped for the rest of the
    // game. A settled board is no slide's overlap.
    let mut h = Hands::new(
        Some("3r3r/pk3p2/2q2P2/2b3B1/1ppnQ2P/6P1/1N3P2/R4RK1 w - - 2 27"),
        "fide-blitz",
    );
    h.wait(3000);
    play_readings(
        &mut h,
        "500 -c6 820 -e4 820 +d5 890 -d5 1060 +c6 1542 white 2830 -c6 3070 -d4 \
         3270 +c6 3469 black 4030 -b2 4330 -c4 4390 +c4 4919 white",
    );
    let out = h.run();
    read_exactly(&out, &["e4c6", "d4c6", "b2c4"]);
}

#[test]
fn an_illegal_move_under_open_lines_is_reported_and_the_lines_wait_for_it_to_be_set_back() {
    // `3...Nc6 4. Bb5` in one jump (lines open: `4. Ba6 b5 5. Bxb7` reaches
    // the same board), four moves on, then White sets his d-pawn down on
    // b1 (7.5, not completed), puts it back and plays `d3`. Every line was
    // dropped at the illegal move, which was then read against the record
    // seven plies behind: the board was reported displaced for the rest of
    // the game. The lines now wait for the pawn to be set back, the
    // illegal move reported under them.
    let mut h = Hands::new(
        Some("rnbqkbnr/pp2pppp/3p4/2p5/4PP2/2N5/PPPP2PP/R1BQKBNR b KQkq - 0 3"),
        "casual",
    );
    h.wait(3000)
        .read_again_then(&["b8", "f1"], &["c6", "b5"], 0);
    play_readings(
        &mut h,
        "2000 -c8 3300 +d7 5000 -g1 5900 +f3 7000 -g7 8600 +g6 10000 -e1 10300 -h1 \
         11300 +f1 11700 +g1 13000 -f8 14000 +g7 16000 -d2 17300 +b1 20300 -b1 \
         21800 +d2 22000 -d2 22600 +d3 24000 -c6 25500 +d4",
    );
    let out = h.run();
    assert_eq!(
        played_uci(&out.session),
        [
            "b8c6", "f1b5", "c8d7", "g1f3", "g7g6", "e1g1", "f8g7", "d2d3", "c6d4"
        ],
        "{:?}",
        kinds(&out.events)
    );
    let alerts: Vec<String> = alerts(&out.events).iter().map(|e| e.to_json()).collect();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(
        alerts[0].contains(r#""type":"illegal_move""#)
            && alerts[0].contains(r#""from":"d2","to":"b1""#)
            && alerts[0].contains(r#""completed":false"#),
        "{alerts:?}"
    );
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e.kind, touchmove_core::events::EventKind::Restored { .. })),
        "{:?}",
        kinds(&out.events)
    );
}

#[test]
fn a_piece_held_for_long_may_have_made_a_capture_nobody_saw() {
    // 16...Qxd2 with the queen read lifted from a5 and nothing more (the
    // white queen taken off d2 and Black's set down in one scan), then
    // White brushes a2 (a nudge) 13 s later and plays Ne7+. The queen was
    // read as held all along, and the brush as her capture on a2: Qxa2+
    // recorded, and Ne7 an illegal move. A piece held longer than a hand
    // holds one while thinking leaves the captures it may have made
    // standing beside the hand; the next moves tell.
    let mut h = Hands::new(
        Some("r4rk1/p1nb1pbp/4p1p1/qp1NP3/3B1PP1/5B2/PPPQ3P/1K1R3R b - - 0 16"),
        "fide-blitz",
    );
    h.wait(3000);
    play_readings(&mut h, "70 -a5 12920 -a2 12990 +a2 19890 -d5 20370 +e7");
    let out = h.run();
    read_exactly(&out, &["a5d2", "d5e7"]);
}

#[test]
fn a_press_after_a_reply_to_a_capture_nobody_saw_reads_the_next_movers_grab_as_his() {
    // 24...Qxb2 read only as the queen lifted from a3 (White's queen
    // taken off b2 and Black's set down in one scan), 25. Rxb2 in view,
    // Black's bishop lifted for ...Bxc3 before White's press. The press
    // found no two plies for the board (the bishop's square empty), and
    // Black's press after ...Bxc3 read his queen's capture on a2 (a
    // square never read empty) instead: a wrong move. At White's press the
    // next mover's lifts since the last piece was set down are his hand at
    // work: the two plies are read, his lift goes into his turn.
    let mut h = Hands::new(
        Some("r2r1k2/1p3ppB/p3p3/6P1/bb6/q1N3R1/PQ1B1P1P/1R2K3 b - - 4 24"),
        "fide-blitz",
    );
    h.wait(3000);
    play_readings(
        &mut h,
        "140 -a3 340 -b1 460 -b2 540 +b2 710 -b4 821 white 860 -c3 1120 +c3 1150 -c3 \
         1160 +c3 1380 black 1420 -d2 1670 -c3 1800 +c3 1860 -c3 1890 +c3 2202 white",
    );
    let out = h.run();
    read_exactly(&out, &["a3b2", "b1b2", "b4c3", "d2c3"]);
}

#[test]
fn the_next_movers_grab_read_at_such_a_press_goes_into_his_turn() {
    // Bullet: 29...Nxb2 read only as the knight lifted (the pawn taken off
    // b2 and the knight set down in one scan), 30. Bxb2 with Black's rook
    // lifted from b7 before White's press, then ...Rxb2 Rxb2 Rxb2 Na4 at
    // speed. The two plies read at the press must leave the rook's lift
    // in Black's turn: forgotten, ...Rxb2 was missed and the record went
    // wrong a ply later.
    let mut h = Hands::new(
        Some("1r4k1/1r1q1pbp/3p2p1/3P4/2Q5/P1Nn3P/1P2RPP1/2BR2K1 b - - 0 29"),
        "fide-blitz",
    );
    h.wait(3000);
    play_readings(
        &mut h,
        "240 -d3 270 -b2 300 -c1 430 +b2 570 -b7 620 white 620 +b6 640 -b6 660 +b5 \
         710 -b5 730 +b4 760 -b4 800 +b3 810 -b3 860 -b2 920 +b2 1070 black 1150 -e2 \
         1360 -b2 1410 +b2 1530 -b8 1570 +b7 1580 -b7 1610 +b6 1620 -b6 1650 +b5 \
         1660 -b5 1667 white 1680 +b4 1710 -b4 1720 +b3 1750 -b3 1770 -b2 1820 +b2 \
         1940 -c3 2040 +b4 2048 black 2080 -b4 2120 +a4 2397 white",
    );
    let out = h.run();
    read_exactly(&out, &["d3b2", "c1b2", "b7b2", "e2b2", "b8b2", "c3a4"]);
}

#[test]
fn a_piece_held_for_long_then_set_back_still_binds_its_player() {
    // Black holds his queen 7 s (long enough for the captures she may
    // have made unseen to stand beside his hand), sets her back, and
    // moves a pawn: the touched queen had to move (4.3a), lines or not.
    let mut h = Hands::new(
        Some("r4rk1/p1nb1pbp/4p1p1/qp1NP3/3B1PP1/5B2/PPPQ3P/1K1R3R b - - 0 16"),
        "fide-blitz",
    );
    h.wait(3000);
    play_readings(&mut h, "70 -a5 7500 +a5 9000 -b5 9500 +b4 9700 black");
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["b5b4"]);
    let alerts: Vec<String> = alerts(&out.events).iter().map(|e| e.to_json()).collect();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(
        alerts[0].contains(r#""type":"touch_move""#) && alerts[0].contains(r#""square":"a5""#),
        "{alerts:?}"
    );
}

#[test]
fn a_press_completing_a_move_read_at_the_opponents_press_is_no_new_move_while_the_next_hand_slides()
{
    // Bullet, a board read every few ms. 21. dxe5 Bxe5 22. Bxa7 Bd5:
    // Black's bishop takes back on e5 before White presses, and White's
    // press reads both plies. White then takes a7 off and slides his
    // bishop from e3 over d4, c5 and b6; Black presses for Bxe5 while
    // the bishop passes b6. His press completes his move (6.7): it is no
    // press telling of `Bb6 axb6` (a7 was lifted before e3, too).
    let mut h = Hands::new(
        Some("4rrk1/ppn1pnbp/2p1b3/P3ppP1/3P4/1N2B1P1/1PPNR1BP/R6K w - - 0 21"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "92 -d4 95 +d4 98 -d4 100 -e5 100 +d4 101 +e5 102 -e5 103 -d4 105 +e5 106 -e5 107 +e5 \
         109 -e5 111 +e5 266 -g7 267 +g7 270 -g7 272 +g7 274 -e5 275 -g7 277 +e5 278 -e5 \
         292 +e5 387 white 495 -a7 496 +a7 498 -a7 501 +a7 504 -a7 511 -e3 541 +d4 561 -d4 \
         582 +c5 601 -c5 620 +b6 635 black 642 -b6 671 +a7 673 -a7 676 +a7 792 white \
         893 -e6 896 +e6 897 -e6 898 +e6 901 -e6 1181 +d5 1183 -d5 1185 +d5 1186 -d5 \
         1188 +d5 1336 black",
    );
    let out = h.run();
    read_exactly(&out, &["d4e5", "g7e5", "e3a7", "e6d5"]);
}

#[test]
fn a_reply_sliding_on_at_the_press_that_ends_an_illegal_move_reinstated_is_no_move_yet() {
    // Blitz, a board read every 10 ms. White's bishop goes e7-g4 (an
    // illegal move, completed by his press, 7.5), then he sets it back
    // on e7 and plays 23. Bxf8. Black's rook slides from a8 over b8, c8,
    // d8 and e8 to take on f8, and White presses while it passes b8:
    // `Bxf8 Rb8` explains that board, but the rook had stood on b8 for
    // 40 ms, sliding on. 23... Rxf8 24. Qg5.
    let mut h = Hands::new(
        Some("r4rk1/pp1qB1pp/8/3p1b1Q/3P1p2/8/PP3PPP/2R1R1K1 w - - 2 23"),
        "fide-blitz",
    );
    h.wait(1000);
    play_readings(
        &mut h,
        "0 -e7 270 +g4 532 white 4430 -g4 4700 +e7 4750 -e7 4760 +e7 4800 -e7 4840 -f8 \
         4870 +f8 4980 -a8 5010 +b8 5050 -b8 5057 white 5060 +c8 5100 -c8 5110 +d8 \
         5160 -d8 5180 +e8 5190 -e8 5240 -f8 5290 +f8 5354 black 5440 -h5 5650 +g5 5800 white",
    );
    let out = h.run();
    assert_eq!(played_uci(&out.session), ["e7f8", "a8f8", "h5g5"]);
    let alerts: Vec<String> = alerts(&out.events).iter().map(|e| e.to_json()).collect();
    assert!(
        alerts
            .iter()
            .all(|a| a.contains(r#""type":"illegal_move""#)),
        "{alerts:?}"
    );
}

#[test]
fn a_press_read_while_lines_are_open_completes_the_move_set_down_before_it() {
    // `1. e4 e5 2. Nf3` in one jump (lines open: `2. Nf3 e5 3. e4`, ...),
    // then `2... Nc6` in view and Black's press 50 ms after the knight
    // landed, before the board settled. The press came after the move
    // was made (4.6) and completes it (6.7): before, the line that
    // remained dated the move at the settle, after the press, and ply 4
    // never had its `move_completed` (the scan period of these readings
    // asks a piece to stand 180 ms before it counts as come to stand).
    let mut h = Hands::new(None, "fide-blitz");
    h.wait(1000)
        .read_again_then(&["e2", "e7", "g1"], &["e4", "e5", "f3"], 2000);
    play_readings(
        &mut h,
        "0 -b8 300 +c6 350 black 2000 -f1 2300 +c4 2400 white",
    );
    let out = h.run();
    read_exactly(&out, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]);
    // (The plies the sensors missed are completed as they are recorded.)
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3, 4, 5]);
}

#[test]
fn a_reply_set_down_and_taken_at_once_at_its_press_may_have_stood_where_it_was_set() {
    // `37. Qxb3` missed (b3 never read empty), then `37... Qd5` and
    // White's hand lifting the queen off d5 12 ms before Black's press
    // (`38. Qxd5 Nxd5` follow, bullet hands). At the press the board
    // read as `Qxb3 Qxd4` too, the queen passing d5 on its way to take
    // on d4 quicker than a scan; the queen standing on d5, taken, never
    // stood beside it, and the record went on with `...Qxd4` (a wrong
    // move). Both lines stay open while the board cannot tell a queen
    // on d4 from the pawn; `f3` (illegal with the queen on d4) tells.
    let out = read_readings(
        "r2q1rk1/pp2bpp1/2p4p/4B3/Nn1Pn3/1b2QN1P/PP3PP1/R2R2K1 w - - 0 19",
        "fide-blitz",
        "20 -e3 30 -d8 240 +d5 360 -d5 372 black 410 -b3 580 +d5 680 -d5 779 white 800 \
         -b4 800 +c4 810 -c4 990 +d5 1120 -d1 1223 black 1290 +e1 1320 -e1 1360 +e1 1534 \
         white 1590 -f7 1770 +f5 2134 black 2220 -a2 2420 +a3 2494 white 2530 -b7 2810 \
         +b5 2940 -a4 3110 +b3 3140 -b3 3155 black 3220 +c3 3269 white 3460 -c3 3490 -d5 \
         3700 +c3 3930 -c3 3954 black 3970 -b2 4080 +c3 4368 white 4410 -e4 4480 +e3 4530 \
         -e3 4580 +d3 4620 -d3 4700 -c3 4720 +c3 4842 black 5520 -g7 5550 -e5 5650 +g7 \
         5850 -g8 5886 white 6120 -g7 6150 +g7 6160 -g7 6180 +g7 6190 -g7 6200 +g7 6270 \
         black 6430 -e1 6720 -e7 6740 +e7 6750 -e7 6760 +e7 6930 -g7 7021 white 7130 +f6 \
         7320 -a1 7350 +b1 7360 -b1 7380 +c1 7410 -c1 7430 +d1 7439 black 7450 -d1 7480 \
         +e1 7520 -e1 7540 +e1 7599 white 7700 -c3 7720 +c4 7760 -c4 7850 +e4 7970 -e7 \
         8136 black 8180 +h7 8273 white 8470 -f8 8580 +h8 8770 -h7 8810 -h8 8840 +h8 8861 \
         black 8950 -h8 9000 -a8 9149 white 9290 +h8 9665 black 10050 -f3 10270 +e5 10450 \
         -h8 10560 +c8 10628 white 10780 -f2 10879 black 11050 +f3 11198 white",
    );
    read_exactly(
        &out,
        &[
            "e3b3", "d8d5", "b3d5", "b4d5", "d1e1", "f7f5", "a2a3", "b7b5", "a4c3", "d5c3", "b2c3",
            "e4c3", "e5g7", "g8g7", "e1e7", "g7f6", "a1e1", "c3e4", "e7h7", "f8h8", "h7h8", "a8h8",
            "f3e5", "h8c8", "f2f3",
        ],
    );
}

#[test]
fn a_piece_taken_at_once_is_let_go_at_the_movers_press_on_a_board_read_every_20_ms() {
    // `3... e6 4. d4 cxd4 5. Nxd4 a6`, bullet hands on a board read every
    // 20 ms: the pawn slides d2-d3-d4 and stands on d4 for four readings
    // (80 ms, less than a release at that period) before Black's hand
    // lifts it to take, and White presses 12 ms after that lift. His
    // hand was on its way to the clock (6.7): the pawn was let go on d4
    // and the lift is Black's (1.1). Before, the press read as one
    // without a move, a completed illegal move (7.5.3 of 2023).
    let out = read_readings(
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        "fide-blitz",
        "0 -e7 100 +e6 280 -d2 370 black 400 +d3 420 -d3 540 +d4 620 -d4 632 white \
         660 -c5 840 +d4 1020 -d4 1080 -f3 1185 black 1240 +d4 1365 white 1440 -a7 1660 +a6 \
         1700 black",
    );
    read_exactly(&out, &["e7e6", "d2d4", "c5d4", "f3d4", "a7a6"]);
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3, 4, 5]);
}

#[test]
fn a_move_set_down_a_reach_before_the_press_is_made_though_it_stood_less_than_a_release() {
    // `9. Nf3 Nbd7 10. Be2 h6`, bullet hands on a board read every 20 ms:
    // the knight set down on f3, Black's knight lifted 80 ms later and
    // White's press 11 ms after that, 91 ms after the knight landed (a
    // release at that period is 100 ms). The press says the move was
    // made (6.7) and the lift is Black's (1.1); before, the board read as
    // White's knight moved while a black piece was off, a completed
    // illegal move (7.5).
    let out = read_readings(
        "rn1q1rk1/pbp2ppp/1p1ppn2/6B1/2PP4/P1Q1P3/1P3PPP/R3KBNR w KQ - 0 9",
        "fide-blitz",
        "0 -g1 140 +f3 220 -b8 231 white 240 +c8 280 -c8 360 +d7 480 -f1 700 black \
         720 +e2 802 white 820 -h7 1060 +h6 1116 black",
    );
    read_exactly(&out, &["g1f3", "b8d7", "f1e2", "h7h6"]);
    assert_eq!(support::completed_plies(&out.events), [1, 2, 3, 4]);
}

#[test]
fn a_slide_reaching_a_square_as_it_leaves_the_next_is_not_let_go_at_the_other_press() {
    // `29... Qxg6 30. Be6 Qg1+ 31. Rxg1 Ra5`, bullet hands read every
    // millisecond: White's bishop slides c8-d7-e6, d7 closing 2 ms before
    // c8 opens, and Black presses for `...Qxg6` 51 ms after d7 closed,
    // while the bishop is still on it. The press says Black's queen was
    // let go, not White's bishop: read as Black's queen still standing on
    // d7 (`...Qd7`, set down a reach before his press), the record
    // went wrong.
    let out = read_readings(
        "r1B3nr/4k3/1p1q2Q1/1P4P1/1n3P2/4P3/P2N2KP/R2q4 b - - 3 29",
        "fide-blitz",
        "136 +e6 149 -d6 151 +d6 154 -d6 157 +d6 160 -d6 171 -e6 193 +f6 250 -f6 289 -g6 \
         291 +g6 293 -g6 316 +g6 318 -g6 321 +g6 323 -g6 326 +g6 467 +d7 469 -c8 470 +c8 \
         472 -c8 518 black 521 -d7 570 +e6 571 -e6 573 +e6 574 -e6 576 +e6 689 -d1 860 \
         white 933 +g1 934 -g1 937 +g1 1114 black 1995 -a1 1997 +a1 2000 -a1 2159 -g1 \
         2160 +g1 2162 -g1 2164 +g1 2166 -g1 2170 +g1 2173 -g1 2174 +g1 2176 -g1 2178 +g1 \
         2332 white 2366 -a8 2369 +a8 2372 -a8 2426 +a7 2460 -a7 2497 +a6 2544 -a6 2597 \
         +a5 2599 -a5 2602 +a5 2605 -a5 2608 +a5 2641 -a5 2661 +a5 2996 black",
    );
    read_exactly(&out, &["d6g6", "c8e6", "d1g1", "a1g1", "a8a5"]);
}

#[test]
fn the_next_movers_slide_stepping_in_one_reading_at_the_press_is_his_hand_at_work() {
    // `43. Qxf5+ Qf7 44. Qxf7+ Kxf7 45. Bc7 Ba5`, bullet hands on a board
    // read every 20 ms: White's queen takes on f5 quicker than a reading
    // (f5 never read empty), and Black's queen slides a7-b7-c7-...-f7 to
    // block the check, the step from b7 to c7 read in one reading, 17 ms
    // before White's press. That step is Black's hand at work (1.1), not
    // plies the sensors missed: read as a jump, the press opened lines
    // of `Qc7` (illegal after `Qxf5+`) and `Qg4 Qc7 Qxf5 Qf7` was
    // recorded.
    let out = read_readings(
        "5k2/q7/1p4Q1/4Bp1p/1bPP3P/6P1/7K/8 w - - 0 43",
        "fide-blitz",
        "0 -g6 360 +b7 380 -a7 400 -b7 400 +c7 417 white 440 -c7 500 +e7 520 -e7 540 +f7 \
         724 black 780 -f5 820 +f6 860 -f6 900 -f7 920 +f7 1269 white 1600 -f8 1820 -f7 \
         1880 +f7 1985 black 2000 -e5 2160 +c7 2268 white 2400 -b4 2640 +a5 2754 black",
    );
    read_exactly(&out, &["g6f5", "a7f7", "f5f7", "f8f7", "e5c7", "b4a5"]);
}

#[test]
fn a_jump_read_with_the_movers_piece_in_the_hand_is_no_capture_it_could_make() {
    // `19. g4 Nh6` in one jump, the sensors read again with White's g4
    // pawn already in the hand (`20. g5`, bullet): the board (g3 and f5
    // empty, h6 filled, g4 empty) is also `20. gxh5`, the h5 pawn's
    // square reading occupied either way. Before, the capture was
    // adopted at once and `g5` read as a touch-move breach; where the
    // pawn lands tells.
    let out = read_readings(
        "2k3rr/p2qbpp1/1pn1p3/3pPn1p/2pP1P2/P1P2NPP/1PQ1NBK1/R6R w - - 5 19",
        "fide-blitz",
        "950 -g3 950 -f5 950 +h6 1180 +g5 1230 -g5 1270 +g5 1343 white 1450 -h6 \
         1560 +f5 1670 -e2 1722 black 1930 +g3 1960 -g3 2000 +g3 2085 white 2240 -f5 \
         2280 -g3 2320 +g3 2404 black 3580 -g3 3630 -f2 3840 +g3 4105 white 4180 -g7 \
         4300 +g6 4390 black",
    );
    read_exactly(
        &out,
        &[
            "g3g4", "f5h6", "g4g5", "h6f5", "e2g3", "f5g3", "f2g3", "g7g6",
        ],
    );
}

#[test]
fn a_capture_taken_up_again_before_the_other_players_press_is_read_standing() {
    // `40...Qxd5` with the d5 pawn never read leaving (a capture quicker
    // than a scan), `41. Kg2`, and Black's queen lifted from d5 on its way
    // to d2 before White's press (bullet). At the press the board shows
    // d5 empty: before, `40...Qxg4` (g4 never read empty either) was
    // adopted and the record stopped at `41. Kg2`. The presser's own pawn
    // square lifted since his last set-down is read as standing beside
    // it: the queen's landing on d2 tells.
    let out = read_readings(
        "5r2/p5k1/3p4/3P2q1/1Pp1rpP1/P1P1pRPR/4Q2K/8 b - - 0 40",
        "fide-blitz",
        "250 -g5 1040 -h2 1190 +g2 1340 -d5 1484 white 1630 +d2 1756 black 1780 -g2 \
         1940 +f1 2183 white",
    );
    read_exactly(&out, &["g5d5", "h2g2", "d5d2", "g2f1"]);
}

#[test]
fn a_piece_let_stand_on_a_square_is_a_ply_of_the_line_that_explains_the_press() {
    // `17...b4` read in one reading (b5 and b4 at once, the press missed),
    // `18. a4` sliding over a3, and Black taking en passant before White's
    // press (bullet). At the press the board is also `17...bxc4 18. a3`
    // (c4 never read empty), whose pieces the hands lifted in order; but
    // the pawn let stand on b4 for 400 ms, and on a4, are no ply of it.
    // Before, that line was adopted and the record went wrong at ply 34.
    let out = read_readings(
        "3r1rk1/4npbp/bqn1p1p1/ppp1P3/2PpNP2/1P1P1NP1/P2BQ1BP/R4RK1 b - - 4 17",
        "fide-blitz",
        "390 -b5 390 +b4 400 -a2 490 +a3 570 -a3 650 +a4 780 -b4 830 -a4 880 +a3 \
         995 white 1040 -a1 1073 black 1290 -a3 1330 +a3 1490 -c6 1570 white 1670 +b4 \
         1842 black 2710 -b4 2760 -d2 3040 +b4 3275 white 3570 -b4 3620 -a5 3850 +b4 \
         4186 black",
    );
    read_exactly(
        &out,
        &["b5b4", "a2a4", "b4a3", "a1a3", "c6b4", "d2b4", "a5b4"],
    );
}

#[test]
fn an_illegal_move_under_lines_of_plies_nobody_saw_leaves_the_lines_open() {
    // `24. Bxb3` with the b3 pawn never read leaving (or `24. Bxg6`: lines
    // open), `24...Rc3` seen made, then White's bishop set down on f3 from
    // f2 (7.5, no clock) and moved on to g1. Before, the lines (whose
    // first ply nobody saw) were dropped at the illegal move and five
    // plies from the record (`Qf3 Rxc2 Be1 Rg2 Bc3`) adopted for the
    // board. The lines wait for the bishop to be put right, beside the
    // plies from the record, which the next move drops.
    let out = read_readings(
        "2r2bk1/3n1p1p/q3pnp1/3p4/1p1P1PP1/rp2P2P/P1B2BQ1/R1N2R1K w - - 0 24",
        "fide-blitz",
        "160 -c2 1150 -c8 1380 +c3 1940 -f2 2260 +f3 3390 -f3 3760 +g1 4160 -f6 \
         4250 +e5 4280 -e5 4320 +e4 5190 -f1 5560 +e1 6040 -f8 6380 +e7",
    );
    // (Which bishop capture, only a later move of it tells: the lines
    // stay open, nothing recorded meanwhile.)
    assert!(
        played_uci(&out.session).is_empty(),
        "{:?}",
        kinds(&out.events)
    );
    let open = out.events.iter().rev().find_map(|e| match &e.kind {
        touchmove_core::events::EventKind::Candidates { lines } => Some(lines.clone()),
        _ => None,
    });
    assert_eq!(
        open.unwrap_or_default(),
        [
            "c2b3 c8c3 f2g1 f6e4 f1e1 f8e7",
            "c2g6 c8c3 f2g1 f6e4 f1e1 f8e7"
        ],
        "{:?}",
        kinds(&out.events)
    );
    // (Legal play from the record explained the board too, five plies
    // beside the lines until the next move: no alert.)
    assert!(alerts(&out.events).is_empty(), "{:?}", kinds(&out.events));
}

#[test]
fn a_jump_read_with_a_piece_lifted_from_where_the_jump_took_it_is_read_when_it_lands() {
    // `22...Rae8 23. Nd4 Qg6` unread, the sensors read again with White's
    // hand holding the rook it took off e8 (`24. Rxe8`, bullet): the board
    // shows a8, c2 and g7 empty, d4 and g6 filled, e8 empty. Before, only
    // lines with a piece held from a square the jump emptied were searched
    // for a hand at work, and `...Rae8 Na1 ...Rxe1 Nc2 ...Qg6 Nd4` was
    // recorded. The hand may hold a piece from a square the jump's pieces
    // went to (empty in the record too); where it lands tells.
    let out = read_readings(
        "r4rk1/1ppb2qp/p2p4/3P2p1/2P3p1/1P4P1/P1NQ1P1P/4RRK1 b - - 3 22",
        "fide-blitz",
        "190 -c2 190 -g7 190 -a8 190 +d4 190 +g6 220 -e1 530 +e8 580 -e8 610 +e8 \
         730 -f8 850 -e8 880 +e8 981 white 1110 -f1 1155 black 1230 +e1 1270 -e1 \
         1310 +e1 1405 white 1530 -e8 1580 -e1 1640 +e1 1998 black 2230 -e1 2250 -d2 \
         2520 +e1 2642 white 2660 -g6 2780 +f6 2980 -e1 3080 +e4 3088 black 3279 white \
         3280 -f6 3540 +e5 3731 black",
    );
    read_exactly(
        &out,
        &[
            "a8e8", "c2d4", "g7g6", "e1e8", "f8e8", "f1e1", "e8e1", "d2e1", "g6f6", "e1e4", "f6e5",
        ],
    );
}

#[test]
fn a_second_jump_keeps_the_line_the_hands_kept_before_long_lines_from_the_record() {
    // `27...Rd7 28. Nd4` unread, `28...Kg7` seen, then `29. Re3 Nxd4
    // 30. Rxe8 Nf3+` unread (bullet). The true line is seven plies from
    // the record; lines searched afresh from the record reach the board in
    // five or six, and filled the bound on open lines before it, so the
    // true line was cut off and `...Nd4 Rxd4 ...Rd7 Rxd5 ...Kg7` was
    // recorded at the next move. The plies a jump hid are counted from
    // the line it extends.
    let out = read_readings(
        "3rr1k1/p4p1p/4np2/3p4/8/1P1R1NP1/P4P1P/4R1K1 b - - 0 27",
        "fide-blitz",
        "630 -f3 630 -d8 630 +d4 630 +d7 2070 -g8 2170 +h8 2230 -h8 2310 +g7 2640 black \
         5140 -d3 5140 -d4 5140 -e6 5140 +f3 5870 -g1 6010 +f1 6200 -f3 6230 -e1 \
         6259 white 6290 +e1 6410 -e1 6460 -f1 6514 black 6580 +e1 6761 white 7740 -f6 \
         7950 +f5 8070 -e1 8268 black 8330 +d2 8470 -f5 8492 white 8760 +f4",
    );
    read_exactly(
        &out,
        &[
            "d8d7", "f3d4", "g8g7", "d3e3", "e6d4", "e3e8", "d4f3", "g1f1", "f3e1", "f1e1", "f6f5",
            "e1d2", "f5f4",
        ],
    );
}

#[test]
fn a_press_with_the_piece_lifted_again_after_it_was_set_down_waits_for_its_landing() {
    // White sets the pawn down on e4 for 80 ms and lifts it again (a
    // hand adjusting, a wobble); Black's hand lifts e7, and White presses
    // with the pawn still in his hand, then sets it back on e4. Not a
    // press without a move (7.5): the press waits for the landing.
    let mut h = Hands::new(None, "fide-blitz");
    h.wait(1000)
        .lift_then("e2", 130)
        .place_then("e4", 80)
        .lift_then("e4", 40);
    h.lift_then("e7", 140).clock_then(White, 120);
    h.place_then("e4", 200)
        .place_then("e5", 150)
        .clock_then(Black, 1000);
    read_exactly(&h.run(), &["e2e4", "e7e5"]);
}
