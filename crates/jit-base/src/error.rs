//! The crate's error type: one `Error` with a `kind()`, every message naming the input that failed.

use std::fmt;

/// What went wrong, for callers that branch on the failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A tool call named a tool that has no registered path reporter.
    UnregisteredTool,
    /// A tool call's JSON input lacks a field or has one of the wrong type.
    InvalidToolInput,
    /// The project root does not exist, is not a directory, or is not UTF-8.
    InvalidRoot,
    /// A glob pattern could not be compiled.
    InvalidGlob,
    /// A stored session snapshot is of another format version or does not
    /// describe a session.
    InvalidSnapshot,
    /// A rule convention was asked for by a name no shipped source has.
    UnknownSource,
    /// A tool has more than one path reporter, in a registry that was built
    /// without [`Registry::checked`](crate::Registry::checked); no reporter
    /// is picked by link order.
    AmbiguousTool,
    /// A session's tool registry failed its audit, so no tool call is
    /// answered; the message is the audit report.
    FailedAudit,
    /// A harness's tool list (JSON tool definitions) could not be read.
    InvalidToolList,
    /// A configured file name (a rule convention's `names`,
    /// `fallback_names` or `extra_names`) is not one path component: it
    /// holds a `/` or `\`, is `.` or `..`, is empty or absolute, or holds
    /// a NUL byte. A name is looked for in each directory and never
    /// reaches outside it; the message names the key and the value.
    InvalidFileName,
}

impl ErrorKind {
    /// The stable snake_case name of this kind, as used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnregisteredTool => "unregistered_tool",
            ErrorKind::InvalidToolInput => "invalid_tool_input",
            ErrorKind::InvalidRoot => "invalid_root",
            ErrorKind::InvalidGlob => "invalid_glob",
            ErrorKind::InvalidSnapshot => "invalid_snapshot",
            ErrorKind::UnknownSource => "unknown_source",
            ErrorKind::AmbiguousTool => "ambiguous_tool",
            ErrorKind::FailedAudit => "failed_audit",
            ErrorKind::InvalidToolList => "invalid_tool_list",
            ErrorKind::InvalidFileName => "invalid_file_name",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error type of the jit crates: defined here, re-exported by `jit-core`
/// and returned by the plug-ins built on this crate.
///
/// A caller decides by [`Error::kind`] and shows the message, which names
/// the failing input:
///
/// ```
/// use jit_base::{ErrorKind, Registry};
/// let mut registry = Registry::empty();
/// registry.register_tool("read", "my_harness");
/// let err = registry
///     .affected_paths("Read", &serde_json::json!({}), "/p".into())
///     .unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::UnregisteredTool);
/// assert!(err.to_string().ends_with("`read` is registered: call it `read`"));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// A new error of `kind` with a message that names the failing input.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// A tool's JSON input lacks `field` or has it with the wrong type.
    ///
    /// ```
    /// let err = jit_base::Error::invalid_tool_input("read", "file_path", "missing");
    /// assert_eq!(err.kind(), jit_base::ErrorKind::InvalidToolInput);
    /// assert_eq!(err.to_string(), "tool `read`: field `file_path`: missing");
    /// ```
    pub fn invalid_tool_input(tool: &str, field: &str, detail: impl fmt::Display) -> Self {
        Error::new(
            ErrorKind::InvalidToolInput,
            format!("tool `{tool}`: field `{field}`: {detail}"),
        )
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}
