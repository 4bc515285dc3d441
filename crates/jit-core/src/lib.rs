//! Put the right project rules into an AI coding agent's context at the right moment.
//!
//! Work in progress: the discovery engine arrives with its own change.
#![deny(missing_docs)]

mod audit;
mod engine;
mod error;
mod frontmatter;
mod paths;
mod registry;
mod rule;
mod scope;
mod signals;
mod source;
mod startup;

pub use audit::{AuditProblem, AuditReport, audit};
pub use engine::{DEFAULT_MAX_RULE_BYTES, Discovery, DiscoveryState, Engine, ToolCallDiscovery};
pub use error::{Error, ErrorKind};
pub use frontmatter::{Frontmatter, Patterns};
pub use registry::{
    AffectedPaths, Registry, ReporterRegistration, SkippedInput, ToolRegistration, TouchedPaths,
    TouchesNothing,
};
pub use rule::{Attribution, LoadKind, LoadedRule, SkipReason, SkippedRule, Tier};
pub use scope::{CompiledScope, ScopeDecision, ScopeMatcher, SignalMatcher, TouchedPathMatcher};
pub use signals::{ChangeSet, ChangeSource};
pub use source::{ClaudeSource, RuleDir, RuleSource, ScopeSpec};
pub use startup::{StartupOptions, StartupReport, default_managed_path};

/// Re-exported so plug-in crates can `jit_core::inventory::submit!` without
/// naming the dependency themselves.
pub use inventory;
