//! The one HTTP request of the push: `POST {url}/api/broadcast/round/{id}/push`
//! with the round's PGN as `text/plain` and the bearer token.
//!
//! reqwest (rustls with the ring provider, as the hall's MQTT TLS, and the
//! system's CA certificates) rather than hyper-util's bare client: it
//! brings TLS, timeouts, redirect policy and body handling made for
//! exactly this, where hyper-util would leave them to be written here.
use std::time::Duration;

use touchmove_wire::mqtt::wall_ms_now;
use touchmove_wire::secret::Secret;

use super::answer::{PushOutcome, classify};

/// The push's HTTP client.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Secret,
}

/// The time allowed for one push, connection included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of an answer read (a push of 100 games answers a few KB).
const MAX_ANSWER_BYTES: usize = 1 << 20;

impl Client {
    /// A client for the Lichess at `base_url` (checked by the options).
    pub fn new(base_url: &str, token: Secret) -> anyhow::Result<Client> {
        // The provider rustls uses; another part of the hall may have
        // installed it already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!(
                "touchmove/",
                env!("CARGO_PKG_VERSION"),
                " hall push"
            ))
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            // The token goes to the configured Lichess and nowhere else:
            // a redirect is refused, not followed.
            .redirect(reqwest::redirect::Policy::none())
            // Nor to a proxy named by the environment (HTTP_PROXY...).
            .no_proxy()
            .build()
            .map_err(|e| anyhow::anyhow!("the HTTP client for Lichess: {e}"))?;
        Ok(Client {
            http,
            base: base_url.trim_end_matches('/').to_owned(),
            token,
        })
    }

    /// Pushes `pgn` to round `round` (an id of letters and digits, checked
    /// by the options) and reads the answer.
    pub async fn push(&self, round: &str, pgn: String) -> PushOutcome {
        let url = format!("{}/api/broadcast/round/{round}/push", self.base);
        let sent = self
            .http
            .post(&url)
            .bearer_auth(&self.token.0)
            .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(pgn)
            .send()
            .await;
        let mut response = match sent {
            Ok(r) => r,
            // reqwest's errors name the URL, never the headers.
            Err(e) => {
                return PushOutcome::Failed(format!("cannot reach {}: {}", self.base, chain(&e)));
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    body.extend_from_slice(&chunk);
                    if body.len() > MAX_ANSWER_BYTES {
                        return PushOutcome::Failed(format!(
                            "Lichess answered {status} with more than {MAX_ANSWER_BYTES} bytes"
                        ));
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    return PushOutcome::Failed(format!(
                        "reading Lichess's answer ({status}): {}",
                        chain(&e)
                    ));
                }
            }
        }
        if (300..400).contains(&status) {
            return PushOutcome::Refused(format!(
                "Lichess answered a redirect ({status}); the token is not sent elsewhere: \
                 check --lichess-url"
            ));
        }
        classify(
            status,
            retry_after.as_deref(),
            &String::from_utf8_lossy(&body),
            wall_ms_now(),
        )
    }
}

/// An error with its causes ("error sending request: connection refused").
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
