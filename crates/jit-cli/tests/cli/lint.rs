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
