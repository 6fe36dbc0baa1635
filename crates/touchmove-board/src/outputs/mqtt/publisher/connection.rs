//! The MQTT connection: drives the client's event loop on a task of its
//! own, reconnecting with backoff (0.5 s doubling to 30 s), and tells the
//! publisher what happened ([`ConnectionReport`]). It never waits for the publisher.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rumqttc::{
    ConnectReturnCode, ConnectionError, Event, EventLoop, Outgoing, Packet, Request, StateError,
};
use tokio::sync::mpsc;

/// The first wait before reconnecting.
pub const BACKOFF_MIN: Duration = Duration::from_millis(500);
/// The longest.
pub const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// What the connection reports to the publisher.
#[derive(Debug)]
pub enum ConnectionReport {
    /// Connected (CONNACK accepted).
    Up,
    /// The connection dropped; the client had not sent `unsent` of the
    /// publishes handed to it and dropped them.
    Down { unsent: usize },
    /// The client sent the next publish as `pkid`.
    Sent(u16),
    /// The broker acknowledged `pkid`.
    Acked(u16),
    /// A message on a subscribed topic (replay requests).
    Message { topic: String, payload: Vec<u8> },
}

/// Whether the board is connected, for `/health`.
#[derive(Debug)]
pub struct MqttHealth {
    pub broker: String,
    connected: AtomicBool,
}

impl MqttHealth {
    pub fn new(broker: String) -> MqttHealth {
        MqttHealth {
            broker,
            connected: AtomicBool::new(false),
        }
    }

    pub fn connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed)
    }
}

/// Drives `eventloop` until the client disconnects or is dropped.
pub async fn drive(
    mut eventloop: EventLoop,
    tx: mpsc::UnboundedSender<ConnectionReport>,
    health: Arc<MqttHealth>,
) {
    let broker = health.broker.clone();
    let mut backoff = BACKOFF_MIN;
    let mut up = false;
    let mut last_failure = String::new();
    loop {
        let event = eventloop.poll().await;
        let link = match event {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                up = true;
                backoff = BACKOFF_MIN;
                last_failure.clear();
                health.connected.store(true, Ordering::Relaxed);
                tracing::info!("MQTT: connected to {broker}");
                Some(ConnectionReport::Up)
            }
            Ok(Event::Outgoing(Outgoing::Disconnect)) => break,
            Ok(event) => forward(event),
            Err(ConnectionError::RequestsDone) => break,
            Err(e) => {
                // Events the client read before the failure (acks).
                for event in eventloop.state.events.drain(..) {
                    if let Some(link) = forward(event) {
                        let _ = tx.send(link);
                    }
                }
                // Publishes it had not sent: the publisher sends them again
                // from its own record, as it does those in flight.
                let unsent = eventloop
                    .pending
                    .iter()
                    .filter(|r| matches!(r, Request::Publish(p) if p.pkid == 0))
                    .count();
                eventloop.pending.clear();
                let failure = describe(&e);
                if up {
                    up = false;
                    health.connected.store(false, Ordering::Relaxed);
                    tracing::warn!(
                        "MQTT: the connection to {broker} was lost ({failure}); reconnecting in {:.1} s",
                        backoff.as_secs_f64()
                    );
                    let _ = tx.send(ConnectionReport::Down { unsent });
                } else if failure != last_failure {
                    if matches!(e, ConnectionError::ConnectionRefused(_)) {
                        tracing::error!(
                            "MQTT: the broker {broker} refused the connection: {failure}; retrying every {:.0} s at most; the board keeps playing and journalling",
                            BACKOFF_MAX.as_secs_f64()
                        );
                    } else {
                        tracing::warn!(
                            "MQTT: cannot connect to {broker} ({failure}); retrying with backoff up to {:.0} s; the board keeps playing and journalling",
                            BACKOFF_MAX.as_secs_f64()
                        );
                    }
                } else {
                    tracing::debug!("MQTT: cannot connect to {broker} ({failure})");
                }
                last_failure = failure;
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                None
            }
        };
        if let Some(link) = link
            && tx.send(link).is_err()
        {
            // The publisher is gone.
            break;
        }
    }
    health.connected.store(false, Ordering::Relaxed);
}

fn forward(event: Event) -> Option<ConnectionReport> {
    match event {
        Event::Incoming(Packet::PubAck(ack)) => Some(ConnectionReport::Acked(ack.pkid)),
        Event::Incoming(Packet::Publish(p)) => Some(ConnectionReport::Message {
            topic: p.topic,
            payload: p.payload.to_vec(),
        }),
        Event::Outgoing(Outgoing::Publish(pkid)) => Some(ConnectionReport::Sent(pkid)),
        _ => None,
    }
}

/// The failure in words an operator acts on.
fn describe(e: &ConnectionError) -> String {
    match e {
        ConnectionError::ConnectionRefused(code) => match code {
            ConnectReturnCode::NotAuthorized | ConnectReturnCode::BadUserNamePassword => format!(
                "{code:?}: the username or password was not accepted (check [mqtt] username and password-file, and the broker's password file)"
            ),
            ConnectReturnCode::BadClientId => {
                format!("{code:?}: the client id was refused (check [mqtt] client-id)")
            }
            other => format!("{other:?}"),
        },
        ConnectionError::Io(io) => format!("{io}"),
        ConnectionError::MqttState(StateError::Io(io)) => format!("{io}"),
        other => other.to_string(),
    }
}
