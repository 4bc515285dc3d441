//! Hook payloads: which agent sent one, which event it is, and the fields each event carries.

use anyhow::{Context, bail};
use serde_json::Value;

use super::AgentKind;

/// The most stdin a hook reads. A payload is a tool call's input and
/// response: agents cap those well below this, so anything larger is not a
/// payload and is refused without being parsed.
pub(super) const MAX_PAYLOAD_BYTES: u64 = 64 * 1024 * 1024;

/// One tool call of a payload.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Call {
    /// The tool's name as the agent gives it (`Write`, `apply_patch`, `write_file`).
    pub tool: String,
    /// Its input.
    pub input: Value,
}

/// What the agent reports.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    /// A session started, resumed, was cleared or compacted.
    SessionStart {
        /// `startup`, `resume`, `clear`, `compact` or `fork`.
        source: String,
    },
    /// One tool ran (Claude Code and Codex `PostToolUse`, Gemini `AfterTool`).
    ToolUse(Call),
    /// A batch of parallel tools ran (Claude Code `PostToolBatch`).
    ToolBatch(Vec<Call>),
    /// The user sent a prompt.
    PromptSubmit {
        /// Its text.
        prompt: String,
    },
    /// The agent loaded a rule file by itself (observe only).
    InstructionsLoaded {
        /// The file.
        file_path: String,
    },
}

/// A parsed payload.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Payload {
    /// The agent that sent it.
    pub agent: AgentKind,
    /// The event name as the agent wrote it (echoed in the output).
    pub event_name: String,
    /// The event.
    pub event: Event,
    /// The agent's session id.
    pub session_id: String,
    /// The sub-agent's id, inside a sub-agent.
    pub agent_id: Option<String>,
    /// The session's working directory, when the payload gives one.
    pub cwd: Option<String>,
}

/// Gemini CLI's event names; none of them is Claude Code's or Codex's.
const GEMINI_EVENTS: &[&str] = &[
    "AfterTool",
    "BeforeTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "PreCompress",
];

/// Recognises the agent from a payload: Codex sends a `turn_id`, Gemini
/// names its own events (`AfterTool`, `BeforeTool`, ...); anything else is
/// taken as Claude Code.
pub(super) fn detect(payload: &Value) -> AgentKind {
    if payload.get("turn_id").is_some() {
        return AgentKind::Codex;
    }
    match payload.get("hook_event_name").and_then(Value::as_str) {
        Some(name) if GEMINI_EVENTS.contains(&name) => AgentKind::Gemini,
        _ => AgentKind::ClaudeCode,
    }
}

/// Parses one payload sent by `agent` (`None`: recognise it).
pub(super) fn parse(bytes: &[u8], agent: Option<AgentKind>) -> anyhow::Result<Payload> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        bail!("empty payload on stdin: expected one JSON object from the agent");
    }
    let value: Value = serde_json::from_slice(bytes).context("the payload is not JSON")?;
    if !value.is_object() {
        bail!("the payload is {}, not a JSON object", kind_of(&value));
    }
    let agent = agent.unwrap_or_else(|| detect(&value));
    let session_id = match value.get("session_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        Some(Value::String(_)) => bail!("the payload's `session_id` is empty"),
        Some(other) => bail!(
            "the payload's `session_id` is {}, not a string",
            kind_of(other)
        ),
        None => bail!("the payload has no `session_id`"),
    };
    let event_name = match value.get("hook_event_name") {
        Some(Value::String(name)) => name.clone(),
        Some(other) => bail!(
            "the payload's `hook_event_name` is {}, not a string",
            kind_of(other)
        ),
        // Codex's payloads may leave the event implicit: a tool call is a
        // PostToolUse, a `source` a SessionStart.
        None if agent == AgentKind::Codex && value.get("tool_name").is_some() => {
            "PostToolUse".to_owned()
        }
        None if agent == AgentKind::Codex && value.get("source").is_some() => {
            "SessionStart".to_owned()
        }
        None => bail!("the payload has no `hook_event_name`"),
    };
    let event = match event_name.as_str() {
        "SessionStart" => Event::SessionStart {
            source: optional_str(&value, "source")?
                .unwrap_or("startup")
                .to_owned(),
        },
        "PostToolUse" | "AfterTool" => Event::ToolUse(call(&value)?),
        "PostToolBatch" => {
            let calls = match value.get("tool_calls") {
                Some(Value::Array(calls)) => calls,
                Some(other) => bail!("`tool_calls` is {}, not an array", kind_of(other)),
                None => bail!("the PostToolBatch payload has no `tool_calls`"),
            };
            Event::ToolBatch(
                calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| call(c).with_context(|| format!("tool_calls[{i}]")))
                    .collect::<anyhow::Result<_>>()?,
            )
        }
        "UserPromptSubmit" => Event::PromptSubmit {
            prompt: required_str(&value, "prompt")?.to_owned(),
        },
        "InstructionsLoaded" => Event::InstructionsLoaded {
            file_path: required_str(&value, "file_path")?.to_owned(),
        },
        other => bail!(
            "unknown hook event `{other}`: jit hook acts on SessionStart, PostToolUse, \
             PostToolBatch, AfterTool, UserPromptSubmit and InstructionsLoaded"
        ),
    };
    Ok(Payload {
        agent,
        event_name,
        event,
        session_id,
        agent_id: optional_str(&value, "agent_id")?.map(str::to_owned),
        cwd: optional_str(&value, "cwd")?.map(str::to_owned),
    })
}

fn call(value: &Value) -> anyhow::Result<Call> {
    let tool = required_str(value, "tool_name")?.to_owned();
    let input = match value.get("tool_input") {
        Some(input) => input.clone(),
        None => bail!("the `{tool}` call has no `tool_input`"),
    };
    Ok(Call { tool, input })
}

fn required_str<'a>(value: &'a Value, field: &str) -> anyhow::Result<&'a str> {
    optional_str(value, field)?.with_context(|| format!("the payload has no `{field}`"))
}

/// A string field; absent, `null` and `""` are all "not given".
fn optional_str<'a>(value: &'a Value, field: &str) -> anyhow::Result<Option<&'a str>> {
    match value.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => bail!(
            "the payload's `{field}` is {}, not a string",
            kind_of(other)
        ),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_agent_is_recognised_from_the_payload() {
        assert_eq!(detect(&json!({"turn_id": "t"})), AgentKind::Codex);
        assert_eq!(
            detect(&json!({"hook_event_name": "AfterTool"})),
            AgentKind::Gemini
        );
        assert_eq!(
            detect(&json!({"hook_event_name": "PostToolUse"})),
            AgentKind::ClaudeCode
        );
        assert_eq!(detect(&json!({})), AgentKind::ClaudeCode);
    }

    #[test]
    fn codex_events_may_be_implicit() {
        let payload = parse(
            br#"{"session_id":"s","turn_id":"t","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
            None,
        )
        .unwrap();
        assert_eq!(payload.event_name, "PostToolUse");
        let payload = parse(
            br#"{"session_id":"s","source":"resume"}"#,
            Some(AgentKind::Codex),
        )
        .unwrap();
        assert_eq!(
            payload.event,
            Event::SessionStart {
                source: "resume".to_owned()
            }
        );
        // Claude Code always names its events.
        let err = parse(br#"{"session_id":"s","source":"resume"}"#, None).unwrap_err();
        assert!(err.to_string().contains("hook_event_name"), "{err}");
    }

    #[test]
    fn bad_payloads_are_errors_that_say_what_is_wrong() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "empty payload"),
            (b"  \n", "empty payload"),
            (b"{", "not JSON"),
            (b"[1]", "an array, not a JSON object"),
            (b"{}", "no `session_id`"),
            (br#"{"session_id":7}"#, "`session_id` is a number"),
            (br#"{"session_id":""}"#, "`session_id` is empty"),
            (
                br#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read"}"#,
                "no `tool_input`",
            ),
            (
                br#"{"session_id":"s","hook_event_name":"PostToolBatch","tool_calls":{}}"#,
                "not an array",
            ),
        ];
        for (bytes, expected) in cases {
            let err = format!("{:#}", parse(bytes, None).unwrap_err());
            assert!(err.contains(expected), "{err} should say {expected}");
        }
    }
}
