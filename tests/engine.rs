//! Integration tests: engine (filled in with the capability they test).
