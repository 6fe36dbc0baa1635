//! Everything the hall knows of one board: its connection, its retained
//! `state` and `pgn`, its current game's event log and its alerts.
use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use super::alerts::HallAlert;
use super::board_log::Log;
use super::stream_stats::StreamStats;

/// A board's connection as its retained `status` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No status seen yet.
    Unknown,
    Online,
    Offline,
}

/// The retained `state`, as received.
#[derive(Debug, Clone)]
pub(super) struct Retained {
    pub(super) json: Value,
    pub(super) game: Option<u64>,
    pub(super) seq: i64,
    /// Hall time it was received.
    pub(super) received_ms: u64,
}

/// Everything known of one board.
#[derive(Debug, Clone)]
pub(super) struct Board {
    pub(super) id: String,
    pub(super) status: Status,
    pub(super) last_seen_ms: u64,
    pub(super) state: Option<Retained>,
    pub(super) pgn: Option<String>,
    pub(super) log: Option<Log>,
    pub(super) alerts: Vec<HallAlert>,
    /// `(game, seq)` of every alert event raised, so each is raised once.
    pub(super) raised: HashSet<(u64, u64)>,
    pub(super) stats: StreamStats,
    /// Games the arbiter asked the board to replay (the last few): their
    /// events are replies, not a board that restarted its numbering.
    pub(super) replays_asked: Vec<u64>,
}

impl Board {
    pub(super) fn new(id: &str, now_ms: u64) -> Board {
        Board {
            id: id.to_owned(),
            status: Status::Unknown,
            last_seen_ms: now_ms,
            state: None,
            pgn: None,
            log: None,
            alerts: Vec::new(),
            raised: HashSet::new(),
            stats: StreamStats::default(),
            replays_asked: Vec::new(),
        }
    }

    pub(super) fn current_game(&self) -> Option<u64> {
        let from_state = self.state.as_ref().and_then(|s| s.game);
        match (self.log.as_ref().map(|l| l.game), from_state) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the event reduction is at least as recent as the retained state.
    pub(super) fn events_are_current(&self) -> bool {
        let Some(log) = &self.log else { return false };
        let Some(through) = log.through else {
            return false;
        };
        match &self.state {
            None => true,
            Some(state) => match state.game {
                Some(g) if g != log.game => log.game > g,
                _ => through as i64 >= state.seq,
            },
        }
    }

    /// The game and the last seq the board's view has taken in (`None`:
    /// no view yet).
    pub(super) fn view_through(&self) -> Option<(Option<u64>, i64)> {
        if self.events_are_current() {
            let log = self.log.as_ref()?;
            Some((Some(log.game), log.through.map_or(-1, |t| t as i64)))
        } else {
            self.state.as_ref().map(|s| (s.game, s.seq))
        }
    }
}
