//! `touchmove hall`: the arbiter's dashboard and the round's broadcast
//! feed for a hall of boards. Every board's daemon publishes to an MQTT
//! broker (the contract: [`touchmove_wire::mqtt`]); the hall
//! subscribes to `touchmove/v1/<hall>/+/+`, keeps each board's state in a
//! pure [`registry::Registry`] (dedup by `(game, seq)`, gaps answered by
//! replay requests, the arbiter's alerts), and serves it over HTTP
//! ([`http`]): the dashboard, its SSE feed, the boards as JSON, one PGN of
//! the whole round for broadcast services, and control (acknowledge an
//! alert, ask a board to replay a game).
//!
//! With [`HallOptions::lichess`], the round is also pushed to a Lichess
//! broadcast ([`lichess`]), its state served as `GET /push.json`.
//!
//! In-process (tests, benchmarks): [`start`] with [`HallOptions`] returns
//! a [`RunningHall`] hall with its bound address; [`RunningHall::stop`] ends it.
pub mod acks;
pub mod config;
pub mod delivery;
pub mod http;
pub mod lichess;
pub mod limits;
pub mod link;
pub mod missing;
pub mod order;
pub mod registry;
pub mod rejects;
pub mod severity;
pub mod subscriber;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::sync::broadcast;

use registry::Registry;
use touchmove_wire::mqtt as wire;
use touchmove_wire::serve::{Limits, StreamSlots, serve};

/// Everything a hall is started with.
#[derive(Debug, Clone)]
pub struct HallOptions {
    /// `mqtt://HOST[:PORT]` (port 1883 by default).
    pub broker: String,
    /// The hall id: the third topic level.
    pub hall: String,
    /// Where the HTTP server listens (port 0: any free port).
    pub bind: SocketAddr,
    /// The broker login (the example ACL's hall user is `hall`).
    pub username: String,
    /// `None`: no password sent.
    pub password: Option<String>,
    /// The bearer token of the control endpoints; `None`: control disabled.
    pub token: Option<String>,
    /// The round, set as `[Round]` in the PGN served; `None` keeps each
    /// board's own.
    pub round: Option<String>,
    /// The MQTT client id (default `touchmove-hall-<hall>`; a broker with
    /// `use_username_as_clientid`, as the example's, uses the username
    /// instead). The session is persistent: events published while the
    /// hall is down are queued by the broker for it.
    pub client_id: Option<String>,
    /// `mqtts://` only: the CA certificates (PEM) the broker's certificate
    /// is checked against; `None`: the system's roots.
    pub ca_file: Option<PathBuf>,
    /// Where the arbiter's acknowledgements are kept across restarts;
    /// `None`: in memory only.
    pub acks: Option<PathBuf>,
    /// Push the round to a Lichess broadcast; `None`: no push.
    pub lichess: Option<lichess::LichessOptions>,
}

impl HallOptions {
    /// Options with the defaults of the command line.
    pub fn new(broker: &str, hall: &str) -> HallOptions {
        HallOptions {
            broker: broker.to_owned(),
            hall: hall.to_owned(),
            bind: SocketAddr::from(([127, 0, 0, 1], 8090)),
            username: "hall".into(),
            password: None,
            token: None,
            round: None,
            client_id: None,
            ca_file: None,
            acks: None,
            lichess: None,
        }
    }
}

/// A broker address.
pub(crate) type BrokerAddr = touchmove_wire::broker_url::BrokerUrl;

/// Reads `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` as the boards'
/// `[mqtt] broker` is read.
pub(crate) fn parse_broker(url: &str) -> anyhow::Result<BrokerAddr> {
    url.parse()
        .map_err(|e| anyhow::anyhow!("--broker {url:?}: {e}"))
}

/// What the HTTP server sends its streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A board's view or alerts changed.
    Board(String),
    /// The hall's own news: broker connection, bad payloads.
    Hall,
    /// The hall is stopping: streams end.
    Close,
}

/// What the subscriber and the HTTP server share.
#[derive(Debug)]
pub struct Shared {
    registry: Mutex<Registry>,
    notices: broadcast::Sender<Notice>,
    connected: AtomicBool,
    /// The link to the broker: whether the hall is receiving.
    link: Mutex<link::Link>,
    pub round: Option<String>,
    pub token: Option<String>,
    /// Where the arbiter's acknowledgements are kept (`--acks`).
    pub acks: Option<PathBuf>,
}

impl Shared {
    pub fn new(hall: &str, round: Option<String>, token: Option<String>) -> Arc<Shared> {
        Shared::with_acks(hall, round, token, None)
    }

    /// A hall that keeps the acknowledgements in `acks` (read first).
    pub(crate) fn with_acks(
        hall: &str,
        round: Option<String>,
        token: Option<String>,
        acks: Option<PathBuf>,
    ) -> Arc<Shared> {
        let (notices, _) = broadcast::channel(4096);
        Arc::new(Shared {
            registry: Mutex::new(Registry::new(hall)),
            notices,
            connected: AtomicBool::new(false),
            link: Mutex::new(link::Link::new()),
            round,
            token,
            acks,
        })
    }

    /// Writes the acknowledgements to the `--acks` file, if there is one.
    pub(crate) fn save_acks(&self) -> anyhow::Result<()> {
        let Some(path) = &self.acks else {
            return Ok(());
        };
        let keys = self.registry().acknowledged_keys().clone();
        acks::save(path, &keys)
    }

    /// The registry (a poisoned lock is taken over: the registry never
    /// panics half-way through a change it could not finish).
    pub fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn notify(&self, notice: Notice) {
        let _ = self.notices.send(notice);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.notices.subscribe()
    }

    /// The link to the broker (connects, failures, session resets).
    pub fn link(&self) -> MutexGuard<'_, link::Link> {
        self.link.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the broker connection is up.
    pub fn connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed)
    }

    fn set_connected(&self, up: bool) {
        if self.connected.swap(up, Ordering::Relaxed) != up {
            self.notify(Notice::Hall);
        }
    }
}

/// A running hall.
pub struct RunningHall {
    /// The address the HTTP server listens on.
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    subscriber: subscriber::Subscriber,
    pusher: Option<lichess::Pusher>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    shutdown: tokio::sync::oneshot::Sender<()>,
}

/// Connects to the broker (in the background: the hall serves its page
/// while it connects and reconnects) and starts the HTTP server.
pub async fn start(options: HallOptions) -> anyhow::Result<RunningHall> {
    wire::check_id(&options.hall).map_err(|e| anyhow::anyhow!("--hall: {e}"))?;
    let broker = parse_broker(&options.broker)?;
    let listener = TcpListener::bind(options.bind)
        .await
        .with_context(|| format!("cannot listen on {}", options.bind))?;
    let addr = listener.local_addr()?;
    let shared = Shared::with_acks(
        &options.hall,
        options.round.clone(),
        options.token.clone(),
        options.acks.clone(),
    );
    if let Some(path) = &options.acks {
        let keys = acks::load(path)?;
        tracing::info!(
            "{} acknowledged alerts read from {}",
            keys.len(),
            path.display()
        );
        shared.registry().remember_acknowledged(keys);
    }
    let push_status: lichess::SharedStatus = Arc::new(Mutex::new(lichess::PushStatus::disabled()));
    if let Some(o) = &options.lichess {
        o.check().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let subscriber = subscriber::spawn(&options, &broker, Arc::clone(&shared))?;
    // Started after the subscriber: it reads the registry first, so no
    // board's news is missed.
    let pusher = match &options.lichess {
        Some(o) => Some(lichess::spawn(
            o.clone(),
            Arc::clone(&shared),
            Arc::clone(&push_status),
        )?),
        None => None,
    };
    let limits = Limits::for_this_process();
    let app = http::router(http::HallState {
        shared: Arc::clone(&shared),
        publisher: subscriber.publisher(),
        streams: StreamSlots::new(limits.max_streams),
    })
    .merge(lichess::status::router(push_status));
    let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        serve(listener, app, limits, async {
            let _ = shutdown_rx.await;
        })
        .await
    });
    tracing::info!(
        "hall {:?}: dashboard at http://{addr}/, broker {}:{}",
        options.hall,
        broker.host,
        broker.port
    );
    Ok(RunningHall {
        addr,
        shared,
        subscriber,
        pusher,
        server,
        shutdown,
    })
}

impl RunningHall {
    /// The registry, for tests and benchmarks.
    pub fn registry(&self) -> MutexGuard<'_, Registry> {
        self.shared.registry()
    }

    /// Disconnects from the broker, ends every stream and the server.
    pub async fn stop(self) -> anyhow::Result<()> {
        self.subscriber.stop().await;
        if let Some(pusher) = self.pusher {
            pusher.stop().await;
        }
        self.shared.notify(Notice::Close);
        let _ = self.shutdown.send(());
        match tokio::time::timeout(Duration::from_secs(5), self.server).await {
            Ok(result) => result??,
            Err(_) => tracing::warn!("HTTP connections still open after 5 s; leaving them"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls() {
        assert_eq!(
            parse_broker("mqtt://127.0.0.1:1884").unwrap(),
            BrokerAddr {
                tls: false,
                host: "127.0.0.1".into(),
                port: 1884
            }
        );
        assert_eq!(parse_broker("mqtt://hall.local").unwrap().port, 1883);
        assert_eq!(parse_broker("mqtt://[::1]:1885").unwrap().host, "::1");
        for bad in [
            "tcp://x:1",
            "mqtt://",
            "mqtt://x:port",
            "mqtt://u:p@x:1",
            "mqtt://x:0",
        ] {
            assert!(parse_broker(bad).is_err(), "{bad}");
        }
        let tls = parse_broker("mqtts://x").unwrap();
        assert!(tls.tls);
        assert_eq!(tls.port, 8883);
    }
}
