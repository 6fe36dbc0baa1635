//! `touchmove board check` against the simulated board with faults injected
//! through the fakes (hw/faults/*.toml), in virtual time: each fault is
//! found and named, and the corrected profile reads the board right.
//!
//! The builder's hands are the simulated board's [`SimHands`]: the test
//! empties the board, sets up the start position, lifts the queen and walks
//! every square the way the check asks, scanning at the profile's rate.
use std::path::{Path, PathBuf};

use shakmaty::{Bitboard, Board, Color, Square};
use touchmove_core::Millis;
use touchmove_core::scan::Snapshot;
use touchmove_hw::bringup::for_profile::{check_config, summary, write_result};
use touchmove_hw::bringup::{Answer, BoardFault, Check, Step};
use touchmove_hw::profile::{self, Backend, BoardProfile};
use touchmove_hw::sim::{self, SimBoard, SimHands};
use touchmove_hw::{Scan, Scanner};

struct Rig {
    profile: BoardProfile,
    board: SimBoard,
    hands: SimHands,
    contents: Snapshot,
    check: Check,
    t: Millis,
    period: Millis,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn start() -> Snapshot {
    Snapshot::of_board(&Board::new())
}

fn open(path: &Path) -> (BoardProfile, SimBoard) {
    let profile = profile::load(path).unwrap();
    let Backend::Sim(config) = &profile.backend else {
        panic!("{}: a simulated board", path.display());
    };
    let board = sim::build(config).unwrap();
    (profile, board)
}

impl Rig {
    fn new(name: &str) -> Rig {
        let (profile, board) = open(&root().join("hw/faults").join(format!("{name}.toml")));
        let hands = board.hands();
        let check = Check::new(check_config(&profile));
        let period = 1000 / Millis::from(profile.scan_rate_hz);
        Rig {
            profile,
            board,
            hands,
            contents: start(),
            check,
            t: 0,
            period,
        }
    }

    fn run(&mut self, ms: Millis) {
        let end = self.t + ms;
        while self.t < end {
            let scan = self.board.scan(self.t).unwrap();
            self.check.scan(self.t, &scan);
            self.t += self.period;
        }
    }

    fn set(&mut self, contents: Snapshot) {
        self.contents = contents;
        self.hands.set(contents);
        self.run(1000);
    }

    fn lift(&mut self, square: Square) {
        let mut c = self.contents;
        c.white.discard(square);
        c.black.discard(square);
        self.contents = c;
        self.hands.set(c);
        self.run(150);
    }

    fn place(&mut self, square: Square, color: Color) {
        let mut c = self.contents;
        match color {
            Color::White => c.white.add(square),
            Color::Black => c.black.add(square),
        }
        self.contents = c;
        self.hands.set(c);
        self.run(150);
    }

    fn answer(&mut self, answer: Answer) {
        let t = self.t;
        self.check
            .answer(t, answer)
            .unwrap_or_else(|e| panic!("{:?}: {e}", self.check.step()));
    }

    /// Every step, as the check asks, to the end.
    fn walk_through(&mut self) {
        self.set(Snapshot::default());
        assert_eq!(self.check.step(), Step::EmptyBoard);
        self.answer(Answer::Next);
        self.set(start());
        self.answer(Answer::Next);
        assert_eq!(
            self.check.step(),
            Step::LiftWhiteQueen,
            "{:?}",
            self.check.message()
        );
        for queen in [Square::D1, Square::D8] {
            let color = if queen == Square::D1 {
                Color::White
            } else {
                Color::Black
            };
            self.lift(queen);
            self.run(400);
            assert_eq!(
                self.check.step(),
                Step::PutBack,
                "{:?}",
                self.check.message()
            );
            self.place(queen, color);
            self.run(400);
            if self.check.step() == Step::Walk {
                break;
            }
            assert_eq!(self.check.step(), Step::LiftBlackQueen);
        }
        assert_eq!(self.check.step(), Step::Walk);
        for square in Square::ALL {
            let held = self.contents.white.contains(square) || self.contents.black.contains(square);
            if held {
                let color = if self.contents.white.contains(square) {
                    Color::White
                } else {
                    Color::Black
                };
                self.lift(square);
                self.place(square, color);
            } else {
                self.place(square, Color::White);
                self.lift(square);
            }
        }
        self.run(1000);
        if self.check.step() == Step::Walk {
            self.answer(Answer::Next);
        }
        assert_eq!(self.check.step(), Step::Done);
    }

    fn faults(&self) -> Vec<BoardFault> {
        self.check.outcome().unwrap().faults.clone()
    }

    fn text(&self) -> String {
        summary(&self.check, None).join("\n")
    }

    /// Writes the corrected profile into a temporary folder, opens it and
    /// returns what the board reads with the start position on it.
    fn reread(&self, name: &str) -> Bitboard {
        let dir = std::env::temp_dir().join(format!(
            "touchmove-board-check-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("checked.toml");
        let written = write_result(&self.check, &self.profile, &out).unwrap();
        assert_eq!(written.as_deref(), Some(out.as_path()));
        let (_, mut board) = open(&out);
        let read = match board.scan(0).unwrap() {
            Scan::Occupancy(bb) => bb,
            Scan::Analog(_) => panic!("occupancy"),
        };
        std::fs::remove_dir_all(&dir).unwrap();
        read
    }
}

#[test]
fn a_mirrored_board_is_found_and_the_written_profile_reads_it() {
    let mut rig = Rig::new("mirrored");
    rig.walk_through();
    assert!(rig.faults().is_empty(), "{}", rig.text());
    assert!(
        rig.text().contains("orientation mirror-files"),
        "{}",
        rig.text()
    );
    assert_eq!(rig.reread("mirrored"), start().occupied());
}

#[test]
fn a_rotated_board_is_found_and_the_written_profile_reads_it() {
    let mut rig = Rig::new("rotated");
    rig.walk_through();
    assert!(rig.faults().is_empty(), "{}", rig.text());
    assert!(
        rig.text().contains("orientation rotate-90"),
        "{}",
        rig.text()
    );
    assert_eq!(rig.reread("rotated"), start().occupied());
}

#[test]
fn two_swapped_row_wires_are_named_and_corrected_by_a_table() {
    let mut rig = Rig::new("swapped-rows");
    rig.walk_through();
    assert!(rig.faults().is_empty(), "{}", rig.text());
    assert!(
        rig.text()
            .contains("row wires 1 and 3 are swapped: rows[1] reads rank 4, rows[3] reads rank 2"),
        "{}",
        rig.text()
    );
    assert_eq!(rig.reread("swapped-rows"), start().occupied());
}

#[test]
fn a_dead_reed_is_named() {
    let mut rig = Rig::new("dead-reed");
    rig.walk_through();
    assert_eq!(rig.faults().len(), 1, "{}", rig.text());
    assert!(
        rig.text().contains("f7 (row 6, column 5) is dead"),
        "{}",
        rig.text()
    );
}

#[test]
fn a_stuck_reed_is_named_on_the_empty_board() {
    let mut rig = Rig::new("stuck-reed");
    rig.walk_through();
    assert_eq!(rig.faults().len(), 1, "{}", rig.text());
    assert!(
        rig.text().contains("e4 (row 3, column 4) is stuck"),
        "{}",
        rig.text()
    );
    let read = rig.reread("stuck-reed");
    assert_eq!(
        read,
        start().occupied() | Square::E4,
        "the stuck reed still reads"
    );
}

#[test]
fn a_reversed_diode_is_named_from_its_ghosting_pattern() {
    let mut rig = Rig::new("reversed-diode");
    rig.walk_through();
    let faults = rig.faults();
    assert!(
        faults
            .iter()
            .any(|f| matches!(f, BoardFault::ReversedDiode { sensor, .. } if sensor.0 == 11)),
        "{}",
        rig.text()
    );
    assert!(
        rig.text()
            .contains("d2 (row 1, column 3) has its diode the wrong way round"),
        "{}",
        rig.text()
    );
    assert_eq!(
        faults.len(),
        1,
        "one fault explains the ghosts: {}",
        rig.text()
    );
    assert_eq!(
        rig.reread("reversed-diode").count(),
        31,
        "d2 still reads nothing"
    );
}

#[test]
fn a_chattering_contact_is_named() {
    let mut rig = Rig::new("chatter");
    rig.walk_through();
    assert_eq!(rig.faults().len(), 1, "{}", rig.text());
    assert!(
        rig.text().contains("g5 (row 4, column 6) chatters"),
        "{}",
        rig.text()
    );
}

#[test]
fn a_long_bounce_gives_a_debounce_suggestion() {
    let mut rig = Rig::new("bounce");
    rig.walk_through();
    assert!(rig.faults().is_empty(), "{}", rig.text());
    let outcome = rig.check.outcome().unwrap();
    assert!(
        outcome.bounce_ms >= 10 && outcome.bounce_ms <= 30,
        "{}",
        outcome.bounce_ms
    );
    let debounce = outcome.debounce_ms.expect("a suggestion");
    assert!(debounce > outcome.bounce_ms, "{debounce}");
    let dir = std::env::temp_dir().join(format!(
        "touchmove-board-check-{}-bounce",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("checked.toml");
    write_result(&rig.check, &rig.profile, &out).unwrap();
    assert_eq!(profile::load(&out).unwrap().debounce_ms, Some(debounce));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_weak_hall_square_is_named_with_its_margin() {
    let mut rig = Rig::new("weak-hall");
    rig.walk_through();
    assert_eq!(rig.faults().len(), 1, "{}", rig.text());
    assert!(
        rig.text()
            .contains("d4 (row 3, column 3): a piece moves its Hall sensor"),
        "{}",
        rig.text()
    );
}

#[test]
fn a_sound_board_is_ready() {
    let (profile, board) = open(&root().join("hw/sim.toml"));
    let hands = board.hands();
    let mut rig = Rig {
        check: Check::new(check_config(&profile)),
        profile,
        board,
        hands,
        contents: start(),
        t: 0,
        period: 10,
    };
    rig.walk_through();
    assert!(rig.faults().is_empty(), "{}", rig.text());
    assert!(
        rig.text().contains("orientation identity"),
        "{}",
        rig.text()
    );
}

#[test]
fn a_board_that_is_not_in_the_start_position_is_told_so() {
    let mut rig = Rig::new("mirrored");
    rig.set(Snapshot::default());
    rig.answer(Answer::Next);
    let mut half = start();
    half.black = Bitboard::EMPTY;
    rig.set(half);
    let t = rig.t;
    let err = rig.check.answer(t, Answer::Next).unwrap_err();
    assert!(err.to_string().contains("not the start position"), "{err}");
    assert_eq!(rig.check.step(), Step::StartPosition);
}
