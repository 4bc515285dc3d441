//! Cost of asking the registry which paths a tool call touched, per tool, and of the glob static prefix alone.
//!
//! Run with `cargo bench -p jit-tools --bench reporters`.
//!
//! * `static_prefix`: one pattern's prefix, for a short and a long pattern.
//! * `from_inventory`: building the registry from every linked registration
//!   (done once per harness, not per call).
//! * `affected_paths`: one call through the registry: lookup, input
//!   validation, normalisation (and for `bash`, the shell parse; for
//!   `apply_patch`, the header scan).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::sync::OnceLock;

use camino::Utf8Path;
use jit_core::Registry;
use serde_json::{Value, json};

// Naming the crate links its registrations into this binary.
use jit_tools as _;

fn main() {
    divan::main();
}

#[divan::bench(args = ["src/ui/**/*.tsx", "./packages/web/src/features/billing/{ui,api}/[A-Z]*.tsx"])]
fn static_prefix(pattern: &str) -> Option<camino::Utf8PathBuf> {
    jit_tools::static_prefix(divan::black_box(pattern))
}

#[divan::bench]
fn from_inventory() -> Registry {
    Registry::from_inventory()
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::from_inventory)
}

fn call(tool: &str) -> Value {
    match tool {
        "read" => json!({"file_path": "./src/ui/components/Footer.tsx", "offset": 1, "limit": 200}),
        "glob" => json!({"pattern": "src/ui/**/*.tsx"}),
        "grep" => json!({"pattern": r"fn \w+\(", "path": "src"}),
        "bash" => {
            json!({"command": "mkdir -p src/ui/sub && cp a.ts b.ts src/ui/ 2> build/err.log"})
        }
        "apply_patch" => {
            json!({"command": "*** Begin Patch\n*** Update File: src/ui/Footer.tsx\n@@ fn footer\n-a\n+b\n*** Add File: src/ui/Badge.tsx\n+export const Badge = 1;\n*** End Patch"})
        }
        other => panic!("no benchmark input for {other}"),
    }
}

#[divan::bench(args = ["read", "glob", "grep", "bash", "apply_patch"])]
fn affected_paths(bencher: divan::Bencher, tool: &str) {
    let registry = registry();
    let input = call(tool);
    let cwd = Utf8Path::new("/project");
    bencher.bench(|| {
        registry
            .affected_paths(divan::black_box(tool), divan::black_box(&input), cwd)
            .unwrap()
    });
}
