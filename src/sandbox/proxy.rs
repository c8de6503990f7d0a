//! The proxy inside the tool through which a runner that keeps the network reaches the hosts it
//! is allowed (hosts.rs), and nothing else: an HTTP CONNECT proxy, plain-HTTP requests by
//! absolute URI, and plain port forwards for a loopback server. It runs on threads of the tool,
//! outside the runner's sandbox, streams both ways as the bytes come (never a whole response),
//! and notes every connection for the turn's transcript.
//!
//! Not for: deciding the hosts (hosts.rs), or how the runner's listeners reach the tool
//! (linux/netns.rs; a listener on the host's loopback elsewhere).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use super::hosts::{self, Host};

/// One connection the runner made (or tried), as the transcript records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Connection {
    pub host: String,
    pub port: u16,
    pub allowed: bool,
    /// Bytes from the runner to the host, and back.
    pub bytes_up: u64,
    pub bytes_down: u64,
}

/// What a listener is for.
#[derive(Debug, Clone)]
pub(crate) enum Role {
    /// The proxy the runner's `HTTPS_PROXY`/`HTTP_PROXY` name.
    Proxy,
    /// A loopback port forwarded as it is to the host's own (the model runner's server, a base
    /// URL `http://127.0.0.1:PORT`): only Linux's network namespace needs one.
    #[cfg(target_os = "linux")]
    Forward(Host),
}

/// How long a request's head may take to arrive, and a host to answer a connect.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest request head read (a CONNECT line and its headers, or a plain request's).
const MAX_HEAD: usize = 64 * 1024;
/// How often a waiting listener looks whether the proxy was stopped: what a turn's end waits
/// for at most (a few wake-ups a second cost nothing measurable).
const POLL_MS: u16 = 10;

/// The proxy of one runner start: its listeners, its connections and their record.
#[derive(Default)]
pub(crate) struct Proxy {
    allowed: Vec<Host>,
    log: Mutex<Vec<Connection>>,
    /// The sockets of the connections under way: shut down when the proxy stops.
    live: Mutex<Vec<(u64, TcpStream)>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    next: AtomicU64,
    stopped: AtomicBool,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("allowed", &self.allowed)
            .finish_non_exhaustive()
    }
}

impl Proxy {
    pub(crate) fn new(allowed: Vec<Host>) -> Arc<Proxy> {
        Arc::new(Proxy {
            allowed,
            ..Proxy::default()
        })
    }

    /// Accept on `listener` until [`Proxy::stop`], each connection on a thread of its own.
    pub(crate) fn serve(self: &Arc<Self>, listener: TcpListener, role: Role) {
        let proxy = Arc::clone(self);
        self.on_thread(move || proxy.accept_loop(&listener, &role));
    }

    /// Whether [`Proxy::stop`] was called.
    pub(super) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Run `work` on a thread that [`Proxy::stop`] waits for.
    pub(super) fn on_thread(&self, work: impl FnOnce() + Send + 'static) {
        if let Ok(handle) = std::thread::Builder::new()
            .name("interview-proxy".into())
            .spawn(work)
        {
            lock(&self.threads).push(handle);
        }
    }

    fn accept_loop(self: &Arc<Self>, listener: &TcpListener, role: &Role) {
        use std::os::fd::AsFd;
        while !self.stopped() {
            if !readable(listener.as_fd()) {
                continue;
            }
            let Ok((stream, _)) = listener.accept() else {
                continue;
            };
            let (proxy, role) = (Arc::clone(self), role.clone());
            self.on_thread(move || proxy.handle(stream, &role));
        }
    }

    /// Stop: no more connections, those under way ended, their threads gone. Returns what was
    /// connected to (and refused), in order; said again, the same.
    pub(crate) fn stop(&self) -> Vec<Connection> {
        self.stopped.store(true, Ordering::SeqCst);
        // A thread may still start another connection's thread while these end: until none.
        loop {
            for (_, stream) in lock(&self.live).iter() {
                let _ = stream.shutdown(Shutdown::Both);
            }
            let threads: Vec<JoinHandle<()>> = lock(&self.threads).drain(..).collect();
            if threads.is_empty() {
                break;
            }
            for thread in threads {
                let _ = thread.join();
            }
        }
        lock(&self.log).clone()
    }

    fn note(&self, connection: Connection) {
        lock(&self.log).push(connection);
    }

    fn handle(&self, client: TcpStream, role: &Role) {
        let _ = client.set_nodelay(true);
        match role {
            #[cfg(target_os = "linux")]
            Role::Forward(host) => {
                let port = host.port.unwrap_or_default();
                match connect(&host.name, port) {
                    Ok(upstream) => {
                        let (up, down) = self.splice(client, upstream, Vec::new());
                        self.note(Connection {
                            host: host.name.clone(),
                            port,
                            allowed: true,
                            bytes_up: up,
                            bytes_down: down,
                        });
                    }
                    Err(_) => self.note(Connection {
                        host: host.name.clone(),
                        port,
                        allowed: true,
                        bytes_up: 0,
                        bytes_down: 0,
                    }),
                }
            }
            Role::Proxy => self.proxy(client),
        }
    }

    /// One connection to the proxy: its request head says where to; an allowed host is
    /// connected to and the rest streamed both ways, any other is answered 403 and named.
    fn proxy(&self, mut client: TcpStream) {
        let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
        let Some((head, rest)) = read_head(&mut client) else {
            return;
        };
        let _ = client.set_read_timeout(None);
        let Some(request) = Request::parse(&head) else {
            answer(
                &mut client,
                "400 Bad Request",
                "interview: not a proxy request\n",
            );
            return;
        };
        if !hosts::admitted(&self.allowed, &request.host, request.port) {
            let said = format!(
                "interview: {}:{} is not among the hosts this runner may reach (docs/sandbox.md: allow_hosts)\n",
                request.host, request.port
            );
            answer(&mut client, "403 Forbidden", &said);
            self.note(Connection {
                host: request.host,
                port: request.port,
                allowed: false,
                bytes_up: 0,
                bytes_down: 0,
            });
            return;
        }
        let upstream = match connect(&request.host, request.port) {
            Ok(upstream) => upstream,
            Err(e) => {
                answer(
                    &mut client,
                    "502 Bad Gateway",
                    &format!("interview: cannot reach {}: {e}\n", request.host),
                );
                self.note(Connection {
                    host: request.host,
                    port: request.port,
                    allowed: true,
                    bytes_up: 0,
                    bytes_down: 0,
                });
                return;
            }
        };
        let first: Vec<u8> = match &request.forwarded {
            None => {
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                rest
            }
            Some(forwarded) => [forwarded.as_bytes(), &rest].concat(),
        };
        let (up, down) = self.splice(client, upstream, first);
        self.note(Connection {
            host: request.host,
            port: request.port,
            allowed: true,
            bytes_up: up,
            bytes_down: down,
        });
    }

    /// Stream `client` ↔ `upstream` (after sending `first` up) until both ends are done;
    /// returns the bytes up and down.
    fn splice(&self, client: TcpStream, upstream: TcpStream, first: Vec<u8>) -> (u64, u64) {
        let _ = upstream.set_nodelay(true);
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let clones = (client.try_clone(), upstream.try_clone());
        let (Ok(client_up), Ok(mut upstream_up)) = clones else {
            return (0, 0);
        };
        {
            let mut live = lock(&self.live);
            for s in [&client, &upstream] {
                if let Ok(c) = s.try_clone() {
                    live.push((id, c));
                }
            }
        }
        if self.stopped() {
            let _ = client.shutdown(Shutdown::Both);
        }
        let up = std::thread::spawn(move || {
            let mut client_up = client_up;
            let sent = upstream_up
                .write_all(&first)
                .and_then(|()| std::io::copy(&mut client_up, &mut upstream_up));
            match sent {
                Ok(n) => {
                    let _ = upstream_up.shutdown(Shutdown::Write);
                    n + first.len() as u64
                }
                Err(_) => {
                    let _ = upstream_up.shutdown(Shutdown::Both);
                    let _ = client_up.shutdown(Shutdown::Both);
                    0
                }
            }
        });
        let (mut client, mut upstream) = (client, upstream);
        let down = match std::io::copy(&mut upstream, &mut client) {
            Ok(n) => {
                let _ = client.shutdown(Shutdown::Write);
                n
            }
            Err(_) => {
                let _ = client.shutdown(Shutdown::Both);
                let _ = upstream.shutdown(Shutdown::Both);
                0
            }
        };
        let up = up.join().unwrap_or(0);
        lock(&self.live).retain(|(i, _)| *i != id);
        (up, down)
    }
}

/// What a proxy request asks for.
struct Request {
    host: String,
    port: u16,
    /// A plain-HTTP request's head as the host gets it (origin form, no proxy headers);
    /// `None`: a CONNECT tunnel.
    forwarded: Option<String>,
}

impl Request {
    fn parse(head: &[u8]) -> Option<Request> {
        let head = std::str::from_utf8(head).ok()?;
        let (line, headers) = head.split_once("\r\n")?;
        let mut words = line.split(' ');
        let (method, target, version) = (words.next()?, words.next()?, words.next()?);
        if words.next().is_some() || !version.starts_with("HTTP/") {
            return None;
        }
        if method.eq_ignore_ascii_case("CONNECT") {
            let host = Host::parse(target)?;
            return Some(Request {
                port: host.port?,
                host: host.name,
                forwarded: None,
            });
        }
        let rest = target.strip_prefix("http://")?;
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        let host = Host::parse(authority)?;
        let kept: String = headers
            .split("\r\n")
            .filter(|h| {
                let name = h.split(':').next().unwrap_or("").trim();
                !name.eq_ignore_ascii_case("proxy-connection")
                    && !name.eq_ignore_ascii_case("proxy-authorization")
            })
            .map(|h| format!("{h}\r\n"))
            .collect();
        Some(Request {
            port: host.port.unwrap_or(80),
            host: host.name,
            forwarded: Some(format!("{method} {path} {version}\r\n{kept}")),
        })
    }
}

/// The request head (through its empty line, without it) and what came after it.
fn read_head(client: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(at + 4);
            buf.truncate(at + 2);
            return Some((buf, rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

fn answer(client: &mut TcpStream, status: &str, text: &str) {
    let _ = write!(
        client,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = client.shutdown(Shutdown::Write);
}

/// Connect to `host`:`port` from the tool's own network, each address in turn.
fn connect(host: &str, port: u16) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("no address");
    for addr in (host, port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Whether `fd` has something to read or accept within [`POLL_MS`].
pub(super) fn readable(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    matches!(poll(&mut fds, PollTimeout::from(POLL_MS)), Ok(n) if n > 0)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Name each refused host once per run of the tool, on stderr.
pub(crate) fn say_refused(connections: &[Connection]) {
    static SAID: Mutex<BTreeSet<(String, u16)>> = Mutex::new(BTreeSet::new());
    for c in connections.iter().filter(|c| !c.allowed) {
        if lock(&SAID).insert((c.host.clone(), c.port)) {
            crate::output::stderr_line(&format!(
                "interview: the runner's connection to {}:{} was refused: it is not among the hosts it may reach (add it with allow_hosts in .interview/config.toml, see docs/sandbox.md)",
                c.host, c.port
            ));
        }
    }
}

#[cfg(test)]
mod tests;
