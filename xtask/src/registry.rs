//! The tool registry checks: the library audit over everything this workspace registers, and the agents' name tables against it.

use jit_core::Registry;

use crate::Check;

/// Audits every tool and reporter linked into this binary.
pub(crate) fn check() -> Check {
    let registry = Registry::from_inventory();
    let tools = registry.tools().count();
    match jit_core::audit(&registry) {
        Ok(()) => Check {
            name: "registry",
            summary: format!("{tools} tools, each with exactly one path reporter"),
            problems: Vec::new(),
        },
        Err(report) => Check {
            name: "registry",
            summary: format!(
                "{} problem(s) in the tool registry",
                report.problems().len()
            ),
            problems: report.problems().iter().map(ToString::to_string).collect(),
        },
    }
}

/// Checks that every entry of every agent's name table names a registered
/// tool with a path reporter, and that no agent tool name appears twice.
pub(crate) fn agent_tables() -> Check {
    let registry = Registry::from_inventory();
    let entries: usize = jit_tools::Agent::ALL
        .iter()
        .map(|agent| agent.tool_table().len())
        .sum();
    match jit_tools::audit_agent_tables(&registry) {
        Ok(()) => Check {
            name: "agent tables",
            summary: format!(
                "{entries} agent tool names, each mapped to a registered tool with a reporter"
            ),
            problems: Vec::new(),
        },
        Err(problems) => Check {
            name: "agent tables",
            summary: format!("{} problem(s) in the agents' name tables", problems.len()),
            problems,
        },
    }
}
