#!/bin/sh
# Run the built-in interviewer on the development set (examples/devset/, docs/devset.md): each
# case's repository checked out at the commit before its issue, the issue (paraphrased) as the work item, every
# question skipped at the gate so that the document lists them all. Then check every claim the
# document makes about the repository (scripts/devset-check.py).
#
# Usage: scripts/devset.sh [MIRRORS] [CASE…]
#   MIRRORS  a folder holding <owner>+<name>/repo git directories (default: $DEVSET_MIRRORS, else
#            /work/.mirror); clone them there first, e.g.
#            git clone --mirror https://github.com/sharkdp/fd "$MIRRORS/sharkdp+fd/repo"
#   CASE     ids from the set's cases.tsv (default: all)
#   DEVSET   the set to run (default: examples/devset; examples/tuneset is the tuning pool)
# Writes $DEVSET/out/<id>.md (the document), <id>.check (the claims checked) and
# <id>.asked (the first round's questions from the receipt: topic, options, recommended, text),
# which scripts/devset-score.py scores against $DEVSET/scores.tsv.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
mirrors=${1:-${DEVSET_MIRRORS:-/work/.mirror}}
[ $# -gt 0 ] && shift
bin=${INTERVIEW:-$root/target/debug/interview}
set=$(cd "${DEVSET:-$root/examples/devset}" && pwd)
out=$set/out
mkdir -p "$out"
tail -n +2 "$set/cases.tsv" | while IFS="$(printf '\t')" read -r id repo issue date commit lang kind url; do
  if [ $# -gt 0 ]; then
    case " $* " in *" $id "*) ;; *) continue ;; esac
  fi
  git_dir="$mirrors/$(printf %s "$repo" | tr / +)/repo"
  work=$(mktemp -d)
  git clone -q --shared --no-checkout "$git_dir" "$work/co"
  git -C "$work/co" -c advice.detachedHead=false checkout -q "$commit"
  rm -f "$out/$id.md" "$out/$id.check" "$out/$id.asked"
  start=$(date +%s%N)
  (cd "$work/co" && HOME=$work "$bin" intent "$issue" --from "$set/items/$id.md" \
    --runner builtin --answers "$root/examples/answers/skip-all.json" --missing skip --yes \
    --out "$out/$id.md" >/dev/null 2>"$work/stderr") || { cat "$work/stderr" >&2; exit 1; }
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  python3 - "$work/co" >"$out/$id.asked" <<'PY'
import glob, json, sys
# The first turn's receipt: the round the person is asked first.
for path in sorted(glob.glob(sys.argv[1] + "/.interview/sessions/*/turns/001/out/receipt.json"))[:1]:
    for q in json.load(open(path)).get("questions", []):
        text = " ".join(q["question_text"].split())
        print("\t".join([q["topic"], str(len(q.get("options") or [])), q.get("recommended") or "-", text]))
PY
  if python3 "$root/scripts/devset-check.py" "$work/co" "$out/$id.md" >"$out/$id.check"; then
    verdict=honest
  else
    verdict="FALSE: $(grep -c '^FALSE' "$out/$id.check") claim(s)"
  fi
  printf '%-18s %-11s %-11s %5d ms  %s claims checked, %s\n' "$id" "$lang" "$kind" "$ms" \
    "$(grep -c '' "$out/$id.check")" "$verdict"
  rm -rf "$work"
done
