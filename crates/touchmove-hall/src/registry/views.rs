//! The JSON views: a board's `/state` view (from its events or its
//! retained state), its summary (the dashboard's card, `/board/<id>.json`)
//! and the whole hall (`/boards`, the `/events` payloads).
use serde_json::{Map, Value, json};

use super::alerts::{HallAlert, queue_order};
use super::board::Board;
use super::board_log::Log;
use super::{CLOSED_SHOWN, Registry};
use crate::order::natural_cmp;
use crate::rejects::Rejects;

impl Board {
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

    /// The board's summary: the dashboard's card (`full`: with the move
    /// list, history, every alert and the missing seqs).
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

impl Registry {
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
}
