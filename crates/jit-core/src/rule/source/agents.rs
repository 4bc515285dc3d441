//! The AGENTS.md convention (Codex CLI, opencode, Windsurf): one file per directory, `AGENTS.override.md` first, a startup byte budget.

use super::{Precedence, RuleDir, RuleSource, ScopeSpec, SourceOptions, UserLevel, owned};
use crate::rule::frontmatter::Frontmatter;

/// The default startup byte budget of the AGENTS.md chain: 32 KiB, Codex's
/// `project_doc_max_bytes`.
pub const DEFAULT_AGENTS_BUDGET_BYTES: u64 = 32 * 1024;

/// The AGENTS.md convention: in every directory, the first of
/// `AGENTS.override.md`, `AGENTS.md` and the configured fallback names that
/// is a regular file applies to everything below it (the others there are
/// skipped as `shadowed`). Nested files come just in time, which Codex
/// itself does not do. `~/.codex/AGENTS.md` is the user level; the project
/// chain loaded at startup is capped at a byte budget (32 KiB by default),
/// past which a file is skipped as `too_large_for_budget`. No scopes, no
/// imports.
///
/// ```
/// use jit_core::{AgentsSource, Precedence, RuleSource, SourceOptions};
/// let agents = AgentsSource::default();
/// assert_eq!(agents.files(), ["AGENTS.override.md", "AGENTS.md"]);
/// assert_eq!(agents.precedence(), Precedence::FirstFound);
/// assert_eq!(agents.startup_budget(), Some(32 * 1024));
///
/// let team = AgentsSource::with_options(
///     &SourceOptions::default().with_fallback_names(["TEAM_GUIDE.md"]).with_budget_bytes(1024),
/// )?;
/// assert_eq!(team.files()[2], "TEAM_GUIDE.md");
/// assert_eq!(team.startup_budget(), Some(1024));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AgentsSource {
    files: Vec<String>,
    user: UserLevel,
    budget: u64,
}

impl Default for AgentsSource {
    fn default() -> Self {
        AgentsSource::build(&SourceOptions::default())
    }
}

impl AgentsSource {
    /// The convention with `options`: `names` replaces `AGENTS.md`,
    /// `fallback_names` and `extra_names` come after it (in that order of
    /// precedence), `budget_bytes` sets the startup budget.
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(AgentsSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        let mut files = owned(&["AGENTS.override.md"]);
        files.extend(
            options
                .names
                .clone()
                .unwrap_or_else(|| owned(&["AGENTS.md"])),
        );
        for name in options.fallback_names.iter().chain(&options.extra_names) {
            if !files.contains(name) {
                files.push(name.clone());
            }
        }
        AgentsSource {
            user: UserLevel {
                dir: ".codex".to_owned(),
                files: files.clone(),
                rule_dirs: Vec::new(),
            },
            files,
            budget: options.budget_bytes.unwrap_or(DEFAULT_AGENTS_BUDGET_BYTES),
        }
    }
}

impl RuleSource for AgentsSource {
    fn name(&self) -> &str {
        "agents"
    }

    fn files(&self) -> &[String] {
        &self.files
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &[]
    }

    fn scope_keys(&self) -> &[String] {
        &[]
    }

    fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec {
        ScopeSpec::Always
    }

    fn user_level(&self) -> Option<&UserLevel> {
        Some(&self.user)
    }

    fn precedence(&self) -> Precedence {
        Precedence::FirstFound
    }

    fn startup_budget(&self) -> Option<u64> {
        Some(self.budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_comes_first_and_fallbacks_last_without_duplicates() {
        let agents = AgentsSource::with_options(
            &SourceOptions::default()
                .with_fallback_names(["AGENTS.md", "GUIDE.md"])
                .with_extra_names(["MORE.md"]),
        )
        .unwrap();
        assert_eq!(
            agents.files(),
            ["AGENTS.override.md", "AGENTS.md", "GUIDE.md", "MORE.md"]
        );
        assert_eq!(agents.user_level().map(|u| u.dir.as_str()), Some(".codex"));
    }

    #[test]
    fn the_budget_defaults_to_32_kib_and_is_configurable() {
        assert_eq!(AgentsSource::default().startup_budget(), Some(32768));
        let small =
            AgentsSource::with_options(&SourceOptions::default().with_budget_bytes(10)).unwrap();
        assert_eq!(small.startup_budget(), Some(10));
    }

    #[test]
    fn a_frontmatter_is_text_not_a_scope() {
        assert!(AgentsSource::default().scope_keys().is_empty());
        assert_eq!(
            AgentsSource::default().scope(&Frontmatter::default()),
            ScopeSpec::Always
        );
    }
}
