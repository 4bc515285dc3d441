//! The per-directory decision loop shared by startup and JIT: every candidate of every rule source in one directory, judged and recorded.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};

use super::chain::{
    ChainLevel, Level, PlainEntry, Refusal, contained, is_absent, is_entry_name, plain_entry,
    split_entry,
};
use super::state::{DiscoveryState, Replay, ScanRecord, record_is_fresh};
use super::{Discovery, Engine, MAX_RULE_FILES_PER_FOLDER};
use crate::rule::scope::ScopeMatcher;
use crate::rule::source::{Imports, Precedence, RuleDir, RuleSource};
use crate::rule::{
    Attribution, LoadKind, LoadedRule, ParsedRule, RuleScope, SkipReason, SkippedRule, Stamp, Tier,
    read_opened, read_rule,
};
use jit_base::slash;

/// The scans of one discovery: every candidate of every source, decided,
/// one directory at a time.
pub(crate) struct DirScan<'a> {
    engine: &'a Engine,
    pub(crate) state: &'a mut DiscoveryState,
    /// Decides scoped rules: the touched path (JIT) or the signals (startup).
    matcher: &'a dyn ScopeMatcher,
    /// Rule files and folders must really be inside this directory (the
    /// project root, or the user's `~/.claude`).
    pub(crate) boundary: &'a Utf8Path,
    /// Startup attributes every load to `session_start`.
    pub(crate) startup: bool,
    /// The tier loaded rules are reported with.
    pub(crate) tier: Option<Tier>,
    pub(crate) out: &'a mut Discovery,
    /// What the current directory's scan looked at.
    record: ScanRecord,
    /// Every candidate of the current directory was resolved (no scope miss,
    /// no I/O error).
    complete: bool,
    /// Something other than a scope miss left the current directory
    /// unresolved (an I/O error, a passing failure, the startup budget, a
    /// row decided outside [`DirScan::judge_known`]): it must be scanned
    /// again from its listing, not replayed.
    blocked: bool,
    /// Rows pushed now come from [`DirScan::judge_known`], which a replay
    /// reproduces.
    judging: bool,
    /// The index in the engine's sources of the source being scanned, when
    /// its judged candidates are recorded for a replay (project directories).
    replay_source: Option<usize>,
    /// One path buffer for every probe: most candidates do not exist, and the
    /// walk's cost is mostly these probes.
    buffer: String,
    /// Directories of the current scan known to be their own real paths
    /// (empty outside a scan): the scanned directory (canonical), and the folders below it (`.claude`, a rule
    /// folder) that `lstat` showed are directories, not links. A non-link
    /// entry of one of them is its own real path, inside the boundary, with
    /// no `realpath` walk from `/` (DESIGN §9's containment, at one `lstat`).
    plain: Vec<Utf8PathBuf>,
    /// The source whose candidates are being judged, for skipped rows.
    pub(crate) source_name: &'a str,
}

/// A rule's block as it will be injected: its text with imports inlined,
/// an `include` row per inlined file, and each file it carries.
struct Block {
    content: String,
    includes: Vec<LoadedRule>,
    imported: Vec<Imported>,
}

/// A file an expansion inlined: its real path, the rule that imported it,
/// and its stamp as it was read (`None` if the expansion did not say).
type Imported = (Utf8PathBuf, String, Option<Stamp>);

/// The order of two paths by their components, as `Path`'s `cmp` gives it
/// for paths with no empty or `.` component (every path a scan builds):
/// byte by byte, with the separator below every other byte, so that a
/// component that is a prefix of another sorts first (`a/z` before `a-b`,
/// as `a` before `a-b`). Without parsing components, which made sorting
/// a rule folder's listing a visible share of a hook call.
fn by_components(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Paths of one listing share their folder's: the bytes they have in
    // common compare equal whatever their keys.
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let key = |&byte: &u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    let (a, b) = (
        a.get(same..).unwrap_or_default(),
        b.get(same..).unwrap_or_default(),
    );
    a.iter().map(key).cmp(b.iter().map(key))
}

/// Candidate parent folders (`.claude`) already probed in this directory.
#[derive(Default)]
struct Probed<'n> {
    entries: [(&'n str, bool); 8],
    len: usize,
}

impl<'n> Probed<'n> {
    fn get(&self, parent: &str) -> Option<bool> {
        self.entries[..self.len]
            .iter()
            .find(|(p, _)| *p == parent)
            .map(|(_, exists)| *exists)
    }

    fn put(&mut self, parent: &'n str, exists: bool) {
        if let Some(slot) = self.entries.get_mut(self.len) {
            *slot = (parent, exists);
            self.len += 1;
        }
    }
}

/// A candidate judged: the path the scan addressed, and how rows show it
/// ([`Engine::display`]) when that text is already made (a replay keeps
/// it with the record).
#[derive(Clone, Copy)]
struct Candidate<'c> {
    path: &'c Utf8Path,
    shown: Option<&'c str>,
}

impl<'c> Candidate<'c> {
    /// `path`, not shown yet.
    fn of(path: &'c Utf8Path) -> Self {
        Candidate { path, shown: None }
    }
}

/// What [`DirScan::run_levels`] does at one level once its record is
/// checked.
enum Plan {
    /// Outside the root: a row.
    Outside,
    /// Met before on this chain (through a link): nothing more.
    Seen,
    /// Its record holds: replayed if open.
    Fresh { open: bool },
    /// No record holds: scanned, with the level's stamp if resolved now.
    Scan(Option<Stamp>),
}

impl<'a> DirScan<'a> {
    pub(crate) fn new(
        engine: &'a Engine,
        state: &'a mut DiscoveryState,
        matcher: &'a dyn ScopeMatcher,
        out: &'a mut Discovery,
    ) -> Self {
        DirScan {
            engine,
            state,
            matcher,
            boundary: &engine.root,
            startup: false,
            tier: None,
            out,
            record: ScanRecord::default(),
            complete: true,
            blocked: false,
            judging: false,
            replay_source: None,
            buffer: String::new(),
            plain: Vec::new(),
            source_name: "",
        }
    }

    /// Judges one source's user tier (`~/.claude/CLAUDE.md`,
    /// `~/.claude/rules/`), bounded by the user folder, and records it as
    /// scanned when complete.
    pub(crate) fn run_user_tier(&mut self, source: &'a dyn RuleSource, user: &Arc<str>) {
        let Some(level) = source.user_level() else {
            return;
        };
        let at = SystemTime::now();
        let dir = Utf8PathBuf::from(&**user);
        // The scan borrows its boundary; the user folder lives in `dir` for
        // the length of this call.
        let mut scan = DirScan {
            engine: self.engine,
            state: &mut *self.state,
            matcher: self.matcher,
            boundary: &dir,
            startup: self.startup,
            tier: Some(Tier::User),
            out: &mut *self.out,
            record: ScanRecord::default(),
            complete: true,
            blocked: false,
            judging: false,
            replay_source: None,
            buffer: String::new(),
            plain: Vec::new(),
            source_name: source.name(),
        };
        scan.record.dir = fs::symlink_metadata(&dir).ok().map(|m| Stamp::of(&m));
        let mut probed = Probed::default();
        let mut winner = None;
        scan.judge_names(source, &dir, &level.files, &mut probed, &mut winner);
        for rule_dir in &level.rule_dirs {
            scan.judge_rule_dir(source, &dir.join(&rule_dir.path), rule_dir);
        }
        if scan.complete && scan.record.dir.is_some() {
            let mut record = std::mem::take(&mut scan.record);
            record.used = scan.state.walks;
            record.at = Some(at);
            scan.state
                .scanned
                .insert(Arc::clone(user), Box::new(record));
        }
    }

    /// Scans each directory of a touched path's chain, root first: a level
    /// outside the root gets an `outside_root` row, the walk stops at a
    /// missing one, and a directory whose scan record still holds (or that
    /// a link already brought in) is not scanned again.
    pub(crate) fn run_levels(&mut self, levels: &[ChainLevel], stamps: &[Option<Stamp>]) {
        self.state.walks = self.state.walks.saturating_add(1);
        let walk = self.state.walks;
        // First every level's record checked (the `stat`s of a warm touch,
        // one after the other), then the levels judged in order.
        let mut plans: Vec<Plan> = Vec::with_capacity(levels.len());
        for (i, ChainLevel { level, .. }) in levels.iter().enumerate() {
            // A directory a link brought in twice is judged once.
            let seen = |real: &str| {
                levels[..i]
                    .iter()
                    .any(|before| matches!(&before.level, Level::Inside(r) if **r == *real))
            };
            let plan = match level {
                Level::Missing => break,
                Level::Outside(_) => Plan::Outside,
                Level::Inside(real) if seen(real) => Plan::Seen,
                Level::Inside(real) => {
                    let stamp = stamps.get(i).copied().flatten();
                    match self.state.scanned.get_mut(&**real) {
                        Some(record) if record_is_fresh(self.engine, real, stamp, record) => {
                            record.used = walk;
                            Plan::Fresh { open: record.open }
                        }
                        Some(_) => {
                            self.state.scanned.remove(&**real);
                            Plan::Scan(stamp)
                        }
                        None => Plan::Scan(stamp),
                    }
                }
            };
            plans.push(plan);
        }
        for (ChainLevel { lex, level }, plan) in levels.iter().zip(plans) {
            match (level, plan) {
                (Level::Outside(real), _) => self.out.skipped.push(SkippedRule {
                    file: slash(Utf8Path::new(&**lex)),
                    reason: SkipReason::OutsideRoot,
                    detail: format!(
                        "this directory resolves to {real}, outside the project root {}; its rules are not read",
                        self.engine.root
                    ),
                    source: String::new(),
                }),
                (Level::Inside(real), Plan::Fresh { open: true }) => self.replay(real),
                (Level::Inside(real), Plan::Scan(stamp)) => self.run(real, stamp),
                _ => {}
            }
        }
    }

    /// Judges again every user tier the startup load recorded whose scan
    /// record no longer holds (a scoped user rule not loaded yet keeps it
    /// open).
    pub(crate) fn rerun_user_tiers(&mut self) {
        let engine = self.engine;
        for (name, user) in self.state.user_tiers.clone() {
            let walk = self.state.walks;
            let fresh = match self.state.scanned.get_mut(&*user) {
                Some(record) if record_is_fresh(engine, &user, None, record) => {
                    record.used = walk;
                    true
                }
                _ => false,
            };
            if !fresh {
                self.state.scanned.remove(&*user);
                if let Some(source) = engine.user_source(&name) {
                    self.run_user_tier(source, &user);
                }
            }
        }
    }

    /// Scans one directory and records it as scanned when it was complete,
    /// or as open when only scope misses kept it from being complete (the
    /// next touch replays its candidates instead of listing it again).
    pub(crate) fn run(&mut self, dir: &Arc<str>, stamp: Option<Stamp>) {
        let at = SystemTime::now();
        self.record = ScanRecord::default();
        self.complete = true;
        self.blocked = false;
        self.scan(Utf8Path::new(&**dir), stamp);
        self.replay_source = None;
        if self.complete || (!self.blocked && self.record.dir.is_some()) {
            let mut record = std::mem::take(&mut self.record);
            record.open = !self.complete;
            record.used = self.state.walks;
            record.at = Some(at);
            if self.complete {
                record.replay = Vec::new();
            }
            self.state.scanned.insert(Arc::clone(dir), Box::new(record));
        }
    }

    /// Judges again the candidates an open record holds, in the order the
    /// scan met them, with what the record proves unchanged: no listing, no
    /// containment check, no parse (DESIGN §9: a scope miss keeps the
    /// directory open for the next file there). The record closes when
    /// nothing missed its scope this time; a failure drops it, so the next
    /// touch scans the directory from its listing.
    fn replay(&mut self, dir: &Arc<str>) {
        // Taken out for the replay and put back after, not cloned.
        let Some(items) = self
            .state
            .scanned
            .get_mut(&**dir)
            .map(|record| std::mem::take(&mut record.replay))
        else {
            return;
        };
        self.complete = true;
        self.blocked = false;
        let engine = self.engine;
        // Most candidates replayed are rows (already loaded, out of scope).
        self.out.skipped.reserve(items.len());
        for item in items.iter() {
            let Some(source) = engine.sources.get(item.source) else {
                self.blocked = true;
                continue;
            };
            self.source_name = source.name();
            let candidate = Candidate {
                path: &item.candidate,
                shown: Some(item.shown.get_or_init(|| engine.display(&item.candidate))),
            };
            self.judge_known(source.as_ref(), candidate, &item.real, None, item.stamp);
        }
        self.source_name = "";
        if self.blocked {
            self.state.scanned.remove(&**dir);
        } else if let Some(record) = self.state.scanned.get_mut(&**dir) {
            // Closed once nothing here missed its scope this time.
            record.open = !self.complete;
            if record.open {
                record.replay = items;
            }
        }
    }

    fn scan(&mut self, dir: &Utf8Path, stamp: Option<Stamp>) {
        self.plain.clear();
        self.plain.push(dir.to_owned());
        match stamp
            .map(Ok)
            .unwrap_or_else(|| fs::symlink_metadata(dir).map(|m| Stamp::of(&m)))
        {
            Ok(stamp) => self.record.dir = Some(stamp),
            Err(_) => {
                self.complete = false;
                self.blocked = true;
            }
        }
        let at_root = dir.as_str() == self.engine.root.as_str();
        let mut probed = Probed::default();
        let engine = self.engine;
        for (index, source) in engine.sources.iter().enumerate() {
            let source = source.as_ref();
            self.source_name = source.name();
            self.replay_source = Some(index);
            let mut winner = None;
            self.judge_names(source, dir, source.files(), &mut probed, &mut winner);
            if at_root {
                self.judge_names(source, dir, source.root_files(), &mut probed, &mut winner);
            }
            for rule_dir in source.rule_dirs() {
                if let Some((parent, _)) = rule_dir.path.rsplit_once('/')
                    && !self.parent_exists(dir, parent, &mut probed)
                {
                    continue;
                }
                self.judge_rule_dir(source, &super::join(dir, &rule_dir.path), rule_dir);
            }
        }
        self.source_name = "";
    }

    /// Judges the candidate `names` of one source in `dir`, in order. Under
    /// [`Precedence::FirstFound`], `winner` is the first that is a regular
    /// file, and every later one that exists is skipped as `shadowed`.
    fn judge_names(
        &mut self,
        source: &'a dyn RuleSource,
        dir: &Utf8Path,
        names: &'a [String],
        probed: &mut Probed<'a>,
        winner: &mut Option<&'a str>,
    ) {
        let first_found = source.precedence() == Precedence::FirstFound;
        for name in names {
            if let Some((parent, _)) = name.rsplit_once('/')
                && !self.parent_exists(dir, parent, probed)
            {
                continue;
            }
            self.set_buffer(dir, name);
            match fs::symlink_metadata(&self.buffer) {
                Ok(meta) => {
                    let candidate = Utf8PathBuf::from(self.buffer.as_str());
                    let followed = if meta.file_type().is_symlink() {
                        fs::metadata(&candidate).ok()
                    } else {
                        Some(meta.clone())
                    };
                    // A folder with a rule folder's name (Cline's
                    // `.clinerules/`) is that folder, not a broken file.
                    if followed.as_ref().is_some_and(fs::Metadata::is_dir)
                        && source.rule_dirs().iter().any(|d| d.path == *name)
                    {
                        continue;
                    }
                    if first_found {
                        if let Some(first) = winner {
                            self.skip(
                                &candidate,
                                SkipReason::Shadowed,
                                &format!(
                                    "`{first}` in this directory takes precedence over `{name}`, \
                                     which is not read"
                                ),
                            );
                            continue;
                        }
                        if followed.as_ref().is_some_and(fs::Metadata::is_file) {
                            *winner = Some(name);
                        }
                    }
                    self.judge(source, &candidate, meta);
                }
                Err(err) if is_absent(&err) => {}
                Err(err) => {
                    let candidate = Utf8PathBuf::from(self.buffer.as_str());
                    self.unreadable(&candidate, &err);
                }
            }
        }
    }

    /// Decides every rule file of one rule folder, in sorted order.
    pub(crate) fn judge_rule_dir(
        &mut self,
        source: &dyn RuleSource,
        folder: &Utf8Path,
        rule_dir: &RuleDir,
    ) {
        let mut files = Vec::new();
        let mut visited = crate::Set::default();
        self.list_rule_dir(
            folder,
            &rule_dir.suffix,
            rule_dir.recursive,
            &mut files,
            &mut visited,
        );
        files.sort_by(|(a, a_regular), (b, b_regular)| {
            by_components(a.as_str(), b.as_str()).then(a_regular.cmp(b_regular))
        });
        if files.len() > MAX_RULE_FILES_PER_FOLDER {
            let over = files.len() - MAX_RULE_FILES_PER_FOLDER;
            let first_left_out = self.engine.display(&files[MAX_RULE_FILES_PER_FOLDER].0);
            files.truncate(MAX_RULE_FILES_PER_FOLDER);
            // One row for the lot: thousands of rows would bury the rest.
            self.skip(
                folder,
                SkipReason::TooManyRules,
                &format!(
                    "this rule folder holds {} rule files, over the limit of \
                     {MAX_RULE_FILES_PER_FOLDER}; the last {over} in sorted order (from \
                     {first_left_out} on) are not read",
                    over + MAX_RULE_FILES_PER_FOLDER,
                ),
            );
        }
        for (file, regular) in files {
            if regular && self.judge_unstamped(source, &file) {
                continue;
            }
            match fs::symlink_metadata(&file) {
                Ok(meta) => self.judge(source, &file, meta),
                Err(err) => self.unreadable(&file, &err),
            }
        }
    }

    /// Decides a rule file its folder's listing calls a regular file, in
    /// a folder that is its own real path, when nothing is known of it yet
    /// (neither in the context nor parsed): it is opened at once and its
    /// stamp taken on the descriptor, which saves the `lstat` a known file
    /// needs to be compared before it is read. `false` when it cannot be
    /// opened as a regular file (gone, or swapped for a link or a FIFO
    /// since the listing): the caller judges it from its `lstat` then.
    fn judge_unstamped(&mut self, source: &dyn RuleSource, file: &Utf8Path) -> bool {
        let known = self.state.loaded.contains_key(file.as_str())
            || self.state.parsed.contains_key(file.as_str());
        if known || !self.is_plain_entry(file.as_str()) {
            return false;
        }
        let Ok((opened, meta)) = crate::open::open_regular(file.as_std_path()) else {
            return false;
        };
        #[cfg(test)]
        tests::UNSTAMPED.with(|n| n.set(n.get() + 1));
        let parsed = read_opened(file, opened, &meta, source, self.engine.max_rule_bytes);
        self.state.keep_parse(file, Stamp::of(&meta), &parsed);
        self.judge(source, file, meta);
        true
    }

    fn set_buffer(&mut self, dir: &Utf8Path, name: &str) {
        self.buffer.clear();
        self.buffer.push_str(dir.as_str());
        self.buffer.push('/');
        self.buffer.push_str(name);
    }

    /// Probes a candidate's parent folder (`.claude`) once per scan, so a
    /// directory without it costs one probe, not one per candidate inside it.
    fn parent_exists(&mut self, dir: &Utf8Path, parent: &'a str, probed: &mut Probed<'a>) -> bool {
        if let Some(exists) = probed.get(parent) {
            return exists;
        }
        self.set_buffer(dir, parent);
        // `lstat` first: a folder that is no link, in a directory that is
        // its own real path, is its own real path too (a `..` or a folder
        // on the way is not that: see `is_plain_entry`).
        let (meta, plain) = match fs::symlink_metadata(&self.buffer) {
            Ok(meta) if meta.file_type().is_symlink() => (fs::metadata(&self.buffer).ok(), false),
            Ok(meta) => (Some(meta), self.is_plain_entry(&self.buffer)),
            Err(_) => (None, false),
        };
        let exists = match meta {
            Some(meta) if meta.is_dir() => {
                let path = Utf8PathBuf::from(self.buffer.as_str());
                if plain {
                    self.plain.push(path.clone());
                }
                self.record.stamps.push((path, Stamp::of(&meta)));
                true
            }
            _ => false,
        };
        probed.put(parent, exists);
        exists
    }

    fn list_rule_dir(
        &mut self,
        folder: &Utf8Path,
        suffix: &str,
        recursive: bool,
        files: &mut Vec<(Utf8PathBuf, bool)>,
        visited: &mut crate::Set<Utf8PathBuf>,
    ) {
        let Some((real, meta)) = self.rule_folder(folder) else {
            return;
        };
        if !visited.insert(real.clone()) {
            // A symlink loop or a second link to the same folder.
            return;
        }
        let meta = match meta.map_or_else(|| fs::metadata(&real), Ok) {
            Ok(meta) if meta.is_dir() => meta,
            Ok(_) => return,
            Err(err) => return self.unreadable(folder, &err),
        };
        self.record.stamps.push((real, Stamp::of(&meta)));
        let entries = match fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(err) => return self.unreadable(folder, &err),
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    self.unreadable(folder, &err);
                    continue;
                }
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                self.skip_non_utf8_name(&entry.path());
                continue;
            };
            let path = super::join(folder, name);
            // The entry's type comes with the listing; only a link needs a
            // stat to know what it points at.
            let is_dir = match entry.file_type() {
                Ok(kind) if kind.is_symlink() => fs::metadata(&path).is_ok_and(|m| m.is_dir()),
                Ok(kind) => kind.is_dir(),
                Err(_) => fs::metadata(&path).is_ok_and(|m| m.is_dir()),
            };
            if is_dir {
                if recursive {
                    self.list_rule_dir(&path, suffix, recursive, files, visited);
                }
            } else if path.as_str().ends_with(suffix) {
                let regular = entry.file_type().is_ok_and(|kind| kind.is_file());
                files.push((path, regular));
            }
        }
    }

    /// Whether `dir` is known to be its own real path in this scan. Its
    /// text is compared: the scan builds every path it holds by joining
    /// names to a real path, so one directory is always one string, and
    /// a comparison by components (`Path`'s `==`, with the sort below)
    /// cost about a seventh of a hook call's instructions here.
    fn is_plain(&self, dir: &Utf8Path) -> bool {
        self.plain.iter().any(|p| p.as_str() == dir.as_str())
    }

    /// Whether `path` is `DIR/NAME` with `DIR` known to be its own real
    /// path in this scan and `NAME` one plain component: what, when
    /// `lstat` shows no link, is its own real path too, inside the
    /// boundary with no `realpath`. Every other path the scan builds from
    /// a name (`..`, a folder on the way that may be a link, an absolute
    /// name) goes through [`contained`], and is read only when it really
    /// is inside: this is the one gate between a name and a read.
    fn is_plain_entry(&self, path: &str) -> bool {
        split_entry(path)
            .is_some_and(|(dir, name)| is_entry_name(name) && self.is_plain(Utf8Path::new(dir)))
    }

    /// Decides whether a rule folder really is inside the boundary: its
    /// real path (with its metadata when an `lstat` proved it), or `None`
    /// (after a skipped row, unless it does not exist).
    fn rule_folder(&mut self, folder: &Utf8Path) -> Option<(Utf8PathBuf, Option<fs::Metadata>)> {
        if self.is_plain_entry(folder.as_str()) {
            match plain_entry(folder) {
                PlainEntry::Dir(meta) => {
                    self.plain.push(folder.to_owned());
                    return Some((folder.to_owned(), Some(meta)));
                }
                PlainEntry::Absent => return None,
                // A link, or anything odd: resolved and contained below.
                PlainEntry::Other => {}
            }
        }
        match contained(folder, self.boundary) {
            Ok(real) => Some((real, None)),
            Err(Refusal::NotUtf8(_)) => {
                self.skip(
                    folder,
                    SkipReason::NotUtf8,
                    "the folder's real path is not UTF-8",
                );
                None
            }
            Err(Refusal::Outside(real)) => {
                self.skip(
                    folder,
                    SkipReason::OutsideRoot,
                    &format!("this rule folder resolves to {real}, outside the project root"),
                );
                None
            }
            Err(Refusal::Io(err)) if is_absent(&err) => None,
            Err(Refusal::Io(err)) => {
                self.unreadable(folder, &err);
                None
            }
        }
    }

    /// Skips a rule folder entry whose name is not UTF-8 (it can be neither
    /// matched nor shown), listed root-relative like every other file; the
    /// directory stays unscanned.
    fn skip_non_utf8_name(&mut self, path: &Path) {
        let lossy = path
            .strip_prefix(self.engine.root.as_std_path())
            .map(|rel| rel.display().to_string())
            .unwrap_or_else(|_| path.display().to_string());
        self.complete = false;
        self.blocked = true;
        self.out.skipped.push(SkippedRule {
            file: lossy,
            reason: SkipReason::NotUtf8,
            detail: "the file name is not UTF-8, so it cannot be matched or shown; rename it"
                .to_owned(),
            source: self.source_name.to_owned(),
        });
    }

    /// Decides one candidate file.
    pub(crate) fn judge(
        &mut self,
        source: &dyn RuleSource,
        candidate: &Utf8Path,
        meta: fs::Metadata,
    ) {
        let Some((real, meta)) = self.regular_file(candidate, meta) else {
            return;
        };
        let stamp = Stamp::of(&meta);
        self.record.stamps.push((real.clone(), stamp));
        let Some(replay_source) = self.replay_source else {
            let candidate = Candidate::of(candidate);
            return self.judge_known(source, candidate, &real, Some(&meta), stamp);
        };
        let stamp_index = self.record.stamps.len() - 1;
        // Shown now for this row and kept for the replays' rows.
        let shown = self.engine.display(candidate);
        let judged = Candidate {
            path: candidate,
            shown: Some(&shown),
        };
        self.judge_known(source, judged, &real, Some(&meta), stamp);
        self.record.replay.push(Replay {
            source: replay_source,
            candidate: candidate.to_owned(),
            real,
            stamp,
            stamp_index,
            shown: OnceLock::from(shown),
        });
    }

    /// Decides one candidate whose real path and stamp are known: already
    /// loaded, rejected, out of scope, or loaded. `meta` is read only when
    /// the rule is not parsed yet (a replay passes none).
    fn judge_known(
        &mut self,
        source: &dyn RuleSource,
        candidate: Candidate<'_>,
        real: &Utf8Path,
        meta: Option<&fs::Metadata>,
        stamp: Stamp,
    ) {
        self.judging = true;
        self.decide_known(source, candidate, real, meta, stamp);
        self.judging = false;
    }

    /// The body of [`DirScan::judge_known`].
    fn decide_known(
        &mut self,
        source: &dyn RuleSource,
        candidate: Candidate<'_>,
        real: &Utf8Path,
        meta: Option<&fs::Metadata>,
        stamp: Stamp,
    ) {
        let previous = self.state.loaded.get(real.as_str()).copied();
        if previous == Some(stamp) {
            return self.skip_unchanged(source, candidate, real);
        }
        let Some(mut parsed) = self.parsed(source, candidate.path, real, meta, stamp) else {
            return;
        };
        let Some(mut found) = self.attribution(candidate, &parsed.scope) else {
            return;
        };
        if parsed.scope_only {
            // Only its scope came with a kept scan record: it matched, and
            // loading it needs the file.
            self.state.parsed.remove(real.as_str());
            let Some(full) = self.parsed(source, candidate.path, real, meta, stamp) else {
                return;
            };
            let Some(again) = self.attribution(candidate, &full.scope) else {
                return;
            };
            (parsed, found) = (full, again);
        }
        let Candidate {
            path: candidate,
            shown,
        } = candidate;
        let (attribution, scope, detail) = found;
        let tier = self.tier_of(source, candidate);
        let mut warnings = parsed.warnings.clone();
        let mut block = Block {
            content: parsed.body.clone(),
            includes: Vec::new(),
            imported: Vec::new(),
        };
        // Imports are expanded at load time (not cached with the parse), so an
        // imported file edited since is read as it is now.
        if source.imports() == Imports::At && block.content.contains('@') {
            block = self.expand_imports(source, real, tier, &block.content, &mut warnings);
        }
        if !self.within_startup_budget(source, candidate, tier, block.content.len() as u64) {
            return;
        }
        self.record_imports(source, real, block.imported, &mut warnings);
        // The including rule's block carries the imported text, so its bytes
        // are the whole block and the bytes of one discovery add up to what
        // was injected.
        let file = self.shown(candidate, shown);
        self.state
            .set_origin(real.as_str(), [&file, " (", source.name(), ")"].concat());
        self.state.imported_by.remove(real.as_str());
        self.state.loaded.insert(real.to_string(), stamp);
        self.out.loaded.push(LoadedRule {
            file,
            attribution,
            bytes: block.content.len(),
            decision: if previous.is_some() {
                LoadKind::Replaced
            } else {
                LoadKind::Loaded
            },
            source: source.name().to_owned(),
            scope,
            detail,
            included_by: None,
            tier,
            warnings,
            content: block.content,
        });
        self.out.loaded.extend(block.includes);
    }

    /// Decides whether a candidate is a regular file really inside the
    /// boundary: its real path and metadata if so, a skipped row if not.
    fn regular_file(
        &mut self,
        candidate: &Utf8Path,
        meta: fs::Metadata,
    ) -> Option<(Utf8PathBuf, fs::Metadata)> {
        // A candidate that is no link, directly in the scanned directory or
        // in a folder below it reached through no link, is its own real
        // path; anything else may reach outside through a link, so it is
        // resolved and contained.
        let direct = self.is_plain_entry(candidate.as_str());
        let (real, meta) = if meta.file_type().is_symlink() || !direct {
            let real = match contained(candidate, self.boundary) {
                Ok(real) => real,
                Err(Refusal::NotUtf8(_)) => {
                    self.skip(
                        candidate,
                        SkipReason::NotUtf8,
                        "the link target's path is not UTF-8",
                    );
                    return None;
                }
                Err(Refusal::Outside(real)) => {
                    self.skip(
                        candidate,
                        SkipReason::OutsideRoot,
                        &format!(
                            "this path resolves to {real}, outside {}; it is not read",
                            self.boundary
                        ),
                    );
                    return None;
                }
                Err(Refusal::Io(err)) => {
                    self.unreadable(candidate, &err);
                    return None;
                }
            };
            match fs::metadata(&real) {
                Ok(meta) => (real, meta),
                Err(err) => {
                    self.unreadable(candidate, &err);
                    return None;
                }
            }
        } else {
            (candidate.to_owned(), meta)
        };
        if !meta.is_file() {
            self.skip(
                candidate,
                SkipReason::Unreadable,
                &format!(
                    "not a regular file ({}), so it is not read",
                    crate::open::describe(&meta)
                ),
            );
            return None;
        }
        Some((real, meta))
    }

    /// Skips a candidate already in the context at the stamp it has now,
    /// naming how it first came in when that was another way.
    fn skip_unchanged(
        &mut self,
        source: &dyn RuleSource,
        candidate: Candidate<'_>,
        real: &Utf8Path,
    ) {
        let file = self.shown(candidate.path, candidate.shown);
        // An origin reads `FILE (SOURCE)` (see `set_origin`).
        let came_here = |first: &str| {
            first
                .strip_prefix(file.as_str())
                .and_then(|rest| rest.strip_prefix(" ("))
                .and_then(|rest| rest.strip_suffix(')'))
                == Some(source.name())
        };
        let detail = match self.state.origins.get(real.as_str()) {
            // One file, one block: a second arrival (an import, another
            // convention, a link) names the first.
            Some(first) if !came_here(first) => format!(
                "already in the context and unchanged since it was read: it came in as \
                 {first}"
            ),
            _ => "already in the context and unchanged since it was read".to_owned(),
        };
        self.skip_shown(file, SkipReason::AlreadyLoaded, detail);
    }

    /// Decides whether a rule file parses, from the cache while its stamp
    /// holds: the parsed rule, or `None` after a skipped row.
    fn parsed(
        &mut self,
        source: &dyn RuleSource,
        candidate: &Utf8Path,
        real: &Utf8Path,
        meta: Option<&fs::Metadata>,
        stamp: Stamp,
    ) -> Option<Arc<ParsedRule>> {
        let cached = match self.state.parsed.get(real.as_str()) {
            Some((cached, parsed)) if *cached == stamp => parsed.clone(),
            _ => {
                let fetched;
                let meta = match meta {
                    Some(meta) => meta,
                    None => match fs::metadata(real) {
                        Ok(meta) => {
                            fetched = meta;
                            &fetched
                        }
                        Err(err) => {
                            self.unreadable(candidate, &err);
                            return None;
                        }
                    },
                };
                let parsed = read_rule(real, meta, source, self.engine.max_rule_bytes);
                self.state.keep_parse(real, stamp, &parsed);
                parsed
            }
        };
        match cached {
            Ok(parsed) => Some(parsed),
            Err(rejection) => {
                if rejection.transient {
                    // The directory must be judged again next time.
                    self.complete = false;
                    self.blocked = true;
                }
                self.skip(candidate, rejection.reason, &rejection.detail);
                None
            }
        }
    }

    /// Decides whether a parsed rule's scope lets it load here: its
    /// attribution, scope patterns and match detail, or `None` after a
    /// skipped row.
    fn attribution(
        &mut self,
        Candidate {
            path: candidate,
            shown,
        }: Candidate<'_>,
        scope: &RuleScope,
    ) -> Option<(Attribution, Option<Vec<String>>, Option<String>)> {
        match scope {
            RuleScope::Always if self.startup => Some((Attribution::SessionStart, None, None)),
            RuleScope::Always => Some((Attribution::NestedTraversal, None, None)),
            RuleScope::Manual(why) => {
                self.skip(candidate, SkipReason::ManualOnly, why);
                None
            }
            RuleScope::Excluded(why) => {
                self.skip(candidate, SkipReason::ExcludedAgent, why);
                None
            }
            RuleScope::Paths(compiled) => {
                let decision = self.matcher.decide(compiled);
                if !decision.matched {
                    // Not for this file, maybe for the next one here: the
                    // directory must stay unscanned.
                    self.complete = false;
                    let file = self.shown(candidate, shown);
                    self.skip_shown(file, SkipReason::ScopeMiss, decision.detail);
                    return None;
                }
                Some((
                    if self.startup {
                        Attribution::SessionStart
                    } else {
                        Attribution::PathGlobMatch
                    },
                    Some(compiled.patterns().to_vec()),
                    Some(decision.detail),
                ))
            }
        }
    }

    /// Decides the tier a load is reported with: the scan's, with a
    /// project rule the source calls local reported as `local`.
    fn tier_of(&self, source: &dyn RuleSource, candidate: &Utf8Path) -> Option<Tier> {
        self.tier.map(|tier| {
            if tier == Tier::Project && source.is_local(candidate) {
                Tier::Local
            } else {
                tier
            }
        })
    }

    /// Expands a rule's `@` imports under the engine's policy (a user rule
    /// may import from the home directory): the block's text, one
    /// `include` row per inlined file, and the files it carries.
    fn expand_imports(
        &self,
        source: &dyn RuleSource,
        real: &Utf8Path,
        tier: Option<Tier>,
        content: &str,
        warnings: &mut Vec<String>,
    ) -> Block {
        let policy = if tier == Some(Tier::User) {
            self.engine
                .import_policy
                .clone()
                .with_allow_home(true)
                .with_home_dir(self.boundary.parent().map(|h| h.as_std_path().to_owned()))
        } else {
            self.engine.import_policy.clone()
        };
        let expansion = jit_imports::expand(
            real.as_std_path(),
            content,
            self.boundary.as_std_path(),
            &policy,
        );
        warnings.extend(expansion.diagnostics.iter().map(ToString::to_string));
        let mut includes = Vec::new();
        let mut imported = Vec::new();
        for record in expansion.included() {
            let Some(resolved) = record
                .resolved
                .as_ref()
                .and_then(|p| Utf8PathBuf::from_path_buf(p.clone()).ok())
            else {
                continue;
            };
            let from = Utf8PathBuf::from_path_buf(record.from.clone())
                .map(|p| self.engine.display(&p))
                .unwrap_or_else(|p| p.display().to_string());
            let stamp = record.read_as.map(|read| Stamp {
                len: read.len,
                modified: read.modified,
            });
            imported.push((resolved.clone(), from.clone(), stamp));
            includes.push(LoadedRule {
                file: self.engine.display(&resolved),
                attribution: Attribution::Include,
                // Its text is inlined in the including rule's block and
                // counted there; it has no block of its own.
                bytes: 0,
                decision: LoadKind::Loaded,
                source: source.name().to_owned(),
                scope: None,
                detail: Some(format!(
                    "imported by `@{}` in {from}: {} bytes inlined into its block",
                    record.target, record.bytes
                )),
                included_by: Some(from),
                tier,
                warnings: Vec::new(),
                content: String::new(),
            });
        }
        Block {
            content: expansion.expanded,
            includes,
            imported,
        }
    }

    /// Decides whether a project rule's `bytes` fit its source's startup
    /// budget, charging them if so; always true outside the startup load.
    fn within_startup_budget(
        &mut self,
        source: &dyn RuleSource,
        candidate: &Utf8Path,
        tier: Option<Tier>,
        bytes: u64,
    ) -> bool {
        if !self.startup || !matches!(tier, Some(Tier::Project | Tier::Local)) {
            return true;
        }
        let Some(budget) = source.startup_budget() else {
            return true;
        };
        let spent = self
            .state
            .startup_spent
            .get(source.name())
            .copied()
            .unwrap_or(0);
        if spent + bytes > budget {
            // Not for the startup chain, but for the first touch of its
            // directory: the directory must be judged again.
            self.complete = false;
            self.blocked = true;
            self.skip(
                candidate,
                SkipReason::TooLargeForBudget,
                &format!(
                    "{bytes} bytes would take the {} startup chain to {} bytes, over its \
                     budget of {budget}; it loads when a file in its directory is touched",
                    source.name(),
                    spent + bytes
                ),
            );
            return false;
        }
        self.state
            .startup_spent
            .insert(source.name().to_owned(), spent + bytes);
        true
    }

    /// Records the files imported into the block of `real` as in the
    /// context too, so a convention that names one of them later finds it
    /// already loaded; one already there from elsewhere gets a warning.
    fn record_imports(
        &mut self,
        source: &dyn RuleSource,
        real: &Utf8Path,
        imported: Vec<Imported>,
        warnings: &mut Vec<String>,
    ) {
        // Each is an import's `resolved` path, its real path already.
        for (real_import, from, stamp) in imported {
            if real_import.as_str() == real.as_str() {
                continue;
            }
            let key = real_import.to_string();
            if self.state.loaded.contains_key(&key) {
                let ours = self.state.imported_by.get(&key) == Some(&real.to_string());
                if !ours && let Some(first) = self.state.origins.get(&key) {
                    // Its text is in the context twice now; say so rather
                    // than hide it.
                    warnings.push(format!(
                        "`{}` is already in the context (it came in as {first}); this block \
                         inlines its text a second time",
                        self.engine.display(&real_import)
                    ));
                }
                continue;
            }
            // The stamp the text was read with: one taken now could
            // already be a newer version's, which would then never be read.
            let stamp = stamp.or_else(|| fs::metadata(&real_import).ok().map(|m| Stamp::of(&m)));
            if let Some(stamp) = stamp {
                self.state.loaded.insert(key.clone(), stamp);
                self.state.set_origin(
                    &key,
                    ["an import in ", &from, " (", source.name(), ")"].concat(),
                );
                self.state.imported_by.insert(key, real.to_string());
            }
        }
    }

    /// `candidate` as rows show it: `shown` when a replay kept it.
    fn shown(&self, candidate: &Utf8Path, shown: Option<&str>) -> String {
        shown.map_or_else(|| self.engine.display(candidate), str::to_owned)
    }

    fn skip(&mut self, candidate: &Utf8Path, reason: SkipReason, detail: &str) {
        let file = self.engine.display(candidate);
        self.skip_shown(file, reason, detail.to_owned());
    }

    /// [`DirScan::skip`] of a candidate already shown as `file`.
    fn skip_shown(&mut self, file: String, reason: SkipReason, detail: String) {
        if !self.judging {
            // A row a replay would not reproduce (a shadowed name, a
            // folder over the limit or outside the root): no replay.
            self.blocked = true;
        }
        self.out.skipped.push(SkippedRule {
            file,
            reason,
            detail,
            source: self.source_name.to_owned(),
        });
    }

    fn unreadable(&mut self, candidate: &Utf8Path, err: &io::Error) {
        // An I/O error may be passing: judge this directory again next time.
        self.complete = false;
        self.blocked = true;
        self.skip(
            candidate,
            SkipReason::Unreadable,
            &format!("cannot read: {err}"),
        );
    }
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::fs;

    use std::sync::Arc;

    use camino::Utf8Path;
    use pretty_assertions::assert_eq;

    use crate::{
        AgentsSource, ClaudeSource, Discovery, DiscoveryState, Engine, RuleSource, SkipReason,
    };

    /// A tree where the root and `src/ui` hold scoped rules that miss a
    /// README and match a component, an import, an unscoped rule on the
    /// chain and two conventions.
    pub(in crate::discover) fn tree() -> (tempfile::TempDir, Engine) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".claude/rules")).unwrap();
        fs::create_dir_all(root.join("src/ui/.claude/rules")).unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(root.join("CLAUDE.md"), "Root.\n@docs/style.md\n").unwrap();
        fs::write(root.join("docs/style.md"), "Style.\n").unwrap();
        fs::write(root.join("AGENTS.md"), "Agents at the root.\n").unwrap();
        fs::write(
            root.join(".claude/rules/tsx.md"),
            "---\npaths: [\"src/**/*.tsx\"]\n---\nComponents.\n",
        )
        .unwrap();
        fs::write(
            root.join(".claude/rules/py.md"),
            "---\npaths: [\"**/*.py\"]\n---\nPython.\n",
        )
        .unwrap();
        fs::write(root.join("src/ui/CLAUDE.md"), "UI.\n").unwrap();
        fs::write(
            root.join("src/ui/.claude/rules/footer.md"),
            "---\npaths: [\"src/ui/Footer.tsx\"]\n---\nFooter.\n",
        )
        .unwrap();
        let sources: [Arc<dyn RuleSource>; 2] = [
            Arc::new(ClaudeSource::default()),
            Arc::new(AgentsSource::default()),
        ];
        let engine = Engine::new(root).unwrap().with_sources(sources);
        (dir, engine)
    }

    fn rows(discovery: &Discovery) -> (Vec<String>, Vec<String>) {
        (
            discovery
                .loaded
                .iter()
                .map(|l| format!("{} {:?} {}", l.file, l.attribution, l.bytes))
                .collect(),
            discovery
                .skipped
                .iter()
                .map(|s| format!("{} {:?} {}", s.file, s.reason, s.detail))
                .collect(),
        )
    }

    /// Paths sort by their text as they do by their components.
    #[test]
    fn paths_sort_by_text_as_by_components() {
        let names = [
            "/r/a",
            "/r/a-b",
            "/r/a/z",
            "/r/a/b",
            "/r/a.md",
            "/r/a0",
            "/r/A",
            "/r/b",
            "/r/a-b/c",
            "/r/a/b-c",
            "/r/a/b/c",
            "/r/\u{e9}",
            "/r/a b",
            "/r",
            "/r/a\u{7f}",
            "/r/a\u{0}",
            "/r/\u{0}",
            // No first byte in common.
            "r/a",
            "a-b/c",
            "b",
            "",
        ];
        for a in names {
            for b in names {
                assert_eq!(
                    super::by_components(a, b),
                    Utf8Path::new(a).cmp(Utf8Path::new(b)),
                    "{a} against {b}"
                );
            }
        }
    }

    thread_local! {
        /// How many rule files this thread read without an `lstat` first.
        pub(super) static UNSTAMPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A rule file its listing calls regular, and that nothing is known of,
    /// is opened at once; a link, a named pipe and a file already read are
    /// judged from their `lstat`, with the same decisions as before.
    #[test]
    #[cfg(unix)]
    fn a_rule_file_nothing_is_known_of_is_read_without_an_lstat() {
        let (dir, engine) = tree();
        let rules = dir.path().join(".claude/rules");
        std::os::unix::fs::symlink(rules.join("tsx.md"), rules.join("link.md")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(rules.join("pipe.md"))
            .status()
            .unwrap();
        assert!(status.success());
        let read = |state: &mut DiscoveryState, path: &str| {
            let before = UNSTAMPED.with(std::cell::Cell::get);
            let reads = crate::rule::READS.with(std::cell::Cell::get);
            let discovery = engine.discover(state, Utf8Path::new(path), engine.root());
            let reads = crate::rule::READS.with(std::cell::Cell::get) - reads;
            (
                UNSTAMPED.with(std::cell::Cell::get) - before,
                reads,
                rows(&discovery),
            )
        };
        let mut state = DiscoveryState::default();
        let (unstamped, reads, (loaded, skipped)) = read(&mut state, "src/ui/Button.tsx");
        // py.md at the root and footer.md below; not the link nor the pipe,
        // nor tsx.md, known once the link to it was read (in sorted order).
        assert_eq!(unstamped, 2);
        // Each file read once: those two, tsx.md through the link, and the
        // CLAUDE.md, AGENTS.md and src/ui/CLAUDE.md on the chain.
        assert_eq!(reads, 6);
        assert!(
            loaded.contains(&".claude/rules/link.md PathGlobMatch 12".to_owned()),
            "{loaded:?}"
        );
        for row in [
            ".claude/rules/pipe.md Unreadable not a regular file (a named pipe), so it is not read",
            ".claude/rules/py.md ScopeMiss `src/ui/Button.tsx` matches none of [\"**/*.py\"]",
            ".claude/rules/tsx.md AlreadyLoaded already in the context and unchanged since it \
             was read: it came in as .claude/rules/link.md (claude)",
        ] {
            assert!(skipped.contains(&row.to_owned()), "{row}\n{skipped:#?}");
        }
        // Everything is known now: compared by its stamp, not read again.
        let (unstamped, reads, _) = read(&mut state, "src/ui/Card.tsx");
        assert_eq!((unstamped, reads), (0, 0));
        let (unstamped, _, _) = read(&mut DiscoveryState::default(), "src/ui/Card.tsx");
        assert_eq!(unstamped, 2, "a fresh state knows nothing");
    }

    /// A rule of exactly the size cap is read, one byte more is refused
    /// as too large before it is read, whether its folder was listed or
    /// its name probed.
    #[test]
    fn the_size_cap_holds_at_its_boundary_for_listed_and_probed_rules() {
        let (dir, engine) = tree();
        let engine = engine.with_max_rule_bytes(64);
        let root = dir.path();
        let text = |n: usize| format!("---\npaths: [\"**/*.rs\"]\n---\n{}\n", "x".repeat(n));
        let at_cap = text(64 - text(0).len());
        assert_eq!(at_cap.len(), 64);
        fs::write(root.join(".claude/rules/cap.md"), &at_cap).unwrap();
        fs::write(
            root.join(".claude/rules/over.md"),
            text(64 - text(0).len() + 1),
        )
        .unwrap();
        fs::create_dir_all(root.join("lib")).unwrap();
        fs::write(root.join("lib/CLAUDE.md"), "y".repeat(64)).unwrap();
        fs::write(root.join("lib/AGENTS.md"), "z".repeat(65)).unwrap();
        let discovery = engine.discover(
            &mut DiscoveryState::default(),
            Utf8Path::new("lib/a.rs"),
            engine.root(),
        );
        let (loaded, skipped) = rows(&discovery);
        // Read whole: the body after the frontmatter, and all 64 bytes.
        let body = at_cap.len() - text(0).len() + 1;
        for row in [
            format!(".claude/rules/cap.md PathGlobMatch {body}"),
            "lib/CLAUDE.md NestedTraversal 64".to_owned(),
        ] {
            assert!(loaded.contains(&row), "{row}\n{loaded:#?}");
        }
        for file in [
            ".claude/rules/over.md TooLarge 65 bytes",
            "lib/AGENTS.md TooLarge 65 bytes",
        ] {
            assert!(
                skipped.iter().any(|r| r.starts_with(file)),
                "{file}\n{skipped:#?}"
            );
        }
    }

    /// A replayed open record decides exactly what a scan from the listing
    /// decides, for every touch of a session.
    #[test]
    fn a_replay_decides_what_a_full_scan_decides() {
        let (_dir, engine) = tree();
        let mut state = DiscoveryState::default();
        let touches = [
            "src/ui/README.md",
            "src/ui/Button.tsx",
            "src/ui/Footer.tsx",
            "src/ui/Footer.tsx",
            "tools/x.py",
            "src/ui/README.md",
        ];
        let mut replayed = 0;
        for path in touches {
            let mut rescanned = state.clone();
            rescanned.scanned.retain(|_, record| !record.open);
            replayed += state.scanned.len() - rescanned.scanned.len();
            let warm = engine.discover(&mut state, Utf8Path::new(path), engine.root());
            let cold = engine.discover(&mut rescanned, Utf8Path::new(path), engine.root());
            assert_eq!(rows(&warm), rows(&cold), "{path}");
        }
        assert!(replayed >= 4, "only {replayed} open records were replayed");
    }

    /// A touched path names a directory when it ends with `/` (there or
    /// not yet), when the file system says it is one, and at the root: its
    /// own rules load, and scopes see it with its `/`.
    #[test]
    fn a_touched_directory_is_judged_as_one() {
        let (dir, engine) = tree();
        fs::write(
            dir.path().join(".claude/rules/new.md"),
            "---\npaths: [\"new/**\"]\n---\nNew.\n",
        )
        .unwrap();
        let touch = |path: &str| {
            let mut state = DiscoveryState::default();
            engine.discover(&mut state, Utf8Path::new(path), engine.root())
        };
        let loads = |discovery: &Discovery, file: &str| {
            discovery.loaded.iter().any(|rule| rule.file == file)
        };
        let ui = touch("src/ui");
        assert_eq!(ui.trigger, "src/ui");
        assert!(loads(&ui, "src/ui/CLAUDE.md"), "{:?}", rows(&ui));
        let new = touch("new/");
        assert_eq!(new.trigger, "new");
        assert!(loads(&new, ".claude/rules/new.md"), "{:?}", rows(&new));
        // Without its `/`, a path not there yet is a file in the root.
        assert!(!loads(&touch("new"), ".claude/rules/new.md"));
        let root = touch(".");
        assert_eq!(root.trigger, ".");
        assert!(loads(&root, "CLAUDE.md"), "{:?}", rows(&root));
    }

    /// A warm touch trusts every level's record that still holds: none is
    /// scanned again (a scan would record a new time), and an open one is
    /// replayed in place.
    #[test]
    fn a_warm_touch_scans_no_level_whose_record_holds() {
        let (_dir, engine) = tree();
        let mut state = DiscoveryState::default();
        engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        let times = |state: &DiscoveryState| {
            let mut times: Vec<(String, Option<std::time::SystemTime>)> = state
                .scanned
                .iter()
                .map(|(dir, record)| (dir.to_string(), record.at))
                .collect();
            times.sort();
            times
        };
        let before = times(&state);
        assert_eq!(before.len(), 3, "{before:?}");
        let warm = engine.discover(&mut state, Utf8Path::new("src/ui/Card.md"), engine.root());
        assert!(!warm.is_hit(), "{:?}", rows(&warm));
        assert_eq!(times(&state), before);
    }

    /// A directory a link brings into a chain twice (`a/again` is `a`) is
    /// judged once: its rule loads, with no second row saying it is already
    /// in the context.
    #[test]
    #[cfg(unix)]
    fn a_directory_a_link_brings_in_twice_is_judged_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("a")).unwrap();
        fs::write(dir.path().join("a/CLAUDE.md"), "A.\n").unwrap();
        std::os::unix::fs::symlink(".", dir.path().join("a/again")).unwrap();
        let engine = Engine::new(dir.path()).unwrap();
        let mut state = DiscoveryState::default();
        let found = engine.discover(&mut state, Utf8Path::new("a/again/f.ts"), engine.root());
        let (loaded, skipped) = rows(&found);
        assert_eq!(loaded, ["a/CLAUDE.md NestedTraversal 3"]);
        assert!(skipped.is_empty(), "{skipped:?}");
    }

    /// A level of the chain that resolves outside the root is a row of its
    /// own, and its rules are not read.
    #[test]
    #[cfg(unix)]
    fn a_level_outside_the_root_is_a_row() {
        let (dir, engine) = tree();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("CLAUDE.md"), "Outside.\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let mut state = DiscoveryState::default();
        let found = engine.discover(&mut state, Utf8Path::new("out/f.ts"), engine.root());
        let row = found
            .skipped
            .iter()
            .find(|row| row.file == "out")
            .expect("a row for the level");
        assert_eq!(row.reason, SkipReason::OutsideRoot);
        assert!(
            row.detail.starts_with("this directory resolves to ")
                && row.detail.ends_with("; its rules are not read"),
            "{}",
            row.detail
        );
        assert!(found.loaded.iter().all(|l| !l.file.contains("out")));
    }

    /// A rule already in the context and unchanged is skipped naming how it
    /// first came in when that was another way (an import), and plainly
    /// when it came in as this very candidate.
    #[test]
    fn an_unchanged_rule_names_its_first_arrival_only_when_it_differs() {
        let (dir, engine) = tree();
        fs::write(dir.path().join("CLAUDE.md"), "Root.\n@AGENTS.md\n").unwrap();
        let mut state = DiscoveryState::default();
        engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        // The root's record is open (the Python rule missed): replayed.
        let again = engine.discover(&mut state, Utf8Path::new("tools/x.py"), engine.root());
        let unchanged: Vec<String> = rows(&again)
            .1
            .into_iter()
            .filter(|row| row.contains("AlreadyLoaded"))
            .collect();
        assert_eq!(
            unchanged,
            [
                "CLAUDE.md AlreadyLoaded already in the context and unchanged since it was read",
                "AGENTS.md AlreadyLoaded already in the context and unchanged since it was \
                 read: it came in as an import in CLAUDE.md (claude)",
            ]
        );
    }

    /// The root and `src/ui` stay open while a scoped rule there has not
    /// loaded, and close once every one has.
    #[test]
    fn an_open_record_closes_when_every_scoped_rule_has_loaded() {
        let (_dir, engine) = tree();
        let mut state = DiscoveryState::default();
        let ui = format!("{}/src/ui", engine.root());
        engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        assert!(state.scanned[ui.as_str()].open);
        assert_eq!(state.scanned[ui.as_str()].replay.len(), 2);
        engine.discover(
            &mut state,
            Utf8Path::new("src/ui/Footer.tsx"),
            engine.root(),
        );
        assert!(!state.scanned[ui.as_str()].open);
        assert!(state.scanned[ui.as_str()].replay.is_empty());
        // The root still holds the Python rule.
        assert!(state.scanned[engine.root().as_str()].open);
    }

    /// A scoped rule edited to match, or added, after its directory's record
    /// opened is judged from disk on the next touch: a replay never hides a
    /// change.
    #[test]
    fn an_edited_or_added_rule_beside_an_open_record_is_read_again() {
        let (dir, engine) = tree();
        let mut state = DiscoveryState::default();
        engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        fs::write(
            dir.path().join(".claude/rules/py.md"),
            "---\npaths: [\"**/*.md\"]\n---\nPython and Markdown, now.\n",
        )
        .unwrap();
        fs::write(
            dir.path().join(".claude/rules/new.md"),
            "---\npaths: [\"src/**\"]\n---\nNew.\n",
        )
        .unwrap();
        let next = engine.discover(&mut state, Utf8Path::new("src/ui/NOTES.md"), engine.root());
        let loaded: Vec<&str> = next.loaded.iter().map(|l| l.file.as_str()).collect();
        assert_eq!(loaded, [".claude/rules/new.md", ".claude/rules/py.md"]);
        assert!(
            next.skipped
                .iter()
                .any(|s| s.file == ".claude/rules/tsx.md" && s.reason == SkipReason::ScopeMiss)
        );
    }

    /// A directory left unresolved by something other than a scope miss
    /// (here a shadowed name) is scanned from its listing every time, never
    /// replayed.
    #[test]
    fn a_directory_with_a_row_a_replay_cannot_reproduce_stays_unrecorded() {
        let (dir, engine) = tree();
        fs::write(dir.path().join("src/ui/AGENTS.override.md"), "Override.\n").unwrap();
        fs::write(dir.path().join("src/ui/AGENTS.md"), "Shadowed.\n").unwrap();
        let mut state = DiscoveryState::default();
        engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        let ui = format!("{}/src/ui", engine.root());
        assert!(!state.scanned.contains_key(ui.as_str()));
        let again = engine.discover(&mut state, Utf8Path::new("src/ui/README.md"), engine.root());
        assert!(
            again
                .skipped
                .iter()
                .any(|s| s.file == "src/ui/AGENTS.md" && s.reason == SkipReason::Shadowed)
        );
    }

    /// A convention without `@` imports (AGENTS.md) keeps an `@path` as
    /// text; Claude's expands it.
    #[test]
    fn only_a_convention_with_imports_expands_them() {
        let (dir, engine) = tree();
        fs::write(dir.path().join("AGENTS.md"), "See @docs/style.md.\n").unwrap();
        let mut state = DiscoveryState::default();
        let found = engine.discover(&mut state, Utf8Path::new("README.md"), engine.root());
        let agents = found.loaded.iter().find(|l| l.file == "AGENTS.md").unwrap();
        assert_eq!(agents.content, "See @docs/style.md.\n");
        let claude = found.loaded.iter().find(|l| l.file == "CLAUDE.md").unwrap();
        assert!(claude.content.contains("Style."), "{}", claude.content);
        let includes: Vec<&str> = found
            .loaded
            .iter()
            .filter(|l| l.included_by.is_some())
            .map(|l| l.included_by.as_deref().unwrap_or_default())
            .collect();
        assert_eq!(includes, ["CLAUDE.md"]);
    }

    /// Containment costs a `realpath` only for what is reached through a
    /// link: in a tree without links, a touch, the project walk and
    /// detection along a path resolve nothing; a linked `.claude` folder
    /// (inside the root) is resolved, and its rules still load once; a rule
    /// folder that is a link to itself is said to be unreadable.
    #[cfg(unix)]
    #[test]
    fn only_what_is_reached_through_a_link_is_resolved() {
        use super::super::chain::tests::CONTAINED;
        use std::cell::Cell;
        let dir = tempfile::tempdir().unwrap();
        let root = camino::Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        for (path, text) in [
            ("CLAUDE.md", "Root.\n"),
            (
                ".claude/rules/ts.md",
                "---\npaths: [\"**/*.ts\"]\n---\nTS.\n",
            ),
            ("src/.claude/CLAUDE.md", "Src.\n"),
            ("src/.claude/rules/deep/b.md", "B.\n"),
            ("src/AGENTS.md", "Agents.\n"),
            ("docs/.claude/CLAUDE.md", "Docs, no rule folder.\n"),
        ] {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let engine = Engine::new(&root).unwrap().with_sources([
            Arc::new(ClaudeSource::default()) as Arc<dyn RuleSource>,
            Arc::new(AgentsSource::default()),
        ]);
        let counted = |run: &dyn Fn()| {
            let before = CONTAINED.with(Cell::get);
            run();
            CONTAINED.with(Cell::get) - before
        };
        let mut state = DiscoveryState::default();
        let touch = |state: &mut DiscoveryState, path: &str| {
            engine.discover(state, Utf8Path::new(path), engine.root())
        };
        let before = CONTAINED.with(Cell::get);
        let first = touch(&mut state, "src/a.ts");
        touch(&mut state, "docs/a.md");
        let resolved = CONTAINED.with(Cell::get) - before;
        assert_eq!(resolved, 0, "no link, nothing resolved: {first:#?}");
        assert_eq!(first.loaded.len(), 5, "{first:#?}");
        let sources = crate::all_sources();
        assert_eq!(
            counted(&|| assert_eq!(crate::find_rule_files(&root, &sources).len(), 6)),
            0
        );
        let along = [camino::Utf8PathBuf::from("src/deeper")];
        assert_eq!(
            counted(&|| assert_eq!(crate::detect_conventions_along(&root, &along).len(), 2)),
            0
        );
        // Along a file's path (what `explain` passes), the file holds no
        // rule: nothing in it is looked up, nothing resolved.
        fs::write(root.join("src/a.ts"), "code\n").unwrap();
        let file = [camino::Utf8PathBuf::from("src/a.ts")];
        assert_eq!(
            counted(&|| assert_eq!(crate::detect_conventions_along(&root, &file).len(), 2)),
            0
        );

        // A `.claude` folder that is a link (inside the root): resolved.
        fs::create_dir_all(root.join("lib")).unwrap();
        std::os::unix::fs::symlink(root.join("src/.claude"), root.join("lib/.claude")).unwrap();
        let before = CONTAINED.with(Cell::get);
        let linked = touch(&mut state, "lib/a.ts");
        assert!(CONTAINED.with(Cell::get) > before);
        assert!(
            linked.loaded.is_empty(),
            "already loaded through src: {linked:#?}"
        );
        assert!(
            linked
                .skipped
                .iter()
                .all(|s| s.reason == SkipReason::AlreadyLoaded)
        );

        // A rule folder that is a link to itself cannot be resolved: said.
        fs::create_dir_all(root.join("loop/.claude")).unwrap();
        std::os::unix::fs::symlink("rules", root.join("loop/.claude/rules")).unwrap();
        let looped = touch(&mut state, "loop/a.ts");
        let row = looped
            .skipped
            .iter()
            .find(|s| s.file == "loop/.claude/rules");
        assert_eq!(
            row.map(|s| s.reason),
            Some(SkipReason::Unreadable),
            "{looped:#?}"
        );
    }
}
