//! The same position in the sense of Article 9.2: the same player to move,
//! the same pieces on the same squares, and the same possible moves —
//! castling rights and a *capturable* en passant square included.
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Position, Square};

/// What makes two positions the same under Article 9.2.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PositionKey {
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    /// Only when an en passant capture is legal: a double step that cannot
    /// be taken en passant does not make the position different (9.2).
    en_passant: Option<Square>,
}

impl PositionKey {
    pub fn of(position: &Chess) -> PositionKey {
        PositionKey {
            board: position.board().clone(),
            turn: position.turn(),
            castling_rights: position.castles().castling_rights(),
            en_passant: position.ep_square(EnPassantMode::Legal),
        }
    }
}

/// How often the latest position has stood on the board, looking back over
/// `keys` (oldest first, the latest last). Only positions since the last
/// capture or pawn move can repeat, so the caller may pass just those.
pub(crate) fn occurrences_of_last(keys: &[PositionKey]) -> usize {
    match keys.last() {
        Some(last) => keys.iter().filter(|k| *k == last).count(),
        None => 0,
    }
}
