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
//!   [`GameState`], the daemon's own `/state` reducer;
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
//! ([`severity::resolves_itself`]: displaced pieces restored, an illegal
//! move corrected before the clock press, a board back online, a journal
//! saving again); a resolved alert is filed with the time and what
//! resolved it. `active` says whether the board still shows it (or is
//! still offline). Open alerts are ordered by [`severity::rank`], then by
//! age.
//!
//! Payloads that are not what their topic carries are counted and kept
//! (the last [`FAULTS_KEPT`]) with the topic and the fault, never a panic.
//!
//! Every board message is untrusted ([`super::limits`]): a payload over
//! the hall's limit is dropped unread; an event further than
//! [`SEQ_WINDOW`] ahead of the next expected seq is not held (a replay
//! request instead), so a board's out-of-order events and its list of
//! missing seqs stay bounded; a game number may not jump far ahead; a
//! board wall time that cannot be right is left out of latency figures. A
//! board's refused messages are counted by reason ([`super::rejects`]);
//! enough of them raise one alert for the board.
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::acks::AckKey;
use super::delivery::Delivery;
pub use super::delivery::DeliveryStats;
use super::limits::{self, Reason, SEQ_WINDOW};
use super::missing::{self, Missing};
use super::rejects::Rejects;
use super::severity::{self, AlertCause};

use serde::Serialize;
use serde_json::{Map, Value, json};

use touchmove_core::events::{Event, EventKind};
use touchmove_wire::mqtt::{
    self as wire, BoardTopics, Channel, EventMessage, OFFLINE, ONLINE, ReplayRequest,
};
use touchmove_wire::state::GameState;

use super::order::{natural_cmp, tag_pgn};

/// How long a replay request may go unanswered (no event filling its gap)
/// before it is asked again.
pub const REPLAY_RETRY_MS: u64 = 2_000;
/// How many bad payloads are kept for the page (all are counted).
pub const FAULTS_KEPT: usize = 50;
/// How many alerts a board keeps (closed ones are dropped first).
pub const ALERTS_KEPT: usize = 200;
/// How many closed alerts the whole hall's view lists.
pub const CLOSED_SHOWN: usize = 100;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A board's connection as its retained `status` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No status seen yet.
    Unknown,
    Online,
    Offline,
}

/// One of the arbiter's alerts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallAlert {
    /// Unique in the hall, increasing.
    pub id: u64,
    pub board: String,
    pub cause: AlertCause,
    /// Hall wall time (UNIX ms) when the hall first saw it.
    pub first_seen_ms: u64,
    /// The board's wall time when it published the event (latency).
    pub board_wall_ms: Option<u64>,
    pub acknowledged: bool,
    /// Whether the board still shows it (or is still offline).
    pub active: bool,
    /// The board resolved it by itself (no acknowledgement needed).
    pub resolved: Option<Resolved>,
}

/// How the board resolved an alert by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// Hall wall time (UNIX ms) when the hall saw it resolved.
    pub at_ms: u64,
    /// What resolved it: `restored` (the board matches the game again),
    /// `superseded` (a newer report of the same kind replaced it),
    /// `new_game`, `online`, `storage_restored`.
    pub by: &'static str,
}

impl HallAlert {
    /// Neither acknowledged nor resolved by the board: the arbiter's queue.
    pub(crate) fn is_open(&self) -> bool {
        !self.acknowledged && self.resolved.is_none()
    }

    /// The queue's order: the most severe first, then the oldest.
    pub(crate) fn queue_key(&self) -> (u8, u64) {
        (severity::rank(&self.cause), self.id)
    }

    /// When it left the queue (acknowledged alerts: when first seen).
    fn closed_ms(&self) -> u64 {
        self.resolved.map_or(self.first_seen_ms, |r| r.at_ms)
    }
}

/// Open alerts first (by severity, then age), then the closed ones, the
/// newest first.
fn queue_order(a: &HallAlert, b: &HallAlert) -> std::cmp::Ordering {
    b.is_open().cmp(&a.is_open()).then_with(|| {
        if a.is_open() {
            a.queue_key().cmp(&b.queue_key())
        } else {
            b.id.cmp(&a.id)
        }
    })
}

impl HallAlert {
    /// The alert's type: the event's `type`, or `offline`.
    pub fn kind(&self) -> &'static str {
        match &self.cause {
            AlertCause::Event { event, .. } => event.kind.name(),
            AlertCause::Offline => "offline",
            AlertCause::BadMessages { .. } => "bad_messages",
        }
    }

    pub fn to_json(&self) -> Value {
        let (game, seq, event) = match &self.cause {
            AlertCause::Event { game, event } => (
                Some(*game),
                Some(event.seq),
                serde_json::to_value(event).unwrap_or(Value::Null),
            ),
            AlertCause::Offline => (None, None, Value::Null),
            // Not an event of the contract: what the hall refused.
            AlertCause::BadMessages {
                rejected,
                reason,
                message,
            } => (
                None,
                None,
                json!({"type": "bad_messages", "rejected": rejected, "reason": reason, "message": message}),
            ),
        };
        let rank = severity::rank(&self.cause);
        json!({
            "id": self.id,
            "board": self.board,
            "type": self.kind(),
            "severity": rank,
            "severity_label": severity::label(rank),
            "open": self.is_open(),
            "resolved_ms": self.resolved.map(|r| r.at_ms),
            "resolved_by": self.resolved.map(|r| r.by),
            "game": game,
            "seq": seq,
            "event": event,
            "first_seen_ms": self.first_seen_ms,
            "board_wall_ms": self.board_wall_ms,
            "acknowledged": self.acknowledged,
            "active": self.active,
        })
    }
}

/// A payload the hall could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PayloadFault {
    pub at_ms: u64,
    pub topic: String,
    pub message: String,
}

/// Counters of one board's event stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StreamStats {
    /// Events taken (each `(game, seq)` once).
    pub events: u64,
    pub duplicates: u64,
    /// Events of an older game than the current one.
    pub stale: u64,
    /// Gaps opened.
    pub gaps: u64,
    /// Replay requests made (first asks and retries).
    pub replays: u64,
    /// Hall receive time minus the board's `wall_ms` of the last event
    /// whose `wall_ms` is plausible.
    pub last_latency_ms: Option<i64>,
    pub max_latency_ms: Option<i64>,
    /// Events whose `wall_ms` cannot be right (left out of latencies).
    pub implausible_wall_ms: u64,
    /// Events too far ahead of the next expected seq to be held.
    pub beyond_window: u64,
    /// Times the board started again from a lower game number.
    pub renumbered: u64,
}

/// How an alert is kept among the acknowledged: its board and its
/// event's game and seq (an offline board is not kept).
fn ack_key(board: &str, cause: &AlertCause) -> Option<AckKey> {
    match cause {
        AlertCause::Event { game, event } => Some((board.to_owned(), *game, event.seq)),
        AlertCause::Offline | AlertCause::BadMessages { .. } => None,
    }
}

/// An event as the hall holds it.
#[derive(Debug, Clone)]
struct Held {
    wall_ms: u64,
    event: Event,
}

/// The current game's events.
#[derive(Debug, Clone)]
struct Log {
    game: u64,
    events: BTreeMap<u64, Held>,
    /// The last seq held without a hole from 0.
    through: Option<u64>,
    /// The furthest seq seen, held or not (an event beyond the window is
    /// not held, but the gap up to it is known).
    horizon: Option<u64>,
    reduced: GameState,
    /// Board wall time minus game time, from the last event held in order.
    wall_offset: Option<i64>,
    /// The replay request out for the gap, and when it was last asked or
    /// last made progress.
    asked: Option<(ReplayRequest, u64)>,
}

impl Log {
    fn new(game: u64) -> Log {
        Log {
            game,
            events: BTreeMap::new(),
            through: None,
            horizon: None,
            reduced: GameState::new(START_FEN.into()),
            wall_offset: None,
            asked: None,
        }
    }

    fn next_seq(&self) -> u64 {
        self.through.map_or(0, |s| s + 1)
    }

    fn has_gap(&self) -> bool {
        self.horizon.is_some_and(|h| h >= self.next_seq())
    }

    /// The seqs missing before the furthest one seen (bounded work: the
    /// held events are at most [`SEQ_WINDOW`]).
    fn missing(&self) -> Missing {
        let Some(horizon) = self.horizon else {
            return Missing::default();
        };
        let next = self.next_seq();
        missing::missing(
            next,
            horizon,
            self.events.range(next..).map(|(seq, _)| *seq),
        )
    }

    /// Notes that `seq` was seen.
    fn saw(&mut self, seq: u64) {
        self.horizon = Some(self.horizon.map_or(seq, |h| h.max(seq)));
    }
}

/// The retained `state`, as received.
#[derive(Debug, Clone)]
struct Retained {
    json: Value,
    game: Option<u64>,
    seq: i64,
    /// Hall time it was received.
    received_ms: u64,
}

/// Everything known of one board.
#[derive(Debug, Clone)]
struct Board {
    id: String,
    status: Status,
    last_seen_ms: u64,
    state: Option<Retained>,
    pgn: Option<String>,
    log: Option<Log>,
    alerts: Vec<HallAlert>,
    /// `(game, seq)` of every alert event raised, so each is raised once.
    raised: HashSet<(u64, u64)>,
    stats: StreamStats,
    /// Games the arbiter asked the board to replay (the last few): their
    /// events are replies, not a board that restarted its numbering.
    replays_asked: Vec<u64>,
}

impl Board {
    fn new(id: &str, now_ms: u64) -> Board {
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

    fn current_game(&self) -> Option<u64> {
        let from_state = self.state.as_ref().and_then(|s| s.game);
        match (self.log.as_ref().map(|l| l.game), from_state) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the event reduction is at least as recent as the retained state.
    fn events_are_current(&self) -> bool {
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

    /// The board's `/state` view: from its events or its retained state.
    fn view(&self, now_ms: u64) -> (Value, &'static str) {
        let names = |key: &str| {
            self.state
                .as_ref()
                .and_then(|s| s.json.get(key))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        };
        if self.events_are_current() {
            let log = self.log.as_ref().expect("checked");
            let (white, black) = (names("white"), names("black"));
            let game_now = log
                .wall_offset
                .map_or(0, |o| (now_ms as i64 - o).max(0) as u64);
            let mut value =
                serde_json::to_value(log.reduced.snapshot(log.game, game_now, &white, &black))
                    .unwrap_or(Value::Null);
            if let (Some(offset), Some(t)) = (
                log.wall_offset,
                value.pointer("/clock/t_ms").and_then(Value::as_i64),
            ) {
                value["clock"]["at_ms"] = json!(t + offset);
            }
            (value, "events")
        } else if let Some(state) = &self.state {
            let mut value = state.json.clone();
            // When the clock's values held, in hall time: the state's own
            // `wall_ms` (an extension, when the board sends one) or the
            // time it arrived, less the game time since the clock event.
            let wall = value
                .get("wall_ms")
                .and_then(Value::as_u64)
                .unwrap_or(state.received_ms) as i64;
            let now = value.get("now_ms").and_then(Value::as_i64);
            if let (Some(now), Some(t)) =
                (now, value.pointer("/clock/t_ms").and_then(Value::as_i64))
                && value.get("clock").is_some_and(Value::is_object)
            {
                value["clock"]["at_ms"] = json!(wall - (now - t));
            }
            (value, "state")
        } else {
            (Value::Null, "none")
        }
    }

    /// The game and the last seq the board's view has taken in (`None`:
    /// no view yet).
    fn view_through(&self) -> Option<(Option<u64>, i64)> {
        if self.events_are_current() {
            let log = self.log.as_ref()?;
            Some((Some(log.game), log.through.map_or(-1, |t| t as i64)))
        } else {
            self.state.as_ref().map(|s| (s.game, s.seq))
        }
    }

    /// Marks each event alert active while the board's view still holds it,
    /// and files as resolved the alerts the board resolved by itself.
    fn refresh_active(&mut self, now_ms: u64) {
        if self.alerts.is_empty() {
            return;
        }
        // The view's pending alerts, without building the view (this runs
        // for every message).
        let pending: HashSet<(Option<u64>, u64)> = if self.events_are_current() {
            let log = self.log.as_ref().expect("checked");
            log.reduced
                .alerts()
                .map(|e| (Some(log.game), e.seq))
                .collect()
        } else if let Some(state) = &self.state {
            let game = state.json.get("game").and_then(Value::as_u64);
            state
                .json
                .get("alerts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| a.get("seq").and_then(Value::as_u64))
                .map(|seq| (game, seq))
                .collect()
        } else {
            HashSet::new()
        };
        let offline = self.status == Status::Offline;
        let through = self.view_through();
        // Newer open reports of each kind (a newer `displaced` replaces
        // the older one on the board).
        let newest: HashMap<&'static str, u64> =
            self.alerts.iter().fold(HashMap::new(), |mut m, a| {
                let e = m.entry(a.kind()).or_insert(a.id);
                *e = (*e).max(a.id);
                m
            });
        let mut resolved = Vec::new();
        for (i, alert) in self.alerts.iter().enumerate() {
            let AlertCause::Event { game, event } = &alert.cause else {
                continue;
            };
            let shown =
                pending.contains(&(Some(*game), event.seq)) || pending.contains(&(None, event.seq));
            // Whether the view has taken the alert's event in: an event
            // held beyond a gap is not reduced yet and says nothing.
            let (older_game, taken) = match through {
                Some((Some(g), _)) if g > *game => (true, true),
                Some((_, seq)) => (false, seq >= event.seq as i64),
                None => (false, false),
            };
            if shown
                || !taken
                || alert.resolved.is_some()
                || !severity::resolves_itself(&alert.cause)
            {
                continue;
            }
            let by = match &event.kind {
                // A journal's outage outlasts its game: only
                // `storage_restored` ends it.
                EventKind::StorageFailed { .. } if older_game => continue,
                EventKind::StorageFailed { .. } => "storage_restored",
                _ if older_game => "new_game",
                _ if newest.get(alert.kind()).is_some_and(|n| *n > alert.id) => "superseded",
                _ => "restored",
            };
            resolved.push((i, by));
        }
        for (i, by) in resolved {
            self.alerts[i].resolved = Some(Resolved { at_ms: now_ms, by });
        }
        for alert in &mut self.alerts {
            alert.active = match &alert.cause {
                AlertCause::Event { game, event } => {
                    let held = pending.contains(&(Some(*game), event.seq))
                        || pending.contains(&(None, event.seq));
                    let storage = matches!(event.kind, EventKind::StorageFailed { .. });
                    held || (storage && alert.resolved.is_none())
                }
                AlertCause::Offline => offline && alert.active,
                AlertCause::BadMessages { .. } => alert.active,
            };
        }
    }

    /// Files every open `storage_failed` alert of the board as resolved
    /// (the board said `storage_restored`).
    fn storage_restored(&mut self, now_ms: u64) {
        for alert in &mut self.alerts {
            if let AlertCause::Event { event, .. } = &alert.cause
                && matches!(event.kind, EventKind::StorageFailed { .. })
                && alert.resolved.is_none()
            {
                alert.resolved = Some(Resolved {
                    at_ms: now_ms,
                    by: "storage_restored",
                });
                alert.active = false;
            }
        }
    }

    /// The worst open alert (the card's badge).
    fn worst_open(&self) -> Option<&HallAlert> {
        self.open_alerts().min_by_key(|a| a.queue_key())
    }

    fn open_alerts(&self) -> impl Iterator<Item = &HallAlert> {
        self.alerts.iter().filter(|a| a.is_open())
    }

    /// The fields of the view the dashboard shows, without the move list
    /// and the history (built for every message: the work stays the same
    /// however long the game).
    fn brief_view(&self, now_ms: u64) -> (Map<String, Value>, &'static str) {
        let name = |key: &str| {
            self.state
                .as_ref()
                .and_then(|s| s.json.get(key))
                .cloned()
                .unwrap_or_else(|| json!("?"))
        };
        let mut out = Map::new();
        if self.events_are_current() {
            let log = self.log.as_ref().expect("checked");
            let r = &log.reduced;
            out.insert("seq".into(), json!(r.last_seq().map_or(-1, |s| s as i64)));
            out.insert("fen".into(), json!(r.fen()));
            out.insert("white".into(), name("white"));
            out.insert("black".into(), name("black"));
            out.insert("plies".into(), json!(r.moves().len()));
            out.insert("last_move".into(), json!(r.moves().last()));
            let mut clock = json!(r.clock());
            if let (Some(offset), Some(c)) = (log.wall_offset, r.clock()) {
                clock["at_ms"] = json!(c.t_ms as i64 + offset);
            }
            out.insert("clock".into(), clock);
            out.insert("result".into(), json!(r.result()));
            out.insert("alerts".into(), json!(r.alerts().collect::<Vec<_>>()));
            (out, "events")
        } else if self.state.is_some() {
            // The retained state is small next to a game's events; its
            // view is built as the full one is.
            let (view, source) = self.view(now_ms);
            let get = |key: &str| view.get(key).cloned().unwrap_or(Value::Null);
            let moves = view.get("moves").and_then(Value::as_array);
            for key in ["seq", "fen", "white", "black", "clock", "result", "alerts"] {
                out.insert(key.into(), get(key));
            }
            out.insert("plies".into(), json!(moves.map_or(0, Vec::len)));
            out.insert(
                "last_move".into(),
                moves.and_then(|m| m.last()).cloned().unwrap_or(Value::Null),
            );
            (out, source)
        } else {
            (out, "none")
        }
    }

    fn summary(&self, now_ms: u64, full: bool, rejects: Option<&Rejects>) -> Value {
        let (view, source) = if full {
            let (view, source) = self.view(now_ms);
            (view.as_object().cloned().unwrap_or_default(), source)
        } else {
            self.brief_view(now_ms)
        };
        let get = |key: &str| view.get(key).cloned().unwrap_or(Value::Null);
        let plies = match view.get("moves").and_then(Value::as_array) {
            Some(moves) => moves.len(),
            None => view.get("plies").and_then(Value::as_u64).unwrap_or(0) as usize,
        };
        let last_move = match view.get("moves").and_then(Value::as_array) {
            Some(moves) => moves.last().cloned().unwrap_or(Value::Null),
            None => get("last_move"),
        };
        let mut alerts: Vec<&HallAlert> = self.alerts.iter().collect();
        // The open ones by severity then age; the dashboard gets every
        // open alert and the last few closed ones.
        alerts.sort_by(|a, b| queue_order(a, b));
        let open = self.open_alerts().count();
        let shown = open + if full { usize::MAX / 2 } else { 3 };
        let mut value = json!({
            "id": self.id,
            "status": self.status,
            "last_seen_ms": self.last_seen_ms,
            "source": source,
            "game": self.current_game(),
            "seq": get("seq"),
            "fen": get("fen"),
            "white": get("white"),
            "black": get("black"),
            "plies": plies,
            "last_move": last_move,
            "clock": get("clock"),
            "result": get("result"),
            "pending": get("alerts"),
            "open_alerts": open,
            "worst": self.worst_open().map(HallAlert::to_json),
            "alerts": alerts.iter().take(shown).map(|a| a.to_json()).collect::<Vec<_>>(),
            "stats": self.stats,
            "gap": self.log.as_ref().is_some_and(Log::has_gap),
            "rejected": rejects.map_or_else(|| Rejects::default().to_json(), Rejects::to_json),
        });
        if full {
            value["moves"] = get("moves");
            value["history"] = get("history");
            value["profile"] = get("profile");
            value["has_pgn"] = json!(self.pgn.is_some());
            let missing = self.log.as_ref().map(Log::missing).unwrap_or_default();
            value["missing"] = json!(missing.listed);
            value["missing_count"] = json!(missing.count);
            value["missing_ranges"] = json!(missing.ranges);
        }
        value
    }
}

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

/// How many boards' refused messages are told apart (beyond: counted for
/// the hall only).
pub const REJECTING_BOARDS: usize = 10_000;
/// How long after a board's last refused message its alert stays active.
pub(crate) const BAD_MESSAGES_QUIET_MS: u64 = 60_000;

impl Registry {
    /// An empty registry for hall `hall` (a valid id, [`wire::check_id`]).
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

    fn fault(&mut self, topic: &str, message: String, now_ms: u64) -> Received {
        let fault = PayloadFault {
            at_ms: now_ms,
            topic: topic.to_owned(),
            message,
        };
        self.fault_count += 1;
        if self.faults.len() == FAULTS_KEPT {
            self.faults.remove(0);
        }
        self.faults.push(fault.clone());
        Received {
            fault: Some(fault),
            ..Received::default()
        }
    }

    /// A board's message refused: a fault of the hall, counted for the
    /// board by reason, and an alert once the board has sent enough.
    fn reject(
        &mut self,
        board: &str,
        topic: &str,
        reason: Reason,
        message: String,
        now_ms: u64,
    ) -> Received {
        *self.rejected.entry(reason).or_default() += 1;
        let tracked = self.rejects.len() < REJECTING_BOARDS || self.rejects.contains_key(board);
        let mut alert = None;
        if tracked {
            let rejects = self.rejects.entry(board.to_owned()).or_default();
            rejects.add(reason, topic, &message, now_ms);
            let cause = AlertCause::BadMessages {
                rejected: rejects.count,
                reason: reason.name(),
                message: message.clone(),
            };
            if rejects.alert_due() {
                rejects.alerted();
                alert = Some(cause);
            } else if let Some(b) = self.boards.get_mut(board) {
                // The open alert tells the latest.
                for a in b.alerts.iter_mut().filter(|a| a.is_open()) {
                    if let AlertCause::BadMessages { .. } = a.cause {
                        a.cause = cause.clone();
                        a.active = true;
                    }
                }
            }
        }
        let mut received = self.fault(topic, message, now_ms);
        if let Some(cause) = alert {
            let open = self
                .board(board, now_ms)
                .alerts
                .iter_mut()
                .find(|a| !a.acknowledged && matches!(a.cause, AlertCause::BadMessages { .. }));
            match open {
                Some(a) => {
                    a.cause = cause;
                    a.active = true;
                }
                None => {
                    self.raise(board, cause, None, now_ms);
                    received.alert = true;
                }
            }
            received.changed = Some(board.to_owned());
        } else if self.boards.contains_key(board) {
            received.changed = Some(board.to_owned());
        }
        received
    }

    /// Takes one MQTT message.
    pub fn receive(&mut self, topic: &str, payload: &[u8], now_ms: u64) -> Received {
        self.delivery.messages += 1;
        let Some((hall, board, channel)) = wire::parse_topic(topic) else {
            return self.fault(
                topic,
                "not a topic of the touchmove/v1 contract".into(),
                now_ms,
            );
        };
        if hall != self.hall {
            return self.fault(
                topic,
                format!("another hall ({hall:?}, not {:?})", self.hall),
                now_ms,
            );
        }
        if channel == Channel::Replay {
            // Requests (ours or another hall reader's) are not board news.
            return Received::default();
        }
        let board = board.to_owned();
        if let Err(message) = limits::check_size(payload.len()) {
            return self.reject(&board, topic, Reason::Oversized, message, now_ms);
        }
        let result = match channel {
            Channel::Events => match EventMessage::parse(topic, payload) {
                Ok(message) => self.event(&board, message, now_ms),
                Err(e) => Err((Reason::Undecodable, e.message)),
            },
            Channel::State => self.state(&board, topic, payload, now_ms),
            Channel::Pgn => match std::str::from_utf8(payload) {
                Ok(text) => {
                    let b = self.board(&board, now_ms);
                    b.pgn = (!text.trim().is_empty()).then(|| text.to_owned());
                    Ok(Received::default())
                }
                Err(e) => Err((Reason::Undecodable, format!("the PGN is not UTF-8: {e}"))),
            },
            Channel::Status => match std::str::from_utf8(payload).map(str::trim) {
                Ok(ONLINE) => Ok(self.status(&board, Status::Online, now_ms)),
                Ok(OFFLINE) => Ok(self.status(&board, Status::Offline, now_ms)),
                Ok("") => {
                    // A retained status cleared: the board is gone.
                    Ok(self.status(&board, Status::Unknown, now_ms))
                }
                _ => Err((
                    Reason::Undecodable,
                    format!(
                        "a status must be {ONLINE:?} or {OFFLINE:?}, not {:?}",
                        String::from_utf8_lossy(&payload[..payload.len().min(40)])
                    ),
                )),
            },
            Channel::Replay => unreachable!("returned above"),
        };
        match result {
            Ok(mut received) => {
                let quiet = self
                    .rejects
                    .get(&board)
                    .and_then(|r| r.last.as_ref())
                    .is_none_or(|last| now_ms.saturating_sub(last.at_ms) >= BAD_MESSAGES_QUIET_MS);
                let b = self.board(&board, now_ms);
                b.last_seen_ms = now_ms;
                b.refresh_active(now_ms);
                if quiet {
                    for a in &mut b.alerts {
                        if let AlertCause::BadMessages { .. } = a.cause {
                            a.active = false;
                        }
                    }
                }
                received.changed = Some(board);
                received
            }
            Err((reason, message)) => self.reject(&board, topic, reason, message, now_ms),
        }
    }

    fn board(&mut self, id: &str, now_ms: u64) -> &mut Board {
        self.boards
            .entry(id.to_owned())
            .or_insert_with(|| Board::new(id, now_ms))
    }

    fn replay_topic(&self, board: &str) -> String {
        BoardTopics {
            hall: self.hall.clone(),
            board: board.to_owned(),
        }
        .topic(Channel::Replay)
    }

    fn raise(&mut self, board: &str, cause: AlertCause, board_wall_ms: Option<u64>, now_ms: u64) {
        let acknowledged = ack_key(board, &cause).is_some_and(|k| self.acknowledged.contains(&k));
        let id = self.next_alert;
        self.next_alert += 1;
        let b = self.board(board, now_ms);
        if b.alerts.len() >= ALERTS_KEPT {
            let drop = b.alerts.iter().position(|a| !a.is_open()).unwrap_or(0);
            b.alerts.remove(drop);
        }
        b.alerts.push(HallAlert {
            id,
            board: board.to_owned(),
            cause,
            first_seen_ms: now_ms,
            board_wall_ms,
            acknowledged,
            active: true,
            resolved: None,
        });
    }

    /// Alerts acknowledged before (read from the hall's file at start): if
    /// raised again, they come acknowledged.
    pub(crate) fn remember_acknowledged(&mut self, keys: BTreeSet<AckKey>) {
        self.acknowledged.extend(keys);
    }

    /// Every alert acknowledged, as kept in the hall's file.
    pub(crate) fn acknowledged_keys(&self) -> &BTreeSet<AckKey> {
        &self.acknowledged
    }

    /// The arbiter asked `board` to replay `game`: its events are
    /// replies, even if it is older than the board's current game.
    pub fn replay_asked(&mut self, board: &str, game: u64) {
        if let Some(b) = self.boards.get_mut(board) {
            b.replays_asked.retain(|g| *g != game);
            if b.replays_asked.len() >= 4 {
                b.replays_asked.remove(0);
            }
            b.replays_asked.push(game);
        }
    }

    fn event(
        &mut self,
        board: &str,
        message: EventMessage,
        now_ms: u64,
    ) -> Result<Received, (Reason, String)> {
        let topic = self.replay_topic(board);
        let mut received = Received::default();
        let b = self
            .boards
            .entry(board.to_owned())
            .or_insert_with(|| Board::new(board, now_ms));
        let EventMessage {
            game,
            wall_ms,
            event,
        } = message;
        let current = b.current_game();
        limits::check_game(current, game, "game").map_err(|e| (Reason::ImplausibleGame, e))?;
        let latency = limits::plausible_latency(now_ms, wall_ms);
        match latency {
            Some(latency) => {
                b.stats.last_latency_ms = Some(latency);
                b.stats.max_latency_ms =
                    Some(b.stats.max_latency_ms.map_or(latency, |m| m.max(latency)));
            }
            None => b.stats.implausible_wall_ms += 1,
        }
        // The board's clock when it cannot be right: the hall's.
        let wall_ms = if latency.is_some() { wall_ms } else { now_ms };
        match current {
            Some(current) if game < current => {
                let restarted = event.seq == 0
                    && matches!(event.kind, EventKind::GameStarted { .. })
                    && !b.replays_asked.contains(&game);
                if !restarted {
                    b.stats.stale += 1;
                    return Ok(received);
                }
                // A board without a journal numbers its games from 1 again
                // after a restart: its new game, and its retained state of
                // the old numbering no longer counts.
                b.stats.renumbered += 1;
                b.state = None;
                b.log = None;
            }
            _ => {}
        }
        if b.log.as_ref().is_none_or(|l| l.game != game) {
            // A new game: the alerts of the others are not raised again.
            b.raised.retain(|(g, _)| *g == game);
        }
        let log = match &mut b.log {
            Some(log) if log.game == game => log,
            slot => slot.insert(Log::new(game)),
        };
        if log.events.contains_key(&event.seq) {
            b.stats.duplicates += 1;
            self.delivery.duplicates += 1;
            return Ok(received);
        }
        if log.events.len() >= limits::MAX_GAME_EVENTS {
            return Err((
                Reason::GameTooLong,
                format!(
                    "game {game} already holds {} events, the most the hall keeps of a game; seq {} dropped",
                    limits::MAX_GAME_EVENTS,
                    event.seq
                ),
            ));
        }
        let seq = event.seq;
        let next = log.next_seq();
        if seq < next {
            // Held once, since reduced (only the held are reduced).
            b.stats.duplicates += 1;
            self.delivery.duplicates += 1;
            return Ok(received);
        }
        log.saw(seq);
        if seq - next >= SEQ_WINDOW {
            // Too far ahead to hold: asked for in order instead.
            b.stats.beyond_window += 1;
            if log.asked.is_none() {
                let request = ReplayRequest {
                    game,
                    after_seq: log.through,
                };
                log.asked = Some((request, now_ms));
                b.stats.gaps += 1;
                b.stats.replays += 1;
                received.replays.push((topic, request));
            }
            return Ok(received);
        }
        self.delivery.accepted(latency);
        let restores_storage = matches!(event.kind, EventKind::StorageRestored { .. });
        let is_alert = event.kind.is_alert();
        let alert_event = is_alert.then(|| event.clone());
        log.events.insert(seq, Held { wall_ms, event });
        let progressed = seq == next;
        while let Some(held) = log.events.get(&log.next_seq()) {
            log.reduced.apply(&held.event);
            log.wall_offset = Some(held.wall_ms as i64 - held.event.t_ms as i64);
            log.through = Some(held.event.seq);
        }
        b.stats.events += 1;
        if log.has_gap() {
            match &mut log.asked {
                Some((_, at)) if progressed => *at = now_ms,
                Some(_) => {}
                None => {
                    let request = ReplayRequest {
                        game,
                        after_seq: log.through,
                    };
                    log.asked = Some((request, now_ms));
                    b.stats.gaps += 1;
                    b.stats.replays += 1;
                    received.replays.push((topic, request));
                }
            }
        } else {
            log.asked = None;
        }
        if restores_storage {
            b.storage_restored(now_ms);
        }
        if let Some(event) = alert_event
            && b.raised.insert((game, seq))
        {
            self.raise(
                board,
                AlertCause::Event { game, event },
                Some(wall_ms),
                now_ms,
            );
            received.alert = true;
        }
        Ok(received)
    }

    fn state(
        &mut self,
        board: &str,
        topic: &str,
        payload: &[u8],
        now_ms: u64,
    ) -> Result<Received, (Reason, String)> {
        let bad = |message: String| (Reason::Undecodable, message);
        let json: Value = serde_json::from_slice(payload)
            .map_err(|e| bad(format!("the state is not JSON: {e}")))?;
        if !json.is_object() {
            return Err(bad("the state is not a JSON object".into()));
        }
        let seq = match json.get("seq") {
            Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or(-1),
            _ => {
                return Err(bad(
                    "the state's `seq` must be a whole number (-1 before any event)".into(),
                ));
            }
        };
        if json.get("fen").and_then(Value::as_str).is_none() {
            return Err(bad("the state's `fen` is missing".into()));
        }
        let game = match json.get("game") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| bad("the state's `game` must be a whole number".into()))?,
            ),
        };
        if let Some(g) = game {
            let current = self.boards.get(board).and_then(Board::current_game);
            limits::check_game(current, g, "game")
                .map_err(|e| (Reason::ImplausibleGame, format!("state: {e}")))?;
        }
        let b = self.board(board, now_ms);
        if let (Some(g), Some(current)) = (game, b.current_game())
            && g < current
        {
            b.stats.stale += 1;
            return Ok(Received::default());
        }
        if let (Some(g), Some(log)) = (game, &b.log)
            && g > log.game
        {
            b.log = None;
        }
        // The board's pending alerts are the arbiter's too (a hall started
        // while a piece stands displaced sees it at once).
        let pending: Vec<Event> = json
            .get("alerts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| serde_json::from_value::<Event>(a.clone()).ok())
            .filter(|e| e.kind.is_alert())
            .collect();
        let game_no = game.or(b.log.as_ref().map(|l| l.game)).unwrap_or(0);
        let wall = json.get("wall_ms").and_then(Value::as_u64);
        b.state = Some(Retained {
            json,
            game,
            seq,
            received_ms: now_ms,
        });
        let _ = topic;
        let mut received = Received::default();
        for event in pending {
            if self
                .board(board, now_ms)
                .raised
                .insert((game_no, event.seq))
            {
                self.raise(
                    board,
                    AlertCause::Event {
                        game: game_no,
                        event,
                    },
                    wall,
                    now_ms,
                );
                received.alert = true;
            }
        }
        Ok(received)
    }

    fn status(&mut self, board: &str, status: Status, now_ms: u64) -> Received {
        let b = self.board(board, now_ms);
        let before = b.status;
        b.status = status;
        let mut received = Received::default();
        match (before, status) {
            (Status::Offline, Status::Offline) => {}
            (_, Status::Offline) => {
                self.raise(board, AlertCause::Offline, None, now_ms);
                received.alert = true;
            }
            (_, now) => {
                for alert in &mut self.board(board, now_ms).alerts {
                    if alert.cause == AlertCause::Offline {
                        alert.active = false;
                        // Back online: the board resolved it. A status
                        // cleared (the board taken away) waits for the
                        // arbiter.
                        if now == Status::Online && alert.resolved.is_none() {
                            alert.resolved = Some(Resolved {
                                at_ms: now_ms,
                                by: "online",
                            });
                        }
                    }
                }
            }
        }
        received
    }

    /// What the broker had queued for the hall was lost (its session
    /// discarded): every board with a game is asked for the events after
    /// the last one held in order, or after its retained state's.
    pub fn resync(&mut self, now_ms: u64) -> Vec<(String, ReplayRequest)> {
        let mut out = Vec::new();
        for b in self.boards.values_mut() {
            let request = match (&mut b.log, &b.state) {
                (Some(log), _) => {
                    let request = ReplayRequest {
                        game: log.game,
                        after_seq: log.through,
                    };
                    log.asked = Some((request, now_ms));
                    request
                }
                (
                    None,
                    Some(Retained {
                        game: Some(game),
                        seq,
                        ..
                    }),
                ) => ReplayRequest {
                    game: *game,
                    after_seq: u64::try_from(*seq).ok(),
                },
                _ => continue,
            };
            b.stats.replays += 1;
            out.push((
                BoardTopics {
                    hall: self.hall.clone(),
                    board: b.id.clone(),
                }
                .topic(Channel::Replay),
                request,
            ));
        }
        out
    }

    /// Replay requests whose gap nothing filled for [`REPLAY_RETRY_MS`],
    /// asked again (from the last event held in order).
    pub fn due_replays(&mut self, now_ms: u64) -> Vec<(String, ReplayRequest)> {
        let mut out = Vec::new();
        let hall = self.hall.clone();
        for b in self.boards.values_mut() {
            let Some(log) = &mut b.log else { continue };
            let Some((_, at)) = log.asked else { continue };
            if now_ms.saturating_sub(at) < REPLAY_RETRY_MS || !log.has_gap() {
                continue;
            }
            let request = ReplayRequest {
                game: log.game,
                after_seq: log.through,
            };
            log.asked = Some((request, now_ms));
            b.stats.replays += 1;
            out.push((
                BoardTopics {
                    hall: hall.clone(),
                    board: b.id.clone(),
                }
                .topic(Channel::Replay),
                request,
            ));
        }
        out
    }

    /// The arbiter acknowledges one alert of `board` (`alert`: its id), or
    /// all its open alerts (`None`). Returns how many were acknowledged.
    pub fn acknowledge(&mut self, board: &str, alert: Option<u64>) -> Result<usize, AckError> {
        let b = self
            .boards
            .get_mut(board)
            .ok_or_else(|| AckError::UnknownBoard(board.to_owned()))?;
        let mut count = 0;
        match alert {
            Some(id) => {
                let a = b
                    .alerts
                    .iter_mut()
                    .find(|a| a.id == id)
                    .ok_or(AckError::UnknownAlert {
                        board: board.to_owned(),
                        alert: id,
                    })?;
                count += usize::from(!a.acknowledged);
                a.acknowledged = true;
                self.acknowledged.extend(ack_key(board, &a.cause));
            }
            None => {
                for a in b.alerts.iter_mut().filter(|a| a.is_open()) {
                    a.acknowledged = true;
                    count += 1;
                    self.acknowledged.extend(ack_key(board, &a.cause));
                }
            }
        }
        Ok(count)
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

    /// Every alert of every board: the open ones by severity then age
    /// (the arbiter's queue), then the closed ones, the newest first.
    pub fn alerts(&self) -> Vec<&HallAlert> {
        let mut all: Vec<&HallAlert> = self.boards.values().flat_map(|b| &b.alerts).collect();
        all.sort_by(|a, b| queue_order(a, b));
        all
    }

    /// How many alerts wait for the arbiter.
    pub fn open_count(&self) -> usize {
        self.boards.values().map(|b| b.open_alerts().count()).sum()
    }

    /// One board: its summary with the move list, history and every alert.
    pub fn board_json(&self, id: &str, now_ms: u64) -> Option<Value> {
        Some(
            self.boards
                .get(id)?
                .summary(now_ms, true, self.rejects.get(id)),
        )
    }

    /// One board's summary as the dashboard shows it.
    pub(crate) fn summary_json(&self, id: &str, now_ms: u64) -> Option<Value> {
        Some(
            self.boards
                .get(id)?
                .summary(now_ms, false, self.rejects.get(id)),
        )
    }

    /// Every board for the dashboard: boards by their worst open alert
    /// (severity, then age), then the others in natural order; the
    /// arbiter's queue (open alerts by severity, then age); the last
    /// [`CLOSED_SHOWN`] alerts closed (resolved by their board or
    /// acknowledged), the newest first; the bad payloads.
    pub fn hall_json(&self, now_ms: u64) -> Value {
        let mut boards: Vec<(&Board, Option<(u8, u64)>)> = self
            .boards
            .values()
            .map(|b| (b, b.worst_open().map(HallAlert::queue_key)))
            .collect();
        boards.sort_by(|(a, x), (b, y)| match (x, y) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => natural_cmp(&a.id, &b.id),
        });
        let all = self.alerts();
        let open: Vec<Value> = all
            .iter()
            .filter(|a| a.is_open())
            .map(|a| a.to_json())
            .collect();
        let mut closed: Vec<&&HallAlert> = all.iter().filter(|a| !a.is_open()).collect();
        closed.sort_by_key(|a| std::cmp::Reverse((a.closed_ms(), a.id)));
        json!({
            "hall": self.hall,
            "now_ms": now_ms,
            "boards": boards.iter().map(|(b, _)| b.summary(now_ms, false, self.rejects.get(&b.id))).collect::<Vec<_>>(),
            "alerts": open,
            "closed": closed.iter().take(CLOSED_SHOWN).map(|a| a.to_json()).collect::<Vec<_>>(),
            "faults": self.faults,
            "fault_count": self.fault_count,
        })
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

    /// One board's PGN (its retained `pgn`), with `[Board]` and, when
    /// given, `[Round]` set. `None` for an unknown board or one that has
    /// published no PGN yet.
    pub fn board_pgn(&self, id: &str, round: Option<&str>) -> Option<String> {
        let pgn = self.boards.get(id)?.pgn.as_deref()?;
        Some(tag_pgn(pgn, round, id))
    }

    /// The round: every board's game in natural board order, each with
    /// `[Board]` and `[Round]` set, `[%clk]` kept.
    pub fn round_pgn(&self, round: Option<&str>) -> String {
        let mut out = String::new();
        for id in self.board_ids() {
            if let Some(pgn) = self.board_pgn(id, round) {
                out.push_str(pgn.trim_end());
                out.push_str("\n\n");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use shakmaty::Square;
    use touchmove_core::events::{EventKind, Side};

    const HALL: &str = "h";

    fn topic(board: &str, channel: Channel) -> String {
        BoardTopics::new(HALL, board).unwrap().topic(channel)
    }

    fn ev(seq: u64, kind: EventKind) -> Event {
        Event {
            t_ms: seq * 1000,
            seq,
            kind,
        }
    }

    fn started() -> EventKind {
        EventKind::GameStarted {
            fen: START_FEN.into(),
            profile: None,
        }
    }

    fn lifted() -> EventKind {
        EventKind::PieceLifted {
            square: Square::E2,
            piece: Some('P'),
        }
    }

    fn illegal() -> EventKind {
        EventKind::IllegalMove {
            side: Side::White,
            completed: false,
            from: Some(Square::E2),
            to: Some(Square::E5),
            count: 0,
            article: None,
        }
    }

    fn send(r: &mut Registry, board: &str, game: u64, event: Event, now: u64) -> Received {
        let m = EventMessage {
            game,
            wall_ms: now - 5,
            event,
        };
        r.receive(&topic(board, Channel::Events), m.to_json().as_bytes(), now)
    }

    #[test]
    fn duplicates_are_dropped_and_gaps_ask_for_a_replay_once() {
        let mut r = Registry::new(HALL);
        assert!(
            send(&mut r, "b1", 1, ev(0, started()), 1000)
                .replays
                .is_empty()
        );
        assert!(
            send(&mut r, "b1", 1, ev(0, started()), 1001)
                .changed
                .is_some()
        );
        assert_eq!(r.stats("b1").unwrap().duplicates, 1);
        // 1 and 2 lost: 3 opens a gap, asked after 0.
        let got = send(&mut r, "b1", 1, ev(3, lifted()), 1100);
        assert_eq!(
            got.replays,
            vec![(
                topic("b1", Channel::Replay),
                ReplayRequest {
                    game: 1,
                    after_seq: Some(0)
                }
            )]
        );
        // 4 while the request is out: no second request.
        assert!(
            send(&mut r, "b1", 1, ev(4, lifted()), 1200)
                .replays
                .is_empty()
        );
        assert!(r.due_replays(1100 + REPLAY_RETRY_MS - 1).is_empty());
        // Unanswered: asked again.
        let again = r.due_replays(1100 + REPLAY_RETRY_MS);
        assert_eq!(again.len(), 1);
        assert_eq!(r.board_json("b1", 0).unwrap()["missing"], json!([1, 2]));
        // The replay answers 1..4; 3 and 4 are duplicates.
        for seq in 1..=4 {
            send(&mut r, "b1", 1, ev(seq, lifted()), 4000);
        }
        assert_eq!(r.held_seqs("b1"), vec![0, 1, 2, 3, 4]);
        let stats = r.stats("b1").unwrap();
        assert_eq!(
            (stats.events, stats.duplicates, stats.gaps, stats.replays),
            (5, 3, 1, 2)
        );
        assert!(r.due_replays(100_000).is_empty());
        assert_eq!(stats.last_latency_ms, Some(5));
    }

    #[test]
    fn a_hall_started_mid_game_asks_for_the_game_from_its_start() {
        let mut r = Registry::new(HALL);
        let got = send(&mut r, "b2", 4, ev(7, lifted()), 10);
        assert_eq!(
            got.replays[0].1,
            ReplayRequest {
                game: 4,
                after_seq: None
            }
        );
        // An older game's event is stale (its start would be a board that
        // numbers its games from 1 again); a newer game replaces the log.
        send(&mut r, "b2", 3, ev(1, lifted()), 11);
        assert_eq!(r.stats("b2").unwrap().stale, 1);
        send(&mut r, "b2", 5, ev(0, started()), 12);
        assert_eq!(r.current_game("b2"), Some(5));
        assert_eq!(r.held_seqs("b2"), vec![0]);
        assert!(r.due_replays(1_000_000).is_empty());
    }

    fn completed_illegal() -> EventKind {
        EventKind::IllegalMove {
            side: Side::White,
            completed: true,
            from: Some(Square::E2),
            to: Some(Square::E5),
            count: 1,
            article: Some("7.4".into()),
        }
    }

    fn displaced(square: Square) -> EventKind {
        EventKind::Displaced {
            squares: vec![square],
            expected_fen: START_FEN.into(),
            candidates: vec![],
        }
    }

    fn restored() -> EventKind {
        EventKind::Restored {
            fen: START_FEN.into(),
        }
    }

    fn open_kinds(r: &Registry) -> Vec<(String, String)> {
        r.hall_json(0)["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["board"].as_str().unwrap().to_owned(),
                    a["type"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn the_queue_is_ordered_by_severity_then_age() {
        let mut r = Registry::new(HALL);
        for b in ["b1", "b2", "b3"] {
            r.receive(&topic(b, Channel::Status), b"online", 10);
            send(&mut r, b, 1, ev(0, started()), 20);
        }
        // The oldest: a displaced piece on b1, then b2 offline, then a
        // completed illegal move on b3, then another displaced on b2.
        send(&mut r, "b1", 1, ev(1, displaced(Square::H7)), 100);
        r.receive(&topic("b2", Channel::Status), b"offline", 200);
        send(&mut r, "b3", 1, ev(1, completed_illegal()), 300);
        send(&mut r, "b3", 1, ev(2, displaced(Square::A2)), 400);
        assert_eq!(
            open_kinds(&r),
            [
                ("b3".into(), "illegal_move".into()),
                ("b2".into(), "offline".into()),
                ("b1".into(), "displaced".into()),
                ("b3".into(), "displaced".into()),
            ]
        );
        let hall = r.hall_json(0);
        assert_eq!(hall["alerts"][0]["severity"], 0);
        assert_eq!(hall["alerts"][0]["severity_label"], "illegal move");
        // Boards by their worst open alert.
        let order: Vec<&str> = hall["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        assert_eq!(order, ["b3", "b2", "b1"]);
        // A card's badge is its worst open alert, not its newest.
        let b3 = r.summary_json("b3", 0).unwrap();
        assert_eq!(b3["worst"]["type"], "illegal_move");
        assert_eq!(b3["alerts"][0]["type"], "illegal_move");
        assert_eq!(b3["open_alerts"], 2);
    }

    #[test]
    fn alerts_the_board_resolves_are_filed_as_resolved_without_an_ack() {
        let mut r = Registry::new(HALL);
        r.receive(&topic("b1", Channel::Status), b"online", 10);
        send(&mut r, "b1", 1, ev(0, started()), 20);
        send(&mut r, "b1", 1, ev(1, displaced(Square::H7)), 100);
        // A newer report of the same pieces replaces the first.
        send(&mut r, "b1", 1, ev(2, displaced(Square::G7)), 150);
        assert_eq!(r.open_count(), 1);
        let first = r.alerts().into_iter().find(|a| !a.is_open()).unwrap();
        assert_eq!(first.resolved.unwrap().by, "superseded");
        // The players put the piece back: no ruling, no acknowledgement.
        send(&mut r, "b1", 1, ev(3, restored()), 200);
        assert_eq!(r.open_count(), 0);
        let hall = r.hall_json(300);
        assert_eq!(hall["alerts"], json!([]));
        let closed = &hall["closed"][0];
        assert_eq!(closed["type"], "displaced");
        assert_eq!(closed["resolved_by"], "restored");
        assert_eq!(closed["resolved_ms"], 200);
        assert_eq!(closed["acknowledged"], false);
        assert_eq!(closed["open"], false);
        // An illegal move corrected before the clock press resolves too;
        // a completed one waits for the arbiter, restored or not.
        send(&mut r, "b1", 1, ev(4, illegal()), 400);
        send(&mut r, "b1", 1, ev(5, restored()), 450);
        assert_eq!(r.open_count(), 0);
        send(&mut r, "b1", 1, ev(6, completed_illegal()), 500);
        send(&mut r, "b1", 1, ev(7, restored()), 550);
        assert_eq!(open_kinds(&r), [("b1".into(), "illegal_move".into())]);
        // Offline, then back online: resolved by the board.
        r.receive(&topic("b1", Channel::Status), b"offline", 600);
        assert_eq!(r.open_count(), 2);
        r.receive(&topic("b1", Channel::Status), b"online", 700);
        assert_eq!(r.open_count(), 1);
        let offline = r
            .alerts()
            .into_iter()
            .find(|a| a.kind() == "offline")
            .unwrap();
        assert_eq!(
            offline.resolved,
            Some(Resolved {
                at_ms: 700,
                by: "online"
            })
        );
        // A journal that cannot save, until it saves again.
        send(
            &mut r,
            "b1",
            1,
            ev(
                8,
                EventKind::StorageFailed {
                    error: "No space left on device".into(),
                    from_seq: Some(8),
                },
            ),
            800,
        );
        assert_eq!(r.open_count(), 2);
        send(
            &mut r,
            "b1",
            1,
            ev(
                9,
                EventKind::StorageRestored {
                    committed: 2,
                    lost: 0,
                },
            ),
            900,
        );
        assert_eq!(open_kinds(&r), [("b1".into(), "illegal_move".into())]);
        let storage = r
            .alerts()
            .into_iter()
            .find(|a| a.kind() == "storage_failed")
            .unwrap();
        assert_eq!(storage.resolved.unwrap().by, "storage_restored");
        // Acknowledging the board acknowledges only what is open.
        assert_eq!(r.acknowledge("b1", None), Ok(1));
        assert_eq!(r.open_count(), 0);
    }

    #[test]
    fn an_alert_held_beyond_a_gap_is_not_resolved_before_it_is_reduced() {
        let mut r = Registry::new(HALL);
        send(&mut r, "b1", 1, ev(0, started()), 20);
        // seq 1 lost: the displaced (2) is held, not reduced yet.
        send(&mut r, "b1", 1, ev(2, displaced(Square::H7)), 100);
        send(&mut r, "b1", 1, ev(3, lifted()), 110);
        assert_eq!(r.open_count(), 1);
        assert!(r.alerts()[0].resolved.is_none());
        // The gap filled: reduced, still shown, still open.
        send(&mut r, "b1", 1, ev(1, lifted()), 200);
        assert_eq!(r.open_count(), 1);
        assert!(r.alerts()[0].active);
    }

    #[test]
    fn alerts_are_raised_once_stay_open_until_acknowledged() {
        let mut r = Registry::new(HALL);
        send(&mut r, "b1", 1, ev(0, started()), 100);
        let got = send(&mut r, "b1", 1, ev(1, completed_illegal()), 200);
        assert!(got.alert);
        assert!(!send(&mut r, "b1", 1, ev(1, completed_illegal()), 300).alert);
        let alerts = r.alerts();
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].kind(), "illegal_move");
        assert_eq!(alerts[0].first_seen_ms, 200);
        assert!(alerts[0].active);
        // The board restores the position: a completed illegal move is
        // still the arbiter's (Article 7.4), open until acknowledged.
        send(&mut r, "b1", 1, ev(2, restored()), 400);
        let alerts = r.alerts();
        assert!(alerts[0].is_open() && !alerts[0].acknowledged);
        let id = alerts[0].id;
        assert_eq!(
            r.acknowledge("b1", Some(99)),
            Err(AckError::UnknownAlert {
                board: "b1".into(),
                alert: 99
            })
        );
        assert_eq!(
            r.acknowledge("zz", None),
            Err(AckError::UnknownBoard("zz".into()))
        );
        assert_eq!(r.acknowledge("b1", Some(id)), Ok(1));
        assert_eq!(r.hall_json(0)["alerts"], json!([]));
    }

    #[test]
    fn offline_boards_are_alerts_and_sorted_first() {
        let mut r = Registry::new(HALL);
        for b in ["b10", "b2", "b1"] {
            r.receive(&topic(b, Channel::Status), b"online", 1);
        }
        assert_eq!(r.board_ids(), ["b1", "b2", "b10"]);
        let got = r.receive(&topic("b10", Channel::Status), b"offline", 5);
        assert!(got.alert);
        // The same retained status again raises nothing new.
        assert!(
            !r.receive(&topic("b10", Channel::Status), b"offline", 6)
                .alert
        );
        let hall = r.hall_json(10);
        let order: Vec<&str> = hall["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        assert_eq!(order, ["b10", "b1", "b2"]);
        assert_eq!(hall["alerts"][0]["type"], "offline");
        assert_eq!(hall["alerts"][0]["active"], true);
        r.receive(&topic("b10", Channel::Status), b"online", 20);
        assert_eq!(r.hall_json(21)["alerts"], json!([]));
        assert_eq!(r.hall_json(21)["closed"][0]["active"], false);
        assert_eq!(r.hall_json(21)["closed"][0]["resolved_by"], "online");
    }

    #[test]
    fn the_retained_state_shows_a_board_before_any_event() {
        let mut r = Registry::new(HALL);
        let state = json!({
            "fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "moves": [{"ply": 1, "san": "e4", "uci": "e2e4", "side": "white"}],
            "clock": {"white_ms": 60000, "black_ms": 50000, "running": "black", "t_ms": 1000},
            "alerts": [{"type": "displaced", "t_ms": 900, "seq": 12, "squares": ["h7"], "expected_fen": "x"}],
            "result": null, "seq": 14, "white": "Ann", "black": "Bob", "now_ms": 3000, "history": [], "game": 2
        });
        r.receive(
            &topic("b3", Channel::State),
            state.to_string().as_bytes(),
            50_000,
        );
        let b = r.board_json("b3", 50_000).unwrap();
        assert_eq!(b["source"], "state");
        assert_eq!(b["white"], "Ann");
        assert_eq!(b["last_move"]["san"], "e4");
        assert_eq!(b["clock"]["at_ms"], 48_000);
        assert_eq!(b["open_alerts"], 1);
        assert_eq!(b["alerts"][0]["type"], "displaced");
        assert_eq!(b["alerts"][0]["active"], true);
        // The next event of the game (15) opens a gap from the start.
        let got = send(&mut r, "b3", 2, ev(15, lifted()), 50_100);
        assert_eq!(
            got.replays[0].1,
            ReplayRequest {
                game: 2,
                after_seq: None
            }
        );
        // The view stays the retained state until the events catch up.
        assert_eq!(r.board_json("b3", 0).unwrap()["source"], "state");
    }

    #[test]
    fn bad_payloads_are_counted_with_topic_and_fault() {
        let mut r = Registry::new(HALL);
        let f = r
            .receive(&topic("b1", Channel::Events), b"{not json", 1)
            .fault
            .unwrap();
        assert!(f.message.starts_with("not JSON"), "{f:?}");
        let f = r.receive("elsewhere/x", b"1", 2).fault.unwrap();
        assert_eq!(f.topic, "elsewhere/x");
        let f = r
            .receive("touchmove/v1/other/b1/state", b"{}", 3)
            .fault
            .unwrap();
        assert!(f.message.contains("another hall"));
        let f = r
            .receive(&topic("b1", Channel::State), b"{\"fen\":\"x\"}", 4)
            .fault
            .unwrap();
        assert!(f.message.contains("seq"), "{f:?}");
        let f = r
            .receive(&topic("b1", Channel::Status), b"maybe", 5)
            .fault
            .unwrap();
        assert!(f.message.contains("online"));
        assert_eq!(r.faults().0, 5);
        assert_eq!(r.hall_json(0)["fault_count"], 5);
        assert!(!r.has_board("b1"));
    }

    #[test]
    fn the_round_pgn_lists_boards_in_natural_order() {
        let mut r = Registry::new(HALL);
        for b in ["b10", "b2"] {
            let pgn = format!(
                "[Event \"E\"]\n[Round \"?\"]\n[White \"{b}\"]\n\n1. e4 {{[%clk 0:59:59]}} *\n"
            );
            r.receive(&topic(b, Channel::Pgn), pgn.as_bytes(), 1);
        }
        let round = r.round_pgn(Some("4"));
        let b2 = round.find("[Board \"b2\"]").unwrap();
        let b10 = round.find("[Board \"b10\"]").unwrap();
        assert!(b2 < b10, "{round}");
        assert_eq!(round.matches("[Round \"4\"]").count(), 2);
        assert_eq!(round.matches("[%clk 0:59:59]").count(), 2);
        assert_eq!(r.board_pgn("nope", None), None);
    }
}
