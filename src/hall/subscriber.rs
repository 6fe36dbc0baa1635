//! The hall's MQTT side (rumqttc): logs in, subscribes to every board of
//! the hall at QoS 1, hands each message to the registry, publishes the
//! replay requests it answers with, asks again for gaps left unfilled,
//! and reconnects with a growing pause (100 ms doubling to 5 s) when the
//! broker goes away. The session is persistent (clean session off), so
//! the broker queues the events published while the hall was away.
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Packet, QoS, SubscribeReasonCode};
use tokio::sync::watch;

use super::{BrokerAddr, HallOptions, Notice, Shared};
use crate::outputs::mqtt::wire::{self, ReplayRequest};

/// How often unanswered replay requests are looked at.
const RETRY_TICK: Duration = Duration::from_millis(250);
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Publishes replay requests for the HTTP control endpoint.
#[derive(Clone)]
pub struct Publisher {
    client: AsyncClient,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher").finish_non_exhaustive()
    }
}

impl Publisher {
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
    mqtt.set_max_packet_size(1 << 20, 1 << 20);
    if let Some(password) = &options.password {
        mqtt.set_credentials(options.username.clone(), password.clone());
    } else {
        mqtt.set_credentials(options.username.clone(), "");
    }
    if broker.tls {
        let tls = crate::outputs::mqtt::publisher::options::tls_config(
            options.ca_file.as_deref(),
            "--ca-file",
        )
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
    pub fn publisher(&self) -> Publisher {
        Publisher {
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

async fn run(
    mut eventloop: EventLoop,
    client: AsyncClient,
    filter: String,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
) {
    let mut backoff = BACKOFF_MIN;
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                backoff = BACKOFF_MIN;
                shared.set_connected(true);
                tracing::info!("connected to the broker; subscribing to {filter}");
                if let Err(e) = client.try_subscribe(&filter, QoS::AtLeastOnce) {
                    tracing::warn!("subscribing to {filter}: {e}");
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
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let now = wire::wall_ms_now();
                let received = shared.registry().receive(&p.topic, &p.payload, now);
                if let Some(fault) = &received.fault {
                    tracing::warn!("bad MQTT message on {}: {}", fault.topic, fault.message);
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
                shared.set_connected(false);
                if *stop.borrow() {
                    break;
                }
                tracing::warn!(
                    "MQTT connection to the broker: {e}; reconnecting in {} ms",
                    backoff.as_millis()
                );
                let mut stop = stop.clone();
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = stop.wait_for(|s| *s) => break,
                }
                backoff = (backoff * 2).min(BACKOFF_MAX);
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
