//! Tests of `jit startup` on a real git fixture: the DESIGN §4 table.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::{jit, jit_in};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success());
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src/ui")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
    fs::write(
        root.join(".claude/rules/ui.md"),
        "---\npaths: [\"src/ui/**\"]\n---\nui\n",
    )
    .unwrap();
    fs::write(root.join("src/ui/Badge.tsx"), "badge\n").unwrap();
    fs::write(root.join("docs/index.md"), "docs\n").unwrap();
    git(root, &["init", "-q"]);
    git(
        root,
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "add",
            "-A",
        ],
    );
    git(
        root,
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "init",
        ],
    );
    dir
}

fn run(root: &Path, cwd: &str) -> serde_json::Value {
    let root_s = root.to_str().unwrap();
    let cwd = root.join(cwd);
    let managed = root.join("no-managed-file");
    let (code, out, err) = jit(&[
        "startup",
        "--json",
        "--root",
        root_s,
        "--cwd",
        cwd.to_str().unwrap(),
        "--managed",
        managed.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn loads_ui(doc: &serde_json::Value) -> bool {
    doc["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["file"] == ".claude/rules/ui.md")
}

#[test]
fn design_table_on_a_real_git_fixture() {
    let dir = repo();
    let clean_root = run(dir.path(), "");
    assert_eq!(clean_root["signals"], serde_json::json!([]));
    assert!(!loads_ui(&clean_root));
    assert_eq!(clean_root["loaded"][0]["file"], "CLAUDE.md");
    assert_eq!(clean_root["loaded"][0]["tier"], "project");
    assert_eq!(clean_root["loaded"][0]["attribution"], "session_start");

    let in_ui = run(dir.path(), "src/ui");
    assert_eq!(in_ui["signals"], serde_json::json!(["src/ui/"]));
    assert!(loads_ui(&in_ui));

    let in_docs = run(dir.path(), "docs");
    assert_eq!(in_docs["signals"], serde_json::json!(["docs/"]));
    assert!(!loads_ui(&in_docs));

    fs::write(dir.path().join("src/ui/Badge.tsx"), "badge, changed\n").unwrap();
    let dirty_root = run(dir.path(), "");
    assert_eq!(
        dirty_root["signals"],
        serde_json::json!(["src/ui/Badge.tsx"])
    );
    assert!(loads_ui(&dirty_root));
}

#[test]
fn user_rules_come_from_home() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    fs::create_dir_all(home.path().join(".claude")).unwrap();
    fs::write(home.path().join(".claude/CLAUDE.md"), "me\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args([
            "startup",
            "--json",
            "--root",
            dir.path().to_str().unwrap(),
            "--managed",
            "/nonexistent/CLAUDE.md",
        ])
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["loaded"][0]["tier"], "user");
    assert!(
        doc["loaded"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with(".claude/CLAUDE.md")
    );
    assert!(Path::new(doc["loaded"][0]["file"].as_str().unwrap()).is_absolute());
}

/// Runs `jit startup --json --root ROOT` (plus `extra`) from the root with
/// `env` set, expecting success: its JSON without `elapsed_us`, which
/// differs from run to run.
#[track_caller]
fn startup_json_with(root: &Path, env: &[(&str, &Path)], extra: &[&str]) -> serde_json::Value {
    let args = [
        &["startup", "--json", "--root", root.to_str().unwrap()][..],
        extra,
    ]
    .concat();
    let (code, out, err) = crate::jit_env(Some(root), env, &args);
    assert_eq!(code, 0, "{err}");
    let mut doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    doc.as_object_mut().unwrap().remove("elapsed_us");
    doc
}

/// Runs `jit startup --json --root ROOT` (plus `extra`) from `dir`, expecting success.
#[track_caller]
fn run_from(dir: &Path, root: &Path, extra: &[&str]) -> serde_json::Value {
    let managed = root.join("no-managed-file");
    let mut args = vec![
        "startup",
        "--json",
        "--root",
        root.to_str().unwrap(),
        "--managed",
        managed.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = jit_in(Some(dir), &args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn a_current_directory_outside_the_root_falls_back_to_the_root() {
    let dir = repo();
    fs::write(dir.path().join("src/ui/Badge.tsx"), "badge, changed\n").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let doc = run_from(elsewhere.path(), dir.path(), &[]);
    assert_eq!(
        doc["signals"],
        serde_json::json!(["src/ui/Badge.tsx"]),
        "{doc:#}"
    );
    assert_eq!(doc["diagnostics"], serde_json::json!([]), "{doc:#}");
    assert!(loads_ui(&doc));

    // Inside the root, the current directory is the session's.
    let doc = run_from(&dir.path().join("docs"), dir.path(), &[]);
    assert_eq!(doc["signals"], serde_json::json!(["docs/"]), "{doc:#}");
}

#[cfg(unix)]
#[test]
fn a_root_given_through_a_symlink_keeps_the_current_directory() {
    let dir = repo();
    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("proj");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap();
    let doc = run_from(&dir.path().join("src/ui"), &link, &[]);
    assert_eq!(doc["signals"], serde_json::json!(["src/ui/"]), "{doc:#}");
    let doc = run_from(&link.join("docs"), &link, &[]);
    assert_eq!(doc["signals"], serde_json::json!(["docs/"]), "{doc:#}");
}

#[test]
fn cwd_must_be_an_existing_directory() {
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    for (cwd, why) in [
        ("CLAUDE.md", "is not a directory"),
        ("no/such/dir", "does not exist"),
    ] {
        let (code, out, err) = jit_in(Some(dir.path()), &["startup", "--root", root, "--cwd", cwd]);
        assert_eq!(code, 2, "--cwd {cwd}: {out}");
        assert_eq!(out, "", "--cwd {cwd}");
        assert!(
            err.starts_with(&format!("jit: error: --cwd {cwd} ")) && err.contains(why),
            "--cwd {cwd}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // A directory given relative to the current directory is accepted.
    let doc = run_from(dir.path(), dir.path(), &["--cwd", "src/ui"]);
    assert_eq!(doc["signals"], serde_json::json!(["src/ui/"]), "{doc:#}");
}

#[test]
fn a_missing_root_names_the_cause_once() {
    let (code, out, err) = jit(&["startup", "--root", "/nonexistent"]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(
        err,
        "jit: error: project root /nonexistent: No such file or directory (os error 2)\n"
    );
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let managed = dir.path().join("managed.md");
    fs::write(&managed, "managed\n").unwrap();
    for json in [false, true] {
        let mut args = vec![
            "startup",
            "--root",
            root,
            "--managed",
            managed.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let (code, stderr) = crate::jit_closed_stdout(Some(dir.path()), &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "--json {json}");
    }
}

#[test]
fn control_characters_are_escaped_in_the_table_only() {
    let dir = repo();
    let evil = "evil\x1b]0;title\x07\x1b[2J\nline";
    let shown = "evil\\e]0;title\\x07\\e[2J\\nline";
    fs::create_dir_all(dir.path().join(evil)).unwrap();
    fs::write(dir.path().join(evil).join("CLAUDE.md"), "evil\n").unwrap();
    fs::write(
        dir.path().join(".claude/rules/warned.md"),
        "---\npaths: []\n---\nempty scope\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let managed = dir.path().join("no-managed-file");
    let args = [
        "startup",
        "--root",
        root,
        "--cwd",
        evil,
        "--managed",
        managed.to_str().unwrap(),
    ];
    let (code, out, err) = jit_in(Some(dir.path()), &args);
    assert_eq!(code, 0, "{err}");
    crate::assert_no_control_characters(&out);
    // The directory is the cwd marker, and its untracked rule a changed file.
    assert!(
        out.starts_with(&format!("signals: {shown}/, {shown}/CLAUDE.md\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("project  {shown}/CLAUDE.md  (5 B)")),
        "{out}"
    );
    assert!(out.contains("    warning: `paths:` is empty"), "{out}");

    let mut json_args = args.to_vec();
    json_args.push("--json");
    let (code, out, err) = jit_in(Some(dir.path()), &json_args);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["signals"][0], format!("{evil}/"));
    let files: Vec<&str> = doc["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["file"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&format!("{evil}/CLAUDE.md").as_str()),
        "{doc:#}"
    );
}

#[test]
fn managed_is_taken_from_the_current_directory_and_a_missing_one_is_a_warning() {
    let dir = repo();
    fs::write(dir.path().join("m.md"), "managed\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["startup", "--json", "--root", root, "--managed", "m.md"],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["loaded"][0]["tier"], "managed", "{doc:#}");
    assert_eq!(doc["loaded"][0]["file"], "m.md");

    let (code, out, err) = jit_in(
        Some(dir.path()),
        &["startup", "--root", root, "--managed", "gone.md"],
    );
    assert_eq!(code, 0, "{err}");
    let missing = dir.path().canonicalize().unwrap().join("gone.md");
    assert_eq!(
        err,
        format!(
            "jit: warning: --managed gone.md: {} does not exist; no managed rules are loaded\n",
            missing.display()
        )
    );
    assert!(out.contains("project  CLAUDE.md"), "{out}");
}

#[test]
fn an_empty_path_is_a_usage_error() {
    for args in [
        &["startup", "--root", ""][..],
        &["startup", "--root", ".", "--cwd", ""],
        &["startup", "--root", ".", "--managed", ""],
    ] {
        let (code, out, err) = jit(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains("empty path"), "{args:?}: {err}");
    }
}

/// `.git/HEAD` as a FIFO never hangs the startup load: git gets the
/// deadline `JIT_GIT_DEADLINE_MS` gives it, and the load goes on with the
/// cwd marker, saying why.
#[test]
fn the_git_deadline_is_set_by_the_environment_and_a_fifo_head_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join(".git/objects")).unwrap();
    fs::create_dir_all(root.join(".git/refs")).unwrap();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join(".claude/rules")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
    // A scoped rule, so the startup load asks git for changed files at all.
    fs::write(
        root.join(".claude/rules/rs.md"),
        "---\npaths: [\"**/*.rs\"]\n---\nRust\n",
    )
    .unwrap();
    let status = Command::new("mkfifo")
        .arg(root.join(".git/HEAD"))
        .status()
        .unwrap();
    assert!(status.success());
    let (code, out, err) = crate::jit_env(
        Some(root),
        &[("JIT_GIT_DEADLINE_MS", Path::new("100"))],
        &["startup", "--json", "--root", ".", "--cwd", "src"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["signals"], serde_json::json!(["src/"]));
    let diagnostics = doc["diagnostics"].to_string();
    assert!(
        diagnostics.contains("git_timeout: no answer within 100 ms"),
        "{diagnostics}"
    );

    let (code, _, err) = crate::jit_env(
        Some(root),
        &[("JIT_GIT_DEADLINE_MS", Path::new("soon"))],
        &["startup", "--root", "."],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("JIT_GIT_DEADLINE_MS=\"soon\" is not a whole number of milliseconds"),
        "{err}"
    );
}

/// A repository mixing every convention: a `CLAUDE.md` importing the root
/// `AGENTS.md`, Cursor rules scoped, always-on and description-only, and
/// Copilot instructions, one of them with three comma-separated globs.
fn mixed_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("CLAUDE.md", "Claude: read the shared rules.\n@AGENTS.md\n"),
        ("AGENTS.md", "Shared: every change comes with a test.\n"),
        ("src/api/AGENTS.md", "API: validate input.\n"),
        (
            ".cursor/rules/ts.mdc",
            "---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nTypeScript: strict mode.\n",
        ),
        (
            ".cursor/rules/style.mdc",
            "---\nalwaysApply: \"true\"\n---\nStyle: two spaces.\n",
        ),
        (
            ".cursor/rules/release.mdc",
            "---\ndescription: How to cut a release\n---\nRelease: tag, then publish.\n",
        ),
        (
            ".github/copilot-instructions.md",
            "Copilot: prefer small functions.\n",
        ),
        (
            ".github/instructions/api.instructions.md",
            "---\napplyTo: \"src/api/**,**/*.sql,docs/api/*.md\"\n---\nAPI docs stay in sync.\n",
        ),
        ("src/api/handler.ts", "x\n"),
    ] {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn a_mixed_repository_loads_each_file_once_and_indexes_the_rest() {
    let dir = mixed_repo();
    let root = dir.path().canonicalize().unwrap();
    let doc = run_from(&root, &root, &[]);
    let loaded: Vec<(&str, &str)> = doc["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["file"].as_str().unwrap(), r["source"].as_str().unwrap()))
        .collect();
    assert!(loaded.contains(&("CLAUDE.md", "claude")), "{loaded:?}");
    assert!(
        loaded.contains(&(".cursor/rules/style.mdc", "cursor")),
        "{loaded:?}"
    );
    assert!(
        loaded.contains(&(".github/copilot-instructions.md", "copilot")),
        "{loaded:?}"
    );
    // AGENTS.md came in inside CLAUDE.md: its own arrival is a skip that
    // names the first one and its source.
    let agents = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == "AGENTS.md" && r["source"] == "agents")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(agents["reason"], "already_loaded");
    assert!(
        agents["detail"].as_str().unwrap().contains("CLAUDE.md"),
        "{agents}"
    );
    // What exists but did not load is indexed: scoped, description-only,
    // and the nested AGENTS.md.
    let index = doc["index"].as_array().unwrap_or_else(|| panic!("{doc:#}"));
    let entry = |file: &str| {
        index
            .iter()
            .find(|e| e["file"] == file)
            .unwrap_or_else(|| panic!("{file} not in {index:#?}"))
    };
    assert_eq!(
        entry(".cursor/rules/ts.mdc")["scope"],
        serde_json::json!(["src/**/*.ts"])
    );
    assert_eq!(entry(".cursor/rules/ts.mdc")["source"], "cursor");
    let release = entry(".cursor/rules/release.mdc");
    assert_eq!(release["description"], "How to cut a release");
    assert_eq!(release["bytes"], 70);
    assert_eq!(
        entry(".github/instructions/api.instructions.md")["scope"],
        serde_json::json!(["src/api/**", "**/*.sql", "docs/api/*.md"])
    );
    assert_eq!(entry("src/api/AGENTS.md")["source"], "agents");
    // A description-only rule is never in the context.
    assert!(
        !loaded
            .iter()
            .any(|(f, _)| *f == ".cursor/rules/release.mdc")
    );
    for e in index {
        for key in ["file", "source", "scope", "description", "bytes"] {
            assert!(e.get(key).is_some(), "{key} missing in {e}");
        }
    }
}

#[test]
fn conventions_come_from_the_flag_then_jit_toml() {
    let dir = mixed_repo();
    let root = dir.path().canonicalize().unwrap();
    let sources = |doc: &serde_json::Value| {
        let mut s: Vec<String> = doc["loaded"]
            .as_array()
            .unwrap()
            .iter()
            .chain(doc["skipped"].as_array().unwrap())
            .chain(doc["index"].as_array().into_iter().flatten())
            .map(|r| r["source"].as_str().unwrap().to_owned())
            .collect();
        s.sort();
        s.dedup();
        s
    };
    assert_eq!(
        sources(&run_from(&root, &root, &[])),
        ["agents", "claude", "copilot", "cursor"]
    );
    fs::write(root.join("jit.toml"), "conventions = [\"cursor\"]\n").unwrap();
    assert_eq!(sources(&run_from(&root, &root, &[])), ["cursor"]);
    assert_eq!(
        sources(&run_from(&root, &root, &["--conventions", "agents,claude"])),
        ["agents", "claude"]
    );
    let (code, _, err) = jit(&[
        "startup",
        "--root",
        root.to_str().unwrap(),
        "--conventions",
        "claude,windsurf",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("windsurf") && err.contains("cline"), "{err}");
    fs::write(root.join("jit.toml"), "[index]\nmax_bytes = 1\n").unwrap();
    let doc = run_from(&root, &root, &[]);
    assert_eq!(doc["index"], serde_json::Value::Null, "{doc:#}");
    assert!(
        doc["index_overflow"]
            .as_array()
            .is_some_and(|o| !o.is_empty()),
        "{doc:#}"
    );
}

#[test]
fn the_table_prints_the_index() {
    let dir = mixed_repo();
    let root = dir.path().canonicalize().unwrap();
    let (code, out, err) = jit_in(
        Some(&root),
        &[
            "startup",
            "--root",
            root.to_str().unwrap(),
            "--managed",
            "/nonexistent",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("index (rules not loaded, found on demand):"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.contains(".cursor/rules/release.mdc")
                && l.contains("\"How to cut a release\"")),
        "{out}"
    );
}

/// The project walk keeps its listings in `STATE_DIR/walks/` (one file per
/// root), which changes nothing in what startup reports; `JIT_WALK_CACHE=off`
/// walks without it; a cache that is not one is walked around, and said.
#[test]
fn the_walk_cache_lives_in_the_state_directory_and_changes_no_answer() {
    let dir = repo();
    let root = dir.path().canonicalize().unwrap();
    let state = tempfile::tempdir().unwrap();
    let walks = state.path().join("walks");
    let run = |env: &[(&str, &Path)]| startup_json_with(&root, env, &[]);
    let off = Path::new("off");
    let without = run(&[("JIT_STATE_DIR", state.path()), ("JIT_WALK_CACHE", off)]);
    assert!(!walks.exists(), "off: no cache written");
    let first = run(&[("JIT_STATE_DIR", state.path())]);
    let files: Vec<_> = fs::read_dir(&walks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap();
    let dir_name = root.file_name().unwrap().to_str().unwrap();
    // The root's name, a `.` made `_`, then a hash of its path.
    let readable = dir_name.trim_start_matches('.');
    assert!(name.contains(readable) && name.ends_with(".walk"), "{name}");
    let second = run(&[("JIT_STATE_DIR", state.path())]);
    assert_eq!(first, without);
    assert_eq!(second, without);
    assert!(without["index"].as_array().is_some_and(|i| !i.is_empty()));

    fs::write(&files[0], "not a cache").unwrap();
    let broken = run(&[("JIT_STATE_DIR", state.path())]);
    assert_eq!(broken["index"], without["index"]);
    let diagnostics = broken["diagnostics"].to_string();
    assert!(
        diagnostics.contains("walk cache: ") && diagnostics.contains("is not a walk cache"),
        "{diagnostics}"
    );
}

/// `walks/` in the state directory is a folder jit makes: a link planted
/// in its place is neither read nor written through, and the startup
/// report says why; a link planted as the cache file is replaced by the
/// cache, its target left alone.
#[test]
fn a_link_planted_for_the_walk_cache_is_not_followed_and_said() {
    let dir = repo();
    let root = dir.path().canonicalize().unwrap();
    let state = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), state.path().join("walks")).unwrap();
    let doc = startup_json_with(&root, &[("JIT_STATE_DIR", state.path())], &[]);
    assert!(doc["index"].as_array().is_some_and(|i| !i.is_empty()));
    let diagnostics = doc["diagnostics"].to_string();
    assert!(
        diagnostics.contains("walk cache: cannot")
            && diagnostics.contains("walks is a symbolic link"),
        "{diagnostics}"
    );
    assert!(
        fs::read_dir(outside.path()).unwrap().next().is_none(),
        "nothing written through the link"
    );

    // The cache file itself a link to a file of the user's.
    fs::remove_file(state.path().join("walks")).unwrap();
    startup_json_with(&root, &[("JIT_STATE_DIR", state.path())], &[]);
    let cache = fs::read_dir(state.path().join("walks"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let target = outside.path().join("notes.txt");
    fs::write(&target, "kept").unwrap();
    fs::remove_file(&cache).unwrap();
    std::os::unix::fs::symlink(&target, &cache).unwrap();
    let doc = startup_json_with(&root, &[("JIT_STATE_DIR", state.path())], &[]);
    assert!(doc["index"].as_array().is_some_and(|i| !i.is_empty()));
    assert_eq!(fs::read(&target).unwrap(), b"kept");
    assert!(
        fs::symlink_metadata(&cache).unwrap().is_file(),
        "replaced by the cache"
    );
}

/// `[index] enabled = false` in jit.toml, or `--no-index`, builds no rule
/// index, and the table says it is off; with the conventions named too,
/// the project is not walked at all (no walk cache is written). The
/// startup load itself is the same.
#[test]
fn the_index_can_be_turned_off_and_then_nothing_is_walked() {
    let dir = mixed_repo();
    let root = dir.path().canonicalize().unwrap();
    let state = tempfile::tempdir().unwrap();
    let walks = state.path().join("walks");
    let env = [("JIT_STATE_DIR", state.path())];
    let run = |extra: &[&str]| -> (serde_json::Value, String) {
        let doc = startup_json_with(&root, &env, extra);
        let table = [&["startup", "--root", root.to_str().unwrap()][..], extra].concat();
        let (code, out, err) = crate::jit_env(Some(&root), &env, &table);
        assert_eq!(code, 0, "{err}");
        (doc, out)
    };
    let named = ["--conventions", "claude,agents,cursor,copilot"];
    let (on, table) = run(&named);
    assert!(
        on["index"].as_array().is_some_and(|i| !i.is_empty()),
        "{on:#}"
    );
    assert!(!table.contains("index: off"), "{table}");
    assert!(walks.exists(), "the index walks the project");
    fs::remove_dir_all(&walks).unwrap();

    let (flag, table) = run(&[&named[..], &["--no-index"]].concat());
    fs::write(root.join("jit.toml"), "[index]\nenabled = false\n").unwrap();
    let (config, config_table) = run(&named);
    for (doc, table) in [(&flag, &table), (&config, &config_table)] {
        assert_eq!(doc.get("index"), None, "{doc:#}");
        assert_eq!(doc.get("index_overflow"), None, "{doc:#}");
        let mut without_index = on.clone();
        without_index.as_object_mut().unwrap().remove("index");
        assert_eq!(*doc, without_index, "the same startup load");
        assert!(
            table.contains("index: off (--no-index, or [index] enabled = false in jit.toml)"),
            "{table}"
        );
        assert!(!table.contains("index (rules not loaded"), "{table}");
    }
    assert!(!walks.exists(), "off, conventions named: no walk");
    // Off, but the conventions detected: the detection still walks.
    let (detected, _) = run(&[]);
    assert_eq!(detected.get("index"), None, "{detected:#}");
    assert!(walks.exists(), "detection walks the project");
}

/// The text of a file outside the project root: no output may hold it.
const OUTSIDE_SENTINEL: &str = "SENTINEL-OUTSIDE-ROOT-c41d";

/// A repository's jit.toml that names a path where a file name goes (the
/// finding: `[claude] extra_names = ["../../…/etc/hostname"]`; here each
/// key of several conventions naming a file beside the root): `jit
/// startup` fails, as a table and as JSON, with an error that names the
/// file, the table, the key and the value; nothing of the file outside is
/// printed.
#[test]
fn a_jit_toml_naming_a_path_fails_and_nothing_outside_is_read() {
    let base = tempfile::tempdir().unwrap();
    let base = base.path().canonicalize().unwrap();
    let root = base.join("proj");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
    fs::write(base.join("secret.md"), format!("{OUTSIDE_SENTINEL}\n")).unwrap();
    let root_s = root.to_str().unwrap();
    for (table, key, value) in [
        (
            "claude",
            "extra_names",
            "../../../../../../../../../../etc/hostname",
        ),
        ("claude", "extra_names", "../secret.md"),
        ("claude", "names", "sub/../../secret.md"),
        ("agents", "fallback_names", "../secret.md"),
        ("agents", "extra_names", "../secret.md"),
        ("gemini", "names", "../secret.md"),
        ("cursor", "extra_names", "../secret.md"),
        ("copilot", "extra_names", "../secret.md"),
        ("cline", "extra_names", "../secret.md"),
    ] {
        fs::write(
            root.join("jit.toml"),
            format!("[{table}]\n{key} = [\"{value}\"]\n"),
        )
        .unwrap();
        for json in [false, true] {
            let mut args = vec!["startup", "--root", root_s, "--managed", "/nonexistent"];
            if json {
                args.push("--json");
            }
            let (code, out, err) = jit_in(Some(&root), &args);
            assert_eq!(code, 2, "{table}.{key} {value}: {out}{err}");
            assert!(
                !out.contains(OUTSIDE_SENTINEL) && !err.contains(OUTSIDE_SENTINEL),
                "{out}{err}"
            );
            let wanted = format!(
                "{}: in [{table}]: `{key}` holds \"{value}\", which is not a file name",
                root.join("jit.toml").display()
            );
            assert!(err.contains(&wanted), "{wanted}\n{err}");
            assert!(err.contains("write the file's name alone"), "{err}");
        }
    }
}

/// A repository whose git configuration names programs, through a file its
/// `.git/config` includes, and a user whose global configuration names one
/// too: `jit startup`, which reads git configuration as `git` does, runs
/// none of them. The scoped rule's file changed only in a way the planted
/// clean filter would hide (git would list nothing) is a signal all the
/// same, and the rule loads.
#[test]
fn programs_named_by_git_configuration_never_run_at_startup() {
    let dir = repo();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let marker = home.path().join("ran");
    let script = home.path().join("planted.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\n[ \"$1\" = exit ] && exit 0\nexec tr A-Z a-z\n",
            marker.display()
        ),
    )
    .unwrap();
    let mut permissions = fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(&script, permissions).unwrap();
    let program = script.display();
    let included = home.path().join("included.gitconfig");
    fs::write(
        &included,
        format!(
            "[filter \"planted\"]\n\tprocess = {program} exit\n\tclean = {program}\n\tsmudge = {program}\n\trequired = true\n[diff \"planted\"]\n\ttextconv = {program}\n[core]\n\tfsmonitor = {program}\n\taskPass = {program}\n[credential]\n\thelper = !{program}\n"
        ),
    )
    .unwrap();
    let config = root.join(".git/config");
    let mut text = fs::read_to_string(&config).unwrap();
    text.push_str(&format!("[include]\n\tpath = {}\n", included.display()));
    fs::write(&config, text).unwrap();
    let global = home.path().join(".gitconfig");
    fs::write(
        &global,
        format!("[filter \"global\"]\n\tprocess = {program} exit\n\tclean = {program}\n"),
    )
    .unwrap();
    fs::write(
        root.join(".gitattributes"),
        "*.tsx filter=planted diff=planted\ndocs/index.md filter=global\n",
    )
    .unwrap();
    // Changed at their size, so that only their content tells: the planted
    // clean filter would hide both changes.
    fs::write(root.join("src/ui/Badge.tsx"), "BADGE\n").unwrap();
    fs::write(root.join("docs/index.md"), "DOCS\n").unwrap();

    let config_home = home.path().join(".config");
    let env = [
        ("HOME", home.path()),
        ("XDG_CONFIG_HOME", config_home.as_path()),
        ("GIT_CONFIG_GLOBAL", global.as_path()),
        ("GIT_CONFIG_NOSYSTEM", Path::new("1")),
    ];
    let doc = startup_json_with(&root, &env, &[]);
    assert!(!marker.exists(), "a program named by git configuration ran");
    assert_eq!(
        doc["signals"],
        serde_json::json!([".gitattributes", "docs/index.md", "src/ui/Badge.tsx"]),
        "{doc:#}"
    );
    assert!(loads_ui(&doc), "{doc:#}");
}
