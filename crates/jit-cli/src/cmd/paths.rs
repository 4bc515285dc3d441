//! `jit paths`: which paths one tool call touches, asked of the tool's registered reporter.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use camino::Utf8PathBuf;
use jit_core::{Registry, SkippedInput};
use serde::Serialize;

use crate::output::{self, escape};

const AFTER_HELP: &str = "\
Example:
  jit paths --tool edit --input '{\"file_path\": \"src/a.rs\", \"old_string\": \"a\", \"new_string\": \"b\"}'
      Prints src/a.rs: the path the edit tool's reporter says the call touches.";

/// Arguments of `jit paths`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print `{"tool", "cwd", "paths", "skipped"}` as JSON instead of one path per line.
    #[arg(long)]
    json: bool,
    /// The tool's name as the model calls it (`read`, `glob`, `grep`, `bash`, ...).
    #[arg(long, value_name = "NAME")]
    tool: String,
    /// The call's JSON input, for example '{"file_path": "src/a.rs"}'; `-`
    /// reads it from standard input (up to 16 MiB), for an input too long
    /// for an argument.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    input: String,
    /// The call's working directory [default: the current directory]. Reported
    /// relative paths are relative to it; it is not read.
    #[arg(long, value_name = "DIR")]
    cwd: Option<Utf8PathBuf>,
}

/// The `--json` output.
#[derive(Debug, Serialize)]
struct Output<'a> {
    tool: &'a str,
    cwd: &'a Utf8PathBuf,
    paths: &'a [Utf8PathBuf],
    skipped: &'a [SkippedInput],
}

/// Runs `jit paths`.
///
/// An unknown tool or malformed input is an error (exit 2) whose message
/// lists the registered tools, or names the tool and the field. The human
/// output escapes control characters in paths and words; the JSON output is
/// exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = if args.input == "-" {
        output::read_stdin("the --input JSON")?
    } else {
        args.input
    };
    let input: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("--input for tool `{}` is not valid JSON", args.tool))?;
    let cwd = match args.cwd {
        Some(cwd) => cwd,
        None => {
            let dir = std::env::current_dir().context("reading the current directory")?;
            Utf8PathBuf::from_path_buf(dir).map_err(|dir| {
                anyhow::anyhow!(
                    "the current directory {} is not valid UTF-8; pass --cwd",
                    dir.display()
                )
            })?
        }
    };
    let touched = Registry::checked()?.affected_paths(&args.tool, &input, &cwd)?;
    if args.json {
        let output = Output {
            tool: &args.tool,
            cwd: &cwd,
            paths: &touched.paths,
            skipped: &touched.skipped,
        };
        let mut out = output::stdout();
        serde_json::to_writer_pretty(&mut out, &output)?;
        writeln!(out)?;
        out.flush()?;
    } else {
        let mut out = output::stdout();
        for path in &touched.paths {
            writeln!(out, "{}", escape(path.as_str()))?;
        }
        out.flush()?;
        // Skipped words go to stderr so that stdout stays a plain path list.
        for skipped in &touched.skipped {
            output::stderr_line(format_args!(
                "skipped {} ({})",
                escape(&skipped.word),
                escape(&skipped.reason)
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
