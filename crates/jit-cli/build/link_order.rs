//! When the `jit` binary is linked with its hot functions placed together: the decision of `build.rs`, kept apart so tests can reach it.

/// What the decision depends on, as the build script finds it.
pub(crate) struct Build<'a> {
    /// The target triple (`TARGET`).
    pub(crate) target: &'a str,
    /// `rustc -V`'s output (`rustc 1.95.0 (59807616e 2026-04-14)`), if it ran.
    pub(crate) rustc: Option<&'a str>,
    /// The flags passed to rustc (`CARGO_ENCODED_RUSTFLAGS`, `\x1f`-separated).
    pub(crate) rustflags: &'a str,
    /// The linker configured for the target (`RUSTC_LINKER`), if any.
    pub(crate) linker: Option<&'a str>,
    /// `JIT_LINK_ORDER`: `off` turns the ordering off.
    pub(crate) opt_out: Option<&'a str>,
    /// The ordering file, an absolute path.
    pub(crate) order_file: &'a str,
}

/// The first rustc release that links `x86_64-unknown-linux-gnu` with its
/// own `lld` by default, the linker that reads `--symbol-ordering-file`.
const FIRST_LLD_MINOR: u32 = 90;

/// The linker arguments that place the listed functions together, or why
/// there are none: only with the `lld` rustc links with by default (GNU
/// `ld` knows no `--symbol-ordering-file` and would fail the link), so not
/// for another target, an older rustc, a configured linker, or flags that
/// choose one.
pub(crate) fn link_args(build: &Build<'_>) -> Result<[String; 2], &'static str> {
    if build.opt_out == Some("off") {
        return Err("JIT_LINK_ORDER=off");
    }
    if build.target != "x86_64-unknown-linux-gnu" {
        return Err("rustc links other targets with other linkers");
    }
    match build.rustc.and_then(rustc_minor) {
        Some(minor) if minor >= FIRST_LLD_MINOR => {}
        Some(_) => return Err("this rustc links with the system linker by default"),
        None => return Err("the rustc version is unknown"),
    }
    if build.linker.is_some() {
        return Err("a linker is configured for the target");
    }
    let chooses_linker = build.rustflags.split('\x1f').any(|flag| {
        ["linker", "fuse-ld", "link-self-contained"]
            .iter()
            .any(|word| flag.contains(word))
    });
    if chooses_linker {
        return Err("the rustc flags choose the linker");
    }
    if build.order_file.contains(',') {
        // `-Wl,` splits its argument at commas.
        return Err("the ordering file's path holds a comma");
    }
    Ok([
        format!("-Wl,--symbol-ordering-file={}", build.order_file),
        // A function the list names and this build no longer has is no error.
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ])
}

/// The minor version in `rustc -V`'s output (`95` in `rustc 1.95.0 (…)`).
fn rustc_minor(version: &str) -> Option<u32> {
    let number = version.strip_prefix("rustc ")?.split([' ', '-']).next()?;
    let mut parts = number.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
