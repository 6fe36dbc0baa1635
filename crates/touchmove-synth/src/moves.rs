//! The choreography of one legal move by a pair of hands: which piece is
//! touched first, in what order pieces leave and reach squares (Articles
//! 4.3, 4.4, 4.6), and when the promotion choice and the clock are pressed.
use rand::RngExt;
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

use super::hands::{
    CaptureOrder, CastlingOrder, EnPassantOrder, HandStyle, PromoteInput, PromotionHands, Table,
};
use touchmove_core::Millis;
use touchmove_core::trace::Record;

/// When the hands did a move: the first piece off, the last change, the press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub first_lift: Millis,
    pub last_release: Millis,
    pub clock: Option<Millis>,
}

/// The least time between two clock presses: a clock takes only the
/// running side's press, so the next mover's press comes after the
/// previous mover's (Article 6.7).
pub(crate) const PRESS_GAP: Millis = 50;

/// Thinks (perhaps nudging a piece meanwhile), or grabs at once when the
/// opponent's press is still ahead and the style says so; then plays `m`
/// in `pos` on the table and presses the clock if the style has one.
pub(crate) fn play(table: &mut Table, pos: &Chess, m: Move, style: &HandStyle) -> Window {
    if !grab(table, style, pos.turn()) {
        think_nudging(table, pos, m, style);
    }
    perform(table, pos, m, style)
}

/// Whether the mover reaches for his piece before the opponent's clock
/// press (the move is his once the opponent's piece is released, Articles
/// 1.1 and 4.6); if so the hands' time goes to the previous release plus a
/// reaction time, and there is no thinking time.
fn grab(table: &mut Table, style: &HandStyle, mover: Color) -> bool {
    let pending = table.last_press.is_some_and(|p| p > table.t);
    if !(style.clock && style.grab > 0.0 && pending && table.chance(style.grab)) {
        return false;
    }
    let reaction = table.ms(style.reaction_ms);
    // One hand: the mover's own press for his previous move comes first.
    let own_press = table.last_press_of(mover).map_or(0, |p| p + 30);
    table.t = table.t.max(table.last_change + reaction).max(own_press);
    true
}

/// The thinking time before `m`, with a nudge now and then on a piece that
/// `m` leaves alone.
fn think_nudging(table: &mut Table, pos: &Chess, m: Move, style: &HandStyle) {
    table.settle();
    let wait = think_time(table, style);
    let start = table.t;
    if style.nudge > 0.0 && table.chance(style.nudge) {
        let len = table.ms(style.nudge_ms);
        let spared = move_squares(m);
        let pieces: Vec<Square> = (pos.board().occupied() & !spared).into_iter().collect();
        // Not too close to the previous press or to the first lift.
        if !pieces.is_empty() && wait >= len + 400 {
            let sq = pieces[table.rng.random_range(0..pieces.len())];
            table.wait((150, wait - len - 200));
            table.nudge(sq, len);
        }
    }
    table.t = table.t.max(start + wait);
}

/// The squares a move lifts pieces from or lands them on.
fn move_squares(m: Move) -> Bitboard {
    let mut squares = Bitboard::from(m.to());
    if let Some(from) = m.from() {
        squares.add(from);
    }
    match m {
        Move::EnPassant { from, to } => squares.add(Square::from_coords(to.file(), from.rank())),
        Move::Castle { king, rook } => {
            squares.add(king);
            squares.add(rook);
        }
        _ => {}
    }
    squares
}

/// Plays `m` in `pos` at once, then presses the clock if the style has one.
pub(crate) fn perform(table: &mut Table, pos: &Chess, m: Move, style: &HandStyle) -> Window {
    let first_lift = table.t;
    if let Some(from) = m.from()
        && table.chance(style.hesitate)
    {
        // Touched, put back, and moved after all (Article 4.3a is honoured).
        let piece = table.lift(from);
        table.wait((200, 1500));
        table.put(from, piece);
        table.wait((500, 4000));
    }
    let mover = pos.turn();
    match m {
        Move::Normal {
            from,
            to,
            capture,
            promotion: Some(role),
            ..
        } => promote(table, style, mover, from, to, capture.is_some(), role),
        Move::Normal {
            from,
            to,
            capture: Some(_),
            ..
        } => capture_move(table, style, from, to),
        Move::Normal { from, to, .. } => {
            let travel = style
                .travel
                .pick(&mut table.rng, super::hands::Travel::Carry);
            table.travel(from, to, travel, style.air_ms);
        }
        Move::EnPassant { from, to } => en_passant(table, style, from, to),
        Move::Castle { king, rook } => castle(table, style, mover, king, rook),
        Move::Put { .. } => unreachable!("standard chess has no drops"),
    }
    let last_release = table.last_change;
    let clock = press(table, style, mover);
    Window {
        first_lift,
        last_release,
        clock,
    }
}

/// The thinking time before a move (from the opponent's clock press).
pub(crate) fn think(table: &mut Table, style: &HandStyle) {
    table.settle();
    let wait = think_time(table, style);
    table.t += wait;
}

/// How long the mover thinks, ms.
fn think_time(table: &mut Table, style: &HandStyle) -> Millis {
    let long = table.chance(style.long_think.0);
    let (lo, hi) = style.think_ms;
    let span = if long {
        (hi, style.long_think.1.max(hi))
    } else {
        // Most thinks are short: square a uniform draw to lean towards `lo`.
        let u: f64 = table.rng.random_range(0.0..1.0);
        let t = lo + ((hi - lo) as f64 * u * u) as Millis;
        (t, t)
    };
    let mut wait = table.ms(span);
    if !style.clock {
        wait = wait.max(400);
    }
    wait
}

/// The clock press after a move, if the style has a clock (Article 6.7):
/// `press_ms` after the hands are done, and never before `PRESS_GAP` after
/// the opponent's press. A style that grabs leaves the press ahead of the
/// hands' time, so that the next mover may already be at work; the others
/// wait for it.
pub(crate) fn press(table: &mut Table, style: &HandStyle, mover: Color) -> Option<Millis> {
    if !style.clock {
        return None;
    }
    let delay = table.ms(style.press_ms);
    let at = table.after_press(table.t + delay, PRESS_GAP);
    table.button_at(at, Record::Clock(mover));
    if style.grab <= 0.0 {
        table.t = at;
    }
    Some(at)
}

fn capture_move(table: &mut Table, style: &HandStyle, from: Square, to: Square) {
    let travel = style
        .travel
        .pick(&mut table.rng, super::hands::Travel::Carry);
    match style
        .capture
        .pick(&mut table.rng, CaptureOrder::CapturedFirst)
    {
        CaptureOrder::CapturedFirst => {
            table.lift(to);
            table.wait(style.between_ms);
            table.travel(from, to, travel, style.air_ms);
        }
        CaptureOrder::OwnFirst => {
            let piece = table.lift(from);
            table.wait(style.between_ms);
            table.lift(to);
            table.wait(style.between_ms);
            table.put(to, piece);
        }
        CaptureOrder::PushOff => table.travel(from, to, travel, style.air_ms),
    }
}

fn en_passant(table: &mut Table, style: &HandStyle, from: Square, to: Square) {
    let captured = Square::from_coords(to.file(), from.rank());
    let travel = style
        .travel
        .pick(&mut table.rng, super::hands::Travel::Carry);
    match style
        .en_passant
        .pick(&mut table.rng, EnPassantOrder::CapturedFirst)
    {
        EnPassantOrder::CapturedFirst => {
            table.lift(captured);
            table.wait(style.between_ms);
            table.travel(from, to, travel, style.air_ms);
        }
        EnPassantOrder::WhileHolding => {
            let pawn = table.lift(from);
            table.wait(style.between_ms);
            table.lift(captured);
            table.wait(style.between_ms);
            table.put(to, pawn);
        }
        EnPassantOrder::CapturedLast => {
            table.travel(from, to, travel, style.air_ms);
            table.wait(style.between_ms);
            table.lift(captured);
        }
    }
}

/// Castling, standard or Chess960 (`king`, `rook`: where they stand).
fn castle(table: &mut Table, style: &HandStyle, mover: Color, king: Square, rook: Square) {
    let side = CastlingSide::from_king_side(king < rook);
    let (king_to, rook_to) = (side.king_to(mover), side.rook_to(mover));
    let travel = style
        .travel
        .pick(&mut table.rng, super::hands::Travel::Carry);
    if king_to == king {
        table.travel(rook, rook_to, travel, style.air_ms);
        return;
    }
    if rook_to == rook {
        table.travel(king, king_to, travel, style.air_ms);
        return;
    }
    let mut order = style
        .castling
        .pick(&mut table.rng, CastlingOrder::KingFirst);
    // Chess960: a piece may stand on the other's target; then both are lifted.
    if (order == CastlingOrder::KingFirst && king_to == rook)
        || (order == CastlingOrder::RookFirst && rook_to == king)
    {
        order = CastlingOrder::BothLifted;
    }
    match order {
        CastlingOrder::KingFirst => {
            table.travel(king, king_to, travel, style.air_ms);
            table.wait(style.between_ms);
            table.travel(rook, rook_to, travel, style.air_ms);
        }
        CastlingOrder::RookFirst => {
            table.travel(rook, rook_to, travel, style.air_ms);
            table.wait(style.between_ms);
            table.travel(king, king_to, travel, style.air_ms);
        }
        CastlingOrder::BothLifted => {
            // The king clearly first (Article 4.4a), then the rook.
            let k = table.lift(king);
            table.wait((30, 300));
            let r = table.lift(rook);
            table.wait(style.air_ms);
            if table.chance(0.5) {
                table.put(king_to, k);
                table.wait((20, 400));
                table.put(rook_to, r);
            } else {
                table.put(rook_to, r);
                table.wait((20, 400));
                table.put(king_to, k);
            }
        }
    }
}

fn promote(
    table: &mut Table,
    style: &HandStyle,
    mover: Color,
    from: Square,
    to: Square,
    capture: bool,
    role: Role,
) {
    let mut input = style
        .promote_input
        .pick(&mut table.rng, PromoteInput::Before);
    if input == PromoteInput::Omitted && role != Role::Queen {
        input = if table.chance(0.5) {
            PromoteInput::Before
        } else {
            PromoteInput::After
        };
    }
    let new_piece = Piece { color: mover, role };
    match style.promotion.pick(&mut table.rng, PromotionHands::Direct) {
        PromotionHands::SetDownThenSwap => {
            if capture {
                capture_move(table, style, from, to);
            } else {
                let travel = style
                    .travel
                    .pick(&mut table.rng, super::hands::Travel::Carry);
                table.travel(from, to, travel, style.air_ms);
            }
            // The pawn stands on the last rank, then goes for a new piece.
            table.wait((300, 1500));
            table.lift(to);
            reach_for(table, input, role);
        }
        PromotionHands::Direct => {
            if capture && table.chance(0.5) {
                table.lift(to);
                table.wait(style.between_ms);
                table.lift(from);
            } else {
                table.lift(from);
                if capture {
                    table.wait(style.between_ms);
                    table.lift(to);
                }
            }
            reach_for(table, input, role);
        }
    }
    table.put(to, new_piece);
    if input == PromoteInput::Late {
        let at = table.t + table.ms((50, 300));
        table.button_at(at, Record::Promote(role));
    }
    if input == PromoteInput::After {
        table.wait((100, 1200));
        // Never before the opponent's press, when the mover grabbed early.
        table.t = table.after_press(table.t, 20);
        table.button(Record::Promote(role));
    }
}

/// The hand fetches the new piece (400–3000 ms), entering the choice on
/// the way if `Before` (never before the opponent's press).
fn reach_for(table: &mut Table, input: PromoteInput, role: Role) {
    let reach = table.ms((400, 3000));
    if input == PromoteInput::Before {
        let at = table.ms((100, reach - 100));
        let start = table.t;
        table.t = table.after_press(start + at, 20);
        table.button(Record::Promote(role));
        table.t = (start + reach).max(table.t + 100);
    } else {
        table.t += reach;
    }
}
