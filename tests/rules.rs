//! The rules core against positions from real play and the Laws' own examples.
use shakmaty::san::San;
use shakmaty::{Color, KnownOutcome, Position};
use touchmove_core::game::{DrawClaim, EndReason, Game, IllegalMovePenalty, Profile, Start};

fn game(fen: &str, profile: Profile) -> Game {
    Game::new(Start::parse(fen).unwrap(), profile)
}

/// Plays SAN moves; panics with the move that is not legal.
fn play(game: &mut Game, sans: &str) {
    for (i, san) in sans.split_whitespace().enumerate() {
        if san.ends_with('.') {
            continue;
        }
        let mv = san
            .parse::<San>()
            .unwrap()
            .to_move(game.position())
            .unwrap_or_else(|e| panic!("move {i} {san}: {e} in {}", game.fen()));
        game.play(&mv, 1000 * i as u64).unwrap();
    }
}

#[test]
fn checkmate_ends_the_game_at_once() {
    // Fool's mate.
    let mut g = game("standard", Profile::FideStandard);
    play(&mut g, "f3 e5 g4 Qh4#");
    let end = g.end().unwrap();
    assert_eq!(end.reason, EndReason::Checkmate);
    assert_eq!(
        end.outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
    assert_eq!(end.result(), "0-1");
    // No move after the end.
    let any = g.position().legal_moves();
    assert!(any.is_empty());
}

#[test]
fn checkmate_from_real_play_legal_vs_saint_brie() {
    // Légal's mate as played by Legall de Kermeur (Paris, 1750).
    let mut g = game("standard", Profile::Fide2005);
    play(
        &mut g,
        "e4 e5 Nf3 d6 Bc4 Bg4 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#",
    );
    assert_eq!(g.end().unwrap().reason, EndReason::Checkmate);
    assert_eq!(g.end().unwrap().result(), "1-0");
}

#[test]
fn stalemate_ends_the_game_at_once() {
    // Queen and king against king: the careless Qb6 stalemates.
    let mut g = game("k7/8/3Q4/8/8/8/8/1K6 w - - 0 60", Profile::FideStandard);
    play(&mut g, "Qb6");
    assert_eq!(g.end().unwrap().reason, EndReason::Stalemate);
    assert_eq!(g.end().unwrap().result(), "1/2-1/2");
}

#[test]
fn dead_position_that_is_not_insufficient_material() {
    // A locked pawn wall that no pawn can break; White's light-squared
    // bishop cannot touch Black's pawns, all on dark squares. While White's
    // knight lives it could; once the king takes it, no one can ever mate and
    // the game ends at once (5.2b), with plenty of material on the board.
    let mut g = game(
        "4k3/3N4/1p1p1p1p/pPpPpPpP/P1P1P1P1/3B4/8/4K3 b - - 0 40",
        Profile::FideStandard,
    );
    assert!(!g.is_over());
    play(&mut g, "Kxd7");
    assert!(!g.position().is_insufficient_material());
    assert_eq!(g.end().unwrap().reason, EndReason::DeadPosition);
}

#[test]
fn a_winnable_position_is_not_ended() {
    // The same wall with a dark-squared White bishop, which can take
    // Black's pawns: chasolver finds the game alive.
    let mut g = game(
        "4k3/2b5/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/8/2B1K3 w - - 0 40",
        Profile::FideStandard,
    );
    play(&mut g, "Bd2");
    assert_eq!(g.end(), None);
    assert_ne!(
        g.can_checkmate(Color::White),
        touchmove_core::game::dead::Winnability::Unwinnable
    );
}

#[test]
fn threefold_counts_the_capturable_en_passant() {
    // After 2...d5 White may take en passant: that position is not the same
    // (9.2) as the later ones with the same pieces, where it may not.
    let mut g = game("standard", Profile::FideStandard);
    play(&mut g, "e4 Nc6 e5 d5");
    assert_eq!(g.repetitions(), 1);
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetitions(), 1, "the en passant position differs");
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetitions(), 2);
    assert!(
        g.claimable().is_empty(),
        "only two occurrences without en passant"
    );
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.claimable(), vec![DrawClaim::Threefold]);
    assert!(!g.is_over(), "threefold is claimed, not automatic");
    assert!(g.claim_draw(DrawClaim::Threefold).is_some());
    assert_eq!(g.end().unwrap().reason, EndReason::Threefold);
}

#[test]
fn an_uncapturable_double_step_does_not_make_a_new_position() {
    // 2...d5 with no White pawn beside it: no en passant, so the position
    // after 2...d5 already counts as the first occurrence.
    let mut g = game("standard", Profile::FideStandard);
    play(&mut g, "Nf3 Nc6 Ng1 d5");
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetitions(), 2);
}

fn shuffle_knights(g: &mut Game, times: usize) {
    for _ in 0..times {
        play(g, "Nf3 Nf6 Ng1 Ng8");
    }
}

#[test]
fn fivefold_is_automatic_in_2023_not_in_2005() {
    let mut g = game("standard", Profile::FideStandard);
    shuffle_knights(&mut g, 3);
    assert!(!g.is_over());
    shuffle_knights(&mut g, 1);
    assert_eq!(g.repetitions(), 5);
    assert_eq!(g.end().unwrap().reason, EndReason::Fivefold);

    let mut g = game("standard", Profile::Fide2005);
    shuffle_knights(&mut g, 6);
    assert_eq!(g.repetitions(), 7);
    assert!(!g.is_over());
    assert!(g.claimable().contains(&DrawClaim::Threefold));
}

#[test]
fn seventy_five_moves_is_automatic_in_2023_not_in_2005() {
    let fen = "8/8/8/4k3/8/8/2R5/4K3 w - - 148 120";
    let mut g = game(fen, Profile::FideStandard);
    play(&mut g, "Rc3");
    assert!(!g.is_over());
    play(&mut g, "Kd4");
    assert_eq!(g.end().unwrap().reason, EndReason::SeventyFiveMoves);

    let mut g = game(fen, Profile::Fide2005);
    play(&mut g, "Rc3 Kd4");
    assert!(!g.is_over());
    assert_eq!(g.claimable(), vec![DrawClaim::FiftyMoves]);
}

#[test]
fn seventy_five_move_rule_yields_to_mate_on_the_150th_half_move() {
    // 9.6.2: if the last move resulted in checkmate, that takes precedence.
    let mut g = game(
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 120",
        Profile::FideStandard,
    );
    play(&mut g, "Ra8#");
    assert_eq!(g.position().halfmoves(), 150);
    assert_eq!(g.end().unwrap().reason, EndReason::Checkmate);
    assert_eq!(g.end().unwrap().result(), "1-0");
}

#[test]
fn fifty_moves_becomes_claimable() {
    let mut g = game("8/8/8/4k3/8/8/2R5/4K3 w - - 98 80", Profile::FideStandard);
    play(&mut g, "Rc3");
    assert!(g.claimable().is_empty());
    play(&mut g, "Kd4");
    assert_eq!(g.claimable(), vec![DrawClaim::FiftyMoves]);
}

const ROOK_ENDING: &str = "8/8/8/4k3/8/8/2R5/4K3 w - - 0 60";

#[test]
fn illegal_moves_in_2005_two_penalties_then_loss() {
    let mut g = game(ROOK_ENDING, Profile::Fide2005);
    let r1 = g.complete_illegal_move(Color::Black);
    assert_eq!(
        (r1.count, r1.penalty, r1.end),
        (1, IllegalMovePenalty::TimeToOpponent(120_000), None)
    );
    let r2 = g.complete_illegal_move(Color::Black);
    assert_eq!(
        (r2.count, r2.penalty, r2.end),
        (2, IllegalMovePenalty::TimeToOpponent(120_000), None)
    );
    let r3 = g.complete_illegal_move(Color::Black);
    assert_eq!(r3.count, 3);
    assert_eq!(r3.penalty, IllegalMovePenalty::Loss);
    let end = r3.end.unwrap();
    assert_eq!(
        (end.reason, end.result()),
        (EndReason::IllegalMoves, "1-0".to_owned())
    );
}

#[test]
fn illegal_moves_in_2023_one_penalty_then_loss() {
    for (profile, minutes) in [
        (Profile::FideStandard, 120_000),
        (Profile::FideRapid, 60_000),
        (Profile::FideBlitz, 60_000),
    ] {
        let mut g = game(ROOK_ENDING, profile);
        let r1 = g.complete_illegal_move(Color::Black);
        assert_eq!(
            r1.penalty,
            IllegalMovePenalty::TimeToOpponent(minutes),
            "{profile}"
        );
        assert_eq!(r1.end, None);
        let r2 = g.complete_illegal_move(Color::Black);
        assert_eq!(r2.end.unwrap().reason, EndReason::IllegalMoves, "{profile}");
        assert_eq!(r2.end.unwrap().result(), "1-0");
    }
}

#[test]
fn illegal_moves_losing_side_facing_a_lone_king_draws() {
    // White's second illegal move in 2023 would lose, but Black has a bare
    // king and cannot checkmate by any series of legal moves: drawn.
    let mut g = game(ROOK_ENDING, Profile::FideStandard);
    g.complete_illegal_move(Color::White);
    let r = g.complete_illegal_move(Color::White);
    assert_eq!(r.end.unwrap().reason, EndReason::IllegalMovesUnwinnable);
    assert_eq!(r.end.unwrap().result(), "1/2-1/2");
}

#[test]
fn illegal_moves_in_casual_play_have_no_consequence() {
    let mut g = game(ROOK_ENDING, Profile::Casual);
    for n in 1..=5 {
        let r = g.complete_illegal_move(Color::White);
        assert_eq!(
            (r.count, r.penalty, r.end),
            (n, IllegalMovePenalty::None, None)
        );
    }
}

#[test]
fn chess960_castling_both_ways_with_king_and_rook_side_by_side() {
    // Start position #250 (NRKQBBNR): the king on c1 stands beside the
    // b1 rook. Long castling leaves the king where it is and puts the rook
    // on d1; short castling takes the king to g1 and the h-rook to f1.
    let start = Start::chess960(250).unwrap();
    assert_eq!(
        start.fen(),
        "nrkqbbnr/pppppppp/8/8/8/8/PPPPPPPP/NRKQBBNR w KQkq - 0 1"
    );
    let sq = |name: &str| name.parse::<shakmaty::Square>().unwrap();

    let mut g = Game::new(start.clone(), Profile::FideStandard);
    play(&mut g, "d4 d5 Qd3 Qd6 O-O-O O-O-O");
    let board = g.position().board().clone();
    assert_eq!(board.king_of(Color::White), Some(sq("c1")));
    assert_eq!(board.king_of(Color::Black), Some(sq("c8")));
    assert!(board.rooks().contains(sq("d1")) && board.rooks().contains(sq("d8")));
    // The king does not move: UCI in Chess960 writes king-takes-rook.
    assert_eq!(g.moves()[4].uci.to_string(), "c1b1");
    assert_eq!(g.moves()[4].san.to_string(), "O-O-O");

    let mut g = Game::new(start, Profile::FideStandard);
    play(
        &mut g,
        "d4 d5 Qd3 Qd6 Bd2 Bd7 g3 g6 Bg2 Bg7 Nf3 Nf6 O-O O-O",
    );
    let board = g.position().board().clone();
    assert_eq!(board.king_of(Color::White), Some(sq("g1")));
    assert_eq!(board.king_of(Color::Black), Some(sq("g8")));
    assert!(board.rooks().contains(sq("f1")) && board.rooks().contains(sq("f8")));
    assert_eq!(g.moves()[12].uci.to_string(), "c1h1");
}

#[test]
fn takeback_restores_the_position_and_the_end() {
    let mut g = game("standard", Profile::Casual);
    play(&mut g, "f3 e5 g4 Qh4#");
    assert!(g.is_over());
    g.take_back(1).unwrap();
    assert!(!g.is_over());
    assert_eq!(g.ply(), 3);
    assert!(g.take_back(4).is_err());
}

#[test]
fn flag_fall_loses_unless_the_opponent_cannot_mate() {
    // A lone king cannot mate: White's flag falls, drawn (6.9).
    let mut g = game(ROOK_ENDING, Profile::FideStandard);
    assert_eq!(
        g.flag_fell(Color::White).unwrap().reason,
        EndReason::FlagUnwinnable
    );
    // King and knight against king and pawn: mate is possible, so lost.
    let mut g = game("8/8/8/8/8/4k3/6p1/4K1N1 w - - 0 1", Profile::FideStandard);
    let end = g.flag_fell(Color::Black).unwrap();
    assert_eq!(
        (end.reason, end.result()),
        (EndReason::Flag, "1-0".to_owned())
    );
}
