//! When each round is pushed, and what its last push came to: pure, with
//! time passed in (milliseconds of a monotonic clock, `mono_ms`, for the
//! decisions; wall-clock ms since the epoch only for what is shown).
//!
//! A round is pushed when its PGN differs from the one Lichess last took
//! (or refused for its content), no sooner than `min_interval_ms` after
//! its last attempt, and no sooner than a retry time: an exponential
//! backoff after network or server errors, or the wait a 429 asked for.
//! A refused token or round stops its pushes for good.
use serde::Serialize;

use super::answer::{GameResult, PushOutcome};

/// The timing rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// The least time between two pushes to one round.
    pub min_interval_ms: u64,
    /// The first retry after a failure; doubled at each failure after it.
    pub backoff_first_ms: u64,
    /// The longest backoff.
    pub backoff_max_ms: u64,
}

impl Policy {
    pub fn new(min_interval_ms: u64) -> Policy {
        Policy {
            min_interval_ms,
            backoff_first_ms: 1_000,
            backoff_max_ms: 60_000,
        }
    }

    /// The wait after the `failures`-th failure in a row (1, 2, ...):
    /// 1 s, 2 s, 4 s, ... up to a minute.
    pub(crate) fn backoff_ms(&self, failures: u32) -> u64 {
        let doublings = failures.saturating_sub(1).min(32);
        self.backoff_first_ms
            .saturating_mul(1u64 << doublings)
            .min(self.backoff_max_ms)
    }
}

/// Pushes held while boards join: boards join in a burst (the broker's
/// retained messages when the hall starts, or the boards switched on
/// before a round), and a round pushed half-way through it would later
/// lose boards to the next round, leaving their games twice on Lichess.
/// The hold lasts until no board has joined for [`JoinHold::SETTLE_MS`],
/// at most [`JoinHold::MAX_MS`]; none starts within `MAX_MS` of the end of
/// the last, so boards joining steadily never hold the push for long.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JoinHold {
    until: u64,
    burst_start: Option<u64>,
}

impl JoinHold {
    pub const SETTLE_MS: u64 = 1_000;
    pub const MAX_MS: u64 = 10_000;

    /// A board joined at `now`.
    pub fn joined(&mut self, now: u64) {
        let start = match self.burst_start {
            Some(start) if now < self.until => start,
            Some(_) if now < self.until.saturating_add(Self::MAX_MS) => return,
            _ => now,
        };
        self.burst_start = Some(start);
        self.until = now
            .saturating_add(Self::SETTLE_MS)
            .min(start.saturating_add(Self::MAX_MS))
            .max(self.until);
    }

    /// Whether pushes are held at `now`.
    pub fn holds(&self, now: u64) -> bool {
        now < self.until
    }

    /// The end of the hold (0: none yet).
    pub fn until(&self) -> u64 {
        self.until
    }
}

/// One game of a round as Lichess last answered about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameStatus {
    pub board: String,
    pub white: String,
    pub black: String,
    pub moves: Option<u32>,
    pub error: Option<String>,
}

/// Pairs Lichess's per-game answer with the boards pushed: an answer's
/// `Board` tag names its board when it is one of them (the hall sets
/// `[Board]` on every game); otherwise the answer's place in the list does
/// (Lichess answers in the order pushed).
pub(crate) fn game_statuses(pushed: &[String], results: &[GameResult]) -> Vec<GameStatus> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let board = r
                .tag("Board")
                .filter(|b| pushed.iter().any(|p| p == b))
                .or_else(|| pushed.get(i).map(String::as_str))
                .unwrap_or("?");
            GameStatus {
                board: board.to_owned(),
                white: r.tag("White").unwrap_or("?").to_owned(),
                black: r.tag("Black").unwrap_or("?").to_owned(),
                moves: r.moves,
                error: r.error.clone(),
            }
        })
        .collect()
}

/// One Lichess round's push state.
#[derive(Debug, Clone)]
pub struct RoundPush {
    /// The Lichess round id.
    pub round: String,
    /// Its boards, in board order.
    pub boards: Vec<String>,
    /// The round's PGN as last built, and the boards that had a game in it.
    current: String,
    current_boards: Vec<String>,
    /// Whether `current` may be out of date (a board of the round changed).
    stale: bool,
    /// The PGN Lichess last took, or refused for its content: not sent again.
    done: Option<String>,
    last_attempt_ms: Option<u64>,
    retry_at_ms: Option<u64>,
    failures: u32,
    refused: bool,
    pub last_success_wall_ms: Option<u64>,
    pub last_attempt_wall_ms: Option<u64>,
    pub last_error: Option<String>,
    pub pushes: u64,
    pub games: Vec<GameStatus>,
}

/// What the loop should do about a round now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Nothing until one of its boards changes.
    Idle,
    /// Rebuild its PGN (a board changed) and look again, at `mono_ms`.
    Rebuild(u64),
    /// Push its PGN at `mono_ms`.
    Push(u64),
}

impl Due {
    pub fn at(self) -> Option<u64> {
        match self {
            Due::Idle => None,
            Due::Rebuild(t) | Due::Push(t) => Some(t),
        }
    }
}

impl RoundPush {
    pub fn new(round: &str) -> RoundPush {
        RoundPush {
            round: round.to_owned(),
            boards: Vec::new(),
            current: String::new(),
            current_boards: Vec::new(),
            stale: true,
            done: None,
            last_attempt_ms: None,
            retry_at_ms: None,
            failures: 0,
            refused: false,
            last_success_wall_ms: None,
            last_attempt_wall_ms: None,
            last_error: None,
            pushes: 0,
            games: Vec::new(),
        }
    }

    /// Its boards changed (a board joined the hall): rebuild before the
    /// next push.
    pub(crate) fn set_boards(&mut self, boards: Vec<String>) {
        if boards != self.boards {
            self.boards = boards;
            self.stale = true;
        }
    }

    /// One of its boards changed.
    pub fn touch(&mut self) {
        self.stale = true;
    }

    /// The round's PGN as just built, with the boards that have a game in it.
    pub fn rebuilt(&mut self, pgn: String, boards: Vec<String>) {
        self.current = pgn;
        self.current_boards = boards;
        self.stale = false;
    }

    pub fn pgn(&self) -> &str {
        &self.current
    }

    /// The boards with a game in the PGN.
    pub(crate) fn pgn_boards(&self) -> &[String] {
        &self.current_boards
    }

    /// Whether the token or the round was refused (pushes stopped).
    pub fn refused(&self) -> bool {
        self.refused
    }

    /// The earliest time a push may go: after the least interval and any
    /// retry time.
    fn ready_at(&self, policy: &Policy) -> u64 {
        let after_last = self
            .last_attempt_ms
            .map_or(0, |t| t.saturating_add(policy.min_interval_ms));
        after_last.max(self.retry_at_ms.unwrap_or(0))
    }

    /// What is due, and when.
    pub fn due(&self, policy: &Policy) -> Due {
        if self.refused {
            return Due::Idle;
        }
        let at = self.ready_at(policy);
        if self.stale {
            return Due::Rebuild(at);
        }
        if self.current.trim().is_empty() || self.done.as_deref() == Some(self.current.as_str()) {
            return Due::Idle;
        }
        Due::Push(at)
    }

    /// A push of the current PGN starts.
    pub fn attempt(&mut self, mono_ms: u64, wall_ms: u64) {
        self.last_attempt_ms = Some(mono_ms);
        self.last_attempt_wall_ms = Some(wall_ms);
    }

    /// What the push of `pushed` (its PGN) came to, at `mono_ms`/`wall_ms`.
    pub fn record(
        &mut self,
        pushed: &str,
        pushed_boards: &[String],
        outcome: PushOutcome,
        policy: &Policy,
        mono_ms: u64,
        wall_ms: u64,
    ) {
        match outcome {
            PushOutcome::Accepted(results) => {
                self.done = Some(pushed.to_owned());
                self.failures = 0;
                self.retry_at_ms = None;
                self.last_success_wall_ms = Some(wall_ms);
                self.last_error = None;
                self.pushes += 1;
                self.games = game_statuses(pushed_boards, &results);
            }
            PushOutcome::Rejected(message) => {
                self.done = Some(pushed.to_owned());
                self.failures = 0;
                self.retry_at_ms = None;
                self.last_error = Some(message);
            }
            PushOutcome::RateLimited { wait_ms, message } => {
                self.retry_at_ms = Some(mono_ms.saturating_add(wait_ms));
                self.last_error = Some(message);
            }
            PushOutcome::Refused(message) => {
                self.refused = true;
                self.retry_at_ms = None;
                self.last_error = Some(message);
            }
            PushOutcome::Failed(message) => {
                self.failures = self.failures.saturating_add(1);
                let wait = policy.backoff_ms(self.failures);
                self.retry_at_ms = Some(mono_ms.saturating_add(wait));
                self.last_error = Some(format!("{message}; retrying in {} s", wait.div_ceil(1000)));
            }
        }
    }

    /// The retry time as wall-clock ms, given the clocks' pair now.
    pub fn retry_at_wall_ms(&self, mono_now: u64, wall_now: u64) -> Option<u64> {
        self.retry_at_ms
            .filter(|&t| t > mono_now)
            .map(|t| wall_now.saturating_add(t - mono_now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy::new(3_000)
    }

    fn ready(pgn: &str) -> RoundPush {
        let mut r = RoundPush::new("abcdEFGH");
        r.set_boards(vec!["b1".into()]);
        r.rebuilt(pgn.into(), vec!["b1".into()]);
        r
    }

    fn accepted() -> PushOutcome {
        PushOutcome::Accepted(vec![GameResult {
            tags: [("White".to_owned(), "Ann".to_owned())].into(),
            moves: Some(3),
            error: None,
        }])
    }

    #[test]
    fn joining_boards_hold_the_push_until_they_stop_at_most_ten_seconds() {
        let mut h = JoinHold::default();
        assert!(!h.holds(0));
        // A burst: each join holds 1 s more.
        h.joined(100);
        h.joined(600);
        assert!(h.holds(1_500));
        assert!(!h.holds(1_600));
        // Steady joins every 0.5 s: held 10 s from the burst's start.
        let mut h = JoinHold::default();
        for t in (5_000..20_000).step_by(500) {
            h.joined(t);
        }
        assert_eq!(h.until(), 15_000);
        assert!(!h.holds(15_000));
        // Joins within 10 s of the end of a hold do not hold again...
        h.joined(20_000);
        assert!(!h.holds(20_001));
        // ...later ones do.
        h.joined(25_000);
        assert!(h.holds(25_999));
        assert!(!h.holds(26_000));
    }

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let p = policy();
        let waits: Vec<u64> = (1..=8).map(|n| p.backoff_ms(n)).collect();
        assert_eq!(
            waits,
            [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]
        );
        assert_eq!(p.backoff_ms(u32::MAX), 60_000);
    }

    #[test]
    fn a_new_round_is_built_then_pushed_at_once_then_only_on_change() {
        let p = policy();
        let mut r = RoundPush::new("abcdEFGH");
        assert_eq!(r.due(&p), Due::Rebuild(0));
        // No game yet: nothing to push.
        r.rebuilt(String::new(), vec![]);
        assert_eq!(r.due(&p), Due::Idle);
        r.touch();
        r.rebuilt("1. e4 *".into(), vec!["b1".into()]);
        assert_eq!(r.due(&p), Due::Push(0));
        r.attempt(10, 1_000_010);
        r.record("1. e4 *", &["b1".into()], accepted(), &p, 50, 1_000_050);
        assert_eq!(r.due(&p), Due::Idle, "unchanged: not pushed again");
        assert_eq!(r.pushes, 1);
        assert_eq!(r.last_success_wall_ms, Some(1_000_050));
        assert_eq!(r.games[0].board, "b1");
        assert_eq!(r.games[0].moves, Some(3));
        // A change: rebuilt no sooner than the interval after the attempt.
        r.touch();
        assert_eq!(r.due(&p), Due::Rebuild(3_010));
        r.rebuilt("1. e4 e5 *".into(), vec!["b1".into()]);
        assert_eq!(r.due(&p), Due::Push(3_010));
        // Rebuilt to the same text as pushed: nothing due.
        r.touch();
        r.rebuilt("1. e4 *".into(), vec!["b1".into()]);
        assert_eq!(r.due(&p), Due::Idle);
    }

    #[test]
    fn failures_back_off_and_a_success_resets_them() {
        let p = policy();
        let mut r = ready("1. d4 *");
        let pgn = r.pgn().to_owned();
        let mut t = 0;
        for expected in [1_000, 2_000, 4_000, 8_000] {
            r.attempt(t, t);
            r.record(
                &pgn,
                &[],
                PushOutcome::Failed("connection refused".into()),
                &p,
                t,
                t,
            );
            // The backoff, or the least interval if longer.
            let at = (t + expected).max(t + p.min_interval_ms);
            assert_eq!(r.due(&p), Due::Push(at));
            assert!(
                r.last_error
                    .as_deref()
                    .unwrap()
                    .contains("connection refused")
            );
            t = at;
        }
        r.attempt(t, t);
        r.record(&pgn, &["b1".into()], accepted(), &p, t, t);
        assert_eq!(r.due(&p), Due::Idle);
        assert_eq!(r.last_error, None);
        r.touch();
        r.rebuilt("1. d4 d5 *".into(), vec!["b1".into()]);
        r.attempt(t + 5_000, 0);
        r.record(
            r.pgn().to_owned().as_str(),
            &[],
            PushOutcome::Failed("reset".into()),
            &p,
            t + 5_000,
            0,
        );
        // Back to the first step: 1 s, under the 3 s interval.
        assert_eq!(r.due(&p), Due::Push(t + 8_000));
    }

    #[test]
    fn a_429_delays_the_next_push_by_its_wait() {
        let p = policy();
        let mut r = ready("1. c4 *");
        r.attempt(100, 5_000_100);
        let wait = PushOutcome::RateLimited {
            wait_ms: 60_000,
            message: "rate limited".into(),
        };
        r.record("1. c4 *", &[], wait, &p, 200, 5_000_200);
        assert_eq!(r.due(&p), Due::Push(60_200));
        assert_eq!(r.retry_at_wall_ms(1_200, 5_001_200), Some(5_060_200));
        // A change does not jump the wait.
        r.touch();
        assert_eq!(r.due(&p), Due::Rebuild(60_200));
        assert_eq!(r.retry_at_wall_ms(60_200, 0), None, "the wait is over");
    }

    #[test]
    fn a_refused_token_stops_the_pushes_and_a_rejected_pgn_waits_for_a_change() {
        let p = policy();
        let mut r = ready("1. Nf3 *");
        r.attempt(0, 0);
        r.record(
            "1. Nf3 *",
            &[],
            PushOutcome::Refused("the token was refused".into()),
            &p,
            0,
            0,
        );
        assert!(r.refused());
        assert_eq!(r.due(&p), Due::Idle);
        r.touch();
        assert_eq!(
            r.due(&p),
            Due::Idle,
            "a change does not retry a refused token"
        );

        let mut r = ready("1. Nf3 *");
        r.attempt(0, 0);
        r.record(
            "1. Nf3 *",
            &[],
            PushOutcome::Rejected("400".into()),
            &p,
            0,
            0,
        );
        assert_eq!(r.due(&p), Due::Idle);
        r.touch();
        r.rebuilt("1. Nf3 d5 *".into(), vec![]);
        assert_eq!(r.due(&p), Due::Push(3_000));
        assert_eq!(r.last_error.as_deref(), Some("400"));
    }

    #[test]
    fn answers_are_paired_with_boards_by_their_board_tag_or_their_place() {
        let pushed: Vec<String> = ["b1", "b2", "b3"].map(String::from).to_vec();
        let result = |board: Option<&str>, white: &str, error: Option<&str>| GameResult {
            tags: board
                .map(|b| ("Board".to_owned(), b.to_owned()))
                .into_iter()
                .chain([("White".to_owned(), white.to_owned())])
                .collect(),
            moves: error.is_none().then_some(4),
            error: error.map(str::to_owned),
        };
        // Lichess left out b2's game (it did not parse at all) yet says b3.
        let statuses = game_statuses(
            &pushed,
            &[
                result(Some("b1"), "Ann", None),
                result(Some("b3"), "Cid", Some("Cannot play Qh8")),
            ],
        );
        assert_eq!(statuses[0].board, "b1");
        assert_eq!(statuses[1].board, "b3");
        assert_eq!(statuses[1].white, "Cid");
        assert_eq!(statuses[1].black, "?");
        assert_eq!(statuses[1].moves, None);
        // No Board tag: by place.
        let statuses = game_statuses(&pushed, &vec![result(None, "X", None); 4]);
        let boards: Vec<&str> = statuses.iter().map(|s| s.board.as_str()).collect();
        assert_eq!(boards, ["b1", "b2", "b3", "?"]);
    }
}
