//! The page or the example of the project's own repository an item links
//! (`[this](https://github.com/OWNER/REPO/blob/master/examples/x.rs)`), asked about: a maintainer
//! answers such a report with that file, right for the reporter's release, ahead of it, or out
//! of date.
//!
//! Not for: the definitions an item names in code spans (`pointed`).

/// The question on a page or an example of the project the item links (`[this](https://github.com/
/// OWNER/REPO/blob/master/examples/x.rs)`): a maintainer answers such a report with that file,
/// right for the reporter's release, ahead of it, or out of date.
pub(super) fn linked_file(r: &super::reading::Reading) -> Option<super::Finding> {
    let project = r.repo.project.as_deref()?;
    let exists = |p: &str| r.worktree.join(p).is_file();
    let (line, path, reference) = linked(&r.item.all, project, exists)?;
    Some(
        super::Finding::new(
            "linked_file",
            7,
            format!(
                "Line {line} links {path} of this repository ({reference}). Is that file right \
                 for the release they use, or out of step with it (ahead of it, or out of date)?"
            ),
        )
        .titled(format!("The linked {path}"))
        .options(&[
            ("Right: the fault is in how it is used", "right"),
            ("Ahead of their release: it needs a newer one", "ahead"),
            ("Out of date: fix the file", "out_of_date"),
        ]),
    )
}

/// The first link of `all` to an example or a document of the repository `project` on GitHub
/// (`github.com/OWNER/PROJECT/blob/REF/PATH` where PATH `exists`), or to a page of its
/// documentation site (`PROJECT.readthedocs.io/en/latest/PAGE.html`,
/// `readthedocs.org/projects/PROJECT/`, `OWNER.github.io/PROJECT/PAGE/`) that the repository's
/// documentation folder holds ([`site_page`]): its line, PATH and where the link shows it (`as
/// on `REF``, `as published at `HOST``).
pub(super) fn linked(
    all: &[(u32, &str, bool)],
    project: &str,
    exists: impl Fn(&str) -> bool,
) -> Option<(u32, String, String)> {
    let documented = |p: &str| {
        let lower = p.to_lowercase();
        ["examples/", "example/", "docs/", "doc/"]
            .iter()
            .any(|d| lower.starts_with(d) || lower.contains(&format!("/{d}")))
            || [".md", ".rst", ".adoc"].iter().any(|e| lower.ends_with(e))
    };
    all.iter().find_map(|&(n, line, _)| {
        let on_github = line.match_indices("github.com/").find_map(|(i, m)| {
            let rest = &line[i + m.len()..];
            let end = rest
                .find([')', ' ', '>', '#', '?', '"', ']', '\'', '`'])
                .unwrap_or(rest.len());
            let mut parts = rest[..end].splitn(5, '/');
            let (_, repo, kind) = (parts.next()?, parts.next()?, parts.next()?);
            let (reference, path) = (parts.next()?, parts.next()?);
            (super::reading::same_package(repo, project)
                && matches!(kind, "blob" | "tree")
                && documented(path)
                && exists(path))
            .then(|| (path.to_string(), format!("as on `{reference}`")))
        });
        on_github
            .or_else(|| site_page(line, project, &exists))
            .map(|(path, shown)| (n, path, shown))
    })
}

/// The file of the repository's documentation folder a link of `line` to `project`'s
/// documentation site shows, and where the link shows it: `PROJECT.readthedocs.io/LANG/VERSION/
/// PAGE.html`, `readthedocs.org/projects/PROJECT/`, `OWNER.github.io/PROJECT/PAGE/` — PAGE (the
/// index where none) as `docs/PAGE.rst`, `.md`, … (also under `doc/` and `source/`), where one
/// `exists`.
fn site_page(
    line: &str,
    project: &str,
    exists: &impl Fn(&str) -> bool,
) -> Option<(String, String)> {
    line.match_indices("://").find_map(|(i, m)| {
        let rest = &line[i + m.len()..];
        let end = rest
            .find([')', ' ', '>', '#', '?', '"', ']', '\'', '`'])
            .unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches(['.', ',']);
        let (host, path) = url.split_once('/').unwrap_or((url, ""));
        let host = host.to_lowercase();
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let page: &[&str] = if let Some(name) = host.strip_suffix(".readthedocs.io") {
            if !super::reading::same_package(name, project) {
                return None;
            }
            // `en/latest/`: a language, then a version.
            let lang = segments
                .first()
                .is_some_and(|s| s.len() == 2 || (s.len() == 5 && s.as_bytes()[2] == b'-'));
            &segments[if lang { 2.min(segments.len()) } else { 0 }..]
        } else if host == "readthedocs.org" || host == "www.readthedocs.org" {
            match segments.as_slice() {
                ["projects", name, ..] if super::reading::same_package(name, project) => &[],
                _ => return None,
            }
        } else if host.ends_with(".github.io") {
            match segments.split_first() {
                Some((name, page)) if super::reading::same_package(name, project) => page,
                _ => return None,
            }
        } else {
            return None;
        };
        let page = page.join("/");
        let page = page.strip_suffix(".html").unwrap_or(&page);
        let page = match page.strip_suffix("index") {
            Some(dir) if dir.is_empty() || dir.ends_with('/') => dir.trim_end_matches('/'),
            _ => page,
        };
        let page = if page.is_empty() { "index" } else { page };
        let file = ["docs", "doc", "docs/source", "doc/source", "docs/src"]
            .iter()
            .flat_map(|dir| {
                ["rst", "md", "adoc", "txt"].iter().flat_map(move |ext| {
                    [
                        format!("{dir}/{page}.{ext}"),
                        format!("{dir}/{page}/index.{ext}"),
                    ]
                })
            })
            .find(|p| exists(p))?;
        Some((file, format!("as published at `{host}`")))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_link_to_the_projects_own_example_is_read_as_its_file() {
        let all = [
            (1, "# Example fails", false),
            (
                3,
                "I copy [this](https://github.com/me/lister/blob/main/examples/flags.rs) exactly.",
                false,
            ),
            (
                4,
                "See https://github.com/other/thing/blob/main/examples/flags.rs too.",
                false,
            ),
        ];
        let exists = |p: &str| p == "examples/flags.rs";
        assert_eq!(
            super::linked(&all, "lister", exists),
            Some((
                3,
                "examples/flags.rs".to_string(),
                "as on `main`".to_string()
            ))
        );
        assert_eq!(super::linked(&all[2..], "lister", exists), None);
        let code = [(
            2,
            "at https://github.com/me/lister/blob/main/src/lib.rs#L3",
            false,
        )];
        assert_eq!(super::linked(&code, "lister", |_| true), None);
    }

    #[test]
    fn a_link_to_the_projects_documentation_site_is_read_as_its_docs_file() {
        let docs = |p: &str| ["docs/index.rst", "docs/tutorial.rst", "docs/usage.md"].contains(&p);
        let at = |line: &'static str| super::linked(&[(2, line, false)], "lister", docs);
        let shown = |path: &str, host: &str| {
            Some((2, path.to_string(), format!("as published at `{host}`")))
        };
        // Read the Docs: a page under a language and a version, the project's page, the index.
        assert_eq!(
            at("The [tutorial](https://lister.readthedocs.io/en/latest/tutorial.html) fails."),
            shown("docs/tutorial.rst", "lister.readthedocs.io")
        );
        assert_eq!(
            at("The [first example](https://readthedocs.org/projects/lister/) fails."),
            shown("docs/index.rst", "readthedocs.org")
        );
        assert_eq!(
            at("See https://lister.readthedocs.io/."),
            shown("docs/index.rst", "lister.readthedocs.io")
        );
        // GitHub Pages: the project's path, then the page.
        assert_eq!(
            at("As https://me.github.io/lister/usage/ says."),
            shown("docs/usage.md", "me.github.io")
        );
        // Another project's site, or a page the folder lacks, is not this repository's.
        assert_eq!(
            at("See https://other.readthedocs.io/en/latest/tutorial.html"),
            None
        );
        assert_eq!(at("See https://me.github.io/other/usage/"), None);
        assert_eq!(
            at("See https://lister.readthedocs.io/en/latest/missing.html"),
            None
        );
    }
}
