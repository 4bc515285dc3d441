//! Scan records kept between processes: what a session snapshot stores so that the next process (an agent hook's next call) checks what this one scanned instead of probing every candidate name again.

use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::relative_to;
use serde::{Deserialize, Serialize};

use super::SETTLE;
use super::state::{DiscoveryState, Replay, ScanRecord};
use crate::rule::source::RuleSource;
use crate::rule::{ParsedRule, RuleScope, Stamp, compile_scope};

/// The most scan records a session snapshot keeps: the ones used last.
pub const MAX_KEPT_SCANS: usize = 64;

/// The most stamps one kept record may hold; a larger one (a rule folder of
/// hundreds of files) is scanned again by the next process instead.
pub(crate) const MAX_KEPT_SCAN_STAMPS: usize = 256;

/// The most bytes of scope patterns one snapshot keeps with its records.
pub(crate) const MAX_KEPT_SCOPE_BYTES: usize = 16 * 1024;

/// A scan record as a snapshot keeps it ([`DiscoveryState::export_scans`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredScan {
    /// The scanned directory (canonical).
    dir: String,
    /// Its size and modification time (nanoseconds since the Unix epoch)
    /// when scanned.
    stamp: (u64, u64),
    /// Every other folder probed and every candidate found: its path
    /// (relative to `dir` when below it), size and modification time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    stamps: Vec<(String, u64, u64)>,
    /// A scoped rule here missed the last touched path.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    open: bool,
    /// The candidates an open record judges again, in order: its source's
    /// index among the engine's sources, the index of its real path in
    /// `stamps`, the candidate when it is not its own real path, and the
    /// patterns of its scope when it is a scoped rule (a touch they miss is
    /// decided without reading the file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    replay: Vec<StoredReplay>,
    /// The walk that made or last trusted it.
    #[serde(default)]
    used: u64,
}

/// A replayed candidate of a [`StoredScan`] (see there), stored as a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredReplay(usize, usize, Option<String>, Option<Patterns>);

/// A scope's patterns.
type Patterns = Vec<String>;

impl DiscoveryState {
    /// The scan records worth keeping for a later process: at most
    /// [`MAX_KEPT_SCANS`] of the ones used last, sorted by directory. A
    /// record is left out when its directory or a file it stamped changed
    /// within [`SETTLE`] before the scan that made it began (or
    /// before `now`, if earlier), or has no time, or when it holds more
    /// than [`MAX_KEPT_SCAN_STAMPS`] stamps: the next process scans that
    /// directory again, as it would without a record.
    pub(crate) fn export_scans(&self, now: SystemTime) -> Vec<StoredScan> {
        let mut records: Vec<(&Arc<str>, &ScanRecord)> = self
            .scanned
            .iter()
            .map(|(dir, record)| (dir, &**record))
            .collect();
        records.sort_unstable_by(|a, b| b.1.used.cmp(&a.1.used).then_with(|| a.0.cmp(b.0)));
        let mut scopes = MAX_KEPT_SCOPE_BYTES;
        let mut kept: Vec<StoredScan> = records
            .into_iter()
            .filter_map(|(dir, record)| self.stored_scan(dir, record, now, &mut scopes))
            .take(MAX_KEPT_SCANS)
            .collect();
        kept.sort_unstable_by(|a, b| a.dir.cmp(&b.dir));
        kept
    }

    /// Takes back the records of [`DiscoveryState::export_scans`], made by
    /// an engine with these `sources` and this `root`, within the bounds the
    /// export keeps (a state written by hand may hold more). A record that
    /// names a source the engine does not have, replays a candidate it did
    /// not stamp, holds too many stamps, or names a path outside the root
    /// and the user folders this state knows (where a scan stays) is
    /// dropped: its directory is scanned again. The records keep their
    /// order of use, after every walk this state made.
    pub(crate) fn import_scans(
        &mut self,
        mut scans: Vec<StoredScan>,
        sources: &[Arc<dyn RuleSource>],
        root: &Utf8Path,
    ) {
        scans.truncate(MAX_KEPT_SCANS);
        scans.sort_by_key(|stored| stored.used);
        let at = SystemTime::now();
        for stored in scans {
            let Some((dir, mut record, scopes)) = scan_record(stored, sources.len()) else {
                continue;
            };
            if !self.holds_within_a_boundary(&dir, &record, root) {
                continue;
            }
            for (replay, patterns) in record.replay.iter().zip(scopes) {
                if let Some(patterns) = patterns {
                    self.keep_scope(replay, &patterns);
                }
            }
            self.walks = self.walks.saturating_add(1);
            record.used = self.walks;
            record.at = Some(at);
            self.scanned.insert(Arc::from(dir), Box::new(record));
        }
    }

    /// Whether `dir` and every path `record` stamped lie in the project
    /// `root` or in one user folder this state knows, as a scan keeps them.
    fn holds_within_a_boundary(&self, dir: &str, record: &ScanRecord, root: &Utf8Path) -> bool {
        let boundary = std::iter::once(root.as_str())
            .chain(self.user_tiers.iter().map(|(_, dir)| &**dir))
            .find(|boundary| within(dir, boundary));
        boundary.is_some_and(|boundary| {
            record
                .stamps
                .iter()
                .all(|(path, _)| within(path.as_str(), boundary))
        })
    }

    /// `record` as a snapshot keeps it, or `None` when it must not outlive
    /// this process; its replayed rules' scopes while `scopes` bytes are left.
    fn stored_scan(
        &self,
        dir: &str,
        record: &ScanRecord,
        now: SystemTime,
        scopes: &mut usize,
    ) -> Option<StoredScan> {
        if record.stamps.len() > MAX_KEPT_SCAN_STAMPS {
            return None;
        }
        // The margin is counted back from the scan: a change later in the
        // same tick as the scan is the one its stamps could miss.
        let since = record.at?.min(now);
        let dir_stamp = record.dir.as_ref()?;
        let stamp = (dir_stamp.len, settled(dir_stamp, since)?);
        let stamps = record
            .stamps
            .iter()
            .map(|(path, stamp)| Some((relative(dir, path), stamp.len, settled(stamp, since)?)))
            .collect::<Option<Vec<_>>>()?;
        let mut replay = record
            .replay
            .iter()
            .map(|item| {
                // (Compared as text: a path's `==` walks its components.)
                let candidate = (item.candidate.as_str() != item.real.as_str())
                    .then(|| item.candidate.to_string());
                StoredReplay(item.source, item.stamp_index, candidate, None)
            })
            .collect::<Vec<_>>();
        for (kept, item) in replay.iter_mut().zip(&record.replay) {
            kept.3 = self.kept_scope(item, scopes);
        }
        Some(StoredScan {
            dir: dir.to_owned(),
            stamp,
            stamps,
            open: record.open,
            replay,
            used: record.used,
        })
    }

    /// The scope patterns to keep with a replayed candidate: those of its
    /// parse at the same stamp, when it is a scoped rule, while `budget`
    /// bytes are left.
    fn kept_scope(&self, replay: &Replay, budget: &mut usize) -> Option<Patterns> {
        let (stamp, Ok(parsed)) = self.parsed.get(replay.real.as_str())? else {
            return None;
        };
        let RuleScope::Paths(compiled) = &parsed.scope else {
            return None;
        };
        if *stamp != replay.stamp {
            return None;
        }
        let patterns = compiled.patterns();
        *budget = budget.checked_sub(patterns.iter().map(String::len).sum())?;
        Some(patterns.to_vec())
    }

    /// Keeps the scope stored with a record as the parse of its rule at the
    /// replay's stamp (the record's freshness check proves the file
    /// unchanged before it is used): a touch it misses is decided from it,
    /// one it matches reads the file. Patterns that do not compile are not
    /// kept: the file is read.
    fn keep_scope(&mut self, replay: &Replay, patterns: &[String]) {
        if let Ok(scope) = compile_scope(patterns.to_vec()) {
            let parsed = ParsedRule {
                body: String::new(),
                frontmatter: true,
                scope,
                warnings: Vec::new(),
                description: None,
                scope_only: true,
            };
            self.parsed.insert(
                replay.real.to_string(),
                (replay.stamp, Ok(Arc::new(parsed))),
            );
        }
    }
}

/// The modification time of `stamp` in nanoseconds, if it is at least
/// [`SETTLE`] before `since`.
fn settled(stamp: &Stamp, since: SystemTime) -> Option<u64> {
    let age = since.duration_since(stamp.modified?).ok()?;
    if age < SETTLE {
        return None;
    }
    stamp.modified_nanos()
}

/// Whether the canonical `path` is `boundary` or below it, with no `..`.
fn within(path: &str, boundary: &str) -> bool {
    let below = relative_to(Utf8Path::new(path), Utf8Path::new(boundary)).is_some();
    // (The component check only when the text holds `/..` at all.)
    below && !(path.contains("/..") && path.split('/').any(|part| part == ".."))
}

/// `path` relative to `dir` when below it, else as it is.
fn relative(dir: &str, path: &Utf8Path) -> String {
    relative_to(path, Utf8Path::new(dir))
        .filter(|rest| !rest.as_str().is_empty())
        .unwrap_or(path)
        .to_string()
}

/// The directory, record and replayed scopes `stored` keeps, or `None`
/// when it cannot be trusted on an engine with `sources` sources.
fn scan_record(
    stored: StoredScan,
    sources: usize,
) -> Option<(String, ScanRecord, Vec<Option<Patterns>>)> {
    if stored.stamps.len() > MAX_KEPT_SCAN_STAMPS || stored.replay.len() > stored.stamps.len() {
        return None;
    }
    let dir = Utf8PathBuf::from(stored.dir);
    let stamps: Vec<(Utf8PathBuf, Stamp)> = stored
        .stamps
        .into_iter()
        .map(|(path, len, modified)| {
            let path = Utf8PathBuf::from(path);
            let path = if path.is_absolute() {
                path
            } else {
                dir.join(path)
            };
            (path, Stamp::from_stored(len, Some(modified)))
        })
        .collect();
    let mut scopes = Vec::with_capacity(stored.replay.len());
    let mut replay = Vec::with_capacity(stored.replay.len());
    for StoredReplay(source, index, candidate, patterns) in stored.replay {
        let (real, stamp) = stamps.get(index)?;
        if source >= sources {
            return None;
        }
        replay.push(Replay {
            source,
            candidate: candidate.map_or_else(|| real.clone(), Utf8PathBuf::from),
            real: real.clone(),
            stamp: *stamp,
            stamp_index: index,
            shown: OnceLock::new(),
        });
        scopes.push(patterns);
    }
    let record = ScanRecord {
        dir: Some(Stamp::from_stored(stored.stamp.0, Some(stored.stamp.1))),
        stamps,
        open: stored.open,
        replay,
        // Both set when it is taken back.
        used: 0,
        at: None,
    };
    Some((dir.into_string(), record, scopes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::fs;
    use std::path::Path;
    use std::sync::Arc;
    use std::time::{Duration, SystemTime};

    use camino::Utf8Path;
    use pretty_assertions::assert_eq;

    use super::{MAX_KEPT_SCAN_STAMPS, MAX_KEPT_SCANS, MAX_KEPT_SCOPE_BYTES, StoredScan};
    use crate::{AgentsSource, ClaudeSource, Discovery, DiscoveryState, Engine, RuleSource};

    /// Sets the modification time of `path` (a file or a directory) to
    /// `secs` seconds before now: every change a test makes gets a time of
    /// its own, so no record can miss it for sharing a clock tick with it.
    fn set_age(path: &Path, secs: u64) {
        let when = SystemTime::now() - Duration::from_secs(secs);
        fs::File::open(path).unwrap().set_modified(when).unwrap();
    }

    /// Every directory and file below `root` (and `root`), aged `secs`.
    fn age_tree(root: &Path, secs: u64) {
        for entry in walk(root) {
            set_age(&entry, secs);
        }
    }

    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = vec![dir.to_owned()];
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    /// The scan tests' tree (scoped rules at the root and in `src/ui`, one
    /// missing every file touched below, an import, two conventions), with
    /// a rule of the same stamp as another and one reached through a link;
    /// every time an hour old.
    fn tree() -> (tempfile::TempDir, Engine) {
        let (dir, engine) = crate::discover::scan::tests::tree();
        let root = dir.path();
        // Of the size of py.md, and given its time below: the same stamp.
        fs::write(
            root.join(".claude/rules/rb.md"),
            "---\npaths: [\"**/*.rb\"]\n---\nRubyyy.\n",
        )
        .unwrap();
        // A scoped rule reached through a link.
        fs::create_dir_all(root.join("shared")).unwrap();
        fs::write(
            root.join("shared/go.md"),
            "---\npaths: [\"**/*.go\"]\n---\nGo.\n",
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("../../shared/go.md", root.join(".claude/rules/go.md")).unwrap();
        age_tree(root, 3600);
        let when = fs::metadata(root.join(".claude/rules/py.md"))
            .unwrap()
            .modified()
            .unwrap();
        let rb = fs::File::open(root.join(".claude/rules/rb.md")).unwrap();
        rb.set_modified(when).unwrap();
        (dir, engine)
    }

    /// An hour from now: every stamp of the tree is settled.
    fn later() -> SystemTime {
        SystemTime::now() + Duration::from_secs(3600)
    }

    /// What a new process restores from `state`: the loaded set and user
    /// tiers, and, if `kept`, the scan records, through their stored form.
    fn restored(state: &DiscoveryState, engine: &Engine, kept: bool) -> DiscoveryState {
        let (loaded, tiers) = state.export();
        let mut new = DiscoveryState::import(&loaded, &tiers);
        if kept {
            let json = serde_json::to_string(&state.export_scans(later())).unwrap();
            let scans: Vec<StoredScan> = serde_json::from_str(&json).unwrap();
            new.import_scans(scans, engine.sources(), engine.root());
        }
        new
    }

    /// Loaded rows in full; skipped rows by file and reason (the detail of
    /// an `already_loaded` row names how the rule first came, which a
    /// restored state does not know).
    fn rows(discovery: &Discovery) -> (Vec<String>, Vec<String>) {
        (
            discovery
                .loaded
                .iter()
                .map(|l| format!("{} {:?} {} {:?}", l.file, l.attribution, l.bytes, l.content))
                .collect(),
            discovery
                .skipped
                .iter()
                .map(|s| format!("{} {:?}", s.file, s.reason))
                .collect(),
        )
    }

    fn touch(engine: &Engine, state: &mut DiscoveryState, path: &str) -> (Discovery, usize) {
        let reads = crate::rule::READS.with(std::cell::Cell::get);
        let discovery = engine.discover(state, Utf8Path::new(path), engine.root());
        (
            discovery,
            crate::rule::READS.with(std::cell::Cell::get) - reads,
        )
    }

    /// A state restored with the records a process kept decides what that
    /// process decides next, and injects what a state restored without
    /// them injects, through edits of rules, new rules and removed ones;
    /// where nothing changed it reads no rule file.
    #[test]
    fn a_restored_state_decides_what_the_process_that_kept_it_decides() {
        let (dir, engine) = tree();
        let root = dir.path().to_owned();
        type Edit = fn(&Path);
        let steps: [(&str, Option<Edit>, bool); 9] = [
            ("src/ui/README.md", None, false),
            ("src/ui/Card.tsx", None, false),
            ("src/ui/Card.tsx", None, true),
            ("src/ui/Footer.tsx", None, false),
            (
                "src/ui/List.tsx",
                Some(|root| {
                    // A scoped rule's scope widened (a different size).
                    fs::write(
                        root.join(".claude/rules/py.md"),
                        "---\npaths: [\"**/*.py\", \"**/*.tsx\"]\n---\nPython.\n",
                    )
                    .unwrap();
                    set_age(&root.join(".claude/rules/py.md"), 1800);
                }),
                false,
            ),
            (
                "src/ui/forms/Input.tsx",
                Some(|root| {
                    // A new directory with a rule, below a scanned one.
                    fs::create_dir_all(root.join("src/ui/forms")).unwrap();
                    fs::write(root.join("src/ui/forms/AGENTS.md"), "Forms.\n").unwrap();
                    set_age(&root.join("src/ui/forms/AGENTS.md"), 1700);
                    set_age(&root.join("src/ui/forms"), 1700);
                    set_age(&root.join("src/ui"), 1700);
                }),
                false,
            ),
            (
                "src/ui/Menu.tsx",
                Some(|root| {
                    // A new rule in a scanned directory.
                    fs::write(root.join("src/ui/AGENTS.md"), "UI agents.\n").unwrap();
                    set_age(&root.join("src/ui/AGENTS.md"), 1600);
                    set_age(&root.join("src/ui"), 1600);
                }),
                false,
            ),
            (
                "src/ui/Menu.tsx",
                Some(|root| {
                    // A rule's text changed, its size and time with it.
                    fs::write(root.join("src/ui/CLAUDE.md"), "UI, changed.\n").unwrap();
                    set_age(&root.join("src/ui/CLAUDE.md"), 1500);
                }),
                false,
            ),
            ("src/ui/Tab.tsx", None, true),
        ];
        let mut process = DiscoveryState::default();
        for (path, edit, no_reads) in steps {
            if let Some(edit) = edit {
                edit(&root);
            }
            let mut kept = restored(&process, &engine, true);
            let mut bare = restored(&process, &engine, false);
            let (from_kept, reads) = touch(&engine, &mut kept, path);
            let (from_process, _) = touch(&engine, &mut process, path);
            let (from_bare, _) = touch(&engine, &mut bare, path);
            assert_eq!(rows(&from_kept), rows(&from_process), "{path}");
            assert_eq!(rows(&from_kept).0, rows(&from_bare).0, "{path}");
            if no_reads {
                assert_eq!(reads, 0, "{path}: rules were read again");
            }
        }
        assert!(!process.scanned.is_empty());
    }

    /// What the engine skips from a kept record: the directory's candidates
    /// are not probed again, the replayed scoped rules are not read.
    #[test]
    fn kept_records_spare_the_probes_and_the_reads() {
        let (_dir, engine) = tree();
        let mut process = DiscoveryState::default();
        touch(&engine, &mut process, "src/ui/Card.tsx");
        let (_, reads) = touch(
            &engine,
            &mut restored(&process, &engine, true),
            "src/ui/List.tsx",
        );
        assert_eq!(reads, 0);
        // Without the records, the scoped rules that missed are read again.
        let (_, reads) = touch(
            &engine,
            &mut restored(&process, &engine, false),
            "src/ui/List.tsx",
        );
        assert_eq!(reads, 4, "py.md, rb.md, go.md and footer.md");
    }

    /// A record whose directory or files changed within the margin before
    /// the snapshot is not kept; one older is.
    #[test]
    fn a_record_of_a_just_changed_directory_is_not_kept() {
        let (dir, engine) = tree();
        let mut process = DiscoveryState::default();
        touch(&engine, &mut process, "src/ui/Card.tsx");
        let now = SystemTime::now();
        let dirs = |scans: &[StoredScan]| -> Vec<String> {
            scans.iter().map(|s| s.dir.clone()).collect::<Vec<_>>()
        };
        let all = dirs(&process.export_scans(now));
        assert_eq!(all.len(), 3, "{all:?}");
        // The tree is an hour old; now a file in src/ui changes.
        fs::write(dir.path().join("src/ui/CLAUDE.md"), "UI, changed.\n").unwrap();
        let modified = fs::metadata(dir.path().join("src/ui/CLAUDE.md"))
            .unwrap()
            .modified()
            .unwrap();
        touch(&engine, &mut process, "src/ui/Card.tsx");
        let ui = format!("{}/src/ui", engine.root());
        let mut scanned_at = |at: SystemTime| {
            process.scanned.get_mut(ui.as_str()).unwrap().at = Some(at);
            dirs(&process.export_scans(later()))
        };
        // Scanned a second after the change (times set from the file's, so
        // that a slow machine cannot move the test across the margin).
        let kept = scanned_at(modified + Duration::from_secs(1));
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(kept.iter().all(|d| !d.ends_with("/src/ui")), "{kept:?}");
        // Three seconds after it, kept.
        assert_eq!(scanned_at(modified + Duration::from_secs(3)), all);
        // One tick under the margin, not; at the margin, kept.
        let margin = super::SETTLE;
        assert_eq!(
            scanned_at(modified + margin - Duration::from_nanos(1)).len(),
            2
        );
        assert_eq!(scanned_at(modified + margin).len(), 3);
        // Whatever the scan's time, a snapshot taken within the margin of
        // the change does not keep it either.
        let _ = scanned_at(modified + Duration::from_secs(60));
        let early = dirs(&process.export_scans(modified + Duration::from_secs(1)));
        assert_eq!(early.len(), 2, "{early:?}");
        // And the record a real scan just made is not kept.
        let mut fresh = DiscoveryState::default();
        touch(&engine, &mut fresh, "src/ui/Card.tsx");
        assert_eq!(dirs(&fresh.export_scans(later())).len(), 2);
    }

    /// At most [`MAX_KEPT_SCANS`] records are kept: the ones used last.
    #[test]
    fn only_the_records_used_last_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for i in 0..MAX_KEPT_SCANS + 6 {
            fs::create_dir_all(root.join(format!("d{i:03}"))).unwrap();
        }
        age_tree(root, 3600);
        let engine = Engine::new(root).unwrap();
        let mut process = DiscoveryState::default();
        for i in 0..MAX_KEPT_SCANS + 6 {
            touch(&engine, &mut process, &format!("d{i:03}/a.rs"));
        }
        // The root was used by every walk; the first directories not since.
        touch(&engine, &mut process, "d000/b.rs");
        let kept: Vec<String> = process
            .export_scans(later())
            .into_iter()
            .map(|s| s.dir)
            .collect();
        assert_eq!(kept.len(), MAX_KEPT_SCANS);
        let name = |i: usize| format!("{}/d{i:03}", engine.root());
        assert!(kept.contains(&engine.root().to_string()));
        assert!(kept.contains(&name(0)), "used last");
        // Seventy-one records: the root, d000, and d008 to d069 stay.
        assert!(!kept.contains(&name(1)) && !kept.contains(&name(7)));
        assert!(kept.contains(&name(8)) && kept.contains(&name(MAX_KEPT_SCANS + 5)));
        // Sorted by directory, so that a snapshot does not churn.
        let mut sorted = kept.clone();
        sorted.sort();
        assert_eq!(kept, sorted);
    }

    /// A record of more stamps than [`MAX_KEPT_SCAN_STAMPS`] is not kept.
    #[test]
    fn a_record_of_too_many_stamps_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".claude/rules")).unwrap();
        fs::create_dir_all(root.join("big/.claude/rules")).unwrap();
        // The root's record stamps `.claude`, `.claude/rules` and its rules.
        for i in 0..MAX_KEPT_SCAN_STAMPS - 2 {
            let rule = "---\npaths: [\"**/*.py\"]\n---\nPython.\n";
            fs::write(root.join(format!(".claude/rules/r{i:03}.md")), rule).unwrap();
            fs::write(root.join(format!("big/.claude/rules/r{i:03}.md")), rule).unwrap();
        }
        fs::write(root.join("big/.claude/rules/one-more.md"), "More.\n").unwrap();
        age_tree(root, 3600);
        let engine = Engine::new(root).unwrap();
        let mut process = DiscoveryState::default();
        touch(&engine, &mut process, "big/a.rs");
        let records = |state: &DiscoveryState| {
            state
                .scanned
                .iter()
                .map(|(dir, record)| (dir.to_string(), record.stamps.len()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let all = records(&process);
        assert_eq!(all[engine.root().as_str()], MAX_KEPT_SCAN_STAMPS);
        assert_eq!(
            all[&format!("{}/big", engine.root())],
            MAX_KEPT_SCAN_STAMPS + 1
        );
        let kept: Vec<String> = process
            .export_scans(later())
            .into_iter()
            .map(|s| s.dir)
            .collect();
        assert_eq!(kept, [engine.root().to_string()]);
    }

    /// Scopes are kept while [`MAX_KEPT_SCOPE_BYTES`] last; a record whose
    /// scopes did not all fit is kept without them, and those rules are read
    /// by the next process.
    #[test]
    fn scopes_are_kept_within_their_budget() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".claude/rules")).unwrap();
        // Two patterns of 1,000 bytes each per rule.
        let pattern = |i: usize, p: usize| format!("{i:02}{p}{}/**", "x".repeat(995));
        // 16 KiB hold the scopes of eight such rules.
        let rules = 10;
        for i in 0..rules {
            let rule = format!(
                "---\npaths: [\"{}\", \"{}\"]\n---\nDeep.\n",
                pattern(i, 0),
                pattern(i, 1)
            );
            fs::write(root.join(format!(".claude/rules/r{i:02}.md")), rule).unwrap();
        }
        age_tree(root, 3600);
        let engine = Engine::new(root).unwrap();
        let mut process = DiscoveryState::default();
        touch(&engine, &mut process, "a.rs");
        let scans = process.export_scans(later());
        assert_eq!(scans.len(), 1);
        let kept: Vec<usize> = scans[0]
            .replay
            .iter()
            .filter_map(|item| item.3.as_ref().map(|p| p.iter().map(String::len).sum()))
            .collect();
        assert_eq!(kept.len(), 8, "{kept:?}");
        assert!(kept.iter().sum::<usize>() <= MAX_KEPT_SCOPE_BYTES);
        assert_eq!(scans[0].replay.len(), rules);
        let (_, reads) = touch(&engine, &mut restored(&process, &engine, true), "b.rs");
        assert_eq!(reads, 2);
    }

    /// A kept scope that a touch matches reads the rule: its body is
    /// injected whole, as from a state that kept nothing.
    #[test]
    fn a_kept_scope_that_matches_reads_its_rule() {
        let (_dir, engine) = tree();
        let mut process = DiscoveryState::default();
        touch(&engine, &mut process, "src/ui/Card.tsx");
        let mut kept = restored(&process, &engine, true);
        let (found, reads) = touch(&engine, &mut kept, "tools/run.py");
        let (bare, _) = touch(
            &engine,
            &mut restored(&process, &engine, false),
            "tools/run.py",
        );
        assert_eq!(rows(&found), rows(&bare));
        assert_eq!(found.loaded.len(), 1);
        assert_eq!(found.loaded[0].content, "Python.\n");
        assert_eq!(reads, 1, "py.md, read once its kept scope matched");
    }

    /// A stored record that names a source the engine does not have, or a
    /// stamp it does not hold, is dropped; the others are taken.
    #[test]
    fn a_record_naming_what_the_engine_lacks_is_dropped() {
        let (_dir, engine) = tree();
        let root = engine.root();
        let json = |source: usize, index: usize| {
            format!(
                r#"[{{"dir":"{root}","stamp":[4096,1],"stamps":[["CLAUDE.md",1,1]],"open":true,"replay":[[{source},{index},null,null]],"used":3}},
                    {{"dir":"{root}/src","stamp":[4096,1],"used":2}}]"#
            )
        };
        for (source, index, taken) in [(1, 0, 2), (2, 0, 1), (0, 1, 1), (0, 0, 2)] {
            let scans: Vec<StoredScan> = serde_json::from_str(&json(source, index)).unwrap();
            let mut state = DiscoveryState::default();
            state.import_scans(scans, engine.sources(), root);
            assert_eq!(state.scanned.len(), taken, "{source} {index}");
            // Numbered again in their order of use, after this state's walks.
            assert_eq!(state.walks, taken as u64);
            assert_eq!(state.scanned[&*format!("{root}/src")].used, 1);
        }
    }

    /// Records are taken back in their order of use, numbered after the
    /// walks of the state that takes them, whatever numbers a state file
    /// holds; the next walk counts on without overflowing.
    #[test]
    fn taken_records_are_numbered_in_their_order_of_use() {
        let (_dir, engine) = tree();
        let root = engine.root();
        let json = format!(
            r#"[{{"dir":"{root}","stamp":[4096,1],"used":18446744073709551615}},
                {{"dir":"{root}/src","stamp":[4096,1],"used":7}},
                {{"dir":"{root}/docs","stamp":[4096,1]}}]"#
        );
        let scans: Vec<StoredScan> = serde_json::from_str(&json).unwrap();
        let mut state = DiscoveryState {
            walks: 5,
            ..DiscoveryState::default()
        };
        state.import_scans(scans, engine.sources(), root);
        let used = |dir: &str| state.scanned[dir].used;
        assert_eq!(
            (
                used(&format!("{root}/docs")),
                used(&format!("{root}/src")),
                used(root.as_str())
            ),
            (6, 7, 8)
        );
        touch(&engine, &mut state, "a.rs");
        assert_eq!(state.walks, 9);
    }

    /// A stored record whose directory or stamps lie outside the project
    /// root and the user folders the state knows (a state written by hand:
    /// a scan never stamps there) is dropped.
    #[test]
    fn a_record_outside_the_root_and_the_user_folders_is_dropped() {
        let (_dir, engine) = tree();
        let root = engine.root();
        let import = |dir: &str, stamp: &str, tiers: &[(String, String)]| {
            let json = format!(r#"[{{"dir":"{dir}","stamp":[1,1],"stamps":[["{stamp}",1,1]]}}]"#);
            let scans: Vec<StoredScan> = serde_json::from_str(&json).unwrap();
            let mut state = DiscoveryState::import(&[], tiers);
            state.import_scans(scans, engine.sources(), root);
            state.scanned.len()
        };
        let tier = [("claude".to_owned(), "/home/me/.claude".to_owned())];
        assert_eq!(import(root.as_str(), "CLAUDE.md", &[]), 1);
        assert_eq!(
            import(&format!("{root}/src"), &format!("{root}/shared/x.md"), &[]),
            1
        );
        assert_eq!(import("/etc", "passwd", &[]), 0);
        assert_eq!(import(root.as_str(), "/etc/passwd", &[]), 0);
        assert_eq!(import(root.as_str(), "../outside.md", &[]), 0);
        assert_eq!(import(root.as_str(), "src/../../outside.md", &[]), 0);
        // A name that starts with two dots is no `..`.
        assert_eq!(import(root.as_str(), "..cache/x.md", &[]), 1);
        assert_eq!(import(&format!("{root}-sibling"), "CLAUDE.md", &[]), 0);
        assert_eq!(import("/home/me/.claude", "CLAUDE.md", &[]), 0);
        assert_eq!(import("/home/me/.claude", "CLAUDE.md", &tier), 1);
        assert_eq!(
            import("/home/me/.claude", &format!("{root}/CLAUDE.md"), &tier),
            0
        );
    }

    /// A state written by hand is taken within the export's bounds: the
    /// first [`MAX_KEPT_SCANS`] records, none of more stamps than
    /// [`MAX_KEPT_SCAN_STAMPS`] or of more replayed candidates than stamps.
    #[test]
    fn a_stored_state_is_taken_within_the_bounds_of_the_export() {
        let (_dir, engine) = tree();
        let record = |i: usize, stamps: usize, replays: usize| {
            let stamps: Vec<String> = (0..stamps).map(|s| format!(r#"["f{s}",1,1]"#)).collect();
            let replays: Vec<String> = (0..replays).map(|_| "[0,0,null,null]".to_owned()).collect();
            format!(
                r#"{{"dir":"/d{i}","stamp":[1,1],"stamps":[{}],"replay":[{}]}}"#,
                stamps.join(","),
                replays.join(",")
            )
        };
        let import = |records: Vec<String>| {
            let scans: Vec<StoredScan> =
                serde_json::from_str(&format!("[{}]", records.join(","))).unwrap();
            let mut state = DiscoveryState::default();
            state.import_scans(scans, engine.sources(), "/".into());
            state.scanned.len()
        };
        assert_eq!(
            import((0..MAX_KEPT_SCANS + 6).map(|i| record(i, 1, 0)).collect()),
            MAX_KEPT_SCANS
        );
        assert_eq!(import(vec![record(0, MAX_KEPT_SCAN_STAMPS, 1)]), 1);
        assert_eq!(import(vec![record(0, MAX_KEPT_SCAN_STAMPS + 1, 1)]), 0);
        assert_eq!(import(vec![record(0, 2, 2)]), 1);
        assert_eq!(import(vec![record(0, 2, 3)]), 0);
    }

    /// A stamp below the record's directory is stored relative to it, any
    /// other as it is, and both come back whole.
    #[test]
    fn stamps_are_stored_relative_to_their_directory() {
        assert_eq!(
            super::relative("/r/a", Utf8Path::new("/r/a/CLAUDE.md")),
            "CLAUDE.md"
        );
        assert_eq!(
            super::relative("/r/a", Utf8Path::new("/r/a/.claude/rules")),
            ".claude/rules"
        );
        assert_eq!(
            super::relative("/r/a", Utf8Path::new("/r/ab/CLAUDE.md")),
            "/r/ab/CLAUDE.md"
        );
        assert_eq!(super::relative("/r/a", Utf8Path::new("/r/a")), "/r/a");
        assert_eq!(
            super::relative("/r/a", Utf8Path::new("/s/CLAUDE.md")),
            "/s/CLAUDE.md"
        );
        let stored: StoredScan = serde_json::from_str(
            r#"{"dir":"/r/a","stamp":[1,2],"stamps":[["CLAUDE.md",3,4],["/s/x.md",5,6]]}"#,
        )
        .unwrap();
        let (dir, record, _) = super::scan_record(stored, 1).unwrap();
        assert_eq!(dir, "/r/a");
        let paths: Vec<&str> = record.stamps.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["/r/a/CLAUDE.md", "/s/x.md"]);
        assert_eq!(record.stamps[1].1.len, 5);
        assert!(!record.open && record.replay.is_empty());
    }

    /// A session keeps its records in its snapshot only when its
    /// configuration asks, and takes them back only under the same key, on
    /// an engine of the same layout.
    #[test]
    fn a_session_takes_back_its_records_only_under_the_same_layout() {
        use crate::{Session, SessionConfig, SessionSnapshot};
        let (_dir, engine) = tree();
        let engine = Arc::new(engine);
        let root = engine.root().to_owned();
        let keyed = SessionConfig::new().with_scan_records("claude-code native=false");
        let mut first = Session::new(Arc::clone(&engine), keyed.clone());
        first.touch("src/ui/Card.tsx".into(), &root);
        let stored = serde_json::to_value(first.snapshot()).unwrap();
        assert_eq!(stored["scans"]["records"].as_array().unwrap().len(), 3);
        let plain = Session::new(Arc::clone(&engine), SessionConfig::new());
        let json = serde_json::to_value(plain.snapshot()).unwrap();
        assert!(json.get("scans").is_none(), "{json}");

        let restore = |engine: &Arc<Engine>, config: &SessionConfig| {
            let snapshot: SessionSnapshot = serde_json::from_value(stored.clone()).unwrap();
            Session::restore(Arc::clone(engine), config.clone(), snapshot)
                .unwrap()
                .state()
                .scanned
                .len()
        };
        assert_eq!(restore(&engine, &keyed), 3);
        assert_eq!(restore(&engine, &SessionConfig::new()), 0);
        let other_key = SessionConfig::new().with_scan_records("codex native=false");
        assert_eq!(restore(&engine, &other_key), 0);
        // Another convention, or the same ones in another order.
        let swapped: [Arc<dyn RuleSource>; 2] = [
            Arc::new(AgentsSource::default()),
            Arc::new(ClaudeSource::default()),
        ];
        let other = Arc::new(Engine::new(engine.root()).unwrap().with_sources(swapped));
        assert_eq!(restore(&other, &keyed), 0);
        let capped = Engine::new(engine.root()).unwrap().with_max_rule_bytes(100);
        let capped = Arc::new(capped.with_sources(engine.sources().iter().cloned()));
        assert_eq!(restore(&capped, &keyed), 0);
        let same = Engine::new(engine.root())
            .unwrap()
            .with_sources(engine.sources().iter().cloned());
        assert_eq!(restore(&Arc::new(same), &keyed), 3);
    }
}
