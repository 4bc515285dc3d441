//! `jit hook`: the adapter that runs inside Claude Code, Codex and Gemini CLI as a hook, and its install and uninstall commands.

use std::process::ExitCode;

pub(crate) mod install;
mod native;
mod payload;
mod run;
mod state;

pub(crate) use state::{private_state_dir, state_dir};

/// An agent whose hook protocol `jit hook` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub(crate) enum AgentKind {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
}

impl AgentKind {
    /// The agent's tool name table.
    fn tools(self) -> jit_tools::Agent {
        match self {
            AgentKind::ClaudeCode => jit_tools::Agent::ClaudeCode,
            AgentKind::Codex => jit_tools::Agent::Codex,
            AgentKind::Gemini => jit_tools::Agent::Gemini,
        }
    }

    /// The name used on the command line and in state file names.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
        }
    }
}

/// `--agent`: a named agent, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AgentChoice {
    /// Recognise the agent from the payload (Codex sends `turn_id`, Gemini
    /// names `AfterTool`/`BeforeTool`, anything else is Claude Code).
    Auto,
    /// Claude Code.
    ClaudeCode,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
}

/// `--native`: whether the agent's own rule loading is taken into account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum NativeChoice {
    /// Record what the agent loads by itself (attribution `native`) instead
    /// of injecting it a second time.
    Auto,
    /// Inject everything: for an agent run with its own loading turned off.
    Ignore,
}

/// Arguments of `jit hook`.
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Example (what an agent runs after each tool call; `jit hook install` sets it up):\n  \
        echo '{\"session_id\":\"s1\",\"hook_event_name\":\"PostToolUse\",\"cwd\":\"/work/app\",\n    \
        \"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/work/app/src/ui/Footer.tsx\"}}' \\\n    \
        | jit hook --agent claude-code\n\n\
        Reads one payload on stdin, prints nothing or one JSON object, and always exits 0.\n\
        Past $JIT_HOOK_DEADLINE_MS (default 5000) it looks at no more paths and says so.\n\
        State and event logs live in $JIT_STATE_DIR (default $XDG_STATE_HOME/jit, else ~/.local/state/jit);\n\
        `jit stats <state dir>/<agent>-<session>.events.jsonl` summarises a session."
)]
pub(crate) struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// Which agent sends the payload.
    #[arg(long, value_enum, default_value = "auto")]
    agent: AgentChoice,
    /// Whether rules the agent loads by itself are recorded instead of injected.
    #[arg(long, value_enum, default_value = "auto")]
    native: NativeChoice,
    /// The most one output injects, in bytes (default: 9000 for Claude Code,
    /// 8000 for Codex and Gemini). Rules that do not fit come as their
    /// headings and a line saying how to read the rest.
    #[arg(long, value_name = "BYTES")]
    budget: Option<u64>,
    /// Marks a hook command `jit hook install` wrote, so that install and
    /// uninstall know their own entries from the user's; the call itself
    /// ignores it.
    #[arg(long)]
    installed: bool,
    #[command(flatten)]
    conventions: crate::conventions::ConventionsArg,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Add jit's hooks to an agent's settings file.
    Install(install::Args),
    /// Remove jit's hooks from an agent's settings file.
    Uninstall(install::Args),
}

/// The arguments of a command line `jit hook install` writes into an
/// agent's settings (`hook --agent NAME --installed`, see `install::plan`),
/// or the same without the mark (as jit wrote it before it marked its
/// entries, and as users copy it), read without building the command-line
/// parser, which would be a good part of a hook call's own work; `None` for
/// any other command line, which the parser reads as usual. The result is
/// what the parser makes of the same words (a test holds the two together
/// for every agent).
pub(crate) fn installed_call(mut words: impl Iterator<Item = std::ffi::OsString>) -> Option<Args> {
    let (hook, flag, name) = (words.next()?, words.next()?, words.next()?);
    let installed = match words.next() {
        None => false,
        Some(mark) if mark == "--installed" && words.next().is_none() => true,
        Some(_) => return None,
    };
    if hook != "hook" || flag != "--agent" {
        return None;
    }
    let agent = match name.to_str()? {
        "claude-code" => AgentChoice::ClaudeCode,
        "codex" => AgentChoice::Codex,
        "gemini" => AgentChoice::Gemini,
        _ => return None,
    };
    Some(Args {
        action: None,
        agent,
        native: NativeChoice::Auto,
        budget: None,
        installed,
        conventions: crate::conventions::ConventionsArg::default(),
    })
}

/// Runs `jit hook`: install, uninstall, or one hook call. A hook call
/// always exits 0: a failure is one line on stderr and in the hook log,
/// and the agent's tool call goes on undisturbed.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Some(Action::Install(args)) => install::install(&args),
        Some(Action::Uninstall(args)) => install::uninstall(&args),
        None => {
            let options = run::Options {
                agent: match args.agent {
                    AgentChoice::Auto => None,
                    AgentChoice::ClaudeCode => Some(AgentKind::ClaudeCode),
                    AgentChoice::Codex => Some(AgentKind::Codex),
                    AgentChoice::Gemini => Some(AgentKind::Gemini),
                },
                native: args.native == NativeChoice::Auto,
                budget: args.budget,
                conventions: args.conventions.conventions,
            };
            // A bug must not disturb the agent either: a panic is reported
            // like any failure and the exit status stays 0.
            std::panic::set_hook(Box::new(|info| {
                let info = info.to_string();
                let _ = crate::output::stderr_line(format_args!(
                    "jit hook: error: internal error: {}",
                    crate::output::escape(&info)
                ));
            }));
            let outcome = std::panic::catch_unwind(|| {
                debug_panic();
                run::handle(&options, &mut std::io::stdin().lock())
            });
            if let Ok((outcome, error)) = outcome {
                run::report(&outcome, error.as_ref());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// In a debug build, panics when `JIT_DEBUG_HOOK_PANIC` is set, so that a
/// test can check the binary as linked still catches a panic (on Linux
/// with glibc its unwinder is linked in rather than loaded from
/// `libgcc_s`: see `build/unwinder.rs`). A release build has no such switch.
fn debug_panic() {
    #[cfg(debug_assertions)]
    if std::env::var_os("JIT_DEBUG_HOOK_PANIC").is_some() {
        panic!("JIT_DEBUG_HOOK_PANIC is set");
    }
}

/// The rule sources jit runs for `agent`: the Claude convention, plus the
/// agent's own files.
pub(crate) fn sources(agent: AgentKind) -> Vec<Box<dyn jit_core::RuleSource>> {
    native::sources(agent)
}

/// The registered tool an agent's tool maps to (`Write` → `write`), if jit
/// has a reporter for it. The tables live in `jit_tools::Agent`, where the
/// audit checks every entry against the registry.
pub(crate) fn registered_tool(agent: AgentKind, tool: &str) -> Option<&'static str> {
    agent.tools().registered_tool(tool)
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn agent_names_agree_with_the_tool_tables() {
        for agent in AgentKind::value_variants() {
            assert_eq!(agent.name(), agent.tools().name());
            let value = agent.to_possible_value().unwrap();
            assert_eq!(value.get_name(), agent.name());
        }
    }
}
