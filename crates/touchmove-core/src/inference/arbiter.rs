//! The arbiter's rulings on the position (Article 7): set the game back to
//! an earlier position, or accept into the record moves the sensors did
//! not read. Each ruling is an `arbiter_decision` event, followed by the
//! events that carry it out, so the journal keeps the decision with its
//! effect.
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Move, Position, Setup};

use super::{Alert, Inference, TurnHands, missed};
use crate::Millis;
use crate::events::{Decision, EventKind};
use crate::game::LawEdition;

/// The irregularity a reinstatement answers: it decides the Article cited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Irregularity {
    /// An illegal move was completed (7.4a of 2005, 7.5.1 of 2023).
    IllegalMove,
    /// Pieces were found displaced (7.5 of 2005, 7.4.1 of 2023).
    Displaced,
}

/// Why a ruling cannot be carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulingRefused {
    #[error("no game is in progress")]
    NoGame,
    #[error("the game is over")]
    GameOver,
    #[error("ply {ply} is not in the game: it has {plies} plies")]
    NoSuchPly { ply: usize, plies: usize },
    #[error("no moves were given")]
    NoMoves,
    #[error("move {index} ({uci:?}): {reason}")]
    BadMove {
        index: usize,
        uci: String,
        reason: String,
    },
    #[error(
        "there is no candidate {index}: the last `displaced` event listed {count} \
         (candidates are listed when missed moves cannot be told apart)"
    )]
    NoCandidate { index: usize, count: usize },
    #[error("the FEN cannot be read: {0}")]
    BadFen(String),
    #[error("the FEN is the game position already: there is nothing to accept")]
    NothingToAccept,
    #[error(
        "no run of at most {max_plies} legal plies leads from the game position to this FEN; \
         to set the game back use reinstate, to play from this position start a new game"
    )]
    Unreachable { max_plies: usize },
    #[error(
        "several runs of legal plies lead to this FEN ({}); accept one of them by its moves",
        lines.join(" | ")
    )]
    Ambiguous { lines: Vec<String> },
}

impl Irregularity {
    /// The Article the reinstatement applies, in `edition`.
    pub fn article(self, edition: LawEdition) -> &'static str {
        match (self, edition) {
            (Irregularity::IllegalMove, LawEdition::Fide2005) => "7.4a",
            (Irregularity::Displaced, LawEdition::Fide2005) => "7.5",
            (Irregularity::IllegalMove, LawEdition::Fide2023) => "7.5.1",
            (Irregularity::Displaced, LawEdition::Fide2023) => "7.4.1",
        }
    }
}

impl Inference {
    fn ruling_allowed(&self) -> Result<(), RulingRefused> {
        if !self.started {
            return Err(RulingRefused::NoGame);
        }
        if self.game.is_over() {
            return Err(RulingRefused::GameOver);
        }
        Ok(())
    }

    /// The arbiter reinstates the position after `ply` (0: the start):
    /// the later moves are taken back, and the board must be set up to it
    /// (7.4a / 7.5 of 2005, 7.5.1 / 7.4.1 of 2023). Until it is, the board
    /// is reported `displaced` with the squares still wrong. Article 4.3
    /// applies afresh to the move that follows.
    pub fn reinstate(
        &mut self,
        t: Millis,
        ply: usize,
        irregularity: Irregularity,
        note: Option<String>,
    ) -> Result<(), RulingRefused> {
        self.ruling_allowed()?;
        let plies = self.game.ply();
        if ply > plies {
            return Err(RulingRefused::NoSuchPly { ply, plies });
        }
        self.game
            .take_back(plies - ply)
            .map_err(|_| RulingRefused::NoSuchPly { ply, plies })?;
        self.emit(
            t,
            EventKind::ArbiterDecision {
                decision: Decision::Reinstate,
                article: Some(irregularity.article(self.profile.edition()).to_owned()),
                ply: Some(ply),
                moves: Vec::new(),
                note,
            },
        );
        if ply < plies {
            self.emit(
                t,
                EventKind::Takeback {
                    ply,
                    fen: self.game.fen(),
                },
            );
        }
        let alerted = self.alert != Alert::None;
        if ply < plies {
            self.fresh_turn();
            self.last_move = None;
        } else {
            // The position immediately before the irregularity: the piece
            // the player touched for the illegal move stays touched (4.3
            // applies to the move replacing it).
            self.missing_since = None;
        }
        self.judge_board_after_ruling(t, alerted);
        Ok(())
    }

    /// The arbiter accepts `moves` (UCI, in order from the game position)
    /// as made while the sensors did not read them — one of the candidate
    /// lines a `displaced` event listed, say. Each is recorded as made and
    /// completed at `t`. All are checked before any is played.
    pub fn accept_moves(
        &mut self,
        t: Millis,
        moves: &[String],
        note: Option<String>,
    ) -> Result<(), RulingRefused> {
        self.ruling_allowed()?;
        if moves.is_empty() {
            return Err(RulingRefused::NoMoves);
        }
        let mut pos = self.game.position().clone();
        let mut plies: Vec<Move> = Vec::with_capacity(moves.len());
        for (index, text) in moves.iter().enumerate() {
            let bad = |reason: String| RulingRefused::BadMove {
                index,
                uci: text.clone(),
                reason,
            };
            if pos.is_game_over() {
                return Err(bad("the game is over before it".into()));
            }
            let uci: UciMove = text
                .parse()
                .map_err(|_| bad("not a UCI move (e.g. e2e4, e7e8q)".into()))?;
            let m = uci
                .to_move(&pos)
                .map_err(|_| bad(format!("not legal in {}", fen_of(&pos))))?;
            pos.play_unchecked(m);
            plies.push(m);
        }
        self.accept(t, plies, note);
        Ok(())
    }

    /// The arbiter accepts candidate line `index` (0 = the first) of the
    /// last `displaced` event, while the board is still displaced.
    pub fn accept_candidate(
        &mut self,
        t: Millis,
        index: usize,
        note: Option<String>,
    ) -> Result<(), RulingRefused> {
        self.ruling_allowed()?;
        let listed = if matches!(self.alert, Alert::Displaced(_)) || self.has_open_lines() {
            self.listed_candidates.clone()
        } else {
            Vec::new()
        };
        let line = listed.get(index).ok_or(RulingRefused::NoCandidate {
            index,
            count: listed.len(),
        })?;
        let moves: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        self.accept_moves(t, &moves, note)
    }

    /// The arbiter accepts the position `fen` as reached by moves the
    /// sensors did not read: the one run of at most `max_missed_plies`
    /// legal plies that leads there is recorded.
    pub fn accept_position(
        &mut self,
        t: Millis,
        fen: &str,
        note: Option<String>,
    ) -> Result<(), RulingRefused> {
        self.ruling_allowed()?;
        let parsed: Fen = fen
            .trim()
            .parse()
            .map_err(|e| RulingRefused::BadFen(format!("{e}")))?;
        let target = Setup::from(parsed);
        let pos = self.game.position().clone();
        if *pos.board() == target.board && pos.turn() == target.turn {
            return Err(RulingRefused::NothingToAccept);
        }
        let max_plies = self.config.max_missed_plies;
        let lines = match missed::search(
            &pos,
            target.board.occupied(),
            Some(target.board.white()),
            max_plies,
        ) {
            missed::Explanation::Unique(line) => vec![line],
            missed::Explanation::Ambiguous(lines) => lines,
            missed::Explanation::None => Vec::new(),
        };
        let reaching: Vec<Vec<Move>> = lines
            .into_iter()
            .filter(|line| {
                let mut p = pos.clone();
                for m in line {
                    p.play_unchecked(*m);
                }
                *p.board() == target.board && p.turn() == target.turn
            })
            .collect();
        match reaching.len() {
            0 => Err(RulingRefused::Unreachable { max_plies }),
            1 => {
                let line = reaching.into_iter().next().unwrap_or_default();
                self.accept(t, line, note);
                Ok(())
            }
            _ => Err(RulingRefused::Ambiguous {
                lines: self.lines_uci(&reaching),
            }),
        }
    }

    fn accept(&mut self, t: Millis, plies: Vec<Move>, note: Option<String>) {
        let alerted = self.alert != Alert::None;
        let mode = self.game.castling_mode();
        self.emit(
            t,
            EventKind::ArbiterDecision {
                decision: Decision::AcceptMoves,
                article: None,
                ply: None,
                moves: plies.iter().map(|m| m.to_uci(mode).to_string()).collect(),
                note,
            },
        );
        self.drop_open_lines(t);
        // A move in the making is not part of the ruling.
        if let Some(ply) = self.awaiting_press.take() {
            self.emit(t, EventKind::MoveCompleted { ply });
        }
        self.adopt(t, plies);
        self.fresh_turn();
        self.judge_board_after_ruling(t, alerted);
    }

    /// The hands start afresh after a ruling.
    fn fresh_turn(&mut self) {
        self.turn = TurnHands::default();
        self.awaiting_press = None;
        self.promotion = None;
        self.promotion_choice = None;
        self.adjusting = false;
        self.missing_since = None;
    }

    /// After a ruling the board either shows the game's position
    /// (`restored`, if an alert stood before the ruling) or must be set up
    /// to it (`displaced`).
    fn judge_board_after_ruling(&mut self, t: Millis, alerted: bool) {
        if self.game.is_over() {
            self.alert = Alert::None;
            return;
        }
        let expected = self.game.position().board().occupied();
        let wrong: Bitboard = self.board ^ expected;
        if wrong.is_empty() {
            if alerted {
                self.restored(t);
            }
            self.alert = Alert::None;
        } else {
            self.displaced(t, wrong.into_iter().collect(), Vec::new());
        }
    }
}

fn fen_of(pos: &shakmaty::Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}
