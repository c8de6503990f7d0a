//! CI where users are (`.github/workflows/`): `.ci/run` on Linux, the tests and the Seatbelt
//! check on a real Mac, a build at Cargo.toml's `rust-version`, `cargo doc` failing on a
//! warning; release binaries for Linux and macOS on both architectures with their checksums.
//! `.ci/run` lints both files with actionlint; this reads what they promise.

use super::root;

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of the job `name` in a workflow: its `  name:` line and the lines below it, up to
/// the next key at the same depth.
fn job(workflow: &str, name: &str) -> String {
    let key = format!("  {name}:");
    let mut lines = workflow.lines().skip_while(|l| *l != key);
    let first = lines.next().unwrap_or_else(|| panic!("no job `{name}`"));
    let body = lines.take_while(|l| l.is_empty() || l.starts_with("   ") || l.starts_with("  #"));
    std::iter::once(first)
        .chain(body)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ci_runs_the_checks_on_linux_on_a_real_mac_and_at_the_declared_rust_version() {
    let ci = read(".github/workflows/ci.yml");
    let linux = job(&ci, "linux");
    assert!(linux.contains("runs-on: ubuntu-latest"), "{linux}");
    assert!(linux.contains("run: bash .ci/run"), "{linux}");

    let macos = job(&ci, "macos");
    assert!(
        macos.contains("name: \"macOS"),
        "the macOS job is named: {macos}"
    );
    assert!(macos.contains("runs-on: macos-latest"), "{macos}");
    assert!(macos.contains("cargo test"), "{macos}");
    assert!(
        macos.contains("scripts/check-macos-sandbox.sh"),
        "the Seatbelt check runs on the Mac: {macos}"
    );

    let msrv = job(&ci, "msrv");
    assert!(msrv.contains("name: msrv"), "{msrv}");
    assert!(
        msrv.contains("rust-version") && msrv.contains("steps.msrv.outputs.version"),
        "the MSRV job builds with the toolchain Cargo.toml declares: {msrv}"
    );
    assert!(msrv.contains("cargo build"), "{msrv}");
    let manifest = read("Cargo.toml");
    assert!(
        manifest.contains("\nrust-version = \""),
        "Cargo.toml declares rust-version"
    );

    let doc = job(&ci, "doc");
    assert!(
        doc.contains("cargo doc --no-deps") && doc.contains("RUSTDOCFLAGS: -D warnings"),
        "{doc}"
    );
    let run = read(".ci/run");
    assert!(run.contains("RUSTDOCFLAGS='-D warnings' cargo doc --no-deps"));
    assert!(run.contains("actionlint"), ".ci/run lints the workflows");
}

#[test]
fn a_release_builds_linux_and_macos_binaries_on_both_architectures_with_checksums() {
    let release = read(".github/workflows/release.yml");
    assert!(release.contains("tags: [\"v*\"]"), "built on a v* tag");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
    ] {
        assert!(
            release.contains(&format!("target: {target}")),
            "no build for {target}"
        );
        let readme = read("README.md");
        assert!(readme.contains(target), "README.md does not offer {target}");
    }
    assert!(
        release.contains("shasum -a 256"),
        "each archive has its SHA-256"
    );
    assert!(
        release.contains("SHA256SUMS"),
        "and one file lists them all"
    );
}
