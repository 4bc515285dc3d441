//! Links the `jit` binary with the functions a hook call runs placed together, listed in `link-order.txt`, when the build's linker takes an ordering file (see `build/link_order.rs`).

#[path = "build/link_order.rs"]
mod link_order;

use std::env;
use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-changed=build/link_order.rs");
    println!("cargo:rerun-if-env-changed=JIT_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let order_file = format!("{}/link-order.txt", env!("CARGO_MANIFEST_DIR"));
    let opt_out = env::var("JIT_LINK_ORDER").ok();
    let linker_accepts = opt_out.as_deref() != Some("off") && linker_accepts(&order_file);
    let build = link_order::Build {
        opt_out: opt_out.as_deref(),
        order_file: &order_file,
        linker_accepts,
    };
    if let Ok(args) = link_order::link_args(&build) {
        for arg in args {
            println!("cargo:rustc-link-arg-bin=jit={arg}");
        }
    }
}

/// Whether this build's rustc, target, flags and linker link an empty
/// program with the ordering arguments: the only sure answer, since which
/// linker rustc runs depends on its version, how it was built, the target
/// and the user's configuration.
fn linker_accepts(order_file: &str) -> bool {
    let Some(out_dir) = env::var_os("OUT_DIR") else {
        return false;
    };
    let out_dir = Path::new(&out_dir);
    let source = out_dir.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    command
        .arg("--crate-type=bin")
        .arg("-o")
        .arg(out_dir.join("link_probe"));
    if let Ok(target) = env::var("TARGET") {
        command.arg("--target").arg(target);
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    command.args(flags.split('\x1f').filter(|flag| !flag.is_empty()));
    if let Ok(linker) = env::var("RUSTC_LINKER") {
        command.arg("-C").arg(format!("linker={linker}"));
    }
    for arg in link_order::order_args(order_file) {
        command.arg("-C").arg(format!("link-arg={arg}"));
    }
    command
        .arg(&source)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
