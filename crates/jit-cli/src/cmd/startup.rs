//! `jit startup`: the rules a session gets before any tool runs, with the signals that decided them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{DiscoveryState, Engine, StartupOptions, StartupReport};

/// Arguments of `jit startup`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// The project root.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// The session's working directory, an existing directory (default: the
    /// current directory when it is inside the root, else the root).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Read managed rules from FILE instead of the platform's
    /// (`/etc/claude-code/CLAUDE.md` on Linux).
    #[arg(long, value_name = "FILE")]
    managed: Option<PathBuf>,
}

/// The startup options the command line uses: `$HOME` for user rules, git
/// for changed files.
pub fn options(cwd: Utf8PathBuf, managed: Option<PathBuf>) -> anyhow::Result<StartupOptions> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| {
            Utf8PathBuf::from_path_buf(PathBuf::from(&h))
                .map_err(|p| anyhow::anyhow!("$HOME {} is not UTF-8", p.display()))
        })
        .transpose()?;
    let mut options = StartupOptions::new(cwd)
        .with_home(home)
        .with_changes(Arc::new(jit_git::GitChanges::new()));
    if let Some(managed) = managed {
        let managed = Utf8PathBuf::from_path_buf(managed)
            .map_err(|p| anyhow::anyhow!("managed file {} is not UTF-8", p.display()))?;
        options = options.with_managed(Some(managed));
    }
    Ok(options)
}

/// The current directory, as UTF-8.
pub fn current_dir() -> anyhow::Result<Utf8PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Utf8PathBuf::from_path_buf(cwd)
        .map_err(|p| anyhow::anyhow!("the current directory {} is not UTF-8", p.display()))
}

/// The session's working directory when none is given: `current` when it is
/// the root or below it (through symlinks too), else the root itself, so that
/// running from elsewhere still gets the root's signals rather than none.
pub fn session_cwd(current: &Utf8Path, root: &Utf8Path) -> Utf8PathBuf {
    let real = |path: &Utf8Path| std::fs::canonicalize(path).ok();
    match (real(current), real(root)) {
        (Some(current_real), Some(root_real)) if current_real.starts_with(&root_real) => {
            current.to_owned()
        }
        _ => root.to_owned(),
    }
}

/// `--cwd DIR` made absolute against the current directory; it must be an
/// existing directory, because the startup marker is built from it as one.
pub fn given_cwd(dir: PathBuf) -> anyhow::Result<Utf8PathBuf> {
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
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let engine = Engine::new(&args.root)?;
    let cwd = match args.cwd {
        Some(dir) => given_cwd(dir)?,
        None => session_cwd(&current_dir()?, engine.root()),
    };
    let options = options(cwd, args.managed)?;
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_report(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_report(out: &mut impl Write, report: &StartupReport) -> std::io::Result<()> {
    writeln!(
        out,
        "signals: {}",
        if report.signals.is_empty() {
            "(none)".to_owned()
        } else {
            report.signals.join(", ")
        }
    )?;
    for loaded in &report.loaded {
        let tier = loaded
            .tier
            .map(|t| format!("{t:?}").to_lowercase())
            .unwrap_or_default();
        writeln!(
            out,
            "  loaded   {:<8} {}  ({} B)",
            tier, loaded.file, loaded.bytes
        )?;
        for warning in &loaded.warnings {
            writeln!(out, "    warning: {warning}")?;
        }
    }
    for skipped in &report.skipped {
        writeln!(
            out,
            "  skipped  {}  {}: {}",
            skipped.file,
            skipped.reason.as_str(),
            skipped.detail
        )?;
    }
    for diagnostic in &report.diagnostics {
        writeln!(out, "  note: {diagnostic}")?;
    }
    Ok(())
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
