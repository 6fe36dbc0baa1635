//! touchmove's core: from sensor scans to an arbiter-grade game record.
//!
//! The pipeline, one module per step (see `../shared/spec/design.md`):
//! [`trace`] / [`scan`] → [`filter`] → [`inference`] → [`game`] (+ [`clock`])
//! → [`events`], driven by a [`session::Session`]. Everything here is pure,
//! synchronous and time-injected: no threads, no I/O, no wall clock.
//!
//! A few lines of a sensor trace in (`../shared/spec/trace-format.md`),
//! events out (`../shared/spec/events.md`) and the game as PGN:
//!
//! ```
//! use touchmove_core::game::pgn::{self, Tags};
//! use touchmove_core::replay::{drive, session_for};
//! use touchmove_core::trace;
//!
//! // 1. e4 e5: each pawn is lifted, put down on its new square, and the
//! // mover presses the clock (Articles 4.3, 4.6, 6.7).
//! let text = "\
//! 0 FFFF00000000FFFF
//! 1000 FFFF00000000EFFF
//! 1500 FFFF00001000EFFF
//! 2000 clock white
//! 3000 FFEF00001000EFFF
//! 3500 FFEF00101000EFFF
//! 4000 clock black
//! ";
//! let trace = trace::parse(text, "two-moves.trace")?;
//! let mut session = session_for(&trace, None, None, None, None, None)?;
//! let events = drive(&mut session, &trace, "two-moves.trace")?;
//!
//! // Each move is made when the piece is released (4.6) and completed at
//! // the clock press (6.7).
//! let lines: Vec<String> = events.iter().map(|e| e.to_json()).collect();
//! let made: Vec<&String> = lines.iter().filter(|j| j.starts_with("{\"type\":\"move\"")).collect();
//! assert!(made[0].contains("\"san\":\"e4\"") && made[1].contains("\"san\":\"e5\""));
//! let completed = lines.iter().filter(|j| j.contains("\"move_completed\"")).count();
//! assert_eq!(completed, 2);
//!
//! let pgn = pgn::write(session.game(), &Tags::default());
//! assert!(pgn.contains("1. e4 e5 *"), "{pgn}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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
