//! Put the right project rules into an AI coding agent's context at the right moment.
//!
//! Rules that must always hold are loaded at session start
//! ([`Engine::startup`]); rules that belong to a directory or a `paths:` scope
//! are injected just in time, when a tool call touches a matching file
//! ([`Engine::discover`], [`Engine::discover_tool_call`]). Every candidate gets
//! a decision: loaded with an [`Attribution`], or skipped with a
//! [`SkipReason`] and a detail a user can act on.
//!
//! ```
//! use jit_core::{Attribution, DiscoveryState, Engine, SkipReason};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("src/ui"))?;
//! std::fs::write(dir.path().join("CLAUDE.md"), "Every change comes with a test.\n")?;
//! std::fs::write(
//!     dir.path().join("src/ui/CLAUDE.md"),
//!     "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nNo colour emoji in components.\n",
//! )?;
//!
//! let engine = Engine::new(dir.path())?;
//! let mut state = DiscoveryState::default();
//!
//! // The README does not match the component rule's scope...
//! let readme = engine.discover(&mut state, "src/ui/README.md".into(), engine.root());
//! assert_eq!(readme.loaded[0].attribution, Attribution::NestedTraversal);
//! assert_eq!(readme.skipped[0].reason, SkipReason::ScopeMiss);
//!
//! // ...and that skip does not hide the rule from the next file there.
//! let footer = engine.discover(&mut state, "src/ui/Footer.tsx".into(), engine.root());
//! assert_eq!(footer.loaded[0].file, "src/ui/CLAUDE.md");
//! assert_eq!(footer.loaded[0].attribution, Attribution::PathGlobMatch);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What this crate deliberately does not do: guess touched paths from field
//! names (tools report them through [`AffectedPaths`]), evict loaded rules,
//! watch files (a changed rule is re-read on the next touch of its
//! directory), or read anything outside the project root and each
//! convention's user folder (`~/.claude`, `~/.codex`, `~/.gemini`). Git and
//! shell parsing live in plug-in crates (`jit-git`, `jit-bash`), behind
//! traits declared here.
//!
//! Tools report the paths they touch through [`AffectedPaths`] reporters in
//! a [`Registry`]; [`Registry::checked`] refuses a registry that disagrees
//! with itself, and [`audit_tools`] checks the tool names a harness gives its
//! model (read from JSON tool definitions by [`tool_names_from_json`]).
//!
//! Conventions are [`RuleSource`]s: [`source_by_name`] builds a shipped one
//! (`claude`, `agents`, `gemini`, `cursor`, `copilot`, `cline`) with
//! [`SourceOptions`], [`detect_conventions`] picks the ones a repository
//! uses, and [`Engine::with_sources`] runs them.
#![deny(missing_docs)]

mod discover;
mod lint_support;
mod rule;
mod session;
mod stats;
mod why;

/// A hash map keyed by what the engine builds itself (paths, mostly),
/// hashed with foldhash: a warm touch looks its paths up a few hundred
/// times, and the standard library's SipHash took a third of its
/// instructions. Seeded at random per process like the standard one.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set hashed like [`Map`].
pub(crate) type Set<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

pub use discover::index::{
    DEFAULT_INDEX_BYTES, IndexEntry, IndexOverflow, ProjectWalk, WalkCache, WalkCacheReport,
    detect_conventions, detect_conventions_along, find_rule_files,
};
pub use discover::startup::{DEFAULT_CHANGE_DEADLINE, StartupOptions, StartupReport};
pub use discover::{
    DEFAULT_MAX_RULE_BYTES, Discovery, DiscoveryState, Engine, MAX_CALL_PATHS, MAX_KEPT_SCANS,
    MAX_PATH_BYTES, MAX_RULE_FILES_PER_FOLDER, ToolCallDiscovery, WatchStats,
};
pub use lint_support::{RuleCheck, RuleScopeCheck, check_rule_text, invisible_character};
#[doc(hidden)]
pub use rule::frontmatter::opens_like_frontmatter;
pub use rule::frontmatter::{
    Frontmatter, MAX_FRONTMATTER_BYTES, MAX_YAML_ALIASES, MAX_YAML_DEPTH, MAX_YAML_NODES, Patterns,
};
pub use rule::scope::{CompiledScope, MAX_PATTERN_BYTES, MAX_SCOPE_PATTERNS};
pub use rule::source::{
    AgentsSource, CONVENTIONS, ClaudeSource, ClineSource, CopilotSource, CursorSource,
    DEFAULT_AGENTS_BUDGET_BYTES, GeminiSource, Imports, Precedence, RuleDir, RuleSource, ScopeSpec,
    SourceOptions, UserLevel, all_sources, default_managed_path, source_by_name,
};
#[doc(hidden)]
pub use rule::{__fuzz_parse_rule, FuzzVerdict};
pub use rule::{Attribution, LoadKind, LoadedRule, SkipReason, SkippedRule, Tier};
pub use session::events::{
    Candidate, ChannelKind, Decision, Departure, EVENT_SCHEMA, Event, EventKind, Limit,
    MAX_EVENT_PATH_BYTES, MAX_EVENT_PATHS, now_rfc3339,
};
pub use session::manifest::{
    BlockForm, DEFAULT_DEBT_IDLE_STEPS, DEFAULT_DEBT_MIN_BYTES, DebtEntry, LeaveReason, Manifest,
    ManifestEntry,
};
pub use session::prompt::{CACHE_BOUNDARY, PromptBlock, SystemPrompt};
pub use session::{
    Channel, DEFAULT_BUDGET_BYTES, DEFAULT_JIT_CONTEXT, Injection, LoadTrigger, NativeLoads,
    SNAPSHOT_FORMAT, Session, SessionConfig, SessionSnapshot, ToolCall, block_header,
};
pub use stats::{
    DebtRow, FileStats, Percentiles, STATS_MAX_TRACKED, Stats, StatsBuilder, StatsOptions,
};
pub use why::{
    HeadError, HeadScope, PatternTrace, RuleHead, RuleLocation, Stop, inspect_rule, rule_locations,
    trace_pattern,
};

// The base every jit crate builds on, re-exported at the same names so code
// written against jit-core (`jit_core::Registry`, `jit_core::Error`,
// `jit_core::inventory::submit!`) keeps working; see jit-base's docs.
pub use jit_base::{
    AffectedPaths, AuditProblem, AuditReport, ChangeSet, ChangeSource, Error, ErrorKind, Registry,
    ReporterRegistration, Signals, SkippedInput, ToolRegistration, TouchedPaths, TouchesNothing,
    audit, audit_tools, lexical_clean, narrow_to_cwd, open_append, open_regular, overwrite,
    read_capped, relative_to, resolve_parents, startup_signals, tool_names_from_json,
};
// Where jit keeps files of its own (the hook's state directory).
pub use jit_base::{DirLink, check_private_dir, create_private, open_private_append, private_dir};

/// Re-exported (from `jit-base`, which declares the registrations) so
/// plug-in crates can `jit_core::inventory::submit!` without naming the
/// dependency themselves.
pub use jit_base::inventory;

/// The file-opening helpers, moved to `jit-base`; this keeps the
/// `crate::open::...` paths the engine, the rule reader and the event log use.
mod open {
    pub(crate) use jit_base::{
        describe_file_type as describe, open_append, open_private_append, open_regular,
    };
}
