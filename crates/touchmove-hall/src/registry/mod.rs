//! What the hall knows of its boards: a pure, synchronous registry fed
//! with MQTT messages `(topic, payload)` and the hall's wall time in UNIX
//! milliseconds (passed in, never read here).
//!
//! Per board it keeps the retained `state`, `pgn` and `status`, and the
//! current game's events, known by `(game, seq)` (the wire contract,
//! [`touchmove_wire::mqtt`]):
//!
//! - an event whose `(game, seq)` is already held is a duplicate and is
//!   dropped;
//! - the events held from seq 0 without a hole are reduced with
//!   [`GameState`](touchmove_wire::state::GameState), the daemon's own `/state` reducer;
//! - a hole (an event beyond the first missing seq) opens a gap: the
//!   registry answers with a [`ReplayRequest`] for the events after the
//!   last one held in order, once; [`Registry::due_replays`] asks again
//!   when nothing filled the gap for [`REPLAY_RETRY_MS`];
//! - an event of an older game than the board's current one is stale and
//!   dropped; a newer game (by event or by retained state) replaces the
//!   current one.
//!
//! The board's view (`fen`, moves, clocks, the board's pending alerts) is
//! the event reduction when it is at least as recent as the retained
//! state, else the retained state itself (a hall started mid-game shows
//! every board at once, before any new event).
//!
//! The arbiter's alerts are the hall's own list: each alert event
//! ([`touchmove_core::events::EventKind::is_alert`]: illegal moves 7.4, touch-move breaches 4.3,
//! displaced pieces 7.3, sensor faults) once, with the time the hall first
//! saw it, and a board's going offline (its status, or its Last Will). An
//! alert stays open until the arbiter acknowledges it, or until the board
//! itself resolves it when it is of a kind that needs no ruling
//! ([`severity::resolves_itself`](crate::severity::resolves_itself): displaced pieces restored, an illegal
//! move corrected before the clock press, a board back online, a journal
//! saving again); a resolved alert is filed with the time and what
//! resolved it. `active` says whether the board still shows it (or is
//! still offline). Open alerts are ordered by [`severity::rank`](crate::severity::rank), then by
//! age.
//!
//! Payloads that are not what their topic carries are counted and kept
//! (the last [`FAULTS_KEPT`]) with the topic and the fault, never a panic.
//!
//! Every board message is untrusted ([`super::limits`]): a payload over
//! the hall's limit is dropped unread; an event further than
//! [`SEQ_WINDOW`](crate::limits::SEQ_WINDOW) ahead of the next expected seq is not held (a replay
//! request instead), so a board's out-of-order events and its list of
//! missing seqs stay bounded; a game number may not jump far ahead; a
//! board wall time that cannot be right is left out of latency figures. A
//! board's refused messages are counted by reason ([`super::rejects`]);
//! enough of them raise one alert for the board.
//!
//! The code is split by concern: [`board`] (one board's record),
//! [`board_log`] (the event log, dedup and gaps), [`replays`] (replay
//! requests asked again), [`retained`] (the retained state), [`intake`]
//! (every message, refused ones counted), [`alerts`] and [`resolution`]
//! (the arbiter's queue), [`stream_stats`] (per-board counters and
//! latency), [`views`] (the JSON views) and [`round_pgn`].
use std::collections::{BTreeMap, BTreeSet, HashMap};

use touchmove_core::events::Event;
use touchmove_wire::mqtt::ReplayRequest;

use super::acks::AckKey;
use super::delivery::Delivery;
use super::limits::Reason;
use super::order::natural_cmp;
use super::rejects::Rejects;

mod alerts;
mod board;
mod board_log;
mod intake;
mod replays;
mod resolution;
mod retained;
mod round_pgn;
mod stream_stats;
#[cfg(test)]
mod test_support;
mod views;

pub use super::delivery::DeliveryStats;
pub use alerts::{HallAlert, Resolved};
pub use board::Status;
pub use intake::PayloadFault;
pub use stream_stats::StreamStats;

use board::Board;

/// How long a replay request may go unanswered (no event filling its gap)
/// before it is asked again.
pub const REPLAY_RETRY_MS: u64 = 2_000;
/// How many bad payloads are kept for the page (all are counted).
pub const FAULTS_KEPT: usize = 50;
/// How many alerts a board keeps (closed ones are dropped first).
pub const ALERTS_KEPT: usize = 200;
/// How many closed alerts the whole hall's view lists.
pub const CLOSED_SHOWN: usize = 100;
/// How many boards' refused messages are told apart (beyond: counted for
/// the hall only).
pub const REJECTING_BOARDS: usize = 10_000;
/// How long after a board's last refused message its alert stays active.
pub(crate) const BAD_MESSAGES_QUIET_MS: u64 = 60_000;

/// What a message changed, and what the hall must send because of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    /// The board whose view changed.
    pub changed: Option<String>,
    /// Replay requests to publish: `(topic, request)`.
    pub replays: Vec<(String, ReplayRequest)>,
    /// The payload was refused (also counted in [`Registry::faults`]).
    pub fault: Option<PayloadFault>,
    /// A new alert was raised.
    pub alert: bool,
}

/// Why an acknowledgement was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AckError {
    #[error("no board {0:?} in this hall")]
    UnknownBoard(String),
    #[error("board {board:?} has no alert {alert}")]
    UnknownAlert { board: String, alert: u64 },
}

/// The hall's boards.
#[derive(Debug, Clone)]
pub struct Registry {
    hall: String,
    boards: HashMap<String, Board>,
    delivery: Delivery,
    /// Alerts the arbiter acknowledged, kept across restarts.
    acknowledged: BTreeSet<AckKey>,
    next_alert: u64,
    faults: Vec<PayloadFault>,
    fault_count: u64,
    /// Each board's refused messages (at most [`REJECTING_BOARDS`] boards).
    rejects: HashMap<String, Rejects>,
    /// Every board's refused messages, by reason.
    rejected: BTreeMap<Reason, u64>,
}

impl Registry {
    /// An empty registry for hall `hall` (a valid id, [`touchmove_wire::mqtt::check_id`]).
    pub fn new(hall: &str) -> Registry {
        Registry {
            hall: hall.to_owned(),
            delivery: Delivery::default(),
            acknowledged: BTreeSet::new(),
            boards: HashMap::new(),
            next_alert: 1,
            faults: Vec::new(),
            fault_count: 0,
            rejects: HashMap::new(),
            rejected: BTreeMap::new(),
        }
    }

    pub fn hall(&self) -> &str {
        &self.hall
    }

    /// The board `id`, a new one seen at `now_ms` if unknown.
    fn board(&mut self, id: &str, now_ms: u64) -> &mut Board {
        self.boards
            .entry(id.to_owned())
            .or_insert_with(|| Board::new(id, now_ms))
    }

    /// The board ids in natural order (`b2` before `b10`).
    pub fn board_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.boards.keys().map(String::as_str).collect();
        ids.sort_by(|a, b| natural_cmp(a, b));
        ids
    }

    pub fn has_board(&self, id: &str) -> bool {
        self.boards.contains_key(id)
    }

    /// The board's current game number, if any is known.
    pub fn current_game(&self, id: &str) -> Option<u64> {
        self.boards.get(id)?.current_game()
    }

    /// The seqs held of the board's current game, in order.
    pub fn held_seqs(&self, id: &str) -> Vec<u64> {
        self.boards
            .get(id)
            .and_then(|b| b.log.as_ref())
            .map(|l| l.events.keys().copied().collect())
            .unwrap_or_default()
    }

    /// The events held of the board's current game, in seq order.
    pub fn events(&self, id: &str) -> Vec<Event> {
        self.boards
            .get(id)
            .and_then(|b| b.log.as_ref())
            .map(|l| l.events.values().map(|h| h.event.clone()).collect())
            .unwrap_or_default()
    }

    pub fn stats(&self, id: &str) -> Option<StreamStats> {
        self.boards.get(id).map(|b| b.stats)
    }

    pub fn status_of(&self, id: &str) -> Option<Status> {
        self.boards.get(id).map(|b| b.status)
    }

    /// Delivery across all boards: events taken, duplicates dropped and
    /// the latency from board to hall.
    pub fn delivery(&self) -> DeliveryStats {
        self.delivery.stats()
    }

    /// Bad payloads so far (all counted, the last [`FAULTS_KEPT`] kept).
    pub fn faults(&self) -> (u64, &[PayloadFault]) {
        (self.fault_count, &self.faults)
    }

    /// Board messages refused so far, of every board, for `reason`.
    pub fn rejected(&self, reason: Reason) -> u64 {
        self.rejected.get(&reason).copied().unwrap_or(0)
    }

    /// One board's refused messages (`None`: none, or the board is one of
    /// more than [`REJECTING_BOARDS`] told apart).
    pub fn rejects_of(&self, board: &str) -> Option<&Rejects> {
        self.rejects.get(board)
    }
}
