//! `jit startup`: the rules a session gets before any tool runs, with the signals that decided them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use camino::Utf8PathBuf;
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
    /// The session's working directory (default: the current directory).
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

/// Runs `jit startup`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let engine = Engine::new(&args.root)?;
    let cwd = match args.cwd {
        Some(cwd) => {
            let cwd = Utf8PathBuf::from_path_buf(cwd)
                .map_err(|p| anyhow::anyhow!("--cwd {} is not UTF-8", p.display()))?;
            if cwd.is_absolute() {
                cwd
            } else {
                current_dir()?.join(cwd)
            }
        }
        None => current_dir()?,
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
