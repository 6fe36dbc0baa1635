//! The trace reader against arbitrary and damaged input: arbitrary bytes,
//! and real synthesized traces (occupancy and hall) with bytes and lines
//! flipped, inserted, deleted, repeated and swapped. Whatever comes in:
//!
//! - nothing panics (the reader, nor the session that replays what it read);
//! - every error names the file and a line of the input (`FILE:LINE: ...`),
//!   and is one short line, however long the input's tokens;
//! - the reader's memory is bounded: fed the same input followed by an
//!   endless line, it gives up within [`MAX_LINE_BYTES`] of the last line
//!   break instead of buffering the endless line;
//! - what it reads writes back and reads again the same.
//!
//! `cargo test` runs a short, fixed set of cases; `TOUCHMOVE_FULL=1` runs
//! many more, drawn anew; `PROPTEST_CASES` sets the count.
use std::io::{self, BufReader, Read};
use std::sync::OnceLock;

use proptest::prelude::*;
use touchmove_core::replay::{drive_numbered, session_for};
use touchmove_core::trace::{
    self, MAX_LINE_BYTES, NumberedTrace, Record, TimedRecord, Trace, TraceError, TraceReader,
};
use touchmove_synth::{self as synth, HandStyle};

const FILE: &str = "fuzz.trace";

fn full() -> bool {
    std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1")
}

fn cases() -> u32 {
    if let Some(n) = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if full() { 20_000 } else { 256 }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        // The same cases on every run; a full run draws new ones.
        rng_seed: if full() {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x7ace_f022)
        },
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Real traces to damage: synthesized games (careful and hurried hands,
/// a Chess960-like start written as a header), and the same game as raw
/// Hall-sensor scans.
fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut out = Vec::new();
        for (seed, style) in [(3, HandStyle::careful()), (8, HandStyle::careful())] {
            let (start, moves) = synth::random_game(seed, 16);
            let mut t = synth::synthesize(&start, &moves, &style, seed).trace;
            t.header.profile = Some("fide-blitz".into());
            out.push(t.to_string());
        }
        let (start, moves) = synth::random_game(5, 8);
        let occupancy = synth::synthesize(&start, &moves, &HandStyle::careful(), 5).trace;
        let hall = Trace {
            header: occupancy.header.clone(),
            records: occupancy
                .records
                .iter()
                .map(|r| TimedRecord {
                    t: r.t,
                    record: match &r.record {
                        Record::Occupancy(bb) => {
                            let mut levels = Box::new([0i32; 64]);
                            for (i, v) in levels.iter_mut().enumerate() {
                                *v = if bb.0 >> i & 1 == 1 { 1800 } else { -40 };
                            }
                            Record::Analog(levels)
                        }
                        other => other.clone(),
                    },
                })
                .collect(),
        };
        out.push(hall.to_string());
        out
    })
}

/// Counts the input's lines as the reader does (a last line without a
/// line break counts).
fn line_count(bytes: &[u8]) -> usize {
    let breaks = bytes.iter().filter(|&&b| b == b'\n').count();
    breaks + usize::from(!bytes.ends_with(b"\n") && !bytes.is_empty())
}

/// Reads `bytes` as a trace and checks every property that holds for any
/// input; returns what was read.
fn read_checked(bytes: &[u8]) -> Result<NumberedTrace, TraceError> {
    let result = TraceReader::new(bytes, FILE).and_then(TraceReader::into_numbered);
    match &result {
        Ok(numbered) => {
            let lines = &numbered.lines;
            assert_eq!(lines.len(), numbered.trace.records.len());
            assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
            assert!(lines.last().is_none_or(|&l| l <= line_count(bytes)));
            // What was read writes back and reads again the same.
            let written = numbered.trace.to_string();
            let again = trace::parse(&written, "again").unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(again, numbered.trace);
        }
        Err(e) => check_error(e, bytes),
    }
    result
}

/// An error names the file and a line of the input, on one short line.
fn check_error(e: &TraceError, bytes: &[u8]) {
    let text = e.to_string();
    let line = e
        .line()
        .unwrap_or_else(|| panic!("an error without a line: {text}"));
    assert!(
        (1..=line_count(bytes)).contains(&line),
        "line {line} of {}: {text}",
        line_count(bytes)
    );
    assert!(
        text.starts_with(&format!("{FILE}:{line}: expected ")),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
    assert!(
        text.chars().count() <= 400,
        "{} characters: {text}",
        text.len()
    );
}

/// Replays what was read: the session takes any trace the reader accepts
/// without panicking, and an error names a line.
fn replay(numbered: &NumberedTrace) {
    if let Err(e) = numbered.check_session_header(FILE, false, false) {
        let text = e.to_string();
        let line = e.line().unwrap_or(0);
        assert!(line >= 1, "{text}");
        assert!(
            text.starts_with(&format!("{FILE}:{line}: expected ")),
            "{text}"
        );
        assert!(
            !text.contains('\n') && text.chars().count() <= 400,
            "{text}"
        );
        return;
    }
    let Ok(mut session) = session_for(&numbered.trace, None, None, None, None, None) else {
        panic!("the header was checked: {:?}", numbered.trace.header);
    };
    if let Err(e) = drive_numbered(&mut session, &numbered.trace, &numbered.lines, FILE) {
        let text = format!("{e:#}");
        assert!(text.starts_with(&format!("{FILE}:")), "{text}");
    }
}

/// Yields `prefix`, then `filler` without end; fails once `limit` bytes
/// were taken, so that a reader that buffers an endless line is caught
/// instead of running the machine out of memory.
struct Endless<'a> {
    prefix: &'a [u8],
    filler: u8,
    taken: usize,
    limit: usize,
}

impl Read for Endless<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.taken >= self.limit {
            return Err(io::Error::other("the reader kept reading an endless line"));
        }
        let n = buf.len().min(self.limit - self.taken);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = self
                .prefix
                .get(self.taken + i)
                .copied()
                .unwrap_or(self.filler);
        }
        self.taken += n;
        Ok(n)
    }
}

/// `prefix` then an endless line: an error, within a bounded read.
fn endless_line_is_bounded(prefix: &[u8], filler: u8) {
    // The reader may hold a whole buffer beyond the line limit.
    let slack = 64 * 1024;
    let input = BufReader::with_capacity(
        8 * 1024,
        Endless {
            prefix,
            filler,
            taken: 0,
            limit: prefix.len() + MAX_LINE_BYTES + slack,
        },
    );
    let result = TraceReader::new(input, FILE).and_then(|r| {
        let mut r = r;
        for record in r.by_ref() {
            record?;
        }
        Ok(())
    });
    match result {
        Ok(()) => panic!("an endless line was read as a trace"),
        Err(TraceError::Io { source, .. }) => panic!("{source}"),
        Err(e @ TraceError::Malformed { .. }) => {
            let text = e.to_string();
            assert!(!text.contains('\n') && text.len() <= 400, "{text}");
        }
    }
}

/// One way to damage a trace.
#[derive(Debug, Clone)]
enum Mutation {
    FlipByte(usize, u8),
    InsertByte(usize, u8),
    DeleteByte(usize),
    DeleteLine(usize),
    RepeatLine(usize),
    SwapLines(usize, usize),
    InsertLine(usize, String),
    /// A time pushed far out (near 2^53 or 2^64).
    BigTime(usize, u64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let line = prop_oneof![
        Just("#! profile: casual".to_owned()),
        Just("#! start-fen: 8/8/8/8/8/8/8/8 w - - 0 1".to_owned()),
        Just("#! start-fen: 4k3/8/8/8/8/8/8/4K3 w - - 0 1".to_owned()),
        Just("#! profile: fide-bullet".to_owned()),
        Just("0 hall 1,2,3".to_owned()),
        "[0-9]{1,22} [0-9A-Fa-f]{14,18}",
        "[0-9]{1,6} (clock|promote) [a-z]{0,6}",
        "\\PC{0,40}",
    ];
    prop_oneof![
        3 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::FlipByte(i, b)),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::InsertByte(i, b)),
        2 => any::<usize>().prop_map(Mutation::DeleteByte),
        2 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::RepeatLine),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        2 => (any::<usize>(), line).prop_map(|(i, l)| Mutation::InsertLine(i, l)),
        1 => (any::<usize>(), prop_oneof![
            Just((1u64 << 53) - 1),
            Just(1u64 << 53),
            Just(u64::MAX - 100),
            Just(u64::MAX),
        ]).prop_map(|(i, t)| Mutation::BigTime(i, t)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    match m {
        Mutation::FlipByte(i, b) => {
            if !bytes.is_empty() {
                let i = at(*i, bytes.len());
                bytes[i] = *b;
            }
            return;
        }
        Mutation::InsertByte(i, b) => {
            let i = at(*i, bytes.len() + 1);
            bytes.insert(i, *b);
            return;
        }
        Mutation::DeleteByte(i) => {
            if !bytes.is_empty() {
                bytes.remove(at(*i, bytes.len()));
            }
            return;
        }
        Mutation::DeleteLine(i) => {
            lines.remove(at(*i, n));
        }
        Mutation::RepeatLine(i) => {
            let i = at(*i, n);
            lines.insert(i, lines[i].clone());
        }
        Mutation::SwapLines(a, b) => lines.swap(at(*a, n), at(*b, n)),
        Mutation::InsertLine(i, l) => lines.insert(at(*i, n + 1), l.clone().into_bytes()),
        Mutation::BigTime(i, t) => {
            let i = at(*i, n);
            let line = String::from_utf8_lossy(&lines[i]).into_owned();
            if let Some((_, rest)) = line.split_once(' ')
                && line.starts_with(|c: char| c.is_ascii_digit())
            {
                lines[i] = format!("{t} {rest}").into_bytes();
            }
        }
    }
    *bytes = lines.join(&b'\n');
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic_and_errors_name_a_line(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..2048),
            // Mostly the trace's own alphabet, so that more lines get far.
            proptest::collection::vec(
                prop_oneof![
                    Just(b'\n'), Just(b' '), Just(b'#'), Just(b'!'), Just(b':'), Just(b','),
                    Just(b'-'), b'0'..=b'9', b'A'..=b'F', b'a'..=b'z',
                ],
                0..2048,
            ),
        ],
        filler in any::<u8>(),
    ) {
        if let Ok(numbered) = read_checked(&bytes) {
            replay(&numbered);
        }
        endless_line_is_bounded(&bytes, filler);
    }

    #[test]
    fn damaged_real_traces_never_panic_and_errors_name_a_line(
        which in 0usize..3,
        mutations in proptest::collection::vec(mutation(), 1..6),
        filler in prop_oneof![Just(b'0'), Just(b' '), Just(b'#'), any::<u8>()],
    ) {
        let mut bytes = seeds()[which % seeds().len()].clone().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Ok(numbered) = read_checked(&bytes) {
            replay(&numbered);
        }
        endless_line_is_bounded(&bytes, filler);
    }
}

#[test]
fn the_undamaged_seeds_read_and_replay() {
    for text in seeds() {
        let numbered = read_checked(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert!(numbered.trace.records.len() > 20);
        replay(&numbered);
    }
}

#[test]
fn an_endless_line_at_the_start_or_after_a_header_is_bounded() {
    for prefix in [
        &b""[..],
        b"# touchmove-trace v1\n#! profile: casual\n0 FFFF00000000FFFF\n",
    ] {
        for filler in [b'0', b' ', b'\0', b'#', 0xff] {
            endless_line_is_bounded(prefix, filler);
        }
    }
    // A long but finite line is refused the same way.
    let reader = BufReader::new(io::repeat(b'7').take(10 * MAX_LINE_BYTES as u64));
    let e = TraceReader::new(reader, FILE).err().expect("too long");
    assert_eq!(e.line(), Some(1), "{e}");
}
