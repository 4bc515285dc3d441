//! Extract and expand `@path` imports in rule files, CJK punctuation included.
//!
//! A rule file (`CLAUDE.md`, `AGENTS.md`…) imports another file by writing
//! `@path/to/file`. Chinese and Japanese prose glue the token to the words
//! around it (`见 @NOTE.md，然后继续`, `タスクは@docs/TODO.mdで確認`), so the
//! token ends at CJK punctuation as well as whitespace, decided during
//! extraction rather than by stripping afterwards. [`extract`] is pure;
//! [`expand`] resolves each import under a [`Policy`] (depth, size, project
//! containment by real path and path segment), inlines what it may, and
//! reports everything else as a [`Diagnostic`] while keeping the original text.
//!
//! ```
//! use jit_imports::{ImportStatus, Policy, expand, extract};
//!
//! let targets: Vec<_> = extract("见「@NOTE.md」后续，`@not/code.md`").into_iter().map(|i| i.target).collect();
//! assert_eq!(targets, ["NOTE.md"]);
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("NOTE.md"), "Run the tests.\n")?;
//! let rule = dir.path().join("CLAUDE.md");
//! let out = expand(&rule, "见 @NOTE.md。然后继续", dir.path(), &Policy::default());
//! assert_eq!(out.imports[0].status, ImportStatus::Ok);
//! assert!(out.expanded.contains("<!-- import: NOTE.md -->\nRun the tests.\n<!-- end import: NOTE.md -->。"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Deliberately absent: no git, no YAML, no frontmatter parsing (the engine
//! owns that); no guessing whether `@Component` or `@media` was meant as an
//! import (it is extracted, reported `missing`, and stays in the text; write it
//! in a code span to silence it); no first-character whitelist, so CJK paths
//! such as `@文档/说明.md` are legal.
#![deny(missing_docs)]

mod error;
mod expand;
mod extract;
mod policy;
mod read;
mod resolve;

pub use error::{Error, ErrorKind};
pub use expand::{
    Diagnostic, Expansion, FileStamp, ImportRecord, ImportStatus, MAX_CYCLE_CHAIN_SHOWN,
    RefusalReason, expand, expand_file,
};
pub use extract::{CJK_PUNCTUATION, Import, extract};
pub use policy::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_IMPORTS, Policy};

/// A hash map keyed by paths met in one expansion, hashed with foldhash
/// (seeded at random per process, like the standard library's SipHash,
/// and without the system call that seeds it).
type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set hashed like [`Map`].
type Set<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
