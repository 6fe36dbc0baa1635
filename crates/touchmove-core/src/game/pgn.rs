//! PGN: writing a game (Seven Tag Roster, SAN per Appendix E, `[%clk]`) and
//! reading games with pgn-reader (moves checked with shakmaty).
use std::fmt::Write as _;
use std::io;
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Move, Position};

use super::record::{Game, PlayedMove};
use super::start::Start;
use super::tag_value::TagValue;
use crate::Millis;

/// The tags of a game that the record itself does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tags {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`, `??` where unknown.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// The PGN `TimeControl` value, when a clock ran.
    pub time_control: Option<String>,
    /// Further tags, written after the others in this order.
    pub extra: Vec<(String, String)>,
}

impl Default for Tags {
    fn default() -> Tags {
        Tags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            time_control: None,
            extra: Vec::new(),
        }
    }
}

/// Parses `h:mm:ss` (optionally with a fraction) into milliseconds.
pub(crate) fn parse_clk(text: &str) -> Option<Millis> {
    let mut parts = text.trim().split(':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let s: f64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || m >= 60 || !(0.0..60.0).contains(&s) {
        return None;
    }
    Some(h * 3_600_000 + m * 60_000 + (s * 1000.0).round() as u64)
}

/// A tag value as written between its quotes: made one line of at most
/// 255 printing characters, then `\\` and `"` escaped (PGN Standard,
/// section 7; the rule is [`super::tag_value`]'s). The values of [`Tags`]
/// were checked where they came in; an older record's are made safe here,
/// so no value can end its tag or start another.
fn escape(value: &str) -> String {
    TagValue::lossy(value).escaped()
}

/// The game as PGN, in export format: the Seven Tag Roster, `FEN`/`SetUp`
/// (and `Variant "Chess960"`) for other starts, `TimeControl`,
/// `Termination` when over, then the movetext with `[%clk]` comments where
/// a clock ran, lines of at most 80 characters, and the result.
pub fn write(game: &Game, tags: &Tags) -> String {
    let result = game.end().map_or_else(|| "*".to_owned(), |e| e.result());
    let mut out = tag_section(game, tags, &result);
    out.push('\n');
    let mut tokens = movetext(game);
    tokens.push(result);
    out.push_str(&wrap(tokens));
    out.push_str("\n\n");
    out
}

/// The tag pairs, one a line: the Seven Tag Roster (with `result`), the
/// start when not the standard one, `TimeControl`, `Termination` when the
/// game is over, then the further tags.
fn tag_section(game: &Game, tags: &Tags, result: &str) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", result);
    let start = game.start();
    if start.is_chess960() {
        tag("Variant", "Chess960");
    }
    if !start.is_standard() {
        tag("SetUp", "1");
        tag("FEN", &start.fen());
    }
    if let Some(tc) = &tags.time_control {
        tag("TimeControl", tc);
    }
    if let Some(end) = game.end() {
        tag("Termination", end.reason.termination());
    }
    for (name, value) in &tags.extra {
        tag(name, value);
    }
    out
}

/// The moves as tokens: move numbers (`12.`, and `12...` for a Black move
/// that opens the movetext or follows a comment), SAN, clock comments.
fn movetext(game: &Game) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let position = game.start().position();
    let first_fullmove = position.fullmoves().get();
    let black_first = position.turn() == shakmaty::Color::Black;
    let mut need_number = true;
    for (i, m) in game.moves().iter().enumerate() {
        let index = i + usize::from(black_first);
        let number = first_fullmove as usize + index / 2;
        if m.side == shakmaty::Color::White {
            tokens.push(format!("{number}."));
        } else if need_number {
            tokens.push(format!("{number}..."));
        }
        tokens.push(m.san.to_string());
        need_number = false;
        if let Some(comment) = clock_comment(m) {
            tokens.push(comment);
            need_number = true;
        }
    }
    tokens
}

/// `{[%clk h:mm:ss]}` after a move whose clock reading is known, with
/// `[%emt h:mm:ss]` when the time it took is known too.
fn clock_comment(m: &PlayedMove) -> Option<String> {
    let clk = crate::clock::format_clk(m.clock_ms?);
    let emt = m
        .elapsed_ms
        .map(|emt| format!(" [%emt {}]", crate::clock::format_emt(emt)))
        .unwrap_or_default();
    Some(format!("{{[%clk {clk}]{emt}}}"))
}

/// Tokens joined by spaces into lines of at most 80 characters (a token
/// longer than that stands alone on its line); no newline after the last.
fn wrap(tokens: Vec<String>) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out
}

/// A game read from PGN.
#[derive(Debug, Clone)]
pub struct PgnGame {
    /// 1 = the first game of the file.
    pub number: usize,
    pub tags: Vec<(String, String)>,
    pub start: Start,
    pub moves: Vec<Move>,
    /// `[%clk]` of each move, where given.
    pub clocks: Vec<Option<Millis>>,
    /// The result in the movetext, if any.
    pub result: Option<KnownOutcome>,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a game of a PGN file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("game {game}: bad FEN tag: {reason}")]
    Start { game: usize, reason: String },
    #[error("game {game}, ply {ply} ({move_number}{dots} {san}): {reason}")]
    Move {
        game: usize,
        ply: usize,
        move_number: u32,
        dots: &'static str,
        san: String,
        reason: String,
    },
}

struct Collector {
    number: usize,
}

struct TagsSoFar {
    tags: Vec<(String, String)>,
}

struct Movetext {
    game: PgnGame,
    position: Chess,
    error: Option<PgnError>,
}

impl Visitor for Collector {
    type Tags = TagsSoFar;
    type Movetext = Movetext;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, TagsSoFar> {
        self.number += 1;
        ControlFlow::Continue(TagsSoFar { tags: Vec::new() })
    }

    fn tag(
        &mut self,
        tags: &mut TagsSoFar,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        // Unescaped here rather than by `RawTag::decode`, which reads the
        // `\` of an escaped backslash as the start of another escape
        // (`\\\"` came out `"`, not `\"`).
        tags.tags.push((
            String::from_utf8_lossy(name).into_owned(),
            super::tag_value::unescape(value.as_bytes()),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: TagsSoFar) -> ControlFlow<Self::Output, Movetext> {
        let number = self.number;
        let tag = |name: &str| tags.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        // `Variant "Chess960"` (or "Fischerandom", "chess 960", ...) makes the
        // castling rights Chess960 ones even where they look standard.
        let chess960 = tag("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let start = match (tag("FEN"), chess960) {
            (Some(fen), false) => Start::from_fen(fen),
            (Some(fen), true) => Start::chess960_from_fen(fen),
            (None, false) => Ok(Start::standard()),
            (None, true) => Start::chess960(518),
        };
        let start = match start {
            Ok(s) => s,
            Err(e) => {
                return ControlFlow::Break(Err(PgnError::Start {
                    game: number,
                    reason: e.to_string(),
                }));
            }
        };
        let position = start.position().clone();
        ControlFlow::Continue(Movetext {
            game: PgnGame {
                number,
                tags: tags.tags,
                start,
                moves: Vec::new(),
                clocks: Vec::new(),
                result: None,
            },
            position,
            error: None,
        })
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if mt.error.is_some() {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&mt.position) {
            Ok(m) => {
                mt.position.play_unchecked(m);
                mt.game.moves.push(m);
                mt.game.clocks.push(None);
            }
            Err(err) => {
                let turn = mt.position.turn();
                mt.error = Some(PgnError::Move {
                    game: mt.game.number,
                    ply: mt.game.moves.len() + 1,
                    move_number: mt.position.fullmoves().get(),
                    dots: if turn == shakmaty::Color::White {
                        "."
                    } else {
                        "..."
                    },
                    san: san_plus.to_string(),
                    reason: err.to_string(),
                });
            }
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        let text = String::from_utf8_lossy(comment.as_bytes());
        if let Some(rest) = text.split("[%clk").nth(1) {
            let value = rest.split(']').next().unwrap_or("");
            if let Some(slot) = mt.game.clocks.last_mut() {
                *slot = parse_clk(value);
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        mt.game.result = outcome.known();
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) -> Self::Output {
        match mt.error {
            Some(err) => Err(err),
            None => Ok(mt.game),
        }
    }
}

/// Reads every game of a PGN text; each game is read or its first fault named.
pub fn read_all<R: io::Read>(input: R) -> io::Result<Vec<Result<PgnGame, PgnError>>> {
    let mut reader = Reader::new(input);
    let mut collector = Collector { number: 0 };
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut collector)? {
        games.push(game);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clk_formats_and_parses() {
        assert_eq!(parse_clk("1:30:00"), Some(5_400_000));
        assert_eq!(parse_clk("0:00:59.5"), Some(59_500));
        assert_eq!(parse_clk("1:61:00"), None);
    }

    #[test]
    fn an_illegal_move_is_named_with_game_and_ply() {
        let text = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n";
        let games = read_all(text.as_bytes()).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].as_ref().unwrap().moves.len(), 4);
        let err = games[1].as_ref().unwrap_err().to_string();
        assert!(err.starts_with("game 2, ply 3 (2. Ke3)"), "{err}");
    }

    fn play(game: &mut Game, sans: &str) {
        for san in sans.split_whitespace() {
            let mv = san
                .parse::<shakmaty::san::San>()
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(&mv, 0).unwrap();
        }
    }

    #[test]
    fn a_black_move_after_a_clock_comment_or_first_in_the_movetext_gets_its_number() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let mut game = Game::new(
            Start::from_fen(fen).unwrap(),
            crate::game::Profile::FideStandard,
        );
        play(&mut game, "e5 Nf3 Nc6 Bb5");
        game.set_clock(2, 5_399_000, Some(61_500));
        game.set_clock(3, 5_390_000, None);
        let tags = Tags {
            event: "Club \"A\"".into(),
            ..Tags::default()
        };
        let text = write(&game, &tags);
        let (head, movetext) = text.split_once("\n\n").unwrap();
        assert!(head.starts_with("[Event \"Club \\\"A\\\"\"]\n[Site \"?\"]\n"));
        assert!(head.ends_with(&format!("[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]")));
        // 79 characters: the result does not fit on the line.
        assert_eq!(
            movetext,
            "1... e5 2. Nf3 {[%clk 1:29:59] [%emt 0:01:01]} 2... Nc6 {[%clk 1:29:50]} 3. Bb5\n*\n\n"
        );
    }

    #[test]
    fn movetext_lines_hold_at_most_80_characters_and_a_longer_token_stands_alone() {
        let tokens: Vec<String> = (1..=40).map(|n| format!("{n}. Nf3")).collect();
        let text = wrap(tokens.clone());
        assert!(text.lines().count() > 1);
        assert!(text.lines().all(|l| l.len() <= 80), "{text}");
        // Each break falls where the next token would not fit.
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            let next = pair[1].split(' ').take(2).collect::<Vec<_>>().join(" ");
            assert!(pair[0].len() + 1 + next.len() > 80, "{pair:?}");
        }
        assert_eq!(text.replace('\n', " "), tokens.join(" "));
        let long = "x".repeat(90);
        assert_eq!(
            wrap(vec!["a".into(), long.clone(), "b".into()]),
            format!("a\n{long}\nb")
        );
    }

    #[test]
    fn a_variant_tag_makes_castling_chess960() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let text = format!(
            "[Variant \"Chess960\"]\n[FEN \"{fen}\"]\n\n*\n\n[FEN \"{fen}\"]\n\n*\n\n[Variant \"Chess960\"]\n\n*\n"
        );
        let games = read_all(text.as_bytes()).unwrap();
        let starts: Vec<bool> = games
            .iter()
            .map(|g| g.as_ref().unwrap().start.is_chess960())
            .collect();
        assert_eq!(starts, [true, false, true]);
    }
}
