//! The board's MQTT publisher (`[mqtt]`): a task that reads the committed
//! events from the feed, as an SSE client does, and publishes them on the
//! board's topics of the hall's wire contract ([`super::wire`]):
//!
//! - each event as an [`EventMessage`] (QoS 1) on `events`;
//! - after a batch, the retained `state` (the feed's `/state` JSON) and
//!   `pgn`, at most once a second (the latest);
//! - the retained `status`: `online` on every (re)connection, `offline`
//!   as the Last Will and on a clean stop;
//! - on a [`ReplayRequest`] on its `replay` topic, the requested events of
//!   a game again, from the journal (or the feed's log without one).
//!
//! The journal stays the source of truth: nothing here ever makes the scan
//! loop or the journal writer wait (the feed's broadcast drops a slow
//! reader, which reads the gap back). When the broker is away the board
//! plays on; the connection ([`connection`]) retries with backoff, and on
//! reconnection the publisher publishes again every event from the first
//! the broker had not acknowledged ([`tracker`]), read back from the
//! journal or the feed ([`source`]). Duplicates are allowed (consumers
//! drop an event whose `(game, seq)` they have); loss is not.
pub mod connection;
pub mod options;
pub mod source;
pub mod tracker;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{AsyncClient, QoS};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

use crate::config::Mqtt;
use crate::outputs::feed::{Feed, Message};
use crate::outputs::journal::Journal;
use connection::ConnectionReport;
pub use connection::MqttHealth;
use touchmove_core::events::Event;
use touchmove_wire::mqtt::{
    BoardTopics, Channel, EventMessage, OFFLINE, ONLINE, ReplayRequest, wall_ms_now,
};
use tracker::{Cursor, Key, Tag, Tracker};

/// Publishes handed to the client and not yet sent, at most.
const WINDOW: usize = 64;
/// Messages waiting for the client, at most, before the feed is left to
/// run ahead (and read back later).
const OUTBOX: usize = 512;
/// How long a stop waits for the broker to acknowledge what is left.
const DRAIN: Duration = Duration::from_secs(3);
/// And for `offline` and the disconnection.
const GOODBYE: Duration = Duration::from_secs(1);
/// The retained `state` and `pgn` are published at most this often: they
/// are for whoever connects later (the events carry every change live),
/// and each is the whole game so far, so publishing them after every batch
/// would make a hall's traffic grow with the square of the game's length.
const SNAPSHOT_EVERY: Duration = Duration::from_secs(1);

/// The running publisher.
pub struct Publisher {
    health: Arc<MqttHealth>,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("health", &self.health)
            .finish_non_exhaustive()
    }
}

/// Starts publishing `feed` as `settings` say; `journal`: the daemon's
/// journal file, read back for re-publishing and replays. Call within the
/// tokio runtime.
pub fn spawn(
    settings: &Mqtt,
    feed: Arc<Feed>,
    journal: Option<PathBuf>,
) -> anyhow::Result<Publisher> {
    let topics = BoardTopics::new(&settings.hall, &settings.board)
        .map_err(|e| anyhow::anyhow!("[mqtt] {e}"))?;
    let options = options::mqtt_options(settings, &topics)?;
    let (client, eventloop) = AsyncClient::new(options, WINDOW + 16);
    let journal = journal.and_then(|path| match Journal::open_read_only(&path) {
        Ok(j) => Some(j),
        Err(e) => {
            tracing::warn!(
                "MQTT: cannot read the journal ({e}); events the broker missed are read from memory (current game only)"
            );
            None
        }
    });
    let health = Arc::new(MqttHealth::new(settings.broker.to_string()));
    let (links_tx, links) = mpsc::unbounded_channel();
    let connection = tokio::spawn(connection::drive(eventloop, links_tx, Arc::clone(&health)));
    let origin = Cursor {
        game: feed.game(),
        after: None,
    };
    let task = Task {
        names: Channel::ALL.map(|c| topics.topic(c)),
        feed,
        journal,
        client,
        tracker: Tracker::default(),
        outbox: VecDeque::new(),
        live: None,
        last_enqueued: None,
        origin,
        connected: false,
        last_snapshot: None,
        snapshot_due: None,
    };
    let (stop, stop_rx) = oneshot::channel();
    let task = tokio::spawn(task.run(links, stop_rx, connection));
    tracing::info!(
        "MQTT: publishing as board {} of hall {} to {}",
        settings.board,
        settings.hall,
        settings.broker
    );
    Ok(Publisher { health, stop, task })
}

impl Publisher {
    /// Whether it is connected, and to which broker.
    pub fn health(&self) -> Arc<MqttHealth> {
        Arc::clone(&self.health)
    }

    /// Publishes what is left (waiting a few seconds at most for the
    /// broker), then `status` `offline`, and disconnects.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        if tokio::time::timeout(DRAIN + 3 * GOODBYE, self.task)
            .await
            .is_err()
        {
            tracing::warn!("MQTT: the publisher did not stop in time");
        }
    }
}

/// One message waiting for the client.
struct Out {
    channel: Channel,
    payload: Vec<u8>,
    tag: Tag,
}

struct Task {
    /// The topic of each channel, in [`Channel::ALL`]'s order.
    names: [String; 5],
    feed: Arc<Feed>,
    journal: Option<Journal>,
    client: AsyncClient,
    tracker: Tracker,
    outbox: VecDeque<Out>,
    /// The feed's broadcast, while connected.
    live: Option<broadcast::Receiver<Message>>,
    /// The last live event put in the outbox.
    last_enqueued: Option<Key>,
    /// Where publishing starts before anything was acknowledged.
    origin: Cursor,
    connected: bool,
    /// When `state` and `pgn` were last put in the outbox, and when the
    /// next are due (changes came since).
    last_snapshot: Option<Instant>,
    snapshot_due: Option<Instant>,
}

/// The next message of the feed, or never without a receiver.
async fn next_live(
    live: &mut Option<broadcast::Receiver<Message>>,
) -> Result<Message, broadcast::error::RecvError> {
    match live {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Task {
    async fn run(
        mut self,
        mut links: mpsc::UnboundedReceiver<ConnectionReport>,
        mut stop: oneshot::Receiver<()>,
        connection: tokio::task::JoinHandle<()>,
    ) {
        let mut deadline: Option<Instant> = None;
        loop {
            self.pump();
            if let Some(at) = deadline {
                let live_empty = self.live.as_ref().is_none_or(|rx| rx.is_empty());
                let drained = self.outbox.is_empty() && self.tracker.settled() && live_empty;
                if !self.connected || drained || Instant::now() >= at {
                    break;
                }
            }
            let can_read = self.connected && self.outbox.len() < OUTBOX;
            tokio::select! {
                link = links.recv() => match link {
                    Some(link) => self.on_link(link),
                    None => break,
                },
                message = next_live(&mut self.live), if can_read => self.on_live(message),
                _ = &mut stop, if deadline.is_none() => {
                    deadline = Some(Instant::now() + DRAIN);
                    if self.snapshot_due.is_some() && self.connected {
                        self.enqueue_snapshot();
                    }
                }
                _ = sleep_until(deadline) => {}
                _ = sleep_until(self.snapshot_due), if self.connected => self.enqueue_snapshot(),
            }
        }
        self.goodbye(&mut links).await;
        connection.abort();
    }

    /// `offline`, acknowledged, then DISCONNECT (so no Last Will).
    async fn goodbye(&mut self, links: &mut mpsc::UnboundedReceiver<ConnectionReport>) {
        if !self.connected {
            return;
        }
        self.outbox.clear();
        self.enqueue(Channel::Status, OFFLINE.into(), Tag::Other);
        let until = Instant::now() + GOODBYE;
        loop {
            self.pump();
            if self.outbox.is_empty() && self.tracker.settled() {
                break;
            }
            match tokio::time::timeout_at(until, links.recv()).await {
                Ok(Some(link)) => self.on_link(link),
                Ok(None) | Err(_) => break,
            }
        }
        if self.client.try_disconnect().is_ok() {
            // The connection ends once DISCONNECT is out.
            let until = Instant::now() + GOODBYE;
            while let Ok(Some(_)) = tokio::time::timeout_at(until, links.recv()).await {}
        }
        tracing::info!("MQTT: status offline published; disconnected");
    }

    fn topic(&self, channel: Channel) -> &str {
        let i = Channel::ALL
            .iter()
            .position(|c| *c == channel)
            .expect("every channel is in ALL");
        &self.names[i]
    }

    /// Hands the outbox to the client while it takes publishes.
    fn pump(&mut self) {
        while self.connected && self.tracker.queued() < WINDOW {
            let Some(out) = self.outbox.pop_front() else {
                break;
            };
            let topic = self.topic(out.channel).to_owned();
            match self.client.try_publish(
                topic,
                QoS::AtLeastOnce,
                out.channel.retained(),
                out.payload.clone(),
            ) {
                Ok(()) => self.tracker.handed(out.tag),
                Err(e) => {
                    tracing::debug!("MQTT: the client takes no more for now ({e})");
                    self.outbox.push_front(out);
                    break;
                }
            }
        }
    }

    fn enqueue(&mut self, channel: Channel, payload: Vec<u8>, tag: Tag) {
        self.outbox.push_back(Out {
            channel,
            payload,
            tag,
        });
    }

    /// A live event (once: the live stream never goes back).
    fn enqueue_event(&mut self, game: u64, event: &Event) {
        let key = (game, event.seq);
        if self.last_enqueued.is_some_and(|last| key <= last) {
            return;
        }
        self.last_enqueued = Some(key);
        self.enqueue(Channel::Events, message(game, event), Tag::Event(key));
    }

    /// The retained `state` and `pgn` as they are now (replacing any not
    /// yet handed over).
    fn enqueue_snapshot(&mut self) {
        self.last_snapshot = Some(Instant::now());
        self.snapshot_due = None;
        self.outbox
            .retain(|o| !matches!(o.channel, Channel::State | Channel::Pgn));
        self.enqueue(
            Channel::State,
            self.feed.state_json().into_bytes(),
            Tag::Other,
        );
        let pgn = self.feed.pgn();
        // An empty retained message would delete the last game's PGN.
        if !pgn.is_empty() {
            self.enqueue(Channel::Pgn, pgn.into_bytes(), Tag::Other);
        }
    }

    /// `state` and `pgn` now, or when [`SNAPSHOT_EVERY`] has passed since
    /// the last.
    fn snapshot_soon(&mut self) {
        let now = Instant::now();
        match self.last_snapshot {
            Some(last) if now < last + SNAPSHOT_EVERY => {
                self.snapshot_due.get_or_insert(last + SNAPSHOT_EVERY);
            }
            _ => self.enqueue_snapshot(),
        }
    }

    /// Puts every live event from `cursor` on in the outbox and follows the
    /// feed from there.
    fn follow_from(&mut self, cursor: Cursor) {
        let (events, rx) = source::live_from(&self.feed, self.journal.as_ref(), cursor);
        for (game, event) in &events {
            self.enqueue_event(*game, event);
        }
        self.live = Some(rx);
        self.enqueue_snapshot();
    }

    fn on_link(&mut self, link: ConnectionReport) {
        match link {
            ConnectionReport::Up => {
                self.connected = true;
                self.outbox.clear();
                self.last_enqueued = None;
                self.enqueue(Channel::Status, ONLINE.into(), Tag::Other);
                let replay = self.topic(Channel::Replay).to_owned();
                if let Err(e) = self.client.try_subscribe(&replay, QoS::AtLeastOnce) {
                    tracing::warn!("MQTT: cannot subscribe to {replay}: {e}");
                }
                let cursor = self.tracker.resume().unwrap_or(self.origin);
                self.follow_from(cursor);
            }
            ConnectionReport::Down { unsent } => {
                self.connected = false;
                self.tracker.down(unsent);
                self.outbox.clear();
                self.live = None;
                self.last_enqueued = None;
            }
            ConnectionReport::Sent(pkid) => self.tracker.sent(pkid),
            ConnectionReport::Acked(pkid) => self.tracker.acked(pkid),
            ConnectionReport::Message { topic, payload } => self.on_message(&topic, &payload),
        }
    }

    fn on_live(&mut self, message: Result<Message, broadcast::error::RecvError>) {
        let mut message = message;
        loop {
            match message {
                Ok(Message::Event(item)) => self.enqueue_event(item.game, &item.event),
                // The daemon is stopping: the stop comes separately, after
                // the journal writer's last batch.
                Ok(Message::Close) => {}
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!("MQTT: {missed} events behind the feed; reading them back");
                    let cursor = match self.last_enqueued {
                        Some((game, seq)) => Cursor {
                            game,
                            after: Some(seq),
                        },
                        None => self.tracker.resume().unwrap_or(self.origin),
                    };
                    self.follow_from(cursor);
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => {
                    self.live = None;
                    break;
                }
            }
            if self.outbox.len() >= OUTBOX {
                break;
            }
            // The rest of the batch, as far as it is there.
            match self.live.as_mut().map(|rx| rx.try_recv()) {
                Some(Ok(m)) => message = Ok(m),
                Some(Err(broadcast::error::TryRecvError::Lagged(n))) => {
                    message = Err(broadcast::error::RecvError::Lagged(n))
                }
                _ => break,
            }
        }
        self.snapshot_soon();
    }

    fn on_message(&mut self, topic: &str, payload: &[u8]) {
        if topic != self.topic(Channel::Replay) {
            tracing::warn!(
                "MQTT: ignored a message on {topic}: this board subscribes only to {}",
                self.topic(Channel::Replay)
            );
            return;
        }
        let request = match ReplayRequest::parse(topic, payload) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!("MQTT: ignored a replay request: {e}");
                return;
            }
        };
        match source::game_events(
            &self.feed,
            self.journal.as_ref(),
            request.game,
            request.after_seq,
        ) {
            Ok(events) => {
                tracing::info!(
                    "MQTT: {topic}: publishing again {} events of game {} (after seq {:?})",
                    events.len(),
                    request.game,
                    request.after_seq
                );
                for event in &events {
                    self.enqueue(Channel::Events, message(request.game, event), Tag::Other);
                }
            }
            Err(why) => tracing::warn!("MQTT: {topic}: cannot replay game {}: {why}", request.game),
        }
    }
}

fn message(game: u64, event: &Event) -> Vec<u8> {
    EventMessage {
        game,
        wall_ms: wall_ms_now(),
        event: event.clone(),
    }
    .to_json()
    .into_bytes()
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
