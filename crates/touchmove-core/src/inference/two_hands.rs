//! Two hands on the board (Article 1.1): a player has the move as soon as
//! the opponent's move is made (4.6), before the clock press (6.7). The
//! next mover may lift a piece while the last move's piece is still
//! settling; and a piece brushed for a moment is not lifted at all.

use super::*;

/// The shortest time a piece stands on its square before a lift of it
/// counts as a new hand's: a sliding piece blips over squares for 10–80 ms,
/// the quickest reaction of a player to a release takes about 100 ms
/// (from the piece's first contact to the grab's first opening: the
/// contacts' bounce in between is no part of it).
pub(super) const RELEASE_MIN_MS: Millis = 90;

/// The scan period up to which [`RELEASE_MIN_MS`] holds as it is.
const RELEASE_FINE_PERIOD_MS: Millis = 10;

/// How long a piece set down must stand on its square before it counts as
/// released there (4.6) rather than passing over it, on a board read every
/// `scan_period` ms: a reading shows a change up to a period late, so a
/// piece sliding over a square for 80 ms may read standing there for most
/// of a period more. [`RELEASE_MIN_MS`], longer by what the period exceeds
/// [`RELEASE_FINE_PERIOD_MS`]. (Measured with `hand_probe` at 25 ms: slides
/// read as a move made then moved on, 4.7, in a tenth of the games without
/// it; bullet hands taking a piece 100 ms after it was set down are read
/// less well with it, fewer games by far.)
pub(super) fn release_min(scan_period: Millis) -> Millis {
    RELEASE_MIN_MS.saturating_add(scan_period.saturating_sub(RELEASE_FINE_PERIOD_MS))
}

/// A move found on the board under pieces lifted since it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MadeUnder {
    pub mv: Move,
    /// The squares lifted since the move was made: the next mover's hand.
    pub gone: Bitboard,
    /// When the move's last piece was set down.
    pub release: Millis,
    /// A capture the sensors did not see made: its captured piece's
    /// square never read empty long enough to settle.
    pub unseen: bool,
    /// An unseen capture whose captured piece's square opened for a
    /// moment after the capturing piece was lifted.
    pub flickered: bool,
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
    /// As [`Hands::AnyAfterRelease`], and the mover's move may be a
    /// capture the sensors never saw made: the last reading of a press
    /// that nothing else explains.
    AnyAfterReleaseOrUnseen,
}

impl Hands {
    /// Whether the mover's hand is on the clock: any piece lifted after
    /// the release is the next mover's.
    fn after_release(self) -> bool {
        matches!(
            self,
            Hands::AnyAfterRelease | Hands::AnyAfterReleaseOrUnseen
        )
    }
}

/// When `m`, whose pieces stood at `set`, was released: a pawn set down
/// on the last rank and swapped for its new piece (3.7e) when the new
/// piece stood, any other move at `set`.
fn released_at(turn: &TurnHands, m: &Move, set: Millis) -> Millis {
    if m.is_promotion() {
        swapped_at(turn, m.to(), set, must_lift(m)).unwrap_or(set)
    } else {
        set
    }
}

/// Whether a legal move in `pos` captures the piece on `square` with a
/// piece from one of the `lifted` squares.
pub(super) fn taken_by_lifted(pos: &Chess, square: Square, lifted: Bitboard) -> bool {
    pos.legal_moves()
        .iter()
        .any(|m| captured_square(m) == Some(square) && m.from().is_some_and(|f| lifted.contains(f)))
}

/// When the pawn set down on `square` (the promotion square, at `set`)
/// was swapped for the new piece (3.7e): taken off and a piece set down
/// there again, with no other square emptied since the pawn was set down
/// (the opponent taking it would lift his capturing piece too, before or
/// after) but those the promotion itself empties (`own`: the pawn's square
/// still opening after a slide onto the last rank, a captured piece). What
/// the hands did before belongs to the promotion, not to the next mover's
/// turn.
fn swapped_at(turn: &TurnHands, square: Square, set: Millis, own: Bitboard) -> Option<Millis> {
    let off = turn
        .removals
        .iter()
        .find(|(u, s)| *s == square && *u > set)
        .map(|(u, _)| *u)?;
    let placed: Vec<Millis> = turn
        .placements
        .iter()
        .filter(|(u, s)| *s == square && *u > off)
        .map(|(u, _)| *u)
        .collect();
    let on = *placed.first()?;
    let others = turn
        .removals
        .iter()
        .any(|(u, s)| *s != square && !own.contains(*s) && *u > set && *u < on);
    // The new piece stood once it stayed [`RELEASE_MIN_MS`] before the
    // square next emptied: a piece rocking as it lands is still being set
    // down, its contacts' openings no hand of the next mover.
    let stood = placed.iter().copied().find(|&p| {
        turn.removals
            .iter()
            .find(|(u, s)| *s == square && *u > p)
            .is_none_or(|(u, _)| *u >= p.saturating_add(turn.release_min))
    });
    (!others).then(|| stood.unwrap_or(on))
}

/// The squares a capture other than en passant leaves and takes on.
pub(super) fn plain_capture(m: &Move) -> Option<(Square, Square)> {
    match *m {
        Move::Normal {
            from,
            to,
            capture: Some(_),
            ..
        } => Some((from, to)),
        _ => None,
    }
}

/// Whether the piece on `from` could go to one of `squares` had the
/// mover's piece not arrived there: a step of its kind onto the square
/// empty, or a capture of a piece there (the mover's, had it come by
/// another ply), on the board as it is otherwise (pins and checks aside).
/// By hand: shakmaty's move generator needs a whole position, and this
/// one never stood on the board.
fn could_reach_were_they_empty(pos: &Chess, from: Square, squares: Bitboard) -> bool {
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return false;
    };
    let occupied = board.occupied() & !squares;
    let reach = match piece.role {
        Role::Pawn => {
            pushes(from, piece, occupied) | shakmaty::attacks::pawn_attacks(piece.color, from)
        }
        _ => shakmaty::attacks::attacks(from, piece, occupied),
    };
    (reach & squares).any()
}

/// Whether the piece on `from` has a legal move to one of `squares`.
fn could_reach(pos: &Chess, from: Square, squares: Bitboard) -> bool {
    pos.legal_moves()
        .iter()
        .any(|m| m.from() == Some(from) && squares.contains(m.to()))
}

/// Whether a hand sliding the piece on `from` along the board to one of
/// its legal moves passes over `square`: a square between the two, file
/// and rank (a knight slid from a1 to c2 crosses b1 or b2 on its way).
fn could_slide_over(pos: &Chess, from: Square, square: Square) -> bool {
    let between = |a: u32, b: u32, x: u32| a.min(b) <= x && x <= a.max(b);
    pos.legal_moves().iter().any(|m| {
        m.from() == Some(from)
            && between(
                u32::from(from.file()),
                u32::from(m.to().file()),
                u32::from(square.file()),
            )
            && between(
                u32::from(from.rank()),
                u32::from(m.to().rank()),
                u32::from(square.rank()),
            )
    })
}

impl Inference {
    /// The hands' activity after `release` (the next mover's, once the
    /// move before is made) goes into the new turn.
    pub(super) fn carry_over(&mut self, old: &TurnHands, release: Millis) {
        self.carry_over_on(old, Bitboard::FULL, release);
    }

    /// [`Self::carry_over`], on `squares` only.
    pub(super) fn carry_over_on(&mut self, old: &TurnHands, squares: Bitboard, release: Millis) {
        for sq in squares {
            let i = sq as usize;
            if old.active_at[i].is_some_and(|a| a > release) {
                self.turn.active_at[i] = old.active_at[i];
                self.turn.placed_at[i] = old.placed_at[i].filter(|p| *p > release);
                self.turn.placements.extend(
                    old.placements
                        .iter()
                        .filter(|(t, s)| *s == sq && *t > release),
                );
                self.turn.removals.extend(
                    old.removals
                        .iter()
                        .filter(|(t, s)| *s == sq && *t > release),
                );
                self.turn
                    .toggles
                    .extend(old.toggles.iter().filter(|(t, s)| *s == sq && *t > release));
                // A captured piece pushed off since (its contacts' burst).
                if old.burst_on(sq, |u| u > release) {
                    self.turn.flicker.add(sq);
                    self.turn.flicker_at[i] = old.flicker_at[i];
                }
                if old.lifted_at[i].is_some_and(|l| l > release) {
                    self.turn.lifted_at[i] = old.lifted_at[i];
                    self.turn.lifts.add(sq);
                }
            }
        }
    }

    /// The piece on `sq` is about to leave it. If it is a piece of the side
    /// not having the move, and the board shows a legal move of the side
    /// having it, that move's last piece is released now: the lift is the
    /// next mover's, who has the move (1.1, 4.6).
    pub(super) fn next_mover_lifts(&mut self, t: Millis, sq: Square) {
        // Several squares in one scan are a jump, not two hands (but for a
        // slide onto the neighbouring square).
        if !self.started
            || self.unread
            || self.game.is_over()
            || self.awaiting_press.is_some()
            || self.pending.is_some()
            || self.released_promotion().is_some()
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
            && !must_lift(&m).contains(sq)
            && !self.slid_on_from(t, sq, &m)
            && !self.stood_too_briefly(pos, &m, t)
            && !could_have_taken(pos, &m, sq)
        {
            let (old, before) = (self.turn.clone(), pos.clone());
            let plies = self.game.moves().len();
            self.released_by_touch = true;
            self.evaluate(t);
            self.released_by_touch = false;
            // What the next mover's hand did after the move's pieces first
            // stood (a piece of the mover's taken off to capture it, his
            // own piece slid on) is his turn's, not lost with the mover's.
            let release = old
                .first_arrival(&before, &m, t)
                .map(|release| released_at(&old, &m, release));
            // A promotion whose piece is not yet named (3.7e): the move is
            // made, its record waits for the name.
            if self.release_unnamed_promotion(ReleasedPromotion::by_grab(t, release)) {
                return;
            }
            let role = self.promotion_choice.take().unwrap_or(Role::Queen);
            self.make_promotion(t, role);
            if self.game.moves().len() == plies + 1
                && let Some(release) = release
            {
                self.carry_over(&old, release);
            }
            return;
        }
        // No move the hands were seen making, the mover's pieces gone and
        // still for a while: perhaps a capture the sensors missed (its
        // captured piece never read empty), which the next mover answers.
        // The mover's piece may also still be in his hand: both are kept.
        let missing_only = (self.board & !pos.board().occupied()).is_empty();
        // (The lifted square's own raw flicker comes just before.)
        let quiet_since = Bitboard::FULL
            .without(sq)
            .into_iter()
            .filter_map(|s| self.turn.active_at[s as usize])
            .max();
        // Not a piece the mover's lifted piece may be about to capture.
        let capture_target = || {
            pos.legal_moves().iter().any(|m| {
                captured_square(m) == Some(sq) && moving_from(m).intersects(self.turn.lifts)
            })
        };
        if missing_only
            && quiet_since.is_some_and(|q| t >= q.saturating_add(MISSING_GRACE_MS))
            && !capture_target()
        {
            self.explain_missed_captures(t, self.board, explain::MISSED_CAPTURE_PLIES);
        }
    }

    /// Whether a piece `m`'s position stands on, set down this turn (where
    /// `m` sets it, or back on its own square), has stood there for less
    /// than [`RELEASE_MIN_MS`] at `t`: quicker than any hand reacts to a
    /// release, so a lift now is no grab answering it (a piece brushed as
    /// the mover's piece slides over a square on its way, the next mover's
    /// piece sliding over a square just left, say); the next settle tells.
    /// (Unlike [`Inference::stood`], a square no piece was seen set down
    /// on, a capture quicker than a scan, does not count.)
    fn stood_too_briefly(&self, pos: &Chess, m: &Move, t: Millis) -> bool {
        occupancy_after(pos, m)
            .into_iter()
            .filter_map(|s| self.turn.set_down_at(s))
            .any(|p| t < p.saturating_add(RELEASE_MIN_MS))
    }

    /// Whether a square `m` sets a piece on may instead have been reached
    /// by the piece now leaving `sq`, slid there with its magnet closing
    /// the new square a moment before it opens this one: reached within
    /// [`SLIDE_OVERLAP_MS`] before `sq` first opened, and next to `sq` (the
    /// first square a slide reaches, a knight's included). The board then
    /// shows `m` only by that overlap; the next settle tells (certainty
    /// first).
    fn slid_on_from(&self, t: Millis, sq: Square, m: &Move) -> bool {
        let pos = self.game.position();
        let opened = self.turn.first_contact(sq, t);
        let next_to = shakmaty::attacks::king_attacks(sq);
        (arrival_squares(pos, m) & self.board & next_to)
            .into_iter()
            .any(|s| {
                self.turn.placed_at[s as usize].is_some_and(|p| {
                    let first = self.turn.first_contact(s, p);
                    first <= opened && first.saturating_add(SLIDE_OVERLAP_MS) >= opened
                })
            })
    }

    /// A piece was set down on `sq`, where a piece stood at the last settle.
    /// Back within the nudge time, it was brushed, not lifted: no touch.
    pub(super) fn put_back(&mut self, t: Millis, sq: Square) {
        let Some(lifted) = self.turn.lifted_at[sq as usize] else {
            return;
        };
        // Measured between readings: only a lift certainly as long as the
        // threshold is a touch (a false accusation is worse than a missed
        // one). The piece's return reads up to a scan late, and a further
        // scan when that scan falls in its contacts' bounce. (Before the
        // readings show their period, the longest one they allow.)
        let uncertainty = self
            .scan_period_seen
            .longest()
            .saturating_sub(1)
            .max(self.scan_uncertainty());
        let threshold = self.config.nudge_ms + 2 * uncertainty;
        if self.off_square_for(sq, lifted, t) >= threshold {
            return;
        }
        self.turn
            .touches
            .retain(|x| !(x.square == sq && x.at == lifted));
        self.brush_released_nothing(sq, lifted);
    }

    /// A promotion released by the next mover's lift of `sq` (at `lifted`)
    /// that was a brush: no grab, so the move is not made by it (1.1, 4.6)
    /// and the promotion waits again for its new piece and its name (3.7e)
    /// — unless his hand did something else since.
    fn brush_released_nothing(&mut self, sq: Square, lifted: Millis) {
        let Some(p) = &mut self.promotion else {
            return;
        };
        let Some(r) = p.released else {
            return;
        };
        let by_this_lift = !r.pressed
            && r.touches_from.is_none()
            && r.under_lifts.is_none()
            && r.at.abs_diff(lifted) <= SLIDE_OVERLAP_MS;
        let nothing_else = self
            .turn
            .removals
            .iter()
            .chain(&self.turn.placements)
            .all(|(u, s)| *s == sq || *u < r.at.min(lifted));
        if by_this_lift && nothing_else {
            p.released = None;
        }
    }

    /// How long the piece on `sq` was off its square: from the last raw
    /// opening of the lift that settled at `lifted` to the first raw contact
    /// of its return (settled at `back`). The settled times would add the
    /// contacts' bounce on the way back to a brush (a 100 ms brush with
    /// 20 ms of bounce is no deliberate lift either).
    fn off_square_for(&self, sq: Square, lifted: Millis, back: Millis) -> Millis {
        let toggles = || self.turn.toggles.iter().filter(|(_, s)| *s == sq);
        let off = toggles().map(|(u, _)| *u).rev().find(|u| *u <= lifted);
        let on = toggles().map(|(u, _)| *u).find(|u| *u > lifted);
        match (off, on) {
            (Some(off), Some(on)) if on <= back => on.saturating_sub(off),
            _ => back.saturating_sub(lifted),
        }
    }

    /// A legal move of the side having the move whose position the board
    /// shows but for pieces lifted since its last piece was set down (the
    /// next mover's hand, `hands` says which). One move, or none when
    /// several could be meant.
    pub(super) fn made_under_lifts(
        &self,
        t: Millis,
        board: Bitboard,
        hands: Hands,
    ) -> Option<MadeUnder> {
        let mut found = self.all_made_under_lifts(t, board, hands);
        let first = found.first()?;
        let same = found
            .iter()
            .all(|f| f.mv.from() == first.mv.from() && f.mv.to() == first.mv.to());
        same.then(|| found.swap_remove(0))
    }

    /// Every move [`Self::made_under_lifts`] weighs: the moves the sensors
    /// saw made, or else the captures they may have missed.
    pub(super) fn all_made_under_lifts(
        &self,
        t: Millis,
        board: Bitboard,
        hands: Hands,
    ) -> Vec<MadeUnder> {
        self.all_made_under_lifts_after(self.game.position(), &[], None, t, board, hands)
    }

    /// [`Self::all_made_under_lifts`] from `pos`, the position after `line`
    /// (plies an open line holds beyond the record, see `hypotheses`):
    /// only moves whose pieces were all lifted after `since`, when the
    /// line's last ply was read (the hands' earlier lifts made its plies).
    pub(super) fn all_made_under_lifts_after(
        &self,
        pos: &Chess,
        line: &[Move],
        since: Option<Millis>,
        t: Millis,
        board: Bitboard,
        hands: Hands,
    ) -> Vec<MadeUnder> {
        let mover = pos.turn();
        let mut found: Vec<MadeUnder> = Vec::new();
        let role = self.promotion_choice.unwrap_or(Role::Queen);
        for m in pos.legal_moves() {
            // The board cannot tell the new piece: the one named, or a queen.
            if m.promotion().is_some_and(|r| r != role) {
                continue;
            }
            let after = occupancy_after(pos, &m);
            let gone = after & !board;
            // Squares the next mover's hand has reached since (a sliding
            // piece's blips, his move set down).
            let extra = board & !after;
            // Squares read empty but not settled yet (a raw board at a
            // press): lifted now.
            let unsettled = self.board & !board;
            // Every square gone from the move's position was lifted.
            if (gone & !(self.turn.lifts | unsettled)).any() {
                continue;
            }
            let mut after_pos = pos.clone();
            after_pos.play_unchecked(m);
            // Nothing lifted yet, but the next mover's piece slid onto the
            // square next to it, its magnet still holding its own square
            // (his hand at work once the mover's is on the clock), on its
            // way to where it goes.
            let sliding_in = || {
                hands.after_release()
                    && extra.any()
                    && extra.into_iter().all(|s| {
                        (shakmaty::attacks::king_attacks(s) & after_pos.us() & board)
                            .into_iter()
                            .any(|from| could_slide_over(&after_pos, from, s))
                    })
            };
            if gone.is_empty() && !sliding_in() {
                continue;
            }
            // With his hand on the clock (6.7) his piece stands somewhere:
            // gone from its square and nowhere new, it took a piece whose
            // square never read empty (a capture quicker than one scan).
            // Only on a board with nothing set down anywhere else (a piece
            // standing somewhere new is more likely where his piece went),
            // or where the next mover's whole reply is set down already.
            let seen = self.hand_made_in(&m, line);
            let may_be_unseen = hands == Hands::AnyAfterReleaseOrUnseen
                && (extra.is_empty()
                    || self.answered_at_once(&after_pos, board)
                    || self.passing_through(pos, &m, &after_pos, extra));
            // (Its captured square read busy, or taken by a piece he has
            // lifted: the square's contacts may have opened in the swap.)
            let swapped = may_be_unseen
                && ((!seen && self.unseen_capture(&m, board))
                    || self.taken_at_once(&m, &after_pos, board, self.turn.lifts));
            // The next mover's capture may begin with the captured piece
            // taken off, his own piece lifted after: a capture quicker
            // than a scan whose piece he has taken off already, a piece of
            // his able to take it there.
            let unseen = swapped
                || (may_be_unseen
                    && self.taken_at_once(&m, &after_pos, board, after_pos.us() & board));
            if !seen && !unseen {
                continue;
            }
            let arrived = (after & !pos.board().occupied())
                | captured_square(&m)
                    .filter(|c| after.contains(*c))
                    .map_or(Bitboard::EMPTY, Bitboard::from_square);
            let began = match since {
                None => self.turn.first_lift_of(must_lift(&m)),
                // Its own pieces all lifted since; a captured piece may
                // never have read lifted (a capture quicker than a scan).
                Some(since) => moving_from(&m)
                    .into_iter()
                    .map(|s| self.turn.first_lift_after(s, since))
                    .collect::<Option<Vec<Millis>>>()
                    .and_then(|lifts| {
                        let captured =
                            captured_square(&m).and_then(|c| self.turn.first_lift_after(c, since));
                        lifts.into_iter().chain(captured).min()
                    }),
            };
            let Some(began) = began else { continue };
            // Its piece reaches a square only once it has left its own (a
            // slide's magnet may close the square next door a moment
            // before): a captured piece brushed before that and set back
            // is no capture begun (a nudge while the player thought).
            let left = moving_from(&m)
                .into_iter()
                .filter_map(|s| match since {
                    None => self.turn.first_lift(s),
                    Some(since) => self.turn.first_lift_after(s, since),
                })
                .min();
            let arrives_from =
                left.map_or(began, |l| l.saturating_sub(SLIDE_OVERLAP_MS).max(began));
            // When the mover's piece reached each square: the first piece
            // set down there since the move began (the next mover may have
            // set another down on it since, capturing it).
            // When the mover's piece came to stand on each square: the
            // first piece set down there since the move began that stood
            // (not a sliding piece passing over, nor a piece rocking); the
            // next mover may have taken it or set another down since.
            // A captured piece pushed off by the capturing one may leave its
            // square empty too briefly to settle: the raw activity then
            // dates the arrival.
            // (From the lift's first raw opening: a lift whose contacts
            // bounced settles after the push-off may have begun.)
            let raw_left = moving_from(&m)
                .into_iter()
                .filter_map(|s| {
                    let l = match since {
                        None => self.turn.first_lift(s),
                        Some(since) => self.turn.first_lift_after(s, since),
                    }?;
                    Some(self.turn.first_contact(s, l))
                })
                .min()
                .map_or(arrives_from, |r| r.min(arrives_from));
            let pushed_off = |s: Square| {
                self.turn
                    .toggles
                    .iter()
                    .find(|(f, sq)| *sq == s && *f >= raw_left)
                    .map(|(f, _)| *f)
                    .filter(|_| captured_square(&m) == Some(s))
            };
            // A stand cut short on the move's own square: where its piece
            // took one (the captured piece taken off after the mover's
            // lift), or where the next mover has lifted a piece that takes
            // it there, no slide passes over the square on its way on.
            // The stand then needs no more than [`RELEASE_MIN_MS`], not
            // the longer stand a slow scan asks of slides (`release_min`):
            // `...Bxc3 bxc3` read every 25 ms shows the bishop 100 ms on c3
            // before White's hand took it, not `...Bxa3` made unseen.
            let taken_there = || {
                captured_square(&m).is_some_and(|c| {
                    self.turn
                        .removals
                        .iter()
                        .any(|(u, s)| *s == c && *u >= left.unwrap_or(began))
                }) || taken_by_lifted(&after_pos, m.to(), gone & after_pos.us())
            };
            // Taken into a hand there, the piece stood as long as its
            // readings show, give or take a scan at either end: nothing set
            // down next door as it left, and nothing there it could have
            // taken (no slide going on from it, read or not). A bullet
            // hand's grab 100 ms after the landing reads 80 ms on a board
            // read every 20 ms.
            let stand_there = |s: Square| {
                let near = shakmaty::attacks::king_attacks(s);
                let could_go_on = pos
                    .legal_moves()
                    .iter()
                    .any(|o| o.from() == m.from() && o.is_capture() && near.contains(o.to()));
                let into_hand = !could_go_on
                    && self
                        .turn
                        .removals
                        .iter()
                        .find(|(u, q)| *q == s && *u > arrives_from)
                        .is_some_and(|(u, _)| {
                            !self.turn.placements.iter().any(|(p, q)| {
                                near.contains(*q)
                                    && p.abs_diff(*u) <= SLIDE_OVERLAP_MS + self.scan_uncertainty()
                            })
                        });
                if into_hand {
                    RELEASE_MIN_MS.saturating_sub(self.scan_uncertainty())
                } else {
                    RELEASE_MIN_MS
                }
            };
            // An unseen capture's piece stood on its square by the time
            // the next mover's hand came, no earlier than it was lifted.
            // (With his hand on the clock, a piece he let go may have been
            // lifted again by the next mover's hand within a release.)
            let reached = |s: Square| {
                self.turn
                    .came_to_stand(s, arrives_from, t, pushed_off(s))
                    .or_else(|| {
                        (s == m.to() && taken_there())
                            .then(|| {
                                self.turn.came_to_stand_for(
                                    s,
                                    arrives_from,
                                    t,
                                    pushed_off(s),
                                    stand_there(s),
                                )
                            })
                            .flatten()
                    })
                    .or((unseen && s == m.to()).then_some(began))
                    .or_else(|| {
                        hands
                            .after_release()
                            .then(|| {
                                self.turn.let_go_before_press(
                                    s,
                                    arrives_from,
                                    t,
                                    super::press::PRESS_REACH_MS,
                                )
                            })
                            .flatten()
                    })
            };
            let stood = |s: Square| reached(s).is_some();
            if !arrived.into_iter().all(stood) {
                continue;
            }
            let Some(release) = arrived
                .into_iter()
                .map(reached)
                .collect::<Option<Vec<Millis>>>()
                .and_then(|times| times.into_iter().max())
            else {
                continue;
            };
            let release = released_at(&self.turn, &m, release);
            let reached_since = |s: Square| {
                self.turn
                    .placements
                    .iter()
                    .any(|(t, sq)| *sq == s && *t > release)
            };
            if !extra.into_iter().all(reached_since) {
                continue;
            }
            // (A piece of his read empty but not settled yet is lifted now.)
            let his_first_lift = self
                .turn
                .removals
                .iter()
                .filter(|(u, s)| *u > began && after_pos.us().contains(*s))
                .map(|(u, _)| *u)
                .chain((unsettled & after_pos.us()).any().then_some(t))
                .min();
            // (A capture quicker than a scan was made once its piece left
            // its square for the last time: a piece set back there before
            // was the mover's hesitation.)
            let made_by = if unseen {
                moving_from(&m)
                    .into_iter()
                    .filter_map(|s| self.turn.last_lift(s))
                    .chain([release])
                    .max()
                    .unwrap_or(release)
            } else {
                release
            };
            if self.set_down_by_the_mover_after(arrived, extra, made_by, his_first_lift, t) {
                continue;
            }
            let fits = gone.into_iter().all(|y| {
                let at = if unsettled.contains(y) {
                    Some(t)
                } else {
                    self.turn.lifted_at[y as usize]
                };
                let Some(at) = at else {
                    return false;
                };
                match after_pos.board().color_at(y) {
                    // Not in the very scan that set the move down: that
                    // is a jump, not two hands.
                    // The next mover's hand, after the release (1.1) or
                    // reaching early for a piece; not one that could itself
                    // have set down what arrived: then the board may as well
                    // show a move the sensors missed and that piece's answer.
                    // (Not before the mover's own piece left: a piece of
                    // his opponent's gone by then was taken off by his
                    // hand, the captured piece first.)
                    Some(c) if c != mover => {
                        at >= left.unwrap_or(began)
                            && at != release
                            && !must_lift(&m).contains(y)
                            && (at > release
                                || !could_reach_were_they_empty(&after_pos, y, arrived))
                    }
                    // Lifted before the release: the mover's own touch,
                    // unless his hand is on the clock now and the piece is
                    // one the next mover is taking with a piece he has
                    // lifted too (a bullet capture begun early, 1.1).
                    Some(_) if at <= release => {
                        hands.after_release() && taken_by_lifted(&after_pos, y, gone)
                    }
                    // The piece just moved, lifted again: it stood long
                    // enough to have been let go (not a slide or a brush
                    // passing over), and only in FIDE play, where the move
                    // stands whoever lifts it (4.6 of 2005, 4.7 of 2023),
                    // or with the mover's hand on the clock.
                    Some(_) if arrived.contains(y) => {
                        // A pawn set down on the last rank and taken off
                        // again is the promotion being made (3.7e).
                        hands.after_release() || (self.profile.is_fide() && !m.is_promotion())
                    }
                    // Another piece of the mover under a capture quicker
                    // than a scan: the next mover's capture only where a
                    // piece of his can take it there; else the mover's
                    // hand was still at work on his own pieces, and the
                    // capture nobody saw is no reading of his move
                    // (`...Bxc4` read for a bishop gone on to g2 unseen
                    // while Black's queen was lifted to take back there).
                    Some(_) if unseen && !taken_by_lifted(&after_pos, y, after_pos.us()) => false,
                    // Another piece of the mover: the next mover's capture,
                    // unless it could be the mover castling (4.4).
                    Some(_) => {
                        hands.after_release()
                            || !pos.legal_moves().iter().any(|c| {
                                // The move looks like half of castling: its
                                // piece stands where castling puts it.
                                c.is_castle()
                                    && moving_from(c).contains(y)
                                    && (moving_from(&m) & moving_from(c)).any()
                                    && (arrived & !occupancy_after(pos, c)).is_empty()
                            })
                    }
                    None => false,
                }
            });
            if fits
                && self
                    .white
                    .is_none_or(|w| (colours_after(pos, &m).0 & board & !extra) == (w & !extra))
            {
                found.push(MadeUnder {
                    mv: m,
                    gone,
                    release,
                    unseen,
                    // (Not a square the next mover's hand emptied to take
                    // the piece, his capturing piece not yet lifted.)
                    flickered: swapped
                        && self
                            .turn
                            .toggles
                            .iter()
                            .any(|(u, s)| *s == m.to() && *u >= began),
                });
            }
        }
        // What the sensors saw the hands do comes before a capture they
        // may have missed.
        if found.iter().any(|f| !f.unseen) {
            found.retain(|f| !f.unseen);
        }
        // Among those, a square whose contacts opened for a moment after
        // the capturing piece was lifted (the swap, too quick to settle)
        // comes before squares that never stirred.
        if found.iter().any(|f| f.flickered) {
            found.retain(|f| f.flickered);
        }
        // Among moves to different squares, those that leave no piece
        // the hands set down to stand (and since taken away) on a square
        // they do not reach: ...Re8, the rook standing on e8 100 ms before
        // the next mover took it, not ...Rxa8 read from a blip on a8.
        let first = found.first().map(|f| (f.mv.from(), f.mv.to()));
        if found
            .iter()
            .any(|f| Some((f.mv.from(), f.mv.to())) != first)
        {
            let stood_elsewhere = |f: &MadeUnder| {
                let reached = arrival_squares(pos, &f.mv);
                self.turn
                    .placements
                    .iter()
                    .filter(|(p, s)| {
                        !board.contains(*s)
                            && !reached.contains(*s)
                            && self.turn.stood_then_left(*s, *p)
                    })
                    .map(|(_, s)| *s)
                    .collect::<Bitboard>()
                    .count()
            };
            let fewest = found.iter().map(stood_elsewhere).min();
            found.retain(|f| Some(stood_elsewhere(f)) == fewest);
        }
        found
    }

    /// Whether a piece stood somewhere `m` does not reach, set down after
    /// its release (at `release`) and before the next mover lifted any
    /// piece of his (at `his_first_lift`; a slide's magnet may close
    /// a square a moment before): only the mover's hand held a piece
    /// then, so his move was not made (his piece set back, to be moved
    /// again). A piece slid in by the next mover before any lift of his
    /// (an `extra` square, no lift of his at all) is his; a blip that did
    /// not stand a hand's release, or a square read empty for less than a
    /// nudge, is nobody's.
    fn set_down_by_the_mover_after(
        &self,
        arrived: Bitboard,
        extra: Bitboard,
        release: Millis,
        his_first_lift: Option<Millis>,
        t: Millis,
    ) -> bool {
        // Read with the square opened for less than a nudge and full
        // again taken as the piece brushed or rocking, or a blip: no piece
        // set down, none lifted.
        let opened_at = |s: Square, after: Millis| {
            self.turn
                .removals
                .iter()
                .filter(|(r, q)| *q == s && *r > after)
                .map(|(r, _)| *r)
                .find(|&r| {
                    !self.turn.placements.iter().any(|(p, q)| {
                        *q == s && *p > r && *p < r.saturating_add(self.config.nudge_ms)
                    })
                })
        };
        let brushed = |s: Square, u: Millis| {
            self.turn
                .removals
                .iter()
                .filter(|(r, q)| *q == s && *r < u)
                .map(|(r, _)| *r)
                .max()
                .is_some_and(|r| u.saturating_sub(r) < self.config.nudge_ms)
        };
        self.turn.placements.iter().any(|&(u, s)| {
            u > release
                && !arrived.contains(s)
                && !brushed(s, u)
                && his_first_lift.is_none_or(|l| u.saturating_add(SLIDE_OVERLAP_MS) < l)
                && !(his_first_lift.is_none() && extra.contains(s))
                && opened_at(s, u).unwrap_or(t) >= u.saturating_add(self.turn.release_min)
        })
    }

    /// Whether `m` is a capture that the hands may have made without the
    /// sensors seeing it: its piece was lifted and stands nowhere on
    /// `board`, and the captured piece's square is occupied (the captured
    /// piece taken off and the capturing one set down within one scan, or
    /// within the contacts' bounce). Asked only of captures that
    /// [`Self::hand_made`] did not see made.
    fn unseen_capture(&self, m: &Move, board: Bitboard) -> bool {
        let Some((from, to)) = plain_capture(m) else {
            return false;
        };
        self.turn.first_lift(from).is_some() && !board.contains(from) && board.contains(to)
    }

    /// Whether `m` is a capture the sensors never saw made whose capturing
    /// piece the next mover has lifted already to take it: its square read
    /// busy only when he lifted it, after the mover's piece was lifted,
    /// nothing was set down on it since, and a piece of his on `lifted`
    /// can take it there (in `after`, the position after `m`).
    ///
    /// A piece of his already in the air before that square first opened
    /// (his taker grabbed while the capture was being made, 1.1) may have
    /// been set down there since and lifted again, rocking as it lands:
    /// what the square did after it opened is his capture, not the
    /// mover's piece arriving (a push-off quicker than a scan, `Qxe7`
    /// with Black's king in the air to take back, the king set down on e7
    /// and lifted again as the press came).
    fn taken_at_once(&self, m: &Move, after: &Chess, board: Bitboard, lifted: Bitboard) -> bool {
        let Some((from, to)) = plain_capture(m) else {
            return false;
        };
        let Some(began) = self.turn.first_lift(from) else {
            return false;
        };
        let Some(opened) = self.turn.first_lift(to).filter(|&l| l > began) else {
            return false;
        };
        let grabbed_before = || {
            (lifted & !board).into_iter().any(|y| {
                self.turn
                    .first_lift_after(y, began)
                    .is_some_and(|l| l < opened)
                    && taken_by_lifted(after, to, Bitboard::from_square(y))
            })
        };
        !board.contains(from)
            && !board.contains(to)
            && (!self
                .turn
                .placements
                .iter()
                .any(|(u, s)| *s == to && *u >= began)
                || grabbed_before())
            && taken_by_lifted(after, to, lifted)
    }

    /// Whether the pieces on `extra` (squares `m` leaves empty) are the
    /// next mover's piece on its way: reached after a piece of his was
    /// lifted, and where the mover's lifted piece cannot have gone.
    fn passing_through(&self, pos: &Chess, m: &Move, after: &Chess, extra: Bitboard) -> bool {
        let his_lift = (after.us() & after.board().occupied() & self.turn.lifts)
            .into_iter()
            .filter_map(|y| self.turn.lifted_at[y as usize])
            .min();
        let Some(his_lift) = his_lift else {
            return false;
        };
        extra.into_iter().all(|s| {
            self.turn.placed_at[s as usize].is_some_and(|p| p > his_lift)
                && !m
                    .from()
                    .is_some_and(|f| could_reach(pos, f, Bitboard::from(s)))
        })
    }

    /// Whether the next mover has already answered the move in full on
    /// `board` (two hands, 1.1): a legal reply of his in `after`, the
    /// position after the move, makes its occupancy, every piece it moves
    /// seen lifted.
    fn answered_at_once(&self, after: &Chess, board: Bitboard) -> bool {
        after.legal_moves().iter().any(|r| {
            occupancy_after(after, r) == board && (must_lift(r) & !self.turn.lifts).is_empty()
        })
    }

    /// Makes the move found under the next mover's lifts at `t`; the lifts
    /// made after its release start the next turn (touches of the player
    /// now having the move, 4.3).
    pub(super) fn make_under_lifts(&mut self, t: Millis, made: MadeUnder) {
        // A promotion whose piece is not yet named (3.7e): the move is
        // made, its record waits for the name.
        if let (Some(from), true) = (made.mv.from(), made.mv.is_promotion())
            && self.promotion_choice.is_none()
        {
            self.promotion = Some(PendingPromotion {
                from,
                to: made.mv.to(),
                since: made.release,
                released: Some(ReleasedPromotion::under_lifts(t, made)),
            });
            return;
        }
        self.make_now_under_lifts(t, made);
    }

    /// [`Self::make_under_lifts`], the move's piece known.
    pub(super) fn make_now_under_lifts(&mut self, t: Millis, made: MadeUnder) {
        // Where the move's pieces came to stand.
        let before = self.game.position();
        let arrivals = arrival_squares(before, &made.mv);
        let old = std::mem::take(&mut self.turn);
        // The next mover's lifts are not the mover's touches.
        self.turn = TurnHands {
            touches: old
                .touches
                .iter()
                .copied()
                .filter(|x| x.at <= made.release && !made.gone.contains(x.square))
                .collect(),
            ..old.clone()
        };
        self.promotion = None;
        self.promotion_choice = None;
        self.make_move(t, made.mv);
        // A jump on the move's own squares (a slide onto the neighbouring
        // square read in one scan) is the move now made: no jump for the
        // next settle to explain.
        let own = moving_from(&made.mv)
            | arrivals
            | captured_square(&made.mv).map_or(Bitboard::EMPTY, Bitboard::from_square);
        // So is a slide read in one scan (no hand left unread) before the
        // move's release: the mover's rook passing the square next door.
        let slid_before = !self.unread
            && self
                .jumped_scans
                .iter()
                .flatten()
                .all(|c| c.since <= made.release);
        if (self.jumped & !own).is_empty() || slid_before {
            self.unread = false;
            self.jumped = Bitboard::EMPTY;
            self.jumped_scans.clear();
        }
        // What the next mover's hand did after the release stays his.
        self.carry_over(&old, made.release);
        // Pieces touched after the release: the next mover's touches.
        for x in old.touches.iter().filter(|x| x.at > made.release) {
            // (On the move's own squares: the mover's hand finishing it, a
            // pawn swapped for its new piece (3.7e), or the next mover
            // taking the piece just moved, which the sensors cannot tell
            // apart: no accusation rests on it.)
            if made.gone.contains(x.square) || arrivals.contains(x.square) {
                continue;
            }
            if let Some(piece) = self.game.position().board().piece_at(x.square) {
                self.turn.touches.push(Touch { piece, ..*x });
            }
        }
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
            if arrivals.contains(y) {
                // The piece just moved, read as lifted again by the next
                // mover: that reading rests on when the move was let go,
                // which the sensors only infer. Not certain enough to
                // accuse him of touching it (4.3b); a capture of it needs
                // no touch to be recorded.
                continue;
            }
            if let Some(piece) = self.game.position().board().piece_at(y) {
                let with = self.game.position().board().occupied() & !self.board;
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

/// Whether `m` is a capture and its piece could have taken the piece on
/// `sq` instead (a legal capture from the same square): the board shows a
/// capture by the worked square alone (a piece taken off its square and
/// the capturing one set down, or a brush), so a lift of `sq` may be the
/// mover's own hand taking that piece off, not the next mover's grab, and
/// the settle tells where his piece came to stand (certainty first). A
/// piece set down on an empty square shows where it went.
fn could_have_taken(pos: &Chess, m: &Move, sq: Square) -> bool {
    m.is_capture()
        && pos
            .legal_moves()
            .iter()
            .any(|other| other.from() == m.from() && captured_square(other) == Some(sq))
}
