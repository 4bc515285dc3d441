//! Cold caches on demand: what a process started after a pause meets.
//!
//! A benchmark that runs the same work back to back finds the kernel's
//! directory entries and inodes, and the binary's code, in the CPU's caches
//! where the sample before left them. A session start or a hook call comes
//! after the agent or the user paused, and meets them cold. [`evict_cpu_caches`]
//! before each sample (untimed, as divan's `with_inputs`) measures that.

use std::sync::{Mutex, PoisonError};

/// How much is written to push everything else out of the CPU's caches. On
/// the machine docs/PERFORMANCE.md was measured on, a bare `lstat` of
/// 10,000 directories after writing 16, 64, 256 and 1,024 MiB took 5.4,
/// 6.5, 7.4 and 7.7 ms (4.0 ms back to back): 256 MiB leaves little behind.
pub const EVICT_BYTES: usize = 256 << 20;

/// Writes a byte in every 64-byte line of a buffer of [`EVICT_BYTES`]
/// (allocated on the first call and kept), so that what runs next reads
/// its data and code from memory rather than from the CPU's caches; returns
/// how many lines it wrote.
///
/// ```
/// assert_eq!(bench_tree::evict_cpu_caches(), 256 * 1024 * 1024 / 64);
/// ```
pub fn evict_cpu_caches() -> usize {
    static BUFFER: Mutex<Vec<u8>> = Mutex::new(Vec::new());
    let mut buffer = BUFFER.lock().unwrap_or_else(PoisonError::into_inner);
    if buffer.is_empty() {
        buffer.resize(EVICT_BYTES, 0);
    }
    let mut lines = 0;
    for line in buffer.chunks_mut(64) {
        line[0] = line[0].wrapping_add(1);
        lines += 1;
    }
    std::hint::black_box(&*buffer);
    lines
}
