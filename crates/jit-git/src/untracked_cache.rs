//! The index's untracked cache (`UNTR`), read as `git status` reads it.
//!
//! With `core.untrackedCache` on (`feature.manyFiles` turns it on), `git
//! status` keeps in the index, for every directory it walked: the
//! directory's `lstat` data, the untracked entries it found there and the
//! object id of its `.gitignore`. A directory whose `lstat` data is the same
//! now, and was not changed in the second the index was written (git's
//! "racy" rule: a change in that second could leave the same data), has the
//! same entries as then; when its `.gitignore`, every `.gitignore` above it
//! and the two global ignore files (`$GIT_DIR/info/exclude`,
//! `core.excludesFile`) are unchanged too, its untracked files are still the
//! ones the cache lists. [`listing`] answers from the cache for those
//! directories and names every other one, to be walked whole as before: one
//! `lstat` per directory instead of reading it.
//!
//! The cache is trusted only as far as it proves itself: a directory it
//! lists without `lstat` data, that is not a directory now, or whose data
//! differs in any field git records (times to the nanosecond, device, inode,
//! owner, size) is walked; so is everything below it. A cache written for
//! another ignore file name, with listing flags other than git's two
//! (`-unormal` and `-uall`), whose global ignore files changed, or that
//! names an entry no directory can hold (`..`, a `/` inside a name) is not
//! used at all. An untracked directory it lists whole (`-unormal` collapses
//! one to `dir/`) and a nested repository are walked, so that their files
//! are listed one by one as `-uall` lists them.
//!
//! Like git, it opens a directory's `.gitignore` only when git read one
//! there: one git could not read when it wrote the cache (unreadable to the
//! user who ran it, or a symbolic link, which git does not follow) and that
//! became readable since without its directory changing goes unseen by
//! both.

use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::stat;
use gix::index::extension::untracked_cache::{Directory, OidStat};

/// What the untracked cache says about the untracked files under a prefix.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Listing {
    /// Untracked files the cache lists in directories that are as they
    /// were, worktree-relative.
    pub(crate) files: Vec<BString>,
    /// Directories to walk whole, worktree-relative without a trailing
    /// `/`: changed since the cache was written, or listed by it whole (an
    /// untracked directory, a nested repository).
    pub(crate) walk: Vec<BString>,
}

impl Listing {
    /// Adds `dir` to the directories to walk whole; `None` past
    /// [`MOST_WALKS`], when the whole walk is the cheaper one.
    fn walk_whole(&mut self, dir: BString) -> Option<()> {
        self.walk.push(dir);
        (self.walk.len() <= MOST_WALKS).then_some(())
    }
}

/// The listing flags of a cache written by `git status -unormal` (git's
/// `DIR_SHOW_OTHER_DIRECTORIES | DIR_HIDE_EMPTY_DIRECTORIES`): an untracked
/// directory is listed as `dir/`.
const FLAGS_NORMAL: u32 = 0b110;
/// The listing flags of a cache written with `status.showUntrackedFiles=all`:
/// every untracked file on its own.
const FLAGS_ALL: u32 = 0;

/// More directories to walk than this and the whole walk is cheaper than
/// one pathspec per directory.
pub(crate) const MOST_WALKS: usize = 64;

/// How a directory's recorded `lstat` data is compared with today's: every
/// field git records, times to the nanosecond.
const EXACT: stat::Options = stat::Options {
    trust_ctime: true,
    check_stat: true,
    use_nsec: true,
    use_stdev: true,
};

/// The racy rule at its strictest: a directory changed in the same second
/// as the index was written may have changed again since, unseen.
const RACY: stat::Options = stat::Options {
    trust_ctime: true,
    check_stat: true,
    use_nsec: false,
    use_stdev: true,
};

/// The untracked files under `prefix` (worktree-relative, empty for the
/// whole worktree) as far as the index's untracked cache can tell them, and
/// the directories it cannot tell, or `None` when the cache is absent,
/// cannot be used, or would leave the whole prefix to walk anyway.
///
/// `excludes_file` finds the global ignore file the status applies (the
/// cache's record of it must match), asked only when there is a cache.
pub(crate) fn listing(
    repo: &gix::Repository,
    index: &gix::index::State,
    prefix: &[u8],
    excludes_file: impl FnOnce() -> Option<PathBuf>,
) -> Option<Listing> {
    let cache = index.untracked()?;
    let workdir = repo.workdir()?;
    let hash = repo.object_hash();
    if cache.exclude_filename_per_dir() != ".gitignore"
        || !matches!(cache.dir_flags(), FLAGS_NORMAL | FLAGS_ALL)
    {
        return None;
    }
    let info_exclude = repo.common_dir().join("info").join("exclude");
    let recorded = |file: Option<&OidStat>| file.map(|file| file.id);
    if !same_text(&info_exclude, recorded(cache.info_exclude()), hash, true)
        || !excludes_file().map_or(cache.excludes_file().is_none(), |file| {
            same_text(&file, recorded(cache.excludes_file()), hash, true)
        })
    {
        return None;
    }
    let walker = Walker {
        dirs: cache.directories(),
        index,
        workdir,
        hash,
    };
    let (start, path) = walker.descend(prefix)?;
    walker.list(start, path)
}

/// A walk of the cache's directory tree beside the worktree.
struct Walker<'a> {
    dirs: &'a [Directory],
    index: &'a gix::index::State,
    workdir: &'a Path,
    hash: gix::hash::Kind,
}

impl Walker<'_> {
    /// The cache's directory for `prefix` and its path, when it and every
    /// directory above it are as they were (a changed `.gitignore` above
    /// the prefix changes what is ignored in it).
    fn descend(&self, prefix: &[u8]) -> Option<(usize, BString)> {
        let mut at = 0;
        let mut path = BString::default();
        for name in prefix.split(|&b| b == b'/').filter(|name| !name.is_empty()) {
            let dir = self.dirs.get(at)?;
            if !self.as_it_was(dir, path.as_ref()) {
                return None;
            }
            at = dir
                .sub_directories()
                .iter()
                .copied()
                .find(|&sub| self.dirs.get(sub).is_some_and(|d| d.name() == name))?;
            path = join(path.as_ref(), name);
        }
        Some((at, path))
    }

    /// Lists the subtree of the cache's directory `start` at `path`. (gix
    /// decodes the cache's directories as a tree: each is reached once.)
    fn list(&self, start: usize, path: BString) -> Option<Listing> {
        if !self.as_it_was(self.dirs.get(start)?, path.as_ref()) {
            return None;
        }
        let mut listing = Listing::default();
        let mut stack = vec![(start, path)];
        while let Some((at, path)) = stack.pop() {
            let dir = self.dirs.get(at)?;
            if !self.as_it_was(dir, path.as_ref()) {
                listing.walk_whole(path)?;
                continue;
            }
            let mut whole = Vec::new();
            for entry in dir.untracked_entries() {
                let (name, is_dir) = match entry.strip_suffix(b"/") {
                    Some(name) => (name, true),
                    None => (entry.as_slice(), false),
                };
                if !is_plain_name(name) {
                    return None;
                }
                let file = join(path.as_ref(), name);
                if is_dir {
                    whole.push(name);
                    listing.walk_whole(file)?;
                } else if self.index.entry_by_path(file.as_ref()).is_none() {
                    // A file added to the index since is not untracked.
                    listing.files.push(file);
                }
            }
            for &sub in dir.sub_directories() {
                let name = self.dirs.get(sub)?.name();
                if !is_plain_name(name) {
                    return None;
                }
                if !whole.contains(&name.as_bytes()) {
                    stack.push((sub, join(path.as_ref(), name)));
                }
            }
        }
        Some(listing)
    }

    /// Whether the cache's `dir` at `path` still holds what it recorded:
    /// the same `lstat` data, not racy, the same `.gitignore`. A directory
    /// git only checked for untracked content (`check_only`) counts when it
    /// found none: its parent did not list it, and it holds the same.
    fn as_it_was(&self, dir: &Directory, path: &BStr) -> bool {
        let Some(recorded) = dir.stat() else {
            return false;
        };
        if (dir.check_only() && !dir.untracked_entries().is_empty())
            || recorded.is_racy(self.index.timestamp(), RACY)
        {
            return false;
        }
        let Some(abs) = self.absolute(path) else {
            return false;
        };
        // Whatever now stands at the path (a file, a link) has other data
        // than the directory recorded: its inode at least.
        let now = gix::index::fs::Metadata::from_path_no_follow(&abs)
            .ok()
            .and_then(|meta| gix::index::entry::Stat::from_fs(&meta).ok());
        if !now.is_some_and(|now| recorded.matches(&now, EXACT)) {
            return false;
        }
        // Its entries are the ones it had: a `.gitignore` that was not
        // there is not there now. One git read is read again: its text may
        // have changed in place.
        match dir.exclude_file_oid() {
            Some(id) => same_text(&abs.join(".gitignore"), Some(id), self.hash, false),
            None => true,
        }
    }

    /// `path` (worktree-relative) on disk.
    fn absolute(&self, path: &BStr) -> Option<PathBuf> {
        let relative = gix::path::from_bstr(path).ok()?;
        Some(self.workdir.join(relative))
    }
}

/// `parent/name`, or `name` at the top.
fn join(parent: &BStr, name: &[u8]) -> BString {
    let mut path = BString::from(parent.as_bytes());
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// A name a directory can hold and git records: not empty, not `.`, `..`
/// or `.git` (git never walks into its own directory), no `/` (the cache's
/// names end at a NUL, so none holds one).
fn is_plain_name(name: &[u8]) -> bool {
    !name.is_empty() && !matches!(name, b"." | b".." | b".git") && !name.contains(&b'/')
}

/// The most of an ignore file read to compare it with the cache's record;
/// a longer one is taken as changed (its directory is walked).
const IGNORE_FILE_CAP: u64 = 1 << 20;

/// Whether the file at `path` still has the text git recorded as `recorded`.
///
/// git records no id for a file it cannot read, and hashes the text it
/// parses: the file's text with a newline added (none for an empty file),
/// or, for a tracked `.gitignore` unchanged since it was staged, the staged
/// blob, which is the text itself. Either counts: the two differ by a final
/// newline, which changes no pattern. A directory's `.gitignore` is not
/// followed when it is a link (git does not follow it either); the global
/// ignore files are (`follow`). The file is opened without blocking (a
/// FIFO does not stall the start) and read up to [`IGNORE_FILE_CAP`]: a
/// longer one counts as changed.
fn same_text(
    path: &Path,
    recorded: Option<gix::ObjectId>,
    hash: gix::hash::Kind,
    follow: bool,
) -> bool {
    let resolved;
    let path = if follow {
        match std::fs::canonicalize(path) {
            Ok(real) => {
                resolved = real;
                resolved.as_path()
            }
            Err(_) => return recorded.is_none(),
        }
    } else {
        path
    };
    let Ok((file, meta)) = jit_base::open_regular(path) else {
        // Missing, unreadable, a link, not a file: nothing git could read.
        return recorded.is_none();
    };
    let Some(recorded) = recorded else {
        return false;
    };
    // Over the cap, the text read is only the start of the file, which
    // could be all of what git recorded (a file of the cap and one byte,
    // grown since): the file counts as changed.
    let mut text = match jit_base::read_capped(file, meta.len(), IGNORE_FILE_CAP) {
        Ok(text) if text.len() as u64 <= IGNORE_FILE_CAP => text,
        _ => return false,
    };
    let blob = |text: &[u8]| gix::objs::compute_hash(hash, gix::objs::Kind::Blob, text).ok();
    if blob(&text) == Some(recorded) {
        return true;
    }
    text.push(b'\n');
    blob(&text) == Some(recorded)
}

#[cfg(test)]
mod tests;
