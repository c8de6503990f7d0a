//! What a runner under the sandbox can reach beyond the repository: its environment (no server
//! handles, a private TMPDIR), signals and abstract sockets outside the sandbox, and from a linked
//! worktree, the main worktree and the shared git directories.

use super::*;

#[test]
fn the_runner_environment_has_no_server_handles_and_a_private_tmpdir() {
    let script = r#"env > "$INTERVIEW_OUT/env.txt"; touch "$TMPDIR/probe" && echo ok > "$INTERVIEW_OUT/tmp.txt"; echo '{"receipt":"done","version":1,"title":"t","summary":"","entries":[{"title":"a","content":"b","clarity":"inferred","sources":[]}]}' > "$INTERVIEW_RECEIPT""#;
    let handles = [
        ("TMUX", "/tmp/tmux-0/default,1,0"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus"),
        ("DOCKER_HOST", "unix:///var/run/docker.sock"),
        ("GIT_DIR", "/elsewhere/.git"),
        ("ANTHROPIC_API_KEY", "kept-key"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
    ];
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        repo.write("item.md", WORK_ITEM);
        repo.write("runner.sh", script);
        repo.write(".git/answers.json", r#"{ "interview_answers": 1 }"#);
        let mut cmd = repo.cmd();
        cmd.args(["intent", "7", "--from", "item.md", "--yes", "--out", "-"])
            .args(["--answers", ".git/answers.json"])
            .args(["--runner", "sh runner.sh"])
            .args(variant.args())
            .env("TMPDIR", "/tmp");
        for (k, v) in handles {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let env =
            std::fs::read_to_string(repo.session_dir().join("turns/001/out/env.txt")).unwrap();
        let has = |k: &str| env.lines().any(|l| l.starts_with(&format!("{k}=")));
        // A script is given no provider's key (sandbox_env.rs), with the sandbox or without.
        assert!(
            !has("ANTHROPIC_API_KEY") && !has("OPENAI_BASE_URL"),
            "{env}"
        );
        for k in [
            "TMUX",
            "SSH_AUTH_SOCK",
            "DBUS_SESSION_BUS_ADDRESS",
            "DOCKER_HOST",
            "GIT_DIR",
        ] {
            assert!(!has(k), "{variant:?} {k}: {env}");
        }
        let tmpdir = env
            .lines()
            .find_map(|l| l.strip_prefix("TMPDIR="))
            .unwrap_or("");
        if variant == Variant::Default {
            assert!(tmpdir.starts_with("/tmp/interview-turn-"), "{tmpdir}");
            assert!(
                !Path::new(tmpdir).exists(),
                "the private TMPDIR is removed after the turn"
            );
        } else {
            assert_eq!(tmpdir, "/tmp");
        }
    }
}

/// Landlock ABI 6 and later: the runner can neither signal a process outside its sandbox (the
/// tool, without a PID namespace) nor connect to an abstract UNIX socket made outside it.
#[test]
fn signals_and_abstract_sockets_outside_the_sandbox_are_out_of_reach() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    if no_landlock("scoping") {
        return;
    }
    if !prerequisite(
        offer().scoped,
        "Landlock ABI 6 (signal and abstract socket scoping)",
    ) {
        return;
    }
    if !prerequisite(
        Command::new("python3").arg("-V").output().is_ok(),
        "python3",
    ) {
        return;
    }
    let name = format!("interview-test-{}-{}", std::process::id(), rand_suffix());
    let address = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _server = UnixListener::bind_addr(&address).unwrap();
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("scoped");
        let mut env = vec![("SANDBOX_ABSTRACT", name.as_str())];
        env.extend_from_slice(variant.env());
        let out = target.run("sandbox/scoped.sh", variant.args(), &env);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let attempt = target.attempt();
        if variant == Variant::Off {
            assert_eq!(attempt, "signal: sent\nsocket: connected\n", "{variant:?}");
        } else {
            assert_eq!(attempt, "signal: denied\nsocket: denied\n", "{variant:?}");
        }
    }
}

/// Run from a linked worktree, the runner can write neither the main worktree nor the git
/// directories both share (the common dir, and the linked worktree's own under it).
#[test]
fn from_a_linked_worktree_neither_worktree_nor_the_shared_git_dir_is_writable() {
    if no_landlock("linked worktree") {
        return;
    }
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let repo = TempRepo::new();
        let linked = tempfile::Builder::new()
            .prefix("interview-linked-")
            .tempdir()
            .unwrap();
        let wt = linked.path().join("wt");
        repo.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
        std::fs::write(wt.join("item.md"), WORK_ITEM).unwrap();
        std::fs::write(
            wt.join("attack.sh"),
            format!(
                "out=\"$INTERVIEW_OUT/attempt.txt\"\n\
                 for f in '{main}/README.md' '{main}/.git/config' '{main}/.git/worktrees/wt/HEAD' README.md; do\n\
                 if (echo evil >> \"$f\") 2>/dev/null; then echo \"wrote $f\" >> \"$out\"; else echo \"denied $f\" >> \"$out\"; fi\n\
                 done\n\
                 echo '{{\"receipt\":\"done\",\"version\":1,\"title\":\"t\",\"summary\":\"\",\"entries\":[{{\"title\":\"a\",\"content\":\"b\",\"clarity\":\"inferred\",\"sources\":[]}}]}}' > \"$INTERVIEW_RECEIPT\"\n",
                main = repo.path().display()
            ),
        )
        .unwrap();
        std::fs::write(
            repo.scratch("answers.json"),
            r#"{ "interview_answers": 1 }"#,
        )
        .unwrap();
        // What the tool adds on its first run, there already, so the tool itself changes nothing.
        repo.write(".git/info/exclude", "/.interview/\n");
        let before = fingerprint(&[repo.path(), &wt]);
        let mut cmd = repo.cmd();
        cmd.current_dir(&wt)
            .args(["intent", "7", "--from", "item.md", "--yes", "--out", "-"])
            .args([
                "--runner",
                "sh attack.sh",
                "--retries",
                "0",
                "--on-change",
                "warn",
            ])
            .arg("--answers")
            .arg(repo.scratch("answers.json"))
            .args(variant.args());
        for (k, v) in variant.env() {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{variant:?}: {}", stderr(&out));
        let sessions = wt.join(".interview/sessions");
        let session = std::fs::read_dir(&sessions)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let attempt = std::fs::read_to_string(session.join("turns/001/out/attempt.txt")).unwrap();
        let after = fingerprint(&[repo.path(), &wt]);
        if variant == Variant::Off {
            assert_eq!(attempt.matches("wrote ").count(), 4, "{attempt}");
            assert_ne!(before, after);
        } else {
            assert_eq!(
                attempt.matches("denied ").count(),
                4,
                "{variant:?}: {attempt}"
            );
            let changed: Vec<_> = after
                .iter()
                .filter(|(k, v)| before.get(*k) != Some(v))
                .collect();
            assert!(changed.is_empty(), "{variant:?} changed {changed:?}");
        }
    }
}
