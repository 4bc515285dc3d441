//! Repository automation: `cargo xtask audit` checks the tool registry, the agents' name tables, the crate graph, the module docs and the source invariants of ARCHITECTURE.md; `--tools FILE` adds a harness's tool list; `cargo xtask link-order` lists the functions `jit` runs for the linker.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

// Plug-in crates register through `inventory`; naming them keeps their
// registrations linked into this binary, so the audit sees them.
use jit_tools as _;

mod architecture;
mod invariants;
mod link_order;
mod module_docs;
mod registry;

/// The outcome of one check: a one-line summary and every problem found,
/// each saying how to fix it.
#[derive(Debug)]
struct Check {
    name: &'static str,
    summary: String,
    problems: Vec<String>,
    /// What is worth saying but fails nothing.
    warnings: Vec<String>,
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
        ["audit", "--tools", file] => {
            match registry::exposed(Path::new(file))
                .and_then(|tools| Ok((tools, audit(&workspace_root())?)))
            {
                Ok((tools, mut checks)) => {
                    checks.push(tools);
                    report(&checks)
                }
                Err(err) => {
                    eprintln!("xtask audit: could not run: {err:#}");
                    ExitCode::from(2)
                }
            }
        }
        ["link-order"] => match link_order::run(&workspace_root()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("xtask link-order: {err:#}");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!(
                "usage: cargo xtask audit [--tools FILE]\n       cargo xtask link-order\n\n\
                 audit  check that every registered tool has exactly one path reporter (and the\n       \
                 reverse), that the agents' name tables name registered tools, the crate\n       \
                 dependency layers and which crates may build git, YAML, the shell parser,\n       \
                 Markdown or globbing, that every .rs file starts with `//!`, and the source\n       \
                 invariants of ARCHITECTURE.md (function length, convention names in the\n       \
                 engine, no process in jit-git, jit-base's dependencies, serde_json's key order)\n\n\
                 --tools FILE  also check a harness's tool list (a JSON array of names, or of\n              \
                 Anthropic or OpenAI tool definitions): every tool it exposes has exactly\n              \
                 one path reporter, names compared case-sensitively. Exit 1 on findings,\n              \
                 2 when the file cannot be read\n\n\
                 link-order  build `jit` and write crates/jit-cli/link-order.txt: the functions it\n            \
                 runs in a hook call and an `explain` on a generated tree, which the build\n            \
                 has the linker place together (needs valgrind)"
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
    let mut checks = vec![
        registry::check(),
        registry::agent_tables(),
        architecture::check(root)?,
        module_docs::check(root)?,
    ];
    checks.extend(invariants::checks(root)?);
    Ok(checks)
}

/// Prints the checks' outcome; fails if any check found a problem.
fn report(checks: &[Check]) -> ExitCode {
    let failed: usize = checks.iter().map(|c| c.problems.len()).sum();
    for check in checks {
        if check.problems.is_empty() {
            println!("ok    {}: {}", check.name, check.summary);
            for warning in &check.warnings {
                println!("      warning: {warning}");
            }
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
        assert_eq!(checks.len(), 11);
    }

    fn fixture(name: &str) -> PathBuf {
        workspace_root().join("tests/fixtures/tools").join(name)
    }

    /// `cargo xtask audit --tools` fails on a tool list with an unreported
    /// tool, and passes once the harness uses the registered names.
    #[test]
    fn a_tool_list_with_an_unreported_tool_fails_and_the_fixed_one_passes() {
        let failing = registry::exposed(&fixture("unreported.json")).unwrap();
        assert_eq!(failing.name, "tools");
        assert_eq!(failing.problems.len(), 2, "{failing:?}");
        assert!(
            failing.problems[0].contains("the registered tool is `read`"),
            "{failing:?}"
        );
        assert!(
            failing.problems[1].starts_with("tool `fetch_page` is exposed"),
            "{failing:?}"
        );

        let fixed = registry::exposed(&fixture("fixed.json")).unwrap();
        assert!(fixed.problems.is_empty(), "{fixed:?}");
        assert_eq!(
            fixed.summary,
            "3 exposed tools, each with exactly one path reporter"
        );
        assert_eq!(fixed.warnings.len(), 1, "{fixed:?}");
    }

    #[test]
    fn an_unreadable_tool_list_is_an_error_not_a_finding() {
        let err = registry::exposed(&fixture("not-a-tool-list.json")).unwrap_err();
        assert!(
            format!("{err:#}").contains("tool list: an object must hold"),
            "{err:#}"
        );
    }
}
