//! Which `jit` binary a whole-process benchmark times.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A fresh copy of `$JIT_BENCH_BIN` when it is set (another build of
/// `jit`: a statically linked one, an older commit's), else of the binary
/// this workspace builds. The benchmark says which on stderr the first time
/// it is asked.
///
/// A copy, written just now: on some machines a binary file written
/// minutes earlier starts measurably slower than a fresh copy of the same
/// bytes (0.26 ms a process on the one docs/PERFORMANCE.md was measured
/// on), so two runs timing binaries of different ages would compare the
/// files, not the builds. The copy is `jit-bench/jit` in the temporary
/// directory, replaced by every run; when it cannot be made, the binary
/// itself is timed and stderr says so.
pub(crate) fn jit_bin() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = std::env::var_os("JIT_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_jit")));
        match fresh_copy(&bin) {
            Ok(copy) => {
                eprintln!(
                    "timing {} (a fresh copy: {})",
                    bin.display(),
                    copy.display()
                );
                copy
            }
            Err(err) => {
                eprintln!("timing {} (no fresh copy: {err})", bin.display());
                bin
            }
        }
    })
}

/// Copies `bin` to a new file (a new inode, not an old one overwritten).
fn fresh_copy(bin: &Path) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join("jit-bench");
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join("jit");
    match std::fs::remove_file(&copy) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    std::fs::copy(bin, &copy)?;
    Ok(copy)
}
