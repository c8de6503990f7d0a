//! The questions of a change of structure: a refactor (behaviour kept, call sites, public API,
//! tests that pin it) and a dependency change (which candidate, its uses, what pulls it in,
//! the minimum Rust version).

use super::feature::flag_questions;
use super::*;

pub(in crate::interviewer::builtin) fn refactor(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    // Used where code calls it: a comment about an option of the same name, a string or the
    // definition itself is no use.
    let mut used: Vec<&Located> = found_names(r)
        .into_iter()
        .filter(|l| called(l).len() >= 2)
        .collect();
    used.sort_by_key(|l| std::cmp::Reverse(called(l).len()));
    // Only tests use what it changes: no behaviour a user sees, nothing for a test to pin.
    let tests_only = used.is_empty()
        && found_names(r)
            .iter()
            .any(|l| l.name.kind == NameKind::Ident && l.count.test_lines >= 2);
    if !tests_only
        && !r.item.mentions(&[
            "no behaviour change",
            "no behavior change",
            "same behaviour",
            "same behavior",
            "no functional change",
            "without changing behaviour",
            "without changing behavior",
            "as today",
            "keeps working",
            "does not change",
            "unchanged",
        ])
    {
        out.push(behaviour_preserved(8));
    }
    if let Some(l) = used.first() {
        out.push(call_sites("call_sites", l, &called(l)));
    } else if let Some(l) = found_names(r)
        .into_iter()
        .filter(|l| l.name.kind == NameKind::Ident && l.count.test_lines >= 2)
        .max_by_key(|l| l.count.test_lines)
    {
        // Used only by tests: those are the call sites.
        let tests = l.in_tests();
        out.push(
            Finding::new(
                "call_sites",
                7,
                format!(
                    "{} is used only in tests: {} in {} ({}). Change them all? Recommended: all, or the old way stays.",
                    l.shown(),
                    counted(l.count.test_lines, "line"),
                    counted(l.count.test_files, "file"),
                    cites(&tests, 3)
                ),
            )
            .titled(format!("Uses of {}", l.shown()))
            .options(&[("All of them", "all"), ("Only some (say which)", "some")])
            .recommend("all"),
        );
    }
    out.extend(public_api(r).or_else(|| overridden(r)));
    out.extend(toolchain_floor(r, tests_only));
    // A renamed or new flag follows the flags there are.
    out.extend(flag_questions(r, false));
    if !tests_only {
        out.push(test_question(
            r,
            "tests_pin_behaviour",
            6,
            "pin the current behaviour before the change",
        ));
    }
    out
}

/// The options of a question whether a signature may change.
const SIGNATURE_OPTIONS: &[(&str, &str)] = &[
    ("No, keep it compatible", "keep_compatible"),
    ("Yes, a breaking change is fine", "breaking"),
    ("Deprecate first, change later", "deprecate"),
];

/// A name the item changes that is public (`pub fn`): may its signature change?
fn public_api(r: &Reading) -> Option<Finding> {
    let (l, def) = found_names(r)
        .into_iter()
        .filter(|l| l.name.kind == NameKind::Ident)
        .find_map(|l| {
            l.definition
                .as_ref()
                .filter(|d| d.text.starts_with("pub ") && !is_test(&d.path))
                .map(|d| (l, d))
        })?;
    Some(
        Finding::new(
            "public_api",
            7,
            format!(
                "{} is public ({}). May its signature change? Recommended: no, callers outside would break.",
                l.shown(),
                def.cite()
            ),
        )
        .titled("Public API")
        .options(SIGNATURE_OPTIONS)
        .recommend("keep_compatible"),
    )
}

/// A method the item changes that several classes define (`banner` in `Thor`, `Thor::Group`
/// and `Thor::Runner`): an overridable hook, so its signature is every override's and that of
/// the code outside that overrides it — may it change?
fn overridden(r: &Reading) -> Option<Finding> {
    let l = found_names(r).into_iter().find(|l| {
        l.name.kind == NameKind::Ident
            && l.definitions.iter().filter(|d| !is_test(&d.path)).count() >= 2
    })?;
    let defs: Vec<&Hit> = l.definitions.iter().filter(|d| !is_test(&d.path)).collect();
    let ask = |shown: usize| {
        format!(
            "{} is defined {} times ({}). Code outside may override or call it: may its \
             signature change? Recommended: no, keep it compatible.",
            l.shown(),
            defs.len(),
            cites(&defs, shown)
        )
    };
    let question = super::super::text::first_fitting([3, 2, 1], ask)?;
    Some(
        Finding::new("public_api", 9, question)
            .titled("Public API")
            .options(SIGNATURE_OPTIONS)
            .recommend("keep_compatible"),
    )
}

/// `1.70.0` → `[1, 70, 0]`: the first version in a text (`rust-version = "1.56"`, `go 1.15`).
fn version_in(text: &str) -> Option<Vec<u64>> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.contains('.') && w.starts_with(|c: char| c.is_ascii_digit()))
        .map(|w| {
            w.split('.')
                .filter(|p| !p.is_empty())
                .map(|p| p.parse().unwrap_or(0))
                .collect()
        })
}

/// The language version the item relies on (`Rust 1.70.0`, `Go 1.16`), when it names one.
fn language_version(r: &Reading, lang: &str) -> Option<String> {
    let lang = lang.to_lowercase();
    r.item.sentences.iter().find_map(|(_, s)| {
        let words: Vec<String> = s
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                    .trim_end_matches('.')
                    .to_lowercase()
            })
            .collect();
        words.iter().enumerate().find_map(|(i, w)| {
            (*w == lang)
                .then(|| {
                    words[i + 1..].iter().take(2).find(|v| {
                        v.contains('.')
                            && v.split('.')
                                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
                    })
                })?
                .cloned()
        })
    })
}

/// A change that moves to the standard library's newer API, or to a newer language feature,
/// against the oldest toolchain the project declares.
fn toolchain_floor(r: &Reading, tests_only: bool) -> Option<Finding> {
    let near: Vec<&str> = r
        .names
        .iter()
        .filter(|l| l.name.kind == NameKind::Path)
        .map(|l| l.name.text.as_str())
        .collect();
    let (declared, lang) = super::super::repo::toolchain(r.worktree, &near)?;
    let relies = language_version(r, lang);
    let newer_api = r.item.mentions(&[
        "std",
        "standard library",
        "stdlib",
        "stable",
        "stabilized",
        "deprecated",
        "since",
    ]);
    if relies.is_none() && !newer_api {
        return None;
    }
    // Relying on a newer toolchain than the declared one decides whether the change can be
    // made at all: the other questions wait for the answer. Tests are built by the project's
    // own CI, not by its users on the oldest toolchain.
    let blocked = !tests_only
        && relies
            .as_deref()
            .and_then(version_in)
            .zip(version_in(&declared.text))
            .is_some_and(|(needed, floor)| needed > floor);
    let needs = relies.map_or(String::new(), |v| {
        format!(" The item relies on {lang} {v}.")
    });
    let f = Finding::new(
            "msrv",
            8,
            format!("{} declares {}.{needs} Must the change keep building with the declared minimum? Recommended: yes, raising it is a decision of its own.", declared.cite(), declared.text.replace('"', "'")),
        )
        .titled(format!("Minimum {lang} version"))
        .options(&[("Yes, keep the minimum", "keep_msrv"), ("Raising it is fine", "raise_msrv")])
        .recommend("keep_msrv");
    Some(if blocked { f.alone() } else { f })
}

fn behaviour_preserved(severity: u8) -> Finding {
    Finding::new(
        "behaviour_preserved",
        severity,
        "Must behaviour stay exactly as it is (output, errors, exit codes)? Recommended: yes, for a change of structure.",
    )
    .titled("Behaviour preserved")
    .options(&[("Yes, identical", "identical"), ("Small visible changes are fine (say which)", "small_changes")])
    .recommend("identical")
}

/// The source lines that call what `l` names (its definitions, comments and strings left out).
fn called(l: &Located) -> Vec<&Hit> {
    crate::interviewer::builtin::calls::uses(&l.name.text, &l.in_code()).0
}

/// The lines that use `l` (`uses`: its calls, or a package's lines of code), counted.
fn call_sites(topic: &str, l: &Located, uses: &[&Hit]) -> Finding {
    let files: std::collections::BTreeSet<&str> = uses.iter().map(|h| h.path.as_str()).collect();
    let kept = l.in_code().len();
    let calls = topic == "call_sites"
        && crate::interviewer::builtin::calls::uses(&l.name.text, &l.in_code()).1;
    let verb = if calls { "called" } else { "used" };
    let ask = |n: usize| {
        // The search counted more lines than it kept: the count is of every file, and what
        // was read of them is said as such.
        let counts = if l.count.code_lines > kept {
            format!(
                "is named on {} in {} ({}); {} of the first {kept} are {}",
                counted(l.count.code_lines, "line"),
                counted(l.count.code_files, "file"),
                cites(uses, n),
                uses.len(),
                if calls { "calls" } else { "code" }
            )
        } else {
            format!(
                "is {verb} on {} in {} ({})",
                counted(uses.len(), "line"),
                counted(files.len(), "file"),
                cites(uses, n)
            )
        };
        format!(
            "{} {counts}. Are all in scope? Recommended: all, or the old and new ways live side \
             by side.",
            l.shown(),
        )
    };
    // Fewer places cited rather than the question cut.
    let question = super::super::text::first_fitting((1..=3).rev(), &ask).unwrap_or_else(|| ask(1));
    Finding::new(topic, 7, question)
        .titled(format!("Uses of {}", l.shown()))
        .options(&[("All of them", "all"), ("Only some (say which)", "some")])
        .recommend("all")
}

/// The packages a dependency change names as candidates: package-like names (`nu-ansi-term`,
/// `yansi`: lower case, no type or log level) other than the one it replaces, that the
/// manifests or lockfiles already have or that the item lists itself (a list item or a
/// registry link) — in the item's order, the ones already locked never cut by the cap.
pub(in crate::interviewer::builtin) fn candidates<'r>(r: &'r Reading) -> Vec<&'r Located> {
    if r.class.kind != super::super::kind::ItemKind::Dependency {
        return Vec::new();
    }
    let old = replaced(r).map(|l| l.name.text.clone());
    let all: Vec<&Located> = r
        .names
        .iter()
        .filter(|l| l.name.kind == NameKind::Ident && package_like(&l.name.text))
        .filter(|l| Some(&l.name.text) != old.as_ref())
        // A package of this workspace is where the change happens, not a candidate.
        .filter(|l| {
            !l.hits.iter().any(|h| {
                h.path.ends_with("Cargo.toml") && h.text.trim_start().starts_with("name =")
            })
        })
        .filter(|l| locked(r, l) || listed_by_item(r, l))
        .collect();
    let keep: Vec<&str> = all
        .iter()
        .filter(|l| locked(r, l))
        .chain(all.iter().filter(|l| !locked(r, l)))
        .take(8)
        .map(|l| l.name.text.as_str())
        .collect();
    all.into_iter()
        .filter(|l| keep.contains(&l.name.text.as_str()))
        .collect()
}

/// A package's name: lower case letters, digits, `-`, `_` (a type, a constant or a prose word
/// in capitals is none).
fn package_like(name: &str) -> bool {
    name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'))
}

/// Whether the manifests or lockfiles have `l` as a package.
pub(in crate::interviewer::builtin) fn locked(r: &Reading, l: &Located) -> bool {
    r.repo.locked.iter().any(|p| same_package(p, &l.name.text))
}

/// Whether the item lists `l` as a package of its own: a registry link, or a list item that
/// starts with it.
fn listed_by_item(r: &Reading, l: &Located) -> bool {
    let name = l.name.text.as_str();
    let linked = r.item.lines.iter().any(|(_, line)| {
        [
            "crates.io/crates/",
            "docs.rs/",
            "lib.rs/crates/",
            "npmjs.com/package/",
            "pypi.org/project/",
        ]
        .iter()
        .any(|m| line.contains(&format!("{m}{name}")))
    });
    linked
        || r.item.list_items.iter().any(|(_, line)| {
            let t = super::super::item::list_text(line).unwrap_or(line);
            let first = t
                .trim_start_matches(['[', '`', '*', '_'])
                .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
                .next()
                .unwrap_or("");
            first == name
        })
}

/// The dependency being replaced: the first name declared in a manifest, else the first name
/// the title has.
fn replaced<'r>(r: &'r Reading) -> Option<&'r Located> {
    r.names
        .iter()
        .find(|l| {
            l.name.kind == NameKind::Ident
                && l.definition
                    .as_ref()
                    .is_some_and(|d| d.path.ends_with("Cargo.toml"))
        })
        .or_else(|| {
            let title = r.facts.title.to_lowercase();
            r.names.iter().find(|l| {
                l.name.kind == NameKind::Ident && title.contains(&l.name.text.to_lowercase())
            })
        })
}

/// Which package replaces the old one (`shown_old`): the candidates the item names, the one
/// a lockfile or manifest already has recommended. Asked even when the item suggests one: a
/// suggestion ("like `yansi`") is not a decision.
fn replacement(r: &Reading, shown_old: &str) -> Finding {
    let candidates = candidates(r);
    let in_lock = |l: &Located| locked(r, l);
    // Where it is already: the lockfile that holds it, or the manifests.
    let place = |l: &Located| {
        let lock = l.hits.iter().find(|h| {
            h.path.ends_with(".lock") && h.text.contains(&format!("\"{}\"", l.name.text))
        });
        lock.map_or("the manifests".to_string(), |h| h.path.clone())
    };
    let locked = candidates.iter().find(|l| in_lock(l));
    let mut options: Vec<(String, String)> = candidates
        .iter()
        .map(|l| {
            (
                format!(
                    "{}{}",
                    l.shown(),
                    if in_lock(l) {
                        format!(" (already in {})", place(l))
                    } else {
                        String::new()
                    }
                ),
                slug(&l.name.text),
            )
        })
        .collect();
    if candidates.len() == 1 {
        options.push(("Another crate (say which)".into(), "another".into()));
    }
    if !options.is_empty() {
        options.push((format!("Keep {shown_old} for now"), "keep".into()));
    }
    let why = match locked {
        Some(l) => format!(" Recommended: {}, already in {}.", l.shown(), place(l)),
        None => String::new(),
    };
    let question = if candidates.is_empty() {
        format!("Which crate should replace {shown_old}? The item names none.")
    } else if candidates.len() == 1 {
        format!(
            "The item suggests {}. Replace {shown_old} with it, or with another crate?{why}",
            candidates[0].shown()
        )
    } else {
        format!(
            "Which crate replaces {shown_old}? The item names {}.{why}",
            counted(candidates.len(), "candidate")
        )
    };
    let mut f = Finding::new("replacement", 9, question)
        .titled("The replacement")
        .choices(options);
    if let Some(l) = locked {
        f = f.recommend(&slug(&l.name.text));
    }
    f
}

/// Another package pulls the old one (`old`, used in the code) in too: the build keeps it until
/// that one moves, and the replacement it picks is the one that leaves a single crate for the
/// job.
fn shared_dependency(r: &Reading, old: &Located) -> Option<Finding> {
    if old.in_code().is_empty() {
        return None;
    }
    let project = r.repo.project.clone().unwrap_or_default();
    let mut parents = lock_parents(r.worktree, &old.name.text);
    if parents.is_empty() {
        parents = lock_parents(r.worktree, &old.name.text.replace('_', "-"));
    }
    parents.retain(|(p, _)| !same_package(p, &project));
    let (first, hit) = parents.first()?;
    Some(
        Finding::new(
            "shared_dependency",
            8,
            format!(
                "`{first}` pulls in {} too ({}): it stays in the build until `{first}` moves. \
                 Pick what `{first}` moves to? Recommended: yes, one crate for the job.",
                old.shown(),
                hit.cite()
            ),
        )
        .titled(format!("What else uses {}", old.shown()))
        .choices(vec![
            (format!("What `{first}` moves to"), "follow_parent".into()),
            ("Our own choice".into(), "own_choice".into()),
        ])
        .recommend("follow_parent"),
    )
}

pub(in crate::interviewer::builtin) fn dependency(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    let old = replaced(r);
    let shown_old = old.map_or("the dependency".to_string(), |l| l.shown());
    out.push(replacement(r, &shown_old));
    if let Some(old) = old {
        let code = crate::interviewer::builtin::calls::in_code(&old.in_code());
        if !code.is_empty() {
            out.push(call_sites("dependency_uses", old, &code));
        } else {
            let crate_name = old.name.text.replace('_', "-");
            let mut parents = lock_parents(r.worktree, &old.name.text);
            if parents.is_empty() {
                parents = lock_parents(r.worktree, &crate_name);
            }
            if let Some((first, hit)) = parents.first() {
                let names: Vec<String> = parents
                    .iter()
                    .take(3)
                    .map(|(p, _)| format!("`{p}`"))
                    .collect();
                out.push(
                    Finding::new(
                        "transitive",
                        8,
                        format!("{shown_old} is not used directly; {} {} it in ({}). Drop it by updating {}?", names.join(", "), if names.len() == 1 { "pulls" } else { "pull" }, hit.cite(), if names.len() == 1 { "it" } else { "them" }),
                    )
                    .titled(format!("What pulls in {shown_old}"))
                    .choices(vec![
                        (format!("Update or replace `{first}`"), "update_parents".into()),
                        ("Wait for upstream releases".into(), "wait_upstream".into()),
                        ("Only our direct use matters".into(), "direct_only".into()),
                    ]),
                );
            }
        }
        if let Some(def) = old
            .hits
            .iter()
            .find(|h| !is_test(&h.path) && h.text.starts_with("pub ") && h.path.ends_with(".rs"))
        {
            out.push(
                Finding::new("public_api", 6, format!("{shown_old} appears in a public item ({}). May that signature change? Recommended: no.", def.cite()))
                    .titled("Public API")
                    .options(&[("No, keep it compatible", "keep_compatible"), ("Yes, a breaking change is fine", "breaking")])
                    .recommend("keep_compatible"),
            );
        }
    }
    out.extend(old.and_then(|l| shared_dependency(r, l)));
    // The minimum Rust version of the manifest that declares the dependency, else the root's.
    let declared = old
        .and_then(|l| l.definition.as_ref())
        .filter(|d| d.path.ends_with("Cargo.toml"))
        .and_then(|d| super::super::repo::rust_version(r.worktree, &d.path));
    if let Some(msrv) = declared.as_ref().or(r.repo.rust_version.as_ref()) {
        out.push(
            Finding::new(
                "msrv",
                5,
                format!("{} sets {}. Must the replacement build with it? Recommended: yes, raising it breaks older toolchains.", msrv.cite(), msrv.text.replace('"', "'")),
            )
            .titled("Minimum Rust version")
            .options(&[("Yes, keep the minimum", "keep_msrv"), ("Raising it is fine", "raise_msrv")])
            .recommend("keep_msrv"),
        );
    }
    if out.is_empty() {
        out.push(behaviour_preserved(6));
    }
    out
}
