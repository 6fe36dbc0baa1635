//! `touchmove record`: raw scans from a board backend into a trace.
//!
//! Every change is written, unfiltered, at the profile's scan rate, with the
//! trace format's header lines filled in (`../shared/spec/trace-format.md`).
//! A board with clock buttons (`[clock]` in its profile) has each press
//! written as a clock record, so that the trace replays the presses too.
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use touchmove_core::Millis;
use touchmove_core::trace::{Header, Record, TimedRecord, Trace};
use touchmove_hw::clock_buttons::{ButtonPress, ClockButtons};
use touchmove_hw::profile::{self, BoardProfile};
use touchmove_hw::{Scan, Scanner, SensorError};

/// Arguments of `touchmove record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// The board profile to read (hw/*.toml).
    #[arg(long, value_name = "PROFILE")]
    pub board: PathBuf,
    /// The trace file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Stop after this many seconds (otherwise at Ctrl-C, or when a trace ends).
    #[arg(long, value_name = "N")]
    pub seconds: Option<f64>,
    /// The rules profile to name in the trace header (e.g. fide-standard).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// The starting position to name in the trace header (FEN or X-FEN).
    #[arg(long, value_name = "FEN")]
    pub start_fen: Option<String>,
}

/// Why a recording ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The time limit was reached.
    TimeLimit,
    /// Stopped from outside (Ctrl-C).
    Interrupted,
    /// The source has no more scans (a replayed trace ended).
    Exhausted,
}

/// What a recording did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// Scans read.
    pub scans: u64,
    /// Scans written (the changes).
    pub changes: u64,
    /// Clock button presses written.
    pub presses: u64,
    /// Time of the last scan read, in ms since the start.
    pub last_scan: Millis,
    pub ended: Ended,
}

/// How to record.
#[derive(Debug, Clone)]
pub struct RecordPlan {
    /// Time between two scans.
    pub period: Duration,
    /// Stop after this long, if given.
    pub limit: Option<Duration>,
    pub header: Header,
}

impl RecordPlan {
    /// The plan for a profile: its scan rate, and `#! board:` naming it.
    pub fn for_profile(board: &BoardProfile) -> RecordPlan {
        RecordPlan {
            period: board.scan_period(),
            limit: None,
            header: Header {
                board: Some(board.board_line()),
                ..Header::default()
            },
        }
    }
}

fn to_record(scan: Scan) -> Record {
    match scan {
        Scan::Occupancy(bb) => Record::Occupancy(bb),
        Scan::Analog(levels) => Record::Analog(levels),
    }
}

/// Reads `scanner` once a period until the limit, `stop`, or the end of its
/// scans, writing the header and then every scan that differs from the one
/// before (the first always) to `out`; with `buttons`, each press before
/// the scan of its tick.
pub fn record(
    scanner: &mut dyn Scanner,
    mut buttons: Option<&mut ClockButtons>,
    plan: &RecordPlan,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> anyhow::Result<Recording> {
    let header = Trace {
        header: plan.header.clone(),
        records: Vec::new(),
    };
    write!(out, "{header}").context("writing the trace header")?;
    out.flush().context("writing the trace header")?;
    let start = Instant::now();
    let mut last: Option<Scan> = None;
    let mut recording = Recording {
        scans: 0,
        changes: 0,
        presses: 0,
        last_scan: 0,
        ended: Ended::Interrupted,
    };
    let mut tick: u32 = 0;
    loop {
        if stop.load(Ordering::SeqCst) {
            recording.ended = Ended::Interrupted;
            break;
        }
        let elapsed = start.elapsed();
        if plan.limit.is_some_and(|limit| elapsed >= limit) {
            recording.ended = Ended::TimeLimit;
            break;
        }
        let now = elapsed.as_millis() as Millis;
        if let Some(buttons) = buttons.as_deref_mut() {
            let mut presses: Vec<ButtonPress> = Vec::new();
            match buttons.poll(now, &mut presses) {
                Ok(()) => {}
                // A button that cannot be read does not stop the recording
                // of the board; the presses are missing from the trace.
                Err(e) => eprintln!("{}: {e} at {now} ms", buttons.describe()),
            }
            for press in presses {
                let line = TimedRecord {
                    t: press.t,
                    record: Record::Clock(press.side),
                };
                writeln!(out, "{line}").context("writing a clock press")?;
                recording.presses += 1;
            }
        }
        match scanner.scan(now) {
            Ok(scan) => {
                recording.scans += 1;
                recording.last_scan = now;
                if last.as_ref() != Some(&scan) {
                    let line = TimedRecord {
                        t: now,
                        record: to_record(scan.clone()),
                    };
                    writeln!(out, "{line}").context("writing a scan")?;
                    out.flush().context("writing a scan")?;
                    recording.changes += 1;
                    last = Some(scan);
                }
            }
            Err(SensorError::Exhausted) => {
                recording.ended = Ended::Exhausted;
                break;
            }
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!(
                    "reading {} at {now} ms (the scans so far are written)",
                    scanner.describe()
                )));
            }
        }
        // Pace on the start time, skipping the ticks a slow scan overran.
        tick += 1;
        let mut next = plan.period * tick;
        let elapsed = start.elapsed();
        while next <= elapsed {
            tick += 1;
            next = plan.period * tick;
        }
        if let Some(limit) = plan.limit {
            next = next.min(limit);
        }
        // Sleep in short slices so that Ctrl-C is answered promptly.
        while !stop.load(Ordering::SeqCst) {
            let left = next.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
    Ok(recording)
}

pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    let board = profile::load(&args.board)?;
    if let Some(seconds) = args.seconds
        && !(seconds.is_finite() && seconds > 0.0)
    {
        anyhow::bail!("--seconds {seconds}: expected a positive number of seconds");
    }
    let mut scanner = profile::open(&board)?;
    let mut buttons = profile::open_clock_buttons(&board)?;
    let mut plan = RecordPlan::for_profile(&board);
    plan.limit = args.seconds.map(Duration::from_secs_f64);
    plan.header.profile = args.profile;
    plan.header.start_fen = args.start_fen;

    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("installing the Ctrl-C handler")?;

    let file = std::fs::File::create(&args.out)
        .with_context(|| format!("{}: could not create the trace", args.out.display()))?;
    let mut out = std::io::BufWriter::new(file);
    eprintln!(
        "recording {} at {} Hz into {} ({})",
        scanner.describe(),
        board.scan_rate_hz,
        args.out.display(),
        match args.seconds {
            Some(s) => format!("for {s} s or until Ctrl-C"),
            None => "until Ctrl-C".to_owned(),
        }
    );
    let recording = record(scanner.as_mut(), buttons.as_mut(), &plan, &stop, &mut out)
        .with_context(|| format!("recording into {}", args.out.display()))?;
    out.flush()
        .with_context(|| format!("{}: could not write the trace", args.out.display()))?;
    let why = match recording.ended {
        Ended::TimeLimit => "time limit reached",
        Ended::Interrupted => "interrupted",
        Ended::Exhausted => "the source has no more scans",
    };
    eprintln!(
        "{} scans read, {} changes and {} clock presses written over {} ms into {} ({why})",
        recording.scans,
        recording.changes,
        recording.presses,
        recording.last_scan,
        args.out.display()
    );
    Ok(())
}
