//! The registry audit: every tool has exactly one path reporter, and every reporter has a tool; and the audit of a harness's own tool list against it.

use std::collections::BTreeSet;
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
/// use jit_base::{Registry, TouchesNothing};
/// let mut registry = Registry::empty();
/// registry.register_tool("web_fetch", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// jit_base::audit(&registry)?;
///
/// registry.register_tool("deploy", "my_harness");
/// let report = jit_base::audit(&registry).unwrap_err();
/// assert!(report.to_string().contains("tool `deploy`"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit(registry: &Registry) -> Result<(), AuditReport> {
    let mut problems = Vec::new();
    if registry.tools().next().is_none() && registry.reported_tools().next().is_none() {
        problems.push(AuditProblem::Empty);
    }
    // Every binary that links the tool crates audits them at its start:
    // nothing is copied for a tool that passes.
    for tool in registry.tools() {
        let registered_in = registry.tool_sources(tool);
        if registered_in.len() > 1 {
            problems.push(AuditProblem::DuplicateTool {
                tool: tool.to_owned(),
                registered_in: registered_in.to_vec(),
            });
        }
        match registry.reporter_count(tool) {
            0 => problems.push(AuditProblem::ToolWithoutReporter {
                tool: tool.to_owned(),
                registered_in: registered_in.to_vec(),
            }),
            1 => {}
            _ => problems.push(AuditProblem::DuplicateReporters {
                tool: tool.to_owned(),
                reporters_in: owned(registry.reporter_sources(tool)),
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
        Err(AuditReport {
            problems,
            warnings: Vec::new(),
        })
    }
}

/// Checks the tools a harness exposes to its model against `registry`.
///
/// `exposed` holds the names exactly as the harness gives them to the model;
/// they are compared case-sensitively, because the model calls a tool by
/// that exact name and [`Registry::affected_paths`] looks it up that way.
///
/// Errors (the `Err` report's [`AuditReport::problems`]):
/// * everything [`audit`] finds in the registry itself (a tool without a
///   reporter, two reporters for one tool, ...): a registry that disagrees
///   with itself cannot answer for any tool reliably;
/// * an exposed tool that no registration answers for
///   ([`AuditProblem::ExposedWithoutReporter`]), with the registered
///   spelling when only the case differs (`Read` against `read`);
/// * a name exposed twice ([`AuditProblem::ExposedTwice`]).
///
/// Warnings ([`AuditProblem::ReporterNotExposed`]): a registered tool the
/// harness does not expose. They never fail the audit, because linking a
/// plug-in crate registers every tool it knows (jit-tools registers two
/// dozen) and a harness exposes only some of them; an unused reporter
/// answers no call. They come back in `Ok`, and in the report beside the
/// errors.
///
/// ```
/// use jit_base::{AuditProblem, Registry, TouchesNothing};
/// let mut registry = Registry::empty();
/// for tool in ["read", "web_fetch"] {
///     registry.register_tool(tool, "my_harness");
///     registry.register_reporter(tool, TouchesNothing, "my_harness");
/// }
/// let warnings = jit_base::audit_tools(&registry, &["read"])?;
/// assert_eq!(warnings[0].tool(), Some("web_fetch"));
///
/// let report = jit_base::audit_tools(&registry, &["Read"]).unwrap_err();
/// assert!(matches!(
///     &report.problems()[0],
///     AuditProblem::ExposedWithoutReporter { registered_as: Some(name), .. } if name == "read"
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit_tools(
    registry: &Registry,
    exposed: &[&str],
) -> Result<Vec<AuditProblem>, AuditReport> {
    let mut problems = match audit(registry) {
        Ok(()) => Vec::new(),
        Err(report) => report.problems,
    };
    let mut seen = BTreeSet::new();
    let mut twice = BTreeSet::new();
    for &tool in exposed {
        if !seen.insert(tool) {
            twice.insert(tool);
        }
    }
    for &tool in &seen {
        // A name the registry knows in any way (registered, or with a
        // reporter) is judged by `audit` above; only a name it does not know
        // at all is new here.
        if registry.tool_sources(tool).is_empty() && registry.reporter_count(tool) == 0 {
            problems.push(AuditProblem::ExposedWithoutReporter {
                tool: tool.to_owned(),
                registered_as: registry
                    .tools()
                    .find(|name| name.to_lowercase() == tool.to_lowercase())
                    .map(str::to_owned),
            });
        }
    }
    for tool in twice {
        problems.push(AuditProblem::ExposedTwice {
            tool: tool.to_owned(),
        });
    }
    // A reporter without a registered tool is already an error above.
    let warnings: Vec<AuditProblem> = registry
        .reported_tools()
        .filter(|tool| !seen.contains(tool) && !registry.tool_sources(tool).is_empty())
        .map(|tool| AuditProblem::ReporterNotExposed {
            tool: tool.to_owned(),
            reporters_in: owned(registry.reporter_sources(tool)),
        })
        .collect();
    if problems.is_empty() {
        Ok(warnings)
    } else {
        Err(AuditReport { problems, warnings })
    }
}

fn owned(sources: Vec<&str>) -> Vec<String> {
    sources.into_iter().map(str::to_owned).collect()
}

/// Everything [`audit`] or [`audit_tools`] found wrong, in a stable order:
/// by tool name, with reporters that have no tool after the registered
/// tools, and the harness's exposed names after those.
///
/// ```
/// use jit_base::{AuditProblem, Registry, TouchesNothing};
/// let mut registry = Registry::empty();
/// registry.register_tool("deploy", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// let report = registry.into_checked().unwrap_err();
/// assert!(matches!(
///     &report.problems()[0],
///     AuditProblem::ToolWithoutReporter { tool, .. } if tool == "deploy"
/// ));
/// assert!(matches!(
///     &report.problems()[1],
///     AuditProblem::ReporterWithoutTool { tool, .. } if tool == "web_fetch"
/// ));
/// assert!(report.to_string().starts_with("tool registry audit failed (2 problems)"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditReport {
    problems: Vec<AuditProblem>,
    warnings: Vec<AuditProblem>,
}

impl AuditReport {
    /// The problems found, each an error; never empty.
    pub fn problems(&self) -> &[AuditProblem] {
        &self.problems
    }

    /// What [`audit_tools`] noticed without failing (registered tools the
    /// harness does not expose); empty for [`audit`].
    pub fn warnings(&self) -> &[AuditProblem] {
        &self.warnings
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
        // Warnings are left out here: they are not why the audit failed,
        // and a harness that links jit-tools has two dozen of them.
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
    /// The harness exposes a tool that no registration answers for, under
    /// that exact (case-sensitive) name ([`audit_tools`]).
    ExposedWithoutReporter {
        /// The name as the harness exposes it.
        tool: String,
        /// A registered tool whose name differs only in case, if any.
        registered_as: Option<String>,
    },
    /// The harness's tool list names the same tool twice ([`audit_tools`]).
    ExposedTwice {
        /// The name listed more than once.
        tool: String,
    },
    /// A warning, never an error: a registered tool (with its reporter) that
    /// the harness does not expose ([`audit_tools`]).
    ReporterNotExposed {
        /// The registered tool's name.
        tool: String,
        /// Where its reporter was registered.
        reporters_in: Vec<String>,
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
            | AuditProblem::DuplicateTool { tool, .. }
            | AuditProblem::ExposedWithoutReporter { tool, .. }
            | AuditProblem::ExposedTwice { tool }
            | AuditProblem::ReporterNotExposed { tool, .. } => Some(tool),
        }
    }

    /// A stable snake_case name for this kind of problem, as used in JSON
    /// output (`tool_without_reporter`, `exposed_without_reporter`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            AuditProblem::Empty => "empty",
            AuditProblem::ToolWithoutReporter { .. } => "tool_without_reporter",
            AuditProblem::ReporterWithoutTool { .. } => "reporter_without_tool",
            AuditProblem::DuplicateReporters { .. } => "duplicate_reporters",
            AuditProblem::DuplicateTool { .. } => "duplicate_tool",
            AuditProblem::ExposedWithoutReporter { .. } => "exposed_without_reporter",
            AuditProblem::ExposedTwice { .. } => "exposed_twice",
            AuditProblem::ReporterNotExposed { .. } => "reporter_not_exposed",
        }
    }

    /// Whether this is a warning, which never fails an audit.
    pub fn is_warning(&self) -> bool {
        matches!(self, AuditProblem::ReporterNotExposed { .. })
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
            AuditProblem::ExposedWithoutReporter {
                tool,
                registered_as: Some(registered),
            } => write!(
                f,
                "tool `{tool}` is exposed to the model but no reporter answers for that exact \
                 name; tool names are case-sensitive, and the registered tool is `{registered}`. \
                 Expose it as `{registered}`, or register `{tool}` with a reporter of its own"
            ),
            AuditProblem::ExposedWithoutReporter {
                tool,
                registered_as: None,
            } => write!(
                f,
                "tool `{tool}` is exposed to the model but no reporter answers for it, so its \
                 calls would fail instead of triggering rules. Register it with a reporter: \
                 `jit_core::inventory::submit! {{ jit_core::ToolRegistration::new(\"{tool}\", module_path!()) }}` \
                 and `jit_core::ReporterRegistration::new(\"{tool}\", &YourReporter, module_path!())`; \
                 if the tool touches no local file, say so with `&jit_core::TouchesNothing`"
            ),
            AuditProblem::ExposedTwice { tool } => write!(
                f,
                "tool `{tool}` is listed more than once in the harness's tool list; model APIs \
                 reject a request whose tools share a name. Keep one definition"
            ),
            AuditProblem::ReporterNotExposed { tool, reporters_in } => write!(
                f,
                "tool `{tool}` has a reporter (in {}) but the harness does not expose it; \
                 harmless, unless the harness gives it to the model under another name",
                list(reporters_in)
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
                .map(|p| (p.kind().to_owned(), p.tool().map(str::to_owned)))
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
    fn a_registry_with_only_tools_or_only_reporters_is_not_empty() {
        check(
            &registry(&[], &["read"]),
            &[("reporter_without_tool", Some("read"))],
        );
        check(
            &registry(&["read"], &[]),
            &[("tool_without_reporter", Some("read"))],
        );
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

    /// `(kind, tool)` of every error and every warning of `audit_tools`.
    type Findings = Vec<(&'static str, String)>;

    #[track_caller]
    fn check_tools(
        registry: &Registry,
        exposed: &[&str],
        errors: &[(&str, &str)],
        warnings: &[(&str, &str)],
    ) {
        let pairs = |problems: &[AuditProblem]| -> Findings {
            problems
                .iter()
                .map(|p| (p.kind(), p.tool().unwrap_or("").to_owned()))
                .collect()
        };
        let (actual_errors, actual_warnings) = match audit_tools(registry, exposed) {
            Ok(warnings) => (Vec::new(), pairs(&warnings)),
            Err(report) => (pairs(report.problems()), pairs(report.warnings())),
        };
        let expect = |rows: &[(&str, &str)]| -> Vec<(String, String)> {
            rows.iter()
                .map(|(k, t)| ((*k).to_owned(), (*t).to_owned()))
                .collect()
        };
        let own = |rows: Findings| -> Vec<(String, String)> {
            rows.into_iter().map(|(k, t)| (k.to_owned(), t)).collect()
        };
        assert_eq!(own(actual_errors), expect(errors), "errors");
        assert_eq!(own(actual_warnings), expect(warnings), "warnings");
        for problem in audit_tools(registry, exposed)
            .err()
            .iter()
            .flat_map(|r| r.problems())
        {
            assert!(!problem.is_warning(), "{problem}");
        }
    }

    #[test]
    fn every_exposed_tool_with_one_reporter_passes() {
        check_tools(
            &registry(&["read", "web_fetch"], &["read", "web_fetch"]),
            &["web_fetch", "read"],
            &[],
            &[],
        );
    }

    #[test]
    fn an_exposed_tool_with_no_reporter_fails() {
        check_tools(
            &registry(&["read"], &["read"]),
            &["read", "deploy"],
            &[("exposed_without_reporter", "deploy")],
            &[],
        );
    }

    #[test]
    fn an_exposed_tool_the_registry_knows_is_judged_by_the_registry_alone() {
        // Registered without a reporter, or a reporter without a
        // registration: the registry's own problem, not an unknown name.
        check_tools(
            &registry(&["read", "deploy"], &["read"]),
            &["read", "deploy"],
            &[("tool_without_reporter", "deploy")],
            &[],
        );
        check_tools(
            &registry(&["read"], &["read", "deploy"]),
            &["read", "deploy"],
            &[("reporter_without_tool", "deploy")],
            &[],
        );
    }

    #[test]
    fn names_are_case_sensitive_and_the_message_suggests_the_registered_spelling() {
        let registry = registry(&["read"], &["read"]);
        check_tools(
            &registry,
            &["Read"],
            &[("exposed_without_reporter", "Read")],
            &[("reporter_not_exposed", "read")],
        );
        let Err(report) = audit_tools(&registry, &["Read"]) else {
            panic!("`Read` must not pass for `read`");
        };
        let text = report.to_string();
        assert!(
            text.contains("tool `Read` is exposed to the model"),
            "{text}"
        );
        assert!(
            text.contains("the registered tool is `read`. Expose it as `read`"),
            "{text}"
        );
    }

    #[test]
    fn a_duplicate_reporter_fails_even_for_a_tool_the_harness_exposes() {
        check_tools(
            &registry(&["read"], &["read", "read"]),
            &["read"],
            &[("duplicate_reporters", "read")],
            &[],
        );
    }

    #[test]
    fn a_name_exposed_twice_fails() {
        check_tools(
            &registry(&["read"], &["read"]),
            &["read", "read"],
            &[("exposed_twice", "read")],
            &[],
        );
    }

    #[test]
    fn a_reporter_for_a_tool_nobody_exposes_is_a_warning_not_an_error() {
        let registry = registry(&["read", "web_fetch"], &["read", "web_fetch"]);
        check_tools(
            &registry,
            &["read"],
            &[],
            &[("reporter_not_exposed", "web_fetch")],
        );
        let Ok(warnings) = audit_tools(&registry, &["read"]) else {
            panic!("a warning must not fail the audit");
        };
        assert!(warnings[0].is_warning());
        assert!(
            warnings[0].to_string().contains("does not expose it"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn a_registry_that_disagrees_with_itself_fails_the_tool_audit_too() {
        check_tools(
            &registry(&["read", "orphan"], &["read", "ghost"]),
            &["read"],
            &[
                ("tool_without_reporter", "orphan"),
                ("reporter_without_tool", "ghost"),
            ],
            &[],
        );
    }
}
