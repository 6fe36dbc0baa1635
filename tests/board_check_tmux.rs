//! `touchmove board check` as a person uses it: the terminal program runs
//! in tmux (/usr/bin/tmux) on a simulated board with two row wires swapped
//! (hw/faults/swapped-rows.toml); the test reads the screen with
//! `capture-pane`, answers with `send-keys`, and is the builder's hands
//! through the board's hands file (`[sim] hands`, see crates/touchmove-hw/src/sim.rs):
//! it empties the board, sets up the pieces, lifts the white queen and
//! walks every square when the screen asks for it. The check names the
//! swapped wires, writes the corrected profile, and exits 0; the written
//! profile reads the start position right.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use shakmaty::{Board, Square};
use touchmove_core::scan::Snapshot;
use touchmove_hw::profile::{self, Backend};
use touchmove_hw::{Scan, Scanner, sim};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("/usr/bin/tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("/usr/bin/tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-S", "-100", "-t", "check"])
    }

    fn keys(&self, keys: &str) {
        self.run(&["send-keys", "-t", "check", keys]);
    }

    /// Waits until the screen shows `text`.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the screen never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("/usr/bin/tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn hands(path: &Path, lines: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(lines.as_bytes()).unwrap();
}

#[test]
fn the_terminal_check_names_swapped_wires_and_writes_a_profile_that_reads_the_board() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("touchmove-board-tmux-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(root.join("hw/faults/swapped-rows.toml")).unwrap();
    let board = dir.join("board.toml");
    std::fs::write(
        &board,
        original.replace("[sim]\n", "[sim]\nhands = \"hands.txt\"\n"),
    )
    .unwrap();
    let hands_file = dir.join("hands.txt");
    let tmux = Tmux {
        socket: format!("touchmove-board-check-{}", std::process::id()),
    };
    let command = format!(
        "{} board check --board {}; echo EXIT=$?; sleep 120",
        env!("CARGO_BIN_EXE_touchmove"),
        board.display()
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "check",
        "-x",
        "160",
        "-y",
        "45",
        &command,
    ]);

    tmux.wait_for("1. Empty board");
    hands(&hands_file, "empty\n");
    std::thread::sleep(Duration::from_millis(800));
    tmux.keys("Enter");
    tmux.wait_for("2. Start position");
    hands(&hands_file, "start\n");
    std::thread::sleep(Duration::from_millis(800));
    tmux.keys("Enter");
    tmux.wait_for("Lift the white queen (d1)");
    hands(&hands_file, "lift d1\n");
    tmux.wait_for("Put the queen back");
    let screen = tmux.wait_for("row wires 1 and 3 are swapped");
    assert!(screen.contains("rows[1] reads rank 4"), "{screen}");
    hands(&hands_file, "place d1 white\n");
    tmux.wait_for("4. Square walk");
    let start = Snapshot::of_board(&Board::new()).occupied();
    let mut walk = String::new();
    for square in Square::ALL {
        if start.contains(square) {
            walk.push_str(&format!(
                "lift {square}\nwait 150\nplace {square}\nwait 150\n"
            ));
        } else {
            walk.push_str(&format!(
                "place {square}\nwait 150\nlift {square}\nwait 150\n"
            ));
        }
    }
    hands(&hands_file, &walk);
    tmux.wait_for("64 of 64 squares done");
    let screen = tmux.wait_for("Press q to leave");
    assert!(screen.contains("RESULT: the board is ready"), "{screen}");
    tmux.keys("q");
    let screen = tmux.wait_for("EXIT=");
    assert!(screen.contains("EXIT=0"), "{screen}");
    let written = dir.join("board.checked.toml");
    assert!(
        screen.contains(&format!(
            "corrected profile written to {}",
            written.display()
        )),
        "{screen}"
    );
    assert!(
        screen
            .contains("row wires 1 and 3 are swapped: rows[1] reads rank 4, rows[3] reads rank 2"),
        "{screen}"
    );

    // The written profile, without the hands, reads the start position.
    let profile = profile::load(&written).unwrap();
    let Backend::Sim(mut config) = profile.backend else {
        panic!("a simulated board");
    };
    config.hands = None;
    let mut board = sim::build(&config).unwrap();
    let Scan::Occupancy(read) = board.scan(0).unwrap() else {
        panic!("occupancy");
    };
    assert_eq!(read, start);
    std::fs::remove_dir_all(&dir).unwrap();
}
