//! A runner that keeps the network reaches only its allowed hosts, through the tool's proxy: a
//! hostile runner tries to send a secret to servers standing in for the internet on the host's
//! loopback — through the proxy to an allowed host and to others, by TCP to the IPv4 and IPv6
//! loopback, in a DNS-like UDP datagram and to an abstract UNIX socket. Only the allowed host gets
//! it, the transcript records every connection and the terminal names each refused host once;
//! with `--sandbox off` every direct attempt arrives (shown, so that nothing here passes by
//! accident). Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::time::Duration;

use crate::sandbox::{Target, Variant, offer};
use crate::util::{stderr, stdout};

/// Servers on the host that note what reaches them.
struct Outside {
    allowed: TcpListener,
    other: TcpListener,
    other6: Option<TcpListener>,
    udp: UdpSocket,
    unix: UnixListener,
    abstract_name: String,
}

impl Outside {
    fn start() -> Outside {
        use std::os::linux::net::SocketAddrExt;
        let tcp = |addr: &str| {
            let l = TcpListener::bind(addr).unwrap();
            l.set_nonblocking(true).unwrap();
            l
        };
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let abstract_name = format!(
            "interview-net-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
        let unix = UnixListener::bind_addr(&addr).unwrap();
        unix.set_nonblocking(true).unwrap();
        Outside {
            allowed: tcp("127.0.0.1:0"),
            other: tcp("127.0.0.1:0"),
            // A machine without IPv6 has no ::1 to reach.
            other6: TcpListener::bind("[::1]:0").ok().inspect(|l| {
                l.set_nonblocking(true).unwrap();
            }),
            udp,
            unix,
            abstract_name,
        }
    }

    fn port(l: &TcpListener) -> String {
        l.local_addr().unwrap().port().to_string()
    }

    /// What each server got, as `NAME:BYTES` lines, in order.
    fn arrived(&self) -> Vec<String> {
        let mut got = Vec::new();
        let mut drain = |name: &str, stream: &mut dyn Read| {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            got.push(format!("{name}:{}", String::from_utf8_lossy(&bytes)));
        };
        for (name, l) in [
            ("allowed", Some(&self.allowed)),
            ("other", Some(&self.other)),
        ]
        .into_iter()
        .chain([("other6", self.other6.as_ref())])
        {
            while let Some(Ok((mut s, _))) = l.map(TcpListener::accept) {
                s.set_nonblocking(false).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
                drain(name, &mut s);
            }
        }
        while let Ok((mut s, _)) = self.unix.accept() {
            s.set_nonblocking(false).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            drain("abstract", &mut s);
        }
        let mut buf = [0u8; 512];
        if let Ok(n) = self.udp.recv(&mut buf) {
            got.push(format!("udp:{}", String::from_utf8_lossy(&buf[..n])));
        }
        got
    }
}

/// Run the hostile runner with `allow_hosts` naming the allowed server in the person's own
/// config (and the other one in the repository's, which may not add a host).
fn run(variant: Variant) -> (Target, Outside, String) {
    let target = Target::new("net");
    let outside = Outside::start();
    let (allowed, other) = (
        Outside::port(&outside.allowed),
        Outside::port(&outside.other),
    );
    let other6 = outside.other6.as_ref().map_or("9".into(), Outside::port);
    let udp = outside.udp.local_addr().unwrap().port().to_string();
    let local = target.repo.path().join(".interview/config.toml");
    let mut text = std::fs::read_to_string(&local).unwrap_or_default();
    text.insert_str(0, &format!("allow_hosts = [\"127.0.0.1:{allowed}\"]\n"));
    std::fs::write(&local, text).unwrap();
    target.repo.write(
        "interview.toml",
        &format!("allow_hosts = [\"127.0.0.1:{other}\", \"*.evil.test\"]\n"),
    );
    target.repo.git(&["add", "interview.toml"]);
    target.repo.git(&["commit", "-qm", "config"]);
    let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
    envs.extend([
        ("SANDBOX_ALLOWED_PORT", allowed.as_str()),
        ("SANDBOX_OTHER_PORT", other.as_str()),
        ("SANDBOX_OTHER6_PORT", other6.as_str()),
        ("SANDBOX_UDP_PORT", udp.as_str()),
        ("SANDBOX_ABSTRACT", outside.abstract_name.as_str()),
    ]);
    let out = target.run("sandbox/tries-net.sh", variant.args(), &envs);
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{variant:?}: {screen}");
    let tried = std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/net.txt"))
        .unwrap_or_default();
    (target, outside, format!("{screen}\ntried:\n{tried}"))
}

/// The connections the transcript records, as `HOST:PORT allowed|refused`, sorted.
fn recorded(target: &Target) -> Vec<String> {
    let text = std::fs::read_to_string(target.repo.session_dir().join("transcript.jsonl"))
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "connection")
        .map(|e| {
            let verdict = if e["allowed"] == true {
                "allowed"
            } else {
                "refused"
            };
            format!("{}:{} {verdict}", e["host"].as_str().unwrap(), e["port"])
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn a_runner_reaches_its_allowed_host_through_the_proxy_and_nothing_else() {
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    let (target, outside, screen) = run(Variant::Default);
    let allowed = Outside::port(&outside.allowed);
    let other = Outside::port(&outside.other);
    assert_eq!(
        outside.arrived(),
        ["allowed:SECRET-THROUGH-PROXY"],
        "{screen}"
    );
    let mut expected = vec![
        format!("127.0.0.1:{allowed} allowed"),
        format!("127.0.0.1:{other} refused"),
        "secret.evil.test:443 refused".to_string(),
    ];
    expected.sort();
    assert_eq!(recorded(&target), expected, "{screen}");
    // Each refused host named once at the terminal; the repository's hosts were not taken.
    for host in [format!("127.0.0.1:{other}"), "secret.evil.test:443".into()] {
        let said = format!("connection to {host} was refused");
        assert_eq!(screen.matches(&said).count(), 1, "{said}: {screen}");
    }
    assert!(
        screen.contains("interview.toml: allow_hosts = "),
        "the repository's allow_hosts is ignored with a warning: {screen}"
    );
}

#[test]
fn without_the_sandbox_every_direct_attempt_arrives() {
    let (_target, outside, screen) = run(Variant::Off);
    let mut arrived = outside.arrived();
    arrived.sort();
    let mut expected = vec![
        "abstract:SECRET-UNIX".to_string(),
        "other:SECRET-TCP4".into(),
    ];
    if outside.other6.is_some() {
        expected.push("other6:SECRET-TCP6".into());
    }
    expected.sort();
    let udp = arrived
        .iter()
        .any(|a| a.starts_with("udp:") && a.contains("SECRET"));
    arrived.retain(|a| !a.starts_with("udp:"));
    assert_eq!(arrived, expected, "{screen}");
    assert!(
        udp,
        "the DNS-like datagram arrives without the sandbox: {screen}"
    );
}

/// With Landlock alone (no user namespaces, so no network namespace), the proxy listens on the
/// host's loopback and Landlock lets the runner connect to its port only: the allowed host is
/// reached through it, no other TCP port; UDP is open there (the start line says so).
#[test]
fn with_landlock_alone_tcp_goes_only_to_the_proxy_and_udp_is_said_open() {
    assert!(offer().landlock, "needs Landlock");
    let (target, outside, screen) = run(Variant::LandlockOnly);
    let mut arrived = outside.arrived();
    let udp = arrived.iter().any(|a| a.starts_with("udp:"));
    arrived.retain(|a| !a.starts_with("udp:"));
    assert_eq!(arrived, ["allowed:SECRET-THROUGH-PROXY"], "{screen}");
    assert!(udp, "UDP is open with Landlock alone: {screen}");
    assert!(
        screen.contains("UDP open"),
        "the start line says so: {screen}"
    );
    let other = Outside::port(&outside.other);
    assert!(
        recorded(&target).contains(&format!("127.0.0.1:{other} refused")),
        "{screen}"
    );
}
