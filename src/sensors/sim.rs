//! The simulated board (being built).
use super::{Scanner, SensorError};

/// How a simulated board is set up (the `[sim]` table of a board profile).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Produce analog (Hall) scans instead of occupancy.
    #[serde(default)]
    pub analog: bool,
    /// Seed of the simulated noise and offsets.
    #[serde(default)]
    pub seed: u64,
}

/// Opens a simulated board.
pub fn open(_config: &SimConfig) -> Result<Box<dyn Scanner>, SensorError> {
    Err(SensorError::Unavailable(
        "the simulated board is not available yet".into(),
    ))
}
