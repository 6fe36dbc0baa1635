//! Fault injectors: irregularities a real game has, each with the exact
//! events the daemon must emit for it.
//!
//! A fault is given with the index (0-based, into the moves) of the move it
//! comes before; see [`Fault`] for what each one does to the board.
use rand::RngExt;
use shakmaty::{Bitboard, CastlingSide, Chess, Move, Position, Square, uci::UciMove};

use super::hands::{HandStyle, Travel};
use super::moves::{self, BETWEEN, Window};
use super::{Builder, Expected, IllegalInput, Synthesized, TouchArticle};
use crate::Millis;
use crate::game::fen_of;
use crate::sensors::trace::Record;

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
    /// The sensors are not read while the next `k` plies (1–3) are made;
    /// the board jumps to the position after them in one scan. `move` for
    /// each when one sequence of legal moves alone explains the jump, else
    /// `unexplained` with the candidates.
    MissedPlies(usize),
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
            match fault {
                Fault::KnockedPiece(knock) => knocked(&mut game, knock).map_err(unplaceable)?,
                Fault::MissedPlies(k) => {
                    if k == 0 || k > 3 || index + k > moves.len() {
                        return Err(unplaceable("needs 1 to 3 plies left in the game"));
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
                game.table.wait(BETWEEN);
                game.table.lift(to);
                game.table.wait(BETWEEN);
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
    game.table.wait(style.press_ms);
    game.table.button(Record::Clock(side));
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
    game.table.wait(BETWEEN);
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
        mode: shakmaty::CastlingMode,
        line: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            line.push(UciMove::from_move(m, mode).to_string());
            if after.board().occupied() == occ {
                found.push(line.clone());
            }
            if left > 1 {
                walk(&after, occ, left - 1, mode, line, found);
            }
            line.pop();
        }
    }
    let mut found = Vec::new();
    walk(pos, occ, max, mode, &mut Vec::new(), &mut found);
    found
}

/// Every kind of fault, for [`inject_random`].
const KINDS: [Fault; 9] = [
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

/// Plays `moves` with up to `count` faults of random kinds at random moves
/// (at most one per move, never before the first move), keeping only those
/// that can be placed. Returns the faults placed and the game.
pub fn inject_random(
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
        if chosen.len() >= count || moves.len() < 2 {
            break;
        }
        let at = rng.random_range(1..moves.len());
        let fault = KINDS[rng.random_range(0..KINDS.len())];
        let span = match fault {
            Fault::MissedPlies(k) => k,
            _ => 1,
        };
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
