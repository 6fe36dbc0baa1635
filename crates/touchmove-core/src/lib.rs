//! touchmove's core: from sensor scans to an arbiter-grade game record.
//!
//! The pipeline, one module per step (see `../shared/spec/design.md`):
//! [`trace`] / [`scan`] → [`filter`] → [`inference`] → [`game`] (+ [`clock`])
//! → [`events`], driven by a [`session::Session`]. Everything here is pure,
//! synchronous and time-injected: no threads, no I/O, no wall clock.
pub mod clock;
pub mod events;
pub mod filter;
pub mod game;
pub mod inference;
pub mod replay;
pub mod scan;
pub mod session;
pub mod trace;

/// Milliseconds: trace time in `replay`, time since the game started when live.
pub type Millis = u64;
