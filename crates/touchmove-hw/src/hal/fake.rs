//! Fakes that simulate each wiring electrically, for tests and benchmarks.
//!
//! Each fake holds what lies on the board (by sensor index, `8 * row + column`)
//! and answers the backend's pins and buses as the real circuit would: a
//! driven row pulls down the columns its closed switches connect it to; the
//! shift registers shift on clock edges; the MCP23017 has a register file; the
//! multiplexers route one Hall sensor to each ADC input.
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use embedded_hal::digital::{self, InputPin, OutputPin};
use embedded_hal::i2c::{self, I2c, NoAcknowledgeSource};
use embedded_hal::spi::{self, Operation, SpiBus, SpiDevice};

use super::matrix_circuit::{MatrixWiring, lock};
use crate::mcp23017::{McpPin, Port};

// ------------------------------------------------------------ shift registers

#[derive(Debug, Default)]
struct ShiftState {
    wiring: MatrixWiring,
    /// 74HC595 shift register and output (storage) register: Qi drives row i.
    shift_595: u8,
    outputs_595: u8,
    /// 74HC165 shift register: bit 7 is QH; Di reads column i.
    shift_165: u8,
    load_low: bool,
    latch_high: bool,
    clock_high: bool,
    data_out: bool,
}

impl ShiftState {
    fn parallel_load(&mut self) {
        let driven = !self.outputs_595;
        self.shift_165 = !self.wiring.columns_low(driven);
    }

    fn data_in(&self) -> bool {
        self.shift_165 & 0x80 != 0
    }

    /// A rising edge of the shared clock (595 SRCLK and 165 CLK).
    fn clock_edge(&mut self) {
        self.shift_595 = self.shift_595 << 1 | u8::from(self.data_out);
        if self.load_low {
            self.parallel_load();
        } else {
            // The 165's serial input (DS) is tied high.
            self.shift_165 = self.shift_165 << 1 | 1;
        }
    }

    fn exchange(&mut self, out: u8) -> u8 {
        let mut read = 0;
        for bit in (0..8).rev() {
            read |= u8::from(self.data_in()) << bit;
            self.data_out = out >> bit & 1 == 1;
            self.clock_edge();
        }
        read
    }
}

/// One 74HC595 driving the eight rows and one 74HC165 reading the eight
/// columns (pulled up), sharing a clock; reachable as an SPI bus or as pins.
#[derive(Debug, Clone)]
pub struct FakeShiftRegisters {
    state: Arc<Mutex<ShiftState>>,
}

impl FakeShiftRegisters {
    /// The rows driven low (tests).
    #[cfg(test)]
    pub(crate) fn rows_low(&self) -> u8 {
        !lock(&self.state).outputs_595
    }

    /// The 595's outputs power up high: no row driven.
    pub fn new(diodes: bool) -> FakeShiftRegisters {
        let state = ShiftState {
            wiring: MatrixWiring {
                diodes,
                ..MatrixWiring::default()
            },
            outputs_595: 0xFF,
            ..ShiftState::default()
        };
        FakeShiftRegisters {
            state: Arc::new(Mutex::new(state)),
        }
    }

    pub fn set_closed(&self, closed: u64) {
        lock(&self.state).wiring.closed = closed;
    }

    /// The SPI bus: MOSI to the 595's SER, SCLK to both clocks, MISO from the 165's QH.
    pub fn spi(&self) -> FakeShiftSpi {
        FakeShiftSpi { fake: self.clone() }
    }

    /// The 595's RCLK (latches on the rising edge).
    pub fn latch_pin(&self) -> FakeShiftPin {
        self.pin(ShiftLine::Latch)
    }

    /// The 165's SH/LD (loads the columns while low).
    pub fn load_pin(&self) -> FakeShiftPin {
        self.pin(ShiftLine::Load)
    }

    /// The shared clock, for a bit-banged bus.
    pub fn clock_pin(&self) -> FakeShiftPin {
        self.pin(ShiftLine::Clock)
    }

    /// The 595's SER, for a bit-banged bus.
    pub fn data_out_pin(&self) -> FakeShiftPin {
        self.pin(ShiftLine::DataOut)
    }

    /// The 165's QH, for a bit-banged bus.
    pub fn data_in_pin(&self) -> FakeShiftPin {
        self.pin(ShiftLine::DataIn)
    }

    fn pin(&self, line: ShiftLine) -> FakeShiftPin {
        FakeShiftPin {
            fake: self.clone(),
            line,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShiftLine {
    Latch,
    Load,
    Clock,
    DataOut,
    DataIn,
}

/// One line of [`FakeShiftRegisters`].
#[derive(Debug)]
pub struct FakeShiftPin {
    fake: FakeShiftRegisters,
    line: ShiftLine,
}

impl digital::ErrorType for FakeShiftPin {
    type Error = Infallible;
}

impl OutputPin for FakeShiftPin {
    fn set_low(&mut self) -> Result<(), Infallible> {
        let mut state = lock(&self.fake.state);
        match self.line {
            ShiftLine::Latch => state.latch_high = false,
            ShiftLine::Load => {
                state.load_low = true;
                state.parallel_load();
            }
            ShiftLine::Clock => state.clock_high = false,
            ShiftLine::DataOut => state.data_out = false,
            ShiftLine::DataIn => {}
        }
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        let mut state = lock(&self.fake.state);
        match self.line {
            ShiftLine::Latch => {
                if !state.latch_high {
                    state.outputs_595 = state.shift_595;
                }
                state.latch_high = true;
            }
            ShiftLine::Load => state.load_low = false,
            ShiftLine::Clock => {
                if !state.clock_high {
                    state.clock_edge();
                }
                state.clock_high = true;
            }
            ShiftLine::DataOut => state.data_out = true,
            ShiftLine::DataIn => {}
        }
        Ok(())
    }
}

impl InputPin for FakeShiftPin {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        Ok(lock(&self.fake.state).data_in())
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        self.is_high().map(|high| !high)
    }
}

/// The SPI bus of [`FakeShiftRegisters`] (mode 0, MSB first).
#[derive(Debug)]
pub struct FakeShiftSpi {
    fake: FakeShiftRegisters,
}

impl spi::ErrorType for FakeShiftSpi {
    type Error = spi::ErrorKind;
}

impl SpiBus<u8> for FakeShiftSpi {
    fn read(&mut self, words: &mut [u8]) -> Result<(), spi::ErrorKind> {
        let mut state = lock(&self.fake.state);
        for word in words {
            *word = state.exchange(0);
        }
        Ok(())
    }

    fn write(&mut self, words: &[u8]) -> Result<(), spi::ErrorKind> {
        let mut state = lock(&self.fake.state);
        for &word in words {
            state.exchange(word);
        }
        Ok(())
    }

    fn transfer(&mut self, read: &mut [u8], write: &[u8]) -> Result<(), spi::ErrorKind> {
        let mut state = lock(&self.fake.state);
        for i in 0..read.len().max(write.len()) {
            let got = state.exchange(write.get(i).copied().unwrap_or(0));
            if let Some(slot) = read.get_mut(i) {
                *slot = got;
            }
        }
        Ok(())
    }

    fn transfer_in_place(&mut self, words: &mut [u8]) -> Result<(), spi::ErrorKind> {
        let mut state = lock(&self.fake.state);
        for word in words {
            *word = state.exchange(*word);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), spi::ErrorKind> {
        Ok(())
    }
}

// ------------------------------------------------------------------ MCP23017

/// MCP23017 registers (IOCON.BANK = 0, the power-on default).
mod reg {
    pub(crate) const IODIRA: u8 = 0x00;
    pub(crate) const GPPUA: u8 = 0x0C;
    pub const GPIOA: u8 = 0x12;
    pub const GPIOB: u8 = 0x13;
    pub(crate) const OLATA: u8 = 0x14;
    pub(crate) const COUNT: u8 = 0x16;
}

#[derive(Debug, Clone)]
struct McpChip {
    address: u8,
    registers: [u8; reg::COUNT as usize],
    pointer: u8,
}

impl McpChip {
    fn new(address: u8) -> McpChip {
        let mut registers = [0; reg::COUNT as usize];
        // IODIRA and IODIRB power up as all inputs.
        registers[0] = 0xFF;
        registers[1] = 0xFF;
        McpChip {
            address,
            registers,
            pointer: 0,
        }
    }

    fn register(&self, base: u8, port: Port) -> u8 {
        self.registers[usize::from(base + port.index())]
    }

    fn is_output(&self, pin: McpPin) -> bool {
        self.register(reg::IODIRA, pin.port) >> pin.bit & 1 == 0
    }

    fn latch(&self, pin: McpPin) -> bool {
        self.register(reg::OLATA, pin.port) >> pin.bit & 1 == 1
    }
}

#[derive(Debug)]
struct McpState {
    wiring: MatrixWiring,
    rows: [McpPin; 8],
    columns: [McpPin; 8],
    chips: Vec<McpChip>,
}

impl McpState {
    fn chip(&self, address: u8) -> Option<usize> {
        self.chips.iter().position(|c| c.address == address)
    }

    /// What a read of GPIOA/GPIOB returns on `chip`.
    fn port_levels(&self, chip: usize, port: Port) -> u8 {
        let driven = self.rows.iter().enumerate().fold(0u8, |acc, (r, pin)| {
            let driving = self
                .chip(pin.address)
                .map(|c| &self.chips[c])
                .is_some_and(|c| c.is_output(*pin) && !c.latch(*pin));
            acc | u8::from(driving) << r
        });
        let low = self.wiring.columns_low(driven);
        let this = &self.chips[chip];
        (0..8).fold(0u8, |acc, bit| {
            let pin = McpPin {
                address: this.address,
                port,
                bit,
            };
            let high = if this.is_output(pin) {
                this.latch(pin)
            } else if bit == 7 {
                // GPA7/GPB7 have no input buffer in current silicon.
                false
            } else {
                let column = self.columns.iter().position(|c| *c == pin);
                let pulled_down = column.is_some_and(|c| low >> c & 1 == 1);
                let pulled_up = this.register(reg::GPPUA, port) >> bit & 1 == 1;
                pulled_up && !pulled_down
            };
            acc | u8::from(high) << bit
        })
    }

    fn write(&mut self, chip: usize, bytes: &[u8]) {
        let Some((&pointer, data)) = bytes.split_first() else {
            return;
        };
        self.chips[chip].pointer = pointer % reg::COUNT;
        for &byte in data {
            let c = &mut self.chips[chip];
            let at = match c.pointer {
                reg::GPIOA | reg::GPIOB => c.pointer + 2,
                other => other,
            };
            c.registers[usize::from(at)] = byte;
            c.pointer = (c.pointer + 1) % reg::COUNT;
        }
    }

    fn read(&mut self, chip: usize, buffer: &mut [u8]) {
        for slot in buffer {
            let pointer = self.chips[chip].pointer;
            *slot = match pointer {
                reg::GPIOA => self.port_levels(chip, Port::A),
                reg::GPIOB => self.port_levels(chip, Port::B),
                other => self.chips[chip].registers[usize::from(other)],
            };
            self.chips[chip].pointer = (pointer + 1) % reg::COUNT;
        }
    }
}

/// An I2C bus with MCP23017 expanders whose pins are wired to a switch matrix.
#[derive(Debug, Clone)]
pub struct FakeMcp23017Bus {
    state: Arc<Mutex<McpState>>,
}

impl FakeMcp23017Bus {
    /// One chip at every address that `rows` and `columns` name.
    pub fn new(rows: [McpPin; 8], columns: [McpPin; 8], diodes: bool) -> FakeMcp23017Bus {
        let mut chips: Vec<McpChip> = Vec::new();
        for pin in rows.iter().chain(&columns) {
            if !chips.iter().any(|c| c.address == pin.address) {
                chips.push(McpChip::new(pin.address));
            }
        }
        let state = McpState {
            wiring: MatrixWiring {
                diodes,
                ..MatrixWiring::default()
            },
            rows,
            columns,
            chips,
        };
        FakeMcp23017Bus {
            state: Arc::new(Mutex::new(state)),
        }
    }

    pub fn set_closed(&self, closed: u64) {
        lock(&self.state).wiring.closed = closed;
    }

    /// A register of the chip at `address`.
    pub fn register(&self, address: u8, register: u8) -> Option<u8> {
        let state = lock(&self.state);
        let chip = state.chip(address)?;
        state.chips[chip]
            .registers
            .get(usize::from(register))
            .copied()
    }
}

impl i2c::ErrorType for FakeMcp23017Bus {
    type Error = i2c::ErrorKind;
}

impl I2c for FakeMcp23017Bus {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [i2c::Operation<'_>],
    ) -> Result<(), i2c::ErrorKind> {
        let mut state = lock(&self.state);
        let chip = state
            .chip(address)
            .ok_or(i2c::ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address))?;
        for operation in operations {
            match operation {
                i2c::Operation::Write(bytes) => state.write(chip, bytes),
                i2c::Operation::Read(buffer) => state.read(chip, buffer),
            }
        }
        Ok(())
    }
}

// ------------------------------------------------------------- Hall + ADC

#[derive(Debug)]
struct HallState {
    /// ADC reading of each sensor, by sensor index `16 * mux + channel`.
    levels: [i32; 64],
    /// The select lines S0..S3 of the four multiplexers.
    select: u8,
    /// The ADC input each multiplexer's output goes to.
    adc_input_of_mux: [u8; 4],
    /// ADS1115: register pointer, configuration and last conversion.
    ads_pointer: u8,
    ads_config: u16,
    ads_result: i16,
}

impl HallState {
    fn level(&self, adc_input: u8) -> Option<i32> {
        let mux = self.adc_input_of_mux.iter().position(|&i| i == adc_input)?;
        Some(self.levels[16 * mux + usize::from(self.select)])
    }
}

/// Four CD74HC4067 multiplexers with shared select lines, in front of an ADC.
#[derive(Debug, Clone)]
pub struct FakeAnalogBoard {
    state: Arc<Mutex<HallState>>,
}

impl FakeAnalogBoard {
    /// `adc_input_of_mux[m]`: the ADC input multiplexer m feeds.
    pub fn new(adc_input_of_mux: [u8; 4]) -> FakeAnalogBoard {
        let state = HallState {
            levels: [0; 64],
            select: 0,
            adc_input_of_mux,
            ads_pointer: 0,
            ads_config: 0x8583,
            ads_result: 0,
        };
        FakeAnalogBoard {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The ADC reading of every sensor, by sensor index.
    pub fn set_levels(&self, levels: [i32; 64]) {
        lock(&self.state).levels = levels;
    }

    /// S0..S3.
    pub fn select_pins(&self) -> [FakeSelectPin; 4] {
        std::array::from_fn(|bit| FakeSelectPin {
            fake: self.clone(),
            bit,
        })
    }

    /// An MCP3008 on its own chip select.
    pub fn mcp3008(&self) -> FakeMcp3008 {
        FakeMcp3008 { fake: self.clone() }
    }

    /// An I2C bus with one ADS1115 at `address`.
    pub fn ads1115(&self, address: u8) -> FakeAds1115Bus {
        FakeAds1115Bus {
            fake: self.clone(),
            address,
        }
    }
}

/// One select line of [`FakeAnalogBoard`].
#[derive(Debug)]
pub struct FakeSelectPin {
    fake: FakeAnalogBoard,
    bit: usize,
}

impl digital::ErrorType for FakeSelectPin {
    type Error = Infallible;
}

impl OutputPin for FakeSelectPin {
    fn set_low(&mut self) -> Result<(), Infallible> {
        lock(&self.fake.state).select &= !(1 << self.bit);
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        lock(&self.fake.state).select |= 1 << self.bit;
        Ok(())
    }
}

/// An MCP3008 (10 bits, 8 single-ended inputs) on SPI.
#[derive(Debug)]
pub struct FakeMcp3008 {
    fake: FakeAnalogBoard,
}

impl FakeMcp3008 {
    /// The chip's answer to one transaction's bytes.
    fn answer(&self, sent: &[u8]) -> Vec<u8> {
        let mut reply = vec![0; sent.len()];
        // Start bit in byte 0, SGL/DIFF and D2..D0 at the top of byte 1,
        // result: B9..B8 low in byte 1, B7..B0 in byte 2.
        if sent.len() == 3 && sent[0] & 1 == 1 && sent[1] & 0x80 != 0 {
            let input = sent[1] >> 4 & 0x7;
            let value = lock(&self.fake.state)
                .level(input)
                .unwrap_or(0)
                .clamp(0, 1023) as u16;
            reply[1] = (value >> 8) as u8;
            reply[2] = value as u8;
        }
        reply
    }
}

impl spi::ErrorType for FakeMcp3008 {
    type Error = spi::ErrorKind;
}

impl SpiDevice<u8> for FakeMcp3008 {
    fn transaction(&mut self, operations: &mut [Operation<'_, u8>]) -> Result<(), spi::ErrorKind> {
        for operation in operations {
            match operation {
                Operation::Transfer(read, write) => {
                    let reply = self.answer(write);
                    for (slot, byte) in read.iter_mut().zip(reply) {
                        *slot = byte;
                    }
                }
                Operation::TransferInPlace(words) => {
                    let reply = self.answer(words);
                    words.copy_from_slice(&reply);
                }
                Operation::Read(words) => words.fill(0),
                Operation::Write(_) | Operation::DelayNs(_) => {}
            }
        }
        Ok(())
    }
}

/// An I2C bus with one ADS1115 (16 bits, 4 inputs).
#[derive(Debug)]
pub struct FakeAds1115Bus {
    fake: FakeAnalogBoard,
    address: u8,
}

impl i2c::ErrorType for FakeAds1115Bus {
    type Error = i2c::ErrorKind;
}

impl I2c for FakeAds1115Bus {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [i2c::Operation<'_>],
    ) -> Result<(), i2c::ErrorKind> {
        if address != self.address {
            return Err(i2c::ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address));
        }
        let mut state = lock(&self.fake.state);
        for operation in operations {
            match operation {
                i2c::Operation::Write(bytes) => {
                    if let Some((&pointer, data)) = bytes.split_first() {
                        state.ads_pointer = pointer & 0x3;
                        if pointer == 0x01 && data.len() == 2 {
                            let config = u16::from_be_bytes([data[0], data[1]]);
                            state.ads_config = config | 0x8000;
                            if config & 0x8000 != 0 {
                                // Single-ended input n is MUX = 0b100 + n.
                                let mux = (config >> 12 & 0x7) as u8;
                                let level = if mux >= 4 {
                                    state.level(mux - 4).unwrap_or(0)
                                } else {
                                    0
                                };
                                state.ads_result =
                                    level.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
                            }
                        }
                    }
                }
                i2c::Operation::Read(buffer) => {
                    let word = match state.ads_pointer {
                        0 => state.ads_result as u16,
                        1 => state.ads_config,
                        _ => 0,
                    };
                    for (slot, byte) in buffer.iter_mut().zip(word.to_be_bytes()) {
                        *slot = byte;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_corners_without_diodes_ghost_the_fourth() {
        // Rows 1 and 5, columns 2 and 6: close three corners.
        let corner = |row: u32, column: u32| 1u64 << (8 * row + column);
        let closed = corner(1, 2) | corner(1, 6) | corner(5, 2);
        let with = MatrixWiring {
            closed,
            diodes: true,
            ..MatrixWiring::default()
        };
        let without = MatrixWiring {
            closed,
            diodes: false,
            ..MatrixWiring::default()
        };
        assert_eq!(with.columns_low(1 << 5), 1 << 2);
        assert_eq!(without.columns_low(1 << 5), 1 << 2 | 1 << 6, "the ghost");
        assert_eq!(without.columns_low(1 << 3), 0, "an empty row stays clear");
    }

    #[test]
    fn a_reversed_diode_reads_empty_and_ghosts_its_row_into_others() {
        let at = |row: u32, column: u32| 1u64 << (8 * row + column);
        // Row 1 full (pawns), a piece on row 3 column 2, and the diode of
        // (1, 2) fitted the wrong way round.
        let closed = 0xFFu64 << 8 | at(3, 2);
        let wiring = MatrixWiring {
            closed,
            diodes: true,
            missing_diodes: 0,
            reversed_diodes: at(1, 2),
        };
        assert_eq!(
            wiring.columns_low(1 << 1),
            !(1u8 << 2),
            "(1, 2) reads empty"
        );
        assert_eq!(
            wiring.columns_low(1 << 3),
            0xFF,
            "column 2 pulls row 1 down through the reversed diode: row 3 ghosts"
        );
        let missing = MatrixWiring {
            reversed_diodes: 0,
            missing_diodes: at(1, 2),
            ..wiring
        };
        assert_eq!(
            missing.columns_low(1 << 1),
            0xFF,
            "a missing diode still reads"
        );
        assert_eq!(missing.columns_low(1 << 3), 0xFF, "and ghosts the same way");
        let sound = MatrixWiring {
            missing_diodes: 0,
            ..missing
        };
        assert_eq!(sound.columns_low(1 << 3), 1 << 2);
    }
}
