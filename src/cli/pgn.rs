//! `touchmove pgn`: check PGN files and write games back through the rules core.
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};

use touchmove_core::game::pgn::{self, PgnGame, Tags};
use touchmove_core::game::{Game, Profile};

#[derive(Debug, Args)]
pub struct PgnArgs {
    #[command(subcommand)]
    pub command: PgnCommand,
}

#[derive(Debug, Subcommand)]
pub enum PgnCommand {
    /// Validate every game of each file; report the first illegal move of
    /// each bad game with its game number and ply. Exits non-zero if any is bad.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Replay games through the rules core and write them as PGN (with the
    /// result and termination the Laws give).
    Write {
        file: PathBuf,
        /// Only this game (1 = the first of the file).
        #[arg(long)]
        game: Option<usize>,
        /// Rules profile deciding the automatic ends of game.
        #[arg(long, default_value = "fide-standard")]
        profile: Profile,
    },
}

pub fn run(args: PgnArgs) -> anyhow::Result<()> {
    match args.command {
        PgnCommand::Check { files } => check(&files),
        PgnCommand::Write {
            file,
            game,
            profile,
        } => write(&file, game, profile),
    }
}

fn check(files: &[PathBuf]) -> anyhow::Result<()> {
    let mut bad = 0;
    for file in files {
        let games = crate::cli::read_pgn_file(file)?;
        let mut file_bad = 0;
        for game in &games {
            if let Err(err) = game {
                eprintln!("{}: {err}", file.display());
                file_bad += 1;
            }
        }
        println!(
            "{}: {} games, {} valid, {} invalid",
            file.display(),
            games.len(),
            games.len() - file_bad,
            file_bad
        );
        bad += file_bad;
    }
    if bad > 0 {
        anyhow::bail!("{bad} invalid game(s)");
    }
    Ok(())
}

/// Replays a read game through `Game`; moves after the Laws ended the game
/// (for instance one more move played in a dead position) are not recorded.
pub fn replay(game: &PgnGame, profile: Profile) -> Game {
    let mut record = Game::new(game.start.clone(), profile);
    for mv in &game.moves {
        if record.play(mv, 0).is_err() {
            break;
        }
    }
    record
}

/// The tags of a read game that a written game keeps.
pub fn tags_of(game: &PgnGame) -> Tags {
    let get = |name: &str, default: &str| game.tag(name).unwrap_or(default).to_owned();
    Tags {
        event: get("Event", "?"),
        site: get("Site", "?"),
        date: get("Date", "????.??.??"),
        round: get("Round", "?"),
        white: get("White", "?"),
        black: get("Black", "?"),
        time_control: game.tag("TimeControl").map(str::to_owned),
        extra: Vec::new(),
    }
}

fn write(file: &std::path::Path, only: Option<usize>, profile: Profile) -> anyhow::Result<()> {
    let games = crate::cli::read_pgn_file(file)?;
    if let Some(n) = only {
        anyhow::ensure!(
            (1..=games.len()).contains(&n),
            "{}: has {} games, no game {n}",
            file.display(),
            games.len()
        );
    }
    for (i, game) in games.iter().enumerate() {
        if only.is_some_and(|n| n != i + 1) {
            continue;
        }
        let game = game
            .as_ref()
            .map_err(Clone::clone)
            .with_context(|| file.display().to_string())?;
        let record = replay(game, profile);
        print!("{}", pgn::write(&record, &tags_of(game)));
    }
    Ok(())
}
