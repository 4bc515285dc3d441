//! Fuzz target: expanding arbitrary text in an empty project never panics and keeps the text.
#![no_main]

use std::sync::OnceLock;

use jit_imports::{Policy, expand};
use libfuzzer_sys::fuzz_target;

/// One empty project directory for the whole run: creating one per input would dominate the time.
fn project() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("jit-imports-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        dir
    })
}

fuzz_target!(|text: &str| {
    let root = project();
    let out = expand(&root.join("CLAUDE.md"), text, root, &Policy::default());
    assert!(out.imports.iter().all(|r| r.status != jit_imports::ImportStatus::Ok));
    assert_eq!(out.expanded, text);
});
