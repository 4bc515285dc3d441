//! Whole-process wall time and peak memory of `jit lint` on two hostile repositories: a 4 MiB `.gitignore`, and 2,000 rule files each importing 286 others.
//!
//! Run with `cargo bench -p jit-cli --bench lint_hostile`. Before the
//! benchmarks, one run of each is measured by `/usr/bin/time` (when it is
//! there) and its peak resident memory printed. With
//! `JIT_LINT_HOSTILE_DIR=DIR`, the two repositories are written under `DIR`
//! (`DIR/gitignore`, `DIR/imports`) and nothing is run, for measuring any
//! build by hand:
//!
//! ```text
//! /usr/bin/time -v jit lint --json --root DIR/imports > /dev/null
//! ```
//!
//! Before the linter's limits (`MAX_IGNORE_FILE_BYTES`,
//! `MAX_IMPORTS_PER_RUN`), the first took 1.64 GB and 4.8 s and the second
//! 778 MB and 23 s (with 574,000 findings, 100 MB of JSON); with them,
//! 36 MB and 72 ms, and 32 MB and 0.7 s.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use divan::Bencher;

/// The size of the hostile `.gitignore`.
const GITIGNORE_BYTES: usize = 4 << 20;
/// Rule files in the import repository, and how many others each imports.
const RULES: usize = 2_000;
const IMPORTS_EACH: usize = 286;

struct Fixture {
    _dir: tempfile::TempDir,
    gitignore: PathBuf,
    imports: PathBuf,
    /// An empty home directory: `jit lint` reads the user's git
    /// configuration there, and a benchmark reads none of the real user's.
    home: PathBuf,
}

fn main() {
    if let Some(dir) = std::env::var_os("JIT_LINT_HOSTILE_DIR") {
        let dir = PathBuf::from(dir);
        write_repositories(&dir);
        eprintln!(
            "wrote {} and {}",
            dir.join("gitignore").display(),
            dir.join("imports").display()
        );
        return;
    }
    let fixture = fixture();
    for root in [&fixture.gitignore, &fixture.imports] {
        if let Some(kib) = peak_kib(root) {
            eprintln!("peak resident memory, {}: {kib} KiB", root.display());
        }
    }
    divan::main();
    // The fixtures sit in statics, which are never dropped.
    bench_tree::remove_scratch();
}

/// Writes the two repositories under `dir`.
fn write_repositories(dir: &Path) {
    let gitignore = dir.join("gitignore");
    fs::create_dir_all(gitignore.join("src")).unwrap();
    fs::create_dir_all(gitignore.join(".claude/rules")).unwrap();
    let mut text = String::with_capacity(GITIGNORE_BYTES + 64);
    let mut i = 0;
    while text.len() < GITIGNORE_BYTES {
        writeln!(text, "build{i}/**/*.tmp{i}").unwrap();
        i += 1;
    }
    fs::write(gitignore.join(".gitignore"), text).unwrap();
    fs::write(gitignore.join("src/a.ts"), "a\n").unwrap();
    fs::write(gitignore.join("CLAUDE.md"), "Rules.\n").unwrap();
    fs::write(
        gitignore.join(".claude/rules/src.md"),
        "---\npaths: [\"src/**\"]\n---\nSource rules.\n",
    )
    .unwrap();

    let imports = dir.join("imports");
    for i in 0..RULES {
        let rule_dir = imports.join(format!("d{i}"));
        fs::create_dir_all(&rule_dir).unwrap();
        let mut text = format!("Rule {i}.\n");
        for j in 1..=IMPORTS_EACH {
            writeln!(text, "@../d{}/CLAUDE.md", (i + j) % RULES).unwrap();
        }
        fs::write(rule_dir.join("CLAUDE.md"), text).unwrap();
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = bench_tree::fixture_dir().unwrap();
        write_repositories(dir.path());
        let home = dir.path().join("home");
        fs::create_dir(&home).unwrap();
        Fixture {
            gitignore: dir.path().join("gitignore"),
            imports: dir.path().join("imports"),
            home,
            _dir: dir,
        }
    })
}

fn lint_command(root: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jit"));
    cmd.args(["lint", "--json", "--root"])
        .arg(root)
        .env("HOME", &fixture().home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

/// The peak resident memory of one `jit lint` of `root`, by
/// `/usr/bin/time -f %M`; `None` when that program is missing.
fn peak_kib(root: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let lint = lint_command(root);
    let out = Command::new(time)
        .args(["-f", "%M"])
        .arg(lint.get_program())
        .args(lint.get_args())
        .envs(lint.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr.lines().last()?.trim().parse().ok()
}

fn lint(root: &Path) -> String {
    let out = lint_command(root).output().unwrap();
    // Warnings (the limits) and, for the imports, errors: exit 0 or 1.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[divan::bench(sample_count = 5)]
fn lint_4mib_gitignore(bencher: Bencher) {
    let root = &fixture().gitignore;
    assert!(lint(root).contains("MAX_IGNORE_FILE_BYTES"));
    bencher.bench(|| lint(root));
}

#[divan::bench(sample_count = 5)]
fn lint_2000_rules_importing_286_each(bencher: Bencher) {
    let root = &fixture().imports;
    assert!(lint(root).contains("MAX_IMPORTS_PER_RUN"));
    bencher.bench(|| lint(root));
}
