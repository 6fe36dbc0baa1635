//! What touchmove's boards and its hall share on the wire: the MQTT topics
//! and payloads (the contract of `../shared/spec/events.md`), the broker
//! URL and its TLS, the game state served as JSON, and the HTTP server
//! loop both serve through.
pub mod broker_url;
pub mod http;
pub mod mqtt;
pub mod secret;
pub mod serve;
pub mod state;
pub mod tls;
