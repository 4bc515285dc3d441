//! Tests of `jit bash`.
