#!/usr/bin/env python3
"""Check every claim a built-in interview document makes about its repository.

Usage: scripts/devset-check.py CHECKOUT DOCUMENT

Each "Defined at PATH:LINE", "First (in code) at PATH:LINE", every cited `path:line` source,
every "N lines in M files name it", every option "Defined at" / "Defined N times:" / "is already
defined (…)" (a cited line naming the option only as a word of prose, or handing it to a
command line, `push('--x')`, `run(["tool", "--x"])`, does not declare it), every "is new"
and "its declaration was not found" (no source
file outside the tests quotes the option as a parser declares it: '--x', "x|y", 'x=s'), every
"appear(s) nowhere", every
section claim (`PATH:N, "Heading", names `X` (line M)`: line N is that heading, no heading
comes between N and M, `X` is in a code span at M; `PATH:N, "Heading", says (line M): "…"`: the same, and the quote
is in line M verbatim, outside an HTML comment), every "at PATH:L in `f`" (the nearest
function declared above L is `f`), every line quoted after its place ("Defined at PATH:L: `…`":
line L holds the quotation), every pointer at code ("Nearest code to the report: `X` (PATH:L)":
line L declares X) and every other `X` tied to a line ("`X` (PATH:L)", "`X` at PATH:L": line L
names X), in the questions the person skipped as much as in the findings, is checked
against CHECKOUT (a clean checkout: git ls-files, the tool's own files and what the tracked
`.gitignore` / `.ignore` / `.rgignore` files leave out left out, tracked or not, as the interviewer's walker does). Prints one line per claim (ok / FALSE) and exits 1 when any claim is false.
"""
import os
import re
import subprocess
import sys

from devset_lines import (commented, declares, declares_at, enclosing, files, glob_match,
                          has_name, headings, page_prose, search_ignored, spellings, text_part,
                          whole_name)


# Source files, by extension: where a declaration of an option can stand.
SOURCE = re.compile(r"\.(rs|py|go|js|ts|mjs|cjs|jsx|tsx|java|kt|kts|scala|groovy|rb|pl|pm|php|cs|fs"
                    r"|swift|m|mm|c|cc|cpp|cxx|h|hh|hpp|lua|sh|bash|zsh|ex|exs|erl|hs|dart|clj|jl|nim"
                    r"|zig|cr)$")


TEST = re.compile(r"(^|/)(tests?|spec|__tests__|t)/|_test\.|test_[^/]*$|\.test\.|\.spec\.|\.t$")


def option_literal(flag):
    """A string literal, in either quote, that declares the option `flag` as option parsers
    take it: '--x', "-x", or a getopt spec ('x=s', "x|y", 'x!'); the bare name alone counts
    when it is hyphenated or one of alternatives (a bare word alone is any string)."""
    bare = re.escape(flag.lstrip("-"))
    spec = r"[=:!+][^'\"\n|]*"
    alone = f"|{bare}" if "-" in flag.lstrip("-") else rf"|{bare}(?=\|)|(?<=\|){bare}"
    return re.compile(rf"""(['"])(?:[^'"\n|]*\|)*(?:-{{0,2}}{bare}(?:{spec})|-{{1,2}}{bare}{alone})"""
                      rf"""(?:\|[^'"\n]*)?\1""")


# A call whose argument a literal is hands it to a command line, not declares it.
HANDED = re.compile(r"(?:\b(?:push|unshift|perform|append|extend|insert|arg|args|exec|execFile|spawn"
                    r"|system|run|call|check_call|check_output|popen|Popen)\s*\(|<<)\s*\[?\s*"
                    r"(?:[^()\[\]]*,\s*)?$")


def literal_declares(line, flag):
    """Whether `line` quotes the option `flag` as a declaration would (None when it does not
    quote it at all): a literal standing as a token of code (an argument, a list's item, a hash
    key, `case "--x":`), never a word of a longer string's prose, nor a literal handed to a
    command line (`push('--x')`, `args << '--x'`, `run(["tool", "--x"])`)."""
    seen = False
    for m in option_literal(flag).finditer(line):
        seen = True
        before, after = line[:m.start()], line[m.end():]
        opens = len(re.findall(r'(?<!\\)"', before)), len(re.findall(r"(?<!\\)'", before))
        inside = opens[0] % 2 == 1 if m.group(1) == "'" else opens[1] % 2 == 1
        lead = re.search(r"(^|[(\[{,=:|>]|\bcase|\bwhen|=>)\s*$", before)
        trail = re.match(r"\s*($|[)\]},:;=|]|=>|\bthen\b|\{)", after)
        if not inside and lead and trail and not HANDED.search(before):
            return True
    return False if seen else None


def prose_only(line, flag):
    """Whether `line` names the option `flag` only as a word of prose (None when it does not
    name it): each mention stands, between the quotes around it, among three or more plain
    words ("not every time as would happen with the --prepare option."), never in a usage of
    flags and placeholders alone ("-p, --prepare <CMD>")."""
    spans = [m.span() for m in re.finditer(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", line)]
    if not spans:
        return None
    def prose(a, b):
        left = max(line.rfind(q, 0, a) for q in "'\"`")
        right = [k for k in (line.find(q, b) for q in "'\"`") if k >= 0]
        seg = re.sub(r"<[^>]*>|\[[^\]]*\]", " ", line[left + 1:min(right) if right else len(line)])
        return len(re.findall(r"(?<![\w-])[a-z][a-z']*(?![\w-])", seg)) >= 3
    return all(prose(a, b) for a, b in spans)


def defined_flags(doc):
    """Every place the document says declares an option: an entry "### `--x` in the repository"
    with "Defined at PATH:L" or "Defined N times: PATH:L, …", and "`--x` is already defined
    (PATH:L, …)" in a question. (flag, path, line)."""
    out = []
    for m in re.finditer(r"^### `{1,2} ?(-[^`\s]+) ?`{1,2} in the repository\n\n(Defined (?:at|\d+ times:) .+?)\.(?: |$)",
                         doc, re.M):
        out += [(m.group(1), p, int(n)) for p, n in re.findall(r"([^\s:,]+):(\d+)", m.group(2))]
    for m in re.finditer(r"`(-[^`\s]+)` is already defined \(([^)]*)\)", doc):
        out += [(m.group(1), p, int(n)) for p, n in re.findall(r"([^\s:,]+):(\d+)", m.group(2))]
    return out


def cited_definitions(doc):
    """Every place the document cites as where code defines a name: the nearest existing code
    (`X` (path:line), `X()` (path:line), the `X` command (path:line)), "`X` is defined at
    path:line" and "where it is defined (path:line". Headings ("Title" (path:line)) are
    documentation, checked as sections."""
    out = []
    for m in re.finditer(r"Nearest [\w ]+?: (.+?)\.(?: |$)", doc, re.M):
        for n, path, k in re.findall(r"`([^`]+?)(?:\(\))?`(?: command)? \(([\w./ -]+):(\d+)\)", m.group(1)):
            out.append((n, path, int(k)))
    for m in re.finditer(r"`([^`]+?)(?:\(\))?` is defined at ([\w./-]+?):(\d+)", doc):
        out.append((m.group(1), m.group(2), int(m.group(3))))
    for m in re.finditer(r"`([^`]+?)(?:\(\))?`[^`]*? where it is defined \(([\w./-]+?):(\d+)", doc):
        out.append((m.group(1), m.group(2), int(m.group(3))))
    return out


def cited_names(doc):
    """Every other `X` the document ties to a line, "`X` (path:line)" or "`X` at path:line" (a
    setting to ask about, a flag's letters, what a function is documented to throw): the name as
    the line should hold it, without a call's `()` or an example's `=value`."""
    pointers = {(p, int(k)) for _, p, k in cited_definitions(doc)}
    out = []
    for m in re.finditer(r"`([^`]+?)` (?:\(|at )([\w./-]+):(\d+)\b", doc):
        name, path, n = m.group(1), m.group(2), int(m.group(3))
        if (path, n) in pointers or " " in name:
            continue
        name = re.sub(r"\(\)$|=.*$", "", name)
        out.append((name, path, n))
    return out


def quoted_lines(doc):
    """Every line the document quotes after its place ("Defined at path:N: `…`", a path may
    hold a space): (path, N, the quotation as written, "…" and all)."""
    return [(m.group(1), int(m.group(2)), m.group(4))
            for m in re.finditer(r"\bat ([^`\n:]+?):(\d+): (`+) ?(.+?) ?\3(?=[.,;)]|\s|$)", doc)]


def main():
    root, doc_path = sys.argv[1], sys.argv[2]
    doc = open(doc_path, encoding="utf-8").read()
    corpus = dict(files(root))
    false = 0

    def report(ok, what):
        nonlocal false
        print(("ok     " if ok else "FALSE  ") + what)
        false += 0 if ok else 1

    def line_of(path, n):
        text = corpus.get(path)
        if text is None:
            p = os.path.join(root, path)
            if not os.path.isfile(p):
                return None
            text = open(p, encoding="utf-8", errors="replace").read()
        lines = text.splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else None

    # Entries "### `NAME` in the repository" and their paragraphs.
    for m in re.finditer(r"^### `{1,2} ?(.+?) ?`{1,2} in the repository\n\n(.+?)\n\nSources: (.+)$", doc, re.M):
        name, content, sources = m.group(1), m.group(2), m.group(3)
        for src in re.findall(r"`([^`]+?):(\d+)`", sources):
            path, n = src[0], int(src[1])
            line = line_of(path, n)
            report(line is not None, f"{name}: source {path}:{n} exists")
        d = re.search(r"Defined at ([^\s:]+):(\d+)", content)
        if d:
            path, n = d.group(1), int(d.group(2))
            test = re.search(r"(^|/)(tests?|spec|__tests__)/|_test\.|test_[^/]*$|\.test\.|\.spec\.", path)
            around = [line_of(path, k) or "" for k in range(max(1, n - 12), n + 13)]
            bare = name.lstrip("-")
            near = any(has_name(l, s) or (bare.replace("-", "_") + ":") in l
                       or (name.startswith("-") and ('"%s"' % bare in l or "'%s'" % bare in l))
                       for l in around for s in spellings(name))
            report(not test and near, f"{name}: defined at {path}:{n} (not a test, names it)")
            if re.fullmatch(r"[A-Za-z_]\w*", name) and not re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", name):
                report(declares_at(path, line_of(path, n), name), f"{path}:{n} declares `{name}`")
        # A member the item names with its type, found inside the type: line L names the
        # member, a line above it in the file names the type, and the item's name is both.
        fm = re.search(r"Found as `([^`]+)` in `([^`]+)`, defined at ([^\s:]+):(\d+)", content)
        if fm:
            member, owner, path, n = fm.group(1), fm.group(2), fm.group(3), int(fm.group(4))
            line = line_of(path, n)
            above = [line_of(path, k) or "" for k in range(1, n)]
            report(line is not None and has_name(line, member) and has_name(name, member)
                   and has_name(name, owner) and any(has_name(l, owner) for l in above),
                   f"{name}: {member} in {owner} at {path}:{n}")
        # "name it" counts the entry's name as titled; "name `X`" counts X (a file entry
        # titled by its path, counting the name the item wrote).
        c = re.search(r"(\d+) lines? in (\d+) files? name (?:it|(`{1,2}) ?(.+?) ?\3)[,.]", content)
        counted = c.group(4) if c and c.group(4) else name
        if c and not re.fullmatch(r"-[A-Za-z0-9]", counted):
            lines = nfiles = 0
            for rel, text in corpus.items():
                ls = text.splitlines()
                k = sum(1 for i, l in enumerate(ls)
                        if any(has_name(l, s) for s in spellings(counted)))
                lines += k
                nfiles += 1 if k else 0
            want = (int(c.group(1)), int(c.group(2)))
            ok = want == (lines, nfiles)
            report(ok, f"{counted}: {want[0]} lines in {want[1]} files (grep: {lines} in {nfiles})")
    for flag, path, n in defined_flags(doc):
        line = line_of(path, n)
        if line is not None and (literal_declares(line, flag) is False
                                 or (literal_declares(line, flag) is None and prose_only(line, flag))):
            report(False, f"{path}:{n} declares `{flag}` (it quotes it only in prose or handed to a command line: {line.strip()[:80]})")
    for m in re.finditer(r"`([^`]+)` is new", doc):
        # New means written nowhere (a changelog aside) and never quoted bare in code.
        name = m.group(1)
        bare = '"%s"' % name.lstrip("-")
        code = re.compile(r"\.(rs|py|go|js|ts|mjs|cjs|java|rb|c|cc|cpp|h)$")
        found = [f"{rel}:{i+1}" for rel, text in corpus.items()
                 if "CHANGELOG" not in rel.upper()
                 for i, l in enumerate(text.splitlines())
                 if has_name(l, name) or (code.search(rel) and bare in l)
                 or (name.startswith("-") and SOURCE.search(rel) and not TEST.search(rel)
                     and option_literal(name).search(l))]
        report(not found, f"{name} is new (lines naming it: {found[:3]})")
    for m in re.finditer(r"`(-[^`\s]+)` is named at [^\n]*?\(its declaration was not found\)", doc):
        # Not found means no source file outside the tests quotes the flag as a declaration would.
        flag = m.group(1)
        found = [f"{rel}:{i+1}" for rel, text in corpus.items()
                 if SOURCE.search(rel) and not TEST.search(rel)
                 for i, l in enumerate(text.splitlines()) if option_literal(flag).search(l)]
        report(not found, f"{flag}: no declaration (lines quoting it as one: {found[:3]})")
    for m in re.finditer(r"^(.+?) appears? nowhere in the repository", doc, re.M):
        for name in re.findall(r"`{1,2} ?(.+?) ?`{1,2}", m.group(1)):
            hits = [rel for rel, text in corpus.items()
                    if any(has_name(l, s) for l in text.splitlines() for s in spellings(name))]
            report(not hits, f"{name} appears nowhere (grep: {hits[:3]})")
    for m in re.finditer(r"([\w./-]+):(\d+), \"(.+?)\"(?:, names (`{1,2}) ?(.+?) ?\4 \(line (\d+)\)"
                         r"|, says \(line (\d+)\): \"(.+?)\")?\.", doc):
        path, n, title = m.group(1), int(m.group(2)), m.group(3)
        text = corpus.get(path)
        if text is None:
            report(False, f"section {path}:{n} exists")
            continue
        lines = text.splitlines()
        heads = headings(lines, path)
        # A heading shortened with "…" (cut before a code span or a link) is its beginning; the
        # document escapes Markdown's punctuation outside code spans.
        head = heads.get(n - 1)
        cut = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|])", r"\1", title[:-1]) if title.endswith("…") else None
        report(head == title or (cut is not None and head is not None and head.startswith(cut)),
               f"section {path}:{n} is the heading \"{title}\"")
        if m.group(5):
            name, at = m.group(5), int(m.group(6))
            between = [k + 1 for k in heads if n - 1 < k < at - 1]
            report(at > n and not between,
                   f"{path}:{at} lies in section {path}:{n} (headings between: {between[:3]})")
            line = lines[at - 1] if 0 < at <= len(lines) else ""
            spans = line.split("`")[1::2]
            bare = name.lstrip("-")
            forms = {name, bare, bare.replace("-", "_"), bare.replace("_", "-")}
            report(any(whole_name(sp, f) for sp in spans for f in forms if f),
                   f"{path}:{at} names `{name}` in a code span")
        if m.group(7):
            at, quote = int(m.group(7)), m.group(8)
            between = [k + 1 for k in heads if n - 1 < k < at - 1]
            report(at > n and not between,
                   f"{path}:{at} lies in section {path}:{n} (headings between: {between[:3]})")
            line = lines[at - 1] if 0 < at <= len(lines) else ""
            # The document escapes Markdown's punctuation outside code spans.
            bare = quote.rstrip("…")
            plain = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|])", r"\1", bare)
            report(bare in line or plain in line, f"{path}:{at} says \"{quote}\" verbatim")
            report(0 < at <= len(lines) and not commented(lines)[at - 1],
                   f"{path}:{at} is not inside an HTML comment")
    # Pages cited as documenting, describing or mentioning a name: the line exists and names
    # it outside every URL, link target, image or badge and table of contents' entry.
    for m in re.finditer(r"(?:(`{1,2}) ?(.+?) ?\1|What the item names) is (?:documented|described"
                         r"|mentioned) at (.+?)\. ", doc):
        name, cited = m.group(2), re.sub(r"where it is defined \([^)]*\)", "", m.group(3))
        for path, n in re.findall(r"([\w./-]+):(\d+)", cited):
            line = line_of(path, int(n))
            text = page_prose(line) if line is not None else None
            ok = text is not None and (any(has_name(text.lower(), s.lower()) for s in spellings(name))
                                       if name else bool(text.strip()))
            report(ok, f"{path}:{n} names {name or 'it'} outside any URL, badge or contents entry")
    # A line quoted after its place ("Defined at path:N: `…`", "First in code at …", "Mentioned
    # at …", "The file is there; at …"): the line holds the quotation (cut with "…") verbatim, its
    # runs of blanks written as one.
    for path, n, quote in quoted_lines(doc):
        line = line_of(path, n)
        same = lambda t: " ".join(t.split())
        report(line is not None and same(quote.rstrip("…")) in same(line), f"{path}:{n} says `{quote}`")
    for name, path, n in cited_names(doc):
        line = line_of(path, n)
        bare = name.rsplit(".", 1)[-1] if re.fullmatch(r"[\w$]+\.[\w$]+", name) else name
        ok = line is not None and (declares(line, bare) or any(has_name(line, s) for s in spellings(bare))
                                   or shell_default(line, bare))
        report(ok, f"{path}:{n} names `{name}`")
    for name, path, n in cited_definitions(doc):
        report(declares_at(path, line_of(path, n), name), f"{path}:{n} declares `{name}` (not an import, a path or a use)")
    for m in re.finditer(r" at ([\w./-]+):(\d+) in `([^`]+)`", doc):
        path, n, func = m.group(1), int(m.group(2)), m.group(3)
        text = corpus.get(path)
        got = enclosing(text.splitlines(), n) if text is not None else None
        report(got == func, f"{path}:{n} lies in `{func}` (nearest declared above: {got})")
    # Version claims: a tag named as "the code after" / "at" HEAD, and "The newest tags: …",
    # are tags HEAD's history holds, the newest listed as versions order them.
    def tag_ok(tag, how):
        git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True)
        at = git("rev-parse", "--verify", "-q", f"refs/tags/{tag}^{{commit}}").stdout.strip()
        head = git("rev-parse", "HEAD").stdout.strip()
        if not at:
            return False
        if how == "at":
            return at == head
        return git("merge-base", "--is-ancestor", at, head).returncode == 0
    def nearer(tag):
        """Tags of `tag`'s series in HEAD's history fewer commits behind HEAD than it (what
        `git describe` would name instead)."""
        git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True, text=True)
        behind = lambda t: int(git("rev-list", "--count", f"refs/tags/{t}..HEAD").stdout or 0)
        own = behind(tag)
        merged = git("tag", "--merged", "HEAD").stdout.split()
        return [t for t in merged if t != tag and tag_family(t) == tag_family(tag)
                and behind(t) < own]
    for m in re.finditer(r"the code (after|at) ([^\s()`,]+?)\)", doc):
        how, tag = m.group(1), m.group(2)
        report(tag_ok(tag, how), f"HEAD is the code {how} {tag} (in HEAD's history)")
        if how == "after":
            near = nearer(tag)
            report(not near, f"no tag of {tag}'s series is nearer HEAD (nearer: {near[:3]})")
    for m in re.finditer(r"The newest tags: (.+?)\.(?:\s|$)", doc):
        tags = [t.strip() for t in m.group(1).split(",")]
        for t in tags:
            report(tag_ok(t, "after"), f"tag {t} is in HEAD's history")
        keys = [version_key(t) for t in tags]
        report(keys == sorted(keys, reverse=True), f"newest tags in version order: {tags}")
    sys.exit(1 if false else 0)


def tag_family(tag):
    """What a tag is a version of (src/interviewer/builtin/tags.rs `tag_family`): its text
    before the version, `tokio-` of `tokio-1.20.0`, empty for `v1.2.0` and `1.2.0`."""
    m = re.search(r"(?:^|(?<=[-_@/v])|(?<=^[A-Z]{1})|(?<=^[A-Z]{2})|(?<=^[A-Z]{3}))\d", tag)
    at = m.start() if m else len(tag)
    family = tag[:at].rstrip("v")
    if len(re.match(r"\d*", tag[at:]).group(0)) == 8:
        return "date" if not family else "date-prefixed"
    return family


def version_key(tag):
    """The interviewer's version order (src/interviewer/builtin/repo.rs `version_key`): the
    numbers of the version, a pre-release (`v4.0.0-1`, `2.0.0-beta2`) below its release."""
    numbers = lambda s: [int(x) for x in re.findall(r"\d+", s)[:6]]
    bare = re.sub(r"^\D+", "", tag)
    core, _, pre = bare.partition("-")
    key = numbers(core)
    if not key:
        return numbers(tag)
    key += [0] * (4 - len(key)) if len(key) < 4 else []
    key = key[:4] if len(key) > 4 else key
    return key + [0 if pre else 1] + numbers(pre)


def shell_default(line, name):
    """Whether `line` reads the variable `name` with a shell default (`${NAME-x}`, `${NAME:-x}`,
    `${NAME=x}`), as the interviewer's index reads an environment variable (nearest.rs): the `-`
    is the expansion's, not a longer name's."""
    return re.search(r"\$\{" + re.escape(name) + r":?[-=]", line) is not None


def self_test():
    """`scripts/devset-check.py --self-test`: the whole-name rule's cases."""
    assert whole_name(".default(x)", ".default")
    assert whole_name("schema.default(1)", ".default")
    assert whole_name("z.string().default(1)", ".default")
    assert not whole_name("ctx.default", ".default")
    assert not whole_name(".defaultValue()", ".default")
    assert not whole_name("PAGER_X", "PAGER")
    assert whole_name("--no-pager", "--no-pager")
    assert shell_default('d="${FZF_DIRS-cd pushd}"', "FZF_DIRS")
    assert shell_default(': "${BATS_TMPDIR:=/tmp}"', "BATS_TMPDIR")
    assert not shell_default('d="${FZF_DIRS_X-cd}"', "FZF_DIRS") and not has_name("${FZF_DIRS-cd}", "FZF_DIRS")
    assert text_part(b"one less\ntwo less\0\x89PNG less") == "one less\ntwo less"
    assert text_part(b"\0less") == "" and text_part(b"caf\xc3\xa9") == "caf\u00e9"
    assert version_key("RC5") > version_key("RC4-3") > version_key("RC4-2")
    assert version_key("v4.0.0") > version_key("v4.0.0-1") > version_key("v3.0.2")
    assert version_key("2.0.0-beta2.1") > version_key("v2.0.0-beta1.21216.1")
    assert not whole_name("--no-pager-x", "--no-pager")
    hidden = ["# t", "<!--", "## Old", "Said once.", "-->", "## New", "a <!-- b --> c", "```", "<!--", "```"]
    assert commented(hidden) == [False, True, True, True, True, False, True, False, False, False]
    assert sorted(headings(hidden)) == [0, 5]
    # A page cited for a name names it in prose: never only inside a URL, a badge or contents.
    assert page_prose("[![npm](https://img.shields.io/npm/v/tabtab.svg)](https://npmjs.org/tabtab)") is None
    assert page_prose("- [Tabtab](#tabtab)") is None
    assert "tabtab" not in page_prose("See https://example.org/tabtab and [the guide](docs/tabtab.md).")
    assert "tabtab" in page_prose("Completion is set up by tabtab.")
    adoc = ["= Manual", "", "== Default Values", "----", "== not a title", "----", "=== Show"]
    assert headings(adoc, "docs/index.adoc") == {2: "Default Values", 6: "Show"}
    assert headings(["== Default Values", "text"], "docs/index.md") == {}
    assert [tag_family(t) for t in ["v1.2.0", "1.2.0", "tokio-util-0.7.3", "RC5", "v20160726",
                                    "v3-snapshot-2021-01-21"]] == \
        ["", "", "tokio-util-", "RC", "date", ""]
    # The ignore files leave out what they list, tracked or not, as ripgrep's walker does.
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "sub"))
        for rel, text in [(".gitignore", "bin\n*.log\n!keep.log\nout/\n"),
                          ("sub/.gitignore", "/local\n"), (".ignore", "!debug.log\n")]:
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        ignored = search_ignored(root, [".gitignore", "sub/.gitignore", ".ignore"])
        assert ignored("bin/activate-tool") and ignored("a/bin/x") and ignored("x.log")
        assert not ignored("keep.log") and not ignored("debug.log")
        assert ignored("out/a.txt") and not ignored("out")
        assert ignored("sub/local") and not ignored("local") and not ignored("sub/x/local")
        assert not ignored("src/binary.rs") and not ignored("src/main.rs")
    assert glob_match("a.log", "*.log") and not glob_match("a/b", "*")
    assert glob_match("a/b/c", "a/**") and glob_match("c", "**/c") and glob_match("x/y/c", "**/c")
    assert glob_match("a1", "a[0-9]") and not glob_match("a1", "a[!0-9]")
    assert not declares("module Pager.Config (width) where", "Pager")
    assert not declares("import Pager.Config", "Pager") and not declares("let p = Pager::new();", "Pager")
    assert declares("class Pager:", "Pager") and declares("pub fn start(&self) {", "start")
    assert declares("  public static Table of(int n) {", "of") and declares("pager() {", "pager")
    assert declares("fun <T : Any> Processed<T, T>.repeated(min: Int = 0) {", "repeated")
    assert declares("std::string Parser::help_text(const Groups& g) const {", "help_text")
    assert declares("Parser::add_positional(std::string name)", "add_positional")
    assert not declares("Parser::add_positional(name);", "add_positional")
    assert not declares("    Parser::add_positional(name)", "add_positional")
    assert declares_at("Cargo.toml", 'ansi_term = "0.12"', "ansi_term")
    assert declares_at("crates/x/Cargo.toml", "[dependencies.ansi_term]", "ansi_term")
    assert declares_at("package.json", '    "chalk": "^4.0.0",', "chalk")
    assert not declares_at("Cargo.toml", 'features = ["ansi_term"]', "ansi_term")
    assert not declares_at("src/main.rs", 'ansi_term = "0.12"', "ansi_term")
    for path, line in [("command.go", "\tHidden bool `json:\"h\"`"), ("a.rs", "    pub Hidden: bool,"),
                       ("A.java", "    private boolean Hidden;"), ("A.cs", "  public bool Hidden { get; set; }"),
                       ("a.ts", "  Hidden?: boolean;"), ("a.py", "    Hidden = 1"), ("a.rs", "    Hidden(u8),"),
                       ("A.php", "    private ?bool $Hidden = null;"), ("A.swift", "    case shown, Hidden")]:
        assert declares_at(path, line, "Command.Hidden"), line
    for path, line in [("a.rs", "    let x = c.Hidden;"), ("a.rs", "    return Hidden;"),
                       ("a.rs", "    Hidden == 1"), ("a.py", "    x.Hidden = 1"), ("a.go", "\tHidden bool"),
                       ("a.rs", "    // Hidden: bool,"), ("a.rs", "    fn Hidden() {")]:
        if path == "a.go":
            assert declares_at("a.go", line, "Command.Hidden")
            assert not declares_at("a.rs", "    Hidden bool", "Command.Hidden")
        else:
            assert not declares_at(path, line, "Command.Hidden"), line
    assert cited_definitions("Nearest existing code: `Pager` (src/a.hs:2), `run()` (b.rs:3). Ex") == \
        [("Pager", "src/a.hs", 2), ("run", "b.rs", 3)]
    assert cited_definitions("Nearest code to the report: `Flag.isRequired` (index.d.ts:20). Is") == \
        [("Flag.isRequired", "index.d.ts", 20)]
    doc = ("Nearest setting to the report: `PAGER` (src/o.rs:26). With `A_DEBUG=1` (bin/a:9), "
           "`--config` at src/app.rs:34: which? `get()` is documented to throw `Oops` (A.kt:57).")
    assert cited_names(doc) == [("A_DEBUG", "bin/a", 9), ("--config", "src/app.rs", 34),
                                ("Oops", "A.kt", 57)]
    assert quoted_lines("Mentioned at A B/c.swift:30: ``Failed for `\\(t)`:``. First at d.go:2: `x  y…`.") == \
        [("A B/c.swift", 30, "Failed for `\\(t)`:"), ("d.go", 2, "x  y…")]
    # A flag's literal declares it as a token of code, never in prose or handed to a command.
    for flag, line in [("--all", "opts.on('-a', '--all', 'Show all') do"), ("--help", "help_switches = [\"--help\"]"),
                       ("--aosp", "    case \"--aosp\":"), ("--type-add", "  'type-add=s' => \\&add,"),
                       ("--all", "parser.add_argument('--all', action='store_true')"),
                       ("--all", "when '--all' then"), ("--all", "option(opts, '-a', '--all')")]:
        assert literal_declares(line, flag) is True, line
    for line in ["warn!(\"You should consider using the '--all' option\");",
                 "full_options.unshift('--all')", "perform('--all')", "args << '--all'",
                 "subprocess.run([\"tool\", \"--all\"])", "cmd.arg(\"--all\");"]:
        assert literal_declares(line, "--all") is False, line
    assert literal_declares("let all = true;", "--all") is None
    assert prose_only('     not every time as would happen with the --all option."', "--all")
    assert prose_only("parser.add_argument('--some', help='runs once, unlike --all')", "--all")
    assert not prose_only("program.option('-a, --all <when>', 'show all')", "--all")
    assert not prose_only("    -a|--all)", "--all") and prose_only("let x = 1;", "--all") is None
    assert defined_flags("### `--all` in the repository\n\nDefined 2 times: a.rb:3, b/c.rb:9. 4 lines") == \
        [("--all", "a.rb", 3), ("--all", "b/c.rb", 9)]
    assert defined_flags("skipped: `--all` is already defined (a.rb:3). Does") == [("--all", "a.rb", 3)]
    # A keyword argument holding a variable named `function` is no function expression.
    assert enclosing(["def set_default(function):", "    x(", "        func=function.__name__,",
                      "    )", "    y = 1"], 5) == "set_default"
    assert enclosing(["var run = function (a) {", "  return a;"], 2) == "run"
    assert enclosing(["def run(a):", "    x('(in function signature) and more')", "    y"], 3) == "run"
    assert enclosing(["def run(a):", '    """', "       function signature, or", '    """', "    y"], 5) == "run"
    assert enclosing(["fn run() {", "    let x = 1;", "}", "fn other() {}"], 2) == "run"
    print("ok")


if __name__ == "__main__":
    self_test() if sys.argv[1:] == ["--self-test"] else main()
