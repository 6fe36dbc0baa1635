//! Trace files on disk: the core reads traces from any reader
//! ([`touchmove_core::trace::TraceReader`]); opening the file is here.
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use touchmove_core::trace::{NumberedTrace, Trace, TraceError, TraceReader};

/// Opens a trace file and reads its header.
pub fn open(path: &Path) -> Result<TraceReader<BufReader<File>>, TraceError> {
    let file = path.display().to_string();
    let f = File::open(path).map_err(|source| TraceError::Io {
        file: file.clone(),
        source,
    })?;
    TraceReader::new(BufReader::new(f), &file)
}

/// Reads a whole trace file.
pub fn read(path: &Path) -> Result<Trace, TraceError> {
    open(path)?.into_trace()
}

/// Reads a whole trace file, keeping the line of each record (so that an
/// error found later, replaying a record, names its line).
pub fn read_numbered(path: &Path) -> Result<NumberedTrace, TraceError> {
    open(path)?.into_numbered()
}
