//! The one enum that leaves the core (filled in with the game record).
