//! Tests of `jit stats`: over the events of `jit explain`, the JSON keys, the tables, and foreign lines.

use std::fs;

use crate::{jit, jit_in};

/// A project where 2 of 4 touched paths bring a rule in.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src/ui")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root rules\n").unwrap();
    fs::write(root.join("src/ui/CLAUDE.md"), "ui rules\n").unwrap();
    fs::write(
        root.join("docs/CLAUDE.md"),
        "---\npaths: [\"docs/**/*.md\"]\n---\ndocs rules\n",
    )
    .unwrap();
    dir
}

const PATHS: [&str; 4] = [
    "src/ui/Footer.tsx",
    "src/ui/Badge.tsx",
    "docs/img.png",
    "docs/guide.md",
];

/// Runs `jit explain --events log.jsonl` over [`PATHS`] and returns its JSON.
fn explain(dir: &std::path::Path) -> serde_json::Value {
    let mut args = vec![
        "explain",
        "--json",
        "--events",
        "log.jsonl",
        "--managed",
        "no-managed-file",
        "--root",
        ".",
    ];
    args.extend(PATHS);
    let (code, out, err) = jit_in(Some(dir), &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn stats_json(dir: &std::path::Path, files: &[&str]) -> serde_json::Value {
    let mut args = vec!["stats", "--json"];
    args.extend(files);
    let (code, out, err) = jit_in(Some(dir), &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn stats_of_an_explain_session_agree_with_explain() {
    let dir = project();
    let explained = explain(dir.path());
    let steps = explained["steps"].as_array().unwrap();
    let hits = steps
        .iter()
        .filter(|s| !s["loaded"].as_array().unwrap().is_empty())
        .count();
    let stats = stats_json(dir.path(), &["log.jsonl"]);
    assert_eq!(stats["discoveries"], PATHS.len());
    assert_eq!(stats["hits"], hits);
    assert_eq!(hits, 2, "src/ui/Footer.tsx and docs/guide.md");
    assert_eq!(stats["hit_rate"], 0.5);
    assert_eq!(stats["startups"], 1);
    assert_eq!(stats["sessions"], 1);
    assert_eq!(stats["skipped_lines"], 0);
    // docs/img.png meets the docs rule's scope and misses it.
    assert_eq!(stats["scope_skipped"], 1);
    assert_eq!(stats["attribution"]["session_start"], 1);
    assert_eq!(stats["attribution"]["nested_traversal"], 1);
    assert_eq!(stats["attribution"]["path_glob_match"], 1);
    assert_eq!(stats["channels"]["main"], 4);
    assert_eq!(stats["bytes_injected"], 9 + 11);
    assert_eq!(stats["avg_injected_bytes"], 10.0);
    assert_eq!(stats["resident_bytes"]["max"], 11 + 9 + 11);
    assert_eq!(stats["by_file"][0]["file"], "CLAUDE.md");
}

#[test]
fn every_documented_key_is_present() {
    let dir = project();
    explain(dir.path());
    let stats = stats_json(dir.path(), &["log.jsonl"]);
    let mut keys: Vec<&str> = stats
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "attribution",
            "avg_injected_bytes",
            "by_file",
            "bytes_injected",
            "candidates",
            "channels",
            "debt",
            "decisions",
            "discoveries",
            "hit_rate",
            "hits",
            "latency_us",
            "limits_hit",
            "lines",
            "resident_bytes",
            "scope_skipped",
            "sessions",
            "skipped_lines",
            "startups",
            "untracked_events",
            "waste_rate",
        ]
    );
    let readme =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme
        .split("## jit stats")
        .nth(1)
        .expect("README has a `## jit stats` section");
    for key in keys {
        assert!(
            section.contains(&format!("`{key}`")),
            "README documents `{key}`"
        );
    }
}

#[test]
fn old_and_foreign_lines_are_skipped_with_a_count() {
    let dir = project();
    explain(dir.path());
    let mut log = fs::read(dir.path().join("log.jsonl")).unwrap();
    log.extend_from_slice(b"{\"schema\":0,\"kind\":\"discovery\"}\n");
    log.extend_from_slice(b"{\"event\":\"jit_context\",\"hit\":true}\n");
    log.extend_from_slice(b"\xff\xfe not utf-8\n\n");
    log.extend_from_slice(b"{\"schema\":1,\"kind\":\"discovery\",\"trun");
    fs::write(dir.path().join("log.jsonl"), log).unwrap();
    let stats = stats_json(dir.path(), &["log.jsonl"]);
    assert_eq!(stats["skipped_lines"], 4);
    assert_eq!(stats["discoveries"], PATHS.len());
}

#[test]
fn several_logs_add_up() {
    let dir = project();
    explain(dir.path());
    fs::copy(dir.path().join("log.jsonl"), dir.path().join("copy.jsonl")).unwrap();
    let stats = stats_json(dir.path(), &["log.jsonl", "copy.jsonl"]);
    assert_eq!(stats["discoveries"], 2 * PATHS.len());
    assert_eq!(stats["hit_rate"], 0.5);
}

#[test]
fn the_table_with_leaderboard_and_debt() {
    let dir = project();
    explain(dir.path());
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "stats",
            "--by-file",
            "--debt",
            "--debt-min-bytes",
            "5",
            "--debt-idle-steps",
            "2",
            "log.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("hit rate            50.0% (2 / 4 discoveries)"),
        "{out}"
    );
    assert!(out.contains("waste rate"), "{out}");
    assert!(out.contains("channels            main × 4"), "{out}");
    assert!(
        out.contains("by file (bytes injected, largest first):"),
        "{out}"
    );
    // src/ui/CLAUDE.md came at step 1 and was last relevant at step 2 of 4.
    assert!(
        out.contains("src/ui/CLAUDE.md  9 B  in at step 1, last relevant at step 2, idle 2 steps"),
        "{out}"
    );
}

#[test]
fn a_missing_log_is_an_error() {
    let (code, _out, err) = jit(&["stats", "/definitely/not/here.jsonl"]);
    assert_eq!(code, 2);
    assert!(err.contains("/definitely/not/here.jsonl"), "{err}");
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let dir = project();
    explain(dir.path());
    for args in [
        &["stats", "--by-file", "--debt", "log.jsonl"][..],
        &["stats", "--json", "log.jsonl"],
    ] {
        let (code, stderr) = crate::jit_closed_stdout(Some(dir.path()), args);
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn control_characters_are_escaped_in_the_table_only() {
    let dir = project();
    let evil = "evil\x1b]0;title\x07\x1b[2J\nline";
    fs::create_dir_all(dir.path().join(evil)).unwrap();
    fs::write(dir.path().join(evil).join("CLAUDE.md"), "evil rules\n").unwrap();
    let touched = format!("{evil}/a.txt");
    let (code, _out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--no-startup",
            "--events",
            "log.jsonl",
            "--root",
            ".",
            &touched,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "stats",
            "--by-file",
            "--debt",
            "--debt-min-bytes",
            "1",
            "--debt-idle-steps",
            "0",
            "log.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    crate::assert_no_control_characters(&out);
    assert!(
        out.contains("  evil\\e]0;title\\x07\\e[2J\\nline/CLAUDE.md  "),
        "{out}"
    );
    let stats = stats_json(dir.path(), &["log.jsonl"]);
    let files: Vec<&str> = stats["by_file"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&format!("{evil}/CLAUDE.md").as_str()),
        "{stats:#}"
    );
}

#[test]
fn an_empty_path_is_a_usage_error() {
    let (code, out, err) = jit(&["stats", ""]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("empty path"), "{err}");
}
