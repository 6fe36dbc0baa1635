//! The live feed: the current game's events kept in memory (for resuming
//! clients), its `/state` reduction and PGN, and a bounded broadcast
//! fan-out to the streaming clients.
//!
//! Publishing never waits for a consumer: a client that falls more than
//! the channel's capacity behind is told it lagged (its stream ends) and
//! comes back with `Last-Event-ID`, which the log answers without a gap.
//!
//! Identity: every `game_started` opens a new game, numbered 1, 2, ... for
//! the daemon's lifetime, or with the journal's game number when a journal
//! keeps the games ([`Feed::set_next_game`], [`Feed::seed`]: the ids then
//! hold across restarts); `seq` restarts at 0 in each game (the events
//! contract). A stream position is written `<game>-<seq>` (the SSE `id`).
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::time::LoopClock;

use tokio::sync::broadcast;

use touchmove_core::Millis;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::Game;
use touchmove_core::game::pgn::{self, Tags};

use touchmove_wire::state::GameState;

/// One published event, serialised once.
#[derive(Debug)]
pub struct Item {
    pub game: u64,
    pub event: Event,
    pub json: String,
}

impl Item {
    /// `<game>-<seq>`: the SSE `id`.
    pub fn id(&self) -> String {
        format!("{}-{}", self.game, self.event.seq)
    }
}

/// What the broadcast carries.
#[derive(Debug, Clone)]
pub enum Message {
    Event(Arc<Item>),
    /// The daemon is stopping: streams end.
    Close,
}

/// Where a client resumes, from its `Last-Event-ID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// No id: only events published from now on.
    Live,
    /// After `seq` of game `game` (`None`: the current game). An id of
    /// another game resumes at the start of the current one.
    After { game: Option<u64>, seq: u64 },
}

impl Resume {
    /// Reads `<game>-<seq>` or a bare `<seq>`; anything else is [`Resume::Live`].
    pub fn parse(id: Option<&str>) -> Resume {
        let Some(id) = id.map(str::trim).filter(|s| !s.is_empty()) else {
            return Resume::Live;
        };
        match id.split_once('-') {
            Some((g, s)) => match (g.parse(), s.parse()) {
                (Ok(game), Ok(seq)) => Resume::After {
                    game: Some(game),
                    seq,
                },
                _ => Resume::Live,
            },
            None => id
                .parse()
                .map_or(Resume::Live, |seq| Resume::After { game: None, seq }),
        }
    }
}

/// Where game time comes from: wall time since the game's origin, scaled.
#[derive(Debug, Clone)]
struct GameClock {
    origin: Instant,
    speed: f64,
    clock: Arc<dyn LoopClock>,
}

struct Inner {
    game: u64,
    /// The number the next `game_started` opens, when given.
    next_game: Option<u64>,
    log: Vec<Arc<Item>>,
    state: GameState,
    tags: Tags,
    pgn: String,
    clock: Option<GameClock>,
}

/// The hub every output reads from; the scan loop writes to it.
pub struct Feed {
    inner: Mutex<Inner>,
    tx: broadcast::Sender<Message>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed").finish_non_exhaustive()
    }
}

impl Feed {
    /// A feed whose broadcast holds `capacity` messages per client.
    pub fn new(capacity: usize, tags: Tags, start_fen: String) -> Arc<Feed> {
        let (tx, _) = broadcast::channel(capacity.max(1));
        Arc::new(Feed {
            inner: Mutex::new(Inner {
                game: 0,
                next_game: None,
                log: Vec::new(),
                state: GameState::new(start_fen),
                tags,
                pgn: String::new(),
                clock: None,
            }),
            tx,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every update leaves Inner consistent, so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Game time now 0 at `origin` on `clock`, running `speed` times
    /// faster than it.
    pub fn set_game_clock(&self, origin: Instant, speed: f64, clock: Arc<dyn LoopClock>) {
        self.lock().clock = Some(GameClock {
            origin,
            speed,
            clock,
        });
    }

    /// Game time now (ms), as the scan loop computes it.
    pub fn now_ms(&self) -> Millis {
        self.lock().clock.as_ref().map_or(0, game_ms)
    }

    /// Publishes events in order: logs them, reduces them, fans them out.
    /// A `game_started` opens a new game (new number, empty log).
    pub fn publish(&self, events: &[Event]) {
        let mut inner = self.lock();
        for event in events {
            if matches!(event.kind, EventKind::GameStarted { .. }) {
                inner.game = inner.next_game.take().unwrap_or(inner.game + 1);
                inner.log.clear();
            }
            inner.state.apply(event);
            let item = Arc::new(Item {
                game: inner.game,
                json: event.to_json(),
                event: event.clone(),
            });
            inner.log.push(Arc::clone(&item));
            // No receiver is not an error: nobody is watching.
            let _ = self.tx.send(Message::Event(item));
        }
    }

    /// The next `game_started` opens game `game` (the journal's number).
    pub fn set_next_game(&self, game: u64) {
        self.lock().next_game = Some(game);
    }

    /// Starts the feed on game `game` whose events so far are `events`
    /// (restored from the journal): clients resuming with an id of it get
    /// what they missed; nothing is broadcast.
    pub fn seed(&self, game: u64, events: &[Event]) {
        let mut inner = self.lock();
        inner.game = game;
        inner.next_game = None;
        inner.log.clear();
        for event in events {
            inner.state.apply(event);
            let item = Arc::new(Item {
                game,
                json: event.to_json(),
                event: event.clone(),
            });
            inner.log.push(item);
        }
    }

    /// Writes the live PGN of `game` with the current tags.
    pub fn update_pgn(&self, game: &Game) {
        let mut inner = self.lock();
        let text = pgn::write(game, &inner.tags);
        inner.pgn = text;
    }

    /// Changes the tags (players, event); the PGN follows at the next update.
    pub(crate) fn update_tags(&self, change: impl FnOnce(&mut Tags)) {
        change(&mut self.lock().tags);
    }

    pub fn tags(&self) -> Tags {
        self.lock().tags.clone()
    }

    pub fn pgn(&self) -> String {
        self.lock().pgn.clone()
    }

    /// The current game's number (0 before the first game starts).
    pub fn game(&self) -> u64 {
        self.lock().game
    }

    /// `GET /state`, as JSON.
    pub fn state_json(&self) -> String {
        let inner = self.lock();
        let now = inner.clock.as_ref().map_or(0, game_ms);
        // With the event, round, titles and ratings the tags carry.
        let snap = inner.state.snapshot_tagged(inner.game, now, &inner.tags);
        serde_json::to_string(&snap).expect("the state always serialises")
    }

    /// The events a client resuming at `resume` missed, and a receiver for
    /// what follows: taken together, so nothing falls between them.
    pub fn subscribe(&self, resume: Resume) -> (Vec<Arc<Item>>, broadcast::Receiver<Message>) {
        let inner = self.lock();
        let rx = self.tx.subscribe();
        let backlog = match resume {
            Resume::Live => Vec::new(),
            Resume::After { game, seq } => {
                if game.is_none_or(|g| g == inner.game) {
                    inner
                        .log
                        .iter()
                        .filter(|i| i.event.seq > seq)
                        .cloned()
                        .collect()
                } else {
                    inner.log.clone()
                }
            }
        };
        (backlog, rx)
    }

    /// Ends every stream (shutdown).
    pub fn close(&self) {
        let _ = self.tx.send(Message::Close);
    }
}

fn game_ms(clock: &GameClock) -> Millis {
    let wall = clock
        .clock
        .now()
        .saturating_duration_since(clock.origin)
        .as_secs_f64()
        * 1000.0;
    (wall * clock.speed) as Millis
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn started(seq_base: u64) -> Event {
        Event {
            t_ms: 0,
            seq: seq_base,
            kind: EventKind::GameStarted {
                fen: START.into(),
                profile: None,
            },
        }
    }

    fn completed(seq: u64) -> Event {
        Event {
            t_ms: seq,
            seq,
            kind: EventKind::MoveCompleted { ply: seq as usize },
        }
    }

    #[test]
    fn resume_ids() {
        assert_eq!(Resume::parse(None), Resume::Live);
        assert_eq!(Resume::parse(Some("")), Resume::Live);
        assert_eq!(Resume::parse(Some("x")), Resume::Live);
        assert_eq!(
            Resume::parse(Some("3-17")),
            Resume::After {
                game: Some(3),
                seq: 17
            }
        );
        assert_eq!(
            Resume::parse(Some("17")),
            Resume::After {
                game: None,
                seq: 17
            }
        );
    }

    #[test]
    fn backlog_and_live_meet_without_gap_or_duplicate() {
        let feed = Feed::new(4, Tags::default(), START.into());
        feed.publish(&[started(0), completed(1), completed(2)]);
        let (backlog, mut rx) = feed.subscribe(Resume::After {
            game: Some(1),
            seq: 0,
        });
        let seqs: Vec<u64> = backlog.iter().map(|i| i.event.seq).collect();
        assert_eq!(seqs, [1, 2]);
        feed.publish(&[completed(3)]);
        match rx.try_recv().unwrap() {
            Message::Event(item) => assert_eq!(item.id(), "1-3"),
            Message::Close => panic!("not closed"),
        }
        // An id of an earlier game resumes at the start of the current one.
        feed.publish(&[started(0), completed(1)]);
        let (backlog, _) = feed.subscribe(Resume::After {
            game: Some(1),
            seq: 3,
        });
        let ids: Vec<String> = backlog.iter().map(|i| i.id()).collect();
        assert_eq!(ids, ["2-0", "2-1"]);
        // A client that does not read lags instead of stalling the publisher.
        for seq in 2..20 {
            feed.publish(&[completed(seq)]);
        }
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
        let state: serde_json::Value = serde_json::from_str(&feed.state_json()).unwrap();
        assert_eq!(state["seq"], 19);
        assert_eq!(state["game"], 2);
    }
}
