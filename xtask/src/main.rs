//! Repository automation: `cargo xtask audit` checks the tool registry, the agents' name tables, the crate graph and the module docs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

// Plug-in crates register through `inventory`; naming them keeps their
// registrations linked into this binary, so the audit sees them.
use jit_tools as _;

mod architecture;
mod module_docs;
mod registry;

/// The outcome of one check: a one-line summary and every problem found,
/// each saying how to fix it.
#[derive(Debug)]
struct Check {
    name: &'static str,
    summary: String,
    problems: Vec<String>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["audit"] => match audit(&workspace_root()) {
            Ok(checks) => report(&checks),
            Err(err) => {
                eprintln!("xtask audit: could not run: {err:#}");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!(
                "usage: cargo xtask audit\n\n\
                 audit  check that every registered tool has exactly one path reporter (and the\n       \
                 reverse), that the agents' name tables name registered tools, the crate\n       \
                 dependency layers, and that every .rs file starts with `//!`"
            );
            ExitCode::from(2)
        }
    }
}

/// The workspace this xtask belongs to, wherever it is run from.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Runs every check over the workspace at `root`.
fn audit(root: &Path) -> anyhow::Result<Vec<Check>> {
    Ok(vec![
        registry::check(),
        registry::agent_tables(),
        architecture::check(root)?,
        module_docs::check(root)?,
    ])
}

/// Prints the checks' outcome; fails if any check found a problem.
fn report(checks: &[Check]) -> ExitCode {
    let failed: usize = checks.iter().map(|c| c.problems.len()).sum();
    for check in checks {
        if check.problems.is_empty() {
            println!("ok    {}: {}", check.name, check.summary);
        } else {
            eprintln!("FAIL  {}: {}", check.name, check.summary);
            for problem in &check.problems {
                eprintln!("      - {problem}");
            }
        }
    }
    if failed == 0 {
        println!("xtask audit: all checks passed");
        ExitCode::SUCCESS
    } else {
        eprintln!("xtask audit: {failed} problem(s); each says how to fix it");
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain `cargo test` enforces the same audit as `cargo xtask audit`.
    #[test]
    fn the_workspace_passes_the_audit() {
        let checks = audit(&workspace_root()).unwrap();
        let problems: Vec<String> = checks
            .iter()
            .flat_map(|c| c.problems.iter().map(move |p| format!("{}: {p}", c.name)))
            .collect();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        assert_eq!(checks.len(), 4);
    }
}
