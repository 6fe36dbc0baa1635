//! The `/setup` page of `touchmove run --setup` in headless Chromium,
//! walking the same steps as the terminal check (web/test/setup.browser.mjs,
//! playwright-core driving /usr/bin/chromium) on a simulated board turned a
//! quarter turn over its sensors (hw/faults/rotated.toml). The test is the
//! builder's hands through the board's hands file (`[sim] hands`); at the
//! end the written profile reads the start position right.
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::Board;
use touchmove_core::scan::Snapshot;
use touchmove_hw::profile::{self, Backend};
use touchmove_hw::{Scan, Scanner, sim};

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_setup_page_walks_the_check_in_chromium() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("touchmove-setup-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(root.join("hw/faults/rotated.toml")).unwrap();
    std::fs::write(
        dir.join("board.toml"),
        original.replace("[sim]\n", "[sim]\nhands = \"hands.txt\"\n"),
    )
    .unwrap();
    let config = dir.join("touchmove.toml");
    std::fs::write(&config, "[board]\nprofile = \"board.toml\"\n").unwrap();
    let port = 19_000 + (std::process::id() % 1000) as u16;
    let daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_touchmove"))
            .args(["run", "--setup", "--config"])
            .arg(&config)
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the daemon starts"),
    );
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the daemon did not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let web = root.join("web");
    let out = Command::new("node")
        .args(["--test", "test/setup.browser.mjs"])
        .current_dir(&web)
        .env("TOUCHMOVE_URL", format!("http://127.0.0.1:{port}/"))
        .env("TOUCHMOVE_HANDS", dir.join("hands.txt"))
        .env(
            "TOUCHMOVE_EXPECT",
            "the board reads as orientation rotate-90",
        )
        .output()
        .expect("node runs (`.ci/run` installs it and the npm packages)");
    drop(daemon);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "setup browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("# fail 0"), "{stdout}");
    assert!(stdout.contains("# pass 5"), "{stdout}");

    let profile = profile::load(dir.join("board.checked.toml")).unwrap();
    let Backend::Sim(mut config) = profile.backend else {
        panic!("a simulated board");
    };
    config.hands = None;
    let mut board = sim::build(&config).unwrap();
    let Scan::Occupancy(read) = board.scan(0).unwrap() else {
        panic!("occupancy");
    };
    assert_eq!(read, Snapshot::of_board(&Board::new()).occupied());
    std::fs::remove_dir_all(&dir).unwrap();
}
