//! The project walk a session start makes (rule index, convention detection) on the 100,000-file tree, through its walk cache and without it, beside the floor the cache's check sets.
//!
//! Run with `cargo bench -p jit-core --bench walk`. The tree is
//! [`bench_tree::Spec::monorepo_100k`] without scoped rules (10,000
//! directories, 250 `CLAUDE.md`/`AGENTS.md`), generated once per run in a
//! temporary directory, left to settle (a directory changed within two
//! seconds of its listing is not kept) and walked once to fill the cache.
//!
//! * `cached`: [`ProjectWalk::with_cache`] with the cache filled and the
//!   tree unchanged, as every session start after the first: the cache read
//!   and parsed, one `statx` per directory, the walk made from the kept
//!   listings, each rule file's `lstat`.
//! * `uncached`: [`ProjectWalk::new`], every directory listed (on up to
//!   four threads, as the walk does).
//! * `floor_cached`: what no cached walk can avoid, timed bare: one
//!   `statx` of every directory the walk visits, from the opened root and
//!   for the fields the cache keeps (as the walk's check asks), on as many
//!   threads as the walk checks them on. `cached` over this is the cache's
//!   own cost (reading it, the walk) beside the check that proves it.
//! * `floor_cached_lstat`: the same with one `lstat` of each absolute path,
//!   as the check asked before.
//! * `cached_cold`, `floor_cached_cold`: `cached` and `floor_cached` with
//!   the CPU's caches evicted before each sample
//!   ([`bench_tree::evict_cpu_caches`], untimed).
//!   Timed back to back, a walk finds the kernel's directory entries and
//!   inodes in the CPU's caches where the last walk left them; a session
//!   start is a new process, minutes after the last, and meets them cold.
//!
//! Without `--bench` (`cargo test --benches`) each runs once, on the same
//! tree.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::sync::OnceLock;
use std::time::Duration;

use bench_tree::{Spec, Tree};
use camino::Utf8PathBuf;
use divan::Bencher;
use jit_core::{ProjectWalk, WalkCache};

struct Fixture {
    _dir: tempfile::TempDir,
    root: Utf8PathBuf,
    cache: WalkCache,
    /// Every directory the walk visits, the root first.
    dirs: Vec<Utf8PathBuf>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = bench_tree::fixture_dir().unwrap();
        let spec = Spec::monorepo_100k().without_scoped_rules();
        let tree: Tree = bench_tree::generate(&dir.path().join("repo"), &spec).unwrap();
        let root = Utf8PathBuf::try_from(tree.root.clone()).unwrap();
        let cache = WalkCache::new(Utf8PathBuf::try_from(dir.path().join("proj.walk")).unwrap());
        std::thread::sleep(Duration::from_millis(2100));
        let first = ProjectWalk::with_cache(&root, &cache);
        let dirs: Vec<Utf8PathBuf> = std::iter::once(root.clone())
            .chain(tree.dirs.iter().map(|d| root.join(d)))
            .collect();
        let report = first.cache_report().unwrap();
        assert_eq!(report.dirs, dirs.len(), "the walk visits every directory");
        assert_eq!(report.problem, None);
        let again = ProjectWalk::with_cache(&root, &cache);
        let report = again.cache_report().unwrap();
        assert_eq!(
            (report.reused, report.dirs),
            (dirs.len(), dirs.len()),
            "every listing reused"
        );
        eprintln!(
            "fixture: {root} ({} directories; the cache {} bytes)",
            dirs.len(),
            std::fs::metadata(cache.file()).unwrap().len()
        );
        Fixture {
            _dir: dir,
            root,
            cache,
            dirs,
        }
    })
}

fn main() {
    fixture();
    divan::main();
    bench_tree::remove_scratch();
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn cached(bencher: Bencher) {
    let fixture = fixture();
    bencher.bench(|| ProjectWalk::with_cache(&fixture.root, &fixture.cache));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn uncached(bencher: Bencher) {
    let fixture = fixture();
    bencher.bench(|| ProjectWalk::new(&fixture.root));
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn floor_cached(bencher: Bencher) {
    let fixture = fixture();
    let below = below_root(fixture);
    let count = |chunk: &[&str]| statx_below(&fixture.root, chunk);
    assert_eq!(
        on_threads(&below, count),
        below.len(),
        "every directory stated"
    );
    bencher.bench(|| on_threads(&below, count));
}

/// `cached` after the CPU's caches were evicted, as a new process meets
/// the tree.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn cached_cold(bencher: Bencher) {
    let fixture = fixture();
    bencher
        .with_inputs(bench_tree::evict_cpu_caches)
        .bench_values(|_lines| ProjectWalk::with_cache(&fixture.root, &fixture.cache));
}

/// `floor_cached` after the CPU's caches were evicted.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn floor_cached_cold(bencher: Bencher) {
    let fixture = fixture();
    let below = below_root(fixture);
    let count = |chunk: &[&str]| statx_below(&fixture.root, chunk);
    bencher
        .with_inputs(bench_tree::evict_cpu_caches)
        .bench_values(|_lines| on_threads(&below, count));
}

/// Every directory the walk visits, relative to the root (`.` for it).
fn below_root(fixture: &Fixture) -> Vec<&str> {
    fixture
        .dirs
        .iter()
        .map(|dir| {
            let rel = dir.strip_prefix(&fixture.root).unwrap().as_str();
            if rel.is_empty() { "." } else { rel }
        })
        .collect()
}

/// `floor_cached` as the cache checked directories before it stated them
/// from the opened root: one `lstat` of each absolute path.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn floor_cached_lstat(bencher: Bencher) {
    let dirs = &fixture().dirs;
    bencher.bench(|| {
        on_threads(dirs, |chunk| {
            chunk
                .iter()
                .filter(|dir| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()))
                .count()
        })
    });
}

/// `count` over `items` cut in one chunk per thread the walk's check uses,
/// each on its own thread: the sum.
fn on_threads<T: Sync>(items: &[T], count: impl Fn(&[T]) -> usize + Sync) -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|chunk| scope.spawn(|| count(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .sum::<usize>()
    })
}

/// The directories of `below` (root-relative) that are directories, by
/// one `statx` each from the opened root for the fields the cache keeps,
/// as the cache's check asks; one `lstat` each off Linux.
#[cfg(target_os = "linux")]
fn statx_below(root: &Utf8PathBuf, below: &[&str]) -> usize {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags, StatxFlags};
    let fields = StatxFlags::TYPE | StatxFlags::INO | StatxFlags::MTIME | StatxFlags::CTIME;
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(root.as_str(), flags, Mode::empty()).unwrap();
    below
        .iter()
        .filter(|rel| {
            rustix::fs::statx(&fd, **rel, AtFlags::SYMLINK_NOFOLLOW, fields)
                .is_ok_and(|st| FileType::from_raw_mode(st.stx_mode.into()) == FileType::Directory)
        })
        .count()
}

#[cfg(not(target_os = "linux"))]
fn statx_below(root: &Utf8PathBuf, below: &[&str]) -> usize {
    below
        .iter()
        .filter(|rel| std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_dir()))
        .count()
}
