//! Tests of `jit bash`: the DESIGN §6 table through the command line, JSON shape and human output.

use serde_json::{Value, json};

/// Runs `jit bash --json -- COMMAND` and checks the whole answer.
#[track_caller]
fn check(command: &str, expected: Value) {
    let (code, stdout, stderr) = crate::jit(&["bash", "--json", "--", command]);
    assert_eq!(code, 0, "stderr: {stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output, expected, "{command}");
}

#[test]
fn the_design_table_gives_exactly_its_answers() {
    // As the table writes it (bash runs it with an empty body), and in full.
    check(
        "cat > src/ui/Badge.tsx <<EOF",
        json!({"paths": ["src/ui/Badge.tsx"], "skipped": []}),
    );
    check(
        "cat > src/ui/Badge.tsx <<EOF\nexport {};\nEOF",
        json!({"paths": ["src/ui/Badge.tsx"], "skipped": []}),
    );
    check(
        "sed -i '' 's/a/b/' src/ui/F.tsx",
        json!({"paths": ["src/ui/F.tsx"], "skipped": []}),
    );
    check(
        "echo hi | tee -a src/api/log.txt",
        json!({"paths": ["src/api/log.txt"], "skipped": []}),
    );
    check(
        r#"echo x > "src/my dir/a.ts""#,
        json!({"paths": ["src/my dir/a.ts"], "skipped": []}),
    );
    check(
        "cp src/a.ts src/ui/b.ts",
        json!({"paths": ["src/ui/b.ts"], "skipped": []}),
    );
    check(
        "cp a.ts b.ts src/ui/",
        json!({"paths": ["src/ui/"], "skipped": []}),
    );
    check(
        "touch src/ui/New.tsx",
        json!({"paths": ["src/ui/New.tsx"], "skipped": []}),
    );
    check(
        "mkdir -p src/ui/sub",
        json!({"paths": ["src/ui/sub"], "skipped": []}),
    );
    check(
        "echo x > $OUT",
        json!({"paths": [], "skipped": [{"word": "$OUT", "reason": "variable"}]}),
    );
    check(
        "echo x > /dev/null",
        json!({"paths": [], "skipped": [{"word": "/dev/null", "reason": "device"}]}),
    );
    check(
        "rm src/ui/Old.tsx",
        json!({"paths": [], "skipped": [{"word": "rm", "reason": "delete"}]}),
    );
    check(
        "python src/ui/gen.py",
        json!({"paths": [], "skipped": [{"word": "python", "reason": "unsupported_command"}]}),
    );
}

#[test]
fn an_unterminated_here_document_is_a_parse_error_with_its_message() {
    check(
        "cat > src/ui/Badge.tsx <<EOF\nbody that never closes",
        json!({"paths": [], "skipped": [{
            "word": "unterminated here-document (no closing delimiter line) at line 1 column 24 near `<<EOF\\nbody that never cl…`",
            "reason": "parse_error"
        }]}),
    );
}

#[test]
fn a_command_starting_with_a_dash_needs_no_separator() {
    for args in [
        &["bash", "--json", "-x"][..],
        &["bash", "-x", "--json"],
        &["bash", "--json", "--", "-x"],
    ] {
        let (code, stdout, stderr) = crate::jit(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        let output: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            output,
            json!({"paths": [], "skipped": [{"word": "-x", "reason": "unsupported_command"}]}),
            "{args:?}"
        );
    }
    let (code, stdout, stderr) = crate::jit(&["bash", "-5"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(stderr, "skipped -5 (unsupported_command)\n");
}

#[test]
fn usage_errors_and_help_are_plain_text() {
    let (code, stdout, stderr) = crate::jit(&["bash"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("<COMMAND>"), "{stderr}");
    assert!(!stderr.contains("tip:"), "{stderr}");
    crate::assert_no_control_characters(&stderr);
    let (code, help, stderr) = crate::jit(&["bash", "--help"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(help.contains("`-` reads it from standard input"), "{help}");
    crate::assert_no_control_characters(&help);
}

#[test]
fn a_command_too_long_for_an_argument_comes_on_stdin() {
    // 200 KiB: over the kernel's 128 KiB limit for one argument, under
    // the parser's cap (`MAX_COMMAND_BYTES`).
    let names: Vec<String> = (0..16_000).map(|i| format!("src/f{i:05}.rs")).collect();
    let command = format!("touch {}", names.join(" "));
    assert!(command.len() > 200 * 1024, "{}", command.len());
    assert!(command.len() <= jit_bash::MAX_COMMAND_BYTES);
    let (code, stdout, stderr) = crate::jit_stdin(None, &["bash", "-"], command.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), names);
    let (code, stdout, stderr) =
        crate::jit_stdin(None, &["bash", "--json", "-"], command.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["paths"], json!(names));
}

#[test]
fn stdin_over_the_cap_or_not_utf8_is_an_input_error() {
    let big = vec![b' '; 16 * 1024 * 1024 + 1];
    let (code, stdout, stderr) = crate::jit_stdin(None, &["bash", "-"], &big);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "jit: error: the command on standard input is over the limit of 16 MiB\n"
    );
    let (code, _, stderr) = crate::jit_stdin(None, &["bash", "-"], b"touch \xff");
    assert_eq!(code, 2);
    assert!(stderr.contains("not UTF-8"), "{stderr}");
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let names: Vec<String> = (0..5_000).map(|i| format!("src/f{i:05}.rs")).collect();
    let command = format!("touch {}", names.join(" "));
    for json in [false, true] {
        let mut args = vec!["bash"];
        if json {
            args.push("--json");
        }
        args.push(&command);
        let (code, stderr) = crate::jit_closed_stdout(None, &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "--json {json}");
    }
}

#[test]
fn control_characters_are_escaped_in_human_output_only() {
    let path = "evil\x1b]0;title\x07\x1b[2J.txt";
    // A quoted newline is left out as `quoting`: the word goes to stderr.
    let command = format!("touch \"{path}\" \"a\\\\b\" \"line\nbreak\"");
    let (code, stdout, stderr) = crate::jit(&["bash", &command]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "evil\\e]0;title\\x07\\e[2J.txt\na\\\\b\n");
    assert_eq!(stderr, "skipped \"line\\nbreak\" (quoting)\n");
    crate::assert_no_control_characters(&stdout);
    crate::assert_no_control_characters(&stderr);
    let (code, stdout, stderr) = crate::jit(&["bash", "--json", &command]);
    assert_eq!(code, 0, "{stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["paths"], json!([path, "a\\b"]));
    assert_eq!(output["skipped"][0]["word"], "\"line\nbreak\"");
}

#[test]
fn human_output_is_one_path_per_line_and_skips_on_stderr() {
    let (code, stdout, stderr) = crate::jit(&[
        "bash",
        "mkdir -p out/ && cp a b out/ && echo x > $LOG 2> 'err log.txt'",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "out/\nerr log.txt\n");
    assert_eq!(stderr, "skipped $LOG (variable)\n");
}
