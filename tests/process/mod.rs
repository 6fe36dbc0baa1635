//! `touchmove run` as a child process, for the tests that kill it, restart
//! it, fill its disk or limit its files: started with a plain log on
//! standard output, and the address its log says it serves.
#![allow(dead_code)]
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `touchmove run ARGS`: the binary under test, not under systemd.
pub fn touchmove_run() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_touchmove"));
    command.arg("run");
    command
}

/// Spawns `command` (a daemon, maybe behind a shell) with its log on a
/// pipe; `each_line` sees every line of the log. Returns the child and
/// the address of its `serving http://ADDR/` line (20 s at most).
pub fn spawn_serving(
    mut command: Command,
    mut each_line: impl FnMut(&str) + Send + 'static,
) -> (Child, SocketAddr) {
    let mut child = command
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .env_remove("NOTIFY_SOCKET")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the touchmove binary runs");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            each_line(&line);
            if let Some(rest) = line.split("http://").nth(1)
                && let Some(tx) = tx.take()
            {
                let addr = rest.split('/').next().unwrap_or_default().trim();
                let _ = tx.send(addr.parse::<SocketAddr>().expect("an address"));
            }
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the daemon says where it serves");
    (child, addr)
}
