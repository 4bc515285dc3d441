//! The engine under hostile trees: FIFOs where rule files should be, failures that must be retried, rejections that must be cached, rule folders too large to read whole.

use std::fs;
use std::path::Path;
use std::process::Command;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{DiscoveryState, Engine, MAX_RULE_FILES_PER_FOLDER, SkipReason};

fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().join("proj")).unwrap();
    fs::create_dir_all(&root).unwrap();
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    (dir, root)
}

fn mkfifo(path: &Utf8Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

fn reasons(engine: &Engine, state: &mut DiscoveryState, path: &str) -> Vec<(String, SkipReason)> {
    let found = engine.discover(state, Utf8Path::new(path), engine.root());
    found
        .skipped
        .into_iter()
        .map(|s| (s.file, s.reason))
        .collect()
}

#[test]
fn a_fifo_rule_file_is_skipped_without_blocking() {
    let (_dir, root) = tree(&[("src/a.ts", "")]);
    mkfifo(&root.join("src/CLAUDE.md"));
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    mkfifo(&root.join(".claude/rules/x.md"));
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let skipped = reasons(&engine, &mut state, "src/a.ts");
    assert_eq!(
        skipped,
        [
            (".claude/rules/x.md".to_owned(), SkipReason::Unreadable),
            ("src/CLAUDE.md".to_owned(), SkipReason::Unreadable)
        ]
    );
}

#[test]
fn a_rule_swapped_for_a_fifo_between_touches_never_blocks() {
    let (_dir, root) = tree(&[("src/CLAUDE.md", "v1\n"), ("src/a.ts", "")]);
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let found = engine.discover(&mut state, "src/a.ts".into(), engine.root());
    assert_eq!(found.loaded.len(), 1);
    // Swapped for a FIFO: the next touch judges it on the open descriptor.
    fs::remove_file(root.join("src/CLAUDE.md")).unwrap();
    mkfifo(&root.join("src/CLAUDE.md"));
    let skipped = reasons(&engine, &mut state, "src/b.ts");
    assert_eq!(
        skipped,
        [("src/CLAUDE.md".to_owned(), SkipReason::Unreadable)]
    );
}

#[test]
fn a_broken_rule_is_parsed_once_while_unchanged() {
    // A scope miss keeps the root unscanned, so every touch walks past the
    // broken rule again: its rejection must come from the cache.
    let (_dir, root) = tree(&[
        (
            ".claude/rules/broken.md",
            "---\npaths: [\"unclosed\n---\nbody\n",
        ),
        (".claude/rules/py.md", "---\npaths: \"**/*.py\"\n---\npy\n"),
    ]);
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let first = reasons(&engine, &mut state, "a.ts");
    assert!(first.contains(&(
        ".claude/rules/broken.md".to_owned(),
        SkipReason::InvalidFrontmatter
    )));
    // The cache shows when the file's text changes but its stamp does not
    // (same length, same mtime): the old verdict stands.
    let path = root.join(".claude/rules/broken.md");
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let fixed = text.replace("unclosed", "src/**\"]");
    assert_eq!(fixed.len(), text.len());
    fs::write(&path, fixed).unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let second = reasons(&engine, &mut state, "b.ts");
    assert!(
        second.contains(&(
            ".claude/rules/broken.md".to_owned(),
            SkipReason::InvalidFrontmatter
        )),
        "the rejection is remembered while the stamp holds: {second:?}"
    );
    // A real change (another stamp) is judged afresh.
    fs::write(&path, "---\npaths: [\"src/**\"]\n---\nfixed\n").unwrap();
    let third = engine.discover(&mut state, "src/c.ts".into(), engine.root());
    assert_eq!(third.loaded[0].file, ".claude/rules/broken.md");
}

#[test]
fn a_rule_folder_past_the_limit_is_cut_with_one_visible_reason() {
    let (_dir, root) = tree(&[("src/a.ts", "")]);
    let rules = root.join(".claude/rules");
    fs::create_dir_all(&rules).unwrap();
    let total = MAX_RULE_FILES_PER_FOLDER + 5;
    for i in 0..total {
        fs::write(
            rules.join(format!("r{i:05}.md")),
            format!("---\npaths: \"never/{i}/**\"\n---\nrule {i}\n"),
        )
        .unwrap();
    }
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let found = engine.discover(&mut state, "src/a.ts".into(), engine.root());
    let too_many: Vec<_> = found
        .skipped
        .iter()
        .filter(|s| s.reason == SkipReason::TooManyRules)
        .collect();
    assert_eq!(too_many.len(), 1, "one row for the lot");
    assert_eq!(too_many[0].file, ".claude/rules");
    assert!(
        too_many[0]
            .detail
            .contains(&format!("holds {total} rule files"))
            && too_many[0]
                .detail
                .contains("the last 5 in sorted order (from .claude/rules/r01000.md on)"),
        "{}",
        too_many[0].detail
    );
    // Exactly the limit is judged: every other row is a scope miss.
    let judged = found
        .skipped
        .iter()
        .filter(|s| s.reason == SkipReason::ScopeMiss)
        .count();
    assert_eq!(judged, MAX_RULE_FILES_PER_FOLDER);
}

#[test]
fn a_rule_folder_at_the_limit_is_read_whole() {
    let (_dir, root) = tree(&[("src/a.ts", "")]);
    let rules = root.join(".claude/rules");
    fs::create_dir_all(&rules).unwrap();
    for i in 0..MAX_RULE_FILES_PER_FOLDER {
        fs::write(
            rules.join(format!("r{i:05}.md")),
            "---\npaths: \"x/**\"\n---\nr\n",
        )
        .unwrap();
    }
    let engine = Engine::new(&root).unwrap();
    let found = engine.discover(
        &mut DiscoveryState::default(),
        "src/a.ts".into(),
        engine.root(),
    );
    assert!(
        found
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::ScopeMiss)
    );
    assert_eq!(found.skipped.len(), MAX_RULE_FILES_PER_FOLDER);
}

/// The effective user id, without unsafe code: the owner of `/proc/self`.
fn euid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// Runs one test of this binary as the unprivileged user `nobody`, for
/// checks that root's right to read anything would defeat. Returns false
/// (the caller says why it skipped) when that cannot be done here.
fn rerun_as_nobody(test: &str) -> bool {
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let Ok(status) = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&exe)
        .args(["--exact", test, "--test-threads=1"])
        .env("JIT_TEST_UNPRIVILEGED", "1")
        .env("TMPDIR", "/tmp")
        .status()
    else {
        return false;
    };
    assert!(status.success(), "{test} failed as nobody");
    true
}

#[test]
fn an_unreadable_rule_is_tried_again_on_the_next_touch() {
    if euid() == Some(0) && std::env::var_os("JIT_TEST_UNPRIVILEGED").is_none() {
        if !rerun_as_nobody("hostile::an_unreadable_rule_is_tried_again_on_the_next_touch") {
            eprintln!(
                "skipped: running as root, which reads any file, and setpriv is not available"
            );
        }
        return;
    }
    let (_dir, root) = tree(&[("src/CLAUDE.md", "src rules\n"), ("src/a.ts", "")]);
    let rule = root.join("src/CLAUDE.md");
    set_mode(&rule, 0o000);
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let skipped = reasons(&engine, &mut state, "src/a.ts");
    assert_eq!(
        skipped,
        [("src/CLAUDE.md".to_owned(), SkipReason::Unreadable)]
    );
    // `chmod` changes neither size nor mtime: only a retry can see it.
    set_mode(&rule, 0o644);
    let found = engine.discover(&mut state, "src/b.ts".into(), engine.root());
    assert_eq!(found.loaded[0].file, "src/CLAUDE.md");
}

fn set_mode(path: &Utf8Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(Path::new(path.as_str()), fs::Permissions::from_mode(mode)).unwrap();
}

/// A scoped rule the startup signals are asked for.
const SCOPED_TS: &str = "---\npaths: [\"**/*.ts\"]\n---\nTypeScript.\n";

/// A change source that never answers in time.
struct Stalls;

impl jit_core::ChangeSource for Stalls {
    fn changed_files(
        &self,
        _root: &Utf8Path,
    ) -> Result<jit_core::ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
        std::thread::sleep(std::time::Duration::from_secs(30));
        Ok(jit_core::ChangeSet::default())
    }
}

/// A change source that fails.
struct Fails;

impl jit_core::ChangeSource for Fails {
    fn changed_files(
        &self,
        _root: &Utf8Path,
    ) -> Result<jit_core::ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
        Err("index is corrupt".into())
    }
}

fn startup_with(
    root: &Utf8Path,
    source: std::sync::Arc<dyn jit_core::ChangeSource>,
    deadline_ms: u64,
) -> jit_core::StartupReport {
    let engine = Engine::new(root).unwrap();
    let options = jit_core::StartupOptions::new(root.join("src"))
        .with_managed(None)
        .with_changes(source)
        .with_change_deadline(std::time::Duration::from_millis(deadline_ms));
    engine.startup(&mut DiscoveryState::default(), &options)
}

#[test]
fn a_change_source_past_its_deadline_falls_back_to_the_cwd_marker() {
    // A scoped rule, so the startup load asks the change source at all.
    let (_dir, root) = tree(&[("src/a.ts", ""), (".claude/rules/ts.md", SCOPED_TS)]);
    let report = startup_with(&root, std::sync::Arc::new(Stalls), 50);
    assert_eq!(report.signals, ["src/"]);
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.contains("git_timeout: no answer within 50 ms")),
        "{:?}",
        report.diagnostics
    );
    let report = startup_with(&root, std::sync::Arc::new(Fails), 1000);
    assert_eq!(report.signals, ["src/"]);
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.contains("git_error: index is corrupt")),
        "{:?}",
        report.diagnostics
    );
}

#[test]
fn git_internals_that_are_fifos_never_hang_startup() {
    for planted in ["HEAD", "index", "config"] {
        let (_dir, root) = tree(&[("src/a.ts", ""), (".claude/rules/ts.md", SCOPED_TS)]);
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success());
        let target = root.join(".git").join(planted);
        let _ = fs::remove_file(&target);
        mkfifo(&target);
        let report = startup_with(&root, std::sync::Arc::new(jit_git::GitChanges::new()), 300);
        assert_eq!(report.signals, ["src/"], "{planted}");
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.contains("git_timeout") || d.contains("git_error")),
            "{planted}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn a_reported_path_with_a_nul_byte_is_skipped_by_reason() {
    use jit_tools as _;
    let registry = jit_core::Registry::from_inventory();
    for (tool, input) in [
        ("read", serde_json::json!({"file_path": "a\u{0}b"})),
        (
            "read_many",
            serde_json::json!({"paths": ["ok.rs", "x\u{0}y"]}),
        ),
        (
            "bash",
            serde_json::json!({"command": "touch ok.rs", "cwd": "d\u{0}"}),
        ),
    ] {
        let touched = registry.affected_paths(tool, &input, "/p".into()).unwrap();
        assert!(
            touched.paths.iter().all(|p| !p.as_str().contains('\0')),
            "{tool}: {touched:?}"
        );
        assert!(
            touched
                .skipped
                .iter()
                .any(|s| s.reason == "nul_byte" && s.word.contains("\\0")),
            "{tool}: {touched:?}"
        );
    }
    let touched = registry
        .affected_paths(
            "read_many",
            &serde_json::json!({"paths": ["ok.rs", "x\u{0}y"]}),
            "/p".into(),
        )
        .unwrap();
    assert_eq!(touched.paths, ["ok.rs"]);
}

#[test]
fn links_to_devices_and_fifos_and_huge_files_are_refused_by_reason() {
    let (dir, root) = tree(&[("src/a.ts", "")]);
    let outside_fifo = Utf8PathBuf::from_path_buf(dir.path().join("outside.fifo")).unwrap();
    mkfifo(&outside_fifo);
    let inside_fifo = root.join("src/pipe");
    mkfifo(&inside_fifo);
    std::os::unix::fs::symlink("/dev/zero", root.join("CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink(&outside_fifo, root.join("src/CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink(&inside_fifo, root.join("src/CLAUDE.local.md")).unwrap();
    // A sparse 1 GB rule: refused by its size, never read.
    let huge = fs::File::create(root.join("src/.claude.md")).unwrap();
    huge.set_len(1 << 30).unwrap();
    // UTF-16 text has NUL bytes: not a text rule.
    let utf16: Vec<u8> = "rule\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    fs::write(
        root.join("src/claude.md"),
        [&[0xff, 0xfe][..], &utf16].concat(),
    )
    .unwrap();
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let mut skipped = reasons(&engine, &mut state, "src/a.ts");
    skipped.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        skipped,
        [
            ("CLAUDE.md".to_owned(), SkipReason::OutsideRoot),
            ("src/.claude.md".to_owned(), SkipReason::TooLarge),
            ("src/CLAUDE.local.md".to_owned(), SkipReason::Unreadable),
            ("src/CLAUDE.md".to_owned(), SkipReason::OutsideRoot),
            ("src/claude.md".to_owned(), SkipReason::Binary),
        ]
    );
}

#[test]
fn managed_and_user_rules_that_are_fifos_never_block_startup() {
    let (dir, root) = tree(&[("CLAUDE.md", "root\n")]);
    let managed = Utf8PathBuf::from_path_buf(dir.path().join("managed/CLAUDE.md")).unwrap();
    fs::create_dir_all(managed.parent().unwrap()).unwrap();
    mkfifo(&managed);
    let home = Utf8PathBuf::from_path_buf(dir.path().join("home")).unwrap();
    fs::create_dir_all(home.join(".claude/rules")).unwrap();
    mkfifo(&home.join(".claude/CLAUDE.md"));
    mkfifo(&home.join(".claude/rules/mine.md"));
    let engine = Engine::new(&root).unwrap();
    let options = jit_core::StartupOptions::new(root.clone())
        .with_managed(Some(managed))
        .with_home(Some(home));
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    assert_eq!(report.loaded.len(), 1, "{:?}", report.loaded);
    assert_eq!(report.loaded[0].file, "CLAUDE.md");
    assert_eq!(report.skipped.len(), 3, "{:?}", report.skipped);
    assert!(
        report
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::Unreadable)
    );
}

#[test]
fn deep_and_long_paths_are_judged_without_error() {
    let (_dir, root) = tree(&[("CLAUDE.md", "root\n")]);
    // 200 levels: the walk is iterative and every level is contained.
    let deep: String = (0..200).map(|i| format!("d{i}/")).collect();
    fs::create_dir_all(root.join(&deep)).unwrap();
    fs::write(root.join(&deep).join("CLAUDE.md"), "deep\n").unwrap();
    let engine = Engine::new(&root).unwrap();
    let mut state = DiscoveryState::default();
    let found = engine.discover(
        &mut state,
        Utf8Path::new(&format!("{deep}x.rs")),
        engine.root(),
    );
    assert_eq!(found.loaded.len(), 2);
    // A name longer than any file system allows: nothing exists there.
    let long = format!("{}/x.rs", "n".repeat(300));
    let found = engine.discover(&mut state, Utf8Path::new(&long), engine.root());
    assert!(
        found.loaded.is_empty() && found.skipped.is_empty(),
        "{found:?}"
    );
    // A path over PATH_MAX.
    let huge = format!("{}x.rs", "abcdefghij/".repeat(500));
    let found = engine.discover(&mut state, Utf8Path::new(&huge), engine.root());
    assert!(found.loaded.is_empty(), "{found:?}");
}
