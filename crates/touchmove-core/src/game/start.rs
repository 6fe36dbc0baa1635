//! Where a game starts: the standard position, any legal FEN, or Chess960
//! by number (0–959) or X-FEN.
use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, EnPassantMode, Setup};

use super::echo::quoted;

/// A game's starting position, always legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    position: Chess,
    mode: CastlingMode,
    chess960: Option<u32>,
}

/// A starting position that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("{} is not a FEN: {reason}", quoted(.fen))]
    Syntax { fen: String, reason: String },
    #[error("{} is not a legal position: {reason}", quoted(.fen))]
    Illegal { fen: String, reason: String },
    #[error("Chess960 start positions are numbered 0 to 959, not {0}")]
    Chess960Number(u32),
}

impl Default for Start {
    fn default() -> Start {
        Start::standard()
    }
}

impl Start {
    /// The standard starting position (Article 2).
    pub fn standard() -> Start {
        Start {
            position: Chess::default(),
            mode: CastlingMode::Standard,
            chess960: None,
        }
    }

    /// Chess960 start position number `n` (Scharnagl numbering; 518 is the
    /// standard array).
    pub fn chess960(n: u32) -> Result<Start, StartError> {
        if n > 959 {
            return Err(StartError::Chess960Number(n));
        }
        let board = Board::chess960(n);
        let castling_rights = board.rooks();
        let setup = Setup {
            board,
            castling_rights,
            ..Setup::initial()
        };
        let position = setup
            .position(CastlingMode::Chess960)
            .map_err(|e| StartError::Illegal {
                fen: format!("chess960 #{n}"),
                reason: e.to_string(),
            })?;
        Ok(Start {
            position,
            mode: CastlingMode::Chess960,
            chess960: Some(n),
        })
    }

    /// A position from FEN, X-FEN or Shredder-FEN. Castling rights that only
    /// Chess960 can express (a rook or king off its standard square) make it
    /// a Chess960 game.
    pub fn from_fen(fen: &str) -> Result<Start, StartError> {
        let parsed = read_fen(fen)?;
        let setup = parsed.into_setup();
        let mode = CastlingMode::detect(&setup);
        let position: Chess = setup.position(mode).map_err(|e| StartError::Illegal {
            fen: fen.to_owned(),
            reason: e.to_string(),
        })?;
        if mode == CastlingMode::Standard && position == Chess::default() {
            return Ok(Start::standard());
        }
        Ok(Start {
            position,
            mode,
            chess960: None,
        })
    }

    /// A Chess960 position from FEN, X-FEN or Shredder-FEN, as a PGN
    /// `Variant "Chess960"` tag declares it: `KQkq` then name the outermost
    /// rooks and castling follows the Chess960 rules even when the king and
    /// rooks stand on their standard squares (number 518).
    pub fn chess960_from_fen(fen: &str) -> Result<Start, StartError> {
        let parsed = read_fen(fen)?;
        let position =
            parsed
                .into_position(CastlingMode::Chess960)
                .map_err(|e| StartError::Illegal {
                    fen: fen.to_owned(),
                    reason: e.to_string(),
                })?;
        Ok(Start {
            position,
            mode: CastlingMode::Chess960,
            chess960: None,
        })
    }

    /// Parses what a user types: `standard`, a Chess960 number
    /// (`chess960:N` or `960:N`), or a FEN.
    pub fn parse(text: &str) -> Result<Start, StartError> {
        let text = text.trim();
        if text.is_empty() || text == "standard" || text == "startpos" {
            return Ok(Start::standard());
        }
        for prefix in ["chess960:", "960:"] {
            if let Some(number) = text.strip_prefix(prefix) {
                let n = number.trim().parse().map_err(|_| StartError::Syntax {
                    fen: text.to_owned(),
                    reason: format!("{} is not a Chess960 number (0–959)", quoted(number)),
                })?;
                return Start::chess960(n);
            }
        }
        Start::from_fen(text)
    }

    pub fn position(&self) -> &Chess {
        &self.position
    }

    pub(crate) fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    pub fn is_chess960(&self) -> bool {
        self.mode == CastlingMode::Chess960
    }

    /// The Chess960 number, when the game started from one.
    pub fn chess960_number(&self) -> Option<u32> {
        self.chess960
    }

    /// Whether this is the standard starting position of standard chess.
    pub fn is_standard(&self) -> bool {
        self.mode == CastlingMode::Standard && self.position == Chess::default()
    }

    /// The FEN (X-FEN for Chess960) of the start.
    pub fn fen(&self) -> String {
        fen_of(&self.position)
    }
}

/// Full FEN of a position; X-FEN for Chess960 (shakmaty writes castling
/// rights as KQkq where unambiguous and file letters otherwise). The en
/// passant square is written only when a legal capture exists, as PGN and
/// X-FEN want.
pub fn fen_of(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

/// The FEN (X-FEN, Shredder-FEN) of `fen`, or why it is not one.
fn read_fen(fen: &str) -> Result<Fen, StartError> {
    fen.trim()
        .parse()
        .map_err(|e: shakmaty::fen::ParseFenError| StartError::Syntax {
            fen: fen.to_owned(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn standard_and_518_agree_on_the_board() {
        let s = Start::chess960(518).unwrap();
        assert_eq!(s.position().board(), Chess::default().board());
        assert!(s.is_chess960());
        assert!(Start::parse("standard").unwrap().is_standard());
    }

    #[test]
    fn bad_starts_are_named() {
        assert_eq!(
            Start::chess960(960).unwrap_err(),
            StartError::Chess960Number(960)
        );
        let err = Start::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err();
        assert!(matches!(err, StartError::Illegal { .. }), "{err}");
        let err = Start::from_fen("rnbqkbnr/ppp w").unwrap_err();
        assert!(matches!(err, StartError::Syntax { .. }), "{err}");
        assert!(Start::parse("960:x").is_err());
    }

    #[test]
    fn x_fen_of_a_chess960_start_reads_back_as_chess960() {
        for n in [0, 1, 359, 959] {
            let start = Start::chess960(n).unwrap();
            let again = Start::from_fen(&start.fen()).unwrap();
            assert!(again.is_chess960(), "#{n}: {}", start.fen());
            assert_eq!(again.position(), start.position());
        }
    }

    #[test]
    fn a_declared_chess960_start_stays_chess960_on_the_standard_array() {
        let fen = Start::chess960(518).unwrap().fen();
        assert!(!Start::from_fen(&fen).unwrap().is_chess960());
        let start = Start::chess960_from_fen(&fen).unwrap();
        assert!(start.is_chess960());
        assert_eq!(start.position().board(), Chess::default().board());
        assert!(matches!(
            Start::chess960_from_fen("8/8/8/8/8/8/8/8 w - - 0 1"),
            Err(StartError::Illegal { .. })
        ));
    }
}
