//! Real and random games under several hand styles replay to exactly the
//! source moves with no alert. `TOUCHMOVE_FULL=1` runs the whole corpus and
//! 1,000 random games; by default a sample of both runs.
mod support;

use std::path::Path;

use touchmove_synth::{self as synth, HandStyle};

fn full() -> bool {
    std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1")
}

fn styles() -> Vec<HandStyle> {
    ["random", "carry", "slide", "careful", "blitz"]
        .iter()
        .map(|n| HandStyle::by_name(n).unwrap())
        .chain([HandStyle::random().without_clock()])
        .collect()
}

#[test]
fn corpus_games_replay_exactly_with_no_alert() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in [
        "197308bcf.pgn",
        "200807britchamp.pgn",
        "201507britchamp.pgn",
        "twic1599.pgn",
    ] {
        let games = touchmove::cli::read_pgn_file(&dir.join(name)).unwrap();
        let step = if full() { 1 } else { 37 };
        for game in games.iter().step_by(step) {
            let game = game.as_ref().unwrap();
            for (i, style) in styles().iter().enumerate() {
                if !full() && i % 3 != game.number % 3 {
                    continue;
                }
                let seed = game.number as u64 * 31 + i as u64;
                checked += 1;
                if let Err(e) =
                    support::check_clean(game.start.position(), &game.moves, style, seed)
                {
                    failures.push(format!("{name} game {}: {e}", game.number));
                }
            }
        }
    }
    assert!(checked > 20);
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn random_games_replay_exactly_with_no_alert() {
    let n = if full() { 1000 } else { 60 };
    let mut failures = Vec::new();
    let styles = styles();
    for seed in 0..n {
        let (start, moves) = synth::random_game(seed, 160);
        let style = &styles[seed as usize % styles.len()];
        if let Err(e) = support::check_clean(&start, &moves, style, seed) {
            failures.push(format!("random game {seed}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
