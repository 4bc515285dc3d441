//! `jit startup`: the rules a session gets before any tool runs, with the signals that decided them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{DiscoveryState, StartupOptions, StartupReport, Tier};

use crate::cmd::non_empty_path;
use crate::conventions::ConventionsArg;
use crate::output::{self, escape};
use crate::project::{Shown, current_dir};
use crate::rules::skipped_rows;

const AFTER_HELP: &str = "\
Example:
  jit startup --cwd src/api
      The rules a session started in src/api gets before any tool runs, the
      signals that chose them, and the index of the rules left for later.

The project walk behind the index keeps its listings in the state directory
($JIT_STATE_DIR, default $XDG_STATE_HOME/jit, else ~/.local/state/jit, in
walks/), so the next start lists again only the directories that changed;
JIT_WALK_CACHE=off walks without it.";

/// Arguments of `jit startup`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// The project root (default: the git worktree root at or above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// The session's working directory, an existing directory (default: the
    /// current directory when it is inside the root, else the root).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    cwd: Option<PathBuf>,
    /// Read managed rules from FILE instead of the platform's
    /// (`/etc/claude-code/CLAUDE.md` on Linux). A relative FILE is taken
    /// from the current directory; a FILE that does not exist loads no
    /// managed rules, with a warning on stderr.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    managed: Option<PathBuf>,
    /// Build no rule index (as `[index] enabled = false` in jit.toml): with
    /// the conventions named too, the project is not walked at all.
    #[arg(long)]
    no_index: bool,
    #[command(flatten)]
    conventions: ConventionsArg,
}

/// [`options`] with a git change source for `cwd` in the project at `root`
/// that runs only when the startup load asks.
pub(crate) fn lazy_options(
    root: &Utf8Path,
    cwd: Utf8PathBuf,
    managed: Option<PathBuf>,
) -> anyhow::Result<(StartupOptions, Option<String>)> {
    let changes = crate::changes::StartupGit::lazy(root, &cwd);
    options(cwd, managed, changes)
}

/// The startup options the command line uses: `$HOME` for user rules, git
/// for changed files, and `managed` (made absolute against the current
/// directory) for managed rules. Returns a warning too when `managed` does
/// not exist or cannot be read: the startup load would skip it silently.
pub(crate) fn options(
    cwd: Utf8PathBuf,
    managed: Option<PathBuf>,
    changes: Arc<dyn jit_core::ChangeSource>,
) -> anyhow::Result<(StartupOptions, Option<String>)> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| {
            Utf8PathBuf::from_path_buf(PathBuf::from(&h))
                .map_err(|p| anyhow::anyhow!("$HOME {} is not UTF-8", p.display()))
        })
        .transpose()?;
    let mut options = StartupOptions::new(cwd)
        .with_home(home)
        .with_changes(changes);
    if let Some(deadline) = change_deadline().map_err(|err| anyhow::anyhow!(err))? {
        options = options.with_change_deadline(deadline);
    }
    let mut warning = None;
    if let Some(given) = managed {
        let given = Utf8PathBuf::from_path_buf(given)
            .map_err(|p| anyhow::anyhow!("--managed {} is not UTF-8", p.display()))?;
        let managed = absolute_file(&given)?;
        warning = match std::fs::symlink_metadata(&managed) {
            Ok(_) => None,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Some(format!(
                "--managed {given}: {managed} does not exist; no managed rules are loaded"
            )),
            Err(err) => Some(format!(
                "--managed {given}: {managed} cannot be read: {err}; no managed rules are loaded"
            )),
        };
        options = options.with_managed(Some(managed));
    }
    Ok((options, warning))
}

/// The variable that sets how long the startup load waits for git's
/// changed files before it goes on with the cwd marker alone.
pub(crate) const CHANGE_DEADLINE_VAR: &str = "JIT_GIT_DEADLINE_MS";

/// The change deadline `JIT_GIT_DEADLINE_MS` asks for (milliseconds), if it
/// is set; an error naming the variable when it is not a number.
pub(crate) fn change_deadline() -> Result<Option<std::time::Duration>, String> {
    match std::env::var(CHANGE_DEADLINE_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => value
            .trim()
            .parse::<u64>()
            .map(|ms| Some(std::time::Duration::from_millis(ms)))
            .map_err(|_| {
                format!("{CHANGE_DEADLINE_VAR}={value:?} is not a whole number of milliseconds")
            }),
        Err(std::env::VarError::NotUnicode(value)) => Err(format!(
            "{CHANGE_DEADLINE_VAR}={value:?} is not a whole number of milliseconds"
        )),
    }
}

/// `file` made absolute against the current directory, its directory part
/// resolved when it exists (`../m.md` names the file, not a path through
/// `..`); the file itself is left as it is, link or not.
fn absolute_file(file: &Utf8Path) -> anyhow::Result<Utf8PathBuf> {
    let file = if file.is_absolute() {
        file.to_owned()
    } else {
        current_dir()?.join(file)
    };
    let resolved = match (file.parent(), file.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .ok()
            .and_then(|dir| Utf8PathBuf::from_path_buf(dir).ok())
            .map(|dir| dir.join(name)),
        _ => None,
    };
    Ok(resolved.unwrap_or(file))
}

/// The session's working directory when none is given: `current` when it is
/// the root or below it (through symlinks too), else the root itself, so that
/// running from elsewhere still gets the root's signals rather than none.
pub(crate) fn session_cwd(current: &Utf8Path, root: &Utf8Path) -> Utf8PathBuf {
    let real = |path: &Utf8Path| path.canonicalize_utf8().ok();
    match (real(current), real(root)) {
        (Some(current_real), Some(root_real))
            if jit_core::relative_to(&current_real, &root_real).is_some() =>
        {
            current.to_owned()
        }
        _ => root.to_owned(),
    }
}

/// `--cwd DIR` made absolute against the current directory; it must be an
/// existing directory, because the startup marker is built from it as one.
pub(crate) fn given_cwd(dir: PathBuf) -> anyhow::Result<Utf8PathBuf> {
    let dir = Utf8PathBuf::from_path_buf(dir)
        .map_err(|p| anyhow::anyhow!("--cwd {} is not UTF-8", p.display()))?;
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => anyhow::bail!("--cwd {dir} is not a directory"),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("--cwd {dir} does not exist")
        }
        Err(err) => return Err(err).context(format!("--cwd {dir} cannot be read")),
    }
    Ok(if dir.is_absolute() {
        dir
    } else {
        current_dir()?.join(dir)
    })
}

/// Runs `jit startup`.
///
/// The table escapes control characters in everything the repository
/// names (files, signals, details); the JSON output is exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = crate::project::root_or_default(args.root)?;
    let here = current_dir()?;
    let engine = jit_core::Engine::new(&root)?;
    let cwd = match args.cwd {
        Some(dir) => given_cwd(dir)?,
        None => session_cwd(&here, engine.root()),
    };
    // Started before the conventions are looked for (a walk of the
    // project), so that a status the startup load needs runs beside it.
    let changes = crate::changes::StartupGit::new(engine.root(), &cwd);
    let mut conventions =
        crate::conventions::resolve(engine.root(), args.conventions.conventions.as_deref())?;
    if args.no_index {
        conventions = conventions.without_index();
    }
    let engine = engine.with_sources(conventions.sources.iter().cloned());
    let shown = Shown::new(engine.root(), &here);
    let (options, warning) = options(cwd, args.managed, changes)?;
    let options = conventions.startup_options(options);
    if let Some(warning) = warning {
        output::stderr_line(format_args!("jit: warning: {}", escape(&warning)))?;
    }
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_report(&mut out, &report, conventions.index_bytes.is_none(), &shown)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The table: files relative to where the user stands (see [`Shown`]);
/// signals and details stay root-relative, as the scope patterns they are
/// matched against are.
fn write_report(
    out: &mut impl Write,
    report: &StartupReport,
    index_off: bool,
    shown: &Shown,
) -> std::io::Result<()> {
    writeln!(out, "signals: {}", signals(&report.signals))?;
    for loaded in &report.loaded {
        let tier = loaded.tier.map_or("", Tier::as_str);
        writeln!(
            out,
            "  loaded   {:<8} {}  ({} B)",
            tier,
            escape(&shown.path(&loaded.file)),
            loaded.bytes
        )?;
        for warning in &loaded.warnings {
            writeln!(out, "    warning: {}", escape(warning))?;
        }
    }
    for row in skipped_rows(&report.skipped) {
        writeln!(
            out,
            "  skipped  {}  {}: {}",
            escape(&shown.path(&row.file)),
            row.reason,
            escape(&row.detail)
        )?;
    }
    for diagnostic in &report.diagnostics {
        writeln!(out, "  note: {}", escape(diagnostic))?;
    }
    write_index(out, report, index_off, "", shown)
}

/// The rule index of a startup report: one line per rule that exists but
/// was not loaded, then the count of those left out per directory; or
/// that there is none because it was turned off (`off`).
pub(crate) fn write_index(
    out: &mut impl Write,
    report: &StartupReport,
    off: bool,
    indent: &str,
    shown: &Shown,
) -> std::io::Result<()> {
    if off {
        return writeln!(
            out,
            "{indent}index: off (--no-index, or [index] enabled = false in jit.toml)"
        );
    }
    if report.index.is_empty() && report.index_overflow.is_empty() {
        return Ok(());
    }
    writeln!(out, "{indent}index (rules not loaded, found on demand):")?;
    for entry in &report.index {
        let what = match (&entry.description, entry.scope.is_empty()) {
            (Some(description), _) => format!("\"{}\"", escape(description)),
            (None, false) => escape(&entry.scope.join(", ")).into_owned(),
            (None, true) => "(unscoped)".to_owned(),
        };
        writeln!(
            out,
            "{indent}  {:<8} {}  {}  ({} B)",
            entry.source,
            escape(&shown.path(&entry.file)),
            what,
            entry.bytes
        )?;
    }
    for overflow in &report.index_overflow {
        writeln!(
            out,
            "{indent}  ... {} more in {}",
            overflow.count,
            escape(&shown.path(&overflow.dir))
        )?;
    }
    Ok(())
}

/// The startup signals for a human: comma-separated and escaped (a changed
/// file's name comes from the repository), or `(none)`.
pub(crate) fn signals(signals: &[String]) -> String {
    if signals.is_empty() {
        return "(none)".to_owned();
    }
    signals
        .iter()
        .map(|s| escape(s))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that `session_cwd(current, root)`, both relative to a scratch
    /// directory holding `proj/src`, `proj-evil` and `link → proj`, is `expected`.
    #[track_caller]
    fn check(current: &str, root: &str, expected: &str) {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        std::fs::create_dir_all(base.join("proj/src")).unwrap();
        std::fs::create_dir_all(base.join("proj-evil")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("proj"), base.join("link")).unwrap();
        let got = session_cwd(&base.join(current), &base.join(root));
        assert_eq!(got, base.join(expected), "session_cwd({current}, {root})");
    }

    #[test]
    fn inside_the_root_keeps_the_current_directory() {
        check("proj", "proj", "proj");
        check("proj/src", "proj", "proj/src");
    }

    #[test]
    fn outside_or_missing_falls_back_to_the_root() {
        check("proj-evil", "proj", "proj");
        check(".", "proj", "proj");
        check("proj/gone", "proj", "proj");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_resolved_on_both_sides() {
        check("link/src", "proj", "link/src");
        check("proj/src", "link", "proj/src");
        check("proj-evil", "link", "link");
    }
}
