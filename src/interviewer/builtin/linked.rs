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
                "Line {line} links {path} of this repository (as on `{reference}`). Is that file \
                 right for the release they use, or out of step with it (ahead of it, or out of \
                 date)?"
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
/// (`github.com/OWNER/PROJECT/blob/REF/PATH` where PATH `exists`): its line, PATH and REF.
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
        line.match_indices("github.com/").find_map(|(i, m)| {
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
            .then(|| (n, path.to_string(), reference.to_string()))
        })
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
            Some((3, "examples/flags.rs".to_string(), "main".to_string()))
        );
        assert_eq!(super::linked(&all[2..], "lister", exists), None);
        let code = [(
            2,
            "at https://github.com/me/lister/blob/main/src/lib.rs#L3",
            false,
        )];
        assert_eq!(super::linked(&code, "lister", |_| true), None);
    }
}
