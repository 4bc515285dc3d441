//! A lint finding: the file and line it points at, its kind, severity and message.

use serde::Serialize;

/// What a finding is about. The names are stable: they appear in `--json`,
/// in GitHub annotations and as SARIF rule ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// The engine refuses the frontmatter (or its scope): the rule never loads.
    InvalidFrontmatter,
    /// The engine read the frontmatter, but only by guessing (a pattern
    /// recovered literally, an empty scope, a fence other tools miss).
    FrontmatterWarning,
    /// A frontmatter key this convention does not read.
    UnknownKey,
    /// A scope pattern that matches no file of the repository.
    DeadScope,
    /// An `@import` whose file does not exist.
    MissingImport,
    /// An `@import` that resolves outside the project root.
    ImportOutsideRoot,
    /// An `@import` that leads back to a file being expanded.
    ImportCycle,
    /// An `@import` the engine does not inline (too deep, not a text file,
    /// over the size cap).
    ImportNotInlined,
    /// Over the engine's size cap for one rule file.
    TooLarge,
    /// A rule file the engine cannot read as text (binary, not UTF-8, not a
    /// regular file).
    Unreadable,
    /// A rule file with no text to inject.
    EmptyRule,
    /// The same text in two rule files.
    DuplicateRule,
    /// A rule the convention attaches by hand only, never automatically.
    ManualOnly,
    /// A rule hidden by another file in the same directory.
    Shadowed,
    /// A rule the engine never reaches.
    Unreachable,
    /// The linter stopped at one of its limits (an ignore file's size, the
    /// imports one run follows): what it did not check is named.
    LintLimit,
}

impl Kind {
    /// The snake_case name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::InvalidFrontmatter => "invalid_frontmatter",
            Kind::FrontmatterWarning => "frontmatter_warning",
            Kind::UnknownKey => "unknown_key",
            Kind::DeadScope => "dead_scope",
            Kind::MissingImport => "missing_import",
            Kind::ImportOutsideRoot => "import_outside_root",
            Kind::ImportCycle => "import_cycle",
            Kind::ImportNotInlined => "import_not_inlined",
            Kind::TooLarge => "too_large",
            Kind::Unreadable => "unreadable",
            Kind::EmptyRule => "empty_rule",
            Kind::DuplicateRule => "duplicate_rule",
            Kind::ManualOnly => "manual_only",
            Kind::Shadowed => "shadowed",
            Kind::Unreachable => "unreachable",
            Kind::LintLimit => "lint_limit",
        }
    }

    /// How bad a finding of this kind is: an error means the engine drops
    /// the rule (or part of it) where its author expects it to load.
    pub(crate) fn severity(self) -> Severity {
        match self {
            Kind::InvalidFrontmatter
            | Kind::MissingImport
            | Kind::ImportOutsideRoot
            | Kind::ImportCycle
            | Kind::TooLarge
            | Kind::Unreadable => Severity::Error,
            Kind::FrontmatterWarning
            | Kind::UnknownKey
            | Kind::DeadScope
            | Kind::ImportNotInlined
            | Kind::EmptyRule
            | Kind::DuplicateRule
            | Kind::Unreachable
            | Kind::LintLimit => Severity::Warning,
            Kind::ManualOnly | Kind::Shadowed => Severity::Info,
        }
    }

    /// One line on what the kind means, for SARIF's rule descriptions.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::InvalidFrontmatter => {
                "The frontmatter or its scope cannot be read; the rule never loads."
            }
            Kind::FrontmatterWarning => {
                "The frontmatter was read only by guessing; other tools may read it differently."
            }
            Kind::UnknownKey => "A frontmatter key this convention does not read.",
            Kind::DeadScope => "A scope pattern that matches no file of the repository.",
            Kind::MissingImport => "An @import whose file does not exist.",
            Kind::ImportOutsideRoot => "An @import that resolves outside the project root.",
            Kind::ImportCycle => "An @import that leads back to a file being expanded.",
            Kind::ImportNotInlined => {
                "An @import that is not inlined (too deep, not a text file, too large)."
            }
            Kind::TooLarge => "The rule file is over the engine's size cap.",
            Kind::Unreadable => "The rule file cannot be read as text.",
            Kind::EmptyRule => "The rule file has no text to inject.",
            Kind::DuplicateRule => "The same text is in two rule files.",
            Kind::ManualOnly => "The rule is attached by hand only, never automatically.",
            Kind::Shadowed => "The rule is hidden by another file in the same directory.",
            Kind::Unreachable => "The rule is in a place the engine never reaches.",
            Kind::LintLimit => {
                "The linter stopped at one of its limits; the finding names the limit and what \
                 was not checked."
            }
        }
    }

    /// Every kind, in order.
    pub(crate) const ALL: [Kind; 16] = [
        Kind::InvalidFrontmatter,
        Kind::FrontmatterWarning,
        Kind::UnknownKey,
        Kind::DeadScope,
        Kind::MissingImport,
        Kind::ImportOutsideRoot,
        Kind::ImportCycle,
        Kind::ImportNotInlined,
        Kind::TooLarge,
        Kind::Unreadable,
        Kind::EmptyRule,
        Kind::DuplicateRule,
        Kind::ManualOnly,
        Kind::Shadowed,
        Kind::Unreachable,
        Kind::LintLimit,
    ];
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Severity {
    /// The exit status is 1.
    Error,
    /// Worth fixing; the exit status stays 0.
    Warning,
    /// For the record.
    Info,
}

impl Severity {
    /// The snake_case name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub(crate) struct Finding {
    /// The file, relative to the root, `/`-separated.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// What it is about.
    pub kind: Kind,
    /// How bad it is (follows from the kind).
    pub severity: Severity,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Finding {
    pub(crate) fn new(
        file: impl Into<String>,
        line: usize,
        kind: Kind,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            file: file.into(),
            line: line.max(1),
            kind,
            severity: kind.severity(),
            message: message.into(),
        }
    }
}

/// The counts of `--json`'s `summary`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(super) struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Summary {
    pub(super) fn of(findings: &[Finding]) -> Self {
        let mut summary = Summary::default();
        for finding in findings {
            match finding.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
        }
        summary
    }
}
