//! Real players' hands, end to end through the session as `touchmove
//! replay` drives it: the next mover grabbing before the clock press
//! (blitz and bullet hands, Article 1.1), pieces brushed without a
//! deliberate touch (4.3), moves made while the sensors were not read
//! (1–4 plies, a promotion among them), and players who play on after a
//! completed illegal move they fixed their own way (7.4 / 7.5).
//!
//! By default a sample runs; `TOUCHMOVE_FULL=1` runs every corpus game and
//! 1,000 random games per hand style, and prints the shares.
mod support;

use std::path::Path;

use shakmaty::{Chess, Move, Position};
use touchmove_core::events::EventKind;
use touchmove_core::game::Profile;
use touchmove_synth::faults::{self, Fault};
use touchmove_synth::{self as synth, Expected, HandStyle, Synthesized};

fn full() -> bool {
    std::env::var("TOUCHMOVE_FULL").is_ok_and(|v| v == "1")
}

/// The corpus games, every one in a full run, a sample otherwise.
fn corpus(step: usize) -> Vec<(String, Chess, Vec<Move>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let mut out = Vec::new();
    for name in [
        "197308bcf.pgn",
        "200807britchamp.pgn",
        "201507britchamp.pgn",
        "twic1599.pgn",
    ] {
        let games = touchmove::cli::read_pgn_file(&dir.join(name)).unwrap();
        for game in games.iter().step_by(if full() { 1 } else { step }) {
            let game = game.as_ref().unwrap();
            out.push((
                format!("{name} game {}", game.number),
                game.start.position().clone(),
                game.moves.clone(),
            ));
        }
    }
    out
}

fn random(n: u64) -> Vec<(String, Chess, Vec<Move>)> {
    (0..n)
        .map(|seed| {
            let (start, moves) = synth::random_game(seed, 160);
            (format!("random game {seed}"), start, moves)
        })
        .collect()
}

fn report(what: &str, failures: &[String], checked: usize) {
    if full() {
        println!("{what}: {} of {checked} exact", checked - failures.len());
        for f in failures {
            println!(
                "  failed: {}",
                f.lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(160)
                    .collect::<String>()
            );
        }
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "{what}: {} of {checked} failed:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
}

fn clean_under(style: &str) {
    clean_with(&HandStyle::by_name(style).unwrap(), 41, 40);
}

/// Every `step`th corpus game (all in a full run) and `random` random
/// games (1,000 in a full run), each read exactly with no alert.
fn clean_with(style: &HandStyle, step: usize, random_games: u64) {
    let mut games = corpus(step);
    games.extend(random(if full() { 1000 } else { random_games }));
    let mut failures = Vec::new();
    for (i, (name, start, moves)) in games.iter().enumerate() {
        if let Err(e) = support::check_clean(start, moves, style, i as u64 * 7 + 3) {
            failures.push(format!("{name}: {e}"));
        }
    }
    report(&style.name, &failures, games.len());
}

#[test]
fn blitz_hands_grabbing_before_the_press_are_read_exactly() {
    clean_under("blitz-hands");
}

#[test]
fn bullet_hands_reacting_in_100_ms_are_read_exactly() {
    clean_under("bullet");
}

#[test]
fn brushed_pieces_raise_no_touch_and_no_alert() {
    clean_under("nudges");
}

/// Bullet hands all at the fastest reaction the issue names (the next
/// mover's lift 100–120 ms after the release): random games that once
/// read a wrong move or raised a false alert. Game 53: Black takes the
/// rook just set down and lifts the bishop beside it 20 ms before White's
/// press (its contacts bouncing, no capture of White's). Game 85: White's
/// rook slides onto the square next to it 8 ms before Black's press (no
/// move of Black's: his hand is on the clock, 6.7). Game 868: the new
/// piece named while the pawn is swapped for it.
#[test]
fn the_fastest_bullet_reactions_are_no_move_of_the_pressing_hand() {
    let mut style = HandStyle::by_name("bullet").unwrap();
    style.reaction_ms = (100, 120);
    for seed in [53, 85, 868] {
        let (start, moves) = synth::random_game(seed, 160);
        if let Err(e) = support::check_clean(&start, &moves, &style, seed * 7 + 3) {
            panic!("random game {seed}: {e}");
        }
    }
}

/// Hands the styles above do not push, under bullet and blitz hands:
/// hesitations (a piece lifted and put back, 4.3a honoured) with pieces
/// rocking as they land (a slide's magnet may hold the square it leaves
/// while the piece rocks on the new one), and pieces rocking on most
/// placements. Each once read wrong moves.
#[test]
fn varied_hands_are_read_exactly() {
    type Push = fn(&mut HandStyle);
    let pushed: [(&str, Push); 2] = [
        ("hesitations 50 %, wobble 40 %", |s| {
            s.hesitate = 0.5;
            s.wobble = 0.4;
        }),
        ("wobble 70 %", |s| s.wobble = 0.7),
    ];
    for name in ["bullet", "blitz-hands"] {
        for (what, push) in pushed {
            let mut style = HandStyle::by_name(name).unwrap();
            push(&mut style);
            style.name = format!("{name}, {what}");
            clean_with(&style, 83, 20);
        }
    }
}

/// Interference on a board read every 10 ms: contacts bouncing on nine
/// placements in ten and glitches (a square read flipped for a scan) eight
/// times a minute, under every style. A glitch passes the debounce there
/// (a scan's state holds until the next), so the inference tells it from
/// hands. Each once read a wrong move, a false alert or stopped the record
/// (see the tests named after blips in inference_two_hands). A game whose
/// lines stay open at the end counts apart, but only when one of them is
/// the game's: a capture whose captured piece never read empty, made
/// between two scans, that no later move tells apart from another. The
/// full run reads every corpus game but the same 20 random ones: random
/// 160-ply games under this interference still fail in 11 of 5,000 (see
/// the README), which this test does not hide by counting them.
#[test]
fn interference_on_a_board_read_every_10_ms_is_read_exactly() {
    for name in ["bullet", "blitz-hands", "nudges", "random", "casual"] {
        let mut style = HandStyle::by_name(name).unwrap();
        style.bounce = 0.9;
        style.glitches_per_minute = 8.0;
        style.name = format!("{name}, glitches 8/min, bounce 90 %, 10 ms scans");
        let mut games = corpus(83);
        games.extend(random(20));
        let (mut failures, mut open) = (Vec::new(), 0);
        for (i, (game, start, moves)) in games.iter().enumerate() {
            let seed = i as u64 * 7 + 3;
            let mut s = synth::synthesize(start, moves, &style, seed);
            s.trace = synth::sampled::sampled(&s.trace, 10);
            let Err(e) = support::check_synthesized(start, moves, &s, &style, seed) else {
                continue;
            };
            if open_at_the_end_with_the_game(&s, start, moves) {
                open += 1;
            } else {
                failures.push(format!("{game}: {e}"));
            }
        }
        if full() {
            println!("{}: {open} open at the end", style.name);
        }
        report(&style.name, &failures, games.len());
    }
}

/// Whether the reading of `s` recorded a prefix of the game with no
/// alert, and left lines open at the end of which one is the rest of it.
fn open_at_the_end_with_the_game(s: &Synthesized, start: &Chess, moves: &[Move]) -> bool {
    let out = support::run(s, None);
    let played = support::played_uci(&out.session);
    let source = support::source_uci(start, moves);
    let rest = match source.get(played.len()..) {
        Some(rest) if source[..played.len()] == played[..] => rest.join(" "),
        _ => return false,
    };
    let last_lines = out.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Candidates { lines } => Some(lines),
        _ => None,
    });
    support::alerts(&out.events).is_empty() && last_lines.is_some_and(|lines| lines.contains(&rest))
}

/// No clock: a move is completed once the board settles, so the hand that
/// castles rook first (casual play) corrects a completed rook move.
#[test]
fn hands_without_a_clock_are_read_exactly() {
    for name in ["casual", "random"] {
        let mut style = HandStyle::by_name(name).unwrap().without_clock();
        style.name = format!("{name}, no clock");
        clean_with(&style, 41, 40);
    }
}

/// Casual play with fast hands, every casual habit kept. At blitz speed
/// a hand castling rook first sets the king down 60–100 ms after lifting
/// it and presses 50–100 ms later, before the king's square has settled:
/// the press completes the castling the king corrected the rook's move
/// into (in 1,000 random games the record had read the rook's move in
/// 102). With casual thinking times and the opponent's hand coming
/// 150–300 ms after the release (1.1), his lift releases the castling
/// before its king has settled (10 of 1,000 read the rook's move).
#[test]
fn casual_hands_at_blitz_speed_are_read_exactly() {
    let mut blitz = HandStyle::by_name("casual").unwrap();
    blitz.think_ms = (100, 300);
    blitz.air_ms = (60, 100);
    blitz.press_ms = (50, 100);
    blitz.grab = 0.5;
    blitz.reaction_ms = (100, 150);
    blitz.name = "casual at blitz speed".to_owned();
    clean_with(&blitz, 41, 40);
    let mut grabbing = HandStyle::by_name("casual").unwrap();
    grabbing.grab = 0.5;
    grabbing.reaction_ms = (150, 300);
    grabbing.name = "casual, the next mover grabbing".to_owned();
    clean_with(&grabbing, 41, 40);
}

/// Promotions named 50–300 ms after the new piece is set down, whatever
/// the other hands do meanwhile: the next mover may already hold his
/// piece, or the promoted one to take it (1.1), and the mover may already
/// have pressed (6.7). The record waits for the name (3.7e).
#[test]
fn promotions_named_after_the_grab_or_the_press_are_read_exactly() {
    for name in ["blitz-hands", "bullet"] {
        let mut style = HandStyle::by_name(name).unwrap();
        style.promote_input = synth::Mix::only(synth::PromoteInput::Late);
        style.name = format!("{name}, promotions named late");
        // Random games promote often; the corpus seldom.
        clean_with(&style, 201, 60);
    }
}

/// What became of a jump: the record equals the game, or the record stops
/// at a point where lines are still open and one of them is the game's.
#[derive(Debug, PartialEq, Eq)]
enum JumpOutcome {
    Exact,
    /// The missed plies recorded in another order (or a promoted piece
    /// taken before it moved recorded as another piece): the same position
    /// after them, every other ply equal. The board can never tell.
    Transposed,
    Open,
    /// The missed plies recorded as fewer plies reaching the same position
    /// (two steps of a piece as one; plies that came back to the position
    /// they left, which leave the board as it was): every other ply equal.
    Shortened,
    /// The jump was the game's last plies: nothing after it can tell
    /// whether the board shows them or a piece still in the hand (or
    /// other plies, with the other side to move), and the record stands,
    /// exact, where the jump began, its lines open.
    LastPlies,
}

fn judge_jump(
    s: &Synthesized,
    start: &Chess,
    moves: &[Move],
    profile: Profile,
    window: (usize, usize),
) -> Result<JumpOutcome, String> {
    let out = support::run(s, Some(profile));
    let played = support::played_uci(&out.session);
    let source = support::source_uci(start, moves);
    let alerts = support::alerts(&out.events);
    if !alerts.is_empty() {
        return Err(format!(
            "alerts {:?}",
            alerts.iter().map(|e| e.to_json()).collect::<Vec<_>>()
        ));
    }
    let (from, to) = window;
    let replay = |line: &[String]| {
        let mut p = start.clone();
        for uci in line {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .ok()
                .and_then(|u| u.to_move(&p).ok());
            match m {
                Some(m) => p.play_unchecked(m),
                None => return None,
            }
        }
        // The position (9.2): not the move counters.
        let fen = touchmove_core::game::fen_of(&p);
        Some(fen.split(' ').take(4).collect::<Vec<_>>().join(" "))
    };
    // The jump's plies recorded as a shorter line to the same position (a
    // queen's two steps as one step; four plies that came back to where
    // they began, which no board can see): every other ply equal.
    if let Some(fewer) = source.len().checked_sub(played.len()).filter(|&k| k > 0)
        && let Some(end) = to.checked_sub(fewer).filter(|&n| n >= from)
        && played[..from] == source[..from]
        && played[end..] == source[to..]
        && replay(&played[..end]) == replay(&source[..to])
    {
        return Ok(JumpOutcome::Shortened);
    }
    if played.len() == source.len()
        && played[..from] == source[..from]
        && played[to..] == source[to..]
    {
        // The same position once the difference is gone (at once for a
        // transposition; when the promoted piece is taken, for a promotion).
        let converge = (to..=played.len()).any(|n| replay(&played[..n]) == replay(&source[..n]));
        if played[from..to] != source[from..to] && converge {
            return Ok(JumpOutcome::Transposed);
        }
    }
    let prefix = played.len() <= source.len() && played[..] == source[..played.len()];
    if !prefix {
        return Err(format!("record {played:?} is not the game's {source:?}"));
    }
    if played.len() == source.len() || out.session.game().is_over() {
        return Ok(JumpOutcome::Exact);
    }
    let open = out.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Candidates { lines } => Some(lines.clone()),
        _ => None,
    });
    let Some(lines) = open.filter(|l| !l.is_empty()) else {
        if to >= source.len() && played.len() >= from {
            return Ok(JumpOutcome::LastPlies);
        }
        return Err(format!(
            "record stops after {} of {} plies with no line open",
            played.len(),
            source.len()
        ));
    };
    // The game's own continuation is among the open lines' positions.
    let mut at = start.clone();
    for m in &moves[..played.len()] {
        at.play_unchecked(*m);
    }
    let reaches = |line: &str| {
        let mut p = at.clone();
        for uci in line.split_whitespace() {
            let Ok(m) = uci
                .parse::<shakmaty::uci::UciMove>()
                .map_err(|_| ())
                .and_then(|u| u.to_move(&p).map_err(|_| ()))
            else {
                return None;
            };
            p.play_unchecked(m);
        }
        Some(touchmove_core::game::fen_of(&p))
    };
    let truth_prefixes: Vec<String> = (played.len()..=source.len())
        .map(|n| {
            let mut p = at.clone();
            for m in &moves[played.len()..n] {
                p.play_unchecked(*m);
            }
            touchmove_core::game::fen_of(&p)
        })
        .collect();
    if lines
        .iter()
        .filter_map(|l| reaches(l))
        .any(|f| truth_prefixes.contains(&f))
    {
        // Over the game's last plies nothing after the jump can tell: a
        // move read in one scan may have been more plies, with the other
        // side to move.
        if to >= source.len() && played.len() >= from {
            return Ok(JumpOutcome::LastPlies);
        }
        Ok(JumpOutcome::Open)
    } else {
        Err(format!("open lines {lines:?} miss the game"))
    }
}

fn jumps_under(profile: Profile) {
    let style = if profile == Profile::Casual {
        HandStyle::casual()
    } else {
        HandStyle::random()
    };
    let games = corpus(23);
    let (mut exact, mut transposed, mut shortened, mut open, mut last, mut checked) =
        (0, 0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for (i, (name, start, moves)) in games.iter().enumerate() {
        if moves.len() < 6 {
            continue;
        }
        let seed = i as u64 * 13 + 1;
        let Ok((placed, s)) = faults::inject_jumps(start, moves, &style, seed, 1) else {
            continue;
        };
        if placed.is_empty() {
            continue;
        }
        checked += 1;
        let window = match placed[0] {
            (at, Fault::MissedPlies(k)) => (at, at + k),
            (at, _) => (at, at),
        };
        match judge_jump(&s, start, moves, profile, window) {
            Ok(JumpOutcome::Exact) => exact += 1,
            Ok(JumpOutcome::Transposed) => transposed += 1,
            Ok(JumpOutcome::Open) => open += 1,
            Ok(JumpOutcome::LastPlies) => last += 1,
            Ok(JumpOutcome::Shortened) => shortened += 1,
            Err(e) => failures.push(format!("{name} seed {seed} {placed:?}: {e}")),
        }
    }
    if full() {
        println!(
            "jumps ({}): {checked} games, {exact} exact, {transposed} transposed, \
             {shortened} shortened, {open} still open at the end, \
             {last} over the game's last plies with no move after them",
            profile.name()
        );
    }
    report(&format!("jumps ({})", profile.name()), &failures, checked);
}

#[test]
fn jumps_of_one_to_four_plies_are_recorded_in_fide_play() {
    jumps_under(Profile::FideStandard);
}

#[test]
fn jumps_of_one_to_four_plies_are_recorded_in_casual_play() {
    jumps_under(Profile::Casual);
}

/// Game `number` of a corpus file, with one jump injected (`seed`).
fn corpus_jump(
    file: &str,
    number: usize,
    seed: u64,
    style: &HandStyle,
) -> (Chess, Vec<Move>, Synthesized, (usize, usize)) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::cli::read_pgn_file(&dir.join(file)).unwrap();
    let game = games[number - 1].as_ref().unwrap();
    let start = game.start.position().clone();
    let (placed, s) = faults::inject_jumps(&start, &game.moves, style, seed, 1).unwrap();
    let window = match placed[0] {
        (at, Fault::MissedPlies(k)) => (at, at + k),
        (at, _) => (at, at),
    };
    (start, game.moves.clone(), s, window)
}

#[test]
fn a_jump_two_plies_longer_is_told_by_a_later_move() {
    // `...Qf4 Re1 Qxe3+ Rxe3` unseen leaves the board of `...Qxd3 Rxd3`
    // (rook on d3, queen on e3 for rook on e3, bishop on d3). Four plies
    // on, `Bc4+` from d3 tells them apart: it was once read as an illegal
    // rook move, the two plies recorded.
    twic_jump_is_read(765, 22816, (43, 47));
}

#[test]
fn a_jump_read_while_the_next_movers_hand_took_its_last_piece_is_read() {
    // Bullet hands, a board read every 10 ms, one jump each. In the first
    // game `46. cxd6 b5 47. g5` unseen, Black's pawn already lifted from
    // b5 when the board was read again (it lands on b4): a hand at work
    // on a square a pawn reaches was looked for only where a piece of the
    // jump could capture, so `...b6` (c5's capture square) was recorded.
    // In the second `18...e5` read in one reading, then White's hand took
    // the pawn off e5 for `Bxe5` before the board settled: that reading
    // of a whole move was not kept as a jump's first reading, and five
    // plies of tempo moves (`...e6 Bxe4 e5 Bc6 e4`) were recorded.
    for (file, number, index, window) in [
        ("197308bcf.pgn", 85, 84, (90, 93)),
        ("twic1599.pgn", 193, 1183, (35, 36)),
    ] {
        let (start, moves, mut s, placed) =
            corpus_jump(file, number, index * 7 + 3, &HandStyle::bullet());
        assert_eq!(placed, window);
        s.trace = synth::sampled::sampled(&s.trace, 10);
        let outcome = judge_jump(&s, &start, &moves, Profile::FideBlitz, window);
        assert!(
            matches!(outcome, Ok(JumpOutcome::Exact | JumpOutcome::Transposed)),
            "{file} game {number}: {outcome:?}"
        );
    }
}

/// The jump the synthesizer makes in `twic1599` game `number` with `seed`
/// (over the plies `window`) is read exactly, or as a transposition, in
/// both profiles.
fn twic_jump_is_read(number: usize, seed: u64, window: (usize, usize)) {
    for (profile, style) in [
        (Profile::FideStandard, HandStyle::random()),
        (Profile::Casual, HandStyle::casual()),
    ] {
        let (start, moves, s, placed) = corpus_jump("twic1599.pgn", number, seed, &style);
        assert_eq!(placed, window);
        let outcome = judge_jump(&s, &start, &moves, profile, window);
        assert!(
            matches!(outcome, Ok(JumpOutcome::Exact | JumpOutcome::Transposed)),
            "{}: {outcome:?}",
            profile.name()
        );
    }
}

#[test]
fn a_jump_that_leaves_a_step_to_the_neighbouring_square_is_a_jump() {
    // `Bb2 Ke4 Bf6 Kf5` unseen leaves the board of `Bf6` from g7, one
    // square on, read in one reading. A slide's switches, one opening as
    // the next closes, fall in one reading of a board read every
    // millisecond only by chance: this is a jump, and the plies with the
    // other side to move are a line too, which Black's next move tells.
    // It was read as `Bf6`, then Black's next move as out of turn.
    twic_jump_is_read(531, 19774, (103, 107));
}

#[test]
fn lines_two_plies_longer_give_way_to_the_fewer_at_the_end_of_the_trace() {
    // `...Rfd8 Rg5+ Kf8` unseen, three plies before the game's end: lines
    // of five plies reach the same board and nothing after tells them
    // apart. At the end of the trace the fewer plies are recorded, as
    // they were before the longer lines were kept.
    let (start, moves, s, window) = corpus_jump("197308bcf.pgn", 12, 144, &HandStyle::casual());
    let out = support::run(&s, Some(Profile::Casual));
    let last_scan = s.trace.records.last().unwrap().t;
    let open_to_the_end = out.events.iter().any(|e| {
        matches!(&e.kind, EventKind::Candidates { lines }
            if lines.iter().any(|l| l.split(' ').count() > window.1 - window.0 + 2))
    }) && out.events.iter().rev().any(|e| {
        e.t_ms >= last_scan
            && matches!(&e.kind, EventKind::Candidates { lines } if lines.is_empty())
    });
    assert!(open_to_the_end, "the longer lines were not open to the end");
    assert_eq!(
        judge_jump(&s, &start, &moves, Profile::Casual, window),
        Ok(JumpOutcome::Exact)
    );
}

#[test]
fn lines_two_plies_longer_give_way_to_the_fewer_when_a_player_resigns() {
    // The same jump; White resigns after the last record instead of the
    // trace ending: the fewer plies are recorded before the game ends.
    let (start, moves, s, window) = corpus_jump("197308bcf.pgn", 12, 144, &HandStyle::casual());
    let mut session = touchmove_core::replay::session_for(
        &s.trace,
        Some(Profile::Casual),
        None,
        None,
        None,
        None,
    )
    .unwrap();
    let mut events = Vec::new();
    for record in &s.trace.records {
        session.apply(record, &mut events).unwrap();
    }
    let mut t = s.trace.records.last().unwrap().t;
    while let Some(deadline) = session.next_board_deadline() {
        session.advance(deadline, &mut events);
        t = deadline;
    }
    let before = support::played_uci(&session).len();
    assert!(before < window.1, "the jump was recorded before the end");
    assert!(session.resign(t + 1000, shakmaty::Color::White, &mut events));
    let played = support::played_uci(&session);
    let source = support::source_uci(&start, &moves);
    assert_eq!(played[..], source[..played.len()]);
    assert!(played.len() > window.1, "{played:?}");
    let over = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::GameOver { .. }))
        .unwrap();
    let last_move = events
        .iter()
        .rposition(|e| matches!(e.kind, EventKind::Move { .. }))
        .unwrap();
    assert!(last_move < over, "a move recorded after the game ended");
}

#[test]
fn a_lines_next_ply_is_read_from_lifts_made_since_its_last_ply() {
    // Jumps once read wrongly: with the lines open for several plies, the
    // lifts of their earlier plies (a queen's from b3) were taken for the
    // next move's hand (a bishop "set down on b3 and lifted again").
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::cli::read_pgn_file(&dir.join("twic1599.pgn")).unwrap();
    for (number, seed) in [(314, 16953), (728, 22335)] {
        let game = games[number - 1].as_ref().unwrap();
        let start = game.start.position().clone();
        let (placed, s) =
            faults::inject_jumps(&start, &game.moves, &HandStyle::random(), seed, 1).unwrap();
        let window = match placed[0] {
            (at, Fault::MissedPlies(k)) => (at, at + k),
            (at, _) => (at, at),
        };
        if let Err(e) = judge_jump(&s, &start, &game.moves, Profile::FideStandard, window) {
            panic!("twic1599 game {number} seed {seed}: {e}");
        }
    }
}

#[test]
fn a_promotion_inside_a_jump_is_settled_by_how_the_piece_moves() {
    let (mut checked, mut failures) = (0, Vec::new());
    for seed in 0..if full() { 400 } else { 80 } {
        let (start, moves) = synth::random_game(seed, 160);
        let Some(&p) = faults::promotion_indices(&moves)
            .iter()
            .find(|&&p| p >= 1 && p + 4 < moves.len())
        else {
            continue;
        };
        // The jump covers the promotion and the reply.
        let at = p;
        let Ok(s) = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            seed,
            &[(at, Fault::MissedPlies(2))],
        ) else {
            continue;
        };
        checked += 1;
        if let Err(e) = judge_jump(&s, &start, &moves, Profile::FideStandard, (at, at + 2)) {
            failures.push(format!("random game {seed} jump at {at}: {e}"));
        }
    }
    report("promotions inside jumps", &failures, checked);
}

#[test]
fn a_piece_named_while_lines_are_open_is_the_promotion_the_hands_make() {
    // The jump (`...c1=Q Rxc1`) leaves lines two plies longer open for
    // several moves; `promote n` comes while they are, just before the
    // pawn is set down on b8 (`axb8=N`, taken at once by `...Qxb8`). The
    // knight was once lost when the missed plies were recorded first.
    let (seed, at) = (27, 37);
    let (start, moves) = synth::random_game(seed, 160);
    let s = faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        seed,
        &[(at, Fault::MissedPlies(2))],
    )
    .unwrap();
    let out = support::run(&s, Some(Profile::FideStandard));
    let played = support::played_uci(&out.session);
    let source = support::source_uci(&start, &moves);
    let knight = source.iter().position(|m| m == "a7b8n").unwrap();
    assert_eq!(played.get(knight), Some(&source[knight]));
    assert!(judge_jump(&s, &start, &moves, Profile::FideStandard, (at, at + 2)).is_ok());
}

#[test]
fn players_who_fix_a_completed_illegal_move_their_own_way_are_recorded() {
    let (mut checked, mut failures) = (0, Vec::new());
    for seed in 0..if full() { 300 } else { 40 } {
        let (start, moves) = synth::random_game(seed, 100);
        if moves.len() < 12 {
            continue;
        }
        let at = 3 + (seed as usize * 5) % (moves.len() - 6);
        let Ok(s) = faults::inject(
            &start,
            &moves,
            &HandStyle::random(),
            seed,
            &[(at, Fault::IllegalFixedOwnWay)],
        ) else {
            continue;
        };
        checked += 1;
        let out = support::run(&s, None);
        let played = support::played_uci(&out.session);
        let source = support::source_uci(&start, &moves);
        let alerts: Vec<serde_json::Value> = support::alerts(&out.events)
            .iter()
            .map(|e| serde_json::from_str(&e.to_json()).unwrap())
            .collect();
        // The completed illegal move stays counted and reported (the
        // arbiter rules); the moves after it are recorded.
        let illegal = s
            .expected
            .iter()
            .filter(|e| matches!(e, Expected::IllegalMove { .. }))
            .count();
        let reported = alerts
            .iter()
            .filter(|a| a["type"] == "illegal_move" && a["completed"] == true)
            .count();
        // The warning when the piece was released on the wrong square
        // (the player may still correct it) precedes the completion.
        let alerts: Vec<serde_json::Value> = alerts
            .into_iter()
            .filter(|a| !(a["type"] == "illegal_move" && a["completed"] == false))
            .collect();
        let complete = played.len() == source.len() || out.session.game().is_over();
        let prefix = played.len() <= source.len() && played[..] == source[..played.len()];
        if !(prefix && complete && reported == illegal && alerts.len() == illegal) {
            failures.push(format!(
                "random game {seed} at {at}: played {} of {}, alerts {alerts:?}",
                played.len(),
                source.len()
            ));
        }
    }
    report("illegal moves fixed their own way", &failures, checked);
}

/// The new hands end to end through the command line: `touchmove synth`
/// writes traces and the moves they must give, `touchmove replay` reads
/// them back.
#[test]
fn synthesized_fast_hands_replay_through_the_command_line() {
    let dir = std::env::temp_dir().join(format!("touchmove-hands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_touchmove");
    for style in ["blitz-hands", "bullet", "nudges"] {
        let out = std::process::Command::new(bin)
            .args(["synth", "--random", "3", "--plies", "80", "--seed", "11"])
            .args(["--style", style, "--expected", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for seed in 11..14 {
            let name = format!("random-{seed}");
            let trace = dir.join(format!("{name}.trace"));
            let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.jsonl")))
                .unwrap_or_else(|e| panic!("{name}.expected.jsonl: {e}"));
            let replay = std::process::Command::new(bin)
                .args(["replay", "--events"])
                .arg(&trace)
                .output()
                .unwrap();
            assert!(
                replay.status.success(),
                "{}",
                String::from_utf8_lossy(&replay.stderr)
            );
            let moves = |text: &str, field: &str| -> Vec<String> {
                text.lines()
                    .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                    .filter(|v| v["type"] == field)
                    .map(|v| v["uci"].as_str().unwrap_or_default().to_owned())
                    .collect()
            };
            let got = String::from_utf8_lossy(&replay.stdout).to_string();
            assert_eq!(
                moves(&got, "move"),
                moves(&expected, "move"),
                "{style} {name}"
            );
            let alerts: Vec<&str> = got
                .lines()
                .filter(|l| {
                    ["illegal_move", "touch_move", "displaced"]
                        .iter()
                        .any(|k| l.contains(&format!("\"type\":\"{k}\"")))
                })
                .collect();
            assert!(alerts.is_empty(), "{style} {name}: {alerts:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fast_hands_read_at_1_to_20_ms_scans_are_read_exactly() {
    // The hands' traces as a board scanning every 10 ms records them: a
    // slide onto the neighbouring square often opens one switch and closes
    // the next in one scan. That is one hand, not a jump: the next mover's
    // lift still releases the move (1.1, 4.6). Games the reading once got
    // wrong or alerted on this way.
    // Later: captures made between two scans (the captured square never
    // reads empty) at the mover's press with the next mover's hand at work
    // (blitz-hands 93 and 45, bullet 64), a slide whose first step reads
    // in one scan (nudges 104), and the same at 5 ms (blitz-hands 47).
    // Then: a capture missed at the press opening lines, answered by the
    // next mover and grabbed by the other before a settle (bullet 55 and
    // 134: the lines read a move made under the next mover's lifts); a
    // capture between two scans at the press with the next mover's piece
    // passing over a square (blitz-hands 17). At 20 ms: brushes read up to
    // a scan longer than they were (nudges 21 and 144), a capture in the
    // hand whose first step read in one scan (nudges 138: the hand at work
    // is the first line kept), and a capture quicker than a scan next to a
    // square brushed before the capturing piece was lifted (nudges 133);
    // a capture quicker than a scan whose capturing piece the next mover
    // took at once (bullet 103); and at the mover's press the next
    // mover's pawn passing over a square on its way (bullet 56: a reply
    // set down a moment ago may be sliding on). And a pawn swapped for its
    // new piece (3.7e) before the opponent's grab: the swap is no lift of
    // his (bullet 107 to the millisecond, bullet 251 at 10 ms). With
    // lines open, a capture quicker than a scan at the press (bullet 1589:
    // Kxf8 under the line with Qxf8, the next mover's pawn in the air):
    // a line whose last ply is the presser's, pressed for already, is no
    // move of this press that outweighs the unseen capture. A pawn
    // brushed for one scan just before the queen far off was lifted
    // (bullet 1750: no Qxa4; only a piece next door may reach the
    // captured square before its own opens). At the mover's press, the
    // next mover's rook sliding onto its first square 8 ms before it
    // (bullet 873: no Qb5 for the queen that took on d4 quicker than a
    // scan; the press's hand cannot have set a piece down then).
    for (style, seed, period) in [
        ("blitz-hands", 1, 10),
        ("bullet", 7, 10),
        ("bullet", 8, 10),
        ("bullet", 14, 10),
        ("bullet", 19, 10),
        ("blitz-hands", 93, 10),
        ("blitz-hands", 45, 10),
        ("bullet", 64, 10),
        ("nudges", 104, 10),
        ("blitz-hands", 47, 5),
        ("bullet", 55, 10),
        ("bullet", 134, 10),
        ("blitz-hands", 17, 10),
        ("nudges", 21, 20),
        ("nudges", 144, 20),
        ("nudges", 138, 20),
        ("nudges", 133, 20),
        ("bullet", 103, 20),
        ("bullet", 56, 20),
        ("bullet", 107, 0),
        ("bullet", 251, 10),
        ("bullet", 1589, 10),
        ("bullet", 1750, 10),
        ("bullet", 873, 10),
    ] {
        random_game_is_read(style, seed, period);
    }
}

/// Random game `seed` made by the hands of the style called `style`
/// (seeded as `hand_probe` seeds it), read at a scan period of `period`
/// ms (0: the trace as written, to the millisecond): the game's moves,
/// with no alert.
fn random_game_is_read(style: &str, seed: u64, period: u64) {
    random_game_with_hands_is_read(&HandStyle::by_name(style).unwrap(), seed, period);
}

fn random_game_with_hands_is_read(style: &HandStyle, seed: u64, period: u64) {
    random_game_with_hands_seeded_is_read(style, seed, seed * 7 + 3, period);
}

/// Random game `game` with `style`'s hands seeded by `hands`, read every
/// `period` ms (0: as written).
fn random_game_with_hands_seeded_is_read(style: &HandStyle, game: u64, hands: u64, period: u64) {
    let (start, moves) = synth::random_game(game, 160);
    let mut s = synth::synthesize(&start, &moves, style, hands);
    if period > 0 {
        s.trace = synth::sampled::sampled(&s.trace, period);
    }
    if let Err(e) = support::check_synthesized(&start, &moves, &s, style, hands) {
        panic!("{} random game {game} read at {period} ms: {e}", style.name);
    }
}

#[test]
fn a_piece_slid_over_squares_of_a_slow_board_is_no_move_made_there() {
    // A board read every 25 ms: a rook slid from h3 over g3 (and on to
    // d3) reads standing on g3 for up to a period longer than it did, and
    // was read as `Rg3` made (4.6) and then moved on, a breach of 4.7
    // (random hands, games 4 and 14; a tenth of the games at 25 ms).
    for seed in [4, 14] {
        random_game_is_read("random", seed, 25);
    }
}

#[test]
fn games_on_boards_read_every_50_and_100_ms_are_read() {
    // Slow boards (a Hall board read through an ADC at 10 Hz): readings
    // every 50 ms were taken for readings to the millisecond (no scan
    // period allowed for), and slides read as moves made then moved on
    // (4.7) in four games of five; at 100 ms in nearly all.
    for (name, seed, period) in [
        ("random", 0, 50),
        ("random", 1, 50),
        ("random", 0, 100),
        ("casual", 2, 100),
    ] {
        random_game_is_read(name, seed, period);
    }
}

#[test]
fn a_capture_quicker_than_a_scan_answered_by_a_slide_next_door_is_read_without_a_clock() {
    // No clock, fast hands, a board read every 10 ms: `...Bxc5` with the
    // captured pawn pushed off between two scans, `Qxa5` seen, then
    // `...h5` slid next door, h5 closing 10 ms before h6 opened. The
    // three plies were not taken for the hands' (the slide's square
    // "set down before its piece was lifted"): two warnings of an illegal
    // move f8-h5 (7.5) for a game played cleanly.
    random_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap().without_clock(),
        183,
        10,
    );
}

#[test]
fn a_piece_lifted_as_lines_open_that_no_missed_ply_moved_stays_lifted() {
    // No clock: `...dxe5` with the captured pawn pushed off between two
    // scans, read as lines ("", `dxe5`) when the board had stood 2.5 s
    // with d6 empty; White's king was lifted to castle 8 ms before. The
    // lines closed as the king landed on g1, and the king's lift was
    // dropped with the hands before the lines opened: the rook set down
    // on f1 read as no move, and `...exd4` next as an illegal move.
    random_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap().without_clock(),
        187,
        10,
    );
}

#[test]
fn a_reply_under_way_after_a_capture_quicker_than_a_scan_is_no_illegal_move() {
    // No clock: `Kxd2` with the captured queen pushed off between two
    // scans, then `...O-O-O`, the king set down on c8 with the rook still
    // in the hand: read as White's king gone to c8, a warning of an
    // illegal move (7.5) in a game played cleanly. The rook on d8 then
    // told the two plies.
    random_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap().without_clock(),
        226,
        10,
    );
}

#[test]
fn a_capture_promotion_under_way_after_a_capture_quicker_than_a_scan_is_no_displaced_board() {
    // No clock: `...Qxc1` slid in with the bishop pushed off between two
    // scans, then `cxb8=Q`, the knight and the pawn lifted while the
    // queen was fetched (2.5 s): the board was reported displaced.
    random_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap().without_clock(),
        242,
        10,
    );
}

/// Game `number` of a corpus file under `style` (synthesized with `seed`),
/// read every `period` ms, is read exactly with no alert.
fn corpus_game_with_hands_is_read(
    style: &HandStyle,
    file: &str,
    number: usize,
    seed: u64,
    period: u64,
) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::cli::read_pgn_file(&dir.join(file)).unwrap();
    let game = games[number - 1].as_ref().unwrap();
    let start = game.start.position().clone();
    let mut s = synth::synthesize(&start, &game.moves, style, seed);
    if period > 0 {
        s.trace = synth::sampled::sampled(&s.trace, period);
    }
    if let Err(e) = support::check_synthesized(&start, &game.moves, &s, style, seed) {
        panic!(
            "{} {file} game {number} read at {period} ms: {e}",
            style.name
        );
    }
}

#[test]
fn a_swap_on_a_square_while_a_piece_is_in_the_air_is_made_only_once_it_stands() {
    // A board read every 10 ms. Nudged pieces: Black's queen lifted from
    // b6, White's pawn on b2 brushed (off its square for one scan), the
    // queen set down on d6 780 ms later: `...Qxb2` (b2 swapped as a
    // push-off capture swaps it) was recorded 150 ms after the brush, a
    // wrong move. Bullet hands: White's bishop lifted from g5, one scan
    // of interference on f6, the bishop set back and moved to h4 two
    // seconds later: `Bxf6` was recorded. A capture read from a swap alone
    // waits a second, the press or the next mover's touch; a swap whose
    // capturing piece is set back on its square took nothing.
    for (style, file, number, index) in [
        ("nudges", "twic1599.pgn", 396, 1386),
        ("bullet", "197308bcf.pgn", 8, 7),
    ] {
        corpus_game_with_hands_is_read(
            &HandStyle::by_name(style).unwrap(),
            file,
            number,
            index * 7 + 3,
            10,
        );
    }
    // The same with nudged pieces in a random game.
    let style = HandStyle::by_name("nudges").unwrap();
    let (start, moves) = synth::random_game(1030, 160);
    let mut s = synth::synthesize(&start, &moves, &style, 1030 * 7 + 3);
    s.trace = synth::sampled::sampled(&s.trace, 10);
    if let Err(e) = support::check_synthesized(&start, &moves, &s, &style, 1030 * 7 + 3) {
        panic!("nudges random game 1030 read at 10 ms: {e}");
    }
}

#[test]
fn a_capture_whose_captured_piece_the_next_mover_took_off_first_waits_for_the_next_moves() {
    // Blitz hands, a board read every 10 ms: `Rxe7` slid from b7, the
    // black rook pushed off within a scan, then Black takes the white
    // rook off e7 before White's press and only then lifts his own rook
    // on e8 to recapture. At the press `Rxb4` (b4 never read empty, e7
    // Black's own rook lifted) fits as well: it was recorded, a wrong
    // move; the two wait as lines until ...Rxe7 tells.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap(),
        "twic1599.pgn",
        265,
        1255 * 7 + 3,
        10,
    );
}

#[test]
fn a_piece_set_down_while_the_capturing_piece_stood_back_on_its_square_captured_nothing() {
    // Nudged pieces, a board read every 10 ms: Black's pawn on f6 brushed
    // (off its square for one scan) and White's pawn on g5 next to it
    // brushed too (90 ms); two seconds later Black plays `...f5`, the
    // pawn held a while. With f6 empty the board showed `...fxg5`, g5
    // "taken off and set down" after f6's first lift: it was recorded, a
    // wrong move. The piece on g5 was set down while the pawn stood on f6
    // again: no capture by it.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("nudges").unwrap(),
        "201507britchamp.pgn",
        264,
        850 * 7 + 3,
        10,
    );
}

#[test]
fn a_move_set_down_after_its_movers_press_drops_no_line_that_press_completed() {
    // Nudged pieces, a board read every 10 ms: `...Nxd3` quicker than a
    // scan opens lines (`...Nxa2` fits too). `Qxd3` is seen made under
    // one line and pressed; Black lifts his queen on e6, hesitates and
    // sets it back. Under the other line that reads as `Qxe6` (c4 lifted,
    // e6 worked after) — a move set down after White's press — and the
    // line where the press completed `Qxd3` was dropped as only showing
    // the same board: `...Nxa2` was recorded, a wrong move.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("nudges").unwrap(),
        "201507britchamp.pgn",
        387,
        973 * 7 + 3,
        10,
    );
}

#[test]
fn plies_read_afresh_from_the_record_give_way_to_lines_reaching_the_same_position() {
    // Nudged pieces on a board read every 50 ms: lines open on `Qxc8` or
    // `Qxa5` (captures quicker than a scan), then `...exf4 Rxc3 ...fxe3`
    // are seen under both. White's rook lifted and held: once every line
    // had waited, plies read afresh from the record with captures quicker
    // than a scan (`Rxc3 exf4 Qxc8 fxe3 Rxe3`) stood beside the lines'
    // own (`Qxc8 exf4 Rxc3 fxe3 Rxe3`), the same position, and were
    // recorded in their order, a wrong move.
    random_game_with_hands_is_read(&HandStyle::by_name("nudges").unwrap(), 68, 50);
}

#[test]
fn a_press_with_the_capture_taken_off_and_the_recapturing_piece_in_hand_accuses_no_one() {
    // Bullet hands, a board read every 10 ms: `Rxg8` set down, Black's
    // king lifted from h7 before it landed and the rook taken off g8
    // 30 ms after, then White's press. No reading of two hands fits that
    // quick a grab, and the press completed an illegal move (7.5), a
    // false accusation: a capture in the hand (or made and taken off)
    // stands beside it while the piece that takes back is in the air too.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "twic1599.pgn",
        361,
        1351 * 7 + 3,
        10,
    );
}

#[test]
fn a_reply_set_down_on_the_square_of_a_move_read_under_lines_stays_the_next_movers() {
    // Bullet hands, a board read every 10 ms: `...Qxf2+` quicker than a
    // scan opens lines, `Qxf2` is seen made, and Black's rook takes on f2
    // before White presses. The lines resolved at that press took the
    // rook's landing on f2 for `Qxf2`'s own and dropped what Black's hand
    // did before it (the rook lifted from c2): his press after White's
    // king took the rook was a completed illegal move, a false alert.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "twic1599.pgn",
        462,
        1452 * 7 + 3,
        10,
    );
}

#[test]
fn a_piece_taken_back_a_hundred_ms_after_it_landed_on_a_slow_board_made_its_move() {
    // Bullet hands, a board read every 25 ms. `...Bxc3`: the bishop stood
    // 100 ms on c3 before White's hand took it to recapture `bxc3`, short
    // of the stand a slide's square needs at that period: the press read
    // `...Bxa3`, made quicker than a scan, and White's recapture an
    // illegal move (7.5). `...Nb4`, the knight taken by Bd2 after 100 ms:
    // read `...Nxe5` made unseen, a wrong move with no alert at all.
    for (file, number, index) in [
        ("197308bcf.pgn", 159, 158),
        ("201507britchamp.pgn", 56, 642),
    ] {
        corpus_game_with_hands_is_read(
            &HandStyle::by_name("bullet").unwrap(),
            file,
            number,
            index * 7 + 3,
            25,
        );
    }
}

#[test]
fn a_piece_sliding_at_the_opponents_press_has_made_no_move_yet() {
    // Bullet hands, a board read every 25 ms: `...exf4` quicker than a
    // scan, then White's rook slid from f1 over f2 and f3 to take on f4.
    // Black pressed 25 ms after f2 closed as f1 opened: the press read
    // the board as two plies missed, `...exf4 Rf2`, recorded at once, and
    // the rook's capture next as a displaced board. The press reads
    // `...exf4`, the rook White's hand at work.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "twic1599.pgn",
        960,
        1950 * 7 + 3,
        25,
    );
    // Read every 20 ms: `Bxg5` quicker than a scan, Black's rook sliding
    // from a8 at White's press. Dropping each line that ends with the
    // slide left `Bf8` shared by the rest, recorded: the sliding line
    // stays beside the others; only where every line ends sliding are
    // the plies before it read, with the hand at work.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "197308bcf.pgn",
        130,
        129 * 7 + 3,
        20,
    );
    // Blitz hands read every 5 ms: `axb5` swapped, Black's king slid from
    // g8 to f8 in the reading before White's press. With no reading of
    // the board at all, the press raised a false `displaced`: `axb5` is
    // read, Black's king his next move's.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("blitz-hands").unwrap(),
        "200807britchamp.pgn",
        140,
        350 * 7 + 3,
        5,
    );
}

#[test]
fn a_rook_sliding_on_after_its_king_landed_is_castling_under_way() {
    // Bullet hands reacting within 100–130 ms, a board read every 10 ms:
    // `...O-O-O`, the king slid from e8 to c8, then the rook from a8,
    // its first step onto b8 read in the scan a8 opened. The step was
    // read as a jump, the board as plies the sensors missed: `...Kd8`
    // and `...Rc8` recorded for the castling, four plies later (both
    // leave the same occupancy).
    corpus_game_with_hands_is_read(
        &bullet_reacting_in(100, 130),
        "twic1599.pgn",
        956,
        1946 * 7 + 3,
        10,
    );
}

#[test]
fn a_landing_whose_contacts_bounced_over_a_reading_stood_from_its_first_contact() {
    // Bullet hands reacting in 100 ms, a board read every 10 ms:
    // `...Ne4`, the knight's contacts bouncing over three readings
    // (`+e4 -e4 +e4`), White's hand taking it 100 ms after its first
    // contact and his bishop lifted after Black's press. The stand was
    // measured from the last bounce (80 ms, short of a release): the
    // press read `...Nxg4`, made quicker than a scan, a wrong move.
    corpus_game_with_hands_is_read(
        &bullet_reacting_in(100, 100),
        "201507britchamp.pgn",
        62,
        648 * 7 + 3,
        10,
    );
}

#[test]
fn a_capture_begun_in_one_reading_after_a_capture_quicker_than_a_scan_is_one_hand() {
    // Bullet hands, a board read every 25 ms: `...cxd4` swapped between
    // two readings, then White's knight and the pawn on d4 lifted in one
    // reading for `Nxd4`. The two lifts were read as the sensors unread,
    // and a line of five plies missed (`...cxd4 Nh4 d3 Nf5 dxc2 Nd4`)
    // recorded when the knight landed on d4.
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "twic1599.pgn",
        149,
        1139 * 7 + 3,
        25,
    );
}

#[test]
fn a_push_off_quicker_than_a_scan_with_the_taker_in_the_air_is_taken_back_there() {
    // Bullet hands reacting in exactly 100 ms, a board read every 10 ms:
    // `Qxe7+` pushed Black's queen off between two readings (its square
    // never read empty), Black's king already lifted from f7 to take
    // back; the king set down on e7 and lifted again as White pressed.
    // The press read the queen's capture as made unseen elsewhere
    // (`Qxe6+ Kxe6`: the same squares), a wrong move; and, in the second
    // game, `Nxg6+` read as `Nd5` with the pawn's `hxg6` an illegal move
    // completed.
    for (number, index) in [(314, 1304), (111, 1101)] {
        corpus_game_with_hands_is_read(
            &bullet_reacting_in(100, 100),
            "twic1599.pgn",
            number,
            index * 7 + 3,
            10,
        );
    }
}

#[test]
fn a_reply_read_with_the_move_at_its_press_is_completed_by_its_own_press() {
    // Blitz hands that always grab, reacting 100-350 ms after the release,
    // a board read every 10 ms: `Rxe6` pushed the pawn off between two
    // readings, Black's knight lifted and set down on g6 (`...Ng6`) before
    // White pressed; that press read both plies. White's rook then lifted
    // from e6 and Black's rook taken off e8 (`Rxe8+` at work) before
    // Black's press, which was read as telling of a missed White reply
    // and a Black move after it: `Rxg6 Re6` recorded, a wrong move.
    corpus_game_with_hands_is_read(
        &blitz_grabbing_in(100, 350),
        "200807britchamp.pgn",
        184,
        394 * 7 + 3,
        10,
    );
}

#[test]
fn a_press_as_the_next_movers_slide_reaches_the_square_next_door_waits_for_it() {
    // Blitz hands that always grab, reacting 100-150 ms after the release,
    // a board read every 10 ms: `exf5` pushed the pawn off between two
    // readings, Black's hand took White's pawn off f5 at once, and his
    // bishop was sliding from c8 (d7 read full, c8 not yet empty) when
    // White pressed. The press read e4 and f5 empty and a piece on d7: a
    // displaced board, a false alert (the bishop landed on f5,
    // `...Bxf5`). Read a moment later, as the reading before the press
    // without that step, it is the capture made and taken back at work.
    corpus_game_with_hands_is_read(
        &blitz_grabbing_in(100, 150),
        "200807britchamp.pgn",
        121,
        331 * 7 + 3,
        10,
    );
}

#[test]
fn a_slides_first_step_read_with_its_square_left_is_no_jump_on_a_board_read_every_10_ms() {
    // Blitz hands that always grab, reacting 100-150 ms after the release,
    // a board read every 10 ms and written only at its changes: no two
    // readings less than 120 ms apart yet, but every time a multiple of
    // 10. Black's queen slid d8-c7-b6 (c7 reached in the reading d8 was
    // left) was read as plies the sensors missed, as on a board read
    // every millisecond: lines of tempo moves, then a displaced board, a
    // false alert; and `...c6` slid c7-c6 in one reading opened lines
    // from which Black's press adopted `...c5`, a wrong move.
    for (file, number, index) in [
        ("201507britchamp.pgn", 82, 668),
        ("twic1599.pgn", 750, 1740),
    ] {
        corpus_game_with_hands_is_read(
            &blitz_grabbing_in(100, 150),
            file,
            number,
            index * 7 + 3,
            10,
        );
    }
}

#[test]
fn two_legal_moves_seen_made_under_the_next_movers_hand_complete_no_illegal_move() {
    // Blitz hands that always grab, reacting 100-150 ms after the release,
    // a board read every 10 ms (random game 862, hands seeded as the
    // probe's full run seeds it): Black's bishop lifted from g3, White's
    // pawn on h4 open for one reading as it passed (`...Bxh4` seen
    // swapped), then Black's hand took White's rook off h2 and set the
    // bishop there (`...Bxh2`), and White's king was lifted before Black
    // pressed. Two legal moves read made under White's hand; the press
    // completed an illegal move by Black (7.5), a false accusation in
    // a clean game. Both stand as lines; the pieces' next moves tell.
    full_run_random_game_is_read(&blitz_grabbing_in(100, 150), 862, 10);
}

#[test]
fn a_nudge_before_the_readings_show_their_period_is_no_touch() {
    // Nudged pieces, a board read every 20 ms and written only at its
    // changes (random games 642 and 874, hands seeded as the probe's full
    // run seeds them): White's f2 pawn brushed for 100 ms before the
    // first move read as open for 120 ms, no two readings yet less than
    // 120 ms apart, so no period known and no allowance made for it: a
    // touch of f2, and a false touch-move alert (4.3a) when White played
    // `c3`. Until the period shows, the grid of the readings' times
    // bounds it.
    for game in [642, 874] {
        full_run_random_game_is_read(&HandStyle::by_name("nudges").unwrap(), game, 20);
    }
}

#[test]
fn a_press_while_the_next_mover_answers_a_capture_nobody_saw_waits_for_his_pieces() {
    // Bullet hands, a board read every 20 ms (random game 817, hands
    // seeded as the probe's full run seeds them): `fxg5` pushed the pawn
    // off between two readings, Black's f7 pawn lifted and touching f4 (the
    // square White's pawn had left) on its way to f5 as White pressed. The
    // press read White's pawn back on f4 and no move made: a press
    // without a move completed as an illegal move (7.5), a false
    // accusation. The next mover's hand at work says a move was made.
    full_run_random_game_is_read(&HandStyle::by_name("bullet").unwrap(), 817, 20);
}

#[test]
fn a_piece_taken_into_the_next_movers_hand_stood_as_long_as_its_readings_show_give_or_take_a_scan()
{
    // Bullet hands, a board read every 20 ms (random game 546, hands
    // seeded as the probe's full run seeds them; corpus game 1305, twic1599
    // game 315): White's rook slid a4-e4 and Black's hand took it off e4
    // for `...Nxe4` 100 ms after it landed, read as 80 ms (the landing
    // shows up to a scan late), short of the stand a release needs even
    // where the next mover takes the piece. The rook was not seen made,
    // and White's press adopted `Rh4` from a search, a wrong move (in the
    // corpus game, `Bb5` taken at once by `...cxb5`: `Bh7` recorded). A piece
    // gone into a hand (nothing set down next door as it left, nothing
    // next door it could have gone on to take) stood its readings' time,
    // give or take a scan.
    full_run_random_game_is_read(&HandStyle::by_name("bullet").unwrap(), 546, 20);
    corpus_game_with_hands_is_read(
        &HandStyle::by_name("bullet").unwrap(),
        "twic1599.pgn",
        315,
        1305 * 7 + 3,
        20,
    );
}

#[test]
fn a_grab_before_a_move_adopted_from_a_line_is_the_next_movers_hand_at_work() {
    // Blitz hands that always grab, reacting 100-150 ms after the release,
    // a board read every 10 ms (corpus game 1645): `...Qxc4+` and `Ka3`
    // adopted from lines at a reading 300 ms after the king was set down
    // on a3, Black's queen lifted from c4 in between (his next move begun,
    // 1.1). Counted from the adoption, that lift belonged to no ply of the
    // line still open: `...Qd3` set down and pressed was never seen made,
    // and a search recorded `...Qxa4+`, a wrong move. The hands at work
    // count from when the record's last piece was set down.
    corpus_game_with_hands_is_read(
        &blitz_grabbing_in(100, 150),
        "twic1599.pgn",
        655,
        1645 * 7 + 3,
        10,
    );
}

#[test]
fn a_grab_that_releases_the_move_counts_with_the_hands_at_work_under_a_line_of_no_plies() {
    // Bullet hands, a board read every 20 ms (random game 364, hands
    // seeded as the probe's full run seeds them): White's king lifted
    // from e1 in the very reading that released `...Nh6` (recorded then,
    // 1.1), the king set down on g1 and the rook lifted in one reading
    // (lines opened, as for a jump), the rook set down on f1, and Black's
    // e7 pawn lifted as White pressed. Under the line of no plies the
    // king's lift, at the very time `...Nh6` was recorded, counted for
    // nothing: castling was not seen made, and the press reported the
    // board displaced (f1, e7), a false alert.
    full_run_random_game_is_read(&HandStyle::by_name("bullet").unwrap(), 364, 20);
}

#[test]
fn lines_held_beyond_a_jump_go_on_where_every_line_goes_on_by_the_same_plies() {
    // Bullet hands, a board read every 20 ms (random game 149, hands
    // seeded as the probe's full run seeds them): `Bxg8` and `Bxa8`, both
    // captures pushed off between two readings, stood as two lines for
    // 17 plies (no move told them apart). Then `...Rxh7` read in one
    // reading and `f6` with Black's hand already on his king dropped both,
    // and no legal play from the record, 18 plies behind, reached the
    // board: the record stopped for the rest of the game, reporting the
    // board displaced. From each line's position the same two plies and
    // a hand at work explain it: the lines go on, and the bishop's later
    // moves tell which capture it was.
    full_run_random_game_is_read(&HandStyle::by_name("bullet").unwrap(), 149, 20);
}

/// Random game `game` with `style`'s hands seeded as the hand probe's full
/// run seeds them (`--seed-base 2101`), read every `period` ms.
fn full_run_random_game_is_read(style: &HandStyle, game: u64, period: u64) {
    random_game_with_hands_seeded_is_read(style, game, (game + 2101) * 7 + 3, period);
}

/// Blitz hands whose next mover always grabs, `low` to `high` ms after
/// the release.
fn blitz_grabbing_in(low: u64, high: u64) -> HandStyle {
    HandStyle {
        grab: 1.0,
        reaction_ms: (low, high),
        ..HandStyle::by_name("blitz-hands").unwrap()
    }
}

/// Bullet hands whose next mover reacts `low` to `high` ms after the
/// release.
fn bullet_reacting_in(low: u64, high: u64) -> HandStyle {
    HandStyle {
        reaction_ms: (low, high),
        ..HandStyle::by_name("bullet").unwrap()
    }
}

/// Corpus game `number` of `file` (the hand probe's game `index`) with
/// `style`'s hands, two jumps where the probe puts them, read every 10 ms:
/// the game, and what the session read.
fn two_jumps_in_corpus_game(
    file: &str,
    number: usize,
    index: u64,
    style: &str,
) -> (Chess, Vec<Move>, support::Outcome) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::cli::read_pgn_file(&dir.join(file)).unwrap();
    let game = games[number - 1].as_ref().unwrap();
    let start = game.start.position().clone();
    let style = HandStyle::by_name(style).unwrap();
    let (placed, mut s) =
        faults::inject_jumps(&start, &game.moves, &style, index * 7 + 3, 2).unwrap();
    assert_eq!(placed.len(), 2, "{placed:?}");
    s.trace = synth::sampled::sampled(&s.trace, 10);
    let out = support::run(&s, None);
    (start, game.moves.clone(), out)
}

/// No alert but `displaced` (a jump's board before its lines open), and
/// the record equal to the game from ply `from` on (the plies before may
/// be a jump's transposition, which no board tells).
fn read_from(start: &Chess, moves: &[Move], out: &support::Outcome, from: usize) {
    let alerts = support::alerts(&out.events);
    assert!(
        alerts
            .iter()
            .all(|e| matches!(e.kind, EventKind::Displaced { .. })),
        "{:?}",
        alerts.iter().map(|e| e.to_json()).collect::<Vec<_>>()
    );
    let played = support::played_uci(&out.session);
    let source = support::source_uci(start, moves);
    assert_eq!(played.len(), source.len(), "{played:?}");
    assert_eq!(played[from..], source[from..]);
    let mut end = start.clone();
    for m in moves {
        end.play_unchecked(*m);
    }
    assert_eq!(
        touchmove_core::game::fen_of(out.session.game().position()),
        touchmove_core::game::fen_of(&end)
    );
}

#[test]
fn three_squares_changed_in_one_scan_are_a_jump_even_beside_a_slide() {
    // Bullet hands, two jumps. In the second, `42...Rg5+ 43. Kf2 Rg4` went
    // unread and the sensors read again with White's hand holding the
    // king for `44. Kf3`: g3 and f5 empty, g4 filled, in one scan. Judged
    // in pairs, the changes look like one hand's slides next door (f5 to
    // g4, g3 to g4): the board was not taken for one the sensors missed,
    // no hand at work was searched where the jump's pieces could go, and
    // the record stopped at ply 89 of 173. Three squares in one scan are
    // no one hand's slide. Then, under the line read with the king in the
    // hand, Black's hand lifted g7 before the king came down on f3: the
    // king's lift was never read, so `Kf3` was no move made under that
    // line, and a detour (`Kf3 ...Rg4 Ne2 g6 Nf4 g5`) was recorded. The
    // piece a hand held when the sensors were read again was lifted then.
    let (start, moves, out) = two_jumps_in_corpus_game("twic1599.pgn", 114, 1104, "bullet");
    read_from(&start, &moves, &out, 35);
}

#[test]
fn at_the_end_of_the_trace_a_line_that_only_waited_for_a_hand_gives_way() {
    // Bullet hands, two jumps, the second over `13. Be3 Qc3+ 14. Ke2`, then
    // `14...Qxa1` seen, the game's last move. Lines of four plies with
    // the queen going to c3 by way of another square (`...Qc5 Ke2 ...Qc3`)
    // explain the board with her lifted from c3 too, and waited for her
    // to land while the capture was made under the others. The trace ends
    // there: a line that only waited while the others saw the hands' move
    // made waits for nothing now, and the capture (its two lines reach one
    // position) is recorded. It was left open.
    let (start, moves, out) = two_jumps_in_corpus_game("201507britchamp.pgn", 326, 912, "bullet");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn a_slide_over_a_square_at_the_other_players_press_is_no_move_made_after_unseen_plies() {
    // Blitz hands, two jumps. The second hides `26...Rxe7` (its rook's
    // landing unread); `27. dxe7+ Qxe7` are seen, and White's queen, lifted
    // from h5 for `28. Qd5`, slides over g5 27 ms before Black's press.
    // At the press, the plies nobody saw and the players' moves since were
    // read as `...Rxe7 dxe7+ ...Qxe7 Qg5`, the queen's slide taken for a
    // move made, and a detour of four more plies (`...Nh4 Qe5 ...Ng6
    // Qd5+`) recorded to reach the board later. At a press, a line's last
    // piece set down a moment ago on an empty square may be sliding on:
    // the plies before it stand beside.
    let (start, moves, out) =
        two_jumps_in_corpus_game("200807britchamp.pgn", 40, 250, "blitz-hands");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn a_capture_quicker_than_a_scan_answered_at_once_is_no_illegal_move() {
    // Bullet hands, two jumps. The first hides `10. Bxc3` (the bishop
    // lifted from d2 read, c3 never read empty); `...Ne4` is set down
    // and White's hand lifts the rook from a1 for `11. Rc1` before the
    // board settles. Read alone, the knight landing on e4 looked like
    // White's bishop landing there, an illegal move, completed at
    // White's press. The capture, the reply and the next mover's hand at
    // work stand beside it: where the rook lands tells.
    let (start, moves, out) = two_jumps_in_corpus_game("197308bcf.pgn", 110, 109, "bullet");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn two_replies_after_a_capture_quicker_than_a_scan_then_a_hand_at_work() {
    // Bullet hands, two jumps. The first hides `3...Nxe4` (f6 read
    // empty, e4 never); `4. dxe5 d5` are seen, and White's hand lifts
    // the knight from b1 before the pawn on d5 settles: two plies seen
    // after the capture, then a hand at work (no illegal `...Nd5`).
    let (start, moves, out) = two_jumps_in_corpus_game("twic1599.pgn", 22, 1012, "bullet");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn a_press_after_a_capture_quicker_than_a_scan_and_its_answers_is_no_illegal_move() {
    // Bullet hands, two jumps. The second hides `29. Rxh7+` (the rook
    // read lifted from h5, h7 never empty); `...Kxh7` and `30. Qh5+` are
    // seen (the queen lands where the rook stood), and Black's hand lifts
    // the queen from f6 before White presses. The press read the board as
    // an illegal move of the queen, completed. It is the capture, the
    // answers and a hand at work; the queen's landing tells.
    let (start, moves, out) = two_jumps_in_corpus_game("twic1599.pgn", 149, 1139, "bullet");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn a_capture_at_work_after_unseen_captures_and_their_answer_is_read_at_the_press() {
    // Bullet hands, two jumps. The second hides `30...Bxg2+` (the bishop
    // read lifted from d5, g2 never empty); `31. Qxg2 Qxg2+` are seen, and
    // White's hand has taken Black's queen off g2 and lifted the king for
    // `32. Kxg2` before Black presses. The press read `...Bxc4` (a capture
    // quicker than a scan, the hands since White's) although Black's own
    // queen was lifted after it, and a detour of five plies was recorded
    // to reach the board. A piece of the mover's lifted after such a
    // capture is the next mover's only where he can take it; and the
    // next mover's hand may hold two pieces at the press (a capture at
    // work, the captured piece first): the unseen capture, the answers
    // and that hand.
    let (start, moves, out) = two_jumps_in_corpus_game("twic1599.pgn", 157, 1147, "bullet");
    read_from(&start, &moves, &out, 0);
}

#[test]
fn a_piece_a_jump_set_down_and_lifted_at_the_next_reading_is_a_hand_at_work() {
    // Bullet hands, two jumps, 10 ms scans. The second hides `27. Nxf6+
    // Rxf6 28. Qa4 Qc5`; White's hand lifts the queen from a4 for
    // `29. Qe8+` at the very next reading, and Black's hand lifts his
    // queen from c5 before White presses. The jump's board was not judged
    // first (a piece the jump set down, lifted within 15 ms, was taken
    // for its contacts' bounce), and the board at the press read as
    // `...Qxg3 Qe8#`: a wrong move and a mate that ended the game. Where
    // readings are further apart than the filter's window, the next
    // reading is a hand's. (The first jump, `...Qb6 Nd2 Ba6`, is read
    // transposed: the same position.)
    let (start, moves, out) = two_jumps_in_corpus_game("201507britchamp.pgn", 338, 924, "bullet");
    read_from(&start, &moves, &out, 28);
}

/// Corpus game `number` of `file` (`index` in the corpus, seeding its
/// hands) under the interference of
/// [`interference_on_a_board_read_every_10_ms_is_read_exactly`]: read
/// exactly, with no alert.
fn corpus_game_under_interference_is_read(file: &str, number: usize, index: u64, style: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::cli::read_pgn_file(&dir.join(file)).unwrap();
    let game = games[number - 1].as_ref().unwrap();
    let (start, moves) = (game.start.position().clone(), game.moves.clone());
    let mut style = HandStyle::by_name(style).unwrap();
    style.bounce = 0.9;
    style.glitches_per_minute = 8.0;
    let seed = index * 7 + 3;
    let mut s = synth::synthesize(&start, &moves, &style, seed);
    s.trace = synth::sampled::sampled(&s.trace, 10);
    support::check_synthesized(&start, &moves, &s, &style, seed).unwrap();
}

#[test]
fn a_blip_beside_a_slide_is_no_jump_whose_piece_a_hand_lifted_at_once() {
    // Bullet hands under interference, 10 ms scans. White's king slides
    // from g1 onto h2 (on its way to h3) in the reading where d4 blips:
    // three squares, read as a jump, and d4 reads empty again at the next
    // reading. Taken for a hand lifting a piece the jump set down, the
    // jump's board was judged first: an illegal move of the king. Only a
    // reading of more squares than a slide and a blip is judged so.
    corpus_game_under_interference_is_read("200807britchamp.pgn", 155, 365, "bullet");
}
