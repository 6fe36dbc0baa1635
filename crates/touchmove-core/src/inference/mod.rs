//! The hand tracker: from settled square changes and the game position,
//! what the players did, as the Laws define it — touch (4.3, 4.4), move
//! made on release (4.6), completion at the clock press (6.7), illegal
//! moves (7.4 of 2005, 7.5 of 2023), displaced pieces (7.3; 7.4 of 2023),
//! moves made while the sensors were not read.
//!
//! Pure and time-injected: changes and inputs come with their time; the
//! tracker says when it next needs to be woken ([`Inference::next_deadline`]).
pub mod arbiter;
pub mod board_math;
mod choose;
mod explain;
mod hypotheses;
pub mod missed;
mod press;
mod promotion;
pub mod touch;
mod two_hands;

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

use crate::Millis;
use crate::events::{EventKind, Side};
use crate::filter::{SettledChange, SquareChange};
use crate::game::{Game, IllegalMoveRuling, LawEdition, Profile, Start};
use crate::scan::Snapshot;
use board_math::{
    arrival_squares, captured_square, colours_after, involved, lands_on, moving_from, must_lift,
    occupancy_after, pushes, to_an_empty_square,
};
use touch::Touch;

/// Raw toggles of one square in a turn that count as a hand lifting its
/// piece: a piece pushed off bounces several times; an EMI glitch toggles twice.
const FLICKER_TOGGLES: u8 = 3;

/// Raw toggles further apart than this start a new burst.
const FLICKER_BURST_MS: Millis = 25;

/// Readings this close together (or closer) show a board read every
/// millisecond or so (a trace timed to the millisecond, its contacts'
/// bounce 1–2 ms apart), not one read every 10 ms with some jitter.
const FINE_SCAN_GAP_MS: Millis = 2;

/// How soon before a step read in one reading a raw toggle on its squares
/// shows a hand at work there (a piece hovering, a slide's switches
/// bouncing), not the sensors unread.
const HAND_NEAR_MS: Millis = 500;

/// After the board jumped, the least time before a hand's change on
/// another square counts as the hand's, begun after the sensors were read
/// again (see [`Inference::hand_after_jump`]), ms, and at least the next
/// reading: the sensors read again show the missed plies in one reading,
/// and fast hands already at work change a square a few ms later.
const HAND_AFTER_JUMP_MS: Millis = 5;

/// After the board jumped, the least time before a piece it set down,
/// lifted again, counts as taken by a hand, ms: past the contacts'
/// bounce. (A piece rocking on its square comes back: the jump's board,
/// judged a moment early, is the board it settles to all the same.)
const RETAKEN_AFTER_JUMP_MS: Millis = 15;

/// Raw toggles kept per turn (a chattering square must not grow the log
/// without bound).
const MAX_TOGGLES_KEPT: usize = 4096;

/// How many boards read while an alert is open are kept (see
/// `Inference::alert_boards`).
const ALERT_BOARDS: usize = 6;

/// How many boards read with pieces off the recorded position and no
/// alert open are kept (see `Inference::held_boards`).
const HELD_BOARDS: usize = 2;

/// How many raw readings of jumps are kept (see `Inference::raw_jumps`).
const RAW_JUMPS: usize = 2;

/// Squares that change in one raw reading for it to be a jump, not hands
/// (a hand changes one square at a time; a slide two, next door).
const RAW_JUMP_SQUARES: usize = 3;

/// How long pieces may be missing with nothing explaining it before the
/// board is reported displaced: long enough for the opponent to be seen
/// answering a capture the sensors missed, short enough for an arbiter.
const MISSING_GRACE_MS: Millis = 1500;

/// How long the mover's pieces may be off the board, nothing else
/// changed, before a capture the sensors missed (its captured piece never
/// read leaving, the capturing piece read lifted) stands beside the hand
/// holding them (never stuck). Twice as long as a line's hand at work may
/// hold a piece (`hypotheses::HAND_HOLD_MS`): a player may think a few
/// seconds with the piece in his hand, and what he does then is read as
/// his move first.
const HELD_MS: Millis = 6000;

/// How long a move's piece may be off its square, the board showing the
/// move's position because its new square was filled before (see
/// `Inference::made_onto_a_filled_square`), before the move is read as
/// made: as long as a hand holds a piece for a moment's thought.
const FILLED_FIRST_MS: Millis = 3000;

/// A capture read only from its captured square emptied for a scan or
/// two (the captured piece pushed off by the capturing one, quicker than
/// a hand lifts a piece away) looks the same as interference or a brush
/// on that square while the capturing piece is still in the air. Such a
/// capture is made once the board has shown it this long, at the mover's
/// press (6.7) or at the next mover's touch (1.1), whichever comes first:
/// a hand still holding the piece sets it down by then (certainty first).
/// A piece stays in the air a second or two, and the interference may
/// come at any moment of it.
const SWAP_RELEASE_MS: Millis = 2000;

/// The longest the captured square may read empty for a capture to count
/// as a swap (see [`SWAP_RELEASE_MS`]): two scans of a board read every
/// 10 ms, one of a board read every 20 ms (where a one-reading glitch
/// looks the same as a swap, and waits as one). On a board read more
/// slowly a hand's capture may read as a swap too: there a swap is taken
/// as the capture it usually is.
const SWAP_GAP_MS: Millis = 20;

/// FIDE profiles: how long a rook set down on the square its king crosses
/// when castling (the castling still legal) waits for the king before its
/// own move is made. A hand castling rook first (a breach of 4.4b) lifts
/// the king within a moment of releasing the rook; the press (6.7) or the
/// next mover's touch (1.1) makes the rook's move at once. Waiting keeps
/// a move from being recorded that the same hand's next lift contradicts
/// (a move once emitted is never retracted).
const CASTLING_ROOK_WAIT_MS: Millis = 1500;

/// How long a sliding piece may read on the square it reaches before its
/// own square reads empty: a magnet between two squares closes both
/// switches for a moment (tens of milliseconds; the contacts' bounce adds
/// to it). Far shorter than a hand putting a touched piece back and then
/// lifting its own.
pub(crate) const SLIDE_OVERLAP_MS: Millis = 40;

/// How long before a piece leaves `from` it may close `to`: a slide onto
/// the square next door ([`SLIDE_OVERLAP_MS`]), none farther away.
pub(crate) fn slide_overlap(from: Square, to: Square) -> Millis {
    if shakmaty::attacks::king_attacks(from).contains(to) {
        SLIDE_OVERLAP_MS
    } else {
        0
    }
}

/// Raw toggles of a square this close together are one change bouncing
/// (reed contacts and a rocking piece: a few milliseconds apart); a hand
/// takes longer to undo what it did.
const BOUNCE_GAP_MS: Millis = 5;

/// How far back a press looks for contacts bouncing under a hand: the
/// debounce's window, within which a raw change has not settled yet.
const BOUNCE_WINDOW_MS: Millis = crate::filter::DebounceConfig::DEFAULT_STABLE_MS;

/// When a move is completed (Article 6.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// At the mover's clock press.
    ClockPress,
    /// No clock: when the board has settled after the move.
    Settle,
}

/// The tracker's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InferenceConfig {
    /// A piece is released when it has stood on its square this long. It
    /// must exceed the occupancy blips a sliding piece leaves on the squares
    /// it passes over (tens of milliseconds), so that those are never moves.
    pub settle_ms: Millis,
    pub completion: Completion,
    /// Without a clock, a promotion whose piece was not named becomes a
    /// queen after this long (or at once when the opponent touches a piece).
    pub promotion_wait_ms: Millis,
    /// The longest run of plies the missed-move search tries.
    pub max_missed_plies: usize,
    /// A piece off its square for less than this and back on it was
    /// brushed or straightened, not lifted: no touch (Article 4.3 punishes
    /// a deliberate touch; the quickest deliberate lift-and-return takes
    /// longer than a hand brushing past).
    pub nudge_ms: Millis,
    /// What a resumed game does with a board that is not its position.
    pub resumed_board: ResumedBoard,
}

/// What a game resumed after the daemon was down does when the board
/// first read is not the game's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResumedBoard {
    /// Searches for the moves made meanwhile and records them when one
    /// position explains the board (else reports it displaced).
    #[default]
    Infer,
    /// Reports the board displaced, listing the moves that would explain
    /// it as candidates: the arbiter accepts one or has the position
    /// reinstated.
    AskArbiter,
}

impl Default for InferenceConfig {
    fn default() -> InferenceConfig {
        InferenceConfig {
            settle_ms: 150,
            completion: Completion::ClockPress,
            promotion_wait_ms: 1500,
            max_missed_plies: 6,
            nudge_ms: 120,
            resumed_board: ResumedBoard::Infer,
        }
    }
}

/// What the tracker is waiting for, besides the next move.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Alert {
    None,
    /// A piece released where no legal move explains the board; may still be corrected.
    Illegal {
        from: Option<Square>,
        to: Option<Square>,
    },
    /// An illegal move was completed: the position before it must be reinstated.
    Reinstate,
    /// The board differs from the game in these squares.
    Displaced(Vec<Square>),
}

/// A promotion on the board whose new piece is not yet known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingPromotion {
    from: Square,
    to: Square,
    since: Millis,
    /// The move was made with its new piece still unnamed (see
    /// [`ReleasedPromotion`]).
    released: Option<ReleasedPromotion>,
}

/// A promotion made (4.6) by the next mover's touch (1.1) or completed by
/// the mover's press (6.7) before its new piece was named (3.7e): the
/// sensors cannot see which piece stands there, so the record waits for
/// the name until the board needs the position (certainty first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReleasedPromotion {
    /// When the move was made.
    at: Millis,
    /// What the hands did after this is the next mover's (his turn).
    hands_from: Option<Millis>,
    /// The next mover's touches from this time on are his (4.3): after
    /// the mover's press, or without a clock.
    touches_from: Option<Millis>,
    /// The mover pressed his clock: the move is completed once made (6.7).
    pressed: bool,
    /// The move as read under the next mover's lifts (two hands, 1.1),
    /// to be made as such.
    under_lifts: Option<two_hands::MadeUnder>,
}

impl ReleasedPromotion {
    /// Made at `t` by the next mover's lift (1.1, 4.6) while the mover's
    /// press is still to come: his touches are no touches yet; what his
    /// hands did after `hands_from` is his.
    fn by_grab(t: Millis, hands_from: Option<Millis>) -> ReleasedPromotion {
        ReleasedPromotion {
            at: t,
            hands_from,
            touches_from: None,
            pressed: false,
            under_lifts: None,
        }
    }

    /// Without a clock, made by the opponent's touch at `t`: his touch and
    /// what his hands did from then on are his.
    fn by_touch(t: Millis) -> ReleasedPromotion {
        ReleasedPromotion {
            hands_from: Some(t.saturating_sub(1)),
            touches_from: Some(t),
            ..ReleasedPromotion::by_grab(t, None)
        }
    }

    /// Completed by the mover's press at `t` (6.7): the next mover's hands
    /// and touches from then on are his.
    fn by_press(t: Millis) -> ReleasedPromotion {
        ReleasedPromotion {
            hands_from: Some(t),
            touches_from: Some(t),
            pressed: true,
            ..ReleasedPromotion::by_grab(t, None)
        }
    }

    /// Read at `t` under the next mover's lifts: made as `made` says.
    fn under_lifts(t: Millis, made: two_hands::MadeUnder) -> ReleasedPromotion {
        ReleasedPromotion {
            under_lifts: Some(made),
            ..ReleasedPromotion::by_grab(t, None)
        }
    }
}

/// What the hands did since the turn began (the last move made).
#[derive(Debug, Clone)]
struct TurnHands {
    /// Pieces touched, in order (4.3, 4.4).
    touches: Vec<Touch>,
    /// Squares seen lifted.
    lifts: Bitboard,
    /// Squares whose raw reading changed, even too briefly for the
    /// debounce: a captured piece pushed off its square by the capturing
    /// one may leave it empty for only a few milliseconds.
    flicker: Bitboard,
    flicker_count: [u8; 64],
    flicker_at: [Option<Millis>; 64],
    /// Per square: when its piece was last lifted, and when it last
    /// changed at all (lifted, placed, flickered).
    lifted_at: [Option<Millis>; 64],
    active_at: [Option<Millis>; 64],
    /// Per square: when a piece was last set down on it.
    placed_at: [Option<Millis>; 64],
    /// Every piece set down this turn, in order.
    placements: Vec<(Millis, Square)>,
    /// Every square emptied this turn, in order.
    removals: Vec<(Millis, Square)>,
    /// Raw toggles this turn, in order (too brief for the debounce).
    toggles: Vec<(Millis, Square)>,
    /// [`two_hands::release_min`] at the board's scan period.
    release_min: Millis,
    /// How far apart a landing piece's contacts may bounce and still be
    /// one landing, on the board's readings: [`BOUNCE_GAP_MS`], or one
    /// reading on a board read less often (a knight set down on e4 read
    /// every 10 ms, `+e4 -e4 +e4` in three readings, stood 100 ms from
    /// its first contact when White's hand took it, not 80).
    landing_gap: Millis,
    /// When the board was last restored to the record's position this
    /// turn (an illegal move reinstated, a displaced piece put back).
    restored_at: Option<Millis>,
}

impl TurnHands {
    /// When the piece last set down on `sq` this turn first touched it
    /// (its first contact, before the bounce settled), if one was.
    fn set_down_at(&self, sq: Square) -> Option<Millis> {
        self.placed_at[sq as usize].map(|p| self.first_contact(sq, p))
    }

    /// When the change of `sq` that settled at `settled` began: its first
    /// raw toggle in the same direction, before the contacts bounced (a
    /// piece set down touches first and rocks after). `settled` when the
    /// raw toggles are not in this turn's log.
    fn first_contact(&self, sq: Square, settled: Millis) -> Millis {
        self.first_contact_within(sq, settled, BOUNCE_GAP_MS)
    }

    /// [`Self::first_contact`], raw toggles up to `gap` apart counting as
    /// one change bouncing.
    fn first_contact_within(&self, sq: Square, settled: Millis, gap: Millis) -> Millis {
        let mut toggles = self
            .toggles
            .iter()
            .filter(|(u, s)| *s == sq && *u <= settled)
            .map(|(u, _)| *u)
            .rev();
        let Some(mut later) = toggles.next() else {
            return settled;
        };
        let (mut first, mut same_direction) = (later, true);
        for u in toggles {
            if later.saturating_sub(u) > gap {
                break;
            }
            same_direction = !same_direction;
            if same_direction {
                first = u;
            }
            later = u;
        }
        first
    }

    /// The first sign of a hand on `sq` from `since` on: a raw toggle, or
    /// a settled change.
    fn first_activity_since(&self, sq: Square, since: Millis) -> Option<Millis> {
        let toggled = self
            .toggles
            .iter()
            .find(|(u, s)| *s == sq && *u >= since)
            .map(|(u, _)| *u);
        let settled = self
            .placements
            .iter()
            .chain(&self.removals)
            .filter(|(u, s)| *s == sq && *u >= since)
            .map(|(u, _)| self.first_contact(sq, *u))
            .min();
        toggled.into_iter().chain(settled).min()
    }

    /// When the captured square of `m`, a capture, was swapped: the only
    /// sign of the capture there since its piece was lifted is the square
    /// read empty for at most [`SWAP_GAP_MS`] and full again (or its
    /// contacts bouncing, with no settled change). `None` for other moves,
    /// for captured pieces seen taken off, and on a board read less often
    /// than every `SWAP_GAP_MS`.
    fn swapped_at(&self, m: &Move, scan_period: Millis) -> Option<Millis> {
        let Move::Normal {
            from,
            to,
            capture: Some(_),
            ..
        } = *m
        else {
            return None;
        };
        if scan_period > SWAP_GAP_MS {
            return None;
        }
        let lifted = self.first_contact(from, self.first_lift(from)?);
        // A piece slid next door may reach the captured square a moment
        // before its own reads empty (as `captured_square_worked` allows
        // in `hand_made`): what the captured square read from then on counts.
        let since = lifted.saturating_sub(slide_overlap(from, to));
        let on_to = |list: &[(Millis, Square)]| -> Vec<Millis> {
            list.iter()
                .filter(|(_, s)| *s == to)
                .map(|(u, _)| *u)
                .collect()
        };
        let (removals, placements) = (on_to(&self.removals), on_to(&self.placements));
        let mut latest = None;
        // Every opening of the square since is closed again at once...
        for &r in removals.iter().filter(|&&r| r >= since) {
            let back = placements.iter().copied().find(|&p| p >= r)?;
            if back.saturating_sub(r) > SWAP_GAP_MS {
                return None;
            }
            latest = latest.max(Some(back));
        }
        // ... and so is the one every closing since ends, however early it
        // began: a captured piece seen taken off before (a hand's capture,
        // or one piece lifted and another set down a while later) is no swap.
        for &p in placements.iter().filter(|&&p| p >= since) {
            if let Some(r) = removals.iter().copied().filter(|&r| r <= p).max()
                && p.saturating_sub(r) > SWAP_GAP_MS
            {
                return None;
            }
            latest = latest.max(Some(p));
        }
        latest.or_else(|| {
            on_to(&self.toggles)
                .into_iter()
                .filter(|&u| u >= since)
                .max()
        })
    }

    /// Whether the first piece set down on `to` since `lifted` (the lift
    /// of the piece on `from` that would capture there) landed while a
    /// piece set back on `from` since stood there still: not lifted again
    /// by then, nor within `overlap` after (a piece slid next door closes
    /// its new square a moment before it opens its own). The capturing
    /// piece lands off its square; that landing was another hand's, or a
    /// brush (a piece lifted and put back, a piece next to it nudged).
    fn landed_from_a_full_square(
        &self,
        from: Square,
        to: Square,
        lifted: Millis,
        overlap: Millis,
    ) -> bool {
        let contact = |sq: Square, list: &[(Millis, Square)]| -> Vec<Millis> {
            list.iter()
                .filter(|(_, s)| *s == sq)
                .map(|(u, _)| self.first_contact(sq, *u))
                .collect()
        };
        let Some(landing) = contact(to, &self.placements)
            .into_iter()
            .filter(|&p| p > lifted)
            .min()
        else {
            return false;
        };
        let Some(back) = contact(from, &self.placements)
            .into_iter()
            .filter(|&b| b > lifted && b <= landing)
            .max()
        else {
            return false;
        };
        !contact(from, &self.removals)
            .into_iter()
            .any(|r| r > back && r <= landing.saturating_add(overlap))
    }

    /// Whether a hand worked on `sq` at a time `when` accepts: a piece
    /// lifted or set down there (a settled change), or its contacts
    /// bouncing in a burst (a captured piece pushed off by the capturing
    /// one). A lone blip of a scan or two is interference, the same as no
    /// change at all: a piece held in the air over a square whose switch
    /// blips has captured nothing.
    fn captured_square_worked(&self, sq: Square, when: impl Fn(Millis) -> bool) -> bool {
        let settled = self
            .removals
            .iter()
            .chain(&self.placements)
            .any(|&(u, s)| s == sq && when(u));
        settled || self.burst_on(sq, when)
    }

    /// Whether the raw toggles of `sq` at times `when` accepts hold a burst
    /// of at least [`FLICKER_TOGGLES`], each within [`FLICKER_BURST_MS`] of
    /// the one before.
    fn burst_on(&self, sq: Square, when: impl Fn(Millis) -> bool) -> bool {
        let mut run: Option<(Millis, u8)> = None;
        for &(u, _) in self.toggles.iter().filter(|(u, s)| *s == sq && when(*u)) {
            let n = match run {
                Some((last, n)) if u <= last.saturating_add(FLICKER_BURST_MS) => n + 1,
                _ => 1,
            };
            if n >= FLICKER_TOGGLES {
                return true;
            }
            run = Some((u, n));
        }
        false
    }

    /// When a piece first came to stand on `sq` since `began` (a move's
    /// first lift): the first piece set down there (or `pushed_off`, the
    /// raw arrival of a capturing piece that pushed the captured one off)
    /// that stayed at least a release ([`two_hands::release_min`] at the
    /// scan period; from its first contact, see `landing_gap`) before the
    /// square next emptied, or until `now`. Not a piece passing over the
    /// square, nor one rocking as it lands.
    fn came_to_stand(
        &self,
        sq: Square,
        began: Millis,
        now: Millis,
        pushed_off: Option<Millis>,
    ) -> Option<Millis> {
        self.came_to_stand_for(sq, began, now, pushed_off, self.release_min)
    }

    /// [`Self::came_to_stand`], with a stand of at least `release_min`.
    fn came_to_stand_for(
        &self,
        sq: Square,
        began: Millis,
        now: Millis,
        pushed_off: Option<Millis>,
        release_min: Millis,
    ) -> Option<Millis> {
        // (Or earlier, when the square's contacts were still bouncing as
        // the move began and it never read empty since: a piece slid on,
        // landing as its own square let go.)
        let landing = |p: Millis| {
            self.toggles.iter().any(|(x, s)| {
                *s == sq && *x > p && *x <= began && x.saturating_add(SLIDE_OVERLAP_MS) >= began
            }) && !self
                .removals
                .iter()
                .any(|(u, s)| *s == sq && *u > p && *u <= began)
        };
        self.placements
            .iter()
            .filter(|(u, s)| {
                *s == sq && (u.saturating_add(SLIDE_OVERLAP_MS) >= began || landing(*u))
            })
            .map(|(p, _)| *p)
            .chain(pushed_off)
            .find(|&p| {
                self.removals
                    .iter()
                    .find(|(u, s)| *s == sq && *u > p)
                    .map_or(now, |(u, _)| self.first_contact(sq, *u))
                    >= self
                        .first_contact_within(sq, p, self.landing_gap)
                        .saturating_add(release_min)
            })
    }

    /// When `m`'s pieces came to stand where it sets them (4.6: the move
    /// made), the latest over its squares; `None` when a square was never
    /// reached.
    fn first_arrival(&self, pos: &Chess, m: &Move, now: Millis) -> Option<Millis> {
        let began = self.first_lift_of(moving_from(m))?;
        let arrived = occupancy_after(pos, m) & arrival_squares(pos, m);
        arrived
            .into_iter()
            .map(|sq| self.came_to_stand(sq, began, now, None))
            .collect::<Option<Vec<Millis>>>()?
            .into_iter()
            .max()
    }

    /// At the mover's press at `press` (6.7): when the piece set down on
    /// `sq` since `began` was let go, though it has stood for less than a
    /// release. His hand needs `reach` to get from the board to the
    /// clock: a piece set down at least that long before the press and
    /// still standing was let go, and so was one lifted again less than
    /// `reach` before the press (after [`SLIDE_OVERLAP_MS`], no slide
    /// passing over), by another hand (the next mover's grab, 1.1, as a
    /// board read every 20 ms shows bullet hands).
    fn let_go_before_press(
        &self,
        sq: Square,
        began: Millis,
        press: Millis,
        reach: Millis,
    ) -> Option<Millis> {
        // (The last such placement.)
        self.placements
            .iter()
            .rev()
            .filter(|(p, s)| {
                *s == sq
                    && p.saturating_add(SLIDE_OVERLAP_MS) >= began
                    && p.saturating_add(reach) <= press
            })
            .map(|(p, _)| *p)
            .find(|&p| {
                match self
                    .removals
                    .iter()
                    .find(|(u, s)| *s == sq && *u > p && *u <= press)
                {
                    // Still standing, and not the square a slide reached
                    // as its magnet let go of the one next door (another
                    // square read empty just after): the next mover's
                    // piece on its way.
                    None => !self.removals.iter().any(|&(u, s)| {
                        s != sq && u >= p && u <= p.saturating_add(SLIDE_OVERLAP_MS)
                    }),
                    // Lifted while his hand was on its way to the clock:
                    // by another hand.
                    Some(&(u, _)) => {
                        u >= p.saturating_add(SLIDE_OVERLAP_MS) && u.saturating_add(reach) > press
                    }
                }
            })
            .map(|p| self.first_contact(sq, p))
    }

    /// When `m` (from `pos`) was set down: when its pieces came to stand
    /// (see [`Self::first_arrival`]), or else the hands' last placement
    /// this turn on a square it reaches (a piece set down less than a
    /// release ago, a move read at its settle).
    fn set_down_for(&self, pos: &Chess, m: &Move, now: Millis) -> Option<Millis> {
        let arrivals = occupancy_after(pos, m) & !pos.board().occupied();
        self.first_arrival(pos, m, now).or_else(|| {
            self.placements
                .iter()
                .filter(|(_, sq)| arrivals.contains(*sq) || m.to() == *sq)
                .map(|(t, _)| *t)
                .max()
        })
    }

    /// Squares whose contacts toggled at least twice in the last
    /// [`BOUNCE_WINDOW_MS`] up to `t`: a hand at work on them right now.
    fn bouncing_at(&self, t: Millis) -> Bitboard {
        let mut seen = Bitboard::EMPTY;
        let mut twice = Bitboard::EMPTY;
        for &(u, sq) in self.toggles.iter().rev() {
            if u.saturating_add(BOUNCE_WINDOW_MS) < t {
                break;
            }
            if u <= t {
                if seen.contains(sq) {
                    twice.add(sq);
                }
                seen.add(sq);
            }
        }
        twice
    }

    /// Squares seen lifted this turn, or flickering as a piece pushed off.
    fn seen(&self) -> Bitboard {
        self.lifts | self.flicker
    }

    /// Whether the piece set down on `sq` at `placed` stood there at
    /// least [`two_hands::RELEASE_MIN_MS`] before it was taken away.
    fn stood_then_left(&self, sq: Square, placed: Millis) -> bool {
        self.removals
            .iter()
            .find(|(u, s)| *s == sq && *u > placed)
            .is_some_and(|(u, _)| *u >= placed.saturating_add(self.release_min))
    }

    /// Squares where a piece was set down this turn and stood there (see
    /// [`Self::stood_then_left`]) before it was taken away again.
    fn stood_and_left(&self) -> Bitboard {
        self.placements
            .iter()
            .filter(|&&(p, q)| self.stood_then_left(q, p))
            .map(|&(_, q)| q)
            .collect()
    }

    /// The earliest [`Self::first_lift`] of `squares`, if any was lifted.
    fn first_lift_of(&self, squares: Bitboard) -> Option<Millis> {
        squares.into_iter().filter_map(|s| self.first_lift(s)).min()
    }

    /// When the piece on `sq` first left it this turn (a later hand may
    /// have passed over the square since).
    fn first_lift(&self, sq: Square) -> Option<Millis> {
        self.removals
            .iter()
            .find(|(_, s)| *s == sq)
            .map(|(t, _)| *t)
            .or(self.lifted_at[sq as usize])
    }

    /// The first lift from `made` (the record's last move; a lift at that
    /// very time is the next mover's grab that released it, 1.1) and
    /// before `since` of a square still empty then (no piece set down
    /// there since it left): the hands' work in progress at `since`;
    /// `since` when none.
    fn open_since(&self, made: Millis, since: Millis) -> Millis {
        self.removals
            .iter()
            .filter(|&&(r, sq)| {
                r >= made
                    && r < since
                    && !self
                        .placements
                        .iter()
                        .any(|&(p, s)| s == sq && p > r && p < since)
            })
            .map(|&(r, _)| r)
            .min()
            .map_or(since, |r| r.min(since))
    }

    /// When the piece on `sq` first left it after `since` (a lift at
    /// `since` or before belongs to an earlier ply).
    fn first_lift_after(&self, sq: Square, since: Millis) -> Option<Millis> {
        self.removals
            .iter()
            .find(|(t, s)| *s == sq && *t > since)
            .map(|(t, _)| *t)
            .or(self.lifted_at[sq as usize].filter(|t| *t > since))
    }

    /// Whether `m`'s piece is still on its way at `now`: its square read
    /// full in the very reading its own square read empty (a slide's
    /// magnet closing next door as it leaves), less than a release ago.
    /// A piece that has not stood made no move (4.6): it may slide on
    /// (`Rf1` over f2 and f3 to take on f4, read every 25 ms, is no `Rf2`
    /// when Black's press comes 25 ms after f2 closed).
    pub(super) fn sliding_on(&self, m: &Move, now: Millis) -> bool {
        let Move::Normal { from, to, .. } = *m else {
            return false;
        };
        let Some(placed) = self.placed_at[to as usize] else {
            return false;
        };
        now < placed.saturating_add(self.release_min)
            && self.lifted_at[from as usize] == Some(placed)
    }

    /// Whether `m`'s piece left its square and reached another in one
    /// scan, too far from it for a slide onto the neighbouring square
    /// (whose switch may close as the one it leaves opens; but not within
    /// one reading of a board read every millisecond, `fine_scans`): no
    /// hand moves that fast, the sensors were not read meanwhile — other
    /// plies may have been played too (a tempo move out and back, with the
    /// other side to move).
    fn unseen_in_one_scan(&self, m: &Move, fine_scans: bool) -> bool {
        let Move::Normal { from, to, .. } = *m else {
            return false;
        };
        if !fine_scans && shakmaty::attacks::king_attacks(from).contains(to) {
            return false;
        }
        self.removals
            .iter()
            .filter(|(_, s)| *s == from)
            .any(|(left, _)| self.placements.iter().any(|(u, s)| *s == to && u == left))
    }

    /// Whether the hands set `m`'s piece down on its square after lifting
    /// it: false for a move to an empty square that no placement reached
    /// since its piece last left (the square filled before, by garbage or
    /// a reading nobody's hand made). Captures, castling and en passant
    /// always count (their squares stay full or change in several ways).
    fn set_down_after_lift(&self, m: &Move) -> bool {
        let Some((from, to)) = to_an_empty_square(m) else {
            return true;
        };
        // (A piece whose lift was not read, in the air or moved while the
        // board was not read: nothing tells.)
        let Some(left) = self
            .removals
            .iter()
            .filter(|(_, s)| *s == from)
            .map(|(u, _)| *u)
            .max()
        else {
            return true;
        };
        self.placements.iter().any(|(u, s)| *s == to && *u >= left)
    }

    /// Whether the pieces `plies` move were lifted in the plies' order:
    /// each ply's piece last lifted after the piece of the ply before it
    /// first was, or in the same reading (which of the two came first no
    /// reading tells: the sensors unread between, or two hands at once,
    /// 1.1) (a piece lifted before the opponent's reply began is no
    /// capture made after it).
    pub(super) fn lifted_in_order(&self, plies: &[Move]) -> bool {
        let last = |m: &Move| {
            moving_from(m)
                .into_iter()
                .filter_map(|s| self.lifted_at[s as usize])
                .max()
        };
        let first = |m: &Move| self.first_lift_of(moving_from(m));
        plies.windows(2).all(|w| match (first(&w[0]), last(&w[1])) {
            (Some(a), Some(b)) => b >= a,
            _ => true,
        })
    }

    /// Whether `plies` (missed plies of a line, played from `pos`) capture
    /// a piece one of their own earlier plies set down, on a square the
    /// hands never emptied after a piece arrived there: the piece was read
    /// arriving and never read leaving, so no capture took it (the hands
    /// were seen; a swap quicker than a scan takes a piece that stood).
    /// A piece read arriving in the very reading the capturing piece was
    /// read leaving its square may be the capturing piece itself (the
    /// captured one came and went unread, or one hand's slide and the
    /// other's grab fell in one reading, 1.1): no proof against it.
    pub(super) fn captures_a_piece_never_read_leaving(&self, pos: &Chess, plies: &[Move]) -> bool {
        let mut arrived = Bitboard::EMPTY;
        let mut p = pos.clone();
        for m in plies {
            if let Some(sq) = captured_square(m).filter(|sq| arrived.contains(*sq)) {
                let placed = || {
                    self.placements
                        .iter()
                        .filter(|(_, s)| *s == sq)
                        .map(|(u, _)| *u)
                };
                let removed = || {
                    self.removals
                        .iter()
                        .filter(|(_, s)| *s == sq)
                        .map(|(u, _)| *u)
                };
                // Read leaving after the last piece set down there, or
                // between an arrival and the capturing piece set down.
                let capturer_left = m.from().and_then(|f| self.first_lift(f));
                let left = placed().max().is_some_and(|last| {
                    removed().any(|r| r > last)
                        || removed().any(|r| r < last && placed().any(|p| p < r))
                        || capturer_left == Some(last)
                });
                if !left {
                    return true;
                }
            }
            arrived |= occupancy_after(&p, m) & !p.board().occupied();
            p.play_unchecked(*m);
        }
        false
    }

    /// Whether a raw toggle on the squares of `a` or `b` (two changes read
    /// in one scan) came within `window` before them.
    fn worked_before(&self, a: &SettledChange, b: &SettledChange, window: Millis) -> bool {
        let since = a.since.min(b.since);
        self.toggles.iter().any(|(u, s)| {
            (*s == a.square || *s == b.square) && *u < since && u.saturating_add(window) >= since
        })
    }

    /// When the piece on `sq` last left it this turn.
    fn last_lift(&self, sq: Square) -> Option<Millis> {
        self.lifted_at[sq as usize]
    }

    /// These hands, with the pieces on `held` lifted at `at` (pieces the
    /// sensors, read again at `at` after a jump, found in a hand: their
    /// lift was never read).
    fn with_held(&self, held: Bitboard, at: Millis) -> TurnHands {
        let mut hands = self.clone();
        for sq in held & !self.lifts {
            hands.lifts.add(sq);
            hands.lifted_at[sq as usize] = Some(at);
            hands.active_at[sq as usize] = Some(at);
            hands.removals.push((at, sq));
        }
        hands.removals.sort_by_key(|(t, _)| *t);
        hands
    }

    /// Forgets what the hands did up to `t` (a board nothing explained:
    /// garbage read, a piece knocked over).
    fn forget_until(&mut self, t: Millis) {
        self.touches.retain(|touch| touch.at > t);
        self.removals.retain(|(u, _)| *u > t);
        self.placements.retain(|(u, _)| *u > t);
        self.toggles.retain(|(u, _)| *u > t);
        for times in [
            &mut self.lifted_at,
            &mut self.active_at,
            &mut self.placed_at,
            &mut self.flicker_at,
        ] {
            for at in times.iter_mut() {
                if at.is_some_and(|u| u <= t) {
                    *at = None;
                }
            }
        }
        self.lifts &= squares_at(&self.lifted_at)
            | self.removals.iter().map(|(_, s)| *s).collect::<Bitboard>();
        self.flicker &= squares_at(&self.flicker_at);
        for (i, n) in self.flicker_count.iter_mut().enumerate() {
            if self.flicker_at[i].is_none() {
                *n = 0;
            }
        }
    }
}

impl Default for TurnHands {
    fn default() -> TurnHands {
        TurnHands {
            release_min: two_hands::RELEASE_MIN_MS,
            landing_gap: BOUNCE_GAP_MS,
            touches: Vec::new(),
            lifts: Bitboard::EMPTY,
            flicker: Bitboard::EMPTY,
            flicker_count: [0; 64],
            flicker_at: [None; 64],
            lifted_at: [None; 64],
            active_at: [None; 64],
            placed_at: [None; 64],
            placements: Vec::new(),
            removals: Vec::new(),
            toggles: Vec::new(),
            restored_at: None,
        }
    }
}

/// The last move made, kept to recognise a piece moved on after release.
#[derive(Debug, Clone)]
struct LastMove {
    before: Chess,
    mv: Move,
}

/// What a clock press meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PressMeaning {
    /// The mover completed the move of this ply (6.7).
    Completed { ply: usize },
    /// The mover completed an illegal move (7.4 / 7.5).
    Illegal(IllegalMoveRuling),
    /// The mover completed a promotion whose new piece is not yet named
    /// (3.7e): this ply, once recorded, is completed by this press (6.7).
    Awaiting { ply: usize },
    /// Not a press that changes the game (wrong player, second press, before the game).
    Ignored(&'static str),
}

/// The hand tracker, holding the game it infers.
#[derive(Debug)]
pub struct Inference {
    config: InferenceConfig,
    start: Start,
    profile: Profile,
    game: Game,
    started: bool,
    board: Bitboard,
    white: Option<Bitboard>,
    stable: Bitboard,
    last_change: Option<Millis>,
    /// When a piece was last set down on the board, by any hand.
    last_placed: Option<Millis>,
    lifted_since_stable: Bitboard,
    /// The squares that changed together in one scan (the board jumped)
    /// since the last settle; empty when it did not jump.
    jumped: Bitboard,
    /// The board jumped while a displaced board was being repaired, a
    /// piece still in the hand: the next look at it still counts the jump
    /// (a capture nobody saw, its captured piece never off its square).
    /// Until the record moves on or the board is restored.
    jump_in_hand: bool,
    /// The board open lines explained when the next change dropped them
    /// all. A displaced board that comes back to it is looked at as the
    /// jump it was (the lines came of plies nobody saw; what the hands
    /// did before them may have been forgotten as garbage). Until the
    /// record moves on or the board is restored.
    lines_dropped_on: Option<Bitboard>,
    /// While lines are open: a piece of the side not on move under a line
    /// was set on an empty square (knocked, 7.3); the lines wait for it to
    /// be set back.
    knocked_under_lines: Option<hypotheses::Knocked>,
    /// The squares the board has been missing pieces on since it was
    /// reported displaced (7.3, 7.5), while the alert stays open: a piece
    /// set back on one is the board being repaired.
    displaced_missing: Bitboard,
    /// The boards read while an alert is open, first ones first (up to
    /// [`ALERT_BOARDS`]): one of them may be where plies nobody saw ended,
    /// before the players played on.
    alert_boards: Vec<Bitboard>,
    /// The first boards read since the last recorded move that differ
    /// from its position with no alert open (up to [`HELD_BOARDS`]): to
    /// the sensors a jump that only emptied squares (a queen given and
    /// taken, the king back where it stood) reads as pieces held in the
    /// hand, so one of them may be where plies nobody saw ended too.
    held_boards: Vec<Bitboard>,
    /// When the board was last found unexplained (a settle with an alert
    /// open).
    alert_at: Option<Millis>,
    /// Of the jumps since the last settle, one no slide explains (see
    /// [`slid_next_door`]): the hands were not read.
    unread: bool,
    /// The scans since the last settle whose changes made the board count
    /// as jumped (see [`Inference::forgive_blip`]).
    jumped_scans: Vec<Vec<SettledChange>>,
    /// What the hands did in the current turn.
    turn: TurnHands,
    /// Since when pieces have been missing with nothing explaining it.
    missing_since: Option<Millis>,
    /// Since when the mover's pieces have been off the board, held, with
    /// nothing else changed (see [`HELD_MS`]).
    held_since: Option<Millis>,
    /// Every open line only waits for a hand at work: if the board stays
    /// quiet until then, it is judged again (a hand holds a piece for a
    /// moment; the record may explain the board instead; never stuck).
    lines_waiting_until: Option<Millis>,
    /// A capture read only from a swap on its captured square waits until
    /// then to be made (see [`SWAP_RELEASE_MS`]); so does a castling rook's
    /// move ([`CASTLING_ROOK_WAIT_MS`]), and a move onto a square filled
    /// before its piece left ([`FILLED_FIRST_MS`]).
    swap_until: Option<Millis>,
    /// The next mover's touch is releasing the move on the board (1.1):
    /// a castling rook's move waits no longer.
    released_by_touch: bool,
    awaiting_press: Option<usize>,
    /// A move made whose mover had not pressed when the reply was made
    /// (two hands): his press still completes it (6.7).
    unpressed: Option<(usize, Color)>,
    /// The last ply of the side to move among plies the sensors missed
    /// (recorded and completed as read, their presses unseen): his press
    /// before anything new of his stands on the board is the press for it
    /// (6.7), not a press without a move.
    missed_press: Option<(usize, Color)>,
    /// The mover pressed while his capture may still have been in his
    /// hand or already made, its piece taken by the next mover's hand
    /// (see `press::taken_before_the_press`): the press completes this
    /// ply once it is recorded (6.7).
    pressed_before_made: Option<usize>,
    last_move: Option<LastMove>,
    promotion: Option<PendingPromotion>,
    promotion_choice: Option<Role>,
    adjusting: bool,
    alert: Alert,
    /// The candidate lines the last `displaced` event listed (the
    /// arbiter may accept one).
    listed_candidates: Vec<String>,
    /// Moves the sensors did not read that several lines of plies explain:
    /// kept until the board tells which.
    pending: Option<hypotheses::Pending>,
    /// Moves being recorded are inferred, not seen made (`move.inferred`).
    inferring: bool,
    /// The latest raw reading.
    raw: Bitboard,
    /// Raw readings since the last recorded move that changed several
    /// squares at once (a jump: the sensors read again), or made a whole
    /// move in one reading (a piece gone, another set down not next door),
    /// the latest
    /// [`RAW_JUMPS`]: a square the jump filled may read empty again
    /// before the debounce settles it, the next mover's hand lifting that
    /// piece at once, so the settled board never shows where the unseen
    /// plies ended.
    raw_jumps: Vec<Bitboard>,
    /// The board is being read at the mover's clock press (6.7): his hand
    /// is on the clock.
    pressing: bool,
    /// The board's scan period as the readings show it (0: none shown).
    scan_period: Millis,
    /// What the readings tell of the scan period: its shortest gap (see
    /// [`Inference::fine_scans`]) and the longest period they allow.
    scan_period_seen: crate::filter::ScanPeriod,
    /// The board is being read for the first time after a restart.
    read_again: bool,
    /// Resumed and the board not read yet: the first reading may show a
    /// move in the making or moves made meanwhile.
    resumed: bool,
    out: Vec<(Millis, EventKind)>,
}

impl Inference {
    pub fn new(start: Start, profile: Profile, config: InferenceConfig) -> Inference {
        let game = Game::new(start.clone(), profile);
        Inference {
            config,
            start,
            profile,
            game,
            started: false,
            board: Bitboard::EMPTY,
            white: None,
            stable: Bitboard::EMPTY,
            last_change: None,
            last_placed: None,
            lifted_since_stable: Bitboard::EMPTY,
            jumped: Bitboard::EMPTY,
            jump_in_hand: false,
            lines_dropped_on: None,
            knocked_under_lines: None,
            displaced_missing: Bitboard::EMPTY,
            alert_boards: Vec::new(),
            raw_jumps: Vec::new(),
            held_boards: Vec::new(),
            alert_at: None,
            unread: false,
            jumped_scans: Vec::new(),
            turn: TurnHands::default(),
            missing_since: None,
            held_since: None,
            lines_waiting_until: None,
            swap_until: None,
            released_by_touch: false,
            awaiting_press: None,
            unpressed: None,
            missed_press: None,
            pressed_before_made: None,
            last_move: None,
            promotion: None,
            promotion_choice: None,
            adjusting: false,
            alert: Alert::None,
            listed_candidates: Vec::new(),
            pending: None,
            inferring: false,
            raw: Bitboard::EMPTY,
            pressing: false,
            scan_period: 0,
            scan_period_seen: crate::filter::ScanPeriod::default(),
            read_again: false,
            resumed: false,
            out: Vec::new(),
        }
    }

    /// A tracker carrying on with `game` (a game restored after the daemon
    /// was down): started, with `awaiting_press` the ply made and not yet
    /// completed by the clock press (Article 6.7), if any. The board is not
    /// known: the first [`Inference::initial`] compares it with the game's
    /// position and treats a difference as moves made while nobody read the
    /// sensors (the missed-move search), else reports the board displaced.
    pub fn resume(
        start: Start,
        profile: Profile,
        config: InferenceConfig,
        game: Game,
        awaiting_press: Option<usize>,
    ) -> Inference {
        let mut inference = Inference::new(start, profile, config);
        inference.game = game;
        inference.started = true;
        inference.awaiting_press = awaiting_press.filter(|_| !inference.game.is_over());
        // The board may have moved on while it was not read: any square.
        inference.jumped = Bitboard::FULL;
        inference.unread = true;
        inference.resumed = true;
        inference
    }

    pub fn game(&self) -> &Game {
        &self.game
    }
    pub(crate) fn game_mut(&mut self) -> &mut Game {
        &mut self.game
    }
    pub fn config(&self) -> &InferenceConfig {
        &self.config
    }
    pub fn is_started(&self) -> bool {
        self.started
    }
    /// The board as the sensors settled it.
    pub fn board(&self) -> Bitboard {
        self.board
    }
    /// A move made and not yet completed by the clock press.
    pub fn awaiting_press(&self) -> Option<usize> {
        self.awaiting_press
    }
    /// Whether lines of moves the sensors did not read are still open
    /// (a `candidates` event named them).
    pub(crate) fn lines_open(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether the board shows something the game does not: a displaced
    /// piece or an illegal move waiting to be corrected or reinstated.
    pub(crate) fn alert_pending(&self) -> bool {
        self.alert != Alert::None
    }

    /// Takes the events concluded so far, with their times.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (Millis, EventKind)> {
        self.out.drain(..)
    }

    fn emit(&mut self, t: Millis, kind: EventKind) {
        self.out.push((t, kind));
    }

    /// The board as first read (the filter's first scan), with colours if known.
    pub fn initial(&mut self, t: Millis, board: Bitboard, colours: Option<Snapshot>) {
        self.board = board;
        self.stable = board;
        self.white = colours.map(|c| c.white);
        let resumed = std::mem::take(&mut self.resumed);
        let expected = self.game.position().board().occupied();
        if resumed && self.config.resumed_board == ResumedBoard::AskArbiter && board != expected {
            let lines = match missed::search(
                self.game.position(),
                board,
                self.white,
                self.config.max_missed_plies,
            ) {
                missed::Explanation::Unique(line) => vec![line],
                missed::Explanation::Ambiguous(lines) => lines,
                missed::Explanation::None => Vec::new(),
            };
            let candidates = self.lines_uci(&lines);
            self.displaced(t, (board ^ expected).into_iter().collect(), candidates);
            return;
        }
        if resumed {
            // The hands were at work before the board was read again: a
            // square the game occupies and the board does not was lifted
            // this turn, a square the board occupies and the game does
            // not was reached.
            for sq in expected & !board {
                self.turn.lifts.add(sq);
                self.turn.lifted_at[sq as usize] = Some(t);
                self.turn.active_at[sq as usize] = Some(t);
            }
            for sq in board & !expected {
                self.turn.active_at[sq as usize] = Some(t);
            }
            if board != expected && self.started && !self.game.is_over() {
                // A hand at work is not done: the board read again is
                // judged once it has settled (a sliding piece read on a
                // square it passes over has not made a move there).
                self.read_again = true;
                self.last_change = Some(t);
                return;
            }
        }
        self.evaluate(t);
    }

    /// When the tracker next needs [`Inference::advance`].
    pub fn next_deadline(&self) -> Option<Millis> {
        // Saturating: a time near `Millis::MAX` (or a huge window) makes a
        // deadline at the end of time, never one that wraps to the past.
        let settle = self
            .last_change
            .map(|t| t.saturating_add(self.config.settle_ms));
        // (As `advance` concludes them: a promotion once the board has
        // settled, pieces missing once nothing has moved for the grace.)
        let promotion = match (self.promotion, self.config.completion) {
            (Some(p), _) if let Some(r) = p.released => {
                Some(r.at.saturating_add(self.config.promotion_wait_ms))
            }
            (Some(p), Completion::Settle)
                if self.last_change.is_none() && self.board.contains(p.to) =>
            {
                Some(p.since.saturating_add(self.config.promotion_wait_ms))
            }
            _ => None,
        };
        let missing = self
            .missing_since
            .filter(|_| self.last_change.is_none())
            .map(|t| t.saturating_add(MISSING_GRACE_MS));
        let waiting = self
            .lines_waiting_until
            .filter(|_| self.last_change.is_none() && self.pending.is_some());
        let swap = self.swap_until.filter(|_| self.last_change.is_none());
        let held = self
            .held_since
            .filter(|_| self.last_change.is_none())
            .map(|t| t.saturating_add(HELD_MS));
        [settle, promotion, missing, waiting, swap, held]
            .into_iter()
            .flatten()
            .min()
    }

    /// Time reached `t`: conclude what has settled.
    pub fn advance(&mut self, t: Millis) {
        if let Some(last) = self.last_change
            && t >= last.saturating_add(self.config.settle_ms)
        {
            self.evaluate(last.saturating_add(self.config.settle_ms));
        }
        if let Some(since) = self.missing_since
            && self.last_change.is_none()
            && t >= since.saturating_add(MISSING_GRACE_MS)
        {
            self.evaluate(since.saturating_add(MISSING_GRACE_MS));
        }
        if let Some(since) = self.held_since
            && self.last_change.is_none()
            && t >= since.saturating_add(HELD_MS)
        {
            self.evaluate(since.saturating_add(HELD_MS));
        }
        if let Some(at) = self.lines_waiting_until
            && self.last_change.is_none()
            && self.pending.is_some()
            && t >= at
        {
            self.evaluate(at);
        }
        if let Some(at) = self.swap_until
            && self.last_change.is_none()
            && t >= at
        {
            self.evaluate(at);
        }
        if let Some(r) = self.released_promotion()
            && t >= r.at.saturating_add(self.config.promotion_wait_ms)
        {
            // The name did not come: a queen (3.7e).
            self.make_released_promotion(r.at.saturating_add(self.config.promotion_wait_ms));
        }
        if let Some(p) = self.promotion
            && p.released.is_none()
            && self.config.completion == Completion::Settle
            && self.last_change.is_none()
            && self.board.contains(p.to)
            && t >= p.since.saturating_add(self.config.promotion_wait_ms)
        {
            self.make_promotion(
                p.since.saturating_add(self.config.promotion_wait_ms),
                Role::Queen,
            );
        }
    }

    /// Settled changes from the filter, in time order.
    pub fn changes(&mut self, changes: &[SettledChange]) {
        for scan in changes.chunk_by(|a, b| a.since == b.since) {
            for (i, c) in scan.iter().enumerate() {
                self.advance(c.t);
                if i == 0 && self.hand_after_jump(scan) {
                    // The board the sensors read again is judged before
                    // the hand's change, as if it had settled: the plies
                    // they missed end on it, and the hand works on after.
                    self.evaluate(c.t);
                }
                // A scan is judged whole before any of its changes is read:
                // its first change is no hand's either when the scan jumped.
                if i == 0 {
                    self.judge_scan(scan);
                }
                self.forgive_blip(c);
                self.change(c);
            }
        }
    }

    /// A hand's single change on a square the jump left alone, begun
    /// [`HAND_AFTER_JUMP_MS`] or more after the sensors were read again
    /// (or the lift of a piece the jump set down, [`RETAKEN_AFTER_JUMP_MS`]):
    /// the next mover, quick as fast hands are, started his move before
    /// the jump's board settled. Only where that board is a position of
    /// its own:
    /// - three squares or more jumped, or two apart, a piece gone from one
    ///   and set down on the other (a hand sliding a piece next door, or
    ///   lifting a capture's two pieces, changes two in one scan and goes
    ///   on; none carries a piece further within one reading);
    /// - a piece set down among them (a jump that only took pieces away
    ///   may be a hand at work itself, judged with what follows);
    /// - nothing else flickered since (a square whose contacts still
    ///   bounce, or a piece lifted again at once, leaves no position).
    fn hand_after_jump(&self, scan: &[SettledChange]) -> bool {
        let [c] = scan else {
            return false;
        };
        if !self.unread || self.last_change.is_none() {
            return false;
        }
        if self.jumped.count() < 3 && !self.placed_apart() {
            return false;
        }
        // (A piece the jump set down, lifted again: the next mover taking
        // a piece the missed plies brought, as quick as a hand. Set down in
        // a reading of three squares or more: a slide's step onto the
        // next square, read with the one it left, is no jump's.)
        let set_down_by_the_jump = matches!(c.change, SquareChange::Lifted)
            && self.jumped_scans.iter().any(|scan| {
                scan.len() >= 3
                    && scan.iter().any(|x| {
                        x.square == c.square && matches!(x.change, SquareChange::Placed(_))
                    })
            });
        let least = if set_down_by_the_jump {
            // (Where readings are further apart than the filter's window,
            // the very next reading is all the board tells: a queen the
            // jump set down on a4 and lifted at once for `Qe8+`. Only in
            // a reading of more squares than a hand's slide and a blip
            // change: a king slid next door as a square blipped reads
            // like a jump, the blip gone at the next reading.)
            let wide = self
                .jumped_scans
                .iter()
                .any(|scan| scan.len() > RAW_JUMP_SQUARES);
            if wide && self.scan_period > crate::filter::DebounceConfig::DEFAULT_STABLE_MS {
                RETAKEN_AFTER_JUMP_MS.min(self.scan_period)
            } else {
                RETAKEN_AFTER_JUMP_MS
            }
        } else {
            // (A later reading at least.)
            HAND_AFTER_JUMP_MS.max(self.scan_period)
        };
        (!self.jumped.contains(c.square) || set_down_by_the_jump)
            && self
                .jumped_scans
                .iter()
                .flatten()
                .any(|x| matches!(x.change, SquareChange::Placed(_)))
            && self
                .jumped_scans
                .last()
                .and_then(|j| j.first())
                .is_some_and(|j| {
                    c.since >= j.since.saturating_add(least)
                        && !self
                            .turn
                            .toggles
                            .iter()
                            .any(|(u, s)| *u > j.since && *s != c.square)
                })
    }

    /// Whether a piece of the side not having the move in the record,
    /// lifted this turn and still off its square, reaches both `squares`
    /// from there (on an empty board): his hand sliding it over them.
    fn next_movers_piece_sliding_over(&self, squares: Bitboard, board: Bitboard) -> bool {
        let pos = self.game.position();
        let next = !pos.turn();
        (self.turn.lifts & pos.board().by_color(next) & !board)
            .into_iter()
            .any(|from| {
                pos.board().piece_at(from).is_some_and(|piece| {
                    squares.is_subset(shakmaty::attacks::attacks(from, piece, Bitboard::EMPTY))
                })
            })
    }

    /// The board jumped on two squares in one scan, a piece set down on
    /// one and gone from the other, not next door: no hand's slide.
    fn placed_apart(&self) -> bool {
        let lifted = |c: &SettledChange| matches!(c.change, SquareChange::Lifted);
        let Some([a, b]) = self.jumped_scans.last().map(Vec::as_slice) else {
            return false;
        };
        self.jumped.count() == 2 && lifted(a) != lifted(b) && !slid_next_door(a, b)
    }

    /// The changes read in one scan: whether the board jumped.
    fn judge_scan(&mut self, scan: &[SettledChange]) {
        let mut jumped = false;
        for pair in scan.windows(2) {
            jumped |= self.judge_one_scan(&pair[0], &pair[1]);
        }
        if jumped {
            // Three squares or more in one scan: whatever pairs of them
            // look like (a slide next door), no one hand does that at
            // once; the sensors were not read meanwhile.
            self.unread |= scan.len() >= 3;
            self.jumped_scans.push(scan.to_vec());
        }
    }

    /// Two changes read in one scan. True when they count as a jump.
    fn judge_one_scan(&mut self, a: &SettledChange, b: &SettledChange) -> bool {
        if self.straddle(a, b) || self.bounced_into(a) || self.bounced_into(b) {
            return false;
        }
        // Several squares changed in one scan: the sensors were not read
        // for a while (or a hand is faster than a scan).
        self.jumped.add(a.square);
        self.jumped.add(b.square);
        // Unless it was a slide onto the neighbouring square, no hand did
        // it: not the next mover's hand releasing a move. (On a board read
        // every millisecond a slide's two switches fall in one reading
        // only by chance; unless a hand was just seen on them, such a step
        // is the sensors unread too.)
        let one_hand = slid_next_door(a, b) || self.lifted_for_one_move(a, b);
        self.unread |=
            !one_hand || (self.fine_scans() && !self.turn.worked_before(a, b, HAND_NEAR_MS));
        true
    }

    /// Both changes are lifts of the two squares one legal move empties (a
    /// capture: the capturing piece and the captured one, Article 3.1; a
    /// castling king and rook, 3.8), from the recorded position or from
    /// the move whose pieces are settling (the next mover's capture, two
    /// hands, 1.1): a quick hand lifting both within one scan, as likely
    /// as a jump that leaves just these two squares empty. (That move may
    /// be a capture quicker than a scan, its captured piece never read
    /// gone: `...cxd4` swapped between two readings every 25 ms, then
    /// White's knight and the pawn on d4 lifted in one for `Nxd4`.)
    fn lifted_for_one_move(&self, a: &SettledChange, b: &SettledChange) -> bool {
        let lifted = |c: &SettledChange| matches!(c.change, SquareChange::Lifted);
        if !lifted(a) || !lifted(b) {
            return false;
        }
        let both = Bitboard::from_square(a.square).with(b.square);
        let empties_both = |pos: &Chess| pos.legal_moves().iter().any(|m| must_lift(m) == both);
        let pos = self.game.position();
        empties_both(pos)
            || self
                .pick(&self.candidates(self.board, true))
                .is_some_and(|m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    empties_both(&after)
                })
    }

    /// A square that changed in a jumped scan and changed back at the very
    /// next reading was a blip (interference, a contact brushed), not a
    /// piece moved while the sensors were unread: the scans are judged
    /// again without it. A lift read in the same scan as a blip elsewhere
    /// is a hand's, as it would be alone.
    fn forgive_blip(&mut self, c: &SettledChange) {
        let reading = self.scan_period.max(1);
        let blipped = |scan: &Vec<SettledChange>| {
            scan.iter()
                .any(|x| x.square == c.square && x.since < c.since && c.since <= x.since + reading)
        };
        // (A board resumed counts every square as jumped, whatever blips.
        // On a board read every millisecond a switch back at the next
        // reading is a contact bouncing, judged as such.)
        if self.jumped == Bitboard::FULL
            || self.fine_scans()
            || !self.jumped_scans.iter().any(blipped)
        {
            return;
        }
        let scans: Vec<Vec<SettledChange>> = std::mem::take(&mut self.jumped_scans)
            .into_iter()
            .map(|scan| {
                if blipped(&scan) {
                    scan.into_iter().filter(|x| x.square != c.square).collect()
                } else {
                    scan
                }
            })
            .collect();
        self.jumped = Bitboard::EMPTY;
        self.unread = false;
        for scan in scans {
            self.judge_scan(&scan);
        }
    }

    /// Two squares emptied in one scan, one of them reached a moment ago
    /// (not at the last settle): a piece slid onto the line between two
    /// squares, closing both switches, and lifted from there. One hand, not
    /// a jump.
    fn straddle(&self, a: &SettledChange, b: &SettledChange) -> bool {
        matches!(
            (a.change, b.change),
            (SquareChange::Lifted, SquareChange::Lifted)
        ) && !(self.stable.contains(a.square) && self.stable.contains(b.square))
    }

    /// The change ends a burst of raw toggles on its square (contacts
    /// bouncing under a hand): its scan is one of many read while the hand
    /// was at work, not the first after the sensors went unread. A piece
    /// slid on with its magnet closing the new square before opening the
    /// old one can settle both in the same scan that way.
    fn bounced_into(&self, c: &SettledChange) -> bool {
        self.turn.toggles.iter().any(|(u, s)| {
            *s == c.square && *u < c.since && u.saturating_add(FLICKER_BURST_MS) >= c.since
        })
    }

    fn change(&mut self, c: &SettledChange) {
        let sq = c.square;
        match c.change {
            SquareChange::Lifted => {
                if self.stable.contains(sq) {
                    // Two hands (1.1): the next mover lifting a piece
                    // while the last move's piece settles made that move.
                    self.next_mover_lifts(c.t, sq);
                }
                // After: a lift that made the last move is the new turn's.
                self.turn.removals.push((c.t, sq));
                self.board.discard(sq);
                if let Some(w) = &mut self.white {
                    w.discard(sq);
                }
                if self.stable.contains(sq) {
                    self.lifted(c.t, sq);
                } else if self.started {
                    // A piece set down since the last settle, lifted again
                    // (the next mover taking the piece just moved, say).
                    self.turn.lifts.add(sq);
                    self.turn.lifted_at[sq as usize] = Some(c.t);
                    self.turn.active_at[sq as usize] = Some(c.t);
                }
            }
            SquareChange::Placed(colour) => {
                self.board.add(sq);
                self.last_placed = Some(c.t);
                // (Or back within the nudge time on a square a press
                // settled with its piece lifted, the move before made
                // under the next mover's hand: his brush, 1.1, is no touch
                // either.)
                let brushed_over_a_press = self.turn.touches.iter().any(|x| x.square == sq)
                    && self.turn.lifted_at[sq as usize]
                        .is_some_and(|l| c.t < l.saturating_add(self.config.nudge_ms));
                if self.stable.contains(sq) || brushed_over_a_press {
                    self.put_back(c.t, sq);
                }
                self.turn.active_at[sq as usize] = Some(c.t);
                self.turn.placed_at[sq as usize] = Some(c.t);
                self.turn.placements.push((c.t, sq));
                if let Some(w) = &mut self.white {
                    w.set(sq, colour == Some(Color::White));
                }
            }
        }
        self.last_change = Some(c.t);
    }

    /// A piece that stood on `sq` left it: the sensor board's touch.
    fn lifted(&mut self, t: Millis, sq: Square) {
        // The opponent touching a piece releases a promotion (any piece
        // but on the promotion's own squares, where the pawn is taken off:
        // the opponent lifts his own piece, or the mover's to capture it).
        // First, so that this lift belongs to the next turn. Unnamed, its
        // record waits for the name.
        if self.started
            && self.promotion.is_some_and(|p| p.to != sq && p.from != sq)
            && self.config.completion == Completion::Settle
            && !self.release_unnamed_promotion(self.released_by_touch(t))
        {
            let role = self.promotion_choice.take().unwrap_or(Role::Queen);
            self.make_promotion(t, role);
        }
        self.lifted_since_stable.add(sq);
        self.turn.lifted_at[sq as usize] = Some(t);
        self.turn.active_at[sq as usize] = Some(t);
        // (The piece of a promotion whose name has not come is not known.)
        let piece = self.game.position().board().piece_at(sq).filter(|_| {
            !self
                .promotion
                .is_some_and(|p| p.released.is_some() && p.to == sq)
        });
        self.emit(
            t,
            EventKind::PieceLifted {
                square: sq,
                piece: piece.map(|p| p.char()),
            },
        );
        if !self.started || self.game.is_over() {
            return;
        }
        self.turn.lifts.add(sq);
        if let Some(piece) = piece
            && !self.turn.touches.iter().any(|x| x.square == sq)
            && self.game.position().board().piece_at(sq) == Some(piece)
        {
            // A piece set down here a moment ago and gone again did not
            // stand: a piece passing over the square (a hand brushing it
            // on its way), not the piece the game has there being touched.
            let passing = self.turn.placed_at[sq as usize]
                .is_some_and(|p| t < p.saturating_add(self.turn.release_min));
            if self.adjusting {
                // An adjustment announced beforehand (4.2): not a touch.
                self.adjusting = false;
            } else if self.awaiting_press.is_none() && !passing {
                let with = self.game.position().board().occupied() & !self.board;
                self.turn.touches.push(Touch {
                    square: sq,
                    piece,
                    with: with.without(sq),
                    at: t,
                });
            }
        }
    }

    /// Raw activity on these squares at `t` (before debouncing). A square
    /// that toggles a few times in a turn counts as lifted for the moves
    /// that capture on it; a single glitch does not. Activity also asks
    /// for a fresh look once the board has settled.
    pub fn flicker(&mut self, t: Millis, squares: Bitboard) {
        for sq in squares {
            let i = sq as usize;
            // Toggles count within one burst: a piece pushed off bounces
            // several times in a few milliseconds; glitches minutes apart
            // do not add up.
            let burst = self.turn.flicker_at[i]
                .is_some_and(|last| t <= last.saturating_add(FLICKER_BURST_MS));
            self.turn.flicker_at[i] = Some(t);
            self.turn.active_at[i] = Some(t);
            if self.turn.toggles.len() < MAX_TOGGLES_KEPT {
                self.turn.toggles.push((t, sq));
            }
            let n = &mut self.turn.flicker_count[i];
            *n = if burst { n.saturating_add(1) } else { 1 };
            if *n >= FLICKER_TOGGLES {
                self.turn.flicker.add(sq);
            }
        }
        if self.started && self.last_change.is_none_or(|last| last < t) {
            self.last_change = Some(t);
        }
    }

    /// The latest raw reading (before the debounce): at a clock press a
    /// hand may be lifting a piece whose square has not settled yet. With
    /// it, the board's scan period as the readings show it (0: none; see
    /// [`crate::filter::ScanPeriod`]).
    pub fn raw(&mut self, raw: Bitboard, scan_period_seen: crate::filter::ScanPeriod) {
        let scan_period = scan_period_seen.period();
        // (Or a whole move in one reading: a piece gone and one set down
        // in one reading, not next door where a slide's step is.)
        let whole_move = (self.raw & !raw)
            .single_square()
            .zip((raw & !self.raw).single_square())
            .is_some_and(|(off, on)| !shakmaty::attacks::king_attacks(off).contains(on));
        if ((self.raw ^ raw).count() >= RAW_JUMP_SQUARES || whole_move) && self.started {
            if self.raw_jumps.len() >= RAW_JUMPS {
                self.raw_jumps.remove(0);
            }
            self.raw_jumps.push(raw);
        }
        self.raw = raw;
        self.scan_period = scan_period;
        self.turn.release_min = two_hands::release_min(scan_period);
        self.turn.landing_gap = BOUNCE_GAP_MS.max(scan_period);
        self.scan_period_seen = scan_period_seen;
    }

    /// Whether the board is read every millisecond (or its readings show
    /// no period yet): a slide's switches, one opening as the next closes,
    /// then fall in one reading only by a chance of a millisecond, so a
    /// step to the neighbouring square in one reading, with no hand seen
    /// on its squares just before, is the sensors unread too (a jump), as
    /// a longer one is. (Readings written only at their changes may show
    /// no gap yet while their times already fall on a coarse grid: a
    /// board read every 10 ms, its pieces each lifted and set down more
    /// than a gap apart; the grid is its period then.)
    pub(super) fn fine_scans(&self) -> bool {
        match self.scan_period_seen.shortest_gap() {
            Some(gap) => gap <= FINE_SCAN_GAP_MS,
            None => self.scan_period <= FINE_SCAN_GAP_MS,
        }
    }

    /// How much longer or shorter than the truth a time between two
    /// readings may be: a change happens somewhere within the scan period
    /// before the reading that shows it.
    pub(super) fn scan_uncertainty(&self) -> Millis {
        self.scan_period.saturating_sub(1)
    }

    /// The player having the move announces an adjustment (Article 4.2,
    /// "j'adoube"): the next lift-and-return is not a touch.
    pub fn adjust(&mut self) {
        self.adjusting = true;
    }

    fn game_over(&mut self, t: Millis, end: crate::game::GameEnd) {
        self.awaiting_press = None;
        self.promotion = None;
        self.emit(
            t,
            EventKind::GameOver {
                result: end.result(),
                reason: end.reason.name().to_owned(),
            },
        );
    }

    /// Reports an end of game decided outside the board (flag, resignation, ...).
    pub fn ended(&mut self, t: Millis, end: crate::game::GameEnd) {
        self.game_over(t, end);
    }

    /// The input is over (a trace replayed to its end, the game about to
    /// end by a decision or a flag): nothing more will tell open lines
    /// apart. Lines two plies longer than the fewest, kept on probation,
    /// give way to the fewer plies (parsimony); lines that are equally
    /// short stay open (certainty first).
    /// A promotion still waiting for its piece's name is recorded first.
    pub fn input_ended(&mut self, t: Millis) {
        self.make_released_promotion(t);
        if !self.game.is_over() {
            self.end_probation_now(t);
        }
    }

    /// The board has stood still for the settle time: conclude.
    fn evaluate(&mut self, t: Millis) {
        self.evaluate_board(t);
        if matches!(self.alert, Alert::None) {
            self.alert_boards.clear();
            self.alert_at = None;
            if self.board == self.game.position().board().occupied() {
                self.held_boards.clear();
            } else if self.held_boards.len() < HELD_BOARDS
                && self.held_boards.last() != Some(&self.board)
                && self.pending.is_none()
            {
                self.held_boards.push(self.board);
            }
        } else {
            self.alert_at = Some(t);
            if self.alert_boards.len() < ALERT_BOARDS
                && self.alert_boards.last() != Some(&self.board)
            {
                self.alert_boards.push(self.board);
            }
        }
        // (Only the first look after a restart is a board read again.)
        self.read_again = false;
    }

    fn evaluate_board(&mut self, t: Millis) {
        let board = self.board;
        // A hand holds a piece it lifted since the last look (nothing set
        // down since): the board is no position yet.
        let holding = (self.stable & !board).any() && (board & !self.stable).is_empty();
        // (The board the open lines were last judged on.)
        let looked_at = self.stable;
        let changed = self.settle_placed(t);
        self.last_change = None;
        let jumped_squares = std::mem::take(&mut self.jumped);
        let mut jump = jumped_squares.any();
        let mut unread = std::mem::take(&mut self.unread);
        self.jumped_scans.clear();
        // Set again below if the board is still unexplained.
        let missing_since = self.missing_since.take();
        let held_since = self.held_since.take();
        self.lines_waiting_until = None;
        let swap_until = self.swap_until.take();

        if !self.started || self.game.is_over() {
            if board == self.start.position().board().occupied() {
                self.new_game(t);
            } else if self.started {
                self.castled_after_the_game_ended(t, board);
            }
            return;
        }
        if self.released_promotion().is_some() {
            // The next mover's hand lifting pieces needs no position yet:
            // the promotion's piece may still be named.
            if !jump && self.only_lifted_since_release(board) {
                return;
            }
            self.make_released_promotion(t);
        }
        if jump
            && unread
            && let Some(since) = self.alert_at
        {
            // The board jumped while nothing explained it (garbage read, a
            // piece knocked over): what the hands did until it was last
            // found unexplained is no part of what the jump shows (no
            // touch, no capture of its own: garbage read after the alert
            // was raised is no lift); what they did since may be.
            self.turn.forget_until(since);
        }
        if let Some(mut pending) = self.pending.take() {
            // The board jumped with no hand read (the sensors unread,
            // garbage): no hand made a move under any line, nor holds a
            // piece. Plies the sensors missed extend the lines (whose
            // plies the hands were seen making), and lines searched
            // afresh from the record stand beside them (the lines may
            // have come of garbage read); the next moves tell.
            let fresh = if jump && unread {
                let record = self.game.position();
                let max = self.config.max_missed_plies;
                let mut fresh =
                    missed::explanations(record, board, self.white, max, missed::Roam::Short);
                // The board may be one ply further on, the other side to
                // move (a piece gone on by way of another square), where
                // pieces are only missing too: no hand was read, so no
                // piece is in the air, and what the press and the next
                // move show tells the sides apart.
                let other_side =
                    missed::with_the_other_side_to_move(record, board, self.white, &fresh, max);
                fresh.extend(other_side);
                fresh
            } else {
                Vec::new()
            };
            let read = if !fresh.is_empty() {
                hypotheses::JumpRead::FromTheRecordToo
            } else if jump && unread {
                hypotheses::JumpRead::Unread
            } else {
                hypotheses::JumpRead::No
            };
            // (As a jump read without lines open: the board may be two
            // plies further on, the same side to move.)
            let longer = missed::two_plies_longer(
                self.game.position(),
                board,
                self.white,
                &fresh,
                self.config.max_missed_plies,
            );
            pending.add_missed(fresh, longer, t);
            if self.judge_hypotheses(t, board, pending, read) {
                // What the hands did before a jump nobody read is in the
                // lines' plies now, or was garbage: no lift of the turn
                // read after it (the jump's own changes are no hands).
                if read != hypotheses::JumpRead::No {
                    self.turn.forget_until(t);
                }
                return;
            }
            // No open line explains the board: search afresh.
            // (Should the hands bring the board back to where the lines
            // stood, the jump that opened them still counts: a lift read
            // before an alert may be forgotten, never stuck.)
            self.lines_dropped_on = Some(looked_at);
            jump = true;
            unread = true;
        }
        let expected = self.game.position().board().occupied();
        if matches!(self.alert, Alert::Reinstate | Alert::Displaced(_)) {
            if board == expected {
                self.restored(t);
                return;
            }
            // Never stuck: legal play from the record explains the board.
            // (A jump seen earlier waits while a hand holds a piece lifted
            // since: that piece is in the air, not moved by missed plies.)
            if !jump && self.jump_in_hand && holding {
                return;
            }
            let jump = jump || self.jump_in_hand || self.lines_dropped_on == Some(board);
            if (changed || jump) && self.resync(t, board, jump) {
                return;
            }
            if let Alert::Displaced(squares) = &self.alert {
                let now: Vec<Square> = (board ^ expected).into_iter().collect();
                if now != *squares {
                    self.displaced(t, now, Vec::new());
                }
            }
            return;
        }
        if board == expected {
            if matches!(self.alert, Alert::Illegal { .. }) {
                self.restored(t);
            }
            self.promotion = None;
            return;
        }
        if self.pressing && !jump && self.reached_too_late_for_the_press(t, board) {
            return;
        }
        if self.make_what_the_hands_did(t, board, jump, unread, swap_until) {
            return;
        }
        // A hand holding the promoted square's piece (the pawn being
        // swapped, or the opponent taking the new piece) leaves the
        // promotion on the board: his next touch makes it (1.1, 4.6).
        if !self.promoted_piece_in_hand(board) {
            self.promotion = None;
        }
        if !unread
            && let Some(made) = self.made_under_lifts(t, board, two_hands::Hands::NextMoversPieces)
        {
            self.make_under_lifts(t, made);
            // The next mover's move may be on the board already (once the
            // move is recorded).
            if self.released_promotion().is_none() {
                self.make_what_the_hands_did(t, board, false, false, None);
            }
            return;
        }
        // Before a move in progress: a jump may leave pieces missing that
        // look like pieces in the hand. Not when the "jump" was a slide's
        // first step next door and one piece is now off the board: that
        // piece is in the hand sliding it.
        let one_in_hand = (expected & !board).count() == 1 && (board & !expected).is_empty();
        // At the mover's press, a jump that is the next mover's piece
        // sliding on in one reading, between squares the record leaves
        // empty, along its lines from the square it was lifted from: his
        // hand at work (two hands, 1.1), no plies the sensors missed.
        let slid_at_press = self.pressing
            && !unread
            && jumped_squares.count() == 2
            && (jumped_squares & expected).is_empty()
            && self.next_movers_piece_sliding_over(jumped_squares, board);
        // Nor when the "jump" was a slide's first step next door whose
        // square has emptied again (the piece slid on) and the board is a
        // move in progress: the king set down on c8 and its rook slid from
        // a8 over b8 on its way to d8 is `...O-O-O` under way (3.8), no
        // plies the sensors missed.
        let slid_on = !unread
            && jumped_squares.count() == 2
            && (jumped_squares & expected).count() == 1
            && (jumped_squares & board).is_empty()
            && jumped_squares
                .first()
                .zip(jumped_squares.last())
                .is_some_and(|(a, b)| shakmaty::attacks::king_attacks(a).contains(b))
            && self.in_progress(board);
        if jump
            && (unread || !one_in_hand)
            && !slid_at_press
            && !slid_on
            && self.explain_jump(t, board, unread)
        {
            return;
        }
        if self.in_progress(board) {
            if !jump && self.made_onto_a_filled_square(t, board) {
                return;
            }
            // The mover's pieces held, nothing else changed, for longer
            // than a hand holds a piece: a capture the sensors missed
            // stands beside the hand at work (never stuck; the next moves
            // tell). Looked at once, not for ever.
            let held = (board & !expected).is_empty() && !jump;
            match held_since {
                _ if !held => {}
                Some(since) if !changed && t >= since.saturating_add(HELD_MS) => {
                    if self.explain_missed_captures(t, board, self.config.max_missed_plies) {
                        self.held_is_a_hand_at_work();
                    }
                }
                Some(since) if !changed => self.held_since = Some(since),
                _ => self.held_since = Some(t),
            }
            return;
        }
        if self.moved_on(t, board)
            || self.moved_on_under_lifts(t, board)
            || self.taken_back(t, board)
        {
            return;
        }
        // Without a jump, a move the sensors missed (a capture whose
        // captured piece never read empty) and the reply to it.
        let missing_only = (board & !expected).is_empty();
        // (A board with pieces missing only waits for the grace first: a
        // hand may still be at work.)
        // (At the mover's press a piece set down a moment ago may be
        // sliding on.)
        let reply = if self.pressing {
            explain::Reply::Stood
        } else {
            explain::Reply::Any
        };
        if !jump && !missing_only && self.explain_missed_reply(t, board, reply) {
            return;
        }
        if missing_only {
            // The grace runs from the last change: a hand still at work
            // (the opponent answering) is not a displaced board yet.
            if self.within_grace(t, missing_since, changed) {
                return;
            }
            // Pieces gone and nothing moving: a capture the sensors missed
            // (its captured piece never read empty), perhaps answered?
            if self.explain_missed_captures(t, board, explain::MISSED_CAPTURE_PLIES) {
                return;
            }
            // ... answered by a hand still at work (a capture-promotion's
            // pawn and captured piece lifted, the new piece being
            // fetched): as a move in progress, no board displaced.
            if !jump && self.missed_capture_then_in_progress(board) {
                // Never stuck: the players may have played on past it,
                // the last plies seen made.
                let lines = self.played_on_after_unseen_plies(&self.game.position().clone(), board);
                if !lines.is_empty() {
                    self.hypothesise(t, lines);
                    return;
                }
                // Looked at again a grace after each change, not for ever
                // (a deadline that renews itself would never let time end).
                if changed || missing_since.is_none() {
                    self.missing_since = Some(t);
                }
                return;
            }
        }
        // At the mover's press, before the board is called displaced: a
        // capture quicker than one scan under the next mover's hand.
        if self.pressing && self.made_unseen_under_lifts(t, board) {
            return;
        }
        // Never stuck: what looks like an illegal move were plies nobody
        // saw, and the players played on.
        if !jump {
            let pos = self.game.position().clone();
            let mut lines = self.played_on_after_unseen_plies(&pos, board);
            if self.pressing {
                // At a press, a line's last piece set down a moment ago
                // on an empty square may be sliding on (the next mover's
                // hand, 1.1): the plies before it stand beside.
                self.add_unsettled_prefixes(t, &pos, &mut lines, false);
            }
            if !lines.is_empty() {
                self.hypothesise(t, lines);
                return;
            }
            // A capture the sensors missed, and the reply in progress (the
            // king set down, the rook still in the hand): a hand at work,
            // no illegal move yet (certainty first), for as long as
            // pieces only missing may be.
            // (Pieces only missing were looked at above.)
            if !missing_only
                && self.missed_capture_then_in_progress(board)
                && self.within_grace(t, missing_since, changed)
            {
                return;
            }
            // A capture quicker than a scan, answered, and the next
            // mover's hand at work already: no illegal move yet.
            let at_work = self.missed_reply_then_hand_at_work(&pos, board);
            if !at_work.is_empty() {
                self.hypothesise_with_longer(t, Vec::new(), Vec::new(), at_work);
                return;
            }
        }

        self.unexplained(t, board);
    }

    /// Whether `t` is within [`MISSING_GRACE_MS`] of the last change (or
    /// of `missing_since`, when the board has not changed since): the
    /// board is looked at again when the grace runs out.
    fn within_grace(&mut self, t: Millis, missing_since: Option<Millis>, changed: bool) -> bool {
        let since = match missing_since {
            Some(since) if !changed => since,
            _ => t,
        };
        let within = t < since.saturating_add(MISSING_GRACE_MS);
        if within {
            self.missing_since = Some(since);
        }
        within
    }

    /// The one legal move the hands made whose position the board shows:
    /// made (4.6), or a promotion awaiting its piece. False when none.
    /// `swap_until`: when a capture read from a swap may be made, if one
    /// was waiting (see [`SWAP_RELEASE_MS`]).
    pub(super) fn make_what_the_hands_did(
        &mut self,
        t: Millis,
        board: Bitboard,
        jump: bool,
        unread: bool,
        swap_until: Option<Millis>,
    ) -> bool {
        let cands = self.candidates(board, false);
        let Some(m) = self.pick(&cands) else {
            return false;
        };
        if jump && (self.turn.unseen_in_one_scan(&m, unread) || !self.turn.set_down_after_lift(&m))
        {
            // Not a hand: the board jumped (see `explain_jump`), or its
            // piece stood on the square before the hand lifted it.
            return false;
        }
        // (A promotion waits for its piece's name anyway, 3.7e; the
        // press, 6.7, and the next mover's touch, 1.1, make it at once.)
        if !self.pressing
            && !self.released_by_touch
            && !jump
            && !m.is_promotion()
            && let Some(swapped) = self.turn.swapped_at(&m, self.scan_period)
        {
            // Its piece set back on its square since: the swap took
            // nothing (interference, a brush), the hand is still at work.
            if self
                .turn
                .placements
                .iter()
                .any(|(u, s)| Some(*s) == m.from() && *u > swapped)
            {
                return false;
            }
            let until = swap_until.unwrap_or_else(|| swapped.saturating_add(SWAP_RELEASE_MS));
            if t < until {
                // The board waits as it is: the capture, or a hand still
                // holding its piece.
                self.swap_until = Some(until);
                return true;
            }
        }
        // FIDE: a rook set down where its king would cross, the castling
        // still legal, may be the first half of castling made rook first
        // (4.4b): the king's lift would contradict its move. It waits (see
        // [`CASTLING_ROOK_WAIT_MS`]) unless the press or the next mover's
        // touch releases it.
        if self.profile.is_fide()
            && !self.pressing
            && !self.released_by_touch
            && !jump
            && let Some(set) = self.castling_rook_set_at(&m, t)
        {
            let until = swap_until.unwrap_or_else(|| set.saturating_add(CASTLING_ROOK_WAIT_MS));
            if t < until {
                self.swap_until = Some(until);
                return true;
            }
        }
        if m.is_promotion() {
            self.promotion_on_board(t, &m);
        } else {
            self.make_move(t, m);
        }
        true
    }

    /// The board shows a legal move's position exactly, but its square was
    /// read filled before its piece left (see `set_down_before_it_left`):
    /// a piece stood there already (a sensor stuck closed, a piece left
    /// there by an earlier irregularity) and the move's piece may be in the
    /// hand. Quiet for as long as a hand holds a piece ([`FILLED_FIRST_MS`]
    /// from its lift), the move is what the board shows: it is recorded,
    /// marked as inferred (never stuck). Returns whether the board waits
    /// for that or the move was made.
    fn made_onto_a_filled_square(&mut self, t: Millis, board: Bitboard) -> bool {
        let cands = self.candidates(board, true);
        let Some(m) = self.pick(&cands) else {
            return false;
        };
        let Some((from, _)) = to_an_empty_square(&m) else {
            return false;
        };
        if !self.set_down_before_it_left(&m) {
            return false;
        }
        let Some(lifted) = self.turn.last_lift(from) else {
            return false;
        };
        let until = lifted.saturating_add(FILLED_FIRST_MS);
        if t < until {
            self.swap_until = Some(until);
        } else {
            self.adopt(t, vec![m]);
        }
        true
    }

    /// When the rook of `m` was set down, if `m` moves a rook to the square
    /// its king crosses in a castling legal now (the rook's half of it).
    fn castling_rook_set_at(&self, m: &Move, t: Millis) -> Option<Millis> {
        let &Move::Normal {
            role: Role::Rook,
            from,
            to,
            capture: None,
            ..
        } = m
        else {
            return None;
        };
        let pos = self.game.position();
        let side = pos.turn();
        pos.legal_moves().iter().find_map(|c| match *c {
            Move::Castle { king, rook }
                if rook == from
                    && shakmaty::CastlingSide::from_king_side(king < rook).rook_to(side) == to =>
            {
                Some(self.turn.placed_at[to as usize].unwrap_or(t))
            }
            _ => None,
        })
    }

    /// The pieces on the board stand: `piece_placed` for each square
    /// reached since the last settle. Returns whether anything changed.
    fn settle_placed(&mut self, t: Millis) -> bool {
        let board = self.board;
        let changed = board != self.stable || self.lifted_since_stable.any();
        let placed = board & (self.lifted_since_stable | !self.stable);
        for sq in placed {
            self.emit(t, EventKind::PiecePlaced { square: sq });
        }
        self.stable = board;
        self.lifted_since_stable = Bitboard::EMPTY;
        changed
    }

    fn new_game(&mut self, t: Millis) {
        self.game = Game::new(self.start.clone(), self.profile);
        self.started = true;
        self.turn = TurnHands::default();
        self.jump_in_hand = false;
        self.lines_dropped_on = None;
        // (Boards of the last game are no boards of this one.)
        self.held_boards.clear();
        self.raw_jumps.clear();
        self.awaiting_press = None;
        self.unpressed = None;
        self.missed_press = None;
        self.pressed_before_made = None;
        self.pending = None;
        self.last_move = None;
        self.promotion = None;
        self.promotion_choice = None;
        self.alert = Alert::None;
        self.knocked_under_lines = None;
        self.emit(
            t,
            EventKind::GameStarted {
                fen: self.game.fen(),
                profile: Some(self.profile.name().to_owned()),
            },
        );
    }

    fn restored(&mut self, t: Millis) {
        let fen = self.game.fen();
        self.restored_to(t, fen);
    }

    /// The board shows `fen` again, the position it was reported
    /// displaced from (the record's, or an open line's).
    fn restored_to(&mut self, t: Millis, fen: String) {
        self.turn.restored_at = Some(t);
        self.alert = Alert::None;
        self.jump_in_hand = false;
        self.lines_dropped_on = None;
        self.knocked_under_lines = None;
        self.emit(t, EventKind::Restored { fen });
    }

    fn displaced(&mut self, t: Millis, squares: Vec<Square>, candidates: Vec<String>) {
        let expected = self.game.position().clone();
        self.displaced_from(t, &expected, squares, candidates);
    }

    /// `side`, having the move (in the record, or under every open
    /// line), released his piece from `from` on `to`, where no legal move
    /// takes it (7.5, not completed): reported once, until the board
    /// changes it.
    fn illegal_not_completed(
        &mut self,
        t: Millis,
        side: Color,
        from: Option<Square>,
        to: Option<Square>,
    ) {
        let alert = Alert::Illegal { from, to };
        if self.alert == alert {
            return;
        }
        self.alert = alert;
        let count = self.game.illegal_moves(side);
        self.emit(
            t,
            EventKind::IllegalMove {
                side: Side::from(side),
                completed: false,
                from,
                to,
                count,
                article: Some(self.profile.illegal_move_article().to_owned()),
            },
        );
    }

    /// The board differs from `expected` (the record's position, or an
    /// open line's) on `squares` (7.3, 7.5).
    fn displaced_from(
        &mut self,
        t: Millis,
        expected: &Chess,
        squares: Vec<Square>,
        candidates: Vec<String>,
    ) {
        if !matches!(self.alert, Alert::Displaced(_)) {
            self.displaced_missing = Bitboard::EMPTY;
        }
        self.displaced_missing |=
            squares.iter().copied().collect::<Bitboard>() & expected.board().occupied();
        self.alert = Alert::Displaced(squares.clone());
        self.listed_candidates = candidates.clone();
        let expected_fen = crate::game::fen_of(expected);
        self.emit(
            t,
            EventKind::Displaced {
                squares,
                expected_fen,
                candidates,
            },
        );
    }

    /// The move is made (4.6): checked against touch-move, recorded.
    fn make_move(&mut self, t: Millis, m: Move) {
        self.held_boards.clear();
        self.raw_jumps.clear();
        let before = self.game.position().clone();
        let side = before.turn();
        // Touches from the moment the move's pieces stood where it puts
        // them: the move was made then (4.6), so they cannot bind it (the
        // next mover's hand taking a piece to capture, or an adjustment).
        let made_at = arrival_squares(&before, &m)
            .into_iter()
            .filter_map(|s| self.turn.placed_at[s as usize])
            .max();
        let touches: Vec<Touch> = self
            .turn
            .touches
            .iter()
            .copied()
            .filter(|x| made_at.is_none_or(|made| x.at < made))
            .collect();
        if self.profile.is_fide()
            && let Some(breach) = touch::check(&before, &touches, &m)
        {
            self.emit(
                t,
                EventKind::TouchMove {
                    side: side.into(),
                    article: breach.article.to_owned(),
                    square: breach.square,
                },
            );
        }
        let played = match self.game.play(&m, t) {
            Ok(p) => p,
            Err(_) => return,
        };
        if !self.inferring {
            self.missed_press = None;
        }
        self.unpressed = self
            .awaiting_press
            .take()
            .map(|ply| (ply, self.game.moves()[ply - 1].side));
        let record = &self.game.moves()[played.ply - 1];
        let event = EventKind::Move {
            ply: played.ply,
            side: side.into(),
            san: record.san.to_string(),
            uci: record.uci.to_string(),
            fen: self.game.fen(),
            inferred: self.inferring,
        };
        self.emit(t, event);
        self.turn = TurnHands::default();
        self.jump_in_hand = false;
        self.lines_dropped_on = None;
        self.adjusting = false;
        self.promotion = None;
        self.promotion_choice = None;
        self.alert = Alert::None;
        self.knocked_under_lines = None;
        self.last_move = Some(LastMove { before, mv: m });
        for claim in played.claimable {
            self.emit(
                t,
                EventKind::DrawClaimable {
                    reason: claim.name().to_owned(),
                },
            );
        }
        if let Some(end) = played.end {
            self.emit(t, EventKind::MoveCompleted { ply: played.ply });
            self.game_over(t, end);
        } else if self.config.completion == Completion::Settle
            || self.pressed_before_made.take() == Some(played.ply)
        {
            self.awaiting_press = None;
            self.emit(t, EventKind::MoveCompleted { ply: played.ply });
        } else {
            self.awaiting_press = Some(played.ply);
        }
    }
}

/// One square opened and its neighbour closed in one scan: a piece slid
/// onto the neighbouring square (the first square any slide reaches, a
/// knight's included), its magnet closing that switch as the one it leaves
/// opens — at a board's scan rate often within one scan. A hand may have
/// done it: the board still counts as jumped for the lines it opens, but
/// not as unread (the next mover's lift may release a move).
fn slid_next_door(a: &SettledChange, b: &SettledChange) -> bool {
    let lifted = |c: &SettledChange| matches!(c.change, SquareChange::Lifted);
    lifted(a) != lifted(b) && shakmaty::attacks::king_attacks(a.square).contains(b.square)
}

/// The squares with a time in `times` (per square, a1 first).
fn squares_at(times: &[Option<Millis>; 64]) -> Bitboard {
    Square::ALL
        .into_iter()
        .filter(|sq| times[*sq as usize].is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    /// `...a5-a4` then `Qa3xa4` from a position with White's queen on a3.
    fn pawn_then_capture() -> (Chess, Vec<Move>) {
        let pos: Chess = "4k3/8/8/p7/8/Q7/8/4K3 b - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut p = pos.clone();
        let plies: Vec<Move> = ["a5a4", "a3a4"]
            .iter()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&p).unwrap();
                p.play_unchecked(m);
                m
            })
            .collect();
        (pos, plies)
    }

    #[test]
    fn a_piece_read_arriving_and_never_leaving_was_not_captured() {
        let (pos, plies) = pawn_then_capture();
        let mut hands = TurnHands::default();
        hands.removals.push((100, Square::A5));
        hands.placements.push((300, Square::A4));
        assert!(hands.captures_a_piece_never_read_leaving(&pos, &plies));
        // An older piece set down and taken away there long before.
        hands.placements.insert(0, (10, Square::A4));
        hands.removals.insert(0, (10, Square::A4));
        assert!(hands.captures_a_piece_never_read_leaving(&pos, &plies));
    }

    #[test]
    fn a_piece_read_arriving_as_the_capturing_piece_left_may_be_the_capturing_one() {
        let (pos, plies) = pawn_then_capture();
        let mut hands = TurnHands::default();
        // a5 and a3 empty, a4 filled, in one reading: the pawn's arrival
        // and the queen's capture both unread.
        hands.removals.push((300, Square::A5));
        hands.removals.push((300, Square::A3));
        hands.placements.push((300, Square::A4));
        assert!(!hands.captures_a_piece_never_read_leaving(&pos, &plies));
        assert!(hands.lifted_in_order(&plies));
        // The queen lifted a reading later: the pawn stood, and stays.
        hands.removals[1] = (310, Square::A3);
        assert!(hands.captures_a_piece_never_read_leaving(&pos, &plies));
    }

    #[test]
    fn a_piece_read_leaving_before_the_capturing_piece_was_set_down_was_captured() {
        let (pos, plies) = pawn_then_capture();
        let mut hands = TurnHands::default();
        hands.removals.push((100, Square::A5));
        hands.placements.push((300, Square::A4));
        hands.removals.push((340, Square::A3));
        hands.removals.push((360, Square::A4));
        hands.placements.push((400, Square::A4));
        assert!(!hands.captures_a_piece_never_read_leaving(&pos, &plies));
    }
}
