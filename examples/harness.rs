//! A minimal agent harness on jit-core: audit its own tools, then run a scripted model's tool calls through a `Session` and print the system prompt after each step.
//!
//! Run it with `cargo run --example harness`. A real harness would send the
//! prompt and the tool definitions to a model and execute the calls it gets
//! back; here a fixed script stands in for the model, and the calls are not
//! executed, only reported to the session, which is all jit needs.

use std::error::Error;
use std::io::Write;
use std::sync::Arc;

use jit_core::{CACHE_BOUNDARY, Engine, Registry, Session, SessionConfig, StartupOptions};
use serde_json::{Value, json};

// Linking jit-tools registers the standard tools' path reporters.
use jit_tools as _;

/// The tools this harness gives the model, named exactly as the model sees
/// them. The audit below fails if any has no path reporter.
const TOOLS: &[&str] = &["read", "write", "edit", "bash", "web_fetch"];

/// The rule files of the small project the example creates.
const PROJECT: &[(&str, &str)] = &[
    ("CLAUDE.md", "Every change comes with a test.\n"),
    (
        "src/api/CLAUDE.md",
        "Handlers validate their input first.\n",
    ),
    (
        "src/ui/CLAUDE.md",
        "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nNo colour emoji in components.\n",
    ),
    (
        ".claude/rules/tests.md",
        "---\npaths: [\"**/*.test.ts\"]\n---\nTests use the fake clock.\n",
    ),
    ("src/api/handler.ts", "export function handle() {}\n"),
    ("src/ui/Button.tsx", "export const Button = () => null;\n"),
];

/// What the model asks for, turn by turn: `(tool, input)`.
fn script() -> Vec<(&'static str, Value)> {
    vec![
        ("read", json!({"file_path": "src/api/handler.ts"})),
        (
            "web_fetch",
            json!({"url": "https://example.com/api-guidelines"}),
        ),
        (
            "edit",
            json!({"file_path": "src/ui/Button.tsx", "old_string": "null", "new_string": "<button/>"}),
        ),
        (
            "bash",
            json!({"command": "cat > src/api/handler.test.ts <<'EOF'\ntest('x', () => {})\nEOF"}),
        ),
        ("read", json!({"file_path": "src/api/handler.ts"})),
    ]
}

/// The harness's own part of the system prompt, rebuilt every turn as a
/// harness does; the session keeps the rule blocks after the boundary.
fn base_prompt(turn: usize) -> String {
    format!(
        "You are a coding agent. Tools: {}.\n{CACHE_BOUNDARY}\nTurn {turn}.\n",
        TOOLS.join(", ")
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    run(&mut std::io::stdout().lock())
}

/// The whole example, writing to `out`; a test runs it and checks what it prints.
pub fn run(out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    // 1. Before the first turn: every tool the model may call has exactly
    //    one path reporter, or the harness refuses to start.
    let registry = Arc::new(Registry::checked()?);
    let unexposed = jit_core::audit_tools(&registry, TOOLS)?;
    writeln!(
        out,
        "audit: {} exposed tools, each with exactly one path reporter ({} registered tools not exposed)",
        TOOLS.len(),
        unexposed.len()
    )?;

    // 2. A small project in a temporary directory.
    let dir = tempfile::tempdir()?;
    for (file, text) in PROJECT {
        let path = dir.path().join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    let mut engine = Engine::new(dir.path())?;
    // The engine lives as long as the agent loop: let it watch the tree, so
    // that a warm touch reads the kernel's event queue instead of a `stat`
    // per rule. Off Linux the engine keeps to `stat`, deciding the same.
    let _ = engine.watch();
    let engine = Arc::new(engine);
    let root = engine.root().to_owned();

    // 3. One session for the agent's context, over the audited registry.
    let config = SessionConfig::new().with_registry(Arc::clone(&registry));
    let mut session = Session::new(engine, config);
    session.set_system_prompt(base_prompt(0));
    // No home directory and no managed file: only the project's rules.
    let options = StartupOptions::new(root.clone()).with_managed(None);
    let (_, injection) = session.startup_injection(&options);
    print_step(out, &session, "startup", &injection.headers)?;

    // 4. The loop: the "model" asks for a tool call, the harness runs it
    //    (not here) and tells the session, then rebuilds the prompt.
    for (turn, (tool, input)) in script().into_iter().enumerate() {
        let injection = session.tool_call(tool, &input, &root)?;
        session.set_system_prompt(base_prompt(turn + 1));
        print_step(
            out,
            &session,
            &format!("{tool} {input}"),
            &injection.headers,
        )?;
    }
    Ok(())
}

/// Prints one step: the call, what it injected, and the prompt after it.
fn print_step(
    out: &mut impl Write,
    session: &Session,
    call: &str,
    headers: &[String],
) -> Result<(), Box<dyn Error>> {
    writeln!(out, "\n== step {}: {call}", session.step())?;
    if headers.is_empty() {
        writeln!(out, "injected: nothing")?;
    }
    for header in headers {
        writeln!(out, "injected: {header}")?;
    }
    writeln!(
        out,
        "-- system prompt --\n{}\n-- end --",
        session.prompt().text().trim_end()
    )?;
    Ok(())
}
