//! What the hall takes from a board, and how much: every board message is
//! untrusted, so each value that sizes the hall's work or memory, or that
//! moves a board's view, is bounded here.
//!
//! Sizes, from the broker to the registry:
//!
//! - the example broker (`systemd/mosquitto/touchmove.conf`) forwards no
//!   payload over [`BROKER_MESSAGE_LIMIT`] (`message_size_limit`: a larger
//!   one is acknowledged to its sender and dropped);
//! - the hall drops and counts a payload over [`MAX_PAYLOAD`] unread (a
//!   broker configured otherwise);
//! - the MQTT client reads packets up to [`MAX_PACKET`], so that a payload
//!   over the hall's own limit is still read whole and dropped, never a
//!   broken connection. A packet over it cannot be skipped (the client
//!   stops reading at its header): the connection ends, and the subscriber
//!   ([`super::link`]) discards the session that keeps sending it again.
use std::fmt;

/// The payload limit of the example broker (`message_size_limit`).
pub const BROKER_MESSAGE_LIMIT: usize = 256 * 1024;
/// The largest payload the hall reads; a larger one is dropped and counted.
pub const MAX_PAYLOAD: usize = 512 * 1024;
/// The largest MQTT packet the hall's client reads (payload, topic and
/// headers): far over [`MAX_PAYLOAD`], so that what a broker without a
/// message size limit forwards is read and dropped, not a broken
/// connection (a transient buffer of this size at most).
pub const MAX_PACKET: usize = 16 * 1024 * 1024;

/// How far beyond the next expected seq an event is held while the ones
/// before it are missing. An event further ahead is not held: the hall
/// asks the board to replay after the last event it holds in order, as it
/// does for any gap. This bounds a board's out-of-order events (and its
/// list of missing seqs) to this many.
pub const SEQ_WINDOW: u64 = 2_048;

/// The most events the hall holds of one game (a game of several hundred
/// plies has a few thousand); more are refused.
pub const MAX_GAME_EVENTS: usize = 20_000;

/// How far a board's game number may jump ahead at once. A new game is
/// the next number; a hall that missed a few games sees a few more; a
/// larger jump is refused.
pub const MAX_GAME_JUMP: u64 = 1_000;
/// The largest game number the hall takes from a board it knows no game
/// of (a journal's ids count games, one at a time).
pub const MAX_FIRST_GAME: u64 = 1_000_000_000;

/// The oldest board wall time taken for latency: a board's `wall_ms` this
/// far before the hall's clock is a clock not set, not a delivery.
pub const MAX_LATENCY_MS: i64 = 24 * 3_600_000;
/// And the newest: a board's clock this far ahead of the hall's.
pub const MAX_CLOCK_AHEAD_MS: i64 = 60_000;

/// Why a board's message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// The payload is over [`MAX_PAYLOAD`].
    Oversized,
    /// The payload is not what its topic carries (not JSON, a field
    /// missing or of the wrong type, not UTF-8, an unknown status).
    Undecodable,
    /// The game number is not one a board could have (see
    /// [`check_game`]).
    ImplausibleGame,
    /// The game already holds [`MAX_GAME_EVENTS`].
    GameTooLong,
}

impl Reason {
    /// The reason as the JSON views name it.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Oversized => "oversized",
            Reason::Undecodable => "undecodable",
            Reason::ImplausibleGame => "implausible_game",
            Reason::GameTooLong => "game_too_long",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a payload of `len` bytes is read; `Err` names the limit.
pub(crate) fn check_size(len: usize) -> Result<(), String> {
    if len > MAX_PAYLOAD {
        return Err(format!(
            "the payload of {len} bytes is over the hall's limit of {MAX_PAYLOAD} bytes; dropped unread"
        ));
    }
    Ok(())
}

/// Whether `game` may become (or stay) the board's game, whose current
/// one is `current`: at most [`MAX_GAME_JUMP`] ahead of it, or, with none
/// known, at most [`MAX_FIRST_GAME`]. Older games are not judged here
/// (they are stale, or a board that restarted its numbering).
pub fn check_game(current: Option<u64>, game: u64, field: &str) -> Result<(), String> {
    match current {
        Some(current) if game > current && game - current > MAX_GAME_JUMP => Err(format!(
            "`{field}` {game} jumps more than {MAX_GAME_JUMP} games ahead of the board's game {current}"
        )),
        None if game > MAX_FIRST_GAME => Err(format!(
            "`{field}` {game} is over {MAX_FIRST_GAME}, more games than a board plays"
        )),
        _ => Ok(()),
    }
}

/// The board-to-hall latency of a message the board stamped `wall_ms`,
/// received at `now_ms`; `None` when the board's clock cannot be right
/// (more than [`MAX_LATENCY_MS`] behind or [`MAX_CLOCK_AHEAD_MS`] ahead).
pub(crate) fn plausible_latency(now_ms: u64, wall_ms: u64) -> Option<i64> {
    let latency = i128::from(now_ms) - i128::from(wall_ms);
    if latency > i128::from(MAX_LATENCY_MS) || latency < -i128::from(MAX_CLOCK_AHEAD_MS) {
        return None;
    }
    Some(latency as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sizes_nest() {
        const { assert!(BROKER_MESSAGE_LIMIT < MAX_PAYLOAD && MAX_PAYLOAD < MAX_PACKET) };
        assert!(check_size(MAX_PAYLOAD).is_ok());
        let e = check_size(MAX_PAYLOAD + 1).unwrap_err();
        assert!(e.contains("524289 bytes"), "{e}");
    }

    #[test]
    fn game_numbers() {
        assert!(check_game(Some(4), 5, "game").is_ok());
        assert!(check_game(Some(4), 4 + MAX_GAME_JUMP, "game").is_ok());
        assert!(check_game(Some(4), 3, "game").is_ok());
        let e = check_game(Some(4), u64::MAX, "game").unwrap_err();
        assert!(
            e.contains("18446744073709551615") && e.contains("game 4"),
            "{e}"
        );
        assert!(check_game(None, 12, "game").is_ok());
        assert!(check_game(None, u64::MAX, "game").is_err());
    }

    #[test]
    fn latencies() {
        assert_eq!(plausible_latency(10_000, 9_990), Some(10));
        assert_eq!(plausible_latency(10_000, 10_500), Some(-500));
        assert_eq!(plausible_latency(1_800_000_000_000, 0), None);
        assert_eq!(plausible_latency(0, u64::MAX), None);
        assert_eq!(plausible_latency(1_000, 1_000 + 60_001), None);
    }
}
