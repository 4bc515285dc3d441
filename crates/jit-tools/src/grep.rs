//! The `grep` tool's reporter: only its `path` argument, because its pattern is a regex.

use camino::Utf8Path;
use jit_core::{AffectedPaths, Error, TouchedPaths};

use crate::input::{Input, lexical};

/// Reports a `grep` call `{pattern, path?, glob?}`: only `path`. The pattern
/// is a regular expression and is never read as a glob (`src/\w+\.ts` would
/// yield a directory that does not exist), and the `glob` filter is not a
/// path either; without `path` the call reports nothing.
///
/// ```
/// use jit_core::AffectedPaths;
/// use jit_tools::Grep;
/// let grep = Grep::new("grep");
/// let touched = grep.affected_paths(&serde_json::json!({"pattern": "ui/**", "path": "src"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Grep {
    tool: &'static str,
}

impl Grep {
    /// The reporter of a grep tool named `tool`.
    pub const fn new(tool: &'static str) -> Self {
        Grep { tool }
    }
}

impl AffectedPaths for Grep {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let input = Input::new(self.tool, input);
        // The pattern is validated (a call without one is malformed) but never read as a path.
        input.required_str("pattern")?;
        Ok(match input.optional_str("path")? {
            Some(path) => TouchedPaths::from_paths([lexical(path)]),
            None => TouchedPaths::default(),
        })
    }
}

crate::register!("grep", Grep::new("grep"));
