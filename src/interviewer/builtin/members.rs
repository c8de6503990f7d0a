//! The members a type declares: a struct's or a class's fields and properties, an interface's
//! members, a Python class's attributes and dataclass fields, a PHP property, and an enum's
//! variants, in every language the index reads — each a definition a pointer can name with its
//! type (`Command.Hidden`), read from the lines of the type's own body (its braces, or a Python
//! class's indentation), never a method, a local inside one, or a line of a nested type.
//!
//! Not for: the type's own line (`nearest`'s patterns find it).

/// Lines of a type's body read at most.
const MAX_BODY: usize = 400;

/// Words that start a statement or a method, never a member's name.
const NOT_MEMBERS: &[&str] = &[
    "fn",
    "func",
    "def",
    "fun",
    "function",
    "return",
    "if",
    "else",
    "for",
    "while",
    "match",
    "switch",
    "case",
    "default",
    "impl",
    "use",
    "import",
    "package",
    "type",
    "struct",
    "enum",
    "class",
    "interface",
    "trait",
    "object",
    "record",
    "init",
    "deinit",
    "get",
    "set",
    "where",
    "self",
    "this",
    "super",
    "new",
    "throw",
    "try",
    "catch",
    "yield",
    "await",
    "async",
    "pass",
    "break",
    "continue",
    "static",
    "extension",
    "protocol",
    "typealias",
    "namespace",
    "module",
    "companion",
    "constructor",
    "operator",
    "subscript",
    "override",
    "abstract",
    "sealed",
    "data",
    "inner",
    "annotation",
    "value",
    "mod",
    "pub",
    "const",
    "let",
    "var",
    "val",
];

/// Modifiers a member's declaration may start with (skipped before its name or type).
const MODIFIERS: &[&str] = &[
    "pub",
    "pub(crate)",
    "pub(super)",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "readonly",
    "override",
    "open",
    "lateinit",
    "lazy",
    "weak",
    "unowned",
    "volatile",
    "transient",
    "required",
    "mutating",
    "nonmutating",
    "fileprivate",
    "virtual",
    "new",
    "declare",
    "abstract",
    "val",
    "var",
    "let",
    "const",
    "@objc",
    "@Published",
];

/// The members of the type whose declaration is on line `at` (0-based) of `all`: (name, line
/// 1-based). `enum_like`: the type is an enum (its bare names are variants).
pub(super) fn of(all: &[&str], at: usize, rel: &str) -> Vec<(String, u32)> {
    let Some(head) = all.get(at) else {
        return Vec::new();
    };
    let enum_like = head.contains("enum ");
    let lang = rel.rsplit('.').next().unwrap_or("");
    let body = if lang == "py" {
        python_body(all, at)
    } else {
        brace_body(all, at)
    };
    let mut out = Vec::new();
    // Inside a method's head written over several lines: its parameters, never members.
    let mut open = 0usize;
    for i in body {
        let line = all[i];
        let inside = open > 0;
        if lang != "py" {
            let code = code_part(line);
            open = (open + code.matches('(').count()).saturating_sub(code.matches(')').count());
        }
        if inside {
            continue;
        }
        let names = if lang == "py" {
            python_member(line).into_iter().collect()
        } else {
            let next = all.get(i + 1).map_or("", |l| l.trim_start());
            let mut names = member(line, lang, enum_like);
            names.extend(property_above_body(line, lang, next).filter(|_| names.is_empty()));
            names
        };
        for name in names {
            if name.len() > 1 && !NOT_MEMBERS.contains(&name.as_str()) && !hidden(line, &name, lang)
            {
                out.push((name, u32::try_from(i + 1).unwrap_or(u32::MAX)));
            }
        }
    }
    out
}

/// Whether a member is its type's own business: declared private (or protected), named with a
/// leading underscore, or a Go field in lower case (not exported). The code an item is about is
/// what its users and callers reach.
fn hidden(line: &str, name: &str, lang: &str) -> bool {
    let closed = line
        .split(|c: char| !(c.is_alphanumeric() || c == '#'))
        .any(|w| matches!(w, "private" | "fileprivate" | "protected"));
    closed
        || name.starts_with('_')
        || line.trim_start().starts_with('#')
        || (lang == "go" && name.starts_with(|c: char| c.is_lowercase()))
}

/// The lines right inside the braces the declaration on line `at` opens (depth one), when it
/// opens them on its line or the next two.
fn brace_body(all: &[&str], at: usize) -> Vec<usize> {
    let mut depth = 0i32;
    let mut opened = false;
    let mut out = Vec::new();
    for (i, line) in all.iter().enumerate().skip(at).take(MAX_BODY) {
        let code = code_part(line);
        if opened && depth == 1 {
            out.push(i);
        }
        for c in code.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                // A declaration ended before its body: no members.
                ';' if !opened => return Vec::new(),
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return out;
        }
        // Opened on the declaration's line, or on one of its own below (Allman style, a
        // parenthesised head over several lines): never a later statement's braces.
        let next = all.get(i + 1).map_or("", |l| l.trim_start());
        let continued =
            code.matches('(').count() > code.matches(')').count() || code.trim_end().ends_with(',');
        if !opened && (i > at + 2 || !(next.starts_with('{') || continued)) {
            return Vec::new();
        }
    }
    out
}

/// A Python class's own lines: those indented one level below `class X:` (methods' bodies and
/// nested classes' left out).
fn python_body(all: &[&str], at: usize) -> Vec<usize> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let head = all[at];
    if !head.trim_end().ends_with(':') {
        return Vec::new();
    }
    let base = indent(head);
    let mut level = None;
    let mut out = Vec::new();
    let mut in_doc = false;
    for (i, line) in all.iter().enumerate().skip(at + 1).take(MAX_BODY) {
        // A docstring's lines are text, whatever their indentation.
        let quotes = line.matches("\"\"\"").count() + line.matches("'''").count();
        let was = in_doc;
        in_doc ^= quotes % 2 == 1;
        if line.trim().is_empty() || was || quotes > 0 {
            continue;
        }
        let n = indent(line);
        if n <= base {
            break;
        }
        let level = *level.get_or_insert(n);
        if n == level {
            out.push(i);
        }
    }
    out
}

/// A Python class attribute: `name = …` or `name: type …` at the class's own level.
fn python_member(line: &str) -> Option<String> {
    let t = line.trim();
    let end = t.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let (name, rest) = t.split_at(end);
    let rest = rest.trim_start();
    let assigns = rest.starts_with('=') && !rest.starts_with("==");
    let annotated = rest.starts_with(':') && rest.len() > 1;
    (ident(name) && !name.starts_with("__") && (assigns || annotated)).then(|| name.to_string())
}

/// The members one line of a brace language's type body declares.
fn member(line: &str, lang: &str, enum_like: bool) -> Vec<String> {
    let t = line.trim();
    let comment = ["//", "/*", "*", "#", "@", "--", "["]
        .iter()
        .any(|c| t.starts_with(c));
    if t.is_empty() || comment || t.starts_with('}') {
        return Vec::new();
    }
    // Swift's `case a, b(Int)` and an enum's bare names (`Red,`, `Red = 1,`, `Red("x"),`).
    if let Some(cases) = t
        .strip_prefix("case ")
        .filter(|_| lang == "swift" && enum_like)
    {
        return cases
            .split(',')
            .filter_map(|c| leading_ident(c.trim()))
            .filter(|c| ident(c))
            .map(str::to_string)
            .collect();
    }
    if enum_like && lang != "go" {
        return variants(t);
    }
    // PHP: `public ?string $name = null;`.
    if lang == "php" {
        return php_property(t).into_iter().collect();
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    let skipped = words.iter().take_while(|w| MODIFIERS.contains(w)).count();
    let rest = words[skipped..].join(" ");
    let Some(first) = leading_ident(&rest) else {
        return Vec::new();
    };
    let after = rest[first.len()..].trim_start();
    // `name: Type` (Rust, TypeScript, Kotlin, Swift) — not a path (`a::b`) nor a label.
    let colon = after.strip_prefix('?').unwrap_or(after).trim_start();
    if colon.starts_with(':') && !colon.starts_with("::") {
        return vec![first.to_string()];
    }
    // `var name = …`, `private name = …` (Kotlin, Swift, TypeScript): declared by a keyword.
    if skipped > 0 && after.starts_with('=') && !after.starts_with("==") {
        return vec![first.to_string()];
    }
    // Go: `Name Type` (a method of an interface has parentheses right after its name).
    if lang == "go" {
        let typed = after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || matches!(c, '*' | '['));
        return if typed {
            vec![first.to_string()]
        } else {
            Vec::new()
        };
    }
    // Java, C#, Kotlin: `Type name;`, `Type name = …;`, `Type Name { get; set; }`.
    if ["java", "cs", "kt", "scala", "dart"].contains(&lang) && !rest.contains('(') {
        let tokens: Vec<&str> = rest
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '='))
            .filter(|s| !s.is_empty())
            .collect();
        if let [ty, name, ..] = tokens.as_slice()
            && ident(name)
            && ty.chars().next().is_some_and(char::is_alphabetic)
            && (rest.ends_with(';') || rest.contains('=') || rest.contains("{ get"))
        {
            return vec![name.to_string()];
        }
    }
    Vec::new()
}

/// A C#, Java or Kotlin property whose accessors open on the line below (`public bool Hidden`
/// over `{ get … }`): `Type Name` alone on its line, after its modifiers.
fn property_above_body(line: &str, lang: &str, next: &str) -> Option<String> {
    if !["cs", "java", "kt", "scala", "dart"].contains(&lang) || !next.starts_with('{') {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let skipped = words.iter().take_while(|w| MODIFIERS.contains(w)).count();
    match &words[skipped..] {
        [ty, name]
            if ident(name)
                && ty.starts_with(char::is_alphabetic)
                && ![
                    "class",
                    "struct",
                    "interface",
                    "enum",
                    "record",
                    "namespace",
                ]
                .contains(ty) =>
        {
            Some(name.to_string())
        }
        _ => None,
    }
}

/// An enum body line's variants: bare names separated by commas, each maybe with a value or a
/// payload (`Red`, `Red = 1`, `Red(u8)`, `Red { x: u8 }`, `RED("red")`).
fn variants(t: &str) -> Vec<String> {
    let t = t.trim_end_matches([',', ';']).trim();
    let Some(first) = leading_ident(t) else {
        return Vec::new();
    };
    let after = t[first.len()..].trim_start();
    let bare = after.is_empty() || after.starts_with([',', '=', '(', '{']);
    if !bare || !first.starts_with(|c: char| c.is_alphabetic()) {
        return Vec::new();
    }
    // Several on one line only when all are bare (`RED, GREEN, BLUE`).
    if after.starts_with(',') {
        let all: Vec<&str> = t.split(',').map(str::trim).collect();
        if all.iter().all(|v| ident(v)) {
            return all.iter().map(|v| v.to_string()).collect();
        }
    }
    vec![first.to_string()]
}

/// A PHP property's name (`$name`) after its visibility.
fn php_property(t: &str) -> Option<String> {
    let visible = ["public ", "private ", "protected ", "var "]
        .iter()
        .any(|v| t.starts_with(v));
    if !visible || t.contains("function ") {
        return None;
    }
    let at = t.find('$')?;
    leading_ident(&t[at + 1..]).map(str::to_string)
}

fn leading_ident(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    let name = &s[..end];
    ident(name).then_some(name)
}

fn ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// A line without its string literals' contents and its trailing `//` comment (the line itself,
/// unallocated, when it holds no quote and no slash: most lines of a body).
fn code_part(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains(['"', '`', '/']) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut prev = ' ';
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '`' => quote = Some(c),
            None if c == '/' && prev == '/' => {
                out.pop();
                break;
            }
            None => out.push(c),
        }
        prev = c;
    }
    std::borrow::Cow::Owned(out)
}

/// Whether the item writes the member `name` of the type `owner` as code (`pointed::written_as_code`) or names its
/// type (`HelpWidth`, `Layout`) as a word of its text, or names the member's word before its
/// type in the plural ("negated options" for `Option.negated`, "hidden entries" for
/// `Entry.hidden`): a member named by an ordinary word of the prose alone (`recipe`, `value`),
/// or beside a plural that may mean anything ("dependencies"), is not spoken of.
pub(super) fn spoken_of(
    owner: Option<&str>,
    name: &str,
    name_words: &[String],
    item: &super::item::Item,
) -> bool {
    owner.is_some_and(|o| {
        let o = o.to_lowercase();
        let mut plurals = vec![format!("{o}s"), format!("{o}es")];
        if let Some(stem) = o.strip_suffix('y') {
            plurals.push(format!("{stem}ies"));
        }
        let tokens: Vec<&str> = item
            .lower
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|t| !t.is_empty())
            .collect();
        super::item::has_word(&item.lower, &o)
            || tokens.windows(2).any(|pair| {
                plurals.iter().any(|p| p == pair[1])
                    && super::words::words(pair[0])
                        .iter()
                        .any(|w| name_words.contains(w))
            })
    }) || super::pointed::written_as_code(name, &item.all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(src: &str, rel: &str) -> Vec<(String, u32)> {
        let all: Vec<&str> = src.lines().collect();
        of(&all, 0, rel)
    }

    fn names(src: &str, rel: &str) -> Vec<String> {
        members(src, rel).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn fields_and_properties_of_every_language_are_members() {
        let rust = "pub struct Cli {\n    /// Hide it.\n    pub hidden: bool,\n    #[arg(long)]\n    pub(crate) color: Color,\n}\nfn other() {}\n";
        assert_eq!(
            members(rust, "src/cli.rs"),
            [("hidden".into(), 3), ("color".into(), 5)]
        );
        let go = "type Command struct {\n\tName string\n\tparent *Command\n\tHidden bool `json:\"hidden\"`\n\tAction func(*Context) error\n}\n";
        assert_eq!(names(go, "command.go"), ["Name", "Hidden", "Action"]);
        let java = "public class Options {\n    boolean hidden;\n    private String secret;\n    String name = \"x\";\n    public void run() {\n        int local = 1;\n    }\n}\n";
        assert_eq!(names(java, "Options.java"), ["hidden", "name"]);
        let cs = "public class Options\n{\n    public bool Hidden { get; set; }\n    public string Run() { return \"\"; }\n}\n";
        assert_eq!(names(cs, "Options.cs"), ["Hidden"]);
        let kt = "class Options {\n    val hidden: Boolean = false\n    var name = \"x\"\n    fun run() {}\n}\n";
        assert_eq!(names(kt, "Options.kt"), ["hidden", "name"]);
        let swift =
            "struct Options {\n    var hidden: Bool\n    let name: String\n    func run() {}\n}\n";
        assert_eq!(names(swift, "Options.swift"), ["hidden", "name"]);
        let ts =
            "export interface Options {\n  hidden?: boolean;\n  name: string;\n  run(): void;\n}\n";
        assert_eq!(names(ts, "options.ts"), ["hidden", "name"]);
        let py = "@dataclass\nclass Options:\n    hidden: bool = False\n    name = 'x'\n    _cache = None\n\n    def run(self):\n        local = 1\n";
        let all: Vec<&str> = py.lines().collect();
        assert_eq!(
            of(&all, 1, "opts.py"),
            [("hidden".into(), 3), ("name".into(), 4)]
        );
        let php = "class Options\n{\n    public ?string $hidden = null;\n    private $secret;\n    public function run() {}\n}\n";
        assert_eq!(names(php, "Options.php"), ["hidden"]);
    }

    #[test]
    fn a_property_whose_accessors_open_below_is_a_member_and_a_parameter_is_none() {
        let cs = "public class Help\n{\n    public bool AddValues\n    {\n        get { return x; }\n    }\n\n    public class Nested\n    {\n    }\n    public static Help Build(\n        bool verbsIndex = false,\n        int width = 80)\n    {\n    }\n    public int Width { get; set; }\n}\n";
        assert_eq!(names(cs, "Help.cs"), ["AddValues", "Width"]);
    }

    #[test]
    fn enum_variants_of_every_language_are_members() {
        let rust = "enum Color {\n    Never,\n    Always(bool),\n    Auto { tty: bool },\n}\n";
        assert_eq!(names(rust, "color.rs"), ["Never", "Always", "Auto"]);
        let java = "public enum Color {\n    NEVER, ALWAYS,\n    AUTO(\"auto\");\n    private final String s;\n}\n";
        assert_eq!(names(java, "Color.java"), ["NEVER", "ALWAYS", "AUTO"]);
        let swift = "enum Color {\n    case never, always\n    case auto(Bool)\n}\n";
        assert_eq!(names(swift, "Color.swift"), ["never", "always", "auto"]);
        let ts = "enum Color {\n  Never = 0,\n  Always = 1,\n}\n";
        assert_eq!(names(ts, "color.ts"), ["Never", "Always"]);
    }

    #[test]
    fn a_declaration_without_a_body_and_nested_blocks_give_no_members() {
        assert!(names("struct Unit;\nfn x() {\n    let a: u8 = 1;\n}\n", "a.rs").is_empty());
        assert!(names("type Id string\nfunc (i Id) F() {\n\tx int\n}\n", "a.go").is_empty());
        let doc = "class A:\n    \"\"\"Doc.\n\n    name: what it is\n    \"\"\"\n    size = 1\n";
        assert_eq!(names(doc, "a.py"), ["size"]);
        let nested = "struct A {\n    bee: B,\n}\nimpl A {\n    fn f() {\n        let c: u8 = 1;\n    }\n}\n";
        assert_eq!(names(nested, "a.rs"), ["bee"]);
    }
}
