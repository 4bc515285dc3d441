//! Hostile input: every limit is named, every refusal is visible, and small inputs cause bounded work.
//!
//! The work is bounded by counting what comes out (paths, skipped words),
//! never by timing; `benches/extract.rs` and the fuzz README hold the times.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed limit should stop the test loudly"
)]

use jit_bash::{
    MAX_BRACE_WORDS, MAX_COMMAND_BYTES, MAX_DEPTH, PARSE_BUDGET_PER_BYTE, SkipReason, written_paths,
};

#[track_caller]
fn refused_alone(command: &str, reason: SkipReason) -> String {
    let analysis = written_paths(command);
    assert!(analysis.paths.is_empty(), "{:?}", analysis.paths);
    assert_eq!(analysis.skipped.len(), 1, "{:?}", analysis.skipped);
    assert_eq!(analysis.skipped[0].reason, reason);
    analysis.skipped[0].word.clone()
}

#[test]
fn brace_expansion_past_the_limit_is_skipped_as_too_many_expansions() {
    // `{a,b}` 30 times is 2^30 words from 150 bytes.
    let doubling = format!("touch {}", "{a,b}".repeat(30));
    let analysis = written_paths(&doubling);
    assert!(analysis.paths.is_empty());
    assert_eq!(analysis.skipped.len(), 1);
    assert_eq!(analysis.skipped[0].reason, SkipReason::TooManyExpansions);
    assert_eq!(analysis.skipped[0].reason.as_str(), "too_many_expansions");
    // One list of 18,000 items.
    let items: Vec<String> = (0..18_000).map(|i| format!("f{i}")).collect();
    let wide = format!("touch {{{}}}", items.join(","));
    let analysis = written_paths(&wide);
    assert!(analysis.paths.is_empty());
    assert_eq!(analysis.skipped[0].reason, SkipReason::TooManyExpansions);
    // Up to the limit the words are all there.
    let items: Vec<String> = (0..MAX_BRACE_WORDS).map(|i| format!("f{i}")).collect();
    let at_limit = format!("touch {{{}}}", items.join(","));
    assert_eq!(written_paths(&at_limit).paths.len(), MAX_BRACE_WORDS);
}

#[test]
fn nesting_past_the_limit_is_refused_whole_as_too_deep() {
    let deep = format!(
        "touch a; {}touch b{}",
        "( ".repeat(MAX_DEPTH + 1),
        " )".repeat(MAX_DEPTH + 1)
    );
    let message = refused_alone(&deep, SkipReason::TooDeep);
    assert!(message.contains("deeper than 100 levels"), "{message}");
    let substitutions = format!(
        "echo {}x{}",
        "$(echo ".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    refused_alone(&substitutions, SkipReason::TooDeep);
    // At the limit, the writes are reported.
    let at_limit = format!(
        "{}touch b{}",
        "( ".repeat(MAX_DEPTH),
        " )".repeat(MAX_DEPTH)
    );
    assert_eq!(written_paths(&at_limit).paths, ["b"]);
}

/// A here-document of `len` bytes in all writing `src/big.ts`: the long
/// command an agent writes a file with.
fn heredoc_of(len: usize) -> String {
    let head = "cat > src/big.ts <<'EOF'\n";
    let tail = "\nEOF";
    let line = "export const value = compute(1, 'text');\n";
    let mut body = line.repeat((len - head.len() - tail.len()) / line.len() + 1);
    body.truncate(len - head.len() - tail.len());
    format!("{head}{body}{tail}")
}

/// The parse costs up to 4 µs and 300 bytes per byte of dense commands: a
/// 22 MB command once took 21 s and 1.5 GB, past an agent hook's timeout.
/// Past the cap the text is refused unparsed, with its length; at the cap it
/// is read.
#[test]
fn a_command_over_the_byte_cap_is_refused_whole_as_too_large() {
    let at_cap = heredoc_of(MAX_COMMAND_BYTES);
    assert_eq!(at_cap.len(), MAX_COMMAND_BYTES);
    let analysis = written_paths(&at_cap);
    assert_eq!(analysis.paths, ["src/big.ts"], "{:?}", analysis.skipped);
    let over = heredoc_of(MAX_COMMAND_BYTES + 1);
    let message = refused_alone(&over, SkipReason::TooLarge);
    assert_eq!(SkipReason::TooLarge.as_str(), "too_large");
    assert!(message.contains("262145 bytes"), "{message}");
    assert!(message.contains("262144"), "{message}");
    // 22 MB of commands: refused without a tree (the word is short, not
    // the text).
    let huge = "echo line >> out.txt\n".repeat(1_000_000);
    let message = refused_alone(&huge, SkipReason::TooLarge);
    assert!(message.len() < 200, "{message}");
}

#[test]
fn a_long_chain_is_not_nesting() {
    // Chains of `&&`, `||` and `|` nest in the tree, but not in the shell.
    let chain: Vec<String> = (0..2_000).map(|i| format!("touch f{i}")).collect();
    for joiner in [" && ", " || ", " | "] {
        assert_eq!(
            written_paths(&chain.join(joiner)).paths.len(),
            2_000,
            "{joiner:?}"
        );
    }
    // A 308-byte chain of the kind that once took a second to walk.
    let mixed = format!("{}touch end", "a|b&&c||d|".repeat(30));
    assert_eq!(mixed.len(), 309);
    assert_eq!(written_paths(&mixed).paths, ["end"]);
}

#[test]
fn many_redirections_are_deduplicated_in_first_seen_order() {
    // 15,000 redirections to 5,000 distinct files, each named three times.
    let mut command = String::from("echo x");
    for round in 0..3 {
        for i in 0..5_000 {
            let i = if round == 1 { 4_999 - i } else { i };
            command.push_str(&format!(" > out/{i}.txt"));
        }
    }
    let analysis = written_paths(&command);
    assert_eq!(analysis.paths.len(), 5_000);
    assert_eq!(analysis.paths[0], "out/0.txt");
    assert_eq!(analysis.paths[4_999], "out/4999.txt");
    // Skipped words are deduplicated the same way.
    let skipped = "echo x > $A > $B > $A > $B".to_owned();
    assert_eq!(written_paths(&skipped).skipped.len(), 2);
}

#[test]
fn every_refusal_of_the_whole_text_says_where() {
    for (command, part) in [
        ("echo \"open > a.txt", "unterminated double quote at line 1"),
        ("touch a; echo $(date", "line 1 column"),
        ("cat > a.txt <<EOF\nbody", "unterminated here-document"),
        ("touch $\"a\"", "cannot delimit"),
    ] {
        let message = refused_alone(command, SkipReason::ParseError);
        assert!(message.contains(part), "{command:?}: {message}");
    }
}

#[test]
fn deep_input_does_not_overflow_a_small_stack() {
    // 50,000 open parentheses, brackets and substitutions in a thread with
    // 256 KiB of stack: the parser and the walk are iterative.
    let inputs = [
        "(".repeat(50_000),
        format!("{}touch a{}", "{ ".repeat(20_000), "; }".repeat(20_000)),
        "$(".repeat(50_000),
        format!("echo {}", "\"$(".repeat(20_000)),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            inputs
                .iter()
                .map(|input| written_paths(input).skipped[0].reason)
                .collect::<Vec<_>>()
        })
        .unwrap();
    let reasons = handle.join().unwrap();
    assert_eq!(
        reasons,
        [
            SkipReason::ParseError,
            SkipReason::TooDeep,
            SkipReason::ParseError,
            SkipReason::ParseError
        ]
    );
}

#[test]
fn hostile_text_that_makes_the_parser_re_read_it_is_refused_as_too_complex() {
    // Unbounded, each of these costs time that grows with the square of its
    // length (the grammar's error recovery re-reads the text): from 100 to
    // 200 reads per byte at 4 KiB.
    // (`a <<EOF` and a NUL, repeated, was one too; raw control characters
    // are now refused before the grammar runs.)
    for hostile in [
        "x=( ".repeat(1024),
        "<<<".repeat(1365),
        "x 3<>e ".repeat(585),
    ] {
        let message = refused_alone(&hostile, SkipReason::TooComplex);
        assert!(
            message.contains(&format!("{PARSE_BUDGET_PER_BYTE} reads per byte")),
            "{message}"
        );
    }
    // Long valid text stays far inside the budget: 40 KB of commands and
    // here-documents.
    let mut script = String::new();
    for i in 0..400 {
        script.push_str(&format!(
            "mkdir -p src/m{i} && cat > src/m{i}/index.ts <<'EOF'\nexport const v = {i};\nEOF\necho \"w $i\" >> log.txt\n"
        ));
    }
    let analysis = written_paths(&script);
    assert!(
        analysis.skipped.is_empty(),
        "{:?}",
        analysis.skipped.first()
    );
    assert_eq!(analysis.paths.len(), 801);
}

#[test]
fn a_spent_budget_never_ends_the_input_inside_a_character() {
    // Found by fuzzing: the input was cut inside `؞` (two bytes) just as
    // the budget ran out, and the lexer read the empty rest through a null
    // pointer. Pieces now end on character boundaries.
    let found = "ec~<@@\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0&\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0oa 1>&ho؞>&@@~~zho؞ @@@@>&@@؞>&@@~~zho؞ @@&-- @@>&ho؞>&@@~~zho؞ @@@@>&@@؞>&@@~~zho؞ @@&-- &-";
    let analysis = written_paths(found);
    assert!(analysis.paths.is_empty());
    assert_eq!(analysis.skipped.len(), 1);
    assert!(matches!(
        analysis.skipped[0].reason,
        SkipReason::TooComplex | SkipReason::ParseError
    ));
    // Multi-byte characters everywhere, across every piece boundary, with
    // the budget spent at every possible point.
    for shift in 0..4 {
        let text = format!("{}{}", "a".repeat(shift), "é<<EOF ؞ x=( €".repeat(300));
        let analysis = written_paths(&text);
        assert!(analysis.paths.is_empty());
    }
}

/// Found by fuzzing: tree-sitter's GLR stack merging
/// (`stack_node_add_link`) is exponential on some broken pipelines. This
/// 186-byte input took about a second, and each further `|t a |tee b `
/// tripled the time, inside a single parse action that neither the read
/// budget nor the progress callback can interrupt. Its empty stage (`| |`)
/// is a syntax error to bash, and the text is refused by a one-pass scan
/// before the grammar runs.
#[test]
fn broken_pipelines_that_make_tree_sitter_merge_exponentially() {
    let found = " a | | tee |a |tee  |ba t | tee| tee b |@ a | a |tee t a | teb |t a |tee b |t a | tee| tee b |@@@@h-bat a | tee t a | tee b |t a |tee b |t a | b |t a |tee b |t a | touch /./tm/x /..{^/x,";
    let analysis = written_paths(found);
    assert!(analysis.paths.is_empty());
    assert_eq!(analysis.skipped[0].reason, SkipReason::ParseError);
    assert!(
        analysis.skipped[0]
            .word
            .contains("`|` where a command should be"),
        "{analysis:?}"
    );
}

/// The other inputs fuzzing found exponential (2 KiB pipelines holding raw
/// control characters: NUL, `^U`, `^R`): each is refused before the grammar
/// runs, by the control character it holds or by its empty stage.
#[test]
fn the_fuzz_found_exponential_inputs_are_refused_before_parsing() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-found");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let analysis = written_paths(&text);
        assert!(analysis.paths.is_empty());
        assert_eq!(analysis.skipped.len(), 1, "{analysis:?}");
        assert_eq!(analysis.skipped[0].reason, SkipReason::ParseError);
        seen += 1;
    }
    assert_eq!(seen, 6);
}
