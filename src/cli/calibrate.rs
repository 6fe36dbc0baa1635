//! `touchmove calibrate`: measures every square of a Hall-sensor board
//! empty, under a white piece and under a black piece, chooses thresholds
//! and hysteresis (see [`touchmove_core::filter::analog::fit`]) and writes a
//! calibration profile.
//!
//! The procedure ([`calibrate`]) only needs a [`Scanner`] and a
//! [`Prompter`]: the terminal prompter shows each step and waits for Enter,
//! a scripted one (in tests, and for the built-in simulated board) moves the
//! simulated pieces itself.
//!
//! Every square must be seen under a piece of each colour, and 32 pieces
//! cover 32 squares at a time, so the procedure has five [`steps`]: the empty
//! board, then the two armies on ranks 1–2 / 7–8 (the start position),
//! 3–4 / 5–6, 5–6 / 3–4 and 7–8 / 1–2. No level is estimated from another
//! square: each square's own sensor, gain and offset are measured directly.
//! The empty level of a square is taken from every step that leaves it empty
//! (three of the five), so it includes whatever the neighbouring magnets add.
use std::io::BufRead;
use std::path::PathBuf;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::{Bitboard, Rank, Square};

use touchmove_core::Millis;
use touchmove_core::filter::analog::{self as hall, Calibration, Measured, Stats, ThinMargins};
use touchmove_core::scan::Snapshot;
use touchmove_hw::sim::{self, SimConfig, SimHands};
use touchmove_hw::{Scan, Scanner, SensorError};

/// The name `--board` takes for the built-in simulated Hall-sensor board.
pub const SIM_HALL: &str = "sim-hall";

/// Arguments of `touchmove calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// The board: `sim-hall` (the built-in simulated Hall-sensor board) or a
    /// board profile file.
    #[arg(long, value_name = "PROFILE")]
    pub board: String,
    /// Where to write the calibration profile (TOML).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Readings per step.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub samples: u32,
    /// The least margin accepted, in standard deviations.
    #[arg(long, value_name = "SIGMA", default_value_t = 5.0)]
    pub min_margin: f64,
    /// Readings thrown away at the start of each step, while hands leave the board.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub settle: u32,
    /// `sim-hall` only: the seed of the simulated offsets, gains and noise.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub sim_seed: u64,
    /// `sim-hall` only: squares whose sensors are dead (e.g. `e4,h7`).
    #[arg(long, value_name = "SQUARES", value_delimiter = ',', value_parser = parse_square)]
    pub sim_dead: Vec<Square>,
    /// `sim-hall` only: magnets all mounted the same way (no colour).
    #[arg(long)]
    pub sim_no_polarity: bool,
}

fn parse_square(text: &str) -> Result<Square, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a square (a1 to h8)"))
}

/// One step of the procedure: what to put on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalibrationStep {
    pub title: &'static str,
    pub instruction: &'static str,
    /// What must stand on the board while the step is measured.
    pub layout: Snapshot,
}

fn ranks(a: u32, b: u32) -> Bitboard {
    Bitboard::from_rank(Rank::new(a - 1)) | Bitboard::from_rank(Rank::new(b - 1))
}

/// The five steps, in order: every square is seen empty (three times),
/// under a white piece once and under a black piece once.
pub fn steps() -> Vec<CalibrationStep> {
    let armies = |white: (u32, u32), black: (u32, u32)| Snapshot {
        white: ranks(white.0, white.1),
        black: ranks(black.0, black.1),
    };
    vec![
        CalibrationStep {
            title: "empty board",
            instruction: "Take every piece off the board.",
            layout: Snapshot::default(),
        },
        CalibrationStep {
            title: "start position",
            instruction: "Set up the pieces as for a game: the 16 white pieces on ranks 1-2, \
                          the 16 black pieces on ranks 7-8.",
            layout: armies((1, 2), (7, 8)),
        },
        CalibrationStep {
            title: "armies forward",
            instruction: "Move every piece two ranks forward: white on ranks 3-4, black on ranks 5-6.",
            layout: armies((3, 4), (5, 6)),
        },
        CalibrationStep {
            title: "armies crossed",
            instruction: "Swap the two armies: white on ranks 5-6, black on ranks 3-4.",
            layout: armies((5, 6), (3, 4)),
        },
        CalibrationStep {
            title: "armies reversed",
            instruction: "Put white on ranks 7-8 and black on ranks 1-2.",
            layout: armies((7, 8), (1, 2)),
        },
    ]
}

/// How the procedure samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Readings measured per step.
    pub samples: u32,
    /// Readings thrown away at the start of each step.
    pub settle: u32,
    /// The least margin accepted, in standard deviations.
    pub min_margin: f64,
    /// Time between readings, passed to the scanner as `now`.
    pub interval: Millis,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            samples: 200,
            settle: 10,
            min_margin: 5.0,
            interval: 10,
        }
    }
}

/// Guides a person (or a script) through the steps.
pub trait Prompter {
    /// Says what to put on the board for step `number` of `count` (from 1)
    /// and returns when the board is ready; an error stops the procedure.
    fn prepare(
        &mut self,
        step: &CalibrationStep,
        number: usize,
        count: usize,
    ) -> Result<(), CalibrateError>;
    /// `done` of `total` readings of the current step are measured.
    fn sampled(&mut self, done: u32, total: u32);
    /// The current step is measured.
    fn finished(&mut self, step: &CalibrationStep);
}

/// Why a calibration did not come out.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("reading the board: {0}")]
    Sensor(SensorError),
    #[error("the board gives occupancy scans: only a Hall-sensor board needs calibrating")]
    NotAnalog,
    #[error("calibration stopped: {0}")]
    Stopped(String),
    #[error("the steps never show {0}")]
    Unmeasured(String),
    #[error(transparent)]
    Thin(#[from] ThinMargins),
    #[error("{0}")]
    Settings(String),
}

impl From<SensorError> for CalibrateError {
    fn from(err: SensorError) -> CalibrateError {
        CalibrateError::Sensor(err)
    }
}

/// Runs `steps` and measures every square's empty, white and black levels.
pub fn measure(
    scanner: &mut dyn Scanner,
    prompter: &mut dyn Prompter,
    steps: &[CalibrationStep],
    settings: &Settings,
) -> Result<[Measured; 64], CalibrateError> {
    if settings.samples < 2 {
        return Err(CalibrateError::Settings(format!(
            "--samples {}: at least 2 readings per step are needed for a standard deviation",
            settings.samples
        )));
    }
    let mut stats = [[Stats::default(); 3]; 64];
    let mut now: Millis = 0;
    for (index, step) in steps.iter().enumerate() {
        prompter.prepare(step, index + 1, steps.len())?;
        for _ in 0..settings.settle {
            read(scanner, now)?;
            now += settings.interval;
        }
        for done in 1..=settings.samples {
            let values = read(scanner, now)?;
            now += settings.interval;
            for square in Square::ALL {
                let state = if step.layout.white.contains(square) {
                    1
                } else if step.layout.black.contains(square) {
                    2
                } else {
                    0
                };
                stats[square.to_usize()][state].push(f64::from(values[square.to_usize()]));
            }
            prompter.sampled(done, settings.samples);
        }
        prompter.finished(step);
    }
    let mut missing = Vec::new();
    for (state, name) in ["empty", "under a white piece", "under a black piece"]
        .iter()
        .enumerate()
    {
        let squares: Vec<String> = Square::ALL
            .iter()
            .filter(|sq| stats[sq.to_usize()][state].count() == 0)
            .map(|sq| sq.to_string())
            .collect();
        if !squares.is_empty() {
            missing.push(format!("{} {name}", squares.join(", ")));
        }
    }
    if !missing.is_empty() {
        return Err(CalibrateError::Unmeasured(missing.join("; ")));
    }
    Ok(stats.map(|[empty, white, black]| {
        let level = |s: Stats| s.level().expect("checked measured");
        Measured {
            empty: level(empty),
            white: level(white),
            black: level(black),
        }
    }))
}

fn read(scanner: &mut dyn Scanner, now: Millis) -> Result<Box<[i32; 64]>, CalibrateError> {
    match scanner.scan(now)? {
        Scan::Analog(values) => Ok(values),
        Scan::Occupancy(_) => Err(CalibrateError::NotAnalog),
    }
}

/// The whole procedure: the five [`steps`], then thresholds and hysteresis
/// for the board profile named `board`.
pub fn calibrate(
    board: &str,
    scanner: &mut dyn Scanner,
    prompter: &mut dyn Prompter,
    settings: &Settings,
) -> Result<Calibration, CalibrateError> {
    if !(settings.min_margin.is_finite() && settings.min_margin > 0.0) {
        return Err(CalibrateError::Settings(format!(
            "--min-margin {}: a positive number of standard deviations is needed",
            settings.min_margin
        )));
    }
    let measured = measure(scanner, prompter, &steps(), settings)?;
    Ok(hall::fit(
        board,
        &measured,
        settings.min_margin,
        settings.samples,
    )?)
}

/// Shows the steps on the terminal with a progress bar. With [`SimHands`]
/// (the built-in simulated board) it moves the pieces itself instead of
/// waiting for Enter.
pub struct TerminalPrompter {
    hands: Option<SimHands>,
    bar: Option<ProgressBar>,
}

impl TerminalPrompter {
    /// Waits for Enter at every step.
    pub fn new() -> TerminalPrompter {
        TerminalPrompter {
            hands: None,
            bar: None,
        }
    }

    /// Sets up a simulated board itself at every step.
    pub fn simulated(hands: SimHands) -> TerminalPrompter {
        TerminalPrompter {
            hands: Some(hands),
            bar: None,
        }
    }
}

impl Default for TerminalPrompter {
    fn default() -> TerminalPrompter {
        TerminalPrompter::new()
    }
}

impl Prompter for TerminalPrompter {
    fn prepare(
        &mut self,
        step: &CalibrationStep,
        number: usize,
        count: usize,
    ) -> Result<(), CalibrateError> {
        eprintln!("\nStep {number}/{count}: {}", step.title);
        eprintln!("  {}", step.instruction);
        if let Some(hands) = &self.hands {
            hands.set(step.layout);
            eprintln!("  (simulated board: the pieces are placed for you)");
        } else {
            eprintln!("  Press Enter when the board is ready, and keep your hands off it.");
            let mut line = String::new();
            let read = std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|err| CalibrateError::Stopped(format!("reading standard input: {err}")))?;
            if read == 0 {
                return Err(CalibrateError::Stopped(format!(
                    "standard input closed before step {number} ({}) was confirmed",
                    step.title
                )));
            }
        }
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("  [{bar:40}] {pos}/{len} readings")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        self.bar = Some(bar);
        Ok(())
    }

    fn sampled(&mut self, done: u32, total: u32) {
        if let Some(bar) = &self.bar {
            bar.set_length(u64::from(total));
            bar.set_position(u64::from(done));
        }
    }

    fn finished(&mut self, _step: &CalibrationStep) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }
}

pub use touchmove_hw::calibration::load_calibration;

/// The built-in simulated Hall-sensor board, empty, with its hands.
fn sim_hall(args: &CalibrateArgs) -> anyhow::Result<(Box<dyn Scanner>, SimHands)> {
    let board = sim::build(&SimConfig {
        analog: true,
        seed: args.sim_seed,
        position: Some("8/8/8/8/8/8/8/8".into()),
        polarity: !args.sim_no_polarity,
        dead: args.sim_dead.clone(),
        ..SimConfig::default()
    })?;
    let hands = board.hands();
    Ok((Box::new(board), hands))
}

pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    if args.board != SIM_HALL
        && (!args.sim_dead.is_empty() || args.sim_no_polarity || args.sim_seed != 1)
    {
        anyhow::bail!(
            "--sim-seed, --sim-dead and --sim-no-polarity apply to --board {SIM_HALL} only"
        );
    }
    let (board_name, mut scanner, mut prompter) = if args.board == SIM_HALL {
        let (scanner, hands) = sim_hall(&args)?;
        (
            SIM_HALL.to_owned(),
            scanner,
            TerminalPrompter::simulated(hands),
        )
    } else {
        let profile = touchmove_hw::profile::load(&args.board)?;
        if !profile.backend.is_analog() {
            anyhow::bail!(
                "--board {}: the {} backend reads occupancy only; calibration is for Hall-sensor boards \
                 (backend hall-adc, or sim with analog = true)",
                args.board,
                profile.backend.kind()
            );
        }
        let scanner = touchmove_hw::profile::open(&profile)?;
        (profile.name.clone(), scanner, TerminalPrompter::new())
    };
    let settings = Settings {
        samples: args.samples,
        settle: args.settle,
        min_margin: args.min_margin,
        ..Settings::default()
    };
    eprintln!("Calibrating {}", scanner.describe());
    let calibration = calibrate(&board_name, scanner.as_mut(), &mut prompter, &settings)?;
    std::fs::write(&args.out, calibration.to_toml())
        .with_context(|| format!("writing {}", args.out.display()))?;
    let (square, margin) = calibration.thinnest();
    eprintln!(
        "\nWrote {}: {}; thinnest margin {margin:.1}σ on {square}.",
        args.out.display(),
        if calibration.colour_from_polarity {
            "polarity tells colour"
        } else {
            "occupancy only (the magnets do not tell colour)"
        }
    );
    Ok(())
}
