//! Statistics over event logs: hit rate, waste, resident bytes, latency, distributions, leaderboard, context debt.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::rule::{Attribution, SkipReason};
use crate::session::events::{ChannelKind, Decision, EVENT_SCHEMA, EventKind, Term};
use crate::session::manifest::{DEFAULT_DEBT_IDLE_STEPS, DEFAULT_DEBT_MIN_BYTES};

/// Thresholds of the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsOptions {
    /// A resident block is context debt from this size up.
    pub debt_min_bytes: u64,
    /// ... after this many steps without relevance.
    pub debt_idle_steps: u64,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            debt_min_bytes: DEFAULT_DEBT_MIN_BYTES,
            debt_idle_steps: DEFAULT_DEBT_IDLE_STEPS,
        }
    }
}

/// Percentiles of a distribution (nearest rank; 0 for an empty one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Percentiles {
    /// Median.
    pub p50: u64,
    /// 95th percentile.
    pub p95: u64,
    /// Largest value.
    pub max: u64,
}

/// One rule file's line of the leaderboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FileStats {
    /// The rule file.
    pub file: String,
    /// How many times it was injected (startup, JIT, replacements, summaries);
    /// for an imported file, how many times a rule brought it in inline (its
    /// bytes count in that rule's block, so its own stay 0).
    pub injections: u64,
    /// Bytes injected over all of them.
    pub bytes: u64,
    /// The largest single injection.
    pub max_bytes: u64,
}

/// A large block resident long after it was last relevant, in one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DebtRow {
    /// The session.
    pub session: String,
    /// The rule file.
    pub file: String,
    /// Bytes it holds in the prompt.
    pub bytes: u64,
    /// The step it came in.
    pub introduced_step: u64,
    /// The last step its directory was touched.
    pub last_relevant_step: u64,
    /// Steps from then to the session's last step.
    pub idle_steps: u64,
}

/// What a set of event logs says.
///
/// ```
/// use jit_core::{Stats, StatsOptions};
/// let log = r#"{"schema":1,"kind":"discovery","ts":"2026-08-08T00:00:00.000Z","session":"s","channel":"main","step":1,"tool":"read","paths":["a.rs"],"trigger":"a.rs","candidates":[],"hit":false,"bytes_injected":0,"resident_bytes":0,"elapsed_us":40}
/// not an event"#;
/// let stats = Stats::from_lines(log.lines(), StatsOptions::default());
/// assert_eq!((stats.discoveries, stats.hits, stats.skipped_lines), (1, 0, 1));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Stats {
    /// Non-blank lines read.
    pub lines: u64,
    /// Lines that are not events of this schema (older versions, other
    /// programs' logs, truncated writes), skipped.
    pub skipped_lines: u64,
    /// Distinct session ids.
    pub sessions: u64,
    /// Startup events.
    pub startups: u64,
    /// JIT discovery events: one per tool call (or batch of paths touched
    /// together), the hit rate's denominator.
    pub discoveries: u64,
    /// Discoveries that injected at least one block.
    pub hits: u64,
    /// `hits / discoveries` (0 without discoveries).
    pub hit_rate: f64,
    /// Bytes injected by discoveries.
    pub bytes_injected: u64,
    /// `bytes_injected / hits` (0 without hits).
    pub avg_injected_bytes: f64,
    /// Candidate rule files seen by discoveries, whatever their decision.
    pub candidates: u64,
    /// Candidates skipped because their scope did not match the touched path.
    pub scope_skipped: u64,
    /// `scope_skipped / candidates` (0 without candidates).
    pub waste_rate: f64,
    /// Resident rule bytes after each event (startup and discoveries).
    pub resident_bytes: Percentiles,
    /// Discovery wall time in microseconds (its `p95` is computed too).
    pub latency_us: Percentiles,
    /// Injections by attribution (`session_start`, `nested_traversal`, ...).
    pub attribution: BTreeMap<String, u64>,
    /// Discoveries by channel (`main`, `subagent`).
    pub channels: BTreeMap<String, u64>,
    /// Decisions of discovery candidates (`loaded`, `skipped`, ...), with
    /// skips split by reason (`skipped:scope_miss`).
    pub decisions: BTreeMap<String, u64>,
    /// Rule files by bytes injected, largest first.
    pub by_file: Vec<FileStats>,
    /// Large blocks still resident at a session's last step, long after
    /// their last relevance; largest first.
    pub debt: Vec<DebtRow>,
    /// Events of sessions past [`STATS_MAX_TRACKED`]: counted in the totals,
    /// not in the per-session and per-file sections.
    pub untracked_events: u64,
    /// The memory limits these logs reached, in words (empty for any real
    /// log): which sections are then approximate or incomplete.
    pub limits_hit: Vec<String>,
}

/// The most distinct sessions and rule files the statistics track. Real
/// logs have a few sessions and a few dozen rule files; a hostile log with
/// millions of distinct names would otherwise hold them all in memory.
/// Past either limit, new names are counted in totals but not tracked one
/// by one, and `limits_hit` says so.
pub const STATS_MAX_TRACKED: usize = 100_000;

/// How many distinct values a distribution keeps exactly before it
/// switches to buckets of under 1% relative width (memory stays bounded for
/// any log size; `limits_hit` says when it happened).
const EXACT_VALUES: usize = 65_536;

#[derive(Debug, Default)]
struct Resident {
    bytes: u64,
    introduced: u64,
    last_relevant: u64,
}

#[derive(Debug, Default)]
struct SessionReplay {
    last_step: u64,
    resident: BTreeMap<String, Resident>,
    /// In a builder that follows another ([`StatsBuilder::following`]):
    /// what these lines did to blocks they did not hold themselves, to be
    /// replayed onto the earlier builder's blocks when merged.
    touches: HashMap<String, Touch>,
}

/// What the lines of a following builder did to a block it did not hold.
#[derive(Debug, Default, Clone, Copy)]
struct Touch {
    /// The block left (or was replaced): the earlier one is gone.
    gone: bool,
    /// The last step it was relevant while still the earlier one's.
    relevant: Option<u64>,
}

/// A distribution of `u64` values in bounded memory: exact counts per
/// value, or per bucket of under 1% relative width once there are too many
/// distinct values.
#[derive(Debug, Default)]
struct Distribution {
    counts: BTreeMap<u64, u64>,
    total: u64,
    max: u64,
    coarse: bool,
}

impl Distribution {
    fn push(&mut self, value: u64) {
        self.total += 1;
        self.max = self.max.max(value);
        let key = if self.coarse { bucket(value) } else { value };
        *self.counts.entry(key).or_default() += 1;
        if !self.coarse && self.counts.len() > EXACT_VALUES {
            self.coarsen();
        }
    }

    /// Adds every value of `other`, as if pushed here.
    fn merge(&mut self, other: Distribution) {
        if other.coarse && !self.coarse {
            self.coarsen();
        }
        self.total += other.total;
        self.max = self.max.max(other.max);
        for (value, count) in other.counts {
            let key = if self.coarse { bucket(value) } else { value };
            *self.counts.entry(key).or_default() += count;
        }
        if !self.coarse && self.counts.len() > EXACT_VALUES {
            self.coarsen();
        }
    }

    fn coarsen(&mut self) {
        self.coarse = true;
        let exact = std::mem::take(&mut self.counts);
        for (value, count) in exact {
            *self.counts.entry(bucket(value)).or_default() += count;
        }
    }

    /// Nearest-rank percentiles (the maximum is always exact).
    fn percentiles(&self) -> Percentiles {
        if self.total == 0 {
            return Percentiles::default();
        }
        let rank = |p: u64| {
            let wanted = (p * self.total).div_ceil(100).max(1);
            let mut seen = 0;
            for (value, count) in &self.counts {
                seen += count;
                if seen >= wanted {
                    return (*value).min(self.max);
                }
            }
            self.max
        };
        Percentiles {
            p50: rank(50),
            p95: rank(95),
            max: self.max,
        }
    }
}

/// The bucket of `value`: its 8 leading significant bits kept, the rest
/// zeroed (relative width under 1%).
fn bucket(value: u64) -> u64 {
    let bits = 64 - value.leading_zeros();
    if bits <= 8 {
        value
    } else {
        let shift = bits - 8;
        (value >> shift) << shift
    }
}

/// One event line, parsed for the statistics only: the same fields are
/// required as for an [`Event`](crate::Event) (a line missing one is not an
/// event), but text is borrowed from the line where it can be.
#[derive(Deserialize)]
struct LineEvent<'a> {
    schema: u32,
    kind: EventKind,
    #[serde(rename = "ts", borrow)]
    _ts: Cow<'a, str>,
    #[serde(borrow)]
    session: Cow<'a, str>,
    #[serde(borrow)]
    channel: Term<'a, ChannelKind>,
    step: u64,
    #[serde(rename = "trigger", borrow)]
    _trigger: Cow<'a, str>,
    #[serde(borrow)]
    candidates: Vec<LineCandidate<'a>>,
    hit: bool,
    bytes_injected: u64,
    resident_bytes: u64,
    #[serde(default, borrow)]
    relevant: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    left: Vec<LineDeparture<'a>>,
    elapsed_us: u64,
}

#[derive(Deserialize)]
struct LineCandidate<'a> {
    #[serde(borrow)]
    file: Cow<'a, str>,
    #[serde(borrow)]
    decision: Term<'a, Decision>,
    #[serde(default, borrow)]
    reason: Option<Term<'a, SkipReason>>,
    #[serde(default, borrow)]
    attribution: Option<Term<'a, Attribution>>,
    #[serde(default)]
    bytes: u64,
}

#[derive(Deserialize)]
struct LineDeparture<'a> {
    #[serde(borrow)]
    file: Cow<'a, str>,
    #[serde(rename = "reason", borrow)]
    _reason: Cow<'a, str>,
}

/// Statistics built one log line at a time, in bounded memory: feed it
/// every line of the logs in the order they were written, then
/// [`StatsBuilder::finish`].
///
/// ```
/// use jit_core::{StatsBuilder, StatsOptions};
/// let mut builder = StatsBuilder::new(StatsOptions::default());
/// builder.push_line("not an event");
/// assert_eq!(builder.finish().skipped_lines, 1);
/// ```
#[derive(Debug, Default)]
pub struct StatsBuilder {
    options: StatsOptions,
    stats: Stats,
    resident: Distribution,
    latency: Distribution,
    files: HashMap<String, FileStats>,
    sessions: BTreeMap<String, SessionReplay>,
    /// A reused buffer for decision keys (`skipped:<reason>`).
    key: String,
    /// [`STATS_MAX_TRACKED`] unless a test lowers it.
    max_tracked: Option<usize>,
    /// Whether these lines follow another builder's (see
    /// [`StatsBuilder::following`]).
    following: bool,
}

/// Records that `file`'s earlier block is gone (it left, or was replaced).
fn mark_gone(touches: &mut HashMap<String, Touch>, file: &str) {
    match touches.get_mut(file) {
        Some(touch) => touch.gone = true,
        None => {
            touches.insert(
                file.to_owned(),
                Touch {
                    gone: true,
                    relevant: None,
                },
            );
        }
    }
}

/// Records that `file`'s earlier block, if still there, was relevant at `step`.
fn mark_relevant(touches: &mut HashMap<String, Touch>, file: &str, step: u64) {
    match touches.get_mut(file) {
        Some(touch) => {
            if !touch.gone {
                touch.relevant = Some(step);
            }
        }
        None => {
            touches.insert(
                file.to_owned(),
                Touch {
                    gone: false,
                    relevant: Some(step),
                },
            );
        }
    }
}

/// Adds one to `key`'s count, allocating the key only the first time.
fn count(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_owned(), 1);
        }
    }
}

/// Whether one more name may be tracked in a map holding `len` already;
/// records the limit the first time it is reached.
fn may_track(limits: &mut Vec<String>, len: usize, max: usize, what: &str) -> bool {
    if len < max {
        return true;
    }
    let note = format!("more than {max} {what}: the rest are not tracked one by one");
    if !limits.contains(&note) {
        limits.push(note);
    }
    false
}

/// The replay of `session`, made on its first event; `None` when it is new
/// and past the tracking limit (recorded in `stats`).
fn session_replay<'s>(
    sessions: &'s mut BTreeMap<String, SessionReplay>,
    stats: &mut Stats,
    max: usize,
    session: &str,
) -> Option<&'s mut SessionReplay> {
    if sessions.contains_key(session) {
        return sessions.get_mut(session);
    }
    if !may_track(&mut stats.limits_hit, sessions.len(), max, "sessions") {
        return None;
    }
    Some(sessions.entry(session.to_owned()).or_default())
}

/// Counts a discovery candidate: in `candidates`, in `scope_skipped` for a
/// scope miss, and in `decisions` by its decision, as `native` for a rule
/// the agent loaded itself, or as `skipped:<reason>` (a reason this version
/// does not know keeps its own name). `key` is a reused buffer.
fn count_decision(
    stats: &mut Stats,
    key: &mut String,
    candidate: &LineCandidate<'_>,
    native: bool,
    injected: bool,
) {
    stats.candidates += 1;
    if candidate
        .reason
        .as_ref()
        .is_some_and(|r| r.is(SkipReason::ScopeMiss))
    {
        stats.scope_skipped += 1;
    }
    match (&candidate.reason, injected) {
        _ if native => count(&mut stats.decisions, Attribution::Native.as_str()),
        (Some(reason), false) => {
            key.clear();
            key.push_str(Decision::Skipped.as_str());
            key.push(':');
            key.push_str(reason.as_str());
            count(&mut stats.decisions, key);
        }
        _ => count(&mut stats.decisions, candidate.decision.as_str()),
    }
}

/// Adds an injected candidate to its file's line of the leaderboard, unless
/// the file is new and past the tracking limit.
fn count_file(
    files: &mut HashMap<String, FileStats>,
    stats: &mut Stats,
    max: usize,
    candidate: &LineCandidate<'_>,
) {
    let file_name = candidate.file.as_ref();
    let tracked = if files.contains_key(file_name)
        || may_track(&mut stats.limits_hit, files.len(), max, "rule files")
    {
        if !files.contains_key(file_name) {
            files.insert(
                file_name.to_owned(),
                FileStats {
                    file: file_name.to_owned(),
                    injections: 0,
                    bytes: 0,
                    max_bytes: 0,
                },
            );
        }
        files.get_mut(file_name)
    } else {
        None
    };
    if let Some(file) = tracked {
        file.injections += 1;
        file.bytes = file.bytes.saturating_add(candidate.bytes);
        file.max_bytes = file.max_bytes.max(candidate.bytes);
    }
}

/// Makes `block` the resident block of `file` in a session, unless the
/// session is past the tracking limit for resident blocks.
fn place_block(
    replay: &mut SessionReplay,
    stats: &mut Stats,
    max: usize,
    following: bool,
    file: &str,
    block: Resident,
) {
    match replay.resident.get_mut(file) {
        Some(resident) => *resident = block,
        None => {
            if following {
                mark_gone(&mut replay.touches, file);
            }
            if may_track(
                &mut stats.limits_hit,
                replay.resident.len(),
                max,
                "resident blocks in one session",
            ) {
                replay.resident.insert(file.to_owned(), block);
            }
        }
    }
}

impl StatsBuilder {
    /// An empty builder.
    pub fn new(options: StatsOptions) -> Self {
        StatsBuilder {
            options,
            ..StatsBuilder::default()
        }
    }

    /// An empty builder for lines that come right after the lines of
    /// another one: it remembers what its lines did to blocks resident
    /// from before them, so that [`StatsBuilder::merge_following`] gives
    /// exactly what one builder fed every line would. Two of them let a
    /// large log be counted in two halves at once.
    ///
    /// ```
    /// use jit_core::{StatsBuilder, StatsOptions};
    /// let lines = ["not an event", "nor this"];
    /// let mut first = StatsBuilder::new(StatsOptions::default());
    /// first.push_line(lines[0]);
    /// let mut second = StatsBuilder::following(StatsOptions::default());
    /// second.push_line(lines[1]);
    /// assert!(first.merge_following(second).is_ok());
    /// assert_eq!(first.finish().skipped_lines, 2);
    /// ```
    pub fn following(options: StatsOptions) -> Self {
        StatsBuilder {
            following: true,
            ..StatsBuilder::new(options)
        }
    }

    /// Adds the counts of `later`, built with [`StatsBuilder::following`]
    /// over the lines right after this builder's. When a tracking limit
    /// was reached, or could be by the merge, the result would not be
    /// exactly the sequential one: `later` is given back untouched (and
    /// this builder too), and the caller counts those lines again here.
    pub fn merge_following(&mut self, later: StatsBuilder) -> Result<(), Box<StatsBuilder>> {
        if !self.merges_exactly(&later) {
            return Err(Box::new(later));
        }
        let StatsBuilder {
            stats,
            resident,
            latency,
            files,
            sessions,
            ..
        } = later;
        self.merge_counts(stats);
        self.resident.merge(resident);
        self.latency.merge(latency);
        for (name, theirs) in files {
            match self.files.get_mut(&name) {
                Some(file) => {
                    file.injections += theirs.injections;
                    file.bytes = file.bytes.saturating_add(theirs.bytes);
                    file.max_bytes = file.max_bytes.max(theirs.max_bytes);
                }
                None => {
                    self.files.insert(name, theirs);
                }
            }
        }
        for (name, theirs) in sessions {
            let replay = self.sessions.entry(name).or_default();
            replay.last_step = replay.last_step.max(theirs.last_step);
            for (file, touch) in theirs.touches {
                if touch.gone {
                    replay.resident.remove(&file);
                } else if let (Some(step), Some(block)) =
                    (touch.relevant, replay.resident.get_mut(&file))
                {
                    block.last_relevant = step;
                }
            }
            replay.resident.extend(theirs.resident);
        }
        Ok(())
    }

    /// Whether merging `later` gives exactly what one builder fed every
    /// line would: it follows this one, and no tracking limit was reached
    /// or would be by the merge.
    fn merges_exactly(&self, later: &StatsBuilder) -> bool {
        let max = self.max_tracked.unwrap_or(STATS_MAX_TRACKED);
        let new_sessions = later
            .sessions
            .keys()
            .filter(|s| !self.sessions.contains_key(*s))
            .count();
        let new_files = later
            .files
            .keys()
            .filter(|f| !self.files.contains_key(*f))
            .count();
        let resident_fits = later.sessions.iter().all(|(name, replay)| {
            let before = self.sessions.get(name).map_or(0, |r| r.resident.len());
            before + replay.resident.len() <= max
        });
        !(!later.following
            || !self.stats.limits_hit.is_empty()
            || !later.stats.limits_hit.is_empty()
            || self.sessions.len() + new_sessions > max
            || self.files.len() + new_files > max
            || !resident_fits)
    }

    /// Adds the totals and distributions by name of a later builder's
    /// statistics.
    fn merge_counts(&mut self, stats: Stats) {
        let mine = &mut self.stats;
        mine.lines += stats.lines;
        mine.skipped_lines += stats.skipped_lines;
        mine.startups += stats.startups;
        mine.discoveries += stats.discoveries;
        mine.hits += stats.hits;
        mine.bytes_injected = mine.bytes_injected.saturating_add(stats.bytes_injected);
        mine.candidates += stats.candidates;
        mine.scope_skipped += stats.scope_skipped;
        mine.untracked_events += stats.untracked_events;
        for (mine, theirs) in [
            (&mut mine.attribution, stats.attribution),
            (&mut mine.channels, stats.channels),
            (&mut mine.decisions, stats.decisions),
        ] {
            for (key, n) in theirs {
                *mine.entry(key).or_default() += n;
            }
        }
    }

    /// Counts one line of a log: an event of [`EVENT_SCHEMA`], or a line
    /// that is not (counted in `skipped_lines`). Blank lines are ignored.
    pub fn push_line(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        self.stats.lines += 1;
        match serde_json::from_str::<LineEvent<'_>>(line) {
            Ok(event) if event.schema == EVENT_SCHEMA => self.push_event(&event),
            _ => self.stats.skipped_lines += 1,
        }
    }

    fn push_event(&mut self, event: &LineEvent<'_>) {
        let max = self.max_tracked.unwrap_or(STATS_MAX_TRACKED);
        self.count_event(event);
        let is_discovery = event.kind == EventKind::Discovery;
        let stats = &mut self.stats;
        let Some(replay) = session_replay(&mut self.sessions, stats, max, &event.session) else {
            stats.untracked_events += 1;
            return;
        };
        replay.last_step = replay.last_step.max(event.step);
        for departure in &event.left {
            replay.resident.remove(departure.file.as_ref());
            if self.following {
                mark_gone(&mut replay.touches, &departure.file);
            }
        }
        for candidate in &event.candidates {
            // A rule the agent loaded by itself is in its context, but
            // nothing was injected for it.
            let native = candidate
                .attribution
                .as_ref()
                .is_some_and(|a| a.is(Attribution::Native));
            let injected = !candidate.decision.is(Decision::Skipped) && !native;
            if is_discovery {
                count_decision(stats, &mut self.key, candidate, native, injected);
            }
            // A rule left out for the budget without even a pointer
            // (`too_large_for_budget`, 0 bytes) put nothing in.
            if !injected
                || (candidate.decision.is(Decision::TooLargeForBudget) && candidate.bytes == 0)
            {
                continue;
            }
            if let Some(attribution) = &candidate.attribution {
                count(&mut stats.attribution, attribution.as_str());
            }
            count_file(&mut self.files, stats, max, candidate);
            // An imported file has no block of its own: its text is in
            // the importing rule's block, which is resident instead.
            if candidate
                .attribution
                .as_ref()
                .is_some_and(|a| a.is(Attribution::Include))
            {
                continue;
            }
            let block = Resident {
                bytes: candidate.bytes,
                introduced: event.step,
                last_relevant: event.step,
            };
            place_block(replay, stats, max, self.following, &candidate.file, block);
        }
        for file in &event.relevant {
            if let Some(block) = replay.resident.get_mut(file.as_ref()) {
                block.last_relevant = event.step;
            } else if self.following {
                mark_relevant(&mut replay.touches, file, event.step);
            }
        }
    }

    /// Counts what an event says about itself, whatever its session: its
    /// kind, and for a discovery its hit, bytes, latency and channel.
    fn count_event(&mut self, event: &LineEvent<'_>) {
        let stats = &mut self.stats;
        self.resident.push(event.resident_bytes);
        if event.kind == EventKind::Discovery {
            stats.discoveries += 1;
            stats.hits += u64::from(event.hit);
            stats.bytes_injected = stats.bytes_injected.saturating_add(event.bytes_injected);
            self.latency.push(event.elapsed_us);
            count(&mut stats.channels, event.channel.as_str());
        } else {
            stats.startups += 1;
        }
    }

    /// The statistics of every line pushed.
    pub fn finish(self) -> Stats {
        let StatsBuilder {
            options,
            mut stats,
            resident,
            latency,
            files,
            sessions,
            key: _,
            max_tracked: _,
            following: _,
        } = self;
        for (what, distribution) in [("resident byte", &resident), ("latency", &latency)] {
            if distribution.coarse {
                stats.limits_hit.push(format!(
                    "more than {EXACT_VALUES} distinct {what} values: their percentiles are \
                     within 1% (the maximum is exact)"
                ));
            }
        }
        stats.sessions = sessions.len() as u64;
        stats.hit_rate = ratio(stats.hits, stats.discoveries);
        stats.avg_injected_bytes = ratio(stats.bytes_injected, stats.hits);
        stats.waste_rate = ratio(stats.scope_skipped, stats.candidates);
        stats.resident_bytes = resident.percentiles();
        stats.latency_us = latency.percentiles();
        let mut by_file: Vec<FileStats> = files.into_values().collect();
        by_file.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.file.cmp(&b.file)));
        stats.by_file = by_file;
        for (session, replay) in sessions {
            for (file, block) in replay.resident {
                let idle = replay.last_step.saturating_sub(block.last_relevant);
                if block.bytes >= options.debt_min_bytes && idle >= options.debt_idle_steps {
                    stats.debt.push(DebtRow {
                        session: session.clone(),
                        file,
                        bytes: block.bytes,
                        introduced_step: block.introduced,
                        last_relevant_step: block.last_relevant,
                        idle_steps: idle,
                    });
                }
            }
        }
        stats.debt.sort_by(|a, b| {
            b.bytes
                .cmp(&a.bytes)
                .then_with(|| a.session.cmp(&b.session))
                .then_with(|| a.file.cmp(&b.file))
        });
        stats
    }
}

impl Stats {
    /// Statistics over the lines of one or more event logs, in the order
    /// they were written. Lines that are not events of [`EVENT_SCHEMA`] are
    /// counted in `skipped_lines` and otherwise ignored. For logs too large
    /// to hold in memory, feed a [`StatsBuilder`] line by line instead.
    pub fn from_lines<'a>(
        lines: impl IntoIterator<Item = &'a str>,
        options: StatsOptions,
    ) -> Stats {
        let mut builder = StatsBuilder::new(options);
        for line in lines {
            builder.push_line(line);
        }
        builder.finish()
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts of events stay far below 2^52"
)]
fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn percentiles(values: impl IntoIterator<Item = u64>) -> Percentiles {
        let mut distribution = Distribution::default();
        for value in values {
            distribution.push(value);
        }
        distribution.percentiles()
    }

    #[test]
    fn nearest_rank_percentiles() {
        let p = percentiles(1..=20);
        assert_eq!((p.p50, p.p95, p.max), (10, 19, 20));
        let p = percentiles([7]);
        assert_eq!((p.p50, p.p95, p.max), (7, 7, 7));
        assert_eq!(percentiles([]), Percentiles::default());
        let p = percentiles([5, 1, 5, 3]);
        assert_eq!((p.p50, p.p95, p.max), (3, 5, 5));
    }

    #[test]
    fn a_distribution_past_its_exact_limit_stays_within_one_percent() {
        let mut distribution = Distribution::default();
        let n = EXACT_VALUES as u64 * 2;
        for value in 1..=n {
            distribution.push(value * 1000);
        }
        assert!(distribution.coarse);
        assert!(
            distribution.counts.len() <= 64 * 256,
            "{}",
            distribution.counts.len()
        );
        let p = distribution.percentiles();
        assert_eq!(p.max, n * 1000);
        let exact_p50 = n / 2 * 1000;
        let error = exact_p50.abs_diff(p.p50) as f64 / exact_p50 as f64;
        assert!(error < 0.01, "{} vs {exact_p50}", p.p50);
        // Up to the limit, values are exact.
        let mut small = Distribution::default();
        for value in 0..EXACT_VALUES as u64 {
            small.push(value);
        }
        assert!(!small.coarse);
        small.push(EXACT_VALUES as u64);
        assert!(small.coarse);
    }

    #[test]
    fn buckets_keep_eight_significant_bits() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(255), 255);
        assert_eq!(bucket(256), 256);
        assert_eq!(bucket(257), 256);
        assert_eq!(bucket(511), 510);
        assert_eq!(bucket(u64::MAX), 0xff00_0000_0000_0000);
    }

    #[test]
    fn past_the_tracking_limit_names_are_counted_not_tracked_and_the_limit_is_said() {
        let line = |session: &str, file: &str| {
            format!(
                r#"{{"schema":1,"kind":"discovery","ts":"t","session":"{session}","channel":"main","step":1,"trigger":"a.rs","candidates":[{{"file":"{file}","decision":"loaded","attribution":"nested_traversal","bytes":10}}],"hit":true,"bytes_injected":10,"resident_bytes":10,"elapsed_us":5}}"#
            )
        };
        let mut builder = StatsBuilder::new(StatsOptions::default());
        builder.max_tracked = Some(2);
        for (session, file) in [
            ("s1", "a.md"),
            ("s2", "b.md"),
            ("s1", "c.md"),
            ("s3", "d.md"),
            ("s1", "a.md"),
        ] {
            builder.push_line(&line(session, file));
        }
        let stats = builder.finish();
        // s3 is past the limit: its event counts in the totals only.
        assert_eq!(
            (stats.discoveries, stats.sessions, stats.untracked_events),
            (5, 2, 1)
        );
        let files: Vec<(&str, u64)> = stats
            .by_file
            .iter()
            .map(|f| (f.file.as_str(), f.injections))
            .collect();
        // c.md came third: counted in the totals, not tracked on its own.
        assert_eq!(files, [("a.md", 2), ("b.md", 1)]);
        assert_eq!(
            stats.limits_hit,
            [
                "more than 2 rule files: the rest are not tracked one by one",
                "more than 2 sessions: the rest are not tracked one by one",
            ]
        );
        // Under the limit nothing is said.
        let stats = Stats::from_lines([line("s", "a.md").as_str()], StatsOptions::default());
        assert!(stats.limits_hit.is_empty() && stats.untracked_events == 0);
    }

    #[test]
    fn a_rule_the_agent_loaded_itself_is_native_not_injected() {
        let line = r#"{"schema":1,"kind":"discovery","ts":"t","session":"s","channel":"main","step":1,"trigger":"a.rs","candidates":[{"file":"a/CLAUDE.md","decision":"loaded","attribution":"native","bytes":0},{"file":"b.md","decision":"loaded","attribution":"path_glob_match","bytes":7},{"file":"c.md","decision":"skipped","reason":"scope_miss","bytes":0}],"hit":true,"bytes_injected":7,"resident_bytes":7,"elapsed_us":5}"#;
        let stats = Stats::from_lines([line], StatsOptions::default());
        let decisions: Vec<(&str, u64)> = stats
            .decisions
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(
            decisions,
            [("loaded", 1), ("native", 1), ("skipped:scope_miss", 1)]
        );
        let files: Vec<&str> = stats.by_file.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["b.md"], "nothing was injected for the native one");
        assert_eq!((stats.candidates, stats.scope_skipped), (3, 1));
    }

    /// Events of three interleaved sessions whose blocks come, are
    /// replaced, leave and are relevant, with foreign lines among them.
    fn session_log() -> Vec<String> {
        (0..60u64)
            .map(|i| {
                if i % 11 == 5 {
                    return "not an event".to_owned();
                }
                let session = i % 3;
                let step = i / 3;
                let file = |k: u64| format!("r{}.md", (i + k) % 5);
                let kind = if step == 0 { "startup" } else { "discovery" };
                let left = if i % 4 == 0 {
                    format!(r#"[{{"file":"{}","reason":"compacted"}}]"#, file(1))
                } else {
                    "[]".to_owned()
                };
                format!(
                    r#"{{"schema":1,"kind":"{kind}","ts":"t","session":"s{session}","channel":"main","step":{step},"trigger":"x","candidates":[{{"file":"{}","decision":"loaded","attribution":"nested_traversal","bytes":{}}}],"hit":true,"bytes_injected":{},"resident_bytes":{},"relevant":["{}","{}"],"left":{left},"elapsed_us":{}}}"#,
                    file(0),
                    900 + i * 37,
                    900 + i * 37,
                    i * 101,
                    file(2),
                    file(3),
                    i % 7,
                )
            })
            .collect()
    }

    #[test]
    fn two_halves_merged_count_exactly_like_one_builder() {
        let log = session_log();
        let options = StatsOptions {
            debt_min_bytes: 1000,
            debt_idle_steps: 2,
        };
        let expected = Stats::from_lines(log.iter().map(String::as_str), options);
        assert!(
            !expected.debt.is_empty(),
            "the log must leave debt to compare"
        );
        for split in 0..=log.len() {
            let mut first = StatsBuilder::new(options);
            for line in &log[..split] {
                first.push_line(line);
            }
            let mut second = StatsBuilder::following(options);
            for line in &log[split..] {
                second.push_line(line);
            }
            assert!(first.merge_following(second).is_ok());
            assert_eq!(first.finish(), expected, "split at line {split}");
        }
    }

    /// One discovery event of `session` at `step`, injecting `inject` (a
    /// 2,000-byte block), with `left` and `relevant` files.
    fn event(
        session: &str,
        step: u64,
        inject: &[&str],
        left: &[&str],
        relevant: &[&str],
    ) -> String {
        let list = |files: &[&str], f: &dyn Fn(&str) -> String| {
            files.iter().map(|x| f(x)).collect::<Vec<_>>().join(",")
        };
        format!(
            r#"{{"schema":1,"kind":"discovery","ts":"t","session":"{session}","channel":"main","step":{step},"trigger":"x","candidates":[{}],"hit":true,"bytes_injected":0,"resident_bytes":0,"relevant":[{}],"left":[{}],"elapsed_us":1}}"#,
            list(inject, &|f| format!(
                r#"{{"file":"{f}","decision":"loaded","attribution":"nested_traversal","bytes":2000}}"#
            )),
            list(relevant, &|f| format!("\"{f}\"")),
            list(left, &|f| format!(
                r#"{{"file":"{f}","reason":"compacted"}}"#
            )),
        )
    }

    /// The statistics of `first` then `second`, counted by one builder and
    /// by two merged; both must agree.
    fn one_and_two(first: &[String], second: &[String]) -> Stats {
        let options = StatsOptions {
            debt_min_bytes: 1000,
            debt_idle_steps: 2,
        };
        let one = Stats::from_lines(first.iter().chain(second).map(String::as_str), options);
        let mut a = StatsBuilder::new(options);
        first.iter().for_each(|l| a.push_line(l));
        let mut b = StatsBuilder::following(options);
        second.iter().for_each(|l| b.push_line(l));
        assert!(a.merge_following(b).is_ok());
        let two = a.finish();
        assert_eq!(two, one);
        two
    }

    #[test]
    fn a_block_that_leaves_in_the_second_half_is_gone_after_the_merge() {
        let stats = one_and_two(
            &[event("s", 1, &["x.md"], &[], &[])],
            &[
                event("s", 2, &[], &["x.md"], &[]),
                event("s", 9, &[], &[], &[]),
            ],
        );
        assert!(stats.debt.is_empty(), "{:?}", stats.debt);
    }

    #[test]
    fn relevance_in_the_second_half_reaches_a_block_of_the_first() {
        let stats = one_and_two(
            &[event("s", 1, &["x.md"], &[], &[])],
            &[
                event("s", 7, &[], &[], &["x.md"]),
                event("s", 10, &[], &[], &[]),
            ],
        );
        let debt: Vec<(u64, u64)> = stats
            .debt
            .iter()
            .map(|d| (d.last_relevant_step, d.idle_steps))
            .collect();
        assert_eq!(debt, [(7, 3)]);
        // Relevance after the block left is no relevance to it.
        let stats = one_and_two(
            &[event("s", 1, &["x.md"], &[], &[])],
            &[
                event("s", 2, &[], &["x.md"], &[]),
                event("s", 3, &[], &[], &["x.md"]),
                event("s", 9, &[], &[], &[]),
            ],
        );
        assert!(stats.debt.is_empty());
    }

    #[test]
    fn a_distribution_merged_is_the_distribution_of_all_values() {
        let mut all = Distribution::default();
        let mut a = Distribution::default();
        let mut b = Distribution::default();
        let n = EXACT_VALUES as u64;
        for v in 0..n / 2 + 10 {
            a.push(v * 3);
            all.push(v * 3);
        }
        for v in 0..n / 2 + 10 {
            b.push(v * 3 + 1);
            all.push(v * 3 + 1);
        }
        // Each half is exact; together they are past the exact limit.
        assert!(!a.coarse && !b.coarse && all.coarse);
        a.merge(b);
        assert!(a.coarse);
        assert_eq!(
            (&a.counts, a.total, a.max),
            (&all.counts, all.total, all.max)
        );
        // A coarse distribution merged into an exact one makes it coarse.
        let mut exact = Distribution::default();
        exact.push(1_000_003);
        let mut expected = all;
        expected.push(1_000_003);
        exact.merge(a);
        assert!(exact.coarse);
        assert_eq!(
            (&exact.counts, exact.total),
            (&expected.counts, expected.total)
        );
        // Exactly at the limit, a merge stays exact.
        let mut a = Distribution::default();
        let mut b = Distribution::default();
        for v in 0..n / 2 {
            a.push(v);
            b.push(v + n / 2);
        }
        a.merge(b);
        assert!(!a.coarse && a.counts.len() as u64 == n);
    }

    #[test]
    fn every_tracking_limit_refuses_a_merge_and_reaching_one_exactly_does_not() {
        let merge = |max: usize, first: &[String], second: &[String]| {
            let mut a = StatsBuilder::new(StatsOptions::default());
            a.max_tracked = Some(max);
            first.iter().for_each(|l| a.push_line(l));
            let mut b = StatsBuilder::following(StatsOptions::default());
            b.max_tracked = Some(max);
            second.iter().for_each(|l| b.push_line(l));
            a.merge_following(b).is_ok()
        };
        let e = |session: &str, file: &str| event(session, 1, &[file], &[], &[]);
        // Sessions: two and two new make four.
        assert!(merge(
            4,
            &[e("a", "x"), e("b", "x")],
            &[e("c", "x"), e("d", "x")]
        ));
        assert!(!merge(2, &[e("a", "x"), e("b", "x")], &[e("c", "x")]));
        // Rule files: two and one new make three (nothing else at a limit).
        assert!(merge(3, &[e("a", "x"), e("a", "y")], &[e("b", "z")]));
        assert!(!merge(2, &[e("a", "x"), e("a", "y")], &[e("b", "z")]));
        // Resident blocks of one session: two and two (the same two files,
        // so only the blocks could pass the limit).
        let two = [e("a", "x"), e("a", "y")];
        assert!(merge(4, &two, &two));
        assert!(!merge(3, &two, &two));
        // A limit reached inside either half.
        assert!(!merge(1, &[e("a", "x"), e("b", "x")], &[]));
        assert!(!merge(1, &[], &[e("a", "x"), e("b", "x")]));
    }

    #[test]
    fn a_merge_that_would_pass_a_tracking_limit_is_refused_untouched() {
        let log = session_log();
        let mut first = StatsBuilder::new(StatsOptions::default());
        first.max_tracked = Some(2);
        first.push_line(&log[0]);
        let mut second = StatsBuilder::following(StatsOptions::default());
        for line in &log[1..] {
            second.push_line(line);
        }
        let Err(second) = first.merge_following(*Box::new(second)) else {
            panic!("three sessions do not fit a limit of two");
        };
        // Counted again one line at a time, the limit is reached as it
        // would be sequentially.
        for line in &log[1..] {
            first.push_line(line);
        }
        drop(second);
        let stats = first.finish();
        assert_eq!(stats.sessions, 2);
        assert!(stats.untracked_events > 0);
        // A builder not made to follow is refused too.
        let mut first = StatsBuilder::new(StatsOptions::default());
        assert!(
            first
                .merge_following(StatsBuilder::new(StatsOptions::default()))
                .is_err()
        );
    }

    #[test]
    fn a_complete_event_of_another_schema_is_skipped() {
        let event = r#"{"schema":SCHEMA,"kind":"discovery","ts":"t","session":"s","channel":"main","step":1,"trigger":"a.rs","candidates":[],"hit":false,"bytes_injected":0,"resident_bytes":0,"elapsed_us":5}"#;
        let this = event.replace("SCHEMA", &EVENT_SCHEMA.to_string());
        let next = event.replace("SCHEMA", &(EVENT_SCHEMA + 1).to_string());
        let stats = Stats::from_lines([this.as_str(), next.as_str()], StatsOptions::default());
        assert_eq!(
            (stats.lines, stats.discoveries, stats.skipped_lines),
            (2, 1, 1)
        );
    }

    #[test]
    fn foreign_and_old_lines_are_counted_not_fatal() {
        let lines = [
            "",
            "{}",
            "[1,2]",
            r#"{"schema":0,"kind":"discovery"}"#,
            r#"{"schema":1,"kind":"discovery"}"#,
            "\u{fffd}garbage",
        ];
        let stats = Stats::from_lines(lines, StatsOptions::default());
        assert_eq!((stats.lines, stats.skipped_lines), (5, 5));
        assert_eq!(stats.discoveries, 0);
        assert_eq!(stats.hit_rate, 0.0);
    }
}
