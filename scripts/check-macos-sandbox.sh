#!/usr/bin/env bash
# On a Mac, in Terminal: check that a command run under interview's Seatbelt sandbox cannot
# write the repository, its git directory, HOME or the terminal, nor signal a process outside
# the sandbox — and that it can still write its own TMPDIR. Each attempt runs through
# `interview guard --sandbox require -- sh -c …`, the same launcher a runner starts in.
#
#   cargo build && INTERVIEW=target/debug/interview scripts/check-macos-sandbox.sh
#
# Prints one line per check and exits 1 if any failed.
set -u
bin=${INTERVIEW:-interview}
case "$bin" in /*) ;; */*) bin="$PWD/$bin" ;; esac
if [ "$(uname -s)" != Darwin ]; then
  echo "check-macos-sandbox: this checks the macOS sandbox; run it on a Mac" >&2
  exit 2
fi
terminal=$(tty 2>/dev/null) || terminal=
work=$(mktemp -d)
repo="$work/repo"
home_probe="$HOME/.interview-sandbox-check-$$"
victim_pid=
cleanup() {
  [ -n "$victim_pid" ] && kill "$victim_pid" 2>/dev/null
  rm -rf "$work" "$home_probe"
}
trap cleanup EXIT
git init -q "$repo" && cd "$repo" || exit 2
echo "original" > README.md
git add README.md && git -c user.name=check -c user.email=check@example.invalid commit -qm init
failed=0
pass() { echo "ok    $1"; }
fail() { echo "FAIL  $1"; failed=1; }
# Run a shell script in the sandbox; its exit code.
sandboxed() { "$bin" guard --sandbox require -- sh -c "$1" >/dev/null 2>&1; }

"$bin" runners --json | grep -q '"seatbelt": true' &&
  pass "interview runners says Seatbelt is enforced" ||
  fail "interview runners does not say Seatbelt is enforced ($bin runners)"

sandboxed 'echo ok > "$TMPDIR/x" && test "$(cat "$TMPDIR/x")" = ok' &&
  pass "the sandboxed command writes its own TMPDIR" ||
  fail "the sandboxed command could not write its own TMPDIR (or did not run at all)"

sandboxed 'echo pwned >> README.md'
[ "$(cat README.md)" = original ] && pass "a write to the repository is refused" ||
  fail "the repository was written: $(cat README.md)"

sandboxed 'echo "[core] pwned = true" >> .git/config; touch .git/hooks/pre-commit'
if grep -q pwned .git/config || [ -e .git/hooks/pre-commit ]; then
  fail "the git directory was written"
else
  pass "a write to the git directory is refused"
fi

sandboxed "echo pwned > '$home_probe'"
[ ! -e "$home_probe" ] && pass "a write to HOME is refused" || fail "HOME was written: $home_probe"

if [ -n "$terminal" ]; then
  sandboxed "printf '\\033]0;pwned\\007' > '$terminal'" && fail "the terminal $terminal was written" ||
    pass "a write to the terminal $terminal is refused"
  sandboxed "head -c 0 < '$terminal'" && fail "the terminal $terminal was opened for reading" ||
    pass "the terminal $terminal cannot even be opened for reading"
else
  fail "the terminal checks need a terminal: run this script in Terminal"
fi

sleep 3017 &
victim_pid=$!
sandboxed "kill -TERM $victim_pid"
kill -0 "$victim_pid" 2>/dev/null && pass "a signal to a process outside the sandbox is refused" ||
  fail "the sandboxed command killed process $victim_pid outside the sandbox"

exit $failed
