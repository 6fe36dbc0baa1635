//! The rules core on shakmaty: the game record, the ends of game, the
//! rules profiles and PGN.
pub mod dead;
pub mod echo;
pub mod pgn;
pub mod profile;
pub mod record;
pub mod repetition;
pub mod start;
pub mod tag_value;

pub use profile::{IllegalMovePenalty, LawEdition, Profile, Rate};
pub use record::{
    DrawClaim, EndReason, Game, GameEnd, GameError, IllegalMoveRuling, Played, PlayedMove,
};
pub use shakmaty::KnownOutcome;
pub use start::{Start, StartError, fen_of};
pub use tag_value::{TagValue, TagValueError};
