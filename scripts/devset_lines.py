"""The reading rules scripts/devset-check.py checks a built-in interview document with: which
files the interviewer reads (its walker's ignore rules), whole names, headings, the function
around a line and what a line declares. Each mirrors the interviewer's own rule it names."""
import os
import re
import subprocess

WORD = re.compile(r"[\w]")
OWN = ("docs/interviews/", "fixtures/answers/", "ci/answers/", ".interview/")


def glob_match(path, pat):
    """A gitignore glob: `*` and `?` never cross a `/`, `**` does, `[…]` a class."""
    out, i = "", 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pat.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "[" and "]" in pat[i + 2:]:
            j = pat.index("]", i + 2)
            body = pat[i + 1:j]
            body = "^" + body[1:] if body.startswith("!") else body
            out, i = out + "[" + body.replace("\\", "\\\\") + "]", j + 1
        else:
            out, i = out + re.escape(c), i + 1
    return re.fullmatch(out, path) is not None


def search_ignored(root, tracked):
    """The patterns of the tracked ignore files the interviewer's walker (ripgrep's `ignore`)
    respects — `.gitignore`, `.ignore`, `.rgignore` — each with the folder it applies under. As
    ripgrep, they leave out a file git tracks too (a committed `bin/` that the `.gitignore`
    lists): the counts are what `rg -w NAME` finds, not `git grep -w NAME`. A later rule wins (a
    deeper folder's over a shallower one's, `.ignore` over `.gitignore`), `!` re-includes, a
    folder left out leaves out all it holds, and a pattern ending in `/` names only folders."""
    rank = {".gitignore": 0, ".ignore": 1, ".rgignore": 2}
    rules = []
    for rel in tracked:
        base = os.path.basename(rel)
        if base not in rank:
            continue
        folder = os.path.dirname(rel)
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                pat = line.rstrip("\n").rstrip("\r").rstrip()
                if not pat or pat.startswith("#"):
                    continue
                negated = pat.startswith("!")
                pat = pat[1:] if negated else pat
                dir_only = pat.endswith("/")
                anchored = "/" in pat.rstrip("/")
                p = pat.strip("/")
                if p.startswith("**/"):
                    p, anchored = p[3:], "/" in p[3:]
                if p:
                    rules.append((rank[base], folder.count("/") + bool(folder), folder, p,
                                  negated, dir_only, anchored))
    rules.sort(key=lambda r: (r[0], r[1]))

    def left_out(sub, is_dir):
        verdict = False
        for _, _, folder, p, negated, dir_only, anchored in rules:
            if folder and not sub.startswith(folder + "/"):
                continue
            if dir_only and not is_dir:
                continue
            inner = sub[len(folder) + 1:] if folder else sub
            target = inner if anchored else inner.rsplit("/", 1)[-1]
            if glob_match(target, p):
                verdict = not negated
        return verdict

    def ignored(rel):
        parts = rel.split("/")
        return any(left_out("/".join(parts[:i]), i < len(parts)) for i in range(1, len(parts) + 1))
    return ignored


def files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
    tracked = [r for r in out.stdout.decode("utf-8", "replace").split("\0") if r]
    ignored = search_ignored(root, tracked)
    for rel in tracked:
        if not rel or rel.startswith(OWN) or rel == "interview.toml" or ignored(rel):
            continue
        # The interviewer's walker leaves hidden files and folders out.
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > 1 << 20:
            continue
        with open(path, "rb") as f:
            data = f.read()
        text = text_part(data)
        if rel.endswith(".json") and re.search(r'"interview_answers"\s*:', text):
            continue
        if any(l.startswith("Each point says how sure it is:") for l in text.splitlines()):
            continue
        yield rel, text


def text_part(data):
    """The text a line search reads of a file's bytes, as the interviewer reads it (scan.rs
    `text_part`, as ripgrep's searcher quits at a binary file's first NUL byte): the bytes before
    the first NUL."""
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def has_name(line, name):
    """The interviewer's whole-word rule (src/interviewer/builtin/search.rs `has_name`)."""
    start = 0
    while True:
        at = line.find(name, start)
        if at < 0:
            return False
        end = at + len(name)
        before = line[at - 1] if at > 0 else None
        after = line[end] if end < len(line) else None
        first, last = name[0], name[-1]
        is_word = lambda c: c is not None and (c.isalnum() or c == "_")
        before_ok = not (is_word(first) or first == "-") or not (
            is_word(before) or (before == "-" and (first == "-" or "-" in name)))
        after_ok = not is_word(last) or not (is_word(after) or after == "-")
        if before_ok and after_ok:
            return True
        start = at + 1


def whole_name(span, name):
    """The interviewer's whole-name rule for a code span (bank/section.rs `whole_name`): the
    span is the name, or holds it bounded by non-identifier characters; a method's leading `.`
    (`.default`) never a named receiver's property (`ctx.default`), only a call of it."""
    span = span.strip()
    if span == name:
        return True
    if not name.startswith("."):
        return has_name(span, name)
    ident = lambda c: c is not None and (c.isalnum() or c in "_$")
    for m in re.finditer(re.escape(name), span):
        before = span[m.start() - 1] if m.start() > 0 else None
        after = span[m.end()] if m.end() < len(span) else None
        if not (before == "." or (ident(before) and after != "(")) and not ident(after):
            return True
    return False


def spellings(name):
    if name.startswith("-"):
        return [name]
    if "-" in name:
        return [name, name.replace("-", "_")]
    if "_" in name and "::" not in name:
        return [name, name.replace("_", "-")]
    return [name]


ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")


def commented(lines):
    """Line index -> whether the line is touched by an HTML comment (<!-- ... -->, across lines,
    never inside a fence): its Markdown is hidden, no heading and nothing the documentation says."""
    out, fence, inside = [], None, False
    for l in lines:
        t = l.lstrip()
        m = re.match(r"(`{3,}|~{3,})", t)
        if inside or (not fence and "<!--" in l):
            rest = l
            while True:
                mark = "-->" if inside else "<!--"
                at = rest.find(mark)
                if at < 0:
                    break
                rest, inside = rest[at + len(mark):], not inside
            out.append(True)
            continue
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not t.strip(fence[0]).strip():
                fence = None
        elif m:
            fence = m.group(1)
        out.append(False)
    return out


def adoc_headings(lines):
    """Line index -> section title of an AsciiDoc file (`== Title`; `=` alone is the document's
    title), outside its delimited blocks (`----`, `....`, ````` ``` `````)."""
    out, block = {}, None
    for i, l in enumerate(lines):
        m = re.fullmatch(r"(-{4,}|\.{4,}|`{3,})\s*", l)
        if block:
            if m and m.group(1) == block:
                block = None
            continue
        if m:
            block = m.group(1)
            continue
        h = re.match(r"={2,6}\s+(\S.*?)\s*$", l)
        if h:
            out[i] = h.group(1)
    return out


def headings(lines, path=""):
    """Line index -> heading text, for ATX, HTML <hN> and setext headings outside fences and
    HTML comments (an AsciiDoc file's section titles for a `.adoc` path)."""
    if path.lower().endswith(".adoc"):
        return adoc_headings(lines)
    out, fence = {}, None
    hidden = commented(lines)
    for i, l in enumerate(lines):
        if hidden[i]:
            continue
        t = l.lstrip()
        m = re.match(r"(`{3,}|~{3,})", t)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not t.strip(fence[0]).strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if l.startswith("    ") or not l.strip():
            continue
        a = ATX.match(l)
        if a:
            # Its HTML tags (an anchor) are markup, not the heading's words.
            out[i] = re.sub(r"<[^>]*>", "", a.group(2) or "").strip()
        elif re.match(r"<h[1-6]", t, re.I):
            out[i] = re.sub(r"<[^>]*>", "", t).strip()
        elif i + 1 < len(lines) and re.fullmatch(r" {0,3}(=+|-+) *", lines[i + 1]) \
                and not re.match(r"[-*+>|]", t):
            out[i] = t.strip()
    return out


FUNCS = [re.compile(r) for r in (
    r"([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s+)?function\b(?![.\w])",
    r"\b(?:fn|def|func|function|sub)\s+([A-Za-z_$][\w$?!]*)",
    r"^\s*(?:[\w$.]+\s*=\s*)?(?:async\s+)?([A-Za-z_$][\w$]*)\s*\([^;]*\)\s*(?:\{|=>)",
    r"^\s*(?:[\w<>\[\],?]+\s+)+([A-Za-z_$][\w$]*)\s*\([^;]*\)\s*(?:throws [\w., ]+)?\{?\s*$",
    r"^\s*([A-Za-z_$][\w$]*)\s*\(\)\s*\{",
)]
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "else", "new", "function"}


def enclosing(lines, n):
    """Name of the nearest function declared at or above line n (1-based), else None: only a
    line indented less than every line between counts (a docstring's or a message's "function
    signature" inside the body declares nothing)."""
    indent = lambda t: len(t) - len(t.lstrip())
    deepest = None
    for i in range(n - 1, -1, -1):
        if not lines[i].strip():
            continue
        # The line itself may declare it; above it, only a line indented less than all below.
        if i < n - 1 and deepest is not None and indent(lines[i]) >= deepest:
            continue
        deepest = indent(lines[i])
        if lines[i].lstrip().startswith(("*", "//", "/*", "#")):
            continue
        for f in FUNCS:
            m = f.search(lines[i])
            if m and m.group(1) not in KEYWORDS and not in_string(lines[i], m.start()):
                return m.group(1)
    return None


def in_string(line, at):
    """Whether position `at` of a line lies inside a string literal it opens ('…' or "…"): the
    words of a message ('in function signature') declare nothing."""
    quote = None
    for c in line[:at]:
        if quote is None and c in "'\"":
            quote = c
        elif c == quote:
            quote = None
    return quote is not None


def page_prose(line):
    """A documentation line without URLs, link targets and HTML tags; None for a badge or
    image, a link reference definition or a table of contents' entry."""
    t = line.lstrip()
    item = re.sub(r"^[-*+ ]*(\d+\.)? *", "", t)
    if item.startswith(("![", "[![", "<img", "<a ")) or (t.startswith("[") and "]:" in t):
        return None
    out = re.sub(r"\]\([^)]*\)", "]", t)
    out = re.sub(r"https?://[^\s)>]+|www\.[^\s)>]+|<[A-Za-z/][^>]*>", " ", out)
    words = len([w for w in re.split(r"\W+", out) if w])
    if item.startswith("[") and "](#" in line and (t != item or t.startswith("[")) and words < 6:
        return None
    return out


# Ruby's `def self.parse` declares `parse` (a method of the module or class itself).
DECLARING = re.compile(r"\b(?:fn|def|func|function|fun|sub|struct|enum|trait|class|interface|type"
                       r"|protocol|module|record|object|macro_rules!|const|static|let|var|val"
                       r"|alias|defmodule|data|newtype)\s+(?:\([^)]*\)\s*)?(?:self\.)?([A-Za-z_][\w]*)")
METHOD = re.compile(r"^\s*(?:(?:public|private|protected|internal|static|final|abstract|override"
                    r"|virtual|async|synchronized|default)\s+)+[A-Za-z_][\w<>\[\],.?]*\s+"
                    r"([A-Za-z_]\w*)\s*\(|^\s*([A-Za-z_]\w*)\s*\(\)\s*\{")
# A function named after its receiver (Kotlin's `fun <T> Receiver<T>.name(`, Lua's `function
# M.name(`), and a C++ definition outside its class (`Type Class::name(…)`, unindented, no `;`).
RECEIVER = re.compile(r"\b(?:fn|def|func|function|fun|sub)\s+(?:\([^)]*\)\s*)?(?:<[^>]*>\s*)?"
                      r"[A-Za-z_][\w.]*(?:<[^(]*?>)?\??\.([A-Za-z_]\w*)")
QUALIFIED = re.compile(r"^(?:[A-Za-z_][\w:<>,*&]*[\s*&]+)*(?:[A-Za-z_]\w*(?:<[^<>()]*>)?::)+([A-Za-z_]\w*)"
                       r"\s*\([^;{}()\"']*(?:\)\s*(?:const\s*)?(?:noexcept\s*)?\{?)?\s*$")
PATH_LINE = re.compile(r"^\s*(?:import|package|namespace|using|use|from|require|#include)\b")


def declares(line, name):
    """Whether a line cited as where code defines `name` declares it: an identifier after a
    declaration keyword (not the first segment of a qualified path, `module Pager.Config`) or
    a method's or shell function's shape, never an import, package or namespace line. A flag,
    an environment variable or a command is held in the line as written."""
    if line is None:
        return False
    bare = name.split(" ")[-1] if " " in name else name
    if name.startswith("-") or re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", name) or " " in name:
        return any(has_name(line, s) for s in spellings(name)) or '"%s"' % bare.lstrip("-") in line \
            or "'%s'" % bare.lstrip("-") in line
    if PATH_LINE.match(line):
        return False
    for m in [*DECLARING.finditer(line), *METHOD.finditer(line), *RECEIVER.finditer(line),
              *QUALIFIED.finditer(line)]:
        g = next((x for x in m.groups() if x), None)
        end = m.end(m.lastindex) if m.lastindex else m.end()
        if g == name and not line[end:].startswith((".", "::")):
            return True
    return False


MANIFESTS = re.compile(r"(^|/)(Cargo\.toml|package\.json|pyproject\.toml|setup\.cfg|Pipfile|go\.mod"
                       r"|pom\.xml|build\.gradle(\.kts)?|[^/]+\.csproj|Gemfile|[^/]+\.gemspec"
                       r"|composer\.json|[^/]+\.cabal|package\.yaml|Package\.swift)$")


MEMBER_MODS = (r"(?:(?:pub(?:\([\w:]+\))?|public|private|protected|internal|fileprivate|static|final"
               r"|readonly|override|open|lateinit|lazy|weak|volatile|transient|required|virtual"
               r"|val|var|let|const)\s+)*")


def declares_member(path, line, name):
    """Whether a line cited for a type's member (`Owner.member`: a field, a property, an enum
    variant) declares the member: its name typed (`name: T`), given a value or a payload
    (`NAME = 1`, `Red(u8)`, `Red,`), after its type (`String name;`, `bool Name { get`), as Go
    writes a field (`Name Type`), a PHP property (`$name`) or a Swift case."""
    if line is None or "." not in name or " " in name:
        return False
    m = re.escape(name.rsplit(".", 1)[1])
    t = line.strip()
    if PATH_LINE.match(line) or t.startswith(("//", "#", "*", "/*", "return ", "if ")):
        return False
    shapes = [
        r"^%s%s\s*\??\s*:(?!:)" % (MEMBER_MODS, m),
        r"^%s%s\s*(?:=(?!=)|\(|\{|,|;|$)" % (MEMBER_MODS, m),
        r"^%s[\w<>\[\],.?]+\s+%s\s*(?:;|=(?!=)|\{\s*get)" % (MEMBER_MODS, m),
        r"^(?:public|private|protected|var)\b[^($]*\$%s\b" % m,
        r"^case\s+(?:\w+(?:\([^)]*\))?\s*,\s*)*%s\b" % m,
    ]
    if path.endswith(".go"):
        shapes.append(r"^%s\s+[\w*\[]" % m)
    return any(re.match(p, t) for p in shapes)


def declares_at(path, line, name):
    """`declares`, and in a manifest a dependency entry: the line's key is the name (`name =`,
    `"name":`, `[dependencies.name]`), or it names it as an artifact, a gem or a requirement."""
    if declares(line, name) or declares_member(path, line, name):
        return True
    if line is None or not MANIFESTS.search(path):
        return False
    n = re.escape(name)
    return bool(re.match(r"\s*(\[[\w.-]*\.)?[\"']?%s[\"']?\s*(\]|[=:])" % n, line)
                or re.search(r"<artifactId>%s</artifactId>|\b(gem|add_dependency|require)\s*\(?\s*[\"']%s[\"']"
                             % (n, n), line)
                or re.match(r"\s*(require\s+)?[\w.-]+/%s\s+v\d" % n, line))
