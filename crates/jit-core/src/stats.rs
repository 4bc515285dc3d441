//! Statistics over event logs: hit rate, waste, resident bytes, latency, distributions, leaderboard, context debt.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::events::{EVENT_SCHEMA, Event, EventKind};
use crate::manifest::{DEFAULT_DEBT_IDLE_STEPS, DEFAULT_DEBT_MIN_BYTES};

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
    /// JIT discovery events: one per touched path, the hit rate's denominator.
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
}

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
}

impl Stats {
    /// Statistics over the lines of one or more event logs, in the order
    /// they were written. Lines that are not events of [`EVENT_SCHEMA`] are
    /// counted in `skipped_lines` and otherwise ignored.
    pub fn from_lines<'a>(
        lines: impl IntoIterator<Item = &'a str>,
        options: StatsOptions,
    ) -> Stats {
        let mut stats = Stats::default();
        let mut resident = Vec::new();
        let mut latency = Vec::new();
        let mut files: HashMap<String, FileStats> = HashMap::new();
        let mut sessions: BTreeMap<String, SessionReplay> = BTreeMap::new();

        for line in lines {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            stats.lines += 1;
            let Some(event) = parse(line) else {
                stats.skipped_lines += 1;
                continue;
            };
            resident.push(event.resident_bytes);
            let is_discovery = event.kind == EventKind::Discovery;
            if is_discovery {
                stats.discoveries += 1;
                stats.hits += u64::from(event.hit);
                stats.bytes_injected = stats.bytes_injected.saturating_add(event.bytes_injected);
                latency.push(event.elapsed_us);
                *stats.channels.entry(event.channel.clone()).or_default() += 1;
            } else {
                stats.startups += 1;
            }

            let replay = sessions.entry(event.session.clone()).or_default();
            replay.last_step = replay.last_step.max(event.step);
            for departure in &event.left {
                replay.resident.remove(&departure.file);
            }
            for candidate in &event.candidates {
                // A rule the agent loaded by itself is in its context, but
                // nothing was injected for it.
                let native = candidate.attribution.as_deref() == Some("native");
                let injected = candidate.decision != "skipped" && !native;
                if is_discovery {
                    stats.candidates += 1;
                    if candidate.reason.as_deref() == Some("scope_miss") {
                        stats.scope_skipped += 1;
                    }
                    let key = match (&candidate.reason, injected) {
                        _ if native => "native".to_owned(),
                        (Some(reason), false) => format!("skipped:{reason}"),
                        _ => candidate.decision.clone(),
                    };
                    *stats.decisions.entry(key).or_default() += 1;
                }
                // A rule left out for the budget without even a pointer
                // (`too_large_for_budget`, 0 bytes) put nothing in.
                if !injected
                    || (candidate.decision == "too_large_for_budget" && candidate.bytes == 0)
                {
                    continue;
                }
                if let Some(attribution) = &candidate.attribution {
                    *stats.attribution.entry(attribution.clone()).or_default() += 1;
                }
                let file = files
                    .entry(candidate.file.clone())
                    .or_insert_with(|| FileStats {
                        file: candidate.file.clone(),
                        injections: 0,
                        bytes: 0,
                        max_bytes: 0,
                    });
                file.injections += 1;
                file.bytes = file.bytes.saturating_add(candidate.bytes);
                file.max_bytes = file.max_bytes.max(candidate.bytes);
                // An imported file has no block of its own: its text is in
                // the importing rule's block, which is resident instead.
                if candidate.attribution.as_deref() == Some("include") {
                    continue;
                }
                replay.resident.insert(
                    candidate.file.clone(),
                    Resident {
                        bytes: candidate.bytes,
                        introduced: event.step,
                        last_relevant: event.step,
                    },
                );
            }
            for file in &event.relevant {
                if let Some(block) = replay.resident.get_mut(file) {
                    block.last_relevant = event.step;
                }
            }
        }

        stats.sessions = sessions.len() as u64;
        stats.hit_rate = ratio(stats.hits, stats.discoveries);
        stats.avg_injected_bytes = ratio(stats.bytes_injected, stats.hits);
        stats.waste_rate = ratio(stats.scope_skipped, stats.candidates);
        stats.resident_bytes = percentiles(resident);
        stats.latency_us = percentiles(latency);
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

/// One event of this schema, or `None` for anything else.
fn parse(line: &str) -> Option<Event> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    if value.get("schema")?.as_u64()? != u64::from(EVENT_SCHEMA) {
        return None;
    }
    serde_json::from_value(value).ok()
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

/// Nearest-rank percentiles.
fn percentiles(mut values: Vec<u64>) -> Percentiles {
    if values.is_empty() {
        return Percentiles::default();
    }
    values.sort_unstable();
    let rank = |p: usize| {
        let n = values.len();
        let index = (p * n).div_ceil(100).saturating_sub(1);
        values.get(index.min(n - 1)).copied().unwrap_or(0)
    };
    Percentiles {
        p50: rank(50),
        p95: rank(95),
        max: values.last().copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let p = percentiles((1..=20).collect());
        assert_eq!((p.p50, p.p95, p.max), (10, 19, 20));
        let p = percentiles(vec![7]);
        assert_eq!((p.p50, p.p95, p.max), (7, 7, 7));
        assert_eq!(percentiles(Vec::new()), Percentiles::default());
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
