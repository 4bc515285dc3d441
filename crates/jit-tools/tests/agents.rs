//! The agents' name tables: every agent tool name maps to the registered tool stated here, exactly and case-sensitively, and agent-shaped calls report the paths they touch.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::collections::BTreeSet;

use camino::Utf8Path;
use jit_core::Registry;
use jit_tools::Agent;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// (agent, the agent's tool name, the registered tool it maps to). Every
/// table entry is listed here, so a changed or added entry changes this list.
const MAPPED: &[(Agent, &str, &str)] = &[
    (Agent::ClaudeCode, "Read", "read"),
    (Agent::ClaudeCode, "Write", "write"),
    (Agent::ClaudeCode, "Edit", "edit"),
    (Agent::ClaudeCode, "MultiEdit", "edit"),
    (Agent::ClaudeCode, "NotebookEdit", "notebook_edit"),
    (Agent::ClaudeCode, "Glob", "glob"),
    (Agent::ClaudeCode, "Grep", "grep"),
    (Agent::ClaudeCode, "LS", "ls"),
    (Agent::ClaudeCode, "Bash", "bash"),
    (Agent::ClaudeCode, "WebFetch", "web_fetch"),
    (Agent::ClaudeCode, "WebSearch", "web_search"),
    (Agent::ClaudeCode, "TodoWrite", "todo_write"),
    (Agent::ClaudeCode, "Task", "task"),
    (Agent::ClaudeCode, "Agent", "task"),
    (Agent::ClaudeCode, "BashOutput", "bash_output"),
    (Agent::ClaudeCode, "KillBash", "kill_shell"),
    (Agent::ClaudeCode, "KillShell", "kill_shell"),
    (Agent::ClaudeCode, "ExitPlanMode", "exit_plan_mode"),
    (Agent::ClaudeCode, "AskUserQuestion", "ask_user"),
    (Agent::ClaudeCode, "Skill", "skill"),
    (Agent::Codex, "Bash", "bash"),
    (Agent::Codex, "apply_patch", "apply_patch"),
    (Agent::Codex, "update_plan", "update_plan"),
    (Agent::Gemini, "read_file", "read"),
    (Agent::Gemini, "write_file", "write"),
    (Agent::Gemini, "replace", "edit"),
    (Agent::Gemini, "list_directory", "list_directory"),
    (Agent::Gemini, "glob", "gemini_glob"),
    (Agent::Gemini, "grep_search", "grep_search"),
    (Agent::Gemini, "search_file_content", "grep_search"),
    (Agent::Gemini, "read_many_files", "read_many_files"),
    (Agent::Gemini, "run_shell_command", "run_shell_command"),
    (Agent::Gemini, "web_fetch", "web_fetch"),
    (Agent::Gemini, "google_web_search", "web_search"),
    (Agent::Gemini, "save_memory", "save_memory"),
    (Agent::Gemini, "write_todos", "todo_write"),
];

/// Names an agent does not use: they map to nothing, so the hook logs them
/// as unregistered instead of guessing.
const UNMAPPED: &[(Agent, &str)] = &[
    // Case-sensitive: the registered name is not the agent's name.
    (Agent::ClaudeCode, "read"),
    (Agent::ClaudeCode, "READ"),
    (Agent::ClaudeCode, "multiedit"),
    (Agent::ClaudeCode, " Read"),
    (Agent::ClaudeCode, ""),
    (Agent::Gemini, "Read_File"),
    // MCP tools are outside every table.
    (Agent::ClaudeCode, "mcp__github__get_file"),
    (Agent::Gemini, "mcp_fs_read"),
    // Another agent's names.
    (Agent::ClaudeCode, "apply_patch"),
    (Agent::ClaudeCode, "read_file"),
    (Agent::Codex, "Read"),
    (Agent::Codex, "Edit"),
    (Agent::Gemini, "Read"),
    (Agent::Gemini, "Bash"),
    (Agent::Gemini, "apply_patch"),
];

#[track_caller]
fn check(agent: Agent, agent_tool: &str, expected: Option<&str>) {
    assert_eq!(
        agent.registered_tool(agent_tool),
        expected,
        "{} tool {agent_tool:?}",
        agent.name()
    );
}

#[test]
fn every_agent_tool_maps_to_the_tool_stated() {
    for &(agent, agent_tool, tool) in MAPPED {
        check(agent, agent_tool, Some(tool));
    }
}

#[test]
fn names_outside_a_table_map_to_nothing_and_matching_is_case_sensitive() {
    for &(agent, agent_tool) in UNMAPPED {
        check(agent, agent_tool, None);
    }
}

#[test]
fn the_tables_hold_exactly_the_entries_stated() {
    let actual: BTreeSet<(&str, &str, &str)> = Agent::ALL
        .iter()
        .flat_map(|agent| {
            agent
                .tool_table()
                .iter()
                .map(move |&(agent_tool, tool)| (agent.name(), agent_tool, tool))
        })
        .collect();
    let expected: BTreeSet<(&str, &str, &str)> = MAPPED
        .iter()
        .map(|&(agent, agent_tool, tool)| (agent.name(), agent_tool, tool))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn agent_names() {
    let names: Vec<&str> = Agent::ALL.iter().map(|agent| agent.name()).collect();
    assert_eq!(names, ["claude-code", "codex", "gemini"]);
}

#[test]
fn the_shipped_tables_pass_their_audit() {
    if let Err(problems) = jit_tools::audit_agent_tables(&Registry::from_inventory()) {
        panic!("{}", problems.join("\n"));
    }
}

/// One call as the agent sends it: its tool name is looked up in the agent's
/// table, and the registered tool's reporter answers.
#[track_caller]
fn check_call(agent: Agent, agent_tool: &str, input: Value, expected: &[&str]) {
    let tool = agent
        .registered_tool(agent_tool)
        .unwrap_or_else(|| panic!("{} has no tool {agent_tool:?}", agent.name()));
    let touched = Registry::from_inventory()
        .affected_paths(tool, &input, Utf8Path::new("/project"))
        .unwrap_or_else(|err| panic!("{} {agent_tool} {input}: {err}", agent.name()));
    assert_eq!(
        touched.paths,
        expected,
        "{} {agent_tool} {input}",
        agent.name()
    );
}

#[test]
fn claude_code_calls_match_the_standard_reporters() {
    let claude = Agent::ClaudeCode;
    let file = "/project/src/ui/Footer.tsx";
    check_call(claude, "Read", json!({"file_path": file}), &[file]);
    check_call(
        claude,
        "Write",
        json!({"file_path": file, "content": "x"}),
        &[file],
    );
    check_call(
        claude,
        "Edit",
        json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        &[file],
    );
    check_call(
        claude,
        "MultiEdit",
        json!({"file_path": file, "edits": [{"old_string": "a", "new_string": "b"}]}),
        &[file],
    );
    check_call(
        claude,
        "NotebookEdit",
        json!({"notebook_path": "/project/nb/a.ipynb", "new_source": "1"}),
        &["/project/nb/a.ipynb"],
    );
    check_call(
        claude,
        "Glob",
        json!({"pattern": "src/ui/**/*.tsx"}),
        &["src/ui"],
    );
    check_call(
        claude,
        "Glob",
        json!({"pattern": "**/*.ts", "path": "/project/web"}),
        &["/project/web"],
    );
    check_call(
        claude,
        "Grep",
        json!({"pattern": "TODO", "path": "/project/src", "glob": "*.rs"}),
        &["/project/src"],
    );
    check_call(
        claude,
        "LS",
        json!({"path": "/project/src"}),
        &["/project/src"],
    );
    check_call(
        claude,
        "Bash",
        json!({"command": "touch src/ui/New.tsx", "description": "create"}),
        &["src/ui/New.tsx"],
    );
    check_call(
        claude,
        "WebFetch",
        json!({"url": "https://x", "prompt": "p"}),
        &[],
    );
    check_call(
        claude,
        "Task",
        json!({"description": "d", "prompt": "read src/a.rs"}),
        &[],
    );
}

#[test]
fn codex_calls() {
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch";
    check_call(
        Agent::Codex,
        "apply_patch",
        json!({"command": patch}),
        &["src/lib.rs"],
    );
    check_call(
        Agent::Codex,
        "Bash",
        json!({"command": "mkdir -p web/sub"}),
        &["web/sub"],
    );
    check_call(
        Agent::Codex,
        "update_plan",
        json!({"plan": [{"step": "s", "status": "pending"}]}),
        &[],
    );
}

#[test]
fn gemini_calls_name_directories_dir_path() {
    let gemini = Agent::Gemini;
    let file = "/project/src/a.ts";
    check_call(gemini, "read_file", json!({"file_path": file}), &[file]);
    check_call(
        gemini,
        "write_file",
        json!({"file_path": file, "content": "x"}),
        &[file],
    );
    check_call(
        gemini,
        "replace",
        json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        &[file],
    );
    check_call(
        gemini,
        "list_directory",
        json!({"dir_path": "/project/src"}),
        &["/project/src"],
    );
    check_call(
        gemini,
        "glob",
        json!({"pattern": "**/*.ts", "dir_path": "/project/web"}),
        &["/project/web"],
    );
    check_call(
        gemini,
        "grep_search",
        json!({"pattern": "TODO", "dir_path": "src", "include": "*.ts"}),
        &["src"],
    );
    check_call(
        gemini,
        "search_file_content",
        json!({"pattern": "TODO", "dir_path": "web"}),
        &["web"],
    );
    check_call(
        gemini,
        "read_many_files",
        json!({"include": ["README.md", "src/ui/**/*.tsx", "**/*.ts"]}),
        &["README.md", "src/ui"],
    );
    check_call(
        gemini,
        "run_shell_command",
        json!({"command": "touch a.ts", "dir_path": "web"}),
        &["web/a.ts"],
    );
    check_call(gemini, "google_web_search", json!({"query": "q"}), &[]);
    check_call(gemini, "save_memory", json!({"fact": "f"}), &[]);
    check_call(
        gemini,
        "write_todos",
        json!({"todos": [{"description": "d", "status": "pending"}]}),
        &[],
    );
}
