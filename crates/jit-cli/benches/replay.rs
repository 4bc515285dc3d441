//! Whole-process wall time of `jit replay` on a 5,000-call Claude Code transcript over a 20,000-file repository with rules on the chain, beside the bare start of the same binary.
//!
//! Run with `cargo bench -p jit-cli --bench replay`. The repository is the
//! one the hook benchmark uses (`common/tree.rs`); the transcript is
//! generated once per run: reads, writes, edits, greps and shell heredocs
//! spread over every package, one parallel batch in five, a sub-agent file,
//! and a compaction every 1,000 calls, recorded in another checkout so that
//! every path goes through the mapping onto `--root`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fixture that cannot be built should fail loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use divan::Bencher;

#[path = "common/tree.rs"]
mod tree;

/// Tool calls in the generated transcript.
const CALLS: usize = 5_000;
/// Where the transcript says it was recorded.
const RECORDED: &str = "/home/dev/repo";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    transcript: PathBuf,
}

fn main() {
    let fixture = fixture();
    eprintln!(
        "fixture: {} with a {CALLS}-call transcript {}",
        fixture.root.display(),
        fixture.transcript.display()
    );
    divan::main();
    // The fixture sits in a static, which is never dropped. `JIT_BENCH_KEEP=1`
    // keeps it, to time or profile one replay by hand (its path is printed).
    if std::env::var_os("JIT_BENCH_KEEP").is_none() {
        bench_tree::remove_scratch();
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(build)
}

fn build() -> Fixture {
    let dir = bench_tree::fixture_dir().unwrap();
    let root = dir.path().join("repo");
    tree::ruled_tree(&root);
    fs::create_dir_all(root.join(".git")).unwrap();
    let root = fs::canonicalize(root).unwrap();
    let transcript = dir.path().join("session.jsonl");
    let (main, sub) = transcript_lines();
    fs::write(&transcript, main).unwrap();
    let subagents = dir.path().join("session/subagents");
    fs::create_dir_all(&subagents).unwrap();
    fs::write(subagents.join("agent-b1.jsonl"), sub).unwrap();
    let fixture = Fixture {
        _dir: dir,
        root,
        transcript,
    };
    // The replay must see every call, or the benchmark measures nothing.
    let out = replay(&fixture);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["summary"]["calls"], CALLS as u64, "{}", doc["summary"]);
    assert!(doc["summary"]["jit"]["rules"].as_u64().unwrap() > 20);
    fixture
}

/// A session of [`CALLS`] calls (the main file, and a sub-agent's file of
/// 200 of them) in Claude Code's record shapes.
fn transcript_lines() -> (String, String) {
    let (mut main, mut sub) = (String::new(), String::new());
    let mut message = 0;
    let mut call = 0;
    let mut second = 0u64;
    while call < CALLS {
        message += 1;
        let into_sub = (2000..2200).contains(&call);
        let batch = if message % 5 == 0 { 3 } else { 1 };
        for _ in 0..batch.min(CALLS - call) {
            let p = (call * 7) % tree::PACKAGES;
            let s = (call * 13) % tree::SUBS;
            let f = call % tree::FILES_PER_DIR;
            // One call in fifty lands at the bottom of the depth-8 chain.
            let file = if call % 50 == 0 {
                format!("{RECORDED}/{}/new{f}.ts", tree::DEEP)
            } else {
                format!("{RECORDED}/pkg{p:02}/sub{s:02}/file{f}.ts")
            };
            let (tool, input) = match call % 6 {
                0 | 1 => ("Read", format!(r#"{{"file_path":"{file}"}}"#)),
                2 => (
                    "Write",
                    format!(r#"{{"file_path":"{file}","content":"x"}}"#),
                ),
                3 => (
                    "Edit",
                    format!(r#"{{"file_path":"{file}","old_string":"a","new_string":"b"}}"#),
                ),
                4 => (
                    "Grep",
                    format!(r#"{{"pattern":"x","path":"{RECORDED}/pkg{p:02}"}}"#),
                ),
                _ => (
                    "Bash",
                    format!(
                        r#"{{"command":"cat > pkg{p:02}/sub{s:02}/gen{f}.py <<'EOF'\nprint(1)\nEOF"}}"#
                    ),
                ),
            };
            second += 1;
            let (out, side) = if into_sub {
                (&mut sub, r#","isSidechain":true,"agentId":"b1""#)
            } else {
                (&mut main, r#","isSidechain":false"#)
            };
            let _ = writeln!(
                out,
                r#"{{"type":"assistant","sessionId":"bench","cwd":"{RECORDED}"{side},"uuid":"u{call}","timestamp":"2026-11-30T{:02}:{:02}:{:02}.000Z","message":{{"id":"msg{message}","role":"assistant","content":[{{"type":"tool_use","id":"t{call}","name":"{tool}","input":{input}}}]}}}}"#,
                second / 3600,
                (second / 60) % 60,
                second % 60
            );
            call += 1;
            if call % 1000 == 0 {
                second += 1;
                let _ = writeln!(
                    main,
                    r#"{{"type":"system","subtype":"compact_boundary","sessionId":"bench","cwd":"{RECORDED}","timestamp":"2026-11-30T{:02}:{:02}:{:02}.000Z"}}"#,
                    second / 3600,
                    (second / 60) % 60,
                    second % 60
                );
            }
        }
    }
    (main, sub)
}

fn replay(fixture: &Fixture) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(["replay", "--json", "--root"])
        .arg(&fixture.root)
        .arg(&fixture.transcript)
        .env("HOME", fixture.root.join("no-home"))
        // No state outside the fixture, and no walk cache (which would live
        // under that home, inside the replayed repository): the figure
        // stays comparable with the one before the cache.
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
        .env("JIT_WALK_CACHE", "off")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The floor: the same binary starting and exiting.
#[divan::bench(sample_count = 20)]
fn bare_start(bencher: Bencher) {
    bencher.bench(|| {
        let status = Command::new(env!("CARGO_BIN_EXE_jit"))
            .arg("--version")
            .output()
            .unwrap()
            .status;
        assert!(status.success());
    });
}

/// `jit replay --json` of the 5,000-call transcript, whole process.
#[divan::bench(sample_count = 10)]
fn replay_5000_calls(bencher: Bencher) {
    let fixture = fixture();
    bencher.bench(|| replay(fixture));
}
