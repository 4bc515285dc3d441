//! The startup load: managed, user and project rules that must be there before any tool runs.

use std::cell::OnceCell;
use std::fs;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{ChangeSet, ChangeSource, Signals, resolve_parents, startup_signals};
use serde::Serialize;

use super::chain::{Level, is_entry_name};
use super::index::{self, IndexEntry, IndexOverflow, ProjectWalk, WalkCache, WalkCacheReport};
use super::scan::DirScan;
use super::{Discovery, DiscoveryState, Engine};
use crate::rule::scope::{ScopeMatcher, SignalList, SignalMatcher};
use crate::rule::source::default_managed_path;
use crate::rule::{LoadedRule, SkippedRule, Tier};

/// Where a session starts, and where its signals come from.
///
/// ```
/// use jit_core::StartupOptions;
/// let options = StartupOptions::new("/work/proj/src/ui").with_home(Some("/home/me".into()));
/// assert_eq!(options.cwd, "/work/proj/src/ui");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct StartupOptions {
    /// The session's working directory (absolute, or relative to the root).
    pub cwd: Utf8PathBuf,
    /// The home directory under which each source's user level lives
    /// (`.claude/`, `.codex/`); `None` skips the user tier.
    pub home: Option<Utf8PathBuf>,
    /// The managed rule file, judged with the first source that has a
    /// managed tier (in its place); `None` skips the managed tier. Defaults
    /// to [`default_managed_path`].
    pub managed: Option<Utf8PathBuf>,
    /// Where changed files come from (git, through `jit-git`); `None` means
    /// the cwd marker is the only signal.
    pub changes: Option<Arc<dyn ChangeSource>>,
    /// How long the change source may take (default
    /// [`DEFAULT_CHANGE_DEADLINE`]). Past it the startup load goes on with
    /// the cwd marker only, and says so (`git_timeout`).
    pub change_deadline: Duration,
    /// The byte bound of the rule index, or `None` (the default) for no
    /// index. See [`StartupOptions::with_index`].
    pub index_bytes: Option<usize>,
    /// A walk of the project already made (to detect its conventions),
    /// which the rule index reuses instead of walking again. See
    /// [`StartupOptions::with_walk`].
    pub walk: Option<Arc<ProjectWalk>>,
    /// Where the rule index's walk keeps its listings between sessions,
    /// when it walks (no [`StartupOptions::walk`] stands in). See
    /// [`StartupOptions::with_walk_cache`].
    pub walk_cache: Option<WalkCache>,
}

/// How long the startup load waits for changed files: 2 s. A status of a
/// 100,000-file repository takes a fraction of that; a `.git/HEAD` or index
/// that is a FIFO, or a hung network filesystem, would otherwise stall the
/// session start for good.
pub const DEFAULT_CHANGE_DEADLINE: Duration = Duration::from_secs(2);

impl std::fmt::Debug for StartupOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartupOptions")
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("managed", &self.managed)
            .field("changes", &self.changes.as_ref().map(|_| "<change source>"))
            .field("change_deadline", &self.change_deadline)
            .field("index_bytes", &self.index_bytes)
            .field("walk", &self.walk.as_ref().map(|_| "<project walk>"))
            .field("walk_cache", &self.walk_cache)
            .finish()
    }
}

impl StartupOptions {
    /// Options for a session in `cwd`, with the platform's managed file, no
    /// home directory and no change source.
    pub fn new(cwd: impl Into<Utf8PathBuf>) -> Self {
        StartupOptions {
            cwd: cwd.into(),
            home: None,
            managed: default_managed_path(),
            changes: None,
            change_deadline: DEFAULT_CHANGE_DEADLINE,
            index_bytes: None,
            walk: None,
            walk_cache: None,
        }
    }

    /// Lets the rule index reuse `walk` (the one that detected the
    /// conventions) instead of walking the project again. It is used only
    /// when it walked this engine's root for the same candidate names as
    /// the engine's sources; otherwise the index walks as without it.
    pub fn with_walk(mut self, walk: Arc<ProjectWalk>) -> Self {
        self.walk = Some(walk);
        self
    }

    /// Lets the rule index's walk of the project (when no
    /// [`StartupOptions::with_walk`] stands in for it) keep its listings in
    /// `cache`, so the next session's walk lists again only the directories
    /// that changed. [`StartupReport::walk_cache`] says what it did.
    pub fn with_walk_cache(mut self, cache: WalkCache) -> Self {
        self.walk_cache = Some(cache);
        self
    }

    /// Builds the rule index ([`StartupReport::index`]) bounded to `bytes`
    /// (the default bound is [`crate::DEFAULT_INDEX_BYTES`], 2 KiB).
    pub fn with_index(mut self, bytes: usize) -> Self {
        self.index_bytes = Some(bytes);
        self
    }

    /// Sets how long the change source may take.
    pub fn with_change_deadline(mut self, deadline: Duration) -> Self {
        self.change_deadline = deadline;
        self
    }

    /// Sets the home directory (`$HOME`) for user rules.
    pub fn with_home(mut self, home: Option<Utf8PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// Sets the managed rule file.
    pub fn with_managed(mut self, managed: Option<Utf8PathBuf>) -> Self {
        self.managed = managed;
        self
    }

    /// Sets the change source.
    pub fn with_changes(mut self, changes: Arc<dyn ChangeSource>) -> Self {
        self.changes = Some(changes);
        self
    }
}

/// What the startup load brought in, and why the rest stayed out.
///
/// ```
/// use jit_core::{DEFAULT_INDEX_BYTES, DiscoveryState, Engine, StartupOptions};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("docs"))?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// std::fs::write(dir.path().join("docs/CLAUDE.md"), "British spelling.\n")?;
/// let engine = Engine::new(dir.path())?;
///
/// // At the root, the nested rule is not loaded; the index names it.
/// let options = StartupOptions::new(engine.root())
///     .with_managed(None)
///     .with_index(DEFAULT_INDEX_BYTES);
/// let report = engine.startup(&mut DiscoveryState::default(), &options);
/// assert_eq!(report.loaded.len(), 1);
/// assert_eq!(report.loaded[0].file, "CLAUDE.md");
/// assert_eq!((report.index[0].file.as_str(), report.index[0].bytes), ("docs/CLAUDE.md", 18));
/// assert!(report.index_overflow.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StartupReport {
    /// The scope signals: the cwd marker (`src/ui/`, none at the root) and
    /// the changed files inside the cwd subtree.
    pub signals: Vec<String>,
    /// Rules loaded, in load order: managed, user, then the project from the
    /// root down to the cwd.
    pub loaded: Vec<LoadedRule>,
    /// Candidates not loaded, with reasons (`scope_miss` details name the signals).
    pub skipped: Vec<SkippedRule>,
    /// Things a user may want to know (for example why git gave no signals).
    pub diagnostics: Vec<String>,
    /// Wall time in microseconds.
    pub elapsed_us: u64,
    /// Whether the change source (git) was asked for changed files: only
    /// when a scoped rule on the startup load needed the signals. When
    /// false, `signals` holds the cwd marker alone.
    pub changed_files_read: bool,
    /// The rule index: rules that exist in the project but were not loaded,
    /// in a compact form (file, convention, scope or description, size),
    /// within [`StartupOptions::index_bytes`]. Empty unless asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub index: Vec<IndexEntry>,
    /// The rules left out of the index past its byte bound, counted per
    /// directory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub index_overflow: Vec<IndexOverflow>,
    /// What the rule index's project walk did with its [`WalkCache`]: the
    /// directories it visited and how many listings it reused; `None`
    /// without a cache. Not serialised: it changes from one run to the
    /// next. A problem with the cache is in `diagnostics` too.
    #[serde(skip)]
    pub walk_cache: Option<WalkCacheReport>,
}

impl Engine {
    /// Runs the startup load into `state`: everything it loads counts as in
    /// the context, so JIT discovery never injects it twice, and rules whose
    /// scope no signal matches stay for JIT to find.
    ///
    /// ```
    /// use jit_core::{DiscoveryState, Engine, StartupOptions};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("src/ui"))?;
    /// std::fs::write(dir.path().join("CLAUDE.md"), "root\n")?;
    /// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "---\npaths: src/ui/**\n---\nui\n")?;
    /// let engine = Engine::new(dir.path())?;
    ///
    /// let mut state = DiscoveryState::default();
    /// let options = StartupOptions::new(engine.root().join("src/ui")).with_managed(None);
    /// let report = engine.startup(&mut state, &options);
    /// assert_eq!(report.signals, ["src/ui/"]);
    /// assert_eq!(report.loaded.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn startup(&self, state: &mut DiscoveryState, options: &StartupOptions) -> StartupReport {
        let started = Instant::now();
        let mut report = StartupReport::default();

        let cwd = if options.cwd.is_absolute() {
            resolve_parents(&options.cwd)
        } else {
            resolve_parents(&self.root().join(&options.cwd))
        };
        let bounded = options.changes.as_ref().map(|inner| WithDeadline {
            inner: Arc::clone(inner),
            deadline: options.change_deadline,
        });
        // The change source (a git status, the costly part on a big
        // repository) runs only when a scoped rule asks for the signals.
        let lazy = LazySignals {
            root: self.root(),
            cwd: &cwd,
            source: bounded.as_ref().map(|b| b as &dyn ChangeSource),
            computed: OnceCell::new(),
        };
        let cwd_rel = self.locate(&cwd).unwrap_or_default();
        let matcher = SignalMatcher::new(&lazy);
        let mut out = Discovery::default();

        state.startup_spent.clear();
        // Managed, then user: outside the project, each bounded by its own
        // folder. Then the project, from the root down to the cwd.
        self.load_managed(state, &matcher, &mut out, options.managed.as_ref());
        self.load_user_tiers(state, &matcher, &mut out, options.home.as_deref());
        self.load_project_chain(state, &matcher, &mut out, &cwd_rel);

        report.changed_files_read = lazy.computed.get().is_some() && lazy.source.is_some();
        let computed = match lazy.computed.into_inner() {
            Some(computed) => computed,
            None => startup_signals(self.root(), &cwd, None),
        };
        report.signals = computed.signals;
        report.diagnostics.extend(computed.fallback_reason);
        report.diagnostics.extend(computed.diagnostics);

        report.loaded = out.loaded;
        report.skipped = out.skipped;
        if let Some(bytes) = options.index_bytes {
            let walk = options.walk.as_deref();
            let cache = options.walk_cache.as_ref();
            let index = index::build(self, state, &report, bytes, walk, cache);
            report.index = index.entries;
            report.index_overflow = index.overflow;
            if let Some(problem) = index.cache.as_ref().and_then(|c| c.problem.as_ref()) {
                report.diagnostics.push(format!("walk cache: {problem}"));
            }
            report.walk_cache = index.cache;
        }
        report.elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        report
    }

    /// Loads the managed files; the options' managed file stands in for
    /// the managed files of the first source that has any.
    fn load_managed(
        &self,
        state: &mut DiscoveryState,
        matcher: &dyn ScopeMatcher,
        out: &mut Discovery,
        managed_option: Option<&Utf8PathBuf>,
    ) {
        let mut managed_given = false;
        for source in self.sources() {
            let source = source.as_ref();
            if source.managed_files().is_empty() {
                continue;
            }
            let files: Vec<Utf8PathBuf> = if managed_given {
                source.managed_files().to_vec()
            } else {
                managed_given = true;
                managed_option.into_iter().cloned().collect()
            };
            for managed in &files {
                if let Ok(meta) = fs::symlink_metadata(managed)
                    && let Some(boundary) = managed.parent().and_then(canonical)
                {
                    let mut scan = DirScan::new(self, state, matcher, out);
                    scan.boundary = &boundary;
                    scan.startup = true;
                    scan.tier = Some(Tier::Managed);
                    scan.source_name = source.name();
                    scan.judge(source, managed, meta);
                }
            }
        }
    }

    /// Loads each source's user tier under `home` and records it in the
    /// state, so its scoped rules are judged on every touch after.
    fn load_user_tiers(
        &self,
        state: &mut DiscoveryState,
        matcher: &dyn ScopeMatcher,
        out: &mut Discovery,
        home: Option<&Utf8Path>,
    ) {
        // A user folder (`~/.claude`) is often a link into a dotfiles
        // repository: its real location is the boundary. It is named by
        // folders below the home directory, never by a path that climbs out
        // of it or starts elsewhere.
        for source in self.sources() {
            let source = source.as_ref();
            let (Some(home), Some(level)) = (home, source.user_level()) else {
                continue;
            };
            if !level.dir.split('/').all(is_entry_name) {
                out.skipped.push(SkippedRule {
                    file: home.join(&level.dir).to_string(),
                    reason: crate::SkipReason::OutsideRoot,
                    detail: format!(
                        "the user folder `{}` is not a folder below the home directory {home}; \
                         its rules are not read",
                        level.dir
                    ),
                    source: source.name().to_owned(),
                });
                continue;
            }
            let Some(user) = canonical(&home.join(&level.dir)) else {
                continue;
            };
            let user: Arc<str> = Arc::from(user.as_str());
            let entry = (source.name().to_owned(), Arc::clone(&user));
            if !state.user_tiers.contains(&entry) {
                state.user_tiers.push(entry);
            }
            let mut scan = DirScan::new(self, state, matcher, out);
            scan.startup = true;
            scan.run_user_tier(source, &user);
        }
    }

    /// Loads the project's rules in each directory from the root down to
    /// `cwd_rel`; a level outside the root gets an `outside_root` row.
    fn load_project_chain(
        &self,
        state: &mut DiscoveryState,
        matcher: &dyn ScopeMatcher,
        out: &mut Discovery,
        cwd_rel: &Utf8Path,
    ) {
        self.refresh_watch();
        let (levels, stamps) = self.resolve_chain(state, cwd_rel);
        let mut scan = DirScan::new(self, state, matcher, out);
        scan.startup = true;
        scan.tier = Some(Tier::Project);
        for (i, level) in levels.iter().enumerate() {
            match &level.level {
                Level::Inside(real) => scan.run(real, stamps.get(i).copied().flatten()),
                Level::Outside(real) => scan.out.skipped.push(SkippedRule {
                    file: level.lex.to_string(),
                    reason: crate::SkipReason::OutsideRoot,
                    detail: format!("this directory resolves to {real}, outside the project root"),
                    source: String::new(),
                }),
                Level::Missing => break,
            }
        }
    }
}

/// A change source that answers within a deadline or not at all: the
/// inner source runs on its own thread, and past the deadline the answer is
/// a `git_timeout` error (the thread is left to finish or stay blocked on
/// its own; the session does not wait for it). Any error of the inner
/// source is a `git_error`.
struct WithDeadline {
    inner: Arc<dyn ChangeSource>,
    deadline: Duration,
}

impl ChangeSource for WithDeadline {
    fn changed_files(
        &self,
        root: &Utf8Path,
    ) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
        let (send, receive) = mpsc::channel();
        let inner = Arc::clone(&self.inner);
        let root_owned = root.to_owned();
        let spawned = std::thread::Builder::new()
            .name("jit-change-source".to_owned())
            .spawn(move || {
                let answer = inner
                    .changed_files(&root_owned)
                    .map_err(|err| err.to_string());
                // The receiver may have given up; nothing to do then.
                let _ = send.send(answer);
            });
        if let Err(err) = spawned {
            return Err(format!("git_error: cannot start the change source: {err}").into());
        }
        match receive.recv_timeout(self.deadline) {
            Ok(Ok(changes)) => Ok(changes),
            Ok(Err(err)) => Err(format!("git_error: {err}").into()),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
                "git_timeout: no answer within {} ms (a named pipe in .git, or a hung \
                 filesystem?)",
                self.deadline.as_millis()
            )
            .into()),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err("git_error: the change source stopped without an answer".into())
            }
        }
    }
}

fn canonical(path: &Utf8Path) -> Option<Utf8PathBuf> {
    Utf8PathBuf::from_path_buf(fs::canonicalize(path).ok()?).ok()
}

/// The startup signals, computed the first time a scoped rule asks for
/// them: a repository whose startup load has no scoped rule never runs its
/// change source.
struct LazySignals<'a> {
    root: &'a Utf8Path,
    cwd: &'a Utf8Path,
    source: Option<&'a dyn ChangeSource>,
    computed: OnceCell<Signals>,
}

impl SignalList for LazySignals<'_> {
    fn signals(&self) -> &[String] {
        &self
            .computed
            .get_or_init(|| startup_signals(self.root, self.cwd, self.source))
            .signals
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::fs;

    use crate::{Attribution, DiscoveryState, Engine, StartupOptions, StartupReport};

    /// A project with `src/` and one rule scoped to it.
    fn rust_rule() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".claude/rules")).unwrap();
        fs::create_dir_all(dir.path().join("src")).unwrap();
        fs::write(
            dir.path().join(".claude/rules/rs.md"),
            "---\npaths: [\"src/**\"]\n---\nRust.\n",
        )
        .unwrap();
        dir
    }

    /// The startup load of a session whose cwd is `src`, with no managed
    /// policy and no change source.
    fn start_in_src(dir: &tempfile::TempDir) -> StartupReport {
        let engine = Engine::new(dir.path()).unwrap();
        let options = StartupOptions::new(engine.root().join("src")).with_managed(None);
        engine.startup(&mut DiscoveryState::default(), &options)
    }

    /// Without a change source, the startup load reads no changed files,
    /// even when a scoped rule asks for the signals: the cwd marker alone.
    #[test]
    fn without_a_change_source_no_changed_files_are_read() {
        let dir = rust_rule();
        let report = start_in_src(&dir);
        assert!(!report.changed_files_read);
        assert_eq!(report.signals, ["src/"]);
        assert_eq!(report.loaded[0].file, ".claude/rules/rs.md");
    }

    /// What the startup load brings in is attributed to the session's
    /// start, an unscoped rule as well as a scoped one its signals match.
    #[test]
    fn the_startup_load_is_attributed_to_the_session_start() {
        let dir = rust_rule();
        fs::write(dir.path().join("CLAUDE.md"), "Always.\n").unwrap();
        let report = start_in_src(&dir);
        let mut loaded: Vec<(&str, Attribution)> = report
            .loaded
            .iter()
            .map(|rule| (rule.file.as_str(), rule.attribution))
            .collect();
        loaded.sort_by_key(|(file, _)| *file);
        assert_eq!(
            loaded,
            [
                (".claude/rules/rs.md", Attribution::SessionStart),
                ("CLAUDE.md", Attribution::SessionStart),
            ]
        );
    }
}
