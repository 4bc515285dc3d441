//! Rule sources: which files in a directory are rule candidates, and how their frontmatter maps to a scope.

use crate::frontmatter::{Frontmatter, Patterns};

/// A convention for rule files (Claude, AGENTS.md, Cursor, Copilot, ...).
///
/// A source is declarative: it names the candidate files and rule folders of
/// one directory, and maps a parsed frontmatter to a [`ScopeSpec`]. The engine
/// does all the I/O, containment and dedup, so every convention gets the same
/// guarantees.
///
/// ```
/// use jit_core::{Frontmatter, RuleDir, RuleSource, ScopeSpec};
///
/// /// AGENTS.md (Codex, opencode): nearest-directory files, always in scope.
/// #[derive(Debug)]
/// struct Agents;
/// impl RuleSource for Agents {
///     fn name(&self) -> &str { "agents" }
///     fn files(&self) -> &[&str] { &["AGENTS.md"] }
///     fn rule_dirs(&self) -> &[RuleDir] { &[] }
///     fn scope_keys(&self) -> &[&str] { &[] }
///     fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec { ScopeSpec::Always }
/// }
/// assert_eq!(Agents.files(), ["AGENTS.md"]);
/// ```
pub trait RuleSource: Send + Sync + std::fmt::Debug {
    /// A short stable name (`claude`, `cursor`), shown in results.
    fn name(&self) -> &str;

    /// Candidate files relative to each directory of the walk, in load order
    /// (for example `CLAUDE.md`, then `CLAUDE.local.md`).
    fn files(&self) -> &[&str];

    /// Folders relative to each directory whose matching files are all
    /// candidates (for example `.claude/rules` with suffix `.md`).
    fn rule_dirs(&self) -> &[RuleDir];

    /// Frontmatter keys that hold scope patterns. Their lines are read
    /// literally when strict YAML rejects them (`paths: **/*.cs`).
    fn scope_keys(&self) -> &[&str];

    /// The scope a rule file declares.
    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec;
}

/// A folder of rule files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleDir {
    /// The folder, relative to the directory being scanned (`.claude/rules`).
    pub path: &'static str,
    /// The file name suffix that makes a file a rule (`.md`, `.mdc`,
    /// `.instructions.md`).
    pub suffix: &'static str,
    /// Whether sub-folders count too.
    pub recursive: bool,
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
    /// `globs` nor `alwaysApply`, which the user attaches by hand).
    Manual(String),
    /// The scope could not be read; the rule is skipped as
    /// `invalid_frontmatter`, never loaded unscoped.
    Invalid(String),
}

impl ScopeSpec {
    /// Maps one scope key's [`Patterns`] the way every convention does:
    /// absent → always, empty → always with a warning, patterns → scoped.
    pub fn from_patterns(key: &str, patterns: Patterns) -> ScopeSpec {
        match patterns {
            Patterns::Absent => ScopeSpec::Always,
            Patterns::Empty => ScopeSpec::AlwaysWithWarning(format!(
                "`{key}:` is empty, so this rule is unscoped and applies to its whole directory; \
                 remove the key or list at least one pattern"
            )),
            Patterns::Some(globs) => ScopeSpec::Paths(globs),
            Patterns::Invalid(message) => ScopeSpec::Invalid(message),
        }
    }
}

/// The Claude convention: `CLAUDE.md` and friends in every directory, and
/// `.claude/rules/**/*.md` scoped by `paths:`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClaudeSource;

impl RuleSource for ClaudeSource {
    fn name(&self) -> &str {
        "claude"
    }

    fn files(&self) -> &[&str] {
        &[
            "CLAUDE.md",
            ".claude.md",
            "claude.md",
            ".claude/CLAUDE.md",
            ".claude/instructions.md",
            "CLAUDE.local.md",
        ]
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &[RuleDir {
            path: ".claude/rules",
            suffix: ".md",
            recursive: true,
        }]
    }

    fn scope_keys(&self) -> &[&str] {
        &["paths"]
    }

    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec {
        ScopeSpec::from_patterns("paths", frontmatter.patterns("paths"))
    }
}

/// The AGENTS.md convention (Codex CLI, opencode, Windsurf): an `AGENTS.md`
/// in any directory applies to everything below it. It has no scopes and no
/// rule folders.
///
/// ```
/// use jit_core::{AgentsSource, RuleSource};
/// assert_eq!(AgentsSource.files(), ["AGENTS.md"]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentsSource;

impl RuleSource for AgentsSource {
    fn name(&self) -> &str {
        "agents"
    }

    fn files(&self) -> &[&str] {
        &["AGENTS.md"]
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &[]
    }

    fn scope_keys(&self) -> &[&str] {
        &[]
    }

    fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec {
        ScopeSpec::Always
    }
}

/// Gemini CLI's context files: a `GEMINI.md` in any directory applies to
/// everything below it. It has no scopes and no rule folders.
///
/// ```
/// use jit_core::{GeminiSource, RuleSource};
/// assert_eq!(GeminiSource.files(), ["GEMINI.md"]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct GeminiSource;

impl RuleSource for GeminiSource {
    fn name(&self) -> &str {
        "gemini"
    }

    fn files(&self) -> &[&str] {
        &["GEMINI.md"]
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &[]
    }

    fn scope_keys(&self) -> &[&str] {
        &[]
    }

    fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec {
        ScopeSpec::Always
    }
}
