//! TLS for an `mqtts://` broker, shared by the board's publisher and the hall's subscriber.
use std::sync::Arc;

use anyhow::bail;
use rumqttc::TlsConfiguration;

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
