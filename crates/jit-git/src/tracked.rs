//! The files a repository's index tracks, read through gix: what `git ls-files` lists.

use std::path::Path;

use gix::bstr::ByteSlice;

use crate::error::{Error, ErrorKind};
use crate::status::{GitChanges, canonical_root, describe, worktree_prefix};

/// The files git tracks under a directory, and the ones it could not name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrackedFiles {
    /// Paths relative to the directory asked about, `/`-separated, in the
    /// index's order (sorted by path bytes).
    pub files: Vec<String>,
    /// Index entries under the directory whose path is not UTF-8; they are
    /// counted, not dropped silently.
    pub not_utf8: usize,
}

impl GitChanges {
    /// The files the index tracks under `root` (the worktree root or any
    /// directory inside it), relative to `root`: the paths `git ls-files`
    /// prints there. Untracked files are not listed; the index is read as it
    /// is, without looking at the worktree.
    ///
    /// # Errors
    ///
    /// As [`GitChanges::changes`].
    pub fn tracked_files(&self, root: &Path) -> Result<TrackedFiles, Error> {
        let root = canonical_root(root)?;
        let repo = self.open(&root)?;
        let prefix = worktree_prefix(&repo, &root)?;
        let index = repo.index_or_empty().map_err(|err| {
            let message = format!(
                "cannot read the git index of {}: {}",
                root.display(),
                describe(&err)
            );
            Error::with_source(ErrorKind::Git, message, err)
        })?;
        let mut out = TrackedFiles::default();
        for entry in index.entries() {
            let path = entry.path(&index);
            let rel = if prefix.is_empty() {
                path
            } else {
                match path
                    .strip_prefix(prefix.as_slice())
                    .and_then(|rest| rest.strip_prefix(b"/"))
                {
                    Some(rest) => rest.as_bstr(),
                    None => continue,
                }
            };
            match rel.to_str() {
                Ok(rel) => out.files.push(rel.to_owned()),
                Err(_) => out.not_utf8 += 1,
            }
        }
        out.files.dedup();
        Ok(out)
    }
}
