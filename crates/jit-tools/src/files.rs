//! Reporters for the tools that name their paths outright: read, write, edit, read_many, notebook_edit, ls, lsp, list_directory.

use camino::Utf8Path;
use jit_base::{AffectedPaths, Error, TouchedPaths};

use crate::input::Input;
use jit_base::lexical_clean;

/// Reports the one path a tool names in a required string field, such as
/// `read`'s `file_path` or `ls`'s `path`.
///
/// Register it under your harness's own tool names when they differ from
/// the standard ones:
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::PathField;
/// static VIEW: PathField = PathField::new("view", "target");
/// let touched = VIEW.affected_paths(&serde_json::json!({"target": "./src/a.rs"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src/a.rs"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct PathField {
    tool: &'static str,
    field: &'static str,
}

impl PathField {
    /// The reporter of `tool`, which names its path in `field`.
    pub const fn new(tool: &'static str, field: &'static str) -> Self {
        PathField { tool, field }
    }
}

impl AffectedPaths for PathField {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let path = Input::new(self.tool, input).required_str(self.field)?;
        Ok(TouchedPaths::from_paths([lexical_clean(path)]))
    }
}

/// Reports every path in a required array-of-strings field, such as
/// `read_many`'s `paths`. Entries are taken as paths, never as globs.
#[derive(Debug, Clone, Copy)]
pub struct PathList {
    tool: &'static str,
    field: &'static str,
}

impl PathList {
    /// The reporter of `tool`, which lists its paths in `field`.
    pub const fn new(tool: &'static str, field: &'static str) -> Self {
        PathList { tool, field }
    }
}

impl AffectedPaths for PathList {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let paths = Input::new(self.tool, input).required_str_list(self.field)?;
        Ok(TouchedPaths::from_paths(
            paths.into_iter().map(lexical_clean),
        ))
    }
}

crate::register!("read", PathField::new("read", "file_path"));
crate::register!("write", PathField::new("write", "file_path"));
crate::register!("edit", PathField::new("edit", "file_path"));
crate::register!("read_many", PathList::new("read_many", "paths"));
crate::register!(
    "notebook_edit",
    PathField::new("notebook_edit", "notebook_path")
);
crate::register!("ls", PathField::new("ls", "path"));
crate::register!("lsp", PathField::new("lsp", "file_path"));
// Gemini CLI's `list_directory` names its directory `dir_path`.
crate::register!(
    "list_directory",
    PathField::new("list_directory", "dir_path")
);
