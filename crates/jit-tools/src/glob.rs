//! The glob tools' reporters: `glob`'s `path` argument, else the pattern's static prefix; and lists of paths or globs.

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{AffectedPaths, Error, TouchedPaths};

use crate::input::Input;
use crate::prefix::static_prefix;
use jit_base::lexical_clean;

/// Reports a `glob` call `{pattern, path?}`: `path` when given, else the
/// [`static_prefix`](crate::static_prefix) of `pattern`. A pattern with no
/// static prefix (`**/*.ts`) reports nothing and lists the pattern as
/// skipped with reason `no_static_prefix`.
///
/// A tool that names its directory in another field says so with
/// [`Glob::with_path_field`]: Gemini CLI's `glob` sends
/// `{pattern, dir_path?}`.
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::Glob;
/// let glob = Glob::new("glob");
/// let touched = glob.affected_paths(&serde_json::json!({"pattern": "src/ui/**/*.tsx"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src/ui"]);
/// let touched = glob.affected_paths(&serde_json::json!({"pattern": "**/*.ts"}), "/p".into())?;
/// assert!(touched.paths.is_empty());
/// let gemini = Glob::new("gemini_glob").with_path_field("dir_path");
/// let touched = gemini.affected_paths(&serde_json::json!({"pattern": "**/*.ts", "dir_path": "web"}), "/p".into())?;
/// assert_eq!(touched.paths, ["web"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Glob {
    tool: &'static str,
    path_field: &'static str,
}

impl Glob {
    /// The reporter of a glob tool named `tool`, which names its directory
    /// in the optional field `path`.
    pub const fn new(tool: &'static str) -> Self {
        Glob {
            tool,
            path_field: "path",
        }
    }

    /// The same reporter, reading the optional directory from `field`
    /// instead of `path`.
    pub const fn with_path_field(mut self, field: &'static str) -> Self {
        self.path_field = field;
        self
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
        if let Some(path) = input.optional_str(self.path_field)? {
            return Ok(TouchedPaths::from_paths([lexical_clean(path)]));
        }
        Ok(match static_prefix(pattern) {
            Some(prefix) => TouchedPaths::from_paths([prefix]),
            None => TouchedPaths::default().with_skipped(pattern, "no_static_prefix"),
        })
    }
}

/// Reports every entry of a required array-of-strings field, each a path or
/// a glob: each entry reports its [`static_prefix`](crate::static_prefix)
/// (a plain path is its own prefix), and an entry with none (`**/*.ts`) is
/// listed as skipped with reason `no_static_prefix`. Each path is reported
/// once, in the order of the entries.
///
/// Gemini CLI's `read_many_files` sends `{include: [..]}` this way:
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::GlobList;
/// static READ_MANY_FILES: GlobList = GlobList::new("read_many_files", "include");
/// let input = serde_json::json!({"include": ["README.md", "src/ui/**/*.tsx", "**/*.ts"]});
/// let touched = READ_MANY_FILES.affected_paths(&input, "/p".into())?;
/// assert_eq!(touched.paths, ["README.md", "src/ui"]);
/// assert_eq!(touched.skipped[0].reason, "no_static_prefix");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct GlobList {
    tool: &'static str,
    field: &'static str,
}

impl GlobList {
    /// The reporter of `tool`, which lists its paths and globs in `field`.
    pub const fn new(tool: &'static str, field: &'static str) -> Self {
        GlobList { tool, field }
    }
}

impl AffectedPaths for GlobList {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let entries = Input::new(self.tool, input).required_str_list(self.field)?;
        let mut paths: Vec<Utf8PathBuf> = Vec::new();
        // A set, not a scan of the list: an input may name thousands.
        let mut seen = std::collections::HashSet::new();
        let mut touched = TouchedPaths::default();
        for entry in entries {
            match static_prefix(entry) {
                Some(prefix) if !seen.contains(&prefix) => {
                    seen.insert(prefix.clone());
                    paths.push(prefix);
                }
                Some(_) => {}
                None => touched = touched.with_skipped(entry, "no_static_prefix"),
            }
        }
        touched.paths = paths;
        Ok(touched)
    }
}

crate::register!("glob", Glob::new("glob"));
// Gemini CLI's `glob` names its directory `dir_path`; the standard `glob`
// keeps its name, so Gemini's is registered under a name of its own.
crate::register!(
    "gemini_glob",
    Glob::new("gemini_glob").with_path_field("dir_path")
);
// Gemini CLI's `read_many_files` lists paths and globs in `include`.
crate::register!(
    "read_many_files",
    GlobList::new("read_many_files", "include")
);
