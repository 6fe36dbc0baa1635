//! How backends reach the hardware: the embedded-hal 1.0 traits.
//!
//! On a Raspberry Pi, rppal implements them ([`pi`]). [`matrix_circuit`]
//! is the electrical circuit of a switch matrix, which the simulated board
//! reads through; in tests (the `testing` feature), `fake` simulates each
//! other wiring electrically. [`bitbang`] makes an SPI bus out of three
//! GPIO pins.
pub mod bitbang;
#[cfg(any(test, feature = "testing"))]
pub mod fake;
pub mod matrix_circuit;
pub mod pi;

use std::fmt::Debug;

use super::SensorError;

/// The GPIO pins of the 40-pin header: (BCM number, physical pin).
pub(crate) const HEADER: [(u8, u8); 28] = [
    (0, 27),
    (1, 28),
    (2, 3),
    (3, 5),
    (4, 7),
    (5, 29),
    (6, 31),
    (7, 26),
    (8, 24),
    (9, 21),
    (10, 19),
    (11, 23),
    (12, 32),
    (13, 33),
    (14, 8),
    (15, 10),
    (16, 36),
    (17, 11),
    (18, 12),
    (19, 35),
    (20, 38),
    (21, 40),
    (22, 15),
    (23, 16),
    (24, 18),
    (25, 22),
    (26, 37),
    (27, 13),
];

/// The physical header pin of a BCM GPIO number, if the header has it.
pub(crate) fn physical_pin(bcm: u8) -> Option<u8> {
    HEADER
        .iter()
        .find(|(gpio, _)| *gpio == bcm)
        .map(|(_, pin)| *pin)
}

/// A failed transfer on a bus or pin, as a [`SensorError::Io`].
pub(crate) fn io_error(what: &str, error: impl Debug) -> SensorError {
    SensorError::Io(format!("{what} failed: {error:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_pins_are_distinct_and_on_the_header() {
        for (i, (bcm, pin)) in HEADER.iter().enumerate() {
            assert_eq!(usize::from(*bcm), i);
            assert!((1..=40).contains(pin));
            assert_eq!(HEADER.iter().filter(|(_, p)| p == pin).count(), 1);
        }
        assert_eq!(physical_pin(17), Some(11));
        assert_eq!(physical_pin(28), None);
    }
}
