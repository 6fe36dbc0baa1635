//! Moves made while the sensors were not read: short sequences of legal
//! plies that explain a board that jumped, searched guided by the squares
//! that differ (not by brute force).
use shakmaty::{Bitboard, Chess, Color, Move, Position};

use super::board_math::{moving_from, occupancy_after};
use crate::game::repetition::PositionKey;

/// What the search concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explanation {
    /// One position explains the board; these plies lead to it.
    Unique(Vec<Move>),
    /// Several positions explain it (at the fewest plies that explain it).
    Ambiguous(Vec<Vec<Move>>),
    /// No sequence of up to the limit explains it (or the search ran out
    /// of its budget: not explained is the safe answer).
    None,
}

/// The most sequences collected before giving up on uniqueness.
const MAX_SOLUTIONS: usize = 64;

/// The most positions one search visits: beyond it the board is "not
/// explained" rather than the scan loop stalled.
const NODE_BUDGET: usize = 200_000;

/// The most positions the search for longer lines of a jump visits: it
/// runs on every jump, and the fewest plies are the likelier answer.
/// (Measured on the FULL jump sets: 25,000 reads them as 50,000 did and
/// keeps a 4-ply jump's p99 under 10 ms more often; 12,500 loses the
/// longer lines twic 319 needs.)
const LONGER_BUDGET: usize = 25_000;

/// The most positions the search for lines two plies longer visits
/// (kept on probation: a rare case, searched on every jump).
const PROBATION_BUDGET: usize = 5_000;

/// The most positions the search for lines with a hand at work after
/// them visits (see [`with_a_hand_at_work`]).
const HAND_AT_WORK_BUDGET: usize = 10_000;

/// The most positions the search for a jump's plies with a hand landing
/// after them visits (see [`with_a_hand_landed`]).
const HAND_LANDED_BUDGET: usize = 25_000;

/// Up to this many plies, pieces that do not stand on a changed square may
/// move too (and come back later).
const ROAM_DEPTH: usize = 4;

/// Searches sequences of 1 to `max_plies` legal plies from `pos` whose
/// final occupancy is `target` (and, when the board tells colours, whose
/// white pieces stand on `white`). The fewest plies that explain the board
/// win (parsimony); among those the explanation must be one position.
pub fn search(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
) -> Explanation {
    search_with(pos, target, white, max_plies, Roam::Short)
}

/// Whether pieces off the changed squares may move (and come back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roam {
    /// In runs of up to four plies (a jump: nobody saw what happened).
    Short,
    /// Never: every ply moves a piece from a square that differs or that
    /// an earlier ply reached. For a board the hands were seen at work
    /// on, where a tempo move out and back would explain almost anything.
    Never,
}

/// Every line that may explain the board: the positions the fewest plies
/// reach (as [`search_with`]), and those one ply more reaches without
/// roaming, where the other side has the move — which of the two the
/// players made, only the next moves tell. Lines reaching one position by
/// other plies stay apart: which were played, the board never tells.
pub fn explanations(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
    roam_rule: Roam,
) -> Vec<Vec<Move>> {
    explanations_moving(pos, target, white, max_plies, roam_rule, Bitboard::FULL)
}

/// [`explanations`] by plies that move only pieces standing on `movable`
/// when they move (the squares the hands were seen lifting from: the
/// fewest plies the hands were seen making, searched without the others).
pub fn explanations_moving(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
    roam_rule: Roam,
    movable: Bitboard,
) -> Vec<Vec<Move>> {
    // Every line at the fewest plies: lines reaching one position by other
    // plies (a transposition, a promotion whose piece was taken) are kept.
    let Some(found) = at_fewest(pos, target, white, max_plies, roam_rule, movable) else {
        return Vec::new();
    };
    let mut lines: Vec<Vec<Move>> = found.into_iter().map(|(_, line)| line).collect();
    let Some(fewest) = lines.first().map(Vec::len) else {
        return Vec::new();
    };
    if fewest < max_plies {
        let mut nodes = 0;
        let found = at_depth(
            pos,
            target,
            white,
            fewest + 1,
            Roam::Never,
            movable,
            (&mut nodes, NODE_BUDGET),
        );
        if nodes <= NODE_BUDGET {
            lines.extend(found.into_iter().map(|(_, line)| line));
        }
    }
    lines
}

/// After a jump, lines one ply longer than `lines` (or three, after a
/// single move's board; tempo moves out and back included) that leave the
/// board the same with the other side to move: the next move seen tells
/// them apart at once. `lines` are those [`explanations`] found with the
/// same `max_plies`. Lines two plies longer (the same side to move) are
/// [`two_plies_longer`]'s. Bounded by its own node budget: it runs on
/// every jump.
pub fn with_the_other_side_to_move(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    lines: &[Vec<Move>],
    max_plies: usize,
) -> Vec<Vec<Move>> {
    let Some(fewest) = lines.iter().map(Vec::len).min() else {
        return Vec::new();
    };
    let mut longer: Vec<Vec<Move>> = Vec::new();
    let mut nodes = 0;
    // Three plies more only after a single move's board (a tempo move out
    // and back by each side around it): beyond, the lines grow long and
    // many, and the board is already far from one move.
    let extra: &[usize] = if fewest == 1 { &[1, 3] } else { &[1] };
    for depth in extra.iter().map(|k| fewest + k) {
        if depth > max_plies {
            break;
        }
        // Beyond the roaming depth this is the search [`explanations`]
        // ran for one ply more, with a larger budget: its lines are in
        // `lines` already.
        if depth == fewest + 1 && depth > ROAM_DEPTH {
            continue;
        }
        let budget = (&mut nodes, LONGER_BUDGET);
        let Some(found) = new_lines_at(pos, target, white, depth, Roam::Short, budget, lines)
        else {
            break;
        };
        longer.extend(found);
    }
    longer
}

/// After a jump, lines two plies longer that leave the board the same
/// with the same side to move (a rook that went on to its square by way
/// of another, a capture on another square; after a single move's board,
/// its piece gone on by way of the square an opponent's piece left for
/// the one it seems to reach, `Nc5 d6 Nd7` for `Nd6`): only a
/// later move of a piece that stands elsewhere under them tells them
/// apart, which may come several moves on, or never (a king and rook
/// that swapped squares). Pieces off the changed squares do not roam.
/// The caller keeps them on probation: fewer plies are far likelier
/// (parsimony). `lines` are those [`explanations`] found.
pub fn two_plies_longer(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    lines: &[Vec<Move>],
    max_plies: usize,
) -> Vec<Vec<Move>> {
    let Some(fewest) = lines.iter().map(Vec::len).min() else {
        return Vec::new();
    };
    let depth = fewest + 2;
    if depth > max_plies {
        return Vec::new();
    }
    let budget = (&mut 0, PROBATION_BUDGET);
    new_lines_at(pos, target, white, depth, Roam::Never, budget, lines).unwrap_or_default()
}

/// After a jump, lines of fewer plies than `lines` (of up to `max_plies`
/// when `lines` is empty) whose position is the
/// board with a piece more on one of `emptied` (squares the jump emptied):
/// the sensors were read again while the next mover's hand held that
/// piece (his own to move, or one he takes off to capture it), so the
/// board shows the plies and a hand at work. Which, only the hand's next
/// placement tells; the caller keeps only lines where such a hand
/// explains the board. Bounded by its own node budget (it runs on every
/// jump of two plies or more).
pub fn with_a_hand_at_work(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    lines: &[Vec<Move>],
    emptied: Bitboard,
    max_plies: usize,
) -> Vec<Vec<Move>> {
    // (Where nothing explains the board in full, up to `max_plies`.)
    let fewest = lines.iter().map(Vec::len).min().unwrap_or(max_plies + 1);
    let hands: Vec<Bitboard> = emptied.into_iter().map(Bitboard::from_square).collect();
    with_pieces_in_the_hand(pos, target, white, &hands, 1..fewest)
}

/// [`with_a_hand_at_work`] with two pieces more on `emptied`: the next
/// mover's hand at work on a capture (the captured piece taken off and his
/// capturing piece lifted, either first) or on castling (his king and rook
/// lifted). Lines of up to `max_plies`, the fewest found; which move, only
/// where the hand lands tells. Bounded by the same node budget.
pub fn with_two_pieces_in_the_hand(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    emptied: Bitboard,
    max_plies: usize,
) -> Vec<Vec<Move>> {
    let hands: Vec<Bitboard> = emptied
        .into_iter()
        .flat_map(|a| {
            emptied
                .into_iter()
                .filter(move |&b| b > a)
                .map(move |b| Bitboard::from_square(a).with(b))
        })
        .collect();
    with_pieces_in_the_hand(pos, target, white, &hands, 1..max_plies + 1)
}

/// Lines of the fewest plies in `depths` whose position is `target` with
/// the pieces of one of `hands` more (held in the hand: of either colour,
/// so where the board tells colours, every other square must match).
/// Bounded by [`HAND_AT_WORK_BUDGET`] nodes in all.
fn with_pieces_in_the_hand(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    hands: &[Bitboard],
    depths: std::ops::Range<usize>,
) -> Vec<Vec<Move>> {
    let mut found: Vec<Vec<Move>> = Vec::new();
    let mut nodes = 0;
    for depth in depths {
        for &hand in hands {
            let budget = (&mut nodes, HAND_AT_WORK_BUDGET);
            let Some(more) =
                new_lines_at(pos, target | hand, None, depth, Roam::Never, budget, &found)
            else {
                return found;
            };
            found.extend(more.into_iter().filter(|line| {
                white.is_none_or(|w| {
                    let mut end = pos.clone();
                    for m in line {
                        end.play_unchecked(*m);
                    }
                    end.board().white() & !hand == w & !hand
                })
            }));
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

/// After a jump whose first reading (`raw`) caught a hand at work — a
/// piece a ply of the jump set down, lifted again before the sensors were
/// read, so that `raw` shows its square empty — and the hand then set it
/// down (the only change from `raw` to `board`): the plies of the jump, up
/// to `max_plies`, reaching `raw` with that piece still on its square,
/// then the hand's move, whose landing was read and whose lift was not.
/// Where the piece stood, only the squares it may have come from tell
/// (empty in `raw`, a queen's or a knight's step from where it landed);
/// the fewest plies win. Bounded by its own node budget; run only where
/// nothing else explains the board.
pub fn with_a_hand_landed(
    pos: &Chess,
    raw: Bitboard,
    board: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
) -> Vec<Vec<Move>> {
    let landed = board & !raw;
    if (raw & !board).any() || landed.count() != 1 {
        return Vec::new();
    }
    let Some(to) = landed.first() else {
        return Vec::new();
    };
    let from_squares =
        (shakmaty::attacks::queen_attacks(to, raw) | shakmaty::attacks::knight_attacks(to)) & !raw;
    let mut nodes = 0;
    let mut found: Vec<Vec<Move>> = Vec::new();
    for depth in 1..=max_plies {
        for from in from_squares {
            let budget = (&mut nodes, HAND_LANDED_BUDGET);
            let Some(lines) =
                new_lines_at(pos, raw.with(from), None, depth, Roam::Never, budget, &[])
            else {
                return found;
            };
            for line in lines {
                let mut end = pos.clone();
                for m in &line {
                    end.play_unchecked(*m);
                }
                for m in end.legal_moves() {
                    if m.from() == Some(from)
                        && !m.is_castle()
                        && occupancy_after(&end, &m) == board
                        && white.is_none_or(|w| {
                            let mut after = end.clone();
                            after.play_unchecked(m);
                            after.board().white() == w
                        })
                    {
                        let mut more = line.clone();
                        more.push(m);
                        found.push(more);
                    }
                }
            }
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

/// The lines of exactly `depth` plies reaching `target` that are not
/// among `known`, counting the positions visited into `nodes`; `None`
/// once the search went past `budget` (not explained is the safe answer).
fn new_lines_at(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    depth: usize,
    roam_rule: Roam,
    (nodes, budget): (&mut usize, usize),
    known: &[Vec<Move>],
) -> Option<Vec<Vec<Move>>> {
    let found = at_depth(
        pos,
        target,
        white,
        depth,
        roam_rule,
        Bitboard::FULL,
        (&mut *nodes, budget),
    );
    if *nodes > budget {
        return None;
    }
    Some(
        found
            .into_iter()
            .map(|(_, line)| line)
            .filter(|line| !known.contains(line))
            .collect(),
    )
}

/// [`search`], with the roaming rule given.
pub fn search_with(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
    roam_rule: Roam,
) -> Explanation {
    let Some(mut found) = at_fewest(pos, target, white, max_plies, roam_rule, Bitboard::FULL)
        .filter(|f| !f.is_empty())
    else {
        return Explanation::None;
    };
    let first = found[0].0.clone();
    if found.iter().all(|(k, _)| *k == first) {
        return Explanation::Unique(found.swap_remove(0).1);
    }
    let mut distinct: Vec<(PositionKey, Vec<Move>)> = Vec::new();
    for (k, p) in found {
        if !distinct.iter().any(|(d, _)| *d == k) {
            distinct.push((k, p));
        }
    }
    Explanation::Ambiguous(distinct.into_iter().map(|(_, p)| p).collect())
}

/// Every run of the fewest plies (up to `max_plies`) reaching `target`:
/// empty when none does, `None` when the search ran out of its budget.
fn at_fewest(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    max_plies: usize,
    roam_rule: Roam,
    movable: Bitboard,
) -> Option<Vec<(PositionKey, Vec<Move>)>> {
    let mut nodes = 0;
    for depth in 1..=max_plies {
        let found = at_depth(
            pos,
            target,
            white,
            depth,
            roam_rule,
            movable,
            (&mut nodes, NODE_BUDGET),
        );
        if nodes > NODE_BUDGET {
            return None;
        }
        if !found.is_empty() {
            return Some(found);
        }
    }
    Some(Vec::new())
}

/// Every run of exactly `depth` plies reaching `target` (up to the
/// solution cap), each moving only pieces on `movable`, counting the
/// positions visited into `nodes`.
fn at_depth(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    depth: usize,
    roam_rule: Roam,
    movable: Bitboard,
    (nodes, budget): (&mut usize, usize),
) -> Vec<(PositionKey, Vec<Move>)> {
    let mut found = Vec::new();
    // A piece may step away and come back (a tempo move) only in short
    // searches: it widens every ply to all legal moves.
    let roam = depth <= ROAM_DEPTH && roam_rule == Roam::Short;
    dfs(
        pos,
        target,
        white,
        depth,
        (roam, movable),
        Bitboard::EMPTY,
        &mut Vec::with_capacity(depth),
        &mut found,
        (nodes, budget),
    );
    found
}

#[allow(clippy::too_many_arguments)]
fn dfs(
    pos: &Chess,
    target: Bitboard,
    white: Option<Bitboard>,
    remaining: usize,
    (roam, movable): (bool, Bitboard),
    entered: Bitboard,
    path: &mut Vec<Move>,
    found: &mut Vec<(PositionKey, Vec<Move>)>,
    (nodes, budget): (&mut usize, usize),
) {
    *nodes += 1;
    if found.len() >= MAX_SOLUTIONS || *nodes > budget {
        return;
    }
    let occ = pos.board().occupied();
    if remaining == 0 {
        if occ == target && white.is_none_or(|w| w == pos.board().white()) {
            found.push((PositionKey::of(pos), path.clone()));
        }
        return;
    }
    if !reachable(pos, target, remaining) {
        return;
    }
    let diff = occ ^ target;
    for m in pos.legal_moves() {
        if (moving_from(&m) & !movable).any() {
            continue;
        }
        // Guided: a piece leaves a square that must change, or moves again,
        // or reaches a square that must be filled (its own square may be
        // taken by another piece later).
        // A capture too: the captured piece's square stays occupied, and
        // the capturer's may be filled again by a later ply.
        let fills = (occupancy_after(pos, &m) & !occ & diff).any() || m.is_capture();
        if (moving_from(&m) & (diff | entered)).is_empty() && !fills && !(roam && remaining >= 3) {
            continue;
        }
        let after = occupancy_after(pos, &m);
        // On the last ply every square must come right.
        if remaining == 1 && after != target {
            continue;
        }
        let mut next = pos.clone();
        next.play_unchecked(m);
        let arrived = after & !occ;
        path.push(m);
        dfs(
            &next,
            target,
            white,
            remaining - 1,
            (roam, movable),
            entered | arrived,
            path,
            found,
            (&mut *nodes, budget),
        );
        path.pop();
    }
}

/// A lower bound on the plies needed. A ply changes the occupancy of
/// two squares (its piece leaves one and enters another; a capture only
/// empties the square left), castling four (each side castles once, if it
/// still may), an en passant capture three (after a double step just
/// played, so at most every other ply, the first one aside). It fills one
/// square (castling two) and empties one of the mover's squares (castling
/// two), and the pieces to be taken need a capture each. A square of one
/// side is also vacated by the other side capturing there and moving on
/// (a knight taking a pawn, then leaving).
fn reachable(pos: &Chess, target: Bitboard, remaining: usize) -> bool {
    let board = pos.board();
    let occ = board.occupied();
    let must_empty = occ & !target;
    let must_fill = target & !occ;
    let captures = occ.count().saturating_sub(target.count());
    let us = pos.turn();
    let ours = remaining.div_ceil(2);
    let theirs = remaining / 2;
    let plies = |c: Color| if c == us { ours } else { theirs };
    let castlings = Color::ALL
        .into_iter()
        .filter(|&c| plies(c) > 0 && pos.castles().has_color(c))
        .count();
    let en_passant = (remaining / 2 + usize::from(pos.maybe_ep_square().is_some())).min(remaining);
    if captures > remaining
        || must_fill.count() > remaining + castlings
        || must_empty.count() > remaining + castlings + en_passant
        || must_fill.count() + must_empty.count() > 2 * remaining + 2 * castlings + en_passant
    {
        return false;
    }
    Color::ALL.into_iter().all(|color| {
        let stranded = (must_empty & board.by_color(color)).count();
        stranded <= 2 * plies(color) + plies(!color)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Start;
    use shakmaty::{CastlingMode, Square};

    fn position(fen: &str) -> Chess {
        Start::from_fen(fen).unwrap().position().clone()
    }

    fn uci(line: &[Move]) -> Vec<String> {
        line.iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect()
    }

    fn occupancy_after_line(pos: &Chess, line: &[&str]) -> Bitboard {
        let mut p = pos.clone();
        for u in line {
            let m = p
                .legal_moves()
                .into_iter()
                .find(|m| m.to_uci(CastlingMode::Standard).to_string() == *u)
                .unwrap_or_else(|| panic!("{u} is not legal"));
            p.play_unchecked(m);
        }
        p.board().occupied()
    }

    /// Three plies where a black pawn's square is emptied by White (a
    /// knight takes it and moves on) while Black castles: three black
    /// squares emptied in two white plies and one black one.
    #[test]
    fn a_square_emptied_by_the_other_side_capturing_and_moving_on_is_reachable() {
        let pos = position("r1b1k2r/pp1n1pp1/4p2p/q2n4/1b1p3B/2N1PN2/PP1QBPPP/2R1K2R w Kkq - 0 12");
        let target = occupancy_after_line(&pos, &["f3d4", "e8g8", "d4b3"]);
        let lines = explanations(&pos, target, None, 4, Roam::Short);
        assert!(
            lines.iter().any(|l| uci(l) == ["f3d4", "e8g8", "d4b3"]),
            "{:?}",
            lines.iter().map(|l| uci(l)).collect::<Vec<_>>()
        );
        assert!(lines.iter().all(|l| l.len() >= 3));
        assert!(!target.contains(Square::D4), "the pawn taken on d4 is gone");
    }

    /// Only pieces standing on `movable` move: the knight's tempo line is
    /// searched only when its squares are among them.
    #[test]
    fn lines_moving_only_the_pieces_on_the_squares_given() {
        let pos = Chess::default();
        let target = occupancy_after_line(&pos, &["e2e4", "e7e5", "g1f3", "b8c6"]);
        let pawns = Bitboard::from(Square::E2) | Bitboard::from(Square::E7);
        let knights = Bitboard::from(Square::G1) | Bitboard::from(Square::B8);
        let moving = |movable| {
            explanations_moving(&pos, target, None, 4, Roam::Never, movable)
                .iter()
                .map(|l| uci(l))
                .collect::<Vec<_>>()
        };
        assert!(moving(pawns).is_empty());
        assert!(moving(knights).is_empty());
        let both = moving(pawns | knights);
        assert!(!both.is_empty());
        assert_eq!(
            both,
            explanations(&pos, target, None, 4, Roam::Never)
                .iter()
                .map(|l| uci(l))
                .collect::<Vec<_>>()
        );
    }

    /// `...c6 a3 Ba5 b4` read with the bishop already lifted from a5, then
    /// set down on c7: the four plies, then the bishop's move.
    #[test]
    fn a_jump_read_with_a_piece_in_the_hand_then_its_landing() {
        let pos = position("rnbq1rk1/pppp1ppp/4pn2/8/1bPP4/2N1P3/PP2NPPP/R1BQKB1R b KQ - 2 5");
        let jump = ["c7c6", "a2a3", "b4a5", "b2b4"];
        let raw = occupancy_after_line(&pos, &jump).without(Square::A5);
        let board = raw.with(Square::C7);
        // No four plies explain the board (five are needed).
        assert!(explanations(&pos, board, None, 4, Roam::Short).is_empty());
        let lines: Vec<Vec<String>> = with_a_hand_landed(&pos, raw, board, None, 4)
            .iter()
            .map(|l| uci(l))
            .collect();
        assert!(
            lines.contains(
                &["c7c6", "a2a3", "b4a5", "b2b4", "a5c7"]
                    .map(String::from)
                    .to_vec()
            ),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| l.len() == 5 && l[4].ends_with("c7")));
        // A lift since the raw reading, or two landings: not this hand.
        assert!(with_a_hand_landed(&pos, raw, board.without(Square::A3), None, 4).is_empty());
        assert!(with_a_hand_landed(&pos, raw, board.with(Square::H6), None, 4).is_empty());
    }

    /// Four plies with the king out and back (`Nf6+ Kf8 Nh7+ Kg8`) leave
    /// the board of three (`Ne7+ Kh7 Ng8`), with the other side to move.
    #[test]
    fn a_tempo_move_out_and_back_is_a_line_with_the_other_side_to_move() {
        let pos = position("1rb3k1/1q4p1/p2p3p/3Nrp1P/5p2/PpP2P2/1K6/3R2QR w - - 0 27");
        let target = occupancy_after_line(&pos, &["d5f6", "g8f8", "f6h7", "f8g8"]);
        let lines = explanations(&pos, target, None, 4, Roam::Short);
        let fewest: Vec<Vec<String>> = lines.iter().map(|l| uci(l)).collect();
        assert_eq!(fewest, [["d5e7", "g8h7", "e7g8"]]);
        let longer = with_the_other_side_to_move(&pos, target, None, &lines, 4);
        assert!(
            longer
                .iter()
                .any(|l| uci(l) == ["d5f6", "g8f8", "f6h7", "f8g8"]),
            "{:?}",
            longer.iter().map(|l| uci(l)).collect::<Vec<_>>()
        );
        assert!(longer.iter().all(|l| l.len() == 4));
    }

    /// Castling changes four squares in one ply and an en passant capture
    /// three: the bound on the plies needed still lets both through.
    #[test]
    fn castling_and_en_passant_are_read_as_one_ply() {
        let pos = position("r3k2r/ppp2ppp/1q6/3pP3/8/8/PPPQ1PPP/R3K2R w KQkq d6 0 12");
        for line in [["e1g1"], ["e1c1"], ["e5d6"]] {
            let target = occupancy_after_line(&pos, &line);
            assert!(reachable(&pos, target, 1), "{line:?}");
            match search(&pos, target, None, 4) {
                Explanation::Unique(found) => assert_eq!(uci(&found), line),
                other => panic!("{line:?}: {other:?}"),
            }
        }
    }

    /// Without castling rights a ply fills one square: three squares to
    /// fill need three plies, however they are shared between the sides.
    #[test]
    fn a_ply_fills_one_square_without_castling() {
        let pos = position("r4rk1/pppq1ppp/2n5/8/8/2N5/PPPQ1PPP/R4RK1 w - - 0 12");
        let two = occupancy_after_line(&pos, &["a2a3", "a7a6"]);
        assert!(reachable(&pos, two, 2));
        assert!(!reachable(&pos, two, 1));
        let three = occupancy_after_line(&pos, &["a2a3", "a7a6", "h2h3"]);
        assert!(!reachable(&pos, three, 2));
        assert!(reachable(&pos, three, 3));
    }

    /// `...Qf4 Re1 Qxe3+ Rxe3` leaves the board of `...Qxd3 Rxd3`, with
    /// the same side to move: the fewest plies are the two, and the four
    /// are a line two plies longer (the rook by way of e1, not roaming).
    #[test]
    fn a_capture_on_another_square_is_a_line_two_plies_longer() {
        let pos = position("r1b1r1k1/1p3pp1/2p1n2p/p3pq2/P7/3BQ2P/NPP3P1/R2R2K1 b - - 3 22");
        let target = occupancy_after_line(&pos, &["f5f4", "d1e1", "f4e3", "e1e3"]);
        let lines = explanations(&pos, target, None, 4, Roam::Short);
        let found: Vec<Vec<String>> = lines.iter().map(|l| uci(l)).collect();
        assert!(found.contains(&vec!["f5d3".to_owned(), "d1d3".to_owned()]));
        assert!(lines.iter().all(|l| l.len() <= 3));
        let longer = two_plies_longer(&pos, target, None, &lines, 4);
        let longer: Vec<Vec<String>> = longer.iter().map(|l| uci(l)).collect();
        assert!(longer.contains(&["f5f4", "d1e1", "f4e3", "e1e3"].map(String::from).to_vec()));
        assert!(longer.iter().all(|l| l.len() == 4));
        // Not beyond the plies allowed.
        assert!(two_plies_longer(&pos, target, None, &lines, 3).is_empty());
    }

    #[test]
    fn a_knight_gone_on_to_a_square_a_pawn_left_is_a_line_two_plies_longer_than_one_move() {
        let pos = position("r1bqkbnr/p2ppppp/1pp5/8/1n2N1P1/8/PPPPPP1P/R1BQKBNR w KQkq - 1 5");
        let target = occupancy_after_line(&pos, &["e4c5", "d7d6", "c5d7"]);
        let lines = explanations(&pos, target, None, 4, Roam::Short);
        let found: Vec<Vec<String>> = lines.iter().map(|l| uci(l)).collect();
        assert!(found.contains(&vec!["e4d6".to_owned()]));
        assert!(lines.iter().all(|l| l.len() == 1));
        let longer: Vec<Vec<String>> = two_plies_longer(&pos, target, None, &lines, 4)
            .iter()
            .map(|l| uci(l))
            .collect();
        assert!(longer.contains(&["e4c5", "d7d6", "c5d7"].map(String::from).to_vec()));
        assert!(longer.iter().all(|l| l.len() == 3));
        assert!(two_plies_longer(&pos, target, None, &lines, 2).is_empty());
    }
}
