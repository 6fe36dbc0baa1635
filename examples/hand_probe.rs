//! How exactly the session reads the synthesizer's hands, beyond the sets
//! the tests run: any hand style with any of its parameters changed
//! (`--set reaction_ms=100:120,grab=1.0`), on random games or the corpus,
//! with or without a clock, promotions named in any way, and the traces
//! written as a board scanning every `--period` ms would write them (see
//! `touchmove_synth::sampled`). Prints, per hand style, the games read
//! exactly (the move list equal to the game's, no alert), those with a
//! wrong move, and the first failures; `--dump` writes each failing trace
//! for `touchmove replay`.
//!
//!     cargo run --release --example hand_probe -- --period 10 --games 150
//!     cargo run --release --example hand_probe -- --styles bullet \
//!         --set reaction_ms=100:120 --games 3000
//!     cargo run --release --example hand_probe -- --styles bullet --corpus
use clap::Parser;
use shakmaty::{Chess, Move, Position};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::replay::{drive, session_for};
use touchmove_core::session::Session;
use touchmove_core::trace::Trace;
use touchmove_synth::faults::{inject_jumps, inject_random};
use touchmove_synth::{
    Expected, HandStyle, Mix, PromoteInput, random_game, sampled::sampled, synthesize,
};

#[derive(Parser)]
struct Args {
    /// The scan period in ms (0: the traces as written, to the millisecond).
    #[arg(long, default_value_t = 10)]
    period: u64,
    /// Games per style: random games, or corpus games from `--first`.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// The first game: a random game's seed, or an index into the corpus.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Only this game (its moves and the session's are printed).
    #[arg(long)]
    only: Option<u64>,
    /// Added to a game's number to seed its hands (the test suites seed
    /// random game `n` as `n` plus the corpus's game count, 2101, in a
    /// full run).
    #[arg(long, default_value_t = 0)]
    seed_base: u64,
    /// Hand styles, comma-separated.
    #[arg(long, default_value = "blitz-hands,bullet,nudges,random,casual")]
    styles: String,
    /// Style parameters changed, `name=value` comma-separated: ranges in
    /// ms as `low:high` (think_ms, air_ms, press_ms, between_ms,
    /// reaction_ms, nudge_ms), shares from 0 to 1 (grab, nudge, bounce,
    /// wobble, brush, hesitate, slide_overlap), glitches (per minute),
    /// profile (a rules profile's name).
    #[arg(long)]
    set: Option<String>,
    /// How promotions are named: `late` (after the grab or the press), or
    /// `mix` (before, after, never, late in turn).
    #[arg(long)]
    promote_input: Option<String>,
    /// Play without a clock.
    #[arg(long)]
    no_clock: bool,
    /// The games of the corpus (`../shared/corpus/pgn`) instead of random
    /// games.
    #[arg(long)]
    corpus: bool,
    /// Failures printed per style.
    #[arg(long, default_value_t = 3)]
    show: usize,
    /// Also print the games whose lines were still open at the end.
    #[arg(long)]
    show_open: bool,
    /// Threads reading games side by side.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Irregularities in every game, `KIND:COUNT`: `jumps` (the sensors
    /// not read over 1-4 plies, at random points) or `faults` (any of the
    /// synthesizer's faults: illegal moves warned, completed and
    /// reinstated or fixed the player's own way, knocked pieces,
    /// touch-move breaches, jumps). The move list must still be the game's
    /// (a jump left open over the game's last plies counts apart); alerts
    /// count as false only beyond those the faults call for.
    #[arg(long)]
    faults: Option<String>,
    /// Write each failing trace (with `--only`, that game's trace), as read
    /// at the scan period, to this folder (`STYLE-GAME.trace`, for
    /// `touchmove replay`).
    #[arg(long)]
    dump: Option<PathBuf>,
}

/// The first difference from the game, or `None` when read exactly; an
/// error for a trace the session could not read.
type Judged = Result<Option<String>, String>;

/// How the session read `trace` of the game whose moves are `source`,
/// whose positions after each ply are `fens`;
/// `allowed` are the alerts the game's faults call for (`None`: none may
/// be raised at all).
fn judge(
    trace: &Trace,
    source: &[String],
    fens: &[&str],
    allowed: Option<&Allowed>,
    verbose: bool,
) -> Judged {
    let mut session =
        session_for(trace, None, None, None, None, None).map_err(|e| e.to_string())?;
    let events: Vec<Event> = drive(&mut session, trace, "synth").map_err(|e| e.to_string())?;
    let played: Vec<String> = session
        .game()
        .moves()
        .iter()
        .map(|m| m.uci.to_string())
        .collect();
    if verbose {
        println!("game:    {}", numbered(source));
        println!("session: {}", numbered(&played));
    }
    let alert = match allowed {
        None => events.iter().find(|e| {
            matches!(
                e.kind,
                EventKind::IllegalMove { .. }
                    | EventKind::TouchMove { .. }
                    | EventKind::Displaced { .. }
            )
        }),
        Some(allowed) => allowed.first_beyond(&events),
    };
    let position = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
    let prefix = played.len() <= source.len()
        && (played[..] == source[..played.len()]
            || (allowed.is_some() && transposed_prefix(&session, fens, &position)));
    let complete = played.len() == source.len() || session.game().is_over();
    if alert.is_none() && prefix && complete {
        return Ok(None);
    }
    // With jumps: plies the sensors missed recorded in another order, or
    // as fewer plies, reaching the same position (no later move can tell;
    // see `judge_jump` in tests/inference_hands.rs). Not more plies than
    // were played: those are moves nobody made on the way there.
    if alert.is_none()
        && allowed.is_some()
        && played.len() <= source.len()
        && session_end_is_the_games(&session, fens, &position)
    {
        return Ok(None);
    }
    let first = played
        .iter()
        .zip(source)
        .position(|(a, b)| a != b)
        .unwrap_or(played.len().min(source.len()));
    // Lines still open at the end (a jump over the last plies, or one no
    // later move told apart) are no failure of the reading.
    let open = events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Candidates { lines } => Some(!lines.is_empty()),
            _ => None,
        })
        .unwrap_or(false);
    if alert.is_none() && prefix && open {
        return Ok(Some(format!(
            "{OPEN_AT_END}: {} of {} plies",
            played.len(),
            source.len()
        )));
    }
    Ok(Some(format!(
        "{} of {} plies, {}first difference at ply {} (read {}, played {}); first alert: {}",
        played.len(),
        source.len(),
        if prefix { "" } else { "WRONG MOVE, " },
        first + 1,
        played.get(first).map_or("nothing", String::as_str),
        source.get(first).map_or("nothing", String::as_str),
        alert.map_or("none".to_owned(), |e| e.to_json().to_string())
    )))
}

/// Whether the session ends on the game's last position, or, when the
/// session ended the game itself (a dead position the players played on
/// in), on the game's position after as many plies.
fn session_end_is_the_games(
    session: &Session,
    fens: &[&str],
    position: &dyn Fn(&str) -> String,
) -> bool {
    let game = session.game();
    let same = |fen: &&str| position(fen) == position(&game.fen());
    fens.last().is_some_and(same)
        || (game.is_over()
            && game
                .moves()
                .len()
                .checked_sub(1)
                .and_then(|i| fens.get(i))
                .is_some_and(same))
}

/// With jumps: whether the record reaches the game's position after as
/// many plies, each stretch of plies where the two differ being no longer
/// than a jump (plies the sensors missed recorded in another order: no
/// later move can tell).
fn transposed_prefix(session: &Session, fens: &[&str], position: &dyn Fn(&str) -> String) -> bool {
    let mut pos = session.game().start().position().clone();
    let mut apart = 0;
    for (i, m) in session.game().moves().iter().enumerate() {
        let Ok(mv) = m.uci.to_move(&pos) else {
            return false;
        };
        pos.play_unchecked(mv);
        let same = fens
            .get(i)
            .is_some_and(|fen| position(fen) == position(&touchmove_core::game::fen_of(&pos)));
        apart = if same { 0 } else { apart + 1 };
        if apart > 4 {
            return false;
        }
    }
    apart == 0
}

/// How a reading whose lines are still open at the end is reported.
const OPEN_AT_END: &str = "open at the end";

/// The alerts a game's faults call for: touch-move breaches and completed
/// illegal moves, counted (a `displaced` board is the faults' to raise:
/// knocked pieces, jumps left open).
struct Allowed {
    touch_moves: usize,
    completed_illegal: usize,
}

impl Allowed {
    fn of(expected: &[Expected]) -> Allowed {
        Allowed {
            touch_moves: expected
                .iter()
                .filter(|e| matches!(e, Expected::TouchMove { .. }))
                .count(),
            completed_illegal: expected
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        Expected::IllegalMove {
                            completed: true,
                            ..
                        }
                    )
                })
                .count(),
        }
    }

    /// The first alert beyond those allowed.
    fn first_beyond<'e>(&self, events: &'e [Event]) -> Option<&'e Event> {
        let (mut touch, mut illegal) = (0, 0);
        events.iter().find(|e| match e.kind {
            EventKind::TouchMove { .. } => {
                touch += 1;
                touch > self.touch_moves
            }
            EventKind::IllegalMove {
                completed: true, ..
            } => {
                illegal += 1;
                illegal > self.completed_illegal
            }
            _ => false,
        })
    }
}

/// `--faults KIND:COUNT`.
#[derive(Clone, Copy)]
enum Faults {
    Jumps(usize),
    Any(usize),
}

fn faults(value: &str) -> Result<Faults, String> {
    let bad = || format!("--faults {value}: expected `jumps:COUNT` or `faults:COUNT`");
    let (kind, count) = value.split_once(':').ok_or_else(bad)?;
    let count = count.parse().map_err(|_| bad())?;
    match kind {
        "jumps" => Ok(Faults::Jumps(count)),
        "faults" => Ok(Faults::Any(count)),
        _ => Err(bad()),
    }
}

fn numbered(moves: &[String]) -> String {
    let plies: Vec<String> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{}:{m}", i + 1))
        .collect();
    plies.join(" ")
}

/// A `low:high` range in ms.
fn range(name: &str, value: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--set {name}={value}: expected a range in ms, `low:high`");
    let (low, high) = value.split_once(':').ok_or_else(bad)?;
    let (low, high) = (
        low.parse().map_err(|_| bad())?,
        high.parse().map_err(|_| bad())?,
    );
    if low > high {
        return Err(bad());
    }
    Ok((low, high))
}

/// A share from 0 to 1.
fn share(name: &str, value: &str) -> Result<f64, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| format!("--set {name}={value}: expected a share from 0 to 1"))
}

/// The style named, with the arguments' changes.
fn style(name: &str, args: &Args) -> Result<HandStyle, String> {
    let mut style =
        HandStyle::by_name(name).ok_or_else(|| format!("unknown hand style {name:?}"))?;
    if args.no_clock {
        style = style.without_clock();
    }
    match args.promote_input.as_deref() {
        None => {}
        Some("late") => style.promote_input = Mix::only(PromoteInput::Late),
        Some("mix") => {
            style.promote_input = Mix::even(&[
                PromoteInput::Before,
                PromoteInput::After,
                PromoteInput::Omitted,
                PromoteInput::Late,
            ]);
        }
        Some(other) => return Err(format!("--promote-input {other}: `late` or `mix`")),
    }
    for pair in args.set.iter().flat_map(|s| s.split(',')) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("--set {pair}: expected `name=value`"))?;
        match key {
            "think_ms" => style.think_ms = range(key, value)?,
            "air_ms" => style.air_ms = range(key, value)?,
            "press_ms" => style.press_ms = range(key, value)?,
            "between_ms" => style.between_ms = range(key, value)?,
            "reaction_ms" => style.reaction_ms = range(key, value)?,
            "nudge_ms" => style.nudge_ms = range(key, value)?,
            "grab" => style.grab = share(key, value)?,
            "nudge" => style.nudge = share(key, value)?,
            "bounce" => style.bounce = share(key, value)?,
            "wobble" => style.wobble = share(key, value)?,
            "brush" => style.brush = share(key, value)?,
            "hesitate" => style.hesitate = share(key, value)?,
            "slide_overlap" => style.slide_overlap = share(key, value)?,
            "glitches" => {
                style.glitches_per_minute = value
                    .parse()
                    .map_err(|_| format!("--set glitches={value}: expected a number"))?;
            }
            "profile" => style.profile = value.to_owned(),
            _ => return Err(format!("--set {key}: no such style parameter")),
        }
    }
    Ok(style)
}

/// Every game of the corpus, in file order.
fn corpus() -> Result<Vec<(Chess, Vec<Move>)>, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let mut games = Vec::new();
    for file in files {
        for game in touchmove::cli::read_pgn_file(&file).map_err(|e| format!("{e:#}"))? {
            let game = game.map_err(|e| format!("{}: {e}", file.display()))?;
            games.push((game.start.position().clone(), game.moves.clone()));
        }
    }
    Ok(games)
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    if let Some(dir) = &args.dump {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let corpus = if args.corpus { Some(corpus()?) } else { None };
    let faults = args.faults.as_deref().map(faults).transpose()?;
    let games: Vec<u64> = match (args.only, &corpus) {
        (Some(game), _) => vec![game],
        (None, Some(c)) => (args.first..(args.first + args.games).min(c.len() as u64)).collect(),
        (None, None) => (args.first..args.first + args.games).collect(),
    };
    for name in args.styles.split(',') {
        let style = style(name, &args)?;
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(u64, Judged)>> = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..args.threads.max(1) {
                s.spawn(|| {
                    while let Some(&game) = games.get(next.fetch_add(1, Ordering::SeqCst)) {
                        let (start, moves) = match &corpus {
                            Some(c) => c[game as usize].clone(),
                            None => random_game(game, 160),
                        };
                        let seed = (game + args.seed_base) * 7 + 3;
                        let synth = match faults {
                            None => Ok((Vec::new(), synthesize(&start, &moves, &style, seed))),
                            Some(Faults::Jumps(n)) => inject_jumps(&start, &moves, &style, seed, n),
                            Some(Faults::Any(n)) => inject_random(&start, &moves, &style, seed, n),
                        }
                        .map(|(placed, synth)| {
                            if args.only.is_some() && !placed.is_empty() {
                                println!("faults (before move index): {placed:?}");
                            }
                            synth
                        });
                        let synth = match synth {
                            Ok(synth) => synth,
                            Err(e) => {
                                eprintln!("game {game} not synthesized: {e}");
                                continue;
                            }
                        };
                        let allowed = faults.map(|_| Allowed::of(&synth.expected));
                        let source: Vec<String> =
                            synth.moves.iter().map(|m| m.uci.clone()).collect();
                        let trace = if args.period == 0 {
                            synth.trace.clone()
                        } else {
                            sampled(&synth.trace, args.period)
                        };
                        if args.only.is_some() {
                            let played: Vec<String> = source
                                .iter()
                                .enumerate()
                                .map(|(i, m)| format!("{}:{m}", i + 1))
                                .collect();
                            println!("played: {}", played.join(" "));
                        }
                        let fens: Vec<&str> =
                            synth.moves.iter().map(|m| m.fen_after.as_str()).collect();
                        let dump = |dir: &PathBuf| {
                            let path = dir.join(format!("{name}-{game}.trace"));
                            if let Err(e) = std::fs::write(&path, trace.to_string()) {
                                eprintln!("{}: {e}", path.display());
                            }
                        };
                        // (With `--only`, before the reading: a reading that
                        // never ends still leaves its trace.)
                        if let Some(dir) = args.dump.as_ref().filter(|_| args.only.is_some()) {
                            dump(dir);
                        }
                        let result = judge(
                            &trace,
                            &source,
                            &fens,
                            allowed.as_ref(),
                            args.only.is_some(),
                        );
                        let failed = matches!(result, Ok(Some(_)));
                        if let Some(dir) = &args.dump
                            && failed
                            && args.only.is_none()
                        {
                            dump(dir);
                        }
                        results.lock().unwrap().push((game, result));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap();
        results.sort_by_key(|r| r.0);
        let (mut exact, mut wrong, mut open, mut shown) = (0, 0, 0, 0);
        for (game, result) in results {
            match result? {
                None => exact += 1,
                Some(failure) if failure.starts_with(OPEN_AT_END) => {
                    open += 1;
                    if args.show_open {
                        println!("  {name} game {game}: {failure}");
                    }
                }
                Some(failure) => {
                    wrong += usize::from(failure.contains("WRONG"));
                    if shown < args.show {
                        shown += 1;
                        println!("  {name} game {game}: {failure}");
                    }
                }
            }
        }
        println!(
            "{name}, period {} ms: {exact} of {} exact, {open} open at the end, {wrong} with a wrong move",
            args.period,
            games.len()
        );
    }
    Ok(())
}
