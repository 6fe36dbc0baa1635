//! `touchmove bench jumps`: moves the sensors did not read. Times the
//! session concluding a jump of a few plies at random points of real games
//! (the missed-move search and the hypotheses it opens), a second jump read
//! while those lines are open (each line searched on), and the scan rate
//! of a session that keeps lines open while play goes on, side by side
//! with the same play and no open line.
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use rand::{RngExt, SeedableRng, rngs::StdRng};
use shakmaty::{Bitboard, Chess, Move, Position};

use touchmove_core::Millis;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::{Game, Profile};
use touchmove_core::scan::Scan;
use touchmove_core::session::{Downtime, Resumption, Session, SessionConfig};

/// Arguments of `touchmove bench jumps`.
#[derive(Debug, clap::Args)]
pub struct JumpBench {
    /// Games to take the jumps from (PGN).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "../shared/corpus/pgn/201507britchamp.pgn"
    )]
    pub pgn: PathBuf,
    /// How many jumps to time.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub jumps: usize,
    /// Plies in each jump.
    #[arg(long, value_name = "PLIES", default_value_t = 4)]
    pub plies: usize,
    /// Plies played at 1 kHz after the jump for the scan-rate figure.
    #[arg(long, value_name = "PLIES", default_value_t = 12)]
    pub play: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// What a jump became.
#[derive(Debug, Default)]
struct Outcomes {
    adopted: usize,
    open: usize,
    other: usize,
}

/// A session carrying on from `moves[..at]` of a game, the board read.
fn session_at(start: &Chess, moves: &[Move], at: usize) -> anyhow::Result<(Session, Millis)> {
    let config = SessionConfig {
        start: touchmove_core::game::Start::from_fen(&touchmove_core::game::fen_of(start))?,
        profile: Profile::FideStandard,
        ..SessionConfig::default()
    };
    let mut game = Game::new(config.start.clone(), config.profile);
    for (i, m) in moves[..at].iter().enumerate() {
        game.play(m, i as Millis * 1000)
            .map_err(|e| anyhow::anyhow!("move {}: {e:?}", i + 1))?;
    }
    let t = at as Millis * 1000 + 1000;
    let occupied = game.position().board().occupied();
    let mut out = Vec::new();
    let resumption = Resumption {
        game,
        next_seq: 0,
        awaiting_press: None,
        clock: None,
        t,
        downtime: Downtime::Pause,
    };
    let mut session = Session::resume(config, None, resumption, &mut out);
    session.scan(t, &Scan::Occupancy(occupied), &mut out)?;
    session.advance(t + 2000, &mut out);
    Ok((session, t + 2000))
}

fn after(start: &Chess, moves: &[Move]) -> Chess {
    let mut pos = start.clone();
    for m in moves {
        pos.play_unchecked(*m);
    }
    pos
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Plays `moves` at 1 kHz (a scan every millisecond): lift, carry, set
/// down, press. Returns the scans fed and the seconds they took.
fn play_dense(
    session: &mut Session,
    mut pos: Chess,
    moves: &[Move],
    mut t: Millis,
) -> anyhow::Result<(u64, f64)> {
    let mut out: Vec<Event> = Vec::new();
    let mut occ = pos.board().occupied();
    let mut scans = 0u64;
    let began = Instant::now();
    let mut feed = |session: &mut Session, t: &mut Millis, occ: Bitboard, ms: Millis| {
        for _ in 0..ms {
            *t += 1;
            session.scan(*t, &Scan::Occupancy(occ), &mut out)?;
            scans += 1;
            out.clear();
        }
        anyhow::Ok(())
    };
    for &m in moves {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let mut lifted = occ & !next.board().occupied();
        if let Some(c) = touchmove_core::inference::board_math::captured_square(&m) {
            lifted.add(c);
        }
        feed(session, &mut t, occ, 600)?;
        for sq in lifted {
            occ.discard(sq);
            feed(session, &mut t, occ, 250)?;
        }
        occ = next.board().occupied();
        feed(session, &mut t, occ, 400)?;
        session.clock_button(t, pos.turn(), &mut Vec::new());
        pos = next;
    }
    Ok((scans, began.elapsed().as_secs_f64()))
}

/// Runs `touchmove bench jumps`.
pub fn run(args: JumpBench) -> anyhow::Result<()> {
    let games: Vec<_> = crate::cli::read_pgn_file(&args.pgn)
        .with_context(|| format!("reading {}", args.pgn.display()))?
        .into_iter()
        .filter_map(Result::ok)
        .filter(|g| g.moves.len() > args.plies + args.play + 8)
        .collect();
    anyhow::ensure!(
        !games.is_empty(),
        "{}: no game long enough",
        args.pgn.display()
    );
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut times_ms: Vec<f64> = Vec::with_capacity(args.jumps);
    let mut outcomes = Outcomes::default();
    // The jump that left the most lines open, for the scan-rate figure.
    let mut widest: Option<(usize, usize, usize)> = None;
    // Jumps read while lines were open: (lines open, milliseconds).
    let mut under_lines: Vec<(usize, f64)> = Vec::new();
    for _ in 0..args.jumps {
        let g = rng.random_range(0..games.len());
        let game = &games[g];
        let start = game.start.position().clone();
        let at = rng.random_range(2..game.moves.len() - args.plies - args.play);
        let (mut session, t) = session_at(&start, &game.moves, at)?;
        let target = after(&start, &game.moves[..at + args.plies])
            .board()
            .occupied();
        let mut out = Vec::new();
        session.scan(t, &Scan::Occupancy(target), &mut out)?;
        let began = Instant::now();
        session.advance(t + 1000, &mut out);
        times_ms.push(began.elapsed().as_secs_f64() * 1000.0);
        let open = out.iter().rev().find_map(|e| match &e.kind {
            EventKind::Candidates { lines } => Some(lines.len()),
            _ => None,
        });
        match open {
            Some(n) if n > 0 => {
                outcomes.open += 1;
                if widest.is_none_or(|(_, _, w)| n > w) {
                    widest = Some((g, at, n));
                }
                // A second jump while those lines are open: each line is
                // searched on from its own position.
                let until = at + 2 * args.plies;
                if until <= game.moves.len() {
                    let target = after(&start, &game.moves[..until]).board().occupied();
                    let mut out = Vec::new();
                    session.scan(t + 1001, &Scan::Occupancy(target), &mut out)?;
                    let began = Instant::now();
                    session.advance(t + 2001, &mut out);
                    under_lines.push((n, began.elapsed().as_secs_f64() * 1000.0));
                }
            }
            _ if session.game().ply() == at + args.plies => outcomes.adopted += 1,
            _ => outcomes.other += 1,
        }
    }
    times_ms.sort_by(f64::total_cmp);
    println!(
        "{}-ply jumps at random points of {} games: {} timed; adopted {}, lines left open {}, other {}",
        args.plies,
        games.len(),
        times_ms.len(),
        outcomes.adopted,
        outcomes.open,
        outcomes.other
    );
    println!(
        "time to conclude a jump: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        percentile(&times_ms, 0.5),
        percentile(&times_ms, 0.99),
        times_ms.last().copied().unwrap_or(0.0)
    );
    let mut under_ms: Vec<f64> = under_lines.iter().map(|&(_, ms)| ms).collect();
    under_ms.sort_by(f64::total_cmp);
    let mut widths: Vec<f64> = under_lines.iter().map(|&(n, _)| n as f64).collect();
    widths.sort_by(f64::total_cmp);
    let widest_ms = under_lines
        .iter()
        .filter(|&&(n, _)| n as f64 == widths.last().copied().unwrap_or(0.0))
        .map(|&(_, ms)| ms)
        .fold(0.0, f64::max);
    println!(
        "a second jump of {} plies under the lines left open ({} jumps, {}-{} lines, median {}): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({:.3} ms under the most lines)",
        args.plies,
        under_ms.len(),
        widths.first().copied().unwrap_or(0.0),
        widths.last().copied().unwrap_or(0.0),
        percentile(&widths, 0.5),
        percentile(&under_ms, 0.5),
        percentile(&under_ms, 0.99),
        under_ms.last().copied().unwrap_or(0.0),
        widest_ms
    );
    let Some((g, at, width)) = widest else {
        println!("no jump left lines open: no scan-rate figure with open lines");
        return Ok(());
    };
    // The same play after the jump, with the lines open and without.
    let game = &games[g];
    let start = game.start.position().clone();
    let from = at + args.plies;
    let play = &game.moves[from..from + args.play];
    let (mut open, t) = session_at(&start, &game.moves, at)?;
    let target = after(&start, &game.moves[..from]);
    open.scan(
        t,
        &Scan::Occupancy(target.board().occupied()),
        &mut Vec::new(),
    )?;
    open.advance(t + 1000, &mut Vec::new());
    let (scans_open, secs_open) = play_dense(&mut open, target.clone(), play, t + 1000)?;
    let (mut plain, t) = session_at(&start, &game.moves, from)?;
    let (scans_plain, secs_plain) = play_dense(&mut plain, target, play, t)?;
    let rate = |scans: u64, secs: f64| scans as f64 / secs.max(1e-9);
    println!(
        "scans at 1 kHz over {} plies: {:.2} M scans/s with {width} lines open, {:.2} M scans/s with none (ratio {:.2})",
        play.len(),
        rate(scans_open, secs_open) / 1e6,
        rate(scans_plain, secs_plain) / 1e6,
        rate(scans_open, secs_open) / rate(scans_plain, secs_plain)
    );
    Ok(())
}
