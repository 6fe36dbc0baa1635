//! Replaying the whole corpus through the rules core: every move checked,
//! played, written in SAN, and followed by the end-of-game checks (mate,
//! stalemate, the dead-position fast check, repetition, 50/75 moves).
use std::path::Path;

use divan::Bencher;
use divan::counter::ItemsCount;
use touchmove_core::game::pgn::PgnGame;
use touchmove_core::game::{Game, Profile};

fn main() {
    divan::main();
}

fn corpus() -> Vec<PgnGame> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let mut games = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    for file in files {
        games.extend(
            touchmove::cli::read_pgn_file(&file)
                .unwrap()
                .into_iter()
                .map(Result::unwrap),
        );
    }
    games
}

/// Moves per second over the whole corpus (182,456 plies).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn replay_corpus(bencher: Bencher) {
    let games = corpus();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    bencher.counter(ItemsCount::new(plies)).bench(|| {
        let mut played = 0;
        for game in &games {
            let mut record = Game::new(game.start.clone(), Profile::FideStandard);
            for mv in &game.moves {
                if record.play(mv, 0).is_err() {
                    break;
                }
            }
            played += record.ply();
        }
        divan::black_box(played)
    });
}

/// The same replay without the rules core's per-move checks: shakmaty alone
/// (legality and play), the floor the record is measured against.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn shakmaty_alone(bencher: Bencher) {
    use shakmaty::Position;
    let games = corpus();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    bencher.counter(ItemsCount::new(plies)).bench(|| {
        let mut played = 0;
        for game in &games {
            let mut pos = game.start.position().clone();
            for mv in &game.moves {
                if pos.is_legal(*mv) {
                    pos.play_unchecked(*mv);
                    played += 1;
                }
            }
        }
        divan::black_box(played)
    });
}
