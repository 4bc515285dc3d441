//! Tests of `jit imports`.
