//! The bug report's questions: does it reproduce on HEAD, which version broke it (the tags
//! as options), where its message comes from, and which test should show it.

use super::*;

pub(in crate::runner::builtin) fn bug(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    let item = &r.item;
    let on_head = item.sentences.iter().any(|(_, s)| {
        let l = s.to_lowercase();
        (l.contains("reproduc") || l.contains("still"))
            && ["head", "main", "master", "latest", "nightly", "git version"]
                .iter()
                .any(|w| super::super::intent::has_word(&l, w))
    });
    if !on_head {
        // Not HEAD's commit id: any commit (the answers fixture's own) would change the question.
        let since = r
            .repo
            .tags
            .first()
            .map(|t| format!(" (the code after {t})"))
            .unwrap_or_default();
        out.push(
            Finding::new(
                "reproduces_on_head",
                9,
                format!("Does it still reproduce on HEAD{since}?"),
            )
            .titled("Reproduces on HEAD")
            .options(&[
                ("Yes, on HEAD", "yes"),
                ("No, HEAD is fine", "fixed_on_head"),
                ("Not tried on HEAD", "not_tried"),
            ]),
        );
    }
    out.push(first_bad_version(r));
    if !item.mentions(&["expected", "instead", "should"]) && !item.has_heading(&["expected"]) {
        out.push(
            Finding::new(
                "expected_behaviour",
                8,
                "What should happen instead? The item says what goes wrong, not what is right.",
            )
            .titled("Expected behaviour"),
        );
    }
    for l in r
        .names
        .iter()
        .filter(|l| l.name.kind == NameKind::Message)
        .take(2)
    {
        let msg = super::super::text::one_line(&l.name.text, 70);
        let topic = format!("message_{}", slug(&l.name.text));
        let code: Vec<&Hit> = l
            .hits
            .iter()
            .filter(|h| !is_doc(&h.path) && !is_test(&h.path))
            .collect();
        if code.len() > 1 {
            let mut options: Vec<(String, String)> = code
                .iter()
                .take(4)
                .map(|h| (h.cite(), slug(&h.cite())))
                .collect();
            options.push(("Don't know yet".into(), "unknown".into()));
            out.push(
                Finding::new(
                    topic,
                    7,
                    format!(
                        "\"{msg}\" is produced in {} places ({}). Which one fails?",
                        code.len(),
                        cites(&code, 3)
                    ),
                )
                .titled(format!("Where \"{msg}\" comes from"))
                .choices(options),
            );
        } else if !l.found() {
            out.push(
                Finding::new(topic, 6, format!("\"{msg}\" (line {}) appears nowhere in this repository. Where does it come from?", l.name.line))
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
    // Which test, only when a test names what the item names (else the question is the same
    // on every bug).
    if found_names(r).iter().any(|l| !l.in_tests().is_empty()) {
        out.push(test_question(
            r,
            "regression_test",
            6,
            "show the bug (failing now, passing after the fix)",
        ));
    }
    out.extend(documented(r));
    let versioned = item.mentions(&[
        "version", "os", "linux", "macos", "windows", "rustc", "platform", "cargo",
    ]) || item.lower.split_whitespace().any(|w| {
        w.trim_start_matches('v')
            .starts_with(|c: char| c.is_ascii_digit())
            && w.contains('.')
    });
    if !versioned {
        out.push(
            Finding::new("environment", 4, "Which version, OS and toolchain show it?")
                .titled("Where it shows"),
        );
    }
    out
}

/// "Which version first showed it?", with the tags as options: the versions the item says
/// worked are offered (and recommended), the ones it says are broken never are.
fn first_bad_version(r: &Reading) -> Finding {
    let tags = &r.repo.tags;
    // Every version the item names (prose or its `--version` output) that is a tag, with
    // whether its sentence says it worked.
    let mut named: Vec<(u32, String, String, Option<bool>)> = Vec::new();
    // Sentence by sentence ("It works in 1.1. It is broken in 1.3." is two verdicts), then
    // the code blocks (a `--version` output says nothing of good or bad).
    let code = r
        .item
        .all
        .iter()
        .filter(|(_, _, code)| *code)
        .map(|(n, s, _)| (*n, s.to_string(), false));
    let prose = r.item.sentences.iter().map(|(n, s)| (*n, s.clone(), true));
    for (n, s, judged) in prose.chain(code) {
        let lower = if judged {
            s.to_lowercase()
        } else {
            String::new()
        };
        let good = ["works", "worked", "working", "fine", "last good", "used to"]
            .iter()
            .any(|w| super::super::intent::has_word(&lower, w));
        let bad = [
            "broken",
            "broke",
            "fails",
            "failing",
            "regression",
            "since",
            "doesn't work",
            "does not work",
            "no longer",
            "crash",
            "crashes",
            "panics",
            "after upgrading",
            "before",
        ]
        .iter()
        .any(|w| super::super::intent::has_word(&lower, w));
        let verdict = match (good, bad) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        };
        let words: Vec<&str> = s.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                .trim_end_matches('.');
            let v = w.trim_start_matches('v');
            // "0.2 seconds" is a duration, not a version: a version is written `v1.2`,
            // `1.2.3`, or after a word that introduces one ("version 1.2", "in 1.3").
            let before = i
                .checked_sub(1)
                .map(|j| words[j].to_lowercase())
                .unwrap_or_default();
            let after = words
                .get(i + 1)
                .map(|x| x.to_lowercase())
                .unwrap_or_default();
            let unit = super::has_measure(&format!("1 {after}"));
            let introduced = [
                "version", "release", "in", "since", "to", "from", "before", "after", "on", "v",
                "with", "of",
            ]
            .contains(&before.trim_matches(|c: char| !c.is_alphanumeric()));
            let shaped = w.starts_with('v') || v.matches('.').count() >= 2 || introduced;
            if v.contains('.')
                && shaped
                && !unit
                && v.starts_with(|c: char| c.is_ascii_digit())
                && let Some(t) = tag_for(tags, w)
                && !named.iter().any(|(_, _, x, _)| x == t)
            {
                named.push((n, w.to_string(), t.clone(), verdict));
            }
        }
    }
    let titled = |f: Finding| f.titled("The first bad version");
    let reported = named
        .iter()
        .find(|(.., v)| *v == Some(false))
        .or_else(|| named.iter().find(|(.., v)| *v != Some(true)));
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
        let mut f = titled(
            Finding::new(
                "first_bad_version",
                7,
                format!(
                    "Line {n} names {said}; tag {tag} exists. Which version was the last good one?{why}"
                ),
            )
            .choices(options),
        );
        if let Some(t) = good.first() {
            f = f.recommend(&slug(t));
        }
        return f;
    }
    if tags.is_empty() {
        return titled(Finding::new(
            "first_bad_version",
            6,
            "Which version or commit first showed it? The repository has no tags.",
        ));
    }
    let mut options: Vec<(String, String)> =
        tags.iter().take(4).map(|t| (t.clone(), slug(t))).collect();
    options.push(("Older, or don't know".into(), "older_or_unknown".into()));
    titled(
        Finding::new(
            "first_bad_version",
            7,
            format!(
                "Which version first showed it? The newest tags: {}.",
                tags.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
            ),
        )
        .choices(options),
    )
}

/// The API the report is about, when its definition carries documentation: what it says may
/// make the behaviour intended, not a bug.
fn documented(r: &Reading) -> Option<Finding> {
    let (l, def, lines) = found_names(r).into_iter().find_map(|l| {
        // One API, not a common method name defined in many places.
        if l.name.kind != NameKind::Ident || l.definitions.len() > 2 {
            return None;
        }
        let def = l.definitions.iter().find(|d| {
            !is_doc(&d.path) && !is_test(&d.path) && !super::super::intent::is_manifest(&d.path)
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
