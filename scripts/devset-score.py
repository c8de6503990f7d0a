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
- recommended: option questions that carry a recommended option, over all option questions;
- grounded: a question names existing code of the repository (a path:line or a definition) that
  the maintainer's replies also concern (coverage.tsv's `grounded`, by hand), counted over cases.

A case that asks nothing has no relevance (left out of the mean, shown "-") and its coverage.
Every figure is given for each half of the set and for the whole. The halves are fixed by the
case's id alone: `held-out` when the first byte of sha1(id) is odd, else `tune` (see half()).
A set whose folder holds a file named TUNE-ONLY (examples/tuneset, the tuning pool) is tune
throughout: none of its cases measures the interviewer.

A question without a score, or scored on another text, is reported and fails the run: the
scores are for the questions as asked today.
"""
import csv
import hashlib
import os
import re
import sys

GROUNDED = re.compile(r"`|\w[\w./-]*:\d+|\b[Ll]ine \d+|\"|\d+\.\d+")


def half(case_id, tune_only=False):
    """The split, decided once: held-out when the first byte of sha1(id as UTF-8) is odd."""
    if tune_only:
        return "tune"
    first_byte = int(hashlib.sha1(case_id.encode("utf-8")).hexdigest()[:2], 16)
    return "held-out" if first_byte % 2 == 1 else "tune"


def summary(name, rows):
    """One line of figures for a set of rows (a half, or the whole)."""
    n = len(rows)
    scored = [r for r in rows if r["relevance"] is not None]
    asked = sum(r["asked"] for r in rows)
    options = sum(r["options"] for r in rows)
    recommended = sum(r["recommended"] for r in rows)
    rel = sum(r["relevance"] for r in scored) / max(len(scored), 1)
    cov = sum(r["coverage"] for r in rows) / max(n, 1)
    return (f"{name}: {n} cases, {len({r['language'] for r in rows})} languages: "
            f"relevance {rel:.2f} ({len(scored)} cases that asked), coverage {cov:.2f}, "
            f"grounded {sum(r['grounded'] for r in rows)} of {n}, "
            f"false claims {sum(r['false'] for r in rows)}, "
            f"generic {sum(r['generic'] for r in rows)} of {asked} asked, "
            f"recommendation on {recommended} of {options} option questions "
            f"({100 * recommended / max(options, 1):.0f}%)")


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "examples", "devset")
    cases = read_tsv(os.path.join(root, "cases.tsv"))
    tune_only = os.path.exists(os.path.join(root, "TUNE-ONLY"))
    scores = {(r["id"], r["topic"]): r for r in read_tsv(os.path.join(root, "scores.tsv"))}
    coverage = {r["id"]: r for r in read_tsv(os.path.join(root, "coverage.tsv"))}
    problems = []
    rows = []
    for case in cases:
        cid = case["id"]
        path = os.path.join(root, "out", cid + ".asked")
        questions = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                topic, n_options, rec, text = line.rstrip("\n").split("\t", 3)
                questions.append((topic, int(n_options), rec, text))
        rel = []
        case_generic = options = recommended = 0
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
        cov = coverage.get(cid)
        if cov is None:
            problems.append(f"{cid}: no coverage score")
            continue
        if cov.get("grounded") not in ("yes", "no"):
            problems.append(f"{cid}: grounded is neither yes nor no")
        rows.append({
            "id": cid, "half": half(cid, tune_only), "language": case["language"], "kind": case["kind"],
            "asked": len(questions), "relevance": sum(rel) / len(rel) if rel else None,
            "coverage": int(cov["coverage"]), "grounded": cov.get("grounded") == "yes",
            "false": wrong, "generic": case_generic, "options": options,
            "recommended": recommended,
        })
    print(f"{'case':<18} {'half':<8} {'language':<11} {'kind':<12} {'asked':>5} "
          f"{'relevance':>9} {'coverage':>8} {'grounded':>8} {'honest':>7} {'generic':>7}")
    for r in sorted(rows, key=lambda r: (r["half"] != "held-out",)):
        rel = "-" if r["relevance"] is None else f"{r['relevance']:.1f}"
        honest = "yes" if not r["false"] else f"NO ({r['false']})"
        print(f"{r['id']:<18} {r['half']:<8} {r['language']:<11} {r['kind']:<12} "
              f"{r['asked']:>5} {rel:>9} {r['coverage']:>8} "
              f"{'yes' if r['grounded'] else 'no':>8} {honest:>7} {r['generic']:>7}")
    print()
    for name in ("held-out", "tune"):
        print(summary(name, [r for r in rows if r["half"] == name]))
    print(summary("all", rows) + f"; kinds: {', '.join(sorted({c['kind'] for c in cases}))}")
    for p in problems:
        print("PROBLEM  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
