//! The JIT discovery engine: from a touched path, walk up to the project root and decide every candidate rule.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{
    Error, ErrorKind, Real, Registry, SkippedInput, real_within, relative_to, resolve_parents,
    slash,
};
use serde::Serialize;

use crate::rule::{
    Attribution, LoadKind, LoadedRule, ParsedRule, Rejection, RuleScope, SkipReason, SkippedRule,
    Stamp, Tier, read_rule,
};
use crate::scope::{ScopeMatcher, TouchedPathMatcher};
use crate::source::{ClaudeSource, Imports, Precedence, RuleDir, RuleSource};

/// The default cap on one rule file's size: 256 KiB.
pub const DEFAULT_MAX_RULE_BYTES: u64 = 256 * 1024;

/// The most rule files one rule folder (`.claude/rules`, with its
/// sub-folders) contributes: 1,000. Real repositories have a few hundred
/// rules at most; a folder of 10,000 generated ones would otherwise cost
/// every touch a stat and a scope match of each. The files past the limit,
/// in sorted order, are skipped with reason `too_many_rules`.
pub const MAX_RULE_FILES_PER_FOLDER: usize = 1000;

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
    /// The project root as given (absolute, lexical), for paths that name it
    /// through a symlink.
    given_root: Utf8PathBuf,
    sources: Vec<Arc<dyn RuleSource>>,
    max_rule_bytes: u64,
    import_policy: jit_imports::Policy,
}

/// What one touched path brought in, and every candidate that stayed out.
///
/// This is the payload of one telemetry event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCallDiscovery {
    /// The tool's name.
    pub tool: String,
    /// The paths the tool reported, as it addressed them.
    pub paths: Vec<Utf8PathBuf>,
    /// Inputs the reporter saw and did not report, with reasons.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reporter_skipped: Vec<SkippedInput>,
    /// One discovery per reported path, in order.
    pub discoveries: Vec<Discovery>,
}

/// What a session has already seen: loaded rules, scanned directories, and
/// caches. Create one per agent context; [`DiscoveryState::rearm`] it after
/// compaction or clear.
#[derive(Debug, Default, Clone)]
pub struct DiscoveryState {
    /// Rule files in the context, by canonical path, with the stamp they were read at.
    loaded: HashMap<String, Stamp>,
    /// Directories whose every candidate was resolved, with the stamps that
    /// prove the scan is still current.
    scanned: HashMap<Arc<str>, ScanRecord>,
    /// Lexical root-relative directory → where each directory from the root
    /// down to it really is.
    chains: HashMap<String, Arc<[ChainLevel]>>,
    /// The user's rule folders (`~/.claude`, canonical) with the name of
    /// the source each belongs to, once the startup load has seen them:
    /// their scoped rules are judged on every touch too.
    pub(crate) user_tiers: Vec<(String, Arc<str>)>,
    /// How each file in the context (canonical path) first arrived, for the
    /// detail of a second arrival: `CLAUDE.md (claude)`, or
    /// `imported by CLAUDE.md (claude)`.
    origins: HashMap<String, String>,
    /// Files in the context only as imports (canonical) → the canonical path
    /// of the rule whose block carries them.
    imported_by: HashMap<String, String>,
    /// Bytes each source loaded from the project in the current startup load,
    /// against its startup budget.
    pub(crate) startup_spent: HashMap<String, u64>,
    /// Parsed rule files, and files rejected for good (invalid
    /// frontmatter, too large, binary...), reused while their stamp holds.
    parsed: HashMap<String, (Stamp, Result<Arc<ParsedRule>, Rejection>)>,
}

/// A loaded rule file and the stamp it was read at, as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredStamp {
    /// The canonical path.
    pub(crate) file: String,
    /// Its size when read.
    pub(crate) len: u64,
    /// Its modification time when read, in nanoseconds since the Unix epoch.
    #[serde(default)]
    pub(crate) modified_ns: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct ScanRecord {
    /// The scanned directory's own stamp (its key in the map is its path).
    dir: Option<Stamp>,
    /// Every other folder probed and every candidate file found, with its
    /// stamp at scan time. A changed stamp means the directory must be
    /// scanned again.
    stamps: Vec<(Utf8PathBuf, Stamp)>,
}

/// One directory of a walk: its lexical root-relative path and where it really is.
#[derive(Debug, Clone)]
pub(crate) struct ChainLevel {
    pub(crate) lex: Utf8PathBuf,
    pub(crate) level: Level,
}

/// Where a lexical directory of the walk really is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Level {
    /// Inside the root, at this canonical path (shared with the scan records).
    Inside(Arc<str>),
    /// Resolves outside the root (to this path).
    Outside(String),
    /// Does not exist (yet), or is not a directory.
    Missing,
}

impl DiscoveryState {
    /// Records a rule file as already in the context (for example loaded at
    /// startup), so discovery reports it `already_loaded` instead of
    /// injecting it twice. Returns `false` if its metadata cannot be read.
    pub fn mark_loaded(&mut self, path: &Utf8Path) -> bool {
        let real = fs::canonicalize(path)
            .ok()
            .and_then(|p| Utf8PathBuf::from_path_buf(p).ok())
            .unwrap_or_else(|| path.to_owned());
        match fs::metadata(&real) {
            Ok(meta) => {
                self.loaded.insert(real.into_string(), Stamp::of(&meta));
                true
            }
            Err(_) => false,
        }
    }

    /// Whether `path` (canonical) is in the context.
    pub fn is_loaded(&self, path: &Utf8Path) -> bool {
        self.loaded.contains_key(path.as_str())
    }

    /// The rule files in the context, canonical paths, sorted.
    pub fn loaded_files(&self) -> Vec<&Utf8Path> {
        let mut files: Vec<&Utf8Path> = self.loaded.keys().map(Utf8Path::new).collect();
        files.sort();
        files
    }

    /// The loaded set and the user tier, for a [`crate::SessionSnapshot`]:
    /// what must outlive a process (caches need not).
    pub(crate) fn export(&self) -> (Vec<StoredStamp>, Vec<(String, String)>) {
        let mut loaded: Vec<StoredStamp> = self
            .loaded
            .iter()
            .map(|(file, stamp)| StoredStamp {
                file: file.clone(),
                len: stamp.len,
                modified_ns: stamp.modified_nanos(),
            })
            .collect();
        loaded.sort_by(|a, b| a.file.cmp(&b.file));
        let tiers = self
            .user_tiers
            .iter()
            .map(|(source, dir)| (source.clone(), dir.to_string()))
            .collect();
        (loaded, tiers)
    }

    /// A state with the loaded set and user tiers of [`DiscoveryState::export`].
    /// A tier stored without a source name (an older snapshot) belongs to
    /// the first source of the engine that has a user level.
    pub(crate) fn import(loaded: &[StoredStamp], user_tiers: &[(String, String)]) -> Self {
        DiscoveryState {
            loaded: loaded
                .iter()
                .map(|s| (s.file.clone(), Stamp::from_stored(s.len, s.modified_ns)))
                .collect(),
            user_tiers: user_tiers
                .iter()
                .map(|(source, dir)| (source.clone(), Arc::from(dir.as_str())))
                .collect(),
            ..DiscoveryState::default()
        }
    }

    /// Records how a file in the context first arrived.
    fn set_origin(&mut self, real: &str, origin: String) {
        self.origins.entry(real.to_owned()).or_insert(origin);
    }

    /// Forgets what was injected, so rules come back on the next touch (after
    /// compaction or clear). Caches of parsed files and resolved paths stay.
    pub fn rearm(&mut self) {
        self.loaded.clear();
        self.scanned.clear();
        self.origins.clear();
        self.imported_by.clear();
    }

    /// Forgets one loaded rule (its block left the context), so the next touch
    /// of its directory injects it again.
    pub fn forget(&mut self, path: &Utf8Path) {
        self.origins.remove(path.as_str());
        self.imported_by.remove(path.as_str());
        // The files its block carried as imports left with it.
        let carried: Vec<String> = self
            .imported_by
            .iter()
            .filter(|(_, by)| by.as_str() == path.as_str())
            .map(|(file, _)| file.clone())
            .collect();
        for file in carried {
            self.imported_by.remove(&file);
            self.origins.remove(&file);
            self.loaded.remove(&file);
        }
        if self.loaded.remove(path.as_str()).is_some() {
            if let Some(dir) = path.parent() {
                // The directory that held it must be judged again. Rules from
                // `.claude/rules` belong to an ancestor; forget every record
                // that stamped this file.
                self.scanned.remove(dir.as_str());
            }
            self.scanned
                .retain(|_, record| !record.stamps.iter().any(|(p, _)| p == path));
        }
    }
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
            root: canonical,
            given_root,
            sources: vec![Arc::new(ClaudeSource::default())],
            max_rule_bytes: DEFAULT_MAX_RULE_BYTES,
            import_policy: jit_imports::Policy::default(),
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
    /// discovers the rules of every path it touched.
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
        let touched = registry.affected_paths(tool, input, cwd)?;
        let discoveries = touched
            .paths
            .iter()
            .map(|path| self.discover(state, path, cwd))
            .collect();
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
            cwd.to_owned()
        } else {
            self.root.join(cwd)
        };
        // `..` is resolved as the OS will resolve it: after a link, it
        // climbs from the link's target (lexically, `src/link/..` would be
        // `src` whatever the link points at).
        let abs = resolve_parents(&cwd.join(path));
        let mut discovery = Discovery {
            trigger: String::new(),
            ..Discovery::default()
        };

        let Some(rel) = self.locate(&abs) else {
            discovery.trigger = abs.to_string();
            discovery.skipped.push(SkippedRule {
                file: abs.to_string(),
                reason: SkipReason::OutsideRoot,
                detail: format!(
                    "the touched path is outside the project root {}; no rules are discovered for it",
                    self.root
                ),
                source: String::new(),
            });
            discovery.elapsed_us = elapsed_us(started);
            return discovery;
        };
        discovery.trigger = if rel.as_str().is_empty() {
            ".".to_owned()
        } else {
            slash(&rel)
        };

        let names_dir = path.as_str().ends_with('/')
            || rel.as_str().is_empty()
            || fs::metadata(self.root.join(&rel)).is_ok_and(|m| m.is_dir());
        let dir_rel = if names_dir {
            rel.clone()
        } else {
            rel.parent().map(Utf8Path::to_owned).unwrap_or_default()
        };

        let (levels, stamps) = self.resolve_chain(state, &dir_rel);
        let subject = self.subject(&rel, names_dir, &levels);

        let mut seen_dirs: Vec<&str> = Vec::with_capacity(levels.len());
        let matcher = TouchedPathMatcher::new(&subject);
        let mut scan = DirScan::new(self, state, &matcher, &mut discovery);
        for (i, ChainLevel { lex, level }) in levels.iter().enumerate() {
            match level {
                Level::Missing => break,
                Level::Outside(real) => scan.out.skipped.push(SkippedRule {
                    file: slash(lex),
                    reason: SkipReason::OutsideRoot,
                    detail: format!(
                        "this directory resolves to {real}, outside the project root {}; its rules are not read",
                        self.root
                    ),
                    source: String::new(),
                }),
                Level::Inside(real) => {
                    if seen_dirs.contains(&&**real) {
                        continue;
                    }
                    seen_dirs.push(real);
                    if let Some(record) = scan.state.scanned.get(&**real) {
                        if record_is_fresh(real, stamps.get(i).copied().flatten(), record) {
                            continue;
                        }
                        scan.state.scanned.remove(&**real);
                    }
                    scan.run(real, stamps.get(i).copied().flatten());
                }
            }
        }
        // User rules with `paths:` work like project ones: judged against
        // every touched path until they are loaded.
        for (name, user) in scan.state.user_tiers.clone() {
            let fresh = scan
                .state
                .scanned
                .get(&*user)
                .is_some_and(|record| record_is_fresh(&user, None, record));
            if !fresh {
                scan.state.scanned.remove(&*user);
                if let Some(source) = self.user_source(&name) {
                    scan.run_user_tier(source, &user);
                }
            }
        }
        discovery.elapsed_us = elapsed_us(started);
        discovery
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

    /// The root-relative form of an absolute path that went through
    /// [`crate::resolve_parents`], if it is inside the root: lexically under
    /// the root (canonical or as given), or once its deepest existing
    /// ancestor is resolved. This is how [`Engine::discover`] places a
    /// touched path; tools that explain a discovery use it to agree.
    ///
    /// ```
    /// use jit_core::{Engine, resolve_parents};
    /// let dir = tempfile::tempdir()?;
    /// let engine = Engine::new(dir.path())?;
    /// let inside = resolve_parents(&engine.root().join("src/ui/../a.ts"));
    /// assert_eq!(engine.locate(&inside).as_deref(), Some("src/a.ts".into()));
    /// assert_eq!(engine.locate(&resolve_parents(&engine.root().join("../x"))), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn locate(&self, abs: &Utf8Path) -> Option<Utf8PathBuf> {
        if let Some(rel) = relative_to(abs, &self.root) {
            return Some(rel.to_owned());
        }
        if let Some(rel) = relative_to(abs, &self.given_root) {
            return Some(rel.to_owned());
        }
        // The path may reach the root through a symlink: resolve its deepest
        // existing ancestor and keep the rest lexically.
        let mut existing = abs;
        let mut rest: Vec<&str> = Vec::new();
        loop {
            if let Ok(real) = fs::canonicalize(existing) {
                let real = Utf8PathBuf::from_path_buf(real).ok()?;
                let rel = relative_to(&real, &self.root)?;
                let mut rel = rel.to_owned();
                for part in rest.iter().rev() {
                    rel.push(part);
                }
                return Some(rel);
            }
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
    }

    /// Resolves each directory from the root down to `dir_rel`, realpath at
    /// every step. Returns the levels, root first, and for each level resolved
    /// just now the stamp of the directory (so a scan need not stat it again).
    pub(crate) fn resolve_chain(
        &self,
        state: &mut DiscoveryState,
        dir_rel: &Utf8Path,
    ) -> (Arc<[ChainLevel]>, Vec<Option<Stamp>>) {
        if let Some(chain) = state.chains.get(dir_rel.as_str()) {
            // A directory may have been swapped for a link since: every
            // level is checked again without following links, and the chain
            // is resolved anew if any is no longer a plain directory.
            if let Some(stamps) = still_plain_dirs(&self.root, chain) {
                return (Arc::clone(chain), stamps);
            }
            state.chains.remove(dir_rel.as_str());
        }
        let mut levels = Vec::with_capacity(dir_rel.components().count() + 1);
        let mut stamps = Vec::with_capacity(levels.capacity());
        levels.push(ChainLevel {
            lex: Utf8PathBuf::new(),
            level: Level::Inside(Arc::from(self.root.as_str())),
        });
        stamps.push(None);
        let mut lex = Utf8PathBuf::new();
        let mut plain = true; // no symlink so far: real == root.join(lex)
        for component in dir_rel.components() {
            lex.push(component.as_str());
            let (level, still_plain, stamp) = self.resolve_level(&lex, plain);
            plain = still_plain;
            let missing = level == Level::Missing;
            levels.push(ChainLevel {
                lex: lex.clone(),
                level,
            });
            stamps.push(stamp);
            if missing {
                break;
            }
        }
        let complete = levels.iter().all(|l| l.level != Level::Missing);
        let chain: Arc<[ChainLevel]> = levels.into();
        // A directory that does not exist yet may be created later: only
        // chains that reach their end are remembered.
        if complete {
            state.chains.insert(dir_rel.to_string(), Arc::clone(&chain));
        }
        (chain, stamps)
    }

    /// Resolves one directory: `lstat` while no symlink was met (the real
    /// path is the lexical one), `realpath` from the first symlink on.
    fn resolve_level(&self, lex: &Utf8Path, parent_plain: bool) -> (Level, bool, Option<Stamp>) {
        let path = self.root.join(lex);
        if parent_plain {
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    return (
                        Level::Inside(Arc::from(path.as_str())),
                        true,
                        Some(Stamp::of(&meta)),
                    );
                }
                Ok(meta) if meta.file_type().is_symlink() => {}
                _ => return (Level::Missing, false, None),
            }
        }
        let level = match real_within(&path, &self.root) {
            Ok(Real::Inside(real)) if real.is_dir() => Level::Inside(Arc::from(real.as_str())),
            Ok(Real::Outside(real)) if real.is_dir() => Level::Outside(real.to_string()),
            Ok(Real::NotUtf8(real)) => Level::Outside(real.display().to_string()),
            Ok(Real::Inside(_) | Real::Outside(_)) | Err(_) => Level::Missing,
        };
        (level, false, None)
    }

    /// The touched path as scope globs see it: root-relative, `/`-separated,
    /// through resolved symlinks, with a trailing `/` for a directory.
    fn subject(&self, rel: &Utf8Path, names_dir: bool, levels: &[ChainLevel]) -> String {
        // The deepest level that is inside tells where the path really is.
        let deepest = levels
            .iter()
            .take_while(|l| matches!(l.level, Level::Inside(_)))
            .last();
        let mut subject = Utf8PathBuf::new();
        if let Some(ChainLevel {
            lex,
            level: Level::Inside(real),
        }) = deepest
        {
            if let Some(base) = relative_to(Utf8Path::new(&**real), &self.root) {
                subject.push(base);
            }
            if let Some(rest) =
                relative_to(rel, lex).or_else(|| lex.as_str().is_empty().then_some(rel))
            {
                subject.push(rest);
            }
        } else {
            subject.push(rel);
        }
        let mut out = slash(&subject);
        if names_dir && !out.is_empty() {
            out.push('/');
        }
        out
    }
}

fn elapsed_us(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Whether nothing a scan looked at has changed since.
///
/// `dir_stamp` is the directory's stamp if the walk already took it (without
/// following links); otherwise it is taken here.
fn record_is_fresh(dir: &str, dir_stamp: Option<Stamp>, record: &ScanRecord) -> bool {
    let fresh =
        |path: &str, stamp: &Stamp| fs::metadata(path).is_ok_and(|meta| Stamp::of(&meta) == *stamp);
    let dir_stamp = dir_stamp.or_else(|| fs::symlink_metadata(dir).ok().map(|m| Stamp::of(&m)));
    record.dir.is_some()
        && record.dir == dir_stamp
        && record
            .stamps
            .iter()
            .all(|(path, stamp)| fresh(path.as_str(), stamp))
}

/// The stamps of a cached chain's directories, taken without following
/// links, or `None` when a directory is gone or became a link (the chain must
/// be resolved again). The root's slot is `None`: its stamp is taken by the scan.
fn still_plain_dirs(root: &Utf8Path, chain: &[ChainLevel]) -> Option<Vec<Option<Stamp>>> {
    let mut stamps = Vec::with_capacity(chain.len());
    for (i, level) in chain.iter().enumerate() {
        match &level.level {
            Level::Inside(real) if i > 0 => {
                // A level reached through a link: the link may point
                // elsewhere now.
                let plain = real
                    .strip_prefix(root.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == level.lex.as_str());
                if !plain && fs::canonicalize(root.join(&level.lex)).ok()?.to_str() != Some(&**real)
                {
                    return None;
                }
                match fs::symlink_metadata(&**real) {
                    Ok(meta) if meta.is_dir() => stamps.push(Some(Stamp::of(&meta))),
                    _ => return None,
                }
            }
            _ => stamps.push(None),
        }
    }
    Some(stamps)
}

/// The scans of one discovery: every candidate of every source, decided,
/// one directory at a time.
pub(crate) struct DirScan<'a> {
    engine: &'a Engine,
    pub(crate) state: &'a mut DiscoveryState,
    /// Decides scoped rules: the touched path (JIT) or the signals (startup).
    matcher: &'a dyn ScopeMatcher,
    /// Rule files and folders must really be inside this directory (the
    /// project root, or the user's `~/.claude`).
    pub(crate) boundary: &'a Utf8Path,
    /// Startup attributes every load to `session_start`.
    pub(crate) startup: bool,
    /// The tier loaded rules are reported with.
    pub(crate) tier: Option<Tier>,
    pub(crate) out: &'a mut Discovery,
    /// What the current directory's scan looked at.
    record: ScanRecord,
    /// Every candidate of the current directory was resolved (no scope miss,
    /// no I/O error).
    complete: bool,
    /// One path buffer for every probe: most candidates do not exist, and the
    /// walk's cost is mostly these probes.
    buffer: String,
    /// The directory being scanned (canonical), empty outside a scan.
    dir: String,
    /// The source whose candidates are being judged, for skipped rows.
    pub(crate) source_name: &'a str,
}

/// Candidate parent folders (`.claude`) already probed in this directory.
#[derive(Default)]
struct Probed<'n> {
    entries: [(&'n str, bool); 8],
    len: usize,
}

impl<'n> Probed<'n> {
    fn get(&self, parent: &str) -> Option<bool> {
        self.entries[..self.len]
            .iter()
            .find(|(p, _)| *p == parent)
            .map(|(_, exists)| *exists)
    }

    fn put(&mut self, parent: &'n str, exists: bool) {
        if let Some(slot) = self.entries.get_mut(self.len) {
            *slot = (parent, exists);
            self.len += 1;
        }
    }
}

impl<'a> DirScan<'a> {
    pub(crate) fn new(
        engine: &'a Engine,
        state: &'a mut DiscoveryState,
        matcher: &'a dyn ScopeMatcher,
        out: &'a mut Discovery,
    ) -> Self {
        DirScan {
            engine,
            state,
            matcher,
            boundary: &engine.root,
            startup: false,
            tier: None,
            out,
            record: ScanRecord::default(),
            complete: true,
            buffer: String::new(),
            dir: String::new(),
            source_name: "",
        }
    }

    /// Judges one source's user tier (`~/.claude/CLAUDE.md`,
    /// `~/.claude/rules/`), bounded by the user folder, and records it as
    /// scanned when complete.
    pub(crate) fn run_user_tier(&mut self, source: &'a dyn RuleSource, user: &Arc<str>) {
        let Some(level) = source.user_level() else {
            return;
        };
        let dir = Utf8PathBuf::from(&**user);
        // The scan borrows its boundary; the user folder lives in `dir` for
        // the length of this call.
        let mut scan = DirScan {
            engine: self.engine,
            state: &mut *self.state,
            matcher: self.matcher,
            boundary: &dir,
            startup: self.startup,
            tier: Some(Tier::User),
            out: &mut *self.out,
            record: ScanRecord::default(),
            complete: true,
            buffer: String::new(),
            dir: String::new(),
            source_name: source.name(),
        };
        scan.record.dir = fs::symlink_metadata(&dir).ok().map(|m| Stamp::of(&m));
        let mut probed = Probed::default();
        let mut winner = None;
        scan.judge_names(source, &dir, &level.files, &mut probed, &mut winner);
        for rule_dir in &level.rule_dirs {
            scan.judge_rule_dir(source, &dir.join(&rule_dir.path), rule_dir);
        }
        if scan.complete && scan.record.dir.is_some() {
            let record = std::mem::take(&mut scan.record);
            scan.state.scanned.insert(Arc::clone(user), record);
        }
    }

    /// Scans one directory and records it as scanned when it was complete.
    pub(crate) fn run(&mut self, dir: &Arc<str>, stamp: Option<Stamp>) {
        self.record = ScanRecord::default();
        self.complete = true;
        self.scan(Utf8Path::new(&**dir), stamp);
        if self.complete {
            let record = std::mem::take(&mut self.record);
            self.state.scanned.insert(Arc::clone(dir), record);
        }
    }

    fn scan(&mut self, dir: &Utf8Path, stamp: Option<Stamp>) {
        self.dir.clear();
        self.dir.push_str(dir.as_str());
        match stamp
            .map(Ok)
            .unwrap_or_else(|| fs::symlink_metadata(dir).map(|m| Stamp::of(&m)))
        {
            Ok(stamp) => self.record.dir = Some(stamp),
            Err(_) => self.complete = false,
        }
        let at_root = dir == self.engine.root;
        let mut probed = Probed::default();
        let engine = self.engine;
        for source in engine.sources.iter() {
            let source = source.as_ref();
            self.source_name = source.name();
            let mut winner = None;
            self.judge_names(source, dir, source.files(), &mut probed, &mut winner);
            if at_root {
                self.judge_names(source, dir, source.root_files(), &mut probed, &mut winner);
            }
            for rule_dir in source.rule_dirs() {
                if let Some((parent, _)) = rule_dir.path.rsplit_once('/')
                    && !self.parent_exists(dir, parent, &mut probed)
                {
                    continue;
                }
                self.judge_rule_dir(source, &dir.join(&rule_dir.path), rule_dir);
            }
        }
        self.source_name = "";
    }

    /// Judges the candidate `names` of one source in `dir`, in order. Under
    /// [`Precedence::FirstFound`], `winner` is the first that is a regular
    /// file, and every later one that exists is skipped as `shadowed`.
    fn judge_names(
        &mut self,
        source: &'a dyn RuleSource,
        dir: &Utf8Path,
        names: &'a [String],
        probed: &mut Probed<'a>,
        winner: &mut Option<&'a str>,
    ) {
        let first_found = source.precedence() == Precedence::FirstFound;
        for name in names {
            if let Some((parent, _)) = name.rsplit_once('/')
                && !self.parent_exists(dir, parent, probed)
            {
                continue;
            }
            self.set_buffer(dir, name);
            match fs::symlink_metadata(&self.buffer) {
                Ok(meta) => {
                    let candidate = Utf8PathBuf::from(self.buffer.as_str());
                    let followed = if meta.file_type().is_symlink() {
                        fs::metadata(&candidate).ok()
                    } else {
                        Some(meta.clone())
                    };
                    // A folder with a rule folder's name (Cline's
                    // `.clinerules/`) is that folder, not a broken file.
                    if followed.as_ref().is_some_and(fs::Metadata::is_dir)
                        && source.rule_dirs().iter().any(|d| d.path == *name)
                    {
                        continue;
                    }
                    if first_found {
                        if let Some(first) = winner {
                            self.skip(
                                &candidate,
                                SkipReason::Shadowed,
                                &format!(
                                    "`{first}` in this directory takes precedence over `{name}`, \
                                     which is not read"
                                ),
                            );
                            continue;
                        }
                        if followed.as_ref().is_some_and(fs::Metadata::is_file) {
                            *winner = Some(name);
                        }
                    }
                    self.judge(source, &candidate, meta);
                }
                Err(err) if is_absent(&err) => {}
                Err(err) => {
                    let candidate = Utf8PathBuf::from(self.buffer.as_str());
                    self.unreadable(&candidate, &err);
                }
            }
        }
    }

    /// Decides every rule file of one rule folder, in sorted order.
    pub(crate) fn judge_rule_dir(
        &mut self,
        source: &dyn RuleSource,
        folder: &Utf8Path,
        rule_dir: &RuleDir,
    ) {
        let mut files = Vec::new();
        let mut visited = HashSet::new();
        self.list_rule_dir(
            folder,
            &rule_dir.suffix,
            rule_dir.recursive,
            &mut files,
            &mut visited,
        );
        files.sort();
        if files.len() > MAX_RULE_FILES_PER_FOLDER {
            let over = files.len() - MAX_RULE_FILES_PER_FOLDER;
            let first_left_out = self.engine.display(&files[MAX_RULE_FILES_PER_FOLDER]);
            files.truncate(MAX_RULE_FILES_PER_FOLDER);
            // One row for the lot: thousands of rows would bury the rest.
            self.skip(
                folder,
                SkipReason::TooManyRules,
                &format!(
                    "this rule folder holds {} rule files, over the limit of \
                     {MAX_RULE_FILES_PER_FOLDER}; the last {over} in sorted order (from \
                     {first_left_out} on) are not read",
                    over + MAX_RULE_FILES_PER_FOLDER,
                ),
            );
        }
        for file in files {
            match fs::symlink_metadata(&file) {
                Ok(meta) => self.judge(source, &file, meta),
                Err(err) => self.unreadable(&file, &err),
            }
        }
    }

    fn set_buffer(&mut self, dir: &Utf8Path, name: &str) {
        self.buffer.clear();
        self.buffer.push_str(dir.as_str());
        self.buffer.push('/');
        self.buffer.push_str(name);
    }

    /// Probes a candidate's parent folder (`.claude`) once per scan, so a
    /// directory without it costs one probe, not one per candidate inside it.
    fn parent_exists(&mut self, dir: &Utf8Path, parent: &'a str, probed: &mut Probed<'a>) -> bool {
        if let Some(exists) = probed.get(parent) {
            return exists;
        }
        self.set_buffer(dir, parent);
        let exists = match fs::metadata(&self.buffer) {
            Ok(meta) if meta.is_dir() => {
                let path = Utf8PathBuf::from(self.buffer.as_str());
                self.record.stamps.push((path, Stamp::of(&meta)));
                true
            }
            _ => false,
        };
        probed.put(parent, exists);
        exists
    }

    fn list_rule_dir(
        &mut self,
        folder: &Utf8Path,
        suffix: &str,
        recursive: bool,
        files: &mut Vec<Utf8PathBuf>,
        visited: &mut HashSet<Utf8PathBuf>,
    ) {
        let real = match real_within(folder, self.boundary) {
            Ok(Real::Inside(real)) => real,
            Ok(Real::NotUtf8(_)) => {
                return self.skip(
                    folder,
                    SkipReason::NotUtf8,
                    "the folder's real path is not UTF-8",
                );
            }
            Ok(Real::Outside(real)) => {
                return self.skip(
                    folder,
                    SkipReason::OutsideRoot,
                    &format!("this rule folder resolves to {real}, outside the project root"),
                );
            }
            Err(err) if is_absent(&err) => return,
            Err(err) => return self.unreadable(folder, &err),
        };
        if !visited.insert(real.clone()) {
            // A symlink loop or a second link to the same folder.
            return;
        }
        let meta = match fs::metadata(&real) {
            Ok(meta) if meta.is_dir() => meta,
            Ok(_) => return,
            Err(err) => return self.unreadable(folder, &err),
        };
        self.record.stamps.push((real, Stamp::of(&meta)));
        let entries = match fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(err) => return self.unreadable(folder, &err),
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    self.unreadable(folder, &err);
                    continue;
                }
            };
            let Ok(path) = Utf8PathBuf::from_path_buf(entry.path()) else {
                // Shown like every other file: root-relative when inside.
                let path = entry.path();
                let lossy = path
                    .strip_prefix(self.engine.root.as_std_path())
                    .map(|rel| rel.display().to_string())
                    .unwrap_or_else(|_| path.display().to_string());
                self.complete = false;
                self.out.skipped.push(SkippedRule {
                    file: lossy,
                    reason: SkipReason::NotUtf8,
                    detail:
                        "the file name is not UTF-8, so it cannot be matched or shown; rename it"
                            .to_owned(),
                    source: self.source_name.to_owned(),
                });
                continue;
            };
            // The entry's type comes with the listing; only a link needs a
            // stat to know what it points at.
            let is_dir = match entry.file_type() {
                Ok(kind) if kind.is_symlink() => fs::metadata(&path).is_ok_and(|m| m.is_dir()),
                Ok(kind) => kind.is_dir(),
                Err(_) => fs::metadata(&path).is_ok_and(|m| m.is_dir()),
            };
            if is_dir {
                if recursive {
                    self.list_rule_dir(&path, suffix, recursive, files, visited);
                }
            } else if path.as_str().ends_with(suffix) {
                files.push(path);
            }
        }
    }

    /// Decides one candidate file.
    pub(crate) fn judge(
        &mut self,
        source: &dyn RuleSource,
        candidate: &Utf8Path,
        meta: fs::Metadata,
    ) {
        // A candidate directly in the scanned directory has a real path
        // already; one below a folder (`.claude/`, a rule folder) may reach
        // outside through a linked folder, so it is resolved and contained.
        let direct = candidate.parent().is_some_and(|p| p.as_str() == self.dir);
        let (real, meta) = if meta.file_type().is_symlink() || !direct {
            let real = match real_within(candidate, self.boundary) {
                Ok(Real::Inside(real)) => real,
                Ok(Real::NotUtf8(_)) => {
                    return self.skip(
                        candidate,
                        SkipReason::NotUtf8,
                        "the link target's path is not UTF-8",
                    );
                }
                Ok(Real::Outside(real)) => {
                    return self.skip(
                        candidate,
                        SkipReason::OutsideRoot,
                        &format!(
                            "this path resolves to {real}, outside {}; it is not read",
                            self.boundary
                        ),
                    );
                }
                Err(err) => return self.unreadable(candidate, &err),
            };
            match fs::metadata(&real) {
                Ok(meta) => (real, meta),
                Err(err) => return self.unreadable(candidate, &err),
            }
        } else {
            (candidate.to_owned(), meta)
        };
        if !meta.is_file() {
            return self.skip(
                candidate,
                SkipReason::Unreadable,
                &format!(
                    "not a regular file ({}), so it is not read",
                    crate::open::describe(&meta)
                ),
            );
        }
        let stamp = Stamp::of(&meta);
        self.record.stamps.push((real.clone(), stamp));
        let previous = self.state.loaded.get(real.as_str()).copied();
        if previous == Some(stamp) {
            let here = format!("{} ({})", self.engine.display(candidate), source.name());
            let detail = match self.state.origins.get(real.as_str()) {
                // One file, one block: a second arrival (an import, another
                // convention, a link) names the first.
                Some(first) if *first != here => format!(
                    "already in the context and unchanged since it was read: it came in as \
                     {first}"
                ),
                _ => "already in the context and unchanged since it was read".to_owned(),
            };
            return self.skip(candidate, SkipReason::AlreadyLoaded, &detail);
        }

        let cached = match self.state.parsed.get(real.as_str()) {
            Some((cached, parsed)) if *cached == stamp => parsed.clone(),
            _ => {
                let parsed = read_rule(&real, &meta, source, self.engine.max_rule_bytes);
                // A passing failure is not remembered: the next touch reads
                // the file again. Anything else is kept until the file
                // changes, so a broken rule costs one parse, not one per touch.
                if !matches!(&parsed, Err(rejection) if rejection.transient) {
                    self.state
                        .parsed
                        .insert(real.to_string(), (stamp, parsed.clone()));
                }
                parsed
            }
        };
        let parsed = match cached {
            Ok(parsed) => parsed,
            Err(rejection) => {
                if rejection.transient {
                    // The directory must be judged again next time.
                    self.complete = false;
                }
                return self.skip(candidate, rejection.reason, &rejection.detail);
            }
        };

        let (attribution, scope, detail) = match &parsed.scope {
            RuleScope::Always if self.startup => (Attribution::SessionStart, None, None),
            RuleScope::Always => (Attribution::NestedTraversal, None, None),
            RuleScope::Manual(why) => {
                return self.skip(candidate, SkipReason::ManualOnly, why);
            }
            RuleScope::Excluded(why) => {
                return self.skip(candidate, SkipReason::ExcludedAgent, why);
            }
            RuleScope::Paths(compiled) => {
                let decision = self.matcher.decide(compiled);
                if !decision.matched {
                    // Not for this file, maybe for the next one here: the
                    // directory must stay unscanned.
                    self.complete = false;
                    return self.skip(candidate, SkipReason::ScopeMiss, &decision.detail);
                }
                (
                    if self.startup {
                        Attribution::SessionStart
                    } else {
                        Attribution::PathGlobMatch
                    },
                    Some(compiled.patterns().to_vec()),
                    Some(decision.detail),
                )
            }
        };

        let tier = self.tier.map(|tier| {
            if tier == Tier::Project && source.is_local(candidate) {
                Tier::Local
            } else {
                tier
            }
        });
        let file = self.engine.display(candidate);
        let mut warnings = parsed.warnings.clone();
        let mut content = parsed.body.clone();
        let mut includes = Vec::new();
        let mut imported = Vec::new();
        // Imports are expanded at load time (not cached with the parse), so an
        // imported file edited since is read as it is now.
        if source.imports() == Imports::At && content.contains('@') {
            let policy = if tier == Some(Tier::User) {
                self.engine
                    .import_policy
                    .clone()
                    .with_allow_home(true)
                    .with_home_dir(self.boundary.parent().map(|h| h.as_std_path().to_owned()))
            } else {
                self.engine.import_policy.clone()
            };
            let expansion = jit_imports::expand(
                real.as_std_path(),
                &content,
                self.boundary.as_std_path(),
                &policy,
            );
            warnings.extend(expansion.diagnostics.iter().map(ToString::to_string));
            for record in expansion.included() {
                let Some(resolved) = record
                    .resolved
                    .as_ref()
                    .and_then(|p| Utf8PathBuf::from_path_buf(p.clone()).ok())
                else {
                    continue;
                };
                let from = Utf8PathBuf::from_path_buf(record.from.clone())
                    .map(|p| self.engine.display(&p))
                    .unwrap_or_else(|p| p.display().to_string());
                imported.push((resolved.clone(), from.clone()));
                includes.push(LoadedRule {
                    file: self.engine.display(&resolved),
                    attribution: Attribution::Include,
                    // Its text is inlined in the including rule's block and
                    // counted there; it has no block of its own.
                    bytes: 0,
                    decision: LoadKind::Loaded,
                    source: source.name().to_owned(),
                    scope: None,
                    detail: Some(format!(
                        "imported by `@{}` in {from}: {} bytes inlined into its block",
                        record.target, record.bytes
                    )),
                    included_by: Some(from),
                    tier,
                    warnings: Vec::new(),
                    content: String::new(),
                });
            }
            content = expansion.expanded;
        }
        if self.startup
            && matches!(tier, Some(Tier::Project | Tier::Local))
            && let Some(budget) = source.startup_budget()
        {
            let spent = self
                .state
                .startup_spent
                .get(source.name())
                .copied()
                .unwrap_or(0);
            let bytes = content.len() as u64;
            if spent + bytes > budget {
                // Not for the startup chain, but for the first touch of its
                // directory: the directory must be judged again.
                self.complete = false;
                return self.skip(
                    candidate,
                    SkipReason::TooLargeForBudget,
                    &format!(
                        "{bytes} bytes would take the {} startup chain to {} bytes, over its \
                         budget of {budget}; it loads when a file in its directory is touched",
                        source.name(),
                        spent + bytes
                    ),
                );
            }
            self.state
                .startup_spent
                .insert(source.name().to_owned(), spent + bytes);
        }
        // The files imported into this block are in the context too: a
        // convention that names one of them later finds it already loaded.
        for (resolved, from) in imported {
            let real_import = fs::canonicalize(&resolved)
                .ok()
                .and_then(|p| Utf8PathBuf::from_path_buf(p).ok())
                .unwrap_or(resolved);
            if real_import == real {
                continue;
            }
            let key = real_import.to_string();
            if self.state.loaded.contains_key(&key) {
                let ours = self.state.imported_by.get(&key) == Some(&real.to_string());
                if !ours && let Some(first) = self.state.origins.get(&key) {
                    // Its text is in the context twice now; say so rather
                    // than hide it.
                    warnings.push(format!(
                        "`{}` is already in the context (it came in as {first}); this block \
                         inlines its text a second time",
                        self.engine.display(&real_import)
                    ));
                }
                continue;
            }
            if let Ok(meta) = fs::metadata(&real_import) {
                self.state.loaded.insert(key.clone(), Stamp::of(&meta));
                self.state
                    .set_origin(&key, format!("an import in {from} ({})", source.name()));
                self.state.imported_by.insert(key, real.to_string());
            }
        }
        // The including rule's block carries the imported text, so its bytes
        // are the whole block and the bytes of one discovery add up to what
        // was injected.
        self.state
            .set_origin(real.as_str(), format!("{file} ({})", source.name()));
        self.state.imported_by.remove(real.as_str());
        self.state.loaded.insert(real.into_string(), stamp);
        self.out.loaded.push(LoadedRule {
            file,
            attribution,
            bytes: content.len(),
            decision: if previous.is_some() {
                LoadKind::Replaced
            } else {
                LoadKind::Loaded
            },
            source: source.name().to_owned(),
            scope,
            detail,
            included_by: None,
            tier,
            warnings,
            content,
        });
        self.out.loaded.extend(includes);
    }

    fn skip(&mut self, candidate: &Utf8Path, reason: SkipReason, detail: &str) {
        self.out.skipped.push(SkippedRule {
            file: self.engine.display(candidate),
            reason,
            detail: detail.to_owned(),
            source: self.source_name.to_owned(),
        });
    }

    fn unreadable(&mut self, candidate: &Utf8Path, err: &io::Error) {
        // An I/O error may be passing: judge this directory again next time.
        self.complete = false;
        self.skip(
            candidate,
            SkipReason::Unreadable,
            &format!("cannot read: {err}"),
        );
    }
}

fn is_absent(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}
