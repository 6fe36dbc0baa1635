//! End to end: real boards (the daemon replaying synthesized traces, with
//! its MQTT publisher) publish through the real Mosquitto with the example
//! ACL, and one hall holds, for every board, exactly the events
//! `touchmove replay --events` prints, and the round PGN has every game.
use std::time::{Duration, Instant};

use touchmove_board::config::{Mqtt, Secret};
use touchmove_board::daemon::game_loop::GameSource;
use touchmove_board::daemon::{Options, Running, start};
use touchmove_core::game::pgn::{Tags, read_all};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_core::trace::Trace;
use touchmove_hall::{self as hall, HallOptions};
use touchmove_synth::{self as synth, HandStyle};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto};

const HALL: &str = "club";
const TIME_CONTROL: &str = "90+30";
const BOARDS: [&str; 3] = ["b1", "b2", "b10"];

fn trace(seed: u64) -> Trace {
    let (start, moves) = synth::random_game(seed, 30);
    synth::synthesize(&start, &moves, &HandStyle::careful(), seed).trace
}

fn replay_lines(trace: &Trace) -> Vec<String> {
    let tc = parse_time_control(TIME_CONTROL).unwrap();
    let mut session = session_for(trace, None, None, Some(tc), None, None).unwrap();
    drive(&mut session, trace, "test")
        .unwrap()
        .iter()
        .map(|e| e.to_json())
        .collect()
}

async fn board(broker: &Mosquitto, id: &str, trace: Trace) -> Running {
    let mut mqtt = Mqtt::new(broker.url().parse().unwrap(), HALL, id).unwrap();
    mqtt.password = Some(Secret(format!("pw-{id}")));
    start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        speed: 60.0,
        time_control: Some(parse_time_control(TIME_CONTROL).unwrap()),
        tags: Tags {
            white: format!("White of {id}"),
            black: format!("Black of {id}"),
            round: "3".into(),
            ..Tags::default()
        },
        mqtt: Some(mqtt),
        ..Options::new(GameSource::Trace(Box::new(trace)))
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_of_every_board_reaches_the_hall() {
    let mut users = vec![("hall".to_owned(), "pw-hall".to_owned())];
    users.extend(BOARDS.iter().map(|b| (b.to_string(), format!("pw-{b}"))));
    let broker = Mosquitto::start(&BrokerSetup {
        users,
        acl: Some("systemd/mosquitto/touchmove.acl".into()),
    })
    .unwrap();
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some("pw-hall".into()),
        round: Some("3".into()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap();

    let traces: Vec<Trace> = (0..BOARDS.len()).map(|i| trace(40 + i as u64)).collect();
    let expected: Vec<Vec<String>> = traces.iter().map(replay_lines).collect();
    let mut boards = Vec::new();
    for (id, trace) in BOARDS.iter().zip(&traces) {
        boards.push(board(&broker, id, trace.clone()).await);
    }

    // The hall holds each board's events, in order, once.
    let deadline = Instant::now() + Duration::from_secs(60);
    let complete = |hall: &touchmove_hall::RunningHall| {
        BOARDS.iter().zip(&expected).all(|(id, lines)| {
            let held: Vec<String> = hall
                .registry()
                .events(id)
                .iter()
                .map(|e| e.to_json())
                .collect();
            held == *lines
        })
    };
    while !complete(&hall) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (id, lines) in BOARDS.iter().zip(&expected) {
        let held: Vec<String> = hall
            .registry()
            .events(id)
            .iter()
            .map(|e| e.to_json())
            .collect();
        assert_eq!(held.len(), lines.len(), "board {id}");
        assert_eq!(&held, lines, "board {id}");
        let stats = hall.registry().stats(id).unwrap();
        assert_eq!(stats.events, lines.len() as u64, "board {id}: {stats:?}");
    }
    let delivery = hall.registry().delivery();
    let total: usize = expected.iter().map(Vec::len).sum();
    assert_eq!(delivery.events, total as u64);
    assert!(delivery.latency_p99_ms.is_some());

    // The round PGN: every board's game, in board order, with its tags.
    let mut pgn = String::new();
    for _ in 0..100 {
        pgn = hall.registry().round_pgn(Some("3"));
        let games = read_all(pgn.as_bytes()).unwrap();
        let plies: Vec<usize> = games
            .iter()
            .map(|g| g.as_ref().map_or(0, |g| g.moves.len()))
            .collect();
        let want: Vec<usize> = BOARDS
            .iter()
            .map(|id| {
                hall.registry().board_json(id, 0).unwrap()["plies"]
                    .as_u64()
                    .unwrap_or(0) as usize
            })
            .collect();
        if games.len() == BOARDS.len() && plies == want && plies.iter().all(|p| *p > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let boards_in_order: Vec<&str> = pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \"")?.strip_suffix("\"]"))
        .collect();
    assert_eq!(boards_in_order, ["b1", "b2", "b10"], "{pgn}");
    assert!(pgn.contains("[White \"White of b10\"]"), "{pgn}");
    assert!(pgn.contains("[%clk "), "{pgn}");

    for b in boards {
        b.stop().await.unwrap();
    }
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_restarted_mid_game_loses_nothing_on_the_way_to_the_hall() {
    let users = vec![
        ("hall".to_owned(), "pw-hall".to_owned()),
        ("b1".to_owned(), "pw-b1".to_owned()),
    ];
    let mut broker = Mosquitto::start(&BrokerSetup {
        users,
        acl: Some("systemd/mosquitto/touchmove.acl".into()),
    })
    .unwrap();
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some("pw-hall".into()),
        ..HallOptions::new(&broker.url(), HALL)
    })
    .await
    .unwrap();
    let (start_pos, moves) = synth::random_game(77, 40);
    let trace = synth::synthesize(&start_pos, &moves, &HandStyle::careful(), 77).trace;
    let expected = replay_lines(&trace);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hall-boards-restart");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut mqtt = Mqtt::new(broker.url().parse().unwrap(), HALL, "b1").unwrap();
    mqtt.password = Some(Secret("pw-b1".into()));
    let board = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        speed: 20.0,
        time_control: Some(parse_time_control(TIME_CONTROL).unwrap()),
        journal: Some(dir.join("journal.sqlite")),
        mqtt: Some(mqtt),
        ..Options::new(GameSource::Trace(Box::new(trace)))
    })
    .await
    .unwrap();
    let held = |hall: &touchmove_hall::RunningHall| hall.registry().events("b1").len();

    // A quarter of the game in, the broker goes away for two seconds.
    let deadline = Instant::now() + Duration::from_secs(60);
    while held(&hall) < expected.len() / 4 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = held(&hall);
    assert!(before >= expected.len() / 4, "the game did not get going");
    broker.stop().unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let published_meanwhile = board
        .feed
        .subscribe(touchmove_board::outputs::feed::Resume::After { game: None, seq: 0 })
        .0
        .len();
    broker.resume().unwrap();

    let deadline = Instant::now() + Duration::from_secs(90);
    let lines = |hall: &touchmove_hall::RunningHall| -> Vec<String> {
        hall.registry()
            .events("b1")
            .iter()
            .map(|e| e.to_json())
            .collect()
    };
    while lines(&hall) != expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        published_meanwhile > before,
        "the board played on while the broker was down ({before} -> {published_meanwhile})"
    );
    assert_eq!(
        lines(&hall),
        expected,
        "the hall ends with every event, once, in order"
    );
    board.stop().await.unwrap();
    hall.stop().await.unwrap();
}
