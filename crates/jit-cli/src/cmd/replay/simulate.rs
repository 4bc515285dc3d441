//! Runs a transcript's calls through sessions of the engine and compares three strategies over them: eager, native and just in time.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Attribution, Discovery, Engine, Registry, RuleSource, Session, SessionConfig, SkipReason,
    StartupOptions, ToolCall,
};
use serde::Serialize;
use serde_json::Value;

use super::transcript::{Channel, Format, Item, Trace};
use crate::cmd::hook::AgentKind;

/// How a replay runs.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// The checkout the session replays on.
    pub root: Utf8PathBuf,
    /// Path prefixes rewritten before anything is resolved: a transcript
    /// recorded elsewhere replays on `root`.
    pub maps: Vec<(Utf8PathBuf, Utf8PathBuf)>,
    /// Where the sessions' events are appended, if anywhere.
    pub events: Option<Utf8PathBuf>,
    /// Whether the startup load runs first (the unconditional rules).
    pub startup: bool,
    /// The conventions `--conventions` names (`None`: `jit.toml`'s, else
    /// the ones found in the checkout, with the agent's own).
    pub conventions: Option<Vec<String>>,
}

/// The `--json` document.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Replay {
    /// One entry per batch of tool calls (step 0: the startup load).
    pub steps: Vec<Step>,
    /// The three strategies compared.
    pub summary: Summary,
}

/// One model turn's tool calls and what JIT did for them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// The step number (0 for the startup load).
    pub step: u64,
    /// The tool names, joined with `+` for a batch of parallel calls.
    pub tool: String,
    /// `main` or `subagent:<id>`.
    pub channel: String,
    /// The paths the calls touched, as discovery shows them (root-relative
    /// inside the project, absolute outside it).
    pub paths: Vec<String>,
    /// Rules injected.
    pub loaded: Vec<Loaded>,
    /// Candidates not injected, with their reasons.
    pub skipped: Vec<Skipped>,
    /// Each call's tool name, in order.
    pub tools: Vec<String>,
    /// Rule bytes resident in this channel's context after the step.
    pub resident_bytes: u64,
}

impl Step {
    /// How many candidates were skipped for each reason, in order of first
    /// appearance: the compact form the timelines show.
    pub(crate) fn skip_counts(&self) -> Vec<(SkipReason, usize)> {
        let mut counts: Vec<(SkipReason, usize)> = Vec::new();
        for skipped in &self.skipped {
            match counts.iter_mut().find(|(r, _)| *r == skipped.reason) {
                Some((_, n)) => *n += 1,
                None => counts.push((skipped.reason, 1)),
            }
        }
        counts
    }
}

/// A rule injected at a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Loaded {
    /// The rule file.
    pub file: String,
    /// Why (`nested_traversal`, `path_glob_match`, `session_start`, ...).
    pub attribution: Attribution,
    /// Bytes injected.
    pub bytes: u64,
}

/// A candidate not injected at a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Skipped {
    /// The candidate file (or the touched path, for `outside_root`).
    pub file: String,
    /// Why (`scope_miss`, `already_loaded`, `outside_root`, ...).
    pub reason: SkipReason,
}

/// The comparison.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Summary {
    /// Tool calls read.
    pub calls: u64,
    /// Batches (model turns with tool calls).
    pub batches: u64,
    /// Calls to tools no table or reporter knows, by name: never guessed.
    pub unknown_tools: BTreeMap<String, u64>,
    /// Every rule file of the project in context from the start.
    pub eager: Eager,
    /// What the transcript shows the agent loaded by itself.
    pub native: Native,
    /// This engine.
    pub jit: Jit,
    /// Rules JIT injected because a tool touched their scope while native
    /// loading had not loaded them, with the first such step.
    pub missed_by_native: Vec<Missed>,
    /// Transcript lines that were malformed or of an unknown type.
    pub skipped_records: u64,
    /// Of those, lines longer than the line cap (64 MiB), read past
    /// unparsed.
    pub lines_over_cap: u64,
    /// The transcript format read.
    pub format: String,
    /// The project root replayed on.
    pub root: String,
    /// Compactions (each re-arms its channel).
    pub compactions: u64,
    /// Touched paths outside the root (after mapping).
    pub outside_root: u64,
    /// Calls whose input their tool's reporter rejected.
    pub malformed_calls: u64,
    /// The channels that ran, `main` first.
    pub channels: Vec<String>,
}

/// The eager strategy.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Eager {
    /// Rule files in the project.
    pub rules: u64,
    /// Their bytes, each file's `@imports` inlined.
    pub bytes: u64,
    /// Those bytes resident at every step: `bytes × steps`.
    pub resident_byte_steps: u64,
}

/// The native strategy.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Native {
    /// Whether the transcript records the agent's own loads.
    pub known: bool,
    /// Distinct rule files the agent loaded itself (0 when unknown).
    pub rules: u64,
    /// Bytes it loaded (each load counted).
    pub bytes: u64,
}

/// The JIT strategy.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Jit {
    /// Distinct rule files injected.
    pub rules: u64,
    /// Bytes injected (each injection counted, re-injections after a
    /// compaction too).
    pub bytes: u64,
    /// Median rule bytes resident per step.
    pub resident_p50: u64,
    /// Most rule bytes resident at any step.
    pub resident_max: u64,
    /// Resident bytes summed over the steps (comparable with eager's).
    pub resident_byte_steps: u64,
    /// Rule files of the project JIT never needed to inject.
    pub never_relevant: u64,
}

/// A rule native loading missed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Missed {
    /// The rule file.
    pub file: String,
    /// The first step at which a tool touched its scope unloaded.
    pub first_step: u64,
    /// The path that touched it.
    pub trigger: String,
}

/// The agent whose tool names the trace uses; `None` for registered names.
fn agent_of(format: Option<Format>) -> Option<AgentKind> {
    match format {
        Some(Format::Codex) => Some(AgentKind::Codex),
        Some(Format::Generic) => None,
        _ => Some(AgentKind::ClaudeCode),
    }
}

/// The rule sources a replay runs for the trace's agent.
fn sources(format: Option<Format>) -> Vec<Box<dyn RuleSource>> {
    match agent_of(format) {
        Some(agent) => crate::cmd::hook::sources(agent),
        None => crate::cmd::hook::sources(AgentKind::Codex),
    }
}

/// The engine a replay of `trace` runs on: its conventions, watching the
/// tree.
fn engine(trace: &Trace, options: &Options) -> anyhow::Result<Arc<Engine>> {
    let engine = Engine::new(&options.root)?;
    let conventions = crate::conventions::resolve(engine.root(), options.conventions.as_deref())?
        .with_own(sources(trace.format));
    let mut engine = engine.with_sources(conventions.sources);
    // Thousands of touches in one process: the watch answers their
    // freshness checks without a `stat` each, deciding the same. Where the
    // kernel refuses one (off Linux, out of inotify instances), the engine
    // keeps to `stat`, which decides the same too.
    let _ = engine.watch();
    Ok(Arc::new(engine))
}

/// Replays `trace` on `options.root`.
pub(crate) fn replay(trace: &Trace, options: &Options) -> anyhow::Result<Replay> {
    let engine = engine(trace, options)?;
    let root = engine.root().to_owned();
    let registry = Arc::new(Registry::checked()?);
    let mut config = SessionConfig::new().with_registry(Arc::clone(&registry));
    if let Some(events) = &options.events {
        config = config.with_event_log(events.clone());
    }
    let agent = agent_of(trace.format);
    let mapper = Mapper::new(&options.maps);
    let first_cwd = trace
        .first_cwd
        .as_deref()
        .map(|c| mapper.path(c))
        .filter(|c| c.starts_with(&root))
        .unwrap_or_else(|| root.clone());

    let mut run = Run {
        engine: Arc::clone(&engine),
        registry,
        main: Session::new(Arc::clone(&engine), config),
        subagents: BTreeMap::new(),
        steps: Vec::new(),
        step: 0,
        last_step: HashMap::new(),
        native_first: HashMap::new(),
        native_bytes: 0,
        injections: Vec::new(),
        summary_counts: Counts::default(),
        startup: options.startup,
        first_cwd: first_cwd.clone(),
    };
    if options.startup {
        let report = run.main.startup(&startup_options(&first_cwd));
        run.push_startup(&Channel::Main, &report);
    }
    for item in &trace.items {
        match item {
            Item::Batch {
                channel,
                cwd,
                calls,
            } => {
                let cwd = cwd
                    .as_deref()
                    .map(|c| mapper.path(c))
                    .unwrap_or_else(|| first_cwd.clone());
                let calls: Vec<(String, Value)> = calls
                    .iter()
                    .map(|c| (c.tool.clone(), mapper.value(&c.input)))
                    .collect();
                run.batch(agent, channel, &cwd, &calls);
            }
            Item::Compact { channel } => {
                run.summary_counts.compactions += 1;
                run.session(channel).rearm();
            }
            Item::Native {
                channel: _,
                path,
                bytes,
            } => {
                let path = mapper.path(path);
                let path = if path.is_absolute() {
                    path
                } else {
                    first_cwd.join(path)
                };
                let file = engine.display(&path);
                let step = run.step;
                run.native_first.entry(file).or_insert(step);
                run.native_bytes += bytes;
            }
        }
    }

    run.events_written()?;
    let eager = eager(&engine);
    Ok(run.finish(trace, eager))
}

fn startup_options(cwd: &Utf8Path) -> StartupOptions {
    // A past session: today's git changes say nothing about it, and the
    // user's own and managed files are not the project's.
    StartupOptions::new(cwd.to_owned())
        .with_home(None)
        .with_managed(None)
}

#[derive(Debug, Default)]
struct Counts {
    calls: u64,
    batches: u64,
    unknown_tools: BTreeMap<String, u64>,
    compactions: u64,
    outside_root: u64,
    malformed_calls: u64,
}

/// A replay in progress.
struct Run {
    engine: Arc<Engine>,
    registry: Arc<Registry>,
    main: Session,
    subagents: BTreeMap<String, Session>,
    steps: Vec<Step>,
    step: u64,
    /// Each channel's latest step, for its resident bytes.
    last_step: HashMap<Channel, u64>,
    /// Rule file → the step after which the agent first loaded it itself.
    native_first: HashMap<String, u64>,
    native_bytes: u64,
    /// (step, file, attribution, trigger) of every JIT injection.
    injections: Vec<(u64, String, Attribution, String)>,
    summary_counts: Counts,
    startup: bool,
    first_cwd: Utf8PathBuf,
}

impl Run {
    /// An error when a session could not write the events `--events`
    /// asked for (a disk that filled up during the replay).
    fn events_written(&self) -> anyhow::Result<()> {
        crate::cmd::events_written(&self.main)?;
        for session in self.subagents.values() {
            crate::cmd::events_written(session)?;
        }
        Ok(())
    }

    fn session(&mut self, channel: &Channel) -> &mut Session {
        match channel {
            Channel::Main => &mut self.main,
            Channel::Subagent(id) => {
                if !self.subagents.contains_key(id) {
                    let session = self.main.subagent(id.clone());
                    self.subagents.insert(id.clone(), session);
                }
                self.subagents.get_mut(id).unwrap_or(&mut self.main)
            }
        }
    }

    fn push_startup(&mut self, channel: &Channel, report: &jit_core::StartupReport) {
        let resident = self.session(channel).manifest().resident_bytes();
        let step = Step {
            step: self.step,
            tool: "startup".to_owned(),
            channel: channel.label(),
            paths: report.signals.clone(),
            loaded: report
                .loaded
                .iter()
                .filter(|l| l.bytes > 0 || l.included_by.is_none())
                .map(|l| Loaded {
                    file: l.file.clone(),
                    attribution: l.attribution,
                    bytes: l.bytes as u64,
                })
                .collect(),
            skipped: report
                .skipped
                .iter()
                .map(|s| Skipped {
                    file: s.file.clone(),
                    reason: s.reason,
                })
                .collect(),
            tools: Vec::new(),
            resident_bytes: resident,
        };
        for l in &report.loaded {
            self.injections.push((
                self.step,
                l.file.clone(),
                l.attribution,
                report.signals.first().cloned().unwrap_or_default(),
            ));
        }
        self.steps.push(step);
    }

    fn batch(
        &mut self,
        agent: Option<AgentKind>,
        channel: &Channel,
        cwd: &Utf8Path,
        calls: &[(String, Value)],
    ) {
        self.step += 1;
        self.summary_counts.batches += 1;
        self.summary_counts.calls += calls.len() as u64;
        let step_number = self.step;
        let mut step = Step {
            step: step_number,
            tool: calls
                .iter()
                .map(|(t, _)| t.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            channel: channel.label(),
            paths: Vec::new(),
            loaded: Vec::new(),
            skipped: Vec::new(),
            tools: calls.iter().map(|(t, _)| t.clone()).collect(),
            resident_bytes: 0,
        };
        // A sub-agent's context starts with its own startup load.
        if let Channel::Subagent(id) = channel
            && !self.subagents.contains_key(id)
            && self.startup
        {
            let first_cwd = self.first_cwd.clone();
            let report = self.session(channel).startup(&startup_options(&first_cwd));
            for l in &report.loaded {
                step.loaded.push(Loaded {
                    file: l.file.clone(),
                    attribution: l.attribution,
                    bytes: l.bytes as u64,
                });
                self.injections
                    .push((step_number, l.file.clone(), l.attribution, String::new()));
            }
        }
        let mut registered_calls = Vec::new();
        for (tool, input) in calls {
            let registered = match agent {
                Some(agent) => crate::cmd::hook::registered_tool(agent, tool),
                None => self
                    .registry
                    .reported_tools()
                    .find(|name| *name == tool.as_str())
                    .map(|_| tool.as_str()),
            };
            match registered {
                Some(registered) => registered_calls.push(ToolCall::new(registered, input.clone())),
                None => {
                    *self
                        .summary_counts
                        .unknown_tools
                        .entry(tool.clone())
                        .or_insert(0) += 1;
                }
            }
        }
        if !registered_calls.is_empty() {
            // A call whose input is malformed is counted; the good ones of
            // its batch still run.
            let injection = match self
                .session(channel)
                .tool_batch_each(&registered_calls, cwd)
            {
                Ok((injection, malformed)) => {
                    self.summary_counts.malformed_calls += malformed.len() as u64;
                    injection
                }
                Err(_) => None,
            };
            for discovery in injection.iter().flat_map(|i| &i.discoveries) {
                self.take(&mut step, discovery);
            }
        }
        step.resident_bytes = self.session(channel).manifest().resident_bytes();
        self.last_step.insert(channel.clone(), step_number);
        self.steps.push(step);
    }

    fn take(&mut self, step: &mut Step, discovery: &Discovery) {
        if !step.paths.contains(&discovery.trigger) {
            step.paths.push(discovery.trigger.clone());
        }
        for l in &discovery.loaded {
            // An import's text is inside its importer's block.
            if l.included_by.is_some() {
                continue;
            }
            step.loaded.push(Loaded {
                file: l.file.clone(),
                attribution: l.attribution,
                bytes: l.bytes as u64,
            });
            self.injections.push((
                step.step,
                l.file.clone(),
                l.attribution,
                discovery.trigger.clone(),
            ));
        }
        for s in &discovery.skipped {
            if s.reason == SkipReason::OutsideRoot {
                self.summary_counts.outside_root += 1;
            }
            let skipped = Skipped {
                file: s.file.clone(),
                reason: s.reason,
            };
            if !step.skipped.contains(&skipped) {
                step.skipped.push(skipped);
            }
        }
    }

    /// The rules jit injected after a tool reached them that the agent had
    /// not loaded by itself by then, each once, at its first step.
    fn missed_by_native(&self) -> Vec<Missed> {
        let mut missed: Vec<Missed> = Vec::new();
        for (step, file, attribution, trigger) in &self.injections {
            if *attribution == Attribution::SessionStart || *step == 0 {
                continue;
            }
            let loaded_before = self.native_first.get(file).is_some_and(|s| s <= step);
            if !loaded_before && !missed.iter().any(|m| m.file == *file) {
                missed.push(Missed {
                    file: file.clone(),
                    first_step: *step,
                    trigger: trigger.clone(),
                });
            }
        }
        missed
    }

    fn finish(self, trace: &Trace, eager: (u64, u64, Vec<String>)) -> Replay {
        let (eager_rules, eager_bytes, eager_files) = eager;
        let known = trace.records_native;
        let missed = if known {
            self.missed_by_native()
        } else {
            Vec::new()
        };
        let counts = self.summary_counts;
        let steps_run = counts.batches;
        let mut resident: Vec<u64> = self
            .steps
            .iter()
            .filter(|s| s.step > 0)
            .map(|s| s.resident_bytes)
            .collect();
        let resident_byte_steps = resident.iter().sum();
        resident.sort_unstable();
        let resident_p50 = if resident.is_empty() {
            0
        } else {
            resident[(resident.len() - 1) / 2]
        };
        let resident_max = resident.last().copied().unwrap_or(0);

        let mut jit_files: Vec<&str> = self.injections.iter().map(|i| i.1.as_str()).collect();
        jit_files.sort_unstable();
        jit_files.dedup();
        let jit_bytes = self
            .steps
            .iter()
            .flat_map(|s| &s.loaded)
            .map(|l| l.bytes)
            .sum();
        let never_relevant = eager_files
            .iter()
            .filter(|f| jit_files.binary_search(&f.as_str()).is_err())
            .count() as u64;

        let mut channels = vec![Channel::Main.label()];
        channels.extend(
            self.subagents
                .keys()
                .map(|id| Channel::Subagent(id.clone()).label()),
        );

        Replay {
            summary: Summary {
                calls: counts.calls,
                batches: counts.batches,
                unknown_tools: counts.unknown_tools,
                eager: Eager {
                    rules: eager_rules,
                    bytes: eager_bytes,
                    resident_byte_steps: eager_bytes.saturating_mul(steps_run),
                },
                native: Native {
                    known,
                    rules: if known {
                        self.native_first.len() as u64
                    } else {
                        0
                    },
                    bytes: if known { self.native_bytes } else { 0 },
                },
                jit: Jit {
                    rules: jit_files.len() as u64,
                    bytes: jit_bytes,
                    resident_p50,
                    resident_max,
                    resident_byte_steps,
                    never_relevant,
                },
                missed_by_native: missed,
                skipped_records: trace.skipped_records,
                lines_over_cap: trace.lines_over_cap,
                format: trace.format.map_or("auto", Format::name).to_owned(),
                root: self.engine.root().to_string(),
                compactions: counts.compactions,
                outside_root: counts.outside_root,
                malformed_calls: counts.malformed_calls,
                channels,
            },
            steps: self.steps,
        }
    }
}

/// Every rule file of the project by the engine's conventions, walked
/// without following links, `.git` left out: (count, bytes with imports
/// inlined, the files root-relative).
fn eager(engine: &Engine) -> (u64, u64, Vec<String>) {
    /// A project tree deeper than this is not walked further.
    const MAX_DEPTH: usize = 64;
    let mut files = Vec::new();
    let mut bytes = 0;
    let mut stack = vec![(engine.root().to_owned(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        for source in engine.sources() {
            for name in source.files() {
                let path = dir.join(name);
                if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                    files.push(engine.display(&path));
                    bytes += eager_bytes(engine, &path);
                }
            }
            for rule_dir in source.rule_dirs() {
                let mut folders = vec![dir.join(&rule_dir.path)];
                while let Some(folder) = folders.pop() {
                    let Ok(entries) = folder.read_dir_utf8() else {
                        continue;
                    };
                    for entry in entries.filter_map(Result::ok) {
                        let Ok(kind) = entry.file_type() else {
                            continue;
                        };
                        if kind.is_dir() && rule_dir.recursive {
                            folders.push(entry.path().to_owned());
                        } else if kind.is_file() && entry.file_name().ends_with(&rule_dir.suffix) {
                            files.push(engine.display(entry.path()));
                            bytes += eager_bytes(engine, entry.path());
                        }
                    }
                }
            }
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = dir.read_dir_utf8() else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().is_ok_and(|k| k.is_dir()) {
                stack.push((entry.path().to_owned(), depth + 1));
            }
        }
    }
    files.sort();
    files.dedup();
    (files.len() as u64, bytes, files)
}

/// The most of one rule file eager loading is charged for; a larger file
/// is charged this much (the engine refuses such files as `too_large`).
const EAGER_MAX_FILE_BYTES: u64 = 1024 * 1024;

/// What loading `path` up front costs: its text with its `@imports`
/// inlined, as an agent that loads it expands them. Read without blocking;
/// a file that cannot be read costs nothing.
fn eager_bytes(engine: &Engine, path: &Utf8Path) -> u64 {
    use std::io::Read;
    let Ok((file, meta)) = jit_core::open_regular(path.as_std_path()) else {
        return 0;
    };
    if meta.len() > EAGER_MAX_FILE_BYTES {
        return EAGER_MAX_FILE_BYTES;
    }
    let mut text = String::new();
    if file
        .take(EAGER_MAX_FILE_BYTES)
        .read_to_string(&mut text)
        .is_err()
    {
        return meta.len();
    }
    if !text.contains('@') {
        return text.len() as u64;
    }
    let expansion = jit_imports::expand(
        path.as_std_path(),
        &text,
        engine.root().as_std_path(),
        &jit_imports::Policy::default(),
    );
    expansion.expanded.len() as u64
}

/// Rewrites path prefixes in paths and in every string of a tool input.
struct Mapper {
    maps: Vec<(String, String)>,
}

impl Mapper {
    fn new(maps: &[(Utf8PathBuf, Utf8PathBuf)]) -> Self {
        Mapper {
            maps: maps
                .iter()
                .map(|(from, to)| {
                    (
                        from.as_str().trim_end_matches('/').to_owned(),
                        to.as_str().trim_end_matches('/').to_owned(),
                    )
                })
                // `/` maps nothing: as an empty prefix it would rewrite
                // every `/` of every text.
                .filter(|(from, to)| from != to && !from.is_empty())
                .collect(),
        }
    }

    fn path(&self, path: &Utf8Path) -> Utf8PathBuf {
        Utf8PathBuf::from(self.text(path.as_str()))
    }

    /// `FROM` alone, or `FROM/` anywhere in the text (a path inside a shell
    /// command or a patch), becomes `TO`.
    fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (from, to) in &self.maps {
            if out == *from {
                // `to` is `/` with its slash trimmed.
                out = if to.is_empty() {
                    "/".to_owned()
                } else {
                    to.clone()
                };
            } else if out.contains(&format!("{from}/")) {
                out = out.replace(&format!("{from}/"), &format!("{to}/"));
            }
        }
        out
    }

    fn value(&self, value: &Value) -> Value {
        if self.maps.is_empty() {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_rewrites_whole_segments_only() {
        let mapper = Mapper::new(&[(Utf8PathBuf::from("/home/a/proj"), Utf8PathBuf::from("/w"))]);
        assert_eq!(mapper.text("/home/a/proj"), "/w");
        assert_eq!(mapper.text("/home/a/proj/src/x"), "/w/src/x");
        assert_eq!(
            mapper.text("cat > /home/a/proj/x && ls"),
            "cat > /w/x && ls"
        );
        assert_eq!(mapper.text("/home/a/project/x"), "/home/a/project/x");
        assert_eq!(
            mapper.value(&serde_json::json!({"a": ["/home/a/proj/b", 3]})),
            serde_json::json!({"a": ["/w/b", 3]})
        );
        // A transcript recorded at `/`: nothing is mapped, nothing mangled.
        let mapper = Mapper::new(&[(Utf8PathBuf::from("/"), Utf8PathBuf::from("/w"))]);
        assert_eq!(mapper.text("cat /etc/hosts"), "cat /etc/hosts");
        // Onto `/`: the paths keep their leading slash.
        let mapper = Mapper::new(&[(Utf8PathBuf::from("/home/a"), Utf8PathBuf::from("/"))]);
        assert_eq!(mapper.text("/home/a"), "/");
        assert_eq!(mapper.text("/home/a/x"), "/x");
    }
}
