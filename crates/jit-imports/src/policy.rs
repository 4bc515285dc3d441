//! The expansion policy: how deep, how large, and which places outside the project an import may reach.

use std::path::{Path, PathBuf};

/// Default hop limit: the root file's imports are depth 1, their imports depth 2, and so on.
pub const DEFAULT_MAX_DEPTH: usize = 5;

/// Default size cap of one imported file, in bytes.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 * 1024;

/// Default limit on the imports one expansion follows, nested ones included.
///
/// Real rule files import a few files each (a corpus of about 1,000 rule
/// files from 58 public repositories has at most a few dozen imports in one
/// file), so no real project comes near it. It bounds the work one
/// expansion can do: at most this many paths resolved and this many files
/// read, whatever a hostile file holds (`@a @a @a …` over 256 KiB is about
/// 87,000 tokens). The import that meets the limit is `refused` with reason
/// `too_many_imports`; it and every later one stay as written.
pub const DEFAULT_MAX_IMPORTS: usize = 1_000;

/// What an expansion may follow. The default is the project-file policy:
/// depth 5, 256 KiB per file, 1,000 imports per expansion, nothing outside
/// the project root, no `~/` imports.
///
/// ```
/// use jit_imports::Policy;
///
/// // A user-level rule file (`~/.claude/CLAUDE.md`) may import from the home directory.
/// let policy = Policy::default()
///     .with_max_depth(3)
///     .with_allow_home(true)
///     .with_home_dir(Some("/home/me".into()));
/// assert_eq!(policy.max_depth(), 3);
/// assert!(policy.allow_home());
/// assert!(!policy.allow_outside_root());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    max_depth: usize,
    max_file_bytes: u64,
    max_imports: usize,
    allow_outside_root: bool,
    allow_home: bool,
    home_dir: Option<PathBuf>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_depth: DEFAULT_MAX_DEPTH,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_imports: DEFAULT_MAX_IMPORTS,
            allow_outside_root: false,
            allow_home: false,
            home_dir: None,
        }
    }
}

impl Policy {
    /// Sets the hop limit; an import deeper than this is `too_deep`. Zero refuses every import.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets the size cap of one imported file; a larger file is `refused`
    /// (`too_large`) from its metadata, before any byte of it is read.
    #[must_use]
    pub fn with_max_file_bytes(mut self, max_file_bytes: u64) -> Self {
        self.max_file_bytes = max_file_bytes;
        self
    }

    /// Sets how many imports one expansion follows, nested ones included; the
    /// import that meets the limit is `refused` (`too_many_imports`) and the
    /// rest stay as written. Zero refuses every import.
    #[must_use]
    pub fn with_max_imports(mut self, max_imports: usize) -> Self {
        self.max_imports = max_imports;
        self
    }

    /// Allows imports whose real path is outside the project root.
    #[must_use]
    pub fn with_allow_outside_root(mut self, allow: bool) -> Self {
        self.allow_outside_root = allow;
        self
    }

    /// Allows `~/…` imports and any import inside the home directory: for user-level rule files only.
    #[must_use]
    pub fn with_allow_home(mut self, allow: bool) -> Self {
        self.allow_home = allow;
        self
    }

    /// Sets the home directory that `~/` stands for. Without one, `~/…` imports are refused.
    #[must_use]
    pub fn with_home_dir(mut self, home_dir: Option<PathBuf>) -> Self {
        self.home_dir = home_dir;
        self
    }

    /// The hop limit.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The size cap of one imported file, in bytes.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes
    }

    /// How many imports one expansion follows.
    pub fn max_imports(&self) -> usize {
        self.max_imports
    }

    /// Whether imports may resolve outside the project root.
    pub fn allow_outside_root(&self) -> bool {
        self.allow_outside_root
    }

    /// Whether `~/…` imports and imports inside the home directory are allowed.
    pub fn allow_home(&self) -> bool {
        self.allow_home
    }

    /// The home directory that `~/` stands for, if known.
    pub fn home_dir(&self) -> Option<&Path> {
        self.home_dir.as_deref()
    }

    /// Whether a file whose real path is `real` may be read under this
    /// policy, by the rules an import is held to: inside the real project
    /// `root` by whole path components (`/p-evil` is not inside `/p`),
    /// inside the home directory when home imports are allowed, or anywhere
    /// when imports may leave the root. `real` and `root` must already be
    /// resolved (`realpath`); the home directory is resolved here.
    ///
    /// ```
    /// use std::path::Path;
    /// let policy = jit_imports::Policy::default();
    /// assert!(policy.permits(Path::new("/p/docs/a.md"), Path::new("/p")));
    /// assert!(!policy.permits(Path::new("/p-evil/a.md"), Path::new("/p")));
    /// assert!(policy.with_allow_outside_root(true).permits(Path::new("/q"), Path::new("/p")));
    /// ```
    pub fn permits(&self, real: &Path, root: &Path) -> bool {
        let home = self
            .home_dir()
            .map(|home| std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf()));
        self.permits_resolved(real, Some(root), home.as_deref())
    }

    /// [`Policy::permits`] with the root (if it resolved) and the home
    /// directory already resolved, for an expansion that checks many files.
    pub(crate) fn permits_resolved(
        &self,
        real: &Path,
        root: Option<&Path>,
        home: Option<&Path>,
    ) -> bool {
        // `Path::starts_with` compares whole components.
        let inside_root = root.is_some_and(|root| real.starts_with(root));
        let inside_home = self.allow_home() && home.is_some_and(|home| real.starts_with(home));
        inside_root || inside_home || self.allow_outside_root()
    }
}
