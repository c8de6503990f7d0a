//! The person's credential stores, which no runner reads: the one list of them (shown by
//! `interview runners`, docs/sandbox.md). A preset still reads its own login.
//!
//! Linux hides each in the runner's mount namespace (linux/mounts.rs: a directory covered by an
//! empty read-only file system, a file by `/dev/null`); macOS denies reading them in the
//! Seatbelt profile. Not for: which paths are writable (writes.rs).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Credential stores under HOME: keys, cloud and container logins, netrc and git credentials,
/// the GitHub CLI, package registries' tokens, password stores and keyrings, browser profiles,
/// and the agent CLIs' logins (a preset's own is given back, see [`hidden`]).
pub(crate) const IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".config/pip/pip.conf",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/op",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    "Library/Keychains",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Cookies",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot",
];

/// The machine's own credential stores, outside any HOME: password hashes, the SSH server's host
/// keys, TLS private keys. Readable only by root, so they matter where the tool runs as root: a
/// runner then reads files as root (without root's capabilities, but as their owner).
pub(crate) const SYSTEM: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/master.passwd",
    "/etc/ssh",
    "/etc/ssl/private",
    "/root/.ssh",
];

/// Where a machine keeps what only root reads, beyond [`SYSTEM`]'s stores: configuration
/// (`/etc/wireguard`, `/etc/kubernetes/admin.conf`), services' data and logs, installations,
/// other users' homes.
pub(crate) const ROOTS_OF_THE_MACHINE: &[&str] = &[
    "/etc",
    "/var",
    "/opt",
    "/srv",
    "/usr/local",
    "/boot",
    "/root",
    "/home",
];
/// How deep below each of those, and how many entries at most, the walk looks.
const CLOSED_DEPTH: usize = 3;
const CLOSED_MOST: usize = 20_000;

/// Run as root, a runner reads files as their owner: what `uid`/`gid` may read but others may
/// not, below `roots` (a file no one else may read, a directory no one else may enter), is hidden
/// too — the runner reads of the machine what any user could. Never one that is, holds or lies
/// inside a path of `needed` (the worktree, HOME — shown by its own allow list —, the programs).
pub(crate) fn closed_to_others(
    roots: &[PathBuf],
    needed: &[PathBuf],
    uid: u32,
    gid: u32,
) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut closed = Vec::new();
    let mut visits = 0;
    let mut stack: Vec<(PathBuf, usize)> = roots.iter().map(|r| (r.clone(), 0)).collect();
    while let Some((path, depth)) = stack.pop() {
        visits += 1;
        if visits > CLOSED_MOST {
            break;
        }
        // Inside what the runner needs (HOME has an allow list of its own): not ours to close.
        if needed.iter().any(|n| path.starts_with(n)) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let ours = meta.uid() == uid || meta.gid() == gid;
        let open = if meta.is_dir() {
            meta.mode() & 0o001 != 0
        } else {
            meta.mode() & 0o004 != 0
        };
        let holds_needed = needed.iter().any(|n| n.starts_with(&path));
        if ours && !open && !meta.file_type().is_symlink() && !holds_needed {
            closed.push(path);
            continue;
        }
        if meta.is_dir() && depth < CLOSED_DEPTH {
            let Ok(entries) = std::fs::read_dir(&path) else {
                continue;
            };
            let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            children.sort();
            stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
        }
    }
    closed.sort();
    closed
}

/// Credential stores a variable moves elsewhere: the variable, and the file in the directory
/// it names (`None`: the path it names is the store itself).
pub(crate) const MOVED_BY: &[(&str, Option<&str>)] = &[
    ("GNUPGHOME", None),
    ("AWS_SHARED_CREDENTIALS_FILE", None),
    ("AWS_CONFIG_FILE", None),
    ("AZURE_CONFIG_DIR", None),
    ("CLOUDSDK_CONFIG", None),
    ("KUBECONFIG", None),
    ("DOCKER_CONFIG", Some("config.json")),
    ("NETRC", None),
    ("GH_CONFIG_DIR", None),
    ("NPM_CONFIG_USERCONFIG", None),
    ("CARGO_HOME", Some("credentials.toml")),
    ("CARGO_HOME", Some("credentials")),
    ("PASSWORD_STORE_DIR", None),
    ("CLAUDE_CONFIG_DIR", Some(".credentials.json")),
    ("CODEX_HOME", Some("auth.json")),
    ("XDG_CONFIG_HOME", Some("gh")),
    ("XDG_CONFIG_HOME", Some("gcloud")),
    ("XDG_CONFIG_HOME", Some("git/credentials")),
];

/// The paths to hide from a runner, given HOME and the environment: every store of
/// [`SYSTEM`], [`IN_HOME`] and [`MOVED_BY`] plus `extra` (the person's own additions), but none that is or
/// holds one of `own` (the preset's own credential files, which it reads to log in). Only
/// absolute paths; existing or not (a store made during the turn is not there to read either:
/// HOME is read-only in the runner's world).
pub(crate) fn hidden(
    home: Option<&Path>,
    var: impl Fn(&str) -> Option<OsString>,
    own: &[PathBuf],
    extra: &[PathBuf],
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = SYSTEM.iter().map(PathBuf::from).collect();
    if let Some(home) = home {
        paths.extend(IN_HOME.iter().map(|rel| home.join(rel)));
    }
    for (name, file) in MOVED_BY {
        let Some(value) = var(name) else { continue };
        // KUBECONFIG is a list.
        for dir in std::env::split_paths(&value) {
            paths.push(match file {
                Some(file) => dir.join(file),
                None => dir,
            });
        }
    }
    paths.extend(extra.iter().cloned());
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| p.is_absolute())
        .filter(|p| !own.iter().any(|o| o.starts_with(p)))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_only_we_may_read_is_closed_to_others_but_what_is_needed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        for d in [
            "etc/wg",
            "etc/open/inner",
            "srv/app/repo",
            "etc/listing",
            "etc/home/.ssh",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for (f, m) in [
            ("etc/passwd", 0o644),
            ("etc/admin.conf", 0o600),
            ("etc/open/inner/key", 0o640),
            ("etc/listing/token", 0o600),
            ("srv/app/repo/README", 0o644),
        ] {
            std::fs::write(root.join(f), "x").unwrap();
            mode(&root.join(f), m);
        }
        mode(&root.join("etc/wg"), 0o700);
        mode(&root.join("etc/home/.ssh"), 0o700);
        mode(&root.join("etc/listing"), 0o711);
        mode(&root.join("srv/app"), 0o700);
        let (uid, gid) = (
            nix::unistd::geteuid().as_raw(),
            nix::unistd::getegid().as_raw(),
        );
        let closed = closed_to_others(
            &[root.join("etc"), root.join("srv")],
            &[root.join("srv/app/repo"), root.join("etc/home")],
            uid,
            gid,
        );
        assert_eq!(
            closed,
            [
                "etc/admin.conf",
                "etc/listing/token",
                "etc/open/inner/key",
                "etc/wg"
            ]
            .map(|p| root.join(p))
        );
        // Another owner's: not ours to read anyway.
        assert!(closed_to_others(&[root.join("etc")], &[], uid + 1, gid + 1).is_empty());
    }

    fn none(_: &str) -> Option<OsString> {
        None
    }

    #[test]
    fn the_stores_in_home_are_hidden_but_the_presets_own_login() {
        let home = Path::new("/home/ann");
        let own = [home.join(".codex/auth.json")];
        let paths = hidden(Some(home), none, &own, &[]);
        assert!(paths.contains(&PathBuf::from("/etc/shadow")));
        for store in [
            ".ssh",
            ".aws",
            ".netrc",
            ".config/gh",
            ".claude/.credentials.json",
        ] {
            assert!(paths.contains(&home.join(store)), "{store}");
        }
        assert!(!paths.contains(&home.join(".codex/auth.json")));
    }

    #[test]
    fn a_store_moved_by_a_variable_is_hidden_where_it_is() {
        let var = |name: &str| match name {
            "GNUPGHOME" => Some(OsString::from("/keys/gnupg")),
            "KUBECONFIG" => Some(OsString::from("/k/a:/k/b")),
            "DOCKER_CONFIG" => Some(OsString::from("/d")),
            "CODEX_HOME" => Some(OsString::from("relative")),
            _ => None,
        };
        let paths = hidden(None, var, &[], &[PathBuf::from("/srv/secret")]);
        for p in [
            "/keys/gnupg",
            "/k/a",
            "/k/b",
            "/d/config.json",
            "/srv/secret",
        ] {
            assert!(paths.contains(&PathBuf::from(p)), "{p}");
        }
        assert!(paths.iter().all(|p| p.is_absolute()));
    }
}
