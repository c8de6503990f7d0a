//! The imports between the files of `src/`, read from their text: `use crate::…`,
//! `use super::…`, `use self::…` (groups too), paths written out in the code (`crate::x::y`,
//! `super::x::f`) and paths through a child module of the file (`child::item`), in inline
//! `mod x { … }` blocks as well. A path names the file of the longest module it starts with
//! (`crate::ask::Missing` names `ask/mod.rs`, where it is re-exported). Comments, strings and
//! character literals are no imports, nor is `mod child;`, which only declares the child.
//!
//! A file's use of a module that contains it (its folder's `mod.rs`, and so on up) is not
//! counted: what a folder's `mod.rs` shares is its files' own, and counting it as well as the
//! `mod.rs`'s use of its children would make every folder a circle. Everything else is: two
//! files of one folder that name each other are a circle.

use std::collections::{BTreeMap, BTreeSet};

use super::{is_test_file, non_test_code, rel, root, rust_files};

/// A file's module: `guard/walk.rs` → `guard::walk`, `guard/mod.rs` → `guard`, `lib.rs` → the
/// crate root (no segment).
pub(super) fn module_of(rel: &str) -> Vec<String> {
    let mut segments: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if segments.last().is_some_and(|s| s == "mod" || s == "lib") {
        segments.pop();
    }
    segments
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    Sep,
    Open,
    Close,
    Comma,
    /// Any other punctuation: `.`, `<`, `*`, `;`, …
    Other(char),
}

/// The tokens of Rust code that can make a path, without comments, strings, characters,
/// lifetimes and numbers.
fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character ('x', '\n', '{') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let raw_string = at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#'));
            if word == "r" && at(i) == '#' && !raw_string {
                i += 1; // a raw identifier (r#final): the word after it
            } else if (word == "r" || word == "br") && raw_string {
                // A raw string: r"…", r#"…"#.
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                while i < chars.len() {
                    if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
            } else {
                out.push(Token::Ident(word));
            }
        } else {
            i += 1;
            out.push(match c {
                ':' if at(i) == ':' => {
                    i += 1;
                    Token::Sep
                }
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                c if c.is_whitespace() => continue,
                c => Token::Other(c),
            });
        }
    }
    out
}

/// Words that never start a path to a module.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "type", "unsafe", "use", "where", "while",
];

/// The path (or, after `::{`, the paths) starting at `tokens[i]`, each with `prefix` before it;
/// and the index after it.
fn path_tree(tokens: &[Token], mut i: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut segments = prefix.to_vec();
    let mut out = Vec::new();
    while let Some(Token::Ident(word)) = tokens.get(i) {
        segments.push(word.clone());
        i += 1;
        if tokens.get(i) != Some(&Token::Sep) {
            break;
        }
        i += 1;
        if tokens.get(i) == Some(&Token::Open) {
            i += 1;
            loop {
                match tokens.get(i) {
                    None => return (out, i),
                    Some(Token::Close) => return (out, i + 1),
                    Some(Token::Ident(_)) => {
                        let (inner, next) = path_tree(tokens, i, &segments);
                        out.extend(inner);
                        i = next;
                    }
                    Some(_) => i += 1,
                }
            }
        }
    }
    out.push(segments);
    (out, i)
}

/// Every path a file's code names, each with the inline modules (`mod x { … }`) it is written
/// in.
fn paths(code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    // The inline modules around the current token, each with the depth of braces inside it.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Open)) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                }
                i += 2; // `mod child;` declares the child: no import of it
                continue;
            }
            Token::Ident(word) if word == "as" => {
                i += 2; // `use a::b as c`: `c` is a name, not a path
                continue;
            }
            Token::Ident(word) if !KEYWORDS.contains(&word.as_str()) => {
                let after_dot = i > 0 && tokens[i - 1] == Token::Other('.');
                let (found, next) = path_tree(&tokens, i, &[]);
                if !after_dot {
                    let within: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
                    out.extend(found.into_iter().map(|p| (within.clone(), p)));
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The module a path written in module `here` names, as written out from the crate root; `None`
/// for a path that starts elsewhere (another crate, a type, a local name).
fn absolute(
    here: &[String],
    path: &[String],
    is_module: impl Fn(&[String]) -> bool,
) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (here.to_vec(), &path[1..]),
        "super" => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            (here[..here.len().checked_sub(ups)?].to_vec(), &path[ups..])
        }
        first => {
            let mut child = here.to_vec();
            child.push(first.to_string());
            if !is_module(&child) {
                return None;
            }
            (here.to_vec(), path)
        }
    };
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// Who imports whom among `files` (path relative to `src/` → its non-test code): for each
/// file, the files it names and, for each, the first path that names it.
pub(super) fn imports(
    files: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let modules: BTreeMap<Vec<String>, &String> =
        files.keys().map(|rel| (module_of(rel), rel)).collect();
    let is_module = |m: &[String]| modules.contains_key(m);
    let mut graph = BTreeMap::new();
    for (rel, code) in files {
        let own = module_of(rel);
        let edges: &mut BTreeMap<String, String> = graph.entry(rel.clone()).or_default();
        for (within, path) in paths(code) {
            let mut here = own.clone();
            here.extend(within);
            let Some(named) = absolute(&here, &path, is_module) else {
                continue;
            };
            // The file of the longest module the path starts with (the crate root is none).
            let Some(target) = (1..=named.len())
                .rev()
                .find_map(|k| modules.get(&named[..k]).map(|t| (k, *t)))
                .filter(|(k, _)| !own.starts_with(&named[..*k]))
                .map(|(_, t)| t)
            else {
                continue;
            };
            edges
                .entry(target.clone())
                .or_insert_with(|| path.join("::"));
        }
    }
    graph
}

/// The circles of `graph`: each set of two or more files that reach one another through
/// imports (its strongly connected components, by Tarjan's algorithm).
pub(super) fn circles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, file: &'a str) {
            let n = self.index.len();
            self.index.insert(file, n);
            self.low.insert(file, n);
            self.stack.push(file);
            self.on_stack.insert(file);
            let graph = self.graph;
            for next in graph.get(file).into_iter().flat_map(|e| e.keys()) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next]);
                    self.low.insert(file, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[file].min(self.index[next]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut component = BTreeSet::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.insert(top.to_string());
                    if top == file {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for file in graph.keys() {
        if !walk.index.contains_key(file.as_str()) {
            walk.visit(file);
        }
    }
    walk.found
}

/// Folders left out of the check below while they are being untangled (none now: the built-in
/// interviewer's were, until its shared parts moved to `kind.rs`, `place.rs` and `reading.rs`).
/// Their files are still read, so what the others name in them is known.
const CIRCLES_BEING_UNTANGLED: &[&str] = &[];

/// No circle of imports between the files of `src/` (how imports are read: `imports.rs`):
/// each file's imports go one way, so a file can be read, and moved, before those it uses.
#[test]
fn no_circle_of_imports_between_files() {
    let files: BTreeMap<String, String> = rust_files(&root().join("src"))
        .iter()
        .map(|file| (rel(file), file))
        .filter(|(rel, _)| !is_test_file(rel) && rel != "main.rs")
        .map(|(rel, file)| {
            let text = std::fs::read_to_string(file).unwrap();
            (rel, non_test_code(&text).to_string())
        })
        .collect();
    let untangling = |rel: &str| CIRCLES_BEING_UNTANGLED.iter().any(|p| rel.starts_with(p));
    let mut graph = imports(&files);
    graph.retain(|rel, _| !untangling(rel));
    for named in graph.values_mut() {
        named.retain(|rel, _| !untangling(rel));
    }
    let circles: Vec<String> = circles(&graph)
        .iter()
        .map(|circle| {
            let arrows: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| circle.contains(*to))
                        .map(move |(to, path)| format!("  src/{from} -> src/{to} ({path})"))
                })
                .collect();
            format!("{} files:\n{}", circle.len(), arrows.join("\n"))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "circles of imports between files of src/ (move what both use into the lower file or a \
         new one):\n{}",
        circles.join("\n")
    );
}

/// The circles of a tree given as (file, code) pairs, each as its sorted files.
fn circles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let files: BTreeMap<String, String> = files
        .iter()
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect();
    circles(&imports(&files))
        .into_iter()
        .map(|c| c.into_iter().collect())
        .collect()
}

#[test]
fn two_files_that_name_each_other_are_a_circle() {
    let found = circles_of(&[
        ("lib.rs", "pub mod a;\npub mod b;"),
        ("a.rs", "use crate::b::Thing;"),
        ("b.rs", "pub fn f() { super::a::g() }"),
    ]);
    assert_eq!(found, vec![vec!["a.rs".to_string(), "b.rs".to_string()]]);
}

#[test]
fn a_circle_through_a_group_a_child_path_and_a_third_file_is_found() {
    let found = circles_of(&[
        ("x/mod.rs", "mod y;\nmod z;\nmod w;\npub fn f() { w::go() }"),
        ("x/y.rs", "use crate::{x::z::{self, Z}, error};"),
        ("x/z.rs", "use super::w::W;"),
        ("x/w.rs", "use super::y;\nuse super::Shared;"),
    ]);
    assert_eq!(
        found,
        vec![vec!["x/w.rs".to_string(), "x/y.rs".into(), "x/z.rs".into()]]
    );
}

#[test]
fn a_folder_and_its_files_are_no_circle_nor_comments_and_strings() {
    let found = circles_of(&[
        ("x/mod.rs", "mod y;\npub use y::Y;\npub struct Shared;"),
        ("x/y.rs", "use super::Shared;\nuse crate::x::Other;"),
        (
            "a.rs",
            "// crate::b::Thing\nfn f() { let s = \"crate::b::X\"; let c = '{'; }",
        ),
        ("b.rs", "/* super::a */ use crate::a::f;"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn inline_modules_are_where_their_paths_start() {
    // `super` in a.rs's `mod stub { … }` is a.rs's own module: `super::b` is its child a/b.rs.
    let graph = imports(
        &[
            ("a.rs", "mod stub { use super::b::X; }"),
            ("b.rs", ""),
            ("a/b.rs", ""),
        ]
        .iter()
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect(),
    );
    let named: Vec<&String> = graph["a.rs"].keys().collect();
    assert_eq!(named, vec!["a/b.rs"]);
}
