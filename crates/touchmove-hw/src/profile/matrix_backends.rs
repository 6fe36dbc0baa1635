//! `[gpio-matrix]`, `[shift-register]` and `[mcp23017]`: the backends that
//! scan an 8×8 switch matrix row by row.
use super::Backend;
use super::checker::Checker;
use super::raw::{RawBitBang, RawProfile, RawShiftRegister};
use crate::gpio_matrix::GpioMatrixConfig;
use crate::mcp23017::{self, Mcp23017Config, McpPin};
use crate::shift_register::{ShiftBus, ShiftRegisterConfig};

impl Checker {
    /// `[gpio-matrix]`: eight row pins and eight column pins of the header.
    pub(super) fn gpio_matrix(&mut self, raw: &RawProfile, settle_us: u32) -> Option<Backend> {
        let mapping = self.mapping(raw);
        let Some(table) = &raw.gpio_matrix else {
            self.missing_table("gpio-matrix");
            return None;
        };
        let rows = self.pins::<8>("gpio-matrix.rows", &table.rows);
        let columns = self.pins::<8>("gpio-matrix.columns", &table.columns);
        self.diodes("gpio-matrix", table.diodes);
        self.settle_fits(settle_us, 8, "rows", raw.scan_rate_hz);
        Some(Backend::GpioMatrix(GpioMatrixConfig {
            rows,
            columns,
            diodes: table.diodes,
            settle_us,
            mapping,
        }))
    }

    /// `[shift-register]`: latch and load pins and one link, SPI or GPIO.
    pub(super) fn shift_register(&mut self, raw: &RawProfile, settle_us: u32) -> Option<Backend> {
        let mapping = self.mapping(raw);
        let Some(table) = &raw.shift_register else {
            self.missing_table("shift-register");
            return None;
        };
        let latch = self.bcm("shift-register.latch".into(), table.latch);
        let load = self.bcm("shift-register.load".into(), table.load);
        let link = self.shift_link(table)?;
        self.diodes("shift-register", table.diodes);
        self.settle_fits(settle_us, 8, "rows", raw.scan_rate_hz);
        Some(Backend::ShiftRegister(ShiftRegisterConfig {
            link,
            latch,
            load,
            diodes: table.diodes,
            settle_us,
            mapping,
        }))
    }

    /// Exactly one of `[shift-register.spi]` and `[shift-register.gpio]`.
    fn shift_link(&mut self, table: &RawShiftRegister) -> Option<ShiftBus> {
        match (&table.spi, &table.gpio) {
            (Some(spi), None) => {
                let (bus, chip_select, clock_hz) = self.spi("shift-register.spi", spi);
                Some(ShiftBus::Spi {
                    bus,
                    chip_select,
                    clock_hz,
                })
            }
            (None, Some(gpio)) => Some(self.bit_bang(gpio)),
            _ => {
                self.problem(
                    "shift-register",
                    "give exactly one of [shift-register.spi] and [shift-register.gpio]",
                );
                None
            }
        }
    }

    /// `[shift-register.gpio]`: three pins of the header clocked by hand.
    fn bit_bang(&mut self, gpio: &RawBitBang) -> ShiftBus {
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

    /// `[mcp23017]`: the I2C bus and sixteen expander pins, all different.
    pub(super) fn mcp23017(&mut self, raw: &RawProfile, settle_us: u32) -> Option<Backend> {
        let mapping = self.mapping(raw);
        let Some(table) = &raw.mcp23017 else {
            self.missing_table("mcp23017");
            return None;
        };
        let bus = self.i2c_bus("mcp23017.bus", table.bus);
        let rows = self.mcp_pins("mcp23017.rows", &table.rows, false);
        let columns = self.mcp_pins("mcp23017.columns", &table.columns, true);
        self.mcp_pins_distinct(&rows, &columns);
        self.diodes("mcp23017", table.diodes);
        self.settle_fits(settle_us, 8, "rows", raw.scan_rate_hz);
        Some(Backend::Mcp23017(Mcp23017Config {
            bus,
            rows,
            columns,
            diodes: table.diodes,
            settle_us,
            mapping,
        }))
    }

    /// Eight expander pins (`0x20:GPA0`); columns are inputs.
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

    /// No expander pin serves twice among the rows and columns.
    fn mcp_pins_distinct(&mut self, rows: &[McpPin; 8], columns: &[McpPin; 8]) {
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
    }
}
