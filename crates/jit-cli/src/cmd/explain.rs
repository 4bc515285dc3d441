//! `jit explain`: simulate one session that touches paths in order, and show every rule decision.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Decision, Discovery, LoadedRule, Session, SessionConfig, SkipReason, SkippedRule,
    StartupReport, Tier,
};
use serde::Serialize;

use crate::cmd::non_empty_path;
use crate::cmd::startup::{given_cwd, lazy_options, session_cwd, signals};
use crate::conventions::ConventionsArg;
use crate::output::{self, escape};
use crate::project::{Shown, current_dir};
use crate::rules::skipped_rows;

const AFTER_HELP: &str = "\
Example:
  jit explain src/ui/Footer.tsx src/api/handler.ts
      The startup load, then every rule a session touching the two files
      would load or skip, each with its reason (run it in your project;
      --root defaults to its git root).";

/// Arguments of `jit explain`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Skip the startup load (only JIT discovery runs). Conventions not
    /// named are then looked for at the root and along the touched paths
    /// instead of in the whole project, which decides the same for them.
    #[arg(long)]
    no_startup: bool,
    /// The project root (default: the git worktree root at or above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// Append the simulated session's events (JSON Lines) to FILE.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    events: Option<PathBuf>,
    /// Total byte budget for JIT rule blocks.
    #[arg(long, value_name = "BYTES", default_value_t = jit_core::DEFAULT_BUDGET_BYTES)]
    budget: u64,
    /// The session's working directory for the startup load (default: the
    /// current directory when it is inside the root, else the root).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    cwd: Option<PathBuf>,
    /// Read managed rules from FILE instead of the platform's
    /// (`/etc/claude-code/CLAUDE.md` on Linux). A relative FILE is taken
    /// from the current directory; a FILE that does not exist loads no
    /// managed rules, with a warning on stderr and in the JSON `warnings`.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    managed: Option<PathBuf>,
    /// Paths the simulated session touches, in order (relative to the current
    /// directory, or absolute; an empty one is a usage error).
    #[arg(value_name = "PATH", required = true, value_parser = non_empty_path)]
    paths: Vec<PathBuf>,
    /// Build no rule index at startup (as `[index] enabled = false` in
    /// jit.toml).
    #[arg(long)]
    no_index: bool,
    #[command(flatten)]
    conventions: ConventionsArg,
}

/// The `--json` document: the startup load (unless `--no-startup`), then
/// one step per touched path.
#[derive(Debug, Serialize)]
struct Report {
    #[serde(skip_serializing_if = "Option::is_none")]
    startup: Option<StartupReport>,
    steps: Vec<Discovery>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    /// The startup load ran without a rule index (said in the tables).
    #[serde(skip)]
    index_off: bool,
}

/// Runs `jit explain`.
///
/// The tables escape control characters in everything the repository names
/// (files, signals, details, warnings); the JSON output is exact.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = crate::project::root_or_default(args.root)?;
    let cwd = current_dir()?;
    let (engine, conventions) = if args.no_startup {
        // Without the startup load (and its index), only the touched
        // paths' chains matter: detection need not walk the project.
        let engine = jit_core::Engine::new(&root)?;
        let dirs = touched_dirs(&engine, &cwd, &args.paths);
        crate::conventions::engine_along(engine, &args.conventions, &dirs)?
    } else {
        crate::conventions::engine(&root, &args.conventions)?
    };
    let conventions = if args.no_index {
        conventions.without_index()
    } else {
        conventions
    };
    let engine = Arc::new(engine);
    let mut config = SessionConfig::new();
    if let Some(events) = args.events {
        let events = Utf8PathBuf::from_path_buf(events)
            .map_err(|p| anyhow::anyhow!("--events {} is not UTF-8", p.display()))?;
        let events = cwd.join(events);
        super::events_file(&events)?;
        config = config.with_event_log(events);
    }
    config = config.with_budget_bytes(args.budget);
    let mut session = Session::new(engine, config);
    let mut warnings = Vec::new();
    let startup = if args.no_startup {
        None
    } else {
        let session_cwd = match args.cwd {
            Some(dir) => given_cwd(dir)?,
            None => session_cwd(&cwd, session.engine().root()),
        };
        let (options, warning) = lazy_options(session.engine().root(), session_cwd, args.managed)?;
        let options = conventions.startup_options(options);
        warnings.extend(warning);
        Some(session.startup(&options))
    };
    let mut steps = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        let path = Utf8PathBuf::from_path_buf(path.clone())
            .map_err(|p| anyhow::anyhow!("path {} is not UTF-8", p.display()))?;
        // With runtime discovery on, a touch is exactly one discovery.
        let injection = session.touch(&path, &cwd);
        steps.extend(injection.discoveries);
    }
    warnings.extend_from_slice(session.warnings());
    let report = Report {
        startup,
        steps,
        warnings,
        index_off: conventions.index_bytes.is_none(),
    };
    // A failure to write the events asked for ends the command as an
    // error, after the report; it is not said twice.
    let events_lost = session.event_log_error();
    for warning in &report.warnings {
        if Some(warning.as_str()) != events_lost {
            output::stderr_line(format_args!("jit: warning: {}", escape(warning)))?;
        }
    }
    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_tables(
            &mut out,
            &report,
            &Shown::new(session.engine().root(), &cwd),
        )?;
    }
    out.flush()?;
    super::events_written(&session)?;
    Ok(ExitCode::SUCCESS)
}

/// The tables: files and touched paths relative to where the user stands
/// (see [`Shown`]); signals and details stay root-relative, as the scope
/// patterns they are matched against are.
fn write_tables(out: &mut impl Write, report: &Report, shown: &Shown) -> std::io::Result<()> {
    let mut seen = Seen::default();
    if let Some(startup) = &report.startup {
        writeln!(
            out,
            "startup: signals {}  ({} loaded, {} skipped, {} µs)",
            signals(&startup.signals),
            startup.loaded.len(),
            startup.skipped.len(),
            startup.elapsed_us
        )?;
        let mut rows: Vec<[String; 4]> = Vec::new();
        for loaded in &startup.loaded {
            rows.push([
                Decision::Loaded.as_str().to_owned(),
                shown.path(&loaded.file).into_owned(),
                loaded.attribution.as_str().to_owned(),
                format!("{} B", loaded.bytes),
            ]);
        }
        rows.extend(table_rows(&startup.skipped, shown));
        if rows.is_empty() {
            writeln!(out, "  (no startup rules)")?;
        }
        write_rows(out, &rows)?;
        write_warnings(out, &startup.loaded, shown)?;
        for diagnostic in &startup.diagnostics {
            writeln!(out, "  note: {}", escape(diagnostic))?;
        }
        crate::cmd::startup::write_index(out, startup, report.index_off, "  ", shown)?;
        seen.record(&startup.loaded, &startup.skipped, "startup");
    }
    for (i, step) in report.steps.iter().enumerate() {
        writeln!(
            out,
            "step {}: {}  ({} loaded, {} skipped, {} µs)",
            i + 1,
            escape(&shown.path(&step.trigger)),
            step.loaded.len(),
            step.skipped.len(),
            step.elapsed_us
        )?;
        let mut rows: Vec<[String; 4]> = Vec::new();
        for loaded in &step.loaded {
            rows.push([
                loaded.decision.as_str().to_owned(),
                shown.path(&loaded.file).into_owned(),
                loaded.attribution.as_str().to_owned(),
                format!(
                    "{} B{}",
                    loaded.bytes,
                    loaded
                        .detail
                        .as_deref()
                        .map(|d| format!("; {d}"))
                        .unwrap_or_default()
                ),
            ]);
        }
        rows.extend(table_rows(&step.skipped, shown));
        if rows.is_empty() {
            writeln!(
                out,
                "  ({})",
                escape(&seen.nothing_new(&step.trigger, shown))
            )?;
        }
        write_rows(out, &rows)?;
        write_warnings(out, &step.loaded, shown)?;
        seen.record(&step.loaded, &step.skipped, &format!("step {}", i + 1));
    }
    Ok(())
}

/// Writes the rows as aligned columns, every cell escaped.
fn write_rows(out: &mut impl Write, rows: &[[String; 4]]) -> std::io::Result<()> {
    let rows: Vec<[String; 4]> = rows
        .iter()
        .map(|row| row.clone().map(|cell| escape(&cell).into_owned()))
        .collect();
    let width = |col: usize| {
        rows.iter()
            .map(|r| r[col].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for row in &rows {
        writeln!(
            out,
            "  {:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0], row[1], row[2], row[3]
        )?;
    }
    Ok(())
}

/// One `warning:` line per warning of every loaded rule (recovered
/// frontmatter, an empty scope, a failed import), after its table.
fn write_warnings(
    out: &mut impl Write,
    loaded: &[LoadedRule],
    shown: &Shown,
) -> std::io::Result<()> {
    for rule in loaded {
        for warning in &rule.warnings {
            writeln!(
                out,
                "  warning: {}: {}",
                escape(&shown.path(&rule.file)),
                escape(warning)
            )?;
        }
    }
    Ok(())
}

/// One table row per skipped candidate (what, file, reason, detail), with
/// the rows of an unreadable directory folded into one.
fn table_rows<'a>(
    skipped: &[SkippedRule],
    shown: &'a Shown,
) -> impl Iterator<Item = [String; 4]> + 'a {
    skipped_rows(skipped).into_iter().map(move |row| {
        [
            Decision::Skipped.as_str().to_owned(),
            shown.path(&row.file).into_owned(),
            row.reason.to_owned(),
            row.detail,
        ]
    })
}

/// The project rule files the session has met so far, in the order first
/// met, each with the latest thing that happened to it.
///
/// A discovery lists nothing for a directory it has already judged, so a
/// step with no rows may still sit on a chain with rules: the table says
/// which, instead of claiming the chain has none.
///
/// Files are found by name and by the directory that owns them, never by
/// scanning every file met: ten thousand touched paths outside the root
/// (each a row of its own) made those scans quadratic.
#[derive(Debug, Default)]
struct Seen {
    rules: Vec<SeenRule>,
    /// File → its place in `rules`.
    by_file: HashMap<String, usize>,
    /// Owner directory (see [`owner_dir`]) → its files' places in `rules`,
    /// in the order first met.
    by_dir: HashMap<String, Vec<usize>>,
    /// How many entries of `rules` lookups and chain queries have looked
    /// at: the work a test counts.
    looked_at: Cell<usize>,
}

#[derive(Debug)]
struct SeenRule {
    file: String,
    /// "was loaded at startup", "was skipped at step 2 (scope_miss)".
    what: String,
    loaded: bool,
}

impl Seen {
    /// Records what `when` (`startup`, `step 2`) loaded and skipped.
    fn record(&mut self, loaded: &[LoadedRule], skipped: &[SkippedRule], when: &str) {
        for rule in loaded {
            // Managed and user rules are on no directory chain, even when
            // the file happens to sit inside the project.
            if !matches!(rule.tier, Some(Tier::Managed | Tier::User)) {
                self.set(&rule.file, format!("was loaded at {when}"), true);
            }
        }
        for rule in skipped {
            // An `already_loaded` candidate keeps the load it refers to.
            if rule.reason != SkipReason::AlreadyLoaded {
                let what = format!("was skipped at {when} ({})", rule.reason.as_str());
                self.set(&rule.file, what, false);
            }
        }
    }

    fn set(&mut self, file: &str, what: String, loaded: bool) {
        // A file outside the project (absolute) is on no chain: nothing
        // will ever ask for it.
        let Some(dir) = owner_dir(file) else {
            return;
        };
        self.looked_at.set(self.looked_at.get() + 1);
        match self.by_file.get(file) {
            // A skip does not undo a load: the text stays in the context.
            Some(&at) if loaded || !self.rules[at].loaded => {
                let seen = &mut self.rules[at];
                seen.what = what;
                seen.loaded = loaded;
            }
            Some(_) => {}
            None => {
                let at = self.rules.len();
                self.rules.push(SeenRule {
                    file: file.to_owned(),
                    what,
                    loaded,
                });
                self.by_file.insert(file.to_owned(), at);
                self.by_dir.entry(dir).or_default().push(at);
            }
        }
    }

    /// What to say for a step on `trigger` that listed no rows.
    fn nothing_new(&self, trigger: &str, shown: &Shown) -> String {
        // The rules of the directories on the chain, in the order first met.
        let mut on_chain: Vec<usize> = chain_dirs(trigger)
            .iter()
            .filter_map(|dir| self.by_dir.get(*dir))
            .flatten()
            .copied()
            .collect();
        self.looked_at.set(self.looked_at.get() + on_chain.len());
        on_chain.sort_unstable();
        if on_chain.is_empty() {
            return "no rule files on this path's directory chain".to_owned();
        }
        let on_chain: Vec<String> = on_chain
            .into_iter()
            .map(|at| &self.rules[at])
            .map(|seen| format!("{} {}", shown.path(&seen.file), seen.what))
            .collect();
        format!("nothing new: {}", on_chain.join(", "))
    }
}

/// The directories on the chain of `trigger` (root-relative), each once:
/// the root (`""`), every directory above it by whole segments, and the
/// trigger itself.
fn chain_dirs(trigger: &str) -> Vec<&str> {
    let mut dirs = vec![""];
    dirs.extend(
        trigger
            .match_indices('/')
            .map(|(at, _)| &trigger[..at])
            .filter(|dir| !dir.is_empty()),
    );
    if !trigger.is_empty() {
        dirs.push(trigger);
    }
    dirs
}

/// The directory whose scan finds the project rule file `file`: its parent,
/// up to the first hidden folder (`src/.claude/rules/a.md` is `src`'s), `""`
/// for the root; `None` for a file outside the project (absolute).
fn owner_dir(file: &str) -> Option<String> {
    if std::path::Path::new(file).is_absolute() {
        return None;
    }
    let parts: Vec<&str> = file.split('/').collect();
    let dirs = &parts[..parts.len().saturating_sub(1)];
    Some(
        dirs.iter()
            .take_while(|part| !part.starts_with('.'))
            .copied()
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// The touched `paths`, root-relative as the engine locates them, for
/// detection along their chains (a file's own path in a chain costs one
/// failed listing); paths outside the root add nothing.
fn touched_dirs(engine: &jit_core::Engine, cwd: &Utf8Path, paths: &[PathBuf]) -> Vec<Utf8PathBuf> {
    paths
        .iter()
        .filter_map(|path| Utf8Path::from_path(path))
        .filter_map(|path| engine.locate(&jit_core::resolve_parents(&cwd.join(path))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_file_belongs_to_the_directory_that_holds_its_folder() {
        assert_eq!(owner_dir("CLAUDE.md").as_deref(), Some(""));
        assert_eq!(owner_dir("src/ui/CLAUDE.md").as_deref(), Some("src/ui"));
        assert_eq!(owner_dir(".claude/rules/a.md").as_deref(), Some(""));
        assert_eq!(
            owner_dir("src/.claude/rules/x/a.md").as_deref(),
            Some("src")
        );
        assert_eq!(owner_dir("/home/me/.claude/CLAUDE.md"), None);
    }

    /// Whether directory `dir` (root-relative, `""` for the root) is on
    /// the directory chain of `trigger`, or is the trigger itself: what
    /// [`chain_dirs`] lists.
    fn on_chain(dir: &str, trigger: &str) -> bool {
        dir.is_empty()
            || trigger == dir
            || trigger
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
    }

    #[test]
    fn the_chain_dirs_are_those_on_the_chain() {
        let dirs = [
            "",
            "src",
            "src/ui",
            "src/ui/a.ts",
            "src/uix",
            "src/api",
            "a",
            "a/",
            "a//b",
            "/etc",
            "/etc/hosts",
            "src/ui/",
        ];
        for trigger in [
            "a.txt",
            "src/ui/a.ts",
            "src/ui",
            "src/ui/",
            "src/uix/a.ts",
            "a//b",
            "/etc/hosts",
            "",
        ] {
            let listed = chain_dirs(trigger);
            let expected: Vec<&str> = dirs
                .iter()
                .copied()
                .filter(|d| on_chain(d, trigger))
                .collect();
            for dir in &expected {
                assert!(
                    listed.contains(dir),
                    "{trigger:?}: {dir:?} missing from {listed:?}"
                );
            }
            for dir in dirs.iter().filter(|d| listed.contains(d)) {
                assert!(on_chain(dir, trigger), "{trigger:?}: {dir:?} listed");
            }
        }
        assert_eq!(
            chain_dirs("src/ui/a.ts"),
            ["", "src", "src/ui", "src/ui/a.ts"]
        );
    }

    /// Ten thousand rule files met in ten thousand directories, a path
    /// outside the root at each step, then ten thousand steps with nothing
    /// new: each file is looked up once per record and each step looks at
    /// its own chain's files only (scanning every file met, per record and
    /// per step, was quadratic: 0.7 s for 10,000 paths, 6.2 s for 40,000).
    #[test]
    fn many_steps_look_at_a_linear_number_of_files() {
        let shown = Shown::default();
        let skipped = |file: String, reason| SkippedRule::new(file, reason, "", "claude");
        let mut seen = Seen::default();
        seen.record(
            &[],
            &[skipped("CLAUDE.md".to_owned(), SkipReason::ScopeMiss)],
            "startup",
        );
        let n = 10_000;
        for i in 1..=n {
            let rows = [
                skipped(format!("d{i}/CLAUDE.md"), SkipReason::ScopeMiss),
                skipped(format!("/elsewhere/f{i}.ts"), SkipReason::OutsideRoot),
            ];
            seen.record(&[], &rows, &format!("step {i}"));
        }
        for i in 1..=n {
            let said = seen.nothing_new(&format!("d{i}/x.ts"), &shown);
            if i == 5 {
                assert_eq!(
                    said,
                    "nothing new: CLAUDE.md was skipped at startup (scope_miss), \
                     d5/CLAUDE.md was skipped at step 5 (scope_miss)"
                );
            }
        }
        // Per step: the root's file and the directory's own.
        assert_eq!(seen.looked_at.get(), (1 + n) + 2 * n);
        assert_eq!(
            seen.nothing_new("/elsewhere/f1.ts", &shown),
            "nothing new: CLAUDE.md was skipped at startup (scope_miss)"
        );
    }

    #[test]
    fn the_chain_is_the_root_and_every_ancestor_by_segment() {
        assert!(on_chain("", "a.txt"));
        assert!(on_chain("src", "src/ui/a.ts"));
        assert!(on_chain("src/ui", "src/ui"));
        assert!(!on_chain("src/ui", "src/uix/a.ts"));
        assert!(!on_chain("src/api", "src/ui/a.ts"));
    }
}
