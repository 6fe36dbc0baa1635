//! Calibration profiles of analog (Hall-effect) boards, read from files.
use std::path::Path;

use anyhow::Context as _;
use touchmove_core::filter::analog::Calibration;

/// Reads a calibration profile file (validated; errors name the file, the
/// key and the square).
pub fn load_calibration(path: &Path) -> anyhow::Result<Calibration> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Calibration::from_toml(&text, &path.display().to_string())?)
}
