//! `touchmove synth`: chess games turned into raw sensor traces (format v1)
//! by a model of human hands.
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use touchmove_core::game::Start;
use touchmove_synth::{self as synth, HandStyle};

/// Arguments of `touchmove synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Games to play from a PGN file.
    #[arg(long, value_name = "FILE", conflicts_with = "random")]
    pub pgn: Option<PathBuf>,
    /// Which game of the PGN file (1-based).
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with = "all")]
    pub game: usize,
    /// Every game of the PGN file.
    #[arg(long)]
    pub all: bool,
    /// This many seeded random games, rich in captures, castling, en passant and promotions.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// At most this many plies per random game.
    #[arg(long, value_name = "PLIES", default_value_t = 160)]
    pub plies: usize,
    /// Random games start from random Chess960 positions.
    #[arg(long)]
    pub chess960: bool,
    /// Seed of the hands (and of the random games).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Hand style: random, carry, slide, careful, blitz, casual, blitz-hands
    /// (the next mover often grabs before the opponent's clock press),
    /// bullet (grabs most moves, 60 ms captures), nudges (pieces brushed
    /// while a player thinks).
    #[arg(long, value_name = "STYLE", default_value = "random")]
    pub style: String,
    /// No clock: no presses, at least 400 ms between a release and the next lift.
    #[arg(long)]
    pub no_clock: bool,
    /// No EMI glitches.
    #[arg(long)]
    pub no_glitches: bool,
    /// Insert up to this many random faults per game (illegal moves, knocked
    /// pieces, touch-move breaches, missed plies).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub faults: usize,
    /// Insert up to this many random jumps per game: the sensors miss 1 to 4
    /// plies and the board jumps to the position after them.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub jumps: usize,
    /// Also write each game's expected events (`NAME.expected.jsonl`).
    #[arg(long)]
    pub expected: bool,
    /// Directory for the traces (one `NAME.trace` per game), or `-` for standard output (one game).
    #[arg(long, value_name = "DIR|-", default_value = "-")]
    pub out: String,
}

/// Runs `touchmove synth`.
pub fn run(args: SynthArgs) -> anyhow::Result<()> {
    let Some(mut style) = HandStyle::by_name(&args.style) else {
        bail!(
            "--style {:?}: unknown hand style (known: {})",
            args.style,
            HandStyle::NAMES.join(", ")
        );
    };
    if args.no_clock {
        style = style.without_clock();
    }
    if args.no_glitches {
        style = style.without_glitches();
    }
    let games = games(&args)?;
    if args.out == "-" {
        if games.len() != 1 {
            bail!(
                "--out -: standard output takes one trace, but {} games were chosen; give --out DIR",
                games.len()
            );
        }
        let (_, start, moves) = &games[0];
        let synthesized = synthesize(start, moves, &style, args.seed, args.faults, args.jumps)?;
        let mut out = std::io::stdout().lock();
        return match write!(out, "{}", synthesized.trace).and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(e).context("cannot write to standard output")
            }
            _ => Ok(()),
        };
    }
    let dir = Path::new(&args.out);
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create", dir.display()))?;
    for (i, (name, start, moves)) in games.iter().enumerate() {
        let seed = args.seed.wrapping_add(i as u64);
        let synthesized = synthesize(start, moves, &style, seed, args.faults, args.jumps)
            .with_context(|| format!("game {name}"))?;
        let path = dir.join(format!("{name}.trace"));
        std::fs::write(&path, synthesized.trace.to_string())
            .with_context(|| format!("{}: cannot write", path.display()))?;
        if args.expected {
            let path = dir.join(format!("{name}.expected.jsonl"));
            let mut file = std::io::BufWriter::new(
                std::fs::File::create(&path)
                    .with_context(|| format!("{}: cannot create", path.display()))?,
            );
            for event in &synthesized.expected {
                writeln!(file, "{}", event.to_json())
                    .with_context(|| format!("{}: cannot write", path.display()))?;
            }
        }
    }
    eprintln!("wrote {} trace(s) to {}", games.len(), dir.display());
    Ok(())
}

/// One game's trace, with `faults` random faults and `jumps` random jumps when asked.
fn synthesize(
    start: &shakmaty::Chess,
    moves: &[shakmaty::Move],
    style: &HandStyle,
    seed: u64,
    faults: usize,
    jumps: usize,
) -> anyhow::Result<synth::Synthesized> {
    use synth::faults;
    match (faults, jumps) {
        (0, 0) => Ok(synth::synthesize(start, moves, style, seed)),
        (_, 0) => Ok(faults::inject_random(start, moves, style, seed, faults)?.1),
        (0, _) => Ok(faults::inject_jumps(start, moves, style, seed, jumps)?.1),
        _ => {
            let (mut placed, _) = faults::inject_random(start, moves, style, seed, faults)?;
            placed.extend(faults::random_jumps(moves.len(), seed, jumps, &placed));
            Ok(faults::inject(start, moves, style, seed, &placed)?)
        }
    }
}

type Game = (String, shakmaty::Chess, Vec<shakmaty::Move>);

/// The games chosen by the arguments, each with a file name.
fn games(args: &SynthArgs) -> anyhow::Result<Vec<Game>> {
    if let Some(n) = args.random {
        return (0..n)
            .map(|i| {
                let seed = args.seed.wrapping_add(i as u64);
                let start = if args.chess960 {
                    Start::chess960((seed % 960) as u32)?
                } else {
                    Start::standard()
                };
                let start = start.position().clone();
                let moves = synth::random_game_from(&start, seed, args.plies);
                Ok((format!("random-{seed}"), start, moves))
            })
            .collect();
    }
    let Some(path) = &args.pgn else {
        bail!("give --pgn FILE or --random N");
    };
    let all = crate::cli::read_pgn_file(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "game".into());
    let chosen: Vec<_> = if args.all {
        all
    } else {
        let count = all.len();
        match all.into_iter().nth(args.game.wrapping_sub(1)) {
            Some(game) => vec![game],
            None => bail!(
                "--game {}: {} holds {} game(s), numbered from 1",
                args.game,
                path.display(),
                count
            ),
        }
    };
    chosen
        .into_iter()
        .map(|g| {
            let g = g.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            Ok((
                format!("{stem}-{}", g.number),
                g.start.position().clone(),
                g.moves,
            ))
        })
        .collect()
}
