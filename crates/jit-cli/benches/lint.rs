//! Whole-process wall time of `jit lint` on a 20,000-file repository with rules on the chain, `@` imports and a dozen scoped rules (half of whose patterns match nothing, the slowest case of the dead-scope check), with and without git.
//!
//! Run with `cargo bench -p jit-cli --bench lint`. The tree is the one the
//! hook and replay benchmarks use (`common/tree.rs`); the git variant is the
//! same tree committed, so the index is read too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use divan::Bencher;

#[path = "common/tree.rs"]
mod tree;

struct Fixture {
    _dir: tempfile::TempDir,
    plain: PathBuf,
    git: PathBuf,
    /// An empty home directory: `jit lint` reads the user's rules there,
    /// and a benchmark reads none of the real user's.
    home: PathBuf,
}

fn main() {
    let fixture = fixture();
    eprintln!(
        "fixture: {} (plain) and {} (git)",
        fixture.plain.display(),
        fixture.git.display()
    );
    divan::main();
    // The fixtures sit in statics, which are never dropped.
    bench_tree::remove_scratch();
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = bench_tree::fixture_dir().unwrap();
        let plain = dir.path().join("plain");
        let git = dir.path().join("git");
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let (files, _) = tree::ruled_tree(&plain);
        assert!(files >= 20_000 && plain.join(tree::DEEP).is_dir());
        tree::ruled_tree(&git);
        for args in [
            &["init", "-q"][..],
            &["add", "-A"],
            &[
                "-c",
                "user.email=b@example.com",
                "-c",
                "user.name=b",
                "commit",
                "-qm",
                "tree",
            ],
        ] {
            let status = Command::new("git")
                .args(args)
                .current_dir(&git)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .status()
                .unwrap();
            assert!(status.success());
        }
        Fixture {
            _dir: dir,
            plain,
            git,
            home,
        }
    })
}

fn lint(root: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(["lint", "--json", "--root"])
        .arg(root)
        .env("HOME", &fixture().home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    // The tree's scoped rules include patterns that match nothing: warnings,
    // so the exit status is 0.
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[divan::bench(sample_count = 10)]
fn lint_20000_files_plain(bencher: Bencher) {
    let root = &fixture().plain;
    assert!(lint(root).contains("dead_scope"));
    bencher.bench(|| lint(root));
}

#[divan::bench(sample_count = 10)]
fn lint_20000_files_git(bencher: Bencher) {
    let root = &fixture().git;
    assert!(lint(root).contains("dead_scope"));
    bencher.bench(|| lint(root));
}
