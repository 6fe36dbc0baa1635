//! Where the publisher reads events back from: the journal (the source of
//! truth, every game) and the feed's in-memory log (the current game only,
//! and the only record when no journal is kept).
use tokio::sync::broadcast;

use super::tracker::Cursor;
use crate::outputs::feed::{Feed, Message, Resume};
use crate::outputs::journal::{GameId, Journal, JournalError};
use touchmove_core::events::Event;

/// A game number the feed never has: resuming "after" it gives the whole
/// current game (see [`Resume::After`]).
const NOT_A_GAME: u64 = u64::MAX;

fn resume_of(game: u64, after: Option<u64>) -> Resume {
    match after {
        Some(seq) => Resume::After {
            game: Some(game),
            seq,
        },
        None => Resume::After {
            game: Some(NOT_A_GAME),
            seq: 0,
        },
    }
}

/// The events from `cursor` on, oldest first, each with its game: those of
/// games before the current one from the journal, then the feed's; and the
/// feed's receiver for what follows, taken with the feed's backlog so that
/// nothing falls between them.
pub(crate) fn live_from(
    feed: &Feed,
    journal: Option<&Journal>,
    cursor: Cursor,
) -> (Vec<(u64, Event)>, broadcast::Receiver<Message>) {
    let (backlog, rx) = feed.subscribe(resume_of(cursor.game, cursor.after));
    let current = backlog.first().map_or_else(|| feed.game(), |i| i.game);
    let mut events = Vec::new();
    if cursor.game < current {
        match journal {
            Some(journal) => {
                for game in cursor.game..current {
                    let after = if game == cursor.game {
                        cursor.after
                    } else {
                        None
                    };
                    match journal.events_after(GameId(game as i64), after) {
                        Ok(found) => events.extend(found.into_iter().map(|e| (game, e))),
                        // Events before any game (game 0) are not journalled.
                        Err(JournalError::NoSuchGame { .. }) => {}
                        Err(e) => tracing::warn!(
                            "MQTT: cannot read game {game} back from the journal to publish it again: {e}"
                        ),
                    }
                }
            }
            None if cursor.game > 0 => tracing::warn!(
                "MQTT: the events of game {} after seq {:?} did not reach the broker, and no journal keeps them: the hall will miss them",
                cursor.game,
                cursor.after
            ),
            None => {}
        }
    }
    events.extend(
        backlog
            .iter()
            .filter(|i| i.game > cursor.game || cursor.after.is_none_or(|a| i.event.seq > a))
            .map(|i| (i.game, i.event.clone())),
    );
    (events, rx)
}

/// The events of `game` after `after` (all for `None`), for a replay
/// request; an error says why there are none.
pub fn game_events(
    feed: &Feed,
    journal: Option<&Journal>,
    game: u64,
    after: Option<u64>,
) -> Result<Vec<Event>, String> {
    if let Some(journal) = journal {
        match i64::try_from(game).map(|g| journal.events_after(GameId(g), after)) {
            Ok(Ok(events)) => return Ok(events),
            Ok(Err(JournalError::NoSuchGame { .. })) | Err(_) => {}
            Ok(Err(e)) => return Err(e.to_string()),
        }
    }
    let (backlog, _) = feed.subscribe(resume_of(game, after));
    let current = backlog.first().map_or_else(|| feed.game(), |i| i.game);
    if current == game {
        return Ok(backlog
            .iter()
            .filter(|i| i.game == game)
            .map(|i| i.event.clone())
            .collect());
    }
    Err(format!(
        "no game {game} on this board (its current game is {current}{})",
        if journal.is_some() {
            ", and its journal has no such game"
        } else {
            "; it keeps no journal, only the current game"
        }
    ))
}
