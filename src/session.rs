//! The session: filter + inference + game + clock, driven by three calls —
//! a scan arrived at t, a button was pressed at t, time reached t — each
//! returning the events it concluded, numbered. It reports its next
//! deadline. No I/O, no threads, no wall clock.
use shakmaty::{Color, Role};

use crate::Millis;
use crate::clock::{Clock, ClockState, FlagReport, Press, Source, TimeControl, TimeReason};
use crate::events::{Event, EventKind};
use crate::filter::{Classify, Filter, FilterConfig, FilterError, SensorFault, SettledChange};
use crate::game::{DrawClaim, Game, IllegalMovePenalty, Profile, Start};
use crate::inference::{Inference, InferenceConfig, PressMeaning};
use crate::sensors::Scan;

/// Everything a session is set up with.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub start: Start,
    pub profile: Profile,
    pub inference: InferenceConfig,
    pub filter: FilterConfig,
    /// The clock touchmove keeps, if the game is played with time.
    pub time_control: Option<TimeControl>,
}

impl Default for SessionConfig {
    fn default() -> SessionConfig {
        SessionConfig {
            start: Start::standard(),
            profile: Profile::FideStandard,
            inference: InferenceConfig::default(),
            filter: FilterConfig::default(),
            time_control: None,
        }
    }
}

/// One board's game, from scans to events.
pub struct Session {
    config: SessionConfig,
    filter: Filter,
    inference: Inference,
    clock: Option<Clock>,
    seq: u64,
    changes: Vec<SettledChange>,
    faults: Vec<SensorFault>,
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
            seq: 0,
            changes: Vec::new(),
            faults: Vec::new(),
        }
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

    /// `side` resigns at `t` (5.1b of 2005, 5.1.2 of 2023). Returns whether
    /// the game ended (false when it was over already).
    pub fn resign(&mut self, t: Millis, side: Color, out: &mut Vec<Event>) -> bool {
        self.advance(t, out);
        let end = self.inference.game_mut().resign(side);
        self.end_from_outside(t, end, out)
    }

    /// The players agree a draw at `t` (5.2c of 2005, 5.2.3 of 2023).
    pub fn agree_draw(&mut self, t: Millis, out: &mut Vec<Event>) -> bool {
        self.advance(t, out);
        let end = self.inference.game_mut().agree_draw();
        self.end_from_outside(t, end, out)
    }

    /// A draw claim at `t` (9.2, 9.3): a correct claim ends the game; an
    /// incorrect one returns false and changes nothing.
    pub fn claim_draw(&mut self, t: Millis, claim: DrawClaim, out: &mut Vec<Event>) -> bool {
        self.advance(t, out);
        let end = self.inference.game_mut().claim_draw(claim);
        self.end_from_outside(t, end, out)
    }

    fn end_from_outside(
        &mut self,
        t: Millis,
        end: Option<crate::game::GameEnd>,
        out: &mut Vec<Event>,
    ) -> bool {
        let Some(end) = end else {
            return false;
        };
        self.inference.ended(t, end);
        self.collect(out);
        self.finish_clock_if_over(t, out);
        true
    }

    fn finish_clock_if_over(&mut self, t: Millis, out: &mut Vec<Event>) {
        if self.inference.game().is_over()
            && let Some(clock) = &mut self.clock
            && clock.state(t).running.is_some()
            && clock.finish(t).is_ok()
        {
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
        for (t, kind) in events {
            let started = matches!(kind, EventKind::GameStarted { .. });
            if started {
                // seq counts within one game.
                self.seq = 0;
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
