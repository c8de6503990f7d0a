//! The profile generator, run on every platform: what the profile decides for each path class
//! (asked of the rules themselves, the way Seatbelt reads them: the last matching rule wins),
//! and that its text reads back to the same paths.

use std::path::{Path, PathBuf};

use super::*;

/// A policy as the tool would make it for one turn.
fn policy(tmp: &str, writable: &[&str], throwaway: &[&str], protected: &[&str]) -> Policy {
    let paths = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
    Policy {
        tool_pid: 1,
        landlock: false,
        namespaces: false,
        seatbelt: true,
        tmp: PathBuf::from(tmp),
        writable: paths(writable),
        protected: paths(protected),
        visible: Vec::new(),
        views: paths(throwaway)
            .into_iter()
            .map(|real| crate::sandbox::state::View {
                upper: real.join("upper"),
                work: real.join("work"),
                real,
            })
            .collect(),
        ..Policy::default()
    }
}

const HOME: &str = "/Users/ann";
const WORKTREE: &str = "/Users/ann/src/app";
const GITDIR: &str = "/Users/ann/src/app/.git";
const OUT: &str = "/Users/ann/Library/Caches/interview/turn-3/out";
const TMP: &str = "/private/var/folders/xy/T/interview-turn-abc";
const STATE: &str = "/Users/ann/.claude";
const THROWAWAY: &str = "/Users/ann/.codex";

fn turn() -> Policy {
    policy(
        TMP,
        &[OUT, STATE],
        &[THROWAWAY],
        &[WORKTREE, GITDIR, "/Users/ann/.gitconfig"],
    )
}

fn op_matches(rule_op: &str, op: &str) -> bool {
    rule_op == "default"
        || rule_op == op
        || rule_op
            .strip_suffix('*')
            .is_some_and(|prefix| op.starts_with(prefix))
}

fn path_matches(filter: &Filter, path: &Path) -> bool {
    match filter {
        Filter::Subpath(p) => path.starts_with(p),
        Filter::Literal(p) => path == p,
        Filter::Regex(r) => regex::Regex::new(r)
            .unwrap()
            .is_match(path.to_str().unwrap()),
        _ => false,
    }
}

/// What the profile decides for `op` on `path`.
fn verdict(rules: &[Rule], op: &str, path: &str) -> Action {
    let path = Path::new(path);
    let mut decided = None;
    for r in rules {
        if r.ops.iter().any(|o| op_matches(o, op))
            && (r.filters.is_empty() || r.filters.iter().any(|f| path_matches(f, path)))
        {
            decided = Some(r.action);
        }
    }
    decided.expect("the profile starts with (deny default)")
}

fn writes(rules: &[Rule], path: &str) -> bool {
    [
        "file-write-data",
        "file-write-create",
        "file-write-unlink",
        "file-write-mode",
    ]
    .iter()
    .all(|op| verdict(rules, op, path) == Action::Allow)
}

fn denies_every_write(rules: &[Rule], path: &str) -> bool {
    [
        "file-write-data",
        "file-write-create",
        "file-write-unlink",
        "file-write-mode",
        "file-write-owner",
        "file-write-times",
        "file-write-xattr",
        "file-ioctl",
    ]
    .iter()
    .all(|op| verdict(rules, op, path) == Action::Deny)
}

#[test]
fn out_tmpdir_and_the_state_views_are_writable_below_them() {
    let rules = rules(&Writes::decide(&turn()), None);
    for root in [OUT, TMP, STATE, THROWAWAY] {
        assert!(writes(&rules, root), "{root}");
        assert!(writes(&rules, &format!("{root}/a/b.txt")), "{root}");
    }
    // A sibling whose name merely starts the same is not below the root.
    assert!(denies_every_write(&rules, &format!("{OUT}side/x")));
}

#[test]
fn no_rule_lets_the_worktree_the_git_dir_home_or_git_config_be_written() {
    let rules = rules(&Writes::decide(&turn()), None);
    for path in [
        WORKTREE,
        &format!("{WORKTREE}/README.md"),
        GITDIR,
        &format!("{GITDIR}/config"),
        &format!("{GITDIR}/hooks/pre-commit"),
        HOME,
        &format!("{HOME}/.bashrc"),
        &format!("{HOME}/.ssh/authorized_keys"),
        "/Users/ann/.gitconfig",
        "/etc/gitconfig",
        "/usr/local/bin/git",
        "/private/tmp/x",
    ] {
        assert!(denies_every_write(&rules, path), "{path}");
        assert_eq!(
            verdict(&rules, "file-read-data", path),
            Action::Allow,
            "{path}"
        );
    }
}

#[test]
fn a_protected_path_inside_a_writable_root_stays_protected() {
    let p = policy(TMP, &[HOME], &[], &[WORKTREE, GITDIR]);
    let rules = rules(&Writes::decide(&p), None);
    assert!(writes(&rules, &format!("{HOME}/notes.txt")));
    assert!(denies_every_write(
        &rules,
        &format!("{WORKTREE}/src/main.rs")
    ));
    assert!(denies_every_write(&rules, &format!("{GITDIR}/HEAD")));
}

#[test]
fn terminals_cannot_even_be_opened_for_reading() {
    let rules = rules(&Writes::decide(&turn()), None);
    for tty in [
        "/dev/tty",
        "/dev/ttys003",
        "/dev/ptmx",
        "/dev/ptyp0",
        "/dev/console",
    ] {
        assert!(denies_every_write(&rules, tty), "{tty}");
        assert_eq!(
            verdict(&rules, "file-read-data", tty),
            Action::Deny,
            "{tty}"
        );
    }
    // The harmless devices stay usable.
    for dev in ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"] {
        assert_eq!(
            verdict(&rules, "file-write-data", dev),
            Action::Allow,
            "{dev}"
        );
        assert_eq!(
            verdict(&rules, "file-read-data", dev),
            Action::Allow,
            "{dev}"
        );
        assert_eq!(
            verdict(&rules, "file-write-unlink", dev),
            Action::Deny,
            "{dev}"
        );
    }
}

#[test]
fn signals_process_information_and_services_stay_inside() {
    let rules = rules(&Writes::decide(&turn()), None);
    let find = |op: &str| -> Vec<&Rule> {
        rules
            .iter()
            .filter(|r| r.action == Action::Allow && r.ops.iter().any(|o| op_matches(o, op)))
            .collect()
    };
    for op in ["signal", "process-info-pidinfo"] {
        for r in find(op) {
            assert_eq!(r.filters, [Filter::SameSandbox], "{op}");
        }
    }
    let services: Vec<&Filter> = find("mach-lookup")
        .iter()
        .flat_map(|r| &r.filters)
        .collect();
    assert!(!services.is_empty());
    for s in services {
        let Filter::Service(name) = s else {
            panic!("a mach-lookup allowed beyond named services: {s:?}")
        };
        // LaunchServices and the pasteboard would act outside the sandbox.
        assert!(
            !name.contains("lsd") && !name.contains("coreservices"),
            "{name}"
        );
        assert!(!name.contains("pasteboard"), "{name}");
    }
    // Named sockets: the resolver's and the runner's own only.
    for r in find("network-outbound") {
        for f in &r.filters {
            if let Filter::RemoteSocket(p) = f {
                assert!(
                    p == Path::new(RESOLVER) || Writes::decide(&turn()).roots.contains(p),
                    "{p:?}"
                );
            }
        }
    }
}

#[test]
fn the_linux_and_macos_rules_come_from_one_decision() {
    let decided = Writes::decide(&turn());
    // Seatbelt: the subpaths allowed for writing are exactly the decision's roots.
    let rules = rules(&decided, None);
    let mut allowed: Vec<PathBuf> = rules
        .iter()
        .filter(|r| r.action == Action::Allow && r.ops.contains(&"file-write*"))
        .flat_map(|r| &r.filters)
        .map(|f| match f {
            Filter::Subpath(p) => p.clone(),
            other => panic!("file-write* allowed for {other:?}"),
        })
        .collect();
    allowed.sort();
    assert_eq!(allowed, decided.roots);
    let mut expected: Vec<PathBuf> = [OUT, STATE, THROWAWAY, TMP]
        .iter()
        .map(PathBuf::from)
        .collect();
    expected.sort();
    assert_eq!(decided.roots, expected);
    // Landlock: linux/landlock.rs grants full access to the same roots and nothing else, and takes its
    // devices (an allow list) from the same module.
    let landlock = include_str!("../../linux/landlock.rs");
    assert!(landlock.contains("use crate::sandbox::writes::{DEVICES, Writes};"));
    assert_eq!(landlock.matches("grant(path, all)").count(), 1);
    assert!(
        landlock
            .contains("for path in &Writes::decide(policy).roots {\n        grant(path, all)?;")
    );
}

#[test]
fn string_literals_escape_quotes_backslashes_and_non_ascii() {
    assert_eq!(string_literal("/a/b c"), r#""/a/b c""#);
    assert_eq!(string_literal(r#"/x"y\z"#), r#""/x\"y\\z""#);
    assert_eq!(string_literal("/(a) b;c#|"), r#""/(a) b;c#|""#);
    assert_eq!(string_literal("/caf\u{e9}"), r#""/caf\u00E9""#);
    assert_eq!(string_literal("/\u{1F600}"), r#""/\uD83D\uDE00""#);
    assert_eq!(string_literal("/a\nb\t"), r#""/a\u000Ab\u0009""#);
}

/// Read an SBPL string literal back (the escapes [`string_literal`] writes).
fn unescape(text: &str) -> String {
    let mut units: Vec<u16> = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        match chars.next().unwrap() {
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                units.push(u16::from_str_radix(&hex, 16).unwrap());
            }
            other => units.push(other as u16),
        }
    }
    String::from_utf16(&units).unwrap()
}

/// The string literals of a profile, in order, read as a reader would: balanced parentheses
/// outside strings, every form closed.
fn literals(profile: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut chars = profile.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced: {profile}");
            }
            '"' => {
                let mut raw = String::new();
                loop {
                    match chars.next().expect("unterminated string") {
                        '"' => break,
                        '\\' => {
                            raw.push('\\');
                            raw.push(chars.next().unwrap());
                        }
                        c => raw.push(c),
                    }
                }
                out.push(unescape(&raw));
            }
            c => assert!(c.is_ascii(), "raw non-ASCII in the profile: {c:?}"),
        }
    }
    assert_eq!(depth, 0, "unbalanced: {profile}");
    out
}

#[test]
fn a_path_with_quotes_parentheses_and_non_ascii_reads_back_as_itself() {
    let odd = "/Users/ann/proj \"x\" (copy) \\ caf\u{e9} \u{65e5}\u{672c} \u{1F600}/out";
    let p = policy(TMP, &[odd], &[], &[WORKTREE]);
    let text = profile(&Writes::decide(&p), None).unwrap();
    assert!(text.starts_with("(version 1)\n(deny default)\n"), "{text}");
    let read = literals(&text);
    assert!(read.iter().any(|l| l == odd), "{read:?}");
    assert!(read.iter().any(|l| l == TMP), "{read:?}");
    assert!(read.iter().any(|l| l == WORKTREE), "{read:?}");
    // It is written only where a path goes, not as a stray form.
    assert!(!text.contains("(copy)\n"), "{text}");
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let bad = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/\xff/out"));
    let mut p = turn();
    p.writable.push(bad);
    let err = profile(&Writes::decide(&p), None).unwrap_err();
    assert!(err.contains("not UTF-8"), "{err}");
}

#[test]
fn the_runner_starts_under_sandbox_exec_with_the_profile() {
    let argv: Vec<OsString> = vec!["/usr/local/bin/claude".into(), "-p".into()];
    let wrapped = wrap(&turn(), &argv).unwrap();
    assert_eq!(wrapped[0], SANDBOX_EXEC);
    assert_eq!(wrapped[1], "-p");
    assert_eq!(
        wrapped[2],
        profile(&Writes::decide(&turn()), None).unwrap().as_str()
    );
    assert_eq!(wrapped[3], "--");
    assert_eq!(&wrapped[4..], &argv[..]);
}

#[test]
fn the_persons_credential_stores_are_denied_last_and_nothing_else() {
    let mut policy = turn();
    policy.hidden = vec![
        PathBuf::from("/Users/ann/.ssh"),
        PathBuf::from("/Users/ann/.netrc"),
    ];
    let argv: Vec<OsString> = vec!["/usr/local/bin/claude".into()];
    let wrapped = wrap(&policy, &argv).unwrap();
    let text = wrapped[2].to_str().unwrap();
    assert!(
        text.ends_with(
            "(deny file-read*\n  (subpath \"/Users/ann/.ssh\")\n  (subpath \"/Users/ann/.netrc\"))\n"
        ),
        "{text}"
    );
    assert_eq!(text.matches("(deny file-read*\n").count(), 1, "{text}");
}

#[test]
fn network_off_leaves_no_remote_address_and_binds_nothing() {
    let mut policy = turn();
    policy.network_off = true;
    let argv: Vec<OsString> = vec!["/usr/local/bin/python3".into()];
    let wrapped = wrap(&policy, &argv).unwrap();
    let text = wrapped[2].to_str().unwrap();
    assert!(!text.contains("(remote ip"), "{text}");
    assert!(!text.contains("network-bind"), "{text}");
    assert!(text.contains(RESOLVER), "{text}");
    policy.network_off = false;
    let wrapped = wrap(&policy, &argv).unwrap();
    assert!(wrapped[2].to_str().unwrap().contains("(remote ip"));
}

#[test]
fn a_runner_behind_the_proxy_connects_to_its_port_on_this_machine_only() {
    let mut policy = turn();
    policy.connect_ports = Some(vec![3128, 8080]);
    policy.proxy = Some(crate::sandbox::policy::ProxyPlan {
        port: 3128,
        forwards: vec![8080],
        in_namespace: false,
    });
    let argv: Vec<OsString> = vec!["/usr/local/bin/claude".into()];
    let wrapped = wrap(&policy, &argv).unwrap();
    let text = wrapped[2].to_str().unwrap();
    assert!(text.contains("(remote tcp \"localhost:3128\")"), "{text}");
    assert!(text.contains("(remote tcp \"localhost:8080\")"), "{text}");
    assert!(!text.contains("(remote tcp \"*:"), "{text}");
    assert!(!text.contains("(remote ip"), "{text}");
    assert!(!text.contains("network-bind"), "{text}");
}

#[test]
fn a_runner_with_its_ports_named_connects_to_those_and_dns_only_and_binds_nothing() {
    let ports = [443, 3128];
    let decided = rules(&Writes::decide(&turn()), Some(&ports));
    let allowed = |op: &str| -> Vec<&Filter> {
        decided
            .iter()
            .filter(|r| r.action == Action::Allow && r.ops.iter().any(|o| op_matches(o, op)))
            .flat_map(|r| &r.filters)
            .collect()
    };
    let outbound = allowed("network-outbound");
    assert_eq!(
        outbound,
        [
            &Filter::RemoteTcpPort(443),
            &Filter::RemoteTcpPort(3128),
            &Filter::RemoteSocket(PathBuf::from(RESOLVER)),
        ]
    );
    assert!(allowed("network-bind").is_empty());
    assert!(allowed("network-inbound").is_empty());
    let text = profile(&Writes::decide(&turn()), Some(&ports)).unwrap();
    assert!(text.contains("(remote tcp \"*:443\")"), "{text}");
    assert!(!text.contains("(remote ip \"*:*\")"), "{text}");
    // No port named (a runner that stops before any connection): no connection at all.
    let none = rules(&Writes::decide(&turn()), Some(&[]));
    assert!(none.iter().all(|r| r.action == Action::Deny
        || !r.ops.iter().any(|o| op_matches(o, "network-outbound"))
        || r.filters == [Filter::RemoteSocket(PathBuf::from(RESOLVER))]));
    // Every other runner keeps the network.
    let open = rules(&Writes::decide(&turn()), None);
    assert!(
        open.iter()
            .any(|r| r.action == Action::Allow && r.filters.contains(&Filter::AnyRemoteIp))
    );
}

#[test]
fn home_is_read_by_allow_list_and_a_store_inside_a_shown_entry_stays_hidden() {
    let view = crate::sandbox::home::HomeView {
        home: PathBuf::from(HOME),
        shown: ["src/app", ".claude", ".gitconfig", ".local"]
            .map(PathBuf::from)
            .to_vec(),
    };
    let mut decided = rules(&Writes::decide(&turn()), None);
    decided.extend(home_allow_list(&view));
    decided.push(hide(&[PathBuf::from("/Users/ann/.local/share/keyrings")]));
    let read = |p: &str| verdict(&decided, "file-read-data", p);
    for p in [
        "/Users/ann/.pgpass",
        "/Users/ann/.bash_history",
        "/Users/ann/notes/deploy.txt",
        "/Users/ann/src/other/secret.txt",
        "/Users/ann/.local/share/keyrings/login.keyring",
    ] {
        assert!(read(p) == Action::Deny, "{p} is read");
    }
    for p in [
        "/Users/ann/src/app/README.md",
        "/Users/ann/.claude/settings.json",
        "/Users/ann/.gitconfig",
        "/Users/ann/.local/bin/claude",
        "/Users/ann",
        "/Users/ann/src",
        "/usr/bin/git",
    ] {
        assert!(read(p) == Action::Allow, "{p} is not read");
    }
}
