//! Which legal move the hands made: the moves whose position the board
//! shows, narrowed to what was lifted this turn, and the touched piece
//! first (4.3).

use super::*;

impl Inference {
    /// Legal moves whose position the board shows. Unless `relaxed`, every
    /// square the move must have emptied was seen lifted this turn.
    pub(super) fn candidates(&self, board: Bitboard, relaxed: bool) -> Vec<Move> {
        let pos = self.game.position();
        pos.legal_moves()
            .into_iter()
            .filter(|m| occupancy_after(pos, m) == board)
            .filter(|m| relaxed || self.hand_made(m))
            .filter(|m| {
                self.white
                    .is_none_or(|w| colours_after(pos, m).0 == w || m.is_promotion())
            })
            .collect()
    }

    /// Whether what the hands did this turn can make `m`: every square it
    /// empties was lifted, and a captured piece's square was busy after the
    /// capturing piece was lifted (a piece touched and put back before is
    /// not taken).
    pub(super) fn hand_made(&self, m: &Move) -> bool {
        self.hand_made_in(m, &[])
    }

    /// [`Self::hand_made`], for a move that follows `line`, plies the
    /// hands made this turn or the sensors missed: a capturing piece that
    /// one of them brought to its square was lifted for the capture only
    /// after it arrived, so its last lift counts (the first was the piece
    /// it took there).
    pub(super) fn hand_made_in(&self, m: &Move, line: &[Move]) -> bool {
        self.hand_made_after(m, line, None, !line.is_empty())
    }

    /// [`Self::hand_made_in`], the capturing piece lifted after `after`
    /// when given (the turn's hands span several plies of open lines: a
    /// lift before the last of them belongs to an earlier ply). Under
    /// plies the sensors missed (`missed_plies`, also once they are
    /// recorded and `line` is empty), a piece the jump set back on its
    /// square captures only with a lift after that.
    pub(super) fn hand_made_after(
        &self,
        m: &Move,
        line: &[Move],
        after: Option<Millis>,
        missed_plies: bool,
    ) -> bool {
        if !(must_lift(m) & !(self.turn.seen())).is_empty() {
            return false;
        }
        if self.set_down_before_it_left(m) {
            return false;
        }
        if let Move::Normal {
            from,
            to,
            capture: Some(_),
            ..
        } = *m
        {
            let arrived = line.iter().any(|p| p.to() == from);
            let lifted = if arrived {
                self.turn.last_lift(from)
            } else if let Some(after) = after {
                self.turn.first_lift_after(from, after)
            } else if let Some(set_back) = self.turn.placed_at[from as usize]
                && (missed_plies || self.turn.restored_at.is_some_and(|r| set_back <= r))
            {
                // Under plies the sensors missed, or once the board was
                // restored: a piece set down on its square since its first
                // lift (the board set by a jump, an illegal move
                // reinstated) was lifted again to capture; what the hands
                // did on the captured square before took nothing.
                self.turn.first_lift_after(from, set_back)
            } else {
                self.turn.first_lift(from)
            };
            let Some(lifted) = lifted else {
                return false;
            };
            // (From its first raw toggle: contacts bouncing as a slid
            // piece leaves its square settle the lift later.)
            let lifted = self.turn.first_contact(from, lifted);
            // A piece slid onto the captured square next door may close its
            // switch a moment before it opens the one it leaves. (Farther
            // off, a slide opens its square before it reaches any other.)
            let overlap = slide_overlap(from, to);
            let after_lift = |a: Millis| a.saturating_add(overlap) >= lifted;
            // Once there, it may rock as it lands while its magnet still
            // holds its own square, up to a settle (as a move to an empty
            // square next door, [`Self::set_down_before_it_left`]).
            let held = if overlap > 0 {
                self.config.settle_ms
            } else {
                0
            };
            return self.turn.captured_square_worked(to, after_lift)
                && !self.turn.landed_from_a_full_square(from, to, lifted, held);
        }
        true
    }

    /// Whether the square `m` (a move to an empty square) reaches was last
    /// read filled before its piece first left its own: that is another
    /// piece (the next mover's slide passing over it, a piece brushed),
    /// not this one, which arrives only after it has left (a slide's
    /// magnet may close the square next door a moment before).
    pub(super) fn set_down_before_it_left(&self, m: &Move) -> bool {
        let Some((from, to)) = to_an_empty_square(m) else {
            return false;
        };
        fn on(sq: Square, list: &[(Millis, Square)]) -> impl Iterator<Item = Millis> + '_ {
            list.iter().filter(move |(_, s)| *s == sq).map(|(u, _)| *u)
        }
        // Read on the raw contacts (a piece rocking as it lands settles
        // late): its square's first opening, the new square's last closing
        // (another piece may pass over either square later).
        let (Some(left), Some(set)) = (
            on(from, &self.turn.toggles)
                .chain(on(from, &self.turn.removals))
                .min(),
            on(to, &self.turn.toggles)
                .chain(on(to, &self.turn.placements))
                .max(),
        ) else {
            return false;
        };
        // A piece slid or rocked next door may hold both squares for a
        // while (its magnet between them, the hand tilting it), up to a
        // settle; a scan apart anywhere (the readings are that coarse).
        let allowance = if shakmaty::attacks::king_attacks(from).contains(to) {
            self.config.settle_ms
        } else {
            0
        };
        set.saturating_add(allowance + self.scan_period) < left
    }

    /// One move out of the candidates: the one that explains most of what
    /// was lifted; among equals, the capture of the first opponent piece
    /// touched. Promotions to different pieces count as one. A captured
    /// piece's square counts as lifted only when it was busy after the
    /// capturing piece was lifted (a piece brushed before is not taken).
    pub(super) fn pick(&self, cands: &[Move]) -> Option<Move> {
        let repaired = self.repaired_squares();
        let score = |m: &Move| {
            let mut lifted = must_lift(m) & self.turn.seen();
            if let Some(c) = captured_square(m)
                && lifted.contains(c)
                && (!self.hand_made(m) || repaired.contains(c))
            {
                lifted.discard(c);
            }
            lifted.count()
        };
        let best = cands.iter().map(score).max()?;
        let mut best: Vec<&Move> = cands.iter().filter(|m| score(m) == best).collect();
        if best.len() > 1
            && let Some(theirs) = self
                .turn
                .touches
                .iter()
                .find(|x| x.piece.color != self.game.turn() && !repaired.contains(x.square))
        {
            let capturing: Vec<&Move> = best
                .iter()
                .copied()
                .filter(|m| captured_square(m) == Some(theirs.square))
                .collect();
            if !capturing.is_empty() {
                best = capturing;
            }
        }
        let first = *best[0];
        let same_square = best
            .iter()
            .all(|m| m.from() == first.from() && m.to() == first.to());
        same_square.then_some(first)
    }

    /// The squares a displaced board (7.3, 7.5) has been missing pieces
    /// on: a piece set back there is the board being repaired, so their
    /// lifts tell nothing of which piece a move captured.
    fn repaired_squares(&self) -> Bitboard {
        if matches!(self.alert, Alert::Displaced(_)) {
            self.displaced_missing
        } else {
            Bitboard::EMPTY
        }
    }
}
