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
    /// A function or method: what a snippet calls.
    pub callable: bool,
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
            let Some(i) = one_def(defs, name) else {
                continue;
            };
            if out.len() < 2 && !out.iter().any(|&o| defs[o].name == defs[i].name) {
                out.push(i);
            }
        }
    }
    out
}

/// The index into `defs` of the one definition `name` names: exactly, or as a member qualified
/// by its type (`Table.render`).
fn one_def(defs: &[Defined], name: &str) -> Option<usize> {
    let of: Vec<usize> = match qualified(name) {
        Some((owner, member)) => members(defs, owner, member),
        None => (0..defs.len())
            .filter(|&i| !defs[i].heading && defs[i].name == name)
            .collect(),
    };
    match of.as_slice() {
        [i] => Some(*i),
        _ => None,
    }
}

/// What says the item guesses at the cause itself.
const GUESSES: &[&str] = &[
    "i think",
    "i suspect",
    "i guess",
    "i believe",
    "my guess",
    "suspect that",
    "seems like",
    "it seems",
    "looks like",
    "culprit",
    "looking at the source",
    "looking at the code",
    "maybe because",
    "perhaps because",
    "probably",
    "caused by",
];

/// Whether sentence `s` guesses at the cause itself ("I suspect", "probably", "the culprit").
pub(super) fn guesses(s: &str) -> bool {
    let lower = s.to_lowercase();
    GUESSES.iter().any(|g| super::item::has_word(&lower, g))
}

/// The definition the item's own guess at the cause names ("I suspect `parse_args()` drops it",
/// "the culprit is `Table.render`"), with the guessing sentence and its line: a code span or a
/// name of code shape (`parse_args`, `Table.render()`) of a sentence that guesses, which the
/// repository defines once.
pub(super) fn suspected(
    defs: &[Defined],
    sentences: &[(u32, String)],
) -> Option<(usize, u32, String)> {
    for (n, s) in sentences {
        if !guesses(s) {
            continue;
        }
        let bare = s
            .split(|c: char| c.is_whitespace() || ",;\"'[]".contains(c))
            .map(|w| w.trim_end_matches(['.', ':', '!', '?']))
            .map(|w| match w.strip_suffix(')') {
                Some(r) if !r.ends_with('(') => r,
                _ => w,
            })
            .filter(|w| super::names::is_code_ident(w));
        for name in super::names::code_spans(s).into_iter().chain(bare) {
            let name = name.strip_suffix("()").unwrap_or(name);
            if let Some(i) = one_def(defs, name).filter(|&i| !defs[i].heading) {
                return Some((i, *n, s.clone()));
            }
        }
    }
    None
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

/// Values every language's snippets call through that are never the project's own
/// (`console.log`, `System.out`, `fmt.Println`).
const STANDARD: &[&str] = &[
    "console", "System", "out", "err", "fmt", "os", "sys", "path", "Math", "JSON", "Object",
    "Array", "String", "std", "process", "self", "this", "super", "Console", "log",
];

/// The function the item's code calls that the repository defines, with the item's line and the
/// call as written: the first call in a code block (`Slop.parse`, `opts.integer '-p'`,
/// `parse_args(argv)`) whose name one function of the repository has — or one inside the type
/// that qualifies the call. A bare call (`parse_args(…)`, no value before it) counts only with a
/// name of code shape: `print(` or `open(` are anyone's.
pub(super) fn called(defs: &[Defined], all: &[(u32, &str, bool)]) -> Option<(usize, u32, String)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for (n, line, code) in all {
        if !code {
            continue;
        }
        let bytes: Vec<(usize, char)> = line.char_indices().collect();
        let mut i = 0;
        while i < bytes.len() {
            if !ident(bytes[i].1) || (i > 0 && ident(bytes[i - 1].1)) {
                i += 1;
                continue;
            }
            let start = bytes[i].0;
            let end = bytes[i..]
                .iter()
                .find(|(_, c)| !ident(*c))
                .map_or(line.len(), |(at, _)| *at);
            let name = &line[start..end];
            i += name.chars().count();
            let receiver = receiver(&line[..start]);
            let paren = line[end..].starts_with('(');
            let shaped = name.contains('_') || name.chars().skip(1).any(char::is_uppercase);
            let after = line[end..].chars().next();
            let method = receiver.is_some_and(|r| !STANDARD.contains(&r))
                && !after.is_some_and(|c| c == '.' || c == '/' || c == ':')
                && !super::names::is_file_ext(name);
            if name.chars().count() < 3 || !(method || (receiver.is_none() && paren && shaped)) {
                continue;
            }
            let owned: Vec<usize> = receiver
                .filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
                .map(|r| members(defs, r, name))
                .unwrap_or_default();
            let of: Vec<usize> = if owned.is_empty() {
                (0..defs.len())
                    .filter(|&k| defs[k].callable && defs[k].name == name)
                    .collect()
            } else {
                owned
            };
            if let [k] = of.as_slice() {
                let call = receiver.map_or(name.to_string(), |r| {
                    format!("{r}{}{name}", &line[start - sep_len(&line[..start])..start])
                });
                return Some((*k, *n, call));
            }
        }
    }
    None
}

/// The value a call at the end of `before` goes through: `opts` of `opts.`, `Slop` of `Slop::`.
fn receiver(before: &str) -> Option<&str> {
    let len = sep_len(before);
    if len == 0 {
        return None;
    }
    let rest = &before[..before.len() - len];
    let from = rest
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + rest[i..].chars().next().map_or(1, char::len_utf8)
        });
    let r = &rest[from..];
    (!r.is_empty() && !r.starts_with(|c: char| c.is_ascii_digit())).then_some(r)
}

/// The length of the separator `before` ends with: `.`, `::`, `#`, `->`, else 0.
fn sep_len(before: &str) -> usize {
    ["::", "->", ".", "#"]
        .iter()
        .find(|s| before.ends_with(**s))
        .map_or(0, |s| s.len())
}

/// Whether the item's lines (`all`: number, text, inside a code block) write `name` as code:
/// in a code block or a code span, called (`name(`), after a dot, `::` or `#` (`opts.name`),
/// or as a name of code shape (`help_width`, `helpWidth`) — not as an ordinary word of the
/// prose (`recipe`, `value`) that happens to name a field.
pub(super) fn written_as_code(name: &str, all: &[(u32, &str, bool)]) -> bool {
    let shaped = name.contains('_') || name.chars().skip(1).any(char::is_uppercase);
    let lower = name.to_lowercase();
    all.iter().any(|(_, line, code)| {
        if *code {
            return super::item::has_word(line, name);
        }
        (shaped && super::item::has_word(&line.to_lowercase(), &lower))
            || super::names::code_spans(line)
                .iter()
                .any(|s| super::item::has_word(s, name))
            || as_code_in(line, name)
    })
}

/// Whether prose `line` calls `name` (`name(`) or reaches it through a value (`.name`,
/// `::name`, `#name`).
fn as_code_in(line: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        let value = line[..at]
            .trim_end_matches(['.', ':', '#'])
            .chars()
            .next_back();
        let reached = matches!(before, Some('.' | ':' | '#')) && word(value);
        !word(after) && ((!word(before) && after == Some('(')) || reached)
    })
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
    fn a_name_is_written_as_code_in_code_a_call_or_a_dotted_path_never_as_a_prose_word() {
        let as_code = |line: &str, code: bool| written_as_code("recipe", &[(1, line, code)]);
        assert!(!as_code("The recipe is ignored.", false));
        assert!(as_code("The `recipe` is ignored.", false));
        assert!(as_code("It reads job.recipe twice.", false));
        assert!(as_code("Calling recipe() twice.", false));
        assert!(as_code("job.recipe = x", true));
        assert!(written_as_code(
            "help_width",
            &[(1, "the help_width is 0", false)]
        ));
    }

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
