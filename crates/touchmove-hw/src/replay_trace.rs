//! Replays a recorded trace at real speed: `scan(now)` returns the board as
//! the trace had it at `now` (milliseconds since the trace started).
use std::path::{Path, PathBuf};

use super::{Scan, Scanner, SensorError};
use touchmove_core::Millis;
use touchmove_core::trace::{TimedRecord, Trace, TraceError};

/// A validated `[trace]` profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceConfig {
    /// The trace file (a relative path in a profile is taken from the profile's folder).
    pub file: PathBuf,
}

/// The scans of a trace, replayed by time.
#[derive(Debug, Clone)]
pub struct TraceReplay {
    scans: Vec<(Millis, Scan)>,
    description: String,
    /// The last scan was handed out: past its time the trace is exhausted.
    last_given: bool,
}

impl TraceReplay {
    /// The scans of `trace` (clock and promotion records are not scans and are skipped).
    pub fn new(trace: &Trace, description: String) -> TraceReplay {
        let scans = trace
            .records
            .iter()
            .filter_map(|TimedRecord { t, record }| Some((*t, record.scan()?)))
            .collect();
        TraceReplay {
            scans,
            description,
            last_given: false,
        }
    }

    /// Reads and parses a trace file (line by line, each line bounded:
    /// [`super::trace::MAX_LINE_BYTES`]).
    pub fn load(path: &Path, description: String) -> Result<TraceReplay, SensorError> {
        let trace = crate::trace_file::read(path).map_err(|e| match e {
            TraceError::Io { source, .. } => SensorError::Unavailable(format!(
                "{description}: could not read the trace {} ({source})",
                path.display()
            )),
            malformed => SensorError::Unavailable(format!("{description}: {malformed}")),
        })?;
        Ok(TraceReplay::new(&trace, description))
    }

    /// Time of the last scan, if any.
    pub fn end(&self) -> Option<Millis> {
        self.scans.last().map(|(t, _)| *t)
    }
}

impl Scanner for TraceReplay {
    fn describe(&self) -> String {
        self.description.clone()
    }

    /// The last scan at or before `now` (the first scan before it starts);
    /// [`SensorError::Exhausted`] once `now` is past the last scan and that
    /// scan was handed out (a reader whose tick overran the end still gets
    /// the trace's final board once).
    fn scan(&mut self, now: Millis) -> Result<Scan, SensorError> {
        match self.end() {
            Some(end) if now <= end || !self.last_given => {}
            _ => return Err(SensorError::Exhausted),
        }
        let upto = self.scans.partition_point(|(t, _)| *t <= now);
        if upto == self.scans.len() {
            self.last_given = true;
        }
        Ok(self.scans[upto.saturating_sub(1)].1.clone())
    }
}

/// Opens a trace profile.
pub fn open(config: &TraceConfig, who: &str) -> Result<Box<dyn Scanner>, SensorError> {
    let replay = TraceReplay::load(&config.file, who.to_owned())?;
    if replay.end().is_none() {
        return Err(SensorError::Unavailable(format!(
            "{who}: the trace {} holds no scans",
            config.file.display()
        )));
    }
    Ok(Box::new(replay))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Bitboard;

    const TRACE: &str = "# touchmove-trace v1\n\
        #! board: test\n\
        0 FFFF00000000FFFF\n\
        1200 FFFF00000000EFFF\n\
        1650 FFFF00001000EFFF\n\
        2300 clock white\n";

    #[test]
    fn scan_returns_the_state_at_now() {
        let trace = touchmove_core::trace::parse(TRACE, "t.trace").unwrap();
        assert_eq!(trace.header.board.as_deref(), Some("test"));
        let mut replay = TraceReplay::new(&trace, "t".into());
        let occ = |bits| Scan::Occupancy(Bitboard(bits));
        assert_eq!(replay.scan(0).unwrap(), occ(0xFFFF00000000FFFF));
        assert_eq!(replay.scan(1199).unwrap(), occ(0xFFFF00000000FFFF));
        assert_eq!(replay.scan(1200).unwrap(), occ(0xFFFF00000000EFFF));
        assert_eq!(replay.scan(1650).unwrap(), occ(0xFFFF00001000EFFF));
        assert!(matches!(replay.scan(1651), Err(SensorError::Exhausted)));
    }

    #[test]
    fn a_reader_past_the_end_gets_the_final_board_once() {
        let trace = touchmove_core::trace::parse(TRACE, "t.trace").unwrap();
        let mut replay = TraceReplay::new(&trace, "t".into());
        let occ = |bits| Scan::Occupancy(Bitboard(bits));
        assert_eq!(replay.scan(1640).unwrap(), occ(0xFFFF00000000EFFF));
        // A slow tick jumps from 1640 to 1700: the 1650 board still comes.
        assert_eq!(replay.scan(1700).unwrap(), occ(0xFFFF00001000EFFF));
        assert!(matches!(replay.scan(1710), Err(SensorError::Exhausted)));
    }
}
