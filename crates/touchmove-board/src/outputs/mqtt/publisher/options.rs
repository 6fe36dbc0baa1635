//! The MQTT client's options from `[mqtt]`: the login, a persistent
//! session, the keep-alive, the Last Will (`status` = `offline`, retained)
//! and, for `mqtts://`, TLS (rustls with the ring provider) checked
//! against `ca-file` or the system's roots.

use rumqttc::{LastWill, MqttOptions, QoS, Transport};

use crate::config::Mqtt;
use touchmove_wire::mqtt::{BoardTopics, Channel, OFFLINE};
pub use touchmove_wire::tls::tls_config;

/// How many publishes may await the broker's acknowledgement.
pub(crate) const INFLIGHT: u16 = 100;

/// The client's options for `settings`.
pub fn mqtt_options(settings: &Mqtt, topics: &BoardTopics) -> anyhow::Result<MqttOptions> {
    let url = &settings.broker;
    let mut options = MqttOptions::new(&settings.client_id, &url.host, url.port);
    options.set_keep_alive(settings.keep_alive);
    // The broker keeps the replay subscription and the requests queued for
    // the board while it is away.
    options.set_clean_session(false);
    options.set_inflight(INFLIGHT);
    options.set_max_packet_size(1 << 20, 1 << 20);
    options.set_last_will(LastWill::new(
        topics.topic(Channel::Status),
        OFFLINE,
        QoS::AtLeastOnce,
        true,
    ));
    match &settings.password {
        Some(password) => options.set_credentials(&settings.username, &password.0),
        None => options.set_credentials(&settings.username, ""),
    };
    if url.tls {
        let config = tls_config(settings.ca_file.as_deref(), "[mqtt] ca-file")
            .map_err(|e| anyhow::anyhow!("[mqtt] broker {}: {e}", settings.broker))?;
        options.set_transport(Transport::tls_with_config(config));
    }
    Ok(options)
}
