//! Fuzz target: any UTF-8 text given to `written_paths` returns, and the result keeps its promises.
#![no_main]

use jit_bash::SkipReason;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let analysis = jit_bash::written_paths(command);
    let mut seen = std::collections::HashSet::new();
    for path in &analysis.paths {
        assert!(!path.is_empty() && path != "-", "{command:?} gave {path:?}");
        assert!(seen.insert(path), "{command:?} gave {path:?} twice");
    }
    // A refusal of the whole text comes alone, without paths.
    let whole = analysis
        .skipped
        .iter()
        .any(|s| matches!(s.reason, SkipReason::ParseError | SkipReason::TooDeep | SkipReason::TooComplex));
    if whole {
        assert!(analysis.paths.is_empty() && analysis.skipped.len() == 1);
    }
});
