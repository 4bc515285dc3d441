//! Tool path self-report: the `AffectedPaths` trait, the `inventory` registrations and the `Registry`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

use crate::audit::{AuditReport, audit};
use crate::error::{Error, ErrorKind};

/// A tool's pure answer to "which paths did this call touch".
///
/// Implementations read the call's JSON input and never the filesystem. Paths
/// come back as the call addressed them: relative paths stay relative to
/// `cwd`, and the engine resolves and contains them. Malformed input is an
/// error naming the tool and the field, never an empty answer.
///
/// ```
/// use camino::Utf8Path;
/// use jit_base::{AffectedPaths, Error, TouchedPaths};
///
/// struct Read;
/// impl AffectedPaths for Read {
///     fn affected_paths(&self, input: &serde_json::Value, _cwd: &Utf8Path) -> Result<TouchedPaths, Error> {
///         let path = input["file_path"]
///             .as_str()
///             .ok_or_else(|| Error::invalid_tool_input("read", "file_path", "missing or not a string"))?;
///         Ok(TouchedPaths::from_paths([path]))
///     }
/// }
///
/// let touched = Read.affected_paths(&serde_json::json!({"file_path": "src/a.rs"}), Utf8Path::new("/p"))?;
/// assert_eq!(touched.paths, ["src/a.rs"]);
/// assert!(Read.affected_paths(&serde_json::json!({}), Utf8Path::new("/p")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait AffectedPaths: Send + Sync {
    /// The paths this call touched, given its JSON `input` and working directory.
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error>;
}

/// What a tool call touched, plus what a reporter deliberately left out.
///
/// ```
/// use jit_base::TouchedPaths;
/// // `cp src/a.rs "$OUT"`: one path written, one word that cannot be known.
/// let touched = TouchedPaths::from_paths(["src/a.rs"]).with_skipped("$OUT", "variable");
/// assert_eq!(touched.paths, ["src/a.rs"]);
/// assert_eq!(touched.skipped[0].word, "$OUT");
/// assert_eq!(touched.skipped[0].reason, "variable");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TouchedPaths {
    /// The touched paths, as the call addressed them.
    pub paths: Vec<Utf8PathBuf>,
    /// Inputs the reporter saw but did not report, each with its reason
    /// (for example a shell word that holds a variable).
    pub skipped: Vec<SkippedInput>,
}

impl TouchedPaths {
    /// Touched paths with nothing skipped.
    pub fn from_paths<I, P>(paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<Utf8PathBuf>,
    {
        TouchedPaths {
            paths: paths.into_iter().map(Into::into).collect(),
            skipped: Vec::new(),
        }
    }

    /// Adds one skipped input with its reason.
    pub fn with_skipped(mut self, word: impl Into<String>, reason: impl Into<String>) -> Self {
        self.skipped.push(SkippedInput {
            word: word.into(),
            reason: reason.into(),
        });
        self
    }
}

/// An input a reporter saw and chose not to report as a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SkippedInput {
    /// The input as written (for example a shell word).
    pub word: String,
    /// Why it was not reported (`variable`, `glob`, `unsupported_command`, ...).
    pub reason: String,
}

/// The explicit reporter of a tool that touches no local file (`web_fetch`,
/// MCP tools whose `path` argument is not a local path). Registering it is a
/// statement, not a gap.
///
/// ```
/// use camino::Utf8Path;
/// use jit_base::{AffectedPaths, Registry, TouchesNothing};
/// // Even an input with a path-like field touches nothing local.
/// let input = serde_json::json!({"url": "https://example.com", "path": "/etc/hosts"});
/// let touched = TouchesNothing.affected_paths(&input, Utf8Path::new("/p"))?;
/// assert!(touched.paths.is_empty() && touched.skipped.is_empty());
///
/// // Registered for a tool, it satisfies the audit: the tool is accounted for.
/// let mut registry = Registry::empty();
/// registry.register_tool("web_fetch", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// assert!(registry.into_checked().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TouchesNothing;

impl AffectedPaths for TouchesNothing {
    fn affected_paths(
        &self,
        _input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        Ok(TouchedPaths::default())
    }
}

/// A tool the harness exposes, registered with `inventory::submit!`.
///
/// ```
/// jit_base::inventory::submit! { jit_base::ToolRegistration::new("my_tool", module_path!()) }
/// ```
#[derive(Debug)]
pub struct ToolRegistration {
    /// The tool's name as the model calls it.
    pub name: &'static str,
    /// Where it was registered (`module_path!()`), for audit messages.
    pub defined_in: &'static str,
}

impl ToolRegistration {
    /// A tool registration; pass `module_path!()` as `defined_in`.
    pub const fn new(name: &'static str, defined_in: &'static str) -> Self {
        ToolRegistration { name, defined_in }
    }
}

/// A path reporter for one tool, registered with `inventory::submit!`.
///
/// ```
/// use jit_base::{ReporterRegistration, TouchesNothing};
/// jit_base::inventory::submit! {
///     ReporterRegistration::new("web_fetch_example", &TouchesNothing, module_path!())
/// }
/// ```
pub struct ReporterRegistration {
    /// The tool this reporter answers for.
    pub tool: &'static str,
    /// The reporter.
    pub reporter: &'static dyn AffectedPaths,
    /// Where it was registered (`module_path!()`), for audit messages.
    pub defined_in: &'static str,
}

impl ReporterRegistration {
    /// A reporter registration; pass `module_path!()` as `defined_in`.
    pub const fn new(
        tool: &'static str,
        reporter: &'static dyn AffectedPaths,
        defined_in: &'static str,
    ) -> Self {
        ReporterRegistration {
            tool,
            reporter,
            defined_in,
        }
    }
}

impl fmt::Debug for ReporterRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReporterRegistration")
            .field("tool", &self.tool)
            .field("defined_in", &self.defined_in)
            .finish_non_exhaustive()
    }
}

inventory::collect!(ToolRegistration);
inventory::collect!(ReporterRegistration);

/// One reporter in a [`Registry`], with where it came from.
#[derive(Clone)]
struct ReporterEntry {
    reporter: Reporter,
    defined_in: Cow<'static, str>,
}

/// A reporter linked in through `inventory` (borrowed for the process's
/// life: every process that audits its registry builds one, so nothing is
/// copied for it), or one registered at run time.
#[derive(Clone)]
enum Reporter {
    Linked(&'static dyn AffectedPaths),
    Registered(Arc<dyn AffectedPaths>),
}

impl Reporter {
    fn get(&self) -> &dyn AffectedPaths {
        match self {
            Reporter::Linked(reporter) => *reporter,
            Reporter::Registered(reporter) => reporter.as_ref(),
        }
    }
}

/// The tools and path reporters a harness knows, from `inventory` and/or
/// registered at run time.
///
/// ```
/// use jit_base::{Registry, TouchesNothing};
/// let mut registry = Registry::empty();
/// registry.register_tool("web_fetch", "my_harness");
/// registry.register_reporter("web_fetch", TouchesNothing, "my_harness");
/// let touched = registry.affected_paths("web_fetch", &serde_json::json!({"url": "https://x"}), "/p".into())?;
/// assert!(touched.paths.is_empty());
/// assert_eq!(
///     registry.affected_paths("nope", &serde_json::json!({}), "/p".into()).unwrap_err().kind(),
///     jit_base::ErrorKind::UnregisteredTool,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<Cow<'static, str>, Vec<String>>,
    reporters: BTreeMap<Cow<'static, str>, Vec<ReporterEntry>>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("reporters", &self.reporters.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Registry {
    /// A registry with nothing in it.
    pub fn empty() -> Self {
        Registry::default()
    }

    /// Everything linked into this binary through `inventory::submit!`,
    /// unaudited; [`Registry::checked`] is the same with the audit.
    ///
    /// A plug-in crate that is never named is not linked and its
    /// registrations vanish: name the crates you rely on (`use jit_tools as _;`).
    pub fn from_inventory() -> Self {
        let mut registry = Registry::empty();
        for tool in inventory::iter::<ToolRegistration> {
            registry.add_tool(Cow::Borrowed(tool.name), tool.defined_in);
        }
        for entry in inventory::iter::<ReporterRegistration> {
            registry.add_reporter(
                Cow::Borrowed(entry.tool),
                Reporter::Linked(entry.reporter),
                Cow::Borrowed(entry.defined_in),
            );
        }
        registry
    }

    /// Everything linked into this binary through `inventory::submit!`, or
    /// the [`AuditReport`] of why it cannot be trusted: a tool without a
    /// reporter, two reporters for one tool, a reporter without a tool, or
    /// nothing registered at all.
    ///
    /// This is the constructor to use. A registry that passed it answers
    /// every registered tool from exactly one reporter, so no call depends
    /// on which registration `inventory` happened to list first.
    /// `jit_core::SessionConfig::new` uses it.
    ///
    /// ```standalone_crate
    /// // Compiled on its own, this example links no plug-in crate: nothing
    /// // is registered.
    /// let report = jit_base::Registry::checked().unwrap_err();
    /// assert_eq!(report.problems()[0], jit_base::AuditProblem::Empty);
    /// assert!(report.to_string().contains("use jit_tools as _;"));
    /// ```
    pub fn checked() -> Result<Self, AuditReport> {
        Registry::from_inventory().into_checked()
    }

    /// This registry, if it passes [`audit`](crate::audit); else the report.
    ///
    /// For a registry built at run time with [`Registry::register_tool`]
    /// and [`Registry::register_reporter`].
    pub fn into_checked(self) -> Result<Self, AuditReport> {
        audit(&self).map(|()| self)
    }

    /// Registers a tool name; `defined_in` says where, for audit messages.
    pub fn register_tool(&mut self, name: &str, defined_in: &str) -> &mut Self {
        self.add_tool(Cow::Owned(name.to_owned()), defined_in);
        self
    }

    /// Registers a tool name, borrowed when it lives as long as the process.
    fn add_tool(&mut self, name: Cow<'static, str>, defined_in: &str) {
        self.tools
            .entry(name)
            .or_default()
            .push(defined_in.to_owned());
    }

    /// Registers a path reporter for `tool`.
    pub fn register_reporter(
        &mut self,
        tool: &str,
        reporter: impl AffectedPaths + 'static,
        defined_in: &str,
    ) -> &mut Self {
        self.add_reporter(
            Cow::Owned(tool.to_owned()),
            Reporter::Registered(Arc::new(reporter)),
            Cow::Owned(defined_in.to_owned()),
        );
        self
    }

    /// Registers a reporter for `tool`.
    fn add_reporter(
        &mut self,
        tool: Cow<'static, str>,
        reporter: Reporter,
        defined_in: Cow<'static, str>,
    ) {
        self.reporters.entry(tool).or_default().push(ReporterEntry {
            reporter,
            defined_in,
        });
    }

    /// The registered tool names, sorted.
    pub fn tools(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(AsRef::as_ref)
    }

    /// The tool names that have at least one reporter, sorted.
    pub fn reported_tools(&self) -> impl Iterator<Item = &str> {
        self.reporters.keys().map(AsRef::as_ref)
    }

    /// Where each registration of `tool` was made.
    pub fn tool_sources(&self, tool: &str) -> &[String] {
        self.tools.get(tool).map(Vec::as_slice).unwrap_or_default()
    }

    /// How many reporters `tool` has: what [`Registry::reporter_sources`]
    /// would list, without listing it.
    pub(crate) fn reporter_count(&self, tool: &str) -> usize {
        self.reporters.get(tool).map_or(0, Vec::len)
    }

    /// Where each reporter for `tool` was registered.
    pub fn reporter_sources(&self, tool: &str) -> Vec<&str> {
        self.reporters
            .get(tool)
            .map(|entries| entries.iter().map(|e| e.defined_in.as_ref()).collect())
            .unwrap_or_default()
    }

    /// The paths a call to `tool` touched, from its one reporter.
    ///
    /// A tool that is not registered, or has no reporter, is an
    /// [`ErrorKind::UnregisteredTool`] error: nothing is guessed from field
    /// names, and a name that differs from a registered one only in case is
    /// not that tool (the message names the registered spelling). A tool
    /// with several reporters, possible only in a registry that skipped
    /// [`Registry::checked`], is an [`ErrorKind::AmbiguousTool`] error
    /// rather than an answer from whichever reporter was listed first.
    pub fn affected_paths(
        &self,
        tool: &str,
        input: &serde_json::Value,
        cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        if !self.tools.contains_key(tool) {
            let hint = match self
                .tools()
                .find(|name| name.to_lowercase() == tool.to_lowercase())
            {
                Some(name) => format!(
                    "; tool names are case-sensitive, and `{name}` is registered: call it `{name}`"
                ),
                None => String::new(),
            };
            return Err(Error::new(
                ErrorKind::UnregisteredTool,
                format!(
                    "unregistered tool `{tool}`: no tool of that name is registered, so which paths \
                     it touches is unknown (registered tools: {}){hint}",
                    match self.tools().collect::<Vec<_>>().join(", ") {
                        names if names.is_empty() => "none".to_owned(),
                        names => names,
                    }
                ),
            ));
        }
        match self.reporters.get(tool).map(Vec::as_slice) {
            Some([entry]) => entry
                .reporter
                .get()
                .affected_paths(input, cwd)
                .map(without_nul_paths),
            Some(entries @ [_, _, ..]) => Err(Error::new(
                ErrorKind::AmbiguousTool,
                format!(
                    "tool `{tool}` has {} path reporters (in {}), so no answer would be \
                     trustworthy; keep exactly one. Build the registry with \
                     `Registry::checked()` to catch this before any call",
                    entries.len(),
                    entries
                        .iter()
                        .map(|e| format!("`{}`", e.defined_in))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => Err(Error::new(
                ErrorKind::UnregisteredTool,
                format!(
                    "tool `{tool}` is registered but has no path reporter, so which paths it \
                     touches is unknown; `jit_core::audit` says how to fix it"
                ),
            )),
        }
    }
}

/// No file name holds a NUL byte: a reported path with one (`"a\u0000b"`
/// in a tool's JSON input) names nothing on disk, and would be cut short by
/// any system call. It is moved to the skipped inputs, reason `nul_byte`,
/// whichever reporter produced it.
fn without_nul_paths(mut touched: TouchedPaths) -> TouchedPaths {
    if touched.paths.iter().any(|p| p.as_str().contains('\0')) {
        let (bad, good): (Vec<_>, Vec<_>) = std::mem::take(&mut touched.paths)
            .into_iter()
            .partition(|p| p.as_str().contains('\0'));
        touched.paths = good;
        for path in bad {
            touched.skipped.push(SkippedInput {
                word: path.as_str().replace('\0', "\\0"),
                reason: "nul_byte".to_owned(),
            });
        }
    }
    touched
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn duplicate_reporters_fail_at_construction() {
        let Err(report) = registry(&["read"], &["read", "read"]).into_checked() else {
            panic!("two reporters for one tool must not build a checked registry");
        };
        assert_eq!(report.problems()[0].kind(), "duplicate_reporters");
    }

    #[test]
    fn an_unchecked_registry_with_two_reporters_answers_with_neither() {
        let err = registry(&["read"], &["read", "read"])
            .affected_paths("read", &json!({}), Utf8Path::new("/p"))
            .err()
            .map(|e| (e.kind(), e.to_string()));
        assert_eq!(
            err,
            Some((
                ErrorKind::AmbiguousTool,
                "tool `read` has 2 path reporters (in `test::reporters`, `test::reporters`), so \
                 no answer would be trustworthy; keep exactly one. Build the registry with \
                 `Registry::checked()` to catch this before any call"
                    .to_owned()
            ))
        );
    }

    #[test]
    fn a_call_in_the_wrong_case_names_the_registered_spelling() {
        let err = registry(&["read"], &["read"])
            .affected_paths("Read", &json!({}), Utf8Path::new("/p"))
            .err()
            .map(|e| (e.kind(), e.to_string()));
        assert_eq!(
            err,
            Some((
                ErrorKind::UnregisteredTool,
                "unregistered tool `Read`: no tool of that name is registered, so which paths it \
                 touches is unknown (registered tools: read); tool names are case-sensitive, and \
                 `read` is registered: call it `read`"
                    .to_owned()
            ))
        );
    }
}
