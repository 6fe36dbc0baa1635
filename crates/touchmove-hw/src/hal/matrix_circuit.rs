//! The electrical circuit of a diode matrix of switches: a driven row pulls
//! down the columns its closed switches connect it to, through a diode or
//! not. The simulated board reads its squares through it (so that wiring
//! faults show as they would on a real board), and the backends' tests
//! drive the GPIO matrix backend with it.
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use embedded_hal::delay::DelayNs;

use embedded_hal::digital::{self, InputPin, OutputPin};

pub(crate) fn lock<T>(state: &Mutex<T>) -> MutexGuard<'_, T> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A matrix of switches: which are closed, and whether each has its diode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatrixWiring {
    /// Bit `8 * row + column` set when that switch is closed.
    pub closed: u64,
    /// One diode in series with every switch (row side cathode).
    pub diodes: bool,
    /// Switches whose diode is missing (bridged) although `diodes` is set:
    /// they conduct both ways, like a matrix without diodes.
    pub missing_diodes: u64,
    /// Switches whose diode is fitted the wrong way round: they never pull
    /// their column down when their own row is driven (the square reads
    /// empty), but conduct backwards from a low column into their row.
    pub reversed_diodes: u64,
}

impl MatrixWiring {
    fn row_of(bits: u64, row: u32) -> u8 {
        (bits >> (8 * row)) as u8
    }

    /// The columns pulled low while the rows in `driven` (bit r = row r) are
    /// driven low and the other rows float.
    ///
    /// With diodes only a switch on a driven row conducts. Without them current
    /// also flows backwards through any closed switch, so a column reaches a
    /// driven row through other rows: three closed corners of a rectangle make
    /// the fourth read closed (ghosting). A missing diode does the same through
    /// its one switch; a reversed one conducts backwards only, so its own
    /// square reads empty while it ghosts others.
    pub(crate) fn columns_low(&self, driven: u8) -> u8 {
        // A low row pulls a column low through a closed switch whose diode
        // (if any) lets current flow from the column into the row.
        let forward = if self.diodes {
            self.closed & !self.reversed_diodes
        } else {
            self.closed
        };
        // A low column pulls a floating row low through a closed switch
        // whose diode is missing or reversed (or through any without diodes).
        let backward = if self.diodes {
            self.closed & (self.missing_diodes | self.reversed_diodes)
        } else {
            self.closed
        };
        let mut rows = driven;
        loop {
            let columns = (0..8)
                .filter(|r| rows >> r & 1 == 1)
                .fold(0u8, |c, r| c | Self::row_of(forward, r));
            let reached = (0..8)
                .filter(|&r| Self::row_of(backward, r) & columns != 0)
                .fold(rows, |acc, r| acc | 1 << r);
            if reached == rows {
                return columns;
            }
            rows = reached;
        }
    }
}

/// A delay that only advances a shared virtual clock (no real waiting).
#[derive(Debug, Clone, Default)]
pub struct VirtualDelay {
    clock: Arc<AtomicU64>,
}

impl VirtualDelay {
    /// Nanoseconds waited so far.
    pub(crate) fn elapsed_ns(&self) -> u64 {
        self.clock.load(Ordering::Relaxed)
    }
}

impl DelayNs for VirtualDelay {
    fn delay_ns(&mut self, ns: u32) {
        self.clock.fetch_add(u64::from(ns), Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------- GPIO matrix

#[derive(Debug, Default)]
struct GpioMatrixState {
    wiring: MatrixWiring,
    /// Bit r set while row r is driven low.
    rows_low: u8,
    /// Fake-clock time each row was last driven low.
    driven_at: [u64; 8],
    /// How long a driven row takes to pull its columns down.
    settle_ns: u64,
}

/// Eight row outputs and eight column inputs with pull-ups, wired to a switch matrix.
#[derive(Debug, Clone, Default)]
pub struct MatrixCircuit {
    state: Arc<Mutex<GpioMatrixState>>,
    delay: VirtualDelay,
}

impl MatrixCircuit {
    /// The rows driven low (tests).
    #[cfg(test)]
    pub(crate) fn rows_low(&self) -> u8 {
        lock(&self.state).rows_low
    }

    pub fn new(diodes: bool) -> MatrixCircuit {
        let fake = MatrixCircuit::default();
        lock(&fake.state).wiring.diodes = diodes;
        fake
    }

    /// Closes the switches of bit `8 * row + column`, opens the others.
    pub fn set_closed(&self, closed: u64) {
        lock(&self.state).wiring.closed = closed;
    }

    /// Switches (bit `8 * row + column`) whose diode is missing, and those
    /// whose diode is fitted the wrong way round (see [`MatrixWiring`]).
    pub(crate) fn set_diode_faults(&self, missing: u64, reversed: u64) {
        let mut state = lock(&self.state);
        state.wiring.missing_diodes = missing;
        state.wiring.reversed_diodes = reversed;
    }

    /// A driven row pulls its columns down only after `ns` of fake time.
    pub fn set_settle_ns(&self, ns: u64) {
        lock(&self.state).settle_ns = ns;
    }

    pub fn row_pins(&self) -> [CircuitRowPin; 8] {
        std::array::from_fn(|row| CircuitRowPin {
            fake: self.clone(),
            row,
        })
    }

    pub fn column_pins(&self) -> [CircuitColumnPin; 8] {
        std::array::from_fn(|column| CircuitColumnPin {
            fake: self.clone(),
            column,
        })
    }

    /// The delay that advances this matrix's clock.
    pub fn delay(&self) -> VirtualDelay {
        self.delay.clone()
    }
}

/// A row output of [`MatrixCircuit`].
#[derive(Debug)]
pub struct CircuitRowPin {
    fake: MatrixCircuit,
    row: usize,
}

impl digital::ErrorType for CircuitRowPin {
    type Error = Infallible;
}

impl OutputPin for CircuitRowPin {
    fn set_low(&mut self) -> Result<(), Infallible> {
        let now = self.fake.delay.elapsed_ns();
        let mut state = lock(&self.fake.state);
        if state.rows_low & 1 << self.row == 0 {
            state.driven_at[self.row] = now;
        }
        state.rows_low |= 1 << self.row;
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        lock(&self.fake.state).rows_low &= !(1 << self.row);
        Ok(())
    }
}

/// A column input of [`MatrixCircuit`] (pulled up).
#[derive(Debug)]
pub struct CircuitColumnPin {
    fake: MatrixCircuit,
    column: usize,
}

impl digital::ErrorType for CircuitColumnPin {
    type Error = Infallible;
}

impl InputPin for CircuitColumnPin {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        let now = self.fake.delay.elapsed_ns();
        let state = lock(&self.fake.state);
        let settled = (0..8)
            .filter(|&r| {
                state.rows_low >> r & 1 == 1 && now - state.driven_at[r] >= state.settle_ns
            })
            .fold(0u8, |acc, r| acc | 1 << r);
        Ok(state.wiring.columns_low(settled) >> self.column & 1 == 0)
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        self.is_high().map(|high| !high)
    }
}
