//! Tests of `jit paths`: the registered reporters answer through the command line, and unknown tools and malformed input fail loudly.

use serde_json::{Value, json};

/// Runs `jit paths --json` and checks the answer's `paths` and `skipped`.
#[track_caller]
fn check(tool: &str, input: Value, paths: Value, skipped: Value) {
    let input = input.to_string();
    let (code, stdout, stderr) = crate::jit(&[
        "paths", "--json", "--tool", tool, "--input", &input, "--cwd", "/project",
    ]);
    assert_eq!(code, 0, "stderr: {stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["tool"], tool);
    assert_eq!(output["cwd"], "/project");
    assert_eq!(output["paths"], paths, "{tool} {input}");
    assert_eq!(output["skipped"], skipped, "{tool} {input}");
}

#[test]
fn the_designs_answers_as_json() {
    check(
        "glob",
        json!({"pattern": "src/ui/**/*.tsx"}),
        json!(["src/ui"]),
        json!([]),
    );
    check(
        "glob",
        json!({"pattern": "src/api/*.ts"}),
        json!(["src/api"]),
        json!([]),
    );
    check(
        "glob",
        json!({"pattern": "**/*.ts"}),
        json!([]),
        json!([{"word": "**/*.ts", "reason": "no_static_prefix"}]),
    );
    check(
        "grep",
        json!({"path": "src", "pattern": "ui/**"}),
        json!(["src"]),
        json!([]),
    );
    check(
        "grep",
        json!({"pattern": r"src/\w+\.ts"}),
        json!([]),
        json!([]),
    );
    check(
        "read",
        json!({"file_path": "./src/ui/Footer.tsx"}),
        json!(["src/ui/Footer.tsx"]),
        json!([]),
    );
    check(
        "bash",
        json!({"command": "cp a.ts b.ts src/ui/ && echo x > $OUT"}),
        json!(["src/ui/"]),
        json!([{"word": "$OUT", "reason": "variable"}]),
    );
    check(
        "web_fetch",
        json!({"url": "https://example.com"}),
        json!([]),
        json!([]),
    );
}

#[test]
fn human_output_is_one_path_per_line_with_skips_on_stderr() {
    let (code, stdout, stderr) = crate::jit(&[
        "paths",
        "--tool",
        "read_many",
        "--input",
        r#"{"paths": ["src/a.rs", "./docs/b.md"]}"#,
    ]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (0, "src/a.rs\ndocs/b.md\n", "")
    );

    let (code, stdout, stderr) = crate::jit(&[
        "paths",
        "--tool",
        "bash",
        "--input",
        r#"{"command": "rm src/old.ts"}"#,
    ]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (0, "", "skipped rm (delete)\n")
    );
}

#[test]
fn the_cwd_defaults_to_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = crate::jit_in(
        Some(dir.path()),
        &[
            "paths",
            "--json",
            "--tool",
            "ls",
            "--input",
            r#"{"path": "src"}"#,
        ],
    );
    assert_eq!(code, 0, "stderr: {stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    let expected = dir.path().canonicalize().unwrap();
    assert_eq!(
        std::path::Path::new(output["cwd"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        expected
    );
}

#[test]
fn an_unknown_tool_fails_listing_the_registered_tools() {
    let (code, stdout, stderr) = crate::jit(&[
        "paths",
        "--tool",
        "mcp_read",
        "--input",
        r#"{"path": "src/a.rs"}"#,
    ]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(stderr.contains("unregistered tool `mcp_read`"), "{stderr}");
    assert!(
        stderr.contains(
            "registered tools: apply_patch, ask_user, bash, bash_output, edit, exit_plan_mode, \
             gemini_glob, glob, grep, grep_search, kill_shell, list_directory, ls, lsp, \
             notebook_edit, read, read_many, read_many_files, run_shell_command, save_memory, \
             skill, task, todo_write, update_plan, web_fetch, web_search, write"
        ),
        "{stderr}"
    );
}

#[test]
fn malformed_input_fails_naming_the_tool_and_the_field() {
    for (tool, input, message) in [
        (
            "read",
            r#"{"path": "src/a.rs"}"#,
            "tool `read`: field `file_path`: missing",
        ),
        (
            "glob",
            r#"{"pattern": 3}"#,
            "tool `glob`: field `pattern`: expected a string, got a number",
        ),
        (
            "read_many",
            r#"{"paths": ["a", null]}"#,
            "tool `read_many`: field `paths[1]`: expected a string, got null",
        ),
        (
            "read",
            "{not json",
            "--input for tool `read` is not valid JSON",
        ),
    ] {
        let (code, stdout, stderr) = crate::jit(&["paths", "--tool", tool, "--input", input]);
        assert_eq!(code, 2, "{tool} {input}");
        assert_eq!(stdout, "");
        assert!(stderr.contains(message), "{tool} {input}: {stderr}");
    }
}

#[test]
fn an_input_too_long_for_an_argument_comes_on_stdin() {
    // Over 200 KiB: over the kernel's 128 KiB limit for one argument.
    let paths: Vec<String> = (0..14_000).map(|i| format!("src/f{i:05}.rs")).collect();
    let input = json!({ "paths": paths }).to_string();
    assert!(input.len() > 200 * 1024, "{}", input.len());
    let (code, stdout, stderr) = crate::jit_stdin(
        None,
        &["paths", "--tool", "read_many", "--input", "-"],
        input.as_bytes(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), paths);

    let (code, stdout, stderr) = crate::jit_stdin(
        None,
        &["paths", "--tool", "read", "--input", "-"],
        b"{not json",
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.contains("--input for tool `read` is not valid JSON"),
        "{stderr}"
    );
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let paths: Vec<String> = (0..4_000).map(|i| format!("src/f{i:05}.rs")).collect();
    let input = json!({ "paths": paths }).to_string();
    for json in [false, true] {
        let mut args = vec!["paths", "--tool", "read_many", "--input", &input];
        if json {
            args.push("--json");
        }
        let (code, stderr) = crate::jit_closed_stdout(None, &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "--json {json}");
    }
}

#[test]
fn control_characters_are_escaped_in_human_output_only() {
    let name = "evil\x1b]0;title\x07\x1b[2J\nline\u{9b}.rs";
    let input = json!({ "paths": [name, "a\\b"] }).to_string();
    let (code, stdout, stderr) = crate::jit(&["paths", "--tool", "read_many", "--input", &input]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "evil\\e]0;title\\x07\\e[2J\\nline\\u{9b}.rs\na\\\\b\n"
    );
    crate::assert_no_control_characters(&stdout);
    let (code, stdout, stderr) =
        crate::jit(&["paths", "--json", "--tool", "read_many", "--input", &input]);
    assert_eq!(code, 0, "{stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["paths"], json!([name, "a\\b"]));
}
