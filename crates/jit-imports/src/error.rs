//! The crate's error type: one `Error` with a `kind()`, every message naming the file that failed.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, for callers that branch on the failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The rule file could not be read (missing, unreadable, a directory…).
    Read,
    /// The rule file is not UTF-8 text.
    NotUtf8,
    /// The rule file is larger than the policy's size cap.
    TooLarge,
    /// The rule file is not a regular file (a directory, a named pipe, a
    /// socket, a device); judged on the opened file, so a pipe never blocks.
    NotRegularFile,
    /// The rule file contains NUL bytes.
    Binary,
}

impl ErrorKind {
    /// The stable snake_case name of this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Read => "read",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::NotRegularFile => "not_regular_file",
            ErrorKind::Binary => "binary",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error type of `jit-imports`: only reading the top-level rule file can fail;
/// everything that goes wrong with an import is a [`crate::Diagnostic`] instead.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    path: PathBuf,
    message: String,
    #[source]
    source: Option<std::io::Error>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, path: &Path, message: String) -> Self {
        Error {
            kind,
            path: path.to_path_buf(),
            message,
            source: None,
        }
    }

    pub(crate) fn with_source(mut self, source: std::io::Error) -> Self {
        self.source = Some(source);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file that failed.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
