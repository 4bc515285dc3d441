//! `jit explain`.

use std::process::ExitCode;

/// Arguments of `jit explain`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `jit explain`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`jit explain` is not built yet")
}
