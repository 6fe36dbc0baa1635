//! A real board with the chess clock's buttons: the `[clock]` table of a
//! board profile, and a board session fed the way the daemon's scan loop
//! feeds it (buttons, then the scan, every tick) by a fake scanner and fake
//! buttons. Article 6.7 (the press completes the move), 7.5.3 of 2023 (a
//! press without a move) and 6.13 (the arbiter stops the clocks).
mod support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::Color::{Black, White};
use shakmaty::{Bitboard, Square};
use touchmove_board::daemon::board_input::BoardInput;
use touchmove_board::daemon::game_loop::{GameSource, board_session_config};
use touchmove_board::daemon::{Options, start};
use touchmove_board::outputs::feed::Resume;
use touchmove_core::Millis;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind, Side};
use touchmove_core::game::pgn::{self, Tags};
use touchmove_core::game::{Profile, Start};
use touchmove_core::inference::Completion;
use touchmove_core::session::Session;
use touchmove_hw::clock_buttons::{ClockButtons, FakeButtons};
use touchmove_hw::profile::{self, BoardProfile};
use touchmove_hw::{Scan, Scanner, SensorError};

// ------------------------------------------------------------- profiles

const MATRIX: &str = r#"
name = "clocked"
backend = "gpio-matrix"
scan-rate-hz = 100
settle-us = 20
orientation = "identity"
[gpio-matrix]
rows = [4, 17, 27, 22, 5, 6, 13, 19]
columns = [26, 18, 23, 24, 25, 12, 16, 20]
diodes = true
"#;

fn parse(text: &str) -> Result<BoardProfile, String> {
    profile::parse(text, Path::new("hw/clocked.toml")).map_err(|e| e.to_string())
}

fn problems(text: &str) -> String {
    let message = parse(text).expect_err("refused");
    assert!(message.starts_with("hw/clocked.toml: "), "{message}");
    message
}

#[test]
fn a_clock_table_gives_the_pins_with_defaults() {
    let board = parse(&format!("{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\n")).unwrap();
    let clock = board.clock.expect("[clock] read");
    assert_eq!((clock.white_pin, clock.black_pin), (21, 7));
    assert!(clock.active_low, "buttons to ground by default");
    assert_eq!(clock.debounce_ms, 20);
    assert_eq!(clock.pin(Black), 7);

    let board = parse(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\nactive-low = false\ndebounce-ms = 0\n"
    ))
    .unwrap();
    let clock = board.clock.unwrap();
    assert!(!clock.active_low);
    assert_eq!(clock.debounce_ms, 0);

    assert_eq!(parse(MATRIX).unwrap().clock, None, "no table, no buttons");
}

#[test]
fn clock_pins_off_the_header_or_twice_are_refused_naming_the_key() {
    let message = problems(&format!("{MATRIX}[clock]\nwhite-pin = 28\nblack-pin = 7\n"));
    assert!(
        message.contains("clock.white-pin: BCM 28 is not a GPIO of the 40-pin header"),
        "{message}"
    );
    let message = problems(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = -1\n"
    ));
    assert!(message.contains("clock.black-pin: BCM -1"), "{message}");
    let message = problems(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 21\n"
    ));
    assert!(
        message
            .contains("clock.black-pin: BCM 21 (header pin 40) is already used by clock.white-pin"),
        "{message}"
    );
    let message = problems(&format!("{MATRIX}[clock]\nwhite-pin = 1\nblack-pin = 7\n"));
    assert!(
        message.contains("clock.white-pin: BCM 1 (header pin 28) is reserved"),
        "{message}"
    );
}

#[test]
fn clock_pins_may_not_take_the_backends_pins_or_bus() {
    let message = problems(&format!("{MATRIX}[clock]\nwhite-pin = 4\nblack-pin = 20\n"));
    assert!(
        message.contains(
            "clock.white-pin: BCM 4 (header pin 7) is already used by gpio-matrix.rows[0]"
        ),
        "{message}"
    );
    assert!(
        message.contains(
            "clock.black-pin: BCM 20 (header pin 38) is already used by gpio-matrix.columns[7]"
        ),
        "both problems at once: {message}"
    );
    let spi = std::fs::read_to_string("hw/shift-register-spi.toml").unwrap();
    let message = problems(&format!("{spi}\n[clock]\nwhite-pin = 10\nblack-pin = 6\n"));
    assert!(
        message.contains("clock.white-pin: BCM 10 (header pin 19) is already used by shift-register.spi (SPI0 MOSI)"),
        "{message}"
    );
}

#[test]
fn a_bad_debounce_time_or_an_unknown_key_is_refused() {
    let message = problems(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\ndebounce-ms = 500\n"
    ));
    assert!(
        message.contains("clock.debounce-ms: 500 ms is outside 0 to 200 ms"),
        "{message}"
    );
    let message = problems(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\ndebounce-ms = -3\n"
    ));
    assert!(message.contains("clock.debounce-ms"), "{message}");
    let message = problems(&format!(
        "{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\nlever = 3\n"
    ));
    assert!(message.contains("lever"), "{message}");
    let message = problems(&format!("{MATRIX}[clock]\nwhite-pin = 21\n"));
    assert!(message.contains("black-pin"), "{message}");
}

/// Every stock hardware profile suggests two free pins: its `[clock]`
/// block, uncommented, is valid.
#[test]
fn the_stock_profiles_suggest_free_clock_pins() {
    let mut suggested = 0;
    for entry in std::fs::read_dir("hw").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(at) = text.find("# [clock]") else {
            continue;
        };
        let uncommented: String = text[at..]
            .lines()
            .map(|l| l.strip_prefix("# ").unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n");
        let full = format!("{}{uncommented}\n", &text[..at]);
        let board = profile::parse(&full, &path)
            .unwrap_or_else(|e| panic!("{}: the suggested [clock]: {e}", path.display()));
        assert!(board.clock.is_some(), "{}", path.display());
        // As shipped, the table is commented out: moves complete as before.
        assert_eq!(profile::load(&path).unwrap().clock, None);
        suggested += 1;
    }
    assert_eq!(suggested, 6, "every hardware profile");
}

#[test]
fn off_a_pi_clock_buttons_fail_to_open_with_one_sentence() {
    let model = std::fs::read_to_string("/proc/device-tree/model").unwrap_or_default();
    assert!(
        !model.contains("Raspberry Pi"),
        "this test expects a machine without the Pi's hardware"
    );
    let sim = "name = \"sim\"\nbackend = \"sim\"\nscan-rate-hz = 100\n[sim]\nseed = 1\n";
    let board = parse(&format!("{sim}[clock]\nwhite-pin = 5\nblack-pin = 6\n")).unwrap();
    let error = profile::open_clock_buttons(&board).expect_err("no GPIO here");
    assert!(matches!(error, SensorError::Unavailable(_)), "{error:?}");
    let message = error.to_string();
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.contains("\"sim\"") && message.contains("[clock]"),
        "{message}"
    );
    assert!(message.contains("not a Raspberry Pi"), "{message}");
    assert!(
        profile::open_clock_buttons(&parse(sim).unwrap())
            .unwrap()
            .is_none()
    );
}

// ------------------------------------------------------------- sessions

/// A board whose occupancy the test sets.
#[derive(Clone)]
struct Board(Arc<Mutex<Bitboard>>);

impl Board {
    fn start() -> Board {
        Board(Arc::new(Mutex::new(
            shakmaty::Position::board(Start::standard().position()).occupied(),
        )))
    }

    fn lift(&self, square: &str) {
        let sq: Square = square.parse().unwrap();
        let mut bb = self.0.lock().unwrap();
        assert!(bb.contains(sq), "{square} is empty");
        bb.discard(sq);
    }

    fn place(&self, square: &str) {
        let sq: Square = square.parse().unwrap();
        self.0.lock().unwrap().add(sq);
    }
}

impl Scanner for Board {
    fn describe(&self) -> String {
        "a test board".into()
    }
    fn scan(&mut self, _now: Millis) -> Result<Scan, SensorError> {
        Ok(Scan::Occupancy(*self.0.lock().unwrap()))
    }
}

const TICK: Millis = 10;

/// A board session run as the scan loop runs it, one tick every 10 ms.
struct Rig {
    board: Board,
    buttons: FakeButtons,
    input: BoardInput,
    session: Session,
    t: Millis,
    events: Vec<Event>,
}

fn clocked_profile() -> BoardProfile {
    parse(&format!("{MATRIX}[clock]\nwhite-pin = 21\nblack-pin = 7\n")).unwrap()
}

impl Rig {
    fn new(profile: Profile, stop_clocks_on_alert: bool) -> Rig {
        let config = board_session_config(
            &clocked_profile(),
            Some(profile),
            Some(TimeControl::parse_human("10+0").unwrap()),
            stop_clocks_on_alert,
            Start::standard(),
        );
        let board = Board::start();
        let buttons = FakeButtons::new();
        let input = BoardInput::new(
            Box::new(board.clone()),
            Some(ClockButtons::new(buttons.pins(), 20, "test buttons".into())),
        );
        let mut rig = Rig {
            board,
            buttons,
            input,
            session: Session::new(config, None),
            t: 0,
            events: Vec::new(),
        };
        rig.run(1_000);
        assert!(
            rig.started_at().is_some(),
            "the start position starts a game"
        );
        rig
    }

    fn run(&mut self, ms: Millis) -> &mut Rig {
        let end = self.t + ms;
        while self.t < end {
            self.input
                .tick(&mut self.session, self.t, &mut self.events)
                .unwrap();
            self.t += TICK;
        }
        self
    }

    /// A hand carries a piece: lifted, 300 ms in the air, put down, then
    /// the hand leaves the board for 700 ms.
    fn carry(&mut self, from: &str, to: &str) -> &mut Rig {
        self.board.lift(from);
        self.run(300);
        self.board.place(to);
        self.run(700)
    }

    /// `side` presses his button for 150 ms; the time the press began.
    fn press(&mut self, side: shakmaty::Color) -> Millis {
        let at = self.t;
        self.buttons.set(side, true);
        self.run(150);
        self.buttons.set(side, false);
        self.run(100);
        at
    }

    fn started_at(&self) -> Option<Millis> {
        self.events.iter().find_map(|e| match e.kind {
            EventKind::GameStarted { .. } => Some(e.t_ms),
            _ => None,
        })
    }

    /// The clock events: (t, white, black, running, reason).
    fn clocks(&self) -> Vec<(Millis, Millis, Millis, Option<Side>, String)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Clock {
                    white_ms,
                    black_ms,
                    running,
                    reason,
                } => Some((
                    e.t_ms,
                    *white_ms,
                    *black_ms,
                    *running,
                    reason.clone().unwrap_or_default(),
                )),
                _ => None,
            })
            .collect()
    }

    fn completed(&self) -> Vec<usize> {
        support::completed_plies(&self.events)
    }
}

#[test]
fn a_board_without_buttons_keeps_no_clock_and_completes_on_settling() {
    let config = board_session_config(
        &parse(MATRIX).unwrap(),
        Some(Profile::FideStandard),
        Some(TimeControl::parse_human("90+30").unwrap()),
        true,
        Start::standard(),
    );
    assert_eq!(config.inference.completion, Completion::Settle);
    assert!(config.time_control.is_none(), "the time control: tags only");

    let config = board_session_config(
        &clocked_profile(),
        Some(Profile::FideStandard),
        Some(TimeControl::parse_human("90+30").unwrap()),
        true,
        Start::standard(),
    );
    assert_eq!(config.inference.completion, Completion::ClockPress);
    assert!(config.time_control.is_some());
    assert!(config.stop_clocks_on_alert);
}

#[test]
fn the_move_is_complete_when_its_player_presses_and_the_clock_shows_his_time() {
    let mut rig = Rig::new(Profile::FideStandard, false);
    let start = rig.started_at().unwrap();
    rig.carry("e2", "e4");
    assert!(
        rig.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Move { san, .. } if san == "e4")),
        "the move is made on the board"
    );
    assert!(
        rig.completed().is_empty(),
        "not complete before the press (6.7)"
    );

    let pressed = rig.press(White);
    assert_eq!(rig.completed(), [1]);
    let clocks = rig.clocks();
    let (t, white, black, running, reason) = clocks.last().unwrap().clone();
    assert_eq!(reason, "press");
    // Confirmed 20 ms after the button closed; dated when it closed, but
    // not before the last tick the session has already seen.
    assert_eq!(
        t,
        pressed + 20 - TICK,
        "dated (almost) when the button closed"
    );
    assert_eq!(white, 600_000 - (t - start), "White's thinking time");
    assert_eq!(black, 600_000);
    assert_eq!(running, Some(Side::Black));
    assert_eq!(rig.session.game().moves()[0].clock_ms, Some(white));

    // Black replies and presses; holding the button does not press twice.
    rig.carry("e7", "e5");
    rig.at_press_held(Black, 2_000);
    assert_eq!(rig.completed(), [1, 2]);
    let (black_t, white_now, black_now, running, _) = rig.clocks().last().unwrap().clone();
    assert_eq!(black_now, 600_000 - (black_t - t), "Black's thinking time");
    assert_eq!(white_now, white);
    assert_eq!(running, Some(Side::White));
    assert_eq!(
        rig.clocks().iter().filter(|c| c.4 == "press").count(),
        2,
        "one clock event per press"
    );

    let pgn = pgn::write(rig.session.game(), &Tags::default());
    assert!(pgn.contains("1. e4 {[%clk 0:09:"), "{pgn}");
    assert!(pgn.contains("1... e5 {[%clk 0:09:"), "{pgn}");
}

impl Rig {
    /// `side` presses and holds his button `ms`.
    fn at_press_held(&mut self, side: shakmaty::Color, ms: Millis) {
        self.buttons.set(side, true);
        self.run(ms);
        self.buttons.set(side, false);
        self.run(100);
    }
}

#[test]
fn a_press_without_a_move_reaches_the_session_as_an_illegal_move_in_2023() {
    let mut rig = Rig::new(Profile::FideStandard, false);
    rig.run(2_000);
    rig.press(White);
    let illegal = rig.events.iter().find_map(|e| match &e.kind {
        EventKind::IllegalMove {
            side,
            completed,
            article,
            ..
        } => Some((*side, *completed, article.clone())),
        _ => None,
    });
    assert_eq!(illegal, Some((Side::White, true, Some("7.5".into()))));
    assert!(rig.completed().is_empty());

    // The Laws of 2005 had no such rule: the press is ignored.
    let mut rig = Rig::new(Profile::Fide2005, false);
    rig.run(2_000);
    rig.press(White);
    assert!(
        !rig.events
            .iter()
            .any(|e| matches!(e.kind, EventKind::IllegalMove { .. }))
    );
}

/// Black's pawn a7 knocked off during White's turn and put back 4 s later.
fn displaced_pawn(stop_clocks_on_alert: bool) -> Rig {
    let mut rig = Rig::new(Profile::FideStandard, stop_clocks_on_alert);
    rig.run(1_000);
    rig.board.lift("a7");
    rig.run(4_000);
    rig.board.place("a7");
    rig.run(1_000);
    rig.carry("e2", "e4");
    rig.press(White);
    rig
}

#[test]
fn with_stop_clocks_on_alert_the_clock_pauses_on_a_displaced_piece() {
    let rig = displaced_pawn(true);
    let reasons: Vec<String> = rig.clocks().into_iter().map(|c| c.4).collect();
    assert_eq!(reasons, ["start", "pause", "resume", "press"]);
    let clocks = rig.clocks();
    let stood = clocks[2].0 - clocks[1].0;
    assert!(
        (2_000..=4_000).contains(&stood),
        "the clocks stood while a7 was off: {stood} ms"
    );
    let (pressed, white, ..) = clocks[3];
    let start = rig.started_at().unwrap();
    assert_eq!(white, 600_000 - (pressed - start - stood));

    let rig = displaced_pawn(false);
    let reasons: Vec<String> = rig.clocks().into_iter().map(|c| c.4).collect();
    assert_eq!(reasons, ["start", "press"], "by default the clocks run on");
    let (pressed, white, ..) = rig.clocks()[1];
    assert_eq!(white, 600_000 - (pressed - rig.started_at().unwrap()));
}

#[test]
fn buttons_that_cannot_be_read_never_stop_the_scanning() {
    let mut rig = Rig::new(Profile::FideStandard, false);
    rig.buttons.fail("GPIO read failed");
    let reads = rig.buttons.reads();
    rig.carry("e2", "e4");
    rig.press(White);
    assert!(rig.buttons.reads() > reads + 100, "still polled every tick");
    assert!(
        rig.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Move { san, .. } if san == "e4")),
        "the board is still read"
    );
    assert!(rig.completed().is_empty(), "the press did not come through");
    rig.buttons.repair();
    rig.press(White);
    assert_eq!(rig.completed(), [1]);
}

#[test]
fn run_takes_the_stop_clocks_on_alert_flag() {
    use clap::Parser as _;
    use touchmove::cli::{Cli, Command};
    let flag = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
        Command::Run(run) => run.stop_clocks_on_alert,
        other => panic!("{other:?}"),
    };
    assert!(flag(&["touchmove", "run", "--stop-clocks-on-alert"]));
    assert!(!flag(&["touchmove", "run", "--demo"]));
}

/// `touchmove run --stop-clocks-on-alert` with a trace: the flag reaches
/// the session the scan loop runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_passes_stop_clocks_on_alert_to_its_session() {
    let mut hands = support::Hands::new(None, "fide-standard");
    hands
        .wait(1_000)
        .lift("a7")
        .wait(4_000)
        .place("a7")
        .wait(1_000)
        .carry("e2", "e4")
        .clock(White)
        .wait(500);
    let running = start(Options {
        bind: "127.0.0.1:0".parse().unwrap(),
        speed: 20.0,
        time_control: Some(TimeControl::parse_human("10+0").unwrap()),
        stop_clocks_on_alert: true,
        ..Options::new(GameSource::Trace(Box::new(hands.trace.clone())))
    })
    .await
    .unwrap();
    let reasons = || -> Vec<String> {
        let (log, _) = running.feed.subscribe(Resume::After { game: None, seq: 0 });
        log.iter()
            .filter_map(|item| match &item.event.kind {
                EventKind::Clock { reason, .. } => reason.clone(),
                _ => None,
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !reasons().contains(&"press".to_owned()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(reasons(), ["start", "pause", "resume", "press"]);
    running.stop().await.unwrap();
}
