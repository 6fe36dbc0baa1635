//! The daemon's TOML configuration (`systemd/touchmove.toml` documents
//! every key), read and validated in full: an error names the file and the
//! key (`FILE: [section] key: what is wrong`). A relative path is taken
//! from the directory of the configuration file.
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use touchmove_core::clock::TimeControl;
use touchmove_core::game::echo::{clip, quoted};
use touchmove_core::game::{Profile, TagValue};
use touchmove_hw::profile::{self as board_profile, BoardProfile};
use touchmove_wire::broker_url::BrokerUrl;
use touchmove_wire::mqtt as wire;

/// A valid configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it was read from.
    pub file: PathBuf,
    pub board: BoardProfile,
    /// Hall boards: the calibration file (checked to exist).
    pub calibration: Option<PathBuf>,
    pub rules: Profile,
    pub time_control: Option<TimeControl>,
    /// `[rules] stop-clocks-on-alert`: the clocks stand while the board is
    /// displaced or an illegal move awaits reinstatement (Article 6.13).
    pub stop_clocks_on_alert: bool,
    pub game: GameTags,
    pub http: Http,
    pub journal: JournalSettings,
    /// `[mqtt]`, when present.
    pub mqtt: Option<Mqtt>,
}

/// `[game]`: the Seven Tag Roster values the daemon does not fill in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameTags {
    pub event: String,
    pub site: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// Optional tags the players' display shows (`WhiteTitle`, `WhiteElo`,
    /// `BlackTitle`, `BlackElo`, `Board`), in that order, where given.
    pub extra: Vec<(String, String)>,
}

impl Default for GameTags {
    fn default() -> GameTags {
        GameTags {
            event: "?".into(),
            site: "?".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            extra: Vec::new(),
        }
    }
}

/// `[http]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Http {
    pub bind: SocketAddr,
    /// The control token read from `token-file`; `None`: control disabled.
    pub token: Option<String>,
}

/// The address served when nothing says otherwise: this machine only.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8080";

/// What to do with an unfinished journalled game at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnStart {
    Resume,
    NewGame,
}

/// What to do when the board does not match the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardMismatch {
    Infer,
    Arbiter,
}

/// What the time the daemon was down does to a resumed game's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ClockDowntime {
    /// The clocks stood (Article 6.13: stopped for a fault that is not the
    /// players').
    #[default]
    Pause,
    /// The running side's time kept falling.
    Charge,
}

/// `[journal]` (validated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalSettings {
    pub path: PathBuf,
    pub on_start: OnStart,
    pub downtime: BoardMismatch,
    pub clock_downtime: ClockDowntime,
    pub max_missed_plies: u8,
}

/// `[mqtt]`: the board publishes its events to a broker (the hall's wire
/// contract, [`touchmove_wire::mqtt`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mqtt {
    pub broker: BrokerUrl,
    /// The hall id and this board's id: topic levels (checked with
    /// [`wire::check_id`]).
    pub hall: String,
    pub board: String,
    /// The login (default: the board id, as the example ACL expects).
    pub username: String,
    /// The password read from `password-file`; `None`: no password.
    pub password: Option<Secret>,
    /// `mqtts://` only: the CA certificates (PEM) the broker's certificate
    /// is checked against; `None`: the system's roots.
    pub ca_file: Option<PathBuf>,
    /// The MQTT client id (default `touchmove-<hall>-<board>`).
    pub client_id: String,
    /// The MQTT keep-alive: the broker publishes the Last Will when it
    /// hears nothing for 1.5 times this.
    pub keep_alive: Duration,
}

/// The keep-alive when `[mqtt] keep-alive` does not say.
pub(crate) const DEFAULT_MQTT_KEEP_ALIVE_S: u64 = 15;

impl Mqtt {
    /// The settings for `broker`, `hall` and `board` with every other key at
    /// its default (`hall` and `board` are checked).
    pub fn new(broker: BrokerUrl, hall: &str, board: &str) -> Result<Mqtt, String> {
        wire::check_id(hall).map_err(|e| format!("hall: {e}"))?;
        wire::check_board_id(board).map_err(|e| format!("board: {e}"))?;
        Ok(Mqtt {
            broker,
            hall: hall.to_owned(),
            board: board.to_owned(),
            username: board.to_owned(),
            password: None,
            ca_file: None,
            client_id: format!("touchmove-{hall}-{board}"),
            keep_alive: Duration::from_secs(DEFAULT_MQTT_KEEP_ALIVE_S),
        })
    }
}

pub use touchmove_wire::secret::{Secret, read_secret};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    board: Option<RawBoard>,
    #[serde(default)]
    rules: RawRules,
    #[serde(default)]
    game: RawGame,
    #[serde(default)]
    http: RawHttp,
    #[serde(default)]
    journal: RawJournal,
    mqtt: Option<RawMqtt>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBoard {
    profile: Option<String>,
    calibration: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRules {
    profile: Option<String>,
    time_control: Option<String>,
    /// Any TOML value, so that a wrong one is reported with its key.
    stop_clocks_on_alert: Option<toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawGame {
    event: Option<String>,
    site: Option<String>,
    round: Option<String>,
    white: Option<String>,
    black: Option<String>,
    white_title: Option<String>,
    white_elo: Option<String>,
    black_title: Option<String>,
    black_elo: Option<String>,
    board: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawHttp {
    bind: Option<String>,
    token_file: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawJournal {
    path: Option<String>,
    on_start: Option<String>,
    downtime: Option<String>,
    clock_downtime: Option<String>,
    max_missed_plies: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawMqtt {
    broker: Option<String>,
    hall: Option<String>,
    board: Option<String>,
    client_id: Option<String>,
    username: Option<String>,
    password_file: Option<String>,
    ca_file: Option<String>,
    keep_alive: Option<i64>,
}

/// A configuration that cannot be used: every problem found, each naming
/// its key (`[section] key: what is wrong`), as the board profile's
/// validation reports them.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.lines())]
pub struct ConfigError {
    pub file: String,
    pub problems: Vec<String>,
}

impl ConfigError {
    fn one(file: &Path, problem: String) -> ConfigError {
        ConfigError {
            file: file.display().to_string(),
            problems: vec![problem],
        }
    }

    /// One line per problem: `FILE: [section] key: what is wrong`.
    fn lines(&self) -> String {
        let lines: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("{}: {p}", self.file))
            .collect();
        lines.join("\n")
    }
}

/// Reads and validates a configuration file.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::one(path, format!("cannot read the configuration ({e})")))?;
    parse(&text, path)
}

/// The problems found so far, each with its key.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn at(&mut self, section: &str, key: &str, what: impl std::fmt::Display) {
        self.0.push(format!("[{section}] {key}: {what}"));
    }

    /// `result`'s value, or `None` with its error filed under the key.
    fn check<T, E: std::fmt::Display>(
        &mut self,
        section: &str,
        key: &str,
        result: Result<T, E>,
    ) -> Option<T> {
        result.map_err(|e| self.at(section, key, e)).ok()
    }
}

/// Where relative paths of a configuration file are taken from.
struct Paths<'a>(&'a Path);

impl Paths<'_> {
    fn resolve(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.0.join(p)
        }
    }

    /// `p` resolved, if it is a readable file.
    fn file(&self, p: &str) -> Result<PathBuf, String> {
        let p = self.resolve(p);
        if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{} is not a readable file", p.display()))
        }
    }
}

/// Validates configuration text read from `file`: every section is
/// checked, and every problem reported.
pub fn parse(text: &str, file: &Path) -> Result<Config, ConfigError> {
    let raw: Raw =
        toml::from_str(text).map_err(|e| ConfigError::one(file, toml_error(text, &e)))?;
    let paths = Paths(file.parent().unwrap_or(Path::new(".")));
    let mut p = Problems::default();
    let board = board_section(raw.board, &paths, &mut p);
    let rules = rules_section(raw.rules, &mut p);
    let game = game_section(raw.game, &mut p);
    let http = http_section(raw.http, &paths, &mut p);
    let journal = journal_section(raw.journal, &paths, &mut p);
    let mqtt = raw.mqtt.map(|m| mqtt_section(m, &paths, &mut p));
    match (board, rules, game, http, journal) {
        (
            Some((board, calibration)),
            Some((rules, time_control, stop_clocks_on_alert)),
            Some(game),
            Some(http),
            Some(journal),
        ) if p.0.is_empty() => Ok(Config {
            file: file.to_owned(),
            board,
            calibration,
            rules,
            time_control,
            stop_clocks_on_alert,
            game,
            http,
            journal,
            mqtt: mqtt.flatten(),
        }),
        _ => Err(ConfigError {
            file: file.display().to_string(),
            problems: p.0,
        }),
    }
}

/// `[board]`: the board profile, and the calibration an analog board needs.
fn board_section(
    raw: Option<RawBoard>,
    paths: &Paths,
    p: &mut Problems,
) -> Option<(BoardProfile, Option<PathBuf>)> {
    let Some(board) = raw else {
        p.0.push("[board] is missing: the daemon needs a board profile".into());
        return None;
    };
    let Some(profile_path) = board.profile else {
        p.at(
            "board",
            "profile",
            "missing (the board profile file, see hw/README.md)",
        );
        return None;
    };
    let profile = p.check(
        "board",
        "profile",
        board_profile::load(paths.resolve(&profile_path)).map_err(|e| clip(&e.to_string())),
    )?;
    let calibration = match board.calibration {
        Some(c) => Some(p.check("board", "calibration", paths.file(&c))?),
        None if profile.backend.is_analog() => {
            p.at(
                "board",
                "calibration",
                "missing: an analog (Hall-sensor) board needs the file `touchmove calibrate` writes",
            );
            return None;
        }
        None => None,
    };
    Some((profile, calibration))
}

/// `[rules]`: the rules profile, the time control, and whether the clocks
/// stand on an alert (Article 6.13).
fn rules_section(raw: RawRules, p: &mut Problems) -> Option<(Profile, Option<TimeControl>, bool)> {
    let profile = match raw.profile {
        None => Some(Profile::FideStandard),
        Some(name) => p.check(
            "rules",
            "profile",
            name.parse::<Profile>().map_err(|e| clip(&e.to_string())),
        ),
    };
    let time_control = match raw.time_control {
        None => Some(None),
        Some(tc) => p
            .check(
                "rules",
                "time-control",
                touchmove_core::replay::parse_time_control(&tc)
                    .map_err(|e| clip(&format!("{}: {e}", quoted(&tc)))),
            )
            .map(Some),
    };
    let stop_clocks = match raw.stop_clocks_on_alert {
        None => Some(false),
        Some(toml::Value::Boolean(b)) => Some(b),
        Some(other) => {
            p.at(
                "rules",
                "stop-clocks-on-alert",
                format!("{}: must be true or false", clip(&other.to_string())),
            );
            None
        }
    };
    Some((profile?, time_control?, stop_clocks?))
}

/// `[game]`: the tags of the games played (the one rule for PGN tag
/// values, `touchmove_core::game::tag_value`, as `/api/new-game` applies it).
fn game_section(raw: RawGame, p: &mut Problems) -> Option<GameTags> {
    let defaults = GameTags::default();
    let before = p.0.len();
    let mut tag = |v: Option<String>, d: &str, name: &str| -> String {
        let v = v.unwrap_or_else(|| d.to_owned());
        p.check("game", name, TagValue::new(v).map(TagValue::into_string))
            .unwrap_or_default()
    };
    let event = tag(raw.event.clone(), &defaults.event, "event");
    let site = tag(raw.site.clone(), &defaults.site, "site");
    let round = tag(raw.round.clone(), &defaults.round, "round");
    let white = tag(raw.white.clone(), &defaults.white, "white");
    let black = tag(raw.black.clone(), &defaults.black, "black");
    let extra = optional_tags(&raw, p);
    (p.0.len() == before).then_some(GameTags {
        event,
        site,
        round,
        white,
        black,
        extra,
    })
}

/// `[http]`: where to serve, and the control token.
fn http_section(raw: RawHttp, paths: &Paths, p: &mut Problems) -> Option<Http> {
    let bind_text = raw.bind.unwrap_or_else(|| DEFAULT_BIND.to_owned());
    let bind = match bind_text.parse::<SocketAddr>() {
        Ok(bind) => p.check(
            "http",
            "bind",
            check_local_address(bind)
                .map(|()| bind)
                .map_err(|why| format!("{}: {why}", quoted(&bind_text))),
        ),
        Err(_) => {
            p.at(
                "http",
                "bind",
                format!(
                    "{} is not an address and port like \"127.0.0.1:8080\"",
                    quoted(&bind_text)
                ),
            );
            None
        }
    };
    let token = match raw.token_file {
        None => Some(None),
        Some(f) => p
            .check("http", "token-file", read_token(&paths.resolve(&f)))
            .map(Some),
    };
    Some(Http {
        bind: bind?,
        token: token?,
    })
}

/// One of a key's named values, or the problem naming them all.
fn one_of<T: Copy>(
    p: &mut Problems,
    key: &str,
    given: Option<&str>,
    choices: &[(&str, T)],
) -> Option<T> {
    let name = given.unwrap_or(choices[0].0);
    match choices.iter().find(|(n, _)| *n == name) {
        Some((_, value)) => Some(*value),
        None => {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            p.at(
                "journal",
                key,
                format!("{}: must be {}", quoted(name), names.join(" or ")),
            );
            None
        }
    }
}

/// `[journal]`: the file, and what a restart does with an unfinished game.
fn journal_section(raw: RawJournal, paths: &Paths, p: &mut Problems) -> Option<JournalSettings> {
    let on_start = one_of(
        p,
        "on-start",
        raw.on_start.as_deref(),
        &[("resume", OnStart::Resume), ("new-game", OnStart::NewGame)],
    );
    let downtime = one_of(
        p,
        "downtime",
        raw.downtime.as_deref(),
        &[
            ("infer", BoardMismatch::Infer),
            ("arbiter", BoardMismatch::Arbiter),
        ],
    );
    let clock_downtime = one_of(
        p,
        "clock-downtime",
        raw.clock_downtime.as_deref(),
        &[
            ("pause", ClockDowntime::Pause),
            ("charge", ClockDowntime::Charge),
        ],
    );
    let max_missed_plies = match raw.max_missed_plies {
        None => Some(4),
        Some(n @ 1..=8) => Some(n as u8),
        Some(n) => {
            p.at(
                "journal",
                "max-missed-plies",
                format!("{n}: must be 1 to 8"),
            );
            None
        }
    };
    Some(JournalSettings {
        path: paths.resolve(
            raw.path
                .as_deref()
                .unwrap_or("/var/lib/touchmove/journal.sqlite3"),
        ),
        on_start: on_start?,
        downtime: downtime?,
        clock_downtime: clock_downtime?,
        max_missed_plies: max_missed_plies?,
    })
}

/// `[mqtt]`: the broker the board publishes to, and its login.
fn mqtt_section(m: RawMqtt, paths: &Paths, p: &mut Problems) -> Option<Mqtt> {
    let before = p.0.len();
    let mut required = |v: Option<String>, name: &str, what: &str| {
        if v.is_none() {
            p.at("mqtt", name, format!("missing ({what})"));
        }
        v
    };
    let broker_text = required(
        m.broker,
        "broker",
        "mqtt://host[:port] or mqtts://host[:port]",
    );
    let hall = required(m.hall, "hall", "the hall's id, a topic level");
    let board = required(
        m.board,
        "board",
        "this board's id, a topic level and its login",
    );
    let broker = broker_text.and_then(|b| {
        p.check(
            "mqtt",
            "broker",
            b.parse::<BrokerUrl>().map_err(|e: String| clip(&e)),
        )
    });
    let hall = hall.and_then(|h| p.check("mqtt", "hall", wire::check_id(&h).map(|()| h)));
    let board = board.and_then(|b| p.check("mqtt", "board", wire::check_board_id(&b).map(|()| b)));
    let username = m.username.and_then(|user| {
        let why = if user.is_empty() {
            Some("must not be empty".to_owned())
        } else if user == wire::HALL_LOGIN {
            Some(format!(
                "{user:?} is the hall's broker login, which reads every board \
                 (systemd/mosquitto/touchmove.acl); a board logs in as itself"
            ))
        } else {
            None
        };
        match why {
            Some(why) => {
                p.at("mqtt", "username", why);
                None
            }
            None => Some(user),
        }
    });
    let client_id = m.client_id.and_then(|id| {
        if id.is_empty() || id.chars().count() > 128 {
            p.at("mqtt", "client-id", "must be 1 to 128 characters");
            None
        } else {
            Some(id)
        }
    });
    let password = m
        .password_file
        .and_then(|f| p.check("mqtt", "password-file", read_secret(&paths.resolve(&f))));
    let ca_file = m.ca_file.and_then(|f| {
        if broker.as_ref().is_some_and(|b| !b.tls) {
            let broker = broker.as_ref().expect("checked");
            p.at(
                "mqtt",
                "ca-file",
                format!("only for an mqtts:// broker, not {broker}"),
            );
            return None;
        }
        p.check("mqtt", "ca-file", paths.file(&f))
    });
    let keep_alive = m.keep_alive.and_then(|s| match u64::try_from(s) {
        Ok(s @ 1..=3600) => Some(Duration::from_secs(s)),
        _ => {
            p.at(
                "mqtt",
                "keep-alive",
                format!("{s}: must be 1 to 3600 seconds"),
            );
            None
        }
    });
    if p.0.len() != before {
        return None;
    }
    let mut mqtt = p.check("mqtt", "board", Mqtt::new(broker?, &hall?, &board?))?;
    if let Some(user) = username {
        mqtt.username = user;
    }
    if let Some(id) = client_id {
        mqtt.client_id = id;
    }
    mqtt.password = password;
    mqtt.ca_file = ca_file;
    if let Some(k) = keep_alive {
        mqtt.keep_alive = k;
    }
    Some(mqtt)
}

/// A TOML error as `line L, column C ("the line"): what` (1-based), the
/// line and the message cut short: the TOML reader's own display repeats
/// the whole line of the file, however long.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = clip(e.message().trim_end());
    match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            let rest = &text[line_start..];
            let shown = rest.lines().next().unwrap_or("").trim();
            format!(
                "line {line}, column {column} ({}): {message}",
                quoted(shown)
            )
        }
        None => message,
    }
}

/// Whether the daemon could listen on `addr`'s IP address: it must be one
/// of this machine's (or the unspecified `0.0.0.0` / `::`). Checked by
/// binding that address on a port the system picks, at once let go, so
/// that a busy port cannot fail the check and nothing stays bound. The
/// port itself is only tried when the daemon listens.
pub(crate) fn check_local_address(addr: SocketAddr) -> Result<(), String> {
    if addr.ip().is_unspecified() || addr.ip().is_loopback() {
        return Ok(());
    }
    match std::net::TcpListener::bind(SocketAddr::new(addr.ip(), 0)) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "{} is not an address of this machine ({e})",
            addr.ip()
        )),
    }
}

/// The token on the first line of `path` (at least 16 characters).
pub fn read_token(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {} ({e})", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_owned();
    if token.len() < 16 {
        return Err(format!(
            "{}: the token on its first line must be at least 16 characters",
            path.display()
        ));
    }
    Ok(token)
}

/// The optional `[game]` tags, as PGN tags in the order they are written:
/// a title is a FIDE title (`GM`, `WFM`, ...; letters, at most 3), a rating
/// a whole number up to 4 digits, a board number digits (and dots, `1.12`).
fn optional_tags(game: &RawGame, p: &mut Problems) -> Vec<(String, String)> {
    let title =
        |v: &str| !v.is_empty() && v.len() <= 3 && v.chars().all(|c| c.is_ascii_uppercase());
    let elo = |v: &str| !v.is_empty() && v.len() <= 4 && v.chars().all(|c| c.is_ascii_digit());
    let board = |v: &str| {
        !v.is_empty() && v.len() <= 16 && v.chars().all(|c| c.is_ascii_digit() || c == '.')
    };
    type Check = fn(&str) -> bool;
    let fields: [(&str, &str, &Option<String>, Check, &str); 5] = [
        (
            "white-title",
            "WhiteTitle",
            &game.white_title,
            title,
            "a FIDE title such as GM or WIM",
        ),
        (
            "white-elo",
            "WhiteElo",
            &game.white_elo,
            elo,
            "a rating, digits only",
        ),
        (
            "black-title",
            "BlackTitle",
            &game.black_title,
            title,
            "a FIDE title such as GM or WIM",
        ),
        (
            "black-elo",
            "BlackElo",
            &game.black_elo,
            elo,
            "a rating, digits only",
        ),
        (
            "board",
            "Board",
            &game.board,
            board,
            "a board number such as 12 or 1.12",
        ),
    ];
    let mut tags = Vec::new();
    for (name, tag, value, valid, what) in fields {
        if let Some(v) = value {
            if valid(v) {
                tags.push((tag.to_owned(), v.clone()));
            } else {
                p.at("game", name, format!("{}: not {what}", quoted(v)));
            }
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder of its own for each test: tests run in parallel threads.
    fn dir() -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("touchmove-config-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("board.toml"),
            "name = \"sim\"\nbackend = \"sim\"\nscan-rate-hz = 100\n\n[sim]\nseed = 1\n",
        )
        .unwrap();
        std::fs::write(d.join("token"), "0123456789abcdef0123\n").unwrap();
        d
    }

    fn err(text: &str) -> String {
        let d = dir();
        parse(text, &d.join("touchmove.toml"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_full_configuration_reads_back() {
        let d = dir();
        let board_ok = match board_profile::load(d.join("board.toml")) {
            Ok(_) => true,
            Err(e) => panic!("the test board profile is wrong: {e}"),
        };
        assert!(board_ok);
        let text = "[board]\nprofile = \"board.toml\"\n[rules]\nprofile = \"fide-rapid\"\ntime-control = \"25+10\"\n\
                    [game]\nwhite = \"A\"\n[http]\nbind = \"0.0.0.0:9000\"\ntoken-file = \"token\"\n\
                    [journal]\non-start = \"new-game\"\n";
        let c = parse(text, &d.join("touchmove.toml")).unwrap();
        assert_eq!(c.rules, Profile::FideRapid);
        assert_eq!(c.http.bind.port(), 9000);
        assert_eq!(c.http.token.as_deref(), Some("0123456789abcdef0123"));
        assert_eq!(c.game.white, "A");
        assert_eq!(c.game.black, "?");
        assert_eq!(c.journal.on_start, OnStart::NewGame);
        assert_eq!(c.journal.clock_downtime, ClockDowntime::Pause);
        assert!(c.time_control.is_some());
        assert!(!c.stop_clocks_on_alert, "off unless asked for");
    }

    #[test]
    fn titles_ratings_and_the_board_number_become_tags() {
        let d = dir();
        let base = "[board]\nprofile = \"board.toml\"\n[game]\n";
        let text = format!(
            "{base}white = \"Carlsen, Magnus\"\nwhite-title = \"GM\"\nwhite-elo = \"2830\"\n\
             black-elo = \"2701\"\nboard = \"1.12\"\n"
        );
        let c = parse(&text, &d.join("touchmove.toml")).unwrap();
        let tags: Vec<(&str, &str)> = c
            .game
            .extra
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            tags,
            [
                ("WhiteTitle", "GM"),
                ("WhiteElo", "2830"),
                ("BlackElo", "2701"),
                ("Board", "1.12")
            ]
        );
        for (line, key) in [
            ("white-elo = \"28x0\"", "[game] white-elo:"),
            ("black-title = \"Grandmaster\"", "[game] black-title:"),
            ("board = \"12\\\"]\"", "[game] board:"),
        ] {
            let e = err(&format!("{base}{line}\n"));
            assert!(
                e.contains("touchmove.toml: ") && e.contains(key),
                "{line}: {e}"
            );
        }
    }

    #[test]
    fn the_arbiter_may_stop_the_clocks_on_an_alert() {
        let d = dir();
        let base = "[board]\nprofile = \"board.toml\"\n[rules]\n";
        for (value, expected) in [("true", true), ("false", false)] {
            let text = format!("{base}stop-clocks-on-alert = {value}\n");
            let c = parse(&text, &d.join("touchmove.toml")).unwrap();
            assert_eq!(c.stop_clocks_on_alert, expected);
        }
        for bad in ["\"yes\"", "1", "[true]"] {
            let e = err(&format!("{base}stop-clocks-on-alert = {bad}\n"));
            assert!(
                e.contains("touchmove.toml: [rules] stop-clocks-on-alert:")
                    && e.contains("must be true or false"),
                "{e}"
            );
        }
    }

    #[test]
    fn every_problem_is_reported_with_its_key() {
        let text = "[board]\nprofile = \"board.toml\"\n[rules]\nprofile = \"fide-bullet\"\n\
                    time-control = \"3x+2\"\n[game]\nwhite-elo = \"high\"\n[http]\nbind = \"8080\"\n\
                    [journal]\non-start = \"later\"\nmax-missed-plies = 0\n\
                    [mqtt]\nbroker = \"mqtt://localhost\"\nhall = \"h\"\nkeep-alive = 0\n";
        let e = err(text);
        let lines: Vec<&str> = e.lines().collect();
        let keys = [
            "[rules] profile:",
            "[rules] time-control:",
            "[game] white-elo:",
            "[http] bind:",
            "[journal] on-start:",
            "[journal] max-missed-plies:",
            "[mqtt] board: missing",
            "[mqtt] keep-alive:",
        ];
        assert_eq!(lines.len(), keys.len(), "{e}");
        for (line, key) in lines.iter().zip(keys) {
            assert!(
                line.contains(&format!("touchmove.toml: {key}")),
                "{key} in {e}"
            );
        }
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let base = "[board]\nprofile = \"board.toml\"\n";
        let e = err("[rules]\nprofile = \"fide-standard\"\n");
        assert!(e.contains("touchmove.toml") && e.contains("[board]"), "{e}");
        let e = err("[board]\nprofile = \"missing.toml\"\n");
        assert!(e.contains("[board] profile"), "{e}");
        let e = err(&format!("{base}[rules]\nprofile = \"fide-fast\"\n"));
        assert!(e.contains("[rules] profile"), "{e}");
        let e = err(&format!("{base}[rules]\ntime-control = \"ninety\"\n"));
        assert!(e.contains("[rules] time-control"), "{e}");
        let e = err(&format!("{base}[http]\nbind = \"localhost\"\n"));
        assert!(e.contains("[http] bind"), "{e}");
        let e = err(&format!("{base}[journal]\nclock-downtime = \"stop\"\n"));
        assert!(e.contains("[journal] clock-downtime"), "{e}");
        let e = err(&format!("{base}[http]\ntoken-file = \"nope\"\n"));
        assert!(e.contains("[http] token-file"), "{e}");
        let e = err(&format!("{base}[journal]\nmax-missed-plies = 9\n"));
        assert!(e.contains("[journal] max-missed-plies"), "{e}");
        let e = err(&format!(
            "{base}[mqtt]\nbroker = \"http://x\"\nhall = \"h\"\nboard = \"b\"\n"
        ));
        assert!(e.contains("[mqtt] broker"), "{e}");
        let e = err(&format!("{base}[http]\nport = 80\n"));
        assert!(e.contains("port") && e.contains("touchmove.toml"), "{e}");
    }

    #[test]
    fn mqtt_keys_default_and_fail_by_name() {
        let d = dir();
        std::fs::write(d.join("mqtt-password"), "s3cret\n").unwrap();
        std::fs::write(d.join("empty"), "\n").unwrap();
        std::fs::write(d.join("ca.pem"), "not read at load\n").unwrap();
        let base = "[board]\nprofile = \"board.toml\"\n[mqtt]\n";
        let text = format!(
            "{base}broker = \"mqtt://10.0.0.2\"\nhall = \"open-2026\"\nboard = \"b12\"\npassword-file = \"mqtt-password\"\n"
        );
        let m = parse(&text, &d.join("touchmove.toml"))
            .unwrap()
            .mqtt
            .unwrap();
        assert_eq!(m.broker.port, 1883);
        assert_eq!(m.username, "b12");
        assert_eq!(m.client_id, "touchmove-open-2026-b12");
        assert_eq!(m.password, Some(Secret("s3cret".into())));
        assert_eq!(m.keep_alive, Duration::from_secs(DEFAULT_MQTT_KEEP_ALIVE_S));
        assert!(
            !format!("{m:?}").contains("s3cret"),
            "the password is never printed"
        );
        let text = format!(
            "{base}broker = \"mqtts://h\"\nhall = \"h\"\nboard = \"b\"\nusername = \"u\"\nclient-id = \"c\"\nca-file = \"ca.pem\"\nkeep-alive = 2\n"
        );
        let m = parse(&text, &d.join("touchmove.toml"))
            .unwrap()
            .mqtt
            .unwrap();
        assert_eq!((m.username.as_str(), m.client_id.as_str()), ("u", "c"));
        assert_eq!(m.broker.port, 8883);
        assert_eq!(m.ca_file, Some(d.join("ca.pem")));
        assert_eq!(m.keep_alive, Duration::from_secs(2));

        let ok = "broker = \"mqtt://h\"\nhall = \"h\"\nboard = \"b\"\n";
        for (extra, says) in [
            (
                "broker = \"mqtt://h\"\nboard = \"b\"\n",
                "[mqtt] hall: missing",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"h\"\n",
                "[mqtt] board: missing",
            ),
            ("hall = \"h\"\nboard = \"b\"\n", "[mqtt] broker: missing"),
            (
                "broker = \"mqtt://h:x\"\nhall = \"h\"\nboard = \"b\"\n",
                "[mqtt] broker",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"h/1\"\nboard = \"b\"\n",
                "[mqtt] hall",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"h\"\nboard = \"b#\"\n",
                "[mqtt] board",
            ),
            (
                &format!("{ok}password-file = \"nope\"\n"),
                "[mqtt] password-file",
            ),
            (
                &format!("{ok}password-file = \"empty\"\n"),
                "[mqtt] password-file",
            ),
            (
                &format!("{ok}ca-file = \"ca.pem\"\n"),
                "[mqtt] ca-file: only for an mqtts://",
            ),
            (&format!("{ok}keep-alive = 0\n"), "[mqtt] keep-alive"),
            (&format!("{ok}topic-prefix = \"t\"\n"), "topic-prefix"),
        ] {
            let e = err(&format!("{base}{extra}"));
            assert!(
                e.contains(says) && e.contains("touchmove.toml"),
                "{extra}: {e}"
            );
        }
    }

    #[test]
    fn the_example_configuration_documents_every_mqtt_key() {
        let example = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../systemd/touchmove.toml"),
        )
        .unwrap();
        let section = &example[example.find("# [mqtt]").expect("an [mqtt] example")..];
        for k in [
            "broker",
            "hall",
            "board",
            "username",
            "password-file",
            "ca-file",
            "client-id",
            "keep-alive",
        ] {
            assert!(
                section.contains(&format!("\n# {k} = ")),
                "systemd/touchmove.toml: [mqtt] {k} is not documented"
            );
        }
        // Uncommented (with the files it names here), the example reads.
        let d = dir();
        std::fs::write(d.join("mqtt-password"), "pw\n").unwrap();
        let text: String = section
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| !l.starts_with('#') && !l.starts_with("ca-file"))
            .map(|l| l.replace("/etc/touchmove/", "") + "\n")
            .collect();
        let c = parse(
            &format!("[board]\nprofile = \"board.toml\"\n{text}"),
            &d.join("touchmove.toml"),
        )
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(c.mqtt.unwrap().board, "board-1");
    }
}
