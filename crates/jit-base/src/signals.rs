//! Change signals for the startup load: the `ChangeSource` trait that `jit-git` implements.

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

/// Where the worktree's changed files come from (git, another VCS, a test double).
///
/// The startup load turns these into scope signals. `jit-core` never depends
/// on git: `jit-git` implements this trait and a harness may replace it.
///
/// ```
/// use camino::Utf8Path;
/// use jit_base::{ChangeSet, ChangeSource};
///
/// struct Fixed;
/// impl ChangeSource for Fixed {
///     fn changed_files(&self, _root: &Utf8Path) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
///         Ok(ChangeSet { files: vec!["src/ui/Badge.tsx".into()], diagnostics: vec![] })
///     }
/// }
/// assert_eq!(Fixed.changed_files(Utf8Path::new("/p"))?.files, ["src/ui/Badge.tsx"]);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub trait ChangeSource: Send + Sync {
    /// The changed files of the worktree at `root`: staged, modified, deleted,
    /// renamed and untracked (each untracked file listed on its own, never a
    /// collapsed directory), ignored files excluded, `/`-separated and
    /// relative to `root`.
    fn changed_files(
        &self,
        root: &Utf8Path,
    ) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>>;
}

/// The answer of a [`ChangeSource`].
///
/// Plug-ins build it with a struct expression, so it is not
/// `#[non_exhaustive]`: a new field would come with a new major version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChangeSet {
    /// Changed files, relative to the worktree root, `/`-separated.
    pub files: Vec<Utf8PathBuf>,
    /// Things the source could not express as files (for example a path
    /// that is not UTF-8), in words a user can act on.
    pub diagnostics: Vec<String>,
}
