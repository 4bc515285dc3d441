//! Transcripts as the agents write them (Claude Code, Codex) and a generic JSON Lines form, read into one sequence of tool-call batches, compactions and native loads.
//!
//! Reading never fails on a record: a malformed line or an unknown record
//! type is counted in [`Trace::skipped_records`] and the rest is read.
//! Files are read line by line and each record is dropped once read, so
//! memory holds the calls, not the file; a file that is not a regular file
//! (a device, a named pipe) is refused before anything is read.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::ops::ControlFlow;

use anyhow::{Context, bail};
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;

use crate::lines::{Line, READ_BUFFER_BYTES, for_each_line};

/// The longest transcript line read whole; a longer one (a huge tool
/// result) is read past without being held, skipped and counted in
/// [`Trace::lines_over_cap`], so one line cannot take the memory.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// How many records are looked at to recognise a transcript's format.
const RECOGNISED_WITHIN_RECORDS: usize = 50;

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Claude Code's session JSON Lines (`~/.claude/projects/…/<session>.jsonl`).
    ClaudeCode,
    /// Codex CLI's rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).
    Codex,
    /// jit's generic form: one `{"tool","input","batch"?,"channel"?,"compact"?}` per line.
    Generic,
    /// Recognised from the first records.
    Auto,
}

impl Format {
    /// The name used on the command line and in the output.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Generic => "generic",
            Format::Auto => "auto",
        }
    }
}

/// The context a call runs in: the main conversation or one sub-agent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Channel {
    /// The main conversation.
    Main,
    /// A sub-agent, by id.
    Subagent(String),
}

impl Channel {
    /// `main` or `subagent:<id>`, as events and the generic format write it.
    pub(crate) fn label(&self) -> String {
        match self {
            Channel::Main => "main".to_owned(),
            Channel::Subagent(id) => format!("subagent:{id}"),
        }
    }

    fn parse(label: &str) -> Option<Channel> {
        match label {
            "main" => Some(Channel::Main),
            _ => label
                .strip_prefix("subagent:")
                .filter(|id| !id.is_empty())
                .map(|id| Channel::Subagent(id.to_owned())),
        }
    }
}

/// One tool call as the transcript gives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    /// The tool's name in the transcript's own vocabulary (`Write`,
    /// `apply_patch`, or a registered name in the generic form).
    pub tool: String,
    /// Its input.
    pub input: Value,
}

/// What happened, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    /// Tool calls the model issued together (one model turn).
    Batch {
        /// Where they ran.
        channel: Channel,
        /// The working directory they ran in, when the record says.
        cwd: Option<Utf8PathBuf>,
        /// The calls, in order.
        calls: Vec<Call>,
    },
    /// The context was compacted: what was injected is gone.
    Compact {
        /// Which context.
        channel: Channel,
    },
    /// The agent loaded a rule file by itself.
    Native {
        /// Into which context.
        channel: Channel,
        /// The file, as the transcript names it.
        path: Utf8PathBuf,
        /// Bytes of its text as loaded.
        bytes: u64,
    },
}

/// A transcript read into items.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Trace {
    /// The format it was read as.
    pub format: Option<Format>,
    /// The session's first working directory, when the records carry one.
    pub first_cwd: Option<Utf8PathBuf>,
    /// Tool batches, compactions and native loads in order.
    pub items: Vec<Item>,
    /// Lines that were not JSON, records of an unknown type, and records
    /// missing what their type needs: counted, never fatal.
    pub skipped_records: u64,
    /// Lines longer than [`MAX_LINE_BYTES`], read past unparsed (counted
    /// in `skipped_records` too).
    pub lines_over_cap: u64,
    /// Whether the transcript records what the agent loaded by itself
    /// (Claude Code's `nested_memory` attachments).
    pub records_native: bool,
    /// Hook injections the transcript records (`hook_additional_context`).
    pub hook_contexts: u64,
}

/// Reads the transcript at `path` (and, for Claude Code, its sub-agent
/// transcripts) as `format`.
pub(crate) fn read(path: &Utf8Path, format: Format) -> anyhow::Result<Trace> {
    let format = match format {
        Format::Auto => recognise(path)?,
        other => other,
    };
    let mut trace = Trace {
        format: Some(format),
        ..Trace::default()
    };
    match format {
        Format::ClaudeCode | Format::Auto => {
            let subagents = subagent_files(path)?;
            let mut claude = ClaudeReader::default();
            claude.read(path, None, &mut trace)?;
            for (id, file) in subagents {
                claude.read(&file, Some(id), &mut trace)?;
            }
            trace.items = claude.into_items();
        }
        Format::Codex => {
            let mut codex = CodexReader::default();
            for_each_record(path, TRANSCRIPT, &mut trace, |record, trace| {
                codex.record(record, trace);
            })?;
            codex.finish(&mut trace);
        }
        Format::Generic => {
            let mut generic = GenericReader::default();
            for_each_record(path, TRANSCRIPT, &mut trace, |record, trace| {
                generic.record(record, trace);
            })?;
        }
    }
    Ok(trace)
}

/// What the transcript given is called in messages.
const TRANSCRIPT: &str = "transcript";
/// What a sub-agent transcript found beside it is called in messages.
const SUBAGENT: &str = "sub-agent transcript";

/// Opens the transcript at `path` (`what` names it in messages): a link is
/// followed (the user named the path, or it lies in the user's session
/// directory), then the file is opened without blocking and judged on the
/// open descriptor, so a device or a named pipe is refused before anything
/// is read, saying what it is.
fn open(path: &Utf8Path, what: &str) -> anyhow::Result<std::fs::File> {
    let real = std::fs::canonicalize(path).with_context(|| format!("cannot open {what} {path}"))?;
    match jit_core::open_regular(&real) {
        Ok((file, _)) => Ok(file),
        // "not a regular file (a device)".
        Err(err) if err.kind() == std::io::ErrorKind::InvalidInput => bail!(
            "{what} {path} is {err}: jit replay reads transcripts from regular files only \
             (save it to a file and give that)"
        ),
        Err(err) => Err(anyhow::Error::new(err).context(format!("cannot open {what} {path}"))),
    }
}

/// Calls `f` with each record (a JSON object) of the transcript at `path`,
/// read line by line: a line that is not a JSON object is counted in
/// [`Trace::skipped_records`], and one longer than [`MAX_LINE_BYTES`] is
/// read past unparsed, counted there and in [`Trace::lines_over_cap`].
fn for_each_record(
    path: &Utf8Path,
    what: &str,
    trace: &mut Trace,
    mut f: impl FnMut(&Value, &mut Trace),
) -> anyhow::Result<()> {
    let file = open(path, what)?;
    let reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    for_each_line(reader, MAX_LINE_BYTES, |line| {
        match line {
            Line::Whole(line) if line.iter().all(u8::is_ascii_whitespace) => {}
            Line::Whole(line) => match serde_json::from_slice::<Value>(line) {
                Ok(record) if record.is_object() => f(&record, trace),
                _ => trace.skipped_records += 1,
            },
            Line::Cut(_) => {
                trace.skipped_records += 1;
                trace.lines_over_cap += 1;
            }
        }
        ControlFlow::Continue(())
    })
    .with_context(|| format!("cannot read {what} {path}"))
}

/// The format of the transcript at `path`, from its first records (at most
/// [`RECOGNISED_WITHIN_RECORDS`]); Claude Code's when they do not say.
fn recognise(path: &Utf8Path) -> anyhow::Result<Format> {
    let file = open(path, TRANSCRIPT)?;
    let reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let mut records = 0;
    let mut format = None;
    for_each_line(reader, MAX_LINE_BYTES, |line| {
        let Line::Whole(line) = line else {
            return ControlFlow::Continue(());
        };
        let Ok(record) = serde_json::from_slice::<Value>(line) else {
            return ControlFlow::Continue(());
        };
        if !record.is_object() {
            return ControlFlow::Continue(());
        }
        records += 1;
        format = recognise_record(&record);
        if format.is_some() || records == RECOGNISED_WITHIN_RECORDS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .with_context(|| format!("cannot read {TRANSCRIPT} {path}"))?;
    Ok(format.unwrap_or(Format::ClaudeCode))
}

/// Codex rollouts have `payload`; Claude Code records have `sessionId` or
/// `parentUuid`; anything else with a `tool` is the generic form.
fn recognise_record(record: &Value) -> Option<Format> {
    if record.get("payload").is_some() && record.get("type").is_some() {
        return Some(Format::Codex);
    }
    if record.get("sessionId").is_some()
        || record.get("parentUuid").is_some()
        || record.get("isSidechain").is_some()
    {
        return Some(Format::ClaudeCode);
    }
    if record.get("tool").is_some() || record.get("compact").is_some() {
        return Some(Format::Generic);
    }
    None
}

/// The sub-agent transcripts of the Claude Code session at `path`:
/// `<session>/subagents/agent-<id>.jsonl` (current versions), else
/// `agent-<id>.jsonl` files beside it that belong to the session (older
/// versions). Sorted by id. Each goes through the checks the transcript
/// went through: one that is not a regular file is refused by name.
fn subagent_files(path: &Utf8Path) -> anyhow::Result<Vec<(String, Utf8PathBuf)>> {
    let mut found = BTreeMap::new();
    let Some(stem) = path.file_stem() else {
        return Ok(Vec::new());
    };
    if stem.starts_with("agent-") {
        // A sub-agent transcript given on its own has no sub-agents.
        return Ok(Vec::new());
    }
    let nested = path.with_file_name(stem).join("subagents");
    for file in jsonl_files(&nested) {
        if let Some(id) = agent_id(&file) {
            found.insert(id, file);
        }
    }
    if found.is_empty()
        && let Some(dir) = path.parent()
    {
        let session = session_id_of(path, TRANSCRIPT)?;
        if session.is_some() {
            for file in jsonl_files(dir) {
                if let Some(id) = agent_id(&file)
                    && session_id_of(&file, SUBAGENT)? == session
                {
                    found.insert(id, file);
                }
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// The `.jsonl` entries of `dir`, whatever they are: a sub-agent transcript
/// that is not a regular file is refused when it is opened, not passed
/// over in silence.
fn jsonl_files(dir: &Utf8Path) -> Vec<Utf8PathBuf> {
    let Ok(entries) = dir.read_dir_utf8() else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension() == Some("jsonl"))
        .collect()
}

fn agent_id(file: &Utf8Path) -> Option<String> {
    file.file_stem()?
        .strip_prefix("agent-")
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// How many lines are looked at for a transcript's `sessionId`.
const SESSION_ID_WITHIN_LINES: usize = 20;

/// The `sessionId` of a transcript's first record that has one, among its
/// first [`SESSION_ID_WITHIN_LINES`] lines (`what` names it in messages).
fn session_id_of(path: &Utf8Path, what: &str) -> anyhow::Result<Option<String>> {
    let file = open(path, what)?;
    let reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let mut lines = 0;
    let mut session = None;
    for_each_line(reader, MAX_LINE_BYTES, |line| {
        lines += 1;
        if let Line::Whole(line) = line
            && let Ok(record) = serde_json::from_slice::<Value>(line)
        {
            session = record
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if session.is_some() || lines == SESSION_ID_WITHIN_LINES {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .with_context(|| format!("cannot read {what} {path}"))?;
    Ok(session)
}

/// Claude Code records, from one or more files, kept with their
/// timestamps so sub-agent files interleave with the main one.
#[derive(Default)]
struct ClaudeReader {
    /// (timestamp, item), in reading order.
    items: Vec<(String, Item)>,
    /// The open batch: its message id and channel and index in `items`.
    open: Option<(String, Channel, usize)>,
}

impl ClaudeReader {
    /// Reads the Claude Code transcript at `path`: the main one, or the
    /// sub-agent `file_agent`'s.
    fn read(
        &mut self,
        path: &Utf8Path,
        file_agent: Option<String>,
        trace: &mut Trace,
    ) -> anyhow::Result<()> {
        self.open = None;
        let mut last_time = String::new();
        let what = if file_agent.is_some() {
            SUBAGENT
        } else {
            TRANSCRIPT
        };
        for_each_record(path, what, trace, |record, trace| {
            self.record(record, file_agent.as_ref(), &mut last_time, trace);
        })?;
        self.open = None;
        Ok(())
    }

    /// One record; `last_time` is the latest timestamp of its file so far.
    fn record(
        &mut self,
        record: &Value,
        file_agent: Option<&String>,
        last_time: &mut String,
        trace: &mut Trace,
    ) {
        if let Some(time) = record.get("timestamp").and_then(Value::as_str) {
            *last_time = time.to_owned();
        }
        let channel = match (file_agent, record.get("isSidechain")) {
            (Some(id), _) => Channel::Subagent(id.clone()),
            (None, Some(Value::Bool(true))) => Channel::Subagent(
                record
                    .get("agentId")
                    .and_then(Value::as_str)
                    .unwrap_or("sidechain")
                    .to_owned(),
            ),
            _ => Channel::Main,
        };
        let cwd = record
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(Utf8PathBuf::from);
        if file_agent.is_none() && trace.first_cwd.is_none() {
            trace.first_cwd.clone_from(&cwd);
        }
        match record.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                self.assistant(record, &channel, cwd.as_ref(), last_time, trace);
            }
            Some("system") => {
                if record.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
                    self.open = None;
                    self.items
                        .push((last_time.clone(), Item::Compact { channel }));
                }
            }
            Some("attachment") => self.attachment(record, channel, last_time, trace),
            // Known records that hold no tool call.
            Some("user" | "summary" | "progress" | "file-history-snapshot") => {}
            _ => trace.skipped_records += 1,
        }
    }

    /// An assistant record: its tool calls, one batch per message (calls
    /// of one message may come in several records).
    fn assistant(
        &mut self,
        record: &Value,
        channel: &Channel,
        cwd: Option<&Utf8PathBuf>,
        last_time: &str,
        trace: &mut Trace,
    ) {
        let message = record.get("message");
        let id = message
            .and_then(|m| m.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                record
                    .get("uuid")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let Some(content) = message
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
        else {
            if message.is_none() {
                trace.skipped_records += 1;
            }
            return;
        };
        for block in content {
            if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let (Some(name), Some(input)) = (
                block.get("name").and_then(Value::as_str),
                block.get("input"),
            ) else {
                trace.skipped_records += 1;
                continue;
            };
            let call = Call {
                tool: name.to_owned(),
                input: input.clone(),
            };
            match &self.open {
                Some((open_id, open_channel, at))
                    if *open_id == id && *open_channel == *channel =>
                {
                    if let Item::Batch { calls, .. } = &mut self.items[*at].1 {
                        calls.push(call);
                    }
                }
                _ => {
                    self.open = Some((id.clone(), channel.clone(), self.items.len()));
                    self.items.push((
                        last_time.to_owned(),
                        Item::Batch {
                            channel: channel.clone(),
                            cwd: cwd.cloned(),
                            calls: vec![call],
                        },
                    ));
                }
            }
        }
    }

    /// An attachment record: a rule the agent loaded by itself, or a hook's
    /// injection.
    fn attachment(&mut self, record: &Value, channel: Channel, last_time: &str, trace: &mut Trace) {
        let attachment = record.get("attachment").unwrap_or(record);
        match attachment.get("type").and_then(Value::as_str) {
            Some("nested_memory") => {
                trace.records_native = true;
                let path = attachment.get("path").and_then(Value::as_str);
                let bytes = attachment
                    .get("content")
                    .and_then(Value::as_str)
                    .map_or(0, |c| c.len() as u64);
                match path {
                    Some(path) if !path.is_empty() => self.items.push((
                        last_time.to_owned(),
                        Item::Native {
                            channel,
                            path: Utf8PathBuf::from(path),
                            bytes,
                        },
                    )),
                    _ => trace.skipped_records += 1,
                }
            }
            Some("hook_additional_context") => trace.hook_contexts += 1,
            // Other attachments (files, diagnostics, todos) are
            // no rules.
            Some(_) => {}
            None => trace.skipped_records += 1,
        }
    }

    /// Items in time order; a record without a timestamp keeps the time of
    /// the record before it, and ties keep file order (main file first).
    fn into_items(mut self) -> Vec<Item> {
        // Files are read one after another; a stable sort by timestamp
        // interleaves sub-agents into the main conversation.
        self.items.sort_by(|a, b| a.0.cmp(&b.0));
        self.items.into_iter().map(|(_, item)| item).collect()
    }
}

/// Codex rollout lines: `{timestamp, type, payload}`.
#[derive(Default)]
struct CodexReader {
    /// The working directory the latest record set.
    cwd: Option<Utf8PathBuf>,
    /// Consecutive calls of one response form one batch.
    batch: Vec<Call>,
}

impl CodexReader {
    fn record(&mut self, record: &Value, trace: &mut Trace) {
        let payload = record.get("payload");
        match record.get("type").and_then(Value::as_str) {
            Some("session_meta" | "turn_context") => {
                if let Some(dir) = payload
                    .and_then(|p| p.get("cwd"))
                    .and_then(Value::as_str)
                    .filter(|c| !c.is_empty())
                {
                    self.flush(trace);
                    self.cwd = Some(Utf8PathBuf::from(dir));
                    if trace.first_cwd.is_none() {
                        trace.first_cwd.clone_from(&self.cwd);
                    }
                }
            }
            Some("response_item") => {
                let Some(payload) = payload else {
                    trace.skipped_records += 1;
                    return;
                };
                match payload.get("type").and_then(Value::as_str) {
                    Some("function_call") => {
                        let name = payload.get("name").and_then(Value::as_str).unwrap_or("");
                        let arguments = payload
                            .get("arguments")
                            .and_then(Value::as_str)
                            .and_then(|a| serde_json::from_str::<Value>(a).ok());
                        match (name, arguments) {
                            ("", _) | (_, None) => trace.skipped_records += 1,
                            (name, Some(arguments)) => self.batch.push(codex_call(name, arguments)),
                        }
                    }
                    Some("custom_tool_call") => {
                        let name = payload.get("name").and_then(Value::as_str).unwrap_or("");
                        match payload.get("input").and_then(Value::as_str) {
                            Some(input) if !name.is_empty() => self.batch.push(Call {
                                tool: name.to_owned(),
                                input: serde_json::json!({ "command": input }),
                            }),
                            _ => trace.skipped_records += 1,
                        }
                    }
                    Some("local_shell_call") => {
                        let command = payload
                            .get("action")
                            .and_then(|a| a.get("command"))
                            .and_then(shell_script);
                        match command {
                            Some(command) => self.batch.push(Call {
                                tool: "Bash".to_owned(),
                                input: serde_json::json!({ "command": command }),
                            }),
                            None => trace.skipped_records += 1,
                        }
                    }
                    // Outputs, messages and reasoning end a response's calls.
                    Some(_) => self.flush(trace),
                    None => trace.skipped_records += 1,
                }
            }
            Some("compacted") => {
                self.flush(trace);
                trace.items.push(Item::Compact {
                    channel: Channel::Main,
                });
            }
            Some("event_msg") => {}
            _ => trace.skipped_records += 1,
        }
    }

    /// Ends the open batch, if any.
    fn flush(&mut self, trace: &mut Trace) {
        if !self.batch.is_empty() {
            trace.items.push(Item::Batch {
                channel: Channel::Main,
                cwd: self.cwd.clone(),
                calls: std::mem::take(&mut self.batch),
            });
        }
    }

    fn finish(mut self, trace: &mut Trace) {
        self.flush(trace);
    }
}

/// A Codex function call under the names the hook tables know: shell runs
/// become `Bash` with the script as `command`, patches `apply_patch` with
/// the patch as `command`; any other name stays as it is (and is counted
/// as unknown unless a table knows it).
fn codex_call(name: &str, arguments: Value) -> Call {
    match name {
        "shell" | "container.exec" | "exec_command" | "shell_command" | "local_shell" => {
            let command = arguments
                .get("command")
                .or_else(|| arguments.get("cmd"))
                .and_then(shell_script);
            match command {
                Some(command) => Call {
                    tool: "Bash".to_owned(),
                    input: serde_json::json!({ "command": command }),
                },
                None => Call {
                    tool: name.to_owned(),
                    input: arguments,
                },
            }
        }
        "apply_patch" => {
            let patch = arguments
                .get("input")
                .or_else(|| arguments.get("patch"))
                .or_else(|| arguments.get("command"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            Call {
                tool: "apply_patch".to_owned(),
                input: match patch {
                    Some(patch) => serde_json::json!({ "command": patch }),
                    None => arguments,
                },
            }
        }
        _ => Call {
            tool: name.to_owned(),
            input: arguments,
        },
    }
}

/// A shell command as one script: a string as it is; an argv of the form
/// `bash -lc SCRIPT` (or `sh -c`) as its script; another argv quoted and
/// joined.
fn shell_script(command: &Value) -> Option<String> {
    match command {
        Value::String(script) => Some(script.clone()),
        Value::Array(argv) => {
            let argv: Vec<&str> = argv.iter().map(Value::as_str).collect::<Option<_>>()?;
            match argv.as_slice() {
                [shell, flag, script]
                    if matches!(*shell, "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh")
                        && matches!(*flag, "-c" | "-lc" | "-l -c") =>
                {
                    Some((*script).to_owned())
                }
                [] => None,
                words => Some(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")),
            }
        }
        _ => None,
    }
}

/// A word quoted for a POSIX shell when it needs it.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The generic form: `{"tool","input","batch"?,"channel"?,"compact"?,"cwd"?}`.
/// Consecutive lines with the same `batch` number and channel are one
/// batch; a line with `"compact": true` compacts its channel before its
/// call (a line may be a compaction alone).
#[derive(Default)]
struct GenericReader {
    /// The open batch: its number and channel.
    open: Option<(u64, Channel)>,
}

impl GenericReader {
    fn record(&mut self, record: &Value, trace: &mut Trace) {
        let channel = match record.get("channel") {
            None | Some(Value::Null) => Some(Channel::Main),
            Some(Value::String(label)) => Channel::parse(label),
            Some(_) => None,
        };
        let Some(channel) = channel else {
            trace.skipped_records += 1;
            return;
        };
        let cwd = record
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(Utf8PathBuf::from);
        if trace.first_cwd.is_none() {
            trace.first_cwd.clone_from(&cwd);
        }
        if record.get("compact").and_then(Value::as_bool) == Some(true) {
            self.open = None;
            trace.items.push(Item::Compact {
                channel: channel.clone(),
            });
        }
        let tool = record.get("tool").and_then(Value::as_str);
        let input = record.get("input");
        let (tool, input) = match (tool, input) {
            (Some(tool), Some(input)) if !tool.is_empty() => (tool, input),
            (None, None) if record.get("compact").is_some() => return,
            _ => {
                trace.skipped_records += 1;
                return;
            }
        };
        let call = Call {
            tool: tool.to_owned(),
            input: input.clone(),
        };
        let batch = record.get("batch").and_then(Value::as_u64);
        match (&self.open, batch, trace.items.last_mut()) {
            (Some((number, open_channel)), Some(batch), Some(Item::Batch { calls, .. }))
                if *number == batch && *open_channel == channel =>
            {
                calls.push(call);
            }
            _ => {
                self.open = batch.map(|b| (b, channel.clone()));
                trace.items.push(Item::Batch {
                    channel,
                    cwd,
                    calls: vec![call],
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_argv_becomes_its_script() {
        let argv = serde_json::json!(["bash", "-lc", "echo hi > a.txt"]);
        assert_eq!(shell_script(&argv).as_deref(), Some("echo hi > a.txt"));
        let argv = serde_json::json!(["touch", "a b", "c"]);
        assert_eq!(shell_script(&argv).as_deref(), Some("touch 'a b' c"));
        assert_eq!(shell_script(&serde_json::json!([])), None);
        assert_eq!(shell_script(&serde_json::json!(5)), None);
    }

    #[test]
    fn channels_round_trip_their_labels() {
        for label in ["main", "subagent:a1"] {
            assert_eq!(
                Channel::parse(label).map(|c| c.label()).as_deref(),
                Some(label)
            );
        }
        assert_eq!(Channel::parse("subagent:"), None);
        assert_eq!(Channel::parse("side"), None);
    }
}
