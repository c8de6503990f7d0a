//! The built-in intent interviewer reads a stack trace, in any language, as a sign of a bug
//! report (issue 39, thirtieth pass): a Ruby `from x.rb:12:in`, a Python `File "x.py", line 3`,
//! a Java `at a.B.c(B.java:1)`, a Go `goroutine 1 [running]`, a JavaScript `at f (x.js:1:2)`,
//! even when the reporter's words only complain. Each on a small repository and an item of the
//! same class as the tuning pool's, not the real issue.

use crate::interviewer::{all_questions, assert_kind, assert_not_asked, repo_with};

const LIB_RB: &str =
    "module Tiny\n  # Parses the arguments.\n  def self.parse(argv)\n    argv\n  end\nend\n";

#[test]
fn a_stack_trace_in_any_language_makes_a_bug_report() {
    for trace in [
        "/home/u/gems/tiny-1.0/lib/tiny/option.rb:54:in `check': missing value (Tiny::Missing)\n\
         \tfrom /home/u/gems/tiny-1.0/lib/tiny/parser.rb:10:in `run'",
        "Traceback:\n  File \"/usr/lib/tiny/parse.py\", line 12, in parse\n    raise ValueError",
        "java.lang.IllegalStateException: no value\n\tat org.tiny.Parser.parse(Parser.java:42)\n\
         \tat org.tiny.Main.main(Main.java:7)",
        "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.parse()\n\
         \t/home/u/tiny/parse.go:12 +0x1d",
        "TypeError: x is undefined\n    at parse (/home/u/tiny/lib/parse.js:12:7)\n    at \
         Object.<anonymous> (/home/u/tiny/index.js:3:1)",
    ] {
        let item = format!(
            "# short option with its value attached\n\n```\n$ tiny -p5\n{trace}\n```\n\n\
             That is rather ugly for such a common way to write an option.\n"
        );
        let (repo, subject) = repo_with(&[("lib/tiny.rb", LIB_RB)], &item);
        let (first, d) = all_questions(&repo, &subject);
        assert_kind(&d, "Read as a bug report");
        assert_not_asked(&first, &["acceptance_criteria", "wanted"]);
    }
}

#[test]
fn a_trace_through_the_installed_version_and_the_reporters_own_file_are_not_asked_back() {
    let (repo, subject) = repo_with(
        &[
            ("lib/tiny/option.rb", LIB_RB),
            ("lib/tiny/parser.rb", LIB_RB),
            (
                "tiny.gemspec",
                "Gem::Specification.new do |s|\n  s.name = 'tiny'\nend\n",
            ),
        ],
        "# short option with its value attached\n\n`demo.rb`:\n\n```ruby\nrequire 'tiny'\np \
         Tiny.parse(ARGV)\n```\n\n```\n/home/u/gems/tiny-1.0.2/lib/tiny/\
         option.rb:54:in `check': missing value (Tiny::Missing)\n\tfrom /home/u/gems/tiny-1.0.2/\
         lib/tiny/parser.rb:10:in `run'\n```\n\nThat is rather ugly for such a common way to \
         write an option.\n",
    );
    repo.git(&["tag", "v1.0.2"]);
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report");
    assert_not_asked(&first, &["first_bad_version", "names_not_found"]);
}

#[test]
fn a_report_on_the_latest_release_is_not_asked_which_version_shows_it() {
    let files = [
        ("bin/tiny", "#!/usr/bin/env ruby\n"),
        ("lib/tiny/parser.rb", LIB_RB),
    ];
    let report = |said: &str| {
        format!(
            "# response files are read as one argument\n\n{said}\n\n```\n$ tiny @args.rsp\n\
             error: unknown command 'merge -r'\n```\n"
        )
    };
    let (repo, subject) = repo_with(
        &files,
        &report("The output is from the latest beta version."),
    );
    repo.git(&["tag", "v1.0.2"]);
    let (first, _) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["first_bad_version"]);
    // The latest version of something else names none of the project's.
    let (repo, subject) = repo_with(&files, &report("I am on the latest version of Windows 10."));
    repo.git(&["tag", "v1.0.2"]);
    let (first, _) = all_questions(&repo, &subject);
    crate::interviewer::question(&first, "first_bad_version");
}
