//! Integration tests: imports_cli (filled in with the capability they test).
