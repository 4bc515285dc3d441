//! Put the right project rules into an AI coding agent's context at the right moment.
//!
//! Work in progress: the discovery engine arrives with its own change.
#![deny(missing_docs)]

mod error;
mod registry;
mod signals;

pub use error::{Error, ErrorKind};
pub use registry::{
    AffectedPaths, Registry, ReporterRegistration, SkippedInput, ToolRegistration, TouchedPaths,
    TouchesNothing,
};
pub use signals::{ChangeSet, ChangeSource};

/// Re-exported so plug-in crates can `jit_core::inventory::submit!` without
/// naming the dependency themselves.
pub use inventory;
