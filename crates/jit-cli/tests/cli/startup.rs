//! Tests of `jit startup` on a real git fixture: the DESIGN §4 table.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::jit;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success());
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src/ui")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
    fs::write(
        root.join(".claude/rules/ui.md"),
        "---\npaths: [\"src/ui/**\"]\n---\nui\n",
    )
    .unwrap();
    fs::write(root.join("src/ui/Badge.tsx"), "badge\n").unwrap();
    fs::write(root.join("docs/index.md"), "docs\n").unwrap();
    git(root, &["init", "-q"]);
    git(
        root,
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "add",
            "-A",
        ],
    );
    git(
        root,
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "init",
        ],
    );
    dir
}

fn run(root: &Path, cwd: &str) -> serde_json::Value {
    let root_s = root.to_str().unwrap();
    let cwd = root.join(cwd);
    let managed = root.join("no-managed-file");
    let (code, out, err) = jit(&[
        "startup",
        "--json",
        "--root",
        root_s,
        "--cwd",
        cwd.to_str().unwrap(),
        "--managed",
        managed.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn loads_ui(doc: &serde_json::Value) -> bool {
    doc["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["file"] == ".claude/rules/ui.md")
}

#[test]
fn design_table_on_a_real_git_fixture() {
    let dir = repo();
    let clean_root = run(dir.path(), "");
    assert_eq!(clean_root["signals"], serde_json::json!([]));
    assert!(!loads_ui(&clean_root));
    assert_eq!(clean_root["loaded"][0]["file"], "CLAUDE.md");
    assert_eq!(clean_root["loaded"][0]["tier"], "project");
    assert_eq!(clean_root["loaded"][0]["attribution"], "session_start");

    let in_ui = run(dir.path(), "src/ui");
    assert_eq!(in_ui["signals"], serde_json::json!(["src/ui/"]));
    assert!(loads_ui(&in_ui));

    let in_docs = run(dir.path(), "docs");
    assert_eq!(in_docs["signals"], serde_json::json!(["docs/"]));
    assert!(!loads_ui(&in_docs));

    fs::write(dir.path().join("src/ui/Badge.tsx"), "badge, changed\n").unwrap();
    let dirty_root = run(dir.path(), "");
    assert_eq!(
        dirty_root["signals"],
        serde_json::json!(["src/ui/Badge.tsx"])
    );
    assert!(loads_ui(&dirty_root));
}

#[test]
fn user_rules_come_from_home() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    fs::create_dir_all(home.path().join(".claude")).unwrap();
    fs::write(home.path().join(".claude/CLAUDE.md"), "me\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args([
            "startup",
            "--json",
            "--root",
            dir.path().to_str().unwrap(),
            "--managed",
            "/nonexistent/CLAUDE.md",
        ])
        .env("HOME", home.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["loaded"][0]["tier"], "user");
    assert!(
        doc["loaded"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with(".claude/CLAUDE.md")
    );
    assert!(Path::new(doc["loaded"][0]["file"].as_str().unwrap()).is_absolute());
}
