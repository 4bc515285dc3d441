//! The small base every jit crate builds on: errors, path normalisation, the tool-reporter registry and audit, and the change-source trait.
//!
//! Plug-ins implement the traits declared here: a tool's path reporter is an
//! [`AffectedPaths`], registered with `inventory` through
//! [`ToolRegistration`] and [`ReporterRegistration`] and gathered into a
//! [`Registry`], which [`audit`] and [`audit_tools`] check; a source of
//! changed files for the startup load is a [`ChangeSource`]. `jit-core`
//! re-exports every public item of this crate at the same name
//! (`jit_core::Registry` is [`Registry`]), so code written against
//! `jit-core` keeps working; a plug-in that needs only these pieces depends
//! on this crate and compiles neither YAML, globbing nor imports.
//!
//! ```
//! use jit_base::{AffectedPaths, Error, Registry, TouchedPaths, lexical_clean};
//!
//! /// A harness's own tool, which writes the file named in `target`.
//! struct Deploy;
//! impl AffectedPaths for Deploy {
//!     fn affected_paths(
//!         &self,
//!         input: &serde_json::Value,
//!         _cwd: &camino::Utf8Path,
//!     ) -> Result<TouchedPaths, Error> {
//!         let target = input["target"]
//!             .as_str()
//!             .ok_or_else(|| Error::invalid_tool_input("deploy", "target", "missing"))?;
//!         Ok(TouchedPaths::from_paths([lexical_clean(target)]))
//!     }
//! }
//!
//! let mut registry = Registry::empty();
//! registry.register_tool("deploy", "my_harness");
//! registry.register_reporter("deploy", Deploy, "my_harness");
//! let registry = registry.into_checked()?;
//! let touched = registry.affected_paths(
//!     "deploy",
//!     &serde_json::json!({"target": "./site//index.html"}),
//!     "/project".into(),
//! )?;
//! assert_eq!(touched.paths, ["site/index.html"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What this crate deliberately does not do: read rule files, parse YAML,
//! match globs, expand imports or run a session (that is `jit-core`), and
//! know any particular tool or version control system (that is the
//! plug-ins, `jit-tools` and `jit-git`).
#![deny(missing_docs)]

mod audit;
mod error;
mod narrow;
mod open;
mod paths;
mod registry;
mod signals;
mod startup_signals;
mod tool_list;

pub use audit::{AuditProblem, AuditReport, audit, audit_tools};
pub use error::{Error, ErrorKind};
pub use narrow::narrow_to_cwd;
pub use open::{
    DirLink, check_private_dir, create_private, open_append, open_private_append, open_regular,
    overwrite, private_dir, read_capped,
};
pub use paths::{lexical_clean, relative_to, resolve_parents};
pub use registry::{
    AffectedPaths, Registry, ReporterRegistration, SkippedInput, ToolRegistration, TouchedPaths,
    TouchesNothing,
};
pub use signals::{ChangeSet, ChangeSource};
pub use startup_signals::{Signals, startup_signals};
pub use tool_list::tool_names_from_json;

// Helpers `jit-core` shares with this crate; not part of the public API.
#[doc(hidden)]
pub use open::describe as describe_file_type;
#[doc(hidden)]
pub use paths::{Real, real_within, slash};

/// Re-exported so plug-in crates can `jit_base::inventory::submit!` without
/// naming the dependency themselves.
pub use inventory;
