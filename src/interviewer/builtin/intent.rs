//! The intent half of the built-in interviewer: it reads the work item (what kind it is, what
//! it names, what it leaves open), finds the names in the repository, and turns that into
//! grounded questions and `confirmed` entries citing the code (see `docs/interviews.md`).
//!
//! The item's own text is never evidence: it is quoted whole in the document as what the item
//! states, and nothing found in it or in earlier interview documents is cited as confirmed.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::brief::BriefContext;
use crate::subject::IntentFacts;

use super::Finding;
use super::classify::classify;
use super::defs::{
    BARE_SHORT, Flag, Sources, bare_short_field, declares_flag, field_declares, in_test_code,
    may_define,
};
use super::intent_entries::{fact_entries, not_checked, title_and_lead};
use super::item::{Item, has_word};
use super::kind::{self, Classification, ItemKind};
use super::names::{Name, NameKind, extract};
use super::nearest::{Def, IndexFold, Indexing};
use super::place::{is_doc, is_manifest, secondary};
use super::reading::{BENCHMARKS, FLAG_CONVENTIONS, Located, Reading, SHORT_DECLS, same_package};
use super::scan;
use super::search::{Found, Group, Hit, Search, SearchFold, Searching};
use super::{Analysis, questions};

/// The group of a clap attribute's bare `short` ([`BARE_SHORT`]).
const BARE_SHORT_KEY: &str = "bare short";

pub(super) fn facts(ctx: &BriefContext) -> IntentFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| IntentFacts {
        id: ctx.subject.id.clone(),
        title: ctx.subject.title.clone(),
        ..IntentFacts::default()
    })
}

/// The spellings searched for one name: a crate `a-b` is `a_b` in code; a flag as written
/// (its declarations' spellings are searched apart: [`decl_key`]).
fn spellings(name: &Name) -> Vec<String> {
    let t = &name.text;
    match name.kind {
        NameKind::Flag => vec![Flag::parse(t).map_or_else(|| t.clone(), Flag::written)],
        NameKind::Ident if t.contains('-') => vec![t.clone(), t.replace('-', "_")],
        NameKind::Ident if t.contains('_') && !t.contains("::") => {
            vec![t.clone(), t.replace('_', "-")]
        }
        _ => vec![t.clone()],
    }
}

/// The key of a flag's declaration group (`"format"`, `short = 'X'`), searched on its own.
fn decl_key(name: &Name) -> Option<String> {
    (name.kind == NameKind::Flag)
        .then(|| super::defs::decl_key(&name.text))
        .flatten()
}

/// The key of a name's clap-field group (`format:` for `--format`), searched on its own.
fn field_key(name: &Name) -> Option<String> {
    match Flag::parse(&name.text)? {
        Flag::Long(l) => Some(format!("{}:", l.replace('-', "_"))),
        Flag::Short(_) => None,
    }
}

/// The item's names with the message of each exception its code lines show in a form no
/// `error:` opens (`trace::thrown`): that message, for the line's other reading of one.
fn with_thrown(mut names: Vec<Name>, item: &Item) -> Vec<Name> {
    for (n, line, code) in &item.all {
        let Some(text) = super::trace::thrown(line, *code) else {
            continue;
        };
        names.retain(|x| x.kind != NameKind::Message || x.line != *n);
        if !names.iter().any(|x| x.text == text) {
            names.push(Name {
                text,
                kind: NameKind::Message,
                line: *n,
                marked: true,
                at: None,
                within: None,
            });
        }
    }
    names
}

/// Read the item and the repository once: the whole basis of the questions and the entries.
pub(super) fn read<'a>(f: &'a IntentFacts, worktree: &'a Path) -> Reading<'a> {
    let item = Item::new(&f.text);
    let class = classify(&f.title, &item);
    let mut repo = super::repo::read(worktree);
    repo.version = super::manifest::version(worktree);
    // The project's own name is everywhere (its licence, its manifest): no evidence of anything.
    let programs = super::repo::programs(worktree, repo.project.as_deref());
    let names: Vec<Name> = extract(&item.all, &programs)
        .into_iter()
        .filter(|n| {
            !repo
                .project
                .as_deref()
                .is_some_and(|p| same_package(p, &n.text))
        })
        .collect();
    let names = with_thrown(names, &item);
    // A name qualified by a dependency (`yansi::Color`) is that dependency's, not this
    // project's type of the same name.
    let external = |n: &Name| -> Option<String> {
        n.within.clone().filter(|w| {
            !matches!(w.as_str(), "crate" | "self" | "super")
                && !repo.project.as_deref().is_some_and(|p| same_package(p, w))
                && repo.locked.iter().any(|p| same_package(p, w))
        })
    };
    let mut groups: Vec<Group> = names
        .iter()
        .map(|n| Group {
            key: n.text.clone(),
            spellings: spellings(n),
            within: external(n),
        })
        .collect();
    groups.extend(names.iter().filter_map(field_key).map(|k| Group::one(&k)));
    groups.extend(names.iter().filter_map(|n| {
        Some(Group {
            key: decl_key(n)?,
            spellings: Flag::parse(&n.text)?.declared(),
            within: None,
        })
    }));
    groups.extend(FLAG_CONVENTIONS.iter().map(|s| Group::one(s)));
    groups.extend(BENCHMARKS.iter().map(|s| Group::one(s)));
    groups.extend(SHORT_DECLS.iter().map(|s| Group::one(s)));
    groups.push(Group {
        key: BARE_SHORT_KEY.into(),
        spellings: BARE_SHORT.iter().map(|s| s.to_string()).collect(),
        within: None,
    });
    groups.extend(
        names
            .iter()
            .filter(|n| n.kind == NameKind::Message)
            .flat_map(|n| super::reading::fixed_parts(&n.text))
            .map(|k| Group::one(&k)),
    );
    // Each message as the reporter may have retyped it (`retyped`).
    groups.extend(
        names
            .iter()
            .filter(|n| n.kind == NameKind::Message)
            .map(|n| Group {
                key: super::retyped::key(&n.text),
                spellings: vec![n.text.clone()],
                within: None,
            }),
    );
    // The code a runtime's error names (`args.push(` of "args.push is not a function").
    groups.extend(names.iter().filter_map(|n| {
        let key = (n.kind == NameKind::Message).then(|| super::raised::key(&n.text));
        key.flatten().map(|(k, _)| Group::one(&k))
    }));
    // How a doc comment says a function throws an exception the item shows.
    groups.extend(super::bank::throws_groups(&item));
    groups.extend(item.quotes().iter().map(|(_, q)| Group::one(q)));
    groups.extend(item.code_quotes().iter().map(|(_, q)| Group::one(q)));
    let skip: Vec<String> = f.path.iter().cloned().collect();
    let (found, defs) = read_worktree(worktree, &groups, &skip);
    let mut sources = Sources::default();
    let located: Vec<Located> = names
        .into_iter()
        .filter_map(|name| -> Option<Located> {
            let mut count = found.get(&name.text).cloned().unwrap_or_default();
            let mut hits = count.hits.clone();
            let mut definitions: Vec<Hit> = Vec::new();
            if let (NameKind::Flag, Some(flag)) = (name.kind, Flag::parse(&name.text)) {
                // A clap field `no_bell: bool` under `#[arg(long …)]` defines `--no-bell`.
                if let Some(fields) = field_key(&name).and_then(|k| found.get(&k)) {
                    for h in fields.hits.iter().filter(|h| h.path.ends_with(".rs")) {
                        if definitions.len() >= 10 || !may_define(h) {
                            continue;
                        }
                        if let Some(lines) = sources.lines(worktree, &h.path)
                            && field_declares(lines, h, flag)
                            && !in_test_code(&h.path, lines, h.line)
                        {
                            definitions.push(h.clone());
                        }
                    }
                }
                // `#[arg(short, long)]` above `exclude: …` declares `-e`.
                if matches!(flag, Flag::Short(_))
                    && let Some(bare) = found.get(BARE_SHORT_KEY)
                {
                    for h in bare
                        .hits
                        .iter()
                        .filter(|h| h.path.ends_with(".rs") && may_define(h))
                    {
                        if let Some(lines) = sources.lines(worktree, &h.path)
                            && let Some(field) = bare_short_field(lines, h, flag)
                            && !in_test_code(&h.path, lines, field.line)
                            && definitions.len() < 10
                        {
                            definitions.push(field);
                        }
                    }
                }
                let declared = decl_key(&name)
                    .and_then(|k| found.get(&k))
                    .map(|f| f.hits.clone())
                    .unwrap_or_default();
                let written = hits.len();
                for h in hits.iter().chain(&declared).filter(|h| may_define(h)) {
                    if definitions.len() >= 10 {
                        break;
                    }
                    if let Some(lines) = sources.lines(worktree, &h.path)
                        && declares_flag(lines, h, flag)
                        && !in_test_code(&h.path, lines, h.line)
                    {
                        definitions.push(h.clone());
                    }
                }
                // `-e` is in every `set -e`: a short flag counts where it is declared and
                // where the documentation names it, nowhere else.
                if matches!(flag, Flag::Short(_)) {
                    hits.retain(|h| {
                        is_doc(&h.path) && !h.path.to_lowercase().contains("changelog")
                    });
                    hits.extend(definitions.iter().cloned());
                    // Written somewhere, declared and documented nowhere: nothing to claim.
                    if hits.is_empty() && written > 0 {
                        return None;
                    }
                    count = Found::of_hits(&hits);
                }
                // The count stays that of the lines that write the flag (`--format`): a
                // declaration's own spelling is cited as the definition, not counted.
                hits.extend(definitions.iter().cloned());
            } else if external(&name).is_none() {
                definitions.extend(
                    hits.iter()
                        .filter(|h| looks_defined(&name, h) && may_define(h))
                        .filter(|h| {
                            sources
                                .lines(worktree, &h.path)
                                .is_none_or(|lines| !in_test_code(&h.path, lines, h.line))
                        })
                        .take(10)
                        .cloned(),
                );
            }
            hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            hits.dedup();
            // A path a trace names is the file itself, at the line it points at.
            if let Some(file) = super::repo::resolve_path(worktree, &name, &found.paths) {
                definitions.insert(0, file.clone());
                hits.insert(0, file);
            }
            definitions.sort_by(|a, b| {
                (secondary(&a.path), &a.path, a.line).cmp(&(secondary(&b.path), &b.path, b.line))
            });
            definitions.dedup();
            Some(Located {
                name,
                hits,
                count,
                definition: definitions.first().cloned(),
                definitions,
            })
        })
        // Found only in a licence, a packaging or CI script: no evidence either way, and
        // nothing to say about it (it is neither confirmed nor missing). A message found in a
        // bundle of messages (`Messages.properties`) is where the program prints it.
        .filter(|l: &Located| {
            !l.found()
                || l.definition.is_some()
                || l.name.kind == NameKind::Message
                || l.count.code_lines + l.count.test_lines + l.count.doc_lines > 0
                || l.hits.iter().any(|h| is_manifest(&h.path))
        })
        .collect();
    let located = members_found(located, &defs, worktree, &mut sources);
    let names_package = located
        .iter()
        .any(|l| repo.locked.iter().any(|p| same_package(p, &l.name.text)));
    let class = super::classify::without_package(class, names_package, &item);
    let named: Vec<&str> = located.iter().map(|l| l.name.text.as_str()).collect();
    let setup = super::setup::read(&defs, repo.project.as_deref(), &item);
    let raised = raised(&located, &found);
    let starts = super::on_path::starts(&defs);
    // The body's question for help, else the title's (line 0), else the sentence that
    // questions what happens now in an item that wishes for nothing new.
    let questioned = || {
        super::outcome::wishes(&item)
            .is_empty()
            .then(|| super::shape::questioned(&item))
            .flatten()
    };
    let support = super::shape::support_question(&item)
        .or_else(|| super::shape::title_support(&f.title).map(|s| (0, s)))
        .or_else(questioned)
        .map(|(n, s)| (n, s.to_string()));
    let existing = super::existing::find(
        &defs, &item, &f.title, class.kind, &named, &programs, worktree,
    );
    // A usage question with no option found: the documented section its words name.
    let existing = existing.or_else(|| {
        let (line, asked) = support.as_ref()?;
        (class.kind == ItemKind::Docs)
            .then(|| super::usage_section::find(&defs, &f.title, asked, *line))
            .flatten()
    });
    let mut doc_files: Vec<String> = defs
        .iter()
        .filter(|d| d.kind == super::nearest::DefKind::Heading && is_doc(&d.path))
        .map(|d| d.path.clone())
        .collect();
    doc_files.dedup();
    // What the item's code calls and its own guess at the cause name, quoted where defined.
    let seen = super::nearest::seen(&defs);
    let mut cite = |(i, line, said): (usize, u32, String)| {
        let def: Def = defs[i].clone();
        let at = usize::try_from(def.line).ok()?.checked_sub(1)?;
        let quote = sources
            .lines(worktree, &def.path)?
            .get(at)?
            .trim()
            .to_string();
        Some(super::reading::Cited {
            def,
            line,
            said,
            quote,
        })
    };
    let called = super::pointed::called(&seen, &item.all).and_then(&mut cite);
    let suspected = super::pointed::suspected(&seen, &item.sentences)
        .or_else(|| super::guess::guessed(&defs, &item.sentences))
        .and_then(&mut cite);
    let (near, nearest_tied) = super::standing::standing_out(super::nearest::about(
        defs,
        f,
        &item,
        &named,
        repo.project.as_deref(),
    ));
    // The lines that name what the item names: the nearest code must be on their path.
    let places: Vec<&Hit> = located.iter().flat_map(|l| &l.hits).collect();
    let (nearest, nearest_off_path) =
        super::on_path::keep(near, &starts, &places, worktree, &mut sources);
    Reading {
        facts: f,
        item,
        class,
        support,
        nearest,
        nearest_off_path,
        nearest_tied,
        called,
        suspected,
        doc_files,
        existing,
        setup,
        raised,
        names: located,
        search: found,
        repo,
        worktree,
    }
}

/// Where the code each runtime error the item quotes names is (messages not found as written).
fn raised(located: &[Located], found: &Search) -> Vec<super::raised::Raised> {
    let messages: Vec<&str> = located
        .iter()
        .filter(|l| l.name.kind == NameKind::Message && !l.found())
        .map(|l| l.name.text.as_str())
        .collect();
    super::raised::find(&messages, found)
}

/// The worktree read once for both: the exact search for what the item names, and the index
/// of what the repository defines (each stops on its own bounds).
/// A member the item names with its type (`Table.render()`) that no line spells so is found
/// where the type defines it (`render` in `Table`), never "nowhere": its definition is its one
/// line, and the count of lines spelling it stays 0.
fn members_found(
    mut located: Vec<Located>,
    defs: &[Def],
    worktree: &Path,
    sources: &mut Sources,
) -> Vec<Located> {
    for l in located.iter_mut().filter(|l| !l.found()) {
        let Some(d) = super::nearest::member(defs, &l.name.text) else {
            continue;
        };
        let at = usize::try_from(d.line).unwrap_or(0).saturating_sub(1);
        let Some(text) = sources.lines(worktree, &d.path).and_then(|ls| ls.get(at)) else {
            continue;
        };
        let hit = Hit {
            path: d.path.clone(),
            line: d.line,
            text: super::text::one_line(text, 160),
        };
        l.hits = vec![hit.clone()];
        l.definition = Some(hit.clone());
        l.definitions = vec![hit];
    }
    located
}

fn read_worktree(worktree: &Path, groups: &[Group], skip: &[String]) -> (Search, Vec<Def>) {
    let searching = Searching::new(groups, skip);
    let indexing = Indexing::new(skip);
    let (mut search, mut index) = (SearchFold::default(), IndexFold::default());
    let (mut searched, mut indexed) = (searching.is_none(), indexing.is_none());
    // Once the search has read enough, the files after are read for the index alone.
    let search_done = AtomicBool::new(searched);
    scan::in_walk_order(
        &scan::list(worktree),
        |file, bytes| {
            let searching = searching
                .as_ref()
                .filter(|_| !search_done.load(Ordering::Relaxed));
            (
                searching.and_then(|s| s.read(file, bytes)),
                indexing.as_ref().and_then(|i| i.read(file, bytes)),
            )
        },
        |file, (hits, defs)| {
            if let Some(s) = searching.as_ref().filter(|_| !searched) {
                searched = !search.take(s, file, hits);
                search_done.store(searched, Ordering::Relaxed);
            }
            if !indexed {
                indexed = !index.take(defs);
            }
            !(searched && indexed)
        },
    );
    (search.result, index.defs)
}

/// Whether the line of `h` defines or declares the identifier `name` (`fn`, `struct`, `def`,
/// a manifest's dependency line …).
fn looks_defined(name: &Name, h: &Hit) -> bool {
    if name.kind != NameKind::Ident {
        return false;
    }
    let text = &name.text;
    let bare = text.rsplit("::").next().unwrap_or(text);
    let t = &h.text;
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
        "def self.",
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

/// The analysis the decision of a turn needs.
pub(super) fn analyse(ctx: &BriefContext, worktree: &Path) -> Analysis {
    let f = facts(ctx);
    // No earlier document is read: the document is a function of the item, the repository
    // and the answers, at a terminal as in a replay (the session carries earlier answers).
    let mut r = read(&f, worktree);
    // The kind, when the person was asked it: their answer decides the questions.
    let answered_kind = ctx
        .rounds
        .iter()
        .flat_map(|round| &round.answers)
        .filter(|a| a.question_id == kind::TOPIC && !a.skipped)
        .find_map(|a| ItemKind::from_value(a.answer_text.trim()));
    let kind_question = match (answered_kind, &r.class.runner_up) {
        (Some(kind), _) => {
            r.class = Classification {
                kind,
                cue: "the person said so".into(),
                runner_up: None,
                usage: false,
            };
            None
        }
        (None, Some(_)) => Some(kind::question(&r.class)),
        (None, None) => None,
    };
    let mut findings: Vec<Finding> = kind_question.into_iter().collect();
    findings.extend(questions::findings(&r));
    // "Some can follow later" asks which: the next round names the listed lines.
    let later =
        ctx.rounds.iter().flat_map(|round| &round.answers).any(|a| {
            a.question_id == "scope" && !a.skipped && a.answer_text.trim() == "some_later"
        });
    if let (true, Some(first), Some(last)) =
        (later, r.item.list_items.first(), r.item.list_items.last())
    {
        findings.push(
            Finding::new(
                "scope_later",
                6,
                format!(
                    "Some of the listed things (lines {}–{}) can follow later: which are in this \
                     change, and which follow?",
                    first.0, last.0
                ),
            )
            .titled("What follows later"),
        );
    }
    let (facts, tally) = fact_entries(&r);
    let (title, lead) = title_and_lead(&r, tally);
    Analysis {
        findings,
        facts,
        title,
        lead,
        tail: if r.nearest.is_empty() && r.nearest_tied {
            format!(
                "{} Several things the repository defines share the item's words about equally, \
                 none standing out: no nearest code is given.",
                not_checked(&r)
            )
        } else if r.nearest.is_empty() && r.nearest_off_path > 0 {
            format!(
                "{} What the repository defines shares words with the item but is not where the \
                 code it names is handled: no nearest code is given.",
                not_checked(&r)
            )
        } else if r.nearest.is_empty() {
            format!(
                "{} Nothing the repository defines (a function, type, flag, variable or \
                 heading) matched the item's words.",
                not_checked(&r)
            )
        } else {
            not_checked(&r)
        },
        more_rounds: true,
    }
}
