use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use super::*;

/// A server on the host's loopback that answers each connection with what `reply` makes of
/// the first bytes it reads.
fn server(reply: fn(&[u8]) -> Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let _ = stream.write_all(&reply(&buf[..n]));
        }
    });
    port
}

fn proxy(allowed: &[&str]) -> (Arc<Proxy>, u16) {
    let proxy = Proxy::new(hosts::parse_all(allowed.iter().copied()));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    proxy.serve(listener, Role::Proxy);
    (proxy, port)
}

fn status_line(stream: &mut TcpStream) -> String {
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    line.trim_end().to_string()
}

#[test]
fn an_allowed_host_is_tunnelled_and_its_bytes_counted() {
    let up = server(|got| [b"echo:", got].concat());
    let (proxy, port) = proxy(&[&format!("127.0.0.1:{up}")]);
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(client, "CONNECT 127.0.0.1:{up} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut reply = [0u8; 39];
    client.read_exact(&mut reply).unwrap();
    assert_eq!(&reply[..], b"HTTP/1.1 200 Connection established\r\n\r\n");
    client.write_all(b"hello").unwrap();
    let mut echoed = String::new();
    client.read_to_string(&mut echoed).unwrap();
    assert_eq!(echoed, "echo:hello");
    drop(client);
    let log = proxy.stop();
    assert_eq!(
        log,
        [Connection {
            host: "127.0.0.1".into(),
            port: up,
            allowed: true,
            bytes_up: 5,
            bytes_down: 10,
        }]
    );
}

#[test]
fn another_host_is_refused_before_anything_is_resolved_or_sent() {
    let up = server(|_| b"never".to_vec());
    let (proxy, port) = proxy(&["api.example.com"]);
    for target in [
        format!("127.0.0.1:{up}"),
        "secret.evil.test:443".to_string(),
    ] {
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(client, "CONNECT {target} HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(status_line(&mut client), "HTTP/1.1 403 Forbidden");
    }
    let log = proxy.stop();
    // Each connection is served on a thread of its own: the log is in the order they ended.
    let mut refused: Vec<(String, bool)> =
        log.iter().map(|c| (c.host.clone(), c.allowed)).collect();
    refused.sort();
    assert_eq!(
        refused,
        [
            ("127.0.0.1".into(), false),
            ("secret.evil.test".into(), false)
        ]
    );
}

#[test]
fn a_plain_http_request_goes_to_its_host_in_origin_form_without_proxy_headers() {
    let up = server(|got| got.to_vec());
    let (proxy, port) = proxy(&[&format!("127.0.0.1:{up}")]);
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        client,
        "GET http://127.0.0.1:{up}/v1/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Authorization: k\r\n\r\n"
    )
    .unwrap();
    let mut seen = String::new();
    client.read_to_string(&mut seen).unwrap();
    assert_eq!(seen, "GET /v1/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    proxy.stop();
}

#[test]
fn a_response_streams_as_it_comes_never_held_until_it_ends() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let up = listener.local_addr().unwrap().port();
    let (release, wait) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.write_all(b"first").unwrap();
        let _ = wait.recv_timeout(Duration::from_secs(10));
        stream.write_all(b"last").unwrap();
    });
    let (proxy, port) = proxy(&[&format!("127.0.0.1:{up}")]);
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(client, "CONNECT 127.0.0.1:{up} HTTP/1.1\r\n\r\n").unwrap();
    let mut reply = [0u8; 39 + 5];
    client
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    client.read_exact(&mut reply).unwrap();
    assert!(reply.ends_with(b"first"));
    release.send(()).unwrap();
    let mut rest = String::new();
    client.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "last");
    proxy.stop();
}
