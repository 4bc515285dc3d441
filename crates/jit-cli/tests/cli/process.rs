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
fn a_closed_standard_stream_reads_nothing_and_takes_what_is_written() {
    // Nothing to read is an empty command; what is written is gone. Either
    // way the command succeeds, as with /dev/null.
    let out = sh(r#"exec "$0" --version >&-"#);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stderr, b"");
    let out = sh(r#"exec "$0" bash - <&-"#);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stderr, b"");
    // With stdin and stdout closed, an error still reaches stderr.
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

/// The `openat` and `sigaltstack` calls of `jit` run by `sh -c script`
/// (`$0` the binary), or `None` (saying why) where strace cannot run it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trace(script: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace");
    let ran = Command::new("strace")
        .arg("-f")
        .args(["-e", "trace=openat,sigaltstack"])
        .arg("-o")
        .arg(&trace)
        .args(["sh", "-c", script, env!("CARGO_BIN_EXE_jit")])
        .env("HOME", dir.path())
        .output();
    match ran {
        Ok(out) if out.status.success() => Some(std::fs::read_to_string(&trace).unwrap()),
        // Without strace, or where tracing is not allowed, there is nothing
        // to look at; the other tests still hold the behaviour.
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr);
            eprintln!("skipped the trace: strace could not run jit: {why}");
            None
        }
        Err(err) => {
            eprintln!("skipped the trace: strace could not run: {err}");
            None
        }
    }
}

/// What the entry point is for: no read of `/proc/self/maps` and no
/// alternate signal stack before `main` (std's start makes both).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_start_reads_no_memory_map_and_maps_no_signal_stack() {
    let Some(trace) = trace(r#"exec "$0" --version"#) else {
        return;
    };
    assert!(trace.contains("openat("), "the trace saw nothing:\n{trace}");
    assert!(!trace.contains("/proc/self/maps"), "{trace}");
    assert!(!trace.contains("sigaltstack("), "{trace}");
    // Its standard streams were open: nothing was opened in their place.
    assert!(!trace.contains("/dev/null"), "{trace}");
}

/// std answers a read or write of a closed standard stream as if it were
/// `/dev/null`, so only the descriptor numbers show the difference: a file
/// `jit` opened would take a closed stream's number, and what is written to
/// the stream would go into it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_closed_standard_stream_takes_its_number_back_before_any_file_opens() {
    let opened = |script: &str| {
        trace(script).map(|trace| {
            trace
                .lines()
                .filter(|line| line.contains("\"/dev/null\", O_RDWR)"))
                .map(|line| line.rsplit(' ').next().unwrap().to_owned())
                .collect::<Vec<_>>()
        })
    };
    let Some(out) = opened(r#"exec "$0" --version >&-"#) else {
        return;
    };
    assert_eq!(out, ["1"]);
    assert_eq!(
        opened(r#"exec "$0" --version <&- 2>&-"#).unwrap(),
        ["0", "2"]
    );
    assert_eq!(
        opened(r#"exec "$0" --version"#).unwrap(),
        Vec::<String>::new()
    );
}
