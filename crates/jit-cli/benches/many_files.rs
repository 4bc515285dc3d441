//! One `jit hook` call that touches thousands of new files: its wall time, peak memory and event-log bytes, on the 20,000-file repository with rules on every chain and scoped rules.
//!
//! Run with `cargo bench -p jit-cli --bench many_files`. The repository is
//! the one the hook benchmark uses (`common/tree.rs`: 2,000 directories of
//! committed files, a `CLAUDE.md` in every package and every 40th
//! directory, a depth-8 chain with a rule at each level, a dozen scoped
//! rules in `.claude/rules`), with the new files written into it as the
//! call left them (and committed: Codex's session start discovers the files
//! git reports changed, which would leave the call nothing to do). Each
//! sample is one PostToolUse payload on stdin of a context already started
//! (its SessionStart runs untimed, a new session each sample):
//!
//! * `apply_patch_10000_new_files`: Codex's `apply_patch` adding [`FILES`]
//!   files spread over every package (5 a directory, the first at the
//!   bottom of the depth-8 chain). Before one event per call, each
//!   discovery event listed all 10,000 paths: 27 s, 5.5 GB of memory and
//!   2.5 GB of event log for this one call.
//! * `bash_heredocs_3000_new_files`: Claude Code's Bash writing 3,000 of
//!   them with one here-document each (200 KB of command, under the bash
//!   parser's 256 KiB cap).
//!
//! After divan's timings, one more call of each is measured and printed to
//! stderr with its peak resident memory (the process's `VmHWM`, read from
//! `/proc/PID/status` every 100 µs while it runs: a lower bound within that
//! interval) and the bytes it added to the session's event log.
//!
//! `JIT_BENCH_BIN=PATH` times another build of `jit` (an older one, to see
//! the before; `-- --sample-count 1` keeps its run short).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use divan::Bencher;

#[path = "common/bin.rs"]
mod bin;

#[path = "common/tree.rs"]
mod tree;

/// New files in the `apply_patch` call.
const FILES: usize = 10_000;
/// New files in the Bash call.
const BASH_FILES: usize = 3_000;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
    home: PathBuf,
    patch: String,
    command: String,
}

fn main() {
    let fixture = fixture();
    eprintln!("fixture: {} (+{FILES} new files)", fixture.root.display());
    divan::main();
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let listing = std::env::args().any(|arg| arg == "--list");
    if benchmarking && !listing {
        for case in [Case::Patch, Case::Bash] {
            let (session, payload) = started(fixture, case, "measured");
            let events = fixture.events(case, &session);
            let before = fs::metadata(&events).map_or(0, |m| m.len());
            let run = measured(fixture, case, &payload);
            let after = fs::metadata(&events).map_or(0, |m| m.len());
            eprintln!(
                "{}: {:.0} ms, peak RSS {} KiB, event log +{} bytes, {} bytes of output",
                case.name(),
                run.wall.as_secs_f64() * 1e3,
                run.peak_kib,
                after - before,
                run.stdout_bytes
            );
        }
    }
    // The fixture sits in a static, which is never dropped.
    bench_tree::remove_scratch();
}

#[derive(Debug, Clone, Copy)]
enum Case {
    Patch,
    Bash,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::Patch => "apply_patch_10000_new_files",
            Case::Bash => "bash_heredocs_3000_new_files",
        }
    }

    fn agent(self) -> &'static str {
        match self {
            Case::Patch => "codex",
            Case::Bash => "claude-code",
        }
    }
}

/// The `i`th new file: five a directory, spread over every package; the
/// first at the bottom of the depth-8 chain, a rule at every level.
fn new_file(i: usize) -> String {
    if i == 0 {
        return format!("{}/new0.ts", tree::DEEP);
    }
    let p = (i / 250) % tree::PACKAGES;
    let s = (i / 5) % tree::SUBS;
    format!("pkg{p:02}/sub{s:02}/new{i}.ts")
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(build)
}

fn build() -> Fixture {
    let dir = bench_tree::fixture_dir().unwrap();
    let root = dir.path().join("repo");
    tree::ruled_tree(&root);
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..FILES {
        let file = new_file(i);
        tree::write(&root.join(&file), &format!("export const n = {i};\n"));
        let _ = write!(patch, "*** Add File: {file}\n+export const n = {i};\n");
    }
    patch.push_str("*** End Patch\n");
    // Committed with the rest: Codex's session start discovers the files
    // git reports changed, and would leave the call nothing to do.
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "fixture"]);
    let command: String = (0..BASH_FILES)
        .map(|i| {
            format!(
                "cat > {} <<'EOF'\nexport const n = {i};\nEOF\n",
                new_file(i)
            )
        })
        .collect();
    let home = dir.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let fixture = Fixture {
        root: fs::canonicalize(&root).unwrap(),
        state: dir.path().join("state"),
        home,
        patch,
        command,
        _dir: dir,
    };
    // Every path must be discovered in one event, or the benchmark
    // measures a refusal.
    for case in [Case::Patch, Case::Bash] {
        let (session, payload) = started(&fixture, case, "check");
        let out = hook(&fixture, case, &payload);
        assert!(
            out.contains(&format!("triggered by {}/new0.ts", tree::DEEP)),
            "{out}"
        );
        let log = fs::read_to_string(fixture.events(case, &session)).unwrap();
        let discovery: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|e: &serde_json::Value| e["kind"] == "discovery")
            .collect();
        assert_eq!(discovery.len(), 1, "one event for the call");
        assert_eq!(discovery[0]["hit"], true);
        assert_eq!(discovery[0]["limits"], serde_json::Value::Null);
    }
    fixture
}

impl Fixture {
    /// The event log of `session` under `case`'s agent.
    fn events(&self, case: Case, session: &str) -> PathBuf {
        self.state
            .join(format!("{}-{session}.events.jsonl", case.agent()))
    }

    /// The PostToolUse payload of `case` in `session`.
    fn payload(&self, case: Case, session: &str) -> String {
        let root = self.root.to_str().unwrap();
        let head = format!(
            r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"{root}","hook_event_name":"PostToolUse","#
        );
        let (tool, input) = match case {
            Case::Patch => ("apply_patch", &self.patch),
            Case::Bash => ("Bash", &self.command),
        };
        let input = serde_json::json!({ "command": input });
        let turn = match case {
            Case::Patch => r#""turn_id":"t1","#,
            Case::Bash => "",
        };
        format!(
            r#"{head}{turn}"tool_name":"{tool}","tool_input":{input},"tool_response":{{}},"tool_use_id":"c1"}}"#
        )
    }
}

/// A new session of `case`'s agent, started (untimed), and the call's
/// payload in it.
fn started(fixture: &Fixture, case: Case, tag: &str) -> (String, String) {
    static N: AtomicUsize = AtomicUsize::new(0);
    let session = format!("{tag}-{}", N.fetch_add(1, Ordering::Relaxed));
    let root = fixture.root.to_str().unwrap();
    let start = format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"{root}","hook_event_name":"SessionStart","source":"startup"}}"#
    );
    hook(fixture, case, &start);
    let payload = fixture.payload(case, &session);
    (session, payload)
}

fn command(fixture: &Fixture, case: Case) -> Command {
    let mut cmd = Command::new(bin::jit_bin());
    cmd.args(["hook", "--agent", case.agent()])
        .env("HOME", &fixture.home)
        .env("JIT_STATE_DIR", &fixture.state)
        .env_remove("JIT_HOOK_DEADLINE_MS")
        .current_dir(&fixture.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if matches!(case, Case::Bash) {
        cmd.env("CLAUDE_PROJECT_DIR", &fixture.root);
    }
    cmd
}

/// One `jit hook` process with `payload` on stdin; returns its stdout.
fn hook(fixture: &Fixture, case: Case, payload: &str) -> String {
    let mut child = command(fixture, case).spawn().unwrap();
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

/// What one measured call took.
struct Run {
    wall: Duration,
    peak_kib: u64,
    stdout_bytes: usize,
}

/// [`hook`], with its wall time and the high-water mark of its resident
/// memory, polled from `/proc` while it runs.
fn measured(fixture: &Fixture, case: Case, payload: &str) -> Run {
    let started = Instant::now();
    let mut child = command(fixture, case).spawn().unwrap();
    let status = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut stdin = child.stdin.take().unwrap();
    let payload = payload.to_owned();
    // The payload is written from a thread, so that polling starts at once.
    let writer = std::thread::spawn(move || stdin.write_all(payload.as_bytes()));
    let reader = {
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut out).map(|_| out.len())
        })
    };
    let mut peak_kib = 0;
    while child.try_wait().unwrap().is_none() {
        if let Some(kib) = vm_hwm_kib(&status) {
            peak_kib = peak_kib.max(kib);
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    let wall = started.elapsed();
    writer.join().unwrap().unwrap();
    let stdout_bytes = reader.join().unwrap().unwrap();
    Run {
        wall,
        peak_kib,
        stdout_bytes,
    }
}

/// `VmHWM` of a running process, in KiB.
fn vm_hwm_kib(status: &Path) -> Option<u64> {
    let text = fs::read_to_string(status).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
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

/// Codex's `apply_patch` adding 10,000 files: one hook process.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn apply_patch_10000_new_files(bencher: Bencher) {
    let fixture = fixture();
    bencher
        .with_inputs(|| started(fixture, Case::Patch, "patch").1)
        .bench_values(|payload| hook(fixture, Case::Patch, &payload));
}

/// Claude Code's Bash writing 3,000 files with here-documents.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn bash_heredocs_3000_new_files(bencher: Bencher) {
    let fixture = fixture();
    bencher
        .with_inputs(|| started(fixture, Case::Bash, "bash").1)
        .bench_values(|payload| hook(fixture, Case::Bash, &payload));
}
