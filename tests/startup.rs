//! The startup load on real git fixtures: signals, tiers, order, and hand-off to JIT.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use camino::Utf8PathBuf;
use jit_core::{Attribution, DiscoveryState, Engine, SkipReason, StartupOptions, StartupReport};
use pretty_assertions::assert_eq;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A committed repo with an unconditional root rule and a `src/ui/**` rule.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "CLAUDE.md", "root\n");
    write(
        root,
        ".claude/rules/ui.md",
        "---\npaths: [\"src/ui/**\"]\n---\nui rules\n",
    );
    write(root, "src/ui/Badge.tsx", "badge\n");
    write(root, "docs/index.md", "docs\n");
    git(root, &["init", "-q"]);
    git(root, &["config", "user.email", "t@example.com"]);
    git(root, &["config", "user.name", "t"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
    dir
}

fn startup(root: &Path, cwd: &str, home: Option<&Path>) -> (Engine, DiscoveryState, StartupReport) {
    let engine = Engine::new(root).unwrap();
    let mut state = DiscoveryState::default();
    let options = StartupOptions::new(Utf8PathBuf::from(cwd))
        .with_managed(None)
        .with_home(home.map(|h| Utf8PathBuf::from_path_buf(h.to_path_buf()).unwrap()))
        .with_changes(Arc::new(
            jit_git::GitChanges::new().repository_config_only(),
        ));
    let report = engine.startup(&mut state, &options);
    (engine, state, report)
}

fn loaded(report: &StartupReport) -> Vec<&str> {
    report.loaded.iter().map(|l| l.file.as_str()).collect()
}

#[track_caller]
fn check_row(dirty: bool, cwd: &str, signals: &[&str], injects_ui: bool) {
    let dir = repo();
    if dirty {
        write(dir.path(), "src/ui/Badge.tsx", "badge, changed\n");
    }
    let (_, _, report) = startup(dir.path(), cwd, None);
    assert_eq!(report.signals, signals, "cwd {cwd}, dirty {dirty}");
    assert_eq!(
        loaded(&report).contains(&".claude/rules/ui.md"),
        injects_ui,
        "cwd {cwd}, dirty {dirty}: {report:#?}"
    );
    assert!(loaded(&report).contains(&"CLAUDE.md"));
}

#[test]
fn the_four_rows_of_the_design_table() {
    check_row(false, "", &[], false);
    check_row(true, "", &["src/ui/Badge.tsx"], true);
    check_row(false, "src/ui", &["src/ui/"], true);
    check_row(false, "docs", &["docs/"], false);
}

#[test]
fn scope_miss_names_the_signals_and_leaves_the_rule_for_jit() {
    let dir = repo();
    let (engine, mut state, report) = startup(dir.path(), "docs", None);
    let miss = report
        .skipped
        .iter()
        .find(|s| s.file == ".claude/rules/ui.md")
        .unwrap();
    assert_eq!(miss.reason, SkipReason::ScopeMiss);
    assert!(miss.detail.contains("docs/"), "{}", miss.detail);
    // JIT finds it on the first touch of src/ui, and never injects the root twice.
    let found = engine.discover(&mut state, "src/ui/Badge.tsx".into(), engine.root());
    let files: Vec<&str> = found.loaded.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(files, [".claude/rules/ui.md"]);
    assert!(
        found
            .skipped
            .iter()
            .any(|s| s.file == "CLAUDE.md" && s.reason == SkipReason::AlreadyLoaded)
    );
}

#[test]
fn untracked_file_in_a_new_directory_matches_an_extension_scope() {
    // Needs `-uall`: a collapsed `scripts/` entry would never match `**/*.py`.
    let dir = repo();
    write(
        dir.path(),
        ".claude/rules/py.md",
        "---\npaths: \"**/*.py\"\n---\npy\n",
    );
    git(dir.path(), &["add", ".claude/rules/py.md"]);
    git(dir.path(), &["commit", "-qm", "py rule"]);
    write(dir.path(), "scripts/new/gen.py", "print()\n");
    let (_, _, report) = startup(dir.path(), "", None);
    assert_eq!(report.signals, ["scripts/new/gen.py"]);
    assert!(
        loaded(&report).contains(&".claude/rules/py.md"),
        "{report:#?}"
    );
}

#[test]
fn a_dirty_ui_file_does_not_count_from_docs() {
    let dir = repo();
    write(dir.path(), "src/ui/Badge.tsx", "changed\n");
    let (_, _, report) = startup(dir.path(), "docs", None);
    assert_eq!(report.signals, ["docs/"]);
    assert!(!loaded(&report).contains(&".claude/rules/ui.md"));
}

#[test]
fn not_a_repository_falls_back_to_the_cwd_marker_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".claude/rules/ui.md",
        "---\npaths: [\"src/ui/**\"]\n---\nui\n",
    );
    write(
        dir.path(),
        ".claude/rules/all.md",
        "---\npaths: [\"**\"]\n---\nall\n",
    );
    fs::create_dir_all(dir.path().join("docs")).unwrap();
    let (_, _, report) = startup(dir.path(), "docs", None);
    assert_eq!(report.signals, ["docs/"]);
    assert!(
        !report.diagnostics.is_empty(),
        "the git failure must be recorded"
    );
    // `**` matches the marker; `src/ui/**` does not: never "match everything".
    assert_eq!(loaded(&report), [".claude/rules/all.md"]);
}

#[test]
fn tiers_load_in_order_and_user_rules_with_paths_work_like_project_ones() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/CLAUDE.md", "me\n");
    write(
        home.path(),
        ".claude/rules/ui.md",
        "---\npaths: src/ui/**\n---\nmy ui\n",
    );
    write(
        home.path(),
        ".claude/rules/py.md",
        "---\npaths: \"**/*.py\"\n---\nmy py\n",
    );
    let managed = tempfile::tempdir().unwrap();
    write(managed.path(), "CLAUDE.md", "managed\n");
    write(dir.path(), "src/CLAUDE.md", "src\n");
    write(dir.path(), "src/CLAUDE.local.md", "mine\n");
    write(dir.path(), "src/ui/CLAUDE.md", "ui dir\n");

    let engine = Engine::new(dir.path()).unwrap();
    let managed_file = Utf8PathBuf::from_path_buf(managed.path().join("CLAUDE.md")).unwrap();
    let options = StartupOptions::new(Utf8PathBuf::from("src/ui"))
        .with_managed(Some(managed_file.clone()))
        .with_home(Some(
            Utf8PathBuf::from_path_buf(home.path().to_path_buf()).unwrap(),
        ));
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let real_home = Utf8PathBuf::from_path_buf(fs::canonicalize(home.path()).unwrap()).unwrap();
    let summary: Vec<(String, String)> = report
        .loaded
        .iter()
        .map(|l| (l.file.clone(), format!("{:?}", l.tier.unwrap())))
        .collect();
    let expected: Vec<(String, String)> = [
        (managed_file.to_string(), "Managed"),
        (real_home.join(".claude/CLAUDE.md").to_string(), "User"),
        (real_home.join(".claude/rules/ui.md").to_string(), "User"),
        ("CLAUDE.md".to_owned(), "Project"),
        (".claude/rules/ui.md".to_owned(), "Project"),
        ("src/CLAUDE.md".to_owned(), "Project"),
        ("src/CLAUDE.local.md".to_owned(), "Local"),
        ("src/ui/CLAUDE.md".to_owned(), "Project"),
    ]
    .into_iter()
    .map(|(f, t)| (f, t.to_owned()))
    .collect();
    assert_eq!(summary, expected);
    assert!(
        report
            .loaded
            .iter()
            .all(|l| l.attribution == Attribution::SessionStart)
    );
    let py = report
        .skipped
        .iter()
        .find(|s| s.file.ends_with("rules/py.md"))
        .unwrap();
    assert_eq!(py.reason, SkipReason::ScopeMiss);
}

#[test]
fn startup_json_reports_tier_and_attribution() {
    let dir = repo();
    let (_, _, report) = startup(dir.path(), "src/ui", None);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["signals"], serde_json::json!(["src/ui/"]));
    assert_eq!(json["loaded"][0]["file"], "CLAUDE.md");
    assert_eq!(json["loaded"][0]["tier"], "project");
    assert_eq!(json["loaded"][0]["attribution"], "session_start");
    assert!(json["skipped"].is_array() && json["diagnostics"].is_array());
}

#[test]
fn user_scoped_rules_missed_at_startup_are_found_by_jit() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/CLAUDE.md", "me\n");
    write(
        home.path(),
        ".claude/rules/go.md",
        "---\npaths: \"**/*.go\"\n---\ngo rules\n",
    );
    let (engine, mut state, report) = startup(dir.path(), "", Some(home.path()));
    assert!(
        report
            .skipped
            .iter()
            .any(|s| s.file.ends_with("rules/go.md") && s.reason == SkipReason::ScopeMiss)
    );
    let docs = engine.discover(&mut state, "docs/index.md".into(), engine.root());
    assert!(docs.loaded.is_empty(), "{docs:#?}");
    assert!(
        docs.skipped
            .iter()
            .any(|s| s.file.ends_with("rules/go.md") && s.reason == SkipReason::ScopeMiss)
    );
    let go = engine.discover(&mut state, "cmd/main.go".into(), engine.root());
    let loaded: Vec<(&str, Option<jit_core::Tier>, Attribution)> = go
        .loaded
        .iter()
        .map(|l| (l.file.as_str(), l.tier, l.attribution))
        .collect();
    assert_eq!(loaded.len(), 1, "{go:#?}");
    assert!(loaded[0].0.ends_with(".claude/rules/go.md"));
    assert_eq!(loaded[0].1, Some(jit_core::Tier::User));
    assert_eq!(loaded[0].2, Attribution::PathGlobMatch);
    // Once everything in the user tier is loaded, it is not judged again.
    let again = engine.discover(&mut state, "cmd/other.go".into(), engine.root());
    assert!(
        again.loaded.is_empty()
            && again
                .skipped
                .iter()
                .all(|s| !s.file.contains(".claude/rules/go.md")),
        "{again:#?}"
    );
}

/// A user rule edited mid-session comes again on the next touch: the user
/// tier's scan record holds only while nothing it stamped changed.
#[test]
fn a_user_rule_edited_mid_session_comes_again() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/CLAUDE.md", "me\n");
    let (engine, mut state, report) = startup(dir.path(), "", Some(home.path()));
    assert!(
        report
            .loaded
            .iter()
            .any(|l| l.file.ends_with(".claude/CLAUDE.md"))
    );
    let quiet = engine.discover(&mut state, "docs/a.md".into(), engine.root());
    assert!(quiet.loaded.is_empty(), "{quiet:#?}");
    write(home.path(), ".claude/CLAUDE.md", "me, edited\n");
    let edited = engine.discover(&mut state, "docs/b.md".into(), engine.root());
    let loaded: Vec<&str> = edited.loaded.iter().map(|l| l.content.as_str()).collect();
    assert_eq!(loaded, ["me, edited\n"], "{edited:#?}");
}

/// A change source that counts how often the startup load asks it.
#[derive(Default)]
struct Counting {
    calls: std::sync::atomic::AtomicUsize,
}

impl jit_core::ChangeSource for Counting {
    fn changed_files(
        &self,
        _root: &camino::Utf8Path,
    ) -> Result<jit_core::ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(jit_core::ChangeSet {
            files: vec!["src/ui/Badge.tsx".into()],
            diagnostics: Vec::new(),
        })
    }
}

fn startup_counting(root: &Path) -> (StartupReport, usize) {
    let engine = Engine::new(root).unwrap();
    let counting = Arc::new(Counting::default());
    let options = StartupOptions::new(engine.root().join("src/ui"))
        .with_managed(None)
        .with_changes(Arc::clone(&counting) as Arc<dyn jit_core::ChangeSource>);
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let calls = counting.calls.load(std::sync::atomic::Ordering::SeqCst);
    (report, calls)
}

/// With no scoped rule on the startup load, no signal could decide
/// anything: the change source (a git status) is never run, and the report
/// says so. The first scoped rule makes it run, once.
#[test]
fn the_change_source_runs_only_when_a_scoped_rule_asks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "CLAUDE.md", "root\n");
    write(root, "src/ui/CLAUDE.md", "ui\n");
    write(root, "src/ui/Badge.tsx", "badge\n");
    let (report, calls) = startup_counting(root);
    assert_eq!(calls, 0);
    assert!(!report.changed_files_read);
    assert_eq!(report.signals, ["src/ui/"]);
    assert_eq!(loaded(&report), ["CLAUDE.md", "src/ui/CLAUDE.md"]);

    write(
        root,
        ".claude/rules/tsx.md",
        "---\npaths: [\"**/*.tsx\"]\n---\ncomponents\n",
    );
    write(
        root,
        ".claude/rules/py.md",
        "---\npaths: [\"**/*.py\"]\n---\npython\n",
    );
    let (report, calls) = startup_counting(root);
    assert_eq!(calls, 1, "asked once for two scoped rules");
    assert!(report.changed_files_read);
    assert_eq!(report.signals, ["src/ui/", "src/ui/Badge.tsx"]);
    assert!(loaded(&report).contains(&".claude/rules/tsx.md"));
}
