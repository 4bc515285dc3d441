//! The Claude convention: `CLAUDE.md` and friends in every directory, `.claude/rules/**/*.md` scoped by `paths:`, `~/.claude` and the managed file.

use camino::{Utf8Path, Utf8PathBuf};

use super::{Imports, RuleDir, RuleSource, ScopeSpec, SourceOptions, UserLevel, owned};
use crate::rule::frontmatter::{Frontmatter, Patterns};

/// The managed (administrator) Claude rule file of this platform, if it has one.
///
/// ```
/// let managed = jit_core::default_managed_path();
/// if cfg!(target_os = "linux") {
///     assert_eq!(managed.as_deref().map(|p| p.as_str()), Some("/etc/claude-code/CLAUDE.md"));
/// }
/// ```
pub fn default_managed_path() -> Option<Utf8PathBuf> {
    if cfg!(target_os = "macos") {
        Some(Utf8PathBuf::from(
            "/Library/Application Support/ClaudeCode/CLAUDE.md",
        ))
    } else if cfg!(target_os = "linux") {
        Some(Utf8PathBuf::from("/etc/claude-code/CLAUDE.md"))
    } else {
        None
    }
}

/// The Claude convention: `CLAUDE.md` and friends in every directory,
/// `.claude/rules/**/*.md` scoped by `paths:`, `CLAUDE.local.md` as the
/// private tier, `@` imports, `~/.claude` as the user level and the
/// platform's managed file.
///
/// Many repositories scope their Claude rules with Cursor's `globs:` key: a
/// rule without `paths:` is scoped by its `globs:`, with a warning naming the
/// fix; where both are present, `paths:` wins.
///
/// ```
/// use jit_core::{ClaudeSource, RuleSource};
/// let claude = ClaudeSource::default();
/// assert_eq!(claude.files()[0], "CLAUDE.md");
/// assert_eq!(claude.rule_dirs()[0].path, ".claude/rules");
/// assert_eq!(claude.user_level().map(|u| u.dir.as_str()), Some(".claude"));
/// ```
#[derive(Debug, Clone)]
pub struct ClaudeSource {
    files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    scope_keys: Vec<String>,
    user: UserLevel,
    managed: Vec<Utf8PathBuf>,
}

impl Default for ClaudeSource {
    fn default() -> Self {
        ClaudeSource::build(&SourceOptions::default())
    }
}

impl ClaudeSource {
    /// The convention with `options`: `names` replaces the candidate names,
    /// `extra_names` adds to them.
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(ClaudeSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        let mut files = options.names.clone().unwrap_or_else(|| {
            owned(&[
                "CLAUDE.md",
                ".claude.md",
                "claude.md",
                ".claude/CLAUDE.md",
                ".claude/instructions.md",
                "CLAUDE.local.md",
            ])
        });
        files.extend(options.extra_names.iter().cloned());
        ClaudeSource {
            files,
            rule_dirs: vec![RuleDir::new(".claude/rules", ".md", true)],
            scope_keys: owned(&["paths", "globs"]),
            user: UserLevel {
                dir: ".claude".to_owned(),
                files: owned(&["CLAUDE.md"]),
                rule_dirs: vec![RuleDir::new("rules", ".md", true)],
            },
            managed: default_managed_path().into_iter().collect(),
        }
    }
}

impl RuleSource for ClaudeSource {
    fn name(&self) -> &str {
        "claude"
    }

    fn files(&self) -> &[String] {
        &self.files
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &self.rule_dirs
    }

    fn scope_keys(&self) -> &[String] {
        &self.scope_keys
    }

    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec {
        let paths = frontmatter.patterns("paths");
        if paths != Patterns::Absent {
            return ScopeSpec::from_patterns("paths", paths);
        }
        match ScopeSpec::from_patterns("globs", frontmatter.patterns("globs")) {
            ScopeSpec::Paths(globs) => ScopeSpec::PathsWithWarning(
                globs,
                "this Claude rule is scoped by `globs:`, Cursor's key, which Claude Code does \
                 not read (it loads the rule for every file); rename `globs:` to `paths:`"
                    .to_owned(),
            ),
            ScopeSpec::AlwaysWithWarning(_) => ScopeSpec::AlwaysWithWarning(
                "`globs:` is empty (and is Cursor's key; Claude reads `paths:`), so this rule \
                 is unscoped; write `paths:` with at least one pattern, or remove the key"
                    .to_owned(),
            ),
            other => other,
        }
    }

    fn user_level(&self) -> Option<&UserLevel> {
        Some(&self.user)
    }

    fn managed_files(&self) -> &[Utf8PathBuf] {
        &self.managed
    }

    fn is_local(&self, file: &Utf8Path) -> bool {
        file.as_str().ends_with(".local.md")
    }

    fn imports(&self) -> Imports {
        Imports::At
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SkipReason;
    use crate::rule::frontmatter;
    use crate::rule::{RuleScope, parse_rule};

    fn scope(text: &str) -> ScopeSpec {
        let claude = ClaudeSource::default();
        let keys: Vec<&str> = claude.scope_keys().iter().map(String::as_str).collect();
        match frontmatter::parse(text, &keys) {
            Ok(parsed) => claude.scope(&parsed.frontmatter),
            Err(err) => ScopeSpec::Invalid(err.message),
        }
    }

    #[test]
    fn paths_scopes_a_rule() {
        assert_eq!(
            scope("---\npaths: [\"src/**\"]\n---\nx\n"),
            ScopeSpec::Paths(owned(&["src/**"]))
        );
    }

    #[test]
    fn globs_scopes_a_rule_without_paths_and_the_warning_names_the_fix() {
        let spec = scope("---\nglobs: [\"src/**/*.ts\"]\n---\nx\n");
        let ScopeSpec::PathsWithWarning(globs, warning) = spec else {
            panic!("expected scoped with a warning, got {spec:?}");
        };
        assert_eq!(globs, ["src/**/*.ts"]);
        assert!(warning.contains("rename `globs:` to `paths:`"), "{warning}");
    }

    #[test]
    fn an_unquoted_globs_line_is_recovered_literally() {
        let parsed = parse_rule(
            "---\nglobs: **/*.ts, src/**\n---\nx\n",
            &ClaudeSource::default(),
        );
        let Ok(parsed) = parsed else {
            panic!("expected a parse");
        };
        let RuleScope::Paths(compiled) = &parsed.scope else {
            panic!("expected a scope, got {:?}", parsed.scope);
        };
        assert_eq!(compiled.patterns(), ["**/*.ts", "src/**"]);
        // One warning for the literal recovery, one for the key.
        assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
    }

    #[test]
    fn paths_wins_over_globs() {
        assert_eq!(
            scope("---\npaths: src/**\nglobs: lib/**\n---\nx\n"),
            ScopeSpec::Paths(owned(&["src/**"]))
        );
    }

    #[test]
    fn a_brace_pattern_split_by_a_generator_stays_invalid_with_the_story() {
        let parsed = parse_rule(
            "---\npaths:\n  - \"src/**/*.{js\"\n  - \"ts\"\n  - \"vue}\"\n---\nx\n",
            &ClaudeSource::default(),
        );
        let Err(rejection) = parsed else {
            panic!("expected a refusal");
        };
        assert_eq!(rejection.reason, SkipReason::InvalidFrontmatter);
        assert!(
            rejection.detail.contains("split across 3 list items"),
            "{}",
            rejection.detail
        );
    }

    #[test]
    fn local_files_are_the_private_tier() {
        let claude = ClaudeSource::default();
        assert!(claude.is_local(Utf8Path::new("/p/CLAUDE.local.md")));
        assert!(!claude.is_local(Utf8Path::new("/p/CLAUDE.md")));
    }

    #[test]
    fn extra_names_are_candidates_too() {
        let claude =
            ClaudeSource::with_options(&SourceOptions::default().with_extra_names(["TEAM.md"]))
                .unwrap();
        assert_eq!(claude.files().last().map(String::as_str), Some("TEAM.md"));
    }
}
