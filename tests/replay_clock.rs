//! `touchmove replay` with a clock: `[%clk]` in the PGN, `clock` events,
//! flag fall ending the game.
use std::process::Command;

use touchmove_core::clock::format_clk;
use touchmove_core::game::pgn::read_all;

fn write_trace(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("touchmove-clock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn replay(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .arg("replay")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

/// 1. e4 e5 2. Nf3 with clock presses at known times.
const OPENING: &str = "# touchmove-trace v1
0 FFFF00000000FFFF
10000 FFFF00000000EFFF
10500 FFFF00001000EFFF
12000 clock white
20000 FFEF00001000EFFF
20400 FFEF00101000EFFF
21000 clock black
25000 FFEF00101000EFBF
25600 FFEF00101020EFBF
26000 clock white
";

#[test]
fn pgn_clk_matches_the_clock_after_each_move() {
    let path = write_trace("opening.trace", OPENING);
    let (stdout, stderr, ok) =
        replay(&[path.to_str().unwrap(), "--pgn", "--time-control", "90+30"]);
    assert!(ok, "{stderr}");
    let game = read_all(stdout.as_bytes()).unwrap().remove(0).unwrap();
    assert_eq!(game.moves.len(), 3);
    // White's clock ran from 0 to 12000, then +30 s; Black's from 12000 to
    // 21000, then +30 s; White's again from 21000 to 26000.
    let white1 = 5_400_000 - 12_000 + 30_000;
    let black1 = 5_400_000 - 9_000 + 30_000;
    let white2 = white1 - 5_000 + 30_000;
    assert_eq!(
        game.clocks,
        [
            Some(white1 / 1000 * 1000),
            Some(black1 / 1000 * 1000),
            Some(white2 / 1000 * 1000)
        ]
    );
    assert!(
        stdout.contains(&format!("[%clk {}]", format_clk(white1))),
        "{stdout}"
    );
    assert!(stdout.contains("[TimeControl \"5400+30\"]"), "{stdout}");
}

#[test]
fn clock_events_carry_both_times_and_the_running_side() {
    let path = write_trace("opening-events.trace", OPENING);
    let (stdout, _, ok) = replay(&[
        path.to_str().unwrap(),
        "--events",
        "--time-control",
        "90+30",
    ]);
    assert!(ok);
    let clocks: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "clock")
        .collect();
    assert_eq!(clocks.len(), 4, "start and three presses: {clocks:?}");
    assert_eq!(clocks[0]["running"], "white");
    assert_eq!(clocks[0]["white_ms"], 5_400_000);
    assert_eq!(clocks[1]["running"], "black");
    assert_eq!(clocks[1]["white_ms"], 5_400_000 - 12_000 + 30_000);
    assert_eq!(clocks[1]["black_ms"], 5_400_000);
}

#[test]
fn a_flag_fall_ends_the_game_lost_or_drawn() {
    // White thinks past a one-minute flag; Black can mate: 0-1.
    let path = write_trace("flag.trace", "0 FFFF00000000FFFF\n70000 FFFF00000000FFFF\n");
    let (stdout, _, ok) = replay(&[path.to_str().unwrap(), "--events", "--time-control", "1+0"]);
    assert!(ok);
    let over: serde_json::Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "game_over")
        .expect("the flag ends the game");
    assert_eq!(
        (
            over["result"].as_str(),
            over["reason"].as_str(),
            over["t_ms"].as_u64()
        ),
        (Some("0-1"), Some("flag"), Some(60_000))
    );

    // King and rook against a lone king: the rook side's flag falls, the
    // lone king cannot mate: drawn (6.9).
    let fen = "8/8/8/4k3/8/8/2R5/4K3 w - - 0 60";
    let occ = "0000001000000410"; // e5; c2; e1
    let path = write_trace(
        "flag-draw.trace",
        &format!("#! start-fen: {fen}\n0 {occ}\n70000 {occ}\n"),
    );
    let (stdout, stderr, ok) =
        replay(&[path.to_str().unwrap(), "--events", "--time-control", "1+0"]);
    assert!(ok, "{stderr}");
    let over: serde_json::Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "game_over")
        .expect("the flag ends the game");
    assert_eq!(
        (over["result"].as_str(), over["reason"].as_str()),
        (Some("1/2-1/2"), Some("flag_unwinnable"))
    );
}

#[test]
fn malformed_input_prints_nothing_on_stdout() {
    let path = write_trace("bad.trace", "0 FFFF00000000FFFF\n5 FFFF0000000FFFF\n");
    let (stdout, stderr, ok) = replay(&[path.to_str().unwrap(), "--events"]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(stderr.contains("bad.trace:2"), "{stderr}");
    let good = write_trace("good.trace", "0 FFFF00000000FFFF\n");
    let (_, stderr, ok) = replay(&[good.to_str().unwrap(), "--time-control", "90+3x"]);
    assert!(!ok);
    assert!(stderr.contains("3x"), "{stderr}");
}

/// Fool's mate, f3 e5 g4 Qh4#: mate ends the game at the move, which is
/// never pressed (5.1a); its `[%clk]` is the clock's reading at the end.
const FOOLS_MATE: &str = "# touchmove-trace v1
0 FFFF00000000FFFF
10000 FFFF00000000DFFF
10500 FFFF00000020DFFF
12000 clock white
20000 FFEF00000020DFFF
20400 FFEF00100020DFFF
21000 clock black
25000 FFEF001000209FFF
25600 FFEF001040209FFF
26000 clock white
30000 F7EF001040209FFF
31000 F7EF0010C0209FFF
33000 F7EF0010C0209FFF
";

#[test]
fn the_move_that_ends_the_game_carries_its_clk_too() {
    let path = write_trace("fools-mate.trace", FOOLS_MATE);
    let (stdout, stderr, ok) =
        replay(&[path.to_str().unwrap(), "--pgn", "--time-control", "90+30"]);
    assert!(ok, "{stderr}");
    let game = read_all(stdout.as_bytes()).unwrap().remove(0).unwrap();
    assert_eq!(game.moves.len(), 4, "{stdout}");
    assert!(stdout.contains("Qh4#"), "{stdout}");
    assert!(stdout.contains("0-1"), "{stdout}");
    let black1 = 5_400_000 - 9_000 + 30_000;
    // Black's clock ran from the press at 26000 to the mate, made on the
    // queen's release at 31000 (settled a little later).
    let last = game.clocks[3].unwrap_or_else(|| panic!("no [%clk] on the mate: {stdout}"));
    assert!(
        (black1 - 6_000..=black1 - 5_000).contains(&last),
        "{last} ms, Black had {black1} ms at 26000:\n{stdout}"
    );
}
