//! JIT discovery on a realistic 20,000-file monorepo (the `bench-tree` generator): cold, warm sibling, warm same file, and the syscall floor under each.
//!
//! Run with `cargo bench -p jit-core --bench realistic`. The tree is
//! [`bench_tree::Spec::monorepo_20k`], generated once per run in a temporary
//! directory: 2,000 directories up to 8 deep, 50 `CLAUDE.md`/`AGENTS.md`, a
//! root `CLAUDE.md` importing four files, a dozen scoped rules in the root's
//! `.claude/rules` and a nested `.claude/rules` on the benchmark chain. The
//! benchmarked file sits 8 directories down with 8 Claude rules on its chain
//! (five `CLAUDE.md`, three scoped rules whose `paths:` match it); the
//! engine is the default one (the Claude convention), so the chain's two
//! `AGENTS.md` are not candidates here.
//!
//! * `cold`: a fresh `Engine` and `DiscoveryState` (a new process's first
//!   touch) discover the deep file: every level scanned, every rule read
//!   and parsed, the root's imports expanded.
//! * `warm_sibling`: the state that has discovered the deep file discovers
//!   the file next to it.
//! * `warm_same_file`: the same state touches the deep file again.
//! * `warm_sibling_watched`, `warm_same_file_watched`: the same in an
//!   engine that watches the tree (`Engine::watch`, Linux), as a process
//!   that stays runs it.
//! * `floor_warm`: the syscalls no warm touch can avoid, timed bare.
//! * `floor_warm_fresh`: `floor_warm` plus the stats freshness adds (rule
//!   folders, scoped rules not loaded yet, the touched path's kind).
//! * `floor_cold_listing` and `floor_cold_probes`: the syscalls no cold
//!   touch can avoid, with one directory listing per level or one probe per
//!   candidate name per level.
//!
//! After the benchmarks, a run with `--bench` prints `warm_sibling`,
//! `floor_warm_fresh` and `floor_warm` timed interleaved (50 of each in
//! turn, 200 rounds) and the median of each round's ratios: the warm
//! target is a ratio, and divan times each side on its own.
//!
//! The page cache is warm for every benchmark: "cold" is the engine's
//! caches, not the disk's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use bench_tree::{Spec, Tree};
use camino::Utf8PathBuf;
use divan::Bencher;
use jit_core::{DiscoveryState, Engine};

struct Fixture {
    _dir: tempfile::TempDir,
    tree: Tree,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = bench_tree::fixture_dir().unwrap();
        let tree = bench_tree::generate(&dir.path().join("repo"), &Spec::monorepo_20k()).unwrap();
        check_engine_agrees(&tree);
        Fixture { _dir: dir, tree }
    })
}

/// The benchmarks measure nothing unless a touch of the deep file loads the
/// chain's rules and the root's imports, and a touch of its sibling loads
/// nothing new: check it once.
fn check_engine_agrees(tree: &Tree) {
    let engine = Engine::new(&tree.root).unwrap();
    let mut state = DiscoveryState::default();
    let first = engine.discover(&mut state, &deep(tree), engine.root());
    let rules: BTreeSet<&str> = first
        .loaded
        .iter()
        .filter(|l| l.included_by.is_none())
        .map(|l| l.file.as_str())
        .collect();
    let expected: BTreeSet<&str> = tree.chain_rules.iter().map(String::as_str).collect();
    assert_eq!(rules, expected, "{first:#?}");
    assert_eq!(rules.len(), 8);
    let imports: BTreeSet<&str> = first
        .loaded
        .iter()
        .filter(|l| l.included_by.is_some())
        .map(|l| l.file.as_str())
        .collect();
    let expected: BTreeSet<&str> = tree.imports.iter().map(String::as_str).collect();
    assert_eq!(imports, expected, "{first:#?}");
    let sibling = engine.discover(&mut state, &sibling(tree), engine.root());
    assert!(sibling.loaded.is_empty(), "{sibling:#?}");
}

fn deep(tree: &Tree) -> Utf8PathBuf {
    Utf8PathBuf::from(&tree.deep_file)
}

fn sibling(tree: &Tree) -> Utf8PathBuf {
    Utf8PathBuf::from(&tree.sibling_file)
}

/// The directories from the root down to the deep file's, absolute.
fn chain_dirs(tree: &Tree) -> Vec<PathBuf> {
    let mut dirs = vec![tree.root.clone()];
    let mut current = tree.root.clone();
    let parts: Vec<&str> = tree.deep_file.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        current.push(part);
        dirs.push(current.clone());
    }
    dirs
}

/// The `.claude/rules` folders of the chain's directories, absolute.
fn chain_rule_folders(tree: &Tree) -> Vec<PathBuf> {
    chain_dirs(tree)
        .into_iter()
        .map(|dir| dir.join(".claude/rules"))
        .filter(|folder| folder.is_dir())
        .collect()
}

/// Every file a cold touch must read: each `CLAUDE.md` on the chain, every
/// rule in the chain's `.claude/rules` folders (the ones whose `paths:`
/// miss the file too: their frontmatter must be read to know it), and the
/// root `CLAUDE.md`'s imports, which its block inlines.
fn cold_reads(tree: &Tree) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = tree
        .chain_rules
        .iter()
        .filter(|rule| !rule.contains(".claude/rules/"))
        .map(|rule| tree.root.join(rule))
        .collect();
    for folder in chain_rule_folders(tree) {
        for entry in fs::read_dir(folder).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.extend(tree.imports.iter().map(|i| tree.root.join(i)));
    files
}

fn main() {
    let tree = &fixture().tree;
    eprintln!(
        "fixture: {} ({} files in {} directories; {} rules on the chain of {}; a cold touch \
         reads {} files)",
        tree.root.display(),
        tree.files,
        tree.dirs.len(),
        tree.chain_rules.len(),
        tree.deep_file,
        cold_reads(tree).len()
    );
    divan::main();
    // divan times each benchmark on its own, minutes apart on a long run;
    // the warm target is a ratio to a floor, so the two are also timed
    // interleaved, which spreads a busy machine's noise over both.
    // `cargo bench` passes `--bench`; `cargo test --benches` does not.
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let listing = std::env::args().any(|arg| arg == "--list");
    if benchmarking && !listing {
        interleaved(tree, 200, 50);
    }
    // The fixtures sit in statics, which are never dropped.
    bench_tree::remove_scratch();
}

/// `warm_sibling`, `floor_warm_fresh` and `floor_warm` timed in turn,
/// `batch` touches or floors each, `rounds` times: the medians of the
/// three and of each round's ratios.
fn interleaved(tree: &Tree, rounds: usize, batch: usize) {
    let engine = Engine::new(&tree.root).unwrap();
    let mut warm = DiscoveryState::default();
    engine.discover(&mut warm, &deep(tree), engine.root());
    let path = sibling(tree);
    let (dirs, rules) = warm_floor_paths(tree);
    let extra = fresh_floor_paths(tree, &rules);
    let per_touch = |started: Instant| started.elapsed().as_secs_f64() * 1e6 / batch as f64;
    let (mut touch, mut fresh, mut floor) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        // Each touch on its own clone, made before the clock starts, as
        // in `warm_sibling`; the discoveries are dropped after it stops.
        let mut states = vec![warm.clone(); batch];
        let started = Instant::now();
        let found: Vec<_> = states
            .iter_mut()
            .map(|state| engine.discover(state, &path, engine.root()))
            .collect();
        touch.push(per_touch(started));
        drop(divan::black_box(found));
        let started = Instant::now();
        for _ in 0..batch {
            divan::black_box(stat_floor(&dirs, rules.iter().chain(&extra)));
        }
        fresh.push(per_touch(started));
        let started = Instant::now();
        for _ in 0..batch {
            divan::black_box(stat_floor(&dirs, &rules));
        }
        floor.push(per_touch(started));
    }
    let ratios = |over: &[f64]| median(touch.iter().zip(over).map(|(t, f)| t / f).collect());
    let (fresh_ratio, floor_ratio) = (ratios(&fresh), ratios(&floor));
    eprintln!(
        "interleaved medians over {rounds} rounds of {batch}: warm_sibling {:.2} µs, \
         floor_warm_fresh {:.2} µs (ratio {fresh_ratio:.2}), floor_warm {:.2} µs \
         (ratio {floor_ratio:.2})",
        median(touch),
        median(fresh),
        median(floor)
    );
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// A new process's first touch: a fresh engine and state discover the deep
/// file.
#[divan::bench]
fn cold(bencher: Bencher) {
    let tree = &fixture().tree;
    let path = deep(tree);
    bencher
        .with_inputs(DiscoveryState::default)
        .bench_local_refs(|state| {
            let engine = Engine::new(&tree.root).unwrap();
            engine.discover(state, &path, engine.root())
        });
}

/// The touch of a file next to one already discovered.
///
/// Each sample starts from a clone of the state that has discovered the
/// deep file and nothing else (the clone is made outside the timed
/// region), so every sample is exactly the first touch of the sibling, as a
/// session makes it. Touching the sibling again and again in one state
/// would time its second and later touches instead, which a session makes
/// too but which is `warm_same_file`'s case; alternating two siblings would
/// also leave each warm after one round. The clone costs some cache
/// warmth (its hash maps are new allocations), which only makes the figure
/// a little pessimistic.
#[divan::bench]
fn warm_sibling(bencher: Bencher) {
    let tree = &fixture().tree;
    let engine = Engine::new(&tree.root).unwrap();
    let mut warm = DiscoveryState::default();
    engine.discover(&mut warm, &deep(tree), engine.root());
    let path = sibling(tree);
    bencher
        .with_inputs(|| warm.clone())
        .bench_local_refs(|state| engine.discover(state, &path, engine.root()));
}

/// The deep file touched again by the state that discovered it (every
/// sample is the same warm touch: a repeated touch changes nothing).
#[divan::bench]
fn warm_same_file(bencher: Bencher) {
    let tree = &fixture().tree;
    let engine = Engine::new(&tree.root).unwrap();
    let mut state = DiscoveryState::default();
    engine.discover(&mut state, &deep(tree), engine.root());
    let path = deep(tree);
    bencher.bench_local(|| engine.discover(&mut state, &path, engine.root()));
}

/// `warm_sibling` in an engine that watches the tree ([`Engine::watch`]),
/// as a harness or a server that stays would run it: the touch reads the
/// kernel's event queue once and takes no `stat` of what it proves
/// unchanged; only the touched path's own `stat` (is it a directory?) is
/// taken, as on every touch. Every sample is the sibling's first touch in
/// a clone of the state that touched only the deep file, as in
/// `warm_sibling`; the watch is the engine's, remembered across samples as
/// across a session's touches.
#[divan::bench]
fn warm_sibling_watched(bencher: Bencher) {
    let tree = &fixture().tree;
    let engine = watched_engine(tree);
    let mut warm = DiscoveryState::default();
    engine.discover(&mut warm, &deep(tree), engine.root());
    let path = sibling(tree);
    engine.discover(&mut warm.clone(), &path, engine.root());
    let asked = engine.watch_stats().unwrap().asked;
    bencher
        .with_inputs(|| warm.clone())
        .bench_local_refs(|state| engine.discover(state, &path, engine.root()));
    assert_eq!(
        engine.watch_stats().unwrap().asked,
        asked,
        "a sample took a stat"
    );
}

/// `warm_same_file` in an engine that watches the tree, once its first
/// warm touch has set the watches (as in `warm_sibling_watched`).
#[divan::bench]
fn warm_same_file_watched(bencher: Bencher) {
    let tree = &fixture().tree;
    let engine = watched_engine(tree);
    let mut state = DiscoveryState::default();
    let path = deep(tree);
    engine.discover(&mut state, &path, engine.root());
    engine.discover(&mut state, &path, engine.root());
    bencher.bench_local(|| engine.discover(&mut state, &path, engine.root()));
}

fn watched_engine(tree: &Tree) -> Engine {
    let mut engine = Engine::new(&tree.root).unwrap();
    engine.watch().expect("inotify (Linux)");
    engine
}

/// The warm floor: what a warm touch must still ask the filesystem to know
/// that nothing changed. One `symlink_metadata` (lstat) per level of the
/// chain, the root and the file's own directory included (9: any level may
/// have become a symlink, gained or lost a rule), plus one `metadata`
/// (stat) per rule file loaded on the chain (8: any may have been edited).
/// The four imported files are not counted.
#[divan::bench]
fn floor_warm(bencher: Bencher) {
    let (dirs, rules) = warm_floor_paths(&fixture().tree);
    bencher.bench(|| stat_floor(&dirs, &rules));
}

/// The paths [`floor_warm`] stats: the chain's levels (`lstat`) and its
/// loaded rules (`stat`).
fn warm_floor_paths(tree: &Tree) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dirs = chain_dirs(tree);
    let rules: Vec<PathBuf> = tree.chain_rules.iter().map(|r| tree.root.join(r)).collect();
    assert_eq!((dirs.len(), rules.len()), (9, 8));
    (dirs, rules)
}

/// One `lstat` of each of `dirs` and one `stat` of each of `files`: how
/// many succeeded.
fn stat_floor<'a>(dirs: &[PathBuf], files: impl IntoIterator<Item = &'a PathBuf>) -> usize {
    let mut ok = 0;
    for dir in dirs {
        ok += usize::from(fs::symlink_metadata(dir).is_ok());
    }
    for file in files {
        ok += usize::from(fs::metadata(file).is_ok());
    }
    ok
}

/// The warm floor with what freshness adds on this tree (DESIGN §9: an
/// edited rule is read again on the next touch of its directory): the
/// [`floor_warm`] probes, plus one `metadata` per rule folder on the chain
/// and its parent (`.claude` and `.claude/rules`, at the root and the nested
/// one: a rule added or removed there changes them, not the level), plus
/// one `metadata` per scoped rule on the chain that has not loaded (an edit
/// may widen its `paths:` to the next file), plus the one `metadata` that
/// tells whether the touched path is a directory. This is what the engine's
/// warm sibling touch stats; `warm_sibling` over this is its own overhead.
#[divan::bench]
fn floor_warm_fresh(bencher: Bencher) {
    let tree = &fixture().tree;
    let (dirs, rules) = warm_floor_paths(tree);
    let extra = fresh_floor_paths(tree, &rules);
    bencher.bench(|| stat_floor(&dirs, rules.iter().chain(&extra)));
}

/// The paths [`floor_warm_fresh`] stats beyond [`floor_warm`]'s: the rule
/// folders on the chain and their parents, the scoped rules in them that
/// have not loaded (not in `rules`), and the touched sibling.
fn fresh_floor_paths(tree: &Tree, rules: &[PathBuf]) -> Vec<PathBuf> {
    let mut extra: Vec<PathBuf> = Vec::new();
    for folder in &chain_rule_folders(tree) {
        extra.extend(folder.parent().map(PathBuf::from));
        extra.push(folder.clone());
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if !rules.contains(&path) {
                extra.push(path);
            }
        }
    }
    extra.push(tree.root.join(&tree.sibling_file));
    extra
}

/// The cold floor with listings: per level of the chain (9), one `lstat`
/// of the directory and one listing of it (`read_dir` read to its end),
/// which names every candidate present; one listing of each `.claude/rules`
/// folder on the chain (2: the root's, the nested one); then every file
/// [`cold_reads`] names read whole (5 `CLAUDE.md`, 14 scoped rules, 4
/// imports). No parsing, matching or path resolution.
#[divan::bench]
fn floor_cold_listing(bencher: Bencher) {
    let tree = &fixture().tree;
    let dirs = chain_dirs(tree);
    let folders = chain_rule_folders(tree);
    let reads = cold_reads(tree);
    assert_eq!((dirs.len(), folders.len(), reads.len()), (9, 2, 23));
    bencher.bench(|| {
        let mut seen = 0;
        for dir in &dirs {
            seen += usize::from(fs::symlink_metadata(dir).is_ok());
            seen += fs::read_dir(dir).unwrap().count();
        }
        for folder in &folders {
            seen += fs::read_dir(folder).unwrap().count();
        }
        for file in &reads {
            seen += fs::read(file).unwrap().len();
        }
        seen
    });
}

/// The Claude convention's candidate names in a directory, and its rule
/// folder's parent: what a probe-per-name scan stats at each level.
const CLAUDE_PROBES: [&str; 7] = [
    "CLAUDE.md",
    ".claude.md",
    "claude.md",
    ".claude/CLAUDE.md",
    ".claude/instructions.md",
    "CLAUDE.local.md",
    ".claude/rules",
];

/// The cold floor with probes instead of listings: per level of the chain
/// (9), one `lstat` of the directory and one `lstat` per name in
/// [`CLAUDE_PROBES`] (7); one listing of each `.claude/rules` folder found
/// (2); then the same reads as `floor_cold_listing` (23 files).
#[divan::bench]
fn floor_cold_probes(bencher: Bencher) {
    let tree = &fixture().tree;
    let dirs = chain_dirs(tree);
    let folders = chain_rule_folders(tree);
    let reads = cold_reads(tree);
    bencher.bench(|| {
        let mut seen = 0;
        for dir in &dirs {
            seen += usize::from(fs::symlink_metadata(dir).is_ok());
            for name in CLAUDE_PROBES {
                seen += usize::from(fs::symlink_metadata(dir.join(name)).is_ok());
            }
        }
        for folder in &folders {
            seen += fs::read_dir(folder).unwrap().count();
        }
        for file in &reads {
            seen += fs::read(file).unwrap().len();
        }
        seen
    });
}
