//! `mqtts://`: a board and the hall reach Mosquitto's TLS listener,
//! checking its certificate against the CA file they are given; a board
//! that cannot check it says so and keeps playing.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use touchmove_board::config::{Mqtt, Secret};
use touchmove_board::daemon::game_loop::GameSource;
use touchmove_board::daemon::{Options, start};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_core::trace::Trace;
use touchmove_hall::{self as hall, HallOptions};
use touchmove_synth::{self as synth, HandStyle};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto, TlsFiles};

const HALL: &str = "tls";

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (Debian package openssl)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA and a certificate for localhost signed by it.
fn certificates(dir: &Path) -> TlsFiles {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            "/CN=touchmove test CA",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
    );
    TlsFiles {
        ca: dir.join("ca.crt"),
        cert: dir.join("server.crt"),
        key: dir.join("server.key"),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mqtt-tls-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn trace() -> Trace {
    let (start, moves) = synth::random_game(91, 16);
    synth::synthesize(&start, &moves, &HandStyle::careful(), 91).trace
}

fn board_options(trace: Trace, mqtt: Mqtt) -> Options {
    Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        speed: 40.0,
        time_control: Some(parse_time_control("90+30").unwrap()),
        mqtt: Some(mqtt),
        ..Options::new(GameSource::Trace(Box::new(trace)))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_and_the_hall_talk_through_tls() {
    let dir = temp_dir("ok");
    let tls = certificates(&dir);
    let broker = Mosquitto::start_tls(
        &BrokerSetup {
            users: vec![
                ("hall".into(), "pw-hall".into()),
                ("b1".into(), "pw-b1".into()),
            ],
            acl: Some("systemd/mosquitto/touchmove.acl".into()),
        },
        &tls,
    )
    .unwrap();
    let url = broker.tls_url().unwrap();
    let hall = hall::start(HallOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        password: Some("pw-hall".into()),
        ca_file: Some(tls.ca.clone()),
        ..HallOptions::new(&url, HALL)
    })
    .await
    .unwrap();

    let trace = trace();
    let tc = parse_time_control("90+30").unwrap();
    let mut session = session_for(&trace, None, None, Some(tc), None, None).unwrap();
    let expected: Vec<String> = drive(&mut session, &trace, "t")
        .unwrap()
        .iter()
        .map(|e| e.to_json())
        .collect();
    let mut mqtt = Mqtt::new(url.parse().unwrap(), HALL, "b1").unwrap();
    mqtt.password = Some(Secret("pw-b1".into()));
    mqtt.ca_file = Some(tls.ca.clone());
    let board = start(board_options(trace, mqtt)).await.unwrap();

    let held = || -> Vec<String> {
        hall.registry()
            .events("b1")
            .iter()
            .map(|e| e.to_json())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while held() != expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(held(), expected, "every event crossed TLS to the hall");
    assert!(board.mqtt().unwrap().connected());
    board.stop().await.unwrap();
    hall.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_that_cannot_check_the_certificate_says_so_and_plays_on() {
    let dir = temp_dir("bad-ca");
    let tls = certificates(&dir);
    // Another CA: the broker's certificate is not signed by it.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let wrong = certificates(&other).ca;
    let broker = Mosquitto::start_tls(
        &BrokerSetup {
            users: vec![("b1".into(), "pw-b1".into())],
            acl: Some("systemd/mosquitto/touchmove.acl".into()),
        },
        &tls,
    )
    .unwrap();
    let mut mqtt = Mqtt::new(broker.tls_url().unwrap().parse().unwrap(), HALL, "b1").unwrap();
    mqtt.password = Some(Secret("pw-b1".into()));
    mqtt.ca_file = Some(wrong);
    let board = start(board_options(trace(), mqtt)).await.unwrap();
    // The game is played and published to the feed all the same.
    let deadline = Instant::now() + Duration::from_secs(30);
    while board
        .feed
        .subscribe(touchmove_board::outputs::feed::Resume::After { game: None, seq: 0 })
        .0
        .len()
        < 10
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        board
            .feed
            .subscribe(touchmove_board::outputs::feed::Resume::After { game: None, seq: 0 })
            .0
            .len()
            >= 10
    );
    assert!(
        !board.mqtt().unwrap().connected(),
        "no connection with an unchecked certificate"
    );
    // A CA file without a certificate is refused at start, by name.
    std::fs::write(dir.join("empty.pem"), "not a certificate\n").unwrap();
    let mut mqtt = Mqtt::new(broker.tls_url().unwrap().parse().unwrap(), HALL, "b1").unwrap();
    mqtt.ca_file = Some(dir.join("empty.pem"));
    let err = match start(board_options(trace(), mqtt)).await {
        Ok(_) => panic!("a CA file without a certificate is accepted"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("empty.pem"), "{err}");
    board.stop().await.unwrap();
}
