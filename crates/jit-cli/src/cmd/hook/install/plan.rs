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

/// The hook command for `agent`, run by the binary at `exe`.
pub(super) fn command_line(exe: &str, agent: AgentKind) -> String {
    format!("{} hook --agent {}", shell_quote(exe), agent.name())
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

/// Recognises jit's own hook commands for one agent.
#[derive(Debug)]
pub(super) struct Ours {
    suffix: String,
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
            suffix: format!(" hook --agent {}", agent.name()),
            exe_name,
        }
    }

    /// Whether `command` runs a `jit` binary (or one named like the running
    /// one) as `hook --agent <agent>`. The program's folder does not matter,
    /// so an install from a moved binary replaces the old entries.
    pub(super) fn matches(&self, command: &str) -> bool {
        let Some((program, rest)) = first_word(command.trim_start()) else {
            return false;
        };
        if rest.trim_end() != self.suffix {
            return false;
        }
        let Some(name) = Path::new(&program).file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        name == "jit" || name == "jit.exe" || self.exe_name.as_deref() == Some(name)
    }

    fn matches_hook(&self, hook: &Json) -> bool {
        match hook {
            Json::Object(hook) => hook
                .get("command")
                .and_then(Json::as_str)
                .is_some_and(|command| self.matches(command)),
            _ => false,
        }
    }
}

/// Splits off the first shell word of `command`, undoing its quoting, and
/// returns it with the rest of the line (which starts at the separator).
fn first_word(command: &str) -> Option<(String, &str)> {
    let mut word = String::new();
    let mut chars = command.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' | '\t' => return Some((word, &command[at..])),
            '\'' => loop {
                match chars.next()?.1 {
                    '\'' => break,
                    c => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()?.1 {
                    '"' => break,
                    '\\' => word.push(chars.next()?.1),
                    c => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?.1),
            c => word.push(c),
        }
    }
    Some((word, ""))
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
                commands.retain(|hook| !ours.matches_hook(hook));
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
/// document stays where it was. On error `doc` may be half changed and must
/// not be written.
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
    let taken = take_ours(hooks, ours);
    let mut changes = Vec::new();
    for (event, matcher) in spec.events {
        let group = group(*matcher, command, spec.timeout);
        let old_place = taken.iter().find(|t| t.event == *event).map(|t| t.index);
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

/// Takes jit's entries out of `doc` and returns the events they were under
/// (none when jit had nothing there). An event left empty goes, and so does
/// a `hooks` object left empty.
pub(super) fn uninstall(doc: &mut Json, ours: &Ours) -> anyhow::Result<Vec<String>> {
    let root = root_object(doc)?;
    let Some(hooks) = hooks_object(root)? else {
        return Ok(Vec::new());
    };
    let taken = take_ours(hooks, ours);
    for t in &taken {
        if matches!(hooks.get(&t.event), Some(Json::Array(groups)) if groups.is_empty()) {
            hooks.remove(&t.event);
        }
    }
    if !taken.is_empty() && hooks.is_empty() {
        root.remove("hooks");
    }
    Ok(taken.into_iter().map(|t| t.event).collect())
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

    /// Every command line the installer writes is read without the parser,
    /// into exactly what the parser reads from it.
    #[test]
    fn the_installed_command_line_is_read_as_the_parser_reads_it() {
        use clap::ValueEnum;
        for &agent in AgentKind::value_variants() {
            let line = command_line("/opt/bin/jit", agent);
            let after_program = &words(&line)[1..];
            let fast = crate::cmd::hook::installed_call(after_program.iter().cloned());
            let fast = fast.unwrap_or_else(|| panic!("`{line}` is not read without the parser"));
            assert_eq!(
                format!("{:?}", Some(crate::Command::Hook(fast))),
                parsed(after_program),
                "{line}"
            );
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

    #[test]
    fn commands_are_recognised_by_program_name_and_arguments() {
        let ours = ours();
        for command in [
            "/usr/local/bin/jit hook --agent claude-code",
            "jit hook --agent claude-code",
            "'/home/a b/jit' hook --agent claude-code",
            "\"/home/a b/jit\" hook --agent claude-code ",
            "/home/a\\ b/jit hook --agent claude-code",
            "$HOME/.cargo/bin/jit hook --agent claude-code",
        ] {
            assert!(ours.matches(command), "{command}");
        }
        for command in [
            "/usr/local/bin/jit hook --agent codex",
            "/usr/local/bin/jit-other hook --agent claude-code",
            "/usr/local/bin/jit hook --agent claude-code --verbose",
            "echo jit hook --agent claude-code",
            "'/usr/bin/jit hook --agent claude-code",
            "",
        ] {
            assert!(!ours.matches(command), "{command}");
        }
        let renamed = Ours::new(AgentKind::Codex, Some(Path::new("/x/jit-dev")));
        assert!(renamed.matches("/y/jit-dev hook --agent codex"));
    }

    #[test]
    fn paths_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(
            command_line("/usr/local/bin/jit", AgentKind::Gemini),
            "/usr/local/bin/jit hook --agent gemini"
        );
        assert_eq!(
            command_line("/home/o'neil/my bin/jit", AgentKind::Codex),
            r"'/home/o'\''neil/my bin/jit' hook --agent codex"
        );
        // Whatever is quoted is recognised again.
        let ours = Ours::new(AgentKind::Codex, None);
        assert!(ours.matches(&command_line("/home/o'neil/my bin/jit", AgentKind::Codex)));
        assert!(ours.matches(&command_line("/a/$HOME/jit", AgentKind::Codex)));
    }

    /// Installs into `before` and checks the result and the changes.
    #[track_caller]
    fn check_install(before: &str, after: &str, changes: &[(&str, Change)]) {
        let (mut doc, style) = json::parse(before).unwrap();
        let got = install(
            &mut doc,
            &CODEX,
            "/new/jit hook --agent codex",
            &Ours::new(AgentKind::Codex, None),
        )
        .unwrap();
        let got: Vec<(&str, Change)> = got.iter().map(|(e, c)| (e.as_str(), *c)).collect();
        assert_eq!(got, changes);
        assert_eq!(json::render(&doc, &style).unwrap(), after);
    }

    const SESSION_START: &str = r#"{"matcher":"startup|resume|clear|compact","hooks":[{"type":"command","command":"/new/jit hook --agent codex","timeout":10}]}"#;
    const POST_TOOL_USE: &str = r#"{"matcher":"apply_patch|Bash","hooks":[{"type":"command","command":"/new/jit hook --agent codex","timeout":10}]}"#;

    #[test]
    fn an_install_from_another_path_replaces_the_old_entry_in_its_place() {
        let other = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"fmt"}]}"#;
        let old = r#"{"matcher":"apply_patch","hooks":[{"type":"command","command":"/old/jit hook --agent codex"}]}"#;
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
        let shared = r#"{"matcher":"Bash","hooks":[{"type":"command","command":"fmt"},{"type":"command","command":"jit hook --agent codex"}]}"#;
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
        let old = r#"{"hooks":[{"type":"command","command":"jit hook --agent codex"}]}"#;
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
        let events = uninstall(&mut doc, &Ours::new(AgentKind::Codex, None)).unwrap();
        assert_eq!(events, ["SessionStart", "PostToolUse"]);
        assert_eq!(json::render(&doc, &style).unwrap(), r#"{"model":"x"}"#);
        // An empty event someone else left stays: it is not jit's to tidy.
        let (mut doc, style) = json::parse(r#"{"hooks":{"Stop":[]}}"#).unwrap();
        assert!(
            uninstall(&mut doc, &Ours::new(AgentKind::Codex, None))
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            json::render(&doc, &style).unwrap(),
            r#"{"hooks":{"Stop":[]}}"#
        );
    }
}
