mod support;
use touchmove::synth::{self, HandStyle};
#[test]
fn probe() {
    let n: u64 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let style_name = std::env::var("STYLE").unwrap_or("bullet".into());
    let style = HandStyle::by_name(&style_name).unwrap();
    let only: Option<u64> = std::env::var("SEED").ok().and_then(|v| v.parse().ok());
    let verbose = std::env::var("V").is_ok();
    let mut fails = 0;
    let mut shown = 0;
    for seed in 0..n {
        if only.is_some_and(|o| o != seed) {
            continue;
        }
        let (start, moves) = synth::random_game(seed, 120);
        let s = synth::synthesize(&start, &moves, &style, seed);
        if only.is_some() {
            std::fs::write("/tmp/exp/probe.trace", s.to_string()).unwrap();
        }
        let out = support::run(&s, None);
        let played = support::played_uci(&out.session);
        let source = support::source_uci(&start, &moves);
        let alerts = support::alerts(&out.events);
        let bad = played.iter().zip(&source).position(|(a, b)| a != b);
        let complete = played.len() == source.len() || out.session.game().is_over();
        if alerts.is_empty() && bad.is_none() && complete && played.len() <= source.len() {
            continue;
        }
        fails += 1;
        if shown >= 3 {
            continue;
        }
        shown += 1;
        let t = match (alerts.first(), bad) {
            (Some(a), _) => a.t_ms,
            (None, Some(i)) => s.moves[i].first_lift,
            _ => s.moves.get(played.len()).map_or(0, |m| m.first_lift),
        };
        println!(
            "seed {seed}: played {} of {}, first bad {:?}, alerts {}",
            played.len(),
            source.len(),
            bad.map(|i| (i + 1, &source[i], played.get(i))),
            alerts.len()
        );
        for m in &s.moves {
            if m.first_lift + 3000 >= t && m.first_lift <= t + 1000 {
                println!(
                    "  ply {} {} lift {} release {} clock {:?}",
                    m.ply, m.uci, m.first_lift, m.last_release, m.clock
                );
            }
        }
        if verbose {
            for r in &s.trace.records {
                if r.t + 2500 >= t && r.t <= t + 800 {
                    println!("    {r}");
                }
            }
        }
        for e in &out.events {
            if e.t_ms + 2500 >= t && e.t_ms <= t + 800 {
                println!("  > {}", e.to_json());
            }
        }
    }
    println!("{style_name}: {fails} of {n} failed");
}

#[test]
fn probe_jump() {
    let Some(seed) = std::env::var("JSEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let k: usize = std::env::var("K").unwrap().parse().unwrap();
    let (start, moves) = synth::random_game(seed, 60);
    let at = 4 + (seed as usize * 7) % (moves.len() - 8);
    let s = synth::faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        seed,
        &[(at, synth::faults::Fault::MissedPlies(k))],
    )
    .unwrap();
    std::fs::write("/tmp/exp/probe.trace", s.to_string()).unwrap();
    let src = support::source_uci(&start, &moves);
    println!(
        "jump at {at}: {:?}; next {:?}",
        &src[at..at + k],
        &src[at + k..(at + k + 4).min(src.len())]
    );
    let out = support::run(&s, None);
    let t0 = s.moves[at].first_lift;
    for e in &out.events {
        if e.t_ms + 500 >= t0 && e.t_ms <= t0 + 30000 && !e.kind.name().starts_with("piece") {
            println!("  > {}", e.to_json());
        }
    }
}

#[test]
fn probe_jump2() {
    let Some(seed) = std::env::var("J2SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let k: usize = std::env::var("K").unwrap().parse().unwrap();
    let at: usize = std::env::var("AT").unwrap().parse().unwrap();
    let plies: usize = std::env::var("PLIES")
        .unwrap_or("160".into())
        .parse()
        .unwrap();
    let (start, moves) = synth::random_game(seed, plies);
    let s = synth::faults::inject(
        &start,
        &moves,
        &HandStyle::random(),
        seed,
        &[(at, synth::faults::Fault::MissedPlies(k))],
    )
    .unwrap();
    std::fs::write("/tmp/exp/probe.trace", s.to_string()).unwrap();
    let src = support::source_uci(&start, &moves);
    println!(
        "jump at {at}: {:?}; next {:?}",
        &src[at..at + k],
        &src[at + k..(at + k + 8).min(src.len())]
    );
    let out = support::run(&s, None);
    let t0 = s.moves[at].first_lift;
    for e in &out.events {
        if e.t_ms + 500 >= t0 && e.t_ms <= t0 + 60000 && !e.kind.name().starts_with("piece") {
            println!("  > {}", e.to_json());
        }
    }
}
#[test]
fn probe_game() {
    let Some(seed) = std::env::var("GSEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let (start, moves) = synth::random_game(seed, 160);
    let src = support::source_uci(&start, &moves);
    for (i, m) in src.iter().enumerate() {
        print!("{i}:{m} ");
    }
    println!();
}
#[test]
fn probe_corpus_jump() {
    let Some(num) = std::env::var("CGAME")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let file = std::env::var("CFILE").unwrap();
    let k: usize = std::env::var("K").unwrap().parse().unwrap();
    let at: usize = std::env::var("AT").unwrap().parse().unwrap();
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let casual = std::env::var("CASUAL").is_ok();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pgn");
    let games = touchmove::game::pgn::read_file(&dir.join(&file)).unwrap();
    let game = games
        .iter()
        .map(|g| g.as_ref().unwrap())
        .find(|g| g.number == num)
        .unwrap();
    let style = if casual {
        HandStyle::casual()
    } else {
        HandStyle::random()
    };
    let s = synth::faults::inject(
        game.start.position(),
        &game.moves,
        &style,
        seed,
        &[(at, synth::faults::Fault::MissedPlies(k))],
    )
    .unwrap();
    std::fs::write("/tmp/exp/probe.trace", s.to_string()).unwrap();
    let src = support::source_uci(game.start.position(), &game.moves);
    println!(
        "jump at {at}: {:?}; next {:?}",
        &src[at..at + k],
        &src[at + k..(at + k + 8).min(src.len())]
    );
    let out = support::run(&s, None);
    let t0 = s.moves[at].first_lift;
    for e in &out.events {
        if e.t_ms + 500 >= t0 && e.t_ms <= t0 + 40000 && !e.kind.name().starts_with("piece") {
            println!("  > {}", e.to_json());
        }
    }
}
