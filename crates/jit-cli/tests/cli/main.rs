//! End-to-end tests of the `jit` binary, one module per subcommand.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::process::{Command, Stdio};

mod audit;
mod bash;
mod defaults;
mod explain;
mod help;
mod hook;
mod hook_install;
mod imports;
mod lint;
mod paths;
mod process;
mod replay;
mod startup;
mod stats;
mod why;

/// Runs the built `jit` binary with `args` and returns (exit code, stdout, stderr).
pub fn jit(args: &[&str]) -> (i32, String, String) {
    jit_in(None, args)
}

/// Like [`jit`], with the current directory set to `dir` when given.
pub fn jit_in(dir: Option<&std::path::Path>, args: &[&str]) -> (i32, String, String) {
    jit_env(dir, &[], args)
}

/// Like [`jit_in`], with the environment variables `env` set on top (a
/// `HOME` there replaces the empty temporary one).
pub fn jit_env(
    dir: Option<&std::path::Path>,
    env: &[(&str, &std::path::Path)],
    args: &[&str],
) -> (i32, String, String) {
    let (mut cmd, _home) = command(dir, env, args);
    finish(cmd.output().unwrap())
}

/// Like [`jit_in`], with `input` on stdin.
pub fn jit_stdin(
    dir: Option<&std::path::Path>,
    args: &[&str],
    input: &[u8],
) -> (i32, String, String) {
    use std::io::Write as _;
    let (mut cmd, _home) = command(dir, &[], args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A thread writes, so that a large input cannot deadlock against a full
    // stdout pipe; jit may stop reading early (at its cap), so the write's
    // own result does not matter.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    finish(out)
}

/// Like [`jit_in`], with every file the run writes limited to `blocks` ×
/// 512 bytes (`ulimit -f`, with `SIGXFSZ` ignored): a write past the limit
/// fails with `EFBIG`, as one on a full disk fails with `ENOSPC`, after the
/// open succeeded. Pipes (stdout, stderr) have no such limit.
pub fn jit_file_size_limit(
    dir: Option<&std::path::Path>,
    blocks: u32,
    args: &[&str],
) -> (i32, String, String) {
    let (jit, _home) = command(dir, &[], args);
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "trap '' XFSZ && ulimit -f {blocks} && exec \"$0\" \"$@\""
        ))
        .arg(jit.get_program())
        .args(jit.get_args());
    for (name, value) in jit.get_envs() {
        match value {
            Some(value) => cmd.env(name, value),
            None => cmd.env_remove(name),
        };
    }
    if let Some(dir) = jit.get_current_dir() {
        cmd.current_dir(dir);
    }
    finish(cmd.output().unwrap())
}

/// Runs `jit` in `dir` with a stdout whose reader is already gone, as in
/// `jit … | head -c1` once `head` has exited: every write to it fails with
/// a broken pipe. Returns (exit code, stderr).
pub fn jit_closed_stdout(dir: Option<&std::path::Path>, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let (mut cmd, _home) = command(dir, &[], args);
    cmd.stdout(writer);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Checks that text meant for a terminal holds no control character but
/// its line ends: no escape sequence and no line break inside a line.
#[track_caller]
pub fn assert_no_control_characters(text: &str) {
    for (i, c) in text.char_indices() {
        assert!(
            !c.is_control() || c == '\n',
            "raw {c:?} at byte {i} of:\n{}",
            text.escape_debug()
        );
    }
}

/// The `jit` command with `args`, run in `dir`, with `HOME` an empty
/// temporary directory (returned, to live as long as the run) unless `env`
/// sets it.
fn command(
    dir: Option<&std::path::Path>,
    env: &[(&str, &std::path::Path)],
    args: &[&str],
) -> (Command, tempfile::TempDir) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jit"));
    cmd.args(args);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    // Never read the real home directory.
    let home = tempfile::tempdir().unwrap();
    cmd.env("HOME", home.path());
    // State (hook state, walk caches) goes under that home too.
    cmd.env_remove("XDG_STATE_HOME").env_remove("JIT_STATE_DIR");
    for (name, value) in env {
        cmd.env(name, value);
    }
    (cmd, home)
}

fn finish(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
