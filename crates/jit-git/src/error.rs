//! The crate's error type: one `Error` with a `kind()`, every message naming the path that failed.

use std::fmt;

/// What went wrong, for callers that branch on the failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Neither the directory nor any of its parents is a git repository.
    NotARepository,
    /// The repository is bare: it has no working tree whose changes could be listed.
    NoWorktree,
    /// The directory asked about is not inside the repository's working tree
    /// (for example it lies inside the `.git` directory).
    OutsideWorktree,
    /// The directory could not be inspected (it does not exist, or is unreadable).
    Io,
    /// gix failed: a broken or unsupported repository, an unreadable index or
    /// object, or an invalid configuration.
    Git,
}

impl ErrorKind {
    /// The stable snake_case name of this kind, as used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotARepository => "not_a_repository",
            ErrorKind::NoWorktree => "no_worktree",
            ErrorKind::OutsideWorktree => "outside_worktree",
            ErrorKind::Io => "io",
            ErrorKind::Git => "git",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error type of `jit-git`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    /// A new error of `kind` with a message that names the failing path.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// Like [`Error::new`], keeping the underlying error as the source.
    pub(crate) fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        Error {
            kind,
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}
