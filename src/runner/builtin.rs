//! The built-in interviewer: a deterministic runner without a model, started as a subprocess
//! through the same protocol as any runner (`brief.json` in, one receipt out).
//!
//! Turn 1 asks about what the facts show (reflect) or what the work item leaves ambiguous
//! (intent), at most five questions ranked by severity; any later turn, or a final turn, writes
//! the `done` document from the facts and the answers. Same input, byte-identical receipt.
//!
//! Not for: checking receipts (the session does) or writing anywhere but `$INTERVIEW_RECEIPT`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::ask::AnswerRecord;
use crate::brief::BriefContext;
use crate::error::{Error, Result};
use crate::receipt::{Ask, Clarity, Done, Entry, Question, QuestionOption, Receipt};
use crate::subject::reflect::{ReflectFacts, cap};
use crate::subject::{IntentFacts, Kind};

/// Questions asked in one round at most (the receipt rule).
const MAX_QUESTIONS: usize = 5;
/// Entries of a `done` receipt at most (the receipt rule).
const MAX_ENTRIES: usize = 20;
/// The receipt format version written.
const RECEIPT_VERSION: u32 = 1;
/// `brief.json` larger than this is refused.
const MAX_CONTEXT_BYTES: u64 = 32 * 1024 * 1024;

/// `interview runner builtin`: read `$INTERVIEW_CONTEXT`, write the receipt to
/// `$INTERVIEW_RECEIPT`, exit 0. The worktree is the current directory.
pub fn run() -> Result<i32> {
    let var = |name: &str| {
        std::env::var_os(name).map(PathBuf::from).ok_or_else(|| {
            Error::Usage(format!(
                "{name} is not set: `interview runner builtin` is started by `interview reflect` or \
                 `interview intent`, which set INTERVIEW_CONTEXT and INTERVIEW_RECEIPT"
            ))
        })
    };
    let context_path = var("INTERVIEW_CONTEXT")?;
    let receipt_path = var("INTERVIEW_RECEIPT")?;
    let ctx = read_context(&context_path)?;
    let worktree = std::env::current_dir()
        .map_err(|e| Error::io("cannot find the worktree (the current directory)", e))?;
    let receipt = decide(&ctx, &worktree);
    let text = receipt_json(&receipt)?;
    std::fs::write(&receipt_path, text).map_err(|e| {
        Error::io(
            format!("cannot write the receipt to {}", receipt_path.display()),
            e,
        )
    })?;
    Ok(0)
}

fn read_context(path: &Path) -> Result<BriefContext> {
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io(format!("cannot read the brief context {shown}"), e))?;
    let mut bytes = Vec::new();
    file.take(MAX_CONTEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("cannot read the brief context {shown}"), e))?;
    if bytes.len() as u64 > MAX_CONTEXT_BYTES {
        return Err(Error::Other(format!(
            "the brief context {shown} is larger than 32 MiB"
        )));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::Other(format!(
            "the brief context {shown} is not a valid brief.json: {e}"
        ))
    })
}

/// The receipt as written: the wire format of DESIGN §3, with its `version`, keys sorted.
pub fn receipt_json(receipt: &Receipt) -> Result<String> {
    let mut value = serde_json::to_value(receipt)
        .map_err(|e| Error::Other(format!("cannot serialise the receipt: {e}")))?;
    if let Some(object) = value.as_object_mut() {
        object.insert("version".into(), RECEIPT_VERSION.into());
    }
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| Error::Other(format!("cannot serialise the receipt: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// The whole decision of one turn: a pure function of the brief and the worktree's files.
pub fn decide(ctx: &BriefContext, worktree: &Path) -> Receipt {
    let findings = match ctx.kind {
        Kind::Reflect => reflect_findings(&reflect_facts(ctx)),
        Kind::Intent => intent_findings(&intent_facts(ctx)),
    };
    let asked: Vec<&str> = ctx
        .rounds
        .iter()
        .flat_map(|r| r.questions.iter().map(|q| q.topic.as_str()))
        .collect();
    let may_ask = !ctx.final_turn && ctx.rounds.is_empty() && ctx.previous_failure.is_none();
    if may_ask {
        let questions = rank(&findings, &asked);
        if !questions.is_empty() {
            return Receipt::Ask(Ask { questions });
        }
    }
    Receipt::Done(synthesise(ctx, &findings, worktree))
}

/// One thing worth asking about, with its severity.
#[derive(Debug, Clone)]
struct Finding {
    topic: String,
    severity: u8,
    question: String,
    options: Vec<(&'static str, &'static str)>,
}

impl Finding {
    fn new(topic: impl Into<String>, severity: u8, question: impl Into<String>) -> Finding {
        Finding {
            topic: topic.into(),
            severity: severity.clamp(1, 10),
            question: one_line(&question.into(), 200),
            options: Vec::new(),
        }
    }

    fn options(mut self, options: &[(&'static str, &'static str)]) -> Finding {
        self.options = options.to_vec();
        self
    }

    fn to_question(&self) -> Question {
        Question {
            topic: self.topic.clone(),
            question_text: self.question.clone(),
            severity: self.severity,
            options: (self.options.len() >= 2).then(|| {
                self.options
                    .iter()
                    .map(|(label, value)| QuestionOption {
                        label: label.to_string(),
                        value: value.to_string(),
                    })
                    .collect()
            }),
            recommended: None,
        }
    }
}

/// The most severe findings not asked before, at most five; ties keep the order of discovery.
fn rank(findings: &[Finding], asked: &[&str]) -> Vec<Question> {
    let mut fresh: Vec<(usize, &Finding)> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| !asked.contains(&f.topic.as_str()))
        .collect();
    fresh.sort_by(|(ia, a), (ib, b)| b.severity.cmp(&a.severity).then(ia.cmp(ib)));
    let mut seen = Vec::new();
    fresh
        .into_iter()
        .filter(|(_, f)| {
            let new = !seen.contains(&f.topic);
            seen.push(f.topic.clone());
            new
        })
        .take(MAX_QUESTIONS)
        .map(|(_, f)| f.to_question())
        .collect()
}

fn reflect_facts(ctx: &BriefContext) -> ReflectFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| ReflectFacts {
        range: ctx.subject.id.clone(),
        ..ReflectFacts::default()
    })
}

fn intent_facts(ctx: &BriefContext) -> IntentFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| IntentFacts {
        id: ctx.subject.id.clone(),
        title: ctx.subject.title.clone(),
        ..IntentFacts::default()
    })
}

// ---------------------------------------------------------------------------------------------
// reflect

fn reflect_findings(f: &ReflectFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if f.commits == 0 {
        return out;
    }
    let total_lines = (f.lines_added + f.lines_deleted).max(1);
    if let Some(top) = f.churn.first().filter(|c| c.added + c.deleted > 0) {
        let share = (top.added + top.deleted) as f64 / total_lines as f64;
        let severity = 6 + u8::from(share >= 0.3) + u8::from(top.commits >= 5);
        out.push(
            Finding::new(
                "largest_churn",
                severity,
                format!(
                    "`{}` changed most (+{} −{} in {} commits). What drove that?",
                    cap(&top.path, 80),
                    top.added,
                    top.deleted,
                    top.commits
                ),
            )
            .options(&[
                ("New feature work", "feature"),
                ("Bug fixing", "bug_fixing"),
                ("Refactoring or cleanup", "refactoring"),
                ("Requirements kept changing", "changing_requirements"),
            ]),
        );
    }
    if let Some(first) = f.reverts.first() {
        out.push(
            Finding::new(
                "reverts",
                8,
                format!(
                    "{} commit(s) reverted work, e.g. {} \"{}\". What caused it?",
                    f.reverts.len(),
                    first.short(),
                    cap(&first.subject, 70)
                ),
            )
            .options(&[
                ("A bug found after merging", "bug_after_merge"),
                ("The approach was wrong", "wrong_approach"),
                ("It broke the build or CI", "broke_build"),
                ("Merged too early or by mistake", "premature_merge"),
            ]),
        );
    }
    let t = &f.tests;
    if let Some(first) = t.code_without_tests.first() {
        let ratio = t.commits_code_without_tests as f64 / t.commits_touching_code.max(1) as f64;
        let severity = 5 + 2 * u8::from(ratio >= 0.5) + u8::from(ratio >= 0.8);
        out.push(
            Finding::new(
                "untested_changes",
                severity,
                format!(
                    "{} of {} code-changing commits touched no test, e.g. {} \"{}\". Why?",
                    t.commits_code_without_tests,
                    t.commits_touching_code,
                    first.short(),
                    cap(&first.subject, 60)
                ),
            )
            .options(&[
                ("Covered by existing tests", "covered"),
                ("Tests are missing and should be added", "tests_missing"),
                ("The code is hard to test", "hard_to_test"),
                ("Low risk, not worth a test", "low_risk"),
            ]),
        );
    }
    if let Some(first) = f.deleted_files.first() {
        let severity = 5 + u8::from(f.deleted_files_count >= 5);
        out.push(
            Finding::new(
                "deleted_code",
                severity,
                format!(
                    "{} file(s) were deleted, e.g. `{}`. Why were they removed?",
                    f.deleted_files_count,
                    cap(first, 80)
                ),
            )
            .options(&[
                ("Replaced by new code", "replaced"),
                ("Dead code", "dead_code"),
                ("A feature was removed on purpose", "feature_removed"),
                ("Moved elsewhere", "moved"),
            ]),
        );
    }
    if let Some(first) = f.todos.first() {
        let place = match first.line {
            Some(n) => format!("{}:{n}", first.path),
            None => first.path.clone(),
        };
        out.push(Finding::new(
            "todos_added",
            5,
            format!(
                "{} TODO/FIXME line(s) were added, e.g. `{}`. Which must be resolved before the next release?",
                f.todos_count,
                cap(&place, 80)
            ),
        ));
    }
    if let Some(gap) = f.longest_gap.as_ref().filter(|g| g.days() >= 7.0) {
        out.push(
            Finding::new(
                "long_gap",
                4 + u8::from(gap.days() >= 30.0),
                format!(
                    "Nothing was committed for {:.0} days ({} → {}). What happened?",
                    gap.days(),
                    gap.from.date,
                    gap.to.date
                ),
            )
            .options(&[
                ("A planned break", "planned_break"),
                ("Blocked on something", "blocked"),
                ("Work happened elsewhere", "elsewhere"),
                ("Other priorities", "other_priorities"),
            ]),
        );
    }
    out.push(Finding::new(
        "went_well",
        3,
        format!(
            "What went well in {} that the team should keep doing?",
            cap(&f.range, 60)
        ),
    ));
    out.push(Finding::new(
        "do_differently",
        3,
        "What would you do differently next time?",
    ));
    out
}

fn reflect_fact_entries(f: &ReflectFacts, worktree: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    let commit = |oid: &str| format!("commit:{oid}");
    if f.head.is_empty() {
        return out;
    }
    let authors: Vec<String> = f
        .authors
        .iter()
        .take(5)
        .map(|a| format!("{} ({})", a.name, a.commits))
        .collect();
    out.push(confirmed(
        "Commits in the range",
        format!(
            "{} commit(s) in {} ({} merge(s)) by {} author(s), {} → {}; +{} −{} lines in {} file(s). Authors: {}.",
            f.commits,
            f.range,
            f.merges,
            f.authors.len(),
            f.first_date.as_deref().unwrap_or("-"),
            f.last_date.as_deref().unwrap_or("-"),
            f.lines_added,
            f.lines_deleted,
            f.files_changed,
            if authors.is_empty() {
                "none".to_string()
            } else {
                authors.join(", ")
            }
        ),
        vec![commit(&f.head)],
    ));
    if !f.churn.is_empty() {
        let lines: Vec<String> = f
            .churn
            .iter()
            .take(5)
            .map(|c| {
                format!(
                    "- `{}`: +{} −{} in {} commit(s)",
                    c.path, c.added, c.deleted, c.commits
                )
            })
            .collect();
        let sources: Vec<String> = f
            .churn
            .iter()
            .take(5)
            .map(|c| commit(&c.last_commit))
            .collect();
        out.push(confirmed(
            "Where the churn was",
            lines.join("\n"),
            dedup(sources),
        ));
    }
    if !f.reverts.is_empty() {
        let lines: Vec<String> = f
            .reverts
            .iter()
            .take(5)
            .map(|c| format!("- {} {}: {}", c.short(), c.date, c.subject))
            .collect();
        out.push(confirmed(
            "Reverted work",
            lines.join("\n"),
            f.reverts.iter().take(5).map(|c| commit(&c.oid)).collect(),
        ));
    }
    let t = &f.tests;
    if t.commits_touching_code > 0 {
        let mut content = format!(
            "{} test file(s) and {} code file(s) changed; {} of {} code-changing commit(s) touched no test.",
            t.test_files_touched,
            t.code_files_touched,
            t.commits_code_without_tests,
            t.commits_touching_code
        );
        for c in t.code_without_tests.iter().take(5) {
            content.push_str(&format!("\n- {} {}", c.short(), c.subject));
        }
        let mut sources: Vec<String> = t
            .code_without_tests
            .iter()
            .take(5)
            .map(|c| commit(&c.oid))
            .collect();
        if sources.is_empty() {
            sources.push(commit(&f.head));
        }
        out.push(confirmed("Tests and code", content, sources));
    }
    if f.added_files_count + f.deleted_files_count > 0 {
        let list = |v: &[String]| {
            v.iter()
                .take(8)
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut content = format!(
            "{} file(s) added, {} deleted between {} and HEAD.",
            f.added_files_count,
            f.deleted_files_count,
            f.range.split("..").next().unwrap_or("the base")
        );
        if !f.added_files.is_empty() {
            content.push_str(&format!("\nAdded: {}", list(&f.added_files)));
        }
        if !f.deleted_files.is_empty() {
            content.push_str(&format!("\nDeleted: {}", list(&f.deleted_files)));
        }
        out.push(confirmed(
            "Files added and deleted",
            content,
            vec![commit(&f.head)],
        ));
    }
    if !f.todos.is_empty() {
        let mut sources = Vec::new();
        let mut lines = Vec::new();
        for t in f.todos.iter().take(5) {
            match t.line.filter(|n| line_exists(worktree, &t.path, *n)) {
                Some(n) => {
                    lines.push(format!("- `{}:{n}` {}", t.path, t.text));
                    sources.push(format!("{}:{n}", t.path));
                }
                None => {
                    lines.push(format!("- `{}` {}", t.path, t.text));
                    sources.push(commit(&t.commit));
                }
            }
        }
        out.push(confirmed(
            "TODO and FIXME lines added",
            format!(
                "{} added in the range:\n{}",
                f.todos_count,
                lines.join("\n")
            ),
            dedup(sources),
        ));
    }
    if let Some(gap) = &f.longest_gap {
        out.push(confirmed(
            "Longest pause",
            format!(
                "{:.1} day(s) without a commit, from {} ({}) to {} ({}).",
                gap.days(),
                gap.from.date,
                gap.from.short(),
                gap.to.date,
                gap.to.short()
            ),
            dedup(vec![commit(&gap.from.oid), commit(&gap.to.oid)]),
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// intent

/// The work item's text split into lines, with code blocks blanked out: words in code are not
/// vague wording.
struct Item<'a> {
    lines: Vec<(u32, &'a str)>,
    lower: String,
}

impl<'a> Item<'a> {
    fn new(text: &'a str) -> Item<'a> {
        let mut lines = Vec::new();
        let mut in_code = false;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_code = !in_code;
                continue;
            }
            if !in_code {
                lines.push((u32::try_from(i + 1).unwrap_or(u32::MAX), line));
            }
        }
        let lower = lines
            .iter()
            .map(|(_, l)| l.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        Item { lines, lower }
    }

    /// The first line containing any of `terms` as a whole word (case-insensitive).
    fn first_word(&self, terms: &[&str], skip: &[u32]) -> Option<(u32, &'a str, String)> {
        self.lines
            .iter()
            .filter(|(n, _)| !skip.contains(n))
            .find_map(|(n, line)| {
                let lower = line.to_lowercase();
                terms
                    .iter()
                    .find(|t| has_word(&lower, t))
                    .map(|t| (*n, *line, t.to_string()))
            })
    }

    fn mentions(&self, terms: &[&str]) -> bool {
        terms.iter().any(|t| has_word(&self.lower, t))
    }

    /// Headings with their line number and the text under them (up to the next heading).
    fn sections(&self) -> Vec<(u32, String, String)> {
        let mut out: Vec<(u32, String, String)> = Vec::new();
        for (n, line) in &self.lines {
            let t = line.trim();
            if t.starts_with('#') {
                let title = t.trim_start_matches('#').trim().to_string();
                out.push((*n, title, String::new()));
            } else if let Some(last) = out.last_mut()
                && !t.is_empty()
            {
                if !last.2.is_empty() {
                    last.2.push('\n');
                }
                last.2.push_str(t);
            }
        }
        out
    }
}

/// Whether `term` occurs in `text` with no letter or digit right before or after it.
fn has_word(text: &str, term: &str) -> bool {
    let mut start = 0;
    while let Some(pos) = text.get(start..).and_then(|s| s.find(term)) {
        let at = start + pos;
        let end = at + term.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        // A term ending in punctuation (`etc.`) needs no boundary after it.
        let term_ends_word = term.chars().last().is_some_and(|c| c.is_alphanumeric());
        if boundary(before) && (!term_ends_word || boundary(after)) {
            return true;
        }
        start = at + term.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// A vague wording the item uses and what to ask about it.
struct Vague {
    topic: &'static str,
    terms: &'static [&'static str],
    severity: u8,
    ask: fn(&str, u32, &str) -> String,
    options: &'static [(&'static str, &'static str)],
}

const VAGUE: &[Vague] = &[
    Vague {
        topic: "vague_tbd",
        terms: &[
            "tbd",
            "tbc",
            "to be decided",
            "to be determined",
            "to be defined",
        ],
        severity: 9,
        ask: |_, n, line| {
            format!(
                "Line {n} is not decided yet: \"{}\". What is decided?",
                snippet(line, 110)
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_fast",
        terms: &[
            "fast",
            "quick",
            "quickly",
            "performant",
            "responsive",
            "real-time",
            "realtime",
        ],
        severity: 7,
        ask: |t, n, _| format!("The item says \"{t}\" (line {n}). What is the measurable target?"),
        options: &[
            ("Under 100 ms", "under_100ms"),
            ("Under 1 second", "under_1s"),
            ("Under 10 seconds", "under_10s"),
            ("No hard target", "no_target"),
        ],
    },
    Vague {
        topic: "vague_etc",
        terms: &["etc.", "etc", "and so on", "and so forth", "and more"],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} ends a list with \"{t}\": \"{}\". What is the complete list?",
                snippet(line, 90)
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_should_probably",
        terms: &[
            "should probably",
            "probably",
            "ideally",
            "if possible",
            "preferably",
        ],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Is it required?",
                snippet(line, 100)
            )
        },
        options: &[
            ("Required", "required"),
            ("Nice to have", "nice_to_have"),
            ("Not needed now", "not_needed"),
        ],
    },
    Vague {
        topic: "vague_maybe",
        terms: &[
            "maybe",
            "perhaps",
            "possibly",
            "might",
            "nice to have",
            "optionally",
        ],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Is that part in scope?",
                snippet(line, 100)
            )
        },
        options: &[
            ("Yes, in scope", "in_scope"),
            ("No, leave it out", "out_of_scope"),
            ("Later, as a follow-up", "follow_up"),
        ],
    },
    Vague {
        topic: "vague_simple",
        terms: &[
            "simple",
            "easy",
            "easily",
            "intuitive",
            "user-friendly",
            "straightforward",
            "seamless",
        ],
        severity: 5,
        ask: |t, n, _| {
            format!("The item says \"{t}\" (line {n}). Simple for whom, and how would we tell?")
        },
        options: &[
            ("No setup or configuration needed", "zero_config"),
            ("One command or one click", "one_step"),
            (
                "Follows an existing pattern in the code",
                "familiar_pattern",
            ),
            ("A small, low-risk change", "small_change"),
        ],
    },
    Vague {
        topic: "vague_quality",
        terms: &[
            "robust",
            "scalable",
            "flexible",
            "efficient",
            "reliable",
            "secure",
            "modern",
            "clean",
        ],
        severity: 5,
        ask: |t, n, _| {
            format!(
                "The item asks for \"{t}\" (line {n}). Which concrete, checkable property is meant?"
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_some",
        terms: &[
            "some",
            "several",
            "various",
            "a few",
            "many",
            "most",
            "a number of",
        ],
        severity: 4,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Which ones exactly, or how many?",
                snippet(line, 90)
            )
        },
        options: &[],
    },
];

/// What a complete work item states, how to notice it, and what to ask when it is missing.
struct Aspect {
    topic: &'static str,
    present: &'static [&'static str],
    severity: u8,
    question: &'static str,
    options: &'static [(&'static str, &'static str)],
}

const ASPECTS: &[Aspect] = &[
    Aspect {
        topic: "acceptance_criteria",
        present: &[
            "acceptance",
            "done when",
            "definition of done",
            "success criteria",
            "criteria",
            "- [ ]",
            "- [x]",
            "given",
            "expected result",
            "verify that",
        ],
        severity: 9,
        question: "The item states no acceptance criteria. What must be true for it to count as done?",
        options: &[],
    },
    Aspect {
        topic: "scope",
        present: &[
            "out of scope",
            "non-goal",
            "non-goals",
            "non goal",
            "not in scope",
            "scope",
            "will not",
            "won't",
            "not included",
        ],
        severity: 7,
        question: "The item says nothing about scope. What is explicitly out of scope?",
        options: &[],
    },
    Aspect {
        topic: "error_handling",
        present: &[
            "error",
            "errors",
            "fail",
            "fails",
            "failure",
            "invalid",
            "exception",
            "edge case",
            "edge cases",
            "retry",
            "timeout",
            "reject",
            "rejected",
            "missing",
        ],
        severity: 7,
        question: "What should happen when it fails, e.g. on invalid input or an I/O error?",
        options: &[
            ("Show a clear error and stop", "fail_fast"),
            ("Skip the bad part, report it, continue", "skip_and_report"),
            ("Retry, then report", "retry"),
            ("Fall back to a safe default", "fallback"),
        ],
    },
    Aspect {
        topic: "users",
        present: &[
            "user",
            "users",
            "admin",
            "admins",
            "administrator",
            "customer",
            "customers",
            "operator",
            "operators",
            "developer",
            "developers",
            "maintainer",
            "maintainers",
            "as a",
            "persona",
            "actor",
            "actors",
            "client",
            "clients",
            "team",
        ],
        severity: 6,
        question: "Who will use this, and in what situation?",
        options: &[
            ("End users of the product", "end_users"),
            ("Administrators or operators", "operators"),
            ("Developers, through an API or CLI", "developers"),
            ("Other systems, automatically", "systems"),
        ],
    },
    Aspect {
        topic: "data_format",
        present: &[
            "format", "formats", "json", "csv", "yaml", "toml", "xml", "schema", "field", "fields",
            "column", "columns", "encoding", "utf-8", "utf8", "bytes", "table", "payload",
        ],
        severity: 5,
        question: "What data goes in and comes out, and in which format?",
        options: &[],
    },
];

fn intent_findings(f: &IntentFacts) -> Vec<Finding> {
    let item = Item::new(&f.text);
    let mut out = Vec::new();
    if item.lines.iter().all(|(_, l)| l.trim().is_empty()) {
        out.push(Finding::new(
            "goal",
            10,
            "The work item is empty. What should be built, and why?",
        ));
        return out;
    }
    for aspect in ASPECTS {
        if !item.mentions(aspect.present) {
            out.push(
                Finding::new(aspect.topic, aspect.severity, aspect.question)
                    .options(aspect.options),
            );
        }
    }
    // Questions the author left in the text: each is a decision nobody made yet.
    let mut asked_in_text = 0;
    let mut question_lines = Vec::new();
    for (n, line) in &item.lines {
        let t = line.trim();
        if t.ends_with('?') && !t.starts_with('#') && t.chars().count() > 3 {
            asked_in_text += 1;
            question_lines.push(*n);
            out.push(Finding::new(
                format!("open_point_{asked_in_text}"),
                8,
                format!(
                    "The item leaves a question open (line {n}): \"{}\" What is the answer?",
                    snippet(t, 130)
                ),
            ));
            if asked_in_text == 5 {
                break;
            }
        }
    }
    for vague in VAGUE {
        // A line already asked about as an open point is not asked about twice.
        if let Some((n, line, term)) = item.first_word(vague.terms, &question_lines) {
            out.push(
                Finding::new(vague.topic, vague.severity, (vague.ask)(&term, n, line))
                    .options(vague.options),
            );
        }
    }
    out
}

fn intent_fact_entries(f: &IntentFacts, worktree: &Path) -> Vec<Entry> {
    let item = Item::new(&f.text);
    let cite = |line: u32| {
        f.path
            .as_ref()
            .filter(|p| line_exists(worktree, p, line))
            .map(|p| format!("{p}:{line}"))
    };
    // Without a citable file the text is still what the item says, but unverifiable here.
    let entry = |title: &str, content: String, line: u32| match cite(line) {
        Some(source) => confirmed(title, content, vec![source]),
        None => Entry {
            title: one_line(title, 80),
            content: cap(&content, 2000),
            clarity: Clarity::Inferred,
            sources: Vec::new(),
        },
    };
    let via = match f.tracker.as_str() {
        "local" => "the local tracker",
        "from" => "--from",
        "stdin" => "standard input",
        "github" => "GitHub",
        _ => "a tracker",
    };
    let mut out = Vec::new();
    for (n, title, body) in item.sections() {
        if body.is_empty() || title.is_empty() {
            continue;
        }
        out.push(entry(&title, body, n));
    }
    if out.is_empty() {
        // No headed sections: the item as a whole is the one fact.
        let first_line = item
            .lines
            .iter()
            .find(|(_, l)| !l.trim().is_empty())
            .map_or(1, |(n, _)| *n);
        let text: Vec<&str> = item.lines.iter().map(|(_, l)| l.trim()).collect();
        out.push(entry(
            "The work item",
            text.join("\n").trim().to_string(),
            first_line,
        ));
    }
    if let Some(first) = out.first_mut() {
        first.content = cap(
            &format!("{}\n\n(From {} via {via}.)", first.content, f.source),
            2000,
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// synthesis

/// Every question asked so far with the person's answer, in the order asked.
fn transcript(ctx: &BriefContext) -> Vec<(Question, Option<AnswerRecord>, bool)> {
    let mut out: Vec<(Question, Option<AnswerRecord>, bool)> = Vec::new();
    for round in &ctx.rounds {
        for q in &round.questions {
            if out.iter().any(|(seen, _, _)| seen.topic == q.topic) {
                continue;
            }
            let answer = round
                .answers
                .iter()
                .find(|a| a.question_id == q.topic)
                .cloned();
            out.push((q.clone(), answer, round.gate_skipped));
        }
    }
    out
}

fn synthesise(ctx: &BriefContext, findings: &[Finding], worktree: &Path) -> Done {
    let qa = transcript(ctx);
    let mut declared = Vec::new();
    let mut open = Vec::new();
    for (q, answer, gate_skipped) in &qa {
        match answer
            .as_ref()
            .filter(|a| !a.skipped && !a.answer_text.trim().is_empty())
        {
            Some(a) => declared.push(Entry {
                title: one_line(&topic_title(&q.topic, &q.question_text), 80),
                content: cap(
                    &format!(
                        "Q: {}\nA: {}",
                        q.question_text,
                        shown_answer(q, &a.answer_text)
                    ),
                    2000,
                ),
                clarity: Clarity::DeclaredByUser,
                sources: vec![format!("qa:{}", q.topic)],
            }),
            None => {
                let why = if *gate_skipped {
                    "The person skipped the questions"
                } else if answer.is_some() {
                    "The person skipped this question"
                } else {
                    "The question was never answered"
                };
                open.push(open_question(&q.topic, &q.question_text, why));
            }
        }
    }
    // Findings never asked (a final turn, or more than five) stay open, not silently dropped.
    let asked: Vec<&str> = qa.iter().map(|(q, _, _)| q.topic.as_str()).collect();
    let mut unasked: Vec<&Finding> = findings
        .iter()
        .filter(|f| !asked.contains(&f.topic.as_str()))
        .filter(|f| !matches!(f.topic.as_str(), "went_well" | "do_differently"))
        .collect();
    unasked.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in unasked {
        open.push(open_question(&f.topic, &f.question, "Not asked"));
    }
    let facts = match ctx.kind {
        Kind::Reflect => reflect_fact_entries(&reflect_facts(ctx), worktree),
        Kind::Intent => intent_fact_entries(&intent_facts(ctx), worktree),
    };
    let facts: Vec<Entry> = if ctx.previous_failure.is_some() {
        // The last receipt was refused: keep the facts but claim nothing a check could reject.
        facts
            .into_iter()
            .map(|mut e| {
                e.clarity = Clarity::Inferred;
                e
            })
            .collect()
    } else {
        facts
    };

    let (n_declared, n_open) = (declared.len(), open.len());
    // Answers first, then open questions, then facts; a few facts always keep their place.
    let mut entries = declared;
    entries.truncate(MAX_ENTRIES);
    let open_room = MAX_ENTRIES.saturating_sub(entries.len() + facts.len().min(4));
    entries.extend(open.into_iter().take(open_room));
    let left = MAX_ENTRIES.saturating_sub(entries.len());
    entries.extend(facts.into_iter().take(left));
    if entries.is_empty() {
        entries.push(Entry {
            title: "Nothing to report".into(),
            content: "The subject has no facts and no questions were answered.".into(),
            clarity: Clarity::Inferred,
            sources: Vec::new(),
        });
    }

    let (title, lead) = match ctx.kind {
        Kind::Reflect => {
            let f = reflect_facts(ctx);
            (
                format!("Reflection on {}", f.range),
                format!(
                    "{} commit(s) in {} by {} author(s), {} → {}.",
                    f.commits,
                    f.range,
                    f.authors.len(),
                    f.first_date.as_deref().unwrap_or("-"),
                    f.last_date.as_deref().unwrap_or("-")
                ),
            )
        }
        Kind::Intent => {
            let f = intent_facts(ctx);
            (
                format!("Intent of {}: {}", f.id, f.title),
                format!("Work item {} ({}): {}.", f.id, f.source, f.title),
            )
        }
    };
    let summary = format!(
        "{lead} {n_declared} point(s) declared by the person, {n_open} left open; the rest is taken from the {} as recorded.",
        match ctx.kind {
            Kind::Reflect => "history",
            Kind::Intent => "work item",
        }
    );
    Done {
        title: one_line(&title, 80),
        summary: cap(&summary, 2000),
        entries,
    }
}

fn confirmed(title: &str, content: String, sources: Vec<String>) -> Entry {
    Entry {
        title: one_line(title, 80),
        content: cap(&content, 2000),
        clarity: Clarity::Confirmed,
        sources,
    }
}

fn open_question(topic: &str, question: &str, why: &str) -> Entry {
    Entry {
        title: one_line(&topic_title(topic, question), 80),
        content: cap(&format!("{why}: {question}"), 2000),
        clarity: Clarity::OpenQuestion,
        sources: Vec::new(),
    }
}

/// An entry title for an answered topic: a known name, else the question itself.
fn topic_title(topic: &str, question: &str) -> String {
    let known = [
        ("acceptance_criteria", "Acceptance criteria"),
        ("scope", "Scope"),
        ("error_handling", "Error handling"),
        ("users", "Users"),
        ("data_format", "Data and format"),
        ("largest_churn", "Why the largest churn happened"),
        ("reverts", "Why work was reverted"),
        ("untested_changes", "Code changed without tests"),
        ("deleted_code", "Why code was deleted"),
        ("todos_added", "TODOs to resolve"),
        ("long_gap", "The longest pause"),
        ("went_well", "What went well"),
        ("do_differently", "What to do differently"),
        ("goal", "Goal"),
        ("vague_tbd", "What is still to be decided"),
        ("vague_fast", "The performance target"),
        ("vague_etc", "The complete list"),
        ("vague_should_probably", "Required or optional"),
        ("vague_maybe", "In scope or not"),
        ("vague_simple", "What simple means here"),
        ("vague_quality", "The quality meant, concretely"),
        ("vague_some", "Which ones, and how many"),
    ];
    if let Some(name) = known.iter().find(|(t, _)| *t == topic).map(|(_, n)| n) {
        return name.to_string();
    }
    // `open_point_N`: the quoted question from the item reads better than the question about it.
    match (question.find('"'), question.rfind('"')) {
        (Some(a), Some(b)) if topic.starts_with("open_point_") && b > a + 1 => {
            question[a + 1..b].to_string()
        }
        _ => question.to_string(),
    }
}

/// The answer as a person reads it: an option's label with its value, or the text typed.
fn shown_answer(q: &Question, answer: &str) -> String {
    q.options
        .iter()
        .flatten()
        .find(|o| o.value == answer)
        .map(|o| format!("{} ({})", o.label, o.value))
        .unwrap_or_else(|| answer.to_string())
}

/// Whether `path:line` exists in the worktree as a regular file (what the receipt check needs).
fn line_exists(worktree: &Path, path: &str, line: u32) -> bool {
    let plain = !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|s| !matches!(s, "" | "." | ".." | ".git" | ".interview"));
    if !plain || line == 0 {
        return false;
    }
    let full = worktree.join(path);
    let Ok(meta) = std::fs::symlink_metadata(&full) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let Ok(file) = std::fs::File::open(&full) else {
        return false;
    };
    let mut count: u64 = 0;
    let mut last_byte = None;
    let mut reader = std::io::BufReader::new(file.take(64 * 1024 * 1024));
    let mut buf = [0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                count += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                last_byte = buf[..n].last().copied();
                if count >= u64::from(line) {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    // A last line without a newline still counts.
    let lines = count + u64::from(last_byte.is_some_and(|b| b != b'\n'));
    lines >= u64::from(line)
}

/// `text` on one line (controls and line breaks become spaces), at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let squeezed = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    cap(&squeezed, max)
}

fn snippet(line: &str, max: usize) -> String {
    one_line(
        line.trim().trim_start_matches(['-', '*', '#', '>']).trim(),
        max,
    )
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = BTreeMap::new();
    v.retain(|s| seen.insert(s.clone(), ()).is_none());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_only_whole_words() {
        assert!(has_word("make it fast.", "fast"));
        assert!(!has_word("breakfast is served", "fast"));
        assert!(has_word("csv, json etc. are fine", "etc."));
        assert!(!has_word("some_thing", "some"));
        assert!(has_word("should probably work", "should probably"));
    }

    #[test]
    fn code_blocks_are_not_read_as_wording() {
        let item = Item::new("# T\n```\nfast maybe etc.\n```\nplain\n");
        assert!(!item.mentions(&["fast", "maybe"]));
        assert!(item.mentions(&["plain"]));
    }

    #[test]
    fn questions_fit_the_receipt_limits() {
        let long = "x".repeat(500);
        let f = Finding::new("t", 42, format!("{long}\n{long}"));
        assert!(f.question.chars().count() <= 200);
        assert!(!f.question.contains('\n'));
        assert_eq!(f.severity, 10);
    }
}
