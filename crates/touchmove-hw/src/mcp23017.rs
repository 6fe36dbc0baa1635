//! A switch matrix behind MCP23017 I2C port expanders.
//!
//! Any pin of any expander on the bus may be a row (output) or a column (input
//! with the chip's pull-up), except that GPA7 and GPB7 cannot be inputs: in
//! current datasheet revisions they are output-only. The stock wiring
//! (`hw/mcp23017.toml`) uses two chips: rows on port A of the chip at 0x20
//! (GPA7 as an output is fine), columns on GPA0–GPA3 and GPB0–GPB3 of the chip
//! at 0x21.
//!
//! The registers are addressed with IOCON.BANK = 0 (the power-on default,
//! which [`Mcp23017Matrix::new`] restores).
use std::fmt;
use std::str::FromStr;

use embedded_hal::delay::DelayNs;
use embedded_hal::i2c::I2c;

use super::hal::pi;
use super::mapping::Mapping;
use super::{Scan, Scanner, SensorError, gpio_matrix::GHOSTING};
use touchmove_core::Millis;

const IODIRA: u8 = 0x00;
const GPPUA: u8 = 0x0C;
const GPIOA: u8 = 0x12;
const OLATA: u8 = 0x14;
/// IOCON when BANK = 1; GPINTENB when BANK = 0.
const IOCON_BANK1: u8 = 0x05;
const IOCON: u8 = 0x0A;

/// Port A or B of an MCP23017.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Port {
    A,
    B,
}

impl Port {
    /// 0 for A, 1 for B: the offset of its register from port A's.
    pub fn index(self) -> u8 {
        match self {
            Port::A => 0,
            Port::B => 1,
        }
    }
}

/// One pin of one expander: `0x20:GPA0` in a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct McpPin {
    /// 7-bit I2C address, 0x20–0x27.
    pub address: u8,
    pub port: Port,
    /// 0–7.
    pub bit: u8,
}

impl McpPin {
    /// GPA7 and GPB7 are output-only.
    pub(crate) fn can_be_input(self) -> bool {
        self.bit != 7
    }
}

impl fmt::Display for McpPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let port = match self.port {
            Port::A => 'A',
            Port::B => 'B',
        };
        write!(f, "0x{:02X}:GP{port}{}", self.address, self.bit)
    }
}

impl FromStr for McpPin {
    type Err = String;

    fn from_str(text: &str) -> Result<McpPin, String> {
        let expected = || format!("{text:?} is not a pin like \"0x20:GPA0\"");
        let (address, pin) = text.split_once(':').ok_or_else(expected)?;
        let address = address
            .strip_prefix("0x")
            .or_else(|| address.strip_prefix("0X"))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .ok_or_else(expected)?;
        if !(0x20..=0x27).contains(&address) {
            return Err(format!(
                "{text:?}: 0x{address:02X} is not an MCP23017 address (0x20 to 0x27)"
            ));
        }
        let pin = pin.to_ascii_uppercase();
        let rest = pin.strip_prefix("GP").ok_or_else(expected)?;
        let port = match rest.chars().next() {
            Some('A') => Port::A,
            Some('B') => Port::B,
            _ => return Err(expected()),
        };
        let bit = rest[1..]
            .parse::<u8>()
            .ok()
            .filter(|b| *b < 8)
            .ok_or_else(expected)?;
        Ok(McpPin { address, port, bit })
    }
}

/// A validated `[mcp23017]` profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mcp23017Config {
    /// I2C bus number (1: header pins 3 and 5).
    pub bus: u8,
    /// Rows 0..7 (outputs, driven low one at a time).
    pub rows: [McpPin; 8],
    /// Columns 0..7 (inputs with pull-ups; never GPA7/GPB7).
    pub columns: [McpPin; 8],
    pub diodes: bool,
    pub settle_us: u32,
    pub mapping: Mapping,
}

/// The MCP23017 backend over any I2C bus.
pub struct Mcp23017Matrix<I, D> {
    i2c: I,
    delay: D,
    rows: [McpPin; 8],
    columns: [McpPin; 8],
    /// Every chip used, with the latch value that releases all its rows.
    chips: Vec<(u8, [u8; 2])>,
    settle_us: u32,
    mapping: Mapping,
    description: String,
}

impl<I: I2c, D: DelayNs> Mcp23017Matrix<I, D> {
    /// Sets up every chip: rows as outputs released high, columns as inputs
    /// with pull-ups. Refuses a column on GPA7/GPB7 and a matrix without diodes.
    pub fn new(
        i2c: I,
        delay: D,
        config: &Mcp23017Config,
        description: String,
    ) -> Result<Self, SensorError> {
        if !config.diodes {
            return Err(SensorError::Unavailable(format!(
                "{description}: refused: {GHOSTING}"
            )));
        }
        if let Some(pin) = config.columns.iter().find(|p| !p.can_be_input()) {
            return Err(SensorError::Unavailable(format!(
                "{description}: refused: column {pin} is on GPA7/GPB7, which are output-only"
            )));
        }
        let mut addresses: Vec<u8> = config
            .rows
            .iter()
            .chain(&config.columns)
            .map(|p| p.address)
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        let chips = addresses.into_iter().map(|a| (a, [0xFF, 0xFF])).collect();
        let mut matrix = Mcp23017Matrix {
            i2c,
            delay,
            rows: config.rows,
            columns: config.columns,
            chips,
            settle_us: config.settle_us,
            mapping: config.mapping,
            description,
        };
        matrix.configure()?;
        Ok(matrix)
    }

    fn write(&mut self, address: u8, bytes: &[u8]) -> Result<(), SensorError> {
        self.i2c.write(address, bytes).map_err(|e| {
            SensorError::Io(format!(
                "{}: writing register 0x{:02X} of the MCP23017 at 0x{address:02X} failed: {e:?}",
                self.description, bytes[0]
            ))
        })
    }

    fn configure(&mut self) -> Result<(), SensorError> {
        for (address, latch) in self.chips.clone() {
            let mask = |pins: &[McpPin; 8], port: Port| {
                pins.iter()
                    .filter(|p| p.address == address && p.port == port)
                    .fold(0u8, |m, p| m | 1 << p.bit)
            };
            let outputs = [mask(&self.rows, Port::A), mask(&self.rows, Port::B)];
            let pull_ups = [mask(&self.columns, Port::A), mask(&self.columns, Port::B)];
            // Back to BANK = 0 whatever the chip was left in, sequential addressing on.
            self.write(address, &[IOCON_BANK1, 0])?;
            self.write(address, &[IOCON, 0])?;
            self.write(address, &[OLATA, latch[0], latch[1]])?;
            self.write(address, &[GPPUA, pull_ups[0], pull_ups[1]])?;
            self.write(address, &[IODIRA, !outputs[0], !outputs[1]])?;
        }
        Ok(())
    }

    fn released(&self, address: u8) -> [u8; 2] {
        self.chips
            .iter()
            .find(|(a, _)| *a == address)
            .map(|(_, latch)| *latch)
            .unwrap_or([0xFF, 0xFF])
    }

    fn set_row(&mut self, row: McpPin, driven: bool) -> Result<(), SensorError> {
        let mut latch = self.released(row.address)[usize::from(row.port.index())];
        if driven {
            latch &= !(1 << row.bit);
        }
        self.write(row.address, &[OLATA + row.port.index(), latch])
    }

    /// The closed switches, bit `8 * row + column`.
    pub(crate) fn read_switches(&mut self) -> Result<u64, SensorError> {
        let mut closed = 0u64;
        for r in 0..8 {
            let row = self.rows[r];
            self.set_row(row, true)?;
            self.delay.delay_us(self.settle_us);
            let mut levels = Vec::with_capacity(self.chips.len());
            for (address, _) in self.chips.clone() {
                if !self.columns.iter().any(|c| c.address == address) {
                    continue;
                }
                let mut ports = [0u8; 2];
                self.i2c
                    .write_read(address, &[GPIOA], &mut ports)
                    .map_err(|e| {
                        SensorError::Io(format!(
                            "{}: reading the columns from the MCP23017 at 0x{address:02X} failed: {e:?}",
                            self.description
                        ))
                    })?;
                levels.push((address, ports));
            }
            for (c, column) in self.columns.iter().enumerate() {
                let ports = levels
                    .iter()
                    .find(|(a, _)| *a == column.address)
                    .map(|(_, p)| *p)
                    .unwrap_or([0xFF, 0xFF]);
                let low = ports[usize::from(column.port.index())] >> column.bit & 1 == 0;
                closed |= u64::from(low) << (8 * r + c);
            }
            self.set_row(row, false)?;
        }
        Ok(closed)
    }
}

impl<I: I2c, D: DelayNs> Scanner for Mcp23017Matrix<I, D> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn scan(&mut self, _now: Millis) -> Result<Scan, SensorError> {
        let closed = self.read_switches()?;
        Ok(Scan::Occupancy(self.mapping.to_squares(closed)))
    }
}

/// Opens the expanders on the Pi's I2C bus; `who` names the profile in messages.
pub fn open(config: &Mcp23017Config, who: &str) -> Result<Box<dyn Scanner>, SensorError> {
    let i2c = pi::i2c(config.bus, who)?;
    let matrix = Mcp23017Matrix::new(i2c, pi::delay(), config, who.to_owned()).map_err(|e| {
        match e {
            // The bus opened but no chip answered: say which.
            SensorError::Io(detail) => SensorError::Unavailable(format!(
                "{detail}; is the expander wired and powered, at the address the profile names?"
            )),
            other => other,
        }
    })?;
    Ok(Box::new(matrix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hal::fake::FakeMcp23017Bus;
    use crate::hal::matrix_circuit::VirtualDelay;
    use crate::mapping::Orientation;

    fn pins(list: [&str; 8]) -> [McpPin; 8] {
        list.map(|p| p.parse().unwrap())
    }

    #[test]
    fn pins_parse_and_print() {
        let pin: McpPin = "0x21:gpb3".parse().unwrap();
        assert_eq!(
            pin,
            McpPin {
                address: 0x21,
                port: Port::B,
                bit: 3
            }
        );
        assert_eq!(pin.to_string(), "0x21:GPB3");
        assert!(
            "0x28:GPA0"
                .parse::<McpPin>()
                .unwrap_err()
                .contains("0x20 to 0x27")
        );
        assert!("0x20:GPC0".parse::<McpPin>().is_err());
        assert!("0x20:GPA8".parse::<McpPin>().is_err());
    }

    #[test]
    fn configures_the_chips_and_refuses_input_on_bit_seven() {
        let rows = pins([
            "0x20:GPA0",
            "0x20:GPA1",
            "0x20:GPA2",
            "0x20:GPA3",
            "0x20:GPA4",
            "0x20:GPA5",
            "0x20:GPA6",
            "0x20:GPA7",
        ]);
        let columns = pins([
            "0x21:GPA0",
            "0x21:GPA1",
            "0x21:GPA2",
            "0x21:GPA3",
            "0x21:GPB0",
            "0x21:GPB1",
            "0x21:GPB2",
            "0x21:GPB3",
        ]);
        let bus = FakeMcp23017Bus::new(rows, columns, true);
        let config = Mcp23017Config {
            bus: 1,
            rows,
            columns,
            diodes: true,
            settle_us: 10,
            mapping: Mapping::from_orientation(Orientation::Identity),
        };
        let mut matrix =
            Mcp23017Matrix::new(bus.clone(), VirtualDelay::default(), &config, "t".into()).unwrap();
        assert_eq!(
            bus.register(0x20, IODIRA),
            Some(0x00),
            "port A all rows out"
        );
        assert_eq!(bus.register(0x21, IODIRA), Some(0xFF));
        assert_eq!(bus.register(0x21, GPPUA), Some(0x0F));
        assert_eq!(bus.register(0x21, GPPUA + 1), Some(0x0F));
        bus.set_closed(1 << 63 | 1 << 4);
        assert_eq!(matrix.read_switches().unwrap(), 1 << 63 | 1 << 4);
        assert_eq!(bus.register(0x20, OLATA), Some(0xFF), "rows released");

        let mut bad = config.clone();
        bad.columns[7] = "0x21:GPB7".parse().unwrap();
        let refused = Mcp23017Matrix::new(bus, VirtualDelay::default(), &bad, "t".into());
        assert!(refused.err().unwrap().to_string().contains("output-only"));
    }
}
