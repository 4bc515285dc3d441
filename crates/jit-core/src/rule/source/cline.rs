//! Cline's rules: a root `.clinerules` file (always), or a `.clinerules/` folder of `.md` rules scoped by `paths:`.

use super::{RuleDir, RuleSource, ScopeSpec, SourceOptions, owned};
use crate::rule::frontmatter::Frontmatter;

/// Cline's rules: `.clinerules` at the project root is either one always-on
/// rule file, or a folder whose `.md` files are rules, each optionally
/// scoped by a `paths:` frontmatter. (The folder form is not reported as an
/// unreadable candidate: the engine knows the name is also a rule folder.)
///
/// ```
/// use jit_core::{ClineSource, RuleSource};
/// let cline = ClineSource::default();
/// assert_eq!(cline.root_files(), [".clinerules"]);
/// assert_eq!(cline.rule_dirs()[0].path, ".clinerules");
/// assert_eq!(cline.scope_keys(), ["paths"]);
/// ```
#[derive(Debug, Clone)]
pub struct ClineSource {
    files: Vec<String>,
    root_files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    scope_keys: Vec<String>,
}

impl Default for ClineSource {
    fn default() -> Self {
        ClineSource::build(&SourceOptions::default())
    }
}

impl ClineSource {
    /// The convention with `options`: `extra_names` are candidate files in
    /// every directory (none by default).
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(ClineSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        ClineSource {
            files: options.extra_names.clone(),
            root_files: owned(&[".clinerules"]),
            rule_dirs: vec![RuleDir::new(".clinerules", ".md", true)],
            scope_keys: owned(&["paths"]),
        }
    }
}

impl RuleSource for ClineSource {
    fn name(&self) -> &str {
        "cline"
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
        ScopeSpec::from_patterns("paths", frontmatter.patterns("paths"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::frontmatter;

    #[test]
    fn paths_scope_a_folder_rule_and_no_frontmatter_is_always() {
        let cline = ClineSource::default();
        let scoped = frontmatter::parse("---\npaths: [\"src/**\"]\n---\nx\n", &["paths"])
            .map(|p| cline.scope(&p.frontmatter));
        assert_eq!(scoped.ok(), Some(ScopeSpec::Paths(owned(&["src/**"]))));
        let plain =
            frontmatter::parse("be nice\n", &["paths"]).map(|p| cline.scope(&p.frontmatter));
        assert_eq!(plain.ok(), Some(ScopeSpec::Always));
    }

    #[test]
    fn extra_names_are_candidates_in_every_directory() {
        let cline =
            ClineSource::with_options(&SourceOptions::default().with_extra_names(["TEAM.md"]))
                .unwrap();
        assert_eq!(cline.files(), ["TEAM.md"]);
        assert!(ClineSource::default().files().is_empty());
    }
}
