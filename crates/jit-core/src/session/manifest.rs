//! The context manifest: every injected block with its hash, when it came, when it last mattered, why it left; context debt.

use serde::{Deserialize, Serialize};

use crate::rule::Attribution;
use crate::session::events::vocabulary;

/// A resident block is context debt from this size up (by default).
pub const DEFAULT_DEBT_MIN_BYTES: u64 = 16 * 1024;

/// A resident block is context debt after this many steps without relevance
/// (by default).
pub const DEFAULT_DEBT_IDLE_STEPS: u64 = 10;

vocabulary! {
    /// Why a block left the prompt.
    #[non_exhaustive]
    pub enum LeaveReason {
        /// The file changed on disk and its new text replaced this one.
        ReplacedByNewerRead = "replaced_by_newer_read",
        /// The context was compacted or cleared and the session re-armed.
        Compacted = "compacted",
        /// The file changed on disk and its new text no longer fits the budget:
        /// only a summary of it stays, or nothing when not even a one-line
        /// pointer fits.
        Budget = "budget",
    }
    unknown:
    /// A reason this version does not know (a log written by a newer one).
    Unknown
}

/// How much of a rule a block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockForm {
    /// The rule's whole text.
    Full,
    /// Its headings and a note saying what was cut (it did not fit the budget).
    Summary,
}

/// One block that entered the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ManifestEntry {
    /// The rule file, root-relative inside the project, absolute outside.
    pub file: String,
    /// Hex FNV-1a 64 of the rule's full text, to tell versions apart.
    pub hash: String,
    /// Bytes the block holds.
    pub bytes: u64,
    /// Bytes of the rule's full text (larger than `bytes` for a summary).
    pub source_bytes: u64,
    /// Full text or summary.
    pub form: BlockForm,
    /// Why it was injected. A startup rule replaced by a newer read keeps
    /// `session_start`: it is still unconditional for the session.
    pub attribution: Attribution,
    /// The step it came in (0 is startup).
    pub introduced_step: u64,
    /// The last step whose touched path was in the rule's directory.
    pub last_relevant_step: u64,
    /// The step it left, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_step: Option<u64>,
    /// Why it left, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_reason: Option<LeaveReason>,
}

impl ManifestEntry {
    /// Whether the block is still in the prompt.
    pub fn is_resident(&self) -> bool {
        self.left_step.is_none()
    }
}

/// A large block resident long after it last mattered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DebtEntry {
    /// The rule file.
    pub file: String,
    /// Bytes it holds in the prompt.
    pub bytes: u64,
    /// The step it came in.
    pub introduced_step: u64,
    /// The last step it was relevant.
    pub last_relevant_step: u64,
    /// Steps since then.
    pub idle_steps: u64,
}

/// Every block a session injected, resident or gone, in order of arrival.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, LeaveReason, Session, SessionConfig};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), SessionConfig::new());
/// let root = session.engine().root().to_owned();
/// session.touch("src/ui/Footer.tsx".into(), &root);
///
/// let entry = session.manifest().resident("src/ui/CLAUDE.md").ok_or("not resident")?;
/// assert_eq!((entry.introduced_step, entry.bytes), (1, 17));
/// assert_eq!(session.manifest().resident_bytes(), 17);
///
/// // After a compaction the entry stays, with why its block left.
/// session.rearm();
/// assert_eq!(session.manifest().entries()[0].left_reason, Some(LeaveReason::Compacted));
/// assert_eq!(session.manifest().resident_bytes(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct Manifest {
    entries: Vec<ManifestEntry>,
}

impl Manifest {
    /// Every entry, in order of arrival.
    pub fn entries(&self) -> &[ManifestEntry] {
        &self.entries
    }

    /// The resident entry of `file`.
    pub fn resident(&self, file: &str) -> Option<&ManifestEntry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.file == file && e.is_resident())
    }

    /// Bytes of all resident blocks.
    pub fn resident_bytes(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.is_resident())
            .map(|e| e.bytes)
            .sum()
    }

    /// Large blocks (at least `min_bytes`) resident at least `min_idle_steps`
    /// after their last relevance, as of step `now`, largest first.
    pub fn debt(&self, now: u64, min_bytes: u64, min_idle_steps: u64) -> Vec<DebtEntry> {
        let mut out: Vec<DebtEntry> = self
            .entries
            .iter()
            .filter(|e| e.is_resident() && e.bytes >= min_bytes)
            .filter_map(|e| {
                let idle = now.saturating_sub(e.last_relevant_step);
                (idle >= min_idle_steps).then(|| DebtEntry {
                    file: e.file.clone(),
                    bytes: e.bytes,
                    introduced_step: e.introduced_step,
                    last_relevant_step: e.last_relevant_step,
                    idle_steps: idle,
                })
            })
            .collect();
        sort_debt(&mut out);
        out
    }

    /// A manifest holding `entries` (restored from a snapshot).
    pub(crate) fn from_entries(entries: Vec<ManifestEntry>) -> Self {
        Manifest { entries }
    }

    pub(crate) fn push(&mut self, entry: ManifestEntry) {
        self.entries.push(entry);
    }

    /// Marks the resident block of `file` as gone; returns its entry.
    pub(crate) fn leave(
        &mut self,
        file: &str,
        step: u64,
        reason: LeaveReason,
    ) -> Option<&ManifestEntry> {
        let entry = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| e.file == file && e.is_resident())?;
        entry.left_step = Some(step);
        entry.left_reason = Some(reason);
        Some(entry)
    }

    /// Records that `trigger` touched the directories of resident rules;
    /// returns the files it was relevant to.
    pub(crate) fn touch(&mut self, trigger: &str, step: u64) -> Vec<String> {
        let mut relevant = Vec::new();
        for entry in self.entries.iter_mut().filter(|e| e.left_step.is_none()) {
            if is_relevant(&entry.file, trigger) {
                entry.last_relevant_step = step;
                relevant.push(entry.file.clone());
            }
        }
        relevant
    }
}

pub(crate) fn sort_debt(entries: &mut [DebtEntry]) {
    entries.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.file.cmp(&b.file)));
}

/// The directory a rule file governs: its folder, cut at the first hidden
/// segment (`src/.claude/rules/ui.md` governs `src`). `None` for a file
/// outside the project (user and managed rules), which governs everything.
fn rule_home(file: &str) -> Option<&str> {
    if file.starts_with('/') {
        return None;
    }
    let mut end = 0;
    for (at, segment) in segment_starts(file) {
        if segment.starts_with('.') || at + segment.len() == file.len() {
            break;
        }
        end = at + segment.len();
    }
    Some(&file[..end])
}

fn segment_starts(path: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    path.split('/').map(move |s| {
        let start = at;
        at += s.len() + 1;
        (start, s)
    })
}

/// Whether a touch of `trigger` is a use of the rule in `file`.
pub(crate) fn is_relevant(file: &str, trigger: &str) -> bool {
    match rule_home(file) {
        None => true,
        Some("") => !trigger.starts_with('/'),
        Some(home) => {
            trigger == home
                || trigger
                    .strip_prefix(home)
                    .is_some_and(|rest| rest.starts_with('/'))
        }
    }
}

/// Hex FNV-1a 64 of `text`: a cheap, stable fingerprint that tells two
/// versions of a rule apart (not a security hash).
pub(crate) fn fnv1a(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // `format!("{hash:016x}")`, without the formatting machinery.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    (0..16)
        .rev()
        .map(|digit| char::from(HEX[((hash >> (digit * 4)) & 0xf) as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_home_cuts_at_hidden_segments() {
        assert_eq!(rule_home("CLAUDE.md"), Some(""));
        assert_eq!(rule_home("src/ui/CLAUDE.md"), Some("src/ui"));
        assert_eq!(rule_home("src/.claude/rules/a/b.md"), Some("src"));
        assert_eq!(rule_home(".claude/CLAUDE.md"), Some(""));
        assert_eq!(rule_home("/home/u/.claude/CLAUDE.md"), None);
    }

    #[test]
    fn relevance_is_by_path_segment() {
        assert!(is_relevant("src/ui/CLAUDE.md", "src/ui/a.tsx"));
        assert!(is_relevant("src/ui/CLAUDE.md", "src/ui"));
        assert!(!is_relevant("src/ui/CLAUDE.md", "src/uix/a.tsx"));
        assert!(is_relevant("CLAUDE.md", "docs/a.md"));
        assert!(!is_relevant("CLAUDE.md", "/etc/passwd"));
        assert!(is_relevant("/home/u/.claude/CLAUDE.md", "x"));
    }

    #[test]
    fn fnv1a_of_known_inputs() {
        assert_eq!(fnv1a(""), "cbf29ce484222325");
        assert_eq!(fnv1a("a"), "af63dc4c8601ec8c");
        // Leading zeros are written: always 16 digits.
        let short = (0..10_000)
            .map(|n| n.to_string())
            .find(|text| fnv1a(text).starts_with('0'))
            .expect("some short text hashes to a leading zero");
        assert_eq!(fnv1a(&short).len(), 16);
    }
}
