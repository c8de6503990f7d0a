//! The definitions an item points at itself: a code span of its prose that is exactly the name
//! of a definition the index holds once (`parse_args()`, `Config`, `--color`), or a member
//! qualified by its type (`Table::render`, `Table.render()`, `Table#render`). The item's own
//! pointer is the strongest evidence of the code it is about: such a definition is named without
//! a margin over the next candidate (`standing`).
//!
//! Not for: ranking definitions by the item's words (`nearest`).

/// A definition as the pointing reads it.
pub(super) struct Defined<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub line: u32,
    pub is_type: bool,
    pub heading: bool,
}

/// The indexes into `defs` of those the item's prose `lines` point at, at most two, each once.
pub(super) fn pointed(defs: &[Defined], lines: &[(u32, &str)]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for (_, line) in lines {
        for span in super::names::code_spans(line) {
            let name = span.strip_suffix("()").unwrap_or(span);
            if name.is_empty() || name.contains(char::is_whitespace) {
                continue;
            }
            let of: Vec<usize> = match qualified(name) {
                Some((owner, member)) => members(defs, owner, member),
                None => (0..defs.len())
                    .filter(|&i| !defs[i].heading && defs[i].name == name)
                    .collect(),
            };
            let [i] = of.as_slice() else { continue };
            if out.len() < 2 && !out.iter().any(|&o| defs[o].name == defs[*i].name) {
                out.push(*i);
            }
        }
    }
    out
}

/// The index into `defs` of the member a name qualifies by its type (`Table.render()`,
/// `Table::render`, `Table#render`), when the type defines it once.
pub(super) fn member(defs: &[Defined], name: &str) -> Option<usize> {
    let (owner, member) = qualified(name.strip_suffix("()").unwrap_or(name))?;
    match members(defs, owner, member).as_slice() {
        [i] => Some(*i),
        _ => None,
    }
}

/// The definitions of `member` inside type `owner`.
fn members(defs: &[Defined], owner: &str, member: &str) -> Vec<usize> {
    (0..defs.len())
        .filter(|&i| !defs[i].heading && defs[i].name == member)
        .filter(|&i| owned_by(defs, &defs[i], owner))
        .collect()
}

/// `Table` and `render` of `Table::render`, `Table.render` or `Table#render`: a member of a
/// type (capitalised), never a module's or a value's (`os.path`, `config.toml`).
pub(super) fn qualified(name: &str) -> Option<(&str, &str)> {
    let last = |s: &str| -> Option<(usize, usize)> {
        ["::", "#", "."]
            .iter()
            .filter_map(|sep| s.rfind(sep).map(|i| (i, sep.len())))
            .max()
    };
    let (at, len) = last(name)?;
    let (prefix, member) = (&name[..at], &name[at + len..]);
    let owner = last(prefix).map_or(prefix, |(i, l)| &prefix[i + l..]);
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    (owner.starts_with(|c: char| c.is_ascii_uppercase()) && ident(owner) && ident(member))
        .then_some((owner, member))
}

/// Whether `d` is defined inside type `owner`: below a type of that name in its file, with no
/// other type's definition between.
fn owned_by(defs: &[Defined], d: &Defined, owner: &str) -> bool {
    defs.iter()
        .filter(|t| t.is_type && t.path == d.path && t.line < d.line)
        .max_by_key(|t| t.line)
        .is_some_and(|t| t.name == owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_qualified_by_a_type_never_a_module_or_a_file() {
        assert_eq!(qualified("Table::render"), Some(("Table", "render")));
        assert_eq!(qualified("app::Table.render"), Some(("Table", "render")));
        assert_eq!(qualified("Table#render"), Some(("Table", "render")));
        assert_eq!(qualified("os.path"), None);
        assert_eq!(qualified("config.toml"), None);
        assert_eq!(qualified("render"), None);
    }
}
