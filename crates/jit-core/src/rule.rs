//! Rule files: reading one from disk (size, binary, UTF-8 checks), its scope, and the decision types.

pub(crate) mod frontmatter;
pub(crate) mod scope;
pub(crate) mod source;

use std::fs;
use std::sync::Arc;
use std::time::SystemTime;

use camino::Utf8Path;
use serde::Serialize;

use crate::rule::scope::{CompiledScope, MAX_PATTERN_BYTES, MAX_SCOPE_PATTERNS};
use crate::rule::source::{RuleSource, ScopeSpec};
use crate::session::events::vocabulary;

vocabulary! {
    /// Why a rule was injected.
    #[non_exhaustive]
    pub enum Attribution {
        /// Loaded at session start (unconditional, or a scope matched a startup signal).
        SessionStart = "session_start",
        /// An unscoped rule on the directory chain of a touched path.
        NestedTraversal = "nested_traversal",
        /// A scoped rule whose globs match the touched path.
        PathGlobMatch = "path_glob_match",
        /// Imported by another rule with `@path`.
        Include = "include",
        /// Loaded by the agent itself (for example Claude Code's own loading of
        /// nested `CLAUDE.md` files when its Read tool runs): recorded as in the
        /// context so it is never injected a second time, but not injected.
        Native = "native",
    }
    unknown:
    /// An attribution this version does not know (a log written by a newer one).
    Unknown
}

vocabulary! {
    /// Where a rule file comes from, in load order.
    #[non_exhaustive]
    pub enum Tier {
        /// Machine-wide rules an administrator manages (`/etc/claude-code/CLAUDE.md`).
        Managed = "managed",
        /// The user's own rules (`~/.claude/CLAUDE.md`, `~/.claude/rules/`).
        User = "user",
        /// Rules checked into the project.
        Project = "project",
        /// The user's private project rules (`CLAUDE.local.md`).
        Local = "local",
    }
}

vocabulary! {
    /// Why a candidate rule file was not injected.
    #[non_exhaustive]
    pub enum SkipReason {
        /// The rule is scoped and the touched path (or signal) does not match.
        ScopeMiss = "scope_miss",
        /// The same file is already in the context and has not changed.
        AlreadyLoaded = "already_loaded",
        /// The path resolves outside the project root.
        OutsideRoot = "outside_root",
        /// The frontmatter (or its scope) cannot be read: its YAML is broken, a
        /// scope key holds something that is not a pattern, or the file opens
        /// like a frontmatter (`---` as its first non-blank line) that cannot be
        /// told apart (indented, `--- yaml`, never closed). A rule whose scope
        /// cannot be read is never loaded unscoped.
        InvalidFrontmatter = "invalid_frontmatter",
        /// The file or directory cannot be read, or is not a regular file.
        Unreadable = "unreadable",
        /// The file, or its name, is not UTF-8.
        NotUtf8 = "not_utf8",
        /// The file is larger than the configured cap.
        TooLarge = "too_large",
        /// The file looks binary (it has a NUL byte).
        Binary = "binary",
        /// The convention says this rule is only attached by hand.
        ManualOnly = "manual_only",
        /// The rule does not fit the session's byte budget for rule blocks: only
        /// a summary (its headings and a note on what was cut) was injected.
        TooLargeForBudget = "too_large_for_budget",
        /// The rule folder holds more rule files than
        /// [`MAX_RULE_FILES_PER_FOLDER`](crate::MAX_RULE_FILES_PER_FOLDER): the
        /// ones past the limit, in sorted order, are not read.
        TooManyRules = "too_many_rules",
        /// The frontmatter is larger than
        /// [`MAX_FRONTMATTER_BYTES`](crate::MAX_FRONTMATTER_BYTES), or its YAML
        /// is past [`MAX_YAML_NODES`](crate::MAX_YAML_NODES) values (aliases
        /// expanded), [`MAX_YAML_ALIASES`](crate::MAX_YAML_ALIASES) aliases or
        /// anchors, or [`MAX_YAML_DEPTH`](crate::MAX_YAML_DEPTH) levels of
        /// nesting (an alias bomb, say). The rule is refused after a bounded
        /// amount of work.
        YamlTooComplex = "yaml_too_complex",
        /// The scope lists more than
        /// [`MAX_SCOPE_PATTERNS`](crate::MAX_SCOPE_PATTERNS) distinct patterns;
        /// none of them is compiled or matched.
        TooManyPatterns = "too_many_patterns",
        /// A scope pattern is longer than
        /// [`MAX_PATTERN_BYTES`](crate::MAX_PATTERN_BYTES); none of the rule's
        /// patterns is compiled or matched.
        PatternTooLong = "pattern_too_long",
        /// Another candidate of the same convention takes precedence in this
        /// directory (`AGENTS.override.md` over `AGENTS.md`).
        Shadowed = "shadowed",
        /// The rule excludes the agent that is running (Copilot's `excludeAgent:`).
        ExcludedAgent = "excluded_agent",
    }
    unknown:
    /// A reason this version does not know (a log written by a newer one).
    Unknown
}

vocabulary! {
    /// Whether a loaded rule is new to the context or replaces an older version.
    pub enum LoadKind {
        /// First time in the context.
        Loaded = "loaded",
        /// The file changed on disk since it was loaded; this text replaces the old one.
        Replaced = "replaced",
    }
}

/// A rule that goes into the context.
///
/// ```
/// use jit_core::{DiscoveryState, Engine, LoadKind};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// let engine = Engine::new(dir.path())?;
/// let mut state = DiscoveryState::default();
/// let first = engine.discover(&mut state, "a.rs".into(), engine.root());
/// assert_eq!((first.loaded[0].decision, first.loaded[0].bytes), (LoadKind::Loaded, 10));
/// assert_eq!(first.loaded[0].source, "claude");
///
/// // The file changed on disk: its new text replaces the old one.
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use four spaces.\n")?;
/// let again = engine.discover(&mut state, "a.rs".into(), engine.root());
/// assert_eq!(again.loaded[0].decision, LoadKind::Replaced);
/// assert_eq!(again.loaded[0].content, "Use four spaces.\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LoadedRule {
    /// The rule file: root-relative and `/`-separated inside the project,
    /// absolute outside it (user and managed rules).
    pub file: String,
    /// Why it was injected.
    pub attribution: Attribution,
    /// Size of the injected text in bytes (the whole block, imports
    /// inlined); 0 for an `include` entry, whose text is counted in the
    /// block of the rule that imported it.
    pub bytes: usize,
    /// `loaded`, or `replaced` when a changed file replaces its older text.
    pub decision: LoadKind,
    /// The rule source convention (`claude`, ...).
    pub source: String,
    /// The scope patterns of a scoped rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Vec<String>>,
    /// Which subject matched which pattern, for scoped rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For an import, the rule file that included it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub included_by: Option<String>,
    /// Where the rule comes from (set by the startup load).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Problems a user should fix (recovered frontmatter, empty scope, failed imports).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The text to inject: the body without frontmatter, imports expanded.
    #[serde(skip)]
    pub content: String,
}

/// A candidate that was not injected, with its reason.
///
/// ```
/// use jit_core::{DiscoveryState, Engine, SkipReason};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "---\npaths: [\"**/*.py\"]\n---\nUse black.\n")?;
/// let engine = Engine::new(dir.path())?;
/// let found = engine.discover(&mut DiscoveryState::default(), "main.rs".into(), engine.root());
/// let skipped = &found.skipped[0];
/// assert_eq!((skipped.file.as_str(), skipped.reason), ("CLAUDE.md", SkipReason::ScopeMiss));
/// assert!(skipped.detail.contains("main.rs"), "{}", skipped.detail);
/// assert_eq!(skipped.source, "claude");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SkippedRule {
    /// The candidate file (or directory), displayed like [`LoadedRule::file`].
    pub file: String,
    /// Why it was not injected.
    pub reason: SkipReason,
    /// Details a user can act on (the parser's message, the scope tried, ...).
    pub detail: String,
    /// The rule source convention that named the candidate (`claude`, ...);
    /// empty, and left out of JSON, for a skip that belongs to no convention
    /// (a touched path outside the root, say).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

impl SkippedRule {
    /// `file` skipped for `reason`, with `detail`, named by the convention
    /// `source` (empty for none).
    pub fn new(
        file: impl Into<String>,
        reason: SkipReason,
        detail: impl Into<String>,
        source: impl Into<String>,
    ) -> Self {
        SkippedRule {
            file: file.into(),
            reason,
            detail: detail.into(),
            source: source.into(),
        }
    }
}

/// Size and modification time: a changed stamp means the file must be re-read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) len: u64,
    pub(crate) modified: Option<SystemTime>,
}

impl Stamp {
    pub(crate) fn of(meta: &fs::Metadata) -> Self {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// The modification time as nanoseconds since the Unix epoch, for
    /// storing a stamp; `None` when the platform gave none or it is before
    /// the epoch.
    pub(crate) fn modified_nanos(&self) -> Option<u64> {
        self.modified
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| u64::try_from(d.as_nanos()).ok())
    }

    /// A stamp stored with [`Stamp::modified_nanos`].
    pub(crate) fn from_stored(len: u64, modified_nanos: Option<u64>) -> Self {
        let modified = modified_nanos.and_then(|nanos| {
            std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_nanos(nanos))
        });
        Stamp { len, modified }
    }
}

/// The parsed, scope-resolved content of a rule file.
#[derive(Debug)]
pub(crate) struct ParsedRule {
    pub(crate) body: String,
    /// Whether a frontmatter block was read.
    pub(crate) frontmatter: bool,
    pub(crate) scope: RuleScope,
    pub(crate) warnings: Vec<String>,
    /// The frontmatter's `description:`, for the rule index.
    pub(crate) description: Option<String>,
    /// Only the scope is known: it came with a scan record a session
    /// snapshot kept, and the body, warnings and description are empty. A
    /// touch the scope misses is decided from it; one it matches reads the
    /// file.
    pub(crate) scope_only: bool,
}

#[derive(Debug)]
pub(crate) enum RuleScope {
    Always,
    Paths(CompiledScope),
    Manual(String),
    /// Left out for the running agent, with the reason.
    Excluded(String),
}

/// A rule file that cannot be used, with the reason and detail to record.
#[derive(Debug, Clone)]
pub(crate) struct Rejection {
    pub(crate) reason: SkipReason,
    pub(crate) detail: String,
    /// The failure may pass (an I/O error: permissions, too many open
    /// files): the file is tried again on the next touch instead of being
    /// remembered as rejected.
    pub(crate) transient: bool,
}

impl Rejection {
    fn new(reason: SkipReason, detail: impl Into<String>) -> Self {
        Rejection {
            reason,
            detail: detail.into(),
            transient: false,
        }
    }
}

/// Reads and parses a rule file whose metadata was already taken.
pub(crate) fn read_rule(
    path: &Utf8Path,
    meta: &fs::Metadata,
    source: &dyn RuleSource,
    max_bytes: u64,
) -> Result<Arc<ParsedRule>, Rejection> {
    // The file is judged again on the open descriptor: it may have been
    // swapped for a FIFO or a link since its metadata was taken.
    match crate::open::open_regular(path.as_std_path()) {
        Ok((file, _)) => read_opened(path, file, meta, source, max_bytes),
        Err(err) => Err(unreadable(path, &err)),
    }
}

/// Reads and parses the rule file `path`, open as `file`, whose metadata
/// `meta` was taken before it is read: one over `max_bytes` is refused
/// unread.
pub(crate) fn read_opened(
    path: &Utf8Path,
    file: fs::File,
    meta: &fs::Metadata,
    source: &dyn RuleSource,
    max_bytes: u64,
) -> Result<Arc<ParsedRule>, Rejection> {
    if meta.len() > max_bytes {
        return Err(Rejection::new(
            SkipReason::TooLarge,
            format!(
                "{} bytes is over the {max_bytes}-byte cap for one rule file; split it, or raise the cap",
                meta.len()
            ),
        ));
    }
    #[cfg(test)]
    READS.with(|n| n.set(n.get() + 1));
    let bytes = match jit_base::read_capped(file, meta.len(), max_bytes) {
        Ok(bytes) => bytes,
        Err(err) => return Err(unreadable(path, &err)),
    };
    if bytes.len() as u64 > max_bytes {
        return Err(Rejection::new(
            SkipReason::TooLarge,
            format!("over the {max_bytes}-byte cap for one rule file (it grew while being read)"),
        ));
    }
    if bytes.contains(&0) {
        return Err(Rejection::new(
            SkipReason::Binary,
            "the file has a NUL byte, so it is not a text rule file",
        ));
    }
    let text = String::from_utf8(bytes).map_err(|err| {
        Rejection::new(
            SkipReason::NotUtf8,
            format!("not valid UTF-8: {}", err.utf8_error()),
        )
    })?;
    parse_rule(&text, source).map(Arc::new)
}

#[cfg(test)]
thread_local! {
    /// How many rule files this thread read.
    pub(crate) static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A rule file that could not be opened or read. One that is not a regular
/// file stays so until its stamp changes; any other I/O error may pass (a
/// `chmod` does not change the stamp), so it is tried again on the next touch.
fn unreadable(path: &Utf8Path, err: &std::io::Error) -> Rejection {
    let permanent = err.kind() == std::io::ErrorKind::InvalidInput;
    Rejection {
        transient: !permanent,
        ..Rejection::new(SkipReason::Unreadable, format!("cannot read {path}: {err}"))
    }
}

/// Parses a rule file's text (frontmatter, scope) with the rules of `source`.
pub(crate) fn parse_rule(text: &str, source: &dyn RuleSource) -> Result<ParsedRule, Rejection> {
    let keys: Vec<&str> = source.scope_keys().iter().map(String::as_str).collect();
    let parsed =
        frontmatter::parse(text, &keys).map_err(|err| Rejection::new(err.reason, err.message))?;
    let mut warnings = parsed.warnings;
    let description = source::description(&parsed.frontmatter);
    let spec = match source.excluded(&parsed.frontmatter) {
        Some(why) => {
            return Ok(ParsedRule {
                frontmatter: parsed.frontmatter.is_present(),
                body: parsed.body,
                scope: RuleScope::Excluded(why),
                warnings,
                description,
                scope_only: false,
            });
        }
        None => source.scope(&parsed.frontmatter),
    };
    let scope = match spec {
        ScopeSpec::Always => RuleScope::Always,
        ScopeSpec::AlwaysWithWarning(warning) => {
            warnings.push(warning);
            RuleScope::Always
        }
        ScopeSpec::Manual(why) => RuleScope::Manual(why),
        ScopeSpec::Invalid(why) => {
            return Err(Rejection::new(SkipReason::InvalidFrontmatter, why));
        }
        ScopeSpec::Paths(globs) => compile_scope(globs)?,
        ScopeSpec::PathsWithWarning(globs, warning) => {
            let compiled = compile_scope(globs)?;
            warnings.push(warning);
            compiled
        }
    };
    Ok(ParsedRule {
        frontmatter: parsed.frontmatter.is_present(),
        body: parsed.body,
        scope,
        warnings,
        description,
        scope_only: false,
    })
}

pub(crate) fn compile_scope(globs: Vec<String>) -> Result<RuleScope, Rejection> {
    check_scope_limits(&globs)?;
    let compiled = CompiledScope::from_owned(globs)
        .map_err(|err| Rejection::new(SkipReason::InvalidFrontmatter, err.to_string()))?;
    Ok(RuleScope::Paths(compiled))
}

/// Refuses a scope past [`MAX_SCOPE_PATTERNS`] or with a pattern past
/// [`MAX_PATTERN_BYTES`], before anything is compiled: the cost of a rule
/// must not grow with what a stranger's repository puts in it.
fn check_scope_limits(globs: &[String]) -> Result<(), Rejection> {
    if globs.len() > MAX_SCOPE_PATTERNS {
        return Err(Rejection::new(
            SkipReason::TooManyPatterns,
            format!(
                "the scope lists {} patterns, over the limit of {MAX_SCOPE_PATTERNS} for one rule; \
                 split the rule, or use fewer, broader patterns (`src/**`)",
                globs.len()
            ),
        ));
    }
    if let Some((i, long)) = globs
        .iter()
        .enumerate()
        .find(|(_, glob)| glob.len() > MAX_PATTERN_BYTES)
    {
        let start: String = long
            .chars()
            .take(40)
            .flat_map(char::escape_default)
            .collect();
        return Err(Rejection::new(
            SkipReason::PatternTooLong,
            format!(
                "scope pattern {} (`{start}…`) is {} bytes, over the limit of {MAX_PATTERN_BYTES} \
                 bytes for one pattern",
                i + 1,
                long.len()
            ),
        ));
    }
    Ok(())
}

/// How a rule file's bytes were judged, for the fuzz target: what
/// [`__fuzz_parse_rule`] returns.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuzzVerdict {
    /// Loaded, scoped by these patterns.
    Scoped(Vec<String>),
    /// Loaded unscoped; `frontmatter` says whether a frontmatter was read.
    Unscoped {
        /// A frontmatter block was read (without a scope key).
        frontmatter: bool,
    },
    /// Attached by hand only.
    Manual,
    /// Refused, with this reason.
    Skipped(SkipReason),
}

/// Judges `bytes` as a `.claude/rules` file would be, without touching the
/// filesystem: the UTF-8 and NUL checks, then the frontmatter and scope.
/// Exposed for the fuzz target only.
#[doc(hidden)]
pub fn __fuzz_parse_rule(bytes: &[u8]) -> FuzzVerdict {
    if bytes.contains(&0) {
        return FuzzVerdict::Skipped(SkipReason::Binary);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return FuzzVerdict::Skipped(SkipReason::NotUtf8);
    };
    let source = source::ClaudeSource::default();
    match parse_rule(text, &source) {
        Err(rejection) => FuzzVerdict::Skipped(rejection.reason),
        Ok(parsed) => match parsed.scope {
            RuleScope::Paths(scope) => FuzzVerdict::Scoped(scope.patterns().to_vec()),
            RuleScope::Manual(_) | RuleScope::Excluded(_) => FuzzVerdict::Manual,
            RuleScope::Always => FuzzVerdict::Unscoped {
                frontmatter: parsed.frontmatter,
            },
        },
    }
}
