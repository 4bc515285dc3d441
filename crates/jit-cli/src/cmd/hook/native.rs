//! What each agent loads by itself, so the hook records it instead of injecting it twice.

use std::sync::Arc;

use jit_core::{
    AgentsSource, ClaudeSource, GeminiSource, LoadTrigger, LoadedRule, NativeLoads, RuleSource,
};

use super::AgentKind;

/// The rule sources the hook runs for `agent`: the Claude convention for
/// every agent (that is what jit adds), plus the agent's own files, which
/// it must know to avoid injecting what the agent already has.
pub(super) fn sources(agent: AgentKind) -> Vec<Box<dyn RuleSource>> {
    match agent {
        AgentKind::ClaudeCode => vec![Box::new(ClaudeSource::default())],
        AgentKind::Codex => vec![
            Box::new(ClaudeSource::default()),
            Box::new(AgentsSource::default()),
        ],
        AgentKind::Gemini => vec![
            Box::new(ClaudeSource::default()),
            Box::new(GeminiSource::default()),
        ],
    }
}

/// What `agent` loads natively.
pub(super) fn native(agent: AgentKind) -> Arc<dyn NativeLoads> {
    match agent {
        AgentKind::ClaudeCode => Arc::new(ClaudeCodeNative),
        AgentKind::Codex => Arc::new(CodexNative),
        AgentKind::Gemini => Arc::new(GeminiNative),
    }
}

/// Claude Code: at launch, `CLAUDE.md` / `CLAUDE.local.md` from the cwd up
/// and the unscoped `.claude/rules` (user and managed ones too); when its
/// Read tool runs, the nested `CLAUDE.md` files on the read file's chain and
/// the `.claude/rules` whose `paths:` match it. Nothing on any other tool.
#[derive(Debug)]
struct ClaudeCodeNative;

impl NativeLoads for ClaudeCodeNative {
    fn loads_natively(&self, trigger: LoadTrigger<'_>, rule: &LoadedRule) -> bool {
        if rule.source != "claude" || !claude_reads(&rule.file) {
            return false;
        }
        match trigger {
            LoadTrigger::Startup => rule.scope.is_none(),
            LoadTrigger::Tool(tool) => tool == "read",
            _ => false,
        }
    }
}

/// The rule files Claude Code itself knows: `CLAUDE.md` (also under
/// `.claude/`), `CLAUDE.local.md` and `.claude/rules/**`. The other names
/// jit accepts (`claude.md`, `.claude.md`, `.claude/instructions.md`) are
/// injected like any rule Claude would not see.
fn claude_reads(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    name == "CLAUDE.md"
        || name == "CLAUDE.local.md"
        || file.starts_with(".claude/rules/")
        || file.contains("/.claude/rules/")
}

/// Codex CLI: the `AGENTS.md` files from the project root down to the cwd,
/// once, at session start; nothing below the cwd, nothing on tool calls.
#[derive(Debug)]
struct CodexNative;

impl NativeLoads for CodexNative {
    fn loads_natively(&self, trigger: LoadTrigger<'_>, rule: &LoadedRule) -> bool {
        rule.source == "agents" && trigger == LoadTrigger::Startup
    }
}

/// Gemini CLI: its `GEMINI.md` files at start, and just in time when it
/// reads, lists, writes or edits.
#[derive(Debug)]
struct GeminiNative;

impl NativeLoads for GeminiNative {
    fn loads_natively(&self, trigger: LoadTrigger<'_>, rule: &LoadedRule) -> bool {
        rule.source == "gemini"
            && match trigger {
                LoadTrigger::Startup => true,
                LoadTrigger::Tool(tool) => {
                    matches!(tool, "read" | "write" | "edit" | "list_directory")
                }
                _ => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_knows_its_own_names_only() {
        for file in [
            "CLAUDE.md",
            "src/ui/CLAUDE.md",
            "src/.claude/CLAUDE.md",
            "CLAUDE.local.md",
            ".claude/rules/ui.md",
            "src/.claude/rules/deep/x.md",
            "/home/u/.claude/rules/mine.md",
        ] {
            assert!(claude_reads(file), "{file}");
        }
        for file in [
            "claude.md",
            ".claude.md",
            ".claude/instructions.md",
            "AGENTS.md",
        ] {
            assert!(!claude_reads(file), "{file}");
        }
    }
}
