//! `interview reflect TAG` and `interview intent ID`: start an interview (docs/interviews.md),
//! or resume an unfinished one on the same subject if the person says so.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::person::Who;
use super::settings::Presentation;
use super::settings::RunSettings;
use crate::ask::{AskError, Decision, DecisionId, Options, Person, RecordingPerson, ReplayFile};
use crate::cli::RunOptions;
use crate::error::{Result, code};
use crate::session::lock::WorktreeLock;
use crate::session::{Prepared, Repo, Session, history};
use crate::subject::{Kind, Subject, WorkItemSource};

/// `interview reflect TAG`.
pub(super) fn reflect(cwd: &Path, look: Presentation, tag: &str, run: &RunOptions) -> Result<i32> {
    let find = |repo: &Repo, _: &RunSettings, _: &mut RecordingPerson<'_>| {
        let subject = crate::subject::reflect(&repo.worktree, tag)?;
        Ok((subject, None))
    };
    let result = new_interview(cwd, look, (Kind::Reflect, tag, false), run, None, find);
    // The facts' cache is on the disk before the process ends, however the interview ended.
    crate::subject::reflect::settle();
    result
}

/// `interview intent ID [--from FILE|-] [--clarify-into FILE]`.
pub(super) fn intent(
    cwd: &Path,
    look: Presentation,
    id: &str,
    from: Option<&Path>,
    clarify_into: Option<&Path>,
    run: &RunOptions,
) -> Result<i32> {
    let source = from.map(|p| {
        if p.as_os_str() == "-" {
            WorkItemSource::Stdin
        } else {
            WorkItemSource::File(cwd.join(p))
        }
    });
    let find = |repo: &Repo, settings: &RunSettings, person: &mut RecordingPerson<'_>| {
        // Several trackers holding the item: the person picks (recorded in answers.json).
        let found = crate::subject::intent(
            &repo.worktree,
            id,
            source.as_ref(),
            settings.intent_globs.as_deref(),
            Some(person),
        )?;
        Ok((found.subject, found.decision.map(|(_, choice)| choice)))
    };
    let item_on_stdin = matches!(source, Some(WorkItemSource::Stdin));
    new_interview(
        cwd,
        look,
        (Kind::Intent, id, item_on_stdin),
        run,
        clarify_into.map(Path::to_path_buf),
        find,
    )
}

/// What finding a subject yields: the subject, and the tracker chosen to find it, if any.
type Found = (Subject, Option<String>);

/// Start an interview on `kind id` (or resume an unfinished one, if the person says so). The
/// session's place exists before anything is asked, so even the choice of a work item is
/// recorded in its `answers.json`.
/// `about` is the subject's kind and id, and whether the work item comes on standard input.
fn new_interview(
    cwd: &Path,
    look: Presentation,
    about: (Kind, &str, bool),
    run: &RunOptions,
    clarify_into: Option<PathBuf>,
    find: impl FnOnce(&Repo, &RunSettings, &mut RecordingPerson<'_>) -> Result<Found>,
) -> Result<i32> {
    crate::sandbox::Support::prefetch(run.sandbox);
    let repo = super::discover(cwd)?;
    // Every turn is guarded: this machine's gits are asked where they read their system
    // config while the run prepares, not on the first snapshot's path.
    crate::guard::prefetch_system_config(
        &repo.worktree,
        Some(&repo.worktree.join(crate::session::tier::TIER_DIR)),
    );
    let config = super::settings::load_config(&repo.worktree)?;
    let (kind, id, item_on_stdin) = about;
    let settings = RunSettings::resolve_for(run, &config, look, item_on_stdin)?;
    // Where the document goes must be able to take one, before anything is asked or written
    // (its file name may still change with the subject: checked again once it is found).
    let targets = |name: &str| output_targets(&settings, &config, (kind, id), name, &clarify_into);
    super::targets::check(&repo, &targets(id), false)?;
    let mut lock = super::lock(&repo, &format!("{} {id}", kind.as_str()))?;
    let mut who = Who::new_for(look, &settings, item_on_stdin)?;
    let typed = format!("{} {id}", kind.as_str());
    who.check_subject(&typed, run.any_subject)?;
    let who_ready = who.ready();
    if let Some(code) = offer_resume(&repo, &settings, &mut lock, kind, id, who.person())? {
        return who.finish(Ok(code));
    }
    let prepared = Prepared::new(&repo, kind.as_str(), id)?;
    lock.set_session(&prepared.id)?;
    let recorded = ReplayFile {
        subject: Some(typed),
        ..ReplayFile::default()
    };
    let mut person = RecordingPerson::new(who.person(), recorded, prepared.answers_path());
    // The subject is checked before "no terminal": a bad tag or work item says so first.
    let found = find(&repo, &settings, &mut person).and_then(|found| {
        who_ready?;
        Ok(found)
    });
    let (subject, tracker) = discard_on_error(&prepared, found)?;
    let usable = super::targets::check(&repo, &targets(subject.document_name()), true);
    discard_on_error(&prepared, usable)?;
    let mut session_settings = settings.session.clone();
    session_settings.out = settings.out_for(subject.kind, &subject.id);
    session_settings.clarify_into = clarify_into;
    let replayed = person.replayed();
    // `--check`: the replay writes its document aside, to compare with the committed one.
    let check = run
        .check
        .then(|| check_against_committed(&repo.worktree, &subject, &session_settings))
        .transpose();
    let check = discard_on_error(&prepared, check)?;
    if let Some(c) = &check {
        session_settings.out = Some(c.replayed.clone());
        session_settings.yes = true;
    }
    let published = prepared
        .clone()
        .publish(&subject, &session_settings, replayed);
    let prepared = discard_on_error(&prepared, published)?;
    person.move_to(prepared.answers_path());
    if !replayed && std::io::stderr().is_terminal() {
        // Wrapped between words to the terminal's width (a long path is never cut by it).
        let line = start_line(&repo.worktree, &subject, &session_settings.runner.name);
        let width = crate::ask::style::terminal_width();
        person.say(&crate::ask::render::wrap(&line, 2, width).join("\n"));
    }
    let result = run_session(
        repo,
        prepared,
        (subject, tracker),
        session_settings,
        &mut person,
    );
    drop(person);
    let result = match (result, &check, &run.answers) {
        (Ok(_), Some(check), Some(answers)) => {
            check.compare(&super::check::refresh_command(std::env::args()), answers)
        }
        (other, _, _) => other,
    };
    who.finish(result)
}

/// Where a new interview on `about` (kind, id) writes, for the check before anything is asked:
/// its document (named `name` when at the default place) and `--clarify-into`.
fn output_targets(
    settings: &RunSettings,
    config: &crate::config::Config,
    about: (Kind, &str),
    name: &str,
    clarify_into: &Option<PathBuf>,
) -> Vec<(String, Option<PathBuf>)> {
    let (kind, id) = about;
    let out = settings
        .out_for(kind, id)
        .unwrap_or_else(|| PathBuf::from(crate::document::default_out_path(kind, name)));
    vec![
        (settings.out_source(kind, config), Some(out)),
        ("--clarify-into".to_string(), clarify_into.clone()),
    ]
}

/// `result`, with the session's directory removed first when it failed: a session that never
/// started leaves nothing behind.
fn discard_on_error<T>(prepared: &Prepared, result: Result<T>) -> Result<T> {
    if result.is_err() {
        prepared.clone().discard();
    }
    result
}

/// `--check`: the document the replay is compared with (the committed one), and where the
/// replay writes its own; never with `--clarify-into`, which writes a file.
fn check_against_committed(
    worktree: &Path,
    subject: &Subject,
    settings: &crate::session::Settings,
) -> Result<super::check::Check> {
    let committed = settings.out.clone().unwrap_or_else(|| {
        PathBuf::from(crate::document::default_out_path(
            subject.kind,
            subject.document_name(),
        ))
    });
    match settings.clarify_into {
        Some(_) => Err(crate::error::Error::Usage(
            "--check writes nothing, and --clarify-into writes a file: use one of them".into(),
        )),
        None => super::check::Check::new(worktree, &committed),
    }
}

/// The session made and run to its end; `found` is the subject and the tracker chosen to find
/// it, recorded as the session's first decision.
fn run_session(
    repo: Repo,
    prepared: Prepared,
    found: Found,
    settings: crate::session::Settings,
    person: &mut dyn Person,
) -> Result<i32> {
    let (subject, tracker) = found;
    let mut session = Session::create(repo, prepared, subject, settings, person)?;
    if let Some(choice) = tracker {
        session.record_decision(
            DecisionId::Tracker,
            "which work item to interview about",
            &choice,
        )?;
    }
    session.run()?;
    Ok(code::DONE)
}

/// The one line said at a terminal before the first turn: what is interviewed, in which
/// repository, from what, by which runner: an interview in the wrong repository is seen at
/// once.
fn start_line(worktree: &Path, subject: &Subject, runner: &str) -> String {
    let source = match subject.kind {
        Kind::Intent => format!(
            "work item from {}",
            subject.facts["source"].as_str().unwrap_or(&subject.id)
        ),
        Kind::Reflect => format!("commits {}..HEAD", subject.id),
    };
    let line = format!(
        "{} · repository {} · {source} · runner {runner}",
        subject.title,
        worktree.display()
    );
    crate::receipt::sanitize_line(&line).0
}

/// The `unfinished` decision's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unfinished {
    Resume,
    StartOver,
    Stop,
}

impl Options for Unfinished {
    const ALL: &'static [Unfinished] =
        &[Unfinished::Resume, Unfinished::StartOver, Unfinished::Stop];
}

/// An unfinished session on the same subject: resume it, start over, or stop. `Some(code)`
/// when this run ends here.
fn offer_resume(
    repo: &Repo,
    settings: &RunSettings,
    lock: &mut WorktreeLock,
    kind: Kind,
    subject_id: &str,
    person: &mut dyn Person,
) -> Result<Option<i32>> {
    let kind = kind.as_str();
    let Some(listed) = history::unfinished_for(&repo.worktree, kind, subject_id) else {
        return Ok(None);
    };
    // What a replay (CI) left unfinished is not offered at a terminal: its answers come from
    // its file, and a run at a terminal starts from the item, the repository and the answers
    // of the last finished interview.
    if !person.replayed() && listed.state.as_ref().is_ok_and(|s| s.replayed) {
        person.say(&format!(
            "Session {} is a replay's leftover (--answers, unfinished): not resumed here, a new \
             session is started (`interview resume {}` continues it from its answers file).",
            listed.id, listed.id
        ));
        return Ok(None);
    }
    let status = listed
        .state
        .as_ref()
        .map(|s| history::status_word(s.status))
        .unwrap_or("unreadable");
    let decision = Decision {
        id: DecisionId::Unfinished,
        context: format!("an unfinished session on {kind} {subject_id} exists ({status})"),
        options: Unfinished::ALL
            .iter()
            .map(|o| match o {
                Unfinished::Resume => format!("Resume it ({})", listed.id),
                Unfinished::StartOver => "Start over with a new session".into(),
                Unfinished::Stop => "Stop".into(),
            })
            .collect(),
        recommended: Unfinished::Resume.index(),
        reason: "answers already given are kept and never asked again".into(),
    };
    let choice = match crate::ask::choose(person, &decision).and_then(Unfinished::at) {
        Ok(c) => c,
        // A replay (CI) starts fresh unless its answers file says to resume.
        Err(AskError::MissingDecision { id }) => {
            person.say(&format!(
                "An unfinished session on {kind} {subject_id} exists; the answers file has no decision `{id}`, so a new session is started (\"{id}\": \"A\" in \"decisions\" resumes it)"
            ));
            Unfinished::StartOver
        }
        Err(e) => return Err(e.into()),
    };
    match choice {
        Unfinished::Resume => person.say(&format!("Resuming session {}.", listed.id)),
        Unfinished::StartOver => person.say(&format!(
            "Starting a new session; {} is left as it was.",
            listed.id
        )),
        Unfinished::Stop => person.say(&format!(
            "Stopped; session {} is left as it was (`interview resume {}` continues it).",
            listed.id, listed.id
        )),
    }
    match choice {
        Unfinished::Resume => {
            lock.set_session(&listed.id)?;
            super::resume::resume_listed(repo.clone(), listed, settings, false, person).map(Some)
        }
        Unfinished::StartOver => Ok(None),
        Unfinished::Stop => Ok(Some(code::DONE)),
    }
}
