//! Fuzz target: any bytes given to the hook payload parser return, and a parsed payload keeps its promises.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The agents the parser tells apart (the binary's own enum, restated so
/// the parser's module can be compiled here on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentKind {
    ClaudeCode,
    Codex,
    Gemini,
}

#[allow(dead_code, reason = "the parser's module is shared with the binary")]
#[path = "../../src/cmd/hook/payload.rs"]
mod payload;

fuzz_target!(|data: &[u8]| {
    // The first byte picks how the agent is told: named, or recognised.
    let (agent, payload) = match data.split_first() {
        Some((b, rest)) => (
            match b % 4 {
                0 => None,
                1 => Some(AgentKind::ClaudeCode),
                2 => Some(AgentKind::Codex),
                _ => Some(AgentKind::Gemini),
            },
            rest,
        ),
        None => (None, data),
    };
    if let Ok(parsed) = payload::parse(payload, agent) {
        assert!(!parsed.session_id.is_empty());
        if let Some(agent) = agent {
            assert_eq!(parsed.agent, agent);
        }
    }
});
