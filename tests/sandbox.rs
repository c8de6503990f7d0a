//! The sandbox end to end: hostile runners that try to change the repository, its git
//! directory, the git configuration or the person's terminal. Under the default settings each
//! attempt is prevented and the repository and config stay byte-identical; with
//! `--sandbox off` the same runner gets through (shown, so that no test here passes by accident).
//!
//! Run as root, the module also runs itself, `sandbox_env`, `sandbox_signals`, `sandbox_state`
//! and `sandbox_world` again as `nobody` (see the last test).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::util::{
    Interview, Pty, TempRepo, WAIT, WORK_ITEM, bin, fixtures, prerequisite, runner, stderr, stdout,
    wait_until,
};

/// What this machine offers, as `interview runners --json` reports it.
pub(crate) struct Offer {
    pub landlock: bool,
    pub namespaces: bool,
    /// Landlock ABI 6: signals and abstract sockets scoped.
    pub scoped: bool,
}

pub(crate) fn offer() -> &'static Offer {
    static OFFER: OnceLock<Offer> = OnceLock::new();
    OFFER.get_or_init(|| {
        let out = Command::new(bin())
            .args(["runners", "--json"])
            .env("PATH", "/nonexistent")
            .output()
            .expect("interview runners --json");
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&out)).expect("runners --json prints JSON");
        Offer {
            landlock: json["sandbox"]["landlock"] == true,
            namespaces: json["sandbox"]["namespaces"] == true,
            scoped: json["sandbox"]["scoped_signals_and_sockets"] == true,
        }
    })
}

/// True when this machine has no Landlock: there is nothing to prevent with. Fails the test
/// under `INTERVIEW_CI=1`; elsewhere says it skipped `what`.
fn no_landlock(what: &str) -> bool {
    !prerequisite(
        offer().landlock,
        &format!("Landlock ({what}; see `interview runners`)"),
    )
}

pub(crate) fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Every file, directory and link under `roots` (not following links, the local tier left out):
/// kind, mode and content digest, so any write, chmod or new file shows.
fn fingerprint(roots: &[&Path]) -> BTreeMap<String, String> {
    use std::os::unix::fs::PermissionsExt;
    let mut map = BTreeMap::new();
    for root in roots {
        for entry in walkdir::WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".interview")
        {
            let entry = entry.expect("walk");
            let meta = entry.path().symlink_metadata().expect("lstat");
            let mode = meta.permissions().mode();
            let what = if meta.file_type().is_symlink() {
                format!(
                    "link {mode:o} {:?}",
                    std::fs::read_link(entry.path()).unwrap()
                )
            } else if meta.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                format!("file {mode:o} {:x}", Sha256::digest(&bytes))
            } else {
                format!("dir {mode:o}")
            };
            map.insert(entry.path().display().to_string(), what);
        }
    }
    map
}

/// A repository and a home directory set up for one attack, fingerprinted before the run.
pub(crate) struct Target {
    pub(crate) repo: TempRepo,
    pub(crate) home: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Target {
    pub(crate) fn new(attack: &str) -> Target {
        let repo = TempRepo::new();
        repo.write("item.md", WORK_ITEM);
        // What the tool adds on its first run, there already, so the tool itself changes nothing.
        repo.write(".git/info/exclude", "/.interview/\n");
        // The hostile runner's instructions, which the person hands it.
        repo.hand_to_runner(&["SANDBOX_*"]);
        let home = tempfile::Builder::new()
            .prefix("interview-home-")
            .tempdir()
            .unwrap();
        let mut env = vec![
            ("HOME".to_string(), home.path().display().to_string()),
            ("SANDBOX_ATTACK".to_string(), attack.to_string()),
        ];
        match attack {
            "submodule" => {
                std::fs::create_dir_all(repo.path().join(".git/modules")).unwrap();
                repo.git(&[
                    "init",
                    "-q",
                    "--separate-git-dir",
                    ".git/modules/sub",
                    "sub",
                ]);
            }
            "gitconfig-target" => {
                std::fs::create_dir(home.path().join("dotfiles")).unwrap();
                std::fs::write(
                    home.path().join("dotfiles/gitconfig"),
                    "[user]\n\tname = P\n",
                )
                .unwrap();
                std::os::unix::fs::symlink("dotfiles/gitconfig", home.path().join(".gitconfig"))
                    .unwrap();
            }
            "include-target" => {
                let included = home.path().join("included.gitconfig");
                std::fs::write(&included, "[user]\n\tname = P\n").unwrap();
                let config = repo.path().join(".git/config");
                let mut text = std::fs::read_to_string(&config).unwrap();
                text.push_str(&format!("[include]\n\tpath = {}\n", included.display()));
                std::fs::write(&config, text).unwrap();
                env.push(("SANDBOX_INCLUDED".into(), included.display().to_string()));
            }
            _ if attack.starts_with("chmod-") => {
                use std::os::unix::fs::PermissionsExt;
                std::fs::write(home.path().join(".bashrc"), "# rc\n").unwrap();
                std::fs::create_dir(home.path().join(".ssh")).unwrap();
                let key = home.path().join(".ssh/id_ed25519");
                std::fs::write(&key, "secret\n").unwrap();
                std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
                std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
            _ => {}
        }
        std::fs::write(
            home.path().join("answers.json"),
            r#"{ "interview_answers": 1 }"#,
        )
        .unwrap();
        Target { repo, home, env }
    }

    fn fingerprint(&self) -> BTreeMap<String, String> {
        fingerprint(&[self.repo.path(), self.home.path()])
    }

    /// `interview intent 7` with the hostile runner, answers replayed, the document printed.
    pub(crate) fn run(&self, script: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let answers = self.home.path().join("answers.json");
        let mut cmd = self.repo.cmd();
        cmd.args([
            "intent",
            "7",
            "--from",
            "item.md",
            "--runner",
            &runner(script),
        ])
        .arg("--answers")
        .arg(&answers)
        .args(["--yes", "--out", "-", "--retries", "0"])
        .args(extra);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run interview")
    }

    /// What the runner noted in out/attempt.txt.
    pub(crate) fn attempt(&self) -> String {
        std::fs::read_to_string(self.repo.session_dir().join("turns/001/out/attempt.txt"))
            .unwrap_or_default()
    }
}

/// How a run is confined.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Variant {
    /// The default: everything this machine offers.
    Default,
    /// Landlock alone (as where user namespaces are not allowed).
    LandlockOnly,
    /// `--sandbox off`: detection only.
    Off,
}

impl Variant {
    pub(crate) fn args(self) -> &'static [&'static str] {
        match self {
            Variant::Off => &["--sandbox", "off"],
            _ => &[],
        }
    }

    pub(crate) fn env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Variant::LandlockOnly => &[("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")],
            _ => &[],
        }
    }
}

/// Run `attack` under each variant; under the sandbox it must be denied and leave everything
/// byte-identical, without it it must get through. `chmod` needs the read-only mounts.
fn attack(attack: &str) {
    if no_landlock(attack) {
        return;
    }
    let metadata_only = attack.starts_with("chmod");
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new(attack);
        let before = target.fingerprint();
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let after = target.fingerprint();
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let prevented = match variant {
            Variant::Off => false,
            Variant::LandlockOnly => !metadata_only,
            Variant::Default => offer().namespaces || !metadata_only,
        };
        if prevented {
            assert_eq!(
                target.attempt(),
                "denied\n",
                "{attack} {variant:?}: {screen}"
            );
            assert_eq!(out.status.code(), Some(0), "{attack} {variant:?}: {screen}");
            let changed: Vec<_> = after
                .iter()
                .filter(|(k, v)| before.get(*k) != Some(v))
                .chain(before.iter().filter(|(k, _)| !after.contains_key(*k)))
                .collect();
            assert!(
                changed.is_empty(),
                "{attack} {variant:?} changed {changed:?}\n{screen}"
            );
        } else {
            assert_eq!(
                target.attempt(),
                "wrote\n",
                "{attack} {variant:?}: {screen}"
            );
            assert_ne!(before, after, "{attack} {variant:?}: no change shown");
        }
    }
}

macro_rules! attacks {
    ($($name:ident: $attack:literal;)*) => {$(
        #[test]
        fn $name() {
            attack($attack);
        }
    )*};
}

attacks! {
    a_tracked_file_cannot_be_written: "tracked";
    a_nested_git_dir_with_a_config_cannot_be_created: "nested-git";
    a_submodule_gitfile_cannot_be_retargeted: "submodule";
    a_rebase_todo_cannot_be_fabricated: "rebase-todo";
    the_head_reflog_cannot_be_written: "logs-head";
    merge_msg_cannot_be_written: "merge-msg";
    object_alternates_cannot_be_added: "alternates";
    the_index_cannot_be_written: "index";
    a_hook_cannot_be_planted: "hook";
    the_user_gitconfig_cannot_be_edited_through_its_symlink: "gitconfig-target";
    a_file_the_git_config_includes_cannot_be_edited: "include-target";
    a_git_config_cannot_be_chmodded_where_namespaces_exist: "chmod-config";
    home_cannot_be_made_world_writable_where_namespaces_exist: "chmod-home";
    a_dotfile_cannot_be_chmodded_where_namespaces_exist: "chmod-bashrc";
    a_private_key_cannot_be_made_readable_where_namespaces_exist: "chmod-ssh-key";
}

/// The programs in fixtures/runners/hostile (written for the guard's tests), each run with
/// `interview guard --sandbox require`: none changes anything.
#[test]
fn the_guards_hostile_runners_change_nothing_under_guard_sandbox_require() {
    if no_landlock("guard --sandbox require") {
        return;
    }
    let dir = fixtures().join("runners/hostile");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scripts.sort();
    assert!(scripts.len() > 10, "{scripts:?}");
    for script in scripts {
        let repo = TempRepo::new();
        repo.write(".git/info/exclude", "/.interview/\n");
        let home = tempfile::tempdir().unwrap();
        let wt = home.path().join("wt");
        let before = fingerprint(&[repo.path()]);
        let out = repo
            .cmd()
            .env("WT_DIR", &wt)
            .args(["guard", "--sandbox", "require", "--", "sh"])
            .arg(&script)
            .output()
            .unwrap();
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        assert_ne!(out.status.code(), Some(3), "{name}: {}", stderr(&out));
        assert_eq!(
            before,
            fingerprint(&[repo.path()]),
            "{name}: {}",
            stderr(&out)
        );
        assert!(!wt.exists(), "{name}: a linked worktree was added");
    }
}

#[test]
fn guard_keeps_the_sandbox_off_unless_asked() {
    let repo = TempRepo::new();
    let out = repo.run(&["guard", "--", "sh", "-c", "echo more >> README.md"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    if no_landlock("guard --sandbox require") {
        return;
    }
    let repo = TempRepo::new();
    let out = repo.run(&[
        "guard",
        "--sandbox",
        "require",
        "--",
        "sh",
        "-c",
        "echo more >> README.md",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Read-only file system") || err.contains("Permission denied"),
        "{err}"
    );
    assert_eq!(repo.read("README.md"), "# test repo\n\nline two\n");
}

#[test]
fn require_refuses_a_turn_where_landlock_is_missing() {
    let target = Target::new("tracked");
    let simulate = [("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1")];
    let out = target.run(
        "sandbox/tries-write.sh",
        &["--sandbox", "require"],
        &simulate,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--sandbox require: refusing to run a turn without Landlock (simulated by INTERVIEW_TEST_SANDBOX_NO_LANDLOCK=1)"),
        "{}",
        stderr(&out)
    );
    assert!(
        !target.repo.path().join(".interview/sessions").exists() || target.attempt().is_empty(),
        "a runner ran"
    );
    // `guard --sandbox require` too.
    let out = target
        .repo
        .cmd()
        .env("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1")
        .args(["guard", "--sandbox", "require", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // `auto` on a machine with neither says once that only detection is left.
    let out = target.run(
        "sandbox/tries-write.sh",
        &[],
        &[
            ("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1"),
            ("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1"),
        ],
    );
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(
        err.contains("nothing enforced, changes are only detected"),
        "{err}"
    );
}

/// `auto` says nothing when all is enforced, one short line when something is missing (and
/// what), everything with `--verbose`; never anything with `--sandbox off`.
#[test]
fn auto_says_once_what_is_missing_and_nothing_when_all_is_enforced() {
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    let target = Target::new("tracked");
    let out = target.run("done-at-once.sh", &[], &[]);
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 0, "{err}");
    let out = target.run("done-at-once.sh", &["--verbose"], &[]);
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(err.contains("interview: sandbox: Landlock ABI "), "{err}");
    let out = target.run(
        "done-at-once.sh",
        &[],
        &[("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")],
    );
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(
        err.contains(
            "interview: sandbox: Landlock and seccomp only: credentials readable, chmod of your files and the CLI's state not protected, UDP open; see `interview runners`"
        ),
        "{err}"
    );
    let out = target.run("done-at-once.sh", &["--sandbox", "off"], &[]);
    assert!(
        !stderr(&out).contains("interview: sandbox:"),
        "{}",
        stderr(&out)
    );
}

/// Where user namespaces are missing, `require` refuses (Landlock alone cannot keep the
/// promise) and `landlock-only` accepts.
#[test]
fn require_refuses_landlock_alone_and_landlock_only_accepts_it() {
    assert!(offer().landlock, "needs Landlock");
    let target = Target::new("tracked");
    let alone = [("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")];
    let out = target.run("done-at-once.sh", &["--sandbox", "require"], &alone);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--sandbox landlock-only"),
        "{}",
        stderr(&out)
    );
    let out = target.run("done-at-once.sh", &["--sandbox", "landlock-only"], &alone);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

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

/// Writers left behind (setsid, double fork, nohup, a fork chain) act 3 s after the turn; a
/// second runner keeps working while the tool is killed with SIGKILL. Under the sandbox none
/// of them writes; without it the ones that outlive a killed tool do.
#[test]
fn daemons_left_behind_cannot_write_after_the_turn_nor_after_a_kill_9() {
    if no_landlock("daemons") {
        return;
    }
    let original = "# test repo\n\nline two\n";
    let ended = Target::new("daemon");
    let killed = Target::new("daemon");
    let killed_off = Target::new("daemon");
    let ended_run = ended.run("sandbox/daemon.sh", &[], &[]);
    assert_eq!(ended_run.status.code(), Some(0), "{}", stderr(&ended_run));
    let start = |t: &Target, extra: &[&str]| {
        let answers = t.home.path().join("answers.json");
        let mut cmd = t.repo.cmd();
        cmd.args(["intent", "7", "--from", "item.md", "--yes", "--out", "-"])
            .args(["--runner", &runner("sandbox/daemon.sh")])
            .arg("--answers")
            .arg(&answers)
            .args(extra)
            .env("SANDBOX_WAIT", "1")
            .envs(t.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd.spawn().unwrap()
    };
    let mut tools = [
        start(&killed, &[]),
        start(&killed_off, &["--sandbox", "off"]),
    ];
    for (tool, t) in tools.iter_mut().zip([&killed, &killed_off]) {
        let mark = || {
            t.repo
                .path()
                .join(".interview/sessions")
                .read_dir()
                .ok()
                .and_then(|mut d| d.next())
                .map(|e| e.unwrap().path().join("turns/001/out/started"))
                .is_some_and(|p| p.exists())
        };
        wait_until(WAIT, "the runner to start", mark);
        tool.kill().unwrap();
        tool.wait().unwrap();
    }
    // The writers act 3 s after they start (what is tested: after the turn, after the kill).
    // The unconfined ones have written once one line is there; then every writer of the three
    // repositories has either written, failed to or been ended once none is left.
    wait_until(WAIT, "a writer without the sandbox to write", || {
        killed_off.repo.read("README.md").contains("evil from")
    });
    wait_until(WAIT, "every writer to be done", || {
        [&ended, &killed, &killed_off]
            .iter()
            .all(|t| !writers_left(t.repo.path()))
    });
    assert_eq!(
        ended.repo.read("README.md"),
        original,
        "after the turn ended"
    );
    assert_eq!(
        killed.repo.read("README.md"),
        original,
        "after a kill -9 of the tool"
    );
    let off = killed_off.repo.read("README.md");
    assert!(off.contains("evil from"), "without the sandbox: {off:?}");
    // The unconfined runner outlived the tool: end what is left of it.
    let pid: i32 =
        std::fs::read_to_string(killed_off.repo.session_dir().join("turns/001/out/started"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// Whether a writer `sandbox/daemon.sh` left behind in `repo` still runs: a process whose
/// command line names the repository and says `evil from`.
fn writers_left(repo: &Path) -> bool {
    let name = repo.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read(p.path().join("cmdline")).is_ok_and(|line| {
            let line = String::from_utf8_lossy(&line);
            line.contains("evil from") && line.contains(&name)
        })
    })
}

/// A tmux server outside the tool's process tree, reachable through an inherited $TMUX or its
/// socket path, would run a command for the runner after the guard's last look.
#[test]
fn a_tmux_server_cannot_write_for_the_runner() {
    if no_landlock("tmux") {
        return;
    }
    if !prerequisite(Command::new("tmux").arg("-V").output().is_ok(), "tmux") {
        return;
    }
    let name = format!("interview-test-{}-{}", std::process::id(), rand_suffix());
    let server = Server::start(&name);
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("tmux");
        let tmux = format!("{},{},0", server.socket, server.pid);
        let mut env: Vec<(&str, &str)> =
            vec![("TMUX", &tmux), ("SANDBOX_TMUX_SOCKET", &server.socket)];
        env.extend_from_slice(variant.env());
        let out = target.run("sandbox/tmux.sh", variant.args(), &env);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // Each command the server took writes one line 1 s after the turn (what is tested):
        // wait for them all.
        let attempt = target.attempt();
        let queued = attempt.matches("wrote via").count();
        wait_until(WAIT, "the server's commands to run", || {
            target
                .repo
                .read("README.md")
                .matches("evil-from-tmux")
                .count()
                >= queued
        });
        let readme = target.repo.read("README.md");
        match variant {
            Variant::Off => {
                // $TMUX is never handed to a runner, even without the sandbox (sandbox_env.rs);
                // its socket path, which nothing hides here, still reaches the server.
                assert!(!attempt.contains("wrote via TMUX"), "{attempt}");
                assert!(attempt.contains("wrote via socket"), "{attempt}");
                assert!(readme.contains("evil-from-tmux"), "off: {readme}");
            }
            Variant::Default if offer().namespaces => {
                assert_eq!(attempt, "done\n");
                assert!(!readme.contains("evil"), "{variant:?}: {readme}");
            }
            _ => {
                // Landlock before ABI 9 cannot stop a connect to a named socket: only the
                // scrubbed $TMUX holds here (docs/sandbox.md, residual risks).
                assert!(!attempt.contains("wrote via TMUX"), "{attempt}");
            }
        }
    }
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
}

/// A tmux server of the test's own, killed when dropped.
struct Server {
    name: String,
    socket: String,
    pid: String,
}

impl Server {
    fn start(name: &str) -> Server {
        let tmux = |args: &[&str]| {
            let out = Command::new("tmux")
                .args(["-f", "/dev/null", "-L", name])
                .args(args)
                .env_remove("TMUX")
                // tmux runs the session's command with $SHELL, else the account's shell: for
                // nobody that is nologin, the session ends at once and the server with it.
                .env("SHELL", "/bin/sh")
                .output()
                .unwrap();
            assert!(out.status.success(), "tmux {args:?}: {}", stderr(&out));
            stdout(&out).trim().to_string()
        };
        tmux(&["new-session", "-d", "-s", "t", "sleep 120"]);
        let socket = tmux(&["display-message", "-p", "#{socket_path}"]);
        let pid = tmux(&["display-message", "-p", "#{pid}"]);
        Server {
            name: name.to_string(),
            socket,
            pid,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.name, "kill-server"])
            .output();
    }
}

/// `interview intent 7` on the usual work item with a fixture runner, at a pseudo-terminal.
fn at_terminal(repo: &TempRepo, script: &str, args: &[&str], env: &[(&str, &str)]) -> Pty {
    let mut interview = Interview::intent(repo, "7")
        .work_item()
        .runner(script)
        .args(args);
    for (k, v) in env {
        interview = interview.env(k, v);
    }
    interview.at_terminal()
}

/// Raw escapes written to /proc/PID/fd/2 of the runner's parent and ancestors (the tool's is
/// the person's terminal) never reach the screen.
#[test]
fn a_runner_cannot_write_to_the_terminal_through_proc() {
    if no_landlock("proc fd") {
        return;
    }
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let repo = TempRepo::new();
        let mut args = vec!["--out", "-", "--yes"];
        args.extend_from_slice(variant.args());
        let pty = at_terminal(&repo, "sandbox/proc-fd.sh", &args, variant.env());
        let (code, screen) = pty.finish();
        assert_eq!(code, 0, "{screen}");
        let attempt =
            std::fs::read_to_string(repo.session_dir().join("turns/001/out/attempt.txt")).unwrap();
        let reached = screen.contains("PROC-WRITE") || screen.contains('\u{1b}');
        if variant == Variant::Off && is_root() {
            // Root may open a non-dumpable process's fds: only the sandbox stops it.
            assert!(
                reached,
                "without the sandbox, as root: {attempt}\n{screen:?}"
            );
        } else {
            // As another user the tool's being non-dumpable already stops it.
            assert!(!reached, "{variant:?}: {attempt}\n{screen:?}");
        }
    }
}

/// Keys queued on the terminal with TIOCSTI during the turn do not answer the decision that
/// follows (the consent gate: A would write the document).
#[test]
fn keys_injected_with_tiocsti_do_not_answer_a_decision() {
    if no_landlock("tiocsti") {
        return;
    }
    if !prerequisite(
        Command::new("python3").arg("-V").output().is_ok(),
        "python3",
    ) {
        return;
    }
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        let mut pty = at_terminal(&repo, "sandbox/tiocsti.sh", variant.args(), &[]);
        pty.expect("Choose A, B, C or D");
        pty.send_line("C");
        let (code, rest) = pty.finish();
        assert_eq!(code, 0, "{rest}");
        assert!(
            !repo.path().join("docs/interviews/intent-7.md").exists(),
            "{variant:?}: the injected A was taken"
        );
        let attempt =
            std::fs::read_to_string(repo.session_dir().join("turns/001/out/attempt.txt")).unwrap();
        if variant == Variant::Default {
            assert!(!attempt.contains("injected"), "{attempt}");
        } else if is_root() {
            // Without the sandbox root can inject; the flush before the decision drops it.
            assert!(attempt.contains("injected"), "{attempt}");
        }
    }
}

/// Keys typed (or queued) while the runner works are dropped before the decision appears.
#[test]
fn keys_typed_ahead_during_a_turn_do_not_answer_the_next_decision() {
    let repo = TempRepo::new();
    let mut pty = at_terminal(&repo, "sandbox/slow-done.sh", &[], &[]);
    // Typed once the turn has begun; the runner works until they are.
    pty.expect("turn 1 of 5");
    pty.send_line("A");
    std::fs::write(repo.session_dir().join("turns/001/out/go"), "").unwrap();
    pty.expect("Choose A, B, C or D");
    pty.send_line("C");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(
        !repo.path().join("docs/interviews/intent-7.md").exists(),
        "the key typed ahead answered the consent gate"
    );
}

#[test]
fn a_runner_at_its_timeout_is_stopped_under_the_sandbox() {
    let repo = TempRepo::new();
    let start = Instant::now();
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("never-exits.sh")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .args(["--turn-timeout", "1", "--grace", "1", "--retries", "0"])
        .run()
        .exits(4);
    assert!(
        out.screen().contains("did not finish within 1 s"),
        "{}",
        out.screen()
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

/// Run as root, run this module again as `nobody`: everything above must hold for an
/// unprivileged user too (where the kernel lets it create user namespaces, with them).
#[test]
fn the_sandbox_tests_hold_for_an_unprivileged_user_too() {
    if std::env::var_os("INTERVIEW_TEST_UNPRIVILEGED").is_some() {
        return;
    }
    if !is_root() {
        eprintln!(
            "the_sandbox_tests_hold_for_an_unprivileged_user_too: this run is already unprivileged (uid {})",
            nix::unistd::geteuid()
        );
        return;
    }
    if !prerequisite(
        Command::new("setpriv").arg("--version").output().is_ok(),
        "setpriv",
    ) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    // A checkout nobody may enter (a home directory of mode 700) cannot be tested as nobody.
    let reachable = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .args([
            "sh",
            "-c",
            "test -x \"$1\" && test -x \"$2\" && test -r \"$3\" && test -w /tmp",
            "sh",
        ])
        .arg(&exe)
        .arg(bin())
        .arg(runner("sandbox/tries-write.sh"))
        .status()
        .is_ok_and(|s| s.success());
    let access = format!(
        "nobody's access to {} and {} (and a writable /tmp)",
        exe.display(),
        fixtures().display()
    );
    if !prerequisite(reachable, &access) {
        return;
    }
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .arg(&exe)
        .args([
            "sandbox::",
            "sandbox_env::",
            "sandbox_signals::",
            "sandbox_state::",
            "sandbox_world::",
            "sandbox_wall::",
            "sandbox_secrets::",
            "sandbox_net::",
            "--skip",
            "unprivileged_user",
            "--test-threads",
            "4",
        ])
        .env("INTERVIEW_TEST_UNPRIVILEGED", "1")
        .env("TMPDIR", "/tmp")
        .env("HOME", "/tmp")
        .current_dir("/")
        .output()
        .unwrap();
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "as nobody:\n{report}");
    assert!(report.contains("test result: ok"), "{report}");
    eprintln!(
        "as nobody: {}",
        report
            .lines()
            .find(|l| l.starts_with("test result"))
            .unwrap_or("")
    );
}

/// The real Claude Code and Codex complete an interview under the default sandbox, against the
/// loopback mock model. Runs with `INTERVIEW_E2E=1` and `INTERVIEW_E2E_CLAUDE` /
/// `INTERVIEW_E2E_CODEX` naming the directory that holds the installed CLI (docs/runners.md);
/// skipped otherwise, saying why.
#[test]
fn the_real_clis_complete_an_interview_under_the_sandbox() {
    use crate::util::mock_model::{MockModel, Reply, Rule};
    if std::env::var_os("INTERVIEW_E2E").is_none() {
        crate::util::not_run("INTERVIEW_E2E is not set");
        return;
    }
    let done = serde_json::json!({
        "receipt": "done", "version": 1, "questions": null, "title": "Intent of 7",
        "summary": "Short.",
        "entries": [{ "title": "The item", "content": "Users want CSV.", "clarity": "inferred",
                      "sources": null }]
    });
    for (cli, var, endpoint) in [
        ("claude", "INTERVIEW_E2E_CLAUDE", "/v1/messages"),
        ("codex", "INTERVIEW_E2E_CODEX", "/v1/responses"),
    ] {
        let Some(dir) = std::env::var_os(var) else {
            crate::util::not_run(&format!(
                "{cli} under the sandbox: {var} does not name the CLI's directory"
            ));
            continue;
        };
        let mock = MockModel::start(vec![Rule {
            when: None,
            reply: Reply::Receipt(done.clone()),
        }]);
        let repo = TempRepo::new();
        let home = tempfile::Builder::new()
            .prefix("interview-home-")
            .tempdir()
            .unwrap();
        let codex_home = home.path().join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            codex_home.join("config.toml"),
            format!(
                "model = \"mock-model\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n[analytics]\nenabled = false\n",
                mock.url()
            ),
        )
        .unwrap();
        let path = format!(
            "{}:{}",
            Path::new(&dir).display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Interview::intent(&repo, "7")
            .work_item()
            .preset(cli)
            .answers(r#"{ "interview_answers": 1 }"#)
            .yes()
            .out("-")
            .args(["--retries", "0"])
            .env("HOME", home.path())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", path)
            .env("ANTHROPIC_BASE_URL", mock.url())
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .run();
        let screen = out.screen();
        assert_eq!(out.code, 0, "{cli}: {screen}");
        assert!(out.stdout.contains("Users want CSV."), "{cli}: {screen}");
        // Everything enforced: nothing to say about the sandbox (docs/sandbox.md, "Choosing").
        if offer().landlock && offer().namespaces {
            assert!(!screen.contains("interview: sandbox:"), "{screen}");
        }
        assert!(mock.count(endpoint) >= 1, "{cli}: {:?}", mock.summary());
        eprintln!("{cli} under the sandbox: done ({:?})", mock.summary());
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
