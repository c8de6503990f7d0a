#!/bin/sh
# `cargo publish --dry-run` in full: the package `interview-cli` as it would be uploaded is
# unpacked and built (reaching crates.io's index only; nothing is sent). Cargo keys the build of
# the unpacked copy like the worktree's own, so afterwards the package's build is cleaned: left
# in place, it would make the worktree's library look up to date after an edit.
set -u
cd "$(dirname "$0")/.."
cargo publish --dry-run --locked --allow-dirty "$@"
status=$?
cargo clean --quiet -p interview-cli
exit $status
