//! When the `jit` binary carries its own copy of the unwinder (`libgcc_eh.a`) instead of loading `libgcc_s` at every start: the decision of `build.rs`, kept apart so tests can reach it.
//!
//! Rust's standard library unwinds a panic with libgcc's unwinder, which a
//! dynamically linked program on Linux with glibc loads from `libgcc_s.so.1`
//! at every start: one more shared library for the loader to find, map,
//! relocate and search for symbols, and its constructor, whose `cpuid`
//! instructions each trap to the hypervisor on a virtual machine. Every hook
//! call is a new process, so that is paid on every tool call. The same
//! unwinder, linked from GCC's static archive into the binary, is what
//! `-static-libgcc` gives C programs; the hook still catches a panic with it
//! (the build checks that before using it).

/// The build's target, as cargo describes it to the build script.
pub(crate) struct Target<'a> {
    /// `CARGO_CFG_TARGET_OS`.
    pub(crate) os: &'a str,
    /// `CARGO_CFG_TARGET_ENV`.
    pub(crate) env: &'a str,
    /// Whether `CARGO_CFG_TARGET_FEATURE` holds `crt-static`.
    pub(crate) crt_static: bool,
    /// Whether the target is the host's, so a probe program can run.
    pub(crate) native: bool,
    /// `JIT_STATIC_LIBGCC`: `off` keeps `libgcc_s`.
    pub(crate) opt_out: Option<&'a str>,
}

/// Whether the build should look for the archive and try it at all, or why
/// not.
pub(crate) fn worth_trying(target: &Target<'_>) -> Result<(), &'static str> {
    if target.opt_out == Some("off") {
        return Err("JIT_STATIC_LIBGCC=off");
    }
    if target.os != "linux" || target.env != "gnu" {
        return Err("the target is not Linux with glibc");
    }
    if target.crt_static {
        return Err("the binary is linked statically, with the unwinder in it already");
    }
    if !target.native {
        return Err("a cross build cannot run the probe that checks a panic is still caught");
    }
    Ok(())
}

/// The archive's path from what the C compiler driver printed for
/// `-print-file-name=libgcc_eh.a`: an absolute path when it has one, the
/// bare name when it has none.
pub(crate) fn archive_path(printed: &str) -> Option<&str> {
    let path = printed.trim_end_matches(['\n', '\r']);
    (path.starts_with('/') && path.ends_with("/libgcc_eh.a")).then_some(path)
}

/// The linker arguments that link every member of `archive` into the
/// binary: its definitions then come before `libgcc_s`'s, which the linker
/// (told `--as-needed` by rustc) leaves out as unneeded. Linked as a whole,
/// since rustc names `libgcc_s` before any argument a build script adds.
pub(crate) fn archive_args(archive: &str) -> [String; 3] {
    [
        "-Wl,--whole-archive".to_owned(),
        archive.to_owned(),
        "-Wl,--no-whole-archive".to_owned(),
    ]
}

/// The arguments for the `jit` binary, given whether a probe program linked
/// with them caught a panic, or why there are none.
pub(crate) fn link_args(archive: &str, probe_caught: bool) -> Result<[String; 3], &'static str> {
    if !probe_caught {
        return Err("a program linked with it did not catch a panic");
    }
    Ok(archive_args(archive))
}

/// The probe: it exits successfully and prints `caught` only when the
/// unwinder it was linked with carried a panic to `catch_unwind`.
pub(crate) const PROBE_SOURCE: &str = r#"fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let caught = std::panic::catch_unwind(|| {
        if std::env::args().count() < usize::MAX {
            panic!("probe");
        }
    })
    .is_err();
    print!("{}", if caught { "caught" } else { "not caught" });
}
"#;

/// Whether what the probe printed says it caught its panic.
pub(crate) fn probe_caught(succeeded: bool, stdout: &[u8]) -> bool {
    succeeded && stdout == b"caught"
}
