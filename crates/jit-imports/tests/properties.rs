//! Property tests: extraction never panics, and its tokens never hold CJK punctuation or unescaped
//! whitespace; expansion reports every import it meets consistently. Each property counts the
//! cases that reach its assertions and requires a minimum, so a generator that drifts into
//! inputs with no imports fails instead of passing vacuously.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed property should stop the test loudly"
)]

use std::fs;

use jit_imports::{CJK_PUNCTUATION, ImportStatus, Policy, expand, extract};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};

/// A fixed seed keeps every run the same: CI sees the cases a developer saw.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5EED_0007),
        ..ProptestConfig::default()
    }
}

/// Text built from the characters that matter to extraction, so that `@`,
/// escapes, fences and CJK punctuation meet often.
fn tricky_text() -> impl Strategy<Value = String> {
    let pieces: Vec<&'static str> = vec![
        "@",
        "@",
        "@",
        "\\",
        "\\ ",
        " ",
        "\t",
        "\n",
        "\n\n",
        "\u{3000}",
        "#",
        ".",
        ",",
        ")",
        "(",
        "\"",
        "'",
        "`",
        "```\n",
        "    ",
        "a",
        "Z",
        "9",
        "/",
        "../",
        "~/",
        "NOTE.md",
        "文档",
        "说明",
        "で確認",
        "한",
        "·",
        "—",
        "…",
        "，",
        "。",
        "「",
        "」",
        "（",
        "）",
        "*",
        "_",
        "é",
        "\r\n",
    ];
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(pieces).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

/// The invariants every extracted import must hold; returns how many
/// imports were checked and how many of them had a retry to check too.
/// (The fixed seed reaches 566 of 2,000 tricky texts with an import, 44 retries,
/// 1,743 of 2,000 arbitrary texts, 78 of 256 expansions without files, and 208
/// of 256 expansions that inline a file; the minimums are half of these.)
#[track_caller]
fn check(text: &str) -> (usize, usize) {
    let mut checked = (0, 0);
    for import in extract(text) {
        checked.0 += 1;
        assert!(!import.target.is_empty(), "empty target from {text:?}");
        assert_eq!(
            &text[import.range.clone()],
            import.raw,
            "range from {text:?}"
        );
        assert!(import.raw.starts_with('@'), "raw {:?}", import.raw);
        for c in import.target.chars().chain(import.raw.chars()) {
            assert!(
                !CJK_PUNCTUATION.contains(c),
                "CJK punctuation {c:?} in {import:?} from {text:?}"
            );
        }
        assert!(
            import
                .target
                .chars()
                .all(|c| c == ' ' || !c.is_whitespace()),
            "whitespace other than an escaped space in {import:?} from {text:?}"
        );
        // In the raw token, every whitespace character is an escaped space.
        let raw: Vec<char> = import.raw.chars().collect();
        for (i, c) in raw.iter().enumerate() {
            if c.is_whitespace() {
                assert!(
                    *c == ' ' && i > 0 && raw[i - 1] == '\\',
                    "unescaped whitespace in {import:?} from {text:?}"
                );
            }
        }
        if let Some(short) = import.without_trailing_cjk() {
            checked.1 += 1;
            assert_eq!(
                &text[short.range.clone()],
                short.raw,
                "retry range from {text:?}"
            );
            assert!(import.target.starts_with(&short.target));
        }
    }
    checked
}

/// Runs `property` on `cases` inputs from `strategy` and returns how many
/// cases it said reached its assertions (`true`); a failed case fails the
/// test with the smallest input proptest finds.
fn run<S: Strategy>(cases: u32, strategy: S, property: impl Fn(S::Value) -> bool) -> usize {
    let reached = std::cell::Cell::new(0usize);
    let mut runner = TestRunner::new(config(cases));
    let result = runner.run(&strategy, |value| {
        if property(value) {
            reached.set(reached.get() + 1);
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
    reached.get()
}

/// Arbitrary text with `@` and the characters that may start an import mixed in,
/// so that imports are met in most cases.
fn any_text_with_ats() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => any::<char>().prop_map(String::from),
            1 => proptest::sample::select(vec![" @", "@", "「@", "(@"]).prop_map(str::to_owned),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

// The minimums below are half of what the fixed seed reaches (see `check`): a
// generator change that halves the cases with imports fails the test.

#[test]
fn extraction_holds_on_tricky_text() {
    let retries = std::cell::Cell::new(0);
    let reached = run(2000, tricky_text(), |text| {
        let (found, retried) = check(&text);
        retries.set(retries.get() + retried);
        found > 0
    });
    assert!(reached >= 280, "only {reached} of 2000 cases had an import");
    assert!(
        retries.get() >= 22,
        "only {} retries were checked",
        retries.get()
    );
}

#[test]
fn extraction_holds_on_any_text() {
    let reached = run(2000, any_text_with_ats(), |text| check(&text).0 > 0);
    assert!(reached >= 870, "only {reached} of 2000 cases had an import");
}

/// Expansion of arbitrary text against an empty project neither panics nor changes the text.
#[test]
fn expansion_without_files_keeps_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let reached = run(256, tricky_text(), |text| {
        let out = expand(
            &dir.path().join("CLAUDE.md"),
            &text,
            dir.path(),
            &Policy::default(),
        );
        assert_eq!(out.expanded, text);
        assert!(out.imports.iter().all(|r| r.status != ImportStatus::Ok));
        assert_eq!(out.diagnostics.len(), out.imports.len());
        !out.imports.is_empty()
    });
    assert!(reached >= 39, "only {reached} of 256 cases had an import");
}

/// Text that imports the files of [`expansion_reports_every_import_consistently`]'s project.
fn project_text() -> impl Strategy<Value = String> {
    let imports: Vec<&'static str> = vec![
        "@NOTE.md", "@a.md", "@b.md", "@gone.md", "@bin.md", "@docs/", "@../x.md",
    ];
    let others: Vec<&'static str> = vec![" ", "\n", "，", "`", "见", "words", "@"];
    let piece = prop_oneof![
        2 => proptest::sample::select(imports),
        1 => proptest::sample::select(others),
    ];
    // Pieces are joined by spaces, so most imports stand on their own.
    proptest::collection::vec(piece, 0..24).prop_map(|p| p.join(" "))
}

/// Every import gets exactly one record, every failed one one diagnostic, a
/// reason exactly when refused, and every file inlined once appears once, wrapped.
#[test]
fn expansion_reports_every_import_consistently() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("proj");
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(root.join("NOTE.md"), "note @a.md\n").unwrap();
    fs::write(root.join("a.md"), "a @b.md @NOTE.md\n").unwrap();
    fs::write(root.join("b.md"), "b\n").unwrap();
    fs::write(root.join("bin.md"), b"\x00").unwrap();
    fs::write(dir.path().join("x.md"), "outside\n").unwrap();
    let reached = run(256, project_text(), |text| {
        let out = expand(&root.join("CLAUDE.md"), &text, &root, &Policy::default());
        let failed = out.imports.iter().filter(|r| r.status != ImportStatus::Ok);
        assert_eq!(out.diagnostics.len(), failed.count());
        for record in &out.imports {
            assert_eq!(
                record.reason.is_some(),
                record.status == ImportStatus::Refused
            );
        }
        let inlined: Vec<_> = out.included().collect();
        for record in &inlined {
            let label = record.target.trim_start_matches("../");
            let opening = format!("<!-- import: {label} -->\n");
            assert_eq!(
                out.expanded.matches(&opening).count(),
                1,
                "{opening} in {}",
                out.expanded
            );
        }
        // Every top-level import is either inlined in place or kept as written.
        let top = extract(&text).len();
        assert_eq!(out.imports.iter().filter(|r| r.depth == 1).count(), top);
        !inlined.is_empty()
    });
    assert!(reached >= 104, "only {reached} of 256 cases inlined a file");
}
