//! Which `jit` binary a whole-process benchmark times.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A binary under test: where it came from, and the copy that is timed.
struct Timed {
    source: PathBuf,
    copy: PathBuf,
}

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
pub(crate) fn jit_bin() -> &'static Path {
    &jit_timed().copy
}

fn jit_timed() -> &'static Timed {
    static BIN: OnceLock<Timed> = OnceLock::new();
    BIN.get_or_init(|| {
        let given = std::env::var_os("JIT_BENCH_BIN").map(PathBuf::from);
        if given.is_none() {
            // `link-order.txt` names the workspace's and its dependencies'
            // functions with the release profile's symbol hashes, which a
            // `bench` build does not share (docs/PERFORMANCE.md).
            eprintln!(
                "note: this is the `bench` profile's build, linked without most of the link \
                 order; to time the release build, copy it out of target/release first (cargo \
                 bench puts its own build there) and pass the copy as JIT_BENCH_BIN"
            );
        }
        let source = given.unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_jit")));
        timed("timing", source, "jit")
    })
}

/// `$JIT_BENCH_BASE` when it is set: another build of `jit` to time side by
/// side with [`jit_bin`], the two alternating in one run. Both are copied
/// afresh at the same moment, now (`jit-bench/base` beside `jit-bench/jit`),
/// whatever the first copies' age by then.
#[allow(
    dead_code,
    reason = "only the benchmarks that compare two builds use it"
)]
pub(crate) fn fresh_base() -> Option<&'static Path> {
    static BASE: OnceLock<Timed> = OnceLock::new();
    let source = PathBuf::from(std::env::var_os("JIT_BENCH_BASE")?);
    let jit = jit_timed();
    let base = BASE.get_or_init(|| timed("and beside it", source, "base"));
    for (timed, name) in [(jit, "jit"), (base, "base")] {
        // A binary timed in place (no copy could be made) stays as it is.
        if timed.copy != timed.source
            && let Err(err) = fresh_copy(&timed.source, name)
        {
            eprintln!("could not copy {} again: {err}", timed.source.display());
        }
    }
    Some(&base.copy)
}

/// A fresh copy of `source` named `name`, or `source` itself when none can
/// be made; says which on stderr after `what`.
fn timed(what: &str, source: PathBuf, name: &str) -> Timed {
    match fresh_copy(&source, name) {
        Ok(copy) => {
            eprintln!(
                "{what} {} (a fresh copy: {})",
                source.display(),
                copy.display()
            );
            Timed { source, copy }
        }
        Err(err) => {
            eprintln!("{what} {} (no fresh copy: {err})", source.display());
            Timed {
                copy: source.clone(),
                source,
            }
        }
    }
}

/// Copies `bin` to a new file `name` (a new inode, not an old one
/// overwritten).
fn fresh_copy(bin: &Path, name: &str) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join("jit-bench");
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join(name);
    match std::fs::remove_file(&copy) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    std::fs::copy(bin, &copy)?;
    Ok(copy)
}
