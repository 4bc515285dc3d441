//! Property tests: no input makes the extractor panic, and its result keeps its promises.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed property should stop the test loudly"
)]

use jit_bash::{SkipReason, written_paths};
use proptest::prelude::*;

/// Fragments that shells and agents actually type, so that generated input
/// reaches deep into the parser instead of failing on the first character.
const FRAGMENTS: &[&str] = &[
    "echo",
    "cat",
    "cp",
    "mv",
    "install",
    "touch",
    "mkdir",
    "sed",
    "tee",
    "rm",
    "exec",
    "-i",
    "-p",
    "-t",
    "--",
    "-m",
    "755",
    "''",
    "\"",
    "'",
    "$",
    "${",
    "}",
    "$(",
    ")",
    "(",
    "`",
    "$((",
    "))",
    "~",
    "*",
    "?",
    "[",
    "]",
    "{",
    ",",
    ">",
    ">>",
    ">|",
    "&>",
    "2>",
    "<",
    "<<",
    "<<-",
    "EOF",
    "\n",
    ";",
    "&&",
    "||",
    "|",
    "&",
    "if",
    "then",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "while",
    "case",
    "esac",
    ";;",
    "a.txt",
    "src/ui/",
    "/dev/null",
    "/tmp/x",
    "-",
    " ",
    "\\",
    "#",
    "=",
    "FOO=1",
    "!",
    "[[",
    "function",
    "f()",
];

fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(command in any::<String>()) {
        let _ = written_paths(&command);
    }

    #[test]
    fn shell_like_text_never_panics_and_keeps_its_promises(command in shellish()) {
        let analysis = written_paths(&command);
        // Paths are deduplicated.
        let mut seen = std::collections::HashSet::new();
        for path in &analysis.paths {
            prop_assert!(seen.insert(path), "duplicate path {path:?} for {command:?}");
            prop_assert!(!path.is_empty());
            prop_assert!(path != "-");
            prop_assert!(!path.starts_with("/dev/") && !path.starts_with("/tmp/"));
        }
        // A parse error comes alone, without paths.
        if analysis.skipped.iter().any(|s| s.reason == SkipReason::ParseError) {
            prop_assert!(analysis.paths.is_empty());
            prop_assert_eq!(analysis.skipped.len(), 1);
        }
    }

    #[test]
    fn plain_touch_reports_every_plain_name(names in prop::collection::vec("[a-z][a-z0-9_./]{0,12}", 1..6)) {
        let command = format!("touch -- {}", names.join(" "));
        let analysis = written_paths(&command);
        let mut expected: Vec<String> = Vec::new();
        for name in &names {
            if !expected.contains(name) {
                expected.push(name.clone());
            }
        }
        prop_assert_eq!(analysis.paths, expected);
    }
}
