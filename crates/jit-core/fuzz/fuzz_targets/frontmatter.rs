//! Fuzz target: any bytes read as a `.claude/rules` file return a verdict, and a file that opens like a frontmatter is never loaded unscoped without one.
#![no_main]

use std::collections::HashSet;

use jit_core::{FuzzVerdict, MAX_PATTERN_BYTES, MAX_SCOPE_PATTERNS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match jit_core::__fuzz_parse_rule(data) {
        FuzzVerdict::Unscoped { frontmatter: false } => {
            // Read as a plain body: the file must not have opened like a
            // frontmatter, or a scope it declared would have been lost.
            let text = std::str::from_utf8(data).expect("an unscoped rule is UTF-8");
            assert!(
                !jit_core::opens_like_frontmatter(text),
                "a file that opens like a frontmatter was loaded unscoped: {text:?}"
            );
        }
        FuzzVerdict::Scoped(patterns) => {
            assert!(!patterns.is_empty());
            assert!(patterns.len() <= MAX_SCOPE_PATTERNS);
            let mut seen = HashSet::new();
            for pattern in &patterns {
                assert!(!pattern.is_empty() && pattern.len() <= MAX_PATTERN_BYTES);
                assert!(seen.insert(pattern), "duplicate pattern {pattern:?}");
            }
        }
        FuzzVerdict::Unscoped { frontmatter: true }
        | FuzzVerdict::Manual
        | FuzzVerdict::Skipped(_) => {}
    }
});
