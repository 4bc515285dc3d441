//! Sessions: one per agent context, owning the discovery state, the prompt, the manifest and the event log.

pub(crate) mod events;
pub(crate) mod manifest;
pub(crate) mod prompt;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{AuditReport, Error, ErrorKind, Registry, SkippedInput, TouchedPaths, audit};

use serde::{Deserialize, Serialize};

use crate::discover::startup::{StartupOptions, StartupReport};
use crate::discover::{Discovery, DiscoveryState, Engine, StoredScan, StoredStamp, call_paths};
use crate::rule::{Attribution, LoadKind, LoadedRule, SkipReason, SkippedRule};
use crate::session::events::{
    Candidate, ChannelKind, Decision, Departure, EVENT_SCHEMA, Event, EventKind, EventWriter,
    Limit, MAX_EVENT_PATH_BYTES, MAX_EVENT_PATHS, now_rfc3339,
};
use crate::session::manifest::{BlockForm, DebtEntry, LeaveReason, Manifest, ManifestEntry, fnv1a};
use crate::session::prompt::{PromptBlock, SystemPrompt, headings};

/// Whether runtime (JIT) discovery is on when a configuration does not say:
/// on. With it off, only the startup load runs.
pub const DEFAULT_JIT_CONTEXT: bool = true;

/// The default total byte budget for JIT rule blocks: 256 KiB, generous
/// enough that only an outsized rule set meets it.
pub const DEFAULT_BUDGET_BYTES: u64 = 256 * 1024;

/// How sessions behave; a sub-agent's session gets its parent's.
///
/// The `jit_context` switch lives here, so a sub-agent inherits it through
/// [`Session::subagent`] instead of each call site remembering to pass it.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, Registry, Session, SessionConfig, TouchesNothing};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// let mut registry = Registry::empty();
/// registry.register_tool("web_fetch", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// let config = SessionConfig::new()
///     .with_registry(Arc::new(registry))
///     .with_jit_context(false);
/// assert!(config.registry().is_ok());
///
/// // A sub-agent runs with its parent's configuration: JIT stays off.
/// let parent = Session::new(Arc::new(Engine::new(dir.path())?), config);
/// let mut child = parent.subagent("explore");
/// assert_eq!(child.channel().name(), "subagent");
/// assert!(!child.config().jit_context());
/// let root = child.engine().root().to_owned();
/// assert!(!child.touch("src/main.rs".into(), &root).is_hit());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SessionConfig {
    jit_context: bool,
    budget_bytes: u64,
    step_budget: Option<u64>,
    event_log: Option<Utf8PathBuf>,
    /// Whether the event log is kept like a state file (no link followed).
    event_log_private: bool,
    boundary: String,
    registry: RegistrySource,
    native: Option<Arc<dyn NativeLoads>>,
    scan_key: Option<String>,
    deadline: Option<Instant>,
}

/// A registry that passed its audit, or the report of why it did not.
type CheckedRegistry = Result<Arc<Registry>, Arc<AuditReport>>;

/// Where a configuration's registry comes from.
#[derive(Debug, Clone)]
enum RegistrySource {
    /// Everything linked into this binary ([`linked_registry`]), built and
    /// audited the first time any configuration asks for it: a process
    /// that answers no tool call (a `jit explain`, a startup load) never
    /// pays for it.
    Linked,
    /// One given to [`SessionConfig::with_registry`], audited there.
    Given(CheckedRegistry),
}

/// Everything linked into this binary, audited once: `inventory` is fixed
/// at link time, so every configuration shares one answer.
fn linked_registry() -> &'static CheckedRegistry {
    static LINKED: OnceLock<CheckedRegistry> = OnceLock::new();
    LINKED.get_or_init(|| Registry::checked().map(Arc::new).map_err(Arc::new))
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig::new()
    }
}

impl SessionConfig {
    /// The defaults: JIT on ([`DEFAULT_JIT_CONTEXT`]), budget
    /// [`DEFAULT_BUDGET_BYTES`], no event log, the default cache boundary,
    /// and every tool linked into the binary, audited ([`Registry::checked`]).
    ///
    /// It never fails and never panics. When the linked registry fails its
    /// audit (a tool without a reporter, two reporters for one tool, no
    /// plug-in linked at all), the configuration keeps the report instead
    /// of a registry: sessions made from it still run their startup load
    /// and [`Session::touch`], but every tool call fails with
    /// [`ErrorKind::FailedAudit`] and the report as its message, never an
    /// answer from a registry that disagrees with itself. Use
    /// [`SessionConfig::checked`] to fail at construction instead, and
    /// [`SessionConfig::registry`] to look.
    ///
    /// ```standalone_crate
    /// use jit_core::SessionConfig;
    /// // Compiled on its own, this example links no plug-in crate, so the
    /// // registry is empty and fails its audit.
    /// let config = SessionConfig::new();
    /// assert!(config.registry().is_err());
    /// assert!(SessionConfig::checked().is_err());
    /// ```
    pub fn new() -> Self {
        SessionConfig {
            jit_context: DEFAULT_JIT_CONTEXT,
            budget_bytes: DEFAULT_BUDGET_BYTES,
            step_budget: None,
            event_log: None,
            event_log_private: false,
            boundary: prompt::CACHE_BOUNDARY.to_owned(),
            registry: RegistrySource::Linked,
            native: None,
            scan_key: None,
            deadline: None,
        }
    }

    /// [`SessionConfig::new`], or the audit report of the tools linked into
    /// this binary when they fail [`Registry::checked`].
    pub fn checked() -> Result<Self, AuditReport> {
        let config = SessionConfig::new();
        match config.checked_registry() {
            Ok(_) => Ok(config),
            Err(report) => Err(AuditReport::clone(report)),
        }
    }

    /// Turns runtime discovery on or off (the `jit_context` setting).
    pub fn with_jit_context(mut self, on: bool) -> Self {
        self.jit_context = on;
        self
    }

    /// Sets the total byte budget for JIT rule blocks.
    pub fn with_budget_bytes(mut self, bytes: u64) -> Self {
        self.budget_bytes = bytes;
        self
    }

    /// Caps what one step (a startup load, a touch, a tool call or batch)
    /// may inject: the blocks' text and their headers
    /// ([`Injection::context_text`]), in bytes. A rule that does not fit
    /// comes as its summary (headings and a note on how to read the rest),
    /// never cut mid-text. An agent hook whose output has a size limit sets
    /// it; by default there is none.
    pub fn with_step_budget(mut self, bytes: Option<u64>) -> Self {
        self.step_budget = bytes;
        self
    }

    /// Tells the session which rules the agent loads by itself: those are
    /// recorded as in the context (attribution `native`) and never injected.
    pub fn with_native(mut self, native: Arc<dyn NativeLoads>) -> Self {
        self.native = Some(native);
        self
    }

    /// Keeps the engine's scan records in [`Session::snapshot`] and takes
    /// them back in [`Session::restore`], so that a session restored in a
    /// new process (an agent hook's next call) checks what it already
    /// scanned instead of probing every candidate name again: a directory
    /// and the files a scan stamped, one `stat` each, as a process that
    /// stays does.
    ///
    /// `key` names what shapes the sources' judgement beyond what the
    /// engine shows (the running agent, the configuration's version): the
    /// records are taken back only under the same key, by the same build of
    /// this crate, on an engine with the same root, caps and sources (a
    /// source's behaviour set by options it does not show, such as
    /// [`crate::SourceOptions::agent`], belongs in the key). At most
    /// [`crate::MAX_KEPT_SCANS`] records are kept, the ones used last; a
    /// directory or file that changed in the two seconds before the scan
    /// that saw it keeps its directory out (a file's time is too coarse to
    /// prove a change in the same tick), so the next process scans it
    /// again. By default no record is kept.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use jit_core::{Engine, Session, SessionConfig, SessionSnapshot};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
    /// let engine = Arc::new(Engine::new(dir.path())?);
    /// let root = engine.root().to_owned();
    /// let config = SessionConfig::new().with_scan_records("claude-code");
    ///
    /// let mut first = Session::new(Arc::clone(&engine), config.clone());
    /// assert!(first.touch("a.rs".into(), &root).is_hit());
    /// let stored = serde_json::to_string(&first.snapshot())?;
    ///
    /// let snapshot: SessionSnapshot = serde_json::from_str(&stored)?;
    /// let mut second = Session::restore(engine, config, snapshot)?;
    /// assert!(!second.touch("b.rs".into(), &root).is_hit());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_scan_records(mut self, key: impl Into<String>) -> Self {
        self.scan_key = Some(key.into());
        self
    }

    /// Stops discovering at `deadline`: the paths of a step not yet
    /// discovered then are left out, and the step's event and
    /// [`Injection::limits`] say so (limit `deadline`, with how many were
    /// left). The paths are checked one by one, so the step ends at most
    /// one path's discovery after the deadline, with everything it found
    /// before in the prompt and the state. An agent hook, which must answer
    /// within its timeout, sets it; by default there is none. The startup
    /// load has its own ([`StartupOptions::with_change_deadline`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Instant;
    /// use jit_core::{Engine, Session, SessionConfig};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
    /// // A deadline already past: nothing is discovered, and the step says why.
    /// let config = SessionConfig::new().with_deadline(Some(Instant::now()));
    /// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
    /// let root = session.engine().root().to_owned();
    /// let step = session.touch("a.rs".into(), &root);
    /// assert!(!step.is_hit() && step.discoveries.is_empty());
    /// assert_eq!(step.limits[0].limit, "deadline");
    /// assert_eq!(step.events[0].limits, step.limits);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Appends events to this JSON Lines file.
    pub fn with_event_log(mut self, path: impl Into<Utf8PathBuf>) -> Self {
        self.event_log = Some(path.into());
        self.event_log_private = false;
        self
    }

    /// Appends events to this JSON Lines file, in a directory jit keeps to
    /// itself (the hook's state directory): created with mode `0600`, and a
    /// link in its place, a file of another user or anything but a regular
    /// file is refused with a warning (see [`Session::warnings`]) instead
    /// of being written through ([`crate::open_private_append`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use jit_core::{Engine, Session, SessionConfig};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
    /// let elsewhere = dir.path().join("elsewhere.txt");
    /// std::fs::write(&elsewhere, "kept")?;
    /// let log = dir.path().join("events.jsonl");
    /// # #[cfg(unix)] {
    /// std::os::unix::fs::symlink(&elsewhere, &log)?;
    /// let config = SessionConfig::new().with_private_event_log(log.to_str().ok_or("not UTF-8")?);
    /// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
    /// let root = session.engine().root().to_owned();
    /// session.touch("a.rs".into(), &root);
    /// assert_eq!(std::fs::read_to_string(&elsewhere)?, "kept");
    /// assert!(session.warnings()[0].contains("a symbolic link"));
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_private_event_log(mut self, path: impl Into<Utf8PathBuf>) -> Self {
        self.event_log = Some(path.into());
        self.event_log_private = true;
        self
    }

    /// Uses `marker` as the prompt's cache boundary.
    pub fn with_boundary(mut self, marker: impl Into<String>) -> Self {
        self.boundary = marker.into();
        self
    }

    /// Uses `registry` to learn which paths a tool call touched.
    ///
    /// It is audited here like the linked one: if it fails
    /// [`audit`](crate::audit), tool calls fail with
    /// [`ErrorKind::FailedAudit`] (see [`SessionConfig::new`]).
    pub fn with_registry(mut self, registry: Arc<Registry>) -> Self {
        self.registry = RegistrySource::Given(match audit(&registry) {
            Ok(()) => Ok(registry),
            Err(report) => Err(Arc::new(report)),
        });
        self
    }

    /// The registry, or its audit report, built now if it is the linked
    /// one and no configuration has asked for that yet.
    fn checked_registry(&self) -> &CheckedRegistry {
        match &self.registry {
            RegistrySource::Linked => linked_registry(),
            RegistrySource::Given(checked) => checked,
        }
    }

    /// The registry tool calls are answered from, or the audit report of
    /// why there is none.
    pub fn registry(&self) -> Result<&Registry, &AuditReport> {
        match self.checked_registry() {
            Ok(registry) => Ok(registry),
            Err(report) => Err(report),
        }
    }

    /// Whether runtime discovery is on.
    pub fn jit_context(&self) -> bool {
        self.jit_context
    }

    /// The total byte budget for JIT rule blocks.
    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }

    /// The event log, if any.
    pub fn event_log(&self) -> Option<&Utf8Path> {
        self.event_log.as_deref()
    }

    /// The cap on what one step injects, if any.
    pub fn step_budget(&self) -> Option<u64> {
        self.step_budget
    }

    /// When discovery stops, if ever ([`SessionConfig::with_deadline`]).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the deadline, if any, has passed.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|at| Instant::now() >= at)
    }
}

/// What made a session consider a rule: the agent may load some rules itself
/// on some of these (see [`NativeLoads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadTrigger<'a> {
    /// The startup load.
    Startup,
    /// A call of this registered tool.
    Tool(&'a str),
    /// A path touched outside any tool (for example named in a prompt).
    Touch,
}

/// Which rules an agent loads into its context by itself.
///
/// A harness whose agent has its own rule loading (Claude Code reads nested
/// `CLAUDE.md` files when its Read tool runs) says so here, so the session
/// records those rules as in the context (attribution `native`, no block)
/// and never injects them a second time.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{LoadTrigger, LoadedRule, NativeLoads, SessionConfig};
///
/// /// The agent reads nested `CLAUDE.md` files itself when it reads a file.
/// #[derive(Debug)]
/// struct ReadsNested;
/// impl NativeLoads for ReadsNested {
///     fn loads_natively(&self, trigger: LoadTrigger<'_>, rule: &LoadedRule) -> bool {
///         trigger == LoadTrigger::Tool("read") && rule.file.ends_with("CLAUDE.md")
///     }
/// }
/// let config = SessionConfig::new().with_native(Arc::new(ReadsNested));
/// # let _ = config;
/// ```
pub trait NativeLoads: Send + Sync + std::fmt::Debug {
    /// Whether the agent loads `rule` by itself when `trigger` happens.
    fn loads_natively(&self, trigger: LoadTrigger<'_>, rule: &LoadedRule) -> bool;
}

/// The header line of one injected block in [`Injection::context_text`]:
/// the rule's path, why it came, and the path that brought it.
///
/// ```
/// use jit_core::{Attribution, block_header};
/// assert_eq!(
///     block_header("src/ui/CLAUDE.md", Attribution::PathGlobMatch, "src/ui/Footer.tsx"),
///     "[jit-context] src/ui/CLAUDE.md (path_glob_match, triggered by src/ui/Footer.tsx)"
/// );
/// ```
pub fn block_header(file: &str, attribution: Attribution, trigger: &str) -> String {
    [
        "[jit-context] ",
        file,
        " (",
        attribution.as_str(),
        ", triggered by ",
        trigger,
        ")",
    ]
    .concat()
}

/// What one block costs in [`Injection::context_text`]: its header, its
/// text, a line break after each, and the blank line between blocks.
fn block_cost(header: &str, content: &str) -> u64 {
    (header.len() + content.len() + 3) as u64
}

/// The format version of [`SessionSnapshot`].
pub const SNAPSHOT_FORMAT: u32 = 1;

/// What a session must remember between processes: its id and channel, the
/// step, the rule files in the context with the stamps they were read at,
/// the manifest, and departures not yet reported. Caches (parsed rules,
/// resolved paths) and the prompt's text are not kept; the engine's scan
/// records are, when the configuration asks
/// ([`SessionConfig::with_scan_records`]).
///
/// An agent hook runs as a fresh process for each call; it stores the
/// snapshot after each call and restores it at the next:
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, Session, SessionConfig, SessionSnapshot};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
/// let engine = Arc::new(Engine::new(dir.path())?);
/// let root = engine.root().to_owned();
///
/// let mut first = Session::new(Arc::clone(&engine), SessionConfig::new()).with_id("s1");
/// assert!(first.touch("src/ui/A.tsx".into(), &root).is_hit());
/// let stored = serde_json::to_string(&first.snapshot())?;
///
/// let snapshot: SessionSnapshot = serde_json::from_str(&stored)?;
/// let mut second = Session::restore(engine, SessionConfig::new(), snapshot)?;
/// assert!(!second.touch("src/ui/B.tsx".into(), &root).is_hit());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionSnapshot {
    format: u32,
    id: String,
    channel: ChannelKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subagent: Option<String>,
    step: u64,
    #[serde(default)]
    loaded: Vec<StoredStamp>,
    /// The user folder of an older snapshot, which had one: it belongs to
    /// the engine's first source with a user level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user_tier: Option<String>,
    /// The user folders seen at startup, each with its source's name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    user_tiers: Vec<StoredTier>,
    #[serde(default)]
    manifest: Vec<ManifestEntry>,
    #[serde(default)]
    omitted: BTreeMap<String, u64>,
    #[serde(default)]
    pending_left: Vec<Departure>,
    /// The engine's scan records, when the configuration keeps them
    /// ([`SessionConfig::with_scan_records`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scans: Option<StoredScans>,
}

/// The scan records of a [`SessionSnapshot`], with the layout they hold for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredScans {
    /// [`Engine::scan_layout`] of the engine and key they were made with.
    layout: u64,
    records: Vec<StoredScan>,
}

/// A user folder in a [`SessionSnapshot`], with the source it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredTier {
    source: String,
    dir: String,
}

impl SessionSnapshot {
    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The step the session was at.
    pub fn step(&self) -> u64 {
        self.step
    }
}

/// Which agent context a session serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Channel {
    /// The main conversation.
    Main,
    /// A sub-agent, with its id.
    Subagent(String),
}

impl Channel {
    /// [`ChannelKind::Main`] or [`ChannelKind::Subagent`], as events write it.
    pub fn kind(&self) -> ChannelKind {
        match self {
            Channel::Main => ChannelKind::Main,
            Channel::Subagent(_) => ChannelKind::Subagent,
        }
    }

    /// `main` or `subagent`.
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The sub-agent's id.
    pub fn subagent_id(&self) -> Option<&str> {
        match self {
            Channel::Main => None,
            Channel::Subagent(id) => Some(id),
        }
    }
}

/// One call of a parallel batch.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, Registry, Session, SessionConfig, ToolCall};
/// # use jit_core::{AffectedPaths, Error, TouchedPaths};
/// # /// Reports the call's `file_path` (see `AffectedPaths`).
/// # struct ReadPath;
/// # impl AffectedPaths for ReadPath {
/// #     fn affected_paths(&self, input: &serde_json::Value, _: &camino::Utf8Path) -> Result<TouchedPaths, Error> {
/// #         let path = input["file_path"].as_str();
/// #         Ok(TouchedPaths::from_paths([path.ok_or_else(|| Error::invalid_tool_input("read", "file_path", "missing"))?]))
/// #     }
/// # }
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
/// let mut registry = Registry::empty();
/// registry.register_tool("read", "my_harness");
/// registry.register_reporter("read", ReadPath, "my_harness");
/// let config = SessionConfig::new().with_registry(Arc::new(registry));
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
/// let root = session.engine().root().to_owned();
///
/// // Two sibling files read in parallel: one step, their rule injected once.
/// let calls = [
///     ToolCall::new("read", serde_json::json!({"file_path": "src/ui/A.tsx"})),
///     ToolCall::new("read", serde_json::json!({"file_path": "src/ui/B.tsx"})),
/// ];
/// let step = session.tool_batch(&calls, &root)?;
/// assert_eq!((step.step, step.blocks.len(), step.discoveries.len()), (1, 1, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's registered name.
    pub tool: String,
    /// The call's JSON input.
    pub input: serde_json::Value,
}

impl ToolCall {
    /// A call of `tool` with `input`.
    pub fn new(tool: impl Into<String>, input: serde_json::Value) -> Self {
        ToolCall {
            tool: tool.into(),
            input,
        }
    }
}

/// What one step (a touch, a tool call, a batch) brought into the prompt.
///
/// An agent hook hands [`Injection::context_text`] to its agent:
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, Session, SessionConfig};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), SessionConfig::new());
/// let root = session.engine().root().to_owned();
///
/// let step = session.touch("src/ui/Footer.tsx".into(), &root);
/// assert_eq!(
///     step.headers,
///     ["[jit-context] src/ui/CLAUDE.md (nested_traversal, triggered by src/ui/Footer.tsx)"]
/// );
/// assert_eq!(step.context_text(), format!("{}\nNo colour emoji.\n", step.headers[0]));
/// assert_eq!(step.events.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Injection {
    /// The session step.
    pub step: u64,
    /// One discovery per touched path, in order. A rule that did not fit the
    /// budget is listed as skipped with `too_large_for_budget`; its summary,
    /// when even that fits, is among `blocks`. A file imported by a rule is
    /// listed as loaded with 0 bytes: its text is inside the importing
    /// rule's block.
    pub discoveries: Vec<Discovery>,
    /// The blocks injected or replaced at this step (already in the prompt).
    pub blocks: Vec<PromptBlock>,
    /// One header line per block, in the same order ([`block_header`]).
    pub headers: Vec<String>,
    /// The events written: one for the startup load, one per tool call
    /// (or batch of touched paths) however many paths it touched.
    pub events: Vec<Event>,
    /// The limits this step reached, as its events list them: paths left
    /// out past [`crate::MAX_CALL_PATHS`], a command over a path
    /// reporter's cap, the deadline ([`SessionConfig::with_deadline`]).
    /// Empty when nothing was left out for a limit.
    pub limits: Vec<Limit>,
}

impl Injection {
    /// Whether any block was injected.
    pub fn is_hit(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// The blocks as one text for an agent's context, in load order: each
    /// block's header line, then its text, blocks separated by a blank line.
    /// Empty when nothing was injected.
    pub fn context_text(&self) -> String {
        let mut out = String::new();
        for (block, header) in self.blocks.iter().zip(&self.headers) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(header);
            out.push('\n');
            out.push_str(&block.content);
            if !block.content.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }
}

/// One agent context: the discovery state, the system prompt with its rule
/// blocks, the manifest, and the event log.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{CACHE_BOUNDARY, Engine, Session, SessionConfig};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
///
/// let engine = Arc::new(Engine::new(dir.path())?);
/// let mut session = Session::new(engine, SessionConfig::new());
/// session.set_system_prompt(format!("static\n{CACHE_BOUNDARY}\ndynamic"));
/// let root = session.engine().root().to_owned();
/// let step = session.touch("src/ui/Footer.tsx".into(), &root);
/// assert!(step.is_hit());
///
/// // A rebuild that knows nothing of rules keeps them.
/// session.set_system_prompt(format!("static, other model\n{CACHE_BOUNDARY}\ndynamic"));
/// assert_eq!(session.prompt().text().matches("No colour emoji.").count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Session {
    engine: Arc<Engine>,
    config: SessionConfig,
    channel: Channel,
    id: String,
    state: DiscoveryState,
    prompt: SystemPrompt,
    manifest: Manifest,
    step: u64,
    writer: EventWriter,
    warnings: Vec<String>,
    /// The first failure to write the event log.
    event_log_error: Option<String>,
    /// Departures not yet reported in an event.
    pending_left: Vec<Departure>,
    /// Rules left out entirely for the budget (not even a pointer fit), with
    /// the step: the engine counts them as loaded, the prompt does not.
    omitted: crate::Map<String, u64>,
    /// What the current step has injected so far, headers included (see
    /// [`SessionConfig::with_step_budget`]).
    step_used: u64,
    /// [`Engine::scan_layout`] of the engine and the configuration's scan
    /// key, once asked.
    scan_layout: OnceLock<u64>,
}

/// What became of a rule in one discovery; the files it imports share it.
#[derive(Debug, Clone, Copy)]
enum Fate {
    /// Its block is in the prompt, in full.
    InPrompt,
    /// Its unchanged block was already there.
    AlreadyInPrompt,
    /// It did not fit the budget: a summary at most.
    OverBudget,
    /// The agent loads it by itself.
    Native,
}

impl Session {
    /// A main-channel session on `engine` with a generated id.
    pub fn new(engine: Arc<Engine>, config: SessionConfig) -> Self {
        let writer = EventWriter::new(config.event_log(), config.event_log_private);
        let prompt = SystemPrompt::with_boundary(config.boundary.clone());
        Session {
            engine,
            config,
            channel: Channel::Main,
            id: generate_id(),
            state: DiscoveryState::default(),
            prompt,
            manifest: Manifest::default(),
            step: 0,
            writer,
            warnings: Vec::new(),
            event_log_error: None,
            pending_left: Vec::new(),
            omitted: crate::Map::default(),
            step_used: 0,
            scan_layout: OnceLock::new(),
        }
    }

    /// A session as [`Session::snapshot`] left it, on `engine` with
    /// `config`. Its prompt holds no rule blocks (their text is not stored):
    /// use it where the agent owns the context, as a hook does.
    ///
    /// A snapshot of another format version is an
    /// [`ErrorKind::InvalidSnapshot`] error.
    pub fn restore(
        engine: Arc<Engine>,
        config: SessionConfig,
        snapshot: SessionSnapshot,
    ) -> Result<Session, Error> {
        if snapshot.format != SNAPSHOT_FORMAT {
            return Err(Error::new(
                ErrorKind::InvalidSnapshot,
                format!(
                    "session snapshot format {} is not {SNAPSHOT_FORMAT}, the one this version writes",
                    snapshot.format
                ),
            ));
        }
        let channel = match (snapshot.channel, snapshot.subagent) {
            (ChannelKind::Main, None) => Channel::Main,
            (ChannelKind::Subagent, Some(id)) => Channel::Subagent(id),
            (other, _) => {
                return Err(Error::new(
                    ErrorKind::InvalidSnapshot,
                    format!(
                        "session snapshot channel `{other}` is neither `main` nor `subagent` with an id"
                    ),
                ));
            }
        };
        let mut session = Session::new(engine, config);
        session.id = snapshot.id;
        session.channel = channel;
        session.step = snapshot.step;
        let mut tiers: Vec<(String, String)> = snapshot
            .user_tiers
            .into_iter()
            .map(|t| (t.source, t.dir))
            .collect();
        if let Some(dir) = snapshot.user_tier {
            tiers.insert(0, (String::new(), dir));
        }
        session.state = DiscoveryState::import(&snapshot.loaded, &tiers);
        if let (Some(layout), Some(scans)) = (session.scan_layout(), snapshot.scans)
            && scans.layout == layout
        {
            let engine = Arc::clone(&session.engine);
            session
                .state
                .import_scans(scans.records, engine.sources(), engine.root());
        }
        session.manifest = Manifest::from_entries(snapshot.manifest);
        session.omitted = snapshot.omitted.into_iter().collect();
        session.pending_left = snapshot.pending_left;
        Ok(session)
    }

    /// The layout kept scan records hold for, when the configuration keeps
    /// them ([`SessionConfig::with_scan_records`]).
    fn scan_layout(&self) -> Option<u64> {
        let key = self.config.scan_key.as_deref()?;
        Some(
            *self
                .scan_layout
                .get_or_init(|| self.engine.scan_layout(key)),
        )
    }

    /// What must outlive this process to go on with the session later
    /// ([`Session::restore`]).
    pub fn snapshot(&self) -> SessionSnapshot {
        let (loaded, tiers) = self.state.export();
        SessionSnapshot {
            format: SNAPSHOT_FORMAT,
            id: self.id.clone(),
            channel: self.channel.kind(),
            subagent: self.channel.subagent_id().map(str::to_owned),
            step: self.step,
            loaded,
            user_tier: None,
            user_tiers: tiers
                .into_iter()
                .map(|(source, dir)| StoredTier { source, dir })
                .collect(),
            manifest: self.manifest.entries().to_vec(),
            omitted: self
                .omitted
                .iter()
                .map(|(file, step)| (file.clone(), *step))
                .collect(),
            pending_left: self.pending_left.clone(),
            scans: self.scan_layout().and_then(|layout| {
                let records = self.state.export_scans(SystemTime::now());
                (!records.is_empty()).then_some(StoredScans { layout, records })
            }),
        }
    }

    /// Changes the cap on what one step injects (see
    /// [`SessionConfig::with_step_budget`]); a hook that answers one event
    /// with two steps gives the second what the first left.
    pub fn set_step_budget(&mut self, bytes: Option<u64>) {
        self.config.step_budget = bytes;
    }

    /// Records a rule file the agent loaded by itself (Claude Code's
    /// `InstructionsLoaded`): it counts as in the context and is not
    /// injected while unchanged. Returns `false` if its metadata cannot be
    /// read.
    pub fn mark_native(&mut self, path: &Utf8Path) -> bool {
        self.state.mark_loaded(path)
    }

    /// Sets the session id (the harness's own, for example).
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// A session for a sub-agent of this one: same engine, same
    /// configuration (the `jit_context` switch included), its own context.
    /// Its id is this session's id, `/`, and `id`.
    pub fn subagent(&self, id: impl Into<String>) -> Session {
        let id = id.into();
        let mut sub = Session::new(Arc::clone(&self.engine), self.config.clone());
        sub.id = format!("{}/{id}", self.id);
        sub.channel = Channel::Subagent(id);
        sub
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The channel.
    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    /// The configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The current step: 0 until the first touch or tool call.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The system prompt, rule blocks included.
    pub fn prompt(&self) -> &SystemPrompt {
        &self.prompt
    }

    /// The manifest of every block injected.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The discovery state.
    pub fn state(&self) -> &DiscoveryState {
        &self.state
    }

    /// Problems that did not stop anything (an unwritable event log).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The first failure to write the event log, if an event could not be
    /// written (it is among the [`Session::warnings`] too): a command
    /// that was asked for the log can make it an error.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use jit_core::{Engine, Session, SessionConfig};
    /// let dir = tempfile::tempdir()?;
    /// let log = dir.path().join("no/such/dir/events.jsonl");
    /// let config = SessionConfig::new().with_event_log(log.to_str().ok_or("not UTF-8")?);
    /// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
    /// assert_eq!(session.event_log_error(), None);
    /// let root = session.engine().root().to_owned();
    /// session.touch("a.rs".into(), &root);
    /// assert!(session.event_log_error().is_some_and(|e| e.contains("events.jsonl")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn event_log_error(&self) -> Option<&str> {
        self.event_log_error.as_deref()
    }

    /// The single setter of the system prompt: every rebuild goes through
    /// here, and every rule block comes back exactly once after the boundary.
    pub fn set_system_prompt(&mut self, prompt: impl Into<String>) {
        self.prompt.set(prompt);
    }

    /// Runs the startup load: its rules become blocks (step 0), and JIT
    /// discovery will not inject them again. Writes one `startup` event.
    pub fn startup(&mut self, options: &StartupOptions) -> StartupReport {
        self.startup_injection(options).0
    }

    /// Runs the startup load like [`Session::startup`] and returns, with the
    /// report, what it injected as blocks with their headers. An agent hook
    /// uses it to inject at session start the rules its agent will not load.
    pub fn startup_injection(&mut self, options: &StartupOptions) -> (StartupReport, Injection) {
        self.step_used = 0;
        let mut report = self.engine.startup(&mut self.state, options);
        let mut discovery = Discovery {
            trigger: ".".to_owned(),
            loaded: std::mem::take(&mut report.loaded),
            skipped: std::mem::take(&mut report.skipped),
            elapsed_us: report.elapsed_us,
        };
        let admission = self.admit(LoadTrigger::Startup, &mut discovery, false);
        let mut draft = EventDraft::default();
        let blocks = draft.add(admission, &discovery, Vec::new());
        let event = self.event(EventKind::Startup, None, (Vec::new(), 0), draft, Vec::new());
        let mut injection = Injection {
            step: self.step,
            ..Injection::default()
        };
        for (block, header) in blocks {
            injection.blocks.push(block);
            injection.headers.push(header);
        }
        self.record(&event);
        injection.events.push(event);
        report.loaded = discovery.loaded;
        report.skipped = discovery.skipped;
        injection.discoveries.push(Discovery {
            trigger: ".".to_owned(),
            loaded: report.loaded.clone(),
            skipped: report.skipped.clone(),
            elapsed_us: report.elapsed_us,
        });
        (report, injection)
    }

    /// One path touched outside any tool (a step of its own).
    pub fn touch(&mut self, path: &Utf8Path, cwd: &Utf8Path) -> Injection {
        self.touch_batch(&[path.to_owned()], cwd)
    }

    /// Paths touched together outside any tool (for example files named in
    /// a prompt): one step, each rule at most once, one event (see
    /// [`Session::tool_call`] for the limits).
    pub fn touch_batch(&mut self, paths: &[Utf8PathBuf], cwd: &Utf8Path) -> Injection {
        let mut injection = self.empty_step();
        if self.config.jit_context {
            self.discover_call(&mut injection, None, paths, &[], cwd);
        }
        injection
    }

    /// One tool call: the paths its registered reporter names, each
    /// discovered in turn, and one event for them all (it lists each path
    /// once, up to [`MAX_EVENT_PATHS`]). An unregistered tool or malformed
    /// input is an error, and nothing is recorded; so is any call when the
    /// configuration's registry failed its audit ([`ErrorKind::FailedAudit`]).
    /// With `jit_context` off, nothing is discovered and no event is written.
    ///
    /// The work is linear in the number of paths, and bounded: at most
    /// [`crate::MAX_CALL_PATHS`] paths of a call are discovered, none
    /// longer than [`crate::MAX_PATH_BYTES`], and none after the
    /// configuration's deadline ([`SessionConfig::with_deadline`]). What a
    /// limit left out is in [`Injection::limits`] and the event's `limits`,
    /// with the `too_*` inputs the reporter skipped (a command over the
    /// bash parser's cap is `too_large`).
    pub fn tool_call(
        &mut self,
        tool: &str,
        input: &serde_json::Value,
        cwd: &Utf8Path,
    ) -> Result<Injection, Error> {
        self.tool_batch(&[ToolCall::new(tool, input.clone())], cwd)
    }

    /// Parallel tool calls as one step: a rule shared by their paths (the
    /// parent directory of sibling files) is injected once. Every call's
    /// paths are resolved before anything is discovered, so an error leaves
    /// the session unchanged.
    pub fn tool_batch(&mut self, calls: &[ToolCall], cwd: &Utf8Path) -> Result<Injection, Error> {
        if !self.config.jit_context {
            return Ok(self.empty_step());
        }
        let registry = self.call_registry()?;
        let touched = calls
            .iter()
            .map(|call| Ok((call, registry.affected_paths(&call.tool, &call.input, cwd)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(self.run_calls(touched, cwd))
    }

    /// Like [`Session::tool_batch`], but a call whose paths cannot be
    /// resolved (a malformed input, an unregistered tool) does not stop
    /// the others: the calls that resolve run as one step, and every other
    /// call's error comes back beside it, in call order. When no call
    /// resolves, no step is taken and the session is unchanged (`None`).
    /// It fails only when the registry failed its audit.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use jit_core::{Engine, ErrorKind, Registry, Session, SessionConfig, ToolCall};
    /// # use jit_core::{AffectedPaths, Error, TouchedPaths};
    /// # /// Reports the call's `file_path` (see `AffectedPaths`).
    /// # struct ReadPath;
    /// # impl AffectedPaths for ReadPath {
    /// #     fn affected_paths(&self, input: &serde_json::Value, _: &camino::Utf8Path) -> Result<TouchedPaths, Error> {
    /// #         let path = input["file_path"].as_str();
    /// #         Ok(TouchedPaths::from_paths([path.ok_or_else(|| Error::invalid_tool_input("read", "file_path", "missing"))?]))
    /// #     }
    /// # }
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
    /// let mut registry = Registry::empty();
    /// registry.register_tool("read", "my_harness");
    /// registry.register_reporter("read", ReadPath, "my_harness");
    /// let config = SessionConfig::new().with_registry(Arc::new(registry));
    /// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
    /// let root = session.engine().root().to_owned();
    ///
    /// // The malformed call is reported; the other one runs.
    /// let calls = [
    ///     ToolCall::new("read", serde_json::json!({"file_path": "main.rs"})),
    ///     ToolCall::new("read", serde_json::json!({"path": "main.rs"})),
    /// ];
    /// let (injection, errors) = session.tool_batch_each(&calls, &root)?;
    /// assert_eq!(injection.unwrap().blocks[0].file, "CLAUDE.md");
    /// assert_eq!(errors[0].kind(), ErrorKind::InvalidToolInput);
    ///
    /// // None runs: no step, nothing changed.
    /// let (injection, errors) = session.tool_batch_each(&calls[1..], &root)?;
    /// assert!(injection.is_none() && errors.len() == 1);
    /// assert_eq!(session.step(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tool_batch_each(
        &mut self,
        calls: &[ToolCall],
        cwd: &Utf8Path,
    ) -> Result<(Option<Injection>, Vec<Error>), Error> {
        if !self.config.jit_context {
            return Ok((Some(self.empty_step()), Vec::new()));
        }
        let registry = self.call_registry()?;
        let mut touched = Vec::with_capacity(calls.len());
        let mut errors = Vec::new();
        for call in calls {
            match registry.affected_paths(&call.tool, &call.input, cwd) {
                Ok(paths) => touched.push((call, paths)),
                Err(err) => errors.push(err),
            }
        }
        if touched.is_empty() {
            return Ok((None, errors));
        }
        Ok((Some(self.run_calls(touched, cwd)), errors))
    }

    /// A new step with nothing in it yet (all there is with runtime
    /// discovery off: the step counts, and touches nothing).
    fn empty_step(&mut self) -> Injection {
        self.step += 1;
        self.step_used = 0;
        Injection {
            step: self.step,
            ..Injection::default()
        }
    }

    /// The registry tool calls are answered from; an error of kind
    /// [`ErrorKind::FailedAudit`] when it failed its audit.
    fn call_registry(&self) -> Result<Arc<Registry>, Error> {
        match self.config.checked_registry() {
            Ok(registry) => Ok(Arc::clone(registry)),
            Err(report) => Err(Error::new(
                ErrorKind::FailedAudit,
                format!("no tool call can be answered: {report}"),
            )),
        }
    }

    /// One step of tool calls whose paths are resolved: every path of
    /// every call discovered, in order, one event per call.
    fn run_calls(&mut self, touched: Vec<(&ToolCall, TouchedPaths)>, cwd: &Utf8Path) -> Injection {
        let mut injection = self.empty_step();
        for (call, touched) in touched {
            self.discover_call(
                &mut injection,
                Some(&call.tool),
                &touched.paths,
                &touched.skipped,
                cwd,
            );
        }
        injection
    }

    /// Discovers the paths of one call (or one batch of touched paths),
    /// within the limits, and writes the one event that stands for them:
    /// every path listed once, each skipped candidate once. `skipped` is
    /// what the call's reporter left out; its `too_*` reasons are limits.
    /// A call that discovers nothing and reached no limit writes no event.
    fn discover_call(
        &mut self,
        injection: &mut Injection,
        tool: Option<&str>,
        paths: &[Utf8PathBuf],
        skipped: &[SkippedInput],
        cwd: &Utf8Path,
    ) {
        let (kept, call_limits) = call_paths(paths);
        let mut limits: Vec<Limit> = Vec::new();
        let mut reach = |limit: Limit| {
            if !limits.iter().any(|l| l.limit == limit.limit) {
                limits.push(limit);
            }
        };
        for input in skipped.iter().chain(&call_limits) {
            if input.reason.starts_with("too_") {
                reach(Limit::new(&input.reason, &input.word));
            }
        }
        let trigger = match tool {
            Some(tool) => LoadTrigger::Tool(tool),
            None => LoadTrigger::Touch,
        };
        let total = kept.len();
        let mut draft = EventDraft::default();
        for (done, path) in kept.into_iter().enumerate() {
            if self.config.past_deadline() {
                reach(Limit::new(
                    "deadline",
                    &format!(
                        "the time ran out with {} of the call's {total} paths not looked at",
                        total - done
                    ),
                ));
                break;
            }
            let mut discovery = self.engine.discover(&mut self.state, path, cwd);
            let admission = self.admit(trigger, &mut discovery, true);
            let relevant = self.manifest.touch(&discovery.trigger, self.step);
            for (block, header) in draft.add(admission, &discovery, relevant) {
                injection.blocks.push(block);
                injection.headers.push(header);
            }
            injection.discoveries.push(discovery);
        }
        if draft.discovered == 0 && limits.is_empty() {
            return;
        }
        let event = self.event(
            EventKind::Discovery,
            tool,
            listed_paths(paths),
            draft,
            limits.clone(),
        );
        self.record(&event);
        injection.events.push(event);
        injection.limits.extend(limits);
    }

    /// Re-arms the session after compaction or clear: blocks from the
    /// startup load stay (they are unconditional for this session), every
    /// JIT block leaves with reason `compacted`, and its rule comes back on
    /// the next touch of its directory. Call [`Session::set_system_prompt`]
    /// with the compacted prompt afterwards (or before: the order does not
    /// matter).
    pub fn rearm(&mut self) {
        self.rearm_keeping(true);
    }

    /// Re-arms the session after the agent's context was replaced entirely
    /// (an agent hook's `SessionStart` with `clear` or `compact`): like
    /// [`Session::rearm`], but the startup blocks leave too (`compacted`),
    /// since the agent's new context does not hold them either. Run the
    /// startup load again afterwards.
    pub fn clear(&mut self) {
        self.rearm_keeping(false);
    }

    fn rearm_keeping(&mut self, keep_startup: bool) {
        self.state.rearm();
        // The engine forgot everything: a rule left out for the budget is
        // decided afresh on its next touch.
        self.omitted.clear();
        let resident: Vec<(String, Attribution)> = self
            .manifest
            .entries()
            .iter()
            .filter(|e| e.is_resident())
            .map(|e| (e.file.clone(), e.attribution))
            .collect();
        for (file, attribution) in resident {
            // Startup blocks stay. The engine has forgotten them too, so the
            // next walk past one reads it again: an unchanged text is
            // recognised by its hash, a changed one replaces the block.
            if !keep_startup || attribution != Attribution::SessionStart {
                self.manifest
                    .leave(&file, self.step, LeaveReason::Compacted);
                self.prompt.remove(&file);
                self.pending_left
                    .push(Departure::new(file, LeaveReason::Compacted));
            }
        }
    }

    /// Large resident blocks not relevant for many steps (see
    /// [`Manifest::debt`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use jit_core::{Engine, Session, SessionConfig};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("src/ui"))?;
    /// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
    /// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), SessionConfig::new());
    /// let root = session.engine().root().to_owned();
    /// session.touch("src/ui/Footer.tsx".into(), &root);
    /// for _ in 0..3 {
    ///     session.touch("docs/guide.md".into(), &root);
    /// }
    /// // 17 bytes, idle since step 1: debt from 3 idle steps, not from 4.
    /// let debt = session.debt(16, 3);
    /// assert_eq!((debt[0].file.as_str(), debt[0].idle_steps), ("src/ui/CLAUDE.md", 3));
    /// assert!(session.debt(16, 4).is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn debt(&self, min_bytes: u64, min_idle_steps: u64) -> Vec<DebtEntry> {
        self.manifest.debt(self.step, min_bytes, min_idle_steps)
    }

    /// Puts a discovery's rules into the prompt (under the budget when
    /// `budgeted`): what it put in, and its event rows.
    ///
    /// Bytes add up the same way everywhere: a block's bytes are its content
    /// (an including rule's block carries its imports inline), an import has
    /// no block and 0 bytes, and the event's `bytes_injected` is the sum of
    /// the blocks this discovery put in.
    fn admit(
        &mut self,
        trigger: LoadTrigger<'_>,
        discovery: &mut Discovery,
        budgeted: bool,
    ) -> Admission {
        let step = self.step;
        let mut admission = Admission {
            left: std::mem::take(&mut self.pending_left),
            kept: Vec::with_capacity(discovery.loaded.len()),
            ..Admission::default()
        };
        for rule in std::mem::take(&mut discovery.loaded) {
            if let Some(includer) = rule.included_by.clone() {
                // The engine lists an import right after the rule that
                // imports it, whose block already holds its text.
                let fate = admission
                    .fates
                    .get(&includer)
                    .copied()
                    .unwrap_or(Fate::InPrompt);
                admission.fates.insert(rule.file.clone(), fate);
                admit_import(rule, &includer, fate, &mut admission, discovery);
            } else if self
                .config
                .native
                .as_ref()
                .is_some_and(|native| native.loads_natively(trigger, &rule))
            {
                admission.fates.insert(rule.file.clone(), Fate::Native);
                self.admit_native(rule, step, &mut admission);
            } else {
                self.admit_rule(rule, step, budgeted, discovery, &mut admission);
            }
        }
        discovery.loaded = std::mem::take(&mut admission.kept);
        self.list_skipped(discovery, &mut admission.candidates);
        admission
    }

    /// Admits one rule that is neither an import nor loaded by the agent:
    /// its block in full, its summary when it does not fit the budget, or
    /// nothing when it is already in the prompt with the same text.
    fn admit_rule(
        &mut self,
        mut rule: LoadedRule,
        step: u64,
        budgeted: bool,
        discovery: &mut Discovery,
        admission: &mut Admission,
    ) {
        let hash = fnv1a(&rule.content);
        // After a re-arm the engine forgets startup rules too; the prompt
        // still holds them, so the same text is not added again.
        if self
            .manifest
            .resident(&rule.file)
            .is_some_and(|e| e.hash == hash)
        {
            already_in_prompt(rule, discovery, admission);
            return;
        }
        let full = rule.content.len() as u64;
        let previous = self
            .manifest
            .resident(&rule.file)
            .map(|e| (e.bytes, e.attribution));
        // A startup rule changed on disk stays a startup rule: it is
        // replaced in full and survives a re-arm like the version it
        // replaces.
        let startup_rule = rule.attribution == Attribution::SessionStart
            || matches!(previous, Some((_, Attribution::SessionStart)));
        let attribution = if startup_rule {
            Attribution::SessionStart
        } else {
            rule.attribution
        };
        let header = block_header(&rule.file, attribution, &discovery.trigger);
        let room = self.room(previous, budgeted && !startup_rule, &header);
        let (fits, block) = fit(&rule, &room);
        let fate = if fits {
            Fate::InPrompt
        } else {
            Fate::OverBudget
        };
        admission.fates.insert(rule.file.clone(), fate);
        if previous.is_some() {
            // The engine may not know (it forgot the rule in a re-arm), but
            // the prompt does: this text replaces a block.
            rule.decision = LoadKind::Replaced;
            self.replace_block(&rule.file, step, fits, block.is_some(), &mut admission.left);
        }
        let bytes = block.as_ref().map_or(0, |(text, _)| text.len() as u64);
        if let Some((content, form)) = block {
            let entry = ManifestEntry {
                file: rule.file.clone(),
                hash: hash.clone(),
                bytes,
                source_bytes: full,
                form,
                attribution,
                introduced_step: step,
                last_relevant_step: step,
                left_step: None,
                left_reason: None,
            };
            self.put_block(entry, content, header, admission);
        } else {
            self.omitted.insert(rule.file.clone(), step);
        }
        if fits {
            rule.bytes = rule.content.len();
            admission.candidates.push(Candidate {
                hash: Some(hash),
                ..loaded_candidate(&rule, bytes)
            });
            admission.kept.push(rule);
        } else {
            over_budget(rule, &room, bytes, hash, discovery, admission);
        }
    }

    /// The bytes a block may take: the session's total for JIT blocks
    /// (when `budgeted`), or what is left of the step's, whichever binds;
    /// the step's counts the block's `header` too.
    fn room(&self, previous: Option<(u64, Attribution)>, budgeted: bool, header: &str) -> Room {
        let total_left = if budgeted {
            self.budget_left(previous)
        } else {
            u64::MAX
        };
        let step_left = self.config.step_budget.map_or(u64::MAX, |cap| {
            cap.saturating_sub(self.step_used)
                .saturating_sub(block_cost(header, ""))
        });
        if step_left < total_left {
            Room {
                remaining: step_left,
                which: Budget::Step,
                budget: self.config.step_budget.unwrap_or_default(),
            }
        } else {
            Room {
                remaining: total_left,
                which: Budget::Total,
                budget: self.config.budget_bytes,
            }
        }
    }

    /// The resident block of `file` leaves for its new text: replaced when
    /// the new text `fits`, for the budget when it does not. With no new
    /// block at all (`has_block` false), the stale one leaves the prompt too.
    fn replace_block(
        &mut self,
        file: &str,
        step: u64,
        fits: bool,
        has_block: bool,
        left: &mut Vec<Departure>,
    ) {
        let reason = if fits {
            LeaveReason::ReplacedByNewerRead
        } else {
            LeaveReason::Budget
        };
        self.manifest.leave(file, step, reason);
        if !has_block {
            // Not even a pointer to the new text fits: the stale block must
            // not stay in its place.
            self.prompt.remove(file);
        }
        left.push(Departure::new(file, reason));
    }

    /// Puts a block into the prompt and the manifest, and counts it against
    /// the step.
    fn put_block(
        &mut self,
        entry: ManifestEntry,
        content: String,
        header: String,
        admission: &mut Admission,
    ) {
        let file = entry.file.clone();
        self.omitted.remove(&file);
        admission.bytes_injected += entry.bytes;
        self.step_used = self.step_used.saturating_add(block_cost(&header, &content));
        self.manifest.push(entry);
        self.prompt.upsert(&file, content.clone());
        admission
            .blocks
            .push((PromptBlock { file, content }, header));
    }

    /// Lists the discovery's skipped rules as event candidates (those left
    /// out for the budget in this discovery are listed already). The engine
    /// remembers a rule left out entirely for the budget as loaded; the
    /// prompt does not hold it, so its skip says what really happened.
    fn list_skipped(&self, discovery: &mut Discovery, candidates: &mut Vec<Candidate>) {
        for skipped in &mut discovery.skipped {
            if skipped.reason == SkipReason::AlreadyLoaded
                && let Some(at) = self.omitted.get(&skipped.file)
            {
                skipped.reason = SkipReason::TooLargeForBudget;
                skipped.detail = format!(
                    "left out at step {at}: it did not fit the rule budget; read {} for it",
                    skipped.file
                );
            } else if skipped.reason == SkipReason::TooLargeForBudget {
                // Decided with its candidate.
                continue;
            }
            candidates.push(Candidate {
                file: skipped.file.clone(),
                decision: if skipped.reason == SkipReason::TooLargeForBudget {
                    Decision::TooLargeForBudget
                } else {
                    Decision::Skipped
                },
                reason: Some(skipped.reason),
                attribution: None,
                bytes: 0,
                hash: None,
                source: non_empty(&skipped.source),
            });
        }
    }

    /// The event of the discoveries in `draft`, listing `paths` (and
    /// how many more the call touched).
    fn event(
        &self,
        kind: EventKind,
        tool: Option<&str>,
        (paths, paths_omitted): (Vec<String>, u64),
        draft: EventDraft,
        limits: Vec<Limit>,
    ) -> Event {
        Event {
            schema: EVENT_SCHEMA,
            kind,
            ts: now_rfc3339(),
            session: self.id.clone(),
            channel: self.channel.kind(),
            subagent: self.channel.subagent_id().map(str::to_owned),
            step: self.step,
            tool: tool.map(str::to_owned),
            paths,
            paths_omitted,
            trigger: draft.trigger.unwrap_or_default(),
            candidates: draft.candidates,
            hit: draft.hit,
            bytes_injected: draft.bytes_injected,
            resident_bytes: self.manifest.resident_bytes(),
            relevant: draft.relevant,
            left: draft.left,
            elapsed_us: draft.elapsed_us,
            limits,
        }
    }

    /// Records a rule the agent loads by itself: in the context, no block.
    /// A block of an older version that this session injected gives way to
    /// the agent's own copy.
    fn admit_native(&mut self, mut rule: LoadedRule, step: u64, admission: &mut Admission) {
        if self
            .manifest
            .leave(&rule.file, step, LeaveReason::ReplacedByNewerRead)
            .is_some()
        {
            self.prompt.remove(&rule.file);
            admission
                .left
                .push(Departure::new(&rule.file, LeaveReason::ReplacedByNewerRead));
        }
        self.omitted.remove(&rule.file);
        rule.attribution = Attribution::Native;
        rule.bytes = 0;
        admission.candidates.push(Candidate {
            file: rule.file.clone(),
            decision: Decision::Loaded,
            reason: None,
            attribution: Some(Attribution::Native),
            bytes: 0,
            hash: None,
            source: non_empty(&rule.source),
        });
        admission.kept.push(rule);
    }

    /// Budget left for a JIT block that would replace a resident block of
    /// `previous` (bytes, attribution). Startup blocks do not count: the
    /// budget is for what JIT adds.
    fn budget_left(&self, previous: Option<(u64, Attribution)>) -> u64 {
        let used: u64 = self
            .manifest
            .entries()
            .iter()
            .filter(|e| e.is_resident() && e.attribution != Attribution::SessionStart)
            .map(|e| e.bytes)
            .sum();
        let freed = match previous {
            Some((bytes, attribution)) if attribution != Attribution::SessionStart => bytes,
            _ => 0,
        };
        self.config
            .budget_bytes
            .saturating_sub(used.saturating_sub(freed))
    }

    fn record(&mut self, event: &Event) {
        if let Err(warning) = self.writer.write(event) {
            if self.event_log_error.is_none() {
                self.event_log_error = Some(warning.clone());
            }
            if !self.warnings.contains(&warning) {
                self.warnings.push(warning);
            }
        }
    }
}

/// Which budget a rule did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Budget {
    /// The session's total for JIT blocks ([`SessionConfig::with_budget_bytes`]).
    Total,
    /// What one step may inject ([`SessionConfig::with_step_budget`]).
    Step,
}

impl Budget {
    fn name(self) -> &'static str {
        match self {
            Budget::Total => "rule budget",
            Budget::Step => "per-output budget",
        }
    }

    fn pointer_name(self) -> &'static str {
        match self {
            Budget::Total => "JIT byte budget",
            Budget::Step => "per-output budget",
        }
    }
}

/// A rule's source for an event row: `None` when unknown (left out).
fn non_empty(source: &str) -> Option<String> {
    (!source.is_empty()).then(|| source.to_owned())
}

/// What one discovery's admission builds up: the event's candidates and
/// departures, the blocks put in, the rules kept as loaded, and what became
/// of each rule (the files it imports share it).
#[derive(Debug, Default)]
struct Admission {
    candidates: Vec<Candidate>,
    blocks: Vec<(PromptBlock, String)>,
    left: Vec<Departure>,
    kept: Vec<LoadedRule>,
    bytes_injected: u64,
    fates: crate::Map<String, Fate>,
}

/// The discoveries of one call (or of the startup load) on their way to
/// the one event that stands for them. A skipped candidate already listed
/// by an earlier path of the call is not listed again (10,000 files in one
/// directory name its scoped rules' misses once, not 10,000 times), nor is
/// a rule the call itself loaded listed as `already_loaded` by its later
/// paths; loaded and over-budget rows are each a block, and all stay.
#[derive(Debug, Default)]
struct EventDraft {
    /// The first discovery's trigger.
    trigger: Option<String>,
    /// How many discoveries were added.
    discovered: u64,
    candidates: Vec<Candidate>,
    /// The skipped rows listed so far, by file and reason.
    skipped: crate::Set<(String, Option<SkipReason>)>,
    /// The files of the rows that are no skip (loaded, replaced, over
    /// the budget).
    decided: crate::Set<String>,
    relevant: Vec<String>,
    relevant_seen: crate::Set<String>,
    left: Vec<Departure>,
    hit: bool,
    bytes_injected: u64,
    elapsed_us: u64,
}

impl EventDraft {
    /// Adds one admitted discovery and the resident rules it made
    /// `relevant`; returns the blocks it put in.
    fn add(
        &mut self,
        admission: Admission,
        discovery: &Discovery,
        relevant: Vec<String>,
    ) -> Vec<(PromptBlock, String)> {
        let first = self.discovered == 0;
        self.discovered += 1;
        self.trigger
            .get_or_insert_with(|| discovery.trigger.clone());
        for candidate in admission.candidates {
            if candidate.decision != Decision::Skipped {
                self.decided.insert(candidate.file.clone());
            } else if (!self
                .skipped
                .insert((candidate.file.clone(), candidate.reason))
                || (candidate.reason == Some(SkipReason::AlreadyLoaded)
                    && self.decided.contains(&candidate.file)))
                // The first discovery's rows stay as they are: an event of
                // one path is what it always was.
                && !first
            {
                continue;
            }
            self.candidates.push(candidate);
        }
        for file in relevant {
            if self.relevant_seen.insert(file.clone()) {
                self.relevant.push(file);
            }
        }
        self.left.extend(admission.left);
        self.hit |= !admission.blocks.is_empty();
        self.bytes_injected += admission.bytes_injected;
        self.elapsed_us = self.elapsed_us.saturating_add(discovery.elapsed_us);
        admission.blocks
    }
}

/// The paths an event lists, each once and in order, up to
/// [`MAX_EVENT_PATHS`] and [`MAX_EVENT_PATH_BYTES`], and how many it
/// leaves out (a path longer than [`crate::MAX_PATH_BYTES`], never
/// discovered, is never listed either).
fn listed_paths(paths: &[Utf8PathBuf]) -> (Vec<String>, u64) {
    let mut listed = Vec::with_capacity(paths.len().min(MAX_EVENT_PATHS));
    let mut bytes = 0usize;
    for path in paths {
        if path.as_str().len() > crate::MAX_PATH_BYTES {
            continue;
        }
        bytes = bytes.saturating_add(path.as_str().len());
        if listed.len() == MAX_EVENT_PATHS || bytes > MAX_EVENT_PATH_BYTES {
            break;
        }
        listed.push(path.to_string());
    }
    let omitted = (paths.len() - listed.len()) as u64;
    (listed, omitted)
}

/// The bytes a block may take, and of which budget (with its size).
#[derive(Debug, Clone, Copy)]
struct Room {
    remaining: u64,
    which: Budget,
    budget: u64,
}

/// Whether `rule`'s full text fits `room`, and the block that does: its
/// full text, else its summary, else none.
fn fit(rule: &LoadedRule, room: &Room) -> (bool, Option<(String, BlockForm)>) {
    if rule.content.len() as u64 <= room.remaining {
        (true, Some((rule.content.clone(), BlockForm::Full)))
    } else {
        let summary = summary(rule, room.which, room.budget, room.remaining);
        (false, summary.map(|text| (text, BlockForm::Summary)))
    }
}

/// The event row of a loaded rule whose block holds `bytes` (no hash).
fn loaded_candidate(rule: &LoadedRule, bytes: u64) -> Candidate {
    Candidate {
        file: rule.file.clone(),
        decision: rule.decision.into(),
        reason: None,
        attribution: Some(rule.attribution),
        bytes,
        hash: None,
        source: non_empty(&rule.source),
    }
}

/// Records a rule whose block is already in the prompt with the same text.
fn already_in_prompt(rule: LoadedRule, discovery: &mut Discovery, admission: &mut Admission) {
    admission
        .fates
        .insert(rule.file.clone(), Fate::AlreadyInPrompt);
    discovery.skipped.push(SkippedRule {
        file: rule.file,
        reason: SkipReason::AlreadyLoaded,
        detail: "already in the prompt with the same text".to_owned(),
        source: rule.source,
    });
}

/// Records a rule that did not fit the budget in `room`: skipped with
/// `too_large_for_budget`, with the `bytes` of its summary (0 when not
/// even a pointer fit).
fn over_budget(
    rule: LoadedRule,
    room: &Room,
    bytes: u64,
    hash: String,
    discovery: &mut Discovery,
    admission: &mut Admission,
) {
    let Room {
        remaining,
        which,
        budget,
    } = *room;
    let budget_name = which.name();
    let full = rule.content.len();
    let reason = SkipReason::TooLargeForBudget;
    let detail = if bytes > 0 {
        format!(
            "{full} bytes do not fit the {budget_name} ({remaining} of {budget} bytes left): only \
             a summary of it was injected ({bytes} bytes); read {} for the rest",
            rule.file
        )
    } else {
        format!(
            "{full} bytes do not fit the {budget_name} ({remaining} of {budget} bytes left), nor \
             does a one-line pointer to it: nothing was injected; read {} for the rest",
            rule.file
        )
    };
    admission.candidates.push(Candidate {
        file: rule.file.clone(),
        decision: Decision::TooLargeForBudget,
        reason: Some(reason),
        attribution: Some(rule.attribution),
        bytes,
        hash: (bytes > 0).then_some(hash),
        source: non_empty(&rule.source),
    });
    discovery.skipped.push(SkippedRule {
        file: rule.file,
        reason,
        detail,
        source: rule.source,
    });
}

/// Records an imported file: it has no block of its own (its text is
/// inline in the block of `includer`), so it is listed with 0 bytes and
/// shares the fate of the rule that imported it.
fn admit_import(
    mut rule: LoadedRule,
    includer: &str,
    fate: Fate,
    admission: &mut Admission,
    discovery: &mut Discovery,
) {
    rule.bytes = 0;
    let decision = match fate {
        Fate::Native => {
            // The agent expands the imports of what it loads itself.
            rule.attribution = Attribution::Native;
            Decision::Loaded
        }
        Fate::InPrompt => Decision::Loaded,
        Fate::OverBudget => Decision::TooLargeForBudget,
        Fate::AlreadyInPrompt => {
            discovery.skipped.push(SkippedRule {
                file: rule.file,
                reason: SkipReason::AlreadyLoaded,
                detail: format!(
                    "imported by {includer}, whose block is already in the prompt with the same \
                     text"
                ),
                source: rule.source,
            });
            return;
        }
    };
    let over = decision == Decision::TooLargeForBudget;
    admission.candidates.push(Candidate {
        file: rule.file.clone(),
        decision,
        reason: over.then_some(SkipReason::TooLargeForBudget),
        attribution: Some(rule.attribution),
        bytes: 0,
        hash: None,
        source: non_empty(&rule.source),
    });
    if over {
        discovery.skipped.push(SkippedRule {
            detail: format!(
                "imported by {includer}, which did not fit the rule budget: its text was not \
                 injected; read {} for it",
                rule.file
            ),
            file: rule.file,
            reason: SkipReason::TooLargeForBudget,
            source: rule.source,
        });
    } else {
        admission.kept.push(rule);
    }
}

/// The most of a rule that does not fit that fits in the `remaining`
/// bytes of the budget: its headings (as many as fit, in order) and a note
/// saying what was cut and how to get it; failing that, a one-line pointer
/// to the file; failing that, nothing. Never more than `remaining` bytes,
/// never as large as the rule itself.
fn summary(rule: &LoadedRule, which: Budget, budget: u64, remaining: u64) -> Option<String> {
    let budget_name = which.name();
    let full = rule.content.len();
    let limit = usize::try_from(remaining)
        .unwrap_or(usize::MAX)
        .min(full.saturating_sub(1));
    let file = &rule.file;
    let heads = headings(&rule.content);
    let total = heads.len();
    let mut shown: usize = heads.iter().map(|h| h.len() + 1).sum();
    for count in (1..=total).rev() {
        let note = format!(
            "[jit: summary of {file}: it is {full} bytes and the {budget_name} of {budget} bytes \
             had {remaining} left, so its body was cut and only {count} of its {total} headings \
             are shown. Read {file} for the full text.]\n"
        );
        if shown + note.len() <= limit {
            let mut out = String::with_capacity(shown + note.len());
            for head in &heads[..count] {
                out.push_str(head);
                out.push('\n');
            }
            out.push_str(&note);
            return Some(out);
        }
        shown -= heads[count - 1].len() + 1;
    }
    let pointer = format!(
        "rule {file} ({full} bytes) left out: over the {}; read {file} for it",
        which.pointer_name()
    );
    (pointer.len() <= limit).then_some(pointer)
}

/// A session id from the wall clock, the process id and a counter: unique
/// within a machine without a random number generator.
fn generate_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{millis:x}-{:x}-{n}", std::process::id())
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn rule(file: &str, content: String) -> LoadedRule {
        LoadedRule {
            file: file.to_owned(),
            attribution: Attribution::NestedTraversal,
            bytes: content.len(),
            decision: LoadKind::Loaded,
            source: "claude".to_owned(),
            scope: None,
            detail: None,
            included_by: None,
            tier: None,
            warnings: Vec::new(),
            content,
        }
    }

    #[test]
    fn the_pointer_is_the_last_resort() {
        let big = rule("a/CLAUDE.md", format!("# A\n{}", "x".repeat(500)));
        let pointer = "rule a/CLAUDE.md (504 bytes) left out: over the JIT byte budget; read a/CLAUDE.md for it";
        let fits = pointer.len() as u64;
        assert_eq!(
            summary(&big, Budget::Total, 100, fits).as_deref(),
            Some(pointer)
        );
        assert_eq!(summary(&big, Budget::Total, 100, fits - 1), None);
        let with_heads = summary(&big, Budget::Total, 1000, 400).unwrap_or_default();
        assert!(
            with_heads.starts_with("# A\n[jit: summary of a/CLAUDE.md"),
            "{with_heads}"
        );
    }

    proptest! {
        /// A summary fits what is left of the budget and is smaller than
        /// the rule; a rule with headings shows as many as fit, in order.
        #[test]
        fn a_summary_fits_the_budget_left_and_is_smaller_than_the_rule(
            lines in proptest::collection::vec(
                prop_oneof!["#{1,3} [a-z]{1,12}", "[a-z ]{0,60}"],
                0..40,
            ),
            remaining in 0u64..3000,
        ) {
            let content: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let rule = rule("src/x/CLAUDE.md", content);
            let full = rule.content.len();
            match summary(&rule, Budget::Total, 4000, remaining) {
                Some(text) => {
                    prop_assert!(text.len() as u64 <= remaining, "{} > {remaining}", text.len());
                    prop_assert!(text.len() < full);
                    prop_assert!(text.contains("src/x/CLAUDE.md"));
                    let shown: Vec<&str> = headings(&text);
                    let all = headings(&rule.content);
                    prop_assert_eq!(&all[..shown.len()], &shown[..]);
                }
                None => {
                    let pointer = format!(
                        "rule src/x/CLAUDE.md ({full} bytes) left out: over the JIT byte budget; read src/x/CLAUDE.md for it"
                    );
                    prop_assert!(pointer.len() as u64 > remaining || pointer.len() >= full);
                }
            }
        }
    }
}
