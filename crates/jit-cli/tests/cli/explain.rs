//! Tests of `jit explain`.
