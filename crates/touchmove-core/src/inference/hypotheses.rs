//! Moves the sensors did not read, when several lines of legal plies
//! explain the board: all are kept (at most [`MAX_LINES`]), the board's
//! later states are read under each, and the lines it contradicts are
//! dropped. Plies every line shares are recorded at once; the rest once
//! one line remains. While several remain, a `candidates` event names them.
use shakmaty::{ByColor, Role};

use crate::game::repetition::PositionKey;

use super::promotion::promoting_to;
use super::two_hands::{Hands, MadeUnder};

use super::*;

/// The most lines kept open at once.
pub const MAX_LINES: usize = 64;

/// Plies the board may reveal at one settle beyond a line's position.
const EXTEND_PLIES: usize = 2;

/// How the board that lines are judged on was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JumpRead {
    /// Settled as the hands worked.
    No,
    /// In one reading, no hand read (the sensors unread, garbage): plies
    /// the sensors missed may extend the lines.
    Unread,
    /// [`JumpRead::Unread`], and lines from the record explain it too
    /// (added beside the open ones): no hand made a move under any line.
    FromTheRecordToo,
}

/// How long the board shows a piece knocked under open lines before it is
/// reported displaced, ms: a slide whose magnets overlap shows a piece on
/// the square next to the one it left for up to ~150 ms; a knocked piece
/// stays until a hand sets it back, seconds.
const KNOCK_CONFIRM_MS: Millis = 400;

/// A piece of the side not on move knocked onto an empty square while
/// lines were open (7.3), or one of the side on move set down where no
/// legal move takes it (an illegal move, not completed, 7.5): see
/// [`Inference::knocked_under`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Knocked {
    /// The occupancy of the line's position it was knocked from.
    line_board: Bitboard,
    /// The board showing it.
    board: Bitboard,
    /// When the board first showed it.
    since: Millis,
    /// The square it left and the one it stands on, in order.
    squares: (Square, Square),
    /// Whether `displaced` or `illegal_move` was reported (and
    /// `restored` is owed).
    alerted: bool,
    /// The square the side on move's piece left and the one it was set
    /// down on: an illegal move, not a knock.
    illegal: Option<(Square, Square)>,
}

/// Plies a jump of the board (no hand read) may add to a line.
const JUMP_EXTEND_PLIES: usize = 4;

/// Settles at which other lines saw a move made while a line only waited
/// for a hand at work, after which it is dropped: under it the players
/// would have gone on moving pieces while its move stayed in the air.
const MAX_STALLED: u8 = 2;

/// The longest a line read with a hand at work (see
/// [`Line::hand_at_work`]) waits for the held piece to be set down or
/// taken, ms: a piece carried stays in the air a second or two (a capture's
/// two pieces a little longer), a think is longer.
const HAND_HOLD_MS: Millis = 3000;

/// One explanation: plies from the recorded position.
#[derive(Debug, Clone)]
pub(super) struct Line {
    pub plies: Vec<Move>,
    /// The last ply was a move of the hands read at the latest settle, not
    /// a ply the sensors missed.
    pub seen_last: bool,
    /// The last ply was read with the next mover's hand already at work
    /// (two hands, 1.1): `since` is when its pieces were let go.
    pub under_lifts: bool,
    /// When the last ply was read (its release, when read under the next
    /// mover's hand): lifts until then made the line's plies.
    pub since: Millis,
    /// Settles in a row at which other lines saw a move made while this
    /// one only waited for a hand at work.
    pub stalled: u8,
    /// Plies added to the line since it was opened.
    pub added: u8,
    /// Two plies longer than the fewest that explained the board, with
    /// the same side to move: kept only while lines of the fewest plies
    /// have not gone [`PROBATION_PLIES`] on.
    pub on_probation: bool,
    /// Fewer plies than the board shows, read with the next mover's hand
    /// holding a piece when the sensors were read again: a move its hands
    /// then make is no proof against lines the board merely did not
    /// contradict (a piece lifted and set back reads as a capture's
    /// captured piece taken off and the capturing one set down).
    pub hand_at_work: bool,
    /// The last ply is a capture read at a press that the sensors never
    /// saw made (its captured piece's square never read empty).
    pub unseen_last: bool,
    /// When the hands set the last ply seen down (see
    /// [`TurnHands::set_down_for`]), where known: a press read after it,
    /// before the settle that read it, completes it (6.7).
    pub made_at: Option<Millis>,
}

impl Line {
    /// `plies`, then `m`, a move the hands were seen making.
    fn then_seen(&self, plies: &[Move], m: Move, t: Millis) -> Line {
        let mut plies = plies.to_vec();
        plies.push(m);
        Line {
            plies,
            seen_last: true,
            under_lifts: false,
            since: t,
            stalled: 0,
            added: self.added.saturating_add(1),
            on_probation: self.on_probation,
            hand_at_work: false,
            unseen_last: false,
            made_at: None,
        }
    }

    /// Plies the sensors missed, from the recorded position, read at `t`.
    fn missed(plies: Vec<Move>, t: Millis) -> Line {
        Line {
            plies,
            seen_last: false,
            under_lifts: false,
            since: t,
            stalled: 0,
            added: 0,
            on_probation: false,
            hand_at_work: false,
            unseen_last: false,
            made_at: None,
        }
    }

    /// `more`, plies the sensors missed after this line's, read at `t`.
    fn then_missed(&self, more: &[Move], t: Millis) -> Line {
        let mut plies = self.plies.clone();
        plies.extend_from_slice(more);
        Line {
            added: self
                .added
                .saturating_add(u8::try_from(more.len()).unwrap_or(u8::MAX)),
            on_probation: self.on_probation,
            ..Line::missed(plies, t)
        }
    }
}

/// Plies the lines of the fewest plies may go on while lines two plies
/// longer stay open beside them: beyond, nothing told them apart and the
/// fewer plies are recorded (parsimony), as if the longer were never
/// sought. (A bishop that stood elsewhere under the longer line moved
/// four plies on in the case that asked for them.)
const PROBATION_PLIES: u8 = 8;

/// Lines of plies from the recorded position, each leading to a position
/// the board may show.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub lines: Vec<Line>,
    /// The UCI lines last announced in a `candidates` event.
    announced: Vec<String>,
    /// When the lines were opened: what the hands did since is the next
    /// mover's once a line of missed plies alone remains.
    opened: Millis,
    /// The board when the lines were opened: a piece gone from its square
    /// then (in the hand, or garbage read) may be set down by a line's
    /// next move, though no lift of it is known.
    opened_board: Bitboard,
    /// The last press read while the lines were open, and whose: when the
    /// line that remains ends with his move, it completes it (6.7).
    pressed: Option<(Millis, Color)>,
    /// Each player's last press read while the lines were open, whatever
    /// it told: a ply of his that a line read before it was pressed for
    /// then (6.7), and a later press of his is no completion of it.
    last_presses: ByColor<Option<Millis>>,
}

impl Pending {
    /// `side` pressed the clock at `t` and no line told what it was for.
    pub(super) fn press(&mut self, t: Millis, side: Color) {
        self.pressed = Some((t, side));
    }

    /// `side` pressed at `t`; returns when he last pressed before, while
    /// the lines were open.
    fn pressed_by(&mut self, t: Millis, side: Color) -> Option<Millis> {
        self.last_presses.get_mut(side).replace(t)
    }

    /// Lines of plies the sensors missed from the recorded position, read
    /// at `t`, before those open (the same plies are one line): the
    /// fewest plies that explain the board go first, so that the bound on
    /// open lines cuts off the open lines' many tempo variants instead.
    /// Lines two plies longer (the same side to move) come on probation
    /// after them.
    pub(super) fn add_missed(&mut self, lines: Vec<Vec<Move>>, longer: Vec<Vec<Move>>, t: Millis) {
        let fresh: Vec<Line> = lines
            .into_iter()
            .map(|plies| (plies, false))
            .chain(longer.into_iter().map(|plies| (plies, true)))
            .filter(|(plies, _)| !self.lines.iter().any(|l| &l.plies == plies))
            .map(|(plies, on_probation)| Line {
                on_probation,
                ..Line::missed(plies, t)
            })
            .collect();
        self.lines.splice(0..0, fresh);
    }
}

impl Inference {
    /// Several lines (or one, with a move in progress also possible)
    /// explain the board: record what is certain, keep the rest open.
    pub(super) fn hypothesise(&mut self, t: Millis, lines: Vec<Vec<Move>>) {
        self.hypothesise_with_longer(t, lines, Vec::new(), Vec::new());
    }

    /// [`Self::hypothesise`], with lines two plies longer (the same side
    /// to move) kept on probation beside them, and lines of fewer plies
    /// with a hand at work after them (see [`Line::hand_at_work`]), each
    /// with the time of the reading they were read from.
    pub(super) fn hypothesise_with_longer(
        &mut self,
        t: Millis,
        lines: Vec<Vec<Move>>,
        longer: Vec<Vec<Move>>,
        at_work: Vec<(Vec<Move>, Millis)>,
    ) {
        // Lines in the order the hands lifted their pieces first, while
        // the hands are still known: of lines reaching one position, the
        // first is recorded. (Then those whose plies set pieces down
        // where the hands let one stand.)
        let mut lines = lines;
        let base = self.game.position().clone();
        lines.sort_by_cached_key(|plies| {
            (
                self.against_the_hands(plies),
                self.placed_out_of_order(&base, plies),
                self.passes_over_set_downs(&base, plies),
            )
        });
        // (Lines with a hand at work are few: never cut off by the bound
        // on open lines where many longer lines reach one position.)
        lines.truncate(MAX_LINES.saturating_sub(at_work.len()));
        let lines = lines
            .into_iter()
            .map(|plies| Line::missed(plies, t))
            .chain(at_work.into_iter().map(|(plies, read)| Line {
                hand_at_work: true,
                ..Line::missed(plies, read)
            }))
            .chain(longer.into_iter().map(|plies| Line {
                on_probation: true,
                ..Line::missed(plies, t)
            }))
            .collect();
        self.hypothesise_lines(t, lines);
    }

    /// Moves read at the mover's press under the next mover's hand, each
    /// a capture whose captured piece never read empty (two hands, 1.1):
    /// lines whose ply was made when its piece was lifted, so the next
    /// mover's lifts since (before the press too) are his next move's.
    pub(super) fn hypothesise_made_under(&mut self, t: Millis, made: Vec<MadeUnder>) {
        let lines = made
            .into_iter()
            .map(|f| Line::missed(vec![f.mv], f.release))
            .collect();
        self.hypothesise_lines(t, lines);
    }

    fn hypothesise_lines(&mut self, t: Millis, lines: Vec<Line>) {
        // The hands keep what they did: a piece lifted before the jump may
        // be the one a line's next move makes. Not on a board that nothing
        // explained before it jumped (a piece knocked over, garbage read):
        // what the hands did there belongs to no line.
        if !matches!(self.alert, Alert::None) {
            let old = std::mem::take(&mut self.turn);
            // But a piece lifted after the board's last piece was set down
            // and still in the hand: a move begun on the board the lines
            // explain (the next mover's, 1.1), kept for them.
            if let Some(set) = self.last_placed {
                self.carry_over_on(&old, old.lifts & !self.board, set);
            }
        }
        self.settle_lines(
            t,
            Pending {
                lines,
                announced: Vec::new(),
                opened: t,
                opened_board: self.board,
                pressed: None,
                last_presses: ByColor::new_with(|_| None),
            },
        );
    }

    /// How far the plies of a line go against the order in which the
    /// hands were seen lifting their pieces (pairs of plies in the other
    /// order): the sensors were read, only the board was not understood
    /// at once.
    fn against_the_hands(&self, plies: &[Move]) -> usize {
        let lifted: Vec<Millis> = plies
            .iter()
            .filter_map(|m| m.from().and_then(|f| self.turn.first_lift(f)))
            .collect();
        lifted
            .iter()
            .enumerate()
            .map(|(i, a)| lifted[i + 1..].iter().filter(|b| *b < a).count())
            .sum()
    }

    /// How many squares the hands were seen setting a piece on that no ply
    /// of the line sets a piece on (or takes one from): of two orders of
    /// plies reaching one position, the one the hands were seen making
    /// (a pawn set down on d5 and taken en passant is no pawn moved to
    /// d6 and taken there).
    /// Placements after `until` (when the line's last ply was seen made)
    /// are the next move's hands at work, not the line's. A piece that
    /// stood less than a hand's reaction (a slide passing over a square)
    /// was set down nowhere.
    fn placed_elsewhere(&self, base: &Chess, plies: &[Move], until: Option<Millis>) -> usize {
        let mut pos = base.clone();
        let mut reached = Bitboard::EMPTY;
        for m in plies {
            reached |= arrival_squares(&pos, m);
            pos.play_unchecked(*m);
        }
        let stood = |u: Millis, sq: Square| {
            !self.turn.removals.iter().any(|&(r, s)| {
                s == sq && r > u && r < u.saturating_add(super::two_hands::RELEASE_MIN_MS)
            })
        };
        let placed: Bitboard = self
            .turn
            .placements
            .iter()
            .filter(|&&(u, sq)| until.is_none_or(|until| u <= until) && stood(u, sq))
            .map(|(_, sq)| *sq)
            .collect();
        (placed & !reached).count()
    }

    /// How many squares empty in `base` the hands set a piece down on this
    /// turn, let it stand (a release, 4.6) and took it away again, where
    /// no ply of `plies` sets one down: the line passes over what the
    /// hands did (`...b4 a4 ...bxa3` sets down b4 and a4, `...b4 a3
    /// ...bxa3` not a4).
    pub(super) fn passes_over_set_downs(&self, base: &Chess, plies: &[Move]) -> usize {
        let stood = self.turn.stood_and_left() & !base.board().occupied();
        (stood & !lands_on(base, plies)).count()
    }

    /// How many plies of a line set a piece down where the hands were not
    /// seen setting one in the line's order: each ply's arrival matched to
    /// the first placement there after the previous ply's (of two lines
    /// reaching one position, ...Rb1 then White's rook taking it there is
    /// not ...Re8 taken there, when b1 was set down last of all).
    fn placed_out_of_order(&self, base: &Chess, plies: &[Move]) -> usize {
        let mut pos = base.clone();
        let mut since: Option<Millis> = None;
        let mut out_of_order = 0;
        for m in plies {
            let arrivals = arrival_squares(&pos, m);
            pos.play_unchecked(*m);
            let placed = self
                .turn
                .placements
                .iter()
                .filter(|(u, sq)| arrivals.contains(*sq) && since.is_none_or(|s| *u > s))
                .map(|(u, _)| *u)
                .min();
            match placed {
                Some(u) => since = Some(u),
                None => out_of_order += 1,
            }
        }
        out_of_order
    }

    /// The board settled while lines are open: extends or drops each.
    /// False when no line explains the board any more (the caller goes on
    /// as if the board had jumped).
    pub(super) fn judge_hypotheses(
        &mut self,
        t: Millis,
        board: Bitboard,
        pending: Pending,
        read: JumpRead,
    ) -> bool {
        let unread_jump = read == JumpRead::FromTheRecordToo;
        let unseen = read != JumpRead::No;
        let base = self.game.position().clone();
        let mut next: Vec<Line> = Vec::new();
        // Lines extended at this settle by a move the hands made.
        let mut extended = 0;
        // Of them, lines not read with a hand at work (see
        // [`Line::hand_at_work`]).
        let mut firm = 0;
        // The earliest release of such a move read under the next mover's
        // hand: what the hands did since is his turn's.
        let mut next_hand_since: Option<Millis> = None;
        // Lines kept only because the board still shows their position.
        let mut unchanged: Vec<usize> = Vec::new();
        // Lines kept only by a capture whose captured piece was never read
        // leaving its square (quicker than a scan).
        let mut quick_captures: Vec<usize> = Vec::new();
        // Lines kept only because a hand may be at work under them.
        let mut waiting: Vec<usize> = Vec::new();
        // Lines whose last ply ended the game.
        let mut ended: Vec<Line> = Vec::new();
        // Lines kept only by plies nobody saw the hands make, searched at
        // this settle (see `seen_making`).
        let mut searched_on = 0;
        // Lines whose position the board shows but for a piece knocked
        // next door (see `knocked_next_door`).
        let mut knocked_aside: Vec<Line> = Vec::new();
        let judged = pending.lines.len();
        // After a jump the sensors did not read, the lines open before it
        // (not those just searched afresh from the record): each line
        // extending one counts only the plies this jump hid.
        let opened_before: Vec<Vec<Move>> = if unread_jump {
            pending
                .lines
                .iter()
                .filter(|l| !is_fresh(l, t))
                .map(|l| l.plies.clone())
                .collect()
        } else {
            Vec::new()
        };
        // After a jump, lines that found no plies, with their position:
        // searched for a hand at work only if no line is left (below).
        let mut unexplained: Vec<(Line, Chess, usize)> = Vec::new();
        // (Kept as they were, in case the board only shows a piece
        // knocked under them.)
        let judged_lines = (read == JumpRead::No).then(|| pending.lines.clone());
        // Squares the board saw a piece leave: lifted this turn, or gone
        // since before the lines were opened and still gone.
        let left = self.turn.seen() | !pending.opened_board & !board;
        let board_saw = |line: &Line| {
            line.plies
                .iter()
                .all(|m| (moving_from(m) & !left).is_empty())
        };
        let saw_one = read == JumpRead::No && pending.lines.iter().any(board_saw);
        for line in pending.lines {
            // A hand holding a piece when the sensors were read again sets
            // it down within moments, not after a think.
            if line.hand_at_work && t.saturating_sub(line.since) > HAND_HOLD_MS {
                continue;
            }
            let pos = play_line(&base, &line.plies);
            // Pieces of the line's position already gone when the lines
            // were opened, and still gone: held, or read away by garbage.
            let held = held(&pos, pending.opened_board, board);
            let seen = self.turn.seen() | held;
            if pos.board().occupied() == board
                && self.white.is_none_or(|w| w == pos.board().white())
            {
                unchanged.push(next.len());
                next.push(line);
                continue;
            }
            // A promotion the hands just made, its piece not yet named,
            // ends the game only as the queen guessed: the piece may be
            // named otherwise (3.7e), so the line waits for the name.
            let unnamed_promotion = self.promotion_choice.is_none()
                && line.seen_last
                && line.plies.last().is_some_and(|m| m.is_promotion());
            if pos.is_game_over() && !unnamed_promotion {
                ended.push(line);
                continue;
            }
            // (After a jump no hand was read: what changed are plies the
            // sensors missed, searched below.)
            let moves: Vec<Move> = pos
                .legal_moves()
                .into_iter()
                .filter(|_| !unread_jump)
                .filter(|m| {
                    occupancy_after(&pos, m) == board
                        && if m.is_capture() || (must_lift(m) & held).is_empty() {
                            self.hand_made_after(m, &line.plies, after_last_ply(&line), true)
                        } else {
                            (must_lift(m) & !seen).is_empty()
                        }
                })
                // At the mover's press, the next mover's piece set down a
                // moment ago may be sliding on (two hands, 1.1): not made.
                .filter(|m| {
                    !self.pressing || pos.turn() == self.game.turn() || self.stood(t, &pos, m)
                })
                // A promotion the hands make: the piece named, or a queen
                // (a name entered later replaces it, see below).
                .filter(|m| {
                    m.promotion()
                        .is_none_or(|r| r == self.promotion_choice.unwrap_or(Role::Queen))
                })
                .filter(|m| {
                    self.white
                        .is_none_or(|w| colours_after(&pos, m).0 == w || m.is_promotion())
                })
                .collect();
            // A capture read only from its captured square read empty for
            // a single reading (a swap whose captured piece's contacts did
            // not bounce as a piece pushed off does) while its piece may
            // still be in the air waits, as the record's does (see
            // [`SWAP_RELEASE_MS`]): the press, the next mover's touch or
            // that time makes it; where the piece lands may tell otherwise
            // (interference while it was held). (Two readings or more are
            // a bullet hand's capture as often: made at once, as before.)
            let one_reading = |m: &Move, back: Millis| {
                self.turn
                    .removals
                    .iter()
                    .filter(|(r, q)| *q == m.to() && *r <= back)
                    .map(|(r, _)| *r)
                    .max()
                    .is_some_and(|r| back.saturating_sub(r) <= self.scan_period.max(1))
            };
            let swap_wait = |m: &Move| {
                self.turn
                    .swapped_at(m, self.scan_period)
                    .filter(|&back| {
                        !self.pressing
                            && !m.is_promotion()
                            && !self.turn.burst_on(m.to(), |_| true)
                            && one_reading(m, back)
                    })
                    .map(|s| s.saturating_add(SWAP_RELEASE_MS))
                    .filter(|&until| t < until)
            };
            if let Some(until) = moves.iter().filter_map(swap_wait).min() {
                self.swap_until = Some(self.swap_until.map_or(until, |u| u.min(until)));
            }
            let moves: Vec<Move> = moves
                .into_iter()
                .filter(|m| swap_wait(m).is_none())
                .collect();
            if !moves.is_empty() {
                // Under this line its mover pressed his clock before the
                // move's piece was set down (6.7: the press follows the
                // move): his move, perhaps, but no proof against lines
                // under which that press completed a move and the board
                // only saw a piece touched since.
                let after_his_press = pending.last_presses.get(pos.turn()).is_some_and(|p| {
                    p > line.since
                        && moves
                            .iter()
                            .all(|m| self.turn.set_down_at(m.to()).is_some_and(|l| l > p))
                });
                firm += usize::from(!line.hand_at_work && !after_his_press);
                for m in moves {
                    next.push(Line {
                        made_at: self.turn.set_down_for(&pos, &m, t),
                        ..line.then_seen(&line.plies, m, t)
                    });
                    extended += 1;
                }
                continue;
            }
            // Two hands (1.1): a move the hands made under this line, the
            // next mover's hand already at work (pieces lifted since its
            // last piece was set down). His move is read at a later settle.
            let under = if unread_jump {
                Vec::new()
            } else {
                // (A lift read at the very time the line was read came
                // after it: the board it was read on did not show it. A
                // line of no plies holds the hands then at work too: a
                // king set down before it opened, its rook to come.)
                let since = if line.plies.is_empty() {
                    // (From when the record's last piece was set down:
                    // a move adopted from a line is recorded at a later
                    // reading, the next mover's hand may be at work since.)
                    let made = self.game.moves().last().map_or(0, |m| {
                        self.turn
                            .set_down_at(m.mv.to())
                            .filter(|p| *p <= m.t)
                            .unwrap_or(m.t)
                    });
                    self.turn.open_since(made, line.since)
                } else {
                    line.since
                };
                // Under a line read with a hand at work, the pieces it
                // held when the sensors were read again were lifted then.
                let hands = (line.hand_at_work && (held & !self.turn.lifts).any())
                    .then(|| self.turn.with_held(held, line.since));
                let saved = hands.map(|h| std::mem::replace(&mut self.turn, h));
                let under = self.all_made_under_lifts_after(
                    &pos,
                    &line.plies,
                    Some(since.saturating_sub(1)),
                    t,
                    board,
                    Hands::NextMoversPieces,
                );
                if let Some(saved) = saved {
                    self.turn = saved;
                }
                under
            };
            if !under.is_empty() {
                firm += usize::from(!line.hand_at_work);
                for made in under {
                    let mut then = line.then_seen(&line.plies, made.mv, made.release);
                    then.under_lifts = true;
                    next_hand_since =
                        Some(next_hand_since.map_or(made.release, |r| r.min(made.release)));
                    next.push(then);
                    extended += 1;
                }
                continue;
            }
            // Pieces only missing: a hand at work (a piece adjusted, the
            // next move begun); the board has not contradicted the line.
            let only_missing = (board & !pos.board().occupied()).is_empty();
            let in_progress = if self.pressing {
                explain::in_progress_at_press(&pos, board)
            } else {
                explain::in_progress_settled(&pos, board)
            };
            if !unread_jump && (only_missing || in_progress) {
                // Read in one jumped scan, the pieces gone may as well be
                // captures nobody saw (each captured piece never left its
                // square): those plies stand beside the hand at work, and
                // the next moves tell.
                if unseen {
                    for more in missed::explanations(
                        &pos,
                        board,
                        self.white,
                        self.config.max_missed_plies.min(JUMP_EXTEND_PLIES),
                        missed::Roam::Never,
                    ) {
                        next.push(line.then_missed(&more, t));
                    }
                }
                waiting.push(next.len());
                next.push(line);
                continue;
            }
            // Casual play: the move just seen corrected (a piece of it
            // moved on, a rook set down first and then the king castling).
            if line.seen_last
                && !unread_jump
                && !self.profile.is_fide()
                && let Some(last) = line.plies.last().copied()
            {
                let before = play_line(&base, &line.plies[..line.plies.len() - 1]);
                let corrections: Vec<Move> = before
                    .legal_moves()
                    .into_iter()
                    .filter(|m| {
                        *m != last
                            && (moving_from(m) & moving_from(&last)).any()
                            && occupancy_after(&before, m) == board
                    })
                    .collect();
                if !corrections.is_empty() {
                    firm += usize::from(!line.hand_at_work);
                    let kept = &line.plies[..line.plies.len() - 1];
                    for m in corrections {
                        next.push(line.then_seen(kept, m, t));
                        extended += 1;
                    }
                    continue;
                }
            }
            // (After a jump, as many plies as a jump may hide.)
            let plies = if unseen {
                self.config.max_missed_plies.min(JUMP_EXTEND_PLIES)
            } else {
                EXTEND_PLIES
            };
            let mut found =
                match missed::search_with(&pos, board, self.white, plies, missed::Roam::Never) {
                    missed::Explanation::Unique(more) => vec![more],
                    missed::Explanation::Ambiguous(more) => more,
                    missed::Explanation::None => Vec::new(),
                };
            // After a jump, as for a jump read with no line open: the board
            // may be a ply further on, the other side to move (a piece
            // gone on by way of another square); the next move tells.
            if unseen {
                let other_side =
                    missed::with_the_other_side_to_move(&pos, board, self.white, &found, plies);
                found.extend(other_side);
            }
            if unseen && found.is_empty() {
                unexplained.push((line, pos, plies));
                continue;
            }
            // The hands were seen: every piece these plies move was
            // lifted (a captured piece may have left its square quicker
            // than a scan, as the record reads missed captures). (Not
            // after a jump: nobody saw them.)
            let before = next.len();
            for more in found
                .into_iter()
                .filter(|more| unseen || self.seen_making(&pos, more, seen))
            {
                if !unseen && more.iter().any(|m| (must_lift(m) & !seen).any()) {
                    quick_captures.push(next.len());
                }
                next.push(line.then_missed(&more, t));
                searched_on += 1;
            }
            if next.len() == before && !unseen && self.knocked_next_door(&pos, board, &line) {
                knocked_aside.push(line);
            }
        }
        if extended > 0 {
            // A piece of the side not on move under a line, knocked onto
            // the empty square next door (7.3), may be a legal move under
            // lines one ply longer or shorter: no proof against the line.
            // It waits beside them for the piece to be set back, if it is
            // shorter than every line the hands extended (a line of tempo
            // moves is no rival to a move seen made).
            let fewest = next.iter().map(|l| l.plies.len()).min().unwrap_or(0);
            for line in knocked_aside.into_iter().filter(|l| l.plies.len() < fewest) {
                waiting.push(next.len());
                next.push(line);
            }
        }
        if next.is_empty() {
            // After a jump, as for a jump read with no line open: fewer
            // plies, the sensors read again while the next mover's hand
            // held a piece (fast hands, 1.1); where it lands tells. (Only
            // where the board leaves no line otherwise: never stuck.)
            for (line, pos, plies) in &unexplained {
                for (more, read) in self.hands_at_work(t, pos, board, &[], *plies, false) {
                    next.push(Line {
                        hand_at_work: true,
                        ..line.then_missed(&more, read)
                    });
                }
            }
        }
        if read == JumpRead::No
            && extended == 0
            && next.len() < judged
            && !next.is_empty()
            && waiting.len() == next.len()
            && next.iter().all(|l| !l.seen_last)
        {
            // Never stuck: the board contradicted lines at this settle and
            // those left, plies nobody saw made, only wait for a hand at
            // work. The record itself may explain the board by what the
            // hands did (the lines may have come of garbage read): those
            // plies stand beside them and the next moves tell, rather than
            // the lone line waiting being recorded for a board it does not
            // show.
            let fresh = self.made_from_the_record_beside(&base, board, pending.opened_board, &next);
            next.extend(fresh.into_iter().map(|plies| Line::missed(plies, t)));
        } else if read == JumpRead::No
            && extended == 0
            && searched_on > 0
            && searched_on == next.len()
        {
            // Never stuck: every line left goes on only by plies searched
            // at this settle, beyond what the hands were seen making
            // under it (perhaps opened on garbage read). The record may
            // explain the board in fewer plies, every piece they move seen
            // lifted: those plies stand beside them, and the next moves
            // tell (a long line of tempo moves is no certainty).
            let fewest = next.iter().map(|l| l.plies.len()).min().unwrap_or(0);
            let fresh = self.shorter_from_the_record(&base, board, pending.opened_board, fewest);
            next.extend(fresh.into_iter().map(|plies| Line::missed(plies, t)));
        } else if read == JumpRead::No && saw_one && !next.is_empty() && !next.iter().any(board_saw)
        {
            // Never stuck, and no move recorded that nobody saw: the board
            // dropped every line whose pieces it saw leave their squares,
            // and the lines left rest on plies it never saw (perhaps
            // opened on garbage read). Their shared plies are no
            // certainty while the record explains the board by what the
            // hands did: those plies stand beside them, and the next
            // moves tell.
            let fresh = self.seen_making_from_the_record(&base, board, pending.opened_board, &next);
            next.extend(fresh.into_iter().map(|plies| Line::missed(plies, t)));
        }
        if extended > 0 {
            // Under some line the hands were seen making a move, every
            // piece of it lifted: no sensor missed anything there, and a
            // capture read under another line only by assuming one did
            // (its captured piece never read leaving) is dropped.
            let mut i = 0;
            next.retain(|_| {
                i += 1;
                !quick_captures.contains(&(i - 1))
            });
            // (The indices below were taken before: shift them.)
            let dropped = |k: usize| quick_captures.iter().filter(|&&q| q < k).count();
            unchanged = unchanged.iter().map(|&k| k - dropped(k)).collect();
            waiting = waiting.iter().map(|&k| k - dropped(k)).collect();
        }
        if next.is_empty()
            && ended.is_empty()
            && let Some(lines) = &judged_lines
        {
            // At the mover's press, a piece set down a moment ago may be
            // sliding on (two hands, 1.1): the board is no position yet,
            // and the lines are judged again at the next settle.
            if self.pressing && self.sliding_on_at_press(t, &base, board, lines) {
                let lines = lines.clone();
                self.pending = Some(Pending { lines, ..pending });
                return true;
            }
            // The hands may have gone further than a settle's plies under
            // a line (captures read as lifts, a hand at work until now):
            // as far as a jump may hide, every piece seen lifted.
            next = self.deeper_under(t, &base, board, pending.opened_board, lines);
        }
        if next.is_empty() {
            // Never stuck: the board contradicts every line but one that
            // ended the game (a mate read under it). What the board shows
            // after the end of the game contradicts nothing (5.1): that
            // line is the game.
            if ended.len() == 1 && read == JumpRead::No {
                let line = ended.swap_remove(0);
                self.close_candidates(t, &pending.announced);
                self.resolve(t, line, pending.opened, pending.pressed);
                return true;
            }
            // A piece of the side not on move knocked onto an empty square
            // while the lines were open (7.3): the board is displaced
            // from a line's position and the lines wait for it to be set
            // back, as the record does. Reported once the board has shown
            // it for [`KNOCK_CONFIRM_MS`] (a slide's magnets overlapping
            // show as much for a moment). (If the board then changes to
            // one no line explains, the lines may have been wrong, and the
            // record is searched afresh.)
            if let Some(lines) = &judged_lines {
                let (knocked, knocked_before) = match self.knocked_under_lines {
                    Some(k) if k.board == board => (Some(k), true),
                    Some(_) => (None, false),
                    None => (self.knocked_under(t, &base, board, lines), false),
                };
                // Never stuck, and no false alert: legal play from the
                // record may explain the board better than a knock does,
                // in fewer plies than any line (the lines misread the
                // jump that opened them, a piece set down on its way).
                // Those plies stand beside the lines, which wait for the
                // piece to be set back, and nothing is reported displaced
                // (7.3) while they do; the next move tells. (Not plies as
                // many as the lines': a piece of the side not on move
                // pushed aside under a short line is a knock, and plies
                // from the record reaching it are a long way round.)
                // An illegal move, though, is no reading at all where
                // legal play explains the board (a promoted piece read as
                // a queen, the move that follows illegal under her but
                // legal under a knight): such plies stand beside, however
                // many.
                let fewest = lines.iter().map(|l| l.plies.len()).min().unwrap_or(0);
                let illegal = knocked.is_some_and(|k| k.illegal.is_some());
                let fresh: Vec<Vec<Move>> = if knocked.is_some() && !knocked_before {
                    self.explanations_from(&base, board)
                        .into_iter()
                        .filter(|plies| illegal || plies.len() < fewest)
                        .collect()
                } else {
                    Vec::new()
                };
                if !fresh.is_empty() {
                    let mut next = lines.clone();
                    next.extend(fresh.into_iter().map(|plies| Line::missed(plies, t)));
                    self.knocked_under_lines = None;
                    self.settle_lines(
                        t,
                        Pending {
                            lines: next,
                            ..pending
                        },
                    );
                    return true;
                }
                if let Some(mut k) = knocked {
                    // (An illegal move is reported at once, as the
                    // record's is: no slide of the mover's sets a piece
                    // down where no legal move goes.)
                    let due = if k.illegal.is_some() {
                        k.since
                    } else {
                        k.since.saturating_add(KNOCK_CONFIRM_MS)
                    };
                    if !k.alerted && t >= due {
                        k.alerted = true;
                        let positions: Vec<Chess> =
                            lines.iter().map(|l| play_line(&base, &l.plies)).collect();
                        if let Some(pos) = positions
                            .iter()
                            .find(|p| p.board().occupied() == k.line_board)
                        {
                            let candidates = pending.announced.clone();
                            let (a, b) = k.squares;
                            match k.illegal {
                                // (An alert only where every line agrees:
                                // the same side to move, the piece his.)
                                Some((from, to))
                                    if positions.iter().all(|p| {
                                        p.turn() == pos.turn()
                                            && p.board().color_at(from) == Some(p.turn())
                                    }) =>
                                {
                                    self.illegal_not_completed(t, pos.turn(), Some(from), Some(to))
                                }
                                _ => self.displaced_from(t, pos, vec![a, b], candidates),
                            }
                        }
                    } else if !k.alerted {
                        self.lines_waiting_until = Some(due);
                    }
                    self.knocked_under_lines = Some(k);
                    let lines = lines.clone();
                    self.pending = Some(Pending { lines, ..pending });
                    return true;
                }
            }
            self.knocked_under_lines = None;
            // Never stuck: the lines may have held the game for longer than
            // a jump hides (two readings of one capture that no later move
            // told apart), so that no legal play from the record reaches
            // the board any more, while from a line's position it does: a
            // move misread since, or made while the next mover's hand is
            // at work. Those lines go on; the next moves tell.
            if let Some(lines) = &judged_lines
                && let fresh = self.beyond_the_record(t, &base, board, lines)
                && !fresh.is_empty()
            {
                self.settle_lines(
                    t,
                    Pending {
                        lines: fresh,
                        ..pending
                    },
                );
                return true;
            }
            self.close_candidates(t, &pending.announced);
            return false;
        }
        if let Some(k) = self.knocked_under_lines
            && board == k.line_board
            && let Some(&i) = unchanged.first()
        {
            // The knocked piece set back: the line's position again.
            self.knocked_under_lines = None;
            if k.alerted {
                let fen = crate::game::fen_of(&play_line(&base, &next[i].plies));
                self.restored_to(t, fen);
            }
        }
        if read == JumpRead::No
            && waiting.len() == next.len()
            && next
                .iter()
                .all(|l| t.saturating_sub(l.since) > HAND_HOLD_MS)
        {
            // Never stuck: every open line has only waited for a hand at
            // work for longer than a hand holds a piece, and the record
            // explains the board (the lines that read it best may have
            // been dropped on a piece set down a moment on an empty
            // square): those plies stand beside them.
            let fresh = self.seen_from_the_record(board, pending.opened_board, &next);
            // Or, under a line, its pieces gone were captures quicker than
            // a scan, perhaps answered (as the record reads pieces gone
            // and nothing moving): those plies extend it, once the board
            // has been quiet for longer than a hand holds a piece.
            let quick = self.quick_captures_under_waiting_lines(
                t,
                board,
                pending.opened_board,
                &next,
                &fresh,
            );
            // (No line saw a move: `firm` is 0, `waiting` not used again.)
            next.extend(quick);
            next.splice(0..0, fresh.into_iter().map(|plies| Line::missed(plies, t)));
        } else if read == JumpRead::No && waiting.len() == next.len() {
            // Judged again once the last of them has waited longer than a
            // hand holds a piece, if the board stays quiet until then.
            self.lines_waiting_until = next
                .iter()
                .map(|l| l.since.saturating_add(HAND_HOLD_MS + 1))
                .max();
        }
        if firm > 0 {
            // The hands were at work and a move of theirs explains the
            // board under some lines: lines that explain nothing of it
            // (their position merely has the same occupancy) are dropped,
            // and so are lines that waited for a hand at work while the
            // others saw moves made, settle after settle.
            for &i in &waiting {
                next[i].stalled += 1;
            }
            let mut i = 0;
            next.retain(|line| {
                i += 1;
                !unchanged.contains(&(i - 1)) && line.stalled < MAX_STALLED
            });
        }
        if extended == next.len() {
            // Every line saw the same move made: the next turn's hands
            // start afresh (4.3 binds from the next touch), but for what
            // the next mover's hand did after a release read under it.
            let old = std::mem::take(&mut self.turn);
            // A promotion seen made, its new piece still to come (3.7e):
            // its pawn's lift and its square's changes still make it.
            let promoting = next
                .iter()
                .filter_map(|l| l.plies.last().filter(|m| m.is_promotion()))
                .fold(Bitboard::EMPTY, |b, m| {
                    b | must_lift(m) | Bitboard::from_square(m.to())
                });
            if let Some(release) = next_hand_since {
                self.carry_over_on(&old, !promoting, release);
            }
            self.carry_over_on(&old, promoting, 0);
        }
        if unread_jump {
            // The fewest plies go first, so that the bound on open lines
            // cuts off long lines rather than a short one: the plies this
            // jump hid count, and so do the line's plies before it (a
            // line the hands' earlier moves kept beats long lines searched
            // afresh from the record; a line of four plies nobody saw,
            // extended by two, does not beat one of three from the
            // record).
            next.sort_by_cached_key(|line| {
                hidden_by_the_jump(line, &opened_before) + line.plies.len()
            });
        }
        self.settle_lines(
            t,
            Pending {
                lines: next,
                ..pending
            },
        );
        true
    }

    /// Lines extended past `lines` by as many plies as a jump may hide,
    /// each piece they move seen lifted, in order (see
    /// [`Self::seen_making`]), to `board` exactly.
    fn deeper_under(
        &self,
        t: Millis,
        base: &Chess,
        board: Bitboard,
        opened_board: Bitboard,
        lines: &[Line],
    ) -> Vec<Line> {
        let plies = self.config.max_missed_plies.min(JUMP_EXTEND_PLIES);
        let mut deeper = Vec::new();
        for line in lines {
            let pos = play_line(base, &line.plies);
            let seen = self.turn.seen() | held(&pos, opened_board, board);
            let found =
                match missed::search_with(&pos, board, self.white, plies, missed::Roam::Never) {
                    missed::Explanation::Unique(more) => vec![more],
                    missed::Explanation::Ambiguous(more) => more,
                    missed::Explanation::None => Vec::new(),
                };
            for more in found {
                if more.len() > EXTEND_PLIES && self.seen_making(&pos, &more, seen) {
                    deeper.push(line.then_missed(&more, t));
                    // A last ply read only as its piece lifted (a capture
                    // whose captured piece never read leaving) may as well
                    // be that piece still in the hand, away from a press:
                    // the plies before it stand beside, with a hand at
                    // work; where the piece lands tells.
                    if let Some((last, before)) = more.split_last()
                        && !self.pressing
                        && captured_square(last).is_some_and(|c| !seen.contains(c))
                        && explain::in_progress_at(&play_line(&pos, before), board)
                    {
                        let waiting = Line {
                            hand_at_work: true,
                            ..line.then_missed(before, t)
                        };
                        if !deeper.iter().any(|l| l.plies == waiting.plies) {
                            deeper.push(waiting);
                        }
                    }
                }
            }
        }
        deeper.truncate(MAX_LINES);
        deeper
    }

    /// Whether, under one of `lines`, a piece the board shows beyond the
    /// line's position was set down less than
    /// [`two_hands::RELEASE_MIN_MS`] ago: what a hand sliding a piece on
    /// shows at a press (the plies before it are read at the next
    /// settle).
    fn sliding_on_at_press(
        &self,
        t: Millis,
        base: &Chess,
        board: Bitboard,
        lines: &[Line],
    ) -> bool {
        lines.iter().any(|line| {
            let extra = board & !play_line(base, &line.plies).board().occupied();
            extra.into_iter().any(|s| {
                self.turn
                    .set_down_at(s)
                    .is_some_and(|p| t < p.saturating_add(two_hands::RELEASE_MIN_MS))
            })
        })
    }

    /// Whether `board` shows the position `pos` (after `line`) but for
    /// one piece of the side not on move set on an empty square next to
    /// its own (not a pawn's step on), lifted from its square and set
    /// down there since the line was read: knocked over (7.3), perhaps.
    fn knocked_next_door(&self, pos: &Chess, board: Bitboard, line: &Line) -> bool {
        let occupied = pos.board().occupied();
        let (Some(from), Some(to)) = (
            (occupied & !board).single_square(),
            (board & !occupied).single_square(),
        ) else {
            return false;
        };
        // (A pawn one step on along its file is pushed, not knocked: under
        // lines where it is his move, perhaps his promotion under way.)
        let pushed = pos
            .board()
            .piece_at(from)
            .is_some_and(|p| pushes(from, p, Bitboard::EMPTY).contains(to));
        pos.board().color_at(from) == Some(!pos.turn())
            && !pushed
            && shakmaty::attacks::king_attacks(from).contains(to)
            && self.lifted_and_set_down_since(from, to, line.since)
    }

    /// Whether a hand lifted a piece from `from` and set one down on `to`
    /// since `since`.
    fn lifted_and_set_down_since(&self, from: Square, to: Square, since: Millis) -> bool {
        self.turn
            .removals
            .iter()
            .any(|&(r, q)| q == from && r >= since)
            && self
                .turn
                .placements
                .iter()
                .any(|&(p, q)| q == to && p >= since)
    }

    /// The first of `lines` whose position the board shows but for one
    /// piece of the side not on move set on an empty square, lifted from
    /// its square and set down there by a hand since the line was read
    /// (knocked, 7.3), or one of the side on move set where no legal move
    /// takes it (an illegal move not completed, 7.5), read at `t`. A knock
    /// only under lines whose last ply the hands were seen making: a line
    /// of plies nobody saw may be a quick hand misread (the piece set down
    /// there the one lifted before it opened).
    fn knocked_under(
        &self,
        t: Millis,
        base: &Chess,
        board: Bitboard,
        lines: &[Line],
    ) -> Option<Knocked> {
        lines.iter().find_map(|line| {
            let pos = play_line(base, &line.plies);
            let occupied = pos.board().occupied();
            let (left, onto) = (occupied & !board, board & !occupied);
            let (from, to) = (left.single_square()?, onto.single_square()?);
            let white = pos.board().white();
            let white_after = if white.contains(from) {
                (white ^ Bitboard::from_square(from)) | Bitboard::from_square(to)
            } else {
                white
            };
            // (The side on move's piece: set down where no legal move
            // takes it, an illegal move.)
            let illegal = pos.board().color_at(from) == Some(pos.turn())
                && !pos
                    .legal_moves()
                    .iter()
                    .any(|m| m.from() == Some(from) && m.to() == to);
            // (Under a line of plies nobody saw, only an illegal move: the
            // mover's piece set where no legal move of any line takes it
            // is no quick hand misread.)
            if !line.seen_last && !illegal {
                return None;
            }
            let knocked = (pos.board().color_at(from) == Some(!pos.turn()) || illegal)
                && self.white.is_none_or(|w| w == white_after)
                && self.lifted_and_set_down_since(from, to, line.since);
            knocked.then_some(Knocked {
                line_board: occupied,
                board,
                since: t,
                squares: (from.min(to), from.max(to)),
                alerted: false,
                illegal: illegal.then_some((from, to)),
            })
        })
    }

    /// Never stuck, when every open line only waits: under each line,
    /// its pieces gone were captures quicker than a scan, perhaps
    /// answered (as the record reads pieces gone and nothing moving), and
    /// so were the record's own plies, to positions neither the lines
    /// (`open`) nor the record's plies seen made (`fresh`) reach. Once the
    /// board has been quiet for longer than a hand holds a piece; until
    /// then none, and the lines are judged again at that time.
    fn quick_captures_under_waiting_lines(
        &mut self,
        t: Millis,
        board: Bitboard,
        opened_board: Bitboard,
        open: &[Line],
        fresh: &[Vec<Move>],
    ) -> Vec<Line> {
        let base = self.game.position().clone();
        let quiet_from = self.turn.active_at.iter().flatten().max().copied();
        if let Some(quiet) = quiet_from.map(|q| q.saturating_add(HAND_HOLD_MS))
            && t <= quiet
        {
            self.lines_waiting_until = Some(quiet.saturating_add(1));
            return Vec::new();
        }
        let under: Vec<Line> = open
            .iter()
            .flat_map(|line| {
                let pos = play_line(&base, &line.plies);
                let seen = self.seen_under(&pos, opened_board, board);
                self.missed_captures_under(line, &pos, seen, board, t, EXTEND_PLIES)
            })
            .collect();
        // The record itself is such a line too: plies from it, as many as
        // a jump may hide, their captures perhaps quicker than a scan (the
        // board may have been set to them in one scan). Only to positions
        // no line reaches: the lines hold the order the hands made their
        // plies in, which the record's plies, read afresh, do not know.
        let record = Line::missed(Vec::new(), t);
        // (Lifts before the turn began afresh under the lines are not in
        // its hands: a piece of the record's gone from the board now left.)
        let gone = base.board().occupied() & !board;
        let reached: Vec<Chess> = open
            .iter()
            .chain(&under)
            .map(|l| play_line(&base, &l.plies))
            .chain(fresh.iter().map(|plies| play_line(&base, plies)))
            .collect();
        let from_record: Vec<Line> = self
            .missed_captures_under(
                &record,
                &base,
                self.seen_under(&base, opened_board, board) | gone,
                board,
                t,
                self.config.max_missed_plies,
            )
            .into_iter()
            .filter(|l| {
                let pos = play_line(&base, &l.plies);
                !reached
                    .iter()
                    .any(|r| r.board() == pos.board() && r.turn() == pos.turn())
            })
            .collect();
        under.into_iter().chain(from_record).collect()
    }

    /// `line` (its position `pos`) extended by up to `plies` captures the
    /// sensors missed (each captured piece never read leaving its
    /// square), perhaps answered, that explain `board` in full: every
    /// piece they move `seen` lifted.
    fn missed_captures_under(
        &self,
        line: &Line,
        pos: &Chess,
        seen: Bitboard,
        board: Bitboard,
        t: Millis,
        plies: usize,
    ) -> Vec<Line> {
        missed::explanations(pos, board, self.white, plies, missed::Roam::Never)
            .into_iter()
            .filter(|more| self.seen_making(pos, more, seen))
            .map(|more| line.then_missed(&more, t))
            .collect()
    }

    /// Squares seen lifted under a line at `pos`: this turn's lifts, and
    /// pieces of `pos` already gone when the lines were opened on
    /// `opened_board` and still gone from `board`.
    fn seen_under(&self, pos: &Chess, opened_board: Bitboard, board: Bitboard) -> Bitboard {
        self.turn.seen() | held(pos, opened_board, board)
    }

    /// Whether the hands were seen making `plies` from `pos`: every piece
    /// they move lifted (`seen`), in the plies' order, and no piece taken
    /// that was read arriving and never read leaving (a captured piece may
    /// have left its square quicker than a scan).
    fn seen_making(&self, pos: &Chess, plies: &[Move], seen: Bitboard) -> bool {
        plies.iter().all(|m| (moving_from(m) & !seen).is_empty())
            && !self.turn.captures_a_piece_never_read_leaving(pos, plies)
            && self.turn.lifted_in_order(plies)
    }

    /// Lines of plies from the record that explain `board` in full, not
    /// among `open`, every piece they move or take seen lifted (or gone
    /// from its square on `opened_board`, the board the lines were opened
    /// on, and not set back since).
    fn seen_from_the_record(
        &self,
        board: Bitboard,
        opened_board: Bitboard,
        open: &[Line],
    ) -> Vec<Vec<Move>> {
        let record = self.game.position();
        let seen = self.seen_under(record, opened_board, board);
        self.explanations_from(record, board)
            .into_iter()
            .filter(|plies| {
                plies.iter().all(|m| (must_lift(m) & !seen).is_empty())
                    && !self.turn.captures_a_piece_never_read_leaving(record, plies)
                    && !open.iter().any(|l| &l.plies == plies)
            })
            .collect()
    }

    /// Lines of plies from the record (`base`) that explain `board`, the
    /// hands seen making them in their order (a piece gone from its square
    /// since the lines were opened on `opened_board` counts as lifted: the
    /// hands, or garbage read before, moved it), beside the `open` lines
    /// that only wait for a hand: not the position an open line reaches in
    /// one more ply (its plies in another order; that line reads the hand).
    fn made_from_the_record_beside(
        &self,
        base: &Chess,
        board: Bitboard,
        opened_board: Bitboard,
        open: &[Line],
    ) -> Vec<Vec<Move>> {
        let gone = base.board().occupied() & !board;
        let reached: Vec<Chess> = open
            .iter()
            .flat_map(|l| {
                let pos = play_line(base, &l.plies);
                pos.legal_moves()
                    .into_iter()
                    .filter(|m| occupancy_after(&pos, m) == board)
                    .map(|m| {
                        let mut after = pos.clone();
                        after.play_unchecked(m);
                        after
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        self.seen_from_the_record(board, opened_board & !gone, open)
            .into_iter()
            .filter(|plies| {
                let pos = play_line(base, plies);
                self.turn.lifted_in_order(plies)
                    && !reached
                        .iter()
                        .any(|r| r.board() == pos.board() && r.turn() == pos.turn())
            })
            .collect()
    }

    /// Lines of fewer than `fewest` plies from the record (`base`) that
    /// explain `board`, every piece they move seen lifted or gone from its
    /// square in the record (a lift read inside a jump is forgotten with
    /// the jump, see `TurnHands::forget_until`, yet the square shows the
    /// piece left), in the order the hands lifted them.
    fn shorter_from_the_record(
        &self,
        base: &Chess,
        board: Bitboard,
        opened_board: Bitboard,
        fewest: usize,
    ) -> Vec<Vec<Move>> {
        let seen = self.seen_under(base, opened_board, board) | base.board().occupied() & !board;
        let max = self.config.max_missed_plies.min(fewest.saturating_sub(1));
        if max == 0 {
            return Vec::new();
        }
        missed::explanations_moving(base, board, self.white, max, missed::Roam::Never, seen)
            .into_iter()
            .filter(|plies| self.seen_making(base, plies, seen))
            .collect()
    }

    /// Lines of plies from the record (`base`) that explain `board`, not
    /// among `open`, the hands seen making them (see
    /// [`Self::seen_making`]; a piece gone from its square since the lines
    /// were opened on `opened_board` and still gone counts as lifted).
    fn seen_making_from_the_record(
        &self,
        base: &Chess,
        board: Bitboard,
        opened_board: Bitboard,
        open: &[Line],
    ) -> Vec<Vec<Move>> {
        let seen = self.seen_under(base, opened_board, board);
        // (Only pieces seen lifted move: the search stays small where the
        // board is far from the record.)
        missed::explanations_moving(
            base,
            board,
            self.white,
            self.config.max_missed_plies,
            missed::Roam::Never,
            seen,
        )
        .into_iter()
        .filter(|plies| {
            self.seen_making(base, plies, seen) && !open.iter().any(|l| &l.plies == plies)
        })
        .collect()
    }

    /// Lines going on from `lines` by legal plies to `board`, or to it
    /// with the next mover's hand at work, where no such plies from the
    /// record (`base`) reach it: the lines hold more plies than a jump
    /// hides. The fewest plies win, over all the lines (a king walked
    /// round to a square is no rival to a capture and the hand at work
    /// on the next move), and only where they are the same plies under
    /// every line that goes on. None where the record explains the board.
    fn beyond_the_record(
        &self,
        t: Millis,
        base: &Chess,
        board: Bitboard,
        lines: &[Line],
    ) -> Vec<Line> {
        let plies = self.config.max_missed_plies;
        let explained = |pos: &Chess| -> Vec<(Vec<Move>, Millis, bool)> {
            let exact = self
                .explanations_from(pos, board)
                .into_iter()
                .map(|more| (more, t, false));
            let at_work = self
                .hands_at_work(t, pos, board, &[], plies, false)
                .into_iter()
                .map(|(more, read)| (more, read, true));
            exact.chain(at_work).collect()
        };
        if lines.iter().all(|l| l.plies.len() <= plies) || !explained(base).is_empty() {
            return Vec::new();
        }
        let found: Vec<(&Line, Vec<Move>, Millis, bool)> = lines
            .iter()
            .flat_map(|line| {
                explained(&play_line(base, &line.plies))
                    .into_iter()
                    .map(move |(more, read, at_work)| (line, more, read, at_work))
            })
            .collect();
        let fewest = found.iter().map(|(_, more, _, _)| more.len()).min();
        let found: Vec<_> = found
            .into_iter()
            .filter(|(_, more, _, _)| Some(more.len()) == fewest)
            .collect();
        // Only plies every line goes on by: the lines' own doubt stays for
        // the next moves to settle, and no new one is guessed at.
        if found.windows(2).any(|w| w[0].1 != w[1].1) {
            return Vec::new();
        }
        found
            .into_iter()
            .map(|(line, more, read, at_work)| Line {
                hand_at_work: at_work,
                ..line.then_missed(&more, read)
            })
            .collect()
    }

    /// Lines of legal plies from `base` to `board`, as many as a jump may
    /// hide, no piece roaming.
    fn explanations_from(&self, base: &Chess, board: Bitboard) -> Vec<Vec<Move>> {
        missed::explanations(
            base,
            board,
            self.white,
            self.config.max_missed_plies,
            missed::Roam::Never,
        )
    }

    /// The press of `side` while lines are open (6.7): his hand is on the
    /// clock, so under each line where he has the move, pieces lifted
    /// since its last ply are the next mover's (1.1), and his piece gone
    /// from its square and nowhere new took a piece whose square never
    /// read empty (a capture quicker than a scan), as the record reads a
    /// press. Those moves extend the line; the other lines are kept for
    /// the next settle to judge. False when no line was extended.
    pub(super) fn extend_lines_at_press(&mut self, t: Millis, side: Color) -> bool {
        let Some(mut pending) = self.pending.take() else {
            return false;
        };
        // A ply of his that a line read before his last press was pressed
        // for then: this press is no completion of it.
        let pressed_before = pending.pressed_by(t, side);
        let base = self.game.position().clone();
        let board = self.board;
        let mut next: Vec<Line> = Vec::with_capacity(pending.lines.len());
        let mut extended = 0;
        // Lines extended by a capture nobody saw made, by line index, and
        // whether a line holds a move of this turn the hands made in view.
        let mut unseen: Vec<usize> = Vec::new();
        let mut seen = false;
        // Lines read from the opponent's capture nobody saw and the
        // presser's move (see [`Self::played_on_at_press`]), and whether a
        // line holds a move of the presser's made in view since his last
        // press, which outweighs them.
        let mut played_on: Vec<Line> = Vec::new();
        let mut presser_seen = false;
        for line in &pending.lines {
            let pos = play_line(&base, &line.plies);
            if pos.turn() != side || pos.is_game_over() || pos.board().occupied() == board {
                seen |= pos.turn() != side
                    && line.seen_last
                    && !line.unseen_last
                    && pressed_before.is_none_or(|p| p < line.since);
                // (His move of this turn set down in view under this line:
                // it needs no capture nobody saw.)
                presser_seen |= pos.turn() != side
                    && line.seen_last
                    && !line.unseen_last
                    && line.plies.last().is_some_and(|m| {
                        self.turn
                            .set_down_at(m.to())
                            .is_some_and(|at| pressed_before.is_none_or(|p| at > p))
                    });
                if pos.turn() != side && !pos.is_game_over() && pos.board().occupied() != board {
                    let lifted = self.seen_under(&pos, pending.opened_board, board);
                    for plies in self.played_on_at_press(&pos, line.since, board, lifted) {
                        played_on.push(line.then_missed(&plies, t));
                    }
                }
                next.push(line.clone());
                continue;
            }
            // A lift a moment old has not settled: read on the raw board
            // too, as the record's press does.
            let under = [board, self.raw]
                .iter()
                .filter(|&&b| b == board || (b ^ board).count() <= 2)
                .map(|&b| {
                    self.all_made_under_lifts_after(
                        &pos,
                        &line.plies,
                        Some(line.since),
                        t,
                        b,
                        Hands::AnyAfterReleaseOrUnseen,
                    )
                })
                .find(|found| !found.is_empty())
                .unwrap_or_else(|| self.captured_unseen_at_press(&pos, line, t, board));
            if under.is_empty() {
                next.push(line.clone());
                continue;
            }
            for made in under {
                let mut then = line.then_seen(&line.plies, made.mv, made.release);
                then.under_lifts = true;
                then.unseen_last = made.unseen;
                if made.unseen {
                    unseen.push(next.len());
                } else {
                    seen = true;
                }
                next.push(then);
                extended += 1;
            }
        }
        if !presser_seen {
            extended += played_on.len();
            next.append(&mut played_on);
        }
        if extended == 0 {
            self.pending = Some(pending);
            return false;
        }
        // A move the hands were seen making under one line (its pieces
        // lifted, its captured piece taken off, 4.6) outweighs a capture
        // the sensors never saw under another: that line would have the
        // hands' lifts touch pieces for nothing.
        if seen {
            let mut i = 0;
            next.retain(|_| {
                i += 1;
                !unseen.contains(&(i - 1))
            });
        }
        self.settle_lines(
            t,
            Pending {
                lines: next,
                ..pending
            },
        );
        true
    }

    /// At the press of the player who has not the move under a line
    /// (whose position is `pos`, its last ply read at `since`): a press
    /// completes a move of the presser
    /// (6.7), so the opponent's ply came first. His piece was seen lifted
    /// and its square stayed empty: it took a piece whose square never
    /// read empty (a capture quicker than a scan, the line waiting for a hand
    /// at work since). Then the presser's ply, made in view after it (its
    /// pieces lifted, a piece it takes taken off, its piece set down, 4.6).
    /// The two plies explain the board in full; the line itself stays
    /// beside them (the next moves tell).
    fn played_on_at_press(
        &self,
        pos: &Chess,
        since: Millis,
        board: Bitboard,
        lifted: Bitboard,
    ) -> Vec<Vec<Move>> {
        missed::explanations_moving(pos, board, self.white, 2, missed::Roam::Never, lifted)
            .into_iter()
            .filter(|plies| {
                let [first, last] = plies.as_slice() else {
                    return false;
                };
                let after_first = play_line(pos, &plies[..1]);
                // (Its piece gone from its square, nothing set down there
                // since; the piece it took never read leaving before the
                // presser's hands began: a piece taken off there since is
                // his capture's.)
                let removed = |squares: Bitboard| {
                    self.turn
                        .removals
                        .iter()
                        .filter(move |&&(u, sq)| u > since && squares.contains(sq))
                        .map(|&(u, _)| u)
                };
                let began = removed(must_lift(last)).min().unwrap_or(Millis::MAX);
                first.is_capture()
                    && (moving_from(first) & board).is_empty()
                    && !removed(must_lift(first) & !moving_from(first)).any(|u| u < began)
                    && (must_lift(last) & !lifted).is_empty()
                    && self.turn.lifted_in_order(plies)
                    && !self.turn.captures_a_piece_never_read_leaving(pos, plies)
                    && self.made_in_order(&after_first, std::slice::from_ref(last))
            })
            .collect()
    }

    /// The press under `line` (whose position is `pos`, the presser to
    /// move) when the one thing the hands did since the line's last ply is
    /// lift the presser's piece (or a piece from a square empty under the
    /// line, where the hand had set down one of his pieces gone from its
    /// own square): it stands nowhere new, so it took a piece
    /// whose square never read empty (a capture quicker than a scan), as
    /// the record reads such a press (6.7). Every capture that leaves
    /// `board` is kept (the next moves tell).
    fn captured_unseen_at_press(
        &self,
        pos: &Chess,
        line: &Line,
        t: Millis,
        board: Bitboard,
    ) -> Vec<MadeUnder> {
        let since = |(u, _): &&(Millis, Square)| *u > line.since;
        let lifted: Bitboard = self
            .turn
            .removals
            .iter()
            .filter(since)
            .map(|x| x.1)
            .collect();
        if lifted.count() != 1 || self.turn.placements.iter().any(|x| since(&x)) {
            return Vec::new();
        }
        // Lifted from a square empty under the line: the piece set down
        // there was one of his gone from its own square, carried on.
        let from = if (lifted & pos.board().occupied()).any() {
            lifted
        } else {
            pos.board().by_color(pos.turn()) & !board
        };
        let role = self.promotion_choice.unwrap_or(Role::Queen);
        pos.legal_moves()
            .into_iter()
            .filter(|m| m.is_capture() && m.promotion().is_none_or(|r| r == role))
            .filter(|m| m.from().is_some_and(|f| from.contains(f)))
            .filter(|m| occupancy_after(pos, m) == board)
            .map(|mv| MadeUnder {
                mv,
                gone: Bitboard::EMPTY,
                release: t,
                unseen: true,
                flickered: false,
            })
            .collect()
    }

    /// A promotion choice while lines are open: a promotion the hands just
    /// made (the last ply of the lines) becomes the piece named (3.7e).
    /// False when no line ends in a promotion (the choice is kept for the
    /// promotion to come).
    pub(super) fn promotion_named(&mut self, t: Millis, role: Role) -> bool {
        let Some(mut pending) = self.pending.take() else {
            return false;
        };
        let base = self.game.position().clone();
        let mut renamed = false;
        for line in &mut pending.lines {
            let Some(named) = line.plies.last().and_then(|m| promoting_to(m, role)) else {
                continue;
            };
            let before = play_line(&base, &line.plies[..line.plies.len() - 1]);
            if before.is_legal(named) {
                line.plies.pop();
                line.plies.push(named);
                renamed = true;
            }
        }
        if !renamed {
            self.pending = Some(pending);
            return false;
        }
        self.settle_lines(t, pending);
        true
    }

    /// Records the plies every line shares, then the whole line when one
    /// remains; else keeps them open and announces them.
    fn settle_lines(&mut self, t: Millis, mut pending: Pending) {
        dedupe(&mut pending.lines);
        end_probation(&mut pending.lines);
        pending.lines.truncate(MAX_LINES);
        // Lines that all reach one position (a transposition, a promoted
        // piece taken before it moved): the position is certain and the
        // record goes on; which order of the missed plies was played the
        // board can never tell, so the first line found is recorded, its
        // plies marked inferred. A line the hands were seen ending wins,
        // then one whose plies go in the order the hands lifted their
        // pieces, then one setting pieces where the hands set them, then
        // the fewest plies, then one whose promotions are queens.
        let base = self.game.position().clone();
        let first_key = pending
            .lines
            .first()
            .map(|l| PositionKey::of(&play_line(&base, &l.plies)));
        let one_position = pending
            .lines
            .iter()
            .all(|l| Some(PositionKey::of(&play_line(&base, &l.plies))) == first_key);
        if one_position && pending.lines.len() > 1 {
            // A promoted piece taken before it moved was never seen: a
            // queen, as a promotion nobody named (3.7e).
            let guessed = |l: &Line| {
                l.plies
                    .iter()
                    .filter(|m| m.promotion().is_some_and(|r| r != Role::Queen))
                    .count()
            };
            if let Some(i) = (0..pending.lines.len()).min_by_key(|&i| {
                let line = &pending.lines[i];
                (
                    !line.seen_last,
                    self.against_the_hands(&line.plies),
                    self.placed_elsewhere(&base, &line.plies, line.seen_last.then_some(line.since)),
                    self.placed_out_of_order(&base, &line.plies),
                    // (The fewest plies: a piece gone there and back
                    // unseen is a guess.)
                    line.plies.len(),
                    guessed(line),
                )
            }) {
                pending.lines.swap(0, i);
            }
            pending.lines.truncate(1);
        }
        let shared = shared_prefix(&pending.lines);
        let alone = pending.lines.len() == 1;
        if shared > 0 && !alone {
            let plies: Vec<Move> = pending.lines[0].plies[..shared].to_vec();
            for line in &mut pending.lines {
                line.plies.drain(..shared);
            }
            // Plies the sensors missed: what the hands did since is still
            // what the open lines are read by (a king set down, its rook
            // to come, must still count as lifted).
            let hands = self.turn.clone();
            self.adopt(t, plies);
            self.turn = hands;
        }
        if alone {
            let line = pending.lines.swap_remove(0);
            self.close_candidates(t, &pending.announced);
            self.resolve(t, line, pending.opened, pending.pressed);
            return;
        }
        let lines = self.lines_uci(
            &pending
                .lines
                .iter()
                .map(|l| l.plies.clone())
                .collect::<Vec<_>>(),
        );
        if lines != pending.announced {
            self.listed_candidates = lines.clone();
            self.emit(
                t,
                EventKind::Candidates {
                    lines: lines.clone(),
                },
            );
            pending.announced = lines;
        }
        self.pending = Some(pending);
    }

    /// Nothing more will be read (the trace is over, the game ends by a
    /// decision or a flag): lines kept on probation beside lines of fewer
    /// plies are dropped (parsimony), and what remains is recorded or
    /// stays open.
    pub(super) fn end_probation_now(&mut self, t: Millis) {
        let Some(mut pending) = self.pending.take() else {
            return;
        };
        if pending.lines.iter().any(|l| !l.on_probation) {
            pending.lines.retain(|l| !l.on_probation);
        }
        // A line that only waited for a hand at work while others saw the
        // hands' moves made (see [`MAX_STALLED`]) waits for nothing now.
        if pending.lines.iter().any(|l| l.stalled == 0) {
            pending.lines.retain(|l| l.stalled == 0);
        }
        self.settle_lines(t, pending);
    }

    /// The open line of no plies, read while the mover's hand had held
    /// his piece for long already (see `HELD_MS`), is a hand at work: it
    /// lasts [`HAND_HOLD_MS`] more at most, and a move its hand then makes
    /// is no proof against the captures the sensors may have missed.
    pub(super) fn held_is_a_hand_at_work(&mut self) {
        if let Some(pending) = &mut self.pending {
            for line in pending.lines.iter_mut().filter(|l| l.plies.is_empty()) {
                line.hand_at_work = true;
            }
        }
    }

    /// Whether lines are open.
    pub(super) fn has_open_lines(&self) -> bool {
        self.pending.is_some()
    }

    /// The arbiter rules: the open lines are closed.
    pub(super) fn drop_open_lines(&mut self, t: Millis) {
        if let Some(pending) = self.pending.take() {
            self.close_candidates(t, &pending.announced);
        }
    }

    fn close_candidates(&mut self, t: Millis, announced: &[String]) {
        if !announced.is_empty() {
            self.emit(t, EventKind::Candidates { lines: Vec::new() });
        }
    }

    /// One line remains: its missed plies are recorded as inferred, a last
    /// ply the hands were seen making as a move made (awaiting the press).
    fn resolve(&mut self, t: Millis, line: Line, opened: Millis, pressed: Option<(Millis, Color)>) {
        let alerted = self.alert != Alert::None;
        let mut plies = line.plies;
        let seen = if line.seen_last { plies.pop() } else { None };
        let hands = self.turn.clone();
        // (The squares the missed plies work, read before they are made.)
        let worked = missed_squares(self.game.position(), &plies);
        // A piece named while the lines were open is the seen promotion's
        // (3.7e): the missed plies recorded first do not use it up.
        let named = self.promotion_choice;
        self.adopt(t, plies);
        self.promotion_choice = self.promotion_choice.or(named);
        if let Some(m) = seen.filter(|m| m.is_promotion())
            && !self.game.is_over()
        {
            // A pawn set down on the last rank: the new piece is still to
            // come (3.7e), by a swap on the board, a name, or the press.
            self.turn = hands;
            self.promotion_on_board(t, &m);
        } else if let Some(m) = seen
            && !self.game.is_over()
        {
            // Which hand touched what is not known across the lines: no
            // touch-move alert (certainty first).
            self.turn.touches.clear();
            // (When its pieces came to stand, or the hands' last
            // placements there this turn, or when the line read the move:
            // its pieces were set down by then. Not a later placement on
            // its square: the next mover's capture of the piece.)
            let release = line
                .under_lifts
                .then_some(line.since)
                .or_else(|| hands.set_down_for(self.game.position(), &m, t))
                .or(line.made_at)
                .unwrap_or(line.since);
            let mover = self.game.turn();
            self.make_move(t, m);
            // His press, read while the lines were open, came after the
            // move was made: it completes it (6.7).
            if pressed.is_some_and(|(at, by)| by == mover && at >= release) {
                self.complete_awaiting(t);
            }
            // What the next mover's hand did since stays his (two hands).
            self.carry_over(&hands, release);
        } else if seen.is_none() && !self.game.is_over() {
            // Plies the sensors missed: what the hands did since the lines
            // were opened is the next mover's (his piece lifted while they
            // were open); what they did before, the missed plies'. (Since
            // the line's last plies were read, when a jump added them; a
            // line read with a hand at work, since its reading: the held
            // piece is the next mover's.)
            let since = if line.hand_at_work {
                line.since
            } else {
                opened.max(line.since)
            };
            self.carry_over(&hands, since);
            // A piece lifted before then that no missed ply moved and that
            // is still off the board: a hand holds it, the next mover's
            // (his move begun as the lines were opened).
            let held = self.game.position().board().occupied() & !self.board & !worked;
            self.carry_over_on(&hands, held, 0);
        }
        if alerted && !self.game.is_over() {
            self.restored(t);
        }
    }
}

/// The squares the pieces of `plies` (from `pos`) left, reached or were
/// taken on.
fn missed_squares(pos: &Chess, plies: &[Move]) -> Bitboard {
    let mut pos = pos.clone();
    let mut squares = Bitboard::EMPTY;
    for m in plies {
        squares |= must_lift(m) | arrival_squares(&pos, m);
        pos.play_unchecked(*m);
    }
    squares
}

/// Pieces of `pos` already gone when the lines were opened (on
/// `opened_board`) and still gone from `board`: held, or read away by
/// garbage, so taken as lifted though no lift of them is known.
fn held(pos: &Chess, opened_board: Bitboard, board: Bitboard) -> Bitboard {
    pos.board().occupied() & !opened_board & !board
}

/// Whether `line` was searched afresh from the record at `t` (see
/// [`Pending::add_missed`]): missed plies read then, none added since.
fn is_fresh(line: &Line, t: Millis) -> bool {
    line.since == t && line.added == 0 && !line.seen_last
}

/// The plies of `line` past the longest of `opened_before` it extends
/// (all of them where it extends none): those a jump just hid.
fn hidden_by_the_jump(line: &Line, opened_before: &[Vec<Move>]) -> usize {
    let kept = opened_before
        .iter()
        .filter(|old| line.plies.starts_with(old))
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    line.plies.len() - kept
}

/// The position after `plies` from `base`.
pub(super) fn play_line(base: &Chess, plies: &[Move]) -> Chess {
    let mut pos = base.clone();
    for m in plies {
        pos.play_unchecked(*m);
    }
    pos
}

/// One line per run of plies; a line whose last ply the hands were seen
/// making wins over the same plies inferred. Lines that reach the same
/// position by other plies (a transposition) stay apart: the board will
/// never tell them apart, and which order was played is not known.
fn dedupe(lines: &mut Vec<Line>) {
    let mut keep = vec![true; lines.len()];
    for i in 0..lines.len() {
        for j in 0..i {
            if keep[j] && lines[j].plies == lines[i].plies {
                if lines[i].seen_last && !lines[j].seen_last {
                    keep[j] = false;
                } else {
                    keep[i] = false;
                }
                break;
            }
        }
    }
    let mut i = 0;
    lines.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// Lines on probation are dropped once a line of the fewest plies has
/// gone [`PROBATION_PLIES`] on beside them (a line on probation that alone
/// remains is a line like any other).
fn end_probation(lines: &mut Vec<Line>) {
    let expired = lines
        .iter()
        .any(|l| !l.on_probation && l.added >= PROBATION_PLIES);
    if expired {
        lines.retain(|l| !l.on_probation);
    }
}

/// How many leading plies all lines share.
fn shared_prefix(lines: &[Line]) -> usize {
    let Some(first) = lines.first() else {
        return 0;
    };
    let mut n = 0;
    while n < first.plies.len()
        && lines
            .iter()
            .all(|l| l.plies.get(n) == Some(&first.plies[n]))
    {
        n += 1;
    }
    n
}

/// The hands' lifts that may begin the ply after `line`'s last: for a ply
/// the hands were seen making, those since shortly before it was read (a
/// fast reply's piece may be lifted before its settle, not a second
/// before); for lines of missed plies, any this turn (a piece lifted before
/// the jump may be the one the next move makes).
fn after_last_ply(line: &Line) -> Option<Millis> {
    line.seen_last
        .then(|| line.since.saturating_sub(PRE_LIFT_MS))
}

/// How long before a seen ply was read the next ply's capturing piece may
/// have been lifted (the ply is read a settle after its piece stands).
const PRE_LIFT_MS: Millis = 1000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Start;

    fn completions(pressed: Option<(Millis, Color)>) -> usize {
        let mut inference = Inference::new(
            Start::standard(),
            Profile::FideBlitz,
            InferenceConfig::default(),
        );
        inference.started = true;
        let e4 = inference
            .game
            .position()
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(Square::E2) && m.to() == Square::E4)
            .unwrap();
        // `e4`, made by the hands at 100 ms, the last ply of the line left.
        let line = Line {
            seen_last: true,
            ..Line::missed(vec![e4], 100)
        };
        inference.resolve(200, line, 50, pressed);
        assert_eq!(inference.game.moves().len(), 1);
        inference
            .drain()
            .filter(|(_, kind)| matches!(kind, EventKind::MoveCompleted { ply: 1 }))
            .count()
    }

    #[test]
    fn a_press_read_while_lines_were_open_completes_the_move_of_the_line_left() {
        // 6.7: White pressed after his move was made; no line told then
        // what the press was for.
        assert_eq!(completions(Some((150, Color::White))), 1);
        // Not a press before the move, nor the other player's, nor none.
        assert_eq!(completions(Some((90, Color::White))), 0);
        assert_eq!(completions(Some((150, Color::Black))), 0);
        assert_eq!(completions(None), 0);
    }
}
