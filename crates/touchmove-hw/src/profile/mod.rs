//! Board profiles (`hw/*.toml`): which backend, its pins, buses and
//! addresses, the scan rate, the settle time, where each sensor sits and
//! the pins of the clock buttons (`[clock]`), if fitted.
//!
//! [`load`] validates a profile completely and reports every problem at once,
//! each naming the file and the key; [`open`] turns a profile into a
//! [`Scanner`]. The keys of each backend are described in `hw/README.md`.
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::analog_adc::{self, AnalogAdcConfig};
use super::clock_buttons::{self, ClockButtons, ClockButtonsConfig};
use super::gpio_matrix::{self, GpioMatrixConfig};
use super::mcp23017::{self, Mcp23017Config};
use super::replay_trace::{self, TraceConfig};
use super::shift_register::{self, ShiftRegisterConfig};
use super::sim::{self, SimConfig};
use super::{Scanner, SensorError};
use checker::Checker;
use raw::RawProfile;
use touchmove_core::Millis;

// The checks, one module per section of the file; each adds methods to
// `Checker`, which collects every problem with its key.
mod checker;
mod clock;
mod hall_adc;
mod matrix_backends;
mod raw;
mod software_backends;
mod top_level;

/// Lowest and highest scan rates a profile may ask for.
pub(crate) const SCAN_RATE_HZ: std::ops::RangeInclusive<u32> = 1..=1000;
/// The longest debounce window a profile may ask for: longer would delay
/// every lift and placement noticeably.
pub(crate) const MAX_DEBOUNCE_MS: Millis = 200;
/// The most scans a second an ADS1115 can give (64 conversions at 860 SPS each).
pub(crate) const ADS1115_MAX_SCAN_RATE_HZ: u32 = 10;

/// A loaded, valid board profile.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardProfile {
    pub name: String,
    /// The file it was loaded from.
    pub file: PathBuf,
    pub scan_rate_hz: u32,
    pub backend: Backend,
    /// `[clock]`: the chess clock's buttons on the Pi's GPIO, if fitted.
    pub clock: Option<ClockButtonsConfig>,
    /// `debounce-ms`: how long a square's new reading must hold before it
    /// counts, when this board needs another window than the filter's
    /// default (`touchmove board check` suggests one from the bounce it
    /// measures).
    pub debounce_ms: Option<Millis>,
}

/// The backend of a profile, with its validated settings.
#[derive(Debug, Clone, PartialEq)]
pub enum Backend {
    GpioMatrix(GpioMatrixConfig),
    ShiftRegister(ShiftRegisterConfig),
    Mcp23017(Mcp23017Config),
    AnalogAdc(AnalogAdcConfig),
    Sim(SimConfig),
    Trace(TraceConfig),
}

impl Backend {
    /// The `backend = ...` name.
    pub fn kind(&self) -> &'static str {
        match self {
            Backend::GpioMatrix(_) => "gpio-matrix",
            Backend::ShiftRegister(_) => "shift-register",
            Backend::Mcp23017(_) => "mcp23017",
            Backend::AnalogAdc(_) => "hall-adc",
            Backend::Sim(_) => "sim",
            Backend::Trace(_) => "trace",
        }
    }

    /// Whether it produces analog (Hall) scans.
    pub fn is_analog(&self) -> bool {
        match self {
            Backend::AnalogAdc(_) => true,
            Backend::Sim(config) => config.analog,
            _ => false,
        }
    }
}

impl BoardProfile {
    /// `<name> (<backend>)`, as the `#! board:` header line of a trace says.
    pub fn board_line(&self) -> String {
        format!("{} ({})", self.name, self.backend.kind())
    }

    /// Time between two scans.
    pub fn scan_period(&self) -> Duration {
        Duration::from_secs_f64(1.0 / f64::from(self.scan_rate_hz))
    }

    /// How messages about this profile name it.
    fn who(&self) -> String {
        format!(
            "board profile {:?} ({}, {})",
            self.name,
            self.backend.kind(),
            self.file.display()
        )
    }
}

/// One thing wrong with a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileProblem {
    /// The key, as a dotted path (`gpio-matrix.rows[3]`).
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for ProfileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Why a profile could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{file}: could not read the board profile: {error}")]
    Read { file: String, error: std::io::Error },
    /// Not TOML, a missing or unknown key, a value of the wrong type.
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    /// Well-formed but wrong: every problem found.
    #[error("{file}: {}", problems.iter().map(ProfileProblem::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        file: String,
        problems: Vec<ProfileProblem>,
    },
}

impl ProfileError {
    /// The problems of an [`ProfileError::Invalid`] profile (none otherwise).
    pub fn problems(&self) -> &[ProfileProblem] {
        match self {
            ProfileError::Invalid { problems, .. } => problems,
            _ => &[],
        }
    }
}

/// Reads and validates a board profile.
pub fn load(path: impl AsRef<Path>) -> Result<BoardProfile, ProfileError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|error| ProfileError::Read {
        file: path.display().to_string(),
        error,
    })?;
    parse(&text, path)
}

/// Validates the text of a board profile; `file` names it in errors and
/// anchors relative paths.
pub fn parse(text: &str, file: &Path) -> Result<BoardProfile, ProfileError> {
    let raw: RawProfile = toml::from_str(text).map_err(|e| ProfileError::Syntax {
        file: file.display().to_string(),
        message: e.to_string().trim_end().to_owned(),
    })?;
    let mut check = Checker::default();
    let profile = check.profile(raw, file);
    match profile {
        Some(profile) if check.problems.is_empty() => Ok(profile),
        _ => Err(ProfileError::Invalid {
            file: file.display().to_string(),
            problems: check.problems,
        }),
    }
}

/// Opens the scanner a profile describes. Off a Raspberry Pi every hardware
/// backend fails with one sentence saying what was tried.
pub fn open(profile: &BoardProfile) -> Result<Box<dyn Scanner>, SensorError> {
    let who = profile.who();
    match &profile.backend {
        Backend::GpioMatrix(config) => gpio_matrix::open(config, &who),
        Backend::ShiftRegister(config) => shift_register::open(config, &who),
        Backend::Mcp23017(config) => mcp23017::open(config, &who),
        Backend::AnalogAdc(config) => analog_adc::open(config, &who),
        Backend::Sim(config) => sim::open(config),
        Backend::Trace(config) => replay_trace::open(config, &who),
    }
}

/// Opens the clock buttons of a profile with a `[clock]` table (`None`
/// without one). They are always on the Pi's own GPIO, whatever the
/// backend; off a Raspberry Pi this fails with one sentence.
pub fn open_clock_buttons(profile: &BoardProfile) -> Result<Option<ClockButtons>, SensorError> {
    profile
        .clock
        .as_ref()
        .map(|config| clock_buttons::open(config, &profile.who()))
        .transpose()
}
