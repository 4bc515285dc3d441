//! Path helpers: lexical normalisation, segment-wise containment, and root-relative display.

use camino::{Utf8Component, Utf8Path, Utf8PathBuf};

/// Removes `.` and resolves `..` lexically; never touches the filesystem.
pub(crate) fn normalize(path: &Utf8Path) -> Utf8PathBuf {
    let s = path.as_str();
    // Fast path: most paths are already clean, and this runs on every touch.
    let clean = cfg!(unix)
        && !s.contains("//")
        && (s.len() <= 1 || !s.ends_with('/'))
        && !s.split('/').any(|part| part == "." || part == "..");
    if clean {
        return path.to_owned();
    }
    let mut out = Utf8PathBuf::new();
    for component in path.components() {
        match component {
            Utf8Component::CurDir => {}
            Utf8Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_str()),
        }
    }
    out
}

/// `path` relative to `root` when it is `root` itself or below it, compared by
/// whole path segments (`/tmp/proj-evil` is not inside `/tmp/proj`).
///
/// Both paths must be normalised. On Unix this is a string comparison with a
/// separator check (the walk calls it at every level, so it must be cheap).
pub(crate) fn relative_to<'a>(path: &'a Utf8Path, root: &Utf8Path) -> Option<&'a Utf8Path> {
    if cfg!(unix) {
        let (p, r) = (path.as_str(), root.as_str());
        let rest = p.strip_prefix(r)?;
        if rest.is_empty() {
            Some(Utf8Path::new(""))
        } else if r.ends_with('/') {
            Some(Utf8Path::new(rest))
        } else {
            rest.strip_prefix('/').map(Utf8Path::new)
        }
    } else {
        path.strip_prefix(root).ok()
    }
}

/// Joins root-relative segments with `/` whatever the platform.
pub(crate) fn slash(rel: &Utf8Path) -> String {
    let mut out = String::with_capacity(rel.as_str().len());
    for (i, component) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(component.as_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment_is_by_segment() {
        let root = Utf8Path::new("/tmp/proj");
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj"), root),
            Some(Utf8Path::new(""))
        );
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj/src/a.ts"), root),
            Some(Utf8Path::new("src/a.ts"))
        );
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj-evil/a.ts"), root),
            None
        );
        assert_eq!(relative_to(Utf8Path::new("/tmp"), root), None);
        assert_eq!(relative_to(Utf8Path::new("/tmp/pro"), root), None);
        assert_eq!(
            relative_to(Utf8Path::new("/a/b"), Utf8Path::new("/")),
            Some(Utf8Path::new("a/b"))
        );
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Utf8Path::new("/a/./b/../c")),
            Utf8PathBuf::from("/a/c")
        );
        assert_eq!(
            normalize(Utf8Path::new("./src/a.ts")),
            Utf8PathBuf::from("src/a.ts")
        );
    }
}
