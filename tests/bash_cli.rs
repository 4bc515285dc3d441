//! Integration tests: bash_cli (filled in with the capability they test).
