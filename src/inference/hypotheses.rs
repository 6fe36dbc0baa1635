//! Moves the sensors did not read, when several lines of legal plies
//! explain the board: all are kept, the hands' later actions are read
//! under each, and the lines the board contradicts are dropped.
use super::*;

/// Lines of plies from the recorded position, each leading to a position
/// the board may show.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub lines: Vec<Vec<Move>>,
}
