//! Every count of `reflect` against plain `git` on one generated history of a few hundred commits
//! with branches, merges, renames, deletions, mode changes, reverts, tests, docs and TODOs.

use std::collections::{BTreeMap, BTreeSet};

use interview::testing::reflect::{self, ReflectFacts, is_doc_path, is_test_path};

use crate::reflect_history::{Commit, Dice, History, Op, write};
use crate::util::TempRepo;

const T0: i64 = 1_600_000_000;

const AUTHORS: [(&str, &str); 5] = [
    ("Ada", "ada@example.com"),
    ("Bo", "bo@example.com"),
    ("Cy", "cy@example.com"),
    ("Ada", "ada@home.example"),
    ("Dee", "dee@example.com"),
];

fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A history of about 340 commits: main with side branches merged back every so often.
fn generated() -> TempRepo {
    let repo = TempRepo::new();
    repo.write("src/base.rs", "// TODO: from the base\nfn base() {}\n");
    repo.write("src/keep.rs", "// FIXME: old\nfn keep() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let mut h = History::on(&repo);
    let mut dice = Dice::new(42);
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    files.insert(
        "src/base.rs".into(),
        vec!["// TODO: from the base".into(), "fn base() {}".into()],
    );
    files.insert(
        "src/keep.rs".into(),
        vec!["// FIXME: old".into(), "fn keep() {}".into()],
    );
    let mut when = T0;
    let mut last_main = 0;
    let mut n = 0usize;
    for round in 0..12 {
        // Main: 22 commits.
        for _ in 0..22 {
            n += 1;
            when += 3_600 + dice.below(50_000) as i64;
            let mut ops = Vec::new();
            let roll = dice.below(100);
            let paths: Vec<String> = files.keys().cloned().collect();
            if roll < 10 && paths.len() > 4 {
                let p = paths[dice.below(paths.len())].clone();
                files.remove(&p);
                ops.push(Op::Delete(p));
            } else if roll < 18 && !paths.is_empty() {
                let p = paths[dice.below(paths.len())].clone();
                let to = format!("src/moved{n}.rs");
                let body = files.remove(&p).unwrap();
                files.insert(to.clone(), body);
                ops.push(Op::Rename(p, to));
            } else if roll < 22 && !paths.is_empty() {
                let p = paths[dice.below(paths.len())].clone();
                ops.push(Op::Exec(p.clone(), text(&files[&p])));
            } else if roll < 45 {
                let dir = ["src", "tests", "docs", "src/net"][dice.below(4)];
                let ext = if dir == "docs" { "md" } else { "rs" };
                let p = format!("{dir}/f{n}.{ext}");
                let body: Vec<String> = (0..1 + dice.below(20))
                    .map(|i| {
                        if dice.below(8) == 0 {
                            format!("// TODO: new {n}.{i}")
                        } else {
                            format!("line {n}.{i}")
                        }
                    })
                    .collect();
                ops.push(write(&p, text(&body)));
                files.insert(p, body);
            }
            // Most commits also edit a file.
            let paths: Vec<String> = files.keys().cloned().collect();
            if !paths.is_empty() && dice.below(10) < 8 {
                let p = paths[dice.below(paths.len())].clone();
                if !ops.iter().any(|o| touches(o, &p)) {
                    let body = files.get_mut(&p).unwrap();
                    let at = dice.below(body.len() + 1);
                    let line = match dice.below(10) {
                        0 => format!("// FIXME: edit {n}"),
                        1 => "// TODO: handle errors".to_string(),
                        _ => format!("edit {n}"),
                    };
                    body.insert(at, line);
                    if body.len() > 3 && dice.below(3) == 0 {
                        let gone = dice.below(body.len());
                        body.remove(gone);
                    }
                    ops.push(write(&p, text(body)));
                }
            }
            let message = match n % 31 {
                7 => format!("Revert \"change {}\"", n - 3),
                19 => format!("revert: change {}", n - 2),
                _ => format!("change {n}"),
            };
            let (name, email) = AUTHORS[dice.below(AUTHORS.len())];
            last_main = h.commit(Commit::on_main(when, &message, ops).by(name, email));
        }
        // A side branch of 5 commits with files of its own, merged back with their content.
        let branch = format!("side{round}");
        let mut side_files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut from = Some(last_main);
        let mut side_last = 0;
        for k in 0..5 {
            n += 1;
            when += 1_800;
            let p = format!("side/{round}/s{}.rs", k % 3);
            let body = side_files.entry(p.clone()).or_default();
            body.push(format!("side {n}"));
            if k == 2 {
                body.push(format!("// TODO: side {round}"));
            }
            let message = format!("side change {n}");
            let mut c = Commit::on_main(when, &message, vec![write(&p, text(body))])
                .by("Bo", "bo@example.com");
            c.branch = &branch;
            c.from = from.take();
            side_last = h.commit(c);
        }
        n += 1;
        when += 600;
        let ops = side_files
            .iter()
            .map(|(p, body)| write(p, text(body)))
            .collect();
        let message = format!("Merge {branch}");
        let mut merge = Commit::on_main(when, &message, ops);
        merge.merge = Some(side_last);
        last_main = h.commit(merge);
        files.extend(side_files);
    }
    let _ = last_main;
    h.import(&repo);
    repo
}

fn touches(op: &Op, path: &str) -> bool {
    match op {
        Op::Write(p, _) | Op::Exec(p, _) | Op::Delete(p) => p == path,
        Op::Rename(a, b) => a == path || b == path,
    }
}

fn lines(repo: &TempRepo, args: &[&str]) -> Vec<String> {
    repo.git(args)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn count(repo: &TempRepo, args: &[&str]) -> usize {
    repo.git(args).trim().parse().expect("a number")
}

#[test]
fn every_count_matches_plain_git() {
    let repo = generated();
    let f: ReflectFacts = reflect::gather(repo.path(), "v1").unwrap();
    let range = "v1..HEAD";

    // Commits, merges, history order.
    assert!(f.commits >= 300, "{} commits", f.commits);
    assert_eq!(f.commits, count(&repo, &["rev-list", "--count", range]));
    assert!(f.merges >= 10);
    assert_eq!(
        f.merges,
        count(&repo, &["rev-list", "--merges", "--count", range])
    );
    let position: BTreeMap<&str, usize> = f
        .subjects
        .iter()
        .enumerate()
        .map(|(i, c)| (c.oid.as_str(), i))
        .collect();
    for line in lines(&repo, &["rev-list", "--parents", range]) {
        let ids: Vec<&str> = line.split(' ').collect();
        if let Some(&child) = position.get(ids[0]) {
            for parent in &ids[1..] {
                if let Some(&p) = position.get(parent) {
                    assert!(p > child, "{} listed before its child", parent);
                }
            }
        }
    }

    // Dates and the longest pause (committer time, UTC).
    let mut times: Vec<i64> = lines(&repo, &["log", "--format=%ct", range])
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    times.sort();
    assert_eq!(f.first_date, Some(reflect::civil_date(times[0])));
    assert_eq!(
        f.last_date,
        Some(reflect::civil_date(*times.last().unwrap()))
    );
    let longest = times.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert_eq!(f.longest_gap.as_ref().unwrap().seconds, longest);

    // Authors, as `git shortlog` groups them (by name, after .mailmap).
    let mut authors = BTreeMap::new();
    for line in lines(&repo, &["shortlog", "-sn", range]) {
        let (n, who) = line.trim().split_once('\t').unwrap();
        authors.insert(who.to_string(), n.parse::<usize>().unwrap());
    }
    let got: BTreeMap<String, usize> = f
        .authors
        .iter()
        .map(|a| (a.name.clone(), a.commits))
        .collect();
    assert_eq!(got, authors);

    // Churn: every file as `git log --numstat --no-renames` counts it (mode changes included).
    let mut churn: BTreeMap<String, (u64, u64, usize)> = BTreeMap::new();
    for line in lines(
        &repo,
        &["log", "--numstat", "--no-renames", "--format=", range],
    ) {
        let parts: Vec<&str> = line.split('\t').collect();
        let e = churn.entry(parts[2].to_string()).or_default();
        e.0 += parts[0].parse::<u64>().unwrap();
        e.1 += parts[1].parse::<u64>().unwrap();
        e.2 += 1;
    }
    assert_eq!(f.files_changed, churn.len());
    assert_eq!(f.lines_added, churn.values().map(|e| e.0).sum::<u64>());
    assert_eq!(f.lines_deleted, churn.values().map(|e| e.1).sum::<u64>());
    let mut ranked: Vec<(&String, &(u64, u64, usize))> = churn.iter().collect();
    ranked.sort_by(|(pa, a), (pb, b)| {
        (b.0 + b.1)
            .cmp(&(a.0 + a.1))
            .then(b.2.cmp(&a.2))
            .then(pa.cmp(pb))
    });
    let head_files: BTreeSet<String> = lines(&repo, &["ls-tree", "-r", "--name-only", "HEAD"])
        .into_iter()
        .collect();
    for (c, (path, e)) in f.churn.iter().zip(&ranked) {
        assert_eq!(
            (&c.path, c.added, c.deleted, c.commits),
            (*path, e.0, e.1, e.2)
        );
        assert_eq!(c.at_head, head_files.contains(*path), "{path}");
        let newest = repo.git(&[
            "log",
            "--no-merges",
            "--no-renames",
            "--full-history",
            "--format=%H",
            "-1",
            range,
            "--",
            path,
        ]);
        assert_eq!(c.last_commit, newest.trim(), "{path}");
    }
    assert_eq!(f.churn.len(), 20);

    // Reverts, all of them.
    let reverts = lines(
        &repo,
        &[
            "log",
            "--format=%H",
            "-i",
            "-E",
            "--grep=^revert([^[:alnum:]]|$)",
            range,
        ],
    );
    assert!(reverts.len() >= 15);
    assert_eq!(f.reverts_count, reverts.len());

    // Files added and deleted (net), each citing the newest commit that added or deleted it.
    let status = lines(
        &repo,
        &["diff", "--name-status", "--no-renames", "v1", "HEAD"],
    );
    let pick = |kind: &str| -> Vec<String> {
        status
            .iter()
            .filter_map(|l| l.split_once('\t'))
            .filter(|(k, _)| *k == kind)
            .map(|(_, p)| p.to_string())
            .collect()
    };
    let (added, deleted) = (pick("A"), pick("D"));
    assert_eq!(f.added_files_count, added.len());
    assert_eq!(f.deleted_files_count, deleted.len());
    assert!(!deleted.is_empty());
    for (events, filter) in [
        (&f.added_files, "--diff-filter=A"),
        (&f.deleted_files, "--diff-filter=D"),
    ] {
        for e in events.iter() {
            let by = repo.git(&[
                "log",
                "--no-merges",
                "--no-renames",
                "--full-history",
                filter,
                "--format=%H",
                "-1",
                range,
                "--",
                &e.path,
            ]);
            assert_eq!(
                e.by.as_ref().map(|c| c.oid.as_str()),
                Some(by.trim()),
                "{}",
                e.path
            );
        }
    }

    // Tests and code, by commit and by file.
    let mut commits_tests = 0;
    let mut commits_code = 0;
    let mut code_only = 0;
    let (mut test_files, mut code_files) = (BTreeSet::new(), BTreeSet::new());
    let log = repo.git(&[
        "log",
        "--no-merges",
        "--no-renames",
        "--name-only",
        "--format=@%H",
        range,
    ]);
    for commit in log.split('@').filter(|c| !c.trim().is_empty()) {
        let paths: Vec<&str> = commit.lines().skip(1).filter(|l| !l.is_empty()).collect();
        let tests = paths.iter().any(|p| is_test_path(p));
        let code = paths.iter().any(|p| !is_test_path(p) && !is_doc_path(p));
        for p in &paths {
            if is_test_path(p) {
                test_files.insert(p.to_string());
            } else if !is_doc_path(p) {
                code_files.insert(p.to_string());
            }
        }
        commits_tests += usize::from(tests);
        commits_code += usize::from(code);
        code_only += usize::from(code && !tests);
    }
    assert_eq!(f.tests.commits_touching_tests, commits_tests);
    assert_eq!(f.tests.commits_touching_code, commits_code);
    assert_eq!(f.tests.commits_code_without_tests, code_only);
    assert_eq!(f.tests.test_files_touched, test_files.len());
    assert_eq!(f.tests.code_files_touched, code_files.len());

    // TODO/FIXME present at HEAD and not at the base: the multiset difference of the two trees.
    let markers = |rev: &str| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for l in lines(&repo, &["grep", "-h", "-E", "^// (TODO|FIXME)", rev]) {
            *m.entry(l.trim().to_string()).or_insert(0) += 1;
        }
        m
    };
    let (at_head, at_base) = (markers("HEAD"), markers("v1"));
    let net: usize = at_head
        .iter()
        .map(|(t, n)| n.saturating_sub(*at_base.get(t).unwrap_or(&0)))
        .sum();
    assert!(net >= 20, "{net}");
    assert_eq!(f.todos_count, net);
    for t in &f.todos {
        let body = repo.git(&["show", &format!("HEAD:{}", t.path)]);
        let line = body.lines().nth(t.line.unwrap() as usize - 1).unwrap();
        assert_eq!(line.trim(), t.text, "{}:{:?}", t.path, t.line);
    }
}

/// The cache of the local tier gives the same facts, and a re-run reads it.
#[test]
fn cached_facts_equal_computed_facts() {
    let repo = generated();
    std::fs::create_dir(repo.path().join(".interview")).unwrap();
    let cold = reflect::gather_cached(repo.path(), "v1").unwrap();
    let cache = repo.path().join(format!(
        ".interview/cache/reflect-commits-v{}.json",
        reflect::FACTS_VERSION
    ));
    assert!(cache.is_file());
    let warm = reflect::gather_cached(repo.path(), "v1").unwrap();
    let plain = reflect::gather(repo.path(), "v1").unwrap();
    assert_eq!(cold, plain);
    assert_eq!(warm, plain);
    // A damaged cache is ignored and rewritten, never trusted as facts.
    std::fs::write(&cache, b"{ not json").unwrap();
    assert_eq!(reflect::gather_cached(repo.path(), "v1").unwrap(), plain);
    assert!(std::fs::read(&cache).unwrap().starts_with(b"{\""));
}

/// A `cache/` that is a symbolic link is not followed: nothing is written where it points.
#[test]
fn the_cache_follows_no_link() {
    let repo = generated();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join(".interview")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), repo.path().join(".interview/cache")).unwrap();
    let facts = reflect::gather_cached(repo.path(), "v1").unwrap();
    assert_eq!(facts, reflect::gather(repo.path(), "v1").unwrap());
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

/// A repository that commits a `.interview/` cache cannot feed its own facts in: that cache is
/// not read.
#[test]
fn a_committed_cache_is_not_trusted() {
    let repo = generated();
    std::fs::create_dir(repo.path().join(".interview")).unwrap();
    reflect::gather_cached(repo.path(), "v1").unwrap();
    let cache = repo.path().join(format!(
        ".interview/cache/reflect-commits-v{}.json",
        reflect::FACTS_VERSION
    ));
    let forged = std::fs::read_to_string(&cache)
        .unwrap()
        .replace("\"added\":", "\"added\":9");
    std::fs::write(&cache, forged).unwrap();
    repo.git(&["add", "-f", ".interview/cache"]);
    repo.git(&["commit", "-q", "-m", "ship a cache"]);
    let plain = reflect::gather(repo.path(), "v1").unwrap();
    assert_eq!(reflect::gather_cached(repo.path(), "v1").unwrap(), plain);
}

/// A re-run of a range computed before reads its facts whole (the header line of the cache):
/// a range whose commits are the same is not walked or diffed again, under any name.
#[test]
fn a_range_computed_before_is_read_whole() {
    let repo = generated();
    std::fs::create_dir(repo.path().join(".interview")).unwrap();
    let plain = reflect::gather(repo.path(), "v1").unwrap();
    assert_eq!(reflect::gather_cached(repo.path(), "v1").unwrap(), plain);
    let cache = repo.path().join(format!(
        ".interview/cache/reflect-commits-v{}.json",
        reflect::FACTS_VERSION
    ));
    // Proof that the second run reads the range's facts rather than computing them: a count
    // changed in the header is what it returns.
    let text = std::fs::read_to_string(&cache).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let needle = format!("\"lines_added\":{},", plain.lines_added);
    assert!(
        header.contains(&needle),
        "{}",
        &header[..200.min(header.len())]
    );
    let forged = header.replace(&needle, "\"lines_added\":7,");
    std::fs::write(&cache, format!("{forged}\n{rest}")).unwrap();
    assert_eq!(
        reflect::gather_cached(repo.path(), "v1")
            .unwrap()
            .lines_added,
        7
    );
    // The same commits under another name: the facts are read, named as asked.
    let base = repo.git(&["rev-parse", "v1"]);
    let by_id = reflect::gather_cached(repo.path(), base.trim()).unwrap();
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(by_id.range, format!("{}..{}", base.trim(), &head[..8]));
    assert_eq!(by_id.lines_added, 7);
    // A new commit makes a new range: computed (from the per-commit facts), never the old one.
    repo.write("src/new.rs", "// TODO: after the cache\nfn new() {}\n");
    // Only the new file: a committed `.interview/` would (rightly) make the cache untrusted.
    repo.git(&["add", "src/new.rs"]);
    repo.git(&["commit", "-q", "-m", "one more"]);
    let moved = reflect::gather_cached(repo.path(), "v1").unwrap();
    assert_eq!(moved, reflect::gather(repo.path(), "v1").unwrap());
    assert_eq!(moved.commits, plain.commits + 1);
    assert_eq!(moved.todos[0].text, "// TODO: after the cache");
    // The per-commit line keeps what it held and adds the commit diffed now: every non-merge
    // commit of the range, once.
    let text = std::fs::read_to_string(&cache).unwrap();
    let line: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let non_merges = repo.git(&["rev-list", "--no-merges", "--count", "v1..HEAD"]);
    assert_eq!(
        line["commits"].as_object().unwrap().len().to_string(),
        non_merges.trim()
    );
}

/// The range's commits are git's wherever the base is: on HEAD's first-parent chain with merges
/// above it, off that chain (a side branch merged long ago), inside a side branch, and on a
/// chain without merges (read without gix's walk).
#[test]
fn the_range_is_git_s_wherever_the_base_is() {
    let repo = generated();
    for k in 0..3 {
        repo.write(&format!("src/top{k}.rs"), &format!("fn top{k}() {{}}\n"));
        repo.git(&["add", &format!("src/top{k}.rs")]);
        repo.git(&["commit", "-q", "-m", &format!("top {k}")]);
    }
    // (`v1` is younger than the generated commits: the chain ahead of the walk stops at once
    // there, and the walk does it all; `HEAD~3~40` is on the chain, 40 first parents down,
    // with merges above it.)
    for base in [
        "v1",
        "HEAD~3~40",
        "HEAD~3~1",
        "side3",
        "side10~2",
        "HEAD~2",
        "HEAD~3",
        "HEAD",
    ] {
        let f = reflect::gather(repo.path(), base).unwrap();
        let range = format!("{base}..HEAD");
        assert_eq!(
            f.commits,
            count(&repo, &["rev-list", "--count", &range]),
            "{base}"
        );
        assert_eq!(
            f.merges,
            count(&repo, &["rev-list", "--merges", "--count", &range]),
            "{base}"
        );
        let (mut added, mut deleted, mut files) = (0u64, 0u64, BTreeSet::new());
        for line in lines(
            &repo,
            &["log", "--numstat", "--no-renames", "--format=", &range],
        ) {
            let parts: Vec<&str> = line.split('\t').collect();
            added += parts[0].parse::<u64>().unwrap();
            deleted += parts[1].parse::<u64>().unwrap();
            files.insert(parts[2].to_string());
        }
        assert_eq!(
            (f.lines_added, f.lines_deleted, f.files_changed),
            (added, deleted, files.len()),
            "{base}"
        );
        let newest: Vec<String> = lines(&repo, &["rev-list", "--max-count=3", &range]);
        let listed: Vec<&str> = f.subjects.iter().take(3).map(|c| c.oid.as_str()).collect();
        assert_eq!(listed, newest, "{base}");
    }
}

/// A real `interview reflect` writes what the cache learnt on another thread while the session
/// starts: the guard's first snapshot waits for it (a write landing during a turn would be
/// reported as the runner's change to the local tier), and it is complete on the disk when the
/// tool exits. The write is held back 400 ms (a debug-only hook) while the runner works 800 ms.
#[test]
fn the_cache_written_beside_the_session_is_done_before_the_first_snapshot() {
    let repo = generated();
    let out = crate::util::Interview::reflect(&repo, "v1")
        .runner("sleeps-then-asks.sh")
        .env("TEST_SLEEP", "0.8")
        .env("INTERVIEW_TEST_CACHE_WRITE_DELAY_MS", "400")
        .answers(r#"{ "interview_answers": 1, "answers": { "first": "skip" } }"#)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert!(!out.stderr.contains("changed"), "{}", out.stderr);
    let dir = repo.path().join(".interview/cache");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let file = format!("reflect-commits-v{}.json", reflect::FACTS_VERSION);
    assert_eq!(names, vec![file.clone()], "no temporary file is left");
    let text = std::fs::read_to_string(dir.join(&file)).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let commits: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let plain = reflect::gather(repo.path(), "v1").unwrap();
    assert_eq!(header["ranges"][0]["facts"]["commits"], plain.commits);
    assert_eq!(
        commits["commits"].as_object().unwrap().len(),
        plain.commits - plain.merges
    );
}
