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
}
