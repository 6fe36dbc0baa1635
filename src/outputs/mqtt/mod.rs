//! MQTT: the hall's transport. Boards publish their events, state, PGN
//! and status to a broker (Mosquitto); the hall subscribes. `wire` is the
//! contract both sides keep; `publisher` is the board's side; `url` reads
//! a broker address; `mosquitto` runs a private broker for the tests and
//! the hall benchmark.
pub mod mosquitto;
pub mod publisher;
pub mod url;
pub mod wire;
