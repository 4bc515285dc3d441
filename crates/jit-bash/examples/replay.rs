//! Replays every file of the given directories through `written_paths` and reports the slowest.
//!
//! Used after a fuzz run to check that no input of the corpus takes longer
//! than the budget (50 ms at ≤ 4 KiB): build in release and run
//! `cargo run --release -p jit-bash --example replay -- DIR...`. Each file is
//! run three times and its fastest run kept, since one run on a shared
//! machine may be stretched by the scheduler; the slowest single run is
//! printed too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a command-line helper that should stop loudly"
)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut files = Vec::new();
    for dir in std::env::args().skip(1) {
        for entry in std::fs::read_dir(&dir).expect("a directory to replay") {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    // Make the per-thread parser before timing.
    let _ = jit_bash::written_paths("true");
    let mut best: Vec<(Duration, usize, PathBuf)> = Vec::new();
    let mut worst_single = (Duration::ZERO, PathBuf::new());
    let mut total = Duration::ZERO;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(text) = std::str::from_utf8(&bytes) else {
            // The fuzz target skips what is not UTF-8.
            continue;
        };
        let mut fastest = Duration::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            std::hint::black_box(jit_bash::written_paths(std::hint::black_box(text)));
            let took = start.elapsed();
            total += took;
            fastest = fastest.min(took);
            if took > worst_single.0 {
                worst_single = (took, path.clone());
            }
        }
        best.push((fastest, bytes.len(), path));
    }
    best.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    println!(
        "{} UTF-8 inputs, 3 runs each, {total:?} in all; slowest single run {:?} ({})",
        best.len(),
        worst_single.0,
        worst_single.1.display()
    );
    println!("slowest inputs, fastest of their 3 runs:");
    for (took, len, path) in best.iter().take(5) {
        println!("{took:>12?} {len:>5} bytes  {}", path.display());
    }
}
