//! `interview man`: the manual page (roff), from the command-line types themselves, with a page
//! section for each command (README, "Install").

use crate::error::{Error, Result};

pub(super) fn run() -> Result<i32> {
    let mut command = super::completions::visible_command();
    command.build();
    let command = command.clone().override_usage(synopsis(&command));
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(&mut page)
        .and_then(|()| man.render_name_section(&mut page))
        .and_then(|()| man.render_synopsis_section(&mut page))
        .and_then(|()| man.render_description_section(&mut page))
        .and_then(|()| man.render_options_section(&mut page))
        .and_then(|()| render_commands(&command, &mut page))
        .and_then(|()| man.render_version_section(&mut page))
        .map_err(|e| Error::io("cannot render the manual page", e))?;
    let page = ascii_roff(&String::from_utf8_lossy(&page));
    super::print_bytes(page.as_bytes(), "the manual page")
}

/// The synopsis with each option's value (`[-C <DIR>]`), which the generated one leaves out.
fn synopsis(command: &clap::Command) -> String {
    let mut line = command.get_name().to_string();
    let shown =
        |a: &&clap::Arg| !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str());
    for arg in command.get_arguments().filter(shown) {
        let name = match (arg.get_short(), arg.get_long()) {
            (_, Some(long)) => format!("--{long}"),
            (Some(short), None) => format!("-{short}"),
            (None, None) => continue,
        };
        if arg.get_num_args().is_some_and(|n| n.takes_values()) {
            let value = match arg.get_value_names() {
                Some([value, ..]) => value.to_string(),
                _ => arg.get_id().as_str().to_uppercase(),
            };
            line.push_str(&format!(" [{name} <{value}>]"));
        } else {
            line.push_str(&format!(" [{name}]"));
        }
    }
    line.push_str(" <COMMAND>");
    line
}

/// One `COMMANDS` section: each visible subcommand with its usage, about and options.
fn render_commands(command: &clap::Command, page: &mut Vec<u8>) -> std::io::Result<()> {
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut sub = sub
            .clone()
            .bin_name(format!("interview {}", sub.get_name()));
        let usage = sub.render_usage().to_string();
        let usage = usage.trim_start_matches("Usage: ");
        page.extend_from_slice(format!(".TP\n\\fB{}\\fR\n", roff_escape(usage)).as_bytes());
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            page.extend_from_slice(format!("{}\n", roff_escape(&about.to_string())).as_bytes());
        }
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            let name = match (arg.get_short(), arg.get_long()) {
                (_, Some(long)) => format!("--{long}"),
                (Some(short), None) => format!("-{short}"),
                (None, None) => format!("<{}>", arg.get_id()),
            };
            if name == "--help" {
                continue;
            }
            let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
            let name = match arg.get_value_names() {
                Some([value, ..]) if takes_value && arg.get_long().is_some() => {
                    format!("{name} <{value}>")
                }
                _ if takes_value && arg.get_long().is_some() => {
                    format!("{name} <{}>", arg.get_id().as_str().to_uppercase())
                }
                _ => name,
            };
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            page.extend_from_slice(
                format!(
                    ".RS\n.TP\n\\fB{}\\fR\n{}\n.RE\n",
                    roff_escape(&name),
                    roff_escape(&help)
                )
                .as_bytes(),
            );
        }
    }
    Ok(())
}

/// The page in ASCII: every other character as the glyph name groff knows, so that `man` in
/// any locale (`LANG=C` included) renders it without "can't find special character".
fn ascii_roff(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        match c {
            c if c.is_ascii() => out.push(c),
            '…' => out.push_str("..."),
            '—' => out.push_str("\\(em"),
            '–' => out.push_str("\\(en"),
            '‘' => out.push_str("\\(oq"),
            '’' => out.push_str("\\(cq"),
            '“' => out.push_str("\\(lq"),
            '”' => out.push_str("\\(rq"),
            '→' => out.push_str("\\(->"),
            '←' => out.push_str("\\(<-"),
            '×' => out.push_str("\\(mu"),
            '≤' => out.push_str("\\(<="),
            '≥' => out.push_str("\\(>="),
            '·' => out.push_str("\\(pc"),
            c => out.push_str(&format!("\\[u{:04X}]", c as u32)),
        }
    }
    out
}

/// Text made safe for a roff line: backslashes doubled, a leading `.` or `'` guarded, dashes
/// kept as hyphens.
fn roff_escape(text: &str) -> String {
    text.lines()
        .map(|line| {
            let escaped = line.replace('\\', "\\e").replace('-', "\\-");
            if escaped.starts_with('.') || escaped.starts_with('\'') {
                format!("\\&{escaped}")
            } else {
                escaped
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_page_is_ascii_with_groff_glyph_names() {
        assert_eq!(
            ascii_roff("a … b — c ‘d’ é"),
            "a ... b \\(em c \\(oqd\\(cq \\[u00E9]"
        );
        let mut page = Vec::new();
        clap_mangen::Man::new(Cli::command())
            .render(&mut page)
            .unwrap();
        assert!(ascii_roff(&String::from_utf8_lossy(&page)).is_ascii());
    }
}
