//! A board's current game as the hall holds it: events known by
//! `(game, seq)`, duplicates dropped, the events held from seq 0 without a
//! hole reduced with [`GameState`], a hole answered by one
//! [`ReplayRequest`], stale games dropped and newer ones taking over.
use std::collections::BTreeMap;

use touchmove_core::events::{Event, EventKind};
use touchmove_wire::mqtt::{EventMessage, ReplayRequest};
use touchmove_wire::state::GameState;

use super::board::Board;
use super::{Received, Registry};
use crate::limits::{self, Reason, SEQ_WINDOW};
use crate::missing::{self, Missing};

pub(super) const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// An event as the hall holds it.
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) wall_ms: u64,
    pub(super) event: Event,
}

/// The current game's events.
#[derive(Debug, Clone)]
pub(super) struct Log {
    pub(super) game: u64,
    pub(super) events: BTreeMap<u64, Held>,
    /// The last seq held without a hole from 0.
    pub(super) through: Option<u64>,
    /// The furthest seq seen, held or not (an event beyond the window is
    /// not held, but the gap up to it is known).
    horizon: Option<u64>,
    pub(super) reduced: GameState,
    /// Board wall time minus game time, from the last event held in order.
    pub(super) wall_offset: Option<i64>,
    /// The replay request out for the gap, and when it was last asked or
    /// last made progress.
    pub(super) asked: Option<(ReplayRequest, u64)>,
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

    pub(super) fn has_gap(&self) -> bool {
        self.horizon.is_some_and(|h| h >= self.next_seq())
    }

    /// The seqs missing before the furthest one seen (bounded work: the
    /// held events are at most [`SEQ_WINDOW`]).
    pub(super) fn missing(&self) -> Missing {
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

    /// The request for the events after the last one held in order, noted
    /// as asked at `now_ms`.
    pub(super) fn ask(&mut self, now_ms: u64) -> ReplayRequest {
        let request = ReplayRequest {
            game: self.game,
            after_seq: self.through,
        };
        self.asked = Some((request, now_ms));
        request
    }

    /// Reduces the held events that now follow the last one reduced.
    fn reduce_in_order(&mut self) {
        while let Some(held) = self.events.get(&self.next_seq()) {
            self.reduced.apply(&held.event);
            self.wall_offset = Some(held.wall_ms as i64 - held.event.t_ms as i64);
            self.through = Some(held.event.seq);
        }
    }

    /// After an event was held: a gap still open is asked for once (its
    /// retry time starts again when the event `progressed` the log); no
    /// gap, no request out. The new request, if one is made.
    fn track_gap(&mut self, progressed: bool, now_ms: u64) -> Option<ReplayRequest> {
        if !self.has_gap() {
            self.asked = None;
            return None;
        }
        match &mut self.asked {
            Some((_, at)) if progressed => {
                *at = now_ms;
                None
            }
            Some(_) => None,
            None => Some(self.ask(now_ms)),
        }
    }
}

/// What became of an event offered to a board's log.
enum Taken {
    /// Already held (or reduced): dropped.
    Duplicate,
    /// Too far ahead to hold; the replay request made for it, if new.
    BeyondWindow(Option<ReplayRequest>),
    /// Held; the replay request made for a gap it opened, if new.
    Held(Option<ReplayRequest>),
}

impl Board {
    /// Whether an event of `game` is dropped as stale: of an older game
    /// than the current one, unless it starts the board's games again
    /// (then the old numbering's log and retained state are dropped).
    fn drops_as_stale(&mut self, game: u64, event: &Event) -> bool {
        match self.current_game() {
            Some(current) if game < current => {
                let restarted = event.seq == 0
                    && matches!(event.kind, EventKind::GameStarted { .. })
                    && !self.replays_asked.contains(&game);
                if !restarted {
                    self.stats.stale += 1;
                    return true;
                }
                // A board without a journal numbers its games from 1 again
                // after a restart: its new game, and its retained state of
                // the old numbering no longer counts.
                self.stats.renumbered += 1;
                self.state = None;
                self.log = None;
                false
            }
            _ => false,
        }
    }

    /// Offers one event of `game` to the log (a new game replaces it).
    fn offer(&mut self, game: u64, held: Held, now_ms: u64) -> Result<Taken, (Reason, String)> {
        if self.log.as_ref().is_none_or(|l| l.game != game) {
            // A new game: the alerts of the others are not raised again.
            self.raised.retain(|(g, _)| *g == game);
        }
        let log = match &mut self.log {
            Some(log) if log.game == game => log,
            slot => slot.insert(Log::new(game)),
        };
        let seq = held.event.seq;
        if log.events.contains_key(&seq) {
            self.stats.duplicates += 1;
            return Ok(Taken::Duplicate);
        }
        if log.events.len() >= limits::MAX_GAME_EVENTS {
            return Err((
                Reason::GameTooLong,
                format!(
                    "game {game} already holds {} events, the most the hall keeps of a game; seq {seq} dropped",
                    limits::MAX_GAME_EVENTS,
                ),
            ));
        }
        let next = log.next_seq();
        if seq < next {
            // Held once, since reduced (only the held are reduced).
            self.stats.duplicates += 1;
            return Ok(Taken::Duplicate);
        }
        log.saw(seq);
        if seq - next >= SEQ_WINDOW {
            // Too far ahead to hold: asked for in order instead.
            self.stats.beyond_window += 1;
            let request = log.asked.is_none().then(|| log.ask(now_ms));
            if request.is_some() {
                self.stats.gaps += 1;
                self.stats.replays += 1;
            }
            return Ok(Taken::BeyondWindow(request));
        }
        log.events.insert(seq, held);
        log.reduce_in_order();
        self.stats.events += 1;
        let request = log.track_gap(seq == next, now_ms);
        if request.is_some() {
            self.stats.gaps += 1;
            self.stats.replays += 1;
        }
        Ok(Taken::Held(request))
    }
}

impl Registry {
    /// One event message of `board`: checked, offered to the board's log,
    /// and raised when it is an alert not raised before.
    pub(super) fn event(
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
        limits::check_game(b.current_game(), game, "game")
            .map_err(|e| (Reason::ImplausibleGame, e))?;
        let latency = b.stats.note_latency(now_ms, wall_ms);
        // The board's clock when it cannot be right: the hall's.
        let wall_ms = if latency.is_some() { wall_ms } else { now_ms };
        if b.drops_as_stale(game, &event) {
            return Ok(received);
        }
        let restores_storage = matches!(event.kind, EventKind::StorageRestored { .. });
        let alert_event = event.kind.is_alert().then(|| event.clone());
        let request = match b.offer(game, Held { wall_ms, event }, now_ms)? {
            Taken::Duplicate => {
                self.delivery.duplicates += 1;
                return Ok(received);
            }
            Taken::BeyondWindow(request) => {
                received.replays.extend(request.map(|r| (topic, r)));
                return Ok(received);
            }
            Taken::Held(request) => request,
        };
        self.delivery.accepted(latency);
        received.replays.extend(request.map(|r| (topic, r)));
        if restores_storage {
            b.storage_restored(now_ms);
        }
        if let Some(event) = alert_event {
            received.alert = self.raise_event_once(board, game, event, Some(wall_ms), now_ms);
        }
        Ok(received)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use touchmove_wire::mqtt::{Channel, ReplayRequest};

    use super::super::test_support::*;
    use super::super::{REPLAY_RETRY_MS, Registry};

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
}
