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
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
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

/// `--events FILE` asks for an output: a FILE that cannot be written is
/// an error (exit 2) naming it and why, never a run whose events are lost
/// without a word.
#[test]
fn an_event_log_that_cannot_be_written_is_an_error() {
    let dir = demo();
    let explain = |events: &str| {
        jit_in(
            Some(dir.path()),
            &[
                "explain",
                "--json",
                "--events",
                events,
                "--root",
                ".",
                "src/ui/Footer.tsx",
            ],
        )
    };
    // Refused before the run: a device, a missing folder.
    for (events, why) in [
        ("/dev/full", "not a regular file (a device)"),
        ("no/such/dir/log.jsonl", "No such file or directory"),
    ] {
        let (code, out, err) = explain(events);
        assert_eq!(code, 2, "{events}: {err}");
        assert!(out.is_empty(), "{events}: {out}");
        assert!(
            err.starts_with("jit: error: cannot write the event log") && err.contains(events),
            "{events}: {err}"
        );
        assert!(err.contains(why), "{events}: {err}");
    }
}

/// A write that fails during the run (the disk filled up; here, the file
/// size limit): the report is printed, then the error, exit 2.
#[test]
fn an_event_log_write_that_fails_during_the_run_is_an_error() {
    let dir = demo();
    let (code, out, err) = crate::jit_file_size_limit(
        Some(dir.path()),
        1,
        &[
            "explain",
            "--json",
            "--events",
            "log.jsonl",
            "--root",
            ".",
            "src/ui/Footer.tsx",
            "src/ui/Header.tsx",
            "src/ui/Menu.tsx",
        ],
    );
    assert_eq!(code, 2, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["steps"].as_array().unwrap().len(), 3);
    assert!(doc["warnings"][0].as_str().unwrap().contains("log.jsonl"));
    assert_eq!(err.lines().count(), 1, "said once: {err}");
    assert!(
        err.starts_with("jit: error: cannot write the event log")
            && err.contains("log.jsonl: File too large"),
        "{err}"
    );
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

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let dir = demo();
    let paths: Vec<String> = (0..2_000).map(|i| format!("src/ui/F{i:04}.tsx")).collect();
    for json in [false, true] {
        let mut args = vec!["explain", "--root", "."];
        if json {
            args.push("--json");
        }
        args.extend(paths.iter().map(String::as_str));
        let (code, stderr) = crate::jit_closed_stdout(Some(dir.path()), &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "--json {json}");
    }
}

/// A directory name that would retitle the window, clear the screen and
/// start a line of its own if printed raw.
const EVIL: &str = "evil\x1b]0;title\x07\x1b[2J\nline";
const EVIL_SHOWN: &str = "evil\\e]0;title\\x07\\e[2J\\nline";

#[test]
fn control_characters_are_escaped_in_the_tables_only() {
    let dir = demo();
    fs::create_dir_all(dir.path().join(EVIL)).unwrap();
    fs::write(dir.path().join(EVIL).join("CLAUDE.md"), "evil rules\n").unwrap();
    fs::create_dir_all(dir.path().join(format!("{EVIL}/.claude/rules"))).unwrap();
    fs::write(
        dir.path().join(format!("{EVIL}/.claude/rules/r.md")),
        "---\npaths: [\"never/**\"]\n---\nx\n",
    )
    .unwrap();
    let touched = format!("{EVIL}/a.txt");
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["explain", "--root", ".", "--cwd", EVIL, &touched],
    );
    assert_eq!(code, 0, "{err}");
    crate::assert_no_control_characters(&out);
    assert!(out.contains(&format!("signals {EVIL_SHOWN}/")), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("  loaded   {EVIL_SHOWN}/CLAUDE.md "))),
        "{out}"
    );
    assert!(
        out.contains(&format!("step 1: {EVIL_SHOWN}/a.txt ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{EVIL_SHOWN}/.claude/rules/r.md  scope_miss")),
        "{out}"
    );

    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["explain", "--json", "--root", ".", "--cwd", EVIL, &touched],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["startup"]["signals"][0], format!("{EVIL}/"));
    assert_eq!(
        doc["startup"]["loaded"][1]["file"],
        format!("{EVIL}/CLAUDE.md")
    );
    assert_eq!(doc["steps"][0]["trigger"], touched);
}

#[test]
fn a_step_with_no_rows_says_which_rules_the_chain_already_has() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--root",
            ".",
            "a.txt",
            "src/ui/Footer.tsx",
            "src/ui/Badge.tsx",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("no rule files"), "{out}");
    assert!(
        out.contains("step 1: a.txt  (0 loaded, 0 skipped, ")
            && out.contains("  (nothing new: CLAUDE.md was loaded at startup)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "  (nothing new: CLAUDE.md was loaded at startup, \
             src/ui/CLAUDE.md was loaded at step 2)\n"
        ),
        "{out}"
    );

    // Only a chain where no rule file was ever seen has none.
    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = jit_in(
        Some(empty.path()),
        &["explain", "--no-startup", "--root", ".", "a.txt"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  (no rule files on this path's directory chain)\n"),
        "{out}"
    );
}

#[test]
fn warnings_of_rules_loaded_at_startup_are_shown() {
    let dir = demo();
    fs::write(
        dir.path().join("CLAUDE.md"),
        "---\npaths: []\n---\nroot rules\n",
    )
    .unwrap();
    let (code, out, err) = jit_in(Some(dir.path()), &["explain", "--root", ".", "a.txt"]);
    assert_eq!(code, 0, "{err}");
    let (startup, steps) = out.split_once("step 1:").unwrap();
    assert!(
        startup.contains("\n  warning: CLAUDE.md: `paths:` is empty"),
        "{out}"
    );
    assert!(!steps.contains("warning"), "{out}");

    // A rule loaded by a step has its warnings under that step.
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["explain", "--no-startup", "--root", ".", "a.txt"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\n  warning: CLAUDE.md: `paths:` is empty"),
        "{out}"
    );
}

#[test]
fn an_empty_path_is_a_usage_error() {
    let dir = demo();
    for args in [
        &["explain", "--root", ".", ""][..],
        &["explain", "--root", ".", "a.txt", ""],
        &["explain", "--root", "", "a.txt"],
        &["explain", "--managed", "", "--root", ".", "a.txt"],
    ] {
        let (code, out, err) = jit_in(Some(dir.path()), args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains("empty path"), "{args:?}: {err}");
    }
}

#[test]
fn a_relative_managed_file_is_read_from_the_current_directory() {
    let dir = demo();
    fs::write(dir.path().join("managed.md"), "managed rules\n").unwrap();
    let (code, out, err) = jit_in(
        Some(dir.path().join("src").as_path()),
        &[
            "explain",
            "--json",
            "--managed",
            "../managed.md",
            "--root",
            "..",
            "a.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["startup"]["loaded"][0]["tier"], "managed", "{doc:#}");
    assert_eq!(doc["startup"]["loaded"][0]["file"], "managed.md");
    assert!(doc.get("warnings").is_none(), "{doc:#}");
}

#[test]
fn a_missing_managed_file_is_a_warning() {
    let dir = demo();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &[
            "explain",
            "--json",
            "--managed",
            "m.md",
            "--root",
            ".",
            "a.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let missing = dir.path().canonicalize().unwrap().join("m.md");
    let warning = format!(
        "--managed m.md: {} does not exist; no managed rules are loaded",
        missing.display()
    );
    assert_eq!(err, format!("jit: warning: {warning}\n"));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["warnings"], serde_json::json!([warning]));
    assert_eq!(doc["startup"]["loaded"][0]["file"], "CLAUDE.md");
}

#[cfg(unix)]
#[test]
fn an_unreadable_directory_is_one_row_naming_it() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = demo();
    let locked = dir.path().join("src/locked");
    fs::create_dir_all(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    // Permissions do not bind the superuser: nothing to show then.
    let denied = fs::symlink_metadata(locked.join("CLAUDE.md"))
        .is_err_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied);
    let run = |json: bool| {
        let mut args = vec!["explain", "--no-startup", "--root", ".", "src/locked/a.txt"];
        if json {
            args.insert(1, "--json");
        }
        jit_in(Some(dir.path()), &args)
    };
    let (code, table, err) = run(false);
    let (_, json, _) = run(true);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 0, "{err}");
    if !denied {
        return;
    }
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let skipped = doc["steps"][0]["skipped"].as_array().unwrap();
    assert!(skipped.len() >= 2, "{doc:#}");
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("unreadable")).collect();
    assert_eq!(rows.len(), 1, "{table}");
    assert!(
        rows[0].contains("src/locked/  unreadable")
            && rows[0].contains(&format!("({} candidate files below it)", skipped.len())),
        "{table}"
    );
}

/// Without the startup load, detection looks only at the root and the
/// touched paths' chains, never the whole project: the decisions are those
/// of every convention named explicitly, and a convention that lives only
/// off the chain changes nothing.
#[test]
fn without_startup_detection_along_the_chain_decides_like_every_convention() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("CLAUDE.md", "root\n"),
        ("api/v1/AGENTS.md", "api\n"),
        ("api/v1/handler.ts", ""),
        ("web/GEMINI.md", "web\n"),
        (
            "web/.cursor/rules/ui.mdc",
            "---\nglobs: \"**/*.tsx\"\n---\nui\n",
        ),
    ] {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let run = |extra: &[&str]| {
        let mut args = vec!["explain", "--json", "--no-startup", "--root", "."];
        args.extend_from_slice(extra);
        args.push("api/v1/handler.ts");
        let (code, out, err) = jit_in(Some(root), &args);
        assert_eq!(code, 0, "{err}");
        let mut doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        doc["steps"][0]["elapsed_us"] = serde_json::Value::Null;
        doc
    };
    let detected = run(&[]);
    let loaded: Vec<&str> = detected["steps"][0]["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["file"].as_str().unwrap())
        .collect();
    assert_eq!(loaded, ["CLAUDE.md", "api/v1/AGENTS.md"]);
    assert_eq!(
        detected,
        run(&["--conventions", "claude,agents,gemini,cursor,copilot,cline"])
    );
}

/// The startup section prints the rule index, and says it is off with
/// `--no-index`; the startup load and the touches are the same either way.
#[test]
fn the_startup_index_is_printed_unless_turned_off() {
    let dir = demo();
    let run = |extra: &[&str]| {
        let mut args = vec!["explain", "--root", ".", "--managed", "/nonexistent"];
        args.extend_from_slice(extra);
        args.push("src/ui/README.md");
        let (code, out, err) = jit_in(Some(dir.path()), &args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let on = run(&[]);
    assert!(
        on.contains("  index (rules not loaded, found on demand):"),
        "{on}"
    );
    assert!(!on.contains("index: off"), "{on}");
    let off = run(&["--no-index"]);
    assert!(
        off.contains("  index: off (--no-index, or [index] enabled = false in jit.toml)"),
        "{off}"
    );
    assert!(!off.contains("index (rules not loaded"), "{off}");

    let json = |extra: &[&str]| {
        let mut doc: serde_json::Value =
            serde_json::from_str(&run(&[&["--json"][..], extra].concat())).unwrap();
        doc["startup"].as_object_mut().unwrap().remove("elapsed_us");
        doc["steps"][0]
            .as_object_mut()
            .unwrap()
            .remove("elapsed_us");
        doc
    };
    let (mut on, off) = (json(&[]), json(&["--no-index"]));
    assert!(
        on["startup"]["index"]
            .as_array()
            .is_some_and(|i| !i.is_empty()),
        "{on:#}"
    );
    on["startup"].as_object_mut().unwrap().remove("index");
    assert_eq!(off, on);
}
