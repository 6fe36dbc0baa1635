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

use touchmove_core::game::pgn::PgnGame;
use touchmove_core::replay::session_for;
use touchmove_synth::dense::DenseTrace;
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
        let trace = synth::from_pgn_game(game, &HandStyle::random(), i as u64).trace;
        let d = DenseTrace::of(&trace);
        let mut session = session_for(&trace, None, None, None, None, None).unwrap();
        if !feed {
            continue;
        }
        d.drive(&mut session, &mut Vec::with_capacity(64)).unwrap();
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
