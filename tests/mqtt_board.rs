//! A board publishing to a real Mosquitto (the private broker of
//! `outputs::mqtt::mosquitto`, with `systemd/mosquitto/touchmove.acl`):
//! a daemon replays a synthesized trace fast, in-process or as the binary,
//! and a hall subscriber (user `hall`) checks what arrives on the board's
//! topics against `touchmove replay --events`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, Event as MqttEvent, MqttOptions, Packet, QoS};
use touchmove_board::config::{Mqtt, Secret};
use touchmove_board::daemon::game_loop::GameSource;
use touchmove_board::daemon::{Options, Running, start};
use touchmove_board::outputs::journal::Journal;
use touchmove_core::game::pgn::{Tags, read_all};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_core::trace::Trace;
use touchmove_synth::{self as synth, HandStyle};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto};
use touchmove_wire::mqtt::{
    BoardTopics, Channel, EventMessage, ReplayRequest, hall_filter, wall_ms_now,
};

mod process;

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
        speed,
        time_control: Some(parse_time_control(TIME_CONTROL).unwrap()),
        tags: Tags {
            white: "White Player".into(),
            black: "Black Player".into(),
            ..Tags::default()
        },
        journal,
        mqtt: Some(mqtt),
        ..Options::new(GameSource::Trace(Box::new(trace)))
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

/// `touchmove run --trace` as a child process publishing as `board`; its
/// log lines (stdout) are collected.
struct BoardProcess {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl BoardProcess {
    fn start(
        broker: &Mosquitto,
        board: &str,
        password: &Path,
        trace: &Path,
        db: &Path,
    ) -> BoardProcess {
        let mut command = process::touchmove_run();
        command
            .args(["--bind", "127.0.0.1:0", "--speed", "40"])
            .args(["--time-control", TIME_CONTROL, "--trace"])
            .arg(trace)
            .arg("--journal")
            .arg(db)
            .args([
                "--mqtt-broker",
                &broker.url(),
                "--hall",
                HALL,
                "--board",
                board,
            ])
            .arg("--mqtt-password-file")
            .arg(password)
            .args(["--mqtt-keep-alive", "2"])
            .stderr(Stdio::null());
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = log.clone();
        let (child, _) = process::spawn_serving(command, move |line| {
            lines.lock().unwrap().push(line.to_owned());
        });
        BoardProcess { child, log }
    }

    fn logged(&self, all: &[&str]) -> bool {
        self.log
            .lock()
            .unwrap()
            .iter()
            .any(|l| all.iter().all(|part| l.contains(part)))
    }

    fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// The `/health` JSON.
    fn health(&self) -> serde_json::Value {
        use std::io::{Read as _, Write as _};
        let addr = self
            .log
            .lock()
            .unwrap()
            .iter()
            .find_map(|l| {
                l.split("serving http://")
                    .nth(1)
                    .map(|a| a.trim_end_matches('/').trim().to_owned())
            })
            .expect("the daemon says where it serves");
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        write!(stream, "GET /health HTTP/1.0\r\nHost: test\r\n\r\n").unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap()
    }
}

impl Drop for BoardProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_trace(dir: &Path, trace: &Trace) -> PathBuf {
    let path = dir.join("game.trace");
    std::fs::write(&path, trace.to_string()).unwrap();
    path
}

fn write_password(dir: &Path, password: &str) -> PathBuf {
    let path = dir.join("password");
    std::fs::write(&path, format!("{password}\n")).unwrap();
    path
}

#[test]
fn bad_replay_requests_are_logged_and_a_killed_board_goes_offline_by_its_last_will() {
    let broker = broker();
    let dir = temp_dir("will");
    let game = trace(7, 16);
    let expected = replay_lines(&game);
    let trace = write_trace(&dir, &game);
    let password = write_password(&dir, "secret-2");
    let db = dir.join("journal.sqlite3");
    let hall = Hall::connect(&broker, "hall-will", false);
    let board = BoardProcess::start(&broker, "b2", &password, &trace, &db);
    assert!(
        wait_until(Duration::from_secs(30), || hall.events("b2").len()
            == expected.len()),
        "{} of {} events\n{}",
        hall.events("b2").len(),
        expected.len(),
        board.log_text()
    );
    assert_eq!(lines_of(&hall.events("b2"), 1), expected);
    assert_eq!(hall.last("b2", Channel::Status).as_deref(), Some("online"));

    // Requests the board cannot serve: a warning naming the topic and the
    // fault each, and the publisher carries on.
    let replay = Hall::topic("b2", Channel::Replay);
    hall.request_replay("b2", "replay please");
    hall.request_replay("b2", r#"{"game":1,"after_seq":"x"}"#);
    hall.request_replay("b2", r#"{"game":99}"#);
    assert!(
        wait_until(Duration::from_secs(30), || {
            board.logged(&["WARN", &replay, "not a replay request", "expected value"])
                && board.logged(&["WARN", &replay, "not a replay request", "invalid type"])
                && board.logged(&["WARN", &replay, "cannot replay game 99", "no game 99"])
        }),
        "{}",
        board.log_text()
    );
    // From the journal: the events after seq 10, again.
    let before = hall.event_messages("b2");
    hall.request_replay(
        "b2",
        &ReplayRequest {
            game: 1,
            after_seq: Some(10),
        }
        .to_json(),
    );
    let more = expected.len() - 11;
    assert!(
        wait_until(Duration::from_secs(30), || hall.event_messages("b2")
            == before + more),
        "{}",
        board.log_text()
    );
    assert_eq!(
        board.health()["mqtt"]["connected"],
        true,
        "/health says connected"
    );

    // SIGKILL: the broker publishes the Last Will within 1.5 keep-alives.
    let mut board = board;
    board.child.kill().unwrap();
    let killed = Instant::now();
    assert!(
        wait_until(Duration::from_secs(5), || hall
            .last("b2", Channel::Status)
            .as_deref()
            == Some("offline")),
        "{}",
        broker.log()
    );
    let took = killed.elapsed();
    assert!(took <= Duration::from_secs(3), "offline after {took:?}");
    drop(board);

    // Started again on its journal, then stopped with SIGTERM: `online`,
    // then `offline` published by the board itself before DISCONNECT.
    let mut board = BoardProcess::start(&broker, "b2", &password, &trace, &db);
    assert!(
        wait_until(Duration::from_secs(20), || hall
            .last("b2", Channel::Status)
            .as_deref()
            == Some("online")),
        "{}",
        board.log_text()
    );
    let status = Command::new("kill")
        .args(["-TERM", &board.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = board.child.wait().unwrap();
    assert!(exit.success(), "{exit}\n{}", board.log_text());
    assert!(wait_until(Duration::from_secs(5), || hall
        .last("b2", Channel::Status)
        .as_deref()
        == Some("offline")));
    assert!(
        board.logged(&["status offline published"]),
        "{}",
        board.log_text()
    );
    eprintln!("{}", broker.log());
}

#[test]
fn a_board_the_broker_refuses_says_so_and_keeps_journalling() {
    let broker = broker();
    let dir = temp_dir("refused");
    let game = trace(3, 12);
    let expected = replay_lines(&game);
    let trace = write_trace(&dir, &game);
    let password = write_password(&dir, "not-the-password");
    let db = dir.join("journal.sqlite3");
    let board = BoardProcess::start(&broker, "b1", &password, &trace, &db);
    assert!(
        wait_until(Duration::from_secs(10), || board.logged(&[
            "ERROR",
            &broker.url(),
            "refused the connection",
            "username or password"
        ])),
        "{}",
        board.log_text()
    );
    // The game is recorded all the same.
    let journalled = || {
        Journal::open_read_only(&db)
            .ok()
            .and_then(|j| {
                j.list()
                    .ok()
                    .and_then(|g| g.first().map(|g| g.id))
                    .and_then(|id| j.events_after(id, None).ok())
            })
            .is_some_and(|events| events.len() == expected.len())
    };
    assert!(
        wait_until(Duration::from_secs(30), journalled),
        "{}",
        board.log_text()
    );
    let journal = Journal::open_read_only(&db).unwrap();
    let id = journal.list().unwrap()[0].id;
    let lines: Vec<String> = journal
        .events_after(id, None)
        .unwrap()
        .iter()
        .map(|e| e.to_json())
        .collect();
    assert_eq!(lines, expected);
    let health = board.health();
    assert_eq!(health["mqtt"]["connected"], false, "{health}");
    assert_eq!(health["mqtt"]["broker"], broker.url());
    assert_eq!(health["status"], "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_restarted_mid_game_the_hall_still_gets_every_event() {
    let mut broker = broker();
    let dir = temp_dir("restart");
    let game = trace(21, 40);
    let expected = replay_lines(&game);
    let hall = Hall::connect(&broker, "hall-restart", true);
    let running = daemon(
        game,
        20.0,
        settings(&broker, "b1", "secret-1"),
        Some(dir.join("journal.sqlite3")),
    )
    .await;
    let mqtt = running.mqtt().unwrap();
    let feed = running.feed.clone();
    let seq = move || {
        serde_json::from_str::<serde_json::Value>(&feed.state_json()).unwrap()["seq"]
            .as_i64()
            .unwrap()
    };

    let quarter = expected.len() / 4;
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(20),
        || hall.events("b1").len() >= quarter
    )));
    broker.stop().unwrap();
    assert!(tokio::task::block_in_place(|| wait_until(
        Duration::from_secs(10),
        || !mqtt.connected()
    )));
    // The board plays on while the broker is away.
    let at_stop = seq();
    assert!(
        tokio::task::block_in_place(
            || wait_until(Duration::from_secs(20), || seq() >= at_stop + 10)
        ),
        "the game went on"
    );
    let received_while_down = hall.events("b1").len();
    assert!(received_while_down < expected.len());
    broker.resume().unwrap();
    assert!(
        tokio::task::block_in_place(|| wait_until(Duration::from_secs(40), || hall
            .events("b1")
            .len()
            == expected.len())),
        "{} of {} events after the restart\n{}",
        hall.events("b1").len(),
        expected.len(),
        broker.log()
    );
    assert!(mqtt.connected());
    assert_eq!(
        lines_of(&hall.events("b1"), 1),
        expected,
        "every event, none changed"
    );
    eprintln!(
        "{} events, {} messages (duplicates included); {received_while_down} before the restart",
        expected.len(),
        hall.event_messages("b1")
    );
    running.stop().await.unwrap();
}

/// `touchmove hall` as a process, sent SIGTERM as soon as it says where it
/// serves (systemd stopping a hall that is starting): a clean stop (exit
/// status 0, the hall's own "stopping" logged), not the signal's default
/// kill.
#[test]
fn a_hall_process_stopped_as_it_starts_stops_cleanly() {
    let broker = broker();
    let dir = temp_dir("hall-stop");
    let password = write_password(&dir, "secret-h");
    let mut command = Command::new(env!("CARGO_BIN_EXE_touchmove"));
    command
        .args(["hall", "--broker", &broker.url(), "--hall", HALL])
        .args(["--bind", "127.0.0.1:0", "--password-file"])
        .arg(&password)
        .stderr(Stdio::null());
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let lines = log.clone();
    let (mut child, _) = process::spawn_serving(command, move |line| {
        lines.lock().unwrap().push(line.to_owned());
    });
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    let text = || log.lock().unwrap().join("\n");
    assert!(exit.success(), "{exit}\n{}", text());
    assert!(
        wait_until(Duration::from_secs(5), || text()
            .contains("stopping the hall")),
        "{}",
        text()
    );
}
