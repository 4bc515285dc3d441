//! Which `jit` binary a whole-process benchmark times.

use std::path::PathBuf;
use std::sync::OnceLock;

/// `$JIT_BENCH_BIN` when it is set (another build of `jit`: a statically
/// linked one, an older commit's), else the binary this workspace builds.
/// The benchmark says which on stderr the first time it is asked.
pub(crate) fn jit_bin() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = std::env::var_os("JIT_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_jit")));
        eprintln!("timing {}", bin.display());
        bin
    })
}
