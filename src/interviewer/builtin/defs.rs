//! Where a name is defined, read from the structure around the lines the search found: a flag
//! declared over several lines (`#[arg(` … `long = "format"`, a clap builder's `.long("x")`,
//! argparse's `add_argument("-x", "--xx")`, click, cobra, commander), a clap derive field under
//! its attribute, a keyworded definition (`fn`, `struct`, `def` …) — never a line inside a test
//! function or module, a test file, a document or a lockfile.
//!
//! A careful multi-line scanner rather than a parser: it needs a few lines of context around
//! lines already found, in any of the languages a work item may point at, within the first
//! question's time budget; a grammar per language would add far more than it would catch here.

use std::collections::BTreeMap;
use std::path::Path;

use super::place::{is_doc, is_test};
use super::search::Hit;

/// Lines looked back for the start of a multi-line declaration.
const LOOK_BACK: usize = 12;
/// At most this many files are read for context.
const MAX_FILES_READ: usize = 64;

/// The files read for context, each once.
#[derive(Default)]
pub(super) struct Sources {
    files: BTreeMap<String, Option<Vec<String>>>,
}

impl Sources {
    pub(super) fn lines(&mut self, worktree: &Path, path: &str) -> Option<&[String]> {
        if self.files.len() >= MAX_FILES_READ && !self.files.contains_key(path) {
            return None;
        }
        self.files
            .entry(path.to_string())
            .or_insert_with(|| {
                super::repo::read_text(worktree, path)
                    .map(|t| t.lines().map(str::to_string).collect())
            })
            .as_deref()
    }
}

/// The key of a flag's declaration group, searched on its own with [`Flag::declared`]'s
/// spellings (`"declared --format"`); `None` for what is no flag.
pub(super) fn decl_key(text: &str) -> Option<String> {
    Flag::parse(text).map(|_| format!("declared {text}"))
}

/// A flag as a declaration spells it: `format` for `--format`, `X` for `-X`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flag<'a> {
    Long(&'a str),
    Short(char),
}

impl<'a> Flag<'a> {
    pub(super) fn parse(text: &'a str) -> Option<Flag<'a>> {
        if let Some(long) = text.strip_prefix("--") {
            return (!long.is_empty()).then_some(Flag::Long(long));
        }
        let short = text.strip_prefix('-')?;
        let mut chars = short.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphanumeric() => Some(Flag::Short(c)),
            _ => None,
        }
    }

    /// How a line names it: `--format`, `-X` (counted as lines that name the flag).
    pub(super) fn written(self) -> String {
        match self {
            Flag::Long(l) => format!("--{l}"),
            Flag::Short(c) => format!("-{c}"),
        }
    }

    /// The spellings a declaration may use instead (`long = "format"`, `short = 'X'`):
    /// searched for its definition only, never counted as lines naming it.
    pub(super) fn declared(self) -> Vec<String> {
        match self {
            // Bare (`long = "format"`) or as a getopt spec (`'type-add=s'`, `"help|h"`).
            Flag::Long(l) => {
                let mut out = vec![format!("\"{l}\""), format!("'{l}'")];
                for q in ['"', '\'', '|'] {
                    out.extend(["=", "|", "!", ":", "+"].map(|k| format!("{q}{l}{k}")));
                    out.extend(['"', '\''].map(|e| format!("{q}{l}{e}")));
                }
                out.sort();
                out.dedup();
                out
            }
            Flag::Short(c) => vec![
                format!("short = '{c}'"),
                format!("short='{c}'"),
                format!("short('{c}')"),
                format!("short(\"{c}\")"),
                // A getopt spec's alternative (`"help|h"`, `'h|help'`).
                format!("|{c}'"),
                format!("|{c}\""),
                format!("|{c}="),
                format!("'{c}|"),
                format!("\"{c}|"),
            ],
        }
    }
}

/// Calls and attributes that declare command-line flags, in the languages' common libraries.
const FLAG_DECLS: &[&str] = &[
    "#[arg(",
    "#[clap(",
    "#[structopt(",
    "#[argh(",
    ".long(",
    ".short(",
    "Arg::new(",
    "Arg::with_name(",
    "::switch(",
    "::flag(",
    "add_argument(",
    "add_option(",
    "click.option(",
    "@option(",
    ".option(",
    ".requiredOption(",
    "Flags().",
    "PersistentFlags().",
    "flag.String",
    "flag.Bool",
    "flag.Int",
    "flag.Duration",
    "flag.Float",
    "pflag.",
    "@Option(",
    "@Parameter(",
    "opt.on(",
    "long \"",
    "fullName",
    "longName",
    "long_name",
    "method_option ",
    "class_option ",
    "addOption(",
    "InputOption(",
];

/// Whether the line of `hit` is (part of) a declaration of `flag`: the flag's string is an
/// argument of a declaring call or attribute that is still open on that line.
pub(super) fn declares_flag(lines: &[String], hit: &Hit, flag: Flag) -> bool {
    let at = (hit.line as usize).saturating_sub(1);
    if at >= lines.len() || comment(&lines[at]) {
        return false;
    }
    if super::options::case_arm(&lines[at], &flag.written())
        || (source_file(&hit.path) && super::options::literal_declares(&lines[at], &flag.written()))
    {
        return true;
    }
    let from = at.saturating_sub(LOOK_BACK);
    // The last declaration opened at or before the hit's line and still open at its end.
    for start in (from..=at).rev() {
        let line = &lines[start];
        // On the hit's own line the whole call counts (`RGArg::switch("x").short("F")`); on a
        // line above, the last declaration opened there.
        let found = FLAG_DECLS.iter().filter_map(|m| line.rfind(m));
        let pos = if start == at {
            found.min()
        } else {
            found.max()
        };
        let Some(pos) = pos else {
            if start < at && closes_statement(line) {
                return false;
            }
            continue;
        };
        let mut text = line[pos..].to_string();
        for l in &lines[start + 1..=at] {
            text.push('\n');
            text.push_str(l);
        }
        // Closed before the hit's line: another statement.
        if start < at && depth_closes_before_last_line(&text) {
            return false;
        }
        return names_flag(&text, flag);
    }
    false
}

/// Whether the parentheses opened in `text` close before its last line begins.
fn depth_closes_before_last_line(text: &str) -> bool {
    let Some((head, _)) = text.rsplit_once('\n') else {
        return false;
    };
    let mut depth = 0i32;
    let mut opened = false;
    for c in without_strings(head).chars() {
        match c {
            '(' | '[' => {
                depth += 1;
                opened = true;
            }
            ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    opened && depth <= 0
}

fn closes_statement(line: &str) -> bool {
    let t = line.trim_end();
    t.ends_with(';') || t.ends_with('{') || t.ends_with('}')
}

/// `text` with the contents of string literals blanked (so a `(` inside one does not count).
fn without_strings(text: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(c);
                    continue;
                }
                out.push(' ');
            }
            None => {
                if c == '"' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// The string and character literals of `text`.
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            let mut j = i + 1;
            let mut lit = String::new();
            while j < chars.len() && chars[j] != c && chars[j] != '\n' {
                if chars[j] == '\\' {
                    j += 1;
                }
                if let Some(&x) = chars.get(j) {
                    lit.push(x);
                }
                j += 1;
            }
            if chars.get(j) == Some(&c) {
                out.push(lit);
                i = j + 1;
                continue;
            }
            // Still open at the end, continued over lines (`\` at a line's end): the rest of
            // the text is that string's prose, never literals of its own.
            if j >= chars.len() && lit.contains('\n') {
                break;
            }
        }
        i += 1;
    }
    out
}

/// Whether a declaration's text names `flag`: a literal holding `--format` or `-X` among its
/// words (`"-x, --xx <v>"`, `"--xx/--no-xx"`), or the bare name where the API takes it bare
/// (`long = "format"`, `.long("format")`, cobra's and Go's flag names, `short = 'X'`).
fn names_flag(text: &str, flag: Flag) -> bool {
    let dashed = match flag {
        Flag::Long(l) => format!("--{l}"),
        Flag::Short(c) => format!("-{c}"),
    };
    let lits = literals(text);
    if lits
        .iter()
        .any(|lit| super::options::usage_names(lit, &dashed))
    {
        return true;
    }
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    match flag {
        Flag::Long(l) => {
            // `RGArg::switch("x")` and `RGArg::flag("x", …)` (ripgrep's own builder) name the
            // long flag itself; clap's `Arg::new("x")` only names the argument.
            let bare_api = [
                format!("long=\"{l}\""),
                format!("long\"{l}\""),
                format!("fullName=\"{l}\""),
                format!("longName=\"{l}\""),
                format!("long_name=\"{l}\""),
                format!("addOption('{l}'"),
                format!("addOption(\"{l}\""),
                format!("InputOption('{l}'"),
                format!("InputOption(\"{l}\""),
                format!("long(\"{l}\")"),
                format!("long(\"{l}\".into())"),
                format!("::switch(\"{l}\")"),
                format!("::flag(\"{l}\","),
            ];
            if bare_api.iter().any(|p| squeezed.contains(p.as_str())) {
                return true;
            }
            if super::options::thor_declares(&squeezed, l) {
                return true;
            }
            // Go's flag package and cobra: the first string argument is the long name.
            let go = ["Flags().", "PersistentFlags().", "flag.", "pflag."]
                .iter()
                .any(|m| text.contains(m));
            go && lits.first().is_some_and(|f| f == l)
        }
        Flag::Short(c) => [
            format!("short='{c}'"),
            format!("short(\'{c}\')"),
            format!("short(\"{c}\")"),
        ]
        .iter()
        .any(|p| squeezed.contains(p.as_str())),
    }
}

/// Whether the clap derive field on `hit`'s line (`format: Format,`) is declared as `flag` by
/// the attributes above it, however many lines they take (`#[arg(` … `long = "x"` … `)]`).
pub(super) fn field_declares(lines: &[String], hit: &Hit, flag: Flag) -> bool {
    let at = (hit.line as usize).saturating_sub(1);
    let Some(line) = lines.get(at) else {
        return false;
    };
    let field = line
        .trim()
        .trim_start_matches("pub(crate) ")
        .trim_start_matches("pub ")
        .split(':')
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    if field.is_empty() || !field.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return false;
    }
    let attrs = attributes_above(lines, at);
    let clap = ["#[arg(", "#[clap(", "#[structopt(", "#[argh("];
    let attrs: Vec<&String> = attrs
        .iter()
        .filter(|a| clap.iter().any(|c| a.starts_with(c)))
        .collect();
    if attrs.is_empty() {
        return false;
    }
    let text: String = attrs
        .iter()
        .flat_map(|a| a.chars())
        .filter(|c| !c.is_whitespace())
        .collect();
    match flag {
        Flag::Long(l) => {
            let explicit = text.contains("long=\"") || text.contains("long(\"");
            if explicit {
                text.contains(&format!("long=\"{l}\"")) || text.contains(&format!("long(\"{l}\")"))
            } else {
                has_word_in(&text, "long") && field.replace('_', "-") == l.replace('_', "-")
            }
        }
        Flag::Short(c) => {
            text.contains(&format!("short='{c}'"))
                || (has_word_in(&text, "short")
                    && !text.contains("short='")
                    && field.starts_with(c))
        }
    }
}

/// How a clap attribute spells a bare `short` (no letter): the field's first letter is the flag.
pub(super) const BARE_SHORT: &[&str] = &["(short,", "(short)", ", short,", ", short)", " short,"];

/// The clap derive field that an attribute with a bare `short` on `hit`'s line declares as
/// `flag` (`#[arg(short, long)]` above `exclude: Vec<String>` is `-e`).
pub(super) fn bare_short_field(lines: &[String], hit: &Hit, flag: Flag) -> Option<Hit> {
    let at = (hit.line as usize).checked_sub(1)?;
    let field = (at + 1..lines.len().min(at + LOOK_BACK)).find(|&i| {
        let t = lines[i]
            .trim()
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && t.split_once(':')
                .is_some_and(|(name, _)| name.chars().all(|c| c.is_alphanumeric() || c == '_'))
    })?;
    let found = Hit {
        path: hit.path.clone(),
        line: u32::try_from(field + 1).ok()?,
        text: super::text::one_line(lines[field].trim(), 160),
    };
    (matches!(flag, Flag::Short(_)) && field_declares(lines, &found, flag)).then_some(found)
}

fn has_word_in(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let sep = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        sep(before) && sep(after) && !text[at + word.len()..].starts_with("_")
    })
}

/// The attributes right above line `at` (doc comments and blank lines skipped), each joined
/// onto one line, nearest last.
fn attributes_above(lines: &[String], at: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut depth = 0i32;
    let from = at.saturating_sub(3 * LOOK_BACK);
    for i in (from..at).rev() {
        let t = lines[i].trim();
        if depth == 0 && current.is_empty() && (t.is_empty() || t.starts_with("//")) {
            continue;
        }
        let s = without_strings(t);
        depth += s.matches([')', ']']).count() as i32;
        depth -= s.matches(['(', '[']).count() as i32;
        current.push(t);
        if depth <= 0 {
            if !t.starts_with("#[") {
                break;
            }
            current.reverse();
            out.push(current.join(" "));
            current.clear();
            depth = 0;
        }
    }
    out.reverse();
    out
}

fn comment(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "#", "/*", "*", "--"]
        .iter()
        .any(|c| t.starts_with(c))
        && !t.starts_with("#[")
}

/// Whether line `line` (1-based) of `path` lies in test code: a test file, a `#[cfg(test)]`
/// module, a `#[test]` function or one named `test_…`/`Test…` (Rust, Python, Go, JS).
pub(super) fn in_test_code(path: &str, lines: &[String], line: u32) -> bool {
    if is_test(path) {
        return true;
    }
    let at = (line as usize).saturating_sub(1);
    if at >= lines.len() {
        return false;
    }
    if path.ends_with(".py") {
        return python_test(lines, at);
    }
    // Brace languages: the enclosing blocks, found by matching braces from each candidate.
    for start in (0..at).rev() {
        let t = lines[start].trim();
        let opens_test = t.starts_with("#[cfg(test)]")
            || t.starts_with("#[test]")
            || t.ends_with("::test]")
            || t.starts_with("#[bench]")
            || fn_named_test(t)
            || ["describe(", "it(", "test("]
                .iter()
                .any(|m| t.starts_with(m));
        if opens_test && block_end(lines, start).is_some_and(|end| end >= at) {
            return true;
        }
    }
    false
}

fn fn_named_test(t: &str) -> bool {
    let t = t
        .trim_start_matches("pub ")
        .trim_start_matches("async ")
        .trim_start_matches("export ");
    ["fn test", "func Test", "function test", "def test"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The line where the block opened at or after `start` closes (braces outside strings).
fn block_end(lines: &[String], start: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut opened = false;
    for (i, l) in lines.iter().enumerate().skip(start) {
        for c in without_strings(l).chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(i);
        }
        // An attribute or signature without a body within a few lines is not a block.
        if !opened && i > start + 8 {
            return None;
        }
    }
    opened.then_some(lines.len())
}

fn python_test(lines: &[String], at: usize) -> bool {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut level = indent(&lines[at]);
    for l in lines[..at].iter().rev() {
        let t = l.trim_start();
        if t.is_empty() || indent(l) >= level {
            continue;
        }
        level = indent(l);
        if t.starts_with("def test")
            || t.starts_with("class Test")
            || t.starts_with("async def test")
        {
            return true;
        }
        if level == 0 {
            break;
        }
    }
    false
}

/// Whether a path is a program's source, where a string literal may declare an option (not a
/// configuration file, a document or data).
fn source_file(path: &str) -> bool {
    const SOURCE: &[&str] = &[
        "rs", "py", "go", "js", "ts", "mjs", "cjs", "jsx", "tsx", "java", "kt", "kts", "scala",
        "groovy", "rb", "pl", "pm", "php", "cs", "fs", "swift", "m", "mm", "c", "cc", "cpp", "cxx",
        "h", "hh", "hpp", "lua", "sh", "bash", "zsh", "ex", "exs", "erl", "hs", "dart", "clj",
        "jl", "nim", "zig", "cr",
    ];
    path.rsplit_once('.')
        .is_some_and(|(_, e)| SOURCE.contains(&e))
}

/// Whether `hit` may be cited as where something is defined: not in a test, a document or a
/// lockfile.
pub(super) fn may_define(hit: &Hit) -> bool {
    let file = hit.path.rsplit('/').next().unwrap_or(&hit.path);
    !is_test(&hit.path)
        && !test_named(&hit.path)
        && !is_doc(&hit.path)
        && !file.ends_with(".lock")
        && !matches!(file, "package-lock.json" | "go.sum" | "pnpm-lock.yaml")
}

/// Whether a path is a test's by the conventions of Java, C#, Kotlin and Swift: a `Tests/` or
/// `src/test/` folder in any case, a project folder such as `Humanizer.Tests`, a file such as
/// `ArgumentsTests.swift` or `ParserTest.java`. A test's call (`check(argumentName: "x")`)
/// names what the code declares; it declares nothing.
pub(super) fn test_named(path: &str) -> bool {
    let camel_test = |s: &str| {
        ["Tests", "Test", "Spec", "Specs"].iter().any(|t| {
            s.strip_suffix(t)
                .and_then(|rest| rest.chars().next_back())
                .is_some_and(|c| c.is_lowercase() || c.is_ascii_digit() || c == '.')
        })
    };
    let segments: Vec<&str> = path.split('/').collect();
    let (dirs, file) = segments.split_at(segments.len().saturating_sub(1));
    dirs.iter().any(|d| {
        matches!(
            d.to_ascii_lowercase().as_str(),
            "tests" | "test" | "spec" | "specs"
        ) || camel_test(d)
    }) || file
        .first()
        .and_then(|f| f.split('.').next())
        .is_some_and(camel_test)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    fn hit(line: u32) -> Hit {
        Hit {
            path: "src/cli.rs".into(),
            line,
            text: String::new(),
        }
    }

    fn hit_at(path: &str) -> Hit {
        Hit {
            path: path.into(),
            line: 1,
            text: String::new(),
        }
    }

    #[test]
    fn declarations_over_several_lines_are_found() {
        let rust = lines(
            "#[derive(Parser)]\nstruct Cli {\n    #[arg(\n        short,\n        long = \"format\",\n        value_enum\n    )]\n    fmt: Format,\n}\n",
        );
        assert!(declares_flag(&rust, &hit(5), Flag::Long("format")));
        assert!(field_declares(&rust, &hit(8), Flag::Long("format")));
        assert!(!field_declares(&rust, &hit(8), Flag::Long("fmt")));
        let builder = lines(
            "let m = Command::new(\"x\")\n    .arg(\n        Arg::new(\"exclude\")\n            .short('X')\n            .long(\"exclude\"),\n    );\n",
        );
        assert!(declares_flag(&builder, &hit(4), Flag::Short('X')));
        assert!(declares_flag(&builder, &hit(5), Flag::Long("exclude")));
        let py =
            lines("parser.add_argument(\n    \"-x\",\n    \"--exclude\",\n    help=\"skip\",\n)\n");
        assert!(declares_flag(&py, &hit(3), Flag::Long("exclude")));
        assert!(declares_flag(&py, &hit(2), Flag::Short('x')));
        let js = lines("program.option(\"-u, --upper <n>\", \"upper\");\n");
        assert!(declares_flag(&js, &hit(1), Flag::Long("upper")));
        assert!(declares_flag(&js, &hit(1), Flag::Short('u')));
        let go = lines("cmd.Flags().StringP(\"output\", \"o\", \"\", \"where\")\n");
        assert!(declares_flag(&go, &hit(1), Flag::Long("output")));
        let usage = lines("fn main() {\n    println!(\"use --format\");\n}\n");
        assert!(!declares_flag(&usage, &hit(2), Flag::Long("format")));
    }

    #[test]
    fn a_flag_quoted_in_another_options_help_continued_over_lines_is_not_declared_there() {
        let builder = lines(concat!(
            "Arg::with_name(\"pager\")\n",
            "    .long(\"pager\")\n",
            "    .long_help(\n",
            "        \"Which pager is used. The default \\\n",
            "         pager is 'less'. To disable it, use the \\\n",
            "         '--paging' option. \\\n",
            "         Example: '--pager less'.\",\n",
            "    ),\n",
        ));
        assert!(!declares_flag(&builder, &hit(6), Flag::Long("paging")));
        assert!(declares_flag(&builder, &hit(2), Flag::Long("pager")));
        // The help's closing line mentions another flag in prose: not its declaration.
        let closing = lines(concat!(
            "Arg::new(\"setup\")\n",
            "    .long(\"setup\")\n",
            "    .help(\n",
            "        \"Execute CMD before each set of runs, \\\n",
            "         not every time as would happen with the --prepare option.\"\n",
            "    ),\n",
        ));
        assert!(!declares_flag(&closing, &hit(5), Flag::Long("prepare")));
        let one_line =
            lines("parser.add_argument('--setup', help='runs once, unlike --prepare')\n");
        assert!(!declares_flag(&one_line, &hit(1), Flag::Long("prepare")));
        assert!(declares_flag(&one_line, &hit(1), Flag::Long("setup")));
        let commander = lines("program.option('-c, --cheese [type]', 'add cheese', 'brie');\n");
        assert!(declares_flag(&commander, &hit(1), Flag::Long("cheese")));
        let placeholder = lines("program.option('--out FILE', 'where');\n");
        assert!(declares_flag(&placeholder, &hit(1), Flag::Long("out")));
    }

    #[test]
    fn the_other_parsers_forms_declare_their_flags() {
        let declared = [
            ("(long \"output\"", Flag::Long("output")),
            ("p.option(fullName = \"out\")", Flag::Long("out")),
            ("method_option :skip_bundle", Flag::Long("skip-bundle")),
            ("->addOption('force', 'f')", Flag::Long("force")),
            ("  -c|--count)", Flag::Long("count")),
            ("  -c|--count)", Flag::Short('c')),
        ];
        for (text, flag) in declared {
            assert!(declares_flag(&lines(text), &hit(1), flag), "{text}");
        }
        let not = [
            ("  method_option :skip_bundler", Flag::Long("skip-bundle")),
            ("argumentName: \"indent\",", Flag::Long("indent")),
            ("  echo \"-c|--count)\"", Flag::Long("count")),
        ];
        for (text, flag) in not {
            assert!(!declares_flag(&lines(text), &hit(1), flag), "{text}");
        }
    }

    #[test]
    fn a_declaration_in_a_test_file_of_any_convention_defines_nothing() {
        for path in [
            "Tests/ArgumentsTests.swift",
            "src/Humanizer.Tests/Localisation/NumberTests.cs",
            "core/ParserTest.java",
            "spec/thor_spec.rb",
        ] {
            assert!(!may_define(&hit_at(path)), "{path}");
        }
        for path in [
            "Sources/Arguments.swift",
            "src/Latest.cs",
            "src/Contest.java",
        ] {
            assert!(may_define(&hit_at(path)), "{path}");
        }
    }

    #[test]
    fn test_code_is_recognised() {
        let rust = lines(
            "pub fn parse() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn parse_works() {\n        parse();\n    }\n}\n",
        );
        assert!(!in_test_code("src/lib.rs", &rust, 1));
        assert!(in_test_code("src/lib.rs", &rust, 7));
        let py = lines("def parse():\n    pass\n\ndef test_parse():\n    parse()\n");
        assert!(!in_test_code("app/p.py", &py, 2));
        assert!(in_test_code("app/p.py", &py, 5));
    }
}
