//! `jit paths`.

use std::process::ExitCode;

/// Arguments of `jit paths`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `jit paths`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`jit paths` is not built yet")
}
