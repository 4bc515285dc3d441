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

    let before = files::read_settings(path)?;
    let (mut doc, style) = match &before {
        Some(file) => parse(&file.text, path)?,
        None => (Json::Object(json::Object::default()), Style::new_file()),
    };
    let original = doc.clone();
    let changes = plan::install(&mut doc, spec, &command, &ours)
        .with_context(|| format!("cannot install jit's hooks into {}", path.display()))?;
    let mut out = std::io::stdout().lock();
    if doc == original {
        report(&mut out, &changes, path)?;
        writeln!(
            out,
            "jit hooks for {} already installed in {}",
            args.agent.name(),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let after = match &before {
        Some(file) => rewrite(&file.text, &original, &doc, &style, path)?,
        None => json::render(&doc, &style)
            .with_context(|| format!("cannot write JSON for {}", path.display()))?,
    };
    if let Some(file) = &before {
        files::check_writable(path, &file.meta)?;
    }
    if args.dry_run {
        let old = before.as_ref().map_or("", |file| file.text.as_str());
        write!(out, "{}", files::unified_diff(old, &after, &target.label))?;
        writeln!(out, "dry run: nothing written to {}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }

    match &before {
        Some(file) => {
            let backup = files::backup_path(path);
            if files::back_up(file.text.as_bytes(), &backup, &file.meta)? {
                writeln!(out, "backed up {} to {}", path.display(), backup.display())?;
            }
            files::write_atomic(path, after.as_bytes(), Some(&file.meta))?;
        }
        None => {
            files::write_atomic(path, after.as_bytes(), None)?;
            writeln!(out, "created {}", path.display())?;
        }
    }
    report(&mut out, &changes, path)?;
    Ok(ExitCode::SUCCESS)
}

/// One line for each event an install changed, or left to a hook of the
/// user's that already runs jit.
fn report(out: &mut impl Write, changes: &[(String, Change)], path: &Path) -> std::io::Result<()> {
    let path = path.display();
    for (event, change) in changes {
        match change {
            Change::Added => writeln!(out, "added {event} hook to {path}")?,
            Change::Replaced => writeln!(out, "replaced jit's {event} hook in {path}")?,
            Change::Removed => writeln!(out, "removed jit's old {event} hook from {path}")?,
            Change::Theirs {
                removed_ours: false,
            } => writeln!(
                out,
                "left the {event} hook in {path} as it is: it already runs jit, \
                 and jit adds no second one"
            )?,
            Change::Theirs { removed_ours: true } => writeln!(
                out,
                "removed jit's {event} hook from {path}: a hook jit did not write \
                 already runs jit there, and is left as it is"
            )?,
            Change::Unchanged => {}
        }
    }
    Ok(())
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

impl Outcome {
    /// The file's text afterwards (empty when it goes), for a dry run's diff.
    fn text(&self) -> String {
        match self {
            Outcome::Restore(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Outcome::Delete => String::new(),
            Outcome::Write { text, .. } => text.clone(),
        }
    }

    /// Changes the file at `path`, whose metadata was `meta`, and its `backup`.
    fn apply(&self, path: &Path, backup: &Path, meta: &std::fs::Metadata) -> anyhow::Result<()> {
        match self {
            Outcome::Restore(bytes) => {
                files::write_atomic(path, bytes, Some(meta))?;
                std::fs::remove_file(backup)
                    .with_context(|| format!("cannot delete {}", backup.display()))
            }
            Outcome::Delete => std::fs::remove_file(path)
                .with_context(|| format!("cannot delete {}", path.display())),
            Outcome::Write { text, .. } => files::write_atomic(path, text.as_bytes(), Some(meta)),
        }
    }

    /// The line that says what became of the file and its backup, if any.
    fn report(&self, out: &mut impl Write, path: &Path, backup: &Path) -> std::io::Result<()> {
        let (path, backup) = (path.display(), backup.display());
        match self {
            Outcome::Restore(_) => {
                writeln!(out, "restored {path} from {backup} and deleted the backup")
            }
            Outcome::Delete => writeln!(
                out,
                "deleted {path}: jit's install created it and nothing else is in it"
            ),
            Outcome::Write {
                kept_backup: true, ..
            } => writeln!(
                out,
                "kept {backup}: {path} has other changes since jit's install"
            ),
            Outcome::Write { .. } => Ok(()),
        }
    }
}

/// One line for each event under which a hook jit did not write runs jit,
/// which an uninstall leaves.
fn report_left(out: &mut impl Write, left: &[String], path: &Path) -> std::io::Result<()> {
    for event in left {
        writeln!(
            out,
            "left the {event} hook in {} that runs jit: jit did not write it; \
             remove it by hand if it should go",
            path.display()
        )?;
    }
    Ok(())
}

/// Runs `jit hook uninstall`.
pub(crate) fn uninstall(args: &Args) -> anyhow::Result<ExitCode> {
    let spec = Spec::of(args.agent);
    let target = Target::resolve(args, spec)?;
    let path = &target.path;
    // The binary's own name only widens which hooks of the user's are
    // recognised as running jit (and named as left); jit's own entries are
    // known by their mark.
    let exe = running_binary().ok();
    let ours = Ours::new(args.agent, exe.as_deref().map(Path::new));
    let mut out = std::io::stdout().lock();

    let Some(file) = files::read_settings(path)? else {
        writeln!(
            out,
            "no jit hooks for {} in {} (no such file); nothing changed",
            args.agent.name(),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    };
    let before = &file.text;
    let (mut doc, style) = parse(before, path)?;
    let original = doc.clone();
    // The backup is the file before the install: what it holds the user
    // wrote, and stays (an empty `"hooks": {}` included).
    let backup = files::backup_path(path);
    let backed_up = files::read_if_exists(&backup)?;
    let before_install = backed_up
        .as_deref()
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|text| json::parse(text).ok())
        .map(|(doc, _)| doc);
    let removal = plan::uninstall(&mut doc, &ours, before_install.as_ref())
        .with_context(|| format!("cannot uninstall jit's hooks from {}", path.display()))?;
    if removal.removed.is_empty() {
        writeln!(
            out,
            "no jit hooks for {} in {}; nothing changed",
            args.agent.name(),
            path.display()
        )?;
        report_left(&mut out, &removal.left, path)?;
        return Ok(ExitCode::SUCCESS);
    }
    files::check_writable(path, &file.meta)?;

    let outcome = match backed_up {
        Some(bytes) if same_json(&bytes, &doc) => Outcome::Restore(bytes),
        None if plan::is_empty_object(&doc) => Outcome::Delete,
        kept => Outcome::Write {
            text: rewrite(before, &original, &doc, &style, path)?,
            kept_backup: kept.is_some(),
        },
    };
    if args.dry_run {
        let diff = files::unified_diff(before, &outcome.text(), &target.label);
        write!(out, "{diff}")?;
        writeln!(out, "dry run: nothing written to {}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }

    outcome.apply(path, &backup, &file.meta)?;
    for event in &removal.removed {
        writeln!(out, "removed {event} hook from {}", path.display())?;
    }
    report_left(&mut out, &removal.left, path)?;
    outcome.report(&mut out, path, &backup)?;
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
        let (base, within) = if args.user {
            (home_dir()?, "the home directory")
        } else {
            (project_root(args.root.as_deref())?, "the project root")
        };
        let relative = Path::new(spec.dir).join(spec.file);
        let path = base.join(&relative);
        let real = real_path(&path)?;
        let real_base = real_path(&base)?;
        if !real.starts_with(&real_base) {
            anyhow::bail!(
                "{} resolves to {}, outside {within} {}: jit edits a settings file only inside \
                 it, and follows no link out of it; replace the link with the file itself",
                path.display(),
                real.display(),
                base.display()
            );
        }
        // No link on the way: the path as given reads best in messages.
        let path = if real.strip_prefix(&real_base).ok() == Some(relative.as_path()) {
            path
        } else {
            real
        };
        Ok(Target {
            path,
            label: relative.to_string_lossy().into_owned(),
        })
    }
}

/// Where `path` really is, every link followed: settings kept in a
/// dotfiles folder are often links, and renaming a new file over a link
/// would replace the link itself, so the file edited is the link's target
/// (which must then be inside the project root or the home directory; see
/// [`Target::resolve`]). A part of the path that does not exist yet is
/// taken as it is under its nearest existing folder; a link to nothing is
/// refused, since the file would be created wherever it points.
fn real_path(path: &Path) -> anyhow::Result<PathBuf> {
    let mut missing = Vec::new();
    let mut at = path;
    loop {
        match std::fs::canonicalize(at) {
            Ok(mut real) => {
                real.extend(missing.iter().rev());
                return Ok(real);
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                if at.symlink_metadata().is_ok() {
                    anyhow::bail!(
                        "{} is a link to a missing file: jit does not create a file through \
                         a link; remove the link or create what it points to",
                        at.display()
                    );
                }
                let (Some(parent), Some(name)) = (at.parent(), at.file_name()) else {
                    return Err(err).with_context(|| format!("cannot resolve {}", path.display()));
                };
                missing.push(name);
                at = parent;
            }
            Err(err) => {
                return Err(err).with_context(|| format!("cannot resolve {}", at.display()));
            }
        }
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
    json::parse(text).map_err(|err| {
        if err.is_data() {
            // A repeated key: valid JSON, but no edit of it could keep both.
            anyhow::anyhow!(
                "cannot edit {}: {err}; keep one of them (the agent reads only the last) \
                 and run the command again",
                path.display()
            )
        } else {
            anyhow::Error::new(err).context(format!("{} is not valid JSON", path.display()))
        }
    })
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
