//! Tests of `jit audit`: a harness's tool list in every shape against the binary's registry, the findings and their exit codes.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// The workspace's tool-list fixtures, one per shape (see their README).
fn fixture(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/tools/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs `jit audit --json --tools FIXTURE` and checks the exit code, the
/// names read, and each error as `(kind, tool)`.
#[track_caller]
fn check(name: &str, code: i32, exposed: &[&str], errors: &[(&str, &str)]) -> Value {
    let file = fixture(name);
    let (actual, stdout, stderr) = crate::jit(&["audit", "--json", "--tools", &file]);
    assert_eq!(actual, code, "stdout: {stdout}\nstderr: {stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["file"], file.as_str());
    assert_eq!(output["exposed"], json!(exposed));
    assert_eq!(output["ok"], errors.is_empty());
    let actual: Vec<(String, String)> = output["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_owned(),
                e["tool"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = errors
        .iter()
        .map(|(k, t)| ((*k).to_owned(), (*t).to_owned()))
        .collect();
    assert_eq!(actual, expected);
    output
}

#[test]
fn every_shape_of_tool_list_passes_with_registered_names() {
    check(
        "names.json",
        0,
        &["read", "write", "edit", "grep", "bash", "web_fetch"],
        &[],
    );
    check(
        "anthropic-messages-2023-06-01.json",
        0,
        &["read", "write", "edit", "bash", "web_search"],
        &[],
    );
    check(
        "openai-chat-completions.json",
        0,
        &["read", "apply_patch", "grep"],
        &[],
    );
    check(
        "openai-responses.json",
        0,
        &["read", "bash", "update_plan"],
        &[],
    );
    check("fixed.json", 0, &["read", "edit", "web_fetch"], &[]);
}

#[test]
fn an_unreported_tool_and_a_case_mismatch_fail_with_status_1() {
    let output = check(
        "unreported.json",
        1,
        &["Read", "edit", "fetch_page"],
        &[
            ("exposed_without_reporter", "Read"),
            ("exposed_without_reporter", "fetch_page"),
        ],
    );
    assert_eq!(output["errors"][0]["registered_as"], "read");
    assert!(output["errors"][1].get("registered_as").is_none());
    let message = output["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("Expose it as `read`"), "{message}");
}

#[test]
fn a_tool_listed_twice_fails() {
    check(
        "duplicate.json",
        1,
        &["read", "write", "read"],
        &[("exposed_twice", "read")],
    );
}

#[test]
fn registered_tools_nobody_exposes_are_warnings_that_do_not_fail() {
    let output = check("fixed.json", 0, &["read", "edit", "web_fetch"], &[]);
    let warnings = output["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().all(|w| w["kind"] == "reporter_not_exposed"),
        "{warnings:?}"
    );
    assert!(warnings.iter().any(|w| w["tool"] == "bash"), "{warnings:?}");
    assert!(
        !warnings.iter().any(|w| w["tool"] == "read"),
        "{warnings:?}"
    );
}

#[test]
fn human_output_names_each_problem_and_the_fix() {
    let (code, stdout, _) = crate::jit(&["audit", "--tools", &fixture("unreported.json")]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("FAIL: "), "{stdout}");
    assert!(
        lines[0].ends_with("unreported.json: 3 exposed tools, 2 problems"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("error: tool `Read` is exposed to the model"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("error: tool `fetch_page` is exposed"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("warning: 26 registered tools are not exposed"),
        "{stdout}"
    );

    let (code, stdout, _) = crate::jit(&["audit", "--tools", &fixture("fixed.json")]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("ok: "), "{stdout}");
}

#[test]
fn an_unreadable_tool_list_is_status_2_naming_the_file() {
    let file = fixture("not-a-tool-list.json");
    let (code, stdout, stderr) = crate::jit(&["audit", "--tools", &file]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "jit: error: cannot read the tool list {file}: tool list: an object must hold the \
             tool definitions in a `tools` array"
        )
    );
    let (code, _, stderr) = crate::jit(&["audit", "--tools", &fixture("missing.json")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read the tool list"), "{stderr}");
}

#[test]
fn without_a_tool_list_the_registry_alone_is_audited() {
    let (code, stdout, stderr) = crate::jit(&["audit"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("ok: "), "{stdout}");
    assert!(
        stdout.contains("registered tools, each with exactly one path reporter"),
        "{stdout}"
    );
}
