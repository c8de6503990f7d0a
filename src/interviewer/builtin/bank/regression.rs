//! A regression between two versions the item names: the commits between their tags that
//! changed a file of the code the item is about (`history.rs`), asked as the likely cause —
//! what a maintainer looks at first when the report says which release broke it.

use super::versions::Named;
use super::*;
use crate::interviewer::builtin::history::{Change, changes_between};
use crate::interviewer::builtin::place::secondary;
use crate::interviewer::builtin::repo::version_key;
use crate::interviewer::builtin::text::one_line;

/// Files of the code the item is about, at most this many.
const MAX_FILES: usize = 6;

/// The two versions a bug report compares, the good one first: a broken one (said broken, or
/// named on a template's "affected" line) and an older one said to work — or, where none is,
/// an older one it names without a verdict and not as one more broken version ("both").
pub(super) fn compared<'n>(r: &Reading, named: &'n [Named]) -> Option<(&'n Named, &'n Named)> {
    let line_of = |n: u32| {
        r.item
            .all
            .iter()
            .find(|(l, ..)| *l == n)
            .map(|(_, s, _)| s.to_lowercase())
            .unwrap_or_default()
    };
    let bad = named
        .iter()
        .filter(|x| x.3 == Some(false) || (x.3.is_none() && line_of(x.0).contains("affected")))
        .max_by_key(|x| version_key(&x.2))?;
    let older = |x: &&Named| version_key(&x.2) < version_key(&bad.2);
    let said_good = named.iter().filter(|x| x.3 == Some(true)).filter(older);
    let unsaid = named.iter().filter(older).filter(|x| {
        x.3.is_none() && {
            let sentence = r
                .item
                .sentences
                .iter()
                .find(|(_, s)| s.contains(x.1.as_str()))
                .map(|(_, s)| s.to_lowercase())
                .unwrap_or_default();
            !["both", "either", "all of", "as well"]
                .iter()
                .any(|w| sentence.contains(w))
                && !line_of(x.0).contains("affected")
        }
    });
    let good = said_good
        .max_by_key(|x| version_key(&x.2))
        .or_else(|| unsaid.max_by_key(|x| version_key(&x.2)))?;
    Some((good, bad))
}

/// The files of the code the item is about: what it names, found defined, then the code
/// nearest its words (on their path); never tests, examples or documentation.
fn code_files(r: &Reading) -> Vec<String> {
    let named = found_names(r)
        .into_iter()
        .flat_map(|l| l.definitions.iter().map(|d| d.path.clone()));
    let nearest = r.nearest.iter().take(3).map(|m| m.def.path.clone());
    let mut out: Vec<String> = Vec::new();
    for p in named.chain(nearest) {
        if !is_doc(&p) && !is_test(&p) && !secondary(&p) && !out.contains(&p) {
            out.push(p);
        }
    }
    out.truncate(MAX_FILES);
    out
}

/// "Between v5.2.5 and v5.2.6, Helper/Table.php changed in one commit: 054f5487 "…". Is it the
/// cause?" — or, of several, which one; nothing when none changed those files.
pub(super) fn regression_change(r: &Reading, named: &[Named]) -> Option<Finding> {
    let ((_, _, good, _), (line, _, bad, _)) = compared(r, named)?;
    let files = code_files(r);
    if files.is_empty() {
        return None;
    }
    // Where none of its files changed, their folders (never the root, which is everything):
    // the change may be in what they call beside them.
    let mut changes = changes_between(r.worktree, good, bad, &files)?;
    let mut folders = false;
    if changes.is_empty() {
        let mut dirs: Vec<String> = files
            .iter()
            .filter_map(|f| f.rsplit_once('/').map(|(d, _)| d.to_string()))
            .collect();
        dirs.dedup();
        changes = changes_between(r.worktree, good, bad, &dirs)?;
        folders = true;
    }
    let place = |p: &String| if folders { format!("{p}/") } else { p.clone() };
    let shown = |c: &Change, max: usize| format!("{} \"{}\"", c.id, one_line(&c.subject, max));
    let (text, options) = match changes.as_slice() {
        [] => return None,
        [c] => (
            format!(
                "Between {good} and {bad} (line {line}), {} changed in one commit: {}. Is it the \
                 cause? Recommended: start there, the one change to it.",
                c.paths.iter().map(place).collect::<Vec<_>>().join(", "),
                shown(c, 70)
            ),
            vec![
                (format!("{}: the cause", c.id), slug(&c.id)),
                ("Another change".to_string(), "another".to_string()),
                ("Don't know yet".to_string(), "unknown".to_string()),
            ],
        ),
        several => {
            let mut files: Vec<String> = several
                .iter()
                .flat_map(|c| c.paths.iter().map(place))
                .collect();
            files.sort_unstable();
            files.dedup();
            let ask = |n: usize| {
                let list: Vec<String> = several.iter().take(n).map(|c| shown(c, 30)).collect();
                let more = if several.len() > n { ", …" } else { "" };
                format!(
                    "Between {good} and {bad} (line {line}), {} changed in {} commits: {}{more}. \
                     Which one caused it?",
                    files.join(", "),
                    several.len(),
                    list.join(", ")
                )
            };
            let mut options: Vec<(String, String)> = several
                .iter()
                .take(3)
                .map(|c| (shown(c, 40), slug(&c.id)))
                .collect();
            options.push(("Another change".into(), "another".into()));
            options.push(("Don't know yet".into(), "unknown".into()));
            let text = (1..=3)
                .rev()
                .map(ask)
                .find(|t| t.chars().count() <= crate::protocol::limits::MAX_QUESTION_TEXT_CHARS)
                .unwrap_or_else(|| ask(1));
            (text, options)
        }
    };
    let mut f = Finding::new("regression_change", 8, text)
        .titled(format!("What changed between {good} and {bad}"))
        .choices(options);
    if let [c] = changes.as_slice() {
        f = f.recommend(&slug(&c.id));
    }
    Some(f)
}
