//! Everything that carries events out of the core or keeps them: the
//! durable journal, the live feed (the in-memory log of the game and its
//! broadcast fan-out), the control commands and the HTTP server, and the
//! MQTT publisher of the hall.
pub mod control;
pub mod feed;
pub mod http;
pub mod journal;
pub mod mqtt;
pub mod setup;
