//! Where a command runs: the current directory, the project root when `--root` is not given, and how human output names a root-relative path.

use std::borrow::Cow;
use std::path::PathBuf;

use anyhow::Context as _;
use camino::{Utf8Path, Utf8PathBuf};

/// The current directory, as UTF-8.
pub(crate) fn current_dir() -> anyhow::Result<Utf8PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Utf8PathBuf::from_path_buf(cwd)
        .map_err(|p| anyhow::anyhow!("the current directory {} is not UTF-8", p.display()))
}

/// The nearest directory at or above `dir` holding a `.git` (a directory,
/// or a file for a linked worktree or a submodule).
pub(crate) fn git_root(dir: &Utf8Path) -> Option<Utf8PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Utf8Path::to_owned)
}

/// The project a command works on when no root is given: the git worktree
/// root at or above `dir`, else `dir` itself. `jit hook` uses the same rule
/// when the agent names no project directory.
pub(crate) fn default_root(dir: &Utf8Path) -> Utf8PathBuf {
    git_root(dir).unwrap_or_else(|| dir.to_owned())
}

/// `--root` as given, else [`default_root`] of the current directory.
pub(crate) fn root_or_default(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match given {
        Some(root) => Ok(root),
        None => Ok(default_root(&current_dir()?).into_std_path_buf()),
    }
}

/// How a human table names a root-relative path: relative to where the user
/// stands when that is inside the root (`../ui/CLAUDE.md` from `src/api`),
/// else as it is. JSON output never goes through this: its paths stay
/// root-relative.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shown {
    /// The current directory relative to the root, as segments; `None` when
    /// it is the root itself or outside it (paths are then shown unchanged).
    below: Option<Vec<String>>,
}

impl Shown {
    /// For `root` seen from `cwd`; both are resolved first, so a symlinked
    /// current directory inside the root still counts as inside.
    pub(crate) fn new(root: &Utf8Path, cwd: &Utf8Path) -> Shown {
        let real = |p: &Utf8Path| p.canonicalize_utf8().ok();
        let below = match (real(root), real(cwd)) {
            (Some(root), Some(cwd)) => jit_core::relative_to(&cwd, &root).and_then(|rel| {
                let parts: Vec<String> = rel.components().map(|c| c.to_string()).collect();
                (!parts.is_empty()).then_some(parts)
            }),
            _ => None,
        };
        Shown { below }
    }

    /// `rel`, a `/`-separated path relative to the root (`""` or `.` for the
    /// root itself), as seen from the current directory. An absolute path,
    /// or any path when the current directory is the root or outside it, is
    /// returned unchanged.
    pub(crate) fn path<'a>(&self, rel: &'a str) -> Cow<'a, str> {
        let Some(below) = &self.below else {
            return Cow::Borrowed(rel);
        };
        if rel.starts_with('/') || Utf8Path::new(rel).is_absolute() {
            return Cow::Borrowed(rel);
        }
        let target: Vec<&str> = rel
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        let common = below
            .iter()
            .zip(&target)
            .take_while(|(a, b)| a.as_str() == **b)
            .count();
        let mut parts: Vec<&str> = vec![".."; below.len() - common];
        parts.extend(&target[common..]);
        let mut shown = if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        };
        // A directory given with its trailing slash keeps it.
        if rel.ends_with('/') && !shown.ends_with('/') {
            shown.push('/');
        }
        Cow::Owned(shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown_from(below: &[&str]) -> Shown {
        Shown {
            below: (!below.is_empty()).then(|| below.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[test]
    fn from_the_root_paths_are_unchanged() {
        let shown = shown_from(&[]);
        assert_eq!(shown.path("src/ui/CLAUDE.md"), "src/ui/CLAUDE.md");
        assert_eq!(shown.path("CLAUDE.md"), "CLAUDE.md");
    }

    #[test]
    fn from_a_subdirectory_paths_are_relative_to_it() {
        let shown = shown_from(&["src", "api"]);
        assert_eq!(shown.path("src/api/CLAUDE.md"), "CLAUDE.md");
        assert_eq!(shown.path("src/ui/CLAUDE.md"), "../ui/CLAUDE.md");
        assert_eq!(shown.path("CLAUDE.md"), "../../CLAUDE.md");
        assert_eq!(shown.path(".claude/rules/a.md"), "../../.claude/rules/a.md");
        assert_eq!(shown.path("src/api"), ".");
        assert_eq!(shown.path("src"), "..");
        assert_eq!(shown.path(""), "../..");
        assert_eq!(shown.path("src/ui/"), "../ui/");
    }

    #[test]
    fn a_segment_is_compared_whole() {
        let shown = shown_from(&["src", "ui"]);
        assert_eq!(shown.path("src/uix/a.ts"), "../uix/a.ts");
    }

    #[test]
    fn absolute_paths_are_unchanged() {
        let shown = shown_from(&["src"]);
        assert_eq!(
            shown.path("/home/me/.claude/CLAUDE.md"),
            "/home/me/.claude/CLAUDE.md"
        );
    }

    #[test]
    fn a_current_directory_outside_the_root_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        std::fs::create_dir_all(base.join("proj/src")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        let outside = Shown::new(&base.join("proj"), &base.join("elsewhere"));
        assert_eq!(outside.path("src/a.ts"), "src/a.ts");
        let inside = Shown::new(&base.join("proj"), &base.join("proj/src"));
        assert_eq!(inside.path("src/a.ts"), "a.ts");
    }

    #[test]
    fn the_default_root_is_the_git_root_else_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        std::fs::create_dir_all(base.join("repo/.git")).unwrap();
        std::fs::create_dir_all(base.join("repo/src/ui")).unwrap();
        std::fs::create_dir_all(base.join("plain/sub")).unwrap();
        assert_eq!(default_root(&base.join("repo/src/ui")), base.join("repo"));
        assert_eq!(
            default_root(&base.join("plain/sub")),
            base.join("plain/sub")
        );
    }
}
