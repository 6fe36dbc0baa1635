//! touchmove's board daemon: the scan loop around the core's session, the
//! game journal, the HTTP API and pages, and the MQTT publisher.
pub mod config;
pub mod daemon;
pub mod outputs;
pub mod stop_signals;
pub mod time;
