//! The sandbox end to end: hostile runners that try to change the repository, its git
//! directory, the git configuration or the person's terminal. Under the default settings each
//! attempt is prevented and the repository and config stay byte-identical; with
//! `--sandbox off` the same runner gets through (shown, so that no test here passes by accident).
//!
//! Run as root, the module also runs itself, `sandbox_env`, `sandbox_login`, `sandbox_signals`,
//! `sandbox_state` and `sandbox_world` again as `nobody` (see the last test).

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

mod modes;
mod reach;
mod real_clis;
mod terminal;

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
        self.run_command(&runner(script), extra, env)
    }

    /// The same with `command` as the runner.
    pub(crate) fn run_command(
        &self,
        command: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        let answers = self.home.path().join("answers.json");
        let mut cmd = self.repo.cmd();
        cmd.args(["intent", "7", "--from", "item.md", "--runner", command])
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

/// A test of what the whole sandbox proves needs Landlock and user namespaces: missing, it
/// fails (never passes by skipping).
pub(crate) fn needs_the_whole_sandbox() {
    assert!(
        offer().landlock && offer().namespaces,
        "this test needs Landlock and user namespaces (see `interview runners`)"
    );
}

/// The three ways a run is confined, and whether a protection holds in each: with namespaces
/// and with Landlock alone, not with `--sandbox off`.
pub(crate) const HOLDS_UNLESS_OFF: [(Variant, bool); 3] = [
    (Variant::Default, true),
    (Variant::LandlockOnly, true),
    (Variant::Off, false),
];

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

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
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
            "sandbox_login::",
            "sandbox_signals::",
            "sandbox_state::",
            "sandbox_plants::",
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
