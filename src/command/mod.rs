//! The command layer: one file per subcommand. A parsed command line comes in, settings are
//! resolved once (`settings`), and the part of the tool that does the work is called with
//! typed values; nothing below this layer sees a clap type (docs/architecture.md).

mod answers;
mod check;
mod completions;
mod guard;
mod interview;
mod man;
mod person;
mod prune;
mod resume;
mod runner;
mod runners;
pub(crate) mod settings;
mod stats;
mod status;
mod targets;
mod workspace;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::error::{Error, Result};
use crate::session::Repo;
use crate::session::lock::WorktreeLock;
use crate::session::tier::LocalTier;

/// The whole program: parse the command line, run the command, say an error; the exit code.
pub fn main() -> i32 {
    // Our own executable started as the sandbox launcher: before anything else (no thread yet).
    if let Some(code) = crate::sandbox::launch::main_if_asked() {
        return code;
    }
    // A runner of the same user must not open our /proc entries (fds, memory, environment),
    // and no child inherits a descriptor the tool's parent left open (`9<>/dev/tty`).
    crate::sys::at_start();
    let cli = <Cli as clap::Parser>::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Error::ClosedOutput) => crate::error::code::CLOSED_OUTPUT,
        Err(err) => {
            // What an error quotes (a file name from the repository, a runner's words) is
            // shown as text, never obeyed by the terminal.
            let (shown, _) = crate::receipt::sanitize(&format!("interview: {err}"));
            crate::output::stderr_line(&shown);
            err.code()
        }
    }
}

/// Run a command; returns the exit code of a successful run.
pub(crate) fn run(cli: Cli) -> Result<i32> {
    // A built-in runner is the tool's subprocess: a signal ends it at once (it holds nothing
    // to save), as it would any agent CLI — counted instead, a runner waiting minutes for a
    // silent model would wait on after the tool stopped the turn.
    if let Command::Runner { name, args } = &cli.command {
        return runner::run(name, args);
    }
    crate::signals::install().map_err(|e| Error::io("cannot install signal handlers", e))?;
    let cwd = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    let look = settings::Presentation {
        color: cli.color,
        no_bell: cli.no_bell,
    };
    // A command that only prints is done when its reader stopped reading (`| head`).
    let printed = |result: Result<i32>| match result {
        Err(Error::ClosedOutput) => Ok(crate::error::code::DONE),
        other => other,
    };
    match &cli.command {
        Command::Runner { name, args } => runner::run(name, args),
        Command::Runners { json } => printed(runners::run(&cwd, *json)),
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
pub(crate) fn discover(dir: &Path) -> Result<Repo> {
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

/// Take the worktree's lock for `what` (e.g. `intent 42`): one writer per worktree and so per
/// session, held until the command ends.
///
/// Nothing but `.interview/` and its lock file is written before the lock is held: a run refused
/// by it leaves the running one undisturbed (its guard would see any other file as a change).
fn lock(repo: &Repo, what: &str) -> Result<WorktreeLock> {
    crate::session::tier::refuse_committed(&repo.worktree)?;
    let root = LocalTier::make_root(&repo.worktree)?;
    let lock = WorktreeLock::acquire(&root, what)?;
    let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
    workspace::note_root(&repo.worktree);
    crate::session::clean_unpublished(&tier);
    Ok(lock)
}
