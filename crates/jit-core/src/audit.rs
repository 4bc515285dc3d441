//! The registry audit: every tool has exactly one path reporter, and every reporter has a tool.

use std::fmt;

use crate::registry::Registry;

/// Checks a [`Registry`] in both directions and fails closed.
///
/// A registered tool without a reporter fails, a reporter for a tool that is
/// not registered fails, two reporters (or two registrations) for one name
/// fail, and an empty registry fails too: it almost always means a plug-in
/// crate was never named and so never linked. Every problem is listed, each
/// with how to fix it.
///
/// Harness authors call it in a test of their own, over everything their
/// binary links:
///
/// ```
/// use jit_core::{Registry, TouchesNothing};
/// let mut registry = Registry::empty();
/// registry.register_tool("web_fetch", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// jit_core::audit(&registry)?;
///
/// registry.register_tool("deploy", "my_harness");
/// let report = jit_core::audit(&registry).unwrap_err();
/// assert!(report.to_string().contains("tool `deploy`"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit(registry: &Registry) -> Result<(), AuditReport> {
    let mut problems = Vec::new();
    if registry.tools().next().is_none() && registry.reported_tools().next().is_none() {
        problems.push(AuditProblem::Empty);
    }
    for tool in registry.tools() {
        let registered_in = registry.tool_sources(tool).to_vec();
        if registered_in.len() > 1 {
            problems.push(AuditProblem::DuplicateTool {
                tool: tool.to_owned(),
                registered_in: registered_in.clone(),
            });
        }
        let reporters_in = owned(registry.reporter_sources(tool));
        match reporters_in.len() {
            0 => problems.push(AuditProblem::ToolWithoutReporter {
                tool: tool.to_owned(),
                registered_in,
            }),
            1 => {}
            _ => problems.push(AuditProblem::DuplicateReporters {
                tool: tool.to_owned(),
                reporters_in,
            }),
        }
    }
    for tool in registry.reported_tools() {
        if registry.tool_sources(tool).is_empty() {
            problems.push(AuditProblem::ReporterWithoutTool {
                tool: tool.to_owned(),
                reporters_in: owned(registry.reporter_sources(tool)),
            });
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(AuditReport { problems })
    }
}

fn owned(sources: Vec<&str>) -> Vec<String> {
    sources.into_iter().map(str::to_owned).collect()
}

/// Everything [`audit`] found wrong, in a stable order: by tool name, with
/// reporters that have no tool last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditReport {
    problems: Vec<AuditProblem>,
}

impl AuditReport {
    /// The problems found; never empty.
    pub fn problems(&self) -> &[AuditProblem] {
        &self.problems
    }
}

impl fmt::Display for AuditReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let plural = if count == 1 { "" } else { "s" };
        write!(f, "tool registry audit failed ({count} problem{plural})")?;
        for problem in &self.problems {
            write!(f, "\n- {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AuditReport {}

/// One thing [`audit`] found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditProblem {
    /// Nothing is registered at all.
    Empty,
    /// A tool is registered but nothing reports the paths its calls touch.
    ToolWithoutReporter {
        /// The tool's name.
        tool: String,
        /// Where the tool was registered.
        registered_in: Vec<String>,
    },
    /// A reporter answers for a tool name that no one registered.
    ReporterWithoutTool {
        /// The tool name the reporter was registered for.
        tool: String,
        /// Where the reporter was registered.
        reporters_in: Vec<String>,
    },
    /// More than one reporter answers for the same tool.
    DuplicateReporters {
        /// The tool's name.
        tool: String,
        /// Where each reporter was registered.
        reporters_in: Vec<String>,
    },
    /// The same tool name is registered more than once.
    DuplicateTool {
        /// The tool's name.
        tool: String,
        /// Where each registration was made.
        registered_in: Vec<String>,
    },
}

impl AuditProblem {
    /// The tool this problem is about, if it is about one.
    pub fn tool(&self) -> Option<&str> {
        match self {
            AuditProblem::Empty => None,
            AuditProblem::ToolWithoutReporter { tool, .. }
            | AuditProblem::ReporterWithoutTool { tool, .. }
            | AuditProblem::DuplicateReporters { tool, .. }
            | AuditProblem::DuplicateTool { tool, .. } => Some(tool),
        }
    }
}

impl fmt::Display for AuditProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditProblem::Empty => write!(
                f,
                "no tool is registered. A plug-in crate that is never named is not linked and its \
                 registrations vanish: name the crates you rely on in this binary, for example \
                 `use jit_tools as _;`"
            ),
            AuditProblem::ToolWithoutReporter {
                tool,
                registered_in,
            } => write!(
                f,
                "tool `{tool}` (registered in {}) has no path reporter, so its calls would never \
                 trigger rules. Register one next to the tool: \
                 `jit_core::inventory::submit! {{ jit_core::ReporterRegistration::new(\"{tool}\", &YourReporter, module_path!()) }}`; \
                 if the tool touches no local file, say so with `&jit_core::TouchesNothing`",
                list(registered_in)
            ),
            AuditProblem::ReporterWithoutTool { tool, reporters_in } => write!(
                f,
                "a path reporter is registered for `{tool}` (in {}) but no tool of that name is. \
                 Register the tool with \
                 `jit_core::inventory::submit! {{ jit_core::ToolRegistration::new(\"{tool}\", module_path!()) }}`, \
                 fix the reporter's tool name if it is a typo, or remove the reporter",
                list(reporters_in)
            ),
            AuditProblem::DuplicateReporters { tool, reporters_in } => write!(
                f,
                "tool `{tool}` has {} path reporters (in {}); which one answers would depend on \
                 link order. Keep exactly one and remove the others",
                reporters_in.len(),
                list(reporters_in)
            ),
            AuditProblem::DuplicateTool {
                tool,
                registered_in,
            } => write!(
                f,
                "tool `{tool}` is registered {} times (in {}); two tools cannot share a name. \
                 Remove the duplicate registration or rename one of the tools",
                registered_in.len(),
                list(registered_in)
            ),
        }
    }
}

fn list(sources: &[String]) -> String {
    sources
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TouchesNothing;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check(registry: &Registry, expected: &[(&str, Option<&str>)]) {
        let actual: Vec<(String, Option<String>)> = match audit(registry) {
            Ok(()) => Vec::new(),
            Err(report) => report
                .problems()
                .iter()
                .map(|p| {
                    let kind = match p {
                        AuditProblem::Empty => "empty",
                        AuditProblem::ToolWithoutReporter { .. } => "tool_without_reporter",
                        AuditProblem::ReporterWithoutTool { .. } => "reporter_without_tool",
                        AuditProblem::DuplicateReporters { .. } => "duplicate_reporters",
                        AuditProblem::DuplicateTool { .. } => "duplicate_tool",
                    };
                    (kind.to_owned(), p.tool().map(str::to_owned))
                })
                .collect(),
        };
        let expected: Vec<(String, Option<String>)> = expected
            .iter()
            .map(|(k, t)| ((*k).to_owned(), t.map(str::to_owned)))
            .collect();
        assert_eq!(actual, expected);
    }

    fn registry(tools: &[&str], reporters: &[&str]) -> Registry {
        let mut registry = Registry::empty();
        for tool in tools {
            registry.register_tool(tool, "test::tools");
        }
        for tool in reporters {
            registry.register_reporter(tool, TouchesNothing, "test::reporters");
        }
        registry
    }

    #[test]
    fn one_reporter_per_tool_passes() {
        check(&registry(&["a", "b"], &["b", "a"]), &[]);
    }

    #[test]
    fn an_empty_registry_fails_because_it_usually_means_nothing_was_linked() {
        check(&registry(&[], &[]), &[("empty", None)]);
    }

    #[test]
    fn every_problem_is_listed_not_only_the_first() {
        check(
            &registry(&["a", "b", "b", "c"], &["b", "c", "c", "d"]),
            &[
                ("tool_without_reporter", Some("a")),
                ("duplicate_tool", Some("b")),
                ("duplicate_reporters", Some("c")),
                ("reporter_without_tool", Some("d")),
            ],
        );
    }

    #[test]
    fn messages_name_the_tool_the_source_and_the_fix() {
        let Err(report) = audit(&registry(&["deploy"], &["dploy"])) else {
            panic!("the audit should fail");
        };
        let text = report.to_string();
        assert!(
            text.starts_with("tool registry audit failed (2 problems)"),
            "{text}"
        );
        assert!(
            text.contains("tool `deploy` (registered in `test::tools`) has no path reporter"),
            "{text}"
        );
        assert!(text.contains("TouchesNothing"), "{text}");
        assert!(
            text.contains("registered for `dploy` (in `test::reporters`)"),
            "{text}"
        );
        assert!(
            text.contains("fix the reporter's tool name if it is a typo"),
            "{text}"
        );
    }
}
