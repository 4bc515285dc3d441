//! When the build links `jit` with its hot functions placed together, and the list it reads.

#[path = "../build/link_order.rs"]
mod link_order;

use link_order::{Build, link_args};

/// A build whose linker took the ordering arguments.
fn accepting() -> Build<'static> {
    Build {
        opt_out: None,
        order_file: "/src/jit-cli/link-order.txt",
        linker_accepts: true,
    }
}

#[test]
fn a_linker_that_takes_the_order_file_gets_it() {
    assert_eq!(
        link_args(&accepting()),
        Ok([
            "-Wl,--symbol-ordering-file=/src/jit-cli/link-order.txt".to_owned(),
            "-Wl,--no-warn-symbol-ordering".to_owned(),
        ])
    );
    // Another value of the opt-out is none.
    let build = Build {
        opt_out: Some("on"),
        ..accepting()
    };
    assert!(link_args(&build).is_ok());
}

/// GNU `ld` knows no `--symbol-ordering-file`: a build whose linker did not
/// take it goes without, as does one that opts out or whose path `-Wl,`
/// would split.
#[test]
fn a_build_whose_linker_refused_or_that_opts_out_goes_without() {
    for build in [
        Build {
            linker_accepts: false,
            ..accepting()
        },
        Build {
            opt_out: Some("off"),
            ..accepting()
        },
        Build {
            order_file: "/src/a,b/link-order.txt",
            ..accepting()
        },
    ] {
        assert!(link_args(&build).is_err(), "{}", build.order_file);
    }
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
