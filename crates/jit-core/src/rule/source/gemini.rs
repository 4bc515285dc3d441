//! Gemini CLI's context files: `GEMINI.md` (names configurable) in every directory, `~/.gemini/GEMINI.md`, `@` imports.

use super::{Imports, RuleDir, RuleSource, ScopeSpec, SourceOptions, UserLevel, owned};
use crate::rule::frontmatter::Frontmatter;

/// Gemini CLI's context files: a `GEMINI.md` in any directory applies to
/// everything below it. The names are configurable, as Gemini's
/// `context.fileName` allows (`names`, `extra_names`); `~/.gemini/GEMINI.md`
/// is the user level; files take `@` imports. No scopes, no rule folders.
///
/// ```
/// use jit_core::{GeminiSource, RuleSource, SourceOptions};
/// assert_eq!(GeminiSource::default().files(), ["GEMINI.md"]);
/// let both = GeminiSource::with_options(
///     &SourceOptions::default().with_names(["GEMINI.md", "CONTEXT.md"]),
/// )?;
/// assert_eq!(both.files(), ["GEMINI.md", "CONTEXT.md"]);
/// assert_eq!(both.user_level().map(|u| u.dir.as_str()), Some(".gemini"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct GeminiSource {
    files: Vec<String>,
    user: UserLevel,
}

impl Default for GeminiSource {
    fn default() -> Self {
        GeminiSource::build(&SourceOptions::default())
    }
}

impl GeminiSource {
    /// The convention with `options`: `names` replaces `GEMINI.md`,
    /// `extra_names` and `fallback_names` add to it.
    /// An option that is not a file name is an
    /// [`ErrorKind::InvalidFileName`](crate::ErrorKind::InvalidFileName)
    /// error (see [`SourceOptions::validate`]).
    pub fn with_options(options: &SourceOptions) -> Result<Self, crate::Error> {
        options.validate()?;
        Ok(GeminiSource::build(options))
    }

    /// The convention with `options`, whose names the caller has checked.
    fn build(options: &SourceOptions) -> Self {
        let mut files = options
            .names
            .clone()
            .unwrap_or_else(|| owned(&["GEMINI.md"]));
        for name in options.extra_names.iter().chain(&options.fallback_names) {
            if !files.contains(name) {
                files.push(name.clone());
            }
        }
        GeminiSource {
            user: UserLevel {
                dir: ".gemini".to_owned(),
                files: files.clone(),
                rule_dirs: Vec::new(),
            },
            files,
        }
    }
}

impl RuleSource for GeminiSource {
    fn name(&self) -> &str {
        "gemini"
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

    fn imports(&self) -> Imports {
        Imports::At
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_replace_the_default_and_the_user_level_follows() {
        let gemini = GeminiSource::with_options(
            &SourceOptions::default()
                .with_names(["CONTEXT.md"])
                .with_extra_names(["MORE.md"]),
        )
        .unwrap();
        assert_eq!(gemini.files(), ["CONTEXT.md", "MORE.md"]);
        assert_eq!(
            gemini.user_level().map(|u| u.files.clone()),
            Some(owned(&["CONTEXT.md", "MORE.md"]))
        );
        assert_eq!(gemini.imports(), Imports::At);
    }
}
