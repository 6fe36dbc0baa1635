//! The hall's MQTT side (rumqttc): logs in, subscribes to every board of
//! the hall at QoS 1, hands each message to the registry, publishes the
//! replay requests it answers with, asks again for gaps left unfilled,
//! and reconnects with a growing pause (100 ms doubling to 5 s while
//! connections fail at once; [`super::link`]) when the broker goes away.
//! The session is persistent (clean session off), so the broker queues
//! the events published while the hall was away.
//!
//! The client reads packets up to [`MAX_PACKET`]: a payload over the
//! hall's own limit ([`super::limits::MAX_PAYLOAD`]) is read, dropped and
//! counted by the registry. A packet over the client's limit ends the
//! connection before it is acknowledged, so the broker sends it again on
//! the next connect; after a few such failures in a row the hall connects
//! once with a clean session (discarding what the broker queued for it),
//! then again with a persistent one.
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{
    AsyncClient, ConnectionError, Event, EventLoop, MqttOptions, Packet, QoS, StateError,
    SubscribeReasonCode,
};
use tokio::sync::watch;

use super::limits::MAX_PACKET;
use super::link::Failure;
use super::rejects::{LogLimit, Say};
use super::{BrokerAddr, HallOptions, Notice, Shared};
use touchmove_wire::mqtt::{self as wire, ReplayRequest};

/// How often unanswered replay requests are looked at.
const RETRY_TICK: Duration = Duration::from_millis(250);
/// Warnings of refused messages: at most this many per 10 s.
const WARNINGS_PER_WINDOW: u32 = 10;
const WARNING_WINDOW_MS: u64 = 10_000;

/// Publishes replay requests for the HTTP control endpoint.
#[derive(Clone)]
pub struct ReplayAsker {
    client: AsyncClient,
}

impl std::fmt::Debug for ReplayAsker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayAsker").finish_non_exhaustive()
    }
}

impl ReplayAsker {
    /// Queues a replay request for `topic` (QoS 1; sent once connected).
    pub async fn replay(&self, topic: &str, request: ReplayRequest) -> Result<(), String> {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, request.to_json())
            .await
            .map_err(|e| format!("the MQTT client is stopped: {e}"))
    }
}

/// The running MQTT tasks.
pub struct Subscriber {
    client: AsyncClient,
    stop: watch::Sender<bool>,
    eventloop: tokio::task::JoinHandle<()>,
    retries: tokio::task::JoinHandle<()>,
}

/// Starts the connection and the retry ticker.
pub fn spawn(
    options: &HallOptions,
    broker: &BrokerAddr,
    shared: Arc<Shared>,
) -> anyhow::Result<Subscriber> {
    let client_id = options
        .client_id
        .clone()
        .unwrap_or_else(|| format!("touchmove-hall-{}", options.hall));
    let mut mqtt = MqttOptions::new(client_id, broker.host.clone(), broker.port);
    mqtt.set_keep_alive(Duration::from_secs(10));
    mqtt.set_clean_session(false);
    mqtt.set_max_packet_size(MAX_PACKET, MAX_PACKET);
    if let Some(password) = &options.password {
        mqtt.set_credentials(options.username.clone(), password.clone());
    } else {
        mqtt.set_credentials(options.username.clone(), "");
    }
    if broker.tls {
        let tls = touchmove_wire::tls::tls_config(options.ca_file.as_deref(), "--ca-file")
            .map_err(|e| anyhow::anyhow!("--broker {broker}: {e}"))?;
        mqtt.set_transport(rumqttc::Transport::tls_with_config(tls));
    }
    let (client, eventloop) = AsyncClient::new(mqtt, 1024);
    let (stop, stop_rx) = watch::channel(false);
    let filter = wire::hall_filter(&options.hall);
    let eventloop = tokio::spawn(run(
        eventloop,
        client.clone(),
        filter,
        Arc::clone(&shared),
        stop_rx.clone(),
    ));
    let retries = tokio::spawn(retry(client.clone(), shared, stop_rx));
    Ok(Subscriber {
        client,
        stop,
        eventloop,
        retries,
    })
}

impl Subscriber {
    pub fn publisher(&self) -> ReplayAsker {
        ReplayAsker {
            client: self.client.clone(),
        }
    }

    /// Disconnects cleanly (waits up to 2 s for the broker to hear it).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.client.try_disconnect();
        let mut eventloop = self.eventloop;
        if tokio::time::timeout(Duration::from_secs(2), &mut eventloop)
            .await
            .is_err()
        {
            eventloop.abort();
        }
        self.retries.abort();
    }
}

fn publish_replays(client: &AsyncClient, replays: Vec<(String, ReplayRequest)>) {
    for (topic, request) in replays {
        tracing::info!("asking {topic} for a replay: {}", request.to_json());
        if let Err(e) = client.try_publish(&topic, QoS::AtLeastOnce, false, request.to_json()) {
            // The registry asks again after its retry time.
            tracing::warn!("replay request to {topic} not queued: {e}");
        }
    }
}

/// Why the connection ended, as the link counts it.
fn failure_of(e: &ConnectionError) -> Failure {
    match e {
        ConnectionError::MqttState(StateError::Deserialization(
            rumqttc::Error::PayloadSizeLimitExceeded(size),
        )) => Failure::Oversized(*size),
        _ => Failure::Other,
    }
}

async fn run(
    mut eventloop: EventLoop,
    client: AsyncClient,
    filter: String,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
) {
    let mut warnings = LogLimit::new(WARNING_WINDOW_MS, WARNINGS_PER_WINDOW);
    // The session was discarded: once subscribed again, every board is
    // asked for what the hall may have lost with it.
    let mut resync = false;
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                shared.link().connected(wire::wall_ms_now());
                if eventloop.mqtt_options.clean_session() {
                    // The session is discarded: connect again with a
                    // persistent one, so that the broker queues for the
                    // hall again.
                    eventloop.mqtt_options.set_clean_session(false);
                    eventloop.clean();
                    resync = true;
                    tracing::warn!(
                        "the broker's session of the hall was discarded; connecting again with a persistent session"
                    );
                    continue;
                }
                tracing::info!("connected to the broker; subscribing to {filter}");
                if let Err(e) = client.try_subscribe(&filter, QoS::AtLeastOnce) {
                    tracing::warn!("subscribing to {filter}: {e}");
                }
                if std::mem::take(&mut resync) {
                    let asked = shared.registry().resync(wire::wall_ms_now());
                    publish_replays(&client, asked);
                }
            }
            Ok(Event::Incoming(Packet::SubAck(ack))) => {
                if ack
                    .return_codes
                    .iter()
                    .any(|c| matches!(c, SubscribeReasonCode::Failure))
                {
                    tracing::warn!(
                        "the broker refused the subscription to {filter}: check the hall user's ACL (it must read touchmove/v1/#)"
                    );
                } else {
                    // Connected once the boards' messages reach the hall:
                    // what a board publishes from now on is not lost.
                    shared.set_connected(true);
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let now = wire::wall_ms_now();
                let received = shared.registry().receive(&p.topic, &p.payload, now);
                if let Some(fault) = &received.fault {
                    match warnings.say(now) {
                        Say::Log => {
                            tracing::warn!("bad MQTT message on {}: {}", fault.topic, fault.message)
                        }
                        Say::LogAfterQuiet(n) => tracing::warn!(
                            "bad MQTT message on {}: {} ({n} more bad messages not logged before it)",
                            fault.topic,
                            fault.message
                        ),
                        Say::Quiet => {}
                    }
                    shared.notify(Notice::Hall);
                }
                publish_replays(&client, received.replays);
                if let Some(board) = received.changed {
                    shared.notify(Notice::Board(board));
                }
            }
            Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect)) if *stop.borrow() => {
                // Let the DISCONNECT reach the broker, then end.
                let _ = tokio::time::timeout(Duration::from_millis(200), eventloop.poll()).await;
                break;
            }
            Ok(_) => {}
            Err(e) => {
                let failure = failure_of(&e);
                let (pause, clean) = {
                    let mut link = shared.link();
                    let pause = link.failed(failure, wire::wall_ms_now());
                    (pause, link.take_clean_session())
                };
                shared.set_connected(false);
                if *stop.borrow() {
                    break;
                }
                match failure {
                    Failure::Oversized(size) => tracing::warn!(
                        "the broker sent the hall a packet of {size} bytes, over its limit of {MAX_PACKET} (set the broker's message_size_limit below it); reconnecting in {} ms",
                        pause.as_millis()
                    ),
                    Failure::Other => tracing::warn!(
                        "MQTT connection to the broker: {e}; reconnecting in {} ms",
                        pause.as_millis()
                    ),
                }
                if clean {
                    tracing::error!(
                        "the broker sends the same oversized packet on every connect: discarding the hall's session (what the broker queued for the hall is lost; boards replay the gaps)"
                    );
                    eventloop.mqtt_options.set_clean_session(true);
                }
                let mut stop = stop.clone();
                tokio::select! {
                    _ = tokio::time::sleep(pause) => {}
                    _ = stop.wait_for(|s| *s) => break,
                }
            }
        }
    }
    shared.set_connected(false);
}

async fn retry(client: AsyncClient, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(RETRY_TICK);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => return,
        }
        if !shared.connected() {
            continue;
        }
        let due = shared.registry().due_replays(wire::wall_ms_now());
        publish_replays(&client, due);
    }
}
