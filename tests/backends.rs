//! The hardware backends read through fakes that simulate each wiring, the
//! stock board profiles, and `touchmove record`.
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use shakmaty::{Bitboard, File, Rank, Square};

use touchmove::cli::record::{Ended, RecordPlan, record};
use touchmove_hw::analog_adc::{AdcConfig, Ads1115, AnalogAdcConfig, AnalogMux, Mcp3008};
use touchmove_hw::gpio_matrix::{GpioMatrix, GpioMatrixConfig};
use touchmove_hw::hal::bitbang::BitBangSpi;
use touchmove_hw::hal::fake::{FakeAnalogBoard, FakeMcp23017Bus, FakeShiftRegisters};
use touchmove_hw::hal::matrix_circuit::{MatrixCircuit, VirtualDelay};
use touchmove_hw::mapping::{Mapping, Orientation};
use touchmove_hw::mcp23017::{Mcp23017Config, Mcp23017Matrix, McpPin};
use touchmove_hw::profile::{self, Backend};
use touchmove_hw::replay_trace::TraceReplay;
use touchmove_hw::shift_register::{ShiftBus, ShiftRegisterConfig, ShiftRegisterMatrix};
use touchmove_hw::{Scan, Scanner, SensorError};

// ------------------------------------------------------------ orientation

/// The square under sensor column x, row y, written out from the names of
/// the symmetries (independently of `Mapping`).
fn square_under(orientation: Orientation, x: u32, y: u32) -> Square {
    let (file, rank) = match orientation {
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

/// How sensors sit under squares in one test: a symmetry or a random table.
struct Layout {
    name: String,
    table: [Square; 64],
    mapping: Mapping,
}

fn layouts(rng: &mut StdRng) -> Vec<Layout> {
    let mut all: Vec<Layout> = Orientation::ALL
        .iter()
        .map(|&o| Layout {
            name: o.name().to_owned(),
            table: std::array::from_fn(|i| square_under(o, i as u32 % 8, i as u32 / 8)),
            mapping: Mapping::from_orientation(o),
        })
        .collect();
    let mut shuffled = Square::ALL.to_vec();
    shuffled.shuffle(rng);
    all.push(Layout {
        name: "random table".into(),
        table: std::array::from_fn(|i| shuffled[i]),
        mapping: Mapping::from_squares(&shuffled).unwrap(),
    });
    all
}

impl Layout {
    fn closed_switches(&self, board: Bitboard) -> u64 {
        (0..64)
            .filter(|&s| board.contains(self.table[s]))
            .fold(0, |bits, s| bits | 1 << s)
    }

    fn levels_by_sensor(&self, by_square: &[i32; 64]) -> [i32; 64] {
        std::array::from_fn(|s| by_square[usize::from(self.table[s])])
    }
}

/// Random boards: dense, sparse, empty and full.
fn boards(rng: &mut StdRng) -> Vec<Bitboard> {
    let mut boards = vec![Bitboard::EMPTY, Bitboard::FULL];
    for _ in 0..12 {
        boards.push(Bitboard(rng.random::<u64>()));
        boards.push(Bitboard(
            rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>(),
        ));
    }
    boards
}

/// A backend on its fake, and how to set what the fake's switches hold.
struct Rig {
    name: &'static str,
    set_closed: Box<dyn Fn(u64)>,
    scanner: Box<dyn Scanner>,
}

fn mcp_pins(list: [&str; 8]) -> [McpPin; 8] {
    list.map(|p| p.parse().unwrap())
}

fn occupancy_rigs(mapping: Mapping) -> Vec<Rig> {
    let mut rigs = Vec::new();

    let fake = MatrixCircuit::new(true);
    fake.set_settle_ns(20_000);
    let config = GpioMatrixConfig {
        rows: [4, 17, 27, 22, 5, 6, 13, 19],
        columns: [26, 18, 23, 24, 25, 12, 16, 20],
        diodes: true,
        settle_us: 20,
        mapping,
    };
    let matrix = GpioMatrix::new(
        fake.row_pins(),
        fake.column_pins(),
        fake.delay(),
        &config,
        "gpio".into(),
    )
    .unwrap();
    rigs.push(Rig {
        name: "gpio-matrix",
        set_closed: Box::new(move |c| fake.set_closed(c)),
        scanner: Box::new(matrix),
    });

    let shift_config = |link| ShiftRegisterConfig {
        link,
        latch: 25,
        load: 24,
        diodes: true,
        settle_us: 20,
        mapping,
    };
    let fake = FakeShiftRegisters::new(true);
    let spi = ShiftBus::Spi {
        bus: 0,
        chip_select: 0,
        clock_hz: 1_000_000,
    };
    let matrix = ShiftRegisterMatrix::new(
        fake.spi(),
        fake.latch_pin(),
        fake.load_pin(),
        VirtualDelay::default(),
        &shift_config(spi),
        "spi".into(),
    )
    .unwrap();
    rigs.push(Rig {
        name: "shift-register over SPI",
        set_closed: Box::new(move |c| fake.set_closed(c)),
        scanner: Box::new(matrix),
    });

    let fake = FakeShiftRegisters::new(true);
    let gpio = ShiftBus::Gpio {
        clock: 17,
        data_out: 27,
        data_in: 22,
        clock_hz: 500_000,
    };
    let bus = BitBangSpi::new(
        fake.clock_pin(),
        fake.data_out_pin(),
        fake.data_in_pin(),
        VirtualDelay::default(),
        1_000,
    )
    .unwrap();
    let matrix = ShiftRegisterMatrix::new(
        bus,
        fake.latch_pin(),
        fake.load_pin(),
        VirtualDelay::default(),
        &shift_config(gpio),
        "gpio".into(),
    )
    .unwrap();
    rigs.push(Rig {
        name: "shift-register bit-banged",
        set_closed: Box::new(move |c| fake.set_closed(c)),
        scanner: Box::new(matrix),
    });

    // The stock two-chip wiring, and rows and columns spread over three chips.
    let wirings = [
        (
            "mcp23017 two chips",
            [
                "0x20:GPA0",
                "0x20:GPA1",
                "0x20:GPA2",
                "0x20:GPA3",
                "0x20:GPA4",
                "0x20:GPA5",
                "0x20:GPA6",
                "0x20:GPA7",
            ],
            [
                "0x21:GPA0",
                "0x21:GPA1",
                "0x21:GPA2",
                "0x21:GPA3",
                "0x21:GPB0",
                "0x21:GPB1",
                "0x21:GPB2",
                "0x21:GPB3",
            ],
        ),
        (
            "mcp23017 three chips",
            [
                "0x27:GPB7",
                "0x20:GPA7",
                "0x20:GPB5",
                "0x27:GPA7",
                "0x20:GPB6",
                "0x20:GPB7",
                "0x27:GPA0",
                "0x20:GPA0",
            ],
            [
                "0x23:GPB6",
                "0x20:GPA3",
                "0x23:GPA0",
                "0x20:GPB0",
                "0x27:GPB2",
                "0x23:GPA6",
                "0x20:GPA1",
                "0x27:GPA1",
            ],
        ),
    ];
    for (name, rows, columns) in wirings {
        let rows = mcp_pins(rows);
        let columns = mcp_pins(columns);
        let bus = FakeMcp23017Bus::new(rows, columns, true);
        let config = Mcp23017Config {
            bus: 1,
            rows,
            columns,
            diodes: true,
            settle_us: 10,
            mapping,
        };
        let matrix =
            Mcp23017Matrix::new(bus.clone(), VirtualDelay::default(), &config, name.into())
                .unwrap();
        rigs.push(Rig {
            name,
            set_closed: Box::new(move |c| bus.set_closed(c)),
            scanner: Box::new(matrix),
        });
    }
    rigs
}

#[test]
fn every_matrix_backend_reads_the_right_squares_in_every_orientation() {
    let mut rng = StdRng::seed_from_u64(0x7043_6d6f_7665);
    for layout in layouts(&mut rng) {
        for mut rig in occupancy_rigs(layout.mapping) {
            for board in boards(&mut rng) {
                (rig.set_closed)(layout.closed_switches(board));
                let scan = rig.scanner.scan(0).unwrap();
                assert_eq!(
                    scan,
                    Scan::Occupancy(board),
                    "{} with {}",
                    rig.name,
                    layout.name
                );
            }
        }
    }
}

#[test]
fn both_hall_backends_read_the_right_levels_in_every_orientation() {
    let mut rng = StdRng::seed_from_u64(0x4861_6c6c);
    for layout in layouts(&mut rng) {
        let config = |adc| AnalogAdcConfig {
            select: [5, 6, 13, 19],
            adc_inputs: [2, 0, 3, 1],
            adc,
            settle_us: 10,
            mapping: layout.mapping,
        };
        let board = FakeAnalogBoard::new([2, 0, 3, 1]);
        let mut mcp3008 = AnalogMux::new(
            board.select_pins(),
            Mcp3008::new(board.mcp3008()),
            VirtualDelay::default(),
            &config(AdcConfig::Mcp3008 {
                bus: 0,
                chip_select: 0,
                clock_hz: 1_000_000,
            }),
            "mcp3008".into(),
        );
        let mut ads1115 = AnalogMux::new(
            board.select_pins(),
            Ads1115::new(board.ads1115(0x4A), 0x4A, VirtualDelay::default()),
            VirtualDelay::default(),
            &config(AdcConfig::Ads1115 {
                bus: 1,
                address: 0x4A,
            }),
            "ads1115".into(),
        );
        for _ in 0..10 {
            let ten_bits: [i32; 64] = std::array::from_fn(|_| rng.random_range(0..1024));
            board.set_levels(layout.levels_by_sensor(&ten_bits));
            assert_eq!(
                mcp3008.scan(0).unwrap(),
                Scan::Analog(Box::new(ten_bits)),
                "mcp3008 with {}",
                layout.name
            );
            let sixteen_bits: [i32; 64] = std::array::from_fn(|_| rng.random_range(-32768..32768));
            board.set_levels(layout.levels_by_sensor(&sixteen_bits));
            assert_eq!(
                ads1115.scan(0).unwrap(),
                Scan::Analog(Box::new(sixteen_bits)),
                "ads1115 with {}",
                layout.name
            );
        }
    }
}

// ------------------------------------------------------------- profiles

fn hw() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("hw")
}

fn stock_profiles() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(hw())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_stock_profile_loads_and_every_topology_has_one() {
    let mut names = Vec::new();
    for path in stock_profiles() {
        let board = profile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            Some(board.name.as_str()),
            path.file_stem().and_then(|s| s.to_str()),
            "a profile is named after its file"
        );
        names.push(board.name);
    }
    for expected in [
        "gpio-matrix",
        "shift-register-spi",
        "shift-register-gpio",
        "mcp23017",
        "hall-mcp3008",
        "hall-ads1115",
        "sim",
        "sim-hall",
    ] {
        assert!(names.iter().any(|n| n == expected), "hw/{expected}.toml");
    }
}

fn is_raspberry_pi() -> bool {
    std::fs::read_to_string("/proc/device-tree/model").is_ok_and(|m| m.contains("Raspberry Pi"))
}

#[test]
fn off_a_pi_every_hardware_profile_fails_with_one_sentence() {
    assert!(
        !is_raspberry_pi(),
        "this test expects a machine without the Pi's hardware"
    );
    let mut hardware = 0;
    for path in stock_profiles() {
        let board = profile::load(&path).unwrap();
        if matches!(board.backend, Backend::Sim(_) | Backend::Trace(_)) {
            continue;
        }
        hardware += 1;
        let error = match profile::open(&board) {
            Ok(_) => panic!("{} opened off a Pi", board.name),
            Err(e) => e,
        };
        assert!(
            matches!(error, SensorError::Unavailable(_)),
            "{}: {error:?}",
            board.name
        );
        let message = error.to_string();
        assert!(!message.contains('\n'), "one line: {message}");
        assert!(message.contains(&format!("{:?}", board.name)), "{message}");
        assert!(message.contains("could not open"), "{message}");
        assert!(message.contains("not a Raspberry Pi"), "{message}");
    }
    assert_eq!(hardware, 6);
}

fn problems(text: &str) -> String {
    match profile::parse(text, Path::new("hw/bad.toml")) {
        Ok(board) => panic!("accepted: {board:?}"),
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("hw/bad.toml: "), "{message}");
            message
        }
    }
}

const MATRIX: &str = r#"
name = "bad"
backend = "gpio-matrix"
scan-rate-hz = 100
settle-us = 20
orientation = "identity"
[gpio-matrix]
rows = [4, 17, 27, 22, 5, 6, 13, 19]
columns = [26, 18, 23, 24, 25, 12, 16, 20]
diodes = true
"#;

#[test]
fn the_matrix_template_is_valid() {
    assert!(profile::parse(MATRIX, Path::new("ok.toml")).is_ok());
}

#[test]
fn a_pin_used_twice_names_both_keys() {
    let message = problems(&MATRIX.replace("16, 20]", "16, 4]"));
    assert!(
        message.contains(
            "gpio-matrix.columns[7]: BCM 4 (header pin 7) is already used by gpio-matrix.rows[0]"
        ),
        "{message}"
    );
}

#[test]
fn pins_off_the_header_and_the_id_eeprom_pins_are_refused() {
    let message = problems(
        &MATRIX
            .replace("[4, 17", "[28, 17")
            .replace("16, 20]", "16, 0]"),
    );
    assert!(
        message.contains("gpio-matrix.rows[0]: BCM 28 is not a GPIO"),
        "{message}"
    );
    assert!(
        message.contains(
            "gpio-matrix.columns[7]: BCM 0 (header pin 27) is reserved for the HAT ID EEPROM"
        ),
        "{message}"
    );
}

#[test]
fn a_gpio_pin_on_the_spi_bus_in_use_is_refused() {
    let text = std::fs::read_to_string(hw().join("shift-register-spi.toml")).unwrap();
    let message = problems(&text.replace("latch = 25", "latch = 10"));
    assert!(
        message.contains("shift-register.spi (SPI0 MOSI): BCM 10"),
        "{message}"
    );
}

#[test]
fn missing_and_unknown_keys_are_named() {
    let message = problems(&MATRIX.replace("diodes = true", ""));
    assert!(message.contains("missing field `diodes`"), "{message}");
    let message = problems(&MATRIX.replace("diodes = true", "diodes = true\ncolour = 1"));
    assert!(message.contains("unknown field `colour`"), "{message}");
    let message = problems(&MATRIX.replace("settle-us = 20", ""));
    assert!(message.contains("settle-us: missing"), "{message}");
    let message = problems(&MATRIX.replace("orientation = \"identity\"", ""));
    assert!(message.contains("orientation: missing"), "{message}");
}

#[test]
fn a_matrix_without_diodes_is_refused_with_the_ghosting_explained() {
    let message = problems(&MATRIX.replace("diodes = true", "diodes = false"));
    assert!(message.contains("gpio-matrix.diodes: refused"), "{message}");
    assert!(
        message.contains("fourth corner reads occupied"),
        "{message}"
    );
}

#[test]
fn scan_rates_out_of_range_or_too_fast_for_the_settle_time_are_refused() {
    let message = problems(&MATRIX.replace("scan-rate-hz = 100", "scan-rate-hz = 5000"));
    assert!(
        message.contains("scan-rate-hz: 5000 Hz is outside 1 to 1000 Hz"),
        "{message}"
    );
    let message = problems(&MATRIX.replace("settle-us = 20", "settle-us = 2000"));
    assert!(
        message.contains("settle-us: 2000 µs for each of 8 rows"),
        "{message}"
    );
    let text = std::fs::read_to_string(hw().join("hall-ads1115.toml")).unwrap();
    let message = problems(&text.replace("scan-rate-hz = 10", "scan-rate-hz = 50"));
    assert!(message.contains("too fast for an ADS1115"), "{message}");
}

#[test]
fn an_mcp23017_column_on_gpa7_or_gpb7_and_bad_addresses_are_refused() {
    let text = std::fs::read_to_string(hw().join("mcp23017.toml")).unwrap();
    let message = problems(&text.replace("\"0x21:GPB3\"]", "\"0x21:GPB7\"]"));
    assert!(
        message.contains("mcp23017.columns[7]: 0x21:GPB7 cannot be an input"),
        "{message}"
    );
    let message = problems(&text.replace("\"0x21:GPA0\"", "\"0x29:GPA0\""));
    assert!(message.contains("mcp23017.columns[0]"), "{message}");
    assert!(message.contains("0x20 to 0x27"), "{message}");
    let message = problems(&text.replace("\"0x20:GPA1\"", "\"0x20:GPA0\""));
    assert!(
        message.contains("mcp23017.rows[1]: 0x20:GPA0 is already used by mcp23017.rows[0]"),
        "{message}"
    );
    let text = std::fs::read_to_string(hw().join("hall-ads1115.toml")).unwrap();
    let message = problems(&text.replace("0x48", "0x50"));
    assert!(
        message.contains("hall-adc.ads1115.address: 0x50 is not an ADS1115 address"),
        "{message}"
    );
}

#[test]
fn a_square_table_must_be_a_permutation() {
    let mut names: Vec<String> = Square::ALL.iter().map(|s| format!("\"{s}\"")).collect();
    let table = |names: &[String]| {
        MATRIX.replace(
            "orientation = \"identity\"",
            &format!("squares = [{}]", names.join(", ")),
        )
    };
    assert!(profile::parse(&table(&names), Path::new("ok.toml")).is_ok());
    names[63] = "\"e4\"".into();
    let message = problems(&table(&names));
    assert!(
        message.contains("squares: square e4 appears at entries 28 and 63"),
        "{message}"
    );
}

#[test]
fn a_table_for_another_backend_is_refused() {
    let message = problems(&format!("{MATRIX}\n[sim]\nseed = 3\n"));
    assert!(
        message.contains("sim: this table is for backend sim"),
        "{message}"
    );
}

// ----------------------------------------------------------------- record

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("touchmove-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SMALL_TRACE: &str = "# touchmove-trace v1\n\
    0 FFFF00000000FFFF\n\
    80 FFFF00000000EFFF\n\
    160 FFFF00001000EFFF\n\
    240 FFFF00001000EFFF\n\
    250 clock white\n\
    320 FFEF00001000EFFF\n\
    400 FFEF10001000EFFF\n";

fn states(replay: &mut TraceReplay, times: impl Iterator<Item = u64>) -> Vec<Scan> {
    let mut seen: Vec<Scan> = Vec::new();
    for t in times {
        let scan = replay.scan(t).unwrap();
        if seen.last() != Some(&scan) {
            seen.push(scan);
        }
    }
    seen
}

#[test]
fn record_from_a_trace_profile_replays_to_the_same_scans() {
    let dir = scratch("record");
    std::fs::write(dir.join("small.trace"), SMALL_TRACE).unwrap();
    let profile_path = dir.join("small.toml");
    std::fs::write(
        &profile_path,
        "name = \"small\"\nbackend = \"trace\"\nscan-rate-hz = 200\n[trace]\nfile = \"small.trace\"\n",
    )
    .unwrap();
    let board = profile::load(&profile_path).unwrap();
    let mut scanner = profile::open(&board).unwrap();
    let mut plan = RecordPlan::for_profile(&board);
    plan.header.profile = Some("fide-rapid".into());
    plan.header.start_fen = Some("8/8/8/8/8/8/8/8 w - - 0 1".into());
    let mut out = Vec::new();
    let recording = record(
        scanner.as_mut(),
        None,
        &plan,
        &AtomicBool::new(false),
        &mut out,
    )
    .unwrap();
    assert_eq!(recording.ended, Ended::Exhausted);
    // Real-time pacing: on a loaded machine scans may be skipped, but every
    // change must still have been seen at least once.
    assert!(
        recording.scans >= recording.changes,
        "at least one scan per change: {recording:?}"
    );
    assert_eq!(recording.changes, 5, "one record per change: {recording:?}");

    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# touchmove-trace v1");
    assert!(lines.contains(&"#! board: small (trace)"), "{text}");
    assert!(lines.contains(&"#! profile: fide-rapid"), "{text}");
    assert!(
        lines.contains(&"#! start-fen: 8/8/8/8/8/8/8/8 w - - 0 1"),
        "{text}"
    );

    let recorded_path = dir.join("recorded.trace");
    std::fs::write(&recorded_path, &text).unwrap();
    let mut recorded = TraceReplay::load(&recorded_path, "recorded".into()).unwrap();
    let mut original = TraceReplay::load(&dir.join("small.trace"), "original".into()).unwrap();
    let end = recorded.end().unwrap();
    assert!((400..450).contains(&end), "{text}");
    // Every recorded scan is what the board showed at that time...
    for line in lines.iter().filter(|l| !l.starts_with('#')) {
        let t: u64 = line.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(
            recorded.scan(t).unwrap(),
            original.scan(t).unwrap(),
            "at {t}"
        );
    }
    // ...and the recording passes through the same states in the same order.
    assert_eq!(
        states(&mut recorded, 0..=end),
        states(&mut original, 0..=400)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn record_stops_at_its_time_limit() {
    let dir = scratch("limit");
    let trace = dir.join("long.trace");
    std::fs::write(&trace, "0 0000000000000001\n60000 0000000000000003\n").unwrap();
    let mut scanner = TraceReplay::load(&trace, "long".into()).unwrap();
    let plan = RecordPlan {
        period: std::time::Duration::from_millis(10),
        limit: Some(std::time::Duration::from_millis(100)),
        header: Default::default(),
    };
    let mut out = Vec::new();
    let recording = record(&mut scanner, None, &plan, &AtomicBool::new(false), &mut out).unwrap();
    assert_eq!(recording.ended, Ended::TimeLimit);
    assert!(recording.last_scan < 100);
    assert_eq!(recording.changes, 1);
    let stopped = record(
        &mut scanner,
        None,
        &plan,
        &AtomicBool::new(true),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!((stopped.ended, stopped.scans), (Ended::Interrupted, 0));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn record_writes_the_clock_presses_before_the_scans_of_their_tick() {
    use touchmove_hw::clock_buttons::{ClockButtons, FakeButtons};
    let dir = scratch("presses");
    let trace = dir.join("board.trace");
    std::fs::write(&trace, "0 0000000000000001\n60000 0000000000000003\n").unwrap();
    let mut scanner = TraceReplay::load(&trace, "board".into()).unwrap();
    let fake = FakeButtons::new();
    let mut buttons = ClockButtons::new(fake.pins(), 20, "fake buttons".into());
    let plan = RecordPlan {
        period: std::time::Duration::from_millis(5),
        limit: Some(std::time::Duration::from_millis(600)),
        header: Default::default(),
    };
    // White presses for 150 ms, well after the start and well before the end.
    let hand = {
        let fake = fake.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            fake.set(shakmaty::Color::White, true);
            std::thread::sleep(std::time::Duration::from_millis(150));
            fake.set(shakmaty::Color::White, false);
        })
    };
    let mut out = Vec::new();
    let recording = record(
        &mut scanner,
        Some(&mut buttons),
        &plan,
        &AtomicBool::new(false),
        &mut out,
    )
    .unwrap();
    hand.join().unwrap();
    assert_eq!(recording.presses, 1);
    let text = String::from_utf8(out).unwrap();
    let parsed = touchmove_core::trace::parse(&text, "board.trace").unwrap();
    let clocks: Vec<u64> = parsed
        .records
        .iter()
        .filter(|r| {
            matches!(
                r.record,
                touchmove_core::trace::Record::Clock(shakmaty::Color::White)
            )
        })
        .map(|r| r.t)
        .collect();
    assert_eq!(clocks.len(), 1, "{text}");
    assert!(
        (100..400).contains(&clocks[0]),
        "pressed near 150 ms: {text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_record_command_writes_a_trace_file() {
    let dir = scratch("command");
    std::fs::write(dir.join("small.trace"), SMALL_TRACE).unwrap();
    std::fs::write(
        dir.join("small.toml"),
        "name = \"small\"\nbackend = \"trace\"\nscan-rate-hz = 100\n[trace]\nfile = \"small.trace\"\n",
    )
    .unwrap();
    let out = dir.join("out.trace");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["record", "--board"])
        .arg(dir.join("small.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--seconds", "5", "--profile", "casual"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("# touchmove-trace v1\n#! profile: casual\n#! board: small (trace)\n"),
        "{text}"
    );
    let last = text.lines().last().unwrap();
    assert!(last.ends_with(" FFEF10001000EFFF"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
