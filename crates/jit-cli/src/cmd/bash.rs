//! `jit bash`: which files a bash command writes, for the high-certainty forms only.

use std::io::Write as _;
use std::process::ExitCode;

use serde_json::json;

use crate::output::{self, escape};

const AFTER_HELP: &str = "\
Example:
  jit bash 'sed -i s/a/b/ src/a.ts && echo done > build/log.txt'
      Prints src/a.ts and build/log.txt, one per line.";

/// Arguments of `jit bash`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print `{"paths": [...], "skipped": [{"word", "reason"}]}` as JSON instead
    /// of one path per line.
    #[arg(long)]
    json: bool,
    /// The command text, exactly as the agent's bash tool receives it, quoted
    /// as one argument; `-` reads it from standard input (up to 16 MiB), for
    /// a command too long for an argument. A command may start with `-`; one
    /// that is itself `--json`, `-h` or `--help` needs `--` before it.
    #[arg(value_name = "COMMAND", allow_hyphen_values = true)]
    command: String,
}

/// Runs `jit bash`.
///
/// The analysis never fails: text that is not valid bash gives no paths and
/// one `parse_error` entry, and the exit status is 0 either way. The human
/// output escapes control characters in paths and words (a path with a
/// newline must not read as two paths); the JSON output is exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let command = if args.command == "-" {
        output::read_stdin("the command")?
    } else {
        args.command
    };
    let analysis = jit_bash::written_paths(&command);
    let mut out = output::stdout();
    if args.json {
        let skipped: Vec<_> = analysis
            .skipped
            .iter()
            .map(|s| json!({"word": s.word, "reason": s.reason.as_str()}))
            .collect();
        let output = json!({"paths": analysis.paths, "skipped": skipped});
        serde_json::to_writer_pretty(&mut out, &output)?;
        writeln!(out)?;
        out.flush()?;
    } else {
        for path in &analysis.paths {
            writeln!(out, "{}", escape(path))?;
        }
        out.flush()?;
        // Skipped words go to stderr so that stdout stays a plain path list.
        for skipped in &analysis.skipped {
            output::stderr_line(format_args!(
                "skipped {} ({})",
                escape(&skipped.word),
                skipped.reason
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
