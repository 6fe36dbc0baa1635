//! SPI mode 0, most significant bit first, on three GPIO pins.
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};
use embedded_hal::spi::{ErrorKind, ErrorType, SpiBus};

/// A bit-banged SPI bus (mode 0, MSB first): data out changes while the clock
/// is low, data in is sampled just before the rising edge.
pub struct BitBangSpi<C, O, I, D> {
    clock: C,
    data_out: O,
    data_in: I,
    delay: D,
    half_period_ns: u32,
}

impl<C, O, I, D> BitBangSpi<C, O, I, D>
where
    C: OutputPin,
    O: OutputPin,
    I: InputPin,
    D: DelayNs,
{
    /// A bus whose clock idles low; `half_period_ns` is how long each clock
    /// level is held (0: as fast as the pins go).
    pub fn new(
        mut clock: C,
        data_out: O,
        data_in: I,
        delay: D,
        half_period_ns: u32,
    ) -> Result<Self, ErrorKind> {
        clock.set_low().map_err(|_| ErrorKind::Other)?;
        Ok(BitBangSpi {
            clock,
            data_out,
            data_in,
            delay,
            half_period_ns,
        })
    }

    fn wait(&mut self) {
        if self.half_period_ns > 0 {
            self.delay.delay_ns(self.half_period_ns);
        }
    }

    fn exchange(&mut self, out: u8) -> Result<u8, ErrorKind> {
        let mut read = 0u8;
        for bit in (0..8).rev() {
            self.data_out
                .set_state((out >> bit & 1 == 1).into())
                .map_err(|_| ErrorKind::Other)?;
            self.wait();
            let high = self.data_in.is_high().map_err(|_| ErrorKind::Other)?;
            read |= u8::from(high) << bit;
            self.clock.set_high().map_err(|_| ErrorKind::Other)?;
            self.wait();
            self.clock.set_low().map_err(|_| ErrorKind::Other)?;
        }
        Ok(read)
    }
}

impl<C, O, I, D> ErrorType for BitBangSpi<C, O, I, D> {
    type Error = ErrorKind;
}

impl<C, O, I, D> SpiBus<u8> for BitBangSpi<C, O, I, D>
where
    C: OutputPin,
    O: OutputPin,
    I: InputPin,
    D: DelayNs,
{
    fn read(&mut self, words: &mut [u8]) -> Result<(), ErrorKind> {
        for word in words {
            *word = self.exchange(0)?;
        }
        Ok(())
    }

    fn write(&mut self, words: &[u8]) -> Result<(), ErrorKind> {
        for &word in words {
            self.exchange(word)?;
        }
        Ok(())
    }

    fn transfer(&mut self, read: &mut [u8], write: &[u8]) -> Result<(), ErrorKind> {
        for i in 0..read.len().max(write.len()) {
            let got = self.exchange(write.get(i).copied().unwrap_or(0))?;
            if let Some(slot) = read.get_mut(i) {
                *slot = got;
            }
        }
        Ok(())
    }

    fn transfer_in_place(&mut self, words: &mut [u8]) -> Result<(), ErrorKind> {
        for word in words {
            *word = self.exchange(*word)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ErrorKind> {
        Ok(())
    }
}
