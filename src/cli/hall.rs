//! `touchmove hall`: the arbiter's dashboard and the round's broadcast
//! feed for the boards of one hall, read from an MQTT broker
//! ([`touchmove_hall`]).
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use touchmove_board::config::{Secret, read_token};
use touchmove_board::stop_signals::StopSignals;
use touchmove_hall::lichess::LichessOptions;
use touchmove_hall::{self as hall, HallOptions};

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
    /// The hall's configuration file (TOML; its `[lichess]` table); the
    /// flags below override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Push the round to this Lichess broadcast round (its 8-character
    /// id). Repeat it for more than 64 boards: the first 64 boards (in
    /// board order) go to the first round, the next 64 to the second...
    #[arg(long = "lichess-round", value_name = "ID")]
    pub lichess_rounds: Vec<String>,
    /// A file whose first line is the Lichess token (scope study:write).
    #[arg(long, value_name = "FILE")]
    pub lichess_token_file: Option<PathBuf>,
    /// The Lichess to push to [default: https://lichess.org].
    #[arg(long, value_name = "URL")]
    pub lichess_url: Option<String>,
    /// The least time between two pushes to one round, in ms [default: 3000].
    #[arg(long, value_name = "MS")]
    pub lichess_min_interval_ms: Option<u64>,
    /// The most games pushed to one round [default: 64; Lichess reads 100].
    #[arg(long, value_name = "N")]
    pub lichess_games_per_round: Option<usize>,
}

/// A PGN tag value given on the command line (the rule of
/// [`touchmove_core::game::tag_value`]); clap names the option.
fn tag_value(text: &str) -> Result<String, String> {
    touchmove_core::game::TagValue::new(text)
        .map(touchmove_core::game::TagValue::into_string)
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
        lichess: lichess_of(args)?,
    })
}

/// The push to Lichess from the flags over the configuration file's
/// `[lichess]`; `None` when neither asks for one.
fn lichess_of(args: &HallArgs) -> anyhow::Result<Option<LichessOptions>> {
    let table = match &args.config {
        Some(path) => hall::config::read(path)?
            .lichess
            .map(|mut t| {
                t.token_file = t.token_file.map(|f| hall::config::resolve(path, &f));
                t
            })
            .unwrap_or_default(),
        None => Default::default(),
    };
    let rounds = if args.lichess_rounds.is_empty() {
        table.rounds
    } else {
        args.lichess_rounds.clone()
    };
    let token_file = args.lichess_token_file.clone().or(table.token_file);
    let asked = !rounds.is_empty()
        || token_file.is_some()
        || args.lichess_url.is_some()
        || table.url.is_some();
    if !asked {
        return Ok(None);
    }
    let Some(token_file) = token_file else {
        anyhow::bail!(
            "--lichess-round needs --lichess-token-file FILE (or token-file in the [lichess] table of --config)"
        );
    };
    if rounds.is_empty() {
        anyhow::bail!(
            "--lichess-token-file needs at least one --lichess-round ID (or rounds in the [lichess] table of --config)"
        );
    }
    let token = read_lichess_token(&token_file)?;
    let options = LichessOptions {
        rounds,
        token,
        url: args
            .lichess_url
            .clone()
            .or(table.url)
            .unwrap_or_else(|| hall::lichess::DEFAULT_URL.into()),
        min_interval_ms: args
            .lichess_min_interval_ms
            .or(table.min_interval_ms)
            .unwrap_or(hall::lichess::DEFAULT_MIN_INTERVAL_MS),
        games_per_round: args
            .lichess_games_per_round
            .or(table.games_per_round)
            .unwrap_or(hall::lichess::DEFAULT_GAMES_PER_ROUND),
    };
    options.check().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Some(options))
}

/// The first line of the Lichess token file, not empty.
fn read_lichess_token(path: &std::path::Path) -> anyhow::Result<Secret> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        anyhow::anyhow!("--lichess-token-file: cannot read {} ({e})", path.display())
    })?;
    let token = text.lines().next().unwrap_or("").trim();
    if token.is_empty() {
        anyhow::bail!(
            "--lichess-token-file {}: the first line (the token) is empty",
            path.display()
        );
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        anyhow::bail!(
            "--lichess-token-file {}: the token on the first line has a space or a control character in it",
            path.display()
        );
    }
    Ok(Secret(token.to_owned()))
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
        // (Listened for before the hall starts: a stop asked while it
        // starts is a clean stop.)
        let stop = StopSignals::install()?;
        let running = hall::start(options).await?;
        stop.wait().await;
        tracing::info!("stopping the hall");
        running.stop().await
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        hall: HallArgs,
    }

    fn dir() -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("touchmove-hall-cli-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn args(extra: &[&str]) -> HallArgs {
        let mut argv = vec!["hall", "--broker", "mqtt://127.0.0.1", "--hall", "h"];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).unwrap().hall
    }

    #[test]
    fn no_lichess_flag_no_push() {
        assert_eq!(lichess_of(&args(&[])).unwrap(), None);
    }

    #[test]
    fn flags_make_the_push_and_the_token_file_is_checked() {
        let d = dir();
        let token = d.join("lichess.token");
        std::fs::write(&token, "lip_abc123\nsecond line\n").unwrap();
        let t = token.to_str().unwrap();
        let o = lichess_of(&args(&[
            "--lichess-round",
            "abcdEFGH",
            "--lichess-round",
            "ijklMNOP",
            "--lichess-token-file",
            t,
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(o.rounds, ["abcdEFGH", "ijklMNOP"]);
        assert_eq!(o.token, Secret("lip_abc123".into()));
        assert_eq!(o.url, "https://lichess.org");
        assert_eq!(o.min_interval_ms, 3000);
        assert_eq!(o.games_per_round, 64);

        let err = |extra: &[&str]| lichess_of(&args(extra)).unwrap_err().to_string();
        let e = err(&["--lichess-round", "abcdEFGH"]);
        assert!(e.contains("needs --lichess-token-file"), "{e}");
        let e = err(&["--lichess-token-file", t]);
        assert!(e.contains("needs at least one --lichess-round"), "{e}");
        let missing = d.join("missing.token");
        let e = err(&[
            "--lichess-round",
            "abcdEFGH",
            "--lichess-token-file",
            missing.to_str().unwrap(),
        ]);
        assert!(
            e.contains("cannot read") && e.contains("missing.token"),
            "{e}"
        );
        let empty = d.join("empty.token");
        std::fs::write(&empty, "\n").unwrap();
        let e = err(&[
            "--lichess-round",
            "abcdEFGH",
            "--lichess-token-file",
            empty.to_str().unwrap(),
        ]);
        assert!(e.contains("empty.token") && e.contains("is empty"), "{e}");
        let e = err(&["--lichess-round", "abc", "--lichess-token-file", t]);
        assert!(e.contains("--lichess-round \"abc\""), "{e}");
    }

    #[test]
    fn the_configuration_file_is_read_and_flags_override_it() {
        let d = dir();
        std::fs::write(d.join("lichess.token"), "lip_from_file\n").unwrap();
        let config = d.join("hall.toml");
        std::fs::write(
            &config,
            "[lichess]\nrounds = [\"abcdEFGH\"]\ntoken-file = \"lichess.token\"\nurl = \"http://127.0.0.1:9\"\nmin-interval-ms = 5000\n",
        )
        .unwrap();
        let c = config.to_str().unwrap();
        let o = lichess_of(&args(&["--config", c])).unwrap().unwrap();
        assert_eq!(o.rounds, ["abcdEFGH"]);
        assert_eq!(o.token, Secret("lip_from_file".into()));
        assert_eq!(o.url, "http://127.0.0.1:9");
        assert_eq!(o.min_interval_ms, 5000);
        let o = lichess_of(&args(&[
            "--config",
            c,
            "--lichess-round",
            "zzzzZZZZ",
            "--lichess-min-interval-ms",
            "4000",
            "--lichess-url",
            "https://lichess.org",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(o.rounds, ["zzzzZZZZ"]);
        assert_eq!(o.min_interval_ms, 4000);
        assert_eq!(o.url, "https://lichess.org");
        // A bad key: the file and the key are named.
        std::fs::write(&config, "[lichess]\nround = [\"abcdEFGH\"]\n").unwrap();
        let e = lichess_of(&args(&["--config", c])).unwrap_err().to_string();
        assert!(e.contains("hall.toml") && e.contains("round"), "{e}");
    }
}
