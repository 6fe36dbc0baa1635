//! The clock press: it completes the move (Article 6.7), or completes an
//! illegal move (7.4 of 2005, 7.5 of 2023, and 7.5.3 of 2023 for a press
//! without a move).

use super::explain::Reply;
use super::two_hands::Hands;
use super::*;

/// The least time from a move's piece reaching its square to the mover's
/// clock press, ms: the hand that set it down must travel to the clock
/// (6.7 presses with the hand that moved). A square reached later was
/// reached by another hand (the next mover's, 1.1).
pub(super) const PRESS_REACH_MS: Millis = 30;

impl Inference {
    /// `side` pressed the clock.
    pub(crate) fn clock_press(&mut self, t: Millis, side: Color) -> PressMeaning {
        if let Some(released) = self.released_promotion() {
            if side == self.game.turn() && !released.pressed {
                // The mover's press for a promotion made before its piece
                // was named completes it (6.7) once it is recorded.
                self.release_unnamed_promotion(ReleasedPromotion::by_press(t));
                return PressMeaning::Awaiting {
                    ply: self.game.moves().len() + 1,
                };
            }
            self.make_released_promotion(t);
        }
        // Only the press of the player whose move is on the board releases
        // it: a late press for a move already made leaves the next mover's
        // hand at work (two hands, 1.1).
        let movers_press = self.awaiting_press.is_none() && side == self.game.turn();
        let mut next_hand_at_work = false;
        // Two hands (1.1): the mover's hand is on the clock, so pieces
        // lifted since his move's last piece was set down are the next
        // mover's; the move was made (4.6) and the press completes it.
        if movers_press
            && self.started
            && !self.game.is_over()
            && self.pending.is_none()
            && matches!(self.alert, Alert::None | Alert::Illegal { .. })
            && let Some(made) = self.made_at_press(t)
        {
            self.settle_placed(t);
            self.make_under_lifts(t, made);
            // The next mover's hand is at work: his move is judged when
            // the board settles.
            next_hand_at_work = true;
        }
        // The hand is on the clock: whatever stands on the board is released.
        let plies_before = self.game.moves().len();
        let mut blip = Bitboard::EMPTY;
        if (movers_press || !self.started) && !next_hand_at_work && self.last_change.is_some() {
            self.pressing = movers_press;
            if movers_press {
                blip = self.set_this_reading(t);
            }
            // (Judged at the next settle, with the reading that follows.)
            self.board ^= blip;
            self.evaluate(t);
            self.board ^= blip;
            self.pressing = false;
        }
        // That settle read his move and the opponent's reply already set
        // down (two hands at bullet speed, 1.1), each completed as it was
        // recorded: the press was for his move, not a press without one.
        if movers_press
            && self.awaiting_press.is_none()
            && let Some(ply) = (plies_before..self.game.moves().len())
                .rev()
                .find(|&i| self.game.moves()[i].side == side)
        {
            // The reply's own press is still to come: when it does, it is
            // that ply's (6.7), not a press telling of a missed reply and
            // a move after it (the presser's pieces the next mover's hand
            // takes off meanwhile are his capture at work).
            if let Some(reply) = self.game.moves().last()
                && reply.side != side
                && self.game.moves().len() > ply + 1
            {
                self.missed_press = Some((self.game.moves().len(), reply.side));
            }
            return PressMeaning::Completed { ply: ply + 1 };
        }
        if !self.started || self.game.is_over() {
            return PressMeaning::Ignored("no game in progress");
        }
        if self.pending.is_some() {
            // The press may still tell what the hands did under the lines.
            if self.extend_lines_at_press(t, side) && self.pending.is_none() {
                return completed(self.complete_awaiting(t));
            }
            if let Some(pending) = self.pending.as_mut() {
                pending.press(t, side);
            }
            return PressMeaning::Ignored("the moves the sensors did not read are not yet known");
        }
        if movers_press && self.promotion.is_some() {
            // Its piece not yet named (3.7e): the record waits for the name.
            if self.release_unnamed_promotion(ReleasedPromotion::by_press(t)) {
                return PressMeaning::Awaiting {
                    ply: self.game.moves().len() + 1,
                };
            }
            let role = self.promotion_choice.take().unwrap_or(Role::Queen);
            self.make_promotion(t, role);
        }
        if let Some(ply) = self.awaiting_press {
            let mover = self.game.moves()[ply - 1].side;
            if side != mover {
                // Two hands (1.1): the opponent's reply was made before
                // this player pressed for his own move; the press completes it.
                if let Some((late, by)) = self.unpressed
                    && by == side
                {
                    self.unpressed = None;
                    self.emit(t, EventKind::MoveCompleted { ply: late });
                    return PressMeaning::Completed { ply: late };
                }
                // Two hands (1.1) and a jump: the opponent's press was not
                // read, and this player has replied with a capture on the
                // square the opponent's piece had just reached, so that
                // square never read empty. The board shows his move made;
                // his press completes it (6.7). The opponent's move stays
                // without a completion: his press never came.
                if let Some(ply) = self.reply_made_before_press(t, side) {
                    return PressMeaning::Completed { ply };
                }
                if self.replies_made_before_press(t, side) {
                    return PressMeaning::Ignored("several legal moves explain the board");
                }
                return PressMeaning::Ignored("the player who did not move pressed");
            }
            // Casual play: his hand moved his move on before the press (the
            // king of rook-first castling set down a moment ago, not yet
            // settled): the press completes the corrected move (6.7), read
            // before the next mover's hand comes.
            if !self.profile.is_fide()
                && ply == self.game.moves().len()
                && self.board != self.game.position().board().occupied()
                && self.hand_moved_on(self.board)
            {
                self.settle_placed(t);
                self.moved_on(t, self.board);
            }
            let ply = self.awaiting_press.unwrap_or(ply);
            self.awaiting_press = None;
            self.emit(t, EventKind::MoveCompleted { ply });
            return PressMeaning::Completed { ply };
        }
        // Two hands (1.1): the reply to his move was read (a ply the
        // sensors missed, completed as it was read) before he pressed for
        // his own; with nothing new on the board (but the next mover's
        // hand at work) this press completes his move (6.7), not a press
        // without a move.
        if let Some((late, by)) = self.unpressed
            && by == side
            && self.shows_the_record_with_the_next_hand(side)
        {
            self.unpressed = None;
            self.emit(t, EventKind::MoveCompleted { ply: late });
            return PressMeaning::Completed { ply: late };
        }
        // The same for his ply among plies the sensors missed, completed
        // when they were read: this is its press (the pieces the next
        // mover has lifted since are no plies the press tells of).
        if let Some((ply, by)) = self.missed_press
            && by == side
            && self.awaiting_press.is_none()
            && self
                .game
                .moves()
                .get(ply.wrapping_sub(1))
                .is_some_and(|m| m.side == side)
            && self.shows_the_record_with_the_next_hand(side)
        {
            self.missed_press = None;
            return PressMeaning::Completed { ply };
        }
        if side != self.game.turn() {
            // Two hands (1.1) and a jump: the opponent's move was not read
            // (a capture whose captured piece never read empty, his press
            // missed too) and this player has answered it. His press says
            // his move is made (6.7): the board is read as the two plies.
            // (The next mover may already hold a piece he lifted after the
            // presser's last piece was set down: read as still standing,
            // and his lifts since go into his turn.)
            let grabbed = self.grabbed_since_last_set_down(!side);
            let read = matches!(self.alert, Alert::None)
                && self.promotion.is_none()
                && self.board != self.game.position().board().occupied();
            let explained = read
                && (self.explain_missed_reply_or_taken(t, side)
                    || self.explain_jump_pressed_by(t, self.board, side)
                    || grabbed.is_some_and(|(release, squares)| {
                        let old = self.turn.clone();
                        let made = self.explain_missed_reply(t, self.board | squares, Reply::Any);
                        if made && self.pending.is_none() {
                            self.carry_over(&old, release);
                        }
                        made
                    }));
            if explained {
                // One line: adopted, each ply completed at this press.
                return if self.pending.is_some() {
                    PressMeaning::Ignored("several lines explain the board")
                } else {
                    PressMeaning::Completed {
                        ply: self.game.moves().len(),
                    }
                };
            }
            return PressMeaning::Ignored("second press, or the player not having the move");
        }
        match self.alert.clone() {
            Alert::Illegal { .. }
                if let Some(m) = self.pick(&self.candidates(self.board, true)) =>
            {
                // The illegal placement put right before the press: the
                // board shows a legal move of his (its capture perhaps
                // quicker than a scan), made and completed now; an
                // illegal move is completed only by the press (7.4 of
                // 2005, 7.5 of 2023).
                let m = self.named_piece(m);
                self.make_move(t, m);
                self.restored(t);
                completed(self.complete_awaiting(t))
            }
            Alert::Illegal { from, to } => self.complete_illegal(t, side, from, to),
            Alert::Reinstate | Alert::Displaced(_) => {
                // Never stuck: the press says a move was made; a capture
                // whose captured piece never read empty explains the board.
                let expected = self.game.position().board().occupied();
                let cands = if self.board == expected {
                    Vec::new()
                } else {
                    self.candidates(self.board, true)
                };
                if cands.is_empty() {
                    return PressMeaning::Ignored("the board is being repaired");
                }
                if let Some(m) = self.pick(&cands) {
                    let m = self.named_piece(m);
                    self.turn.touches.clear();
                    self.make_move(t, m);
                    self.restored(t);
                    return completed(self.complete_awaiting(t));
                }
                self.hypothesise(t, cands.into_iter().map(|m| vec![m]).collect());
                PressMeaning::Ignored("several legal moves explain the board")
            }
            Alert::None => {
                // (Read as the settle above read it: without a blip of the
                // reading before the press.)
                self.board ^= blip;
                let meaning = self.press_with_no_alert(t, side);
                self.board ^= blip;
                meaning
            }
        }
    }

    /// At the press of `presser`, not having the move: the missed reply
    /// (see [`Self::explain_missed_reply`]), and beside it the same with
    /// the presser's piece set down this turn on a square empty in the
    /// record and lifted again since the board's last piece was set down
    /// (the next mover's hand taking it, two hands, 1.1): read as still
    /// standing. His queen set down on d5 and White's hand lifting it at
    /// once reads like the queen passing d5 on its way to take on d4 (a
    /// capture quicker than a scan); where the pieces stood then, the next
    /// moves tell. So too a square of the presser's own piece in the
    /// record lifted since: the reply the sensors missed captured there
    /// (its captured piece never read empty), and the next mover's hand
    /// lifted the capturing piece again before the press (`...Qxd5`
    /// unseen, `Kg2`, Black's queen lifted from d5 while White's hand
    /// went to the clock).
    fn explain_missed_reply_or_taken(&mut self, t: Millis, presser: Color) -> bool {
        let mut lines = self.missed_reply_lines(t, self.board, Reply::Any);
        if let Some((release, taken)) = self.taken_since_last_set_down(presser) {
            let plain = lines.len();
            for line in self.missed_reply_lines(t, self.board | taken, Reply::Any) {
                let pos = hypotheses::play_line(self.game.position(), &line);
                if pos.turn() != presser && !lines.contains(&line) {
                    lines.push(line);
                }
            }
            if plain == 0 && lines.len() == 1 {
                let old = self.turn.clone();
                self.adopt_or_hypothesise(t, lines);
                self.carry_over(&old, release);
                return true;
            }
        }
        self.adopt_or_hypothesise(t, lines)
    }

    /// Squares lifted again after the board's last piece was set down,
    /// still empty, with the time of that set-down (`None` when none):
    /// squares empty in the record's position where a piece was set down
    /// this turn, and squares of `presser`'s pieces in the record.
    fn taken_since_last_set_down(&self, presser: Color) -> Option<(Millis, Bitboard)> {
        let record = self.game.position().board();
        self.lifted_since_last_set_down(|q, set| {
            !record.occupied().contains(q)
                && self.turn.placed_at[q as usize].is_some_and(|p| p <= set)
                || record.color_at(q) == Some(presser)
        })
    }

    /// Squares of `side`'s pieces in the record's position lifted after
    /// the board's last piece was set down and still off (the next
    /// mover's hand at work once the presser's move was set down, two
    /// hands, 1.1), with the time of that set-down; `None` when none.
    fn grabbed_since_last_set_down(&self, side: Color) -> Option<(Millis, Bitboard)> {
        let pos = self.game.position();
        self.lifted_since_last_set_down(|q, _| pos.board().color_at(q) == Some(side))
    }

    /// Squares lifted after the board's last piece was set down, still
    /// empty, that `keep` (given that set-down's time) keeps, with that
    /// time; `None` when none.
    fn lifted_since_last_set_down(
        &self,
        keep: impl Fn(Square, Millis) -> bool,
    ) -> Option<(Millis, Bitboard)> {
        let set = self.last_placed?;
        let squares: Bitboard = self
            .turn
            .removals
            .iter()
            .filter(|&&(r, q)| r > set && !self.board.contains(q) && keep(q, set))
            .map(|&(_, q)| q)
            .collect();
        squares.any().then_some((set, squares))
    }

    /// The mover's press with no alert open: his move (6.7), a capture
    /// the sensors missed, two hands' plies, or a press without a move
    /// (7.5.3 of 2023) or with an illegal one (7.5).
    fn press_with_no_alert(&mut self, t: Millis, side: Color) -> PressMeaning {
        let expected = self.game.position().board().occupied();
        if self.board == expected {
            // 2023, 7.5.3: pressing the clock without making a move.
            if self.profile.is_fide() && self.profile.edition() == LawEdition::Fide2023 {
                return self.complete_illegal(t, side, None, None);
            }
            return PressMeaning::Ignored("no move was made");
        }
        // A capture whose captured piece the sensors never saw leave
        // (or missed): the press says the move is complete.
        let cands = self.candidates(self.board, true);
        if self.pick(&cands).is_none() && !cands.is_empty() {
            // Several captures whose captured piece never read
            // empty explain the board: a legal move was made, which
            // one the next moves tell (certainty first).
            self.hypothesise(t, cands.into_iter().map(|m| vec![m]).collect());
            return PressMeaning::Ignored("several legal moves explain the board");
        }
        if let Some(m) = self.pick(&cands) {
            let m = self.named_piece(m);
            self.make_move(t, m);
            return completed(self.complete_awaiting(t));
        }
        // Two hands at bullet speed (1.1): his move and the
        // opponent's reply set down within one settle, both
        // pieces seen lifted. Not an illegal move: the two plies.
        let ply = self.game.moves().len() + 1;
        if self.explain_missed_reply(t, self.board, Reply::SeenMade) {
            if self.pending.is_some() {
                return PressMeaning::Ignored("several lines explain the board");
            }
            // The reply's own press is still to come: when it
            // does, it is that ply's (6.7), not a press telling of
            // more plies (the presser's pieces the next mover's
            // hand takes off meanwhile are his capture at work).
            if let Some(reply) = self.game.moves().last()
                && reply.side != side
            {
                self.missed_press = Some((self.game.moves().len(), reply.side));
            }
            return PressMeaning::Completed { ply };
        }
        if self.made_unseen_under_lifts(t, self.board) {
            return if self.pending.is_some() {
                PressMeaning::Ignored("several legal moves explain the board")
            } else if self.release_unnamed_promotion(ReleasedPromotion::by_press(t)) {
                PressMeaning::Awaiting {
                    ply: self.game.moves().len() + 1,
                }
            } else {
                completed(self.complete_awaiting(t))
            };
        }
        if self.taken_before_the_press() || self.set_down_and_lifted_again_before_the_press(side) {
            let ply = self.game.moves().len() + 1;
            self.pressed_before_made = Some(ply);
            return PressMeaning::Awaiting { ply };
        }
        // A jump the press tells of: his move among plies the
        // sensors did not read (only his opponent's pieces gone).
        if self.explain_jump_pressed_by(t, self.board, side) {
            return if self.pending.is_some() {
                PressMeaning::Ignored("several lines explain the board")
            } else {
                PressMeaning::Completed {
                    ply: self.game.moves().len(),
                }
            };
        }
        // Never stuck: a ply nobody saw (a capture whose captured piece
        // never read empty looks like a piece lifted), then the players
        // played on, his move last (two hands, 1.1): the press completes
        // it, as the board would once its grace for a hand at work ran out.
        let pos = self.game.position().clone();
        let lines: Vec<Vec<Move>> = self
            .played_on_after_unseen_plies(&pos, self.board)
            .into_iter()
            .filter(|line| hypotheses::play_line(&pos, line).turn() != side)
            .collect();
        if !lines.is_empty() {
            self.hypothesise(t, lines);
            return if self.pending.is_some() {
                PressMeaning::Ignored("several lines explain the board")
            } else {
                PressMeaning::Completed {
                    ply: self.game.moves().len(),
                }
            };
        }
        // Or a capture quicker than a scan, answered, his move last, and
        // the next mover's hand at work already (two hands, 1.1): no
        // illegal move completed while those lines stand; where the hand
        // lands tells.
        let at_work: Vec<(Vec<Move>, Millis)> = self
            .missed_reply_then_hand_at_work(&pos, self.board)
            .into_iter()
            .filter(|(line, _)| hypotheses::play_line(&pos, line).turn() != side)
            .collect();
        if !at_work.is_empty() {
            self.hypothesise_with_longer(t, Vec::new(), Vec::new(), at_work);
            return PressMeaning::Ignored("several lines explain the board");
        }
        // Or several legal moves made under the next mover's hand, each
        // seen (a capture whose piece was taken off by hand, another
        // whose square opened for a reading as the piece passed): no
        // illegal move is completed while legal readings stand (a false
        // accusation is worse than a missed one); the pieces' next moves
        // tell.
        let made = self.all_made_under_lifts(t, self.board, Hands::AnyAfterReleaseOrUnseen);
        if made.len() > 1 {
            self.hypothesise_made_under(t, made);
            return PressMeaning::Ignored("several legal moves explain the board");
        }
        if self.answered_before_the_press(side) {
            let ply = self.game.moves().len() + 1;
            self.pressed_before_made = Some(ply);
            return PressMeaning::Awaiting { ply };
        }
        let from = self
            .turn
            .touches
            .iter()
            .find(|x| x.piece.color == side && !self.board.contains(x.square))
            .map(|x| x.square);
        let extra = self.board & !expected;
        let to = (extra.count() == 1).then(|| extra.first()).flatten();
        self.complete_illegal(t, side, from, to)
    }

    /// Whether the mover's hand was seen moving his last move on into
    /// another that `board` shows ([`Self::corrected_by_hand`]). A board
    /// that only looks like another move (a piece taken off by the next
    /// mover's hand) is none.
    fn hand_moved_on(&self, board: Bitboard) -> bool {
        self.moved_on_by_the_mover(board)
            .is_some_and(|(last, correction)| self.corrected_by_hand(&last, &correction).is_some())
    }

    /// The squares `m` sets a piece on that a hand reached (first, since
    /// the move's first lift) less than [`PRESS_REACH_MS`] before the
    /// mover's press at `t`, less a scan: too late for the hand that
    /// presses (6.7).
    fn reached_too_late(&self, pos: &Chess, m: &Move, t: Millis) -> Bitboard {
        let began = self.turn.first_lift_of(must_lift(m)).unwrap_or(0);
        let reach = PRESS_REACH_MS.saturating_sub(self.scan_uncertainty());
        arrival_squares(pos, m)
            .into_iter()
            .filter(|&s| {
                self.turn
                    .first_activity_since(s, began)
                    .is_some_and(|first| first.saturating_add(reach) > t)
            })
            .collect()
    }

    /// The mover's press (6.7) when the move the board shows reached a
    /// square less than [`PRESS_REACH_MS`] before it: not his hand, which
    /// is on the clock, but another (the next mover's slide reaching its
    /// first square, 1.1, or interference). If his lifted piece's capture
    /// explains the board without that square (quicker than a scan, its
    /// captured piece never read gone, or seen taken off and replaced),
    /// both are kept as lines with the press on them; where the pieces go
    /// next tells (certainty first). False when no such capture fits.
    pub(super) fn reached_too_late_for_the_press(&mut self, t: Millis, board: Bitboard) -> bool {
        let Some(m) = self.pick(&self.candidates(board, false)) else {
            return false;
        };
        let pos = self.game.position().clone();
        let late = self.reached_too_late(&pos, &m, t);
        if late.is_empty() {
            return false;
        }
        let seen = self.turn.seen();
        let captures = pos.legal_moves().into_iter().filter(|c| {
            captured_square(c).is_some_and(|captured| {
                // (Its captured piece never read gone, or seen taken off
                // and the capturing piece set down in its place: the late
                // square is then no part of the move, interference or
                // another hand.)
                let unseen = must_lift(c) & !seen;
                c.from() == m.from()
                    && (unseen == Bitboard::from_square(captured) || unseen.is_empty())
                    && occupancy_after(&pos, c) == board & !late
            })
        });
        let mut lines = vec![vec![m]];
        lines.extend(captures.map(|c| vec![c]));
        if lines.len() == 1 {
            return false;
        }
        self.hypothesise(t, lines);
        true
    }

    /// Two hands (1.1), the last reading of the mover's press: his piece
    /// gone from its square and nowhere new while the next mover's hand is
    /// already at work is a capture quicker than one scan, made and
    /// released. Several such captures are kept as lines: which one, his
    /// piece's next moves tell (certainty first). False when none fits.
    pub(super) fn made_unseen_under_lifts(&mut self, t: Millis, board: Bitboard) -> bool {
        if let Some(made) = self.made_under_lifts(t, board, Hands::AnyAfterReleaseOrUnseen) {
            self.make_under_lifts(t, made);
            return true;
        }
        let unseen = self.all_made_under_lifts(t, board, Hands::AnyAfterReleaseOrUnseen);
        if unseen.len() > 1 && unseen.iter().all(|f| f.unseen) {
            self.hypothesise_made_under(t, unseen);
            return true;
        }
        false
    }

    /// Two hands (1.1) at the mover's press: his piece gone from its
    /// square, and the square of a piece it can capture emptied after he
    /// lifted it, nothing set down anywhere (the next mover's piece that
    /// can take back there may be lifted too). His capture still in his hand
    /// (a press before the move is made), or made quicker than a scan (the
    /// captured piece never read gone) and its piece taken off by the next
    /// mover's hand already: a legal reading stands beside the illegal
    /// one, so no illegal move is completed (a false accusation is worse
    /// than a missed one). Where the pieces land tells.
    fn taken_before_the_press(&self) -> bool {
        self.taken_before_the_press_on(self.board)
    }

    /// [`Self::taken_before_the_press`] on `board`.
    fn taken_before_the_press_on(&self, board: Bitboard) -> bool {
        let pos = self.game.position();
        let expected = pos.board().occupied();
        if (board & !expected).any() {
            return false;
        }
        pos.legal_moves().iter().any(|m| {
            let Some((from, to)) = super::two_hands::plain_capture(m) else {
                return false;
            };
            let Some(lifted) = self.turn.first_lift(from) else {
                return false;
            };
            // (The next mover may hold the piece he takes it back with:
            // lifted since, able to take on that square.)
            let mut after = pos.clone();
            after.play_unchecked(*m);
            let his = (expected & !board & after.us())
                .without(to)
                .into_iter()
                .filter(|&y| {
                    self.turn.first_lift_after(y, lifted).is_some()
                        && super::two_hands::taken_by_lifted(&after, to, Bitboard::from_square(y))
                })
                .collect::<Bitboard>();
            board == expected.without(from).without(to) & !his
                && self.turn.first_lift_after(to, lifted).is_some()
        })
    }

    /// Two hands (1.1) at the mover's press: the board shows the record
    /// but for pieces of the next mover, each lifted after the presser
    /// lifted a piece of his own. The next mover answers a move made,
    /// here one the sensors did not see (a capture quicker than a scan,
    /// the piece set down on the square it left a moment ago being the
    /// next mover's on its way: `fxg5` pushed off, then Black's f7 pawn
    /// touching f4 on its way to f5). The press waits for where the
    /// pieces land rather than complete a press without a move (7.5 of
    /// 2023; a false accusation is worse than a missed one).
    fn answered_before_the_press(&self, presser: Color) -> bool {
        let pos = self.game.position();
        let expected = pos.board().occupied();
        let gone = expected & !self.board;
        if gone.is_empty()
            || (self.board & !expected).any()
            || !gone.is_subset(pos.board().by_color(!presser))
        {
            return false;
        }
        let Some(his) = (pos.board().by_color(presser) & self.turn.lifts)
            .into_iter()
            .filter_map(|s| self.turn.first_lift(s))
            .min()
        else {
            return false;
        };
        gone.into_iter()
            .all(|y| self.turn.first_lift_after(y, his).is_some())
    }

    /// Two hands (1.1) at the mover's press: his one piece off the board,
    /// after he set it down where it may legally go (a move that takes
    /// nothing) and lifted it again, the next mover's hand perhaps at
    /// work since (his pieces only gone, each lifted after). A player
    /// adjusting his piece, or pressing with it still in his hand: the
    /// press waits for where it lands (a false accusation of a press
    /// without a move, 7.5, is worse than a missed one).
    fn set_down_and_lifted_again_before_the_press(&self, side: Color) -> bool {
        let pos = self.game.position();
        let expected = pos.board().occupied();
        let gone = expected & !self.board;
        if (self.board & !expected).any() {
            return false;
        }
        let mine = gone & pos.board().by_color(side);
        let Some(from) = mine.single_square() else {
            return false;
        };
        let Some(lifted) = self.turn.first_lift(from) else {
            return false;
        };
        let set_down_and_lifted = |to: Square| {
            self.turn
                .placements
                .iter()
                .find(|(u, s)| *s == to && *u > lifted)
                .is_some_and(|&(u, _)| self.turn.first_lift_after(to, u).is_some())
        };
        let grabs_after = (gone & !mine)
            .into_iter()
            .all(|y| self.turn.first_lift_after(y, lifted).is_some());
        grabs_after
            && pos.legal_moves().iter().any(|m| {
                m.from() == Some(from)
                    && !m.is_capture()
                    && !m.is_castle()
                    && set_down_and_lifted(m.to())
            })
    }

    /// The board shows the record, or the record with the next mover's
    /// hand at work (two hands, 1.1): pieces only gone, each one he may
    /// lift (his own, or one he may take), or, where he is the opponent of
    /// `presser`, his piece on its way (set down where his move may go, or
    /// passing over a square). (A piece of the presser's own set down
    /// anew is a move of his.)
    fn shows_the_record_with_the_next_hand(&self, presser: Color) -> bool {
        let pos = self.game.position();
        let expected = pos.board().occupied();
        self.board == expected
            || ((self.board & !expected).is_empty() && explain::in_progress_at(pos, self.board))
            || (presser != pos.turn() && explain::in_progress_at_press(pos, self.board))
    }

    /// The move a press completes when the next mover's hand is already
    /// at work: read on the raw board first (a piece being lifted this very
    /// millisecond has not settled yet), then on the settled one; none when
    /// the board shows a move of the mover alone.
    fn made_at_press(&self, t: Millis) -> Option<super::two_hands::MadeUnder> {
        // Only squares the hands are working on: the raw reading differs
        // from the settled one where a lift or placement has not settled.
        let raw = self.raw;
        if raw != self.board
            && (raw ^ self.board).count() <= 2
            && self.pick(&self.candidates(raw, false)).is_none()
            && let Some(made) = self.made_under_lifts(t, raw, Hands::AnyAfterRelease)
        {
            return Some(made);
        }
        // The mover's hand is on the clock (6.7): no move of his reached
        // a square a moment ago, nor one with a hand on it now (a piece
        // set down there, a captured piece pushed off this very moment:
        // the next mover's hand at work, 1.1).
        let bouncing = self.turn.bouncing_at(t) & self.board;
        let pos = self.game.position();
        let stood: Vec<Move> = self
            .candidates(self.board, false)
            .into_iter()
            .filter(|m| {
                (arrival_squares(pos, m) & bouncing).is_empty()
                    && self.reached_too_late(pos, m, t).is_empty()
                    && !self.held_two_pieces(m)
            })
            .collect();
        if self.pick(&stood).is_some() {
            return None;
        }
        if let Some(made) = self.made_under_lifts(t, self.board, Hands::AnyAfterRelease) {
            return Some(made);
        }
        // A piece leaving its square at this very moment may read present
        // between its contacts' bounces (a slide that closes the next
        // square before it opens this one): a square bouncing now is
        // being lifted.
        if bouncing.any() && bouncing.count() <= 2 {
            return self.made_under_lifts(t, self.board & !bouncing, Hands::AnyAfterRelease);
        }
        None
    }

    /// Whether the hands made `m` only if its player held two pieces at
    /// once, against the one hand of Article 4.1: a piece off its square
    /// long enough to be lifted (not brushed, see `nudge_ms`) while `m`'s
    /// piece left its own, and set back before `m`'s piece arrived. Such a
    /// reading has another hand at work (the next mover's, 1.1): the
    /// press looks for the move with it.
    fn held_two_pieces(&self, m: &Move) -> bool {
        let Move::Normal { from, to, .. } = *m else {
            return false;
        };
        let Some(left) = self.turn.first_lift(from) else {
            return false;
        };
        let left = self.turn.first_contact(from, left);
        let on = |sq: Square, list: &[(Millis, Square)]| -> Vec<Millis> {
            list.iter()
                .filter(|(_, s)| *s == sq)
                .map(|(u, _)| self.turn.first_contact(sq, *u))
                .collect()
        };
        let Some(arrived) = on(to, &self.turn.placements)
            .into_iter()
            .find(|&p| p > left)
        else {
            return false;
        };
        self.turn
            .placements
            .iter()
            .filter(|(_, s)| *s != from && *s != to)
            .any(|&(p, s)| {
                let back = self.turn.first_contact(s, p);
                let off = on(s, &self.turn.removals)
                    .into_iter()
                    .filter(|&r| r < back)
                    .max();
                back > left
                    && back < arrived
                    && off.is_some_and(|r| back.saturating_sub(r) >= self.config.nudge_ms)
            })
    }

    /// Squares set down in the very reading before the mover's press, on
    /// no square the move he made goes to, or read lifted in it and full
    /// again already: the board without that reading shows his move (a
    /// capture quicker than a scan among them), with it none. His hand is
    /// on the clock (6.7): a blip (interference, read once) or another
    /// hand this instant, not his move; the press reads the board without
    /// them.
    fn set_this_reading(&self, t: Millis) -> Bitboard {
        let reading = self.scan_period.max(1);
        let this_reading =
            |at: Option<Millis>| at.is_some_and(|p| p <= t && t.saturating_sub(p) < reading);
        let fresh: Bitboard = (self.board & !self.game.position().board().occupied())
            .into_iter()
            .filter(|s| this_reading(self.turn.placed_at[*s as usize]))
            .collect();
        let back: Bitboard = (self.raw & !self.board)
            .into_iter()
            .filter(|s| this_reading(self.turn.lifted_at[*s as usize]))
            .collect();
        let blip = fresh | back;
        if blip.is_empty()
            || self.fine_scans()
            || self.pick(&self.candidates(self.board, false)).is_some()
        {
            return Bitboard::EMPTY;
        }
        if self
            .pick(&self.candidates(self.board ^ blip, true))
            .is_some()
        {
            return blip;
        }
        // Or his capture's piece taken off by the next mover's hand, whose
        // piece is sliding on this instant: its square still read full
        // and the square next door just reached (a slide's overlap). The
        // press waits for where it lands, as it would have a reading later.
        let pos = self.game.position();
        let theirs = pos.board().by_color(!pos.turn()) & self.board;
        let sliding = back.is_empty()
            && fresh
                .into_iter()
                .all(|s| (shakmaty::attacks::king_attacks(s) & theirs).any());
        if sliding && self.taken_before_the_press_on(self.board ^ fresh) {
            return fresh;
        }
        Bitboard::EMPTY
    }

    /// The reply of `side` (to move, while the opponent's move awaits its
    /// press) that the settled board shows, made and completed by this
    /// press; `None` when the board shows no single legal reply.
    fn reply_made_before_press(&mut self, t: Millis, side: Color) -> Option<usize> {
        if !self.may_reply_before_press(side) {
            return None;
        }
        let m = self.pick(&self.candidates(self.board, true))?;
        let m = self.named_piece(m);
        self.make_move(t, m);
        self.complete_awaiting(t)
    }

    /// [`Inference::reply_made_before_press`] where several captures whose
    /// captured piece never read empty explain the board: a legal reply
    /// was made (his press says so), which one his piece's next moves
    /// tell (certainty first). The lines are completed by this press.
    fn replies_made_before_press(&mut self, t: Millis, side: Color) -> bool {
        if !self.may_reply_before_press(side) {
            return false;
        }
        let cands = self.candidates(self.board, true);
        if cands.len() < 2 {
            return false;
        }
        self.hypothesise(t, cands.into_iter().map(|m| vec![m]).collect());
        if let Some(pending) = self.pending.as_mut() {
            pending.press(t, side);
        }
        true
    }

    /// Whether the board may show a reply of `side` (to move) made before
    /// the opponent pressed: no lines open, no promotion or alert
    /// pending, and the board not the record's.
    fn may_reply_before_press(&self, side: Color) -> bool {
        side == self.game.turn()
            && self.pending.is_none()
            && self.promotion.is_none()
            && matches!(self.alert, Alert::None)
            && self.board != self.game.position().board().occupied()
    }

    /// The press completes the move just made (6.7): `None` when the move
    /// ended the game and nothing awaits a press.
    pub(super) fn complete_awaiting(&mut self, t: Millis) -> Option<usize> {
        let ply = self.awaiting_press.take()?;
        self.emit(t, EventKind::MoveCompleted { ply });
        Some(ply)
    }

    pub(super) fn complete_illegal(
        &mut self,
        t: Millis,
        side: Color,
        from: Option<Square>,
        to: Option<Square>,
    ) -> PressMeaning {
        let ruling = self.game.complete_illegal_move(side);
        self.emit(
            t,
            EventKind::IllegalMove {
                side: side.into(),
                completed: true,
                from,
                to,
                count: ruling.count,
                article: Some(self.profile.illegal_move_article().to_owned()),
            },
        );
        if let Some(end) = ruling.end {
            self.game_over(t, end);
        } else if self.board == self.game.position().board().occupied() {
            self.alert = Alert::None;
        } else {
            self.alert = Alert::Reinstate;
        }
        PressMeaning::Illegal(ruling)
    }
}

/// What a press that made a move meant: its completion, or nothing to
/// complete when the move ended the game.
fn completed(ply: Option<usize>) -> PressMeaning {
    match ply {
        Some(ply) => PressMeaning::Completed { ply },
        None => PressMeaning::Ignored("the move ended the game"),
    }
}
