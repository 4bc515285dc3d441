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
    for agent in [None, Some(AgentKind::ClaudeCode), Some(AgentKind::Codex), Some(AgentKind::Gemini)] {
        if let Ok(payload) = payload::parse(data, agent) {
            assert!(!payload.session_id.is_empty());
            if let Some(agent) = agent {
                assert_eq!(payload.agent, agent);
            }
        }
    }
});
