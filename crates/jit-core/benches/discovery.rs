//! JIT lookup of a depth-8 file in a generated tree of ~2,000 directories: cold, warm, and the metadata floor.
//!
//! Run with `cargo bench -p jit-core --bench discovery`.
//!
//! * `floor_probes`: the metadata probes no walk can avoid: on each of the 9
//!   directories from the root to the file, one probe per top-level candidate
//!   name (`CLAUDE.md`, `.claude.md`, `claude.md`, `CLAUDE.local.md`, `.claude`).
//! * `floor_probes_and_containment`: the same plus the one `lstat` per
//!   directory that realpath-at-every-step containment needs.
//! * `cold`: a fresh session's discovery (nothing cached).
//! * `warm`: the chain is already scanned; a sibling file is touched.
//! * `cold_with_rules`: a fresh session whose chain holds three rule files
//!   (root `CLAUDE.md`, a nested one, a scoped `.claude/rules` file), read and
//!   parsed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use camino::Utf8PathBuf;
use divan::Bencher;
use jit_core::{DiscoveryState, Engine};

const CHAIN: [&str; 8] = [
    "app",
    "src",
    "features",
    "billing",
    "ui",
    "components",
    "forms",
    "inputs",
];
const TOP_LEVEL_CANDIDATES: [&str; 5] = [
    "CLAUDE.md",
    ".claude.md",
    "claude.md",
    "CLAUDE.local.md",
    ".claude",
];

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

/// ~2,000 directories: 40 top-level folders of 50 sub-folders each, rule
/// files scattered off the chain, plus the depth-8 chain.
fn build(rules_on_chain: bool) -> Tree {
    let dir = bench_tree::fixture_dir().unwrap();
    let root = dir.path().join("proj");
    for i in 0..40 {
        for j in 0..50 {
            fs::create_dir_all(root.join(format!("t{i}/s{j}"))).unwrap();
        }
        if i % 4 == 0 {
            fs::write(root.join(format!("t{i}/CLAUDE.md")), "scattered rule\n").unwrap();
        }
    }
    let mut chain = root.clone();
    for part in CHAIN {
        chain.push(part);
        fs::create_dir_all(&chain).unwrap();
        fs::write(chain.join("neighbour.txt"), "x").unwrap();
    }
    fs::write(chain.join("TextField.tsx"), "x").unwrap();
    fs::write(chain.join("NumberField.tsx"), "x").unwrap();
    if rules_on_chain {
        fs::write(
            root.join("CLAUDE.md"),
            "# Root\n\n- Tests with every change.\n",
        )
        .unwrap();
        fs::write(
            root.join("app/src/features/billing/CLAUDE.md"),
            "# Billing\n\n- Money is integer cents.\n",
        )
        .unwrap();
        fs::create_dir_all(root.join(".claude/rules")).unwrap();
        fs::write(
            root.join(".claude/rules/ui.md"),
            "---\npaths: [\"app/src/**/ui/**/*.tsx\"]\n---\n# UI\n\n- No colour emoji.\n",
        )
        .unwrap();
    }
    Tree { _dir: dir, root }
}

fn plain_tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| build(false))
}

fn ruled_tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| build(true))
}

fn target(file: &str) -> Utf8PathBuf {
    let mut path = Utf8PathBuf::new();
    for part in CHAIN {
        path.push(part);
    }
    path.push(file);
    path
}

fn chain_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut current = root.to_path_buf();
    for part in CHAIN {
        current.push(part);
        dirs.push(current.clone());
    }
    dirs
}

fn main() {
    divan::main();
    // The trees sit in statics, which are never dropped.
    bench_tree::remove_scratch();
}

#[divan::bench]
fn floor_probes(bencher: Bencher) {
    let dirs = chain_dirs(&fs::canonicalize(&plain_tree().root).unwrap());
    bencher.bench(|| {
        let mut found = 0;
        for dir in &dirs {
            for name in TOP_LEVEL_CANDIDATES {
                found += usize::from(fs::symlink_metadata(dir.join(name)).is_ok());
            }
        }
        found
    });
}

#[divan::bench]
fn floor_probes_and_containment(bencher: Bencher) {
    let dirs = chain_dirs(&fs::canonicalize(&plain_tree().root).unwrap());
    bencher.bench(|| {
        let mut found = 0;
        for dir in &dirs {
            found += usize::from(fs::symlink_metadata(dir).is_ok());
            for name in TOP_LEVEL_CANDIDATES {
                found += usize::from(fs::symlink_metadata(dir.join(name)).is_ok());
            }
        }
        found
    });
}

#[divan::bench]
fn cold(bencher: Bencher) {
    let engine = Engine::new(&plain_tree().root).unwrap();
    let path = target("TextField.tsx");
    bencher
        .with_inputs(DiscoveryState::default)
        .bench_local_refs(|state| engine.discover(state, &path, engine.root()));
}

#[divan::bench]
fn warm(bencher: Bencher) {
    let engine = Engine::new(&plain_tree().root).unwrap();
    let mut state = DiscoveryState::default();
    engine.discover(&mut state, &target("TextField.tsx"), engine.root());
    let sibling = target("NumberField.tsx");
    bencher.bench_local(|| engine.discover(&mut state, &sibling, engine.root()));
}

#[divan::bench]
fn cold_with_rules(bencher: Bencher) {
    let engine = Engine::new(&ruled_tree().root).unwrap();
    let path = target("TextField.tsx");
    let probe = engine.discover(&mut DiscoveryState::default(), &path, engine.root());
    assert_eq!(probe.loaded.len(), 3, "{probe:?}");
    bencher
        .with_inputs(DiscoveryState::default)
        .bench_local_refs(|state| engine.discover(state, &path, engine.root()));
}

#[divan::bench]
fn warm_with_rules(bencher: Bencher) {
    let engine = Engine::new(&ruled_tree().root).unwrap();
    let mut state = DiscoveryState::default();
    engine.discover(&mut state, &target("TextField.tsx"), engine.root());
    let sibling = target("NumberField.tsx");
    bencher.bench_local(|| engine.discover(&mut state, &sibling, engine.root()));
}
