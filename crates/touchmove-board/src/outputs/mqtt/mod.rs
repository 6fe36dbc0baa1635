//! MQTT: the hall's transport. Boards publish their events, state, PGN
//! and status to a broker (Mosquitto); the hall subscribes. The contract
//! both sides keep is `touchmove_wire::mqtt`; `publisher` is the board's side.
pub mod publisher;
