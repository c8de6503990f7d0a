//! What kind of work item this is — bug, feature, refactor, dependency change, docs or
//! performance — from its title, its template's headings and its wording, with the cue that
//! decided it.

use super::intent::has_word;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ItemKind {
    Bug,
    Dependency,
    Refactor,
    Performance,
    Docs,
    Feature,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Bug => "bug report",
            ItemKind::Dependency => "dependency change",
            ItemKind::Refactor => "refactor",
            ItemKind::Performance => "performance work",
            ItemKind::Docs => "documentation change",
            ItemKind::Feature => "feature request",
        }
    }
}

/// The kind and the strongest cue for it, for the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Classification {
    pub kind: ItemKind,
    pub cue: String,
}

/// One cue: where it is looked for, what it is, and how much it weighs.
struct Cue {
    kind: ItemKind,
    place: Place,
    terms: &'static [&'static str],
    weight: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The title starts with it (`fix:`, `[bug]`, `refactor(x):`).
    TitleStart,
    /// The title has it as a word.
    Title,
    /// A heading or a bold line of the item's template.
    Heading,
    /// Anywhere in the prose.
    Text,
}

const CUES: &[Cue] = &[
    Cue {
        kind: ItemKind::Bug,
        place: Place::TitleStart,
        terms: &["fix", "bug", "[bug]", "bug:", "fix:", "regression"],
        weight: 6,
    },
    Cue {
        kind: ItemKind::Bug,
        place: Place::Title,
        terms: &[
            "panic",
            "panics",
            "crash",
            "crashes",
            "regression",
            "broken",
            "fails",
            "failing",
            "doesn't",
            "does not",
            "wrong",
            "incorrect",
            "error when",
            "not working",
            "segfault",
            "hangs",
        ],
        weight: 4,
    },
    Cue {
        kind: ItemKind::Bug,
        place: Place::Heading,
        terms: &[
            "steps to reproduce",
            "to reproduce",
            "reproduction",
            "expected behavior",
            "expected behaviour",
            "actual behavior",
            "actual behaviour",
            "current behavior",
            "current behaviour",
            "describe the bug",
            "bug report",
            "what happened",
        ],
        weight: 5,
    },
    Cue {
        kind: ItemKind::Bug,
        place: Place::Text,
        terms: &[
            "panicked at",
            "stack trace",
            "backtrace",
            "segfault",
            "regression",
            "reproduce",
            "expected",
            "instead of",
            "crashes",
            "no longer works",
        ],
        weight: 1,
    },
    Cue {
        kind: ItemKind::Dependency,
        place: Place::TitleStart,
        terms: &["rustsec", "deps:", "chore(deps)", "build(deps)", "bump"],
        weight: 6,
    },
    Cue {
        kind: ItemKind::Dependency,
        place: Place::Title,
        terms: &[
            "unmaintained",
            "not maintained",
            "no longer maintained",
            "replace",
            "switch from",
            "migrate from",
            "migrate to",
            "upgrade",
            "dependency",
            "dependencies",
            "deprecated",
        ],
        weight: 4,
    },
    Cue {
        kind: ItemKind::Dependency,
        place: Place::Heading,
        terms: &[
            "possible alternative",
            "possible alternatives",
            "alternatives",
        ],
        weight: 4,
    },
    Cue {
        kind: ItemKind::Dependency,
        place: Place::Text,
        terms: &[
            "unmaintained",
            "crates.io/crates/",
            "dependency",
            "rustsec",
            "advisory",
            "replace it with",
            "switch to",
            "drop the dependency",
        ],
        weight: 1,
    },
    Cue {
        kind: ItemKind::Refactor,
        place: Place::TitleStart,
        terms: &["refactor", "refactor:", "chore:", "cleanup", "clean up"],
        weight: 6,
    },
    Cue {
        kind: ItemKind::Refactor,
        place: Place::Title,
        terms: &[
            "refactor",
            "rename",
            "split",
            "extract",
            "restructure",
            "reorganize",
            "simplify",
            "deduplicate",
            "move",
        ],
        weight: 3,
    },
    Cue {
        kind: ItemKind::Refactor,
        place: Place::Text,
        terms: &[
            "refactor",
            "refactoring",
            "no behaviour change",
            "no behavior change",
            "internal",
            "tech debt",
            "duplication",
            "duplicated",
        ],
        weight: 1,
    },
    Cue {
        kind: ItemKind::Performance,
        place: Place::TitleStart,
        terms: &["perf", "perf:"],
        weight: 6,
    },
    Cue {
        kind: ItemKind::Performance,
        place: Place::Title,
        terms: &[
            "slow",
            "slower",
            "faster",
            "performance",
            "speed up",
            "memory usage",
            "allocations",
            "latency",
            "throughput",
        ],
        weight: 4,
    },
    Cue {
        kind: ItemKind::Performance,
        place: Place::Text,
        terms: &[
            "benchmark",
            "profile",
            "flamegraph",
            "allocations",
            "memory usage",
            "takes seconds",
            "too slow",
            "quadratic",
        ],
        weight: 1,
    },
    Cue {
        kind: ItemKind::Docs,
        place: Place::TitleStart,
        terms: &["docs", "docs:", "doc:", "documentation", "readme"],
        weight: 6,
    },
    Cue {
        kind: ItemKind::Docs,
        place: Place::Title,
        terms: &[
            "documentation",
            "document",
            "readme",
            "typo",
            "docs",
            "man page",
        ],
        weight: 3,
    },
    Cue {
        kind: ItemKind::Feature,
        place: Place::TitleStart,
        terms: &[
            "feat",
            "feat:",
            "feature",
            "[feature]",
            "add",
            "support",
            "allow",
            "implement",
        ],
        weight: 5,
    },
    Cue {
        kind: ItemKind::Feature,
        place: Place::Heading,
        terms: &[
            "feature request",
            "is your feature request related to a problem",
            "describe the solution",
            "proposal",
            "motivation",
            "use case",
        ],
        weight: 5,
    },
    Cue {
        kind: ItemKind::Feature,
        place: Place::Text,
        terms: &[
            "would be nice",
            "it would be great",
            "add support",
            "new option",
            "new flag",
            "allow",
            "feature",
            "we need",
            "add",
            "support",
        ],
        weight: 1,
    },
];

/// Classify an item by its title (lower case), its headings and bold lines (lower case) and
/// its prose (lower case, code blocks left out).
pub(super) fn classify(title: &str, headings: &[String], prose: &str) -> Classification {
    let order = [
        ItemKind::Bug,
        ItemKind::Dependency,
        ItemKind::Refactor,
        ItemKind::Performance,
        ItemKind::Docs,
        ItemKind::Feature,
    ];
    let mut scores = [0u32; 6];
    let mut best_cue: [Option<(u32, String)>; 6] = Default::default();
    let title = title.trim().to_lowercase();
    for cue in CUES {
        let i = order.iter().position(|k| *k == cue.kind).unwrap_or(5);
        for term in cue.terms {
            let (hit, said) = match cue.place {
                Place::TitleStart => (
                    title.starts_with(term)
                        && title[term.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !c.is_alphanumeric()),
                    format!("the title starts with \"{term}\""),
                ),
                Place::Title => (has_word(&title, term), format!("the title says \"{term}\"")),
                Place::Heading => (
                    headings.iter().any(|h| h.contains(term)),
                    format!("it has a \"{term}\" section"),
                ),
                Place::Text => (has_word(prose, term), format!("it says \"{term}\"")),
            };
            if hit {
                scores[i] += cue.weight;
                if best_cue[i].as_ref().is_none_or(|(w, _)| *w < cue.weight) {
                    best_cue[i] = Some((cue.weight, said));
                }
            }
        }
    }
    let (i, score) = scores.iter().enumerate().fold(
        (5, 0),
        |best, (i, &s)| if s > best.1 { (i, s) } else { best },
    );
    // Wording alone (weight-1 cues) must agree at least twice to beat the default.
    let (i, score) = if score < 2 { (5, 0) } else { (i, score) };
    let cue = if score == 0 {
        "no cue for another kind".to_string()
    } else {
        best_cue[i].take().map(|(_, c)| c).unwrap_or_default()
    };
    Classification {
        kind: order[i],
        cue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(title: &str, headings: &[&str], text: &str) -> ItemKind {
        let h: Vec<String> = headings.iter().map(|s| s.to_lowercase()).collect();
        classify(title, &h, &text.to_lowercase()).kind
    }

    #[test]
    fn kinds_follow_title_template_and_wording() {
        assert_eq!(kind("fix: crash on empty input", &[], ""), ItemKind::Bug);
        assert_eq!(
            kind(
                "Output is garbled",
                &["steps to reproduce", "expected behavior"],
                ""
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind("RUSTSEC-2021-0139: ansi_term is unmaintained", &[], ""),
            ItemKind::Dependency
        );
        assert_eq!(
            kind("refactor: split the session module", &[], ""),
            ItemKind::Refactor
        );
        assert_eq!(
            kind("`status` is slow on big repos", &[], ""),
            ItemKind::Performance
        );
        assert_eq!(
            kind("docs: explain the answers file", &[], ""),
            ItemKind::Docs
        );
        assert_eq!(kind("Add a --json flag", &[], ""), ItemKind::Feature);
        assert_eq!(
            kind("Export to CSV", &[], "people copy it by hand"),
            ItemKind::Feature
        );
    }
}
