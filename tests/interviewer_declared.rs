//! The built-in intent interviewer reads a flag declared in a string literal, as option parsers
//! of every language take it, as its declaration (issue 39): a Ruby `opts.on`-style wrapper, a
//! Perl Getopt::Long spec, a Python list of switches. The round says the flag "is already
//! defined" there, and where nothing declares it, claims no absence it cannot vouch for.

use crate::interviewer::{all_questions, assert_honest, question, repo_with};

/// The round's `existing_<slug>` question for an item asking for `flag` again, in a repository
/// whose only declaration of it is `file`.
fn existing(file: (&str, &str), flag: &str, slug: &str) -> String {
    let (repo, subject) = repo_with(
        &[file],
        &format!(
            "# Add `{flag}` to the listing\n\nPlease add a `{flag}` option to the listing, so \
             it shows the hidden entries too.\n"
        ),
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_honest(&repo, &d);
    question(&first, &format!("existing_{slug}"))
        .question_text
        .clone()
}

#[test]
fn a_ruby_wrapper_call_declares_its_switches() {
    let rb = "# Options.\nmodule Lister\n  def self.parse(opts)\n    option(opts, '-a', '--all', 'Show hidden entries')\n  end\nend\n";
    let text = existing(("lib/lister/options.rb", rb), "--all", "all");
    assert!(
        text.contains("is already defined (lib/lister/options.rb:4)"),
        "{text}"
    );
}

#[test]
fn a_list_of_switches_declares_them() {
    let py = "\"\"\"Options.\"\"\"\n\nHELP_SWITCHES = [\"--every\", \"-e\"]\n\n\ndef wants_help(argv):\n    return any(a in HELP_SWITCHES for a in argv)\n";
    let text = existing(("lister/options.py", py), "--every", "every");
    assert!(
        text.contains("is already defined (lister/options.py:3)"),
        "{text}"
    );
}

#[test]
fn a_getopt_spec_declares_its_option() {
    let pl = "package Lister::Options;\nuse Getopt::Long;\n\nsub parse {\n    my %o;\n    GetOptions(\\%o,\n        'type-add=s' => \\&add_type,\n        'help|h',\n    );\n}\n1;\n";
    let text = existing(("lib/Lister/Options.pm", pl), "--type-add", "type_add");
    assert!(
        text.contains("is already defined (lib/Lister/Options.pm:7)"),
        "{text}"
    );
}

#[test]
fn a_flag_named_but_not_declared_is_not_said_undeclared() {
    let sh = "#!/bin/sh\n# Lists entries.\necho \"see --every in the manual\"\n";
    let text = existing(("bin/lister.sh", sh), "--every", "every");
    assert!(text.contains("is named at bin/lister.sh:3"), "{text}");
    assert!(!text.contains("not found"), "{text}");
    assert!(!text.contains("is new"), "{text}");
}

#[test]
fn a_flag_the_reporter_already_uses_is_asked_about_what_it_does() {
    let rb = "# Options.\nmodule Lister\n  def self.parse(opts)\n    option(opts, '-a', '--all', 'Show hidden entries')\n  end\nend\n";
    // The item shows `--all` in use: what it does is the report, not one more flag.
    let (repo, subject) = repo_with(
        &[("lib/lister/options.rb", rb)],
        "# Add `--all` to the listing\n\nI pass `--all` to the listing, but it still leaves the \
         hidden entries out. Please make `--all` list them.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_honest(&repo, &d);
    let text = &question(&first, "used_all").question_text;
    assert!(
        text.starts_with("Line 3 shows `--all` in use (`--all` is defined at lib/lister/options.rb:4). Is what it does there intended, or a bug"),
        "{text}"
    );
    assert!(
        !first.iter().any(|q| q.topic == "existing_all"),
        "{:?}",
        first.iter().map(|q| &q.topic).collect::<Vec<_>>()
    );
}

#[test]
fn a_flag_whose_bare_name_code_quotes_is_never_called_new() {
    // `--every` is declared nowhere, but the code knows "every" as a value of another option:
    // the flag may be reached through it, so the round does not call it new.
    let py = "import argparse\n\nMODES = {\"every\": 1, \"some\": 2}\n\n\ndef parser():\n    p = argparse.ArgumentParser()\n    p.add_argument(\"--mode\", choices=list(MODES))\n    return p\n";
    let new_said = |code: &str| {
        let (repo, subject) = repo_with(
            &[("lister/cli.py", code)],
            "# Add `--every` to the listing\n\nPlease add a `--every` option to the listing, so \
             it shows the hidden entries too.\n",
        );
        let (first, d) = all_questions(&repo, &subject);
        assert_honest(&repo, &d);
        let texts: Vec<String> = first.iter().map(|q| q.question_text.clone()).collect();
        (texts.iter().any(|t| t.contains("`--every` is new")), texts)
    };
    let (new, texts) = new_said(py);
    assert!(
        !new && texts.iter().all(|t| !t.contains("is new")),
        "{texts:#?}"
    );
    // Without the quoted value, the same flag is new.
    let (new, texts) = new_said(&py.replace("\"every\": 1, ", ""));
    assert!(new, "{texts:#?}");
}
