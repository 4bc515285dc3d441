//! Tests of `jit explain`: the JSON contract and the human table.

use std::fs;

use crate::{jit, jit_in};

fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src/ui")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root rules\n").unwrap();
    fs::write(
        root.join("src/ui/CLAUDE.md"),
        "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nno emoji\n",
    )
    .unwrap();
    dir
}

#[test]
fn json_has_one_step_per_path_with_the_documented_fields() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--json",
            "--no-startup",
            "--root",
            ".",
            "src/ui/README.md",
            "src/ui/Footer.tsx",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["trigger"], "src/ui/README.md");
    assert_eq!(steps[0]["loaded"][0]["file"], "CLAUDE.md");
    assert_eq!(steps[0]["loaded"][0]["attribution"], "nested_traversal");
    assert_eq!(steps[0]["loaded"][0]["bytes"], 11);
    assert_eq!(steps[0]["skipped"][0]["file"], "src/ui/CLAUDE.md");
    assert_eq!(steps[0]["skipped"][0]["reason"], "scope_miss");
    assert!(
        steps[0]["skipped"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("src/ui/**/*.tsx")
    );
    assert_eq!(steps[1]["trigger"], "src/ui/Footer.tsx");
    assert_eq!(steps[1]["loaded"][0]["file"], "src/ui/CLAUDE.md");
    assert_eq!(steps[1]["loaded"][0]["attribution"], "path_glob_match");
    assert_eq!(steps[1]["skipped"], serde_json::json!([]));
}

#[test]
fn absolute_paths_and_outside_paths() {
    let dir = demo();
    let root = dir.path().to_str().unwrap();
    let footer = dir.path().join("src/ui/Footer.tsx");
    let (code, out, err) = jit(&[
        "explain",
        "--json",
        "--root",
        root,
        footer.to_str().unwrap(),
        "/",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["steps"][0]["trigger"], "src/ui/Footer.tsx");
    assert_eq!(doc["steps"][1]["skipped"][0]["reason"], "outside_root");
}

#[test]
fn human_output_is_a_table_per_step() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--root",
            ".",
            "src/ui/README.md",
            "src/ui/Footer.tsx",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("step 1: src/ui/README.md"), "{out}");
    assert!(out.contains("scope_miss"), "{out}");
    assert!(out.contains("step 2: src/ui/Footer.tsx"), "{out}");
    assert!(out.contains("path_glob_match"), "{out}");
}

#[test]
fn a_missing_root_is_a_clear_error() {
    let (code, _out, err) = jit(&["explain", "--root", "/definitely/not/here", "a"]);
    assert_ne!(code, 0);
    assert!(err.contains("/definitely/not/here"), "{err}");
}

/// Runs `jit` in `dir` with `HOME` set to `home` (a temp dir of the test).
fn jit_with_home(
    dir: &std::path::Path,
    home: &std::path::Path,
    args: &[&str],
) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn startup_is_a_separate_key_and_steps_stay_one_per_path() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--json",
            "--managed",
            "no-managed-file",
            "--root",
            ".",
            "src/ui/README.md",
            "src/ui/Footer.tsx",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["startup"]["loaded"][0]["file"], "CLAUDE.md");
    assert_eq!(doc["startup"]["loaded"][0]["attribution"], "session_start");
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    // The root rule came at startup: JIT does not inject it again.
    assert_eq!(steps[0]["loaded"], serde_json::json!([]));
    assert_eq!(steps[1]["loaded"][0]["file"], "src/ui/CLAUDE.md");
}

#[test]
fn no_startup_leaves_the_startup_key_out() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["explain", "--json", "--no-startup", "--root", ".", "a.txt"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(doc.get("startup").is_none(), "{out}");
    assert_eq!(doc["steps"][0]["loaded"][0]["file"], "CLAUDE.md");
}

#[test]
fn user_rules_come_from_home() {
    let dir = demo();
    let home = tempfile::tempdir().unwrap();
    fs::create_dir_all(home.path().join(".claude")).unwrap();
    fs::write(home.path().join(".claude/CLAUDE.md"), "my own rules\n").unwrap();
    let (code, out, err) = jit_with_home(
        dir.path(),
        home.path(),
        &[
            "explain",
            "--managed",
            "no-managed-file",
            "--root",
            ".",
            "a.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("startup:"), "{out}");
    assert!(out.contains(".claude/CLAUDE.md"), "{out}");
    assert!(out.contains("session_start"), "{out}");
    assert!(out.contains("step 1: a.txt"), "{out}");
}

#[test]
fn events_are_appended_one_per_touched_path_plus_startup() {
    let dir = demo();
    let args = [
        "explain",
        "--events",
        "log.jsonl",
        "--managed",
        "no-managed-file",
        "--root",
        ".",
        "src/ui/README.md",
        "src/ui/Footer.tsx",
        "docs/x.md",
    ];
    for _ in 0..2 {
        let (code, _out, err) = jit_in(Some(dir.path()), &args);
        assert_eq!(code, 0, "{err}");
    }
    let log = fs::read_to_string(dir.path().join("log.jsonl")).unwrap();
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 8, "two runs of one startup and three touches");
    let kinds: Vec<&str> = events[..4]
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["startup", "discovery", "discovery", "discovery"]);
    assert_eq!(events[2]["trigger"], "src/ui/Footer.tsx");
    assert_eq!(events[2]["hit"], true);
    assert_eq!(events[2]["channel"], "main");
    assert_ne!(
        events[0]["session"], events[4]["session"],
        "each run is a session"
    );
}

#[test]
fn an_unwritable_event_log_is_a_warning() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--json",
            "--events",
            "no/such/dir/log.jsonl",
            "--root",
            ".",
            "src/ui/Footer.tsx",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("jit: warning: cannot write the event log"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["steps"][0]["trigger"], "src/ui/Footer.tsx");
    assert!(doc["warnings"][0].as_str().unwrap().contains("log.jsonl"));
}

#[test]
fn a_rule_over_the_budget_is_shown_as_too_large_for_budget() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--json",
            "--no-startup",
            "--budget",
            "5",
            "--root",
            ".",
            "a.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let skipped = &doc["steps"][0]["skipped"][0];
    assert_eq!(skipped["file"], "CLAUDE.md");
    assert_eq!(skipped["reason"], "too_large_for_budget");
    assert!(
        skipped["detail"]
            .as_str()
            .unwrap()
            .contains("read CLAUDE.md for the rest")
    );
}

#[test]
fn cwd_must_be_an_existing_directory() {
    let dir = demo();
    for bad in ["CLAUDE.md", "no/such/dir"] {
        let (code, _out, err) = jit_in(
            Some(dir.path()),
            &["explain", "--root", ".", "--cwd", bad, "a"],
        );
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains(bad), "{err}");
    }
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["explain", "--json", "--root", ".", "--cwd", "src/ui", "a"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["startup"]["signals"][0], "src/ui/");
}
