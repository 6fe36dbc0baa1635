//! touchmove: from an occupancy-sensing chessboard to an arbiter-grade game record.
//!
//! The pipeline, one module per step (see `../shared/spec/design.md`):
//! `sensors` → `filter` → `inference` → `game` (+ `clock`) → `events` → `outputs`.
//! Everything up to `events` is a pure, synchronous, time-injected core.
pub mod bringup;
pub mod cli;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod events;
pub mod filter;
pub mod game;
pub mod hall;
pub mod inference;
pub mod outputs;
pub mod sensors;
pub mod session;
pub mod synth;

/// Milliseconds: trace time in `replay`, time since the game started when live.
pub type Millis = u64;
