//! Property test: every path a glob matches (by globset, as the engine matches) lies inside the glob's static prefix.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use globset::GlobBuilder;
use jit_tools::static_prefix;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Cases that reached the containment assertion: a pattern globset accepts
/// and a path it matches. Most generated pairs do not match, so the property
/// alone could pass on a generator that never matches anything.
static REACHED: AtomicUsize = AtomicUsize::new(0);
/// Of those, the cases with a non-empty static prefix to check against.
static WITH_PREFIX: AtomicUsize = AtomicUsize::new(0);
/// Floors for both counts over the 8,192 generated cases (a run reaches
/// about 2,900 and 900): below them the generators have drifted into
/// pairs that never match, and the property would pass without checking.
const MIN_REACHED: usize = 1_500;
const MIN_WITH_PREFIX: usize = 400;

/// Pieces glob patterns are built from: literals, separators, every kind of
/// glob syntax, escapes, and the corner cases of classes.
const PATTERN_PIECES: &[&str] = &[
    "a", "b", "ab", "/", "/", "*", "**", "?", "[ab]", "[a]", "[!a]", "[]]", "[]a]", "{a,b}",
    "{a,}", "{,b}", "\\*", "\\a", "\\[", ".", "]", "}",
];

/// Pieces candidate paths are built from, including characters that are glob
/// syntax in patterns but plain in file names.
const PATH_PIECES: &[&str] = &["a", "b", "ab", "/", "/", "*", "[", "]", ".", "?"];

fn joined(pieces: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 1..7).prop_map(|p| p.concat())
}

/// Path segments as the engine sees them: no empty or `.` segments.
fn segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

/// Each pattern piece with strings it matches, so that a generated path can
/// be built to match the generated pattern; random pairs alone almost never
/// match, and a property that never reaches its assertion proves nothing.
const INSTANCES: &[(&str, &[&str])] = &[
    ("a", &["a"]),
    ("b", &["b"]),
    ("ab", &["ab"]),
    ("/", &["/"]),
    ("*", &["", "a", "ab", "*"]),
    ("**", &["", "a", "a/b", "/a"]),
    ("?", &["a", "?"]),
    ("[ab]", &["a", "b"]),
    ("[a]", &["a"]),
    ("[!a]", &["b", "]"]),
    ("[]]", &["]"]),
    ("[]a]", &["]", "a"]),
    ("{a,b}", &["a", "b"]),
    ("{a,}", &["a", ""]),
    ("{,b}", &["", "b"]),
    ("\\*", &["*"]),
    ("\\a", &["a"]),
    ("\\[", &["["]),
    (".", &["."]),
    ("]", &["]"]),
    ("}", &["}"]),
];

/// A pattern and a path built piece by piece to match it (globset still
/// decides; a piece's instance may not match in context).
fn matching_pair() -> impl Strategy<Value = (String, String)> {
    prop::collection::vec((0..INSTANCES.len(), any::<prop::sample::Index>()), 1..7).prop_map(
        |pieces| {
            let mut pattern = String::new();
            let mut path = String::new();
            for (piece, choice) in pieces {
                let (glob, instances) = INSTANCES[piece];
                pattern.push_str(glob);
                path.push_str(instances[choice.index(instances.len())]);
            }
            (pattern, path)
        },
    )
}

/// The property: a path the pattern matches lies inside its static prefix.
fn check(pattern: &str, path: &str) -> Result<(), TestCaseError> {
    let prefix = static_prefix(pattern);
    let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() else {
        // globset rejects the pattern; the extraction must still not panic.
        return Ok(());
    };
    if !glob.compile_matcher().is_match(path) {
        return Ok(());
    }
    REACHED.fetch_add(1, Ordering::Relaxed);
    if let Some(prefix) = prefix {
        WITH_PREFIX.fetch_add(1, Ordering::Relaxed);
        let prefix = segments(prefix.as_str());
        let path_segments = segments(path);
        prop_assert!(
            path_segments.len() >= prefix.len() && path_segments[..prefix.len()] == prefix[..],
            "`{}` matches `{}`, which is outside its static prefix {:?}",
            pattern,
            path,
            prefix
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    fn random_pairs(pattern in joined(PATTERN_PIECES), path in joined(PATH_PIECES)) {
        check(&pattern, &path)?;
    }

    fn built_pairs((pattern, path) in matching_pair()) {
        check(&pattern, &path)?;
    }
}

#[test]
fn the_prefix_property_judges_enough_matching_cases() {
    random_pairs();
    built_pairs();
    let reached = REACHED.load(Ordering::Relaxed);
    let with_prefix = WITH_PREFIX.load(Ordering::Relaxed);
    eprintln!("{reached} matching cases, {with_prefix} with a static prefix");
    assert!(
        reached >= MIN_REACHED,
        "only {reached} cases reached the assertion"
    );
    assert!(
        with_prefix >= MIN_WITH_PREFIX,
        "only {with_prefix} cases had a prefix to check"
    );
}
