#!/bin/sh
# `cargo publish --dry-run` in full: the package `interview-cli` as it would be uploaded is
# unpacked and built. The build goes to its own target directory (target/publish-check): cargo
# keys the unpacked copy's build like the worktree's, and sharing target/ would leave the
# worktree's library looking up to date after an edit. Reaches crates.io's index only.
set -eu
cd "$(dirname "$0")/.."
exec cargo publish --dry-run --locked --allow-dirty --target-dir target/publish-check "$@"
