//! Benchmark fixtures for the workspace: a seeded, generated monorepo with rules on a deep chain, and a counting global allocator.
//!
//! [`generate`] writes a tree shaped like a real monorepo — thousands of
//! directories up to [`DEPTH`] levels deep, `CLAUDE.md` and `AGENTS.md`
//! files spread over them, a root `CLAUDE.md` with `@` imports, scoped rules
//! in `.claude/rules` at the root and deeper — and says where its benchmark
//! path is ([`Tree::deep_file`]) and which rules that path must load
//! ([`Tree::chain_rules`]). The same [`Spec`] always gives a byte-identical
//! tree: names, contents and placement come from a hand-written PRNG seeded
//! by [`Spec::seed`].
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let spec = bench_tree::Spec {
//!     files: 200,
//!     dirs: 40,
//!     memory_files: 12,
//!     ..bench_tree::Spec::monorepo_20k()
//! };
//! let tree = bench_tree::generate(&dir.path().join("repo"), &spec)?;
//! assert_eq!(tree.dirs.len(), 40);
//! assert_eq!(tree.chain_rules.len(), 8);
//! assert!(tree.root.join(&tree.deep_file).is_file());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It does not run anything on the tree, and it depends on no workspace
//! crate: the benchmarks that use it check the engine's answers themselves.
#![deny(missing_docs)]

mod alloc;
mod evict;
mod rng;
mod scratch;
mod tree;

pub use alloc::CountingAlloc;
pub use evict::{EVICT_BYTES, evict_cpu_caches};
pub use scratch::{fixture_dir, remove_scratch};
pub use tree::{CHAIN, DEPTH, ROOT_RULES, Spec, Tree, generate};
