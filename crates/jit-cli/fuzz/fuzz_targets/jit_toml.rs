//! Fuzz target: any `jit.toml` text is read or refused, and what is read names files, never paths.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The walk cache is no part of reading the file: the configuration
/// module is compiled here without it.
mod walk_cache {
    pub(crate) fn for_root(_root: &camino::Utf8Path) -> Option<jit_core::WalkCache> {
        None
    }
}

#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/conventions.rs"]
mod conventions;

/// Whether `name` is one path component, restated here so that the
/// target does not trust the check it tests.
fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !(name.len() >= 2 && name.as_bytes()[1] == b':' && name.as_bytes()[0].is_ascii_alphabetic())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = camino::Utf8Path::new("/project/jit.toml");
    let Ok(config) = conventions::parse_config(path, text) else {
        return;
    };
    for (convention, source) in &config.sources {
        let names = source
            .names
            .iter()
            .flatten()
            .chain(&source.fallback_names)
            .chain(&source.extra_names);
        for name in names {
            assert!(is_file_name(name), "[{convention}] took {name:?}, which is not a file name");
        }
    }
});
