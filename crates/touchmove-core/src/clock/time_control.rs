//! Time controls (Article 6.2 of the 2005 Laws) and their two written forms.
//!
//! A [`TimeControl`] is a list of [`Period`]s. Each period but the last
//! has a number of moves to make in it; the time saved in one period is
//! carried into the next (6.2b). Each period has its own [`Bonus`]: none, a
//! Fischer increment, or a delay (the "time delay mode" of 6.2b, in its two
//! practical forms, Bronstein and simple/US delay).
//!
//! # PGN form (the `TimeControl` tag)
//!
//! As in the PGN standard (section 9.6.1): periods separated by `:`, each
//! `[moves/]seconds[+increment]`, all in seconds; `?` is an unknown and `-`
//! no time control ([`TimeControlTag`]). Examples: `300`, `5400+30`,
//! `40/5400+30:1800+30` (the FIDE classical control, increment from move 1),
//! `40/5400:1800+30` (increment only in the second period).
//!
//! The standard has no delay, so touchmove writes and reads two extensions in
//! the place of `+increment`: `d5` is a 5 s simple (US) delay and `b5` a 5 s
//! Bronstein delay (`5400d5`). Sandclock fields (`*180`) are refused.
//! Fractions of a second (`1.5`, up to 3 decimals) are accepted and written
//! only when a time is not a whole number of seconds.
//!
//! # Short human form
//!
//! Minutes for the periods, seconds for the bonus, the bonus once at the end
//! and applying to every period from move 1:
//!
//! | form | meaning |
//! |---|---|
//! | `5+3` | 5 min, +3 s per move |
//! | `90+30` | 90 min, +30 s per move |
//! | `40/90,30+30` | 40 moves in 90 min, then 30 min for the rest, +30 s per move from move 1 |
//! | `120d5` | 120 min, 5 s simple (US) delay per move (the `d` of US Chess notation, `G/120;d5`) |
//! | `90b10` | 90 min, 10 s Bronstein delay per move |
//! | `0.5` | 30 s sudden death (minutes may have up to 3 decimals) |
//!
//! A bonus that differs between periods needs the PGN form.
//!
//! In both forms a last period with a move count (`40/120`, PGN `40/7200`)
//! repeats: every further block of that many moves brings the same time
//! again, as in the old "40 moves in 2 hours, then 20 in each hour" controls.
use std::fmt;
use std::num::NonZeroU32;

use thiserror::Error;

use crate::Millis;

/// Which kind of delay (Article 6.2b of the 2005 Laws, "time delay mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelayKind {
    /// Simple or US delay: the main time only starts to count down once the
    /// delay has run out; a press within the delay leaves it untouched.
    Simple,
    /// Bronstein delay: the clock counts down from the start of the turn, and
    /// at the press the time used is given back, at most the delay.
    Bronstein,
}

/// What a player gets with each move in a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bonus {
    /// Nothing: the period's time alone.
    None,
    /// Fischer increment, added to the mover's time after each press, from
    /// move 1. `Increment(0)` plays as [`Bonus::None`] and keeps the written
    /// form `300+0`.
    Increment(Millis),
    /// A delay of the given kind and length with every move.
    Delay { kind: DelayKind, ms: Millis },
}

impl Bonus {
    /// The delay, when this bonus is one.
    pub fn delay(self) -> Option<(DelayKind, Millis)> {
        match self {
            Bonus::Delay { kind, ms } => Some((kind, ms)),
            _ => None,
        }
    }
}

/// One period of a time control (Article 6.2a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Period {
    /// Moves to make in the period; `None`: all the remaining moves.
    pub moves: Option<NonZeroU32>,
    /// Time given for the period, added to what is left of the previous one.
    pub time_ms: Millis,
    /// Increment or delay with each move made in the period.
    pub bonus: Bonus,
}

impl Period {
    /// A period in which all the remaining moves must be made.
    pub(crate) fn rest_of_game(time_ms: Millis, bonus: Bonus) -> Period {
        Period {
            moves: None,
            time_ms,
            bonus,
        }
    }
}

/// A valid time control: at least one period, a move count on every period
/// but possibly the last, and some time to start with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TimeControl {
    periods: Vec<Period>,
}

/// Why a list of periods is not a time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum InvalidTimeControl {
    #[error("a time control needs at least one period")]
    NoPeriod,
    #[error(
        "period {0} has no move count, so it lasts the rest of the game and no period can follow it"
    )]
    PeriodAfterRestOfGame(usize),
    #[error("the first period gives no time, so the flag would fall at the start")]
    NoStartingTime,
    #[error("a delay of 0 s is no delay")]
    ZeroDelay,
}

impl TimeControl {
    /// Checks and builds a time control from its periods.
    pub fn new(periods: Vec<Period>) -> Result<TimeControl, InvalidTimeControl> {
        let Some(first) = periods.first() else {
            return Err(InvalidTimeControl::NoPeriod);
        };
        if let Some(i) = periods[..periods.len() - 1]
            .iter()
            .position(|p| p.moves.is_none())
        {
            return Err(InvalidTimeControl::PeriodAfterRestOfGame(i + 1));
        }
        if first.time_ms == 0 {
            return Err(InvalidTimeControl::NoStartingTime);
        }
        if periods
            .iter()
            .any(|p| matches!(p.bonus, Bonus::Delay { ms: 0, .. }))
        {
            return Err(InvalidTimeControl::ZeroDelay);
        }
        Ok(TimeControl { periods })
    }

    /// Sudden death with a bonus: one period for the whole game.
    pub fn single(time_ms: Millis, bonus: Bonus) -> Result<TimeControl, InvalidTimeControl> {
        TimeControl::new(vec![Period::rest_of_game(time_ms, bonus)])
    }

    /// The periods, in order.
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }

    /// Period number `index` (0-based) as played: past the end, the last
    /// period again (it repeats when it has a move count).
    pub fn period(&self, index: usize) -> &Period {
        &self.periods[index.min(self.periods.len() - 1)]
    }

    /// Whether period `index` is the one in which all the remaining moves must
    /// be made (Article 6.12b): the last period, when it has no move count.
    pub fn is_last_period(&self, index: usize) -> bool {
        index + 1 >= self.periods.len() && self.periods[self.periods.len() - 1].moves.is_none()
    }

    /// Which period (0-based) a side is in after completing `moves` moves,
    /// and how many of them were made in that period.
    pub fn period_after(&self, moves: u32) -> (usize, u32) {
        let mut index = 0;
        let mut left = moves;
        loop {
            match self.period(index).moves {
                Some(n) if left >= n.get() => {
                    left -= n.get();
                    index += 1;
                }
                _ => return (index, left),
            }
        }
    }

    /// Reads the PGN `TimeControl` tag form (see the module doc).
    pub fn parse_pgn(input: &str) -> Result<TimeControlTag, TimeControlError> {
        let text = input.trim();
        match text {
            "?" => return Ok(TimeControlTag::Unknown),
            "-" => return Ok(TimeControlTag::Untimed),
            "" => return Err(TimeControlError::new(input, "", ErrorKind::Empty)),
            _ => {}
        }
        let fields: Vec<&str> = text.split(':').collect();
        let mut periods = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            if field.is_empty() {
                return Err(TimeControlError::new(
                    input,
                    "",
                    ErrorKind::EmptyPeriod(i + 1),
                ));
            }
            if field.starts_with('*') {
                return Err(TimeControlError::new(input, field, ErrorKind::Sandclock));
            }
            let (main, bonus) = split_bonus(input, field)?;
            let bonus = parse_bonus(input, bonus)?;
            let (moves, time) = split_moves(input, main)?;
            let time_ms = parse_number(input, time, 1000, Unit::Seconds)?;
            periods.push(Period {
                moves,
                time_ms,
                bonus,
            });
        }
        TimeControl::checked(input, &fields, periods).map(TimeControlTag::Timed)
    }

    /// Reads the short human form (see the module doc): `90+30`,
    /// `40/90,30+30`, `120d5`, `90b10`.
    ///
    /// ```
    /// use touchmove_core::clock::{Bonus, TimeControl};
    ///
    /// // The classical control of many opens: 40 moves in 90 minutes,
    /// // then 30 minutes to the end, 30 seconds added from move one.
    /// let tc = TimeControl::parse_human("40/90,30+30").unwrap();
    /// assert_eq!(tc.periods().len(), 2);
    /// assert_eq!(tc.periods()[0].moves.map(|n| n.get()), Some(40));
    /// assert_eq!(tc.periods()[0].time_ms, 90 * 60 * 1000);
    /// assert_eq!(tc.periods()[1].bonus, Bonus::Increment(30_000));
    /// // The same in the PGN tag's form, and back.
    /// assert_eq!(tc.to_pgn(), "40/5400+30:1800+30");
    /// assert!(TimeControl::parse_human("40/90,").is_err());
    /// ```
    pub fn parse_human(input: &str) -> Result<TimeControl, TimeControlError> {
        let text = input.trim();
        if text.is_empty() {
            return Err(TimeControlError::new(input, "", ErrorKind::Empty));
        }
        let (main, bonus) = split_bonus(input, text)?;
        let bonus = parse_bonus(input, bonus)?;
        let fields: Vec<&str> = main.split(',').collect();
        let mut periods = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            if field.trim().is_empty() {
                return Err(TimeControlError::new(
                    input,
                    "",
                    ErrorKind::EmptyPeriod(i + 1),
                ));
            }
            let (moves, time) = split_moves(input, field.trim())?;
            let time_ms = parse_number(input, time, 60_000, Unit::Minutes)?;
            periods.push(Period {
                moves,
                time_ms,
                bonus,
            });
        }
        TimeControl::checked(input, &fields, periods)
    }

    fn checked(
        input: &str,
        fields: &[&str],
        periods: Vec<Period>,
    ) -> Result<TimeControl, TimeControlError> {
        TimeControl::new(periods).map_err(|e| {
            let part = match e {
                InvalidTimeControl::PeriodAfterRestOfGame(n) => fields[n - 1],
                InvalidTimeControl::NoStartingTime => fields[0],
                InvalidTimeControl::NoPeriod | InvalidTimeControl::ZeroDelay => input,
            };
            TimeControlError::new(input, part.trim(), ErrorKind::Invalid(e))
        })
    }

    /// The PGN `TimeControl` tag value: `40/5400+30:1800+30`.
    pub fn to_pgn(&self) -> String {
        let fields: Vec<String> = self
            .periods
            .iter()
            .map(|p| {
                let mut s = String::new();
                if let Some(n) = p.moves {
                    s.push_str(&format!("{n}/"));
                }
                s.push_str(&decimal(p.time_ms, 1000));
                s.push_str(&bonus_suffix(p.bonus));
                s
            })
            .collect();
        fields.join(":")
    }

    /// The short human form, when this control has one: all periods with the
    /// same bonus and every period a whole number of milliseconds per 1/1000
    /// minute. `None` otherwise (use [`TimeControl::to_pgn`]).
    pub fn to_human(&self) -> Option<String> {
        let bonus = self.periods[0].bonus;
        if self
            .periods
            .iter()
            .any(|p| p.bonus != bonus || !p.time_ms.is_multiple_of(60))
        {
            return None;
        }
        let fields: Vec<String> = self
            .periods
            .iter()
            .map(|p| match p.moves {
                Some(n) => format!("{n}/{}", decimal(p.time_ms, 60_000)),
                None => decimal(p.time_ms, 60_000),
            })
            .collect();
        Some(format!("{}{}", fields.join(","), bonus_suffix(bonus)))
    }
}

/// Plain words: "40 moves in 90 min, then 30 min for the rest of the game,
/// +30 s per move from move 1".
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let same_bonus = self
            .periods
            .iter()
            .all(|p| p.bonus == self.periods[0].bonus);
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(", then ")?;
            }
            match p.moves {
                Some(n) => write!(f, "{n} moves in {}", words(p.time_ms))?,
                None if self.periods.len() == 1 => write!(f, "{}", words(p.time_ms))?,
                None => write!(f, "{} for the rest of the game", words(p.time_ms))?,
            }
            if i + 1 == self.periods.len() && p.moves.is_some() {
                f.write_str(" (repeating)")?;
            }
            if !same_bonus && p.bonus != Bonus::None {
                write!(f, " ({})", bonus_words(p.bonus))?;
            }
        }
        if same_bonus && self.periods[0].bonus != Bonus::None {
            write!(f, ", {} from move 1", bonus_words(self.periods[0].bonus))?;
        }
        Ok(())
    }
}

/// The value of a PGN `TimeControl` tag.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TimeControlTag {
    /// `?`: not known.
    Unknown,
    /// `-`: played without a clock.
    Untimed,
    /// A time control.
    Timed(TimeControl),
}

impl TimeControlTag {
    /// The tag value, the inverse of [`TimeControl::parse_pgn`].
    pub fn to_pgn(&self) -> String {
        match self {
            TimeControlTag::Unknown => "?".to_owned(),
            TimeControlTag::Untimed => "-".to_owned(),
            TimeControlTag::Timed(tc) => tc.to_pgn(),
        }
    }
}

/// A time control string that could not be read, naming the wrong part:
/// `in "40/90,3x+30": "3x" is not a number of minutes`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.message())]
pub struct TimeControlError {
    /// The whole string given.
    pub input: String,
    /// The part that is wrong (empty when the part is missing).
    pub part: String,
    /// What is wrong with it.
    pub kind: ErrorKind,
}

/// What is wrong in a time control string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Nothing was given.
    Empty,
    /// The n-th period (1-based) is empty.
    EmptyPeriod(usize),
    /// The part should be a number of minutes.
    NotMinutes,
    /// The part should be a number of seconds.
    NotSeconds,
    /// The part should be a positive number of moves.
    NotMoves,
    /// The number does not fit.
    TooLarge,
    /// Nothing follows the bonus sign (`+`, `d`, `b`).
    MissingBonus(char),
    /// A PGN sandclock field (`*180`): not a chess clock control.
    Sandclock,
    /// The periods do not make a time control.
    Invalid(InvalidTimeControl),
}

impl TimeControlError {
    fn new(input: &str, part: &str, kind: ErrorKind) -> TimeControlError {
        TimeControlError {
            input: input.to_owned(),
            part: part.to_owned(),
            kind,
        }
    }

    fn message(&self) -> String {
        let (input, part) = (&self.input, &self.part);
        match self.kind {
            ErrorKind::Empty => "the time control is empty".to_owned(),
            ErrorKind::EmptyPeriod(n) => format!("in \"{input}\": period {n} is empty"),
            ErrorKind::NotMinutes => {
                format!("in \"{input}\": \"{part}\" is not a number of minutes")
            }
            ErrorKind::NotSeconds => {
                format!("in \"{input}\": \"{part}\" is not a number of seconds")
            }
            ErrorKind::NotMoves => format!(
                "in \"{input}\": \"{part}\" is not a number of moves (a whole number from 1)"
            ),
            ErrorKind::TooLarge => format!("in \"{input}\": \"{part}\" is too large"),
            ErrorKind::MissingBonus(sign) => {
                format!("in \"{input}\": \"{part}\" has no number of seconds after '{sign}'")
            }
            ErrorKind::Sandclock => format!(
                "in \"{input}\": \"{part}\" is a sandclock period, which a chess clock does not play"
            ),
            ErrorKind::Invalid(e) => format!("in \"{input}\": \"{part}\": {e}"),
        }
    }
}

#[derive(Clone, Copy)]
enum Unit {
    Minutes,
    Seconds,
}

/// The main part of a time control and its bonus sign and seconds.
type MainAndBonus<'a> = (&'a str, Option<(char, &'a str)>);

/// Splits `main[sign seconds]` at the bonus sign (`+`, `d` or `b`): the last
/// sign followed by nothing but a number, else the first sign preceded by
/// nothing but numbers, so that the error names the part a typo is in.
fn split_bonus<'a>(input: &str, text: &'a str) -> Result<MainAndBonus<'a>, TimeControlError> {
    let is_sign = |c: char| matches!(c, '+' | 'd' | 'b');
    let numeric = |s: &str, extra: &str| {
        s.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || extra.contains(c))
    };
    let signs: Vec<usize> = text
        .char_indices()
        .filter(|&(_, c)| is_sign(c))
        .map(|(i, _)| i)
        .collect();
    let at = signs
        .iter()
        .rev()
        .find(|&&i| numeric(&text[i + 1..], ""))
        .or_else(|| signs.iter().find(|&&i| numeric(&text[..i], "/,")));
    let Some(&at) = at else {
        return Ok((text, None));
    };
    // The signs are ASCII, one byte long.
    let sign = char::from(text.as_bytes()[at]);
    let rest = &text[at + 1..];
    if rest.is_empty() {
        return Err(TimeControlError::new(
            input,
            text,
            ErrorKind::MissingBonus(sign),
        ));
    }
    Ok((&text[..at], Some((sign, rest))))
}

fn parse_bonus(input: &str, bonus: Option<(char, &str)>) -> Result<Bonus, TimeControlError> {
    let Some((sign, seconds)) = bonus else {
        return Ok(Bonus::None);
    };
    let ms = parse_number(input, seconds, 1000, Unit::Seconds)?;
    Ok(match sign {
        'd' => Bonus::Delay {
            kind: DelayKind::Simple,
            ms,
        },
        'b' => Bonus::Delay {
            kind: DelayKind::Bronstein,
            ms,
        },
        _ => Bonus::Increment(ms),
    })
}

/// Splits `[moves/]time`.
fn split_moves<'a>(
    input: &str,
    text: &'a str,
) -> Result<(Option<NonZeroU32>, &'a str), TimeControlError> {
    let Some((moves, time)) = text.split_once('/') else {
        return Ok((None, text));
    };
    let bad = || TimeControlError::new(input, moves, ErrorKind::NotMoves);
    if moves.is_empty() || !moves.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u32 = moves
        .parse()
        .map_err(|_| TimeControlError::new(input, moves, ErrorKind::TooLarge))?;
    Ok((Some(NonZeroU32::new(n).ok_or_else(bad)?), time))
}

/// A decimal number (`90`, `1.5`, at most 3 decimals) times `unit_ms`.
fn parse_number(
    input: &str,
    text: &str,
    unit_ms: Millis,
    unit: Unit,
) -> Result<Millis, TimeControlError> {
    let not_number = || {
        let kind = match unit {
            Unit::Minutes => ErrorKind::NotMinutes,
            Unit::Seconds => ErrorKind::NotSeconds,
        };
        TimeControlError::new(input, text, kind)
    };
    let too_large = || TimeControlError::new(input, text, ErrorKind::TooLarge);
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(frac)
        || frac.len() > 3
        || (text.contains('.') && frac.is_empty())
    {
        return Err(not_number());
    }
    let whole: Millis = whole.parse().map_err(|_| too_large())?;
    let frac_thousandths: Millis = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<3}").parse().map_err(|_| not_number())?
    };
    whole
        .checked_mul(unit_ms)
        .and_then(|w| w.checked_add(frac_thousandths * unit_ms / 1000))
        .ok_or_else(too_large)
}

/// `ms` in units of `unit_ms`, with up to 3 decimals (exact for the times
/// this module writes).
fn decimal(ms: Millis, unit_ms: Millis) -> String {
    let whole = ms / unit_ms;
    let rest = ms % unit_ms;
    if rest == 0 {
        return whole.to_string();
    }
    let thousandths = rest * 1000 / unit_ms;
    let frac = format!("{thousandths:03}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

fn bonus_suffix(bonus: Bonus) -> String {
    match bonus {
        Bonus::None => String::new(),
        Bonus::Increment(ms) => format!("+{}", decimal(ms, 1000)),
        Bonus::Delay {
            kind: DelayKind::Simple,
            ms,
        } => format!("d{}", decimal(ms, 1000)),
        Bonus::Delay {
            kind: DelayKind::Bronstein,
            ms,
        } => format!("b{}", decimal(ms, 1000)),
    }
}

fn words(ms: Millis) -> String {
    if ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else {
        format!("{} s", decimal(ms, 1000))
    }
}

fn bonus_words(bonus: Bonus) -> String {
    match bonus {
        Bonus::None => "no bonus".to_owned(),
        Bonus::Increment(ms) => format!("+{} s per move", decimal(ms, 1000)),
        Bonus::Delay {
            kind: DelayKind::Simple,
            ms,
        } => format!("{} s simple delay per move", decimal(ms, 1000)),
        Bonus::Delay {
            kind: DelayKind::Bronstein,
            ms,
        } => format!("{} s Bronstein delay per move", decimal(ms, 1000)),
    }
}
