//! `jit imports`: extract and expand the `@imports` of one rule file, as a table or as JSON.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use jit_imports::{Expansion, ImportRecord, Policy};
use serde::Serialize;

use crate::cmd::non_empty_path;
use crate::output::{self, escape, escape_text};

const AFTER_HELP: &str = "\
Example:
  jit imports --expanded CLAUDE.md
      The @imports of CLAUDE.md, each with its status, then the text with
      every import inlined.";

/// Arguments of `jit imports`.
///
/// Exits 0 whenever FILE could be read: failed imports are reported in the
/// output (status and diagnostics), not as an error. FILE itself must pass
/// the checks an import gets, or the command exits 2: its real path inside
/// the root (or allowed by `--allow-outside-root` / `--user`), a regular file
/// (opened without blocking, so a named pipe is refused at once), within the
/// size cap (at most cap + 1 bytes are read), and UTF-8 text without NUL bytes.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print JSON: `{"imports": [...], "diagnostics": [...], "expanded": "..."}`.
    #[arg(long)]
    json: bool,
    /// The project root; an import whose real path is outside it is refused
    /// (default: the git worktree root at or above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// Hop limit: the file's own imports are depth 1.
    #[arg(long, value_name = "N", default_value_t = jit_imports::DEFAULT_MAX_DEPTH)]
    max_depth: usize,
    /// How many imports the expansion follows, nested ones included; the one
    /// that meets the limit is refused (`too_many_imports`), the rest are left as written.
    #[arg(long, value_name = "N", default_value_t = jit_imports::DEFAULT_MAX_IMPORTS)]
    max_imports: usize,
    /// Follow imports that resolve outside the root.
    #[arg(long)]
    allow_outside_root: bool,
    /// Treat FILE as a user-level rule file: `~/…` imports and files in $HOME are allowed.
    #[arg(long)]
    user: bool,
    /// Also print the expanded text after the table (the JSON output always
    /// has it); control characters other than line ends and tabs are escaped.
    #[arg(long)]
    expanded: bool,
    /// The rule file to expand; a relative path that does not exist from the
    /// current directory is looked up under the root.
    #[arg(value_name = "FILE", value_parser = non_empty_path)]
    file: PathBuf,
}

/// One import in the JSON output; `from` is relative to the root, `resolved` absolute.
#[derive(Debug, Serialize)]
struct JsonImport<'a> {
    target: &'a str,
    resolved: Option<String>,
    status: jit_imports::ImportStatus,
    reason: Option<jit_imports::RefusalReason>,
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
    reason: Option<jit_imports::RefusalReason>,
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
///
/// The table escapes control characters in file names, targets and
/// messages; the JSON output is exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let given = crate::project::root_or_default(args.root)?;
    let root = given
        .canonicalize()
        .with_context(|| format!("project root {} cannot be resolved", given.display()))?;
    anyhow::ensure!(
        root.is_dir(),
        "project root {} is not a directory",
        given.display()
    );
    let file = locate_file(&args.file, &root);
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let policy = Policy::default()
        .with_max_depth(args.max_depth)
        .with_max_imports(args.max_imports)
        .with_allow_outside_root(args.allow_outside_root)
        .with_allow_home(args.user)
        .with_home_dir(home);
    let (file_real, text) = read_rule_file(&file, &root, &policy)?;
    let out = jit_imports::expand(&file_real, &text, &root, &policy);
    let mut stdout = output::stdout();
    if args.json {
        write_json(&mut stdout, &root, &file_real, &out)?;
    } else {
        write_table(&mut stdout, &root, &file_real, &out, args.expanded)?;
    }
    stdout.flush()?;
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

/// Reads FILE under the rules an import is held to, so that the top-level file
/// cannot do what an imported one may not: returns its real path and text.
///
/// The real path is checked against the root first; then it is opened
/// without blocking and judged on the open descriptor (a named pipe, even
/// one swapped in after a check, is refused at once), and at most cap + 1
/// bytes are read.
fn read_rule_file(file: &Path, root: &Path, policy: &Policy) -> anyhow::Result<(PathBuf, String)> {
    let shown = file.display();
    let real = fs::canonicalize(file).with_context(|| format!("cannot read rule file {shown}"))?;
    if !policy.permits(&real, root) {
        bail!(
            "rule file {shown} resolves to {}, outside the project root {} \
             (--allow-outside-root reads it anyway)",
            real.display(),
            root.display()
        );
    }
    let (opened, meta) = jit_core::open_regular(&real).map_err(|err| {
        if err.kind() == std::io::ErrorKind::InvalidInput {
            // The message says what the file is: "not a regular file (a named pipe)".
            anyhow::anyhow!("rule file {shown} is {err}")
        } else {
            anyhow::Error::new(err).context(format!("cannot read rule file {shown}"))
        }
    })?;
    let cap = policy.max_file_bytes();
    let too_large = |len: u64| format!("rule file {shown} is {len} bytes, over the cap of {cap}");
    if meta.len() > cap {
        bail!(too_large(meta.len()));
    }
    let bytes = jit_core::read_capped(opened, meta.len(), cap)
        .with_context(|| format!("cannot read rule file {shown}"))?;
    // The file may have grown since it was measured.
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if len > cap {
        bail!(too_large(len));
    }
    if bytes.contains(&0) {
        bail!("rule file {shown} is binary (it contains NUL bytes)");
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("rule file {shown} is not UTF-8 text"))?;
    Ok((real, text))
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

fn write_json(
    stdout: &mut impl Write,
    root: &Path,
    file: &Path,
    out: &Expansion,
) -> anyhow::Result<()> {
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
                reason: r.reason,
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
                reason: d.reason,
                message: &d.message,
            })
            .collect(),
        expanded: &out.expanded,
    };
    serde_json::to_writer_pretty(&mut *stdout, &json)?;
    writeln!(stdout)?;
    Ok(())
}

fn write_table(
    stdout: &mut impl Write,
    root: &Path,
    file: &Path,
    out: &Expansion,
    with_text: bool,
) -> std::io::Result<()> {
    // Names relative to where the user stands, as the other tables do; the
    // JSON output keeps them root-relative.
    let shown = match (
        camino::Utf8Path::from_path(root),
        crate::project::current_dir(),
    ) {
        (Some(root), Ok(cwd)) => crate::project::Shown::new(root, &cwd),
        _ => crate::project::Shown::default(),
    };
    let rel = |path: &Path| shown.path(&display_rel(root, path)).into_owned();
    let count = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        stdout,
        "{}: {}, {}",
        escape(&rel(file)),
        count(out.imports.len(), "import"),
        count(out.diagnostics.len(), "diagnostic")
    )?;
    if !out.imports.is_empty() {
        let header = ["DEPTH", "STATUS", "FROM", "TARGET", "RESOLVED"].map(str::to_owned);
        let rows: Vec<[String; 5]> = out
            .imports
            .iter()
            .map(|r| row(&rel, r).map(|cell| escape(&cell).into_owned()))
            .collect();
        let mut widths = header.clone().map(|h| h.chars().count());
        for cells in &rows {
            for (width, cell) in widths.iter_mut().zip(cells) {
                *width = (*width).max(cell.chars().count());
            }
        }
        writeln!(stdout)?;
        for cells in std::iter::once(&header).chain(&rows) {
            let mut line = String::from(" ");
            for (cell, width) in cells.iter().zip(widths) {
                line.push(' ');
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - cell.chars().count() + 1));
            }
            writeln!(stdout, "{}", line.trim_end())?;
        }
    }
    if !out.diagnostics.is_empty() {
        writeln!(stdout, "\ndiagnostics:")?;
        for d in &out.diagnostics {
            let status = match d.reason {
                Some(reason) => format!("{} ({reason})", d.status),
                None => d.status.to_string(),
            };
            writeln!(
                stdout,
                "  {}:{}: @{}: {status}: {}",
                escape(&rel(&d.file)),
                d.line,
                escape(&d.target),
                escape(&d.message)
            )?;
        }
    }
    if with_text {
        writeln!(stdout, "\nexpanded:\n{}", escape_text(&out.expanded))?;
    }
    Ok(())
}

fn row(rel: &impl Fn(&Path) -> String, r: &ImportRecord) -> [String; 5] {
    let status = if r.duplicate {
        format!("{} (again)", r.status)
    } else {
        r.status.to_string()
    };
    [
        r.depth.to_string(),
        status,
        format!("{}:{}", rel(&r.from), r.line),
        r.target.clone(),
        r.resolved.as_deref().map_or_else(|| "-".to_owned(), rel),
    ]
}
