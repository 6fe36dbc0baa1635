//! The keys outside the backend tables (`name`, `scan-rate-hz`,
//! `settle-us`, `orientation` or `squares`, `debounce-ms`), the tables that
//! belong to another backend, and the order in which the sections are checked.
use std::path::Path;

use touchmove_core::Millis;

use super::checker::Checker;
use super::raw::{BackendKind, RawProfile};
use super::{Backend, BoardProfile, MAX_DEBOUNCE_MS, SCAN_RATE_HZ};
use crate::mapping::Mapping;

impl Checker {
    /// The whole profile: the common keys, the backend's table, then
    /// `[clock]` and `debounce-ms`. `None` when the backend's table is
    /// missing or unusable (the problem is recorded).
    pub(super) fn profile(&mut self, raw: RawProfile, file: &Path) -> Option<BoardProfile> {
        self.name_and_scan_rate(&raw);
        self.foreign_tables(&raw);
        let settle_us = self.settle_time(&raw);
        let backend = self.backend(&raw, settle_us, file)?;
        // After the backend: a clash names the backend's key.
        let clock = raw.clock.as_ref().map(|table| self.clock(table));
        let debounce_ms = raw.debounce_ms.map(|ms| self.debounce(ms));
        Some(BoardProfile {
            name: raw.name,
            file: file.to_path_buf(),
            scan_rate_hz: raw.scan_rate_hz,
            backend,
            clock,
            debounce_ms,
        })
    }

    /// The table of the profile's backend; `file` anchors relative paths.
    fn backend(&mut self, raw: &RawProfile, settle_us: u32, file: &Path) -> Option<Backend> {
        match raw.backend {
            BackendKind::GpioMatrix => self.gpio_matrix(raw, settle_us),
            BackendKind::ShiftRegister => self.shift_register(raw, settle_us),
            BackendKind::Mcp23017 => self.mcp23017(raw, settle_us),
            BackendKind::AnalogAdc => self.hall_adc(raw, settle_us),
            BackendKind::Sim => Some(self.sim(raw, file)),
            BackendKind::Trace => self.trace(raw, file),
        }
    }

    /// `name` and `scan-rate-hz`.
    fn name_and_scan_rate(&mut self, raw: &RawProfile) {
        if raw.name.trim().is_empty() {
            self.problem("name", "is empty");
        }
        if !SCAN_RATE_HZ.contains(&raw.scan_rate_hz) {
            self.problem(
                "scan-rate-hz",
                format!(
                    "{} Hz is outside {} to {} Hz",
                    raw.scan_rate_hz,
                    SCAN_RATE_HZ.start(),
                    SCAN_RATE_HZ.end()
                ),
            );
        }
    }

    /// A table of another backend than the profile's.
    fn foreign_tables(&mut self, raw: &RawProfile) {
        let tables = [
            (
                "gpio-matrix",
                raw.gpio_matrix.is_some(),
                BackendKind::GpioMatrix,
            ),
            (
                "shift-register",
                raw.shift_register.is_some(),
                BackendKind::ShiftRegister,
            ),
            ("mcp23017", raw.mcp23017.is_some(), BackendKind::Mcp23017),
            ("hall-adc", raw.hall_adc.is_some(), BackendKind::AnalogAdc),
            ("sim", raw.sim.is_some(), BackendKind::Sim),
            ("trace", raw.trace.is_some(), BackendKind::Trace),
        ];
        for (table, present, owner) in tables {
            if present && owner != raw.backend {
                self.problem(
                    table,
                    format!(
                        "this table is for backend {table}, but the profile's backend is {}",
                        raw.backend.name()
                    ),
                );
            }
        }
    }

    /// `settle-us`: required by the hardware backends, refused by the
    /// others (0 for them).
    fn settle_time(&mut self, raw: &RawProfile) -> u32 {
        if !raw.backend.is_hardware() {
            self.keys_unused_by_software(raw);
            return 0;
        }
        if raw.settle_us.is_none() {
            self.problem(
                "settle-us",
                "missing: how long a driven row (or a multiplexer channel) settles, in µs",
            );
        }
        raw.settle_us.unwrap_or(0)
    }

    /// The keys a backend that reports squares does not use: `settle-us`,
    /// and for a trace `orientation` and `squares`.
    fn keys_unused_by_software(&mut self, raw: &RawProfile) {
        let kind = raw.backend;
        // A simulated board reads its sensors through a mapping like
        // hardware does (identity unless the profile names one); a trace
        // holds squares already.
        let mapped = [
            ("orientation", raw.orientation.is_some()),
            ("squares", raw.squares.is_some()),
        ];
        let unused = if kind == BackendKind::Sim {
            &mapped[..0]
        } else {
            &mapped[..]
        };
        for (key, present) in [("settle-us", raw.settle_us.is_some())]
            .iter()
            .chain(unused)
            .copied()
        {
            if present {
                self.problem(
                    key,
                    format!("not used by backend {}, which reports squares", kind.name()),
                );
            }
        }
    }

    /// `orientation` or `squares`: where each sensor sits on the board.
    pub(super) fn mapping(&mut self, raw: &RawProfile) -> Mapping {
        match (&raw.orientation, &raw.squares) {
            (Some(orientation), None) => Mapping::from_orientation(*orientation),
            (None, Some(names)) => Mapping::from_names(names).unwrap_or_else(|e| {
                self.problem("squares", e.to_string());
                Mapping::default()
            }),
            (Some(_), Some(_)) => {
                self.problem(
                    "squares",
                    "give either `orientation` or `squares`, not both",
                );
                Mapping::default()
            }
            (None, None) => {
                self.problem(
                    "orientation",
                    "missing: name one of identity, rotate-90, rotate-180, rotate-270, \
                     mirror-files, mirror-ranks, transpose, anti-transpose, \
                     or give `squares` (64 square names, sensor 0 first)",
                );
                Mapping::default()
            }
        }
    }

    /// `debounce-ms`: the board's own debounce window.
    fn debounce(&mut self, ms: i64) -> Millis {
        match Millis::try_from(ms) {
            Ok(ms) if (1..=MAX_DEBOUNCE_MS).contains(&ms) => ms,
            _ => {
                self.problem(
                    "debounce-ms",
                    format!("{ms} ms is outside 1 to {MAX_DEBOUNCE_MS} ms"),
                );
                0
            }
        }
    }
}
