//! A work item's text as the intent interviewer reads it: lines with code blocks marked,
//! headings and bold template lines, list items, sentences, and the questions the item leaves
//! open (requests and invitations to comment are not open points).

/// The item's text, read once.
pub(super) struct Item<'a> {
    /// Every line with its number and whether it is inside a code block.
    pub all: Vec<(u32, &'a str, bool)>,
    /// Lines outside code blocks.
    pub lines: Vec<(u32, &'a str)>,
    /// Prose outside code blocks, lower case.
    pub lower: String,
    /// The reporter's own words: `lower` without code spans and passages in double quotes
    /// (`Data.Maybe`, a quoted log line), where a cue word is someone else's.
    pub prose: String,
    /// Headings and bold prompts (a line wholly in bold, or its bold start:
    /// `**What steps will reproduce the bug?** …`), lower case.
    pub headings: Vec<String>,
    /// The keys of a template's field lines (`OS: Linux`, `- **Version**: 1.2`), lower case.
    pub fields: Vec<String>,
    /// Sentences of the prose with the line each starts on.
    pub sentences: Vec<(u32, String)>,
    /// List items with their line.
    pub list_items: Vec<(u32, &'a str)>,
}

impl<'a> Item<'a> {
    pub(super) fn new(text: &'a str) -> Item<'a> {
        let mut all = Vec::new();
        let mut fence: Option<(char, usize)> = None;
        for (i, line) in text.lines().enumerate() {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let t = line.trim_start();
            let c = t.chars().next().unwrap_or(' ');
            let run = t.chars().take_while(|&x| x == c).count();
            let is_fence = matches!(c, '`' | '~') && run >= 3;
            match fence {
                Some((fc, len))
                    if is_fence && c == fc && run >= len && t.trim_end().len() == run =>
                {
                    fence = None;
                    all.push((n, line, true));
                }
                Some(_) => all.push((n, line, true)),
                None if is_fence => {
                    fence = Some((c, run));
                    all.push((n, line, true));
                }
                None => all.push((n, line, false)),
            }
        }
        let lines: Vec<(u32, &str)> = all
            .iter()
            .filter(|(_, _, code)| !code)
            .map(|(n, l, _)| (*n, *l))
            .collect();
        let lower = lines
            .iter()
            .map(|(_, l)| l.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        let prose = lines
            .iter()
            .map(|(_, l)| own_words(l).to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        let headings = lines
            .iter()
            .filter_map(|(_, l)| heading_text(l).or_else(|| bold_start(l)))
            .map(|h| h.to_lowercase())
            .collect();
        let fields = lines.iter().filter_map(|(_, l)| field_key(l)).collect();
        let list_items = lines
            .iter()
            .filter(|(_, l)| list_text(l).is_some())
            .map(|(n, l)| (*n, *l))
            .collect();
        let sentences = sentences(&lines);
        Item {
            all,
            lines,
            lower,
            prose,
            headings,
            fields,
            sentences,
            list_items,
        }
    }

    /// Whether the item is about `name`, not only mentioning it: its title names it, or a code
    /// span of the prose spells it alone (`PAGER`, `reader.readLine()`, `--paging always`: a
    /// name and its value). A word of a quoted command line (`myapp install --help`) or of a
    /// code block is a mention: the documentation of it is no section about the item.
    pub(super) fn is_about(&self, title: &str, name: &str) -> bool {
        if has_word(&title.to_lowercase(), &name.to_lowercase()) {
            return true;
        }
        self.lines.iter().any(|(_, l)| {
            l.split('`').skip(1).step_by(2).any(|span| {
                let mut words = span.split_whitespace();
                let first = words.next().unwrap_or("");
                let first = first.split(['=', '(']).next().unwrap_or("");
                let last = first.rsplit(['.', ':', '#']).next().unwrap_or("");
                (first.eq_ignore_ascii_case(name) || last.eq_ignore_ascii_case(name))
                    && words.count() <= 1
            })
        })
    }

    /// The text the item quotes (`> …` lines), a searchable piece of each quote: the first
    /// words of its first line (at most eight, at least four), without Markdown's marks — as a
    /// repository line that says the same would spell it.
    pub(super) fn quotes(&self) -> Vec<(u32, String)> {
        let mut out: Vec<(u32, String)> = Vec::new();
        let mut inside = false;
        for (n, line) in &self.lines {
            let Some(rest) = line.trim_start().strip_prefix('>') else {
                inside = false;
                continue;
            };
            if inside {
                continue;
            }
            inside = true;
            let plain = rest.replace("**", "").replace('`', "");
            let words: Vec<&str> = plain
                .split_whitespace()
                .take_while(|w| !w.contains(['[', ']', '(', ')', '<', '>', '*', '"']))
                .take(8)
                .collect();
            if words.len() >= 4 {
                let piece = words.join(" ");
                let piece = piece.trim_end_matches([',', '.', ':', ';']).to_string();
                out.push((*n, piece));
            }
        }
        out
    }

    /// Lines of the code blocks that read like source code a repository could hold (a call,
    /// an assignment, an expression — not a shell prompt, output or a trace), trimmed: at
    /// most six, each searched for as written.
    pub(super) fn code_quotes(&self) -> Vec<(u32, String)> {
        self.all
            .iter()
            .filter(|(_, _, code)| *code)
            .map(|(n, l, _)| (*n, l.trim()))
            .filter(|(_, t)| {
                let lower = t.to_lowercase();
                (20..=160).contains(&t.chars().count())
                    && !t.starts_with(['$', '%', '>', '#', '`', '~'])
                    && !t.starts_with("//")
                    && !lower.starts_with("at ")
                    && !lower.contains("error")
                    && t.contains(['(', '=', ';', '{', '+', '?'])
            })
            .map(|(n, t)| (n, t.to_string()))
            .take(6)
            .collect()
    }

    /// The text of the code blocks, lower case.
    pub(super) fn code_lower(&self) -> String {
        self.all
            .iter()
            .filter(|(_, _, code)| *code)
            .map(|(_, l, _)| l.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lines.iter().all(|(_, l)| l.trim().is_empty())
            && self.all.iter().all(|(_, l, _)| l.trim().is_empty())
    }

    pub(super) fn mentions(&self, terms: &[&str]) -> bool {
        terms.iter().any(|t| has_word(&self.prose, t))
    }

    /// Whether the item gives the value of the variable `name` (`PAGER` is set to 'less -R',
    /// `PAGER=less`): its name, then `=` or "set to" within a few words of prose or code.
    pub(super) fn gives_value(&self, name: &str) -> bool {
        self.all.iter().any(|(_, l, _)| {
            l.match_indices(name).any(|(at, _)| {
                let before = l[..at].chars().next_back();
                let after = &l[at + name.len()..];
                let word = |c: char| c.is_alphanumeric() || c == '_';
                if before.is_some_and(word) || after.starts_with(word) {
                    return false;
                }
                let after = after.trim_start_matches(['`', '"', '\'']);
                let near: String = after.chars().take(40).collect::<String>().to_lowercase();
                after.starts_with('=') || near.contains("set to") || near.contains(" is set as")
            })
        })
    }

    /// Whether the item says it ran the code at HEAD: "on current master", "the master
    /// branch", "latest git".
    pub(super) fn reports_on_head(&self) -> bool {
        self.mentions(&[
            "current master",
            "latest master",
            "on master",
            "from master",
            "master branch",
            "current main branch",
            "on the main branch",
            "current head",
            "on head",
            "latest git",
            "git master",
        ])
    }

    /// Whether the item writes `name` as it is spelled (`PAGER`, not "pager"), as a word.
    pub(super) fn writes(&self, name: &str) -> bool {
        self.all.iter().any(|(_, l, _)| {
            l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        })
    }

    /// Whether a heading or bold prompt contains one of `terms`.
    pub(super) fn has_heading(&self, terms: &[&str]) -> bool {
        self.headings
            .iter()
            .any(|h| terms.iter().any(|t| h.contains(t)))
    }

    /// The first sentence containing one of `terms` as a word, skipping sentences that ask
    /// (those are open points of their own).
    pub(super) fn first_sentence(
        &self,
        terms: &[&'static str],
    ) -> Option<(u32, &str, &'static str)> {
        self.first_sentence_where(terms, |_, _| true)
    }

    /// [`Item::first_sentence`] among the sentences `keep` takes, given the sentence's own
    /// words lowercased and the first of `terms` it says.
    pub(super) fn first_sentence_where(
        &self,
        terms: &[&'static str],
        keep: impl Fn(&str, &str) -> bool,
    ) -> Option<(u32, &str, &'static str)> {
        self.sentences.iter().find_map(|(n, s)| {
            if s.ends_with('?') {
                return None;
            }
            let lower = own_words(s).to_lowercase();
            let term = terms.iter().find(|t| has_word(&lower, t))?;
            keep(&lower, term).then_some((*n, s.as_str(), *term))
        })
    }

    /// The questions the item leaves open: whole sentences ending in `?`, neither a request
    /// ("Can you add …?") nor an invitation ("Any thoughts?") nor a template's prompt.
    pub(super) fn open_points(&self) -> Vec<(u32, &str)> {
        self.sentences
            .iter()
            .filter(|(n, s)| s.ends_with('?') && is_open_point(s) && !self.table_row(*n))
            .map(|(n, s)| (*n, s.as_str()))
            .collect()
    }

    /// Whether line `n` is a row of a table (`| Bug report? | yes`): a template's field, not
    /// the item's question.
    fn table_row(&self, n: u32) -> bool {
        self.lines
            .iter()
            .any(|(m, l)| *m == n && l.trim_start().starts_with('|'))
    }
}

/// A heading's text, or a line that is all bold (`**Describe the bug**`).
pub(super) fn heading_text(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.starts_with('#') {
        return Some(t.trim_start_matches('#').trim());
    }
    let bold = t.strip_prefix("**").and_then(|r| r.strip_suffix("**"));
    bold.filter(|b| !b.contains("**")).map(str::trim)
}

/// The bold start of a line that goes on (`**What steps will reproduce the bug?** Run x`).
fn bold_start(line: &str) -> Option<&str> {
    let t = list_text(line).unwrap_or(line.trim());
    let rest = t.strip_prefix("**")?;
    let end = rest.find("**")?;
    let bold = rest[..end].trim();
    (!bold.is_empty()).then_some(bold)
}

/// The key of a field line: `OS: Linux`, `- Version: 1.2`, `**Platform**: x`, a key of at
/// most three words before a colon and a value after it.
fn field_key(line: &str) -> Option<String> {
    let t = list_text(line).unwrap_or(line.trim());
    let (key, value) = t.split_once(':')?;
    let key = key.trim().trim_matches(['*', '_']).trim();
    let words = key.split_whitespace().count();
    let plain = key
        .chars()
        .all(|c| c.is_alphanumeric() || c == ' ' || c == '-' || c == '.');
    ((1..=3).contains(&words) && plain && !value.trim().is_empty() && !value.starts_with("//"))
        .then(|| key.to_lowercase())
}

/// The text of a list item (`- x`, `* x`, `+ x`, `1. x`, `- [ ] x`).
pub(super) fn list_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if let Some(r) = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
    {
        r
    } else if digits > 0 && matches!(t.as_bytes().get(digits), Some(b'.' | b')')) {
        t[digits + 1..].strip_prefix(' ')?
    } else {
        return None;
    };
    let rest = rest
        .strip_prefix("[ ] ")
        .or_else(|| rest.strip_prefix("[x] "))
        .or_else(|| rest.strip_prefix("[X] "))
        .unwrap_or(rest);
    Some(rest.trim())
}

/// A line's own words: its code spans and its passages in double quotes (straight or curly,
/// closed on the line, at most 120 characters) blanked — they quote code, a log or someone else.
pub(super) fn own_words(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(['`', '"', '\u{201c}']) {
        let open = rest[at..].chars().next().unwrap_or('`');
        let close = if open == '\u{201c}' { '\u{201d}' } else { open };
        let after = &rest[at + open.len_utf8()..];
        match after.find(close).filter(|&end| end <= 120) {
            Some(end) => {
                out.push_str(&rest[..at]);
                out.push(' ');
                rest = &after[end + close.len_utf8()..];
            }
            None => {
                out.push_str(&rest[..at + open.len_utf8()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Sentences of the prose: a paragraph's lines joined (a heading, a list item or a blank line
/// ends one), split after `.`, `!` or `?` followed by a space.
fn sentences(lines: &[(u32, &str)]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut para: Vec<(u32, String)> = Vec::new();
    let flush = |para: &mut Vec<(u32, String)>, out: &mut Vec<(u32, String)>| {
        split_sentences(para, out);
        para.clear();
    };
    for (i, (n, line)) in lines.iter().enumerate() {
        let t = line.trim().trim_start_matches('>').trim();
        if t.is_empty()
            || heading_text(t).is_some()
            || lines
                .get(i + 1)
                .is_some_and(|(m, l)| *m == n + 1 && underline(l))
            || t.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' '))
        {
            flush(&mut para, &mut out);
            continue;
        }
        if let Some(item) = list_text(t) {
            flush(&mut para, &mut out);
            para.push((*n, item.to_string()));
            continue;
        }
        para.push((*n, t.to_string()));
    }
    flush(&mut para, &mut out);
    out
}

/// Whether a line underlines the one above as a heading (`-----`, `=====`): a template's
/// "What is the current behavior?" so written is its structure, not a question it leaves open.
fn underline(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 2 && (t.bytes().all(|b| b == b'-') || t.bytes().all(|b| b == b'='))
}

fn split_sentences(para: &[(u32, String)], out: &mut Vec<(u32, String)>) {
    let mut current = String::new();
    let mut start = 0;
    for (n, text) in para {
        let chars: Vec<char> = text.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            if current.is_empty() {
                if c.is_whitespace() {
                    continue;
                }
                start = *n;
            }
            current.push(c);
            let next = chars.get(i + 1);
            let ends = matches!(c, '?' | '!') || (c == '.' && !abbreviation(&current));
            if ends && next.is_none_or(|x| x.is_whitespace()) {
                out.push((start, current.trim().to_string()));
                current.clear();
            }
        }
        if !current.is_empty() {
            current.push(' ');
        }
    }
    if !current.trim().is_empty() {
        out.push((start, current.trim().to_string()));
    }
}

fn abbreviation(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    ["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."]
        .iter()
        .any(|a| lower.ends_with(a))
}

/// Whether a sentence ending in `?` asks something the item leaves open.
fn is_open_point(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let lower = lower.trim_start_matches(['*', '_', '"', '(']);
    const REQUESTS: &[&str] = &[
        "can you",
        "could you",
        "would you",
        "will you",
        "can we",
        "could we",
        "can i",
        "could i",
        "would it be possible",
        "is it possible to",
        "is it possible for",
        "please",
        "any chance",
        "would you be open",
        "would you accept",
        "would a pr",
        "would a pull request",
        "can this be",
        "could this be",
        "can it be",
        "may i",
    ];
    const INVITATIONS: &[&str] = &[
        "any comments",
        "any thoughts",
        "thoughts",
        "any ideas",
        "any feedback",
        "any objections",
        "what do you think",
        "wdyt",
        "does that make sense",
        "does this make sense",
        "opinions",
        "am i missing something",
        "right",
        "ok",
        "okay",
        "any suggestions",
        "ideas",
    ];
    if REQUESTS.iter().any(|r| lower.starts_with(r)) {
        return false;
    }
    let bare = lower.trim_end_matches('?').trim();
    if INVITATIONS
        .iter()
        .any(|i| bare == *i || bare.starts_with(&format!("{i} ")))
    {
        return false;
    }
    sentence.chars().filter(|c| c.is_alphabetic()).count() >= 6
}

/// Whether `term` occurs in `text` with no letter or digit right before or after it.
pub(super) fn has_word(text: &str, term: &str) -> bool {
    let mut start = 0;
    while let Some(pos) = text.get(start..).and_then(|s| s.find(term)) {
        let at = start + pos;
        let end = at + term.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        // A term ending in punctuation (`etc.`) needs no boundary after it.
        let term_ends_word = term.chars().last().is_some_and(|c| c.is_alphanumeric());
        if boundary(before) && (!term_ends_word || boundary(after)) {
            return true;
        }
        start = at + term.chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_only_whole_words() {
        assert!(has_word("make it fast.", "fast"));
        assert!(!has_word("breakfast is served", "fast"));
        assert!(has_word("csv, json etc. are fine", "etc."));
        assert!(!has_word("some_thing", "some"));
    }

    #[test]
    fn a_word_of_a_quoted_command_line_is_a_mention_not_what_the_item_is_about() {
        let item = Item::new(
            "# Help printing command\nI want `myapp install help` to behave like `myapp install --help`.\nMy `PAGER` is set; `--paging always` does not help; nor does `reader.readLine()`.\n",
        );
        let title = "Help printing command";
        assert!(!item.is_about(title, "--help"));
        assert!(!item.is_about(title, "install"));
        assert!(item.is_about(title, "PAGER"));
        assert!(item.is_about(title, "--paging"));
        assert!(item.is_about(title, "readLine"));
        assert!(item.is_about("paging fails if PAGER is set", "pager"));
    }

    #[test]
    fn code_blocks_are_not_read_as_wording() {
        let item = Item::new("# T\n```\nfast maybe etc.\n```\nplain\n");
        assert!(!item.mentions(&["fast", "maybe"]));
        assert!(item.mentions(&["plain"]));
    }

    #[test]
    fn open_points_are_whole_sentences_and_not_requests() {
        let item = Item::new(
            "Intro line. Should the export include archived projects that were\nmoved to the attic long ago, or only active ones?\n\nCan you please add this? Any comments?\n**Is your feature request related to a problem?**\n",
        );
        let points = item.open_points();
        assert_eq!(points.len(), 1, "{:?}", points);
        assert_eq!(points[0].0, 1);
        assert!(points[0].1.starts_with("Should the export"));
        assert!(points[0].1.ends_with("or only active ones?"));
        // A template's table asks nothing of the maintainer.
        let item = Item::new("| Q | A\n| --- | ---\n| Bug report? | yes\n| RFC? | no\n");
        assert!(item.open_points().is_empty(), "{:?}", item.open_points());
    }
}
