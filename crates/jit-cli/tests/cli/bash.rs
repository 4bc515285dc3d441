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
            "word": "unterminated here-document (no closing delimiter line)",
            "reason": "parse_error"
        }]}),
    );
}

#[test]
fn a_command_starting_with_a_dash_needs_the_separator() {
    let (code, _, stderr) = crate::jit(&["bash", "--json", "-x"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, stdout, stderr) = crate::jit(&["bash", "--", "-x"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
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
