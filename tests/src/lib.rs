//! Shared helpers for the workspace integration tests live in `all.rs`; this library target is empty.
