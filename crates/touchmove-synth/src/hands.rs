//! A model of human hands over a sensor board: how pieces leave and reach
//! squares, how long people think, how they capture, castle and promote,
//! and how the sensors see it (contact bounce, slide transients, EMI).
//!
//! [`HandStyle`] says which habits a player has, with weights; a
//! [`Table`] plays the physical actions, keeps the true board, and renders
//! the raw scans.
use rand::{RngExt, SeedableRng, rngs::StdRng};
use shakmaty::{Bitboard, Board, File, Piece, Rank, Square, attacks};

use touchmove_core::Millis;
use touchmove_core::scan::Snapshot;
use touchmove_core::trace::{Record, TimedRecord};

/// A weighted choice among habits: each option with a positive weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix<T>(pub Vec<(T, u32)>);

impl<T: Copy + PartialEq> Mix<T> {
    /// Always the same habit.
    pub fn only(habit: T) -> Mix<T> {
        Mix(vec![(habit, 1)])
    }

    /// Every habit listed, with equal weights.
    pub fn even(habits: &[T]) -> Mix<T> {
        Mix(habits.iter().map(|&h| (h, 1)).collect())
    }

    /// Picks one habit by weight; falls back to `fallback` when none has weight.
    pub fn pick(&self, rng: &mut StdRng, fallback: T) -> T {
        let total: u32 = self.0.iter().map(|(_, w)| w).sum();
        if total == 0 {
            return fallback;
        }
        let mut n = rng.random_range(0..total);
        for &(habit, w) in &self.0 {
            if n < w {
                return habit;
            }
            n -= w;
        }
        fallback
    }

    /// Whether the habit can be picked at all.
    pub fn allows(&self, habit: T) -> bool {
        self.0.iter().any(|&(h, w)| h == habit && w > 0)
    }
}

/// How a piece travels from one square to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Travel {
    /// Lifted, carried through the air, set down.
    Carry,
    /// Slid along the board: short blips on the empty squares passed over.
    Slide,
}

/// The order of hands in an ordinary capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureOrder {
    /// The captured piece is taken off first, then the own piece moved.
    CapturedFirst,
    /// The own piece is lifted, the captured one removed while holding it, then placed.
    OwnFirst,
    /// The capturing piece pushes the captured one off its square
    /// (the square is empty for only 10–60 ms).
    PushOff,
}

/// The order of hands in castling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastlingOrder {
    /// King to its square and released, then the rook (Article 4.4a).
    KingFirst,
    /// King lifted, then the rook while holding it; both set down in either order.
    BothLifted,
    /// Rook first, then the king: a casual habit. Under the FIDE Laws this
    /// touches the rook first and forbids castling (Article 4.4b), so only
    /// casual styles use it.
    RookFirst,
}

/// The order of hands in an en passant capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnPassantOrder {
    /// The captured pawn is removed first.
    CapturedFirst,
    /// The own pawn is lifted, the captured one removed, then the own pawn placed.
    WhileHolding,
    /// The own pawn is placed first, the captured pawn removed last.
    CapturedLast,
}

/// How a pawn becomes a new piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromotionHands {
    /// The pawn is set down on the last rank, then removed and replaced.
    SetDownThenSwap,
    /// The pawn is carried off and the new piece placed directly.
    Direct,
}

/// When the promotion choice is entered (`promote <q|r|b|n>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromoteInput {
    /// Before the new piece is placed.
    Before,
    /// After it is placed, before the clock press.
    After,
    /// Never: only when the new piece is a queen (the default choice).
    Omitted,
    /// 50–300 ms after it is placed, whatever the other hands do
    /// meanwhile: the next mover may already hold his piece (1.1) and the
    /// mover may already have pressed his clock.
    Late,
}

/// A player's habits at the board.
#[derive(Debug, Clone, PartialEq)]
pub struct HandStyle {
    /// The name `touchmove synth --style` knows it by.
    pub name: String,
    /// The rules profile written into the trace header.
    pub profile: String,
    pub travel: Mix<Travel>,
    pub capture: Mix<CaptureOrder>,
    pub castling: Mix<CastlingOrder>,
    pub en_passant: Mix<EnPassantOrder>,
    pub promotion: Mix<PromotionHands>,
    pub promote_input: Mix<PromoteInput>,
    /// Whether a clock is pressed after every move (Article 6.7).
    pub clock: bool,
    /// Thinking time before a move, ms (from the opponent's clock press,
    /// or from the last release when there is no clock).
    pub think_ms: (Millis, Millis),
    /// Chance of a long think, and its upper bound in ms.
    pub long_think: (f64, Millis),
    /// Time a piece spends in the air when carried, ms.
    pub air_ms: (Millis, Millis),
    /// From the last release to the clock press, ms.
    pub press_ms: (Millis, Millis),
    /// Chance that a lift or a placement bounces.
    pub bounce: f64,
    /// EMI glitches (single-scan blips of 1–4 ms on random squares) per minute.
    pub glitches_per_minute: f64,
    /// Chance that a sliding piece still holds the square it leaves for
    /// 1–15 ms after reaching the next one (both read occupied at once).
    pub slide_overlap: f64,
    /// Chance that a piece set down rocks: 15–60 ms after touching the
    /// square it leaves it again for 5–40 ms, then settles.
    pub wobble: f64,
    /// Chance that a carried piece brushes an empty square next to its
    /// target for 10–80 ms before landing.
    pub brush: f64,
    /// Chance that the player lifts the piece he will move, puts it back on
    /// its square, thinks again, then moves it (a touch, Article 4.3a, honoured).
    pub hesitate: f64,
    /// Pause between two actions of one move (a capture: the captured piece
    /// off, the own piece on; castling: the king, then the rook), ms.
    pub between_ms: (Millis, Millis),
    /// Chance per move that the next mover reaches for his piece before the
    /// previous mover has pressed the clock. He has the move as soon as the
    /// opponent's move is made, that is released (Articles 1.1, 4.6), not
    /// when the clock is pressed (6.7); fast players use it. Only with a
    /// clock.
    pub grab: f64,
    /// For a grabbing player: from the previous move's last release to his
    /// first lift, ms (no thinking time).
    pub reaction_ms: (Millis, Millis),
    /// Chance per move of a nudge while the mover thinks: a piece of either
    /// colour, not one of the coming move, brushed or straightened without
    /// being lifted. Its square reads empty for a moment; it is no touch
    /// (Article 4.3 binds only a deliberate touch; 4.2 allows adjusting).
    pub nudge: f64,
    /// How long a nudged piece's square reads empty, ms.
    pub nudge_ms: (Millis, Millis),
}

impl Default for HandStyle {
    fn default() -> Self {
        HandStyle::random()
    }
}

impl HandStyle {
    /// The names [`HandStyle::by_name`] knows.
    pub const NAMES: [&'static str; 9] = [
        "random",
        "carry",
        "slide",
        "careful",
        "blitz",
        "casual",
        "blitz-hands",
        "bullet",
        "nudges",
    ];

    /// How often the fast and fidgety hands (`blitz-hands`, `bullet`,
    /// `nudges`) slide a piece with its magnet closing the square it
    /// reaches before it opens the one it leaves.
    pub const OVERLAP_OF_FAST_HANDS: f64 = 0.15;

    /// Every habit a FIDE player may have, chosen per move (no rook-first castling).
    pub fn random() -> HandStyle {
        HandStyle {
            name: "random".into(),
            profile: "fide-standard".into(),
            travel: Mix(vec![(Travel::Carry, 3), (Travel::Slide, 2)]),
            capture: Mix::even(&[
                CaptureOrder::CapturedFirst,
                CaptureOrder::OwnFirst,
                CaptureOrder::PushOff,
            ]),
            castling: Mix::even(&[CastlingOrder::KingFirst, CastlingOrder::BothLifted]),
            en_passant: Mix::even(&[
                EnPassantOrder::CapturedFirst,
                EnPassantOrder::WhileHolding,
                EnPassantOrder::CapturedLast,
            ]),
            promotion: Mix::even(&[PromotionHands::SetDownThenSwap, PromotionHands::Direct]),
            promote_input: Mix::even(&[
                PromoteInput::Before,
                PromoteInput::After,
                PromoteInput::Omitted,
            ]),
            clock: true,
            think_ms: (300, 20_000),
            long_think: (0.03, 120_000),
            air_ms: (150, 1500),
            press_ms: (150, 2500),
            bounce: 0.7,
            glitches_per_minute: 0.5,
            wobble: 0.08,
            slide_overlap: 0.0,
            brush: 0.05,
            hesitate: 0.04,
            between_ms: (100, 700),
            grab: 0.0,
            reaction_ms: (150, 350),
            nudge: 0.0,
            nudge_ms: (20, 100),
        }
    }

    /// Always carries pieces through the air.
    pub fn carry() -> HandStyle {
        HandStyle {
            name: "carry".into(),
            travel: Mix::only(Travel::Carry),
            ..HandStyle::random()
        }
    }

    /// Always slides pieces along the board, and pushes captured pieces off.
    pub fn slide() -> HandStyle {
        HandStyle {
            name: "slide".into(),
            travel: Mix::only(Travel::Slide),
            capture: Mix(vec![
                (CaptureOrder::PushOff, 3),
                (CaptureOrder::CapturedFirst, 1),
            ]),
            ..HandStyle::random()
        }
    }

    /// A tidy player: captured pieces first, king first, pieces carried, no glitches.
    pub fn careful() -> HandStyle {
        HandStyle {
            name: "careful".into(),
            travel: Mix::only(Travel::Carry),
            capture: Mix::only(CaptureOrder::CapturedFirst),
            castling: Mix::only(CastlingOrder::KingFirst),
            en_passant: Mix::only(EnPassantOrder::CapturedFirst),
            promotion: Mix::only(PromotionHands::Direct),
            bounce: 0.3,
            glitches_per_minute: 0.0,
            wobble: 0.0,
            brush: 0.0,
            ..HandStyle::random()
        }
    }

    /// Fast hands: short thinks, short air times, quick presses, more bounce.
    pub fn blitz() -> HandStyle {
        HandStyle {
            name: "blitz".into(),
            profile: "fide-blitz".into(),
            think_ms: (300, 4000),
            long_think: (0.01, 15_000),
            air_ms: (150, 500),
            press_ms: (150, 600),
            bounce: 0.9,
            ..HandStyle::random()
        }
    }

    /// A casual player: every habit including rook-first castling, casual profile.
    pub fn casual() -> HandStyle {
        HandStyle {
            name: "casual".into(),
            profile: "casual".into(),
            castling: Mix::even(&[
                CastlingOrder::KingFirst,
                CastlingOrder::BothLifted,
                CastlingOrder::RookFirst,
            ]),
            ..HandStyle::random()
        }
    }

    /// Blitz hands: the next mover often grabs his piece (or the piece he
    /// captures, even the one just moved) as soon as the opponent's piece is
    /// released, before the opponent's clock press (Articles 1.1, 4.6, 6.7);
    /// quick captures, short thinks.
    pub(crate) fn blitz_hands() -> HandStyle {
        HandStyle {
            name: "blitz-hands".into(),
            profile: "fide-blitz".into(),
            think_ms: (200, 3000),
            long_think: (0.01, 10_000),
            air_ms: (120, 400),
            press_ms: (100, 600),
            between_ms: (40, 300),
            grab: 0.6,
            slide_overlap: Self::OVERLAP_OF_FAST_HANDS,
            reaction_ms: (150, 350),
            bounce: 0.9,
            hesitate: 0.02,
            ..HandStyle::random()
        }
    }

    /// Bullet hands: most moves grabbed before the opponent's press
    /// (Articles 1.1, 4.6), captures in some 60 ms, presses within 50–400
    /// ms of the release, thinks of at most 1.5 s.
    pub fn bullet() -> HandStyle {
        HandStyle {
            name: "bullet".into(),
            profile: "fide-blitz".into(),
            think_ms: (0, 1500),
            long_think: (0.0, 1500),
            air_ms: (100, 300),
            press_ms: (50, 400),
            between_ms: (20, 60),
            grab: 0.8,
            slide_overlap: Self::OVERLAP_OF_FAST_HANDS,
            reaction_ms: (100, 250),
            bounce: 0.9,
            hesitate: 0.01,
            ..HandStyle::random()
        }
    }

    /// Like [`HandStyle::random`], with a piece nudged (its square empty for
    /// 20–100 ms, the piece not lifted) during every other think.
    pub fn nudges() -> HandStyle {
        HandStyle {
            name: "nudges".into(),
            nudge: 0.5,
            slide_overlap: Self::OVERLAP_OF_FAST_HANDS,
            ..HandStyle::random()
        }
    }

    /// The style called `name` (see [`HandStyle::NAMES`]).
    pub fn by_name(name: &str) -> Option<HandStyle> {
        Some(match name {
            "random" => HandStyle::random(),
            "carry" => HandStyle::carry(),
            "slide" => HandStyle::slide(),
            "careful" => HandStyle::careful(),
            "blitz" => HandStyle::blitz(),
            "casual" => HandStyle::casual(),
            "blitz-hands" => HandStyle::blitz_hands(),
            "bullet" => HandStyle::bullet(),
            "nudges" => HandStyle::nudges(),
            _ => return None,
        })
    }

    /// The same style without a clock.
    pub fn without_clock(mut self) -> HandStyle {
        self.clock = false;
        self
    }

    /// The same style with clean sensors and steady hands: no bounce, no
    /// wobble, brushing or nudges, no overlapping slides, no EMI glitches
    /// (the hands' habits stay).
    pub fn noiseless(mut self) -> HandStyle {
        self.bounce = 0.0;
        self.wobble = 0.0;
        self.brush = 0.0;
        self.slide_overlap = 0.0;
        self.nudge = 0.0;
        self.glitches_per_minute = 0.0;
        self
    }

    /// The same style without EMI glitches.
    pub fn without_glitches(mut self) -> HandStyle {
        self.glitches_per_minute = 0.0;
        self
    }
}

/// A piece nudged while a player thought: its square read empty from `off`
/// to `on` (then occupied again, perhaps with contact bounce); the piece
/// stayed where it stood. No touch and no alert (Articles 4.2, 4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nudge {
    pub square: Square,
    pub off: Millis,
    pub on: Millis,
}

/// The physical table: the true board, the hands' clock, and what each
/// sensor reported.
pub(crate) struct Table {
    pub rng: StdRng,
    /// Now, in trace time.
    pub t: Millis,
    /// What stands on the board.
    pub board: Board,
    initial: Bitboard,
    /// Per square: the raw sensor value from each time on.
    tracks: Vec<Vec<(Millis, bool)>>,
    buttons: Vec<TimedRecord>,
    /// What an ideal sensor (no bounce, no EMI) sees, after every change.
    pub timeline: Vec<(Millis, Snapshot)>,
    /// Windows with no scans at all (no glitches either).
    blackouts: Vec<(Millis, Millis)>,
    /// When EMI glitches start (they never overlap).
    glitches: Vec<Millis>,
    bounce: f64,
    wobble: f64,
    overlap: f64,
    brush: f64,
    /// The time of the last change on the board (bounce aside).
    pub last_change: Millis,
    /// The latest clock press placed, which may lie ahead of `t` when the
    /// next mover's hands are already at work.
    pub last_press: Option<Millis>,
    /// Every nudge, in order.
    pub nudges: Vec<Nudge>,
}

impl Table {
    pub fn new(board: Board, style: &HandStyle, seed: u64) -> Table {
        let initial = board.occupied();
        Table {
            rng: StdRng::seed_from_u64(seed),
            t: 0,
            timeline: vec![(0, Snapshot::of_board(&board))],
            board,
            initial,
            tracks: vec![Vec::new(); 64],
            buttons: Vec::new(),
            blackouts: Vec::new(),
            glitches: Vec::new(),
            bounce: style.bounce,
            wobble: style.wobble,
            overlap: style.slide_overlap,
            brush: style.brush,
            last_change: 0,
            last_press: None,
            nudges: Vec::new(),
        }
    }

    /// A uniformly chosen duration in `lo..=hi` ms.
    pub fn ms(&mut self, (lo, hi): (Millis, Millis)) -> Millis {
        self.rng.random_range(lo..=hi.max(lo))
    }

    /// Lets time pass.
    pub fn wait(&mut self, range: (Millis, Millis)) {
        self.t += self.ms(range);
    }

    /// Chance `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p.clamp(0.0, 1.0))
    }

    fn snapshot(&mut self) {
        self.last_change = self.t;
        let snap = Snapshot::of_board(&self.board);
        match self.timeline.last_mut() {
            Some((t, last)) if *t == self.t => *last = snap,
            _ => self.timeline.push((self.t, snap)),
        }
    }

    /// The sensor of `sq` turns to `value` at time `t`, bouncing if `bounce`.
    fn sense(&mut self, sq: Square, t: Millis, value: bool, bounce: bool) {
        let toggles = if bounce && self.chance(self.bounce) {
            self.rng.random_range(1..=2)
        } else {
            0
        };
        let track = &mut self.tracks[usize::from(sq)];
        // A newer change wins over the tail of an older one's bounce.
        while track.last().is_some_and(|&(u, _)| u >= t) {
            track.pop();
        }
        track.push((t, value));
        let mut u = t;
        for _ in 0..toggles {
            u += self.rng.random_range(1..=3);
            track.push((u, !value));
            u += self.rng.random_range(1..=3);
            track.push((u, value));
        }
    }

    /// A piece leaves `sq` (lifted, or pushed off); it is now in a hand.
    pub fn lift(&mut self, sq: Square) -> Piece {
        let piece = self
            .board
            .remove_piece_at(sq)
            .expect("the hand lifts a piece that stands there");
        self.sense(sq, self.t, false, true);
        self.snapshot();
        piece
    }

    /// A piece is set down on the empty square `sq`.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(self.board.piece_at(sq).is_none(), "{sq} is empty");
        self.board.set_piece_at(sq, piece);
        self.sense(sq, self.t, true, true);
        self.snapshot();
        if self.chance(self.wobble) {
            self.wait((15, 60));
            self.board.discard_piece_at(sq);
            self.sense(sq, self.t, false, false);
            self.snapshot();
            self.wait((5, 40));
            self.board.set_piece_at(sq, piece);
            self.sense(sq, self.t, true, true);
            self.snapshot();
        }
    }

    /// A button press or a promotion choice at the current time.
    pub fn button(&mut self, record: Record) {
        self.button_at(self.t, record);
    }

    /// A button press or a promotion choice at time `t`, which may lie ahead
    /// of the hands' time (a clock press while the other player already
    /// moves). Only buttons are ever placed ahead; the squares' time goes on
    /// from `t`.
    pub(crate) fn button_at(&mut self, t: Millis, record: Record) {
        if matches!(record, Record::Clock(_)) {
            self.last_press = Some(self.last_press.map_or(t, |p| p.max(t)));
        }
        self.buttons.push(TimedRecord { t, record });
    }

    /// When `side` last pressed its clock, if it did.
    pub(crate) fn last_press_of(&self, side: shakmaty::Color) -> Option<Millis> {
        self.buttons
            .iter()
            .filter(|b| b.record == Record::Clock(side))
            .map(|b| b.t)
            .max()
    }

    /// The earliest time not before `t` that comes `gap` ms after the
    /// latest clock press.
    pub(crate) fn after_press(&self, t: Millis, gap: Millis) -> Millis {
        self.last_press.map_or(t, |p| t.max(p + gap))
    }

    /// The hands wait for the latest clock press, if it is still ahead.
    pub fn settle(&mut self) {
        self.t = self.after_press(self.t, 0);
    }

    /// The piece on `sq` is nudged: the square reads empty for `len` ms, then
    /// occupied again (perhaps bouncing); the piece does not move.
    pub fn nudge(&mut self, sq: Square, len: Millis) {
        let piece = self
            .board
            .remove_piece_at(sq)
            .expect("a nudged piece stands there");
        let off = self.t;
        self.sense(sq, off, false, false);
        self.snapshot();
        self.t += len;
        self.board.set_piece_at(sq, piece);
        self.sense(sq, self.t, true, true);
        self.snapshot();
        self.nudges.push(Nudge {
            square: sq,
            off,
            on: self.t,
        });
    }

    /// The board jumps to `target` in one scan, after `gap` ms with no scans.
    pub fn jump(&mut self, target: &Board, gap: Millis) {
        let start = self.t;
        self.t += gap;
        self.blackouts.push((start, self.t));
        for sq in self.board.occupied() ^ target.occupied() {
            let value = target.occupied().contains(sq);
            self.sense(sq, self.t, value, false);
        }
        self.board = target.clone();
        self.snapshot();
    }

    /// Moves a piece from `from` to `to`, carried or slid. If `to` is
    /// occupied, the piece there is pushed off the board on arrival.
    pub fn travel(&mut self, from: Square, to: Square, travel: Travel, air: (Millis, Millis)) {
        if travel == Travel::Slide {
            self.slide(from, to, air);
        } else {
            let piece = self.lift(from);
            self.travel_held(piece, from, to, air);
        }
    }

    /// Carries the held `piece` (lifted from `from`) to `to` through the
    /// air. If `to` is occupied, the piece there is pushed off on arrival.
    pub fn travel_held(&mut self, piece: Piece, from: Square, to: Square, air: (Millis, Millis)) {
        self.travel_held_avoiding(piece, to, air, Bitboard::from(from));
    }

    /// [`Table::travel_held`], never brushing the squares of `avoid`.
    pub(crate) fn travel_held_avoiding(
        &mut self,
        piece: Piece,
        to: Square,
        air: (Millis, Millis),
        avoid: Bitboard,
    ) {
        self.wait(air);
        if self.chance(self.brush) {
            let near: Vec<Square> = (attacks::king_attacks(to) & !self.board.occupied() & !avoid)
                .into_iter()
                .collect();
            if !near.is_empty() {
                let sq = near[self.rng.random_range(0..near.len())];
                self.board.set_piece_at(sq, piece);
                self.sense(sq, self.t, true, false);
                self.snapshot();
                self.wait((10, 80));
                self.board.discard_piece_at(sq);
                self.sense(sq, self.t, false, false);
                self.snapshot();
                self.wait((20, 150));
            }
        }
        self.arrive(to, piece);
    }

    /// The piece reaches `to`, pushing off whatever stands there (the
    /// square is empty for 10–60 ms).
    fn arrive(&mut self, to: Square, piece: Piece) {
        if self.board.piece_at(to).is_some() {
            self.lift(to);
            self.wait((10, 60));
        }
        self.put(to, piece);
    }

    /// Slides the piece on `from` along the board to `to`: each empty square
    /// passed over blips for 10–80 ms (occupied ones stay occupied). With
    /// the `slide_overlap` chance the magnet still holds `from` for 1–15 ms
    /// after it reaches the next square.
    fn slide(&mut self, from: Square, to: Square, air: (Millis, Millis)) {
        enum Step {
            Leave,
            On(Square),
            Off(Square),
            Arrive,
        }
        let piece = self.board.piece_at(from).expect("a piece to slide");
        let total = self.ms(air);
        let path = slide_path(from, to, &mut self.rng);
        let step = (total / (path.len() as Millis + 1)).max(40);
        let start = self.t;
        let mut steps: Vec<(Millis, Step)> = Vec::new();
        let mut first_on: Option<(Millis, Square)> = None;
        for (i, &sq) in path.iter().enumerate() {
            if self.board.piece_at(sq).is_some() {
                continue;
            }
            let centre = start + step * (i as Millis + 1);
            let blip = self.rng.random_range(10..=80.min(step - 5));
            first_on.get_or_insert((centre - blip / 2, sq));
            steps.push((centre - blip / 2, Step::On(sq)));
            steps.push((centre - blip / 2 + blip, Step::Off(sq)));
        }
        let end = start + step * (path.len() as Millis + 1);
        let captures = self.board.piece_at(to).is_some();
        // The magnet can only still hold `from` while the piece already
        // covers a square next to it: a piece cannot stand on two squares
        // apart. (The chance is still drawn, so only the hands after such a
        // slide change.)
        let next_door = |sq: Square| attacks::king_attacks(from).contains(sq);
        let leave = match first_on {
            Some((t, sq)) if self.chance(self.overlap) && next_door(sq) => {
                t + self.rng.random_range(1..=15)
            }
            None if !captures && self.chance(self.overlap) && next_door(to) => {
                end + self.rng.random_range(1..=15)
            }
            _ => start,
        };
        steps.push((leave, Step::Leave));
        steps.push((end, Step::Arrive));
        // Leaving before the first blip ends; arriving after everything else.
        steps.sort_by_key(|(t, s)| (*t, matches!(s, Step::Arrive)));
        for (t, action) in steps {
            self.t = self.t.max(t);
            match action {
                Step::Leave => {
                    self.lift(from);
                }
                Step::On(sq) => {
                    self.board.set_piece_at(sq, piece);
                    self.sense(sq, self.t, true, false);
                    self.snapshot();
                }
                Step::Off(sq) => {
                    self.board.discard_piece_at(sq);
                    self.sense(sq, self.t, false, false);
                    self.snapshot();
                }
                Step::Arrive => self.arrive(to, piece),
            }
        }
    }

    /// Renders the raw scans, with EMI glitches, and merges the buttons.
    pub fn render(
        mut self,
        glitches_per_minute: f64,
    ) -> (Vec<TimedRecord>, Vec<(Millis, Snapshot)>) {
        let end = self.t;
        let expected = end as f64 / 60_000.0 * glitches_per_minute;
        let mut count = expected.floor() as usize;
        if self.chance(expected.fract()) {
            count += 1;
        }
        for _ in 0..count {
            self.glitch(end);
        }
        let mut changes: Vec<(Millis, Square, bool)> = Vec::new();
        for (i, track) in self.tracks.iter().enumerate() {
            let sq = Square::new(i as u32);
            changes.extend(track.iter().map(|&(t, v)| (t, sq, v)));
        }
        changes.sort_by_key(|&(t, _, _)| t);
        let mut records = vec![TimedRecord {
            t: 0,
            record: Record::Occupancy(self.initial),
        }];
        let mut occ = self.initial;
        let mut written = self.initial;
        let mut i = 0;
        while i < changes.len() {
            let t = changes[i].0;
            while i < changes.len() && changes[i].0 == t {
                let (_, sq, v) = changes[i];
                occ.set(sq, v);
                i += 1;
            }
            if occ != written {
                records.push(TimedRecord {
                    t,
                    record: Record::Occupancy(occ),
                });
                written = occ;
            }
        }
        // Buttons come after the scans of the same millisecond.
        records.extend(self.buttons);
        records.sort_by_key(|r| r.t);
        (records, self.timeline)
    }

    /// One EMI blip on a random square, away from every other change.
    fn glitch(&mut self, end: Millis) {
        if end < 1000 {
            return;
        }
        let t = self.rng.random_range(500..end);
        let len = self.rng.random_range(1..=4);
        if self
            .blackouts
            .iter()
            .any(|&(a, b)| t + len + 25 >= a && t <= b + 25)
        {
            return;
        }
        if self
            .glitches
            .iter()
            .any(|&g| g + 30 >= t && g <= t + len + 30)
        {
            return;
        }
        let sq = self.rng.random_range(0..64usize);
        let track = &mut self.tracks[sq];
        if track.iter().any(|&(u, _)| u + 25 >= t && u <= t + len + 25) {
            return;
        }
        let at = track.partition_point(|&(u, _)| u < t);
        let value = if at == 0 {
            self.initial.contains(Square::new(sq as u32))
        } else {
            track[at - 1].1
        };
        track.insert(at, (t, !value));
        track.insert(at + 1, (t + len, value));
        self.glitches.push(t);
    }
}

/// The squares a sliding piece passes over between `from` and `to`
/// (excluding both). A knight slides along one leg of its L, then across.
pub(crate) fn slide_path(from: Square, to: Square, rng: &mut StdRng) -> Vec<Square> {
    let between = attacks::between(from, to);
    let (df, dr) = (
        i32::from(to.file()) - i32::from(from.file()),
        i32::from(to.rank()) - i32::from(from.rank()),
    );
    let aligned = df == 0 || dr == 0 || df.abs() == dr.abs();
    let mut path: Vec<Square> = if aligned {
        between.into_iter().collect()
    } else {
        // Not on a line (a knight): go along one axis first, then the other.
        let mut squares = Vec::new();
        let (mut f, mut r) = (i32::from(from.file()), i32::from(from.rank()));
        let files_first = rng.random_bool(0.5);
        for axis in [files_first, !files_first] {
            let (steps, d) = if axis {
                (df.abs(), df.signum())
            } else {
                (dr.abs(), dr.signum())
            };
            for _ in 0..steps {
                if axis {
                    f += d;
                } else {
                    r += d;
                }
                squares.push(Square::from_coords(
                    File::new(f as u32),
                    Rank::new(r as u32),
                ));
            }
        }
        squares.pop(); // the last one is `to`
        squares
    };
    // `between` is in square order; the hand goes from `from` outwards.
    path.sort_by_key(|sq| sq.distance(from));
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> StdRng {
        StdRng::seed_from_u64(1)
    }

    #[test]
    fn lines_slide_over_the_squares_between_in_order() {
        let path = slide_path(Square::A1, Square::A5, &mut rng());
        assert_eq!(path, vec![Square::A2, Square::A3, Square::A4]);
        let path = slide_path(Square::H8, Square::E5, &mut rng());
        assert_eq!(path, vec![Square::G7, Square::F6]);
        assert!(slide_path(Square::E2, Square::E3, &mut rng()).is_empty());
    }

    #[test]
    fn knights_slide_along_one_leg_then_across() {
        let mut seen = std::collections::HashSet::new();
        let mut r = rng();
        for _ in 0..50 {
            let path = slide_path(Square::G1, Square::F3, &mut r);
            assert_eq!(path.len(), 2);
            assert!(
                path == vec![Square::G2, Square::G3] || path == vec![Square::F1, Square::F2],
                "{path:?}"
            );
            seen.insert(path);
        }
        assert_eq!(seen.len(), 2, "both legs are used");
    }

    #[test]
    fn mixes_pick_by_weight_and_only_what_they_allow() {
        let mix = Mix(vec![(Travel::Carry, 3), (Travel::Slide, 1)]);
        let mut r = rng();
        let carries = (0..4000)
            .filter(|_| mix.pick(&mut r, Travel::Slide) == Travel::Carry)
            .count();
        assert!((2700..3300).contains(&carries), "{carries}");
        let none: Mix<Travel> = Mix(vec![(Travel::Slide, 0)]);
        assert_eq!(none.pick(&mut r, Travel::Carry), Travel::Carry);
        assert!(!none.allows(Travel::Slide));
    }

    #[test]
    fn the_latest_change_of_a_square_wins_over_older_bounce() {
        let style = HandStyle {
            bounce: 1.0,
            ..HandStyle::random().noiseless()
        };
        let mut table = Table::new(Board::default(), &style, 3);
        let e2 = Square::E2;
        let pawn = table.lift(e2);
        table.t += 1;
        table.put(e2, pawn);
        let (records, _) = table.render(0.0);
        let last = records.last().unwrap();
        assert_eq!(last.record, Record::Occupancy(Board::default().occupied()));
    }

    /// With the overlap certain, a slid piece still holds its square only
    /// while it already covers the square next to it: a knight slid over
    /// two occupied squares (h1 and h2) leaves g1 before h3 reads occupied;
    /// slid over an empty g2 it may still hold g1 while g2 reads occupied.
    #[test]
    fn a_slid_piece_never_reads_on_two_squares_apart() {
        let style = HandStyle {
            slide_overlap: 1.0,
            bounce: 0.0,
            wobble: 0.0,
            brush: 0.0,
            ..HandStyle::random().noiseless()
        };
        let mut held_next_door = 0;
        for seed in 0..40 {
            let mut table = Table::new(Board::default(), &style, seed);
            table.slide(Square::G1, Square::H3, (100, 300));
            let mut board = Board::default();
            board.discard_piece_at(Square::G2);
            let mut open = Table::new(board, &style, seed);
            open.slide(Square::G1, Square::H3, (100, 300));
            for (t, snap) in table.timeline.iter().chain(&open.timeline) {
                let occupied = snap.occupied();
                assert!(
                    !(occupied.contains(Square::G1) && occupied.contains(Square::H3)),
                    "seed {seed}: g1 and h3 both read occupied at {t} ms"
                );
            }
            held_next_door += open.timeline.iter().any(|(_, snap)| {
                snap.occupied().contains(Square::G1) && snap.occupied().contains(Square::G2)
            }) as usize;
        }
        assert!(held_next_door > 0, "the overlap still happens next door");
    }
}
