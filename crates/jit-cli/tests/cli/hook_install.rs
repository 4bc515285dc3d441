//! Tests of `jit hook install` and `jit hook uninstall` for each agent: merging into settings with other hooks, idempotence, byte-exact uninstall, `--user`, `--dry-run` and broken files.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{jit_env, jit_in};

/// One agent's settings file and the events jit installs there.
struct Agent {
    name: &'static str,
    /// The settings file, relative to the project root or the home directory.
    file: &'static str,
    /// A settings file with other keys and other tools' hooks.
    fixture: &'static str,
    /// Events with their matcher (`None`: the entry has no matcher key).
    events: &'static [(&'static str, Option<&'static str>)],
    timeout: u64,
    /// The fixture's indentation unit.
    indent: &'static str,
}

const AGENTS: [Agent; 3] = [
    Agent {
        name: "claude-code",
        file: ".claude/settings.json",
        fixture: "claude-code.json",
        events: &[
            ("SessionStart", Some("startup|resume|clear|compact")),
            (
                "PostToolUse",
                Some("Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|Bash|LS"),
            ),
            ("UserPromptSubmit", None),
            ("InstructionsLoaded", None),
        ],
        timeout: 10,
        indent: "  ",
    },
    Agent {
        name: "codex",
        file: ".codex/hooks.json",
        fixture: "codex.json",
        events: &[
            ("SessionStart", Some("startup|resume|clear|compact")),
            ("PostToolUse", Some("apply_patch|Bash")),
        ],
        timeout: 10,
        indent: "    ",
    },
    Agent {
        name: "gemini",
        file: ".gemini/settings.json",
        fixture: "gemini.json",
        events: &[
            ("SessionStart", Some("startup|resume|clear")),
            (
                "AfterTool",
                Some(
                    "read_file|write_file|replace|list_directory|glob|grep_search|search_file_content|read_many_files|run_shell_command",
                ),
            ),
        ],
        timeout: 10_000,
        indent: "\t",
    },
];

impl Agent {
    /// The command jit installs: the test binary's own path, as the agent
    /// will run it, and the flag that marks the entry as jit's.
    fn command(&self) -> String {
        format!("{} --installed", self.unmarked_command())
    }

    /// The hook command as a user writes it by hand (and as jit wrote it
    /// before it marked its entries): the same call, without the mark.
    fn unmarked_command(&self) -> String {
        let exe = fs::canonicalize(env!("CARGO_BIN_EXE_jit")).unwrap();
        format!("{} hook --agent {}", exe.display(), self.name)
    }

    fn fixture_text(&self) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hook/settings")
            .join(self.fixture);
        fs::read_to_string(path).unwrap()
    }

    /// A project (with a `.git` folder) whose settings file holds the fixture.
    fn project_with_fixture(&self) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".git")).unwrap();
        let path = dir.path().join(self.file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, self.fixture_text()).unwrap();
        (dir, path)
    }

    /// Runs `jit hook <action> <agent> --root <root> <extra…>` and checks the exit code.
    #[track_caller]
    fn run(&self, action: &str, root: &Path, extra: &[&str], code: i32) -> (String, String) {
        let root = root.to_str().unwrap();
        let mut args = vec!["hook", action, self.name, "--root", root];
        args.extend(extra);
        let (got, out, err) = jit_in(None, &args);
        assert_eq!(
            got, code,
            "{} {action}: stdout {out} stderr {err}",
            self.name
        );
        (out, err)
    }

    /// jit's matcher group with `matcher`, as the agent reads it.
    fn group(&self, matcher: Option<&str>) -> Value {
        let hook = serde_json::json!({
            "type": "command",
            "command": self.command(),
            "timeout": self.timeout,
        });
        match matcher {
            Some(matcher) => serde_json::json!({"matcher": matcher, "hooks": [hook]}),
            None => serde_json::json!({"hooks": [hook]}),
        }
    }

    /// Checks that `text` is `original` with exactly jit's groups added: each
    /// event's array ends with jit's group, and nothing else changed. jit's
    /// lines are indented with `indent`, one unit per level.
    #[track_caller]
    fn check_installed(&self, original: &str, text: &str, indent: &str) {
        let installed: Value = serde_json::from_str(text).unwrap();
        let mut expected: Value = serde_json::from_str(original).unwrap();
        if expected.get("hooks").is_none() {
            expected["hooks"] = serde_json::json!({});
        }
        for (event, matcher) in self.events {
            let groups = expected["hooks"][event].as_array_mut();
            match groups {
                Some(groups) => groups.push(self.group(*matcher)),
                None => expected["hooks"][event] = Value::Array(vec![self.group(*matcher)]),
            }
        }
        assert_eq!(installed, expected, "{}", self.name);
        // `"command"` sits six levels deep: hooks, event, group, hooks, hook.
        let line = format!("{}\"command\": \"{}\",", indent.repeat(6), self.command());
        let found = text.lines().filter(|l| *l == line).count();
        assert_eq!(
            found,
            self.events.len(),
            "{}: {line:?} in\n{text}",
            self.name
        );
    }
}

/// Checks that every line of `original` is still in `text`, in the same
/// order: keys kept their order and other entries kept their bytes.
#[track_caller]
fn check_lines_kept(original: &str, text: &str, agent: &str) {
    let mut lines = text.lines();
    for line in original.lines() {
        // The last line of an object or array that gained an entry now ends
        // with a comma; everything else is untouched.
        assert!(
            lines.any(|l| l == line || l == format!("{line},")),
            "{agent}: line {line:?} of the original is missing or out of order in\n{text}"
        );
    }
}

#[test]
fn install_merges_into_settings_with_other_hooks_and_keys() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        let original = agent.fixture_text();
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        let text = fs::read_to_string(&path).unwrap();
        agent.check_installed(&original, &text, agent.indent);
        check_lines_kept(&original, &text, agent.name);
        // The file's layout: whether it ends with a newline (indentation is
        // checked by `check_installed`).
        assert_eq!(
            text.ends_with('\n'),
            original.ends_with('\n'),
            "{}",
            agent.name
        );

        let backup = dir.path().join(format!("{}.jit-backup", agent.file));
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            original,
            "{}",
            agent.name
        );
        for (event, _) in agent.events {
            assert!(
                out.contains(&format!("added {event} hook to {}", path.display())),
                "{}: {out}",
                agent.name
            );
        }
    }
}

#[test]
fn a_second_install_changes_nothing() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        agent.run("install", dir.path(), &[], 0);
        let first = fs::read(&path).unwrap();
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        assert_eq!(fs::read(&path).unwrap(), first, "{}", agent.name);
        assert!(out.contains("already installed"), "{}: {out}", agent.name);
    }
}

#[test]
fn uninstall_brings_the_original_bytes_back_and_deletes_the_backup() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        agent.run("install", dir.path(), &[], 0);
        let (out, _) = agent.run("uninstall", dir.path(), &[], 0);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
        assert!(
            !dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists(),
            "{}",
            agent.name
        );
        assert!(out.contains("restored"), "{}: {out}", agent.name);
        // Nothing of jit's is left: a second uninstall says so and changes nothing.
        let (out, _) = agent.run("uninstall", dir.path(), &[], 0);
        assert!(out.contains("no jit hooks"), "{}: {out}", agent.name);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
    }
}

#[test]
fn uninstall_after_other_changes_keeps_them_and_the_backup() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        agent.run("install", dir.path(), &[], 0);
        // The user adds a key after the install.
        let text = fs::read_to_string(&path).unwrap();
        let edited = text.replacen('{', "{\"added\": 1,", 1);
        fs::write(&path, &edited).unwrap();
        agent.run("uninstall", dir.path(), &[], 0);
        let mut expected: Value = serde_json::from_str(&agent.fixture_text()).unwrap();
        expected["added"] = 1.into();
        let got: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(got, expected, "{}", agent.name);
        assert!(
            dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists(),
            "{}",
            agent.name
        );
    }
}

#[test]
fn install_into_a_missing_file_creates_it_and_uninstall_deletes_it() {
    for agent in &AGENTS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(agent.file);
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        let text = fs::read_to_string(&path).unwrap();
        agent.check_installed("{}", &text, "  ");
        assert!(
            text.starts_with("{\n  \"hooks\": {\n"),
            "{}: {text}",
            agent.name
        );
        assert!(
            out.contains(&format!("created {}", path.display())),
            "{}: {out}",
            agent.name
        );
        assert!(
            !dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists()
        );

        let (out, _) = agent.run("uninstall", dir.path(), &[], 0);
        assert!(!path.exists(), "{}: {out}", agent.name);
        assert!(
            out.contains(&format!("deleted {}", path.display())),
            "{}: {out}",
            agent.name
        );
    }
}

#[test]
fn user_level_settings_go_under_home() {
    for agent in &AGENTS {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let args = ["hook", "install", agent.name, "--user"];
        let env = [("HOME", home.path())];
        let (code, out, err) = jit_env(Some(project.path()), &env, &args);
        assert_eq!(code, 0, "{}: {err}", agent.name);
        let path = home.path().join(agent.file);
        agent.check_installed("{}", &fs::read_to_string(&path).unwrap(), "  ");
        assert!(
            out.contains(&path.display().to_string()),
            "{}: {out}",
            agent.name
        );
        assert_eq!(
            fs::read_dir(project.path()).unwrap().count(),
            0,
            "{}",
            agent.name
        );

        let args = ["hook", "uninstall", agent.name, "--user"];
        let (code, _, err) = jit_env(Some(project.path()), &env, &args);
        assert_eq!(code, 0, "{}: {err}", agent.name);
        assert!(!path.exists(), "{}", agent.name);
    }
}

#[test]
fn the_project_root_is_the_git_worktree_above_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join(".git"),
        "gitdir: /elsewhere/.git/worktrees/x\n",
    )
    .unwrap();
    let sub = dir.path().join("src/ui");
    fs::create_dir_all(&sub).unwrap();
    let (code, _, err) = jit_in(Some(&sub), &["hook", "install", "codex"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join(".codex/hooks.json").exists());
    assert!(!sub.join(".codex").exists());
}

#[test]
fn a_dry_run_prints_the_diff_and_writes_nothing() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        let (out, _) = agent.run("install", dir.path(), &["--dry-run"], 0);
        assert!(
            out.starts_with(&format!("--- a/{0}\n+++ b/{0}\n@@ ", agent.file)),
            "{}: {out}",
            agent.name
        );
        let added = out
            .lines()
            .filter(|l| l.starts_with('+') && l.contains(&agent.command()))
            .count();
        assert_eq!(added, agent.events.len(), "{}: {out}", agent.name);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
        assert!(
            !dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists()
        );

        // And the other way: an uninstall dry run shows the lines going.
        agent.run("install", dir.path(), &[], 0);
        let installed = fs::read(&path).unwrap();
        let (out, _) = agent.run("uninstall", dir.path(), &["--dry-run"], 0);
        let removed = out
            .lines()
            .filter(|l| l.starts_with('-') && l.contains(&agent.command()))
            .count();
        assert_eq!(removed, agent.events.len(), "{}: {out}", agent.name);
        assert_eq!(fs::read(&path).unwrap(), installed, "{}", agent.name);
        assert!(
            dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists()
        );
    }
}

#[test]
fn broken_json_is_an_error_naming_the_file_and_nothing_is_written() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        let broken = agent.fixture_text().replacen('}', "", 1);
        fs::write(&path, &broken).unwrap();
        for action in ["install", "uninstall"] {
            let (_, err) = agent.run(action, dir.path(), &[], 2);
            assert!(err.starts_with("jit: error: "), "{}: {err}", agent.name);
            assert!(
                err.contains(&path.display().to_string()),
                "{}: {err}",
                agent.name
            );
            assert!(err.contains("not valid JSON"), "{}: {err}", agent.name);
            assert_eq!(fs::read_to_string(&path).unwrap(), broken, "{}", agent.name);
            assert!(
                !dir.path()
                    .join(format!("{}.jit-backup", agent.file))
                    .exists()
            );
        }
    }
}

#[test]
fn hooks_of_the_wrong_type_are_an_error_naming_the_file_and_the_key() {
    for agent in &AGENTS {
        for (text, problem) in [
            (
                r#"{"hooks": []}"#.to_owned(),
                "\"hooks\" is an array, expected an object".to_owned(),
            ),
            (
                format!(r#"{{"hooks": {{"{}": {{}}}}}}"#, agent.events[1].0),
                format!(
                    "\"hooks\".\"{}\" is an object, expected an array",
                    agent.events[1].0
                ),
            ),
            (
                "[1]".to_owned(),
                "the file holds an array, expected an object".to_owned(),
            ),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(agent.file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &text).unwrap();
            let (_, err) = agent.run("install", dir.path(), &[], 2);
            assert!(
                err.contains(&path.display().to_string()),
                "{}: {err}",
                agent.name
            );
            assert!(err.contains(&problem), "{}: {err}", agent.name);
            assert_eq!(fs::read_to_string(&path).unwrap(), text, "{}", agent.name);
        }
    }
}

#[test]
fn an_install_from_another_binary_replaces_the_old_entries() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        agent.run("install", dir.path(), &[], 0);
        // As if jit at another path had installed the hooks.
        let moved = fs::read_to_string(&path).unwrap().replace(
            &agent.command(),
            &format!("/old/place/jit hook --agent {} --installed", agent.name),
        );
        fs::write(&path, &moved).unwrap();
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains("/old/place/jit"), "{}: {text}", agent.name);
        agent.check_installed(&agent.fixture_text(), &text, agent.indent);
        assert!(out.contains("replaced"), "{}: {out}", agent.name);
        // The backup still holds the file from before the first install.
        let backup = dir.path().join(format!("{}.jit-backup", agent.file));
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
        agent.run("uninstall", dir.path(), &[], 0);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
    }
}

#[test]
fn help_shows_an_example() {
    let (code, out, _) = jit_in(None, &["hook", "install", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("jit hook install claude-code --dry-run"),
        "{out}"
    );
}

/// A settings file in which the user runs jit's hook by hand under the
/// agent's tool event, with a matcher and keys of their own.
fn settings_with_a_users_jit_entry(agent: &Agent) -> String {
    format!(
        r#"{{
  "hooks": {{
    "{event}": [
      {{
        "matcher": "Bash",
        "hooks": [
          {{ "type": "command", "command": "{command}", "timeout": 30, "statusMessage": "rules" }}
        ]
      }}
    ]
  }},
  "model": "x"
}}
"#,
        event = agent.events[1].0,
        command = agent.unmarked_command(),
    )
}

/// How many hook commands under `event` run the test binary.
fn hooks_running_jit(text: &str, event: &str) -> usize {
    let exe = fs::canonicalize(env!("CARGO_BIN_EXE_jit")).unwrap();
    let exe = exe.to_str().unwrap();
    let doc: Value = serde_json::from_str(text).unwrap();
    doc["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().into_iter().flatten())
        .filter(|hook| hook["command"].as_str().is_some_and(|c| c.contains(exe)))
        .count()
}

#[test]
fn a_users_own_entry_running_jit_is_left_as_it_is_and_survives_uninstall() {
    for agent in &AGENTS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(agent.file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let original = settings_with_a_users_jit_entry(agent);
        fs::write(&path, &original).unwrap();

        let (out, _) = agent.run("install", dir.path(), &[], 0);
        let text = fs::read_to_string(&path).unwrap();
        // The user's entry keeps its bytes, matcher and keys.
        check_lines_kept(&original, &text, agent.name);
        let tool_event = agent.events[1].0;
        assert!(
            out.contains(&format!(
                "left the {tool_event} hook in {} as it is: it already runs jit",
                path.display()
            )),
            "{}: {out}",
            agent.name
        );
        // The hook is not doubled there; jit's own entries go everywhere else.
        assert_eq!(hooks_running_jit(&text, tool_event), 1, "{}", agent.name);
        assert!(!text.contains("Bash|"), "{}: {text}", agent.name);
        for (event, _) in agent.events.iter().filter(|(e, _)| *e != tool_event) {
            assert_eq!(hooks_running_jit(&text, event), 1, "{}", agent.name);
            assert!(
                out.contains(&format!("added {event} hook")),
                "{}: {out}",
                agent.name
            );
        }

        // A second install changes nothing and says so again.
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "{}", agent.name);
        assert!(out.contains("already runs jit"), "{}: {out}", agent.name);

        // Uninstall takes out only what jit wrote: the original, byte for byte.
        let (out, _) = agent.run("uninstall", dir.path(), &[], 0);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            original,
            "{}",
            agent.name
        );
        assert!(
            out.contains(&format!(
                "left the {tool_event} hook in {} that runs jit: jit did not write it",
                path.display()
            )),
            "{}: {out}",
            agent.name
        );
        // And a second uninstall leaves it too.
        let (out, _) = agent.run("uninstall", dir.path(), &[], 0);
        assert!(out.contains("no jit hooks"), "{}: {out}", agent.name);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            original,
            "{}",
            agent.name
        );
    }
}

#[test]
fn a_users_entry_running_jit_alone_is_never_rewritten_or_removed() {
    // Every event jit uses already runs jit by hand: nothing is added, and
    // neither command touches the file.
    for agent in &AGENTS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(agent.file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let events: Vec<String> = agent
            .events
            .iter()
            .map(|(event, _)| {
                format!(
                    r#""{event}": [{{"hooks": [{{"type": "command", "command": "{}", "timeout": 99}}]}}]"#,
                    agent.unmarked_command()
                )
            })
            .collect();
        let original = format!("{{\"hooks\": {{{}}}}}\n", events.join(", "));
        fs::write(&path, &original).unwrap();
        for action in ["install", "uninstall"] {
            let (out, _) = agent.run(action, dir.path(), &[], 0);
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                original,
                "{} {action}: {out}",
                agent.name
            );
        }
        assert!(
            !dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists()
        );
    }
}

#[test]
fn duplicate_keys_are_refused_naming_the_key_and_the_file() {
    for agent in &AGENTS {
        for (text, key) in [
            (
                r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}, "model": "x", "hooks": {}}"#,
                "hooks",
            ),
            (
                r#"{"hooks": {"Stop": [{"matcher": "x", "hooks": [], "matcher": "y"}]}}"#,
                "matcher",
            ),
            (r#"{"model": "x", "env": {"A": "1", "A": "2"}}"#, "A"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(agent.file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            for action in ["install", "uninstall"] {
                let (_, err) = agent.run(action, dir.path(), &["--dry-run"], 2);
                let (_, err_written) = agent.run(action, dir.path(), &[], 2);
                assert_eq!(err, err_written);
                assert!(
                    err.contains(&path.display().to_string()),
                    "{}: {err}",
                    agent.name
                );
                assert!(
                    err.contains(&format!("the key \"{key}\" appears twice in one object")),
                    "{}: {err}",
                    agent.name
                );
                assert_eq!(fs::read_to_string(&path).unwrap(), text, "{}", agent.name);
                assert!(
                    !dir.path()
                        .join(format!("{}.jit-backup", agent.file))
                        .exists()
                );
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn the_owner_group_and_mode_of_the_settings_file_are_kept() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        // Another user's and group's file (65534: nobody, nogroup) when the
        // tests run as root; as another user, the user's own.
        let owned = std::os::unix::fs::chown(&path, Some(65534), Some(65534)).is_ok();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let before = fs::metadata(&path).unwrap();
        if owned {
            assert_eq!((before.uid(), before.gid()), (65534, 65534));
        }
        let check = |step: &str| {
            let after = fs::metadata(&path).unwrap();
            assert_eq!(
                (after.uid(), after.gid(), after.mode()),
                (before.uid(), before.gid(), before.mode()),
                "{} {step}",
                agent.name
            );
        };
        agent.run("install", dir.path(), &[], 0);
        check("install");
        // The backup holds the same text, so it gets the same owner and mode.
        let backup = fs::metadata(dir.path().join(format!("{}.jit-backup", agent.file))).unwrap();
        assert_eq!(
            (backup.uid(), backup.gid(), backup.mode() & 0o777),
            (before.uid(), before.gid(), 0o640),
            "{}",
            agent.name
        );
        // A change after the install, so that uninstall writes what is left
        // instead of restoring the backup.
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, text.replacen('{', "{\"added\": 1,", 1)).unwrap();
        agent.run("uninstall", dir.path(), &[], 0);
        check("uninstall");
        agent.run("install", dir.path(), &[], 0);
        check("a second install");
    }
}

#[cfg(unix)]
#[test]
fn a_read_only_settings_file_is_refused_and_left_as_it_is() {
    use std::os::unix::fs::PermissionsExt as _;
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        for extra in [&[][..], &["--dry-run"]] {
            let (_, err) = agent.run("install", dir.path(), extra, 2);
            assert!(
                err.contains(&format!(
                    "{} is read-only (mode 0444): jit does not replace a file",
                    path.display()
                )),
                "{}: {err}",
                agent.name
            );
        }
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o444
        );
        assert!(
            !dir.path()
                .join(format!("{}.jit-backup", agent.file))
                .exists()
        );

        // Made read-only after the install: uninstall refuses too.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        agent.run("install", dir.path(), &[], 0);
        let installed = fs::read(&path).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o400)).unwrap();
        let (_, err) = agent.run("uninstall", dir.path(), &[], 2);
        assert!(
            err.contains("is read-only (mode 0400)"),
            "{}: {err}",
            agent.name
        );
        assert_eq!(fs::read(&path).unwrap(), installed, "{}", agent.name);
        // With nothing to change, there is nothing to refuse.
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        assert!(out.contains("already installed"), "{}: {out}", agent.name);
    }
}

/// Runs `jit hook <action> <agent> --root <root>` and fails the test, instead
/// of hanging it, when jit has not exited within ten seconds.
#[cfg(unix)]
fn run_with_deadline(agent: &Agent, action: &str, root: &Path) -> (i32, String) {
    use std::io::Read as _;
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(["hook", action, agent.name, "--root"])
        .arg(root)
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{} {action}: still running after 10 s", agent.name);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), err)
}

#[cfg(unix)]
#[test]
fn a_settings_file_that_is_not_a_regular_file_is_refused_without_blocking() {
    use std::os::unix::fs::FileTypeExt as _;
    for agent in &AGENTS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(agent.file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        for action in ["install", "uninstall"] {
            let (code, err) = run_with_deadline(agent, action, dir.path());
            assert_eq!(code, 2, "{} {action}: {err}", agent.name);
            assert!(
                err.contains(&format!(
                    "cannot edit {}: not a regular file (a named pipe)",
                    path.display()
                )),
                "{} {action}: {err}",
                agent.name
            );
        }
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_fifo());

        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        let (code, err) = run_with_deadline(agent, "install", dir.path());
        assert_eq!(code, 2, "{}: {err}", agent.name);
        assert!(
            err.contains("not a regular file (a directory)"),
            "{}: {err}",
            agent.name
        );
    }
}

#[cfg(unix)]
#[test]
fn a_link_is_followed_inside_the_project_and_refused_out_of_it() {
    for agent in &AGENTS {
        // Inside the root: the target is edited, and the link stays a link.
        let (dir, _) = agent.project_with_fixture();
        let path = dir.path().join(agent.file);
        let kept = dir.path().join("dotfiles/settings.json");
        fs::create_dir_all(kept.parent().unwrap()).unwrap();
        fs::rename(&path, &kept).unwrap();
        std::os::unix::fs::symlink(&kept, &path).unwrap();
        agent.run("install", dir.path(), &[], 0);
        assert!(fs::symlink_metadata(&path).unwrap().is_symlink());
        let text = fs::read_to_string(&kept).unwrap();
        agent.check_installed(&agent.fixture_text(), &text, agent.indent);
        agent.run("uninstall", dir.path(), &[], 0);
        assert_eq!(fs::read_to_string(&kept).unwrap(), agent.fixture_text());

        // Out of the root, through the file or through its folder: refused,
        // and the file outside is not touched.
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("settings.json");
        fs::write(&target, agent.fixture_text()).unwrap();
        let target = fs::canonicalize(&target).unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let (_, err) = agent.run("install", dir.path(), &[], 2);
        assert!(
            err.contains(&format!(
                "{} resolves to {}, outside the project root",
                path.display(),
                target.display()
            )),
            "{}: {err}",
            agent.name
        );
        let folder = path.parent().unwrap();
        fs::remove_file(&path).unwrap();
        fs::remove_dir(folder).unwrap();
        std::os::unix::fs::symlink(outside.path(), folder).unwrap();
        for action in ["install", "uninstall"] {
            let (_, err) = agent.run(action, dir.path(), &[], 2);
            assert!(
                err.contains("outside the project root"),
                "{}: {err}",
                agent.name
            );
        }
        assert_eq!(fs::read_to_string(&target).unwrap(), agent.fixture_text());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }
}

#[test]
fn a_second_install_never_overwrites_the_backup() {
    for agent in &AGENTS {
        let (dir, path) = agent.project_with_fixture();
        let backup = dir.path().join(format!("{}.jit-backup", agent.file));
        agent.run("install", dir.path(), &[], 0);
        // The user changes the file; uninstall keeps the backup beside it.
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, text.replacen('{', "{\"added\": 1,", 1)).unwrap();
        agent.run("uninstall", dir.path(), &[], 0);
        assert!(backup.exists(), "{}", agent.name);
        // Installing again writes the file, but the backup keeps the text
        // from before the first install.
        let (out, _) = agent.run("install", dir.path(), &[], 0);
        assert!(out.contains("added"), "{}: {out}", agent.name);
        assert!(!out.contains("backed up"), "{}: {out}", agent.name);
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            agent.fixture_text(),
            "{}",
            agent.name
        );
    }
}

#[test]
fn empty_containers_and_one_line_hooks_the_user_wrote_come_back_byte_for_byte() {
    // An empty `hooks` object or event array that jit's entries go into is
    // left empty by the uninstall, and a hooks object written on one line
    // keeps its line: neither is reflowed or dropped.
    let texts = [
        "{\n  \"hooks\": {}\n}\n",
        "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo x\"}]}]}\n}\n",
        "{\"hooks\":{\"Stop\":[]},\"x\":1}",
        // An empty array under an event jit installs for.
        "{\n  \"hooks\": {\n    \"SessionStart\": []\n  }\n}\n",
    ];
    for agent in &AGENTS {
        for text in texts {
            let dir = tempfile::tempdir().unwrap();
            fs::create_dir(dir.path().join(".git")).unwrap();
            let path = dir.path().join(agent.file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            agent.run("install", dir.path(), &[], 0);
            let installed = fs::read_to_string(&path).unwrap();
            if text.contains("echo x") {
                assert!(
                    installed.contains(
                        "\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo x\"}]}], "
                    ),
                    "{}: the user's one-line hooks were reflowed:\n{installed}",
                    agent.name
                );
            }
            agent.run("uninstall", dir.path(), &[], 0);
            assert_eq!(fs::read_to_string(&path).unwrap(), text, "{}", agent.name);
        }
    }
}
