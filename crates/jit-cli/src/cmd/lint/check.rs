//! The checks: every rule file of the selected conventions, judged with the engine's own parser, matcher, size cap and import expansion.

use std::collections::HashMap;
use std::fs;
use std::io::Read as _;

use camino::Utf8Path;
use jit_core::{
    CompiledScope, DEFAULT_MAX_RULE_BYTES, MAX_RULE_FILES_PER_FOLDER, RuleScopeCheck, RuleSource,
    SkipReason, check_rule_text,
};
use jit_imports::{ImportStatus, Policy};

use super::conventions;
use super::finding::{Finding, Kind};
use super::repo::{Repo, join};
use super::walk::{Cut, IgnoreCut, MAX_IGNORE_BYTES_IN_FORCE, MAX_IGNORE_FILE_BYTES};

/// One rule file to check: the file and the source that names it.
struct Candidate<'s> {
    file: String,
    source: &'s dyn RuleSource,
}

/// The most imports the expansions of one `jit lint` run follow, over all
/// its rule files, nested imports included. Each rule file's imports are
/// expanded as the engine expands them, up to the engine's own limit per
/// expansion (`jit_imports::DEFAULT_MAX_IMPORTS`, 1,000), so a run of
/// rule files that import each other (2,000 rules, each importing 286
/// others) would follow two million imports and report each too-deep one.
/// The limit is checked before each rule file: a run follows at most this
/// many plus one expansion's. Real projects follow a few hundred.
const MAX_IMPORTS_PER_RUN: usize = 50_000;

/// The most bytes the import expansions of one `jit lint` run read, over
/// all its rule files; checked with [`MAX_IMPORTS_PER_RUN`].
const MAX_IMPORT_BYTES_PER_RUN: u64 = 64 * 1024 * 1024;

/// The import work of one run, and the rule files whose imports were not
/// checked once it reached a limit.
#[derive(Debug, Default)]
struct ImportWork {
    /// Imports followed, nested ones included.
    followed: usize,
    /// Bytes read from imported files.
    bytes: u64,
    /// Rule files whose imports were expanded.
    expanded: usize,
    /// Rule files with imports left unchecked, in the order met.
    skipped: Vec<String>,
}

impl ImportWork {
    /// The limit reached, said for a person; `None` while neither is.
    fn limit_reached(&self) -> Option<String> {
        if self.followed >= MAX_IMPORTS_PER_RUN {
            Some(format!(
                "the {MAX_IMPORTS_PER_RUN} imports one run follows (MAX_IMPORTS_PER_RUN)"
            ))
        } else if self.bytes >= MAX_IMPORT_BYTES_PER_RUN {
            Some(format!(
                "the {MAX_IMPORT_BYTES_PER_RUN} bytes of imported files one run reads \
                 (MAX_IMPORT_BYTES_PER_RUN)"
            ))
        } else {
            None
        }
    }

    /// One `lint_limit` finding naming the limit and the rule files whose
    /// imports were not checked.
    fn finding(&self) -> Option<Finding> {
        let first = self.skipped.first()?;
        let limit = self.limit_reached().unwrap_or_default();
        let more = match self.skipped.len() - 1 {
            0 => String::new(),
            n => format!(" and of {n} more rule files after it"),
        };
        Some(Finding::new(
            first,
            1,
            Kind::LintLimit,
            format!(
                "the imports of this rule file{more} were not checked: the lint had followed \
                 {} imports ({} bytes read) for {} rule files, reaching {limit}; check one \
                 with `jit imports FILE`",
                self.followed, self.bytes, self.expanded
            ),
        ))
    }
}

/// What the pass over the rule files collects besides findings.
#[derive(Debug, Default)]
struct Pass {
    /// The scoped rules, for the dead-scope pass.
    scoped: Vec<Scoped>,
    /// Each text met, with the first file that holds it.
    texts: HashMap<String, String>,
    /// The import work so far.
    imports: ImportWork,
}

/// A scoped rule's patterns, each with its line, for the dead-scope pass.
#[derive(Debug)]
struct Scoped {
    file: String,
    patterns: Vec<(String, usize)>,
}

/// The sources among `sources` whose files exist in the repository.
pub(super) fn present<'s>(repo: &Repo, sources: &[&'s dyn RuleSource]) -> Vec<&'s dyn RuleSource> {
    sources
        .iter()
        .copied()
        .filter(|s| !candidates(repo, &[*s], &mut Vec::new()).is_empty())
        .collect()
}

/// Every finding for the rule files of `sources` in `repo`, sorted.
pub(super) fn lint(repo: &Repo, sources: &[&dyn RuleSource]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let candidates = candidates(repo, sources, &mut findings);
    let mut pass = Pass::default();
    let mut seen_real: HashMap<std::path::PathBuf, String> = HashMap::new();
    for candidate in &candidates {
        let path = repo.root.join(&candidate.file);
        // Two names for one file (a link) are one rule, not a duplicate.
        if let Ok(real) = fs::canonicalize(&path)
            && seen_real.insert(real, candidate.file.clone()).is_some()
        {
            continue;
        }
        check_file(repo, candidate, &path, &mut findings, &mut pass);
    }
    findings.extend(pass.imports.finding());
    findings.extend(repo.ignore_cuts.iter().map(ignore_cut));
    for (dir, names) in &repo.dirs {
        findings.extend(conventions::shadowed(sources, dir, names));
    }
    dead_scopes(repo, &pass.scoped, &mut findings);
    stray_rules(repo, sources, &mut findings);
    findings.sort();
    findings.dedup();
    findings
}

/// The `lint_limit` finding of an ignore file the walk honoured only in
/// part, or not at all.
fn ignore_cut(cut: &IgnoreCut) -> Finding {
    let unread = "files it would ignore are linted as files git would track";
    let (line, message) = match &cut.cut {
        Cut::TooLarge {
            size,
            lines,
            in_force,
        } => {
            let limit = match in_force {
                None => format!(
                    "over the {MAX_IGNORE_FILE_BYTES} bytes of one ignore file the lint reads \
                     (MAX_IGNORE_FILE_BYTES)"
                ),
                Some(above) => format!(
                    "past the {MAX_IGNORE_BYTES_IN_FORCE} bytes of ignore files in force in one \
                     directory the lint reads (MAX_IGNORE_BYTES_IN_FORCE), of which the ignore \
                     files in force before it hold {above}"
                ),
            };
            let kept = match lines {
                0 => "none of its lines were honoured".to_owned(),
                n => format!(
                    "its first {n} lines were honoured and the rest, from line {}, were not",
                    n + 1
                ),
            };
            (
                lines + 1,
                format!("{size} bytes, {limit}: {kept}, so {unread}; git reads the whole file"),
            )
        }
        Cut::Unread(why) => (
            1,
            format!("not read ({why}), so none of its patterns were honoured and {unread}"),
        ),
    };
    Finding::new(&cut.file, line, Kind::LintLimit, message)
}

/// The rule files of `sources` in the directories the walk entered, in
/// sorted order; rule folders' files that the engine never reads are
/// `unreachable` findings.
fn candidates<'s>(
    repo: &Repo,
    sources: &[&'s dyn RuleSource],
    findings: &mut Vec<Finding>,
) -> Vec<Candidate<'s>> {
    let mut out = Vec::new();
    for (dir, names) in &repo.dirs {
        for &source in sources {
            for name in source.files() {
                let first = name.split('/').next().unwrap_or(name);
                if !names.contains(first) {
                    continue;
                }
                let file = join(dir, name);
                if fs::symlink_metadata(repo.root.join(&file)).is_ok() {
                    out.push(Candidate { file, source });
                }
            }
            // Names read at the root only (`.cursorrules`, Copilot's
            // instructions file, `.clinerules`), as the engine reads them:
            // a folder of that name is a rule folder, not a candidate.
            if dir.is_empty() {
                for name in source.root_files() {
                    let first = name.split('/').next().unwrap_or(name);
                    if names.contains(first)
                        && fs::metadata(repo.root.join(name)).is_ok_and(|m| !m.is_dir())
                    {
                        out.push(Candidate {
                            file: name.clone(),
                            source,
                        });
                    }
                }
            }
            for (folder, suffix, recursive) in conventions::rule_dirs(source) {
                let first = folder.split('/').next().unwrap_or(&folder);
                if !names.contains(first) {
                    continue;
                }
                let folder = join(dir, &folder);
                let mut files = Vec::new();
                list_folder(repo, &folder, recursive, &mut files);
                files.sort();
                let mut rules: Vec<String> = Vec::new();
                for file in files {
                    if file.ends_with(&suffix) {
                        rules.push(file);
                    } else if looks_like_rule(&file) {
                        findings.push(Finding::new(
                            &file,
                            1,
                            Kind::Unreachable,
                            format!(
                                "only files ending in `{suffix}` in {folder}/ are {} rules; \
                                 this one is never read: rename it to end in `{suffix}`",
                                source.name()
                            ),
                        ));
                    }
                }
                for file in rules.iter().skip(MAX_RULE_FILES_PER_FOLDER) {
                    findings.push(Finding::new(
                        file,
                        1,
                        Kind::Unreachable,
                        format!(
                            "{folder}/ holds {} rule files, over the engine's limit of \
                             {MAX_RULE_FILES_PER_FOLDER}; files past it in sorted order are \
                             never read",
                            rules.len()
                        ),
                    ));
                }
                rules.truncate(MAX_RULE_FILES_PER_FOLDER);
                out.extend(rules.into_iter().map(|file| Candidate { file, source }));
            }
        }
    }
    out
}

/// Whether a file in a rule folder looks meant as a rule (a Markdown file
/// with another suffix than the folder's).
fn looks_like_rule(file: &str) -> bool {
    [".md", ".mdc", ".markdown"]
        .iter()
        .any(|ext| file.ends_with(ext))
}

/// The files below `folder` (root-relative), following the engine: links
/// are followed, sub-folders only when `recursive`.
fn list_folder(repo: &Repo, folder: &str, recursive: bool, out: &mut Vec<String>) {
    let mut stack = vec![(folder.to_owned(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(repo.root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = join(&dir, &name);
            let is_dir = fs::metadata(repo.root.join(&path)).is_ok_and(|m| m.is_dir());
            if is_dir {
                // The depth bound stands in for the engine's loop check.
                if recursive && depth < 32 {
                    stack.push((path, depth + 1));
                }
            } else {
                out.push(path);
            }
        }
    }
}

/// `unknown_key` findings for the frontmatter of `check`; a key that holds
/// a character a reader does not see is named with it.
fn unknown_keys(
    source: &dyn RuleSource,
    file: &str,
    check: &jit_core::RuleCheck,
    findings: &mut Vec<Finding>,
) {
    let refused = check.verdict.is_err();
    for finding in conventions::unknown_keys(source, file, check) {
        match invisible_named(&finding.message) {
            None => findings.push(finding),
            // The refusal names the character already.
            Some(_) if refused => {}
            Some(message) => findings.push(Finding { message, ..finding }),
        }
    }
}

/// `message` with each character a reader does not see written as an
/// escape (`\u{200b}`), and the first of them named, or `None` when it
/// holds none: a key such as `U+200B` then `paths` must not print as
/// `paths`.
fn invisible_named(message: &str) -> Option<String> {
    let named = message.chars().find_map(jit_core::invisible_character)?;
    let mut out = String::with_capacity(message.len() + 64);
    for c in message.chars() {
        if jit_core::invisible_character(c).is_some() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.push_str(&format!(
        " (the key holds {named}, an invisible character: delete it)"
    ));
    Some(out)
}

/// The first `line N` a message names.
fn line_in(message: &str) -> Option<usize> {
    let at = message.find("line ")?;
    let digits: String = message[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn check_file(
    repo: &Repo,
    candidate: &Candidate<'_>,
    path: &Utf8Path,
    findings: &mut Vec<Finding>,
    pass: &mut Pass,
) {
    let file = candidate.file.as_str();
    let source = candidate.source;
    let meta = match fs::metadata(path) {
        Ok(meta) if meta.is_file() => meta,
        Ok(_) => {
            findings.push(Finding::new(
                file,
                1,
                Kind::Unreadable,
                "not a regular file, so the engine skips it; remove it or make it a file",
            ));
            return;
        }
        Err(err) => {
            findings.push(Finding::new(
                file,
                1,
                Kind::Unreadable,
                format!("cannot read: {err}"),
            ));
            return;
        }
    };
    if meta.len() > DEFAULT_MAX_RULE_BYTES {
        findings.push(Finding::new(
            file,
            1,
            Kind::TooLarge,
            format!(
                "{} bytes is over the engine's {DEFAULT_MAX_RULE_BYTES}-byte cap for one rule \
                 file, so it never loads; split it",
                meta.len()
            ),
        ));
        return;
    }
    let mut bytes = Vec::new();
    if let Err(err) = fs::File::open(path)
        .and_then(|f| f.take(DEFAULT_MAX_RULE_BYTES + 1).read_to_end(&mut bytes))
    {
        findings.push(Finding::new(
            file,
            1,
            Kind::Unreadable,
            format!("cannot read: {err}"),
        ));
        return;
    }
    if bytes.contains(&0) {
        findings.push(Finding::new(
            file,
            1,
            Kind::Unreadable,
            "the file has a NUL byte, so the engine takes it for binary and skips it",
        ));
        return;
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            findings.push(Finding::new(
                file,
                1,
                Kind::Unreadable,
                format!(
                    "not valid UTF-8 ({}), so the engine skips it; save it as UTF-8",
                    err.utf8_error()
                ),
            ));
            return;
        }
    };
    let normal = text.trim().replace("\r\n", "\n");
    if !normal.is_empty() {
        if let Some(first) = pass.texts.get(&normal) {
            findings.push(Finding::new(
                file,
                1,
                Kind::DuplicateRule,
                format!("the same text as {first}: an agent that loads both reads it twice; keep one and import it from the other"),
            ));
        } else {
            pass.texts.insert(normal, file.to_owned());
        }
    }

    let check = check_rule_text(&text, source);
    let fence = check.frontmatter_lines.map_or(1, |(open, _)| open);
    unknown_keys(source, file, &check, findings);
    match &check.verdict {
        Err((reason, detail)) => {
            let kind = match reason {
                SkipReason::TooLarge => Kind::TooLarge,
                SkipReason::Binary | SkipReason::NotUtf8 | SkipReason::Unreadable => {
                    Kind::Unreadable
                }
                _ => Kind::InvalidFrontmatter,
            };
            let split = check.patterns.as_deref().and_then(conventions::split_brace);
            let (line, message) = match split {
                Some((meant, items)) => {
                    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
                    let key = source
                        .scope_keys()
                        .first()
                        .map_or("paths".to_owned(), |k| k.to_string());
                    (
                        check.line_of(&text, &key, &items[0]).unwrap_or(fence),
                        format!(
                            "the brace pattern `{meant}` was split across the list items {}: a \
                             YAML list splits on commas, so no item closes its braces and the rule \
                             never loads; write it as one quoted item: `{key}: [\"{meant}\"]`",
                            quoted.join(", ")
                        ),
                    )
                }
                None => {
                    let what = if *reason == SkipReason::InvalidFrontmatter {
                        String::new()
                    } else {
                        format!("{}: ", reason.as_str())
                    };
                    // A detail about one scope key points at that key's line.
                    let key_line = || {
                        source
                            .scope_keys()
                            .iter()
                            .filter(|k| detail.contains(&format!("`{k}:`")))
                            .find_map(|k| check.key_line(k))
                    };
                    (
                        line_in(detail).or_else(key_line).unwrap_or(fence),
                        format!("{what}{detail}"),
                    )
                }
            };
            findings.push(Finding::new(file, line, kind, message));
            return;
        }
        Ok(RuleScopeCheck::Manual(why)) => {
            findings.push(Finding::new(file, fence, Kind::ManualOnly, why.clone()));
        }
        Ok(RuleScopeCheck::Paths(patterns)) => {
            let key = scope_key_of(source, &check);
            pass.scoped.push(Scoped {
                file: file.to_owned(),
                patterns: patterns
                    .iter()
                    .map(|p| (p.clone(), check.line_of(&text, &key, p).unwrap_or(fence)))
                    .collect(),
            });
        }
        Ok(_) => {}
    }
    for warning in &check.warnings {
        if conventions::is_claude_globs_warning(source, warning) {
            continue;
        }
        findings.push(Finding::new(
            file,
            line_in(warning).unwrap_or(fence),
            Kind::FrontmatterWarning,
            warning.clone(),
        ));
    }
    if check.body.trim().is_empty() {
        findings.push(Finding::new(
            file,
            1,
            Kind::EmptyRule,
            "the rule has no text after its frontmatter, so it injects nothing; write the rule or remove the file",
        ));
    }
    if conventions::takes_imports(source) && check.body.contains('@') {
        imports(repo, file, path, &check, &mut pass.imports, findings);
    }
}

/// The scope key a rule's frontmatter uses (the first of the source's keys
/// that is present).
fn scope_key_of(source: &dyn RuleSource, check: &jit_core::RuleCheck) -> String {
    let keys: Vec<String> = source.scope_keys().iter().map(|k| k.to_string()).collect();
    keys.iter()
        .find(|k| check.key_line(k).is_some())
        .or(keys.first())
        .cloned()
        .unwrap_or_default()
}

/// Findings for the `@imports` of one rule's body, expanded as the engine
/// expands them; none, and the file noted as skipped, once the run's
/// import work has reached a limit.
fn imports(
    repo: &Repo,
    file: &str,
    path: &Utf8Path,
    check: &jit_core::RuleCheck,
    work: &mut ImportWork,
    findings: &mut Vec<Finding>,
) {
    if work.limit_reached().is_some() {
        work.skipped.push(file.to_owned());
        return;
    }
    let body_line = check.body_line;
    let expansion = jit_imports::expand(
        path.as_std_path(),
        &check.body,
        repo.root.as_std_path(),
        &Policy::default(),
    );
    work.followed += expansion.imports.len();
    work.bytes += expansion.bytes_read;
    work.expanded += 1;
    let real = fs::canonicalize(path).ok();
    for diagnostic in &expansion.diagnostics {
        let kind = match diagnostic.status {
            ImportStatus::Missing => Kind::MissingImport,
            ImportStatus::OutsideRoot => Kind::ImportOutsideRoot,
            ImportStatus::Cycle => Kind::ImportCycle,
            _ => Kind::ImportNotInlined,
        };
        let (shown, line) = if real.as_deref() == Some(diagnostic.file.as_path()) {
            (file.to_owned(), body_line + diagnostic.line - 1)
        } else {
            let shown = diagnostic
                .file
                .strip_prefix(repo.root.as_std_path())
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| diagnostic.file.display().to_string());
            (shown, diagnostic.line)
        };
        let reason = diagnostic
            .reason
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        // Paths inside the project are shown root-relative, as files are.
        let message = diagnostic
            .message
            .replace(&format!("{}/", repo.root), "")
            .replace(repo.root.as_str(), ".");
        findings.push(Finding::new(
            shown,
            line,
            kind,
            format!("`@{}`{reason}: {message}", diagnostic.target),
        ));
    }
}

/// `dead_scope`: each scope pattern against every file and directory
/// marker of the repository, with the engine's matcher.
fn dead_scopes(repo: &Repo, scoped: &[Scoped], findings: &mut Vec<Finding>) {
    if scoped.is_empty() {
        return;
    }
    let subjects = repo.subjects();
    let mut verdicts: HashMap<&str, bool> = HashMap::new();
    for rule in scoped {
        for (pattern, line) in &rule.patterns {
            let live = *verdicts.entry(pattern.as_str()).or_insert_with(|| {
                CompiledScope::new([pattern.as_str()])
                    .is_ok_and(|scope| subjects.iter().any(|s| scope.is_match(s)))
            });
            if !live {
                let tracked = if repo.git {
                    "no file git tracks or would track (untracked and not ignored)"
                } else {
                    "no file of the tree (.gitignore honoured)"
                };
                findings.push(Finding::new(
                    &rule.file,
                    *line,
                    Kind::DeadScope,
                    format!(
                        "the pattern `{pattern}` matches {tracked}, so the rule never loads \
                         for it; patterns are relative to the project root: check the path"
                    ),
                ));
            }
        }
    }
}

/// `unreachable`: rule files inside `.git` or an ignored folder, where the
/// walk of the repository never goes.
fn stray_rules(repo: &Repo, sources: &[&dyn RuleSource], findings: &mut Vec<Finding>) {
    if repo.skipped_dirs.is_empty() {
        return;
    }
    let names: Vec<String> = sources
        .iter()
        .flat_map(|s| conventions::files(*s))
        .collect();
    let folders: Vec<(String, String)> = sources
        .iter()
        .flat_map(|s| conventions::rule_dirs(*s))
        .map(|(folder, suffix, _)| (format!("/{folder}/"), suffix))
        .collect();
    let wanted = |path: &str| {
        let slashed = format!("/{path}");
        names.iter().any(|n| slashed.ends_with(&format!("/{n}")))
            || folders.iter().any(|(folder, suffix)| {
                slashed.contains(folder.as_str()) && path.ends_with(suffix.as_str())
            })
    };
    for (file, top) in repo.stray_files(wanted) {
        let why = if top == ".git" || top.ends_with("/.git") {
            format!("inside git's own folder {top}/")
        } else {
            format!("inside {top}/, which git ignores")
        };
        findings.push(Finding::new(
            file,
            1,
            Kind::Unreachable,
            format!(
                "{why}: the repository does not carry it and file tools that honour \
                 .gitignore never reach it; move it to a tracked directory or delete it"
            ),
        ));
    }
}
