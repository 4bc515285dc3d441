//! Hook state on disk: one file per agent context under the state directory, read and written in place under an exclusive lock.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use camino::{Utf8Path, Utf8PathBuf};
use jit_core::SessionSnapshot;
use serde::{Deserialize, Serialize};

use super::AgentKind;

/// The version of the state file's layout; another version is a fresh state.
pub(super) const STATE_VERSION: u32 = 1;

/// State files untouched this long are pruned at session start.
pub(super) const PRUNE_AFTER: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How long a hook waits for another hook process of the same agent context
/// to finish before giving up (without output) rather than stall the agent.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The most a state file may hold; anything larger is not ours.
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// Where the hook keeps its state: `$JIT_STATE_DIR`, else
/// `$XDG_STATE_HOME/jit`, else `~/.local/state/jit`. Named only: see
/// [`private_state_dir`] before writing there.
pub(crate) fn state_dir() -> anyhow::Result<Utf8PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = if let Some(dir) = var("JIT_STATE_DIR") {
        PathBuf::from(dir)
    } else if let Some(xdg) = var("XDG_STATE_HOME") {
        PathBuf::from(xdg).join("jit")
    } else if let Some(home) = var("HOME") {
        PathBuf::from(home).join(".local/state/jit")
    } else {
        bail!("no state directory: set JIT_STATE_DIR, XDG_STATE_HOME or HOME");
    };
    Utf8PathBuf::from_path_buf(dir)
        .map_err(|p| anyhow::anyhow!("the state directory {} is not UTF-8", p.display()))
}

/// Creates the state directory `dir` when missing (mode `0700`, with its
/// missing parents) and checks it before anything is written there: a
/// directory the user owns, which not every user may write in (unless its
/// sticky bit is set). It may be a link the user owns (a state directory
/// kept elsewhere), followed to a directory that passes the same checks;
/// a link of another user (planted in a shared `/tmp`) is refused. Only
/// the directory itself is checked, not the path to it: `$XDG_STATE_HOME`
/// under a home reached through a link is as good as any.
///
/// A refusal names the directory and why; the hook then writes nothing
/// there and says so on stderr.
pub(crate) fn private_state_dir(dir: &Utf8Path) -> anyhow::Result<()> {
    jit_core::private_dir(dir.as_std_path(), jit_core::DirLink::Own).map_err(|err| {
        anyhow::anyhow!(
            "the state directory {dir} cannot be used: {err}; jit writes nothing there (fix it, or set JIT_STATE_DIR to a directory of your own)"
        )
    })
}

/// The files of one agent context (an agent's session, or one sub-agent of it).
#[derive(Debug, Clone)]
pub(super) struct ContextFiles {
    /// The session snapshot.
    pub state: Utf8PathBuf,
    /// Held exclusively while a hook reads and writes the state.
    pub lock: Utf8PathBuf,
    /// The session's event log (shared by the session and its sub-agents).
    pub events: Utf8PathBuf,
}

impl ContextFiles {
    /// The files of `agent`'s session `session_id`, or of its sub-agent
    /// `agent_id`, under `dir`.
    pub(super) fn new(
        dir: &Utf8Path,
        agent: AgentKind,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> Self {
        let session = format!("{}-{}", agent.name(), file_safe(session_id));
        let context = match agent_id {
            Some(id) => format!("{session}.{}", file_safe(id)),
            None => session.clone(),
        };
        ContextFiles {
            state: dir.join(format!("{context}.state.json")),
            lock: dir.join(format!("{context}.lock")),
            events: dir.join(format!("{session}.events.jsonl")),
        }
    }
}

/// An id as a file name: letters, digits, `-`, `_` and `.` kept (no leading
/// `.`), anything else as `_`, at most 64 characters, and a hash of the
/// whole id when anything was changed, so distinct ids never share a file.
fn file_safe(id: &str) -> String {
    let mut safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if safe.starts_with('.') {
        safe.replace_range(0..1, "_");
    }
    if safe != id {
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        safe.push_str(&format!("-{hash:016x}"));
    }
    safe
}

/// What one agent context remembers between hook calls.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct StoredState {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// The agent (`claude-code`, `codex`, `gemini`).
    pub agent: String,
    /// The project root the session ran on (canonical).
    pub root: String,
    /// Whether the context's startup load has run (a context first seen
    /// on a tool call, or a sub-agent, runs it then).
    #[serde(default)]
    pub started: bool,
    /// The session.
    pub session: SessionSnapshot,
    /// The conventions found in the repository at the context's start,
    /// kept so later calls need not look for them again (empty: not
    /// recorded, look again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conventions: Vec<String>,
}

/// An exclusive hold on one agent context's state; released on drop.
#[derive(Debug)]
pub(super) struct Locked {
    file: File,
}

impl Drop for Locked {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock as well; unlocking first
        // just says so.
        let _ = self.file.unlock();
    }
}

/// Takes the context's lock, creating the state directory when needed.
/// Waits for other hook processes of the same context, at most
/// [`LOCK_WAIT`].
pub(super) fn lock(files: &ContextFiles) -> anyhow::Result<Locked> {
    if let Some(dir) = files.lock.parent() {
        private_state_dir(dir)?;
    }
    // Created `0600`, and no link followed: a lock file planted as a link
    // to another file must not create or open that file.
    let file = jit_core::open_private_append(files.lock.as_std_path())
        .with_context(|| format!("cannot open the lock file {}", files.lock))?;
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Locked { file }),
            Err(fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(fs::TryLockError::WouldBlock) => bail!(
                "another jit hook held {} for over {} s; gave up rather than stall the agent",
                files.lock,
                LOCK_WAIT.as_secs()
            ),
            Err(fs::TryLockError::Error(err)) => {
                return Err(err).with_context(|| format!("cannot lock {}", files.lock));
            }
        }
    }
}

/// What loading a state file found.
#[derive(Debug)]
pub(super) enum Loaded {
    /// No state yet: a new agent context.
    Missing,
    /// The stored state.
    Found(Box<StoredState>),
    /// A file that is not a state of this version (corrupt, truncated,
    /// foreign, another version): the caller starts afresh and says why.
    Unusable(String),
}

/// Reads the context's state. Only an I/O failure other than "not found"
/// is an error; a file that cannot be understood is [`Loaded::Unusable`].
pub(super) fn load(files: &ContextFiles, _lock: &Locked) -> anyhow::Result<Loaded> {
    let (file, len) = match open_regular(files.state.as_std_path()) {
        Ok(Some(opened)) => opened,
        Ok(None) => return Ok(Loaded::Missing),
        Err(err) => return Ok(Loaded::Unusable(format!("{err:#}"))),
    };
    // One read for a file of the size its metadata gave.
    let bytes = jit_core::read_capped(file, len, MAX_STATE_BYTES)
        .with_context(|| format!("cannot read {}", files.state))?;
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return Ok(Loaded::Unusable(format!(
            "{} is over {MAX_STATE_BYTES} bytes, larger than any state this writes",
            files.state
        )));
    }
    match serde_json::from_slice::<StoredState>(&bytes) {
        Ok(state) if state.version == STATE_VERSION => Ok(Loaded::Found(Box::new(state))),
        Ok(state) => Ok(Loaded::Unusable(format!(
            "{} is state version {}, not {STATE_VERSION}",
            files.state, state.version
        ))),
        Err(err) => Ok(Loaded::Unusable(format!(
            "{} is not a jit hook state: {err}",
            files.state
        ))),
    }
}

/// Opens `path` for reading if it is a regular file, with its length:
/// `None` when it does not exist, an error for anything else (a FIFO, a directory, a link),
/// judged on the open descriptor so a FIFO swapped in cannot stall it.
fn open_regular(path: &Path) -> anyhow::Result<Option<(File, u64)>> {
    match jit_core::open_regular(path) {
        Ok((file, meta)) => Ok(Some((file, meta.len()))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err).with_context(|| format!("cannot open {}", path.display())),
    }
}

/// Moves an unusable state file aside (`.corrupt`), so it can be looked at
/// and is not read again.
pub(super) fn set_aside(files: &ContextFiles) {
    let mut aside = files.state.clone().into_string();
    aside.push_str(".corrupt");
    let _ = fs::rename(&files.state, aside);
}

/// Writes the context's state in place ([`jit_core::overwrite`]), under
/// the context's lock, which every reader of the state holds too.
///
/// Not a temporary file renamed over the old one: that rename made the
/// kernel write the file out and free the old one's blocks on every hook
/// call, 0.1 to 0.6 ms of each on ext4. A hook killed while it writes (a
/// few µs) leaves a state that does not parse, which the next call sets
/// aside and starts afresh from, with a warning.
pub(super) fn save(
    files: &ContextFiles,
    state: &StoredState,
    _lock: &Locked,
) -> anyhow::Result<()> {
    let mut text = serde_json::to_vec(state).context("cannot encode the hook state")?;
    text.push(b'\n');
    jit_core::overwrite(files.state.as_std_path(), &text)
        .with_context(|| format!("cannot write {}", files.state))
}

/// Removes state and lock files, and walk caches, not modified for
/// [`PRUNE_AFTER`]; returns how many. Event logs stay: they are the history
/// `jit stats` reads.
pub(super) fn prune(dir: &Utf8Path, now: SystemTime) -> usize {
    let ours = |name: &str| {
        name.ends_with(".state.json")
            || name.ends_with(".lock")
            || name.ends_with(".state.json.corrupt")
            // A temporary state an earlier version wrote to rename over
            // the state, left behind by a hook killed in between.
            || name.contains(".state.json.tmp.")
    };
    // Walk caches (`walks/`, see `crate::walk_cache`) too: one untouched
    // this long belongs to a project not opened since, or is rebuilt by
    // one walk. (`.json`: the layout before the binary one.)
    let walk_cache =
        |name: &str| name.ends_with(".walk") || name.ends_with(".json") || name.ends_with(".tmp");
    // `walks/` is a folder jit made: a link in its place (to a folder of
    // the user's with old `.json` files) is not listed, let alone pruned.
    let walks = dir.join("walks");
    let walks_pruned =
        match jit_core::check_private_dir(walks.as_std_path(), jit_core::DirLink::Refused) {
            Ok(()) => prune_in(&walks, now, walk_cache),
            Err(_) => 0,
        };
    prune_in(dir, now, ours) + walks_pruned
}

/// Removes the files of `dir` whose name `ours` accepts, untouched for
/// longer than [`PRUNE_AFTER`] before `now`; how many.
fn prune_in(dir: &Utf8Path, now: SystemTime, ours: impl Fn(&str) -> bool) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !ours(name) {
            continue;
        }
        let old = entry
            .metadata()
            .ok()
            .filter(fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > PRUNE_AFTER);
        if old && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_distinct_safe_file_names() {
        assert_eq!(file_safe("abc-123_x.y"), "abc-123_x.y");
        let slashed = file_safe("../etc/passwd");
        assert!(
            !slashed.contains('/') && !slashed.starts_with('.'),
            "{slashed}"
        );
        assert_ne!(file_safe("a/b"), file_safe("a_b"));
        assert_ne!(file_safe("a/b"), file_safe("a?b"));
        let long = "x".repeat(500);
        assert!(file_safe(&long).len() < 100);
        assert_ne!(file_safe(&long), file_safe(&"x".repeat(501)));
    }

    #[test]
    fn a_sub_agent_has_its_own_state_and_shares_the_session_log() {
        let dir = Utf8Path::new("/s");
        let main = ContextFiles::new(dir, AgentKind::ClaudeCode, "abc", None);
        let sub = ContextFiles::new(dir, AgentKind::ClaudeCode, "abc", Some("a1"));
        let codex = ContextFiles::new(dir, AgentKind::Codex, "abc", None);
        assert_ne!(main.state, sub.state);
        assert_ne!(main.lock, sub.lock);
        assert_eq!(main.events, sub.events);
        assert_ne!(main.state, codex.state);
        assert_eq!(main.state, "/s/claude-code-abc.state.json");
    }

    #[test]
    fn only_old_state_and_lock_files_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let dir = Utf8Path::from_path(dir.path()).unwrap();
        for name in [
            "a.state.json",
            "a.lock",
            "a.state.json.tmp.4242",
            "a.events.jsonl",
            "notes.txt",
        ] {
            fs::write(dir.join(name), "x").unwrap();
        }
        let now = SystemTime::now();
        assert_eq!(prune(dir, now), 0, "fresh files stay");
        let later = now + PRUNE_AFTER + Duration::from_secs(60);
        assert_eq!(prune(dir, later), 3);
        assert!(dir.join("a.events.jsonl").exists());
        assert!(dir.join("notes.txt").exists());
        assert!(!dir.join("a.state.json").exists());
    }

    #[test]
    fn old_walk_caches_are_pruned_too() {
        let dir = tempfile::tempdir().unwrap();
        let dir = Utf8Path::from_path(dir.path()).unwrap();
        fs::create_dir_all(dir.join("walks")).unwrap();
        let caches = [
            "proj-0123456789abcdef.walk",
            ".proj-0123456789abcdef.walk.42.tmp",
            "old-0123456789abcdef.json",
        ];
        for name in caches.iter().chain(&["README"]) {
            fs::write(dir.join("walks").join(name), "x").unwrap();
        }
        let now = SystemTime::now();
        assert_eq!(prune(dir, now), 0, "fresh caches stay");
        assert_eq!(prune(dir, now + PRUNE_AFTER + Duration::from_secs(60)), 3);
        assert!(dir.join("walks/README").exists());
        for name in caches {
            assert!(!dir.join("walks").join(name).exists(), "{name}");
        }
    }
}
