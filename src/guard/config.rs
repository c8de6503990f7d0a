//! Git config files read as data (no includes followed, nothing executed): their keys, for
//! reporting a config change by key and for finding the effective hooks directory.

use std::collections::{BTreeMap, BTreeSet};

use super::path::escape_bytes;

/// `section[.subsection].name` (section and name lower-cased, as git compares them) → values in
/// file order; an implicit boolean (`[core] bare`) has the value `None`.
pub(super) type Keys = BTreeMap<String, Vec<Option<Vec<u8>>>>;

/// Parse config text; `None` when it is not valid git config.
pub(super) fn keys(bytes: &[u8]) -> Option<Keys> {
    let file = gix::config::File::from_bytes_no_includes(
        bytes,
        gix::config::file::Metadata::api(),
        gix::config::file::init::Options::default(),
    )
    .ok()?;
    let mut out = Keys::new();
    for section in file.sections() {
        let header = section.header();
        let mut prefix = String::from_utf8_lossy(header.name()).to_ascii_lowercase();
        if let Some(sub) = header.subsection_name() {
            prefix.push('.');
            prefix.push_str(&escape_bytes(sub));
        }
        let mut seen = BTreeSet::new();
        for name in section.body().value_names() {
            let name = name.to_ascii_lowercase();
            if !seen.insert(name.clone()) {
                continue;
            }
            let values = section.body().values(&name);
            let slot = out.entry(format!("{prefix}.{name}")).or_default();
            if values.is_empty() {
                slot.push(None);
            } else {
                slot.extend(values.into_iter().map(|v| Some(v.to_vec())));
            }
        }
    }
    Some(out)
}

/// The last value of `key` (lower-case `section.name`), as git's "last one wins".
pub(super) fn last_value(keys: &Keys, key: &str) -> Option<Vec<u8>> {
    keys.get(key)?.iter().rev().find_map(|v| v.clone())
}

/// Every value of `key` across the file.
pub(super) fn all_values<'a>(keys: &'a Keys, key: &str) -> impl Iterator<Item = &'a [u8]> + 'a {
    keys.get(key)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_deref())
}

fn show(v: &Option<Vec<u8>>) -> String {
    match v {
        Some(bytes) => format!("\"{}\"", escape_bytes(bytes)),
        None => "(set)".to_string(),
    }
}

/// One changed key between two versions of a config file: (op, key, detail).
pub(super) fn diff(before: &Keys, after: &Keys) -> Vec<(char, String, String)> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in names {
        let old = before.get(key).map(Vec::as_slice).unwrap_or(&[]);
        let new = after.get(key).map(Vec::as_slice).unwrap_or(&[]);
        if old == new {
            continue;
        }
        let join = |vals: &[Option<Vec<u8>>]| vals.iter().map(show).collect::<Vec<_>>().join(", ");
        match (old.len(), new.len()) {
            (0, _) => out.push(('+', key.clone(), format!("= {}", join(new)))),
            (_, 0) => out.push(('-', key.clone(), format!("was {}", join(old)))),
            _ => out.push(('~', key.clone(), format!("{} → {}", join(old), join(new)))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_lower_cased_with_subsections_kept() {
        let k = keys(b"[Core]\n\tHooksPath = /x\n[filter \"Lfs\"]\n\tclean = run\n").unwrap();
        assert_eq!(last_value(&k, "core.hookspath"), Some(b"/x".to_vec()));
        assert!(k.contains_key("filter.Lfs.clean"));
    }

    #[test]
    fn an_added_key_is_reported_with_its_value() {
        let a = keys(b"[core]\n\tbare = false\n").unwrap();
        let b = keys(b"[core]\n\tbare = false\n\tfsmonitor = /tmp/m\n").unwrap();
        let d = diff(&a, &b);
        assert_eq!(
            d,
            vec![('+', "core.fsmonitor".into(), "= \"/tmp/m\"".into())]
        );
    }

    #[test]
    fn a_changed_value_shows_old_and_new() {
        let a = keys(b"[user]\n\tname = A\n").unwrap();
        let b = keys(b"[user]\n\tname = B\n").unwrap();
        assert_eq!(diff(&a, &b)[0].2, "\"A\" → \"B\"");
    }

    #[test]
    fn implicit_booleans_are_keys() {
        let k = keys(b"[core]\n\tbare\n").unwrap();
        assert!(k.contains_key("core.bare"));
    }
}
