//! End-to-end tests of the `jit` binary, one module per subcommand.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

mod bash;
mod explain;
mod hook;
mod hook_install;
mod imports;
mod paths;
mod startup;
mod stats;

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
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_jit"));
    cmd.args(args);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    // Never read the real home directory.
    let home = tempfile::tempdir().unwrap();
    cmd.env("HOME", home.path());
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
