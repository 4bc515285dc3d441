//! Tests of `jit lint`: one repository with every finding, in every output format, and the exit codes.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::{assert_no_control_characters, jit, jit_closed_stdout};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success());
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A git repository at `<tmp>/repo` with at least one finding of every
/// kind, and a file beside it (`<tmp>/outside.md`) that an import reaches.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "outside.md", "Outside the project.\n");
    let root = dir.path().join("repo");
    let r = root.as_path();
    write(r, ".gitignore", "build/\n");
    write(r, "src/ui/App.ts", "app\n");
    write(r, "src/main.ts", "main\n");
    write(r, "lib/x.ts", "x\n");
    write(
        r,
        "CLAUDE.md",
        "# Project\n\nSee @docs/missing.md and @../outside.md.\n",
    );
    write(
        r,
        "src/CLAUDE.md",
        "# Source\n\nRead @../docs/a.md first.\n",
    );
    write(r, "docs/a.md", "A, then @b.md\n");
    write(r, "docs/b.md", "B, then @a.md\n");
    write(r, "pkg/CLAUDE.md", "Use tabs.\n");
    write(r, "lib/CLAUDE.md", "Use tabs.\n");
    write(r, "AGENTS.md", "Codex rules.\n");
    write(r, "AGENTS.override.md", "Codex override.\n");
    write(r, "build/CLAUDE.md", "Generated.\n");
    let rules = ".claude/rules";
    write(
        r,
        &format!("{rules}/ui.md"),
        "---\npaths: [\"src/ui/**\"]\n---\nUI rules.\n",
    );
    write(
        r,
        &format!("{rules}/dead.md"),
        "---\ndescription: site\npaths:\n  - \"src/**\"\n  - \"website/**\"\n---\nSite rules.\n",
    );
    write(
        r,
        &format!("{rules}/brace.md"),
        "---\npaths: [\"src/**/*.{js\", \"ts\", \"vue}\"]\n---\nFront end.\n",
    );
    write(
        r,
        &format!("{rules}/cursorish.md"),
        "---\nglobs: src/**/*.ts\n---\nTypes.\n",
    );
    write(
        r,
        &format!("{rules}/both.md"),
        "---\npaths: [\"src/**\"]\nglobs: [\"lib/**\"]\n---\nBoth.\n",
    );
    write(
        r,
        &format!("{rules}/bad.md"),
        "---\ndescription: [unclosed\n---\nBad.\n",
    );
    write(r, &format!("{rules}/big.md"), &"x".repeat(300 * 1024));
    write(
        r,
        &format!("{rules}/empty.md"),
        "---\npaths: [\"src/**\"]\n---\n",
    );
    write(
        r,
        &format!("{rules}/unquoted.md"),
        "---\npaths: **/*.ts\n---\nTS.\n",
    );
    write(
        r,
        &format!("{rules}/style.mdc"),
        "---\nglobs: \"**/*.css\"\n---\nCSS.\n",
    );
    git(r, &["init", "-q"]);
    git(r, &["add", "-A"]);
    git(r, &["commit", "-qm", "init"]);
    (dir, root)
}

/// What `jit lint --json` prints on the fixture (pretty-printed here; the
/// temporary directory shown as `<tmp>`).
const EXPECTED_JSON: &str = r#"{"findings":[
{"file":".claude/rules/bad.md","line":2,"kind":"invalid_frontmatter","severity":"error","message":"the frontmatter is not valid YAML: unclosed bracket '[' at line 2, column 14"},
{"file":".claude/rules/big.md","line":1,"kind":"too_large","severity":"error","message":"307200 bytes is over the engine's 262144-byte cap for one rule file, so it never loads; split it"},
{"file":".claude/rules/both.md","line":3,"kind":"unknown_key","severity":"warning","message":"`globs:` is Cursor's key and `paths:` is present: `paths:` wins and `globs:` is ignored; remove `globs:` (or keep it for Cursor on purpose)"},
{"file":".claude/rules/brace.md","line":2,"kind":"invalid_frontmatter","severity":"error","message":"`paths:` has the brace pattern `src/**/*.{js,ts,vue}` split across 3 list items (\"src/**/*.{js\", \"ts\", \"vue}\"): the YAML list cut it at its commas, so no item is a whole pattern; write it as one quoted item: `paths: [\"src/**/*.{js,ts,vue}\"]`"},
{"file":".claude/rules/cursorish.md","line":2,"kind":"unknown_key","severity":"warning","message":"`globs:` is Cursor's key; Claude rules are scoped by `paths:`. It is read as the scope (src/**/*.ts), but Claude Code itself does not read it and loads the rule for every file. Rename it to `paths:`"},
{"file":".claude/rules/dead.md","line":5,"kind":"dead_scope","severity":"warning","message":"the pattern `website/**` matches no file git tracks or would track (untracked and not ignored), so the rule never loads for it; patterns are relative to the project root: check the path"},
{"file":".claude/rules/empty.md","line":1,"kind":"empty_rule","severity":"warning","message":"the rule has no text after its frontmatter, so it injects nothing; write the rule or remove the file"},
{"file":".claude/rules/style.mdc","line":1,"kind":"unreachable","severity":"warning","message":"only files ending in `.md` in .claude/rules/ are claude rules; this one is never read: rename it to end in `.md`"},
{"file":".claude/rules/unquoted.md","line":2,"kind":"frontmatter_warning","severity":"warning","message":"line 2 `paths: **/*.ts`: it is not valid YAML (`*` starts a YAML alias here, and no anchor of that name is defined (quote a value that starts with `*`) at line 2, column 8); it was read literally as \"**/*.ts\". Quote the patterns so every tool reads them the same: `paths: [\"**/*.ts\"]`"},
{"file":"AGENTS.md","line":1,"kind":"shadowed","severity":"info","message":"hidden by AGENTS.override.md in the same directory: Codex reads the override instead of this file; merge them, or delete the override when it is stale"},
{"file":"CLAUDE.md","line":3,"kind":"missing_import","severity":"error","message":"`@docs/missing.md`: no such file: docs/missing.md"},
{"file":"CLAUDE.md","line":3,"kind":"import_outside_root","severity":"error","message":"`@../outside.md`: <tmp>/outside.md is outside the project root ."},
{"file":"build/CLAUDE.md","line":1,"kind":"unreachable","severity":"warning","message":"inside build/, which git ignores: the repository does not carry it and file tools that honour .gitignore never reach it; move it to a tracked directory or delete it"},
{"file":"docs/b.md","line":1,"kind":"import_cycle","severity":"error","message":"`@a.md`: import cycle: src/CLAUDE.md → docs/a.md → docs/b.md → docs/a.md"},
{"file":"pkg/CLAUDE.md","line":1,"kind":"duplicate_rule","severity":"warning","message":"the same text as lib/CLAUDE.md: an agent that loads both reads it twice; keep one and import it from the other"}
],"summary":{"errors":6,"warnings":8,"infos":1}}"#;

fn lint(root: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["lint", "--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    jit(&all)
}

/// `out` with the fixture's temporary directory shown as `<tmp>`.
fn masked(out: &str, root: &Path) -> String {
    let tmp = root.parent().unwrap().canonicalize().unwrap();
    out.replace(tmp.to_str().unwrap(), "<tmp>")
}

#[test]
fn every_finding_kind_in_one_repository_exact_json() {
    let (_dir, root) = fixture();
    let (code, out, err) = lint(&root, &["--json"]);
    assert_eq!(code, 1, "{err}");
    // The exact bytes: one line, the keys in the documented order.
    let expected: serde_json::Value = serde_json::from_str(EXPECTED_JSON).unwrap();
    assert_eq!(masked(&out, &root), format!("{expected}\n"));
    // `--format json` is the same.
    let (_, same, _) = lint(&root, &["--format", "json"]);
    assert_eq!(same, out);
}

#[test]
fn github_annotations_name_file_and_line() {
    let (_dir, root) = fixture();
    let (code, out, _) = lint(&root, &["--format", "github"]);
    assert_eq!(code, 1);
    // Shown with `-- --nocapture`: the annotations a workflow would get.
    println!("{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15, "{out}");
    assert!(lines.contains(&"::error file=.claude/rules/big.md,line=1::too_large: 307200 bytes is over the engine's 262144-byte cap for one rule file, so it never loads; split it"), "{out}");
    assert!(lines.contains(&"::warning file=.claude/rules/dead.md,line=5::dead_scope: the pattern `website/**` matches no file git tracks or would track (untracked and not ignored), so the rule never loads for it; patterns are relative to the project root: check the path"), "{out}");
    assert!(lines.contains(&"::notice file=AGENTS.md,line=1::shadowed: hidden by AGENTS.override.md in the same directory: Codex reads the override instead of this file; merge them, or delete the override when it is stale"), "{out}");
    assert!(lines.iter().all(|l| l.starts_with("::error file=")
        || l.starts_with("::warning file=")
        || l.starts_with("::notice file=")));
}

#[test]
fn sarif_output_is_valid_against_the_official_schema() {
    let (_dir, root) = fixture();
    let (code, out, _) = lint(&root, &["--format", "sarif"]);
    assert_eq!(code, 1);
    let mut schema: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/sarif/sarif-schema-2.1.0.json")).unwrap();
    // The published schema's `language` patterns (of `run` and
    // `toolComponent`) have a stray `]`
    // (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`), which the draft-07
    // meta-schema's `regex` check refuses. Those patterns, of a property jit
    // never writes, are replaced in memory by what they mean; the file
    // stays as published.
    assert_eq!(fix_language_patterns(&mut schema), 2);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let log: serde_json::Value = serde_json::from_str(&out).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // What GitHub code scanning needs: the version, a tool name, and each
    // result with a rule id, a message and a located line.
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "jit lint");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 15);
    let dead = results
        .iter()
        .find(|r| r["ruleId"] == "dead_scope")
        .unwrap();
    assert_eq!(dead["level"], "warning");
    let location = &dead["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], ".claude/rules/dead.md");
    assert_eq!(location["region"]["startLine"], 5);
    // A log that breaks the schema is caught: the check is not vacuous.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));
}

/// Replaces the published schema's broken `language` pattern wherever it
/// stands; returns how many were replaced.
fn fix_language_patterns(value: &mut serde_json::Value) -> usize {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match value {
        serde_json::Value::String(s) if s == BROKEN => {
            *s = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".to_owned();
            1
        }
        serde_json::Value::Array(items) => items.iter_mut().map(fix_language_patterns).sum(),
        serde_json::Value::Object(map) => map.values_mut().map(fix_language_patterns).sum(),
        _ => 0,
    }
}

#[test]
fn exit_codes_are_zero_clean_one_on_errors_two_on_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CLAUDE.md", "Rules.\n");
    write(dir.path(), "src/a.ts", "a\n");
    write(
        dir.path(),
        ".claude/rules/a.md",
        "---\npaths: [\"src/**\"]\n---\nA.\n",
    );
    let (code, out, err) = lint(dir.path(), &[]);
    assert_eq!((code, out.as_str()), (0, "no findings\n"), "{err}");
    // Warnings alone still exit 0.
    write(
        dir.path(),
        ".claude/rules/b.md",
        "---\npaths: [\"nowhere/**\"]\n---\nB.\n",
    );
    let (code, out, _) = lint(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(".claude/rules/b.md:2: warning[dead_scope]"),
        "{out}"
    );
    write(dir.path(), "CLAUDE.md", "See @missing.md\n");
    assert_eq!(lint(dir.path(), &[]).0, 1);
    // Bad usage.
    assert_eq!(lint(dir.path(), &["--format", "xml"]).0, 2);
    assert_eq!(lint(dir.path(), &["--conventions", "nope"]).0, 2);
    assert_eq!(lint(dir.path(), &["--json", "--format", "text"]).0, 2);
    // Without --root, the current directory (no git repository here) is
    // the root: run from the project, the same error is found.
    assert_eq!(crate::jit_in(Some(dir.path()), &["lint"]).0, 1);
    assert_eq!(jit(&["lint", "--root", ""]).0, 2);
    assert_eq!(lint(&dir.path().join("absent"), &[]).0, 2);
}

#[test]
fn conventions_select_which_rule_files_are_checked() {
    let (_dir, root) = fixture();
    let (code, out, _) = lint(&root, &["--json", "--conventions", "agents"]);
    assert_eq!(code, 0);
    let got: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kinds: Vec<&str> = got["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["shadowed"]);
    // Without the agents convention, nothing is said about AGENTS.md.
    let (_, out, _) = lint(&root, &["--json", "--conventions", "claude,gemini"]);
    assert!(!out.contains("AGENTS.md\""), "{out}");
}

#[test]
fn without_git_the_walk_honours_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, ".gitignore", "gen/\n");
    write(r, "gen/out.ts", "generated\n");
    write(r, "src/a.ts", "a\n");
    write(
        r,
        ".claude/rules/gen.md",
        "---\npaths: [\"gen/**\", \"src/**\"]\n---\nGen.\n",
    );
    let (code, out, _) = lint(r, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        ".claude/rules/gen.md:2: warning[dead_scope]: the pattern `gen/**` matches no file of the tree (.gitignore honoured), so the rule never loads for it; patterns are relative to the project root: check the path\n\n0 error(s), 1 warning(s), 0 info(s)\n"
    );
}

#[test]
fn human_output_escapes_control_characters_and_a_closed_pipe_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CLAUDE.md", "See @\u{1b}[2Jmissing.md\n");
    let (code, out, _) = lint(dir.path(), &[]);
    assert_eq!(code, 1);
    assert_no_control_characters(&out);
    assert!(out.contains("\\e[2J"), "{out}");
    let (code, err) = jit_closed_stdout(None, &["lint", "--root", dir.path().to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn cursor_and_copilot_rules_are_judged_as_their_agents_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "src/app.ts", "x\n");
    write(r, "src/api/h.ts", "x\n");
    // Cursor reads an unquoted glob line: a warning, never an error.
    write(
        r,
        ".cursor/rules/ts.mdc",
        "---\nglobs: **/*.ts, src/**\n---\nTypeScript rules.\n",
    );
    // `paths:` is Claude's key; Cursor ignores it.
    write(
        r,
        ".cursor/rules/wrong.mdc",
        "---\npaths: src/**\n---\nWrong key.\n",
    );
    // Three comma-separated globs, one of which matches nothing.
    write(
        r,
        ".github/instructions/api.instructions.md",
        "---\napplyTo: \"src/api/**,**/*.ts,website/**\"\n---\nAPI rules.\n",
    );
    // Files read at the root only are linted too; a `.clinerules` folder
    // is a rule folder, not a candidate that cannot be read.
    write(r, ".cursorrules", "");
    write(r, ".github/copilot-instructions.md", "");
    write(r, ".clinerules/style.md", "Two spaces.\n");
    git(r, &["init", "-q"]);
    git(r, &["add", "-A"]);
    git(r, &["commit", "-qm", "init"]);
    let (code, out, err) = lint(r, &["--json"]);
    assert_eq!(code, 0, "warnings only: {out} {err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    let find = |file: &str, kind: &str| {
        findings
            .iter()
            .find(|f| f["file"] == file && f["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} for {file} in {out}"))
    };
    let ts = find(".cursor/rules/ts.mdc", "frontmatter_warning");
    assert_eq!(
        (ts["line"].as_u64(), ts["severity"].as_str()),
        (Some(2), Some("warning"))
    );
    let wrong = find(".cursor/rules/wrong.mdc", "unknown_key");
    assert_eq!(wrong["line"], 2);
    find(".cursorrules", "empty_rule");
    find(".github/copilot-instructions.md", "empty_rule");
    assert!(
        !findings.iter().any(|f| f["file"] == ".clinerules"),
        "{out}"
    );
    let dead = find(".github/instructions/api.instructions.md", "dead_scope");
    assert!(
        dead["message"].as_str().unwrap().contains("website/**"),
        "{dead}"
    );
    assert!(!findings.iter().any(|f| f["severity"] == "error"), "{out}");
    // Only the conventions asked for are checked.
    let (_, out, _) = lint(r, &["--json", "--conventions", "copilot"]);
    assert!(!out.contains(".cursor/"), "{out}");
    assert!(out.contains("api.instructions.md"), "{out}");
}

#[test]
fn an_invisible_character_at_the_fence_is_an_error_naming_its_code_point() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "src/a.ts", "a\n");
    let rules = ".claude/rules";
    // Each of these loaded everywhere, and lint said nothing.
    for (name, c) in [
        ("zwsp", '\u{200b}'),
        ("zwnj", '\u{200c}'),
        ("lrm", '\u{200e}'),
        ("wj", '\u{2060}'),
        ("shy", '\u{ad}'),
    ] {
        write(
            r,
            &format!("{rules}/{name}.md"),
            &format!("{c}---\npaths: [\"src/**\"]\n---\nRules.\n"),
        );
    }
    write(
        r,
        &format!("{rules}/bom.md"),
        "\u{feff}\u{200b}---\npaths: [\"src/**\"]\n---\nRules.\n",
    );
    write(
        r,
        &format!("{rules}/above.md"),
        "\u{2060}\n---\npaths: [\"src/**\"]\n---\nRules.\n",
    );
    write(
        r,
        &format!("{rules}/closing.md"),
        "---\npaths: [\"src/**\"]\n\u{200b}---\nRules.\n---\nMore.\n",
    );
    write(
        r,
        &format!("{rules}/key.md"),
        "---\n\u{200b}paths: [\"src/**\"]\n---\nRules.\n",
    );
    // Beside the real key, the hidden one is an unknown key, named.
    write(
        r,
        &format!("{rules}/both.md"),
        "---\npaths: [\"src/**\"]\n\u{200b}paths: [\"x/**\"]\n---\nRules.\n",
    );
    // A convention without scope keys loses nothing: read, with a warning.
    write(r, "AGENTS.md", "\u{200b}---\nx: y\n---\nCodex rules.\n");
    let (code, out, err) = lint(r, &["--json", "--conventions", "claude,agents"]);
    assert_eq!(code, 1, "{out} {err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let got: Vec<(String, u64, String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let message = f["message"].as_str().unwrap();
            let code = &message[message.find("U+").unwrap_or(0)..];
            (
                f["file"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["kind"].as_str().unwrap().to_owned(),
                code.chars().take_while(|&c| c != ',').collect(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, String, String)> = [
        (
            ".claude/rules/above.md",
            1,
            "invalid_frontmatter",
            "U+2060 WORD JOINER",
        ),
        (
            ".claude/rules/bom.md",
            1,
            "invalid_frontmatter",
            "U+200B ZERO WIDTH SPACE",
        ),
        (
            ".claude/rules/both.md",
            3,
            "unknown_key",
            "U+200B ZERO WIDTH SPACE",
        ),
        (
            ".claude/rules/closing.md",
            3,
            "invalid_frontmatter",
            "U+200B ZERO WIDTH SPACE",
        ),
        (
            ".claude/rules/key.md",
            2,
            "invalid_frontmatter",
            "U+200B ZERO WIDTH SPACE",
        ),
        (
            ".claude/rules/lrm.md",
            1,
            "invalid_frontmatter",
            "U+200E LEFT-TO-RIGHT MARK",
        ),
        (
            ".claude/rules/shy.md",
            1,
            "invalid_frontmatter",
            "U+00AD SOFT HYPHEN",
        ),
        (
            ".claude/rules/wj.md",
            1,
            "invalid_frontmatter",
            "U+2060 WORD JOINER",
        ),
        (
            ".claude/rules/zwnj.md",
            1,
            "invalid_frontmatter",
            "U+200C ZERO WIDTH NON-JOINER",
        ),
        (
            ".claude/rules/zwsp.md",
            1,
            "invalid_frontmatter",
            "U+200B ZERO WIDTH SPACE",
        ),
        (
            "AGENTS.md",
            1,
            "frontmatter_warning",
            "U+200B ZERO WIDTH SPACE",
        ),
    ]
    .iter()
    .map(|&(file, line, kind, code)| (file.to_owned(), line, kind.to_owned(), code.to_owned()))
    .collect();
    pretty_assertions::assert_eq!(got, expected);
    // The text output shows the character escaped, never raw.
    let (_, out, _) = lint(r, &["--conventions", "claude"]);
    assert_no_control_characters(&out);
    assert!(!out.contains('\u{200b}'), "{out}");
    assert!(
        out.contains(
            ".claude/rules/both.md:3: warning[unknown_key]: `\\\\u{200b}paths:` is not a key"
        ),
        "{out}"
    );
    assert!(
        out.contains(".claude/rules/zwsp.md:1: error[invalid_frontmatter]: line 1 `\\\\u{200b}---` has U+200B ZERO WIDTH SPACE"),
        "{out}"
    );
}

/// The most bytes of one ignore file `jit lint` reads
/// (`MAX_IGNORE_FILE_BYTES` in `src/cmd/lint/walk.rs`).
const MAX_IGNORE_FILE_BYTES: usize = 64 * 1024;

/// `jit lint --json --root ROOT` killed after 20 s: a run that would block
/// fails the test instead of hanging it.
fn lint_bounded(root: &Path) -> (i32, serde_json::Value) {
    use std::io::Read as _;
    use std::time::{Duration, Instant};
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(["lint", "--json", "--root"])
        .arg(root)
        .env("HOME", home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Read while it runs, so a long output cannot fill the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        out
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("jit lint was still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader.join().unwrap();
    let doc = serde_json::from_slice(&out).unwrap();
    (status.code().unwrap_or(-1), doc)
}

/// The findings of `doc` as `(file, line, kind)`, with the messages of the
/// `lint_limit` ones.
fn kinds(doc: &serde_json::Value) -> (Vec<(String, u64, String)>, Vec<String>) {
    let findings = doc["findings"].as_array().unwrap();
    let limits = findings
        .iter()
        .filter(|f| f["kind"] == "lint_limit")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    let all = findings
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (all, limits)
}

/// A `.gitignore` of `early/`, filler lines, and `late/` as its last line
/// ending `shift` bytes past the limit; with the line number of `late/`.
fn long_gitignore(shift: usize) -> (String, u64) {
    let mut text = String::from("early/\n");
    let mut lines = 1;
    while text.len() + 6 + 7 <= MAX_IGNORE_FILE_BYTES {
        text.push_str("f12345\n");
        lines += 1;
    }
    // Pad the last filler line so that `late/\n` ends exactly at the limit,
    // plus `shift`.
    let pad = MAX_IGNORE_FILE_BYTES - 6 - text.len() + shift;
    text.push_str(&format!("{}\n", "p".repeat(pad.max(1) - 1)));
    text.push_str("late/\n");
    assert_eq!(text.len(), MAX_IGNORE_FILE_BYTES + shift);
    (text, lines + 2)
}

#[test]
fn an_ignore_file_is_read_up_to_its_limit_and_the_rest_is_named() {
    for shift in [0, 1] {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let (gitignore, late_line) = long_gitignore(shift);
        write(r, ".gitignore", &gitignore);
        write(r, "CLAUDE.md", "Root.\n");
        write(r, "early/CLAUDE.md", "Early.\n");
        write(r, "late/CLAUDE.md", "Late.\n");
        let (code, doc) = lint_bounded(r);
        assert_eq!(code, 0, "{doc}");
        let (findings, limits) = kinds(&doc);
        let early = ("early/CLAUDE.md".to_owned(), 1, "unreachable".to_owned());
        let late = ("late/CLAUDE.md".to_owned(), 1, "unreachable".to_owned());
        assert!(findings.contains(&early), "{doc:#}");
        if shift == 0 {
            // At the limit: read whole, `late/` honoured, nothing said.
            assert!(findings.contains(&late), "{doc:#}");
            assert!(limits.is_empty(), "{limits:?}");
        } else {
            // One byte over: `late/` is past the last whole line read.
            assert!(!findings.contains(&late), "{doc:#}");
            let cut = (".gitignore".to_owned(), late_line, "lint_limit".to_owned());
            assert!(findings.contains(&cut), "{doc:#}");
            assert_eq!(
                limits,
                [format!(
                    "65537 bytes, over the 65536 bytes of one ignore file the lint reads \
                     (MAX_IGNORE_FILE_BYTES): its first {} lines were honoured and the rest, \
                     from line {late_line}, were not, so files it would ignore are linted as \
                     files git would track; git reads the whole file",
                    late_line - 1
                )]
            );
        }
    }
}

#[test]
fn a_four_megabyte_gitignore_is_read_only_up_to_the_limit() {
    // 1.6 GB before (every line compiled into one matcher).
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let mut gitignore = String::from("early/\n");
    let mut i = 0;
    while gitignore.len() < 4 << 20 {
        gitignore.push_str(&format!("build{i}/**/*.tmp{i}\n"));
        i += 1;
    }
    gitignore.push_str("late/\n");
    write(r, ".gitignore", &gitignore);
    write(r, "CLAUDE.md", "Root.\n");
    write(r, "early/CLAUDE.md", "Early.\n");
    write(r, "late/CLAUDE.md", "Late.\n");
    git(r, &["init", "-q"]);
    let (code, doc) = lint_bounded(r);
    assert_eq!(code, 0, "{doc}");
    let (findings, limits) = kinds(&doc);
    assert!(
        findings.contains(&("early/CLAUDE.md".to_owned(), 1, "unreachable".to_owned())),
        "{doc:#}"
    );
    assert_eq!(limits.len(), 1, "{limits:?}");
    assert!(
        limits[0].starts_with(&format!("{} bytes, over the 65536 bytes", gitignore.len())),
        "{limits:?}"
    );
}

#[test]
fn nested_ignore_files_are_in_force_up_to_a_total() {
    // Three nested directories, each with a 60 KiB `.gitignore`: the third
    // is read only as far as 128 KiB in force allows.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let filler = |first: &str| {
        let mut text = format!("{first}\n");
        while text.len() < 60 * 1024 {
            text.push_str("f12345\n");
        }
        text
    };
    write(r, ".gitignore", &filler("one/"));
    write(r, "a/.gitignore", &filler("two/"));
    write(r, "a/b/.gitignore", &(filler("three/") + "four/\n"));
    for rule in ["one", "two", "three", "four"] {
        write(r, &format!("a/b/{rule}/CLAUDE.md"), &format!("{rule}\n"));
    }
    let (_, doc) = lint_bounded(r);
    let (findings, limits) = kinds(&doc);
    let unreachable = |rule: &str| {
        findings.contains(&(format!("a/b/{rule}/CLAUDE.md"), 1, "unreachable".to_owned()))
    };
    assert!(
        unreachable("one") && unreachable("two") && unreachable("three"),
        "{doc:#}"
    );
    assert!(!unreachable("four"), "{doc:#}");
    assert_eq!(limits.len(), 1, "{limits:?}");
    assert!(
        limits[0].contains(
            "past the 131072 bytes of ignore files in force in one directory the lint reads \
             (MAX_IGNORE_BYTES_IN_FORCE)"
        ),
        "{limits:?}"
    );
}

#[cfg(unix)]
#[test]
fn an_ignore_file_that_is_a_named_pipe_or_a_link_is_not_read_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "src/a.ts", "a\n");
    write(r, "gen/CLAUDE.md", "Generated.\n");
    write(r, "elsewhere", "gen/\n");
    // Before, the walk opened it plainly and waited for a writer forever.
    let made = Command::new("mkfifo")
        .arg(r.join(".gitignore"))
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("../elsewhere", r.join("src/.gitignore")).unwrap();
    let (code, doc) = lint_bounded(r);
    assert_eq!(code, 0, "{doc}");
    let (findings, limits) = kinds(&doc);
    assert!(
        findings.contains(&(".gitignore".to_owned(), 1, "lint_limit".to_owned())),
        "{doc:#}"
    );
    assert_eq!(
        limits,
        [
            "not read (not a regular file (a named pipe)), so none of its patterns were \
             honoured and files it would ignore are linted as files git would track",
            "not read (a symbolic link, which git does not follow for an ignore file), so \
             none of its patterns were honoured and files it would ignore are linted as files \
             git would track",
        ],
        "{doc:#}"
    );
}

/// The `lint_limit` finding on imports: its file, and the counts its
/// message gives (imports followed, bytes read, rule files expanded).
fn import_limit(doc: &serde_json::Value) -> (String, String, [u64; 3]) {
    let findings = doc["findings"].as_array().unwrap();
    let limits: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["kind"] == "lint_limit")
        .collect();
    assert_eq!(limits.len(), 1, "{limits:?}");
    let message = limits[0]["message"].as_str().unwrap().to_owned();
    let after = &message[message.find("had followed").unwrap()..];
    let numbers: Vec<u64> = after
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    (
        limits[0]["file"].as_str().unwrap().to_owned(),
        message,
        [numbers[0], numbers[1], numbers[2]],
    )
}

#[test]
fn the_imports_one_run_follows_are_bounded_and_the_rule_files_left_are_named() {
    // Sixty rules, each importing the 59 others: each expansion follows
    // the engine's 1,000 imports (two million for the 2,000 rules of 286
    // imports each that took 1.26 GB before).
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let mut names: Vec<String> = (0..60).map(|i| format!("d{i}")).collect();
    for name in &names {
        let imports: String = names
            .iter()
            .filter(|other| *other != name)
            .map(|other| format!("@../{other}/CLAUDE.md\n"))
            .collect();
        write(
            r,
            &format!("{name}/CLAUDE.md"),
            &format!("Rule {name}.\n{imports}"),
        );
    }
    let (code, doc) = lint_bounded(r);
    // The cycles are errors.
    assert_eq!(code, 1, "{}", doc["summary"]);
    let (file, message, [followed, _, expanded]) = import_limit(&doc);
    // Checked before each rule file: the limit, plus at most one
    // expansion's 1,000 imports (and the one refused past them).
    assert!((50_000..=51_001).contains(&followed), "{message}");
    assert_eq!(expanded, 50, "{message}");
    // The rule files are linted in sorted order; the 51st is the first
    // left unchecked, and the nine after it are counted.
    names.sort();
    assert_eq!(file, format!("{}/CLAUDE.md", names[50]));
    assert!(
        message.starts_with(
            "the imports of this rule file and of 9 more rule files after it were not checked"
        ),
        "{message}"
    );
    assert!(
        message.contains("reaching the 50000 imports one run follows (MAX_IMPORTS_PER_RUN)"),
        "{message}"
    );
    // At most one finding per import followed.
    let reported = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "import_not_inlined")
        .count();
    assert!(reported as u64 <= followed, "{reported} of {followed}");
}

#[test]
fn the_bytes_one_run_reads_through_imports_are_bounded() {
    // 260 rules importing one file at the engine's size cap: 64 MiB read
    // after 256 of them.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "big.md", &"x".repeat(256 * 1024));
    for i in 0..260 {
        write(r, &format!("d{i:03}/CLAUDE.md"), "See @../big.md\n");
    }
    let (code, doc) = lint_bounded(r);
    assert_eq!(code, 0, "{}", doc["summary"]);
    let (file, message, [followed, bytes, expanded]) = import_limit(&doc);
    assert_eq!(
        (followed, bytes, expanded),
        (256, 64 << 20, 256),
        "{message}"
    );
    assert_eq!(file, "d256/CLAUDE.md");
    assert!(
        message.contains(
            "and of 3 more rule files after it were not checked: the lint had followed 256 \
             imports (67108864 bytes read) for 256 rule files, reaching the 67108864 bytes of \
             imported files one run reads (MAX_IMPORT_BYTES_PER_RUN)"
        ),
        "{message}"
    );
}
