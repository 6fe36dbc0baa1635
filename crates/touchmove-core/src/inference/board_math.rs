//! What a move does to an occupancy board: which squares it empties and
//! fills, and which squares a hand must have lifted to make it.
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Square};

/// The board's occupancy after `m` is played in `pos`.
pub fn occupancy_after(pos: &Chess, m: &Move) -> Bitboard {
    let occ = pos.board().occupied();
    match *m {
        Move::Normal { from, to, .. } => occ.without(from).with(to),
        Move::EnPassant { from, to } => occ
            .without(from)
            .with(to)
            .without(Square::from_coords(to.file(), from.rank())),
        Move::Castle { king, rook } => {
            let (king_to, rook_to) = castling_targets(pos.turn(), king, rook);
            occ.without(king).without(rook).with(king_to).with(rook_to)
        }
        Move::Put { to, .. } => occ.with(to),
    }
}

/// The colours after `m`: (white, black) occupancy.
pub(crate) fn colours_after(pos: &Chess, m: &Move) -> (Bitboard, Bitboard) {
    let mut after = pos.clone();
    after.play_unchecked(*m);
    (after.board().white(), after.board().black())
}

/// Where king and rook go when castling with these pieces.
pub(crate) fn castling_targets(side: Color, king: Square, rook: Square) -> (Square, Square) {
    let cs = if rook.file() > king.file() {
        CastlingSide::KingSide
    } else {
        CastlingSide::QueenSide
    };
    (cs.king_to(side), cs.rook_to(side))
}

/// Squares a hand must have lifted from to make `m`: the moving piece's
/// square, a captured piece's square, and for castling both king and rook.
pub(crate) fn must_lift(m: &Move) -> Bitboard {
    match *m {
        Move::Normal {
            from, to, capture, ..
        } => {
            let b = Bitboard::from_square(from);
            if capture.is_some() { b.with(to) } else { b }
        }
        Move::EnPassant { from, to } => {
            Bitboard::from_square(from).with(Square::from_coords(to.file(), from.rank()))
        }
        Move::Castle { king, rook } => Bitboard::from_square(king).with(rook),
        Move::Put { .. } => Bitboard::EMPTY,
    }
}

/// Every square `m` touches: lifted from or put on.
pub(crate) fn involved(pos: &Chess, m: &Move) -> Bitboard {
    must_lift(m) | (occupancy_after(pos, m) ^ pos.board().occupied())
}

/// The square of the piece `m` captures, if any.
pub fn captured_square(m: &Move) -> Option<Square> {
    match *m {
        Move::Normal {
            to,
            capture: Some(_),
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// The squares where `m` sets its pieces: those it fills, and a captured
/// piece's square (the capturing piece replaces it, or for en passant the
/// captured pawn leaves it).
pub(crate) fn arrival_squares(pos: &Chess, m: &Move) -> Bitboard {
    (occupancy_after(pos, m) & !pos.board().occupied())
        | captured_square(m).map_or(Bitboard::EMPTY, Bitboard::from_square)
}

/// The squares the plies of `line`, played from `pos`, set pieces down on.
pub(crate) fn lands_on(pos: &Chess, line: &[Move]) -> Bitboard {
    let mut p = pos.clone();
    let mut lands = Bitboard::EMPTY;
    for m in line {
        lands |= arrival_squares(&p, m);
        p.play_unchecked(*m);
    }
    lands
}

/// The squares a piece leaves in `m` (king and rook both for castling).
pub(crate) fn moving_from(m: &Move) -> Bitboard {
    match *m {
        Move::Castle { king, rook } => Bitboard::from_square(king).with(rook),
        _ => m.from().map_or(Bitboard::EMPTY, Bitboard::from_square),
    }
}

/// A move of one piece to an empty square (no capture, castling or en
/// passant): its squares, from and to.
pub(crate) fn to_an_empty_square(m: &Move) -> Option<(Square, Square)> {
    match *m {
        Move::Normal {
            from,
            to,
            capture: None,
            ..
        } => Some((from, to)),
        _ => None,
    }
}

/// The squares a pawn on `from` may be pushed to (one step, or two from
/// its first rank), neither through nor onto a square of `occupied`;
/// none for other pieces.
pub(crate) fn pushes(from: Square, piece: shakmaty::Piece, occupied: Bitboard) -> Bitboard {
    if piece.role != shakmaty::Role::Pawn {
        return Bitboard::EMPTY;
    }
    let step = |sq: Square| {
        sq.offset(piece.color.fold_wb(8, -8))
            .filter(|s| !occupied.contains(*s))
    };
    let Some(one) = step(from) else {
        return Bitboard::EMPTY;
    };
    let first_rank = from.rank()
        == piece
            .color
            .fold_wb(shakmaty::Rank::Second, shakmaty::Rank::Seventh);
    let two = step(one).filter(|_| first_rank);
    Bitboard::from_square(one) | two.map_or(Bitboard::EMPTY, Bitboard::from_square)
}
