//! Tracked files proven unchanged by their `statx` data alone, so that gix
//! looks only at the others.
//!
//! `git status` checks the tracked files by comparing each one's `lstat`
//! data with what the index recorded when git last saw the file as it is
//! staged (its "preload", on threads), and reads a file only when the data
//! differ or cannot be trusted. gix's check does the same, at a cost per
//! file of about half an `lstat` again in its own bookkeeping; on a
//! 100,000-file tree, most of a start once git's untracked cache spares
//! the walk. [`unproven`] makes the plain comparison itself and leaves to
//! gix every entry it cannot settle.
//!
//! An entry is settled here only when gix would settle it without reading
//! anything, in the strictest form of its rule:
//!
//! - gix passes over an entry flagged up to date, skip-worktree, assume
//!   unchanged or fsmonitor-valid without looking at it, and so does this;
//! - otherwise the entry is unchanged when it is staged at stage 0, not
//!   intent-to-add, a file, an executable file or a symbolic link, the
//!   worktree holds the same kind there (the executable bit included,
//!   whatever `core.fileMode` says), every field of the `stat` data git
//!   keeps is the same (times to the nanosecond, device, inode, owner,
//!   size, whatever `core.checkStat` and `core.trustctime` say), it was
//!   not changed in or after the second the index was written (git's racy
//!   rule), it is not recorded as the empty blob with a size, and no
//!   directory on its path is a symbolic link (`openat2` with
//!   `RESOLVE_NO_SYMLINKS`: git and gix report a file behind one as
//!   deleted).
//!
//! Every other entry is gix's to decide, as it was before: a looser
//! configuration only makes gix settle more of them itself. When more than
//! a quarter of the entries (and more than 100) are left to gix, the
//! comparison gives up and gix checks every entry, which then costs less.
//! Linux only (`statx`, `openat2` from Linux 5.6); elsewhere, or when the
//! worktree or `openat2` cannot be used, there is no answer and gix checks
//! every entry.

use gix::index::State;

#[cfg(target_os = "linux")]
use gix::index::Entry;
#[cfg(target_os = "linux")]
use gix::index::entry::{Flags, Mode};

/// The positions in `index` of its entries under `prefix` (worktree-relative
/// without a trailing `/`; empty for all of them) that a `stat` comparison
/// cannot prove unchanged, in index order; `None` when the comparison
/// cannot run here or leaves too many to gix, and every entry is gix's to
/// check.
pub(crate) fn unproven(
    index: &State,
    workdir: &std::path::Path,
    prefix: &[u8],
) -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        linux::unproven(index, workdir, prefix)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (index, workdir, prefix);
        None
    }
}

/// Whether gix passes over `entry` without looking at its file (flagged up
/// to date, skip-worktree, assume unchanged or fsmonitor-valid).
#[cfg(target_os = "linux")]
fn passed_over(entry: &Entry) -> bool {
    entry.flags.intersects(
        Flags::UPTODATE | Flags::SKIP_WORKTREE | Flags::ASSUME_VALID | Flags::FSMONITOR_VALID,
    )
}

/// Whether `entry` can be proven unchanged by its file's `stat` data at
/// all: staged at stage 0, not intent-to-add, a file, an executable file or
/// a symbolic link, not the empty blob recorded with a size, and last
/// changed before the second the index was written at `index_secs`.
#[cfg(target_os = "linux")]
fn provable(entry: &Entry, index_secs: i64) -> bool {
    entry.stage_raw() == 0
        && !entry.flags.contains(Flags::INTENT_TO_ADD)
        && matches!(
            entry.mode,
            Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
        )
        && !(entry.id.is_empty_blob() && entry.stat.size != 0)
        && i64::from(entry.stat.mtime.secs) < index_secs
}

#[cfg(target_os = "linux")]
mod linux {
    use std::num::NonZero;
    use std::ops::Range;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use gix::bstr::{BStr, ByteSlice};
    use gix::index::entry::stat::Time;
    use gix::index::{Entry, State};
    use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags, StatxFlags};

    use super::{passed_over, provable};

    /// Entries a thread takes at a time (git's preload gives each thread
    /// at least 500).
    const CHUNK: usize = 500;
    /// At most this many threads check at once (git's preload takes up to 20).
    const MOST_THREADS: usize = 8;
    /// The comparison gives up (no answer) once more than this many
    /// entries, and more than a quarter of them, are left to gix: past that,
    /// gix's own check of every entry costs less than the comparison and
    /// its check of those (every file touched, say).
    pub(super) const FEWEST_TO_GIVE_UP: usize = 100;

    /// The `statx` fields compared with an entry's.
    const FIELDS: StatxFlags = StatxFlags::TYPE
        .union(StatxFlags::MODE)
        .union(StatxFlags::UID)
        .union(StatxFlags::GID)
        .union(StatxFlags::INO)
        .union(StatxFlags::SIZE)
        .union(StatxFlags::MTIME)
        .union(StatxFlags::CTIME);

    pub(super) fn unproven(
        index: &State,
        workdir: &std::path::Path,
        prefix: &[u8],
    ) -> Option<Vec<usize>> {
        let range = under(index, prefix);
        let root = rustix::fs::open(
            workdir,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        // `openat2` is missing before Linux 5.6 and in some sandboxes.
        open_dir(root.as_fd(), b".".as_bstr()).ok()?;
        let index_secs = index.timestamp().unix_seconds();
        let chunks = range.len().div_ceil(CHUNK);
        let most_unproven = (range.len() / 4).max(FEWEST_TO_GIVE_UP);
        let (next, unproven) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let work = || {
            let mut found = Vec::new();
            loop {
                let chunk = next.fetch_add(1, Ordering::Relaxed);
                if chunk >= chunks || too_many(&unproven, most_unproven) {
                    return found;
                }
                let start = range.start + chunk * CHUNK;
                let end = range.end.min(start + CHUNK);
                let before = found.len();
                check(index, start..end, root.as_fd(), index_secs, &mut found);
                unproven.fetch_add(found.len() - before, Ordering::Relaxed);
            }
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, NonZero::get)
            .min(MOST_THREADS)
            .min(chunks);
        let mut found = std::thread::scope(|scope| {
            // A thread that cannot be started leaves its chunks to the others.
            let helpers: Vec<_> = (1..threads)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .name("jit-git-stat".to_owned())
                        .spawn_scoped(scope, work)
                        .ok()
                })
                .collect();
            let mut found = work();
            for helper in helpers {
                // A panicked helper's chunk is unfinished: no answer.
                found.extend(helper.join().ok()?);
            }
            Some(found)
        })?;
        if too_many(&unproven, most_unproven) {
            return None;
        }
        found.sort_unstable();
        Some(found)
    }

    /// Whether the comparison gives up: more than `most` entries left to
    /// gix. The one test for both the threads (which then stop taking
    /// chunks) and the answer (which is then none), so that no chunk is
    /// left unchecked in an answer.
    fn too_many(unproven: &AtomicUsize, most: usize) -> bool {
        unproven.load(Ordering::Relaxed) > most
    }

    /// The positions of the entries under `prefix`.
    fn under(index: &State, prefix: &[u8]) -> Range<usize> {
        if prefix.is_empty() {
            return 0..index.entries().len();
        }
        let mut dir = prefix.to_vec();
        dir.push(b'/');
        index
            .prefixed_entries_range(dir.as_bstr())
            .unwrap_or_default()
    }

    /// Adds to `found` the positions in `range` of the entries not proven
    /// unchanged.
    fn check(
        index: &State,
        range: Range<usize>,
        root: BorrowedFd<'_>,
        index_secs: i64,
        found: &mut Vec<usize>,
    ) {
        let entries = index.entries();
        // The directory of the entries last looked at, and it opened.
        let mut open: Option<(&BStr, Option<OwnedFd>)> = None;
        for position in range {
            let entry = &entries[position];
            if passed_over(entry) {
                continue;
            }
            if !provable(entry, index_secs) {
                found.push(position);
                continue;
            }
            let path = entry.path(index);
            let (dir, name) = match path.rfind_byte(b'/') {
                Some(slash) => (path[..slash].as_bstr(), path[slash + 1..].as_bstr()),
                None => (BStr::new(b"."), path),
            };
            if open.as_ref().is_none_or(|(last, _)| *last != dir) {
                open = Some((dir, open_dir(root, dir).ok()));
            }
            let dir_fd = open.as_ref().and_then(|(_, fd)| fd.as_ref());
            if !dir_fd.is_some_and(|fd| same_on_disk(fd.as_fd(), name, entry)) {
                found.push(position);
            }
        }
    }

    /// `dir` below `root`, opened for `statx` only, through no symbolic link.
    pub(super) fn open_dir(root: BorrowedFd<'_>, dir: &BStr) -> rustix::io::Result<OwnedFd> {
        rustix::fs::openat2(
            root,
            dir.as_bytes(),
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH,
        )
    }

    /// Whether the file `name` in `dir` is what `entry` recorded: the same
    /// kind and executable bit, the same `stat` data in every field.
    pub(super) fn same_on_disk(dir: BorrowedFd<'_>, name: &BStr, entry: &Entry) -> bool {
        let Ok(st) = rustix::fs::statx(dir, name.as_bytes(), AtFlags::SYMLINK_NOFOLLOW, FIELDS)
        else {
            return false;
        };
        if !StatxFlags::from_bits_retain(st.stx_mask).contains(FIELDS) {
            return false;
        }
        let kind = FileType::from_raw_mode(st.stx_mode.into());
        let is_file = kind == FileType::RegularFile;
        let is_link = kind == FileType::Symlink;
        let executable = is_file && u32::from(st.stx_mode) & 0o100 != 0;
        // Symbolic links and the executable bit both honoured: the
        // strictest of the configurations gix reads.
        let kind_changed = entry
            .mode
            .change_to_match_fs_with_values(is_file, false, is_link, executable, true, true)
            .is_some();
        let recorded = &entry.stat;
        (is_file || is_link)
            && !kind_changed
            && same_time(st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec, recorded.mtime)
            && same_time(st.stx_ctime.tv_sec, st.stx_ctime.tv_nsec, recorded.ctime)
            // git keeps the low 32 bits of these.
            && rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor) as u32 == recorded.dev
            && st.stx_ino as u32 == recorded.ino
            && st.stx_size as u32 == recorded.size
            && st.stx_uid == recorded.uid
            && st.stx_gid == recorded.gid
    }

    /// Whether the time `secs` and `nsecs` (from `statx`) is the time git
    /// recorded as `recorded`: the seconds' low 32 bits and the
    /// nanoseconds, for a time from 1970 on (gix takes an earlier one as
    /// zero, which is never taken as a match here).
    pub(super) fn same_time(secs: i64, nsecs: u32, recorded: Time) -> bool {
        u64::try_from(secs).is_ok_and(|secs| secs as u32 == recorded.secs)
            && nsecs < 1_000_000_000
            && nsecs == recorded.nsecs
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
