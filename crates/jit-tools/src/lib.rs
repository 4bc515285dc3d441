//! Path reporters for the standard agent tools, registered with `inventory` so the engine knows which paths each call touched.
//!
//! Linking this crate registers these tools, each with one reporter:
//!
//! | tool | input | reports |
//! |---|---|---|
//! | `read` | `{file_path, offset?, limit?}` | `file_path` |
//! | `write` | `{file_path, content}` | `file_path` |
//! | `edit` | `{file_path, old_string, new_string}` | `file_path` |
//! | `read_many` | `{paths: [..]}` | every entry of `paths` |
//! | `notebook_edit` | `{notebook_path, ...}` | `notebook_path` |
//! | `ls` | `{path}` | `path` |
//! | `list_directory` | `{dir_path}` | `dir_path` |
//! | `lsp` | `{file_path}` | `file_path` |
//! | `glob` | `{pattern, path?}` | `path`, else the pattern's [`static_prefix`] |
//! | `gemini_glob` | `{pattern, dir_path?}` | `dir_path`, else the pattern's [`static_prefix`] |
//! | `read_many_files` | `{include: [..]}` | each entry's [`static_prefix`] (a path is its own) |
//! | `grep` | `{pattern, path?, glob?}` | `path` only: the pattern is a regex |
//! | `grep_search` | `{pattern, dir_path?, include?}` | `dir_path` only |
//! | `bash` (feature `bash`) | `{command, cwd?}` | what `jit_bash::written_paths` finds, joined onto `cwd` |
//! | `run_shell_command` (feature `bash`) | `{command, dir_path?}` | the same, joined onto `dir_path` |
//! | `apply_patch` | `{command}` (patch text) | the files it adds or updates; a move's target; never a deleted file |
//! | `web_fetch`, `web_search`, `todo_write`, `task`, `bash_output`, `kill_shell`, `exit_plan_mode`, `ask_user`, `skill`, `save_memory`, `update_plan` | anything | nothing ([`TouchesNothing`](jit_base::TouchesNothing)) |
//!
//! Paths come back as the call addressed them, tidied by
//! [`jit_base::lexical_clean`] (`.` segments and repeated `/` dropped, `..`
//! and a trailing `/` kept). Relative paths stay relative to the call's cwd;
//! the engine resolves them ([`jit_base::resolve_parents`]: a `..` after a
//! link climbs from its target) and contains them. Malformed input (a missing field, a wrong type) is an error
//! naming the tool and the field, never a silent empty answer.
//!
//! ```
//! use jit_base::Registry;
//! use jit_tools as _; // Linking the crate is what registers the tools.
//!
//! // The registry of everything linked, refused if it fails its audit.
//! let registry = Registry::checked()?;
//! let touched = registry.affected_paths(
//!     "glob",
//!     &serde_json::json!({"pattern": "src/ui/**/*.tsx"}),
//!     "/project".into(),
//! )?;
//! assert_eq!(touched.paths, ["src/ui"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Each agent names its tools its own way. [`Agent::tool_table`] maps the
//! names Claude Code, Codex CLI and Gemini CLI use (`Read`, `apply_patch`,
//! `read_file`) to the tools above; a name outside an agent's table (an MCP
//! tool) maps to nothing and is never guessed. [`audit_agent_tables`] checks
//! that every entry names a registered tool with a reporter.
//!
//! The reporter types ([`PathField`], [`PathList`], [`Glob`], [`GlobList`],
//! [`Grep`], `Bash`, [`ApplyPatch`]) are public, and those that read an
//! optional directory say from which field (`Glob::with_path_field`,
//! `Grep::with_path_field`, `Bash::with_cwd_field`), so a harness whose tools
//! have other names or fields registers them under its own names with
//! `jit_base::ReporterRegistration` and checks the result with
//! `jit_base::Registry::checked`, and the names it gives the model with
//! `jit_base::audit_tools`.
//!
//! The shell tools (`bash`, `run_shell_command`) and the `Bash` reporter
//! come with the `bash` feature, on by default, which builds `jit-bash` and
//! through it tree-sitter and its bash grammar (C code compiled by `cc`).
//! With `default-features = false` the crate builds on `jit-base`, camino and
//! serde_json alone, and registers no shell tool: [`jit_base::audit_tools`]
//! then reports an exposed `bash` or `run_shell_command` as a tool without a
//! reporter ([`jit_base::AuditProblem::ExposedWithoutReporter`]), and
//! [`audit_agent_tables`] names the agents' shell entries, until the harness
//! registers its own reporter under that name or turns the feature on.
//!
//! The traits and the registry come from `jit-base`, which `jit-core`
//! re-exports: `jit_core::Registry` and `jit_base::Registry` are one type.
//!
//! This crate deliberately does not guess paths from field names of tools it
//! does not know, does not touch the filesystem, and does not resolve `..` or
//! symlinks: a reporter is a pure function of the call's input.
#![deny(missing_docs)]

/// Registers tool `$tool` and its reporter `$reporter` (a constant
/// expression) with `inventory`, both marked as defined in the calling module.
macro_rules! register {
    ($tool:literal, $reporter:expr) => {
        jit_base::inventory::submit! {
            jit_base::ToolRegistration::new($tool, module_path!())
        }
        jit_base::inventory::submit! {
            jit_base::ReporterRegistration::new($tool, &$reporter, module_path!())
        }
    };
}
pub(crate) use register;

mod agents;
#[cfg(feature = "bash")]
mod bash;
mod files;
mod glob;
mod grep;
mod input;
mod nothing;
mod patch;
mod prefix;

pub use agents::{Agent, audit_agent_tables};
#[cfg(feature = "bash")]
pub use bash::Bash;
pub use files::{PathField, PathList};
pub use glob::{Glob, GlobList};
pub use grep::Grep;
pub use patch::ApplyPatch;
pub use prefix::static_prefix;
