//! When the build links `jit` with its hot functions placed together, and the list it reads.

#[path = "../build/link_order.rs"]
mod link_order;

use link_order::{Build, link_args};

const RUSTC: &str = "rustc 1.95.0 (59807616e 2026-04-14)";

/// The build of this workspace's CI: the default linker, no flags.
fn default_build() -> Build<'static> {
    Build {
        target: "x86_64-unknown-linux-gnu",
        rustc: Some(RUSTC),
        rustflags: "",
        linker: None,
        opt_out: None,
        order_file: "/src/jit-cli/link-order.txt",
    }
}

#[test]
fn the_default_linker_gets_the_order_file() {
    assert_eq!(
        link_args(&default_build()),
        Ok([
            "-Wl,--symbol-ordering-file=/src/jit-cli/link-order.txt".to_owned(),
            "-Wl,--no-warn-symbol-ordering".to_owned(),
        ])
    );
    // Flags that choose nothing about the linker leave it so.
    let build = Build {
        rustflags: "-Ctarget-feature=+crt-static\x1f-Cdebuginfo=1",
        ..default_build()
    };
    assert!(link_args(&build).is_ok());
    // The first release that links with lld by default, a nightly of it.
    for rustc in [
        "rustc 1.90.0 (abc 2025-09-14)",
        "rustc 1.90.0-nightly (abc 2025-07-01)",
    ] {
        let build = Build {
            rustc: Some(rustc),
            ..default_build()
        };
        assert!(link_args(&build).is_ok(), "{rustc}");
    }
}

/// GNU `ld` knows no `--symbol-ordering-file`: the link would fail, so
/// every build that may not use rustc's own lld goes without the order.
#[test]
fn a_build_that_may_use_another_linker_goes_without() {
    let cases = [
        Build {
            opt_out: Some("off"),
            ..default_build()
        },
        Build {
            target: "aarch64-unknown-linux-gnu",
            ..default_build()
        },
        Build {
            target: "x86_64-unknown-linux-musl",
            ..default_build()
        },
        Build {
            rustc: Some("rustc 1.89.0 (29483883e 2025-08-04)"),
            ..default_build()
        },
        Build {
            rustc: Some("rustc 2.0.0 (abc 2030-01-01)"),
            ..default_build()
        },
        Build {
            rustc: Some("not a version"),
            ..default_build()
        },
        Build {
            rustc: None,
            ..default_build()
        },
        Build {
            linker: Some("/usr/bin/cc"),
            ..default_build()
        },
        Build {
            rustflags: "-Clink-arg=-fuse-ld=mold",
            ..default_build()
        },
        Build {
            rustflags: "-Copt-level=3\x1f-Clinker-features=-lld",
            ..default_build()
        },
        Build {
            rustflags: "-Clink-self-contained=-linker",
            ..default_build()
        },
        Build {
            order_file: "/src/a,b/link-order.txt",
            ..default_build()
        },
    ];
    for build in &cases {
        assert!(
            link_args(build).is_err(),
            "{} {:?} {:?} {:?} {:?}",
            build.target,
            build.rustc,
            build.rustflags,
            build.linker,
            build.opt_out
        );
    }
    // Another opt-out value is none.
    let build = Build {
        opt_out: Some("on"),
        ..default_build()
    };
    assert!(link_args(&build).is_ok());
}

/// The list is what lld reads: comments, and one symbol a line.
#[test]
fn the_order_file_lists_symbols_of_the_hook_path() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/link-order.txt"))
        .expect("link-order.txt is committed");
    let symbols: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    assert!(symbols.len() > 100, "{} symbols", symbols.len());
    for symbol in &symbols {
        assert!(
            symbol
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')),
            "not a symbol name: {symbol}"
        );
    }
    let rust = symbols
        .iter()
        .filter(|s| s.starts_with("_ZN") || s.starts_with("_R"))
        .count();
    assert!(rust * 10 > symbols.len() * 9, "{rust} of {}", symbols.len());
    // The hook's own entry point and the engine's scan are on it.
    for wanted in ["4hook3run6handle", "4scan7DirScan3run"] {
        assert!(
            symbols.iter().any(|s| s.contains(wanted)),
            "no symbol with {wanted}"
        );
    }
}
