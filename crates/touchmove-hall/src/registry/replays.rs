//! Replay requests beyond the one a gap opens ([`super::board_log`]):
//! asked again when unanswered for [`REPLAY_RETRY_MS`], every board asked
//! at once when the broker lost the hall's queue, and the games the
//! arbiter asked for by hand.
use touchmove_wire::mqtt::{BoardTopics, Channel, ReplayRequest};

use super::board::Retained;
use super::{REPLAY_RETRY_MS, Registry};

impl Registry {
    /// The topic replay requests to `board` are published on.
    pub(super) fn replay_topic(&self, board: &str) -> String {
        BoardTopics {
            hall: self.hall.clone(),
            board: board.to_owned(),
        }
        .topic(Channel::Replay)
    }

    /// The arbiter asked `board` to replay `game`: its events are
    /// replies, even if it is older than the board's current game.
    pub fn replay_asked(&mut self, board: &str, game: u64) {
        if let Some(b) = self.boards.get_mut(board) {
            b.replays_asked.retain(|g| *g != game);
            if b.replays_asked.len() >= 4 {
                b.replays_asked.remove(0);
            }
            b.replays_asked.push(game);
        }
    }

    /// What the broker had queued for the hall was lost (its session
    /// discarded): every board with a game is asked for the events after
    /// the last one held in order, or after its retained state's.
    pub fn resync(&mut self, now_ms: u64) -> Vec<(String, ReplayRequest)> {
        let mut out = Vec::new();
        for b in self.boards.values_mut() {
            let request = match (&mut b.log, &b.state) {
                (Some(log), _) => log.ask(now_ms),
                (
                    None,
                    Some(Retained {
                        game: Some(game),
                        seq,
                        ..
                    }),
                ) => ReplayRequest {
                    game: *game,
                    after_seq: u64::try_from(*seq).ok(),
                },
                _ => continue,
            };
            b.stats.replays += 1;
            out.push((
                BoardTopics {
                    hall: self.hall.clone(),
                    board: b.id.clone(),
                }
                .topic(Channel::Replay),
                request,
            ));
        }
        out
    }

    /// Replay requests whose gap nothing filled for [`REPLAY_RETRY_MS`],
    /// asked again (from the last event held in order).
    pub fn due_replays(&mut self, now_ms: u64) -> Vec<(String, ReplayRequest)> {
        let mut out = Vec::new();
        let hall = self.hall.clone();
        for b in self.boards.values_mut() {
            let Some(log) = &mut b.log else { continue };
            let Some((_, at)) = log.asked else { continue };
            if now_ms.saturating_sub(at) < REPLAY_RETRY_MS || !log.has_gap() {
                continue;
            }
            let request = log.ask(now_ms);
            b.stats.replays += 1;
            out.push((
                BoardTopics {
                    hall: hall.clone(),
                    board: b.id.clone(),
                }
                .topic(Channel::Replay),
                request,
            ));
        }
        out
    }
}
