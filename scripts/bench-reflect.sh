#!/bin/sh
# Benchmark of `interview reflect`: the whole run (built-in runner, replayed answers, document
# to stdout) against `git log --numstat --no-renames` over the same range, on a generated history
# of N commits (`git fast-import`; 400 files in 40 directories, one to two files changed per
# commit, TODOs now and then, a file replaced every 500 commits).
#
# Prints, per size: the median wall time of each command, the ratio cold (no cache in the local
# tier) and on a re-run (the cache filled by the run before), and the peak RSS of the reflect
# run; then the same for the facts alone (`examples/reflect_facts.rs`: no session, guard or
# runner turns). The commands take turns, round after round; each ratio is the median of the
# rounds' ratios, so a load that changes while it runs weighs on both sides of a ratio alike.
#
# Usage: scripts/bench-reflect.sh [N...]      (default: 10000)
# Env:   BENCH_DIR (default: a new temp dir), RUNS (rounds, default 5; medians are reported),
#        REPACK=1 (the history repacked with `git repack -adf` after generating, as `git gc` or a
#        clone stores it: newest versions whole, older ones deltas on them; fast-import stores
#        each version as a delta on the one before; its own repository, repo-N-repacked),
#        INTERVIEW and FACTS (prebuilt `interview` and `reflect_facts` example binaries;
#        default: build both with cargo --release).
set -eu

sizes=${*:-10000}
runs=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${INTERVIEW:-}" ] || [ -z "${FACTS:-}" ]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin interview \
        --example reflect_facts
    INTERVIEW=${INTERVIEW:-"$root/target/release/interview"}
    FACTS=${FACTS:-"$root/target/release/examples/reflect_facts"}
fi
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-reflect.XXXXXX")}
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home"
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com
git config --global init.defaultBranch main

generate() { # $1 = repo dir, $2 = commits
    mkdir -p "$1"
    git -C "$1" init -q
    awk -v n="$2" 'BEGIN {
        srand(7); files = 400; t = 1500000000
        for (f = 0; f < files; f++) {
            name[f] = sprintf("src/d%02d/file%03d.rs", f % 40, f)
            body[f] = ""
            for (l = 0; l < 40; l++) body[f] = body[f] sprintf("fn f%d_%d() {}\n", f, l)
        }
        for (c = 0; c <= n; c++) {
            t += 60 + int(rand() * 3000)
            msg = (c == 0) ? "root" : sprintf("change %d", c)
            if (c % 211 == 5) msg = sprintf("Revert \"change %d\"", c - 3)
            printf "commit refs/heads/main\nmark :%d\n", c + 1
            a = int(rand() * 20)
            printf "author Dev%d <dev%d@example.com> %d +0000\n", a, a, t
            printf "committer Dev%d <dev%d@example.com> %d +0000\n", a, a, t
            printf "data %d\n%s\n", length(msg), msg
            if (c == 0) {
                for (f = 0; f < files; f++) emit(f)
            } else {
                k = 1 + (rand() < 0.4)
                for (j = 0; j < k; j++) { f = int(rand() * files); edit(f, c); emit(f) }
                if (c % 500 == 0) {
                    f = int(rand() * files)
                    printf "D %s\n", name[f]
                    name[f] = sprintf("src/d%02d/new%05d.rs", f % 40, c)
                    emit(f)
                }
            }
            printf "\n"
        }
    }
    function edit(f, c,    n, lines, i, at, out) {
        n = split(body[f], lines, "\n") - 1
        at = 1 + int(rand() * n)
        out = ""
        for (i = 1; i <= n; i++) {
            if (i == at) {
                out = out sprintf("fn change%d() {}\n", c)
                if (c % 97 == 0) out = out sprintf("// TODO: revisit change %d\n", c)
                if (rand() < 0.5) out = out lines[i] "\n"
            } else out = out lines[i] "\n"
        }
        if (n > 120) { sub(/^[^\n]*\n/, "", out) }
        body[f] = out
    }
    function emit(f) {
        printf "M 100644 inline %s\ndata %d\n%s\n", name[f], length(body[f]), body[f]
    }' | git -C "$1" fast-import --quiet
    git -C "$1" reset -q --hard main
    printf '{ "interview_answers": 1, "answers": {} }\n' > "$work/answers.json"
}

# Wall seconds (to the millisecond) and max RSS (KiB) of one run of a command, appended to
# "$work/$1"; `$before` runs first, untimed.
measure() {
    name=$1
    shift
    eval "$before"
    t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || {
        cat "$work/err" >&2
        exit 1
    }
    t1=$(date +%s.%N)
    echo "$t0 $t1 $(tail -n 1 "$work/t")" | awk '{ printf "%.4f %d\n", $2 - $1, $3 }' >> "$work/$name"
}

# The median of a column of a file.
median() {
    sort -n "$1" | awk -v c="${2:-1}" '{ split($0, f, " "); v[NR] = f[c] } END { print v[int((NR + 1) / 2)] }'
}

# The largest value of the second column (RSS) of a file.
peak() {
    awk '{ if ($2 > m) m = $2 } END { print m }' "$1"
}

for n in $sizes; do
    repo="$work/repo-$n${REPACK:+-repacked}"
    if [ ! -d "$repo" ]; then
        generate "$repo" "$n"
        [ -z "${REPACK:-}" ] || git -C "$repo" repack -adfq
    fi
    # What generating wrote is flushed first: a session's few fsyncs must not pay for writing
    # back a repository made a moment ago (they did: 0.66x instead of 0.57x cold).
    sync
    base=$(git -C "$repo" rev-list --max-parents=0 HEAD)
    cd "$repo"
    rm -f "$work/git" "$work/cold" "$work/warm" "$work/fcold" "$work/fwarm" "$work/ratios"
    # Interleaved, so that a change in the machine's load touches every command alike; each
    # ratio is taken within one round, and the median of the rounds' ratios is reported.
    i=0
    while [ "$i" -lt "$runs" ]; do
        before=":"
        measure git git log --numstat --no-renames "$base..HEAD"
        # Each round starts from a tier without cache or sessions (the guard's snapshot grows with
        # what the tier holds): the re-run sees the cold run's cache and session.
        before="rm -rf .interview/cache .interview/sessions"
        measure cold "$INTERVIEW" reflect "$base" --runner builtin --answers "$work/answers.json" \
            --missing skip --yes --out -
        before=":"
        measure warm "$INTERVIEW" reflect "$base" --runner builtin --answers "$work/answers.json" \
            --missing skip --yes --out -
        before="rm -rf .interview/cache"
        measure fcold "$FACTS" "$base" --cached
        before=":"
        measure fwarm "$FACTS" "$base" --cached
        paste -d ' ' "$work/git" "$work/cold" "$work/warm" "$work/fcold" "$work/fwarm" | tail -n 1 |
            awk '{ printf "%.4f %.4f %.4f %.4f\n", $3 / $1, $5 / $1, $7 / $1, $9 / $1 }' >> "$work/ratios"
        i=$((i + 1))
    done
    cd - >/dev/null
    awk -v n="$n" -v cores="$(nproc)" -v runs="$runs" \
        -v g="$(median "$work/git")" -v c="$(median "$work/cold")" -v w="$(median "$work/warm")" \
        -v fc="$(median "$work/fcold")" -v fw="$(median "$work/fwarm")" \
        -v rc="$(median "$work/ratios" 1)" -v rw="$(median "$work/ratios" 2)" \
        -v rfc="$(median "$work/ratios" 3)" -v rfw="$(median "$work/ratios" 4)" \
        -v ck="$(peak "$work/cold")" -v wk="$(peak "$work/warm")" -v fk="$(peak "$work/fcold")" \
        -v repacked="${REPACK:+ (repacked)}" -v load="$(cut -d ' ' -f 1 /proc/loadavg)" 'BEGIN {
        printf "%d commits%s, %d cores, load %s, median of %d rounds: git log --numstat %.3f s; reflect cold %.3f s (%.2fx), re-run %.3f s (%.2fx); peak RSS %.0f MB cold, %.0f MB re-run\n",
            n, repacked, cores, load, runs, g, c, rc, w, rw, ck / 1024, wk / 1024
        printf "  facts alone: cold %.3f s (%.2fx), re-run %.3f s (%.2fx); peak RSS %.0f MB\n",
            fc, rfc, fw, rfw, fk / 1024
    }'
done
