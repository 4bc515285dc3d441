//! The README's code, compiled: its Rust examples run as this library's doctests, so the library section cannot drift from the API.
#![doc = include_str!("../../README.md")]
