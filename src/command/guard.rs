//! `interview guard -- CMD…` and `interview guard snapshot` (docs/guard.md).

use std::path::Path;

use crate::cli::{GuardCommand, GuardOnChange, GuardOptions};
use crate::error::Result;
use crate::guard::command::{GuardRequest, WhenChanged};

pub fn run(cwd: &Path, args: &GuardOptions) -> Result<i32> {
    let repo = super::discover(cwd)?;
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
        crate::sandbox::Confinement::new(support, &repo.worktree, &repo.common_dir, cli)
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
    crate::guard::command::run(&request, &repo.worktree)
}
