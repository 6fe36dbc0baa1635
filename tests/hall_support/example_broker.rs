//! The real Mosquitto run with the example configuration itself,
//! `systemd/mosquitto/touchmove.conf` (and its ACL), its paths moved to a
//! private directory and its listener to a free loopback port; every other
//! line as shipped.
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use touchmove_testkit::mosquitto::{MOSQUITTO, MOSQUITTO_PASSWD};

const CONF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/systemd/mosquitto/touchmove.conf"
);
const ACL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/systemd/mosquitto/touchmove.acl"
);

static NEXT: AtomicU32 = AtomicU32::new(0);

pub struct ExampleBroker {
    child: Child,
    dir: PathBuf,
    port: u16,
}

/// The example configuration with its paths in `dir` and its listener on
/// `port`.
pub fn render(conf: &str, dir: &Path, port: u16) -> String {
    let mut out = String::new();
    for line in conf.lines() {
        let key = line.split_whitespace().next().unwrap_or("");
        let line = match key {
            "listener" => format!("listener {port} 127.0.0.1"),
            "password_file" => format!("password_file {}", dir.join("passwd").display()),
            "acl_file" => format!("acl_file {ACL}"),
            "persistence_location" => {
                format!("persistence_location {}/", dir.join("data").display())
            }
            _ => line.to_owned(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "log_dest file {}\nlog_type all\n",
        dir.join("mosquitto.log").display()
    ));
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if root {
        out.push_str("user root\n");
    }
    out
}

impl ExampleBroker {
    /// Starts the broker with these logins.
    pub fn start(users: &[(&str, &str)]) -> ExampleBroker {
        let dir = std::env::temp_dir().join(format!(
            "touchmove-example-broker-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let plain: String = users.iter().map(|(u, p)| format!("{u}:{p}\n")).collect();
        std::fs::write(dir.join("passwd"), plain).unwrap();
        let hashed = Command::new(MOSQUITTO_PASSWD)
            .arg("-U")
            .arg(dir.join("passwd"))
            .status()
            .unwrap();
        assert!(hashed.success(), "mosquitto_passwd -U");
        let conf = render(&std::fs::read_to_string(CONF).unwrap(), &dir, port);
        std::fs::write(dir.join("mosquitto.conf"), conf).unwrap();
        let child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(dir.join("mosquitto.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut broker = ExampleBroker { child, dir, port };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                matches!(broker.child.try_wait(), Ok(None)),
                "mosquitto exited at start with the example configuration: {}",
                broker.log()
            );
            assert!(
                Instant::now() < deadline,
                "mosquitto did not listen: {}",
                broker.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        broker
    }

    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("mosquitto.log")).unwrap_or_default()
    }
}

impl Drop for ExampleBroker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
