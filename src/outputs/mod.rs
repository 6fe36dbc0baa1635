//! Where concluded events go: the durable journal first, then the feeds.
pub mod journal;
