//! `jit hook`: the adapter that runs inside Claude Code, Codex and Gemini CLI as a hook, and its install and uninstall commands.

use std::process::ExitCode;

pub mod install;

/// An agent whose hook protocol `jit hook` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum AgentKind {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
}

impl AgentKind {
    /// The name used on the command line and in state file names.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
        }
    }
}

/// Arguments of `jit hook`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Add jit's hooks to an agent's settings file.
    Install(install::Args),
    /// Remove jit's hooks from an agent's settings file.
    Uninstall(install::Args),
}

/// Runs `jit hook`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Some(Action::Install(args)) => install::install(&args),
        Some(Action::Uninstall(args)) => install::uninstall(&args),
        None => Ok(ExitCode::SUCCESS),
    }
}
