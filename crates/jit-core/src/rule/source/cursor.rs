//! Cursor's rules: `.cursor/rules/**/*.mdc` with `globs:` and `alwaysApply:`, description-only rules for the index, the legacy root `.cursorrules`.

use super::{RuleDir, RuleSource, ScopeSpec, SourceOptions, description, owned};
use crate::rule::frontmatter::{Frontmatter, Patterns};

/// Cursor's project rules: `.cursor/rules/**/*.mdc`, each with a
/// frontmatter of `description:`, `globs:` and `alwaysApply:`.
///
/// * `alwaysApply: true` (or the string `"true"`, as Cursor writes it) → always.
/// * `globs:` as a YAML list, a comma-separated string, or an unquoted line
///   that strict YAML rejects (`globs: **/*.ts, src/**`, read literally with
///   a warning) → scoped.
/// * neither → attached by the agent from its `description:` or by hand: never
///   injected, but listed in the startup rule index.
/// * no frontmatter at all → always (the legacy root `.cursorrules`, which is
///   a plain always-on rule file, is read this way).
///
/// ```
/// use jit_core::{CursorSource, RuleSource};
/// let cursor = CursorSource::default();
/// assert_eq!(cursor.rule_dirs()[0].path, ".cursor/rules");
/// assert_eq!(cursor.rule_dirs()[0].suffix, ".mdc");
/// assert_eq!(cursor.root_files(), [".cursorrules"]);
/// ```
#[derive(Debug, Clone)]
pub struct CursorSource {
    files: Vec<String>,
    root_files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    scope_keys: Vec<String>,
}

impl Default for CursorSource {
    fn default() -> Self {
        CursorSource::build(&SourceOptions::default())
    }
}

impl CursorSource {
    /// The convention with `options`: `extra_names` are candidate files in
    /// every directory (none by default).
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(CursorSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        CursorSource {
            files: options.extra_names.clone(),
            root_files: owned(&[".cursorrules"]),
            rule_dirs: vec![RuleDir::new(".cursor/rules", ".mdc", true)],
            scope_keys: owned(&["globs"]),
        }
    }
}

impl RuleSource for CursorSource {
    fn name(&self) -> &str {
        "cursor"
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
        match (
            frontmatter.get("alwaysApply"),
            frontmatter.flag("alwaysApply"),
        ) {
            (_, Some(true)) => return ScopeSpec::Always,
            (Some(value), None) if !value.is_null() => {
                return ScopeSpec::Invalid(format!(
                    "`alwaysApply:` is {value}, not true or false; write `alwaysApply: true` \
                     or `alwaysApply: false`"
                ));
            }
            _ => {}
        }
        match frontmatter.patterns("globs") {
            Patterns::Absent | Patterns::Empty => {
                ScopeSpec::Manual(match description(frontmatter) {
                    Some(description) => format!(
                        "no `globs:` and `alwaysApply` is not true: the agent attaches this rule \
                     from its description (\"{description}\") or a user does by hand; it is \
                     listed in the rule index"
                    ),
                    None => "no `globs:`, no `description:` and `alwaysApply` is not true: only a \
                         user attaches this rule, by hand"
                        .to_owned(),
                })
            }
            patterns => ScopeSpec::from_patterns("globs", patterns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::frontmatter;
    use crate::rule::{RuleScope, parse_rule};

    #[track_caller]
    fn check(text: &str, expected: &str) {
        let cursor = CursorSource::default();
        let shown = match parse_rule(text, &cursor) {
            Err(rejection) => rejection.reason.as_str().to_owned(),
            Ok(parsed) => match &parsed.scope {
                RuleScope::Always => format!("always w{}", parsed.warnings.len()),
                RuleScope::Paths(compiled) => {
                    format!("{:?} w{}", compiled.patterns(), parsed.warnings.len())
                }
                RuleScope::Manual(_) => "manual".to_owned(),
                RuleScope::Excluded(_) => "excluded".to_owned(),
            },
        };
        assert_eq!(shown, expected, "{text}");
    }

    #[test]
    fn scope_forms() {
        for (text, expected) in [
            ("---\nalwaysApply: true\n---\nx\n", "always w0"),
            ("---\nalwaysApply: \"true\"\n---\nx\n", "always w0"),
            (
                "---\nalwaysApply: \"false\"\nglobs: src/**\n---\nx\n",
                "[\"src/**\"] w0",
            ),
            (
                "---\nglobs: [\"src/**/*.ts\", \"lib/**\"]\n---\nx\n",
                "[\"src/**/*.ts\", \"lib/**\"] w0",
            ),
            (
                "---\nglobs: \"src/**/*.ts, lib/**\"\n---\nx\n",
                "[\"src/**/*.ts\", \"lib/**\"] w0",
            ),
            (
                "---\nglobs: **/*.ts, src/**\n---\nx\n",
                "[\"**/*.ts\", \"src/**\"] w1",
            ),
            ("---\ndescription: Use for API work\n---\nx\n", "manual"),
            (
                "---\ndescription: d\nglobs:\nalwaysApply: false\n---\nx\n",
                "manual",
            ),
            ("---\nalwaysApply: maybe\n---\nx\n", "invalid_frontmatter"),
            // An empty `alwaysApply:` says nothing: the globs decide.
            (
                "---\nalwaysApply:\nglobs: src/**\n---\nx\n",
                "[\"src/**\"] w0",
            ),
            ("plain legacy rules\n", "always w0"),
        ] {
            check(text, expected);
        }
    }

    #[test]
    fn a_description_only_rule_says_it_is_in_the_index() {
        let cursor = CursorSource::default();
        let parsed = frontmatter::parse("---\ndescription: API rules\n---\nx\n", &["globs"]);
        let Ok(parsed) = parsed else {
            panic!("expected a parse");
        };
        let ScopeSpec::Manual(why) = cursor.scope(&parsed.frontmatter) else {
            panic!("expected manual");
        };
        assert!(
            why.contains("API rules") && why.contains("rule index"),
            "{why}"
        );
    }
}
