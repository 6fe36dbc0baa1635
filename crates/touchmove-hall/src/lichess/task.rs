//! The push loop: a tokio task beside the hall's subscriber. It learns of
//! changed boards from the hall's notices, rebuilds a round's PGN from the
//! registry only when the round may be pushed (so a busy hall costs one
//! rebuild per round per interval, not one per event), and sends one push
//! at a time ([`super::client`]); every decision is [`super::schedule`]'s.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, watch};

use super::LichessOptions;
use super::answer::PushOutcome;
use super::client::Client;
use super::schedule::{Due, JoinHold, Policy, RoundPush};
use super::split::split;
use super::status::{PushStatus, RoundStatus, SharedStatus};
use crate::{Notice, Shared};
use touchmove_wire::mqtt::wall_ms_now;

/// The running push loop.
pub struct Pusher {
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Pusher {
    /// Ends the loop (a push under way is dropped).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }
}

/// Starts pushing the hall's boards to Lichess; `status` is kept up to
/// date for `/push.json`.
pub fn spawn(
    options: LichessOptions,
    shared: Arc<Shared>,
    status: SharedStatus,
) -> anyhow::Result<Pusher> {
    options.check().map_err(|e| anyhow::anyhow!("{e}"))?;
    let client = Client::new(&options.url, options.token.clone())?;
    let (stop, stop_rx) = watch::channel(false);
    tracing::info!(
        "pushing the round to Lichess at {}: rounds {}, {} games each, at most every {} ms",
        options.url,
        options.rounds.join(", "),
        options.games_per_round,
        options.min_interval_ms
    );
    let notices = shared.subscribe();
    let task = tokio::spawn(async move {
        Loop::new(options, shared, status)
            .run(client, notices, stop_rx)
            .await;
    });
    Ok(Pusher { stop, task })
}

struct Loop {
    options: LichessOptions,
    shared: Arc<Shared>,
    status: SharedStatus,
    policy: Policy,
    rounds: Vec<RoundPush>,
    /// Which round each board is in.
    round_of: HashMap<String, usize>,
    left_out: Vec<String>,
    /// A board unknown to the split arrived: split again.
    resplit: bool,
    /// No round is rebuilt while boards are still joining.
    hold: JoinHold,
    clock: Instant,
}

impl Loop {
    fn new(options: LichessOptions, shared: Arc<Shared>, status: SharedStatus) -> Loop {
        let rounds = options.rounds.iter().map(|r| RoundPush::new(r)).collect();
        Loop {
            policy: Policy::new(options.min_interval_ms),
            options,
            shared,
            status,
            rounds,
            round_of: HashMap::new(),
            left_out: Vec::new(),
            resplit: true,
            hold: JoinHold::default(),
            clock: Instant::now(),
        }
    }

    fn mono(&self) -> u64 {
        self.clock
            .elapsed()
            .as_millis()
            .try_into()
            .unwrap_or(u64::MAX)
    }

    async fn run(
        mut self,
        client: Client,
        mut notices: broadcast::Receiver<Notice>,
        mut stop: watch::Receiver<bool>,
    ) {
        loop {
            if self.resplit {
                self.split_boards();
            }
            let now = self.mono();
            self.rebuild_due(now);
            self.publish();
            let push = self
                .rounds
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match r.due(&self.policy) {
                    Due::Push(at) if at <= now => Some((at, i)),
                    _ => None,
                })
                .min();
            if let Some((_, i)) = push {
                let round = self.rounds[i].round.clone();
                let pgn = self.rounds[i].pgn().to_owned();
                let boards = self.rounds[i].pgn_boards().to_vec();
                self.rounds[i].attempt(now, wall_ms_now());
                self.publish();
                let outcome = tokio::select! {
                    outcome = client.push(&round, pgn.clone()) => outcome,
                    _ = stop.changed() => return,
                };
                self.log(i, &outcome, boards.len());
                let (mono, wall) = (self.mono(), wall_ms_now());
                self.rounds[i].record(&pgn, &boards, outcome, &self.policy, mono, wall);
                continue;
            }
            let next = self
                .rounds
                .iter()
                .filter_map(|r| r.due(&self.policy).at())
                .min()
                .map(|at| at.max(self.hold.until()));
            let sleep = async {
                match next {
                    Some(at) => {
                        tokio::time::sleep(Duration::from_millis(at.saturating_sub(now))).await
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = stop.changed() => return,
                _ = sleep => {}
                notice = notices.recv() => {
                    if !self.heard(notice) {
                        return;
                    }
                    // Take the notices already queued with it.
                    loop {
                        match notices.try_recv() {
                            Err(broadcast::error::TryRecvError::Empty) => break,
                            other => {
                                let notice = other.map_err(|e| match e {
                                    broadcast::error::TryRecvError::Lagged(n) => {
                                        broadcast::error::RecvError::Lagged(n)
                                    }
                                    _ => broadcast::error::RecvError::Closed,
                                });
                                if !self.heard(notice) {
                                    return;
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Takes a notice; false when the hall is stopping.
    fn heard(&mut self, notice: Result<Notice, broadcast::error::RecvError>) -> bool {
        match notice {
            Ok(Notice::Board(id)) => match self.round_of.get(&id) {
                Some(&i) => self.rounds[i].touch(),
                None if self.left_out.contains(&id) => {}
                None => self.resplit = true,
            },
            Ok(Notice::Hall) => {}
            Ok(Notice::Close) | Err(broadcast::error::RecvError::Closed) => return false,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Notices were lost: every round may have changed.
                self.resplit = true;
                for r in &mut self.rounds {
                    r.touch();
                }
            }
        }
        true
    }

    /// Deals the hall's boards over the rounds again.
    fn split_boards(&mut self) {
        self.resplit = false;
        let ids: Vec<String> = self
            .shared
            .registry()
            .board_ids()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let s = split(&ids, self.rounds.len(), self.options.games_per_round);
        let joined = ids
            .iter()
            .any(|b| !self.round_of.contains_key(b) && !self.left_out.contains(b));
        if joined {
            let now = self.mono();
            self.hold.joined(now);
        }
        self.round_of.clear();
        for (i, (round, boards)) in self.rounds.iter_mut().zip(s.rounds).enumerate() {
            for b in &boards {
                self.round_of.insert(b.clone(), i);
            }
            round.set_boards(boards);
        }
        if s.left_out != self.left_out {
            if !s.left_out.is_empty() {
                tracing::warn!(
                    "{} boards are not pushed to Lichess: {} rounds of {} games are full; left out: {}",
                    s.left_out.len(),
                    self.rounds.len(),
                    self.options.games_per_round,
                    s.left_out.join(", ")
                );
            }
            self.left_out = s.left_out;
        }
    }

    /// Rebuilds the PGN of every round whose time has come and whose
    /// boards changed.
    fn rebuild_due(&mut self, now: u64) {
        if self.hold.holds(now) {
            return;
        }
        let round_tag = self.shared.round.clone();
        for r in &mut self.rounds {
            if let Due::Rebuild(at) = r.due(&self.policy)
                && at <= now
            {
                let registry = self.shared.registry();
                let mut pgn = String::new();
                let mut boards = Vec::new();
                for b in &r.boards {
                    if let Some(text) = registry.board_pgn(b, round_tag.as_deref()) {
                        pgn.push_str(text.trim_end());
                        pgn.push_str("\n\n");
                        boards.push(b.clone());
                    }
                }
                drop(registry);
                r.rebuilt(pgn, boards);
            }
        }
    }

    fn publish(&self) {
        let (mono, wall) = (self.mono(), wall_ms_now());
        let status = PushStatus::enabled(
            self.rounds
                .iter()
                .map(|r| RoundStatus::of(r, mono, wall))
                .collect(),
            self.left_out.clone(),
        );
        *self.status.lock().unwrap_or_else(|p| p.into_inner()) = status;
    }

    fn log(&self, i: usize, outcome: &PushOutcome, games: usize) {
        let round = &self.rounds[i];
        let id = &round.round;
        match outcome {
            PushOutcome::Accepted(results) => {
                let errors: Vec<String> = results
                    .iter()
                    .zip(
                        round
                            .pgn_boards()
                            .iter()
                            .map(String::as_str)
                            .chain(std::iter::repeat("?")),
                    )
                    .filter_map(|(r, board)| {
                        r.error
                            .as_ref()
                            .map(|e| format!("{}: {e}", r.tag("Board").unwrap_or(board)))
                    })
                    .collect();
                let before: Vec<String> = round
                    .games
                    .iter()
                    .filter_map(|g| g.error.as_ref().map(|e| format!("{}: {e}", g.board)))
                    .collect();
                if round.last_error.is_some() || round.pushes == 0 {
                    tracing::info!("Lichess round {id}: pushed {games} games");
                } else {
                    tracing::debug!("Lichess round {id}: pushed {games} games");
                }
                if !errors.is_empty() && errors != before {
                    tracing::warn!(
                        "Lichess round {id}: {} games refused: {}",
                        errors.len(),
                        errors.join("; ")
                    );
                }
            }
            PushOutcome::Rejected(e) | PushOutcome::Failed(e) => {
                tracing::warn!("Lichess round {id}: {e}")
            }
            PushOutcome::RateLimited { message, .. } => {
                tracing::warn!("Lichess round {id}: {message}")
            }
            PushOutcome::Refused(e) => {
                tracing::error!("Lichess round {id}: {e}; no more pushes to this round")
            }
        }
    }
}
