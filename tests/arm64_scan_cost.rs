//! The session's work per scan, as a board scanning at 1 kHz hands it over:
//! corpus games synthesized with human hands, every millisecond a scan (most
//! of them unchanged), through filter, inference, rules and clock — the
//! loop of `benches/inference.rs`. Every game must conclude all its plies.
//!
//! scripts/scan-cost.sh runs this test, cross-built, under QEMU with an
//! instruction-counting plugin, twice: with `TOUCHMOVE_SCAN_COST=setup` (the
//! games synthesized and the sessions built, no scan fed) and with
//! `TOUCHMOVE_SCAN_COST=scan`; the difference divided by the scans is the
//! instructions a scan costs on the Pi's architecture.
//! `TOUCHMOVE_SCAN_COST_GAMES` sets the number of games (default 1).
use std::path::Path;

use shakmaty::Bitboard;
use touchmove_core::game::pgn::PgnGame;
use touchmove_core::replay::session_for;
use touchmove_core::scan::Scan;
use touchmove_core::trace::{Record, Trace};
use touchmove_synth::{self as synth, HandStyle};

fn games(n: usize) -> Vec<PgnGame> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    touchmove::cli::read_pgn_file(&dir.join("201507britchamp.pgn"))
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .take(n)
        .collect()
}

/// A game as a 1 kHz board reports it: one occupancy scan every
/// millisecond, and the clock and promotion inputs at their times.
struct Dense {
    trace: Trace,
    scans: Vec<(u64, Bitboard)>,
    inputs: Vec<(u64, Record)>,
}

fn dense(game: &PgnGame, seed: u64) -> Dense {
    let s = synth::from_pgn_game(game, &HandStyle::random(), seed);
    let mut scans = Vec::new();
    let mut inputs = Vec::new();
    let mut current = Bitboard::EMPTY;
    let mut t = 0;
    for r in &s.trace.records {
        while t < r.t {
            scans.push((t, current));
            t += 1;
        }
        match &r.record {
            Record::Occupancy(bb) => current = *bb,
            other => inputs.push((r.t, other.clone())),
        }
    }
    scans.push((t, current));
    Dense {
        trace: s.trace,
        scans,
        inputs,
    }
}

#[test]
fn a_1khz_board_through_the_session_concludes_every_ply() {
    let n = std::env::var("TOUCHMOVE_SCAN_COST_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let feed = std::env::var("TOUCHMOVE_SCAN_COST").as_deref() != Ok("setup");
    let games = games(n);
    assert_eq!(games.len(), n, "the corpus file has {n} games");
    let mut scans = 0;
    let mut plies = 0;
    for (i, game) in games.iter().enumerate() {
        let d = dense(game, i as u64);
        let mut session = session_for(&d.trace, None, None, None, None, None).unwrap();
        if !feed {
            continue;
        }
        let mut out = Vec::with_capacity(64);
        let mut next = 0;
        for &(t, occupancy) in &d.scans {
            while next < d.inputs.len() && d.inputs[next].0 <= t {
                match &d.inputs[next].1 {
                    Record::Clock(side) => session.clock_button(t, *side, &mut out),
                    Record::Promote(role) => session.promote(t, *role, &mut out),
                    _ => {}
                }
                next += 1;
            }
            session
                .scan(t, &Scan::Occupancy(occupancy), &mut out)
                .unwrap();
            out.clear();
        }
        assert_eq!(
            session.game().ply(),
            game.moves.len(),
            "game {}: every ply concluded",
            i + 1
        );
        scans += d.scans.len();
        plies += game.moves.len();
    }
    eprintln!("scan-cost: games {n} scans {scans} plies {plies} fed {feed}");
}
