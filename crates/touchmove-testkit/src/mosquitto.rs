//! A private Mosquitto on a loopback port, for the tests and
//! `touchmove bench hall`: the real broker (Debian's `mosquitto`), with
//! password logins and an ACL file, started, stopped and restarted on the
//! same port with its persistence kept.
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Where Debian installs the broker.
pub const MOSQUITTO: &str = "/usr/sbin/mosquitto";
/// And its password tool.
pub const MOSQUITTO_PASSWD: &str = "/usr/bin/mosquitto_passwd";

/// What the broker is started with.
#[derive(Debug, Clone, Default)]
pub struct BrokerSetup {
    /// Usernames and passwords it accepts; empty: anonymous logins.
    pub users: Vec<(String, String)>,
    /// The ACL file (e.g. `systemd/mosquitto/touchmove.acl`).
    pub acl: Option<PathBuf>,
}

/// The files of a TLS listener (PEM): the CA, the broker's certificate
/// and its key.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// A running (or stopped) private broker; dropped, it is killed and its
/// directory removed.
#[derive(Debug)]
pub struct Mosquitto {
    child: Option<Child>,
    dir: PathBuf,
    port: u16,
    tls_port: Option<u16>,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl Mosquitto {
    /// Starts a broker on a free loopback port.
    pub fn start(setup: &BrokerSetup) -> anyhow::Result<Mosquitto> {
        Mosquitto::start_with(setup, None)
    }

    /// Starts a broker with a plain listener and a TLS one, each on a free
    /// loopback port.
    pub fn start_tls(setup: &BrokerSetup, tls: &TlsFiles) -> anyhow::Result<Mosquitto> {
        Mosquitto::start_with(setup, Some(tls))
    }

    fn start_with(setup: &BrokerSetup, tls: Option<&TlsFiles>) -> anyhow::Result<Mosquitto> {
        if !Path::new(MOSQUITTO).exists() {
            bail!("{MOSQUITTO} not found: install Debian's `mosquitto` package");
        }
        let dir = std::env::temp_dir().join(format!(
            "touchmove-mosquitto-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data"))
            .with_context(|| format!("creating {}", dir.display()))?;
        let port = free_port()?;
        let mut conf = format!(
            "listener {port} 127.0.0.1\n\
             persistence true\n\
             persistence_location {}/\n\
             log_dest file {}\n\
             log_type error\nlog_type warning\nlog_type notice\nlog_type information\n\
             max_queued_messages 100000\n\
             max_inflight_messages 100\n",
            dir.join("data").display(),
            dir.join("mosquitto.log").display(),
        );
        if running_as_root() {
            // Mosquitto run by root drops to the `mosquitto` user, which
            // could not read this directory's password file.
            conf.push_str("user root\n");
        }
        if setup.users.is_empty() {
            conf.push_str("allow_anonymous true\n");
        } else {
            // Written in plain text, then hashed in place in one run.
            let passwd = dir.join("passwd");
            let mut plain = String::new();
            for (user, password) in &setup.users {
                if user.contains(':') || user.contains('\n') || password.contains('\n') {
                    bail!("user {user:?}: a ':' in the name or a line break cannot be written");
                }
                plain.push_str(&format!("{user}:{password}\n"));
            }
            std::fs::write(&passwd, plain).context("creating the password file")?;
            let out = Command::new(MOSQUITTO_PASSWD)
                .arg("-U")
                .arg(&passwd)
                .output()
                .with_context(|| format!("running {MOSQUITTO_PASSWD}"))?;
            if !out.status.success() {
                bail!(
                    "{MOSQUITTO_PASSWD} -U refused the password file: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            conf.push_str(&format!(
                "allow_anonymous false\npassword_file {}\n",
                passwd.display()
            ));
        }
        let tls_port = match tls {
            Some(files) => {
                let port = free_port()?;
                conf.push_str(&format!(
                    "listener {port} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\n",
                    files.ca.canonicalize()?.display(),
                    files.cert.canonicalize()?.display(),
                    files.key.canonicalize()?.display(),
                ));
                Some(port)
            }
            None => None,
        };
        if let Some(acl) = &setup.acl {
            let acl = acl
                .canonicalize()
                .with_context(|| format!("the ACL file {}", acl.display()))?;
            conf.push_str(&format!("acl_file {}\n", acl.display()));
        }
        let mut file = std::fs::File::create(dir.join("mosquitto.conf"))?;
        file.write_all(conf.as_bytes())?;
        let mut broker = Mosquitto {
            child: None,
            dir,
            port,
            tls_port,
        };
        broker.resume()?;
        Ok(broker)
    }

    /// `mqtt://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mqtts://localhost:<port>` of the TLS listener, if there is one.
    pub fn tls_url(&self) -> Option<String> {
        self.tls_port.map(|p| format!("mqtts://localhost:{p}"))
    }

    /// The broker's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("mosquitto.log")).unwrap_or_default()
    }

    /// The broker's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Whether the broker process runs.
    pub(crate) fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Stops the broker as a service stop does (SIGTERM: it saves its
    /// persistence and closes every connection) and waits for it.
    pub fn stop(&mut self) -> anyhow::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let pid = child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill()?;
        child.wait()?;
        bail!("mosquitto did not stop within 10 s of SIGTERM; killed")
    }

    /// Starts the stopped broker again on the same port, with what it
    /// persisted.
    pub fn resume(&mut self) -> anyhow::Result<()> {
        if self.is_running() {
            return Ok(());
        }
        let child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(self.dir.join("mosquitto.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {MOSQUITTO}"))?;
        self.child = Some(child);
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if !self.is_running() {
                let mut stderr = String::new();
                if let Some(mut c) = self.child.take()
                    && let Some(mut e) = c.stderr.take()
                {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut stderr);
                }
                bail!(
                    "mosquitto exited at start on port {}: {}{}",
                    self.port,
                    stderr.trim(),
                    self.log()
                );
            }
            if Instant::now() > deadline {
                bail!(
                    "mosquitto did not listen on port {} within 10 s: {}",
                    self.port,
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Restarts the broker on the same port.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.stop()?;
        self.resume()
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> anyhow::Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("finding a free loopback port")?;
    Ok(listener.local_addr()?.port())
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}
