//! Rule sources: the `RuleSource` trait through which a convention names its files, tiers, imports and scopes, and the lookup of the shipped ones.

use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{Error, ErrorKind};

use crate::rule::frontmatter::{Frontmatter, Patterns};

mod agents;
mod claude;
mod cline;
mod copilot;
mod cursor;
mod gemini;

pub use agents::{AgentsSource, DEFAULT_AGENTS_BUDGET_BYTES};
pub use claude::{ClaudeSource, default_managed_path};
pub use cline::ClineSource;
pub use copilot::CopilotSource;
pub use cursor::CursorSource;
pub use gemini::GeminiSource;

/// A convention for rule files (Claude, AGENTS.md, Cursor, Copilot, ...).
///
/// A source is declarative, and owns what it declares, so one can be built
/// at run time from a configuration: it names the candidate files and rule
/// folders of one directory, its user-level and managed locations, which of
/// its files are a private tier, whether its files take `@` imports, which
/// name wins when several exist in one directory, and it maps a parsed
/// frontmatter to a [`ScopeSpec`]. The engine does all the I/O, containment
/// and dedup, so every convention gets the same guarantees, and the engine
/// itself knows no convention's names.
///
/// Only the first five methods are required; the rest default to "none".
///
/// ```
/// use jit_core::{Frontmatter, RuleDir, RuleSource, ScopeSpec};
///
/// /// Plain `TEAM.md` files in any directory, always in scope.
/// #[derive(Debug)]
/// struct Team { files: Vec<String> }
/// impl RuleSource for Team {
///     fn name(&self) -> &str { "team" }
///     fn files(&self) -> &[String] { &self.files }
///     fn rule_dirs(&self) -> &[RuleDir] { &[] }
///     fn scope_keys(&self) -> &[String] { &[] }
///     fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec { ScopeSpec::Always }
/// }
/// let team = Team { files: vec!["TEAM.md".to_owned()] };
/// assert_eq!(team.files(), ["TEAM.md"]);
/// assert!(team.user_level().is_none());
/// ```
pub trait RuleSource: Send + Sync + std::fmt::Debug {
    /// A short stable name (`claude`, `cursor`), shown in results.
    fn name(&self) -> &str;

    /// Candidate files relative to each directory of the walk, in load order
    /// (for example `CLAUDE.md`, then `CLAUDE.local.md`). Under
    /// [`Precedence::FirstFound`] the order is also the precedence.
    fn files(&self) -> &[String];

    /// Folders relative to each directory whose matching files are all
    /// candidates (for example `.claude/rules` with suffix `.md`).
    fn rule_dirs(&self) -> &[RuleDir];

    /// Frontmatter keys that hold scope patterns. Their lines are read
    /// literally when strict YAML rejects them (`paths: **/*.cs`).
    fn scope_keys(&self) -> &[String];

    /// The scope a rule file declares.
    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec;

    /// Candidate files looked for in the project root only (Cursor's legacy
    /// `.cursorrules`), judged after [`RuleSource::files`] there.
    fn root_files(&self) -> &[String] {
        &[]
    }

    /// Where the user's own rules of this convention live, if anywhere.
    fn user_level(&self) -> Option<&UserLevel> {
        None
    }

    /// The managed (administrator) rule files of this platform, if the
    /// convention has any.
    fn managed_files(&self) -> &[Utf8PathBuf] {
        &[]
    }

    /// Whether a project file of this source is the user's private tier
    /// ([`crate::Tier::Local`], `CLAUDE.local.md`) rather than a checked-in one.
    fn is_local(&self, _file: &Utf8Path) -> bool {
        false
    }

    /// How this convention's files import others.
    fn imports(&self) -> Imports {
        Imports::None
    }

    /// Which of [`RuleSource::files`] load when several exist in one directory.
    fn precedence(&self) -> Precedence {
        Precedence::All
    }

    /// A cap on the bytes this source loads from the project at startup
    /// (Codex's 32 KiB); a rule past it is skipped as `too_large_for_budget`.
    fn startup_budget(&self) -> Option<u64> {
        None
    }

    /// Why a parsed rule is left out for the agent that is running (Copilot's
    /// `excludeAgent`), if it is.
    fn excluded(&self, _frontmatter: &Frontmatter) -> Option<String> {
        None
    }
}

/// A folder of rule files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleDir {
    /// The folder, relative to the directory being scanned (`.claude/rules`).
    pub path: String,
    /// The file name suffix that makes a file a rule (`.md`, `.mdc`,
    /// `.instructions.md`).
    pub suffix: String,
    /// Whether sub-folders count too.
    pub recursive: bool,
}

impl RuleDir {
    /// A rule folder at `path` whose files ending in `suffix` are rules.
    ///
    /// ```
    /// let dir = jit_core::RuleDir::new(".cursor/rules", ".mdc", true);
    /// assert_eq!(dir.path, ".cursor/rules");
    /// ```
    pub fn new(path: impl Into<String>, suffix: impl Into<String>, recursive: bool) -> Self {
        RuleDir {
            path: path.into(),
            suffix: suffix.into(),
            recursive,
        }
    }
}

/// The user-level rules of a convention: a folder under the home directory
/// (`.claude`), with the candidate files and rule folders inside it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserLevel {
    /// The folder, relative to the home directory (`.claude`, `.codex`).
    pub dir: String,
    /// Candidate files inside it (`CLAUDE.md`).
    pub files: Vec<String>,
    /// Rule folders inside it (`rules`).
    pub rule_dirs: Vec<RuleDir>,
}

/// How a convention's files import other files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Imports {
    /// No imports: an `@` is text.
    #[default]
    None,
    /// `@path/to/file` imports the file, relative to the importing one
    /// (Claude, Gemini).
    At,
}

/// Which candidate files of one directory load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Precedence {
    /// Every candidate that exists.
    #[default]
    All,
    /// Only the first candidate, in [`RuleSource::files`] order, that is a
    /// regular file; the others are skipped as `shadowed` (Codex:
    /// `AGENTS.override.md` over `AGENTS.md` over the fallback names).
    FirstFound,
}

/// The scope a rule file declares.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopeSpec {
    /// No scope: the rule applies to everything under its directory.
    Always,
    /// Applies when a touched path (relative to the project root) matches one
    /// of these globs.
    Paths(Vec<String>),
    /// Always, but with a warning a user should see (for example
    /// `paths: []`, which is unscoped).
    AlwaysWithWarning(String),
    /// Never injected automatically (for example a Cursor rule with neither
    /// `globs` nor `alwaysApply`, which the user attaches by hand). Such a
    /// rule is listed in the startup rule index.
    Manual(String),
    /// The scope could not be read; the rule is skipped as
    /// `invalid_frontmatter`, never loaded unscoped.
    Invalid(String),
    /// Scoped by these globs, read with a warning a user should see (for
    /// example Cursor's `globs:` in a Claude rule).
    PathsWithWarning(Vec<String>, String),
}

impl ScopeSpec {
    /// Maps one scope key's [`Patterns`] the way every convention does:
    /// absent → always, empty → always with a warning, patterns → scoped.
    /// A brace set split across list items (`["src/*.{js", "ts}"]`, what
    /// some generators write) is invalid, and the detail says so.
    pub fn from_patterns(key: &str, patterns: Patterns) -> ScopeSpec {
        match patterns {
            Patterns::Absent => ScopeSpec::Always,
            Patterns::Empty => ScopeSpec::AlwaysWithWarning(format!(
                "`{key}:` is empty, so this rule is unscoped and applies to its whole directory; \
                 remove the key or list at least one pattern"
            )),
            Patterns::Some(globs) => match split_brace(key, &globs) {
                Some(why) => ScopeSpec::Invalid(why),
                None => ScopeSpec::Paths(globs),
            },
            Patterns::Invalid(message) => ScopeSpec::Invalid(message),
        }
    }
}

/// The message for a brace set split across list items: an item that opens
/// more `{` than it closes, followed by items that close them.
fn split_brace(key: &str, globs: &[String]) -> Option<String> {
    let balance = |s: &str| {
        s.chars().fold(0i64, |n, c| match c {
            '{' => n + 1,
            '}' => n - 1,
            _ => n,
        })
    };
    let start = globs.iter().position(|g| balance(g) > 0)?;
    let mut open = 0i64;
    let mut end = None;
    for (i, glob) in globs.iter().enumerate().skip(start) {
        open += balance(glob);
        if open <= 0 {
            end = Some(i);
            break;
        }
    }
    let end = end?;
    let pieces = &globs[start..=end];
    let joined = pieces.join(",");
    let quoted: Vec<String> = pieces.iter().map(|p| format!("\"{p}\"")).collect();
    Some(format!(
        "`{key}:` has the brace pattern `{joined}` split across {} list items ({}): the YAML \
         list cut it at its commas, so no item is a whole pattern; write it as one quoted \
         item: `{key}: [\"{joined}\"]`",
        pieces.len(),
        quoted.join(", ")
    ))
}

/// Options a configuration (`jit.toml`) may set on a source built by
/// [`source_by_name`]. Every field is optional; a source ignores the ones it
/// has no use for.
///
/// ```
/// use jit_core::{SourceOptions, source_by_name};
/// let options = SourceOptions::default().with_fallback_names(["TEAM.md"]);
/// let agents = source_by_name("agents", &options)?;
/// assert_eq!(agents.files(), ["AGENTS.override.md", "AGENTS.md", "TEAM.md"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Every name is one file name, a single path component: it is looked for
/// in each directory and never reaches outside it (see
/// [`SourceOptions::validate`]). The setters take any text; a source is
/// built only from options that pass the check, by [`source_by_name`] or a
/// convention's `with_options`, which return an
/// [`ErrorKind::InvalidFileName`] error otherwise:
///
/// ```
/// use jit_core::{ErrorKind, SourceOptions, source_by_name};
/// let options = SourceOptions::default().with_extra_names(["../.aws/credentials"]);
/// let err = source_by_name("claude", &options).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidFileName);
/// assert!(err.to_string().starts_with("`extra_names` holds \"../.aws/credentials\""));
/// ```
///
/// It deserializes from a configuration table with these keys (all
/// optional, unknown ones and names that are not file names refused).
/// `jit.toml` gives each convention a top-level table of its own
/// (`[agents]`, `[gemini]`, ...) with the keys `names`, `fallback_names`,
/// `extra_names` and `budget_bytes`; `agent` is for a caller that builds
/// the source for a known agent; `jit.toml` does not set it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "OptionsTable")]
#[non_exhaustive]
pub struct SourceOptions {
    /// Replaces the convention's main candidate names (Gemini's
    /// `context.fileName`).
    pub names: Option<Vec<String>>,
    /// Names checked after the main ones (Codex's
    /// `project_doc_fallback_filenames`).
    pub fallback_names: Vec<String>,
    /// More candidate names, loaded besides the others.
    pub extra_names: Vec<String>,
    /// The startup byte budget (AGENTS.md: [`DEFAULT_AGENTS_BUDGET_BYTES`]).
    pub budget_bytes: Option<u64>,
    /// The agent that is running, for conventions whose rules exclude
    /// agents (Copilot's `excludeAgent`: `coding-agent`, `code-review`).
    pub agent: Option<String>,
}

impl SourceOptions {
    /// Sets [`SourceOptions::names`].
    pub fn with_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Sets [`SourceOptions::fallback_names`].
    pub fn with_fallback_names<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Self {
        self.fallback_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`SourceOptions::extra_names`].
    pub fn with_extra_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.extra_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`SourceOptions::budget_bytes`].
    pub fn with_budget_bytes(mut self, bytes: u64) -> Self {
        self.budget_bytes = Some(bytes);
        self
    }

    /// Sets [`SourceOptions::agent`].
    pub fn with_agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Checks that every name (`names`, `fallback_names`, `extra_names`)
    /// is one file name: not empty, not `.` or `..`, no `/` or `\`, not
    /// absolute, no NUL byte. A name is a file looked for in each
    /// directory; a path in its place would read whatever it points at,
    /// outside the project too. The error, of kind
    /// [`ErrorKind::InvalidFileName`], names the key and the value and
    /// says how to fix it.
    ///
    /// ```
    /// use jit_core::SourceOptions;
    /// assert!(SourceOptions::default().with_names(["CONTEXT.md"]).validate().is_ok());
    /// let err = SourceOptions::default().with_fallback_names(["docs/TEAM.md"]).validate();
    /// assert!(err.unwrap_err().to_string().contains("`fallback_names` holds \"docs/TEAM.md\""));
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        let keys = [
            ("names", self.names.as_deref().unwrap_or_default()),
            ("fallback_names", &self.fallback_names),
            ("extra_names", &self.extra_names),
        ];
        for (key, names) in keys {
            for name in names {
                if let Some(problem) = file_name_problem(name) {
                    return Err(Error::new(
                        ErrorKind::InvalidFileName,
                        format!(
                            "`{key}` holds {name:?}, which is not a file name: {problem}; a name \
                             is one file, looked for in each directory, and never reaches \
                             outside it: write the file's name alone (`TEAM.md`)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// [`SourceOptions`] as a configuration table writes it, checked into one
/// by [`SourceOptions::validate`].
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct OptionsTable {
    names: Option<Vec<String>>,
    fallback_names: Vec<String>,
    extra_names: Vec<String>,
    budget_bytes: Option<u64>,
    agent: Option<String>,
}

impl TryFrom<OptionsTable> for SourceOptions {
    type Error = Error;

    fn try_from(table: OptionsTable) -> Result<Self, Error> {
        let options = SourceOptions {
            names: table.names,
            fallback_names: table.fallback_names,
            extra_names: table.extra_names,
            budget_bytes: table.budget_bytes,
            agent: table.agent,
        };
        options.validate()?;
        Ok(options)
    }
}

/// Why `name` is not one file name (a single path component on every
/// platform), or `None` when it is.
fn file_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.contains('\0') {
        return Some("it holds a NUL byte");
    }
    if name.starts_with(['/', '\\']) {
        return Some("it is an absolute path");
    }
    let mut start = name.chars();
    if matches!((start.next(), start.next()), (Some(drive), Some(':')) if drive.is_ascii_alphabetic())
    {
        return Some("it starts with a drive (`C:`), as a Windows path does");
    }
    if name.split(['/', '\\']).any(|part| part == "..") {
        return Some("it climbs out of the directory with `..`");
    }
    if name.contains(['/', '\\']) {
        return Some("it holds a path separator (`/` or `\\`), so it is a path");
    }
    if name == "." {
        return Some("it names the directory itself, not a file");
    }
    // Whatever else this platform would not take as one plain component.
    let mut components = Utf8Path::new(name).components();
    match (components.next(), components.next()) {
        (Some(camino::Utf8Component::Normal(one)), None) if one == name => None,
        _ => Some("it is not one path component"),
    }
}

/// The names of the shipped conventions, in the order they are loaded.
pub const CONVENTIONS: [&str; 6] = ["claude", "agents", "gemini", "cursor", "copilot", "cline"];

/// Builds a shipped convention by name (one of [`CONVENTIONS`]) with
/// `options`. An unknown name is an [`ErrorKind::UnknownSource`] error that
/// lists the known ones; options whose names are not file names an
/// [`ErrorKind::InvalidFileName`] one (see [`SourceOptions::validate`]).
///
/// ```
/// use jit_core::{SourceOptions, source_by_name};
/// let cursor = source_by_name("cursor", &SourceOptions::default())?;
/// assert_eq!(cursor.rule_dirs()[0].suffix, ".mdc");
/// assert!(source_by_name("windsurf", &SourceOptions::default()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn source_by_name(name: &str, options: &SourceOptions) -> Result<Arc<dyn RuleSource>, Error> {
    Ok(match name {
        "claude" => Arc::new(ClaudeSource::with_options(options)?),
        "agents" => Arc::new(AgentsSource::with_options(options)?),
        "gemini" => Arc::new(GeminiSource::with_options(options)?),
        "cursor" => Arc::new(CursorSource::with_options(options)?),
        "copilot" => Arc::new(CopilotSource::with_options(options)?),
        "cline" => Arc::new(ClineSource::with_options(options)?),
        other => {
            return Err(Error::new(
                ErrorKind::UnknownSource,
                format!(
                    "unknown rule convention `{other}`; the known ones are {}",
                    CONVENTIONS.join(", ")
                ),
            ));
        }
    })
}

/// Every shipped convention with default options, in [`CONVENTIONS`] order.
pub fn all_sources() -> Vec<Arc<dyn RuleSource>> {
    CONVENTIONS
        .iter()
        .filter_map(|name| source_by_name(name, &SourceOptions::default()).ok())
        .collect()
}

/// Shared by the sources that read a `paths:`-style key and may recover a
/// Cursor-style `globs:` one.
pub(crate) fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// The `description:` of a frontmatter, trimmed, if it is a non-empty string.
pub(crate) fn description(frontmatter: &Frontmatter) -> Option<String> {
    match frontmatter.get("description")? {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_trimmed_text_or_nothing() {
        let described = |head: &str| {
            let parsed = crate::rule::frontmatter::parse(&format!("---\n{head}\n---\nx\n"), &[])
                .map_err(|e| e.message)
                .unwrap();
            description(&parsed.frontmatter)
        };
        assert_eq!(
            described("description: \"  Cut a release \""),
            Some("Cut a release".to_owned())
        );
        assert_eq!(described("description: \"   \""), None);
        assert_eq!(described("description: 3"), None);
        assert_eq!(described("other: x"), None);
    }

    #[test]
    fn a_brace_set_split_across_list_items_is_invalid_and_says_so() {
        let spec = ScopeSpec::from_patterns(
            "paths",
            Patterns::Some(owned(&["src/**/*.{js", "ts", "vue}"])),
        );
        let ScopeSpec::Invalid(why) = spec else {
            panic!("expected invalid, got {spec:?}");
        };
        assert!(why.contains("`src/**/*.{js,ts,vue}`"), "{why}");
        assert!(why.contains("split across 3 list items"), "{why}");
    }

    #[test]
    fn whole_brace_sets_are_patterns() {
        let spec = ScopeSpec::from_patterns(
            "paths",
            Patterns::Some(owned(&["src/**/*.{js,ts}", "lib/**"])),
        );
        assert_eq!(
            spec,
            ScopeSpec::Paths(owned(&["src/**/*.{js,ts}", "lib/**"]))
        );
    }

    /// Every way a name can be more than one file name, as a
    /// configuration might write it.
    const NOT_FILE_NAMES: [&str; 11] = [
        "../../../../../../../../../../etc/hostname",
        "../.aws/credentials",
        "..",
        ".",
        "",
        "/etc/hostname",
        "docs/TEAM.md",
        "docs\\TEAM.md",
        "\\\\server\\share",
        "C:TEAM.md",
        "TEAM\0.md",
    ];

    /// Names that are one file each, odd ones included.
    const FILE_NAMES: [&str; 5] = [
        "TEAM.md",
        ".cursorrules",
        "a..b.md",
        "...",
        "CLAUDE local.md",
    ];

    /// `key`, set by `set`, refuses every name of [`NOT_FILE_NAMES`] (in
    /// `validate`, in `source_by_name` for every convention, and in each
    /// convention's `with_options`) with an `invalid_file_name` error that
    /// names the key, the value and the fix; it takes [`FILE_NAMES`].
    #[track_caller]
    fn check_key(key: &str, set: fn(SourceOptions, &str) -> SourceOptions) {
        for name in NOT_FILE_NAMES {
            let options = set(SourceOptions::default(), name);
            let err = options.validate().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidFileName, "{key} {name:?}");
            let message = err.to_string();
            assert!(
                message.starts_with(&format!(
                    "`{key}` holds {name:?}, which is not a file name: "
                )),
                "{message}"
            );
            assert!(message.contains("write the file's name alone"), "{message}");
            for convention in CONVENTIONS {
                let built = source_by_name(convention, &options).map(|_| ());
                assert_eq!(
                    built.map_err(|e| e.kind()),
                    Err(ErrorKind::InvalidFileName),
                    "{convention}: {key} {name:?}"
                );
            }
            let each = [
                ClaudeSource::with_options(&options).map(|_| ()),
                AgentsSource::with_options(&options).map(|_| ()),
                GeminiSource::with_options(&options).map(|_| ()),
                CursorSource::with_options(&options).map(|_| ()),
                CopilotSource::with_options(&options).map(|_| ()),
                ClineSource::with_options(&options).map(|_| ()),
            ];
            for built in each {
                assert_eq!(
                    built.map_err(|e| e.kind()),
                    Err(ErrorKind::InvalidFileName),
                    "{key} {name:?}"
                );
            }
        }
        for name in FILE_NAMES {
            let options = set(SourceOptions::default(), name);
            assert!(options.validate().is_ok(), "{key} {name:?}");
            for convention in CONVENTIONS {
                assert!(source_by_name(convention, &options).is_ok(), "{convention}");
            }
        }
    }

    #[test]
    fn names_takes_file_names_only() {
        check_key("names", |options, name| options.with_names([name]));
    }

    #[test]
    fn fallback_names_takes_file_names_only() {
        check_key("fallback_names", |options, name| {
            options.with_fallback_names([name])
        });
    }

    #[test]
    fn extra_names_takes_file_names_only() {
        check_key("extra_names", |options, name| {
            options.with_extra_names([name])
        });
    }

    /// A configuration table is checked as the setters' options are: a
    /// path where a file name goes is an error, and good names arrive.
    #[test]
    fn options_read_from_a_table_take_file_names_only() {
        let table =
            r#"{"fallback_names": ["TEAM.md"], "extra_names": ["MORE.md"], "budget_bytes": 7}"#;
        let options: SourceOptions = serde_json::from_str(table).unwrap();
        assert_eq!(
            options,
            SourceOptions::default()
                .with_fallback_names(["TEAM.md"])
                .with_extra_names(["MORE.md"])
                .with_budget_bytes(7)
        );
        let err = serde_json::from_str::<SourceOptions>(r#"{"extra_names": ["../x.md"]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("climbs out"), "{err}");
    }

    /// A bad name among good ones is found, and the first one named.
    #[test]
    fn the_first_bad_name_of_a_list_is_the_one_named() {
        let options = SourceOptions::default()
            .with_names(["GEMINI.md"])
            .with_extra_names(["MORE.md", "a/b.md", "../c.md"]);
        let err = options.validate().unwrap_err().to_string();
        assert!(err.starts_with("`extra_names` holds \"a/b.md\""), "{err}");
        assert!(err.contains("path separator"), "{err}");
        let err = SourceOptions::default().with_names(["../c.md"]).validate();
        assert!(err.unwrap_err().to_string().contains("climbs out"));
    }

    #[test]
    fn every_convention_is_found_by_name_and_an_unknown_one_is_an_error() {
        for name in CONVENTIONS {
            let source = source_by_name(name, &SourceOptions::default());
            assert_eq!(
                source.map(|s| s.name().to_owned()).ok().as_deref(),
                Some(name)
            );
        }
        let err = source_by_name("nope", &SourceOptions::default()).err();
        assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::UnknownSource));
    }
}
