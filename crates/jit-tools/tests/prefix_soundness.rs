//! Property test: every path a glob matches (by globset, as the engine matches) lies inside the glob's static prefix.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use globset::GlobBuilder;
use jit_tools::static_prefix;
use proptest::prelude::*;

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn matched_paths_lie_inside_the_static_prefix(
        pattern in joined(PATTERN_PIECES),
        path in joined(PATH_PIECES),
    ) {
        let prefix = static_prefix(&pattern);
        let Ok(glob) = GlobBuilder::new(&pattern).literal_separator(true).build() else {
            // globset rejects the pattern; the extraction must still not panic.
            return Ok(());
        };
        if !glob.compile_matcher().is_match(&path) {
            return Ok(());
        }
        if let Some(prefix) = prefix {
            let prefix = segments(prefix.as_str()).into_iter().map(str::to_owned).collect::<Vec<_>>();
            let path_segments = segments(&path);
            prop_assert!(
                path_segments.len() >= prefix.len()
                    && path_segments[..prefix.len()] == prefix[..],
                "`{}` matches `{}`, which is outside its static prefix {:?}",
                pattern, path, prefix
            );
        }
    }
}
