//! `jit bash`.

use std::process::ExitCode;

/// Arguments of `jit bash`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `jit bash`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`jit bash` is not built yet")
}
