//! The bug report's questions: does it reproduce on HEAD, which version broke it (the tags
//! as options), where its message comes from, and which test should show it.

use super::versions::{Named, named_versions};
use super::*;

pub(in crate::interviewer::builtin) fn bug(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    let item = &r.item;
    // What the documentation says comes first: if it is intended, the rest is moot. A request
    // for help is asked its documented way already.
    out.extend(documented(r).or_else(|| {
        r.support
            .is_none()
            .then(|| super::section::documented_section(r))
            .flatten()
            .or_else(|| super::ranked::ranked_section(r))
    }));
    let named = named_versions(r);
    // A setup problem (installing, `PATH`, a shell's start-up file) is asked its steps, not
    // versions: nothing in the code changed between them.
    let steps = super::steps::steps(r);
    if !(r.setup.setup_problem && steps.is_some()) {
        out.extend(on_head(r));
        // A regression between two versions it names: what changed between them in the code
        // it is about answers "which version" and points at the cause.
        match super::regression::regression_change(r, &named) {
            Some(f) => out.push(f),
            None => out.extend(first_bad_version(r, &named)),
        }
    }
    out.extend(steps);
    // Asked only of a report that shows nothing (no output, no code): one that shows what
    // happens is read for what should, and the question is the same on every bug.
    // A title that says what does not happen ("Paging doesn't work", "paging not done") says
    // what should: that it does.
    // A report that compares a broken version with an older one has said what should happen:
    // what the older one did.
    let shows = item.all.iter().any(|(_, _, code)| *code);
    if !item.mentions(&["expected", "instead", "should"])
        && super::answered::compared_versions(r).is_none()
        && !item.has_heading(&["expected"])
        && !shows
        && !denies_in_title(&r.facts.title)
    {
        out.push(
            Finding::new(
                "expected_behaviour",
                8,
                "What should happen instead? The item says what goes wrong, not what is right.",
            )
            .titled("Expected behaviour"),
        );
    }
    out.extend(messages(r));
    super::behaviour::ask_intended(r, &mut out);
    // One "intended, or a bug?" a round: the message the project prints on purpose is the
    // nearer ground than a documentation section on the subject.
    if out
        .iter()
        .any(|f| f.topic.starts_with("message_") && f.options.iter().any(|(_, v)| v == "intended"))
    {
        out.retain(|f| !f.topic.starts_with("documented_section_"));
    }
    // Where the documentation answers the report, that is asked first: whether it reproduces
    // on HEAD and in which version matter only once it is a bug.
    if out.iter().any(|f| f.topic.starts_with("documented_")) {
        for f in out
            .iter_mut()
            .filter(|f| ["reproduces_on_head", "first_bad_version"].contains(&f.topic.as_str()))
        {
            f.severity = f.severity.min(7);
        }
    }
    // Which test, only when the item speaks of tests and a test names what it is about (else
    // the question is the same on every bug).
    if speaks_of_tests(r) && !test_files(r).is_empty() {
        out.push(test_question(
            r,
            "regression_test",
            6,
            "show the bug (failing now, passing after the fix)",
        ));
    }
    out
}

/// "\"msg\" is produced in 3 places (…). Which one fails?" — or, when the item's stack trace
/// names one, that one said and recommended.
fn produced_in_places(r: &Reading, msg: &str, topic: &str, code: &[&Hit]) -> Finding {
    let mut options: Vec<(String, String)> = code
        .iter()
        .take(4)
        .map(|h| (h.cite(), slug(&h.cite())))
        .collect();
    options.push(("Don't know yet".into(), "unknown".into()));
    let traced = super::steps::traced_at(&r.item, code.iter().copied());
    let which = match traced {
        Some((n, h)) => format!(
            "Line {n}'s stack trace names {}: fix it there? Recommended: yes.",
            h.cite()
        ),
        None => "Which one fails?".to_string(),
    };
    let mut f = Finding::new(
        topic,
        7,
        format!(
            "\"{msg}\" is produced in {} places ({}). {which}",
            code.len(),
            cites(code, 3)
        ),
    )
    .titled(format!("Where \"{msg}\" comes from"));
    if let Some((_, h)) = traced {
        if !options.iter().any(|(_, id)| *id == slug(&h.cite())) {
            options.insert(0, (h.cite(), slug(&h.cite())));
        }
        f = f.choices(options).recommend(&slug(&h.cite()));
    } else {
        f = f.choices(options);
    }
    f
}

/// Whether a title says what does not happen: a negation or a failure ("doesn't work", "not
/// done", "is failing", "incorrectly loads").
fn denies_in_title(title: &str) -> bool {
    let lower = title.to_lowercase();
    lower.contains("n't ")
        || lower.ends_with("n't")
        || [
            "not",
            "no longer",
            "never",
            "fails",
            "failing",
            "broken",
            "wrong",
            "wrongly",
            "incorrect",
            "incorrectly",
            "nothing",
            "ignored",
        ]
        .iter()
        .any(|w| super::super::item::has_word(&lower, w))
}

/// Whether it still reproduces on HEAD (the tag HEAD is at or after), unless the item says so
/// or reports HEAD's own version (then the report is of HEAD's code): recommended yes when the
/// item quotes code the source still holds or reports the version HEAD's manifest declares.
fn on_head(r: &Reading) -> Option<Finding> {
    let item = &r.item;
    let on_head = item.sentences.iter().any(|(_, s)| {
        let l = s.to_lowercase();
        (l.contains("reproduc") || l.contains("still"))
            && ["head", "main", "master", "latest", "nightly", "git version"]
                .iter()
                .any(|w| super::super::item::has_word(&l, w))
    });
    // The item has answered: it ran HEAD ("on current master"), or HEAD's own version.
    if on_head || item.reports_on_head() || super::answered::version_at_head(r).is_some() {
        return None;
    }
    // Not HEAD's commit id: any commit (the answers fixture's own) would change the question.
    let since = super::versions::head_is(r)
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
    let quoted = quoted_code(r);
    let why = match &quoted {
        Some((n, h)) => format!(
            " The code line {n} quotes is still at {}. Recommended: yes, that code is still there.",
            h.cite()
        ),
        None => match super::versions::reports_head_version(r) {
            Some((n, v, Some(at))) => format!(
                " Recommended: yes, line {n} reports {v}, the version {at} declares at HEAD."
            ),
            _ => String::new(),
        },
    };
    let reported_head_manifest = quoted.is_none()
        && super::versions::reports_head_version(r).is_some_and(|(.., at)| at.is_some());
    let mut f = Finding::new(
        "reproduces_on_head",
        9,
        format!("Does it still reproduce on HEAD{since}?{why}"),
    )
    .titled("Reproduces on HEAD")
    .options(&[
        ("Yes, on HEAD", "yes"),
        ("No, HEAD is fine", "fixed_on_head"),
        ("Not tried on HEAD", "not_tried"),
    ]);
    if quoted.is_some() || reported_head_manifest {
        f = f.recommend("yes");
    }
    Some(f)
}

/// Where each error message the item quotes comes from: the places that produce it, or that
/// none does here.
fn messages(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in r
        .names
        .iter()
        // The system's words for a crash (`Segmentation fault: 11`) are no message of the
        // project's: where it crashed is asked with the steps.
        .filter(|l| {
            l.name.kind == NameKind::Message
                && (l.name.marked || l.found())
                && !super::super::outcome::crash_shown(&super::super::item::Item::new(&l.name.text))
        })
        .take(2)
    {
        let msg = super::super::text::one_line(&l.name.text, 70);
        let topic = format!("message_{}", slug(&l.name.text));
        // Where code produces it: not a test, an example, documentation or a comment.
        let code: Vec<&Hit> = l
            .hits
            .iter()
            .filter(|h| {
                !is_doc(&h.path)
                    && !is_test(&h.path)
                    && !super::super::place::secondary(&h.path)
                    && !super::super::text::is_comment(&h.text)
            })
            .collect();
        // One place: the project prints it on purpose; whether this case should reach it is
        // the question.
        let bundle = super::steps::one_bundle(&code);
        if code.len() > 1 && bundle.is_none() {
            out.push(produced_in_places(r, &msg, &topic, &code));
        } else if let Some(at) = bundle.or(code.first().copied()) {
            out.push(super::steps::printed_on_purpose(r, l, &msg, at, None));
        } else if let Some(at) = r.printed_at(l).first() {
            let fixed = r.printed_part(l, at);
            out.push(super::steps::printed_on_purpose(
                r,
                l,
                &msg,
                at,
                fixed.as_deref(),
            ));
        } else if let Some(raised) = r.raised.iter().find(|x| x.message == l.name.text) {
            out.push(super::steps::raised_at(&r.item, raised, &msg, &topic));
        } else if !l.found() {
            out.push(
                Finding::new(
                    topic,
                    6,
                    format!(
                        "\"{msg}\" (line {}) appears {}. Where does it come from?",
                        l.name.line,
                        if r.search.stopped.is_some() {
                            r.search.nowhere()
                        } else {
                            "nowhere in this repository".to_string()
                        }
                    ),
                )
                .titled(format!("Where \"{msg}\" comes from"))
                .options(&[
                    ("A dependency", "dependency"),
                    ("An older version of this project", "older_version"),
                    ("The system or another tool", "environment"),
                    ("Don't know", "unknown"),
                ]),
            );
        }
    }
    out
}

/// Code the item quotes that the source still holds: two lines of its code blocks (at most
/// ten lines apart) found in one source file, at most twenty lines apart, neither in a
/// comment, a test or an example — one line alone (`program.parse(process.argv);`) may be
/// any user's program.
fn quoted_code(r: &Reading) -> Option<(u32, Hit)> {
    let found: Vec<(u32, &Hit)> = r
        .item
        .code_quotes()
        .into_iter()
        .filter_map(|(n, q)| {
            let f = r.search.get(&q)?;
            Some(
                f.code
                    .iter()
                    .filter(|h| {
                        !super::super::place::secondary(&h.path)
                            && !super::super::text::is_comment(&h.text)
                    })
                    .map(move |h| (n, h))
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
        .collect();
    found.iter().find_map(|(n, h)| {
        found
            .iter()
            .any(|(m, o)| {
                m > n && m - n <= 10 && o.path == h.path && o.line > h.line && o.line - h.line <= 20
            })
            .then(|| (*n, (*h).clone()))
    })
}

/// Whether the item says it worked before: a regression, whose first bad version matters.
fn regression(r: &Reading, named: &[Named]) -> bool {
    named.iter().any(|(.., v)| *v == Some(true)) || super::worked_before(&r.item)
}

/// "Which version first showed it?" for a regression, with the tags as options: the
/// versions the item says worked are offered (and recommended), the ones it says are broken
/// never are. Not a regression: which version shows it, unless the item says so already.
fn first_bad_version(r: &Reading, named: &[Named]) -> Option<Finding> {
    let tags = &r.repo.tags;
    let regression = regression(r, named);
    let titled = |f: Finding| Some(f.titled("The first bad version"));
    let reported = named
        .iter()
        .find(|(.., v)| *v == Some(false))
        .or_else(|| named.iter().find(|(.., v)| *v != Some(true)));
    // The item names its version, or HEAD's own (then HEAD is the version that shows it).
    let own = super::versions::names_own_version(r)
        || super::versions::reports_head_version(r).is_some()
        || r.item.reports_on_head()
        || super::versions::runs_latest(r);
    if (reported.is_some() || own) && !regression {
        return None;
    }
    if let Some((n, said, tag, _)) = reported {
        let good: Vec<&String> = named
            .iter()
            .filter(|(.., v)| *v == Some(true))
            .map(|(_, _, t, _)| t)
            .collect();
        let bad: Vec<&String> = named
            .iter()
            .filter(|(.., v)| *v == Some(false))
            .map(|(_, _, t, _)| t)
            .collect();
        let older = tags.iter().skip_while(|t| *t != tag).skip(1);
        let mut options: Vec<(String, String)> = good
            .iter()
            .map(|t| (format!("{t} (the item says it worked)"), slug(t)))
            .chain(
                older
                    .filter(|t| !good.contains(t) && !bad.contains(t))
                    .take(3)
                    .map(|t| (t.to_string(), slug(t))),
            )
            .collect();
        options.push(("It never worked".into(), "never".into()));
        options.push(("Don't know".into(), "unknown".into()));
        let why = good
            .first()
            .map(|t| format!(" Recommended: {t}, where the item says it worked."))
            .unwrap_or_default();
        // Its heading is what the question asks: the last good version, not the first bad one.
        let mut f = Some(
            Finding::new(
                "first_bad_version",
                7,
                format!(
                    "Line {n} names {said}; tag {tag} exists. Which version was the last good one?{why}"
                ),
            )
            .choices(options)
            .titled("The last good version"),
        );
        if let Some(t) = good.first() {
            f = f.map(|f| f.recommend(&slug(t)));
        }
        return f;
    }
    // Beside a run of the program (a library's caller rarely knows), or of a regression.
    let programs = super::super::repo::programs(r.worktree, r.repo.project.as_deref());
    let shows = if regression { "first showed" } else { "shows" };
    titled(newest_versions(r, shows))
        .filter(|_| regression || super::super::shape::runs_own_program(&r.item, &programs))
}

/// "Which version shows it?" with the newest tags (a pre-release left out beside its
/// release) as options, or that the repository has none.
fn newest_versions(r: &Reading, shows: &str) -> Finding {
    let tags = &r.repo.tags;
    if tags.is_empty() {
        return Finding::new(
            "first_bad_version",
            6,
            format!("Which version or commit {shows} it? The repository has no tags."),
        );
    }
    let newest: Vec<&str> = super::versions::releases(tags)
        .into_iter()
        .take(4)
        .collect();
    let mut options: Vec<(String, String)> =
        newest.iter().map(|t| (t.to_string(), slug(t))).collect();
    options.push(("Older, or don't know".into(), "older_or_unknown".into()));
    Finding::new(
        "first_bad_version",
        7,
        format!(
            "Which version {shows} it? {}The newest tags: {}.",
            super::versions::head_manifest(r),
            newest.join(", ")
        ),
    )
    .choices(options)
}

/// Actions that name one another in reports and documentation ("does not abort" is what
/// "cannot be cancelled" documents).
const SAME_ACTION: &[&[&str]] = &[
    &["abort", "cancel", "kill", "terminat", "interrupt", "stop"],
    &["close", "shut"],
    &["hang", "block", "deadlock", "stuck"],
    &["print", "output", "show", "display", "render"],
    &["exit", "quit"],
];

/// Words of negation that precede what something does not do.
const NEGATIONS: &[&str] = &[
    "not",
    "cannot",
    "can't",
    "doesn't",
    "don't",
    "won't",
    "never",
    "unable",
    "impossible",
];

/// The stems of the actions the title says do not happen (`does not abort` → `abort` and the
/// actions that mean the same).
fn denied_actions(title: &str) -> Vec<&'static str> {
    let words: Vec<String> = title
        .to_lowercase()
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_string()
        })
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !NEGATIONS.contains(&w.as_str()) {
            continue;
        }
        // The verb after the negation, past "be", "get", "to" (`fails to`, `can not be`).
        let Some(verb) = words[i + 1..]
            .iter()
            .find(|v| !matches!(v.as_str(), "be" | "get" | "to" | "really" | "always"))
        else {
            continue;
        };
        for group in SAME_ACTION {
            if group.iter().any(|stem| verb.starts_with(stem)) {
                out.extend(group.iter().copied());
            }
        }
    }
    out
}

/// The API the report is about, when its documentation says it does not do what the title
/// says does not happen ("cannot be cancelled" for "does not abort"): a bug report about
/// documented behaviour is a question of intent first.
fn documented_limit(r: &Reading) -> Option<Finding> {
    let actions = denied_actions(&r.facts.title);
    if actions.is_empty() {
        return None;
    }
    let (l, h) = found_names(r)
        .into_iter()
        .filter(|l| l.name.kind == NameKind::Ident)
        // `abort` is the action itself: "does *not* abort" in its docs says nothing of it.
        .filter(|l| {
            let last = l
                .name
                .text
                .rsplit("::")
                .next()
                .unwrap_or(&l.name.text)
                .to_lowercase();
            !actions.iter().any(|a| last.starts_with(a))
        })
        .find_map(|l| {
            let h = l.hits.iter().find(|h| {
                !is_doc(&h.path)
                    && !is_test(&h.path)
                    && !super::super::place::secondary(&h.path)
                    && super::super::text::is_comment(&h.text)
                    && denies(&h.text.to_lowercase(), &actions)
            })?;
            Some((l, h))
        })?;
    // The sentence of the comment that says it.
    let comment = h.text.trim_start_matches(['/', '*', '#', '!', ' ']);
    let sentence = comment
        .split_inclusive(". ")
        .find(|s| denies(&s.to_lowercase(), &actions))
        .unwrap_or(comment)
        .trim();
    let said = super::super::text::one_line(sentence, 140);
    Some(
        Finding::new(
            format!("documented_{}", slug(&l.name.text)),
            9,
            format!("The documentation of {} says at {}: \"{said}\" Is this the documented behaviour, so intended rather than a bug? Recommended: intended, as the docs say; make that easier to find.", l.shown(), h.cite()),
        )
        .titled(format!("What the docs of {} say", l.shown()))
        .options(&[("Intended, as documented: clarify the docs", "documented"), ("A bug all the same", "bug"), ("Don't know yet", "unknown")])
        .recommend("documented"),
    )
}

/// Whether a line says an action of `actions` does not happen: a negation, then within three
/// words the action (`cannot be cancelled`, `will still not cancel`).
fn denies(line: &str, actions: &[&str]) -> bool {
    let words: Vec<&str> = line
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        NEGATIONS.contains(w)
            && words[i + 1..]
                .iter()
                .take(3)
                .any(|v| actions.iter().any(|a| v.starts_with(a)))
    })
}

/// The API the report is about, when its definition carries documentation: what it says may
/// make the behaviour intended, not a bug.
fn documented(r: &Reading) -> Option<Finding> {
    if let Some(f) = super::throws::documented_throw(r) {
        return Some(f);
    }
    if let Some(f) = documented_limit(r) {
        return Some(f);
    }
    let (l, def, lines) = found_names(r).into_iter().find_map(|l| {
        // One API, not a common method name defined in many places.
        if l.name.kind != NameKind::Ident || l.definitions.len() > 2 {
            return None;
        }
        let def = l.definitions.iter().find(|d| {
            !is_doc(&d.path) && !is_test(&d.path) && !super::super::place::is_manifest(&d.path)
        })?;
        let text = super::super::repo::read_text(r.worktree, &def.path)?;
        let above: Vec<&str> = text
            .lines()
            .take((def.line as usize).saturating_sub(1))
            .collect();
        // The comment block right above the definition (attributes between are skipped).
        let mut n = 0;
        for line in above.iter().rev() {
            let t = line.trim_start();
            if t.starts_with("#[") || t.starts_with('@') {
                continue;
            }
            if t.starts_with("///")
                || t.starts_with("//")
                || t.starts_with("* ")
                || t.starts_with("/**")
                || t.starts_with('#')
            {
                n += 1;
            } else {
                break;
            }
        }
        (n >= 3).then_some((l, def, n))
    })?;
    Some(
        Finding::new(
            format!("documented_{}", slug(&l.name.text)),
            8,
            format!("{} is documented where it is defined ({}, {lines} comment lines above). Does that describe this behaviour, so it is intended rather than a bug?", l.shown(), def.cite()),
        )
        .titled(format!("What the docs of {} say", l.shown()))
        .options(&[("Documented: intended, clarify the docs", "documented"), ("Not documented: a bug", "bug"), ("Don't know yet", "unknown")]),
    )
}
