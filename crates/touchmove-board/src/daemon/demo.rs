//! The embedded demo: a real game from the corpus (Arkell–Eggleston,
//! British Championship 2008, 31 moves, ending in mate), played by
//! synthesized human hands with a clock, one knocked-off piece put back
//! (a `displaced` alert, then `restored`). Later games are the same game
//! with other hands, or random games from a start an arbiter asked for.
use touchmove_core::game::Start;
use touchmove_core::game::pgn::{self, PgnGame, Tags};
use touchmove_core::trace::Trace;
use touchmove_synth::faults::{self, Fault, Knock};
use touchmove_synth::{self as synth, HandStyle};

/// The corpus game the demo replays.
pub(crate) const DEMO_PGN: &str = include_str!("demo.pgn");

/// A demo game ready to play.
#[derive(Debug, Clone)]
pub struct DemoGame {
    pub trace: Trace,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// The corpus game's titles and ratings (`WhiteTitle`, `WhiteElo`, ...).
    pub extra: Vec<(String, String)>,
}

/// The corpus game, read.
pub fn corpus_game() -> anyhow::Result<PgnGame> {
    let games = pgn::read_all(DEMO_PGN.as_bytes())?;
    let game = games
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the demo PGN holds no game"))??;
    Ok(game)
}

/// Demo game number `index` (0 = the first): the corpus game from the
/// standard start, or a random 60-ply game from `start`.
pub fn game(index: u64, seed: u64, faults: bool, start: Option<Start>) -> anyhow::Result<DemoGame> {
    let seed = seed.wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let style = HandStyle::random();
    let corpus = corpus_game()?;
    let standard = start.as_ref().is_none_or(Start::is_standard);
    let tag = |name: &str| corpus.tag(name).unwrap_or("?").to_owned();
    let (position, moves, white, black, event, site, round) = match start {
        Some(start) if !start.is_standard() => {
            let moves = synth::random_game_from(start.position(), seed, 60);
            (
                start.position().clone(),
                moves,
                "?".to_owned(),
                "?".to_owned(),
                "touchmove demo".to_owned(),
                "?".to_owned(),
                format!("{}", index + 1),
            )
        }
        _ => (
            corpus.start.position().clone(),
            corpus.moves.clone(),
            tag("White"),
            tag("Black"),
            format!("touchmove demo: {}", tag("Event")),
            tag("Site"),
            tag("Round"),
        ),
    };
    let knocked = [
        (3, Fault::KnockedPiece(Knock::OffBoard)),
        (12, Fault::KnockedPiece(Knock::OffBoard)),
    ];
    let synthesized = if faults {
        faults::inject(&position, &moves, &style, seed, &knocked)
            .or_else(|_| faults::inject(&position, &moves, &style, seed, &knocked[..1]))
            .unwrap_or_else(|_| synth::synthesize(&position, &moves, &style, seed))
    } else {
        synth::synthesize(&position, &moves, &style, seed)
    };
    let mut trace = synthesized.trace;
    if !standard {
        trace.header.start_fen = Some(touchmove_core::game::fen_of(&position));
    }
    let extra = if standard {
        ["WhiteTitle", "WhiteElo", "BlackTitle", "BlackElo"]
            .into_iter()
            .filter_map(|name| corpus.tag(name).map(|v| (name.to_owned(), v.to_owned())))
            .collect()
    } else {
        Vec::new()
    };
    Ok(DemoGame {
        trace,
        extra,
        white,
        black,
        event,
        site,
        round,
    })
}

/// Puts a demo game's names into the PGN tags.
pub fn tags(tags: &mut Tags, game: &DemoGame) {
    tags.white.clone_from(&game.white);
    tags.black.clone_from(&game.black);
    tags.event.clone_from(&game.event);
    tags.site.clone_from(&game.site);
    tags.round.clone_from(&game.round);
    tags.extra.clone_from(&game.extra);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_game_is_read_and_synthesized() {
        let corpus = corpus_game().unwrap();
        assert_eq!(corpus.moves.len(), 61);
        let g = game(0, 7, true, None).unwrap();
        assert_eq!(g.white, "Arkell, Keith");
        assert!(
            g.extra
                .contains(&("WhiteElo".to_owned(), "2506".to_owned())),
            "{:?}",
            g.extra
        );
        assert!(g.trace.records.len() > 61);
        let end = g.trace.records.last().unwrap().t;
        // Human speed: the game lasts minutes, not seconds.
        assert!(end > 60_000, "the demo game lasts {end} ms");
    }
}
