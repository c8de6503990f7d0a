//! Dispatch of a parsed command line to the part of the tool that does it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::ask::Decision;
use crate::ask::{Person, RecordingPerson, ReplayFile, ReplayPerson, Style, TerminalPerson};
use crate::cli::{Cli, Command, OnChange, RunOptions};
use crate::config::Config;
use crate::error::{Error, Result, code};
use crate::runner::RunnerSpec;
use crate::session::resume::ResumeFlags;
use crate::session::{Prepared, Repo, Session, Settings, history};
use crate::subject::{Kind, Subject, WorkItemSource};

/// Run a command; returns the exit code of a successful run.
pub fn run(cli: Cli) -> Result<i32> {
    crate::signals::install().map_err(|e| Error::io("cannot install signal handlers", e))?;
    let cwd = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    match &cli.command {
        Command::Runner { name } => match name.as_str() {
            "builtin" => crate::runner::builtin::run(),
            other => Err(Error::Usage(format!("unknown built-in runner `{other}`"))),
        },
        Command::Runners => crate::runner::presets::list(),
        Command::Stats { json } => {
            let repo = discover(&cwd)?;
            crate::telemetry::stats(&repo.worktree, *json)
        }
        Command::Answers { session } => {
            let repo = discover(&cwd)?;
            crate::session::history::print_answers(&repo, session.as_deref())
        }
        Command::Status { session, all, json } => {
            let repo = discover(&cwd)?;
            crate::session::history::status(&repo, session.as_deref(), *all, *json)
        }
        Command::Resume { session, ack, run } => {
            let repo = discover(&cwd)?;
            let config = Config::load(&repo.worktree)?;
            let listed = match session {
                Some(id) => history::find(&repo.worktree, Some(id))?,
                None => history::latest_unfinished(&repo.worktree)?,
            };
            // Without a terminal, a blocked session says so before anything else.
            if let Ok(state) = &listed.state
                && !*ack
                && !std::io::stdin().is_terminal()
                && crate::session::resume::breaker_open(state)
            {
                return Err(crate::session::resume::blocked(state));
            }
            let mut who = Who::new(&cli, run)?;
            let result = resume_listed(repo, &config, listed, run, *ack, who.person());
            who.finish(result)
        }
        Command::Guard(args) => {
            let repo = discover(&cwd)?;
            let request = crate::guard::command::GuardRequest {
                command: args.command.clone(),
                json: args.json,
                on_change: match args.on_change {
                    Some(crate::cli::OnChange::Warn) => crate::guard::command::WhenChanged::Warn,
                    _ => crate::guard::command::WhenChanged::Fail,
                },
            };
            crate::guard::command::run(&request, &repo.worktree)
        }
        Command::Reflect { tag, run } => {
            let find = |repo: &Repo, _: &Config, _: &mut dyn Person| {
                let subject = crate::subject::reflect(&repo.worktree, tag)?;
                Ok((subject, None))
            };
            new_interview(&cli, &cwd, Kind::Reflect, tag, run, None, find)
        }
        Command::Intent {
            id,
            from,
            run,
            clarify_into,
        } => {
            let source = from.as_ref().map(|p| {
                if p.as_os_str() == "-" {
                    WorkItemSource::Stdin
                } else {
                    WorkItemSource::File(cwd.join(p))
                }
            });
            let find = |repo: &Repo, config: &Config, person: &mut dyn Person| {
                let globs = config.file.intent.as_ref().and_then(|i| i.globs.clone());
                let found = crate::subject::intent(
                    &repo.worktree,
                    id,
                    source.as_ref(),
                    globs.as_deref(),
                    Some(person),
                )?;
                Ok((found.subject, found.decision))
            };
            new_interview(
                &cli,
                &cwd,
                Kind::Intent,
                id,
                run,
                clarify_into.clone(),
                find,
            )
        }
    }
}

/// What finding a subject yields: the subject, and the decision taken to find it, if any.
type Found = (Subject, Option<(String, String)>);

/// Start an interview on `kind id` (or resume an unfinished one, if the person says so). The
/// session's place exists before anything is asked, so even the choice of a work item is
/// recorded in its `answers.json`.
fn new_interview(
    cli: &Cli,
    cwd: &Path,
    kind: Kind,
    id: &str,
    run: &RunOptions,
    clarify_into: Option<PathBuf>,
    find: impl FnOnce(&Repo, &Config, &mut dyn Person) -> Result<Found>,
) -> Result<i32> {
    let repo = discover(cwd)?;
    let config = Config::load(&repo.worktree)?;
    let mut who = Who::new(cli, run)?;
    if let Some(code) = offer_resume(&repo, &config, kind.as_str(), id, run, who.person())? {
        return who.finish(Ok(code));
    }
    let prepared = Prepared::new(&repo, kind.as_str(), id)?;
    let mut person =
        RecordingPerson::new(who.person(), ReplayFile::default(), prepared.answers_path());
    let (subject, tracker_decision) = match find(&repo, &config, &mut person) {
        Ok(found) => found,
        Err(e) => {
            prepared.discard();
            return Err(e);
        }
    };
    let start = Start {
        repo,
        prepared,
        subject,
        tracker_decision,
        clarify_into,
    };
    let result = interview(start, &config, run, &mut person);
    drop(person);
    who.finish(result)
}

/// An unfinished session on the same subject: resume it, start over, or stop. `Some(code)`
/// when this run ends here.
fn offer_resume(
    repo: &Repo,
    config: &Config,
    kind: &str,
    subject_id: &str,
    run: &RunOptions,
    person: &mut dyn Person,
) -> Result<Option<i32>> {
    let Some(listed) = history::unfinished_for(&repo.worktree, kind, subject_id) else {
        return Ok(None);
    };
    let status = listed
        .state
        .as_ref()
        .map(|s| history::status_word(s.status))
        .unwrap_or("unreadable");
    let decision = Decision {
        id: "unfinished".into(),
        context: format!("an unfinished session on {kind} {subject_id} exists ({status})"),
        options: vec![
            format!("Resume it ({})", listed.id),
            "Start over with a new session".into(),
            "Stop".into(),
        ],
        recommended: 0,
        reason: "answers already given are kept and never asked again".into(),
    };
    let choice = match crate::ask::choose(person, &decision) {
        Ok(c) => c,
        Err(crate::ask::AskError::MissingDecision { id }) => {
            return Err(Error::MissingAnswer {
                message: format!(
                    "an unfinished session on {kind} {subject_id} exists and the answers file has no decision `{id}`; add to \"decisions\":\n  \"{id}\": \"B\"   (A resume, B start over, C stop)"
                ),
            });
        }
        Err(e) => return Err(e.into()),
    };
    match choice {
        0 => resume_listed(repo.clone(), config, listed, run, false, person).map(Some),
        1 => Ok(None),
        _ => Ok(Some(code::DONE)),
    }
}

/// Resume `listed` with the run options given on this command line.
fn resume_listed(
    repo: Repo,
    config: &Config,
    listed: history::Listed,
    run: &RunOptions,
    ack: bool,
    person: &mut dyn Person,
) -> Result<i32> {
    let interactive = std::io::stdin().is_terminal() && !person.replayed();
    let settings = settings(run, config, interactive)?;
    let answers = listed.dir.join("answers.json");
    let recorded = if answers.exists() {
        ReplayFile::load(&answers).map_err(|e| Error::State(e.to_string()))?
    } else {
        ReplayFile::default()
    };
    let mut recording = RecordingPerson::new(person, recorded, answers);
    let flags = ResumeFlags {
        runner: run.runner.is_some(),
        out: run.out.is_some(),
        max_turns: run.max_turns.is_some(),
        retries: run.retries.is_some(),
        ack,
        interactive,
    };
    crate::session::resume::resume(repo, listed, settings, &flags, &mut recording)
}

/// Who answers: the person at the terminal, or a replay file. Never waits on a non-terminal.
enum Who {
    Terminal(TerminalPerson),
    Replay(ReplayPerson),
}

impl Who {
    fn new(cli: &Cli, run: &RunOptions) -> Result<Who> {
        if let Some(path) = &run.answers {
            let file = ReplayFile::load(path).map_err(|e| Error::Usage(e.to_string()))?;
            return Ok(Who::Replay(ReplayPerson::new(file, run.missing)));
        }
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "no terminal to ask questions on, and no --answers file to replay.\n\
                 Run it at a terminal, or replay recorded answers: \
                 `interview … --answers FILE` (see docs/ci.md)"
                    .into(),
            ));
        }
        Ok(Who::Terminal(TerminalPerson::new(Style::resolve(
            cli.color,
            cli.no_bell,
        ))))
    }

    fn person(&mut self) -> &mut dyn Person {
        match self {
            Who::Terminal(p) => p,
            Who::Replay(p) => p,
        }
    }

    /// After a replayed run, warn about answers for topics never asked (a stale fixture).
    fn finish(self, result: Result<i32>) -> Result<i32> {
        if let Who::Replay(p) = &self {
            let unused = p.unused_topics();
            if !unused.is_empty() {
                eprintln!(
                    "interview: warning: the answers file has answers for topics never asked: {}",
                    unused.join(", ")
                );
            }
        }
        result
    }
}

/// What a new interview starts from.
struct Start {
    repo: Repo,
    prepared: Prepared,
    subject: Subject,
    /// `(decision id, choice)` when a Choose prompt picked the work item.
    tracker_decision: Option<(String, String)>,
    clarify_into: Option<PathBuf>,
}

/// Run one interview to its end.
fn interview(
    start: Start,
    config: &Config,
    run: &RunOptions,
    person: &mut dyn Person,
) -> Result<i32> {
    let interactive = std::io::stdin().is_terminal() && !person.replayed();
    let mut settings = settings(run, config, interactive)?;
    settings.clarify_into = start.clarify_into;
    if settings.out.is_none() {
        let configured = match start.subject.kind {
            Kind::Reflect => config.file.reflect_out.as_deref(),
            Kind::Intent => config.file.intent_out.as_deref(),
        };
        settings.out = configured.map(|pattern| {
            // `{id}` as in runner arguments, or `<id>` as in the tracker globs.
            let id = crate::session::tier::slug(&start.subject.id);
            PathBuf::from(pattern.replace("{id}", &id).replace("<id>", &id))
        });
    }
    let mut session = Session::create(start.repo, start.prepared, start.subject, settings, person)?;
    if let Some((id, choice)) = start.tracker_decision {
        session.record_decision(&id, "which work item to interview about", &choice)?;
    }
    session.run()?;
    Ok(code::DONE)
}

fn settings(run: &RunOptions, config: &Config, interactive: bool) -> Result<Settings> {
    let file = &config.file;
    let on_change = match (run.on_change, file.on_change.as_deref()) {
        (Some(flag), _) => flag,
        (None, Some("fail")) => OnChange::Fail,
        (None, Some("ask")) => OnChange::Ask,
        (None, Some("warn")) => OnChange::Warn,
        (None, Some(other)) => {
            return Err(Error::Usage(format!(
                "interview.toml: on_change must be \"fail\", \"ask\" or \"warn\", not {other:?}"
            )));
        }
        (None, None) if interactive => OnChange::Ask,
        (None, None) => OnChange::Fail,
    };
    let max_turns = run.max_turns.or(file.max_turns).unwrap_or(5);
    if !(1..=50).contains(&max_turns) {
        return Err(Error::Usage(format!(
            "--max-turns must be between 1 and 50, not {max_turns}"
        )));
    }
    let timeout = run.turn_timeout.or(file.turn_timeout).unwrap_or(600);
    if timeout == 0 {
        return Err(Error::Usage(
            "--turn-timeout must be at least 1 second".into(),
        ));
    }
    Ok(Settings {
        runner: RunnerSpec::resolve(run.runner.as_deref(), file.runner.as_ref())?,
        max_turns,
        turn_timeout: Duration::from_secs(timeout),
        grace: Duration::from_secs(run.grace.or(file.grace).unwrap_or(5)),
        retries: run.retries.or(file.retries).unwrap_or(3),
        on_change,
        out: run.out.clone(),
        yes: run.yes,
        verbose: run.verbose,
        clarify_into: None,
    })
}

/// Find the repository around `dir`, without trusting or running anything in it.
pub fn discover(dir: &Path) -> Result<Repo> {
    let repo = gix::discover(dir).map_err(|e| {
        Error::Repo(format!(
            "{} is not inside a git repository: {e}",
            dir.display()
        ))
    })?;
    let worktree = repo
        .workdir()
        .ok_or_else(|| Error::Repo("the repository is bare: interview needs a worktree".into()))?;
    let worktree = std::fs::canonicalize(worktree)
        .map_err(|e| Error::io(format!("cannot resolve {}", worktree.display()), e))?;
    let common_dir = PathBuf::from(repo.common_dir());
    let workspace_id = workspace_id(&repo, &worktree);
    Ok(Repo {
        worktree,
        common_dir,
        workspace_id,
    })
}

/// The first 12 hex digits of the SHA-256 of the root commit id (or of the worktree path when
/// there is no commit yet): stable across clones, reveals no path.
fn workspace_id(repo: &gix::Repository, worktree: &Path) -> String {
    let root = repo.head_commit().ok().and_then(|head| {
        head.ancestors()
            .first_parent_only()
            .all()
            .ok()?
            .filter_map(|info| info.ok())
            .last()
            .map(|info| info.id.to_string())
    });
    let seed = root.unwrap_or_else(|| worktree.display().to_string());
    let digest = Sha256::digest(seed.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}
