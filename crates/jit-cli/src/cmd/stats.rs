//! `jit stats`: hit rate, waste, resident bytes, latency, distributions and leaderboards over event logs.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use jit_core::{Stats, StatsBuilder, StatsOptions};

use crate::cmd::non_empty_path;
use crate::lines::{Line, READ_BUFFER_BYTES, for_each_line};
use crate::output::{self, escape};

const AFTER_HELP: &str = "\
Example:
  jit stats --by-file ~/.local/state/jit/claude-code-*.events.jsonl
      Hit rate, waste and resident bytes over every Claude Code session the
      hook logged, with the rule files that cost the most.";

/// Arguments of `jit stats`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Add the per-file leaderboard to the table (JSON always has it).
    #[arg(long)]
    by_file: bool,
    /// Add the context-debt report to the table (JSON always has it).
    #[arg(long)]
    debt: bool,
    /// A block is context debt from this many bytes up.
    #[arg(long, value_name = "BYTES", default_value_t = jit_core::DEFAULT_DEBT_MIN_BYTES)]
    debt_min_bytes: u64,
    /// ... after this many steps since it was last relevant.
    #[arg(long, value_name = "STEPS", default_value_t = jit_core::DEFAULT_DEBT_IDLE_STEPS)]
    debt_idle_steps: u64,
    /// Event logs (JSON Lines), read in order.
    #[arg(value_name = "FILE", required = true, value_parser = non_empty_path)]
    files: Vec<PathBuf>,
}

/// Runs `jit stats`.
///
/// The table escapes control characters in what the logs name (files,
/// sessions, attributions, channels): a log is foreign input. The JSON
/// output is exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = StatsOptions {
        debt_min_bytes: args.debt_min_bytes,
        debt_idle_steps: args.debt_idle_steps,
    };
    // Logs are read line by line: memory stays bounded whatever their size.
    let mut builder = StatsBuilder::new(options);
    for file in &args.files {
        count_file(&mut builder, file, options, SPLIT_MIN_BYTES)
            .with_context(|| format!("cannot read {}", file.display()))?;
    }
    let stats = builder.finish();
    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &stats)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &stats, &args)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// From this size up, a regular file is counted in two halves at once
/// (when the machine has two cores), merged exactly.
const SPLIT_MIN_BYTES: u64 = 32 * 1024 * 1024;

/// Counts the lines of `path` into `builder`: a large regular file in two
/// halves on two threads, anything else (a small file, a FIFO the user
/// named) straight through.
fn count_file(
    builder: &mut StatsBuilder,
    path: &std::path::Path,
    options: StatsOptions,
    split_min: u64,
) -> std::io::Result<()> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let split = if meta.is_file() && meta.len() >= split_min && cores >= 2 {
        split_point(&mut file, meta.len() / 2)?
    } else {
        None
    };
    let Some(split) = split else {
        return count_lines(builder, file.take(u64::MAX));
    };
    file.seek(SeekFrom::Start(0))?;
    let mut second_half = std::fs::File::open(path)?;
    second_half.seek(SeekFrom::Start(split))?;
    let later = std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            let mut later = StatsBuilder::following(options);
            count_lines(&mut later, second_half.take(u64::MAX)).map(|()| later)
        });
        let first = count_lines(builder, (&mut file).take(split));
        // A worker that panicked is counted again here.
        let later = worker.join().ok();
        first.map(|()| later)
    })?;
    match later {
        Some(Ok(later)) => match builder.merge_following(later) {
            Ok(()) => Ok(()),
            // A tracking limit: the second half is counted again here, in
            // order, so the limit falls where it would.
            Err(_) => count_rest(builder, path, split),
        },
        Some(Err(err)) => Err(err),
        None => count_rest(builder, path, split),
    }
}

/// Counts the lines of `path` from byte `from` on.
fn count_rest(
    builder: &mut StatsBuilder,
    path: &std::path::Path,
    from: u64,
) -> std::io::Result<()> {
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    count_lines(builder, file.take(u64::MAX))
}

/// The offset just past the first line break at or after `near`, or
/// `None` when there is none (one huge line: no split).
fn split_point(file: &mut std::fs::File, near: u64) -> std::io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(near))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let mut at = near;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(None);
        }
        if let Some(i) = memchr::memchr(b'\n', chunk) {
            return Ok(Some(at + i as u64 + 1));
        }
        let len = chunk.len();
        at += len as u64;
        reader.consume(len);
    }
}

/// Counts every line `reader` gives.
fn count_lines(builder: &mut StatsBuilder, reader: impl Read) -> std::io::Result<()> {
    for_each_line(
        BufReader::with_capacity(READ_BUFFER_BYTES, reader),
        MAX_LINE_BYTES,
        |line| {
            match line {
                // A line that is not UTF-8 is foreign: it fails to parse and
                // is counted as skipped, like any other foreign line.
                Line::Whole(line) => match std::str::from_utf8(line) {
                    Ok(line) => builder.push_line(line),
                    Err(_) => builder.push_line(&String::from_utf8_lossy(line)),
                },
                // Cut: never an event, whatever it started with; counted as
                // a skipped line.
                Line::Cut(_) => builder.push_line("\0"),
            }
            ControlFlow::Continue(())
        },
    )
}

/// The longest line taken as a possible event: far above any event jit
/// writes. A longer line is counted as skipped, without ever being held
/// whole.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

fn write_table(out: &mut impl Write, stats: &Stats, args: &Args) -> std::io::Result<()> {
    let rows: Vec<(&str, String)> = vec![
        (
            "sessions",
            format!("{} ({} startup loads)", stats.sessions, stats.startups),
        ),
        ("discoveries", stats.discoveries.to_string()),
        (
            "hit rate",
            format!(
                "{} ({} / {} discoveries)",
                percent(stats.hit_rate),
                stats.hits,
                stats.discoveries
            ),
        ),
        (
            "avg injected",
            format!(
                "{} per hit ({} in all)",
                bytes(stats.avg_injected_bytes.round() as u64),
                bytes(stats.bytes_injected)
            ),
        ),
        (
            "waste rate",
            format!(
                "{} ({} scope-skipped / {} candidates)",
                percent(stats.waste_rate),
                stats.scope_skipped,
                stats.candidates
            ),
        ),
        ("resident P50", bytes(stats.resident_bytes.p50)),
        (
            "resident P95 / MAX",
            format!(
                "{} / {}",
                bytes(stats.resident_bytes.p95),
                bytes(stats.resident_bytes.max)
            ),
        ),
        (
            "latency P50 / MAX",
            format!(
                "{} / {}",
                micros(stats.latency_us.p50),
                micros(stats.latency_us.max)
            ),
        ),
        ("attribution", distribution(&stats.attribution)),
        ("channels", distribution(&stats.channels)),
        ("skipped lines", stats.skipped_lines.to_string()),
    ];
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (key, value) in &rows {
        writeln!(out, "{key:<width$}  {value}")?;
    }
    if args.by_file {
        writeln!(out)?;
        writeln!(out, "by file (bytes injected, largest first):")?;
        if stats.by_file.is_empty() {
            writeln!(out, "  (no injections)")?;
        }
        let names: Vec<_> = stats.by_file.iter().map(|f| escape(&f.file)).collect();
        let w = names.iter().map(|f| f.chars().count()).max().unwrap_or(0);
        for (file, name) in stats.by_file.iter().zip(&names) {
            writeln!(
                out,
                "  {:<w$}  {:>9}  {} × (max {})",
                name,
                bytes(file.bytes),
                file.injections,
                bytes(file.max_bytes)
            )?;
        }
    }
    if args.debt {
        writeln!(out)?;
        writeln!(
            out,
            "context debt (≥ {}, idle ≥ {} steps):",
            bytes(args.debt_min_bytes),
            args.debt_idle_steps
        )?;
        if stats.debt.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for row in &stats.debt {
            writeln!(
                out,
                "  {}  {}  {}  in at step {}, last relevant at step {}, idle {} steps",
                escape(&row.session),
                escape(&row.file),
                bytes(row.bytes),
                row.introduced_step,
                row.last_relevant_step,
                row.idle_steps
            )?;
        }
    }
    Ok(())
}

fn percent(ratio: f64) -> String {
    format!("{:.1}%", ratio * 100.0)
}

#[expect(
    clippy::cast_precision_loss,
    reason = "byte counts are shown with one decimal"
)]
fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "latencies are shown with one decimal"
)]
fn micros(us: u64) -> String {
    if us < 1000 {
        format!("{us} µs")
    } else {
        format!("{:.1} ms", us as f64 / 1000.0)
    }
}

fn distribution(counts: &BTreeMap<String, u64>) -> String {
    if counts.is_empty() {
        return "(none)".to_owned();
    }
    let mut entries: Vec<(&String, &u64)> = counts.iter().collect();
    entries.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    entries
        .iter()
        .map(|(name, n)| format!("{} × {n}", escape(name)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_counted_in_two_halves_gives_what_one_pass_gives() {
        // Interleaved sessions whose blocks come, leave and stay relevant
        // across the middle of the file, a foreign line and a non-UTF-8 one.
        let mut log = Vec::new();
        for i in 0..400u64 {
            let line = match i % 13 {
                4 => "not an event".to_owned(),
                _ => format!(
                    r#"{{"schema":1,"kind":"discovery","ts":"t","session":"s{}","channel":"main","step":{},"trigger":"x","candidates":[{{"file":"r{}.md","decision":"loaded","attribution":"nested_traversal","bytes":{}}}],"hit":true,"bytes_injected":1,"resident_bytes":{},"relevant":["r{}.md"],"left":[{{"file":"r{}.md","reason":"compacted"}}],"elapsed_us":{}}}"#,
                    i % 3,
                    i / 3,
                    i % 7,
                    5000 + i,
                    i * 3,
                    (i + 2) % 7,
                    (i + 4) % 11,
                    i % 5
                ),
            };
            log.extend_from_slice(line.as_bytes());
            log.push(b'\n');
            if i == 200 {
                log.extend_from_slice(b"\xff\xfe\n");
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, &log).unwrap();
        let options = StatsOptions {
            debt_min_bytes: 1000,
            debt_idle_steps: 3,
        };
        let mut one_pass = StatsBuilder::new(options);
        count_lines(&mut one_pass, log.as_slice()).unwrap();
        let expected = one_pass.finish();
        assert!(!expected.debt.is_empty(), "{expected:?}");
        assert_eq!(expected.skipped_lines, 32);
        let mut halves = StatsBuilder::new(options);
        count_file(&mut halves, &path, options, 0).unwrap();
        assert_eq!(halves.finish(), expected);
        // Split near every tenth of the file, not only its middle.
        let mut file = std::fs::File::open(&path).unwrap();
        for tenth in 1..10 {
            let split = split_point(&mut file, log.len() as u64 * tenth / 10)
                .unwrap()
                .unwrap();
            assert_eq!(log[split as usize - 1], b'\n');
        }
        assert_eq!(split_point(&mut file, log.len() as u64).unwrap(), None);
    }
}
