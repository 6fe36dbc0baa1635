//! `touchmove bench hall`: the hall under the load of a tournament.
//!
//! Starts a private Mosquitto (the example ACL, a password per board) and
//! one `touchmove hall` process; then many simulated boards — each a real
//! game synthesized with human hands, run through the session and
//! published by the daemon's own MQTT publisher — play at once, sped up.
//! Before the run each game is replayed offline (`replay --events`) for
//! the events the hall must end with. Reports the messages per second the
//! hall took, the board-to-hall latency of events (p50/p99, the hall's
//! histogram), the CPU time of the hall and the broker and their share of
//! one core over the run, and every event lost or counted twice (both
//! must be 0: the command fails otherwise).
//!
//! `--speed 1` plays at the hands' real pace (a tournament's load, not
//! the most the hall can take); whole games then last hours, so
//! `--seconds N` stops the boards after N seconds and the hall must hold
//! exactly what each board published by then.
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use touchmove_board::config::{Mqtt, Secret};
use touchmove_board::outputs::feed::Feed;
use touchmove_board::outputs::mqtt::publisher::{self, Publisher};
use touchmove_core::clock::TimeControl;
use touchmove_core::game::pgn::{PgnGame, Tags};
use touchmove_core::replay::{drive, parse_time_control, session_for};
use touchmove_core::trace::Trace;
use touchmove_synth::{self as synth, HandStyle};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto};
use touchmove_wire::broker_url::BrokerUrl;

/// The hall id of the run.
const HALL: &str = "bench";
/// The example ACL the broker runs with.
const ACL: &str = include_str!("../../../systemd/mosquitto/touchmove.acl");
/// Where the corpus lies when run from the repository.
const CORPUS: &str = "../shared/corpus/pgn";

/// Arguments of `touchmove bench hall`.
#[derive(Debug, Args)]
pub struct HallBench {
    /// Simulated boards.
    #[arg(long, default_value_t = 500)]
    pub boards: usize,
    /// How many times faster than the hands' real time the games run.
    #[arg(long, default_value_t = 20.0)]
    pub speed: f64,
    /// PGN files of the games the boards play, one game per board in turn
    /// (default: the corpus in ../shared/corpus/pgn, else the embedded
    /// demo game).
    #[arg(long)]
    pub pgn: Vec<PathBuf>,
    /// Plays at most this many plies of each game (0: whole games).
    #[arg(long, default_value_t = 0)]
    pub max_plies: usize,
    /// Stops the games after this many seconds of play (for `--speed 1`,
    /// where whole games last hours): the hall must then hold what each
    /// board published so far.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Seed of the synthesized hands.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Prints the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One board, ready to play.
struct Prepared {
    id: String,
    password: String,
    trace: Trace,
    tags: Tags,
    start_fen: String,
    /// The events the hall must end with (the offline replay's).
    expected: u64,
    plies: usize,
}

/// What a run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    pub boards: usize,
    pub distinct_games: usize,
    pub speed: f64,
    pub plies: usize,
    /// Events the offline replays concluded (what the hall must hold).
    pub events_expected: u64,
    /// Events the boards published live.
    pub events_published: u64,
    /// Events the hall took, each once.
    pub events_received: u64,
    /// Expected events the hall never got.
    pub events_lost: u64,
    /// Events the hall took more than expected (counted twice).
    pub events_duplicated: u64,
    /// Deliveries of an event the hall had (dropped, as the contract says).
    pub duplicate_deliveries_dropped: u64,
    /// Every MQTT message the hall received (events, state, pgn, status).
    pub messages: u64,
    /// From the first board's start to the hall holding every event.
    pub seconds: f64,
    pub messages_per_second: f64,
    pub events_per_second: f64,
    pub latency_p50_ms: Option<u64>,
    pub latency_p99_ms: Option<u64>,
    pub latency_max_ms: Option<i64>,
    /// CPU time of the hall and the broker during the run.
    pub hall_cpu_seconds: f64,
    pub broker_cpu_seconds: f64,
    /// The hall's CPU time over the run's wall time: its share of one core.
    pub hall_cpu_share: f64,
    pub broker_cpu_share: f64,
    /// Whether the games were stopped by `--seconds` before they ended.
    pub stopped_early: bool,
}

pub fn run(args: HallBench) -> anyhow::Result<()> {
    if args.boards == 0 || args.boards > 5000 {
        bail!("--boards {}: must be 1 to 5000", args.boards);
    }
    if !(args.speed > 0.0 && args.speed <= 1000.0) {
        bail!("--speed {}: must be above 0 and at most 1000", args.speed);
    }
    if let Some(s) = args.seconds
        && !(s > 0.0 && s <= 86_400.0)
    {
        bail!("--seconds {s}: must be above 0 and at most 86400");
    }
    let games = load_games(&args.pgn)?;
    eprintln!(
        "touchmove bench hall: {} boards, {} games, {}x",
        args.boards,
        games.len(),
        args.speed
    );
    let tc = parse_time_control("90+30").expect("a valid time control");
    let boards = prepare(&games, &args, &tc)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let report = runtime.block_on(measure(&args, boards, &tc, games.len().min(args.boards)))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    if report.events_lost > 0 || report.events_duplicated > 0 {
        bail!(
            "{} events lost and {} counted twice: the hall must get every event once",
            report.events_lost,
            report.events_duplicated
        );
    }
    Ok(())
}

fn load_games(files: &[PathBuf]) -> anyhow::Result<Vec<PgnGame>> {
    let mut files = files.to_vec();
    if files.is_empty() && Path::new(CORPUS).is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(CORPUS)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        found.sort();
        files = found;
    }
    let mut games = Vec::new();
    for file in &files {
        for game in
            crate::cli::read_pgn_file(file).with_context(|| format!("{}", file.display()))?
        {
            // A game the rules core refuses is skipped, as `pgn check` reports it.
            if let Ok(game) = game
                && !game.moves.is_empty()
            {
                games.push(game);
            }
        }
    }
    if games.is_empty() {
        if !files.is_empty() {
            bail!("no playable game in {} PGN file(s)", files.len());
        }
        games.push(touchmove_board::daemon::demo::corpus_game()?);
    }
    Ok(games)
}

fn prepare(games: &[PgnGame], args: &HallBench, tc: &TimeControl) -> anyhow::Result<Vec<Prepared>> {
    let style = HandStyle::default();
    let width = args.boards.to_string().len();
    (0..args.boards)
        .map(|i| {
            let mut game = games[i % games.len()].clone();
            if args.max_plies > 0 {
                game.moves.truncate(args.max_plies);
                game.clocks.truncate(args.max_plies);
            }
            let synthesized = synth::from_pgn_game(&game, &style, args.seed.wrapping_add(i as u64));
            let trace = synthesized.trace;
            let mut session = session_for(&trace, None, None, Some(tc.clone()), None, None)?;
            let expected = drive(&mut session, &trace, "bench")?.len() as u64;
            let id = format!("b{:0width$}", i + 1);
            let tag = |name: &str| game.tag(name).unwrap_or("?").to_owned();
            Ok(Prepared {
                password: format!("pw-{id}-{}", args.seed),
                tags: Tags {
                    event: tag("Event"),
                    site: tag("Site"),
                    round: "1".into(),
                    white: tag("White"),
                    black: tag("Black"),
                    time_control: Some(tc.to_pgn()),
                    ..Tags::default()
                },
                start_fen: game.start.fen(),
                plies: game.moves.len(),
                id,
                trace,
                expected,
            })
        })
        .collect()
}

async fn measure(
    args: &HallBench,
    boards: Vec<Prepared>,
    tc: &TimeControl,
    distinct_games: usize,
) -> anyhow::Result<Report> {
    let dir = std::env::temp_dir().join(format!("touchmove-bench-hall-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let acl = dir.join("touchmove.acl");
    std::fs::write(&acl, ACL)?;
    let hall_password = "hall-bench-password";
    let mut users: Vec<(String, String)> = vec![("hall".into(), hall_password.into())];
    users.extend(boards.iter().map(|b| (b.id.clone(), b.password.clone())));
    let broker = Mosquitto::start(&BrokerSetup {
        users,
        acl: Some(acl),
    })?;
    let password_file = dir.join("hall.password");
    std::fs::write(&password_file, hall_password)?;
    let hall_addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
    let hall = HallProcess::start(&broker.url(), hall_addr, &password_file, &dir)?;
    hall.wait_ready().await?;

    // Every board connects before the games start.
    let url = BrokerUrl {
        tls: false,
        host: "127.0.0.1".into(),
        port: broker.port(),
    };
    let mut running: Vec<(Arc<Feed>, Publisher)> = Vec::with_capacity(boards.len());
    for b in &boards {
        let feed = Feed::new(1024, b.tags.clone(), b.start_fen.clone());
        let mut mqtt = Mqtt::new(url.clone(), HALL, &b.id).map_err(|e| anyhow::anyhow!(e))?;
        mqtt.password = Some(Secret(b.password.clone()));
        mqtt.keep_alive = Duration::from_secs(60);
        let publisher = publisher::spawn(&mqtt, Arc::clone(&feed), None)?;
        running.push((feed, publisher));
    }
    let connect_deadline = Instant::now() + Duration::from_secs(60);
    while running.iter().any(|(_, p)| !p.health().connected()) {
        if Instant::now() > connect_deadline {
            let down = running
                .iter()
                .filter(|(_, p)| !p.health().connected())
                .count();
            bail!(
                "{down} boards could not connect to the broker within 60 s: {}",
                broker.log()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cpu_before = (cpu_seconds(Some(hall.pid())), cpu_seconds(broker.pid()));

    let origin = Instant::now() + Duration::from_millis(500);
    let until = args.seconds.map(|s| origin + Duration::from_secs_f64(s));
    // The sessions stay on this thread (a session is not `Send`); the
    // publishers run on the runtime's workers.
    let local = tokio::task::LocalSet::new();
    let published = local
        .run_until(async {
            let mut tasks = Vec::with_capacity(boards.len());
            for (b, (feed, _)) in boards.iter().zip(&running) {
                feed.set_game_clock(origin.into_std(), args.speed, touchmove_board::time::wall());
                let session = session_for(&b.trace, None, None, Some(tc.clone()), None, None)?;
                let trace = b.trace.clone();
                let feed = Arc::clone(feed);
                let speed = args.speed;
                tasks.push(tokio::task::spawn_local(async move {
                    super::board::play(session, &trace, feed, origin, speed, until).await
                }));
            }
            let mut published = Vec::with_capacity(boards.len());
            for (task, b) in tasks.into_iter().zip(&boards) {
                published.push(
                    task.await
                        .context("a board's task failed")?
                        .with_context(|| format!("board {}", b.id))?,
                );
            }
            anyhow::Ok(published)
        })
        .await?;
    // The boards think until the end of the run even when their next
    // event would have come after it.
    if let Some(until) = until {
        tokio::time::sleep_until(until).await;
    }
    // Stopped early: what each board published is what the hall must hold.
    let stopped_early = boards.iter().zip(&published).any(|(b, p)| *p < b.expected);
    let wanted: Vec<u64> = if args.seconds.is_some() {
        published.clone()
    } else {
        boards.iter().map(|b| b.expected).collect()
    };
    let published: u64 = published.iter().sum();
    eprintln!(
        "all boards done after {:.1} s; waiting for the hall",
        origin.elapsed().as_secs_f64()
    );

    // The hall catches up (every expected event), or 60 s pass.
    let expected: u64 = wanted.iter().sum();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut counts;
    let mut done_at;
    loop {
        counts = hall.board_counts().await?;
        done_at = Instant::now();
        let complete = boards.iter().zip(&wanted).all(|(b, want)| {
            counts
                .get(&b.id)
                .is_some_and(|(events, _)| *events >= *want)
        });
        if complete || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let cpu_after = (cpu_seconds(Some(hall.pid())), cpu_seconds(broker.pid()));
    let health = hall.get("/health").await?;
    let delivery = &health["delivery"];
    let mut lost = 0;
    let mut twice = 0;
    let mut dropped = 0;
    let mut received = 0;
    for (b, want) in boards.iter().zip(&wanted) {
        let (events, duplicates) = counts.get(&b.id).copied().unwrap_or((0, 0));
        received += events;
        dropped += duplicates;
        lost += want.saturating_sub(events);
        twice += events.saturating_sub(*want);
    }
    let seconds = done_at.duration_since(origin).as_secs_f64();
    let messages = delivery["messages"].as_u64().unwrap_or(0);

    // The boards leave (`offline`), then the hall and the broker stop.
    let stops: Vec<_> = running
        .into_iter()
        .map(|(_, p)| tokio::spawn(p.stop()))
        .collect();
    for stop in stops {
        let _ = stop.await;
    }
    hall.stop();
    drop(broker);
    let _ = std::fs::remove_dir_all(&dir);

    Ok(Report {
        boards: boards.len(),
        distinct_games,
        speed: args.speed,
        plies: boards.iter().map(|b| b.plies).sum(),
        events_expected: expected,
        events_published: published,
        events_received: received,
        events_lost: lost,
        events_duplicated: twice,
        duplicate_deliveries_dropped: dropped,
        messages,
        seconds,
        messages_per_second: messages as f64 / seconds,
        events_per_second: received as f64 / seconds,
        latency_p50_ms: delivery["latency_p50_ms"].as_u64(),
        latency_p99_ms: delivery["latency_p99_ms"].as_u64(),
        latency_max_ms: delivery["latency_max_ms"].as_i64(),
        hall_cpu_seconds: cpu_after.0 - cpu_before.0,
        broker_cpu_seconds: cpu_after.1 - cpu_before.1,
        hall_cpu_share: (cpu_after.0 - cpu_before.0) / seconds,
        broker_cpu_share: (cpu_after.1 - cpu_before.1) / seconds,
        stopped_early,
    })
}

fn print_report(r: &Report) {
    let ms = |v: Option<u64>| v.map_or("-".to_owned(), |v| format!("{v} ms"));
    println!(
        "boards                  {} ({} distinct games, {} plies)",
        r.boards, r.distinct_games, r.plies
    );
    println!("speed                   {}x real time", r.speed);
    println!("run                     {:.1} s", r.seconds);
    println!(
        "events                  expected {}, published {}, taken by the hall {}",
        r.events_expected, r.events_published, r.events_received
    );
    println!(
        "lost / counted twice    {} / {}",
        r.events_lost, r.events_duplicated
    );
    println!("duplicates dropped      {}", r.duplicate_deliveries_dropped);
    println!(
        "messages at the hall    {} ({:.0}/s; events {:.0}/s)",
        r.messages, r.messages_per_second, r.events_per_second
    );
    println!(
        "latency board -> hall   p50 {}, p99 {}, max {}",
        ms(r.latency_p50_ms),
        ms(r.latency_p99_ms),
        r.latency_max_ms
            .map_or("-".to_owned(), |v| format!("{v} ms"))
    );
    println!(
        "CPU                     hall {:.1} s ({:.1} % of a core), broker {:.1} s ({:.1} %)",
        r.hall_cpu_seconds,
        r.hall_cpu_share * 100.0,
        r.broker_cpu_seconds,
        r.broker_cpu_share * 100.0
    );
    if r.stopped_early {
        println!("                        games stopped by --seconds before their end");
    }
}

/// The `touchmove hall` child process.
struct HallProcess {
    child: Child,
    addr: SocketAddr,
}

impl HallProcess {
    fn start(
        broker: &str,
        addr: SocketAddr,
        password_file: &Path,
        dir: &Path,
    ) -> anyhow::Result<HallProcess> {
        let exe = std::env::current_exe().context("finding the touchmove binary")?;
        let log = std::fs::File::create(dir.join("hall.log"))?;
        let child = Command::new(exe)
            .args(["hall", "--broker", broker, "--hall", HALL, "--round", "1"])
            .arg("--bind")
            .arg(addr.to_string())
            .arg("--password-file")
            .arg(password_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting touchmove hall")?;
        Ok(HallProcess { child, addr })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    async fn wait_ready(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(health) = self.get("/health").await
                && health["broker"] == "connected"
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("touchmove hall did not connect to the broker within 20 s");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `GET path` as JSON.
    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        let mut stream = tokio::net::TcpStream::connect(self.addr).await?;
        let head = format!("GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr);
        stream.write_all(head.as_bytes()).await?;
        let mut text = String::new();
        stream.read_to_string(&mut text).await?;
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b)
            .ok_or_else(|| anyhow::anyhow!("GET {path}: no HTTP response"))?;
        serde_json::from_str(body).with_context(|| format!("GET {path}: not JSON"))
    }

    /// Per board: events taken and duplicate deliveries dropped.
    async fn board_counts(&self) -> anyhow::Result<std::collections::HashMap<String, (u64, u64)>> {
        let boards = self.get("/boards").await?;
        Ok(boards["boards"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|b| {
                Some((
                    b["id"].as_str()?.to_owned(),
                    (
                        b["stats"]["events"].as_u64().unwrap_or(0),
                        b["stats"]["duplicates"].as_u64().unwrap_or(0),
                    ),
                ))
            })
            .collect())
    }

    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// User plus system CPU time of process `pid` so far (0 if unreadable).
fn cpu_seconds(pid: Option<u32>) -> f64 {
    let Some(pid) = pid else {
        return 0.0;
    };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) in parentheses.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the file: 12 and 13 here.
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 / 100.0
}
