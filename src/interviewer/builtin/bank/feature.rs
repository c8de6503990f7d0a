//! The feature request's questions: how it relates to the flags and code it names, with the
//! existing convention as the recommendation; acceptance, scope, errors and format only where
//! the item leaves them open and they apply.

use super::*;

pub(in crate::interviewer::builtin) fn feature(r: &Reading) -> Vec<Finding> {
    let mut out: Vec<Finding> = short_flag(r).into_iter().collect();
    out.extend(flag_questions(r, true));
    out.extend(program_arguments(r));
    let grounded = !out.is_empty();
    // A flag the item asks for found already defined: whether it already does it is asked.
    let settled = out
        .iter()
        .any(|f| f.topic.starts_with("existing_") || f.topic.starts_with("used_"));
    out.extend(feature_rest(r, grounded, settled));
    out
}

/// Whether the item says to remove or replace `l` ("use X in place of `l`", "remove `l`",
/// "replace `l` with X"): its pattern is what goes, never one to follow.
pub(in crate::interviewer::builtin) fn removed(r: &Reading, l: &Located) -> bool {
    const GOES: &[&str] = &[
        "in place of",
        "instead of",
        "remove",
        "removing",
        "drop",
        "dropping",
        "get rid of",
        "deprecate",
        "replace",
        "replacing",
        "stop using",
        "no longer use",
    ];
    let name = l.name.text.as_str();
    r.item.sentences.iter().any(|(_, s)| {
        let lower = s.to_lowercase();
        s.match_indices(name).any(|(q, _)| {
            GOES.iter().any(|g| {
                lower.match_indices(g).any(|(p, _)| {
                    p < q && !(g.starts_with("replac") && lower[p..q].contains(" with "))
                })
            })
        })
    })
}

/// How code starts another program by name (Rust's `Command` with `new("less")`,
/// `exec.Command("less"`, `spawn('less'`, `Popen(["less"`): patterns searched for in the
/// repository's text, nothing started. The first is written in two parts, so that the check
/// that only `src/process/` starts processes (a text search) does not take it for one.
const STARTS: &[&str] = &[
    concat!("Command", "::new("),
    "exec.Command(",
    "spawn(",
    "Popen(",
    "execFile(",
];

/// A program the item wants used in place of another (`less`, "use `$PAGER` instead of
/// less"): the code starts it with arguments of its own, and another program may not take
/// them — the flags passed near where it is started are cited.
fn program_arguments(r: &Reading) -> Option<Finding> {
    let title = r.facts.title.to_lowercase();
    let (l, start) = found_names(r).into_iter().find_map(|l| {
        let name = l.name.text.as_str();
        let replaced = removed(r, l)
            || ["instead of", "in place of", "other than"].iter().any(|w| {
                title
                    .find(w)
                    .is_some_and(|at| title[at..].contains(&name.to_lowercase()))
            });
        if !replaced {
            return None;
        }
        let start = l.in_code().into_iter().find(|h| {
            STARTS.iter().any(|s| {
                h.text.contains(&format!("{s}\"{name}\""))
                    || h.text.contains(&format!("{s}'{name}'"))
                    || h.text.contains(&format!("{s}[\"{name}\""))
            })
        })?;
        Some((l, start))
    })?;
    let text = super::super::repo::read_text(r.worktree, &start.path)?;
    let lines: Vec<&str> = text.lines().collect();
    let at = start.line as usize;
    let mut flags: Vec<(String, usize)> = Vec::new();
    for n in at.saturating_sub(6).max(1)..=(at + 6).min(lines.len()) {
        for q in ['"', '\''] {
            for inside in lines[n - 1].split(q).skip(1).step_by(2) {
                let flag = inside.trim();
                if flag.starts_with('-')
                    && flag.len() >= 2
                    && !flag.contains(' ')
                    && !flags.iter().any(|(f, _)| f == flag)
                {
                    flags.push((flag.to_string(), n));
                }
            }
        }
    }
    if flags.is_empty() {
        return None;
    }
    let shown: Vec<String> = flags
        .iter()
        .take(4)
        .map(|(f, _)| format!("`{f}`"))
        .collect();
    let mut at_lines: Vec<String> = flags.iter().map(|(_, n)| n.to_string()).collect();
    at_lines.dedup();
    Some(
        Finding::new(
            format!("program_arguments_{}", slug(&l.name.text)),
            8,
            format!(
                "{} is started at {} with {} nearby ({}:{}). Pass them to the program used in its place too? Recommended: only to {}, another program may not take them.",
                l.shown(),
                start.cite(),
                shown.join(", "),
                start.path,
                at_lines.join(", "),
                l.shown()
            ),
        )
        .titled(format!("The arguments {} gets", l.shown()))
        .choices(vec![
            (format!("Only to {}", l.shown()), "only_it".into()),
            ("To any program used instead".into(), "any".into()),
            ("Let the person set them".into(), "configurable".into()),
        ])
        .recommend("only_it"),
    )
}

/// Questions about the flags an item names: how a new one relates to the existing ones, and
/// (for features) whether one it asks for already exists.
pub(super) fn flag_questions(r: &Reading, feature: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let convention = flag_convention(r);
    for l in r
        .names
        .iter()
        .filter(|l| l.name.kind == NameKind::Flag)
        .take(3)
    {
        let flag = l.shown();
        // `-x` and `-X` are two flags: two topics.
        let slugged = match super::super::defs::Flag::parse(&l.name.text) {
            Some(super::super::defs::Flag::Short(c)) if c.is_ascii_uppercase() => {
                format!("upper_{}", c.to_ascii_lowercase())
            }
            _ => slug(&l.name.text),
        };
        match (&l.definition, convention) {
            (Some(_), _) if !feature => {}
            (Some(_), _) if proposed(r, l) => out.push(existing_flag(r, l, &flag, &slugged)),
            // Every program has these: how a new behaviour relates to them is seldom a decision.
            (Some(_), _) if matches!(l.name.text.as_str(), "--help" | "--version") => {}
            (Some(def), _) if relates(r, l) => out.push(
                Finding::new(format!("flag_{slugged}"), 7, format!("{flag} exists ({}). How does the new behaviour relate to it?", def.cite()))
                    .titled(format!("Relation to {flag}"))
                    .choices(vec![
                        ("Independent of it".into(), "independent".into()),
                        (format!("It implies {flag}"), "implies".into()),
                        (format!("It conflicts with {flag}"), "conflicts".into()),
                        (format!("It replaces {flag}"), "replaces".into()),
                    ]),
            ),
            // Written somewhere but declared nowhere this interviewer can read: never "new",
            // nor "not declared" (a parser may declare it in a way the reading does not know).
            (None, _) if l.found() && proposed(r, l) => out.push(
                Finding::new(
                    format!("existing_{slugged}"),
                    7,
                    format!(
                        "{flag} is named at {}. Is it an option the program already has, or a new one?",
                        cites(&l.hits.iter().collect::<Vec<_>>(), 2)
                    ),
                )
                .titled(format!("Whether {flag} exists"))
                .options(&[
                    ("The existing one already does it", "already_done"),
                    ("A new option", "new_option"),
                ]),
            ),
            (None, Some(conv)) if proposed(r, l) && !quoted_bare(r, l) => out.push(
                Finding::new(
                    format!("new_flag_{slugged}"),
                    6,
                    format!("{flag} is new. Define it like the existing flags ({})? Recommended: one style for all flags.", conv.cite()),
                )
                .titled(format!("How {flag} is defined"))
                .options(&[("Like the existing flags", "follow_convention"), ("Differently (say how)", "other")])
                .recommend("follow_convention"),
            ),
            _ => {}
        }
    }
    out
}

/// The signs of a report that a wish never has: a terminal session, a trace, a failure said, an
/// exit code, an exception's name (`shape::report_signs`).
const REPORTED: &[&str] = &[
    "a terminal session",
    "a trace",
    "a failure said",
    "an exit code",
    "an exception's name",
];

/// Of a flag the item asks for that exists: whether it already does it, or one more is
/// wanted; where the item shows it in use, whether what it does is intended (`used_flag`).
fn existing_flag(r: &Reading, l: &Located, flag: &str, slugged: &str) -> Finding {
    used_flag(r, l, slugged).unwrap_or_else(|| {
        Finding::new(
            format!("existing_{slugged}"),
            8,
            format!(
                "{flag} is already defined ({}). Does it already do this, or is one more wanted? Recommended: the existing one, if it does; two flags for one job confuse.",
                cites(&l.definitions.iter().collect::<Vec<_>>(), 3)
            ),
        )
        .titled(format!("The existing {flag}"))
        .options(&[
            ("The existing one already does it", "already_done"),
            ("One more, same meaning", "same_meaning"),
            ("One more, different meaning", "different_meaning"),
        ])
        .recommend("already_done")
    })
}

/// Whether the item may be asked how its new behaviour relates to an existing option `l`: it
/// asks for something new or for help (a feature or a support question), shows no report, and
/// names the option itself in its title or prose. A flag only in its own command line (a code
/// block, `` `tool -x file` ``) or configuration is how it ran, not what it wishes for; a report
/// misread as a feature is not asked about "the new behaviour".
fn relates(r: &Reading, l: &Located) -> bool {
    use super::super::kind::ItemKind;
    let asks = r.class.kind == ItemKind::Feature || r.support.is_some();
    let signs = super::super::shape::report_signs(&r.item);
    let reported = signs.iter().any(|s| REPORTED.contains(s)) || !r.raised.is_empty();
    let prose = std::iter::once(r.facts.title.as_str())
        .chain(r.item.sentences.iter().map(|(_, s)| s.as_str()));
    asks && !reported
        && prose
            .into_iter()
            .any(|s| super::super::existing::names_option(s, &l.name.text))
}

/// `grounded`: a question made from what the repository holds was found already; the generic
/// acceptance and failure questions are asked only when none is. `settled`: one of them asks
/// whether a flag the item names already does it.
fn feature_rest(r: &Reading, grounded: bool, settled: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in r
        .names
        .iter()
        .filter(|l| l.name.kind == NameKind::Ident && l.definition.is_some())
        .filter(|l| !removed(r, l))
        .take(2)
    {
        let Some(def) = &l.definition else { continue };
        out.push(
            Finding::new(
                format!("follow_{}", slug(&l.name.text)),
                6,
                format!("{} is defined at {}. Follow its pattern for the new code? Recommended: the code already has this shape.", l.shown(), def.cite()),
            )
            .titled(format!("Following {}", l.shown()))
            .options(&[
                ("Follow its pattern", "follow_pattern"),
                ("Change it to fit", "change_it"),
                ("Unrelated to this item", "unrelated"),
            ])
            .recommend("follow_pattern"),
        );
    }
    // "Update the docs too?" is every change's; asked only when nothing else is.
    if let Some(l) = found_names(r)
        .into_iter()
        .find(|l| stale_pages(l) && r.item.is_about(&r.facts.title, &l.name.text))
        .filter(|_| !grounded && out.is_empty())
    {
        let docs = pages(l);
        out.push(
            Finding::new("docs_update", 4, format!("{} is {} at {}. Update that in the same change? Recommended: the docs would disagree otherwise.", l.shown(), super::pages::claim(&docs, l, 2), cites(&docs, 2)))
                .titled("Documentation")
                .options(&[("Yes, in the same change", "same_change"), ("Later", "later")])
                .recommend("same_change"),
        );
    }
    let grounded = grounded || !out.is_empty();
    let item = &r.item;
    let stated =
        item.has_heading(&[
            "acceptance",
            "done when",
            "definition of done",
            "success criteria",
            "expected",
        ]) || item.mentions(&[
            "acceptance criteria",
            "done when",
            "definition of done",
            "- [ ]",
        ]) || (item.mentions(&["given"]) && item.mentions(&["when"]) && item.mentions(&["then"]));
    let acceptance = grounded || stated;
    // Whether the project wants what is asked for comes before when it is done (`wish::ask`).
    let wanted = super::super::wish::ask(r, grounded, settled, stated);
    // A sentence that wishes shows what should happen: what happens when it fails is left to
    // the maintainer; what data it moves waits on whether it is wanted at all.
    let asked_wanted = wanted.is_some();
    let wish = asked_wanted && super::super::wish::wish(r).is_some();
    let existing = r.existing.is_some();
    if let Some(f) = wanted {
        out.push(f);
    } else if !acceptance && !existing {
        out.push(
            Finding::new("acceptance_criteria", 8, "The item states no acceptance criteria. What must be true for it to count as done?")
                .titled("Acceptance criteria"),
        );
    }
    let scoped = item.has_heading(&["scope", "non-goal"])
        || item.mentions(&[
            "out of scope",
            "non-goal",
            "non-goals",
            "not in scope",
            "in scope",
        ]);
    // Each listed line a question of its own (asked as the item's open points): asking the scope
    // of the list again would repeat them.
    let each_asked = item
        .list_items
        .iter()
        .all(|(_, t)| t.trim_end().ends_with('?'));
    if !scoped && !each_asked && item.list_items.len() >= 3 {
        let (a, b) = (
            item.list_items[0].0,
            item.list_items[item.list_items.len() - 1].0,
        );
        out.push(
            Finding::new("scope", 5, format!("The item lists {} things (lines {a}–{b}). All in this change, or can some follow?", item.list_items.len()))
                .titled("Scope")
                .options(&[("All of them", "all"), ("Some can follow later", "some_later")]),
        );
    }
    // Work that moves data in or out: a bare "file" or "read" is not enough.
    let io = item.mentions(&[
        "network",
        "download",
        "upload",
        "import",
        "export",
        "fetch",
        "connect",
        "sync",
        "save",
        "load",
        "write to",
        "read from",
        "disk",
    ]) || sends_request(&item.prose);
    let errors = item.mentions(&[
        "error",
        "errors",
        "fail",
        "fails",
        "failure",
        "invalid",
        "retry",
        "timeout",
        "reject",
        "missing",
        "atomically",
        "atomic",
        "half-written",
        "disk is full",
        "corrupt",
        "crash",
    ]);
    if io && !errors && !grounded && !wish {
        out.push(
            Finding::new(
                "error_handling",
                5,
                "What should happen when it fails, e.g. on invalid input or an I/O error?",
            )
            .titled("Error handling")
            .options(&[
                ("Show a clear error and stop", "fail_fast"),
                ("Skip the bad part, report it, continue", "skip_and_report"),
                ("Retry, then report", "retry"),
                ("Fall back to a safe default", "fallback"),
            ]),
        );
    }
    let data = item.mentions(&[
        "export",
        "import",
        "output",
        "serialize",
        "save",
        "load",
        "download",
    ]);
    let format = item.mentions(&[
        "format", "csv", "json", "yaml", "toml", "xml", "html", "markdown", "schema", "columns",
        "fields",
    ]);
    if data && !format && !asked_wanted {
        out.push(
            Finding::new(
                "data_format",
                5,
                "What data goes in and comes out, and in which format?",
            )
            .titled("Data and format"),
        );
    }
    out
}

/// Whether the item speaks of a request sent ("each request", "HTTP requests"), not of itself
/// ("feature request", "request a feature", "pull request"): a template's words move no data.
fn sends_request(prose: &str) -> bool {
    prose.match_indices("request").any(|(at, _)| {
        let before = prose[..at].split_whitespace().next_back().unwrap_or("");
        let rest = &prose[at + "request".len()..];
        let word = !prose[..at].ends_with(|c: char| c.is_alphanumeric())
            && !rest.starts_with(char::is_alphanumeric);
        word && !["feature", "pull", "merge", "change"].contains(&before)
            && !rest.starts_with(" a ")
            && !rest.starts_with(" for ")
    })
}

/// The documentation pages that name `l`; a changelog is history, not a page to update.
pub(super) fn pages(l: &Located) -> Vec<&Hit> {
    l.in_docs()
        .into_iter()
        .filter(|h| super::pages::cites(l, h))
        .filter(|h| {
            let upper = h.path.to_uppercase();
            !["CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE"]
                .iter()
                .any(|w| upper.contains(w))
        })
        .collect()
}

/// Documents at most that describe a name a change would make stale: one that more of them
/// cite (`composer.json` in twenty pages, `git` in four) is the project's common word, and
/// the change is not about what they say of it.
const MAX_STALE_PAGES: usize = 3;

/// Whether the pages citing `l` are what a change to it would make stale: some, in at most
/// [`MAX_STALE_PAGES`] documents, and `l` neither a manifest (`package.json`) nor the version
/// control tool — every document mentions those in passing.
fn stale_pages(l: &Located) -> bool {
    let pages = pages(l);
    let files: std::collections::BTreeSet<&str> = pages.iter().map(|h| h.path.as_str()).collect();
    let name = l.name.text.as_str();
    let common = super::super::place::is_manifest(name)
        || ["git", "hg", "svn"].contains(&name.to_lowercase().as_str());
    // Lines beyond the kept ones may lie in further documents.
    let all_kept = l.count.total <= l.hits.len();
    !pages.is_empty() && files.len() <= MAX_STALE_PAGES && all_kept && !common
}

/// A short flag the item asks for, or writes as a cluster (`-NF` is `-N` and `-F` together):
/// the letters are few, and the ones taken are counted from the declarations.
fn short_flag(r: &Reading) -> Option<Finding> {
    let cluster = r.item.lines.iter().find_map(|(n, line)| {
        super::super::names::code_spans(line)
            .into_iter()
            .find_map(|span| {
                let parts = super::super::names::short_cluster(span.trim())?;
                let defs: Vec<&Located> = parts
                    .iter()
                    .filter_map(|p| r.names.iter().find(|l| l.name.text == *p))
                    .filter(|l| l.definition.is_some())
                    .collect();
                (defs.len() == parts.len()).then(|| (*n, span.trim().to_string(), defs))
            })
    });
    let asks = r.item.mentions(&[
        "short flag",
        "short option",
        "short switch",
        "short name",
        "short alias",
        "short version",
        "shorthand",
    ]);
    if cluster.is_none() && !asks {
        return None;
    }
    let taken = short_letters(r);
    let long = r
        .names
        .iter()
        .find(|l| l.name.text.starts_with("--") && (proposed(r, l) || asks))
        .map_or("the new flag".to_string(), |l| l.shown());
    let count = if taken.is_empty() {
        String::new()
    } else {
        format!(" {}+ letters are taken.", taken.len())
    };
    let lead = match &cluster {
        Some((n, span, defs)) => {
            let each: Vec<String> = defs
                .iter()
                .map(|l| {
                    let at = l.definition.as_ref().map(Hit::cite).unwrap_or_default();
                    format!("{} ({at})", l.shown())
                })
                .collect();
            format!("Line {n}: `{span}` is {}.", each.join(" + "))
        }
        None => "The item asks for a short flag.".to_string(),
    };
    Some(
        Finding::new(
            "short_flag",
            8,
            format!(
                "{lead}{count} A letter for {long}, or long only? Recommended: long only, letters are few."
            ),
        )
        .titled("A short flag")
        .options(&[("Long only", "long_only"), ("A new short letter (say which)", "new_letter")])
        .recommend("long_only"),
    )
}

/// The short letters the repository's non-test code declares (`.short('x')`, `short = 'x'`).
fn short_letters(r: &Reading) -> Vec<char> {
    let mut letters: Vec<char> = Vec::new();
    for decl in super::super::reading::SHORT_DECLS {
        let Some(found) = r.search.get(decl) else {
            continue;
        };
        for h in found
            .hits
            .iter()
            .filter(|h| super::super::defs::may_define(h))
        {
            let Some(at) = h.text.find(decl) else {
                continue;
            };
            let rest = h.text[at + decl.len()..].trim_start_matches(['"', '\'', ' ']);
            let mut chars = rest.chars();
            if let (Some(c), Some(end)) = (chars.next(), chars.next())
                && c.is_ascii_alphanumeric()
                && matches!(end, '"' | '\'')
                && !letters.contains(&c)
            {
                letters.push(c);
            }
        }
    }
    letters.sort_unstable();
    letters
}

#[cfg(test)]
mod tests {
    use super::super::super::existing::names_option;

    #[test]
    fn an_option_is_named_as_itself_not_in_a_cluster_or_a_command_line() {
        assert!(names_option("A regex twin of `--exclude`.", "--exclude"));
        assert!(names_option("Like --exclude but a regex.", "--exclude"));
        assert!(names_option("Add `--format csv`.", "--format"));
        assert!(!names_option("`-NF` would be handy.", "-N"));
        assert!(!names_option("I run `app --paging never x`.", "--paging"));
        assert!(!names_option("See --exclude-regex.", "--exclude"));
    }
}
