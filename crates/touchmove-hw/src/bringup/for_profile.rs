//! The check of a board profile: its settings, and the corrected profile
//! written when it ends (`touchmove board check` and the `/setup` page).
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::{Check, CheckConfig, profile_out};
use crate::analog_adc::AdcConfig;
use crate::profile::{Backend, BoardProfile};
use crate::sim::AnalogModel;

/// The corrected profile's path: `hw/x.toml` → `hw/x.checked.toml`.
pub fn checked_path(profile: &Path) -> PathBuf {
    let stem = profile
        .file_stem()
        .map_or("board".into(), |s| s.to_string_lossy().into_owned());
    profile.with_file_name(format!("{stem}.checked.toml"))
}

/// The check's settings for a profile.
pub fn check_config(profile: &BoardProfile) -> CheckConfig {
    let mapping = match &profile.backend {
        Backend::GpioMatrix(c) => c.mapping,
        Backend::ShiftRegister(c) => c.mapping,
        Backend::Mcp23017(c) => c.mapping,
        Backend::AnalogAdc(c) => c.mapping,
        Backend::Sim(c) => *c.mapping,
        Backend::Trace(_) => Default::default(),
    };
    let rails = match &profile.backend {
        Backend::AnalogAdc(c) => match c.adc {
            AdcConfig::Mcp3008 { .. } => (0, 1023),
            AdcConfig::Ads1115 { .. } => (0, i32::from(i16::MAX)),
        },
        _ => (0, AnalogModel::FULL_SCALE),
    };
    CheckConfig {
        mapping,
        scan_rate_hz: profile.scan_rate_hz,
        analog: profile.backend.is_analog(),
        rails,
    }
}

/// Writes the corrected profile of a finished check, if it found a mapping
/// or a debounce window; returns the path written.
pub fn write_result(
    check: &Check,
    profile: &BoardProfile,
    out: &Path,
) -> anyhow::Result<Option<PathBuf>> {
    let Some(outcome) = check.outcome() else {
        return Ok(None);
    };
    if outcome.mapping.is_none() && outcome.debounce_ms.is_none() {
        return Ok(None);
    }
    let original = std::fs::read_to_string(&profile.file)
        .with_context(|| format!("reading {}", profile.file.display()))?;
    let mapping = outcome.mapping.unwrap_or(check_config(profile).mapping);
    let mut header = vec![format!(
        "Written by `touchmove board check` from {}.",
        profile.file.display()
    )];
    header.extend(outcome.swapped.iter().map(|s| s.to_string()));
    let text = profile_out::corrected(&original, &mapping, outcome.debounce_ms, &header)
        .with_context(|| profile.file.display().to_string())?;
    std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
    Ok(Some(out.to_path_buf()))
}

/// The result in plain lines (printed after the screen closes).
pub fn summary(check: &Check, written: Option<&Path>) -> Vec<String> {
    let mut lines = Vec::new();
    match check.outcome() {
        Some(outcome) if outcome.faults.is_empty() => {
            lines.push("RESULT: the board is ready".into())
        }
        Some(outcome) => lines.push(format!("RESULT: {} fault(s) to fix", outcome.faults.len())),
        None => lines.push("RESULT: the check was left before its end".into()),
    }
    lines.extend(check.findings().into_iter().map(|f| format!("- {f}")));
    if let Some(path) = written {
        lines.push(format!("corrected profile written to {}", path.display()));
    }
    lines
}
