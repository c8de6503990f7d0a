//! A hook for the model runner's network test, compiled only into debug builds or with the
//! `test-hooks` feature: never into a release binary.
//!
//! `INTERVIEW_TEST_MODEL_CONNECT=PORT` makes the runner try one TCP connection to
//! 127.0.0.1:PORT before its conversation and say in a note whether it got through: the test
//! shows that the sandbox lets it reach its server's port and no other.

#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn try_connect() {
    use super::events::Event;

    let Some(port) = std::env::var("INTERVIEW_TEST_MODEL_CONNECT")
        .ok()
        .and_then(|p| p.parse::<u16>().ok())
    else {
        return;
    };
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let said =
        match std::net::TcpStream::connect_timeout(&address, std::time::Duration::from_secs(2)) {
            Ok(_) => format!("test connect to port {port}: connected"),
            Err(e) => format!("test connect to port {port}: refused ({e})"),
        };
    Event::Note { text: said }.print();
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn try_connect() {}
