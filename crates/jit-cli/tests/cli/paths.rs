//! Tests of `jit paths`.
