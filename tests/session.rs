//! Sessions end to end: the prompt setter's invariant, the sub-agent positive control, batches, budget, manifest, events and stats.

use std::fs;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Attribution, BlockForm, CACHE_BOUNDARY, Channel, ChannelKind, Decision, Engine, Event,
    EventKind, LeaveReason, Session, SessionConfig, SkipReason, StartupOptions, Stats,
    StatsOptions, ToolCall,
};
use pretty_assertions::assert_eq;
use serde_json::json;

// The sessions below resolve tool calls through the registry, which only
// holds the tools of plug-in crates linked into this binary.
use jit_tools as _;

const UI_RULE: &str = "# UI\nNo colour emoji in components.\n";
const ROOT_RULE: &str = "# Project\nRun the tests before committing.\n";

/// A project with an unconditional root rule, a nested `src/ui` rule, and
/// a scoped rule for `src/api/**/*.ts`, plus an event log path beside it.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        project.write("proj/CLAUDE.md", ROOT_RULE);
        project.write("proj/src/ui/CLAUDE.md", UI_RULE);
        project.write("proj/src/ui/Badge.tsx", "export const Badge = 1;\n");
        project.write(
            "proj/src/api/CLAUDE.md",
            "---\npaths: [\"src/api/**/*.ts\"]\n---\nValidate every input.\n",
        );
        project.write("proj/docs/guide.md", "guide\n");
        project
    }

    fn base(&self) -> &Utf8Path {
        Utf8Path::from_path(self.dir.path()).unwrap()
    }

    fn root(&self) -> Utf8PathBuf {
        self.base().join("proj")
    }

    fn log(&self) -> Utf8PathBuf {
        self.base().join("events.jsonl")
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.base().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn engine(&self) -> Arc<Engine> {
        Arc::new(Engine::new(self.root()).unwrap())
    }

    /// A main session with the event log, started at the root without
    /// managed or user rules.
    fn session(&self, config: SessionConfig) -> Session {
        let mut session =
            Session::new(self.engine(), config.with_event_log(self.log())).with_id("s1");
        session.startup(&StartupOptions::new(self.root()).with_managed(None));
        session
    }

    fn events(&self) -> Vec<Event> {
        let Ok(text) = fs::read_to_string(self.log()) else {
            return Vec::new();
        };
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

fn root_of(session: &Session) -> Utf8PathBuf {
    session.engine().root().to_owned()
}

fn touch(session: &mut Session, path: &str) -> jit_core::Injection {
    let root = root_of(session);
    session.touch(Utf8Path::new(path), &root)
}

fn read(session: &mut Session, path: &str) -> jit_core::Injection {
    let root = root_of(session);
    session
        .tool_call("read", &json!({ "file_path": path }), &root)
        .unwrap()
}

fn begin_marker(file: &str) -> String {
    format!("<!-- jit:rule file=\"{file}\" -->")
}

/// Every rule block of `expected` is in the prompt exactly once, after the
/// boundary; every block not listed is absent.
#[track_caller]
fn check_blocks(session: &Session, expected: &[(&str, &str)]) {
    let text = session.prompt().text();
    let boundary = session
        .prompt()
        .boundary_position()
        .expect("the prompt always has its boundary");
    assert_eq!(
        text.matches(CACHE_BOUNDARY).count(),
        1,
        "one boundary in:\n{text}"
    );
    for (file, content) in expected {
        let marker = begin_marker(file);
        assert_eq!(text.matches(&marker).count(), 1, "{file} once in:\n{text}");
        assert_eq!(
            text.matches(content).count(),
            1,
            "{file}'s text once in:\n{text}"
        );
        let at = session.prompt().block_position(file).unwrap();
        assert!(
            at > boundary,
            "{file} at {at} is before the boundary at {boundary}"
        );
    }
    let mut files: Vec<&str> = session
        .prompt()
        .blocks()
        .iter()
        .map(|b| b.file.as_str())
        .collect();
    files.sort_unstable();
    let mut want: Vec<&str> = expected.iter().map(|(f, _)| *f).collect();
    want.sort_unstable();
    assert_eq!(files, want);
    assert_eq!(
        text.matches("<!-- jit:rule file=").count(),
        want.len(),
        "{text}"
    );
}

#[test]
fn three_rebuilds_keep_each_block_exactly_once() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    let expected = [("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", UI_RULE)];
    // Model switch, language switch, reload: each rebuilds from scratch, and
    // the last one passes back the full text it got earlier.
    session.set_system_prompt(format!("model A\n{CACHE_BOUNDARY}\ndate"));
    check_blocks(&session, &expected);
    session.set_system_prompt(format!("langue B\n{CACHE_BOUNDARY}\ndate"));
    check_blocks(&session, &expected);
    let again = session.prompt().text().to_owned();
    session.set_system_prompt(again.clone());
    check_blocks(&session, &expected);
    assert_eq!(
        session.prompt().text(),
        again,
        "set(text()) changes nothing"
    );
    assert!(session.prompt().text().starts_with("langue B\n"));
}

#[test]
fn a_bare_set_re_appends_the_blocks_after_a_boundary() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    // A caller that knows nothing of rules, nor of the boundary.
    session.set_system_prompt("You are a coding agent.");
    check_blocks(
        &session,
        &[("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", UI_RULE)],
    );
    assert!(
        session
            .prompt()
            .text()
            .starts_with("You are a coding agent.")
    );
}

#[test]
fn blocks_pasted_before_the_boundary_move_after_it() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    let text = session.prompt().text();
    let blocks =
        text[session.prompt().boundary_position().unwrap() + CACHE_BOUNDARY.len()..].to_owned();
    // A rebuild that put the old text in the static region.
    session.set_system_prompt(format!("{blocks}\nstatic\n{CACHE_BOUNDARY}\ndynamic"));
    check_blocks(
        &session,
        &[("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", UI_RULE)],
    );
}

#[test]
fn a_rule_changed_on_disk_replaces_its_block_never_both() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    session.set_system_prompt(format!("static\n{CACHE_BOUNDARY}\ndynamic"));
    read(&mut session, "src/ui/Badge.tsx");
    let old_text = session.prompt().text().to_owned();
    let v2 = "# UI\nVersion two: emoji are fine now, keep them small.\n";
    project.write("proj/src/ui/CLAUDE.md", v2);
    let step = read(&mut session, "src/ui/Badge.tsx");
    assert_eq!(
        step.discoveries[0].loaded[0].decision,
        jit_core::LoadKind::Replaced
    );
    check_blocks(
        &session,
        &[("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", v2)],
    );
    assert!(!session.prompt().text().contains(UI_RULE));
    // A caller holding the stale prompt cannot bring the old version back.
    session.set_system_prompt(old_text);
    check_blocks(
        &session,
        &[("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", v2)],
    );

    let ui: Vec<_> = session
        .manifest()
        .entries()
        .iter()
        .filter(|e| e.file == "src/ui/CLAUDE.md")
        .collect();
    assert_eq!(ui.len(), 2);
    assert_eq!(ui[0].left_reason, Some(LeaveReason::ReplacedByNewerRead));
    assert_eq!(ui[0].left_step, Some(2));
    assert!(ui[1].is_resident());
    assert_ne!(ui[0].hash, ui[1].hash);
    let last = project.events().pop().unwrap();
    assert_eq!(last.left[0].reason, LeaveReason::ReplacedByNewerRead);
    assert_eq!(last.candidates[0].decision, Decision::Replaced);
}

#[test]
fn rearm_keeps_startup_rules_and_nested_ones_return_on_the_next_touch() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    session.rearm();
    session.set_system_prompt(format!("compacted summary\n{CACHE_BOUNDARY}\n"));
    check_blocks(&session, &[("CLAUDE.md", ROOT_RULE)]);
    let gone = session
        .manifest()
        .entries()
        .iter()
        .find(|e| e.file == "src/ui/CLAUDE.md")
        .unwrap();
    assert_eq!(gone.left_reason, Some(LeaveReason::Compacted));

    let back = read(&mut session, "src/ui/Badge.tsx");
    let files: Vec<&str> = back.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(
        files,
        ["src/ui/CLAUDE.md"],
        "the root rule is not injected twice"
    );
    check_blocks(
        &session,
        &[("CLAUDE.md", ROOT_RULE), ("src/ui/CLAUDE.md", UI_RULE)],
    );
    let event = project.events().pop().unwrap();
    assert_eq!(event.left[0].file, "src/ui/CLAUDE.md");
    assert_eq!(event.left[0].reason, LeaveReason::Compacted);
}

/// The positive control: with the switch on, a sub-agent reading a ruled
/// directory leaves sub-agent events with a hit. Without this test, the
/// next one (no events with the switch off) would prove nothing.
#[test]
fn subagent_with_jit_on_logs_a_hit_on_the_subagent_channel() {
    let project = Project::new();
    let parent = project.session(SessionConfig::new());
    assert!(parent.config().jit_context(), "on by default");
    let mut sub = parent.subagent("explore-1");
    assert_eq!(sub.channel(), &Channel::Subagent("explore-1".to_owned()));
    let content = fs::read_to_string(project.root().join("src/ui/Badge.tsx")).unwrap();
    assert!(content.contains("Badge"));
    read(&mut sub, "src/ui/Badge.tsx");

    let events: Vec<Event> = project
        .events()
        .into_iter()
        .filter(|e| e.channel == ChannelKind::Subagent)
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].subagent.as_deref(), Some("explore-1"));
    assert_eq!(events[0].session, "s1/explore-1");
    assert!(events[0].hit);
    let loaded: Vec<&str> = events[0]
        .candidates
        .iter()
        .filter(|c| c.decision == Decision::Loaded)
        .map(|c| c.file.as_str())
        .collect();
    assert!(loaded.contains(&"src/ui/CLAUDE.md"), "{loaded:?}");
}

#[test]
fn subagent_with_jit_off_still_reads_the_file_and_logs_no_jit_event() {
    let project = Project::new();
    let parent = project.session(SessionConfig::new().with_jit_context(false));
    let mut sub = parent.subagent("explore-1");
    assert!(!sub.config().jit_context(), "the switch is inherited");
    // The sub-agent runs its tool: the file is really read...
    let content = fs::read_to_string(project.root().join("src/ui/Badge.tsx")).unwrap();
    assert!(content.contains("Badge"));
    let step = read(&mut sub, "src/ui/Badge.tsx");
    // ... and no discovery happens.
    assert_eq!(step.step, 1);
    assert!(step.discoveries.is_empty() && step.events.is_empty());
    assert!(sub.prompt().blocks().is_empty());
    let events = project.events();
    assert!(
        events.iter().all(|e| e.channel == ChannelKind::Main),
        "{events:?}"
    );
    assert!(events.iter().all(|e| e.kind == EventKind::Startup));
}

#[test]
fn sibling_files_in_one_batch_inject_their_shared_parent_once() {
    let project = Project::new();
    let mut session = Session::new(project.engine(), SessionConfig::new());
    let root = project.root();
    let batch = session
        .tool_batch(
            &[
                ToolCall::new("read", json!({"file_path": "src/ui/A.tsx"})),
                ToolCall::new("read", json!({"file_path": "src/ui/B.tsx"})),
                ToolCall::new(
                    "edit",
                    json!({"file_path": "src/api/x.ts", "old_string": "a", "new_string": "b"}),
                ),
            ],
            &root,
        )
        .unwrap();
    assert_eq!(batch.step, 1);
    assert_eq!(batch.discoveries.len(), 3);
    let files: Vec<&str> = batch.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(
        files,
        ["CLAUDE.md", "src/ui/CLAUDE.md", "src/api/CLAUDE.md"]
    );
    assert!(batch.events.iter().all(|e| e.step == 1));
    assert_eq!(batch.events[2].tool.as_deref(), Some("edit"));
}

#[test]
fn a_batch_with_an_unknown_tool_changes_nothing() {
    let project = Project::new();
    let mut session = Session::new(project.engine(), SessionConfig::new());
    let root = project.root();
    let err = session
        .tool_batch(
            &[
                ToolCall::new("read", json!({"file_path": "src/ui/A.tsx"})),
                ToolCall::new("teleport", json!({"path": "src/ui"})),
            ],
            &root,
        )
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::UnregisteredTool);
    assert_eq!(session.step(), 0);
    assert!(session.prompt().blocks().is_empty());
}

/// `tool_batch_each`: a malformed or unknown call is reported beside the
/// step the others take; a batch of nothing but such calls takes no step
/// and changes nothing.
#[test]
fn a_batch_call_by_call_runs_the_calls_that_resolve() {
    let project = Project::new();
    let mut session = Session::new(project.engine(), SessionConfig::new());
    let root = project.root();
    let bad = [
        ToolCall::new("teleport", json!({"path": "src/ui"})),
        ToolCall::new("read", json!({"path": "no file_path"})),
    ];
    let (injection, errors) = session.tool_batch_each(&bad, &root).unwrap();
    assert!(injection.is_none());
    let kinds: Vec<_> = errors.iter().map(jit_core::Error::kind).collect();
    assert_eq!(
        kinds,
        [
            jit_core::ErrorKind::UnregisteredTool,
            jit_core::ErrorKind::InvalidToolInput
        ]
    );
    assert_eq!(session.step(), 0);
    assert!(session.prompt().blocks().is_empty());
    assert!(project.events().is_empty());

    let mixed = [
        bad[0].clone(),
        ToolCall::new("read", json!({"file_path": "src/ui/A.tsx"})),
        bad[1].clone(),
        ToolCall::new("read", json!({"file_path": "src/api/x.ts"})),
    ];
    let (injection, errors) = session.tool_batch_each(&mixed, &root).unwrap();
    let injection = injection.unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(injection.step, 1);
    assert_eq!(injection.discoveries.len(), 2);
    let files: Vec<&str> = injection.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(
        files,
        ["CLAUDE.md", "src/ui/CLAUDE.md", "src/api/CLAUDE.md"]
    );
    // The same batch whole fails and changes nothing.
    let err = session.tool_batch(&mixed, &root).unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::UnregisteredTool);
    assert_eq!(session.step(), 1);

    // With runtime discovery off, a batch is an empty step, as whole.
    let mut off = Session::new(
        project.engine(),
        SessionConfig::new().with_jit_context(false),
    );
    let (injection, errors) = off.tool_batch_each(&bad, &root).unwrap();
    assert_eq!(injection.unwrap().step, 1);
    assert!(errors.is_empty());
}

#[test]
fn every_discovery_writes_one_event_hit_or_not() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    for path in [
        "docs/guide.md",
        "src/api/README.md",
        "src/api/x.ts",
        "/etc/hosts",
    ] {
        touch(&mut session, path);
    }
    let events = project.events();
    let summary: Vec<(EventKind, u64, &str, bool, u64)> = events
        .iter()
        .map(|e| (e.kind, e.step, e.trigger.as_str(), e.hit, e.bytes_injected))
        .collect();
    assert_eq!(
        summary,
        [
            (EventKind::Startup, 0, ".", true, ROOT_RULE.len() as u64),
            (EventKind::Discovery, 1, "docs/guide.md", false, 0),
            (EventKind::Discovery, 2, "src/api/README.md", false, 0),
            (EventKind::Discovery, 3, "src/api/x.ts", true, 22),
            (EventKind::Discovery, 4, "/etc/hosts", false, 0),
        ]
    );
    assert!(events.iter().all(|e| e.schema == 1 && e.session == "s1"));
    assert!(
        events
            .iter()
            .all(|e| e.ts.len() == 24 && e.ts.ends_with('Z'))
    );
    assert_eq!(events[2].candidates[0].reason, Some(SkipReason::ScopeMiss));
    assert_eq!(events[3].resident_bytes, (ROOT_RULE.len() + 22) as u64);
    assert_eq!(
        events[4].candidates[0].reason,
        Some(SkipReason::OutsideRoot)
    );
}

#[test]
fn the_event_shape() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    let events: Vec<Event> = project
        .events()
        .into_iter()
        .map(|mut e| {
            e.ts = "<ts>".to_owned();
            e.elapsed_us = 0;
            e
        })
        .collect();
    insta::assert_yaml_snapshot!(events);
}

#[test]
fn an_unwritable_event_log_is_a_warning_not_a_failure() {
    let project = Project::new();
    let config =
        SessionConfig::new().with_event_log(project.base().join("missing/dir/events.jsonl"));
    let mut session = Session::new(project.engine(), config);
    let step = read(&mut session, "src/ui/Badge.tsx");
    assert!(step.is_hit());
    assert_eq!(step.events.len(), 1, "the event is still returned");
    read(&mut session, "src/ui/Other.tsx");
    assert_eq!(session.warnings().len(), 1, "{:?}", session.warnings());
    assert!(session.warnings()[0].contains("missing/dir/events.jsonl"));
}

#[test]
fn a_rule_over_budget_is_injected_as_its_headings_with_a_note() {
    let project = Project::new();
    let body = "x".repeat(4000);
    let big = format!("# Big\n{body}\n## Part two\n```\n# not a heading\n```\n{body}\n");
    project.write("proj/src/big/CLAUDE.md", &big);
    let mut session = Session::new(
        project.engine(),
        SessionConfig::new().with_budget_bytes(1000),
    );
    let step = read(&mut session, "src/big/a.rs");
    let discovery = &step.discoveries[0];
    let loaded: Vec<&str> = discovery.loaded.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(loaded, ["CLAUDE.md"], "the root rule fits");
    let skipped = &discovery.skipped[0];
    assert_eq!(skipped.file, "src/big/CLAUDE.md");
    assert_eq!(skipped.reason, SkipReason::TooLargeForBudget);
    assert!(
        skipped.detail.contains("read src/big/CLAUDE.md"),
        "{}",
        skipped.detail
    );

    let block = &session.prompt().blocks()[1];
    assert!(
        block
            .content
            .starts_with("# Big\n## Part two\n[jit: summary of src/big/CLAUDE.md")
    );
    assert!(
        block
            .content
            .contains("Read src/big/CLAUDE.md for the full text.")
    );
    assert!(!block.content.contains("xxx") && !block.content.contains("not a heading"));
    let entry = session.manifest().resident("src/big/CLAUDE.md").unwrap();
    assert_eq!(entry.form, BlockForm::Summary);
    assert_eq!(entry.source_bytes, big.len() as u64);
    assert_eq!(entry.bytes, block.content.len() as u64);
    assert_eq!(
        step.events[0].candidates[1].decision,
        Decision::TooLargeForBudget
    );
    assert!(step.events[0].hit, "a summary is still an injection");
}

#[test]
fn startup_rules_do_not_count_against_the_budget() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new().with_budget_bytes(UI_RULE.len() as u64));
    let step = read(&mut session, "src/ui/Badge.tsx");
    assert_eq!(step.discoveries[0].loaded[0].file, "src/ui/CLAUDE.md");
    assert_eq!(
        session
            .manifest()
            .resident("CLAUDE.md")
            .unwrap()
            .attribution,
        Attribution::SessionStart
    );
}

#[test]
fn large_blocks_idle_for_many_steps_are_context_debt() {
    let project = Project::new();
    project.write("proj/src/ui/CLAUDE.md", &"ui rule line\n".repeat(2000));
    let mut session = project.session(SessionConfig::new());
    read(&mut session, "src/ui/Badge.tsx");
    for _ in 0..9 {
        read(&mut session, "docs/guide.md");
    }
    assert_eq!(session.debt(16 * 1024, 10), []);
    read(&mut session, "docs/guide.md");
    let debt = session.debt(16 * 1024, 10);
    assert_eq!(debt.len(), 1);
    assert_eq!(
        (
            debt[0].file.as_str(),
            debt[0].bytes,
            debt[0].last_relevant_step,
            debt[0].idle_steps
        ),
        ("src/ui/CLAUDE.md", 26_000, 1, 10)
    );
    // The root rule is relevant to every touch inside the project.
    assert_eq!(
        session
            .manifest()
            .resident("CLAUDE.md")
            .unwrap()
            .last_relevant_step,
        11
    );

    // The event log alone tells the same story.
    let log = fs::read_to_string(project.log()).unwrap();
    let stats = Stats::from_lines(log.lines(), StatsOptions::default());
    assert_eq!(stats.debt.len(), 1);
    assert_eq!(
        (stats.debt[0].file.as_str(), stats.debt[0].idle_steps),
        ("src/ui/CLAUDE.md", 10)
    );
}

#[test]
fn stats_over_a_session_log() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    for path in [
        "docs/guide.md",
        "src/api/README.md",
        "src/api/x.ts",
        "src/ui/Badge.tsx",
    ] {
        read(&mut session, path);
    }
    let mut sub = session.subagent("a");
    read(&mut sub, "src/ui/Badge.tsx");
    let mut log = fs::read_to_string(project.log()).unwrap();
    log.push_str("{\"schema\":0,\"old\":true}\nnot json at all\n");
    let stats = Stats::from_lines(log.lines(), StatsOptions::default());
    assert_eq!(
        (
            stats.lines,
            stats.skipped_lines,
            stats.sessions,
            stats.startups
        ),
        (8, 2, 2, 1)
    );
    assert_eq!((stats.discoveries, stats.hits), (5, 3));
    assert_eq!(stats.hit_rate, 0.6);
    assert_eq!(
        stats.channels.into_iter().collect::<Vec<_>>(),
        [("main".to_owned(), 4), ("subagent".to_owned(), 1)]
    );
    assert_eq!(stats.attribution["session_start"], 1);
    assert_eq!(stats.attribution["path_glob_match"], 1);
    assert_eq!(stats.attribution["nested_traversal"], 3);
    // The one scope miss: `src/api/README.md` is not `src/api/**/*.ts`.
    assert_eq!(stats.scope_skipped, 1);
    assert_eq!(stats.decisions["skipped:scope_miss"], 1);
    assert_eq!(stats.by_file[0].file, "CLAUDE.md");
}

#[test]
fn a_startup_rule_replaced_mid_session_stays_through_a_rearm() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    let v2 = "# Project\nVersion two of the root rules, somewhat longer.\n";
    project.write("proj/CLAUDE.md", v2);
    let step = read(&mut session, "src/ui/Badge.tsx");
    let files: Vec<&str> = step.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(files, ["CLAUDE.md", "src/ui/CLAUDE.md"]);
    session.rearm();
    session.set_system_prompt("after compaction");
    check_blocks(&session, &[("CLAUDE.md", v2)]);
}

#[test]
fn a_startup_rule_changed_after_a_rearm_is_replaced_on_the_next_touch() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    session.rearm();
    // Unchanged: recognised, not injected twice.
    let step = read(&mut session, "docs/guide.md");
    assert!(step.blocks.is_empty(), "{:?}", step.blocks);
    assert_eq!(
        step.discoveries[0].skipped[0].reason,
        SkipReason::AlreadyLoaded
    );
    session.rearm();
    let v2 = "# Project\nVersion two of the root rules, somewhat longer.\n";
    project.write("proj/CLAUDE.md", v2);
    let step = read(&mut session, "docs/guide.md");
    assert_eq!(step.blocks.len(), 1);
    assert_eq!(step.events[0].candidates[0].decision, Decision::Replaced);
    assert_eq!(
        step.events[0].left[0].reason,
        LeaveReason::ReplacedByNewerRead
    );
    check_blocks(&session, &[("CLAUDE.md", v2)]);
}

/// Hand-written logs (old and foreign lines, departures, sub-agents): the
/// whole statistics object, with debt from 1000 bytes and 3 idle steps.
#[test]
fn stats_of_hand_written_logs() {
    insta::glob!("fixtures/stats/*.jsonl", |path| {
        let text = fs::read_to_string(path).unwrap();
        let options = StatsOptions {
            debt_min_bytes: 1000,
            debt_idle_steps: 3,
        };
        insta::assert_yaml_snapshot!(Stats::from_lines(text.lines(), options));
    });
}

/// A harness may hand a session to another thread (a sub-agent runner).
#[test]
fn sessions_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<Session>();
    let project = Project::new();
    let mut session = Session::new(project.engine(), SessionConfig::new());
    let root = project.root();
    let step = std::thread::spawn(move || {
        session
            .tool_call("read", &json!({"file_path": "src/ui/Badge.tsx"}), &root)
            .unwrap()
    })
    .join()
    .unwrap();
    assert!(step.is_hit());
}

#[cfg(unix)]
#[test]
fn a_named_pipe_as_event_log_is_refused_not_waited_on() {
    let project = Project::new();
    let fifo = project.base().join("events.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(fifo.as_str())
        .status()
        .unwrap();
    assert!(status.success());
    let mut session = Session::new(project.engine(), SessionConfig::new().with_event_log(&fifo));
    let step = read(&mut session, "src/ui/Badge.tsx");
    assert!(step.is_hit());
    assert!(
        session.warnings()[0].contains("named pipe"),
        "{:?}",
        session.warnings()
    );
}

/// Sum of the block contents a step put into the prompt.
fn block_bytes(step: &jit_core::Injection) -> u64 {
    step.blocks.iter().map(|b| b.content.len() as u64).sum()
}

#[test]
fn an_imported_file_is_inlined_in_its_including_block_not_a_block_of_its_own() {
    let project = Project::new();
    project.write("proj/src/CLAUDE.md", "see @NOTE.md\n");
    project.write("proj/src/NOTE.md", "Note: keep functions short.\n");
    project.write("proj/src/lib/CLAUDE.md", "also @../NOTE.md\n");
    let mut session = project.session(SessionConfig::new());
    let first = read(&mut session, "src/main.rs");
    let second = read(&mut session, "src/lib/x.rs");

    // Only the including rules are blocks, each carrying the note inlined.
    let files: Vec<&str> = session
        .prompt()
        .blocks()
        .iter()
        .map(|b| b.file.as_str())
        .collect();
    assert_eq!(files, ["CLAUDE.md", "src/CLAUDE.md", "src/lib/CLAUDE.md"]);
    assert!(session.manifest().resident("src/NOTE.md").is_none());
    assert!(
        session
            .prompt()
            .blocks()
            .iter()
            .all(|b| !b.content.is_empty())
    );
    assert_eq!(
        session
            .prompt()
            .text()
            .matches("Note: keep functions short.")
            .count(),
        2
    );

    for (step, includer) in [(&first, "src/CLAUDE.md"), (&second, "src/lib/CLAUDE.md")] {
        let event = &step.events[0];
        let rows: Vec<(&str, &str, Option<&str>, u64)> = event
            .candidates
            .iter()
            .map(|c| {
                (
                    c.file.as_str(),
                    c.decision.as_str(),
                    c.attribution.map(Attribution::as_str),
                    c.bytes,
                )
            })
            .collect();
        let block = &step.blocks[0];
        assert_eq!(block.file, includer);
        assert_eq!(
            rows,
            [
                (
                    includer,
                    "loaded",
                    Some("nested_traversal"),
                    block.content.len() as u64
                ),
                ("src/NOTE.md", "loaded", Some("include"), 0),
            ],
            "the second import of the note is not `already_loaded`"
        );
        assert_eq!(step.blocks.len(), 1);
        assert_eq!(event.bytes_injected, block_bytes(step));
        let sum: u64 = event.candidates.iter().map(|c| c.bytes).sum();
        assert_eq!(event.bytes_injected, sum);
        // The discovery (what `jit explain` prints) agrees.
        let discovery = &step.discoveries[0];
        assert_eq!(discovery.bytes_injected() as u64, event.bytes_injected);
        let note = &discovery.loaded[1];
        assert_eq!(
            (note.attribution, note.bytes, note.included_by.as_deref()),
            (Attribution::Include, 0, Some(includer))
        );
        assert!(discovery.skipped.is_empty(), "{:?}", discovery.skipped);
    }

    // The log alone: bytes injected add up to the resident blocks.
    let log = fs::read_to_string(project.log()).unwrap();
    let stats = Stats::from_lines(log.lines(), StatsOptions::default());
    assert_eq!(
        stats.bytes_injected,
        block_bytes(&first) + block_bytes(&second)
    );
    assert_eq!(stats.attribution["include"], 2);
    let note = stats
        .by_file
        .iter()
        .find(|f| f.file == "src/NOTE.md")
        .unwrap();
    assert_eq!((note.injections, note.bytes), (2, 0));
    // An import has no block, so it is never resident on its own.
    let every = StatsOptions {
        debt_min_bytes: 0,
        debt_idle_steps: 0,
    };
    let debt = Stats::from_lines(log.lines(), every).debt;
    let resident: Vec<&str> = debt.iter().map(|d| d.file.as_str()).collect();
    assert_eq!(
        resident,
        ["src/lib/CLAUDE.md", "src/CLAUDE.md", "CLAUDE.md"]
    );
    let last = project.events().pop().unwrap();
    assert_eq!(last.resident_bytes, session.prompt().block_bytes() as u64);
}

/// A project of `rules`, each `(dir, size)`: `dir/CLAUDE.md` of `size`
/// bytes with one heading, and no root rule.
fn budget_project(rules: &[(&str, usize)]) -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap().to_owned();
    for (rule_dir, size) in rules {
        let mut text = format!("# Rules of {rule_dir}\n");
        while text.len() < *size {
            text.push_str("Keep it short.\n");
        }
        text.truncate(*size);
        fs::create_dir_all(root.join(rule_dir)).unwrap();
        fs::write(root.join(rule_dir).join("CLAUDE.md"), text).unwrap();
    }
    (dir, root)
}

/// The JIT blocks of `session` (startup blocks are outside the budget).
fn jit_bytes(session: &Session) -> u64 {
    session
        .manifest()
        .entries()
        .iter()
        .filter(|e| e.is_resident() && e.attribution != Attribution::SessionStart)
        .map(|e| e.bytes)
        .sum()
}

#[test]
fn a_summary_is_never_larger_than_the_rule_or_the_budget() {
    // `jit explain --no-startup --budget 30 a/x b/x` with two 61-byte rules.
    let (_dir, root) = budget_project(&[("a", 61), ("b", 61)]);
    let engine = Arc::new(Engine::new(&root).unwrap());
    let mut session = Session::new(engine, SessionConfig::new().with_budget_bytes(30));
    for path in ["a/x", "b/x"] {
        let step = session.touch(Utf8Path::new(path), &root);
        let skipped = &step.discoveries[0].skipped[0];
        assert_eq!(skipped.reason, SkipReason::TooLargeForBudget);
        for block in &step.blocks {
            assert!(block.content.len() <= 30, "{block:?}");
            assert!(block.content.len() < 61, "{block:?}");
        }
        assert!(jit_bytes(&session) <= 30);
    }
}

#[test]
fn a_rule_whose_pointer_does_not_fit_is_left_out_with_the_reason() {
    let (_dir, root) = budget_project(&[("a", 500)]);
    let engine = Arc::new(Engine::new(&root).unwrap());
    let log = root.join("events.jsonl");
    let config = SessionConfig::new()
        .with_budget_bytes(20)
        .with_event_log(&log);
    let mut session = Session::new(engine, config);
    let step = session.touch(Utf8Path::new("a/x"), &root);
    assert!(step.blocks.is_empty(), "{:?}", step.blocks);
    assert!(session.prompt().blocks().is_empty());
    assert!(session.manifest().entries().is_empty());
    let skipped = &step.discoveries[0].skipped[0];
    assert_eq!(
        (skipped.file.as_str(), skipped.reason),
        ("a/CLAUDE.md", SkipReason::TooLargeForBudget)
    );
    assert!(
        skipped.detail.contains("nothing was injected")
            && skipped.detail.contains("read a/CLAUDE.md"),
        "{}",
        skipped.detail
    );
    let event = &step.events[0];
    assert!(!event.hit);
    assert_eq!(event.bytes_injected, 0);
    let candidate = &event.candidates[0];
    assert_eq!(
        (candidate.decision.as_str(), candidate.bytes),
        ("too_large_for_budget", 0)
    );
    let log = fs::read_to_string(&log).unwrap();
    let stats = Stats::from_lines(log.lines(), StatsOptions::default());
    assert_eq!(
        (stats.discoveries, stats.hits, stats.bytes_injected),
        (1, 0, 0)
    );
    assert!(stats.by_file.is_empty(), "{:?}", stats.by_file);
    assert_eq!(stats.decisions["too_large_for_budget"], 1);
}

/// Several budgets against several rule sizes, touched in turn and twice
/// over (the second pass changes every rule on disk): the JIT blocks never
/// hold more than the budget, a block is never larger than its rule, and a
/// rule that fits the budget left is injected in full.
#[test]
fn injected_jit_bytes_never_exceed_the_budget() {
    let sizes = [("a", 40), ("b", 61), ("c", 200), ("d", 90), ("e", 1500)];
    for budget in [0, 1, 20, 30, 61, 75, 100, 150, 260, 400, 2000, 5000] {
        let (_dir, root) = budget_project(&sizes);
        let engine = Arc::new(Engine::new(&root).unwrap());
        let mut session = Session::new(engine, SessionConfig::new().with_budget_bytes(budget));
        for pass in 0..2 {
            for (rule_dir, size) in sizes {
                if pass == 1 {
                    let file = root.join(rule_dir).join("CLAUDE.md");
                    let text = format!("# Changed\n{}", "y".repeat(size + 7));
                    fs::write(file, text).unwrap();
                }
                let file = format!("{rule_dir}/CLAUDE.md");
                // The old block of a changed rule makes room for its new text.
                let previous = session.manifest().resident(&file).map_or(0, |e| e.bytes);
                let left = budget.saturating_sub(jit_bytes(&session) - previous);
                let step = session.touch(Utf8Path::new(&format!("{rule_dir}/x.rs")), &root);
                let case = format!("budget {budget}, {rule_dir} ({size} bytes), pass {pass}");
                assert!(jit_bytes(&session) <= budget, "{case}");
                // No startup here: every block is a JIT block, and a stale
                // one never outlives its manifest entry.
                assert_eq!(
                    session.prompt().block_bytes() as u64,
                    jit_bytes(&session),
                    "{case}"
                );
                let event = &step.events[0];
                assert_eq!(event.bytes_injected, block_bytes(&step), "{case}");
                for entry in session.manifest().entries() {
                    assert!(entry.bytes <= entry.source_bytes, "{case}: {entry:?}");
                }
                let source = fs::read_to_string(root.join(&file)).unwrap().len() as u64;
                let fits = source <= left;
                match session.manifest().resident(&file) {
                    Some(entry) if entry.form == BlockForm::Full => assert!(
                        entry.bytes == source,
                        "{case}: a full block is the whole rule"
                    ),
                    _ if fits => panic!("{case}: it fits, so it goes in full"),
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn a_rule_quoting_a_block_marker_survives_three_rebuilds() {
    let project = Project::new();
    let tricky = "# Markers\nBlocks end with <!-- /jit:rule file=\"src/CLAUDE.md\" --> in the prompt.\n\
                  They start with <!-- jit:rule file=\"src/CLAUDE.md\" -->, and after it: TAIL.\n";
    project.write("proj/src/CLAUDE.md", tricky);
    let mut session = project.session(SessionConfig::new());
    session.set_system_prompt(format!("static\n{CACHE_BOUNDARY}\ndynamic"));
    read(&mut session, "src/main.rs");
    let first = session.prompt().text().to_owned();
    for _ in 0..3 {
        let text = session.prompt().text().to_owned();
        session.set_system_prompt(text);
    }
    assert_eq!(session.prompt().text(), first);
    assert_eq!(
        session.prompt().text().matches("TAIL").count(),
        1,
        "{first}"
    );
    assert_eq!(session.prompt().text().matches("dynamic").count(), 1);
    assert_eq!(session.prompt().blocks().len(), 2);
    assert_eq!(session.prompt().blocks()[1].content, tricky);
}

#[test]
fn an_import_shares_the_fate_of_the_rule_that_imports_it() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "# Project\nsee @NOTE.md\n");
    project.write("proj/NOTE.md", "Note: small commits.\n");
    let mut session = project.session(SessionConfig::new().with_budget_bytes(300));
    assert!(session.manifest().resident("NOTE.md").is_none());
    let startup = &project.events()[0];
    let rows: Vec<(&str, &str, u64)> = startup
        .candidates
        .iter()
        .map(|c| (c.file.as_str(), c.decision.as_str(), c.bytes))
        .collect();
    let root_bytes = session.prompt().blocks()[0].content.len() as u64;
    assert_eq!(
        rows,
        [
            ("CLAUDE.md", "loaded", root_bytes),
            ("NOTE.md", "loaded", 0)
        ]
    );
    assert_eq!(startup.bytes_injected, root_bytes);

    // After a re-arm the root rule is read again, and is already there: so
    // is its import.
    session.rearm();
    let step = read(&mut session, "docs/guide.md");
    assert!(step.blocks.is_empty());
    let skipped: Vec<(&str, SkipReason)> = step.discoveries[0]
        .skipped
        .iter()
        .map(|s| (s.file.as_str(), s.reason))
        .collect();
    assert_eq!(
        skipped,
        [
            ("CLAUDE.md", SkipReason::AlreadyLoaded),
            ("NOTE.md", SkipReason::AlreadyLoaded)
        ]
    );

    // A rule over the budget takes its import with it.
    project.write(
        "proj/src/big/CLAUDE.md",
        &format!("# Big\nsee @PART.md\n{}\n", "x".repeat(400)),
    );
    project.write("proj/src/big/PART.md", "part\n");
    let step = read(&mut session, "src/big/a.rs");
    let event = &step.events[0];
    let rows: Vec<(&str, &str, Option<&str>)> = event
        .candidates
        .iter()
        .map(|c| {
            (
                c.file.as_str(),
                c.decision.as_str(),
                c.attribution.map(Attribution::as_str),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "src/big/CLAUDE.md",
                "too_large_for_budget",
                Some("nested_traversal")
            ),
            ("src/big/PART.md", "too_large_for_budget", Some("include")),
        ]
    );
    assert_eq!(event.candidates[1].bytes, 0);
    assert_eq!(event.bytes_injected, block_bytes(&step));
    assert!(event.bytes_injected <= 300);
    let part = &step.discoveries[0].skipped[1];
    assert!(
        part.detail.contains("imported by src/big/CLAUDE.md"),
        "{}",
        part.detail
    );
}

/// A scoped rule that missed keeps its directory open, so the engine
/// reports the left-out rule again on the next touch: as left out, not as
/// already in the prompt.
#[test]
fn a_rule_left_out_for_the_budget_is_not_reported_as_already_loaded() {
    let (_dir, root) = budget_project(&[("a", 500)]);
    let scoped = root.join("a/.claude/rules/ts.md");
    fs::create_dir_all(scoped.parent().unwrap()).unwrap();
    fs::write(&scoped, "---\npaths: [\"a/**/*.ts\"]\n---\nTypes first.\n").unwrap();
    let engine = Arc::new(Engine::new(&root).unwrap());
    let mut session = Session::new(engine, SessionConfig::new().with_budget_bytes(20));
    session.touch(Utf8Path::new("a/x.rs"), &root);
    let step = session.touch(Utf8Path::new("a/y.rs"), &root);
    let skipped = step.discoveries[0]
        .skipped
        .iter()
        .find(|s| s.file == "a/CLAUDE.md")
        .unwrap();
    assert_eq!(skipped.reason, SkipReason::TooLargeForBudget);
    assert!(
        skipped.detail.contains("left out at step 1"),
        "{}",
        skipped.detail
    );
    let candidate = step.events[0]
        .candidates
        .iter()
        .find(|c| c.file == "a/CLAUDE.md")
        .unwrap();
    assert_eq!(
        (candidate.decision.as_str(), candidate.bytes),
        ("too_large_for_budget", 0)
    );
}

/// A rule named like Claude's own loads is loaded by the agent on a read.
#[derive(Debug)]
struct LoadsOnRead;

impl jit_core::NativeLoads for LoadsOnRead {
    fn loads_natively(
        &self,
        trigger: jit_core::LoadTrigger<'_>,
        rule: &jit_core::LoadedRule,
    ) -> bool {
        trigger == jit_core::LoadTrigger::Tool("read") && rule.file.ends_with("CLAUDE.md")
    }
}

#[test]
fn a_snapshot_restores_the_loaded_set_manifest_and_step() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    touch(&mut session, "src/ui/Badge.tsx");
    let snapshot = session.snapshot();
    let text = serde_json::to_string(&snapshot).unwrap();
    let back: jit_core::SessionSnapshot = serde_json::from_str(&text).unwrap();
    assert_eq!(back, snapshot);
    assert_eq!((back.id(), back.step()), ("s1", 1));
    let mut restored = Session::restore(
        project.engine(),
        SessionConfig::new().with_event_log(project.log()),
        back,
    )
    .unwrap();
    assert_eq!(restored.step(), 1);
    assert_eq!(restored.manifest().entries(), session.manifest().entries());
    assert_eq!(
        restored.state().loaded_files(),
        session.state().loaded_files()
    );
    // Nothing comes twice, and the steps go on.
    let again = touch(&mut restored, "src/ui/Other.tsx");
    assert!(!again.is_hit());
    assert_eq!(again.step, 2);
    // A changed rule still replaces its block after a restore.
    project.write(
        "proj/src/ui/CLAUDE.md",
        "# UI\nChanged, and longer than before.\n",
    );
    let changed = touch(&mut restored, "src/ui/Badge.tsx");
    assert_eq!(changed.blocks.len(), 1);
    assert_eq!(
        changed.events[0].left[0].reason,
        LeaveReason::ReplacedByNewerRead
    );
}

#[test]
fn a_sub_agent_snapshot_keeps_its_channel() {
    let project = Project::new();
    let main = project.session(SessionConfig::new());
    let sub = main.subagent("a7");
    let restored =
        Session::restore(project.engine(), SessionConfig::new(), sub.snapshot()).unwrap();
    assert_eq!(restored.channel(), &Channel::Subagent("a7".to_owned()));
    assert_eq!(restored.id(), "s1/a7");
}

#[test]
fn a_snapshot_of_another_format_or_channel_is_refused() {
    let project = Project::new();
    let session = project.session(SessionConfig::new());
    let mut value = serde_json::to_value(session.snapshot()).unwrap();
    value["format"] = json!(2);
    let err = Session::restore(
        project.engine(),
        SessionConfig::new(),
        serde_json::from_value(value.clone()).unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::InvalidSnapshot);
    assert!(err.to_string().contains("format 2"), "{err}");
    value["format"] = json!(jit_core::SNAPSHOT_FORMAT);
    for (channel, subagent) in [
        ("main", json!("x")),
        ("subagent", json!(null)),
        ("other", json!(null)),
    ] {
        value["channel"] = json!(channel);
        value["subagent"] = subagent;
        let err = Session::restore(
            project.engine(),
            SessionConfig::new(),
            serde_json::from_value(value.clone()).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            err.kind(),
            jit_core::ErrorKind::InvalidSnapshot,
            "{channel}"
        );
    }
}

#[test]
fn rules_the_agent_loads_itself_are_recorded_never_injected() {
    let project = Project::new();
    let config = SessionConfig::new().with_native(Arc::new(LoadsOnRead));
    let mut session = project.session(config);
    let read = read(&mut session, "src/ui/Badge.tsx");
    assert!(!read.is_hit());
    let loaded = &read.discoveries[0].loaded;
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].attribution, Attribution::Native);
    assert_eq!(loaded[0].bytes, 0);
    let candidate = &read.events[0]
        .candidates
        .iter()
        .find(|c| c.file == "src/ui/CLAUDE.md")
        .unwrap();
    assert_eq!(candidate.decision, Decision::Loaded);
    assert_eq!(candidate.attribution, Some(Attribution::Native));
    assert!(session.manifest().resident("src/ui/CLAUDE.md").is_none());
    // Another tool there does not inject it either.
    assert!(!touch(&mut session, "src/ui/New.tsx").is_hit());
}

#[test]
fn a_native_load_of_a_changed_rule_retires_the_injected_block() {
    let project = Project::new();
    let config = SessionConfig::new().with_native(Arc::new(LoadsOnRead));
    let mut session = project.session(config);
    assert!(touch(&mut session, "src/ui/Badge.tsx").is_hit());
    project.write(
        "proj/src/ui/CLAUDE.md",
        "# UI\nA newer text the agent reads itself.\n",
    );
    let read = read(&mut session, "src/ui/Badge.tsx");
    assert!(!read.is_hit());
    assert_eq!(read.events[0].left[0].file, "src/ui/CLAUDE.md");
    assert!(session.manifest().resident("src/ui/CLAUDE.md").is_none());
    assert!(!session.prompt().text().contains("No colour emoji"));
}

#[test]
fn the_step_budget_counts_headers_and_cuts_whole_rules() {
    let project = Project::new();
    let header = jit_core::block_header(
        "src/ui/CLAUDE.md",
        Attribution::NestedTraversal,
        "src/ui/Badge.tsx",
    );
    // Exactly enough for the UI block with its header.
    let exact = (header.len() + UI_RULE.len() + 3) as u64;
    let mut session = project.session(SessionConfig::new().with_step_budget(Some(exact)));
    let step = touch(&mut session, "src/ui/Badge.tsx");
    assert_eq!(step.context_text(), format!("{header}\n{UI_RULE}"));
    // One byte less, and it does not fit: no pointer is smaller than the
    // rule, so nothing is injected and the event says why.
    let project = Project::new();
    let mut session = project.session(SessionConfig::new().with_step_budget(Some(exact - 1)));
    let step = touch(&mut session, "src/ui/Badge.tsx");
    assert!(!step.is_hit());
    assert_eq!(
        step.discoveries[0].skipped.last().unwrap().reason,
        SkipReason::TooLargeForBudget
    );
    assert!(
        step.discoveries[0]
            .skipped
            .last()
            .unwrap()
            .detail
            .contains("per-output budget"),
        "{:?}",
        step.discoveries[0].skipped
    );
    session.set_step_budget(None);
    assert_eq!(session.config().step_budget(), None);
}

#[test]
fn context_text_puts_a_header_before_each_block() {
    let project = Project::new();
    project.write(
        "proj/src/ui/x/CLAUDE.md",
        "Inner rule without a final newline",
    );
    let mut session = project.session(SessionConfig::new());
    let step = touch(&mut session, "src/ui/x/a.tsx");
    assert_eq!(
        step.context_text(),
        format!(
            "[jit-context] src/ui/CLAUDE.md (nested_traversal, triggered by src/ui/x/a.tsx)\n{UI_RULE}\n\
             [jit-context] src/ui/x/CLAUDE.md (nested_traversal, triggered by src/ui/x/a.tsx)\n\
             Inner rule without a final newline\n"
        )
    );
    assert_eq!(step.headers.len(), step.blocks.len());
    assert_eq!(jit_core::Injection::default().context_text(), "");
}

#[test]
fn clear_forgets_startup_blocks_too_and_rearm_keeps_them() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    touch(&mut session, "src/ui/Badge.tsx");
    session.rearm();
    assert!(session.manifest().resident("CLAUDE.md").is_some());
    assert!(session.manifest().resident("src/ui/CLAUDE.md").is_none());
    session.clear();
    assert!(session.manifest().resident("CLAUDE.md").is_none());
    let (report, injection) =
        session.startup_injection(&StartupOptions::new(project.root()).with_managed(None));
    assert_eq!(report.loaded[0].file, "CLAUDE.md");
    assert_eq!(injection.blocks[0].file, "CLAUDE.md");
    assert!(injection.headers[0].contains("(session_start, triggered by .)"));
    // A startup load starts no step: it belongs to the one the touch began.
    assert_eq!(injection.step, 1);
}

#[test]
fn a_touch_batch_is_one_step_with_each_rule_once() {
    let project = Project::new();
    let mut session = project.session(SessionConfig::new());
    let step = session.touch_batch(
        &[
            "src/ui/A.tsx".into(),
            "src/ui/B.tsx".into(),
            "src/api/h.ts".into(),
        ],
        &project.root(),
    );
    assert_eq!(step.step, 1);
    let files: Vec<&str> = step.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(files, ["src/ui/CLAUDE.md", "src/api/CLAUDE.md"]);
    // One event for the batch, listing its three paths.
    assert_eq!(step.discoveries.len(), 3);
    assert_eq!(step.events.len(), 1);
    assert_eq!(
        step.events[0].paths,
        ["src/ui/A.tsx", "src/ui/B.tsx", "src/api/h.ts"]
    );
    assert_eq!(step.events[0].trigger, "src/ui/A.tsx");
}
