//! The versions a bug report names: each that is one of the repository's tags, where the item
//! names it (its title, its prose, its `--version` output), and whether its sentence says it
//! worked or is broken. What "which version first showed it?" offers and recommends.

use super::*;

/// A version the item names that is a tag: the item's line, the version as written, the tag,
/// and whether its sentence says it worked (`Some(true)`) or is broken (`Some(false)`).
pub(super) type Named = (u32, String, String, Option<bool>);

/// Every version the item names (its title, its prose or its `--version` output) that is a
/// tag, with whether its sentence says it worked.
pub(super) fn named_versions(r: &Reading) -> Vec<Named> {
    let mut named: Vec<Named> = Vec::new();
    // Sentence by sentence ("It works in 1.1. It is broken in 1.3." is two verdicts), then
    // the code blocks (a `--version` output says nothing of good or bad). The title ("Bug in
    // release 1.64") is the item's first line.
    let title_line = r
        .item
        .all
        .iter()
        .find(|(_, l, _)| l.starts_with('#') && l.contains(r.facts.title.trim()))
        .map_or(1, |(n, _, _)| *n);
    let title = std::iter::once((title_line, r.facts.title.clone(), true));
    let code = r
        .item
        .all
        .iter()
        .filter(|(_, _, code)| *code)
        .map(|(n, s, _)| (*n, s.to_string(), false));
    let prose = r.item.sentences.iter().map(|(n, s)| (*n, s.clone(), true));
    for (n, s, judged) in title.chain(prose).chain(code) {
        let verdict = if judged { verdict(&s) } else { None };
        // A release the item names counts even where HEAD's history does not hold its tag.
        for (written, tag) in versions_in(&s, &r.repo.released) {
            if !named.iter().any(|(_, _, x, _)| *x == tag) {
                named.push((n, written, tag, verdict));
            }
        }
    }
    named
}

/// Whether a sentence says the version it names worked (`Some(true)`) or is broken.
fn verdict(sentence: &str) -> Option<bool> {
    let lower = sentence.to_lowercase();
    let has = |words: &[&str]| {
        words
            .iter()
            .any(|w| super::super::item::has_word(&lower, w))
    };
    let good = has(&["works", "worked", "working", "fine", "last good", "used to"]);
    let bad = has(&[
        "broken",
        "broke",
        "fails",
        "failing",
        "regression",
        "since",
        "doesn't work",
        "does not work",
        "no longer",
        "crash",
        "crashes",
        "panics",
        "after upgrading",
        "before",
    ]);
    match (good, bad) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// The versions a text names that are tags: each as written, with its tag.
fn versions_in(text: &str, tags: &[String]) -> Vec<(String, String)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
            .trim_end_matches('.');
        let v = w.trim_start_matches('v');
        // "0.2 seconds" is a duration, not a version: a version is written `v1.2`,
        // `1.2.3`, or after a word that introduces one ("version 1.2", "in 1.3").
        let before = i
            .checked_sub(1)
            .map(|j| words[j].to_lowercase())
            .unwrap_or_default();
        let after = words
            .get(i + 1)
            .map(|x| x.to_lowercase())
            .unwrap_or_default();
        let unit = super::has_measure(&format!("1 {after}"));
        let introduced = [
            "version", "release", "in", "since", "to", "from", "before", "after", "on", "v",
            "with", "of",
        ]
        .contains(&before.trim_matches(|c: char| !c.is_alphanumeric()));
        let shaped = w.starts_with('v') || v.matches('.').count() >= 2 || introduced;
        if v.contains('.')
            && shaped
            && !unit
            && v.starts_with(|c: char| c.is_ascii_digit())
            && let Some(t) = tag_for(tags, w)
        {
            out.push((w.to_string(), t.clone()));
        }
    }
    out
}

/// What HEAD is, for a question about versions: the manifest's version when it is newer than
/// the newest tag (a checkout between releases: "version 1.5.0 (package.json:3)"), else the
/// tag HEAD is at ("the code at v0.6.0") or the nearest it is after ("the code after v4.0.0").
pub(super) fn head_is(r: &Reading) -> Option<String> {
    let newest = r.repo.tags.first();
    let manifest = r.repo.version.as_ref().filter(|(v, _)| {
        newest
            .is_none_or(|t| super::super::repo::version_key(v) > super::super::repo::version_key(t))
    });
    match (manifest, &r.repo.head_tag, newest) {
        (Some((v, at)), _, _) => Some(format!("version {v}, as {} declares", at.cite())),
        (None, Some(t), _) => Some(format!("the code at {t}")),
        // The tag nearest HEAD, as `git describe` names it, not the highest version.
        (None, None, Some(t)) => Some(format!(
            "the code after {}",
            r.repo.nearest_tag.as_ref().unwrap_or(t)
        )),
        (None, None, None) => None,
    }
}

/// Where the item names HEAD's own version — the one its manifest declares (`3.9.1`,
/// `v3.9.1`), or the tag HEAD is at: its line and where the manifest says it (none for a
/// tag). Then which version shows it is answered: the one HEAD is.
pub(super) fn reports_head_version(r: &Reading) -> Option<(u32, String, Option<String>)> {
    let manifest = r
        .repo
        .version
        .as_ref()
        .map(|(v, at)| (v.as_str(), Some(at.cite())));
    let tag = r.repo.head_tag.as_deref().map(|t| (t, None));
    let bare = |v: &str| v.trim_start_matches(['v', 'V']).to_string();
    for (version, at) in manifest.into_iter().chain(tag) {
        let version = bare(version);
        if !version.contains('.') {
            continue;
        }
        for (n, line, _) in &r.item.all {
            let said = line
                .split(|c: char| c.is_whitespace() || "`'\"(),;:[]@".contains(c))
                .any(|w| bare(w.trim_end_matches('.')) == version);
            if said {
                return Some((*n, version, at));
            }
        }
    }
    None
}

/// "HEAD is 1.5.0 (package.json:3). " when the manifest's version is newer than every tag.
pub(super) fn head_manifest(r: &Reading) -> String {
    r.repo
        .version
        .as_ref()
        .filter(|_| head_is(r).is_some_and(|h| h.starts_with("version")))
        .map(|(v, at)| format!("HEAD is {v} ({}). ", at.cite()))
        .unwrap_or_default()
}

/// Programs whose versions an item names beside the project's (`Python 3.11`, `node 18.2`).
const RUNTIMES: &[&str] = &[
    "python",
    "node",
    "nodejs",
    "npm",
    "yarn",
    "java",
    "jdk",
    "jre",
    "go",
    "golang",
    "rust",
    "rustc",
    "cargo",
    "ruby",
    "php",
    "dotnet",
    ".net",
    "swift",
    "xcode",
    "kotlin",
    "gradle",
    "maven",
    "ghc",
    "cabal",
    "stack",
    "bash",
    "zsh",
    "fish",
    "ubuntu",
    "debian",
    "fedora",
    "macos",
    "osx",
    "windows",
    "ios",
    "android",
    "typescript",
    "tsc",
    "chrome",
    "firefox",
    "linux",
    "kernel",
    "gcc",
    "clang",
    "llvm",
    "git",
    "homebrew",
    "brew",
    "intellij",
    "vscode",
];

/// Whether `line` has a path with the project's installed copy and its version
/// (`gems/slop-4.4.1/lib`, `registry/src/…/clap-2.21.0/src`): a trace through the version in use.
fn installed_version(line: &str, project: &str) -> bool {
    let dir = format!("/{project}-");
    line.match_indices(&dir).any(|(at, _)| {
        let v = &line[at + dir.len()..];
        let v = v.split('/').next().unwrap_or("");
        v.contains('.')
            && v.starts_with(|c: char| c.is_ascii_digit())
            && line[at + dir.len() + v.len()..].starts_with('/')
    })
}

/// Whether the reporter says they run the newest release ("the output is from the latest beta
/// version", "on the latest release"): which version shows it is then known. "The latest version
/// of Windows 10" is another program's.
pub(super) fn runs_latest(r: &Reading) -> bool {
    r.item.sentences.iter().any(|(_, s)| {
        let s = s.to_lowercase();
        ["latest", "newest", "most recent"].iter().any(|w| {
            s.match_indices(w).any(|(at, _)| {
                let after: Vec<&str> = s[at + w.len()..]
                    .split_whitespace()
                    .map(|x| x.trim_matches(|c: char| !c.is_alphanumeric()))
                    .take(3)
                    .collect();
                let noun = after
                    .iter()
                    .position(|x| ["version", "release", "build"].contains(x))
                    .filter(|&i| {
                        i == 0 || (i == 1 && ["beta", "stable", "published"].contains(&after[0]))
                    });
                noun.is_some_and(|i| after.get(i + 1) != Some(&"of"))
            })
        })
    })
}

/// Whether the item names the version of the project it runs, tag or not (`zod
/// 3.0.0-alpha.7`, "post-alpha.7", "version 1.5.0", a `--version` output): then which version
/// it runs is not asked. A runtime's version (`Python 3.11`) is not the project's.
pub(super) fn names_own_version(r: &Reading) -> bool {
    let project = r.repo.project.as_deref().unwrap_or("").to_lowercase();
    let lines =
        std::iter::once(r.facts.title.as_str()).chain(r.item.all.iter().map(|(_, l, _)| *l));
    // A gem names itself by its root `.gemspec`, no manifest `repo.rs` reads.
    let gems: Vec<String> = std::fs::read_dir(r.worktree)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_lowercase();
            name.strip_suffix(".gemspec").map(str::to_string)
        })
        .collect();
    for line in lines {
        let lower = line.to_lowercase();
        if std::iter::once(&project)
            .chain(&gems)
            .any(|p| !p.is_empty() && installed_version(&lower, p))
        {
            return true;
        }
        let words: Vec<String> = line
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| "`'\"(),:;[]".contains(c))
                    .to_lowercase()
            })
            .collect();
        for (i, w) in words.iter().enumerate() {
            let v = w.trim_start_matches(['v', '@']);
            let numbered = v.starts_with(|c: char| c.is_ascii_digit()) && v.contains('.');
            let pre = w.starts_with("alpha.") || w.starts_with("beta.") || w.starts_with("rc.");
            let post = ["post-alpha", "post-beta", "post-rc"]
                .iter()
                .any(|p| w.starts_with(p));
            if !(numbered || pre || post) {
                continue;
            }
            let before: Vec<&str> = words[i.saturating_sub(3)..i]
                .iter()
                .map(String::as_str)
                .collect();
            let runtime = before.iter().any(|b| RUNTIMES.contains(b));
            let own = (!project.is_empty()
                && (before
                    .iter()
                    .any(|b| *b == project || b.ends_with(&format!("/{project}")))
                    || w.starts_with(&format!("{project}@"))))
                || before.iter().any(|b| *b == "version" || *b == "--version")
                || post;
            if own && !runtime {
                return true;
            }
        }
    }
    false
}

/// The tags as versions to offer: a pre-release (`v4.0.0-1`, `3.0.0-beta.2`) is left out when
/// the release it leads to is a tag too (`v4.0.0`): one version, one name.
pub(super) fn releases(tags: &[String]) -> Vec<&str> {
    let core = |t: &str| -> String {
        let bare = t.trim_start_matches(|c: char| !c.is_ascii_digit());
        bare.split_once('-').map_or(bare, |(c, _)| c).to_string()
    };
    let released: Vec<String> = tags
        .iter()
        .filter(|t| {
            let bare = t.trim_start_matches(|c: char| !c.is_ascii_digit());
            !bare.contains('-')
        })
        .map(|t| core(t))
        .collect();
    tags.iter()
        .filter(|t| {
            let bare = t.trim_start_matches(|c: char| !c.is_ascii_digit());
            !bare.contains('-') || !released.contains(&core(t))
        })
        .map(String::as_str)
        .collect()
}
