//! Hall-sensor boards: per-square thresholds with hysteresis, from a
//! calibration profile.
//!
//! Every square has three measured levels — empty, a white piece, a black
//! piece — each a mean and a standard deviation (σ). Between the empty level
//! and each piece level lies a threshold with a hysteresis band around it: a
//! square enters a piece state when its reading passes the far edge of the
//! band and leaves it only when the reading falls back past the near edge,
//! so noise on a value near the threshold does not flicker.
//!
//! The *margin* of two levels is the distance between their means divided by
//! the sum of their standard deviations: the number of standard deviations
//! from each mean to the threshold [`fit`] places between them.
//!
//! When the magnets of white and black pieces are mounted with opposite
//! polarity, the white and black levels lie on opposite sides of the empty
//! level and the board tells colours apart; otherwise it only sees occupancy
//! (see [`Calibration::colour_from_polarity`]).
//!
//! Everything here is pure: reading the file is the caller's business
//! ([`Calibration::from_toml`] takes its text and its name).
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use serde::Deserialize;
use shakmaty::{Bitboard, Color, Square};

use super::Classify;
use crate::scan::Snapshot;

/// The version of the calibration file format this build reads and writes.
pub(crate) const FORMAT: u32 = 1;

/// The smallest standard deviation used in margins and thresholds, in ADC
/// counts: a perfectly steady integer reading is still only known to half a
/// count, and a zero σ would make every margin infinite.
pub const MIN_STD: f64 = 0.5;

/// A measured level: mean and standard deviation of the raw readings.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    pub mean: f64,
    pub std: f64,
}

impl Level {
    /// The standard deviation used for margins (at least [`MIN_STD`]).
    pub fn sigma(&self) -> f64 {
        self.std.max(MIN_STD)
    }
}

/// The level of a piece of one colour on a square, and the threshold (with
/// its hysteresis band, full width) between it and the empty level.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceLevel {
    pub mean: f64,
    pub std: f64,
    pub threshold: f64,
    pub hysteresis: f64,
}

impl PieceLevel {
    pub fn level(&self) -> Level {
        Level {
            mean: self.mean,
            std: self.std,
        }
    }
}

/// The calibration of one square.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquareCalibration {
    pub empty: Level,
    pub white: PieceLevel,
    pub black: PieceLevel,
}

/// A calibration profile: what [`AnalogClassifier`] needs to read a board.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The board profile this calibration belongs to.
    pub board: String,
    /// Whether the magnets' polarity tells a white piece from a black one.
    /// When false the classifier reports occupancy only.
    pub colour_from_polarity: bool,
    /// The margin, in standard deviations, the calibration was required to keep.
    pub margin_sigma: f64,
    /// Readings per step the levels were measured from.
    pub samples: u32,
    /// Per square, indexed by square (a1 = 0, h8 = 63).
    pub squares: [SquareCalibration; 64],
}

/// The margin of two levels: distance between the means over the sum of
/// the standard deviations.
pub fn margin(a: Level, b: Level) -> f64 {
    (a.mean - b.mean).abs() / (a.sigma() + b.sigma())
}

/// One thing wrong in a calibration file, at a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key path, e.g. `squares.e4.white.threshold` (empty for a
    /// syntax error, whose message says where).
    pub key: String,
    pub message: String,
}

/// A calibration file that cannot be used, with everything wrong in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CalibrationFileError {
    /// The file name (or what the text came from).
    pub origin: String,
    pub problems: Vec<Problem>,
}

impl fmt::Display for CalibrationFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            if problem.key.is_empty() {
                write!(f, "{}: {}", self.origin, problem.message)?;
            } else {
                write!(f, "{}: {}: {}", self.origin, problem.key, problem.message)?;
            }
        }
        Ok(())
    }
}

/// The file as written, before validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CalibrationFile {
    format: u32,
    board: String,
    colour_from_polarity: bool,
    margin_sigma: f64,
    samples: u32,
    squares: BTreeMap<String, SquareCalibration>,
}

impl Calibration {
    /// Reads a calibration profile from TOML text; `origin` (the file name)
    /// starts every error message. Every problem found is reported, each
    /// naming its key (and so its square).
    pub fn from_toml(text: &str, origin: &str) -> Result<Calibration, CalibrationFileError> {
        let fail = |problems| CalibrationFileError {
            origin: origin.to_string(),
            problems,
        };
        let file: CalibrationFile = toml::from_str(text).map_err(|err| {
            fail(vec![Problem {
                key: String::new(),
                message: err.to_string().trim_end().to_string(),
            }])
        })?;
        if file.format != FORMAT {
            return Err(fail(vec![Problem {
                key: "format".into(),
                message: format!(
                    "version {} is not supported (this build reads version {FORMAT})",
                    file.format
                ),
            }]));
        }
        let mut problems = Vec::new();
        let mut squares: [Option<SquareCalibration>; 64] = [None; 64];
        for (name, entry) in &file.squares {
            match name.parse::<Square>() {
                Ok(square) => squares[square.to_usize()] = Some(*entry),
                Err(_) => problems.push(Problem {
                    key: format!("squares.{name}"),
                    message: "not a square (a1 to h8)".into(),
                }),
            }
        }
        let missing: Vec<String> = Square::ALL
            .iter()
            .filter(|sq| squares[sq.to_usize()].is_none())
            .map(|sq| sq.to_string())
            .collect();
        if !missing.is_empty() {
            problems.push(Problem {
                key: "squares".into(),
                message: format!("no calibration for {}", missing.join(", ")),
            });
        }
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        let calibration = Calibration {
            board: file.board,
            colour_from_polarity: file.colour_from_polarity,
            margin_sigma: file.margin_sigma,
            samples: file.samples,
            squares: squares.map(|entry| entry.expect("every square checked present")),
        };
        let problems = calibration.problems();
        if problems.is_empty() {
            Ok(calibration)
        } else {
            Err(fail(problems))
        }
    }

    /// Everything that makes this calibration unusable (empty when it is sound).
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |key: String, message: String| problems.push(Problem { key, message });
        if self.board.trim().is_empty() {
            problem("board".into(), "names no board profile".into());
        }
        if !(self.margin_sigma.is_finite() && self.margin_sigma > 0.0) {
            problem(
                "margin_sigma".into(),
                format!("{} is not a positive number", self.margin_sigma),
            );
        }
        for square in Square::ALL {
            let entry = &self.squares[square.to_usize()];
            let key = format!("squares.{square}");
            let mut levels_ok = true;
            for (name, mean, std) in [
                ("empty", entry.empty.mean, entry.empty.std),
                ("white", entry.white.mean, entry.white.std),
                ("black", entry.black.mean, entry.black.std),
            ] {
                if !mean.is_finite() {
                    problem(
                        format!("{key}.{name}.mean"),
                        format!("{mean} is not a number"),
                    );
                    levels_ok = false;
                }
                if !(std.is_finite() && std >= 0.0) {
                    problem(
                        format!("{key}.{name}.std"),
                        format!("{std} is not a non-negative number"),
                    );
                    levels_ok = false;
                }
            }
            if !levels_ok {
                continue;
            }
            let empty = entry.empty.mean;
            for (name, piece) in [("white", entry.white), ("black", entry.black)] {
                let (low, high) = if piece.mean > empty {
                    (empty, piece.mean)
                } else {
                    (piece.mean, empty)
                };
                if piece.mean == empty {
                    problem(
                        format!("{key}.{name}.mean"),
                        format!("{} is the empty level itself", piece.mean),
                    );
                    continue;
                }
                if !(piece.threshold > low && piece.threshold < high) {
                    problem(
                        format!("{key}.{name}.threshold"),
                        format!(
                            "{} is not between the empty level {empty} and the {name} level {}",
                            piece.threshold, piece.mean
                        ),
                    );
                    continue;
                }
                let half = piece.hysteresis / 2.0;
                if !(piece.hysteresis.is_finite() && piece.hysteresis >= 0.0) {
                    problem(
                        format!("{key}.{name}.hysteresis"),
                        format!("{} is not a non-negative number", piece.hysteresis),
                    );
                } else if !(piece.threshold - half > low && piece.threshold + half < high) {
                    problem(
                        format!("{key}.{name}.hysteresis"),
                        format!(
                            "the band {} ± {half} reaches past the empty level {empty} or the {name} level {}",
                            piece.threshold, piece.mean
                        ),
                    );
                }
            }
            let white_up = entry.white.mean > empty;
            let black_up = entry.black.mean > empty;
            if self.colour_from_polarity && white_up == black_up {
                problem(
                    key.clone(),
                    format!(
                        "the white ({}) and black ({}) levels are on the same side of the empty level ({empty}), \
                         so polarity cannot tell colour (set colour_from_polarity = false, or calibrate again)",
                        entry.white.mean, entry.black.mean
                    ),
                );
            }
            if !self.colour_from_polarity && white_up != black_up {
                problem(
                    key.clone(),
                    format!(
                        "the white ({}) and black ({}) levels are on opposite sides of the empty level ({empty}) \
                         while colour_from_polarity = false",
                        entry.white.mean, entry.black.mean
                    ),
                );
            }
        }
        problems
    }

    /// The profile as TOML, in square order a1, b1, ..., h8.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# touchmove Hall-sensor calibration");
        let _ = writeln!(
            out,
            "# Levels in raw ADC counts; std = standard deviation; hysteresis = full width of the band."
        );
        let _ = writeln!(out, "format = {FORMAT}");
        let _ = writeln!(out, "board = {}", toml::Value::String(self.board.clone()));
        let _ = writeln!(out, "colour_from_polarity = {}", self.colour_from_polarity);
        let _ = writeln!(out, "margin_sigma = {:.3}", self.margin_sigma);
        let _ = writeln!(out, "samples = {}", self.samples);
        for square in Square::ALL {
            let entry = &self.squares[square.to_usize()];
            let _ = writeln!(out, "\n[squares.{square}]");
            let _ = writeln!(
                out,
                "empty = {{ mean = {:.3}, std = {:.3} }}",
                entry.empty.mean, entry.empty.std
            );
            for (name, piece) in [("white", entry.white), ("black", entry.black)] {
                let _ = writeln!(
                    out,
                    "{name} = {{ mean = {:.3}, std = {:.3}, threshold = {:.3}, hysteresis = {:.3} }}",
                    piece.mean, piece.std, piece.threshold, piece.hysteresis
                );
            }
        }
        out
    }

    /// The smallest margin on the board (between empty and either piece
    /// level) and where it is.
    pub fn thinnest(&self) -> (Square, f64) {
        Square::ALL
            .into_iter()
            .map(|square| {
                let entry = &self.squares[square.to_usize()];
                let m = margin(entry.empty, entry.white.level())
                    .min(margin(entry.empty, entry.black.level()));
                (square, m)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("64 squares")
    }
}

/// Running mean and standard deviation (Welford's method).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    count: u64,
    mean: f64,
    m2: f64,
}

impl Stats {
    pub fn push(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Mean and sample standard deviation; `None` before any value.
    pub fn level(&self) -> Option<Level> {
        match self.count {
            0 => None,
            1 => Some(Level {
                mean: self.mean,
                std: 0.0,
            }),
            n => Some(Level {
                mean: self.mean,
                std: (self.m2 / (n - 1) as f64).sqrt(),
            }),
        }
    }
}

/// The three levels measured on one square.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub empty: Level,
    pub white: Level,
    pub black: Level,
}

/// A square whose levels are too close to calibrate, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ThinSquare {
    pub square: Square,
    pub reasons: Vec<String>,
}

/// A refused calibration: the squares whose margins are too thin.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ThinMargins {
    pub min_margin: f64,
    pub squares: Vec<ThinSquare>,
}

impl ThinMargins {
    pub fn squares(&self) -> Bitboard {
        self.squares.iter().map(|thin| thin.square).collect()
    }
}

impl fmt::Display for ThinMargins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.squares.iter().map(|t| t.square.to_string()).collect();
        write!(
            f,
            "calibration refused: margins thinner than {}σ on {}",
            self.min_margin,
            names.join(", ")
        )?;
        for thin in &self.squares {
            write!(f, "\n  {}: {}", thin.square, thin.reasons.join("; "))?;
        }
        Ok(())
    }
}

/// Chooses every square's thresholds and hysteresis from measured levels,
/// or refuses when a margin is below `min_margin` standard deviations.
///
/// - The threshold between the empty level `e` and a piece level `p` sits
///   where both are the same number of their own standard deviations away:
///   `t = e + (p − e)·σe/(σe + σp)`, that number being the margin `m`.
/// - The hysteresis band keeps both means at least `(m + min_margin)/2 ≥
///   min_margin` standard deviations from its nearer edge: half-width
///   `(m − min_margin)/2 · min(σe, σp)`, but at most an eighth of `|p − e|`,
///   so that (with equal σ) a piece whose magnet is up to a third weaker
///   than the one measured still passes the band.
/// - Polarity: when white and black lie on opposite sides of empty on most
///   squares, colour is told by polarity and squares where they do not are
///   refused; otherwise the board reports occupancy, with one threshold
///   towards the nearer piece level (written for both colours), and squares
///   where they lie on opposite sides are refused.
pub fn fit(
    board: &str,
    measured: &[Measured; 64],
    min_margin: f64,
    samples: u32,
) -> Result<Calibration, ThinMargins> {
    let mut thin: Vec<ThinSquare> = Vec::new();
    let mut refuse = |square: Square, reason: String| match thin.last_mut() {
        Some(last) if last.square == square => last.reasons.push(reason),
        _ => thin.push(ThinSquare {
            square,
            reasons: vec![reason],
        }),
    };
    let mut opposite = 0;
    let mut same = 0;
    let mut sound = [false; 64];
    for square in Square::ALL {
        let m = &measured[square.to_usize()];
        let mut ok = true;
        for (name, piece) in [("white", m.white), ("black", m.black)] {
            let mg = margin(m.empty, piece);
            // A NaN margin (unmeasurable levels) is refused too.
            if mg.is_nan() || mg < min_margin {
                refuse(square, format!("{name} level within {mg:.1}σ of empty"));
                ok = false;
            }
        }
        if ok {
            sound[square.to_usize()] = true;
            if (m.white.mean > m.empty.mean) != (m.black.mean > m.empty.mean) {
                opposite += 1;
            } else {
                same += 1;
            }
        }
    }
    let polarity = opposite >= same;
    for square in Square::ALL {
        let m = &measured[square.to_usize()];
        if !sound[square.to_usize()] {
            continue;
        }
        let opposite_sides = (m.white.mean > m.empty.mean) != (m.black.mean > m.empty.mean);
        if polarity && !opposite_sides {
            refuse(
                square,
                "white and black levels on the same side of empty, while the rest of the board tells colour by polarity".into(),
            );
        } else if !polarity && opposite_sides {
            refuse(
                square,
                "white and black levels on opposite sides of empty, while the rest of the board has one polarity".into(),
            );
        }
    }
    if !thin.is_empty() {
        thin.sort_by_key(|t| t.square);
        return Err(ThinMargins {
            min_margin,
            squares: thin,
        });
    }
    let squares = Square::ALL.map(|square| {
        let m = measured[square.to_usize()];
        let piece = |level: Level| {
            let (threshold, hysteresis) = band(m.empty, level, min_margin);
            PieceLevel {
                mean: level.mean,
                std: level.std,
                threshold,
                hysteresis,
            }
        };
        if polarity {
            SquareCalibration {
                empty: m.empty,
                white: piece(m.white),
                black: piece(m.black),
            }
        } else {
            let nearer =
                if (m.white.mean - m.empty.mean).abs() <= (m.black.mean - m.empty.mean).abs() {
                    m.white
                } else {
                    m.black
                };
            let (threshold, hysteresis) = band(m.empty, nearer, min_margin);
            let with_band = |level: Level| PieceLevel {
                mean: level.mean,
                std: level.std,
                threshold,
                hysteresis,
            };
            SquareCalibration {
                empty: m.empty,
                white: with_band(m.white),
                black: with_band(m.black),
            }
        }
    });
    Ok(Calibration {
        board: board.to_string(),
        colour_from_polarity: polarity,
        margin_sigma: min_margin,
        samples,
        squares,
    })
}

/// Threshold and hysteresis (full width) between `empty` and `piece`; see [`fit`].
fn band(empty: Level, piece: Level, min_margin: f64) -> (f64, f64) {
    let (se, sp) = (empty.sigma(), piece.sigma());
    let distance = (piece.mean - empty.mean).abs();
    let threshold = empty.mean + (piece.mean - empty.mean) * se / (se + sp);
    let m = margin(empty, piece);
    let half = ((m - min_margin).max(0.0) / 2.0 * se.min(sp)).min(distance / 8.0);
    (threshold, 2.0 * half)
}

/// One side of a square's classification: the band between empty and a piece.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Band {
    threshold: f64,
    half: f64,
    /// +1 when the piece reads above empty, −1 below.
    toward: f64,
}

impl Band {
    fn new(empty: Level, piece: &PieceLevel) -> Band {
        Band {
            threshold: piece.threshold,
            half: piece.hysteresis / 2.0,
            toward: if piece.mean > empty.mean { 1.0 } else { -1.0 },
        }
    }

    /// The reading has passed the far edge of the band.
    fn enters(&self, value: f64) -> bool {
        self.toward * (value - self.threshold) >= self.half
    }

    /// The reading has not fallen back past the near edge.
    fn holds(&self, value: f64) -> bool {
        self.toward * (value - self.threshold) > -self.half
    }
}

/// How one square is read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SquareBands {
    /// Polarity tells colour: one band towards each.
    Colour { white: Band, black: Band },
    /// Occupancy only.
    Occupancy(Band),
}

/// Classifies raw Hall readings with a calibration's per-square thresholds
/// and hysteresis. Every square starts empty and keeps its state between
/// scans.
///
/// When the calibration does not tell colour ([`AnalogClassifier::tells_colour`]
/// is false), every occupied square is reported in [`Snapshot::white`] and
/// [`Snapshot::black`] stays empty.
#[derive(Debug, Clone)]
pub struct AnalogClassifier {
    bands: [SquareBands; 64],
    state: [Option<Color>; 64],
}

impl AnalogClassifier {
    pub fn new(calibration: &Calibration) -> AnalogClassifier {
        let bands = calibration.squares.map(|entry| {
            if calibration.colour_from_polarity {
                SquareBands::Colour {
                    white: Band::new(entry.empty, &entry.white),
                    black: Band::new(entry.empty, &entry.black),
                }
            } else {
                // Both colours carry the same band when written by `fit`;
                // a hand-edited file may differ, so take the one nearer empty.
                let white = Band::new(entry.empty, &entry.white);
                let black = Band::new(entry.empty, &entry.black);
                let nearer = if (white.threshold - entry.empty.mean).abs()
                    <= (black.threshold - entry.empty.mean).abs()
                {
                    white
                } else {
                    black
                };
                SquareBands::Occupancy(nearer)
            }
        });
        AnalogClassifier {
            bands,
            state: [None; 64],
        }
    }

    /// Whether the snapshots tell white from black.
    pub fn tells_colour(&self) -> bool {
        matches!(self.bands[0], SquareBands::Colour { .. })
    }

    /// Forgets every square's state (all empty).
    pub fn reset(&mut self) {
        self.state = [None; 64];
    }
}

impl Classify for AnalogClassifier {
    fn classify(&mut self, values: &[i32; 64]) -> Snapshot {
        let mut snapshot = Snapshot::default();
        for square in Square::ALL {
            let i = square.to_usize();
            let value = f64::from(values[i]);
            let next = match (self.bands[i], self.state[i]) {
                (SquareBands::Occupancy(band), None) => band.enters(value).then_some(Color::White),
                (SquareBands::Occupancy(band), Some(_)) => {
                    band.holds(value).then_some(Color::White)
                }
                (SquareBands::Colour { white, black }, state) => {
                    let stays = match state {
                        Some(Color::White) => white.holds(value),
                        Some(Color::Black) => black.holds(value),
                        None => false,
                    };
                    if stays {
                        state
                    } else if white.enters(value) {
                        Some(Color::White)
                    } else if black.enters(value) {
                        Some(Color::Black)
                    } else {
                        None
                    }
                }
            };
            self.state[i] = next;
            match next {
                Some(Color::White) => snapshot.white.add(square),
                Some(Color::Black) => snapshot.black.add(square),
                None => {}
            }
        }
        snapshot
    }

    fn tells_colour(&self) -> bool {
        AnalogClassifier::tells_colour(self)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Square::*;

    use super::*;

    fn level(mean: f64, std: f64) -> Level {
        Level { mean, std }
    }

    fn measured_board() -> [Measured; 64] {
        [Measured {
            empty: level(2000.0, 4.0),
            white: level(2300.0, 4.0),
            black: level(1700.0, 4.0),
        }; 64]
    }

    fn fitted() -> Calibration {
        fit("test-board", &measured_board(), 5.0, 100).unwrap()
    }

    #[test]
    fn fit_places_threshold_and_band_between_the_levels() {
        let cal = fitted();
        assert!(cal.colour_from_polarity);
        let e4 = cal.squares[E4.to_usize()];
        // Equal σ: the threshold is half-way.
        assert!((e4.white.threshold - 2150.0).abs() < 1e-9);
        assert!((e4.black.threshold - 1850.0).abs() < 1e-9);
        // Margin 300/8 = 37.5σ; half-band min((37.5-5)/2·4, 300/8) = 37.5.
        assert!((e4.white.hysteresis - 75.0).abs() < 1e-9);
        assert!(cal.problems().is_empty(), "{:?}", cal.problems());
    }

    #[test]
    fn the_band_keeps_the_required_margin_from_both_means() {
        let mut m = measured_board();
        m[A1.to_usize()] = Measured {
            empty: level(2000.0, 10.0),
            white: level(2140.0, 4.0),
            black: level(1860.0, 4.0),
        };
        let cal = fit("b", &m, 6.0, 100).unwrap();
        let a1 = cal.squares[A1.to_usize()];
        let near = a1.white.threshold - a1.white.hysteresis / 2.0;
        let far = a1.white.threshold + a1.white.hysteresis / 2.0;
        assert!((near - 2000.0) / 10.0 >= 6.0, "near edge {near}");
        assert!((2140.0 - far) / 4.0 >= 6.0, "far edge {far}");
    }

    #[test]
    fn fit_refuses_thin_margins_naming_the_squares() {
        let mut m = measured_board();
        m[E4.to_usize()].white = level(2003.0, 4.0);
        m[H7.to_usize()].black = level(1991.0, 4.0);
        let err = fit("b", &m, 5.0, 100).unwrap_err();
        assert_eq!(err.squares(), Bitboard::from(E4) | H7);
        let text = err.to_string();
        assert!(text.contains("on e4, h7"), "{text}");
        assert!(
            text.contains("e4: white level within 0.4σ of empty"),
            "{text}"
        );
        assert!(
            text.contains("h7: black level within 1.1σ of empty"),
            "{text}"
        );
    }

    #[test]
    fn fit_without_polarity_reads_occupancy() {
        let m = [Measured {
            empty: level(2000.0, 4.0),
            white: level(2300.0, 4.0),
            black: level(2250.0, 4.0),
        }; 64];
        let cal = fit("b", &m, 5.0, 100).unwrap();
        assert!(!cal.colour_from_polarity);
        assert_eq!(
            cal.squares[0].white.threshold,
            cal.squares[0].black.threshold
        );
        assert!(cal.problems().is_empty(), "{:?}", cal.problems());
        let mut classifier = AnalogClassifier::new(&cal);
        assert!(!classifier.tells_colour());
        let mut values = [2000; 64];
        values[E4.to_usize()] = 2250;
        values[D5.to_usize()] = 2300;
        let snap = classifier.classify(&values);
        assert_eq!(snap.white, Bitboard::from(E4) | D5);
        assert!(snap.black.is_empty());
    }

    #[test]
    fn a_square_against_the_boards_polarity_is_refused() {
        let mut m = measured_board();
        m[C3.to_usize()].black = level(2280.0, 4.0);
        let err = fit("b", &m, 5.0, 100).unwrap_err();
        assert_eq!(err.squares(), Bitboard::from(C3));
        assert!(err.to_string().contains("same side of empty"), "{err}");
    }

    #[test]
    fn hysteresis_holds_a_state_inside_the_band() {
        let cal = fitted();
        // White band: 2150 ± 37.5, so enter at ≥ 2187.5 and leave at ≤ 2112.5.
        let mut classifier = AnalogClassifier::new(&cal);
        let mut values = [2000; 64];
        let mut read = |v: i32| {
            values[E4.to_usize()] = v;
            let snap = classifier.classify(&values);
            if snap.white.contains(E4) {
                Some(Color::White)
            } else if snap.black.contains(E4) {
                Some(Color::Black)
            } else {
                None
            }
        };
        assert_eq!(read(2180), None, "inside the band, from empty");
        assert_eq!(read(2190), Some(Color::White));
        assert_eq!(read(2120), Some(Color::White), "inside the band, held");
        assert_eq!(read(2110), None);
        assert_eq!(read(1700), Some(Color::Black));
        assert_eq!(read(1880), Some(Color::Black), "inside the black band");
        assert_eq!(read(2300), Some(Color::White), "straight across");
    }

    #[test]
    fn a_profile_survives_toml() {
        let cal = fitted();
        let text = cal.to_toml();
        let back = Calibration::from_toml(&text, "x.toml").unwrap();
        assert_eq!(back, cal);
    }

    #[test]
    fn loading_names_file_key_and_square() {
        let text = fitted()
            .to_toml()
            .replacen(
                "[squares.e4]\nempty = { mean = 2000.000, std = 4.000 }\nwhite = { mean = 2300.000, std = 4.000, threshold = 2150.000",
                "[squares.e4]\nempty = { mean = 2000.000, std = 4.000 }\nwhite = { mean = 2300.000, std = 4.000, threshold = 2400.000",
                1,
            );
        let err = Calibration::from_toml(&text, "calibration/x.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "calibration/x.toml: squares.e4.white.threshold: 2400 is not between the empty level 2000 and the white level 2300"
        );
    }

    #[test]
    fn loading_reports_missing_squares_and_bad_names() {
        let text = fitted()
            .to_toml()
            .replace("[squares.h8]", "[squares.i9]")
            .replace("[squares.a2]", "[squares.a9]");
        let err = Calibration::from_toml(&text, "c.toml").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("c.toml: squares.a9: not a square"), "{text}");
        assert!(text.contains("c.toml: squares.i9: not a square"), "{text}");
        assert!(
            text.contains("c.toml: squares: no calibration for a2, h8"),
            "{text}"
        );
    }

    #[test]
    fn loading_refuses_polarity_that_cannot_tell_colour() {
        let text = fitted().to_toml().replace(
            "colour_from_polarity = true",
            "colour_from_polarity = false",
        );
        let err = Calibration::from_toml(&text, "c.toml").unwrap_err();
        assert_eq!(err.problems.len(), 64);
        assert!(err.to_string().starts_with(
            "c.toml: squares.a1: the white (2300) and black (1700) levels are on opposite sides"
        ));
    }

    #[test]
    fn loading_reports_syntax_and_unknown_keys_with_the_file_name() {
        let err =
            Calibration::from_toml("format = 1\nboard = \"x\"\nbogus = 3\n", "c.toml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("c.toml: "), "{text}");
        assert!(text.contains("bogus"), "{text}");
        let err = Calibration::from_toml(
            &fitted().to_toml().replace("format = 1", "format = 2"),
            "c.toml",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.toml: format: version 2 is not supported (this build reads version 1)"
        );
    }

    #[test]
    fn stats_give_mean_and_sample_deviation() {
        let mut stats = Stats::default();
        assert_eq!(stats.level(), None);
        for v in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            stats.push(v);
        }
        let level = stats.level().unwrap();
        assert!((level.mean - 5.0).abs() < 1e-12);
        assert!((level.std - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }
}
