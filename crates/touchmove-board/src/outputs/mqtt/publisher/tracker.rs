//! Which published events the broker has acknowledged, so that after a
//! lost connection the board publishes again exactly from the first event
//! the broker may not have (and duplicates, which consumers drop, rather
//! than lose anything).
//!
//! The MQTT client numbers each QoS 1 publish (its packet id) only when it
//! sends it, in the order the publishes were handed to it; it reports that
//! as `Sent(pkid)`, and the broker's PUBACK as `Acked(pkid)`. So the
//! tracker keeps the publishes handed over but not yet sent in a queue,
//! gives the front one the packet id of each `Sent`, and marks its event
//! acknowledged on the `Acked` of that id. When the connection drops, the
//! publishes the client had not sent yet (`unsent`, counted by the
//! connection) leave the queue; those in flight are forgotten: their events
//! stay unacknowledged and are published again.
use std::collections::{BTreeSet, HashMap, VecDeque};

/// An event's identity on the wire: `(game, seq)`.
pub type Key = (u64, u64);

/// Where to publish again from: the events of `game` after `after` (every
/// event of it for `None`), then those of every later game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub game: u64,
    pub after: Option<u64>,
}

/// What a publish handed to the client carries, for the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// An event of the live stream: acknowledged or published again.
    Event(Key),
    /// Anything else (state, PGN, status, a replayed event).
    Other,
}

#[derive(Debug, Default)]
pub(crate) struct Tracker {
    /// Handed to the client, not yet sent: oldest first.
    queued: VecDeque<Tag>,
    /// Sent, not yet acknowledged, by packet id.
    inflight: HashMap<u16, Tag>,
    /// Live events handed over and not acknowledged.
    unacked: BTreeSet<Key>,
    /// The last live event handed over.
    last: Option<Key>,
}

impl Tracker {
    /// A publish was handed to the client.
    pub fn handed(&mut self, tag: Tag) {
        if let Tag::Event(key) = tag {
            self.unacked.insert(key);
            self.last = Some(self.last.map_or(key, |l| l.max(key)));
        }
        self.queued.push_back(tag);
    }

    /// The client sent the oldest queued publish as `pkid`.
    pub fn sent(&mut self, pkid: u16) {
        if let Some(tag) = self.queued.pop_front() {
            self.inflight.insert(pkid, tag);
        }
    }

    /// The broker acknowledged `pkid`.
    pub(crate) fn acked(&mut self, pkid: u16) {
        if let Some(Tag::Event(key)) = self.inflight.remove(&pkid) {
            self.unacked.remove(&key);
        }
    }

    /// The connection dropped; the client had not sent the `unsent` oldest
    /// queued publishes and dropped them.
    pub fn down(&mut self, unsent: usize) {
        for _ in 0..unsent.min(self.queued.len()) {
            self.queued.pop_front();
        }
        self.inflight.clear();
    }

    /// Publishes handed over and not yet sent.
    pub fn queued(&self) -> usize {
        self.queued.len()
    }

    /// Whether every publish handed over was acknowledged.
    pub fn settled(&self) -> bool {
        self.queued.is_empty() && self.inflight.is_empty()
    }

    /// Where to publish again from after a reconnection: the first event
    /// not acknowledged, else after the last handed over; `None`: nothing
    /// was handed over yet (publish the current game from its start).
    pub fn resume(&self) -> Option<Cursor> {
        match self.unacked.first() {
            Some(&(game, seq)) => Some(Cursor {
                game,
                after: seq.checked_sub(1),
            }),
            None => self.last.map(|(game, seq)| Cursor {
                game,
                after: Some(seq),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumes_at_the_first_event_not_acknowledged() {
        let mut t = Tracker::default();
        assert_eq!(t.resume(), None);
        for seq in 0..5 {
            t.handed(Tag::Event((1, seq)));
        }
        t.handed(Tag::Other);
        // Sent as 7, 8, 9, 10, 11 (state: 12); acks for 7, 8 and 10.
        for pkid in 7..=12 {
            t.sent(pkid);
        }
        for pkid in [7, 8, 10, 12] {
            t.acked(pkid);
        }
        assert_eq!(
            t.resume(),
            Some(Cursor {
                game: 1,
                after: Some(1)
            })
        );
        t.acked(9);
        t.acked(11);
        assert!(t.settled());
        assert_eq!(
            t.resume(),
            Some(Cursor {
                game: 1,
                after: Some(4)
            })
        );
    }

    #[test]
    fn publishes_dropped_unsent_do_not_steal_packet_ids() {
        let mut t = Tracker::default();
        t.handed(Tag::Event((2, 0)));
        t.handed(Tag::Event((2, 1)));
        t.handed(Tag::Event((2, 2)));
        t.sent(1);
        // The connection drops: (2,1) and (2,2) were never sent; (2,0) was
        // in flight and is forgotten.
        t.down(2);
        assert_eq!(t.queued(), 0);
        t.acked(1);
        assert_eq!(
            t.resume(),
            Some(Cursor {
                game: 2,
                after: None
            })
        );
        // A publish handed over after the drop maps to the next send.
        t.handed(Tag::Event((2, 3)));
        t.sent(2);
        t.acked(2);
        assert_eq!(
            t.resume().unwrap().after,
            None,
            "(2,0) still unacknowledged"
        );
    }
}
