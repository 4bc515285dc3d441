//! GitHub Copilot's instructions: `.github/copilot-instructions.md` always, `.github/instructions/**/*.instructions.md` scoped by `applyTo:`, `excludeAgent:`.

use super::{RuleDir, RuleSource, ScopeSpec, SourceOptions, owned};
use crate::rule::frontmatter::{Frontmatter, Patterns};

/// GitHub Copilot's custom instructions: the repository-wide
/// `.github/copilot-instructions.md` (always), and
/// `.github/instructions/**/*.instructions.md` scoped by `applyTo:` (a
/// comma-separated string of globs, or a list). An instructions file whose
/// frontmatter has no `applyTo:` is attached by hand only (and listed in the
/// rule index). `excludeAgent:` (`code-review`, `coding-agent`) is carried:
/// when the source is built for an agent it names
/// ([`SourceOptions::agent`]), the rule is skipped as `excluded_agent`.
///
/// ```
/// use jit_core::{CopilotSource, RuleSource};
/// let copilot = CopilotSource::default();
/// assert_eq!(copilot.root_files(), [".github/copilot-instructions.md"]);
/// assert_eq!(copilot.rule_dirs()[0].suffix, ".instructions.md");
/// ```
#[derive(Debug, Clone)]
pub struct CopilotSource {
    files: Vec<String>,
    root_files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    scope_keys: Vec<String>,
    agent: Option<String>,
}

impl Default for CopilotSource {
    fn default() -> Self {
        CopilotSource::build(&SourceOptions::default())
    }
}

impl CopilotSource {
    /// The convention with `options`: `agent` is the running agent for
    /// `excludeAgent:`, `extra_names` are candidate files in every directory.
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(CopilotSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        CopilotSource {
            files: options.extra_names.clone(),
            root_files: owned(&[".github/copilot-instructions.md"]),
            rule_dirs: vec![RuleDir::new(
                ".github/instructions",
                ".instructions.md",
                true,
            )],
            scope_keys: owned(&["applyTo"]),
            agent: options.agent.clone(),
        }
    }

    /// The agents a rule's `excludeAgent:` names (a string or a list).
    pub fn excluded_agents(frontmatter: &Frontmatter) -> Vec<String> {
        match frontmatter.get("excludeAgent") {
            Some(serde_json::Value::String(s)) => crate::rule::frontmatter::split_patterns(s),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(|s| s.trim().to_owned()))
                .filter(|s| !s.is_empty())
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl RuleSource for CopilotSource {
    fn name(&self) -> &str {
        "copilot"
    }

    fn files(&self) -> &[String] {
        &self.files
    }

    fn root_files(&self) -> &[String] {
        &self.root_files
    }

    fn rule_dirs(&self) -> &[RuleDir] {
        &self.rule_dirs
    }

    fn scope_keys(&self) -> &[String] {
        &self.scope_keys
    }

    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec {
        if !frontmatter.is_present() {
            return ScopeSpec::Always;
        }
        match frontmatter.patterns("applyTo") {
            Patterns::Absent => ScopeSpec::Manual(
                "no `applyTo:`, so Copilot applies this file only when it is attached by hand; \
                 it is listed in the rule index"
                    .to_owned(),
            ),
            patterns => ScopeSpec::from_patterns("applyTo", patterns),
        }
    }

    fn excluded(&self, frontmatter: &Frontmatter) -> Option<String> {
        let agent = self.agent.as_deref()?;
        let excluded = CopilotSource::excluded_agents(frontmatter);
        excluded.iter().any(|a| a == agent).then(|| {
            format!(
                "`excludeAgent: {}` leaves this rule out for {agent}",
                excluded.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::frontmatter;

    fn parse(text: &str) -> Frontmatter {
        frontmatter::parse(text, &["applyTo"])
            .map(|p| p.frontmatter)
            .unwrap_or_default()
    }

    #[test]
    fn apply_to_with_three_comma_separated_globs_is_three_patterns() {
        let fm = parse("---\napplyTo: \"src/**/*.ts,tests/**,docs/*.md\"\n---\nx\n");
        assert_eq!(
            CopilotSource::default().scope(&fm),
            ScopeSpec::Paths(owned(&["src/**/*.ts", "tests/**", "docs/*.md"]))
        );
    }

    #[test]
    fn no_apply_to_is_manual_and_no_frontmatter_is_always() {
        let copilot = CopilotSource::default();
        assert!(matches!(
            copilot.scope(&parse("---\ndescription: d\n---\nx\n")),
            ScopeSpec::Manual(_)
        ));
        assert_eq!(copilot.scope(&parse("plain\n")), ScopeSpec::Always);
    }

    #[test]
    fn exclude_agent_applies_only_to_the_agent_it_names() {
        let fm = parse("---\napplyTo: \"**\"\nexcludeAgent: \"code-review\"\n---\nx\n");
        assert_eq!(CopilotSource::excluded_agents(&fm), ["code-review"]);
        assert_eq!(CopilotSource::default().excluded(&fm), None);
        let review =
            CopilotSource::with_options(&SourceOptions::default().with_agent("code-review"))
                .unwrap();
        assert!(
            review
                .excluded(&fm)
                .is_some_and(|why| why.contains("code-review"))
        );
        let coding =
            CopilotSource::with_options(&SourceOptions::default().with_agent("coding-agent"))
                .unwrap();
        assert_eq!(coding.excluded(&fm), None);
    }

    #[test]
    fn exclude_agent_as_a_list_keeps_its_names_and_drops_blank_ones() {
        let fm = parse(
            "---\napplyTo: \"**\"\nexcludeAgent: [\" code-review \", \"\", \"coding-agent\", 3]\n---\nx\n",
        );
        assert_eq!(
            CopilotSource::excluded_agents(&fm),
            ["code-review", "coding-agent"]
        );
        assert!(
            CopilotSource::excluded_agents(&parse("---\napplyTo: \"**\"\n---\nx\n")).is_empty()
        );
    }

    #[test]
    fn an_unquoted_apply_to_is_read_literally_with_a_warning() {
        // `*` opens a YAML alias: strict YAML refuses the line, and the
        // source's scope key is what lets it be recovered.
        let source = CopilotSource::default();
        let keys: Vec<&str> = source.scope_keys().iter().map(String::as_str).collect();
        let parsed = frontmatter::parse("---\napplyTo: **/*.ts,docs/**\n---\nx\n", &keys)
            .map_err(|e| e.message)
            .unwrap();
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        assert_eq!(
            source.scope(&parsed.frontmatter),
            ScopeSpec::Paths(owned(&["**/*.ts", "docs/**"]))
        );
    }

    #[test]
    fn extra_names_are_candidates_in_every_directory() {
        let source =
            CopilotSource::with_options(&SourceOptions::default().with_extra_names(["TEAM.md"]))
                .unwrap();
        assert_eq!(source.files(), ["TEAM.md"]);
        assert!(CopilotSource::default().files().is_empty());
        assert_eq!(source.root_files(), [".github/copilot-instructions.md"]);
    }
}
