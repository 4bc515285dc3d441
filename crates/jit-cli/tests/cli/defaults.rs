//! Tests of where a command runs: `--root` defaults to the git worktree root above the current directory (else the current directory), and human tables name files relative to where the user stands while JSON stays root-relative.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;

use crate::jit_in;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
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

/// A scratch directory, resolved, that no `.git` above it makes part of a
/// repository (else "outside any repository" could not be tested).
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    assert!(
        base.ancestors().all(|d| !d.join(".git").exists()),
        "the temporary directory {} is inside a git repository",
        base.display()
    );
    (dir, base)
}

/// `<base>/repo`, a git repository with a root rule, a rule in `src/api`,
/// a scoped rule for tests, and the files they are about, all committed.
fn repo(base: &Path) -> PathBuf {
    let repo = base.join("repo");
    write(&repo, "CLAUDE.md", "Root rules.\n");
    write(&repo, "src/api/CLAUDE.md", "API rules.\n");
    write(&repo, "src/api/handler.ts", "handler\n");
    write(&repo, "src/api/a.test.ts", "test\n");
    write(&repo, "src/ui/Button.tsx", "button\n");
    write(
        &repo,
        ".claude/rules/tests.md",
        "---\npaths: [\"**/*.test.ts\"]\n---\nTest rules.\n",
    );
    // Committed, so that no changed file is a startup signal.
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "init"]);
    repo
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

/// `value` without its timings, which differ from run to run.
fn untimed(mut value: serde_json::Value) -> serde_json::Value {
    match &mut value {
        serde_json::Value::Object(map) => {
            map.remove("elapsed_us");
            for v in map.values_mut() {
                *v = untimed(v.take());
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                *v = untimed(v.take());
            }
        }
        _ => {}
    }
    value
}

fn loaded_files(doc: &serde_json::Value) -> Vec<&str> {
    doc["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["file"].as_str().unwrap())
        .collect()
}

#[test]
fn without_root_a_subdirectory_of_a_git_repository_uses_the_repository_root() {
    let (_dir, base) = scratch();
    let repo = repo(&base);
    let src = repo.join("src");
    let root = repo.to_str().unwrap();

    // startup: the same document as with --root, from a directory below it.
    let cwd = repo.join("src/api");
    let cwd = cwd.to_str().unwrap();
    let (code, implicit, err) = jit_in(Some(&src), &["startup", "--json", "--cwd", cwd]);
    assert_eq!(code, 0, "{err}");
    let (_, explicit, _) = jit_in(
        Some(&src),
        &["startup", "--json", "--cwd", cwd, "--root", root],
    );
    assert_eq!(untimed(json(&implicit)), untimed(json(&explicit)));
    assert!(loaded_files(&json(&implicit)).contains(&"CLAUDE.md"));

    // explain: the touched path is root-relative in the JSON.
    let (code, out, err) = jit_in(Some(&src), &["explain", "--json", "api/handler.ts"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(doc["steps"][0]["trigger"], "src/api/handler.ts");
    assert_eq!(loaded_files(&doc["steps"][0]), ["src/api/CLAUDE.md"]);

    // lint: the repository's rules, not only those below the current directory.
    write(&repo, "CLAUDE.md", "See @missing.md\n");
    let (code, implicit, _) = jit_in(Some(&src), &["lint", "--json"]);
    assert_eq!(code, 1, "{implicit}");
    let (_, explicit, _) = jit_in(Some(&src), &["lint", "--json", "--root", root]);
    assert_eq!(json(&implicit), json(&explicit));
    assert_eq!(json(&implicit)["findings"][0]["file"], "CLAUDE.md");

    // why: RULE and PATH relative to the current directory, judged in the repository.
    let (code, out, err) = jit_in(
        Some(&src),
        &[
            "why",
            "--json",
            "../.claude/rules/tests.md",
            "api/a.test.ts",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["verdict"], "loads", "{out}");

    // imports: a rule file of the repository, its imports judged against it.
    let (code, out, err) = jit_in(Some(&src), &["imports", "--json", "../CLAUDE.md"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["root"], root, "{out}");
}

#[test]
fn without_root_outside_any_repository_the_current_directory_is_the_root() {
    let (_dir, base) = scratch();
    let plain = base.join("plain");
    write(&plain, "CLAUDE.md", "See @missing.md\n");
    write(&plain, "sub/CLAUDE.md", "Sub rules.\n");
    let sub = plain.join("sub");

    let (code, out, err) = jit_in(Some(&sub), &["startup", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(loaded_files(&doc), ["CLAUDE.md"]);
    assert_eq!(doc["loaded"][0]["bytes"], "Sub rules.\n".len());

    // The parent's broken import is outside the root: nothing to report.
    assert_eq!(jit_in(Some(&sub), &["lint"]).0, 0);
    assert_eq!(jit_in(Some(&plain), &["lint"]).0, 1);
}

#[test]
fn explicit_root_still_wins_over_the_default() {
    let (_dir, base) = scratch();
    let repo = repo(&base);
    let api = repo.join("src/api");
    let (code, out, err) = jit_in(
        Some(&repo),
        &["startup", "--json", "--root", api.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(loaded_files(&json(&out)), ["CLAUDE.md"]);
    assert_eq!(json(&out)["loaded"][0]["bytes"], "API rules.\n".len());
}

#[test]
fn human_tables_name_files_relative_to_the_current_directory() {
    let (_dir, base) = scratch();
    let repo = repo(&base);
    let api = repo.join("src/api");

    let (code, out, err) = jit_in(Some(&api), &["explain", "handler.ts", "../ui/Button.tsx"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("step 1: handler.ts  "), "{out}");
    assert!(out.contains("step 2: ../ui/Button.tsx  "), "{out}");
    let loaded = |table: &str, file: &str| {
        table
            .lines()
            .any(|line| line.split_whitespace().take(2).eq(["loaded", file]))
    };
    assert!(loaded(&out, "../../CLAUDE.md"), "{out}");
    assert!(
        loaded(&out, "CLAUDE.md"),
        "the rule of src/api, from src/api:\n{out}"
    );
    // Evidence stays in the patterns' own terms: root-relative.
    assert!(out.contains("`src/ui/Button.tsx` matches none of"), "{out}");

    let (code, out, err) = jit_in(Some(&api), &["startup"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  loaded   project  ../../CLAUDE.md  ("),
        "{out}"
    );
    assert!(
        out.contains("  skipped  ../../.claude/rules/tests.md  scope_miss"),
        "{out}"
    );

    write(&repo, "CLAUDE.md", "See @missing.md\n");
    let (code, out, _) = jit_in(Some(&api), &["lint"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("../../CLAUDE.md:1: error["), "{out}");

    let (code, out, err) = jit_in(Some(&api), &["imports", "../../CLAUDE.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("../../CLAUDE.md: "), "{out}");
    assert!(out.contains("  ../../CLAUDE.md:1: @missing.md: "), "{out}");

    // From the root, and from outside it, the tables are as before.
    let (_, out, _) = jit_in(Some(&repo), &["lint"]);
    assert!(out.starts_with("CLAUDE.md:1: error["), "{out}");
    let (_, out, _) = jit_in(Some(&base), &["lint", "--root", "repo"]);
    assert!(out.starts_with("CLAUDE.md:1: error["), "{out}");
    let (_, out, _) = jit_in(Some(&repo), &["imports", "CLAUDE.md"]);
    assert!(out.contains("  CLAUDE.md:1: @missing.md: "), "{out}");
}

#[test]
fn json_output_does_not_depend_on_where_the_user_stands() {
    let (_dir, base) = scratch();
    let repo = repo(&base);
    let root = repo.to_str().unwrap();
    let touched = repo.join("src/api/handler.ts");
    let args = [
        "explain",
        "--json",
        "--root",
        root,
        "--cwd",
        root,
        touched.to_str().unwrap(),
    ];
    let (_, from_root, _) = jit_in(Some(&repo), &args);
    let (_, from_below, _) = jit_in(Some(&repo.join("src/api")), &args);
    assert_eq!(untimed(json(&from_root)), untimed(json(&from_below)));
    let lint = ["lint", "--json", "--root", root];
    assert_eq!(
        jit_in(Some(&repo), &lint).1,
        jit_in(Some(&repo.join("src/api")), &lint).1
    );
}
