//! What a session has already seen: the loaded set, the scan records that let a directory be skipped, and the caches of resolved chains and parsed rules.

use std::fs;
use std::sync::{Arc, OnceLock};

use camino::{Utf8Path, Utf8PathBuf};

use super::Engine;
use super::chain::Level;
use crate::Map;
use crate::rule::{ParsedRule, Rejection, Stamp};

/// What a session has already seen: loaded rules, scanned directories, and
/// caches. Create one per agent context; [`DiscoveryState::rearm`] it after
/// compaction or clear.
///
/// ```
/// use jit_core::{DiscoveryState, Engine};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// let engine = Engine::new(dir.path())?;
/// let mut state = DiscoveryState::default();
/// assert!(engine.discover(&mut state, "a.rs".into(), engine.root()).is_hit());
/// assert!(!engine.discover(&mut state, "b.rs".into(), engine.root()).is_hit());
///
/// // The agent's context was compacted: the rule comes back on the next touch.
/// state.rearm();
/// assert!(engine.discover(&mut state, "b.rs".into(), engine.root()).is_hit());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct DiscoveryState {
    /// Rule files in the context, by canonical path, with the stamp they were read at.
    pub(super) loaded: Map<String, Stamp>,
    /// Directories whose every candidate was resolved, with the stamps that
    /// prove the scan is still current. Boxed: a record is over 100 bytes,
    /// and a map keeps room for up to twice its entries, so the table holds
    /// pointers and each record takes only its own room.
    pub(super) scanned: Map<Arc<str>, Box<ScanRecord>>,
    /// Lexical root-relative directory → where it really is, each level
    /// checked again on every walk through it (one `lstat`, or a `realpath`
    /// below a link) before it is trusted. One entry per directory: chains
    /// are put together from their levels, so a deep tree does not store
    /// its upper levels once per directory below them.
    pub(super) levels: Map<Arc<str>, Level>,
    /// The user's rule folders (`~/.claude`, canonical) with the name of
    /// the source each belongs to, once the startup load has seen them:
    /// their scoped rules are judged on every touch too.
    pub(crate) user_tiers: Vec<(String, Arc<str>)>,
    /// How each file in the context (canonical path) first arrived, for the
    /// detail of a second arrival: `CLAUDE.md (claude)`, or
    /// `imported by CLAUDE.md (claude)`.
    pub(super) origins: Map<String, String>,
    /// Files in the context only as imports (canonical) → the canonical path
    /// of the rule whose block carries them.
    pub(super) imported_by: Map<String, String>,
    /// Bytes each source loaded from the project in the current startup load,
    /// against its startup budget.
    pub(crate) startup_spent: Map<String, u64>,
    /// Parsed rule files, and files rejected for good (invalid
    /// frontmatter, too large, binary...), reused while their stamp holds.
    pub(super) parsed: Map<String, (Stamp, Result<Arc<ParsedRule>, Rejection>)>,
    /// Counts the walks of touched chains, to tell which scan records were
    /// used last ([`ScanRecord::used`]) when a snapshot keeps only some.
    pub(super) walks: u64,
}

/// A loaded rule file and the stamp it was read at, as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredStamp {
    /// The canonical path.
    pub(crate) file: String,
    /// Its size when read.
    pub(crate) len: u64,
    /// Its modification time when read, in nanoseconds since the Unix epoch.
    #[serde(default)]
    pub(crate) modified_ns: Option<u64>,
}

/// What one directory's scan looked at, to tell whether it still holds.
#[derive(Debug, Clone, Default)]
pub(super) struct ScanRecord {
    /// The scanned directory's own stamp (its key in the map is its path).
    pub(super) dir: Option<Stamp>,
    /// Every other folder probed and every candidate file found, with its
    /// stamp at scan time. A changed stamp means the directory must be
    /// scanned again.
    pub(super) stamps: Vec<(Utf8PathBuf, Stamp)>,
    /// The record is open: a scoped rule here missed the last touched
    /// path, so the next touch judges [`ScanRecord::replay`] again.
    pub(super) open: bool,
    /// Every candidate the scan judged past its containment check, in
    /// order, kept while the record is open.
    pub(super) replay: Vec<Replay>,
    /// The walk ([`DiscoveryState::walks`]) that made or last trusted it.
    pub(super) used: u64,
    /// When the scan that made it began (for a record taken back from a
    /// snapshot, when it was taken back): a record is kept for a later
    /// process only if nothing it stamped changed in the margin before
    /// this, since a change in the same clock tick as the scan would leave
    /// the stamps as they were.
    pub(super) at: Option<std::time::SystemTime>,
}

/// A candidate of an open scan record: enough to judge it again without
/// listing its folder or resolving its real path, which the record's stamps
/// prove unchanged.
#[derive(Debug, Clone)]
pub(super) struct Replay {
    /// The index of its source in the engine's sources.
    pub(super) source: usize,
    /// The candidate as the scan addressed it.
    pub(super) candidate: Utf8PathBuf,
    /// Its real path, contained in the boundary.
    pub(super) real: Utf8PathBuf,
    /// Its stamp when judged (also in the record's stamps).
    pub(super) stamp: Stamp,
    /// Where that stamp is in the record's stamps.
    pub(super) stamp_index: usize,
    /// The candidate as rows show it ([`Engine::display`]): made by the
    /// scan, or by the first replay of a record a session kept.
    pub(super) shown: OnceLock<String>,
}

impl DiscoveryState {
    /// Keeps the parse of the rule file `real`, read at `stamp`, for the
    /// touches that meet it again. A passing failure is not kept: the next
    /// touch reads the file again. Anything else is kept until the file
    /// changes, so a broken rule costs one parse, not one per touch.
    pub(super) fn keep_parse(
        &mut self,
        real: &Utf8Path,
        stamp: Stamp,
        parsed: &Result<Arc<ParsedRule>, Rejection>,
    ) {
        if !matches!(parsed, Err(rejection) if rejection.transient) {
            self.parsed
                .insert(real.to_string(), (stamp, parsed.clone()));
        }
    }

    /// Records a rule file as already in the context (for example loaded at
    /// startup), so discovery reports it `already_loaded` instead of
    /// injecting it twice. Returns `false` if its metadata cannot be read.
    pub fn mark_loaded(&mut self, path: &Utf8Path) -> bool {
        let real = fs::canonicalize(path)
            .ok()
            .and_then(|p| Utf8PathBuf::from_path_buf(p).ok())
            .unwrap_or_else(|| path.to_owned());
        match fs::metadata(&real) {
            Ok(meta) => {
                self.loaded.insert(real.into_string(), Stamp::of(&meta));
                true
            }
            Err(_) => false,
        }
    }

    /// Whether `path` (canonical) is in the context.
    pub fn is_loaded(&self, path: &Utf8Path) -> bool {
        self.loaded.contains_key(path.as_str())
    }

    /// The rule files in the context, canonical paths, sorted.
    pub fn loaded_files(&self) -> Vec<&Utf8Path> {
        let mut files: Vec<&Utf8Path> = self.loaded.keys().map(Utf8Path::new).collect();
        files.sort();
        files
    }

    /// The loaded set and the user tier, for a [`crate::SessionSnapshot`]:
    /// what must outlive a process (caches need not).
    pub(crate) fn export(&self) -> (Vec<StoredStamp>, Vec<(String, String)>) {
        let mut loaded: Vec<StoredStamp> = self
            .loaded
            .iter()
            .map(|(file, stamp)| StoredStamp {
                file: file.clone(),
                len: stamp.len,
                modified_ns: stamp.modified_nanos(),
            })
            .collect();
        loaded.sort_by(|a, b| a.file.cmp(&b.file));
        let tiers = self
            .user_tiers
            .iter()
            .map(|(source, dir)| (source.clone(), dir.to_string()))
            .collect();
        (loaded, tiers)
    }

    /// A state with the loaded set and user tiers of [`DiscoveryState::export`].
    /// A tier stored without a source name (an older snapshot) belongs to
    /// the first source of the engine that has a user level.
    pub(crate) fn import(loaded: &[StoredStamp], user_tiers: &[(String, String)]) -> Self {
        DiscoveryState {
            loaded: loaded
                .iter()
                .map(|s| (s.file.clone(), Stamp::from_stored(s.len, s.modified_ns)))
                .collect(),
            user_tiers: user_tiers
                .iter()
                .map(|(source, dir)| (source.clone(), Arc::from(dir.as_str())))
                .collect(),
            ..DiscoveryState::default()
        }
    }

    /// Records how a file in the context first arrived.
    pub(super) fn set_origin(&mut self, real: &str, origin: String) {
        self.origins.entry(real.to_owned()).or_insert(origin);
    }

    /// Forgets what was injected, so rules come back on the next touch (after
    /// compaction or clear). Caches of parsed files and resolved paths stay.
    pub fn rearm(&mut self) {
        self.loaded.clear();
        self.scanned.clear();
        self.origins.clear();
        self.imported_by.clear();
    }

    /// Forgets one loaded rule (its block left the context), so the next touch
    /// of its directory injects it again.
    pub fn forget(&mut self, path: &Utf8Path) {
        self.origins.remove(path.as_str());
        self.imported_by.remove(path.as_str());
        // The files its block carried as imports left with it.
        let carried: Vec<String> = self
            .imported_by
            .iter()
            .filter(|(_, by)| by.as_str() == path.as_str())
            .map(|(file, _)| file.clone())
            .collect();
        for file in carried {
            self.imported_by.remove(&file);
            self.origins.remove(&file);
            self.loaded.remove(&file);
        }
        if self.loaded.remove(path.as_str()).is_some() {
            if let Some(dir) = path.parent() {
                // The directory that held it must be judged again. Rules from
                // `.claude/rules` belong to an ancestor; forget every record
                // that stamped this file.
                self.scanned.remove(dir.as_str());
            }
            self.scanned
                .retain(|_, record| !record.stamps.iter().any(|(p, _)| p == path));
        }
    }
}

/// Whether nothing a scan looked at has changed since.
///
/// `dir_stamp` is the directory's stamp if the walk already took it (without
/// following links); otherwise it is taken here.
pub(super) fn record_is_fresh(
    engine: &Engine,
    dir: &Arc<str>,
    dir_stamp: Option<Stamp>,
    record: &ScanRecord,
) -> bool {
    let fresh = |path: &str, stamp: &Stamp| {
        engine
            .stat_seen(path)
            .is_some_and(|seen| seen.stamp == *stamp)
    };
    let dir_stamp = dir_stamp.or_else(|| engine.lstat_dir(dir).map(|seen| seen.stamp));
    record.dir.is_some()
        && record.dir == dir_stamp
        && record
            .stamps
            .iter()
            .all(|(path, stamp)| fresh(path.as_str(), stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A harness may keep a session's state and its engine behind a lock
    /// shared by threads: what a record keeps for its replays is made
    /// once behind a `OnceLock`, not a `OnceCell`, to keep that so.
    #[test]
    fn a_state_and_an_engine_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<DiscoveryState>();
        shared::<Engine>();
    }
}
