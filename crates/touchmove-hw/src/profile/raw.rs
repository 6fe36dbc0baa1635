//! A board profile as the TOML gives it, before any check beyond types.
use serde::Deserialize;

use crate::mapping::Orientation;
use crate::sim::SimConfig;

/// `backend = ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum BackendKind {
    GpioMatrix,
    ShiftRegister,
    Mcp23017,
    #[serde(rename = "hall-adc")]
    AnalogAdc,
    Sim,
    Trace,
}

impl BackendKind {
    pub(super) fn name(self) -> &'static str {
        match self {
            BackendKind::GpioMatrix => "gpio-matrix",
            BackendKind::ShiftRegister => "shift-register",
            BackendKind::Mcp23017 => "mcp23017",
            BackendKind::AnalogAdc => "hall-adc",
            BackendKind::Sim => "sim",
            BackendKind::Trace => "trace",
        }
    }

    pub(super) fn is_hardware(self) -> bool {
        !matches!(self, BackendKind::Sim | BackendKind::Trace)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawProfile {
    pub(super) name: String,
    pub(super) backend: BackendKind,
    pub(super) scan_rate_hz: u32,
    pub(super) settle_us: Option<u32>,
    pub(super) debounce_ms: Option<i64>,
    pub(super) orientation: Option<Orientation>,
    pub(super) squares: Option<Vec<String>>,
    pub(super) gpio_matrix: Option<RawGpioMatrix>,
    pub(super) shift_register: Option<RawShiftRegister>,
    pub(super) mcp23017: Option<RawMcp23017>,
    pub(super) hall_adc: Option<RawAnalogAdc>,
    pub(super) sim: Option<SimConfig>,
    pub(super) trace: Option<RawTrace>,
    pub(super) clock: Option<RawClock>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawClock {
    pub(super) white_pin: i64,
    pub(super) black_pin: i64,
    pub(super) active_low: Option<bool>,
    pub(super) debounce_ms: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawGpioMatrix {
    pub(super) rows: Vec<i64>,
    pub(super) columns: Vec<i64>,
    pub(super) diodes: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawShiftRegister {
    pub(super) latch: i64,
    pub(super) load: i64,
    pub(super) diodes: bool,
    pub(super) spi: Option<RawSpi>,
    pub(super) gpio: Option<RawBitBang>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawSpi {
    pub(super) bus: i64,
    pub(super) chip_select: i64,
    pub(super) clock_hz: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawBitBang {
    pub(super) clock: i64,
    pub(super) data_out: i64,
    pub(super) data_in: i64,
    pub(super) clock_hz: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawMcp23017 {
    pub(super) bus: i64,
    pub(super) rows: Vec<String>,
    pub(super) columns: Vec<String>,
    pub(super) diodes: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawAnalogAdc {
    pub(super) select: Vec<i64>,
    pub(super) adc_inputs: Vec<i64>,
    pub(super) mcp3008: Option<RawSpi>,
    pub(super) ads1115: Option<RawAds1115>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawAds1115 {
    pub(super) bus: i64,
    pub(super) address: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawTrace {
    pub(super) file: String,
}
