//! The MQTT client's options from `[mqtt]`: the login, a persistent
//! session, the keep-alive, the Last Will (`status` = `offline`, retained)
//! and, for `mqtts://`, TLS (rustls with the ring provider) checked
//! against `ca-file` or the system's roots.
use std::sync::Arc;

use anyhow::bail;
use rumqttc::{LastWill, MqttOptions, QoS, TlsConfiguration, Transport};

use crate::config::Mqtt;
use crate::outputs::mqtt::wire::{BoardTopics, Channel, OFFLINE};

/// How many publishes may await the broker's acknowledgement.
pub const INFLIGHT: u16 = 100;

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

/// TLS for an `mqtts://` broker (rustls with the ring provider): its
/// certificate is checked against the PEM certificates of `ca_file`
/// (named `what` in errors), else the system's roots.
pub fn tls_config(
    ca_file: Option<&std::path::Path>,
    what: &str,
) -> anyhow::Result<TlsConfiguration> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    // Another part of the program may have installed it already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .and_then(|certs| certs.collect())
                .map_err(|e| anyhow::anyhow!("{what} {}: {e}", path.display()))?;
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                bail!("{what} {}: no PEM certificate in it", path.display());
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            for e in &found.errors {
                tracing::warn!("MQTT TLS: reading the system's certificates: {e}");
            }
            let (added, _) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                bail!("no system CA certificates found; set {what}");
            }
        }
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConfiguration::Rustls(Arc::new(config)))
}
