//! `touchmove calibrate` end to end against the simulated Hall-sensor board.
use std::path::PathBuf;
use std::process::Command;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use shakmaty::{Bitboard, Square};
use touchmove::cli::calibrate::{
    CalibrateError, CalibrationStep, Prompter, Settings, calibrate, load_calibration, steps,
};
use touchmove_core::filter::Classify;
use touchmove_core::filter::analog::{AnalogClassifier, Calibration};
use touchmove_core::scan::Snapshot;
use touchmove_hw::sim::{AnalogModel, SimBoard, SimHands};
use touchmove_hw::{Scan, Scanner};

/// Sets the simulated board up for every step, as a person would.
struct ScriptedHands {
    hands: SimHands,
    prepared: Vec<String>,
    readings: u32,
}

impl ScriptedHands {
    fn new(hands: SimHands) -> ScriptedHands {
        ScriptedHands {
            hands,
            prepared: Vec::new(),
            readings: 0,
        }
    }
}

impl Prompter for ScriptedHands {
    fn prepare(
        &mut self,
        step: &CalibrationStep,
        number: usize,
        count: usize,
    ) -> Result<(), CalibrateError> {
        assert_eq!(number, self.prepared.len() + 1);
        assert_eq!(count, 5);
        self.hands.set(step.layout);
        self.prepared.push(step.title.to_string());
        Ok(())
    }

    fn sampled(&mut self, _done: u32, _total: u32) {
        self.readings += 1;
    }

    fn finished(&mut self, _step: &CalibrationStep) {}
}

fn hall_board(seed: u64, noise: f64, polarity: bool) -> SimBoard {
    SimBoard::standing(Snapshot::default())
        .with_hall(AnalogModel::random(seed, noise, polarity), seed)
}

fn settings() -> Settings {
    Settings {
        samples: 100,
        ..Settings::default()
    }
}

fn calibrated(board: &mut SimBoard) -> Calibration {
    let mut prompter = ScriptedHands::new(board.hands());
    let calibration = calibrate("sim-hall", board, &mut prompter, &settings()).unwrap();
    assert_eq!(prompter.prepared.len(), 5);
    assert_eq!(prompter.readings, 5 * 100);
    calibration
}

/// A random position: every square empty, white or black.
fn random_position(rng: &mut Xoshiro256PlusPlus) -> Snapshot {
    let mut snapshot = Snapshot::default();
    for square in Square::ALL {
        match rng.random_range(0..3) {
            1 => snapshot.white.add(square),
            2 => snapshot.black.add(square),
            _ => {}
        }
    }
    snapshot
}

/// Scans every position many times and checks every square of every scan.
fn assert_classifies(board: &mut SimBoard, calibration: &Calibration, positions: usize) {
    let mut classifier = AnalogClassifier::new(calibration);
    let hands = board.hands();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
    let mut t = 0;
    let mut scans = 0;
    for _ in 0..positions {
        let truth = random_position(&mut rng);
        hands.set(truth);
        for _ in 0..200 {
            let Scan::Analog(values) = board.scan(t).unwrap() else {
                panic!("a Hall board gives analog scans");
            };
            t += 10;
            scans += 1;
            let seen = classifier.classify(&values);
            if calibration.colour_from_polarity {
                assert_eq!(seen, truth, "scan {scans}");
            } else {
                assert_eq!(seen.white, truth.occupied(), "scan {scans}");
                assert!(seen.black.is_empty());
            }
        }
    }
}

#[test]
fn the_steps_show_every_square_empty_white_and_black() {
    let steps = steps();
    let mut white = Bitboard::EMPTY;
    let mut black = Bitboard::EMPTY;
    for step in &steps {
        assert!((step.layout.white & step.layout.black).is_empty());
        assert!(step.layout.white.count() <= 16 && step.layout.black.count() <= 16);
        white |= step.layout.white;
        black |= step.layout.black;
    }
    assert_eq!(white, Bitboard::FULL);
    assert_eq!(black, Bitboard::FULL);
    assert!(steps[0].layout.occupied().is_empty());
}

#[test]
fn a_calibration_classifies_every_square_under_noise() {
    for (seed, noise) in [(1, 4.0), (2, 4.0), (3, 12.0)] {
        let mut board = hall_board(seed, noise, true);
        let calibration = calibrated(&mut board);
        assert_eq!(calibration.board, "sim-hall");
        assert!(calibration.colour_from_polarity);
        // What is classified is the profile as written and read back.
        let reloaded = Calibration::from_toml(&calibration.to_toml(), "sim.toml").unwrap();
        assert_classifies(&mut board, &reloaded, 12);
    }
}

#[test]
fn the_measured_levels_are_the_boards_own() {
    let mut board = hall_board(5, 4.0, true);
    let model = board.hall_model().unwrap().clone();
    let calibration = calibrated(&mut board);
    for square in Square::ALL {
        let entry = &calibration.squares[square.to_usize()];
        let near = |measured: f64, expected: f64| (measured - expected).abs() < 2.0;
        assert!(
            near(entry.empty.mean, model.expected(square, None)),
            "{square}"
        );
        assert!(near(
            entry.white.mean,
            model.expected(square, Some(shakmaty::Color::White))
        ));
        assert!(near(
            entry.black.mean,
            model.expected(square, Some(shakmaty::Color::Black))
        ));
        let noise = model.noise[square.to_usize()];
        assert!((entry.empty.std - noise).abs() < noise * 0.25, "{square}");
    }
}

#[test]
fn a_board_without_polarity_is_calibrated_for_occupancy() {
    let mut board = hall_board(4, 4.0, false);
    let calibration = calibrated(&mut board);
    assert!(!calibration.colour_from_polarity);
    assert_classifies(&mut board, &calibration, 6);
}

#[test]
fn two_dead_sensors_are_refused_by_name() {
    let dead = Bitboard::from(Square::E4) | Square::H7;
    let mut board = hall_board(1, 4.0, true).with_dead(dead);
    let mut prompter = ScriptedHands::new(board.hands());
    let err = calibrate("sim-hall", &mut board, &mut prompter, &settings()).unwrap_err();
    let CalibrateError::Thin(thin) = &err else {
        panic!("expected thin margins, got {err}");
    };
    assert_eq!(thin.squares(), dead);
    let text = err.to_string();
    assert!(text.contains("margins thinner than 5σ on e4, h7"), "{text}");
    assert!(text.contains("e4: white level within "), "{text}");
    assert!(text.contains("h7: white level within "), "{text}");
}

#[test]
fn a_demanding_margin_refuses_a_noisy_board() {
    let mut board = hall_board(3, 12.0, true);
    let mut prompter = ScriptedHands::new(board.hands());
    let strict = Settings {
        min_margin: 40.0,
        ..settings()
    };
    let err = calibrate("sim-hall", &mut board, &mut prompter, &strict).unwrap_err();
    let CalibrateError::Thin(thin) = err else {
        panic!("expected thin margins");
    };
    assert_eq!(thin.squares.len(), 64);
}

#[test]
fn an_occupancy_board_is_not_calibrated() {
    let mut board = SimBoard::standing(Snapshot::default());
    let mut prompter = ScriptedHands::new(board.hands());
    let err = calibrate("x", &mut board, &mut prompter, &settings()).unwrap_err();
    assert!(matches!(err, CalibrateError::NotAnalog), "{err}");
}

#[test]
fn a_stopped_prompt_stops_the_procedure() {
    struct Stop;
    impl Prompter for Stop {
        fn prepare(
            &mut self,
            _: &CalibrationStep,
            n: usize,
            _: usize,
        ) -> Result<(), CalibrateError> {
            Err(CalibrateError::Stopped(format!("no one at step {n}")))
        }
        fn sampled(&mut self, _: u32, _: u32) {}
        fn finished(&mut self, _: &CalibrationStep) {}
    }
    let mut board = hall_board(1, 4.0, true);
    let err = calibrate("x", &mut board, &mut Stop, &settings()).unwrap_err();
    assert_eq!(err.to_string(), "calibration stopped: no one at step 1");
}

fn out_path(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn touchmove(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(args)
        .output()
        .expect("the touchmove binary runs")
}

#[test]
fn the_command_writes_a_profile_for_the_simulated_board() {
    let out = out_path("calibrate-sim-hall.toml");
    let run = touchmove(&[
        "calibrate",
        "--board",
        "sim-hall",
        "--out",
        out.to_str().unwrap(),
        "--samples",
        "50",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let calibration = load_calibration(&out).unwrap();
    assert_eq!(calibration.board, "sim-hall");
    assert_eq!(calibration.samples, 50);
}

#[test]
fn the_command_refuses_dead_sensors_and_writes_nothing() {
    let out = out_path("calibrate-dead.toml");
    let run = touchmove(&[
        "calibrate",
        "--board",
        "sim-hall",
        "--out",
        out.to_str().unwrap(),
        "--sim-dead",
        "e4,h7",
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("on e4, h7"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn the_command_names_a_missing_profile_and_refuses_occupancy_boards() {
    let run = touchmove(&[
        "calibrate",
        "--board",
        "hw/no-such-board.toml",
        "--out",
        "unused.toml",
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no-such-board.toml"), "{stderr}");

    let run = touchmove(&[
        "calibrate",
        "--board",
        "hw/gpio-matrix.toml",
        "--out",
        "unused.toml",
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("reads occupancy only"), "{stderr}");

    // A Hall board off a Raspberry Pi: one clear sentence, no panic.
    let run = touchmove(&[
        "calibrate",
        "--board",
        "hw/hall-mcp3008.toml",
        "--out",
        "unused.toml",
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("not a Raspberry Pi"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn loading_a_missing_file_names_it() {
    let err = load_calibration(&out_path("nowhere.toml")).unwrap_err();
    assert!(format!("{err:#}").contains("nowhere.toml"), "{err:#}");
}

#[test]
fn the_example_profile_reads_the_simulated_board() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("calibration/sim-hall.toml");
    let calibration = load_calibration(&path).unwrap();
    assert_eq!(calibration.board, "sim-hall");
    // The board `--board sim-hall` builds (seed 1, default noise).
    let mut board = hall_board(1, AnalogModel::DEFAULT_NOISE, true);
    assert_classifies(&mut board, &calibration, 6);
}
