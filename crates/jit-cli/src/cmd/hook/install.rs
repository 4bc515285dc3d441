//! `jit hook install` and `jit hook uninstall`: merge jit's hooks into an agent's settings file, and take them out again.

mod edit;
mod files;
mod json;
mod plan;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::AgentKind;
use json::{Json, Style};
use plan::{Change, Ours, Spec};

const AFTER_HELP: &str = "\
Example:
  jit hook install claude-code --dry-run
      Prints, as a diff, the entries `jit hook install claude-code` would add
      to .claude/settings.json in this repository, and writes nothing.
      `jit hook uninstall claude-code` takes them out again.";

/// Arguments of `jit hook install` and `jit hook uninstall`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// The agent whose settings file to change: Claude Code's
    /// .claude/settings.json, Codex's .codex/hooks.json or Gemini CLI's
    /// .gemini/settings.json.
    #[arg(value_enum)]
    agent: AgentKind,
    /// Change the project's settings file, under the project root (the default).
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Change the user's settings file, under $HOME, which applies to every project.
    #[arg(long)]
    user: bool,
    /// Print the change as a unified diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The project root (default: the git worktree root above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    root: Option<PathBuf>,
}

/// Runs `jit hook install`.
pub(crate) fn install(args: &Args) -> anyhow::Result<ExitCode> {
    let spec = Spec::of(args.agent);
    let target = Target::resolve(args, spec)?;
    let path = &target.path;
    let exe = running_binary()?;
    let command = plan::command_line(&exe, args.agent);
    let ours = Ours::new(args.agent, Some(Path::new(&exe)));

    let before = files::read_text_if_exists(path)?;
    let (mut doc, style) = match &before {
        Some(text) => parse(text, path)?,
        None => (Json::Object(json::Object::default()), Style::new_file()),
    };
    let original = doc.clone();
    let changes = plan::install(&mut doc, spec, &command, &ours)
        .with_context(|| format!("cannot install jit's hooks into {}", path.display()))?;
    let mut out = std::io::stdout().lock();
    if doc == original {
        writeln!(
            out,
            "jit hooks for {} already installed in {}",
            args.agent.name(),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let after = match &before {
        Some(text) => rewrite(text, &original, &doc, &style, path)?,
        None => json::render(&doc, &style)
            .with_context(|| format!("cannot write JSON for {}", path.display()))?,
    };
    if args.dry_run {
        let old = before.as_deref().unwrap_or("");
        write!(out, "{}", files::unified_diff(old, &after, &target.label))?;
        writeln!(out, "dry run: nothing written to {}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }

    match &before {
        Some(text) => {
            let backup = files::backup_path(path);
            if files::back_up(text.as_bytes(), &backup)? {
                writeln!(out, "backed up {} to {}", path.display(), backup.display())?;
            }
            files::write_atomic(path, after.as_bytes())?;
        }
        None => {
            files::write_atomic(path, after.as_bytes())?;
            writeln!(out, "created {}", path.display())?;
        }
    }
    for (event, change) in &changes {
        match change {
            Change::Added => writeln!(out, "added {event} hook to {}", path.display())?,
            Change::Replaced => {
                writeln!(out, "replaced jit's {event} hook in {}", path.display())?;
            }
            Change::Removed => {
                writeln!(
                    out,
                    "removed jit's old {event} hook from {}",
                    path.display()
                )?;
            }
            Change::Unchanged => {}
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What an uninstall does to the settings file once jit's entries are out.
enum Outcome {
    /// Nothing else changed since the install: put the original bytes back.
    Restore(Vec<u8>),
    /// The install created the file and nothing else is in it.
    Delete,
    /// Write what is left; `kept_backup` when a backup stays behind because
    /// the file has other changes since the install.
    Write { text: String, kept_backup: bool },
}

/// Runs `jit hook uninstall`.
pub(crate) fn uninstall(args: &Args) -> anyhow::Result<ExitCode> {
    let spec = Spec::of(args.agent);
    let target = Target::resolve(args, spec)?;
    let path = &target.path;
    // The binary's own name only widens what is recognised as jit's; when it
    // cannot be found, entries running a `jit` are still removed.
    let exe = running_binary().ok();
    let ours = Ours::new(args.agent, exe.as_deref().map(Path::new));
    let mut out = std::io::stdout().lock();

    let Some(before) = files::read_text_if_exists(path)? else {
        writeln!(
            out,
            "no jit hooks for {} in {} (no such file); nothing changed",
            args.agent.name(),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    };
    let (mut doc, style) = parse(&before, path)?;
    let original = doc.clone();
    let events = plan::uninstall(&mut doc, &ours)
        .with_context(|| format!("cannot uninstall jit's hooks from {}", path.display()))?;
    if events.is_empty() {
        writeln!(
            out,
            "no jit hooks for {} in {}; nothing changed",
            args.agent.name(),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }

    let backup = files::backup_path(path);
    let outcome = match files::read_if_exists(&backup)? {
        Some(bytes) if same_json(&bytes, &doc) => Outcome::Restore(bytes),
        None if plan::is_empty_object(&doc) => Outcome::Delete,
        kept => Outcome::Write {
            text: rewrite(&before, &original, &doc, &style, path)?,
            kept_backup: kept.is_some(),
        },
    };
    if args.dry_run {
        let after = match &outcome {
            Outcome::Restore(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Outcome::Delete => String::new(),
            Outcome::Write { text, .. } => text.clone(),
        };
        write!(
            out,
            "{}",
            files::unified_diff(&before, &after, &target.label)
        )?;
        writeln!(out, "dry run: nothing written to {}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }

    match &outcome {
        Outcome::Restore(bytes) => {
            files::write_atomic(path, bytes)?;
            std::fs::remove_file(&backup)
                .with_context(|| format!("cannot delete {}", backup.display()))?;
        }
        Outcome::Delete => std::fs::remove_file(path)
            .with_context(|| format!("cannot delete {}", path.display()))?,
        Outcome::Write { text, .. } => files::write_atomic(path, text.as_bytes())?,
    }
    for event in &events {
        writeln!(out, "removed {event} hook from {}", path.display())?;
    }
    match outcome {
        Outcome::Restore(_) => writeln!(
            out,
            "restored {} from {} and deleted the backup",
            path.display(),
            backup.display()
        )?,
        Outcome::Delete => writeln!(
            out,
            "deleted {}: jit's install created it and nothing else is in it",
            path.display()
        )?,
        Outcome::Write {
            kept_backup: true, ..
        } => writeln!(
            out,
            "kept {}: {} has other changes since jit's install",
            backup.display(),
            path.display()
        )?,
        Outcome::Write { .. } => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// The settings file a command changes.
#[derive(Debug)]
struct Target {
    /// The file to read and write.
    path: PathBuf,
    /// The file relative to the project root or the home directory, for the
    /// diff headers.
    label: String,
}

impl Target {
    fn resolve(args: &Args, spec: &Spec) -> anyhow::Result<Target> {
        let base = if args.user {
            home_dir()?
        } else {
            project_root(args.root.as_deref())?
        };
        let mut path = base.join(spec.dir).join(spec.file);
        // Settings kept in a dotfiles repository are often symlinks, and
        // renaming a new file over a link would replace the link itself.
        if path
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_symlink())
        {
            path = std::fs::canonicalize(&path)
                .with_context(|| format!("cannot follow the symlink {}", path.display()))?;
        }
        Ok(Target {
            path,
            label: format!("{}/{}", spec.dir, spec.file),
        })
    }
}

/// `--root`, else the git worktree root above the current directory (a
/// `.git` folder, or the `.git` file of a linked worktree or submodule), else
/// the current directory.
fn project_root(root: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(root) = root {
        if !root.is_dir() {
            anyhow::bail!("--root {} is not a directory", root.display());
        }
        return std::path::absolute(root)
            .with_context(|| format!("cannot make --root {} absolute", root.display()));
    }
    crate::project::root_or_default(None)
}

/// The home directory from `$HOME`, where the user-level settings live.
fn home_dir() -> anyhow::Result<PathBuf> {
    let home =
        std::env::var_os("HOME").context("HOME is not set, and --user needs the home directory")?;
    let home = home
        .into_string()
        .map_err(|home| anyhow::anyhow!("HOME ({}) is not UTF-8", Path::new(&home).display()))?;
    if home.is_empty() {
        anyhow::bail!("HOME is empty, and --user needs the home directory");
    }
    Ok(PathBuf::from(home))
}

/// The canonical path of the running binary, which the hook command runs.
fn running_binary() -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot find the path of the running jit binary")?;
    let exe = std::fs::canonicalize(&exe).with_context(|| {
        format!(
            "cannot resolve the path of the running binary {}",
            exe.display()
        )
    })?;
    exe.into_os_string().into_string().map_err(|exe| {
        anyhow::anyhow!(
            "the path of the running binary {} is not UTF-8, and a hook command is a JSON string",
            Path::new(&exe).display()
        )
    })
}

fn parse(text: &str, path: &Path) -> anyhow::Result<(Json, Style)> {
    json::parse(text).with_context(|| format!("{} is not valid JSON", path.display()))
}

/// `text` (which parses to `old`) edited into `new`: only what changed is rewritten.
fn rewrite(
    text: &str,
    old: &Json,
    new: &Json,
    style: &Style,
    path: &Path,
) -> anyhow::Result<String> {
    edit::rewrite(text, old, new, style)
        .with_context(|| format!("cannot write JSON for {}", path.display()))
}

/// Whether `bytes` hold the same JSON as `doc`, whatever the key order or layout.
fn same_json(bytes: &[u8], doc: &Json) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| json::parse(text).ok())
        .is_some_and(|(value, _)| value.to_value() == doc.to_value())
}
