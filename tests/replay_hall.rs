//! A Hall-sensor board end to end: calibrate the simulated board, record a
//! synthesized game on it as analog `hall` records, and replay that trace
//! with `--calibration` to exactly the game's moves.
use std::process::Command;

use shakmaty::Position;
use touchmove_core::trace::{Record, TimedRecord, Trace};
use touchmove_hw::sim::{AnalogModel, SimBoard};
use touchmove_hw::{Scan, Scanner};
use touchmove_synth::{self as synth, HandStyle};

#[test]
fn a_hall_trace_replays_through_the_calibration() {
    let dir = std::env::temp_dir().join(format!("touchmove-hall-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let calibration = dir.join("sim-hall.toml");
    let bin = env!("CARGO_BIN_EXE_touchmove");
    let out = Command::new(bin)
        .args([
            "calibrate",
            "--board",
            "sim-hall",
            "--samples",
            "60",
            "--out",
        ])
        .arg(&calibration)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same simulated magnets (seed 1, noise 4) under a real game's moves.
    let (start, moves) = synth::random_game(7, 40);
    let s = synth::synthesize(&start, &moves, &HandStyle::careful(), 7);
    let mut board = SimBoard::new(s.timeline.clone())
        .unwrap()
        .with_hall(AnalogModel::random(1, 4.0, true), 1);
    let mut trace = Trace::default();
    trace.header = s.trace.header.clone();
    let end = s.trace.records.last().unwrap().t;
    let buttons: Vec<&TimedRecord> = s
        .trace
        .records
        .iter()
        .filter(|r| !matches!(r.record, Record::Occupancy(_)))
        .collect();
    let mut b = 0;
    // One analog scan every 4 ms, the buttons where they were pressed.
    for t in (0..=end).step_by(4) {
        while b < buttons.len() && buttons[b].t <= t {
            trace.records.push(TimedRecord {
                t,
                record: buttons[b].record.clone(),
            });
            b += 1;
        }
        let Scan::Analog(values) = board.scan(t).unwrap() else {
            panic!("the Hall board gives analog scans");
        };
        trace.records.push(TimedRecord {
            t,
            record: Record::Analog(values),
        });
    }
    let path = dir.join("game.trace");
    std::fs::write(&path, trace.to_string()).unwrap();

    let out = Command::new(bin)
        .args(["replay", "--pgn", "--calibration"])
        .arg(&calibration)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = touchmove_core::game::pgn::read_all(&out.stdout[..]).unwrap();
    let game = games.into_iter().next().unwrap().unwrap();
    assert_eq!(game.moves, moves[..game.moves.len()], "the same moves");
    let mut end = start.clone();
    for m in &moves {
        end.play_unchecked(*m);
    }
    assert!(game.moves.len() == moves.len() || end.is_game_over());

    // Without the calibration the analog trace is refused, clearly.
    let out = Command::new(bin).arg("replay").arg(&path).output().unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("calibrat"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
