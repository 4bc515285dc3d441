//! Fuzz target: extraction never panics, and every token keeps the invariants the property tests check.
#![no_main]

use jit_imports::{CJK_PUNCTUATION, extract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    for import in extract(text) {
        assert!(!import.target.is_empty());
        assert_eq!(&text[import.range.clone()], import.raw);
        assert!(!import.target.contains(|c| CJK_PUNCTUATION.contains(c)));
        assert!(
            import
                .target
                .chars()
                .all(|c| c == ' ' || !c.is_whitespace())
        );
        if let Some(short) = import.without_trailing_cjk() {
            assert_eq!(&text[short.range.clone()], short.raw);
        }
    }
});
