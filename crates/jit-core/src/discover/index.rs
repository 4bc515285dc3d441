//! The rule index: the rules a project has that the startup load did not bring in, listed compactly within a byte bound, and the walk that finds them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs;
use std::sync::{Arc, Mutex};

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

use super::chain::{PlainEntry, contained, is_entry_name, plain_entry};
use super::startup::StartupReport;
use super::{DiscoveryState, Engine};
use crate::Map;
use crate::rule::source::{Precedence, RuleDir, RuleSource, all_sources};
use crate::rule::{RuleScope, SkipReason, read_opened};
use cache::{DirId, ListedDir, Listing, Visit};

mod cache;

/// The default byte bound of the rule index: 2 KiB of JSON.
pub const DEFAULT_INDEX_BYTES: usize = 2048;

/// The deepest directory the project walk enters.
const MAX_WALK_DEPTH: usize = 32;
/// The most directories the project walk visits.
const MAX_WALK_DIRS: usize = 20_000;
/// The most rule files the index reads.
const MAX_INDEX_FILES: usize = 2_000;

/// One rule that exists but was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexEntry {
    /// The rule file, root-relative.
    pub file: String,
    /// Its convention (`cursor`, ...).
    pub source: String,
    /// Its scope patterns; empty for an unscoped or hand-attached rule.
    pub scope: Vec<String>,
    /// Its `description:`, if it has one.
    pub description: Option<String>,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Rules left out of the index past its byte bound, in one directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexOverflow {
    /// The directory, root-relative (`.` for the root).
    pub dir: String,
    /// How many of its rules were left out.
    pub count: usize,
}

/// The index and its overflow.
pub(crate) struct RuleIndex {
    pub(crate) entries: Vec<IndexEntry>,
    pub(crate) overflow: Vec<IndexOverflow>,
    /// What the walk that found its files did with its cache.
    pub(crate) cache: Option<WalkCacheReport>,
}

/// Every rule file of `sources` in the project at `root`, with the index
/// of its source in `sources`, in walk order (a directory's own files, then
/// its rule folders sorted, then its subdirectories sorted).
///
/// The walk is bounded (32 levels, 20,000 directories), does not follow
/// links to directories, and leaves out hidden directories, `node_modules`
/// and `target`; a file whose real path is outside the root is left out.
/// Candidate names come from [`RuleSource::files`], plus
/// [`RuleSource::root_files`] at the root; under [`Precedence::FirstFound`]
/// only the first regular file of a directory is listed.
///
/// ```
/// use jit_core::{all_sources, find_rule_files};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src"))?;
/// std::fs::write(dir.path().join("src/AGENTS.md"), "x\n")?;
/// let root = camino::Utf8PathBuf::try_from(dir.path().canonicalize()?)?;
/// let sources = all_sources();
/// let found = find_rule_files(&root, &sources);
/// assert_eq!(found.len(), 1);
/// assert_eq!(sources[found[0].0].name(), "agents");
/// assert!(found[0].1.ends_with("src/AGENTS.md"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_rule_files(
    root: &Utf8Path,
    sources: &[Arc<dyn RuleSource>],
) -> Vec<(usize, Utf8PathBuf)> {
    let root = real_or_given(root);
    rule_files(&root, sources)
        .into_iter()
        .map(|(source, path, _)| (source, path))
        .collect()
}

/// A rule file a walk found: the index of its source, its path, and
/// whether that path is its own real path (reached through no link, so
/// nothing needs resolving to compare it with the files in the context).
pub(crate) type Found = (usize, Utf8PathBuf, bool);

/// `path`'s real path, or `path` as given when it cannot be resolved (a
/// root that cannot be: the walk then finds nothing there).
fn real_or_given(path: &Utf8Path) -> Utf8PathBuf {
    fs::canonicalize(path)
        .ok()
        .and_then(|p| Utf8PathBuf::from_path_buf(p).ok())
        .unwrap_or_else(|| path.to_owned())
}

/// The rule files of `sources` in the project at `root` (canonical), found
/// by a bounded walk that does not follow links to directories and leaves
/// out hidden directories, `node_modules` and `target`. Each comes with the
/// index of its source. Under [`Precedence::FirstFound`] only the first
/// regular file of a directory counts.
pub(crate) fn rule_files(root: &Utf8Path, sources: &[Arc<dyn RuleSource>]) -> Vec<Found> {
    let ahead = Ahead::from_map(list_ahead(root, false));
    walk_listed(root, sources, &kept_names(sources), ahead, None)
}

/// Where a project walk keeps what it listed, so that the next walk of the
/// same project lists again only the directories that changed: a file the
/// caller chooses (the `jit` command line keeps one per project under its
/// state directory).
///
/// A directory's listing is reused while its `lstat` identity and times
/// (device, inode, modification and status-change times) are what they
/// were; one changed within two seconds of its listing is listed again
/// next time (file times are as coarse as the kernel's clock). Rule files
/// are judged again on every walk. The file is binary (a `jit-walk` header,
/// its texts, each once, then references to them); a cache that cannot be
/// read, is cut short, names more than it holds or is no walk cache is
/// walked around, said in the report and rewritten; one of another layout
/// (an older or newer jit's) is replaced silently; one that cannot be
/// written is reported, never an error.
///
/// ```
/// use jit_core::{ProjectWalk, WalkCache};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("proj/api"))?;
/// std::fs::write(dir.path().join("proj/api/AGENTS.md"), "API.\n")?;
/// let root = camino::Utf8PathBuf::try_from(dir.path().join("proj").canonicalize()?)?;
/// let cache = WalkCache::new(camino::Utf8PathBuf::try_from(dir.path().join("proj.walk"))?);
///
/// let first = ProjectWalk::with_cache(&root, &cache);
/// let report = first.cache_report().unwrap();
/// assert_eq!((report.dirs, report.reused, report.problem.as_deref()), (2, 0, None));
/// assert!(cache.file().is_file());
/// // The next walk finds the same; it reuses each listing whose directory
/// // has not changed (and was not changed within two seconds of its listing).
/// let again = ProjectWalk::with_cache(&root, &cache);
/// assert_eq!(again.conventions()[0].name(), "agents");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkCache {
    file: Utf8PathBuf,
}

impl WalkCache {
    /// A cache kept in `file` (created with its directory when missing).
    pub fn new(file: impl Into<Utf8PathBuf>) -> Self {
        WalkCache { file: file.into() }
    }

    /// The cache file.
    pub fn file(&self) -> &Utf8Path {
        &self.file
    }
}

/// What a walk with a [`WalkCache`] did: how many directories it visited,
/// how many of their listings it reused, and what went wrong with the
/// cache, if anything (the startup load adds that to its diagnostics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WalkCacheReport {
    /// The cache file.
    pub file: String,
    /// Directories the walk visited.
    pub dirs: usize,
    /// Of those, how many were not listed again (the cache's listing held).
    pub reused: usize,
    /// Why an existing cache could not be read (unreadable, not a walk
    /// cache, too large) or the walk's could not be written; `None` when
    /// nothing went wrong (no cache yet, or one written for another root,
    /// version or set of names, is simply walked around and replaced).
    pub problem: Option<String>,
}

/// [`rule_files`] through `cache`: listings the cache holds are reused,
/// the others made (on up to four threads when the cache holds none), and
/// the cache rewritten when anything was listed.
pub(crate) fn rule_files_cached(
    root: &Utf8Path,
    sources: &[Arc<dyn RuleSource>],
    cache: &WalkCache,
) -> (Vec<Found>, WalkCacheReport) {
    rule_files_cached_at(root, sources, cache, std::time::SystemTime::now())
}

/// [`rule_files_cached`] with the time of the listings given (tests walk
/// "later", so that directories they just made count as settled).
fn rule_files_cached_at(
    root: &Utf8Path,
    sources: &[Arc<dyn RuleSource>],
    cache: &WalkCache,
    now: std::time::SystemTime,
) -> (Vec<Found>, WalkCacheReport) {
    let keep = kept_names(sources);
    let text = cache::read(cache.file());
    let (kept, mut problem) = match &text {
        Ok(Some(text)) => cache::load(text, cache.file(), root, &keep),
        Ok(None) => (cache::Listings::default(), None),
        Err(problem) => (cache::Listings::default(), Some(problem.clone())),
    };
    let stored = kept.dirs().len();
    let mut visits = Vec::new();
    let files = if stored == 0 {
        let ahead = Ahead::from_map(list_ahead(root, true));
        walk_listed(root, sources, &keep, ahead, Some(&mut visits))
    } else {
        // Each kept listing is checked as the walk takes it, or ahead of
        // it by a helper thread.
        let checks = cache::Checks::new(root, kept.dirs());
        checks.run(|checks| {
            let ahead = Ahead::in_order(&kept, checks);
            walk_listed(root, sources, &keep, ahead, Some(&mut visits))
        })
    };
    let reused = visits
        .iter()
        .filter(|v| matches!(v, Visit::Kept(_)))
        .count();
    if (reused < visits.len() || reused < stored)
        && let Err(err) = cache::store(cache.file(), root, &keep, (&visits, &kept), now)
    {
        problem = Some(err);
    }
    let report = WalkCacheReport {
        file: cache.file().to_string(),
        dirs: visits.len(),
        reused,
        problem,
    };
    (files, report)
}

/// The names besides subdirectories a walk for `sources` reads in a
/// listing: each candidate's first component, sorted.
fn kept_names(sources: &[Arc<dyn RuleSource>]) -> Vec<String> {
    let mut keep: Vec<String> = sources
        .iter()
        .flat_map(|source| {
            let dirs = source.rule_dirs().iter().map(|d| d.path.as_str());
            let files = source.files().iter().chain(source.root_files());
            files.map(String::as_str).chain(dirs).collect::<Vec<_>>()
        })
        .map(|name| name.split('/').next().unwrap_or(name).to_owned())
        .collect();
    keep.sort();
    keep.dedup();
    keep
}

/// The listings made before the walk reached their directories, by
/// root-relative path (`""` for the root): those a cache kept come in the
/// order of the walk that kept them, which is the order the walk asks for
/// them while the project's folders are as they were, so they are taken in
/// turn; from the first directory asked out of that order on (one added or
/// removed since), through a map of those left. A kept listing is used
/// only if its directory is as it was ([`cache::Checks`]), checked when it
/// is taken.
#[derive(Default)]
struct Ahead<'a, 'c> {
    /// The cache's listings, in the order the walk is expected to ask.
    kept: Option<&'a cache::Listings<'a>>,
    /// How many of `kept` were taken in turn.
    taken: usize,
    /// The checks of the cache's listings, and this thread's checker.
    checks: Option<(&'c cache::Checks<'a>, cache::Checker)>,
    /// Listings by path; a cache's pass their check first.
    map: Map<Cow<'a, str>, Listed<'a>>,
}

impl<'a, 'c> Ahead<'a, 'c> {
    /// Listings in no particular order (made on other threads).
    fn from_map(map: Map<Cow<'a, str>, Listed<'a>>) -> Self {
        Ahead {
            map,
            ..Ahead::default()
        }
    }

    /// A cache's listings in the order the walk is expected to ask for
    /// them, each used once `checks` (made for them) says its directory is
    /// as it was.
    fn in_order(kept: &'a cache::Listings<'a>, checks: &'c cache::Checks<'a>) -> Self {
        Ahead {
            kept: Some(kept),
            taken: 0,
            checks: Some((checks, cache::Checker::new(checks.root()))),
            map: Map::default(),
        }
    }

    /// How many directories this has something to say about.
    fn len(&self) -> usize {
        let kept = self.kept.map_or(0, |kept| kept.dirs().len());
        kept - self.taken + self.map.len()
    }

    /// The listing made ahead for the directory `key`, if any (and, kept
    /// by a cache, if its directory is as it was).
    fn take(&mut self, key: &str) -> Option<Listed<'a>> {
        let place = self.taken;
        if let Some(kept) = self.kept
            && let Some(next) = kept.dirs().get(place)
        {
            if next.dir() == key {
                #[cfg(test)]
                tests::TAKEN_IN_TURN.with(|count| count.set(count.get() + 1));
                self.taken += 1;
                return kept.listed(place).and_then(|listed| self.holds(listed));
            }
            // Out of order: the rest is looked up by path from now on.
            for (i, stored) in kept.dirs().iter().enumerate().skip(place) {
                if let Some(listed) = kept.listed(i) {
                    self.map.insert(Cow::Borrowed(stored.dir()), listed);
                }
            }
            self.taken = kept.dirs().len();
        }
        let listed = self.map.remove(key)?;
        self.holds(listed)
    }

    /// `listed`, unless a cache kept it and its directory is not as it was.
    fn holds(&mut self, listed: Listed<'a>) -> Option<Listed<'a>> {
        let Names::Kept { place, .. } = listed.names else {
            return Some(listed);
        };
        self.checks
            .as_mut()
            .is_some_and(|(checks, checker)| checks.holds(place, checker))
            .then_some(listed)
    }
}

/// A directory listed before the walk reached it: kept by a cache
/// (borrowed from it) or made on another thread.
struct Listed<'a> {
    names: Names<'a>,
    /// Its identity just before the listing (when a cache is written).
    id: Option<DirId>,
}

/// A listing's names: a cache's, borrowed, with its place there, or made
/// now.
enum Names<'a> {
    Kept {
        names: &'a [(Cow<'a, str>, bool)],
        place: usize,
    },
    Made(Listing<'a>),
}

impl<'a> Names<'a> {
    fn as_slice(&self) -> &[(Cow<'a, str>, bool)] {
        match self {
            Names::Kept { names, .. } => names,
            Names::Made(names) => names,
        }
    }
}

/// [`rule_files`] with the listings of `ahead` (made on other threads, or
/// kept by a cache; by root-relative directory, `""` for the root)
/// standing in for listing a directory again; the walk, its order and its
/// bounds are the same with or without them. With `visits`, each
/// directory visited is recorded there, with its identity. `keep` is
/// [`kept_names`] of `sources`: a directory whose listing holds none of
/// them has no rule file (most directories).
fn walk_listed<'a>(
    root: &Utf8Path,
    sources: &[Arc<dyn RuleSource>],
    keep: &[String],
    mut ahead: Ahead<'a, '_>,
    mut visits: Option<&mut Vec<Visit<'a>>>,
) -> Vec<Found> {
    if let Some(visits) = visits.as_deref_mut() {
        visits.reserve(ahead.len());
    }
    // The first bytes of `keep`: most names start with none of them.
    let mut firsts = [false; 256];
    for name in keep {
        if let Some(&b) = name.as_bytes().first() {
            firsts[usize::from(b)] = true;
        }
    }
    let mut out: Vec<Found> = Vec::new();
    // Depth first; the stack holds names, borrowed from a cache's listings.
    let mut stack: Vec<(Cow<'a, str>, usize)> = vec![(Cow::Borrowed(""), 0)];
    let mut path = WalkPath::new(root);
    let mut visited = 0usize;
    while let Some((name, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_WALK_DIRS {
            break;
        }
        let dir = path.enter(&name, depth);
        // One listing per directory: a candidate whose first component is
        // not in it costs no system call (most of them, in most directories).
        let key = jit_base::relative_to(dir, root).map(Utf8Path::as_str);
        let held = key.and_then(|key| ahead.take(key));
        let listed = held.unwrap_or_else(|| {
            let id = visits.is_some().then(|| DirId::of(dir)).flatten();
            Listed {
                names: Names::Made(listing(dir)),
                id,
            }
        });
        // Recording, a directory is known by its `lstat`: one that is not a
        // directory now (a link, whatever a cache said) is not entered.
        if cfg!(unix) && visits.is_some() && listed.id.is_none() {
            continue;
        }
        // The walk enters no link: each directory is its own real path.
        let has_candidate = |(name, _): &(Cow<'_, str>, bool)| {
            name.as_bytes()
                .first()
                .is_some_and(|&b| firsts[usize::from(b)])
                && keep.binary_search_by(|k| k.as_str().cmp(name)).is_ok()
        };
        let names = listed.names.as_slice();
        if names.iter().any(has_candidate) {
            dir_rule_files(root, dir, true, sources, names, &mut out);
        }
        if depth < MAX_WALK_DEPTH {
            push_subdirs_of(&listed.names, depth + 1, &mut stack);
        }
        if let Some(visits) = visits.as_deref_mut() {
            visits.push(match listed.names {
                Names::Kept { place, .. } => Visit::Kept(place),
                Names::Made(listing) => Visit::Listed(Box::new(ListedDir {
                    id: listed.id,
                    dir: path.dir().to_owned(),
                    listing,
                })),
            });
        }
    }
    out
}

/// The directory a depth-first walk is in: one path, cut back and
/// extended. A directory is one name below the path last visited at its
/// parent's depth (everything visited since its parent was is below that
/// parent), so no path is joined per directory.
struct WalkPath {
    path: Utf8PathBuf,
    /// The path's length at each depth down to the current one.
    ends: Vec<usize>,
}

impl WalkPath {
    /// At `root`, depth 0.
    fn new(root: &Utf8Path) -> Self {
        WalkPath {
            path: root.to_owned(),
            ends: vec![root.as_str().len()],
        }
    }

    /// Enters `name` at `depth` (below the path at `depth - 1`; the root,
    /// at depth 0, is entered as it is): the directory it names.
    fn enter(&mut self, name: &str, depth: usize) -> &Utf8Path {
        if depth > 0 {
            // (Always there: the root's when not, never the empty path.)
            let parent = self.ends.get(depth - 1).or(self.ends.first());
            let parent = parent.copied().unwrap_or_default();
            let mut text = std::mem::take(&mut self.path).into_string();
            text.truncate(parent);
            self.path = Utf8PathBuf::from(text);
            self.path.push(name);
            self.ends.truncate(depth);
            self.ends.push(self.path.as_str().len());
        }
        &self.path
    }

    /// The directory entered last.
    fn dir(&self) -> &Utf8Path {
        &self.path
    }
}

/// Pushes the subdirectories the walk enters in `names` onto `stack` at
/// `depth`, to be popped in sorted order: borrowed from a cache's
/// listing, owned from one made now.
fn push_subdirs_of<'a>(names: &Names<'a>, depth: usize, stack: &mut Vec<(Cow<'a, str>, usize)>) {
    let start = stack.len();
    match names {
        Names::Kept { names, .. } => {
            stack.extend(subdirs(names).map(|n| (Cow::Borrowed(n), depth)));
        }
        Names::Made(names) => {
            stack.extend(subdirs(names).map(|n| (Cow::Owned(n.to_owned()), depth)));
        }
    }
    if let Some(pushed) = stack.get_mut(start..) {
        pushed.sort_unstable_by(|(a, _), (b, _)| b.cmp(a));
    }
    // A name twice (a listing never holds one; a cache file could) is
    // entered once.
    let mut kept = start;
    for at in start..stack.len() {
        let seen = kept > start && stack.get(kept - 1).map(|e| &e.0) == stack.get(at).map(|e| &e.0);
        if !seen {
            stack.swap(kept, at);
            kept += 1;
        }
    }
    stack.truncate(kept);
}

/// The names of the subdirectories of `listing` the walk enters.
fn subdirs<'n>(listing: &'n [(Cow<'_, str>, bool)]) -> impl Iterator<Item = &'n str> {
    listing
        .iter()
        .filter(|(name, is_dir)| enters(name, *is_dir))
        .map(|(name, _)| &**name)
}

/// The rule files of every source in one directory, from its `listing`:
/// named candidates, then each rule folder's files. `plain`: `dir` is known
/// to be its own real path, inside `root` (see [`Plain`]).
fn dir_rule_files(
    root: &Utf8Path,
    dir: &Utf8Path,
    plain: bool,
    sources: &[Arc<dyn RuleSource>],
    listing: &[(Cow<'_, str>, bool)],
    out: &mut Vec<Found>,
) {
    let entries = Entries::Listed(listing);
    for (i, source) in sources.iter().enumerate() {
        let files = source_files(root, dir, plain, source.as_ref(), &entries, false);
        out.extend(files.into_iter().map(|(p, real)| (i, p, real)));
    }
}

/// The rule files of one source in one directory: named candidates, then
/// each rule folder's files; only the first one found when `first_only`.
fn source_files(
    root: &Utf8Path,
    dir: &Utf8Path,
    plain: bool,
    source: &dyn RuleSource,
    entries: &Entries<'_>,
    first_only: bool,
) -> Vec<(Utf8PathBuf, bool)> {
    let at = Plain { root, plain };
    // As strings: a path's `==` compares component by component.
    let at_root = dir.as_str() == root.as_str();
    let mut out = named_files(at, dir, source, at_root, entries, first_only);
    for rule_dir in source.rule_dirs() {
        if first_only && !out.is_empty() {
            break;
        }
        if entries.has(&rule_dir.path) {
            let plain = match at.below(dir, &rule_dir.path) {
                Below::Plain => true,
                Below::Missing => continue,
                Below::Other => false,
            };
            let folder = dir.join(&rule_dir.path);
            out.extend(rule_folder_files(Plain { root, plain }, &folder, rule_dir));
        }
    }
    out
}

/// What a directory holds, as far as the rule-file checks ask: whether a
/// candidate's first component is one of its entries.
enum Entries<'a> {
    /// From a listing of the directory (a walk lists every directory it
    /// visits anyway).
    Listed(&'a [(Cow<'a, str>, bool)]),
    /// Asked name by name, each first component with one `lstat`: a
    /// handful of names costs less than listing a directory, for a caller
    /// that looks at a few directories and a few sources in each. A name
    /// of one component is always "there": the check that follows looks
    /// it up itself, and finds it missing just the same.
    Probed {
        dir: &'a Utf8Path,
        seen: std::cell::RefCell<Vec<(String, bool)>>,
    },
}

impl Entries<'_> {
    /// Whether the first component of `name` is in the directory, so the
    /// candidate is worth a closer look.
    fn has(&self, name: &str) -> bool {
        let first = name.split('/').next().unwrap_or(name);
        match self {
            Entries::Listed(listing) => listing.iter().any(|(n, _)| n == first),
            Entries::Probed { .. } if first == name => true,
            Entries::Probed { dir, seen } => {
                if let Some((_, there)) = seen.borrow().iter().find(|(n, _)| n == first) {
                    return *there;
                }
                #[cfg(test)]
                tests::PROBED.with(|count| count.set(count.get() + 1));
                let there = fs::symlink_metadata(dir.join(first)).is_ok();
                seen.borrow_mut().push((first.to_owned(), there));
                there
            }
        }
    }
}

/// Containment in the walk, at the cost of an `lstat` where it can be: in
/// a directory known to be its own real path inside `root` (`plain`: one
/// the walk reached through no link), an entry that is no link is its own
/// real path, inside too; anything else is resolved with `realpath`.
#[derive(Clone, Copy)]
struct Plain<'r> {
    root: &'r Utf8Path,
    plain: bool,
}

impl Plain<'_> {
    /// Whether `path`, an entry of the directory this describes, is a
    /// regular file really inside the root: `Some(real)` if so, `real`
    /// when `path` is its own real path; `None` if not.
    fn regular_inside(self, path: &Utf8Path) -> Option<bool> {
        match fs::symlink_metadata(path) {
            Ok(meta) if self.plain && !meta.file_type().is_symlink() => {
                meta.is_file().then_some(true)
            }
            Ok(_) => (fs::metadata(path).is_ok_and(|m| m.is_file()) && inside(self.root, path))
                .then_some(false),
            Err(_) => None,
        }
    }

    /// What `dir/rel` is, for `dir` this directory: its own real path too
    /// (every component of `rel` a directory and no link), certainly
    /// missing (one is absent, every one before it a plain directory), or
    /// anything else (a link on the way, an error, not plain to begin with).
    fn below(self, dir: &Utf8Path, rel: &str) -> Below {
        if !self.plain {
            return Below::Other;
        }
        let mut at = dir.to_owned();
        for part in rel.split('/') {
            // `..` (or anything but a plain name) may climb out: only
            // `realpath` can place it.
            if !is_entry_name(part) {
                return Below::Other;
            }
            at.push(part);
            match plain_entry(&at) {
                PlainEntry::Dir(_) => {}
                PlainEntry::Absent => return Below::Missing,
                PlainEntry::Other => return Below::Other,
            }
        }
        Below::Plain
    }
}

/// What a folder below a plain directory is (see [`Plain::below`]).
enum Below {
    Plain,
    Missing,
    Other,
}

/// The listings of the directories the walk of `root` will visit, made on
/// up to four threads: listing is most of a walk's time on a big
/// repository, and the walk itself (which must keep its order) then only
/// reads them. Bounded like the walk (depth, directory count); empty on a
/// single-core machine.
fn list_ahead(root: &Utf8Path, ids: bool) -> Map<Cow<'static, str>, Listed<'static>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 {
        return Map::default();
    }
    // The directories to list, how many are being listed now, and how many
    // were taken in all.
    let queue = Mutex::new((vec![(root.to_owned(), 0usize)], 0usize, 0usize));
    let listed = Mutex::new(Map::default());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            // A lister that cannot be started (a process at its thread
            // limit) is not missed: what no lister lists, the walk lists.
            let lister = || list_from(root, &queue, &listed, ids);
            let _ = std::thread::Builder::new().spawn_scoped(scope, lister);
        }
    });
    listed.into_inner().unwrap_or_default()
}

/// One lister of [`list_ahead`]: takes directories from `queue` until none
/// is left and none is being listed; with `ids`, takes each directory's
/// identity before listing it. Each listing goes in `listed` by its path
/// relative to `root`.
#[allow(
    clippy::type_complexity,
    reason = "a private queue shared by the listers of one function"
)]
fn list_from(
    root: &Utf8Path,
    queue: &Mutex<(Vec<(Utf8PathBuf, usize)>, usize, usize)>,
    listed: &Mutex<Map<Cow<'static, str>, Listed<'static>>>,
    ids: bool,
) {
    loop {
        let next = {
            let Ok(mut queue) = queue.lock() else {
                return;
            };
            match queue.0.pop() {
                Some(next) if queue.2 < MAX_WALK_DIRS => {
                    queue.1 += 1;
                    queue.2 += 1;
                    Some(next)
                }
                Some(_) => return,
                None if queue.1 == 0 => return,
                None => None,
            }
        };
        let Some((dir, depth)) = next else {
            std::thread::yield_now();
            continue;
        };
        let id = ids.then(|| DirId::of(&dir)).flatten();
        let names = listing(&dir);
        let mut below = Vec::new();
        if depth < MAX_WALK_DEPTH {
            push_subdirs(&dir, &names, depth + 1, &mut below);
        }
        // The key is the path's own text, cut to what is below the root:
        // freeing the path here, on another thread than the one that made
        // it, would contend for the allocator's lock on every directory.
        let below_root = jit_base::relative_to(&dir, root).map(|key| key.as_str().len());
        if let Some(len) = below_root {
            let mut key = dir.into_string();
            key.replace_range(..key.len().saturating_sub(len), "");
            if let Ok(mut listed) = listed.lock() {
                let names = Names::Made(names);
                listed.insert(Cow::Owned(key), Listed { names, id });
            }
        }
        let Ok(mut queue) = queue.lock() else {
            return;
        };
        queue.0.append(&mut below);
        queue.1 -= 1;
    }
}

/// The names in `dir`, each with whether it is a directory (links not
/// followed); empty when the directory cannot be read.
fn listing(dir: &Utf8Path) -> Listing<'static> {
    match dir.read_dir_utf8() {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (Cow::Owned(e.file_name().to_owned()), is_dir)
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Decides which of a source's candidate names in `dir` are rule files:
/// regular files really inside the root, only the first one under
/// [`Precedence::FirstFound`], root-only names at the root alone.
fn named_files(
    at: Plain<'_>,
    dir: &Utf8Path,
    source: &dyn RuleSource,
    at_root: bool,
    entries: &Entries<'_>,
    first_only: bool,
) -> Vec<(Utf8PathBuf, bool)> {
    let first_found = first_only || source.precedence() == Precedence::FirstFound;
    let root_files: &[String] = if at_root { source.root_files() } else { &[] };
    let mut found = Vec::new();
    for name in source.files().iter().chain(root_files) {
        if !entries.has(name) {
            continue;
        }
        // A name with a folder (`.claude/CLAUDE.md`) may cross a linked
        // folder: it is plain only when the folder is.
        let plain = match name.rsplit_once('/') {
            // `..` is no entry of the directory: resolved and contained.
            None => at.plain && is_entry_name(name),
            Some((folder, _)) => match at.below(dir, folder) {
                Below::Plain => true,
                Below::Missing => continue,
                Below::Other => false,
            },
        };
        let path = dir.join(name);
        if let Some(real) = (Plain { plain, ..at }).regular_inside(&path) {
            found.push((path, real));
            if first_found {
                break;
            }
        }
    }
    found
}

/// Decides which files of one rule folder are rule files: those with the
/// folder's suffix, really inside the root, each folder's files sorted,
/// sub-folders down to the walk's depth limit when the folder is recursive.
fn rule_folder_files(
    at: Plain<'_>,
    folder: &Utf8Path,
    rule_dir: &RuleDir,
) -> Vec<(Utf8PathBuf, bool)> {
    let root = at.root;
    let mut out = Vec::new();
    let mut folders = vec![(folder.to_owned(), 0usize, at.plain)];
    while let Some((folder, level, plain)) = folders.pop() {
        if !plain && !inside(root, &folder) {
            continue;
        }
        let Ok(entries) = folder.read_dir_utf8() else {
            continue;
        };
        let mut found = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            // The listing's type needs no system call; a link is followed.
            let link = entry.file_type().map_or(true, |t| t.is_symlink());
            let (is_dir, is_file) = if plain && !link {
                let kind = entry.file_type().ok();
                (
                    kind.is_some_and(|t| t.is_dir()),
                    kind.is_some_and(|t| t.is_file()),
                )
            } else {
                match fs::metadata(entry.path()) {
                    Ok(meta) => (meta.is_dir(), meta.is_file()),
                    Err(_) => continue,
                }
            };
            let plain = plain && !link;
            if is_dir && rule_dir.recursive && level < MAX_WALK_DEPTH {
                folders.push((entry.path().to_owned(), level + 1, plain));
            } else if is_file
                && entry.file_name().ends_with(&rule_dir.suffix)
                && (plain || inside(root, entry.path()))
            {
                found.push((entry.path().to_owned(), plain));
            }
        }
        found.sort();
        out.extend(found);
    }
    out
}

/// Pushes onto `stack`, each at `depth`, the subdirectories of `dir` the
/// walk enters (not hidden, not `node_modules` nor `target`), in reverse
/// order so they pop sorted.
fn push_subdirs(
    dir: &Utf8Path,
    listing: &[(Cow<'_, str>, bool)],
    depth: usize,
    stack: &mut Vec<(Utf8PathBuf, usize)>,
) {
    let start = stack.len();
    stack.extend(subdirs(listing).map(|name| (super::join(dir, name), depth)));
    // Popped in sorted order. All in `dir`, one component more each: byte
    // order is the order of the paths, without comparing them component
    // by component.
    if let Some(pushed) = stack.get_mut(start..) {
        pushed.sort_unstable_by(|(a, _), (b, _)| b.as_str().cmp(a.as_str()));
    }
}

/// Whether the walk enters an entry: a directory, not hidden, not
/// `node_modules` nor `target`; and a name, one component (what a listing
/// holds: a cache's could say anything).
fn enters(name: &str, is_dir: bool) -> bool {
    is_dir
        && !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', std::path::MAIN_SEPARATOR])
        && name != "node_modules"
        && name != "target"
}

/// Whether `path` really is inside `root` (links resolved).
fn inside(root: &Utf8Path, path: &Utf8Path) -> bool {
    contained(path, root).is_ok()
}

/// The shipped conventions whose files exist in the project at `root`, in
/// [`crate::CONVENTIONS`] order, with default options: the conventions to
/// run when no configuration names them. A project with none of them gets
/// the Claude convention, so its user-level rules still load.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join(".cursor/rules"))?;
/// std::fs::write(dir.path().join(".cursor/rules/ts.mdc"), "---\nglobs: src/**\n---\nx\n")?;
/// std::fs::write(dir.path().join("AGENTS.md"), "x\n")?;
/// let root = camino::Utf8PathBuf::try_from(dir.path().canonicalize()?)?;
/// let names: Vec<String> =
///     jit_core::detect_conventions(&root).iter().map(|s| s.name().to_owned()).collect();
/// assert_eq!(names, ["agents", "cursor"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn detect_conventions(root: &Utf8Path) -> Vec<Arc<dyn RuleSource>> {
    ProjectWalk::new(root).conventions()
}

/// One bounded walk of a project for the rule files of every shipped
/// convention (default names): which conventions the project uses, and,
/// handed to [`StartupOptions::with_walk`](crate::StartupOptions::with_walk),
/// the rule index's files, so a startup that detected its conventions walks
/// the project once, not twice.
///
/// ```
/// use jit_core::{DEFAULT_INDEX_BYTES, DiscoveryState, Engine, ProjectWalk, StartupOptions};
/// use std::sync::Arc;
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("api"))?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Root.\n")?;
/// std::fs::write(dir.path().join("api/AGENTS.md"), "API.\n")?;
/// let root = camino::Utf8Path::from_path(dir.path()).unwrap();
/// let walk = Arc::new(ProjectWalk::new(root));
/// let names: Vec<String> = walk.conventions().iter().map(|s| s.name().to_owned()).collect();
/// assert_eq!(names, ["claude", "agents"]);
///
/// let engine = Engine::new(root)?.with_sources(walk.conventions());
/// let options = StartupOptions::new(engine.root())
///     .with_managed(None)
///     .with_index(DEFAULT_INDEX_BYTES)
///     .with_walk(Arc::clone(&walk));
/// let report = engine.startup(&mut DiscoveryState::default(), &options);
/// assert_eq!(report.index[0].file, "api/AGENTS.md");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ProjectWalk {
    root: Utf8PathBuf,
    sources: Vec<Arc<dyn RuleSource>>,
    files: Vec<Found>,
    cache: Option<WalkCacheReport>,
}

impl ProjectWalk {
    /// Walks the project at `root` (bounded as [`find_rule_files`]).
    pub fn new(root: &Utf8Path) -> Self {
        let sources = all_sources();
        let root = real_or_given(root);
        let files = rule_files(&root, &sources);
        ProjectWalk {
            root,
            sources,
            files,
            cache: None,
        }
    }

    /// Walks the project at `root` as [`ProjectWalk::new`] does, listing
    /// again only the directories `cache` does not prove unchanged, and
    /// keeps this walk's listings there for the next one (see
    /// [`WalkCache`]). It finds what [`ProjectWalk::new`] finds.
    pub fn with_cache(root: &Utf8Path, cache: &WalkCache) -> Self {
        let sources = all_sources();
        let root = real_or_given(root);
        let (files, report) = rule_files_cached(&root, &sources, cache);
        ProjectWalk {
            root,
            sources,
            files,
            cache: Some(report),
        }
    }

    /// What the walk did with its cache; `None` for a walk without one.
    pub fn cache_report(&self) -> Option<&WalkCacheReport> {
        self.cache.as_ref()
    }

    /// The conventions with at least one rule file, in their usual order;
    /// Claude's when none has.
    pub fn conventions(&self) -> Vec<Arc<dyn RuleSource>> {
        pick(self.sources.clone(), &self.files)
    }

    /// The walk's files for `sources` (each with its index there), or
    /// `None` when the walk cannot stand in for a walk with them: another
    /// root, or a source whose candidate names differ from the shipped
    /// defaults the walk looked for (a `jit.toml` that renames them).
    pub(crate) fn files_for(
        &self,
        root: &Utf8Path,
        sources: &[Arc<dyn RuleSource>],
    ) -> Option<Vec<Found>> {
        if root != self.root {
            return None;
        }
        let mut map = Vec::with_capacity(sources.len());
        for source in sources {
            let walked = self
                .sources
                .iter()
                .position(|w| same_candidates(w.as_ref(), source.as_ref()))?;
            map.push(walked);
        }
        Some(
            self.files
                .iter()
                .filter_map(|(walked, path, real)| {
                    let i = map.iter().position(|m| m == walked)?;
                    Some((i, path.clone(), *real))
                })
                .collect(),
        )
    }
}

/// Whether two sources look for the same files: same name, candidate
/// names, root-only names, rule folders and precedence.
fn same_candidates(a: &dyn RuleSource, b: &dyn RuleSource) -> bool {
    a.name() == b.name()
        && a.files() == b.files()
        && a.root_files() == b.root_files()
        && a.rule_dirs() == b.rule_dirs()
        && a.precedence() == b.precedence()
}

/// The conventions whose rule files sit at the root or in a directory on
/// the way from the root to one of `dirs` (root-relative): all that JIT
/// discovery of paths in those directories can meet, found without walking
/// the project ([`detect_conventions`] walks it). Claude's when none.
///
/// ```
/// use jit_core::detect_conventions_along;
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("api"))?;
/// std::fs::create_dir_all(dir.path().join("web"))?;
/// std::fs::write(dir.path().join("api/AGENTS.md"), "API rules.\n")?;
/// std::fs::write(dir.path().join("web/GEMINI.md"), "Web rules.\n")?;
/// let root = camino::Utf8Path::from_path(dir.path()).unwrap();
/// let names = |dirs: &[&str]| -> Vec<String> {
///     let dirs: Vec<camino::Utf8PathBuf> = dirs.iter().map(|d| d.into()).collect();
///     detect_conventions_along(root, &dirs).iter().map(|s| s.name().to_owned()).collect()
/// };
/// assert_eq!(names(&["api/v1"]), ["agents"]);
/// assert_eq!(names(&["web"]), ["gemini"]);
/// assert_eq!(names(&["docs"]), ["claude"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn detect_conventions_along(root: &Utf8Path, dirs: &[Utf8PathBuf]) -> Vec<Arc<dyn RuleSource>> {
    let sources = all_sources();
    let (root, chain) = chain_along(root, dirs);
    // Only whether each source has a file matters: a source is no longer
    // looked for once one is found, and a directory's entries are probed
    // by name rather than listed.
    let mut found: Vec<Found> = Vec::new();
    for (dir, plain) in &chain {
        // A touched file, or a path not there, holds nothing (listing it
        // would fail); a directory reached through a link is one too.
        if !*plain && !fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let entries = Entries::Probed {
            dir,
            seen: std::cell::RefCell::default(),
        };
        for (i, source) in sources.iter().enumerate() {
            if found.iter().any(|(f, _, _)| *f == i) {
                continue;
            }
            if let Some((path, real)) =
                source_files(&root, dir, *plain, source.as_ref(), &entries, true).pop()
            {
                found.push((i, path, real));
            }
        }
    }
    pick(sources, &found)
}

/// The canonical `root`, then the root and every directory on the way to
/// each of `dirs` (root-relative), once each, with whether it is its own
/// real path (reached from the root through no link).
fn chain_along(root: &Utf8Path, dirs: &[Utf8PathBuf]) -> (Utf8PathBuf, Vec<(Utf8PathBuf, bool)>) {
    let root = real_or_given(root);
    let mut chain: Vec<(Utf8PathBuf, bool)> = vec![(root.clone(), true)];
    // Whether a directory is already in the chain is one lookup, not a
    // scan of the chain: `jit explain` passes every touched path, and ten
    // thousand of them made the scans quadratic.
    let mut known: Map<Utf8PathBuf, bool> = Map::default();
    known.insert(root.clone(), true);
    for dir in dirs {
        let mut at = root.clone();
        let mut plain = true;
        for component in dir.components() {
            at.push(component.as_str());
            #[cfg(test)]
            tests::CHAIN_LOOKUPS.with(|count| count.set(count.get() + 1));
            if let Some(&was) = known.get(&at) {
                plain = was;
                continue;
            }
            plain = plain && matches!(plain_entry(&at), PlainEntry::Dir(_));
            known.insert(at.clone(), plain);
            chain.push((at.clone(), plain));
        }
    }
    (root, chain)
}

/// The sources that have a file in `found`, in their order; Claude's when
/// none has.
fn pick(sources: Vec<Arc<dyn RuleSource>>, found: &[Found]) -> Vec<Arc<dyn RuleSource>> {
    let picked: Vec<Arc<dyn RuleSource>> = sources
        .iter()
        .enumerate()
        .filter(|(i, _)| found.iter().any(|(f, _, _)| f == i))
        .map(|(_, s)| Arc::clone(s))
        .collect();
    if picked.is_empty() {
        sources.into_iter().take(1).collect()
    } else {
        picked
    }
}

/// The index entry of one rule file, shown as `file`; `None` for a rule
/// that cannot load (invalid, too large, excluded for this agent): that is
/// the linter's business, not the agent's.
fn entry(
    engine: &Engine,
    source: &dyn RuleSource,
    real: &Utf8Path,
    file: String,
) -> Option<IndexEntry> {
    // Opened first: its metadata is the open file's, one `stat` fewer.
    let (opened, meta) = crate::open::open_regular(real.as_std_path()).ok()?;
    let parsed = read_opened(real, opened, &meta, source, engine.max_rule_bytes()).ok()?;
    let scope = match &parsed.scope {
        RuleScope::Paths(compiled) => compiled.patterns().to_vec(),
        RuleScope::Always | RuleScope::Manual(_) => Vec::new(),
        RuleScope::Excluded(_) => return None,
    };
    Some(IndexEntry {
        file,
        source: source.name().to_owned(),
        scope,
        description: parsed.description.clone(),
        bytes: meta.len(),
    })
}

/// The project's rule files for the index: `walk`'s when it stands in for
/// a walk with the engine's sources, else a walk of their own (through
/// `cache` when given); with what that walk did with its cache.
fn index_files(
    engine: &Engine,
    walk: Option<&ProjectWalk>,
    cache: Option<&WalkCache>,
) -> (Vec<Found>, Option<WalkCacheReport>) {
    let (root, sources) = (engine.root(), engine.sources());
    if let Some(walk) = walk
        && let Some(files) = walk.files_for(root, sources)
    {
        return (files, walk.cache.clone());
    }
    match cache {
        Some(cache) => {
            let (files, report) = rule_files_cached(root, sources, cache);
            (files, Some(report))
        }
        None => (rule_files(root, sources), None),
    }
}

/// Builds the index of what `report` did not load, within `max_bytes` of JSON.
pub(crate) fn build(
    engine: &Engine,
    state: &DiscoveryState,
    report: &StartupReport,
    max_bytes: usize,
    walk: Option<&ProjectWalk>,
    cache: Option<&WalkCache>,
) -> RuleIndex {
    let loaded: std::collections::HashSet<&str> =
        report.loaded.iter().map(|l| l.file.as_str()).collect();
    let mut candidates = Vec::new();
    // User and managed rules the startup load judged and left out.
    for row in &report.skipped {
        if !matches!(row.reason, SkipReason::ScopeMiss | SkipReason::ManualOnly)
            || !Utf8Path::new(&row.file).is_absolute()
        {
            continue;
        }
        let Some(source) = engine.sources().iter().find(|s| s.name() == row.source) else {
            continue;
        };
        let path = Utf8Path::new(&row.file);
        if let Some(entry) = entry(engine, source.as_ref(), path, row.file.clone()) {
            candidates.push(entry);
        }
    }
    let (files, cache_report) = index_files(engine, walk, cache);
    for (i, path, is_real) in files.into_iter().take(MAX_INDEX_FILES) {
        let Some(source) = engine.sources().get(i) else {
            continue;
        };
        // Only what the walk reached through a link needs resolving.
        let real = if is_real {
            path.clone()
        } else {
            real_or_given(&path)
        };
        let file = engine.display(&path);
        if state.is_loaded(&real) || loaded.contains(file.as_str()) {
            continue;
        }
        if let Some(entry) = entry(engine, source.as_ref(), &real, file) {
            candidates.push(entry);
        }
    }
    let (entries, overflow) = fit(candidates, max_bytes);
    RuleIndex {
        entries,
        overflow,
        cache: cache_report,
    }
}

/// The first of `candidates` that fit in `max_bytes` of JSON, in order,
/// and how many of the rest each directory holds.
fn fit(candidates: Vec<IndexEntry>, max_bytes: usize) -> (Vec<IndexEntry>, Vec<IndexOverflow>) {
    let mut entries = Vec::new();
    let mut overflow: BTreeMap<String, usize> = BTreeMap::new();
    // `[` and `]`, and a comma between entries.
    let mut used = 2usize;
    for entry in candidates {
        // Sized only while entries still fit: once one does not, every
        // later one is counted in the overflow.
        let fits = overflow.is_empty() && {
            let size = serde_json::to_string(&entry).map_or(usize::MAX, |s| s.len()) + 1;
            let fits = used.saturating_add(size) <= max_bytes;
            if fits {
                used += size;
            }
            fits
        };
        if fits {
            entries.push(entry);
        } else {
            let dir = Utf8Path::new(&entry.file)
                .parent()
                .map(|p| p.as_str())
                .filter(|p| !p.is_empty())
                .unwrap_or(".")
                .to_owned();
            *overflow.entry(dir).or_default() += 1;
        }
    }
    let overflow = overflow
        .into_iter()
        .map(|(dir, count)| IndexOverflow { dir, count })
        .collect();
    (entries, overflow)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use crate::Map;
    use std::fs;

    use camino::Utf8PathBuf;
    use pretty_assertions::assert_eq;

    use super::{IndexEntry, IndexOverflow, fit};

    use super::ProjectWalk;
    use crate::{
        DEFAULT_INDEX_BYTES, DiscoveryState, Engine, SourceOptions, StartupOptions, source_by_name,
    };

    thread_local! {
        /// How many folder names this thread's detection along a chain
        /// looked up.
        pub(super) static PROBED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// How many directories this thread's walks took from a cache's
        /// listings in turn, without a map.
        pub(crate) static TAKEN_IN_TURN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// How many times this thread's chains along directories looked
        /// up whether a directory was already in them.
        pub(super) static CHAIN_LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// What the walk and detection along a chain find in trees with links
    /// and shadowed names, as file names under the root.
    fn walked(root: &Utf8PathBuf) -> Vec<String> {
        crate::find_rule_files(root, &crate::all_sources())
            .into_iter()
            .map(|(_, path)| path.strip_prefix(root).unwrap().to_string())
            .collect()
    }

    fn along(root: &Utf8PathBuf, dirs: &[&str]) -> Vec<String> {
        let dirs: Vec<Utf8PathBuf> = dirs.iter().map(Utf8PathBuf::from).collect();
        crate::detect_conventions_along(root, &dirs)
            .iter()
            .map(|s| s.name().to_owned())
            .collect()
    }

    /// Where only the first of a convention's names counts
    /// (`AGENTS.override.md` over `AGENTS.md`), the walk finds only it.
    #[test]
    fn the_walk_finds_only_the_first_name_where_the_first_wins() {
        let (_dir, root) = empty_root();
        fs::write(root.join("AGENTS.override.md"), "Override.\n").unwrap();
        fs::write(root.join("AGENTS.md"), "Agents.\n").unwrap();
        fs::write(root.join("CLAUDE.md"), "Claude.\n").unwrap();
        fs::write(root.join("CLAUDE.local.md"), "Local.\n").unwrap();
        assert_eq!(
            walked(&root),
            ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.override.md"]
        );
    }

    /// A folder or a directory on the chain that is a link out of the root
    /// brings no rule file in, to the walk or to detection; a link to a
    /// directory inside the root is followed by detection.
    #[test]
    fn links_out_of_the_root_bring_no_rule_in() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("copilot-instructions.md"), "Out.\n").unwrap();
        fs::write(outside.path().join("GEMINI.md"), "Out.\n").unwrap();
        let (_dir, root) = empty_root();
        std::os::unix::fs::symlink(outside.path(), root.join(".github")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        assert_eq!(walked(&root), Vec::<String>::new());
        assert_eq!(along(&root, &[]), ["claude"], "the fallback, not copilot");
        assert_eq!(along(&root, &["out"]), ["claude"], "not gemini");

        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/GEMINI.md"), "In.\n").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
        assert_eq!(along(&root, &["l/b"]), ["gemini"]);
    }

    /// Detection along a chain looks a folder name up once per directory
    /// (`.claude`, `.cursor`, `.github` for the conventions that have
    /// one), a plain name not at all beyond its own check, and stops
    /// looking for a convention once it is found.
    #[test]
    fn detection_along_looks_each_folder_up_once_per_directory() {
        let (_dir, root) = empty_root();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(root.join("a/.claude/rules")).unwrap();
        fs::write(root.join("a/.claude/rules/r.md"), "Rule.\n").unwrap();
        let probed = |dirs: &[&str]| {
            let dirs: Vec<Utf8PathBuf> = dirs.iter().map(Utf8PathBuf::from).collect();
            let before = PROBED.with(std::cell::Cell::get);
            let found = crate::detect_conventions_along(&root, &dirs);
            let names: Vec<&str> = found.iter().map(|s| s.name()).collect();
            assert_eq!(names, ["claude"]);
            PROBED.with(std::cell::Cell::get) - before
        };
        // At the root and in `a`: `.claude`, `.cursor`, `.github` (one
        // lookup each, however many names start with them); Claude is found
        // in `a`, so `b` has `.cursor` and `.github` left.
        assert_eq!(probed(&["a/b"]), 3 + 3 + 2);
    }

    /// An empty project root, canonical, in a temporary directory.
    fn empty_root() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        (dir, root)
    }

    fn project() -> (tempfile::TempDir, Utf8PathBuf) {
        let (dir, root) = empty_root();
        for (path, text) in [
            ("CLAUDE.md", "Root.\n"),
            ("api/AGENTS.md", "API.\n"),
            ("web/CLAUDE.md", "Web.\n"),
            ("web/RULES.md", "Renamed.\n"),
            (
                ".claude/rules/ts.md",
                "---\npaths: [\"**/*.ts\"]\n---\nTS.\n",
            ),
        ] {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        (dir, root)
    }

    /// The walk's one path is, at each directory, its parent's path and
    /// its name, whatever the root's own text (`/`, a trailing `/`).
    #[test]
    fn the_walk_path_is_the_parent_path_and_a_name() {
        for (root, below) in [("/", "/"), ("/w/", "/w/"), ("/w", "/w/")] {
            let mut path = super::WalkPath::new(camino::Utf8Path::new(root));
            assert_eq!(path.enter("", 0), root);
            assert_eq!(path.enter("a", 1), format!("{below}a"));
            assert_eq!(path.enter("bb", 2), format!("{below}a/bb"));
            assert_eq!(path.enter("c", 3), format!("{below}a/bb/c"));
            assert_eq!(path.enter("d", 2), format!("{below}a/d"));
            assert_eq!(path.enter("e", 1), format!("{below}e"));
            assert_eq!(path.dir(), format!("{below}e"));
        }
    }

    fn index(engine: &Engine, walk: Option<std::sync::Arc<ProjectWalk>>) -> Vec<String> {
        let mut options = StartupOptions::new(engine.root())
            .with_managed(None)
            .with_index(DEFAULT_INDEX_BYTES);
        if let Some(walk) = walk {
            options = options.with_walk(walk);
        }
        let report = engine.startup(&mut DiscoveryState::default(), &options);
        report.index.iter().map(|e| e.file.clone()).collect()
    }

    /// The index built from the detection walk is the index a walk of its
    /// own builds.
    #[test]
    fn the_index_from_the_detection_walk_is_the_index_of_its_own_walk() {
        let (_dir, root) = project();
        let walk = std::sync::Arc::new(ProjectWalk::new(&root));
        let engine = Engine::new(&root).unwrap().with_sources(walk.conventions());
        let own = index(&engine, None);
        assert_eq!(
            own,
            [".claude/rules/ts.md", "api/AGENTS.md", "web/CLAUDE.md"]
        );
        assert_eq!(index(&engine, Some(walk)), own);
    }

    /// A rule file the walk reaches through a link is judged as the file
    /// it points at: one already loaded is left out of the index, one not
    /// loaded yet is in it under the name the walk found, from its own
    /// walk and from the detection walk alike.
    #[test]
    fn a_linked_rule_file_is_judged_as_the_file_it_points_at() {
        let (_dir, root) = project();
        std::os::unix::fs::symlink("../CLAUDE.md", root.join("api/CLAUDE.md")).unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        std::os::unix::fs::symlink("../web/CLAUDE.md", root.join("docs/CLAUDE.md")).unwrap();
        // A rule folder linked to the root's, where an unscoped rule loads
        // at startup.
        fs::write(root.join(".claude/rules/all.md"), "Always.\n").unwrap();
        fs::create_dir_all(root.join("web/.claude")).unwrap();
        std::os::unix::fs::symlink("../../.claude/rules", root.join("web/.claude/rules")).unwrap();
        let walk = std::sync::Arc::new(ProjectWalk::new(&root));
        let engine = Engine::new(&root).unwrap().with_sources(walk.conventions());
        let own = index(&engine, None);
        assert_eq!(
            own,
            [
                ".claude/rules/ts.md",
                "api/AGENTS.md",
                "docs/CLAUDE.md",
                "web/CLAUDE.md",
                "web/.claude/rules/ts.md"
            ]
        );
        assert_eq!(index(&engine, Some(walk)), own);
    }

    /// A walk stands in only for the same root and the shipped candidate
    /// names: a renamed convention, or another root, walks again.
    #[test]
    fn a_walk_stands_in_only_for_the_same_root_and_names() {
        let (_dir, root) = project();
        let walk = ProjectWalk::new(&root);
        let claude = source_by_name("claude", &SourceOptions::default()).unwrap();
        let renamed =
            source_by_name("claude", &SourceOptions::default().with_names(["RULES.md"])).unwrap();
        let files = walk
            .files_for(&root, std::slice::from_ref(&claude))
            .unwrap();
        assert!(files.iter().all(|(i, _, _)| *i == 0));
        assert_eq!(files.len(), 3, "{files:?}");
        assert!(
            walk.files_for(&root, std::slice::from_ref(&renamed))
                .is_none()
        );
        assert!(walk.files_for(&root.join("web"), &[claude]).is_none());

        // The renamed convention's index comes from a walk of its own.
        let engine = Engine::new(&root).unwrap().with_sources([renamed]);
        let walked = std::sync::Arc::new(walk);
        assert_eq!(index(&engine, Some(walked)), index(&engine, None));
        assert!(index(&engine, None).contains(&"web/RULES.md".to_owned()));
    }

    /// A root-only name (Cursor's `.cursorrules`) counts at the root only,
    /// in a walk and along a chain alike.
    #[test]
    fn a_root_only_name_counts_at_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        fs::create_dir_all(root.join("web")).unwrap();
        fs::write(root.join("web/.cursorrules"), "Not here.\n").unwrap();
        let names = |sources: Vec<std::sync::Arc<dyn crate::RuleSource>>| -> Vec<String> {
            sources.iter().map(|s| s.name().to_owned()).collect()
        };
        let web = [Utf8PathBuf::from("web")];
        assert_eq!(names(ProjectWalk::new(&root).conventions()), ["claude"]);
        assert_eq!(
            names(crate::detect_conventions_along(&root, &web)),
            ["claude"]
        );
        fs::write(root.join(".cursorrules"), "Here.\n").unwrap();
        assert_eq!(names(ProjectWalk::new(&root).conventions()), ["cursor"]);
        assert_eq!(
            names(crate::detect_conventions_along(&root, &web)),
            ["cursor"]
        );
    }

    /// The listings made ahead on other threads change nothing the walk
    /// finds, nor its order: on a tree of many directories, rule files and
    /// rule folders, the walk with them is the walk without them.
    #[test]
    fn listing_ahead_changes_nothing_the_walk_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        for a in 0..6 {
            for b in 0..5 {
                let d = root.join(format!("p{a}/m{b}/src"));
                fs::create_dir_all(&d).unwrap();
                if (a + b) % 3 == 0 {
                    fs::write(d.join("CLAUDE.md"), "x\n").unwrap();
                }
                if (a * b) % 4 == 1 {
                    fs::write(root.join(format!("p{a}/AGENTS.md")), "x\n").unwrap();
                    fs::create_dir_all(root.join(format!("p{a}/m{b}/.cursor/rules"))).unwrap();
                    fs::write(root.join(format!("p{a}/m{b}/.cursor/rules/r.mdc")), "x\n").unwrap();
                }
            }
        }
        let sources = crate::all_sources();
        let keep = super::kept_names(&sources);
        let ahead = super::list_ahead(&root, false);
        if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
            assert_eq!(ahead.len(), 1 + 6 + 30 + 30, "every directory listed once");
            // Keyed by the path below the root, the root itself as "".
            for key in ["", "p0", "p5/m4", "p3/m2/src"] {
                assert!(ahead.contains_key(key), "{key:?}");
            }
        }
        let with = super::walk_listed(&root, &sources, &keep, super::Ahead::from_map(ahead), None);
        let without = super::walk_listed(&root, &sources, &keep, super::Ahead::default(), None);
        assert_eq!(with.len(), 16, "{with:?}");
        assert_eq!(with, without);
        assert_eq!(super::rule_files(&root, &sources), without);

        // What the walk reads of a directory is the listing given for it:
        // an empty one for `p0` keeps it out of `p0`'s folders.
        let mut ahead = Map::default();
        let listed = super::Listed {
            names: super::Names::Made(Vec::new()),
            id: None,
        };
        ahead.insert(std::borrow::Cow::Borrowed("p0"), listed);
        let blind = super::walk_listed(&root, &sources, &keep, super::Ahead::from_map(ahead), None);
        let outside_p0: Vec<_> = without
            .iter()
            .filter(|(_, path, _)| !path.starts_with(root.join("p0")))
            .cloned()
            .collect();
        assert!(outside_p0.len() < without.len());
        assert_eq!(blind, outside_p0);
    }

    /// The walk's bounds: it goes no deeper than `MAX_WALK_DEPTH` below the
    /// root and visits at most `MAX_WALK_DIRS` directories (the root
    /// included, in sorted order), with or without listings made ahead.
    #[test]
    fn the_walk_stops_at_its_depth_and_directory_bounds() {
        let sources = crate::all_sources();
        let keep = super::kept_names(&sources);
        let found = |root: &Utf8PathBuf| -> Vec<String> {
            let ahead = super::list_ahead(root, false);
            let with =
                super::walk_listed(root, &sources, &keep, super::Ahead::from_map(ahead), None);
            let without = super::walk_listed(root, &sources, &keep, super::Ahead::default(), None);
            assert_eq!(with, without);
            without
                .iter()
                .filter_map(|(_, p, _)| jit_base::relative_to(p, root).map(|r| r.to_string()))
                .collect()
        };

        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        let mut deep = root.clone();
        for level in 1..=super::MAX_WALK_DEPTH + 1 {
            deep.push("d");
            fs::create_dir_all(&deep).unwrap();
            if level >= super::MAX_WALK_DEPTH {
                fs::write(deep.join("CLAUDE.md"), "x\n").unwrap();
            }
        }
        let at_limit = format!("{}CLAUDE.md", "d/".repeat(super::MAX_WALK_DEPTH));
        assert_eq!(found(&root), [at_limit]);

        // A recursive rule folder is entered as deep, from the folder.
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        let mut deep = root.join(".claude/rules");
        for level in 0..=super::MAX_WALK_DEPTH + 1 {
            fs::create_dir_all(&deep).unwrap();
            if level >= super::MAX_WALK_DEPTH {
                fs::write(deep.join("r.md"), "x\n").unwrap();
            }
            deep.push("d");
        }
        let at_limit = format!(".claude/rules/{}r.md", "d/".repeat(super::MAX_WALK_DEPTH));
        assert_eq!(found(&root), [at_limit]);

        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        // The root and the first MAX_WALK_DIRS - 1 sub-directories are
        // visited; the next one is not.
        for i in 0..super::MAX_WALK_DIRS {
            fs::create_dir(root.join(format!("d{i:05}"))).unwrap();
        }
        let last_in = format!("d{:05}", super::MAX_WALK_DIRS - 2);
        let first_out = format!("d{:05}", super::MAX_WALK_DIRS - 1);
        fs::write(root.join(&last_in).join("CLAUDE.md"), "x\n").unwrap();
        fs::write(root.join(&first_out).join("CLAUDE.md"), "x\n").unwrap();
        assert_eq!(found(&root), [format!("{last_in}/CLAUDE.md")]);
    }

    /// Detection along a chain probes names instead of listing each
    /// directory, and stops looking for a convention once it has found
    /// one: it must pick exactly what listing every directory of the
    /// chain picks, whatever the tree holds (rule files at any level,
    /// directories and links named like rule files, links out of the
    /// root, a linked directory on the chain).
    mod detection_along {
        use std::fs;

        use camino::{Utf8Path, Utf8PathBuf};
        use proptest::prelude::*;

        use crate::rule::source::all_sources;

        const LEVELS: [&str; 5] = ["", "a", "a/b", "a/b/c", "x"];
        const NAMES: [&str; 17] = [
            "CLAUDE.md",
            ".claude.md",
            "CLAUDE.local.md",
            ".claude/CLAUDE.md",
            ".claude/instructions.md",
            ".claude/rules/r.md",
            ".claude/rules/sub/r.md",
            "AGENTS.md",
            "AGENTS.override.md",
            "GEMINI.md",
            ".cursor/rules/r.mdc",
            ".cursor/rules/r.md",
            ".github/instructions/x.instructions.md",
            ".github/copilot-instructions.md",
            ".clinerules",
            ".clinerules/r.md",
            ".cursorrules",
        ];
        /// Directories, a file, a path not there, a way through a link.
        const QUERIES: [&str; 6] = ["a/b/c", "x", "l/b", "a", "x/y", "a/b/c/f.ts"];

        /// How a name is put in a level.
        #[derive(Debug, Clone, Copy)]
        enum Kind {
            File,
            Dir,
            LinkOut,
            LinkIn,
        }

        fn kind() -> impl Strategy<Value = Kind> {
            prop_oneof![
                4 => Just(Kind::File),
                1 => Just(Kind::Dir),
                1 => Just(Kind::LinkOut),
                1 => Just(Kind::LinkIn),
            ]
        }

        fn names(sources: &[std::sync::Arc<dyn crate::RuleSource>]) -> Vec<String> {
            sources.iter().map(|s| s.name().to_owned()).collect()
        }

        /// Detection as it was: every directory of the chain listed, every
        /// source looked for in each.
        fn by_listing(root: &Utf8Path, dirs: &[Utf8PathBuf]) -> Vec<String> {
            let sources = all_sources();
            let (root, chain) = super::super::chain_along(root, dirs);
            let mut found = Vec::new();
            for (dir, plain) in &chain {
                let listing = super::super::listing(dir);
                super::super::dir_rule_files(&root, dir, *plain, &sources, &listing, &mut found);
            }
            names(&super::super::pick(sources, &found))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn probing_picks_what_listing_picks(
                items in proptest::collection::vec((0..LEVELS.len(), 0..NAMES.len(), kind()), 0..8),
                queries in proptest::collection::btree_set(0..QUERIES.len(), 1..4),
                linked_level in any::<bool>(),
            ) {
                let outside = tempfile::tempdir().unwrap();
                fs::write(outside.path().join("out.md"), "Outside.\n").unwrap();
                let (_dir, root) = super::empty_root();
                for level in LEVELS {
                    fs::create_dir_all(root.join(level)).unwrap();
                }
                fs::write(root.join("target.md"), "Inside.\n").unwrap();
                fs::write(root.join("a/b/c/f.ts"), "code\n").unwrap();
                if linked_level {
                    std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
                }
                for (level, name, kind) in items {
                    let path = root.join(LEVELS[level]).join(NAMES[name]);
                    let _ = fs::create_dir_all(path.parent().unwrap());
                    // A name may collide with one made before (a file
                    // where a folder is wanted): the tree keeps the first.
                    let _ = match kind {
                        Kind::File => fs::write(&path, "Rule.\n"),
                        Kind::Dir => fs::create_dir_all(&path),
                        Kind::LinkOut => std::os::unix::fs::symlink(outside.path().join("out.md"), &path),
                        Kind::LinkIn => std::os::unix::fs::symlink(root.join("target.md"), &path),
                    };
                }
                let dirs: Vec<Utf8PathBuf> = queries.iter().map(|&q| QUERIES[q].into()).collect();
                let probed = names(&crate::detect_conventions_along(&root, &dirs));
                prop_assert_eq!(probed, by_listing(&root, &dirs));
            }
        }
    }

    /// `jit explain --no-startup` passes every touched path along: ten
    /// thousand files in fifty directories are one lookup per path
    /// component (a scan of the chain per component took 6 s), and each
    /// directory and file is in the chain once, in the order first met.
    #[test]
    fn a_chain_along_many_paths_looks_each_component_up_once() {
        let (_dir, root) = empty_root();
        for d in 0..50 {
            fs::create_dir_all(root.join(format!("src/m{d}"))).unwrap();
        }
        let dirs: Vec<Utf8PathBuf> = (0..10_000)
            .map(|i| format!("src/m{}/f{i}.ts", i % 50).into())
            .collect();
        let before = CHAIN_LOOKUPS.with(std::cell::Cell::get);
        let (_, chain) = super::chain_along(&root, &dirs);
        let lookups = CHAIN_LOOKUPS.with(std::cell::Cell::get) - before;
        assert_eq!(lookups, 3 * dirs.len());
        assert_eq!(chain.len(), 1 + 1 + 50 + dirs.len());
        assert_eq!(
            chain[..4],
            [
                (root.clone(), true),
                (root.join("src"), true),
                (root.join("src/m0"), true),
                // A file (here one not there) is no directory.
                (root.join("src/m0/f0.ts"), false),
            ]
        );
        assert_eq!(chain.last(), Some(&(root.join("src/m49/f9999.ts"), false)));
        // Met again, a directory keeps its place and what it was.
        let again = [Utf8PathBuf::from("src/m1/x"), Utf8PathBuf::from("src/m0")];
        let (_, chain) = super::chain_along(&root, &again);
        assert_eq!(
            chain,
            [
                (root.clone(), true),
                (root.join("src"), true),
                (root.join("src/m1"), true),
                (root.join("src/m1/x"), false),
                (root.join("src/m0"), true),
            ]
        );
    }

    /// The index keeps candidates in order while their JSON fits (`[`,
    /// `]`, each entry and a comma), and from the first that does not,
    /// counts the rest in their directories (`.` for the root; in the
    /// order of their names), a smaller one after it too.
    #[test]
    fn the_index_keeps_what_fits_and_counts_the_rest_by_directory() {
        let entry = |file: &str| IndexEntry {
            file: file.to_owned(),
            source: "claude".to_owned(),
            scope: Vec::new(),
            description: None,
            bytes: 1,
        };
        let size = |file: &str| serde_json::to_string(&entry(file)).unwrap().len() + 1;
        let files = ["a/one.md", "a/two.md", "b/three.md", "x.md", "a/four.md"];
        let candidates = || files.map(entry).to_vec();
        let kept = |(entries, _): &(Vec<IndexEntry>, Vec<IndexOverflow>)| {
            entries.iter().map(|e| e.file.clone()).collect::<Vec<_>>()
        };
        let counted = |(_, overflow): &(Vec<IndexEntry>, Vec<IndexOverflow>)| {
            overflow
                .iter()
                .map(|o| (o.dir.clone(), o.count))
                .collect::<Vec<_>>()
        };
        // Exactly room for the first two: both kept.
        let two = 2 + size(files[0]) + size(files[1]);
        let fitted = fit(candidates(), two);
        assert_eq!(kept(&fitted), ["a/one.md", "a/two.md"]);
        assert_eq!(
            counted(&fitted),
            [
                (".".to_owned(), 1),
                ("a".to_owned(), 1),
                ("b".to_owned(), 1)
            ]
        );
        // A byte less: the second does not fit, and neither does anything
        // after it, though `x.md` alone would.
        let fitted = fit(candidates(), two - 1);
        assert_eq!(kept(&fitted), ["a/one.md"]);
        assert!(size("x.md") < size(files[1]));
        assert_eq!(
            counted(&fitted),
            [
                (".".to_owned(), 1),
                ("a".to_owned(), 2),
                ("b".to_owned(), 1)
            ]
        );
        // Room for everything: no overflow.
        let fitted = fit(
            candidates(),
            2 + files.iter().map(|f| size(f)).sum::<usize>(),
        );
        assert_eq!(kept(&fitted), files);
        assert!(counted(&fitted).is_empty());
    }
}
