//! The round pushed to a Lichess broadcast.
//!
//! A hall usually sits behind NAT, where Lichess cannot poll
//! `/round.pgn`; Lichess takes pushes instead:
//! `POST /api/broadcast/round/{broadcastRoundId}/push`, the PGN as
//! `text/plain`, `Authorization: Bearer <token>` with the `study:write`
//! scope, by a contributor of the broadcast, to a round without a source
//! URL. The hall pushes each round's PGN whenever it changes, one request
//! at a time, at most once every `min_interval_ms` per round, retrying
//! network and server errors with an exponential backoff, waiting what a
//! 429 asks (a minute when it does not say), and stopping for good on a
//! refused token (401/403) or an unknown round (404).
//!
//! What the endpoint does, from its sources:
//! - lichess-org/api `doc/specs/tags/broadcasts/broadcast-round-broadcastRoundId-push.yaml`
//!   and `doc/specs/schemas/BroadcastPgnPush.yaml`: the request, "up to
//!   100 games, separated by a double new line"; the 200 answer
//!   `{"games": [{"tags": {...}, "moves": N} or {"tags": {...}, "error": "..."}]}`;
//!   400 `{"error": "..."}`. `doc/specs/lichess-api.yaml` ("Rate
//!   limiting"): one request at a time; on a 429, "waiting one minute
//!   before retrying will be sufficient".
//! - lichess-org/lila `app/controllers/RelayRound.scala` (`push`: scope
//!   `study:write`, 403 "You can't do that" for a non-contributor, 404 for
//!   an unknown round), `modules/relay/src/main/RelayPush.scala` (games
//!   split by `MultiPgn.split` up to `RelayFetch.maxChaptersToShow`, 100;
//!   one result per game in order; a game whose moves do not replay is
//!   refused with its tags and the first line of the error; a round with
//!   an upstream URL answers one error without tags), `app/controllers/
//!   LilaController.scala` `handleScopedFail` (401 for a bad token, 403
//!   "Missing scope"), `conf/base.conf` (`play.http.parser.maxMemoryBuffer
//!   = 512KiB`: larger bodies are refused).
//!
//! The hall splits its boards over the rounds given by board order
//! ([`split`]), `games_per_round` to a round (64 by default, under
//! Lichess's 100); boards beyond every round are left out, and the log
//! and `/push.json` ([`status`]) say which.
//!
//! The decisions ([`split`], [`schedule`], [`answer`]) are pure and
//! time-injected; [`client`] is the HTTP request and [`task`] the tokio
//! loop that ties them to the hall's registry.
pub mod answer;
pub mod client;
pub mod schedule;
pub mod split;
pub mod status;
pub mod task;

use touchmove_wire::secret::Secret;

pub use status::{PushStatus, SharedStatus};
pub use task::{Pusher, spawn};

/// Lichess itself.
pub const DEFAULT_URL: &str = "https://lichess.org";
/// The least time between two pushes to a round by default.
pub const DEFAULT_MIN_INTERVAL_MS: u64 = 3_000;
/// The bounds of `min_interval_ms`.
pub(crate) const MIN_INTERVAL_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=3_600_000;
/// Games pushed to one round by default.
pub const DEFAULT_GAMES_PER_ROUND: usize = 64;
/// The most games Lichess reads of one push (`RelayFetch.maxChaptersToShow`).
pub(crate) const MAX_GAMES_PER_ROUND: usize = 100;

/// Where and how the hall pushes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessOptions {
    /// The Lichess round ids: the first takes the first boards.
    pub rounds: Vec<String>,
    /// The bearer token (`study:write`); never logged.
    pub token: Secret,
    /// The Lichess to push to, `https://lichess.org` by default.
    pub url: String,
    /// The least time between two pushes to one round.
    pub min_interval_ms: u64,
    /// The most games pushed to one round.
    pub games_per_round: usize,
}

impl LichessOptions {
    /// Options with the defaults.
    pub fn new(rounds: &[&str], token: &str) -> LichessOptions {
        LichessOptions {
            rounds: rounds.iter().map(|r| (*r).to_owned()).collect(),
            token: Secret(token.to_owned()),
            url: DEFAULT_URL.into(),
            min_interval_ms: DEFAULT_MIN_INTERVAL_MS,
            games_per_round: DEFAULT_GAMES_PER_ROUND,
        }
    }

    /// Every value checked; the error names the option.
    pub fn check(&self) -> Result<(), String> {
        if self.rounds.is_empty() {
            return Err("no Lichess round given (--lichess-round ID)".into());
        }
        for round in &self.rounds {
            check_round_id(round).map_err(|e| format!("--lichess-round {round:?}: {e}"))?;
        }
        if let Some(twice) = self
            .rounds
            .iter()
            .enumerate()
            .find_map(|(i, r)| self.rounds[..i].contains(r).then_some(r))
        {
            return Err(format!("--lichess-round {twice:?} is given twice"));
        }
        check_url(&self.url).map_err(|e| format!("--lichess-url {:?}: {e}", self.url))?;
        if self.token.0.trim().is_empty() {
            return Err("the Lichess token is empty".into());
        }
        if !MIN_INTERVAL_RANGE_MS.contains(&self.min_interval_ms) {
            return Err(format!(
                "--lichess-min-interval-ms {}: must be {} to {}",
                self.min_interval_ms,
                MIN_INTERVAL_RANGE_MS.start(),
                MIN_INTERVAL_RANGE_MS.end()
            ));
        }
        if !(1..=MAX_GAMES_PER_ROUND).contains(&self.games_per_round) {
            return Err(format!(
                "--lichess-games-per-round {}: must be 1 to {MAX_GAMES_PER_ROUND} (Lichess reads at most {MAX_GAMES_PER_ROUND} games of a push)",
                self.games_per_round
            ));
        }
        Ok(())
    }
}

/// A Lichess broadcast round id: 8 letters or digits (the API's
/// `broadcastRoundId`, minLength 8, maxLength 8).
pub(crate) fn check_round_id(id: &str) -> Result<(), String> {
    if id.len() == 8 && id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(())
    } else {
        Err("a Lichess round id is 8 letters or digits (the last part of the round's URL)".into())
    }
}

/// The Lichess URL: `http(s)://host[:port][/path]`, no login, query or
/// fragment.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("must be an http:// or https:// URL".into());
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("must not hold a login (the token is read from its file)".into());
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err("must not have a query or a fragment".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_with_the_option_named() {
        let ok = LichessOptions::new(&["abcdEFGH", "12345678"], "lip_token");
        assert_eq!(ok.check(), Ok(()));
        let bad = |f: &dyn Fn(&mut LichessOptions)| {
            let mut o = ok.clone();
            f(&mut o);
            o.check().unwrap_err()
        };
        assert!(bad(&|o| o.rounds.clear()).contains("--lichess-round"));
        assert!(bad(&|o| o.rounds[1] = "short".into()).contains("--lichess-round \"short\""));
        assert!(bad(&|o| o.rounds[1] = "abc/../x".into()).contains("8 letters or digits"));
        assert!(bad(&|o| o.rounds[1] = "abcdEFGH".into()).contains("given twice"));
        assert!(bad(&|o| o.url = "ftp://lichess.org".into()).contains("--lichess-url"));
        assert!(bad(&|o| o.url = "https://u:p@lichess.org".into()).contains("login"));
        assert!(bad(&|o| o.url = "https://lichess.org/?x=1".into()).contains("query"));
        assert!(bad(&|o| o.url = "lichess.org".into()).contains("--lichess-url"));
        assert!(bad(&|o| o.min_interval_ms = 5).contains("--lichess-min-interval-ms 5"));
        assert!(bad(&|o| o.games_per_round = 101).contains("1 to 100"));
        assert!(bad(&|o| o.games_per_round = 0).contains("--lichess-games-per-round 0"));
        assert!(bad(&|o| o.token = Secret(" ".into())).contains("token is empty"));
        // The token is never printed.
        assert!(!format!("{ok:?}").contains("lip_token"));
        let mut local = ok.clone();
        local.url = "http://127.0.0.1:8099".into();
        assert_eq!(local.check(), Ok(()));
    }
}
