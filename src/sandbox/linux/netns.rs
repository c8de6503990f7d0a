//! The runner's network namespace with only a loopback and a bridge to the proxy (Linux): the
//! launcher, inside the new namespace, brings `lo` up, listens there on 127.0.0.1 (the proxy's
//! port, and each loopback port forwarded as it is) and hands the listeners to the tool over a
//! socket pair made before it started; the tool accepts on them from its own namespace
//! (proxy.rs) and connects out from there. The runner has no other interface: no UDP or DNS
//! reaches anything.
//!
//! Not for: what is allowed (hosts.rs), nor the bytes (proxy.rs).

use std::io::{IoSlice, IoSliceMut};
use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use nix::sys::socket::{ControlMessage, ControlMessageOwned, MsgFlags, recvmsg, sendmsg};

use crate::sandbox::policy::ProxyPlan;
use crate::sandbox::proxy::{Proxy, Role};

/// The descriptor the launcher finds its end of the socket pair at.
pub(super) const LAUNCHER_FD: RawFd = 3;

/// In the launcher, right after it entered the new network namespace: `lo` up, the listeners
/// bound, handed to the tool, and this process's copies closed.
pub(super) fn hand_listeners(plan: &ProxyPlan) -> Result<(), String> {
    loopback_up()?;
    let mut listeners: Vec<(u16, TcpListener)> = Vec::new();
    let bind = |addr: &str, port: u16| {
        TcpListener::bind((addr, port))
            .map_err(|e| format!("cannot listen on {addr}:{port} in the runner's network: {e}"))
    };
    listeners.push((plan.port, bind("127.0.0.1", plan.port)?));
    for &port in &plan.forwards {
        listeners.push((port, bind("127.0.0.1", port)?));
        // Many clients try `localhost` as ::1 first; a kernel without IPv6 has none.
        if let Ok(v6) = bind("::1", port) {
            listeners.push((port, v6));
        }
    }
    let ports: Vec<u8> = listeners
        .iter()
        .flat_map(|(port, _)| port.to_be_bytes())
        .collect();
    let fds: Vec<RawFd> = listeners.iter().map(|(_, l)| l.as_raw_fd()).collect();
    // SAFETY: LAUNCHER_FD is the socket pair's end the tool placed there for this process
    // (process/mod.rs, `Launcher::descriptor`); nothing else in the launcher owns it.
    let pair = unsafe { OwnedFd::from_raw_fd(LAUNCHER_FD) };
    sendmsg::<()>(
        pair.as_raw_fd(),
        &[IoSlice::new(&ports)],
        &[ControlMessage::ScmRights(&fds)],
        MsgFlags::empty(),
        None,
    )
    .map_err(|e| format!("cannot hand the runner's listeners to the tool: {e}"))?;
    Ok(())
}

/// Bring the namespace's loopback up (`SIOCSIFFLAGS`): the launcher owns the user namespace
/// that owns the network namespace, so it may, as root or not.
fn loopback_up() -> Result<(), String> {
    let sock = std::net::UdpSocket::bind("0.0.0.0:0")
        .map_err(|e| format!("cannot open a socket to bring lo up: {e}"))?;
    // SAFETY: ifreq is plain data (a name and a union of integers and addresses): all zeroes is
    // a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS reads the name and writes the flags of the ifreq we own, for the
    // duration of the call; the socket is open.
    if unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS as _, &mut req) } != 0 {
        return Err(format!(
            "cannot read lo's flags: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: SIOCGIFFLAGS filled `ifru_flags`, the member read and written here.
    unsafe { req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short };
    // SAFETY: as above; SIOCSIFFLAGS only reads the ifreq.
    if unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS as _, &req) } != 0 {
        return Err(format!(
            "cannot bring lo up in the runner's network: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// In the tool: wait (on a thread) for the launcher's listeners on `pair` and serve each with
/// `proxy`: the proxy's port as the proxy, any other as a forward to the same loopback port on
/// this side. Ends when they came, or the launcher is gone, or the proxy stopped.
pub(in crate::sandbox) fn receive(
    pair: UnixStream,
    proxy: &Arc<Proxy>,
    plan: &ProxyPlan,
    forwards: Vec<crate::sandbox::hosts::Host>,
) {
    let proxy = Arc::clone(proxy);
    let proxy_port = plan.port;
    proxy.clone().on_thread(move || {
        use std::os::fd::AsFd;
        while !proxy.stopped() {
            if !crate::sandbox::proxy::readable(pair.as_fd()) {
                continue;
            }
            let mut ports = [0u8; 512];
            let mut space = nix::cmsg_space!([RawFd; 128]);
            let mut iov = [IoSliceMut::new(&mut ports)];
            let Ok(msg) = recvmsg::<()>(
                pair.as_raw_fd(),
                &mut iov,
                Some(&mut space),
                MsgFlags::MSG_CMSG_CLOEXEC,
            ) else {
                return;
            };
            let got = msg.bytes;
            let fds: Vec<RawFd> = msg
                .cmsgs()
                .into_iter()
                .flatten()
                .filter_map(|c| match c {
                    ControlMessageOwned::ScmRights(fds) => Some(fds),
                    _ => None,
                })
                .flatten()
                .collect();
            for (i, fd) in fds.into_iter().enumerate() {
                // SAFETY: the kernel just installed `fd` in this process for us (SCM_RIGHTS);
                // nothing else owns it.
                let listener = TcpListener::from(unsafe { OwnedFd::from_raw_fd(fd) });
                let Some(port) = ports
                    .get(2 * i..2 * i + 2)
                    .filter(|_| 2 * i + 2 <= got)
                    .map(|b| u16::from_be_bytes([b[0], b[1]]))
                else {
                    continue;
                };
                let role = if port == proxy_port {
                    Role::Proxy
                } else {
                    match forwards.iter().find(|h| h.port == Some(port)) {
                        Some(host) => Role::Forward(host.clone()),
                        None => continue,
                    }
                };
                proxy.serve(listener, role);
            }
            return;
        }
    });
}
