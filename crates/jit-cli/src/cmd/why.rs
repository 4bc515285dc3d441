//! `jit why`: the four-step checklist for "why does (or doesn't) this rule load for this file?", each step with its verdict and evidence, and a fix when the rule's author can make one.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Discovery, Engine, HeadScope, RuleLocation, RuleSource, Session, SessionConfig, SkipReason,
    StartupReport, inspect_rule, resolve_parents, rule_locations, trace_pattern,
};
use serde::Serialize;

use crate::cmd::non_empty_path;
use crate::cmd::startup::{given_cwd, lazy_options, session_cwd};
use crate::output::{self, escape};
use crate::project::current_dir;

/// How much of a rule file step 2 reads: far above the engine's cap on one
/// rule file, and the frontmatter is at its head.
const READ_LIMIT: u64 = 4 * 1024 * 1024;

/// The checklist `jit why --help` shows.
pub(crate) const LONG_ABOUT: &str = "Why does (or doesn't) RULE load when a tool touches PATH?

Runs the four-step checklist and shows each step's verdict and evidence:
  1 candidate    RULE is a rule file of a selected convention, in PATH's
                 directory or an ancestor up to the root, or in a rule folder
                 (.claude/rules/**) of one of them
  2 frontmatter  its frontmatter parses (the engine's parser), to this scope
  3 scope        the scope matches PATH: the pattern that matched, or for
                 each pattern the path segment where it stopped matching
  4 load         the engine, run as a session (startup load, then PATH
                 touched), injects it now; if not: already loaded, outside
                 the root, too large, over the budget
Steps run in order; the ones after a failure are not checked. It ends with
one sentence, `loads` or `does not load, because ...`, and a fix line when
the rule's author can fix it (a pattern to add or quote, a place to move the
file to).

RULE and PATH are relative to the current directory, or absolute. A RULE
that does not exist, or RULE or PATH outside the root, is a step-1 failure,
not an error. Exit status 0 for either verdict, 2 for bad usage.

--json prints one object:
  {\"verdict\": \"loads\" | \"does_not_load\",
   \"steps\": [{\"step\": 1, \"ok\": true, \"detail\": \"...\"}, ...],
   \"fix\": \"...\" | null}
`step` is the step's number, 1 to 4, always all four in order; `ok` is true
(passed), false (failed: the verdict's reason) or null (not checked, the
detail says why).";

/// Arguments of `jit why`.
#[derive(Debug, clap::Args)]
#[command(
    long_about = LONG_ABOUT,
    after_help = "\
Example:
  jit why .claude/rules/tests.md src/api/users.test.ts
      Whether touching src/api/users.test.ts injects the rule, step by step,
      and the fix when it does not."
)]
pub(crate) struct Args {
    /// Print one JSON object instead of the checklist.
    #[arg(long)]
    json: bool,
    /// The conventions whose rule sources run, comma-separated: claude,
    /// agents, gemini, cursor, copilot, cline (default: jit.toml's
    /// `conventions`, else every convention whose files exist).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    conventions: Option<Vec<String>>,
    /// The project root (default: the git worktree root at or above the current
    /// directory, else the current directory).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    root: Option<PathBuf>,
    /// The session's working directory for the startup load of step 4
    /// (default: the current directory when it is inside the root, else
    /// the root).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
    cwd: Option<PathBuf>,
    /// Total byte budget for rule blocks in step 4.
    #[arg(long, value_name = "BYTES", default_value_t = jit_core::DEFAULT_BUDGET_BYTES)]
    budget: u64,
    /// The rule file.
    #[arg(value_name = "RULE", value_parser = non_empty_path)]
    rule: PathBuf,
    /// The path a tool touches.
    #[arg(value_name = "PATH", value_parser = non_empty_path)]
    path: PathBuf,
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct Report {
    verdict: Verdict,
    steps: Vec<Step>,
    fix: Option<String>,
    /// The verdict's sentence, for the human output.
    #[serde(skip)]
    because: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Loads,
    DoesNotLoad,
}

/// One step of the checklist.
#[derive(Debug, Serialize)]
struct Step {
    step: u8,
    /// Passed, failed, or `None` when it was not checked.
    ok: Option<bool>,
    detail: String,
}

/// A failed step: what it says, the verdict's reason, and the fix.
#[derive(Debug)]
struct Failure {
    detail: String,
    because: String,
    fix: Option<String>,
}

impl Failure {
    fn new(detail: impl Into<String>, because: impl Into<String>) -> Self {
        Failure {
            detail: detail.into(),
            because: because.into(),
            fix: None,
        }
    }

    fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

const STEP_NAMES: [&str; 4] = ["candidate", "frontmatter", "scope", "load"];

/// Runs `jit why`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = crate::project::root_or_default(args.root.clone())?;
    let (engine, _) = crate::conventions::engine(
        &root,
        &crate::conventions::ConventionsArg {
            conventions: args.conventions.clone(),
        },
    )?;
    let cwd = current_dir()?;
    let session_cwd = match args.cwd.clone() {
        Some(dir) => given_cwd(dir)?,
        None => session_cwd(&cwd, engine.root()),
    };
    let rule = utf8(args.rule.clone(), "RULE")?;
    let path = utf8(args.path.clone(), "PATH")?;
    // Both paths are placed as the engine places a touched path: `..`
    // resolved as the OS does, then located under the root.
    let rule_abs = resolve_parents(&cwd.join(&rule));
    let path_abs = resolve_parents(&cwd.join(&path));
    let ctx = Context {
        root: engine.root().to_owned(),
        rule_rel: engine.locate(&rule_abs).map(|rel| slash(&rel)),
        path_rel: engine.locate(&path_abs).map(|rel| slash(&rel)),
        rule_abs,
        path_abs,
        path_names_dir: path.as_str().ends_with('/'),
    };
    let mut config = SessionConfig::new();
    config = config.with_budget_bytes(args.budget);
    let report = checklist(&ctx, Arc::new(engine), config, session_cwd, &cwd)?;

    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_human(&mut out, &report)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn utf8(path: PathBuf, what: &str) -> anyhow::Result<Utf8PathBuf> {
    Utf8PathBuf::from_path_buf(path)
        .map_err(|p| anyhow::anyhow!("{what} {} is not UTF-8", p.display()))
}

/// The paths the checklist is about.
#[derive(Debug)]
struct Context {
    /// The canonical root.
    root: Utf8PathBuf,
    /// RULE, root-relative and `/`-separated, when it is inside the root.
    rule_rel: Option<String>,
    /// PATH, root-relative and `/`-separated, when it is inside the root.
    path_rel: Option<String>,
    rule_abs: Utf8PathBuf,
    path_abs: Utf8PathBuf,
    /// PATH was written with a trailing `/`.
    path_names_dir: bool,
}

/// Runs the four steps.
fn checklist(
    ctx: &Context,
    engine: Arc<Engine>,
    config: SessionConfig,
    session_cwd: Utf8PathBuf,
    cwd: &Utf8Path,
) -> anyhow::Result<Report> {
    let mut steps: Vec<Step> = Vec::with_capacity(4);
    let sources: Vec<&dyn RuleSource> = engine.sources().iter().map(|s| s.as_ref()).collect();
    let finish = |mut steps: Vec<Step>, failure: Failure| {
        let failed = steps.len();
        steps.push(Step {
            step: step_no(failed),
            ok: Some(false),
            detail: failure.detail,
        });
        while steps.len() < 4 {
            steps.push(Step {
                step: step_no(steps.len()),
                ok: None,
                detail: format!("not checked: step {} failed", failed + 1),
            });
        }
        Report {
            verdict: Verdict::DoesNotLoad,
            steps,
            fix: failure.fix,
            because: failure.because,
        }
    };

    // Step 1: a candidate for PATH?
    let candidate = match step_candidate(ctx, &sources) {
        Ok(candidate) => candidate,
        Err(failure) => return Ok(finish(steps, failure)),
    };
    steps.push(Step {
        step: 1,
        ok: Some(true),
        detail: candidate.detail.clone(),
    });
    let source = sources
        .iter()
        .copied()
        .find(|s| s.name() == candidate.location.source)
        .ok_or_else(|| anyhow::anyhow!("no rule source named {}", candidate.location.source))?;

    // Steps 2 and 3 read the rule, which must really be inside the root.
    let rule_real = canonical(&ctx.rule_abs);
    let escapes = rule_real
        .as_ref()
        .filter(|real| real.strip_prefix(&ctx.root).is_err());
    let mut quote_fix = None;
    if let Some(real) = escapes {
        for _ in 0..2 {
            steps.push(Step {
                step: step_no(steps.len()),
                ok: None,
                detail: format!(
                    "not checked: {} resolves to {real}, outside the project root, and nothing \
                     outside it is read",
                    candidate.rule
                ),
            });
        }
    } else {
        // Step 2: the frontmatter.
        let head = match step_frontmatter(ctx, &candidate, source) {
            Ok((head, detail)) => {
                steps.push(Step {
                    step: 2,
                    ok: Some(true),
                    detail,
                });
                head
            }
            Err(failure) => return Ok(finish(steps, failure)),
        };
        // Step 3: the scope against PATH.
        let recovered = head.recovered;
        if recovered && let HeadScope::Paths(scope) = &head.scope {
            quote_fix = Some(format!(
                "quote the patterns so every tool reads them the same (strict YAML rejects a \
                 value that starts with `*` or `{{`): `{}: {}`",
                scope_key(source),
                quoted_list(scope.patterns())
            ));
        }
        match step_scope(ctx, &candidate, source, &head.scope, recovered) {
            Ok(detail) => steps.push(Step {
                step: 3,
                ok: Some(true),
                detail,
            }),
            Err(failure) => return Ok(finish(steps, failure)),
        }
    }

    // Step 4: what the engine does now.
    let mut session = Session::new(engine, config);
    let (options, _warning) = lazy_options(session.engine().root(), session_cwd, None)?;
    let startup = session.startup(&options);
    let injection = session.touch(&ctx.path_abs, cwd);
    let discovery = injection.discoveries.into_iter().next().unwrap_or_default();
    match step_load(ctx, &candidate, rule_real.as_deref(), &startup, &discovery) {
        Ok((detail, because)) => {
            steps.push(Step {
                step: 4,
                ok: Some(true),
                detail,
            });
            // It loads here; an unquoted pattern may still keep it out
            // of other tools.
            Ok(Report {
                verdict: Verdict::Loads,
                steps,
                fix: quote_fix,
                because,
            })
        }
        Err(mut failure) => {
            failure.fix = failure.fix.or(quote_fix);
            Ok(finish(steps, failure))
        }
    }
}

fn step_no(index: usize) -> u8 {
    u8::try_from(index + 1).unwrap_or(u8::MAX)
}

/// What step 1 found.
#[derive(Debug)]
struct Candidate {
    /// RULE, root-relative.
    rule: String,
    /// PATH, root-relative.
    path: String,
    /// PATH's directory (PATH itself when it names one), root-relative.
    path_dir: String,
    location: RuleLocation,
    detail: String,
}

fn step_candidate(ctx: &Context, sources: &[&dyn RuleSource]) -> Result<Candidate, Failure> {
    let shown_rule = ctx.rule_abs.to_string();
    let Some(rule) = ctx.rule_rel.clone() else {
        return Err(Failure::new(
            format!(
                "{shown_rule} is outside the project root {}: only files under the root are \
                 candidates",
                ctx.root
            ),
            format!("{shown_rule} is outside the project root"),
        ));
    };
    let Some(path) = ctx.path_rel.clone() else {
        let shown = ctx.path_abs.to_string();
        return Err(Failure::new(
            format!(
                "{shown} is outside the project root {}: no rules are discovered for it",
                ctx.root
            ),
            format!("{shown} is outside the project root"),
        ));
    };
    match std::fs::symlink_metadata(&ctx.rule_abs) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::new(
                format!("{rule} does not exist"),
                format!("{rule} does not exist"),
            ));
        }
        Ok(meta) if meta.is_dir() => {
            return Err(Failure::new(
                format!("{rule} is a directory, not a rule file"),
                format!("{rule} is a directory"),
            ));
        }
        _ => {}
    }
    let names_dir = ctx.path_names_dir
        || path.is_empty()
        || std::fs::metadata(&ctx.path_abs).is_ok_and(|m| m.is_dir());
    let path_dir = if names_dir {
        path.clone()
    } else {
        path.rsplit_once('/')
            .map(|(dir, _)| dir.to_owned())
            .unwrap_or_default()
    };
    let chain = chain_of(&path_dir);
    let shown_chain = chain
        .iter()
        .map(|d| shown_dir(d))
        .collect::<Vec<_>>()
        .join(" → ");
    let shown_path = if path.is_empty() { "." } else { &path };
    let locations = rule_locations(&rule, sources);
    if let Some(location) = locations.iter().find(|l| chain.contains(&l.owner)) {
        let detail = format!(
            "{rule} is {} of {}, on the directory chain of {shown_path} ({shown_chain})",
            describe_location(location),
            shown_dir(&location.owner),
        );
        return Ok(Candidate {
            rule,
            path: shown_path.to_owned(),
            path_dir,
            location: location.clone(),
            detail,
        });
    }
    let Some(location) = locations.first() else {
        let names = sources
            .iter()
            .map(|s| {
                let mut names: Vec<String> = s.files().iter().map(|n| (*n).to_owned()).collect();
                names.extend(s.rule_dirs().iter().map(|d| {
                    format!(
                        "{}/{}*{}",
                        d.path,
                        if d.recursive { "**/" } else { "" },
                        d.suffix
                    )
                }));
                format!("{}: {}", s.name(), names.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let mut failure = Failure::new(
            format!("{rule} is not a rule file of any selected convention ({names})"),
            format!("{rule} is not named like a rule file, so no walk ever reads it"),
        );
        if let Some(source) = sources.first()
            && let Some(name) = source.files().first()
        {
            let mut fix = format!(
                "rename it {}, which applies to everything under {}",
                join(&path_dir, name),
                shown_dir(&path_dir)
            );
            if let (Some(dir), Some(key)) =
                (source.rule_dirs().first(), source.scope_keys().first())
            {
                let stem = rule
                    .rsplit('/')
                    .next()
                    .unwrap_or("rule")
                    .split('.')
                    .next()
                    .filter(|s| !s.is_empty())
                    .unwrap_or("rule");
                fix.push_str(&format!(
                    ", or move it to {}/{stem}{} with `{key}: [\"{}\"]`",
                    dir.path,
                    dir.suffix,
                    dir_glob(&path_dir, &path)
                ));
            }
            failure = failure.with_fix(fix);
        }
        return Err(failure);
    };
    let common = common_dir(&location.owner, &path_dir);
    let moved = if location.rule_folder {
        let rest = rule
            .strip_prefix(&join(&location.owner, &location.via))
            .unwrap_or("")
            .trim_start_matches('/');
        join(&join(&common, &location.via), rest)
    } else {
        join(&common, &location.via)
    };
    Err(Failure::new(
        format!(
            "{rule} is {} of {}, which is not on the directory chain of {shown_path} \
             ({shown_chain}): discovery walks only from the touched path up to the root",
            describe_location(location),
            shown_dir(&location.owner)
        ),
        format!(
            "{rule} belongs to {}, which is not {shown_path}'s directory or one of its ancestors",
            shown_dir(&location.owner)
        ),
    )
    .with_fix(format!(
        "move it to {moved} ({}, the deepest directory above both {} and {}), so that it \
         covers both",
        shown_dir(&common),
        shown_dir(&location.owner),
        shown_dir(&path_dir)
    )))
}

fn describe_location(location: &RuleLocation) -> String {
    if location.rule_folder {
        format!(
            "a rule of the {} convention in the rule folder {}",
            location.source,
            join(&location.owner, &location.via)
        )
    } else {
        format!(
            "a rule file of the {} convention ({})",
            location.source, location.via
        )
    }
}

fn step_frontmatter(
    ctx: &Context,
    candidate: &Candidate,
    source: &dyn RuleSource,
) -> Result<(jit_core::RuleHead, String), Failure> {
    let rule = &candidate.rule;
    // At most `READ_LIMIT` bytes: one past the cap below it.
    let read = jit_core::open_regular(ctx.rule_abs.as_std_path())
        .and_then(|(file, meta)| jit_core::read_capped(file, meta.len(), READ_LIMIT - 1));
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(err) => {
            return Err(Failure::new(
                format!("cannot read {rule}: {err}"),
                format!("{rule} cannot be read ({err})"),
            ));
        }
    };
    if bytes.contains(&0) {
        return Err(Failure::new(
            format!("{rule} has a NUL byte, so it is not a text rule file (binary)"),
            format!("{rule} is binary"),
        )
        .with_fix("a rule file is plain text: save it as UTF-8 text"));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let mut bytes = err.into_bytes();
            if bytes.len() as u64 >= READ_LIMIT && bytes.len() - valid < 4 {
                // Cut inside a character at the read limit.
                bytes.truncate(valid);
                String::from_utf8(bytes).unwrap_or_default()
            } else {
                return Err(Failure::new(
                    format!("{rule} is not valid UTF-8 (not_utf8)"),
                    format!("{rule} is not UTF-8"),
                )
                .with_fix("save it as UTF-8"));
            }
        }
    };
    match inspect_rule(&text, source) {
        Ok(head) => {
            let mut detail = match (&head.scope, head.frontmatter) {
                (HeadScope::Paths(scope), _) => format!(
                    "the frontmatter parses; scope: {} {}",
                    scope_key(source),
                    quoted_list(scope.patterns())
                ),
                (HeadScope::Manual(why), _) => {
                    format!("the frontmatter parses; the rule is attached by hand only: {why}")
                }
                (_, true) => format!(
                    "the frontmatter parses, with no `{}:`: unscoped, it applies to everything \
                     under its directory",
                    scope_key(source)
                ),
                (_, false) => {
                    "no frontmatter: unscoped, it applies to everything under its directory"
                        .to_owned()
                }
            };
            for warning in &head.warnings {
                detail.push_str("; warning: ");
                detail.push_str(warning);
            }
            Ok((head, detail))
        }
        Err(err) => Err(Failure::new(
            format!("{}: {}", err.reason.as_str(), err.detail),
            format!("its frontmatter cannot be read ({})", err.reason.as_str()),
        )
        .with_fix(format!("fix the frontmatter of {rule}: {}", err.detail))),
    }
}

fn step_scope(
    ctx: &Context,
    candidate: &Candidate,
    source: &dyn RuleSource,
    scope: &HeadScope,
    recovered: bool,
) -> Result<String, Failure> {
    let scope = match scope {
        HeadScope::Paths(scope) => scope,
        HeadScope::Manual(why) => {
            return Err(Failure::new(
                format!("manual only: {why}"),
                "the rule is only attached by hand".to_owned(),
            )
            .with_fix(format!(
                "give it a scope to load it for {}: `{}: [\"{}\"]`",
                candidate.path,
                scope_key(source),
                dir_glob(&candidate.path_dir, &candidate.path)
            )));
        }
        _ => {
            return Ok(format!(
                "unscoped: it applies to every path under {}",
                shown_dir(&candidate.location.owner)
            ));
        }
    };
    let subject = subject(ctx, &candidate.path, &candidate.path_dir);
    let mut traces = Vec::new();
    for pattern in scope.patterns() {
        let trace = trace_pattern(pattern, &subject).map_err(|err| {
            Failure::new(err.to_string(), "a pattern does not compile".to_owned())
        })?;
        if trace.matched {
            return Ok(trace.to_string());
        }
        traces.push(trace.to_string());
    }
    let key = scope_key(source);
    let patterns = scope.patterns();
    let mut failure = Failure::new(
        traces.join("; "),
        format!(
            "`{subject}` matches none of the `{key}:` patterns of {} {}",
            candidate.rule,
            quoted_list(patterns)
        ),
    );
    if let Some(fix) = suggest(patterns, &subject, &candidate.location.owner, key) {
        let quote = if recovered {
            " (quoted: unquoted, a pattern that starts with `*` or `{` is not valid YAML)"
        } else {
            ""
        };
        failure = failure.with_fix(format!("{fix}{quote}"));
    }
    Err(failure)
}

/// A fix for a scope that misses `subject`: a corrected or added pattern,
/// each checked with the engine's matcher before it is offered.
fn suggest(patterns: &[String], subject: &str, owner: &str, key: &str) -> Option<String> {
    let matches = |p: &str| trace_pattern(p, subject).is_ok_and(|t| t.matched);
    let replaced = |old: &str, new: &str| {
        let list: Vec<String> = patterns
            .iter()
            .map(|p| if p == old { new.to_owned() } else { p.clone() })
            .collect();
        format!("`{key}: {}`", quoted_list(&list))
    };
    for pattern in patterns {
        if let Some(rest) = pattern.strip_prefix('/')
            && matches(rest)
        {
            return Some(format!(
                "patterns are relative to the project root, without a leading `/`: write \
                 `{rest}` for `{pattern}`: {}",
                replaced(pattern, rest)
            ));
        }
        if !owner.is_empty() {
            let anchored = format!("{owner}/{pattern}");
            if matches(&anchored) {
                return Some(format!(
                    "patterns are relative to the project root, not to the rule's directory \
                     {owner}/: write `{anchored}` for `{pattern}`: {}",
                    replaced(pattern, &anchored)
                ));
            }
        }
        if !pattern.contains('/') {
            let deep = format!("**/{pattern}");
            if matches(&deep) {
                return Some(format!(
                    "`{pattern}` matches at the root only (`*` does not cross `/`): write \
                     `{deep}` to match at any depth: {}",
                    replaced(pattern, &deep)
                ));
            }
        }
    }
    let dir = subject.trim_end_matches('/');
    let added = match dir.rsplit_once('/') {
        _ if subject.ends_with('/') => format!("{dir}/**"),
        Some((parent, _)) => format!("{parent}/**"),
        None => dir.to_owned(),
    };
    if !matches(&added) {
        return None;
    }
    let mut list = patterns.to_vec();
    list.push(added.clone());
    Some(format!(
        "add a pattern that covers it, such as `{added}`: `{key}: {}`",
        quoted_list(&list)
    ))
}

fn step_load(
    ctx: &Context,
    candidate: &Candidate,
    rule_real: Option<&Utf8Path>,
    startup: &StartupReport,
    discovery: &Discovery,
) -> Result<(String, String), Failure> {
    let rule = &candidate.rule;
    let is_rule = |file: &str| {
        file == rule
            || rule_real.is_some_and(|real| {
                let abs = if Utf8Path::new(file).is_absolute() {
                    Utf8PathBuf::from(file)
                } else {
                    ctx.root.join(file)
                };
                canonical(&abs).as_deref() == Some(real)
            })
    };
    let at_startup = startup.loaded.iter().any(|l| is_rule(&l.file));
    if let Some(loaded) = discovery.loaded.iter().find(|l| is_rule(&l.file)) {
        let mut detail = format!(
            "touching {} injects it now: {} ({}, {} bytes)",
            candidate.path,
            loaded.decision.as_str(),
            loaded.attribution.as_str(),
            loaded.bytes
        );
        if let Some(by) = &loaded.included_by {
            detail.push_str(&format!(", imported by {by}"));
        }
        let because = format!(
            "touching {} injects {rule} ({})",
            candidate.path,
            loaded.attribution.as_str()
        );
        return Ok((detail, because));
    }
    let startup_note = |reason: &str| {
        format!(
            "{reason}: the startup load already brought it in (session_start), before any tool \
             ran, and touching {} does not inject it a second time",
            candidate.path
        )
    };
    if let Some(skipped) = discovery.skipped.iter().find(|s| is_rule(&s.file)) {
        if skipped.reason == SkipReason::AlreadyLoaded && at_startup {
            return Err(Failure::new(
                startup_note("already_loaded"),
                "it is already in the context: the startup load brought it in".to_owned(),
            ));
        }
        return Err(engine_skip(candidate, skipped.reason, &skipped.detail));
    }
    if at_startup {
        return Err(Failure::new(
            startup_note("already_loaded"),
            "it is already in the context: the startup load brought it in".to_owned(),
        ));
    }
    if let Some(skipped) = startup.skipped.iter().find(|s| is_rule(&s.file)) {
        let mut failure = engine_skip(candidate, skipped.reason, &skipped.detail);
        failure.detail = format!(
            "judged at startup and not again for {}: {}",
            candidate.path, failure.detail
        );
        return Err(failure);
    }
    // A directory of the walk that resolves outside the root is one row.
    if let Some(outside) = discovery.skipped.iter().find(|s| {
        s.reason == SkipReason::OutsideRoot
            && (s.file == discovery.trigger || within(rule, &s.file))
    }) {
        return Err(engine_skip(candidate, outside.reason, &outside.detail));
    }
    Err(Failure::new(
        format!(
            "the discovery for {} did not judge it (its directory was not reached, or was \
             already judged in this session)",
            candidate.path
        ),
        format!("the engine's walk for {} does not reach it", candidate.path),
    ))
}

/// A step-4 failure from the engine's reason and detail.
fn engine_skip(candidate: &Candidate, reason: SkipReason, detail: &str) -> Failure {
    let rule = &candidate.rule;
    let because = match reason {
        SkipReason::AlreadyLoaded => "it is already in the context".to_owned(),
        SkipReason::OutsideRoot => "it lies outside the project root".to_owned(),
        SkipReason::TooLarge => "it is over the size cap for one rule file".to_owned(),
        SkipReason::TooLargeForBudget => "it does not fit the session's rule budget".to_owned(),
        SkipReason::ScopeMiss => format!("its scope does not match {}", candidate.path),
        other => format!("the engine skips it ({})", other.as_str()),
    };
    let failure = Failure::new(format!("{}: {detail}", reason.as_str()), because);
    match reason {
        SkipReason::TooLarge => failure.with_fix(format!(
            "split {rule} into smaller rules, each scoped to the paths it is about"
        )),
        _ => failure,
    }
}

/// Whether root-relative `file` is `dir` or below it.
fn within(file: &str, dir: &str) -> bool {
    file == dir || file.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The touched path as the engine's scope globs see it: root-relative,
/// through resolved directory links inside the root, with a trailing `/`
/// for a directory.
fn subject(ctx: &Context, path: &str, path_dir: &str) -> String {
    let names_dir = path == path_dir;
    let path = if path == "." { "" } else { path };
    // The deepest directory of the chain that exists inside the root.
    let mut base = String::new();
    let mut taken = 0;
    let parts: Vec<&str> = path_dir.split('/').filter(|p| !p.is_empty()).collect();
    for i in 1..=parts.len() {
        let lex = parts[..i].join("/");
        match canonical(&ctx.root.join(&lex)) {
            Some(real) if real.is_dir() => match real.strip_prefix(&ctx.root) {
                Ok(rel) => {
                    base = slash(rel);
                    taken = lex.len();
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    let rest = path[taken.min(path.len())..].trim_start_matches('/');
    let mut out = match (base.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (false, true) => base,
        (false, false) => format!("{base}/{rest}"),
    };
    if names_dir && !out.is_empty() {
        out.push('/');
    }
    out
}

/// `""`, `src`, `src/ui` for `src/ui`.
fn chain_of(dir: &str) -> Vec<String> {
    let mut chain = vec![String::new()];
    let mut current = String::new();
    for part in dir.split('/').filter(|p| !p.is_empty()) {
        if !current.is_empty() {
            current.push('/');
        }
        current.push_str(part);
        chain.push(current.clone());
    }
    chain
}

/// The deepest directory above (or equal to) both.
fn common_dir(a: &str, b: &str) -> String {
    let mut common = Vec::new();
    for (x, y) in a.split('/').zip(b.split('/')) {
        if x != y || x.is_empty() {
            break;
        }
        common.push(x);
    }
    common.join("/")
}

/// A glob for PATH's directory (`src/ui/**`), or PATH itself at the root.
fn dir_glob(path_dir: &str, path: &str) -> String {
    if path_dir.is_empty() {
        if path.is_empty() || path == "." {
            "**".to_owned()
        } else {
            path.to_owned()
        }
    } else {
        format!("{path_dir}/**")
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else if name.is_empty() {
        dir.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

fn shown_dir(dir: &str) -> String {
    if dir.is_empty() {
        "the root (.)".to_owned()
    } else {
        format!("{dir}/")
    }
}

fn scope_key(source: &dyn RuleSource) -> &str {
    source.scope_keys().first().map_or("paths", String::as_str)
}

/// `["a", "b"]`, as a YAML flow list of quoted strings.
fn quoted_list(patterns: &[String]) -> String {
    let items: Vec<String> = patterns
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_else(|_| format!("\"{p}\"")))
        .collect();
    format!("[{}]", items.join(", "))
}

fn slash(rel: &Utf8Path) -> String {
    rel.components()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join("/")
}

fn canonical(path: &Utf8Path) -> Option<Utf8PathBuf> {
    Utf8PathBuf::from_path_buf(std::fs::canonicalize(path).ok()?).ok()
}

fn write_human(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    for step in &report.steps {
        let mark = match step.ok {
            Some(true) => "ok",
            Some(false) => "FAIL",
            None => "-",
        };
        let name = STEP_NAMES
            .get(usize::from(step.step).saturating_sub(1))
            .copied()
            .unwrap_or("");
        writeln!(
            out,
            "{} {name:<11} {mark:<4}  {}",
            step.step,
            escape(&step.detail)
        )?;
    }
    match report.verdict {
        Verdict::Loads => writeln!(out, "loads: {}.", escape(&report.because))?,
        Verdict::DoesNotLoad => {
            writeln!(out, "does not load, because {}.", escape(&report.because))?
        }
    }
    if let Some(fix) = &report.fix {
        writeln!(out, "fix: {}", escape(fix))?;
    }
    Ok(())
}
