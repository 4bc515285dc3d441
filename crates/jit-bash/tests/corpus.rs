//! Snapshot corpus: every command of `tests/cases/*.txt` with the paths and skipped words it yields.
//!
//! A case file holds one command per line. A command spanning several lines
//! (a here-document, a continuation) sits between a `>>>` line and a `<<<`
//! line. Lines starting with `#` outside such a block are comments.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a malformed case file should stop the test loudly"
)]

use std::fmt::Write as _;

use jit_bash::{SkipReason, written_paths};

#[path = "common/cases.rs"]
mod cases;
use cases::cases;

/// Renders one case as readable text: the command as a prompt, then one line
/// per path (`→`) and per skipped word (`skip`).
fn render(command: &str) -> String {
    let analysis = written_paths(command);
    let mut out = String::new();
    for (i, line) in command.lines().enumerate() {
        let prompt = if i == 0 { "$" } else { ">" };
        writeln!(out, "{prompt} {line}").unwrap();
    }
    for path in &analysis.paths {
        writeln!(out, "  → {path}").unwrap();
    }
    for skipped in &analysis.skipped {
        writeln!(out, "  skip {:?} ({})", skipped.word, skipped.reason).unwrap();
    }
    if analysis.paths.is_empty() && analysis.skipped.is_empty() {
        writeln!(out, "  (nothing)").unwrap();
    }
    out
}

#[test]
fn corpus() {
    insta::glob!("cases/*.txt", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let rendered: Vec<String> = cases(&text).iter().map(|c| render(c)).collect();
        insta::assert_snapshot!(rendered.join("\n"));
    });
}

/// Checks the exact paths and skip reasons of one command.
#[track_caller]
fn check(command: &str, paths: &[&str], reasons: &[SkipReason]) {
    let analysis = written_paths(command);
    let got_paths: Vec<&str> = analysis.paths.iter().map(String::as_str).collect();
    let got_reasons: Vec<SkipReason> = analysis.skipped.iter().map(|s| s.reason).collect();
    pretty_assertions::assert_eq!(
        (got_paths.as_slice(), got_reasons.as_slice()),
        (paths, reasons),
        "{command}"
    );
}

#[test]
fn design_table_gives_exactly_its_answers() {
    use SkipReason::*;
    check(
        "cat > src/ui/Badge.tsx <<EOF\nhello\nEOF",
        &["src/ui/Badge.tsx"],
        &[],
    );
    check("sed -i '' 's/a/b/' src/ui/F.tsx", &["src/ui/F.tsx"], &[]);
    check(
        "echo hi | tee -a src/api/log.txt",
        &["src/api/log.txt"],
        &[],
    );
    check(r#"echo x > "src/my dir/a.ts""#, &["src/my dir/a.ts"], &[]);
    check("cp src/a.ts src/ui/b.ts", &["src/ui/b.ts"], &[]);
    check("cp a.ts b.ts src/ui/", &["src/ui/"], &[]);
    check("touch src/ui/New.tsx", &["src/ui/New.tsx"], &[]);
    check("mkdir -p src/ui/sub", &["src/ui/sub"], &[]);
    check("echo x > $OUT", &[], &[Variable]);
    check("echo x > /dev/null", &[], &[Device]);
    check("rm src/ui/Old.tsx", &[], &[Delete]);
    check("python src/ui/gen.py", &[], &[UnsupportedCommand]);
}

// The refusals below are decisions, not gaps. Supporting any of them must be a
// deliberate change that turns these tests red first.

#[test]
fn deletions_are_never_reported() {
    use SkipReason::Delete;
    check("rm src/ui/Old.tsx", &[], &[Delete]);
    check("rm -rf build/ && rmdir out", &[], &[Delete, Delete]);
    check("unlink src/link", &[], &[Delete]);
}

#[test]
fn running_a_program_reports_nothing() {
    use SkipReason::UnsupportedCommand;
    check("python gen.py", &[], &[UnsupportedCommand]);
    check("make", &[], &[UnsupportedCommand]);
    check("npm run build", &[], &[UnsupportedCommand]);
}

#[test]
fn cd_is_not_followed() {
    check("cd src && touch a.ts", &["a.ts"], &[]);
    check("cd /elsewhere; mkdir -p out/", &["out/"], &[]);
}

#[test]
fn parse_error_yields_no_paths_and_one_entry_with_the_message() {
    let analysis = written_paths("touch a.txt; echo \"unterminated > b.txt");
    assert!(analysis.paths.is_empty());
    assert_eq!(analysis.skipped.len(), 1);
    assert_eq!(analysis.skipped[0].reason, SkipReason::ParseError);
    assert!(
        analysis.skipped[0]
            .word
            .contains("unterminated double quote"),
        "{}",
        analysis.skipped[0].word
    );
}

#[test]
fn every_reason_has_a_distinct_snake_case_name() {
    use SkipReason::*;
    let all = [
        Variable,
        CommandSubstitution,
        ArithmeticSubstitution,
        Tilde,
        Glob,
        BraceExpansion,
        Quoting,
        Device,
        Temp,
        Stdio,
        Empty,
        ParseError,
        TooDeep,
        TooComplex,
        TooLarge,
        TooManyExpansions,
        UnsupportedCommand,
        Delete,
        UncertainArguments,
    ];
    let names: std::collections::BTreeSet<&str> = all.iter().map(SkipReason::as_str).collect();
    assert_eq!(names.len(), all.len());
    for reason in all {
        assert_eq!(reason.to_string(), reason.as_str());
        assert!(
            reason
                .as_str()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_')
        );
    }
}
