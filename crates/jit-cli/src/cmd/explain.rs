//! `jit explain`: simulate one session that touches paths in order, and show every rule decision.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use camino::Utf8PathBuf;
use jit_core::{Discovery, Engine, Session, SessionConfig, StartupReport};
use serde::Serialize;

use crate::cmd::startup::{current_dir, given_cwd, options, session_cwd};

/// Arguments of `jit explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Skip the startup load (only JIT discovery runs).
    #[arg(long)]
    no_startup: bool,
    /// The project root.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Append the simulated session's events (JSON Lines) to FILE.
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
    /// Total byte budget for JIT rule blocks (default 262144).
    #[arg(long, value_name = "BYTES")]
    budget: Option<u64>,
    /// The session's working directory for the startup load (default: the
    /// current directory when it is inside the root, else the root).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Read managed rules from FILE instead of the platform's
    /// (`/etc/claude-code/CLAUDE.md` on Linux).
    #[arg(long, value_name = "FILE")]
    managed: Option<PathBuf>,
    /// Paths the simulated session touches, in order (relative to the current
    /// directory, or absolute).
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
}

/// The `--json` document: the startup load (unless `--no-startup`), then
/// one step per touched path.
#[derive(Debug, Serialize)]
struct Report {
    #[serde(skip_serializing_if = "Option::is_none")]
    startup: Option<StartupReport>,
    steps: Vec<Discovery>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

/// Runs `jit explain`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let engine = Arc::new(Engine::new(&args.root)?);
    let cwd = current_dir()?;
    let mut config = SessionConfig::new();
    if let Some(events) = args.events {
        let events = Utf8PathBuf::from_path_buf(events)
            .map_err(|p| anyhow::anyhow!("--events {} is not UTF-8", p.display()))?;
        config = config.with_event_log(cwd.join(events));
    }
    if let Some(budget) = args.budget {
        config = config.with_budget_bytes(budget);
    }
    let mut session = Session::new(engine, config);
    let startup = if args.no_startup {
        None
    } else {
        let session_cwd = match args.cwd {
            Some(dir) => given_cwd(dir)?,
            None => session_cwd(&cwd, session.engine().root()),
        };
        Some(session.startup(&options(session_cwd, args.managed)?))
    };
    let mut steps = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        let path = Utf8PathBuf::from_path_buf(path.clone())
            .map_err(|p| anyhow::anyhow!("path {} is not UTF-8", p.display()))?;
        // With runtime discovery on, a touch is exactly one discovery.
        let injection = session.touch(&path, &cwd);
        steps.extend(injection.discoveries);
    }
    let report = Report {
        startup,
        steps,
        warnings: session.warnings().to_vec(),
    };
    for warning in &report.warnings {
        eprintln!("jit: warning: {warning}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_tables(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_tables(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    if let Some(startup) = &report.startup {
        writeln!(
            out,
            "startup: signals {}  ({} loaded, {} skipped, {} µs)",
            if startup.signals.is_empty() {
                "(none)".to_owned()
            } else {
                startup.signals.join(", ")
            },
            startup.loaded.len(),
            startup.skipped.len(),
            startup.elapsed_us
        )?;
        let mut rows: Vec<[String; 4]> = Vec::new();
        for loaded in &startup.loaded {
            rows.push([
                "loaded".to_owned(),
                loaded.file.clone(),
                loaded.attribution.as_str().to_owned(),
                format!("{} B", loaded.bytes),
            ]);
        }
        rows.extend(skipped_rows(&startup.skipped));
        if rows.is_empty() {
            writeln!(out, "  (no startup rules)")?;
        }
        write_rows(out, &rows)?;
        for diagnostic in &startup.diagnostics {
            writeln!(out, "  note: {diagnostic}")?;
        }
    }
    for (i, step) in report.steps.iter().enumerate() {
        writeln!(
            out,
            "step {}: {}  ({} loaded, {} skipped, {} µs)",
            i + 1,
            step.trigger,
            step.loaded.len(),
            step.skipped.len(),
            step.elapsed_us
        )?;
        let mut rows: Vec<[String; 4]> = Vec::new();
        for loaded in &step.loaded {
            let what = match loaded.decision {
                jit_core::LoadKind::Loaded => "loaded",
                jit_core::LoadKind::Replaced => "replaced",
            };
            rows.push([
                what.to_owned(),
                loaded.file.clone(),
                loaded.attribution.as_str().to_owned(),
                format!(
                    "{} B{}",
                    loaded.bytes,
                    loaded
                        .detail
                        .as_deref()
                        .map(|d| format!("; {d}"))
                        .unwrap_or_default()
                ),
            ]);
        }
        rows.extend(skipped_rows(&step.skipped));
        if rows.is_empty() {
            writeln!(out, "  (no rule files on this path's directory chain)")?;
        }
        write_rows(out, &rows)?;
        for loaded in &step.loaded {
            for warning in &loaded.warnings {
                writeln!(out, "  warning: {}: {warning}", loaded.file)?;
            }
        }
    }
    Ok(())
}

fn write_rows(out: &mut impl Write, rows: &[[String; 4]]) -> std::io::Result<()> {
    let width = |col: usize| {
        rows.iter()
            .map(|r| r[col].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for row in rows {
        writeln!(
            out,
            "  {:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0], row[1], row[2], row[3]
        )?;
    }
    Ok(())
}

/// One table row per skipped candidate: what, file, reason, detail.
fn skipped_rows(skipped: &[jit_core::SkippedRule]) -> impl Iterator<Item = [String; 4]> + '_ {
    skipped.iter().map(|skipped| {
        [
            "skipped".to_owned(),
            skipped.file.clone(),
            skipped.reason.as_str().to_owned(),
            skipped.detail.clone(),
        ]
    })
}
