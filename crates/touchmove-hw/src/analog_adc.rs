//! Linear Hall sensors behind four CD74HC4067 multiplexers and one ADC.
//!
//! The four multiplexers share their select lines S0–S3 (GPIO outputs) and
//! have their enable pins tied low; multiplexer m's common output goes to ADC
//! input `adc_inputs[m]`. Sensor `16 * m + c` sits on channel c of
//! multiplexer m. A scan sets each channel in turn, waits the settle time and
//! converts the four multiplexer outputs. The ADC is an MCP3008 (10 bits,
//! SPI) or an ADS1115 (16 bits, I2C; at most 860 conversions a second, so a
//! 64-sensor scan takes at least 75 ms).
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal::i2c::I2c;
use embedded_hal::spi::{Operation, SpiDevice};

use super::hal::{self, pi};
use super::mapping::Mapping;
use super::{Scan, Scanner, SensorError};
use touchmove_core::Millis;

/// Which converter reads the multiplexers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdcConfig {
    Mcp3008 {
        bus: u8,
        chip_select: u8,
        clock_hz: u32,
    },
    Ads1115 {
        bus: u8,
        /// 0x48–0x4B (ADDR to GND, VDD, SDA, SCL).
        address: u8,
    },
}

/// A validated `[hall-adc]` profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalogAdcConfig {
    /// BCM pins of S0..S3.
    pub select: [u8; 4],
    /// The ADC input each multiplexer's output goes to.
    pub adc_inputs: [u8; 4],
    pub adc: AdcConfig,
    /// Wait after changing channel, before converting.
    pub settle_us: u32,
    pub mapping: Mapping,
}

/// An analog-to-digital converter: one conversion of one input.
pub trait Adc {
    fn convert(&mut self, input: u8) -> Result<i32, SensorError>;
}

/// The MCP3008: 10 bits, single-ended inputs 0–7, over SPI.
pub struct Mcp3008<S> {
    spi: S,
}

impl<S: SpiDevice<u8>> Mcp3008<S> {
    pub fn new(spi: S) -> Self {
        Mcp3008 { spi }
    }
}

impl<S: SpiDevice<u8>> Adc for Mcp3008<S> {
    fn convert(&mut self, input: u8) -> Result<i32, SensorError> {
        // Start bit, then SGL = 1 and D2..D0; the answer's last 10 bits.
        let write = [0x01, 0x80 | (input & 0x7) << 4, 0x00];
        let mut read = [0u8; 3];
        self.spi
            .transaction(&mut [Operation::Transfer(&mut read, &write)])
            .map_err(|e| hal::io_error(&format!("MCP3008 conversion of input {input}"), e))?;
        Ok(i32::from(
            u16::from(read[1] & 0x3) << 8 | u16::from(read[2]),
        ))
    }
}

/// The ADS1115: 16 bits signed, single-ended inputs 0–3, over I2C.
pub struct Ads1115<I, D> {
    i2c: I,
    address: u8,
    delay: D,
}

impl<I: I2c, D: DelayNs> Ads1115<I, D> {
    pub fn new(i2c: I, address: u8, delay: D) -> Self {
        Ads1115 {
            i2c,
            address,
            delay,
        }
    }

    fn fail(&self, what: &str, e: impl std::fmt::Debug) -> SensorError {
        SensorError::Io(format!(
            "ADS1115 at 0x{:02X}: {what} failed: {e:?}",
            self.address
        ))
    }
}

/// Conversion and configuration registers.
const ADS_CONVERSION: u8 = 0x00;
const ADS_CONFIG: u8 = 0x01;
/// OS = start, PGA = ±4.096 V, MODE = single shot, DR = 860 SPS, comparator off.
const ADS_START: u16 = 0x8000 | 0b001 << 9 | 1 << 8 | 0b111 << 5 | 0b11;

impl<I: I2c, D: DelayNs> Adc for Ads1115<I, D> {
    fn convert(&mut self, input: u8) -> Result<i32, SensorError> {
        let config = ADS_START | u16::from(0b100 | (input & 0x3)) << 12;
        let [high, low] = config.to_be_bytes();
        self.i2c
            .write(self.address, &[ADS_CONFIG, high, low])
            .map_err(|e| self.fail("starting a conversion", e))?;
        // One conversion at 860 SPS takes 1.16 ms; poll OS until it is done.
        self.delay.delay_us(1_200);
        let mut done = false;
        for _ in 0..20 {
            let mut status = [0u8; 2];
            self.i2c
                .write_read(self.address, &[ADS_CONFIG], &mut status)
                .map_err(|e| self.fail("polling the conversion", e))?;
            if status[0] & 0x80 != 0 {
                done = true;
                break;
            }
            self.delay.delay_us(100);
        }
        if !done {
            return Err(self.fail("a conversion", "still busy after 3 ms"));
        }
        let mut result = [0u8; 2];
        self.i2c
            .write_read(self.address, &[ADS_CONVERSION], &mut result)
            .map_err(|e| self.fail("reading the conversion", e))?;
        Ok(i32::from(i16::from_be_bytes(result)))
    }
}

/// The Hall backend over any select pins and ADC.
pub struct AnalogMux<P, A, D> {
    select: [P; 4],
    adc: A,
    adc_inputs: [u8; 4],
    delay: D,
    settle_us: u32,
    mapping: Mapping,
    description: String,
}

impl<P: OutputPin, A: Adc, D: DelayNs> AnalogMux<P, A, D> {
    pub fn new(
        select: [P; 4],
        adc: A,
        delay: D,
        config: &AnalogAdcConfig,
        description: String,
    ) -> Self {
        AnalogMux {
            select,
            adc,
            adc_inputs: config.adc_inputs,
            delay,
            settle_us: config.settle_us,
            mapping: config.mapping,
            description,
        }
    }

    /// The level of every sensor, by sensor index `16 * mux + channel`.
    pub(crate) fn read_levels(&mut self) -> Result<[i32; 64], SensorError> {
        let mut levels = [0i32; 64];
        for channel in 0..16u8 {
            for (bit, pin) in self.select.iter_mut().enumerate() {
                pin.set_state((channel >> bit & 1 == 1).into())
                    .map_err(|e| hal::io_error(&format!("setting S{bit}"), e))?;
            }
            self.delay.delay_us(self.settle_us);
            for (mux, &input) in self.adc_inputs.iter().enumerate() {
                levels[16 * mux + usize::from(channel)] = self.adc.convert(input)?;
            }
        }
        Ok(levels)
    }
}

impl<P: OutputPin, A: Adc, D: DelayNs> Scanner for AnalogMux<P, A, D> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn scan(&mut self, _now: Millis) -> Result<Scan, SensorError> {
        let levels = self.read_levels()?;
        Ok(Scan::Analog(self.mapping.levels_to_squares(&levels)))
    }
}

/// Opens the multiplexers and the ADC on the Pi; `who` names the profile in messages.
pub fn open(config: &AnalogAdcConfig, who: &str) -> Result<Box<dyn Scanner>, SensorError> {
    let gpio = pi::gpio(who)?;
    let mut select = Vec::with_capacity(4);
    for &bcm in &config.select {
        select.push(pi::output_low(&gpio, bcm, who)?);
    }
    let Ok(select) = <[_; 4]>::try_from(select) else {
        unreachable!("four select pins were pushed");
    };
    match config.adc {
        AdcConfig::Mcp3008 {
            bus,
            chip_select,
            clock_hz,
        } => {
            let spi = pi::spi(bus, chip_select, clock_hz, who)?;
            let adc = Mcp3008::new(rppal::spi::SimpleHalSpiDevice::new(spi));
            Ok(Box::new(AnalogMux::new(
                select,
                adc,
                pi::delay(),
                config,
                who.to_owned(),
            )))
        }
        AdcConfig::Ads1115 { bus, address } => {
            let i2c = pi::i2c(bus, who)?;
            let mut adc = Ads1115::new(i2c, address, pi::delay());
            // Fail now, with the address, if no converter answers.
            adc.convert(0).map_err(|e| {
                SensorError::Unavailable(format!(
                    "{who}: no ADS1115 answered at 0x{address:02X} on I2C bus {bus} ({e})"
                ))
            })?;
            Ok(Box::new(AnalogMux::new(
                select,
                adc,
                pi::delay(),
                config,
                who.to_owned(),
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hal::fake::FakeAnalogBoard;
    use crate::hal::matrix_circuit::VirtualDelay;
    use crate::mapping::Orientation;

    fn config() -> AnalogAdcConfig {
        AnalogAdcConfig {
            select: [5, 6, 13, 19],
            adc_inputs: [3, 1, 0, 2],
            adc: AdcConfig::Ads1115 {
                bus: 1,
                address: 0x48,
            },
            settle_us: 5,
            mapping: Mapping::from_orientation(Orientation::Identity),
        }
    }

    #[test]
    fn reads_each_sensor_through_its_mux_and_input() {
        let levels: [i32; 64] = std::array::from_fn(|i| i as i32 * 13 - 300);
        let board = FakeAnalogBoard::new([3, 1, 0, 2]);
        board.set_levels(levels);
        let mut over_i2c = AnalogMux::new(
            board.select_pins(),
            Ads1115::new(board.ads1115(0x48), 0x48, VirtualDelay::default()),
            VirtualDelay::default(),
            &config(),
            "ads".into(),
        );
        assert_eq!(over_i2c.read_levels().unwrap(), levels);

        let clamped = levels.map(|v| v.clamp(0, 1023));
        let mut over_spi = AnalogMux::new(
            board.select_pins(),
            Mcp3008::new(board.mcp3008()),
            VirtualDelay::default(),
            &config(),
            "mcp".into(),
        );
        assert_eq!(over_spi.read_levels().unwrap(), clamped);
    }

    #[test]
    fn a_missing_ads1115_is_an_error_naming_its_address() {
        let board = FakeAnalogBoard::new([0, 1, 2, 3]);
        let mut adc = Ads1115::new(board.ads1115(0x49), 0x48, VirtualDelay::default());
        let message = adc.convert(0).unwrap_err().to_string();
        assert!(message.contains("0x48"), "{message}");
    }
}
