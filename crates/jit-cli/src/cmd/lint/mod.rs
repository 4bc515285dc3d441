//! `jit lint`: every rule file of the selected conventions, checked with the engine's own parser, matcher, size cap and import expansion, with findings that name file and line.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use camino::Utf8PathBuf;
use jit_core::RuleSource;

use super::non_empty_path;
use crate::output::{self, escape};

mod check;
mod conventions;
mod finding;
mod repo;
mod sarif;
mod walk;

use finding::{Finding, Summary};

/// How findings are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// One `file:line: severity[kind]: message` line each, then the counts.
    Text,
    /// `{"findings":[…],"summary":{…}}`.
    Json,
    /// GitHub Actions annotations (`::error file=…,line=…::…`).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

const AFTER_HELP: &str = "\
Example:
  jit lint --format github
      Checks every rule file of the project and prints the findings as
      GitHub Actions annotations; exit 1 when one is an error.";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// The project root (default: the git worktree root at or above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    conventions: crate::conventions::ConventionsArg,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = if args.json { Format::Json } else { args.format };
    let given = crate::project::root_or_default(args.root)?;
    let root = std::fs::canonicalize(&given)
        .with_context(|| format!("cannot resolve the root {}", given.display()))?;
    anyhow::ensure!(
        root.is_dir(),
        "the root {} is not a directory",
        root.display()
    );
    let root = Utf8PathBuf::from_path_buf(root)
        .map_err(|p| anyhow::anyhow!("the root {} is not a UTF-8 path", p.display()))?;
    let chosen =
        crate::conventions::resolve_or_all(&root, args.conventions.conventions.as_deref())?;
    let only_present = chosen.origin == crate::conventions::Origin::Detected;
    let findings = lint_root(&root, &chosen.sources, only_present)?;
    let summary = Summary::of(&findings);
    let mut out = output::stdout();
    match format {
        Format::Text => {
            let shown = crate::project::Shown::new(&root, &crate::project::current_dir()?);
            text(&mut out, &findings, summary, &shown)?;
        }
        Format::Json => {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({
                    "findings": findings,
                    "summary": summary,
                }),
            )?;
            writeln!(out)?;
        }
        Format::Github => github(&mut out, &findings)?,
        Format::Sarif => {
            serde_json::to_writer_pretty(&mut out, &sarif::log(&findings))?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Lints `root` for `sources`; with `only_present`, only the conventions
/// whose files exist there.
pub(crate) fn lint_root(
    root: &camino::Utf8Path,
    sources: &[std::sync::Arc<dyn RuleSource>],
    only_present: bool,
) -> anyhow::Result<Vec<Finding>> {
    let repo = repo::Repo::scan(root)?;
    let mut selected: Vec<&dyn RuleSource> = sources.iter().map(|s| &**s).collect();
    if only_present {
        selected = check::present(&repo, &selected);
    }
    Ok(check::lint(&repo, &selected))
}

fn text(
    out: &mut impl std::io::Write,
    findings: &[Finding],
    summary: Summary,
    shown: &crate::project::Shown,
) -> anyhow::Result<()> {
    for f in findings {
        writeln!(
            out,
            "{}:{}: {}[{}]: {}",
            escape(&shown.path(&f.file)),
            f.line,
            f.severity.as_str(),
            f.kind.as_str(),
            escape(&f.message)
        )?;
    }
    if findings.is_empty() {
        writeln!(out, "no findings")?;
    } else {
        writeln!(
            out,
            "\n{} error(s), {} warning(s), {} info(s)",
            summary.errors, summary.warnings, summary.infos
        )?;
    }
    Ok(())
}

/// GitHub workflow commands: `::error file=F,line=N::kind: message`, with
/// the command's own escaping (`%`, CR and LF everywhere; `:` and `,` in
/// the properties too), so no text from the repository can end the
/// annotation early or start another command.
fn github(out: &mut impl std::io::Write, findings: &[Finding]) -> anyhow::Result<()> {
    for f in findings {
        let level = match f.severity {
            finding::Severity::Error => "error",
            finding::Severity::Warning => "warning",
            finding::Severity::Info => "notice",
        };
        writeln!(
            out,
            "::{level} file={},line={}::{}: {}",
            github_property(&f.file),
            f.line,
            f.kind.as_str(),
            github_data(&f.message)
        )?;
    }
    Ok(())
}

fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escaping_keeps_one_annotation_per_line() {
        assert_eq!(github_data("50%\nx::y"), "50%25%0Ax::y");
        assert_eq!(github_property("a,b:c.md"), "a%2Cb%3Ac.md");
    }

    #[test]
    fn a_brace_split_across_items_is_found_whole() {
        let items: Vec<String> = ["src/**/*.{js", "ts", "vue}", "lib/**"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (meant, parts) = conventions::split_brace(&items).unwrap();
        assert_eq!(meant, "src/**/*.{js,ts,vue}");
        assert_eq!(parts.len(), 3);
        assert_eq!(conventions::split_brace(&items[3..]), None);
    }
}
