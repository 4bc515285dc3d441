//! `jit replay`: what just-in-time rules would have done in a recorded agent session, against loading every rule up front and against the agent's own loading.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use camino::{Utf8Path, Utf8PathBuf};

use crate::cmd::non_empty_path;
use crate::output::{self, escape};

mod html;
mod simulate;
pub(crate) mod transcript;

pub(crate) use simulate::{Options, Replay, replay};
pub(crate) use transcript::{Format, Trace};

const AFTER_HELP: &str = "\
Example:
  jit replay --html report.html ~/.claude/projects/-home-me-app/<session>.jsonl
      Replays a Claude Code session on this checkout and writes the chart
      and timeline to report.html; `jit replay` alone replays the bundled demo.";

/// Arguments of `jit replay`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print one JSON object per transcript instead of tables.
    #[arg(long)]
    json: bool,
    /// The transcripts' format.
    #[arg(long, value_enum, default_value = "auto")]
    format: Format,
    /// The checkout to replay on (default: the transcript's working
    /// directory, or its git root, when it exists; else the current
    /// directory). When the transcript was recorded elsewhere, paths under
    /// its session directory are mapped onto this root. A default that is
    /// `/`, the home directory or a directory above it is refused: name it
    /// here to replay on it anyway.
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// Map a path prefix of the transcript onto another (repeatable):
    /// `--map /home/alice/proj=/src/proj`.
    #[arg(long = "map", value_name = "FROM=TO", value_parser = parse_map)]
    maps: Vec<(Utf8PathBuf, Utf8PathBuf)>,
    /// Write a self-contained HTML report (chart, timeline, misses) to FILE.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    html: Option<PathBuf>,
    /// Append the replayed sessions' events (JSON Lines, the schema `jit
    /// stats` reads) to FILE.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    events: Option<PathBuf>,
    /// Skip the startup load (only just-in-time discovery runs).
    #[arg(long)]
    no_startup: bool,
    /// Transcripts to replay, each as its own session (default: the bundled
    /// demo, `examples/demo/session.jsonl`, on `examples/demo`).
    #[arg(value_name = "TRANSCRIPT", value_parser = non_empty_path)]
    transcripts: Vec<PathBuf>,
    #[command(flatten)]
    conventions: crate::conventions::ConventionsArg,
}

fn parse_map(value: &str) -> Result<(Utf8PathBuf, Utf8PathBuf), String> {
    match value.split_once('=') {
        Some((from, to)) if !from.is_empty() && !to.is_empty() => {
            Ok((Utf8PathBuf::from(from), Utf8PathBuf::from(to)))
        }
        _ => Err(format!("expected FROM=TO, got {value:?}")),
    }
}

/// Where the bundled demo lives in the source tree this binary was built from.
fn demo_dir() -> Utf8PathBuf {
    Utf8Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo")
}

/// Runs `jit replay`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cwd = crate::project::current_dir()?;
    let absolute = |p: PathBuf, what: &str| -> anyhow::Result<Utf8PathBuf> {
        let p = Utf8PathBuf::from_path_buf(p)
            .map_err(|p| anyhow::anyhow!("{what} {} is not UTF-8", p.display()))?;
        Ok(if p.is_absolute() { p } else { cwd.join(p) })
    };
    let (transcripts, mut root) = if args.transcripts.is_empty() {
        let demo = demo_dir();
        let demo = demo.canonicalize_utf8().unwrap_or(demo);
        let session = demo.join("session.jsonl");
        if !session.is_file() {
            bail!(
                "no TRANSCRIPT given, and the bundled demo is not at {session} (it ships with the source tree); give a transcript to replay"
            );
        }
        (vec![session], Some(demo))
    } else {
        let transcripts = args
            .transcripts
            .into_iter()
            .map(|t| absolute(t, "TRANSCRIPT"))
            .collect::<anyhow::Result<Vec<_>>>()?;
        (transcripts, None)
    };
    if let Some(dir) = args.root {
        root = Some(absolute(dir, "--root")?);
    }
    if args.html.is_some() && transcripts.len() > 1 {
        bail!("--html writes one report: give one TRANSCRIPT with it");
    }
    let events = events_arg(args.events, &cwd)?;

    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let mut out = output::stdout();
    for (i, path) in transcripts.iter().enumerate() {
        let trace = transcript::read(path, args.format)?;
        let mut maps = args.maps.clone();
        let root = replay_root(&trace, root.as_ref(), &cwd, home.as_deref(), &mut maps)?;
        let options = Options {
            root,
            maps,
            events: events.clone(),
            startup: !args.no_startup,
            conventions: args.conventions.conventions.clone(),
        };
        let report = replay(&trace, &options)
            .with_context(|| format!("cannot replay {path} on {}", options.root))?;
        if let Some(html_path) = &args.html {
            let html_path = absolute(html_path.clone(), "--html")?;
            std::fs::write(
                &html_path,
                html::render(&report, &shown(path, &cwd), &shown(&options.root, &cwd)),
            )
            .with_context(|| format!("cannot write {html_path}"))?;
        }
        if args.json {
            serde_json::to_writer(&mut out, &report)?;
            writeln!(out)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            write_report(
                &mut out,
                &report,
                &shown(path, &cwd),
                &shown(&options.root, &cwd),
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The checkout `trace` replays on: `root` (`--root`) when given, else
/// [`default_root`]. A transcript recorded in another checkout replays on
/// this one: its first working directory's project is mapped onto the root
/// in `maps`, unless a map for it is there already.
fn replay_root(
    trace: &Trace,
    root: Option<&Utf8PathBuf>,
    cwd: &Utf8Path,
    home: Option<&Path>,
    maps: &mut Vec<(Utf8PathBuf, Utf8PathBuf)>,
) -> anyhow::Result<Utf8PathBuf> {
    let root = match root {
        Some(root) => root.clone(),
        None => default_root(trace, cwd, home)?,
    };
    if let Some(first) = &trace.first_cwd
        && !first.starts_with(&root)
    {
        let session_dir = crate::project::default_root(first);
        if !maps.iter().any(|(from, _)| from == &session_dir) {
            maps.push((session_dir, root.clone()));
        }
    }
    if !root.is_dir() {
        bail!("the root {root} is not a directory; give the checkout with --root");
    }
    Ok(root)
}

/// `--events FILE`, from `cwd` when relative, checked before the run:
/// a FILE that cannot take the events is an error now
/// ([`crate::cmd::events_file`]).
fn events_arg(events: Option<PathBuf>, cwd: &Utf8Path) -> anyhow::Result<Option<Utf8PathBuf>> {
    let Some(events) = events else {
        return Ok(None);
    };
    let events = Utf8PathBuf::from_path_buf(events)
        .map_err(|p| anyhow::anyhow!("--events {} is not UTF-8", p.display()))?;
    let events = cwd.join(events);
    crate::cmd::events_file(&events)?;
    Ok(Some(events))
}

/// The root a transcript replays on when none is given: the git root
/// above its first working directory, or that directory, when it exists
/// here; else the current directory.
///
/// Refused when that root is the file system root, the home directory
/// `home` or a directory above it (`/home`): replaying walks the whole
/// root, and a transcript is foreign input that can name any directory.
/// `--root` names such a root when it is meant.
fn default_root(trace: &Trace, cwd: &Utf8Path, home: Option<&Path>) -> anyhow::Result<Utf8PathBuf> {
    let (root, from) = match &trace.first_cwd {
        Some(first) if first.is_dir() => (
            crate::project::default_root(first),
            format!("the transcript's working directory {first}"),
        ),
        Some(first) => (
            cwd.to_owned(),
            format!(
                "the current directory, as the transcript's working directory {first} is not here"
            ),
        ),
        None => (
            cwd.to_owned(),
            "the current directory, as the transcript records no working directory".to_owned(),
        ),
    };
    if let Some(what) = too_wide(&root, home) {
        bail!(
            "the root {root}, taken from {from}, is {what}: replaying there would walk all of it; \
             give the checkout with --root DIR (--root {root} replays there anyway)"
        );
    }
    Ok(root)
}

/// What `root` is when it is too wide to replay on unless named: the file
/// system root, the home directory `home`, or a directory above it. Both
/// are compared as their real paths.
fn too_wide(root: &Utf8Path, home: Option<&Path>) -> Option<String> {
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let root = real(root.as_std_path());
    if root.parent().is_none() {
        return Some("the file system root".to_owned());
    }
    let home = real(home.filter(|home| home.is_absolute())?);
    if root == home {
        Some(format!("the home directory ({})", home.display()))
    } else if home.starts_with(&root) {
        Some(format!("above the home directory ({})", home.display()))
    } else {
        None
    }
}

/// Tokens are estimated as bytes ÷ 4, a rough rate for ASCII-heavy text.
pub(crate) fn tokens(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// `path` relative to `cwd` when it is below it (as a person typed it),
/// else as it is.
fn shown(path: &Utf8Path, cwd: &Utf8Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if rel.as_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.to_string(),
        Err(_) => path.to_string(),
    }
}

fn write_report(
    out: &mut dyn Write,
    report: &Replay,
    path: &str,
    root: &str,
) -> anyhow::Result<()> {
    let s = &report.summary;
    writeln!(
        out,
        "Replay of {} ({}) on {}",
        escape(path),
        s.format,
        escape(root)
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:>5}  {:<16} {:<16} paths → rules",
        "step", "channel", "tool"
    )?;
    for step in &report.steps {
        let paths = if step.paths.is_empty() {
            "-".to_owned()
        } else {
            step.paths
                .iter()
                .map(|p| escape(p))
                .collect::<Vec<_>>()
                .join(" ")
        };
        writeln!(
            out,
            "{:>5}  {:<16} {:<16} {}",
            step.step,
            escape(&step.channel),
            escape(&step.tool),
            paths
        )?;
        for loaded in &step.loaded {
            writeln!(
                out,
                "{:>5}  {:<16} {:<16}   + {} ({}, {})",
                "",
                "",
                "",
                escape(&loaded.file),
                loaded.attribution,
                size(loaded.bytes)
            )?;
        }
        let reasons = step.skip_counts();
        if !reasons.is_empty() {
            let text: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
            writeln!(
                out,
                "{:>5}  {:<16} {:<16}   skipped: {}",
                "",
                "",
                "",
                text.join(", ")
            )?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "{} calls in {} batches on {} channel(s), {} compaction(s)",
        s.calls,
        s.batches,
        s.channels.len(),
        s.compactions
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<10} {:>6} {:>12} {:>10}   resident in context",
        "strategy", "rules", "bytes", "~tokens"
    )?;
    writeln!(
        out,
        "{:<10} {:>6} {:>12} {:>10}   {} at every step ({} byte-steps)",
        "eager",
        s.eager.rules,
        s.eager.bytes,
        tokens(s.eager.bytes),
        size(s.eager.bytes),
        s.eager.resident_byte_steps
    )?;
    if s.native.known {
        writeln!(
            out,
            "{:<10} {:>6} {:>12} {:>10}   as the transcript records it",
            "native",
            s.native.rules,
            s.native.bytes,
            tokens(s.native.bytes)
        )?;
    } else {
        writeln!(
            out,
            "{:<10} {:>6} {:>12} {:>10}   unknown: this transcript does not record the agent's own loads",
            "native", "-", "-", "-"
        )?;
    }
    writeln!(
        out,
        "{:<10} {:>6} {:>12} {:>10}   p50 {}, max {} ({} byte-steps)",
        "jit",
        s.jit.rules,
        s.jit.bytes,
        tokens(s.jit.bytes),
        size(s.jit.resident_p50),
        size(s.jit.resident_max),
        s.jit.resident_byte_steps
    )?;
    writeln!(
        out,
        "{} of the project's {} rule files were never relevant to this session.",
        s.jit.never_relevant, s.eager.rules
    )?;
    writeln!(out)?;
    if !s.native.known {
        writeln!(
            out,
            "Missed by native loading: unknown (the transcript does not record what the agent loaded)."
        )?;
    } else if s.missed_by_native.is_empty() {
        writeln!(
            out,
            "Missed by native loading: none (every rule a tool reached was loaded by the agent)."
        )?;
    } else {
        writeln!(
            out,
            "Missed by native loading ({}): a tool touched their scope, the agent never loaded them:",
            s.missed_by_native.len()
        )?;
        for missed in &s.missed_by_native {
            writeln!(
                out,
                "  {}  first at step {} ({})",
                escape(&missed.file),
                missed.first_step,
                escape(&missed.trigger)
            )?;
        }
    }
    let mut notes = notes(s);
    notes.push("~tokens = bytes ÷ 4, an estimate for ASCII-heavy text, not a count".to_owned());
    writeln!(out)?;
    for note in notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

/// The notes under a report: what was counted and not replayed.
fn notes(s: &simulate::Summary) -> Vec<String> {
    let mut notes = Vec::new();
    if !s.unknown_tools.is_empty() {
        let names: Vec<String> = s
            .unknown_tools
            .iter()
            .map(|(name, n)| format!("{} ×{n}", escape(name)))
            .collect();
        notes.push(format!(
            "tools with no reporter, counted and not guessed: {}",
            names.join(", ")
        ));
    }
    if s.skipped_records > 0 {
        notes.push(format!(
            "{} transcript record(s) malformed or of an unknown type, skipped",
            s.skipped_records
        ));
    }
    if s.lines_over_cap > 0 {
        notes.push(format!(
            "{} of them longer than the line cap ({} MiB), read past unparsed",
            s.lines_over_cap,
            transcript::MAX_LINE_BYTES / (1024 * 1024)
        ));
    }
    if s.outside_root > 0 {
        notes.push(format!(
            "{} touched path(s) outside the root",
            s.outside_root
        ));
    }
    if s.malformed_calls > 0 {
        notes.push(format!(
            "{} call(s) whose input their reporter rejected",
            s.malformed_calls
        ));
    }
    notes
}

/// Bytes for people: `640 B`, `12.3 KB`.
pub(crate) fn size(bytes: u64) -> String {
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.1} KB", bytes as f64 / 1000.0)
    } else {
        format!("{:.1} MB", bytes as f64 / 1_000_000.0)
    }
}
