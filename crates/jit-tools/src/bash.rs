//! The shell tools' reporter: the files a command certainly writes, from `jit-bash`.

use camino::Utf8Path;
use jit_base::{AffectedPaths, Error, TouchedPaths};

use crate::input::Input;
use jit_base::lexical_clean;

/// Reports a `bash` call `{command, cwd?}`: the paths
/// [`jit_bash::written_paths`] finds, with every word it skipped (and why)
/// as [`TouchedPaths::skipped`].
///
/// A `cwd` field in the input says where the command runs. Relative paths
/// are then joined onto it lexically: an absolute `cwd` makes them absolute,
/// a relative one keeps them relative to the call's cwd (which the engine
/// resolves), so `{"command": "touch a.ts", "cwd": "web"}` reports
/// `web/a.ts`. Without `cwd` the command runs in the call's cwd and the paths
/// stay as written. A tool that names that directory in another field says
/// so with [`Bash::with_cwd_field`]: Gemini CLI's `run_shell_command` sends
/// `{command, dir_path?}`.
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::Bash;
/// let bash = Bash::new("bash");
/// let touched = bash.affected_paths(&serde_json::json!({"command": "cp src/a.ts src/ui/b.ts"}), "/p".into())?;
/// assert_eq!(touched.paths, ["src/ui/b.ts"]);
/// let touched = bash.affected_paths(&serde_json::json!({"command": "touch a.ts", "cwd": "/p/web"}), "/p".into())?;
/// assert_eq!(touched.paths, ["/p/web/a.ts"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Bash {
    tool: &'static str,
    cwd_field: &'static str,
}

impl Bash {
    /// The reporter of a shell tool named `tool`, which names the directory
    /// its command runs in with the optional field `cwd`.
    pub const fn new(tool: &'static str) -> Self {
        Bash {
            tool,
            cwd_field: "cwd",
        }
    }

    /// The same reporter, reading the command's directory from `field`
    /// instead of `cwd`.
    pub const fn with_cwd_field(mut self, field: &'static str) -> Self {
        self.cwd_field = field;
        self
    }
}

impl AffectedPaths for Bash {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let input = Input::new(self.tool, input);
        let command = input.required_str("command")?;
        let command_cwd = input.optional_str(self.cwd_field)?;
        let analysis = jit_bash::written_paths(command);
        let paths = analysis.paths.iter().map(|path| match command_cwd {
            Some(dir) if !path.starts_with('/') => lexical_clean(&format!("{dir}/{path}")),
            _ => lexical_clean(path),
        });
        let mut touched = TouchedPaths::from_paths(paths);
        for skipped in analysis.skipped {
            touched = touched.with_skipped(skipped.word, skipped.reason.as_str());
        }
        Ok(touched)
    }
}

crate::register!("bash", Bash::new("bash"));
// Gemini CLI's `run_shell_command` names the directory its command runs in `dir_path`.
crate::register!(
    "run_shell_command",
    Bash::new("run_shell_command").with_cwd_field("dir_path")
);
