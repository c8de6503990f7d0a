//! What a maintainer asks first of a bug report they cannot see happen: the exact steps and
//! their output, and what the program read when it ran — its configuration file, its own
//! environment variables, its diagnostic — each named where the repository defines it; for a
//! setup problem (installing, `PATH`, a shell's start-up file), the README's setup steps.

use super::*;
use crate::interviewer::builtin::nearest::{Def, DefKind};

/// "The exact command you ran and its output? … reads `X` (path:line): set, and to what?"
/// Nothing when the item shows what was run and the repository defines nothing it reads.
pub(super) fn steps(r: &Reading) -> Option<Finding> {
    let setup = &r.setup;
    let crash = crashed(r);
    let run = crash.clone().or_else(|| run_question(r));
    let guide = setup.guide.as_ref().map(|g| {
        format!(
            "Set up as {}:{} (\"{}\") says?",
            g.path,
            g.line,
            super::super::text::one_line(&g.name, 50)
        )
    });
    let trace = setup
        .trace
        .as_ref()
        .filter(|_| crash.is_none())
        .map(|t| match t.kind {
            DefKind::EnvVar => format!("With `{}=1` ({}:{}), its trace?", t.name, t.path, t.line),
            _ => format!("With `{}` ({}:{}), its output?", t.name, t.path, t.line),
        });
    let limit = crate::protocol::limits::MAX_QUESTION_TEXT_CHARS;
    // The most of what it reads that fits, the steps and the diagnostic kept.
    let listed = |defs: &[Def], n: usize| -> Vec<String> {
        defs.iter()
            .take(n)
            .map(|d| format!("{} at {}:{}", d.named(), d.path, d.line))
            .collect()
    };
    // The most names that fit, one configuration and the variables before a second one.
    // A variable whose value the item gives is not asked again.
    let env: Vec<&Def> = setup
        .env
        .iter()
        .filter(|d| !r.item.gives_value(&d.name))
        .collect();
    let mut sizes: Vec<(usize, usize)> = (0..=setup.config.len())
        .flat_map(|c| (0..=env.len()).map(move |e| (c, e)))
        .collect();
    sizes.sort_by_key(|&(c, e)| std::cmp::Reverse((c + e, c.min(1), e)));
    // A report that quotes its configuration has said what is in it: whether another file
    // (or the command line) also sets something is what is left.
    let quoted = crate::interviewer::builtin::outcome::configuration_quoted(&r.item);
    let question = sizes.into_iter().find_map(|(c, e)| {
        let config = (c > 0).then(|| {
            let ask = if quoted {
                "only the one quoted, or another too?"
            } else {
                "which, with what in it?"
            };
            format!(
                "Config file ({}): {ask}",
                listed(&setup.config, c).join(", ")
            )
        });
        let env = (e > 0).then(|| {
            let named: Vec<String> = env.iter().take(e).map(|d| d.shown()).collect();
            format!("{}: set, to what?", named.join(", "))
        });
        let parts: Vec<&String> = [&run, &guide, &config, &env, &trace]
            .into_iter()
            .flatten()
            .collect();
        let text = parts
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        (text.chars().count() <= limit).then_some(text)
    });
    // Else the steps and the README's, the diagnostic left out.
    let question = question.or_else(|| {
        let text = [&run, &guide]
            .into_iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        (text.chars().count() <= limit).then_some(text)
    })?;
    // What the item shows was run: asked only what the program read, where it says so.
    let reads = !setup.config.is_empty() || !env.is_empty() || setup.guide.is_some();
    if question.is_empty() || (run.is_none() && !reads) {
        return None;
    }
    // A crash's input and platform are what a maintainer needs first, as are a setup's steps.
    let severity = if setup.setup_problem || crash.is_some() {
        10
    } else {
        8
    };
    Some(Finding::new("exact_steps", severity, question).titled("How to reproduce it"))
}

/// A program that died (the system's "Segmentation fault", "Illegal instruction") with no trace
/// shown: on which input, as its own diagnostic shows, and — unless the item says — on which
/// platform; a native crash depends on both.
fn crashed(r: &Reading) -> Option<String> {
    let item = &r.item;
    let traced = item.code_lower().contains("panicked at")
        || item.all.iter().any(|(_, l, _)| {
            let l = l.trim_start().to_lowercase();
            l.starts_with("at ") || l.starts_with("frame #") || l.starts_with("thread ")
        });
    if !crate::interviewer::builtin::outcome::crash_shown(item) || traced {
        return None;
    }
    let which = match &r.setup.trace {
        Some(t) if t.kind == DefKind::Flag => format!(
            "On which input does it crash (`{}` at {}:{} shows each)?",
            t.name, t.path, t.line
        ),
        Some(t) => format!(
            "On which input does it crash (`{}=1` at {}:{} shows each)?",
            t.name, t.path, t.line
        ),
        None => "On which input does it crash?".to_string(),
    };
    let platform = if crate::interviewer::builtin::outcome::platform_named(item) {
        ""
    } else {
        " Which OS and version?"
    };
    Some(format!("{which}{platform}"))
}

/// What it asks of what was run: the commands in order for a setup problem, else — when the
/// item shows nothing it ran — the command line of a program or the code of a library.
fn run_question(r: &Reading) -> Option<String> {
    let run = if r.setup.setup_problem {
        "The exact commands you ran, in order, and what each printed?"
    } else if shows_steps(r) {
        return untraced_failure(&r.item);
    } else if r.setup.program {
        "What exactly did you run, and its whole output?"
    } else if about_types(r) {
        // A type or an API's shape shows itself in the code and the checker's message, never
        // in a run.
        "The smallest code that shows it, and what the compiler or type checker says of it?"
    } else {
        // A library is run from its user's code.
        "The smallest code that shows it, and its whole output (a stack trace too)?"
    };
    Some(run.to_string())
}

/// A report (a bug, or a request for help about what it sees) whose code is a fragment: a
/// block of source, not a run's output, in which a line leaves code out (`...`, `// ...`,
/// `# …`). What a maintainer who cannot run a fragment decides first is whether the whole
/// program is needed. Never asked where another block shows the whole of its code.
pub(in crate::interviewer::builtin) fn fragment(r: &Reading) -> Option<Finding> {
    let blocks = blocks(&r.item);
    let elided = |b: &[(u32, &str)]| b.iter().find(|(_, l)| elides(l)).map(|(n, _)| *n);
    let source: Vec<&Vec<(u32, &str)>> = blocks.iter().filter(|b| !is_output(b)).collect();
    let (start, gap) = source
        .iter()
        .find_map(|b| Some((b.first()?.0, elided(b)?)))?;
    // A second block of source, whole, is the program itself.
    if source.iter().any(|b| b.len() >= 3 && elided(b).is_none()) {
        return None;
    }
    let question = format!(
        "The code at line {start} is a fragment (line {gap} leaves code out). Is a complete \
         program that shows it, with its output, needed before deciding, or is it clear as given?"
    );
    Some(
        Finding::new("complete_code", 8, question)
            .titled("A complete reproduction")
            .options(&[
                ("A complete program first", "complete_program"),
                ("Clear as given", "clear"),
            ]),
    )
}

/// The item's code blocks: the lines between each pair of fences, with their numbers.
fn blocks<'a>(item: &crate::interviewer::builtin::item::Item<'a>) -> Vec<Vec<(u32, &'a str)>> {
    let mut out: Vec<Vec<(u32, &str)>> = Vec::new();
    let mut inside = false;
    for (n, line, code) in &item.all {
        let t = line.trim_start();
        if !code {
            inside = false;
        } else if t.starts_with("```") || t.starts_with("~~~") {
            inside = !inside;
            if inside {
                out.push(Vec::new());
            }
        } else if let Some(b) = out.last_mut().filter(|_| inside) {
            b.push((*n, *line));
        }
    }
    out
}

/// A line that only stands for code left out: `...`, `…`, `// ...`, `# ...`, `/* ... */`.
fn elides(line: &str) -> bool {
    let t = line.trim();
    let t = ["//", "#", "--", "/*"]
        .iter()
        .find_map(|c| t.strip_prefix(c))
        .unwrap_or(t)
        .trim_end_matches("*/")
        .trim();
    matches!(t, "..." | "…" | "...." | "etc" | "etc.")
}

/// Whether a block shows a run, not source: a shell prompt (`$ tool`, `user@host:~$ tool`,
/// `> tool`), a stack frame (`at x(File.java:3)`, `from x.rb:5:in`, `File "x.py"`).
fn is_output(block: &[(u32, &str)]) -> bool {
    block.iter().any(|(_, l)| {
        let t = l.trim_start();
        let head: String = t.chars().take(60).collect();
        [
            "$ ",
            "> ",
            "› ",
            "% ",
            "PS ",
            "C:\\",
            "Traceback",
            "File \"",
        ]
        .iter()
        .any(|p| t.starts_with(p))
            || ((t.starts_with("at ") || t.starts_with("from ")) && t.contains(':'))
            || head.split_whitespace().next().is_some_and(|w| {
                w.len() > 1 && (w.ends_with('$') || w.ends_with('#')) && w.contains(['@', ':', '~'])
            })
    })
}

/// Words that say something was thrown: where, is what a trace shows.
const THROWN: &[&str] = &[
    "exception",
    "throws",
    "thrown",
    "panic",
    "panics",
    "crash",
    "crashes",
    "segfault",
];

/// What shows a trace, or says one is given.
const TRACED: &[&str] = &[
    "traceback",
    "stack trace",
    "stacktrace",
    "backtrace",
    "panicked at",
    "exception in thread",
];

/// A report that shows what was run and says it threw (an exception, a panic, a crash) but
/// shows no trace: where it was thrown is what a maintainer who cannot see it asks for first.
fn untraced_failure(item: &crate::interviewer::builtin::item::Item) -> Option<String> {
    let has = crate::interviewer::builtin::item::has_word;
    let traced = item.all.iter().any(|(_, line, code)| {
        let l = line.to_lowercase();
        TRACED.iter().any(|t| l.contains(t))
            // A frame of a JVM or JavaScript trace: `at pkg.Class.method(File.java:12)`.
            || (*code && l.trim_start().starts_with("at ") && l.contains(':'))
    });
    if traced {
        return None;
    }
    // The words up to the one that says it threw ("fails with a null pointer exception"), on
    // the first prose line that says so and not that nothing was thrown.
    let (n, words, at) = item.lines.iter().find_map(|(n, line)| {
        if line.trim_start().starts_with('#') {
            return None;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| {
            let w = w.to_lowercase();
            THROWN.iter().any(|t| has(&w, t))
        })?;
        let denied = words[at.saturating_sub(3)..at].iter().any(|w| {
            let w = w.to_lowercase();
            ["no", "not", "never", "without"].contains(&w.as_str()) || w.ends_with("n't")
        });
        (!denied).then_some((n, words, at))
    })?;
    let quote = words[at.saturating_sub(5)..=at]
        .join(" ")
        .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '`')
        .to_string();
    Some(format!(
        "The whole stack trace? Line {n} says \"{quote}\", and the item shows no trace."
    ))
}

/// Whether the item is about types or an API's shape (TypeScript's types, generics, a
/// signature, what the compiler infers) or is a pull request: nothing to trace at run time.
fn about_types(r: &Reading) -> bool {
    r.item.mentions(&[
        "typescript",
        "type error",
        "type errors",
        "typing",
        "typings",
        "d.ts",
        "generic",
        "generics",
        "type parameter",
        "type inference",
        "inferred",
        "infers",
        "signature",
        "overload",
        "compile error",
        "compiler error",
        "does not compile",
        "doesn't compile",
        "type-check",
        "typecheck",
        "this pr",
        "this pull request",
    ])
}

/// Whether the item shows what was run: a code block, a reproducer or steps of its own.
fn shows_steps(r: &Reading) -> bool {
    r.item.all.iter().any(|(_, _, code)| *code)
        || r.item.has_heading(&["reproduc", "steps"])
        || r.item.mentions(&[
            "reproducer",
            "repro",
            "minimal example",
            "example repository",
            "to demonstrate",
            "test program",
            "test case",
            "steps to reproduce",
        ])
}

/// A runtime's error, found as the code it names (`raised.rs`): the places that make that
/// call, each in its function, asked which one fails; the one place **recommended**.
pub(super) fn raised_at(
    item: &crate::interviewer::builtin::item::Item,
    raised: &crate::interviewer::builtin::raised::Raised,
    msg: &str,
    topic: &str,
) -> Finding {
    let places: Vec<String> = raised.at.iter().map(Hit::cite).collect();
    let one = raised.at.len() == 1;
    // A stack trace that names one of them has answered which.
    let traced = (!one).then(|| traced_at(item, raised.at.iter())).flatten();
    let which = match traced {
        _ if one => {
            "Is that where it fails? Recommended: yes, no other code makes that call.".to_string()
        }
        Some((n, h)) => format!(
            "Line {n}'s stack trace names {}: fix it there? Recommended: yes.",
            h.cite()
        ),
        None => "Which one fails?".to_string(),
    };
    let question = format!(
        "\"{msg}\" is {}'s error for `{}` here: {}. {which}",
        raised.language,
        raised.key,
        places.join(", "),
    );
    let mut options: Vec<(String, String)> = raised
        .at
        .iter()
        .map(|h| (h.cite(), slug(&h.cite())))
        .collect();
    options.push((
        "Elsewhere (a dependency, their own code)".into(),
        "elsewhere".into(),
    ));
    options.push(("Don't know".into(), "unknown".into()));
    let mut f = Finding::new(topic, 7, question)
        .titled(format!("Where \"{msg}\" comes from"))
        .choices(options);
    if one {
        f = f.recommend(&slug(&raised.at[0].cite()));
    } else if let Some((_, h)) = traced {
        f = f.recommend(&slug(&h.cite()));
    }
    f
}

/// The place a stack trace in the item names (`index.js:298`, `at … (src/cli.js:12:5)`): by
/// its path, else by its file's name, with its line. The item's line and the place.
pub(super) fn traced_at<'h>(
    item: &super::super::item::Item,
    places: impl Iterator<Item = &'h Hit> + Clone,
) -> Option<(u32, &'h Hit)> {
    let names = |line: &str, at: &str| {
        line.match_indices(at).any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let after = line[i + at.len()..].chars().next();
            !after.is_some_and(|c| c.is_ascii_digit())
                && !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        })
    };
    let file = |h: &Hit| h.path.rsplit('/').next().unwrap_or(&h.path).to_string();
    let by = |short: bool| {
        item.all.iter().find_map(|(n, line, _)| {
            places.clone().find_map(|h| {
                let path = if short { file(h) } else { h.path.clone() };
                names(line, &format!("{path}:{}", h.line)).then_some((*n, h))
            })
        })
    };
    by(false).or_else(|| by(true))
}

/// The one message of places that are one bundle's translations (`Messages.properties:2` and
/// `Messages_en.properties:2`, `strings_fr_CA.json:4`): the same line of files in one folder,
/// with one extension, whose names differ only by a locale (`_en`, `_pt_BR`). The base file's,
/// else the shortest name's.
pub(super) fn one_bundle<'h>(code: &[&'h Hit]) -> Option<&'h Hit> {
    let split = |h: &Hit| {
        let (dir, file) = h.path.rsplit_once('/').unwrap_or(("", &h.path));
        let (stem, ext) = file.rsplit_once('.').unwrap_or((file, ""));
        let mut base = stem;
        for _ in 0..2 {
            if let Some((b, part)) = base.rsplit_once('_')
                && part.len() == 2
                && part.chars().all(|c| c.is_ascii_alphabetic())
            {
                base = b;
            }
        }
        (dir.to_string(), base.to_string(), ext.to_string(), h.line)
    };
    let first = split(code.first()?);
    (code.len() > 1 && code.iter().all(|h| split(h) == first))
        .then(|| code.iter().min_by_key(|h| h.path.len()).copied())
        .flatten()
}

/// The item's message is this project's own, printed on purpose at `at` (in the function that
/// holds it, when one does): whether this case should reach it is the maintainer's first
/// decision — intended (then what the person should do instead) or a bug. `fixed` is the part
/// the code spells when the rest is filled in at run time.
pub(super) fn printed_on_purpose(
    r: &Reading,
    l: &Located,
    msg: &str,
    at: &Hit,
    fixed: Option<&str>,
) -> Finding {
    let within = super::super::repo::read_text(r.worktree, &at.path)
        .and_then(|text| {
            let lines: Vec<String> = text.lines().map(String::from).collect();
            super::super::raised::enclosing(&lines, at.line)
        })
        .map(|f| format!(" in `{f}`"))
        .unwrap_or_default();
    let (shown, rest) = match fixed {
        Some(k) => (
            super::super::text::one_line(k, 50),
            ", the rest filled in at run time",
        ),
        None => (msg.to_string(), ""),
    };
    let ask = |within: &str, rest: &str| {
        format!(
            "\"{shown}\" (line {}) is printed on purpose at {}{within}{rest}. Intended here \
             (then: what to do instead), or a bug?",
            l.name.line,
            at.cite()
        )
    };
    // The question whole, what it adds cut before it is.
    let question = super::super::text::first_fitting(
        [ask(&within, rest), ask(&within, ""), ask("", "")],
        |q| q,
    )
    .unwrap_or_else(|| ask("", ""));
    // The message a report quotes, found where the program prints it, is the report's point:
    // asked first.
    Finding::new(format!("message_{}", slug(&l.name.text)), 10, question)
        .titled(format!(
            "Whether line {}'s message is intended",
            l.name.line
        ))
        .options(&[
            ("Intended: say what to do instead", "intended"),
            ("A bug: this case should not reach it", "bug"),
            ("Don't know yet", "unknown"),
        ])
}
