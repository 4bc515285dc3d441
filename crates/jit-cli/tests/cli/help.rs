//! Tests of what a person meets first: `jit` alone, the top-level help with the exit codes, and an example in every command's help.

use crate::jit;

/// Every command, as typed after `jit`.
const COMMANDS: &[&[&str]] = &[
    &["explain"],
    &["startup"],
    &["stats"],
    &["bash"],
    &["paths"],
    &["imports"],
    &["hook"],
    &["hook", "install"],
    &["hook", "uninstall"],
    &["replay"],
    &["lint"],
    &["why"],
    &["audit"],
];

/// Checks that `jit <command> <flag>` exits 0 and shows an `Example:` block
/// whose next line runs `jit <first word of command>`.
#[track_caller]
fn check_example(command: &[&str], flag: &str) {
    let mut args = command.to_vec();
    args.push(flag);
    let (code, out, err) = jit(&args);
    assert_eq!(code, 0, "jit {args:?}: {err}");
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.starts_with("Example"))
        .unwrap_or_else(|| panic!("no example in `jit {}`:\n{out}", args.join(" ")));
    let example = lines.get(at + 1).copied().unwrap_or_default();
    assert!(
        example.trim_start().starts_with("jit ") || example.trim_start().starts_with("echo "),
        "`jit {}`: the line after `Example` runs nothing: {example:?}",
        args.join(" ")
    );
    assert!(
        out.contains(&format!("jit {}", command[0])),
        "`jit {}`: the example does not run `jit {}`:\n{out}",
        args.join(" "),
        command[0]
    );
}

#[test]
fn every_command_help_shows_an_example() {
    for command in COMMANDS {
        check_example(command, "--help");
        check_example(command, "-h");
    }
}

#[test]
fn why_long_help_shows_the_checklist_and_short_help_the_summary() {
    let (code, long, _) = jit(&["why", "--help"]);
    assert_eq!(code, 0);
    for step in [
        "1 candidate",
        "2 frontmatter",
        "3 scope",
        "4 load",
        "--json prints one object",
    ] {
        assert!(
            long.contains(step),
            "`jit why --help` lacks {step:?}:\n{long}"
        );
    }
    let (code, short, _) = jit(&["why", "-h"]);
    assert_eq!(code, 0);
    assert!(short.contains("four-step checklist"), "{short}");
    assert!(!short.contains("2 frontmatter"), "{short}");
}

#[test]
fn bare_jit_into_a_closed_pipe_is_quiet_and_into_a_full_device_fails() {
    // The reader has gone (`jit | head -c0`): it had what it wanted.
    let (code, err) = crate::jit_closed_stdout(None, &[]);
    assert_eq!((code, err.as_str()), (0, ""));
    // Any other write error is one: reported, exit status 2.
    #[cfg(target_os = "linux")]
    {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jit"))
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("jit: error:"), "{err}");
    }
}

#[test]
fn bare_jit_prints_where_to_start_and_exits_zero() {
    let (code, out, err) = jit(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    for first in [
        "jit replay",
        "jit explain",
        "jit lint",
        "jit hook install claude-code",
    ] {
        assert!(
            out.contains(first),
            "`jit` alone does not mention {first:?}:\n{out}"
        );
    }
    assert!(
        out.lines().count() <= 20,
        "the orientation is short:\n{out}"
    );
}

#[test]
fn top_level_help_documents_the_exit_codes_once() {
    let (code, out, _) = jit(&["--help"]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("Exit status:").count(), 1, "{out}");
    for code in ["0 ok", "1 findings", "2 a usage or input error"] {
        assert!(out.contains(code), "`jit --help` lacks {code:?}:\n{out}");
    }
}

#[test]
fn an_unknown_command_is_still_a_usage_error() {
    assert_eq!(jit(&["no-such-command"]).0, 2);
    assert_eq!(jit(&["--no-such-flag"]).0, 2);
}
