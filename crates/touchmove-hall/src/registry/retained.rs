//! A board's retained `state`: checked field by field (an untrusted
//! payload), stale ones dropped, a newer game's replacing the event log;
//! its pending alerts are the arbiter's too.
use serde_json::Value;

use touchmove_core::events::Event;

use super::board::{Board, Retained};
use super::{Received, Registry};
use crate::limits::{self, Reason};

impl Registry {
    pub(super) fn state(
        &mut self,
        board: &str,
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
        let mut received = Received::default();
        for event in pending {
            received.alert |= self.raise_event_once(board, game_no, event, wall, now_ms);
        }
        Ok(received)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use touchmove_wire::mqtt::{Channel, ReplayRequest};

    use super::super::Registry;
    use super::super::test_support::*;

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
}
