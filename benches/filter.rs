//! The cost of filtering one scan, on a realistic stream: a board scanned at
//! 1 kHz where most scans are unchanged and a piece is lifted or set down
//! every few hundred milliseconds, with contact bounce.
use divan::Bencher;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{Bitboard, Square};
use touchmove_core::Millis;
use touchmove_core::filter::{Classify, Debounce, DebounceConfig, Filter, FilterConfig};
use touchmove_core::scan::{Scan, Snapshot};

fn main() {
    divan::main();
}

const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);
const SCANS: usize = 20_000;

/// `SCANS` occupancy scans, one per ms.
fn occupancy_stream() -> Vec<Bitboard> {
    let mut rng = StdRng::seed_from_u64(11);
    let mut board = START;
    let mut scans = Vec::with_capacity(SCANS);
    let mut next_change = 300;
    let mut bounce: Vec<(usize, Square)> = Vec::new();
    for t in 0..SCANS {
        if t == next_change {
            let sq = Square::new(rng.random_range(0..64));
            board.toggle(sq);
            // Up to two extra bounces, a millisecond or two apart.
            let mut at = t;
            for _ in 0..rng.random_range(0..=2) {
                at += rng.random_range(1..=2);
                bounce.push((at, sq));
                at += rng.random_range(1..=2);
                bounce.push((at, sq));
            }
            next_change = t + rng.random_range(100..600);
        }
        bounce.retain(|&(at, sq)| {
            if at == t {
                board.toggle(sq);
            }
            at != t
        });
        scans.push(board);
    }
    scans
}

/// Positive levels are white magnets, negative black, near zero empty.
struct Threshold;

impl Classify for Threshold {
    fn classify(&mut self, values: &[i32; 64]) -> Snapshot {
        let mut white = 0u64;
        let mut black = 0u64;
        for (i, &v) in values.iter().enumerate() {
            white |= u64::from(v > 300) << i;
            black |= u64::from(v < -300) << i;
        }
        Snapshot {
            white: Bitboard(white),
            black: Bitboard(black),
        }
    }
}

/// The occupancy stream as noisy Hall levels: ranks 1-4 white, 5-8 black.
fn analog_stream() -> Vec<Scan> {
    let mut rng = StdRng::seed_from_u64(12);
    occupancy_stream()
        .into_iter()
        .map(|occ| {
            Scan::Analog(Box::new(std::array::from_fn(|i| {
                let noise = rng.random_range(-20..=20);
                match (occ.contains(Square::new(i as u32)), i < 32) {
                    (true, true) => 900 + noise,
                    (true, false) => -900 + noise,
                    (false, _) => noise,
                }
            })))
        })
        .collect()
}

/// Runs `step(t, index)` once per iteration, time advancing 1 ms each.
fn per_scan(bencher: Bencher, mut step: impl FnMut(Millis, usize)) {
    let mut t: Millis = 1;
    bencher.bench_local(move || {
        step(t, t as usize % SCANS);
        t += 1;
    });
}

/// The debounce alone, on occupancy scans.
#[divan::bench]
fn debounce_occupancy(bencher: Bencher) {
    let scans = occupancy_stream();
    let mut debounce = Debounce::new(DebounceConfig::default(), START);
    let mut out = Vec::with_capacity(64);
    per_scan(bencher, |t, i| {
        out.clear();
        debounce.scan(t, divan::black_box(scans[i]), &mut out);
        divan::black_box(&out);
    });
}

/// The debounce alone, when nothing changes at all.
#[divan::bench]
fn debounce_unchanged(bencher: Bencher) {
    let mut debounce = Debounce::new(DebounceConfig::default(), START);
    let mut out = Vec::with_capacity(64);
    per_scan(bencher, |t, _| {
        out.clear();
        debounce.scan(t, divan::black_box(START), &mut out);
        divan::black_box(&out);
    });
}

/// The whole filter (debounce and health) on occupancy scans.
#[divan::bench]
fn filter_occupancy(bencher: Bencher) {
    let scans: Vec<Scan> = occupancy_stream()
        .into_iter()
        .map(Scan::Occupancy)
        .collect();
    let mut filter = Filter::new(FilterConfig::default(), None);
    let (mut changes, mut faults) = (Vec::with_capacity(64), Vec::with_capacity(64));
    filter
        .scan(0, &Scan::Occupancy(START), &mut changes, &mut faults)
        .unwrap();
    per_scan(bencher, |t, i| {
        changes.clear();
        faults.clear();
        filter
            .scan(t, divan::black_box(&scans[i]), &mut changes, &mut faults)
            .unwrap();
        divan::black_box((&changes, &faults));
    });
}

/// The whole filter on analog scans through a threshold classifier.
#[divan::bench]
fn filter_analog(bencher: Bencher) {
    let scans = analog_stream();
    let mut filter = Filter::new(FilterConfig::default(), Some(Box::new(Threshold)));
    let (mut changes, mut faults) = (Vec::with_capacity(64), Vec::with_capacity(64));
    filter
        .scan(0, &scans[0], &mut changes, &mut faults)
        .unwrap();
    per_scan(bencher, |t, i| {
        changes.clear();
        faults.clear();
        filter
            .scan(t, divan::black_box(&scans[i]), &mut changes, &mut faults)
            .unwrap();
        divan::black_box((&changes, &faults));
    });
}

/// The debounce alone, worst case: every scan changes (a square bouncing or
/// chattering at the scan rate).
#[divan::bench]
fn debounce_every_scan_changes(bencher: Bencher) {
    let boards = [START, START.without(Square::E2)];
    let mut debounce = Debounce::new(DebounceConfig::default(), START);
    let mut out = Vec::with_capacity(64);
    per_scan(bencher, |t, i| {
        out.clear();
        debounce.scan(t, divan::black_box(boards[i % 2]), &mut out);
        divan::black_box(&out);
    });
}
