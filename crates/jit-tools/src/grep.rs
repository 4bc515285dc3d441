//! The grep tools' reporter: only the `path` argument (or the tool's own name for it), because the pattern is a regex.

use camino::Utf8Path;
use jit_base::{AffectedPaths, Error, TouchedPaths};

use crate::input::Input;
use jit_base::lexical_clean;

/// Reports a `grep` call `{pattern, path?, glob?}`: only `path`. The pattern
/// is a regular expression and is never read as a glob (`src/\w+\.ts` would
/// yield a directory that does not exist), and the `glob` filter is not a
/// path either; without `path` the call reports nothing.
///
/// A tool that names its directory in another field says so with
/// [`Grep::with_path_field`]: Gemini CLI's `grep_search` sends
/// `{pattern, dir_path?, include?}`, where `include` is a filter like `glob`.
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::Grep;
/// let grep = Grep::new("grep");
/// let touched = grep.affected_paths(&serde_json::json!({"pattern": "ui/**", "path": "src"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src"]);
/// let gemini = Grep::new("grep_search").with_path_field("dir_path");
/// let touched = gemini.affected_paths(&serde_json::json!({"pattern": "TODO", "dir_path": "web"}), "/p".into())?;
/// assert_eq!(touched.paths, ["web"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Grep {
    tool: &'static str,
    path_field: &'static str,
}

impl Grep {
    /// The reporter of a grep tool named `tool`, which names its file or
    /// directory in the optional field `path`.
    pub const fn new(tool: &'static str) -> Self {
        Grep {
            tool,
            path_field: "path",
        }
    }

    /// The same reporter, reading the optional file or directory from
    /// `field` instead of `path`.
    pub const fn with_path_field(mut self, field: &'static str) -> Self {
        self.path_field = field;
        self
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
        Ok(match input.optional_str(self.path_field)? {
            Some(path) => TouchedPaths::from_paths([lexical_clean(path)]),
            None => TouchedPaths::default(),
        })
    }
}

crate::register!("grep", Grep::new("grep"));
// Gemini CLI's `grep_search` (and its older name `search_file_content`)
// names its directory `dir_path`.
crate::register!(
    "grep_search",
    Grep::new("grep_search").with_path_field("dir_path")
);
