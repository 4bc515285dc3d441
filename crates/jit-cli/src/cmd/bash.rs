//! `jit bash`: which files a bash command writes, for the high-certainty forms only.

use std::process::ExitCode;

use serde_json::json;

/// Arguments of `jit bash`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print `{"paths": [...], "skipped": [{"word", "reason"}]}` as JSON instead
    /// of one path per line.
    #[arg(long)]
    json: bool,
    /// The command text, exactly as the agent's bash tool receives it (quote
    /// it as one argument; put `--` before it if it starts with `-`).
    #[arg(value_name = "COMMAND")]
    command: String,
}

/// Runs `jit bash`.
///
/// The analysis never fails: text that is not valid bash gives no paths and
/// one `parse_error` entry, and the exit status is 0 either way.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let analysis = jit_bash::written_paths(&args.command);
    if args.json {
        let skipped: Vec<_> = analysis
            .skipped
            .iter()
            .map(|s| json!({"word": s.word, "reason": s.reason.as_str()}))
            .collect();
        let output = json!({"paths": analysis.paths, "skipped": skipped});
        println!("{}", serde_json::to_string_pretty(&output)?);
    } else {
        for path in &analysis.paths {
            println!("{path}");
        }
        // Skipped words go to stderr so that stdout stays a plain path list.
        for skipped in &analysis.skipped {
            eprintln!("skipped {} ({})", skipped.word, skipped.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}
