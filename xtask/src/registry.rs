//! The tool registry check: the library audit over everything this workspace registers.

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
