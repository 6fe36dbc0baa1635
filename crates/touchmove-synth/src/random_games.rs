//! Seeded random legal games, biased towards the moves a sensor board finds
//! hard: captures, castling, en passant and promotions.
use std::collections::HashMap;

use rand::{RngExt, SeedableRng, rngs::StdRng};
use shakmaty::{Chess, EnPassantMode, Move, Position, Role, zobrist::Zobrist64};

/// A random game of at most `plies` plies from the standard start.
pub fn random_game(seed: u64, plies: usize) -> (Chess, Vec<Move>) {
    let start = Chess::default();
    let moves = random_game_from(&start, seed, plies);
    (start, moves)
}

/// A random game of at most `plies` plies from `start`. It stops early at
/// checkmate, stalemate, insufficient material, a threefold repetition or
/// the fifty-move rule (Articles 5, 9.2, 9.3), so every game ends cleanly.
pub fn random_game_from(start: &Chess, seed: u64, plies: usize) -> Vec<Move> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = start.clone();
    let mut seen: HashMap<Zobrist64, u32> = HashMap::new();
    let mut moves = Vec::new();
    while moves.len() < plies && !pos.is_game_over() && pos.halfmoves() < 100 {
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal);
        let count = seen.entry(key).or_insert(0);
        *count += 1;
        if *count >= 3 {
            break;
        }
        let legal = pos.legal_moves();
        let weights: Vec<u32> = legal.iter().map(|&m| weight(&pos, m)).collect();
        let total: u32 = weights.iter().sum();
        let mut n = rng.random_range(0..total);
        let mut chosen = legal[0];
        for (&m, &w) in legal.iter().zip(&weights) {
            if n < w {
                chosen = m;
                break;
            }
            n -= w;
        }
        pos.play_unchecked(chosen);
        moves.push(chosen);
    }
    moves
}

/// How much a move is preferred: the rare, hard moves much more.
fn weight(pos: &Chess, m: Move) -> u32 {
    match m {
        Move::EnPassant { .. } => 400,
        Move::Castle { .. } => 400,
        Move::Normal {
            promotion: Some(role),
            ..
        } => match role {
            Role::Queen => 300,
            _ => 60,
        },
        Move::Normal {
            role: Role::Pawn,
            from,
            ..
        } => {
            // Pawns move forward more as they advance, so games reach promotions.
            let advance = match pos.turn() {
                shakmaty::Color::White => u32::from(from.rank()),
                shakmaty::Color::Black => 7 - u32::from(from.rank()),
            };
            let capture = if m.is_capture() { 30 } else { 0 };
            8 + 6 * advance + capture
        }
        Move::Normal {
            capture: Some(_), ..
        } => 30,
        // The king wanders less, so castling rights live longer.
        Move::Normal {
            role: Role::King, ..
        } => 2,
        _ => 6,
    }
}
