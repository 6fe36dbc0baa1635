//! `touchmove hall`: the arbiter's dashboard and the round's broadcast
//! feed for the boards of one hall, read from an MQTT broker
//! ([`crate::hall`]).
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use crate::config::read_token;
use crate::hall::{self, HallOptions};

/// Arguments of `touchmove hall`.
#[derive(Debug, Args)]
pub struct HallArgs {
    /// The broker the boards publish to: mqtt://HOST[:PORT] or mqtts://HOST[:PORT].
    #[arg(long)]
    pub broker: String,
    /// The hall id (the boards' `[mqtt] hall`).
    #[arg(long)]
    pub hall: String,
    /// Address to serve the dashboard and the round PGN on.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub bind: SocketAddr,
    /// The broker login.
    #[arg(long, default_value = "hall")]
    pub username: String,
    /// A file whose first line is the broker password.
    #[arg(long)]
    pub password_file: Option<PathBuf>,
    /// A file whose first line is the bearer token of the control
    /// endpoints (acknowledge, replay); without it control is disabled.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// The round, set as `[Round]` in every game of /round.pgn (a PGN tag
    /// value: one line, at most 255 characters).
    #[arg(long, value_parser = tag_value)]
    pub round: Option<String>,
    /// The MQTT client id (default touchmove-hall-<hall>). A broker that
    /// uses usernames as client ids (the example configuration) ignores it.
    #[arg(long)]
    pub client_id: Option<String>,
    /// With an mqtts:// broker: the CA certificates (PEM) its certificate
    /// is checked against (default: the system's roots).
    #[arg(long)]
    pub ca_file: Option<PathBuf>,
    /// A file where the arbiter's acknowledgements are kept, so that a
    /// restarted hall does not raise them again (created if missing).
    #[arg(long, value_name = "FILE")]
    pub acks: Option<PathBuf>,
}

/// A PGN tag value given on the command line (the rule of
/// [`crate::game::tag_value`]); clap names the option.
fn tag_value(text: &str) -> Result<String, String> {
    crate::game::TagValue::new(text)
        .map(crate::game::TagValue::into_string)
        .map_err(|e| e.to_string())
}

/// Reads the files the arguments name.
pub fn options_of(args: &HallArgs) -> anyhow::Result<HallOptions> {
    let password = args
        .password_file
        .as_deref()
        .map(read_password)
        .transpose()?;
    let token = args
        .token_file
        .as_deref()
        .map(|f| read_token(f).map_err(|e| anyhow::anyhow!("--token-file: {e}")))
        .transpose()?;
    Ok(HallOptions {
        broker: args.broker.clone(),
        hall: args.hall.clone(),
        bind: args.bind,
        username: args.username.clone(),
        password,
        token,
        round: args.round.clone(),
        client_id: args.client_id.clone(),
        ca_file: args.ca_file.clone(),
        acks: args.acks.clone(),
    })
}

/// The first line of the password file, not empty.
fn read_password(path: &std::path::Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--password-file: cannot read {}", path.display()))?;
    let password = text.lines().next().unwrap_or("").trim();
    if password.is_empty() {
        anyhow::bail!(
            "--password-file {}: the first line (the password) is empty",
            path.display()
        );
    }
    Ok(password.to_owned())
}

pub fn run(args: HallArgs) -> anyhow::Result<()> {
    init_logging();
    let options = options_of(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let running = hall::start(options).await?;
        shutdown_signal().await;
        tracing::info!("stopping the hall");
        running.stop().await
    })
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let _ = if std::env::var_os("JOURNAL_STREAM").is_some() {
        builder.without_time().with_ansi(false).try_init()
    } else {
        builder.try_init()
    };
}
