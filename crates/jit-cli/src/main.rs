//! The `jit` command line: explain what rules a session would get, and inspect each stage.

// Output goes through `output::stdout()` and `writeln!`, whose errors are
// returned, and `output::stderr_line`: `println!` and `eprintln!` panic when
// their stream is a closed pipe (`jit … | head`), and a hook must never.
#![deny(clippy::print_stdout, clippy::print_stderr)]
// On Linux with glibc the process starts in `start`, not through std's
// `main`: see there for what that leaves out and why.
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

use std::io::Write as _;
use std::process::ExitCode;

use clap::{FromArgMatches, Parser};

// Plug-in crates register through `inventory`; naming them keeps them linked.
use jit_tools as _;

mod changes;
mod cmd;
mod conventions;
mod lines;
mod output;
mod project;
mod rules;
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start;
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

/// A command of `jit`. Its name, its line in `jit --help` and its
/// arguments are in [`COMMANDS`].
#[derive(Debug)]
enum Command {
    Explain(cmd::explain::Args),
    Bash(cmd::bash::Args),
    Imports(cmd::imports::Args),
    Paths(cmd::paths::Args),
    Startup(cmd::startup::Args),
    Stats(cmd::stats::Args),
    Hook(cmd::hook::Args),
    Lint(cmd::lint::Args),
    Replay(cmd::replay::Args),
    Why(cmd::why::Args),
    Audit(cmd::audit::Args),
}

/// One command of `jit`: its name, its line in `jit --help` (and a long
/// description, shown by its own `--help`), and what adds its arguments.
struct CommandSpec {
    name: &'static str,
    about: &'static str,
    long_about: Option<&'static str>,
    args: fn(clap::Command) -> clap::Command,
    /// Reads the command from the matches of its arguments.
    parse: fn(&mut clap::ArgMatches) -> Result<Command, clap::Error>,
}

/// Every command, in the order `jit --help` lists them.
///
/// Each command's arguments are built only when it is the command being
/// parsed (`clap::Command::defer`): every `jit` process, every hook call
/// among them, parses its arguments once, and building the arguments of
/// all eleven commands to parse one was most of what clap cost a start
/// (about 0.1 ms of building, and the first run of that code, on every
/// call). What a command shows and accepts is the same either way; the
/// tests hold the deferred build to the eager one.
const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "explain",
        about: "Simulate a session that touches PATHs in order and show every rule decision",
        long_about: None,
        args: args::<cmd::explain::Args>,
        parse: |matches| parsed(matches, Command::Explain),
    },
    CommandSpec {
        name: "bash",
        about: "Which files a bash command writes",
        long_about: None,
        args: args::<cmd::bash::Args>,
        parse: |matches| parsed(matches, Command::Bash),
    },
    CommandSpec {
        name: "imports",
        about: "Extract and expand the @imports of a rule file",
        long_about: None,
        args: args::<cmd::imports::Args>,
        parse: |matches| parsed(matches, Command::Imports),
    },
    CommandSpec {
        name: "paths",
        about: "Which paths a tool call touches, from the tool's registered reporter",
        long_about: None,
        args: args::<cmd::paths::Args>,
        parse: |matches| parsed(matches, Command::Paths),
    },
    CommandSpec {
        name: "startup",
        about: "Run the startup load: the rules a session gets before any tool runs",
        long_about: None,
        args: args::<cmd::startup::Args>,
        parse: |matches| parsed(matches, Command::Startup),
    },
    CommandSpec {
        name: "stats",
        about: "Hit rate, waste, resident bytes, latency and leaderboards over event logs",
        long_about: None,
        args: args::<cmd::stats::Args>,
        parse: |matches| parsed(matches, Command::Stats),
    },
    CommandSpec {
        name: "hook",
        about: "Run as an agent's hook (Claude Code, Codex, Gemini CLI), or install it",
        long_about: None,
        args: args::<cmd::hook::Args>,
        parse: |matches| parsed(matches, Command::Hook),
    },
    CommandSpec {
        name: "lint",
        about: "Check every rule file: frontmatter, scopes, imports, duplicates and \
                reachability, judged as the engine judges them",
        long_about: None,
        args: args::<cmd::lint::Args>,
        parse: |matches| parsed(matches, Command::Lint),
    },
    CommandSpec {
        name: "replay",
        about: "Replay a recorded agent session: what JIT would have injected, when, and \
                at what cost, against eager and native loading",
        long_about: None,
        args: args::<cmd::replay::Args>,
        parse: |matches| parsed(matches, Command::Replay),
    },
    CommandSpec {
        name: "why",
        about: "Why a rule file does or does not load for a path: the four-step \
                checklist, each step with its evidence, and a fix",
        long_about: Some(cmd::why::LONG_ABOUT),
        args: args::<cmd::why::Args>,
        parse: |matches| parsed(matches, Command::Why),
    },
    CommandSpec {
        name: "audit",
        about: "Check that every tool your harness exposes (`--tools FILE`) has exactly \
                one path reporter; exit 1 on findings, 2 on an unreadable file",
        long_about: None,
        args: args::<cmd::audit::Args>,
        parse: |matches| parsed(matches, Command::Audit),
    },
];

impl CommandSpec {
    /// The command with its description; its arguments are added when it
    /// is parsed, or when a help or an error needs them.
    fn deferred(&self) -> clap::Command {
        clap::Command::new(self.name)
            .about(self.about)
            .long_about(self.long_about)
            .defer(self.args)
    }
}

/// Adds `A`'s arguments to `command`, keeping the description `command`
/// has (an arguments type's own doc comment would replace it).
fn args<A: clap::Args>(command: clap::Command) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let command = A::augment_args(command);
    let command = match about {
        Some(about) => command.about(about),
        None => command.about(None::<&str>),
    };
    match long_about {
        Some(long_about) => command.long_about(long_about),
        None => command.long_about(None::<&str>),
    }
}

/// `A` read from `matches`, as the command `wrap` makes of it.
fn parsed<A: FromArgMatches>(
    matches: &mut clap::ArgMatches,
    wrap: fn(A) -> Command,
) -> Result<Command, clap::Error> {
    A::from_arg_matches_mut(matches).map(wrap)
}

impl clap::Subcommand for Command {
    fn augment_subcommands(cli: clap::Command) -> clap::Command {
        cli.subcommands(COMMANDS.iter().map(CommandSpec::deferred))
    }

    fn augment_subcommands_for_update(cli: clap::Command) -> clap::Command {
        Self::augment_subcommands(cli)
    }

    fn has_subcommand(name: &str) -> bool {
        COMMANDS.iter().any(|spec| spec.name == name)
    }
}

impl FromArgMatches for Command {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Self::from_arg_matches_mut(&mut matches.clone())
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, mut sub)) = matches.remove_subcommand() else {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "a command is required\n",
            ));
        };
        let spec = COMMANDS
            .iter()
            .find(|spec| spec.name == name)
            .ok_or_else(|| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidSubcommand,
                    format!("no command {name:?}\n"),
                )
            })?;
        (spec.parse)(&mut sub)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches_mut(matches)?;
        Ok(())
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() -> ExitCode {
    run()
}

/// Runs the command the arguments name and returns the process's status.
#[cfg_attr(
    all(test, target_os = "linux", target_env = "gnu"),
    allow(dead_code, reason = "the unit tests' harness has its own entry")
)]
fn run() -> ExitCode {
    // A panic no command catches, for the tests of how the process ends
    // then (status 101, as from std's own start); debug builds only.
    #[cfg(debug_assertions)]
    if std::env::var_os("JIT_DEBUG_PANIC").is_some() {
        panic!("JIT_DEBUG_PANIC is set");
    }
    // An installed hook runs this on every tool call of an agent.
    let command = match cmd::hook::installed_call(std::env::args_os().skip(1)) {
        Some(args) => Command::Hook(args),
        None => match Cli::parse().command {
            Some(command) => command,
            None => return orientation(),
        },
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use clap::{CommandFactory, Parser};

    use super::{COMMANDS, Cli};

    /// Every command line that shows a help, as typed after `jit`.
    fn helped() -> Vec<Vec<&'static str>> {
        let mut all: Vec<Vec<&str>> = vec![vec![]];
        all.extend(COMMANDS.iter().map(|spec| vec![spec.name]));
        all.push(vec!["hook", "install"]);
        all.push(vec!["hook", "uninstall"]);
        all
    }

    /// The command line with every command's arguments built up front.
    fn eager() -> clap::Command {
        let mut cli = Cli::command();
        cli.build();
        cli
    }

    /// `words` as typed after `jit`, from `eager`.
    fn find<'a>(eager: &'a mut clap::Command, words: &[&str]) -> &'a mut clap::Command {
        words.iter().fold(eager, |command, word| {
            command.find_subcommand_mut(word).unwrap()
        })
    }

    /// What `jit ARGV…` prints and how it fails, when it fails: from the
    /// deferred build that `jit` uses, and from the eager one.
    fn both(argv: &[&str]) -> (String, String) {
        let argv = || std::iter::once("jit").chain(argv.iter().copied());
        let deferred = Cli::command().try_get_matches_from(argv()).unwrap_err();
        let eager = eager().try_get_matches_from(argv()).unwrap_err();
        assert_eq!(
            deferred.kind(),
            eager.kind(),
            "jit {argv:?}",
            argv = argv().collect::<Vec<_>>()
        );
        (deferred.to_string(), eager.to_string())
    }

    #[test]
    fn a_deferred_command_shows_the_help_its_eager_build_shows() {
        for words in helped() {
            for flag in ["--help", "-h"] {
                let mut argv = words.clone();
                argv.push(flag);
                let (deferred, eager) = both(&argv);
                assert_eq!(deferred, eager, "jit {argv:?}");
                assert!(deferred.contains("Usage: jit"), "jit {argv:?}: {deferred}");
            }
            // `jit help WORDS…` too.
            let mut argv = vec!["help"];
            argv.extend(words.iter().copied());
            let (deferred, eager) = both(&argv);
            assert_eq!(deferred, eager, "jit {argv:?}");
        }
    }

    #[test]
    fn no_command_builds_its_arguments_until_it_is_parsed() {
        let cli = Cli::command();
        for spec in COMMANDS {
            let command = cli.find_subcommand(spec.name).unwrap();
            assert_eq!(command.get_arguments().count(), 0, "{}", spec.name);
        }
    }

    #[test]
    fn every_command_is_described_and_takes_its_own_arguments() {
        let mut eager = eager();
        let eager = &mut eager;
        for spec in COMMANDS {
            let command = find(eager, &[spec.name]);
            assert_eq!(command.get_about().unwrap().to_string(), spec.about);
            assert_eq!(
                command.get_long_about().map(ToString::to_string).as_deref(),
                spec.long_about
            );
            // Its arguments were added: every command has at least one
            // besides the help flag.
            assert!(
                command.get_arguments().any(|arg| arg.get_id() != "help"),
                "{}",
                spec.name
            );
        }
    }

    #[test]
    fn every_command_name_parses_to_its_own_command() {
        let cases: &[(&[&str], &str)] = &[
            (&["explain", "a.rs"], "Explain("),
            (&["bash", "ls"], "Bash("),
            (&["imports", "CLAUDE.md"], "Imports("),
            (&["paths", "--tool", "read", "--input", "{}"], "Paths("),
            (&["startup"], "Startup("),
            (&["stats", "events.jsonl"], "Stats("),
            (&["hook"], "Hook("),
            (&["lint"], "Lint("),
            (&["replay"], "Replay("),
            (&["why", "CLAUDE.md", "a.rs"], "Why("),
            (&["audit"], "Audit("),
        ];
        assert_eq!(cases.len(), COMMANDS.len(), "a case per command");
        for (words, variant) in cases {
            let argv = std::iter::once("jit").chain(words.iter().copied());
            let cli = Cli::try_parse_from(argv).unwrap();
            let parsed = format!("{:?}", cli.command.unwrap());
            assert!(
                parsed.starts_with(variant),
                "jit {words:?} parsed as {parsed}"
            );
        }
        assert!(Cli::try_parse_from(["jit"]).unwrap().command.is_none());
    }

    #[test]
    fn a_command_is_read_from_shared_matches_and_updated_in_place() {
        use clap::{FromArgMatches as _, Subcommand as _};
        let matches = Cli::command()
            .try_get_matches_from(["jit", "lint", "--json"])
            .unwrap();
        let lint = super::Command::from_arg_matches(&matches).unwrap();
        assert!(format!("{lint:?}").starts_with("Lint("), "{lint:?}");
        let mut command = lint;
        let matches = Cli::command()
            .try_get_matches_from(["jit", "bash", "ls"])
            .unwrap();
        command.update_from_arg_matches(&matches).unwrap();
        assert!(format!("{command:?}").starts_with("Bash("), "{command:?}");
        let mut matches = Cli::command()
            .try_get_matches_from(["jit", "why", "CLAUDE.md", "a.rs"])
            .unwrap();
        command.update_from_arg_matches_mut(&mut matches).unwrap();
        assert!(format!("{command:?}").starts_with("Why("), "{command:?}");
        // No command given: an error, not a default.
        let matches = Cli::command().try_get_matches_from(["jit"]).unwrap();
        let err = super::Command::from_arg_matches(&matches).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingSubcommand);
        // The update form declares every command too.
        let cli = super::Command::augment_subcommands_for_update(clap::Command::new("jit"));
        assert_eq!(cli.get_subcommands().count(), COMMANDS.len());
        assert!(super::Command::has_subcommand("hook"));
        assert!(!super::Command::has_subcommand("help"));
    }

    #[test]
    fn a_usage_error_in_a_deferred_command_names_its_arguments() {
        let err = Cli::try_parse_from(["jit", "explain", "--bogus", "a.rs"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
        assert!(
            err.to_string()
                .contains("Usage: jit explain [OPTIONS] <PATH>..."),
            "{err}"
        );
        let err = Cli::try_parse_from(["jit", "bogus"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidSubcommand);
        for argv in [
            &["explain", "--bogus", "a.rs"][..],
            &["explain"],
            &["bogus"],
            &["hook", "--agent", "nobody"],
            &["hook", "install"],
            &["why", "CLAUDE.md"],
            &["paths", "--tool", "read"],
            &["--version"],
        ] {
            let (deferred, eager) = both(argv);
            assert_eq!(deferred, eager, "jit {argv:?}");
        }
    }
}
