//! The core turn loop: runner dispatch, receipts, retries, the local tier, exit codes.

use crate::util::*;

#[test]
fn version_prints() {
    let repo = TempRepo::new();
    let out = repo.run(&["--version"]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("interview "));
}
