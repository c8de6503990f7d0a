#!/usr/bin/env python3
"""Score the development set's first rounds against the maintainers' replies.

Usage: scripts/devset-score.py [SET]      (SET defaults to examples/devset)

Reads SET/out/<id>.asked (the first round's questions, written by scripts/devset.sh),
SET/out/<id>.check (the claims checked), SET/scores.tsv (a relevance score, 1-5, per question:
would the maintainer want it, judged against SET/replies.tsv) and SET/coverage.tsv (how many of
the decisions the maintainer raised the round covers, 0-5). Prints a row per case and the totals:

- relevance: the mean of the case means;
- coverage: the mean over the cases;
- honest: no FALSE line in the case's .check;
- generic: a question whose text names nothing of the item or the repository (no code span,
  no path:line, no "Line N", no quote, no version number) - the same on every item;
- recommended: option questions that carry a recommended option, over all option questions.

A question without a score, or scored on another text, is reported and fails the run: the
scores are for the questions as asked today.
"""
import csv
import os
import re
import sys

GROUNDED = re.compile(r"`|\w[\w./-]*:\d+|\b[Ll]ine \d+|\"|\d+\.\d+")


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "examples", "devset")
    cases = read_tsv(os.path.join(root, "cases.tsv"))
    scores = {(r["id"], r["topic"]): r for r in read_tsv(os.path.join(root, "scores.tsv"))}
    coverage = {r["id"]: r for r in read_tsv(os.path.join(root, "coverage.tsv"))}
    problems = []
    rows = []
    asked = generic = options = recommended = false_claims = 0
    for case in cases:
        cid = case["id"]
        path = os.path.join(root, "out", cid + ".asked")
        questions = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                topic, n_options, rec, text = line.rstrip("\n").split("\t", 3)
                questions.append((topic, int(n_options), rec, text))
        rel = []
        case_generic = 0
        for topic, n_options, rec, text in questions:
            s = scores.get((cid, topic))
            if s is None:
                problems.append(f"{cid} {topic}: no score ({text[:80]})")
                continue
            if not text.startswith(s["asked"].rstrip("…")):
                problems.append(f"{cid} {topic}: scored on another text: rescore ({text[:80]})")
            rel.append(int(s["relevance"]))
            if not GROUNDED.search(text):
                case_generic += 1
            if n_options:
                options += 1
                recommended += rec != "-"
        with open(os.path.join(root, "out", cid + ".check"), encoding="utf-8") as f:
            wrong = sum(1 for l in f if l.startswith("FALSE"))
        false_claims += wrong
        cov = coverage.get(cid)
        if cov is None:
            problems.append(f"{cid}: no coverage score")
            continue
        asked += len(questions)
        generic += case_generic
        mean = sum(rel) / len(rel) if rel else 0.0
        rows.append((cid, case["language"], case["kind"], len(questions), mean,
                     int(cov["coverage"]), "yes" if not wrong else f"NO ({wrong})", case_generic))
    print(f"{'case':<18} {'language':<11} {'kind':<12} {'asked':>5} {'relevance':>9} "
          f"{'coverage':>8} {'honest':>7} {'generic':>7}")
    for r in rows:
        print(f"{r[0]:<18} {r[1]:<11} {r[2]:<12} {r[3]:>5} {r[4]:>9.1f} {r[5]:>8} {r[6]:>7} {r[7]:>7}")
    n = len(rows) or 1
    print(f"\n{len(rows)} cases, {len({c['language'] for c in cases})} languages, "
          f"kinds: {', '.join(sorted({c['kind'] for c in cases}))}")
    print(f"mean relevance {sum(r[4] for r in rows) / n:.2f}, mean coverage "
          f"{sum(r[5] for r in rows) / n:.2f}, false claims {false_claims}, "
          f"generic {generic} of {asked} asked, "
          f"recommendation on {recommended} of {options} option questions "
          f"({100 * recommended / max(options, 1):.0f}%)")
    for p in problems:
        print("PROBLEM  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
