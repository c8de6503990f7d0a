#!/bin/sh
# Benchmark of the change guard: snapshot time, a guarded no-op (`interview guard -- true`: two
# snapshots and their diff) and peak memory against
# `git status --porcelain=v2 --ignored=matching --untracked-files=all` on the same synthetic
# repository (N tracked files in 20-file directories, plus an ignored build tree of N/5 files).
# Prints median wall times and their ratios, and the ratios of median CPU time (user + system,
# less sensitive to other load on the machine); the three commands are run interleaved.
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

# One timed run: appends "wall cpu maxrss_kib" to file $1 (wall to the millisecond; cpu = user +
# system seconds, at the 10 ms resolution of `time`).
timed() {
    out=$1
    shift
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$work/t" "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    awk -v ns=$((t1 - t0)) '{ printf "%.3f %.2f %s\n", ns / 1e9, $1 + $2, $3 }' "$work/t" >> "$out"
}

# The median of column $2 of file $1 (the runs' middle value).
median() {
    sort -n -k "$2" "$1" | awk -v r="$runs" -v c="$2" 'NR == int((r + 1) / 2) { print $c }'
}

# The largest value of column 3 (peak RSS in KiB) of file $1.
peak() {
    awk '{ if ($3 > m) m = $3 } END { print m }' "$1"
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

printf '%-8s %-8s %-9s %-9s %-6s %-9s %-6s %-13s %-13s %-8s %s\n' files ignored "snapshot" "git" ratio "guarded" ratio "cpu ratios" "" "RSS" "git RSS"
for n in $sizes; do
    repo="$work/repo-$n"
    [ -d "$repo/.git" ] || generate "$repo" "$n" >/dev/null
    cd "$repo"
    # Warm the page cache for both.
    git status --porcelain=v2 --ignored=matching --untracked-files=all >/dev/null
    "$INTERVIEW" guard snapshot >/dev/null
    : > "$work/snap"
    : > "$work/git"
    : > "$work/noop"
    # Interleaved, so that load from elsewhere on the machine falls on all three alike.
    i=0
    while [ "$i" -lt "$runs" ]; do
        timed "$work/snap" "$INTERVIEW" guard snapshot
        timed "$work/git" git status --porcelain=v2 --ignored=matching --untracked-files=all
        timed "$work/noop" "$INTERVIEW" guard -- true
        i=$((i + 1))
    done
    cd - >/dev/null
    snap_t=$(median "$work/snap" 1) git_t=$(median "$work/git" 1) noop_t=$(median "$work/noop" 1)
    snap_c=$(median "$work/snap" 2) git_c=$(median "$work/git" 2) noop_c=$(median "$work/noop" 2)
    snap_m=$(peak "$work/snap") noop_m=$(peak "$work/noop") git_m=$(peak "$work/git")
    [ "$noop_m" -gt "$snap_m" ] && snap_m=$noop_m
    printf '%-8s %-8s %-9s %-9s %-6s %-9s %-6s %-13s %-13s %-8s %s\n' "$n" "$((n / 5))" "${snap_t}s" "${git_t}s" \
        "$(ratio "$snap_t" "$git_t")" "${noop_t}s" "$(ratio "$noop_t" "$git_t")" \
        "$(ratio "$snap_c" "$git_c") (snap)" "$(ratio "$noop_c" "$git_c") (guarded)" \
        "$((snap_m / 1024)) MiB" "$((git_m / 1024)) MiB"
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
