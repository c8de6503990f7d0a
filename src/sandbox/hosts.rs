//! The hosts a runner may reach through the proxy (proxy.rs): its preset's own (named in its
//! file under `runner/presets/`), a base-URL override's host, the model runner's server, and
//! what the person's own config adds (`allow_hosts`). Nothing else is ever connected to.
//!
//! Not for: carrying the bytes (proxy.rs), or the namespace the runner lives in (linux/netns.rs).

use serde::{Deserialize, Serialize};

/// One allowed host: a name or an address, or `*.example.com` for every name under it; with a
/// port, only that port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct Host {
    /// Lower case, without brackets (`::1`), or `*.` and a domain.
    pub name: String,
    pub port: Option<u16>,
}

impl Host {
    /// `api.example.com`, `api.example.com:443`, `*.example.com`, `127.0.0.1:8080`,
    /// `[::1]:8080`; `None` for anything else (a scheme, a path, a space).
    pub(crate) fn parse(text: &str) -> Option<Host> {
        let text = text.trim();
        if text.is_empty() || text.contains(['/', ' ', '\t', '@', '?', '#']) {
            return None;
        }
        let (name, port) = if let Some(rest) = text.strip_prefix('[') {
            let (name, after) = rest.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p.parse().ok()?),
                None if after.is_empty() => None,
                None => return None,
            };
            (name, port)
        } else {
            match text.rsplit_once(':') {
                Some((name, port)) if !name.contains(':') => (name, Some(port.parse().ok()?)),
                // A bare IPv6 address.
                Some(_) => (text, None),
                None => (text, None),
            }
        };
        let name = name.to_ascii_lowercase();
        let wildcard = name.strip_prefix("*.").unwrap_or(&name);
        let valid = !wildcard.is_empty()
            && wildcard
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
        valid.then_some(Host { name, port })
    }

    /// The host and port of a URL (`https://api.example.com/v1`: port 443; `http://…`: 80).
    pub(crate) fn of_url(url: &str) -> Option<Host> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let default = match scheme.to_ascii_lowercase().as_str() {
            "https" | "wss" => 443,
            "http" | "ws" => 80,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next()?;
        let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
        let host = Host::parse(authority)?;
        Some(Host {
            port: host.port.or(Some(default)),
            ..host
        })
    }

    /// Whether a connection to `name`:`port` is this host's.
    pub(crate) fn admits(&self, name: &str, port: u16) -> bool {
        let name = name.trim_start_matches('[').trim_end_matches(']');
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let by_name = match self.name.strip_prefix("*.") {
            Some(domain) => name.ends_with(&format!(".{domain}")),
            None => name == self.name,
        };
        by_name && self.port.is_none_or(|p| p == port)
    }

    /// This machine's own loopback (`127.0.0.1`, `localhost`, `::1`): a server many clients
    /// reach without their proxy, so it is also forwarded as a port of its own.
    pub(crate) fn is_loopback(&self) -> bool {
        self.name == "localhost"
            || self.name == "::1"
            || self
                .name
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|a| a.is_loopback())
    }

    /// As the person writes it (`api.example.com`, `127.0.0.1:8080`, `[::1]:8080`).
    pub(crate) fn shown(&self) -> String {
        let name = if self.name.contains(':') {
            format!("[{}]", self.name)
        } else {
            self.name.clone()
        };
        match self.port {
            Some(port) => format!("{name}:{port}"),
            None => name,
        }
    }
}

/// The hosts of `names` (a preset's list), each one that parses.
pub(crate) fn parse_all<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Host> {
    names.into_iter().filter_map(Host::parse).collect()
}

/// The hosts of the URLs in the variables `names` of `var` (a preset's base-URL override).
pub(crate) fn of_variables(names: &[&str], var: impl Fn(&str) -> Option<String>) -> Vec<Host> {
    names
        .iter()
        .filter_map(|name| var(name))
        .filter_map(|url| Host::of_url(&url))
        .collect()
}

/// Whether `name`:`port` is one of `allowed`.
pub(crate) fn admitted(allowed: &[Host], name: &str, port: u16) -> bool {
    allowed.iter().any(|h| h.admits(name, port))
}

/// The loopback ports forwarded as they are inside the runner's network namespace.
pub(crate) fn loopback_ports(allowed: &[Host]) -> Vec<u16> {
    let mut ports: Vec<u16> = allowed
        .iter()
        .filter(|h| h.is_loopback())
        .filter_map(|h| h.port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Host {
        Host::parse(text).unwrap_or_else(|| panic!("{text} parses"))
    }

    #[test]
    fn a_host_is_a_name_or_address_with_an_optional_port() {
        assert_eq!(host("API.example.com").shown(), "api.example.com");
        assert_eq!(host("127.0.0.1:8080").port, Some(8080));
        assert_eq!(host("[::1]:8080").shown(), "[::1]:8080");
        assert_eq!(host("::1").name, "::1");
        for bad in ["", "http://x", "x/y", "a b", "x:port", "user@x", "*."] {
            assert_eq!(Host::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_url_gives_its_host_and_port() {
        let of = |u: &str| Host::of_url(u).map(|h| h.shown());
        assert_eq!(
            of("https://api.example.com/v1").as_deref(),
            Some("api.example.com:443")
        );
        assert_eq!(of("http://127.0.0.1:9/v1").as_deref(), Some("127.0.0.1:9"));
        assert_eq!(of("http://k@[::1]/").as_deref(), Some("[::1]:80"));
        assert_eq!(of("file:///x"), None);
        assert_eq!(of("example.com"), None);
    }

    #[test]
    fn only_the_named_host_and_its_port_are_admitted() {
        let allowed = vec![
            host("api.example.com"),
            host("*.cdn.test"),
            host("127.0.0.1:9"),
        ];
        assert!(admitted(&allowed, "API.example.com", 443));
        assert!(admitted(&allowed, "api.example.com.", 80));
        assert!(!admitted(&allowed, "api.example.com.evil.test", 443));
        assert!(!admitted(&allowed, "evilapi.example.com", 443));
        assert!(admitted(&allowed, "a.cdn.test", 443));
        assert!(!admitted(&allowed, "cdn.test", 443));
        assert!(admitted(&allowed, "127.0.0.1", 9));
        assert!(!admitted(&allowed, "127.0.0.1", 10));
        assert_eq!(loopback_ports(&allowed), [9]);
    }
}
