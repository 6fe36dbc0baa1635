//! Games from PGN: the tags, the start position (`FEN`, `Variant` Chess960)
//! and the main line as legal moves.
use std::{io, ops::ControlFlow, path::Path};

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen};

/// One game read from PGN, its moves checked legal.
#[derive(Debug, Clone)]
pub struct PgnGame {
    /// 1-based position of the game in its file.
    pub number: usize,
    /// The tags in file order.
    pub tags: Vec<(String, String)>,
    pub start: Chess,
    pub moves: Vec<Move>,
}

impl PgnGame {
    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What is wrong with a game, and where.
#[derive(Debug, thiserror::Error)]
pub enum PgnError {
    #[error("{source_name}: {error}")]
    Io {
        source_name: String,
        error: io::Error,
    },
    #[error("{source_name}, game {game}: bad FEN tag {fen:?}: {reason}")]
    Fen {
        source_name: String,
        game: usize,
        fen: String,
        reason: String,
    },
    #[error("{source_name}, game {game}, ply {ply}: {san:?} is not a legal move in {fen}")]
    Move {
        source_name: String,
        game: usize,
        ply: usize,
        san: String,
        fen: String,
    },
}

/// Reads every game of a PGN file.
pub fn read_pgn_file(path: &Path) -> Result<Vec<PgnGame>, PgnError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|error| PgnError::Io {
        source_name: name.clone(),
        error,
    })?;
    read_pgn(file, &name)
}

/// Reads every game of PGN text; `source_name` names it in errors.
pub fn read_pgn(input: impl io::Read, source_name: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut reader = Reader::new(input);
    let mut collector = Collector {
        number: 0,
        source_name: source_name.to_owned(),
    };
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(Some(game)) => games.push(game?),
            Ok(None) => return Ok(games),
            Err(error) => {
                return Err(PgnError::Io {
                    source_name: source_name.to_owned(),
                    error,
                });
            }
        }
    }
}

struct Collector {
    number: usize,
    source_name: String,
}

struct Tags {
    tags: Vec<(String, String)>,
}

struct Movetext {
    game: PgnGame,
    pos: Chess,
}

impl Collector {
    fn start(&self, tags: &[(String, String)]) -> Result<Chess, PgnError> {
        let get = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let chess960 = get("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let Some(fen) = get("FEN") else {
            return Ok(Chess::default());
        };
        let bad = |reason: String| PgnError::Fen {
            source_name: self.source_name.clone(),
            game: self.number,
            fen: fen.clone(),
            reason,
        };
        Fen::from_ascii(fen.as_bytes())
            .map_err(|e| bad(e.to_string()))?
            .into_position(mode)
            .map_err(|e| bad(e.to_string()))
    }
}

impl Visitor for Collector {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.number += 1;
        ControlFlow::Continue(Tags { tags: Vec::new() })
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        match self.start(&tags.tags) {
            Ok(start) => ControlFlow::Continue(Movetext {
                pos: start.clone(),
                game: PgnGame {
                    number: self.number,
                    tags: tags.tags,
                    start,
                    moves: Vec::new(),
                },
            }),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&movetext.pos) {
            Ok(m) => {
                movetext.pos.play_unchecked(m);
                movetext.game.moves.push(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(Err(PgnError::Move {
                source_name: self.source_name.clone(),
                game: self.number,
                ply: movetext.game.moves.len() + 1,
                san: san_plus.to_string(),
                fen: super::fen_of(&movetext.pos),
            })),
        }
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        Ok(movetext.game)
    }
}
