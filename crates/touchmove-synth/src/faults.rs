//! Fault injectors: irregularities a real game has, each with the exact
//! events the daemon must emit for it.
//!
//! A fault is given with the index (0-based, into the moves) of the move it
//! comes before; see [`Fault`] for what each one does to the board.
use rand::RngExt;
use shakmaty::{Bitboard, CastlingSide, Chess, Move, Position, Square, uci::UciMove};

use super::hands::{HandStyle, Travel};
use super::moves::{self, Window};
use super::{Builder, Expected, IllegalInput, Synthesized, TouchArticle};
use touchmove_core::Millis;
use touchmove_core::game::fen_of;

/// How a knocked piece leaves its square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knock {
    /// Off the board; put back on its square seconds later.
    OffBoard,
    /// Onto an empty neighbouring square (a piece of the side not on move).
    OntoNeighbour,
}

/// An irregularity, placed before a move of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The mover releases the piece of the next move on a square no legal
    /// move explains, then moves it on to complete the legal move before
    /// pressing the clock: `illegal_move` (`completed: false`), then `move`.
    IllegalPlacementCorrected,
    /// The mover takes the piece of the next move to a square no legal move
    /// explains and presses the clock: `illegal_move` (`completed: true`,
    /// counted; Article 7.4a of 2005, 7.5 of 2023). The position before it
    /// is reinstated (`restored`) and the same piece makes the legal move
    /// (Article 4.3 applies to the replacing move).
    IllegalMoveReinstated,
    /// During the mover's thinking time a piece is knocked off its square
    /// and put back later: `displaced` naming the wrong squares (Article
    /// 7.3), then `restored`. The piece is one whose lifting binds no one:
    /// a piece of the mover with no legal move, or an opponent's piece the
    /// mover cannot capture.
    KnockedPiece(Knock),
    /// The mover lifts an own piece that has a legal move and puts it back,
    /// then makes the next move with another piece: `touch_move` (Article
    /// 4.3a, the touched piece's square); the move stands (`move`).
    TouchMoveBreach,
    /// The mover lifts an opponent's piece he could capture and puts it
    /// back, then makes the next move, which does not capture it:
    /// `touch_move` (Article 4.3b, the touched piece's square); the move stands.
    TouchedOpponentPiece,
    /// The next move is castling, made rook first, then king: `touch_move`
    /// (Article 4.4b, the rook's square); the move stands. (Casual profiles
    /// allow it; the expected event is the FIDE profiles'.)
    RookBeforeKing,
    /// The sensors are not read while the next `k` plies (1–4) are made;
    /// the board jumps to the position after them in one scan. `move` for
    /// each when one sequence of legal moves alone explains the jump, else
    /// `unexplained` with the candidates. The board shows only occupancy, so
    /// a jump over a promotion is never explained by one sequence: each
    /// choice of the new piece is a candidate (Article 3.7e).
    MissedPlies(usize),
    /// The mover takes the piece of the next move to a square no legal move
    /// explains and presses the clock: `illegal_move` (`completed: true`,
    /// counted; Article 7.4a of 2005, 7.5.1 of 2023). Nobody reinstates the
    /// position: the mover himself lifts the piece from the wrong square and
    /// puts it on the legal move's destination (a captured piece taken off
    /// first), then presses the clock again: `move` for the legal move, and
    /// the game goes on. Only for a normal move (no castling, en passant or
    /// promotion).
    IllegalFixedOwnWay,
}

/// Why a fault could not be placed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    #[error(transparent)]
    Illegal(#[from] IllegalInput),
    #[error("fault {fault:?} before move {index}: {reason}")]
    Unplaceable {
        index: usize,
        fault: Fault,
        reason: &'static str,
    },
}

/// Plays `moves` from `start` with the `faults` inserted, each before the
/// move whose index it carries (several at one index apply in list order).
pub fn inject(
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
    faults: &[(usize, Fault)],
) -> Result<Synthesized, FaultError> {
    let mut game = Builder::new(start, style, seed);
    let mut index = 0;
    let mut pending = faults.to_vec();
    pending.sort_by_key(|&(i, _)| i);
    let mut pending = pending.into_iter().peekable();
    loop {
        let mut handled_move = false;
        while let Some(&(at, fault)) = pending.peek() {
            if at > index {
                break;
            }
            pending.next();
            let unplaceable = |reason| FaultError::Unplaceable {
                index: at,
                fault,
                reason,
            };
            if at < index {
                return Err(unplaceable("its move was consumed by missed plies"));
            }
            if handled_move {
                return Err(unplaceable("an earlier fault already made this move"));
            }
            // An irregularity waits for the previous move's clock press.
            game.table.settle();
            match fault {
                Fault::KnockedPiece(knock) => knocked(&mut game, knock).map_err(unplaceable)?,
                Fault::MissedPlies(k) => {
                    if k == 0 || k > MAX_MISSED || index + k > moves.len() {
                        return Err(unplaceable("needs 1 to 4 plies left in the game"));
                    }
                    for (j, &m) in moves[index..index + k].iter().enumerate() {
                        let mut probe = game.pos.clone();
                        for &earlier in &moves[index..index + j] {
                            probe.play_unchecked(earlier);
                        }
                        if !probe.is_legal(m) {
                            return Err(IllegalInput {
                                index: index + j,
                                mv: m.to_string(),
                                fen: fen_of(&probe),
                            }
                            .into());
                        }
                    }
                    missed(&mut game, &moves[index..index + k]);
                    index += k;
                }
                _ => {
                    let Some(&m) = moves.get(index) else {
                        return Err(unplaceable("there is no next move"));
                    };
                    game.check(index, m)?;
                    match fault {
                        Fault::IllegalPlacementCorrected => {
                            illegal_corrected(&mut game, m).map_err(unplaceable)?
                        }
                        Fault::IllegalMoveReinstated => {
                            illegal_reinstated(&mut game, m).map_err(unplaceable)?
                        }
                        Fault::IllegalFixedOwnWay => {
                            illegal_fixed_own_way(&mut game, m).map_err(unplaceable)?
                        }
                        Fault::TouchMoveBreach => breach(&mut game, m).map_err(unplaceable)?,
                        Fault::TouchedOpponentPiece => {
                            opponent_touched(&mut game, m).map_err(unplaceable)?
                        }
                        Fault::RookBeforeKing => {
                            rook_before_king(&mut game, m).map_err(unplaceable)?
                        }
                        _ => unreachable!(),
                    }
                    index += 1;
                    handled_move = true;
                }
            }
        }
        if handled_move {
            continue;
        }
        let Some(&m) = moves.get(index) else { break };
        game.check(index, m)?;
        game.play(m);
        index += 1;
    }
    if let Some((at, fault)) = pending.next() {
        return Err(FaultError::Unplaceable {
            index: at,
            fault,
            reason: "it comes after the end of the game",
        });
    }
    Ok(game.finish())
}

/// Where a piece of the mover may land when a legal move with it is in
/// progress (the destination, or the king's square when castling).
fn destinations(pos: &Chess, from: Square) -> Bitboard {
    let mut to = Bitboard::EMPTY;
    for m in pos.legal_moves() {
        match m {
            Move::Castle { king, rook } if king == from || rook == from => {
                let side = CastlingSide::from_king_side(king < rook);
                to.add(if king == from {
                    side.king_to(pos.turn())
                } else {
                    side.rook_to(pos.turn())
                });
            }
            _ if m.from() == Some(from) => to.add(m.to()),
            _ => {}
        }
    }
    to
}

/// Whether some legal move leaves the board with occupancy `occ`.
fn explained(pos: &Chess, occ: Bitboard) -> bool {
    pos.legal_moves().iter().any(|&m| {
        let mut after = pos.clone();
        after.play_unchecked(m);
        after.board().occupied() == occ
    })
}

/// An empty square, near `from` when possible, where the piece from `from`
/// stands illegally: no legal move, finished or in progress, explains it.
fn illegal_square(game: &mut Builder<'_>, from: Square, near: u32) -> Option<Square> {
    let pos = &game.pos;
    let occ = pos.board().occupied();
    let dest = destinations(pos, from);
    let candidates: Vec<Square> = (!occ)
        .into_iter()
        .filter(|&x| !dest.contains(x) && !explained(pos, (occ ^ from) | x))
        .collect();
    let close: Vec<Square> = candidates
        .iter()
        .copied()
        .filter(|x| x.distance(from) <= near)
        .collect();
    let pool = if close.is_empty() { candidates } else { close };
    (!pool.is_empty()).then(|| pool[game.table.rng.random_range(0..pool.len())])
}

fn illegal_corrected(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let style = game.style;
    let side = game.pos.turn();
    let from = m.from().expect("a board move");
    let x = illegal_square(game, from, 2).ok_or("no square is illegal for that piece")?;
    moves::think(&mut game.table, style);
    let first_lift = game.table.t;
    game.table.travel(from, x, Travel::Carry, style.air_ms);
    game.expected.push(Expected::IllegalMove {
        side,
        completed: false,
        from: Some(from),
        to: Some(x),
        count: *game.illegal.get(side),
    });
    // The player sees the mistake and moves the piece on.
    game.table.wait((400, 2500));
    let piece = game.table.lift(x);
    let window = match m {
        Move::Normal {
            to,
            capture,
            promotion: None,
            ..
        } => {
            if capture.is_some() {
                game.table.wait(style.between_ms);
                game.table.lift(to);
                game.table.wait(style.between_ms);
                game.table.put(to, piece);
            } else {
                game.table.travel_held(piece, x, to, style.air_ms);
            }
            let last_release = game.table.last_change;
            Window {
                first_lift,
                last_release,
                clock: moves::press(&mut game.table, style, side),
            }
        }
        _ => {
            // Castling, en passant, promotion: back home first, then the move.
            game.table.travel_held(piece, x, from, style.air_ms);
            game.table.wait((300, 1500));
            let pos = game.pos.clone();
            let w = moves::perform(&mut game.table, &pos, m, style);
            Window { first_lift, ..w }
        }
    };
    game.record(m, window, true);
    Ok(())
}

fn illegal_reinstated(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let style = game.style;
    let side = game.pos.turn();
    let from = m.from().expect("a board move");
    let x = illegal_square(game, from, 3).ok_or("no square is illegal for that piece")?;
    moves::think(&mut game.table, style);
    game.table.travel(from, x, Travel::Carry, style.air_ms);
    // The clock press completes the illegal move (Article 7.4a).
    moves::press(&mut game.table, style, side);
    game.table.settle();
    *game.illegal.get_mut(side) += 1;
    game.expected.push(Expected::IllegalMove {
        side,
        completed: true,
        from: Some(from),
        to: Some(x),
        count: *game.illegal.get(side),
    });
    // The position before the irregularity is reinstated.
    game.table.wait((2000, 8000));
    game.table.travel(x, from, Travel::Carry, style.air_ms);
    game.expected.push(Expected::Restored {
        fen: fen_of(&game.pos),
    });
    game.play(m);
    Ok(())
}

fn illegal_fixed_own_way(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let Move::Normal {
        from,
        to,
        capture,
        promotion: None,
        ..
    } = m
    else {
        return Err("the next move is castling, en passant or a promotion");
    };
    let style = game.style;
    let side = game.pos.turn();
    let x = illegal_square(game, from, 3).ok_or("no square is illegal for that piece")?;
    moves::think(&mut game.table, style);
    let first_lift = game.table.t;
    game.table.travel(from, x, Travel::Carry, style.air_ms);
    // The clock press completes the illegal move (Article 7.4a of 2005,
    // 7.5.1 of 2023).
    moves::press(&mut game.table, style, side);
    game.table.settle();
    *game.illegal.get_mut(side) += 1;
    game.expected.push(Expected::IllegalMove {
        side,
        completed: true,
        from: Some(from),
        to: Some(x),
        count: *game.illegal.get(side),
    });
    // Not reinstated (Article 7.5.1 is not applied): the mover fixes it his
    // own way, from the wrong square straight to the legal destination.
    game.table.wait((1500, 6000));
    if capture.is_some() {
        game.table.lift(to);
        game.table.wait(style.between_ms);
    }
    let piece = game.table.lift(x);
    // Straight there: the piece does not pass over its own square.
    let avoid = Bitboard::from(x).with(from);
    game.table
        .travel_held_avoiding(piece, to, style.air_ms, avoid);
    let last_release = game.table.last_change;
    let clock = moves::press(&mut game.table, style, side);
    let window = Window {
        first_lift,
        last_release,
        clock,
    };
    game.record(m, window, true);
    Ok(())
}

fn breach(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let mut spared = Bitboard::from(m.from().expect("a board move"));
    if let Move::Castle { rook, .. } = m {
        spared.add(rook);
    }
    let movable: Vec<Square> = game
        .pos
        .legal_moves()
        .iter()
        .filter_map(|m| m.from())
        .filter(|&s| !spared.contains(s))
        .collect::<Bitboard>()
        .into_iter()
        .collect();
    if movable.is_empty() {
        return Err("no other own piece has a legal move");
    }
    let touched = movable[game.table.rng.random_range(0..movable.len())];
    touch_then_move(game, m, touched, TouchArticle::A4_3a);
    Ok(())
}

fn opponent_touched(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let mut captured = Bitboard::EMPTY;
    if let Some(sq) = captured_square(m) {
        captured.add(sq);
    }
    let capturable: Vec<Square> = game
        .pos
        .legal_moves()
        .iter()
        .filter_map(|&m| captured_square(m))
        .filter(|&s| !captured.contains(s))
        .collect::<Bitboard>()
        .into_iter()
        .collect();
    if capturable.is_empty() {
        return Err("no other opponent piece can be captured");
    }
    let touched = capturable[game.table.rng.random_range(0..capturable.len())];
    touch_then_move(game, m, touched, TouchArticle::A4_3b);
    Ok(())
}

/// Where the piece a move captures stands, if it captures.
fn captured_square(m: Move) -> Option<Square> {
    match m {
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        Move::Normal {
            capture: Some(_),
            to,
            ..
        } => Some(to),
        _ => None,
    }
}

fn rook_before_king(game: &mut Builder<'_>, m: Move) -> Result<(), &'static str> {
    let Move::Castle { king, rook } = m else {
        return Err("the next move is not castling");
    };
    let style = game.style;
    let side = game.pos.turn();
    let castling = CastlingSide::from_king_side(king < rook);
    let (king_to, rook_to) = (castling.king_to(side), castling.rook_to(side));
    if king_to == king || rook_to == rook || rook_to == king {
        return Err("this castling cannot be made rook first");
    }
    moves::think(&mut game.table, style);
    let first_lift = game.table.t;
    let travel = style.travel.pick(&mut game.table.rng, Travel::Carry);
    game.table.travel(rook, rook_to, travel, style.air_ms);
    game.table.wait(style.between_ms);
    game.table.travel(king, king_to, travel, style.air_ms);
    let last_release = game.table.last_change;
    let clock = moves::press(&mut game.table, style, side);
    game.expected.push(Expected::TouchMove {
        side,
        article: TouchArticle::A4_4b,
        square: rook,
    });
    let window = Window {
        first_lift,
        last_release,
        clock,
    };
    game.record(m, window, true);
    Ok(())
}

/// The mover lifts the piece on `touched` and puts it back, then makes `m`
/// although the touch bound him otherwise (`article`); the move stands.
fn touch_then_move(game: &mut Builder<'_>, m: Move, touched: Square, article: TouchArticle) {
    let style = game.style;
    let side = game.pos.turn();
    moves::think(&mut game.table, style);
    let first_lift = game.table.t;
    let piece = game.table.lift(touched);
    game.table.wait((200, 1200));
    game.table.put(touched, piece);
    game.table.wait((500, 3000));
    game.expected.push(Expected::TouchMove {
        side,
        article,
        square: touched,
    });
    let pos = game.pos.clone();
    let w = moves::perform(&mut game.table, &pos, m, style);
    game.record(m, Window { first_lift, ..w }, true);
}

fn knocked(game: &mut Builder<'_>, knock: Knock) -> Result<(), &'static str> {
    let pos = game.pos.clone();
    let mover = pos.turn();
    let legal = pos.legal_moves();
    let movable: Bitboard = legal.iter().filter_map(|m| m.from()).collect();
    let capturable: Bitboard = legal.iter().filter_map(|&m| captured_square(m)).collect();
    let theirs = pos.board().by_color(!mover) & !capturable;
    let candidates = match knock {
        Knock::OffBoard => (pos.board().by_color(mover) & !movable) | theirs,
        Knock::OntoNeighbour => theirs,
    };
    let occ = pos.board().occupied();
    let mut options: Vec<(Square, Option<Square>)> = Vec::new();
    for sq in candidates {
        match knock {
            Knock::OffBoard => options.push((sq, None)),
            Knock::OntoNeighbour => {
                for x in shakmaty::attacks::king_attacks(sq) & !occ {
                    if !explained(&pos, (occ ^ sq) | x) && !destinations(&pos, sq).contains(x) {
                        options.push((sq, Some(x)));
                    }
                }
            }
        }
    }
    if options.is_empty() {
        return Err("no piece can be knocked without binding the mover");
    }
    let (sq, onto) = options[game.table.rng.random_range(0..options.len())];
    let table = &mut game.table;
    table.wait((300, 3000));
    let piece = table.lift(sq);
    let mut squares = vec![sq];
    if let Some(x) = onto {
        table.wait((20, 120));
        table.put(x, piece);
        squares.push(x);
        squares.sort();
    }
    game.expected.push(Expected::Displaced {
        squares,
        expected_fen: fen_of(&pos),
    });
    // Some seconds later the piece is put back.
    table.wait((2000, 8000));
    if let Some(x) = onto {
        table.lift(x);
        table.wait((150, 800));
    }
    table.put(sq, piece);
    game.expected.push(Expected::Restored { fen: fen_of(&pos) });
    Ok(())
}

/// The sensors miss `plies`; the board jumps to the position after them.
fn missed(game: &mut Builder<'_>, plies: &[Move]) {
    let start = game.pos.clone();
    let mut target = start.clone();
    for &m in plies {
        target.play_unchecked(m);
    }
    game.table.wait((300, 2000));
    let gap: Millis = (0..plies.len())
        .map(|_| game.table.ms((2000, 10_000)))
        .sum();
    game.table.jump(target.board(), gap);
    let candidates = explanations(&start, target.board().occupied(), plies.len(), game.mode);
    let unique = candidates.len() == 1;
    if !unique {
        game.expected.push(Expected::Unexplained { candidates });
    }
    let at = game.table.t;
    for &m in plies {
        let window = Window {
            first_lift: at,
            last_release: at,
            clock: None,
        };
        game.record(m, window, unique);
    }
}

/// Every sequence of 1 to `max` legal moves from `pos` that leaves the board
/// with occupancy `occ`, in UCI.
fn explanations(
    pos: &Chess,
    occ: Bitboard,
    max: usize,
    mode: shakmaty::CastlingMode,
) -> Vec<Vec<String>> {
    fn walk(
        pos: &Chess,
        occ: Bitboard,
        left: usize,
        line: &mut Vec<Move>,
        found: &mut Vec<Vec<Move>>,
    ) {
        let now = pos.board().occupied();
        // A ply changes at most four squares (castling): prune the lines
        // that cannot reach `occ` in the plies left.
        if (now ^ occ).count() > 4 * left {
            return;
        }
        for m in pos.legal_moves() {
            line.push(m);
            if occupancy_after(now, pos, m) == occ {
                found.push(line.clone());
            }
            if left > 1 {
                let mut after = pos.clone();
                after.play_unchecked(m);
                walk(&after, occ, left - 1, line, found);
            }
            line.pop();
        }
    }
    let mut found = Vec::new();
    walk(pos, occ, max, &mut Vec::new(), &mut found);
    found
        .into_iter()
        .map(|line| {
            line.into_iter()
                .map(|m| UciMove::from_move(m, mode).to_string())
                .collect()
        })
        .collect()
}

/// The occupancy after the legal move `m` in `pos`, whose occupancy is `occ`.
fn occupancy_after(occ: Bitboard, pos: &Chess, m: Move) -> Bitboard {
    match m {
        Move::Normal { from, to, .. } => occ.without(from).with(to),
        Move::EnPassant { from, to } => occ
            .without(from)
            .without(Square::from_coords(to.file(), from.rank()))
            .with(to),
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            occ.without(king)
                .without(rook)
                .with(side.king_to(pos.turn()))
                .with(side.rook_to(pos.turn()))
        }
        Move::Put { to, .. } => occ.with(to),
    }
}

/// Every kind of fault [`inject_random`] picks from.
pub const KINDS: [Fault; 9] = [
    Fault::IllegalPlacementCorrected,
    Fault::IllegalMoveReinstated,
    Fault::KnockedPiece(Knock::OffBoard),
    Fault::KnockedPiece(Knock::OntoNeighbour),
    Fault::TouchMoveBreach,
    Fault::TouchedOpponentPiece,
    Fault::RookBeforeKing,
    Fault::MissedPlies(1),
    Fault::MissedPlies(2),
];

/// The most plies one jump of the board may skip.
pub(crate) const MAX_MISSED: usize = 4;

/// [`KINDS`], and players who play on after a completed illegal move
/// fixed their own way, for [`inject_random_with`] (the synthesizer's tests;
/// the inference tests draw their own sets).
#[cfg(test)]
const EXTENDED_KINDS: [Fault; 10] = [
    Fault::IllegalPlacementCorrected,
    Fault::IllegalMoveReinstated,
    Fault::KnockedPiece(Knock::OffBoard),
    Fault::KnockedPiece(Knock::OntoNeighbour),
    Fault::TouchMoveBreach,
    Fault::TouchedOpponentPiece,
    Fault::RookBeforeKing,
    Fault::MissedPlies(1),
    Fault::MissedPlies(2),
    Fault::IllegalFixedOwnWay,
];

/// Plays `moves` with up to `count` faults of random kinds from [`KINDS`]
/// at random moves (at most one per move, never before the first move),
/// keeping only those that can be placed. Returns the faults placed and the game.
pub fn inject_random(
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
    count: usize,
) -> Result<(Vec<(usize, Fault)>, Synthesized), FaultError> {
    inject_random_with(&KINDS, start, moves, style, seed, count)
}

/// [`inject_random`] with the faults drawn from `kinds`.
pub fn inject_random_with(
    kinds: &[Fault],
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
    count: usize,
) -> Result<(Vec<(usize, Fault)>, Synthesized), FaultError> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut chosen: Vec<(usize, Fault)> = Vec::new();
    let mut taken = vec![false; moves.len() + 1];
    for _ in 0..count * 8 {
        if chosen.len() >= count || moves.len() < 2 || kinds.is_empty() {
            break;
        }
        let at = rng.random_range(1..moves.len());
        let fault = kinds[rng.random_range(0..kinds.len())];
        let span = span(fault);
        if (at..at + span).any(|i| taken.get(i).is_none_or(|&t| t)) || at + span > moves.len() {
            continue;
        }
        let mut trial = chosen.clone();
        trial.push((at, fault));
        if inject(start, moves, style, seed, &trial).is_ok() {
            chosen = trial;
            taken[at..at + span].fill(true);
        }
    }
    chosen.sort_by_key(|&(at, _)| at);
    let game = inject(start, moves, style, seed, &chosen)?;
    Ok((chosen, game))
}

/// How many moves of the game a fault makes.
fn span(fault: Fault) -> usize {
    match fault {
        Fault::MissedPlies(k) => k,
        _ => 1,
    }
}

/// Up to `count` jumps ([`Fault::MissedPlies`] of 1 to 4 plies, seeded) in
/// a game of `plies` plies: never over the first move, and with at least
/// one move seen by the sensors between a jump and any fault of `others`
/// (so that every irregularity starts from a known position).
pub fn random_jumps(
    plies: usize,
    seed: u64,
    count: usize,
    others: &[(usize, Fault)],
) -> Vec<(usize, Fault)> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5851_f42d_4c95_7f2d);
    // Moves that some fault already makes, or that a jump must leave alone.
    let mut busy = vec![false; plies + 1];
    for &(at, fault) in others {
        let end = (at + span(fault).max(1)).min(plies);
        busy[at.min(plies)..end].fill(true);
    }
    let mut jumps = Vec::new();
    for _ in 0..count * 16 {
        if jumps.len() >= count || plies < 2 {
            break;
        }
        let k = rng.random_range(1..=MAX_MISSED);
        let at = rng.random_range(1..plies);
        if at + k > plies {
            continue;
        }
        // The moves just before and after the jump are seen.
        if busy[at - 1..(at + k + 1).min(plies + 1)].iter().any(|&b| b) {
            continue;
        }
        busy[at..at + k].fill(true);
        jumps.push((at, Fault::MissedPlies(k)));
    }
    jumps.sort_by_key(|&(at, _)| at);
    jumps
}

/// Plays `moves` with up to `count` jumps of the board at random points
/// (see [`random_jumps`]). Returns the jumps placed and the game.
pub fn inject_jumps(
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
    count: usize,
) -> Result<(Vec<(usize, Fault)>, Synthesized), FaultError> {
    let jumps = random_jumps(moves.len(), seed, count, &[]);
    let game = inject(start, moves, style, seed, &jumps)?;
    Ok((jumps, game))
}

/// The indices (0-based, into `moves`) of the promotions of a game: a
/// [`Fault::MissedPlies`]`(k)` at `i + 1 - k ..= i` (not before 0) jumps
/// over promotion `i`.
pub fn promotion_indices(moves: &[Move]) -> Vec<usize> {
    moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_promotion())
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random_game;
    use shakmaty::Color;
    use touchmove_core::scan::Snapshot;
    use touchmove_core::trace::Record;

    fn position_after(start: &Chess, moves: &[Move]) -> Chess {
        let mut pos = start.clone();
        for &m in moves {
            pos.play_unchecked(m);
        }
        pos
    }

    fn occupancy_at(s: &Synthesized, t: Millis) -> Bitboard {
        let mut occ = Bitboard::EMPTY;
        for r in s.trace.records.iter().take_while(|r| r.t <= t) {
            if let Record::Occupancy(bb) = r.record {
                occ = bb;
            }
        }
        occ
    }

    #[test]
    fn jumps_of_1_to_4_plies_land_on_the_position_after_them() {
        let style = HandStyle::random().without_glitches();
        let mut lengths = std::collections::BTreeSet::new();
        for seed in 0..12 {
            let (start, moves) = random_game(seed, 60);
            let (jumps, s) = inject_jumps(&start, &moves, &style, seed, 3).unwrap();
            assert!(!jumps.is_empty());
            assert_eq!(s.moves.len(), moves.len());
            let unexplained: Vec<&Vec<Vec<String>>> = s
                .expected
                .iter()
                .filter_map(|e| match e {
                    Expected::Unexplained { candidates } => Some(candidates),
                    _ => None,
                })
                .collect();
            let mut lines = unexplained.into_iter();
            let mut hidden = 0;
            for &(at, fault) in &jumps {
                let Fault::MissedPlies(k) = fault else {
                    panic!("{fault:?}")
                };
                assert!((1..=MAX_MISSED).contains(&k) && at >= 1);
                lengths.insert(k);
                let jump = s.moves[at].first_lift;
                assert!(s.moves[at..at + k].iter().all(|m| m.first_lift == jump));
                let before = position_after(&start, &moves[..at]);
                let after = position_after(&start, &moves[..at + k]);
                assert_eq!(occupancy_at(&s, jump - 1), before.board().occupied());
                assert_eq!(occupancy_at(&s, jump), after.board().occupied());
                assert_eq!(s.snapshot_at(jump), Snapshot::of_board(after.board()));
                let truth = s.moves[at..at + k]
                    .iter()
                    .map(|m| m.uci.clone())
                    .collect::<Vec<_>>();
                let unique = explanations(
                    &before,
                    after.board().occupied(),
                    k,
                    shakmaty::CastlingMode::Standard,
                )
                .len()
                    == 1;
                if !unique {
                    hidden += k;
                    let candidates = lines.next().expect("an unexplained event");
                    assert!(candidates.contains(&truth));
                }
            }
            let announced = s.expected.iter().filter(|e| e.kind() == "move").count();
            assert_eq!(announced, moves.len() - hidden);
        }
        assert_eq!(lengths.into_iter().collect::<Vec<_>>(), [1, 2, 3, 4]);
    }

    #[test]
    fn jumps_keep_clear_of_each_other_and_of_other_faults() {
        let others = [(10, Fault::TouchMoveBreach), (20, Fault::MissedPlies(2))];
        for seed in 0..50 {
            let jumps = random_jumps(40, seed, 6, &others);
            let mut all: Vec<(usize, Fault)> = others.iter().copied().chain(jumps).collect();
            all.sort_by_key(|&(at, _)| at);
            for w in all.windows(2) {
                let end = w[0].0 + span(w[0].1);
                assert!(w[1].0 > end, "{all:?}");
            }
        }
        assert!(random_jumps(1, 1, 3, &[]).is_empty());
    }

    #[test]
    fn a_jump_over_a_promotion_is_unexplained_with_every_new_piece() {
        let style = HandStyle::random().without_glitches();
        let mut seen = 0;
        for seed in 0..40 {
            let (start, moves) = random_game(seed, 160);
            let Some(&i) = promotion_indices(&moves).iter().find(|&&i| i >= 4) else {
                continue;
            };
            assert!(moves[i].is_promotion());
            let k = 1 + (seed as usize % MAX_MISSED);
            let at = i + 1 - k;
            let s = inject(&start, &moves, &style, seed, &[(at, Fault::MissedPlies(k))]).unwrap();
            let candidates = s
                .expected
                .iter()
                .find_map(|e| match e {
                    Expected::Unexplained { candidates } => Some(candidates),
                    _ => None,
                })
                .expect("a promotion is never seen");
            let truth: Vec<String> = s.moves[at..at + k].iter().map(|m| m.uci.clone()).collect();
            assert!(candidates.contains(&truth));
            // The same line with each choice of the new piece.
            let stem = &truth[k - 1][..4];
            for role in ["q", "r", "b", "n"] {
                let mut line = truth.clone();
                line[k - 1] = format!("{stem}{role}");
                assert!(candidates.contains(&line), "{line:?}");
            }
            let after = position_after(&start, &moves[..at + k]);
            let jump = s.moves[at].first_lift;
            assert_eq!(s.snapshot_at(jump), Snapshot::of_board(after.board()));
            seen += 1;
        }
        assert!(seen >= 5, "{seen}");
    }

    #[test]
    fn illegal_move_fixed_the_players_own_way_then_the_game_goes_on() {
        let style = HandStyle::random();
        let (mut placed, mut captures) = (0, 0);
        for seed in 0..30 {
            let (start, moves) = random_game(seed, 50);
            let at = 6 + seed as usize % 20;
            if at >= moves.len() {
                continue;
            }
            let result = inject(
                &start,
                &moves,
                &style,
                seed,
                &[(at, Fault::IllegalFixedOwnWay)],
            );
            let m = moves[at];
            if m.is_castle() || m.is_en_passant() || m.is_promotion() {
                assert!(result.is_err());
                continue;
            }
            let s = result.unwrap();
            let side = s.moves[at].side;
            let alerts: Vec<&Expected> = s
                .expected
                .iter()
                .filter(|e| !matches!(e, Expected::Move { .. } | Expected::GameOver { .. }))
                .collect();
            let [
                Expected::IllegalMove {
                    side: s2,
                    completed: true,
                    from,
                    to: Some(x),
                    count: 1,
                },
            ] = alerts.as_slice()
            else {
                panic!("{alerts:?}")
            };
            assert_eq!((*s2, *from), (side, m.from()));
            // Exactly: the illegal move completed, then the legal move.
            let i = s
                .expected
                .iter()
                .position(|e| e.kind() == "illegal_move")
                .unwrap();
            assert!(matches!(
                &s.expected[i + 1],
                Expected::Move { ply, uci, .. } if *ply == at as u32 + 1 && *uci == s.moves[at].uci
            ));
            assert_eq!(
                s.expected.iter().filter(|e| e.kind() == "move").count(),
                moves.len()
            );
            // The mover pressed twice: after the illegal move, and after the fix.
            let presses: Vec<(Millis, Color)> = s
                .trace
                .records
                .iter()
                .filter_map(|r| match r.record {
                    Record::Clock(c) => Some((r.t, c)),
                    _ => None,
                })
                .collect();
            assert_eq!(presses.len(), moves.len() + 1);
            assert_eq!(presses[at].1, side);
            assert_eq!(presses[at + 1].1, side);
            assert_eq!(Some(presses[at + 1].0), s.moves[at].clock);
            // The illegal position stood at the first press; the piece went
            // from the wrong square straight to the legal one.
            let before = position_after(&start, &moves[..at]);
            let wrong = (before.board().occupied() ^ m.from().unwrap()) | *x;
            assert_eq!(occupancy_at(&s, presses[at].0), wrong);
            let after = position_after(&start, &moves[..=at]);
            let mut seen_from = false;
            for &(t, snap) in &s.timeline {
                if t > presses[at].0 && t <= s.moves[at].last_release {
                    seen_from |= snap.occupied().contains(m.from().unwrap());
                }
            }
            assert!(!seen_from, "no reinstatement");
            assert_eq!(
                s.snapshot_at(s.moves[at].last_release + 1),
                Snapshot::of_board(after.board())
            );
            if m.is_capture() {
                captures += 1;
                let off = s
                    .timeline
                    .iter()
                    .find(|(t, sn)| *t > presses[at].0 && !sn.occupied().contains(m.to()))
                    .unwrap();
                assert!(off.1.occupied().contains(*x), "the captured piece first");
            }
            placed += 1;
        }
        assert!(placed >= 15 && captures >= 2, "{placed} {captures}");
    }

    #[test]
    fn the_fixed_own_way_fault_is_drawn_only_from_the_extended_kinds() {
        assert!(!KINDS.contains(&Fault::IllegalFixedOwnWay));
        assert!(EXTENDED_KINDS.contains(&Fault::IllegalFixedOwnWay));
        assert!(KINDS.iter().all(|k| EXTENDED_KINDS.contains(k)));
        let mut found = false;
        for seed in 0..20 {
            let (start, moves) = random_game(seed, 60);
            let (placed, s) = inject_random_with(
                &EXTENDED_KINDS,
                &start,
                &moves,
                &HandStyle::bullet(),
                seed,
                4,
            )
            .unwrap();
            assert_eq!(s.moves.len(), moves.len());
            assert!(s.trace.records.windows(2).all(|w| w[0].t <= w[1].t));
            found |= placed.iter().any(|&(_, f)| f == Fault::IllegalFixedOwnWay);
        }
        assert!(found);
    }
}
