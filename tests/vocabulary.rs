//! The event vocabulary: the README's tables name exactly the variants of each enum, and names from a newer version are read, counted apart, and never fatal.

use std::collections::BTreeSet;
use std::fs;

use jit_core::{
    Attribution, ChannelKind, Decision, Event, LeaveReason, SkipReason, Stats, StatsOptions, Tier,
};
use pretty_assertions::assert_eq;

const README: &str = include_str!("../README.md");

/// The names in the first column of the README table whose header's first
/// cell is `header`, without their backticks.
fn table_names(header: &str) -> Vec<String> {
    let mut lines = README.lines();
    let found = lines.find(|line| {
        line.starts_with('|')
            && line
                .split('|')
                .nth(1)
                .is_some_and(|cell| cell.trim() == header)
    });
    assert!(
        found.is_some(),
        "README.md has no table whose header starts with `| {header} |`; add one listing every name"
    );
    lines
        .skip(1) // The `|---|` line.
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| line.split('|').nth(1))
        .map(|cell| cell.trim().trim_matches('`').to_owned())
        .collect()
}

/// Checks that the README table `header` lists exactly `names`, and says
/// which are missing from it or extra in it.
#[track_caller]
fn check(header: &str, names: impl IntoIterator<Item = &'static str>) {
    let listed = table_names(header);
    let documented: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    assert_eq!(
        documented.len(),
        listed.len(),
        "the README table `{header}` lists a name twice: {listed:?}"
    );
    let known: BTreeSet<&str> = names.into_iter().collect();
    let missing: Vec<&str> = known.difference(&documented).copied().collect();
    let extra: Vec<&str> = documented.difference(&known).copied().collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the README table `{header}` does not match the code: missing from the README {missing:?}, \
         in the README but not in the code {extra:?}"
    );
}

#[test]
fn the_readme_tables_name_every_variant_and_nothing_else() {
    check("decision", Decision::KNOWN.iter().map(|v| v.as_str()));
    check("reason", SkipReason::KNOWN.iter().map(|v| v.as_str()));
    check("attribution", Attribution::KNOWN.iter().map(|v| v.as_str()));
    check("left reason", LeaveReason::KNOWN.iter().map(|v| v.as_str()));
    check("channel", ChannelKind::KNOWN.iter().map(|v| v.as_str()));
    check("tier", Tier::KNOWN.iter().map(|v| v.as_str()));
}

#[test]
fn the_table_check_names_what_is_missing_and_what_is_extra() {
    let outcome = std::panic::catch_unwind(|| {
        check("channel", ["main", "worker"]);
    });
    let message = outcome
        .err()
        .and_then(|panic| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        message.contains(r#"missing from the README ["worker"]"#)
            && message.contains(r#"not in the code ["subagent"]"#),
        "{message}"
    );
}

fn future_log() -> String {
    fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/stats/future_names.jsonl"
    ))
    .unwrap()
}

/// A log from a newer version (a reason, an attribution, a decision, a
/// channel and a departure reason this version does not know) is counted,
/// with each unknown name kept apart from the known ones.
#[test]
fn stats_count_names_from_a_newer_version_under_their_own_name() {
    let stats = Stats::from_lines(future_log().lines(), StatsOptions::default());
    assert_eq!(
        (stats.lines, stats.skipped_lines, stats.discoveries),
        (3, 0, 2)
    );
    let decisions: Vec<(&str, u64)> = stats
        .decisions
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        decisions,
        [
            ("loaded", 1),
            ("skipped:scope_miss", 1),
            ("skipped:some_future_reason", 2),
            ("some_future_decision", 1),
        ]
    );
    // Not mistaken for a scope miss.
    assert_eq!((stats.candidates, stats.scope_skipped), (5, 1));
    let channels: Vec<(&str, u64)> = stats
        .channels
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(channels, [("main", 1), ("some_future_channel", 1)]);
    let attribution: Vec<(&str, u64)> = stats
        .attribution
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        attribution,
        [
            ("nested_traversal", 1),
            ("session_start", 1),
            ("some_future_attribution", 1),
        ]
    );
}

/// The public event type reads the same lines: an unknown name becomes the
/// `Unknown` variant, never a known one and never an error.
#[test]
fn events_read_names_from_a_newer_version_as_unknown() {
    let events: Vec<Event> = future_log()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let discovery = &events[1];
    assert_eq!(discovery.candidates[0].reason, Some(SkipReason::Unknown));
    assert_eq!(discovery.candidates[1].reason, Some(SkipReason::ScopeMiss));
    assert_eq!(
        discovery.candidates[2].attribution,
        Some(Attribution::Unknown)
    );
    let sub = &events[2];
    assert_eq!(sub.channel, ChannelKind::Unknown);
    assert_eq!(sub.candidates[0].decision, Decision::Unknown);
    assert_eq!(sub.left[0].reason, LeaveReason::Unknown);
    // Known names still read as themselves.
    assert_eq!(events[0].channel, ChannelKind::Main);
    assert_eq!(events[0].candidates[0].decision, Decision::Loaded);
}
