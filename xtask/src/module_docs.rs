//! The module doc check: every Rust source file starts with a `//!` line saying what lives there.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;

use crate::Check;

/// Checks every `.rs` file of the repository at `root`: the files git tracks
/// (what CI sees; a scratch file not yet added is not judged), or, outside a
/// git checkout, every file under `root` except build output and hidden
/// directories.
pub(crate) fn check(root: &Path) -> anyhow::Result<Check> {
    let files = match git_files(root) {
        Some(files) => files,
        None => walk(root)?,
    };
    let files: Vec<PathBuf> = files.into_iter().filter(|f| !is_fixture(f)).collect();
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(root.join(file))
            .with_context(|| format!("reading {}", file.display()))?;
        if let Some(problem) = problem(file, &text) {
            problems.push(problem);
        }
    }
    Ok(Check {
        name: "module docs",
        summary: format!("{} .rs files checked for a leading `//!` line", files.len()),
        problems,
        warnings: Vec::new(),
    })
}

/// The problem with `file`, whose contents are `text`, if it does not start
/// with a `//!` line.
fn problem(file: &Path, text: &str) -> Option<String> {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("");
    if first.starts_with("//!") {
        return None;
    }
    let found = if first.trim().is_empty() {
        "an empty line".to_owned()
    } else {
        format!("`{}`", first.chars().take(60).collect::<String>())
    };
    Some(format!(
        "{}: the first line is {found}; start the file with a `//!` line saying what lives in it",
        file.display()
    ))
}

/// Test fixtures are data that happens to be Rust, not code of this workspace.
fn is_fixture(file: &Path) -> bool {
    file.components().any(|c| c.as_os_str() == "fixtures")
}

/// The `.rs` files git tracks under `root`, or `None` when git cannot say.
fn git_files(root: &Path) -> Option<Vec<PathBuf>> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z", "--cached", "--", "*.rs"])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let listing = String::from_utf8(output.stdout).ok()?;
    let mut files: Vec<PathBuf> = listing
        .split('\0')
        .filter(|name| !name.is_empty())
        .map(PathBuf::from)
        // A tracked file deleted in the work tree is not there to check.
        .filter(|file| root.join(file).is_file())
        .collect();
    files.sort();
    files.dedup();
    Some(files)
}

/// Every `.rs` file under `root`, skipping `target` and hidden directories.
fn walk(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(root.join(&dir))
            .with_context(|| format!("listing {}", root.join(&dir).display()))?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let relative = dir.join(&name);
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                if name != "target" && !name.to_string_lossy().starts_with('.') {
                    pending.push(relative);
                }
            } else if file_type.is_file() && relative.extension().is_some_and(|e| e == "rs") {
                files.push(relative);
            }
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check_text(text: &str, expected: Option<&str>) {
        assert_eq!(problem(Path::new("src/x.rs"), text).as_deref(), expected);
    }

    #[test]
    fn the_first_line_must_be_a_module_doc() {
        check_text("//! What lives here.\nuse std::fmt;\n", None);
        check_text("\u{feff}//! After a byte order mark.\n", None);
        check_text(
            "use std::fmt;\n",
            Some(
                "src/x.rs: the first line is `use std::fmt;`; start the file with a `//!` line saying what lives in it",
            ),
        );
        check_text(
            "\n//! Too late.\n",
            Some(
                "src/x.rs: the first line is an empty line; start the file with a `//!` line saying what lives in it",
            ),
        );
        check_text(
            "",
            Some(
                "src/x.rs: the first line is an empty line; start the file with a `//!` line saying what lives in it",
            ),
        );
        check_text(
            "/// An item doc is not a module doc.\n",
            Some(
                "src/x.rs: the first line is `/// An item doc is not a module doc.`; start the file with a `//!` line saying what lives in it",
            ),
        );
    }

    #[test]
    fn outside_git_the_walk_skips_target_and_hidden_directories_and_fixtures() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            ("src/good.rs", "//! Good.\n"),
            ("src/bad.rs", "fn main() {}\n"),
            ("target/debug/build/out.rs", "generated\n"),
            (".hidden/x.rs", "hidden\n"),
            ("tests/fixtures/case.rs", "data\n"),
            ("README.md", "not rust\n"),
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        // A temporary directory is not a git checkout, so the walk is used.
        let checked = check(root).unwrap();
        assert_eq!(
            checked.summary,
            "2 .rs files checked for a leading `//!` line"
        );
        assert_eq!(
            checked.problems,
            [
                "src/bad.rs: the first line is `fn main() {}`; start the file with a `//!` line saying what lives in it"
            ]
        );
    }
}
