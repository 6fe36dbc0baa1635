//! The session: filter + inference + game + clock, driven by three calls —
//! a scan arrived at t, a button was pressed at t, time reached t — each
//! returning the events it concluded, numbered. It reports its next
//! deadline. No I/O, no threads, no wall clock.
use shakmaty::{ByColor, Color, Role};

use crate::Millis;
use crate::clock::{
    Clock, ClockState, FlagReport, PauseReason, Press, SetTimes, Source, TimeControl, TimeReason,
};
use crate::events::{Event, EventKind};
use crate::filter::{Classify, Filter, FilterConfig, FilterError, SensorFault, SettledChange};
use crate::game::{DrawClaim, Game, GameEnd, IllegalMovePenalty, Profile, Start};
use crate::inference::arbiter::{Irregularity, RulingRefused};
use crate::inference::{Inference, InferenceConfig, PressMeaning};
use crate::scan::Scan;

/// Everything a session is set up with.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub start: Start,
    pub profile: Profile,
    pub inference: InferenceConfig,
    pub filter: FilterConfig,
    /// The clock touchmove keeps, if the game is played with time.
    pub time_control: Option<TimeControl>,
    /// The arbiter stops the clocks (6.13) while the board is displaced or
    /// an illegal move awaits reinstatement; the time stopped is recorded.
    pub stop_clocks_on_alert: bool,
}

impl Default for SessionConfig {
    fn default() -> SessionConfig {
        SessionConfig {
            start: Start::standard(),
            profile: Profile::FideStandard,
            inference: InferenceConfig::default(),
            filter: FilterConfig::default(),
            time_control: None,
            stop_clocks_on_alert: false,
        }
    }
}

/// A clock reading to carry on from (the last `clock` event of a game).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockReading {
    /// When it was read.
    pub t: Millis,
    pub white_ms: Millis,
    pub black_ms: Millis,
    /// The side whose time was running, None when the clocks stood.
    pub running: Option<Color>,
}

/// What the time the daemon was down does to the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Downtime {
    /// The clocks stood while the board was not read (Article 6.13: the
    /// arbiter stops the clocks when something is wrong that is not the
    /// players' doing).
    #[default]
    Pause,
    /// The running side's time kept falling: this many milliseconds are
    /// taken from it.
    Charge(Millis),
}

/// A game carried on after the daemon was down: where it stood.
#[derive(Debug, Clone)]
pub struct Resumption {
    /// The record so far (the moves, the completed illegal moves counted).
    pub game: Game,
    /// The `seq` the next event carries.
    pub next_seq: u64,
    /// The ply made and not yet completed by its clock press (6.7).
    pub awaiting_press: Option<usize>,
    /// The last clock reading, when the game is played with a clock.
    pub clock: Option<ClockReading>,
    /// The game time the session goes on from (at least the time of the
    /// last event and of the clock reading).
    pub t: Millis,
    pub downtime: Downtime,
}

/// One board's game, from scans to events: the filter, the hand tracker,
/// the rules and the clock, driven by the caller's scans, button presses
/// and times (no clock of its own).
///
/// ```
/// use shakmaty::{Bitboard, Color, Square};
/// use touchmove_core::scan::Scan;
/// use touchmove_core::session::{Session, SessionConfig};
///
/// let mut session = Session::new(SessionConfig::default(), None);
/// let mut events = Vec::new();
/// let start = Bitboard(0xFFFF_0000_0000_FFFF);
/// let lifted = start.without(Square::G1);
/// let placed = lifted.with(Square::F3);
///
/// session.scan(0, &Scan::Occupancy(start), &mut events)?;
/// session.scan(1_000, &Scan::Occupancy(lifted), &mut events)?;
/// session.scan(1_400, &Scan::Occupancy(placed), &mut events)?;
/// // The session says when it next needs to be woken (the settle window
/// // that makes the knight's move "made", Article 4.6).
/// while let Some(t) = session.next_board_deadline() {
///     session.advance(t, &mut events);
/// }
/// session.clock_button(2_000, Color::White, &mut events);
/// assert_eq!(session.game().moves().len(), 1);
/// assert_eq!(session.game().moves()[0].san.to_string(), "Nf3");
/// # Ok::<(), touchmove_core::filter::FilterError>(())
/// ```
pub struct Session {
    config: SessionConfig,
    filter: Filter,
    inference: Inference,
    clock: Option<Clock>,
    /// The clocks are stopped because of an alert (6.13).
    stopped_for_alert: bool,
    seq: u64,
    changes: Vec<SettledChange>,
    faults: Vec<SensorFault>,
    /// The clock reading of a press that completed a promotion not yet
    /// recorded (its piece unnamed, 3.7e): (ply, remaining, used), for the
    /// record's `[%clk]` once the ply is recorded.
    awaiting_clock: Option<(usize, Millis, Millis)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("profile", &self.config.profile)
            .field("seq", &self.seq)
            .field("fen", &self.inference.game().fen())
            .finish()
    }
}

impl Session {
    pub fn new(config: SessionConfig, classifier: Option<Box<dyn Classify>>) -> Session {
        let filter = Filter::new(config.filter, classifier);
        let inference = Inference::new(config.start.clone(), config.profile, config.inference);
        Session {
            config,
            filter,
            inference,
            clock: None,
            stopped_for_alert: false,
            seq: 0,
            changes: Vec::new(),
            faults: Vec::new(),
            awaiting_clock: None,
        }
    }

    /// A session carrying on with a game restored after the daemon was
    /// down (see [`Resumption`]). The clock is set from the last reading,
    /// runs on to `resume.t`, and under [`Downtime::Charge`] the running
    /// side loses the downtime (a flag may fall); a `clock` event with the
    /// reason `resumed` reports the times. The board is read by the next
    /// scan and compared with the game's position: a difference is searched
    /// for the moves made meanwhile, else reported displaced.
    pub fn resume(
        config: SessionConfig,
        classifier: Option<Box<dyn Classify>>,
        resume: Resumption,
        out: &mut Vec<Event>,
    ) -> Session {
        let filter = Filter::new(config.filter, classifier);
        let inference = Inference::resume(
            config.start.clone(),
            config.profile,
            config.inference,
            resume.game,
            resume.awaiting_press,
        );
        let mut session = Session {
            config,
            filter,
            inference,
            clock: None,
            stopped_for_alert: false,
            seq: resume.next_seq,
            changes: Vec::new(),
            faults: Vec::new(),
            awaiting_clock: None,
        };
        let t = resume.t.max(resume.clock.map_or(0, |c| c.t));
        if let (Some(tc), Some(reading)) = (&session.config.time_control, resume.clock)
            && !session.inference.game().is_over()
        {
            session.clock = Some(session.restored_clock(tc.clone(), reading, t, resume.downtime));
            session.clock_event(t, "resumed", out);
            session.advance_clock(t, out);
        }
        session
    }

    /// Whether this session's record is the one `resume` restores: the
    /// same moves, position, completed illegal moves and ply awaiting its
    /// press (see [`Session::carry_on`]).
    pub fn holds_the_record_of(&self, resume: &Resumption) -> bool {
        let (mine, theirs) = (self.inference.game(), &resume.game);
        mine.fen() == theirs.fen()
            && mine.moves().len() == theirs.moves().len()
            && mine
                .moves()
                .iter()
                .zip(theirs.moves())
                .all(|(a, b)| a.uci == b.uci && a.side == b.side)
            && [Color::White, Color::Black]
                .into_iter()
                .all(|c| mine.illegal_moves(c) == theirs.illegal_moves(c))
            && mine.is_over() == theirs.is_over()
            && self.inference.awaiting_press() == resume.awaiting_press
    }

    /// This session, having read the very input the daemon that was down
    /// had read up to `resume.t` (a trace read again from its start),
    /// carries on in its place: what the hands were doing at `resume.t`
    /// (a piece in the air, a capture waiting for its piece to stand) is
    /// known as it was, where [`Session::resume`] reads the board afresh.
    /// The numbering and the clock are the journal's, as with
    /// [`Session::resume`] (its `clock` event with the reason `resumed`).
    /// Call it only when [`Session::holds_the_record_of`] `resume`.
    pub fn carry_on(&mut self, resume: Resumption, out: &mut Vec<Event>) {
        self.seq = resume.next_seq;
        let t = resume.t.max(resume.clock.map_or(0, |c| c.t));
        self.stopped_for_alert = false;
        self.clock = None;
        if let (Some(tc), Some(reading)) = (&self.config.time_control, resume.clock)
            && !self.inference.game().is_over()
        {
            self.clock = Some(self.restored_clock(tc.clone(), reading, t, resume.downtime));
            self.clock_event(t, "resumed", out);
            self.advance_clock(t, out);
        }
    }

    fn restored_clock(
        &mut self,
        tc: TimeControl,
        reading: ClockReading,
        t: Millis,
        downtime: Downtime,
    ) -> Clock {
        let game = self.inference.game();
        let mut moves = ByColor::<u32>::default();
        for m in game.moves() {
            moves[m.side] += 1;
        }
        if let Some(ply) = self.inference.awaiting_press()
            && let Some(m) = game.moves().get(ply.wrapping_sub(1))
        {
            // Made but not completed: the clock has not counted it.
            moves[m.side] = moves[m.side].saturating_sub(1);
        }
        let side = reading.running.unwrap_or_else(|| game.turn());
        let mut clock = Clock::new(tc, Source::Internal);
        let times = SetTimes {
            white_ms: reading.white_ms,
            black_ms: reading.black_ms,
            moves: Some(moves),
        };
        let _ = clock.start_for(reading.t, side);
        let _ = clock.adjust(reading.t, times, "resumed from the journal");
        if let Downtime::Charge(ms) = downtime
            && ms > 0
            && reading.running.is_some()
        {
            let reason = TimeReason::Other("the daemon was down".into());
            let _ = clock.deduct_time(t, side, ms, reason);
        }
        if reading.running.is_none() && self.config.stop_clocks_on_alert {
            // The clocks stood for an alert; they start again when it clears.
            if clock.pause(t, PauseReason::Arbiter).is_ok() {
                self.stopped_for_alert = true;
            }
        }
        clock
    }

    pub fn game(&self) -> &Game {
        self.inference.game()
    }
    pub fn inference(&self) -> &Inference {
        &self.inference
    }
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }
    /// The clock's state at `t`, when a clock runs.
    pub fn clock_state(&self, t: Millis) -> Option<ClockState> {
        self.clock.as_ref().map(|c| c.state(t))
    }
    /// The sequence number the next event will carry.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }

    /// When the session next needs [`Session::advance`].
    pub fn next_deadline(&self) -> Option<Millis> {
        [
            self.filter.next_deadline(),
            self.inference.next_deadline(),
            self.clock_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next deadline of the sensors and the hand tracker alone (not the
    /// clock's flag): what `replay` runs on to after the trace ends.
    pub fn next_board_deadline(&self) -> Option<Millis> {
        [self.filter.next_deadline(), self.inference.next_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The input is over at `t` (a trace replayed to its end, after its
    /// last deadline): lines kept on probation give way to the fewer
    /// plies beside them (see [`Inference::input_ended`]). A resignation,
    /// an agreed draw and a flag that ends the game do the same first.
    pub fn input_ended(&mut self, t: Millis, out: &mut Vec<Event>) {
        self.advance(t, out);
        self.inference.input_ended(t);
        self.collect(out);
    }

    fn clock_deadline(&self) -> Option<Millis> {
        if self.inference.game().is_over() {
            return None;
        }
        self.clock.as_ref().and_then(Clock::next_deadline)
    }

    /// A scan arrived at `t`.
    pub fn scan(
        &mut self,
        t: Millis,
        scan: &Scan,
        out: &mut Vec<Event>,
    ) -> Result<(), FilterError> {
        self.advance(t, out);
        let first = !self.filter.is_started();
        let raw_before = self.filter.raw();
        self.changes.clear();
        self.faults.clear();
        self.filter
            .scan(t, scan, &mut self.changes, &mut self.faults)?;
        let flicker = raw_before ^ self.filter.raw();
        if !first && flicker.any() {
            // Raw activity the debounce suppressed still shows where a hand was.
            self.inference.flicker(t, flicker);
        }
        self.inference
            .raw(self.filter.raw(), self.filter.scan_period_seen());
        if first {
            self.inference
                .initial(t, self.filter.settled(), self.filter.settled_colours());
        } else if !self.changes.is_empty() {
            self.inference.changes(&self.changes);
        }
        self.collect(out);
        self.report_faults(out);
        Ok(())
    }

    /// Time reached `t` with no input.
    pub fn advance(&mut self, t: Millis, out: &mut Vec<Event>) {
        // Fire every deadline up to t in order.
        while let Some(deadline) = self.next_deadline().filter(|d| *d <= t) {
            self.step(deadline, out);
            if self.next_deadline() == Some(deadline) {
                // A deadline that stepping does not conclude would hold the
                // session here for ever: time goes on without it.
                debug_assert!(false, "deadline {deadline} not concluded by stepping to it");
                break;
            }
        }
    }

    fn step(&mut self, t: Millis, out: &mut Vec<Event>) {
        self.changes.clear();
        self.faults.clear();
        self.filter.advance(t, &mut self.changes, &mut self.faults);
        if !self.changes.is_empty() {
            self.inference.changes(&self.changes);
        }
        self.inference.advance(t);
        self.collect(out);
        self.report_faults(out);
        self.advance_clock(t, out);
    }

    fn advance_clock(&mut self, t: Millis, out: &mut Vec<Event>) {
        if self.inference.game().is_over() {
            return;
        }
        let Some(clock) = &mut self.clock else {
            return;
        };
        let Ok(flags) = clock.advance(t) else {
            return;
        };
        for flag in flags {
            let (color, at, both_last) = match flag {
                FlagReport::Flag { color, at } => (color, at, None),
                FlagReport::BothFlags {
                    color,
                    at,
                    last_period,
                } => (color, at, Some(last_period)),
            };
            self.clock_event(at, "flag", out);
            if both_last != Some(false) {
                // The game ends on the flag: nothing more will tell open
                // lines apart.
                self.inference.input_ended(at);
            }
            let end = match both_last {
                // 6.12a of 2005: both flags down in a period that is not
                // the last: play goes on.
                Some(false) => None,
                Some(true) => self.inference.game_mut().both_flags_fell(),
                None => self.inference.game_mut().flag_fell(color),
            };
            if let Some(end) = end {
                self.inference.ended(at, end);
                self.collect(out);
                if let Some(clock) = &mut self.clock {
                    let _ = clock.finish(at);
                }
                return;
            }
        }
    }

    /// A side's clock button was pressed at `t`.
    pub fn clock_button(&mut self, t: Millis, side: Color, out: &mut Vec<Event>) {
        self.advance(t, out);
        let meaning = self.inference.clock_press(t, side);
        self.collect(out);
        match meaning {
            PressMeaning::Completed { ply } => {
                if let Some(clock) = &mut self.clock
                    && let Ok(Press::Completed(done)) = clock.press(t, side)
                {
                    self.inference
                        .game_mut()
                        .set_clock(ply, done.remaining_ms, Some(done.used_ms));
                    self.clock_event(t, "press", out);
                }
            }
            PressMeaning::Awaiting { ply } => {
                if let Some(clock) = &mut self.clock
                    && let Ok(Press::Completed(done)) = clock.press(t, side)
                {
                    self.awaiting_clock = Some((ply, done.remaining_ms, done.used_ms));
                    self.clock_event(t, "press", out);
                }
            }
            PressMeaning::Illegal(ruling) => {
                if let IllegalMovePenalty::TimeToOpponent(ms) = ruling.penalty
                    && let Some(clock) = &mut self.clock
                    && clock
                        .add_time(t, !side, ms, TimeReason::IllegalMove)
                        .is_ok()
                {
                    self.clock_event(t, "penalty", out);
                }
                self.finish_clock_if_over(t, out);
            }
            // Moves the sensors did not read are not yet known: the clock
            // still takes the running side's press, as a real clock does
            // (6.7); the record follows once the board tells the moves.
            PressMeaning::Ignored(_) if self.inference.lines_open() => {
                if let Some(clock) = &mut self.clock
                    && let Ok(Press::Completed(_)) = clock.press(t, side)
                {
                    self.clock_event(t, "press", out);
                }
            }
            PressMeaning::Ignored(_) => {}
        }
        self.finish_clock_if_over(t, out);
    }

    /// A promotion choice was entered at `t`.
    pub fn promote(&mut self, t: Millis, role: Role, out: &mut Vec<Event>) {
        self.advance(t, out);
        self.inference.promote(t, role);
        self.collect(out);
        self.finish_clock_if_over(t, out);
    }

    /// The player announces an adjustment (j'adoube, 4.2) before touching.
    pub fn adjust(&mut self, t: Millis, out: &mut Vec<Event>) {
        self.advance(t, out);
        self.inference.adjust();
    }

    fn finish_clock_if_over(&mut self, t: Millis, out: &mut Vec<Event>) {
        if self.inference.game().is_over()
            && let Some(clock) = &mut self.clock
            && let Some(running) = clock.state(t).running
            && let Ok(end) = clock.finish(t)
        {
            // A move that ended the game (mate, stalemate, a dead
            // position: 5.1a, 5.2a, 5.2b) is never pressed: the clock's
            // reading at the end is its [%clk].
            let game = self.inference.game_mut();
            if let Some(last) = game.moves().last()
                && last.clock_ms.is_none()
                && last.side == running
            {
                let remaining = match running {
                    Color::White => end.white_ms,
                    Color::Black => end.black_ms,
                };
                game.set_clock(game.ply(), remaining, None);
            }
            self.clock_event(t, "finish", out);
        }
    }

    fn clock_event(&mut self, t: Millis, reason: &str, out: &mut Vec<Event>) {
        let Some(clock) = &self.clock else {
            return;
        };
        let state = clock.state(t);
        self.push(
            t,
            EventKind::Clock {
                white_ms: state.white_ms,
                black_ms: state.black_ms,
                running: state.running.map(Into::into),
                reason: Some(reason.to_owned()),
            },
            out,
        );
    }

    fn push(&mut self, t: Millis, kind: EventKind, out: &mut Vec<Event>) {
        out.push(Event {
            t_ms: t,
            seq: self.seq,
            kind,
        });
        self.seq += 1;
    }

    fn collect(&mut self, out: &mut Vec<Event>) {
        let events: Vec<(Millis, EventKind)> = self.inference.drain().collect();
        let inferred_at = events
            .iter()
            .rev()
            .find(|(_, k)| matches!(k, EventKind::Move { inferred: true, .. }))
            .map(|(t, _)| *t);
        for (t, kind) in events {
            let started = matches!(kind, EventKind::GameStarted { .. });
            if started {
                // seq counts within one game.
                self.seq = 0;
                self.awaiting_clock = None;
            } else if !self.inference.is_started() {
                continue;
            }
            let finished = matches!(kind, EventKind::GameOver { .. });
            self.push(t, kind, out);
            if started && let Some(tc) = &self.config.time_control {
                // 6.5: White's clock is started at the start.
                let mut clock = Clock::new(tc.clone(), Source::Internal);
                if clock.start(t).is_ok() {
                    self.clock = Some(clock);
                    self.clock_event(t, "start", out);
                }
            }
            if finished {
                self.finish_clock_if_over(t, out);
            }
            self.sync_alert_pause(t, out);
        }
        if let Some(t) = inferred_at {
            self.follow_inferred_moves(t, out);
        }
        if let Some((ply, remaining, used)) = self.awaiting_clock
            && self.inference.game().moves().len() >= ply
        {
            self.awaiting_clock = None;
            self.inference
                .game_mut()
                .set_clock(ply, remaining, Some(used));
        }
    }

    /// Moves recorded without being seen made were never pressed: the
    /// clock runs for the side to move after them (6.7; 6.13 leaves any
    /// correction of the times to the arbiter).
    fn follow_inferred_moves(&mut self, t: Millis, out: &mut Vec<Event>) {
        let turn = self.inference.game().turn();
        if self.inference.game().is_over() || self.inference.awaiting_press().is_some() {
            return;
        }
        if let Some(clock) = &mut self.clock
            && clock.state(t).turn.is_some_and(|side| side != turn)
            && clock.set_turn(t, turn, "moves inferred").is_ok()
        {
            self.clock_event(t, "turn", out);
        }
    }

    /// 6.13: with `stop_clocks_on_alert`, the clocks stand while the board
    /// shows a displaced piece or an illegal move not yet reinstated.
    fn sync_alert_pause(&mut self, t: Millis, out: &mut Vec<Event>) {
        if !self.config.stop_clocks_on_alert || self.inference.game().is_over() {
            return;
        }
        let alert = self.inference.alert_pending();
        let Some(clock) = &mut self.clock else {
            return;
        };
        if alert && !self.stopped_for_alert {
            if clock.pause(t, PauseReason::Arbiter).is_ok() {
                self.stopped_for_alert = true;
                self.clock_event(t, "pause", out);
            }
        } else if !alert && self.stopped_for_alert && clock.resume(t).is_ok() {
            self.stopped_for_alert = false;
            self.clock_event(t, "resume", out);
        }
    }

    fn report_faults(&mut self, out: &mut Vec<Event>) {
        let faults = std::mem::take(&mut self.faults);
        for fault in &faults {
            self.push(
                fault.t,
                EventKind::SensorFault {
                    square: fault.square,
                    kind: fault.kind.to_string(),
                },
                out,
            );
        }
        self.faults = faults;
    }
}

/// Decisions that do not come from the board: resignation, draws, the
/// arbiter's clock settings.
impl Session {
    fn end_by_decision(&mut self, t: Millis, end: Option<GameEnd>, out: &mut Vec<Event>) -> bool {
        let Some(end) = end else {
            return false;
        };
        self.inference.ended(t, end);
        self.collect(out);
        self.finish_clock_if_over(t, out);
        true
    }

    /// The journal around the session cannot commit: the record goes on
    /// live but is not durable from `from_seq` of this game on. The
    /// session only numbers the report, so that it takes its place in the
    /// record.
    pub fn storage_failed(
        &mut self,
        t: Millis,
        error: String,
        from_seq: Option<u64>,
        out: &mut Vec<Event>,
    ) {
        self.push(t, EventKind::StorageFailed { error, from_seq }, out);
    }

    /// The journal took every held event again.
    pub fn storage_restored(
        &mut self,
        t: Millis,
        committed: usize,
        lost: u64,
        out: &mut Vec<Event>,
    ) {
        self.push(t, EventKind::StorageRestored { committed, lost }, out);
    }

    /// `side` resigns (5.1b of 2005, 5.1.2 of 2023). False if no game runs.
    pub fn resign(&mut self, t: Millis, side: Color, out: &mut Vec<Event>) -> bool {
        self.advance(t, out);
        if !self.inference.is_started() {
            return false;
        }
        self.inference.input_ended(t);
        let end = self.inference.game_mut().resign(side);
        self.end_by_decision(t, end, out)
    }

    /// The players agree a draw (5.2c of 2005, 5.2.3 of 2023).
    pub fn agree_draw(&mut self, t: Millis, out: &mut Vec<Event>) -> bool {
        self.advance(t, out);
        if !self.inference.is_started() {
            return false;
        }
        self.inference.input_ended(t);
        let end = self.inference.game_mut().agree_draw();
        self.end_by_decision(t, end, out)
    }

    /// `side` claims a draw (9.2, 9.3). A correct claim ends the game; an
    /// incorrect one costs time (9.5b of 2005, 9.5.3 of 2023). Returns
    /// whether the claim was correct.
    pub fn claim_draw(
        &mut self,
        t: Millis,
        side: Color,
        claim: DrawClaim,
        out: &mut Vec<Event>,
    ) -> bool {
        self.advance(t, out);
        if !self.inference.is_started() {
            return false;
        }
        let end = self.inference.game_mut().claim_draw(claim);
        if self.end_by_decision(t, end, out) {
            return true;
        }
        let (to_opponent, cut_claimant) = self.config.profile.incorrect_claim_penalty();
        if let Some(clock) = &mut self.clock
            && to_opponent > 0
        {
            let _ = clock.add_time(t, !side, to_opponent, TimeReason::IncorrectClaim);
            if cut_claimant {
                let left = clock.remaining(side, t);
                // Over two minutes: half, at most three minutes; between
                // one and two: down to one minute; under one: nothing.
                let cut = if left > 120_000 {
                    (left / 2).min(180_000)
                } else {
                    left.saturating_sub(60_000)
                };
                if cut > 0 {
                    let _ = clock.deduct_time(t, side, cut, TimeReason::IncorrectClaim);
                }
            }
            self.clock_event(t, "penalty", out);
        }
        false
    }

    /// The arbiter sets both clocks (6.14), with a reason kept in the log.
    pub fn set_clocks(
        &mut self,
        t: Millis,
        white_ms: Millis,
        black_ms: Millis,
        reason: &str,
        out: &mut Vec<Event>,
    ) -> bool {
        self.advance(t, out);
        let times = SetTimes {
            white_ms,
            black_ms,
            moves: None,
        };
        let Some(clock) = &mut self.clock else {
            return false;
        };
        if clock.adjust(t, times, reason).is_err() {
            return false;
        }
        self.clock_event(t, "adjust", out);
        true
    }

    /// The arbiter reinstates the position after `ply` (Article 7; see
    /// [`Inference::reinstate`]). The clock, if the side to move changed,
    /// runs for the side to move now (6.14: further adjustment is the
    /// arbiter's, with [`Session::set_clocks`]).
    pub fn reinstate(
        &mut self,
        t: Millis,
        ply: usize,
        irregularity: Irregularity,
        note: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<(), RulingRefused> {
        self.rule(t, "reinstated", out, |inference| {
            inference.reinstate(t, ply, irregularity, note)
        })
    }

    /// The arbiter accepts moves the sensors did not read (UCI, in order).
    pub fn accept_moves(
        &mut self,
        t: Millis,
        moves: &[String],
        note: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<(), RulingRefused> {
        self.rule(t, "accepted", out, |inference| {
            inference.accept_moves(t, moves, note)
        })
    }

    /// The arbiter accepts candidate line `index` of the last `displaced` event.
    pub fn accept_candidate(
        &mut self,
        t: Millis,
        index: usize,
        note: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<(), RulingRefused> {
        self.rule(t, "accepted", out, |inference| {
            inference.accept_candidate(t, index, note)
        })
    }

    /// The arbiter accepts the position `fen`, reached by moves the sensors
    /// did not read (the one short run of legal plies leading there).
    pub fn accept_position(
        &mut self,
        t: Millis,
        fen: &str,
        note: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<(), RulingRefused> {
        self.rule(t, "accepted", out, |inference| {
            inference.accept_position(t, fen, note)
        })
    }

    /// Carries out a ruling at `t`: time first reaches `t`, then the
    /// inference rules, then its events are collected and the clock
    /// follows the side to move.
    fn rule(
        &mut self,
        t: Millis,
        reason: &str,
        out: &mut Vec<Event>,
        ruling: impl FnOnce(&mut Inference) -> Result<(), RulingRefused>,
    ) -> Result<(), RulingRefused> {
        self.advance(t, out);
        ruling(&mut self.inference)?;
        self.after_ruling(t, reason, out);
        Ok(())
    }

    fn after_ruling(&mut self, t: Millis, reason: &str, out: &mut Vec<Event>) {
        self.collect(out);
        let turn = self.inference.game().turn();
        if !self.inference.game().is_over()
            && let Some(clock) = &mut self.clock
            && clock.state(t).turn.is_some_and(|side| side != turn)
            && clock.set_turn(t, turn, reason).is_ok()
        {
            self.clock_event(t, "turn", out);
        }
        self.finish_clock_if_over(t, out);
    }

    /// The clock, when one runs (its log holds pauses and adjustments).
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }
}
