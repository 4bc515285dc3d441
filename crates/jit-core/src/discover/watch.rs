//! Remembered `lstat`s that a file-system watch proves unchanged: the warm path of a long-lived engine ([`Engine::watch`]).
//!
//! Freshness (DESIGN §9) asks, on every touch, whether each level of the
//! chain and each file a scan record stamped is still what it was: one
//! `stat` per path. In a process that stays, the kernel can answer for all
//! of them at once. Every directory those paths sit in, and every directory
//! above it up to `/`, gets an inotify watch; the kernel queues an event for
//! a change to a watched directory's entries, to its attributes or to a file
//! in it before the call that made the change returns. A touch first reads
//! the queue and forgets every path an event names (and everything below a
//! directory an event names); what it still remembers was remembered after
//! its directory's watch was in place, and no event has named it since, so
//! a `stat` now would say what it said then.
//!
//! Nothing is remembered that an event might not name:
//!
//! * a path below a symlink (every directory is watched without following
//!   links, so a link on the way leaves the path unwatched), or the target
//!   of a link (a link's `stat` is asked every time);
//! * a file without a watch of its own: a write through another hard link
//!   to it, made before or after, tells that link's directory and the
//!   file's own watchers only, so each remembered file is watched itself,
//!   and a second name of a file remembered under one is asked every time;
//! * anything at all after the queue overflowed, or after the mount table
//!   changed (a file system mounted over a watched directory raises no
//!   event, so `/proc/self/mountinfo` is polled on every refresh):
//!   everything is dropped and watched again on demand;
//! * anything in a directory on a file system that does not hear changes
//!   made elsewhere (NFS, SMB, FUSE, 9p: any file system not on a list of
//!   local ones) or that can match a name regardless of case (a directory
//!   with ext4's, f2fs's, tmpfs's or bcachefs's case folding, FAT, exFAT,
//!   NTFS, ZFS): an event there could be missing or name a file otherwise
//!   than the engine does, so such a directory is not watched and what is
//!   below it is asked every time;
//! * anything of the parent's in a child process after `fork`: the queue
//!   is shared with the parent, so the child forgets everything and opens
//!   its own.
//!
//! Some changes raise no event at all, and no watch can hear them: writes
//! through a shared memory mapping, writes to a loop device's backing file
//! through the device, and, before Linux 6.5, some writes through
//! `splice`. An engine on a tree written that way keeps
//! to `stat` (the default). A write that fails after the kernel set the
//! file's modification time raises no `MODIFY` event: the writer's close
//! is heard instead (until then the file's contents are what they were).
//! The watch needs Linux 4.18 (`IN_MASK_CREATE`); an older kernel's watches
//! are refused where they could be confused, and those paths are asked.
//!
//! This is not the recursive watch DESIGN §12 leaves out, and it keeps the
//! reasons for leaving that out. It watches only the directories a touch
//! already looked at (the levels of touched chains, their rule folders, and
//! the directories above the root), never a whole tree up front. An event
//! triggers nothing: no rule is read or injected and no prompt rebuilt until
//! a touch asks, exactly as with `stat`. And it is stateful where `stat` is
//! not, so it is opt-in and fails toward asking: whatever it cannot prove
//! (a link's target, a second name of a file, an unwatchable directory, a
//! lost queue) is
//! asked of the file system, and the stat path stays the default, which the
//! `jit` command line's hook (a new process per call) uses.

use std::fs;
use std::io;
use std::sync::Arc;

use super::Engine;
use crate::rule::Stamp;

/// What an `lstat` (or a `stat`) said of a path: what the warm path asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    /// The file type.
    pub(crate) kind: Kind,
    /// Size and modification time.
    pub(crate) stamp: Stamp,
}

/// The file types the warm path tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A directory.
    Dir,
    /// A symbolic link (from `lstat` only).
    Link,
    /// Anything else: a regular file, a socket, a device...
    Other,
}

impl Seen {
    fn of(meta: &fs::Metadata) -> Self {
        let kind = if meta.is_dir() {
            Kind::Dir
        } else if meta.file_type().is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        };
        Seen {
            kind,
            stamp: Stamp::of(meta),
        }
    }

    /// Whether it is a directory.
    pub(crate) fn is_dir(self) -> bool {
        self.kind == Kind::Dir
    }
}

/// What an engine's watch has done so far ([`Engine::watch_stats`]): how
/// many questions it answered from memory and how many took a system call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WatchStats {
    /// Directories under watch now.
    pub dirs: usize,
    /// Files under a watch of their own now (each remembered file).
    pub files: usize,
    /// Paths whose `lstat` is remembered now.
    pub remembered: usize,
    /// Questions answered from memory, without a system call.
    pub answered: u64,
    /// Questions that took a system call: nothing was remembered, or
    /// nothing could be proven (a link's target, a second name of a file
    /// remembered under another, an unwatchable directory or file).
    pub asked: u64,
    /// Events read from the kernel's queue.
    pub events: u64,
    /// Times the queue overflowed and everything remembered was dropped.
    pub overflows: u64,
    /// Times the mount table changed and everything remembered was dropped.
    pub remounts: u64,
    /// Times the engine found itself in a child process (after `fork`),
    /// forgot everything and opened a queue of its own: the parent's queue
    /// is not read from the child.
    pub forks: u64,
}

impl Engine {
    /// Watches the directories a warm touch looks at (Linux, inotify), so
    /// that in a long-lived process a touch reads the kernel's event queue
    /// once instead of taking a `stat` of every level of its chain and
    /// every rule file its directories' scans stamped. Decisions are the
    /// same as without it (DESIGN §9's freshness): a changed file is still
    /// read again on the next touch of its directory. What it cannot prove
    /// unchanged (a path through a symlink, a second name of a file) it asks
    /// the file system every time; see [`Engine::watch_stats`].
    ///
    /// Use it where one engine serves many touches (a harness, a server);
    /// a process that makes one touch gains nothing. Directories on network
    /// or FUSE file systems and directories that fold case are not watched
    /// (their paths are asked every time). Keep to the default on trees
    /// written through shared memory mappings or loop devices, which raise
    /// no event.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::Unsupported`] off Linux, the kernel's error when it
    /// refuses a watch queue (too many for this user), and the error opening
    /// `/proc/self/mountinfo` (without it a mount over a watched directory
    /// would go unheard); the engine then keeps to `stat`, as before the
    /// call.
    ///
    /// ```
    /// use jit_core::{DiscoveryState, Engine};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("src"))?;
    /// std::fs::write(dir.path().join("src/CLAUDE.md"), "Small functions.\n")?;
    /// let mut engine = Engine::new(dir.path())?;
    /// if engine.watch().is_ok() {
    ///     let mut state = DiscoveryState::default();
    ///     assert!(engine.discover(&mut state, "src/a.rs".into(), engine.root()).is_hit());
    ///     assert!(!engine.discover(&mut state, "src/b.rs".into(), engine.root()).is_hit());
    ///     // The rule changed: the next touch of its directory brings it again.
    ///     std::fs::write(dir.path().join("src/CLAUDE.md"), "Smaller functions.\n")?;
    ///     assert!(engine.discover(&mut state, "src/c.rs".into(), engine.root()).is_hit());
    ///     assert!(engine.watch_stats().is_some_and(|s| s.answered > 0));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn watch(&mut self) -> io::Result<()> {
        if self.watch.is_none() {
            self.watch = Some(Watch::new()?);
        }
        Ok(())
    }

    /// What the watch has done, if [`Engine::watch`] started one.
    pub fn watch_stats(&self) -> Option<WatchStats> {
        self.watch.as_ref().map(Watch::stats)
    }

    /// Reads the watch's event queue, forgetting what changed: the first
    /// thing a touch does, before it asks [`Engine::lstat_dir`] anything.
    pub(super) fn refresh_watch(&self) {
        if let Some(watch) = &self.watch {
            watch.refresh();
        }
    }

    /// `lstat` of a directory the state holds as `Arc<str>` (a level of a
    /// chain), from memory where the watch proves it unchanged; `None` on
    /// any error. The watch keeps the same string, not a copy.
    pub(super) fn lstat_dir(&self, dir: &Arc<str>) -> Option<Seen> {
        match &self.watch {
            Some(watch) => watch.lstat(dir, Some(dir)),
            None => fs::symlink_metadata(&**dir).as_ref().ok().map(Seen::of),
        }
    }

    /// `stat` (following a final link), from memory where the watch proves
    /// it unchanged; `None` on any error.
    pub(super) fn stat_seen(&self, path: &str) -> Option<Seen> {
        match &self.watch {
            Some(watch) => watch.stat(path),
            None => fs::metadata(path).as_ref().ok().map(Seen::of),
        }
    }
}

#[cfg(target_os = "linux")]
pub(crate) use linux::Watch;

#[cfg(target_os = "linux")]
mod linux {
    use std::fmt;
    use std::fs;
    use std::io;
    use std::mem::MaybeUninit;
    use std::sync::{Arc, Mutex, MutexGuard};

    use rustix::event::{PollFd, PollFlags};
    use rustix::fd::OwnedFd;
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;

    use super::{Kind, Seen, WatchStats};
    use crate::{Map, Set};

    /// The events that can change what an `lstat` of a watched directory
    /// or of an entry in it says. Links are not followed and only
    /// directories are watched, so a link on the way is never watched.
    const MASK: WatchFlags = WatchFlags::MODIFY
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::CREATE)
        .union(WatchFlags::DELETE)
        .union(WatchFlags::MOVED_FROM)
        .union(WatchFlags::MOVED_TO)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::DONT_FOLLOW)
        .union(WatchFlags::ONLYDIR);

    /// The events that can change what an `lstat` of a file (or of a link)
    /// says, heard by a watch on the file itself: through whichever hard
    /// link it is written, renamed or removed. A write that fails after the
    /// kernel set the modification time (a bad buffer, a full disk) raises
    /// no `MODIFY`; its writer's close raises `CLOSE_WRITE`.
    const FILE_MASK: WatchFlags = WatchFlags::MODIFY
        .union(WatchFlags::CLOSE_WRITE)
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::DONT_FOLLOW);

    /// Events that change a directory's entries, and so its own stamp.
    const ENTRIES: ReadFlags = ReadFlags::CREATE
        .union(ReadFlags::DELETE)
        .union(ReadFlags::MOVED_FROM)
        .union(ReadFlags::MOVED_TO);

    /// Events after which a watched directory's watch no longer stands for
    /// its path.
    const GONE: ReadFlags = ReadFlags::IGNORED
        .union(ReadFlags::DELETE_SELF)
        .union(ReadFlags::MOVE_SELF)
        .union(ReadFlags::UNMOUNT);

    /// An inotify queue and what it lets the engine remember.
    pub(crate) struct Watch {
        inner: Mutex<Inner>,
    }

    impl fmt::Debug for Watch {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("Watch")
                .field("stats", &self.stats())
                .finish()
        }
    }

    /// One event as read from the queue: watch, mask, and the entry's name
    /// when it is about one (`None` inside for a name that is not UTF-8).
    type Event = (i32, ReadFlags, Option<Option<String>>);

    struct Inner {
        /// The queue, opened by the process `pid`; `None` when a child
        /// could not open its own (it then asks everything).
        queue: Option<Queue>,
        pid: u32,
        /// Watch descriptor → the directory (or the file) it watches.
        by_wd: Map<i32, Arc<str>>,
        /// Watched directories. Every directory in it has its parent in it
        /// too (up to `/`).
        by_dir: Map<Arc<str>, Watched>,
        /// Directories the kernel refused to watch, not asked again until
        /// a watch is dropped.
        refused: Set<Arc<str>>,
        /// Path that is no watched directory → what `lstat` said, while no
        /// event has named it.
        seen: Map<Arc<str>, Kept>,
        buf: Vec<MaybeUninit<u8>>,
        stats: WatchStats,
    }

    /// An inotify queue, and the mount table it is checked against.
    struct Queue {
        fd: OwnedFd,
        /// `/proc/self/mountinfo`, polled for a change of the mount table.
        mounts: fs::File,
    }

    impl Queue {
        fn open() -> io::Result<Self> {
            Ok(Queue {
                fd: inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)?,
                mounts: fs::File::open("/proc/self/mountinfo")?,
            })
        }
    }

    /// A watched directory: its watch, and its own `lstat` once asked
    /// (kept here rather than in `Inner::seen`, so that a level of a chain,
    /// the most common thing remembered, costs one entry and no copy of its
    /// path).
    struct Watched {
        wd: i32,
        seen: Option<Option<Seen>>,
    }

    /// What `lstat` said of a path that is no watched directory (`None`:
    /// an error), and the watch on the file itself when it is one.
    #[derive(Clone, Copy)]
    struct Kept {
        seen: Option<Seen>,
        wd: Option<i32>,
    }

    impl Watch {
        pub(crate) fn new() -> io::Result<Self> {
            Ok(Watch {
                inner: Mutex::new(Inner {
                    queue: Some(Queue::open()?),
                    pid: std::process::id(),
                    by_wd: Map::default(),
                    by_dir: Map::default(),
                    refused: Set::default(),
                    seen: Map::default(),
                    buf: vec![MaybeUninit::uninit(); 16 * 1024],
                    stats: WatchStats::default(),
                }),
            })
        }

        /// The state, even after a panic elsewhere left the lock poisoned:
        /// then nothing remembered is trusted.
        fn lock(&self) -> MutexGuard<'_, Inner> {
            match self.inner.lock() {
                Ok(inner) => inner,
                Err(poisoned) => {
                    let mut inner = poisoned.into_inner();
                    inner.uncover("/");
                    self.inner.clear_poison();
                    inner
                }
            }
        }

        pub(crate) fn stats(&self) -> WatchStats {
            let inner = self.lock();
            WatchStats {
                dirs: inner.by_dir.len(),
                files: inner.seen.values().filter(|k| k.wd.is_some()).count(),
                remembered: inner.seen.len()
                    + inner.by_dir.values().filter(|d| d.seen.is_some()).count(),
                ..inner.stats
            }
        }

        pub(crate) fn refresh(&self) {
            self.lock().drain();
        }

        /// `lstat` of `path`; `shared` is the same path as an `Arc<str>`
        /// the caller holds, kept instead of a copy if it is a directory.
        pub(crate) fn lstat(&self, path: &str, shared: Option<&Arc<str>>) -> Option<Seen> {
            self.lock().lstat(path, shared)
        }

        pub(crate) fn stat(&self, path: &str) -> Option<Seen> {
            let seen = self.lstat(path, None);
            match seen {
                Some(Seen {
                    kind: Kind::Link, ..
                }) => fs::metadata(path).ok().map(|m| Seen::of(&m)),
                _ => seen,
            }
        }
    }

    impl Inner {
        fn lstat(&mut self, path: &str, shared: Option<&Arc<str>>) -> Option<Seen> {
            let remembered = match self.by_dir.get(path) {
                Some(dir) => dir.seen,
                None => self.seen.get(path).map(|kept| kept.seen),
            };
            if let Some(seen) = remembered {
                self.stats.answered += 1;
                return seen;
            }
            self.stats.asked += 1;
            // The watch goes in before the `lstat`: a change after it is
            // in the queue, a change before it is in what `lstat` says.
            let mut watched = is_clean(path) && parent(path).is_some_and(|dir| self.cover(dir));
            let mut meta = fs::symlink_metadata(path);
            // A directory's own stamp changes with its entries, which only
            // its own watch hears of; a file's, through another hard link,
            // only its own watch too: watched, then asked again.
            let mut file_wd = None;
            match &meta {
                Ok(m) if watched && m.is_dir() => {
                    watched = self.cover_shared(path, shared);
                    meta = fs::symlink_metadata(path);
                }
                // Not while the path still names a watched directory: the
                // event saying it was replaced is queued, and the next
                // refresh drops its watch and what it kept.
                Ok(_) if watched && !self.by_dir.contains_key(path) => {
                    match self.add_watch(path, FILE_MASK) {
                        Some(wd) => {
                            file_wd = Some(wd);
                            meta = fs::symlink_metadata(path);
                        }
                        None => watched = false,
                    }
                }
                _ => {}
            }
            let seen = meta.as_ref().ok().map(Seen::of);
            if watched {
                match self.by_dir.get_mut(path) {
                    // A directory, or what replaced one since its watch
                    // went in: the event that says so is queued, and the
                    // next refresh drops the watch and what it kept.
                    Some(dir) => dir.seen = Some(seen),
                    None => {
                        let key: Arc<str> = Arc::from(path);
                        if let Some(wd) = file_wd {
                            self.by_wd.insert(wd, Arc::clone(&key));
                        }
                        self.seen.insert(key, Kept { seen, wd: file_wd });
                    }
                }
            }
            seen
        }

        /// Puts a watch on `dir` and on every directory above it; whether
        /// all of them are watched (none is a link, the kernel took them).
        fn cover(&mut self, dir: &str) -> bool {
            self.cover_shared(dir, None)
        }

        /// [`Inner::cover`], keeping `shared` (the same path) as the
        /// directory's key rather than a copy of it.
        fn cover_shared(&mut self, dir: &str, shared: Option<&Arc<str>>) -> bool {
            if self.by_dir.contains_key(dir) {
                return true;
            }
            if self.refused.contains(dir) {
                return false;
            }
            if let Some(up) = parent(dir)
                && !self.cover(up)
            {
                return false;
            }
            let watch = if trusted(dir) {
                self.add_watch(dir, MASK)
            } else {
                None
            };
            match watch {
                Some(wd) => {
                    let dir: Arc<str> = shared.map_or_else(|| Arc::from(dir), Arc::clone);
                    self.by_wd.insert(wd, Arc::clone(&dir));
                    self.by_dir.insert(dir, Watched { wd, seen: None });
                    true
                }
                None => {
                    self.refused.insert(Arc::from(dir));
                    false
                }
            }
        }

        /// A new watch on `path`, or `None` when the kernel refuses it or
        /// already watches the same file or directory under another path
        /// (one directory reached by two paths, a bind mount; one file
        /// under a name remembered already): an event would name only that
        /// one. `MASK_CREATE` makes the kernel refuse rather than hand back
        /// the other watch with its mask replaced (a directory watched
        /// under one path would lose its entry events to a file's mask if
        /// a race made it look like a file under another); a kernel older
        /// than 4.18 ignores the flag and hands the other watch back, which
        /// is refused here.
        fn add_watch(&self, path: &str, mask: WatchFlags) -> Option<i32> {
            let queue = self.queue.as_ref()?;
            inotify::add_watch(&queue.fd, path, mask | WatchFlags::MASK_CREATE)
                .ok()
                .filter(|wd| !self.by_wd.contains_key(wd))
        }

        /// Drops the watch `wd`.
        fn unwatch(&mut self, wd: i32) {
            self.by_wd.remove(&wd);
            if let Some(queue) = &self.queue {
                // Already gone when the kernel dropped it: nothing to undo.
                let _ = inotify::remove_watch(&queue.fd, wd);
            }
        }

        /// Reads every queued event and forgets what each names.
        fn drain(&mut self) {
            if self.pid != std::process::id() {
                self.forked();
            }
            if self.remounted() {
                self.stats.remounts += 1;
                self.uncover("/");
            }
            let (events, complete) = self.read_events();
            for (wd, mask, name) in events {
                self.apply(wd, mask, name);
            }
            if !complete {
                // Events may be lost: nothing is trusted.
                self.overflowed();
            }
        }

        /// In a child process after `fork`, the queue is the parent's too:
        /// reading it would take the parent's events, and removing a watch
        /// would remove the parent's. The child forgets everything without
        /// touching the queue and opens its own; without one it asks
        /// everything.
        fn forked(&mut self) {
            self.stats.forks += 1;
            self.pid = std::process::id();
            self.by_wd.clear();
            self.by_dir.clear();
            self.refused.clear();
            self.seen.clear();
            self.queue = Queue::open().ok();
        }

        /// Whether the mount table changed since the last time it was
        /// asked (a failed poll counts as a change).
        fn remounted(&self) -> bool {
            let Some(queue) = &self.queue else {
                return false;
            };
            let mut fds = [PollFd::new(&queue.mounts, PollFlags::PRI)];
            let zero = rustix::time::Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            match rustix::event::poll(&mut fds, Some(&zero)) {
                Ok(ready) => ready > 0,
                Err(_) => true,
            }
        }

        /// The queued events, and whether the queue was read to its end.
        fn read_events(&mut self) -> (Vec<Event>, bool) {
            let mut events = Vec::new();
            let Some(queue) = &self.queue else {
                return (events, true);
            };
            let mut buf = std::mem::take(&mut self.buf);
            let mut reader = inotify::Reader::new(&queue.fd, &mut buf);
            let complete = loop {
                match reader.next() {
                    Ok(event) => {
                        let name = event
                            .file_name()
                            .map(|name| name.to_str().ok().map(str::to_owned));
                        events.push((event.wd(), event.events(), name));
                    }
                    Err(Errno::AGAIN) => break true,
                    Err(Errno::INTR) => {}
                    Err(_) => break false,
                }
            };
            self.buf = buf;
            self.stats.events += events.len() as u64;
            (events, complete)
        }

        /// Forgets everything and drops every watch: events were lost.
        fn overflowed(&mut self) {
            self.stats.overflows += 1;
            self.uncover("/");
        }

        /// Forgets what one event says may have changed.
        fn apply(&mut self, wd: i32, mask: ReadFlags, name: Option<Option<String>>) {
            if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                self.overflowed();
                return;
            }
            let Some(dir) = self.by_wd.get(&wd).cloned() else {
                return;
            };
            if !self.by_dir.contains_key(&dir) {
                // A file's own watch: whatever it heard, forget the file.
                self.forget(&dir);
                return;
            }
            match name {
                None if mask.intersects(GONE) => self.uncover(&dir),
                // The directory's own attributes (its permissions decide
                // what can be stat'ed below it).
                None => self.forget_below(&dir),
                Some(name) => {
                    if mask.intersects(ENTRIES) {
                        self.forget(&dir);
                    }
                    // A name that is not UTF-8 is in no remembered path.
                    let Some(name) = name else { return };
                    let path = join(&dir, &name);
                    if mask.contains(ReadFlags::ISDIR) {
                        self.uncover(&path);
                    } else {
                        self.forget(&path);
                    }
                }
            }
        }

        /// Forgets what `lstat` said of `path`, and drops the watch of a
        /// file.
        fn forget(&mut self, path: &str) {
            if let Some(dir) = self.by_dir.get_mut(path) {
                dir.seen = None;
            } else if let Some(Kept { wd: Some(wd), .. }) = self.seen.remove(path) {
                self.unwatch(wd);
            }
        }

        /// Forgets `dir` and everything below it.
        fn forget_below(&mut self, dir: &str) {
            let below: Vec<Arc<str>> = self
                .seen
                .keys()
                .filter(|path| is_at_or_below(path, dir))
                .cloned()
                .collect();
            for path in below {
                self.forget(&path);
            }
            for (_, watched) in self
                .by_dir
                .iter_mut()
                .filter(|(path, _)| is_at_or_below(path, dir))
            {
                watched.seen = None;
            }
        }

        /// Drops the watches of `dir` and of every directory below it (they
        /// may no longer stand for their paths) and forgets what they proved.
        fn uncover(&mut self, dir: &str) {
            let gone: Vec<(Arc<str>, i32)> = self
                .by_dir
                .iter()
                .filter(|(watched, _)| is_at_or_below(watched, dir))
                .map(|(watched, entry)| (Arc::clone(watched), entry.wd))
                .collect();
            for (watched, wd) in gone {
                self.by_dir.remove(&watched);
                self.unwatch(wd);
            }
            self.refused.clear();
            self.forget_below(dir);
        }
    }

    /// File systems on which every change, wherever it is made, raises an
    /// event here, and which never fold case for a whole file system: the
    /// local ones (overlay counts changes made through its mount). Network
    /// and FUSE file systems do not hear changes made elsewhere; FAT,
    /// exFAT, NTFS and ZFS can match names regardless of case, so an event
    /// could name a file otherwise than the engine does.
    const LOCAL: [i64; 14] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0x8584_58F6, // ramfs
        0x794C_7630, // overlay
        0xF2F5_2010, // f2fs
        0xCA45_1A4E, // bcachefs
        0x5265_4973, // reiserfs
        0x3153_464A, // jfs
        0x3434,      // nilfs2
        0x7371_7368, // squashfs
        0xE0F5_E1E2, // erofs
        0x9660,      // iso9660
    ];

    /// Those of them where one directory can fold case (`chattr +F`).
    const FOLDING: [i64; 4] = [0xEF53, 0xF2F5_2010, 0xCA45_1A4E, 0x0102_1994];

    /// `FS_CASEFOLD_FL`: the directory matches names regardless of case.
    const CASEFOLD: u32 = 0x4000_0000;

    /// Whether events about `dir`'s entries name them as a path does: on a
    /// local file system, in a directory that does not fold case (where
    /// `CLAUDE.md` and `claude.md` are one file, an event names it as
    /// stored). Anything that cannot be read is not trusted.
    ///
    /// The file system is asked first, by path: a directory on a network
    /// or FUSE file system is refused without being opened. Only one that
    /// can fold case is opened (not following a link), to read its flags.
    /// A link swapped in meanwhile is refused by the watch itself, which
    /// does not follow links either.
    fn trusted(dir: &str) -> bool {
        let Ok(fs) = rustix::fs::statfs(dir) else {
            return false;
        };
        #[allow(
            clippy::useless_conversion,
            reason = "the field is an `i64` on 64-bit targets only"
        )]
        let kind = i64::from(fs.f_type);
        trusted_kind(kind, || {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::open(dir, flags, Mode::empty())?;
            rustix::fs::ioctl_getflags(&fd).map(|flags| flags.bits())
        })
    }

    /// [`trusted`], given the file system's magic number and a way to read
    /// the directory's flags (a file system without flags folds no case).
    fn trusted_kind(kind: i64, flags: impl FnOnce() -> Result<u32, Errno>) -> bool {
        LOCAL.contains(&kind)
            && (!FOLDING.contains(&kind)
                || match flags() {
                    Ok(flags) => flags & CASEFOLD == 0,
                    Err(Errno::NOTTY) => true,
                    Err(_) => false,
                })
    }

    /// Whether `path` is an absolute path with no empty, `.` or `..`
    /// component: one name per file, as events name them.
    fn is_clean(path: &str) -> bool {
        path == "/"
            || path.strip_prefix('/').is_some_and(|rest| {
                rest.split('/')
                    .all(|part| !part.is_empty() && part != "." && part != "..")
            })
    }

    /// The directory holding `path` (a clean absolute path); `None` for `/`.
    fn parent(path: &str) -> Option<&str> {
        match path.rsplit_once('/')? {
            (_, "") => None,
            ("", _) => Some("/"),
            (dir, _) => Some(dir),
        }
    }

    fn join(dir: &str, name: &str) -> String {
        if dir == "/" {
            format!("/{name}")
        } else {
            format!("{dir}/{name}")
        }
    }

    /// Whether `path` is `dir` or below it, by whole components.
    fn is_at_or_below(path: &str, dir: &str) -> bool {
        dir == "/"
            || path
                .strip_prefix(dir)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    #[cfg(test)]
    mod tests;
}

/// Off Linux there is no watch: [`Engine::watch`] says so and the engine
/// keeps to `stat`.
#[cfg(not(target_os = "linux"))]
pub(crate) use other::Watch;

#[cfg(not(target_os = "linux"))]
mod other {
    use std::io;
    use std::sync::Arc;

    use super::{Seen, WatchStats};

    #[derive(Debug)]
    pub(crate) enum Watch {}

    impl Watch {
        pub(crate) fn new() -> io::Result<Self> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "watching a tree needs inotify (Linux)",
            ))
        }

        pub(crate) fn stats(&self) -> WatchStats {
            match *self {}
        }

        pub(crate) fn refresh(&self) {
            match *self {}
        }

        pub(crate) fn lstat(&self, _: &str, _: Option<&Arc<str>>) -> Option<Seen> {
            match *self {}
        }

        pub(crate) fn stat(&self, _: &str) -> Option<Seen> {
            match *self {}
        }
    }
}
