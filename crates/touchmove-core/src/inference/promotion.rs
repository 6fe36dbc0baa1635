//! Promotion (3.7e): the pawn on the last rank and the new piece, named
//! by the player (a button or the API) or, without a name, a queen.

use super::two_hands::MadeUnder;
use super::*;
use shakmaty::Rank;

/// A player names the piece he promotes to as he sets it down (or soon
/// after, even once the opponent has taken over, 1.1): a name this long
/// after the new piece stood, while the opponent holds a pawn of his own
/// off the rank before the last, is the opponent's for his promotion.
const NAME_WITH_PIECE_MS: Millis = 500;

impl Inference {
    /// A promotion choice was entered.
    pub fn promote(&mut self, t: Millis, role: Role) {
        self.advance(t);
        // The promotion was made before its piece was named: the name
        // comes in time.
        if self.released_promotion().is_some() {
            if self.name_is_the_next_movers(t) {
                // His promotion is on its way: the one waiting was never
                // named, a queen; the name waits for his.
                self.make_released_promotion(t);
                self.promotion_choice = Some(role);
            } else {
                self.promotion_choice = Some(role);
                self.make_released_promotion(t);
            }
            return;
        }
        // A promotion among moves the sensors did not read (3.7e): the
        // piece named tells the lines apart.
        if self.promotion_named(t, role) {
            return;
        }
        if self.has_open_lines() {
            self.promotion_choice = Some(role);
            return;
        }
        // (Not while a hand holds the piece from its square: the new
        // piece is made once it stands there.)
        if let Some(p) = self.promotion
            && self.last_change.is_none()
            && self.board.contains(p.to)
        {
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
        self.promotion = Some(PendingPromotion {
            from,
            to,
            since: t,
            released: None,
        });
    }

    /// The promotion on the board was made with its piece unnamed (the
    /// next mover's touch, 1.1 and 4.6; the mover's press, 6.7): instead
    /// of guessing a queen, the record waits for the name (3.7e) until the
    /// board needs the position (a piece set down, the next mover's press),
    /// [`InferenceConfig::promotion_wait_ms`] has passed, or the input ends;
    /// only then is the piece a queen. False when no promotion awaits its
    /// piece (one named is made at once instead).
    pub(super) fn release_unnamed_promotion(&mut self, released: ReleasedPromotion) -> bool {
        if self.promotion_choice.is_some() {
            return false;
        }
        let Some(p) = &mut self.promotion else {
            return false;
        };
        match &mut p.released {
            Some(r) => {
                r.pressed |= released.pressed;
                r.touches_from = r.touches_from.or(released.touches_from);
            }
            None => p.released = Some(released),
        }
        true
    }

    /// Whether the board shows the promotion on the board with its new
    /// square empty: a hand holds the piece from there (the pawn being
    /// swapped for the new piece, or the opponent taking it to capture).
    pub(super) fn promoted_piece_in_hand(&self, board: Bitboard) -> bool {
        let Some(p) = self.promotion.filter(|p| p.released.is_none()) else {
            return false;
        };
        let pos = self.game.position();
        pos.legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(p.from) && m.to() == p.to)
            .is_some_and(|m| occupancy_after(pos, &m).without(p.to) == board)
    }

    /// Without a clock, the promotion made at `t` by the opponent's touch
    /// (1.1, 4.6). When the new piece is off its square, lifted since it
    /// was set down, the opponent's hand took it first (to capture it):
    /// his turn began with that lift.
    pub(super) fn released_by_touch(&self, t: Millis) -> ReleasedPromotion {
        let taken = self.promotion.and_then(|p| {
            self.turn.lifted_at[p.to as usize]
                .filter(|lift| *lift > p.since && !self.board.contains(p.to))
        });
        ReleasedPromotion::by_touch(taken.map_or(t, |lift| lift.min(t)))
    }

    /// Whether a name entered at `t`, while a promotion made unnamed
    /// waits, is the next mover's for a promotion of his own: his pawn on
    /// the rank before the last is off its square (in his hand, or set
    /// down on the last rank), and the name comes later than a player
    /// names the piece he has just set down ([`NAME_WITH_PIECE_MS`]).
    fn name_is_the_next_movers(&self, t: Millis) -> bool {
        let Some(p) = self.promotion else {
            return false;
        };
        // When the new piece was set down: its first contact, however it
        // rocked after (a square open for less than a nudge is no lift).
        let lifted_before = |u: Millis| {
            self.turn
                .removals
                .iter()
                .filter(|(r, s)| *s == p.to && *r < u)
                .map(|(r, _)| *r)
                .max()
        };
        let placed = self
            .turn
            .placements
            .iter()
            .filter(|(u, s)| *s == p.to && *u <= t)
            .map(|(u, _)| *u)
            .filter(|&u| {
                lifted_before(u).is_none_or(|r| {
                    self.turn.first_contact(p.to, u) >= r.saturating_add(self.config.nudge_ms)
                })
            })
            .max()
            .map(|u| self.turn.first_contact(p.to, u))
            .unwrap_or(p.since);
        if t < placed.saturating_add(NAME_WITH_PIECE_MS) {
            return false;
        }
        let pos = self.game.position();
        let next = !pos.turn();
        let seventh = Bitboard::from_rank(next.fold_wb(Rank::Seventh, Rank::Second));
        (pos.board().by_piece(next.pawn()) & seventh & !self.board).any()
    }

    /// The promotion made with its piece still unnamed, if one waits.
    pub(super) fn released_promotion(&self) -> Option<ReleasedPromotion> {
        self.promotion.and_then(|p| p.released)
    }

    /// The promotion made with its piece unnamed is recorded: the piece
    /// named meanwhile, or a queen (3.7e). What the next mover's hands did
    /// since it was made stays his turn's; the mover's press, if it came,
    /// completes it (6.7).
    pub(super) fn make_released_promotion(&mut self, t: Millis) {
        let Some(released) = self.released_promotion() else {
            return;
        };
        let old = self.turn.clone();
        let mover = self.game.turn();
        let plies = self.game.moves().len();
        let role = self.promotion_choice.take().unwrap_or(Role::Queen);
        match released.under_lifts {
            // (Which touches are whose, this tells from the move's release.)
            Some(made) => {
                let mv = promoting_to(&made.mv, role).unwrap_or(made.mv);
                let mv = if self.game.position().is_legal(mv) {
                    mv
                } else {
                    made.mv
                };
                self.make_now_under_lifts(t, MadeUnder { mv, ..made });
            }
            None => {
                // Touches since it was made are the next mover's, not the
                // mover's (4.3 binds the player having the move).
                self.turn.touches.retain(|x| x.at < released.at);
                self.make_promotion(t, role);
            }
        }
        if self.game.moves().len() != plies + 1 {
            return;
        }
        if let Some(from) = released
            .hands_from
            .filter(|_| released.under_lifts.is_none())
        {
            self.carry_over(&old, from);
        }
        if let Some(from) = released
            .touches_from
            .filter(|_| released.under_lifts.is_none())
        {
            for x in old.touches.iter().filter(|x| x.at >= from) {
                if let Some(piece) = self.game.position().board().piece_at(x.square)
                    && piece.color != mover
                {
                    self.turn.touches.push(Touch { piece, ..*x });
                }
            }
        }
        if released.pressed
            && let Some(ply) = self.awaiting_press.take()
        {
            self.emit(t, EventKind::MoveCompleted { ply });
        }
    }

    /// Whether the board shows the promotion made with its piece unnamed,
    /// but for pieces lifted since (the next mover's hand at work, perhaps
    /// on the new piece to capture it): nothing there needs the position
    /// yet. Not once a piece was set down since.
    pub(super) fn only_lifted_since_release(&self, board: Bitboard) -> bool {
        let Some((p, released)) = self.promotion.and_then(|p| Some((p, p.released?))) else {
            return false;
        };
        if self.turn.placements.iter().any(|(t, _)| *t > released.at) {
            return false;
        }
        let pos = self.game.position();
        let Some(m) = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(p.from) && m.to() == p.to)
        else {
            return false;
        };
        (board & !occupancy_after(pos, &m)).is_empty()
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
