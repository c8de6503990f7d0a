//! The Seatbelt profile a runner starts under on macOS (`/usr/bin/sandbox-exec -p PROFILE`):
//! deny by default; read and execute everywhere except terminals; write only below the roots
//! of the shared write decision ([`Writes`], the one Landlock's rules come from), never to a
//! protected path; signals and process information only within the runner's own sandbox; the
//! network to remote hosts (the CLI's model) and to named sockets of its own — for a runner
//! with its ports named (the model runner), TCP to those ports and DNS only; and a short list
//! of system services (`mach-lookup`), none of which starts a program outside the sandbox.
//!
//! The profile is built as data ([`rules`]) and then written out ([`render`]), so the tests can
//! ask what it decides for a path without a Mac. It compiles on every platform; only the
//! launcher on macOS uses it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::sandbox::policy::Policy;
use crate::sandbox::writes::Writes;

/// The program that applies a profile and executes the command under it.
pub(crate) const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Allow or deny; in SBPL the last rule that matches an operation decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Allow,
    Deny,
}

/// What a rule applies to (several in one rule: any of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Filter {
    /// The path and everything below it.
    Subpath(PathBuf),
    /// Exactly this path.
    Literal(PathBuf),
    /// Paths matching this regular expression (our own constants, never a user's path).
    Regex(&'static str),
    /// Processes in the same sandbox (for signals and process information).
    SameSandbox,
    /// A system service by its Mach name.
    Service(&'static str),
    /// Any remote IP address and port.
    AnyRemoteIp,
    /// A TCP connection to this port, on any host.
    RemoteTcpPort(u16),
    /// A TCP connection to this port on this machine's loopback (the tool's proxy).
    LoopbackTcpPort(u16),
    /// Local IP addresses of this machine's loopback.
    Localhost,
    /// A UNIX socket to connect to, at a path below this one.
    RemoteSocket(PathBuf),
    /// A UNIX socket to bind, at a path below this one.
    LocalSocket(PathBuf),
}

/// One rule: an action, the operations it is about (SBPL names; a trailing `*` is every
/// operation with that prefix), and its filters (none: every object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub action: Action,
    pub ops: &'static [&'static str],
    pub filters: Vec<Filter>,
}

fn rule(action: Action, ops: &'static [&'static str], filters: Vec<Filter>) -> Rule {
    Rule {
        action,
        ops,
        filters,
    }
}

/// System services a command-line agent needs, by Mach name, and why. Left out on purpose:
/// LaunchServices (`open`, which starts an application outside the sandbox), the pasteboard,
/// AppleEvents, the window server, and every other server that acts for its client.
const SERVICES: &[&str] = &[
    // User and group lookups (getpwuid: the home directory, `whoami`, git's identity).
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.opendirectoryd.membership",
    // confstr(_CS_DARWIN_USER_TEMP_DIR) and the like.
    "com.apple.bsd.dirhelper",
    // DNS and proxy configuration.
    "com.apple.SystemConfiguration.DNSConfiguration",
    "com.apple.SystemConfiguration.configd",
    "com.apple.dnssd.service",
    // TLS certificate trust (curl, git over https, anything built on Security.framework).
    "com.apple.SecurityServer",
    "com.apple.trustd.agent",
    "com.apple.ocspd",
    "com.apple.networkd",
    // Change notifications libSystem itself listens to (time zone, directory caches).
    "com.apple.system.notification_center",
];

/// Terminals: never opened, not even for reading (a runner could read the person's keys or
/// write escape sequences to the screen).
const TERMINALS: &[&str] = &["^/dev/tty", "^/dev/pty", "^/dev/ptmx$", "^/dev/console$"];

/// The resolver's socket: the one named socket outside the runner's own directories it may
/// connect to (DNS).
const RESOLVER: &str = "/private/var/run/mDNSResponder";

/// The profile's rules for `writes`, in order. With `connect_ports` (the model runner) the
/// network is TCP to those ports and the resolver's socket only: no other connection, no
/// socket of its own, nothing bound.
pub(crate) fn rules(writes: &Writes, connect_ports: Option<&[u16]>) -> Vec<Rule> {
    use Action::{Allow, Deny};
    use Filter::*;
    let mut out = vec![
        rule(Deny, &["default"], vec![]),
        // Reads and executes everywhere, as on Linux (reads are not what the sandbox stops).
        rule(Allow, &["file-read*"], vec![]),
        rule(Allow, &["process-exec", "process-fork"], vec![]),
        rule(Allow, &["signal"], vec![SameSandbox]),
        rule(Allow, &["process-info*"], vec![SameSandbox]),
        rule(Allow, &["sysctl-read"], vec![]),
        rule(Allow, &["user-preference-read"], vec![]),
        // Host facts (CPU count: Node's os.cpus()).
        rule(Allow, &["mach-host*"], vec![]),
        // Python's multiprocessing locks.
        rule(Allow, &["ipc-posix-sem"], vec![]),
        rule(
            Allow,
            &["mach-lookup"],
            SERVICES.iter().map(|s| Service(s)).collect(),
        ),
        rule(Allow, &["system-socket"], vec![]),
    ];
    out.extend(network_rules(writes, connect_ports));
    out.extend(write_rules(writes));
    out.push(rule(
        Deny,
        &["file-read*", "file-write*", "file-ioctl"],
        TERMINALS.iter().map(|r| Regex(r)).collect(),
    ));
    out
}

/// The network: for the model runner (`connect_ports`) its server's port (and a proxy's) and
/// DNS; for a CLI, its model anywhere and named sockets only its own and DNS's.
fn network_rules(writes: &Writes, connect_ports: Option<&[u16]>) -> Vec<Rule> {
    use Action::Allow;
    use Filter::*;
    let roots = || writes.roots.iter().cloned();
    let Some(ports) = connect_ports else {
        return vec![
            rule(Allow, &["network-outbound"], vec![AnyRemoteIp]),
            rule(
                Allow,
                &["network-outbound"],
                std::iter::once(PathBuf::from(RESOLVER))
                    .chain(roots())
                    .map(RemoteSocket)
                    .collect(),
            ),
            rule(Allow, &["network-bind", "network-inbound"], vec![Localhost]),
            rule(
                Allow,
                &["network-bind", "network-inbound"],
                roots().map(LocalSocket).collect(),
            ),
        ];
    };
    let mut out = Vec::new();
    if !ports.is_empty() {
        out.push(rule(
            Allow,
            &["network-outbound"],
            ports.iter().map(|p| RemoteTcpPort(*p)).collect(),
        ));
    }
    out.push(rule(
        Allow,
        &["network-outbound"],
        vec![RemoteSocket(PathBuf::from(RESOLVER))],
    ));
    out
}

/// Writes: below the roots only, the devices on the allow list, never a protected path.
fn write_rules(writes: &Writes) -> Vec<Rule> {
    use Action::{Allow, Deny};
    use Filter::*;
    let mut out = vec![
        rule(
            Allow,
            &["file-write*"],
            writes.roots.iter().cloned().map(Subpath).collect(),
        ),
        rule(
            Allow,
            &["file-write-data", "file-ioctl"],
            writes.devices.iter().cloned().map(Literal).collect(),
        ),
        // Opening /dev/fd/N duplicates a descriptor the runner already holds, with no more
        // rights than it has (a shell's `>/dev/stderr`).
        rule(
            Allow,
            &["file-write-data"],
            vec![Subpath(PathBuf::from("/dev/fd"))],
        ),
    ];
    if !writes.protected.is_empty() {
        out.push(rule(
            Deny,
            &["file-write*"],
            writes.protected.iter().cloned().map(Subpath).collect(),
        ));
    }
    out
}

/// The person's credential stores (secrets.rs), by the paths given and their real paths: not
/// even read. Last, so that it wins over the rules above that allow reading everything.
pub(crate) fn hide(hidden: &[PathBuf]) -> Rule {
    let mut filters: Vec<Filter> = Vec::new();
    for path in hidden {
        filters.push(Filter::Subpath(path.clone()));
        if let Ok(real) = std::fs::canonicalize(path)
            && &real != path
        {
            filters.push(Filter::Subpath(real));
        }
    }
    rule(Action::Deny, &["file-read*"], filters)
}

/// HOME by allow list (home.rs): nothing in it read but what the runner is shown to need,
/// and the listings of HOME and of the directories on the way to it. Before [`hide`], so that
/// a store inside a shown path stays hidden.
pub(crate) fn home_allow_list(view: &crate::sandbox::home::HomeView) -> Vec<Rule> {
    let home = &view.home;
    let mut shown = vec![Filter::Literal(home.clone())];
    for rel in &view.shown {
        let mut dir = rel.parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            shown.push(Filter::Literal(home.join(d)));
            dir = d.parent();
        }
        shown.push(Filter::Subpath(home.join(rel)));
    }
    vec![
        rule(
            Action::Deny,
            &["file-read*"],
            vec![Filter::Subpath(home.clone())],
        ),
        rule(Action::Allow, &["file-read*"], shown),
    ]
}

/// The profile text for `writes` and `connect_ports` (see [`rules`]). Fails on a path that is
/// not UTF-8 (APFS paths always are).
#[cfg(any(not(target_os = "linux"), test))]
pub(crate) fn profile(writes: &Writes, connect_ports: Option<&[u16]>) -> Result<String, String> {
    render(&rules(writes, connect_ports))
}

/// Write rules out as SBPL.
pub(crate) fn render(rules: &[Rule]) -> Result<String, String> {
    let mut text = String::from("(version 1)\n");
    for r in rules {
        text.push('(');
        text.push_str(match r.action {
            Action::Allow => "allow",
            Action::Deny => "deny",
        });
        for op in r.ops {
            text.push(' ');
            text.push_str(op);
        }
        for f in &r.filters {
            text.push_str("\n  ");
            text.push_str(&filter(f)?);
        }
        text.push_str(")\n");
    }
    Ok(text)
}

fn filter(f: &Filter) -> Result<String, String> {
    Ok(match f {
        Filter::Subpath(p) => format!("(subpath {})", path_literal(p)?),
        Filter::Literal(p) => format!("(literal {})", path_literal(p)?),
        Filter::Regex(r) => format!("(regex #{})", string_literal(r)),
        Filter::SameSandbox => "(target same-sandbox)".into(),
        Filter::Service(name) => format!("(global-name {})", string_literal(name)),
        Filter::AnyRemoteIp => "(remote ip \"*:*\")".into(),
        Filter::RemoteTcpPort(port) => format!("(remote tcp \"*:{port}\")"),
        Filter::LoopbackTcpPort(port) => format!("(remote tcp \"localhost:{port}\")"),
        Filter::Localhost => "(local ip \"localhost:*\")".into(),
        Filter::RemoteSocket(p) => format!("(remote unix-socket (subpath {}))", path_literal(p)?),
        Filter::LocalSocket(p) => format!("(local unix-socket (subpath {}))", path_literal(p)?),
    })
}

fn path_literal(path: &Path) -> Result<String, String> {
    let text = path.to_str().ok_or_else(|| {
        format!(
            "{}: not UTF-8, cannot be named in a Seatbelt profile",
            path.display()
        )
    })?;
    Ok(string_literal(text))
}

/// An SBPL string literal: `"` and `\` escaped, printable ASCII as it is (parentheses too:
/// inside a string they are text), everything else as `\uXXXX` (UTF-16), the escapes the
/// profile reader understands (as Chromium's sandbox writes them).
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The command line that starts `argv` (a resolved program and its arguments) under the
/// profile for `policy`: `sandbox-exec -p PROFILE -- PROGRAM ARGS…`. Protected paths are named
/// as given and as their real paths (Seatbelt matches real paths: `/tmp` is `/private/tmp`).
pub(crate) fn wrap(policy: &Policy, argv: &[OsString]) -> Result<Vec<OsString>, String> {
    let mut writes = Writes::decide(policy);
    let real = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|r| !paths.contains(r))
            .collect()
    };
    let (protected, roots) = (real(&writes.protected), real(&writes.roots));
    writes.protected.extend(protected);
    writes.roots.extend(roots);
    // `--network off`: as the model runner's rule with no port at all (the resolver's socket
    // stays: name lookups go through it).
    let ports = if policy.network_off {
        Some(&[][..])
    } else {
        policy.connect_ports.as_deref()
    };
    let mut rules = rules(&writes, ports);
    if policy.proxy.is_some() {
        // Through the tool's proxy: its port (and the loopback servers') on this machine only.
        for rule in &mut rules {
            for f in &mut rule.filters {
                if let Filter::RemoteTcpPort(port) = *f {
                    *f = Filter::LoopbackTcpPort(port);
                }
            }
        }
    }
    if let Some(view) = &policy.home {
        rules.extend(home_allow_list(view));
    }
    // Never a rule without filters: `(deny file-read*)` alone would deny every read.
    if !policy.hidden.is_empty() {
        rules.push(hide(&policy.hidden));
    }
    let profile = render(&rules)?;
    let mut out: Vec<OsString> = vec![
        SANDBOX_EXEC.into(),
        "-p".into(),
        profile.into(),
        "--".into(),
    ];
    out.extend(argv.iter().cloned());
    Ok(out)
}

#[cfg(test)]
mod tests;
