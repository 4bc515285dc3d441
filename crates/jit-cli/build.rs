//! Links the `jit` binary with the functions a hook call runs placed together, listed in `link-order.txt` (see `build/link_order.rs`).

#[path = "build/link_order.rs"]
mod link_order;

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-changed=build/link_order.rs");
    println!("cargo:rerun-if-env-changed=JIT_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let target = env::var("TARGET").unwrap_or_default();
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok());
    let rustflags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let linker = env::var("RUSTC_LINKER").ok();
    let opt_out = env::var("JIT_LINK_ORDER").ok();
    let order_file = format!("{}/link-order.txt", env!("CARGO_MANIFEST_DIR"));
    let build = link_order::Build {
        target: &target,
        rustc: version.as_deref(),
        rustflags: &rustflags,
        linker: linker.as_deref(),
        opt_out: opt_out.as_deref(),
        order_file: &order_file,
    };
    if let Ok(args) = link_order::link_args(&build) {
        for arg in args {
            println!("cargo:rustc-link-arg-bin=jit={arg}");
        }
    }
}
