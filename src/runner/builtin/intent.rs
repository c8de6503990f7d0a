//! The intent half of the built-in interviewer: it reads the work item (what kind it is, what
//! it names, what it leaves open), finds the names in the repository, and turns that into
//! grounded questions and `confirmed` entries citing the code (see `docs/interviews.md`).
//!
//! The item's own text is never evidence: it is quoted whole in the document as what the item
//! states, and nothing found in it or in earlier interview documents is cited as confirmed.

use std::path::Path;

use crate::brief::BriefContext;
use crate::subject::IntentFacts;
use crate::subject::reflect::cap;

use super::classify::{Classification, classify};
use super::intent_entries::{fact_entries, not_checked, title_and_lead};
use super::item::Item;
use super::names::{Name, NameKind, extract};
use super::repo::RepoFacts;
use super::search::{Hit, Search, search};
use super::text::one_line;
use super::{Analysis, questions};

pub(super) use super::item::has_word;

pub(super) fn facts(ctx: &BriefContext) -> IntentFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| IntentFacts {
        id: ctx.subject.id.clone(),
        title: ctx.subject.title.clone(),
        ..IntentFacts::default()
    })
}

/// Literals searched for alongside the names: how this repository defines command-line flags.
pub(super) const FLAG_CONVENTIONS: &[&str] = &[
    "#[arg(",
    "#[clap(",
    ".long(",
    "add_argument(",
    "flag.String(",
];

/// Literals searched for alongside the names: how this repository declares benchmarks.
pub(super) const BENCHMARKS: &[&str] = &["[[bench]]", "criterion_group!", "#[bench]"];

/// Everything the interviewer learnt about one work item.
pub(super) struct Reading<'a> {
    pub facts: &'a IntentFacts,
    pub item: Item<'a>,
    pub class: Classification,
    pub names: Vec<Located>,
    pub search: Search,
    pub repo: RepoFacts,
    pub worktree: &'a Path,
    /// Topics an earlier interview of this item left open, and those it answered (with the
    /// line of the earlier document that records the answer).
    pub previous_open: Vec<String>,
    pub previous_answered: Vec<(String, String, u32)>,
}

/// A name from the item with what the repository holds of it.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub name: Name,
    /// Every line naming it (any spelling searched), in path order.
    pub hits: Vec<Hit>,
    pub total: usize,
    /// Where it is defined or declared, when a line looks like it (the first of
    /// `definitions`).
    pub definition: Option<Hit>,
    pub definitions: Vec<Hit>,
}

impl Located {
    pub fn found(&self) -> bool {
        !self.hits.is_empty()
    }

    pub fn files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = self.hits.iter().map(|h| h.path.as_str()).collect();
        files.dedup();
        files
    }

    pub fn in_tests(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_test(&h.path)).collect()
    }

    pub fn in_docs(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_doc(&h.path)).collect()
    }

    pub fn in_code(&self) -> Vec<&Hit> {
        self.hits
            .iter()
            .filter(|h| !is_doc(&h.path) && !is_test(&h.path) && !is_manifest(&h.path))
            .collect()
    }

    /// `name` as the item wrote it, in backticks for a question.
    pub fn shown(&self) -> String {
        format!("`{}`", cap(&self.name.text.replace('`', "'"), 60))
    }
}

pub(super) fn is_test(path: &str) -> bool {
    crate::subject::reflect::is_test_path(path)
}

pub(super) fn is_doc(path: &str) -> bool {
    let lower = path.to_lowercase();
    lower.starts_with("docs/")
        || lower.starts_with("doc/")
        || [".md", ".txt", ".rst", ".adoc", ".1"]
            .iter()
            .any(|e| lower.ends_with(e))
}

/// Examples, benchmarks, tests and fuzz targets: where a name is used, not where it lives.
pub(super) fn secondary(path: &str) -> bool {
    path.split('/').any(|s| {
        matches!(
            s,
            "examples" | "example" | "benches" | "fuzz" | "tests" | "test"
        )
    })
}

pub(super) fn is_manifest(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    matches!(
        file,
        "Cargo.toml"
            | "Cargo.lock"
            | "package.json"
            | "pyproject.toml"
            | "go.mod"
            | "requirements.txt"
    )
}

/// The spellings searched for one name: a crate `a-b` is `a_b` in code; a flag `--a-b` is
/// `a_b` as a clap field.
fn spellings(name: &Name) -> Vec<String> {
    let t = &name.text;
    let mut out = vec![t.clone()];
    match name.kind {
        NameKind::Flag => {
            let bare = t.trim_start_matches('-');
            out.push(format!("\"{bare}\""));
            if bare.contains('-') {
                out.push(bare.replace('-', "_"));
            }
        }
        NameKind::Ident if t.contains('-') => out.push(t.replace('-', "_")),
        NameKind::Ident if t.contains('_') && !t.contains("::") => out.push(t.replace('_', "-")),
        _ => {}
    }
    out
}

/// Read the item and the repository once: the whole basis of the questions and the entries.
pub(super) fn read<'a>(f: &'a IntentFacts, worktree: &'a Path) -> Reading<'a> {
    let item = Item::new(&f.text);
    let class = classify(&f.title, &item.headings, &item.lower);
    let names = extract(&item.all);
    let mut literals: Vec<String> = names.iter().flat_map(spellings).collect();
    literals.extend(names.iter().filter_map(field_spelling));
    literals.extend(FLAG_CONVENTIONS.iter().map(|s| s.to_string()));
    literals.extend(BENCHMARKS.iter().map(|s| s.to_string()));
    literals.sort();
    literals.dedup();
    let skip: Vec<String> = f.path.iter().cloned().collect();
    let found = search(worktree, &literals, &skip);
    let mut files = std::collections::BTreeMap::new();
    let located = names
        .into_iter()
        .map(|name| {
            let mut hits: Vec<Hit> = spellings(&name)
                .iter()
                .filter_map(|s| found.get(s))
                .flat_map(|f| f.hits.iter().cloned())
                .collect();
            hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            hits.dedup();
            let total = spellings(&name)
                .iter()
                .filter_map(|s| found.get(s))
                .map(|f| f.total)
                .sum::<usize>()
                .max(hits.len());
            // A clap field `no_bell: bool` under `#[arg(long …)]` defines `--no-bell`.
            let fields: Vec<Hit> = field_spelling(&name)
                .and_then(|f| found.get(&f))
                .map(|f| {
                    f.hits
                        .iter()
                        .filter(|h| h.path.ends_with(".rs") && !is_test(&h.path))
                        .filter(|h| is_field(&h.text))
                        .filter(|h| attribute_above(worktree, h, &mut files))
                        .take(10)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let mut definitions = fields.clone();
            hits.extend(fields);
            hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            hits.dedup();
            definitions.extend(definition(&name, &hits));
            // A path a trace names is the file itself, at the line it points at.
            if let Some(file) = resolve_path(worktree, &name) {
                definitions.insert(0, file.clone());
                hits.insert(0, file);
            }
            definitions.sort_by(|a, b| {
                (secondary(&a.path), &a.path, a.line).cmp(&(secondary(&b.path), &b.path, b.line))
            });
            definitions.dedup();
            Located {
                name,
                hits,
                total,
                definition: definitions.first().cloned(),
                definitions,
            }
        })
        .collect();
    let (previous_open, previous_answered) = previous(worktree, &f.id);
    Reading {
        facts: f,
        item,
        class,
        names: located,
        search: found,
        repo: super::repo::read(worktree),
        worktree,
        previous_open,
        previous_answered,
    }
}

/// A path the item names as a file of the worktree: as written, or the longest tail of it that
/// is one (`/tmp/build/ripgrep-13.0.0/crates/matcher/src/lib.rs` → `crates/matcher/src/lib.rs`),
/// with the line a trace points at (or its first line).
fn resolve_path(worktree: &Path, name: &Name) -> Option<Hit> {
    if name.kind != NameKind::Path {
        return None;
    }
    let parts: Vec<&str> = name.text.split('/').filter(|p| !p.is_empty()).collect();
    if parts
        .iter()
        .any(|p| matches!(*p, "." | ".." | ".git" | ".interview"))
    {
        return None;
    }
    (0..parts.len()).find_map(|i| {
        let rel = parts[i..].join("/");
        let text = super::repo::read_text(worktree, &rel)?;
        let wanted = name.at.unwrap_or(1) as usize;
        let (line, content) = match text.lines().nth(wanted.saturating_sub(1)) {
            Some(l) => (wanted, l),
            None => (1, text.lines().next().unwrap_or("")),
        };
        (!text.is_empty()).then(|| Hit {
            path: rel,
            line: u32::try_from(line).unwrap_or(1),
            text: one_line(content, 160),
        })
    })
}

/// `no_bell:` for `--no-bell`: how a clap derive field spells a flag.
fn field_spelling(name: &Name) -> Option<String> {
    (name.kind == NameKind::Flag)
        .then(|| format!("{}:", name.text.trim_start_matches('-').replace('-', "_")))
}

/// `pub no_bell: bool,`: a line that declares a field, not a comment or an expression.
fn is_field(line: &str) -> bool {
    let t = line.trim();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    t.split_once(':').is_some_and(|(name, ty)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !ty.starts_with(':')
            && t.ends_with(',')
    })
}

/// Whether one of the three lines above `hit` is a clap attribute with `long`.
fn attribute_above(
    worktree: &Path,
    hit: &Hit,
    files: &mut std::collections::BTreeMap<String, Option<String>>,
) -> bool {
    if files.len() > 50 && !files.contains_key(&hit.path) {
        return false;
    }
    let text = files
        .entry(hit.path.clone())
        .or_insert_with(|| super::repo::read_text(worktree, &hit.path));
    let Some(text) = text else { return false };
    let at = hit.line as usize;
    let lines: Vec<&str> = text
        .lines()
        .skip(at.saturating_sub(4))
        .take(at.min(4) - 1)
        .collect();
    lines.iter().any(|l| {
        let t = l.trim();
        (t.starts_with("#[arg(") || t.starts_with("#[clap(") || t.starts_with("#[structopt("))
            && t.contains("long")
    })
}

/// The line that defines or declares a name, when one looks like it.
fn definition(name: &Name, hits: &[Hit]) -> Option<Hit> {
    let text = &name.text;
    let bare = text.rsplit("::").next().unwrap_or(text);
    let looks = |h: &&Hit| -> bool {
        let t = &h.text;
        match name.kind {
            NameKind::Flag => {
                let bare = text.trim_start_matches('-');
                let comment = ["//", "#", "/*", "*", "--"]
                    .iter()
                    .any(|c| t.starts_with(c));
                !is_doc(&h.path)
                    && !is_test(&h.path)
                    && !comment
                    && (t.contains(&format!("\"{text}\""))
                        || (t.contains("long") && t.contains(&format!("\"{bare}\""))))
            }
            NameKind::Ident => {
                let keyworded = [
                    "fn ",
                    "struct ",
                    "enum ",
                    "trait ",
                    "type ",
                    "mod ",
                    "const ",
                    "static ",
                    "class ",
                    "def ",
                    "func ",
                    "function ",
                    "interface ",
                    "macro_rules! ",
                ]
                .iter()
                .any(|k| {
                    has_word(t, &format!("{k}{bare}"))
                        || t.contains(&format!("{k}{bare}("))
                        || t.contains(&format!("{k}{bare}<"))
                });
                let declared = is_manifest(&h.path)
                    && h.path.ends_with(".toml")
                    && (t.starts_with(&format!("{bare} ="))
                        || t.starts_with(&format!("{bare}."))
                        || t.starts_with(&format!("{} =", bare.replace('_', "-"))));
                (keyworded && !is_doc(&h.path)) || declared
            }
            NameKind::Path | NameKind::Message => false,
        }
    };
    // A library's own manifest or code before examples, benchmarks and tests.
    let mut found: Vec<&Hit> = hits.iter().filter(looks).collect();
    found.sort_by_key(|h| secondary(&h.path));
    found.first().map(|h| (*h).clone())
}

/// What an earlier document of this item (at its default place) recorded: the titles of its
/// open questions, and the topics it holds answers to with the line of each answer.
fn previous(worktree: &Path, id: &str) -> (Vec<String>, Vec<(String, String, u32)>) {
    let rel = crate::document::default_out_path(crate::subject::Kind::Intent, id);
    let Some(text) = super::repo::read_text(worktree, &rel) else {
        return (Vec::new(), Vec::new());
    };
    let mut open = Vec::new();
    let mut answered = Vec::new();
    let mut group = "";
    let mut entry_line = 0;
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(h) = line.strip_prefix("## ") {
            group = if h.trim() == "Open questions" {
                "open"
            } else {
                "other"
            };
        } else if let Some(title) = line.strip_prefix("### ") {
            entry_line = n;
            if group == "open" {
                open.push(title.replace('\\', "").trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("Sources: ") {
            for part in rest.split(", ") {
                if let Some(topic) = part
                    .strip_prefix("answer to `")
                    .and_then(|t| t.strip_suffix('`'))
                {
                    answered.push((topic.to_string(), rel.clone(), entry_line));
                }
            }
        }
    }
    (open, answered)
}

/// The analysis the decision of a turn needs.
pub(super) fn analyse(ctx: &BriefContext, worktree: &Path) -> Analysis {
    let f = facts(ctx);
    let mut r = read(&f, worktree);
    // A replay must give the document its answers give, whatever an earlier run committed.
    if ctx.replayed {
        r.previous_open.clear();
        r.previous_answered.clear();
    }
    let mut findings = questions::findings(&r);
    // Answered in an earlier interview: not asked again (the answer is carried as an entry).
    findings.retain(|x| !r.previous_answered.iter().any(|(t, _, _)| *t == x.topic));
    for x in &mut findings {
        let title = super::document::title_of(x);
        x.carried = r.previous_open.contains(&title);
    }
    let facts = fact_entries(&r);
    let (title, lead) = title_and_lead(&r);
    Analysis {
        findings,
        facts,
        title,
        lead,
        tail: not_checked(&r),
        more_rounds: true,
    }
}

/// The entry title of an answered intent topic.
pub(super) fn topic_name(topic: &str) -> Option<&'static str> {
    Some(match topic {
        "acceptance_criteria" => "Acceptance criteria",
        "scope" => "Scope",
        "error_handling" => "Error handling",
        "users" => "Users",
        "data_format" => "Data and format",
        "goal" => "Goal",
        "vague_tbd" => "What is still to be decided",
        "vague_fast" => "The performance target",
        "vague_etc" => "The complete list",
        "vague_maybe" => "Required or optional",
        "vague_simple" => "What simple means here",
        "vague_quality" => "The quality meant, concretely",
        "vague_some" => "Which ones, and how many",
        _ => return None,
    })
}
