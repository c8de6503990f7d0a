//! The options a command-line program declares, in the common forms of argument parsers: the
//! long name a line declares (`.long("x")`, `Arg::new`, a project's `NAME::switch("x")`,
//! `add_argument("--x")`, `@click.option`, `.option("-x, --xx")`, cobra's `Flags().StringP`,
//! picocli's and jcommander's `names = "--x"`, optparse-applicative's `long "x"`, kotlinx-cli's
//! `fullName = "x"`, thor's `method_option :x`, Symfony's `addOption('x')`, a shell `case` arm
//! `-x|--xx)`), and the help text beside it (`help = "…"`, `description:`, `desc:`,
//! `describe:`, a constant named by `.help(SHORT)`, the usage line that lists a shell's flag).
//!
//! Not for: where a flag named by an item is defined (`defs.rs` checks a declaration around a
//! line found), nor ranking (`nearest.rs`).

use regex::Regex;

/// Lines a flag's help is looked for in, from its declaration.
const HELP_LINES: usize = 10;
/// Lines above a declaration looked through for the constant its help names (within its
/// function: a long help of its own may stand between them).
const CONSTANT_LINES: usize = 80;

/// What starts the next declaration: a flag's help is read up to there.
const STARTS: &[&str] = &[
    ".arg(",
    "Arg::",
    ".long(",
    "add_argument(",
    ".option(",
    "Flags()",
    "::switch(",
    "::flag(",
    "@Option(",
    "@Parameter(",
    "method_option ",
    "class_option ",
    "addOption(",
    "InputOption(",
    "long \"",
    "fullName",
];

/// The literal prefix of the lines `Declarations` reads beyond those the index already reads
/// (`--x`, `long`, `.option(`, `Flags()`), for the index's prefilter.
pub(super) const PREFILTER: &str = r"::switch\(|::flag\(|fullName|longName|long_name|method_option|class_option|addOption\(|InputOption\(";

/// The patterns that read a declared option's name.
pub(super) struct Declarations {
    /// A string or keyword that gives the long name, dashes or not.
    call: Regex,
    /// Thor's `method_option :skip_bundle` (its flag is `--skip-bundle`).
    symbol: Regex,
    /// A shell `case` arm: `-c|--count)`, `--count|-c)`.
    arm: Regex,
    /// A help given by keyword: the literal's opening quote ends the match.
    keyed: Regex,
    /// A help given by a constant's name: `.help(SHORT)`.
    named: Regex,
}

impl Declarations {
    pub(super) fn new() -> Declarations {
        let re = |s: &str| Regex::new(s).expect("a fixed pattern");
        Declarations {
            call: re(concat!(
                r#"(?:["'`](?:-[A-Za-z],\s*)?--|\.long\(\s*"|\blong(?:\s*=\s*|\s+)"|\.option\(\s*['"]"#,
                r#"|Flags\(\)\.\w+\(\s*(?:&[\w.]+,\s*)?"|::(?:switch|flag)\(\s*""#,
                r#"|\boption\([^)]*\b(?:fullName|longName|long_name)\s*=\s*""#,
                r#"|\b(?:addOption|InputOption)\(\s*['"](?:--)?)"#,
                r#"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:[=\s"'`,<\[]|$)"#,
            )),
            symbol: re(r"\b(?:method_option|class_option)\s+:([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\b"),
            arm: re(
                r"^\s*(?:-[A-Za-z]\s*\|\s*)?--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\s*(?:\|\s*-[A-Za-z]\s*)?\)",
            ),
            keyed: re(
                r#"\b(?:help|description|desc|describe|HelpText)(?:\s*(?:=>|[:=(])\s*|\s+)\{?\s*["']"#,
            ),
            named: re(r"\bhelp\(\s*([A-Z][A-Z0-9_]*)\s*\)"),
        }
    }

    /// The long options a line declares, as `--name` (`--help` and `--version`, which every
    /// program has, left out).
    pub(super) fn names(&self, line: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .call
            .captures_iter(line)
            .map(|c| c[1].to_string())
            .collect();
        out.extend(
            self.symbol
                .captures_iter(line)
                .map(|c| c[1].replace('_', "-")),
        );
        out.extend(self.arm.captures(line).map(|c| c[1].to_string()));
        out.retain(|n| !matches!(n.as_str(), "help" | "version"));
        out.dedup();
        out.into_iter().map(|n| format!("--{n}")).collect()
    }

    /// The help of the option declared on line `at` (0-based) of a file, its first sentence
    /// as written: given by keyword, by a constant's name, as a string of words in the
    /// declaration; for a shell's `case` arm, the usage line that lists it.
    pub(super) fn help(&self, lines: &[String], at: usize) -> Option<String> {
        let first = lines.get(at)?;
        if let Some(c) = self.arm.captures(first) {
            return usage_line(lines, &c[1]);
        }
        let span: Vec<&str> = lines
            .iter()
            .skip(at)
            .take(HELP_LINES)
            .enumerate()
            .take_while(|(i, l)| *i == 0 || !starts_another(l))
            .map(|(_, l)| l.as_str())
            .collect();
        let text = span.join("\n");
        if let Some(m) = self.keyed.find(&text) {
            let quote = text[..m.end()].chars().next_back()?;
            let help = literal(&text[m.end()..], quote);
            if help.contains(' ') {
                return Some(help.trim().to_string());
            }
        }
        if let Some(c) = self.named.captures(&text) {
            // The constant is the help: when it is not found above, no other string is.
            return constant(lines, at, &c[1]);
        }
        span.iter()
            .flat_map(|l| strings(l))
            .find(|s| s.contains(' ') && !s.starts_with('-'))
    }
}

/// Whether a line is a shell `case` arm matching `flag` as written (`-c|--count)`): how a script declares
/// its options.
pub(super) fn case_arm(line: &str, flag: &str) -> bool {
    let Some(arm) = line.trim().strip_suffix(')') else {
        return false;
    };
    let parts: Vec<&str> = arm.split('|').map(str::trim).collect();
    parts
        .iter()
        .all(|p| p.starts_with('-') && !p.contains([' ', '"', '(']))
        && parts.contains(&flag)
}

/// Whether a declaration's text, its spaces removed, declares `--name` the way thor does
/// (`method_option :skip_bundle` declares `--skip-bundle`).
pub(super) fn thor_declares(squeezed: &str, name: &str) -> bool {
    let symbol = name.replace('-', "_");
    ["method_option:", "class_option:"].iter().any(|m| {
        squeezed
            .match_indices(&format!("{m}{symbol}"))
            .any(|(i, p)| {
                let after = squeezed[i + p.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
    })
}

/// Whether a string literal of `line` declares `flag` (`--all`, `-a`) as option parsers of
/// every language take it, whatever call holds it: the flag alone (`opts.on('-a', '--all')`,
/// `option(opts, '--auto-correct')`, `["--help"]`), or a getopt spec naming it among its
/// alternatives (`'type-add=s'`, `"help|h"`, `'color!'`). A short flag alone counts only beside
/// a long one (`"-c"` alone is as often a shell's); a literal handed to another program
/// (`.arg("--x")`, `exec`, `subprocess`, `command.append("--x")`) declares nothing.
pub(super) fn literal_declares(line: &str, flag: &str) -> bool {
    const HANDED: &[&str] = &[
        ".arg(",
        ".args(",
        "command::new",
        "exec",
        "spawn",
        "system(",
        "subprocess",
        "popen",
        "parse(",
        "parseargs(",
        "parse_args(",
        "parse!(",
        "push(",
        "append(",
        "extend(",
        "unshift(",
        "perform(",
        "<< ",
    ];
    let lower = line.to_lowercase();
    if HANDED.iter().any(|m| lower.contains(m)) || gives_value(line, flag) {
        return false;
    }
    let bare = flag.trim_start_matches('-');
    let short = !flag.starts_with("--");
    let lits = strings(line);
    let long_beside = || {
        lits.iter()
            .any(|l| l.len() > 3 && l.starts_with("--") && spec_word(&l[2..]))
    };
    lits.iter().filter(|lit| token(line, lit)).any(|lit| {
        if lit == flag {
            return !short || long_beside();
        }
        // A getopt spec: alternatives, then a type (`=s`, `:i`, `!`, `+`).
        let (names, kind) = match lit.find(['=', ':', '!', '+']) {
            Some(i) => lit.split_at(i),
            None => (lit.as_str(), ""),
        };
        let alternatives: Vec<&str> = names
            .split('|')
            .map(|a| a.trim_start_matches('-'))
            .collect();
        let spec = (alternatives.len() > 1 || getopt_type(kind))
            && (kind.is_empty() || getopt_type(kind))
            && alternatives.iter().all(|a| spec_word(a));
        spec && alternatives.contains(&bare) && (!short || alternatives.iter().any(|a| a.len() > 1))
    })
}

/// Whether a literal names `dashed` (`--xx`, `-x`) as a usage does, flags and their placeholders
/// only (`"-x, --xx <v>"`, `"--xx/--no-xx"`, `"-c, --cheese [type]"`, `"--out FILE"`), never as
/// prose that mentions a flag ("not every time as would happen with the --prepare option").
pub(super) fn usage_names(lit: &str, dashed: &str) -> bool {
    usage(lit)
        && lit
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ',' | '|' | '/' | '=' | '<' | '[' | ']')
            })
            .any(|w| w == dashed)
}

fn usage(lit: &str) -> bool {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in lit.chars() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | '/' | '='))
        .all(|w| {
            w.is_empty()
                || w.starts_with('-')
                || w == "..."
                || w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
}

/// Whether the literal `lit` stands in `line` as a token of code, between punctuation (an
/// argument, a list's item, a hash key, `case "--x":`), not as a word of prose inside a longer
/// string ("consider using the '--warmup' option").
fn token(line: &str, lit: &str) -> bool {
    quoted(line, lit).any(|(before, after)| {
        let (before, after) = (before.trim_end(), after.trim_start());
        let opens = before.is_empty()
            || before.ends_with(['(', '[', '{', ',', '=', '>', ':', ';', '|'])
            || before.ends_with("case")
            || before.ends_with("when");
        let closes = after.is_empty()
            || after.starts_with([',', ')', ']', '}', ';', ':', '=', '|'])
            || after.starts_with("then");
        opens && closes
    })
}

/// Each place `line` quotes `lit` whole, in either quote: the text before the opening quote and
/// after the closing one.
fn quoted<'l>(line: &'l str, lit: &str) -> impl Iterator<Item = (&'l str, &'l str)> {
    ["'", "\""].into_iter().flat_map(move |q| {
        let written = format!("{q}{lit}{q}");
        let len = written.len();
        line.match_indices(&written)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
            .into_iter()
            .map(move |i| (&line[..i], &line[i + len..]))
    })
}

/// Whether `kind` is a getopt spec's type: `=s`, `:i`, `=s@`, `=i{1,2}`, `!`, `+`, `:+`, `:5`
/// (not `=never`, a value written in prose).
fn getopt_type(kind: &str) -> bool {
    let mut chars = kind.chars();
    match chars.next() {
        Some('!' | '+') => chars.next().is_none(),
        Some('=' | ':') => {
            let rest = chars.as_str();
            let typed = rest
                .strip_prefix(['s', 'i', 'f', 'o'])
                .map(|r| r.trim_start_matches(['@', '%']))
                .is_some_and(|r| r.is_empty() || (r.starts_with('{') && r.ends_with('}')));
            typed || rest == "+" || (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
        }
        _ => false,
    }
}

/// Whether the line writes `flag` followed by its value, as a command line being built does
/// (`'--root', rootDir,`, `"--version", config.version`): a value, not a declaration's
/// description (`'--all', 'Show all'`) or type (`'--count', Integer`).
fn gives_value(line: &str, flag: &str) -> bool {
    quoted(line, flag).any(|(_, after)| {
        let Some(next) = after.trim_start().strip_prefix(',') else {
            return false;
        };
        let value: String = next
            .trim_start()
            .chars()
            .take_while(|c| !matches!(c, ',' | ')' | ']' | '}'))
            .collect();
        value.starts_with(|c: char| c.is_lowercase() || matches!(c, '$' | '`' | '@'))
            && !value.contains(['=', ':', '('])
    })
}

/// A word an option's name may be: letters, digits, `-` and `_`, not empty.
fn spec_word(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A literal's text up to its closing `quote`, escapes read (`\"tab\"` is `"tab"`).
fn literal(rest: &str, quote: char) -> String {
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c if c == quote => break,
            c => out.push(c),
        }
    }
    out
}

/// Whether a line starts another declaration (or another function), ending a flag's help.
fn starts_another(line: &str) -> bool {
    STARTS.iter().any(|m| line.contains(m)) || starts_function(line)
}

fn starts_function(line: &str) -> bool {
    let t = line.trim_start();
    ["fn ", "pub fn ", "def ", "func ", "function "]
        .iter()
        .any(|k| t.starts_with(k))
}

/// The string a constant holds, declared in the lines above `at` within its function
/// (`const SHORT: &str = "…";`).
fn constant(lines: &[String], at: usize, name: &str) -> Option<String> {
    let from = at.saturating_sub(CONSTANT_LINES);
    let above = &lines[from..at];
    let top = above.iter().rposition(|l| starts_function(l)).unwrap_or(0);
    above[top..].iter().rev().find_map(|l| {
        let (left, right) = l.split_once('=')?;
        let declared = left.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        if !declared.into_iter().any(|w| w == name) {
            return None;
        }
        strings(right).into_iter().find(|s| s.contains(' '))
    })
}

/// The help a usage text gives the long option `name`: the line listing it first
/// (`  -c, --count    Count test cases`), its text after two spaces.
fn usage_line(lines: &[String], name: &str) -> Option<String> {
    let flag = format!("--{name}");
    lines.iter().find_map(|l| {
        let t = l.trim_start();
        let t = match t.strip_prefix('-') {
            Some(r) if r.chars().nth(1) == Some(',') => r[2..].trim_start(),
            _ => t,
        };
        let rest = t.strip_prefix(flag.as_str())?;
        if rest.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_') {
            return None;
        }
        let (_, help) = rest.split_once("  ")?;
        let help = help.trim();
        (help.contains(' ') && !help.starts_with(['-', '|', ')'])).then(|| help.to_string())
    })
}

/// The string literals of a line (double or single quoted).
pub(super) fn strings(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut quote = None;
    let mut current = String::new();
    for c in line.chars() {
        match quote {
            None if c == '"' || c == '\'' => quote = Some(c),
            Some(q) if c == q => {
                out.push(std::mem::take(&mut current));
                quote = None;
            }
            Some(_) => current.push(c),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_declares_a_flag_as_parsers_take_it_not_as_a_command_line_passes_it() {
        for (line, flag) in [
            ("  opts.on('-a', '--all', 'Show all') do", "--all"),
            ("  opts.on('-a', '--all', 'Show all') do", "-a"),
            ("help_switches = [\"--help\"]", "--help"),
            ("    'type-add=s' => \\&add,", "--type-add"),
            ("    'help|h',", "-h"),
            ("    'color!' => \\$color,", "--color"),
            ("  case \"--reverse\":", "--reverse"),
        ] {
            assert!(literal_declares(line, flag), "{line} {flag}");
        }
        for (line, flag) in [
            ("  '--root', rootDir,", "--root"),
            ("  cmd.arg(\"--color\")", "--color"),
            ("  [\"sh\", \"-c\", script]", "-c"),
            (
                "  or set '--paging=never' in the configuration file.",
                "--paging",
            ),
            ("  parser.parse(['--help'])", "--help"),
            ("  puts 'see --all'", "--all"),
            (
                "  after the first run. You should consider using the '--warmup' option to fill \\",
                "--warmup",
            ),
            (
                "  It might help to use the '--warmup' or '--prepare' options.\"",
                "--prepare",
            ),
            (
                "    options.unshift('--auto-correct') if autocorrect",
                "--auto-correct",
            ),
            ("    perform('--autocorrect')", "--autocorrect"),
            ("        command.append('--aosp')", "--aosp"),
            ("    args.extend(['--check', path])", "--check"),
        ] {
            assert!(!literal_declares(line, flag), "{line} {flag}");
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_common_declaration_forms_give_their_long_name() {
        let d = Declarations::new();
        let one = |line: &str| d.names(line);
        let cases = [
            (
                r#"    let arg = RGArg::switch("no-ignore-vcs")"#,
                "--no-ignore-vcs",
            ),
            (
                r#"    let arg = RGArg::flag("after-context", "NUM")"#,
                "--after-context",
            ),
            (
                r#"  parser.add_argument("--dry-run", help="only print")"#,
                "--dry-run",
            ),
            (
                r#"@click.option("--count", help="Number of greetings.")"#,
                "--count",
            ),
            (r#"  .option("-x, --extended", "desc")"#, "--extended"),
            (
                r#"  cmd.Flags().StringVarP(&out, "output", "o", "", "where")"#,
                "--output",
            ),
            (r#"  .option("depth", { describe: "how deep" })"#, "--depth"),
            (
                r#"  method_option :skip_bundle, type: :boolean, desc: "Skip it""#,
                "--skip-bundle",
            ),
            (
                r#"  @Option(names = {"-v", "--verbose"}, description = "Talk")"#,
                "--verbose",
            ),
            (
                r#"  @Parameter(names = "--threads", description = "How many")"#,
                "--threads",
            ),
            (
                r#"  <$> strOption (long "output" <> help "Where to write")"#,
                "--output",
            ),
            (
                r#"  ->addOption('force', 'f', InputOption::VALUE_NONE, 'Force it')"#,
                "--force",
            ),
            (
                r#"  new InputOption('--ansi', '', InputOption::VALUE_NONE, 'Force ANSI')"#,
                "--ansi",
            ),
            (
                r#"  val out by parser.option(ArgType.String, fullName = "output-file")"#,
                "--output-file",
            ),
            ("  -c|--count)", "--count"),
            ("  --jobs | -j)", "--jobs"),
        ];
        for (line, name) in cases {
            assert_eq!(one(line), vec![name.to_string()], "{line}");
        }
        // A long option's mention in prose or a usage text is not its declaration.
        assert!(one("  echo \"use --count to count\"").is_empty());
        assert!(one("  String fullName = \"john\";").is_empty());
        // A call handing a declared name to a checker (a test's `argumentName: "x"`) declares
        // nothing.
        assert!(one(r#"        argumentName: "indent","#).is_empty());
        assert!(one("    -c, --count    Count test cases").is_empty());
        assert!(one(r#"  .option('-h, --help', 'show help')"#).is_empty());
    }

    #[test]
    fn an_options_help_is_read_where_its_form_puts_it() {
        let d = Declarations::new();
        let help = |text: &str, at: usize| d.help(&lines(text), at);
        assert_eq!(
            help(
                "  method_option :force, :type => :boolean, :desc => \"Overwrite files\"\n",
                0
            )
            .as_deref(),
            Some("Overwrite files")
        );
        assert_eq!(
            help(
                "  (long \"output\"\n  <> metavar \"FILE\"\n  <> help \"Write to FILE\")\n",
                0
            )
            .as_deref(),
            Some("Write to FILE")
        );
        assert_eq!(
            help(
                "  .option('depth', {\n    alias: 'd',\n    describe: 'How deep to go',\n  })\n",
                0
            )
            .as_deref(),
            Some("How deep to go")
        );
        // A help named by a constant is the constant's text, not the next option's.
        let rg = concat!(
            "fn flag_binary(args: &mut Vec<RGArg>) {\n",
            "    const SHORT: &str = \"Search binary files.\";\n",
            "    const LONG: &str = long!(\"Search them = \\\"all\\\" of them\");\n",
            "    let arg = RGArg::switch(\"binary\")\n",
            "        .help(SHORT);\n",
            "    args.push(arg);\n",
            "}\n",
            "fn flag_color(args: &mut Vec<RGArg>) {\n",
            "    const SHORT: &str = \"When to use color.\";\n",
        );
        assert_eq!(help(rg, 3).as_deref(), Some("Search binary files."));
        // Not the constant of another function.
        let before = format!("fn flag_a() {{\n    const SHORT: &str = \"Search a.\";\n}}\n{rg}");
        let without = before.replace("    const SHORT: &str = \"Search binary files.\";\n", "");
        assert_eq!(help(&without, 5), None);
        // An escaped quote is part of the help.
        assert_eq!(
            help(
                "  .option(\"indent\", {\n    help: \"Spaces, or \\\"tab\\\" for tabs\"\n",
                0
            )
            .as_deref(),
            Some("Spaces, or \"tab\" for tabs")
        );
        // A shell's option: the usage line that lists it, not a message in its arm.
        let bats = concat!(
            "usage() {\n",
            "  cat <<EOF\n",
            "  -c, --count    Count test cases without running any tests\n",
            "EOF\n",
            "}\n",
            "case \"$1\" in\n",
            "  -c|--count)\n",
            "    abort \"no count given\"\n",
            "    ;;\n",
        );
        assert_eq!(
            help(bats, 6).as_deref(),
            Some("Count test cases without running any tests")
        );
        // No help at all: nothing, not the next declaration's.
        assert_eq!(help("  -x|--extra)\n    shift\n", 0), None);
    }
}
