//! The JIT discovery engine: from a touched path, walk up to the project root and decide every candidate rule.
//!
//! This file is the public face ([`Engine`], [`Discovery`],
//! [`ToolCallDiscovery`]); the parts live beside it: `state.rs` what a
//! session has seen, `chain.rs` where paths really are and what stays
//! inside, `scan.rs` the per-directory decision loop, `startup.rs` the
//! session-start load and `index.rs` the rule index.

mod chain;
pub(crate) mod index;
mod kept;
mod scan;
pub(crate) mod startup;
mod state;
mod watch;

use std::borrow::Cow;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

use chain::{ChainLevel, Level};
pub use kept::MAX_KEPT_SCANS;
pub(crate) use kept::StoredScan;
use scan::DirScan;
pub use state::DiscoveryState;
pub(crate) use state::StoredStamp;
pub use watch::WatchStats;

use crate::rule::scope::TouchedPathMatcher;
use crate::rule::source::{ClaudeSource, RuleSource};
use crate::rule::{LoadedRule, SkipReason, SkippedRule};
use jit_base::{
    Error, ErrorKind, Registry, SkippedInput, TouchedPaths, relative_to, resolve_parents, slash,
};

/// The default cap on one rule file's size: 256 KiB.
pub const DEFAULT_MAX_RULE_BYTES: u64 = 256 * 1024;

/// The most rule files one rule folder (`.claude/rules`, with its
/// sub-folders) contributes: 1,000. Real repositories have a few hundred
/// rules at most; a folder of 10,000 generated ones would otherwise cost
/// every touch a stat and a scope match of each. The files past the limit,
/// in sorted order, are skipped with reason `too_many_rules`.
pub const MAX_RULE_FILES_PER_FOLDER: usize = 1000;

/// The most paths of one tool call (or of one batch of paths touched
/// together) that are discovered: 10,000. Each costs its own walk up the
/// chain, so a call naming more (a command that writes 100,000 files, a
/// hostile patch) would run past an agent hook's timeout; the paths past
/// the limit, in the call's order, are left out with the reason
/// `too_many_paths` (a [`ToolCallDiscovery::reporter_skipped`] entry, and a
/// limit of the session's event).
pub const MAX_CALL_PATHS: usize = 10_000;

/// The longest touched path that is discovered: 4,096 bytes, the most a
/// system call takes (Linux's `PATH_MAX`, its final NUL included), so a
/// longer one names no file that can be opened. A longer path is left out
/// with the reason `too_long` instead of being copied into every row and
/// event that names it.
pub const MAX_PATH_BYTES: usize = 4096;

/// How long before a listing or a scan a directory or file must have last
/// changed for what was seen of it to outlive the process: file times are
/// as coarse as the kernel's clock tick (a second or two on some file
/// systems), so a change in the same tick as the one seen could leave them
/// as they were. The walk cache's listings and a snapshot's scan records
/// keep this margin.
pub(crate) const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// Discovers the rule files a touched path brings into scope.
///
/// The engine is immutable and shareable; what a session has already seen
/// lives in a [`DiscoveryState`] the caller owns (one per agent context).
///
/// ```
/// use jit_core::{DiscoveryState, Engine};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji in components.\n")?;
///
/// let engine = Engine::new(dir.path())?;
/// let mut state = DiscoveryState::default();
/// let found = engine.discover(&mut state, "src/ui/Footer.tsx".into(), engine.root());
/// assert_eq!(found.loaded[0].file, "src/ui/CLAUDE.md");
/// assert_eq!(found.loaded[0].content, "No colour emoji in components.\n");
///
/// // The second touch of the same directory injects nothing new.
/// let again = engine.discover(&mut state, "src/ui/Badge.tsx".into(), engine.root());
/// assert!(again.loaded.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Engine {
    /// The project root, canonical.
    root: Utf8PathBuf,
    /// The first level of every chain: the root's lexical name (empty) and
    /// its real path, made once for every touch to share.
    root_level: ChainLevel,
    /// The project root as given (absolute, lexical), for paths that name it
    /// through a symlink.
    given_root: Utf8PathBuf,
    sources: Vec<Arc<dyn RuleSource>>,
    max_rule_bytes: u64,
    import_policy: jit_imports::Policy,
    /// The file-system watch that answers a warm touch's `stat`s, once
    /// [`Engine::watch`] started it.
    watch: Option<watch::Watch>,
}

/// What one touched path brought in, and every candidate that stayed out.
///
/// This is the payload of one telemetry event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Discovery {
    /// The touched path: root-relative and `/`-separated inside the project
    /// (`.` for the root), absolute outside it.
    pub trigger: String,
    /// Rules injected, root first.
    pub loaded: Vec<LoadedRule>,
    /// Candidates not injected, each with its reason.
    pub skipped: Vec<SkippedRule>,
    /// Wall time of this discovery in microseconds.
    pub elapsed_us: u64,
}

impl Discovery {
    /// Whether anything was injected.
    pub fn is_hit(&self) -> bool {
        !self.loaded.is_empty()
    }

    /// Bytes injected by this discovery.
    pub fn bytes_injected(&self) -> usize {
        self.loaded.iter().map(|l| l.bytes).sum()
    }
}

/// The discoveries of one tool call: one per touched path.
///
/// ```
/// use camino::Utf8Path;
/// use jit_core::{AffectedPaths, DiscoveryState, Engine, Error, Registry, TouchedPaths};
///
/// /// `mkdir -p DIR`, as a harness's own tool: reports the directory, and
/// /// says what it leaves out.
/// struct Mkdir;
/// impl AffectedPaths for Mkdir {
///     fn affected_paths(&self, input: &serde_json::Value, _: &Utf8Path) -> Result<TouchedPaths, Error> {
///         let dir = input["dir"]
///             .as_str()
///             .ok_or_else(|| Error::invalid_tool_input("mkdir", "dir", "missing"))?;
///         Ok(TouchedPaths::from_paths([dir]).with_skipped("-p", "flag"))
///     }
/// }
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// let engine = Engine::new(dir.path())?;
/// let mut registry = Registry::empty();
/// registry.register_tool("mkdir", "my_harness");
/// registry.register_reporter("mkdir", Mkdir, "my_harness");
///
/// let input = serde_json::json!({"dir": "build/out"});
/// let call = engine.discover_tool_call(&mut DiscoveryState::default(), &registry, "mkdir", &input, engine.root())?;
/// assert_eq!(call.paths, ["build/out"]);
/// assert_eq!(call.reporter_skipped[0].reason, "flag");
/// assert_eq!(call.discoveries[0].loaded[0].file, "CLAUDE.md");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ToolCallDiscovery {
    /// The tool's name.
    pub tool: String,
    /// The paths the tool reported, as it addressed them.
    pub paths: Vec<Utf8PathBuf>,
    /// Inputs the reporter saw and did not report, with reasons.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reporter_skipped: Vec<SkippedInput>,
    /// One discovery per reported path, in order, up to [`MAX_CALL_PATHS`]
    /// paths; a path left out for a limit has none (`reporter_skipped`
    /// says which limit).
    pub discoveries: Vec<Discovery>,
}

/// The paths of one call that are discovered, in order, and one skipped
/// input for each limit that left some out ([`MAX_CALL_PATHS`],
/// [`MAX_PATH_BYTES`]). Linear in the number of paths, whatever their
/// count.
pub(crate) fn call_paths(paths: &[Utf8PathBuf]) -> (Vec<&Utf8Path>, Vec<SkippedInput>) {
    let mut kept = Vec::with_capacity(paths.len().min(MAX_CALL_PATHS));
    let (mut over, mut long) = (0usize, 0usize);
    let mut first_long = None;
    for path in paths {
        if path.as_str().len() > MAX_PATH_BYTES {
            long += 1;
            first_long.get_or_insert(path.as_str());
        } else if kept.len() == MAX_CALL_PATHS {
            over += 1;
        } else {
            kept.push(path.as_path());
        }
    }
    let mut limits = TouchedPaths::default();
    if over > 0 {
        limits = limits.with_skipped(
            format!(
                "{over} of the call's {} paths, past the first {MAX_CALL_PATHS}",
                kept.len() + over
            ),
            "too_many_paths",
        );
    }
    if let Some(first) = first_long {
        limits = limits.with_skipped(
            format!(
                "{long} path(s) longer than {MAX_PATH_BYTES} bytes, the first of {} bytes \
                 beginning {:?}",
                first.len(),
                prefix(first, 64)
            ),
            "too_long",
        );
    }
    (kept, limits.skipped)
}

/// The first `max` bytes of `text` or fewer, cut between characters.
pub(crate) fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl Engine {
    /// An engine for the project at `root` with the Claude convention and the
    /// default size cap.
    ///
    /// The root must exist, be a directory, and have a UTF-8 canonical path.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, Error> {
        let root = root.as_ref();
        let invalid = |detail: String| {
            Error::new(
                ErrorKind::InvalidRoot,
                format!("project root {}: {detail}", root.display()),
            )
        };
        let absolute = std::path::absolute(root).map_err(|e| invalid(e.to_string()))?;
        let canonical = fs::canonicalize(root).map_err(|e| invalid(e.to_string()))?;
        if !canonical.is_dir() {
            return Err(invalid("not a directory".to_owned()));
        }
        let canonical = Utf8PathBuf::from_path_buf(canonical)
            .map_err(|p| invalid(format!("canonical path {} is not UTF-8", p.display())))?;
        // `..` in the root as given is resolved as the OS resolves it, or
        // a path below the lexical fold would pass for one inside the root.
        let given_root = Utf8PathBuf::from_path_buf(absolute)
            .map(|p| resolve_parents(&p))
            .unwrap_or_else(|_| canonical.clone());
        Ok(Engine {
            root_level: ChainLevel {
                lex: Arc::from(""),
                level: Level::Inside(Arc::from(canonical.as_str())),
            },
            root: canonical,
            given_root,
            sources: vec![Arc::new(ClaudeSource::default())],
            max_rule_bytes: DEFAULT_MAX_RULE_BYTES,
            import_policy: jit_imports::Policy::default(),
            watch: None,
        })
    }

    /// Adds a rule source after the ones already there.
    pub fn with_source(mut self, source: impl RuleSource + 'static) -> Self {
        self.sources.push(Arc::new(source));
        self
    }

    /// Replaces all rule sources, for example with the conventions a
    /// configuration names ([`crate::source_by_name`]) or the ones a
    /// repository uses ([`crate::detect_conventions`]). Sources load in
    /// this order in every directory.
    ///
    /// ```
    /// use jit_core::{Engine, SourceOptions, source_by_name};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("AGENTS.md"), "Run the tests.\n")?;
    /// let engine = Engine::new(dir.path())?
    ///     .with_sources([source_by_name("agents", &SourceOptions::default())?]);
    /// let mut state = jit_core::DiscoveryState::default();
    /// let found = engine.discover(&mut state, "a.rs".into(), engine.root());
    /// assert_eq!(found.loaded[0].source, "agents");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_sources<S>(mut self, sources: impl IntoIterator<Item = S>) -> Self
    where
        S: Into<Arc<dyn RuleSource>>,
    {
        self.sources = sources.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the cap on one rule file's size (default [`DEFAULT_MAX_RULE_BYTES`]).
    pub fn with_max_rule_bytes(mut self, max: u64) -> Self {
        self.max_rule_bytes = max;
        self
    }

    /// Sets how `@imports` in rule files are expanded (depth, size cap,
    /// whether paths outside the project are allowed). User-level rules may
    /// always import from the home directory.
    pub fn with_import_policy(mut self, policy: jit_imports::Policy) -> Self {
        self.import_policy = policy;
        self
    }

    /// The cap on one rule file's size.
    pub(crate) fn max_rule_bytes(&self) -> u64 {
        self.max_rule_bytes
    }

    /// What a kept scan record depends on besides the files it stamped, as
    /// one number: this build, the caller's `key` (what shapes a source's
    /// judgement that the engine cannot show, such as the running agent),
    /// the root, the caps and every source's names, folders and options. A
    /// record kept under another layout is not trusted (a `jit.toml` that
    /// added a convention must not leave its files unread below a directory
    /// scanned without them).
    pub(crate) fn scan_layout(&self, key: &str) -> u64 {
        use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
        let mut h = foldhash::quality::FixedState::with_seed(0x6a69_745f_7363_616e).build_hasher();
        (env!("CARGO_PKG_VERSION"), key, &self.root, &self.given_root).hash(&mut h);
        self.max_rule_bytes.hash(&mut h);
        format!("{:?}", self.import_policy).hash(&mut h);
        for source in &self.sources {
            (
                source.name(),
                source.files(),
                source.rule_dirs(),
                source.scope_keys(),
            )
                .hash(&mut h);
            (
                source.root_files(),
                source.managed_files(),
                source.startup_budget(),
            )
                .hash(&mut h);
            let small = (source.user_level(), source.imports(), source.precedence());
            format!("{small:?}").hash(&mut h);
        }
        h.finish()
    }

    /// The canonical project root.
    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// The rule sources, in order.
    pub fn sources(&self) -> &[Arc<dyn RuleSource>] {
        &self.sources
    }

    /// How `path` is shown in results: root-relative inside, absolute outside.
    pub fn display(&self, path: &Utf8Path) -> String {
        match relative_to(path, &self.root) {
            Some(rel) if rel.as_str().is_empty() => ".".to_owned(),
            Some(rel) => slash(rel),
            None => path.to_string(),
        }
    }

    /// Runs one tool call through its registered path reporter, then
    /// discovers the rules of every path it touched, up to
    /// [`MAX_CALL_PATHS`] paths of at most [`MAX_PATH_BYTES`] bytes each
    /// (what a limit leaves out is listed in `reporter_skipped`).
    ///
    /// A tool without a reporter is an [`ErrorKind::UnregisteredTool`] error:
    /// nothing is guessed from field names.
    pub fn discover_tool_call(
        &self,
        state: &mut DiscoveryState,
        registry: &Registry,
        tool: &str,
        input: &serde_json::Value,
        cwd: &Utf8Path,
    ) -> Result<ToolCallDiscovery, Error> {
        let mut touched = registry.affected_paths(tool, input, cwd)?;
        let (paths, limits) = call_paths(&touched.paths);
        let discoveries = paths
            .into_iter()
            .map(|path| self.discover(state, path, cwd))
            .collect();
        touched.skipped.extend(limits);
        Ok(ToolCallDiscovery {
            tool: tool.to_owned(),
            paths: touched.paths,
            reporter_skipped: touched.skipped,
            discoveries,
        })
    }

    /// Discovers the rules a touched `path` brings into scope. `path` is
    /// absolute or relative to `cwd`; a relative `cwd` is taken relative to
    /// the project root. The path may be a file or a directory, existing or
    /// not yet.
    pub fn discover(
        &self,
        state: &mut DiscoveryState,
        path: &Utf8Path,
        cwd: &Utf8Path,
    ) -> Discovery {
        let started = Instant::now();
        let cwd = if cwd.is_absolute() {
            Cow::Borrowed(cwd)
        } else {
            Cow::Owned(join(&self.root, cwd.as_str()))
        };
        // `..` is resolved as the OS will resolve it: after a link, it
        // climbs from the link's target (lexically, `src/link/..` would be
        // `src` whatever the link points at).
        let abs = resolve_parents(&join(&cwd, path.as_str()));
        let Some(rel) = self.locate_in(&abs) else {
            return self.outside_root(&abs, started);
        };
        let mut discovery = Discovery {
            trigger: if rel.as_str().is_empty() {
                ".".to_owned()
            } else {
                slash(&rel)
            },
            ..Discovery::default()
        };
        self.refresh_watch();
        let names_dir = path.as_str().ends_with('/')
            || rel.as_str().is_empty()
            // Asked every time, watch or not: the touched paths of a
            // session are its source files, too many to remember. `abs`
            // is the path when `rel` was cut from it.
            || match &rel {
                Cow::Borrowed(_) => fs::metadata(&abs),
                Cow::Owned(rel) => fs::metadata(join(&self.root, rel.as_str())),
            }
            .is_ok_and(|m| m.is_dir());
        let dir_rel = if names_dir {
            &*rel
        } else {
            rel.parent().unwrap_or(Utf8Path::new(""))
        };

        let (levels, stamps) = self.resolve_chain(state, dir_rel);
        let shown = if rel.as_str().is_empty() {
            ""
        } else {
            &discovery.trigger
        };
        let subject = self.subject(&rel, shown, names_dir, &levels);
        let matcher = TouchedPathMatcher::new(&subject);
        let mut scan = DirScan::new(self, state, &matcher, &mut discovery);
        scan.run_levels(&levels, &stamps);
        // User rules with `paths:` work like project ones: judged against
        // every touched path until they are loaded.
        scan.rerun_user_tiers();
        discovery.elapsed_us = elapsed_us(started);
        discovery
    }

    /// The discovery of a touched path outside the root: no rules, one
    /// `outside_root` row saying so.
    fn outside_root(&self, abs: &Utf8Path, started: Instant) -> Discovery {
        Discovery {
            trigger: abs.to_string(),
            skipped: vec![SkippedRule {
                file: abs.to_string(),
                reason: SkipReason::OutsideRoot,
                detail: format!(
                    "the touched path is outside the project root {}; no rules are discovered for it",
                    self.root
                ),
                source: String::new(),
            }],
            loaded: Vec::new(),
            elapsed_us: elapsed_us(started),
        }
    }

    /// The source a stored user tier belongs to: by name, or for a tier
    /// stored without one, the first source with a user level.
    fn user_source(&self, name: &str) -> Option<&dyn RuleSource> {
        self.sources
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| s.user_level().is_some())
            .find(|s| name.is_empty() || s.name() == name)
    }
}

/// Microseconds since `started`, saturating.
fn elapsed_us(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// `dir` joined with `rel` (a relative path, `/`-separated), the path
/// [`Utf8Path::join`] makes, in one allocation of the right size: a scan
/// joins a name to each directory it looks in.
fn join(dir: &Utf8Path, rel: &str) -> Utf8PathBuf {
    let base = dir.as_str();
    if cfg!(unix) && rel.starts_with('/') {
        // An absolute path replaces the directory, as in `join`.
        return Utf8PathBuf::from(rel);
    }
    if !cfg!(unix) || rel.is_empty() || base.is_empty() || base.ends_with('/') {
        return dir.join(rel);
    }
    let mut out = String::with_capacity(base.len() + 1 + rel.len());
    out.push_str(base);
    out.push('/');
    out.push_str(rel);
    Utf8PathBuf::from(out)
}

#[cfg(test)]
mod join_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The joined path is the one `Utf8Path::join` makes, whatever the
        /// slashes at either end, to the byte: a scan compares paths as
        /// text (`Utf8Path`'s `==` compares components, and `a//b` is `a/b`
        /// to it).
        #[test]
        fn a_join_is_the_one_camino_makes(dir in "[a/.]{0,6}", rel in "[b/.]{0,6}") {
            let (ours, camino) = (join(Utf8Path::new(&dir), &rel), Utf8Path::new(&dir).join(&rel));
            prop_assert_eq!(ours.as_str(), camino.as_str());
        }
    }
}
