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
