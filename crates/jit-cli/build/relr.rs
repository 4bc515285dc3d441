//! Whether the `jit` binary is linked with packed relative relocations
//! (`DT_RELR`, `-z pack-relative-relocs`): shared by the build script and
//! its tests.
//!
//! Every hook call starts `jit` afresh, and the dynamic loader's pass over
//! the binary's 22,000 relative relocations is a good part of what a start
//! costs. Packed, their table shrinks from 537 KB to 6 KB and the loader
//! walks a bitmap instead; a hook call starts about 0.15-0.2 ms sooner.
//! glibc's loader reads `DT_RELR` from version 2.36 on, and a binary
//! packed this way names that need (`GLIBC_ABI_DT_RELR`), so an older
//! glibc refuses to start it: the binary is packed only when it is built
//! for the glibc it is built on (no cross build) and that glibc is 2.36 or
//! newer, and not when linked statically. `JIT_PACK_RELOCS=0` turns it off.

/// The oldest glibc whose loader reads packed relative relocations.
pub(crate) const OLDEST_GLIBC: (u32, u32) = (2, 36);

/// What decides the packing, as the build script reads it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Build {
    /// `CARGO_CFG_TARGET_OS`.
    pub(crate) target_os: String,
    /// `CARGO_CFG_TARGET_ENV`.
    pub(crate) target_env: String,
    /// `CARGO_CFG_TARGET_FEATURE` (comma-separated).
    pub(crate) target_features: String,
    /// Whether `HOST` and `TARGET` are the same.
    pub(crate) native: bool,
    /// `JIT_PACK_RELOCS`, when set.
    pub(crate) opt: Option<String>,
    /// What `getconf GNU_LIBC_VERSION` printed, when it ran.
    pub(crate) libc: Option<String>,
}

impl Build {
    /// Whether to pass `-z pack-relative-relocs` to the linker.
    pub(crate) fn packs(&self) -> bool {
        self.opt.as_deref() != Some("0")
            && self.target_os == "linux"
            && self.target_env == "gnu"
            && self.native
            && !self.target_features.split(',').any(|f| f == "crt-static")
            && self
                .libc
                .as_deref()
                .and_then(glibc_version)
                .is_some_and(|version| version >= OLDEST_GLIBC)
    }
}

/// The version in `getconf GNU_LIBC_VERSION`'s output (`glibc 2.36`).
pub(crate) fn glibc_version(text: &str) -> Option<(u32, u32)> {
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
