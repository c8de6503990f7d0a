#!/bin/sh
# Benchmark of the change guard: snapshot time, a guarded no-op (`interview guard -- true`: two
# snapshots and their diff) and peak memory against
# `git status --porcelain=v2 --ignored=matching --untracked-files=all` on the same synthetic
# repository (N tracked files in 20-file directories, plus an ignored build tree of N/5 files).
#
# Usage: scripts/bench-guard.sh [N...]        (default: 10000 100000)
# Env:   BENCH_DIR (default: a new temp dir), RUNS (default 5, the median is reported),
#        INTERVIEW (a prebuilt binary; default: build with cargo --release).
set -eu

sizes=${*:-"10000 100000"}
runs=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${INTERVIEW:-}" ]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin interview
    INTERVIEW="$root/target/release/interview"
fi
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-guard.XXXXXX")}
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home"
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com
git config --global init.defaultBranch main

generate() { # $1 = repo dir, $2 = number of tracked files
    mkdir -p "$1"
    cd "$1"
    git init -q
    awk -v n="$2" 'BEGIN {
        for (i = 0; i < n; i++) {
            d = sprintf("src/m%03d/d%04d", int(i / 2000), int(i / 20));
            if (d != last) { system("mkdir -p " d); last = d }
            f = sprintf("%s/file%06d.txt", d, i);
            printf "line one of file %d\nline two\n", i > f; close(f);
        }
        b = int(n / 5);
        for (i = 0; i < b; i++) {
            d = sprintf("target/debug/deps/g%04d", int(i / 50));
            if (d != lastb) { system("mkdir -p " d); lastb = d }
            f = sprintf("%s/obj%06d.o", d, i);
            printf "object %d\n", i > f; close(f);
        }
    }'
    printf 'target/\n*.log\n' > .gitignore
    git add -A
    # gc here, not in the background (`git commit` would start `git gc --auto` detached, which
    # rewrites the object store while the guard is measured — and is rightly reported).
    git -c gc.auto=0 commit -q -m "synthetic tree"
    git gc --quiet
    # A few dirty, untracked and ignored files, as in a real working session.
    echo edit >> src/m000/d0000/file000000.txt
    echo new > src/m000/untracked.txt
    echo log > build.log
    git status --porcelain >/dev/null # settle the index stat cache like a real worktree
    cd - >/dev/null
}

# Median wall seconds and max RSS (KiB) of `RUNS` runs of a command.
measure() {
    : > "$work/times"
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1
        cat "$work/t" >> "$work/times"
        i=$((i + 1))
    done
    sort -n "$work/times" | awk -v r="$runs" 'NR == int((r + 1) / 2) { t = $1 } { if ($2 > m) m = $2 } END { print t, m }'
}

printf '%-8s %-9s %-14s %-14s %-7s %-16s %-7s %-16s %s\n' files ignored "snapshot (s)" "git status (s)" ratio "guard -- true" ratio "snapshot RSS" "git RSS"
for n in $sizes; do
    repo="$work/repo-$n"
    [ -d "$repo/.git" ] || generate "$repo" "$n" >/dev/null
    cd "$repo"
    # Warm the page cache for both.
    git status --porcelain=v2 --ignored=matching --untracked-files=all >/dev/null
    "$INTERVIEW" guard snapshot >/dev/null
    set -- $(measure "$INTERVIEW" guard snapshot)
    snap_t=$1 snap_m=$2
    set -- $(measure git status --porcelain=v2 --ignored=matching --untracked-files=all)
    git_t=$1 git_m=$2
    set -- $(measure "$INTERVIEW" guard -- true)
    noop_t=$1 noop_m=$2
    cd - >/dev/null
    ratio=$(awk -v a="$snap_t" -v b="$git_t" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    noop_ratio=$(awk -v a="$noop_t" -v b="$git_t" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    [ "$noop_m" -gt "$snap_m" ] && snap_m=$noop_m
    printf '%-8s %-9s %-14s %-14s %-7s %-16s %-7s %-16s %s\n' "$n" "$((n / 5))" "$snap_t" "$git_t" "$ratio" \
        "$noop_t" "$noop_ratio" "$((snap_m / 1024)) MiB" "$((git_m / 1024)) MiB"
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
