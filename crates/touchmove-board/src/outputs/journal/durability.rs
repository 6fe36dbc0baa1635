//! Whether the journal holds the record. The journal writer keeps it; the
//! scan loop hears of each change (to report it into the record) and
//! `/health` reads it.
//!
//! When the journal cannot commit (a full disk, an unwritable file) the
//! board goes on reading and publishing the live record; the writer holds
//! the uncommitted events in memory, at most [`HELD_MAX`] of them, and
//! commits them in order when the journal takes writes again.
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

/// The most events held in memory while the journal cannot commit. An
/// event takes a few hundred bytes, so this is some tens of megabytes: a
/// day of play on one board. Beyond it the newest events are left out of
/// the journal (the live record keeps them) until the next game begins.
pub const HELD_MAX: usize = 100_000;

/// What `/health` says of the journal.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DurabilityReport {
    /// Every published event is committed (or held events were all
    /// committed since).
    pub durable: bool,
    /// What the journal answered, while it fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Events published but not yet committed.
    pub held: usize,
    /// The bound on `held` ([`HELD_MAX`]).
    pub held_max: usize,
    /// Events left out of the journal because the bound was reached.
    pub lost: u64,
}

impl Default for DurabilityReport {
    fn default() -> Self {
        DurabilityReport {
            durable: true,
            error: None,
            held: 0,
            held_max: HELD_MAX,
            lost: 0,
        }
    }
}

/// The shared report.
#[derive(Debug, Default)]
pub struct Durability(Mutex<DurabilityReport>);

impl Durability {
    fn lock(&self) -> MutexGuard<'_, DurabilityReport> {
        // Each update leaves the report whole: a poisoned lock is usable.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn report(&self) -> DurabilityReport {
        self.lock().clone()
    }

    pub(crate) fn set(&self, report: DurabilityReport) {
        *self.lock() = report;
    }
}

/// A change the scan loop reports into the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageNotice {
    /// The journal refused a commit; `from_seq`: the first event of the
    /// current game not committed.
    Failed {
        error: String,
        from_seq: Option<u64>,
    },
    /// Every held event is committed again.
    Restored { committed: usize, lost: u64 },
}
