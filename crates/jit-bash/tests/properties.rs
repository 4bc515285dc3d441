//! Property tests: no input makes the extractor panic, and its result keeps its promises.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed property should stop the test loudly"
)]

use std::cell::Cell;

use jit_bash::{SkipReason, written_paths};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestRng, TestRunner};

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

/// Runs `property` on `cases` inputs of `strategy` with a fixed seed, so the
/// counts below are the same on every run.
fn run<S: Strategy>(
    cases: u32,
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    if let Err(err) = runner.run(&strategy, property) {
        panic!("{err}");
    }
}

#[test]
fn arbitrary_text_returns_and_a_whole_refusal_comes_alone() {
    let refused_whole = Cell::new(0usize);
    run(2000, any::<String>(), |command| {
        let analysis = written_paths(&command);
        if analysis
            .skipped
            .iter()
            .any(|s| s.reason == SkipReason::ParseError)
        {
            refused_whole.set(refused_whole.get() + 1);
            prop_assert!(analysis.paths.is_empty());
            prop_assert_eq!(analysis.skipped.len(), 1);
        }
        Ok(())
    });
    // Random Unicode is rarely valid bash.
    assert!(
        refused_whole.get() >= 500,
        "only {} refused",
        refused_whole.get()
    );
}

#[test]
fn shell_like_text_keeps_its_promises() {
    // How many generated commands reached each assertion; most shell-like
    // soup is not valid bash, so both kinds are counted and a minimum of
    // each is required.
    let with_paths = Cell::new(0usize);
    let refused_whole = Cell::new(0usize);
    run(3000, shellish(), |command| {
        let analysis = written_paths(&command);
        let mut seen = std::collections::HashSet::new();
        for path in &analysis.paths {
            prop_assert!(seen.insert(path), "duplicate path {path:?} for {command:?}");
            prop_assert!(!path.is_empty());
            prop_assert!(path != "-");
            prop_assert!(!path.starts_with("/dev/") && !path.starts_with("/tmp/"));
        }
        if !analysis.paths.is_empty() {
            with_paths.set(with_paths.get() + 1);
        }
        // A refusal of the whole text comes alone, without paths.
        if analysis.skipped.iter().any(|s| {
            matches!(
                s.reason,
                SkipReason::ParseError | SkipReason::TooDeep | SkipReason::TooComplex
            )
        }) {
            refused_whole.set(refused_whole.get() + 1);
            prop_assert!(analysis.paths.is_empty());
            prop_assert_eq!(analysis.skipped.len(), 1);
        }
        Ok(())
    });
    let (with_paths, refused_whole) = (with_paths.get(), refused_whole.get());
    eprintln!("{with_paths} with paths, {refused_whole} refused whole");
    assert!(
        with_paths >= MIN_WITH_PATHS,
        "only {with_paths} commands gave paths"
    );
    assert!(
        refused_whole >= MIN_REFUSED,
        "only {refused_whole} commands were refused whole"
    );
}

/// Minimum counts for [`shell_like_text_keeps_its_promises`] (3,000 cases).
const MIN_WITH_PATHS: usize = 50;
const MIN_REFUSED: usize = 1_000;

#[test]
fn a_redirection_to_a_plain_name_reports_exactly_that_name() {
    let reported = Cell::new(0usize);
    run(1000, "[a-zA-Z0-9_][a-zA-Z0-9_./-]{0,20}", |name| {
        let analysis = written_paths(&format!("echo x > {name}"));
        let special = name.starts_with("/dev") || name.starts_with("/tmp");
        if !special {
            reported.set(reported.get() + 1);
            prop_assert_eq!(&analysis.paths, &vec![name.clone()]);
        }
        // The same name in single quotes is the same path.
        let quoted = written_paths(&format!("echo x > '{name}'"));
        prop_assert_eq!(quoted.paths, analysis.paths);
        Ok(())
    });
    let reported = reported.get();
    assert!(reported >= 900, "only {reported} names reached the check");
}

#[test]
fn a_brace_list_gives_its_product_or_a_visible_refusal() {
    let expanded = Cell::new(0usize);
    let refused = Cell::new(0usize);
    let lists = prop::collection::vec(prop::collection::vec("[a-z]{1,3}", 2..6), 1..7);
    run(500, lists, |lists| {
        let word: String = lists
            .iter()
            .map(|items| format!("{{{}}}", items.join(",")))
            .collect();
        let analysis = written_paths(&format!("touch -- {word}"));
        let product: usize = lists.iter().map(Vec::len).product();
        if product > jit_bash::MAX_BRACE_WORDS {
            refused.set(refused.get() + 1);
            prop_assert!(analysis.paths.is_empty());
            prop_assert_eq!(analysis.skipped[0].reason, SkipReason::TooManyExpansions);
        } else {
            expanded.set(expanded.get() + 1);
            // Items may repeat, and repeated words are reported once.
            let mut words = std::collections::BTreeSet::new();
            let mut stack = vec![String::new()];
            for items in &lists {
                stack = stack
                    .iter()
                    .flat_map(|p| items.iter().map(move |i| format!("{p}{i}")))
                    .collect();
            }
            words.extend(stack);
            prop_assert_eq!(analysis.paths.len(), words.len(), "{}", word);
        }
        Ok(())
    });
    let (expanded, refused) = (expanded.get(), refused.get());
    eprintln!("{expanded} expanded, {refused} refused");
    assert!(
        expanded >= 100 && refused >= 50,
        "{expanded} expanded, {refused} refused"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]


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
