//! Dead positions and unwinnability: whether a side can still checkmate by
//! any series of legal moves (Articles 5.2b and 9.6 of 2005; 5.2.2 since
//! 2017), which also decides flag falls (6.9) and losing illegal moves (7.5.5).
//!
//! shakmaty's material check answers most positions; the chasolver crate
//! (the unwinnability analyser of Ambrona) answers the rest, through FEN
//! because it works on the `chess` crate's board.
use std::str::FromStr;

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Fen};

/// What the analysis proved about one side's chances to checkmate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winnability {
    /// A series of legal moves exists in which this side checkmates.
    Winnable,
    /// No series of legal moves lets this side checkmate.
    Unwinnable,
    /// Not decided within the analyser's budget (or not expressible): the
    /// position is "not proven dead" and nothing may be concluded from it.
    Unknown,
}

/// How much work to spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// After every move: material, then chasolver's fast, sound check.
    Fast,
    /// Where a decision hangs on it: chasolver's full helpmate search.
    Full,
}

/// Can `winner` still checkmate in `position`?
pub(crate) fn winnability(
    position: &Chess,
    mode: CastlingMode,
    winner: Color,
    depth: Depth,
) -> Winnability {
    if position.has_insufficient_material(winner) {
        return Winnability::Unwinnable;
    }
    let Some(board) = to_chess_board(position, mode) else {
        return Winnability::Unknown;
    };
    let winner = to_chess_color(winner);
    match depth {
        Depth::Fast => {
            if chasolver::is_unwinnable_fast(&board, winner) {
                Winnability::Unwinnable
            } else {
                Winnability::Unknown
            }
        }
        Depth::Full => match chasolver::winnability(&board, winner) {
            Some(chasolver::Winnability::Unwinnable) => Winnability::Unwinnable,
            Some(chasolver::Winnability::Winnable { .. }) => Winnability::Winnable,
            None => Winnability::Unknown,
        },
    }
}

/// A dead position: neither side can checkmate by any series of legal moves.
/// Only a proof counts; an undecided analysis is "not proven dead".
pub(crate) fn is_dead(position: &Chess, mode: CastlingMode, depth: Depth) -> bool {
    if position.is_insufficient_material() {
        return true;
    }
    [Color::White, Color::Black]
        .into_iter()
        .all(|side| winnability(position, mode, side, depth) == Winnability::Unwinnable)
}

fn to_chess_color(color: Color) -> chess::Color {
    match color {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// The position on the `chess` crate's board, or None where that crate
/// cannot express it: Chess960 castling rights with a king or rook off the
/// standard squares (dropping the rights would make the analysis unsound).
fn to_chess_board(position: &Chess, mode: CastlingMode) -> Option<chess::Board> {
    if mode == CastlingMode::Chess960 && !expressible_in_standard(position) {
        return None;
    }
    let fen = Fen::from_position(position, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).ok()
}

/// Castling rights only on a- and h-file rooks with the king on the e-file:
/// the only castling standard FEN can say.
fn expressible_in_standard(position: &Chess) -> bool {
    let board = position.board();
    position
        .castles()
        .castling_rights()
        .into_iter()
        .all(|rook| {
            let color = if rook.rank() == shakmaty::Rank::First {
                Color::White
            } else {
                Color::Black
            };
            let king_home = shakmaty::Square::from_coords(shakmaty::File::E, rook.rank());
            matches!(rook.file(), shakmaty::File::A | shakmaty::File::H)
                && board.king_of(color) == Some(king_home)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Start;

    fn pos(fen: &str) -> (Chess, CastlingMode) {
        let s = Start::from_fen(fen).unwrap();
        (s.position().clone(), s.castling_mode())
    }

    #[test]
    fn locked_pawn_wall_with_harmless_bishops_is_dead() {
        // A pawn wall across the board that no pawn can break; White's
        // light-squared bishop cannot attack Black's pawns (all on dark
        // squares) nor Black's dark-squared bishop White's (all on light):
        // material is sufficient, yet no one can mate.
        let (p, m) = pos("4k3/2b5/1p1p1p1p/pPpPpPpP/P1P1P1P1/3B4/8/4K3 w - - 0 1");
        assert!(!p.is_insufficient_material());
        assert!(is_dead(&p, m, Depth::Fast));
    }

    #[test]
    fn lichess_locked_wall_is_unwinnable_for_black_only() {
        // chasolver's example (lichess ijyj0mHa): Black cannot mate, White can.
        let (p, m) = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1");
        assert_eq!(
            winnability(&p, m, Color::Black, Depth::Full),
            Winnability::Unwinnable
        );
        assert_eq!(
            winnability(&p, m, Color::White, Depth::Full),
            Winnability::Winnable
        );
        assert!(!is_dead(&p, m, Depth::Full));
    }

    #[test]
    fn ordinary_middlegame_is_winnable() {
        let (p, m) = pos("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        assert!(!is_dead(&p, m, Depth::Fast));
        assert_eq!(
            winnability(&p, m, Color::White, Depth::Full),
            Winnability::Winnable
        );
    }

    #[test]
    fn king_and_knight_against_king_and_pawn_can_mate() {
        // The side with the knight can mate (the pawn's king can be boxed in).
        let (p, m) = pos("8/8/8/8/8/4k3/6p1/4K1N1 b - - 0 1");
        assert_eq!(
            winnability(&p, m, Color::White, Depth::Full),
            Winnability::Winnable
        );
        let (lone, m) = pos("8/8/8/8/8/4k3/8/4K1N1 b - - 0 1");
        assert_eq!(
            winnability(&lone, m, Color::White, Depth::Fast),
            Winnability::Unwinnable
        );
        assert_eq!(
            winnability(&lone, m, Color::Black, Depth::Fast),
            Winnability::Unwinnable
        );
    }
}
