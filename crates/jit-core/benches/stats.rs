//! `jit stats` throughput: 100,000 realistic event lines through a `StatsBuilder`, the work per line behind the "1,000,000 events in under 2 s" target.
//!
//! Run with `cargo bench -p jit-core --bench stats`. The lines are the
//! events of a real session (a startup, then discoveries that hit, miss and
//! skip by scope), repeated over 20 sessions with varying steps and
//! latencies, about 600 bytes each.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use divan::Bencher;
use jit_core::{StatsBuilder, StatsOptions};

fn main() {
    divan::main();
}

const DISCOVERY: &str = r#"{"schema":1,"kind":"discovery","ts":"2026-12-02T18:14:42.001Z","session":"SESSION","channel":"main","step":STEP,"tool":"write","paths":["/work/app/src/ui/Footer.tsx"],"trigger":"src/ui/Footer.tsx","candidates":[{"file":"CLAUDE.md","decision":"skipped","reason":"already_loaded","bytes":0},{"file":".claude/rules/python.md","decision":"skipped","reason":"scope_miss","bytes":0},{"file":"src/ui/CLAUDE.md","decision":"loaded","attribution":"path_glob_match","bytes":156,"hash":"8f2c1a5e77d03b19"}],"hit":true,"bytes_injected":156,"resident_bytes":156,"relevant":["src/ui/CLAUDE.md"],"left":[],"elapsed_us":LATENCY}"#;

fn lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            DISCOVERY
                .replace("SESSION", &format!("s{}", i % 20))
                .replace("STEP", &(i / 20).to_string())
                .replace("LATENCY", &(40 + i % 997).to_string())
        })
        .collect()
}

/// 100,000 lines: multiply by 10 for the million-event figure.
#[divan::bench(sample_count = 10)]
fn hundred_thousand_events(bencher: Bencher) {
    let lines = lines(100_000);
    bencher.bench(|| {
        let mut builder = StatsBuilder::new(StatsOptions::default());
        for line in &lines {
            builder.push_line(line);
        }
        let stats = builder.finish();
        assert_eq!(stats.discoveries, 100_000);
        stats
    });
}
