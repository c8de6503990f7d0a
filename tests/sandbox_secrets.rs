//! The person's credential stores are absent for a runner: a prompt injection in the repository
//! cannot make an agent read a key and send it away. Each planted secret is unreadable with the
//! default sandbox and shown readable with `--sandbox off`, so that no test here passes by
//! accident. Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::path::PathBuf;

use crate::sandbox::{HOLDS_UNLESS_OFF, Target, Variant, is_root, needs_the_whole_sandbox, offer};
use crate::util::{fixture_as, runner, stderr, stdout};

/// Plant a secret in each store (under HOME, and one moved by GNUPGHOME); their paths.
fn plant(target: &Target) -> Vec<PathBuf> {
    let home = target.home.path();
    let moved = home.join("elsewhere/gnupg");
    let files = [
        home.join(".ssh/id_ed25519"),
        home.join(".aws/credentials"),
        home.join(".netrc"),
        home.join(".docker/config.json"),
        home.join(".config/gh/hosts.yml"),
        home.join(".git-credentials"),
        home.join(".npmrc"),
        home.join(".cargo/credentials.toml"),
        home.join(".claude/.credentials.json"),
        home.join(".codex/auth.json"),
        moved.join("private-keys-v1.d/key"),
    ];
    for f in &files {
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, "SECRET\n").unwrap();
    }
    files.to_vec()
}

/// Run `attack` (`read-secrets` or `readable`) over `files` with the variant and `env`; the
/// files it read, one a line, after checking the runner got to its end.
fn read_by_runner(
    target: &Target,
    variant: Variant,
    files: &[PathBuf],
    env: &[(&str, &str)],
) -> String {
    let list = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
    envs.push(("SANDBOX_SECRETS", &list));
    envs.extend_from_slice(env);
    let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(target.attempt(), "done\n", "{variant:?}: {screen}");
    std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/read.txt"))
        .unwrap_or_default()
}

/// That the runner read none of `files` (`hidden`) or every one.
fn assert_read(read: &str, files: &[PathBuf], hidden: bool, variant: Variant) {
    if hidden {
        assert_eq!(read, "", "{variant:?} read: {read}");
    } else {
        assert_eq!(read.lines().count(), files.len(), "{variant:?}: {read}");
    }
}

#[test]
fn a_runner_reads_none_of_the_persons_credentials() {
    needs_the_whole_sandbox();
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let target = Target::new("read-secrets");
        let files = plant(&target);
        let gnupg = target.home.path().join("elsewhere/gnupg");
        let env = [("GNUPGHOME", gnupg.to_str().unwrap())];
        let read = read_by_runner(&target, variant, &files, &env);
        assert_read(&read, &files, hidden, variant);
    }
}

/// `interview guard -- CMD` runs the person's own command: with the sandbox asked for, its
/// writes are refused, but it still reads the person's own credentials (a private registry's
/// token for a build).
#[test]
fn the_persons_own_command_under_guard_still_reads_their_credentials() {
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    let target = Target::new("read-secrets");
    let netrc = target.home.path().join(".netrc");
    std::fs::write(&netrc, "SECRET\n").unwrap();
    let out = target
        .repo
        .cmd()
        .env("HOME", target.home.path())
        .args([
            "guard",
            "--sandbox",
            "require",
            "--",
            "grep",
            "-q",
            "SECRET",
        ])
        .arg(&netrc)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

/// A runner that needs no network (the built-in interviewer, a script) gets none: what it sends
/// to a server standing in for the internet, by TCP or in a UDP datagram, never arrives. With
/// `--network on` or without the sandbox it does.
#[test]
fn a_script_runner_sends_nothing_anywhere_unless_the_network_is_asked_for() {
    use std::net::{TcpListener, UdpSocket};
    use std::time::Duration;
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
    let cases: [Case; 4] = [
        (&[], &[], false),
        (&[], &[("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")], false),
        (&["--network", "on"], &[], true),
        (&["--sandbox", "off"], &[], true),
    ];
    for (args, env, arrives) in cases {
        let target = Target::new("exfiltrate");
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let tcp_port = tcp.local_addr().unwrap().port().to_string();
        let udp_port = udp.local_addr().unwrap().port().to_string();
        let mut envs: Vec<(&str, &str)> = env.to_vec();
        envs.push(("SANDBOX_TCP_PORT", &tcp_port));
        envs.push(("SANDBOX_UDP_PORT", &udp_port));
        let out = target.run("sandbox/tries-write.sh", args, &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let mut buf = [0u8; 16];
        let datagram = udp.recv(&mut buf).is_ok();
        let connected = tcp.accept().is_ok();
        assert_eq!(datagram, arrives, "{args:?} {env:?} UDP: {screen}");
        assert_eq!(connected, arrives, "{args:?} {env:?} TCP: {screen}");
        let expected = if arrives { "wrote\n" } else { "denied\n" };
        assert_eq!(target.attempt(), expected, "{args:?} {env:?}: {screen}");
    }
}

/// The person's own configuration, and the repository's, may add stores to hide (never remove
/// one): a secret in each is unreadable with the default sandbox, readable with `--sandbox off`.
#[test]
fn the_configuration_may_add_stores_to_hide() {
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let target = Target::new("read-secrets");
        let home = target.home.path();
        let mine = home.join("work-keys/deploy.pem");
        let theirs = home.join("vault.txt");
        for f in [&mine, &theirs] {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "SECRET\n").unwrap();
        }
        let local = target.repo.path().join(".interview/config.toml");
        let mut text = std::fs::read_to_string(&local).unwrap_or_default();
        text.insert_str(0, "hide_credentials = [\"~/work-keys\"]\n");
        std::fs::write(&local, text).unwrap();
        target.repo.write(
            "interview.toml",
            &format!("hide_credentials = [\"{}\"]\n", theirs.display()),
        );
        target.repo.git(&["add", "interview.toml"]);
        target.repo.git(&["commit", "-qm", "config"]);
        let list = format!("{} {}", mine.display(), theirs.display());
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.push(("SANDBOX_SECRETS", &list));
        let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let read =
            std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/read.txt"))
                .unwrap_or_default();
        let expected = if hidden { 0 } else { 2 };
        assert_eq!(
            read.lines().count(),
            expected,
            "{variant:?}: {read}\n{screen}"
        );
    }
}

/// HOME by allow list, not by a list of stores: a secret in a file no list names — a database
/// password file, a shell's history, notes, a tool's config beside the git configuration in
/// `~/.config` — is absent for a runner; without the sandbox each is read.
#[test]
fn a_runner_reads_nothing_of_home_it_was_not_shown_to_need() {
    needs_the_whole_sandbox();
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let target = Target::new("read-secrets");
        let home = target.home.path();
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::write(home.join(".config/git/config"), "[user]\n\tname = P\n").unwrap();
        let files = [
            home.join(".pgpass"),
            home.join(".bash_history"),
            home.join("notes/deploy.txt"),
            home.join(".config/rclone/rclone.conf"),
            home.join(".local/share/app/token"),
        ];
        for f in &files {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "SECRET\n").unwrap();
        }
        let read = read_by_runner(&target, variant, &files, &[]);
        assert_read(&read, &files, hidden, variant);
    }
}

/// A runner's `#!` line is followed where it leads: `#!~/.config/../../…/bin/sh` names /bin/sh,
/// and shows the runner nothing of `~/.config` (spelled literally, its top-level entry was
/// shown whole); without the sandbox the script reads the file.
#[test]
fn an_interpreter_spelled_through_home_shows_nothing_of_it() {
    use std::os::unix::fs::PermissionsExt;
    needs_the_whole_sandbox();
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let target = Target::new("read-secrets");
        let home = target.home.path();
        let secret = home.join(".config/app/token");
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "SECRET\n").unwrap();
        let ups = "../".repeat(home.components().count());
        let shebang = format!("{}/.config/{ups}bin/sh", home.display());
        assert!(std::path::Path::new(&shebang).exists(), "{shebang}");
        let scratch = tempfile::tempdir().unwrap();
        let script = scratch.path().join("run.sh");
        std::fs::write(
            &script,
            format!(
                "#!{shebang}\nexec /bin/sh {} \"$@\"\n",
                runner("sandbox/tries-write.sh")
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Two paths: a variable naming one path would show it (home.rs).
        let list = format!("{} {}/.pgpass", secret.display(), home.display());
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.push(("SANDBOX_SECRETS", &list));
        let out = target.run_command(script.to_str().unwrap(), variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let read =
            std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/read.txt"))
                .unwrap_or_default();
        if hidden {
            // The kernel walks the `#!` path as written, through what is absent: the runner
            // does not start, or starts and reads nothing.
            assert_eq!(read, "", "{variant:?} read: {read}\n{screen}");
        } else {
            assert_eq!(target.attempt(), "done\n", "{variant:?}: {screen}");
            assert_eq!(read.lines().count(), 1, "{variant:?}: {read}");
        }
    }
}

/// What a runner needs of HOME is there under the allow list: a program installed under HOME
/// (`~/.local/bin/mycli`, a link into `~/.local/share`), started by an interpreter found on a
/// `PATH` directory under HOME (`~/bin/mysh`) that is a link into yet another directory
/// (`~/.tools`), and the git configuration (the tool's copy of `~/.gitconfig`'s allowed keys,
/// and the excludes file it names; `~/.gitconfig` itself is absent).
#[test]
fn a_program_installed_under_home_runs_with_what_it_needs_of_home() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    needs_the_whole_sandbox();
    let target = Target::new("none");
    let home = target.home.path();
    let exec = |p: &std::path::Path, text: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    exec(
        &home.join(".tools/mysh"),
        "#!/bin/sh\nexec /bin/sh \"$@\"\n",
    );
    std::fs::create_dir_all(home.join("bin")).unwrap();
    symlink(home.join(".tools/mysh"), home.join("bin/mysh")).unwrap();
    exec(
        &home.join(".local/share/mycli/run.sh"),
        "#!/usr/bin/env mysh\n\
         . \"$(dirname \"$(readlink -f \"$0\")\")/lib.sh\"\n\
         grep -q excludesfile \"$GIT_CONFIG_GLOBAL\" && cat \"$HOME/excludes\" >/dev/null || exit 3\n\
         test -z \"$(cat \"$HOME/.gitconfig\" 2>/dev/null)\" || exit 5\n\
         test -z \"$(cat \"$HOME/.pgpass\" 2>/dev/null)\" || exit 4\n\
         receipt > \"$INTERVIEW_RECEIPT\"\n",
    );
    std::fs::write(
        home.join(".local/share/mycli/lib.sh"),
        "receipt() { echo '{\"receipt\":\"done\",\"version\":1,\"title\":\"t\",\"summary\":\"\",\"entries\":[{\"title\":\"a\",\"content\":\"b\",\"clarity\":\"inferred\",\"sources\":[]}]}'; }\n",
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".local/bin")).unwrap();
    symlink(
        home.join(".local/share/mycli/run.sh"),
        home.join(".local/bin/mycli"),
    )
    .unwrap();
    std::fs::write(home.join("excludes"), "*.secret\n").unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.join("excludes").display()
        ),
    )
    .unwrap();
    std::fs::write(home.join(".pgpass"), "SECRET\n").unwrap();
    let path = format!(
        "{}:{}:{}",
        home.join(".local/bin").display(),
        home.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for variant in [Variant::Default, Variant::LandlockOnly] {
        let out = target
            .repo
            .cmd()
            .env("HOME", home)
            .env("PATH", &path)
            .envs(variant.env().iter().copied())
            .args(["intent", "7", "--from", "item.md", "--runner", "mycli"])
            .arg("--answers")
            .arg(home.join("answers.json"))
            .args(["--yes", "--out", "-", "--retries", "0"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{variant:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}
/// The machine's own stores: run as root, a runner reads files as their owner, so without the
/// sandbox it reads the password hashes; with it, neither those nor the SSH host keys. (An
/// unprivileged user reads neither in any variant.)
#[test]
fn a_runner_reads_no_password_hash_of_the_machine() {
    needs_the_whole_sandbox();
    for (variant, hidden) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, !is_root()),
    ] {
        let target = Target::new("readable");
        let files = ["/etc/shadow", "/etc/gshadow"].map(PathBuf::from);
        let read = read_by_runner(&target, variant, &files, &[]);
        assert_read(&read, &files, hidden, variant);
    }
}

/// Run as root, a runner reads files as their owner: what only root may read — a VPN key under
/// /etc, a service's token under /var/lib — is hidden too, not only the stores a list names.
/// Without the sandbox root reads both; an unprivileged user reads them in no variant.
#[test]
fn run_as_root_a_runner_reads_nothing_only_root_may_read() {
    use std::os::unix::fs::PermissionsExt;
    needs_the_whole_sandbox();
    struct Planted(Vec<PathBuf>);
    impl Drop for Planted {
        fn drop(&mut self) {
            for p in &self.0 {
                let _ = std::fs::remove_dir_all(p).or_else(|_| std::fs::remove_file(p));
            }
        }
    }
    let tag = format!("interview-test-{}", std::process::id());
    let dir = PathBuf::from(format!("/etc/{tag}"));
    let files = [
        dir.join("wg0.conf"),
        PathBuf::from(format!("/var/lib/{tag}.token")),
    ];
    let _planted = Planted(vec![dir.clone(), files[1].clone()]);
    if is_root() {
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        for f in &files {
            std::fs::write(f, "SECRET\n").unwrap();
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
    for (variant, hidden) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, !is_root()),
    ] {
        let target = Target::new("readable");
        let read = read_by_runner(&target, variant, &files, &[]);
        assert_read(&read, &files, hidden, variant);
    }
}

/// A repository beside the worktree is absent, also when the runner is given a file of the
/// worktree by its absolute path (which shows that file, not the directory of repositories).
#[test]
fn another_repository_beside_the_worktree_is_absent() {
    needs_the_whole_sandbox();
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let repo = crate::util::TempRepo::inside_home();
        let other = repo.path().parent().unwrap().join("other/.env");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "SECRET\n").unwrap();
        repo.write(
            "item.md",
            "# Export to CSV\n\nUsers want their data as CSV.\n",
        );
        repo.write(
            "runner.sh",
            &format!(
                "grep -qs SECRET '{}' && echo read > \"$INTERVIEW_OUT/read.txt\"\n\
                 echo '{{\"receipt\":\"done\",\"version\":1,\"title\":\"t\",\"summary\":\"\",\"entries\":[{{\"title\":\"a\",\"content\":\"b\",\"clarity\":\"inferred\",\"sources\":[]}}]}}' > \"$INTERVIEW_RECEIPT\"\n",
                other.display()
            ),
        );
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-qm", "runner"]);
        repo.write(".git/answers.json", r#"{ "interview_answers": 1 }"#);
        let runner = format!("sh {}", repo.path().join("runner.sh").display());
        let out = repo
            .cmd()
            .envs(variant.env().iter().copied())
            .args(["intent", "7", "--from", "item.md", "--yes", "--out", "-"])
            .args(["--answers", ".git/answers.json", "--runner", &runner])
            .args(variant.args())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{variant:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        let read = std::fs::read_to_string(repo.session_dir().join("turns/001/out/read.txt"))
            .unwrap_or_default();
        assert_eq!(read.is_empty(), hidden, "{variant:?}: {read}");
    }
}

/// A preset's own configuration in HOME is shown to it (aider's `~/.aider.conf.yml`), and
/// nothing else of HOME beside it (`~/.pgpass`), with the namespaces and with Landlock alone.
#[test]
fn a_preset_reads_its_own_configuration_in_home_and_nothing_beside_it() {
    use crate::util::Interview;
    needs_the_whole_sandbox();
    for variant in [Variant::Default, Variant::LandlockOnly] {
        let repo = crate::util::TempRepo::new();
        std::fs::write(repo.home().join(".aider.conf.yml"), "model: mine\n").unwrap();
        std::fs::write(repo.home().join(".pgpass"), "SECRET\n").unwrap();
        let (_bin_dir, path) = fixture_as("sandbox/aider-reads-config.sh", "aider");
        let out = variant
            .env()
            .iter()
            .fold(Interview::of_work_item(&repo), |run, (k, v)| run.env(k, v))
            .preset("aider")
            .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
            .yes()
            .args(["--retries", "0"])
            .env("PATH", path)
            .run();
        let log = repo.session_file("turns/001/runner.log");
        assert_eq!(out.code, 0, "{variant:?}: {}\n{log}", out.stderr);
    }
}

/// A hostile repository's own `.git/config` names files in HOME (an include, an excludes file):
/// what the repository's configuration names is never shown for that reason; only the person's
/// own configuration widens what a runner sees of HOME.
#[test]
fn files_a_repositorys_config_names_in_home_stay_hidden() {
    needs_the_whole_sandbox();
    for (variant, hidden) in HOLDS_UNLESS_OFF {
        let target = Target::new("read-secrets");
        let home = target.home.path();
        let files = [home.join("secret.inc"), home.join("notes.txt")];
        std::fs::write(&files[0], "[user]\n\tname = SECRET\n").unwrap();
        std::fs::write(&files[1], "SECRET\n").unwrap();
        let config = target.repo.path().join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str(&format!(
            "[include]\n\tpath = {}\n[core]\n\texcludesFile = {}\n",
            files[0].display(),
            files[1].display()
        ));
        std::fs::write(&config, text).unwrap();
        let read = read_by_runner(&target, variant, &files, &[]);
        assert_read(&read, &files, hidden, variant);
    }
}

/// The person's git configuration, with a token in an `insteadOf` URL, in an `extraHeader` and
/// in an included file, beside an allowed name and a global excludes file; the three tokens.
fn plant_git_config(target: &Target) -> [&'static str; 3] {
    let home = target.home.path();
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = Ann Example\n\temail = ann@example.com\n\
         [core]\n\texcludesFile = ~/global-ignore\n\
         [url \"https://ann:TOKEN_IN_URL@github.com/\"]\n\tinsteadOf = https://github.com/\n\
         [http \"https://github.com/\"]\n\textraHeader = AUTHORIZATION: basic TOKEN_IN_HEADER\n\
         [include]\n\tpath = ~/secret.inc\n",
    )
    .unwrap();
    std::fs::write(
        home.join("secret.inc"),
        "[sendemail]\n\tsmtpPass = TOKEN_INCLUDED\n",
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".config/git")).unwrap();
    std::fs::write(
        home.join(".config/git/config"),
        "[github]\n\ttoken = TOKEN_INCLUDED\n",
    )
    .unwrap();
    std::fs::write(home.join("global-ignore"), "hidden-by-global.txt\n").unwrap();
    target.repo.write("hidden-by-global.txt", "x\n");
    target.repo.write("untracked.txt", "x\n");
    ["TOKEN_IN_URL", "TOKEN_IN_HEADER", "TOKEN_INCLUDED"]
}

/// A runner's git reads a configuration the tool wrote with the allowed keys only: the
/// person's `~/.gitconfig` and `~/.config/git/config` are absent, no token of theirs is in
/// anything it can read (its git's `--list --show-origin`, HOME, its configuration's
/// directory, a file of mode 0600 in a directory of mode 0700), and its `git log` and `git
/// status` still work with their name and global excludes. With `--sandbox off` the runner's git is the person's (the tokens show).
#[test]
fn a_runners_git_reads_only_the_allowed_keys_of_the_persons_configuration() {
    needs_the_whole_sandbox();
    // The machine's configuration, by the variable git reads it from: its allowed keys reach
    // the runner's git, its credential helper does not (nor does /etc/gitconfig itself).
    let scratch = tempfile::tempdir().unwrap();
    let system = scratch.path().join("gitconfig");
    std::fs::write(
        &system,
        "[core]\n\tautocrlf = input\n[credential]\n\thelper = !echo TOKEN_SYSTEM\n",
    )
    .unwrap();
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("git-config");
        let tokens = plant_git_config(&target);
        let mut env = variant.env().to_vec();
        env.push(("GIT_CONFIG_SYSTEM", system.to_str().unwrap()));
        let out = target.run("sandbox/reads-git-config.sh", variant.args(), &env);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(target.attempt(), "done\n", "{variant:?}: {screen}");
        let dir = target.repo.session_dir().join("turns/001/out");
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let errors = read("errors.txt");
        assert_eq!(read("name.txt"), "Ann Example\n", "{variant:?}: {errors}");
        assert!(!read("log.txt").is_empty(), "{variant:?}: {errors}");
        let status = read("status.txt");
        assert!(status.contains("untracked.txt"), "{variant:?}: {status}");
        assert!(
            !status.contains("hidden-by-global"),
            "{variant:?}: {status}"
        );
        let seen = read("seen.txt");
        let shown: Vec<&str> = tokens.into_iter().filter(|t| seen.contains(t)).collect();
        if variant == Variant::Off {
            assert_eq!(shown, tokens, "--sandbox off: the person's own git");
            assert_eq!(read("read.txt").lines().count(), 3);
        } else {
            assert_eq!(shown, [] as [&str; 0], "{variant:?}: {seen}");
            assert!(!seen.contains("TOKEN_SYSTEM"), "{variant:?}: {seen}");
            for system in ["file:/etc/gitconfig", "file:/usr/local/etc/gitconfig"] {
                assert!(!seen.contains(system), "{variant:?}: {seen}");
            }
            assert_eq!(read("autocrlf.txt"), "input\n", "{variant:?}: {errors}");
            assert_eq!(read("read.txt"), "", "{variant:?}");
            assert_eq!(
                read("modes.txt"),
                "600\n700\n",
                "{variant:?}: file, directory"
            );
        }
    }
}
