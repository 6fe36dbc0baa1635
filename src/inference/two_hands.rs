//! Two hands on the board (Article 1.1): a player has the move as soon as
//! the opponent's move is made (4.6), before the clock press (6.7). The
//! next mover may lift a piece while the last move's piece is still
//! settling; and a piece brushed for a moment is not lifted at all.

use super::*;

/// A move found on the board under pieces lifted since it was made.
#[derive(Debug, Clone)]
pub(super) struct MadeUnder {
    pub mv: Move,
    /// The squares lifted since the move was made: the next mover's hand.
    pub gone: Bitboard,
    /// When the move's last piece was set down.
    pub release: Millis,
}

/// Which lifted pieces may belong to the next mover's hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hands {
    /// Only pieces of the side that gets the move: the mover has no reason
    /// to lift them once his own piece stands.
    NextMoversPieces,
    /// Any piece lifted after the move's release: the mover's hand is on
    /// the clock, so the lifts are the next mover's (a capture of the piece
    /// just moved, say).
    AnyAfterRelease,
}

impl Inference {
    /// The piece on `sq` is about to leave it. If it is a piece of the side
    /// not having the move, and the board shows a legal move of the side
    /// having it, that move's last piece is released now: the lift is the
    /// next mover's, who has the move (1.1, 4.6).
    pub(super) fn next_mover_lifts(&mut self, t: Millis, sq: Square) {
        if !self.started
            || self.game.is_over()
            || self.awaiting_press.is_some()
            || self.promotion.is_some()
            || self.pending.is_some()
            || !matches!(self.alert, Alert::None | Alert::Illegal { .. })
        {
            return;
        }
        let pos = self.game.position();
        if pos.board().color_at(sq) != Some(!pos.turn()) || self.board == pos.board().occupied() {
            return;
        }
        let cands = self.candidates(self.board, false);
        if let Some(m) = self.pick(&cands)
            && !m.is_promotion()
            && !must_lift(&m).contains(sq)
        {
            self.evaluate(t);
        }
    }

    /// A piece was set down on `sq`, where a piece stood at the last settle.
    /// Back within the nudge time, it was brushed, not lifted: no touch.
    pub(super) fn put_back(&mut self, t: Millis, sq: Square) {
        let Some(lifted) = self.turn.lifted_at[sq as usize] else {
            return;
        };
        if t.saturating_sub(lifted) >= self.config.nudge_ms {
            return;
        }
        self.turn
            .touches
            .retain(|x| !(x.square == sq && x.at == lifted));
    }

    /// A legal move of the side having the move whose position the board
    /// shows but for pieces lifted since its last piece was set down (the
    /// next mover's hand, `hands` says which). One move, or none when
    /// several could be meant.
    pub(super) fn made_under_lifts(&self, board: Bitboard, hands: Hands) -> Option<MadeUnder> {
        let pos = self.game.position();
        let mover = pos.turn();
        let mut found: Vec<MadeUnder> = Vec::new();
        for m in pos.legal_moves() {
            if m.is_promotion() {
                continue;
            }
            let after = occupancy_after(pos, &m);
            let gone = after & !board;
            if gone.is_empty() || (board & !after).any() || (gone & !self.turn.lifts).any() {
                continue;
            }
            if !self.hand_made(&m) {
                continue;
            }
            let arrived = (after & !pos.board().occupied())
                | captured_square(&m)
                    .filter(|c| after.contains(*c))
                    .map_or(Bitboard::EMPTY, Bitboard::from_square);
            let Some(release) = arrived
                .into_iter()
                .map(|s| self.turn.placed_at[s as usize])
                .collect::<Option<Vec<Millis>>>()
                .and_then(|times| times.into_iter().max())
            else {
                continue;
            };
            let began = must_lift(&m)
                .into_iter()
                .filter_map(|s| self.turn.lifted_at[s as usize])
                .min()
                .unwrap_or(release);
            let mut after_pos = pos.clone();
            after_pos.play_unchecked(m);
            let fits = gone.into_iter().all(|y| {
                let Some(at) = self.turn.lifted_at[y as usize] else {
                    return false;
                };
                match after_pos.board().color_at(y) {
                    Some(c) if c != mover => at >= began && !must_lift(&m).contains(y),
                    Some(_) => hands == Hands::AnyAfterRelease && at > release,
                    None => false,
                }
            });
            if fits
                && self
                    .white
                    .is_none_or(|w| (colours_after(pos, &m).0 & board) == w)
            {
                found.push(MadeUnder {
                    mv: m,
                    gone,
                    release,
                });
            }
        }
        let first = found.first()?;
        let same = found
            .iter()
            .all(|f| f.mv.from() == first.mv.from() && f.mv.to() == first.mv.to());
        same.then(|| found.swap_remove(0))
    }

    /// Makes the move found under the next mover's lifts at `t`; the lifts
    /// made after its release start the next turn (touches of the player
    /// now having the move, 4.3).
    pub(super) fn make_under_lifts(&mut self, t: Millis, made: MadeUnder) {
        let old = std::mem::take(&mut self.turn);
        // The next mover's lifts are not the mover's touches.
        self.turn = TurnHands {
            touches: old
                .touches
                .iter()
                .copied()
                .filter(|x| !made.gone.contains(x.square))
                .collect(),
            ..old.clone()
        };
        self.make_move(t, made.mv);
        let mover_now = self.game.turn();
        for y in made.gone {
            let i = y as usize;
            self.turn.lifts.add(y);
            self.turn.lifted_at[i] = old.lifted_at[i];
            self.turn.active_at[i] = old.active_at[i];
            let Some(at) = old.lifted_at[i] else { continue };
            if at <= made.release {
                // Lifted before the move was made: not a touch of the
                // player having the move (4.3 binds him only).
                continue;
            }
            if let Some(piece) = self.game.position().board().piece_at(y) {
                let with = self.game.position().board().occupied() & !self.board;
                let _ = mover_now;
                self.turn.touches.push(Touch {
                    square: y,
                    piece,
                    with: with.without(y),
                    at,
                });
            }
        }
        self.turn.touches.sort_by_key(|x| x.at);
    }
}
