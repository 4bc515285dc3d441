//! Fuzz target: any bytes given to `jit replay` as a transcript, in each format, are read or refused, never a panic or a hang.
#![no_main]

use std::io::Write as _;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/lines.rs"]
mod lines;
#[allow(dead_code, reason = "the module is shared with the binary")]
#[path = "../../src/cmd/replay/transcript.rs"]
mod transcript;

/// A folder of this process's own, where each input is written as the
/// transcript file the reader opens (it reads files, and finds a Claude
/// Code session's sub-agent files beside them).
fn folder() -> &'static camino::Utf8Path {
    static DIR: OnceLock<camino::Utf8PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
        let dir = camino::Utf8PathBuf::from(format!("{base}/jit-fuzz-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder for the inputs");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the format, the rest is the transcript.
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let format = match first % 4 {
        0 => transcript::Format::Auto,
        1 => transcript::Format::ClaudeCode,
        2 => transcript::Format::Codex,
        _ => transcript::Format::Generic,
    };
    let path = folder().join("session.jsonl");
    let mut file = std::fs::File::create(&path).expect("the input file");
    file.write_all(rest).expect("the input written");
    drop(file);
    if let Ok(trace) = transcript::read(&path, format) {
        assert!(trace.format.is_some_and(|f| f != transcript::Format::Auto));
        assert!(trace.lines_over_cap <= trace.skipped_records);
        let lines = rest.split(|&b| b == b'\n').count() as u64;
        assert!(trace.skipped_records <= lines, "more records skipped than lines");
    }
});
