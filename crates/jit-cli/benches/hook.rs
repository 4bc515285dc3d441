//! Whole-process wall time of `jit hook` calls on a 20,000-file repository with rules on the chain, beside the bare start of the same binary and `git status`.
//!
//! Run with `cargo bench -p jit-cli --bench hook`. The repository is
//! generated once per run in a temporary directory: 2,000 directories
//! holding 20,000 committed files, a root `CLAUDE.md` with four `@`
//! imports, a dozen scoped rules in `.claude/rules`, and a `CLAUDE.md` every
//! few directories, among them each level of the depth-8 chain the
//! benchmarked call writes into. Each sample spawns the binary, as an agent
//! does for every tool call. `JIT_BENCH_BIN=PATH` times another build of
//! `jit` instead (a statically linked one, say: see docs/PERFORMANCE.md);
//! `JIT_BENCH_BASE=PATH` also times a second build beside it, the two
//! alternating in one run, which compares builds on a machine whose speed
//! wanders between runs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use divan::Bencher;

#[path = "common/bin.rs"]
mod bin;

#[path = "common/measure.rs"]
mod measure;
use measure::{median, timed_ms};

#[path = "common/tree.rs"]
mod tree;
use tree::DEEP;

fn main() {
    let fixture = fixture();
    eprintln!(
        "fixture: {} ({} files in {} directories)",
        fixture.root.display(),
        fixture.files,
        fixture.dirs
    );
    divan::main();
    // divan reports each side on its own; the SessionStart target is a
    // ratio to `git status`, so it is also measured with the two sides
    // interleaved, which spreads a busy machine's noise over both.
    // `cargo bench` passes `--bench`; `cargo test --benches` does not.
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let listing = std::env::args().any(|arg| arg == "--list");
    if benchmarking && !listing {
        interleaved(fixture, 30);
        if let Some(base) = bin::fresh_base() {
            beside(fixture, base, 100);
        }
    }
    // The fixture sits in a static, which is never dropped.
    bench_tree::remove_scratch();
}

fn interleaved(fixture: &Fixture, runs: usize) {
    let (mut start, mut status, mut bare, mut tool) = (vec![], vec![], vec![], vec![]);
    let write = post_tool_use(fixture, "bench", "sibling.ts");
    for n in 0..runs {
        let payload = session_start(fixture, &format!("interleaved-{n}"));
        start.push(timed_ms(|| hook(fixture, &payload)));
        status.push(timed_ms(|| git_status_once(fixture)));
        bare.push(timed_ms(bare_start_once));
        tool.push(timed_ms(|| hook(fixture, &write)));
    }
    let (start, status, bare, tool) = (median(start), median(status), median(bare), median(tool));
    eprintln!(
        "interleaved medians over {runs} runs: SessionStart {start:.2} ms, git status {status:.2} ms \
         (ratio {:.2}); PostToolUse {tool:.2} ms, jit --version {bare:.2} ms (+{:.2} ms)",
        start / status,
        tool - bare
    );
}

/// `JIT_BENCH_BASE` set: the build under test and `base` alternating, a
/// `PostToolUse` call and `jit --version` each, fresh copies of both (each
/// in its own session, so neither reads the other's state).
fn beside(fixture: &Fixture, base: &Path, runs: usize) {
    let bins = [bin::jit_bin(), base];
    let payloads = [
        post_tool_use(fixture, "beside", "sibling.ts"),
        post_tool_use(fixture, "beside-base", "sibling.ts"),
    ];
    let (mut tool, mut bare) = ([vec![], vec![]], [vec![], vec![]]);
    for n in 0..runs {
        // Each goes first every other round.
        for i in [n % 2, 1 - n % 2] {
            tool[i].push(timed_ms(|| hook_with(bins[i], fixture, &payloads[i])));
            bare[i].push(timed_ms(|| bare_start_with(bins[i])));
        }
    }
    let [tool, tool_base] = tool.map(median);
    let [bare, bare_base] = bare.map(median);
    eprintln!(
        "beside JIT_BENCH_BASE, medians over {runs} alternating runs: PostToolUse {tool:.2} ms \
         (base {tool_base:.2} ms), jit --version {bare:.2} ms (base {bare_base:.2} ms)"
    );
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
    home: PathBuf,
    files: usize,
    dirs: usize,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(build)
}

fn build() -> Fixture {
    let dir = bench_tree::fixture_dir().unwrap();
    let root = dir.path().join("repo");
    let (files, dirs) = tree::ruled_tree(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "fixture"]);
    // A fresh commit leaves the index "racily clean" (files as new as the
    // index itself), which makes any status hash every file until the index
    // is written again later. A repository in use has a settled index:
    // settle this one the same way, a second on.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    git(&root, &["update-index", "-q", "--refresh"]);
    let state = dir.path().join("state");
    let home = dir.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let root = fs::canonicalize(root).unwrap();
    let fixture = Fixture {
        _dir: dir,
        root,
        state,
        home,
        files,
        dirs,
    };
    // The session the benchmarked calls belong to: started, and its deep
    // chain already injected once (so each call decides and saves, as most
    // calls of a session do).
    let out = hook(&fixture, &session_start(&fixture, "bench"));
    assert!(
        out.is_empty() || out.contains("hookSpecificOutput"),
        "{out}"
    );
    let out = hook(&fixture, &post_tool_use(&fixture, "bench", "first.ts"));
    assert!(out.contains("pkg07/sub07/a/b/c/d/e/f/CLAUDE.md"), "{out}");
    fixture
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=b@example.com", "-c", "user.name=b"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success());
}

fn session_start(fixture: &Fixture, session: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        fixture.root.display()
    )
}

fn post_tool_use(fixture: &Fixture, session: &str, file: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"{root}","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{{"file_path":"{root}/{DEEP}/{file}","content":"x"}},"tool_response":{{"success":true}},"tool_use_id":"toolu_1"}}"#,
        root = fixture.root.display()
    )
}

/// One `jit hook` process, as Claude Code runs it; returns its stdout.
fn hook(fixture: &Fixture, payload: &str) -> String {
    hook_with(bin::jit_bin(), fixture, payload)
}

/// [`hook`] with the binary `jit`.
fn hook_with(jit: &Path, fixture: &Fixture, payload: &str) -> String {
    let mut child = Command::new(jit)
        .args(["hook", "--agent", "claude-code"])
        .env("HOME", &fixture.home)
        .env("JIT_STATE_DIR", &fixture.state)
        .env("CLAUDE_PROJECT_DIR", &fixture.root)
        .current_dir(&fixture.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The floor: the same binary starting and exiting (`jit --version`).
#[divan::bench(sample_count = 50, sample_size = 1)]
fn bare_start(bencher: Bencher) {
    bencher.bench(bare_start_once);
}

fn bare_start_once() {
    bare_start_with(bin::jit_bin());
}

fn bare_start_with(jit: &Path) {
    let out = Command::new(jit).arg("--version").output().unwrap();
    assert!(out.status.success());
}

/// One PostToolUse call: start, state load, discovery down the depth-8
/// chain, state save, event append.
#[divan::bench(sample_count = 50, sample_size = 1)]
fn post_tool_use_write(bencher: Bencher) {
    let fixture = fixture();
    let payload = post_tool_use(fixture, "bench", "sibling.ts");
    bencher.bench(|| hook(fixture, &payload));
}

/// One SessionStart (startup load with git change signals), a new session
/// each time.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn session_start_call(bencher: Bencher) {
    let fixture = fixture();
    let n = std::sync::atomic::AtomicUsize::new(0);
    bencher
        .with_inputs(|| {
            let n = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            session_start(fixture, &format!("start-{n}"))
        })
        .bench_values(|payload| hook(fixture, &payload));
}

/// What SessionStart is compared with: `git status --porcelain -z -uall`.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn git_status(bencher: Bencher) {
    let fixture = fixture();
    bencher.bench(|| git_status_once(fixture));
}

fn git_status_once(fixture: &Fixture) {
    let out = Command::new("git")
        .args(["status", "--porcelain", "-z", "-uall"])
        .current_dir(&fixture.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success());
}
