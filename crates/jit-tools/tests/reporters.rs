//! Snapshot tests of every registered reporter over its case file, and of the glob static prefix.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::collections::BTreeSet;
use std::path::Path;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{Registry, SkippedInput};
use serde::Serialize;
use serde_json::{Value, json};

/// The cwd every case runs in; reporters never read the filesystem.
const CWD: &str = "/project";

/// Case file lines: a run of `#` lines is a note for the cases that follow
/// it, a blank line ends the note, every other line is one case.
fn cases(text: &str) -> Vec<(Option<String>, &str)> {
    let mut note: Option<String> = None;
    let mut after_case = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            note = Some(match note.take() {
                Some(prev) if !after_case => format!("{prev} {comment}"),
                _ => comment.to_owned(),
            });
            after_case = false;
        } else if line.trim().is_empty() {
            note = None;
            after_case = false;
        } else {
            out.push((note.clone(), line));
            after_case = true;
        }
    }
    out
}

/// One case as the snapshot shows it.
#[derive(Serialize)]
struct Outcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    input: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    paths: Option<Vec<Utf8PathBuf>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<SkippedInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// One case's outcome, from the registry as the engine would ask it.
#[track_caller]
fn check(registry: &Registry, tool: &str, note: Option<String>, line: &str) -> Outcome {
    let input: Value = serde_json::from_str(line)
        .unwrap_or_else(|err| panic!("case `{line}` of `{tool}` is not JSON: {err}"));
    let mut outcome = Outcome {
        note,
        input,
        paths: None,
        skipped: Vec::new(),
        error: None,
    };
    match registry.affected_paths(tool, &outcome.input, Utf8Path::new(CWD)) {
        Ok(touched) => {
            outcome.paths = Some(touched.paths);
            outcome.skipped = touched.skipped;
        }
        Err(err) => {
            // Malformed input must fail with the kind callers branch on.
            assert_eq!(err.kind(), jit_core::ErrorKind::InvalidToolInput, "{err}");
            outcome.error = Some(err.to_string());
        }
    }
    outcome
}

#[test]
fn every_reporter_over_its_case_file() {
    let registry = Registry::from_inventory();
    let mut seen = BTreeSet::new();
    insta::glob!("cases/*.jsonl", |path| {
        let tool = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let outcomes: Vec<Outcome> = cases(&text)
            .into_iter()
            .map(|(note, line)| check(&registry, &tool, note, line))
            .collect();
        insta::assert_yaml_snapshot!(outcomes);
        seen.insert(tool);
    });
    let registered: BTreeSet<String> = registry.tools().map(str::to_owned).collect();
    assert_eq!(
        seen, registered,
        "every registered tool needs a case file tests/cases/<tool>.jsonl, and every case file a registered tool"
    );
}

#[test]
fn glob_static_prefix_over_its_case_file() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prefix.txt"))
            .unwrap();
    let outcomes: Vec<Value> = cases(&text)
        .into_iter()
        .map(|(note, pattern)| {
            let mut case = serde_json::Map::new();
            if let Some(note) = note {
                case.insert("note".into(), note.into());
            }
            case.insert("pattern".into(), pattern.into());
            case.insert("prefix".into(), json!(jit_tools::static_prefix(pattern)));
            Value::Object(case)
        })
        .collect();
    insta::assert_yaml_snapshot!(outcomes);
}

#[test]
fn grep_never_reads_its_regex_as_a_glob() {
    // Read as a glob, the regex would name a file `src/w+.ts` that does not exist.
    let registry = Registry::from_inventory();
    let touched = registry
        .affected_paths(
            "grep",
            &json!({"pattern": r"src/\w+\.ts"}),
            Utf8Path::new(CWD),
        )
        .unwrap();
    assert!(touched.paths.is_empty(), "{touched:?}");
    assert_eq!(
        jit_tools::static_prefix(r"src/\w+\.ts").as_deref(),
        Some(Utf8Path::new("src/w+.ts")),
        "the same text read as a glob would give a directory that does not exist"
    );
}

#[test]
fn apply_patch_never_reports_a_deleted_file() {
    // A deliberate refusal, like `rm` in jit-bash: the rules of a deleted
    // file's directory no longer apply to it, so loading them would be noise.
    let registry = Registry::from_inventory();
    let patch = "*** Begin Patch\n*** Delete File: src/ui/Old.tsx\n*** End Patch";
    let touched = registry
        .affected_paths(
            "apply_patch",
            &json!({"command": patch}),
            Utf8Path::new(CWD),
        )
        .unwrap();
    assert!(touched.paths.is_empty(), "{touched:?}");
    let skipped: Vec<(&str, &str)> = touched
        .skipped
        .iter()
        .map(|s| (s.word.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped, [("src/ui/Old.tsx", "deleted")]);
}
