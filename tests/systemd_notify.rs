//! systemd notifications: `touchmove run --demo` with `$NOTIFY_SOCKET` on
//! a datagram socket this test binds says READY=1 once the board is read,
//! pings WATCHDOG=1 when `$WATCHDOG_USEC` asks for it, and STOPPING=1 when
//! SIGTERM stops it.
use std::os::unix::net::UnixDatagram;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The messages received until one contains `wanted` (or the time is up).
fn until(socket: &UnixDatagram, wanted: &str, within: Duration) -> Vec<String> {
    let began = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while began.elapsed() < within {
        match socket.recv(&mut buf) {
            Ok(n) => {
                let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                let done = text.lines().any(|l| l == wanted);
                got.push(text);
                if done {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("{e}"),
        }
    }
    got
}

fn has(messages: &[String], wanted: &str) -> bool {
    messages.iter().any(|m| m.lines().any(|l| l == wanted))
}

#[test]
fn run_demo_says_ready_pings_the_watchdog_and_says_stopping() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("systemd-notify");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("notify-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let socket = UnixDatagram::bind(&path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["run", "--demo", "--bind", "127.0.0.1:0", "--seed", "1"])
        .env("NOTIFY_SOCKET", &path)
        .env("WATCHDOG_USEC", "200000")
        .env_remove("WATCHDOG_PID")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the touchmove binary runs");

    let ready = until(&socket, "READY=1", Duration::from_secs(20));
    assert!(has(&ready, "READY=1"), "no READY=1: {ready:?}");
    assert!(
        !has(&ready, "WATCHDOG=1"),
        "a watchdog ping before READY=1: {ready:?}"
    );
    let pings = until(&socket, "WATCHDOG=1", Duration::from_secs(5));
    assert!(has(&pings, "WATCHDOG=1"), "no WATCHDOG=1: {pings:?}");

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stopping = until(&socket, "STOPPING=1", Duration::from_secs(10));
    let exit = child.wait().unwrap();
    assert!(has(&stopping, "STOPPING=1"), "no STOPPING=1: {stopping:?}");
    assert!(exit.success(), "{exit}");
    let _ = std::fs::remove_file(&path);
}
