//! Board profiles (`hw/*.toml`): which backend, its pins, buses and
//! addresses, the scan rate, the settle time, where each sensor sits and
//! the pins of the clock buttons (`[clock]`), if fitted.
//!
//! [`load`] validates a profile completely and reports every problem at once,
//! each naming the file and the key; [`open`] turns a profile into a
//! [`Scanner`]. The keys of each backend are described in `hw/README.md`.
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::analog_adc::{self, AdcConfig, AnalogAdcConfig};
use super::clock_buttons::{self, ClockButtons, ClockButtonsConfig};
use super::gpio_matrix::{self, GHOSTING, GpioMatrixConfig};
use super::hal::physical_pin;
use super::mapping::{Mapping, Orientation};
use super::mcp23017::{self, Mcp23017Config, McpPin};
use super::replay_trace::{self, TraceConfig};
use super::shift_register::{self, ShiftBus, ShiftRegisterConfig};
use super::sim::{self, SimConfig};
use super::{Scanner, SensorError};
use touchmove_core::Millis;

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

// ------------------------------------------------------------- the TOML

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum BackendKind {
    GpioMatrix,
    ShiftRegister,
    Mcp23017,
    #[serde(rename = "hall-adc")]
    AnalogAdc,
    Sim,
    Trace,
}

impl BackendKind {
    fn name(self) -> &'static str {
        match self {
            BackendKind::GpioMatrix => "gpio-matrix",
            BackendKind::ShiftRegister => "shift-register",
            BackendKind::Mcp23017 => "mcp23017",
            BackendKind::AnalogAdc => "hall-adc",
            BackendKind::Sim => "sim",
            BackendKind::Trace => "trace",
        }
    }

    fn is_hardware(self) -> bool {
        !matches!(self, BackendKind::Sim | BackendKind::Trace)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawProfile {
    name: String,
    backend: BackendKind,
    scan_rate_hz: u32,
    settle_us: Option<u32>,
    debounce_ms: Option<i64>,
    orientation: Option<Orientation>,
    squares: Option<Vec<String>>,
    gpio_matrix: Option<RawGpioMatrix>,
    shift_register: Option<RawShiftRegister>,
    mcp23017: Option<RawMcp23017>,
    hall_adc: Option<RawAnalogAdc>,
    sim: Option<SimConfig>,
    trace: Option<RawTrace>,
    clock: Option<RawClock>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawClock {
    white_pin: i64,
    black_pin: i64,
    active_low: Option<bool>,
    debounce_ms: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawGpioMatrix {
    rows: Vec<i64>,
    columns: Vec<i64>,
    diodes: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawShiftRegister {
    latch: i64,
    load: i64,
    diodes: bool,
    spi: Option<RawSpi>,
    gpio: Option<RawBitBang>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSpi {
    bus: i64,
    chip_select: i64,
    clock_hz: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBitBang {
    clock: i64,
    data_out: i64,
    data_in: i64,
    clock_hz: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawMcp23017 {
    bus: i64,
    rows: Vec<String>,
    columns: Vec<String>,
    diodes: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawAnalogAdc {
    select: Vec<i64>,
    adc_inputs: Vec<i64>,
    mcp3008: Option<RawSpi>,
    ads1115: Option<RawAds1115>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawAds1115 {
    bus: i64,
    address: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTrace {
    file: String,
}

// ----------------------------------------------------------- validation

/// SPI buses of the header: (bus, [(BCM, signal)]) for MOSI, MISO, SCLK, then CE0.. .
const SPI_PINS: [(u8, &[(u8, &str)]); 2] = [
    (
        0,
        &[
            (10, "SPI0 MOSI"),
            (9, "SPI0 MISO"),
            (11, "SPI0 SCLK"),
            (8, "SPI0 CE0"),
            (7, "SPI0 CE1"),
        ],
    ),
    (
        1,
        &[
            (20, "SPI1 MOSI"),
            (19, "SPI1 MISO"),
            (21, "SPI1 SCLK"),
            (18, "SPI1 CE0"),
            (17, "SPI1 CE1"),
            (16, "SPI1 CE2"),
        ],
    ),
];

/// I2C bus 1: SDA and SCL.
const I2C1_PINS: [(u8, &str); 2] = [(2, "I2C1 SDA"), (3, "I2C1 SCL")];

#[derive(Debug, Default)]
struct Checker {
    problems: Vec<ProfileProblem>,
    /// BCM pins claimed so far, with the key that claimed them.
    used: Vec<(u8, String)>,
}

impl Checker {
    fn problem(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.problems.push(ProfileProblem {
            key: key.into(),
            message: message.into(),
        });
    }

    fn claim(&mut self, bcm: u8, key: String) {
        if let Some((_, other)) = self.used.iter().find(|(pin, _)| *pin == bcm) {
            let other = other.clone();
            self.problem(
                key,
                format!(
                    "BCM {bcm} (header pin {}) is already used by {other}",
                    physical_pin(bcm).unwrap_or(0)
                ),
            );
        } else {
            self.used.push((bcm, key));
        }
    }

    /// A GPIO pin of the header, by BCM number.
    fn bcm(&mut self, key: String, value: i64) -> u8 {
        match u8::try_from(value)
            .ok()
            .filter(|v| physical_pin(*v).is_some())
        {
            None => {
                self.problem(
                    key,
                    format!(
                        "BCM {value} is not a GPIO of the 40-pin header (GPIO 2 to 27 can be used)"
                    ),
                );
                0
            }
            Some(bcm @ (0 | 1)) => {
                self.problem(
                    key,
                    format!(
                        "BCM {bcm} (header pin {}) is reserved for the HAT ID EEPROM (ID_SD/ID_SC); \
                         use GPIO 2 to 27",
                        physical_pin(bcm).unwrap_or(0)
                    ),
                );
                bcm
            }
            Some(bcm) => {
                self.claim(bcm, key);
                bcm
            }
        }
    }

    fn pins<const N: usize>(&mut self, key: &str, values: &[i64]) -> [u8; N] {
        if values.len() != N {
            self.problem(key, format!("has {} pins, expected {N}", values.len()));
        }
        std::array::from_fn(|i| match values.get(i) {
            Some(&v) => self.bcm(format!("{key}[{i}]"), v),
            None => 0,
        })
    }

    fn spi(&mut self, key: &str, raw: &RawSpi) -> (u8, u8, u32) {
        let bus = SPI_PINS.iter().find(|(bus, _)| i64::from(*bus) == raw.bus);
        let Some((bus, pins)) = bus else {
            self.problem(
                format!("{key}.bus"),
                format!("SPI bus {} is not on the header (0 or 1)", raw.bus),
            );
            return (0, 0, raw.clock_hz);
        };
        let selects = pins.len() - 3;
        let chip_select = match usize::try_from(raw.chip_select) {
            Ok(cs) if cs < selects => cs,
            _ => {
                self.problem(
                    format!("{key}.chip-select"),
                    format!(
                        "SPI{bus} has chip selects 0 to {}, not {}",
                        selects - 1,
                        raw.chip_select
                    ),
                );
                0
            }
        };
        for &(bcm, signal) in pins[..3]
            .iter()
            .chain(&pins[3 + chip_select..4 + chip_select])
        {
            self.claim(bcm, format!("{key} ({signal})"));
        }
        if !(10_000..=32_000_000).contains(&raw.clock_hz) {
            self.problem(
                format!("{key}.clock-hz"),
                format!("{} Hz is outside 10 kHz to 32 MHz", raw.clock_hz),
            );
        }
        (*bus, chip_select as u8, raw.clock_hz)
    }

    fn i2c_bus(&mut self, key: &str, bus: i64) -> u8 {
        if bus != 1 {
            self.problem(
                key,
                format!("I2C bus {bus} is not supported: use bus 1 (header pins 3 and 5)"),
            );
        }
        for (bcm, signal) in I2C1_PINS {
            self.claim(bcm, format!("{key} ({signal})"));
        }
        1
    }

    fn mapping(&mut self, raw: &RawProfile) -> Mapping {
        match (&raw.orientation, &raw.squares) {
            (Some(orientation), None) => Mapping::from_orientation(*orientation),
            (None, Some(names)) => Mapping::from_names(names).unwrap_or_else(|e| {
                self.problem("squares", e.to_string());
                Mapping::default()
            }),
            (Some(_), Some(_)) => {
                self.problem(
                    "squares",
                    "give either `orientation` or `squares`, not both",
                );
                Mapping::default()
            }
            (None, None) => {
                self.problem(
                    "orientation",
                    "missing: name one of identity, rotate-90, rotate-180, rotate-270, \
                     mirror-files, mirror-ranks, transpose, anti-transpose, \
                     or give `squares` (64 square names, sensor 0 first)",
                );
                Mapping::default()
            }
        }
    }

    fn diodes(&mut self, key: &str, diodes: bool) {
        if !diodes {
            self.problem(format!("{key}.diodes"), format!("refused: {GHOSTING}"));
        }
    }

    /// Settle time per row (or channel) must fit `steps` times in a scan period.
    fn settle_fits(&mut self, settle_us: u32, steps: u32, what: &str, rate_hz: u32) {
        let period_us = 1_000_000 / rate_hz.max(1);
        if u64::from(settle_us) * u64::from(steps) >= u64::from(period_us) {
            self.problem(
                "settle-us",
                format!(
                    "{settle_us} µs for each of {steps} {what} does not fit in a scan period \
                     of {period_us} µs at {rate_hz} Hz"
                ),
            );
        }
    }

    fn profile(&mut self, raw: RawProfile, file: &Path) -> Option<BoardProfile> {
        let kind = raw.backend;
        if raw.name.trim().is_empty() {
            self.problem("name", "is empty");
        }
        if !SCAN_RATE_HZ.contains(&raw.scan_rate_hz) {
            self.problem(
                "scan-rate-hz",
                format!(
                    "{} Hz is outside {} to {} Hz",
                    raw.scan_rate_hz,
                    SCAN_RATE_HZ.start(),
                    SCAN_RATE_HZ.end()
                ),
            );
        }
        let tables = [
            (
                "gpio-matrix",
                raw.gpio_matrix.is_some(),
                BackendKind::GpioMatrix,
            ),
            (
                "shift-register",
                raw.shift_register.is_some(),
                BackendKind::ShiftRegister,
            ),
            ("mcp23017", raw.mcp23017.is_some(), BackendKind::Mcp23017),
            ("hall-adc", raw.hall_adc.is_some(), BackendKind::AnalogAdc),
            ("sim", raw.sim.is_some(), BackendKind::Sim),
            ("trace", raw.trace.is_some(), BackendKind::Trace),
        ];
        for (table, present, owner) in tables {
            if present && owner != kind {
                self.problem(
                    table,
                    format!(
                        "this table is for backend {table}, but the profile's backend is {}",
                        kind.name()
                    ),
                );
            }
        }
        let settle_us = if kind.is_hardware() {
            if raw.settle_us.is_none() {
                self.problem(
                    "settle-us",
                    "missing: how long a driven row (or a multiplexer channel) settles, in µs",
                );
            }
            raw.settle_us.unwrap_or(0)
        } else {
            // A simulated board reads its sensors through a mapping like
            // hardware does (identity unless the profile names one); a trace
            // holds squares already.
            let mapped = [
                ("orientation", raw.orientation.is_some()),
                ("squares", raw.squares.is_some()),
            ];
            let unused = if kind == BackendKind::Sim {
                &mapped[..0]
            } else {
                &mapped[..]
            };
            for (key, present) in [("settle-us", raw.settle_us.is_some())]
                .iter()
                .chain(unused)
                .copied()
            {
                if present {
                    self.problem(
                        key,
                        format!("not used by backend {}, which reports squares", kind.name()),
                    );
                }
            }
            0
        };
        let missing = |table: &str| ProfileProblem {
            key: table.to_owned(),
            message: format!("missing: backend {table} needs a [{table}] table"),
        };
        let rate = raw.scan_rate_hz;
        let backend = match kind {
            BackendKind::GpioMatrix => {
                let mapping = self.mapping(&raw);
                let Some(table) = &raw.gpio_matrix else {
                    self.problems.push(missing("gpio-matrix"));
                    return None;
                };
                let rows = self.pins::<8>("gpio-matrix.rows", &table.rows);
                let columns = self.pins::<8>("gpio-matrix.columns", &table.columns);
                self.diodes("gpio-matrix", table.diodes);
                self.settle_fits(settle_us, 8, "rows", rate);
                Backend::GpioMatrix(GpioMatrixConfig {
                    rows,
                    columns,
                    diodes: table.diodes,
                    settle_us,
                    mapping,
                })
            }
            BackendKind::ShiftRegister => {
                let mapping = self.mapping(&raw);
                let Some(table) = &raw.shift_register else {
                    self.problems.push(missing("shift-register"));
                    return None;
                };
                let latch = self.bcm("shift-register.latch".into(), table.latch);
                let load = self.bcm("shift-register.load".into(), table.load);
                let link = match (&table.spi, &table.gpio) {
                    (Some(spi), None) => {
                        let (bus, chip_select, clock_hz) = self.spi("shift-register.spi", spi);
                        ShiftBus::Spi {
                            bus,
                            chip_select,
                            clock_hz,
                        }
                    }
                    (None, Some(gpio)) => {
                        let key = |k: &str| format!("shift-register.gpio.{k}");
                        if !(1_000..=1_000_000).contains(&gpio.clock_hz) {
                            self.problem(
                                key("clock-hz"),
                                format!("{} Hz is outside 1 kHz to 1 MHz", gpio.clock_hz),
                            );
                        }
                        ShiftBus::Gpio {
                            clock: self.bcm(key("clock"), gpio.clock),
                            data_out: self.bcm(key("data-out"), gpio.data_out),
                            data_in: self.bcm(key("data-in"), gpio.data_in),
                            clock_hz: gpio.clock_hz,
                        }
                    }
                    _ => {
                        self.problem(
                            "shift-register",
                            "give exactly one of [shift-register.spi] and [shift-register.gpio]",
                        );
                        return None;
                    }
                };
                self.diodes("shift-register", table.diodes);
                self.settle_fits(settle_us, 8, "rows", rate);
                Backend::ShiftRegister(ShiftRegisterConfig {
                    link,
                    latch,
                    load,
                    diodes: table.diodes,
                    settle_us,
                    mapping,
                })
            }
            BackendKind::Mcp23017 => {
                let mapping = self.mapping(&raw);
                let Some(table) = &raw.mcp23017 else {
                    self.problems.push(missing("mcp23017"));
                    return None;
                };
                let bus = self.i2c_bus("mcp23017.bus", table.bus);
                let rows = self.mcp_pins("mcp23017.rows", &table.rows, false);
                let columns = self.mcp_pins("mcp23017.columns", &table.columns, true);
                let all: Vec<(McpPin, String)> = rows
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (*p, format!("mcp23017.rows[{i}]")))
                    .chain(
                        columns
                            .iter()
                            .enumerate()
                            .map(|(i, p)| (*p, format!("mcp23017.columns[{i}]"))),
                    )
                    .collect();
                for (i, (pin, key)) in all.iter().enumerate() {
                    let earlier = all[..i].iter().find(|(p, _)| p == pin);
                    // Address 0 marks a pin already reported as malformed.
                    if let Some((_, first)) = earlier.filter(|_| pin.address != 0) {
                        self.problem(key.clone(), format!("{pin} is already used by {first}"));
                    }
                }
                self.diodes("mcp23017", table.diodes);
                self.settle_fits(settle_us, 8, "rows", rate);
                Backend::Mcp23017(Mcp23017Config {
                    bus,
                    rows,
                    columns,
                    diodes: table.diodes,
                    settle_us,
                    mapping,
                })
            }
            BackendKind::AnalogAdc => {
                let mapping = self.mapping(&raw);
                let Some(table) = &raw.hall_adc else {
                    self.problems.push(missing("hall-adc"));
                    return None;
                };
                let select = self.pins::<4>("hall-adc.select", &table.select);
                let (adc, inputs) = match (&table.mcp3008, &table.ads1115) {
                    (Some(spi), None) => {
                        let (bus, chip_select, clock_hz) = self.spi("hall-adc.mcp3008", spi);
                        if clock_hz > 1_350_000 {
                            self.problem(
                                "hall-adc.mcp3008.clock-hz",
                                format!("{clock_hz} Hz is above the MCP3008's 1.35 MHz at 2.7 V"),
                            );
                        }
                        let adc = AdcConfig::Mcp3008 {
                            bus,
                            chip_select,
                            clock_hz,
                        };
                        (adc, 8)
                    }
                    (None, Some(ads)) => {
                        let bus = self.i2c_bus("hall-adc.ads1115.bus", ads.bus);
                        let address = match u8::try_from(ads.address) {
                            Ok(a @ 0x48..=0x4B) => a,
                            _ => {
                                self.problem(
                                    "hall-adc.ads1115.address",
                                    format!(
                                        "{:#04x} is not an ADS1115 address (0x48 to 0x4B)",
                                        ads.address
                                    ),
                                );
                                0x48
                            }
                        };
                        if rate > ADS1115_MAX_SCAN_RATE_HZ {
                            self.problem(
                                "scan-rate-hz",
                                format!(
                                    "{rate} Hz is too fast for an ADS1115: 64 conversions at \
                                     860 a second allow at most {ADS1115_MAX_SCAN_RATE_HZ} Hz"
                                ),
                            );
                        }
                        (AdcConfig::Ads1115 { bus, address }, 4)
                    }
                    _ => {
                        self.problem(
                            "hall-adc",
                            "give exactly one of [hall-adc.mcp3008] and [hall-adc.ads1115]",
                        );
                        return None;
                    }
                };
                if table.adc_inputs.len() != 4 {
                    self.problem(
                        "hall-adc.adc-inputs",
                        format!(
                            "has {} entries, expected 4 (the ADC input of each multiplexer)",
                            table.adc_inputs.len()
                        ),
                    );
                }
                let adc_inputs: [u8; 4] = std::array::from_fn(|m| {
                    let value = table.adc_inputs.get(m).copied().unwrap_or(0);
                    let key = format!("hall-adc.adc-inputs[{m}]");
                    if !(0..inputs).contains(&value) {
                        self.problem(
                            key,
                            format!("input {value} does not exist (0 to {})", inputs - 1),
                        );
                    } else if table.adc_inputs[..m].contains(&value) {
                        self.problem(key, format!("input {value} is given to two multiplexers"));
                    }
                    value.clamp(0, 7) as u8
                });
                self.settle_fits(settle_us, 16, "channels", rate);
                Backend::AnalogAdc(AnalogAdcConfig {
                    select,
                    adc_inputs,
                    adc,
                    settle_us,
                    mapping,
                })
            }
            BackendKind::Sim => {
                let mapping = if raw.orientation.is_none() && raw.squares.is_none() {
                    Mapping::default()
                } else {
                    self.mapping(&raw)
                };
                let mut sim = raw.sim.clone().unwrap_or_default();
                sim.mapping = Box::new(mapping);
                let folder = file.parent().unwrap_or(Path::new("."));
                sim.hands = sim.hands.map(|hands| folder.join(hands));
                Backend::Sim(sim)
            }
            BackendKind::Trace => {
                let Some(table) = &raw.trace else {
                    self.problems.push(missing("trace"));
                    return None;
                };
                let folder = file.parent().unwrap_or(Path::new("."));
                Backend::Trace(TraceConfig {
                    file: folder.join(&table.file),
                })
            }
        };
        // After the backend: a clash names the backend's key.
        let clock = raw.clock.as_ref().map(|table| self.clock(table));
        let debounce_ms = raw.debounce_ms.map(|ms| match Millis::try_from(ms) {
            Ok(ms) if (1..=MAX_DEBOUNCE_MS).contains(&ms) => ms,
            _ => {
                self.problem(
                    "debounce-ms",
                    format!("{ms} ms is outside 1 to {MAX_DEBOUNCE_MS} ms"),
                );
                0
            }
        });
        Some(BoardProfile {
            name: raw.name,
            file: file.to_path_buf(),
            scan_rate_hz: raw.scan_rate_hz,
            backend,
            clock,
            debounce_ms,
        })
    }

    /// `[clock]`: two free GPIO pins and the debounce time.
    fn clock(&mut self, table: &RawClock) -> ClockButtonsConfig {
        let white_pin = self.bcm("clock.white-pin".into(), table.white_pin);
        let black_pin = self.bcm("clock.black-pin".into(), table.black_pin);
        let debounce_ms = match table.debounce_ms {
            None => clock_buttons::DEFAULT_DEBOUNCE_MS,
            Some(ms) => match Millis::try_from(ms) {
                Ok(ms) if ms <= clock_buttons::MAX_DEBOUNCE_MS => ms,
                _ => {
                    self.problem(
                        "clock.debounce-ms",
                        format!(
                            "{ms} ms is outside 0 to {} ms",
                            clock_buttons::MAX_DEBOUNCE_MS
                        ),
                    );
                    clock_buttons::DEFAULT_DEBOUNCE_MS
                }
            },
        };
        ClockButtonsConfig {
            white_pin,
            black_pin,
            active_low: table.active_low.unwrap_or(true),
            debounce_ms,
        }
    }

    fn mcp_pins(&mut self, key: &str, values: &[String], inputs: bool) -> [McpPin; 8] {
        if values.len() != 8 {
            self.problem(key, format!("has {} pins, expected 8", values.len()));
        }
        let none = McpPin {
            address: 0,
            port: mcp23017::Port::A,
            bit: 0,
        };
        std::array::from_fn(|i| {
            let key = format!("{key}[{i}]");
            match values.get(i).map(|v| v.parse::<McpPin>()) {
                Some(Ok(pin)) if inputs && !pin.can_be_input() => {
                    self.problem(
                        key,
                        format!(
                            "{pin} cannot be an input: GPA7 and GPB7 are output-only in \
                             current MCP23017 datasheets; use them for rows"
                        ),
                    );
                    pin
                }
                Some(Ok(pin)) => pin,
                Some(Err(message)) => {
                    self.problem(key, message);
                    none
                }
                None => none,
            }
        })
    }
}
