//! Tests of `jit lint`: one repository with every finding, in every output format, and the exit codes.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::{assert_no_control_characters, jit, jit_closed_stdout};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success());
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A git repository at `<tmp>/repo` with at least one finding of every
/// kind, and a file beside it (`<tmp>/outside.md`) that an import reaches.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "outside.md", "Outside the project.\n");
    let root = dir.path().join("repo");
    let r = root.as_path();
    write(r, ".gitignore", "build/\n");
    write(r, "src/ui/App.ts", "app\n");
    write(r, "src/main.ts", "main\n");
    write(r, "lib/x.ts", "x\n");
    write(r, "CLAUDE.md", "# Project\n\nSee @docs/missing.md and @../outside.md.\n");
    write(r, "src/CLAUDE.md", "# Source\n\nRead @../docs/a.md first.\n");
    write(r, "docs/a.md", "A, then @b.md\n");
    write(r, "docs/b.md", "B, then @a.md\n");
    write(r, "pkg/CLAUDE.md", "Use tabs.\n");
    write(r, "lib/CLAUDE.md", "Use tabs.\n");
    write(r, "AGENTS.md", "Codex rules.\n");
    write(r, "AGENTS.override.md", "Codex override.\n");
    write(r, "build/CLAUDE.md", "Generated.\n");
    let rules = ".claude/rules";
    write(r, &format!("{rules}/ui.md"), "---\npaths: [\"src/ui/**\"]\n---\nUI rules.\n");
    write(
        r,
        &format!("{rules}/dead.md"),
        "---\ndescription: site\npaths:\n  - \"src/**\"\n  - \"website/**\"\n---\nSite rules.\n",
    );
    write(
        r,
        &format!("{rules}/brace.md"),
        "---\npaths: [\"src/**/*.{js\", \"ts\", \"vue}\"]\n---\nFront end.\n",
    );
    write(r, &format!("{rules}/cursorish.md"), "---\nglobs: src/**/*.ts\n---\nTypes.\n");
    write(
        r,
        &format!("{rules}/both.md"),
        "---\npaths: [\"src/**\"]\nglobs: [\"lib/**\"]\n---\nBoth.\n",
    );
    write(r, &format!("{rules}/bad.md"), "---\ndescription: [unclosed\n---\nBad.\n");
    write(r, &format!("{rules}/big.md"), &"x".repeat(300 * 1024));
    write(r, &format!("{rules}/empty.md"), "---\npaths: [\"src/**\"]\n---\n");
    write(r, &format!("{rules}/unquoted.md"), "---\npaths: **/*.ts\n---\nTS.\n");
    write(r, &format!("{rules}/style.mdc"), "---\nglobs: \"**/*.css\"\n---\nCSS.\n");
    git(r, &["init", "-q"]);
    git(r, &["add", "-A"]);
    git(r, &["commit", "-qm", "init"]);
    (dir, root)
}

const EXPECTED_JSON: &str = r#"{}"#;

#[test]
fn every_finding_kind_in_one_repository_exact_json() {
    let (_dir, root) = fixture();
    let (code, out, err) = jit(&["lint", "--json", "--root", root.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let got: serde_json::Value = serde_json::from_str(&out).unwrap();
    println!("{}", serde_json::to_string_pretty(&got).unwrap());
    let expected: serde_json::Value = serde_json::from_str(EXPECTED_JSON).unwrap();
    pretty_assertions::assert_eq!(got, expected);
}
