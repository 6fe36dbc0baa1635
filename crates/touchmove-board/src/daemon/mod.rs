//! `touchmove run`: the daemon. A scan loop on its own thread drives the
//! session ([`game_loop`]) and hands each step's events to the journal
//! writer ([`writer`]), which commits them to the journal and only then
//! publishes them to the feed that the HTTP server
//! ([`crate::outputs::http`]) serves. At start an unfinished game in the
//! journal is carried on ([`resume`]). With `[mqtt]` (or `--mqtt-broker`)
//! the board also publishes the feed to the hall's broker
//! ([`crate::outputs::mqtt::publisher`]), which never makes the scan loop
//! or the writer wait. systemd hears of readiness and liveness
//! ([`notify`]). SIGINT/SIGTERM stop everything cleanly (MQTT last:
//! what is left, then `offline`).
//!
//! Without `--config` (or with `--demo`) it runs the embedded demo
//! ([`demo`]): a corpus game played by simulated hands at human speed,
//! with a 90+30 clock, served at http://127.0.0.1:8080.
pub mod board_input;
pub mod demo;
pub mod game_loop;
pub mod notify;
pub mod resume;
pub mod setup;
pub mod writer;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::config;
pub use crate::config::ClockDowntime;
use crate::outputs::control::Control;
use crate::outputs::feed::Feed;
use crate::outputs::http::{self, AppState};
use crate::outputs::mqtt::publisher::{self, MqttHealth, Publisher};
use crate::stop_signals::StopSignals;
use game_loop::{GameLoop, GameSource, LoopConfig};
use touchmove_core::clock::TimeControl;
use touchmove_core::game::Profile;
use touchmove_core::game::pgn::Tags;
use touchmove_core::inference::{InferenceConfig, ResumedBoard};
use touchmove_wire::broker_url::BrokerUrl;
use touchmove_wire::serve::{self, Limits, StreamSlots};

/// Arguments of `touchmove run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The configuration file (TOML, see systemd/touchmove.toml). Without
    /// it, the demo runs.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run the demo: a corpus game played on a simulated board.
    #[arg(long)]
    pub demo: bool,
    /// Address to serve HTTP on (default: the configuration's, else 127.0.0.1:8080).
    #[arg(long)]
    pub bind: Option<SocketAddr>,
    /// Game time runs this many times faster than the wall clock (demo).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// The demo's time control (default 90+30).
    #[arg(long)]
    pub time_control: Option<String>,
    /// The clocks stand while the board is displaced or an illegal move
    /// awaits reinstatement (Article 6.13). Overrides `[rules]
    /// stop-clocks-on-alert` when given.
    #[arg(long)]
    pub stop_clocks_on_alert: bool,
    /// A file whose first line is the bearer token of the control endpoints.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// The demo's seed (default: from the time).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The journal (SQLite) every event is committed to before it is
    /// published; an unfinished game in it is carried on. Overrides the
    /// configuration's `[journal] path`; the demo keeps none without it.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Replay this recorded trace in real time (times --speed) instead of
    /// the demo: one game, for tests and demonstrations.
    #[arg(long, hide = true, conflicts_with_all = ["config", "demo"])]
    pub trace: Option<PathBuf>,
    /// What the time the daemon was down does to a resumed game's clock:
    /// `pause` (the clocks stood) or `charge` (the running side's time kept
    /// falling). Overrides `[journal] clock-downtime`.
    #[arg(long)]
    pub clock_downtime: Option<ClockDowntime>,
    /// Publish to this MQTT broker (mqtt://host[:port] or mqtts://...);
    /// with --hall and --board when the configuration has no [mqtt].
    /// Overrides `[mqtt] broker`.
    #[arg(long, value_name = "URL")]
    pub mqtt_broker: Option<BrokerUrl>,
    /// The hall id (overrides `[mqtt] hall`).
    #[arg(long)]
    pub hall: Option<String>,
    /// This board's id (overrides `[mqtt] board`).
    #[arg(long)]
    pub board: Option<String>,
    /// The MQTT login (overrides `[mqtt] username`; default: the board id).
    #[arg(long)]
    pub mqtt_username: Option<String>,
    /// A file whose first line is the MQTT password (overrides
    /// `[mqtt] password-file`).
    #[arg(long)]
    pub mqtt_password_file: Option<PathBuf>,
    /// Bring-up instead of a game: the board check of `touchmove board
    /// check` served at /setup, for a Pi without a keyboard (needs --config).
    #[arg(long, requires = "config")]
    pub setup: bool,
    /// The MQTT keep-alive in seconds (overrides `[mqtt] keep-alive`).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub mqtt_keep_alive: Option<u64>,
}

/// Everything a daemon is started with.
pub struct Options {
    pub bind: SocketAddr,
    pub token: Option<String>,
    pub speed: f64,
    pub source: GameSource,
    pub profile: Option<Profile>,
    pub time_control: Option<TimeControl>,
    /// The clocks stand while the board needs the arbiter (6.13).
    pub stop_clocks_on_alert: bool,
    pub tags: Tags,
    /// The journal file, if games are journalled.
    pub journal: Option<PathBuf>,
    /// Carry on with the journal's unfinished game (else a new game closes it).
    pub resume: bool,
    pub clock_downtime: ClockDowntime,
    /// Publish to an MQTT broker (`[mqtt]`).
    pub mqtt: Option<config::Mqtt>,
    /// A resumed game whose board moved on while the daemon was down:
    /// search for the moves, or leave them to the arbiter
    /// (`[journal] downtime`).
    pub resumed_board: ResumedBoard,
    /// The longest run of missed plies searched (`[journal] max-missed-plies`).
    pub max_missed_plies: usize,
    /// Connection and stream caps, timeouts of the HTTP server.
    pub http_limits: Limits,
    /// The scan loop's time: the wall clock, or a virtual one in tests.
    pub clock: Arc<dyn crate::time::LoopClock>,
}

impl Options {
    /// A daemon on `source` with every other setting at its default: the
    /// display on 127.0.0.1:8080, real time, no token (control disabled),
    /// no clock, no journal, no MQTT.
    pub fn new(source: GameSource) -> Options {
        Options {
            bind: config::DEFAULT_BIND.parse().expect("a valid address"),
            token: None,
            speed: 1.0,
            source,
            profile: None,
            time_control: None,
            stop_clocks_on_alert: false,
            tags: Tags::default(),
            journal: None,
            resume: true,
            clock_downtime: ClockDowntime::default(),
            mqtt: None,
            resumed_board: ResumedBoard::Infer,
            max_missed_plies: InferenceConfig::default().max_missed_plies,
            http_limits: Limits::for_open_files(1024),
            clock: crate::time::wall(),
        }
    }
}

/// A running daemon.
pub struct Running {
    /// The address the HTTP server listens on.
    pub addr: SocketAddr,
    pub feed: Arc<Feed>,
    stop: Arc<AtomicBool>,
    scan_thread: std::thread::JoinHandle<()>,
    writer_thread: std::thread::JoinHandle<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    shutdown: tokio::sync::oneshot::Sender<()>,
    mqtt: Option<Publisher>,
}

/// Starts the scan loop and the HTTP server.
pub async fn start(options: Options) -> anyhow::Result<Running> {
    if !(options.speed.is_finite() && options.speed > 0.0) {
        anyhow::bail!("--speed must be a positive number, not {}", options.speed);
    }
    let listener = TcpListener::bind(options.bind).await.with_context(|| {
        format!(
            "cannot listen on {} (`[http] bind` in the configuration, or --bind)",
            options.bind
        )
    })?;
    let addr = listener.local_addr()?;
    let feed = Feed::new(
        1024,
        options.tags,
        touchmove_core::game::Start::standard().fen(),
    );
    let journal = match &options.journal {
        Some(path) => Some(resume::open(
            path,
            options.resume,
            options.clock_downtime,
            options.speed,
            &feed,
        )?),
        None => None,
    };
    let (journal, reopen, current, resumed) = match journal {
        Some(opened) => (opened.journal, opened.reopen, opened.current, opened.resume),
        None => (None, None, None, None),
    };
    let writer = writer::spawn(Arc::clone(&feed), journal, reopen, current)?;
    // Started before the scan loop: it publishes the game from its start.
    let mqtt = match &options.mqtt {
        Some(settings) => Some(publisher::spawn(
            settings,
            Arc::clone(&feed),
            options.journal.clone(),
        )?),
        None => None,
    };
    let (inbox_tx, inbox_rx) = mpsc::channel(16);
    let stop = Arc::new(AtomicBool::new(false));
    let loop_config = LoopConfig {
        source: options.source,
        speed: options.speed,
        tick: Duration::from_millis(5),
        profile: options.profile,
        time_control: options.time_control.clone(),
        stop_clocks_on_alert: options.stop_clocks_on_alert,
        pause_between_games: Duration::from_secs(6),
        resume: resumed,
        resumed_board: options.resumed_board,
        max_missed_plies: options.max_missed_plies,
        clock: Arc::clone(&options.clock),
    };
    if let Some(tc) = &options.time_control {
        let pgn = tc.to_pgn();
        feed.update_tags(|t| t.time_control = Some(pgn));
    }
    // The loop is built on its thread (the board's scanner is opened there
    // and never leaves it); setup errors come back before the server starts.
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let thread_feed = Arc::clone(&feed);
    let thread_stop = Arc::clone(&stop);
    let writer_tx = writer.tx;
    let storage = writer.notices;
    let durability = Arc::clone(&writer.durability);
    let scan_thread = std::thread::Builder::new()
        .name("scan-loop".into())
        .spawn(move || {
            match GameLoop::new(
                thread_feed,
                writer_tx,
                storage,
                inbox_rx,
                thread_stop,
                loop_config,
            ) {
                Ok(game_loop) => {
                    let _ = ready_tx.send(Ok(()));
                    game_loop.run();
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            }
        })?;
    ready_rx
        .recv()
        .context("the scan loop stopped while starting")??;

    let limits = options.http_limits;
    let state = AppState {
        feed: Arc::clone(&feed),
        control: Control {
            token: options.token,
            inbox: inbox_tx,
        },
        mqtt: mqtt.as_ref().map(Publisher::health),
        journal: options.journal.is_some().then_some(durability),
        streams: StreamSlots::new(limits.max_streams),
    };
    let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
    let app = http::router(state);
    let server = tokio::spawn(async move {
        serve::serve(listener, app, limits, async {
            let _ = shutdown_rx.await;
        })
        .await
    });
    Ok(Running {
        addr,
        feed,
        stop,
        scan_thread,
        writer_thread: writer.thread,
        server,
        shutdown,
        mqtt,
    })
}

impl Running {
    /// The MQTT link (`None` without `[mqtt]`).
    pub fn mqtt(&self) -> Option<Arc<MqttHealth>> {
        self.mqtt.as_ref().map(Publisher::health)
    }

    /// Stops the scan loop, ends every stream and the server; then the
    /// MQTT publisher publishes what is left and `offline`.
    pub async fn stop(self) -> anyhow::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        self.feed.close();
        let _ = self.shutdown.send(());
        match tokio::time::timeout(Duration::from_secs(5), self.server).await {
            Ok(result) => result??,
            Err(_) => tracing::warn!("HTTP connections still open after 5 s; leaving them"),
        }
        let thread = self.scan_thread;
        tokio::task::spawn_blocking(move || thread.join())
            .await?
            .map_err(|_| anyhow::anyhow!("the scan loop panicked"))?;
        // The scan loop's end closes the writer's queue: it commits what is
        // left, then stops.
        let writer = self.writer_thread;
        tokio::task::spawn_blocking(move || writer.join())
            .await?
            .map_err(|_| anyhow::anyhow!("the journal writer panicked"))?;
        if let Some(mqtt) = self.mqtt {
            mqtt.stop().await;
        }
        Ok(())
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Under systemd (JOURNAL_STREAM set) journald adds the time itself.
    let journald = std::env::var_os("JOURNAL_STREAM").is_some();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let result = if journald {
        builder.without_time().with_ansi(false).try_init()
    } else {
        builder.try_init()
    };
    let _ = result;
}

/// The daemon's settings: the configuration file's (or the demo's, or a
/// trace's), then the command line's flags over them.
fn options_of(args: &RunArgs) -> anyhow::Result<Options> {
    let mut options = match (&args.config, args.demo) {
        (Some(path), false) => {
            let config = config::load(path)?;
            Options::from_config(&config)?
        }
        (None, false) if args.trace.is_some() => {
            let path = args.trace.as_deref().expect("checked");
            let trace = touchmove_hw::trace_file::read(path)
                .with_context(|| format!("--trace {}", path.display()))?;
            Options::new(GameSource::Trace(Box::new(trace)))
        }
        _ => {
            let seed = args.seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
            let mut demo = Options::new(GameSource::Demo { seed, faults: true });
            demo.time_control = Some(
                touchmove_core::replay::parse_time_control("90+30").expect("a valid time control"),
            );
            demo
        }
    };
    options.http_limits = Limits::for_this_process();
    args.override_options(&mut options)?;
    Ok(options)
}

impl Options {
    /// The settings of a configuration file (a board).
    fn from_config(config: &config::Config) -> anyhow::Result<Options> {
        let calibration = match &config.calibration {
            Some(p) => Some(Box::new(touchmove_hw::calibration::load_calibration(p)?)),
            None => None,
        };
        let mut options = Options::new(GameSource::Board {
            profile: Box::new(config.board.clone()),
            calibration,
        });
        options.bind = config.http.bind;
        options.token = config.http.token.clone();
        options.profile = Some(config.rules);
        options.time_control = config.time_control.clone();
        options.stop_clocks_on_alert = config.stop_clocks_on_alert;
        options.tags = Tags {
            event: config.game.event.clone(),
            site: config.game.site.clone(),
            round: config.game.round.clone(),
            white: config.game.white.clone(),
            black: config.game.black.clone(),
            extra: config.game.extra.clone(),
            ..Tags::default()
        };
        options.journal = Some(config.journal.path.clone());
        options.resume = config.journal.on_start == config::OnStart::Resume;
        options.clock_downtime = config.journal.clock_downtime;
        options.mqtt = config.mqtt.clone();
        options.resumed_board = match config.journal.downtime {
            config::BoardMismatch::Infer => ResumedBoard::Infer,
            config::BoardMismatch::Arbiter => ResumedBoard::AskArbiter,
        };
        options.max_missed_plies = usize::from(config.journal.max_missed_plies);
        Ok(options)
    }
}

impl RunArgs {
    /// The flags given, over `options` (a board keeps real time: `--speed`
    /// is for the demo and traces).
    fn override_options(&self, options: &mut Options) -> anyhow::Result<()> {
        if let Some(bind) = self.bind {
            options.bind = bind;
        }
        if let Some(file) = &self.token_file {
            options.token =
                Some(config::read_token(file).map_err(|e| anyhow::anyhow!("--token-file: {e}"))?);
        }
        if !matches!(options.source, GameSource::Board { .. }) {
            options.speed = self.speed;
        }
        if let Some(tc) = &self.time_control {
            options.time_control =
                Some(touchmove_core::replay::parse_time_control(tc).context("--time-control")?);
        }
        options.stop_clocks_on_alert |= self.stop_clocks_on_alert;
        if let Some(journal) = &self.journal {
            options.journal = Some(journal.clone());
        }
        if let Some(downtime) = self.clock_downtime {
            options.clock_downtime = downtime;
        }
        options.mqtt = mqtt_of(self, options.mqtt.take())?;
        Ok(())
    }
}

/// The `[mqtt]` settings with the command line's overrides; from the
/// command line alone (`--mqtt-broker`, `--hall`, `--board`) without the
/// section.
fn mqtt_of(
    args: &RunArgs,
    from_config: Option<config::Mqtt>,
) -> anyhow::Result<Option<config::Mqtt>> {
    let mut mqtt = match (from_config, &args.mqtt_broker) {
        (Some(mut m), broker) => {
            if let Some(broker) = broker {
                if m.ca_file.is_some() && !broker.tls {
                    anyhow::bail!(
                        "--mqtt-broker {broker}: [mqtt] ca-file needs an mqtts:// broker"
                    );
                }
                m.broker = broker.clone();
            }
            let (hall, board) = (
                args.hall.clone().unwrap_or_else(|| m.hall.clone()),
                args.board.clone().unwrap_or_else(|| m.board.clone()),
            );
            let defaults = config::Mqtt::new(m.broker.clone(), &m.hall, &m.board)
                .map_err(|e| anyhow::anyhow!("[mqtt] {e}"))?;
            let renamed = config::Mqtt::new(m.broker.clone(), &hall, &board)
                .map_err(|e| anyhow::anyhow!("--hall/--board: {e}"))?;
            // Defaults derived from the ids follow them.
            if m.username == defaults.username {
                m.username = renamed.username;
            }
            if m.client_id == defaults.client_id {
                m.client_id = renamed.client_id;
            }
            m.hall = hall;
            m.board = board;
            m
        }
        (None, Some(broker)) => {
            let (Some(hall), Some(board)) = (&args.hall, &args.board) else {
                anyhow::bail!(
                    "--mqtt-broker needs --hall and --board (or a configuration with [mqtt])"
                );
            };
            config::Mqtt::new(broker.clone(), hall, board)
                .map_err(|e| anyhow::anyhow!("--hall/--board: {e}"))?
        }
        (None, None) => {
            if args.hall.is_some() || args.board.is_some() || args.mqtt_password_file.is_some() {
                anyhow::bail!(
                    "--hall, --board and --mqtt-password-file need --mqtt-broker (or [mqtt] in the configuration)"
                );
            }
            return Ok(None);
        }
    };
    if let Some(user) = &args.mqtt_username {
        if user == touchmove_wire::mqtt::HALL_LOGIN {
            anyhow::bail!(
                "--mqtt-username {user:?}: reserved for the hall's broker login, which reads every board (systemd/mosquitto/touchmove.acl); a board logs in with its own"
            );
        }
        mqtt.username = user.clone();
    }
    if let Some(file) = &args.mqtt_password_file {
        mqtt.password = Some(
            config::read_secret(file).map_err(|e| anyhow::anyhow!("--mqtt-password-file: {e}"))?,
        );
    }
    if let Some(s) = args.mqtt_keep_alive {
        mqtt.keep_alive = Duration::from_secs(s);
    }
    Ok(Some(mqtt))
}

/// Runs `touchmove run` until SIGINT or SIGTERM.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        if args.setup {
            return run_setup(&args).await;
        }
        let options = options_of(&args)?;
        let demo = matches!(options.source, GameSource::Demo { .. });
        let control = options.token.is_some();
        let stop = StopSignals::install()?;
        let running = start(options).await?;
        if demo {
            tracing::info!(
                "demo: a corpus game on a simulated board; open http://{}/ (arbiter view: /arbiter.html)",
                running.addr
            );
        } else {
            tracing::info!("serving http://{}/", running.addr);
        }
        if !control {
            tracing::info!("control endpoints disabled (no token; see --token-file)");
        }
        stop.wait().await;
        tracing::info!("stopping");
        notify::stopping();
        running.stop().await
    })
}

/// `touchmove run --config FILE --setup`: see [`setup`].
async fn run_setup(args: &RunArgs) -> anyhow::Result<()> {
    let path = args.config.as_deref().expect("clap requires --config");
    let config = config::load(path)?;
    let stop = StopSignals::install()?;
    let running = setup::start(
        config.board.clone(),
        args.bind.unwrap_or(config.http.bind),
        None,
    )
    .await?;
    tracing::info!(
        "board check of {}: open http://{}/setup",
        config.board.file.display(),
        running.addr
    );
    stop.wait().await;
    tracing::info!("stopping");
    running.stop().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn options(config: &str) -> Options {
        let dir = std::env::temp_dir().join(format!(
            "touchmove-options-{}-{}",
            std::process::id(),
            config.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("sim.toml"),
            "name = \"sim\"\nbackend = \"sim\"\nscan-rate-hz = 100\n[sim]\nseed = 1\n",
        )
        .unwrap();
        let file = dir.join("touchmove.toml");
        std::fs::write(&file, format!("[board]\nprofile = \"sim.toml\"\n{config}")).unwrap();
        let cli = Cli::try_parse_from(["run", "--config", file.to_str().unwrap()]).unwrap();
        let options = options_of(&cli.run).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        options
    }

    #[test]
    fn the_journal_settings_reach_the_daemon() {
        let infer = options("[journal]\npath = \"j.sqlite\"\n");
        assert_eq!(infer.resumed_board, ResumedBoard::Infer);
        assert_eq!(infer.max_missed_plies, 4, "the documented default");
        let arbiter = options(
            "[journal]\npath = \"j.sqlite\"\ndowntime = \"arbiter\"\nmax-missed-plies = 3\n\
             [rules]\nstop-clocks-on-alert = true\n",
        );
        assert_eq!(arbiter.resumed_board, ResumedBoard::AskArbiter);
        assert_eq!(arbiter.max_missed_plies, 3);
        assert!(arbiter.stop_clocks_on_alert);
    }
}
