//! The display in headless Chromium against the real daemon running the
//! demo: the board shows the position after a known move, a displaced
//! square is highlighted and the players' banner says what to put back, the
//! clocks run, neither page overflows or clips a clock from 320 to 2560 px,
//! the board is square on a phone, axe-core finds no serious or critical
//! violation (light, dark, high contrast), the theme follows the browser's
//! colour scheme, contrast and reduced-motion settings, the arbiter's history
//! names its columns and gives the move, and when the daemon is stopped the
//! display says the connection is lost and stops its clocks, then resyncs
//! when it is started again (web/test/display.test.mjs, driven by
//! tests/browser.sh; `.ci/run` installs Chromium and the npm packages).
use std::process::Command;

#[test]
fn the_display_shows_the_game_in_chromium() {
    let root = env!("CARGO_MANIFEST_DIR");
    let port = 18_000 + (std::process::id() % 1000) as u16;
    let out = Command::new("sh")
        .arg(format!("{root}/tests/browser.sh"))
        .arg(port.to_string())
        .env("TOUCHMOVE_BIN", env!("CARGO_BIN_EXE_touchmove"))
        .env(
            "TOUCHMOVE_ARTEFACTS",
            format!("{root}/target/browser-artefacts"),
        )
        .output()
        .expect("sh runs tests/browser.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("# fail 0"), "{stdout}");
    assert!(stdout.contains("# pass 10"), "{stdout}");
}

/// The page's game model (web/test/model.test.mjs) and the committed build:
/// `web/dist` must be what `web/src` builds to.
#[test]
fn the_page_model_holds_and_the_committed_build_matches_its_sources() {
    let web = concat!(env!("CARGO_MANIFEST_DIR"), "/web");
    for (program, args) in [
        ("node", &["--test", "test/model.test.mjs"][..]),
        ("npm", &["run", "--silent", "check"][..]),
    ] {
        let out = Command::new(program)
            .args(args)
            .current_dir(web)
            .output()
            .unwrap_or_else(|e| panic!("{program} runs (`.ci/run` installs it): {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{program} {args:?} failed:\n{stdout}\n{stderr}"
        );
    }
}
