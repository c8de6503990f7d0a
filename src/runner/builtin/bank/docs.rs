//! The questions of documentation and performance work: which pages, for whom; which target,
//! measured how.

use super::*;

pub(in crate::runner::builtin) fn docs(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut pages: Vec<&Hit> = Vec::new();
    for l in found_names(r) {
        for h in l.in_docs() {
            if !pages.iter().any(|p| p.path == h.path) {
                pages.push(h);
            }
        }
    }
    if let Some(first) = pages.first() {
        out.push(
            Finding::new("doc_pages", 7, format!("What the item names is described at {}. Which pages change? Recommended: all, or they disagree.", cites(&pages, 3)))
                .titled("Pages to change")
                .choices(vec![("All of them".into(), "all".into()), (format!("Only {}", first.path), "first_only".into())])
                .recommend("all"),
        );
    } else {
        out.push(
            Finding::new(
                "doc_location",
                6,
                "Where should this be documented? No page names what the item names.",
            )
            .titled("Where it is documented")
            .options(&[
                ("README.md", "readme"),
                ("A page under docs/", "docs_page"),
                ("Code documentation (rustdoc)", "rustdoc"),
            ]),
        );
    }
    out.push(
        Finding::new("audience", 5, "Who reads it: someone new to the project, a contributor, or a user of the library's API?")
            .titled("The reader")
            .options(&[("Someone new to the project", "newcomer"), ("A contributor", "contributor"), ("A user of the API", "api_user")]),
    );
    out
}

pub(in crate::runner::builtin) fn performance(r: &Reading) -> Vec<Finding> {
    let mut out = Vec::new();
    if !r.item.sentences.iter().any(|(_, s)| has_measure(s)) {
        out.push(
            Finding::new(
                "perf_target",
                9,
                "What is the measurable target, on which input?",
            )
            .titled("The performance target")
            .options(&[
                ("Under 100 ms", "under_100ms"),
                ("Under 1 second", "under_1s"),
                ("A given factor faster than now (say which)", "relative"),
                ("No hard target", "no_target"),
            ]),
        );
        out.push(
            Finding::new(
                "workload",
                7,
                "Which input shows the slowness (its size and shape)?",
            )
            .titled("The workload"),
        );
    }
    let bench = BENCHMARKS
        .iter()
        .find_map(|b| r.search.get(b).and_then(|f| f.hits.first()));
    match bench {
        Some(h) => out.push(
            Finding::new(
                "benchmark",
                7,
                format!(
                    "{} has a benchmark. Measure with it? Recommended: it already exists.",
                    h.cite()
                ),
            )
            .titled("How it is measured")
            .options(&[
                ("With the existing benchmark", "existing_bench"),
                ("A new benchmark", "new_bench"),
                ("Manual timing is enough", "manual"),
            ])
            .recommend("existing_bench"),
        ),
        None => out.push(
            Finding::new(
                "benchmark",
                6,
                "How will the speed-up be measured? The repository has no benchmark.",
            )
            .titled("How it is measured")
            .options(&[
                ("A new benchmark", "new_bench"),
                ("Manual timing is enough", "manual"),
                ("A profile before and after", "profile"),
            ]),
        ),
    }
    // A function or type can be a hot spot; a flag or a file cannot.
    if let Some(l) = found_names(r)
        .into_iter()
        .find(|l| l.definition.is_some() && l.name.kind == NameKind::Ident)
    {
        let def = l.definition.as_ref().map(Hit::cite).unwrap_or_default();
        out.push(
            Finding::new(
                "hot_path",
                6,
                format!(
                    "{} ({def}) is named. Was it measured as the hot spot?",
                    l.shown()
                ),
            )
            .titled(format!("Is {} the hot spot", l.shown()))
            .options(&[
                ("Yes, profiled", "profiled"),
                ("Suspected, not measured", "suspected"),
            ]),
        );
    }
    out.push(
        Finding::new("tradeoffs", 5, "May it cost memory or code complexity?")
            .titled("Trade-offs")
            .options(&[
                ("Memory may grow", "memory_may_grow"),
                ("Keep memory as it is", "keep_memory"),
                ("Any trade-off is fine", "any"),
            ]),
    );
    out
}
