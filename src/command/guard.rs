//! `interview guard -- CMD…` and `interview guard snapshot` (docs/guard.md): the command run
//! between two snapshots of the guard, and what a change leads to.

use std::path::Path;

use crate::cli::{GuardCommand, GuardOnChange, GuardOptions};
use crate::error::{Error, Result};
use crate::guard::{GuardError, GuardScope, Snapshot};

pub(super) fn run(cwd: &Path, args: &GuardOptions) -> Result<i32> {
    let repo = super::discover(cwd)?;
    crate::guard::prefetch_system_config(
        &repo.worktree,
        Some(&repo.worktree.join(crate::session::tier::TIER_DIR)),
    );
    let (command, json) = match &args.snapshot {
        Some(GuardCommand::Snapshot { json }) => (vec!["snapshot".to_string()], args.json || *json),
        None => (args.command.clone(), args.json),
    };
    // A snapshot only reads; running a command waits for no interview and lets none start.
    let snapshot_only = matches!(
        command.iter().find(|a| *a != "--").map(String::as_str),
        Some("snapshot")
    );
    let _lock = if snapshot_only {
        None
    } else {
        Some(super::lock(&repo, "guard")?)
    };
    // The command is the person's own: confined only when asked (docs/sandbox.md).
    let sandbox = crate::sandbox::decide(args.sandbox)?.map(|support| {
        if let Some(note) = crate::sandbox::note(&support, false) {
            crate::output::stderr_line(&note);
        }
        // Not the state of the CLI it may start, but its credentials and its own sandbox.
        let argv = command
            .strip_prefix(&["--".to_string()])
            .unwrap_or(&command);
        let cli = crate::runner::presets::by_program(argv).map(|p| p.agent);
        crate::sandbox::Confinement::new(
            support,
            &repo.worktree,
            &repo.common_dir,
            (cli, argv),
            crate::sandbox::Network::On,
        )
        .without_state()
    });
    let request = GuardRequest {
        sandbox,
        command,
        json,
        on_change: match args.on_change {
            GuardOnChange::Warn => WhenChanged::Warn,
            GuardOnChange::Fail => WhenChanged::Fail,
        },
        allow: {
            let config = super::settings::load_config(&repo.worktree)?;
            let mut allow = config.file.guard_allow.unwrap_or_default();
            allow.extend(args.allow.iter().cloned());
            allow
        },
    };
    run_request(&request, &repo.worktree)
}

/// What `interview guard` was asked to do, from its arguments and the configuration.
#[derive(Debug, Clone, Default)]
struct GuardRequest {
    /// `snapshot [--json]`, or the command to run (a leading `--` is dropped).
    command: Vec<String>,
    /// Print the report (or snapshot) as JSON.
    json: bool,
    /// What a change leads to.
    on_change: WhenChanged,
    /// Run the command in the sandbox (only when asked: the command is the person's).
    sandbox: Option<crate::sandbox::Confinement>,
    /// Globs of worktree paths the command is expected to write (`target/**`): changes to
    /// matching paths under status and ignored files are left out of the report. Git
    /// metadata, refs, the index, hooks and config are never allowed.
    allow: Vec<String>,
}

/// What a change made by the command leads to. Without a person to ask, `--on-change ask`
/// means `Fail` (docs/guard.md, "Policy").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum WhenChanged {
    /// Exit 3 with the report.
    #[default]
    Fail,
    /// Print the report to standard error and pass the command's exit code through.
    Warn,
}

/// Run `interview guard …`; returns the exit code.
fn run_request(args: &GuardRequest, worktree: &Path) -> Result<i32> {
    let scope = GuardScope {
        worktree: worktree.to_path_buf(),
        exclude: Vec::new(),
        // Read by `snapshot` too; written only by a command's run, which holds the lock.
        memo: Some(worktree.join(crate::session::tier::TIER_DIR)),
    };
    let command: &[String] = match args.command.first().map(String::as_str) {
        Some("--") => &args.command[1..],
        _ => &args.command,
    };
    match command {
        [first, flags @ ..] if first == "snapshot" && flags.iter().all(|f| f == "--json") => {
            let snap = Snapshot::take(&scope)?;
            if args.json || !flags.is_empty() {
                let json = serde_json::to_string_pretty(&snap)
                    .map_err(|e| Error::json("cannot write the snapshot as JSON", e))?;
                crate::output::stdout_line(&json)?;
            } else {
                crate::output::stdout(&summary(&snap))?;
            }
            // The process ends here: freeing the snapshot one allocation at a time (hundreds
            // of thousands at 100k files) would only make it end later.
            std::mem::forget(snap);
            Ok(0)
        }
        [] => Err(Error::Usage(
            "say what to run (`interview guard -- CMD ARGS…`) or `interview guard snapshot`".into(),
        )),
        [program, rest @ ..] => {
            let before = Snapshot::take(&scope)?;
            let code = run_command(program, rest, worktree, args)?;
            let after = match Snapshot::take_after(&scope, &before) {
                Ok(after) => after,
                Err(GuardError::Interrupted) => return Err(GuardError::Interrupted.into()),
                // The command left the repository in a state that cannot even be read (its
                // `.git` replaced by a FIFO, say): that is a change.
                Err(e) => {
                    let report = format!("the repository cannot be read after the command: {e}\n");
                    if args.json {
                        let json = serde_json::json!({ "exit_code": code, "error": report });
                        crate::output::stdout_line(&format!("{json:#}"))?;
                    }
                    return Err(Error::CommandChanged { report });
                }
            };
            if let Some(tier) = &scope.memo {
                // Losing it costs the next run only time.
                let _ = after.remember(tier);
            }
            let mut report = before.diff(&after);
            report.allow(&args.allow);
            // The process ends with this command: freeing the two snapshots' allocations one by
            // one (hundreds of thousands at 100k files) would only make it end later.
            std::mem::forget((before, after));
            if args.json {
                let json = serde_json::json!({ "exit_code": code, "report": report });
                crate::output::stdout_line(&format!("{json:#}"))?;
            }
            if report.is_empty() {
                return Ok(code);
            }
            match args.on_change {
                WhenChanged::Warn => {
                    crate::output::stderr_line(&format!(
                        "interview: warning: the command changed the repository\n{report}"
                    ));
                    Ok(code)
                }
                WhenChanged::Fail => Err(Error::CommandChanged {
                    report: report.to_string(),
                }),
            }
        }
    }
}

/// Run the command in its own process group, in the worktree; its exit code (128 + signal when
/// killed by one). With `json_out`, its standard output goes to standard error so ours stays
/// one JSON document.
fn run_command(program: &str, args: &[String], cwd: &Path, request: &GuardRequest) -> Result<i32> {
    use crate::process::{Detach, Input, Output, Spawn};
    let json_out = request.json;
    let mut spawn = Spawn::new(program).args(args);
    if let Some(sandbox) = &request.sandbox {
        let argv: Vec<String> = std::iter::once(program.to_string())
            .chain(args.iter().cloned())
            .collect();
        let prepared = sandbox
            .prepare(&argv, cwd, &[], None)
            .map_err(|e| Error::io(format!("cannot start `{program}`"), e))?;
        spawn = spawn.confine(std::sync::Arc::new(prepared));
    }
    let finished = spawn
        .cwd(cwd)
        .detach(Detach::Group)
        .stdin(Input::Inherit)
        .stdout(if json_out {
            Output::ToStderr
        } else {
            Output::Inherit
        })
        .stderr(Output::Inherit)
        // Its background children get a while to finish (their writes are seen), then it and
        // every descendant, even one that left its group, is ended before the second snapshot.
        .linger(std::time::Duration::from_secs(10))
        .reap_escapees()
        .run_into(crate::process::Capture::new(0, 0))
        .map_err(|e| Error::io("interview guard", e))?;
    Ok(finished.ending.code().unwrap_or(1))
}

/// A few lines about a snapshot for a person.
fn summary(s: &Snapshot) -> String {
    let head = s
        .refs
        .get(&crate::guard::RepoPath::new(*b"HEAD"))
        .map(|t| t.to_string())
        .unwrap_or_else(|| "(none)".into());
    let mut out = String::new();
    out.push_str(&format!("worktree      {}\n", s.worktree));
    out.push_str(&format!("HEAD          {head}\n"));
    out.push_str(&format!("refs          {}\n", s.refs.len()));
    out.push_str(&format!("index         {} entries\n", s.index_len()));
    out.push_str(&format!("not clean     {} paths\n", s.status.len()));
    out.push_str(&format!("ignored       {} paths\n", s.ignored.len()));
    out.push_str(&format!(
        "hooks         {} in {}\n",
        s.hooks.file_count(),
        s.hooks.dir
    ));
    out.push_str(&format!("git metadata  {} files\n", s.git_metadata.len()));
    out.push_str(&format!("worktrees     {} linked\n", s.worktrees.len()));
    out.push_str(&format!("user config   {} files\n", s.user_config.len()));
    out
}
