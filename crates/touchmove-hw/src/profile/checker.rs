//! The checks the sections share: collecting problems, the pins of the
//! 40-pin header (each claimed once), SPI and I2C buses, diodes, settle time.
use crate::gpio_matrix::GHOSTING;
use crate::hal::physical_pin;

use super::ProfileProblem;
use super::raw::RawSpi;

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

/// Validates a profile section by section, collecting every problem with
/// its key instead of stopping at the first.
#[derive(Debug, Default)]
pub(super) struct Checker {
    pub(super) problems: Vec<ProfileProblem>,
    /// BCM pins claimed so far, with the key that claimed them.
    used: Vec<(u8, String)>,
}

impl Checker {
    pub(super) fn problem(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.problems.push(ProfileProblem {
            key: key.into(),
            message: message.into(),
        });
    }

    /// The backend's own table is absent.
    pub(super) fn missing_table(&mut self, table: &str) {
        self.problem(
            table,
            format!("missing: backend {table} needs a [{table}] table"),
        );
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
    pub(super) fn bcm(&mut self, key: String, value: i64) -> u8 {
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

    /// `N` GPIO pins of the header, by BCM number.
    pub(super) fn pins<const N: usize>(&mut self, key: &str, values: &[i64]) -> [u8; N] {
        if values.len() != N {
            self.problem(key, format!("has {} pins, expected {N}", values.len()));
        }
        std::array::from_fn(|i| match values.get(i) {
            Some(&v) => self.bcm(format!("{key}[{i}]"), v),
            None => 0,
        })
    }

    /// An SPI bus of the header: its pins and the chip select are claimed.
    /// Returns (bus, chip select, clock in Hz).
    pub(super) fn spi(&mut self, key: &str, raw: &RawSpi) -> (u8, u8, u32) {
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

    /// The I2C bus of the header (bus 1): its pins are claimed.
    pub(super) fn i2c_bus(&mut self, key: &str, bus: i64) -> u8 {
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

    /// A switch matrix without a diode per switch is refused.
    pub(super) fn diodes(&mut self, key: &str, diodes: bool) {
        if !diodes {
            self.problem(format!("{key}.diodes"), format!("refused: {GHOSTING}"));
        }
    }

    /// Settle time per row (or channel) must fit `steps` times in a scan period.
    pub(super) fn settle_fits(&mut self, settle_us: u32, steps: u32, what: &str, rate_hz: u32) {
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
}
