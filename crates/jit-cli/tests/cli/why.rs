//! Tests of `jit why`: one case per failing step of the checklist, a rule that loads, and the JSON contract.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::{assert_no_control_characters, jit_closed_stdout, jit_in};

/// A project with a root rule, a scoped directory rule, a rule folder and a
/// sibling directory's rule.
fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for sub in ["src/ui", "src/api", ".claude/rules", "scripts", "docs"] {
        fs::create_dir_all(root.join(sub)).unwrap();
    }
    fs::write(root.join("CLAUDE.md"), "root rules\n").unwrap();
    fs::write(
        root.join("src/ui/CLAUDE.md"),
        "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nno emoji\n",
    )
    .unwrap();
    fs::write(root.join("src/api/CLAUDE.md"), "api rules\n").unwrap();
    fs::write(
        root.join(".claude/rules/python.md"),
        "---\npaths: *.py\n---\nType hints everywhere.\n",
    )
    .unwrap();
    fs::write(root.join("docs/AGENTS.md"), "docs rules\n").unwrap();
    dir
}

/// Runs `jit why --json --root . RULE PATH` in `root` and returns the document.
#[track_caller]
fn why_json(root: &Path, extra: &[&str], rule: &str, path: &str) -> serde_json::Value {
    let mut args = vec!["why", "--json"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--root", ".", rule, path]);
    let (code, out, err) = jit_in(Some(root), &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The human checklist.
#[track_caller]
fn why_text(root: &Path, rule: &str, path: &str) -> String {
    let (code, out, err) = jit_in(Some(root), &["why", "--root", ".", rule, path]);
    assert_eq!(code, 0, "{err}");
    assert_no_control_characters(&out);
    out
}

/// The `ok` of each step, in order.
fn oks(doc: &serde_json::Value) -> Vec<serde_json::Value> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ok"].clone())
        .collect()
}

fn not_checked(step: u8, failed: u8) -> serde_json::Value {
    json!({"step": step, "ok": null, "detail": format!("not checked: step {failed} failed")})
}

#[test]
fn a_scoped_rule_that_matches_loads() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], "src/ui/CLAUDE.md", "src/ui/Footer.tsx");
    assert_eq!(
        doc,
        json!({
            "verdict": "loads",
            "steps": [
                {"step": 1, "ok": true, "detail": "src/ui/CLAUDE.md is a rule file of the claude convention (CLAUDE.md) of src/ui/, on the directory chain of src/ui/Footer.tsx (the root (.) → src/ → src/ui/)"},
                {"step": 2, "ok": true, "detail": "the frontmatter parses; scope: paths [\"src/ui/**/*.tsx\"]"},
                {"step": 3, "ok": true, "detail": "`src/ui/Footer.tsx` matches `src/ui/**/*.tsx`"},
                {"step": 4, "ok": true, "detail": "touching src/ui/Footer.tsx injects it now: loaded (path_glob_match, 9 bytes)"},
            ],
            "fix": null,
        })
    );
    let text = why_text(dir.path(), "src/ui/CLAUDE.md", "src/ui/Footer.tsx");
    assert!(
        text.ends_with(
            "loads: touching src/ui/Footer.tsx injects src/ui/CLAUDE.md (path_glob_match).\n"
        ),
        "{text}"
    );
}

#[test]
fn step_1_a_rule_of_a_sibling_directory_is_not_a_candidate() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], "src/api/CLAUDE.md", "src/ui/Footer.tsx");
    assert_eq!(
        doc,
        json!({
            "verdict": "does_not_load",
            "steps": [
                {"step": 1, "ok": false, "detail": "src/api/CLAUDE.md is a rule file of the claude convention (CLAUDE.md) of src/api/, which is not on the directory chain of src/ui/Footer.tsx (the root (.) → src/ → src/ui/): discovery walks only from the touched path up to the root"},
                not_checked(2, 1),
                not_checked(3, 1),
                not_checked(4, 1),
            ],
            "fix": "move it to src/CLAUDE.md (src/, the deepest directory above both src/api/ and src/ui/), so that it covers both",
        })
    );
}

#[test]
fn step_1_a_file_no_selected_convention_names_is_not_a_candidate() {
    let dir = demo();
    // AGENTS.md is a candidate of the agents convention...
    let doc = why_json(dir.path(), &[], "docs/AGENTS.md", "docs/guide.md");
    assert_eq!(doc["verdict"], "loads");
    // ...and of no other.
    let doc = why_json(
        dir.path(),
        &["--conventions", "claude"],
        "docs/AGENTS.md",
        "docs/guide.md",
    );
    assert_eq!(doc["verdict"], "does_not_load");
    assert_eq!(
        oks(&doc),
        [json!(false), json!(null), json!(null), json!(null)]
    );
    let detail = doc["steps"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "docs/AGENTS.md is not a rule file of any selected convention (claude: CLAUDE.md,"
        ),
        "{detail}"
    );
    assert_eq!(
        doc["fix"],
        "rename it docs/CLAUDE.md, which applies to everything under docs/, or move it to \
         .claude/rules/AGENTS.md with `paths: [\"docs/**\"]`"
    );
}

#[test]
fn step_1_a_missing_rule_or_a_path_outside_the_root_is_a_verdict_not_an_error() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], "src/ui/NOPE.md", "src/ui/Footer.tsx");
    assert_eq!(
        doc,
        json!({
            "verdict": "does_not_load",
            "steps": [
                {"step": 1, "ok": false, "detail": "src/ui/NOPE.md does not exist"},
                not_checked(2, 1),
                not_checked(3, 1),
                not_checked(4, 1),
            ],
            "fix": null,
        })
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("a.ts");
    let doc = why_json(dir.path(), &[], "CLAUDE.md", outside.to_str().unwrap());
    assert_eq!(doc["verdict"], "does_not_load");
    assert!(
        doc["steps"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("is outside the project root"),
        "{doc}"
    );
}

#[test]
fn step_2_an_invalid_frontmatter_fails_with_the_parsers_words() {
    let dir = demo();
    fs::write(
        dir.path().join(".claude/rules/broken.md"),
        "---\npaths:\n  ui: src/ui/**\n---\nbody\n",
    )
    .unwrap();
    let doc = why_json(dir.path(), &[], ".claude/rules/broken.md", "src/ui/a.ts");
    assert_eq!(doc["verdict"], "does_not_load");
    assert_eq!(
        oks(&doc),
        [json!(true), json!(false), json!(null), json!(null)]
    );
    let detail = doc["steps"][1]["detail"].as_str().unwrap();
    assert!(detail.starts_with("invalid_frontmatter: "), "{detail}");
    assert!(detail.contains("line 2 `paths:`"), "{detail}");
    assert!(
        doc["fix"]
            .as_str()
            .unwrap()
            .starts_with("fix the frontmatter of .claude/rules/broken.md: "),
        "{doc}"
    );
}

#[test]
fn step_3_a_scope_miss_names_the_stopping_segment_and_a_fix() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], "src/ui/CLAUDE.md", "src/ui/README.md");
    assert_eq!(
        doc,
        json!({
            "verdict": "does_not_load",
            "steps": [
                {"step": 1, "ok": true, "detail": "src/ui/CLAUDE.md is a rule file of the claude convention (CLAUDE.md) of src/ui/, on the directory chain of src/ui/README.md (the root (.) → src/ → src/ui/)"},
                {"step": 2, "ok": true, "detail": "the frontmatter parses; scope: paths [\"src/ui/**/*.tsx\"]"},
                {"step": 3, "ok": false, "detail": "`src/ui/**/*.tsx` follows `src/ui/` and stops at segment 3, `README.md`, which does not match `*.tsx`"},
                not_checked(4, 3),
            ],
            "fix": "add a pattern that covers it, such as `src/ui/**`: `paths: [\"src/ui/**/*.tsx\", \"src/ui/**\"]`",
        })
    );
    let text = why_text(dir.path(), "src/ui/CLAUDE.md", "src/ui/README.md");
    assert!(
        text.contains(
            "\ndoes not load, because `src/ui/README.md` matches none of the `paths:` patterns \
             of src/ui/CLAUDE.md [\"src/ui/**/*.tsx\"].\nfix: add a pattern"
        ),
        "{text}"
    );
}

#[test]
fn step_3_an_unquoted_root_only_pattern_gets_a_quoted_any_depth_fix() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], ".claude/rules/python.md", "scripts/gen.py");
    assert_eq!(
        oks(&doc),
        [json!(true), json!(true), json!(false), json!(null)]
    );
    // The recovery warning of the parser is shown in step 2.
    assert!(
        doc["steps"][1]["detail"]
            .as_str()
            .unwrap()
            .contains("warning: line 2 `paths: *.py`"),
        "{doc}"
    );
    assert_eq!(
        doc["steps"][2]["detail"],
        "`*.py` stops at segment 1, `scripts`, which does not match `*.py`"
    );
    assert_eq!(
        doc["fix"],
        "`*.py` matches at the root only (`*` does not cross `/`): write `**/*.py` to match at \
         any depth: `paths: [\"**/*.py\"]` (quoted: unquoted, a pattern that starts with `*` or \
         `{` is not valid YAML)"
    );
}

#[test]
fn step_3_a_pattern_written_relative_to_the_rules_directory_is_anchored() {
    let dir = demo();
    fs::create_dir_all(dir.path().join("src/.claude/rules")).unwrap();
    fs::write(
        dir.path().join("src/.claude/rules/ui.md"),
        "---\npaths: [\"ui/**\"]\n---\nui\n",
    )
    .unwrap();
    let doc = why_json(dir.path(), &[], "src/.claude/rules/ui.md", "src/ui/a.ts");
    assert_eq!(
        oks(&doc),
        [json!(true), json!(true), json!(false), json!(null)]
    );
    assert_eq!(
        doc["fix"],
        "patterns are relative to the project root, not to the rule's directory src/: write \
         `src/ui/**` for `ui/**`: `paths: [\"src/ui/**\"]`"
    );
}

#[test]
fn step_4_a_root_rule_is_already_loaded_at_startup() {
    let dir = demo();
    let doc = why_json(dir.path(), &[], "CLAUDE.md", "src/ui/Footer.tsx");
    assert_eq!(
        doc["steps"][3],
        json!({"step": 4, "ok": false, "detail": "already_loaded: the startup load already brought it in (session_start), before any tool ran, and touching src/ui/Footer.tsx does not inject it a second time"})
    );
    assert_eq!(
        oks(&doc),
        [json!(true), json!(true), json!(true), json!(false)]
    );
    assert_eq!(doc["fix"], json!(null));
}

#[test]
fn step_4_a_rule_over_the_size_cap_is_too_large() {
    let dir = demo();
    fs::write(dir.path().join("src/api/CLAUDE.md"), "a".repeat(300_000)).unwrap();
    let doc = why_json(dir.path(), &[], "src/api/CLAUDE.md", "src/api/users.ts");
    assert_eq!(
        oks(&doc),
        [json!(true), json!(true), json!(true), json!(false)]
    );
    assert!(
        doc["steps"][3]["detail"]
            .as_str()
            .unwrap()
            .starts_with("too_large: 300000 bytes is over the 262144-byte cap"),
        "{doc}"
    );
    assert_eq!(
        doc["fix"],
        "split src/api/CLAUDE.md into smaller rules, each scoped to the paths it is about"
    );
}

#[test]
fn step_4_a_rule_over_the_budget_does_not_fit() {
    let dir = demo();
    let doc = why_json(
        dir.path(),
        &["--budget", "3"],
        "src/ui/CLAUDE.md",
        "src/ui/Footer.tsx",
    );
    assert_eq!(
        oks(&doc),
        [json!(true), json!(true), json!(true), json!(false)]
    );
    assert!(
        doc["steps"][3]["detail"]
            .as_str()
            .unwrap()
            .starts_with("too_large_for_budget: "),
        "{doc}"
    );
}

#[cfg(unix)]
#[test]
fn step_4_a_rule_linked_outside_the_root_is_not_read() {
    let dir = demo();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join("CLAUDE.md"), "secret rules\n").unwrap();
    fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("CLAUDE.md"),
        dir.path().join("lib/CLAUDE.md"),
    )
    .unwrap();
    let doc = why_json(dir.path(), &[], "lib/CLAUDE.md", "lib/a.rs");
    assert_eq!(doc["verdict"], "does_not_load");
    assert_eq!(
        oks(&doc),
        [json!(true), json!(null), json!(null), json!(false)]
    );
    let step2 = doc["steps"][1]["detail"].as_str().unwrap();
    assert!(step2.contains("outside the project root, and nothing outside it is read"));
    let step4 = doc["steps"][3]["detail"].as_str().unwrap();
    assert!(step4.starts_with("outside_root: "), "{step4}");
    assert!(!doc.to_string().contains("secret rules"));
}

#[cfg(unix)]
#[test]
fn a_parent_segment_after_a_link_is_judged_where_the_os_opens_the_path() {
    // `src/api/link/../a.ts` with `link → ../../docs/sub` is `docs/a.ts`:
    // src/api/'s rule is not on its chain, as the engine would find.
    let dir = demo();
    fs::create_dir_all(dir.path().join("docs/sub")).unwrap();
    std::os::unix::fs::symlink("../../docs/sub", dir.path().join("src/api/link")).unwrap();
    let doc = why_json(dir.path(), &[], "src/api/CLAUDE.md", "src/api/link/../a.ts");
    assert_eq!(doc["verdict"], "does_not_load", "{doc}");
    let step1 = doc["steps"][0]["detail"].as_str().unwrap();
    assert!(
        step1.contains("not on the directory chain of docs/a.ts"),
        "{step1}"
    );
    let doc = why_json(dir.path(), &[], "docs/AGENTS.md", "src/api/link/../a.ts");
    assert_eq!(oks(&doc)[0], json!(true), "{doc}");
}

#[test]
fn usage_errors_exit_2_and_a_closed_pipe_exits_quietly() {
    let dir = demo();
    let (code, _, err) = jit_in(
        Some(dir.path()),
        &[
            "why",
            "--conventions",
            "claude,nope",
            "--root",
            ".",
            "CLAUDE.md",
            "a",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule convention `nope`"), "{err}");
    let (code, _, _) = jit_in(Some(dir.path()), &["why", "--root", ".", "CLAUDE.md"]);
    assert_eq!(code, 2);
    let (code, err) = jit_closed_stdout(
        Some(dir.path()),
        &["why", "--root", ".", "src/ui/CLAUDE.md", "src/ui/README.md"],
    );
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn control_characters_in_names_are_escaped_in_the_checklist() {
    let dir = demo();
    let odd = "src/\x1b[2Jui";
    fs::create_dir_all(dir.path().join(odd)).unwrap();
    fs::write(dir.path().join(odd).join("CLAUDE.md"), "odd\n").unwrap();
    let rule = format!("{odd}/CLAUDE.md");
    let text = why_text(dir.path(), &rule, &format!("{odd}/a.ts"));
    assert!(text.contains("src/\\e[2Jui/CLAUDE.md"), "{text}");
}

#[test]
fn a_rule_that_loads_only_because_its_pattern_was_recovered_gets_a_quoting_fix() {
    let dir = demo();
    fs::write(
        dir.path().join(".claude/rules/python.md"),
        "---\npaths: **/*.py\n---\nType hints everywhere.\n",
    )
    .unwrap();
    let doc = why_json(dir.path(), &[], ".claude/rules/python.md", "scripts/gen.py");
    assert_eq!(doc["verdict"], "loads");
    assert_eq!(
        doc["fix"],
        "quote the patterns so every tool reads them the same (strict YAML rejects a value that \
         starts with `*` or `{`): `paths: [\"**/*.py\"]`"
    );
}
