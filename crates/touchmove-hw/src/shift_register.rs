//! A switch matrix behind shift registers: a 74HC595 drives the eight rows,
//! a 74HC165 reads the eight columns.
//!
//! Both chips share one clock. The 595's serial input (SER) takes the data
//! out line, its RCLK is the latch pin; the 165's SH/LD is the load pin, its
//! QH the data in line, its serial input DS tied high, its CLK INH tied low.
//! The lines are an SPI bus (mode 0, MSB first) or three GPIO pins driven by
//! [`BitBangSpi`]. Row i is the 595's Qi; column i is the 165's Di, pulled up.
//!
//! Per row: shift out a byte with only that row's bit low, pulse the latch,
//! wait the settle time, pulse the load, shift in the columns (low = closed).
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal::spi::SpiBus;

use super::hal::bitbang::BitBangSpi;
use super::hal::{self, pi};
use super::mapping::Mapping;
use super::{Scan, Scanner, SensorError, gpio_matrix::GHOSTING};
use touchmove_core::Millis;

/// How the Pi talks to the shift registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShiftBus {
    /// A hardware SPI bus: MOSI → 595 SER, SCLK → both clocks, MISO ← 165 QH.
    Spi {
        bus: u8,
        chip_select: u8,
        clock_hz: u32,
    },
    /// Three GPIO pins (BCM), bit-banged.
    Gpio {
        clock: u8,
        data_out: u8,
        data_in: u8,
        /// Clock rate aimed at; the pins may be slower.
        clock_hz: u32,
    },
}

/// A validated `[shift-register]` profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShiftRegisterConfig {
    pub link: ShiftBus,
    /// BCM pin to the 595's RCLK.
    pub latch: u8,
    /// BCM pin to the 165's SH/LD.
    pub load: u8,
    pub diodes: bool,
    pub settle_us: u32,
    pub mapping: Mapping,
}

/// The shift-register backend over any SPI bus and pins.
pub struct ShiftRegisterMatrix<S, P, D> {
    spi: S,
    latch: P,
    load: P,
    delay: D,
    settle_us: u32,
    mapping: Mapping,
    description: String,
}

impl<S, P, D> ShiftRegisterMatrix<S, P, D>
where
    S: SpiBus<u8>,
    P: OutputPin,
    D: DelayNs,
{
    /// Takes the bus and pins, releases every row; refuses a matrix without diodes.
    pub fn new(
        spi: S,
        latch: P,
        load: P,
        delay: D,
        config: &ShiftRegisterConfig,
        description: String,
    ) -> Result<Self, SensorError> {
        if !config.diodes {
            return Err(SensorError::Unavailable(format!(
                "{description}: refused: {GHOSTING}"
            )));
        }
        let mut matrix = ShiftRegisterMatrix {
            spi,
            latch,
            load,
            delay,
            settle_us: config.settle_us,
            mapping: config.mapping,
            description,
        };
        matrix
            .load
            .set_high()
            .map_err(|e| hal::io_error("setting SH/LD high", e))?;
        matrix.drive_rows(0xFF)?;
        Ok(matrix)
    }

    /// Shifts `outputs` into the 595 and latches it (a 0 bit drives its row low).
    fn drive_rows(&mut self, outputs: u8) -> Result<(), SensorError> {
        self.spi
            .write(&[outputs])
            .map_err(|e| hal::io_error("shifting out the rows", e))?;
        self.latch
            .set_low()
            .map_err(|e| hal::io_error("latching the rows", e))?;
        self.latch
            .set_high()
            .map_err(|e| hal::io_error("latching the rows", e))?;
        self.latch
            .set_low()
            .map_err(|e| hal::io_error("latching the rows", e))
    }

    /// Loads the columns into the 165 and shifts them in (bit i = Di).
    fn read_columns(&mut self) -> Result<u8, SensorError> {
        self.load
            .set_low()
            .map_err(|e| hal::io_error("loading the columns", e))?;
        self.load
            .set_high()
            .map_err(|e| hal::io_error("loading the columns", e))?;
        let mut byte = [0u8];
        self.spi
            .read(&mut byte)
            .map_err(|e| hal::io_error("shifting in the columns", e))?;
        Ok(byte[0])
    }

    /// The closed switches, bit `8 * row + column`.
    pub(crate) fn read_switches(&mut self) -> Result<u64, SensorError> {
        let mut closed = 0u64;
        for row in 0..8 {
            self.drive_rows(!(1u8 << row))?;
            self.delay.delay_us(self.settle_us);
            let columns_low = !self.read_columns()?;
            closed |= u64::from(columns_low) << (8 * row);
        }
        self.drive_rows(0xFF)?;
        Ok(closed)
    }
}

impl<S, P, D> Scanner for ShiftRegisterMatrix<S, P, D>
where
    S: SpiBus<u8>,
    P: OutputPin,
    D: DelayNs,
{
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn scan(&mut self, _now: Millis) -> Result<Scan, SensorError> {
        let closed = self.read_switches()?;
        Ok(Scan::Occupancy(self.mapping.to_squares(closed)))
    }
}

/// Opens the shift registers on the Pi; `who` names the profile in messages.
pub fn open(config: &ShiftRegisterConfig, who: &str) -> Result<Box<dyn Scanner>, SensorError> {
    let gpio = pi::gpio(who)?;
    let latch = pi::output_low(&gpio, config.latch, who)?;
    let load = pi::output_high(&gpio, config.load, who)?;
    match config.link {
        ShiftBus::Spi {
            bus,
            chip_select,
            clock_hz,
        } => {
            let spi = pi::spi(bus, chip_select, clock_hz, who)?;
            let matrix =
                ShiftRegisterMatrix::new(spi, latch, load, pi::delay(), config, who.to_owned())?;
            Ok(Box::new(matrix))
        }
        ShiftBus::Gpio {
            clock,
            data_out,
            data_in,
            clock_hz,
        } => {
            let half_period_ns = 500_000_000 / clock_hz.max(1);
            let spi = BitBangSpi::new(
                pi::output_low(&gpio, clock, who)?,
                pi::output_low(&gpio, data_out, who)?,
                pi::input(&gpio, data_in, who)?,
                pi::delay(),
                half_period_ns,
            )
            .map_err(|e| hal::io_error("setting the clock low", e))?;
            let matrix =
                ShiftRegisterMatrix::new(spi, latch, load, pi::delay(), config, who.to_owned())?;
            Ok(Box::new(matrix))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hal::fake::FakeShiftRegisters;
    use crate::hal::matrix_circuit::VirtualDelay;
    use crate::mapping::Orientation;

    fn config() -> ShiftRegisterConfig {
        ShiftRegisterConfig {
            link: ShiftBus::Spi {
                bus: 0,
                chip_select: 0,
                clock_hz: 1_000_000,
            },
            latch: 23,
            load: 24,
            diodes: true,
            settle_us: 10,
            mapping: Mapping::from_orientation(Orientation::Identity),
        }
    }

    #[test]
    fn reads_each_switch_alone_over_spi_and_bit_banged() {
        for sensor in [0, 7, 8, 35, 56, 63] {
            let fake = FakeShiftRegisters::new(true);
            fake.set_closed(1 << sensor);
            let mut over_spi = ShiftRegisterMatrix::new(
                fake.spi(),
                fake.latch_pin(),
                fake.load_pin(),
                VirtualDelay::default(),
                &config(),
                "spi".into(),
            )
            .unwrap();
            assert_eq!(over_spi.read_switches().unwrap(), 1 << sensor);
            assert_eq!(fake.rows_low(), 0, "rows released");

            let bus = BitBangSpi::new(
                fake.clock_pin(),
                fake.data_out_pin(),
                fake.data_in_pin(),
                VirtualDelay::default(),
                500,
            )
            .unwrap();
            let mut bit_banged = ShiftRegisterMatrix::new(
                bus,
                fake.latch_pin(),
                fake.load_pin(),
                VirtualDelay::default(),
                &config(),
                "gpio".into(),
            )
            .unwrap();
            assert_eq!(bit_banged.read_switches().unwrap(), 1 << sensor);
        }
    }
}
