//! The `jit` command line: explain what rules a session would get, and inspect each stage.

// Output goes through `output::stdout()` and `writeln!`, whose errors are
// returned, and `output::stderr_line`: `println!` and `eprintln!` panic when
// their stream is a closed pipe (`jit … | head`), and a hook must never.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Plug-in crates register through `inventory`; naming them keeps them linked.
use jit_tools as _;

mod changes;
mod cmd;
mod conventions;
mod output;
mod project;
mod rules;
mod walk_cache;

/// What `jit` alone prints: where to start. It exits 0, because asking what
/// to do is not a usage error (clap's `arg_required_else_help` would exit 2).
const ORIENTATION: &str = "\
jit: just-in-time project rules for AI coding agents.

Start here:
  jit replay                    replay the bundled demo session: what jit would
                                inject, and when, against loading every rule
  jit explain src/main.rs       the rules a session touching a file gets, and why
  jit lint                      check every rule file of this project
  jit hook install claude-code  run jit inside your agent (or: codex, gemini)

explain, startup, lint, why and imports work on the git worktree root above
the current directory (else the current directory itself); --root DIR picks
another. `jit --help` lists the commands and the exit codes; `jit <command>
--help` shows an example.";

/// The exit codes, documented once for every command.
const EXIT_CODES: &str = "\
Exit status: 0 ok; 1 findings, for the commands that look for them (lint,
audit); 2 a usage or input error (a bad flag, a missing or unreadable file).
`jit hook` always exits 0, so it never disturbs the agent.

Run `jit` alone for where to start; `jit <command> --help` shows an example.";

/// Just-in-time project rules for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "jit", version, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a session that touches PATHs in order and show every rule decision.
    Explain(cmd::explain::Args),
    /// Which files a bash command writes.
    Bash(cmd::bash::Args),
    /// Extract and expand the @imports of a rule file.
    Imports(cmd::imports::Args),
    /// Which paths a tool call touches, from the tool's registered reporter.
    Paths(cmd::paths::Args),
    /// Run the startup load: the rules a session gets before any tool runs.
    Startup(cmd::startup::Args),
    /// Hit rate, waste, resident bytes, latency and leaderboards over event logs.
    Stats(cmd::stats::Args),
    /// Run as an agent's hook (Claude Code, Codex, Gemini CLI), or install it.
    Hook(cmd::hook::Args),
    /// Check every rule file: frontmatter, scopes, imports, duplicates and
    /// reachability, judged as the engine judges them.
    Lint(cmd::lint::Args),
    /// Replay a recorded agent session: what JIT would have injected, when,
    /// and at what cost, against eager and native loading.
    Replay(cmd::replay::Args),
    /// Why a rule file does or does not load for a path: the four-step
    /// checklist, each step with its evidence, and a fix.
    #[command(long_about = cmd::why::LONG_ABOUT)]
    Why(cmd::why::Args),
    /// Check that every tool your harness exposes (`--tools FILE`) has
    /// exactly one path reporter; exit 1 on findings, 2 on an unreadable file.
    Audit(cmd::audit::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Some(command) = cli.command else {
        return orientation();
    };
    let result = match command {
        Command::Explain(args) => cmd::explain::run(args),
        Command::Bash(args) => cmd::bash::run(args),
        Command::Imports(args) => cmd::imports::run(args),
        Command::Paths(args) => cmd::paths::run(args),
        Command::Startup(args) => cmd::startup::run(args),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Hook(args) => cmd::hook::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Why(args) => cmd::why::run(args),
        Command::Lint(args) => cmd::lint::run(args),
        Command::Audit(args) => cmd::audit::run(args),
    };
    match result {
        Ok(code) => code,
        // The reader has gone (`jit … | head`): it has what it wanted.
        Err(err) if output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => fail(&err),
    }
}

/// Prints [`ORIENTATION`] for `jit` with no command.
fn orientation() -> ExitCode {
    let mut out = output::stdout();
    match writeln!(out, "{ORIENTATION}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => fail(&err.into()),
    }
}

/// Reports `err` on stderr and returns exit code 2.
fn fail(err: &anyhow::Error) -> ExitCode {
    // The message may quote a file name from the repository. If stderr is
    // gone too, the exit status is all that is left.
    let message = format!("{err:#}");
    let _ = output::stderr_line(format_args!("jit: error: {}", output::escape(&message)));
    ExitCode::from(2)
}
