//! Startup scope signals: the cwd directory marker plus the changed files inside the cwd subtree.

use crate::signals::ChangeSource;
use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

use crate::narrow::{narrow_to_cwd, subtree};

/// What the startup load matches `paths:` scopes against, and why it is what it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Signals {
    /// The cwd directory marker first (root-relative, with a trailing `/`,
    /// absent when the cwd is the root), then the changed files inside the
    /// cwd subtree, root-relative and sorted.
    pub signals: Vec<String>,
    /// Why the changed files are missing, when the change source failed
    /// (for example: not a git repository). The marker is still there.
    pub fallback_reason: Option<String>,
    /// Things a user may want to know: a changed path that is not UTF-8, a
    /// cwd outside the root, unreadable directories.
    pub diagnostics: Vec<String>,
}

/// The startup signals for a session in `cwd` of the project at `root`.
///
/// `cwd` is absolute or relative to `root`. The signals are:
///
/// 1. the cwd directory marker `src/ui/` — with its trailing `/`, because
///    `src/ui/**` matches `src/ui/` but not `src/ui` — unless `cwd` is the
///    root itself;
/// 2. the files `source` reports as changed, narrowed to the cwd subtree
///    (a dirty `src/ui` file does not count in `docs`), root-relative.
///
/// With no source (`None`), the marker is the only signal.
///
/// If `source` fails, the signals are the marker only — never "match
/// everything" — and [`Signals::fallback_reason`] says why. A `cwd` outside
/// `root` yields no signals and a diagnostic; the source is not asked.
///
/// ```
/// use camino::Utf8Path;
/// use jit_base::{ChangeSet, ChangeSource};
///
/// struct Fixed;
/// impl ChangeSource for Fixed {
///     fn changed_files(&self, _root: &Utf8Path) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
///         Ok(ChangeSet { files: vec!["src/ui/Badge.tsx".into(), "docs/a.md".into()], diagnostics: vec![] })
///     }
/// }
/// let signals = jit_base::startup_signals(Utf8Path::new("/p"), Utf8Path::new("/p/src/ui"), Some(&Fixed));
/// assert_eq!(signals.signals, ["src/ui/", "src/ui/Badge.tsx"]);
/// ```
pub fn startup_signals(
    root: &Utf8Path,
    cwd: &Utf8Path,
    source: Option<&dyn ChangeSource>,
) -> Signals {
    let mut out = Signals::default();
    let Some(cwd_rel) = cwd_relative_to_root(root, cwd) else {
        out.diagnostics.push(format!(
            "the working directory {cwd} is not inside the project root {root}; no scope signals"
        ));
        return out;
    };
    if !cwd_rel.as_str().is_empty() {
        out.signals.push(format!("{cwd_rel}/"));
    }
    let Some(source) = source else {
        return out;
    };
    match source.changed_files(root) {
        Ok(changes) => {
            let mut narrowed = narrow_to_cwd(changes, &cwd_rel);
            narrowed.files.sort();
            narrowed.files.dedup();
            for file in narrowed.files {
                let file = file.into_string();
                if !out.signals.contains(&file) {
                    out.signals.push(file);
                }
            }
            out.diagnostics.extend(narrowed.diagnostics);
        }
        Err(err) => {
            out.fallback_reason = Some(format!(
                "changed files unavailable, using the cwd marker only: {err}"
            ));
        }
    }
    out
}

/// `cwd` as a root-relative subtree, or `None` when it is outside `root`.
///
/// The lexical answer is tried first (no filesystem access); when it fails,
/// for example because of `..` or a symlinked spelling of the root, both
/// paths are resolved on disk and compared again.
fn cwd_relative_to_root(root: &Utf8Path, cwd: &Utf8Path) -> Option<Utf8PathBuf> {
    let lexical = if cwd.is_relative() {
        Some(cwd)
    } else {
        cwd.strip_prefix(root).ok()
    };
    if let Some(relative) = lexical.and_then(subtree) {
        return Some(relative);
    }
    let resolve = |path: &Utf8Path| -> Option<Utf8PathBuf> {
        Utf8PathBuf::from_path_buf(std::fs::canonicalize(path).ok()?).ok()
    };
    let root = resolve(root)?;
    let cwd = if cwd.is_relative() {
        resolve(&root.join(cwd))?
    } else {
        resolve(cwd)?
    };
    subtree(cwd.strip_prefix(&root).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::ChangeSet;
    use pretty_assertions::assert_eq;

    /// A change source that answers with fixed files, or fails.
    struct Fixed(Option<Vec<&'static str>>);

    impl ChangeSource for Fixed {
        fn changed_files(
            &self,
            _root: &Utf8Path,
        ) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
            match &self.0 {
                Some(files) => Ok(ChangeSet {
                    files: files.iter().map(Utf8PathBuf::from).collect(),
                    diagnostics: vec![],
                }),
                None => Err("not a git repository".into()),
            }
        }
    }

    #[track_caller]
    fn check(cwd: &str, changed: Option<Vec<&'static str>>, expected: &[&str]) -> Signals {
        let signals = startup_signals(
            Utf8Path::new("/p"),
            Utf8Path::new(cwd),
            Some(&Fixed(changed)),
        );
        assert_eq!(signals.signals, expected, "cwd {cwd}");
        signals
    }

    // The four rows of the startup table, for a rule scoped to `src/ui/**`.
    #[test]
    fn root_and_clean_worktree_gives_no_signals() {
        check("/p", Some(vec![]), &[]);
    }

    #[test]
    fn root_with_a_dirty_ui_file_gives_that_file() {
        check("/p", Some(vec!["src/ui/Badge.tsx"]), &["src/ui/Badge.tsx"]);
    }

    #[test]
    fn cwd_in_ui_gives_the_marker_with_a_trailing_slash() {
        check("/p/src/ui", Some(vec![]), &["src/ui/"]);
        check("/p/src/ui/", Some(vec![]), &["src/ui/"]);
        check("src/ui", Some(vec![]), &["src/ui/"]);
    }

    #[test]
    fn cwd_in_docs_ignores_dirty_ui_files() {
        check(
            "/p/docs",
            Some(vec!["docs/a.md", "src/ui/Badge.tsx", "docs-old/b.md"]),
            &["docs/", "docs/a.md"],
        );
    }

    #[test]
    fn changed_files_come_sorted_after_the_marker() {
        check(
            "/p/src",
            Some(vec!["src/z.rs", "src/a.rs", "src/a.rs"]),
            &["src/", "src/a.rs", "src/z.rs"],
        );
    }

    #[test]
    fn failing_source_falls_back_to_the_marker_and_says_why() {
        let signals = check("/p/src/ui", None, &["src/ui/"]);
        let reason = signals.fallback_reason.unwrap_or_default();
        assert!(reason.contains("not a git repository"), "{reason}");
        let signals = check("/p", None, &[]);
        assert!(signals.fallback_reason.is_some());
    }

    #[test]
    fn cwd_outside_root_gives_nothing_and_a_diagnostic() {
        let signals = check("/elsewhere", Some(vec!["src/ui/a.ts"]), &[]);
        assert_eq!(signals.diagnostics.len(), 1);
        assert!(signals.diagnostics[0].contains("/elsewhere"));
        assert_eq!(signals.fallback_reason, None);
    }

    #[test]
    fn cwd_with_dotdot_is_resolved_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        std::fs::create_dir_all(root.join("src/ui")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        let signals = startup_signals(
            &root,
            &root.join("src/ui/../../docs"),
            Some(&Fixed(Some(vec![]))),
        );
        assert_eq!(signals.signals, ["docs/"]);
        let signals = startup_signals(&root, &root.join("src/.."), Some(&Fixed(Some(vec![]))));
        assert_eq!(signals.signals, Vec::<String>::new());
        assert!(signals.diagnostics.is_empty());
    }
}
