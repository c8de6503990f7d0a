#!/usr/bin/env bash
# Type-check the crate for macOS on a Linux machine: Debian's rustc-web, with its standard
# library sources, builds std for the Apple target (-Zbuild-std), so every
# cfg(target_os = "macos") path and every test is type-checked without a Mac. Nothing is linked
# or run. The first run takes about 10 minutes on 2 cores; its target directory (target/macos)
# is kept apart from the normal one.
#
#   scripts/check-macos-build.sh                        # aarch64-apple-darwin
#   scripts/check-macos-build.sh x86_64-apple-darwin
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-aarch64-apple-darwin}

# rustc-web 1.88 or newer (the crate's rust-version) with its library sources.
usable() {
  [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] && [ -d /usr/lib/rustlib/src/rust/library ] &&
    /usr/bin/rustc --version | awk '{ split($2, v, "."); exit !(v[1] > 1 || v[2] >= 88) }'
}
if ! usable; then
  apt-get update -qq && apt-get install -y -qq rustc-web cargo-web rust-web-src
fi
if ! usable; then
  echo "check-macos-build: needs Debian's rustc-web 1.88 or newer, cargo-web and rust-web-src" >&2
  exit 1
fi
# A warning (code only Linux uses, left ungated) fails the check.
RUSTFLAGS='-D warnings' RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=target/macos \
  /usr/bin/cargo check -Zbuild-std=std,panic_abort --target "$target" --all-targets
