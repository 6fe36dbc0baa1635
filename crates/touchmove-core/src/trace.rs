//! Trace format v1 (`../shared/spec/trace-format.md`): records, writer and reader.
//!
//! The writer is [`Trace`]'s `Display`; the reader is [`parse`] (a whole text),
//! [`read`] (a file) or [`TraceReader`] (streaming, one line at a time).
//! Every malformed line is an error naming the file, the line and what was
//! expected ([`TraceError`]); the reader never panics on bad input.
//!
//! Limits (`docs/contract-extensions.md`, "What touchmove adds to the
//! trace format"): a line holds at most [`MAX_LINE_BYTES`] bytes, read
//! through a bounded buffer, so an endless line (`/dev/zero`) is an error,
//! not a machine out of memory; a time is at most [`MAX_TIME_MS`]; an error
//! repeats at most [`crate::game::echo::MAX_ECHO_CHARS`] characters of the
//! line. [`NumberedTrace`] keeps the line of every record and header, so
//! that what a session finds wrong later (an illegal start position, an
//! unknown profile, a scan it cannot read) names its line too.
use std::fmt;
use std::io::{self, BufRead, Read};

use shakmaty::{Bitboard, Color, Role};

use crate::Millis;
use crate::game::echo::quoted;
use crate::game::{Profile, Start, StartError};
use crate::scan::Scan;

/// The longest line a trace may hold, its line ending included: 64 KiB.
/// The longest record, a `hall` scan of 64 signed 32-bit values, takes
/// under 800 bytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The latest time a record may carry: 2^53 − 1 ms (about 285,000 years),
/// the largest integer a JSON number holds exactly in every consumer
/// (JavaScript's `Number.MAX_SAFE_INTEGER`), so that each event's `t_ms`
/// reads back as written; and far enough from 2^64 that the daemon's time
/// windows added to it cannot wrap.
pub const MAX_TIME_MS: Millis = (1 << 53) - 1;

/// One record of a trace, without its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// `<t> <occ>`: an occupancy scan.
    Occupancy(Bitboard),
    /// `<t> clock <white|black>`: that side's clock button was pressed.
    Clock(Color),
    /// `<t> promote <q|r|b|n>`: a promotion choice was entered.
    Promote(Role),
    /// `<t> hall <v0>,...,<v63>`: one raw analog scan.
    Analog(Box<[i32; 64]>),
}

impl Record {
    /// The scan this record is, or `None` for a clock press or a
    /// promotion choice.
    pub fn scan(&self) -> Option<Scan> {
        match self {
            Record::Occupancy(bb) => Some(Scan::Occupancy(*bb)),
            Record::Analog(values) => Some(Scan::Analog(values.clone())),
            Record::Clock(_) | Record::Promote(_) => None,
        }
    }
}

/// A record and the time it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedRecord {
    pub t: Millis,
    pub record: Record,
}

/// The optional header lines of a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `#! start-fen:` the starting position (FEN or X-FEN).
    pub start_fen: Option<String>,
    /// `#! profile:` the rules profile name.
    pub profile: Option<String>,
    /// `#! board:` what recorded it.
    pub board: Option<String>,
}

/// A whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub header: Header,
    pub records: Vec<TimedRecord>,
}

impl fmt::Display for TimedRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.t)?;
        match &self.record {
            Record::Occupancy(bb) => write!(f, "{:016X}", u64::from(*bb)),
            Record::Clock(color) => write!(f, "clock {}", color),
            Record::Promote(role) => write!(f, "promote {}", role.char()),
            Record::Analog(values) => {
                f.write_str("hall ")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# touchmove-trace v1")?;
        if let Some(fen) = &self.header.start_fen {
            writeln!(f, "#! start-fen: {fen}")?;
        }
        if let Some(profile) = &self.header.profile {
            writeln!(f, "#! profile: {profile}")?;
        }
        if let Some(board) = &self.header.board {
            writeln!(f, "#! board: {board}")?;
        }
        for record in &self.records {
            writeln!(f, "{record}")?;
        }
        Ok(())
    }
}

/// Why a trace could not be read: the file could not be read at all, or one
/// of its lines is malformed. Displays as `file:line: what was expected`.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: io::Error,
    },
    /// A line does not follow the trace format.
    #[error("{file}:{line}: {problem}")]
    Malformed {
        file: String,
        /// 1-based line number.
        line: usize,
        problem: LineError,
    },
}

impl TraceError {
    /// What is wrong with the line, when a line is at fault.
    pub fn problem(&self) -> Option<&LineError> {
        match self {
            TraceError::Io { .. } => None,
            TraceError::Malformed { problem, .. } => Some(problem),
        }
    }

    /// The 1-based number of the malformed line, when a line is at fault.
    pub fn line(&self) -> Option<usize> {
        match self {
            TraceError::Io { .. } => None,
            TraceError::Malformed { line, .. } => Some(*line),
        }
    }
}

/// The two kinds of sensor scan a trace can hold (never both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanKind {
    Occupancy,
    Analog,
}

impl fmt::Display for ScanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScanKind::Occupancy => "occupancy",
            ScanKind::Analog => "hall",
        })
    }
}

/// What is wrong with one line of a trace.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("expected UTF-8 text")]
    NotUtf8,
    #[error("expected a line of at most {max} bytes, its line ending included", max = MAX_LINE_BYTES)]
    LineTooLong,
    #[error("expected a time in milliseconds (a non-negative integer), found {}", quoted(.0))]
    BadTime(String),
    #[error(
        "expected a time of at most {max} milliseconds (2^53 - 1), found {}",
        quoted(.0),
        max = MAX_TIME_MS
    )]
    TimeTooLarge(String),
    #[error("expected a time of at least {previous} (times never decrease), found {found}")]
    TimeDecreases { previous: Millis, found: Millis },
    #[error(
        "expected an occupancy (16 hexadecimal digits) or a record kind (clock, promote, hall) after the time"
    )]
    MissingRecord,
    #[error("expected 16 hexadecimal digits, found {count} ({})", quoted(.text))]
    HexDigitCount { count: usize, text: String },
    #[error("expected 16 hexadecimal digits, found {ch:?} in {}", quoted(.text))]
    NotHex { ch: char, text: String },
    #[error(
        "expected an occupancy (16 hexadecimal digits) or a record kind (clock, promote, hall), found {}",
        quoted(.0)
    )]
    UnknownKind(String),
    #[error("expected `clock white` or `clock black`, found {}", quoted(.0))]
    BadClock(String),
    #[error("expected `promote` and one of q, r, b, n, found {}", quoted(.0))]
    BadPromotion(String),
    #[error("expected 64 comma-separated signed integers after `hall`, found {0}")]
    AnalogCount(usize),
    #[error(
        "expected a signed 32-bit integer as hall value {index}, found {}",
        quoted(.text)
    )]
    AnalogValue { index: usize, text: String },
    #[error("expected the end of the line after the record, found {}", quoted(.0))]
    Trailing(String),
    #[error("expected a record: header lines (`#!`) come before the first record")]
    LateHeader,
    #[error("expected a header line `#! <key>: <value>`, found {}", quoted(.0))]
    BadHeader(String),
    #[error("expected a header key start-fen, profile or board, found {}", quoted(.0))]
    UnknownHeader(String),
    #[error("expected header `{0}` only once")]
    DuplicateHeader(&'static str),
    #[error("expected a value after header `{0}:`")]
    EmptyHeader(&'static str),
    #[error("expected a FEN or X-FEN after `start-fen:`, found {} ({reason})", quoted(.text))]
    BadFen { text: String, reason: String },
    #[error(
        "expected a legal starting position after `start-fen:`, found {} ({reason})",
        quoted(.text)
    )]
    IllegalStart { text: String, reason: String },
    #[error(
        "expected a rules profile after `profile:` (one of {known}), found {}",
        quoted(.text),
        known = profile_names()
    )]
    UnknownProfile { text: String },
    #[error(
        "expected {first} scans only, as on line {first_line} (a trace holds either occupancy or hall scans, not both), found a {found} scan"
    )]
    MixedScans {
        first: ScanKind,
        first_line: usize,
        found: ScanKind,
    },
}

/// Parses a whole trace held in memory. `file_name` is used in error messages.
pub fn parse(text: &str, file_name: &str) -> Result<Trace, TraceError> {
    TraceReader::new(text.as_bytes(), file_name)?.into_trace()
}

/// A trace and the 1-based line of each of its records and header lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NumberedTrace {
    pub trace: Trace,
    /// `lines[i]` is the line of `trace.records[i]`.
    pub lines: Vec<usize>,
    pub header_lines: HeaderLines,
}

/// The line of each header a trace gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeaderLines {
    pub start_fen: Option<usize>,
    pub profile: Option<usize>,
    pub board: Option<usize>,
}

impl NumberedTrace {
    /// Checks the header values a session starts from, naming the file and
    /// the header's line: `#! start-fen:` must be a legal position and
    /// `#! profile:` a rules profile. The reader checks only the FEN's
    /// syntax (a trace is first what the sensors saw; a board recorder may
    /// name any position); a header the command line overrides
    /// (`--start-fen`, `--profile`) is not checked.
    pub fn check_session_header(
        &self,
        file: &str,
        start_fen_given: bool,
        profile_given: bool,
    ) -> Result<(), TraceError> {
        let malformed = |line: Option<usize>, problem| TraceError::Malformed {
            file: file.to_owned(),
            line: line.unwrap_or(0),
            problem,
        };
        let header = &self.trace.header;
        if let (Some(fen), false) = (&header.start_fen, start_fen_given)
            && let Err(StartError::Syntax { reason, .. } | StartError::Illegal { reason, .. }) =
                Start::from_fen(fen)
        {
            return Err(malformed(
                self.header_lines.start_fen,
                LineError::IllegalStart {
                    text: fen.clone(),
                    reason,
                },
            ));
        }
        if let (Some(name), false) = (&header.profile, profile_given)
            && name.parse::<Profile>().is_err()
        {
            return Err(malformed(
                self.header_lines.profile,
                LineError::UnknownProfile { text: name.clone() },
            ));
        }
        Ok(())
    }
}

/// [`parse`], keeping the line of each record.
pub fn parse_numbered(text: &str, file_name: &str) -> Result<NumberedTrace, TraceError> {
    TraceReader::new(text.as_bytes(), file_name)?.into_numbered()
}

/// Streams a trace: the header is read by [`TraceReader::new`], then the
/// records come one at a time from the iterator. After the first error the
/// iterator ends. No line is held whole beyond [`MAX_LINE_BYTES`].
pub struct TraceReader<R> {
    input: R,
    file: String,
    parser: LineParser,
    line_no: usize,
    buf: Vec<u8>,
    /// The first record and its line, read while looking for the end of
    /// the header.
    first: Option<(usize, TimedRecord)>,
    /// The line of the record the iterator gave last.
    record_line: usize,
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the header (every line up to the first record). `file_name` is
    /// used in error messages.
    pub fn new(input: R, file_name: &str) -> Result<Self, TraceError> {
        let mut reader = TraceReader {
            input,
            file: file_name.to_owned(),
            parser: LineParser::default(),
            line_no: 0,
            buf: Vec::new(),
            first: None,
            record_line: 0,
            done: false,
        };
        reader.first = reader.next_record()?;
        reader.done = reader.first.is_none();
        Ok(reader)
    }

    /// Reads every remaining record, with its line.
    pub fn into_numbered(mut self) -> Result<NumberedTrace, TraceError> {
        let header = self.parser.header.clone();
        let mut records = Vec::new();
        let mut lines = Vec::new();
        while let Some(record) = self.next() {
            records.push(record?);
            lines.push(self.record_line);
        }
        Ok(NumberedTrace {
            trace: Trace { header, records },
            lines,
            header_lines: self.parser.header_lines,
        })
    }

    /// The trace's header lines.
    pub fn header(&self) -> &Header {
        &self.parser.header
    }

    /// Reads every remaining record.
    pub fn into_trace(self) -> Result<Trace, TraceError> {
        let header = self.parser.header.clone();
        let records = self.collect::<Result<Vec<_>, _>>()?;
        Ok(Trace { header, records })
    }

    /// Reads one line into `buf`, at most [`MAX_LINE_BYTES`] of it: the
    /// number of bytes read (0 at the end), or [`LineError::LineTooLong`].
    fn read_line(&mut self) -> Result<Result<usize, LineError>, TraceError> {
        let io = |file: &str, source| TraceError::Io {
            file: file.to_owned(),
            source,
        };
        self.buf.clear();
        let n = (&mut self.input)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| io(&self.file, e))?;
        if n == MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
            // The line goes on, unless the input ends just here.
            let more = !self
                .input
                .fill_buf()
                .map_err(|e| io(&self.file, e))?
                .is_empty();
            if more {
                return Ok(Err(LineError::LineTooLong));
            }
        }
        Ok(Ok(n))
    }

    fn next_record(&mut self) -> Result<Option<(usize, TimedRecord)>, TraceError> {
        loop {
            let read = self.read_line()?;
            if read == Ok(0) {
                return Ok(None);
            }
            self.line_no += 1;
            let line_no = self.line_no;
            let result = match read {
                Err(too_long) => Err(too_long),
                Ok(_) => match std::str::from_utf8(&self.buf) {
                    Ok(text) => self.parser.line(line_no, text),
                    Err(_) => Err(LineError::NotUtf8),
                },
            };
            match result {
                Ok(Some(record)) => return Ok(Some((line_no, record))),
                Ok(None) => continue,
                Err(problem) => {
                    return Err(TraceError::Malformed {
                        file: self.file.clone(),
                        line: line_no,
                        problem,
                    });
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TimedRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some((line, first)) = self.first.take() {
            self.record_line = line;
            return Some(Ok(first));
        }
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some((line, record))) => {
                self.record_line = line;
                Some(Ok(record))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The state carried from line to line: the header so far, the last time
/// and which kind of scan the trace holds.
#[derive(Debug, Default)]
struct LineParser {
    header: Header,
    header_lines: HeaderLines,
    seen_record: bool,
    last_t: Millis,
    scans: Option<(ScanKind, usize)>,
}

impl LineParser {
    /// One line (with or without its line ending): a record, or nothing for
    /// blank lines, comments and headers.
    fn line(&mut self, line_no: usize, text: &str) -> Result<Option<TimedRecord>, LineError> {
        let text = if line_no == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if let Some(header) = text.strip_prefix("#!") {
            if self.seen_record {
                return Err(LineError::LateHeader);
            }
            self.header_line(line_no, text, header)?;
            return Ok(None);
        }
        if text.starts_with('#') {
            return Ok(None);
        }
        let record = self.record(line_no, text)?;
        self.seen_record = true;
        Ok(Some(record))
    }

    fn header_line(&mut self, line_no: usize, line: &str, rest: &str) -> Result<(), LineError> {
        let Some((key, value)) = rest.split_once(':') else {
            return Err(LineError::BadHeader(line.to_owned()));
        };
        let (name, slot) = match key.trim() {
            "start-fen" => ("start-fen", &mut self.header.start_fen),
            "profile" => ("profile", &mut self.header.profile),
            "board" => ("board", &mut self.header.board),
            other => return Err(LineError::UnknownHeader(other.to_owned())),
        };
        let value = value.trim();
        if value.is_empty() {
            return Err(LineError::EmptyHeader(name));
        }
        if slot.is_some() {
            return Err(LineError::DuplicateHeader(name));
        }
        if name == "start-fen"
            && let Err(e) = value.parse::<shakmaty::fen::Fen>()
        {
            return Err(LineError::BadFen {
                text: value.to_owned(),
                reason: e.to_string(),
            });
        }
        match name {
            "start-fen" => self.header_lines.start_fen = Some(line_no),
            "profile" => self.header_lines.profile = Some(line_no),
            _ => self.header_lines.board = Some(line_no),
        }
        *slot = Some(value.to_owned());
        Ok(())
    }

    fn record(&mut self, line_no: usize, text: &str) -> Result<TimedRecord, LineError> {
        let (time, rest) = split_token(text);
        let t = parse_time(time)?;
        if t < self.last_t {
            return Err(LineError::TimeDecreases {
                previous: self.last_t,
                found: t,
            });
        }
        let (kind, args) = split_token(rest);
        let record = match kind {
            "" => return Err(LineError::MissingRecord),
            "clock" => {
                let (side, trailing) = split_token(args);
                let color = match side {
                    "white" => Color::White,
                    "black" => Color::Black,
                    _ => return Err(LineError::BadClock(args.to_owned())),
                };
                no_trailing(trailing)?;
                Record::Clock(color)
            }
            "promote" => {
                let (choice, trailing) = split_token(args);
                let role = match choice {
                    "q" => Role::Queen,
                    "r" => Role::Rook,
                    "b" => Role::Bishop,
                    "n" => Role::Knight,
                    _ => return Err(LineError::BadPromotion(args.to_owned())),
                };
                no_trailing(trailing)?;
                Record::Promote(role)
            }
            "hall" => {
                self.scan_kind(line_no, ScanKind::Analog)?;
                Record::Analog(parse_analog(args)?)
            }
            occ if looks_like_occupancy(occ) => {
                let bb = parse_occupancy(occ)?;
                no_trailing(args)?;
                self.scan_kind(line_no, ScanKind::Occupancy)?;
                Record::Occupancy(bb)
            }
            other => return Err(LineError::UnknownKind(other.to_owned())),
        };
        self.last_t = t;
        Ok(TimedRecord { t, record })
    }

    fn scan_kind(&mut self, line_no: usize, found: ScanKind) -> Result<(), LineError> {
        match self.scans {
            None => {
                self.scans = Some((found, line_no));
                Ok(())
            }
            Some((first, _)) if first == found => Ok(()),
            Some((first, first_line)) => Err(LineError::MixedScans {
                first,
                first_line,
                found,
            }),
        }
    }
}

/// The first whitespace-separated token and the rest (trimmed).
fn split_token(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim_start()),
        None => (text, ""),
    }
}

fn no_trailing(rest: &str) -> Result<(), LineError> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(LineError::Trailing(rest.to_owned()))
    }
}

fn parse_time(token: &str) -> Result<Millis, LineError> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LineError::BadTime(token.to_owned()));
    }
    token
        .parse()
        .ok()
        .filter(|t| *t <= MAX_TIME_MS)
        .ok_or_else(|| LineError::TimeTooLarge(token.to_owned()))
}

/// The rules profiles a `#! profile:` header may name.
fn profile_names() -> String {
    Profile::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a token is meant as an occupancy: all hexadecimal, 16 characters
/// long, or starting with a digit. Anything else is taken as a record kind.
fn looks_like_occupancy(token: &str) -> bool {
    token.bytes().all(|b| b.is_ascii_hexdigit())
        || token.chars().count() == 16
        || token.starts_with(|c: char| c.is_ascii_digit())
}

fn parse_occupancy(token: &str) -> Result<Bitboard, LineError> {
    if let Some(ch) = token.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(LineError::NotHex {
            ch,
            text: token.to_owned(),
        });
    }
    if token.len() != 16 {
        return Err(LineError::HexDigitCount {
            count: token.len(),
            text: token.to_owned(),
        });
    }
    u64::from_str_radix(token, 16)
        .map(Bitboard)
        .map_err(|_| LineError::HexDigitCount {
            count: token.len(),
            text: token.to_owned(),
        })
}

fn parse_analog(args: &str) -> Result<Box<[i32; 64]>, LineError> {
    let count = if args.is_empty() {
        0
    } else {
        args.split(',').count()
    };
    if count != 64 {
        return Err(LineError::AnalogCount(count));
    }
    let mut values = Box::new([0i32; 64]);
    for (index, (slot, text)) in values.iter_mut().zip(args.split(',')).enumerate() {
        let text = text.trim();
        *slot = text.parse().map_err(|_| LineError::AnalogValue {
            index,
            text: text.to_owned(),
        })?;
    }
    Ok(values)
}
