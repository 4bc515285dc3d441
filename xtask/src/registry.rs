//! The tool registry checks: the library audit over everything this workspace registers, the agents' name tables against it, and a harness's tool list.

use std::path::Path;

use anyhow::Context as _;
use jit_core::{AuditProblem, Registry};

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
            warnings: Vec::new(),
        },
        Err(report) => Check {
            name: "registry",
            summary: format!(
                "{} problem(s) in the tool registry",
                report.problems().len()
            ),
            problems: report.problems().iter().map(ToString::to_string).collect(),
            warnings: Vec::new(),
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
            warnings: Vec::new(),
        },
        Err(problems) => Check {
            name: "agent tables",
            summary: format!("{} problem(s) in the agents' name tables", problems.len()),
            problems,
            warnings: Vec::new(),
        },
    }
}

/// Checks the tools a harness exposes, read from the JSON tool list at
/// `path`, against everything this workspace registers. An unreadable file
/// is an error (exit 2), never an empty list that passes.
pub(crate) fn exposed(path: &Path) -> anyhow::Result<Check> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the tool list {}", path.display()))?;
    let names = jit_core::tool_names_from_json(&text)
        .with_context(|| format!("cannot read the tool list {}", path.display()))?;
    let exposed: Vec<&str> = names.iter().map(String::as_str).collect();
    let (problems, warnings) = match jit_core::audit_tools(&Registry::from_inventory(), &exposed) {
        Ok(warnings) => (Vec::new(), warnings),
        Err(report) => (report.problems().to_vec(), report.warnings().to_vec()),
    };
    let summary = if problems.is_empty() {
        format!(
            "{} exposed tools, each with exactly one path reporter",
            names.len()
        )
    } else {
        format!(
            "{} problem(s) in the {} tools {} exposes",
            problems.len(),
            names.len(),
            path.display()
        )
    };
    // Registered tools the harness leaves out are one line, not two dozen.
    let unexposed: Vec<&str> = warnings.iter().filter_map(AuditProblem::tool).collect();
    Ok(Check {
        name: "tools",
        summary,
        problems: problems.iter().map(ToString::to_string).collect(),
        warnings: if unexposed.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "{} registered tools are not exposed (harmless unless the harness exposes one \
                 under another name): {}",
                unexposed.len(),
                unexposed.join(", ")
            )]
        },
    })
}
