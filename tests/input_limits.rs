//! Bad input meets a clear error that names what and where, never a
//! wrapped time, a panic or a forged record:
//!
//! - PGN tag values follow one rule (`crates/touchmove-core/src/game/tag_value.rs`) in the
//!   configuration, the control API (over real HTTP) and the command line,
//!   and the PGN writer escapes `"` and `\` (PGN Standard, section 7);
//! - trace times have a maximum, the command line's windows a range, and
//!   the pure core adds windows to times without wrapping;
//! - every trace error names its line; lines are bounded; echoed input is
//!   cut short;
//! - the configuration refuses the hall's login as a board id, and names
//!   the key of an address that is not this machine's.
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use shakmaty::Bitboard;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use touchmove_board::daemon::game_loop::GameSource;
use touchmove_board::daemon::{Options, start};
use touchmove_board::outputs::journal::{GameMeta, Journal};
use touchmove_core::events::EventKind;
use touchmove_core::game::pgn::{self, Tags, read_all};
use touchmove_core::game::{Game, Profile, Start, TagValue};
use touchmove_core::inference::InferenceConfig;
use touchmove_core::replay::parse_time_control;
use touchmove_core::scan::Scan;
use touchmove_core::session::{Session, SessionConfig};
use touchmove_core::trace::{self, LineError, MAX_LINE_BYTES, MAX_TIME_MS, TraceReader};

const TOKEN: &str = "test-token-0123456789";
const START: &str = "FFFF00000000FFFF";
const FORGED: &str = "Eve\"]\n[Result \"1-0\"]\n[X \"";

/// A folder of its own for each test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "touchmove-input-limits-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("board.toml"),
        "name = \"sim\"\nbackend = \"sim\"\nscan-rate-hz = 100\n\n[sim]\nseed = 1\n",
    )
    .unwrap();
    d
}

fn touchmove(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn config_error(d: &Path, text: &str) -> String {
    touchmove_board::config::parse(text, &d.join("touchmove.toml"))
        .map(|_| panic!("accepted: {text}"))
        .unwrap_err()
        .to_string()
}

// ---- PGN tag values -------------------------------------------------------

/// One HTTP/1.0 request on loopback: the status and the body.
async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_refuses_a_forged_tag_and_the_pgn_escapes_quotes_and_backslashes() {
    let running = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: Some(TOKEN.into()),
        speed: 20.0,
        time_control: Some(parse_time_control("90+30").unwrap()),
        ..Options::new(GameSource::Demo {
            seed: 11,
            faults: false,
        })
    })
    .await
    .unwrap();
    let addr = running.addr;

    // A name that would close its tag and open others is refused, naming
    // the field; nothing of it reaches the PGN.
    for (field, value) in [
        ("white", FORGED.to_owned()),
        ("black", "a\0b".to_owned()),
        ("white", "tab\there".to_owned()),
        ("black", "x".repeat(256)),
    ] {
        let body = serde_json::json!({ field: value }).to_string();
        let (status, text) = request(addr, "POST", "/api/new-game", &body).await;
        assert_eq!(status, 400, "{value:?}: {text}");
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["field"], field, "{text}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.starts_with(&format!("`{field}`: ")), "{error}");
        assert!(error.len() < 300, "the value is cut short: {error}");
    }
    let (_, pgn) = request(addr, "GET", "/game.pgn", "").await;
    assert!(!pgn.contains("Eve\\\"") && !pgn.contains("[X "), "{pgn}");

    // Quotes and backslashes are allowed, and escaped: the PGN reads back
    // the very names given.
    let white = r#"O'Neil "The Rook" \ Jr."#;
    let black = r#"C:\Players\"Bo""#;
    let body = serde_json::json!({ "white": white, "black": black }).to_string();
    let (status, text) = request(addr, "POST", "/api/new-game", &body).await;
    assert_eq!(status, 200, "{text}");
    let mut pgn = String::new();
    for _ in 0..200 {
        (_, pgn) = request(addr, "GET", "/game.pgn", "").await;
        if pgn.contains("The Rook") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        pgn.contains(r#"[White "O'Neil \"The Rook\" \\ Jr."]"#),
        "{pgn}"
    );
    assert!(pgn.contains(r#"[Black "C:\\Players\\\"Bo\""]"#), "{pgn}");
    let games = read_all(pgn.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    assert_eq!(game.tag("White"), Some(white));
    assert_eq!(game.tag("Black"), Some(black));
    assert_eq!(pgn.matches("[Result ").count(), 1, "{pgn}");
    running.stop().await.unwrap();
}

#[test]
fn the_configuration_applies_the_same_rule_to_game_tags() {
    let d = dir("game-tags");
    let base = "[board]\nprofile = \"board.toml\"\n[game]\n";
    for (key, value, says) in [
        (
            "white",
            r#""Eve\"]\n[Result \"1-0\"]""#,
            "control character '\\n'",
        ),
        ("black", r#""a\u0000b""#, "control character '\\0'"),
        ("event", r#""Open\tA""#, "control character '\\t'"),
        (
            "round",
            &format!("\"{}\"", "9".repeat(256)),
            "256 characters long",
        ),
    ] {
        let e = config_error(&d, &format!("{base}{key} = {value}\n"));
        assert!(
            e.contains(&format!("touchmove.toml: [game] {key}: ")) && e.contains(says),
            "{key} = {value}: {e}"
        );
        assert!(e.len() < 300, "{e}");
    }
    let c = touchmove_board::config::parse(
        &format!(
            "{base}white = 'O\"Neil \\ Jr.'\nsite = \"{}\"\n",
            "é".repeat(255)
        ),
        &d.join("touchmove.toml"),
    )
    .unwrap();
    assert_eq!(c.game.white, "O\"Neil \\ Jr.");
}

#[test]
fn the_hall_round_follows_the_rule_on_the_command_line() {
    use clap::Parser as _;
    let parse = |round: &str| {
        touchmove::cli::Cli::try_parse_from([
            "touchmove",
            "hall",
            "--broker",
            "mqtt://127.0.0.1",
            "--hall",
            "h",
            "--round",
            round,
        ])
    };
    let err = parse("1\n[X \"y").unwrap_err().to_string();
    assert!(
        err.contains("--round") && err.contains("control character"),
        "{err}"
    );
    assert!(parse("5.1").is_ok());
}

/// The writer keeps a value that reached the record some other way (a
/// journal written before the rule) inside its tag.
#[test]
fn a_value_from_an_older_record_cannot_break_out_of_its_tag() {
    let tags = Tags {
        white: FORGED.into(),
        black: "back\\slash\0".into(),
        ..Tags::default()
    };
    let text = pgn::write(&Game::new(Start::standard(), Profile::FideStandard), &tags);
    assert_eq!(
        text.lines().filter(|l| l.starts_with('[')).count(),
        7,
        "{text}"
    );
    let games = read_all(text.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    assert_eq!(game.tag("White"), Some(TagValue::lossy(FORGED).as_str()));
    assert_eq!(game.tag("Black"), Some("back\\slash "));
    assert_eq!(game.tag("Result"), Some("*"));
    assert_eq!(game.tag("X"), None);

    // The same older record in a journal: listed on one row, exported as
    // one tag.
    let d = dir("old-journal");
    let db = d.join("journal.sqlite3");
    let mut journal = Journal::open(&db).unwrap();
    let mut meta = GameMeta::new(
        "2026-01-01T10:00:00Z",
        Start::standard(),
        Profile::FideStandard,
    );
    meta.white = FORGED.into();
    journal.begin_game(&meta).unwrap();
    drop(journal);
    let db = db.to_str().unwrap();
    let out = touchmove(&["journal", "--db", db, "list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = String::from_utf8(out.stdout).unwrap();
    assert_eq!(list.lines().count(), 2, "a header and one row: {list}");
    let out = touchmove(&["journal", "--db", db, "export", "--pgn", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with('[')).count(),
        7,
        "{text}"
    );
    let games = read_all(text.as_bytes()).unwrap();
    let game = games[0].as_ref().unwrap();
    assert_eq!(game.tag("White"), Some(TagValue::lossy(FORGED).as_str()));
    assert_eq!((game.tag("Result"), game.tag("X")), (Some("*"), None));
}

// ---- Time -----------------------------------------------------------------

#[test]
fn a_trace_time_beyond_the_maximum_is_an_error_naming_the_line() {
    // Within the settle window of 2^64 - 1: the move came out at t_ms 149.
    let text = format!(
        "0 {START}\n18446744073709551500 FFFF00000000EFFF\n18446744073709551600 FFFF00001000EFFF\n"
    );
    let e = trace::parse(&text, "wrap.trace").unwrap_err();
    assert_eq!(e.line(), Some(2), "{e}");
    assert!(
        matches!(e.problem(), Some(LineError::TimeTooLarge(_))),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("wrap.trace:2: expected a time of at most 9007199254740991"),
        "{e}"
    );
    // The maximum itself is a time.
    let at_max = format!("0 {START}\n{MAX_TIME_MS} {START}\n");
    assert_eq!(
        trace::parse(&at_max, "t").unwrap().records[1].t,
        MAX_TIME_MS
    );
    let past = format!("0 {START}\n{} {START}\n", MAX_TIME_MS + 1);
    assert_eq!(trace::parse(&past, "t").unwrap_err().line(), Some(2));
}

#[test]
fn command_line_windows_have_a_range() {
    let d = dir("windows");
    let path = d.join("e4.trace");
    std::fs::write(
        &path,
        format!("0 {START}\n1200 FFFF00000000EFFF\n1650 FFFF00001000EFFF\n"),
    )
    .unwrap();
    let path = path.to_str().unwrap();
    for option in ["--settle-ms", "--nudge-ms"] {
        let out = touchmove(&["replay", path, option, "18446744073709551615"]);
        assert!(!out.status.success(), "{option}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(option)
                && err.contains("18446744073709551615")
                && err.contains("0..=60000"),
            "{err}"
        );
    }
    let out = touchmove(&["replay", path, "--settle-ms", "60000"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = String::from_utf8(out.stdout).unwrap();
    let e4 = events
        .lines()
        .find(|l| l.contains("\"san\":\"e4\""))
        .expect(&events);
    let t = serde_json::from_str::<serde_json::Value>(e4).unwrap()["t_ms"]
        .as_u64()
        .unwrap();
    assert!(
        (61_650..62_000).contains(&t),
        "the move settles a minute after: {e4}"
    );
}

/// The core's windows added to times near 2^64 saturate: no panic (a
/// debug build checks overflow), no time that wraps to the past.
#[test]
fn the_core_takes_extreme_times_and_windows_without_wrapping() {
    let edge = u64::MAX - 1_000;
    for settle_ms in [150, u64::MAX / 2, u64::MAX] {
        let config = SessionConfig {
            inference: InferenceConfig {
                settle_ms,
                promotion_wait_ms: u64::MAX,
                nudge_ms: u64::MAX,
                ..InferenceConfig::default()
            },
            ..SessionConfig::default()
        };
        let mut session = Session::new(config, None);
        let mut events = Vec::new();
        let occ = |bits: u64| Scan::Occupancy(Bitboard(bits));
        for (t, bits) in [
            (edge, 0xFFFF00000000FFFF),
            (edge + 300, 0xFFFF00000000EFFF),
            (edge + 700, 0xFFFF00001000EFFF),
            (u64::MAX - 1, 0xFFFF00001000EFFF),
        ] {
            session.scan(t, &occ(bits), &mut events).unwrap();
        }
        session.advance(u64::MAX, &mut events);
        while let Some(deadline) = session.next_deadline() {
            if deadline > u64::MAX - 1 || events.len() > 10_000 {
                break;
            }
            session.advance(deadline, &mut events);
        }
        session.advance(u64::MAX, &mut events);
        assert!(
            events.iter().all(|e| e.t_ms >= edge),
            "settle {settle_ms}: a time wrapped: {:?}",
            events.iter().map(|e| e.t_ms).collect::<Vec<_>>()
        );
        let moved = events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Move { .. }));
        assert!(moved || settle_ms > 1_000, "settle {settle_ms}: {events:?}");
    }
}

// ---- Lines ----------------------------------------------------------------

#[test]
fn header_errors_name_their_line() {
    let illegal = "# touchmove-trace v1\n#! board: sim\n#! start-fen: 8/8/8/8/8/8/8/8 w - - 0 1\n0 0000000000000000\n";
    // The reader takes any FEN (a recorder may name any position); the
    // session's start is checked with the header's line.
    let numbered = trace::parse_numbered(illegal, "h.trace").unwrap();
    let e = numbered
        .check_session_header("h.trace", false, false)
        .unwrap_err();
    assert_eq!(e.line(), Some(3), "{e}");
    assert!(
        e.to_string()
            .starts_with("h.trace:3: expected a legal starting position"),
        "{e}"
    );
    assert!(
        numbered
            .check_session_header("h.trace", true, false)
            .is_ok()
    );

    let profile = "# touchmove-trace v1\n\n#! profile: fide-bullet\n0 FFFF00000000FFFF\n";
    let numbered = trace::parse_numbered(profile, "p.trace").unwrap();
    let e = numbered
        .check_session_header("p.trace", false, false)
        .unwrap_err();
    assert_eq!(e.line(), Some(3), "{e}");
    assert!(
        e.to_string().contains("expected a rules profile")
            && e.to_string().contains("\"fide-bullet\""),
        "{e}"
    );
    assert!(
        numbered
            .check_session_header("p.trace", false, true)
            .is_ok()
    );

    // The same through `replay`: the file and the line, nothing on stdout.
    let d = dir("headers");
    for (name, text, line) in [("illegal.trace", illegal, 3), ("profile.trace", profile, 3)] {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        let out = touchmove(&["replay", path.to_str().unwrap()]);
        assert!(!out.status.success());
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{name}:{line}: ")), "{err}");
    }
}

#[test]
fn an_analog_record_error_names_its_line_not_its_index() {
    let levels = vec!["0"; 64].join(",");
    let d = dir("analog");
    let path = d.join("hall.trace");
    std::fs::write(
        &path,
        format!("# touchmove-trace v1\n#! board: sim-hall\n\n0 hall {levels}\n"),
    )
    .unwrap();
    // No --calibration: the scan cannot be read.
    let out = touchmove(&["replay", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hall.trace:4: ") && err.contains("calibration"),
        "{err}"
    );
    assert!(!err.contains("record 1"), "{err}");
}

#[test]
fn a_line_longer_than_the_limit_is_an_error_without_buffering_it() {
    // An input that fails the test once read past twice the limit: a
    // reader that buffers a whole line would get there.
    struct Counted(u64);
    impl std::io::Read for Counted {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 > 2 * MAX_LINE_BYTES as u64 {
                return Err(std::io::Error::other("read on past the line limit"));
            }
            buf.fill(b'0');
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
    }
    let e = TraceReader::new(std::io::BufReader::new(Counted(0)), "zero.trace")
        .err()
        .expect("an endless line is an error");
    assert_eq!(e.line(), Some(1), "{e}");
    assert_eq!(e.problem(), Some(&LineError::LineTooLong), "{e}");
    assert!(
        e.to_string()
            .starts_with("zero.trace:1: expected a line of at most 65536 bytes"),
        "{e}"
    );

    // A line of exactly the limit, line ending included, is read.
    let comment = format!("#{}\n", "c".repeat(MAX_LINE_BYTES - 2));
    assert_eq!(comment.len(), MAX_LINE_BYTES);
    let text = format!("{comment}0 {START}\n");
    assert_eq!(trace::parse(&text, "t").unwrap().records.len(), 1);
    let text = format!("#{comment}0 {START}\n");
    assert_eq!(trace::parse(&text, "t").unwrap_err().line(), Some(1));
}

#[cfg(unix)]
#[test]
fn replay_of_dev_zero_stops_at_the_first_line() {
    let out = touchmove(&["replay", "/dev/zero"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/dev/zero:1: expected a line of at most"),
        "{err}"
    );
}

#[test]
fn a_huge_token_is_echoed_cut_short() {
    let token = "7".repeat(1_000);
    let hex = "A".repeat(5_000);
    let kind = "k".repeat(10_000);
    for (text, line) in [
        (format!("{token}0 {START}\n"), 1),
        (format!("0 {START}\n1 {hex}\n"), 2),
        (format!("0 {START}\n\n1 {kind}\n"), 3),
        (format!("0 {START}\n1 clock {kind}\n"), 2),
        (format!("#! {kind}: x\n"), 1),
    ] {
        let e = trace::parse(&text, "big.trace").unwrap_err();
        let message = e.to_string();
        assert_eq!(e.line(), Some(line), "{message}");
        assert!(
            message.len() < 250 && message.contains("characters)"),
            "{message}"
        );
    }
    // Configuration errors too.
    let d = dir("echo");
    let e = config_error(
        &d,
        &format!("[board]\nprofile = \"board.toml\"\n[journal]\non-start = \"{kind}\"\n"),
    );
    assert!(e.contains("[journal] on-start") && e.len() < 250, "{e}");
    let e = config_error(
        &d,
        &format!("[board]\nprofile = \"board.toml\"\n[rules]\ntime-control = \"{kind}\"\n"),
    );
    assert!(e.contains("[rules] time-control") && e.len() < 400, "{e}");
    let e = config_error(
        &d,
        &format!("[board]\nprofile = \"board.toml\"\n[journal]\nmax-missed-plies = \"{kind}\"\n"),
    );
    assert!(e.contains("max-missed-plies") && e.len() < 500, "{e}");
}

// ---- Configuration --------------------------------------------------------

#[test]
fn the_hall_login_is_no_board_id() {
    let d = dir("mqtt");
    let base = "[board]\nprofile = \"board.toml\"\n[mqtt]\nbroker = \"mqtt://127.0.0.1\"\nhall = \"open-2026\"\n";
    let e = config_error(&d, &format!("{base}board = \"hall\"\n"));
    assert!(
        e.contains("[mqtt] board: ") && e.contains("hall's broker login"),
        "{e}"
    );
    let e = config_error(&d, &format!("{base}board = \"b1\"\nusername = \"hall\"\n"));
    assert!(
        e.contains("[mqtt] username: ") && e.contains("hall's broker login"),
        "{e}"
    );
    // A hall may be called `hall`.
    let c = touchmove_board::config::parse(
        "[board]\nprofile = \"board.toml\"\n[mqtt]\nbroker = \"mqtt://h\"\nhall = \"hall\"\nboard = \"b1\"\n",
        &d.join("touchmove.toml"),
    )
    .unwrap();
    assert_eq!(c.mqtt.unwrap().hall, "hall");
    // The settings the command line's `--board` makes are checked the same way.
    let broker = "mqtt://127.0.0.1".parse().unwrap();
    let e = touchmove_board::config::Mqtt::new(broker, "h", "hall").unwrap_err();
    assert!(
        e.starts_with("board: ") && e.contains("hall's broker login"),
        "{e}"
    );
}

#[test]
fn a_bad_bind_names_the_key_and_the_value() {
    let d = dir("bind");
    let base = "[board]\nprofile = \"board.toml\"\n[http]\n";
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the daemon
    // could not listen there.
    for (value, says) in [
        ("\"192.0.2.1:8080\"", "\"192.0.2.1:8080\""),
        ("\"localhost\"", "\"localhost\""),
        ("8080", "bind = 8080"),
    ] {
        let e = config_error(&d, &format!("{base}bind = {value}\n"));
        assert!(e.contains(says), "{value}: {e}");
        assert!(
            e.contains("[http] bind") || e.contains("bind = "),
            "{value}: {e}"
        );
    }
    let e = config_error(&d, &format!("{base}bind = \"192.0.2.1:8080\"\n"));
    assert!(e.contains("[http] bind: \"192.0.2.1:8080\""), "{e}");
    assert!(e.contains("not an address of this machine"), "{e}");
}
