//! Workspace-level integration tests, compiled as one binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

mod call_limits;
mod conventions;
mod engine;
mod escaping_names;
mod frontmatter_hostile;
mod harness;
mod hostile;
mod session;
mod startup;
mod tools;
mod vocabulary;
mod watch;
