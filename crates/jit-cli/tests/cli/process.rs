//! How a `jit` process starts and ends, whatever command it runs: what std's own start guarantees, kept by the entry point `jit` has on Linux with glibc (`src/start.rs`), and what that entry leaves out.

use std::process::{Command, Output};

/// Runs `script` with `sh -c`, `$0` the `jit` binary, and `HOME` an empty
/// temporary directory.
fn sh(script: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_jit")])
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
        .output()
        .unwrap()
}

#[test]
fn a_closed_standard_stream_is_read_and_written_as_dev_null() {
    // Written to a closed descriptor, `--version` would fail with EBADF
    // (exit 2); on /dev/null it succeeds.
    let out = sh(r#"exec "$0" --version >&-"#);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stderr, b"");
    // Read from a closed descriptor, an empty command would be an error.
    let out = sh(r#"exec "$0" bash - <&-"#);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stderr, b"");
    // With stdin and stdout closed, the error goes to stderr, not to a
    // file that took their numbers.
    let out = sh(r#"exec "$0" explain --no-such-flag <&- >&-"#);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-such-flag"));
}

#[test]
fn a_panic_no_command_catches_ends_the_process_with_status_101() {
    if !cfg!(debug_assertions) {
        // The switch that makes it panic is in debug builds only.
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jit"))
        .arg("--version")
        .env("HOME", home.path())
        .env("JIT_DEBUG_PANIC", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert!(err.contains("JIT_DEBUG_PANIC is set"), "{err}");
    assert_eq!(out.stdout, b"");
}

/// What the entry point is for: no read of `/proc/self/maps` and no
/// alternate signal stack before `main` (std's start makes both).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_start_reads_no_memory_map_and_maps_no_signal_stack() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace");
    let ran = Command::new("strace")
        .arg("-f")
        .args(["-e", "trace=openat,sigaltstack"])
        .arg("-o")
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_jit"))
        .arg("--version")
        .env("HOME", dir.path())
        .stdin(std::process::Stdio::piped())
        .output();
    let trace = match ran {
        Ok(out) if out.status.success() => std::fs::read_to_string(&trace).unwrap(),
        // Without strace, or where tracing is not allowed, there is nothing
        // to look at; the other tests still hold the behaviour.
        other => {
            let why = match other {
                Ok(out) => String::from_utf8_lossy(&out.stderr).into_owned(),
                Err(err) => err.to_string(),
            };
            eprintln!("skipped the trace: strace could not run jit: {why}");
            return;
        }
    };
    assert!(trace.contains("openat("), "the trace saw nothing:\n{trace}");
    assert!(!trace.contains("/proc/self/maps"), "{trace}");
    assert!(!trace.contains("sigaltstack("), "{trace}");
    // Its standard streams were open: nothing was opened in their place.
    assert!(!trace.contains("/dev/null"), "{trace}");
}
