//! Promotion (3.7e): the pawn on the last rank and the new piece, named
//! by the player (a button or the API) or, without a name, a queen.

use super::*;

impl Inference {
    /// A promotion choice was entered.
    pub fn promote(&mut self, t: Millis, role: Role) {
        self.advance(t);
        // A promotion among moves the sensors did not read (3.7e): the
        // piece named tells the lines apart.
        if self.promotion_named(t, role) {
            return;
        }
        if self.has_open_lines() {
            self.promotion_choice = Some(role);
            return;
        }
        if let Some(p) = self.promotion
            && self.last_change.is_none()
        {
            let _ = p;
            self.make_promotion(t, role);
        } else {
            self.promotion_choice = Some(role);
        }
    }

    pub(super) fn promotion_on_board(&mut self, t: Millis, m: &Move) {
        let (Some(from), to) = (m.from(), m.to()) else {
            return;
        };
        if let Some(role) = self.promotion_choice.take() {
            self.make_promotion_move(t, from, to, role);
            return;
        }
        if self.promotion.map(|p| (p.from, p.to)) != Some((from, to)) {
            self.emit(t, EventKind::PromotionPending { square: to });
        }
        self.promotion = Some(PendingPromotion { from, to, since: t });
    }

    /// `m`, a promotion read from the board, made to the piece named
    /// for it (3.7e) if one was; other moves as they are.
    pub(super) fn named_piece(&mut self, m: Move) -> Move {
        let Some(chosen) = self
            .promotion_choice
            .and_then(|named| promoting_to(&m, named))
        else {
            return m;
        };
        if self.game.position().is_legal(chosen) {
            self.promotion_choice = None;
            chosen
        } else {
            m
        }
    }

    pub(super) fn make_promotion(&mut self, t: Millis, role: Role) {
        if let Some(p) = self.promotion.take() {
            self.make_promotion_move(t, p.from, p.to, role);
        }
    }

    pub(super) fn make_promotion_move(&mut self, t: Millis, from: Square, to: Square, role: Role) {
        let m = self
            .game
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(from) && m.to() == to && m.promotion() == Some(role));
        match m {
            Some(m) => self.make_move(t, m),
            // The chosen piece cannot be (never happens for q/r/b/n): queen.
            None => {
                if let Some(m) = self.game.legal_moves().into_iter().find(|m| {
                    m.from() == Some(from) && m.to() == to && m.promotion() == Some(Role::Queen)
                }) {
                    self.make_move(t, m);
                }
            }
        }
    }
}

/// The promotion `m` with `role` as its new piece; `None` when `m` is no
/// promotion.
pub(super) fn promoting_to(m: &Move, role: Role) -> Option<Move> {
    match *m {
        Move::Normal {
            role: piece,
            from,
            capture,
            to,
            promotion: Some(_),
        } => Some(Move::Normal {
            role: piece,
            from,
            capture,
            to,
            promotion: Some(role),
        }),
        _ => None,
    }
}
