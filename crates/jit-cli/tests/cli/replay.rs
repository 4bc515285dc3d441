//! Tests of `jit replay`: transcripts in each format replayed on a fixture project, the three-way summary, the HTML report, and the generic form against `jit explain`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::{jit, jit_in};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/replay")
        .join(name)
}

/// The project the fixture transcripts replay on.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in [
        "src/ui",
        "src/api",
        "src/db",
        "scripts",
        ".claude/rules",
        ".git",
    ] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join("CLAUDE.md"), "root rules\n").unwrap();
    fs::write(
        root.join("src/ui/CLAUDE.md"),
        "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nui rules\n",
    )
    .unwrap();
    fs::write(root.join("src/api/CLAUDE.md"), "api rules\n").unwrap();
    fs::write(root.join("src/db/CLAUDE.md"), "db rules\n").unwrap();
    fs::write(
        root.join(".claude/rules/py.md"),
        "---\npaths: \"**/*.py\"\n---\npy rules\n",
    )
    .unwrap();
    dir
}

fn replay_json(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["replay", "--json", "--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    let (code, out, err) = jit(&all);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    doc
}

/// Each step reduced to what the timeline asserts: step, tool, channel,
/// paths, and the loaded rules with their attribution.
fn timeline(doc: &Value) -> Vec<Value> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let loaded: Vec<Value> = s["loaded"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| json!([l["file"], l["attribution"], l["bytes"]]))
                .collect();
            json!({
                "step": s["step"],
                "tool": s["tool"],
                "channel": s["channel"],
                "paths": s["paths"],
                "loaded": loaded,
            })
        })
        .collect()
}

#[test]
fn a_claude_code_transcript_replays_batches_subagents_compaction_and_native_loads() {
    let dir = project();
    let doc = replay_json(
        dir.path(),
        &[fixture("claude-code/session.jsonl").to_str().unwrap()],
    );
    assert_eq!(
        timeline(&doc),
        [
            json!({"step": 0, "tool": "startup", "channel": "main", "paths": [],
                   "loaded": [["CLAUDE.md", "session_start", 11]]}),
            json!({"step": 1, "tool": "Read", "channel": "main", "paths": ["src/api/a.ts"],
                   "loaded": [["src/api/CLAUDE.md", "nested_traversal", 10]]}),
            json!({"step": 2, "tool": "Write+Edit", "channel": "main",
                   "paths": ["src/ui/B.tsx", "src/ui/C.tsx"],
                   "loaded": [["src/ui/CLAUDE.md", "path_glob_match", 9]]}),
            json!({"step": 3, "tool": "Read", "channel": "main", "paths": ["/etc/hosts"],
                   "loaded": []}),
            json!({"step": 4, "tool": "Task", "channel": "main", "paths": [], "loaded": []}),
            json!({"step": 5, "tool": "Write", "channel": "subagent:s1", "paths": ["src/ui/D.tsx"],
                   "loaded": [["CLAUDE.md", "session_start", 11],
                              ["src/ui/CLAUDE.md", "path_glob_match", 9]]}),
            json!({"step": 6, "tool": "Bash", "channel": "main", "paths": ["scripts/gen.py"],
                   "loaded": [[".claude/rules/py.md", "path_glob_match", 9]]}),
            json!({"step": 7, "tool": "mcp__tracker__create_issue", "channel": "main",
                   "paths": [], "loaded": []}),
        ]
    );
    assert_eq!(doc["steps"][3]["skipped"][0]["reason"], "outside_root");
    let s = &doc["summary"];
    assert_eq!(s["calls"], 8);
    assert_eq!(s["batches"], 7);
    assert_eq!(s["unknown_tools"], json!({"mcp__tracker__create_issue": 1}));
    // The comment line, the line cut short and the unknown record type.
    assert_eq!(s["skipped_records"], 3);
    assert_eq!(s["compactions"], 1);
    assert_eq!(s["outside_root"], 1);
    assert_eq!(s["channels"], json!(["main", "subagent:s1"]));
    assert_eq!(s["format"], "claude-code");
    assert_eq!(s["native"], json!({"known": true, "rules": 1, "bytes": 10}));
    // Eager: all five rule files, whole, at each of the 7 steps.
    let eager_bytes: u64 = [
        "CLAUDE.md",
        "src/ui/CLAUDE.md",
        "src/api/CLAUDE.md",
        "src/db/CLAUDE.md",
        ".claude/rules/py.md",
    ]
    .iter()
    .map(|f| fs::metadata(dir.path().join(f)).unwrap().len())
    .sum();
    assert_eq!(
        s["eager"],
        json!({"rules": 5, "bytes": eager_bytes, "resident_byte_steps": eager_bytes * 7})
    );
    assert_eq!(s["jit"]["rules"], 4);
    assert_eq!(s["jit"]["bytes"], 11 + 10 + 9 + 11 + 9 + 9);
    assert_eq!(s["jit"]["never_relevant"], 1);
    // Native loading read src/api/CLAUDE.md itself; the write in src/ui and
    // the shell write of a Python file brought rules it never loaded.
    assert_eq!(
        s["missed_by_native"],
        json!([
            {"file": "src/ui/CLAUDE.md", "first_step": 2, "trigger": "src/ui/B.tsx"},
            {"file": ".claude/rules/py.md", "first_step": 6, "trigger": "scripts/gen.py"},
        ])
    );
}

#[test]
fn the_compaction_brings_a_rule_back_on_its_next_touch() {
    let dir = project();
    let transcript = dir.path().join("t.jsonl");
    fs::write(
        &transcript,
        [
            r#"{"tool":"write","input":{"file_path":"src/ui/A.tsx","content":""}}"#,
            r#"{"tool":"write","input":{"file_path":"src/ui/B.tsx","content":""}}"#,
            r#"{"compact":true}"#,
            r#"{"tool":"write","input":{"file_path":"src/ui/C.tsx","content":""}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let doc = replay_json(dir.path(), &["--no-startup", transcript.to_str().unwrap()]);
    let loaded: Vec<usize> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["loaded"].as_array().unwrap().len())
        .collect();
    // The root rule and the UI rule; nothing on the sibling; both again
    // after the compaction.
    assert_eq!(loaded, [2, 0, 2]);
    assert_eq!(doc["steps"][1]["skipped"][0]["reason"], "already_loaded");
    assert_eq!(doc["summary"]["compactions"], 1);
    // Native loading is unknown for the generic form: nothing is claimed missed.
    assert_eq!(doc["summary"]["native"]["known"], false);
    assert_eq!(doc["summary"]["missed_by_native"], json!([]));
}

#[test]
fn a_codex_rollout_replays_shell_runs_and_patches() {
    let dir = project();
    let doc = replay_json(
        dir.path(),
        &[
            fixture("codex/rollout-2026-11-30T11-00-01-0199-codex.jsonl")
                .to_str()
                .unwrap(),
        ],
    );
    assert_eq!(
        timeline(&doc),
        [
            json!({"step": 0, "tool": "startup", "channel": "main", "paths": [],
                   "loaded": [["CLAUDE.md", "session_start", 11]]}),
            json!({"step": 1, "tool": "Bash", "channel": "main", "paths": ["src/api/n.ts"],
                   "loaded": [["src/api/CLAUDE.md", "nested_traversal", 10]]}),
            json!({"step": 2, "tool": "apply_patch", "channel": "main", "paths": ["src/db/x.sql"],
                   "loaded": [["src/db/CLAUDE.md", "nested_traversal", 9]]}),
            json!({"step": 3, "tool": "Bash", "channel": "main", "paths": ["src/ui/Z.tsx"],
                   "loaded": [["src/ui/CLAUDE.md", "path_glob_match", 9]]}),
            json!({"step": 4, "tool": "view_image", "channel": "main", "paths": [], "loaded": []}),
        ]
    );
    let s = &doc["summary"];
    assert_eq!(s["format"], "codex");
    assert_eq!(s["calls"], 4);
    assert_eq!(s["unknown_tools"], json!({"view_image": 1}));
    assert_eq!(s["skipped_records"], 1);
    assert_eq!(s["compactions"], 1);
    assert_eq!(s["native"]["known"], false);
}

#[test]
fn the_generic_form_replays_batches_channels_and_compactions() {
    let dir = project();
    let doc = replay_json(
        dir.path(),
        &[
            "--format",
            "generic",
            fixture("generic/calls.jsonl").to_str().unwrap(),
        ],
    );
    assert_eq!(
        timeline(&doc),
        [
            json!({"step": 0, "tool": "startup", "channel": "main", "paths": [],
                   "loaded": [["CLAUDE.md", "session_start", 11]]}),
            json!({"step": 1, "tool": "read", "channel": "main", "paths": ["src/api/a.ts"],
                   "loaded": [["src/api/CLAUDE.md", "nested_traversal", 10]]}),
            json!({"step": 2, "tool": "write+edit", "channel": "main",
                   "paths": ["src/ui/B.tsx", "src/ui/C.tsx"],
                   "loaded": [["src/ui/CLAUDE.md", "path_glob_match", 9]]}),
            json!({"step": 3, "tool": "write", "channel": "subagent:t1", "paths": ["src/ui/D.tsx"],
                   "loaded": [["CLAUDE.md", "session_start", 11],
                              ["src/ui/CLAUDE.md", "path_glob_match", 9]]}),
            json!({"step": 4, "tool": "frobnicate", "channel": "main", "paths": [], "loaded": []}),
            json!({"step": 5, "tool": "read", "channel": "main", "paths": ["/etc/hosts"],
                   "loaded": []}),
        ]
    );
    let s = &doc["summary"];
    assert_eq!(s["unknown_tools"], json!({"frobnicate": 1}));
    assert_eq!(s["skipped_records"], 1);
    assert_eq!(s["outside_root"], 1);
}

/// Eager and JIT byte arithmetic, by hand, on a three-rule project.
#[test]
fn eager_and_jit_bytes_add_up_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("a")).unwrap();
    fs::create_dir_all(root.join("b")).unwrap();
    fs::write(root.join("CLAUDE.md"), "r".repeat(99) + "\n").unwrap(); // 100 B
    fs::write(root.join("a/CLAUDE.md"), "a".repeat(199) + "\n").unwrap(); // 200 B
    fs::write(root.join("b/CLAUDE.md"), "b".repeat(299) + "\n").unwrap(); // 300 B
    let transcript = root.join("t.jsonl");
    fs::write(
        &transcript,
        [
            r#"{"tool":"read","input":{"file_path":"a/x.txt"}}"#,
            r#"{"tool":"read","input":{"file_path":"a/y.txt"}}"#,
            r#"{"tool":"read","input":{"file_path":"a/z.txt"}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let doc = replay_json(root, &[transcript.to_str().unwrap()]);
    let s = &doc["summary"];
    // Eager: 600 B resident at each of 3 steps.
    assert_eq!(
        s["eager"],
        json!({"rules": 3, "bytes": 600, "resident_byte_steps": 1800})
    );
    // JIT: the root rule at startup (100), a/CLAUDE.md at step 1 (200):
    // 300 B resident at steps 1, 2 and 3.
    assert_eq!(
        s["jit"],
        json!({"rules": 2, "bytes": 300, "resident_p50": 300, "resident_max": 300,
               "resident_byte_steps": 900, "never_relevant": 1})
    );
    let resident: Vec<u64> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resident_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(resident, [100, 300, 300, 300]);
}

/// A transcript recorded in another checkout replays on `--root`: paths
/// under its session directory, in inputs and in shell commands, are mapped.
#[test]
fn a_transcript_from_elsewhere_is_mapped_onto_the_root() {
    let dir = project();
    let doc = replay_json(
        dir.path(),
        &[fixture("claude-code/session.jsonl").to_str().unwrap()],
    );
    assert_eq!(
        doc["summary"]["root"],
        dir.path().canonicalize().unwrap().to_str().unwrap()
    );
    assert_eq!(doc["steps"][1]["paths"], json!(["src/api/a.ts"]));

    // Without the mapping (another --map wins for that prefix), the recorded
    // paths are outside the root and bring nothing.
    let elsewhere = tempfile::tempdir().unwrap();
    let doc = replay_json(
        dir.path(),
        &[
            "--map",
            &format!("/recorded/proj={}", elsewhere.path().display()),
            fixture("claude-code/session.jsonl").to_str().unwrap(),
        ],
    );
    assert_eq!(doc["summary"]["jit"]["rules"], 1, "only the startup rule");
    assert!(doc["summary"]["outside_root"].as_u64().unwrap() >= 4);
}

#[test]
fn the_human_report_shows_the_timeline_the_strategies_and_the_misses() {
    let dir = project();
    let (code, out, err) = jit(&[
        "replay",
        "--root",
        dir.path().to_str().unwrap(),
        fixture("claude-code/session.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "+ src/ui/CLAUDE.md (path_glob_match, 9 B)",
        "eager",
        "native",
        "jit",
        "Missed by native loading (2)",
        "src/ui/CLAUDE.md  first at step 2 (src/ui/B.tsx)",
        "mcp__tracker__create_issue ×1",
        "3 transcript record(s) malformed or of an unknown type, skipped",
        "bytes ÷ 4",
    ] {
        assert!(out.contains(needle), "{needle:?} not in:\n{out}");
    }
    crate::assert_no_control_characters(&out);
}

#[test]
fn the_html_report_is_self_contained_with_chart_timeline_and_misses() {
    let dir = project();
    let html = dir.path().join("report.html");
    let (code, _, err) = jit(&[
        "replay",
        "--root",
        dir.path().to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        fixture("claude-code/session.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let page = fs::read_to_string(&html).unwrap();
    for needle in [
        "<svg id=\"chart\"",
        "<polyline id=\"eager\"",
        "<polyline id=\"jit\"",
        "<table id=\"timeline\"",
        "<table id=\"missed\"",
        "<tr id=\"step-2\" class=\"inject\">",
        "src/ui/CLAUDE.md",
    ] {
        assert!(page.contains(needle), "{needle:?} not in the page");
    }
    // Nothing to run and nothing to fetch.
    assert!(!page.contains("<script"));
    assert!(!page.contains("src=\""));
    assert!(!page.contains("href=\"http"));
    if let Some(browser) = chromium() {
        assert_drawn_in_a_browser(&browser, &page, dir.path());
    } else {
        eprintln!(
            "skipped the browser check: no chromium on PATH (install the Debian package `chromium`)"
        );
    }
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Opens the page in headless Chromium with a probe appended that measures
/// the drawn chart (the report itself holds no script), and reads the
/// measures back from the dumped DOM.
fn assert_drawn_in_a_browser(browser: &Path, page: &str, dir: &Path) {
    let probe = "<script>document.title='drawn '+Math.round(document.getElementById('jit').getTotalLength())+' '+Math.round(document.getElementById('chart').getBBox().width);</script>";
    let probed = dir.join("probed.html");
    fs::write(&probed, page.replace("</body>", &format!("{probe}</body>"))).unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--dump-dom",
        ])
        .arg(format!("file://{}", probed.display()))
        .env("HOME", dir)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or("");
    let numbers: Vec<u64> = title
        .strip_prefix("drawn ")
        .unwrap_or_else(|| {
            panic!(
                "the probe did not run: {title:?}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(
        numbers[0] > 100,
        "the JIT line is {} units long",
        numbers[0]
    );
    assert!(numbers[1] > 100, "the chart is {} units wide", numbers[1]);
}

/// What `jit explain --events` saw for a list of paths, replayed from the
/// generic form, gives the same decisions.
#[test]
fn the_generic_form_round_trips_what_explain_saw() {
    let dir = project();
    let paths = [
        "src/api/a.ts",
        "src/ui/B.tsx",
        "src/ui/C.tsx",
        "scripts/gen.py",
    ];
    let explain_events = dir.path().join("explain.jsonl");
    let mut args = vec![
        "explain",
        "--no-startup",
        "--root",
        ".",
        "--events",
        explain_events.to_str().unwrap(),
    ];
    args.extend(paths);
    let (code, _, err) = jit_in(Some(dir.path()), &args);
    assert_eq!(code, 0, "{err}");

    let transcript = dir.path().join("calls.jsonl");
    let lines: Vec<String> = paths
        .iter()
        .map(|p| json!({"tool": "read", "input": {"file_path": p}}).to_string())
        .collect();
    fs::write(&transcript, lines.join("\n")).unwrap();
    let replay_events = dir.path().join("replay.jsonl");
    let (code, _, err) = jit_in(
        Some(dir.path()),
        &[
            "replay",
            "--json",
            "--no-startup",
            "--root",
            ".",
            "--events",
            replay_events.to_str().unwrap(),
            transcript.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let decisions = |file: &Path| -> Vec<Value> {
        fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|e| {
                json!({
                    "trigger": e["trigger"],
                    "loaded": e["loaded"].as_array().map(|l| l.iter().map(|r| r["file"].clone()).collect::<Vec<_>>()),
                })
            })
            .collect()
    };
    let seen = decisions(&explain_events);
    assert_eq!(seen.len(), 4);
    assert_eq!(decisions(&replay_events), seen);
}

/// `--events FILE` that cannot take the events is an error (exit 2) naming
/// it and why: at once for a device, at the end for a write that failed
/// during the run (a full disk; here, the file size limit).
#[test]
fn an_event_log_that_cannot_be_written_is_an_error() {
    let (code, out, err) = jit(&["replay", "--events", "/dev/full"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("jit: error: cannot write the event log /dev/full")
            && err.contains("not a regular file (a device)"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = crate::jit_file_size_limit(
        Some(dir.path()),
        1,
        &["replay", "--json", "--events", "events.jsonl"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("jit: error: cannot replay")
            && err.contains("cannot write the event log")
            && err.contains("events.jsonl: File too large"),
        "{err}"
    );
    // The same replay, unlimited, writes them all.
    let (code, _, err) = jit_in(
        Some(dir.path()),
        &["replay", "--json", "--events", "events.jsonl"],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_bundled_demo_replays_with_no_transcript() {
    let (code, out, err) = jit(&["replay", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let s = &doc["summary"];
    assert!(s["channels"].as_array().unwrap().len() >= 2, "a sub-agent");
    assert!(s["compactions"].as_u64().unwrap() >= 1);
    assert!(s["native"]["known"].as_bool().unwrap());
    assert!(!s["missed_by_native"].as_array().unwrap().is_empty());
    assert!(s["jit"]["never_relevant"].as_u64().unwrap() >= 1);
    assert!(
        doc["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|step| step["tools"].as_array().unwrap().len() >= 2),
        "a parallel batch"
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    let dir = project();
    let missing = dir.path().join("missing.jsonl");
    let (code, _, err) = jit(&["replay", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot open"), "{err}");
    let (code, _, err) = jit(&["replay", "--map", "nothing", "x.jsonl"]);
    assert_eq!(code, 2);
    assert!(err.contains("FROM=TO"), "{err}");
}

/// A call whose input its reporter rejects is counted; the other calls of
/// its batch still run.
#[test]
fn a_malformed_call_is_counted_and_its_batch_mates_still_run() {
    let dir = project();
    let transcript = dir.path().join("t.jsonl");
    fs::write(
        &transcript,
        [
            r#"{"tool":"read","input":{"no_path_here":1},"batch":1}"#,
            r#"{"tool":"read","input":{"file_path":"src/api/a.ts"},"batch":1}"#,
            r#"{"tool":"read","input":{"file_path":7}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let doc = replay_json(dir.path(), &["--no-startup", transcript.to_str().unwrap()]);
    assert_eq!(doc["summary"]["malformed_calls"], 2);
    assert_eq!(doc["summary"]["calls"], 3);
    assert_eq!(doc["steps"][0]["tool"], "read+read");
    assert_eq!(doc["steps"][0]["paths"], json!(["src/api/a.ts"]));
    assert_eq!(doc["steps"][1]["paths"], json!([]));
}

/// One Claude Code assistant record holding one tool call.
fn claude_call(
    t: u32,
    message: &str,
    cwd: &str,
    tool: &str,
    input: Value,
    side: Option<&str>,
) -> String {
    let mut record = json!({
        "type": "assistant", "sessionId": "s-old", "cwd": cwd, "uuid": format!("u{t}"),
        "isSidechain": side.is_some(),
        "timestamp": format!("2026-11-30T10:00:{t:02}.000Z"),
        "message": {"id": message, "role": "assistant",
                    "content": [{"type": "tool_use", "id": format!("t{t}"), "name": tool, "input": input}]},
    });
    if let Some(agent) = side {
        record["agentId"] = json!(agent);
    }
    record.to_string()
}

/// Older Claude Code versions: a sub-agent's transcript `agent-<id>.jsonl`
/// beside the session's, or its records inline with `isSidechain: true`;
/// and a `cwd` that changes when the agent moves.
#[test]
fn older_sub_agent_layouts_and_a_moving_cwd_replay_on_their_channels() {
    let dir = project();
    let root = dir.path().to_str().unwrap().to_owned();
    let logs = tempfile::tempdir().unwrap();
    let session = logs.path().join("s-old.jsonl");
    fs::write(
        &session,
        [
            claude_call(
                1,
                "m1",
                &root,
                "Write",
                json!({"file_path": format!("{root}/src/ui/A.tsx")}),
                None,
            ),
            // Inline sidechain records, with their agent id.
            claude_call(
                3,
                "m2",
                &root,
                "Write",
                json!({"file_path": format!("{root}/src/ui/B.tsx")}),
                Some("inline1"),
            ),
            // The agent moved to src/: a relative path resolves there.
            claude_call(
                5,
                "m3",
                &format!("{root}/src"),
                "Bash",
                json!({"command": "echo 1 > db/q.sql"}),
                None,
            ),
        ]
        .join("\n"),
    )
    .unwrap();
    // An older sub-agent file beside the session, timed between m1 and m2.
    fs::write(
        logs.path().join("agent-beside1.jsonl"),
        claude_call(
            2,
            "m9",
            &root,
            "Read",
            json!({"file_path": format!("{root}/src/api/x.ts")}),
            Some("beside1"),
        ),
    )
    .unwrap();
    // A sub-agent file of another session is not this session's.
    fs::write(
        logs.path().join("agent-other.jsonl"),
        claude_call(
            4,
            "m8",
            &root,
            "Read",
            json!({"file_path": format!("{root}/src/db/y.sql")}),
            None,
        )
        .replace("s-old", "s-other"),
    )
    .unwrap();
    let doc = replay_json(dir.path(), &["--no-startup", session.to_str().unwrap()]);
    let steps: Vec<(String, String, Value)> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["channel"].as_str().unwrap().to_owned(),
                s["tool"].as_str().unwrap().to_owned(),
                s["paths"].clone(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            (
                "main".to_owned(),
                "Write".to_owned(),
                json!(["src/ui/A.tsx"])
            ),
            (
                "subagent:beside1".to_owned(),
                "Read".to_owned(),
                json!(["src/api/x.ts"])
            ),
            (
                "subagent:inline1".to_owned(),
                "Write".to_owned(),
                json!(["src/ui/B.tsx"])
            ),
            (
                "main".to_owned(),
                "Bash".to_owned(),
                json!(["src/db/q.sql"])
            ),
        ]
    );
    assert_eq!(
        doc["summary"]["channels"],
        json!(["main", "subagent:beside1", "subagent:inline1"])
    );
}

/// The median and the bounds of what eager loading counts: rule folders
/// hold only their suffix's files, a rule's imports are inlined, the walk
/// stops 64 directories down.
#[test]
fn the_resident_median_and_eager_counting_follow_their_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("a")).unwrap();
    fs::create_dir_all(root.join("b")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(root.join("CLAUDE.md"), "r".repeat(99) + "\n").unwrap(); // 100 B
    fs::write(root.join("a/CLAUDE.md"), "a".repeat(199) + "\n").unwrap(); // 200 B
    fs::write(root.join("b/CLAUDE.md"), "b".repeat(299) + "\n").unwrap(); // 300 B
    // Not a rule: a rule folder holds `.md` files only.
    fs::write(root.join(".claude/rules/notes.txt"), "not a rule\n").unwrap();
    // A rule 70 directories down is past the eager walk's depth.
    let deep: PathBuf = (0..70).map(|i| format!("d{i}")).collect();
    fs::create_dir_all(root.join(&deep)).unwrap();
    fs::write(root.join(&deep).join("CLAUDE.md"), "deep\n").unwrap();
    let transcript = root.join("t.jsonl");
    let reads: Vec<String> = [
        "r1.txt", "r2.txt", "a/x.txt", "b/x.txt", "b/y.txt", "b/z.txt",
    ]
    .iter()
    .map(|p| json!({"tool": "read", "input": {"file_path": p}}).to_string())
    .collect();
    fs::write(&transcript, reads.join("\n")).unwrap();
    let doc = replay_json(root, &[transcript.to_str().unwrap()]);
    let resident: Vec<u64> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resident_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(resident, [100, 100, 100, 300, 600, 600, 600]);
    // Sorted steps 1..=6: [100, 100, 300, 600, 600, 600]; the lower median.
    assert_eq!(doc["summary"]["jit"]["resident_p50"], 300);
    assert_eq!(doc["summary"]["jit"]["resident_max"], 600);
    assert_eq!(doc["summary"]["eager"]["rules"], 3);
    assert_eq!(doc["summary"]["eager"]["bytes"], 600);

    // With an import, eager counts the rule as it is loaded: imports inlined.
    fs::write(root.join("docs/style.md"), "style rules\n").unwrap();
    fs::write(root.join("CLAUDE.md"), "See @docs/style.md\n").unwrap();
    let doc = replay_json(root, &[transcript.to_str().unwrap()]);
    let startup_bytes = doc["steps"][0]["loaded"][0]["bytes"].as_u64().unwrap();
    assert!(startup_bytes > 19, "the import is inlined: {startup_bytes}");
    assert_eq!(doc["summary"]["eager"]["bytes"], startup_bytes + 500);
}

/// Runs `jit` like [`crate::jit_env`], but kills it after 30 s: a refusal
/// under test must not hang the suite on what it refuses (a named pipe, a
/// walk of the whole file system). Returns (exit code, stdout, stderr).
fn jit_bounded(dir: Option<&Path>, env: &[(&str, &Path)], args: &[&str]) -> (i32, String, String) {
    use std::io::Read as _;
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let (mut cmd, _home) = crate::command(dir, env, args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // Read as it comes, so that a full pipe cannot stall the run.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("jit {args:?} was still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap_or(-1),
        stdout.join().unwrap(),
        stderr.join().unwrap(),
    )
}

/// A generic-form call reading `file` under `root`.
fn generic_read(root: &Path, file: &str) -> String {
    json!({"tool": "read", "input": {"file_path": root.join(file)}}).to_string()
}

/// A line over the cap (a tool result of 64 MiB and more) is read past
/// without being held or parsed, and said: in the JSON `lines_over_cap`
/// (also counted in `skipped_records`) and in a note.
#[test]
fn a_line_over_the_cap_is_read_past_and_counted_visibly() {
    let dir = project();
    let logs = tempfile::tempdir().unwrap();
    let transcript = logs.path().join("calls.jsonl");
    let mut text = generic_read(dir.path(), "src/api/a.ts").into_bytes();
    text.push(b'\n');
    // A call that would touch src/db if it were read: one byte over the cap.
    let huge = format!(
        r#"{{"tool":"read","input":{{"file_path":"{}/src/db/"#,
        dir.path().display()
    );
    let cap = 64 * 1024 * 1024;
    let start = text.len();
    text.extend_from_slice(huge.as_bytes());
    text.resize(start + cap - 2, b'a');
    text.extend_from_slice(b"\"}}");
    assert_eq!(text.len() - start, cap + 1);
    text.push(b'\n');
    text.extend_from_slice(generic_read(dir.path(), "src/ui/B.tsx").as_bytes());
    text.push(b'\n');
    fs::write(&transcript, &text).unwrap();

    let doc = replay_json(dir.path(), &["--no-startup", transcript.to_str().unwrap()]);
    let s = &doc["summary"];
    assert_eq!(s["lines_over_cap"], 1, "{s:#}");
    assert_eq!(s["skipped_records"], 1, "{s:#}");
    assert_eq!(s["calls"], 2, "{s:#}");
    let paths: Vec<&Value> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["paths"])
        .collect();
    assert_eq!(paths, [&json!(["src/api/a.ts"]), &json!(["src/ui/B.tsx"])]);

    let root = dir.path().to_str().unwrap();
    let args = [
        "replay",
        "--no-startup",
        "--root",
        root,
        transcript.to_str().unwrap(),
    ];
    let (code, out, err) = jit(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: 1 of them longer than the line cap (64 MiB), read past unparsed"),
        "{out}"
    );
}

/// `jit replay` reads transcripts from regular files only: a device (whose
/// endless line once ended in "memory allocation of 2147352576 bytes
/// failed"), a named pipe (which would block the open) and a directory are
/// refused at once, saying what they are.
#[cfg(unix)]
#[test]
fn a_device_a_named_pipe_or_a_directory_is_refused_as_a_transcript() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let fifo = logs.path().join("session.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let link = logs.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let fifo = fifo.to_str().unwrap();
    let link = link.to_str().unwrap();
    let logs_dir = logs.path().to_str().unwrap();
    for (transcript, what) in [
        ("/dev/zero", "a device"),
        (link, "a device"),
        (fifo, "a named pipe"),
        (logs_dir, "a directory"),
    ] {
        for format in ["auto", "claude-code", "codex", "generic"] {
            let args = ["replay", "--root", root, "--format", format, transcript];
            let (code, out, err) = jit_bounded(None, &[], &args);
            assert_eq!(code, 2, "{transcript} as {format}: {out} {err}");
            assert_eq!(
                err,
                format!(
                    "jit: error: transcript {transcript} is not a regular file ({what}): jit replay \
                     reads transcripts from regular files only (save it to a file and give that)\n"
                ),
                "{transcript} as {format}"
            );
        }
    }
}

/// Sub-agent transcripts found beside a Claude Code session go through the
/// same checks: one that is a named pipe, in either layout, is refused by
/// name, never opened blocking and never passed over in silence.
#[cfg(unix)]
#[test]
fn a_sub_agent_transcript_that_is_not_a_regular_file_is_refused_by_name() {
    let dir = project();
    let root = dir.path().to_str().unwrap().to_owned();
    let mkfifo = |path: &Path| {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .unwrap()
                .success()
        );
    };
    let call = claude_call(
        1,
        "m1",
        &root,
        "Read",
        json!({"file_path": format!("{root}/src/api/a.ts")}),
        None,
    );
    // Current versions: `<session>/subagents/agent-<id>.jsonl`.
    let nested = tempfile::tempdir().unwrap();
    let session = nested.path().join("s-old.jsonl");
    fs::write(&session, &call).unwrap();
    let pipe = nested.path().join("s-old/subagents/agent-p1.jsonl");
    mkfifo(&pipe);
    // Older versions: `agent-<id>.jsonl` beside the session.
    let beside = tempfile::tempdir().unwrap();
    let old_session = beside.path().join("s-old.jsonl");
    fs::write(&old_session, &call).unwrap();
    let old_pipe = beside.path().join("agent-p2.jsonl");
    mkfifo(&old_pipe);
    for (session, pipe) in [(&session, &pipe), (&old_session, &old_pipe)] {
        let args = ["replay", "--root", &root, session.to_str().unwrap()];
        let (code, out, err) = jit_bounded(None, &[], &args);
        assert_eq!(code, 2, "{out} {err}");
        assert!(
            err.starts_with(&format!(
                "jit: error: sub-agent transcript {} is not a regular file (a named pipe): ",
                pipe.display()
            )),
            "{err}"
        );
        // Once it is a file, the session replays with it.
        fs::remove_file(pipe).unwrap();
        fs::write(pipe, "").unwrap();
        let doc = replay_json(dir.path(), &[session.to_str().unwrap()]);
        assert_eq!(doc["summary"]["calls"], 1);
    }
}

/// A transcript's `cwd` is foreign input: as the default root, `/`, the
/// home directory and any directory above it are refused (replaying there
/// walks all of it), and so is the current directory taken in place of a
/// `cwd` that is not here, when it is one of those. `--root` names such a
/// root when it is meant, as the message says.
#[test]
fn a_root_of_slash_or_a_home_directory_is_refused_unless_named() {
    let dir = project();
    let base = tempfile::tempdir().unwrap();
    let base_dir = base.path().canonicalize().unwrap();
    let home = base_dir.join("home");
    fs::create_dir_all(home.join("notes")).unwrap();
    fs::write(home.join("CLAUDE.md"), "home rules\n").unwrap();
    let logs = tempfile::tempdir().unwrap();
    let transcript = |name: &str, cwd: &Path| -> PathBuf {
        let path = logs.path().join(name);
        let cwd = cwd.to_str().unwrap();
        let call = json!({"tool": "read", "cwd": cwd, "input": {"file_path": "notes/a.md"}});
        fs::write(&path, call.to_string()).unwrap();
        path
    };
    let env = [("HOME", home.as_path())];
    let refused = |transcript: &Path, current: Option<&Path>, message: &str| {
        let args = ["replay", "--json", transcript.to_str().unwrap()];
        let (code, out, err) = jit_bounded(current, &env, &args);
        assert_eq!(code, 2, "{out} {err}");
        assert_eq!(err, format!("jit: error: {message}\n"));
    };

    let slash = transcript("slash.jsonl", Path::new("/"));
    refused(
        &slash,
        None,
        "the root /, taken from the transcript's working directory /, is the file system root: \
         replaying there would walk all of it; give the checkout with --root DIR \
         (--root / replays there anyway)",
    );
    let at_home = transcript("home.jsonl", &home);
    let h = home.display();
    refused(
        &at_home,
        None,
        &format!(
            "the root {h}, taken from the transcript's working directory {h}, is the home \
             directory ({h}): replaying there would walk all of it; give the checkout with \
             --root DIR (--root {h} replays there anyway)"
        ),
    );
    let above = transcript("above.jsonl", &base_dir);
    let b = base_dir.display();
    refused(
        &above,
        None,
        &format!(
            "the root {b}, taken from the transcript's working directory {b}, is above the home \
             directory ({h}): replaying there would walk all of it; give the checkout with \
             --root DIR (--root {b} replays there anyway)"
        ),
    );
    // A `cwd` that is not here: the current directory, the home directory.
    let gone = transcript("gone.jsonl", Path::new("/nonexistent/jit-test"));
    refused(
        &gone,
        Some(&home),
        &format!(
            "the root {h}, taken from the current directory, as the transcript's working \
             directory /nonexistent/jit-test is not here, is the home directory ({h}): replaying \
             there would walk all of it; give the checkout with --root DIR (--root {h} replays \
             there anyway)"
        ),
    );

    // Named with --root: replayed there.
    for transcript in [&at_home, &gone] {
        let args = [
            "replay",
            "--json",
            "--root",
            home.to_str().unwrap(),
            transcript.to_str().unwrap(),
        ];
        let (code, out, err) = jit_bounded(None, &env, &args);
        assert_eq!(code, 0, "{err}");
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["summary"]["root"], home.to_str().unwrap());
        assert_eq!(doc["summary"]["eager"]["rules"], 1, "{doc:#}");
    }
    // A transcript recorded at `/`, replayed on a checkout: its paths stay
    // as they are (outside the root), none mangled by mapping `/`.
    let root = dir.path().to_str().unwrap();
    let args = ["replay", "--json", "--root", root, slash.to_str().unwrap()];
    let (code, out, err) = jit_bounded(None, &env, &args);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["steps"][1]["paths"], json!(["/notes/a.md"]), "{doc:#}");
    assert_eq!(doc["summary"]["outside_root"], 1);
}
