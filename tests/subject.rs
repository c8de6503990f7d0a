//! Subjects on generated repositories: the facts of `reflect` checked against what `git` itself
//! reports (the trackers of `intent`: `subject_trackers.rs`).

use std::collections::BTreeMap;
use std::process::Command;

use interview::testing::reflect::{self, ReflectFacts};

use crate::util::TempRepo;

fn facts(repo: &TempRepo, rev: &str) -> ReflectFacts {
    reflect::gather(repo.path(), rev).unwrap_or_else(|e| panic!("reflect {rev}: {e}"))
}

/// Run git with a fixed author and dates (seconds since the epoch), so the order is known.
fn git_at(repo: &TempRepo, args: &[&str], author: &str, when: i64) {
    let date = format!("@{when} +0000");
    let (name, email) = author.split_once(' ').unwrap_or((author, "x@example.com"));
    let out = Command::new("git")
        .args(args)
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.home())
        .env("GIT_AUTHOR_NAME", name)
        .env("GIT_AUTHOR_EMAIL", email)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Commit everything with a fixed author and date.
fn commit_at(repo: &TempRepo, message: &str, author: &str, when: i64) {
    repo.git(&["add", "-A"]);
    git_at(
        repo,
        &["commit", "-q", "--allow-empty", "-m", message],
        author,
        when,
    );
}

/// A history after tag `v1`: two authors, a merged branch, a revert, tests and code.
fn sample_history() -> TempRepo {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    let t0 = 1_700_000_000;
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    43\n}\n");
    commit_at(&repo, "Change the answer", "Ada ada@example.com", t0);
    repo.write(
        "src/export.rs",
        "pub fn export() {}\n// TODO: handle errors\nfn a() {}\n",
    );
    repo.write("tests/export.rs", "#[test]\nfn t() {}\n");
    commit_at(
        &repo,
        "Add export with a test",
        "Bo bo@example.com",
        t0 + 3_600,
    );
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("docs/guide.md", "# Guide\n\nline\n");
    commit_at(&repo, "Write the guide", "Ada ada@example.com", t0 + 7_200);
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "src/lib.rs",
        "pub fn answer() -> u32 {\n    44\n}\n// FIXME: why 44\n",
    );
    commit_at(&repo, "Answer 44", "Ada ada@example.com", t0 + 10_800);
    git_at(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "Merge side", "side"],
        "Ada ada@example.com",
        t0 + 14_400,
    );
    repo.write("src/oops.rs", "bad\n");
    commit_at(&repo, "Add oops", "Bo bo@example.com", t0 + 20 * 86_400);
    repo.git(&["rm", "-q", "src/oops.rs"]);
    commit_at(
        &repo,
        "Undo oops",
        "Bo bo@example.com",
        t0 + 20 * 86_400 + 60,
    );
    repo.git(&["rm", "-q", "README.md"]);
    commit_at(
        &repo,
        "Drop the readme",
        "Ada ada@example.com",
        t0 + 21 * 86_400,
    );
    repo
}

fn count(repo: &TempRepo, args: &[&str]) -> usize {
    repo.git(args).trim().parse().expect("a number")
}

#[test]
fn commit_and_merge_counts_match_git_rev_list() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    assert_eq!(
        f.commits,
        count(&repo, &["rev-list", "--count", "v1..HEAD"])
    );
    assert_eq!(
        f.merges,
        count(&repo, &["rev-list", "--merges", "--count", "v1..HEAD"])
    );
    assert_eq!(f.subjects.len(), f.commits);
    assert_eq!(f.head, repo.git(&["rev-parse", "HEAD"]).trim());
    assert_eq!(f.base, repo.git(&["rev-parse", "v1^{commit}"]).trim());
}

#[test]
fn authors_and_their_counts_match_git_shortlog() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let shortlog = repo.git(&["shortlog", "-se", "v1..HEAD"]);
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    for line in shortlog.lines() {
        let (n, who) = line.trim().split_once('\t').expect("count and name");
        expected.insert(who.to_string(), n.parse().unwrap());
    }
    let got: BTreeMap<String, usize> = f
        .authors
        .iter()
        .map(|a| (format!("{} <{}>", a.name, a.email), a.commits))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn churn_matches_git_log_numstat() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let numstat = repo.git(&["log", "--numstat", "--no-renames", "--format=", "v1..HEAD"]);
    let mut expected: BTreeMap<String, (u64, u64, usize)> = BTreeMap::new();
    for line in numstat.lines().filter(|l| !l.is_empty()) {
        let parts: Vec<&str> = line.split('\t').collect();
        let e = expected.entry(parts[2].to_string()).or_default();
        e.0 += parts[0].parse::<u64>().unwrap();
        e.1 += parts[1].parse::<u64>().unwrap();
        e.2 += 1;
    }
    let got: BTreeMap<String, (u64, u64, usize)> = f
        .churn
        .iter()
        .map(|c| (c.path.clone(), (c.added, c.deleted, c.commits)))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(f.files_changed, expected.len());
    assert_eq!(f.lines_added, expected.values().map(|e| e.0).sum::<u64>());
    assert_eq!(f.lines_deleted, expected.values().map(|e| e.1).sum::<u64>());
}

#[test]
fn churn_is_ranked_by_lines_changed() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let totals: Vec<u64> = f.churn.iter().map(|c| c.added + c.deleted).collect();
    let mut sorted = totals.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(totals, sorted);
}

#[test]
fn reverts_are_found_by_subject_and_by_body() {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    let t0 = 1_700_000_000;
    repo.write("a.txt", "one\n");
    commit_at(&repo, "Add a", "Ada ada@example.com", t0);
    git_at(
        &repo,
        &["revert", "--no-edit", "HEAD"],
        "Ada ada@example.com",
        t0 + 60,
    );
    repo.write("b.txt", "two\n");
    commit_at(
        &repo,
        "Back out b\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.",
        "Ada ada@example.com",
        t0 + 120,
    );
    repo.write("c.txt", "three\n");
    commit_at(&repo, "Not a revert", "Ada ada@example.com", t0 + 180);
    let f = facts(&repo, "v1");
    let subjects: Vec<&str> = f.reverts.iter().map(|c| c.subject.as_str()).collect();
    assert_eq!(subjects, vec!["Back out b", "Revert \"Add a\""]);
    let grep = repo.git(&[
        "log",
        "--format=%H",
        "--grep=This reverts commit",
        "v1..HEAD",
    ]);
    assert_eq!(grep.lines().count(), f.reverts.len());
}

#[test]
fn added_and_deleted_files_are_the_net_change_of_the_range() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let status = repo.git(&["diff", "--name-status", "--no-renames", "v1", "HEAD"]);
    let pick = |kind: &str| -> Vec<String> {
        let mut p: Vec<String> = status
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter(|(k, _)| *k == kind)
            .map(|(_, p)| p.to_string())
            .collect();
        p.sort();
        p
    };
    // Listed code first, the largest first: compared as sets.
    let paths = |v: &[reflect::FileEvent]| {
        let mut p: Vec<String> = v.iter().map(|e| e.path.clone()).collect();
        p.sort();
        p
    };
    assert_eq!(paths(&f.added_files), pick("A"));
    assert_eq!(paths(&f.deleted_files), pick("D"));
    assert_eq!(paths(&f.deleted_files), vec!["README.md".to_string()]);
    // Added and removed within the range: neither added nor deleted in the net change.
    assert!(!paths(&f.added_files).contains(&"src/oops.rs".to_string()));
}

#[test]
fn added_todos_point_at_their_line_at_head() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let find = |text: &str| {
        f.todos
            .iter()
            .find(|t| t.text.contains(text))
            .unwrap_or_else(|| panic!("{text} in {:?}", f.todos))
    };
    let todo = find("TODO: handle errors");
    assert_eq!(todo.path, "src/export.rs");
    assert_eq!(todo.line, Some(2));
    let fixme = find("FIXME: why 44");
    assert_eq!(fixme.line, Some(4));
    assert_eq!(f.todos_count, 2);
}

#[test]
fn todos_removed_again_are_not_listed() {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    repo.write("src/x.rs", "// TODO: later\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "todo"]);
    repo.write("src/x.rs", "// done\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "done"]);
    let f = facts(&repo, "v1");
    // Added and resolved within the range: not present at HEAD, so not a TODO of the range.
    assert_eq!(f.todos.len(), 0);
    assert_eq!(f.todos_count, 0);
}

#[test]
fn code_commits_without_tests_are_counted() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    // Code without tests: "Change the answer", "Answer 44", "Add oops", "Undo oops".
    // With a test: "Add export with a test". Docs only: the guide and the readme.
    assert_eq!(f.tests.commits_touching_code, 5);
    assert_eq!(f.tests.commits_touching_tests, 1);
    assert_eq!(f.tests.commits_code_without_tests, 4);
    assert_eq!(f.tests.test_files_touched, 1);
    let subjects: Vec<&str> = f
        .tests
        .code_without_tests
        .iter()
        .map(|c| c.subject.as_str())
        .collect();
    assert_eq!(
        subjects,
        vec!["Undo oops", "Add oops", "Answer 44", "Change the answer"]
    );
}

#[test]
fn the_longest_gap_is_between_consecutive_commits() {
    let repo = sample_history();
    let f = facts(&repo, "v1");
    let gap = f.longest_gap.expect("a gap");
    assert_eq!(gap.to.subject, "Add oops");
    assert_eq!(gap.from.subject, "Merge side");
    assert_eq!(f.first_date.as_deref(), Some("2023-11-14"));
}

#[test]
fn annotated_and_lightweight_tags_resolve_to_their_commit() {
    let repo = sample_history();
    repo.git(&["tag", "-a", "v2", "-m", "annotated", "HEAD~2"]);
    repo.git(&["tag", "v3", "HEAD~1"]);
    for tag in ["v2", "v3"] {
        let f = facts(&repo, tag);
        assert_eq!(
            f.base,
            repo.git(&["rev-parse", &format!("{tag}^{{commit}}")])
                .trim()
        );
        assert_eq!(
            f.commits,
            count(&repo, &["rev-list", "--count", &format!("{tag}..HEAD")])
        );
    }
}

#[test]
fn any_revision_works_as_the_base() {
    let repo = sample_history();
    let f = facts(&repo, "HEAD~3");
    assert_eq!(
        f.commits,
        count(&repo, &["rev-list", "--count", "HEAD~3..HEAD"])
    );
}

#[test]
fn an_unknown_tag_names_the_nearest_tags() {
    let repo = TempRepo::new();
    for t in ["v1.2.0", "v1.3.0", "v2.0.0", "release-2020"] {
        repo.git(&["tag", t]);
    }
    let err = reflect::reflect(repo.path(), "v1.2.1").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown tag or revision `v1.2.1`"), "{msg}");
    assert!(msg.contains("nearest tags: v1.2.0, v1.3.0"), "{msg}");
}

#[test]
fn an_unknown_tag_without_tags_suggests_a_revision() {
    let repo = TempRepo::new();
    let msg = reflect::reflect(repo.path(), "v9").unwrap_err().to_string();
    assert!(msg.contains("has no tags"), "{msg}");
}

#[test]
fn a_blob_the_clone_does_not_hold_is_named_with_how_to_get_it() {
    // A partial clone holds a file's old versions only once git has read them; reflect never
    // fetches one, and says which blob, which file, and how to have git fetch it.
    let repo = TempRepo::new();
    repo.write("big.bin", "first\n");
    commit_at(&repo, "add big", "Ann a@x", 1_000);
    repo.git(&["tag", "v1"]);
    repo.write("big.bin", "second\n");
    commit_at(&repo, "change big", "Ann a@x", 2_000);
    let id = repo.git(&["rev-parse", "HEAD:big.bin"]).trim().to_string();
    let loose = repo
        .path()
        .join(".git/objects")
        .join(&id[..2])
        .join(&id[2..]);
    std::fs::remove_file(&loose).unwrap_or_else(|e| panic!("{}: {e}", loose.display()));
    let msg = reflect::gather(repo.path(), "v1").unwrap_err().to_string();
    assert!(
        msg.contains(&format!("cannot read blob {id} (big.bin)")),
        "{msg}"
    );
    assert!(msg.contains("this clone does not hold it"), "{msg}");
    assert!(msg.contains("`git log -p TAG..HEAD > /dev/null`"), "{msg}");
}

#[test]
fn facts_markdown_is_capped() {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    for i in 0..80 {
        repo.write(&format!("src/f{i}.rs"), &format!("// TODO {i}\n"));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", &format!("commit {i}")]);
    }
    let subject = reflect::reflect(repo.path(), "v1").unwrap();
    let lines = subject.facts_markdown.lines().count();
    assert!(lines <= reflect::MARKDOWN_MAX_LINES, "{lines} lines");
    assert!(subject.facts_markdown.contains("…and 70 more"));
    let back: ReflectFacts = serde_json::from_value(subject.facts).unwrap();
    assert_eq!(back.commits, 80);
}

/// Not a timed assertion: prints how long the facts of a few thousand commits take.
/// `cargo test --test integration subject::reflect_timing -- --ignored --nocapture`
#[test]
#[ignore]
fn reflect_timing_on_a_generated_history() {
    let commits = 3000;
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    let mut stream = String::new();
    let mut files: Vec<Vec<String>> = vec![Vec::new(); 40];
    for i in 0..commits {
        let f = (i * 7) % files.len();
        files[f].push(format!("line {i} of file {f}"));
        if i % 5 == 0 && files[f].len() > 3 {
            files[f].remove(1);
        }
        if i % 11 == 0 {
            files[f].push(format!("// TODO: item {i}"));
        }
        let body = files[f].join("\n") + "\n";
        let message = format!("change {i}");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter T <t@example.com> {} +0000\ndata {}\n{message}\n",
            1_600_000_000 + i * 600,
            message.len(),
        ));
        if i == 0 {
            stream.push_str("from refs/heads/main^0\n");
        }
        stream.push_str(&format!(
            "M 100644 inline src/file{f}.rs\ndata {}\n{body}\n",
            body.len()
        ));
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(repo.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    repo.git(&["reset", "-q", "--hard", "main"]);
    let started = std::time::Instant::now();
    let f = facts(&repo, "v1");
    let took = started.elapsed();
    assert_eq!(f.commits, commits);
    println!(
        "reflect over {} commits ({} files, +{} −{} lines, {} TODOs): {:.2?}",
        f.commits, f.files_changed, f.lines_added, f.lines_deleted, f.todos_count, took
    );
}
