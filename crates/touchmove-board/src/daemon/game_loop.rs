//! The scan loop: the shell around the pure session. It owns the wall
//! clock: game time is milliseconds since the game's origin (times the
//! speed factor). Every tick it feeds the input due by now to the session,
//! lets it advance to now (deadlines fire at their own times), takes the
//! control commands waiting, and publishes the events to the feed, which
//! never blocks on a consumer.
//!
//! It runs on a thread of its own rather than a tokio task: hardware
//! scanners block while they read the board.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::time::LoopClock;

use serde_json::json;
use tokio::sync::mpsc;

use super::board_input::BoardInput;
use super::demo;
use super::notify::Notifier;
use super::writer::Batch;
use crate::outputs::control::{
    Accept, BadBody, ControlCommand, DrawKind, NewGame, Refused, Request,
};
use crate::outputs::feed::Feed;
use crate::outputs::journal::durability::StorageNotice;
use crate::outputs::journal::{GameMeta, wall_clock_now};
use touchmove_core::Millis;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::filter::Classify;
use touchmove_core::filter::analog::{AnalogClassifier, Calibration};
use touchmove_core::game::{Profile, Start};
use touchmove_core::inference::arbiter::RulingRefused;
use touchmove_core::inference::{Completion, InferenceConfig, ResumedBoard};
use touchmove_core::session::{Resumption, Session, SessionConfig};
use touchmove_core::trace::{Record, TimedRecord, Trace};
use touchmove_hw::SensorError;
use touchmove_hw::profile::BoardProfile;

/// Where the games come from.
pub enum GameSource {
    /// The demo: games synthesized one after another (the corpus game
    /// first), each played from its trace, a few seconds apart.
    Demo { seed: u64, faults: bool },
    /// One trace, played once, every record at its time.
    Trace(Box<Trace>),
    /// A board, read at its profile's scan rate (the scanner and the
    /// clock buttons of its `[clock]` table are opened on the scan thread).
    Board {
        profile: Box<BoardProfile>,
        /// Hall boards: the calibration the classifier reads the levels with.
        calibration: Option<Box<Calibration>>,
    },
}

/// How the loop runs.
pub(crate) struct LoopConfig {
    pub source: GameSource,
    pub speed: f64,
    /// The demo's and traces' tick (a board ticks at its scan period).
    pub tick: Duration,
    pub profile: Option<Profile>,
    pub time_control: Option<TimeControl>,
    /// The clocks stand while the board is displaced or an illegal move
    /// awaits reinstatement (Article 6.13).
    pub stop_clocks_on_alert: bool,
    /// Wall time between the end of a demo game and the next.
    pub pause_between_games: Duration,
    /// A game restored from the journal, to carry on with.
    pub resume: Option<ResumedGame>,
    /// What a resumed game does with a board that moved on meanwhile.
    pub resumed_board: ResumedBoard,
    /// The longest run of missed plies searched.
    pub max_missed_plies: usize,
    /// Where the loop reads the time and waits.
    pub clock: Arc<dyn LoopClock>,
}

/// A journalled game the loop carries on with.
pub struct ResumedGame {
    /// What the journal keeps about it: its start, rules and clock win
    /// over the source's.
    pub meta: GameMeta,
    pub resumption: Resumption,
}

enum Input {
    Trace { trace: Box<Trace>, next: usize },
    Board(BoardInput),
}

struct Current {
    session: Session,
    input: Input,
    origin: Instant,
    /// Wall time the input ran out or the game ended (demo: when to go on).
    finished_at: Option<Instant>,
}

/// The scan loop; see the module documentation.
pub(crate) struct GameLoop {
    feed: Arc<Feed>,
    writer: std::sync::mpsc::SyncSender<Batch>,
    /// What the journal writer says of the journal (reported into the record).
    storage: std::sync::mpsc::Receiver<StorageNotice>,
    notifier: Notifier,
    inbox: mpsc::Receiver<Request>,
    stop: Arc<AtomicBool>,
    config: LoopConfig,
    demo_games: u64,
    current: Current,
    out: Vec<Event>,
}

impl GameLoop {
    pub fn new(
        feed: Arc<Feed>,
        writer: std::sync::mpsc::SyncSender<Batch>,
        storage: std::sync::mpsc::Receiver<StorageNotice>,
        inbox: mpsc::Receiver<Request>,
        stop: Arc<AtomicBool>,
        mut config: LoopConfig,
    ) -> anyhow::Result<GameLoop> {
        // Events of a resumed session (its clock reading), published first.
        let mut out = Vec::new();
        let current = match std::mem::replace(
            &mut config.source,
            GameSource::Demo {
                seed: 0,
                faults: false,
            },
        ) {
            GameSource::Demo { seed, faults } => {
                config.source = GameSource::Demo { seed, faults };
                let game = demo::game(0, seed, faults, None)?;
                feed.update_tags(|t| demo::tags(t, &game));
                trace_game(&game.trace, &mut config, &mut out)?
            }
            GameSource::Trace(trace) => {
                let current = trace_game(&trace, &mut config, &mut out)?;
                config.source = GameSource::Trace(trace);
                current
            }
            GameSource::Board {
                profile,
                calibration,
            } => {
                config.tick = profile.scan_period();
                let scanner = touchmove_hw::profile::open(&profile).map_err(|e| {
                    anyhow::anyhow!("board profile {}: {e}", profile.file.display())
                })?;
                tracing::info!("reading {}", scanner.describe());
                let buttons = touchmove_hw::profile::open_clock_buttons(&profile).map_err(|e| {
                    anyhow::anyhow!("board profile {}: {e}", profile.file.display())
                })?;
                match &buttons {
                    Some(buttons) => tracing::info!("reading {}", buttons.describe()),
                    None if config.time_control.is_some() => tracing::info!(
                        "the board profile has no [clock] buttons: a move is complete when \
                         the board settles, and the time control only goes to the PGN tags"
                    ),
                    None => {}
                }
                let classifier = classifier_of(calibration.as_deref());
                let (session, origin) = match config.resume.take() {
                    Some(resume) => {
                        let mut session_config =
                            loop_session_config(&config, &profile, resume.meta.start.clone());
                        resumed_config(&mut session_config, &resume.meta, &config);
                        let t = resume.resumption.t;
                        let session = Session::resume(
                            session_config,
                            classifier,
                            resume.resumption,
                            &mut out,
                        );
                        (session, origin_at(config.clock.now(), t, config.speed))
                    }
                    None => (
                        Session::new(
                            loop_session_config(&config, &profile, Start::standard()),
                            classifier,
                        ),
                        config.clock.now(),
                    ),
                };
                config.source = GameSource::Board {
                    profile,
                    calibration,
                };
                Current {
                    session,
                    input: Input::Board(BoardInput::new(scanner, buttons)),
                    origin,
                    finished_at: None,
                }
            }
        };
        feed.set_game_clock(current.origin, config.speed, Arc::clone(&config.clock));
        Ok(GameLoop {
            feed,
            writer,
            storage,
            notifier: Notifier::new(config.clock.now()),
            inbox,
            stop,
            config,
            demo_games: 1,
            current,
            out,
        })
    }

    fn now(&self) -> Millis {
        game_ms(
            self.current.origin,
            self.config.clock.now(),
            self.config.speed,
        )
    }

    /// Runs until the stop flag is set.
    pub fn run(mut self) {
        let clock = Arc::clone(&self.config.clock);
        let mut next_tick = clock.now();
        while !self.stop.load(Ordering::Relaxed) {
            self.tick();
            next_tick += self.config.tick;
            let now = clock.now();
            if next_tick > now {
                clock.sleep_until(next_tick);
            } else {
                // Behind (a slow scan): do not try to catch up in a burst.
                next_tick = now;
            }
        }
        tracing::info!("scan loop stopped");
    }

    /// One tick: input, deadlines, commands, publishing.
    pub fn tick(&mut self) {
        let t = self.now();
        self.feed_input(t);
        if matches!(self.current.input, Input::Trace { .. }) {
            // A replayed trace is a board that always answers.
            self.notifier.input(self.config.clock.now());
        }
        self.notifier.tick(self.config.clock.now());
        self.current.session.advance(t, &mut self.out);
        self.report_storage(t);
        while let Ok(request) = self.inbox.try_recv() {
            let t = self.now();
            let answer = self.command(t, request.command);
            self.publish();
            let _ = request.reply.send(answer);
        }
        self.publish();
        self.maybe_next_demo_game();
    }

    /// Reports the journal's failures and recoveries into the record, where
    /// the displays, the arbiter's page and the hall see them.
    fn report_storage(&mut self, t: Millis) {
        while let Ok(notice) = self.storage.try_recv() {
            let session = &mut self.current.session;
            match notice {
                StorageNotice::Failed { error, from_seq } => {
                    session.storage_failed(t, error, from_seq, &mut self.out)
                }
                StorageNotice::Restored { committed, lost } => {
                    session.storage_restored(t, committed, lost, &mut self.out)
                }
            }
        }
    }

    fn feed_input(&mut self, t: Millis) {
        let out = &mut self.out;
        let session = &mut self.current.session;
        match &mut self.current.input {
            Input::Trace { trace, next } => {
                while let Some(record) = trace.records.get(*next).filter(|r| r.t <= t) {
                    *next += 1;
                    if let Err(e) = session.apply(record, out) {
                        tracing::warn!("trace record {}: {e}", *next);
                    }
                }
                if *next >= trace.records.len()
                    && session.next_board_deadline().is_none()
                    && self.current.finished_at.is_none()
                {
                    // Nothing more will tell open lines apart.
                    session.input_ended(t, out);
                    self.current.finished_at = Some(self.config.clock.now());
                }
            }
            Input::Board(board) => match board.tick(session, t, out) {
                Ok(()) => self.notifier.input(self.config.clock.now()),
                Err(SensorError::Exhausted) => {
                    if self.current.finished_at.is_none() {
                        tracing::info!("{}: no more scans", board.describe());
                        session.input_ended(t, out);
                        self.current.finished_at = Some(self.config.clock.now());
                    }
                }
                Err(e) => tracing::warn!("{}: {e}", board.describe()),
            },
        }
    }

    /// Hands the step's events to the journal writer, which commits them
    /// and then publishes them.
    fn publish(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let session = &self.current.session;
        let meta = if self
            .out
            .iter()
            .any(|e| matches!(e.kind, EventKind::GameStarted { .. }))
        {
            let date = today();
            self.feed.update_tags(|t| t.date = date);
            let tags = self.feed.tags();
            let config = session.config();
            let mut meta = GameMeta::new(wall_clock_now(), config.start.clone(), config.profile);
            meta.time_control = config.time_control.clone();
            meta.white = tags.white;
            meta.black = tags.black;
            meta.event = tags.event;
            meta.site = tags.site;
            meta.round = tags.round;
            Some(meta)
        } else {
            None
        };
        let batch = Batch {
            events: std::mem::take(&mut self.out),
            meta,
            game: session.game().clone(),
        };
        if self.writer.send(batch).is_err() {
            tracing::error!("the journal writer has stopped; events are lost");
        }
    }

    /// The demo goes on with the next game a few seconds after one ends;
    /// a demo game whose moves ran out without a result is agreed drawn.
    fn maybe_next_demo_game(&mut self) {
        let GameSource::Demo { seed, faults } = self.config.source else {
            return;
        };
        let Some(done) = self.current.finished_at else {
            return;
        };
        if !self.current.session.game().is_over() {
            let t = self.now();
            self.current.session.agree_draw(t, &mut self.out);
            self.publish();
        }
        if self.config.clock.now().saturating_duration_since(done) < self.config.pause_between_games
        {
            return;
        }
        self.start_demo_game(seed, faults, None);
    }

    fn start_demo_game(&mut self, seed: u64, faults: bool, start: Option<Start>) -> bool {
        let index = self.demo_games;
        self.demo_games += 1;
        let game = match demo::game(index, seed, faults, start) {
            Ok(g) => g,
            Err(e) => {
                tracing::error!("demo game {index}: {e}");
                return false;
            }
        };
        match trace_game(&game.trace, &mut self.config, &mut self.out) {
            Ok(current) => {
                self.feed.update_tags(|t| demo::tags(t, &game));
                self.current = current;
                self.feed.set_game_clock(
                    self.current.origin,
                    self.config.speed,
                    Arc::clone(&self.config.clock),
                );
                true
            }
            Err(e) => {
                tracing::error!("demo game {index}: {e}");
                false
            }
        }
    }

    fn command(
        &mut self,
        t: Millis,
        command: ControlCommand,
    ) -> Result<serde_json::Value, Refused> {
        let ok = Ok(json!({ "ok": true }));
        // A ruling the game cannot carry out: a bad move or FEN is the
        // body's fault (400), anything else does not apply now (409).
        let ruled = |result: Result<(), RulingRefused>| match result {
            Ok(()) => Ok(json!({ "ok": true })),
            Err(e @ RulingRefused::BadMove { .. }) => {
                Err(Refused::Invalid(BadBody::field("moves", e.to_string())))
            }
            Err(e @ RulingRefused::BadFen(_)) => {
                Err(Refused::Invalid(BadBody::field("fen", e.to_string())))
            }
            Err(e) => Err(Refused::Conflict(e.to_string())),
        };
        let session = &mut self.current.session;
        let over = |s: &Session| {
            if !s.inference().is_started() {
                Refused::Conflict("no game has started yet".into())
            } else {
                Refused::Conflict("the game is over".into())
            }
        };
        match command {
            ControlCommand::Promote(role) => {
                session.promote(t, role, &mut self.out);
                ok
            }
            ControlCommand::Adjust => {
                session.adjust(t, &mut self.out);
                ok
            }
            ControlCommand::SetClocks {
                white_ms,
                black_ms,
                reason,
            } => {
                if !session.inference().is_started() || session.game().is_over() {
                    return Err(over(session));
                }
                if session.set_clocks(t, white_ms, black_ms, &reason, &mut self.out) {
                    ok
                } else {
                    Err(Refused::Conflict(
                        "no clock runs in this game (set a time control)".into(),
                    ))
                }
            }
            ControlCommand::Reinstate {
                ply,
                irregularity,
                note,
            } => ruled(session.reinstate(t, ply, irregularity, note, &mut self.out)),
            ControlCommand::AcceptPosition { accept, note } => ruled(match accept {
                Accept::Moves(moves) => session.accept_moves(t, &moves, note, &mut self.out),
                Accept::Candidate(index) => session.accept_candidate(t, index, note, &mut self.out),
                Accept::Fen(fen) => session.accept_position(t, &fen, note, &mut self.out),
            }),
            ControlCommand::Resign(side) => {
                if session.resign(t, side, &mut self.out) {
                    ok
                } else {
                    Err(over(session))
                }
            }
            ControlCommand::Draw {
                kind: DrawKind::Agree,
                ..
            } => {
                if session.agree_draw(t, &mut self.out) {
                    ok
                } else {
                    Err(over(session))
                }
            }
            ControlCommand::Draw {
                kind: DrawKind::Claim(claim),
                side,
            } => {
                if !session.inference().is_started() || session.game().is_over() {
                    return Err(over(session));
                }
                let claims = match claim {
                    Some(c) => vec![c],
                    None => session.game().claimable(),
                };
                for c in claims {
                    // An incorrect claim costs the claimant time (9.5).
                    if session.claim_draw(t, side, c, &mut self.out) {
                        return ok;
                    }
                }
                Err(Refused::Conflict(
                    "no draw can be claimed in this position (Articles 9.2, 9.3)".into(),
                ))
            }
            ControlCommand::NewGame(new) => self.new_game(new),
        }
    }

    fn new_game(&mut self, new: NewGame) -> Result<serde_json::Value, Refused> {
        let start = match (&new.fen, new.chess960) {
            (Some(fen), _) => Some(
                Start::parse(fen)
                    .map_err(|e| Refused::Invalid(BadBody::field("fen", e.to_string())))?,
            ),
            (None, Some(n)) => Some(
                Start::chess960(n)
                    .map_err(|e| Refused::Invalid(BadBody::field("chess960", e.to_string())))?,
            ),
            (None, None) => None,
        };
        if let Some(tc) = &new.time_control {
            let tc = touchmove_core::replay::parse_time_control(tc)
                .map_err(|e| Refused::Invalid(BadBody::field("time_control", e.to_string())))?;
            self.config.time_control = Some(tc);
        }
        let (white, black) = (new.white.clone(), new.black.clone());
        let started = match &mut self.config.source {
            GameSource::Demo { seed, faults } => {
                let (seed, faults) = (*seed, *faults);
                self.start_demo_game(seed, faults, start)
            }
            GameSource::Trace(_) => {
                return Err(Refused::Unsupported(
                    "a replayed trace holds one game; restart the daemon for another".into(),
                ));
            }
            GameSource::Board {
                profile,
                calibration,
            } => {
                let start = start.unwrap_or_else(Start::standard);
                let classifier = classifier_of(calibration.as_deref());
                let session_config = board_session_config(
                    profile,
                    self.config.profile,
                    self.config.time_control.clone(),
                    self.config.stop_clocks_on_alert,
                    start,
                );
                self.current.session = Session::new(session_config, classifier);
                self.current.origin = self.config.clock.now();
                self.current.finished_at = None;
                self.feed.set_game_clock(
                    self.current.origin,
                    self.config.speed,
                    Arc::clone(&self.config.clock),
                );
                true
            }
        };
        if !started {
            return Err(Refused::Conflict("the new game could not be set up".into()));
        }
        self.feed.update_tags(|t| {
            if let Some(w) = white {
                t.white = w;
            }
            if let Some(b) = black {
                t.black = b;
            }
        });
        let tc = self.config.time_control.as_ref().map(TimeControl::to_pgn);
        self.feed.update_tags(|t| t.time_control = tc);
        Ok(json!({ "ok": true, "note": "the game starts when the board shows its start position" }))
    }
}

fn trace_game(
    trace: &Trace,
    config: &mut LoopConfig,
    out: &mut Vec<Event>,
) -> anyhow::Result<Current> {
    let mut session = touchmove_core::replay::session_for(
        trace,
        config.profile,
        None,
        config.time_control.clone(),
        None,
        None,
    )?;
    if config.stop_clocks_on_alert {
        let mut session_config = session.config().clone();
        session_config.stop_clocks_on_alert = true;
        session = Session::new(session_config, None);
    }
    let Some(resume) = config.resume.take() else {
        return Ok(Current {
            session,
            input: Input::Trace {
                trace: Box::new(trace.clone()),
                next: 0,
            },
            origin: config.clock.now(),
            finished_at: None,
        });
    };
    // The trace carries on where the journal stops: the records the game
    // already reflects are skipped, and its time goes on from there.
    let mut session_config = session.config().clone();
    resumed_config(&mut session_config, &resume.meta, config);
    let t = resume.resumption.t;
    let next = trace.records.partition_point(|r| r.t <= t);
    let session = match touchmove_core::replay::read_again(
        &trace.records[..next],
        &session_config,
        t,
        &resume.resumption,
    ) {
        Some(mut session) => {
            session.carry_on(resume.resumption, out);
            session
        }
        None => resumed_on_the_board(trace, next, session_config, resume.resumption, out)?,
    };
    Ok(Current {
        session,
        input: Input::Trace {
            trace: Box::new(trace.clone()),
            next,
        },
        origin: origin_at(config.clock.now(), t, config.speed),
        finished_at: None,
    })
}

/// The journal's game carried on from the board as it stood at the
/// resumption (the last reading before it, read again), as a board
/// daemon does: moves made meanwhile are searched for.
fn resumed_on_the_board(
    trace: &Trace,
    next: usize,
    config: SessionConfig,
    resume: Resumption,
    out: &mut Vec<Event>,
) -> anyhow::Result<Session> {
    let t = resume.t;
    let choices = pending_choices(&trace.records[..next], &resume);
    let mut session = Session::resume(config, None, resume, out);
    let board = trace.records[..next]
        .iter()
        .rev()
        .find_map(|r| r.record.scan());
    if let Some(scan) = board {
        session.scan(t, &scan, out)?;
    }
    for role in choices {
        session.promote(t, role, out);
    }
    Ok(session)
}

/// The promotion pieces named in the turn under way (after the last
/// clock press, before the move was made): the journal does not hold
/// them, the turn still needs them.
fn pending_choices(done: &[TimedRecord], resume: &Resumption) -> Vec<shakmaty::Role> {
    if resume.awaiting_press.is_some() {
        return Vec::new();
    }
    let Some(press) = done
        .iter()
        .rposition(|r| matches!(r.record, Record::Clock(_)))
    else {
        return Vec::new();
    };
    done[press..]
        .iter()
        .filter_map(|r| match r.record {
            Record::Promote(role) => Some(role),
            _ => None,
        })
        .collect()
}

/// The journal's description of a game wins over the source's.
fn resumed_config(config: &mut SessionConfig, meta: &GameMeta, loop_config: &LoopConfig) {
    config.start = meta.start.clone();
    config.profile = meta.profile;
    config.time_control = meta.time_control.clone();
    config.inference.resumed_board = loop_config.resumed_board;
    config.inference.max_missed_plies = loop_config.max_missed_plies;
}

/// The origin that makes game time `t` now.
fn origin_at(now: Instant, t: Millis, speed: f64) -> Instant {
    now.checked_sub(Duration::from_secs_f64(t as f64 / 1000.0 / speed))
        .unwrap_or(now)
}

fn loop_session_config(config: &LoopConfig, board: &BoardProfile, start: Start) -> SessionConfig {
    let mut session = board_session_config(
        board,
        config.profile,
        config.time_control.clone(),
        config.stop_clocks_on_alert,
        start,
    );
    session.inference.max_missed_plies = config.max_missed_plies;
    session
}

/// How a board's game is kept. With clock buttons (`[clock]` in its
/// profile) a move is complete when its player presses his button
/// (Article 6.7) and touchmove keeps the clocks of `time_control`; with
/// `stop_clocks_on_alert` they stand while the board needs the arbiter
/// (6.13). Without buttons a move is complete when the board settles and no
/// clock is kept (the time control goes to the PGN tags only).
pub fn board_session_config(
    board: &BoardProfile,
    profile: Option<Profile>,
    time_control: Option<TimeControl>,
    stop_clocks_on_alert: bool,
    start: Start,
) -> SessionConfig {
    let buttons = board.clock.is_some();
    SessionConfig {
        start,
        profile: profile.unwrap_or(Profile::FideStandard),
        inference: InferenceConfig {
            completion: if buttons {
                Completion::ClockPress
            } else {
                Completion::Settle
            },
            ..InferenceConfig::default()
        },
        time_control: time_control.filter(|_| buttons),
        stop_clocks_on_alert,
        filter: touchmove_core::filter::FilterConfig {
            debounce: touchmove_core::filter::debounce::DebounceConfig {
                stable_ms: board
                    .debounce_ms
                    .unwrap_or(touchmove_core::filter::debounce::DebounceConfig::DEFAULT_STABLE_MS),
            },
            ..Default::default()
        },
    }
}

fn classifier_of(calibration: Option<&Calibration>) -> Option<Box<dyn Classify>> {
    calibration.map(|c| Box::new(AnalogClassifier::new(c)) as Box<dyn Classify>)
}

fn game_ms(origin: Instant, now: Instant, speed: f64) -> Millis {
    (now.saturating_duration_since(origin).as_secs_f64() * 1000.0 * speed) as Millis
}

/// Today's date as PGN writes it (`YYYY.MM.DD`, UTC).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
