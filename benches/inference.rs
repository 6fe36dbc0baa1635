//! The session on synthesized traces of real games: scans per second at a
//! 1 kHz scan rate (every millisecond a scan, most unchanged), time per
//! concluded move, and the missed-move search for 1 to 6 plies.
use std::path::Path;

use divan::Bencher;
use divan::counter::ItemsCount;
use shakmaty::{Bitboard, Chess, Position};
use touchmove_core::game::pgn::PgnGame;
use touchmove_core::inference::missed;
use touchmove_core::replay::session_for;
use touchmove_core::trace::Trace;
use touchmove_synth::dense::DenseTrace;
use touchmove_synth::{self as synth, HandStyle};

fn main() {
    divan::main();
}

fn games(n: usize) -> Vec<PgnGame> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    touchmove::cli::read_pgn_file(&dir.join("201507britchamp.pgn"))
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .take(n)
        .collect()
}

/// A game as a 1 kHz board produces it: one scan every millisecond.
struct Dense {
    trace: Trace,
    dense: DenseTrace,
    plies: usize,
}

fn dense(game: &PgnGame, seed: u64) -> Dense {
    let trace = synth::from_pgn_game(game, &HandStyle::random(), seed).trace;
    Dense {
        dense: DenseTrace::of(&trace),
        trace,
        plies: game.moves.len(),
    }
}

fn run(d: &Dense) -> usize {
    let mut session = session_for(&d.trace, None, None, None, None, None).unwrap();
    d.dense
        .drive(&mut session, &mut Vec::with_capacity(64))
        .unwrap();
    session.game().ply()
}

/// Scans per second through filter, inference, rules and clock, at 1 kHz.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn replay_scans(bencher: Bencher) {
    let traces: Vec<Dense> = games(8)
        .iter()
        .enumerate()
        .map(|(i, g)| dense(g, i as u64))
        .collect();
    let scans: usize = traces.iter().map(|d| d.dense.scans.len()).sum();
    bencher.counter(ItemsCount::new(scans)).bench(|| {
        let mut plies = 0;
        for d in &traces {
            plies += run(d);
        }
        divan::black_box(plies)
    });
}

/// The same replay counted per concluded move.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn per_concluded_move(bencher: Bencher) {
    let traces: Vec<Dense> = games(8)
        .iter()
        .enumerate()
        .map(|(i, g)| dense(g, i as u64))
        .collect();
    let plies: usize = traces.iter().map(|d| d.plies).sum();
    bencher.counter(ItemsCount::new(plies)).bench(|| {
        for d in &traces {
            divan::black_box(run(d));
        }
    });
}

/// Positions from real games and the board `k` plies later.
fn jumps(k: usize) -> Vec<(Chess, Bitboard)> {
    let mut out = Vec::new();
    for game in games(40) {
        let mut pos = game.start.position().clone();
        for (i, m) in game.moves.iter().enumerate() {
            if i % 9 == 4 && i + k < game.moves.len() {
                let mut target = pos.clone();
                for later in &game.moves[i..i + k] {
                    target.play_unchecked(*later);
                }
                out.push((pos.clone(), target.board().occupied()));
            }
            pos.play_unchecked(*m);
        }
    }
    out
}

/// One missed-move reconstruction of `k` plies (mean over many jumps).
#[divan::bench(args = [1, 2, 3, 4, 5, 6], sample_count = 3, sample_size = 1)]
fn missed_search(bencher: Bencher, k: usize) {
    let cases = jumps(k);
    let cases = &cases[..cases.len().min(if k >= 5 { 40 } else { 200 })];
    bencher.counter(ItemsCount::new(cases.len())).bench(|| {
        for (pos, target) in cases {
            divan::black_box(missed::search(pos, *target, None, 6));
        }
    });
}
