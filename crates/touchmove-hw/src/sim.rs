//! The simulated board: a timeline of what physically stands where, turned
//! into occupancy scans or into the raw levels of a Hall-sensor board.
//!
//! A [`SimBoard`] is built from a timeline of [`Snapshot`]s, from a scripted
//! list of [`ScriptStep`]s, from the occupancy records of a [`Trace`], or
//! from a [`SimConfig`] (a position standing still). Its contents can also be
//! changed while it runs through [`SimHands`], the way a person rearranges
//! the pieces between the steps of a calibration.
//!
//! Analog output follows a [`AnalogModel`]: every square has its own offset,
//! gain and noise, and a piece adds `polarity * gain * strength` to the
//! offset (white pieces' magnets positive, black negative; with polarity off
//! both colours push the same way and the board cannot tell them apart).
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use shakmaty::{Bitboard, Board, Color, Square};

use super::gpio_matrix;
use super::hal::matrix_circuit::MatrixCircuit;
use super::mapping::{Mapping, Orientation};
use super::{Scan, Scanner, SensorError};
use touchmove_core::Millis;
use touchmove_core::scan::Snapshot;
use touchmove_core::trace::{Record, Trace};

/// How a simulated board is set up (the `[sim]` table of a board profile).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Produce analog (Hall) scans instead of occupancy.
    #[serde(default)]
    pub analog: bool,
    /// Seed of the simulated noise and offsets.
    #[serde(default)]
    pub seed: u64,
    /// The position standing on the board (FEN or X-FEN, only the placement
    /// part is used). Default: the standard starting position.
    #[serde(default)]
    pub position: Option<String>,
    /// Whether the magnets' polarity tells white from black (analog only).
    #[serde(default = "default_polarity")]
    pub polarity: bool,
    /// Typical standard deviation of the analog noise, in ADC counts.
    #[serde(default = "default_noise")]
    pub noise: f64,
    /// Dead sensors: squares that always read empty.
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub dead: Vec<Square>,
    /// Faults of the wiring and the sensors (`[sim.faults]`), for
    /// `touchmove board check` and its tests.
    #[serde(default)]
    pub faults: Box<SimFaults>,
    /// A file of hand commands the board follows while it runs (see
    /// [`HandsFile`]); relative to the profile's folder.
    #[serde(default)]
    pub hands: Option<PathBuf>,
    /// How the profile reads the sensors (its `orientation` or `squares`;
    /// identity when it gives neither). Set by the profile, not the table.
    #[serde(skip)]
    pub mapping: Box<Mapping>,
}

/// Faults of a simulated board, where they physically belong: the sensor
/// grid turned under the board, wires swapped at the header, diodes
/// missing or reversed in the switch matrix (read through the electrical
/// fake of [`crate::hal::matrix_circuit::MatrixCircuit`]), reeds stuck or
/// chattering, Hall sensors too far from their magnets.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SimFaults {
    /// How the sensor grid lies under the board: sensor `8 * row + column`
    /// of the grid sits under the square this orientation names.
    #[serde(default)]
    pub grid: Option<Orientation>,
    /// Pairs of row wires swapped at the header (rows 0 to 7).
    #[serde(default)]
    pub swap_rows: Vec<[u8; 2]>,
    /// Pairs of column wires swapped at the header (columns 0 to 7).
    #[serde(default)]
    pub swap_columns: Vec<[u8; 2]>,
    /// Reeds welded shut: these squares always read occupied.
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub stuck: Vec<Square>,
    /// Reeds with a failing contact: they read at random, scan after scan.
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub chatter: Vec<Square>,
    /// Switches whose diode is fitted the wrong way round.
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub reversed_diode: Vec<Square>,
    /// Switches whose diode is missing.
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub missing_diode: Vec<Square>,
    /// Hall sensors too far from their magnets: gain [`WEAK_GAIN`].
    #[serde(default, deserialize_with = "deserialize_squares")]
    pub weak: Vec<Square>,
    /// How long a reed bounces after a piece is put on or lifted from it.
    #[serde(default)]
    pub bounce_ms: Millis,
}

/// The gain of a weak Hall square (`[sim.faults] weak`): a third of the
/// typical gain of 0.7 to 1.3.
pub const WEAK_GAIN: f64 = 0.3;

impl SimFaults {
    fn is_none(&self) -> bool {
        *self == SimFaults::default()
    }
}

fn default_polarity() -> bool {
    true
}

fn default_noise() -> f64 {
    AnalogModel::DEFAULT_NOISE
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            analog: false,
            seed: 0,
            position: None,
            polarity: default_polarity(),
            noise: default_noise(),
            dead: Vec::new(),
            faults: Box::default(),
            hands: None,
            mapping: Box::default(),
        }
    }
}

fn deserialize_squares<'de, D>(deserializer: D) -> Result<Vec<Square>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let names = Vec::<String>::deserialize(deserializer)?;
    names
        .iter()
        .map(|name| {
            name.parse::<Square>().map_err(|_| {
                serde::de::Error::custom(format!("`{name}` is not a square (a1 to h8)"))
            })
        })
        .collect()
}

/// Opens a simulated board.
pub fn open(config: &SimConfig) -> Result<Box<dyn Scanner>, SensorError> {
    Ok(Box::new(build(config)?))
}

/// Builds the simulated board a [`SimConfig`] describes, keeping its type
/// (so that the caller can take its [`SimHands`]).
pub fn build(config: &SimConfig) -> Result<SimBoard, SensorError> {
    let position = match &config.position {
        None => Board::new(),
        Some(fen) => parse_placement(fen)
            .map_err(|err| SensorError::Unavailable(format!("sim.position: {err}")))?,
    };
    if !(config.noise.is_finite() && config.noise >= 0.0) {
        return Err(SensorError::Unavailable(format!(
            "sim.noise: {} is not a non-negative number of ADC counts",
            config.noise
        )));
    }
    let mut board = SimBoard::standing(Snapshot::of_board(&position));
    if config.analog {
        let mut model = AnalogModel::random(config.seed, config.noise, config.polarity);
        for square in &config.faults.weak {
            model.gains[square.to_usize()] = WEAK_GAIN;
        }
        board = board.with_hall(model, config.seed);
    }
    let dead = config.dead.iter().copied().collect::<Bitboard>();
    let mut board = board.with_dead(dead);
    if !config.faults.is_none() || *config.mapping != Mapping::default() {
        board.wiring = Some(Box::new(SimWiring::new(config)?));
    }
    if let Some(path) = &config.hands {
        board.hands_file = Some(HandsFile::new(path.clone()));
    }
    Ok(board)
}

/// The wiring between a simulated board's sensors and what the profile
/// reads: the grid under the board, the wires at the header, the switch
/// matrix with its diodes, and the profile's mapping.
#[derive(Debug)]
struct SimWiring {
    /// Sensor `8 * row + column` of the grid to the square above it.
    grid: Mapping,
    /// The profile's mapping, from the wires it reads to squares.
    read: Mapping,
    /// Row pin `i` of the profile reaches grid row `rows[i]`.
    rows: [usize; 8],
    /// Column pin `i` of the profile reaches grid column `columns[i]`.
    columns: [usize; 8],
    stuck: Bitboard,
    chatter: Bitboard,
    /// Grid sensors whose diode is missing / reversed.
    missing_diodes: u64,
    reversed_diodes: u64,
    bounce_ms: Millis,
    rng: Xoshiro256PlusPlus,
    /// What stood on the board at the previous scan, and when each square
    /// last changed (`Millis::MAX`: never), for the bounce.
    last: Bitboard,
    changed_at: [Millis; 64],
}

impl SimWiring {
    fn new(config: &SimConfig) -> Result<SimWiring, SensorError> {
        let faults = &config.faults;
        let grid = Mapping::from_orientation(faults.grid.unwrap_or(Orientation::Identity));
        let order = |pairs: &[[u8; 2]], key: &str| -> Result<[usize; 8], SensorError> {
            let mut order: [usize; 8] = std::array::from_fn(|i| i);
            for pair in pairs {
                let [a, b] = pair.map(usize::from);
                if a > 7 || b > 7 || a == b {
                    return Err(SensorError::Unavailable(format!(
                        "sim.faults.{key}: [{a}, {b}] is not a pair of two wires 0 to 7"
                    )));
                }
                order.swap(a, b);
            }
            Ok(order)
        };
        let sensors =
            |squares: &[Square]| grid.to_sensors(squares.iter().copied().collect::<Bitboard>());
        Ok(SimWiring {
            grid,
            read: *config.mapping,
            rows: order(&faults.swap_rows, "swap-rows")?,
            columns: order(&faults.swap_columns, "swap-columns")?,
            stuck: faults.stuck.iter().copied().collect(),
            chatter: faults.chatter.iter().copied().collect(),
            missing_diodes: sensors(&faults.missing_diode),
            reversed_diodes: sensors(&faults.reversed_diode),
            bounce_ms: faults.bounce_ms,
            rng: Xoshiro256PlusPlus::seed_from_u64(config.seed ^ 0x5bd1_e995),
            last: Bitboard::EMPTY,
            changed_at: [Millis::MAX; 64],
        })
    }

    /// The squares the profile reads when `occupied` stands on the board:
    /// the grid's switches read through the electrical fake of the matrix,
    /// its pins in the order the wires reach them.
    fn occupancy(&mut self, now: Millis, occupied: Bitboard) -> Result<Bitboard, SensorError> {
        for square in occupied ^ self.last {
            self.changed_at[square.to_usize()] = now;
        }
        self.last = occupied;
        let mut closed = occupied | self.stuck;
        let bouncing = Square::ALL.into_iter().filter(|square| {
            let since = self.changed_at[square.to_usize()];
            since != Millis::MAX && now.saturating_sub(since) < self.bounce_ms
        });
        for square in bouncing.collect::<Vec<_>>().into_iter().chain(self.chatter) {
            closed.set(square, self.rng.random::<bool>());
        }
        let matrix = MatrixCircuit::new(true);
        matrix.set_closed(self.grid.to_sensors(closed));
        matrix.set_diode_faults(self.missing_diodes, self.reversed_diodes);
        let mut rows = reorder(matrix.row_pins(), self.rows);
        let mut columns = reorder(matrix.column_pins(), self.columns);
        let wires = gpio_matrix::read_switches(&mut rows, &mut columns, &mut matrix.delay(), 0)?;
        Ok(self.read.to_squares(wires))
    }

    /// The levels the profile reads, from the levels of the squares.
    fn levels(&self, by_square: &[i32; 64]) -> Box<[i32; 64]> {
        let by_wire: [i32; 64] = std::array::from_fn(|wire| {
            let sensor = 8 * self.rows[wire / 8] + self.columns[wire % 8];
            by_square[self.grid.square(sensor).to_usize()]
        });
        self.read.levels_to_squares(&by_wire)
    }
}

/// Pins in the order the wires reach them: pin `i` is grid line `order[i]`.
fn reorder<P>(pins: [P; 8], order: [usize; 8]) -> [P; 8] {
    let mut pins = pins.map(Some);
    std::array::from_fn(|i| pins[order[i]].take().expect("order is a permutation"))
}

/// Why a simulated board could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("timeline entry {index}: time {t} is before the previous entry's {previous}")]
    TimeDecreases {
        index: usize,
        t: Millis,
        previous: Millis,
    },
    #[error("timeline entry {index}: {squares} hold both a white and a black piece")]
    BothColours { index: usize, squares: String },
    #[error("script step {step}: nothing stands on {square} to lift")]
    LiftEmpty { step: usize, square: Square },
    #[error("script step {step}: {square} is already occupied")]
    PlaceOccupied { step: usize, square: Square },
    #[error("start position `{fen}`: {reason}")]
    BadPosition { fen: String, reason: String },
    #[error(
        "trace record {index} is a hall scan: a simulated board replays occupancy records only"
    )]
    AnalogRecord { index: usize },
    #[error("trace record {index}: time {t} is before the previous record's {previous}")]
    TraceTimeDecreases {
        index: usize,
        t: Millis,
        previous: Millis,
    },
}

fn parse_placement(fen: &str) -> Result<Board, String> {
    let placement = fen.split_whitespace().next().unwrap_or("");
    Board::from_ascii_board_fen(placement.as_bytes()).map_err(|err| format!("`{fen}`: {err}"))
}

/// One step of a scripted simulation, applied in order from time 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptStep {
    /// Time passes.
    Wait(Millis),
    /// The piece on the square is lifted.
    Lift(Square),
    /// A piece of the colour is put on the (empty) square.
    Place(Square, Color),
    /// The whole board is set to this.
    Set(Snapshot),
}

/// How the raw levels of a simulated Hall-sensor board are made.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalogModel {
    /// The reading of each empty square.
    pub offsets: [f64; 64],
    /// Each sensor's sensitivity, multiplying `strength`.
    pub gains: [f64; 64],
    /// Standard deviation of each sensor's noise.
    pub noise: [f64; 64],
    /// How far a magnet moves a sensor of gain 1.
    pub strength: f64,
    /// Whether white and black magnets push opposite ways (white positive).
    pub polarity: bool,
}

impl AnalogModel {
    /// Mid-scale of a 12-bit ADC: the empty level of an ideal sensor.
    pub(crate) const MID_SCALE: f64 = 2048.0;
    /// Full scale of a 12-bit ADC; readings are clamped to `0..=FULL_SCALE`.
    pub const FULL_SCALE: i32 = 4095;
    pub const DEFAULT_NOISE: f64 = 4.0;
    pub(crate) const DEFAULT_STRENGTH: f64 = 400.0;

    /// A plausible board: offsets within ±150 counts of mid-scale, gains
    /// between 0.7 and 1.3, noise between 0.7 and 1.3 times `noise`; all
    /// drawn from `seed`.
    pub fn random(seed: u64, noise: f64, polarity: bool) -> AnalogModel {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6a09_e667_f3bc_c908);
        let mut model = AnalogModel {
            offsets: [0.0; 64],
            gains: [0.0; 64],
            noise: [0.0; 64],
            strength: Self::DEFAULT_STRENGTH,
            polarity,
        };
        for i in 0..64 {
            model.offsets[i] = Self::MID_SCALE + rng.random_range(-150.0..150.0);
            model.gains[i] = rng.random_range(0.7..1.3);
            model.noise[i] = noise * rng.random_range(0.7..1.3);
        }
        model
    }

    /// The noiseless level of a square holding `piece` (or nothing).
    pub fn expected(&self, square: Square, piece: Option<Color>) -> f64 {
        let i = square.to_usize();
        let push = match piece {
            None => 0.0,
            Some(Color::Black) if self.polarity => -1.0,
            Some(_) => 1.0,
        };
        self.offsets[i] + push * self.gains[i] * self.strength
    }
}

/// What a simulated board reports.
#[derive(Debug, Clone)]
enum Output {
    Occupancy,
    Analog {
        model: Box<AnalogModel>,
        rng: Xoshiro256PlusPlus,
    },
}

/// What stands on the board over time: sorted by time, never empty.
#[derive(Debug, Clone)]
struct Timeline(Vec<(Millis, Snapshot)>);

impl Timeline {
    /// The state at `now`: the last entry at or before `now`, or the first
    /// entry before it starts.
    fn at(&self, now: Millis) -> Snapshot {
        let after = self.0.partition_point(|(t, _)| *t <= now);
        self.0[after.saturating_sub(1)].1
    }
}

/// A simulated board; see the module documentation.
#[derive(Debug)]
pub struct SimBoard {
    contents: Arc<Mutex<Timeline>>,
    output: Output,
    dead: Bitboard,
    seed: Option<u64>,
    wiring: Option<Box<SimWiring>>,
    hands_file: Option<HandsFile>,
}

/// A handle that changes what stands on a [`SimBoard`] while it runs.
#[derive(Debug, Clone)]
pub struct SimHands(Arc<Mutex<Timeline>>);

impl SimHands {
    /// From now on the board holds `snapshot` (the timeline is replaced).
    pub fn set(&self, snapshot: Snapshot) {
        *lock(&self.0) = Timeline(vec![(0, snapshot)]);
    }
}

fn lock(contents: &Mutex<Timeline>) -> MutexGuard<'_, Timeline> {
    // A timeline is replaced whole, so a poisoned lock still guards a valid one.
    contents
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SimBoard {
    /// A board following `timeline` (times must not decrease; before the
    /// first entry the board holds the first entry; an empty timeline is an
    /// empty board). Occupancy output.
    pub fn new(timeline: Vec<(Millis, Snapshot)>) -> Result<SimBoard, SimError> {
        for (index, (t, snapshot)) in timeline.iter().enumerate() {
            if index > 0 && *t < timeline[index - 1].0 {
                return Err(SimError::TimeDecreases {
                    index,
                    t: *t,
                    previous: timeline[index - 1].0,
                });
            }
            let both = snapshot.white & snapshot.black;
            if both.any() {
                return Err(SimError::BothColours {
                    index,
                    squares: square_list(both),
                });
            }
        }
        let timeline = if timeline.is_empty() {
            vec![(0, Snapshot::default())]
        } else {
            timeline
        };
        Ok(SimBoard {
            contents: Arc::new(Mutex::new(Timeline(timeline))),
            output: Output::Occupancy,
            dead: Bitboard::EMPTY,
            seed: None,
            wiring: None,
            hands_file: None,
        })
    }

    /// A board on which `snapshot` stands still (a square given both colours
    /// holds the black piece). Occupancy output.
    pub fn standing(snapshot: Snapshot) -> SimBoard {
        let both = snapshot.white & snapshot.black;
        let snapshot = Snapshot {
            white: snapshot.white.without(both),
            black: snapshot.black,
        };
        SimBoard {
            contents: Arc::new(Mutex::new(Timeline(vec![(0, snapshot)]))),
            output: Output::Occupancy,
            dead: Bitboard::EMPTY,
            seed: None,
            wiring: None,
            hands_file: None,
        }
    }

    /// A board playing `steps` from `start` at time 0. Occupancy output.
    pub fn scripted(start: Snapshot, steps: &[ScriptStep]) -> Result<SimBoard, SimError> {
        let mut now = 0;
        let mut state = start;
        let mut timeline = vec![(0, start)];
        for (step, action) in steps.iter().enumerate() {
            match *action {
                ScriptStep::Wait(ms) => {
                    now += ms;
                    continue;
                }
                ScriptStep::Lift(square) => {
                    if !state.occupied().contains(square) {
                        return Err(SimError::LiftEmpty { step, square });
                    }
                    state.white.discard(square);
                    state.black.discard(square);
                }
                ScriptStep::Place(square, color) => {
                    if state.occupied().contains(square) {
                        return Err(SimError::PlaceOccupied { step, square });
                    }
                    match color {
                        Color::White => state.white.add(square),
                        Color::Black => state.black.add(square),
                    }
                }
                ScriptStep::Set(snapshot) => state = snapshot,
            }
            timeline.push((now, state));
        }
        SimBoard::new(timeline)
    }

    /// A board replaying the occupancy records of `trace` (clock and
    /// promotion records are skipped; hall records are refused).
    ///
    /// Occupancy does not say which colour a piece has, so colours are
    /// followed from the starting position (`start-fen`, default the standard
    /// start) with a model of hands: a lifted piece is held; a piece put on a
    /// square is the one most recently lifted, except that when the piece
    /// lifted from that very square is held together with a piece of the other
    /// colour, it is a capture and the capturing (other-coloured) piece is the
    /// one put down while the captured one leaves the hand. A piece that
    /// appears with nothing held takes the colour of the last piece lifted
    /// (white if none was).
    pub fn from_trace(trace: &Trace) -> Result<SimBoard, SimError> {
        let board = match &trace.header.start_fen {
            None => Board::new(),
            Some(fen) => parse_placement(fen).map_err(|reason| SimError::BadPosition {
                fen: fen.clone(),
                reason,
            })?,
        };
        let mut state = Snapshot::of_board(&board);
        let mut hand: Vec<(Color, Square)> = Vec::new();
        let mut last_lifted = Color::White;
        let mut timeline = vec![(0, state)];
        let mut previous_t = 0;
        for (index, record) in trace.records.iter().enumerate() {
            if record.t < previous_t {
                return Err(SimError::TraceTimeDecreases {
                    index,
                    t: record.t,
                    previous: previous_t,
                });
            }
            previous_t = record.t;
            let occupancy = match &record.record {
                Record::Occupancy(bb) => *bb,
                Record::Analog(_) => return Err(SimError::AnalogRecord { index }),
                Record::Clock(_) | Record::Promote(_) => continue,
            };
            for square in state.occupied().without(occupancy) {
                let color = if state.white.contains(square) {
                    Color::White
                } else {
                    Color::Black
                };
                state.white.discard(square);
                state.black.discard(square);
                hand.push((color, square));
                last_lifted = color;
            }
            for square in occupancy.without(state.occupied()) {
                let color = put_down(&mut hand, square).unwrap_or(last_lifted);
                match color {
                    Color::White => state.white.add(square),
                    Color::Black => state.black.add(square),
                }
            }
            timeline.push((record.t, state));
        }
        SimBoard::new(timeline)
    }

    /// Makes the board report analog levels following `model`, with noise
    /// drawn from `seed`.
    pub fn with_hall(mut self, model: AnalogModel, seed: u64) -> SimBoard {
        self.output = Output::Analog {
            model: Box::new(model),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        };
        self.seed = Some(seed);
        self
    }

    /// Makes the sensors under `squares` dead: they always read empty (an
    /// analog one reads its empty level, with its noise).
    pub fn with_dead(mut self, squares: Bitboard) -> SimBoard {
        self.dead = squares;
        self
    }

    /// A handle that changes the board's contents while it runs.
    pub fn hands(&self) -> SimHands {
        SimHands(Arc::clone(&self.contents))
    }

    /// What physically stands on the board at `now`.
    pub(crate) fn contents_at(&self, now: Millis) -> Snapshot {
        lock(&self.contents).at(now)
    }

    /// The Hall model of an analog board.
    pub fn hall_model(&self) -> Option<&AnalogModel> {
        match &self.output {
            Output::Occupancy => None,
            Output::Analog { model, .. } => Some(model),
        }
    }
}

/// The builder's hands of a simulated board, from a file (`[sim] hands`):
/// each line appended to it is a command, followed from the scan that first
/// sees it. A test (or a person at another terminal) writes the file while
/// `touchmove board check` or the daemon reads the board:
///
/// - `empty`: every piece off the board; `start`: the starting position;
///   `fen PLACEMENT`: that position;
/// - `lift SQUARE`: the piece on it is lifted; `place SQUARE [white|black]`:
///   a piece (white by default) is put on it;
/// - `wait MS`: the commands after it follow that much later;
/// - blank lines and lines starting with `#` are skipped.
#[derive(Debug)]
pub struct HandsFile {
    path: PathBuf,
    /// Bytes of the file already read, and an incomplete last line.
    read: u64,
    partial: String,
    lines: usize,
    /// Commands read but not yet due, with their time.
    queue: std::collections::VecDeque<(Millis, HandCommand)>,
    /// When the last queued command is due.
    cursor: Millis,
}

/// One command of a [`HandsFile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HandCommand {
    Set(Snapshot),
    Lift(Square),
    Place(Square, Color),
    Wait(Millis),
}

impl HandsFile {
    fn new(path: PathBuf) -> HandsFile {
        HandsFile {
            path,
            read: 0,
            partial: String::new(),
            lines: 0,
            queue: Default::default(),
            cursor: 0,
        }
    }

    /// Reads what was appended, and applies the commands due at `now` to
    /// `contents`: the new contents if anything changed.
    fn follow(&mut self, now: Millis, contents: Snapshot) -> Result<Option<Snapshot>, SensorError> {
        use std::io::{Read, Seek, SeekFrom};
        let who = |e: &dyn std::fmt::Display| {
            SensorError::Io(format!("sim.hands {}: {e}", self.path.display()))
        };
        let mut text = String::new();
        match std::fs::File::open(&self.path) {
            Ok(mut file) => {
                file.seek(SeekFrom::Start(self.read)).map_err(|e| who(&e))?;
                let n = file.read_to_string(&mut text).map_err(|e| who(&e))?;
                self.read += n as u64;
            }
            // Not written yet: nothing to follow.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(who(&e)),
        }
        self.partial.push_str(&text);
        self.cursor = self.cursor.max(now);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            self.lines += 1;
            let command = parse_hand_command(line.trim()).map_err(|e| {
                SensorError::Io(format!(
                    "sim.hands {} line {}: {e}",
                    self.path.display(),
                    self.lines
                ))
            })?;
            match command {
                None => {}
                Some(HandCommand::Wait(ms)) => self.cursor += ms,
                Some(command) => self.queue.push_back((self.cursor, command)),
            }
        }
        let mut state = contents;
        let mut changed = false;
        while let Some(&(due, command)) = self.queue.front() {
            if due > now {
                break;
            }
            self.queue.pop_front();
            changed = true;
            match command {
                HandCommand::Set(snapshot) => state = snapshot,
                HandCommand::Lift(square) => {
                    state.white.discard(square);
                    state.black.discard(square);
                }
                HandCommand::Place(square, color) => {
                    state.white.discard(square);
                    state.black.discard(square);
                    match color {
                        Color::White => state.white.add(square),
                        Color::Black => state.black.add(square),
                    }
                }
                HandCommand::Wait(_) => {}
            }
        }
        Ok(changed.then_some(state))
    }
}

fn parse_hand_command(line: &str) -> Result<Option<HandCommand>, String> {
    let mut words = line.split_whitespace();
    let Some(verb) = words.next().filter(|w| !w.starts_with('#')) else {
        return Ok(None);
    };
    let square = |word: Option<&str>| -> Result<Square, String> {
        let word = word.ok_or_else(|| format!("`{verb}` needs a square"))?;
        word.parse()
            .map_err(|_| format!("`{word}` is not a square (a1 to h8)"))
    };
    let command = match verb {
        "empty" => HandCommand::Set(Snapshot::default()),
        "start" => HandCommand::Set(Snapshot::of_board(&Board::new())),
        "fen" => {
            let fen = words.next().ok_or("`fen` needs a placement")?;
            HandCommand::Set(Snapshot::of_board(&parse_placement(fen)?))
        }
        "lift" => HandCommand::Lift(square(words.next())?),
        "place" => {
            let square = square(words.next())?;
            let color = match words.next() {
                None | Some("white") => Color::White,
                Some("black") => Color::Black,
                Some(other) => return Err(format!("`{other}` is not white or black")),
            };
            HandCommand::Place(square, color)
        }
        "wait" => HandCommand::Wait(
            words
                .next()
                .and_then(|w| w.parse().ok())
                .ok_or("`wait` needs a number of milliseconds")?,
        ),
        other => {
            return Err(format!(
                "`{other}` is not a command (empty, start, fen, lift, place, wait)"
            ));
        }
    };
    if let Some(extra) = words.next() {
        return Err(format!("`{extra}` after `{verb}` is not understood"));
    }
    Ok(Some(command))
}

/// Takes the piece put down on `square` out of the hand (see
/// [`SimBoard::from_trace`]) and returns its colour.
fn put_down(hand: &mut Vec<(Color, Square)>, square: Square) -> Option<Color> {
    let from_here = hand.iter().rposition(|&(_, from)| from == square);
    if let Some(here) = from_here {
        let captured = hand[here].0;
        if let Some(capturer) = hand
            .iter()
            .rposition(|&(color, from)| from != square && color != captured)
        {
            let color = hand[capturer].0;
            hand.remove(here.max(capturer));
            hand.remove(here.min(capturer));
            return Some(color);
        }
        return Some(hand.remove(here).0);
    }
    hand.pop().map(|(color, _)| color)
}

fn square_list(squares: Bitboard) -> String {
    squares
        .into_iter()
        .map(|sq| sq.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A standard normal deviate (Box–Muller).
fn standard_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // in (0, 1]
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl Scanner for SimBoard {
    fn describe(&self) -> String {
        let mut text = match &self.output {
            Output::Occupancy => "simulated board (occupancy)".to_string(),
            Output::Analog { model, .. } => format!(
                "simulated board (analog Hall, seed {}, {})",
                self.seed.unwrap_or_default(),
                if model.polarity {
                    "polarity tells colour"
                } else {
                    "no polarity"
                }
            ),
        };
        if self.dead.any() {
            text.push_str(&format!(", dead sensors {}", square_list(self.dead)));
        }
        if self.wiring.is_some() {
            text.push_str(", simulated wiring faults");
        }
        if let Some(file) = &self.hands_file {
            text.push_str(&format!(", hands from {}", file.path.display()));
        }
        text
    }

    fn scan(&mut self, now: Millis) -> Result<Scan, SensorError> {
        let before = self.contents_at(now);
        if let Some(file) = &mut self.hands_file
            && let Some(snapshot) = file.follow(now, before)?
        {
            *lock(&self.contents) = Timeline(vec![(0, snapshot)]);
        }
        let contents = self.contents_at(now);
        let live = !self.dead;
        match &mut self.output {
            Output::Occupancy => match &mut self.wiring {
                Some(wiring) => Ok(Scan::Occupancy(
                    wiring.occupancy(now, contents.occupied() & live)?,
                )),
                None => Ok(Scan::Occupancy(contents.occupied() & live)),
            },
            Output::Analog { model, rng } => {
                let mut values = Box::new([0i32; 64]);
                for square in Square::ALL {
                    let piece = if !live.contains(square) {
                        None
                    } else if contents.white.contains(square) {
                        Some(Color::White)
                    } else if contents.black.contains(square) {
                        Some(Color::Black)
                    } else {
                        None
                    };
                    let noise = model.noise[square.to_usize()] * standard_normal(rng);
                    let level = (model.expected(square, piece) + noise).round();
                    values[square.to_usize()] = (level as i32).clamp(0, AnalogModel::FULL_SCALE);
                }
                match &self.wiring {
                    Some(wiring) => Ok(Scan::Analog(wiring.levels(&values))),
                    None => Ok(Scan::Analog(values)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Square::*;

    use super::*;
    use touchmove_core::trace::{Header, TimedRecord};

    fn start() -> Snapshot {
        Snapshot::of_board(&Board::new())
    }

    fn occupancy(board: &mut SimBoard, now: Millis) -> Bitboard {
        match board.scan(now).unwrap() {
            Scan::Occupancy(bb) => bb,
            Scan::Analog(_) => panic!("expected occupancy"),
        }
    }

    #[test]
    fn a_timeline_is_followed_in_time() {
        let mut after = start();
        after.white.discard(E2);
        after.white.add(E4);
        let mut board = SimBoard::new(vec![(100, start()), (500, after)]).unwrap();
        assert_eq!(occupancy(&mut board, 0), start().occupied());
        assert_eq!(occupancy(&mut board, 499), start().occupied());
        assert_eq!(occupancy(&mut board, 500), after.occupied());
        assert_eq!(occupancy(&mut board, 10_000), after.occupied());
    }

    #[test]
    fn a_timeline_going_back_in_time_is_refused() {
        let err = SimBoard::new(vec![(100, start()), (50, start())]).unwrap_err();
        assert_eq!(
            err,
            SimError::TimeDecreases {
                index: 1,
                t: 50,
                previous: 100
            }
        );
    }

    #[test]
    fn a_script_lifts_and_places_pieces() {
        let mut board = SimBoard::scripted(
            start(),
            &[
                ScriptStep::Wait(1000),
                ScriptStep::Lift(E2),
                ScriptStep::Wait(300),
                ScriptStep::Place(E4, Color::White),
            ],
        )
        .unwrap();
        assert!(board.contents_at(999).white.contains(E2));
        assert!(!board.contents_at(1000).occupied().contains(E2));
        assert!(!board.contents_at(1299).occupied().contains(E4));
        assert!(board.contents_at(1300).white.contains(E4));
        assert!(!occupancy(&mut board, 1300).contains(E2));
    }

    #[test]
    fn a_script_placing_on_an_occupied_square_is_refused() {
        let err = SimBoard::scripted(start(), &[ScriptStep::Place(E1, Color::White)]).unwrap_err();
        assert_eq!(err.to_string(), "script step 0: e1 is already occupied");
    }

    #[test]
    fn dead_sensors_read_empty() {
        let mut board = SimBoard::standing(start()).with_dead(Bitboard::from(E2) | E7);
        let bb = occupancy(&mut board, 0);
        assert!(!bb.contains(E2) && !bb.contains(E7));
        assert_eq!(bb.count(), 30);
    }

    #[test]
    fn analog_levels_follow_the_model_and_polarity() {
        let model = AnalogModel::random(3, 2.0, true);
        let mut board = SimBoard::standing(start()).with_hall(model.clone(), 3);
        let mut sums = [0.0f64; 64];
        let n = 400;
        for t in 0..n {
            let Scan::Analog(values) = board.scan(t).unwrap() else {
                panic!("expected analog");
            };
            for (sum, v) in sums.iter_mut().zip(values.iter()) {
                *sum += f64::from(*v);
            }
        }
        for square in Square::ALL {
            let mean = sums[square.to_usize()] / n as f64;
            let piece = start().occupied().contains(square).then(|| {
                if start().white.contains(square) {
                    Color::White
                } else {
                    Color::Black
                }
            });
            let expected = model.expected(square, piece);
            assert!(
                (mean - expected).abs() < 1.0,
                "{square}: mean {mean} expected {expected}"
            );
            let offset = model.offsets[square.to_usize()];
            match piece {
                Some(Color::White) => assert!(mean > offset + 200.0),
                Some(Color::Black) => assert!(mean < offset - 200.0),
                None => {}
            }
        }
    }

    #[test]
    fn without_polarity_both_colours_push_the_same_way() {
        let model = AnalogModel::random(5, 2.0, false);
        assert!(model.expected(E8, Some(Color::Black)) > model.offsets[E8.to_usize()] + 200.0);
        assert!(model.expected(E1, Some(Color::White)) > model.offsets[E1.to_usize()] + 200.0);
    }

    #[test]
    fn the_same_seed_gives_the_same_scans() {
        let mut a = build(&SimConfig {
            analog: true,
            seed: 9,
            ..SimConfig::default()
        })
        .unwrap();
        let mut b = build(&SimConfig {
            analog: true,
            seed: 9,
            ..SimConfig::default()
        })
        .unwrap();
        for t in 0..5 {
            assert_eq!(a.scan(t).unwrap(), b.scan(t).unwrap());
        }
    }

    #[test]
    fn hands_change_the_contents() {
        let mut board = SimBoard::standing(start());
        board.hands().set(Snapshot::default());
        assert_eq!(occupancy(&mut board, 0), Bitboard::EMPTY);
    }

    #[test]
    fn config_reads_from_toml_with_defaults() {
        let config: SimConfig = toml::from_str("analog = true\ndead = [\"e4\", \"h7\"]").unwrap();
        assert!(config.analog && config.polarity);
        assert_eq!(config.noise, AnalogModel::DEFAULT_NOISE);
        assert_eq!(config.dead, vec![E4, H7]);
        let err = toml::from_str::<SimConfig>("dead = [\"z9\"]").unwrap_err();
        assert!(err.to_string().contains("`z9` is not a square"), "{err}");
    }

    #[test]
    fn config_with_a_bad_position_names_it() {
        let err = build(&SimConfig {
            position: Some("rnbqkbnr/pppppppp/9 w".into()),
            ..SimConfig::default()
        })
        .unwrap_err();
        assert!(err.to_string().starts_with("sim.position: "), "{err}");
    }

    fn trace(records: &[(Millis, u64)]) -> Trace {
        Trace {
            header: Header::default(),
            records: records
                .iter()
                .map(|&(t, occ)| TimedRecord {
                    t,
                    record: Record::Occupancy(Bitboard(occ)),
                })
                .collect(),
        }
    }

    #[test]
    fn a_trace_is_replayed_with_colours_followed() {
        // 1. e4 d5 2. exd5, the captured pawn lifted after the capturing one.
        let board = SimBoard::from_trace(&trace(&[
            (0, 0xFFFF_0000_0000_FFFF),
            (1000, 0xFFFF_0000_0000_EFFF),
            (1500, 0xFFFF_0000_1000_EFFF),
            (3000, 0xFFF7_0000_1000_EFFF),
            (3500, 0xFFF7_0008_1000_EFFF),
            (5000, 0xFFF7_0008_0000_EFFF),
            (5200, 0xFFF7_0000_0000_EFFF),
            (5600, 0xFFF7_0008_0000_EFFF),
        ]))
        .unwrap();
        let end = board.contents_at(6000);
        assert!(end.white.contains(D5), "{end:?}");
        assert!(!end.black.contains(D5));
        assert!(end.white.contains(D1) && end.black.contains(D8));
        assert_eq!(end.white.count(), 16);
        assert_eq!(end.black.count(), 15);
    }

    #[test]
    fn a_trace_capture_with_the_captured_piece_lifted_first() {
        // 1. e4 d5, then the d5 pawn is lifted first and the e4 pawn takes it.
        let board = SimBoard::from_trace(&trace(&[
            (0, 0xFFFF_0000_0000_FFFF),
            (1000, 0xFFFF_0000_1000_EFFF),
            (2000, 0xFFF7_0008_1000_EFFF),
            (3000, 0xFFF7_0000_1000_EFFF),
            (3100, 0xFFF7_0000_0000_EFFF),
            (3500, 0xFFF7_0008_0000_EFFF),
        ]))
        .unwrap();
        assert!(board.contents_at(4000).white.contains(D5));
    }

    #[test]
    fn a_trace_with_hall_records_is_refused() {
        let mut t = trace(&[(0, 0xFFFF_0000_0000_FFFF)]);
        t.records.push(TimedRecord {
            t: 5,
            record: Record::Analog(Box::new([0; 64])),
        });
        assert_eq!(
            SimBoard::from_trace(&t).unwrap_err(),
            SimError::AnalogRecord { index: 1 }
        );
    }
}
