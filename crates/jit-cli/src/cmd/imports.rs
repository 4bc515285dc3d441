//! `jit imports`: extract and expand the `@imports` of one rule file, as a table or as JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use jit_imports::{Expansion, ImportRecord, Policy};
use serde::Serialize;

/// Arguments of `jit imports`.
///
/// Exits 0 whenever FILE could be read: failed imports are reported in the
/// output (status and diagnostics), not as an error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON: `{"imports": [...], "diagnostics": [...], "expanded": "..."}`.
    #[arg(long)]
    json: bool,
    /// The project root; an import whose real path is outside it is refused.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Hop limit: the file's own imports are depth 1.
    #[arg(long, value_name = "N", default_value_t = jit_imports::DEFAULT_MAX_DEPTH)]
    max_depth: usize,
    /// Follow imports that resolve outside the root.
    #[arg(long)]
    allow_outside_root: bool,
    /// Treat FILE as a user-level rule file: `~/…` imports and files in $HOME are allowed.
    #[arg(long)]
    user: bool,
    /// Also print the expanded text after the table (the JSON output always has it).
    #[arg(long)]
    expanded: bool,
    /// The rule file to expand; a relative path that does not exist from the
    /// current directory is looked up under the root.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// One import in the JSON output; `from` is relative to the root, `resolved` absolute.
#[derive(Debug, Serialize)]
struct JsonImport<'a> {
    target: &'a str,
    resolved: Option<String>,
    status: jit_imports::ImportStatus,
    depth: usize,
    from: String,
    line: usize,
    raw: &'a str,
    bytes: usize,
    duplicate: bool,
}

/// One diagnostic in the JSON output; `file` is relative to the root.
#[derive(Debug, Serialize)]
struct JsonDiagnostic<'a> {
    file: String,
    line: usize,
    target: &'a str,
    status: jit_imports::ImportStatus,
    message: &'a str,
}

#[derive(Debug, Serialize)]
struct JsonOutput<'a> {
    file: String,
    root: String,
    imports: Vec<JsonImport<'a>>,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    expanded: &'a str,
}

/// Runs `jit imports`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = args
        .root
        .canonicalize()
        .with_context(|| format!("project root {} cannot be resolved", args.root.display()))?;
    anyhow::ensure!(
        root.is_dir(),
        "project root {} is not a directory",
        args.root.display()
    );
    let file = locate_file(&args.file, &root);
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let policy = Policy::default()
        .with_max_depth(args.max_depth)
        .with_allow_outside_root(args.allow_outside_root)
        .with_allow_home(args.user)
        .with_home_dir(home);
    let out = jit_imports::expand_file(&file, &root, &policy)?;
    let file_real = file.canonicalize().unwrap_or_else(|_| file.clone());
    if args.json {
        print_json(&root, &file_real, &out)?;
    } else {
        print_table(&root, &file_real, &out, args.expanded);
    }
    Ok(ExitCode::SUCCESS)
}

/// FILE as given when it exists (or is absolute), otherwise the same path under the root.
fn locate_file(file: &Path, root: &Path) -> PathBuf {
    if file.is_absolute() || file.exists() {
        return file.to_path_buf();
    }
    let under_root = root.join(file);
    if under_root.exists() {
        under_root
    } else {
        file.to_path_buf()
    }
}

/// `path` relative to `root` with `/` separators, or absolute when it is outside.
fn display_rel(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

fn print_json(root: &Path, file: &Path, out: &Expansion) -> anyhow::Result<()> {
    let json = JsonOutput {
        file: display_rel(root, file),
        root: root.to_string_lossy().into_owned(),
        imports: out
            .imports
            .iter()
            .map(|r| JsonImport {
                target: &r.target,
                resolved: r
                    .resolved
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned()),
                status: r.status,
                depth: r.depth,
                from: display_rel(root, &r.from),
                line: r.line,
                raw: &r.raw,
                bytes: r.bytes,
                duplicate: r.duplicate,
            })
            .collect(),
        diagnostics: out
            .diagnostics
            .iter()
            .map(|d| JsonDiagnostic {
                file: display_rel(root, &d.file),
                line: d.line,
                target: &d.target,
                status: d.status,
                message: &d.message,
            })
            .collect(),
        expanded: &out.expanded,
    };
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

fn print_table(root: &Path, file: &Path, out: &Expansion, with_text: bool) {
    let count = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    println!(
        "{}: {}, {}",
        display_rel(root, file),
        count(out.imports.len(), "import"),
        count(out.diagnostics.len(), "diagnostic")
    );
    if !out.imports.is_empty() {
        let header = ["DEPTH", "STATUS", "FROM", "TARGET", "RESOLVED"].map(str::to_owned);
        let rows: Vec<[String; 5]> = out.imports.iter().map(|r| row(root, r)).collect();
        let mut widths = header.clone().map(|h| h.chars().count());
        for cells in &rows {
            for (width, cell) in widths.iter_mut().zip(cells) {
                *width = (*width).max(cell.chars().count());
            }
        }
        println!();
        for cells in std::iter::once(&header).chain(&rows) {
            let mut line = String::from(" ");
            for (cell, width) in cells.iter().zip(widths) {
                line.push(' ');
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - cell.chars().count() + 1));
            }
            println!("{}", line.trim_end());
        }
    }
    if !out.diagnostics.is_empty() {
        println!("\ndiagnostics:");
        for d in &out.diagnostics {
            println!(
                "  {}:{}: @{}: {}: {}",
                display_rel(root, &d.file),
                d.line,
                d.target,
                d.status,
                d.message
            );
        }
    }
    if with_text {
        println!("\nexpanded:\n{}", out.expanded);
    }
}

fn row(root: &Path, r: &ImportRecord) -> [String; 5] {
    let status = if r.duplicate {
        format!("{} (again)", r.status)
    } else {
        r.status.to_string()
    };
    [
        r.depth.to_string(),
        status,
        format!("{}:{}", display_rel(root, &r.from), r.line),
        r.target.clone(),
        r.resolved
            .as_deref()
            .map_or_else(|| "-".to_owned(), |p| display_rel(root, p)),
    ]
}
