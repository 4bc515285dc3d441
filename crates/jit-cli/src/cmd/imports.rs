//! `jit imports`.

use std::process::ExitCode;

/// Arguments of `jit imports`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `jit imports`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`jit imports` is not built yet")
}
