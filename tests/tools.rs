//! Integration tests: tools (filled in with the capability they test).
