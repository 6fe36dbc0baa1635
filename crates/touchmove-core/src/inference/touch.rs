//! Touch-move (Articles 4.3 and 4.4): which obligation the first pieces
//! touched in a turn created, and whether the move made kept it.
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

use super::board_math::{captured_square, moving_from};

/// A piece lifted in the current turn (the sensor board's touch, F.2.2 of 2005).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    pub square: Square,
    pub piece: Piece,
    /// Squares whose pieces were off the board when this one was lifted:
    /// pieces touched together.
    pub with: Bitboard,
    /// When the piece was lifted.
    pub at: crate::Millis,
}

/// A broken obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Breach {
    pub article: &'static str,
    pub square: Square,
}

/// Checks `m`, made by the side to move in `pos`, against the pieces that
/// side touched this turn (in order). Only the first own and first
/// opponent piece bind (4.3); king then rook binds to castle (4.4a); rook
/// then king forbids castling on that side (4.4b).
pub fn check(pos: &Chess, touches: &[Touch], m: &Move) -> Option<Breach> {
    let us = pos.turn();
    let own: Vec<&Touch> = touches.iter().filter(|t| t.piece.color == us).collect();
    let first_own = own.first().copied();
    let first_theirs = touches.iter().find(|t| t.piece.color != us);
    let legal = pos.legal_moves();
    let moved = moving_from(m);

    // 4.4b: rook, then king, and castling made with that rook. Pieces
    // that left their squares in one reading (a board read after a gap)
    // were not seen touched in any order: no breach is assumed.
    if let Move::Castle { king, rook } = *m {
        let rook_at = own.iter().find(|t| t.square == rook);
        let king_at = own.iter().find(|t| t.square == king);
        if let (Some(r), Some(k)) = (rook_at, king_at)
            && r.at < k.at
        {
            return Some(Breach {
                article: "4.4b",
                square: rook,
            });
        }
    }

    // 4.4a: king first, then a rook it could castle with: must castle.
    if let Some(first) = first_own
        && first.piece.role == Role::King
        && !m.is_castle()
    {
        for t in own.iter().skip(1) {
            if t.piece.role == Role::Rook
                && t.at > first.at
                && legal
                    .iter()
                    .any(|c| matches!(*c, Move::Castle { king, rook } if king == first.square && rook == t.square))
            {
                return Some(Breach {
                    article: "4.4a",
                    square: first.square,
                });
            }
        }
    }

    // 4.3c: an own and an opponent piece touched together: capture it
    // with that piece if that is legal.
    if let (Some(mine), Some(theirs)) = (first_own, first_theirs)
        && (theirs.with.contains(mine.square) || mine.with.contains(theirs.square))
    {
        let required =
            |c: &Move| c.from() == Some(mine.square) && captured_square(c) == Some(theirs.square);
        if legal.iter().any(required) && !required(m) {
            return Some(Breach {
                article: "4.3c",
                square: mine.square,
            });
        }
    }

    // 4.3a: the first own piece touched must be moved if it can be. When
    // several left their squares in the same reading, which was first is
    // not known: a breach only if none of them was moved and each could be.
    let first_together = || {
        own.iter()
            .take_while(move |t| first_own.is_some_and(|f| t.at == f.at))
    };
    if let Some(mine) = first_own
        && first_together().all(|t| {
            !moved.contains(t.square) && legal.iter().any(|c| moving_from(c).contains(t.square))
        })
    {
        return Some(Breach {
            article: "4.3a",
            square: mine.square,
        });
    }

    // 4.3b: the first opponent piece touched must be captured if it can be.
    if let Some(theirs) = first_theirs
        && captured_square(m) != Some(theirs.square)
        && legal
            .iter()
            .any(|c| captured_square(c) == Some(theirs.square))
    {
        return Some(Breach {
            article: "4.3b",
            square: theirs.square,
        });
    }
    None
}

/// Whether a lifted piece of `side` is explained by a move in progress:
/// an own piece that can move, or an opponent piece that can be captured.
pub(crate) fn lift_explained(pos: &Chess, square: Square, color: Color) -> bool {
    let legal = pos.legal_moves();
    if color == pos.turn() {
        legal.iter().any(|m| moving_from(m).contains(square))
    } else {
        legal.iter().any(|m| captured_square(m) == Some(square))
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Square};

    use super::*;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn touch(pos: &Chess, square: Square, at: crate::Millis) -> Touch {
        Touch {
            square,
            piece: pos.board().piece_at(square).unwrap(),
            with: Bitboard::EMPTY,
            at,
        }
    }

    const BLACK_CASTLES: &str = "r3k2r/pppbbqpp/2npp3/8/3PN3/2PB1NQ1/PP3PPP/R3K2R b KQkq - 2 12";

    fn long_castle() -> Move {
        Move::Castle {
            king: Square::E8,
            rook: Square::A8,
        }
    }

    #[test]
    fn rook_then_king_forbids_castling_that_side() {
        let pos = position(BLACK_CASTLES);
        let touches = [touch(&pos, Square::A8, 100), touch(&pos, Square::E8, 400)];
        let breach = check(&pos, &touches, &long_castle()).unwrap();
        assert_eq!((breach.article, breach.square), ("4.4b", Square::A8));
    }

    #[test]
    fn king_and_rook_gone_in_one_reading_were_touched_in_no_known_order() {
        let pos = position(BLACK_CASTLES);
        let touches = [touch(&pos, Square::A8, 100), touch(&pos, Square::E8, 100)];
        assert_eq!(check(&pos, &touches, &long_castle()), None);
    }

    #[test]
    fn pieces_gone_in_one_reading_bind_only_if_none_of_them_moved() {
        let pos = position(BLACK_CASTLES);
        // The d7 bishop and the c6 knight left together; the knight moved.
        let touches = [touch(&pos, Square::D7, 50), touch(&pos, Square::C6, 50)];
        let knight = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(Square::C6) && m.to() == Square::B4)
            .unwrap();
        assert_eq!(check(&pos, &touches, &knight), None);
        // The bishop first, then the knight moved: 4.3a on d7.
        let touches = [touch(&pos, Square::D7, 50), touch(&pos, Square::C6, 300)];
        let breach = check(&pos, &touches, &knight).unwrap();
        assert_eq!((breach.article, breach.square), ("4.3a", Square::D7));
    }
}
