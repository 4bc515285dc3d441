//! Fuzz target: an install then an uninstall of jit's hooks gives back every byte of a settings file that jit does not own.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

/// The agents whose settings jit edits (the binary's own enum, restated so
/// the install modules can be compiled here on their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentKind {
    ClaudeCode,
    Codex,
    Gemini,
}

impl AgentKind {
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
        }
    }
}

/// Where the install modules look for the agent type.
mod cmd {
    pub mod hook {
        pub use crate::AgentKind;
    }
}

#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/cmd/hook/install/edit.rs"]
mod edit;
#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/cmd/hook/install/json.rs"]
mod json;
#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/cmd/hook/install/plan.rs"]
mod plan;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the agent, the rest is the settings file.
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let agent = match first % 3 {
        0 => AgentKind::ClaudeCode,
        1 => AgentKind::Codex,
        _ => AgentKind::Gemini,
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // What install refuses (not JSON, a repeated key) it leaves alone.
    let Ok((original, style)) = json::parse(text) else {
        return;
    };
    let spec = plan::Spec::of(agent);
    let ours = plan::Ours::new(agent, Some(Path::new("/usr/local/bin/jit")));
    let command = plan::command_line("/usr/local/bin/jit", agent);

    // A file that holds no entry of jit's is the user's through and through.
    let mut probe = original.clone();
    let users_only = plan::uninstall(&mut probe, &ours, None).is_ok_and(|r| r.removed.is_empty());

    let mut installed = original.clone();
    if plan::install(&mut installed, spec, &command, &ours).is_err() {
        return;
    }
    let after_install = if installed == original {
        text.to_owned()
    } else {
        edit::rewrite(text, &original, &installed, &style).expect("an installed document renders")
    };
    let (reread, style2) = json::parse(&after_install).expect("what install writes parses back");
    assert!(reread == installed, "what install writes reads back as what it planned");

    // A second install changes nothing.
    let mut again = reread.clone();
    plan::install(&mut again, spec, &command, &ours).expect("a second install is accepted");
    assert!(again == reread, "a second install changes nothing");

    let mut uninstalled = reread.clone();
    plan::uninstall(&mut uninstalled, &ours, Some(&original))
        .expect("uninstall accepts what install wrote");
    if users_only {
        // The uninstall puts the backup (the user's bytes) back when the
        // document is the original again, so this is what keeps every byte.
        assert_eq!(
            uninstalled.to_value(),
            original.to_value(),
            "uninstall after install gives back the user's document"
        );
        let after_uninstall = edit::rewrite(&after_install, &reread, &uninstalled, &style2)
            .expect("an uninstalled document renders");
        let (back, _) = json::parse(&after_uninstall).expect("what uninstall writes parses back");
        assert!(back == uninstalled, "what uninstall writes reads back as what it planned");
    }
});
