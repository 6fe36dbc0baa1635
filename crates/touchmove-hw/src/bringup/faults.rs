//! What the check finds, naming sensors by their wires and, once the
//! board's orientation is known, by the squares above them.
use std::fmt;

use shakmaty::Square;

use crate::mapping::Mapping;

/// A sensor by its wires: index `8 * row + column` as the profile numbers
/// them (`rows[row]`, `columns[column]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sensor(pub u8);

impl Sensor {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    pub fn row(self) -> u8 {
        self.0 / 8
    }
    pub fn column(self) -> u8 {
        self.0 % 8
    }
    /// `e4 (row 3, column 4)`: the square under `mapping`, and the wires.
    pub fn name(self, mapping: &Mapping) -> String {
        format!(
            "{} (row {}, column {})",
            mapping.square(self.index()),
            self.row(),
            self.column()
        )
    }
}

/// A list of sensors by their squares under `mapping`: `c3, e4`.
pub fn squares(sensors: &[Sensor], mapping: &Mapping) -> String {
    let mut names: Vec<Square> = sensors.iter().map(|s| mapping.square(s.index())).collect();
    names.sort();
    names
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One fault of the board.
#[derive(Debug, Clone, PartialEq)]
pub enum BoardFault {
    /// Reads occupied on the empty board (or never reads empty).
    Stuck { sensor: Sensor },
    /// Never reads a piece.
    Dead { sensor: Sensor },
    /// A dead square whose diode is reversed: it reads nothing itself and
    /// makes `ghosts` read occupied while a piece stands on its column.
    ReversedDiode { sensor: Sensor, ghosts: Vec<Sensor> },
    /// Squares that change together although one piece was moved: a missing
    /// diode (ghosting) or a short between wires.
    Together { sensors: Vec<Sensor> },
    /// A contact that toggles far faster than hands move pieces.
    Chatter { sensor: Sensor },
    /// The builder never lifted or placed a piece there during the walk.
    NotWalked { sensor: Sensor },
    /// A Hall sensor whose piece level is too close to its empty level.
    ThinMargin {
        sensor: Sensor,
        /// Margin in standard deviations ([`touchmove_core::filter::analog::margin`]).
        margin: f64,
        /// How far a piece moves it, and the board's median, in ADC counts.
        push: f64,
        median_push: f64,
    },
    /// A Hall sensor reading at the ADC's rail on the empty board.
    Railed { sensor: Sensor, level: i32 },
}

impl BoardFault {
    /// The sensors it names.
    pub fn sensors(&self) -> Vec<Sensor> {
        match self {
            BoardFault::Stuck { sensor }
            | BoardFault::Dead { sensor }
            | BoardFault::Chatter { sensor }
            | BoardFault::NotWalked { sensor }
            | BoardFault::ThinMargin { sensor, .. }
            | BoardFault::Railed { sensor, .. } => vec![*sensor],
            BoardFault::ReversedDiode { sensor, ghosts } => {
                let mut all = vec![*sensor];
                all.extend(ghosts);
                all
            }
            BoardFault::Together { sensors } => sensors.clone(),
        }
    }

    /// A short name of the kind: `stuck`, `dead`, `reversed-diode`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            BoardFault::Stuck { .. } => "stuck",
            BoardFault::Dead { .. } => "dead",
            BoardFault::ReversedDiode { .. } => "reversed-diode",
            BoardFault::Together { .. } => "together",
            BoardFault::Chatter { .. } => "chattering",
            BoardFault::NotWalked { .. } => "not-walked",
            BoardFault::ThinMargin { .. } => "thin-margin",
            BoardFault::Railed { .. } => "railed",
        }
    }

    /// One sentence naming the squares and the likely cause.
    pub fn describe(&self, mapping: &Mapping) -> String {
        match self {
            BoardFault::Stuck { sensor } => format!(
                "{} is stuck: it reads a piece on the empty board (a reed welded shut, \
                 its row and column wires touching, or a magnet left nearby)",
                sensor.name(mapping)
            ),
            BoardFault::Dead { sensor } => format!(
                "{} is dead: it never reads a piece (an open reed, a broken joint, or a \
                 Hall sensor without supply)",
                sensor.name(mapping)
            ),
            BoardFault::ReversedDiode { sensor, ghosts } => format!(
                "{} has its diode the wrong way round: it never reads its own piece, and \
                 a piece elsewhere on its column makes {} read occupied (ghosting); \
                 turn the diode so its cathode faces the row",
                sensor.name(mapping),
                squares(ghosts, mapping)
            ),
            BoardFault::Together { sensors } => format!(
                "{} change together when one piece moves: ghosting through a missing \
                 diode, or a short between their wires",
                squares(sensors, mapping)
            ),
            BoardFault::Chatter { sensor } => format!(
                "{} chatters: its contact toggles far faster than hands move pieces \
                 (a loose wire, a dying reed, or a sensor at its threshold)",
                sensor.name(mapping)
            ),
            BoardFault::NotWalked { sensor } => format!(
                "{} never changed during the walk: no piece was seen on it and off it \
                 again (not walked, or a dead sensor)",
                sensor.name(mapping)
            ),
            BoardFault::ThinMargin {
                sensor,
                margin,
                push,
                median_push,
            } => format!(
                "{}: a piece moves its Hall sensor {push:.0} counts, against a median of \
                 {median_push:.0} on this board (margin {margin:.1}σ): too thin to trust; \
                 bring the sensor closer to the magnet",
                sensor.name(mapping)
            ),
            BoardFault::Railed { sensor, level } => format!(
                "{} reads {level}, the ADC's rail, on the empty board: a shorted or \
                 unconnected Hall sensor",
                sensor.name(mapping)
            ),
        }
    }
}

/// Row or column wires that are swapped, as the check found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwappedWires {
    /// `row` or `column`.
    pub line: &'static str,
    /// Each displaced wire and what it reads (`rank 4`, `file c`).
    pub wires: Vec<(u8, String)>,
}

impl fmt::Display for SwappedWires {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let numbers: Vec<String> = self.wires.iter().map(|(w, _)| w.to_string()).collect();
        write!(
            f,
            "{} wires {} are swapped: ",
            self.line,
            numbers.join(" and ")
        )?;
        for (i, (wire, reads)) in self.wires.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}s[{wire}] reads {reads}", self.line)?;
        }
        Ok(())
    }
}
