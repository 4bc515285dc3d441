//! Narrowing a change set to the subtree of the working directory.

use crate::signals::ChangeSet;
use camino::{Utf8Component, Utf8Path, Utf8PathBuf};

/// Keeps only the changes inside the `cwd` subtree.
///
/// `cwd` is relative to the same root as the changed files; an empty path or
/// `.` is the root itself and keeps everything. Containment is decided by
/// whole path segments: with `cwd` = `src/ui`, `src/ui/Badge.tsx` stays and
/// `src/ui-old/x.ts` goes. Diagnostics are kept as they are, since a path
/// that could not be expressed cannot be placed either.
///
/// A `cwd` that is absolute or contains `..` is not resolved here (that
/// needs the filesystem, see [`startup_signals`](crate::startup_signals)),
/// so it keeps no files — never all of them — and says so in a diagnostic.
///
/// ```
/// use jit_base::ChangeSet;
/// let changes = ChangeSet {
///     files: vec!["src/ui/Badge.tsx".into(), "src/ui-old/x.ts".into(), "docs/a.md".into()],
///     diagnostics: vec![],
/// };
/// let narrowed = jit_base::narrow_to_cwd(changes, "src/ui".into());
/// assert_eq!(narrowed.files, ["src/ui/Badge.tsx"]);
/// ```
pub fn narrow_to_cwd(changes: ChangeSet, cwd: &Utf8Path) -> ChangeSet {
    let ChangeSet {
        files,
        mut diagnostics,
    } = changes;
    let Some(cwd) = subtree(cwd) else {
        diagnostics.push(format!(
            "the working directory {cwd} is not a path inside the project root, so no changed file counts as inside it"
        ));
        return ChangeSet {
            files: Vec::new(),
            diagnostics,
        };
    };
    let files = files
        .into_iter()
        .filter(|file| file.starts_with(&cwd))
        .collect();
    ChangeSet { files, diagnostics }
}

/// `cwd` as plain path segments, or `None` if it is absolute or leaves the root.
pub(crate) fn subtree(cwd: &Utf8Path) -> Option<Utf8PathBuf> {
    let mut out = Utf8PathBuf::new();
    for component in cwd.components() {
        match component {
            Utf8Component::Normal(name) => out.push(name),
            Utf8Component::CurDir => {}
            Utf8Component::ParentDir | Utf8Component::RootDir | Utf8Component::Prefix(_) => {
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check(files: &[&str], cwd: &str, expected: &[&str]) {
        let changes = ChangeSet {
            files: files.iter().map(Utf8PathBuf::from).collect(),
            diagnostics: vec!["kept".into()],
        };
        let narrowed = narrow_to_cwd(changes, Utf8Path::new(cwd));
        let got: Vec<&str> = narrowed.files.iter().map(|file| file.as_str()).collect();
        assert_eq!(got, expected, "cwd {cwd:?}");
        assert_eq!(narrowed.diagnostics[0], "kept");
    }

    const FILES: &[&str] = &[
        "README.md",
        "docs/guide.md",
        "src/ui/Badge.tsx",
        "src/ui/deep/er/File.tsx",
        "src/ui-old/x.ts",
        "src/uix",
        "src/ui.rs",
        "nested/",
    ];

    #[test]
    fn root_keeps_everything() {
        check(FILES, "", FILES);
        check(FILES, ".", FILES);
        check(FILES, "./", FILES);
    }

    #[test]
    fn containment_is_by_whole_segment() {
        check(
            FILES,
            "src/ui",
            &["src/ui/Badge.tsx", "src/ui/deep/er/File.tsx"],
        );
        check(
            FILES,
            "src/ui/",
            &["src/ui/Badge.tsx", "src/ui/deep/er/File.tsx"],
        );
        check(
            FILES,
            "./src/ui",
            &["src/ui/Badge.tsx", "src/ui/deep/er/File.tsx"],
        );
        check(FILES, "src/ui/deep/er", &["src/ui/deep/er/File.tsx"]);
        check(FILES, "src/ui-old", &["src/ui-old/x.ts"]);
    }

    #[test]
    fn dirty_ui_file_does_not_count_in_docs() {
        check(FILES, "docs", &["docs/guide.md"]);
    }

    #[test]
    fn untouched_directory_keeps_nothing() {
        check(FILES, "website", &[]);
    }

    #[test]
    fn nested_repository_counts_inside_itself() {
        check(FILES, "nested", &["nested/"]);
    }

    #[test]
    fn paths_outside_the_root_keep_nothing_and_say_why() {
        for cwd in ["/abs/src/ui", "..", "src/../..", "../src/ui"] {
            let narrowed = narrow_to_cwd(
                ChangeSet {
                    files: vec!["src/ui/a.ts".into()],
                    diagnostics: vec![],
                },
                Utf8Path::new(cwd),
            );
            assert!(narrowed.files.is_empty(), "{cwd}");
            assert_eq!(narrowed.diagnostics.len(), 1, "{cwd}");
            assert!(narrowed.diagnostics[0].contains(cwd), "{cwd}");
        }
    }
}
