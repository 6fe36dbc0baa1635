//! Reed switches in an 8×8 matrix wired straight to the Pi's GPIO.
//!
//! Eight row outputs, eight column inputs with pull-ups, one diode in series
//! with every switch (cathode towards the row). A scan drives one row low at a
//! time, waits the settle time, reads the columns (low = closed) and releases
//! the row.
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};

use super::hal::{self, pi};
use super::mapping::Mapping;
use super::{Scan, Scanner, SensorError};
use touchmove_core::Millis;

/// Why a matrix must have a diode per switch.
pub const GHOSTING: &str = "a switch matrix without a diode per switch ghosts: when three \
     corners of a rectangle of squares are occupied, current flows backwards through \
     the closed switches and the fourth corner reads occupied too, so the board would \
     report pieces that are not there; fit a diode in series with every switch \
     (cathode towards the row) and set `diodes = true`";

/// A validated `[gpio-matrix]` profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpioMatrixConfig {
    /// BCM numbers of rows 0..7 (outputs, driven low one at a time).
    pub rows: [u8; 8],
    /// BCM numbers of columns 0..7 (inputs with pull-ups).
    pub columns: [u8; 8],
    /// Whether every switch has its diode (must be true).
    pub diodes: bool,
    /// How long a driven row is left to settle before the columns are read.
    pub settle_us: u32,
    pub mapping: Mapping,
}

/// Reads the closed switches of a matrix, bit `8 * row + column`.
///
/// Each row is driven low, left `settle_us`, the columns read, then released
/// (high). Without diodes the result may hold ghosts; [`GpioMatrix`] refuses
/// such wiring.
pub(crate) fn read_switches<O, I, D>(
    rows: &mut [O; 8],
    columns: &mut [I; 8],
    delay: &mut D,
    settle_us: u32,
) -> Result<u64, SensorError>
where
    O: OutputPin,
    I: InputPin,
    D: DelayNs,
{
    let mut closed = 0u64;
    for (r, row) in rows.iter_mut().enumerate() {
        row.set_low()
            .map_err(|e| hal::io_error(&format!("driving row {r}"), e))?;
        delay.delay_us(settle_us);
        for (c, column) in columns.iter_mut().enumerate() {
            let low = column
                .is_low()
                .map_err(|e| hal::io_error(&format!("reading column {c}"), e))?;
            closed |= u64::from(low) << (8 * r + c);
        }
        row.set_high()
            .map_err(|e| hal::io_error(&format!("releasing row {r}"), e))?;
    }
    Ok(closed)
}

/// The GPIO matrix backend over any embedded-hal pins.
pub struct GpioMatrix<O, I, D> {
    rows: [O; 8],
    columns: [I; 8],
    delay: D,
    settle_us: u32,
    mapping: Mapping,
    description: String,
}

impl<O, I, D> GpioMatrix<O, I, D>
where
    O: OutputPin,
    I: InputPin,
    D: DelayNs,
{
    /// Takes the pins; refuses a matrix without diodes ([`GHOSTING`]).
    pub fn new(
        mut rows: [O; 8],
        columns: [I; 8],
        delay: D,
        config: &GpioMatrixConfig,
        description: String,
    ) -> Result<Self, SensorError> {
        if !config.diodes {
            return Err(SensorError::Unavailable(format!(
                "{description}: refused: {GHOSTING}"
            )));
        }
        for (r, row) in rows.iter_mut().enumerate() {
            row.set_high()
                .map_err(|e| hal::io_error(&format!("releasing row {r}"), e))?;
        }
        Ok(GpioMatrix {
            rows,
            columns,
            delay,
            settle_us: config.settle_us,
            mapping: config.mapping,
            description,
        })
    }
}

impl<O, I, D> Scanner for GpioMatrix<O, I, D>
where
    O: OutputPin,
    I: InputPin,
    D: DelayNs,
{
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn scan(&mut self, _now: Millis) -> Result<Scan, SensorError> {
        let closed = read_switches(
            &mut self.rows,
            &mut self.columns,
            &mut self.delay,
            self.settle_us,
        )?;
        Ok(Scan::Occupancy(self.mapping.to_squares(closed)))
    }
}

/// Opens the matrix on the Pi's GPIO; `who` names the profile in messages.
pub fn open(config: &GpioMatrixConfig, who: &str) -> Result<Box<dyn Scanner>, SensorError> {
    let gpio = pi::gpio(who)?;
    let mut rows = Vec::with_capacity(8);
    for &bcm in &config.rows {
        rows.push(pi::output_high(&gpio, bcm, who)?);
    }
    let mut columns = Vec::with_capacity(8);
    for &bcm in &config.columns {
        columns.push(pi::input_pullup(&gpio, bcm, who)?);
    }
    let (Ok(rows), Ok(columns)) = (rows.try_into(), columns.try_into()) else {
        unreachable!("eight of each were pushed");
    };
    let matrix = GpioMatrix::new(rows, columns, pi::delay(), config, who.to_owned())?;
    Ok(Box::new(matrix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hal::matrix_circuit::MatrixCircuit;
    use crate::mapping::Orientation;

    fn config(diodes: bool) -> GpioMatrixConfig {
        GpioMatrixConfig {
            rows: [4, 17, 27, 22, 5, 6, 13, 19],
            columns: [26, 18, 23, 24, 25, 12, 16, 20],
            diodes,
            settle_us: 20,
            mapping: Mapping::from_orientation(Orientation::Identity),
        }
    }

    #[test]
    fn without_diodes_the_fake_reads_a_ghost_and_the_backend_refuses() {
        let fake = MatrixCircuit::new(false);
        // b2, f2 and b6 occupied: rows 1 and 5, columns 1 and 5.
        let closed = 1 << 9 | 1 << 13 | 1 << 41;
        fake.set_closed(closed);
        let read = read_switches(
            &mut fake.row_pins(),
            &mut fake.column_pins(),
            &mut fake.delay(),
            20,
        )
        .unwrap();
        assert_eq!(read, closed | 1 << 45, "f6 reads occupied: a ghost");

        let refused = GpioMatrix::new(
            fake.row_pins(),
            fake.column_pins(),
            fake.delay(),
            &config(false),
            "board profile \"bare\"".into(),
        );
        let message = refused.err().expect("refused").to_string();
        assert!(message.contains("ghost"), "{message}");
        assert!(message.contains("diodes = true"), "{message}");
    }

    #[test]
    fn with_diodes_there_is_no_ghost() {
        let fake = MatrixCircuit::new(true);
        let closed = 1 << 9 | 1 << 13 | 1 << 41;
        fake.set_closed(closed);
        let mut matrix = GpioMatrix::new(
            fake.row_pins(),
            fake.column_pins(),
            fake.delay(),
            &config(true),
            "test".into(),
        )
        .unwrap();
        assert_eq!(
            matrix.scan(0).unwrap(),
            Scan::Occupancy(shakmaty::Bitboard(closed))
        );
        assert_eq!(fake.rows_low(), 0, "every row released after the scan");
    }

    #[test]
    fn waits_the_settle_time_before_reading() {
        let fake = MatrixCircuit::new(true);
        fake.set_closed(u64::MAX);
        fake.set_settle_ns(15_000);
        let read = |settle_us| {
            read_switches(
                &mut fake.row_pins(),
                &mut fake.column_pins(),
                &mut fake.delay(),
                settle_us,
            )
            .unwrap()
        };
        assert_eq!(read(10), 0, "read before the rows settled");
        assert_eq!(read(20), u64::MAX);
    }
}
