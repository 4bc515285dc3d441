//! The audit's negatives: a test binary of its own registers broken tools, so they never reach the binaries that assert the audit passes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use jit_core::{
    AuditProblem, Registry, ReporterRegistration, ToolRegistration, TouchesNothing, inventory,
};
use pretty_assertions::assert_eq;

// `inventory` registrations are global to a binary: these three mistakes
// exist only in this test binary, next to everything jit-tools registers.
use jit_tools as _;

// A tool registered without a reporter: its calls would never trigger rules.
inventory::submit! { ToolRegistration::new("orphan_tool", module_path!()) }

// A reporter for a tool no one registered (a typo, or a removed tool).
inventory::submit! { ReporterRegistration::new("ghost_tool", &TouchesNothing, module_path!()) }

// Two reporters for one tool: which one answers would depend on link order.
inventory::submit! { ToolRegistration::new("doubly_reported", module_path!()) }
inventory::submit! { ReporterRegistration::new("doubly_reported", &TouchesNothing, module_path!()) }
inventory::submit! { ReporterRegistration::new("doubly_reported", &TouchesNothing, module_path!()) }

const HERE: &str = "audit_negative";

#[test]
fn the_audit_fails_naming_every_broken_registration() {
    let report = jit_core::audit(&Registry::from_inventory()).unwrap_err();
    assert_eq!(
        report.problems(),
        [
            AuditProblem::DuplicateReporters {
                tool: "doubly_reported".into(),
                reporters_in: vec![HERE.into(), HERE.into()],
            },
            AuditProblem::ToolWithoutReporter {
                tool: "orphan_tool".into(),
                registered_in: vec![HERE.into()],
            },
            AuditProblem::ReporterWithoutTool {
                tool: "ghost_tool".into(),
                reporters_in: vec![HERE.into()],
            },
        ]
    );
    let text = report.to_string();
    for expected in [
        "tool registry audit failed (3 problems)",
        "tool `orphan_tool` (registered in `audit_negative`) has no path reporter",
        "jit_core::ReporterRegistration::new(\"orphan_tool\", &YourReporter, module_path!())",
        "a path reporter is registered for `ghost_tool` (in `audit_negative`) but no tool of that name is",
        "tool `doubly_reported` has 2 path reporters",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn an_unreported_tool_is_an_error_at_call_time_never_a_guess() {
    let registry = Registry::from_inventory();
    let err = registry
        .affected_paths(
            "orphan_tool",
            &serde_json::json!({"path": "src/a.rs"}),
            "/p".into(),
        )
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::UnregisteredTool);
    // The standard tools linked alongside still answer.
    let touched = registry
        .affected_paths(
            "read",
            &serde_json::json!({"file_path": "src/a.rs"}),
            "/p".into(),
        )
        .unwrap();
    assert_eq!(touched.paths, ["src/a.rs"]);
}

#[test]
fn a_checked_registry_refuses_to_exist_with_a_duplicate_reporter() {
    let report = Registry::checked().unwrap_err();
    assert_eq!(
        report,
        jit_core::audit(&Registry::from_inventory()).unwrap_err()
    );
    // Unchecked, the duplicate is still refused at call time rather than
    // answered by whichever registration `inventory` listed first.
    let err = Registry::from_inventory()
        .affected_paths("doubly_reported", &serde_json::json!({}), "/p".into())
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::AmbiguousTool);
}

#[test]
fn a_session_over_a_failed_registry_refuses_tool_calls_with_the_report() {
    assert!(jit_core::SessionConfig::checked().is_err());
    let dir = tempfile::tempdir().unwrap();
    let engine = std::sync::Arc::new(jit_core::Engine::new(dir.path()).unwrap());
    let root = engine.root().to_owned();
    let mut session = jit_core::Session::new(engine, jit_core::SessionConfig::new());
    let err = session
        .tool_call("read", &serde_json::json!({"file_path": "a.rs"}), &root)
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::FailedAudit);
    assert!(
        err.to_string()
            .starts_with("no tool call can be answered: tool registry audit failed (3 problems)"),
        "{err}"
    );
    // Call by call too: the audit, not one call, is what failed.
    let err = session
        .tool_batch_each(
            &[jit_core::ToolCall::new(
                "read",
                serde_json::json!({"file_path": "a.rs"}),
            )],
            &root,
        )
        .unwrap_err();
    assert_eq!(err.kind(), jit_core::ErrorKind::FailedAudit);
    assert_eq!(session.step(), 0);
    // A touch needs no registry.
    assert_eq!(session.touch("a.rs".into(), &root).step, 1);
}
