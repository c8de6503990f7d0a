//! Reflect on generated histories, one test per way the facts or the questions used to go wrong:
//! the newest TODOs dropped, wrong lines for repeated TODO text, moves counted as new TODOs, one
//! person counted twice, mode-only changes lost, history misordered on equal timestamps, the
//! revert count capped, files gone at HEAD not marked, inconsistent wording; and questions about
//! lockfiles, release commits or the alphabetically first deleted file.

use std::collections::{BTreeMap, BTreeSet};

use interview::testing::reflect::{self, ReflectFacts};
use interview::testing::{BRIEF_VERSION, BriefContext, BriefSubject};
use interview::testing::{CheckContext, Done, Question, Receipt};

use crate::reflect_history::{Commit, Dice, History, Op, write};
use crate::util::TempRepo;

const T0: i64 = 1_700_000_000;

fn facts(repo: &TempRepo) -> ReflectFacts {
    reflect::gather(repo.path(), "v1").unwrap_or_else(|e| panic!("reflect v1: {e}"))
}

/// The built-in interviewer's first receipt on `v1..HEAD`, through the strict checks.
fn first_receipt(repo: &TempRepo, final_turn: bool) -> Receipt {
    let subject = reflect::reflect(repo.path(), "v1").unwrap();
    let ctx = BriefContext {
        interview_brief: BRIEF_VERSION,
        kind: subject.kind,
        subject: BriefSubject {
            id: subject.id.clone(),
            title: subject.title.clone(),
            facts: subject.facts.clone(),
        },
        turn: 1,
        max_turns: 5,
        final_turn,
        previous_failure: None,
        rounds: Vec::new(),
        replayed: false,
    };
    let json =
        interview::testing::receipt_json(&interview::testing::decide(&ctx, repo.path())).unwrap();
    let none = BTreeSet::new();
    let check = CheckContext {
        final_turn,
        asked_topics: &none,
        answered_topics: &none,
        repo_root: repo.path(),
        work_item: None,
    };
    match interview::testing::parse_and_check(&json, &check) {
        Ok((receipt, _)) => receipt,
        Err(e) => panic!("the receipt fails the checks: {e}\n{json}"),
    }
}

fn questions(repo: &TempRepo) -> Vec<Question> {
    match first_receipt(repo, false) {
        Receipt::Ask(a) => a.questions,
        Receipt::Done(d) => panic!("expected questions, got {d:?}"),
    }
}

fn document(repo: &TempRepo) -> Done {
    match first_receipt(repo, true) {
        Receipt::Done(d) => d,
        Receipt::Ask(a) => panic!("expected done, got {a:?}"),
    }
}

fn show(repo: &TempRepo, path: &str) -> Vec<String> {
    repo.git(&["show", &format!("HEAD:{path}")])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Finding 1: every TODO counted, the newest listed first, none dropped for being new.
#[test]
fn the_newest_todos_come_first_and_all_are_counted() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let mut files: Vec<String> = vec![String::new(); 10];
    for i in 0..250 {
        let f = i % 10;
        files[f].push_str(&format!("fn f{i}() {{}}\n// TODO: item {i}\n"));
        h.commit(Commit::on_main(
            T0 + i as i64 * 60,
            &format!("work {i}"),
            vec![write(&format!("src/m{f}.rs"), files[f].clone())],
        ));
    }
    h.import(&repo);
    let f = facts(&repo);
    assert_eq!(f.todos_count, 250);
    assert_eq!(f.todos.len(), 50);
    let listed: Vec<String> = f.todos.iter().map(|t| t.text.clone()).collect();
    let expected: Vec<String> = (200..250)
        .rev()
        .map(|i| format!("// TODO: item {i}"))
        .collect();
    assert_eq!(listed, expected);
    let subjects: BTreeMap<String, String> = f
        .subjects
        .iter()
        .map(|c| (c.oid.clone(), c.subject.clone()))
        .collect();
    for t in &f.todos {
        let line = t.line.expect("a line at HEAD") as usize;
        assert_eq!(show(&repo, &t.path)[line - 1], t.text, "{t:?}");
        let n = t.text.trim_start_matches("// TODO: item ");
        assert_eq!(subjects[&t.commit], format!("work {n}"));
    }
}

/// Finding 2: the same TODO text in several places: each at its own line.
#[test]
fn repeated_todo_text_is_cited_at_each_real_line() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let todo = "// TODO: handle errors";
    let one = format!("fn a() {{}}\n{todo}\nfn b() {{}}\n");
    h.commit(Commit::on_main(
        T0,
        "a",
        vec![write("src/x.rs", one.clone())],
    ));
    let two = format!("{one}fn c() {{}}\n{todo}\n");
    h.commit(Commit::on_main(
        T0 + 60,
        "b",
        vec![write("src/x.rs", two.clone())],
    ));
    h.commit(Commit::on_main(
        T0 + 120,
        "c",
        vec![write("src/y.rs", format!("{todo}\n"))],
    ));
    h.import(&repo);
    let f = facts(&repo);
    assert_eq!(f.todos_count, 3);
    let places: BTreeSet<(String, u32)> = f
        .todos
        .iter()
        .map(|t| (t.path.clone(), t.line.unwrap()))
        .collect();
    let expected: BTreeSet<(String, u32)> = [("src/x.rs", 2), ("src/x.rs", 5), ("src/y.rs", 1)]
        .into_iter()
        .map(|(p, l)| (p.to_string(), l))
        .collect();
    assert_eq!(places, expected);
    // The document cites each place once, and each exists.
    let d = document(&repo);
    let entry = d
        .entries
        .iter()
        .find(|e| e.title == "TODO and FIXME lines new at HEAD")
        .expect("the TODO entry");
    let cited: BTreeSet<&String> = entry.sources.iter().collect();
    assert_eq!(cited.len(), 3, "{:?}", entry.sources);
}

/// Finding 3: a `git mv` of a file with TODOs adds none; the count is the net change of the tree.
#[test]
fn a_moved_file_adds_no_todos() {
    let repo = TempRepo::new();
    repo.write(
        "src/old.rs",
        "// TODO: one\nfn a() {}\n// FIXME: two\n// TODO: one\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base with TODOs"]);
    let mut h = History::on(&repo);
    h.commit(Commit::on_main(
        T0,
        "Move old to new",
        vec![Op::Rename("src/old.rs".into(), "src/new.rs".into())],
    ));
    let adds = h.commit(Commit::on_main(
        T0 + 60,
        "Add a real one",
        vec![write("src/other.rs", "// TODO: really new\n")],
    ));
    let _ = adds;
    h.import(&repo);
    let f = facts(&repo);
    let grep = |rev: &str| {
        repo.git(&["grep", "-h", "-E", "(TODO|FIXME)", rev])
            .lines()
            .count()
    };
    assert_eq!(grep("HEAD") - grep("v1"), 1);
    assert_eq!(f.todos_count, 1, "{:?}", f.todos);
    assert_eq!(f.todos[0].path, "src/other.rs");
    let add = f
        .subjects
        .iter()
        .find(|c| c.subject == "Add a real one")
        .unwrap();
    assert_eq!(f.todos[0].commit, add.oid);
}

/// Finding 4: one person, two e-mails (and a `.mailmap` entry): one author.
#[test]
fn one_person_with_two_emails_is_one_author() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let mut t = T0;
    let mut next = |h: &mut History, name: &str, email: &str| {
        t += 60;
        let msg = format!("by {name} {t}");
        h.commit(Commit::on_main(t, &msg, vec![write("a.txt", msg.clone())]).by(name, email));
    };
    for _ in 0..3 {
        next(&mut h, "Ana Lima", "ana@work.example");
    }
    for _ in 0..2 {
        next(&mut h, "Ana Lima", "ana@home.example");
    }
    next(&mut h, "B. Olsen", "bo@old.example");
    next(&mut h, "Bo Olsen", "bo@example.com");
    h.commit(Commit::on_main(
        t + 60,
        "mailmap",
        vec![write(
            ".mailmap",
            "Bo Olsen <bo@example.com> <bo@old.example>\n",
        )],
    ));
    h.import(&repo);
    let f = facts(&repo);
    let got: BTreeMap<String, usize> = f
        .authors
        .iter()
        .map(|a| (a.name.clone(), a.commits))
        .collect();
    let mut expected = BTreeMap::new();
    for line in repo.git(&["shortlog", "-sn", "v1..HEAD"]).lines() {
        let (n, who) = line.trim().split_once('\t').unwrap();
        expected.insert(who.to_string(), n.parse::<usize>().unwrap());
    }
    assert_eq!(got, expected);
    assert_eq!(got["Ana Lima"], 5);
    assert_eq!(got["Bo Olsen"], 2);
    let ana = f.authors.iter().find(|a| a.name == "Ana Lima").unwrap();
    assert_eq!(ana.email, "ana@work.example", "the e-mail used most");
}

/// Finding 5: a mode-only change is a change (as `git log --numstat` lists it).
#[test]
fn mode_only_changes_are_counted() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    h.commit(Commit::on_main(
        T0,
        "script",
        vec![write("tests/run.sh", "echo ok\n")],
    ));
    h.commit(Commit::on_main(
        T0 + 60,
        "make it executable",
        vec![Op::Exec("tests/run.sh".into(), "echo ok\n".into())],
    ));
    h.import(&repo);
    let f = facts(&repo);
    let numstat = repo.git(&["log", "--numstat", "--no-renames", "--format=", "v1..HEAD"]);
    assert_eq!(numstat.lines().filter(|l| !l.is_empty()).count(), 2);
    let script = f.churn.iter().find(|c| c.path == "tests/run.sh").unwrap();
    assert_eq!((script.added, script.deleted, script.commits), (1, 0, 2));
    assert_eq!(f.tests.commits_touching_tests, 2);
}

/// Finding 6: commits sharing one timestamp stay in history order.
#[test]
fn commits_with_one_timestamp_keep_history_order() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    for i in 0..30 {
        h.commit(Commit::on_main(
            T0,
            &format!("step {i}"),
            vec![write("f.txt", format!("{i}\n"))],
        ));
    }
    h.import(&repo);
    let f = facts(&repo);
    let listed: Vec<String> = f.subjects.iter().map(|c| c.oid.clone()).collect();
    let git: Vec<String> = repo
        .git(&["rev-list", "v1..HEAD"])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, git);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    let file = f.churn.iter().find(|c| c.path == "f.txt").unwrap();
    assert_eq!(file.last_commit, head, "the newest commit that changed it");
}

/// Finding 7: sixty reverts are sixty, whatever the list keeps; "revert:" counts too.
#[test]
fn every_revert_is_counted() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    for i in 0..60 {
        let msg = if i % 6 == 0 {
            format!("revert: change {i}")
        } else {
            format!("Revert \"change {i}\"")
        };
        h.commit(Commit::on_main(
            T0 + i * 60,
            &msg,
            vec![write("src/a.rs", format!("// {i}\n"))],
        ));
    }
    h.commit(Commit::on_main(
        T0 + 4_000,
        "Reverting is not a revert",
        vec![write("src/a.rs", "x\n")],
    ));
    h.import(&repo);
    let f = facts(&repo);
    assert_eq!(f.reverts_count, 60);
    assert_eq!(f.reverts.len(), 50);
    let q = questions(&repo);
    let reverts = q.iter().find(|q| q.topic == "reverts").expect("asked");
    assert!(
        reverts
            .question_text
            .starts_with("60 commits reverted work"),
        "{}",
        reverts.question_text
    );
}

/// Finding 8: a deleted file is marked gone wherever it is named, cites the commit that deleted
/// it, and its TODOs are not the range's.
#[test]
fn a_deleted_file_with_todos_is_marked_gone() {
    let repo = TempRepo::new();
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("fn f{i}() {{}}\n"));
    }
    text.push_str("// TODO: finish the old parser\n");
    repo.write("src/old_parser.rs", &text);
    repo.write(".travis.yml", "language: rust\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let mut h = History::on(&repo);
    h.commit(Commit::on_main(
        T0,
        "Grow the old parser",
        vec![write(
            "src/old_parser.rs",
            format!("{text}// TODO: more\nfn g() {{}}\n"),
        )],
    ));
    h.commit(Commit::on_main(
        T0 + 60,
        "Drop CI config",
        vec![Op::Delete(".travis.yml".into())],
    ));
    h.commit(Commit::on_main(
        T0 + 120,
        "Refactor: replace the old parser",
        vec![
            Op::Delete("src/old_parser.rs".into()),
            write("src/parser.rs", "fn parse() {}\n"),
        ],
    ));
    h.import(&repo);
    let f = facts(&repo);
    assert_eq!(f.todos_count, 0, "{:?}", f.todos);
    let gone = f
        .deleted_files
        .iter()
        .find(|e| e.path == "src/old_parser.rs")
        .unwrap();
    assert_eq!(
        gone.by.as_ref().unwrap().subject,
        "Refactor: replace the old parser"
    );
    assert_eq!(gone.lines, 41);
    let churn = f
        .churn
        .iter()
        .find(|c| c.path == "src/old_parser.rs")
        .unwrap();
    assert!(!churn.at_head);
    let md = reflect::facts_markdown(&f);
    assert!(md.contains("Deleted files (gone at HEAD):"), "{md}");
    assert!(md.contains("gone at HEAD"), "{md}");
    let q = questions(&repo);
    let deleted = q.iter().find(|q| q.topic == "deleted_code").expect("asked");
    assert!(
        deleted
            .question_text
            .starts_with("`src/old_parser.rs` (41 lines) was deleted by"),
        "the code a refactoring removed, not `.travis.yml`: {}",
        deleted.question_text
    );
    assert!(q.iter().all(|q| q.topic != "todos_added"));
    assert!(
        q.iter()
            .all(|q| !q.question_text.contains("old_parser") || q.topic == "deleted_code"),
        "a file gone at HEAD is not an example elsewhere: {q:?}"
    );
    let d = document(&repo);
    let files = d
        .entries
        .iter()
        .find(|e| e.title == "Files added and deleted")
        .unwrap();
    assert!(
        files.content.contains("Deleted (gone at HEAD): "),
        "{}",
        files.content
    );
    let deleting = f
        .subjects
        .iter()
        .find(|c| c.subject.starts_with("Refactor"))
        .unwrap();
    assert!(files.sources.contains(&format!("commit:{}", deleting.oid)));
}

/// Finding 9: durations read alike everywhere, lists say how many more, an empty range says so.
#[test]
fn the_wording_is_consistent() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let mut ops = Vec::new();
    for i in 0..9 {
        ops.push(write(&format!("src/f{i}.rs"), "fn f() {}\n"));
    }
    h.commit(Commit::on_main(T0, "nine files", ops));
    h.commit(Commit::on_main(
        T0 + 87 * 86_400 + 43_200,
        "after a pause",
        vec![write("src/f0.rs", "fn g() {}\n")],
    ));
    h.import(&repo);
    let d = document(&repo);
    let text: String = d
        .entries
        .iter()
        .map(|e| format!("{}\n{}\n", e.title, e.content))
        .collect();
    assert!(text.contains("…and 1 more"), "{text}");
    assert!(text.contains("88 days without a commit"), "{text}");
    assert!(
        !text.contains("day(s)") && !text.contains("commit(s)"),
        "{text}"
    );
    let q = questions(&repo);
    let gap = q.iter().find(|q| q.topic == "long_gap").unwrap();
    assert!(
        gap.question_text.contains("for 88 days"),
        "{}",
        gap.question_text
    );

    let empty = TempRepo::new();
    empty.git(&["tag", "v1"]);
    let d = document(&empty);
    let head = empty.git(&["rev-parse", "HEAD"]);
    assert!(
        d.summary
            .starts_with(&format!("No commits in v1..{}", &head[..8])),
        "{}",
        d.summary
    );
    assert!(!d.summary.contains("- → -"), "{}", d.summary);
}

/// Questions: lockfiles and vendored files are not "the largest churn"; the release commit is not
/// the example of untested code; inline tests count as tests.
#[test]
fn questions_pick_examples_that_matter() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let lock: String = (0..2_000)
        .map(|i| format!("dep-{i} = \"1.0.{i}\"\n"))
        .collect();
    let mut code = String::new();
    for i in 0..20 {
        code.push_str(&format!("pub fn f{i}() {{}}\n"));
        h.commit(Commit::on_main(
            T0 + i * 3_600,
            &format!("Parser step {i}"),
            vec![
                write("src/parser.rs", code.clone()),
                write("Cargo.lock", format!("{lock}# {i}\n")),
                write("vendor/big/lib.c", format!("{lock}/* {i} */\n")),
            ],
        ));
    }
    let big: String = (0..300).map(|i| format!("pub fn g{i}() {{}}\n")).collect();
    h.commit(Commit::on_main(
        T0 + 30 * 3_600,
        "Release 2.0.0",
        vec![write("src/version.rs", big)],
    ));
    h.commit(Commit::on_main(
        T0 + 31 * 3_600,
        "Add inline tests",
        vec![write(
            "src/parser.rs",
            format!("{code}// TODO: tune\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{}}\n}}\n"),
        )],
    ));
    h.import(&repo);
    let f = facts(&repo);
    assert!(
        ["Cargo.lock", "vendor/big/lib.c"].contains(&f.churn[0].path.as_str()),
        "the raw ranking keeps every file: {:?}",
        f.churn[0]
    );
    let q = questions(&repo);
    let churn = q.iter().find(|q| q.topic == "largest_churn").unwrap();
    assert!(
        churn
            .question_text
            .starts_with("`src/parser.rs` changed most"),
        "{}",
        churn.question_text
    );
    let untested = q.iter().find(|q| q.topic == "untested_changes").unwrap();
    assert!(
        !untested.question_text.contains("Release 2.0.0"),
        "{}",
        untested.question_text
    );
    let inline = f
        .tests
        .code_without_tests
        .iter()
        .all(|c| c.subject != "Add inline tests");
    assert!(inline, "a commit adding #[test] touches tests");
    // The retrospective pair closes every first round.
    let topics: Vec<&str> = q.iter().map(|q| q.topic.as_str()).collect();
    assert_eq!(topics.len(), 5);
    assert_eq!(&topics[3..], ["went_well", "do_differently"]);
}

/// The template scales: years of history get questions about direction, and the closing pair
/// is listed as open when a final turn cannot ask it.
#[test]
fn the_template_scales_with_the_range() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    let mut dice = Dice::new(7);
    for i in 0..40 {
        let f = dice.below(5);
        h.commit(Commit::on_main(
            T0 + i * 30 * 86_400,
            &format!("month {i}"),
            vec![write(&format!("src/m{f}.rs"), format!("// {i}\n"))],
        ));
    }
    h.import(&repo);
    let q = questions(&repo);
    let direction = q.iter().find(|q| q.topic == "direction").expect("asked");
    assert!(
        direction.question_text.starts_with("Over 3 years"),
        "{}",
        direction.question_text
    );
    let closing = q.iter().find(|q| q.topic == "went_well").unwrap();
    assert!(
        closing.question_text.contains("3 years"),
        "{}",
        closing.question_text
    );

    let d = document(&repo);
    let open: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == interview::testing::Clarity::OpenQuestion)
        .map(|e| e.title.as_str())
        .collect();
    assert!(open.contains(&"What went well"), "{open:?}");
    assert!(open.contains(&"What to do differently"), "{open:?}");
}

/// A release or version bump ("Bump clap from 4.1.0 to 4.2.0" over the manifest and the
/// lockfile, "Release 2.0.0") has no code a test could cover: it is left out of "code changed
/// without tests", and the facts say how many were left out.
#[test]
fn release_and_version_bump_commits_are_not_code_without_tests() {
    let repo = TempRepo::new();
    let mut h = History::on(&repo);
    h.commit(Commit::on_main(
        T0,
        "Bump clap from 4.1.0 to 4.2.0",
        vec![
            write(
                "Cargo.toml",
                "[dependencies]\nclap = \"4.2.0\"\n".to_string(),
            ),
            write("Cargo.lock", "clap 4.2.0\n".to_string()),
        ],
    ));
    h.commit(Commit::on_main(
        T0 + 3_600,
        "Release 2.0.0",
        vec![write(
            "src/version.rs",
            "pub const V: &str = \"2.0.0\";\n".to_string(),
        )],
    ));
    h.commit(Commit::on_main(
        T0 + 7_200,
        "Add the export",
        vec![write("src/export.rs", "pub fn export() {}\n".to_string())],
    ));
    h.import(&repo);
    let f = facts(&repo);
    let listed: Vec<&str> = f
        .tests
        .code_without_tests
        .iter()
        .map(|c| c.subject.as_str())
        .collect();
    assert_eq!(listed, ["Add the export"]);
    assert_eq!(f.tests.commits_code_without_tests, 1);
    assert_eq!(f.tests.release_commits, 2);
    let md = reflect::facts_markdown(&f);
    assert!(
        md.contains("Code changed without tests (release and version-bump commits left out: 2):"),
        "{md}"
    );
}
