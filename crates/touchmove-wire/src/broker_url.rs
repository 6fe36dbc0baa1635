//! A broker address as the configuration writes it:
//! `mqtt://host[:port]` (plain TCP, port 1883 unless given) or
//! `mqtts://host[:port]` (TLS, port 8883 unless given). An IPv6 host is
//! written in brackets: `mqtt://[::1]:1883`.
use std::fmt;
use std::str::FromStr;

/// A parsed broker URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BrokerUrl {
    pub tls: bool,
    /// The host name or address (an IPv6 address without its brackets).
    pub host: String,
    pub port: u16,
}

impl FromStr for BrokerUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<BrokerUrl, String> {
        let (tls, rest) = if let Some(rest) = text.strip_prefix("mqtt://") {
            (false, rest)
        } else if let Some(rest) = text.strip_prefix("mqtts://") {
            (true, rest)
        } else {
            return Err(format!("{text:?}: must start with mqtt:// or mqtts://"));
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#', '@']) {
            return Err(format!(
                "{text:?}: only a host and a port, like \"mqtt://192.168.1.10:1883\" (credentials go in username and password-file)"
            ));
        }
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("{text:?}: an IPv6 address needs its closing ']'"))?;
            match after {
                "" => (host, None),
                p => (
                    host,
                    Some(p.strip_prefix(':').ok_or_else(|| {
                        format!("{text:?}: expected ':<port>' after the IPv6 address")
                    })?),
                ),
            }
        } else {
            match rest.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(format!("{text:?}: the host is missing or not a host name"));
        }
        let port = match port {
            None => {
                if tls {
                    8883
                } else {
                    1883
                }
            }
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("{text:?}: {p:?} is not a port (1-65535)")),
            },
        };
        Ok(BrokerUrl {
            tls,
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_with_and_without_ports() {
        let u: BrokerUrl = "mqtt://192.168.1.10:1884".parse().unwrap();
        assert_eq!(
            (u.tls, u.host.as_str(), u.port),
            (false, "192.168.1.10", 1884)
        );
        let u: BrokerUrl = "mqtts://broker.hall".parse().unwrap();
        assert_eq!((u.tls, u.port), (true, 8883));
        assert_eq!(u.to_string(), "mqtts://broker.hall:8883");
        let u: BrokerUrl = "mqtt://[::1]:1999/".parse().unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 1999));
        assert_eq!(u.to_string(), "mqtt://[::1]:1999");
        assert_eq!("mqtt://h".parse::<BrokerUrl>().unwrap().port, 1883);
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        for (bad, says) in [
            ("http://h", "mqtt://"),
            ("mqtt://", "host"),
            ("mqtt://h:0", "port"),
            ("mqtt://h:99999", "port"),
            ("mqtt://u:p@h", "password-file"),
            ("mqtt://h/topic", "only a host"),
            ("mqtt://[::1", "']'"),
        ] {
            let e = bad.parse::<BrokerUrl>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
