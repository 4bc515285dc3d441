//! `jit audit`: the tool registry of this binary, checked alone or against a harness's own tool list.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use jit_core::{AuditProblem, Registry};
use serde_json::{Value, json};

use crate::cmd::non_empty_path;
use crate::output::{self, escape};

const AFTER_HELP: &str = "\
Example:
  jit audit --tools tools.json
      Checks the tool definitions your harness sends the model (an
      Anthropic or OpenAI `tools` array) against jit's path reporters.";

/// Arguments of `jit audit`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// The tools your harness exposes to the model, as a JSON file: an array
    /// of names, or of tool definitions in the Anthropic or OpenAI shape
    /// (`{"name": …}`, `{"type": "function", "function": {"name": …}}`,
    /// `{"type": "function", "name": …}`), or an object with a `tools`
    /// array. Every name must have exactly one path reporter, compared
    /// case-sensitively. Without it, the registry alone is audited.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    tools: Option<PathBuf>,
    /// Print one JSON object: `{"file", "exposed", "ok", "errors", "warnings"}`.
    #[arg(long)]
    json: bool,
}

/// Runs `jit audit`: exit 0 when nothing is wrong (warnings allowed), 1 on
/// findings, 2 when the tool list cannot be read.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let registry = Registry::from_inventory();
    let (file, exposed) = match &args.tools {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the tool list {}", path.display()))?;
            let names = jit_core::tool_names_from_json(&text)
                .with_context(|| format!("cannot read the tool list {}", path.display()))?;
            (Some(path.display().to_string()), Some(names))
        }
        None => (None, None),
    };
    let (errors, warnings) = match &exposed {
        Some(names) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            match jit_core::audit_tools(&registry, &names) {
                Ok(warnings) => (Vec::new(), warnings),
                Err(report) => (report.problems().to_vec(), report.warnings().to_vec()),
            }
        }
        None => match jit_core::audit(&registry) {
            Ok(()) => (Vec::new(), Vec::new()),
            Err(report) => (report.problems().to_vec(), Vec::new()),
        },
    };
    let mut out = output::stdout();
    if args.json {
        let finding = |p: &AuditProblem| {
            let mut row = json!({"kind": p.kind(), "tool": p.tool(), "message": p.to_string()});
            if let AuditProblem::ExposedWithoutReporter {
                registered_as: Some(name),
                ..
            } = p
            {
                row["registered_as"] = Value::from(name.as_str());
            }
            row
        };
        let value = json!({
            "file": file,
            "exposed": exposed,
            "ok": errors.is_empty(),
            "errors": errors.iter().map(finding).collect::<Vec<_>>(),
            "warnings": warnings.iter().map(finding).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    } else {
        let subject = match (&file, &exposed) {
            (Some(file), Some(names)) => format!("{}: {} exposed tools", escape(file), names.len()),
            _ => format!("{} registered tools", registry.tools().count()),
        };
        if errors.is_empty() {
            writeln!(out, "ok: {subject}, each with exactly one path reporter")?;
        } else {
            let plural = if errors.len() == 1 { "" } else { "s" };
            writeln!(out, "FAIL: {subject}, {} problem{plural}", errors.len())?;
            for problem in &errors {
                writeln!(out, "error: {}", escape(&problem.to_string()))?;
            }
        }
        if !warnings.is_empty() {
            // One line: a harness that links jit-tools and exposes a few of
            // its tools has two dozen of these, none of them wrong.
            let names: Vec<&str> = warnings.iter().filter_map(AuditProblem::tool).collect();
            writeln!(
                out,
                "warning: {} registered tools are not exposed (harmless unless the harness \
                 exposes one under another name): {}",
                names.len(),
                escape(&names.join(", "))
            )?;
        }
    }
    out.flush()?;
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
