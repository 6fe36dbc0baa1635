//! `touchmove bench hall` runs end to end on a small hall: the broker, the
//! hall process and the boards start, every event arrives once, and the
//! report says so (the figures themselves are the README's, from a full run).
use std::process::Command;

#[test]
fn a_small_hall_bench_reports_every_event_delivered_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args([
            "bench",
            "hall",
            "--boards",
            "6",
            "--max-plies",
            "8",
            "--speed",
            "60",
            "--json",
        ])
        .output()
        .expect("touchmove runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["boards"], 6);
    let expected = report["events_expected"].as_u64().unwrap();
    assert!(expected > 6 * 8, "{report}");
    assert_eq!(report["events_published"], expected);
    assert_eq!(report["events_received"], expected);
    assert_eq!(report["events_lost"], 0);
    assert_eq!(report["events_duplicated"], 0);
    assert!(report["messages"].as_u64().unwrap() >= expected, "{report}");
    assert!(report["latency_p99_ms"].is_u64(), "{report}");
}

#[test]
fn a_real_time_hall_bench_is_paced_and_reports_the_halls_cpu_share() {
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args([
            "bench",
            "hall",
            "--boards",
            "4",
            "--speed",
            "1",
            "--seconds",
            "6",
            "--json",
        ])
        .output()
        .expect("touchmove runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["speed"], 1.0);
    // Real-time pacing: the games are hours long at 1x, so the boards
    // were stopped by --seconds, not by the end of their games, and the
    // run lasted those seconds.
    assert_eq!(report["stopped_early"], true, "{report}");
    assert!(report["seconds"].as_f64().unwrap() >= 6.0, "{report}");
    let published = report["events_published"].as_u64().unwrap();
    assert!(published >= 4, "every board started its game: {report}");
    assert_eq!(report["events_expected"], published);
    assert_eq!(report["events_received"], published);
    assert_eq!(report["events_lost"], 0);
    let share = report["hall_cpu_share"].as_f64().unwrap();
    let cpu = report["hall_cpu_seconds"].as_f64().unwrap();
    let seconds = report["seconds"].as_f64().unwrap();
    assert!((share - cpu / seconds).abs() < 1e-9, "{report}");
    assert!(report["broker_cpu_share"].is_f64(), "{report}");
}

#[test]
fn bad_bench_arguments_are_refused_with_a_sentence() {
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["bench", "hall", "--boards", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--boards 0: must be 1 to 5000"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["bench", "hall", "--seconds", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--seconds 0: must be above 0"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
