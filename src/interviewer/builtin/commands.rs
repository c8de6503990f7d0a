//! The subcommands a command-line program declares, and the one line that says what each does:
//! a git-style command file (`libexec/tool-init`, its `# Summary:` line), or a declaration in
//! the common forms of argument parsers (commander's and yargs' `.command("x", "…")`, cobra's
//! `Use: "x"` with `Short:`, clap's `SubCommand::with_name("x")` with `.about(…)`, kotlinx-cli's
//! `Subcommand("x", "…")`, thor's `desc "x", "…"`, optparse-applicative's `command "x"` with its
//! `progDesc`, Symfony's `setName('x')` with `setDescription`). A maintainer often answers a
//! wish with the command that already does it.
//!
//! Not for: options (`options.rs`), nor whether a command fits an item (`existing.rs`).

use regex::Regex;

/// Lines below a declaration its description is looked for in.
const HELP_LINES: usize = 6;
/// Lines of a command file its `# Summary:` is looked for in.
const HEADER_LINES: usize = 6;

/// The literal prefix of the lines a declaration is on, for the index's prefilter.
pub(super) const PREFILTER: &str = r#"\.command\(|Use:\s*"|SubCommand::with_name\(|Subcommand\(|^\s*desc\s+["']|\bcommand\s+"|setName\(|\$defaultName\s*="#;

/// What a line declaring a subcommand holds, one of them at least.
const MARKS: &[&str] = &[
    "command",
    "Use:",
    "with_name(",
    "Subcommand(",
    "desc",
    "setName(",
    "$defaultName",
];

/// The patterns that read a declared subcommand and its description.
pub(super) struct Commands {
    /// The declaration: its name is the first word of the first literal.
    declared: Regex,
    /// A description given by keyword, after the declaration.
    keyed: Regex,
}

impl Commands {
    pub(super) fn new() -> Commands {
        let re = |s: &str| Regex::new(s).expect("a fixed pattern");
        Commands {
            declared: re(concat!(
                r#"(?:\.command\(\s*|\bUse:\s*|SubCommand::with_name\(\s*|\bSubcommand\(\s*"#,
                r#"|^\s*desc\s+|\bcommand\s+|->setName\(\s*|\$defaultName\s*=\s*)"#,
                r#"["']([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?:[\s"'<\[]|$)"#,
            )),
            keyed: re(
                r#"(?:\.description\(|\.describe\(|\.about\(|\bShort:|\bprogDesc|setDescription\(|\$defaultDescription\s*=)\s*["']"#,
            ),
        }
    }

    /// The subcommand a line declares (`help` and `version`, which every program has, left out).
    pub(super) fn name(&self, line: &str) -> Option<String> {
        // Most lines the index reads declare a function: a literal test spares them the pattern.
        if !MARKS.iter().any(|m| line.contains(m)) {
            return None;
        }
        let c = self.declared.captures(line)?;
        let name = c[1].to_string();
        (!matches!(name.as_str(), "help" | "version")).then_some(name)
    }

    /// The description of the subcommand declared on line `at` (0-based): the literal after its
    /// name on the same line (`.command("init", "Set it up")`), else one given by keyword in
    /// the lines below, up to the next declaration.
    pub(super) fn help(&self, lines: &[String], at: usize) -> Option<String> {
        let first = lines.get(at)?;
        let c = self.declared.captures(first)?;
        // From the name's opening quote: its literal, then a second one.
        let from = c.get(1)?.start().checked_sub(1)?;
        if let Some(second) = literals(&first[from..]).into_iter().nth(1)
            && second.contains(' ')
        {
            return Some(second);
        }
        for (i, l) in lines.iter().enumerate().skip(at).take(HELP_LINES) {
            if i > at && self.declared.is_match(l) {
                break;
            }
            if let Some(m) = self.keyed.find(l) {
                let quote = l[..m.end()].chars().next_back()?;
                let text: String = l[m.end()..].chars().take_while(|c| *c != quote).collect();
                if text.contains(' ') {
                    return Some(text);
                }
            }
        }
        None
    }
}

/// The string literals of a text (double or single quoted), in order.
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut quote = None;
    for c in text.chars() {
        match quote {
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(String::new());
            }
            Some(q) if c == q => quote = None,
            Some(_) => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
            None => {}
        }
    }
    out
}

/// A git-style command file: `libexec/tool-init` or `bin/tool-init`, no extension but `.sh`;
/// its command's name (`init`) and its line that says what it does (1-based, the summary).
pub(super) fn command_file(rel: &str, text: &str) -> Option<(String, u32, String)> {
    let sub = command_path(rel)?;
    text.lines()
        .take(HEADER_LINES)
        .enumerate()
        .find_map(|(i, l)| {
            let summary = l.strip_prefix("# Summary:")?.trim();
            let line = u32::try_from(i + 1).ok()?;
            (!summary.is_empty()).then(|| (sub.to_string(), line, summary.to_string()))
        })
}

/// The command a path names when it has a command file's shape (`libexec/tool-init`: `init`),
/// read before the file is.
pub(super) fn command_path(rel: &str) -> Option<&str> {
    let mut parts = rel.rsplit('/');
    let file = parts.next()?;
    let dir = parts.next()?;
    if !matches!(dir, "libexec" | "bin") && !rel.contains("/libexec/") {
        return None;
    }
    let stem = file.strip_suffix(".sh").unwrap_or(file);
    let (_, sub) = stem.split_once('-')?;
    (!stem.contains('.') && !sub.is_empty() && !sub.starts_with('-')).then_some(sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_subcommand_is_read_from_the_common_forms_with_what_it_does() {
        let c = Commands::new();
        let cases = [
            (
                "program.command('init <dir>', 'Create a project in dir')",
                "init",
                "Create a project in dir",
            ),
            (
                "class Summary: Subcommand(\"summary\", \"Calculate the summary\") {",
                "summary",
                "Calculate the summary",
            ),
            (
                "  desc \"install NAME\", \"Install a plugin by its name\"",
                "install",
                "Install a plugin by its name",
            ),
        ];
        for (line, name, help) in cases {
            assert_eq!(c.name(line).as_deref(), Some(name), "{line}");
            assert_eq!(c.help(&lines(line), 0).as_deref(), Some(help), "{line}");
        }
        let cobra = "var initCmd = &cobra.Command{\n\tUse:   \"init [path]\",\n\tShort: \"Initialize a Cobra Application\",\n}\n";
        assert_eq!(c.name("\tUse:   \"init [path]\",").as_deref(), Some("init"));
        assert_eq!(
            c.help(&lines(cobra), 1).as_deref(),
            Some("Initialize a Cobra Application")
        );
        let clap = "SubCommand::with_name(\"cache\")\n    .about(\"Modify the syntax-definition and theme cache\")\n";
        assert_eq!(
            c.help(&lines(clap), 0).as_deref(),
            Some("Modify the syntax-definition and theme cache")
        );
        // Not a subcommand: a process started, a message, every program's help (a comment is
        // no declaration either: the index skips comment lines).
        assert_eq!(c.name("Command::new(\"less\")"), None);
        assert_eq!(c.name("echo \"run the command \\\"init\\\" first\""), None);
        assert_eq!(c.name("program.command('help')"), None);
    }

    #[test]
    fn a_command_file_is_named_by_its_file_and_said_by_its_summary() {
        let init = "#!/usr/bin/env bash\n# Summary: Configure the shell environment for tool\n# Usage: tool init -\n";
        assert_eq!(
            command_file("libexec/tool-init", init),
            Some((
                "init".into(),
                2,
                "Configure the shell environment for tool".into()
            ))
        );
        assert_eq!(command_file("src/tool-init", init), None);
        assert_eq!(command_file("libexec/tool", init), None);
        assert_eq!(command_file("libexec/tool-init", "#!/bin/sh\necho\n"), None);
    }
}
