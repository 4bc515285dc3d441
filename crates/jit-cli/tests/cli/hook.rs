//! Tests of `jit hook` through the built binary: a payload fixture per event and agent, sequences on a fixture repo, sub-agents, concurrency, and bad input.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// A fixture project (a git repository with rules at several levels) and
/// temporary `HOME` and state directories.
struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success());
}

/// The first words of the rule index's heading line.
const INDEX_HEADING: &str = "Rules not loaded yet";

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        let files: &[(&str, &str)] = &[
            ("CLAUDE.md", "Root rules: every change comes with a test.\n"),
            (
                ".claude/rules/ui.md",
                "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nComponents take colours from the theme.\n",
            ),
            (
                ".claude/rules/sql.md",
                "---\npaths: \"**/*.sql\"\n---\nMigrations are append-only.\n",
            ),
            ("src/ui/CLAUDE.md", "UI: no colour emoji.\n"),
            ("src/api/CLAUDE.md", "API: every handler validates input.\n"),
            ("src/db/CLAUDE.md", "DB: never drop a column.\n"),
            (
                "notebooks/CLAUDE.md",
                "Notebooks: clear outputs before commit.\n",
            ),
            ("AGENTS.md", "Agents: root.\n"),
            ("src/db/AGENTS.md", "Agents: db.\n"),
            ("GEMINI.md", "Gemini: root.\n"),
            ("src/ui/GEMINI.md", "Gemini: ui.\n"),
            ("src/ui/Footer.tsx", "export const Footer = 1;\n"),
            ("src/api/handler.ts", "export const handler = 1;\n"),
            ("src/db/schema.sql", "create table a (id int);\n"),
        ];
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        git(&root, &["init", "-q"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-qm", "init"]);
        let root = fs::canonicalize(root).unwrap();
        let home = dir.path().join("home");
        let state = dir.path().join("state");
        fs::create_dir_all(&home).unwrap();
        Env {
            _dir: dir,
            root,
            home,
            state,
        }
    }

    /// Runs `jit hook --agent AGENT` as the agent does: Claude Code names
    /// the project in `CLAUDE_PROJECT_DIR`; Codex and Gemini (without
    /// `GEMINI_PROJECT_DIR`) leave it to the git root above the cwd.
    ///
    /// The conventions are pinned to the agent's own plus Claude's, so
    /// these tests keep to what each agent is given; what the hook finds in
    /// a mixed repository by itself is tested on its own.
    fn agent_hook(&self, agent: &str, payload: &str) -> Run {
        let conventions = match agent {
            "codex" => "claude,agents",
            "gemini" => "claude,gemini",
            _ => "claude",
        };
        let mut cmd = self.command(&["--agent", agent, "--conventions", conventions]);
        if agent == "claude-code" {
            cmd.env("CLAUDE_PROJECT_DIR", &self.root);
        }
        self.run(
            cmd,
            payload
                .replace("$ROOT", self.root.to_str().unwrap())
                .as_bytes(),
        )
    }

    /// Runs `jit hook ARGS` with `payload` on stdin (`$ROOT` replaced).
    fn hook(&self, args: &[&str], payload: &str) -> Run {
        self.hook_bytes(
            args,
            payload
                .replace("$ROOT", self.root.to_str().unwrap())
                .as_bytes(),
        )
    }

    fn hook_bytes(&self, args: &[&str], stdin: &[u8]) -> Run {
        self.run(self.command(args), stdin)
    }

    fn run(&self, mut cmd: Command, stdin: &[u8]) -> Run {
        let mut child = cmd.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        // A hook may stop reading early (an oversized payload): a broken
        // pipe here is the hook's choice, not a test failure.
        let _ = input.write_all(stdin);
        drop(input);
        let out = child.wait_with_output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_jit"));
        cmd.arg("hook")
            .args(args)
            .env("HOME", &self.home)
            .env("JIT_STATE_DIR", &self.state)
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .env_remove("XDG_STATE_HOME")
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn fixture(&self, name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hook")
            .join(name);
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn state_file(&self, agent: &str, session: &str) -> PathBuf {
        self.state.join(format!("{agent}-{session}.state.json"))
    }

    fn log(&self) -> String {
        fs::read_to_string(self.state.join("hook.log")).unwrap_or_default()
    }
}

#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The rule files the output injected, in order, from its header lines;
    /// empty when nothing was printed. Checks the output's shape on the way.
    #[track_caller]
    fn injected(&self, event: &str) -> Vec<String> {
        assert_eq!(self.code, 0, "{self:?}");
        if self.stdout.is_empty() {
            return Vec::new();
        }
        assert_eq!(self.stdout.lines().count(), 1, "one JSON object: {self:?}");
        let out: Value = serde_json::from_str(&self.stdout).unwrap();
        let specific = &out["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], event, "{self:?}");
        let text = specific["additionalContext"].as_str().unwrap();
        text.lines()
            .filter_map(|l| l.strip_prefix("[jit-context] "))
            .filter(|l| !l.starts_with(INDEX_HEADING))
            .map(|l| l.split(' ').next().unwrap().to_owned())
            .collect()
    }

    fn context(&self) -> String {
        let out: Value = serde_json::from_str(&self.stdout).unwrap();
        out["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// One payload fixture through the real binary, on a fresh state: the
/// files injected, in order (a context first seen on a tool call gets its
/// startup load in the same output).
#[track_caller]
fn check_fixture(agent: &str, fixture: &str, event: &str, expected: &[&str]) {
    let env = Env::new();
    let run = env.agent_hook(agent, &env.fixture(fixture));
    assert_eq!(run.injected(event), expected, "{fixture}: {run:?}");
    assert!(run.stderr.is_empty(), "{fixture}: {run:?}");
}

#[test]
fn every_claude_code_payload_fixture() {
    let ui = [".claude/rules/ui.md", "src/ui/CLAUDE.md"];
    let cases: &[(&str, &str, &[&str])] = &[
        // A clean tree at the root: Claude loads CLAUDE.md itself, and no
        // scoped rule matches a signal.
        ("session_start.json", "SessionStart", &[]),
        ("post_tool_use_write.json", "PostToolUse", &ui),
        (
            "post_tool_use_edit.json",
            "PostToolUse",
            &["src/api/CLAUDE.md"],
        ),
        (
            "post_tool_use_multi_edit.json",
            "PostToolUse",
            &[".claude/rules/sql.md", "src/db/CLAUDE.md"],
        ),
        // Claude's Read loads nested CLAUDE.md files itself.
        ("post_tool_use_read.json", "PostToolUse", &[]),
        (
            "post_tool_use_notebook_edit.json",
            "PostToolUse",
            &["notebooks/CLAUDE.md"],
        ),
        // The glob's static prefix is a directory: `**/*.sql` does not match it.
        (
            "post_tool_use_glob.json",
            "PostToolUse",
            &["src/db/CLAUDE.md"],
        ),
        // Grep: its path only, never the regex.
        (
            "post_tool_use_grep.json",
            "PostToolUse",
            &["src/api/CLAUDE.md"],
        ),
        (
            "post_tool_use_ls.json",
            "PostToolUse",
            &["src/db/CLAUDE.md"],
        ),
        ("post_tool_use_bash.json", "PostToolUse", &ui),
        ("post_tool_use_web_fetch.json", "PostToolUse", &[]),
        ("post_tool_use_mcp.json", "PostToolUse", &[]),
        ("post_tool_use_subagent.json", "PostToolUse", &ui),
        (
            "post_tool_batch.json",
            "PostToolBatch",
            &[
                ".claude/rules/ui.md",
                "src/ui/CLAUDE.md",
                "src/api/CLAUDE.md",
            ],
        ),
        (
            "user_prompt_submit.json",
            "UserPromptSubmit",
            &[".claude/rules/sql.md", "src/db/CLAUDE.md"],
        ),
        ("instructions_loaded.json", "InstructionsLoaded", &[]),
    ];
    for (fixture, event, expected) in cases {
        check_fixture(
            "claude-code",
            &format!("claude-code/{fixture}"),
            event,
            expected,
        );
    }
}

#[test]
fn every_codex_payload_fixture() {
    let cases: &[(&str, &str, &[&str])] = &[
        // Codex reads AGENTS.md itself, never CLAUDE.md.
        ("session_start.json", "SessionStart", &["CLAUDE.md"]),
        (
            "post_tool_use_apply_patch.json",
            "PostToolUse",
            &[
                "CLAUDE.md",
                ".claude/rules/sql.md",
                "src/db/CLAUDE.md",
                "src/db/AGENTS.md",
            ],
        ),
        (
            "post_tool_use_bash.json",
            "PostToolUse",
            &["CLAUDE.md", "src/api/CLAUDE.md"],
        ),
    ];
    for (fixture, event, expected) in cases {
        check_fixture("codex", &format!("codex/{fixture}"), event, expected);
    }
}

#[test]
fn every_gemini_payload_fixture() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("session_start.json", "SessionStart", &["CLAUDE.md"]),
        // Gemini loads its own GEMINI.md files when it reads or writes.
        (
            "after_tool_write_file.json",
            "AfterTool",
            &["CLAUDE.md", ".claude/rules/ui.md", "src/ui/CLAUDE.md"],
        ),
        (
            "after_tool_read_file.json",
            "AfterTool",
            &["CLAUDE.md", ".claude/rules/ui.md", "src/ui/CLAUDE.md"],
        ),
        (
            "after_tool_run_shell_command.json",
            "AfterTool",
            &["CLAUDE.md", ".claude/rules/sql.md", "src/db/CLAUDE.md"],
        ),
    ];
    for (fixture, event, expected) in cases {
        check_fixture("gemini", &format!("gemini/{fixture}"), event, expected);
    }
}

/// A Claude Code payload for session `session`.
fn claude(session: &str, event: &str, rest: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"$ROOT","hook_event_name":"{event}"{rest}}}"#
    )
}

fn write(session: &str, path: &str) -> String {
    claude(
        session,
        "PostToolUse",
        &format!(
            r#","tool_name":"Write","tool_input":{{"file_path":"$ROOT/{path}","content":"x"}}"#
        ),
    )
}

fn tool(session: &str, name: &str, input: &str) -> String {
    claude(
        session,
        "PostToolUse",
        &format!(r#","tool_name":"{name}","tool_input":{input}"#),
    )
}

fn start(session: &str, source: &str) -> String {
    claude(session, "SessionStart", &format!(r#","source":"{source}""#))
}

#[test]
fn a_sibling_edit_after_a_write_injects_nothing() {
    let env = Env::new();
    let run = env.agent_hook("claude-code", &start("s", "startup"));
    assert_eq!(run.injected("SessionStart"), Vec::<String>::new());
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Footer.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    // The header names the rule, why it came, and what brought it.
    assert!(
        run.context().starts_with(
            "[jit-context] .claude/rules/ui.md (path_glob_match, triggered by src/ui/Footer.tsx)\n\
             Components take colours from the theme.\n"
        ),
        "{}",
        run.context()
    );
    let edit = tool(
        "s",
        "Edit",
        r#"{"file_path":"$ROOT/src/ui/Badge.tsx","old_string":"a","new_string":"b"}"#,
    );
    let run = env.agent_hook("claude-code", &edit);
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
    assert!(run.stdout.is_empty(), "nothing to inject prints nothing");
}

/// Sets the modification time of `path` to `secs` seconds ago.
fn set_age(path: &Path, secs: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    fs::File::open(path).unwrap().set_modified(when).unwrap();
}

/// Ages every directory and file of the project but `.git`, so that the
/// hook's scan records are old enough to be kept.
fn age_project(dir: &Path, secs: u64) {
    set_age(dir, secs);
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with(".git") {
                age_project(&path, secs);
            }
        } else {
            set_age(&path, secs);
        }
    }
}

/// A hook call keeps what it scanned in the session state, and the next
/// call, which trusts it, still sees a scoped rule edited and a rule added
/// in a scanned directory.
#[test]
fn the_next_call_trusts_what_this_one_scanned_and_still_sees_changes() {
    let env = Env::new();
    age_project(&env.root, 3600);
    env.agent_hook("claude-code", &start("s", "startup"));
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Footer.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    let state: Value =
        serde_json::from_str(&fs::read_to_string(env.state_file("claude-code", "s")).unwrap())
            .unwrap();
    let dirs: Vec<&str> = state["session"]["scans"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["dir"].as_str().unwrap())
        .collect();
    let root = env.root.to_str().unwrap();
    assert_eq!(
        dirs,
        [
            root.to_owned(),
            format!("{root}/src"),
            format!("{root}/src/ui")
        ]
    );

    // Unchanged: a sibling brings nothing.
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Card.tsx"));
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
    // A scoped rule that missed is edited to match.
    let sql = env.root.join(".claude/rules/sql.md");
    fs::write(
        &sql,
        "---\npaths: \"src/ui/**\"\n---\nMigrations are append-only.\n",
    )
    .unwrap();
    set_age(&sql, 1800);
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Badge.tsx"));
    assert_eq!(run.injected("PostToolUse"), [".claude/rules/sql.md"]);
    // A rule is added to a scanned directory.
    let local = env.root.join("src/ui/CLAUDE.local.md");
    fs::write(&local, "UI, locally.\n").unwrap();
    set_age(&local, 1700);
    set_age(&env.root.join("src/ui"), 1700);
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Menu.tsx"));
    assert_eq!(run.injected("PostToolUse"), ["src/ui/CLAUDE.local.md"]);
}

#[test]
fn what_claude_reads_itself_is_never_injected_afterwards() {
    let env = Env::new();
    let read = tool("s", "Read", r#"{"file_path":"$ROOT/src/api/handler.ts"}"#);
    assert_eq!(
        env.agent_hook("claude-code", &read).injected("PostToolUse"),
        Vec::<String>::new()
    );
    let run = env.agent_hook("claude-code", &write("s", "src/api/new.ts"));
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
    // The events say what happened: recorded as native, then already loaded.
    let events = fs::read_to_string(env.state.join("claude-code-s.events.jsonl")).unwrap();
    assert!(
        events.contains(
            r#"{"file":"src/api/CLAUDE.md","decision":"loaded","attribution":"native","bytes":0,"source":"claude"}"#
        ),
        "{events}"
    );
    assert!(
        events.contains(r#"{"file":"src/api/CLAUDE.md","decision":"skipped","reason":"already_loaded","bytes":0,"source":"claude"}"#),
        "{events}"
    );
}

#[test]
fn with_native_ignore_a_read_injects() {
    let env = Env::new();
    let read = tool("s", "Read", r#"{"file_path":"$ROOT/src/api/handler.ts"}"#);
    let mut cmd = env.command(&[
        "--agent",
        "claude-code",
        "--native",
        "ignore",
        "--conventions",
        "claude",
    ]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root);
    let run = env.run(
        cmd,
        read.replace("$ROOT", env.root.to_str().unwrap()).as_bytes(),
    );
    // Everything comes, the root CLAUDE.md too (the startup load of a
    // context first seen on a tool call).
    assert_eq!(
        run.injected("PostToolUse"),
        ["CLAUDE.md", "src/api/CLAUDE.md"]
    );
}

#[test]
fn session_start_compact_and_clear_re_arm_and_resume_keeps() {
    let env = Env::new();
    let ui = [".claude/rules/ui.md", "src/ui/CLAUDE.md"];
    env.agent_hook("claude-code", &start("s", "startup"));
    assert_eq!(
        env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"))
            .injected("PostToolUse"),
        ui
    );
    // A resumed session still holds what was injected.
    env.agent_hook("claude-code", &start("s", "resume"));
    assert_eq!(
        env.agent_hook("claude-code", &write("s", "src/ui/B.tsx"))
            .injected("PostToolUse"),
        Vec::<String>::new()
    );
    for source in ["compact", "clear"] {
        let run = env.agent_hook("claude-code", &start("s", source));
        assert_eq!(run.injected("SessionStart"), Vec::<String>::new());
        assert_eq!(
            env.agent_hook("claude-code", &write("s", "src/ui/C.tsx"))
                .injected("PostToolUse"),
            ui,
            "after {source}"
        );
    }
    // The blocks that left are in the event log.
    let events = fs::read_to_string(env.state.join("claude-code-s.events.jsonl")).unwrap();
    assert!(
        events.contains(r#""left":[{"file":".claude/rules/ui.md","reason":"compacted"}"#),
        "{events}"
    );
}

#[test]
fn a_scoped_rule_matched_by_a_git_change_comes_at_session_start() {
    let env = Env::new();
    fs::write(env.root.join("src/ui/Footer.tsx"), "changed\n").unwrap();
    let run = env.agent_hook("claude-code", &start("s", "startup"));
    assert_eq!(run.injected("SessionStart"), [".claude/rules/ui.md"]);
    assert!(
        run.context().contains("(session_start, triggered by .)"),
        "{}",
        run.context()
    );
    // It is in the context now: a write there brings only the directory's rule.
    assert_eq!(
        env.agent_hook("claude-code", &write("s", "src/ui/Footer.tsx"))
            .injected("PostToolUse"),
        ["src/ui/CLAUDE.md"]
    );
}

#[test]
fn two_sessions_are_independent() {
    let env = Env::new();
    let ui = [".claude/rules/ui.md", "src/ui/CLAUDE.md"];
    for session in ["one", "two"] {
        assert_eq!(
            env.agent_hook("claude-code", &write(session, "src/ui/A.tsx"))
                .injected("PostToolUse"),
            ui,
            "{session}"
        );
    }
    assert!(env.state_file("claude-code", "one").exists());
    assert!(env.state_file("claude-code", "two").exists());
}

#[test]
fn a_sub_agent_gets_its_own_copy_once() {
    let env = Env::new();
    let ui = [".claude/rules/ui.md", "src/ui/CLAUDE.md"];
    assert_eq!(
        env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"))
            .injected("PostToolUse"),
        ui
    );
    let sub = |path: &str| {
        claude(
            "s",
            "PostToolUse",
            &format!(
                r#","agent_id":"agent-7","agent_type":"Explore","tool_name":"Write","tool_input":{{"file_path":"$ROOT/{path}","content":"x"}}"#
            ),
        )
    };
    assert_eq!(
        env.agent_hook("claude-code", &sub("src/ui/B.tsx"))
            .injected("PostToolUse"),
        ui,
        "the sub-agent's context does not hold what the main one was given"
    );
    assert_eq!(
        env.agent_hook("claude-code", &sub("src/ui/C.tsx"))
            .injected("PostToolUse"),
        Vec::<String>::new()
    );
    // Its events are on the sub-agent channel of the same session log.
    let events = fs::read_to_string(env.state.join("claude-code-s.events.jsonl")).unwrap();
    let subagent: Vec<&str> = events
        .lines()
        .filter(|l| l.contains(r#""channel":"subagent","subagent":"agent-7""#))
        .collect();
    assert!(!subagent.is_empty(), "{events}");
    assert!(
        subagent
            .iter()
            .all(|l| l.contains(r#""session":"s/agent-7""#))
    );
}

#[test]
fn a_bash_heredoc_write_injects_and_a_path_outside_the_root_does_not() {
    let env = Env::new();
    let heredoc = tool(
        "s",
        "Bash",
        r#"{"command":"cat > src/db/seed.sql <<'EOF'\ninsert into a values (1);\nEOF"}"#,
    );
    assert_eq!(
        env.agent_hook("claude-code", &heredoc)
            .injected("PostToolUse"),
        [".claude/rules/sql.md", "src/db/CLAUDE.md"]
    );
    let outside = env.root.parent().unwrap().join("elsewhere/x.sql");
    let run = env.agent_hook(
        "claude-code",
        &tool(
            "s",
            "Write",
            &format!(r#"{{"file_path":"{}","content":"x"}}"#, outside.display()),
        ),
    );
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
}

#[test]
fn a_codex_patch_adding_a_file_injects_its_directory_rules() {
    let env = Env::new();
    let codex = |rest: &str| {
        format!(
            r#"{{"session_id":"x","turn_id":"t1","cwd":"$ROOT","transcript_path":"/tmp/r.jsonl"{rest}}}"#
        )
    };
    let run = env.agent_hook(
        "codex",
        &codex(r#","hook_event_name":"SessionStart","source":"startup""#),
    );
    assert_eq!(run.injected("SessionStart"), ["CLAUDE.md"]);
    let patch = codex(
        r#","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: src/db/x.sql\n+select 1;\n*** End Patch\n"}"#,
    );
    assert_eq!(
        env.agent_hook("codex", &patch).injected("PostToolUse"),
        [
            ".claude/rules/sql.md",
            "src/db/CLAUDE.md",
            "src/db/AGENTS.md"
        ]
    );
    // Auto-detection: Codex sends a turn_id.
    let again = codex(
        r#","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/db/schema.sql\n@@\n-a\n+b\n*** End Patch\n"}"#,
    );
    let run = env.hook(&[], &again);
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
    assert!(env.state_file("codex", "x").exists());
}

#[test]
fn the_output_budget_cuts_whole_rules_into_summaries() {
    let env = Env::new();
    let big = format!(
        "# Big rule\n\n## Part one\n{}\n## Part two\nmore\n",
        "x".repeat(6000)
    );
    fs::write(env.root.join("src/api/CLAUDE.md"), &big).unwrap();
    fs::create_dir_all(env.root.join("src/api/v2")).unwrap();
    fs::write(env.root.join("src/api/v2/CLAUDE.md"), &big).unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/api/v2/h.ts"));
    assert_eq!(
        run.injected("PostToolUse"),
        ["src/api/CLAUDE.md", "src/api/v2/CLAUDE.md"]
    );
    let text = run.context();
    assert!(text.len() <= 9000, "{} bytes", text.len());
    // The second rule comes as its headings and how to read the rest.
    let second = text
        .split("[jit-context] src/api/v2/CLAUDE.md")
        .nth(1)
        .unwrap();
    assert!(
        second.contains("# Big rule\n## Part one\n## Part two\n"),
        "{second}"
    );
    assert!(
        second.contains("Read src/api/v2/CLAUDE.md for the full text."),
        "{second}"
    );
    let events = fs::read_to_string(env.state.join("claude-code-s.events.jsonl")).unwrap();
    assert!(
        events.contains(r#""file":"src/api/v2/CLAUDE.md","decision":"too_large_for_budget","reason":"too_large_for_budget""#),
        "{events}"
    );
    // A smaller budget on the command line binds too.
    let env = Env::new();
    let mut cmd = env.command(&[
        "--agent",
        "claude-code",
        "--budget",
        "150",
        "--conventions",
        "claude",
    ]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root);
    let run = env.run(
        cmd,
        write("s", "src/ui/A.tsx")
            .replace("$ROOT", env.root.to_str().unwrap())
            .as_bytes(),
    );
    assert_eq!(run.injected("PostToolUse"), [".claude/rules/ui.md"]);
    assert!(run.context().len() <= 150, "{}", run.context());
    // The other rule is smaller than any pointer to it: it is left out, and
    // the event says so.
    let events = fs::read_to_string(env.state.join("claude-code-s.events.jsonl")).unwrap();
    assert!(
        events.contains(r#"{"file":"src/ui/CLAUDE.md","decision":"too_large_for_budget","reason":"too_large_for_budget","attribution":"nested_traversal","bytes":0,"source":"claude"}"#),
        "{events}"
    );
}

#[test]
fn instructions_loaded_is_recorded_and_prints_nothing() {
    let env = Env::new();
    let loaded = claude(
        "s",
        "InstructionsLoaded",
        r#","file_path":"$ROOT/src/db/CLAUDE.md","load_reason":"nested_traversal""#,
    );
    assert_eq!(
        env.agent_hook("claude-code", &loaded)
            .injected("InstructionsLoaded"),
        Vec::<String>::new()
    );
    let run = env.agent_hook("claude-code", &write("s", "src/db/x.sql"));
    assert_eq!(run.injected("PostToolUse"), [".claude/rules/sql.md"]);
}

#[test]
fn sixteen_parallel_hooks_inject_a_shared_rule_exactly_once() {
    let env = Env::new();
    let children: Vec<_> = (0..16)
        .map(|i| {
            let mut cmd = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
            cmd.env("CLAUDE_PROJECT_DIR", &env.root);
            let mut child = cmd.spawn().unwrap();
            let payload = write("par", &format!("src/ui/F{i}.tsx"))
                .replace("$ROOT", env.root.to_str().unwrap());
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    let mut seen: Vec<String> = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(run.stderr.is_empty(), "{run:?}");
        seen.extend(run.injected("PostToolUse"));
    }
    seen.sort();
    assert_eq!(seen, [".claude/rules/ui.md", "src/ui/CLAUDE.md"]);
    let state: Value =
        serde_json::from_slice(&fs::read(env.state_file("claude-code", "par")).unwrap()).unwrap();
    assert_eq!(state["session"]["step"], 16);
}

#[test]
fn bad_input_never_disturbs_the_call_nor_a_valid_state() {
    let env = Env::new();
    env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    let state = env.state_file("claude-code", "s");
    let before = fs::read(&state).unwrap();
    let huge = format!(
        r#"{{"session_id":"s","hook_event_name":"PostToolUse","cwd":"$ROOT","tool_name":"Write","tool_input":{{"file_path":"$ROOT/src/ui/B.tsx","content":"{}"}}}}"#,
        "x".repeat(10 * 1024 * 1024)
    );
    let cases: Vec<(&str, String)> = vec![
        ("empty stdin", String::new()),
        ("not JSON", "{not json".to_owned()),
        ("a JSON array", "[1,2]".to_owned()),
        (
            "missing tool_input",
            claude("s", "PostToolUse", r#","tool_name":"Write""#),
        ),
        (
            "tool_input of the wrong shape",
            tool("s", "Write", r#"{"file_path":7}"#),
        ),
        (
            "an unknown event",
            claude("s", "Notification", r#","message":"hi""#),
        ),
        ("a 10 MB payload", huge),
    ];
    for (what, payload) in &cases {
        let run = env.agent_hook("claude-code", payload);
        assert_eq!(run.code, 0, "{what}: {run:?}");
        if *what == "a 10 MB payload" {
            // Valid, and about a file already covered: nothing new.
            assert!(run.stdout.is_empty(), "{what}: {run:?}");
            continue;
        }
        assert!(run.stdout.is_empty(), "{what}: {run:?}");
        assert_eq!(
            fs::read(&state).unwrap(),
            before,
            "{what} changed the state"
        );
        assert_eq!(run.stderr.lines().count(), 1, "{what}: {run:?}");
    }
    let log = env.log();
    for expected in [
        "empty payload",
        "not JSON",
        "an array, not a JSON object",
        "no `tool_input`",
        "expected a string, got a number",
        "unknown hook event `Notification`",
    ] {
        assert!(
            log.contains(expected),
            "the log should say {expected}:\n{log}"
        );
    }
    assert_eq!(log.lines().count(), 6, "{log}");
}

/// A bug must not disturb the agent's call: a panic inside a hook call is
/// caught, reported on one line of stderr, and the exit status stays 0.
/// This holds the binary as linked to it (on Linux with glibc its unwinder
/// is linked in rather than loaded from `libgcc_s`). The switch exists in
/// debug builds only: a release build ignores it and answers the call.
#[test]
fn a_panic_in_a_hook_call_is_caught_and_the_call_goes_on() {
    let env = Env::new();
    let mut cmd = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root)
        .env("JIT_DEBUG_HOOK_PANIC", "1");
    let payload = write("s", "src/ui/A.tsx").replace("$ROOT", env.root.to_str().unwrap());
    let run = env.run(cmd, payload.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    if cfg!(debug_assertions) {
        assert!(run.stdout.is_empty(), "{run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
        assert!(
            run.stderr.starts_with("jit hook: error: internal error: ")
                && run.stderr.contains("JIT_DEBUG_HOOK_PANIC is set"),
            "{run:?}"
        );
    } else {
        assert!(!run.stderr.contains("internal error"), "{run:?}");
        assert!(run.stdout.contains("UI: no colour emoji."), "{run:?}");
    }
}

#[test]
fn a_malformed_call_of_a_batch_is_logged_and_its_batch_mates_still_run() {
    let env = Env::new();
    let batch = claude(
        "s",
        "PostToolBatch",
        r#","tool_calls":[{"tool_name":"Write","tool_input":{"file_path":7}},{"tool_name":"Write","tool_input":{"file_path":"$ROOT/src/ui/A.tsx","content":"a"}},{"tool_name":"Edit","tool_input":{}}]"#,
    );
    let run = env.agent_hook("claude-code", &batch);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("src/ui/CLAUDE.md"), "{run:?}");
    // Not a failure of the call: nothing on stderr, one log line per bad call.
    assert!(run.stderr.is_empty(), "{run:?}");
    let log = env.log();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.contains("expected a string, got a number"), "{log}");
    // Every call malformed: the call fails, naming each.
    let all_bad = claude(
        "s",
        "PostToolBatch",
        r#","tool_calls":[{"tool_name":"Write","tool_input":{"file_path":7}},{"tool_name":"Edit","tool_input":{}}]"#,
    );
    let run = env.agent_hook("claude-code", &all_bad);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(run.stderr.contains("; "), "both errors, joined: {run:?}");
}

#[test]
fn a_corrupt_state_is_set_aside_and_started_afresh() {
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    for (i, corrupt) in [
        "{\"version\":1,\"agent\":",
        "[]",
        "{\"version\":99}",
        "\u{0}\u{1}binary",
    ]
    .iter()
    .enumerate()
    {
        let session = format!("c{i}");
        fs::write(env.state_file("claude-code", &session), corrupt).unwrap();
        let run = env.agent_hook("claude-code", &write(&session, "src/ui/A.tsx"));
        assert_eq!(
            run.injected("PostToolUse"),
            [".claude/rules/ui.md", "src/ui/CLAUDE.md"],
            "{corrupt:?}"
        );
        let state = fs::read(env.state_file("claude-code", &session)).unwrap();
        serde_json::from_slice::<Value>(&state).unwrap();
        assert!(
            env.state
                .join(format!("claude-code-{session}.state.json.corrupt"))
                .exists()
        );
    }
    assert_eq!(env.log().matches("starting this context afresh").count(), 4);
}

#[test]
fn the_state_is_written_in_place_and_a_torn_write_starts_afresh() {
    use std::os::unix::fs::MetadataExt;
    let env = Env::new();
    env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    let state = env.state_file("claude-code", "s");
    let inode = fs::metadata(&state).unwrap().ino();
    env.agent_hook("claude-code", &write("s", "src/ui/B.tsx"));
    assert_eq!(
        fs::metadata(&state).unwrap().ino(),
        inode,
        "not renamed over"
    );
    let stored: Value = serde_json::from_slice(&fs::read(&state).unwrap()).unwrap();
    assert_eq!(stored["session"]["step"], 2);

    // A hook killed between writing a shorter state and cutting the file:
    // the new state, then the end of the old one.
    let mut torn = fs::read(&state).unwrap();
    torn.extend_from_slice(b"2}]}}\n");
    fs::write(&state, torn).unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/ui/C.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    assert!(env.state.join("claude-code-s.state.json.corrupt").exists());
    assert_eq!(env.log().matches("starting this context afresh").count(), 1);
}

#[test]
fn a_state_that_is_no_regular_file_is_set_aside_and_replaced_by_one() {
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    let target = env.state.join("elsewhere.json");
    fs::write(&target, "{}").unwrap();
    for (session, what) in [
        ("fifo", "a named pipe"),
        ("dir", "a directory"),
        ("link", "a link"),
    ] {
        let state = env.state_file("claude-code", session);
        match session {
            "fifo" => assert!(
                Command::new("mkfifo")
                    .arg(&state)
                    .status()
                    .unwrap()
                    .success()
            ),
            "dir" => fs::create_dir(&state).unwrap(),
            _ => std::os::unix::fs::symlink(&target, &state).unwrap(),
        }
        let run = env.agent_hook("claude-code", &write(session, "src/ui/A.tsx"));
        assert_eq!(run.code, 0, "{what}: {run:?}");
        assert_eq!(
            run.injected("PostToolUse"),
            [".claude/rules/ui.md", "src/ui/CLAUDE.md"],
            "{what}"
        );
        assert!(fs::symlink_metadata(&state).unwrap().is_file(), "{what}");
        serde_json::from_slice::<Value>(&fs::read(&state).unwrap()).unwrap();
        let aside = env
            .state
            .join(format!("claude-code-{session}.state.json.corrupt"));
        assert!(fs::symlink_metadata(aside).is_ok(), "{what}");
    }
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "{}",
        "a link's target is left alone"
    );
    assert_eq!(env.log().matches("starting this context afresh").count(), 3);
}

#[test]
fn an_unwritable_state_dir_is_one_line_on_stderr_and_exit_zero() {
    let env = Env::new();
    // A file where the state directory should be: nothing can be created there.
    fs::write(&env.state, "not a directory").unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    assert_eq!(run.code, 0);
    assert!(run.stdout.is_empty(), "{run:?}");
    // (The hook log, in the same directory, cannot keep it either: that
    // line would say the same.)
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "jit hook: error: the state directory {} cannot be used: not a directory (a regular file)",
            env.state.display()
        )),
        "{run:?}"
    );
}

#[test]
fn unknown_tools_are_logged_as_unregistered_never_guessed() {
    let env = Env::new();
    let run = env.agent_hook(
        "claude-code",
        &tool(
            "s",
            "mcp__fs__write_file",
            r#"{"path":"$ROOT/src/ui/A.tsx"}"#,
        ),
    );
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
    assert!(run.stderr.is_empty(), "{run:?}");
    assert!(
        env.log().contains(
            "unregistered_tool: claude-code has no path reporter for mcp__fs__write_file"
        ),
        "{}",
        env.log()
    );
    // Tool names are case-sensitive: `write` is not Claude's `Write`.
    let run = env.agent_hook(
        "claude-code",
        &tool("s", "write", r#"{"file_path":"$ROOT/src/ui/A.tsx"}"#),
    );
    assert_eq!(run.injected("PostToolUse"), Vec::<String>::new());
}

#[test]
fn jit_stats_reads_the_session_log_unchanged() {
    let env = Env::new();
    env.agent_hook("claude-code", &start("s", "startup"));
    env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    env.agent_hook("claude-code", &write("s", "src/ui/B.tsx"));
    let log = env.state.join("claude-code-s.events.jsonl");
    let (code, stdout, stderr) = crate::jit(&["stats", "--json", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let stats: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(stats["startups"], 1);
    assert_eq!(stats["discoveries"], 2);
    assert_eq!(stats["hits"], 1);
    assert_eq!(stats["skipped_lines"], 0);
    assert_eq!(
        stats["decisions"]["native"],
        Value::Null,
        "no native rule on a Write"
    );
}

#[test]
fn the_hook_log_is_rotated_past_its_cap() {
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    fs::write(env.state.join("hook.log"), "x".repeat(1024 * 1024 + 1)).unwrap();
    let run = env.hook_bytes(&[], b"not json");
    assert_eq!(run.code, 0);
    assert_eq!(
        fs::metadata(env.state.join("hook.log.1")).unwrap().len(),
        1024 * 1024 + 1
    );
    assert!(env.log().contains("not JSON"), "{}", env.log());
    assert_eq!(env.log().lines().count(), 1);
    // At the cap exactly, it stays.
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    fs::write(env.state.join("hook.log"), "x".repeat(1024 * 1024)).unwrap();
    env.hook_bytes(&[], b"not json");
    assert!(!env.state.join("hook.log.1").exists());
}

/// Runs `jit hook --agent claude-code` with no `--conventions`, as an
/// installed hook does.
fn claude_code_as_installed(env: &Env, payload: &str) -> Run {
    let mut cmd = env.command(&["--agent", "claude-code"]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root);
    env.run(
        cmd,
        payload
            .replace("$ROOT", env.root.to_str().unwrap())
            .as_bytes(),
    )
}

#[test]
fn in_a_mixed_repository_every_convention_found_is_used_and_remembered() {
    let env = Env::new();
    let run = claude_code_as_installed(&env, &start("s", "startup"));
    // Claude Code reads CLAUDE.md itself; the root AGENTS.md and GEMINI.md
    // are what it would miss.
    assert_eq!(run.injected("SessionStart"), ["AGENTS.md", "GEMINI.md"]);
    let state: Value =
        serde_json::from_str(&fs::read_to_string(env.state_file("claude-code", "s")).unwrap())
            .unwrap();
    assert_eq!(state["conventions"], json!(["claude", "agents", "gemini"]));
    // A nested AGENTS.md comes just in time, which Codex itself lacks.
    let run = claude_code_as_installed(&env, &write("s", "src/db/new.sql"));
    assert_eq!(
        run.injected("PostToolUse"),
        [
            ".claude/rules/sql.md",
            "src/db/CLAUDE.md",
            "src/db/AGENTS.md"
        ]
    );
    // A convention's files appearing mid-session are not looked for again
    // until the context restarts.
    fs::create_dir_all(env.root.join(".cursor/rules")).unwrap();
    fs::write(
        env.root.join(".cursor/rules/api.mdc"),
        "---\nglobs: src/api/**\n---\nCursor: api.\n",
    )
    .unwrap();
    let run = claude_code_as_installed(&env, &write("s", "src/api/x.ts"));
    assert_eq!(run.injected("PostToolUse"), ["src/api/CLAUDE.md"]);
    let run = claude_code_as_installed(&env, &start("s", "clear"));
    assert!(
        run.context()
            .contains(".cursor/rules/api.mdc (cursor): src/api/**"),
        "{}",
        run.context()
    );
}

#[test]
fn session_start_brings_the_rule_index() {
    let env = Env::new();
    let run = env.agent_hook("claude-code", &start("s", "startup"));
    let context = run.context();
    assert!(
        context.starts_with("[jit-context] Rules not loaded yet"),
        "{context}"
    );
    for line in [
        "- .claude/rules/sql.md (claude): **/*.sql",
        "- .claude/rules/ui.md (claude): src/ui/**/*.tsx",
        "- src/db/CLAUDE.md (claude): unscoped",
    ] {
        assert!(context.lines().any(|l| l == line), "{line}: {context}");
    }
    // Only at a start: a tool call brings rules, not the index.
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Footer.tsx"));
    assert!(!run.context().contains("Rules not loaded yet"));
}

/// `[index] enabled = false` in jit.toml: a start brings no index (and
/// the file is not taken for a broken one); with the conventions named
/// too, it walks nothing.
#[test]
fn session_start_brings_no_index_when_jit_toml_turns_it_off() {
    let env = Env::new();
    let run = env.agent_hook("claude-code", &start("s", "startup"));
    assert!(run.context().contains("Rules not loaded yet"));
    fs::write(env.root.join("jit.toml"), "[index]\nenabled = false\n").unwrap();
    let run = env.agent_hook("claude-code", &start("t", "startup"));
    assert_eq!(run.code, 0);
    assert!(!env.log().contains("jit.toml"), "{}", env.log());
    // Claude Code loads the root's rules itself: nothing is left to say.
    assert!(
        !run.stdout.contains("Rules not loaded yet"),
        "{}",
        run.stdout
    );
    // The conventions named too: a start walks nothing.
    assert!(env.state.join("walks").exists(), "detection walked");
    fs::remove_dir_all(env.state.join("walks")).unwrap();
    fs::write(
        env.root.join("jit.toml"),
        "conventions = [\"claude\"]\n[index]\nenabled = false\n",
    )
    .unwrap();
    let run = env.agent_hook("claude-code", &start("u", "startup"));
    assert_eq!(run.code, 0);
    assert!(!env.log().contains("jit.toml"), "{}", env.log());
    assert!(!env.state.join("walks").exists(), "no walk");
}

#[test]
fn jit_toml_chooses_the_conventions_and_a_broken_one_never_disturbs_the_call() {
    let env = Env::new();
    fs::write(env.root.join("jit.toml"), "conventions = [\"agents\"]\n").unwrap();
    let run = claude_code_as_installed(&env, &start("s", "startup"));
    assert_eq!(run.injected("SessionStart"), ["AGENTS.md"]);
    let run = claude_code_as_installed(&env, &write("s", "src/db/x.sql"));
    assert_eq!(run.injected("PostToolUse"), ["src/db/AGENTS.md"]);

    fs::write(env.root.join("jit.toml"), "conventions = [\"windsurf\"]\n").unwrap();
    let run = claude_code_as_installed(&env, &start("t", "startup"));
    assert_eq!(run.code, 0);
    assert_eq!(run.injected("SessionStart"), ["AGENTS.md", "GEMINI.md"]);
    assert!(env.log().contains("windsurf"), "{}", env.log());
}

/// The finding's jit.toml, naming a file beside the project root with
/// each key of several conventions: neither a start nor a tool call
/// injects anything from outside the root, for any agent, and the hook's
/// log names the file, the table, the key and the value.
#[test]
fn a_jit_toml_naming_a_path_outside_the_root_injects_nothing_from_there() {
    const SENTINEL: &str = "SENTINEL-OUTSIDE-ROOT-9e2b";
    let env = Env::new();
    let outside = env.root.parent().unwrap().join("secret.md");
    fs::write(&outside, format!("{SENTINEL}\n")).unwrap();
    for (n, (table, key)) in [
        ("claude", "extra_names"),
        ("claude", "names"),
        ("agents", "fallback_names"),
        ("agents", "extra_names"),
        ("gemini", "names"),
        ("gemini", "extra_names"),
    ]
    .into_iter()
    .enumerate()
    {
        fs::write(
            env.root.join("jit.toml"),
            format!("[{table}]\n{key} = [\"../secret.md\"]\n"),
        )
        .unwrap();
        for agent in ["claude-code", "codex", "gemini"] {
            let session = format!("{agent}-{n}");
            let mut outputs = String::new();
            // A tool call too where the payload is the agent's (Claude
            // Code's `Write`).
            let mut payloads = vec![start(&session, "startup")];
            if agent == "claude-code" {
                payloads.push(write(&session, "src/db/x.sql"));
            }
            for payload in payloads {
                let mut cmd = env.command(&["--agent", agent]);
                cmd.env("CLAUDE_PROJECT_DIR", &env.root);
                let run = env.run(
                    cmd,
                    payload
                        .replace("$ROOT", env.root.to_str().unwrap())
                        .as_bytes(),
                );
                assert_eq!(run.code, 0, "{run:?}");
                outputs.push_str(&run.stdout);
                outputs.push_str(&run.stderr);
            }
            assert!(
                !outputs.contains(SENTINEL),
                "{table}.{key} {agent}: {outputs}"
            );
            // Something was injected all the same: the call went on.
            assert!(outputs.contains("[jit-context]"), "{outputs}");
        }
        let log = env.log();
        let wanted = format!(
            "{}: in [{table}]: `{key}` holds \"../secret.md\", which is not a file name",
            env.root.join("jit.toml").display()
        );
        assert!(log.contains(&wanted), "{wanted}\n{log}");
    }
}

// The state directory: every file the hook writes there is its own, opened
// without following a link, created `0600` in a `0700` directory; a link
// planted in its place is refused, with a line saying so, and what it
// points to is left alone.

/// A file outside the state directory holding `kept`, and a link to it
/// planted at `name` in the state directory.
fn plant_link(env: &Env, name: &str) -> PathBuf {
    fs::create_dir_all(&env.state).unwrap();
    let outside = env.home.join(format!("outside-{name}"));
    fs::write(&outside, "kept").unwrap();
    std::os::unix::fs::symlink(&outside, env.state.join(name)).unwrap();
    outside
}

#[test]
fn a_link_planted_as_the_event_log_is_refused_and_its_target_left_alone() {
    let env = Env::new();
    let outside = plant_link(&env, "claude-code-s.events.jsonl");
    let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    // The call is answered all the same.
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "kept");
    let log = env.log();
    assert!(
        log.contains("cannot write the event log")
            && log.contains("claude-code-s.events.jsonl: a symbolic link (not followed)"),
        "{log}"
    );
}

#[test]
fn a_link_planted_as_the_lock_file_is_refused_and_nothing_is_created_through_it() {
    let env = Env::new();
    let outside = plant_link(&env, "claude-code-s.lock");
    // A link to a file that does not exist yet: today's create would make it.
    let nowhere = env.home.join("created-through-a-link");
    std::os::unix::fs::symlink(&nowhere, env.state.join("claude-code-t.lock")).unwrap();
    for session in ["s", "t"] {
        let run = env.agent_hook("claude-code", &write(session, "src/ui/A.tsx"));
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.is_empty(), "{run:?}");
        assert!(
            run.stderr
                .starts_with("jit hook: error: cannot open the lock file")
                && run
                    .stderr
                    .contains(&format!("claude-code-{session}.lock: a symbolic link")),
            "{run:?}"
        );
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "kept");
    assert!(fs::symlink_metadata(&nowhere).is_err(), "nothing created");
    assert!(env.log().contains("cannot open the lock file"));
}

#[test]
fn a_link_planted_as_the_hook_log_is_refused_and_said_on_stderr() {
    let env = Env::new();
    let outside = plant_link(&env, "hook.log");
    // A bad payload and an unknown tool: each has a line for the log.
    let run = env.hook_bytes(&[], b"not json");
    assert_eq!(run.code, 0);
    assert_eq!(fs::read_to_string(&outside).unwrap(), "kept");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{run:?}");
    assert!(lines[0].starts_with("jit hook: error:"), "{run:?}");
    assert!(
        lines[1].starts_with("jit hook: warning: cannot write the hook log")
            && lines[1].ends_with("hook.log: a symbolic link (not followed)"),
        "{run:?}"
    );
    let run = env.agent_hook(
        "claude-code",
        &tool("s", "mcp__fs__write_file", r#"{"path":"$ROOT/a"}"#),
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "kept");
    // The note the log would have kept is on stderr instead.
    assert!(
        run.stderr.contains("unregistered_tool")
            && run.stderr.contains("cannot write the hook log"),
        "{run:?}"
    );
}

#[test]
fn a_link_planted_as_walks_is_neither_written_through_nor_pruned_through() {
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    // A folder of the user's, with a file the walk cache's pruning would
    // take for an old cache.
    let outside = env.home.join("documents");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("old.json"), "kept").unwrap();
    set_age(&outside.join("old.json"), 30 * 24 * 60 * 60);
    std::os::unix::fs::symlink(&outside, env.state.join("walks")).unwrap();
    let run = env.agent_hook("claude-code", &start("s", "startup"));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.context().contains(INDEX_HEADING),
        "the call is answered: {run:?}"
    );
    let left: Vec<_> = fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["old.json"], "nothing written, nothing pruned");
}

/// Whether this process runs as root (the owner of a directory it makes).
fn as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    fs::metadata(dir.path()).unwrap().uid() == 0
}

#[test]
fn a_state_directory_every_user_may_write_in_or_of_another_user_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    fs::create_dir_all(&env.state).unwrap();
    fs::set_permissions(&env.state, fs::Permissions::from_mode(0o777)).unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "jit hook: error: the state directory {} cannot be used: writable by every user (mode 0777) without the sticky bit",
            env.state.display()
        )),
        "{run:?}"
    );
    assert!(
        fs::read_dir(&env.state).unwrap().next().is_none(),
        "nothing written"
    );

    // With the sticky bit (as `/tmp`), nobody can move another's files: used.
    fs::set_permissions(&env.state, fs::Permissions::from_mode(0o1777)).unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );

    // A directory (or a link in its place) of another user: only root can
    // make one to test with.
    if as_root() {
        let env = Env::new();
        fs::create_dir_all(&env.state).unwrap();
        std::os::unix::fs::chown(&env.state, Some(65534), Some(65534)).unwrap();
        let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
        assert!(
            run.stderr
                .contains("cannot be used: owned by another user (uid 65534)"),
            "{run:?}"
        );
        let env = Env::new();
        let real = env.home.join("real-state");
        fs::create_dir_all(&real).unwrap();
        std::os::unix::fs::symlink(&real, &env.state).unwrap();
        std::os::unix::fs::lchown(&env.state, Some(65534), Some(65534)).unwrap();
        let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
        assert!(
            run.stderr
                .contains("cannot be used: a symbolic link owned by another user (uid 65534)"),
            "{run:?}"
        );
        assert!(
            fs::read_dir(&real).unwrap().next().is_none(),
            "nothing written"
        );
    }
}

/// A state directory the user keeps elsewhere through a link of their own
/// is followed; only its last component is checked, so a home reached
/// through a link is as good as any.
#[test]
fn a_state_directory_that_is_the_users_own_link_is_used() {
    let env = Env::new();
    let real = env.home.join("disk/jit-state");
    fs::create_dir_all(&real).unwrap();
    let home_link = env.home.join("linked-home");
    std::os::unix::fs::symlink(env.home.join("disk"), &home_link).unwrap();
    std::os::unix::fs::symlink(&real, &env.state).unwrap();
    let run = env.agent_hook("claude-code", &write("s", "src/ui/A.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    assert!(real.join("claude-code-s.state.json").is_file());
    // `JIT_STATE_DIR` below a linked folder: the path above is not judged.
    let mut cmd = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root)
        .env("JIT_STATE_DIR", home_link.join("jit-state"));
    let run = env.run(
        cmd,
        write("t", "src/ui/A.tsx")
            .replace("$ROOT", env.root.to_str().unwrap())
            .as_bytes(),
    );
    assert!(run.stderr.is_empty(), "{run:?}");
    assert!(real.join("claude-code-t.state.json").is_file());
}

/// The modes are jit's own, not the umask's: with a umask of 0, the state
/// directory and `walks/` are `0700`, every file `0600`.
#[test]
fn what_the_hook_creates_in_the_state_directory_is_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let umask0 = |payload: &str| {
        let jit = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("umask 000 && exec \"$0\" \"$@\"")
            .arg(jit.get_program())
            .args(jit.get_args())
            .env("HOME", &env.home)
            .env("JIT_STATE_DIR", &env.state)
            .env("CLAUDE_PROJECT_DIR", &env.root)
            .env_remove("XDG_STATE_HOME")
            .current_dir(&env.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        env.run(
            cmd,
            payload
                .replace("$ROOT", env.root.to_str().unwrap())
                .as_bytes(),
        )
    };
    umask0(&start("s", "startup"));
    umask0(&write("s", "src/ui/A.tsx"));
    // An unknown tool: a line in `hook.log`.
    umask0(&tool("s", "mcp__x", r#"{"path":"$ROOT/a"}"#));
    let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&env.state), 0o700);
    let walks = env.state.join("walks");
    assert_eq!(mode(&walks), 0o700);
    let caches: Vec<PathBuf> = fs::read_dir(&walks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(caches.len(), 1, "{caches:?}");
    let mut files = vec![caches[0].clone()];
    for name in [
        "claude-code-s.state.json",
        "claude-code-s.lock",
        "claude-code-s.events.jsonl",
        "hook.log",
    ] {
        files.push(env.state.join(name));
    }
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
}

/// The discovery events of `session`'s log (Claude Code).
fn discovery_events(env: &Env, session: &str) -> Vec<Value> {
    fs::read_to_string(
        env.state
            .join(format!("claude-code-{session}.events.jsonl")),
    )
    .unwrap()
    .lines()
    .map(|line| serde_json::from_str::<Value>(line).unwrap())
    .filter(|event| event["kind"] == "discovery")
    .collect()
}

/// A Bash call writing 1,500 new files with here-documents: every path
/// discovered, one event listing the first 1,000 paths once (each event
/// listed all of them, once per path: quadratic, 1.9 GB for 10,000).
#[test]
fn a_bash_call_writing_many_new_files_logs_one_bounded_event() {
    let env = Env::new();
    env.agent_hook("claude-code", &start("s", "startup"));
    let command: String = (0..1500)
        .map(|i| {
            format!(
                "cat > src/gen{}/f{i}.ts <<'EOF'\nexport {{}};\nEOF\n",
                i % 50
            )
        })
        .collect();
    let input = json!({ "command": command }).to_string();
    let run = env.agent_hook("claude-code", &tool("s", "Bash", &input));
    assert_eq!(run.code, 0, "{run:?}");
    let events = discovery_events(&env, "s");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["paths"].as_array().unwrap().len(), 1000);
    assert_eq!(events[0]["paths"][0], "src/gen0/f0.ts");
    assert_eq!(events[0]["paths_omitted"], 500);
    assert_eq!(events[0]["limits"], Value::Null, "no limit reached");
    let bytes = fs::metadata(env.state.join("claude-code-s.events.jsonl"))
        .unwrap()
        .len();
    assert!(bytes < 64 * 1024, "{bytes} bytes of events");
}

/// Past its deadline (here a budget of 0 ms) the hook looks at no more
/// paths, saves what it has, and says so: in its output, its event and
/// `hook.log`. Nothing is lost: the next call finds the rules.
#[test]
fn past_its_deadline_the_hook_answers_with_what_it_has_and_says_so() {
    let env = Env::new();
    env.agent_hook("claude-code", &start("s", "startup"));
    let mut cmd = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root)
        .env("JIT_HOOK_DEADLINE_MS", "0");
    let payload = write("s", "src/ui/Menu.tsx").replace("$ROOT", env.root.to_str().unwrap());
    let run = env.run(cmd, payload.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.context(),
        "[jit-context] jit stopped looking for rules at its 0 ms time budget: the time ran out \
         with 1 of the call's 1 paths not looked at. Rules of the directories left out were not \
         checked; read their rule files if the change depends on them."
    );
    let events = discovery_events(&env, "s");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["limits"][0]["limit"], "deadline");
    assert_eq!(events[0]["hit"], false);
    // Listed as the call named it, though it was not looked at.
    assert!(
        events[0]["paths"][0]
            .as_str()
            .unwrap()
            .ends_with("/src/ui/Menu.tsx")
    );
    assert!(
        env.log()
            .contains("limit deadline: the time ran out with 1"),
        "{}",
        env.log()
    );
    // The step was saved; the rules were not recorded as loaded.
    let run = env.agent_hook("claude-code", &write("s", "src/ui/Menu.tsx"));
    assert_eq!(
        run.injected("PostToolUse"),
        [".claude/rules/ui.md", "src/ui/CLAUDE.md"]
    );
    assert_eq!(discovery_events(&env, "s")[1]["step"], 2);

    // A deadline that is no number is noted, and the default stands.
    let mut cmd = env.command(&["--agent", "claude-code", "--conventions", "claude"]);
    cmd.env("CLAUDE_PROJECT_DIR", &env.root)
        .env("JIT_HOOK_DEADLINE_MS", "soon");
    let payload = write("s", "src/api/new.ts").replace("$ROOT", env.root.to_str().unwrap());
    let run = env.run(cmd, payload.as_bytes());
    assert_eq!(run.injected("PostToolUse"), ["src/api/CLAUDE.md"]);
    assert!(
        env.log()
            .contains("JIT_HOOK_DEADLINE_MS=\"soon\" is not a whole number"),
        "{}",
        env.log()
    );
}

/// A Bash command over the parser's cap is not parsed; the hook says so
/// instead of missing the rules without a word.
#[test]
fn a_command_over_the_parser_cap_is_said_in_the_output_and_the_event() {
    let env = Env::new();
    env.agent_hook("claude-code", &start("s", "startup"));
    let command = format!(
        "cat > src/ui/Big.tsx <<'EOF'\n{}\nEOF",
        "x".repeat(256 * 1024)
    );
    let input = json!({ "command": command }).to_string();
    let run = env.agent_hook("claude-code", &tool("s", "Bash", &input));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.context().starts_with(
            "[jit-context] jit did not look for rules everywhere (too_large): the command's \
             262177 bytes, over the 262144 bytes of text this crate parses."
        ),
        "{}",
        run.context()
    );
    let events = discovery_events(&env, "s");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["limits"][0]["limit"], "too_large");
    assert!(env.log().contains("limit too_large"), "{}", env.log());
}

/// Codex's session start discovers the files git reports changed; past the
/// deadline it leaves them, and says so like a tool call.
#[test]
fn a_codex_start_past_its_deadline_says_which_changed_files_it_left() {
    let env = Env::new();
    fs::write(
        env.root.join("src/db/schema.sql"),
        "create table b (id int);\n",
    )
    .unwrap();
    let mut cmd = env.command(&["--agent", "codex", "--conventions", "claude,agents"]);
    cmd.env("JIT_HOOK_DEADLINE_MS", "0");
    let payload = format!(
        r#"{{"session_id":"x","turn_id":"t1","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        env.root.display()
    );
    let run = env.run(cmd, payload.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let context = run.context();
    assert!(
        context.starts_with("[jit-context] CLAUDE.md (session_start"),
        "{context}"
    );
    assert!(
        context.contains("0 ms time budget: the time ran out with 1 of the call's 1 paths"),
        "{context}"
    );
    // Not injected: only listed in the rule index.
    assert!(
        !context.contains("[jit-context] src/db/CLAUDE.md ("),
        "{context}"
    );
    assert!(env.log().contains("limit deadline"), "{}", env.log());
}
