//! Whole-process wall time of a fresh `jit` process's first touch of a deep file in the generated 20,000-file monorepo, and of `jit startup` on the 100,000-file one beside `git status`.
//!
//! Run with `cargo bench -p jit-cli --bench first_touch`. The trees come
//! from the `bench-tree` generator, each made once per run in a temporary
//! directory:
//!
//! * `first_touch_fresh_process`: `jit explain --no-startup --json --root
//!   TREE DEEP_FILE` on [`bench_tree::Spec::monorepo_20k`], the first touch
//!   of a file 8 directories down with 8 Claude rules and two `AGENTS.md` on
//!   its chain, in a new process each sample (conventions detected as the
//!   command does by default). divan times the whole process; the engine's
//!   own `elapsed_us` for the step (from the JSON) is printed once, its
//!   median over 30 runs, to stderr.
//! * `startup_root`, `startup_cwd` and `git_status`: `jit startup --json` at
//!   the root and with `--cwd services/billing`, and `git status --porcelain
//!   -z -uall`, on [`bench_tree::Spec::monorepo_100k`] committed to git
//!   (`scoped`), and on the same tree without any scoped rule (`unscoped`:
//!   no `.claude` folder anywhere), also with the rule index off and the
//!   conventions named (`unscoped_no_index`: `--conventions claude,agents
//!   --no-index`, so that nothing walks the project; checked once to load
//!   the same as `unscoped`). Each startup runs with its walk cache
//!   filled (the fixture settles two seconds, then walks once), and without
//!   it (`_no_cache`: `JIT_WALK_CACHE=off`, every directory listed). The
//!   engine's own `elapsed_us` of each startup is printed too. `cached` is
//!   the scoped tree with git's untracked cache on and written for `-uall`
//!   (`core.untrackedCache`, `status.showUntrackedFiles=all`, as a large
//!   repository may set them), so that `git status` and `jit startup` both
//!   read it, and three untracked files (one in a new directory).
//! * `process_floor`: `jit --version`, what any fresh process of the binary
//!   costs, for the two above.
//! * `first_touch_fresh_process_cold`, `process_floor_cold`: the same two
//!   with the CPU's caches evicted before each process
//!   ([`bench_tree::evict_cpu_caches`], untimed). Run back to back, each
//!   process finds the binary's code and the kernel's directory entries in
//!   the caches where the one before left them; a hook call after the agent
//!   paused finds them cold. The engine's cold `elapsed_us` is printed too.
//!
//! `JIT_BENCH_BIN=PATH` times another build of `jit` with the same
//! benchmarks (a statically linked one, say: see docs/PERFORMANCE.md).
//! `JIT_BENCH_BASE=PATH` then also times a second build beside it: the
//! first touch and each startup case, the two builds alternating from
//! copies made together, `git status` in the same rounds.
//!
//! Every process runs with an empty temporary `HOME` (its state directory,
//! where the walk cache lives, under it), so no user rules are read.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bench_tree::{Spec, Tree};
use divan::Bencher;

#[path = "common/bin.rs"]
mod bin;

#[path = "common/measure.rs"]
mod measure;
use measure::{median, timed_ms};

/// The `--cwd` of `startup_cwd`: a package two levels down, on the chain.
const CWD: &str = "services/billing";

/// The untracked files of the `cached` variant: one in a tracked directory,
/// two in a new one.
const UNTRACKED: [&str; 3] = [
    "services/billing/notes.md",
    "new/tool/run.py",
    "new/tool/lib.py",
];

struct Repo {
    _dir: tempfile::TempDir,
    tree: Tree,
    home: PathBuf,
}

fn repo(spec: &Spec) -> Repo {
    let dir = bench_tree::fixture_dir().unwrap();
    let tree = bench_tree::generate(&dir.path().join("repo"), spec).unwrap();
    let home = dir.path().join("home");
    fs::create_dir_all(&home).unwrap();
    Repo {
        _dir: dir,
        tree,
        home,
    }
}

/// The 20k tree (no git: `explain --root` needs none).
fn touch_repo() -> &'static Repo {
    static REPO: OnceLock<Repo> = OnceLock::new();
    REPO.get_or_init(|| {
        let repo = repo(&Spec::monorepo_20k());
        // The benchmark measures nothing unless the touch loads the chain.
        let doc = first_touch_once(&repo);
        let loaded: Vec<&str> = doc["steps"][0]["loaded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["file"].as_str().unwrap())
            .collect();
        for rule in repo.tree.chain_rules.iter().chain(&repo.tree.chain_agents) {
            assert!(loaded.contains(&rule.as_str()), "{rule} not in {loaded:?}");
        }
        repo
    })
}

/// The 100k tree committed to git, with scoped rules or without any, or
/// with scoped rules and git's untracked cache (`cached`).
fn startup_repo(variant: &str) -> &'static Repo {
    static SCOPED: OnceLock<Repo> = OnceLock::new();
    static UNSCOPED: OnceLock<Repo> = OnceLock::new();
    static CACHED: OnceLock<Repo> = OnceLock::new();
    let (cell, spec) = match variant {
        "scoped" => (&SCOPED, Spec::monorepo_100k().with_git()),
        "unscoped" => (
            &UNSCOPED,
            Spec::monorepo_100k().with_git().without_scoped_rules(),
        ),
        "cached" => (&CACHED, Spec::monorepo_100k().with_git()),
        other => panic!("unknown variant {other}"),
    };
    cell.get_or_init(|| {
        let repo = repo(&spec);
        if variant == "cached" {
            for (key, value) in [
                ("core.untrackedCache", "true"),
                ("status.showUntrackedFiles", "all"),
            ] {
                git(&repo, &["config", key, value]);
            }
            for file in UNTRACKED {
                let path = repo.tree.root.join(file);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, "untracked\n").unwrap();
            }
        }
        // Directories changed within two seconds of a walk are not kept in
        // its cache (nor in git's, within the second the index is written):
        // let the fresh tree settle, then walk once to fill it (the
        // `_no_cache` variants walk without it).
        std::thread::sleep(std::time::Duration::from_millis(2100));
        if variant == "cached" {
            // `git status` writes its untracked cache into the index.
            git(&repo, &["status", "--porcelain"]);
        }
        let doc = startup_once(&repo, None, true);
        let loaded = doc["loaded"].as_array().unwrap();
        assert!(
            loaded.iter().any(|l| l["file"] == "CLAUDE.md"),
            "{}",
            doc["loaded"]
        );
        if variant == "cached" {
            let signals = doc["signals"].as_array().unwrap();
            for file in UNTRACKED {
                assert!(
                    signals.iter().any(|s| s == file),
                    "{file} not in {signals:?}"
                );
            }
        }
        repo
    })
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and
    // only runs each benchmark once.
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let listing = std::env::args().any(|arg| arg == "--list");
    if benchmarking && !listing {
        engine_medians();
    }
    divan::main();
    if benchmarking
        && !listing
        && let Some(base) = bin::fresh_base()
    {
        beside(base);
    }
    // The fixtures sit in statics, which are never dropped.
    bench_tree::remove_scratch();
}

/// `JIT_BENCH_BASE` set: the build under test and `base` alternating on
/// the same trees, from copies made together just before, each with its
/// own home (so its own walk cache, filled by a first run), `git status`
/// in the same rounds for the startup ratios. Medians to stderr.
fn beside(base: &Path) {
    let bins = [bin::jit_bin(), base];
    let repo = touch_repo();
    let homes = [repo.home.clone(), base_home(repo)];
    let mut touch = [vec![], vec![]];
    for n in 0..30 {
        for i in [n % 2, 1 - n % 2] {
            let args = first_touch_args(repo);
            touch[i].push(timed_ms(|| run(bins[i], &homes[i], repo, &args, true)));
        }
    }
    let [touch, touch_base] = touch.map(median);
    eprintln!(
        "beside JIT_BENCH_BASE, 30 alternating runs: first touch {touch:.2} ms (base {touch_base:.2} ms)"
    );
    for variant in ["scoped", "unscoped", "cached"] {
        let repo = startup_repo(variant);
        let homes = [repo.home.clone(), base_home(repo)];
        for cwd in [None, Some(CWD)] {
            let args = startup_args(repo, cwd, &[]);
            // The base's walk cache, in its own home, is filled first.
            drop(run(base, &homes[1], repo, &args, true));
            let (mut startup, mut status) = ([vec![], vec![]], vec![]);
            for n in 0..10 {
                for i in [n % 2, 1 - n % 2] {
                    startup[i].push(timed_ms(|| run(bins[i], &homes[i], repo, &args, true)));
                }
                status.push(timed_ms(|| git_status_once(repo)));
            }
            let ([jit, base_ms], status) = (startup.map(median), median(status));
            eprintln!(
                "beside JIT_BENCH_BASE, 10 alternating rounds: startup ({variant}, cwd {}) \
                 {jit:.1} ms = {:.2}x of git status ({status:.1} ms), base {base_ms:.1} ms = {:.2}x",
                cwd.unwrap_or("the root"),
                jit / status,
                base_ms / status
            );
        }
    }
}

/// The home of the base build's processes, beside the repository's own.
fn base_home(repo: &Repo) -> PathBuf {
    let home = repo.home.with_file_name("home-base");
    fs::create_dir_all(&home).unwrap();
    home
}

/// The engine's own time (`elapsed_us` in the JSON), which divan cannot
/// see inside the process: medians over several runs.
fn engine_medians() {
    let repo = touch_repo();
    let runs = 30;
    let step = |cold: bool| -> u64 {
        if cold {
            bench_tree::evict_cpu_caches();
        }
        first_touch_once(repo)["steps"][0]["elapsed_us"]
            .as_u64()
            .unwrap()
    };
    let touch: Vec<u64> = (0..runs).map(|_| step(false)).collect();
    let cold: Vec<u64> = (0..runs).map(|_| step(true)).collect();
    eprintln!(
        "first touch of {} (20k tree): engine elapsed_us median {} over {runs} processes; \
         {} with the CPU's caches evicted before each",
        repo.tree.deep_file,
        median(touch),
        median(cold)
    );
    let runs = 10;
    for variant in ["scoped", "unscoped", "cached", "unscoped_no_index"] {
        let (repo, cache, extra) = variant_repo(variant);
        for cwd in [None, Some(CWD)] {
            let args = startup_args(repo, cwd, extra);
            let times: Vec<u64> = (0..runs)
                .map(|_| jit(repo, &args, cache)["elapsed_us"].as_u64().unwrap())
                .collect();
            eprintln!(
                "startup ({variant} 100k tree, cwd {}): engine elapsed_us median {} over {runs} \
                 processes",
                cwd.unwrap_or("the root"),
                median(times)
            );
        }
    }
}

/// Runs `jit` in the repository's root with `args`, its state (the walk
/// cache) under the fixture's home, without the walk cache unless `cache`;
/// returns its JSON.
fn jit(repo: &Repo, args: &[&str], cache: bool) -> serde_json::Value {
    serde_json::from_slice(&jit_output(repo, args, cache)).unwrap()
}

/// [`jit`]'s output as it came, for the timed runs: parsing it is the
/// benchmark's work, not the process's (divan drops what a run returns
/// outside the timing).
fn jit_output(repo: &Repo, args: &[&str], cache: bool) -> Vec<u8> {
    run(bin::jit_bin(), &repo.home, repo, args, cache)
}

/// [`jit_output`] of the binary `jit` with the home `home`.
fn run(jit: &Path, home: &Path, repo: &Repo, args: &[&str], cache: bool) -> Vec<u8> {
    let out = Command::new(jit)
        .args(args)
        .current_dir(&repo.tree.root)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
        .env("JIT_WALK_CACHE", if cache { "on" } else { "off" })
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

/// The arguments of the first touch of the deep file.
fn first_touch_args(repo: &Repo) -> [&str; 6] {
    [
        "explain",
        "--no-startup",
        "--json",
        "--root",
        repo.tree.root.to_str().unwrap(),
        &repo.tree.deep_file,
    ]
}

fn first_touch_once(repo: &Repo) -> serde_json::Value {
    jit(repo, &first_touch_args(repo), true)
}

/// The arguments of `jit startup` at the root, with `cwd` when given, then
/// `extra`.
fn startup_args<'a>(repo: &'a Repo, cwd: Option<&'a str>, extra: &[&'a str]) -> Vec<&'a str> {
    let root = repo.tree.root.to_str().unwrap();
    let mut args = vec!["startup", "--json", "--root", root];
    if let Some(cwd) = cwd {
        args.extend(["--cwd", cwd]);
    }
    args.extend_from_slice(extra);
    args
}

fn startup_once(repo: &Repo, cwd: Option<&str>, cache: bool) -> serde_json::Value {
    jit(repo, &startup_args(repo, cwd, &[]), cache)
}

/// `scoped`, `unscoped`, or either with `_no_cache`, or
/// `unscoped_no_index`: the tree, whether the walk cache is used, and the
/// arguments added to `jit startup`'s.
fn variant_repo(variant: &str) -> (&'static Repo, bool, &'static [&'static str]) {
    if variant == "unscoped_no_index" {
        return (no_index_repo(), true, &NO_INDEX);
    }
    match variant.strip_suffix("_no_cache") {
        Some(tree) => (startup_repo(tree), false, &[]),
        None => (startup_repo(variant), true, &[]),
    }
}

/// The `unscoped` tree, checked once to start the same with [`NO_INDEX`]
/// as without it (the same conventions, the same rules loaded) but for
/// the index.
fn no_index_repo() -> &'static Repo {
    static CHECKED: OnceLock<()> = OnceLock::new();
    let repo = startup_repo("unscoped");
    CHECKED.get_or_init(|| {
        for cwd in [None, Some(CWD)] {
            let mut with = startup_once(repo, cwd, true);
            let args = startup_args(repo, cwd, &NO_INDEX);
            let mut without = jit(repo, &args, true);
            assert!(with.get("index").is_some(), "{with:#}");
            for doc in [&mut with, &mut without] {
                let doc = doc.as_object_mut().unwrap();
                for key in ["elapsed_us", "index", "index_overflow"] {
                    doc.remove(key);
                }
            }
            assert_eq!(with, without);
        }
    });
    repo
}

/// The floor of every process above: `jit --version`, a fresh process of
/// the same binary that does nothing.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn process_floor(bencher: Bencher) {
    bencher.bench(version_once);
}

/// One `jit --version` process: the length of what it printed.
fn version_once() -> usize {
    let out = Command::new(bin::jit_bin())
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout.len()
}

/// One new `jit` process's first touch of the deep file.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn first_touch_fresh_process(bencher: Bencher) {
    let repo = touch_repo();
    bencher.bench(|| jit_output(repo, &first_touch_args(repo), true));
}

/// [`process_floor`] with the CPU's caches evicted before each process,
/// as a process started after a pause meets them.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn process_floor_cold(bencher: Bencher) {
    bencher
        .with_inputs(bench_tree::evict_cpu_caches)
        .bench_values(|_lines| version_once());
}

/// [`first_touch_fresh_process`] with the CPU's caches evicted before each
/// process: a hook call after the agent paused.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn first_touch_fresh_process_cold(bencher: Bencher) {
    let repo = touch_repo();
    bencher
        .with_inputs(bench_tree::evict_cpu_caches)
        .bench_values(|_lines| jit_output(repo, &first_touch_args(repo), true));
}

/// The variants of the startup benchmarks: with scoped rules or without,
/// with the walk cache (filled) or without it, with git's untracked
/// cache, and without scoped rules nor a rule index (`unscoped_no_index`:
/// the conventions named, so that nothing walks the project).
const VARIANTS: [&str; 6] = [
    "scoped",
    "unscoped",
    "cached",
    "scoped_no_cache",
    "unscoped_no_cache",
    "unscoped_no_index",
];

/// The arguments `unscoped_no_index` adds: the tree's conventions (those
/// detection finds in it), and no index.
const NO_INDEX: [&str; 3] = ["--conventions", "claude,agents", "--no-index"];

/// `jit startup` with the session at the root.
#[divan::bench(args = VARIANTS, sample_count = 10, sample_size = 1)]
fn startup_root(bencher: Bencher, variant: &str) {
    let (repo, cache, extra) = variant_repo(variant);
    let args = startup_args(repo, None, extra);
    bencher.bench(|| jit_output(repo, &args, cache));
}

/// `jit startup` with the session in a package ([`CWD`]).
#[divan::bench(args = VARIANTS, sample_count = 10, sample_size = 1)]
fn startup_cwd(bencher: Bencher, variant: &str) {
    let (repo, cache, extra) = variant_repo(variant);
    let args = startup_args(repo, Some(CWD), extra);
    bencher.bench(|| jit_output(repo, &args, cache));
}

/// What startup is compared with: `git status --porcelain -z -uall` at the
/// root, with no system or user git configuration.
#[divan::bench(args = ["scoped", "unscoped", "cached"], sample_count = 10, sample_size = 1)]
fn git_status(bencher: Bencher, variant: &str) {
    let repo = startup_repo(variant);
    bencher.bench(|| git_status_once(repo));
}

fn git_status_once(repo: &Repo) -> usize {
    git(repo, &["status", "--porcelain", "-z", "-uall"]).len()
}

/// Runs `git` with `args` in the repository, with no system or user git
/// configuration; its output.
fn git(repo: &Repo, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args(args)
        .current_dir(&repo.tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out.stdout
}
