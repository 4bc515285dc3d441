//! Tool path self-report across the workspace: the registry audit passes, its sorted listing is pinned, and the design's examples hold.

use std::collections::BTreeMap;

use camino::Utf8Path;
use jit_core::Registry;
use pretty_assertions::assert_eq;
use serde_json::json;

// Plug-in crates register through `inventory`; naming them keeps their
// registrations linked into this test binary. Nothing in this binary may
// register a tool of its own through `inventory`, or the audit below would
// judge it too: negative cases live in `crates/jit-tools/tests/audit_negative.rs`.
use jit_tools as _;

/// Plain `cargo test` enforces the same registry audit as `cargo xtask audit`.
#[test]
fn every_registered_tool_has_exactly_one_reporter() {
    if let Err(report) = jit_core::audit(&Registry::from_inventory()) {
        panic!("{report}");
    }
}

/// Every agent tool name the hook maps names a registered tool with a
/// reporter; `cargo xtask audit` runs the same check.
#[test]
fn every_agent_table_entry_names_a_reported_tool() {
    if let Err(problems) = jit_tools::audit_agent_tables(&Registry::from_inventory()) {
        panic!("{}", problems.join("\n"));
    }
}

/// A reporter that silently stops being linked, or a new one, turns this red.
#[test]
fn the_sorted_registry() {
    let registry = Registry::from_inventory();
    let mut names: Vec<&str> = registry.tools().chain(registry.reported_tools()).collect();
    names.sort_unstable();
    names.dedup();
    // Tool name -> where its reporter is registered; the audit above judges
    // anything but exactly one reporter per registered tool.
    let listing: BTreeMap<&str, String> = names
        .into_iter()
        .map(|tool| {
            let reporters = registry.reporter_sources(tool).join(", ");
            let entry = match (registry.tool_sources(tool).is_empty(), reporters.is_empty()) {
                (false, false) => reporters,
                (false, true) => "(no reporter)".to_owned(),
                (true, _) => format!("{reporters} (tool not registered)"),
            };
            (tool, entry)
        })
        .collect();
    insta::assert_yaml_snapshot!("registry", listing);
}

#[track_caller]
fn check(tool: &str, input: serde_json::Value, expected: &[&str]) {
    let touched = Registry::from_inventory()
        .affected_paths(tool, &input, Utf8Path::new("/project"))
        .unwrap_or_else(|err| panic!("{tool} {input}: {err}"));
    assert_eq!(touched.paths, expected, "{tool} {input}");
}

#[test]
fn the_designs_examples() {
    check("glob", json!({"pattern": "src/ui/**/*.tsx"}), &["src/ui"]);
    check("glob", json!({"pattern": "src/api/*.ts"}), &["src/api"]);
    check("glob", json!({"pattern": "**/*.ts"}), &[]);
    check("grep", json!({"path": "src", "pattern": "ui/**"}), &["src"]);
    check("grep", json!({"pattern": r"src/\w+\.ts"}), &[]);
    check(
        "read",
        json!({"file_path": "./src/ui/Footer.tsx"}),
        &["src/ui/Footer.tsx"],
    );
    check(
        "bash",
        json!({"command": "cp a.ts b.ts src/ui/"}),
        &["src/ui/"],
    );
    check("bash", json!({"command": "rm src/ui/Old.tsx"}), &[]);
    check("web_fetch", json!({"url": "https://example.com"}), &[]);
    check(
        "apply_patch",
        json!({"command": "*** Begin Patch\n*** Add File: src/ui/Badge.tsx\n+x\n*** End Patch"}),
        &["src/ui/Badge.tsx"],
    );
}

#[test]
fn an_unknown_tool_is_an_error_never_a_guess() {
    let err = Registry::from_inventory()
        .affected_paths(
            "mcp_fs_read",
            &json!({"path": "src/a.rs"}),
            Utf8Path::new("/project"),
        )
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::UnregisteredTool);
    assert!(err.to_string().contains("glob"), "{err}");
}
