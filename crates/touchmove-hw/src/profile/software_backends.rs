//! `[sim]` and `[trace]`: the backends without hardware.
use std::path::Path;

use super::Backend;
use super::checker::Checker;
use super::raw::RawProfile;
use crate::mapping::Mapping;
use crate::replay_trace::TraceConfig;

impl Checker {
    /// `[sim]` (optional): the mapping is the identity unless the profile
    /// names one; `hands` is relative to the profile's folder.
    pub(super) fn sim(&mut self, raw: &RawProfile, file: &Path) -> Backend {
        let mapping = if raw.orientation.is_none() && raw.squares.is_none() {
            Mapping::default()
        } else {
            self.mapping(raw)
        };
        let mut sim = raw.sim.clone().unwrap_or_default();
        sim.mapping = Box::new(mapping);
        let folder = file.parent().unwrap_or(Path::new("."));
        sim.hands = sim.hands.map(|hands| folder.join(hands));
        Backend::Sim(sim)
    }

    /// `[trace]`: the trace file, relative to the profile's folder.
    pub(super) fn trace(&mut self, raw: &RawProfile, file: &Path) -> Option<Backend> {
        let Some(table) = &raw.trace else {
            self.missing_table("trace");
            return None;
        };
        let folder = file.parent().unwrap_or(Path::new("."));
        Some(Backend::Trace(TraceConfig {
            file: folder.join(&table.file),
        }))
    }
}
