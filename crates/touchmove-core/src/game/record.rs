//! The game record: the start, every move with its SAN, UCI, time and clock
//! reading, and the ends of the game the Laws define.
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{ByColor, CastlingMode, Chess, Color, KnownOutcome, Move, MoveList, Position};

use super::dead::{self, Depth, Winnability};
use super::profile::{IllegalMovePenalty, Profile};
use super::repetition::{PositionKey, occurrences_of_last};
use super::start::{Start, fen_of};
use crate::Millis;

/// One move of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    pub mv: Move,
    pub san: SanPlus,
    pub uci: UciMove,
    pub side: Color,
    /// When the move was made (Article 4.6).
    pub t: Millis,
    /// The mover's remaining time after completing the move (6.7), for
    /// `[%clk]`; None when no clock ran.
    pub clock_ms: Option<Millis>,
    /// Time the mover spent on the move, for `[%emt]`, when a clock ran.
    pub elapsed_ms: Option<Millis>,
}

/// Why a game ended. The names are those of the `game_over` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// 5.1a
    Checkmate,
    /// 5.2a
    Stalemate,
    /// 5.2b (2005), 5.2.2 (2017 on)
    DeadPosition,
    /// 9.6.1 (2014 on)
    Fivefold,
    /// 9.6.2 (2014 on)
    SeventyFiveMoves,
    /// 9.2, on a correct claim
    Threefold,
    /// 9.3, on a correct claim
    FiftyMoves,
    /// 6.9 (2023), 6.10 (2005): lost on time
    Flag,
    /// 6.9 / 6.10: flag fell but the opponent cannot checkmate
    FlagUnwinnable,
    /// 6.12a (2005): both flags fell in the last period
    BothFlags,
    /// 7.4b (2005), 7.5.5 (2023): the last allowed illegal move was exceeded
    IllegalMoves,
    /// the same, but the opponent cannot checkmate: drawn
    IllegalMovesUnwinnable,
    /// 5.1b (2005), 5.1.2 (2023)
    Resignation,
    /// 5.2c (2005), 5.2.3 (2023)
    Agreement,
    /// An arbiter's decision.
    Arbiter,
}

impl EndReason {
    /// Every end reason, in the order of the Laws' articles.
    pub const ALL: [EndReason; 15] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::DeadPosition,
        EndReason::Fivefold,
        EndReason::SeventyFiveMoves,
        EndReason::Threefold,
        EndReason::FiftyMoves,
        EndReason::Flag,
        EndReason::FlagUnwinnable,
        EndReason::BothFlags,
        EndReason::IllegalMoves,
        EndReason::IllegalMovesUnwinnable,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Arbiter,
    ];

    /// The reason a `game_over` event's `reason` names ([`EndReason::name`]).
    ///
    /// ```
    /// use touchmove_core::game::EndReason;
    ///
    /// assert_eq!(EndReason::from_name("threefold"), Some(EndReason::Threefold));
    /// assert_eq!(EndReason::from_name("resigned"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The name events and the journal use (`game_over`'s `reason`).
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::DeadPosition => "dead_position",
            EndReason::Fivefold => "fivefold",
            EndReason::SeventyFiveMoves => "seventy_five_moves",
            EndReason::Threefold => "threefold",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::Flag => "flag",
            EndReason::FlagUnwinnable => "flag_unwinnable",
            EndReason::BothFlags => "both_flags",
            EndReason::IllegalMoves => "illegal_moves",
            EndReason::IllegalMovesUnwinnable => "illegal_moves_unwinnable",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Arbiter => "arbiter",
        }
    }

    /// The PGN `Termination` tag value.
    pub fn termination(self) -> &'static str {
        match self {
            EndReason::Flag | EndReason::FlagUnwinnable | EndReason::BothFlags => "time forfeit",
            EndReason::IllegalMoves | EndReason::IllegalMovesUnwinnable | EndReason::Arbiter => {
                "rules infraction"
            }
            _ => "normal",
        }
    }
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameEnd {
    pub outcome: KnownOutcome,
    pub reason: EndReason,
}

impl GameEnd {
    fn draw(reason: EndReason) -> GameEnd {
        GameEnd {
            outcome: KnownOutcome::Draw,
            reason,
        }
    }
    fn win(winner: Color, reason: EndReason) -> GameEnd {
        GameEnd {
            outcome: KnownOutcome::Decisive { winner },
            reason,
        }
    }
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(&self) -> String {
        self.outcome.to_string()
    }
}

/// A draw a player may claim (Articles 9.2 and 9.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawClaim {
    Threefold,
    FiftyMoves,
}

impl DrawClaim {
    pub fn name(self) -> &'static str {
        match self {
            DrawClaim::Threefold => "threefold",
            DrawClaim::FiftyMoves => "fifty_moves",
        }
    }
}

/// What playing one move brought.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// 1 = White's first move.
    pub ply: usize,
    /// The game ended with this move.
    pub end: Option<GameEnd>,
    /// Draws that became claimable with this move.
    pub claimable: Vec<DrawClaim>,
}

/// What a completed illegal move brought (7.4b of 2005, 7.5.5 of 2023).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalMoveRuling {
    /// Illegal moves this player has completed so far, this one included.
    pub count: u32,
    pub penalty: IllegalMovePenalty,
    /// The game ended because of it.
    pub end: Option<GameEnd>,
}

/// A request the record cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("the game is over ({0})")]
    Over(&'static str),
    #[error("{uci} is not a legal move in {fen}")]
    Illegal { uci: String, fen: String },
    #[error("cannot take back {asked} moves: only {have} were played")]
    TakebackTooFar { asked: usize, have: usize },
}

/// A game: the start, the moves, the ends of game of the profile's Laws.
#[derive(Debug, Clone)]
pub struct Game {
    start: Start,
    profile: Profile,
    position: Chess,
    moves: Vec<PlayedMove>,
    /// Keys of every position from the start (index 0) to the current one.
    keys: Vec<PositionKey>,
    illegal_moves: ByColor<u32>,
    end: Option<GameEnd>,
}

impl Game {
    /// A game from `start` under the rules of `profile`.
    ///
    /// ```
    /// use shakmaty::{Square, Role, Move};
    /// use touchmove_core::game::pgn::{self, Tags};
    /// use touchmove_core::game::{Game, Profile, Start};
    ///
    /// let mut game = Game::new(Start::standard(), Profile::FideStandard);
    /// let e4 = Move::Normal {
    ///     role: Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None,
    /// };
    /// game.play(&e4, 1_500).unwrap();
    /// assert_eq!(game.ply(), 1);
    /// assert_eq!(game.moves()[0].san.to_string(), "e4");
    /// // A move the position does not allow is refused (Article 7.4).
    /// assert!(game.play(&e4, 3_000).is_err());
    /// assert!(pgn::write(&game, &Tags::default()).contains("1. e4 *"));
    /// ```
    pub fn new(start: Start, profile: Profile) -> Game {
        let position = start.position().clone();
        let keys = vec![PositionKey::of(&position)];
        let mut game = Game {
            start,
            profile,
            position,
            moves: Vec::new(),
            keys,
            illegal_moves: ByColor::default(),
            end: None,
        };
        // A start that is already over (mate, stalemate, dead) is over.
        game.end = game.end_by_position();
        game
    }

    pub fn start(&self) -> &Start {
        &self.start
    }
    pub fn profile(&self) -> Profile {
        self.profile
    }
    pub fn position(&self) -> &Chess {
        &self.position
    }
    pub(crate) fn castling_mode(&self) -> CastlingMode {
        self.start.castling_mode()
    }
    pub fn fen(&self) -> String {
        fen_of(&self.position)
    }
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }
    pub fn ply(&self) -> usize {
        self.moves.len()
    }
    pub fn turn(&self) -> Color {
        self.position.turn()
    }
    pub fn legal_moves(&self) -> MoveList {
        self.position.legal_moves()
    }
    pub fn is_legal(&self, mv: &Move) -> bool {
        self.position.is_legal(*mv)
    }
    pub fn end(&self) -> Option<GameEnd> {
        self.end
    }
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }
    pub fn illegal_moves(&self, side: Color) -> u32 {
        self.illegal_moves[side]
    }

    /// The position before the last `n` plies (n = 0: the current one).
    pub(crate) fn position_before(&self, n: usize) -> Option<Chess> {
        if n > self.moves.len() {
            return None;
        }
        let mut pos = self.start.position().clone();
        for m in &self.moves[..self.moves.len() - n] {
            pos.play_unchecked(m.mv);
        }
        Some(pos)
    }

    /// Draws the current position allows a player to claim.
    pub fn claimable(&self) -> Vec<DrawClaim> {
        let mut claims = Vec::new();
        if self.end.is_some() {
            return claims;
        }
        if self.repetitions() >= 3 {
            claims.push(DrawClaim::Threefold);
        }
        if self.position.halfmoves() >= 100 {
            claims.push(DrawClaim::FiftyMoves);
        }
        claims
    }

    /// How many times the current position has stood (9.2).
    pub fn repetitions(&self) -> usize {
        let since_irreversible = (self.position.halfmoves() as usize + 1).min(self.keys.len());
        occurrences_of_last(&self.keys[self.keys.len() - since_irreversible..])
    }

    /// Makes a move (Article 4.6) and applies the ends of game.
    pub fn play(&mut self, mv: &Move, t: Millis) -> Result<Played, GameError> {
        if let Some(end) = self.end {
            return Err(GameError::Over(end.reason.name()));
        }
        if !self.is_legal(mv) {
            return Err(GameError::Illegal {
                uci: mv.to_uci(self.castling_mode()).to_string(),
                fen: self.fen(),
            });
        }
        let claimable_before = self.claimable();
        let side = self.position.turn();
        let uci = mv.to_uci(self.castling_mode());
        let san = SanPlus::from_move_and_play_unchecked(&mut self.position, *mv);
        self.keys.push(PositionKey::of(&self.position));
        self.moves.push(PlayedMove {
            mv: *mv,
            san,
            uci,
            side,
            t,
            clock_ms: None,
            elapsed_ms: None,
        });
        self.end = self.end_by_position();
        let claimable = self
            .claimable()
            .into_iter()
            .filter(|c| !claimable_before.contains(c) || *c == DrawClaim::Threefold)
            .collect();
        Ok(Played {
            ply: self.moves.len(),
            end: self.end,
            claimable,
        })
    }

    /// The ends of game that follow from the position alone.
    fn end_by_position(&self) -> Option<GameEnd> {
        let pos = &self.position;
        // 5.1a: checkmate; it also takes precedence over the 75-move rule (9.6.2).
        if pos.is_checkmate() {
            return Some(GameEnd::win(!pos.turn(), EndReason::Checkmate));
        }
        // 5.2a
        if pos.is_stalemate() {
            return Some(GameEnd::draw(EndReason::Stalemate));
        }
        // 5.2b / 5.2.2: only a proof ends the game.
        if dead::is_dead(pos, self.castling_mode(), Depth::Fast) {
            return Some(GameEnd::draw(EndReason::DeadPosition));
        }
        if self.profile.automatic_fivefold_and_75_moves() {
            if self.repetitions() >= 5 {
                return Some(GameEnd::draw(EndReason::Fivefold));
            }
            if pos.halfmoves() >= 150 {
                return Some(GameEnd::draw(EndReason::SeventyFiveMoves));
            }
        }
        None
    }

    /// Records the clock reading after the move of `ply` was completed.
    pub fn set_clock(&mut self, ply: usize, remaining_ms: Millis, elapsed_ms: Option<Millis>) {
        if let Some(m) = ply.checked_sub(1).and_then(|i| self.moves.get_mut(i)) {
            m.clock_ms = Some(remaining_ms);
            m.elapsed_ms = elapsed_ms;
        }
    }

    /// Takes back the last `n` plies (casual play, or an arbiter's command).
    pub fn take_back(&mut self, n: usize) -> Result<(), GameError> {
        if n > self.moves.len() {
            return Err(GameError::TakebackTooFar {
                asked: n,
                have: self.moves.len(),
            });
        }
        let keep = self.moves.len() - n;
        self.moves.truncate(keep);
        self.keys.truncate(keep + 1);
        self.position = self.position_before(0).expect("n checked above");
        self.end = self.end_by_position();
        Ok(())
    }

    /// The position can `side` still be checkmated in? The full analysis,
    /// for decisions that hang on it.
    pub fn can_checkmate(&self, side: Color) -> Winnability {
        dead::winnability(&self.position, self.castling_mode(), side, Depth::Full)
    }

    /// A completed illegal move by `side` (7.4b of 2005, 7.5.5 of 2023): counts
    /// it and applies the profile's consequence. The position before it
    /// stands in the record (it must be reinstated on the board).
    pub fn complete_illegal_move(&mut self, side: Color) -> IllegalMoveRuling {
        self.illegal_moves[side] += 1;
        let count = self.illegal_moves[side];
        let penalty = self.profile.illegal_move_penalty(count);
        let mut end = None;
        if penalty == IllegalMovePenalty::Loss && self.end.is_none() {
            end = Some(match self.can_checkmate(!side) {
                Winnability::Unwinnable => GameEnd::draw(EndReason::IllegalMovesUnwinnable),
                // Not proven unwinnable: the Law's rule, loss, stands.
                _ => GameEnd::win(!side, EndReason::IllegalMoves),
            });
            self.end = end;
        }
        IllegalMoveRuling {
            count,
            penalty,
            end,
        }
    }

    /// `side`'s flag fell (6.9 of 2023, 6.10 of 2005): lost, unless the
    /// opponent cannot checkmate by any series of legal moves.
    pub fn flag_fell(&mut self, side: Color) -> Option<GameEnd> {
        if self.end.is_some() {
            return None;
        }
        let end = match self.can_checkmate(!side) {
            Winnability::Unwinnable => GameEnd::draw(EndReason::FlagUnwinnable),
            _ => GameEnd::win(!side, EndReason::Flag),
        };
        self.end = Some(end);
        self.end
    }

    /// `side` resigns (5.1b of 2005, 5.1.2 of 2023). A position already
    /// proven dead by the full analysis had ended the game as a draw.
    pub fn resign(&mut self, side: Color) -> Option<GameEnd> {
        if self.end.is_some() {
            return None;
        }
        let end = if dead::is_dead(&self.position, self.castling_mode(), Depth::Full) {
            GameEnd::draw(EndReason::DeadPosition)
        } else {
            GameEnd::win(!side, EndReason::Resignation)
        };
        self.end = Some(end);
        self.end
    }

    /// A draw agreed (5.2c of 2005, 5.2.3 of 2023).
    pub fn agree_draw(&mut self) -> Option<GameEnd> {
        self.finish(GameEnd::draw(EndReason::Agreement))
    }

    /// A draw claim (9.2, 9.3): correct claims end the game; an incorrect
    /// claim returns None (the clock penalty of 9.5 is the caller's).
    pub fn claim_draw(&mut self, claim: DrawClaim) -> Option<GameEnd> {
        if !self.claimable().contains(&claim) {
            return None;
        }
        let reason = match claim {
            DrawClaim::Threefold => EndReason::Threefold,
            DrawClaim::FiftyMoves => EndReason::FiftyMoves,
        };
        self.finish(GameEnd::draw(reason))
    }

    /// Ends the game as decided from outside the record (both flags, arbiter).
    pub fn finish(&mut self, end: GameEnd) -> Option<GameEnd> {
        if self.end.is_some() {
            return None;
        }
        self.end = Some(end);
        self.end
    }

    /// Ends the game as drawn because both flags fell in the last period
    /// (6.12a of 2005).
    pub(crate) fn both_flags_fell(&mut self) -> Option<GameEnd> {
        self.finish(GameEnd::draw(EndReason::BothFlags))
    }
}
