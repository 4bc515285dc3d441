//! Telemetry: one JSON Lines event per discovery (hit or not), the vocabulary its fields use, and the writer that never fails a tool call.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::marker::PhantomData;
use std::time::{SystemTime, UNIX_EPOCH};

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Deserializer, Serialize};

/// Declares an enum of the event vocabulary (a decision, a skip reason, an
/// attribution, ...) with each variant's name written once.
///
/// That one literal becomes the variant's `#[serde(rename)]` and the arm of
/// its `as_str`, so the JSON name and the text a human reads cannot drift
/// apart; the tests check `as_str` against serde's output for every variant
/// all the same. An enum read from logs names an `unknown` variant: serde
/// reads a name this version does not know (a log written by a newer one)
/// as that variant instead of failing, and `as_str` (and serde, written
/// back) calls it `unknown`. The enums stay `Copy` values the engine passes
/// around freely, so they do not carry the original text; the statistics,
/// which print the names they read, keep it with [`Term`] instead.
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
        $( unknown: $(#[$umeta:meta])* $unknown:ident )?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
            $( $(#[$umeta])* #[serde(rename = "unknown", other)] $unknown, )?
        }

        impl $name {
            /// Every variant this version writes, in declaration order (an
            /// unknown name read from a log is not among them).
            pub const KNOWN: &'static [$name] = &[$( $name::$variant, )+];

            /// The name written in JSON (the serde name; `unknown` for a
            /// name read from a newer version's log).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                    $( $name::$unknown => "unknown", )?
                }
            }
        }

        impl $crate::session::events::Vocabulary for $name {
            fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( $text => Some($name::$variant), )+
                    _ => None,
                }
            }

            fn name(self) -> &'static str {
                self.as_str()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use vocabulary;

/// An enum declared with `vocabulary!`: its known names, looked up both ways.
pub(crate) trait Vocabulary: Copy + PartialEq + 'static {
    /// The variant named `name`, if this version knows it.
    fn from_name(name: &str) -> Option<Self>;
    /// The variant's JSON name.
    fn name(self) -> &'static str;
}

/// A vocabulary name read from a log line by the statistics: a value this
/// version knows, or the text of one it does not, kept as written so that
/// `jit stats` shows (and counts apart) a reason a newer version added
/// instead of folding every such name into one `unknown`. Text is borrowed
/// from the line where it can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Term<'a, T> {
    /// A name this version knows.
    Known(T),
    /// A name it does not, as written.
    Unknown(Cow<'a, str>),
}

impl<T: Vocabulary> Term<'_, T> {
    /// Whether this is `value`.
    pub(crate) fn is(&self, value: T) -> bool {
        matches!(self, Term::Known(known) if *known == value)
    }

    /// The name as written in the log.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Term::Known(known) => known.name(),
            Term::Unknown(text) => text,
        }
    }
}

impl<'de: 'a, 'a, T: Vocabulary> Deserialize<'de> for Term<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a, T>(PhantomData<(&'a (), T)>);

        impl<'de: 'a, 'a, T: Vocabulary> serde::de::Visitor<'de> for Visit<'a, T> {
            type Value = Term<'a, T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name")
            }

            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(T::from_name(v).map_or(Term::Unknown(Cow::Borrowed(v)), Term::Known))
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(T::from_name(v)
                    .map_or_else(|| Term::Unknown(Cow::Owned(v.to_owned())), Term::Known))
            }
        }

        deserializer.deserialize_str(Visit(PhantomData))
    }
}

use crate::rule::{Attribution, LoadKind, SkipReason};
use crate::session::manifest::LeaveReason;

/// The version of the event schema written in every event's `schema` field.
///
/// Readers skip lines of another version instead of guessing their meaning.
pub const EVENT_SCHEMA: u32 = 1;

/// The most paths one event lists: 1,000. A call touching more (a command
/// that writes thousands of files) lists its first 1,000 and counts the
/// rest in `paths_omitted`, so that an event stays a line `jit stats` reads
/// whole; every path listed in every event of the call made a log of 1.9
/// GB for one call of 10,000 files.
pub const MAX_EVENT_PATHS: usize = 1000;

/// The most bytes of path text one event lists: 256 KiB (with
/// [`MAX_EVENT_PATHS`], whichever comes first). Paths of 4,096 bytes would
/// otherwise make a line of 4 MB, and more once escaped.
pub const MAX_EVENT_PATH_BYTES: usize = 256 * 1024;

/// What an event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The startup load of a session.
    Startup,
    /// One touched path's JIT discovery.
    Discovery,
}

vocabulary! {
    /// What became of a candidate rule file in a discovery: an event
    /// candidate's `decision`.
    #[non_exhaustive]
    pub enum Decision {
        /// Injected for the first time in the context.
        Loaded = "loaded",
        /// Injected in place of an older version of the same file.
        Replaced = "replaced",
        /// Over the rule budget: only a summary (or nothing) was injected.
        TooLargeForBudget = "too_large_for_budget",
        /// Not injected; the candidate's `reason` says why.
        Skipped = "skipped",
    }
    unknown:
    /// A decision this version does not know (a log written by a newer one).
    Unknown
}

impl From<LoadKind> for Decision {
    fn from(kind: LoadKind) -> Self {
        match kind {
            LoadKind::Loaded => Decision::Loaded,
            LoadKind::Replaced => Decision::Replaced,
        }
    }
}

vocabulary! {
    /// Which kind of agent context an event belongs to: an event's
    /// `channel` (the sub-agent's id is in `subagent`).
    #[non_exhaustive]
    pub enum ChannelKind {
        /// The main conversation.
        Main = "main",
        /// A sub-agent.
        Subagent = "subagent",
    }
    unknown:
    /// A channel this version does not know (a log written by a newer one).
    Unknown
}

/// One line of the event log.
///
/// Every discovery writes one, hit or not: a log of hits only has no
/// denominator.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{EVENT_SCHEMA, Engine, Event, EventKind, Session, SessionConfig};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src/ui"))?;
/// std::fs::write(dir.path().join("src/ui/CLAUDE.md"), "No colour emoji.\n")?;
/// let log = dir.path().join("events.jsonl").to_str().ok_or("not UTF-8")?.to_owned();
/// let config = SessionConfig::new().with_event_log(log.clone());
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), config);
/// let root = session.engine().root().to_owned();
/// session.touch("docs/guide.md".into(), &root); // a miss, logged all the same
/// session.touch("src/ui/Footer.tsx".into(), &root);
///
/// let events: Vec<Event> = std::fs::read_to_string(&log)?
///     .lines()
///     .map(serde_json::from_str)
///     .collect::<Result<_, _>>()?;
/// assert_eq!(events.iter().map(|e| e.hit).collect::<Vec<_>>(), [false, true]);
/// assert_eq!((events[1].schema, events[1].kind, events[1].step), (EVENT_SCHEMA, EventKind::Discovery, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Event {
    /// Always [`EVENT_SCHEMA`] when written by this version.
    pub schema: u32,
    /// `startup` or `discovery`.
    pub kind: EventKind,
    /// Wall-clock time, RFC 3339 in UTC with milliseconds.
    pub ts: String,
    /// The session's id.
    pub session: String,
    /// `main` or `subagent`.
    pub channel: ChannelKind,
    /// The sub-agent's id, on the `subagent` channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// The session step: 0 for startup, then one per tool call or batch.
    pub step: u64,
    /// The tool whose call triggered the discovery (none at startup or for
    /// a path touched directly).
    #[serde(default)]
    pub tool: Option<String>,
    /// Every path the tool call (or the batch of touched paths) touched,
    /// each once, in order: the first [`MAX_EVENT_PATHS`] (and at most
    /// [`MAX_EVENT_PATH_BYTES`] of text), the rest counted in
    /// `paths_omitted`.
    #[serde(default)]
    pub paths: Vec<String>,
    /// How many paths of the call `paths` leaves out (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub paths_omitted: u64,
    /// The path this discovery walked from: `.` for startup, the first
    /// path discovered for a call (one event stands for all of them), empty
    /// when a limit left every path out.
    pub trigger: String,
    /// Every candidate rule file and what was decided for it.
    pub candidates: Vec<Candidate>,
    /// Whether any block (full text or budget summary) was injected.
    pub hit: bool,
    /// Bytes injected by this discovery: the sum of the block contents it
    /// put into the prompt (an imported file's text counts inside the block
    /// of the rule that imports it), which is the sum of its candidates'
    /// `bytes`.
    pub bytes_injected: u64,
    /// Bytes of rule text resident in the prompt after it.
    pub resident_bytes: u64,
    /// Resident rule files whose directory this trigger is in (or that
    /// arrived with it): the manifest's "last relevant" signal.
    #[serde(default)]
    pub relevant: Vec<String>,
    /// Blocks that left the prompt at this step, with why (always written,
    /// `[]` when none left).
    #[serde(default)]
    pub left: Vec<Departure>,
    /// Wall time of the discovery in microseconds (of all the call's paths).
    pub elapsed_us: u64,
    /// The limits this step reached, each once, with what it left out
    /// (absent when none): a path reporter's input skipped with a `too_*`
    /// reason (`too_large`: a command over the bash parser's cap),
    /// `too_many_paths` past [`crate::MAX_CALL_PATHS`], `too_long` past
    /// [`crate::MAX_PATH_BYTES`], `deadline` when the step's time ran out
    /// ([`crate::SessionConfig::with_deadline`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Limit>,
}

/// A limit a step reached, and what it left out.
///
/// ```
/// use jit_core::Limit;
/// let limit = Limit::new("too_many_paths", "2 of the call's 10002 paths, past the first 10000");
/// assert_eq!(
///     serde_json::to_string(&limit)?,
///     r#"{"limit":"too_many_paths","detail":"2 of the call's 10002 paths, past the first 10000"}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Limit {
    /// Which limit: `too_many_paths`, `too_long`, `deadline`, or a path
    /// reporter's `too_*` reason (`too_large`, `too_deep`, ...).
    pub limit: String,
    /// What it left out, in words (at most [`Limit::MAX_DETAIL_BYTES`]).
    pub detail: String,
}

impl Limit {
    /// The longest detail kept: 512 bytes, cut between characters (a
    /// reporter's skipped word may be the whole input).
    pub const MAX_DETAIL_BYTES: usize = 512;

    /// The limit `limit` reached, leaving out what `detail` says.
    pub fn new(limit: impl Into<String>, detail: &str) -> Self {
        Limit {
            limit: limit.into(),
            detail: crate::discover::prefix(detail, Limit::MAX_DETAIL_BYTES).to_owned(),
        }
    }
}

/// Whether `n` is 0, for fields written only when they hold something.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One candidate rule file of a discovery.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Decision, Engine, Session, SessionConfig, SkipReason};
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("src"))?;
/// std::fs::write(dir.path().join("src/CLAUDE.md"), "---\npaths: [\"src/**/*.rs\"]\n---\nNo unsafe.\n")?;
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), SessionConfig::new());
/// let root = session.engine().root().to_owned();
///
/// let step = session.touch("src/notes.md".into(), &root);
/// let candidate = &step.events[0].candidates[0];
/// assert_eq!(candidate.file, "src/CLAUDE.md");
/// assert_eq!(candidate.decision, Decision::Skipped);
/// assert_eq!(candidate.reason, Some(SkipReason::ScopeMiss));
/// assert_eq!(candidate.source.as_deref(), Some("claude"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Candidate {
    /// The rule file, root-relative inside the project, absolute outside.
    pub file: String,
    /// `loaded`, `replaced`, `too_large_for_budget` or `skipped`.
    pub decision: Decision,
    /// For anything not loaded in full: the reason (`scope_miss`,
    /// `already_loaded`, `too_large_for_budget`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<SkipReason>,
    /// Why it was injected (`session_start`, `nested_traversal`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// Bytes of the block injected for it: 0 for an imported file (its text
    /// is inside the importing rule's block) and for a rule left out of the
    /// budget entirely.
    #[serde(default)]
    pub bytes: u64,
    /// The source hash of the rule whose block was injected (hex FNV-1a 64);
    /// none when no block was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The convention that found the rule file (`claude`, `agents`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A block leaving the prompt.
///
/// ```
/// use jit_core::{Departure, LeaveReason};
/// let left = Departure::new("src/ui/CLAUDE.md", LeaveReason::Compacted);
/// assert_eq!(
///     serde_json::to_string(&left)?,
///     r#"{"file":"src/ui/CLAUDE.md","reason":"compacted"}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Departure {
    /// The rule file.
    pub file: String,
    /// `replaced_by_newer_read`, `compacted` or `budget`.
    pub reason: LeaveReason,
}

impl Departure {
    /// `file`'s block left the prompt for `reason`.
    pub fn new(file: impl Into<String>, reason: LeaveReason) -> Self {
        Departure {
            file: file.into(),
            reason,
        }
    }
}

/// Appends events to a JSON Lines file. Failures become warnings, never errors.
#[derive(Debug, Clone)]
pub(crate) struct EventWriter {
    path: Option<Utf8PathBuf>,
    /// Whether the log is in a directory jit keeps to itself (see
    /// [`crate::SessionConfig::with_private_event_log`]).
    private: bool,
}

impl EventWriter {
    pub(crate) fn new(path: Option<&Utf8Path>, private: bool) -> Self {
        EventWriter {
            path: path.map(Utf8Path::to_owned),
            private,
        }
    }

    /// Writes one line. The file is opened in append mode for each event, so
    /// sessions sharing a log (a parent and its sub-agents) interleave whole
    /// lines, and an unwritable log costs one failed open, not a stuck handle.
    ///
    /// The write's own result counts: a disk that is full (`ENOSPC`), a
    /// file over its size limit (`EFBIG`) or a quota is a failure, said
    /// like a failed open. (The file is not buffered: each line is one
    /// write, whose error the kernel reports there.)
    pub(crate) fn write(&self, event: &Event) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut line = serde_json::to_string(event)
            .map_err(|e| format!("cannot encode an event for {path}: {e}"))?;
        line.push('\n');
        // Opening a named pipe for writing would block until a reader
        // came, and the writer must never hold up a tool call. A private
        // log follows no link either.
        let opened = if self.private {
            crate::open::open_private_append(path.as_std_path())
        } else {
            crate::open::open_append(path.as_std_path())
        };
        opened
            .and_then(|mut file| file.write_all(line.as_bytes()))
            .map_err(|e| {
                let hint = match e.kind() {
                    std::io::ErrorKind::InvalidInput if self.private => {
                        " (jit writes its own file there, and follows no link)"
                    }
                    std::io::ErrorKind::InvalidInput => " (it could block the tool call)",
                    _ => "",
                };
                format!("cannot write the event log {path}: {e}{hint}; events are not recorded")
            })
    }
}

/// The current time as RFC 3339 UTC with milliseconds (`2026-08-08T09:30:00.123Z`),
/// as events write it.
///
/// ```
/// let ts = jit_core::now_rfc3339();
/// assert!(ts.ends_with('Z') && ts.len() == "2026-08-08T09:30:00.123Z".len());
/// ```
pub fn now_rfc3339() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(since.as_millis())
}

/// Formats unix milliseconds as RFC 3339 UTC.
pub(crate) fn rfc3339(millis: u128) -> String {
    let secs = u64::try_from(millis / 1000).unwrap_or(u64::MAX);
    let ms = millis % 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), after Howard Hinnant's
/// `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        y,
        u32::try_from(m).unwrap_or(0),
        u32::try_from(d).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Tier;
    use crate::session::manifest::LeaveReason;

    /// Checks that every known variant's `as_str` is the name serde writes
    /// and reads, and that `from_name` finds it.
    #[track_caller]
    fn check_names<T>(known: &[T])
    where
        T: Vocabulary + Serialize + for<'de> Deserialize<'de> + fmt::Debug + fmt::Display,
    {
        assert!(!known.is_empty());
        for &value in known {
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("\"{}\"", value.name()), "{value:?}");
            assert_eq!(value.to_string(), value.name());
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
            assert_eq!(T::from_name(value.name()), Some(value), "{value:?}");
        }
    }

    #[test]
    fn as_str_is_the_serde_name_of_every_variant() {
        check_names(Decision::KNOWN);
        check_names(ChannelKind::KNOWN);
        check_names(SkipReason::KNOWN);
        check_names(Attribution::KNOWN);
        check_names(LeaveReason::KNOWN);
        check_names(Tier::KNOWN);
        check_names(LoadKind::KNOWN);
        assert_eq!(SkipReason::KNOWN.len(), 16);
    }

    #[test]
    fn a_name_from_a_newer_version_reads_as_unknown_not_as_a_known_one() {
        let reason: SkipReason = serde_json::from_str("\"some_future_reason\"").unwrap();
        assert_eq!(reason, SkipReason::Unknown);
        assert!(!SkipReason::KNOWN.contains(&reason));
        assert_eq!(SkipReason::from_name("some_future_reason"), None);
        // `unknown` itself names no known variant either.
        assert_eq!(SkipReason::from_name("unknown"), None);
        let decision: Decision = serde_json::from_str("\"deferred\"").unwrap();
        assert_eq!(decision, Decision::Unknown);
        let candidate: Candidate = serde_json::from_str(
            r#"{"file":"a.md","decision":"skipped","reason":"some_future_reason","attribution":"telepathy"}"#,
        )
        .unwrap();
        assert_eq!(candidate.reason, Some(SkipReason::Unknown));
        assert_eq!(candidate.attribution, Some(Attribution::Unknown));
    }

    #[test]
    fn a_term_keeps_the_text_of_a_name_it_does_not_know() {
        let known: Term<'_, SkipReason> = serde_json::from_str("\"scope_miss\"").unwrap();
        assert_eq!(known, Term::Known(SkipReason::ScopeMiss));
        assert!(known.is(SkipReason::ScopeMiss));
        let unknown: Term<'_, SkipReason> = serde_json::from_str("\"some_future_reason\"").unwrap();
        assert_eq!(unknown.as_str(), "some_future_reason");
        assert!(!unknown.is(SkipReason::Unknown));
        assert!(SkipReason::KNOWN.iter().all(|&r| !unknown.is(r)));
        // An escaped name is read (and kept) too.
        let escaped: Term<'_, SkipReason> = serde_json::from_str("\"scope\\u005fmiss\"").unwrap();
        assert!(escaped.is(SkipReason::ScopeMiss));
        assert!(serde_json::from_str::<Term<'_, SkipReason>>("3").is_err());
    }

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_786_188_645_007), "2026-08-08T11:30:45.007Z");
    }
}
