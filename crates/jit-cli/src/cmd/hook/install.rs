//! `jit hook install` and `jit hook uninstall`: merge jit's hooks into an agent's settings file, and take them out again.

use std::path::PathBuf;
use std::process::ExitCode;

use super::AgentKind;

/// Arguments of `jit hook install` and `jit hook uninstall`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent whose settings file to change.
    #[arg(value_enum)]
    agent: AgentKind,
    /// The project's settings file (the default).
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// The user's settings file in the home directory.
    #[arg(long)]
    user: bool,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The project root (default: the git worktree root above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

/// Runs `jit hook install`.
pub fn install(args: &Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("jit hook install {} is not built yet", args.agent.name())
}

/// Runs `jit hook uninstall`.
pub fn uninstall(args: &Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("jit hook uninstall {} is not built yet", args.agent.name())
}
