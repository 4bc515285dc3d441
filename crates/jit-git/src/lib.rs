//! Git change signals for the startup rule load, read through gix.
//!
//! At session start no file has been touched yet, so the startup load
//! matches `paths:` scopes against *signals*: the directory the session works
//! in (a marker with a trailing `/`) and the files git reports as changed
//! inside it. This crate lists those changed files through
//! [gix](https://docs.rs/gix) — the same paths as
//! `git status --porcelain -z -uall`, untracked files one by one — and builds
//! the signals from any [`jit_base::ChangeSource`].
//!
//! ```no_run
//! use camino::Utf8Path;
//! use jit_git::{GitChanges, startup_signals};
//!
//! let root = Utf8Path::new("/work/project");
//! let signals = startup_signals(root, &root.join("src/ui"), &GitChanges::new());
//! // For example ["src/ui/", "src/ui/Badge.tsx"].
//! println!("{:?}", signals.signals);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! When the index carries git's untracked cache (`core.untrackedCache`,
//! which `feature.manyFiles` turns on), the untracked files of every
//! directory unchanged since `git status` wrote it (its `lstat` data, its
//! `.gitignore` and every one above it, the global ignore files) are read
//! from the cache, as `git status` reads them, and only the other
//! directories are walked: one `lstat` per directory instead of reading it.
//! A cache that cannot be trusted (written in the second of a change, for
//! other ignore files, with the top directory changed since) is left aside
//! and the whole worktree walked as without one.
//! With the cache in use, the tracked files are compared with the `stat`
//! data the index recorded for them, as `git status` compares them (on
//! Linux, on threads), and gix reads only the ones that comparison cannot
//! prove unchanged: changed, changed in the second the index was written,
//! behind a symbolic link, flagged, in conflict, or a submodule.
//!
//! No program runs, whatever the configuration says (the repository's
//! `.git/config`, a file it includes, a submodule's configuration, the
//! user's global configuration when it is read): no filter driver
//! (`filter.<driver>.clean`, `.smudge`, `.process`), no `diff.<driver>.textconv`
//! or external diff, no `core.fsmonitor` hook, no hook, no credential helper
//! or `core.askPass`. A repository jit runs in is untrusted input. The
//! comparison of tracked files is built with a filter pipeline that has no
//! driver at all, and a tracked file whose comparison would need one (its
//! `filter` attribute names a driver with a `clean` or `process` program)
//! counts as changed without being read: a conservative signal, never a
//! command. A file whose `stat` data proves it unchanged needs no
//! comparison and is not listed. Submodules get this crate's own status.
//!
//! What it deliberately does not do: it never spawns `git`, never writes to
//! the repository (not even the refreshed index that `git status` may write),
//! does not detect renames (both paths of a rename are listed anyway), does
//! not check the index's trailing checksum (nor does `git status`; only `git
//! fsck` does, and hashing a large index is a tenth of a start), and does
//! not decide which rules load — that is `jit-core`'s engine.
#![deny(missing_docs)]

mod error;
mod staged;
mod stat_check;
mod status;
mod tracked;
mod untracked_cache;
mod worktree;

/// The repository helper the unit tests share with the integration tests.
#[cfg(test)]
#[path = "../tests/support/repo.rs"]
#[allow(
    dead_code,
    clippy::unwrap_used,
    reason = "shared with the integration tests, which use other parts; tests fail loudly on broken fixtures"
)]
mod test_repo;

#[cfg(test)]
impl test_repo::Repo {
    /// The repository as the status opens it, reading only its own
    /// configuration.
    #[allow(clippy::unwrap_used, reason = "tests fail loudly on broken fixtures")]
    pub(crate) fn opened(&self) -> gix::Repository {
        GitChanges::new()
            .repository_config_only()
            .open(self.root())
            .unwrap()
    }
}

pub use error::{Error, ErrorKind};
pub use jit_base::{Signals, narrow_to_cwd};
pub use status::{GitChanges, changed_files};
pub use tracked::TrackedFiles;

/// The startup signals for a session in `cwd` of the project at `root`, with
/// `source` (usually [`GitChanges`]) for the changed files: the cwd marker
/// (`src/ui/`), then the changes inside the cwd subtree; the marker only,
/// with the reason, when the source fails. The engine's startup load computes
/// the same through [`jit_base::startup_signals`], which this calls.
pub fn startup_signals(
    root: &camino::Utf8Path,
    cwd: &camino::Utf8Path,
    source: &dyn jit_base::ChangeSource,
) -> Signals {
    jit_base::startup_signals(root, cwd, Some(source))
}
