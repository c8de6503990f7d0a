//! The command layer: one file per subcommand. A parsed command line comes in, settings are
//! resolved once ([`settings`]), and the part of the tool that does the work is called with
//! typed values; nothing below this layer sees a clap type (docs/architecture.md).

mod answers;
mod completions;
mod guard;
mod interview;
mod man;
mod person;
mod prune;
mod resume;
mod runner;
mod runners;
pub mod settings;
mod stats;
mod status;
mod workspace;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::error::{Error, Result};
use crate::session::Repo;
use crate::session::lock::WorktreeLock;
use crate::session::tier::LocalTier;

/// Run a command; returns the exit code of a successful run.
pub fn run(cli: Cli) -> Result<i32> {
    crate::signals::install().map_err(|e| Error::io("cannot install signal handlers", e))?;
    let cwd = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    let look = person::Presentation {
        color: cli.color,
        no_bell: cli.no_bell,
    };
    // A command that only prints is done when its reader stopped reading (`| head`).
    let printed = |result: Result<i32>| match result {
        Err(Error::ClosedOutput) => Ok(crate::error::code::DONE),
        other => other,
    };
    match &cli.command {
        Command::Runner { name } => runner::run(name),
        Command::Runners { json } => printed(runners::run(*json)),
        Command::Completions { shell } => completions::run(*shell),
        Command::Man => man::run(),
        Command::Prune {
            older_than,
            keep,
            unfinished,
        } => printed(prune::run(&cwd, *older_than, *keep, *unfinished)),
        Command::Stats { json } => printed(stats::run(&cwd, *json)),
        Command::Answers { which, output } => printed(answers::run(&cwd, which, output.as_deref())),
        Command::Status { session, all, json } => {
            printed(status::run(&cwd, session.as_deref(), *all, *json))
        }
        Command::Guard(args) if args.snapshot.is_some() => printed(guard::run(&cwd, args)),
        Command::Resume { session, ack, run } => {
            resume::run(&cwd, look, session.as_deref(), *ack, run)
        }
        Command::Guard(args) => guard::run(&cwd, args),
        Command::Reflect { tag, run } => interview::reflect(&cwd, look, tag, run),
        Command::Intent {
            id,
            from,
            run,
            clarify_into,
        } => interview::intent(
            &cwd,
            look,
            id,
            from.as_deref(),
            clarify_into.as_deref(),
            run,
        ),
    }
}

/// Write `bytes` to standard output. A reader that stopped early (`| head`) is not an error.
fn print_bytes(bytes: &[u8], what: &str) -> Result<i32> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(crate::error::code::DONE),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(crate::error::code::DONE),
        Err(e) => Err(Error::io(format!("cannot write {what}"), e)),
    }
}

/// Find the repository around `dir`, without trusting or running anything in it.
pub fn discover(dir: &Path) -> Result<Repo> {
    // Found by reading `.git` files directly, and checked for files an `open()` could block on
    // before gix reads anything (docs/guard.md); gix then opens it isolated (no user, system or
    // environment config, no includes).
    let cannot = |e: &dyn std::fmt::Display| {
        Error::Repo(format!(
            "cannot open the git repository around {}: {e}",
            dir.display()
        ))
    };
    let layout = crate::guard::Layout::locate(dir).map_err(|e| match e {
        crate::guard::GuardError::NotARepository { .. } => Error::Repo(format!(
            "{} is not inside a git repository (no .git in it or above it); run interview inside one, or pass -C DIR",
            dir.display()
        )),
        e => cannot(&e),
    })?;
    if let Some(why) = crate::guard::unsafe_to_open(&layout) {
        return Err(cannot(&why));
    }
    let repo =
        gix::open_opts(&layout.worktree, gix::open::Options::isolated()).map_err(|e| cannot(&e))?;
    let worktree = repo
        .workdir()
        .ok_or_else(|| Error::Repo("the repository is bare: interview needs a worktree".into()))?;
    let worktree = std::fs::canonicalize(worktree)
        .map_err(|e| Error::io(format!("cannot resolve {}", worktree.display()), e))?;
    let common_dir = PathBuf::from(repo.common_dir());
    let workspace_id = workspace::workspace_id(&repo, &worktree);
    Ok(Repo {
        worktree,
        common_dir,
        workspace_id,
    })
}

/// The local tier is this machine's own: a repository that commits files in it (a session whose
/// `session.json` names a command to run as its runner, say) is refused before anything there
/// is run, resumed, cleaned or removed. Checked where every command that writes takes the lock.
fn refuse_committed_tier(repo: &Repo) -> Result<()> {
    let cannot = |e: &dyn std::fmt::Display| {
        Error::Repo(format!(
            "cannot read the index of {}: {e}",
            repo.worktree.display()
        ))
    };
    // `discover` checked the git directory for files an open() could block on.
    let git =
        gix::open_opts(&repo.worktree, gix::open::Options::isolated()).map_err(|e| cannot(&e))?;
    let index = git.index_or_empty().map_err(|e| cannot(&e))?;
    let tier = crate::session::tier::TIER_DIR.as_bytes();
    let committed = index.entries().iter().map(|e| e.path(&index)).find(|p| {
        let p: &[u8] = p.as_ref();
        p == tier || (p.starts_with(tier) && p.get(tier.len()) == Some(&b'/'))
    });
    match committed {
        None => Ok(()),
        Some(path) => Err(Error::Repo(format!(
            "the repository commits {path}, inside the local tier `.interview/`, which belongs to \
             this machine and is never committed: nothing in it is used (a session from elsewhere \
             could name any command as its runner). Remove it from the repository \
             and from this worktree (`git rm -r .interview`), then run again"
        ))),
    }
}

/// Take the worktree's lock for `what` (e.g. `intent 42`): one writer per worktree and so per
/// session, held until the command ends.
fn lock(repo: &Repo, what: &str) -> Result<WorktreeLock> {
    refuse_committed_tier(repo)?;
    let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
    let lock = WorktreeLock::acquire(&tier.root, what)?;
    crate::session::clean_unpublished(&tier);
    Ok(lock)
}
