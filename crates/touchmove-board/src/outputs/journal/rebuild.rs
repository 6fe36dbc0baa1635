//! A game rebuilt from its journaled events: the moves replayed on the
//! start position (each checked legal, Article 3 and 4.6), takebacks,
//! completed illegal moves counted (Article 7.4b of 2005, 7.5.5 of 2023),
//! the clock readings, the end, and the alerts still standing.
use shakmaty::uci::UciMove;
use shakmaty::{ByColor, Color, KnownOutcome};

use touchmove_core::Millis;
use touchmove_core::events::{Event, EventKind, Side};
use touchmove_core::game::{EndReason, Game, GameEnd, Profile, Start};

/// The last clock reading of a game (its last `clock` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastClock {
    /// When the reading was taken (the event's `t_ms`).
    pub t_ms: Millis,
    pub white_ms: Millis,
    pub black_ms: Millis,
    /// The side whose clock was running, None when stopped.
    pub running: Option<Side>,
}

impl LastClock {
    pub fn ms(&self, side: Color) -> Millis {
        match side {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }
}

/// What the events of one game rebuild.
#[derive(Debug, Clone)]
pub struct Rebuilt {
    pub game: Game,
    /// The `seq` of the last event, None when the game has none yet.
    pub last_seq: Option<u64>,
    /// The `t_ms` of the last event.
    pub last_t_ms: Option<Millis>,
    pub clock: Option<LastClock>,
    /// Alerts raised since the board last agreed with the game (the game's
    /// start, the last `move`, `move_completed`, `restored` or `takeback`);
    /// of `displaced`, only the latest.
    pub pending_alerts: Vec<Event>,
}

/// An event that does not follow from the ones before it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {seq}: {reason}")]
pub struct RebuildError {
    pub seq: u64,
    pub reason: String,
}

fn outcome(result: &str) -> Option<KnownOutcome> {
    match result {
        "1-0" => Some(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        "0-1" => Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        "1/2-1/2" => Some(KnownOutcome::Draw),
        _ => None,
    }
}

/// Rebuilds a game from its events, which must be numbered 0, 1, 2, ...,
/// begin with `game_started` on `start`, and follow from each other: each
/// `move` legal and agreeing with its SAN, ply and FEN, each `takeback` and
/// completed `illegal_move` count agreeing with the record.
pub fn rebuild<'a>(
    start: &Start,
    profile: Profile,
    events: impl IntoIterator<Item = &'a Event>,
) -> Result<Rebuilt, RebuildError> {
    let mut rebuilder = Rebuilder {
        start,
        game: Game::new(start.clone(), profile),
        clock: None,
        used: ByColor::default(),
        pending: Vec::new(),
    };
    let mut last: Option<&Event> = None;
    for event in events {
        let expected = last.map_or(0, |e| e.seq + 1);
        if event.seq != expected {
            return Err(RebuildError {
                seq: event.seq,
                reason: format!("out of sequence: expected event {expected} here"),
            });
        }
        rebuilder.take(event).map_err(|reason| RebuildError {
            seq: event.seq,
            reason,
        })?;
        last = Some(event);
    }
    Ok(Rebuilt {
        game: rebuilder.game,
        last_seq: last.map(|e| e.seq),
        last_t_ms: last.map(|e| e.t_ms),
        clock: rebuilder.clock,
        pending_alerts: rebuilder.pending,
    })
}

/// The game as rebuilt so far, and what the next event is checked against.
struct Rebuilder<'s> {
    start: &'s Start,
    game: Game,
    clock: Option<LastClock>,
    /// Time each side has used on the move in progress (the `[%emt]`).
    used: ByColor<Millis>,
    /// Alerts not yet answered by a move, a completion or a restoration.
    pending: Vec<Event>,
}

impl Rebuilder<'_> {
    /// Takes the next event (in sequence); `Err`: why it does not follow.
    fn take(&mut self, event: &Event) -> Result<(), String> {
        let t = event.t_ms;
        match &event.kind {
            EventKind::GameStarted { fen, .. } => self.started(event.seq, fen)?,
            _ if event.seq == 0 => {
                return Err(format!(
                    "the first event is {}, not game_started",
                    event.kind.name()
                ));
            }
            EventKind::Move {
                ply,
                side,
                san,
                uci,
                fen,
                ..
            } => {
                self.moved(t, *ply, *side, san, uci, fen)?;
                self.pending.clear();
            }
            EventKind::Takeback { ply, fen } => {
                self.took_back(*ply, fen)?;
                self.pending.clear();
            }
            EventKind::IllegalMove {
                side,
                completed: true,
                count,
                ..
            } => {
                let ruling = self.game.complete_illegal_move((*side).into());
                if ruling.count != *count {
                    return Err(format!(
                        "completed illegal move number {} of {side:?}, the event says {count}",
                        ruling.count
                    ));
                }
                self.pending.push(event.clone());
            }
            EventKind::Clock {
                white_ms,
                black_ms,
                running,
                reason,
            } => self.clock(
                LastClock {
                    t_ms: t,
                    white_ms: *white_ms,
                    black_ms: *black_ms,
                    running: *running,
                },
                reason.as_deref(),
            ),
            EventKind::GameOver { result, reason } => self.over(result, reason)?,
            EventKind::MoveCompleted { .. } | EventKind::Restored { .. } => self.pending.clear(),
            EventKind::Displaced { .. } => {
                self.pending
                    .retain(|e| !matches!(e.kind, EventKind::Displaced { .. }));
                self.pending.push(event.clone());
            }
            kind if kind.is_alert() => self.pending.push(event.clone()),
            _ => {}
        }
        Ok(())
    }

    fn started(&self, seq: u64, fen: &str) -> Result<(), String> {
        if seq != 0 {
            return Err("a second game_started inside the game".into());
        }
        if fen != self.start.fen() {
            return Err(format!(
                "game_started on {fen}, but the game starts from {}",
                self.start.fen()
            ));
        }
        Ok(())
    }

    /// A move made (4.6): legal, and the ply, side, SAN and FEN the event says.
    fn moved(
        &mut self,
        t: Millis,
        ply: usize,
        side: Side,
        san: &str,
        uci: &str,
        fen: &str,
    ) -> Result<(), String> {
        let game = &mut self.game;
        let mv = uci
            .parse::<UciMove>()
            .map_err(|e| format!("move {uci:?}: {e}"))?
            .to_move(game.position())
            .map_err(|_| format!("move {uci} is not legal in {}", game.fen()))?;
        let mover = game.turn();
        let played = game.play(&mv, t).map_err(|e| format!("move {uci}: {e}"))?;
        let recorded_san = game.moves().last().map(|m| m.san.to_string());
        if played.ply != ply
            || Side::from(mover) != side
            || recorded_san.as_deref() != Some(san)
            || game.fen() != fen
        {
            return Err(format!(
                "move {uci} is ply {} {} by {mover:?} giving {}; the event says ply {ply} {san} by {side:?} giving {fen}",
                played.ply,
                recorded_san.unwrap_or_default(),
                game.fen()
            ));
        }
        Ok(())
    }

    fn took_back(&mut self, ply: usize, fen: &str) -> Result<(), String> {
        let game = &mut self.game;
        let back = game.ply().checked_sub(ply).ok_or_else(|| {
            format!(
                "takeback to ply {ply}, but the game has {} plies",
                game.ply()
            )
        })?;
        game.take_back(back).map_err(|e| e.to_string())?;
        if game.fen() != fen {
            return Err(format!(
                "takeback to ply {ply} gives {}, the event says {fen}",
                game.fen()
            ));
        }
        Ok(())
    }

    /// A clock reading: a press completes the last move with the mover's
    /// time (6.7); the reading at the end times a move never pressed.
    fn clock(&mut self, reading: LastClock, reason: Option<&str>) {
        let game = &mut self.game;
        if let Some(previous) = self.clock
            && let Some(side) = previous.running
        {
            self.used[Color::from(side)] += reading.t_ms.saturating_sub(previous.t_ms);
        }
        if reason == Some("press")
            && let Some(mover) = game.moves().last().map(|m| m.side)
        {
            game.set_clock(game.ply(), reading.ms(mover), Some(self.used[mover]));
            self.used[mover] = 0;
        } else if reason == Some("finish")
            && let Some(last) = game.moves().last()
            && last.clock_ms.is_none()
            && self
                .clock
                .and_then(|c| c.running)
                .is_some_and(|side| Color::from(side) == last.side)
        {
            // The move that ended the game, never pressed: the clock's
            // reading at the end.
            let mover = last.side;
            game.set_clock(game.ply(), reading.ms(mover), None);
        }
        self.clock = Some(reading);
    }

    /// The end of the game: the record's own end, or the one the event
    /// states (a resignation, an agreement, the arbiter).
    fn over(&mut self, result: &str, reason: &str) -> Result<(), String> {
        let stated = outcome(result).ok_or_else(|| format!("game_over with result {result:?}"))?;
        let why = EndReason::from_name(reason)
            .ok_or_else(|| format!("game_over with reason {reason:?}"))?;
        match self.game.end() {
            Some(end) if end.outcome == stated && end.reason == why => Ok(()),
            Some(end) => Err(format!(
                "game_over {result} ({reason}), but the record ended {} ({})",
                end.result(),
                end.reason.name()
            )),
            None => {
                self.game.finish(GameEnd {
                    outcome: stated,
                    reason: why,
                });
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64, t_ms: Millis, kind: EventKind) -> Event {
        Event { t_ms, seq, kind }
    }

    fn started() -> Event {
        ev(
            0,
            0,
            EventKind::GameStarted {
                fen: Start::standard().fen(),
                profile: None,
            },
        )
    }

    fn e4(seq: u64) -> Event {
        ev(
            seq,
            100,
            EventKind::Move {
                ply: 1,
                side: Side::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
                inferred: false,
            },
        )
    }

    #[test]
    fn a_move_is_replayed_and_checked_against_its_fen() {
        let events = [started(), e4(1)];
        let r = rebuild(&Start::standard(), Profile::FideStandard, &events).unwrap();
        assert_eq!(r.game.ply(), 1);
        assert_eq!(r.last_seq, Some(1));
        let mut wrong = e4(1);
        if let EventKind::Move { fen, .. } = &mut wrong.kind {
            *fen = Start::standard().fen();
        }
        let err = rebuild(
            &Start::standard(),
            Profile::FideStandard,
            &[started(), wrong],
        )
        .unwrap_err();
        assert_eq!(err.seq, 1);
        assert!(err.reason.contains("giving"), "{err}");
    }

    #[test]
    fn a_gap_or_an_illegal_move_is_reported_with_its_seq() {
        let err = rebuild(
            &Start::standard(),
            Profile::FideStandard,
            &[started(), e4(2)],
        )
        .unwrap_err();
        assert_eq!(err.seq, 2);
        assert!(err.reason.contains("expected event 1"), "{err}");
        let mut illegal = e4(1);
        if let EventKind::Move { uci, .. } = &mut illegal.kind {
            *uci = "e2e5".into();
        }
        let err = rebuild(
            &Start::standard(),
            Profile::FideStandard,
            &[started(), illegal],
        )
        .unwrap_err();
        assert!(err.reason.contains("not legal"), "{err}");
    }

    #[test]
    fn the_press_sets_clk_and_emt_of_the_move() {
        let clock = |seq, t, white_ms, black_ms, running, reason: &str| {
            ev(
                seq,
                t,
                EventKind::Clock {
                    white_ms,
                    black_ms,
                    running,
                    reason: Some(reason.into()),
                },
            )
        };
        let events = [
            started(),
            clock(1, 0, 60_000, 60_000, Some(Side::White), "start"),
            e4(2),
            clock(3, 1_500, 60_500, 60_000, Some(Side::Black), "press"),
        ];
        let r = rebuild(&Start::standard(), Profile::FideStandard, &events).unwrap();
        let m = &r.game.moves()[0];
        assert_eq!((m.clock_ms, m.elapsed_ms), (Some(60_500), Some(1_500)));
        assert_eq!(r.clock.unwrap().running, Some(Side::Black));
    }
}
