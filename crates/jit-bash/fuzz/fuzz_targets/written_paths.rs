//! Fuzz target: any UTF-8 text given to `written_paths` returns, and the result keeps its promises.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let analysis = jit_bash::written_paths(command);
    for path in &analysis.paths {
        assert!(!path.is_empty() && path != "-", "{command:?} gave {path:?}");
    }
    let parse_error = analysis
        .skipped
        .iter()
        .any(|s| s.reason == jit_bash::SkipReason::ParseError);
    if parse_error {
        assert!(analysis.paths.is_empty() && analysis.skipped.len() == 1);
    }
});
