//! The chess clock (Article 6 of the 2005 Laws), in injected time.
//!
//! Every call takes the time `t` (ms, never going back) at which it happens;
//! between calls the running clock is extrapolated. The clock never wakes
//! itself: [`Clock::next_deadline`] says when the running side's flag will
//! fall and [`Clock::advance`] reports it.
//!
//! # What the times mean
//!
//! A side's time is its *remaining main time*: what it has left of its
//! periods, increments and additions, less what it has used. With a simple
//! (US) delay the unused part of the current move's delay is not included
//! (it is [`ClockState::delay_left_ms`]), so the time shown does not decrease
//! while the delay runs. With a Bronstein delay the time decreases from the
//! start of the turn and the time used, at most the delay, is given back at
//! the press. The unused delay is never saved: at the end of a period only
//! the main time left is carried into the next (the "except in the time delay
//! mode" of 6.2b).
//!
//! # Flags
//!
//! A flag falls (Article 6.1) at the exact ms its side's time reaches 0; a
//! time of exactly 0 counts as fallen. The clock only reports it
//! ([`FlagReport`]); whether it loses or draws (Article 6.10: the opponent
//! cannot mate) is for the rules. A fallen flag stays down, even if a later
//! increment puts time back on that side, until the side enters a new period
//! or the arbiter gives it time ([`Clock::add_time`], [`Clock::adjust`]). So
//! when the second flag falls while the first is down, the clock reports
//! [`FlagReport::BothFlags`] with whether both sides are in the last period
//! (Article 6.12: play goes on in any other period, the game is drawn in the
//! last).
use shakmaty::{ByColor, Color};
use thiserror::Error;

use super::time_control::{Bonus, DelayKind, TimeControl};
use crate::Millis;

/// Where the presses come from. The logic is the same for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// touchmove is the clock: its own buttons are pressed and its times are
    /// the ones the Laws refer to (Article 6.11).
    Internal,
    /// An external chess clock that only reports its presses: these times
    /// follow it and the arbiter corrects any drift with [`Clock::adjust`].
    External,
}

/// The clock as seen at one instant, for events and displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockState {
    /// White's remaining main time (see the module doc), 0 once fallen.
    pub white_ms: Millis,
    /// Black's remaining main time.
    pub black_ms: Millis,
    /// The side whose time is running now: `None` before the start, while
    /// paused and after the finish.
    pub running: Option<Color>,
    /// The side whose move it is on the clock (running or paused).
    pub turn: Option<Color>,
    /// The arbiter (or a player seeking him) has stopped the clocks (6.13).
    pub paused: bool,
    /// Unused delay of the side to move in this move (0 without a delay):
    /// with a simple delay the time before its main time starts to fall, with
    /// a Bronstein delay how much more of its time would still be given back.
    pub delay_left_ms: Millis,
    /// Moves completed (presses accepted) by each side.
    pub moves: ByColor<u32>,
    /// The period each side is in, 0-based (it keeps counting through the
    /// repeats of a last period with a move count).
    pub period: ByColor<usize>,
    /// Whose flag is down.
    pub flag_fallen: ByColor<bool>,
}

impl ClockState {
    /// A side's remaining main time.
    pub fn ms(&self, color: Color) -> Millis {
        color.fold_wb(self.white_ms, self.black_ms)
    }
}

/// A flag fall, reported once by [`Clock::advance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlagReport {
    /// `color`'s flag fell at `at`; the opponent's stands.
    Flag { color: Color, at: Millis },
    /// `color`'s flag fell at `at` while the opponent's was already down
    /// (Article 6.12). `last_period`: both sides are in the period in which
    /// all the remaining moves must be made (6.12b: drawn); otherwise play
    /// continues (6.12a).
    BothFlags {
        color: Color,
        at: Millis,
        last_period: bool,
    },
}

/// What a press of a side's button did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Press {
    /// The mover stopped his clock and started the opponent's (Article 6.8a):
    /// the move is completed.
    Completed(Completed),
    /// The press changed nothing.
    Ignored { by: Color, reason: IgnoreReason },
}

/// A completed move on the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Completed {
    /// Who pressed.
    pub side: Color,
    /// That side's move count, this move included (1 = its first move).
    pub move_number: u32,
    /// Time the mover used on the move, pauses excluded: the `[%emt]`.
    pub used_ms: Millis,
    /// Increment or Bronstein time given back for this move.
    pub bonus_ms: Millis,
    /// The period the side entered with this move (its time was added), if
    /// the move ended a period.
    pub entered_period: Option<usize>,
    /// The mover's time after the press, bonus and new period included: the
    /// `[%clk]` of the move.
    pub remaining_ms: Millis,
}

/// Why a press changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IgnoreReason {
    /// The clocks have not been started.
    NotStarted,
    /// The presser's clock is not running: it is the opponent's turn.
    WrongPlayer,
    /// The presser has just pressed: a second press of the same move.
    SecondPress,
    /// The clocks are stopped (Article 6.13).
    Paused,
    /// The game is over.
    Finished,
}

/// Why the arbiter's clocks were stopped (Article 6.13).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PauseReason {
    /// The arbiter interrupts the game (6.13a).
    Arbiter,
    /// A player stopped the clocks to seek the arbiter's assistance (6.13b).
    PlayerSeeksArbiter(Color),
    /// Anything else, in words.
    Other(String),
}

/// One stop of the clocks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pause {
    pub from: Millis,
    /// `None` while it lasts.
    pub to: Option<Millis>,
    /// The side whose clock was running.
    pub side: Color,
    pub reason: PauseReason,
}

/// Why time was given or taken.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TimeReason {
    /// The opponent of a player who completed an illegal move (2005: 7.4b).
    IllegalMove,
    /// The opponent of a player whose draw claim was found incorrect (9.5).
    IncorrectClaim,
    /// A penalty of Article 13.4.
    Penalty,
    /// Anything else, in words.
    Other(String),
}

/// Times (and move counts) the arbiter sets (Article 6.14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetTimes {
    pub white_ms: Millis,
    pub black_ms: Millis,
    /// Moves completed by each side, when the move counter changes too; the
    /// periods follow from them.
    pub moves: Option<ByColor<u32>>,
}

/// A change made by hand, as kept in the log.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    Added {
        color: Color,
        ms: Millis,
        reason: TimeReason,
    },
    Deducted {
        color: Color,
        ms: Millis,
        reason: TimeReason,
    },
    Set {
        times: SetTimes,
        reason: String,
    },
    /// The turn given to `side` without a press (a reinstated position).
    Turn {
        side: Color,
        reason: String,
    },
}

/// An entry of the adjustment log.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LogEntry {
    pub at: Millis,
    pub change: Change,
    pub before: ClockState,
    pub after: ClockState,
}

/// A call the clock cannot carry out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("time went back: {t} ms is before {now} ms, the clock's last time")]
    TimeWentBack { t: Millis, now: Millis },
    #[error("the clocks have already been started")]
    AlreadyStarted,
    #[error("the clocks have not been started")]
    NotStarted,
    #[error("the clocks are already stopped")]
    AlreadyPaused,
    #[error("the clocks are not stopped, so they cannot be restarted")]
    NotPaused,
    #[error("the game is over: the clocks are finished")]
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Turn {
    side: Color,
    /// When the clock last started running for this turn.
    resumed: Millis,
    /// Time used in this turn before `resumed`.
    used_before: Millis,
}

impl Turn {
    fn used(&self, t: Millis) -> Millis {
        self.used_before
            .saturating_add(t.saturating_sub(self.resumed))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Ready,
    Running(Turn),
    Paused(Turn),
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fall {
    at: Millis,
    reported: bool,
    /// `Some(last_period)` when the opponent's flag was already down.
    both: Option<bool>,
}

/// A chess clock playing a [`TimeControl`].
#[derive(Debug, Clone)]
pub struct Clock {
    control: TimeControl,
    source: Source,
    now: Millis,
    phase: Phase,
    /// Remaining time at the start of the current turn (with additions);
    /// for the side to move, the time used this turn is still to be taken.
    base: ByColor<Millis>,
    moves: ByColor<u32>,
    period: ByColor<usize>,
    in_period: ByColor<u32>,
    flags: ByColor<Option<Fall>>,
    last_presser: Option<Color>,
    pauses: Vec<Pause>,
    log: Vec<LogEntry>,
}

impl Clock {
    /// A clock set for `control`, not started.
    pub fn new(control: TimeControl, source: Source) -> Clock {
        let start = control.period(0).time_ms;
        Clock {
            control,
            source,
            now: 0,
            phase: Phase::Ready,
            base: ByColor {
                white: start,
                black: start,
            },
            moves: ByColor::default(),
            period: ByColor::default(),
            in_period: ByColor::default(),
            flags: ByColor::default(),
            last_presser: None,
            pauses: Vec::new(),
            log: Vec::new(),
        }
    }

    /// Starts White's clock at `t` (Article 6.5).
    pub fn start(&mut self, t: Millis) -> Result<ClockState, ClockError> {
        self.start_for(t, Color::White)
    }

    /// Starts `side`'s clock at `t`: for a game from a set-up position with
    /// Black to move, or one continued.
    pub(crate) fn start_for(&mut self, t: Millis, side: Color) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        match self.phase {
            Phase::Ready => {
                self.phase = Phase::Running(Turn {
                    side,
                    resumed: t,
                    used_before: 0,
                });
                Ok(self.state(t))
            }
            Phase::Finished => Err(ClockError::Finished),
            Phase::Running(_) | Phase::Paused(_) => Err(ClockError::AlreadyStarted),
        }
    }

    /// `by` presses his button at `t`. The mover's press stops his clock,
    /// adds his bonus and the next period's time when the move ends a period,
    /// and starts the opponent's (Article 6.8a). The time between making the
    /// move and pressing is the mover's: his clock runs until the press.
    ///
    /// A flag that fell before `t` (or at `t`) is kept for the next
    /// [`Clock::advance`]; the press still counts.
    pub fn press(&mut self, t: Millis, by: Color) -> Result<Press, ClockError> {
        self.settle(t)?;
        let turn = match self.phase {
            Phase::Running(turn) if turn.side == by => turn,
            Phase::Running(_) => {
                let reason = if self.last_presser == Some(by) {
                    IgnoreReason::SecondPress
                } else {
                    IgnoreReason::WrongPlayer
                };
                return Ok(Press::Ignored { by, reason });
            }
            Phase::Ready => return Ok(ignored(by, IgnoreReason::NotStarted)),
            Phase::Paused(_) => return Ok(ignored(by, IgnoreReason::Paused)),
            Phase::Finished => return Ok(ignored(by, IgnoreReason::Finished)),
        };
        let used = turn.used(t);
        let period = *self.control.period(self.period[by]);
        let bonus_ms = match period.bonus {
            Bonus::None
            | Bonus::Delay {
                kind: DelayKind::Simple,
                ..
            } => 0,
            Bonus::Increment(ms) => ms,
            Bonus::Delay {
                kind: DelayKind::Bronstein,
                ms,
            } => ms.min(used),
        };
        let left = self.base[by].saturating_sub(self.consumed(by, used));
        self.base[by] = left.saturating_add(bonus_ms);
        self.moves[by] += 1;
        self.in_period[by] += 1;
        let entered_period = match period.moves {
            Some(n) if self.in_period[by] >= n.get() => {
                self.period[by] += 1;
                self.in_period[by] = 0;
                let added = self.control.period(self.period[by]).time_ms;
                self.base[by] = self.base[by].saturating_add(added);
                self.flags[by] = None;
                Some(self.period[by])
            }
            _ => None,
        };
        self.phase = Phase::Running(Turn {
            side: !by,
            resumed: t,
            used_before: 0,
        });
        self.last_presser = Some(by);
        if self.base[by] == 0 {
            self.fall(by, t);
        }
        Ok(Press::Completed(Completed {
            side: by,
            move_number: self.moves[by],
            used_ms: used,
            bonus_ms,
            entered_period,
            remaining_ms: self.base[by],
        }))
    }

    /// Brings the clock to `t` and reports the flags that fell up to `t`
    /// (at `t` included) and were not yet reported, in the order they fell.
    pub fn advance(&mut self, t: Millis) -> Result<Vec<FlagReport>, ClockError> {
        self.settle(t)?;
        let mut falls: Vec<(Color, Fall)> = Color::ALL
            .into_iter()
            .filter_map(|c| self.flags[c].filter(|f| !f.reported).map(|f| (c, f)))
            .collect();
        falls.sort_by_key(|(_, f)| f.at);
        Ok(falls
            .into_iter()
            .map(|(color, fall)| {
                if let Some(f) = self.flags[color].as_mut() {
                    f.reported = true;
                }
                match fall.both {
                    None => FlagReport::Flag { color, at: fall.at },
                    Some(last_period) => FlagReport::BothFlags {
                        color,
                        at: fall.at,
                        last_period,
                    },
                }
            })
            .collect())
    }

    /// When [`Clock::advance`] next has something to report: an unreported
    /// flag fall, else the ms at which the running side's time reaches 0.
    /// `None` when no clock runs (or its flag is already down).
    pub fn next_deadline(&self) -> Option<Millis> {
        let unreported = Color::ALL
            .into_iter()
            .filter_map(|c| self.flags[c].filter(|f| !f.reported).map(|f| f.at))
            .min();
        unreported.or_else(|| self.deadline())
    }

    /// Stops the clocks at `t` (Article 6.13), recording why. The running
    /// side's turn resumes where it stood, delay included.
    pub fn pause(&mut self, t: Millis, reason: PauseReason) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        match self.phase {
            Phase::Running(turn) => {
                self.phase = Phase::Paused(Turn {
                    used_before: turn.used(t),
                    resumed: t,
                    ..turn
                });
                self.pauses.push(Pause {
                    from: t,
                    to: None,
                    side: turn.side,
                    reason,
                });
                Ok(self.state(t))
            }
            Phase::Ready => Err(ClockError::NotStarted),
            Phase::Paused(_) => Err(ClockError::AlreadyPaused),
            Phase::Finished => Err(ClockError::Finished),
        }
    }

    /// Restarts the clocks at `t` (Article 6.13c).
    pub fn resume(&mut self, t: Millis) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        match self.phase {
            Phase::Paused(turn) => {
                self.phase = Phase::Running(Turn { resumed: t, ..turn });
                if let Some(pause) = self.pauses.last_mut() {
                    pause.to = Some(t);
                }
                Ok(self.state(t))
            }
            Phase::Finished => Err(ClockError::Finished),
            _ => Err(ClockError::NotPaused),
        }
    }

    /// Gives `color` `ms` more time at `t` (a penalty to the opponent, e.g.
    /// 2 minutes for an illegal move, 7.4b), logged. Time put on a fallen
    /// flag raises it.
    pub fn add_time(
        &mut self,
        t: Millis,
        color: Color,
        ms: Millis,
        reason: TimeReason,
    ) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        self.not_finished()?;
        let before = self.state(t);
        let now_ms = self.remaining(color, t);
        self.set_remaining(color, t, now_ms.saturating_add(ms));
        self.after_hand_change(t, color);
        Ok(self.logged(t, before, Change::Added { color, ms, reason }))
    }

    /// Takes `ms` from `color`'s time at `t` (a penalty of 13.4), logged; a
    /// time brought to 0 makes the flag fall at `t`.
    pub fn deduct_time(
        &mut self,
        t: Millis,
        color: Color,
        ms: Millis,
        reason: TimeReason,
    ) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        self.not_finished()?;
        let before = self.state(t);
        let now_ms = self.remaining(color, t);
        self.set_remaining(color, t, now_ms.saturating_sub(ms));
        if self.remaining(color, t) == 0 {
            self.fall(color, t);
        }
        Ok(self.logged(t, before, Change::Deducted { color, ms, reason }))
    }

    /// The arbiter sets both times, and the move counter if given, at `t`
    /// (Article 6.14), logged with his reason. A side set to 0 has its flag
    /// fall at `t`; a side given time has its flag raised.
    pub fn adjust(
        &mut self,
        t: Millis,
        times: SetTimes,
        reason: impl Into<String>,
    ) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        self.not_finished()?;
        let before = self.state(t);
        if let Some(moves) = times.moves {
            for c in Color::ALL {
                self.moves[c] = moves[c];
                (self.period[c], self.in_period[c]) = self.control.period_after(moves[c]);
            }
        }
        self.set_remaining(Color::White, t, times.white_ms);
        self.set_remaining(Color::Black, t, times.black_ms);
        for c in Color::ALL {
            self.after_hand_change(t, c);
        }
        let change = Change::Set {
            times,
            reason: reason.into(),
        };
        Ok(self.logged(t, before, change))
    }

    /// Gives the turn to `side` at `t` without a press: the arbiter
    /// reinstated a position with the other side to move (7.4a / 7.5 of
    /// 2005, 7.5.1 / 7.4.1 of 2023). The time the running side used so far
    /// is charged to it, with no increment and no move counted; stopped
    /// clocks stay stopped. Logged with the reason. Nothing changes when
    /// `side` already has the turn.
    pub(crate) fn set_turn(
        &mut self,
        t: Millis,
        side: Color,
        reason: impl Into<String>,
    ) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        self.not_finished()?;
        let before = self.state(t);
        let (turn, running) = match self.phase {
            Phase::Ready => return Err(ClockError::NotStarted),
            Phase::Finished => return Err(ClockError::Finished),
            Phase::Running(turn) => (turn, true),
            Phase::Paused(turn) => (turn, false),
        };
        if turn.side == side {
            return Ok(before);
        }
        let used = self.used_in(turn, t);
        let old = turn.side;
        self.base[old] = self.base[old].saturating_sub(self.consumed(old, used));
        let next = Turn {
            side,
            resumed: t,
            used_before: 0,
        };
        self.phase = if running {
            Phase::Running(next)
        } else {
            Phase::Paused(next)
        };
        self.after_hand_change(t, old);
        let change = Change::Turn {
            side,
            reason: reason.into(),
        };
        Ok(self.logged(t, before, change))
    }

    /// Stops both clocks for good at `t`: the game is over. Later presses are
    /// ignored.
    pub fn finish(&mut self, t: Millis) -> Result<ClockState, ClockError> {
        self.settle(t)?;
        if let Phase::Running(turn) | Phase::Paused(turn) = self.phase {
            let left = self.remaining(turn.side, t);
            if let Some(pause) = self.pauses.last_mut().filter(|p| p.to.is_none()) {
                pause.to = Some(t);
            }
            self.base[turn.side] = left;
        }
        self.phase = Phase::Finished;
        Ok(self.state(t))
    }

    /// The clock at `t` (or at the last time it was given, if later).
    pub fn state(&self, t: Millis) -> ClockState {
        let t = t.max(self.now);
        let turn = self.turn_now();
        let delay_left_ms = turn.map_or(0, |turn| {
            self.delay(turn.side)
                .map_or(0, |(_, d)| d.saturating_sub(self.used_in(turn, t)))
        });
        let remaining = ByColor::new_with(|c| self.remaining(c, t));
        ClockState {
            white_ms: remaining.white,
            black_ms: remaining.black,
            running: match self.phase {
                Phase::Running(turn) => Some(turn.side),
                _ => None,
            },
            turn: turn.map(|turn| turn.side),
            paused: matches!(self.phase, Phase::Paused(_)),
            delay_left_ms,
            moves: self.moves,
            period: self.period,
            flag_fallen: ByColor::new_with(|c| self.flags[c].is_some() || remaining[c] == 0),
        }
    }

    /// `color`'s remaining main time at `t` (see the module doc).
    pub fn remaining(&self, color: Color, t: Millis) -> Millis {
        let t = t.max(self.now);
        match self.turn_now() {
            Some(turn) if turn.side == color => {
                self.base[color].saturating_sub(self.consumed(color, self.used_in(turn, t)))
            }
            _ => self.base[color],
        }
    }

    /// Whether `color` is in the period in which all the remaining moves must
    /// be made (Article 6.12b).
    pub fn is_last_period(&self, color: Color) -> bool {
        self.control.is_last_period(self.period[color])
    }

    /// When `color`'s flag fell, if it is down.
    pub fn flag_fallen(&self, color: Color) -> Option<Millis> {
        self.flags[color].map(|f| f.at)
    }

    /// Moves completed by `color`.
    pub fn moves(&self, color: Color) -> u32 {
        self.moves[color]
    }

    /// The period `color` is in (0-based).
    pub fn period(&self, color: Color) -> usize {
        self.period[color]
    }

    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    pub fn source(&self) -> Source {
        self.source
    }

    /// The last time the clock was given.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Every stop of the clocks, the current one last (open).
    pub fn pauses(&self) -> &[Pause] {
        &self.pauses
    }

    /// Total time the clocks stood stopped up to `t`.
    pub fn paused_ms(&self, t: Millis) -> Millis {
        let t = t.max(self.now);
        self.pauses
            .iter()
            .map(|p| p.to.unwrap_or(t).saturating_sub(p.from))
            .sum()
    }

    /// Every time given, taken or set by hand, in order.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    fn turn_now(&self) -> Option<Turn> {
        match self.phase {
            Phase::Running(turn) | Phase::Paused(turn) => Some(turn),
            Phase::Ready | Phase::Finished => None,
        }
    }

    fn used_in(&self, turn: Turn, t: Millis) -> Millis {
        match self.phase {
            Phase::Running(_) => turn.used(t),
            _ => turn.used_before,
        }
    }

    fn delay(&self, color: Color) -> Option<(DelayKind, Millis)> {
        self.control.period(self.period[color]).bonus.delay()
    }

    /// How much of `color`'s main time `used` ms of thinking take.
    fn consumed(&self, color: Color, used: Millis) -> Millis {
        match self.delay(color) {
            Some((DelayKind::Simple, d)) => used.saturating_sub(d),
            _ => used,
        }
    }

    /// The ms at which the running side's time reaches 0, unless its flag is
    /// already down.
    fn deadline(&self) -> Option<Millis> {
        let Phase::Running(turn) = self.phase else {
            return None;
        };
        if self.flags[turn.side].is_some() {
            return None;
        }
        let base = self.base[turn.side];
        let used_at_zero = match self.delay(turn.side) {
            Some((DelayKind::Simple, d)) => base.saturating_add(d),
            _ => base,
        };
        Some(
            turn.resumed
                .saturating_add(used_at_zero.saturating_sub(turn.used_before)),
        )
    }

    /// Moves the clock's time to `t`, latching a flag that fell on the way.
    fn settle(&mut self, t: Millis) -> Result<(), ClockError> {
        if t < self.now {
            return Err(ClockError::TimeWentBack { t, now: self.now });
        }
        self.now = t;
        if let (Some(at), Phase::Running(turn)) = (self.deadline(), self.phase)
            && at <= t
        {
            self.fall(turn.side, at);
        }
        Ok(())
    }

    fn fall(&mut self, color: Color, at: Millis) {
        if self.flags[color].is_some() {
            return;
        }
        let both = self.flags[!color]
            .is_some()
            .then(|| self.is_last_period(Color::White) && self.is_last_period(Color::Black));
        self.flags[color] = Some(Fall {
            at,
            reported: false,
            both,
        });
    }

    /// Makes `color`'s remaining time at `t` exactly `ms`, the time already
    /// used in the current turn (and its unused delay) staying as it is.
    fn set_remaining(&mut self, color: Color, t: Millis, ms: Millis) {
        self.base[color] = match self.turn_now() {
            Some(turn) if turn.side == color => {
                ms.saturating_add(self.consumed(color, self.used_in(turn, t)))
            }
            _ => ms,
        };
    }

    /// After time was set or given by hand: a flag at 0 falls, a flag with
    /// time again is raised.
    fn after_hand_change(&mut self, t: Millis, color: Color) {
        if self.remaining(color, t) == 0 {
            self.fall(color, t);
        } else {
            self.flags[color] = None;
        }
    }

    fn not_finished(&self) -> Result<(), ClockError> {
        match self.phase {
            Phase::Finished => Err(ClockError::Finished),
            _ => Ok(()),
        }
    }

    fn logged(&mut self, t: Millis, before: ClockState, change: Change) -> ClockState {
        let after = self.state(t);
        self.log.push(LogEntry {
            at: t,
            change,
            before,
            after,
        });
        after
    }
}

fn ignored(by: Color, reason: IgnoreReason) -> Press {
    Press::Ignored { by, reason }
}
