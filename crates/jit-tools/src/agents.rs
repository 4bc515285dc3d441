//! The agents' name tables: which registered tool answers for each tool name Claude Code, Codex CLI and Gemini CLI use, and their audit.

use std::collections::BTreeMap;

use jit_base::Registry;

/// A coding agent whose tool names jit knows.
///
/// Each agent names its tools its own way (`Read`, `read_file`); its
/// [`tool_table`](Agent::tool_table) maps every name it uses to a tool
/// registered in jit's registry, whose reporter then says which paths the
/// call touched.
///
/// ```
/// use jit_base::Registry;
/// use jit_tools::Agent;
///
/// assert_eq!(Agent::ClaudeCode.registered_tool("MultiEdit"), Some("edit"));
/// assert_eq!(Agent::Gemini.registered_tool("glob"), Some("gemini_glob"));
/// // A name outside the table is never guessed: the caller logs it as unregistered.
/// assert_eq!(Agent::ClaudeCode.registered_tool("mcp__github__get_file"), None);
///
/// let tool = Agent::Codex.registered_tool("apply_patch").ok_or("not in the table")?;
/// let patch = "*** Begin Patch\n*** Add File: src/a.rs\n+fn a() {}\n*** End Patch";
/// let touched = Registry::from_inventory().affected_paths(
///     tool,
///     &serde_json::json!({"command": patch}),
///     "/project".into(),
/// )?;
/// assert_eq!(touched.paths, ["src/a.rs"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
}

/// Claude Code's tools. Read, Write, Edit and MultiEdit send an absolute
/// `file_path`, NotebookEdit a `notebook_path`, Glob `{pattern, path?}`,
/// Grep `{pattern, path?, glob?}`, LS `path` and Bash `command`: the
/// standard reporters' fields.
const CLAUDE_CODE: &[(&str, &str)] = &[
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("MultiEdit", "edit"),
    ("NotebookEdit", "notebook_edit"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("LS", "ls"),
    ("Bash", "bash"),
    ("WebFetch", "web_fetch"),
    ("WebSearch", "web_search"),
    ("TodoWrite", "todo_write"),
    ("Task", "task"),
    // The newer name of `Task`.
    ("Agent", "task"),
    ("BashOutput", "bash_output"),
    ("KillBash", "kill_shell"),
    // The newer name of `KillBash`.
    ("KillShell", "kill_shell"),
    ("ExitPlanMode", "exit_plan_mode"),
    ("AskUserQuestion", "ask_user"),
    ("Skill", "skill"),
];

/// Codex CLI's tools. File edits arrive as `apply_patch` with the raw patch
/// text in `command`.
const CODEX: &[(&str, &str)] = &[
    ("Bash", "bash"),
    ("apply_patch", "apply_patch"),
    ("update_plan", "update_plan"),
];

/// Gemini CLI's tools. Its directory arguments are named `dir_path`, so its
/// glob, grep, listing and shell tools have registrations of their own.
const GEMINI: &[(&str, &str)] = &[
    ("read_file", "read"),
    ("write_file", "write"),
    ("replace", "edit"),
    ("list_directory", "list_directory"),
    ("glob", "gemini_glob"),
    ("grep_search", "grep_search"),
    // The older name of `grep_search`.
    ("search_file_content", "grep_search"),
    ("read_many_files", "read_many_files"),
    ("run_shell_command", "run_shell_command"),
    ("web_fetch", "web_fetch"),
    ("google_web_search", "web_search"),
    ("save_memory", "save_memory"),
    ("write_todos", "todo_write"),
];

impl Agent {
    /// Every agent, in a stable order.
    pub const ALL: [Agent; 3] = [Agent::ClaudeCode, Agent::Codex, Agent::Gemini];

    /// The agent's name on the command line and in logs: `claude-code`,
    /// `codex` or `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The agent's name table: each entry is (the agent's tool name, the
    /// registered tool that answers for it). Several agent names may map to
    /// one registered tool; each agent name appears once.
    pub fn tool_table(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Agent::ClaudeCode => CLAUDE_CODE,
            Agent::Codex => CODEX,
            Agent::Gemini => GEMINI,
        }
    }

    /// The registered tool that answers for the agent's tool `agent_tool`,
    /// matched exactly and case-sensitively (`Read`, never `read`). `None`
    /// for a name outside the table, such as an MCP tool: its paths are
    /// unknown, and nothing is guessed from its name or fields.
    pub fn registered_tool(self, agent_tool: &str) -> Option<&'static str> {
        self.tool_table()
            .iter()
            .find(|(name, _)| *name == agent_tool)
            .map(|&(_, tool)| tool)
    }
}

/// Checks every agent's name table against `registry`: each entry must name
/// a registered tool that has a path reporter, and no agent tool name may
/// appear twice in one table. Every problem is listed, each saying how to
/// fix it.
///
/// Run it over the registry a binary links, next to [`jit_base::audit`]:
///
/// ```
/// use jit_base::Registry;
/// use jit_tools as _;
///
/// let registry = Registry::from_inventory();
/// jit_base::audit(&registry)?;
/// // Every entry has a reporter; without the `bash` feature (on by default)
/// // the shell entries have none, and this lists them.
/// #[cfg(feature = "bash")]
/// jit_tools::audit_agent_tables(&registry).map_err(|problems| problems.join("\n"))?;
///
/// // Without jit-tools' registrations, every entry names an unknown tool.
/// let problems = jit_tools::audit_agent_tables(&Registry::empty()).unwrap_err();
/// assert!(problems[0].contains("not a registered tool"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit_agent_tables(registry: &Registry) -> Result<(), Vec<String>> {
    let tables: Vec<(&str, &[(&str, &str)])> = Agent::ALL
        .iter()
        .map(|agent| (agent.name(), agent.tool_table()))
        .collect();
    audit_tables(registry, &tables)
}

/// [`audit_agent_tables`] over any set of (agent name, table) pairs, so a
/// test can hand it a broken table.
fn audit_tables(
    registry: &Registry,
    tables: &[(&str, &[(&str, &str)])],
) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    for &(agent, table) in tables {
        let mut targets: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for &(agent_tool, tool) in table {
            targets.entry(agent_tool).or_default().push(tool);
            if registry.tool_sources(tool).is_empty() {
                problems.push(format!(
                    "agent `{agent}`: its tool `{agent_tool}` maps to `{tool}`, which is not a \
                     registered tool, so every `{agent_tool}` call would be logged as \
                     unregistered. Fix the entry in `crates/jit-tools/src/agents.rs` to name a \
                     registered tool, or register `{tool}` with its reporter \
                     (`register!(\"{tool}\", YourReporter)` in jit-tools)"
                ));
            } else if registry.reporter_sources(tool).is_empty() {
                problems.push(format!(
                    "agent `{agent}`: its tool `{agent_tool}` maps to `{tool}`, which is \
                     registered but has no path reporter. Register one next to the tool: \
                     `jit_core::ReporterRegistration::new(\"{tool}\", &YourReporter, module_path!())`, \
                     or `&jit_core::TouchesNothing` if it touches no local file"
                ));
            }
        }
        for (agent_tool, tools) in targets {
            if tools.len() > 1 {
                problems.push(format!(
                    "agent `{agent}`: its tool `{agent_tool}` appears {} times in the table \
                     (mapping to {}); only the first entry would ever answer. Keep exactly one \
                     entry for `{agent_tool}` in `crates/jit-tools/src/agents.rs`",
                    tools.len(),
                    tools
                        .iter()
                        .map(|tool| format!("`{tool}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jit_base::TouchesNothing;
    use pretty_assertions::assert_eq;

    /// `read` has a reporter, `orphan` is registered without one, nothing else exists.
    fn registry() -> Registry {
        let mut registry = Registry::empty();
        registry.register_tool("read", "test");
        registry.register_reporter("read", TouchesNothing, "test");
        registry.register_tool("orphan", "test");
        registry
    }

    #[track_caller]
    fn check(table: &[(&str, &str)], expected: &[&str]) {
        let problems = match audit_tables(&registry(), &[("test-agent", table)]) {
            Ok(()) => Vec::new(),
            Err(problems) => problems,
        };
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
        for (problem, expected) in problems.iter().zip(expected) {
            assert!(
                problem.contains(expected),
                "{problem:?} should contain {expected:?}"
            );
        }
    }

    #[test]
    fn a_table_of_registered_reported_tools_passes() {
        check(&[("Read", "read"), ("View", "read")], &[]);
    }

    #[test]
    fn an_entry_naming_an_unregistered_tool_fails_and_says_how_to_fix_it() {
        check(
            &[("Read", "read"), ("Fetch", "fetch")],
            &[
                "agent `test-agent`: its tool `Fetch` maps to `fetch`, which is not a registered \
               tool, so every `Fetch` call would be logged as unregistered. Fix the entry in \
               `crates/jit-tools/src/agents.rs`",
            ],
        );
    }

    #[test]
    fn an_entry_naming_a_tool_without_a_reporter_fails() {
        check(
            &[("Orphan", "orphan")],
            &[
                "its tool `Orphan` maps to `orphan`, which is registered but has no path reporter. \
               Register one next to the tool",
            ],
        );
    }

    #[test]
    fn an_agent_tool_listed_twice_fails_even_when_both_targets_exist() {
        check(
            &[("Read", "read"), ("Write", "read"), ("Read", "read")],
            &[
                "its tool `Read` appears 2 times in the table (mapping to `read`, `read`); only \
               the first entry would ever answer. Keep exactly one entry for `Read`",
            ],
        );
    }

    #[test]
    fn every_problem_is_listed_not_only_the_first() {
        check(
            &[("A", "nope"), ("B", "orphan"), ("A", "read")],
            &[
                "`A` maps to `nope`",
                "`B` maps to `orphan`",
                "`A` appears 2 times",
            ],
        );
    }

    #[cfg(feature = "bash")]
    #[test]
    fn the_shipped_tables_pass_against_this_crates_registrations() {
        if let Err(problems) = audit_agent_tables(&Registry::from_inventory()) {
            panic!("{}", problems.join("\n"));
        }
    }

    /// Without the `bash` feature the shell tools are not registered: the
    /// tables still build, every other entry still passes, and the shell
    /// entries and an exposed shell tool are reported, not silently dropped.
    #[cfg(not(feature = "bash"))]
    #[test]
    fn without_the_bash_feature_only_the_shell_entries_are_unreported() {
        let registry = Registry::from_inventory();
        let problems = audit_agent_tables(&registry).unwrap_err();
        let unreported: Vec<&str> = problems
            .iter()
            .filter_map(|problem| problem.split('`').nth(3))
            .collect();
        assert_eq!(
            unreported,
            ["Bash", "Bash", "run_shell_command"],
            "{problems:#?}"
        );
        assert!(
            problems
                .iter()
                .all(|p| p.contains("which is not a registered tool")),
            "{problems:#?}"
        );

        let report = jit_base::audit_tools(&registry, &["bash", "read"]).unwrap_err();
        assert_eq!(
            report.problems(),
            [jit_base::AuditProblem::ExposedWithoutReporter {
                tool: "bash".to_owned(),
                registered_as: None,
            }]
        );
    }

    #[test]
    fn agent_names_are_distinct_and_all_lists_every_agent() {
        let names: std::collections::BTreeSet<&str> =
            Agent::ALL.iter().map(|agent| agent.name()).collect();
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["claude-code", "codex", "gemini"]
        );
    }
}
