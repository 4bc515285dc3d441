//! Rule frontmatter under hostile input: damaged fences never make a scoped rule unscoped, and every limit (pattern count, pattern length, YAML size and complexity) is refused cheaply with a named reason.

use std::cell::Cell;
use std::fs;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Attribution, ClaudeSource, DiscoveryState, Engine, LoadedRule, MAX_FRONTMATTER_BYTES,
    MAX_PATTERN_BYTES, MAX_SCOPE_PATTERNS, MAX_YAML_ALIASES, MAX_YAML_DEPTH, MAX_YAML_NODES,
    RuleScopeCheck, SkipReason, SkippedRule, check_rule_text,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The rule file every case writes.
const RULE: &str = ".claude/rules/r.md";

/// What the engine made of the rule file on one touch.
#[derive(Debug)]
enum Outcome {
    Loaded(LoadedRule),
    Skipped(SkippedRule),
}

/// Writes `text` as the only rule of a fresh project and touches `touched`.
fn touch(text: &[u8], touched: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().join("proj")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::write(root.join(RULE), text).unwrap();
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let found = engine.discover(&mut state, Utf8Path::new(touched), engine.root());
    let mut outcomes: Vec<Outcome> = found
        .loaded
        .into_iter()
        .filter(|l| l.file == RULE)
        .map(Outcome::Loaded)
        .chain(
            found
                .skipped
                .into_iter()
                .filter(|s| s.file == RULE)
                .map(Outcome::Skipped),
        )
        .collect();
    assert_eq!(outcomes.len(), 1, "one decision for the rule: {outcomes:?}");
    outcomes.remove(0)
}

/// The expected result of one rule file.
enum Expect<'a> {
    /// Loaded as scoped by `src/**`, with this many warnings, each
    /// containing the given text.
    Scoped(usize, &'a str),
    /// Skipped with this reason, the detail containing the given text.
    Skip(SkipReason, &'a str),
}

#[track_caller]
fn check(text: &str, expect: Expect<'_>) {
    match (touch(text.as_bytes(), "src/a.ts"), expect) {
        (Outcome::Loaded(rule), Expect::Scoped(warnings, said)) => {
            assert_eq!(rule.attribution, Attribution::PathGlobMatch, "{text:?}");
            assert_eq!(rule.scope, Some(vec!["src/**".to_owned()]), "{text:?}");
            assert_eq!(
                rule.warnings.len(),
                warnings,
                "{text:?}: {:?}",
                rule.warnings
            );
            assert!(
                rule.warnings.iter().all(|w| w.contains(said)),
                "{text:?}: {:?}",
                rule.warnings
            );
            // And it stays scoped: another file does not get it.
            match touch(text.as_bytes(), "docs/a.md") {
                Outcome::Skipped(skip) => assert_eq!(skip.reason, SkipReason::ScopeMiss),
                Outcome::Loaded(rule) => panic!("{text:?} loaded for docs/a.md: {rule:?}"),
            }
        }
        (Outcome::Skipped(skip), Expect::Skip(reason, said)) => {
            assert_eq!(skip.reason, reason, "{text:?}: {}", skip.detail);
            assert!(skip.detail.contains(said), "{text:?}: {}", skip.detail);
        }
        (got, _) => panic!("{text:?}: unexpected {got:?}"),
    }
}

#[test]
fn damaged_fences_are_recovered_with_a_warning_or_refused_never_unscoped() {
    use Expect::{Scoped, Skip};
    let invalid = SkipReason::InvalidFrontmatter;
    check("---\npaths: src/**\n---\nbody\n", Scoped(0, ""));
    check("---\npaths: [\"src/**\"]\n---\nbody\n", Scoped(0, ""));
    check(
        "\u{feff}---\npaths: [\"src/**\"]\n---\nbody\n",
        Scoped(0, ""),
    );
    check(
        "---\r\npaths: [\"src/**\"]\r\n---\r\nbody\r\n",
        Scoped(0, ""),
    );
    check(
        "---\rpaths: [\"src/**\"]\r---\rbody\r",
        Scoped(1, "bare CR"),
    );
    check(
        "\n\n---\npaths: [\"src/**\"]\n---\nbody\n",
        Scoped(1, "line 3"),
    );
    check(
        " \n---\npaths: [\"src/**\"]\n---\nbody\n",
        Scoped(1, "blank lines"),
    );
    check(
        "---\npaths: [\"src/**\"]\n...\nbody\n",
        Scoped(1, "`...` on line 3"),
    );
    check(
        " ---\npaths: [\"src/**\"]\n---\nbody\n",
        Skip(invalid, "indented"),
    );
    check(
        "\t---\npaths: [\"src/**\"]\n---\nbody\n",
        Skip(invalid, "indented"),
    );
    check(
        "--- yaml\npaths: [\"src/**\"]\n---\nbody\n",
        Skip(invalid, "`--- yaml`"),
    );
    check(
        "---yaml\npaths: [\"src/**\"]\n---\nbody\n",
        Skip(invalid, "line 1"),
    );
    check(
        "----\npaths: [\"src/**\"]\n----\nbody\n",
        Skip(invalid, "line 1"),
    );
    check(
        "---\npaths: [\"src/**\"]\nbody\n",
        Skip(invalid, "no later line closes it"),
    );
    check("\n---\npaths: [\"src/**\"]\n", Skip(invalid, "line 2"));
    // An invisible character before the fence (each one found loading a
    // scoped rule everywhere), after a BOM, among the dashes: refused, the
    // code point named. NBSP, tab and form feed were refused already; the
    // NBSP and the form feed are now named too.
    for (c, name) in [
        ('\u{200b}', "U+200B ZERO WIDTH SPACE"),
        ('\u{200c}', "U+200C ZERO WIDTH NON-JOINER"),
        ('\u{200e}', "U+200E LEFT-TO-RIGHT MARK"),
        ('\u{2060}', "U+2060 WORD JOINER"),
        ('\u{ad}', "U+00AD SOFT HYPHEN"),
        ('\u{a0}', "U+00A0 NO-BREAK SPACE"),
        ('\u{c}', "U+000C FORM FEED"),
        ('\u{3164}', "U+3164 HANGUL FILLER"),
        ('\u{fe0f}', "U+FE0F VARIATION SELECTOR-16"),
    ] {
        let rest = "\npaths: [\"src/**\"]\n---\nbody\n";
        check(&format!("{c}---{rest}"), Skip(invalid, name));
        check(&format!("\u{feff}{c}---{rest}"), Skip(invalid, name));
        check(&format!("-{c}--{rest}"), Skip(invalid, name));
    }
    check(
        "\u{200b}\n---\npaths: [\"src/**\"]\n---\nbody\n",
        Skip(
            invalid,
            "line 1 looks blank but holds U+200B ZERO WIDTH SPACE",
        ),
    );
    check(
        "---\n\u{200b}paths: [\"src/**\"]\n---\nbody\n",
        Skip(invalid, "so it is not `paths`"),
    );
}

/// Every code point of general category `Cf` or with the property
/// `Default_Ignorable_Code_Point`, by the Unicode data `regex-syntax`
/// carries (not by the engine's own table).
fn format_and_ignorable() -> Vec<char> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(r"[\p{Cf}\p{Default_Ignorable_Code_Point}]")
        .unwrap();
    let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) = hir.kind()
    else {
        panic!("a Unicode class expected: {hir:?}")
    };
    class
        .ranges()
        .iter()
        .flat_map(|r| r.start()..=r.end())
        .collect()
}

/// The engine's verdict on `text` as a Claude rule: refused as
/// `invalid_frontmatter` with a detail naming `code`, or what it was.
#[track_caller]
fn refused_naming(text: &str, code: &str) -> Result<(), String> {
    match check_rule_text(text, &ClaudeSource::default()).verdict {
        Err((SkipReason::InvalidFrontmatter, detail)) if detail.contains(code) => Ok(()),
        other => Err(format!("{text:?}: {other:?}")),
    }
}

#[test]
fn every_format_or_invisible_character_around_the_opening_fence_is_refused_by_its_code_point() {
    let rest = "\npaths: [\"src/**\"]\n---\nbody\n";
    let mut hidden = format_and_ignorable();
    assert!(hidden.len() > 4_000, "{}", hidden.len());
    // Whitespace other than ASCII's, the control characters (NUL makes a
    // file binary before any of this), and the blank Braille cell.
    hidden.extend((0..=0x10_ffff_u32).filter_map(char::from_u32).filter(|&c| {
        !matches!(c, ' ' | '\t' | '\n' | '\r' | '\0')
            && (c.is_whitespace() || c.is_control() || c == '\u{2800}')
    }));
    let mut failures = Vec::new();
    for &c in &hidden {
        let code = format!("U+{:04X}", u32::from(c));
        let mut cases = vec![
            format!("\u{feff}{c}---{rest}"),
            format!("-{c}--{rest}"),
            format!("--{c}-{rest}"),
            format!("---{c}{rest}"),
            format!(" {c}---{rest}"),
        ];
        // One BOM first is the encoding mark, read without a word.
        if c != '\u{feff}' {
            cases.push(format!("{c}---{rest}"));
        }
        // A line of whitespace above the fence is a blank line (read, with
        // a warning); any other hidden character makes it text.
        if !c.is_whitespace() && c != '\u{feff}' {
            cases.push(format!("{c}\n---{rest}"));
        }
        for text in cases {
            if let Err(failure) = refused_naming(&text, &code) {
                failures.push(failure);
            }
        }
        // As the first character of the scope key it makes another key:
        // refused (by this check or by the YAML parser), or read as
        // `paths` by a parser that skips it; never unscoped.
        let key = format!("---\n{c}paths: [\"src/**\"]\n---\nbody\n");
        let verdict = check_rule_text(&key, &ClaudeSource::default()).verdict;
        let scoped = Ok(RuleScopeCheck::Paths(vec!["src/**".to_owned()]));
        if !matches!(verdict, Err((SkipReason::InvalidFrontmatter, _))) && verdict != scoped {
            failures.push(format!("{key:?}: {verdict:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases of {} characters: {:#?}",
        failures.len(),
        hidden.len(),
        &failures[..failures.len().min(20)]
    );
    // A hidden character that opens no fence is the body's business.
    assert_eq!(
        check_rule_text("\u{200b}\n# Title\n", &ClaudeSource::default()).verdict,
        Ok(RuleScopeCheck::Always)
    );
}

#[test]
fn yaml_errors_say_where_in_plain_words() {
    let cases = [
        ("---\ndescription: [unclosed\n---\n", "line 2"),
        (
            "---\ndescription: a\ndescription: b\npaths: [\"src/**\"]\n---\n",
            "written twice",
        ),
        ("---\npaths:\n  src: 1\n---\n", "line 2"),
        (
            "---\npaths:\n  - \"src/**\"\n  - [a]\n---\n",
            "item 2 is a list",
        ),
        ("---\n- a\n- b\n---\n", "is a list"),
    ];
    for (text, said) in cases {
        // A scope that could still be read loads with the message as a
        // warning; otherwise the message is the skip's detail.
        let message = match touch(text.as_bytes(), "src/a.ts") {
            Outcome::Skipped(skip) => {
                assert_eq!(skip.reason, SkipReason::InvalidFrontmatter, "{text:?}");
                skip.detail
            }
            Outcome::Loaded(rule) => {
                assert_eq!(rule.scope, Some(vec!["src/**".to_owned()]), "{text:?}");
                assert!(!rule.warnings.is_empty(), "{text:?}");
                rule.warnings.join("\n")
            }
        };
        assert!(message.contains(said), "{text:?}: {message}");
        for internal in ["Some(", "Options", "{ ", "::", "invalid type", "Policy"] {
            assert!(!message.contains(internal), "{text:?}: {message}");
        }
    }
}

/// A rule scoped by `patterns`, written as one quoted comma-separated string.
fn rule_with(patterns: &[String]) -> String {
    format!("---\npaths: \"{}\"\n---\nbody\n", patterns.join(","))
}

fn distinct_patterns(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("d{i}/**")).collect()
}

#[test]
fn the_pattern_count_is_limited_at_its_boundary() {
    let mut at = distinct_patterns(MAX_SCOPE_PATTERNS - 1);
    at.push("src/**".to_owned());
    match touch(rule_with(&at).as_bytes(), "src/a.ts") {
        Outcome::Loaded(rule) => assert_eq!(rule.scope.unwrap().len(), MAX_SCOPE_PATTERNS),
        Outcome::Skipped(skip) => panic!("{skip:?}"),
    }
    at.push("src2/**".to_owned());
    let Outcome::Skipped(skip) = touch(rule_with(&at).as_bytes(), "src/a.ts") else {
        panic!("one pattern past the limit was loaded")
    };
    assert_eq!(skip.reason, SkipReason::TooManyPatterns);
    assert!(
        skip.detail
            .contains(&format!("lists {} patterns", MAX_SCOPE_PATTERNS + 1)),
        "{}",
        skip.detail
    );
}

#[test]
fn duplicates_do_not_count_against_the_pattern_limit() {
    let mut patterns = vec!["src/**".to_owned(); 4 * MAX_SCOPE_PATTERNS];
    patterns.push("./src/**".to_owned());
    match touch(rule_with(&patterns).as_bytes(), "src/a.ts") {
        Outcome::Loaded(rule) => assert_eq!(rule.scope, Some(vec!["src/**".to_owned()])),
        Outcome::Skipped(skip) => panic!("{skip:?}"),
    }
}

#[test]
fn thirty_thousand_patterns_are_refused_before_any_matching() {
    // Written as a list they are far over the frontmatter size limit: the
    // rule is refused before its YAML is parsed.
    let patterns: Vec<String> = (0..30_000).map(|i| format!("{i:x}")).collect();
    let list = format!("---\npaths: [{}]\n---\nbody\n", patterns.join(","));
    assert!(list.len() > MAX_FRONTMATTER_BYTES);
    // Written as tightly as they can be, as many as fit under that limit
    // (over ten thousand) are refused by count, with nothing compiled.
    let tight: Vec<String> = (0..10_000).map(|i| format!("{i:x}")).collect();
    let string = rule_with(&tight);
    assert!(string.len() < MAX_FRONTMATTER_BYTES);
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::write(root.join(".claude/rules/list.md"), list).unwrap();
    fs::write(root.join(".claude/rules/string.md"), string).unwrap();
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let found = engine.discover(&mut state, "src/f.ts".into(), engine.root());
    assert!(found.loaded.is_empty());
    let skipped: Vec<(&str, SkipReason)> = found
        .skipped
        .iter()
        .map(|s| (s.file.as_str(), s.reason))
        .collect();
    assert_eq!(
        skipped,
        [
            (".claude/rules/list.md", SkipReason::YamlTooComplex),
            (".claude/rules/string.md", SkipReason::TooManyPatterns),
        ]
    );
    assert!(found.skipped[0].detail.contains("bytes, over the limit"));
    assert!(found.skipped[1].detail.contains("lists 10000 patterns"));
    // Refused rules are no scope misses: the folder is judged once, and
    // further touches neither read nor match them.
    for i in 0..10 {
        let touched = format!("src/f{i}.ts");
        let found = engine.discover(&mut state, Utf8Path::new(&touched), engine.root());
        assert!(
            found.loaded.is_empty() && found.skipped.is_empty(),
            "{found:?}"
        );
    }
}

#[test]
fn the_pattern_length_is_limited_at_its_boundary() {
    let at = format!("src/{}", "a".repeat(MAX_PATTERN_BYTES - 4));
    let past = format!("src/{}", "a".repeat(MAX_PATTERN_BYTES - 3));
    for (pattern, accepted) in [(at, true), (past, false)] {
        let text = format!("---\npaths: [\"src/**\", \"{pattern}\"]\n---\nbody\n");
        match touch(text.as_bytes(), "src/a.ts") {
            Outcome::Loaded(rule) if accepted => assert_eq!(rule.scope.unwrap().len(), 2),
            Outcome::Skipped(skip) if !accepted => {
                assert_eq!(skip.reason, SkipReason::PatternTooLong);
                assert!(skip.detail.contains("pattern 2"), "{}", skip.detail);
                assert!(
                    skip.detail.len() < 300,
                    "the detail quotes the pattern briefly"
                );
            }
            got => panic!("{} bytes: {got:?}", pattern.len()),
        }
    }
}

/// A rule scoped by `src/**` whose YAML between the fences is exactly `n`
/// bytes (a long `description` fills it).
fn frontmatter_of(n: usize) -> String {
    let head = "paths: [\"src/**\"]\ndescription: \"";
    let tail = "\"\n";
    let fill = n - head.len() - tail.len();
    format!("---\n{head}{}{tail}---\nbody\n", "x".repeat(fill))
}

#[test]
fn the_frontmatter_size_is_limited_at_its_boundary() {
    check(
        &frontmatter_of(MAX_FRONTMATTER_BYTES),
        Expect::Scoped(0, ""),
    );
    check(
        &frontmatter_of(MAX_FRONTMATTER_BYTES + 1),
        Expect::Skip(SkipReason::YamlTooComplex, "65537 bytes"),
    );
}

#[test]
fn yaml_aliases_are_limited_at_their_boundary() {
    let aliases = |n: usize| {
        format!(
            "---\npaths: [\"src/**\"]\nx: &x 1\nmany: [{}]\n---\nbody\n",
            vec!["*x"; n].join(", ")
        )
    };
    check(&aliases(MAX_YAML_ALIASES), Expect::Scoped(0, ""));
    check(
        &aliases(MAX_YAML_ALIASES + 1),
        Expect::Skip(SkipReason::YamlTooComplex, "aliases"),
    );
}

#[test]
fn yaml_nesting_is_limited_at_its_boundary() {
    // The top mapping is one level, each `[` another.
    let nested = |levels: usize| {
        format!(
            "---\npaths: [\"src/**\"]\ndeep: {}x{}\n---\nbody\n",
            "[".repeat(levels - 1),
            "]".repeat(levels - 1)
        )
    };
    check(&nested(MAX_YAML_DEPTH), Expect::Scoped(0, ""));
    check(
        &nested(MAX_YAML_DEPTH + 1),
        Expect::Skip(SkipReason::YamlTooComplex, "nests deeper"),
    );
}

#[test]
fn yaml_values_are_limited_at_their_boundary() {
    // The mapping, three keys, the scope value and the list: six values
    // besides the list's items.
    let values = |n: usize| {
        format!(
            "---\npaths: src/x\nmany: [{}]\n---\nbody\n",
            vec!["1"; n - 5].join(",")
        )
    };
    match touch(values(MAX_YAML_NODES).as_bytes(), "src/x") {
        Outcome::Loaded(rule) => assert_eq!(rule.scope, Some(vec!["src/x".to_owned()])),
        Outcome::Skipped(skip) => panic!("{skip:?}"),
    }
    match touch(values(MAX_YAML_NODES + 1).as_bytes(), "src/x") {
        Outcome::Skipped(skip) => {
            assert_eq!(skip.reason, SkipReason::YamlTooComplex);
            assert!(skip.detail.contains("values"), "{}", skip.detail);
        }
        Outcome::Loaded(rule) => panic!("{rule:?}"),
    }
}

#[test]
fn an_alias_bomb_is_refused_as_too_complex() {
    // Nine levels of nine aliases: 387,420,489 strings once expanded.
    let mut text = String::from(
        "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        text.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    text.push_str("paths: *i\n---\nbody\n");
    check(
        &text,
        Expect::Skip(SkipReason::YamlTooComplex, "expands to more than"),
    );
}

/// How a generated frontmatter was damaged.
#[derive(Debug, Clone)]
struct Damage {
    bom: bool,
    leading: &'static str,
    opener: &'static str,
    closer: Option<&'static str>,
    /// Line endings: 0 LF, 1 CRLF, 2 bare CR, 3 mixed (by line).
    endings: u8,
    truncate: Option<prop::sample::Index>,
}

fn damage() -> impl Strategy<Value = Damage> {
    (
        any::<bool>(),
        prop::sample::select(vec![
            "",
            "",
            "",
            "",
            "\n",
            "\n\n",
            "  \n",
            " ",
            "\t",
            "\u{200b}",
            "\u{2060}\n",
            "\u{a0}",
        ]),
        prop::sample::select(vec![
            "---",
            "---",
            "---",
            "---",
            "---",
            "--- ",
            "---\t",
            "--- yaml",
            "----",
            "---yaml",
            "-\u{ad}--",
            "\u{200e}---",
        ]),
        prop::option::weighted(
            0.85,
            prop::sample::select(vec!["---", "---", "--- ", "...", "----"]),
        ),
        0u8..4,
        prop::option::weighted(0.3, any::<prop::sample::Index>()),
    )
        .prop_map(|(bom, leading, opener, closer, endings, truncate)| Damage {
            bom,
            leading,
            opener,
            closer,
            endings,
            truncate,
        })
}

fn pattern() -> impl Strategy<Value = String> {
    let segment = "[a-z]{1,5}";
    prop_oneof![
        (segment, segment).prop_map(|(a, b)| format!("{a}/{b}/**")),
        segment.prop_map(|a| format!("**/*.{a}")),
        (segment, segment, segment).prop_map(|(a, b, c)| format!("{a}/{{{b},{c}}}/**")),
        (segment, segment).prop_map(|(a, b)| format!("{a}/*.{b}")),
    ]
}

/// A `paths:` frontmatter in one of the shapes of the wild; the first
/// pattern is always `t/**`, so touching `t/f.rs` loads a scoped rule.
fn rule() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    (
        prop::collection::vec(pattern(), 0..4),
        0u8..4,
        any::<bool>(),
    )
        .prop_map(|(more, shape, description)| {
            let mut patterns = vec!["t/**".to_owned()];
            for p in more {
                if !patterns.contains(&p) {
                    patterns.push(p);
                }
            }
            let quoted: Vec<String> = patterns.iter().map(|p| format!("\"{p}\"")).collect();
            let mut lines = Vec::new();
            if description {
                lines.push("description: a rule".to_owned());
            }
            match shape {
                0 => lines.push(format!("paths: [{}]", quoted.join(", "))),
                1 => {
                    lines.push("paths:".to_owned());
                    lines.extend(quoted.iter().map(|q| format!("  - {q}")));
                }
                2 => lines.push(format!("paths: \"{}\"", patterns.join(", "))),
                _ => lines.push(format!("paths: {}", patterns.join(", "))),
            }
            (patterns, lines)
        })
}

/// Joins lines with the damaged line endings.
fn assemble(lines: &[String], damage: &Damage) -> String {
    let mut text = String::new();
    if damage.bom {
        text.push('\u{feff}');
    }
    text.push_str(damage.leading);
    for (i, line) in lines.iter().enumerate() {
        text.push_str(line);
        text.push_str(match (damage.endings, i % 3) {
            (0, _) | (3, 0) => "\n",
            (1, _) | (3, 1) => "\r\n",
            _ => "\r",
        });
    }
    if let Some(index) = &damage.truncate {
        let mut cut = index.index(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The invisible characters [`damage`] writes.
const INVISIBLE: [char; 5] = ['\u{200b}', '\u{2060}', '\u{a0}', '\u{ad}', '\u{200e}'];

/// Whether the first line that shows something starts like a fence, told
/// here on its own terms (BOM skipped; `\n`, `\r\n` and `\r` all end a
/// line; the invisible characters [`damage`] writes set aside).
fn opens_like_a_fence(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split(['\n', '\r'])
        .map(|line| line.replace(INVISIBLE, ""))
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.trim_start().starts_with("---"))
}

#[test]
fn a_scoped_rule_never_becomes_unscoped() {
    let scoped = Cell::new(0);
    let recovered = Cell::new(0);
    let refused = Cell::new(0);
    let no_frontmatter = Cell::new(0);
    let config = Config {
        cases: 800,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner
        .run(&(rule(), damage()), |((patterns, yaml), damage)| {
            let mut lines = vec![damage.opener.to_owned()];
            lines.extend(yaml);
            if let Some(closer) = damage.closer {
                lines.push(closer.to_owned());
            }
            lines.push("Body text.".to_owned());
            let text = assemble(&lines, &damage);
            let clean = damage.truncate.is_none()
                && !damage.leading.ends_with([' ', '\t'])
                && !damage.leading.contains(INVISIBLE)
                && matches!(damage.opener, "---" | "--- " | "---\t")
                && matches!(damage.closer, Some("---" | "--- " | "..."));
            match touch(text.as_bytes(), "t/f.rs") {
                Outcome::Loaded(rule) if rule.attribution == Attribution::PathGlobMatch => {
                    prop_assert_eq!(rule.scope.as_ref(), Some(&patterns), "{:?}", text);
                    scoped.set(scoped.get() + 1);
                    if !rule.warnings.is_empty() {
                        recovered.set(recovered.get() + 1);
                    }
                }
                Outcome::Loaded(rule) => {
                    // Unscoped: only a file cut before its opening fence.
                    prop_assert_eq!(rule.attribution, Attribution::NestedTraversal);
                    prop_assert!(!opens_like_a_fence(&text), "unscoped: {:?}", text);
                    prop_assert!(damage.truncate.is_some(), "unscoped: {:?}", text);
                    no_frontmatter.set(no_frontmatter.get() + 1);
                }
                Outcome::Skipped(skip) => {
                    prop_assert_eq!(skip.reason, SkipReason::InvalidFrontmatter, "{:?}", text);
                    prop_assert!(
                        !clean,
                        "a readable frontmatter was refused: {:?}: {}",
                        text,
                        skip.detail
                    );
                    refused.set(refused.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    let counts = [
        scoped.get(),
        recovered.get(),
        refused.get(),
        no_frontmatter.get(),
    ];
    assert_eq!(counts[0] + counts[2] + counts[3], 800, "{counts:?}");
    assert!(counts[0] >= 150, "scoped {counts:?}");
    assert!(counts[1] >= 50, "recovered with a warning {counts:?}");
    assert!(counts[2] >= 150, "refused {counts:?}");
    assert!(counts[3] >= 3, "cut before the fence {counts:?}");
}
