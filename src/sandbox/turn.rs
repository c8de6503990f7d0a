//! One start of a runner under the run's [`Confinement`]: what changes from turn to turn — the
//! private TMPDIR, the state views, the turn's writable `out/`, the proxy and its ports — made
//! here, and taken down again when the [`Prepared`] start is dropped.
//!
//! Not for: what stays the same for the whole run (the confinement itself, mod.rs).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    Confinement, Credential, StateGrant, agent, git_config, hosts, launch, leftovers, policy,
    proxy, restore, state,
};

impl Confinement {
    /// Prepare one start of a runner: a private temporary directory, the launcher's command
    /// line, and the environment changes. `writable` are the turn's own writable directories
    /// (its `out/`); `env` the allow list of its environment (`env::allow_list`; `None`: a
    /// command of the person's own keeps all but server handles). Keep the returned
    /// [`Prepared`] until the runner and all it started are gone.
    pub(crate) fn prepare(
        &self,
        argv: &[String],
        cwd: &Path,
        writable: &[PathBuf],
        env: Option<&[String]>,
    ) -> std::io::Result<Prepared> {
        let tmp = tempfile::Builder::new()
            .prefix("interview-turn-")
            .tempdir_in(self.temp_base())?;
        let tmp_path = std::fs::canonicalize(tmp.path())?;
        let grant = StateGrant::decide(&self.support, self.cli.as_ref(), argv, &self.state);
        if grant.argv.is_none() {
            agent::warn_once(self.cli.as_ref(), argv, self.support.confines_writes());
        }
        let argv = grant.argv.as_deref().unwrap_or(argv);
        let program = argv
            .first()
            .ok_or_else(|| std::io::Error::other("the runner command is empty"))?;
        let resolved = resolve_program(program, cwd).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "not found on PATH (or not executable)",
            )
        })?;
        let writable = writable_paths(writable, &grant);
        let (views_dir, views) = self.state_views(&grant.throwaway)?;
        let git_config = self.git_config_file()?;
        let (trees, mut exact) = self.visible(argv, cwd, &resolved, &writable, &views);
        exact.push(tmp_path.clone());
        exact.extend(git_config.iter().map(|(_, file)| file.clone()));
        exact.extend(super::env::named_paths(std::env::vars_os(), env));
        let home = self
            .hides_credentials
            .then(|| super::home::view(self.located.home.as_deref(), &trees, &exact))
            .flatten();
        let mut visible = trees;
        visible.extend(exact);
        visible.extend(self.located.home.iter().cloned());
        let egress = self
            .egress()
            .map(|allowed| self.start_proxy(allowed))
            .transpose()?;
        let policy = policy::Policy {
            tool_pid: std::process::id() as i32,
            landlock: self.support.landlock_abi.is_some(),
            namespaces: self.support.namespaces,
            seatbelt: self.support.seatbelt,
            tmp: tmp_path.clone(),
            writable,
            protected: self.protected.clone(),
            visible,
            home,
            views: views.clone(),
            connect_ports: self.connect_ports(argv, egress.as_ref().map(|(plan, ..)| plan)),
            seccomp: self.support.seccomp,
            unix_sockets: false,
            hidden: self.hidden(),
            env: env.map(<[String]>::to_vec),
            network_off: self.network_off,
            disk_mib: self.disk_mib,
            proxy: egress.as_ref().map(|(plan, ..)| plan.clone()),
            git_config: git_config.as_ref().map(|(_, file)| file.clone()),
            caches: private_caches(&tmp_path, &grant.private_caches),
        };
        let argv = launcher_argv(self.located.exe.as_deref(), &policy, &resolved, argv)?;
        let _kept = tmp.keep();
        Ok(Prepared {
            argv,
            tmp: Some(tmp_path),
            views_dir,
            git_config_dir: git_config.map(|(dir, _)| dir),
            views,
            credentials: agent::credentials(self.cli.as_ref()),
            logins: self.logins.clone(),
            // Read before the runner starts, put back when it is dropped.
            settings: save_settings(&grant.restored),
            proxy: egress.map(|(_, proxy, pair)| (proxy, pair)),
        })
    }

    /// The turn's throwaway views of the CLI's state `throwaway`, laid out in a new directory
    /// of their own (none when there is nothing to show), showing the logins the session's
    /// earlier turns refreshed.
    fn state_views(
        &self,
        throwaway: &[PathBuf],
    ) -> std::io::Result<(Option<PathBuf>, Vec<state::View>)> {
        if throwaway.is_empty() {
            return Ok((None, Vec::new()));
        }
        let dir = tempfile::Builder::new()
            .prefix("interview-state-")
            .tempdir_in(self.temp_base())?
            .keep();
        let views = state::plan(throwaway, &dir)
            .and_then(|views| {
                if let Some(store) = &self.logins {
                    state::seed(&views, &agent::credentials(self.cli.as_ref()), store)?;
                }
                Ok(views)
            })
            .inspect_err(|_| {
                let _ = leftovers::remove(&dir);
            })?;
        Ok((Some(dir), views))
    }

    /// The runner's git configuration (git_config.rs) written in a new directory of the turn
    /// (mode 0700, where private temporary directories go: never in the worktree or a git
    /// directory): the directory and the file. `None` for a command of the person's own.
    fn git_config_file(&self) -> std::io::Result<Option<(PathBuf, PathBuf)>> {
        let Some(text) = &self.git_config else {
            return Ok(None);
        };
        let dir = tempfile::Builder::new()
            .prefix("interview-git-")
            .tempdir_in(self.temp_base())?
            .keep();
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        // Made as the umask says (0755): no other user lists it.
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        match std::fs::set_permissions(&dir, private).and_then(|()| git_config::write(&dir, text)) {
            Ok(file) => Ok(Some((dir, file))),
            Err(e) => {
                let _ = leftovers::remove(&dir);
                Err(e)
            }
        }
    }

    /// What stays visible where a mount namespace hides the rest (HOME aside), in two parts
    /// (home.rs): what is shown with the installation around it — the program and its
    /// interpreter, absolute arguments outside what is shown exactly (a script beside its
    /// modules), our own executable, `PATH` and where its links under HOME lead — and what is
    /// shown exactly: the working directory, the protected and writable paths, the state and
    /// the preset's own login, absolute arguments inside those.
    fn visible(
        &self,
        argv: &[String],
        cwd: &Path,
        resolved: &Path,
        writable: &[PathBuf],
        views: &[state::View],
    ) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut trees: Vec<PathBuf> = vec![resolved.to_path_buf()];
        trees.extend(super::home::interpreter(resolved));
        trees.extend(self.located.exe.iter().cloned());
        trees.extend(self.located.visible.iter().cloned());
        let mut exact: Vec<PathBuf> = vec![cwd.to_path_buf()];
        exact.extend(
            agent::credentials(self.cli.as_ref())
                .into_iter()
                .map(|c| c.path),
        );
        if let (Some(cli), Some(home)) = (&self.cli, &self.located.home) {
            exact.extend((cli.reads)(home));
        }
        // What the repository's configuration alone includes is protected, never shown for it;
        // nor the person's global configuration where the runner's git reads the allowed keys
        // of it instead (git_config.rs), only the ignore and attributes files it names.
        let named = &self.named_by_git;
        let filtered = self.git_config.is_some();
        exact.extend(
            self.protected
                .iter()
                .filter(|p| !named.repository_includes.contains(p))
                .filter(|p| !filtered || !named.global.contains(p))
                .cloned(),
        );
        if filtered {
            // Only those that exist: a missing one would show its directory (`~/.config/git`).
            exact.extend(
                (named.user.iter().chain(&named.defaults))
                    .filter(|p| std::fs::symlink_metadata(p).is_ok())
                    .cloned(),
            );
        } else {
            exact.extend(named.user.iter().cloned());
        }
        if self.cli.is_some_and(|c| c.reads_repository_ignores) {
            exact.extend(named.repository.iter().cloned());
        }
        exact.extend(writable.iter().cloned());
        exact.extend(views.iter().map(|v| v.real.clone()));
        // Readable where they are not writable (`~/.cache` for a CLI under its replaced sandbox).
        exact.extend(
            self.state
                .iter()
                .filter_map(|p| std::fs::canonicalize(p).ok()),
        );
        // An absolute argument inside what is shown exactly (a file of the worktree, the brief)
        // is shown so; another (a script beside its modules) with its installation.
        for arg in argv.iter().skip(1).map(PathBuf::from) {
            if arg.is_absolute() {
                let inside = exact.iter().any(|e| arg.starts_with(e));
                if inside { &mut exact } else { &mut trees }.push(arg);
            }
        }
        (trees, exact)
    }

    /// The TCP ports a runner started as `argv` may connect to (`None`: not restricted by
    /// port), given the proxy it goes through, if any.
    fn connect_ports(
        &self,
        argv: &[String],
        proxy: Option<&policy::ProxyPlan>,
    ) -> Option<Vec<u16>> {
        let connect_ports = self.cli.and_then(|c| c.connects).map(|ports| ports(argv));
        let Some(plan) = proxy else {
            return connect_ports;
        };
        let mut ports = connect_ports.unwrap_or_default();
        ports.push(plan.port);
        if plan.in_namespace {
            // The namespace confines an agent CLI; the model runner keeps its port rule.
            self.cli.and_then(|c| c.connects).map(|_| ports)
        } else {
            // Landlock (ABI 4) or Seatbelt alone: the proxy's port and the loopback
            // servers' only.
            ports.extend(plan.forwards.iter().copied());
            Some(ports)
        }
    }

    /// Start the proxy for a runner allowed `allowed`: with namespaces it waits for the
    /// listeners the launcher makes in the runner's network namespace (linux/netns.rs), which it
    /// reaches through the returned socket pair's end (placed as the launcher's descriptor 3);
    /// without them it listens on the host's 127.0.0.1 itself.
    fn start_proxy(
        &self,
        allowed: Vec<hosts::Host>,
    ) -> std::io::Result<(
        policy::ProxyPlan,
        Arc<proxy::Proxy>,
        Option<std::os::fd::OwnedFd>,
    )> {
        let forwards = hosts::loopback_ports(&allowed);
        let proxy = proxy::Proxy::new(allowed.clone());
        #[cfg(target_os = "linux")]
        if self.support.namespaces {
            // Any free port of the runner's own namespace: the first from 3128 not forwarded.
            let port = (3128..=u16::MAX)
                .find(|p| !forwards.contains(p))
                .unwrap_or(3128);
            let plan = policy::ProxyPlan {
                port,
                forwards,
                in_namespace: true,
            };
            let (tool_end, launcher_end) = std::os::unix::net::UnixStream::pair()?;
            let loopback: Vec<hosts::Host> =
                allowed.into_iter().filter(|h| h.is_loopback()).collect();
            super::linux::netns::receive(tool_end, &proxy, &plan, loopback);
            return Ok((plan, proxy, Some(launcher_end.into())));
        }
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        let plan = policy::ProxyPlan {
            port: listener.local_addr()?.port(),
            forwards,
            in_namespace: false,
        };
        proxy.serve(listener, proxy::Role::Proxy);
        Ok((plan, proxy, None))
    }
}

/// One prepared start: run `argv` (the launcher) instead. Dropping it, once the runner and all
/// it started are gone, keeps a refreshed login for the session's next turns (never in the
/// person's file) and removes the private TMPDIR and the views, whatever modes the runner left
/// in them.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub argv: Vec<String>,
    /// The private TMPDIR.
    tmp: Option<PathBuf>,
    views_dir: Option<PathBuf>,
    /// The directory of the runner's git configuration (git_config.rs).
    git_config_dir: Option<PathBuf>,
    views: Vec<state::View>,
    credentials: Vec<Credential>,
    /// Where the session keeps the logins its CLI refreshed ([`Confinement::logins`]).
    logins: Option<PathBuf>,
    /// The CLI's configuration files as they were before the turn, where no view takes its
    /// writes: put back after it.
    settings: restore::Saved,
    /// The runner's proxy, and the launcher's end of the socket pair its listeners come back
    /// on (Linux with namespaces).
    proxy: Option<(Arc<proxy::Proxy>, Option<std::os::fd::OwnedFd>)>,
}

impl Prepared {
    /// The runner's proxy, if its network goes through one: `Proxy::stop` it once the
    /// runner is gone for what it connected to.
    pub(crate) fn proxy(&self) -> Option<Arc<proxy::Proxy>> {
        self.proxy.as_ref().map(|(p, _)| Arc::clone(p))
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some((proxy, _)) = self.proxy.take() {
            proxy.stop();
        }
        if let Some(line) = self.settings.put_back() {
            crate::output::stderr_line(&line);
        }
        for problem in state::keep(&self.views, &self.credentials, self.logins.as_deref()) {
            crate::output::stderr_line(&format!("interview: warning: {problem}"));
        }
        for dir in [self.views_dir.take(), self.git_config_dir.take()]
            .into_iter()
            .flatten()
        {
            let _ = leftovers::remove(&dir);
        }
        if let Some(tmp) = self.tmp.take()
            && let Err(e) = leftovers::remove(&tmp)
        {
            crate::output::stderr_line(&format!(
                "interview: warning: the turn's temporary directory {} could not be removed: {e}",
                tmp.display()
            ));
        }
    }
}

/// What the runner may write: the turn's own directories (`writable`), the state `grant`ed to
/// be kept, and a configuration file that is a state path of its own (`~/.claude.json`;
/// the others are inside a state directory), writable for the turn and put back after it.
fn writable_paths(writable: &[PathBuf], grant: &StateGrant) -> Vec<PathBuf> {
    let restored_files = grant
        .restored
        .iter()
        .filter(|p| std::fs::canonicalize(p).ok().as_ref() == Some(*p));
    let mut writable: Vec<PathBuf> = writable
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .chain(grant.kept.iter().cloned())
        .chain(restored_files.cloned())
        .collect();
    writable.sort();
    writable.dedup();
    writable
}

/// The CLI's configuration files `restored` as they are before the turn, with a warning for
/// each that cannot be put back after it.
fn save_settings(restored: &[PathBuf]) -> restore::Saved {
    let (saved, unsaved) = restore::Saved::take(restored);
    for problem in unsaved {
        crate::output::stderr_line(&format!("interview: warning: {problem}"));
    }
    saved
}

/// The variables that move the shared caches into the private TMPDIR `tmp` (`vars`: each with
/// where under it), and those directories made.
fn private_caches(tmp: &Path, vars: &[(&str, &str)]) -> Vec<(String, PathBuf)> {
    vars.iter()
        .map(|(name, under)| {
            let dir = tmp.join(under);
            let _ = std::fs::create_dir_all(&dir);
            (name.to_string(), dir)
        })
        .collect()
}

/// Where `program` is: the one lookup of every child the tool starts
/// ([`crate::process::program`]), `cwd` (the worktree) counting as the repository.
fn resolve_program(program: &str, cwd: &Path) -> Option<PathBuf> {
    crate::process::program::find(program.as_ref(), cwd, cwd)
}

/// The launcher's command line: our own executable, `__sandbox run POLICY --`, and the runner
/// (`resolved` in place of its first argument).
fn launcher_argv(
    exe: Option<&Path>,
    policy: &policy::Policy,
    resolved: &Path,
    argv: &[String],
) -> std::io::Result<Vec<String>> {
    let exe = exe.ok_or_else(|| std::io::Error::other("cannot find our own executable"))?;
    let mut launcher = vec![
        exe.display().to_string(),
        launch::ARG.to_string(),
        "run".to_string(),
        serde_json::to_string(policy).map_err(std::io::Error::other)?,
        "--".to_string(),
        resolved.display().to_string(),
    ];
    launcher.extend(argv.iter().skip(1).cloned());
    Ok(launcher)
}

impl crate::process::Launcher for Prepared {
    /// The launcher, which confines itself and then executes the runner.
    fn argv(&self, _argv: &[std::ffi::OsString]) -> std::io::Result<Vec<std::ffi::OsString>> {
        Ok(self.argv.iter().map(Into::into).collect())
    }

    /// The launcher's end of the proxy's socket pair (linux/netns.rs), as its descriptor 3.
    fn descriptor(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        self.proxy
            .as_ref()
            .and_then(|(_, fd)| fd.as_ref())
            .map(AsRawFd::as_raw_fd)
    }
}
