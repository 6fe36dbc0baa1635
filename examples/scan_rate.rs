//! How exactly the session reads the synthesizer's hands when their traces
//! are written as a board scanning every `--period` ms would write them
//! (see `touchmove_synth::sampled`), beside the same traces to the
//! millisecond. Prints, per hand style, the games read exactly (the move
//! list equal to the game's, no alert), and the first failures.
//!
//!     cargo run --release --example scan_rate -- --period 10 --games 150
use clap::Parser;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::replay::{drive, session_for};
use touchmove_core::trace::Trace;
use touchmove_synth::{HandStyle, random_game, sampled::sampled, synthesize};

#[derive(Parser)]
struct Args {
    /// The scan period in ms (0: the traces as written, to the millisecond).
    #[arg(long, default_value_t = 10)]
    period: u64,
    /// Random games per style.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Hand styles, comma-separated.
    #[arg(long, default_value = "blitz-hands,bullet,nudges,random,casual")]
    styles: String,
    /// Failures printed per style.
    #[arg(long, default_value_t = 3)]
    show: usize,
    /// Write each failing trace, as read at the scan period, to this folder
    /// (`STYLE-SEED.trace`, for `touchmove replay`).
    #[arg(long)]
    dump: Option<std::path::PathBuf>,
}

/// The first difference from the game, or `None` when read exactly.
fn judge(trace: &Trace, source: &[String]) -> Result<Option<String>, String> {
    let mut session =
        session_for(trace, None, None, None, None, None).map_err(|e| e.to_string())?;
    let events: Vec<Event> = drive(&mut session, trace, "synth").map_err(|e| e.to_string())?;
    let played: Vec<String> = session
        .game()
        .moves()
        .iter()
        .map(|m| m.uci.to_string())
        .collect();
    let alert = events.iter().find(|e| {
        matches!(
            e.kind,
            EventKind::IllegalMove { .. }
                | EventKind::TouchMove { .. }
                | EventKind::Displaced { .. }
        )
    });
    let prefix = played.len() <= source.len() && played[..] == source[..played.len()];
    let complete = played.len() == source.len() || session.game().is_over();
    if alert.is_none() && prefix && complete {
        return Ok(None);
    }
    let first = played
        .iter()
        .zip(source)
        .position(|(a, b)| a != b)
        .unwrap_or(played.len().min(source.len()));
    Ok(Some(format!(
        "{} of {} plies, {}first difference at ply {}; first alert: {}",
        played.len(),
        source.len(),
        if prefix { "" } else { "WRONG MOVE, " },
        first + 1,
        alert.map_or("none".to_owned(), |e| e.to_json().to_string())
    )))
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    for name in args.styles.split(',') {
        let style =
            HandStyle::by_name(name).ok_or_else(|| format!("unknown hand style {name:?}"))?;
        let (mut exact, mut wrong, mut shown) = (0, 0, 0);
        for seed in 0..args.games {
            let (start, moves) = random_game(seed, 160);
            let synth = synthesize(&start, &moves, &style, seed * 7 + 3);
            let source: Vec<String> = synth.moves.iter().map(|m| m.uci.clone()).collect();
            let trace = if args.period == 0 {
                synth.trace.clone()
            } else {
                sampled(&synth.trace, args.period)
            };
            match judge(&trace, &source)? {
                None => exact += 1,
                Some(failure) => {
                    wrong += usize::from(failure.contains("WRONG"));
                    if let Some(dir) = &args.dump {
                        let path = dir.join(format!("{name}-{seed}.trace"));
                        std::fs::write(&path, trace.to_string())
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                    if shown < args.show {
                        shown += 1;
                        println!("  {name} seed {seed}: {failure}");
                    }
                }
            }
        }
        println!(
            "{name}, period {} ms: {exact} of {} exact, {wrong} with a wrong move",
            args.period, args.games
        );
    }
    Ok(())
}
