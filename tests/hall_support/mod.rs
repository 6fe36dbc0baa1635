//! A fake board for the hall tests: a real MQTT client (rumqttc) that logs
//! in as its board id and publishes what a touchmove daemon publishes
//! under the wire contract (`touchmove_wire::mqtt`): the events
//! of a game (from a synthesized trace run through the session, as
//! `touchmove replay --events` does), the retained state (the `/state`
//! reduction of the events published), the retained PGN with `[%clk]`, and
//! `online` / the Last Will `offline`. It answers replay requests from its
//! events, as the daemon answers from its journal. Swapping it for a real
//! daemon changes nothing on the hall's side.
#![allow(dead_code)]
pub mod example_broker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{Client, LastWill, MqttOptions, Packet, QoS};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::pgn::{self, Tags};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_synth::{self as synth, HandStyle};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto};
use touchmove_wire::mqtt::{
    BoardTopics, Channel, EventMessage, OFFLINE, ONLINE, ReplayRequest, wall_ms_now,
};
use touchmove_wire::state::GameState;

pub const HALL_PASSWORD: &str = "hall-secret";

pub fn password(board: &str) -> String {
    format!("pw-{board}")
}

/// A private Mosquitto with the example ACL, the hall user and `boards`.
pub fn broker(boards: &[&str]) -> Mosquitto {
    let mut users: Vec<(String, String)> = boards
        .iter()
        .map(|b| (b.to_string(), password(b)))
        .collect();
    users.push(("hall".into(), HALL_PASSWORD.into()));
    Mosquitto::start(&BrokerSetup {
        users,
        acl: Some(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/systemd/mosquitto/touchmove.acl"
            )
            .into(),
        ),
    })
    .expect("mosquitto starts")
}

/// A game: its events (90+30 clock) and its PGN.
#[derive(Clone)]
pub struct Game {
    pub events: Vec<Event>,
    pub pgn: String,
    pub final_fen: String,
}

pub fn game(seed: u64, plies: usize, white: &str, black: &str) -> Game {
    let (start, moves) = synth::random_game(seed, plies);
    let trace = synth::synthesize(&start, &moves, &HandStyle::careful(), seed).trace;
    let tc = parse_time_control("90+30").unwrap();
    let mut session = session_for(&trace, None, None, Some(tc.clone()), None, None).unwrap();
    let events = drive(&mut session, &trace, "fake-board").unwrap();
    let tags = Tags {
        event: "Hall test".into(),
        white: white.into(),
        black: black.into(),
        time_control: Some(tc.to_pgn()),
        ..Tags::default()
    };
    let pgn = pgn::write(session.game(), &tags);
    let final_fen = touchmove_core::game::fen_of(session.game().position());
    Game {
        events,
        pgn,
        final_fen,
    }
}

pub struct FakeBoard {
    pub id: String,
    pub topics: BoardTopics,
    pub game_no: u64,
    pub white: String,
    pub black: String,
    pub events: Arc<Mutex<Vec<Event>>>,
    client: Client,
    /// Replay requests received, in order.
    pub requests: Arc<Mutex<Vec<ReplayRequest>>>,
    /// Whether replay requests are answered.
    pub answer: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeBoard {
    /// Logs in as `id` with a Last Will (`offline`, retained), subscribes
    /// to its replay topic and waits for the subscription.
    pub fn connect(
        broker: &Mosquitto,
        hall: &str,
        id: &str,
        game_no: u64,
        events: Vec<Event>,
    ) -> FakeBoard {
        FakeBoard::connect_to(broker.port(), hall, id, game_no, events)
    }

    /// As [`FakeBoard::connect`], to the broker on loopback port `port`.
    pub fn connect_to(
        port: u16,
        hall: &str,
        id: &str,
        game_no: u64,
        events: Vec<Event>,
    ) -> FakeBoard {
        let topics = BoardTopics::new(hall, id).unwrap();
        let mut options = MqttOptions::new(format!("board-{id}"), "127.0.0.1", port);
        options.set_credentials(id, password(id));
        options.set_keep_alive(Duration::from_secs(5));
        options.set_last_will(LastWill::new(
            topics.topic(Channel::Status),
            OFFLINE,
            QoS::AtLeastOnce,
            true,
        ));
        let (client, mut connection) = Client::new(options, 10_000);
        client
            .subscribe(topics.topic(Channel::Replay), QoS::AtLeastOnce)
            .unwrap();
        let events = Arc::new(Mutex::new(events));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(AtomicBool::new(false));
        let (subscribed_tx, subscribed_rx) = std::sync::mpsc::channel();
        let thread = {
            let (events, requests, answer, stop) = (
                Arc::clone(&events),
                Arc::clone(&requests),
                Arc::clone(&answer),
                Arc::clone(&stop),
            );
            let client = client.clone();
            let events_topic = topics.topic(Channel::Events);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Ok(event) = connection.recv_timeout(Duration::from_millis(50)) else {
                        continue;
                    };
                    match event {
                        Ok(rumqttc::Event::Incoming(Packet::SubAck(_))) => {
                            let _ = subscribed_tx.send(());
                        }
                        Ok(rumqttc::Event::Incoming(Packet::Publish(p))) => {
                            let request = ReplayRequest::parse(&p.topic, &p.payload).unwrap();
                            requests.lock().unwrap().push(request);
                            if answer.load(Ordering::Relaxed) && request.game == game_no {
                                for e in events.lock().unwrap().iter() {
                                    if request.after_seq.is_none_or(|a| e.seq > a) {
                                        let m = EventMessage {
                                            game: game_no,
                                            wall_ms: wall_ms_now(),
                                            event: e.clone(),
                                        };
                                        client
                                            .try_publish(
                                                &events_topic,
                                                QoS::AtLeastOnce,
                                                false,
                                                m.to_json(),
                                            )
                                            .unwrap();
                                    }
                                }
                            }
                        }
                        Ok(_) => {}
                        Err(e) => panic!("fake board connection: {e}"),
                    }
                }
                // Dropping the connection closes the socket without a
                // DISCONNECT: the broker publishes the Last Will.
            })
        };
        subscribed_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the fake board subscribed");
        FakeBoard {
            id: id.to_owned(),
            topics,
            game_no,
            white: "White".into(),
            black: "Black".into(),
            events,
            client,
            requests,
            answer,
            stop,
            thread: Some(thread),
        }
    }

    fn publish(&self, channel: Channel, payload: String) {
        self.client
            .try_publish(
                self.topics.topic(channel),
                QoS::AtLeastOnce,
                channel.retained(),
                payload,
            )
            .unwrap();
    }

    pub fn online(&self) {
        self.publish(Channel::Status, ONLINE.into());
    }

    /// Publishes the event at `index` of the game; returns its wall_ms.
    pub fn event(&self, index: usize) -> u64 {
        let event = self.events.lock().unwrap()[index].clone();
        let wall_ms = wall_ms_now();
        let m = EventMessage {
            game: self.game_no,
            wall_ms,
            event,
        };
        self.publish(Channel::Events, m.to_json());
        wall_ms
    }

    /// Appends an event of `kind` at the end of the game; its index.
    pub fn push(&self, kind: EventKind) -> usize {
        let mut events = self.events.lock().unwrap();
        let last = events.last().map_or((0, 0), |e| (e.seq + 1, e.t_ms + 100));
        events.push(Event {
            t_ms: last.1,
            seq: last.0,
            kind,
        });
        events.len() - 1
    }

    /// The retained state after the events up to `index` (as `/state`).
    pub fn state(&self, index: usize) {
        let events = self.events.lock().unwrap();
        let mut state = GameState::new(touchmove_core::game::Start::standard().fen());
        for e in &events[..=index] {
            state.apply(e);
        }
        let now = events[index].t_ms;
        let json =
            serde_json::to_string(&state.snapshot(self.game_no, now, &self.white, &self.black))
                .unwrap();
        drop(events);
        self.publish(Channel::State, json);
    }

    pub fn pgn(&self, text: &str) {
        self.publish(Channel::Pgn, text.to_owned());
    }

    pub fn raw(&self, channel: Channel, payload: &str) {
        self.publish(channel, payload.to_owned());
    }

    pub fn len(&self) -> usize {
        self.events.lock().unwrap().len()
    }

    /// Drops the connection without a DISCONNECT (a board losing power).
    pub fn die(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for FakeBoard {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A private Mosquitto with the example ACL, the hall user and one
/// `feeder` user that may publish as any board (a stand-in for many
/// boards in one client, for load tests: one connection instead of one
/// per board).
pub fn broker_with_feeder(dir: &std::path::Path) -> Mosquitto {
    let example = include_str!("../../systemd/mosquitto/touchmove.acl");
    let acl = dir.join("touchmove-feeder.acl");
    std::fs::write(
        &acl,
        format!("{example}\nuser feeder\ntopic write touchmove/v1/#\n"),
    )
    .unwrap();
    Mosquitto::start(&BrokerSetup {
        users: vec![
            ("hall".into(), HALL_PASSWORD.into()),
            ("feeder".into(), "feeder-secret".into()),
        ],
        acl: Some(acl),
    })
    .expect("mosquitto starts")
}

/// One client publishing for many boards (see [`broker_with_feeder`]).
pub struct Feeder {
    pub hall: String,
    client: Client,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Feeder {
    pub fn connect(broker: &Mosquitto, hall: &str) -> Feeder {
        let mut options = MqttOptions::new("feeder", "127.0.0.1", broker.port());
        options.set_credentials("feeder", "feeder-secret");
        options.set_keep_alive(Duration::from_secs(30));
        options.set_inflight(1000);
        let (client, mut connection) = Client::new(options, 200_000);
        let stop = Arc::new(AtomicBool::new(false));
        let (up_tx, up_rx) = std::sync::mpsc::channel();
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match connection.recv_timeout(Duration::from_millis(50)) {
                        Ok(Ok(rumqttc::Event::Incoming(Packet::ConnAck(_)))) => {
                            let _ = up_tx.send(());
                        }
                        // The end of the run (or a broken link, which the
                        // test then sees as messages the hall never got).
                        Ok(Err(e)) => {
                            if !stop.load(Ordering::Relaxed) {
                                eprintln!("feeder connection: {e}");
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            })
        };
        up_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the feeder connected");
        Feeder {
            hall: hall.to_owned(),
            client,
            stop,
            thread: Some(thread),
        }
    }

    /// Publishes `payload` on `board`'s `channel` (retained as the contract says).
    pub fn publish(&self, board: &str, channel: Channel, payload: String) {
        let topics = BoardTopics::new(&self.hall, board).unwrap();
        self.client
            .try_publish(
                topics.topic(channel),
                QoS::AtLeastOnce,
                channel.retained(),
                payload,
            )
            .unwrap();
    }

    /// Publishes one event of `board`'s game `game_no`; returns its wall_ms.
    pub fn event(&self, board: &str, game_no: u64, event: &Event) -> u64 {
        let wall_ms = wall_ms_now();
        let m = EventMessage {
            game: game_no,
            wall_ms,
            event: event.clone(),
        };
        self.publish(board, Channel::Events, m.to_json());
        wall_ms
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.client.disconnect();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
