//! One hook call: read the payload, restore the agent context's session, act on the event, save, and print what to inject.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{Engine, Injection, Limit, Session, SessionConfig, StartupOptions, ToolCall};

use super::AgentKind;
use super::native;
use super::payload::{self, Call, Event, MAX_PAYLOAD_BYTES, Payload};
use super::state::{self, ContextFiles, Loaded, StoredState};

/// The size past which `hook.log` is rotated.
const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// How long after it starts a hook call goes on looking for rules: 5 s,
/// half the 10 s timeout `jit hook install` gives it (an agent kills a hook
/// past its timeout, and the rules found by then are lost). Past it, the
/// paths not yet discovered are left out, and the call saves what it found
/// and answers with it, saying in its output, the event log and `hook.log`
/// how many paths it did not look at. The startup load of a context is
/// bounded by its own deadline (`JIT_GIT_DEADLINE_MS`, 2 s), so a call that
/// starts a context and then runs out of time still answers within the
/// timeout.
const HOOK_DEADLINE: Duration = Duration::from_secs(5);

/// The variable that sets another [`HOOK_DEADLINE`], in milliseconds (`0`:
/// look at no path, answer at once).
const HOOK_DEADLINE_VAR: &str = "JIT_HOOK_DEADLINE_MS";

/// The hook's deadline: [`HOOK_DEADLINE`], or what [`HOOK_DEADLINE_VAR`]
/// asks for. A bad value is noted in `outcome` and the default stands.
fn hook_deadline(outcome: &mut Outcome) -> Duration {
    let value = match std::env::var(HOOK_DEADLINE_VAR) {
        Err(std::env::VarError::NotPresent) => return HOOK_DEADLINE,
        Ok(value) if value.trim().is_empty() => return HOOK_DEADLINE,
        Ok(value) => value,
        Err(std::env::VarError::NotUnicode(value)) => value.to_string_lossy().into_owned(),
    };
    match value.trim().parse::<u64>() {
        Ok(ms) => Duration::from_millis(ms),
        Err(_) => {
            outcome.notes.push(format!(
                "warning: {HOOK_DEADLINE_VAR}={value:?} is not a whole number of milliseconds; \
                 the deadline stays {} ms",
                HOOK_DEADLINE.as_millis()
            ));
            HOOK_DEADLINE
        }
    }
}

/// The context lines of the limits `injected` reached. A limit that left
/// paths out is said in the output, so the agent knows rules may be
/// missing, and in the log (the event has it too).
fn limit_notes(injected: &[Injection], deadline: Duration, outcome: &mut Outcome) -> Vec<String> {
    injected
        .iter()
        .flat_map(|injection| &injection.limits)
        .map(|limit| {
            outcome
                .notes
                .push(format!("limit {}: {}", limit.limit, limit.detail));
            limit_note(limit, deadline)
        })
        .collect()
}

/// The context line that tells the agent a limit left rules unlooked-for:
/// what, and what to do about it.
fn limit_note(limit: &Limit, deadline: Duration) -> String {
    let what = if limit.limit == "deadline" {
        format!(
            "jit stopped looking for rules at its {} ms time budget",
            deadline.as_millis()
        )
    } else {
        format!("jit did not look for rules everywhere ({})", limit.limit)
    };
    format!(
        "[jit-context] {what}: {}. Rules of the directories left out were not checked; read \
         their rule files if the change depends on them.",
        limit.detail
    )
}

/// How `jit hook` runs.
#[derive(Debug, Clone)]
pub(super) struct Options {
    /// The agent, or `None` to recognise it from the payload.
    pub agent: Option<AgentKind>,
    /// Whether to record what the agent loads by itself instead of injecting it.
    pub native: bool,
    /// The most one output may inject, in bytes (`None`: the agent's default).
    pub budget: Option<u64>,
    /// The conventions `--conventions` names (`None`: `jit.toml`'s, else
    /// the ones found in the repository).
    pub conventions: Option<Vec<String>>,
}

/// The default cap on one output, per agent: under Claude Code's 10,000
/// characters (beyond which only a preview reaches the model), and Codex's
/// and Gemini's smaller context allowance.
pub(super) fn default_budget(agent: AgentKind) -> u64 {
    match agent {
        AgentKind::ClaudeCode => 9_000,
        AgentKind::Codex | AgentKind::Gemini => 8_000,
    }
}

/// What a call produced: the stdout text, and lines for the hook log.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// The one JSON object to print, if anything is injected.
    pub stdout: Option<String>,
    /// Things worth a line in the log that are not failures (an
    /// unregistered tool, a state file that had to be started afresh).
    pub notes: Vec<String>,
    /// Where the log is, once known.
    pub log: Option<Utf8PathBuf>,
    /// `agent session event`, for log lines.
    pub context: String,
}

/// Runs one hook call on `input`. Never fails: a failure is returned as
/// the error line to report, with whatever was learnt before it.
pub(super) fn handle(options: &Options, input: &mut dyn Read) -> (Outcome, Option<anyhow::Error>) {
    let started = Instant::now();
    let mut outcome = Outcome::default();
    let result = handle_inner(options, input, started, &mut outcome);
    (outcome, result.err())
}

/// Reads the payload from `input` (bounded) and parses it, naming the call
/// in `outcome`.
fn read_payload(
    options: &Options,
    input: &mut dyn Read,
    outcome: &mut Outcome,
) -> anyhow::Result<Payload> {
    let mut bytes = Vec::new();
    input
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the payload from stdin")?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        bail!("the payload is over {MAX_PAYLOAD_BYTES} bytes; not read");
    }
    let payload = payload::parse(&bytes, options.agent)?;
    outcome.context = format!(
        "{} {} {}",
        payload.agent.name(),
        payload.session_id,
        payload.event_name
    );
    Ok(payload)
}

/// The git change source of a context's start: started now for a
/// `SessionStart`, so that it runs while the conventions are looked for; a
/// tool call asks only if it turns out to start a context.
fn startup_changes(
    work: &Work,
    root: &Utf8Path,
    cwd: &Utf8Path,
) -> Arc<crate::changes::StartupGit> {
    if matches!(work, Work::Start { .. }) {
        crate::changes::StartupGit::new(root, cwd)
    } else {
        crate::changes::StartupGit::lazy(root, cwd)
    }
}

fn handle_inner(
    options: &Options,
    input: &mut dyn Read,
    began: Instant,
    outcome: &mut Outcome,
) -> anyhow::Result<()> {
    let deadline = hook_deadline(outcome);
    let dir = state::state_dir()?;
    outcome.log = Some(dir.join("hook.log"));
    let payload = read_payload(options, input, outcome)?;
    // The tools linked into this binary, audited once per process (the
    // configuration holds them; building a second registry for the hook's
    // own use cost a fresh process another pass over the registrations).
    let config = SessionConfig::checked()?;

    // Decide what the event asks before touching any state, so an event
    // with nothing to do costs no lock and no file.
    let work = match &payload.event {
        Event::SessionStart { source } => Work::Start {
            keep: matches!(source.as_str(), "resume" | "fork"),
        },
        Event::ToolUse(call) => match map_calls(payload.agent, std::slice::from_ref(call), outcome)
        {
            calls if calls.is_empty() => return Ok(()),
            calls => Work::Tools(calls),
        },
        Event::ToolBatch(calls) => match map_calls(payload.agent, calls, outcome) {
            calls if calls.is_empty() => return Ok(()),
            calls => Work::Tools(calls),
        },
        Event::PromptSubmit { prompt } => {
            let cwd = session_cwd(&payload)?;
            match prompt_paths(prompt, &cwd) {
                paths if paths.is_empty() => return Ok(()),
                paths => Work::Touch(paths),
            }
        }
        Event::InstructionsLoaded { file_path } => Work::Native(Utf8PathBuf::from(file_path)),
    };

    let cwd = session_cwd(&payload)?;
    let root = project_root(payload.agent, &cwd);
    let files = ContextFiles::new(
        &dir,
        payload.agent,
        &payload.session_id,
        payload.agent_id.as_deref(),
    );
    let lock = state::lock(&files)?;
    let loaded = state::load(&files, &lock)?;
    let engine =
        Engine::new(&root).with_context(|| format!("cannot open the project root {root}"))?;
    // A context's start looks for the conventions afresh; later calls use
    // what it found.
    let restarting = matches!(work, Work::Start { keep: false });
    let known = match &loaded {
        Loaded::Found(stored) if !restarting && stored.root == engine.root().as_str() => {
            stored.conventions.clone()
        }
        _ => Vec::new(),
    };
    let changes = startup_changes(&work, engine.root(), &cwd);
    let conventions = hook_conventions(
        payload.agent,
        engine.root(),
        options.conventions.as_deref(),
        &known,
        outcome,
    );
    let engine = Arc::new(engine.with_sources(conventions.sources.iter().cloned()));
    let budget = options
        .budget
        .unwrap_or_else(|| default_budget(payload.agent));
    // The next call checks what this one scanned instead of probing every
    // candidate name again; the key names what the engine does not show.
    let scan_key = format!("{} native={}", payload.agent.name(), options.native);
    let mut config = config
        .with_private_event_log(files.events.clone())
        .with_step_budget(Some(budget))
        .with_scan_records(scan_key)
        .with_deadline(began.checked_add(deadline));
    if options.native {
        config = config.with_native(native::native(payload.agent));
    }

    let (mut session, started) = open_session(&files, loaded, &engine, config, &payload, outcome);
    let mut injected = Vec::new();
    // Context text that is no rule block (the startup rule index).
    let mut extra: Vec<String> = Vec::new();
    let mut started = started;
    // A context first seen on a tool call or prompt (a sub-agent, or a hook
    // installed mid-session) gets its startup load first, in the same
    // output.
    if !started && matches!(work, Work::Tools(_) | Work::Touch(_)) {
        injected.push(start(
            &mut session,
            &payload,
            &cwd,
            budget,
            &conventions,
            Arc::clone(&changes),
            &mut extra,
        ));
        started = true;
        session.set_step_budget(Some(budget.saturating_sub(context_bytes(&injected))));
    }
    match work {
        Work::Start { keep: true } if started => {}
        Work::Start { .. } => {
            session.clear();
            injected.push(start(
                &mut session,
                &payload,
                &cwd,
                budget,
                &conventions,
                Arc::clone(&changes),
                &mut extra,
            ));
            started = true;
        }
        Work::Tools(calls) => injected.push(tool_calls(&mut session, calls, &cwd, outcome)?),
        Work::Touch(paths) => injected.push(session.touch_batch(&paths, &cwd)),
        Work::Native(path) => {
            let path = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            if !session.mark_native(&path) {
                outcome.notes.push(format!(
                    "cannot read {path}, which the agent reports loading"
                ));
            }
        }
    }
    for warning in session.warnings() {
        outcome.notes.push(warning.clone());
    }
    let limits = limit_notes(&injected, deadline, outcome);
    let stored = StoredState {
        version: state::STATE_VERSION,
        agent: payload.agent.name().to_owned(),
        root: engine.root().to_string(),
        started,
        session: session.snapshot(),
        conventions: conventions.names().into_iter().map(str::to_owned).collect(),
    };
    state::save(&files, &stored, &lock)?;
    drop(lock);
    if matches!(payload.event, Event::SessionStart { .. }) {
        state::prune(&dir, SystemTime::now());
    }

    let text: Vec<String> = injected
        .iter()
        .map(Injection::context_text)
        .chain(limits)
        .chain(extra)
        .filter(|t| !t.is_empty())
        .collect();
    if !text.is_empty() {
        let output = Output {
            hook_specific_output: Specific {
                hook_event_name: &payload.event_name,
                additional_context: text.join("\n"),
            },
        };
        outcome.stdout = Some(serde_json::to_string(&output)?);
    }
    Ok(())
}

/// Runs the tool calls of one event through `session`. One malformed call
/// of a batch must not hide the others: its error becomes a note; when
/// every call is malformed, that is the failure to report.
fn tool_calls(
    session: &mut Session,
    calls: Vec<ToolCall>,
    cwd: &Utf8Path,
    outcome: &mut Outcome,
) -> anyhow::Result<Injection> {
    let (injection, errors) = session.tool_batch_each(&calls, cwd)?;
    let errors: Vec<String> = errors
        .iter()
        .map(|err| format!("{}: {err}", err.kind()))
        .collect();
    let Some(injection) = injection else {
        bail!("{}", errors.join("; "));
    };
    outcome.notes.extend(errors);
    Ok(injection)
}

/// Bytes of context text `injected` holds.
fn context_bytes(injected: &[Injection]) -> u64 {
    injected.iter().map(|i| i.context_text().len() as u64).sum()
}

/// The one object a hook prints, in the agents' shared shape (fields in
/// the order the agents document them).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    hook_specific_output: Specific<'a>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'a str,
    additional_context: String,
}

/// What an event asks of the session.
enum Work {
    /// A session (re)starts; `keep` on resume, which keeps what was injected.
    Start { keep: bool },
    /// Tool calls, by registered name.
    Tools(Vec<ToolCall>),
    /// Paths touched outside any tool.
    Touch(Vec<Utf8PathBuf>),
    /// A rule file the agent loaded by itself.
    Native(Utf8PathBuf),
}

/// The agent's tool calls under their registered names; a tool jit has no
/// reporter for is noted (`unregistered_tool`) and left out, never guessed.
fn map_calls(agent: AgentKind, calls: &[Call], outcome: &mut Outcome) -> Vec<ToolCall> {
    calls
        .iter()
        .filter_map(|call| match super::registered_tool(agent, &call.tool) {
            Some(tool) => Some(ToolCall::new(tool, call.input.clone())),
            None => {
                outcome.notes.push(format!(
                    "unregistered_tool: {} has no path reporter for {}; nothing injected for it",
                    agent.name(),
                    call.tool
                ));
                None
            }
        })
        .collect()
}

/// The session's working directory: the payload's `cwd`, else the process's.
fn session_cwd(payload: &Payload) -> anyhow::Result<Utf8PathBuf> {
    let here = || -> anyhow::Result<Utf8PathBuf> {
        let dir = std::env::current_dir().context("cannot read the current directory")?;
        Utf8PathBuf::from_path_buf(dir)
            .map_err(|p| anyhow::anyhow!("the current directory {} is not UTF-8", p.display()))
    };
    match &payload.cwd {
        Some(cwd) if Utf8Path::new(cwd).is_absolute() => Ok(Utf8PathBuf::from(cwd)),
        Some(cwd) => Ok(here()?.join(cwd)),
        None => here(),
    }
}

/// The project root: the agent's project variable when set
/// (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`), else the git worktree root
/// above `cwd`, else `cwd`.
pub(super) fn project_root(agent: AgentKind, cwd: &Utf8Path) -> Utf8PathBuf {
    let vars: &[&str] = match agent {
        AgentKind::ClaudeCode => &["CLAUDE_PROJECT_DIR"],
        AgentKind::Gemini => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        AgentKind::Codex => &[],
    };
    for var in vars {
        if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty())
            && let Ok(dir) = Utf8PathBuf::from_path_buf(dir.into())
        {
            return if dir.is_absolute() {
                dir
            } else {
                cwd.join(dir)
            };
        }
    }
    crate::project::default_root(cwd)
}

/// The files a prompt names with `@path` that exist, relative to `cwd`.
fn prompt_paths(prompt: &str, cwd: &Utf8Path) -> Vec<Utf8PathBuf> {
    let mut paths: Vec<Utf8PathBuf> = Vec::new();
    // A set, not a scan of the list: a prompt may name thousands.
    let mut seen = std::collections::HashSet::new();
    for import in jit_imports::extract(prompt) {
        if !seen.insert(import.target.clone()) {
            continue;
        }
        let path = Utf8PathBuf::from(&import.target);
        let abs = if path.is_absolute() {
            path.clone()
        } else {
            cwd.join(&path)
        };
        if std::fs::symlink_metadata(&abs).is_ok() {
            paths.push(path);
        }
    }
    paths
}

/// The agent context's session: restored from its state, or new. Returns
/// whether its startup load has run.
fn open_session(
    files: &ContextFiles,
    loaded: Loaded,
    engine: &Arc<Engine>,
    config: SessionConfig,
    payload: &Payload,
    outcome: &mut Outcome,
) -> (Session, bool) {
    let fresh = |config: SessionConfig| {
        let main = Session::new(Arc::clone(engine), config).with_id(payload.session_id.clone());
        match &payload.agent_id {
            Some(id) => main.subagent(id.clone()),
            None => main,
        }
    };
    match loaded {
        Loaded::Missing => (fresh(config), false),
        Loaded::Unusable(why) => {
            outcome
                .notes
                .push(format!("warning: {why}; starting this context afresh"));
            state::set_aside(files);
            (fresh(config), false)
        }
        Loaded::Found(stored) => {
            if stored.root != engine.root().as_str() || stored.agent != payload.agent.name() {
                outcome.notes.push(format!(
                    "warning: {} belongs to {} on {}, not {} on {}; starting this context afresh",
                    files.state,
                    stored.agent,
                    stored.root,
                    payload.agent.name(),
                    engine.root()
                ));
                return (fresh(config), false);
            }
            match Session::restore(Arc::clone(engine), config.clone(), stored.session) {
                Ok(session) => (session, stored.started),
                Err(err) => {
                    outcome
                        .notes
                        .push(format!("warning: {err}; starting this context afresh"));
                    (fresh(config), false)
                }
            }
        }
    }
}

/// The startup load of a context: what the agent loads itself is recorded,
/// the rest injected. For Codex, which sees nothing below its cwd, the
/// files git reports changed are discovered too, within what is left of the
/// budget.
fn start(
    session: &mut Session,
    payload: &Payload,
    cwd: &Utf8Path,
    budget: u64,
    conventions: &crate::conventions::Conventions,
    changes: Arc<crate::changes::StartupGit>,
    extra: &mut Vec<String>,
) -> Injection {
    session.set_step_budget(Some(budget));
    let home = match payload.agent {
        // Claude Code's own user rules live in `~/.claude`; the other agents
        // have their own user files, which they load themselves.
        AgentKind::ClaudeCode => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .and_then(|h| Utf8PathBuf::from_path_buf(h.into()).ok()),
        AgentKind::Codex | AgentKind::Gemini => None,
    };
    let mut options = StartupOptions::new(cwd.to_owned())
        .with_home(home)
        .with_changes(changes);
    // A bad value must not fail the call: the default deadline stands.
    if let Ok(Some(deadline)) = crate::cmd::startup::change_deadline() {
        options = options.with_change_deadline(deadline);
    }
    if payload.agent != AgentKind::ClaudeCode {
        options = options.with_managed(None);
    }
    let options = conventions.startup_options(options);
    let (report, mut injection) = session.startup_injection(&options);
    if payload.agent == AgentKind::Codex {
        let changed: Vec<Utf8PathBuf> = report
            .signals
            .iter()
            .filter(|s| !s.ends_with('/'))
            .map(Utf8PathBuf::from)
            .collect();
        if !changed.is_empty() {
            let used = context_bytes(std::slice::from_ref(&injection));
            session.set_step_budget(Some(budget.saturating_sub(used)));
            let root = session.engine().root().to_owned();
            let more = session.touch_batch(&changed, &root);
            injection.blocks.extend(more.blocks);
            injection.headers.extend(more.headers);
            injection.discoveries.extend(more.discoveries);
            injection.events.extend(more.events);
            injection.limits.extend(more.limits);
        }
    }
    // The rule index: what exists but was not loaded, so the model knows
    // where to look. It goes last, and only when it fits what is left.
    if let Some(index) = index_text(&report) {
        let used = context_bytes(std::slice::from_ref(&injection));
        if used + index.len() as u64 <= budget {
            extra.push(index);
        }
    }
    injection
}

/// The rule index as context text, or `None` when it is empty.
fn index_text(report: &jit_core::StartupReport) -> Option<String> {
    if report.index.is_empty() && report.index_overflow.is_empty() {
        return None;
    }
    let mut text = String::from(
        "[jit-context] Rules not loaded yet (each loads by itself when a file in its scope is touched; read one to apply it now):",
    );
    for entry in &report.index {
        let what = match (&entry.description, entry.scope.is_empty()) {
            (Some(description), _) => description.clone(),
            (None, false) => entry.scope.join(", "),
            (None, true) => "unscoped".to_owned(),
        };
        text.push_str(&format!("\n- {} ({}): {what}", entry.file, entry.source));
    }
    for overflow in &report.index_overflow {
        text.push_str(&format!("\n- {} more in {}", overflow.count, overflow.dir));
    }
    Some(text)
}

/// The conventions of a hook call: `--conventions`, else `jit.toml`'s,
/// else those recorded at the context's start (`known`), else the ones
/// found in the repository, with the agent's own added so what it loads
/// natively is recognised. A bad `jit.toml` must not disturb the call: it
/// is noted in the log and the conventions are looked for instead.
fn hook_conventions(
    agent: AgentKind,
    root: &Utf8Path,
    flag: Option<&[String]>,
    known: &[String],
    outcome: &mut Outcome,
) -> crate::conventions::Conventions {
    let conventions = match crate::conventions::resolve_known(root, flag, known) {
        Ok(conventions) => conventions,
        Err(err) => {
            outcome.notes.push(format!(
                "warning: {err:#}; using the conventions found in the repository"
            ));
            crate::conventions::detected(root)
        }
    };
    conventions.with_own(native::sources(agent))
}

/// Writes the output and the log lines of one call. Nothing here may fail
/// the call: a closed stdout or stderr is ignored, and lines the log
/// refuses go to stderr instead, with why.
pub(super) fn report(outcome: &Outcome, error: Option<&anyhow::Error>) {
    if let Some(stdout) = &outcome.stdout {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{stdout}");
        let _ = out.flush();
    }
    // A closed stderr must not fail the call either; what the payload
    // named is escaped before it reaches a terminal.
    let say = |line: &str| {
        let _ =
            crate::output::stderr_line(format_args!("jit hook: {}", crate::output::escape(line)));
    };
    let mut lines: Vec<String> = outcome.notes.clone();
    let mut said = None;
    if let Some(err) = error {
        let line = format!("error: {}", one_line(&format!("{err:#}")));
        say(&line);
        said = Some(line.clone());
        lines.push(line);
    }
    if let (Some(log), false) = (&outcome.log, lines.is_empty()) {
        let ts = jit_core::now_rfc3339();
        let context = if outcome.context.is_empty() {
            "-"
        } else {
            &outcome.context
        };
        let text: String = lines
            .iter()
            .map(|line| format!("{ts} {context} {}\n", one_line(line)))
            .collect();
        if let Err(err) = append_log(log, &text) {
            // An error saying the state directory cannot be used has said
            // why the log cannot be written either: one line, not two.
            let dir_said = said.as_deref().is_some_and(|line| {
                err.chain().skip(1).any(|cause| {
                    let cause = one_line(&cause.to_string());
                    cause.starts_with("the state directory") && line.contains(&cause)
                })
            });
            if !dir_said {
                // The notes would be lost: they go where the error went.
                for note in &outcome.notes {
                    say(&one_line(note));
                }
                say(&format!("warning: {}", one_line(&format!("{err:#}"))));
            }
        }
    }
}

/// Appends `text` to the hook log `log` in the state directory, checked
/// as every file the hook writes there is: the directory is the user's
/// ([`state::private_state_dir`]), and the log is created `0600`, never
/// opened through a link ([`jit_core::open_private_append`]).
fn append_log(log: &Utf8Path, text: &str) -> anyhow::Result<()> {
    let refused = || format!("cannot write the hook log {log}");
    if let Some(dir) = log.parent() {
        state::private_state_dir(dir).with_context(refused)?;
    }
    let mut file = jit_core::open_private_append(log.as_std_path()).with_context(refused)?;
    // The log only grows on failures and unknown tools, but a session
    // calling an unregistered tool all day must not fill a disk: past its
    // cap it moves to `hook.log.1`, replacing the previous one (a rename
    // moves a link planted there, never writes through it).
    if file.metadata().with_context(refused)?.len() > MAX_LOG_BYTES {
        drop(file);
        std::fs::rename(log, format!("{log}.1")).with_context(refused)?;
        file = jit_core::open_private_append(log.as_std_path()).with_context(refused)?;
    }
    file.write_all(text.as_bytes()).with_context(refused)
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}
