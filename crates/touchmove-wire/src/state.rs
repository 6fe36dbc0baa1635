//! The `/state` snapshot: a pure reduction of one game's events, the same
//! one the display makes (`web/README.md`, "What the page needs").
//!
//! Alerts are kept as the page keeps them: `move` clears `displaced`,
//! `promotion_pending`, `draw_claimable` and uncompleted `illegal_move`
//! (and any alert two or more plies old); `restored` clears `displaced`,
//! `promotion_pending` and uncompleted `illegal_move`; `takeback` clears all
//! but `sensor_fault`; `game_started` clears all; a new `displaced` or
//! `promotion_pending` replaces the previous one; an uncompleted
//! `illegal_move` replaces the previous uncompleted one; `sensor_fault`
//! stays for the game, one per square.
use serde::Serialize;

use touchmove_core::Millis;
use touchmove_core::events::{Event, EventKind, Side};
use touchmove_core::game::pgn::Tags;

/// One move of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveRecord {
    pub ply: usize,
    pub san: String,
    pub uci: String,
    pub side: Side,
}

/// The clock as of its last event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockSnapshot {
    pub white_ms: Millis,
    pub black_ms: Millis,
    pub running: Option<Side>,
    /// Game time of the event that set these values.
    pub t_ms: Millis,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub result: String,
    pub reason: String,
}

/// An alert event, with the ply it was raised at (for the two-ply rule).
#[derive(Debug, Clone)]
struct Alert {
    ply: usize,
    event: Event,
}

/// The reduction of one game's events.
#[derive(Debug, Clone)]
pub struct GameState {
    fen: String,
    profile: Option<String>,
    moves: Vec<MoveRecord>,
    clock: Option<ClockSnapshot>,
    alerts: Vec<Alert>,
    result: Option<Outcome>,
    last_seq: Option<u64>,
    history: Vec<Event>,
}

/// `GET /state`, as serialised.
#[derive(Debug, Clone, Serialize)]
pub struct StateView<'a> {
    pub fen: &'a str,
    pub moves: &'a [MoveRecord],
    pub clock: Option<ClockSnapshot>,
    pub alerts: Vec<&'a Event>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<&'a str>,
    pub result: Option<&'a Outcome>,
    /// The last seq applied; -1 before any event.
    pub seq: i64,
    pub white: &'a str,
    pub black: &'a str,
    /// Game time when the snapshot was taken.
    pub now_ms: Millis,
    /// This game's alert-like events (alerts, restored, takeback,
    /// game_over, game_started, arbiter_decision).
    pub history: &'a [Event],
    /// Extension: the daemon's number of this game (the `<game>` of SSE ids).
    pub game: u64,
    /// Extension, from the PGN tags (`WhiteTitle`, `WhiteElo`, `BlackTitle`,
    /// `BlackElo`, `Event`, `Round`, `Board`) when they carry a value:
    /// left out when unknown (absent, empty, `?` or `-`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_elo: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_elo: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<&'a str>,
}

/// A tag value worth showing: not empty, `?` or `-` (PGN's "unknown").
fn known(value: &str) -> Option<&str> {
    let v = value.trim();
    (!v.is_empty() && v != "?" && v != "-").then_some(v)
}

/// A further tag of the game (`WhiteElo`), when it has a value.
fn extra_tag<'a>(tags: &'a Tags, name: &str) -> Option<&'a str> {
    tags.extra
        .iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| known(v))
}

impl GameState {
    /// Before any event: the position a game starts from.
    pub fn new(fen: String) -> GameState {
        GameState {
            fen,
            profile: None,
            moves: Vec::new(),
            clock: None,
            alerts: Vec::new(),
            result: None,
            last_seq: None,
            history: Vec::new(),
        }
    }

    pub fn fen(&self) -> &str {
        &self.fen
    }
    pub fn moves(&self) -> &[MoveRecord] {
        &self.moves
    }
    pub fn clock(&self) -> Option<ClockSnapshot> {
        self.clock
    }
    pub fn result(&self) -> Option<&Outcome> {
        self.result.as_ref()
    }
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }
    /// The pending alerts, oldest first.
    pub fn alerts(&self) -> impl Iterator<Item = &Event> {
        self.alerts.iter().map(|a| &a.event)
    }

    /// Applies the next event of the game.
    pub fn apply(&mut self, event: &Event) {
        self.last_seq = Some(event.seq);
        let ply = self.moves.last().map_or(0, |m| m.ply);
        match &event.kind {
            EventKind::GameStarted { fen, profile } => {
                // A journal's outage outlasts the game it began in.
                let storage: Vec<Alert> = std::mem::take(&mut self.alerts)
                    .into_iter()
                    .filter(|a| matches!(a.event.kind, EventKind::StorageFailed { .. }))
                    .collect();
                *self = GameState::new(fen.clone());
                self.alerts = storage;
                self.profile = profile.clone();
                self.last_seq = Some(event.seq);
            }
            EventKind::Move {
                ply: new_ply,
                side,
                san,
                uci,
                fen,
                ..
            } => {
                self.moves.retain(|m| m.ply < *new_ply);
                self.moves.push(MoveRecord {
                    ply: *new_ply,
                    san: san.clone(),
                    uci: uci.clone(),
                    side: *side,
                });
                self.fen = fen.clone();
                self.alerts.retain(|a| {
                    let kept = matches!(
                        a.event.kind,
                        EventKind::TouchMove { .. }
                            | EventKind::SensorFault { .. }
                            | EventKind::IllegalMove {
                                completed: true,
                                ..
                            }
                    );
                    let fresh = new_ply.saturating_sub(a.ply) < 2;
                    lasting(&a.event.kind) || (kept && fresh)
                });
            }
            EventKind::Restored { fen } => {
                self.fen = fen.clone();
                self.alerts.retain(|a| {
                    !matches!(
                        a.event.kind,
                        EventKind::Displaced { .. }
                            | EventKind::PromotionPending { .. }
                            | EventKind::IllegalMove {
                                completed: false,
                                ..
                            }
                    )
                });
            }
            EventKind::Takeback { ply, fen } => {
                self.moves.retain(|m| m.ply <= *ply);
                self.fen = fen.clone();
                self.alerts.retain(|a| lasting(&a.event.kind));
            }
            EventKind::Clock {
                white_ms,
                black_ms,
                running,
                ..
            } => {
                self.clock = Some(ClockSnapshot {
                    white_ms: *white_ms,
                    black_ms: *black_ms,
                    running: *running,
                    t_ms: event.t_ms,
                });
            }
            EventKind::GameOver { result, reason } => {
                self.result = Some(Outcome {
                    result: result.clone(),
                    reason: reason.clone(),
                });
            }
            EventKind::StorageRestored { .. } => self
                .alerts
                .retain(|a| !matches!(a.event.kind, EventKind::StorageFailed { .. })),
            kind if is_display_alert(kind) => self.raise(ply, event),
            _ => {}
        }
        if is_history(&event.kind) {
            self.history.push(event.clone());
        }
    }

    fn raise(&mut self, ply: usize, event: &Event) {
        let replaces = |old: &EventKind| match (&event.kind, old) {
            (EventKind::Displaced { .. }, EventKind::Displaced { .. })
            | (EventKind::PromotionPending { .. }, EventKind::PromotionPending { .. })
            | (
                EventKind::IllegalMove { .. },
                EventKind::IllegalMove {
                    completed: false, ..
                },
            ) => true,
            (EventKind::StorageFailed { .. }, EventKind::StorageFailed { .. }) => true,
            (
                EventKind::SensorFault { square: new, .. },
                EventKind::SensorFault { square: old, .. },
            ) => new == old,
            _ => false,
        };
        self.alerts.retain(|a| !replaces(&a.event.kind));
        self.alerts.push(Alert {
            ply,
            event: event.clone(),
        });
    }

    /// The snapshot `GET /state` serves.
    pub fn snapshot<'a>(
        &'a self,
        game: u64,
        now_ms: Millis,
        white: &'a str,
        black: &'a str,
    ) -> StateView<'a> {
        StateView {
            fen: &self.fen,
            moves: &self.moves,
            clock: self.clock,
            alerts: self.alerts().collect(),
            profile: self.profile.as_deref(),
            result: self.result.as_ref(),
            seq: self.last_seq.map_or(-1, |s| s as i64),
            white,
            black,
            now_ms,
            history: &self.history,
            game,
            white_title: None,
            white_elo: None,
            black_title: None,
            black_elo: None,
            event: None,
            round: None,
            board: None,
        }
    }

    /// The snapshot with the players' names and what the PGN tags say of
    /// them and of the game: title, rating, event, round, board.
    pub fn snapshot_tagged<'a>(
        &'a self,
        game: u64,
        now_ms: Millis,
        tags: &'a Tags,
    ) -> StateView<'a> {
        StateView {
            white_title: extra_tag(tags, "WhiteTitle"),
            white_elo: extra_tag(tags, "WhiteElo"),
            black_title: extra_tag(tags, "BlackTitle"),
            black_elo: extra_tag(tags, "BlackElo"),
            event: known(&tags.event),
            round: known(&tags.round),
            board: extra_tag(tags, "Board"),
            ..self.snapshot(game, now_ms, &tags.white, &tags.black)
        }
    }
}

/// The alerts the display shows (`EventKind::is_alert` plus promotion and draw claims).
fn is_display_alert(kind: &EventKind) -> bool {
    kind.is_alert()
        || matches!(
            kind,
            EventKind::PromotionPending { .. } | EventKind::DrawClaimable { .. }
        )
}

/// Alerts that stay until their own end, whatever the game does: a broken
/// square, a journal that cannot commit.
fn lasting(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::SensorFault { .. } | EventKind::StorageFailed { .. }
    )
}

fn is_history(kind: &EventKind) -> bool {
    is_display_alert(kind)
        || matches!(
            kind,
            EventKind::Restored { .. }
                | EventKind::Takeback { .. }
                | EventKind::GameOver { .. }
                | EventKind::GameStarted { .. }
                | EventKind::ArbiterDecision { .. }
                | EventKind::StorageRestored { .. }
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn ev(seq: u64, kind: EventKind) -> Event {
        Event {
            t_ms: seq * 100,
            seq,
            kind,
        }
    }

    fn mv(ply: usize, san: &str, uci: &str, fen: &str) -> EventKind {
        EventKind::Move {
            ply,
            side: if ply % 2 == 1 {
                Side::White
            } else {
                Side::Black
            },
            san: san.into(),
            uci: uci.into(),
            fen: fen.into(),
            inferred: false,
        }
    }

    fn types(state: &GameState) -> Vec<&'static str> {
        state.alerts().map(|e| e.kind.name()).collect()
    }

    #[test]
    fn moves_clock_and_alert_bookkeeping() {
        let mut s = GameState::new(START.into());
        assert_eq!(s.last_seq(), None);
        let events = [
            EventKind::GameStarted {
                fen: START.into(),
                profile: Some("fide-standard".into()),
            },
            EventKind::Clock {
                white_ms: 60_000,
                black_ms: 60_000,
                running: Some(Side::White),
                reason: Some("start".into()),
            },
            EventKind::SensorFault {
                square: Square::A4,
                kind: "stuck_occupied".into(),
            },
            EventKind::Displaced {
                squares: vec![Square::H7, Square::H6],
                expected_fen: START.into(),
                candidates: Vec::new(),
            },
            EventKind::Displaced {
                squares: vec![Square::H7],
                expected_fen: START.into(),
                candidates: Vec::new(),
            },
            EventKind::TouchMove {
                side: Side::White,
                article: "4.3a".into(),
                square: Square::B1,
            },
            mv(1, "e4", "e2e4", "fen-e4"),
        ];
        for (i, kind) in events.into_iter().enumerate() {
            s.apply(&ev(i as u64, kind));
        }
        // The move cleared the displaced alert, kept the fault and the fresh touch-move.
        assert_eq!(types(&s), ["sensor_fault", "touch_move"]);
        assert_eq!(s.fen(), "fen-e4");
        assert_eq!(s.moves().len(), 1);
        assert_eq!(s.clock().unwrap().t_ms, 100);
        s.apply(&ev(7, mv(2, "e5", "e7e5", "fen-e5")));
        s.apply(&ev(8, mv(3, "Nf3", "g1f3", "fen-nf3")));
        // Two plies on, the touch-move alert is dropped; the fault stays.
        assert_eq!(types(&s), ["sensor_fault"]);
        s.apply(&ev(
            9,
            EventKind::GameOver {
                result: "1-0".into(),
                reason: "resignation".into(),
            },
        ));
        let snap = s.snapshot(3, 950, "A", "B");
        assert_eq!(snap.seq, 9);
        assert_eq!(snap.result.unwrap().reason, "resignation");
        let history: Vec<_> = snap.history.iter().map(|e| e.kind.name()).collect();
        assert_eq!(
            history,
            [
                "game_started",
                "sensor_fault",
                "displaced",
                "displaced",
                "touch_move",
                "game_over"
            ]
        );
        let json = serde_json::to_value(&snap).unwrap();
        assert_eq!(json["moves"][2]["san"], "Nf3");
        assert_eq!(json["profile"], "fide-standard");
        assert_eq!(json["clock"]["running"], "white");
    }

    #[test]
    fn the_tags_give_title_rating_event_round_and_board_when_known() {
        let s = GameState::new(START.into());
        let plain = serde_json::to_value(s.snapshot(0, 0, "A", "B")).unwrap();
        for field in ["white_title", "white_elo", "event", "round", "board"] {
            assert!(plain.get(field).is_none(), "{field} left out");
        }
        let mut tags = Tags {
            white: "Carlsen, Magnus".into(),
            black: "Ju, Wenjun".into(),
            event: "Norway Chess".into(),
            round: "3".into(),
            ..Tags::default()
        };
        tags.extra = vec![
            ("WhiteTitle".into(), "GM".into()),
            ("WhiteElo".into(), "2830".into()),
            ("BlackTitle".into(), "GM".into()),
            ("BlackElo".into(), "-".into()),
            ("Board".into(), "12".into()),
        ];
        let json = serde_json::to_value(s.snapshot_tagged(1, 0, &tags)).unwrap();
        assert_eq!(json["white"], "Carlsen, Magnus");
        assert_eq!(json["white_title"], "GM");
        assert_eq!(json["white_elo"], "2830");
        assert_eq!(json["black_title"], "GM");
        assert!(json.get("black_elo").is_none(), "\"-\" is unknown");
        assert_eq!(json["event"], "Norway Chess");
        assert_eq!(json["round"], "3");
        assert_eq!(json["board"], "12");
        assert_eq!(json["game"], 1);
        let unknown = Tags::default();
        let json = serde_json::to_value(s.snapshot_tagged(1, 0, &unknown)).unwrap();
        assert!(json.get("event").is_none() && json.get("round").is_none());
    }

    #[test]
    fn restored_and_takeback_clear_what_they_clear() {
        let mut s = GameState::new(START.into());
        s.apply(&ev(
            0,
            EventKind::GameStarted {
                fen: START.into(),
                profile: None,
            },
        ));
        let illegal = |completed| EventKind::IllegalMove {
            side: Side::White,
            completed,
            from: Some(Square::E2),
            to: Some(Square::E5),
            count: u32::from(completed),
            article: None,
        };
        s.apply(&ev(1, illegal(false)));
        s.apply(&ev(2, illegal(true)));
        s.apply(&ev(3, EventKind::PromotionPending { square: Square::E8 }));
        assert_eq!(types(&s), ["illegal_move", "promotion_pending"]);
        s.apply(&ev(4, EventKind::Restored { fen: START.into() }));
        assert_eq!(types(&s), ["illegal_move"]);
        s.apply(&ev(5, illegal(false)));
        s.apply(&ev(
            6,
            EventKind::SensorFault {
                square: Square::C3,
                kind: "chatter".into(),
            },
        ));
        s.apply(&ev(
            7,
            EventKind::Takeback {
                ply: 0,
                fen: START.into(),
            },
        ));
        assert_eq!(types(&s), ["sensor_fault"]);
        // A new game clears everything.
        s.apply(&ev(
            0,
            EventKind::GameStarted {
                fen: START.into(),
                profile: None,
            },
        ));
        assert_eq!(types(&s), Vec::<&str>::new());
        assert_eq!(s.last_seq(), Some(0));
    }
}
