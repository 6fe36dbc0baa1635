//! The hall under a hostile or broken board: every board message is
//! untrusted. The registry is fed directly (its decode and ingest path is
//! pure) for values that would spoil the hall, and a property test throws
//! arbitrary and mutated payloads at it; the MQTT cases run against the
//! real Mosquitto, with the example configuration of `systemd/mosquitto/`
//! where the broker's part is tested.
mod hall_support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hall_support::example_broker::ExampleBroker;
use hall_support::{FakeBoard, HALL_PASSWORD, game, password};
use proptest::prelude::*;
use rumqttc::{Client, Event as MqttEvent, MqttOptions, Packet, QoS};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use touchmove_core::events::{Event, EventKind};
use touchmove_hall::limits::{MAX_GAME_EVENTS, MAX_PACKET, MAX_PAYLOAD, SEQ_WINDOW};
use touchmove_hall::registry::{ALERTS_KEPT, FAULTS_KEPT, Registry, Status};
use touchmove_hall::rejects::ALERT_AFTER;
use touchmove_hall::{self as hall, HallOptions, RunningHall};
use touchmove_wire::mqtt::{BoardTopics, Channel, EventMessage, ReplayRequest};

const HALL: &str = "open-2026";
const NOW: u64 = 1_800_000_000_000;

fn topic(board: &str, channel: Channel) -> String {
    BoardTopics::new(HALL, board).unwrap().topic(channel)
}

fn message(game: u64, wall_ms: u64, event: &Event) -> Vec<u8> {
    EventMessage {
        game,
        wall_ms,
        event: event.clone(),
    }
    .to_json()
    .into_bytes()
}

fn lifted(seq: u64) -> Event {
    Event {
        t_ms: seq * 100,
        seq,
        kind: EventKind::PieceLifted {
            square: shakmaty::Square::E2,
            piece: Some('P'),
        },
    }
}

fn started() -> Event {
    Event {
        t_ms: 0,
        seq: 0,
        kind: EventKind::GameStarted {
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            profile: None,
        },
    }
}

/// Sends `event` of `game` on `board`'s events topic, stamped 5 ms ago.
fn send(r: &mut Registry, board: &str, game: u64, event: &Event) -> hall::registry::Received {
    r.receive(
        &topic(board, Channel::Events),
        &message(game, NOW - 5, event),
        NOW,
    )
}

// Finding 1: one event far ahead must not make the hall list every seq.

#[test]
fn an_event_far_ahead_is_a_replay_request_and_a_bounded_report() {
    for far in [10_000_000_u64, 1_000_000_000_000] {
        let mut r = Registry::new(HALL);
        send(&mut r, "b1", 1, &started());
        for seq in 1..3 {
            send(&mut r, "b1", 1, &lifted(seq));
        }
        let got = send(&mut r, "b1", 1, &lifted(far));
        assert_eq!(
            got.replays,
            vec![(
                topic("b1", Channel::Replay),
                ReplayRequest {
                    game: 1,
                    after_seq: Some(2)
                }
            )]
        );
        // Not held: the events held stay those in order.
        assert_eq!(r.held_seqs("b1"), [0, 1, 2]);
        let b = r.board_json("b1", NOW).unwrap();
        let text = b.to_string();
        assert!(text.len() < 20_000, "a board JSON of {} bytes", text.len());
        assert_eq!(b["gap"], true);
        assert_eq!(b["missing_count"], far - 3);
        assert_eq!(b["missing_ranges"], json!([[3, far - 1]]));
        let listed = b["missing"].as_array().unwrap();
        assert_eq!(listed.len(), 100);
        assert_eq!(listed[0], 3);
        assert_eq!(b["stats"]["beyond_window"], 1);
        // The request is asked again while the gap stays open.
        assert_eq!(r.due_replays(NOW + 2_000).len(), 1);
        // The board, asked, replays in order: the view goes on.
        for seq in 3..10 {
            send(&mut r, "b1", 1, &lifted(seq));
        }
        assert_eq!(r.held_seqs("b1").len(), 10);
        let hall = r.hall_json(NOW).to_string();
        assert!(hall.len() < 20_000, "the hall JSON of {} bytes", hall.len());
    }
}

// Finding 9: values that spoil the hall.

#[test]
fn an_absurd_game_number_is_refused_and_the_board_plays_on() {
    let g = game(31, 12, "Ann", "Bob");
    let mut r = Registry::new(HALL);
    // Before any game is known, and once game 4 is.
    let first = send(&mut r, "b1", u64::MAX, &g.events[0]);
    assert!(
        first
            .fault
            .unwrap()
            .message
            .contains("18446744073709551615")
    );
    assert_eq!(r.current_game("b1"), None);
    let half = g.events.len() / 2;
    for e in &g.events[..half] {
        send(&mut r, "b1", 4, e);
    }
    let bad = send(&mut r, "b1", u64::MAX, &g.events[half]);
    let fault = bad.fault.unwrap();
    assert!(
        fault.message.contains("jumps more than") && fault.topic.ends_with("/b1/events"),
        "{fault:?}"
    );
    let state = json!({"fen": g.final_fen, "seq": 3, "game": u64::MAX, "moves": []});
    assert!(
        r.receive(
            &topic("b1", Channel::State),
            state.to_string().as_bytes(),
            NOW
        )
        .fault
        .is_some()
    );
    assert_eq!(r.current_game("b1"), Some(4));
    for e in &g.events[half..] {
        send(&mut r, "b1", 4, e);
    }
    let b = r.board_json("b1", NOW).unwrap();
    assert_eq!(b["source"], "events");
    assert_eq!(b["fen"], g.final_fen.as_str());
    assert_eq!(b["plies"], 12);
    assert_eq!(b["stats"]["stale"], 0);
    assert_eq!(b["rejected"]["by_reason"]["implausible_game"], 3);
    // The next game is the next number; a few missed are fine.
    send(&mut r, "b1", 9, &started());
    assert_eq!(r.current_game("b1"), Some(9));
}

#[test]
fn a_board_restarted_without_its_journal_numbers_from_one_again() {
    let g = game(32, 6, "Ann", "Bob");
    let mut r = Registry::new(HALL);
    for e in &g.events {
        send(&mut r, "b1", 5, e);
    }
    // A late event of game 5's past: still stale.
    send(&mut r, "b1", 2, &lifted(3));
    assert_eq!(r.stats("b1").unwrap().stale, 1);
    // The board restarts and opens its game 1: the view follows it.
    for e in &g.events[..4] {
        send(&mut r, "b1", 1, e);
    }
    assert_eq!(r.current_game("b1"), Some(1));
    assert_eq!(r.held_seqs("b1"), [0, 1, 2, 3]);
    assert_eq!(r.stats("b1").unwrap().renumbered, 1);
    // A replay of an older game asked by the arbiter is not a restart.
    let mut r = Registry::new(HALL);
    for e in &g.events {
        send(&mut r, "b1", 5, e);
    }
    r.replay_asked("b1", 3);
    send(&mut r, "b1", 3, &g.events[0]);
    assert_eq!(r.current_game("b1"), Some(5));
}

#[test]
fn an_implausible_wall_time_is_left_out_of_latency() {
    let mut r = Registry::new(HALL);
    send(&mut r, "b1", 1, &started());
    r.receive(
        &topic("b1", Channel::Events),
        &message(1, 0, &lifted(1)),
        NOW,
    );
    r.receive(
        &topic("b1", Channel::Events),
        &message(1, u64::MAX, &lifted(2)),
        NOW,
    );
    let d = r.delivery();
    assert_eq!(d.events, 3);
    assert_eq!(d.latency_max_ms, Some(5));
    assert_eq!(d.latency_p99_ms, Some(5));
    let s = r.stats("b1").unwrap();
    assert_eq!((s.max_latency_ms, s.implausible_wall_ms), (Some(5), 2));
    // The clock of the view is placed with the hall's time instead.
    let b = r.board_json("b1", NOW).unwrap();
    assert_eq!(b["seq"], 2);
}

#[test]
fn out_of_order_events_are_bounded_per_board() {
    let mut r = Registry::new(HALL);
    send(&mut r, "b1", 1, &started());
    // 100,000 events after a missing seq 1.
    let mut replays = 0;
    for seq in 2..100_002 {
        replays += send(&mut r, "b1", 1, &lifted(seq)).replays.len();
    }
    let held = r.held_seqs("b1").len() as u64;
    assert!(held <= SEQ_WINDOW + 1, "{held} events held");
    assert_eq!(replays, 1, "one replay request out");
    let b = r.board_json("b1", NOW).unwrap();
    // Missing: seq 1, and those beyond the window (seen, not held).
    let first_beyond = 1 + SEQ_WINDOW;
    assert_eq!(
        b["missing_ranges"],
        json!([[1, 1], [first_beyond, 100_000]])
    );
    assert_eq!(b["missing_count"], 1 + 100_001 - first_beyond);
    assert_eq!(b["stats"]["beyond_window"], 100_002 - first_beyond);
    // The replay (from seq 1) arrives in order: the window slides on.
    for seq in 1..5_000 {
        send(&mut r, "b1", 1, &lifted(seq));
    }
    assert_eq!(r.held_seqs("b1"), (0..5_000).collect::<Vec<u64>>());
    assert_eq!(r.board_json("b1", NOW).unwrap()["seq"], 4_999);
}

#[test]
fn a_game_holds_a_bounded_number_of_events() {
    let mut r = Registry::new(HALL);
    send(&mut r, "b1", 1, &started());
    for seq in 1..MAX_GAME_EVENTS as u64 + 10 {
        send(&mut r, "b1", 1, &lifted(seq));
    }
    assert_eq!(r.held_seqs("b1").len(), MAX_GAME_EVENTS);
    let rejects = r.rejects_of("b1").unwrap();
    assert_eq!(rejects.to_json()["by_reason"]["game_too_long"], 10);
}

// A board that keeps sending bad messages is an alert.

#[test]
fn a_board_that_keeps_sending_bad_messages_becomes_one_alert() {
    let mut r = Registry::new(HALL);
    r.receive(&topic("b1", Channel::Status), b"online", NOW);
    let events = topic("b1", Channel::Events);
    for i in 0..ALERT_AFTER - 1 {
        assert!(!r.receive(&events, b"{not json", NOW + i).alert);
    }
    assert!(r.alerts().is_empty());
    let big = vec![b'x'; MAX_PAYLOAD + 1];
    let got = r.receive(&events, &big, NOW + 10);
    assert!(got.alert);
    assert!(got.fault.unwrap().message.contains("over the hall's limit"));
    for i in 0..20 {
        assert!(!r.receive(&events, b"[]", NOW + 20 + i).alert);
    }
    let hall_json = r.hall_json(NOW + 100);
    let alerts = hall_json["alerts"].as_array().unwrap();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["type"], "bad_messages");
    assert_eq!(alerts[0]["board"], "b1");
    assert_eq!(alerts[0]["active"], true);
    assert_eq!(alerts[0]["event"]["rejected"], ALERT_AFTER + 20);
    let b = r.board_json("b1", NOW + 100).unwrap();
    assert_eq!(b["open_alerts"], 1);
    assert_eq!(b["rejected"]["count"], ALERT_AFTER + 20);
    assert_eq!(b["rejected"]["by_reason"]["oversized"], 1);
    assert_eq!(b["rejected"]["by_reason"]["undecodable"], ALERT_AFTER + 19);
    assert_eq!(b["rejected"]["last"]["topic"], events.as_str());
    // Acknowledged, then quiet for a minute: no longer active.
    let id = alerts[0]["id"].as_u64().unwrap();
    assert_eq!(r.acknowledge("b1", Some(id)), Ok(1));
    r.receive(&topic("b1", Channel::Status), b"online", NOW + 120_000);
    assert!(!r.alerts()[0].active);
    // A new run of bad messages after the acknowledgement: a new alert.
    for i in 0..ALERT_AFTER {
        r.receive(&events, b"1", NOW + 130_000 + i);
    }
    assert_eq!(r.alerts().iter().filter(|a| !a.acknowledged).count(), 1);
}

// Property: arbitrary and mutated payloads never panic the hall, and what
// it keeps stays bounded.

fn cases() -> u32 {
    if let Some(n) = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1") {
        20_000
    } else {
        256
    }
}

/// Numbers a hostile board likes.
fn edgy_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..8u64,
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(1 << 53),
        Just(SEQ_WINDOW - 1),
        Just(SEQ_WINDOW),
        Just(1_000_000_000_000),
        any::<u64>(),
    ]
}

/// A JSON value of any kind, as a replacement for a field.
fn edgy_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        edgy_u64().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(|s| json!(s)),
        Just(Value::Null),
        Just(json!([])),
        Just(json!({})),
        Just(json!(true)),
    ]
}

#[derive(Debug, Clone)]
enum Payload {
    /// Any bytes.
    Bytes(Vec<u8>),
    /// A real event with `game` and `seq` chosen, `wall_ms` too.
    Event {
        index: usize,
        game: u64,
        seq: u64,
        wall_ms: u64,
    },
    /// A real event with one field replaced.
    Field {
        index: usize,
        field: String,
        value: Value,
    },
    /// A real event's JSON cut short or with one byte changed.
    Cut { index: usize, at: usize, byte: u8 },
    /// Over the hall's limit.
    Oversized,
}

fn payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        3 => proptest::collection::vec(any::<u8>(), 0..200).prop_map(Payload::Bytes),
        4 => (0..40usize, prop_oneof![1..4u64, edgy_u64()], prop_oneof![0..40u64, edgy_u64()], edgy_u64())
            .prop_map(|(index, game, seq, wall_ms)| Payload::Event { index, game, seq, wall_ms }),
        3 => (
            0..40usize,
            prop_oneof![
                Just("game"), Just("seq"), Just("wall_ms"), Just("t_ms"), Just("type"),
                Just("square"), Just("fen"), Just("moves"), Just("clock"), Just("alerts"),
            ],
            edgy_value()
        )
            .prop_map(|(index, field, value)| Payload::Field { index, field: field.into(), value }),
        2 => (0..40usize, any::<usize>(), any::<u8>())
            .prop_map(|(index, at, byte)| Payload::Cut { index, at, byte }),
        1 => Just(Payload::Oversized),
    ]
}

fn bytes_of(p: &Payload, events: &[Event], base_game: u64) -> Vec<u8> {
    let pick = |i: usize| &events[i % events.len()];
    match p {
        Payload::Bytes(b) => b.clone(),
        Payload::Event {
            index,
            game,
            seq,
            wall_ms,
        } => {
            let mut e = pick(*index).clone();
            e.seq = *seq;
            message(*game, *wall_ms, &e)
        }
        Payload::Field {
            index,
            field,
            value,
        } => {
            let mut v: Value =
                serde_json::from_slice(&message(base_game, NOW, pick(*index))).unwrap();
            v[field.as_str()] = value.clone();
            v.to_string().into_bytes()
        }
        Payload::Cut { index, at, byte } => {
            let mut b = message(base_game, NOW, pick(*index));
            let at = at % b.len();
            if byte % 2 == 0 {
                b.truncate(at);
            } else {
                b[at] = *byte;
            }
            b
        }
        Payload::Oversized => vec![b'{'; MAX_PAYLOAD + 1],
    }
}

fn channel_of(i: u8) -> Channel {
    [
        Channel::Events,
        Channel::Events,
        Channel::Events,
        Channel::State,
        Channel::Pgn,
        Channel::Status,
    ][i as usize % 6]
}

/// What the hall keeps of every board stays within its bounds.
fn assert_bounded(r: &mut Registry, boards: &[&str], now: u64) {
    for id in boards {
        if !r.has_board(id) {
            continue;
        }
        let held = r.held_seqs(id);
        assert!(held.len() <= MAX_GAME_EVENTS);
        let b = r.board_json(id, now).unwrap();
        // The missing seqs are told in bounded size.
        assert!(b["missing"].as_array().unwrap().len() <= 100);
        assert!(b["missing_ranges"].as_array().unwrap().len() <= 16);
        assert!(b["alerts"].as_array().unwrap().len() <= ALERTS_KEPT);
        let text = b.to_string();
        assert!(
            text.len() < 2_000_000,
            "{id}: a JSON of {} bytes",
            text.len()
        );
        // Out-of-order events: at most the window beyond the first missing.
        let in_order = held
            .iter()
            .enumerate()
            .take_while(|(i, s)| *i as u64 == **s)
            .count() as u64;
        let out_of_order = held.len() as u64 - in_order;
        assert!(
            out_of_order < SEQ_WINDOW,
            "{id}: {out_of_order} held out of order"
        );
    }
    assert!(r.faults().1.len() <= FAULTS_KEPT);
    assert!(r.due_replays(now).len() <= boards.len());
    let _ = r.hall_json(now);
    let _ = r.round_pgn(None);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        rng_seed: if std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1") {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x4a11_2026)
        },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A good board plays its game in order while a hostile one sends
    /// anything on its own topics, and junk arrives on the good board's
    /// topics too: no panic, bounded state, and the good board's view is
    /// its game.
    #[test]
    fn hostile_payloads_never_panic_nor_spoil_a_good_board(
        ops in proptest::collection::vec((any::<u8>(), payload(), any::<bool>()), 1..48),
    ) {
        let g = &*GOOD_GAME;
        let mut r = Registry::new(HALL);
        let mut now = NOW;
        let mut next_good = 0;
        for (i, (channel, payload, on_good)) in ops.iter().enumerate() {
            now += 7;
            // The hostile board: anything, on any of its topics.
            let bytes = bytes_of(payload, &g.events, 2);
            r.receive(&topic("evil", channel_of(*channel)), &bytes, now);
            // Junk the good board's topics cannot be spoiled by: refused.
            if *on_good && matches!(payload, Payload::Bytes(_) | Payload::Cut { .. } | Payload::Oversized) {
                let parsed = EventMessage::parse("t", &bytes);
                if parsed.is_err() {
                    r.receive(&topic("good", Channel::Events), &bytes, now);
                }
            }
            // The good board's next events.
            let share = g.events.len() * (i + 1) / ops.len();
            while next_good < share {
                r.receive(&topic("good", Channel::Events), &message(2, now - 3, &g.events[next_good]), now);
                next_good += 1;
            }
            assert_bounded(&mut r, &["evil", "good"], now);
        }
        let b = r.board_json("good", now).unwrap();
        prop_assert_eq!(&b["fen"], &json!(g.final_fen));
        prop_assert_eq!(&b["gap"], &json!(false));
        prop_assert_eq!(r.stats("good").unwrap().events, g.events.len() as u64);
    }

    /// Arbitrary topics and payloads: nothing panics.
    #[test]
    fn any_topic_and_payload_is_taken_or_refused(
        msgs in proptest::collection::vec((".{0,40}", proptest::collection::vec(any::<u8>(), 0..64)), 1..32),
    ) {
        let mut r = Registry::new(HALL);
        for (i, (t, p)) in msgs.iter().enumerate() {
            let t = if i % 2 == 0 { format!("touchmove/v1/{HALL}/{t}") } else { t.clone() };
            let got = r.receive(&t, p, NOW + i as u64);
            prop_assert!(got.fault.is_some() || got.changed.is_some() || got == Default::default());
        }
        let ids: Vec<String> = r.board_ids().iter().map(|s| s.to_string()).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        assert_bounded(&mut r, &ids, NOW + 100);
    }
}

static GOOD_GAME: std::sync::LazyLock<hall_support::Game> =
    std::sync::LazyLock::new(|| game(41, 10, "Ann", "Bob"));

// The MQTT cases: the real Mosquitto.

async fn start_hall(url: &str, client_id: &str) -> RunningHall {
    hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        client_id: Some(client_id.into()),
        ..HallOptions::new(url, HALL)
    })
    .await
    .unwrap()
}

/// Polls `check` every 20 ms until it holds; panics after `secs` s.
async fn until(what: &str, secs: u64, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `GET path`: the status and the JSON body.
async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap())
}

/// A raw client logged in as `user` with client id `id`, connected (its
/// CONNACK seen); its connection polled on a thread until dropped.
struct Raw {
    client: Client,
    acks: std::sync::mpsc::Receiver<u16>,
    closed: std::sync::mpsc::Receiver<()>,
}

fn raw(port: u16, id: &str, user: &str) -> Raw {
    let mut options = MqttOptions::new(id, "127.0.0.1", port);
    options.set_credentials(user, password(user));
    options.set_keep_alive(Duration::from_secs(5));
    options.set_max_packet_size(32 << 20, 32 << 20);
    options.set_clean_session(true);
    let (client, mut connection) = Client::new(options, 16);
    let (connected_tx, connected_rx) = std::sync::mpsc::channel();
    let (acks_tx, acks) = std::sync::mpsc::channel();
    let (closed_tx, closed) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(MqttEvent::Incoming(Packet::ConnAck(ack))) => {
                    let _ = connected_tx.send(ack.code);
                }
                Ok(MqttEvent::Incoming(Packet::PubAck(ack))) => {
                    let _ = acks_tx.send(ack.pkid);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let _ = closed_tx.send(());
    });
    let code = connected_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the raw client's CONNACK");
    assert_eq!(code, rumqttc::ConnectReturnCode::Success);
    Raw {
        client,
        acks,
        closed,
    }
}

impl Raw {
    /// Publishes `payload` at QoS 1 and waits for the broker's PUBACK.
    fn publish_acked(&self, topic: &str, payload: Vec<u8>) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .unwrap();
        self.acks
            .recv_timeout(Duration::from_secs(10))
            .expect("the broker acknowledged the message");
    }

    /// Publishes `payload` at QoS 1 and waits for the broker to close the
    /// connection.
    fn publish_refused(&self, topic: &str, payload: Vec<u8>) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .unwrap();
        self.closed
            .recv_timeout(Duration::from_secs(10))
            .expect("the broker closed the connection");
    }
}

fn users(boards: &[&str]) -> Vec<(String, String)> {
    let mut users: Vec<(String, String)> = boards
        .iter()
        .map(|b| (b.to_string(), password(b)))
        .collect();
    users.push(("hall".into(), HALL_PASSWORD.into()));
    users
}

fn example_broker(boards: &[&str]) -> ExampleBroker {
    let users = users(boards);
    let users: Vec<(&str, &str)> = users
        .iter()
        .map(|(u, p)| (u.as_str(), p.as_str()))
        .collect();
    ExampleBroker::start(&users)
}

// Finding 2: one oversized message must not wedge the hall.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_broker_drops_an_oversized_message_and_the_hall_plays_on() {
    let broker = example_broker(&["b1", "b2"]);
    let hall = start_hall(&broker.url(), "hall-a").await;
    until("the hall's connection", 10, || hall.shared.connected()).await;
    let g = game(51, 8, "Ann", "Bob");
    let b2 = FakeBoard::connect_to(broker.port(), HALL, "b2", 1, g.events.clone());
    b2.online();
    until("b2 online", 10, || {
        hall.registry().status_of("b2") == Some(Status::Online)
    })
    .await;
    // The hostile board on its own events topic: 600 KiB, acknowledged by
    // the broker (so it is not sent again) and never forwarded; 2 MiB, its
    // connection closed.
    let b1 = raw(broker.port(), "b1", "b1");
    b1.publish_acked(&topic("b1", Channel::Events), vec![b'{'; 600 << 10]);
    b1.publish_refused(&topic("b1", Channel::Events), vec![b'{'; 2 << 20]);
    for i in 0..g.events.len() {
        b2.event(i);
    }
    until("every event of b2", 20, || {
        hall.registry().held_seqs("b2").len() == g.events.len()
    })
    .await;
    let (status, health) = get(hall.addr, "/health").await;
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["link"]["reconnects"], 0, "{}", broker.log());
    assert_eq!(health["link"]["oversized_packets"], 0);
    assert!(!hall.registry().has_board("b1"));
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_without_limits_cannot_wedge_the_hall_with_an_oversized_message() {
    // The tests' own broker: no message size limit.
    let broker = hall_support::broker(&["b1", "b2"]);
    let hall = start_hall(&broker.url(), "hall-b").await;
    until("the hall's connection", 10, || hall.shared.connected()).await;
    let g = game(52, 8, "Ann", "Bob");
    let b2 = FakeBoard::connect(&broker, HALL, "b2", 1, g.events.clone());
    b2.online();
    until("b2 online", 10, || {
        hall.registry().status_of("b2") == Some(Status::Online)
    })
    .await;
    let b1 = raw(broker.port(), "b1-raw", "b1");

    // Over the hall's payload limit but readable: dropped and counted,
    // the connection kept.
    b1.publish_acked(&topic("b1", Channel::Events), vec![b'{'; 2 << 20]);
    until("the oversized payload counted", 10, || {
        hall.registry()
            .rejects_of("b1")
            .is_some_and(|r| r.to_json()["by_reason"]["oversized"] == 1)
    })
    .await;
    assert_eq!(hall.shared.link().reconnects, 0);

    // Over what the hall's client reads: the connection breaks on it and
    // the broker sends it again on every connect, until the hall discards
    // its session; then every board is heard again, and asked for what
    // the discarded session held.
    let half = g.events.len() / 2;
    for i in 0..half {
        b2.event(i);
    }
    until("b2's first half", 10, || {
        hall.registry().held_seqs("b2").len() == half
    })
    .await;
    b1.publish_acked(&topic("b1", Channel::Events), vec![b'{'; MAX_PACKET + 1]);
    for i in half..g.events.len() {
        b2.event(i);
    }
    until("the session discarded", 20, || {
        hall.shared.link().session_resets == 1
    })
    .await;
    let (status, health) = get(hall.addr, "/health").await;
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["status"], "degraded");
    assert!(health["link"]["oversized_packets"].as_u64().unwrap() >= 3);
    until("every event of b2", 20, || {
        hall.registry().held_seqs("b2").len() == g.events.len()
    })
    .await;
    // Once the connection has held, the hall is healthy again.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, health) = get(hall.addr, "/health").await;
        if status == 200 {
            assert_eq!(health["status"], "ok");
            assert_eq!(health["link"]["session_resets"], 1);
            break;
        }
        assert!(Instant::now() < deadline, "still degraded: {health}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    hall.stop().await.unwrap();
}

// Finding 3: a stolen client id.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stolen_client_id_evicts_neither_a_board_nor_the_hall() {
    let broker = example_broker(&["b1", "b2"]);
    let hall = start_hall(&broker.url(), "touchmove-hall-open-2026").await;
    until("the hall's connection", 10, || hall.shared.connected()).await;
    let g = game(53, 6, "Ann", "Bob");
    let b2 = FakeBoard::connect_to(broker.port(), HALL, "b2", 1, g.events.clone());
    b2.online();
    until("b2 online", 10, || {
        hall.registry().status_of("b2") == Some(Status::Online)
    })
    .await;

    // b1's password with b2's client id, then with the hall's.
    let thief = raw(broker.port(), "board-b2", "b1");
    b2.event(0);
    until("b2's first event", 10, || {
        hall.registry().held_seqs("b2").len() == 1
    })
    .await;
    drop(thief);
    let thief = raw(broker.port(), "touchmove-hall-open-2026", "b1");
    b2.event(1);
    until("b2's second event", 10, || {
        hall.registry().held_seqs("b2").len() == 2
    })
    .await;
    drop(thief);

    assert_eq!(
        hall.registry().status_of("b2"),
        Some(Status::Online),
        "{}",
        broker.log()
    );
    assert!(
        hall.registry()
            .alerts()
            .iter()
            .all(|a| a.kind() != "offline"),
        "a false offline alert: {}",
        broker.log()
    );
    assert_eq!(hall.shared.link().reconnects, 0, "{}", broker.log());
    assert!(hall.shared.connected());
    // The thief logged in as itself: it publishes as b1, nothing else.
    assert!(broker.log().contains("as b1 "), "{}", broker.log());
    hall.stop().await.unwrap();
}

/// The example configuration keeps the daemon's and the hall's documented
/// settings working: a board's default client id
/// (`touchmove-<hall>-<board>`) is not its username, and the broker takes
/// the username instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_and_the_hall_work_with_the_example_broker() {
    use touchmove_board::config::{Mqtt, Secret};
    use touchmove_board::daemon::game_loop::GameSource;
    use touchmove_board::daemon::{Options, start};
    let broker = example_broker(&["b1"]);
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some(HALL_PASSWORD.into()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap();
    until("the hall's connection", 10, || hall.shared.connected()).await;
    let (start_position, moves) = touchmove_synth::random_game(61, 10);
    let trace = touchmove_synth::synthesize(
        &start_position,
        &moves,
        &touchmove_synth::HandStyle::careful(),
        61,
    )
    .trace;
    let mut mqtt = Mqtt::new(broker.url().parse().unwrap(), HALL, "b1").unwrap();
    mqtt.password = Some(Secret(password("b1")));
    assert_eq!(mqtt.client_id, "touchmove-open-2026-b1");
    let daemon = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        speed: 50.0,
        mqtt: Some(mqtt),
        ..Options::new(GameSource::Trace(Box::new(trace)))
    })
    .await
    .unwrap();
    until("the board's game at the hall", 60, || {
        let r = hall.registry();
        r.status_of("b1") == Some(Status::Online)
            && r.board_json("b1", NOW)
                .is_some_and(|b| b["plies"] == moves.len() && b["gap"] == false)
    })
    .await;
    assert!(broker.log().contains("as b1 "), "{}", broker.log());
    daemon.stop().await.unwrap();
    until("the board offline", 10, || {
        hall.registry().status_of("b1") == Some(Status::Offline)
    })
    .await;
    hall.stop().await.unwrap();
}
