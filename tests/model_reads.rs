//! What the model runner (`--runner openai`) reads and sends, beyond its tools' bounds
//! (tests/model_runner.rs): files hidden by `core.excludesFile` wherever git would read it,
//! never a reflog or a stash entry, and its key never through a proxy in clear.

use serde_json::json;

use crate::model_runner::{ASK, DONE, against, call, interview, tool_results};
use crate::util::mock_chat::{MockChat, Step};
use crate::util::mock_model::wire;
use crate::util::*;

/// Nothing containing `marker` went to the model's server.
fn never_sent(mock: &MockChat, marker: &str) {
    for seen in mock.seen() {
        assert!(
            !seen.body.to_string().contains(marker),
            "{marker} was sent: {}",
            seen.body
        );
    }
}

/// A model that reads `name`, lists the root and searches for what starts every marker, then
/// asks and ends.
fn looks_for(name: &str) -> MockChat {
    MockChat::start(vec![
        Step::Calls(vec![
            call(
                "read_file",
                json!({"path": name, "start_line": null, "end_line": null}),
            ),
            call("list_directory", json!({"path": "."})),
            call(
                "search",
                json!({"pattern": "TOP-SECRET", "path": null, "fixed_string": true}),
            ),
        ]),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ])
}

#[test]
fn files_excluded_by_the_repositorys_core_excludes_file_are_never_read() {
    for sandbox in ["auto", "off"] {
        let repo = TempRepo::new();
        let excludes = repo.home().join("repo-excludes");
        std::fs::write(&excludes, "private-notes.txt\n").unwrap();
        repo.git(&[
            "config",
            "core.excludesFile",
            &excludes.display().to_string(),
        ]);
        repo.write("private-notes.txt", "TOP-SECRET-EXCLUDED\n");
        let mock = looks_for("private-notes.txt");
        against(interview(&repo).args(["--sandbox", sandbox]), &mock, &[])
            .run()
            .exits(0);
        never_sent(&mock, "TOP-SECRET-EXCLUDED");
        let r = tool_results(&mock);
        assert!(
            r[0].contains("ignored by the repository's ignore files"),
            "{r:?}"
        );
        assert!(!r[1].contains("private-notes"), "{sandbox}: {r:?}");
    }
}

#[test]
fn files_excluded_through_an_included_global_config_are_never_read() {
    let repo = TempRepo::new();
    let home = repo.home();
    std::fs::write(home.join("global-excludes"), "*.local.env\n").unwrap();
    std::fs::write(
        home.join("more.gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.join("global-excludes").display()
        ),
    )
    .unwrap();
    let gitconfig = home.join(".gitconfig");
    let mut text = std::fs::read_to_string(&gitconfig).unwrap_or_default();
    text.push_str(&format!(
        "[include]\n\tpath = {}\n",
        home.join("more.gitconfig").display()
    ));
    std::fs::write(&gitconfig, text).unwrap();
    repo.write("prod.local.env", "TOKEN=TOP-SECRET-INCLUDED\n");
    let mock = looks_for("prod.local.env");
    against(interview(&repo), &mock, &[]).run().exits(0);
    never_sent(&mock, "TOP-SECRET-INCLUDED");
    let r = tool_results(&mock);
    assert!(
        r[0].contains("ignored by the repository's ignore files"),
        "{r:?}"
    );
}

#[test]
fn no_reflog_or_stash_entry_is_shown_however_it_is_named() {
    let repo = TempRepo::new();
    repo.write("config.txt", "password = TOP-SECRET-AMENDED\n");
    repo.git(&["add", "config.txt"]);
    repo.git(&["commit", "-qm", "add config"]);
    let amended = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.write("config.txt", "password = from the environment\n");
    repo.git(&["commit", "-qa", "--amend", "-m", "add config"]);
    repo.write("README.md", "# test repo\nTOP-SECRET-STASHED\n");
    repo.write("scratch.txt", "TOP-SECRET-UNTRACKED\n");
    repo.git(&["stash", "push", "-q", "-u", "-m", "WIP secret"]);
    let stash = repo.git(&["rev-parse", "stash@{0}"]).trim().to_string();
    let show =
        |rev: &str, path: Option<&str>| call("git_show", json!({"commit": rev, "path": path}));
    let refused = [
        "HEAD@{1}",
        "@{1}",
        "main@{1}",
        "stash@{0}",
        "stash",
        "refs/stash",
        "stash^2",
        "stash^3",
        ":/WIP",
        amended.as_str(),
        stash.as_str(),
    ];
    let mut calls: Vec<(String, String)> = refused.iter().map(|r| show(r, None)).collect();
    calls.push(show(&amended, Some("config.txt")));
    calls.push(show("stash^3", Some("scratch.txt")));
    calls.push(show("HEAD", Some("config.txt")));
    let mock = MockChat::start(vec![
        Step::Calls(calls),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    for marker in [
        "TOP-SECRET-AMENDED",
        "TOP-SECRET-STASHED",
        "TOP-SECRET-UNTRACKED",
    ] {
        never_sent(&mock, marker);
    }
    let r = tool_results(&mock);
    assert_eq!(r.len(), refused.len() + 3, "{r:#?}");
    for (got, rev) in r.iter().zip(refused.iter().chain([&"amended", &"stash^3"])) {
        assert!(
            got.contains("reflog and stash entries are not shown"),
            "{rev}: {got}"
        );
    }
    // The history on a branch is still there.
    let last = r.last().unwrap();
    assert!(last.contains("from the environment"), "{last}");
}

/// A proxy that records each connection and closes it at once.
fn recording_proxy() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (address, count)
}

#[test]
fn the_key_for_a_plain_http_server_never_goes_through_a_proxy() {
    let repo = TempRepo::new();
    let (proxy, connections) = recording_proxy();
    let mock = MockChat::start(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
    let mut run = interview(&repo);
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        run = run.env(var, &proxy);
    }
    against(run.env("NO_PROXY", "").env("no_proxy", ""), &mock, &[])
        .run()
        .exits(0);
    assert_eq!(
        connections.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the request (and its key) went to the proxy"
    );
    assert!(!mock.seen().is_empty());
}
