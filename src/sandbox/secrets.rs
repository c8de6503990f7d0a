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
