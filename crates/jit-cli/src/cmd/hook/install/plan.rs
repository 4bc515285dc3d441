//! What jit installs for each agent, how its entries are recognised, and the merge into and removal from a settings document.

use std::path::Path;

use super::json::{Json, Object};
use crate::cmd::hook::AgentKind;

/// Where an agent keeps its hooks and which of them jit needs.
#[derive(Debug)]
pub(super) struct Spec {
    /// The folder under the project root or the home directory.
    pub dir: &'static str,
    /// The file in that folder.
    pub file: &'static str,
    /// The hook timeout in the agent's unit: seconds for Claude Code and
    /// Codex, milliseconds for Gemini CLI.
    pub timeout: u64,
    /// Each event and its matcher; `None` for events that take no matcher.
    pub events: &'static [(&'static str, Option<&'static str>)],
}

const CLAUDE_CODE: Spec = Spec {
    dir: ".claude",
    file: "settings.json",
    timeout: 10,
    events: &[
        ("SessionStart", Some("startup|resume|clear|compact")),
        (
            "PostToolUse",
            Some("Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|Bash|LS"),
        ),
        ("UserPromptSubmit", None),
        ("InstructionsLoaded", None),
    ],
};

const CODEX: Spec = Spec {
    dir: ".codex",
    file: "hooks.json",
    timeout: 10,
    events: &[
        ("SessionStart", Some("startup|resume|clear|compact")),
        ("PostToolUse", Some("apply_patch|Bash")),
    ],
};

const GEMINI: Spec = Spec {
    dir: ".gemini",
    file: "settings.json",
    timeout: 10_000,
    events: &[
        ("SessionStart", Some("startup|resume|clear")),
        (
            "AfterTool",
            Some(
                "read_file|write_file|replace|list_directory|glob|grep_search|search_file_content|read_many_files|run_shell_command",
            ),
        ),
    ],
};

impl Spec {
    pub(super) fn of(agent: AgentKind) -> &'static Spec {
        match agent {
            AgentKind::ClaudeCode => &CLAUDE_CODE,
            AgentKind::Codex => &CODEX,
            AgentKind::Gemini => &GEMINI,
        }
    }
}

/// The word at the end of every hook command jit installs, which marks the
/// entry as jit's own.
///
/// An install and an uninstall must find jit's entries again without taking
/// anyone else's: a user may run `jit hook --agent NAME` by hand, with a
/// matcher and keys of their own, and that entry is theirs. The mark is in
/// the command line, a flag `jit hook` accepts and ignores (`--installed`),
/// because that is the one place every agent carries through as written:
/// Claude Code and Codex check the keys of a hook object, and a key they do
/// not know could make them drop the whole `hooks` block; Gemini CLI's
/// `name` would only serve one of the three. The binary's path, which
/// moves, is not part of what is matched.
pub(super) const MARK: &str = "--installed";

/// The hook command for `agent`, run by the binary at `exe`, marked as jit's.
pub(super) fn command_line(exe: &str, agent: AgentKind) -> String {
    format!("{} hook --agent {} {MARK}", shell_quote(exe), agent.name())
}

/// Quotes `word` for a POSIX shell, leaving plain paths readable: the agents
/// hand hook commands to `sh -c`, and a path with a space would split.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Recognises the hook commands of one agent: jit's own, and the user's
/// that run jit's hook.
#[derive(Debug)]
pub(super) struct Ours {
    agent: &'static str,
    /// The running binary's file name, when it is not `jit` (a renamed copy).
    exe_name: Option<String>,
}

impl Ours {
    pub(super) fn new(agent: AgentKind, exe: Option<&Path>) -> Self {
        let exe_name = exe
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .map(str::to_owned);
        Ours {
            agent: agent.name(),
            exe_name,
        }
    }

    /// Whether `command` is one jit installed for this agent: any program,
    /// then exactly `hook --agent <agent> --installed`. The program's path
    /// does not matter, so an install from a moved binary replaces the old
    /// entries.
    pub(super) fn is_ours(&self, command: &str) -> bool {
        shell_words(command).is_some_and(|words| {
            words.len() == 5 && words[1..] == ["hook", "--agent", self.agent, MARK]
        })
    }

    /// Whether `command` runs jit's hook for this agent without jit's mark:
    /// a program named `jit` (or like the running binary), then `hook
    /// --agent <agent>` and whatever else the user added. Such an entry is
    /// the user's: it is never rewritten or removed, and jit adds none of
    /// its own beside it, which would run the hook twice.
    pub(super) fn runs_jit(&self, command: &str) -> bool {
        let Some(words) = shell_words(command) else {
            return false;
        };
        let [program, hook, flag, agent, ..] = words.as_slice() else {
            return false;
        };
        if [hook, flag, agent] != ["hook", "--agent", self.agent] || self.is_ours(command) {
            return false;
        }
        let Some(name) = Path::new(program).file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        name == "jit" || name == "jit.exe" || self.exe_name.as_deref() == Some(name)
    }

    /// The command of a hook object, if it has one.
    fn command(hook: &Json) -> Option<&str> {
        match hook {
            Json::Object(hook) => hook.get("command").and_then(Json::as_str),
            _ => None,
        }
    }
}

/// The words of `command` as a shell splits them, quoting undone; `None`
/// when a quote is left open. A line with more than one command (`;`, `&&`,
/// a newline) does not split into the words of one call, so it is never
/// taken for one.
fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        c => word.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// What an install did to one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// jit had no entry there; one was added.
    Added,
    /// jit's entry was there in another form (another binary path, an older
    /// matcher); it was replaced in place.
    Replaced,
    /// jit's entry was there exactly as it would be written.
    Unchanged,
    /// jit's entry was there, under an event jit no longer uses; it was removed.
    Removed,
    /// A hook jit did not write already runs jit there: it is left as it
    /// is and jit adds none of its own; `removed_ours` when jit's own entry
    /// was there too and was taken out, so the hook runs once.
    Theirs { removed_ours: bool },
}

/// The top-level object of a settings document.
fn root_object(doc: &mut Json) -> anyhow::Result<&mut Object> {
    match doc {
        Json::Object(object) => Ok(object),
        other => anyhow::bail!("the file holds {}, expected an object", other.kind()),
    }
}

/// The matcher group jit installs for one event.
fn group(matcher: Option<&str>, command: &str, timeout: u64) -> Json {
    let hook = Object::from([
        ("type", Json::String("command".to_owned())),
        ("command", Json::String(command.to_owned())),
        ("timeout", Json::Number(timeout.into())),
    ]);
    let hooks = Json::Array(vec![Json::Object(hook)]);
    Json::Object(match matcher {
        Some(matcher) => Object::from([
            ("matcher", Json::String(matcher.to_owned())),
            ("hooks", hooks),
        ]),
        None => Object::from([("hooks", hooks)]),
    })
}

/// Where jit's entries were taken out of one event.
#[derive(Debug)]
struct Taken {
    event: String,
    /// The index, in the event's array, of the first group jit's entry was in.
    index: usize,
}

/// Takes jit's hook commands out of every event array in `hooks`. A group
/// left with no commands goes too; a group that still holds someone else's
/// command stays. Values that are not arrays (Gemini CLI keeps switches such
/// as `"enabled": true` in `hooks`) are not events and are left alone.
fn take_ours(hooks: &mut Object, ours: &Ours) -> Vec<Taken> {
    let mut taken = Vec::new();
    for (event, value) in hooks.iter_mut() {
        let Json::Array(groups) = value else {
            continue;
        };
        let mut first = None;
        let mut kept = Vec::with_capacity(groups.len());
        for mut group in std::mem::take(groups) {
            if let Json::Object(object) = &mut group
                && let Some(Json::Array(commands)) = object.get_mut("hooks")
            {
                let before = commands.len();
                commands.retain(|hook| !Ours::command(hook).is_some_and(|c| ours.is_ours(c)));
                if commands.len() != before {
                    first.get_or_insert(kept.len());
                    if commands.is_empty() {
                        continue;
                    }
                }
            }
            kept.push(group);
        }
        *groups = kept;
        if let Some(index) = first {
            taken.push(Taken {
                event: event.to_owned(),
                index,
            });
        }
    }
    taken
}

/// The events of `hooks` under which a hook jit did not write runs jit's
/// hook (see [`Ours::runs_jit`]), in file order.
pub(super) fn events_running_jit(hooks: &Object, ours: &Ours) -> Vec<String> {
    hooks
        .iter()
        .filter(|(_, value)| {
            let Json::Array(groups) = value else {
                return false;
            };
            groups.iter().any(|group| match group {
                Json::Object(group) => match group.get("hooks") {
                    Some(Json::Array(commands)) => commands
                        .iter()
                        .any(|hook| Ours::command(hook).is_some_and(|c| ours.runs_jit(c))),
                    _ => false,
                },
                _ => false,
            })
        })
        .map(|(event, _)| event.to_owned())
        .collect()
}

/// The `hooks` object of `root`, checked to be an object.
fn hooks_object(root: &mut Object) -> anyhow::Result<Option<&mut Object>> {
    match root.get_mut("hooks") {
        None => Ok(None),
        Some(Json::Object(hooks)) => Ok(Some(hooks)),
        Some(other) => anyhow::bail!("\"hooks\" is {}, expected an object", other.kind()),
    }
}

/// Merges jit's hooks for `spec` into `doc`, replacing jit's old entries in
/// place, and says what happened to each event. Everything else in the
/// document stays where it was, and an event under which a hook jit did
/// not write already runs jit gets no entry of jit's. On error `doc` may be
/// half changed and must not be written.
pub(super) fn install(
    doc: &mut Json,
    spec: &Spec,
    command: &str,
    ours: &Ours,
) -> anyhow::Result<Vec<(String, Change)>> {
    let root = root_object(doc)?;
    let hooks = match root.get_or_insert_with("hooks", || Json::Object(Object::default())) {
        Json::Object(hooks) => hooks,
        other => anyhow::bail!("\"hooks\" is {}, expected an object", other.kind()),
    };
    for (event, _) in spec.events {
        if let Some(value) = hooks.get(event)
            && !matches!(value, Json::Array(_))
        {
            anyhow::bail!(
                "\"hooks\".\"{event}\" is {}, expected an array",
                value.kind()
            );
        }
    }
    let before = hooks.clone();
    let theirs = events_running_jit(hooks, ours);
    let taken = take_ours(hooks, ours);
    let mut changes = Vec::new();
    for (event, matcher) in spec.events {
        let old_place = taken.iter().find(|t| t.event == *event).map(|t| t.index);
        if theirs.iter().any(|e| e == event) {
            // The user's own hook runs jit here: a second one would run
            // it twice on every call.
            changes.push((
                (*event).to_owned(),
                Change::Theirs {
                    removed_ours: old_place.is_some(),
                },
            ));
            continue;
        }
        let group = group(*matcher, command, spec.timeout);
        match hooks.get_mut(event) {
            Some(Json::Array(groups)) => {
                let at = old_place.unwrap_or(groups.len()).min(groups.len());
                groups.insert(at, group);
            }
            _ => hooks.insert(event, Json::Array(vec![group])),
        }
        let change = if before.get(event) == hooks.get(event) {
            Change::Unchanged
        } else if old_place.is_some() {
            Change::Replaced
        } else {
            Change::Added
        };
        changes.push(((*event).to_owned(), change));
    }
    for stale in taken
        .iter()
        .filter(|t| !spec.events.iter().any(|(event, _)| *event == t.event))
    {
        if matches!(hooks.get(&stale.event), Some(Json::Array(groups)) if groups.is_empty()) {
            hooks.remove(&stale.event);
        }
        changes.push((stale.event.clone(), Change::Removed));
    }
    Ok(changes)
}

/// What an uninstall took out, and what it left.
#[derive(Debug, Default)]
pub(super) struct Removal {
    /// The events jit's own entries were taken from.
    pub removed: Vec<String>,
    /// The events under which a hook jit did not write runs jit: left as
    /// they are, and named so the user knows where they are.
    pub left: Vec<String>,
}

/// Takes jit's entries out of `doc` and says which events they were under
/// (none when jit had nothing there), and where hooks jit did not write
/// still run jit. An event left empty goes, and so does a `hooks` object
/// left empty, unless `before_install` (the document the install backed
/// up, when there is one) holds it: then the user wrote it, empty or not,
/// and it stays as they wrote it.
pub(super) fn uninstall(
    doc: &mut Json,
    ours: &Ours,
    before_install: Option<&Json>,
) -> anyhow::Result<Removal> {
    let had = |event: Option<&str>| {
        let Some(Json::Object(root)) = before_install else {
            return false;
        };
        match (root.get("hooks"), event) {
            (Some(_), None) => true,
            (Some(Json::Object(hooks)), Some(event)) => hooks.get(event).is_some(),
            _ => false,
        }
    };
    let root = root_object(doc)?;
    let Some(hooks) = hooks_object(root)? else {
        return Ok(Removal::default());
    };
    let taken = take_ours(hooks, ours);
    for t in &taken {
        if matches!(hooks.get(&t.event), Some(Json::Array(groups)) if groups.is_empty())
            && !had(Some(&t.event))
        {
            hooks.remove(&t.event);
        }
    }
    let left = events_running_jit(hooks, ours);
    if !taken.is_empty() && hooks.is_empty() && !had(None) {
        root.remove("hooks");
    }
    Ok(Removal {
        removed: taken.into_iter().map(|t| t.event).collect(),
        left,
    })
}

/// Whether `doc` is an object with nothing in it.
pub(super) fn is_empty_object(doc: &Json) -> bool {
    matches!(doc, Json::Object(object) if object.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::hook::install::json;

    /// The words of a command line as a shell splits them (no quoting in
    /// these).
    fn words(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(Into::into).collect()
    }

    /// What the command-line parser makes of `words` (after the program).
    fn parsed(words: &[std::ffi::OsString]) -> String {
        let argv = std::iter::once("jit".into()).chain(words.iter().cloned());
        match <crate::Cli as clap::Parser>::try_parse_from(argv) {
            Ok(cli) => format!("{:?}", cli.command),
            Err(err) => format!("error: {err}"),
        }
    }

    /// Every command line the installer writes, and the same without its
    /// mark (as jit wrote it before, and as users write it), is read without
    /// the parser, into exactly what the parser reads from it.
    #[test]
    fn the_installed_command_line_is_read_as_the_parser_reads_it() {
        use clap::ValueEnum;
        for &agent in AgentKind::value_variants() {
            let marked = command_line("/opt/bin/jit", agent);
            let unmarked = marked.strip_suffix(&format!(" {MARK}")).unwrap().to_owned();
            for line in [marked, unmarked] {
                let after_program = &words(&line)[1..];
                let fast = crate::cmd::hook::installed_call(after_program.iter().cloned());
                let fast =
                    fast.unwrap_or_else(|| panic!("`{line}` is not read without the parser"));
                assert_eq!(
                    format!("{:?}", Some(crate::Command::Hook(fast))),
                    parsed(after_program),
                    "{line}"
                );
            }
        }
    }

    /// Any other command line goes to the parser, which knows its other
    /// forms, defaults and errors.
    #[test]
    fn other_command_lines_go_to_the_parser() {
        for line in [
            "hook",
            "hook --agent",
            "hook --agent auto",
            "hook --agent=codex",
            "hook --agent codex --budget 100",
            "hook --agent codex --native ignore",
            "hook --agent codex --installed --budget 100",
            "hook --agent codex --installed --installed",
            "hook --agent codex --budget",
            "hook --agent codex --Installed",
            "hook --agent Codex",
            "hook --agent bogus",
            "hook --budget claude-code",
            "hook install --agent codex",
            "hooks --agent codex",
            "explain --agent codex",
            "--agent codex hook",
        ] {
            assert!(
                crate::cmd::hook::installed_call(words(line).into_iter()).is_none(),
                "{line}"
            );
        }
        // A word that is not Unicode is the parser's to judge too.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let odd = vec![
                "hook".into(),
                "--agent".into(),
                std::ffi::OsString::from_vec(vec![0xff]),
            ];
            assert!(crate::cmd::hook::installed_call(odd.into_iter()).is_none());
        }
    }

    fn ours() -> Ours {
        Ours::new(AgentKind::ClaudeCode, Some(Path::new("/opt/bin/jit")))
    }

    /// jit's entries are known by the mark at the end of the command, with
    /// the exact words jit writes, whatever the program's path or name.
    #[test]
    fn jits_own_commands_are_known_by_their_mark() {
        let ours = ours();
        for command in [
            "/usr/local/bin/jit hook --agent claude-code --installed",
            "jit hook --agent claude-code --installed",
            "'/home/a b/jit' hook --agent claude-code --installed",
            "\"/home/a b/jit\" hook --agent claude-code  --installed ",
            "/home/a\\ b/jit hook --agent claude-code --installed",
            "/opt/renamed/jit-dev hook --agent claude-code --installed",
        ] {
            assert!(ours.is_ours(command), "{command}");
            assert!(!ours.runs_jit(command), "{command}");
        }
        for command in [
            "/usr/local/bin/jit hook --agent claude-code",
            "/usr/local/bin/jit hook --agent codex --installed",
            "/usr/local/bin/jit hook --agent claude-code --installed --budget 5",
            "/usr/local/bin/jit hook --agent claude-code --installed; rm -rf x",
            "/usr/local/bin/jit hook --agent claude-code --installed\necho",
            "hook --agent claude-code --installed",
            "'/usr/bin/jit hook --agent claude-code --installed",
            "",
        ] {
            assert!(!ours.is_ours(command), "{command}");
        }
    }

    /// A hook of the user's that runs jit: a program named `jit` (or like
    /// the running binary), then `hook --agent <agent>`, without the mark.
    #[test]
    fn a_users_command_running_jit_is_known_by_program_name_and_arguments() {
        let ours = ours();
        for command in [
            "/usr/local/bin/jit hook --agent claude-code",
            "jit hook --agent claude-code",
            "'/home/a b/jit' hook --agent claude-code",
            "\"/home/a b/jit\" hook --agent claude-code ",
            "/home/a\\ b/jit hook --agent claude-code",
            "$HOME/.cargo/bin/jit hook --agent claude-code",
            "jit hook --agent claude-code --budget 100",
            "jit hook --agent claude-code --installed --budget 100",
        ] {
            assert!(ours.runs_jit(command), "{command}");
            assert!(!ours.is_ours(command), "{command}");
        }
        for command in [
            "/usr/local/bin/jit hook --agent codex",
            "/usr/local/bin/jit-other hook --agent claude-code",
            "echo jit hook --agent claude-code",
            "'/usr/bin/jit hook --agent claude-code",
            "jit hook --agent=claude-code",
            "jit hook install claude-code",
            "",
        ] {
            assert!(!ours.runs_jit(command), "{command}");
        }
        let renamed = Ours::new(AgentKind::Codex, Some(Path::new("/x/jit-dev")));
        assert!(renamed.runs_jit("/y/jit-dev hook --agent codex"));
    }

    #[test]
    fn paths_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(
            command_line("/usr/local/bin/jit", AgentKind::Gemini),
            "/usr/local/bin/jit hook --agent gemini --installed"
        );
        assert_eq!(
            command_line("/home/o'neil/my bin/jit", AgentKind::Codex),
            r"'/home/o'\''neil/my bin/jit' hook --agent codex --installed"
        );
        // Whatever is quoted is recognised again.
        let ours = Ours::new(AgentKind::Codex, None);
        assert!(ours.is_ours(&command_line("/home/o'neil/my bin/jit", AgentKind::Codex)));
        assert!(ours.is_ours(&command_line("/a/$HOME/jit", AgentKind::Codex)));
    }

    /// Installs into `before` and checks the result and the changes.
    #[track_caller]
    fn check_install(before: &str, after: &str, changes: &[(&str, Change)]) {
        let (mut doc, style) = json::parse(before).unwrap();
        let got = install(
            &mut doc,
            &CODEX,
            "/new/jit hook --agent codex --installed",
            &Ours::new(AgentKind::Codex, None),
        )
        .unwrap();
        let got: Vec<(&str, Change)> = got.iter().map(|(e, c)| (e.as_str(), *c)).collect();
        assert_eq!(got, changes);
        assert_eq!(json::render(&doc, &style).unwrap(), after);
    }

    const SESSION_START: &str = r#"{"matcher":"startup|resume|clear|compact","hooks":[{"type":"command","command":"/new/jit hook --agent codex --installed","timeout":10}]}"#;
    const POST_TOOL_USE: &str = r#"{"matcher":"apply_patch|Bash","hooks":[{"type":"command","command":"/new/jit hook --agent codex --installed","timeout":10}]}"#;

    #[test]
    fn an_install_from_another_path_replaces_the_old_entry_in_its_place() {
        let other = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"fmt"}]}"#;
        let old = r#"{"matcher":"apply_patch","hooks":[{"type":"command","command":"/old/jit hook --agent codex --installed"}]}"#;
        check_install(
            &format!(
                r#"{{"hooks":{{"PostToolUse":[{old},{other}],"SessionStart":[{SESSION_START}]}}}}"#
            ),
            &format!(
                r#"{{"hooks":{{"PostToolUse":[{POST_TOOL_USE},{other}],"SessionStart":[{SESSION_START}]}}}}"#
            ),
            &[
                ("SessionStart", Change::Unchanged),
                ("PostToolUse", Change::Replaced),
            ],
        );
    }

    #[test]
    fn a_group_shared_with_another_command_keeps_that_command() {
        let shared = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"fmt"},{"type":"command","command":"jit hook --agent codex --installed"}]}"#;
        let left = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"fmt"}]}"#;
        check_install(
            &format!(r#"{{"hooks":{{"PostToolUse":[{shared}]}}}}"#),
            &format!(
                r#"{{"hooks":{{"PostToolUse":[{POST_TOOL_USE},{left}],"SessionStart":[{SESSION_START}]}}}}"#
            ),
            &[
                ("SessionStart", Change::Added),
                ("PostToolUse", Change::Replaced),
            ],
        );
    }

    #[test]
    fn an_entry_under_an_event_jit_no_longer_uses_is_removed() {
        let old =
            r#"{"hooks":[{"type":"command","command":"jit hook --agent codex --installed"}]}"#;
        check_install(
            &format!(r#"{{"hooks":{{"Stop":[{old}],"enabled":true}}}}"#),
            &format!(
                r#"{{"hooks":{{"enabled":true,"SessionStart":[{SESSION_START}],"PostToolUse":[{POST_TOOL_USE}]}}}}"#
            ),
            &[
                ("SessionStart", Change::Added),
                ("PostToolUse", Change::Added),
                ("Stop", Change::Removed),
            ],
        );
    }

    #[test]
    fn wrong_types_are_errors_naming_the_key() {
        for (text, message) in [
            ("[]", "the file holds an array, expected an object"),
            (
                r#"{"hooks":[]}"#,
                "\"hooks\" is an array, expected an object",
            ),
            (
                r#"{"hooks":{"PostToolUse":{}}}"#,
                "\"hooks\".\"PostToolUse\" is an object, expected an array",
            ),
        ] {
            let (mut doc, _) = json::parse(text).unwrap();
            let err = install(
                &mut doc,
                &CODEX,
                "jit hook --agent codex",
                &Ours::new(AgentKind::Codex, None),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), message, "{text}");
        }
    }

    #[test]
    fn uninstall_removes_emptied_events_and_an_emptied_hooks_object() {
        let (mut doc, style) = json::parse(&format!(
            r#"{{"model":"x","hooks":{{"SessionStart":[{SESSION_START}],"PostToolUse":[{POST_TOOL_USE}]}}}}"#
        ))
        .unwrap();
        let removal = uninstall(&mut doc, &Ours::new(AgentKind::Codex, None), None).unwrap();
        assert_eq!(removal.removed, ["SessionStart", "PostToolUse"]);
        assert!(removal.left.is_empty());
        assert_eq!(json::render(&doc, &style).unwrap(), r#"{"model":"x"}"#);
        // An empty event someone else left stays: it is not jit's to tidy.
        let (mut doc, style) = json::parse(r#"{"hooks":{"Stop":[]}}"#).unwrap();
        assert!(
            uninstall(&mut doc, &Ours::new(AgentKind::Codex, None), None)
                .unwrap()
                .removed
                .is_empty()
        );
        assert_eq!(
            json::render(&doc, &style).unwrap(),
            r#"{"hooks":{"Stop":[]}}"#
        );
    }

    /// The user's own hook running jit, with a matcher and keys of theirs.
    const USERS: &str = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"jit hook --agent codex","timeout":30,"statusMessage":"rules"}]}"#;

    #[test]
    fn an_event_where_the_user_runs_jit_gets_no_entry_of_jits() {
        check_install(
            &format!(r#"{{"hooks":{{"PostToolUse":[{USERS}]}}}}"#),
            &format!(r#"{{"hooks":{{"PostToolUse":[{USERS}],"SessionStart":[{SESSION_START}]}}}}"#),
            &[
                ("SessionStart", Change::Added),
                (
                    "PostToolUse",
                    Change::Theirs {
                        removed_ours: false,
                    },
                ),
            ],
        );
    }

    #[test]
    fn jits_entry_beside_the_users_own_is_taken_out_so_the_hook_runs_once() {
        check_install(
            &format!(
                r#"{{"hooks":{{"PostToolUse":[{POST_TOOL_USE},{USERS}],"SessionStart":[{SESSION_START}]}}}}"#
            ),
            &format!(r#"{{"hooks":{{"PostToolUse":[{USERS}],"SessionStart":[{SESSION_START}]}}}}"#),
            &[
                ("SessionStart", Change::Unchanged),
                ("PostToolUse", Change::Theirs { removed_ours: true }),
            ],
        );
    }

    #[test]
    fn uninstall_takes_only_marked_entries_and_names_the_users() {
        // jit's entry and the user's share a group: only jit's goes.
        let shared = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"jit hook --agent codex"},{"type":"command","command":"/p/jit hook --agent codex --installed"}]}"#;
        let (mut doc, style) = json::parse(&format!(
            r#"{{"hooks":{{"PostToolUse":[{shared}],"SessionStart":[{SESSION_START}],"Stop":[{USERS}]}}}}"#
        ))
        .unwrap();
        let removal = uninstall(&mut doc, &Ours::new(AgentKind::Codex, None), None).unwrap();
        assert_eq!(removal.removed, ["PostToolUse", "SessionStart"]);
        assert_eq!(removal.left, ["PostToolUse", "Stop"]);
        assert_eq!(
            json::render(&doc, &style).unwrap(),
            format!(
                r#"{{"hooks":{{"PostToolUse":[{{"matcher":"Bash","hooks":[{{"type":"command","command":"jit hook --agent codex"}}]}}],"Stop":[{USERS}]}}}}"#
            )
        );
    }
}
