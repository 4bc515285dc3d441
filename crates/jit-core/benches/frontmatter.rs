//! The cost of hostile rule files: each is refused (or read) after bounded work.
//!
//! Run with `cargo bench -p jit-core --bench frontmatter`.
//!
//! * `parse_plain_rule`: a scoped rule of two patterns, read and compiled (the
//!   baseline).
//! * `parse_alias_bomb`: nine levels of nine aliases (387 million strings once
//!   expanded), refused as `yaml_too_complex`.
//! * `parse_many_patterns`: 10,000 distinct patterns in one string, as many
//!   as fit in a frontmatter, refused as `too_many_patterns`.
//! * `parse_thirty_thousand_patterns`: a 30,000-item list (150 KB), refused
//!   as `yaml_too_complex` by its size, before any YAML is parsed.
//! * `parse_duplicates`: 32,000 copies of one pattern, de-duplicated to one.
//! * `ten_touches_thirty_thousand_patterns`: a fresh session touching ten
//!   files next to a rule folder holding the two refused rules above.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::fs;

use camino::Utf8PathBuf;
use divan::{Bencher, black_box};
use jit_core::{DiscoveryState, Engine, FuzzVerdict, SkipReason};

fn main() {
    divan::main();
}

fn alias_bomb() -> String {
    let mut text = String::from(
        "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        text.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    text.push_str("paths: *i\n---\nbody\n");
    text
}

fn patterns(n: usize) -> String {
    (0..n)
        .map(|i| format!("{i:x}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn many_patterns() -> String {
    format!("---\npaths: \"{}\"\n---\nbody\n", patterns(10_000))
}

fn thirty_thousand_patterns() -> String {
    format!("---\npaths: [{}]\n---\nbody\n", patterns(30_000))
}

#[divan::bench]
fn parse_plain_rule(bencher: Bencher) {
    let text = "---\npaths: [\"src/ui/**/*.tsx\", \"src/ui/**/*.css\"]\n---\nbody\n";
    bencher.bench(|| {
        let verdict = jit_core::__fuzz_parse_rule(black_box(text.as_bytes()));
        assert!(matches!(verdict, FuzzVerdict::Scoped(_)));
    });
}

#[divan::bench]
fn parse_alias_bomb(bencher: Bencher) {
    let text = alias_bomb();
    bencher.bench(|| {
        let verdict = jit_core::__fuzz_parse_rule(black_box(text.as_bytes()));
        assert_eq!(verdict, FuzzVerdict::Skipped(SkipReason::YamlTooComplex));
    });
}

#[divan::bench]
fn parse_many_patterns(bencher: Bencher) {
    let text = many_patterns();
    bencher.bench(|| {
        let verdict = jit_core::__fuzz_parse_rule(black_box(text.as_bytes()));
        assert_eq!(verdict, FuzzVerdict::Skipped(SkipReason::TooManyPatterns));
    });
}

#[divan::bench]
fn parse_thirty_thousand_patterns(bencher: Bencher) {
    let text = thirty_thousand_patterns();
    bencher.bench(|| {
        let verdict = jit_core::__fuzz_parse_rule(black_box(text.as_bytes()));
        assert_eq!(verdict, FuzzVerdict::Skipped(SkipReason::YamlTooComplex));
    });
}

#[divan::bench]
fn parse_duplicates(bencher: Bencher) {
    let text = format!(
        "---\npaths: \"{}\"\n---\nbody\n",
        vec!["a"; 32_000].join(",")
    );
    bencher.bench(|| {
        let verdict = jit_core::__fuzz_parse_rule(black_box(text.as_bytes()));
        assert_eq!(verdict, FuzzVerdict::Scoped(vec!["a".to_owned()]));
    });
}

#[divan::bench]
fn ten_touches_thirty_thousand_patterns(bencher: Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().join("proj")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join(".claude/rules/list.md"),
        thirty_thousand_patterns(),
    )
    .unwrap();
    fs::write(root.join(".claude/rules/string.md"), many_patterns()).unwrap();
    let engine = Engine::new(&root).unwrap();
    let touched: Vec<Utf8PathBuf> = (0..10).map(|i| format!("src/f{i}.ts").into()).collect();
    bencher.bench(|| {
        let mut state = DiscoveryState::default();
        let mut skipped = 0;
        for path in &touched {
            skipped += engine
                .discover(&mut state, path, engine.root())
                .skipped
                .len();
        }
        assert_eq!(skipped, 2);
    });
}
