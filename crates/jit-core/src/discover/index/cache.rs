//! The walk cache: what a project walk listed, kept in a file, so that the next walk lists again only the directories that changed.
//!
//! A directory's listing is reused when its identity and times are
//! what they were when it was listed: device, inode, modification and
//! status-change times. Adding, removing or renaming an entry changes the
//! directory's times; the status-change time cannot be set back by a user
//! (an archive tool restoring a modification time still moves it). A
//! directory changed within [`SETTLE`] of its listing is not kept: file
//! times are as coarse as the kernel's clock tick, so a change in the same
//! tick as the listing could leave its times as they were.
//!
//! Only what the walk reads is kept: the subdirectories it enters and the
//! names that are the first component of a candidate (`CLAUDE.md`,
//! `.claude`, `.cursor`...). The rule files themselves are judged again on
//! every walk; the cache saves listing directories, the cost of a walk.
//!
//! The file is its texts, each once, then references to them
//! (`layout.rs`): reading it checks the texts are UTF-8 at once and borrows
//! every name and path from them; the names of all directories are one
//! vector ([`Listings`]), not one per directory nor a string per name.

mod check;
mod layout;

use std::borrow::Cow;
use std::fs;
use std::io::{self, Write};
use std::time::{Duration, SystemTime};

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::DirLink;

use super::Listed;
use crate::discover::SETTLE;

/// The largest cache file read (a 20,000-directory walk writes a few MB).
const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// A directory's entries, each with whether it is a directory (links not
/// followed); a name is borrowed from the cache's bytes when it came from
/// there.
pub(super) type Listing<'a> = Vec<(Cow<'a, str>, bool)>;

/// A directory's identity and times, from `statx` (or `lstat`): device,
/// inode, modification time (seconds, nanoseconds) and status-change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DirId(u64, u64, i64, i64, i64, i64);

impl DirId {
    /// The identity of `dir` when it is a directory (a link is not), read
    /// now; `None` otherwise, and on platforms without inode numbers.
    pub(super) fn of(dir: &Utf8Path) -> Option<DirId> {
        #[cfg(target_os = "linux")]
        if let Ok(id) = linux::id_at(rustix::fs::CWD, dir.as_str()) {
            return id;
        }
        Self::of_std(dir)
    }

    /// [`DirId::of`] through `std` (one `lstat`): where `statx` is not
    /// answered (an old kernel, a sandbox that refuses it), and off Linux.
    fn of_std(dir: &Utf8Path) -> Option<DirId> {
        let meta = fs::symlink_metadata(dir)
            .ok()
            .filter(fs::Metadata::is_dir)?;
        Self::from_meta(&meta)
    }

    #[cfg(unix)]
    fn from_meta(meta: &fs::Metadata) -> Option<DirId> {
        use std::os::unix::fs::MetadataExt;
        Some(DirId(
            meta.dev(),
            meta.ino(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ))
    }

    #[cfg(not(unix))]
    fn from_meta(_: &fs::Metadata) -> Option<DirId> {
        None
    }

    /// Whether the directory's last change is at least [`SETTLE`] before
    /// `now`, so a listing made now shows every change it had.
    fn settled(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let (secs, nanos) = (self.4, self.5);
        let (Ok(secs), Ok(nanos)) = (u64::try_from(secs), u32::try_from(nanos)) else {
            return false;
        };
        Duration::new(secs, 0)
            .checked_add(Duration::from_nanos(u64::from(nanos)))
            .and_then(|changed| changed.checked_add(SETTLE))
            .is_some_and(|settled| settled <= now)
    }
}

/// The identity of a directory read with `statx` for the four fields it
/// holds only, relative to a directory already open: a stored
/// directory's `statx` from the opened root walks the path below the root
/// only (on the 100k tree, about a tenth less time than `lstat` of every
/// absolute path in most runs of `benches/walk.rs`: `floor_cached` against
/// `floor_cached_lstat`).
#[cfg(target_os = "linux")]
mod linux {
    use rustix::fd::{AsFd, OwnedFd};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags, StatxFlags};

    use super::DirId;

    /// The fields a [`DirId`] is made of; the device comes with every
    /// answer.
    const FIELDS: StatxFlags = StatxFlags::TYPE
        .union(StatxFlags::INO)
        .union(StatxFlags::MTIME)
        .union(StatxFlags::CTIME);

    /// `path` (relative to `dir`, or absolute) as a [`DirId`], a link not
    /// followed: `Ok(None)` when it is not a directory, an error when
    /// `statx` failed or left out a field (the caller asks `lstat`).
    pub(super) fn id_at(dir: impl AsFd, path: &str) -> rustix::io::Result<Option<DirId>> {
        let path = if path.is_empty() { "." } else { path };
        let st = rustix::fs::statx(dir, path, AtFlags::SYMLINK_NOFOLLOW, FIELDS)?;
        if !StatxFlags::from_bits_retain(st.stx_mask).contains(FIELDS) {
            return Err(rustix::io::Errno::NOSYS);
        }
        if FileType::from_raw_mode(st.stx_mode.into()) != FileType::Directory {
            return Ok(None);
        }
        Ok(Some(DirId(
            rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            st.stx_ino,
            st.stx_mtime.tv_sec,
            i64::from(st.stx_mtime.tv_nsec),
            st.stx_ctime.tv_sec,
            i64::from(st.stx_ctime.tv_nsec),
        )))
    }

    /// The project root opened to stat paths below it (`O_PATH`: no read
    /// permission needed); `None` when it cannot be.
    pub(super) fn open_root(root: &str) -> Option<OwnedFd> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::open(root, flags, Mode::empty()).ok()
    }
}

/// One directory the walk visited.
#[derive(Debug)]
pub(super) enum Visit<'a> {
    /// One whose kept listing held: the cache's `i`th directory (nothing
    /// more is kept of it: a walk of an unchanged tree allocates nothing
    /// per directory to remember it).
    Kept(usize),
    /// One listed now (boxed: a walk of an unchanged tree records only
    /// `Kept`, each as small as a place).
    Listed(Box<ListedDir<'a>>),
}

/// A directory listed now: where, its identity (taken before the
/// listing), and what it holds.
#[derive(Debug)]
pub(super) struct ListedDir<'a> {
    pub(super) dir: Utf8PathBuf,
    pub(super) id: Option<DirId>,
    pub(super) listing: Listing<'a>,
}

/// A walk as kept: the root it was made from, the names it kept besides
/// subdirectories (a walk for other names cannot use these listings), and
/// each directory's listing.
#[derive(Debug, PartialEq)]
struct Stored<'a> {
    root: Cow<'a, str>,
    keep: Vec<Cow<'a, str>>,
    listings: Listings<'a>,
}

/// The directories of a walk as kept, in its order, each with its
/// identity and its kept names; the names of all of them are one vector
/// (reading a cache allocates one vector for the walk, not one per
/// directory).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Listings<'a> {
    dirs: Vec<StoredDir<'a>>,
    names: Vec<(Cow<'a, str>, bool)>,
}

/// One directory: root-relative (`""` for the root), its identity, and
/// where its kept names are in [`Listings`]' names (from, to).
#[derive(Debug, PartialEq)]
pub(super) struct StoredDir<'a>(Cow<'a, str>, DirId, (usize, usize));

impl<'a> StoredDir<'a> {
    /// The directory, root-relative.
    pub(super) fn dir(&self) -> &str {
        &self.0
    }
}

impl<'a> Listings<'a> {
    /// Room for `dirs` directories and `names` names in all.
    fn with_capacity(dirs: usize, names: usize) -> Self {
        Listings {
            dirs: Vec::with_capacity(dirs),
            names: Vec::with_capacity(names),
        }
    }

    /// Adds directory `dir` (root-relative), listed at `id`, with `names`.
    fn push(
        &mut self,
        dir: Cow<'a, str>,
        id: DirId,
        names: impl IntoIterator<Item = (Cow<'a, str>, bool)>,
    ) {
        self.start(dir, id);
        for (name, is_dir) in names {
            self.push_name(name, is_dir);
        }
    }

    /// Starts a directory whose names are pushed one by one after it
    /// ([`Listings::push_name`]).
    fn start(&mut self, dir: Cow<'a, str>, id: DirId) {
        let at = self.names.len();
        self.dirs.push(StoredDir(dir, id, (at, at)));
    }

    /// Adds a name to the directory started last.
    fn push_name(&mut self, name: Cow<'a, str>, is_dir: bool) {
        self.names.push((name, is_dir));
        if let Some(StoredDir(_, _, (_, to))) = self.dirs.last_mut() {
            *to = self.names.len();
        }
    }

    /// The directories, in the walk's order.
    pub(super) fn dirs(&self) -> &[StoredDir<'a>] {
        &self.dirs
    }

    /// The kept names of `dir`, one of these directories.
    fn names(&self, dir: &StoredDir<'_>) -> &[(Cow<'a, str>, bool)] {
        let (from, to) = dir.2;
        self.names.get(from..to).unwrap_or_default()
    }

    /// The listing of the directory at `place`, borrowed, as the walk
    /// takes it.
    pub(super) fn listed(&self, place: usize) -> Option<Listed<'_>> {
        let dir = self.dirs.get(place)?;
        Some(Listed {
            names: super::Names::Kept {
                names: self.names(dir),
                place,
            },
            id: Some(dir.1),
        })
    }
}

#[cfg(test)]
impl<'a> Listings<'a> {
    /// These directories, each with its identity and kept names.
    fn of(dirs: impl IntoIterator<Item = (Cow<'a, str>, DirId, Listing<'a>)>) -> Self {
        let mut listings = Listings::default();
        for (dir, id, names) in dirs {
            listings.push(dir, id, names);
        }
        listings
    }
}

/// The bytes of the cache at `file`; `None` when there is none yet, a
/// problem when it exists but cannot be read (or is over the bound).
pub(super) fn read(file: &Utf8Path) -> Result<Option<Vec<u8>>, String> {
    // The cache's folder is one jit made: a link there (or a folder of
    // another user) is not read through, as it is not written through.
    match jit_base::check_private_dir(cache_dir(file).as_std_path(), DirLink::Refused) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(format!(
                "cannot read {file}: its folder {} is {err}; every directory was listed",
                cache_dir(file)
            ));
        }
        Ok(()) => {}
    }
    let (handle, meta) = match jit_base::open_regular(file.as_std_path()) {
        Ok(opened) => opened,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(format!(
                "cannot read {file}: {err}; every directory was listed"
            ));
        }
    };
    if meta.len() > MAX_CACHE_BYTES {
        return Err(format!(
            "{file} is {} bytes, over the {MAX_CACHE_BYTES}-byte bound; every directory was listed",
            meta.len()
        ));
    }
    // At most `MAX_CACHE_BYTES`, in one read when its size is as measured.
    jit_base::read_capped(handle, meta.len(), MAX_CACHE_BYTES - 1)
        .map(Some)
        .map_err(|err| format!("cannot read {file}: {err}; every directory was listed"))
}

pub(super) use check::{Checker, Checks};

/// The listings of the cache `text` (the bytes of `file`) for the walk of
/// `root` for `keep`, by root-relative directory (`""` for the root) in
/// the order of the walk that kept them, each with the identity it was
/// listed at (to be checked, see [`Checks`]); a problem when the bytes are
/// no walk cache. A cache written for another root, layout or set of names
/// is no problem: it holds nothing for this walk.
pub(super) fn load<'a>(
    text: &'a [u8],
    file: &Utf8Path,
    root: &Utf8Path,
    keep: &[String],
) -> (Listings<'a>, Option<String>) {
    let stored = match layout::read(text) {
        Ok(layout::Read::This(stored)) => stored,
        Ok(layout::Read::Other) => return (Listings::default(), None),
        Err(why) => {
            let problem = format!("{file} is not a walk cache ({why}); every directory was listed");
            return (Listings::default(), Some(problem));
        }
    };
    // (Another layout was left alone.) Another root's listings would fail
    // their identity check anyway; other names' lack names.
    if stored.root != root.as_str()
        || !stored
            .keep
            .iter()
            .map(|k| &**k)
            .eq(keep.iter().map(String::as_str))
    {
        return (Listings::default(), None);
    }
    (stored.listings, None)
}

/// Writes the walk's `visits` (those that kept a listing of `kept`, the
/// cache read, by its place there) to `file` (replacing it atomically), each
/// listing cut to the subdirectories the walk enters and the
/// names in `keep`; directories changed too recently before `now` (when
/// they were listed) are left out, so the next walk lists them again.
pub(super) fn store(
    file: &Utf8Path,
    root: &Utf8Path,
    keep: &[String],
    (visits, kept): (&[Visit<'_>], &Listings<'_>),
    now: SystemTime,
) -> Result<(), String> {
    // What a listing keeps: the subdirectories the walk enters and the
    // names in `keep` (a kept listing again: a cache file could hold more).
    let kept_name = |(name, is_dir): &(Cow<'_, str>, bool)| {
        super::enters(name, *is_dir) || keep.iter().any(|k| k == name)
    };
    let mut listings = Listings::with_capacity(visits.len(), kept.names.len());
    for visit in visits {
        match visit {
            Visit::Kept(i) => {
                if let Some(stored @ StoredDir(dir, id, _)) = kept.dirs.get(*i) {
                    let names = kept.names(stored).iter().filter(|entry| kept_name(entry));
                    let names = names.map(|(name, is_dir)| (Cow::Borrowed(&**name), *is_dir));
                    listings.push(Cow::Borrowed(dir), *id, names);
                }
            }
            Visit::Listed(listed) => {
                let ListedDir { dir, id, listing } = &**listed;
                let Some(id) = id.filter(|id| id.settled(now)) else {
                    continue;
                };
                let Some(dir) = jit_base::relative_to(dir, root) else {
                    continue;
                };
                let names = listing
                    .iter()
                    .filter(|entry| kept_name(entry))
                    .map(|(name, is_dir)| (Cow::Borrowed(&**name), *is_dir));
                listings.push(Cow::Borrowed(dir.as_str()), id, names);
            }
        }
    }
    let stored = Stored {
        root: Cow::Borrowed(root.as_str()),
        keep: keep.iter().map(|k| Cow::Borrowed(k.as_str())).collect(),
        listings,
    };
    write_atomically(file, &stored).map_err(|err| {
        // Over the bound, the cache read is not kept either: the next walk
        // would read it only to find the same.
        let removed = err.kind() == io::ErrorKind::InvalidInput && fs::remove_file(file).is_ok();
        let removed = if removed {
            ", and the cache read was removed"
        } else {
            ""
        };
        format!("cannot write {file}: {err}; this walk's listings were not kept{removed}")
    })
}

/// The folder the cache file `file` is kept in.
fn cache_dir(file: &Utf8Path) -> &Utf8Path {
    file.parent()
        .filter(|p| !p.as_str().is_empty())
        .unwrap_or(Utf8Path::new("."))
}

/// Writes `stored` to a temporary file beside `file` and renames it over
/// `file`.
///
/// The folder is created (mode `0700`) when missing and must be one jit may
/// keep files in ([`jit_base::private_dir`]: no link, the user's own); the
/// temporary file is created new (mode `0600`): whatever stands at its
/// name, a link included, is removed first, never opened, so no planted
/// link can take the cache's bytes elsewhere. The rename replaces what is
/// at `file` itself (a link there too), never what it points to.
fn write_atomically(file: &Utf8Path, stored: &Stored<'_>) -> io::Result<()> {
    let dir = cache_dir(file);
    // (Of kind `Other`: `InvalidInput` says the listings were over the
    // bound, after which `store` removes the cache file, which must not
    // happen through a folder refused.)
    jit_base::private_dir(dir.as_std_path(), DirLink::Refused)
        .map_err(|err| io::Error::other(format!("its folder {dir} is {err}")))?;
    let name = file.file_name().unwrap_or("walk");
    // Unique per process, so two writers never share a temporary file; the
    // rename makes the last one win whole.
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let created = match jit_base::create_private(temp.as_std_path()) {
            // Left by an earlier process of the same id, or planted:
            // removed (a link itself, not what it names) and made anew.
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                fs::remove_file(&temp)?;
                jit_base::create_private(temp.as_std_path())
            }
            created => created,
        };
        let mut out = io::BufWriter::new(created?);
        layout::write(&mut out, stored)?;
        out.flush()?;
        fs::rename(&temp, file)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::fs;
    use std::time::{Duration, SystemTime};

    use camino::{Utf8Path, Utf8PathBuf};
    use pretty_assertions::assert_eq;

    use super::super::{WalkCache, rule_files, rule_files_cached_at};
    use crate::all_sources;

    /// A project of 1 + 4 + 8 directories with rule files here and there,
    /// and a cache file beside it.
    fn project() -> (tempfile::TempDir, Utf8PathBuf, WalkCache) {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        let root = base.join("proj");
        for a in 0..4 {
            for b in 0..2 {
                fs::create_dir_all(root.join(format!("p{a}/m{b}"))).unwrap();
            }
        }
        fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
        fs::write(root.join("p1/AGENTS.md"), "p1\n").unwrap();
        fs::create_dir_all(root.join("p2/m1/.cursor/rules")).unwrap();
        fs::write(root.join("p2/m1/.cursor/rules/r.mdc"), "r\n").unwrap();
        let cache = WalkCache::new(base.join("state/walks/proj.json"));
        (dir, root, cache)
    }

    /// "Later": the directories just made count as settled.
    fn later() -> SystemTime {
        SystemTime::now() + Duration::from_secs(10)
    }

    fn names(root: &Utf8Path, files: &[super::super::Found]) -> Vec<String> {
        files
            .iter()
            .map(|(_, p, _)| p.strip_prefix(root).unwrap().to_string())
            .collect()
    }

    /// Rewrites the cache file as `edit` changes what it holds.
    fn edit(cache: &WalkCache, edit: impl FnOnce(&mut super::Stored<'_>)) {
        let bytes = fs::read(cache.file()).unwrap();
        let super::layout::Read::This(mut stored) = super::layout::read(&bytes).unwrap() else {
            panic!("not this layout");
        };
        edit(&mut stored);
        let mut out = Vec::new();
        super::layout::write(&mut out, &stored).unwrap();
        fs::write(cache.file(), out).unwrap();
    }

    /// A folder beside the project's root with a rule file in it.
    fn outside_with_a_rule(root: &Utf8Path) -> Utf8PathBuf {
        let outside = root.parent().unwrap().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("CLAUDE.md"), "OUTSIDE\n").unwrap();
        outside
    }

    /// Rewrites the cache file with the root's listing as `edit` changes it.
    fn edit_root_listing(cache: &WalkCache, edit_listing: impl FnOnce(&mut super::Listing<'_>)) {
        edit(cache, |stored| {
            let old = std::mem::take(&mut stored.listings);
            let mut edit_listing = Some(edit_listing);
            for dir in old.dirs() {
                let mut listing = old.names(dir).to_vec();
                if dir.dir().is_empty()
                    && let Some(edit_listing) = edit_listing.take()
                {
                    edit_listing(&mut listing);
                }
                stored.listings.push(dir.0.clone(), dir.1, listing);
            }
        });
    }

    /// (files found, directories visited, listings reused, problem)
    fn walk(
        root: &Utf8Path,
        cache: &WalkCache,
        now: SystemTime,
    ) -> (Vec<String>, usize, usize, Option<String>) {
        let sources = all_sources();
        let (files, report) = rule_files_cached_at(root, &sources, cache, now);
        assert_eq!(
            files,
            rule_files(root, &sources),
            "the cache changes nothing found"
        );
        assert_eq!(report.file, cache.file().as_str());
        (
            names(root, &files),
            report.dirs,
            report.reused,
            report.problem,
        )
    }

    /// The second walk lists nothing; a change lists again its directory
    /// alone, and what it added or removed is found (or not) at once.
    #[test]
    fn only_directories_that_changed_are_listed_again() {
        let (_dir, root, cache) = project();
        let (found, dirs, reused, problem) = walk(&root, &cache, later());
        assert_eq!(
            found,
            ["CLAUDE.md", "p1/AGENTS.md", "p2/m1/.cursor/rules/r.mdc"]
        );
        assert_eq!((dirs, reused, problem), (13, 0, None));
        assert!(cache.file().is_file());
        assert_eq!(walk(&root, &cache, later()).2, 13, "every listing reused");

        // A new rule file, a new directory with one, a removed directory.
        fs::write(root.join("p3/m0/AGENTS.md"), "new\n").unwrap();
        fs::create_dir_all(root.join("p0/m1/fresh")).unwrap();
        fs::write(root.join("p0/m1/fresh/CLAUDE.md"), "fresh\n").unwrap();
        fs::remove_dir_all(root.join("p2/m1")).unwrap();
        let (found, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!(
            found,
            [
                "CLAUDE.md",
                "p0/m1/fresh/CLAUDE.md",
                "p1/AGENTS.md",
                "p3/m0/AGENTS.md"
            ]
        );
        // p3/m0, p0/m1 and p2 listed again, p0/m1/fresh listed for the
        // first time; p2/m1 is gone.
        assert_eq!((dirs, reused), (13, 9));
        assert_eq!(walk(&root, &cache, later()).2, 13);
    }

    /// Names with a quote, a backslash, a control character or any script
    /// are kept as they are and read back as written: every listing is
    /// reused and the walk finds what it found.
    #[cfg(unix)]
    #[test]
    fn names_of_any_text_are_read_back_as_written() {
        let (_dir, root, cache) = project();
        for name in ["say \"hi\"", "back\\slash", "tab\there", "ünïcødé"] {
            fs::create_dir_all(root.join("p0").join(name).join("inner")).unwrap();
            fs::write(root.join("p0").join(name).join("inner/CLAUDE.md"), "x\n").unwrap();
        }
        let (first, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!((dirs, reused), (21, 0));
        let bytes = fs::read(cache.file()).unwrap();
        for name in ["say \"hi\"", "tab\there", "ünïcødé"] {
            let raw = name.as_bytes();
            assert!(bytes.windows(raw.len()).any(|w| w == raw), "{name}");
        }
        let (again, dirs, reused, problem) = walk(&root, &cache, later());
        assert_eq!((dirs, reused, problem), (21, 21, None));
        assert_eq!(again, first);
        assert_eq!(again.len(), 7, "{again:?}");
    }

    /// The listings are stored in the order the walk visits its folders
    /// and taken in turn; a cache in any other order holds just the same.
    #[test]
    fn a_cache_in_another_order_holds_the_same() {
        /// What `f` returns, and how many listings were taken in turn.
        fn in_turn<T>(f: impl FnOnce() -> T) -> (T, usize) {
            use super::super::tests::TAKEN_IN_TURN;
            let before = TAKEN_IN_TURN.with(std::cell::Cell::get);
            let out = f();
            (out, TAKEN_IN_TURN.with(std::cell::Cell::get) - before)
        }
        let (_dir, root, cache) = project();
        let (first, ..) = walk(&root, &cache, later());
        // (The walk without a cache that `walk` makes to compare takes none.)
        assert_eq!(in_turn(|| walk(&root, &cache, later())).1, 13);
        edit(&cache, |stored| {
            let dirs = &mut stored.listings.dirs;
            let order: Vec<&str> = dirs.iter().map(super::StoredDir::dir).collect();
            assert_eq!(order[..3], ["", "p0", "p0/m0"], "the walk's order");
            dirs.reverse();
        });
        let ((again, dirs, reused, problem), taken) = in_turn(|| walk(&root, &cache, later()));
        assert_eq!(taken, 0, "looked up by path from the first");
        assert_eq!((dirs, reused, problem), (13, 13, None));
        assert_eq!(again, first);
    }

    /// The cache is written only when the walk saw something it does not
    /// hold: a directory listed again, or one it holds that the walk no
    /// longer visits.
    #[cfg(unix)]
    #[test]
    fn the_cache_is_rewritten_only_when_the_walk_differs_from_it() {
        use std::os::unix::fs::MetadataExt;
        let (_dir, root, cache) = project();
        let inode = || fs::metadata(cache.file()).unwrap().ino();
        walk(&root, &cache, later());
        let first = inode();
        walk(&root, &cache, later());
        assert_eq!(inode(), first, "nothing changed: not written again");

        // A directory the cache holds and the walk does not visit.
        let ghost = super::StoredDir("ghost".into(), super::DirId(1, 2, 3, 4, 5, 6), (0, 0));
        edit(&cache, |stored| stored.listings.dirs.insert(0, ghost));
        let (_, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!((dirs, reused), (13, 13));
        let bytes = fs::read(cache.file()).unwrap();
        assert!(!bytes.windows(5).any(|w| w == b"ghost"));

        // A directory listed again.
        let before = inode();
        fs::write(root.join("p0/AGENTS.md"), "new\n").unwrap();
        walk(&root, &cache, later());
        assert_ne!(inode(), before);
    }

    /// Listings kept for one set of candidate names are not used for
    /// another (a `jit.toml` renaming a convention's files): the names the
    /// other looks for may not be in them.
    #[test]
    fn listings_kept_for_other_names_are_not_used() {
        use crate::{SourceOptions, source_by_name};
        let (_dir, root, cache) = project();
        fs::write(root.join("p3/m1/RULES.md"), "renamed\n").unwrap();
        walk(&root, &cache, later());
        let renamed = vec![
            source_by_name("claude", &SourceOptions::default().with_names(["RULES.md"])).unwrap(),
        ];
        let (files, report) = rule_files_cached_at(&root, &renamed, &cache, later());
        assert_eq!(names(&root, &files), ["p3/m1/RULES.md"]);
        assert_eq!((report.dirs, report.reused), (13, 0));
    }

    /// A cache file is read up to 64 MiB: a larger one is walked around
    /// and said; one just over a megabyte is read.
    #[test]
    fn a_cache_file_is_read_up_to_its_bound() {
        let (_dir, root, cache) = project();
        walk(&root, &cache, later());
        let long = "x".repeat(1 << 20);
        let id = super::DirId(1, 2, 3, 4, 5, 6);
        edit(&cache, |stored| stored.listings.push(long.into(), id, []));
        assert!(fs::metadata(cache.file()).unwrap().len() > 1 << 20);
        let (_, _, reused, problem) = walk(&root, &cache, later());
        assert_eq!((reused, problem), (13, None));

        // Not a regular file (a FIFO, whose open would block): not read,
        // said, then replaced by this walk's cache.
        #[cfg(unix)]
        {
            fs::remove_file(cache.file()).unwrap();
            let made = std::process::Command::new("mkfifo")
                .arg(cache.file())
                .status();
            if made.is_ok_and(|s| s.success()) {
                let (found, _, reused, problem) = walk(&root, &cache, later());
                assert_eq!((found.len(), reused), (3, 0));
                assert!(problem.unwrap().starts_with("cannot read"));
                assert!(cache.file().is_file());
            }
        }

        // Exactly at the bound: read (and found not to be a cache).
        let big = fs::File::create(cache.file()).unwrap();
        big.set_len(64 * 1024 * 1024).unwrap();
        let problem = walk(&root, &cache, later()).3.unwrap();
        assert!(problem.contains("is not a walk cache"), "{problem}");

        let big = fs::File::create(cache.file()).unwrap();
        big.set_len(64 * 1024 * 1024 + 1).unwrap();
        let (found, _, reused, problem) = walk(&root, &cache, later());
        assert_eq!((found.len(), reused), (3, 0));
        assert!(problem.unwrap().contains("over the 67108864-byte bound"));
    }

    /// A directory changed within the settling time of its listing is not
    /// kept: its times may not show a change made in the same clock tick.
    #[test]
    fn a_directory_changed_just_before_its_listing_is_listed_again() {
        let (_dir, root, cache) = project();
        walk(&root, &cache, SystemTime::now());
        let (_, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!(
            (dirs, reused),
            (13, 0),
            "nothing was settled at the first walk"
        );
        assert_eq!(walk(&root, &cache, later()).2, 13);
    }

    /// A cache that is not one, one for another root, and one that cannot
    /// be written: the walk finds the same, and says what went wrong.
    #[test]
    fn a_broken_or_foreign_cache_is_walked_around() {
        let (dir, root, cache) = project();
        fs::create_dir_all(cache.file().parent().unwrap()).unwrap();
        fs::write(cache.file(), "{ not json").unwrap();
        let (found, _, reused, problem) = walk(&root, &cache, later());
        assert_eq!(found.len(), 3);
        assert_eq!(reused, 0);
        let problem = problem.unwrap();
        assert!(problem.contains("is not a walk cache"), "{problem}");
        // Rewritten whole: the next walk reuses it.
        assert_eq!(walk(&root, &cache, later()).2, 13);

        // A cache of an earlier layout (JSON, versions 1 and 2), silently.
        for earlier in [
            r#"{"version":1,"dirs":[{"dir":""}]}"#,
            r#"{"version":2,"root":"/","keep":[],"dirs":[["",[1,2,3,4,5,6],[]]]}"#,
        ] {
            fs::write(cache.file(), earlier).unwrap();
            let (found, dirs, reused, problem) = walk(&root, &cache, later());
            assert_eq!((found.len(), dirs, reused, problem), (3, 13, 0, None));
        }
        // ... and of a later one, whatever follows its version.
        let mut stored = fs::read(cache.file()).unwrap();
        assert!(stored.starts_with(b"jit-walk\x04\0\0\0"), "{stored:?}");
        stored[8] = 5;
        fs::write(cache.file(), &stored).unwrap();
        let (found, dirs, reused, problem) = walk(&root, &cache, later());
        assert_eq!((found.len(), dirs, reused, problem), (3, 13, 0, None));
        // This layout cut short, or padded, is no cache: said, with where.
        let whole = fs::read(cache.file()).unwrap();
        for (bytes, expected) in [
            (&whole[..whole.len() - 1], "(it ends inside "),
            (
                &[&whole[..], b"\0"].concat()[..],
                "(1 bytes follow the last directory)",
            ),
        ] {
            fs::write(cache.file(), bytes).unwrap();
            let (found, _, reused, problem) = walk(&root, &cache, later());
            assert_eq!((found.len(), reused), (3, 0));
            let problem = problem.unwrap();
            assert!(problem.contains("is not a walk cache"), "{problem}");
            assert!(problem.contains(expected), "{problem}");
            assert!(
                problem.ends_with("; every directory was listed"),
                "{problem}"
            );
        }

        // The same cache for another root holds nothing for it, silently.
        let other = root.parent().unwrap().join("other");
        fs::create_dir_all(other.join("x")).unwrap();
        let (_, dirs, reused, problem) = walk(&other, &cache, later());
        assert_eq!((dirs, reused, problem), (2, 0, None));

        // A cache whose folder is a file cannot be written: said, not fatal.
        let blocked = WalkCache::new(
            Utf8Path::from_path(dir.path())
                .unwrap()
                .join("proj/CLAUDE.md/walk.json"),
        );
        let (found, _, _, problem) = walk(&root, &blocked, later());
        assert_eq!(found.len(), 3);
        assert!(problem.unwrap().starts_with("cannot write"));
    }

    /// The cache is written through no link planted in the state
    /// directory: not one at the temporary file's name (this process's id
    /// is in it), whose target is left alone, and not one in the cache
    /// folder's place, which is neither read nor written through, and said.
    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_never_written_through() {
        let (_dir, root, cache) = project();
        let folder = cache.file().parent().unwrap();
        fs::create_dir_all(folder).unwrap();
        let target = root.parent().unwrap().join("notes.txt");
        fs::write(&target, "kept").unwrap();
        let temp = folder.join(format!(
            ".{}.{}.tmp",
            cache.file().file_name().unwrap(),
            std::process::id()
        ));
        std::os::unix::fs::symlink(&target, &temp).unwrap();
        let (_, _, _, problem) = walk(&root, &cache, later());
        assert_eq!(problem, None);
        assert_eq!(fs::read(&target).unwrap(), b"kept");
        assert!(fs::symlink_metadata(&temp).is_err(), "the link is gone");
        assert!(fs::symlink_metadata(cache.file()).unwrap().is_file());
        let (_, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!(reused, dirs, "the cache written is read");

        // The folder a link to another: refused both ways, said.
        let elsewhere = root.parent().unwrap().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::rename(folder, root.parent().unwrap().join("old-walks")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, folder).unwrap();
        let (found, dirs, reused, problem) = walk(&root, &cache, later());
        assert_eq!((found.len(), dirs, reused), (3, 13, 0));
        let problem = problem.unwrap();
        assert!(
            problem.starts_with(&format!(
                "cannot write {}: its folder {folder} is a symbolic link",
                cache.file()
            )),
            "{problem}"
        );
        assert!(fs::read_dir(&elsewhere).unwrap().next().is_none());
    }

    /// Whatever a cache says, the walk enters no link: a listing that calls
    /// a link to a folder outside the root a directory is not followed.
    #[cfg(unix)]
    #[test]
    fn a_cache_that_calls_a_link_a_directory_is_not_followed() {
        let (_dir, root, cache) = project();
        let outside = outside_with_a_rule(&root);
        std::os::unix::fs::symlink(&outside, root.join("evil")).unwrap();
        walk(&root, &cache, later());
        // The root's listing, as stored, now says `evil` is a directory.
        edit_root_listing(&cache, |listing| {
            assert!(listing.contains(&("CLAUDE.md".into(), false)));
            assert!(!listing.iter().any(|(name, _)| name == "evil"));
            listing.push(("evil".into(), true));
        });
        let (found, dirs, reused, _) = walk(&root, &cache, later());
        assert!(!found.iter().any(|f| f.starts_with("evil")), "{found:?}");
        assert_eq!((dirs, reused), (13, 13), "the link is not entered nor kept");
    }

    /// A cache that names as a directory what no listing holds (an empty
    /// name, an absolute path, a path of two components) has the walk
    /// enter none of them: it goes nowhere a listing would not take it.
    #[test]
    fn a_cache_naming_a_path_as_a_directory_is_not_followed() {
        let (_dir, root, cache) = project();
        let outside = outside_with_a_rule(&root);
        let (first, ..) = walk(&root, &cache, later());
        edit_root_listing(&cache, |listing| {
            for odd in ["", outside.as_str(), "p1/m0", "p1/../p2"] {
                listing.push((odd.to_owned().into(), true));
            }
        });
        let (found, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!(found, first);
        assert_eq!((dirs, reused), (13, 13), "nothing more visited");
    }

    /// A name a kept listing holds twice (a listing never does; a cache
    /// file could) is entered once, and a name the walk neither enters nor
    /// looks for is not written back.
    #[test]
    fn a_cache_naming_a_directory_twice_or_junk_is_walked_as_a_listing_would_be() {
        let (_dir, root, cache) = project();
        let (first, ..) = walk(&root, &cache, later());
        edit_root_listing(&cache, |listing| {
            listing.push(("p1".into(), true));
            listing.push(("junk.txt".into(), false));
        });
        let (found, dirs, reused, _) = walk(&root, &cache, later());
        assert_eq!(found, first);
        assert_eq!((dirs, reused), (13, 13), "p1 is visited once");
        // A change elsewhere has the cache written again, without the junk.
        fs::write(root.join("p3/AGENTS.md"), "new\n").unwrap();
        walk(&root, &cache, later());
        let bytes = fs::read(cache.file()).unwrap();
        assert!(!bytes.windows(8).any(|w| w == b"junk.txt"));
    }

    /// A walk whose listings cannot be written within the bound removes
    /// the cache it read, and says so.
    #[test]
    fn a_walk_over_the_bound_removes_the_cache_it_read() {
        use std::borrow::Cow;
        let (_dir, root, cache) = project();
        walk(&root, &cache, later());
        assert!(cache.file().is_file());
        let bound = usize::try_from(super::MAX_CACHE_BYTES).unwrap();
        let huge = super::Visit::Listed(Box::new(super::ListedDir {
            dir: root.join("p0"),
            id: Some(super::DirId(1, 2, 3, 4, 5, 6)),
            listing: vec![(Cow::Owned("x".repeat(bound + 1)), true)],
        }));
        let keep = super::super::kept_names(&all_sources());
        let visits = [huge];
        let stored = (&visits[..], &super::Listings::default());
        let problem = super::store(cache.file(), &root, &keep, stored, later()).unwrap_err();
        assert!(
            problem.ends_with("and the cache read was removed"),
            "{problem}"
        );
        assert!(!cache.file().exists());
    }

    /// The check's `statx` from the opened root reads what `lstat` of the
    /// absolute path reads (a cache written by either holds for the other,
    /// and the fallback answers alike): a directory's identity, `None` for
    /// a link or a file, an error for what is not there.
    #[cfg(target_os = "linux")]
    #[test]
    fn statx_from_the_root_reads_the_identity_lstat_reads() {
        use super::{DirId, linux};
        let (_dir, root, _cache) = project();
        let dir = root.join("p1");
        let link = root.join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        let id = DirId::of_std(&dir);
        assert!(id.is_some());
        assert_eq!(linux::id_at(rustix::fs::CWD, dir.as_str()).unwrap(), id);
        assert_eq!(DirId::of(&dir), id);
        let opened = linux::open_root(root.as_str()).unwrap();
        assert_eq!(linux::id_at(&opened, "p1").unwrap(), id);
        assert_eq!(linux::id_at(&opened, "").unwrap(), DirId::of_std(&root));
        assert_eq!(
            linux::id_at(&opened, "link").unwrap(),
            None,
            "a link is not followed"
        );
        assert_eq!(DirId::of(&link), None);
        assert_eq!(DirId::of_std(&link), None);
        assert_eq!(
            linux::id_at(&opened, "p1/AGENTS.md").unwrap(),
            None,
            "a file"
        );
        assert!(linux::id_at(&opened, "gone").is_err());
        assert_eq!(DirId::of(&root.join("gone")), None);
        assert!(linux::open_root(root.join("p1/AGENTS.md").as_str()).is_none());
    }
}
