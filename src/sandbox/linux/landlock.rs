//! The Landlock ruleset a runner starts under: read and execute everywhere except terminals, the
//! credential stores and what of HOME it is not shown, write only to the turn's writable paths,
//! abstract sockets and signals scoped.

use std::path::{Path, PathBuf};

use ::landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use crate::sandbox::home::HomeView;
use crate::sandbox::policy::Policy;
use crate::sandbox::writes::{DEVICES, Writes};

/// The newest ABI this build knows; older kernels get what they support (best effort).
const TARGET: ABI = ABI::V10;

/// How the restriction went, for the launcher's checks.
pub(super) struct Applied {
    pub enforced: bool,
}

/// Restrict the calling process (and everything it later executes). `tmp` is the private
/// temporary directory as seen by the runner.
pub(super) fn restrict(policy: &Policy) -> Result<Applied, String> {
    let handled = AccessFs::from_all(TARGET);
    // Handled, so refused, and granted nowhere: no device node, named socket or FIFO is made
    // (a block device in out/ would reach the disk; a socket or FIFO would outlive the turn).
    let all = handled
        & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::MakeSock | AccessFs::MakeFifo);
    let mut ruleset = ruleset(policy, handled)?;
    let file_rights = AccessFs::from_file(TARGET);
    let mut grant = |path: &Path, access: BitFlags<AccessFs>| -> Result<(), String> {
        grant_beneath(&mut ruleset, path, access, file_rights)
    };
    grant_reads(policy, &mut grant)?;
    for path in &Writes::decide(policy).roots {
        grant(path, all)?;
    }
    // With namespaces /dev/shm is the runner's own (world.rs).
    if policy.namespaces {
        grant(Path::new("/dev/shm"), all)?;
    }
    let status = ruleset
        .restrict_self()
        .map_err(|e| format!("cannot apply the Landlock ruleset: {e}"))?;
    Ok(Applied {
        enforced: status.ruleset != RulesetStatus::NotEnforced,
    })
}

/// The ruleset handling `handled`, abstract sockets and signals scoped, and — for a runner with
/// its ports named (the model runner) — TCP: it connects to those ports only and binds none;
/// every other runner keeps the network (its service, its tools' servers).
fn ruleset(policy: &Policy, handled: BitFlags<AccessFs>) -> Result<RulesetCreated, String> {
    let net = AccessNet::ConnectTcp | AccessNet::BindTcp;
    let mut ruleset = Ruleset::default()
        .handle_access(handled)
        .and_then(|r| match policy.connect_ports {
            Some(_) => r.handle_access(net),
            None => Ok(r),
        })
        .and_then(|r| r.scope(Scope::AbstractUnixSocket | Scope::Signal))
        .and_then(|r| r.create())
        .map_err(|e| format!("cannot create the Landlock ruleset: {e}"))?;
    for port in policy.connect_ports.iter().flatten() {
        (&mut ruleset)
            .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
            .map_err(|e| format!("cannot add a Landlock rule for TCP port {port}: {e}"))?;
    }
    Ok(ruleset)
}

/// Grant `access` beneath `path` (only the file rights of it on a file); nothing for a path
/// that is not there, nor for a pipe or a socket (/dev/stdin and the like).
fn grant_beneath(
    ruleset: &mut RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    file_rights: BitFlags<AccessFs>,
) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(()); // nothing there to grant
    };
    let kind = meta.file_type();
    if !(kind.is_dir() || kind.is_file() || kind.is_char_device() || kind.is_block_device()) {
        return Ok(()); // pipes and sockets (/dev/stdin and the like) take no rule
    }
    let access = if meta.is_dir() {
        access
    } else {
        access & file_rights
    };
    let fd = PathFd::new(path).map_err(|e| format!("{}: {e}", path.display()))?;
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| format!("cannot add a Landlock rule for {}: {e}", path.display()))?;
    Ok(())
}

/// How deep [`Tree::grant`] goes towards a hidden path or HOME (deeper ones are not reached).
const DEEPEST: usize = 32;

/// Reading granted by allow list: everything beneath a path but the credential stores and what
/// of HOME the runner is not shown. Landlock only adds rights, so a path that holds something
/// not to be read is granted its listing alone, and each of its entries is decided in turn.
struct Tree<'a> {
    read: BitFlags<AccessFs>,
    hidden: &'a [PathBuf],
    home: Option<&'a HomeView>,
}

impl Tree<'_> {
    fn grant(&self, path: &Path, grant: &mut Grant<'_>, depth: usize) -> Result<(), String> {
        // A link is decided where it leads (a rule on it would grant its target).
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let is = |p: &Path| real.starts_with(p) || path.starts_with(p);
        if self.hidden.iter().any(|h| is(h)) || depth > DEEPEST {
            return Ok(());
        }
        if let Some(view) = self.home
            && real.starts_with(&view.home)
        {
            if real == view.home {
                grant(&real, AccessFs::ReadDir.into())?;
                let shown = Tree {
                    home: None,
                    ..*self
                };
                for rel in &view.shown {
                    shown.grant(&view.home.join(rel), grant, depth + 1)?;
                }
            } else if view
                .shown
                .iter()
                .any(|rel| real.starts_with(view.home.join(rel)))
            {
                Tree {
                    home: None,
                    ..*self
                }
                .grant(&real, grant, depth + 1)?;
            }
            return Ok(());
        }
        let holds = |p: &Path| p.starts_with(&real) && p != real;
        if self.hidden.iter().any(|h| holds(h)) || self.home.is_some_and(|v| holds(&v.home)) {
            grant(&real, AccessFs::ReadDir.into())?;
            if let Ok(entries) = std::fs::read_dir(&real) {
                for entry in entries.flatten() {
                    self.grant(&entry.path(), grant, depth + 1)?;
                }
            }
            return Ok(());
        }
        grant(path, self.read)
    }
}

/// Grants access beneath a path (see [`grant_beneath`]).
type Grant<'a> = dyn FnMut(&Path, BitFlags<AccessFs>) -> Result<(), String> + 'a;

/// What is readable: every top-level entry but /dev, the entries of /tmp under namespaces, and
/// /dev's harmless devices — but, by allow list, of HOME only what the runner is shown to need
/// (home.rs), and none of the credential stores (secrets.rs), also where no mount namespace
/// hides them ([`Tree`]).
fn grant_reads(policy: &Policy, grant: &mut Grant<'_>) -> Result<(), String> {
    let read = AccessFs::from_read(TARGET);
    let mut hidden: Vec<PathBuf> = policy.hidden.clone();
    hidden.extend(
        policy
            .hidden
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok()),
    );
    let tree = Tree {
        read,
        hidden: &hidden,
        home: policy.home.as_ref(),
    };
    // Listing `/` is allowed; reading is granted per top-level entry so /dev can be split.
    grant(Path::new("/"), AccessFs::ReadDir.into())?;
    let entries = std::fs::read_dir("/").map_err(|e| format!("cannot list /: {e}"))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == "dev" {
            continue;
        }
        tree.grant(&Path::new("/").join(&name), grant, 0)?;
    }
    // In the mount namespace /tmp is a new file system: its entries are the host's directories
    // (the same inodes), so a rule on each also covers files the runner reaches by their host
    // path (its standard input, the brief, opened before the namespace existed).
    if policy.namespaces
        && let Ok(entries) = std::fs::read_dir("/tmp")
    {
        for entry in entries.flatten() {
            tree.grant(&entry.path(), grant, 0)?;
        }
    }
    // /dev by allow list: only the harmless devices every program expects, nothing else (not
    // a disk, a console's memory, a terminal). Its links (/dev/fd, /dev/stdin…) lead into /proc.
    grant(Path::new("/dev"), AccessFs::ReadDir.into())?;
    for name in DEVICES {
        grant(
            &Path::new("/dev").join(name),
            read | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev,
        )?;
    }
    Ok(())
}
