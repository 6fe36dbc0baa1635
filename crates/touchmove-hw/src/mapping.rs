//! Which square each sensor sits under.
//!
//! Every backend numbers its sensors `8 * row + column` (row and column of the
//! wiring, 0 to 7); a [`Mapping`] turns that sensor index into a square. A board
//! profile names one of the eight symmetries of the square ([`Orientation`]) or
//! gives an explicit table of 64 squares, checked to be a permutation.
use shakmaty::{Bitboard, File, Rank, Square};

/// The eight ways an 8×8 sensor grid can sit under the board.
///
/// With sensor column `x` and sensor row `y` (both 0–7), each names the square
/// sensor `(x, y)` reads, as `(file, rank)` with a = 0 and rank 1 = 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// Sensor (x, y) reads square (x, y): row 0 is rank 1, column 0 is file a.
    Identity,
    /// The board turned a quarter turn clockwise over the grid: (x, y) reads (7 − y, x).
    #[serde(rename = "rotate-90")]
    Rotate90,
    /// The board turned half a turn: (x, y) reads (7 − x, 7 − y).
    #[serde(rename = "rotate-180")]
    Rotate180,
    /// The board turned a quarter turn anticlockwise: (x, y) reads (y, 7 − x).
    #[serde(rename = "rotate-270")]
    Rotate270,
    /// Files mirrored (column 0 is file h): (x, y) reads (7 − x, y).
    MirrorFiles,
    /// Ranks mirrored (row 0 is rank 8): (x, y) reads (x, 7 − y).
    MirrorRanks,
    /// Mirrored about the a1–h8 diagonal (rows are files): (x, y) reads (y, x).
    Transpose,
    /// Mirrored about the a8–h1 diagonal: (x, y) reads (7 − y, 7 − x).
    AntiTranspose,
}

impl Orientation {
    /// All eight, in declaration order.
    pub const ALL: [Orientation; 8] = [
        Orientation::Identity,
        Orientation::Rotate90,
        Orientation::Rotate180,
        Orientation::Rotate270,
        Orientation::MirrorFiles,
        Orientation::MirrorRanks,
        Orientation::Transpose,
        Orientation::AntiTranspose,
    ];

    /// The name used in board profiles (`rotate-90`, `mirror-files`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Orientation::Identity => "identity",
            Orientation::Rotate90 => "rotate-90",
            Orientation::Rotate180 => "rotate-180",
            Orientation::Rotate270 => "rotate-270",
            Orientation::MirrorFiles => "mirror-files",
            Orientation::MirrorRanks => "mirror-ranks",
            Orientation::Transpose => "transpose",
            Orientation::AntiTranspose => "anti-transpose",
        }
    }

    /// The square that sensor column `x`, row `y` reads.
    pub fn square(self, x: u32, y: u32) -> Square {
        let (file, rank) = match self {
            Orientation::Identity => (x, y),
            Orientation::Rotate90 => (7 - y, x),
            Orientation::Rotate180 => (7 - x, 7 - y),
            Orientation::Rotate270 => (y, 7 - x),
            Orientation::MirrorFiles => (7 - x, y),
            Orientation::MirrorRanks => (x, 7 - y),
            Orientation::Transpose => (y, x),
            Orientation::AntiTranspose => (7 - y, 7 - x),
        };
        Square::from_coords(File::new(file), Rank::new(rank))
    }
}

/// Why a table of squares is not a mapping.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    #[error("has {0} entries, expected 64 (one square per sensor, sensor 0 first)")]
    WrongLength(usize),
    #[error("entry {index} is {text:?}, not a square name like \"e4\"")]
    NotASquare { index: usize, text: String },
    #[error(
        "square {square} appears at entries {first} and {second}; each square must appear exactly once"
    )]
    Duplicate {
        square: Square,
        first: usize,
        second: usize,
    },
}

/// From sensor index (0–63) to square: always a permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    square_of_sensor: [Square; 64],
    sensor_of_square: [u8; 64],
}

impl Mapping {
    /// The mapping of one of the eight symmetries.
    pub fn from_orientation(orientation: Orientation) -> Mapping {
        let table: [Square; 64] = std::array::from_fn(|i| {
            let i = i as u32;
            orientation.square(i % 8, i / 8)
        });
        Mapping::from_squares(&table).expect("every symmetry of the board is a permutation")
    }

    /// An explicit table: entry `i` is the square sensor `i` reads.
    pub fn from_squares(table: &[Square]) -> Result<Mapping, MappingError> {
        if table.len() != 64 {
            return Err(MappingError::WrongLength(table.len()));
        }
        let mut seen: [Option<usize>; 64] = [None; 64];
        let mut sensor_of_square = [0u8; 64];
        for (index, &square) in table.iter().enumerate() {
            if let Some(first) = seen[usize::from(square)] {
                return Err(MappingError::Duplicate {
                    square,
                    first,
                    second: index,
                });
            }
            seen[usize::from(square)] = Some(index);
            sensor_of_square[usize::from(square)] = index as u8;
        }
        let square_of_sensor = std::array::from_fn(|i| table[i]);
        Ok(Mapping {
            square_of_sensor,
            sensor_of_square,
        })
    }

    /// An explicit table of square names (`"a1"`, `"h8"`, ...).
    pub(crate) fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Mapping, MappingError> {
        if names.len() != 64 {
            return Err(MappingError::WrongLength(names.len()));
        }
        let squares = names
            .iter()
            .enumerate()
            .map(|(index, name)| {
                name.as_ref()
                    .parse::<Square>()
                    .map_err(|_| MappingError::NotASquare {
                        index,
                        text: name.as_ref().to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Mapping::from_squares(&squares)
    }

    /// The orientation this mapping is, if it is one of the eight.
    pub fn orientation(&self) -> Option<Orientation> {
        Orientation::ALL
            .into_iter()
            .find(|&o| Mapping::from_orientation(o) == *self)
    }

    /// The square sensor `sensor` (0–63) reads.
    pub fn square(&self, sensor: usize) -> Square {
        self.square_of_sensor[sensor]
    }

    /// The sensor under `square`.
    pub fn sensor(&self, square: Square) -> usize {
        usize::from(self.sensor_of_square[usize::from(square)])
    }

    /// Sensor bits (bit i = sensor i closed) to occupied squares.
    pub fn to_squares(&self, sensors: u64) -> Bitboard {
        let mut board = Bitboard::EMPTY;
        for (sensor, square) in self.square_of_sensor.iter().enumerate() {
            if sensors & (1 << sensor) != 0 {
                board.add(*square);
            }
        }
        board
    }

    /// Occupied squares to sensor bits: the inverse of [`Mapping::to_squares`].
    pub(crate) fn to_sensors(self, squares: Bitboard) -> u64 {
        squares
            .into_iter()
            .fold(0, |bits, square| bits | 1 << self.sensor(square))
    }

    /// Analog levels by sensor to levels by square.
    pub fn levels_to_squares(&self, by_sensor: &[i32; 64]) -> Box<[i32; 64]> {
        Box::new(std::array::from_fn(|square| {
            by_sensor[usize::from(self.sensor_of_square[square])]
        }))
    }

    /// Analog levels by square to levels by sensor: the inverse of
    /// [`Mapping::levels_to_squares`].
    pub(crate) fn levels_to_sensors(&self, by_square: &[i32; 64]) -> [i32; 64] {
        std::array::from_fn(|sensor| by_square[usize::from(self.square_of_sensor[sensor])])
    }
}

impl Default for Mapping {
    fn default() -> Mapping {
        Mapping::from_orientation(Orientation::Identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn corner_sensor_zero_reads_the_named_corner() {
        let expected = [
            (Orientation::Identity, "a1", "h8"),
            (Orientation::Rotate90, "h1", "a8"),
            (Orientation::Rotate180, "h8", "a1"),
            (Orientation::Rotate270, "a8", "h1"),
            (Orientation::MirrorFiles, "h1", "a8"),
            (Orientation::MirrorRanks, "a8", "h1"),
            (Orientation::Transpose, "a1", "h8"),
            (Orientation::AntiTranspose, "h8", "a1"),
        ];
        for (orientation, first, last) in expected {
            let mapping = Mapping::from_orientation(orientation);
            assert_eq!(mapping.square(0), sq(first), "{}", orientation.name());
            assert_eq!(mapping.square(63), sq(last), "{}", orientation.name());
        }
        // Sensor 1 (column 1, row 0) tells the pairs with equal corners apart.
        let second = |o| Mapping::from_orientation(o).square(1);
        assert_eq!(second(Orientation::Identity), sq("b1"));
        assert_eq!(second(Orientation::Transpose), sq("a2"));
        assert_eq!(second(Orientation::Rotate90), sq("h2"));
        assert_eq!(second(Orientation::MirrorFiles), sq("g1"));
    }

    #[test]
    fn the_eight_symmetries_are_distinct_permutations() {
        let mappings: Vec<_> = Orientation::ALL
            .iter()
            .map(|&o| Mapping::from_orientation(o))
            .collect();
        for (i, a) in mappings.iter().enumerate() {
            for b in &mappings[i + 1..] {
                assert_ne!(a, b);
            }
            for sensor in 0..64 {
                assert_eq!(a.sensor(a.square(sensor)), sensor);
            }
        }
    }

    #[test]
    fn a_table_must_be_a_permutation() {
        let mut names: Vec<String> = Square::ALL.iter().map(|s| s.to_string()).collect();
        assert!(Mapping::from_names(&names).is_ok());
        names[10] = "a1".into();
        assert_eq!(
            Mapping::from_names(&names),
            Err(MappingError::Duplicate {
                square: Square::A1,
                first: 0,
                second: 10
            })
        );
        names[10] = "z9".into();
        assert!(matches!(
            Mapping::from_names(&names),
            Err(MappingError::NotASquare { index: 10, .. })
        ));
        names.pop();
        assert_eq!(
            Mapping::from_names(&names),
            Err(MappingError::WrongLength(63))
        );
    }

    #[test]
    fn profiles_name_each_orientation_as_it_is_written() {
        #[derive(serde::Deserialize)]
        struct Named {
            orientation: Orientation,
        }
        for orientation in Orientation::ALL {
            let text = format!("orientation = \"{}\"", orientation.name());
            let named: Named = toml::from_str(&text).unwrap();
            assert_eq!(named.orientation, orientation, "{text}");
            assert_eq!(
                Mapping::from_orientation(orientation).orientation(),
                Some(orientation)
            );
        }
    }

    #[test]
    fn squares_and_sensors_round_trip() {
        let mapping = Mapping::from_orientation(Orientation::Rotate90);
        let board = Bitboard::from(Square::E2) | Bitboard::from(Square::H1);
        let sensors = mapping.to_sensors(board);
        assert_eq!(sensors.count_ones(), 2);
        assert_eq!(sensors & 1, 1, "h1 is under sensor 0 when rotated 90");
        assert_eq!(mapping.to_squares(sensors), board);
    }
}
