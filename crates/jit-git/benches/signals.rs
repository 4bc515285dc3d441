//! Startup signal collection through gix against spawning `git status --porcelain -z -uall`, on a 20,000-file repository.
//!
//! Run with `cargo bench -p jit-git --bench signals`. The repository is
//! generated once per run in a temporary directory: 2,000 directories holding
//! 20,000 committed files, then a few files modified and a few untracked ones
//! added (one in a brand-new directory). Both sides read only the
//! repository's own configuration.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use camino::Utf8PathBuf;
use divan::Bencher;
use jit_git::{GitChanges, startup_signals};

#[path = "../tests/support/repo.rs"]
#[allow(dead_code, reason = "shared with the tests, which use other parts")]
mod support;
use support::Repo;

fn main() {
    let fixture = fixture();
    let signals = startup_signals(&fixture.root, &fixture.root, &source());
    let git = git_status(&fixture.repo);
    // Both sides must be doing the same job for the comparison to mean anything.
    assert_eq!(
        signals.signals,
        [
            "pkg00/mod0.rs",
            "pkg02/sub02/new.ts",
            "pkg07/sub03/file1.ts",
            "pkg19/sub48/file9.ts",
            "pkg25/sub11/file2.ts",
            "pkg33/sub20/file5.ts",
            "pkg39/notes.md",
            "tools/gen/lib/util.py",
            "tools/gen/run.py",
        ]
    );
    assert_eq!(git.split(|&b| b == 0).filter(|r| !r.is_empty()).count(), 9);
    eprintln!(
        "fixture: {} ({} files in {} directories); gix lists {} changed paths, git prints {} bytes",
        fixture.root,
        FILES,
        DIRECTORIES,
        signals.signals.len(),
        git.len()
    );
    divan::main();
    // divan reports each side on its own; the ratio is what matters, so it
    // is also measured with the two sides interleaved, which spreads the
    // noise of a busy machine evenly over both.
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`)
    // divan runs each benchmark once as a smoke test, and so do we.
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let listing = std::env::args().any(|arg| arg == "--list");
    if benchmarking && !listing {
        interleaved_ratio(fixture, 30);
    }
    // The fixture and its home sit in a static, which is never dropped.
    for dir in [fixture.repo.dir.path(), fixture.repo.home.path()] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn interleaved_ratio(fixture: &Fixture, runs: usize) {
    let (root, source) = (&fixture.root, source());
    let mut ours = Vec::with_capacity(runs);
    let mut theirs = Vec::with_capacity(runs);
    let (mut our_cpu, mut their_cpu) = (0, 0);
    for _ in 0..runs {
        let before = cpu_ticks();
        let start = Instant::now();
        divan::black_box(startup_signals(root, root, &source));
        ours.push(start.elapsed());
        let middle = cpu_ticks();
        let start = Instant::now();
        divan::black_box(git_status(&fixture.repo));
        theirs.push(start.elapsed());
        let after = cpu_ticks();
        if let (Some(before), Some(middle), Some(after)) = (before, middle, after) {
            our_cpu += middle.0 - before.0;
            their_cpu += after.1 - middle.1;
        }
    }
    ours.sort();
    theirs.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (our_median, git_median) = (ours[runs / 2], theirs[runs / 2]);
    eprintln!(
        "interleaved, {runs} runs each: gix median {:.2} ms (fastest {:.2}), git median {:.2} ms (fastest {:.2}); ratio gix/git {:.2} (median), {:.2} (fastest)",
        ms(our_median),
        ms(ours[0]),
        ms(git_median),
        ms(theirs[0]),
        ms(our_median) / ms(git_median),
        ms(ours[0]) / ms(theirs[0]),
    );
    // Wall time depends on how busy the machine is: gix spreads its work
    // over more threads than git, which pays off on idle cores and not on
    // busy ones. CPU time does not depend on that.
    if their_cpu > 0 {
        eprintln!(
            "CPU time (user + system, clock ticks over {runs} runs): gix {our_cpu}, git {their_cpu}; ratio gix/git {:.2}",
            our_cpu as f64 / their_cpu as f64
        );
    }
}

/// This process's CPU time and that of its waited-for children, in clock
/// ticks, from `/proc/self/stat` (Linux only).
fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may
    // contain spaces: `utime stime cutime cstime` are fields 14 to 17.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some((field(14)? + field(15)?, field(16)? + field(17)?))
}

const TOP_DIRECTORIES: usize = 40;
const SUBDIRECTORIES: usize = 49;
/// 40 top-level directories, each with 49 subdirectories.
const DIRECTORIES: usize = TOP_DIRECTORIES * (1 + SUBDIRECTORIES);
/// Ten files in each directory.
const FILES: usize = DIRECTORIES * 10;

struct Fixture {
    repo: Repo,
    /// The repository's root, canonical, as jit-git is given it.
    root: Utf8PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(build_fixture)
}

fn source() -> GitChanges {
    GitChanges::new().repository_config_only()
}

/// What the article's collector runs, spawned the same way.
fn git_status(repo: &Repo) -> Vec<u8> {
    repo.git(&[
        "--no-optional-locks",
        "status",
        "--porcelain",
        "-z",
        "-uall",
    ])
}

fn build_fixture() -> Fixture {
    let repo = Repo::new();
    let root = Utf8PathBuf::from_path_buf(repo.root().canonicalize().unwrap()).unwrap();
    for top in 0..TOP_DIRECTORIES {
        let top_dir = format!("pkg{top:02}");
        for file in 0..10 {
            repo.write(
                format!("{top_dir}/mod{file}.rs"),
                &format!("// {top_dir} {file}\npub fn f() {{}}\n"),
            );
        }
        for sub in 0..SUBDIRECTORIES {
            for file in 0..10 {
                repo.write(
                    format!("{top_dir}/sub{sub:02}/file{file}.ts"),
                    &format!("export const v = {top}_{sub}_{file};\n"),
                );
            }
        }
    }
    // Files written in the same second as the index are "racily clean" and
    // would be re-read on every status, by git and gix alike; real worktrees
    // are older than their index.
    std::thread::sleep(Duration::from_millis(1100));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "fixture"]);
    for path in [
        "pkg00/mod0.rs",
        "pkg07/sub03/file1.ts",
        "pkg19/sub48/file9.ts",
        "pkg33/sub20/file5.ts",
    ] {
        repo.write(path, "// changed\n");
    }
    std::fs::remove_file(root.join("pkg25/sub11/file2.ts")).unwrap();
    repo.write("pkg02/sub02/new.ts", "new\n");
    repo.write("pkg39/notes.md", "new\n");
    repo.write("tools/gen/run.py", "new\n");
    repo.write("tools/gen/lib/util.py", "new\n");
    // Let the one optional index write happen now rather than inside a
    // measured run.
    repo.git(&["status", "--porcelain"]);
    Fixture { repo, root }
}

/// The startup signals at the repository root, through gix.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn gix_startup_signals(bencher: Bencher) {
    let root = &fixture().root;
    let source = source();
    bencher.bench(|| startup_signals(root, root, &source));
}

/// Spawning `git --no-optional-locks status --porcelain -z -uall` and waiting for it.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn git_cli_status(bencher: Bencher) {
    let repo = &fixture().repo;
    bencher.bench(|| git_status(repo));
}
