//! The Raspberry Pi's own pins and buses through rppal.
//!
//! Every function fails with one sentence saying what was tried and that this
//! is not a Raspberry Pi or the device is missing: never a panic.
use rppal::gpio::{Gpio, InputPin, OutputPin};
use rppal::i2c::I2c;
use rppal::spi::{Bus, Mode, SlaveSelect, Spi};

use crate::SensorError;

/// The delay the backends use on a Pi: a spin sleep, accurate to microseconds.
pub type Delay = rppal::hal::Delay;

/// A new delay.
pub fn delay() -> Delay {
    rppal::hal::Delay::new()
}

/// Opens the GPIO. `who` names the board profile in the error.
pub fn gpio(who: &str) -> Result<Gpio, SensorError> {
    Gpio::new().map_err(|e| {
        SensorError::Unavailable(format!(
            "{who}: could not open the GPIO ({e}); this is not a Raspberry Pi, \
             or /dev/gpiomem is missing or not accessible"
        ))
    })
}

fn pin(gpio: &Gpio, bcm: u8, who: &str) -> Result<rppal::gpio::Pin, SensorError> {
    gpio.get(bcm)
        .map_err(|e| SensorError::Unavailable(format!("{who}: could not claim GPIO {bcm} ({e})")))
}

/// A pin driven as an output, starting high (a matrix row released).
pub(crate) fn output_high(gpio: &Gpio, bcm: u8, who: &str) -> Result<OutputPin, SensorError> {
    Ok(pin(gpio, bcm, who)?.into_output_high())
}

/// A pin driven as an output, starting low (a clock line idle).
pub(crate) fn output_low(gpio: &Gpio, bcm: u8, who: &str) -> Result<OutputPin, SensorError> {
    Ok(pin(gpio, bcm, who)?.into_output_low())
}

/// An input with the internal pull-up on (a matrix column).
pub(crate) fn input_pullup(gpio: &Gpio, bcm: u8, who: &str) -> Result<InputPin, SensorError> {
    Ok(pin(gpio, bcm, who)?.into_input_pullup())
}

/// An input with the internal pull-down on (a button to 3.3 V).
pub(crate) fn input_pulldown(gpio: &Gpio, bcm: u8, who: &str) -> Result<InputPin, SensorError> {
    Ok(pin(gpio, bcm, who)?.into_input_pulldown())
}

/// An input without pull (a chip's push-pull output, such as 74HC165 QH).
pub fn input(gpio: &Gpio, bcm: u8, who: &str) -> Result<InputPin, SensorError> {
    Ok(pin(gpio, bcm, who)?.into_input())
}

/// Opens an SPI bus in mode 0.
pub fn spi(bus: u8, chip_select: u8, clock_hz: u32, who: &str) -> Result<Spi, SensorError> {
    let unavailable = |detail: String| {
        SensorError::Unavailable(format!(
            "{who}: could not open SPI bus {bus} chip select {chip_select} ({detail}); \
             this is not a Raspberry Pi, or /dev/spidev{bus}.{chip_select} is missing \
             (enable SPI with raspi-config)"
        ))
    };
    let bus_id = match bus {
        0 => Bus::Spi0,
        1 => Bus::Spi1,
        other => return Err(unavailable(format!("no SPI bus {other} is supported"))),
    };
    let select = match chip_select {
        0 => SlaveSelect::Ss0,
        1 => SlaveSelect::Ss1,
        2 => SlaveSelect::Ss2,
        other => return Err(unavailable(format!("no chip select {other} is supported"))),
    };
    Spi::new(bus_id, select, clock_hz, Mode::Mode0).map_err(|e| unavailable(e.to_string()))
}

/// Opens an I2C bus.
pub fn i2c(bus: u8, who: &str) -> Result<I2c, SensorError> {
    I2c::with_bus(bus).map_err(|e| {
        SensorError::Unavailable(format!(
            "{who}: could not open I2C bus {bus} ({e}); this is not a Raspberry Pi, \
             or /dev/i2c-{bus} is missing (enable I2C with raspi-config)"
        ))
    })
}
