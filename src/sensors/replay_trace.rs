//! Replays a recorded trace at real speed: `scan(now)` returns the board as
//! the trace had it at `now` (milliseconds since the trace started).
use std::path::{Path, PathBuf};

use super::trace::{Header, Record, TimedRecord, Trace};
use super::{Scan, Scanner, SensorError};
use crate::Millis;

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
}

impl TraceReplay {
    /// The scans of `trace` (clock and promotion records are not scans and are skipped).
    pub fn new(trace: &Trace, description: String) -> TraceReplay {
        let scans = trace
            .records
            .iter()
            .filter_map(|TimedRecord { t, record }| match record {
                Record::Occupancy(bb) => Some((*t, Scan::Occupancy(*bb))),
                Record::Hall(levels) => Some((*t, Scan::Analog(levels.clone()))),
                Record::Clock(_) | Record::Promote(_) => None,
            })
            .collect();
        TraceReplay { scans, description }
    }

    /// Reads and parses a trace file.
    pub fn load(path: &Path, description: String) -> Result<TraceReplay, SensorError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            SensorError::Unavailable(format!(
                "{description}: could not read the trace {} ({e})",
                path.display()
            ))
        })?;
        let trace = parse(&text, &path.display().to_string())
            .map_err(|e| SensorError::Unavailable(format!("{description}: {e}")))?;
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
    /// [`SensorError::Exhausted`] once `now` is past the last scan.
    fn scan(&mut self, now: Millis) -> Result<Scan, SensorError> {
        match self.end() {
            Some(end) if now <= end => {}
            _ => return Err(SensorError::Exhausted),
        }
        let upto = self.scans.partition_point(|(t, _)| *t <= now);
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

/// A malformed trace line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct TraceLineError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

// TODO(trace parser): replace with `crate::sensors::trace::parse` once it exists.
/// A minimal reader of trace format v1.
fn parse(text: &str, file_name: &str) -> Result<Trace, TraceLineError> {
    let mut trace = Trace {
        header: Header::default(),
        records: Vec::new(),
    };
    let mut last = 0;
    for (index, line) in text.lines().enumerate() {
        let fail = |message: String| TraceLineError {
            file: file_name.to_owned(),
            line: index + 1,
            message,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix("#!") {
            let (key, value) = header.split_once(':').unwrap_or((header, ""));
            let value = Some(value.trim().to_owned());
            match key.trim() {
                "start-fen" => trace.header.start_fen = value,
                "profile" => trace.header.profile = value,
                "board" => trace.header.board = value,
                _ => {}
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (t, rest) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| fail(format!("expected `<t> <record>`, found {line:?}")))?;
        let t: Millis = t
            .parse()
            .map_err(|_| fail(format!("{t:?} is not a time in milliseconds")))?;
        if t < last {
            return Err(fail(format!("time {t} is before the previous {last}")));
        }
        last = t;
        let rest = rest.trim();
        let record = if let Some(values) = rest.strip_prefix("hall ") {
            let values = values
                .split(',')
                .map(|v| v.trim().parse::<i32>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| fail("a hall value is not an integer".into()))?;
            let values: Box<[i32; 64]> =
                values
                    .into_boxed_slice()
                    .try_into()
                    .map_err(|v: Box<[i32]>| {
                        fail(format!("hall has {} values, expected 64", v.len()))
                    })?;
            Record::Hall(values)
        } else if let Some(side) = rest.strip_prefix("clock ") {
            match side.trim() {
                "white" => Record::Clock(shakmaty::Color::White),
                "black" => Record::Clock(shakmaty::Color::Black),
                other => return Err(fail(format!("clock {other:?}: expected white or black"))),
            }
        } else if let Some(role) = rest.strip_prefix("promote ") {
            let role = match role.trim() {
                "q" => shakmaty::Role::Queen,
                "r" => shakmaty::Role::Rook,
                "b" => shakmaty::Role::Bishop,
                "n" => shakmaty::Role::Knight,
                other => return Err(fail(format!("promote {other:?}: expected q, r, b or n"))),
            };
            Record::Promote(role)
        } else if rest.len() == 16 && rest.chars().all(|c| c.is_ascii_hexdigit()) {
            let bits = u64::from_str_radix(rest, 16)
                .map_err(|_| fail(format!("{rest:?} is not 16 hexadecimal digits")))?;
            Record::Occupancy(shakmaty::Bitboard(bits))
        } else {
            return Err(fail(format!(
                "expected 16 hexadecimal digits, clock, promote or hall, found {rest:?}"
            )));
        };
        trace.records.push(TimedRecord { t, record });
    }
    Ok(trace)
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
        let trace = parse(TRACE, "t.trace").unwrap();
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
    fn malformed_lines_name_file_and_line() {
        let error = parse("0 FFFF\n", "bad.trace").unwrap_err();
        assert_eq!((error.file.as_str(), error.line), ("bad.trace", 1));
        let error = parse("5 0000000000000000\n3 0000000000000000\n", "b").unwrap_err();
        assert_eq!(error.line, 2);
    }
}
