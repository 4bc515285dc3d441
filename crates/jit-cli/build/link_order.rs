//! When the `jit` binary is linked with its hot functions placed together: the decision of `build.rs`, kept apart so tests can reach it.

/// What the decision depends on, as the build script finds it.
pub(crate) struct Build<'a> {
    /// `JIT_LINK_ORDER`: `off` turns the ordering off.
    pub(crate) opt_out: Option<&'a str>,
    /// The ordering file, an absolute path.
    pub(crate) order_file: &'a str,
    /// Whether this build's rustc and linker linked a program with the
    /// ordering arguments (the build script tries, with the build's target,
    /// flags and linker). rustc's own `lld` (the default for
    /// `x86_64-unknown-linux-gnu` since Rust 1.90) and mold take them; GNU
    /// `ld` knows no `--symbol-ordering-file` and would fail the link.
    pub(crate) linker_accepts: bool,
}

/// The linker arguments that place the listed functions together, or why
/// there are none.
pub(crate) fn link_args(build: &Build<'_>) -> Result<[String; 2], &'static str> {
    if build.opt_out == Some("off") {
        return Err("JIT_LINK_ORDER=off");
    }
    if build.order_file.contains(',') {
        // `-Wl,` splits its argument at commas.
        return Err("the ordering file's path holds a comma");
    }
    if !build.linker_accepts {
        return Err("this build's linker does not take an ordering file");
    }
    Ok(order_args(build.order_file))
}

/// The arguments that hand `order_file` to the linker.
pub(crate) fn order_args(order_file: &str) -> [String; 2] {
    [
        format!("-Wl,--symbol-ordering-file={order_file}"),
        // A function the list names and this build does not have is no error.
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ]
}
