//! `jit explain`: simulate one session that touches paths in order, and show every rule decision.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use camino::Utf8PathBuf;
use jit_core::{Discovery, DiscoveryState, Engine};
use serde::Serialize;

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
    /// Paths the simulated session touches, in order (relative to the current
    /// directory, or absolute).
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
}

/// The `--json` document: one step per touched path.
#[derive(Debug, Serialize)]
struct Report {
    steps: Vec<Discovery>,
}

/// Runs `jit explain`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let engine = Engine::new(&args.root)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let cwd = Utf8PathBuf::from_path_buf(cwd)
        .map_err(|p| anyhow::anyhow!("the current directory {} is not UTF-8", p.display()))?;
    let mut state = DiscoveryState::default();
    let mut steps = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        let path = Utf8PathBuf::from_path_buf(path.clone())
            .map_err(|p| anyhow::anyhow!("path {} is not UTF-8", p.display()))?;
        steps.push(engine.discover(&mut state, &path, &cwd));
    }
    let report = Report { steps };
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
        for skipped in &step.skipped {
            rows.push([
                "skipped".to_owned(),
                skipped.file.clone(),
                skipped.reason.as_str().to_owned(),
                skipped.detail.clone(),
            ]);
        }
        if rows.is_empty() {
            writeln!(out, "  (no rule files on this path's directory chain)")?;
        }
        let width = |col: usize| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .max()
                .unwrap_or(0)
        };
        let (w0, w1, w2) = (width(0), width(1), width(2));
        for row in &rows {
            writeln!(
                out,
                "  {:<w0$}  {:<w1$}  {:<w2$}  {}",
                row[0], row[1], row[2], row[3]
            )?;
        }
        for loaded in &step.loaded {
            for warning in &loaded.warnings {
                writeln!(out, "  warning: {}: {warning}", loaded.file)?;
            }
        }
    }
    Ok(())
}
