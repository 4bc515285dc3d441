//! One tool call touching many paths: one event listing each path once, work counted linear in the paths, and every per-call limit (paths, path length, command bytes, deadline) pinned at its boundary with the reason the event records.

use std::fs;
use std::sync::Arc;
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use jit_bash::MAX_COMMAND_BYTES;
use jit_core::{
    AffectedPaths, Decision, Engine, Error, Event, EventKind, Injection, Limit, MAX_CALL_PATHS,
    MAX_EVENT_PATHS, MAX_PATH_BYTES, Registry, Session, SessionConfig, Stats, StatsOptions,
    TouchedPaths,
};
use pretty_assertions::assert_eq;
use serde_json::json;

// The `bash` tool's reporter comes from jit-tools.
use jit_tools as _;

/// A project with rules on every chain: a root rule, one per package, one
/// in a sub-directory, and two scoped rules (`**/*.ts` matches the new
/// files, `**/*.py` misses them); the event log beside it.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        project.write("proj/CLAUDE.md", "Root rule.\n");
        for p in 0..20 {
            project.write(&format!("proj/pkg{p:02}/CLAUDE.md"), "Package rule.\n");
        }
        project.write("proj/pkg07/sub03/CLAUDE.md", "Sub rule.\n");
        project.write(
            "proj/.claude/rules/ts.md",
            "---\npaths: [\"**/*.ts\"]\n---\nTypeScript rule.\n",
        );
        project.write(
            "proj/.claude/rules/py.md",
            "---\npaths: [\"**/*.py\"]\n---\nPython rule.\n",
        );
        project
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn root(&self) -> Utf8PathBuf {
        Utf8Path::from_path(self.dir.path()).unwrap().join("proj")
    }

    fn log(&self) -> Utf8PathBuf {
        Utf8Path::from_path(self.dir.path())
            .unwrap()
            .join("events.jsonl")
    }

    fn session(&self, config: SessionConfig) -> Session {
        let engine = Arc::new(Engine::new(self.root()).unwrap());
        Session::new(engine, config.with_event_log(self.log())).with_id("s1")
    }

    fn events(&self) -> Vec<Event> {
        fs::read_to_string(self.log())
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn log_bytes(&self) -> u64 {
        fs::metadata(self.log()).map_or(0, |m| m.len())
    }
}

/// `n` new files spread over 20 packages and 10 sub-directories of each.
fn new_files(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("pkg{:02}/sub{:02}/new{i}.ts", i % 20, (i / 20) % 10))
        .collect()
}

/// A bash command writing each of `paths` with a here-document.
fn heredocs(paths: &[String]) -> String {
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| format!("cat > {p} <<'EOF'\nexport const n = {i};\nEOF\n"))
        .collect()
}

fn bash(session: &mut Session, root: &Utf8Path, command: &str) -> Injection {
    session
        .tool_call("bash", &json!({ "command": command }), root)
        .unwrap()
}

/// Every path of a call listed in every event of the call made the work
/// quadratic: 10,000 files in one Bash call wrote 10,000 events of 10,000
/// paths (1.9 GB, 5.5 GB of memory, 15 s). Now the call is one event, its
/// paths listed once up to `MAX_EVENT_PATHS`, each skipped candidate once.
#[test]
fn one_bash_call_writing_many_new_files_is_one_event_listing_each_path_once() {
    let project = Project::new();
    let root = project.root();
    let mut session = project.session(SessionConfig::new());
    let n = MAX_EVENT_PATHS + 500;
    let paths = new_files(n);
    let step = bash(&mut session, &root, &heredocs(&paths));

    // Every path is discovered, each rule injected once ...
    assert_eq!(step.discoveries.len(), n);
    let mut blocks: Vec<&str> = step.blocks.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(blocks.len(), 23, "{blocks:?}");
    blocks.sort_unstable();
    blocks.dedup();
    assert_eq!(blocks.len(), 23);
    // ... and one event stands for the call.
    assert_eq!(step.events.len(), 1);
    let events = project.events();
    assert_eq!(events.len(), 1);
    let event = &events[0];
    assert_eq!(event, &step.events[0]);
    assert_eq!((event.kind, event.step), (EventKind::Discovery, 1));
    assert_eq!(event.tool.as_deref(), Some("bash"));
    assert_eq!(event.paths, paths[..MAX_EVENT_PATHS]);
    assert_eq!(event.paths_omitted, 500);
    assert_eq!(event.trigger, paths[0]);
    assert!(event.limits.is_empty(), "{:?}", event.limits);
    assert!(event.hit);
    // One row per rule: 23 loaded, and the Python rule's miss once (not
    // once per path); no `already_loaded` row for what the call loaded.
    let loaded = event
        .candidates
        .iter()
        .filter(|c| c.decision == Decision::Loaded)
        .count();
    let misses: Vec<&str> = event
        .candidates
        .iter()
        .filter(|c| c.decision == Decision::Skipped)
        .map(|c| c.file.as_str())
        .collect();
    assert_eq!((loaded, misses), (23, vec![".claude/rules/py.md"]));
    assert_eq!(
        event.bytes_injected,
        step.blocks
            .iter()
            .map(|b| b.content.len() as u64)
            .sum::<u64>()
    );
    // The work, counted: the log holds one line of at most
    // MAX_EVENT_PATHS paths (each ~25 bytes) and 24 rows.
    assert!(
        project.log_bytes() < 40 * 1024,
        "{} bytes",
        project.log_bytes()
    );

    // `jit stats` reads the line whole: one discovery, one hit, its rows.
    let log = fs::read_to_string(project.log()).unwrap();
    let stats = Stats::from_lines(log.lines(), StatsOptions::default());
    assert_eq!(
        (stats.skipped_lines, stats.discoveries, stats.hits),
        (0, 1, 1)
    );
    assert_eq!((stats.candidates, stats.scope_skipped), (24, 1));
    assert_eq!(stats.attribution["nested_traversal"], 22);
    assert_eq!(stats.attribution["path_glob_match"], 1);
}

/// Twice the files, the same event: what one call writes is bounded, not
/// proportional to the square of its paths.
#[test]
fn the_event_of_a_call_does_not_grow_with_its_paths_past_the_listing_cap() {
    let sizes: Vec<(u64, u64)> = [MAX_EVENT_PATHS, 2 * MAX_EVENT_PATHS]
        .into_iter()
        .map(|n| {
            let project = Project::new();
            let root = project.root();
            let mut session = project.session(SessionConfig::new());
            let step = session.touch_batch(
                &new_files(n)
                    .into_iter()
                    .map(Utf8PathBuf::from)
                    .collect::<Vec<_>>(),
                &root,
            );
            assert_eq!((step.discoveries.len(), step.events.len()), (n, 1));
            (project.log_bytes(), step.events[0].paths_omitted)
        })
        .collect();
    assert_eq!(sizes[0].1, 0);
    assert_eq!(sizes[1].1, MAX_EVENT_PATHS as u64);
    // The same paths listed, and the same rows: within the few bytes of
    // the timing field and the count.
    assert!(sizes[1].0.abs_diff(sizes[0].0) < 64, "{sizes:?}");
}

/// `MAX_CALL_PATHS` paths are all discovered; one more is left out, and
/// the step and its event say so.
#[test]
fn a_call_discovers_at_most_max_call_paths_and_says_what_it_left_out() {
    for extra in [0, 1] {
        let project = Project::new();
        let root = project.root();
        let mut session = project.session(SessionConfig::new());
        let n = MAX_CALL_PATHS + extra;
        let paths: Vec<Utf8PathBuf> = (0..n).map(|i| format!("f{i}.ts").into()).collect();
        let step = session.touch_batch(&paths, &root);
        assert_eq!(step.discoveries.len(), MAX_CALL_PATHS, "{n} paths");
        assert_eq!(step.events.len(), 1);
        let event = &step.events[0];
        assert_eq!(event.paths.len(), MAX_EVENT_PATHS);
        assert_eq!(event.paths_omitted, (n - MAX_EVENT_PATHS) as u64);
        let expected: Vec<Limit> = if extra == 0 {
            Vec::new()
        } else {
            vec![Limit::new(
                "too_many_paths",
                "1 of the call's 10001 paths, past the first 10000",
            )]
        };
        assert_eq!(step.limits, expected, "{n} paths");
        assert_eq!(event.limits, expected, "{n} paths");
        assert_eq!(project.events()[0].limits, expected);
    }
}

/// A reporter that names `n` files: a hostile patch or command, without
/// the cost of writing one.
struct Many;

impl AffectedPaths for Many {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let n = input["n"].as_u64().unwrap_or_default();
        let long = input["long"].as_u64().unwrap_or_default() as usize;
        let mut paths: Vec<String> = (0..n).map(|i| format!("f{i}.ts")).collect();
        if long > 0 {
            paths.push(format!("{}.ts", "x".repeat(long - 3)));
        }
        Ok(TouchedPaths::from_paths(paths))
    }
}

fn many_registry() -> Registry {
    let mut registry = Registry::empty();
    registry.register_tool("many", "tests");
    registry.register_reporter("many", Many, "tests");
    registry
}

/// The engine's own tool call keeps to the same limits: discoveries for
/// the first `MAX_CALL_PATHS`, the rest listed as a skipped input.
#[test]
fn the_engine_discovers_a_tool_call_up_to_the_same_limits() {
    let project = Project::new();
    let engine = Engine::new(project.root()).unwrap();
    let registry = many_registry();
    let mut state = jit_core::DiscoveryState::default();
    let input = json!({ "n": MAX_CALL_PATHS + 1, "long": MAX_PATH_BYTES + 1 });
    let call = engine
        .discover_tool_call(&mut state, &registry, "many", &input, engine.root())
        .unwrap();
    assert_eq!(call.paths.len(), MAX_CALL_PATHS + 2, "as reported");
    assert_eq!(call.discoveries.len(), MAX_CALL_PATHS);
    let reasons: Vec<(&str, &str)> = call
        .reporter_skipped
        .iter()
        .map(|s| (s.reason.as_str(), s.word.get(..30).unwrap_or(&s.word)))
        .collect();
    assert_eq!(
        reasons,
        [
            ("too_many_paths", "1 of the call's 10001 paths, p"),
            ("too_long", "1 path(s) longer than 4096 byt"),
        ]
    );
}

/// A path of `MAX_PATH_BYTES` is looked at (it names nothing that exists,
/// and is discovered like any new file); one byte more names no file a
/// system call can open, and is left out with `too_long`.
#[test]
fn a_path_longer_than_max_path_bytes_is_left_out_as_too_long() {
    let project = Project::new();
    let root = project.root();
    let config = SessionConfig::new().with_registry(Arc::new(many_registry()));
    let mut session = project.session(config);
    let at_cap = session
        .tool_call("many", &json!({ "long": MAX_PATH_BYTES }), &root)
        .unwrap();
    assert_eq!(at_cap.discoveries.len(), 1);
    assert_eq!(at_cap.discoveries[0].trigger.len(), MAX_PATH_BYTES);
    assert!(at_cap.limits.is_empty(), "{:?}", at_cap.limits);
    let over = session
        .tool_call("many", &json!({ "long": MAX_PATH_BYTES + 1 }), &root)
        .unwrap();
    assert!(over.discoveries.is_empty());
    assert_eq!(over.limits.len(), 1);
    assert_eq!(over.limits[0].limit, "too_long");
    assert!(
        over.limits[0].detail.starts_with(
            "1 path(s) longer than 4096 bytes, the first of 4097 bytes beginning \"xxx"
        ),
        "{}",
        over.limits[0].detail
    );
    assert!(over.limits[0].detail.len() <= Limit::MAX_DETAIL_BYTES);
    // The event records it, though no path was discovered; the path's
    // text is not copied into it.
    let events = project.events();
    let event = events.last().unwrap();
    assert_eq!(event.limits, over.limits);
    assert_eq!((event.trigger.as_str(), event.candidates.len()), ("", 0));
    assert_eq!((event.paths.len(), event.paths_omitted), (0, 1));
}

/// A command over the bash parser's cap is not parsed: no path, and the
/// event says `too_large` (a 22 MB command once took 6 to 30 s and over a
/// gigabyte). At the cap it is read.
#[test]
fn a_command_over_the_parser_cap_is_a_limit_of_the_event() {
    let project = Project::new();
    let root = project.root();
    let mut session = project.session(SessionConfig::new());
    let head = "cat > pkg03/big.ts <<'EOF'\n";
    let tail = "\nEOF";
    let body = |len: usize| "x".repeat(len - head.len() - tail.len());
    let at_cap = format!("{head}{}{tail}", body(MAX_COMMAND_BYTES));
    let step = bash(&mut session, &root, &at_cap);
    assert_eq!(step.discoveries.len(), 1);
    assert!(step.limits.is_empty(), "{:?}", step.limits);
    let over = format!("{head}{}{tail}", body(MAX_COMMAND_BYTES + 1));
    let step = bash(&mut session, &root, &over);
    assert!(step.discoveries.is_empty());
    assert_eq!(step.limits.len(), 1, "{:?}", step.limits);
    assert_eq!(step.limits[0].limit, "too_large");
    assert!(
        step.limits[0].detail.contains("262145 bytes"),
        "{}",
        step.limits[0].detail
    );
    let events = project.events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].limits, step.limits);
    assert!(!events[1].hit);
}

/// A deadline already past (a zero budget): no path is looked at, and the
/// step says how many it left; the event lists the paths all the same.
/// Nothing is recorded as loaded, so a session without the deadline finds
/// every rule.
#[test]
fn past_the_deadline_no_path_is_discovered_and_the_event_says_so() {
    let project = Project::new();
    let root = project.root();
    let paths: Vec<Utf8PathBuf> = new_files(3).into_iter().map(Utf8PathBuf::from).collect();
    let mut late = project.session(SessionConfig::new().with_deadline(Some(Instant::now())));
    let step = late.touch_batch(&paths, &root);
    assert!(step.discoveries.is_empty() && step.blocks.is_empty());
    assert_eq!(
        step.limits,
        [Limit::new(
            "deadline",
            "the time ran out with 3 of the call's 3 paths not looked at"
        )]
    );
    let event = &project.events()[0];
    assert_eq!(event.limits, step.limits);
    assert_eq!(event.paths.len(), 3);
    assert!(!event.hit && event.candidates.is_empty());
    assert!(late.manifest().entries().is_empty());

    let far = Instant::now() + Duration::from_secs(3600);
    let mut session = project.session(SessionConfig::new().with_deadline(Some(far)));
    let step = session.touch_batch(&paths, &root);
    assert_eq!(step.discoveries.len(), 3);
    assert!(step.limits.is_empty());
    assert_eq!(
        step.blocks.len(),
        5,
        "root, package, ts rule, twice a package"
    );
}
