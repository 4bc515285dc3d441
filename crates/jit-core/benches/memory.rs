//! Heap held by one `Engine` and its `DiscoveryState` after a file in every directory of a generated monorepo has been discovered.
//!
//! Run with `cargo bench -p jit-core --bench memory`. A counting global
//! allocator (`bench_tree::CountingAlloc`: the system allocator plus a count
//! of live bytes) is read before the engine is made and after one file of
//! every directory has been discovered, in the trees of
//! `bench_tree::Spec::monorepo_20k` and `monorepo_100k` (2,000 and 10,000
//! directories with rules, imports and scoped rules). The difference is
//! what the engine and the state hold (requested sizes, without the
//! allocator's own overhead); the discoveries' results are dropped as they
//! come. It is printed in all and per 2,000 directories, the unit the
//! state grows by in a session that roams the repository.
//!
//! A benchmarking run fails when the default engine holds more than the
//! target, 1 MiB per 2,000 directories, on either tree.
//!
//! Then the same with `Engine::watch`, every file touched twice, to show
//! what the watch adds and how many directories it watches.
//!
//! Without `--bench` (`cargo test --benches`) it runs on a small tree only,
//! to check that the measurement works.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use bench_tree::{CountingAlloc, Spec};
use camino::Utf8Path;
use jit_core::{DiscoveryState, Engine};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let specs = if benchmarking {
        vec![
            ("20k", Spec::monorepo_20k()),
            ("100k", Spec::monorepo_100k()),
        ]
    } else {
        vec![(
            "small",
            Spec {
                files: 2_000,
                dirs: 200,
                memory_files: 20,
                ..Spec::monorepo_20k()
            },
        )]
    };
    for (name, spec) in specs {
        let per_2000 = measure(name, &spec);
        // The target (1 MiB per 2,000 scanned directories) holds for the
        // default engine on the generated trees; a small tree's fixed part
        // weighs too much per directory to hold it to the same figure.
        assert!(
            !benchmarking || per_2000 <= TARGET_PER_2000,
            "{name}: {per_2000:.0} bytes per 2,000 directories, over the target of \
             {TARGET_PER_2000} (1 MiB)"
        );
        measure_watched(name, &spec);
    }
}

/// The most heap the default engine and its state may hold per 2,000
/// scanned directories: 1 MiB.
const TARGET_PER_2000: f64 = 1_048_576.0;

/// Measures the default engine on `spec`'s tree; returns the bytes held
/// per 2,000 directories.
fn measure(name: &str, spec: &Spec) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let tree = bench_tree::generate(&dir.path().join("repo"), spec).unwrap();
    let files: Vec<&Utf8Path> = tree.dir_files.iter().map(Utf8Path::new).collect();
    let before = ALLOC.live_bytes();
    let engine = Engine::new(&tree.root).unwrap();
    let mut state = DiscoveryState::default();
    let mut loaded = 0;
    for file in &files {
        loaded += engine
            .discover(&mut state, file, engine.root())
            .loaded
            .len();
    }
    let held = ALLOC.live_bytes() - before;
    // One rule at least per directory holding one, or nothing was read.
    assert!(loaded >= tree.memory_files.len() / 2, "{loaded}");
    assert!(state.is_loaded(&engine.root().join("CLAUDE.md")));
    let dirs = tree.dirs.len() + 1;
    let per_2000 = held as f64 * 2_000.0 / dirs as f64;
    eprintln!(
        "{name}: Engine + DiscoveryState after touching a file in each of {dirs} directories \
         ({loaded} rules loaded): {held} bytes live, {per_2000:.0} bytes per 2,000 directories"
    );
    drop((engine, state));
    per_2000
}

/// The same with [`Engine::watch`], every file touched twice (the second
/// pass's freshness checks are what the watch remembers): the heap the
/// watch adds, and how many directories it watches. The kernel's own
/// memory for each watch is not in the figure.
fn measure_watched(name: &str, spec: &Spec) {
    let dir = tempfile::tempdir().unwrap();
    let tree = bench_tree::generate(&dir.path().join("repo"), spec).unwrap();
    let files: Vec<&Utf8Path> = tree.dir_files.iter().map(Utf8Path::new).collect();
    let before = ALLOC.live_bytes();
    let mut engine = Engine::new(&tree.root).unwrap();
    if let Err(err) = engine.watch() {
        eprintln!("{name}, watched: no watch here ({err})");
        return;
    }
    let mut state = DiscoveryState::default();
    for _ in 0..2 {
        for file in &files {
            drop(engine.discover(&mut state, file, engine.root()));
        }
    }
    let held = ALLOC.live_bytes() - before;
    let stats = engine.watch_stats().unwrap();
    assert!(stats.remembered > files.len(), "{stats:?}");
    let dirs = tree.dirs.len() + 1;
    eprintln!(
        "{name}, watched: Engine + DiscoveryState after touching a file in each of {dirs} \
         directories twice: {held} bytes live, {:.0} bytes per 2,000 directories; {} \
         directories watched, {} paths remembered",
        held as f64 * 2_000.0 / dirs as f64,
        stats.dirs,
        stats.remembered
    );
    drop((engine, state));
}
