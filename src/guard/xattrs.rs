//! Access control lists and file capabilities: what gives another user access to a path, or a
//! program privileges, with its mode bits and owner untouched — a named-user ACL that keeps the
//! mode, a directory's default ACL (inherited by every file created in it later), a
//! `security.capability` on a tracked program. Recorded by a SHA-256 of each attribute's raw
//! bytes, only for paths that have one, so the record stays a handful of paths.
//!
//! Not for: reading them (`crate::sys::security_attributes`: Linux only; macOS keeps its ACLs
//! outside the extended attributes and has no file capabilities).

use std::path::Path;

use serde::Serialize;

use sha2::{Digest, Sha256};

/// The access-granting extended attributes of one path, each by a SHA-256 of its raw bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Xattrs {
    /// `system.posix_acl_access`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acl: Option<String>,
    /// `system.posix_acl_default` (a directory's, inherited by what is created in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_acl: Option<String>,
    /// `security.capability`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capability: Option<String>,
}

impl Xattrs {
    /// Those of `path` itself (a link is not followed); `None` when it has none, or they cannot
    /// be read (a path that is gone is told by the rest of the snapshot).
    pub fn of(path: &Path) -> Option<Xattrs> {
        Xattrs::read(path, false)
    }

    /// Those of what `path` leads to, if it is a link.
    pub fn of_target(path: &Path) -> Option<Xattrs> {
        Xattrs::read(path, true)
    }

    fn read(path: &Path, follow: bool) -> Option<Xattrs> {
        let found = crate::sys::security_attributes(path, follow).ok()?;
        let mut x = Xattrs::default();
        for (name, value) in found {
            let slot = match name {
                "system.posix_acl_access" => &mut x.acl,
                "system.posix_acl_default" => &mut x.default_acl,
                _ => &mut x.capability,
            };
            *slot = Some(format!("{:x}", Sha256::digest(&value)));
        }
        (x != Xattrs::default()).then_some(x)
    }

    /// What a path has: `ACL, file capability`.
    pub fn names(&self) -> String {
        self.parts()
            .iter()
            .filter(|(_, v)| v.is_some())
            .map(|(what, _)| *what)
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn parts(&self) -> [(&'static str, &Option<String>); 3] {
        [
            ("ACL", &self.acl),
            ("default ACL", &self.default_acl),
            ("file capability", &self.capability),
        ]
    }
}

/// `ACL set, file capability removed`, naming only what differs (empty when nothing does).
pub(super) fn describe_change(before: Option<&Xattrs>, after: Option<&Xattrs>) -> String {
    let none = Xattrs::default();
    let (b, a) = (before.unwrap_or(&none), after.unwrap_or(&none));
    b.parts()
        .iter()
        .zip(a.parts())
        .filter_map(|((what, vb), (_, va))| {
            let how = match (vb, va) {
                (None, Some(_)) => "set",
                (Some(_), None) => "removed",
                (Some(x), Some(y)) if x != y => "changed",
                _ => return None,
            };
            Some(format!("{what} {how}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_names_each_attribute_that_differs() {
        let acl = Xattrs {
            acl: Some("a".into()),
            ..Xattrs::default()
        };
        let other_acl_and_cap = Xattrs {
            acl: Some("b".into()),
            capability: Some("c".into()),
            ..Xattrs::default()
        };
        assert_eq!(describe_change(None, Some(&acl)), "ACL set");
        assert_eq!(describe_change(Some(&acl), None), "ACL removed");
        assert_eq!(
            describe_change(Some(&acl), Some(&other_acl_and_cap)),
            "ACL changed, file capability set"
        );
        assert_eq!(describe_change(Some(&acl), Some(&acl)), "");
        assert_eq!(other_acl_and_cap.names(), "ACL, file capability");
    }
}
