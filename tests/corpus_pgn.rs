//! Every corpus game read, replayed through the rules core, written back as
//! PGN and read again to the same moves; `touchmove pgn check` on the corpus.
use std::path::{Path, PathBuf};
use std::process::Command;

use touchmove::cli::pgn::{replay, tags_of};
use touchmove_core::game::pgn::{self, read_all};
use touchmove_core::game::{EndReason, Profile};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "the corpus has four PGN files");
    files
}

#[test]
fn every_corpus_game_round_trips_through_the_record_and_pgn() {
    let mut games_seen = 0;
    let mut plies_seen = 0;
    let mut ended_early = Vec::new();
    for file in corpus() {
        let games = touchmove::cli::read_pgn_file(&file).unwrap();
        for game in games {
            let game = game.unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let record = replay(&game, Profile::FideStandard);
            let played = record.ply();
            if played < game.moves.len() {
                // Only a rule that ends the game by itself may stop it early:
                // players sometimes make a move or two in a dead position.
                let reason = record.end().expect("stopped only by an end of game").reason;
                assert!(
                    matches!(
                        reason,
                        EndReason::DeadPosition | EndReason::Fivefold | EndReason::SeventyFiveMoves
                    ),
                    "{} game {}: stopped at ply {played} by {reason:?}",
                    file.display(),
                    game.number
                );
                ended_early.push((file.clone(), game.number, game.moves.len() - played));
            }
            let moves: Vec<_> = record.moves().iter().map(|m| m.mv).collect();
            assert_eq!(moves[..], game.moves[..played]);

            let text = pgn::write(&record, &tags_of(&game));
            let again = read_all(text.as_bytes()).unwrap();
            assert_eq!(again.len(), 1);
            let again = again.into_iter().next().unwrap().unwrap();
            assert_eq!(
                again.moves,
                moves,
                "{} game {}:\n{text}",
                file.display(),
                game.number
            );
            assert_eq!(again.start, game.start);
            assert_eq!(again.tag("White"), game.tag("White"));
            if let Some(end) = record.end() {
                assert_eq!(again.tag("Result"), Some(end.result().as_str()));
            }
            games_seen += 1;
            plies_seen += played;
        }
    }
    assert_eq!(games_seen, 2101, "the corpus README counts 2,101 games");
    assert!(plies_seen > 182_000, "{plies_seen}");
    // Players rarely go on in a dead position; when they do it is for a move or two.
    assert!(ended_early.len() < 10, "{ended_early:?}");
    assert!(
        ended_early.iter().all(|(_, _, extra)| *extra <= 2),
        "{ended_early:?}"
    );
}

fn touchmove(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn pgn_check_reports_the_corpus_valid_and_names_a_corrupted_game_and_ply() {
    let files: Vec<String> = corpus().iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["pgn", "check"];
    args.extend(files.iter().map(String::as_str));
    let out = touchmove(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches(" 0 invalid").count(), 4, "{stdout}");
    assert!(
        stdout.contains("twic1599.pgn: 1110 games, 1110 valid"),
        "{stdout}"
    );

    // Corrupt the 3rd game of a copy: its 12th move (White's 6th) becomes
    // a king walk that is not legal there.
    let source = std::fs::read_to_string(&files[0]).unwrap();
    let mut games: Vec<String> = source.split("\n\n[Event ").map(str::to_owned).collect();
    let third = &mut games[2];
    let at = third.find(" 6. ").expect("game 3 has a 6th move") + 4;
    let end = at + third[at..].find(' ').unwrap();
    third.replace_range(at..end, "Ke5");
    let corrupted = games.join("\n\n[Event ");
    let dir = std::env::temp_dir().join(format!("touchmove-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("corrupted.pgn");
    std::fs::write(&path, corrupted).unwrap();
    let out = touchmove(&["pgn", "check", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("corrupted.pgn: game 3, ply 11 (6. Ke5)"),
        "{stderr}"
    );
}
