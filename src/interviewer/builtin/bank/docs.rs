//! The questions of documentation and performance work: which pages, for whom; which target,
//! measured how.

use super::*;

pub(in crate::interviewer::builtin) fn docs(r: &Reading) -> Vec<Finding> {
    let mut out: Vec<Finding> = quoted_text(r).into_iter().collect();
    let mut pages: Vec<&Hit> = Vec::new();
    let mut about = true;
    for l in found_names(r)
        .into_iter()
        .filter(|l| r.item.is_about(&r.facts.title, &l.name.text))
    {
        for h in super::feature::pages(l) {
            if !pages.iter().any(|p| p.path == h.path) {
                about &= pages.len() >= 2 || super::pages::describes(h, &l.name.text);
                pages.push(h);
            }
        }
    }
    // A library's own documentation of a name is the comment where it is defined.
    let defined: Vec<(&Located, &Hit)> = found_names(r)
        .into_iter()
        .filter(|l| l.name.kind == NameKind::Ident)
        .filter_map(|l| Some((l, l.definition.as_ref()?)))
        .filter(|(_, d)| !is_doc(&d.path) && !super::super::place::is_manifest(&d.path))
        .collect();
    let mut places: Vec<String> = defined
        .iter()
        .take(2)
        .map(|(l, d)| format!("{} where it is defined ({})", l.shown(), d.cite()))
        .collect();
    places.extend(pages.iter().take(2).map(|h| h.cite()));
    if !places.is_empty() {
        out.push(
            Finding::new("doc_pages", 7, format!("What the item names is {} at {}. Change all of them? Recommended: all, or they disagree.", if about { "documented" } else { "mentioned" }, places.join(", ")))
                .titled("Pages to change")
                .options(&[("All of them", "all"), ("Only the first", "first_only")])
                .recommend("all"),
        );
    } else if out.is_empty() {
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
    // The APIs built on a documented function share what its documentation says.
    if let Some((l, d)) = defined.first() {
        let others: Vec<&Hit> = l.in_code().into_iter().filter(|h| h.path != d.path).fold(
            Vec::new(),
            |mut acc: Vec<&Hit>, h| {
                if !acc.iter().any(|a| a.path == h.path) {
                    acc.push(h);
                }
                acc
            },
        );
        if l.count.code_files >= 3 && others.len() >= 2 {
            out.push(
                Finding::new("doc_callers", 7, format!("{} is named in {} code files ({}). Say it in the docs of the APIs built on it too? Recommended: yes.", l.shown(), l.count.code_files, cites(&others, 3)))
                    .titled(format!("The APIs built on {}", l.shown()))
                    .options(&[("Yes, in their docs too", "callers_too"), (&format!("Only in {}'s docs", l.name.text), "only_it")])
                    .recommend("callers_too"),
            );
        }
    }
    // Who reads it, only when nothing in the repository says where it goes.
    if out.iter().all(|f| f.topic == "doc_location") {
        out.push(
            Finding::new("audience", 5, "Who reads it: someone new to the project, a contributor, or a user of the library's API?")
                .titled("The reader")
                .options(&[("Someone new to the project", "newcomer"), ("A contributor", "contributor"), ("A user of the API", "api_user")]),
        );
    }
    out
}

/// The text the item quotes, where the repository has it: every copy changes together.
fn quoted_text(r: &Reading) -> Option<Finding> {
    let (n, piece, hits, count) = r.item.quotes().into_iter().find_map(|(n, q)| {
        let found = r.search.get(&q)?;
        Some((n, q, found.hits.clone(), found.files))
    })?;
    let mut files: Vec<&Hit> = Vec::new();
    for h in &hits {
        if !files.iter().any(|f| f.path == h.path) {
            files.push(h);
        }
    }
    let shown = super::super::text::one_line(&piece, 50);
    Some(if count > 1 {
        Finding::new("quoted_text", 8, format!("The text line {n} quotes (\"{shown}\") is in {count} files: {}. Change every copy? Recommended: all, or they disagree.", cites(&files, 3)))
            .titled("Where the quoted text lives")
            .choices(vec![("Every copy".into(), "every_copy".into()), (format!("Only {}", files[0].path), "first_only".into())])
            .recommend("every_copy")
    } else {
        Finding::new("quoted_text", 8, format!("The text line {n} quotes (\"{shown}\") is at {}. Is that the place to change? Recommended: yes, it is the only copy.", files[0].cite()))
            .titled("Where the quoted text lives")
            .options(&[("Yes, there", "there"), ("Somewhere else too (say where)", "elsewhere")])
            .recommend("there")
    })
}

pub(in crate::interviewer::builtin) fn performance(r: &Reading) -> Vec<Finding> {
    let mut out: Vec<Finding> = comparison(r).into_iter().collect();
    out.extend(workload_and_machine(r));
    let timed = r.item.sentences.iter().any(|(_, s)| has_measure(s)) || timing_output(r).is_some();
    if !timed {
        out.extend(target_and_workload());
    }
    out.push(benchmark(r));
    out.extend(hot_path(r));
    // Generic: only when nothing in the item or the repository gave a question of its own.
    if out.iter().any(|f| f.topic != "benchmark") {
        return out;
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

/// An item that times nothing: the target, and the input that shows the slowness.
fn target_and_workload() -> [Finding; 2] {
    [
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
        Finding::new(
            "workload",
            7,
            "Which input shows the slowness (its size and shape)?",
        )
        .titled("The workload"),
    ]
}

/// How the speed-up is measured: the repository's benchmark, when it has one.
fn benchmark(r: &Reading) -> Finding {
    match r.benchmark() {
        Some(h) => Finding::new(
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
        None => Finding::new(
            "benchmark",
            6,
            format!(
                "How will the speed-up be measured? {} Recommended: a new one, so the gain stays \
                 measured.",
                if r.search.stopped.is_some() {
                    "No benchmark in the files read."
                } else {
                    "The repository shows no benchmark (no benchmark folder, harness or heading)."
                }
            ),
        )
        .titled("How it is measured")
        .options(&[
            ("A new benchmark", "new_bench"),
            ("Manual timing is enough", "manual"),
            ("A profile before and after", "profile"),
        ])
        .recommend("new_bench"),
    }
}

/// A function or type the item names can be a hot spot; a flag or a file cannot.
fn hot_path(r: &Reading) -> Option<Finding> {
    let l = found_names(r)
        .into_iter()
        .find(|l| l.definition.is_some() && l.name.kind == NameKind::Ident)?;
    let def = l.definition.as_ref().map(Hit::cite).unwrap_or_default();
    Some(
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
    )
}

/// The first line of the item's code blocks that shows a timing (`real 0m0.6s`, `0.631 total`).
fn timing_output(r: &Reading) -> Option<u32> {
    r.item.all.iter().find_map(|(n, line, code)| {
        let l = line.to_lowercase();
        (*code
            && (l.contains(" total")
                || l.starts_with("real")
                || l.contains("time:")
                || l.contains(" elapsed"))
            && l.contains(|c: char| c.is_ascii_digit()))
        .then_some(*n)
    })
}

/// A timing compared with another command: the two must do the same work to compare.
fn comparison(r: &Reading) -> Option<Finding> {
    const TERMS: &[&str] = &[
        "faster than",
        "slower than",
        "compared to",
        "compared with",
        "vs",
        "versus",
    ];
    let title = r.facts.title.to_lowercase();
    let at = if TERMS
        .iter()
        .any(|t| super::super::item::has_word(&title, t))
    {
        "The title".to_string()
    } else {
        let (n, _) = r.item.sentences.iter().find(|(_, s)| {
            let l = s.to_lowercase();
            TERMS.iter().any(|t| super::super::item::has_word(&l, t)) || factor(&l)
        })?;
        format!("Line {n}")
    };
    Some(
        Finding::new(
            "comparison",
            8,
            format!("{at} compares timings of two commands. Do both do the same work (same filters: hidden and ignored files, output), timed several times with a warm cache? Recommended: check that first."),
        )
        .titled("A fair comparison")
        .options(&[("Check the same work first", "same_work"), ("The comparison is fair as it is", "fair")])
        .recommend("same_work"),
    )
}

/// Whether a sentence gives a factor between two runs: `20x faster`, `3 times slower`.
fn factor(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.'))
        .collect();
    let number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.');
    words.windows(2).any(|w| {
        let slower_or_faster = w[1].starts_with("faster") || w[1].starts_with("slower");
        slower_or_faster && w[0].strip_suffix('x').is_some_and(number)
    }) || words.windows(3).any(|w| {
        number(w[0])
            && w[1] == "times"
            && (w[2].starts_with("faster") || w[2].starts_with("slower"))
    })
}

/// A timing without the size of the input or the machine: both decide what is slow.
fn workload_and_machine(r: &Reading) -> Option<Finding> {
    let timed = r
        .item
        .sentences
        .iter()
        .find(|(_, s)| has_measure(s))
        .map(|(n, _)| *n)
        .or_else(|| timing_output(r))?;
    let all = r
        .item
        .all
        .iter()
        .map(|(_, l, _)| l.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    let sized = [
        "files",
        "entries",
        "directories",
        "lines",
        "empty",
        "mb",
        "gb",
        "kb",
        "bytes",
        "records",
        "rows",
    ]
    .iter()
    .any(|u| {
        all.split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| {
                w[0].chars().any(|c| c.is_ascii_digit())
                    && w[1].trim_matches(|c: char| !c.is_alphanumeric()) == *u
            })
            || (*u == "empty" && super::super::item::has_word(&all, u))
    });
    let machine = ["cores", "core", "threads", "cpus", "cpu"].iter().any(|w| {
        super::super::item::has_word(&all, w) && all.contains(|c: char| c.is_ascii_digit())
    }) && ["cores", "threads", "cpus"]
        .iter()
        .any(|w| super::super::item::has_word(&all, w));
    let missing: Vec<&str> = [
        (!sized).then_some("how large the input is"),
        (!machine).then_some("how many cores the machine has"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        return None;
    }
    Some(
        Finding::new(
            "workload",
            8,
            format!("Line {timed} gives a timing but not {}. How many entries (files, lines) does the run see, on how many cores?", missing.join(" or ")),
        )
        .titled("The workload and the machine"),
    )
}
