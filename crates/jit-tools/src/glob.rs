//! The `glob` tool's reporter: its `path` argument, else the pattern's static prefix.

use camino::Utf8Path;
use jit_core::{AffectedPaths, Error, TouchedPaths};

use crate::input::{Input, lexical};
use crate::prefix::static_prefix;

/// Reports a `glob` call `{pattern, path?}`: `path` when given, else the
/// [`static_prefix`](crate::static_prefix) of `pattern`. A pattern with no
/// static prefix (`**/*.ts`) reports nothing and lists the pattern as
/// skipped with reason `no_static_prefix`.
///
/// ```
/// use jit_core::AffectedPaths;
/// use jit_tools::Glob;
/// let glob = Glob::new("glob");
/// let touched = glob.affected_paths(&serde_json::json!({"pattern": "src/ui/**/*.tsx"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src/ui"]);
/// let touched = glob.affected_paths(&serde_json::json!({"pattern": "**/*.ts"}), "/p".into())?;
/// assert!(touched.paths.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Glob {
    tool: &'static str,
}

impl Glob {
    /// The reporter of a glob tool named `tool`.
    pub const fn new(tool: &'static str) -> Self {
        Glob { tool }
    }
}

impl AffectedPaths for Glob {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let input = Input::new(self.tool, input);
        let pattern = input.required_str("pattern")?;
        if let Some(path) = input.optional_str("path")? {
            return Ok(TouchedPaths::from_paths([lexical(path)]));
        }
        Ok(match static_prefix(pattern) {
            Some(prefix) => TouchedPaths::from_paths([prefix]),
            None => TouchedPaths::default().with_skipped(pattern, "no_static_prefix"),
        })
    }
}

crate::register!("glob", Glob::new("glob"));
