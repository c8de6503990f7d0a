//! What a bug report already answers of the questions every report is asked, read from its
//! structure: the version it ran, when that is HEAD's own (then it reproduces on HEAD as
//! reported), and what should happen, when it compares a broken version with an older one it
//! names (then: what the older one did). Those are not asked; the document says where the item
//! states them.

use super::versions::{Named, head_is, named_versions, reports_head_version};
use super::*;

/// HEAD's own version as the item states it: its line, the version as written and what HEAD
/// is ("tagged v0.6.0", or the manifest's version newer than every tag) — never one the item
/// says worked.
pub(in crate::interviewer::builtin) fn version_at_head(
    r: &Reading,
) -> Option<(u32, String, String)> {
    let head_tag = r.repo.head_tag.as_ref();
    let tagged = named_versions(r)
        .into_iter()
        .find(|(.., tag, verdict)| Some(tag) == head_tag && *verdict != Some(true));
    if let Some((n, said, tag, _)) = tagged {
        return Some((line_of(r, n, &said), said, format!("HEAD is tagged {tag}")));
    }
    // A checkout between releases: the manifest's version, newer than every tag, is HEAD's.
    let between = head_is(r).is_some_and(|h| h.starts_with("version"));
    match reports_head_version(r) {
        Some((n, v, Some(at))) if between => Some((
            n,
            v.clone(),
            format!("HEAD is version {v}, as {at} declares"),
        )),
        _ => None,
    }
}

/// The line that writes `said`: line `n` (where its sentence starts) or the first after it.
fn line_of(r: &Reading, n: u32, said: &str) -> u32 {
    r.item
        .all
        .iter()
        .find(|(l, text, _)| *l >= n && text.contains(said))
        .map_or(n, |(l, ..)| *l)
}

/// The two versions the item compares (the older first) when it says what goes wrong in the
/// newer one: what should happen is what the older one did.
pub(in crate::interviewer::builtin) fn compared_versions(r: &Reading) -> Option<(Named, Named)> {
    let named = named_versions(r);
    super::regression::compared(r, &named).map(|(good, bad)| (good.clone(), bad.clone()))
}

/// The document's lines for what the item answers: a title and its content each.
pub(in crate::interviewer::builtin) fn answered(r: &Reading) -> Vec<(String, String)> {
    if r.class.kind != super::super::kind::ItemKind::Bug {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some((n, said, head)) = version_at_head(r) {
        out.push((
            "Version, stated by the item".to_string(),
            format!(
                "Version: {said}, stated at line {n} of the item; {head}, so the report is of \
                 HEAD's code and whether it reproduces on HEAD is not asked."
            ),
        ));
    }
    if let Some((good, bad)) = compared_versions(r) {
        out.push((
            "Expected behaviour, stated by the item".to_string(),
            format!(
                "Expected: as in {} (line {}), the version the item compares with {} (line {}); \
                 what should happen instead is not asked.",
                good.1,
                line_of(r, good.0, &good.1),
                bad.1,
                line_of(r, bad.0, &bad.1)
            ),
        ));
    }
    out
}
