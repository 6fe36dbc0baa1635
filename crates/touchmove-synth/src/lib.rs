//! The trace synthesizer: chess games turned into raw sensor traces by a
//! model of human hands ([`hands`]), with fault injectors ([`faults`]).
//!
//! - [`synthesize`] plays a list of legal moves from a start position with a
//!   [`HandStyle`] and a seed, and returns the raw [`Trace`], the ideal-sensor
//!   timeline with colours, each move's time window, and the events the daemon
//!   must conclude ([`Expected`], mirroring `../shared/spec/events.md`).
//! - [`random_games`] makes seeded random legal games rich in captures,
//!   castling, en passant and promotions; [`from_pgn_game`] plays a game
//!   read by [`touchmove_core::game::pgn`].
//! - [`faults`] inserts irregularities: illegal moves (Article 7.4 of the 2005
//!   Laws, 7.5 of 2023), displaced pieces (7.3), touch-move breaches (4.3a),
//!   and plies the sensors never saw (jumps of the board).
//! - Some hands are fast: the next mover may grab his piece once the
//!   opponent's piece is released, before the opponent's clock press
//!   (Articles 1.1, 4.6, 6.7); some nudge pieces while thinking.
//!
//! The same seed, style and moves always give the same trace.
pub mod dense;
pub mod faults;
pub mod hands;
mod moves;
pub mod random_games;
pub mod sampled;

use std::fmt;

use shakmaty::{
    ByColor, CastlingMode, Chess, Color, Move, Position, Square, san::SanPlus, uci::UciMove,
};

pub use hands::{
    CaptureOrder, CastlingOrder, EnPassantOrder, HandStyle, Mix, Nudge, PromoteInput,
    PromotionHands, Travel,
};
pub use random_games::{random_game, random_game_from};

use hands::Table;
use touchmove_core::Millis;
use touchmove_core::game::{EndReason, fen_of, pgn::PgnGame};
use touchmove_core::scan::Snapshot;
use touchmove_core::trace::{Header, Trace};

/// A synthesized game: what the sensors said, what really stood on the
/// board, when each move was made, and what the daemon must conclude.
#[derive(Debug, Clone)]
pub struct Synthesized {
    /// The raw trace (format v1): occupancy scans with bounce, slide
    /// transients and EMI glitches, clock presses and promotion choices.
    pub trace: Trace,
    /// What an ideal sensor sees (no bounce, no EMI), with colours, at
    /// time 0 and after every change: pieces in place, and a sliding piece
    /// on each empty square it passes over.
    pub timeline: Vec<(Millis, Snapshot)>,
    /// Every legal move made on the board, in order.
    pub moves: Vec<SynthMove>,
    /// The events the daemon must emit, in order (moves and alerts).
    pub expected: Vec<Expected>,
    /// Pieces nudged while a player thought (no event is expected for them).
    pub nudges: Vec<Nudge>,
}

/// One move as the hands made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthMove {
    /// 1 = the first move of the game, whoever makes it and whatever the
    /// start FEN's move number (as `ply` of the `move` event).
    pub ply: u32,
    pub side: Color,
    pub mv: Move,
    pub uci: String,
    pub san: String,
    /// FEN (X-FEN for Chess960) after the move.
    pub fen_after: String,
    /// The first piece off its square for this move.
    pub first_lift: Millis,
    /// The last change on the board for this move (the release that makes it, Article 4.6).
    pub last_release: Millis,
    /// The clock press completing it (Article 6.7), if a clock is used. When
    /// the next mover grabbed early (see [`HandStyle::grab`]) it comes after
    /// the next move's first lift.
    pub clock: Option<Millis>,
}

/// The Article of a touch-move obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TouchArticle {
    /// 4.3a: an own piece touched must be moved.
    A4_3a,
    /// 4.3b: an opponent's piece touched must be captured.
    A4_3b,
    /// 4.4b: rook then king touched: no castling on that side, 4.3a applies.
    A4_4b,
}

impl TouchArticle {
    pub fn as_str(self) -> &'static str {
        match self {
            TouchArticle::A4_3a => "4.3a",
            TouchArticle::A4_3b => "4.3b",
            TouchArticle::A4_4b => "4.4b",
        }
    }
}

/// An event the daemon must emit, with the fields of `events.md` that a
/// synthesized game determines (times and sequence numbers are the daemon's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// `move`: a legal move made (Article 4.6).
    Move {
        /// 1 = the first move of the game (see [`SynthMove::ply`]).
        ply: u32,
        side: Color,
        san: String,
        uci: String,
        fen: String,
    },
    /// `illegal_move`: a warning (`completed: false`) or a completed
    /// illegal move (`completed: true`, counted; Article 7.4 of 2005, 7.5 of 2023).
    IllegalMove {
        side: Color,
        completed: bool,
        from: Option<Square>,
        to: Option<Square>,
        /// Illegal moves completed by `side` so far, this one included.
        count: u32,
    },
    /// `touch_move`: a touch-move obligation broken (Articles 4.3, 4.4).
    TouchMove {
        side: Color,
        article: TouchArticle,
        square: Square,
    },
    /// `displaced`: the board differs from the game (Articles 7.3, 7.5).
    Displaced {
        squares: Vec<Square>,
        expected_fen: String,
    },
    /// `restored`: the board matches the game again.
    Restored { fen: String },
    /// `game_over`: checkmate, stalemate or a dead position after the last move.
    GameOver {
        result: &'static str,
        reason: &'static str,
    },
    /// Plies the sensors never saw that no single sequence of legal moves
    /// explains: every candidate sequence (UCI), the true one among them.
    Unexplained { candidates: Vec<Vec<String>> },
}

impl Expected {
    /// The `type` of the event in `events.md` (`unexplained` is ours).
    pub fn kind(&self) -> &'static str {
        match self {
            Expected::Move { .. } => "move",
            Expected::IllegalMove { .. } => "illegal_move",
            Expected::TouchMove { .. } => "touch_move",
            Expected::Displaced { .. } => "displaced",
            Expected::Restored { .. } => "restored",
            Expected::GameOver { .. } => "game_over",
            Expected::Unexplained { .. } => "unexplained",
        }
    }

    /// The event as JSON, with the field names of `events.md` (no `t_ms`, `seq`).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let sq = |s: &Option<Square>| s.map(|s| s.to_string());
        match self {
            Expected::Move {
                ply,
                side,
                san,
                uci,
                fen,
            } => {
                json!({"type": "move", "ply": ply, "side": side.to_string(), "san": san, "uci": uci, "fen": fen})
            }
            Expected::IllegalMove {
                side,
                completed,
                from,
                to,
                count,
            } => json!({"type": "illegal_move", "side": side.to_string(), "completed": completed,
                        "from": sq(from), "to": sq(to), "count": count}),
            Expected::TouchMove {
                side,
                article,
                square,
            } => {
                json!({"type": "touch_move", "side": side.to_string(), "article": article.as_str(),
                        "square": square.to_string()})
            }
            Expected::Displaced {
                squares,
                expected_fen,
            } => json!({"type": "displaced",
                        "squares": squares.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                        "expected_fen": expected_fen}),
            Expected::Restored { fen } => json!({"type": "restored", "fen": fen}),
            Expected::GameOver { result, reason } => {
                json!({"type": "game_over", "result": result, "reason": reason})
            }
            Expected::Unexplained { candidates } => {
                json!({"type": "unexplained", "candidates": candidates})
            }
        }
    }
}

/// A move that is not legal where it was to be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {index} ({mv}) is not legal in {fen}")]
pub struct IllegalInput {
    /// 0-based index into the moves given.
    pub index: usize,
    pub mv: String,
    pub fen: String,
}

/// Plays `moves` from `start` with `style`'s hands; the same seed gives the same trace.
///
/// # Panics
/// If a move is not legal where it is played (see [`try_synthesize`]).
pub fn synthesize(start: &Chess, moves: &[Move], style: &HandStyle, seed: u64) -> Synthesized {
    try_synthesize(start, moves, style, seed).unwrap_or_else(|e| panic!("{e}"))
}

/// [`synthesize`], with an error for a move that is not legal.
pub fn try_synthesize(
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
) -> Result<Synthesized, IllegalInput> {
    let mut game = Builder::new(start, style, seed);
    for (index, &m) in moves.iter().enumerate() {
        game.check(index, m)?;
        game.play(m);
    }
    Ok(game.finish())
}

/// Synthesizes a game read from PGN.
pub fn from_pgn_game(game: &PgnGame, style: &HandStyle, seed: u64) -> Synthesized {
    // A PgnGame holds only moves checked legal when it was read.
    synthesize(game.start.position(), &game.moves, style, seed)
}

/// A game being played onto the table: the position, the hands and what was concluded.
pub(crate) struct Builder<'a> {
    pub table: Table,
    pub style: &'a HandStyle,
    pub start: Chess,
    pub pos: Chess,
    pub ply: u32,
    pub moves: Vec<SynthMove>,
    pub expected: Vec<Expected>,
    /// Illegal moves completed per side (Article 7.4).
    pub illegal: ByColor<u32>,
    pub mode: CastlingMode,
    seed: u64,
}

impl<'a> Builder<'a> {
    pub fn new(start: &Chess, style: &'a HandStyle, seed: u64) -> Builder<'a> {
        let mut table = Table::new(start.board().clone(), style, seed);
        // The players sit down: the set-up position stands for a while.
        table.wait((1000, 3000));
        Builder {
            table,
            style,
            start: start.clone(),
            pos: start.clone(),
            ply: 0,
            moves: Vec::new(),
            expected: Vec::new(),
            illegal: ByColor::new_with(|_| 0),
            mode: start.castles().mode(),
            seed,
        }
    }

    pub fn check(&self, index: usize, m: Move) -> Result<(), IllegalInput> {
        if self.pos.is_legal(m) {
            Ok(())
        } else {
            Err(IllegalInput {
                index,
                mv: m.to_string(),
                fen: fen_of(&self.pos),
            })
        }
    }

    /// Records `m` as made in the window and advances the game; notes the
    /// events the daemon must emit when `announce`.
    pub fn record(&mut self, m: Move, window: moves::Window, announce: bool) {
        let side = self.pos.turn();
        let san = SanPlus::from_move(self.pos.clone(), m).to_string();
        let uci = UciMove::from_move(m, self.mode).to_string();
        self.pos.play_unchecked(m);
        self.ply += 1;
        let fen = fen_of(&self.pos);
        self.moves.push(SynthMove {
            ply: self.ply,
            side,
            mv: m,
            uci: uci.clone(),
            san: san.clone(),
            fen_after: fen.clone(),
            first_lift: window.first_lift,
            last_release: window.last_release,
            clock: window.clock,
        });
        if announce {
            self.expected.push(Expected::Move {
                ply: self.ply,
                side,
                san,
                uci,
                fen,
            });
        }
        if let Some(over) = game_over(&self.pos) {
            self.expected.push(over);
        }
    }

    /// Plays the legal move `m` cleanly.
    pub fn play(&mut self, m: Move) {
        let window = moves::play(&mut self.table, &self.pos, m, self.style);
        self.record(m, window, true);
    }

    pub fn finish(mut self) -> Synthesized {
        // A little quiet time after the last action, so the end is settled.
        self.table.settle();
        self.table.wait((500, 1500));
        let nudges = std::mem::take(&mut self.table.nudges);
        let (records, timeline) = self.table.render(self.style.glitches_per_minute);
        let fen = fen_of(&self.start);
        let header = Header {
            start_fen: (fen != fen_of(&Chess::default())).then_some(fen),
            profile: Some(self.style.profile.clone()),
            board: Some(format!(
                "touchmove synth, style {}, seed {}",
                self.style.name, self.seed
            )),
        };
        Synthesized {
            trace: Trace { header, records },
            timeline,
            moves: self.moves,
            expected: self.expected,
            nudges,
        }
    }
}

/// The end of the game a position shows, if any (Articles 5.1a, 5.2a, 5.2b).
fn game_over(pos: &Chess) -> Option<Expected> {
    if pos.is_checkmate() {
        let result = match pos.turn() {
            Color::White => "0-1",
            Color::Black => "1-0",
        };
        Some(Expected::GameOver {
            result,
            reason: EndReason::Checkmate.name(),
        })
    } else if pos.is_stalemate() {
        Some(Expected::GameOver {
            result: "1/2-1/2",
            reason: EndReason::Stalemate.name(),
        })
    } else if pos.is_insufficient_material() {
        Some(Expected::GameOver {
            result: "1/2-1/2",
            reason: EndReason::DeadPosition.name(),
        })
    } else {
        None
    }
}

impl Synthesized {
    /// What stood on the board at time `t` (after every change at `t`), by the timeline.
    pub fn snapshot_at(&self, t: Millis) -> Snapshot {
        let i = self.timeline.partition_point(|&(u, _)| u <= t);
        self.timeline[i.saturating_sub(1)].1
    }

    /// When the game's last action happened (the end of the trace).
    pub fn end(&self) -> Millis {
        self.trace.records.last().map_or(0, |r| r.t)
    }
}

impl fmt::Display for Synthesized {
    /// The trace, in format v1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.trace.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_follow_the_timeline() {
        let (start, moves) = random_game(2, 6);
        let s = synthesize(&start, &moves, &HandStyle::careful(), 2);
        assert_eq!(s.snapshot_at(0), Snapshot::of_board(start.board()));
        let (t, last) = *s.timeline.last().unwrap();
        assert_eq!(s.snapshot_at(t), last);
        assert_eq!(s.snapshot_at(s.end() + 1000), last);
        let mut pos = start;
        for &m in &moves {
            pos.play_unchecked(m);
        }
        assert_eq!(last, Snapshot::of_board(pos.board()));
    }

    #[test]
    fn ply_numbers_start_at_one_from_a_fen_start() {
        let start = touchmove_core::game::Start::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30")
            .unwrap()
            .position()
            .clone();
        let first = start.legal_moves()[0];
        let mut after = start.clone();
        after.play_unchecked(first);
        let second = after.legal_moves()[0];
        let s = synthesize(&start, &[first, second], &HandStyle::random(), 1);
        assert_eq!(s.moves[0].ply, 1);
        assert_eq!(s.moves[0].side, Color::Black);
        assert_eq!(s.moves[1].ply, 2);
        let plies: Vec<u32> = s
            .expected
            .iter()
            .filter_map(|e| match e {
                Expected::Move { ply, .. } => Some(*ply),
                _ => None,
            })
            .collect();
        assert_eq!(plies, [1, 2]);
    }

    #[test]
    fn expected_events_serialise_with_the_contract_names() {
        let e = Expected::TouchMove {
            side: Color::White,
            article: TouchArticle::A4_3a,
            square: Square::E2,
        };
        assert_eq!(
            e.to_json(),
            serde_json::json!({"type": "touch_move", "side": "white", "article": "4.3a", "square": "e2"})
        );
        let e = Expected::IllegalMove {
            side: Color::Black,
            completed: true,
            from: Some(Square::D8),
            to: None,
            count: 2,
        };
        assert_eq!(
            e.to_json(),
            serde_json::json!({"type": "illegal_move", "side": "black", "completed": true, "from": "d8", "to": null, "count": 2})
        );
    }

    /// The occupancy the trace reports at `t` (after every record at `t`).
    fn occupancy_at(s: &Synthesized, t: Millis) -> shakmaty::Bitboard {
        let mut occ = shakmaty::Bitboard::EMPTY;
        for r in s.trace.records.iter().take_while(|r| r.t <= t) {
            if let touchmove_core::trace::Record::Occupancy(bb) = r.record {
                occ = bb;
            }
        }
        occ
    }

    fn final_position(start: &Chess, moves: &[Move]) -> Chess {
        let mut pos = start.clone();
        for &m in moves {
            pos.play_unchecked(m);
        }
        pos
    }

    fn clock_records(s: &Synthesized) -> Vec<(Millis, Color)> {
        s.trace
            .records
            .iter()
            .filter_map(|r| match r.record {
                touchmove_core::trace::Record::Clock(side) => Some((r.t, side)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn new_styles_end_on_the_final_position() {
        for name in ["blitz-hands", "bullet", "nudges"] {
            let style = HandStyle::by_name(name).unwrap();
            assert!(HandStyle::NAMES.contains(&name));
            for seed in 0..8 {
                let (start, moves) = random_game(seed, 120);
                let s = synthesize(&start, &moves, &style, seed);
                let end = final_position(&start, &moves);
                assert_eq!(occupancy_at(&s, s.end()), end.board().occupied(), "{name}");
                assert_eq!(
                    s.timeline.last().unwrap().1,
                    Snapshot::of_board(end.board())
                );
                // The hands' time never goes back: the timeline is in order.
                assert!(s.timeline.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
                assert!(s.trace.records.windows(2).all(|w| w[0].t <= w[1].t));
                assert_eq!(s.moves.len(), moves.len());
                assert!(
                    s.expected
                        .iter()
                        .all(|e| matches!(e, Expected::Move { .. } | Expected::GameOver { .. }))
                );
            }
        }
    }

    #[test]
    fn existing_styles_never_grab_nor_nudge() {
        for name in ["random", "carry", "slide", "careful", "blitz", "casual"] {
            let style = HandStyle::by_name(name).unwrap();
            assert_eq!((style.grab, style.nudge), (0.0, 0.0), "{name}");
            assert_eq!(style.between_ms, (100, 700), "{name}");
        }
    }

    #[test]
    fn grabbing_hands_lift_before_the_opponents_press_and_presses_alternate() {
        for style in [HandStyle::blitz_hands(), HandStyle::bullet()] {
            let (mut grabbed, mut moved_piece_taken, mut total) = (0, 0, 0);
            for seed in 0..10 {
                let (start, moves) = random_game(100 + seed, 120);
                let s = synthesize(&start, &moves, &style, seed);
                let presses = clock_records(&s);
                assert_eq!(presses.len(), s.moves.len(), "{}", style.name);
                for (m, &(t, side)) in s.moves.iter().zip(&presses) {
                    // Every press is the mover's and follows his last release.
                    assert_eq!((Some(t), side), (m.clock, m.side));
                    assert!(t >= m.last_release + style.press_ms.0, "{}", style.name);
                }
                // Sides alternate, each press at least 50 ms after the other side's.
                for w in presses.windows(2) {
                    assert_ne!(w[0].1, w[1].1);
                    assert!(w[1].0 >= w[0].0 + 50, "{w:?}");
                }
                for w in s.moves.windows(2) {
                    total += 1;
                    let (prev, next) = (&w[0], &w[1]);
                    assert!(next.first_lift > prev.last_release + 12);
                    if next.first_lift < prev.clock.unwrap() {
                        grabbed += 1;
                        let reaction = next.first_lift - prev.last_release;
                        assert!(reaction >= style.reaction_ms.0, "{reaction}");
                        // (After a promotion, from the choice entered after the release.)
                        if !prev.mv.is_promotion() {
                            assert!(reaction <= style.reaction_ms.1, "{reaction}");
                        }
                        // The first piece off may be the one just moved (captured at once).
                        if next.mv.is_capture() && next.mv.to() == prev.mv.to() {
                            let before = occupancy_at(&s, next.first_lift - 1);
                            let after = occupancy_at(&s, next.first_lift + 3);
                            if before.contains(next.mv.to()) && !after.contains(next.mv.to()) {
                                moved_piece_taken += 1;
                            }
                        }
                    }
                }
            }
            assert!(grabbed * 4 > total, "{}: {grabbed} of {total}", style.name);
            assert!(moved_piece_taken > 0, "{}", style.name);
        }
    }

    #[test]
    fn bullet_captures_take_some_60_ms_between_the_two_hands() {
        let mut style = HandStyle::bullet().noiseless();
        style.capture = Mix::only(CaptureOrder::CapturedFirst);
        style.hesitate = 0.0;
        let mut seen = 0;
        for seed in 0..5 {
            let (start, moves) = random_game(seed, 100);
            let s = synthesize(&start, &moves, &style, seed);
            for m in &s.moves {
                let Move::Normal {
                    from,
                    to,
                    capture: Some(_),
                    promotion: None,
                    ..
                } = m.mv
                else {
                    continue;
                };
                // The captured piece goes at the first lift, the own one 20–60 ms later.
                assert!(!occupancy_at(&s, m.first_lift).contains(to));
                let left = s
                    .timeline
                    .iter()
                    .find(|(t, sn)| *t >= m.first_lift && !sn.occupied().contains(from))
                    .unwrap()
                    .0;
                assert!((20..=60).contains(&(left - m.first_lift)), "{}", m.uci);
                seen += 1;
            }
        }
        assert!(seen > 20, "{seen}");
    }

    #[test]
    fn without_a_clock_nobody_grabs() {
        let style = HandStyle::bullet().without_clock();
        let (start, moves) = random_game(3, 80);
        let s = synthesize(&start, &moves, &style, 3);
        assert!(clock_records(&s).is_empty());
        for w in s.moves.windows(2) {
            assert!(w[1].first_lift >= w[0].last_release + 400);
        }
    }

    #[test]
    fn nudged_squares_are_occupied_again_within_120_ms_and_the_piece_stays() {
        let style = HandStyle::nudges().without_glitches();
        let mut nudges = 0;
        let mut thinks = 0;
        for seed in 0..10 {
            let (start, moves) = random_game(200 + seed, 100);
            let s = synthesize(&start, &moves, &style, seed);
            thinks += s.moves.len();
            assert!(
                s.expected
                    .iter()
                    .all(|e| matches!(e, Expected::Move { .. } | Expected::GameOver { .. })),
                "a nudge is no touch and no alert"
            );
            for n in &s.nudges {
                nudges += 1;
                assert!((20..=100).contains(&(n.on - n.off)));
                let before = s.snapshot_at(n.off - 1);
                assert!(before.occupied().contains(n.square));
                assert!(!occupancy_at(&s, n.off).contains(n.square));
                assert!(!s.snapshot_at(n.off).occupied().contains(n.square));
                // Occupied again within 120 ms, bounce included, and stays so
                // until the move after it.
                let next = s.moves.iter().find(|m| m.first_lift > n.on).unwrap();
                assert!(next.first_lift >= n.off + 120 + 50);
                for t in n.off + 113..next.first_lift {
                    assert!(occupancy_at(&s, t).contains(n.square), "at {t}");
                }
                // The same piece stands there, and the move leaves it alone.
                let after = s.snapshot_at(next.first_lift - 1);
                assert_eq!(
                    before.by_color(Color::White).contains(n.square),
                    after.by_color(Color::White).contains(n.square)
                );
                assert_eq!(before, after);
                assert_ne!(next.mv.from(), Some(n.square));
                assert_ne!(next.mv.to(), n.square);
                // Within the thinking time: after the previous press.
                let prev = s.moves.iter().rev().find(|m| m.last_release < n.off);
                if let Some(prev) = prev {
                    assert!(n.off > prev.clock.unwrap());
                }
            }
        }
        assert!(nudges * 4 > thinks, "{nudges} nudges in {thinks} thinks");
    }
}
