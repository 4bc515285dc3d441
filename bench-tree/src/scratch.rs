//! Where benchmark fixtures kept in statics live, so that they do not outlive the run.
//!
//! A benchmark that builds its fixture once keeps it in a `static`, and
//! statics are never dropped: a `TempDir` there stays on disk after the
//! process ends (hundreds of megabytes for the 100k tree, on every run).
//! [`fixture_dir`] makes each such directory under one scratch directory
//! per process, and [`remove_scratch`], called when the benchmarks are
//! done, deletes it with everything in it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

/// This process's scratch directory, made on first use.
fn scratch() -> io::Result<&'static Path> {
    if let Some(dir) = SCRATCH.get() {
        return Ok(dir);
    }
    let made = tempfile::Builder::new()
        .prefix("jit-bench-")
        .tempdir()?
        .keep();
    let kept = SCRATCH.get_or_init(|| made.clone());
    if *kept != made {
        // Another thread made one first: this one is not needed.
        let _ = std::fs::remove_dir_all(&made);
    }
    Ok(kept)
}

/// A new temporary directory for a fixture that a `static` keeps, inside
/// this process's scratch directory (see [`remove_scratch`]).
///
/// ```
/// let dir = bench_tree::fixture_dir()?;
/// assert!(dir.path().is_dir());
/// let scratch = dir.path().parent().unwrap().to_owned();
/// std::mem::forget(dir); // as a static would keep it
/// bench_tree::remove_scratch();
/// assert!(!scratch.exists());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn fixture_dir() -> io::Result<tempfile::TempDir> {
    tempfile::tempdir_in(scratch()?)
}

/// Deletes this process's scratch directory and every fixture in it; call
/// it once the benchmarks have run. Nothing happens when none was made.
pub fn remove_scratch() {
    if let Some(dir) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
