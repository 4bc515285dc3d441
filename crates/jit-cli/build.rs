//! Links the `jit` binary with packed relative relocations where the C
//! library it is built for reads them (see `build/relr.rs`).

use std::env;
use std::process::Command;

#[path = "build/relr.rs"]
mod relr;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build/relr.rs");
    println!("cargo::rerun-if-env-changed=JIT_PACK_RELOCS");
    let var = |key: &str| env::var(key).unwrap_or_default();
    let build = relr::Build {
        target_os: var("CARGO_CFG_TARGET_OS"),
        target_env: var("CARGO_CFG_TARGET_ENV"),
        target_features: var("CARGO_CFG_TARGET_FEATURE"),
        native: var("HOST") == var("TARGET"),
        opt: env::var("JIT_PACK_RELOCS").ok(),
        libc: Command::new("getconf")
            .arg("GNU_LIBC_VERSION")
            .output()
            .ok()
            .filter(|out| out.status.success())
            .and_then(|out| String::from_utf8(out.stdout).ok()),
    };
    if build.packs() {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
