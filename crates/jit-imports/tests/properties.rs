//! Property tests: extraction never panics, and its tokens never hold CJK punctuation or unescaped whitespace.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed property should stop the test loudly"
)]

use jit_imports::{CJK_PUNCTUATION, Policy, expand, extract};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

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

/// The invariants every extracted import must hold.
#[track_caller]
fn check(text: &str) {
    for import in extract(text) {
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
            assert_eq!(
                &text[short.range.clone()],
                short.raw,
                "retry range from {text:?}"
            );
            assert!(import.target.starts_with(&short.target));
        }
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn extraction_holds_on_tricky_text(text in tricky_text()) {
        check(&text);
    }

    #[test]
    fn extraction_holds_on_any_text(text in any::<String>()) {
        check(&text);
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Expansion of arbitrary text against an empty project neither panics nor changes the text.
    #[test]
    fn expansion_without_files_keeps_the_text(text in tricky_text()) {
        let dir = tempfile::tempdir().unwrap();
        let out = expand(&dir.path().join("CLAUDE.md"), &text, dir.path(), &Policy::default());
        prop_assert_eq!(out.expanded, text);
        prop_assert!(out.imports.iter().all(|r| r.status != jit_imports::ImportStatus::Ok));
    }
}
