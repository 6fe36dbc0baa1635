//! A board publishing to a real Mosquitto (the private broker of
//! `outputs::mqtt::mosquitto`, with `systemd/mosquitto/touchmove.acl`):
//! a daemon replays a synthesized trace fast, in-process or as the binary,
//! and a hall subscriber (user `hall`) checks what arrives on the board's
//! topics against `touchmove replay --events`.
use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, Event as MqttEvent, MqttOptions, Packet, QoS};
use touchmove::cli::replay::{drive, parse_time_control, session_for};
use touchmove::config::{Mqtt, Secret};
use touchmove::daemon::game_loop::Source;
use touchmove::daemon::{Options, Running, start};
use touchmove::game::pgn::{Tags, read_all};
use touchmove::outputs::journal::Journal;
use touchmove::outputs::mqtt::mosquitto::{BrokerSetup, Mosquitto};
use touchmove::outputs::mqtt::wire::{
    BoardTopics, Channel, EventMessage, ReplayRequest, hall_filter, wall_ms_now,
};
use touchmove::sensors::trace::Trace;
use touchmove::synth::{self, HandStyle};

const HALL: &str = "open";
const TIME_CONTROL: &str = "90+30";

fn broker() -> Mosquitto {
    Mosquitto::start(&BrokerSetup {
        users: vec![
            ("b1".into(), "secret-1".into()),
            ("b2".into(), "secret-2".into()),
            ("hall".into(), "secret-h".into()),
        ],
        acl: Some("systemd/mosquitto/touchmove.acl".into()),
    })
    .expect("mosquitto starts")
}

fn trace(seed: u64, plies: usize) -> Trace {
    let (start, moves) = synth::random_game(seed, plies);
    synth::synthesize(&start, &moves, &HandStyle::careful(), seed).trace
}

/// What `touchmove replay --events` prints for `trace`.
fn replay_lines(trace: &Trace) -> Vec<String> {
    let tc = parse_time_control(TIME_CONTROL).unwrap();
    let mut session = session_for(trace, None, None, Some(tc), None, None).unwrap();
    drive(&mut session, trace, "test")
        .unwrap()
        .iter()
        .map(|e| e.to_json())
        .collect()
}

/// Polls `done` every 10 ms until it holds or `timeout` passes.
fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + timeout;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mqtt-board-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One message the hall received.
#[derive(Debug, Clone)]
struct Received {
    topic: String,
    payload: String,
}

/// A hall subscriber (user `hall`) on its own thread, reconnecting when
/// the broker goes away.
struct Hall {
    client: Client,
    got: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
}

impl Hall {
    /// Connects and waits for its subscription to every board of the
    /// hall. `persistent`: a session the broker keeps (and queues for)
    /// while it is away.
    fn connect(broker: &Mosquitto, id: &str, persistent: bool) -> Hall {
        let mut options = MqttOptions::new(id, "127.0.0.1", broker.port());
        options.set_credentials("hall", "secret-h");
        options.set_keep_alive(Duration::from_secs(5));
        options.set_clean_session(!persistent);
        options.set_max_packet_size(1 << 20, 1 << 20);
        let (client, mut connection) = Client::new(options, 64);
        client
            .subscribe(hall_filter(HALL), QoS::AtLeastOnce)
            .unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let subscribed = Arc::new(AtomicBool::new(false));
        {
            let (got, stop, subscribed) = (got.clone(), stop.clone(), subscribed.clone());
            std::thread::spawn(move || {
                for event in connection.iter() {
                    match event {
                        Ok(MqttEvent::Incoming(Packet::Publish(p))) => {
                            got.lock().unwrap().push(Received {
                                topic: p.topic.clone(),
                                payload: String::from_utf8_lossy(&p.payload).into_owned(),
                            })
                        }
                        Ok(MqttEvent::Incoming(Packet::SubAck(_))) => {
                            subscribed.store(true, Ordering::Relaxed)
                        }
                        Ok(_) => {}
                        Err(_) if stop.load(Ordering::Relaxed) => break,
                        Err(_) => std::thread::sleep(Duration::from_millis(100)),
                    }
                }
            });
        }
        assert!(
            wait_until(Duration::from_secs(10), || subscribed
                .load(Ordering::Relaxed)),
            "the hall subscribes: {}",
            broker.log()
        );
        Hall { client, got, stop }
    }

    fn topic(board: &str, channel: Channel) -> String {
        BoardTopics::new(HALL, board).unwrap().topic(channel)
    }

    /// The events received from `board`, each `(game, seq)` once.
    fn events(&self, board: &str) -> BTreeMap<(u64, u64), EventMessage> {
        let topic = Hall::topic(board, Channel::Events);
        let mut out = BTreeMap::new();
        for r in self.got.lock().unwrap().iter().filter(|r| r.topic == topic) {
            let m = EventMessage::parse(&r.topic, r.payload.as_bytes())
                .unwrap_or_else(|e| panic!("{e}: {}", r.payload));
            out.entry((m.game, m.event.seq)).or_insert(m);
        }
        out
    }

    /// How many messages arrived on `events` (duplicates included).
    fn event_messages(&self, board: &str) -> usize {
        let topic = Hall::topic(board, Channel::Events);
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.topic == topic)
            .count()
    }

    /// The last message on one of `board`'s topics.
    fn last(&self, board: &str, channel: Channel) -> Option<String> {
        let topic = Hall::topic(board, channel);
        self.got
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|r| r.topic == topic)
            .map(|r| r.payload.clone())
    }

    fn request_replay(&self, board: &str, payload: &str) {
        self.client
            .publish(
                Hall::topic(board, Channel::Replay),
                QoS::AtLeastOnce,
                false,
                payload.as_bytes().to_vec(),
            )
            .unwrap();
    }
}

impl Drop for Hall {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.client.disconnect();
    }
}

/// The events of one game as `replay --events` prints them.
fn lines_of(events: &BTreeMap<(u64, u64), EventMessage>, game: u64) -> Vec<String> {
    events
        .iter()
        .filter(|((g, _), _)| *g == game)
        .map(|(_, m)| m.event.to_json())
        .collect()
}

fn settings(broker: &Mosquitto, board: &str, password: &str) -> Mqtt {
    let mut m = Mqtt::new(broker.url().parse().unwrap(), HALL, board).unwrap();
    m.password = Some(Secret(password.into()));
    m.keep_alive = Duration::from_secs(2);
    m
}

async fn daemon(trace: Trace, speed: f64, mqtt: Mqtt, journal: Option<PathBuf>) -> Running {
    start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: None,
        speed,
        source: Source::Trace(Box::new(trace)),
        profile: None,
        time_control: Some(parse_time_control(TIME_CONTROL).unwrap()),
        tags: Tags {
            white: "White Player".into(),
            black: "Black Player".into(),
            ..Tags::default()
        },
        journal,
        resume: true,
        clock_downtime: Default::default(),
        mqtt: Some(mqtt),
    })
    .await
    .unwrap()
}

fn last_fen(lines: &[String]) -> String {
    lines
        .iter()
        .rev()
        .find(|l| l.contains(r#""type":"move""#))
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["fen"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .expect("the game has moves")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_receives_every_event_then_the_retained_state_and_pgn_and_replays() {
    let broker = broker();
    let trace = trace(11, 24);
    let expected = replay_lines(&trace);
    assert!(
        expected.len() > 50,
        "a game with events: {}",
        expected.len()
    );
    let hall = Hall::connect(&broker, "hall-live", false);
    let began = wall_ms_now();
    let running = daemon(trace, 40.0, settings(&broker, "b1", "secret-1"), None).await;

    let complete = || hall.events("b1").len() >= expected.len();
    assert!(
        tokio::task::block_in_place(|| wait_until(Duration::from_secs(30), complete)),
        "{} of {} events: {}",
        hall.events("b1").len(),
        expected.len(),
        broker.log()
    );
    let events = hall.events("b1");
    assert_eq!(lines_of(&events, 1), expected, "events = replay --events");
    assert_eq!(events.len(), expected.len(), "one game, numbered 1");
    let now = wall_ms_now();
    assert!(events.values().all(|m| (began..=now).contains(&m.wall_ms)));
    let mqtt = running.mqtt().expect("[mqtt] set");
    assert!(mqtt.connected());
    assert_eq!(hall.last("b1", Channel::Status).as_deref(), Some("online"));

    // A hall that (re)starts after the game: the retained status, state
    // and PGN are there, the final ones.
    let plies = expected
        .iter()
        .filter(|l| l.contains(r#""type":"move""#))
        .count();
    let pgn_complete = || {
        hall.last("b1", Channel::Pgn).is_some_and(|p| {
            read_all(p.as_bytes()).unwrap()[0]
                .as_ref()
                .unwrap()
                .moves
                .len()
                == plies
        })
    };
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(10),
        pgn_complete
    )));
    let late = Hall::connect(&broker, "hall-late", false);
    let retained = || {
        [Channel::Status, Channel::State, Channel::Pgn]
            .iter()
            .all(|c| late.last("b1", *c).is_some())
    };
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(10),
        retained
    )));
    assert_eq!(late.last("b1", Channel::Status).as_deref(), Some("online"));
    let pgn = late.last("b1", Channel::Pgn).unwrap();
    let game = read_all(pgn.as_bytes()).unwrap().remove(0).unwrap();
    assert_eq!(game.moves.len(), plies, "{pgn}");
    assert_eq!(game.tag("White"), Some("White Player"));
    let state: serde_json::Value =
        serde_json::from_str(&late.last("b1", Channel::State).unwrap()).unwrap();
    assert_eq!(state["fen"], last_fen(&expected));
    assert_eq!(state["seq"], (expected.len() - 1) as u64);
    assert_eq!(state["game"], 1);
    assert!(late.events("b1").is_empty(), "events are not retained");

    // It has a gap (everything): it asks the board, which answers from its
    // in-memory log (no journal), and after a seq.
    late.request_replay(
        "b1",
        &ReplayRequest {
            game: 1,
            after_seq: None,
        }
        .to_json(),
    );
    let all = || late.events("b1").len() == expected.len();
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(10),
        all
    )));
    assert_eq!(lines_of(&late.events("b1"), 1), expected);
    let before = late.event_messages("b1");
    let k = expected.len() as u64 / 2;
    late.request_replay(
        "b1",
        &ReplayRequest {
            game: 1,
            after_seq: Some(k),
        }
        .to_json(),
    );
    let more = expected.len() - k as usize - 1;
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(10),
        || late.event_messages("b1") == before + more
    )));

    running.stop().await.unwrap();
    // A clean stop leaves `offline`.
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(5),
        || hall.last("b1", Channel::Status).as_deref() == Some("offline")
    )));
}
