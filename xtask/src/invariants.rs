//! The source invariants of ARCHITECTURE.md that a static check can hold: short functions, an engine that names no convention, a jit-git that spawns no `git`, unsafe code allowed in one file only, jit-base's few dependencies and serde_json without `preserve_order`.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use cargo_metadata::{DependencyKind, MetadataCommand};

use crate::Check;

/// The longest a function of library code may be, from its `fn` line to its
/// closing brace.
const MAX_FN_LINES: usize = 80;

/// Functions over [`MAX_FN_LINES`] when this check came in: file, name,
/// and length then. They predate the limit, and splitting them is work of
/// its own, in code this check only reads. The list may only shrink: an
/// entry whose function is back under the limit (or gone) is a finding,
/// and so is a listed function that grew. Split a function rather than
/// raise its number.
const LONG_FN_ALLOWED: &[(&str, &str, usize)] = &[
    ("crates/jit-cli/src/cmd/audit.rs", "run", 81),
    ("crates/jit-cli/src/cmd/hook/run.rs", "handle_inner", 178),
    ("crates/jit-cli/src/cmd/lint/check.rs", "check_file", 185),
    ("crates/jit-cli/src/cmd/replay/html.rs", "render", 118),
    ("crates/jit-cli/src/cmd/replay/html.rs", "chart", 112),
    ("crates/jit-cli/src/cmd/replay/mod.rs", "write_report", 184),
    ("crates/jit-cli/src/cmd/replay/simulate.rs", "batch", 92),
    ("crates/jit-cli/src/cmd/replay/simulate.rs", "finish", 96),
    ("crates/jit-cli/src/cmd/stats.rs", "write_table", 103),
    ("crates/jit-cli/src/cmd/why.rs", "checklist", 126),
    ("crates/jit-cli/src/cmd/why.rs", "step_candidate", 150),
    ("crates/jit-cli/src/cmd/why.rs", "step_load", 84),
];

/// The file names and folders of the shipped conventions. The engine
/// (`discover.rs` and `discover/`) must not spell any of them: what a
/// convention is comes from its `RuleSource`.
const CONVENTION_NAMES: &[&str] = &[
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude",
    "AGENTS.md",
    "AGENTS.override.md",
    ".codex",
    "GEMINI.md",
    ".gemini",
    ".cursor",
    ".cursorrules",
    ".mdc",
    "copilot-instructions",
    ".instructions.md",
    ".clinerules",
];

/// The only crates jit-base may depend on (normal dependencies), as
/// ARCHITECTURE.md lists them.
const BASE_DEPENDENCIES: &[&str] = &[
    "camino",
    "inventory",
    "libc",
    "rustix",
    "serde",
    "serde_json",
    "thiserror",
];

/// The files that may allow `unsafe_code`, which the workspace forbids,
/// each in a crate whose own lint table only denies it: the `jit` binary's
/// process entry on Linux with glibc, and the benchmarks' counting
/// allocator.
const UNSAFE_ALLOWED_IN: &[&str] = &["bench-tree/src/alloc.rs", "crates/jit-cli/src/start.rs"];

/// The crates with a lint table of their own, which must be the
/// workspace's but for `unsafe_code = "deny"`.
const OWN_LINT_TABLES: &[&str] = &["crates/jit-cli/Cargo.toml"];

/// Runs every invariant check over the workspace at `root`.
pub(crate) fn checks(root: &Path) -> anyhow::Result<Vec<Check>> {
    let files = library_files(root)?;
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).with_context(|| format!("reading {path}"))
    };
    let workspace = read("Cargo.toml")?;
    let own_tables = OWN_LINT_TABLES
        .iter()
        .map(|&path| Ok((path, read(path)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut checks = vec![
        function_length(&files, LONG_FN_ALLOWED),
        engine_names_no_convention(&files),
        git_never_spawned(&files),
        unsafe_allowed_in_few_files(&all_rust_files(root)?, UNSAFE_ALLOWED_IN),
        lint_tables(&workspace, &own_tables),
    ];
    checks.extend(manifest_checks(root)?);
    Ok(checks)
}

/// One library source file: its path relative to the workspace root and
/// its text.
struct SourceFile {
    path: PathBuf,
    text: String,
}

impl SourceFile {
    /// Whether it lies at or under `prefix` (`/`-separated, relative to the
    /// workspace root): `crates/jit-core/src/discover` takes both
    /// `discover.rs` and `discover/`.
    fn is_under(&self, prefix: &str) -> bool {
        let path = self.path.to_string_lossy().replace('\\', "/");
        path == format!("{prefix}.rs") || path.starts_with(&format!("{prefix}/"))
    }
}

/// Every `.rs` file under `crates/*/src`, skipping test files (a `tests`
/// folder or a `tests.rs`) and hidden folders, sorted.
fn library_files(root: &Path) -> anyhow::Result<Vec<SourceFile>> {
    let mut paths = Vec::new();
    let crates = root.join("crates");
    for entry in
        std::fs::read_dir(&crates).with_context(|| format!("listing {}", crates.display()))?
    {
        let src = entry?.path().join("src");
        if src.is_dir() {
            walk(root, &src, &mut paths)?;
        }
    }
    paths.retain(|path| !is_test_file(path));
    read_sources(root, paths)
}

/// Every `.rs` file of the workspace's own code, tests, benches and build
/// scripts included (`crates/`, `bench-tree/`, `xtask/`), skipping hidden
/// and `target` folders, sorted.
fn all_rust_files(root: &Path) -> anyhow::Result<Vec<SourceFile>> {
    let mut paths = Vec::new();
    for dir in ["crates", "bench-tree", "xtask"] {
        walk(root, &root.join(dir), &mut paths)?;
    }
    read_sources(root, paths)
}

/// The files at `paths` (relative to `root`), read, in path order.
fn read_sources(root: &Path, mut paths: Vec<PathBuf>) -> anyhow::Result<Vec<SourceFile>> {
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root.join(&path))
                .with_context(|| format!("reading {}", path.display()))?;
            Ok(SourceFile { path, text })
        })
        .collect()
}

/// Adds the `.rs` files under `dir` to `out`, relative to `root`, skipping
/// hidden folders and `target` folders (a fuzz crate's own build).
fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let skipped = name.to_string_lossy().starts_with('.') || name == "target";
        if entry.file_type()?.is_dir() {
            if !skipped {
                walk(root, &path, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

/// Only the files in `allowed` name the `unsafe_code` lint in their code
/// (to allow it): tests and benches included, comments and strings not.
/// An allowed file that no longer names it is a finding too, so the list
/// cannot outlive its reasons.
fn unsafe_allowed_in_few_files(files: &[SourceFile], allowed: &[&str]) -> Check {
    let mut problems = Vec::new();
    let mut used = BTreeSet::new();
    for file in files {
        let lexed = Lexed::new(&file.text);
        let path = file.path.to_string_lossy().replace('\\', "/");
        for at in lexed.all_code_matches("unsafe_code") {
            if allowed.contains(&path.as_str()) {
                used.insert(path.clone());
            } else {
                problems.push(format!(
                    "{path}:{}: `unsafe_code` named outside the files allowed to allow unsafe \
                     code ({}); the workspace forbids it",
                    lexed.line_of(at),
                    allowed.join(", ")
                ));
            }
        }
    }
    for &path in allowed {
        if !used.contains(path) {
            problems.push(format!(
                "{path} no longer allows `unsafe_code`: take it off the list in \
                 xtask/src/invariants.rs (and its crate back to the workspace's lints)"
            ));
        }
    }
    Check {
        name: "unsafe code in named files only",
        summary: format!(
            "{} files checked; `unsafe_code` allowed only in {}",
            files.len(),
            allowed.join(", ")
        ),
        problems,
        warnings: Vec::new(),
    }
}

/// The workspace forbids `unsafe_code`, and each crate with a lint table
/// of its own (`own`: path and manifest text) has the workspace's lints
/// but for `unsafe_code = "deny"`, so a lint added to the workspace reaches
/// it too.
fn lint_tables(workspace: &str, own: &[(&str, String)]) -> Check {
    let mut problems = Vec::new();
    let rust = lint_table(workspace, "[workspace.lints.rust]");
    let clippy = lint_table(workspace, "[workspace.lints.clippy]");
    if rust.get("unsafe_code").map(String::as_str) != Some("\"forbid\"") {
        problems.push(
            "Cargo.toml: `unsafe_code` in [workspace.lints.rust] is not \"forbid\"".to_owned(),
        );
    }
    for (path, text) in own {
        let mut expected = rust.clone();
        expected.insert("unsafe_code".to_owned(), "\"deny\"".to_owned());
        for (section, expected) in [("[lints.rust]", &expected), ("[lints.clippy]", &clippy)] {
            let found = lint_table(text, section);
            if &found != expected {
                problems.push(format!(
                    "{path}: {section} is {found:?}, not the workspace's table{}: {expected:?}",
                    if section == "[lints.rust]" {
                        " with `unsafe_code = \"deny\"`"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    Check {
        name: "lint tables",
        summary: format!(
            "the workspace forbids unsafe code; {} crate(s) with their own lint table match it",
            own.len()
        ),
        problems,
        warnings: Vec::new(),
    }
}

/// The `key = value` lines of `section` in a manifest, comments left out
/// and values as written (`"deny"`, `{ level = "warn", priority = -1 }`).
fn lint_table(manifest: &str, section: &str) -> std::collections::BTreeMap<String, String> {
    let mut table = std::collections::BTreeMap::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == section;
        } else if inside
            && !line.starts_with('#')
            && let Some((key, value)) = line.split_once('=')
        {
            table.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    table
}

/// Test code that lives in a file of its own rather than a `#[cfg(test)]`
/// module.
fn is_test_file(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "tests") || path.ends_with("tests.rs")
}

/// No function of library code is longer than [`MAX_FN_LINES`], except the
/// listed ones, which may not grow.
fn function_length(files: &[SourceFile], allowed: &[(&str, &str, usize)]) -> Check {
    let mut problems = Vec::new();
    let mut seen_allowed = BTreeSet::new();
    let mut count = 0;
    for file in files {
        let path = file.path.to_string_lossy().replace('\\', "/");
        let lexed = Lexed::new(&file.text);
        for function in lexed.functions() {
            count += 1;
            if function.lines <= MAX_FN_LINES {
                continue;
            }
            let place = format!(
                "{}:{}: fn `{}` is {} lines",
                file.path.display(),
                function.line,
                function.name,
                function.lines
            );
            match allowed
                .iter()
                .find(|(file, name, _)| *file == path && *name == function.name)
            {
                Some(&(file, name, max)) => {
                    seen_allowed.insert((file, name));
                    if function.lines > max {
                        problems.push(format!(
                            "{place}, more than the {max} it is allowed in LONG_FN_ALLOWED in \
                             xtask/src/invariants.rs; split it instead of raising the number"
                        ));
                    }
                }
                None => problems.push(format!(
                    "{place}, over the limit of {MAX_FN_LINES}; split it into named steps"
                )),
            }
        }
    }
    for &(file, name, _) in allowed {
        if !seen_allowed.contains(&(file, name)) {
            problems.push(format!(
                "LONG_FN_ALLOWED in xtask/src/invariants.rs lists fn `{name}` of {file}, which \
                 is no longer over {MAX_FN_LINES} lines (or is gone, or moved); remove the entry"
            ));
        }
    }
    Check {
        name: "function length",
        summary: format!(
            "{count} functions of crates/*/src checked for at most {MAX_FN_LINES} lines ({} \
             allowed over it, none may grow)",
            allowed.len()
        ),
        problems,
        warnings: Vec::new(),
    }
}

/// The engine (`crates/jit-core/src/discover.rs` and `discover/`) spells no
/// convention's file or folder name in its code.
fn engine_names_no_convention(files: &[SourceFile]) -> Check {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in files
        .iter()
        .filter(|f| f.is_under("crates/jit-core/src/discover"))
    {
        checked += 1;
        for literal in Lexed::new(&file.text).literals() {
            if let Some(name) = CONVENTION_NAMES.iter().find(|n| literal.text.contains(*n)) {
                problems.push(format!(
                    "{}:{}: the engine spells `{name}` (in \"{}\"); a convention's names belong \
                     to its `RuleSource` (crates/jit-core/src/rule/source/), ask the source",
                    file.path.display(),
                    literal.line,
                    literal.text
                ));
            }
        }
    }
    Check {
        name: "engine names no convention",
        summary: format!(
            "{checked} files of jit-core's discover/ checked for the {} convention names",
            CONVENTION_NAMES.len()
        ),
        problems,
        warnings: Vec::new(),
    }
}

/// jit-git's library code starts no process (`git` least of all): it reads
/// the repository through gix.
fn git_never_spawned(files: &[SourceFile]) -> Check {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in files.iter().filter(|f| f.is_under("crates/jit-git/src")) {
        checked += 1;
        let lexed = Lexed::new(&file.text);
        for needle in ["Command", "std::process"] {
            for at in lexed.code_matches(needle) {
                problems.push(format!(
                    "{}:{}: `{needle}` in jit-git's library code; it never spawns `git` (read \
                     the repository through gix; tests may run the CLI)",
                    file.path.display(),
                    lexed.line_of(at)
                ));
            }
        }
    }
    Check {
        name: "jit-git spawns no git",
        summary: format!("{checked} files of jit-git checked for process spawning"),
        problems,
        warnings: Vec::new(),
    }
}

/// The invariants the manifests decide: jit-base's dependencies are the
/// listed few, and nothing turns serde_json's `preserve_order` on.
fn manifest_checks(root: &Path) -> anyhow::Result<Vec<Check>> {
    let manifest = root.join("Cargo.toml");
    let metadata = MetadataCommand::new()
        .manifest_path(&manifest)
        .exec()
        .context("running `cargo metadata`")?;
    let base: Vec<String> = metadata
        .workspace_packages()
        .iter()
        .filter(|p| p.name.as_str() == "jit-base")
        .flat_map(|p| &p.dependencies)
        .filter(|d| d.kind == DependencyKind::Normal)
        .map(|d| d.name.clone())
        .collect();
    Ok(vec![
        base_dependencies(&base),
        serde_json_order(&serde_json_features(&manifest)?),
    ])
}

/// The features serde_json is built with in the workspace's code and its
/// tests, from `cargo tree` over normal and dev edges. `cargo metadata`
/// cannot tell: its resolve also unifies build scripts' dependencies,
/// which cargo builds apart (tree-sitter's build script turns
/// `preserve_order` on in its own copy, which prints no JSON of ours).
fn serde_json_features(manifest: &Path) -> anyhow::Result<Vec<String>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["tree", "--workspace", "-e", "normal,dev,features"])
        .args(["-i", "serde_json", "--prefix", "none", "--manifest-path"])
        .arg(manifest)
        .output()
        .context("running `cargo tree`")?;
    anyhow::ensure!(
        output.status.success(),
        "`cargo tree -i serde_json` failed: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(features_of(
        "serde_json",
        &String::from_utf8_lossy(&output.stdout),
    ))
}

/// The features of `package` named in `cargo tree -e features` output
/// (lines `package feature "name"`), sorted and deduplicated.
fn features_of(package: &str, tree: &str) -> Vec<String> {
    let prefix = format!("{package} feature \"");
    let features: BTreeSet<String> = tree
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect();
    features.into_iter().collect()
}

/// jit-base depends on [`BASE_DEPENDENCIES`] at most: no workspace crate,
/// no YAML, globbing, imports, git or shell parser.
fn base_dependencies(deps: &[String]) -> Check {
    let problems = deps
        .iter()
        .filter(|d| !BASE_DEPENDENCIES.contains(&d.as_str()))
        .map(|d| {
            format!(
                "jit-base depends on `{d}`, beyond {}; jit-base is the small base every plug-in \
                 compiles, so put what needs `{d}` in jit-core or a plug-in",
                BASE_DEPENDENCIES.join(", ")
            )
        })
        .collect();
    Check {
        name: "jit-base dependencies",
        summary: format!(
            "{} dependencies of jit-base checked against the {} allowed",
            deps.len(),
            BASE_DEPENDENCIES.len()
        ),
        problems,
        warnings: Vec::new(),
    }
}

/// serde_json's `preserve_order` stays off in the whole build.
fn serde_json_order(features: &[String]) -> Check {
    let problems = features
        .iter()
        .filter(|f| *f == "preserve_order")
        .map(|_| {
            "serde_json is built with `preserve_order`, which reorders the keys of every \
             `serde_json::Map` in the build (`jit bash --json` among them); find the crate that \
             turns it on with `cargo tree -e features -i serde_json` and turn it off"
                .to_owned()
        })
        .collect();
    Check {
        name: "serde_json key order",
        summary: "serde_json's `preserve_order` feature is off".to_owned(),
        problems,
        warnings: Vec::new(),
    }
}

/// A function found in the code: its name, the line of its `fn`, and its
/// length from there to its closing brace.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// A string literal found in the code, with the line it starts on.
#[derive(Debug, PartialEq, Eq)]
struct Literal {
    text: String,
    line: usize,
}

/// A Rust source read just enough for the checks: the code with every
/// comment and every literal's contents blanked (newlines kept, so offsets
/// and lines stay those of the file), the string literals, and the spans
/// of `#[cfg(test)]` items, which the checks skip.
struct Lexed {
    code: Vec<u8>,
    literals: Vec<(usize, String)>,
    test_spans: Vec<Range<usize>>,
}

impl Lexed {
    fn new(text: &str) -> Self {
        let (code, literals) = blank(text.as_bytes());
        let mut lexed = Lexed {
            code,
            literals,
            test_spans: Vec::new(),
        };
        lexed.test_spans = lexed.find_test_spans();
        lexed
    }

    /// The 1-based line of byte offset `at`.
    fn line_of(&self, at: usize) -> usize {
        1 + self.code[..at.min(self.code.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn in_test(&self, at: usize) -> bool {
        self.test_spans.iter().any(|span| span.contains(&at))
    }

    /// Where `needle` occurs in the code as a whole word, outside test items.
    fn code_matches(&self, needle: &str) -> Vec<usize> {
        let mut matches = self.all_code_matches(needle);
        matches.retain(|&at| !self.in_test(at));
        matches
    }

    /// Where `needle` occurs in the code as a whole word, test items
    /// included (comments and string literals are not code).
    fn all_code_matches(&self, needle: &str) -> Vec<usize> {
        let needle = needle.as_bytes();
        (0..self.code.len())
            .filter(|&at| self.code[at..].starts_with(needle))
            .filter(|&at| at == 0 || !is_ident(self.code[at - 1]))
            .filter(|&at| {
                self.code
                    .get(at + needle.len())
                    .is_none_or(|&b| !is_ident(b))
            })
            .collect()
    }

    /// The string literals outside test items.
    fn literals(&self) -> Vec<Literal> {
        self.literals
            .iter()
            .filter(|(at, _)| !self.in_test(*at))
            .map(|(at, text)| Literal {
                text: text.clone(),
                line: self.line_of(*at),
            })
            .collect()
    }

    /// The byte spans of items under `#[cfg(test)]`: from the attribute to
    /// the end of the item's block, or to its `;`.
    fn find_test_spans(&self) -> Vec<Range<usize>> {
        let attribute = b"#[cfg(test)]";
        let mut spans = Vec::new();
        let mut from = 0;
        while let Some(start) = find(&self.code, attribute, from) {
            let after = start + attribute.len();
            let end = match self.item_end(after) {
                Some(end) => end,
                None => self.code.len(),
            };
            spans.push(start..end);
            from = end.max(after);
        }
        spans
    }

    /// The end (exclusive) of the item or statement that starts at or after
    /// `from`: past its matching `}`, or past its `;`.
    fn item_end(&self, from: usize) -> Option<usize> {
        let open = self.body_start(from)?;
        if self.code[open] == b';' {
            return Some(open + 1);
        }
        self.matching_brace(open).map(|close| close + 1)
    }

    /// The first `{` or `;` at or after `from` outside parentheses and
    /// brackets: where a signature ends.
    fn body_start(&self, from: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (at, &b) in self.code.iter().enumerate().skip(from) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                b'{' | b';' if depth == 0 => return Some(at),
                _ => {}
            }
        }
        None
    }

    /// The `}` that closes the `{` at `open`.
    fn matching_brace(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (at, &b) in self.code.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Every function with a body outside test items, nested ones included.
    fn functions(&self) -> Vec<Function> {
        let mut out = Vec::new();
        for at in self.code_matches("fn") {
            let mut name_at = at + 2;
            while self.code.get(name_at).is_some_and(u8::is_ascii_whitespace) {
                name_at += 1;
            }
            let name_end = (name_at..self.code.len())
                .find(|&i| !is_ident(self.code[i]))
                .unwrap_or(self.code.len());
            if name_end == name_at || name_at == at + 2 {
                // `fn(u8) -> u8`, a function pointer type, not an item.
                continue;
            }
            let Some(open) = self.body_start(name_end) else {
                continue;
            };
            if self.code[open] == b';' {
                continue;
            }
            let Some(close) = self.matching_brace(open) else {
                continue;
            };
            let line = self.line_of(at);
            out.push(Function {
                name: String::from_utf8_lossy(&self.code[name_at..name_end]).into_owned(),
                line,
                lines: self.line_of(close) - line + 1,
            });
        }
        out
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    (from..haystack.len()).find(|&at| haystack[at..].starts_with(needle))
}

/// `src` with comments and the contents of string and char literals
/// replaced by spaces (newlines kept), and the string literals with the
/// offsets they start at.
fn blank(src: &[u8]) -> (Vec<u8>, Vec<(usize, String)>) {
    let mut code = src.to_vec();
    let mut literals = Vec::new();
    let mut at = 0;
    while at < src.len() {
        let end = match src[at] {
            b'/' if src.get(at + 1) == Some(&b'/') => line_end(src, at),
            b'/' if src.get(at + 1) == Some(&b'*') => block_comment_end(src, at),
            b'"' => {
                let end = string_end(src, at + 1);
                literals.push((at, lossy(&src[at + 1..end.saturating_sub(1).max(at + 1)])));
                end
            }
            b'r' => match raw_string_at(src, at) {
                Some((open, hashes)) => {
                    let end = raw_string_end(src, open + 1, hashes);
                    let inner_end = end.saturating_sub(1 + hashes).max(open + 1);
                    literals.push((at, lossy(&src[open + 1..inner_end])));
                    end
                }
                None => at + 1,
            },
            b'\'' => char_end(src, at).unwrap_or(at + 1),
            _ => at + 1,
        };
        let is_token = end > at + 1 || matches!(src[at], b'"' | b'\'');
        if is_token {
            for b in &mut code[at..end.min(src.len())] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        at = end.max(at + 1);
    }
    (code, literals)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn line_end(src: &[u8], from: usize) -> usize {
    (from..src.len())
        .find(|&i| src[i] == b'\n')
        .unwrap_or(src.len())
}

/// Past the `*/` that closes the (nestable) block comment at `from`.
fn block_comment_end(src: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    let mut at = from;
    while at + 1 < src.len() {
        match (src[at], src[at + 1]) {
            (b'/', b'*') => {
                depth += 1;
                at += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                at += 2;
                if depth == 0 {
                    return at;
                }
            }
            _ => at += 1,
        }
    }
    src.len()
}

/// Past the `"` that closes a string whose contents start at `from`.
fn string_end(src: &[u8], from: usize) -> usize {
    let mut at = from;
    while at < src.len() {
        match src[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    src.len()
}

/// For `r"`, `r#"`, `br"` ... starting at the `r` at `at` (not inside an
/// identifier): the offset of the opening `"` and the number of `#`.
fn raw_string_at(src: &[u8], at: usize) -> Option<(usize, usize)> {
    let before = at.checked_sub(1).map(|i| src[i]);
    let prefix_ok = match before {
        None => true,
        Some(b'b' | b'c') => at < 2 || !is_ident(src[at - 2]),
        Some(b) => !is_ident(b),
    };
    if !prefix_ok {
        return None;
    }
    let hashes = src[at + 1..].iter().take_while(|&&b| b == b'#').count();
    (src.get(at + 1 + hashes) == Some(&b'"')).then_some((at + 1 + hashes, hashes))
}

/// Past the `"` and `hashes` `#` that close a raw string whose contents
/// start at `from`.
fn raw_string_end(src: &[u8], from: usize, hashes: usize) -> usize {
    (from..src.len())
        .find(|&i| {
            src[i] == b'"'
                && src.len() >= i + 1 + hashes
                && src[i + 1..i + 1 + hashes].iter().all(|&b| b == b'#')
        })
        .map_or(src.len(), |i| i + 1 + hashes)
}

/// Past the closing `'` of a char literal at `at`, or `None` for a
/// lifetime or a label.
fn char_end(src: &[u8], at: usize) -> Option<usize> {
    match src.get(at + 1)? {
        b'\\' => (at + 3..src.len())
            .find(|&i| src[i] == b'\'')
            .map(|i| i + 1),
        &first => {
            let width = match first {
                0xf0.. => 4,
                0xe0.. => 3,
                0xc0.. => 2,
                _ => 1,
            };
            (src.get(at + 1 + width) == Some(&b'\'')).then_some(at + 2 + width)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: PathBuf::from(path),
            text: text.to_owned(),
        }
    }

    /// A function of `body_lines` lines between its `fn` line and its `}`.
    fn function(name: &str, body_lines: usize) -> String {
        format!(
            "fn {name}() {{\n{}}}\n",
            "    let _ = 1;\n".repeat(body_lines)
        )
    }

    #[track_caller]
    fn check_functions(text: &str, expected: &[(&str, usize, usize)]) {
        let found: Vec<(String, usize, usize)> = Lexed::new(text)
            .functions()
            .into_iter()
            .map(|f| (f.name, f.line, f.lines))
            .collect();
        let expected: Vec<(String, usize, usize)> = expected
            .iter()
            .map(|&(n, line, lines)| (n.to_owned(), line, lines))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn functions_are_measured_from_the_fn_line_to_the_closing_brace() {
        check_functions("fn a() {}\n", &[("a", 1, 1)]);
        check_functions(
            "/// Doc.\n#[inline]\npub(crate) fn b<T: Into<u8>>(x: [u8; 2]) -> u8\nwhere T: Copy\n{\n    x[0]\n}\n",
            &[("b", 3, 5)],
        );
        // Braces in strings, chars, raw strings and comments do not count.
        check_functions(
            "fn c() {\n    let _ = \"}\";\n    let _ = '}';\n    let _ = r#\"}\"#;\n    // }\n    /* } /* } */ */\n    let _ = '\\'';\n}\n",
            &[("c", 1, 8)],
        );
        // A lifetime is not a char literal; a function pointer is not an item.
        check_functions(
            "fn d<'a>(f: fn(u8) -> u8, s: &'a str) -> &'a str {\n    s\n}\n",
            &[("d", 1, 3)],
        );
        // A trait method without a body is not measured; nested ones are.
        check_functions(
            "trait T { fn e(&self); }\nfn f() {\n    fn g() {}\n}\n",
            &[("f", 2, 3), ("g", 3, 1)],
        );
        // Test modules are skipped.
        check_functions(
            "fn h() {}\n#[cfg(test)]\nmod tests {\n    fn long() {\n    }\n}\n",
            &[("h", 1, 1)],
        );
    }

    #[test]
    fn a_long_function_fails_unless_allowed_and_the_allowance_cannot_grow_or_go_stale() {
        let text = format!("{}{}", function("short", 78), function("long", 79));
        let files = [file("crates/jit-x/src/lib.rs", &text)];

        let checked = function_length(&files, &[]);
        assert_eq!(
            checked.problems,
            [
                "crates/jit-x/src/lib.rs:81: fn `long` is 81 lines, over the limit of 80; split it into named steps"
            ]
        );

        let lib = "crates/jit-x/src/lib.rs";
        assert!(
            function_length(&files, &[(lib, "long", 81)])
                .problems
                .is_empty()
        );

        let grown = function_length(&files, &[(lib, "long", 80)]);
        assert_eq!(grown.problems.len(), 1);
        assert!(
            grown.problems[0].contains("more than the 80 it is allowed"),
            "{grown:?}"
        );

        let stale = function_length(
            &files,
            &[
                (lib, "long", 81),
                (lib, "short", 100),
                ("crates/jit-x/src/old.rs", "long", 81),
            ],
        );
        assert_eq!(stale.problems.len(), 2, "{stale:?}");
        assert!(
            stale.problems[0]
                .contains("fn `short` of crates/jit-x/src/lib.rs, which is no longer over")
        );
        assert!(stale.problems[1].contains("fn `long` of crates/jit-x/src/old.rs"));
    }

    #[test]
    fn the_engine_spelling_a_convention_name_fails_but_comments_tests_and_other_folders_do_not() {
        let bad = "//! The engine.\n/// Reads `CLAUDE.md`.\nfn f() -> &'static str {\n    // .claude\n    \"src/.claude/rules\"\n}\n#[cfg(test)]\nmod tests {\n    const X: &str = \"AGENTS.md\";\n}\n";
        let files = [
            file("crates/jit-core/src/discover/scan.rs", bad),
            file(
                "crates/jit-core/src/discover.rs",
                "const A: &str = r\"GEMINI.md\";\n",
            ),
            file(
                "crates/jit-core/src/discovery_notes.rs",
                "const A: &str = \"CLAUDE.md\";\n",
            ),
            file(
                "crates/jit-core/src/rule/source/claude.rs",
                "const A: &str = \"CLAUDE.md\";\n",
            ),
        ];
        let checked = engine_names_no_convention(&files);
        assert_eq!(checked.problems.len(), 2, "{checked:?}");
        assert!(checked.problems[0].starts_with(
            "crates/jit-core/src/discover/scan.rs:5: the engine spells `.claude` (in \"src/.claude/rules\")"
        ));
        assert!(
            checked.problems[1]
                .starts_with("crates/jit-core/src/discover.rs:1: the engine spells `GEMINI.md`")
        );
    }

    #[test]
    fn jit_git_starting_a_process_fails_outside_tests() {
        let files = [
            file(
                "crates/jit-git/src/lib.rs",
                "use std::process::Command;\nfn f() {\n    let _ = \"Command\";\n}\n#[cfg(test)]\nmod tests {\n    fn g() { std::process::Command::new(\"git\"); }\n}\n",
            ),
            file("crates/jit-cli/src/lib.rs", "use std::process::Command;\n"),
        ];
        let checked = git_never_spawned(&files);
        assert_eq!(checked.problems.len(), 2, "{checked:?}");
        assert!(checked.problems[0].starts_with("crates/jit-git/src/lib.rs:1: `Command`"));
        assert!(checked.problems[1].starts_with("crates/jit-git/src/lib.rs:1: `std::process`"));
    }

    #[test]
    fn jit_base_depending_beyond_its_list_fails() {
        let ok: Vec<String> = BASE_DEPENDENCIES.iter().map(|d| d.to_string()).collect();
        assert!(base_dependencies(&ok).problems.is_empty());
        let heavy = [ok, vec!["serde-saphyr".to_owned()]].concat();
        let checked = base_dependencies(&heavy);
        assert_eq!(checked.problems.len(), 1);
        assert!(checked.problems[0].starts_with("jit-base depends on `serde-saphyr`"));
    }

    #[test]
    fn serde_json_with_preserve_order_fails() {
        let tree = "serde_json feature \"default\"\njit-base v0.1.0 (/w/crates/jit-base)\n\
                    serde_json feature \"std\"\nserde_json feature \"std\" (*)\n";
        assert_eq!(features_of("serde_json", tree), ["default", "std"]);
        assert!(
            serde_json_order(&features_of("serde_json", tree))
                .problems
                .is_empty()
        );

        let tree = format!("{tree}serde_json feature \"preserve_order\" (*)\n");
        let features = features_of("serde_json", &tree);
        assert_eq!(features, ["default", "preserve_order", "std"]);
        assert_eq!(serde_json_order(&features).problems.len(), 1);
    }

    #[test]
    fn test_files_are_not_library_code() {
        assert!(is_test_file(Path::new("crates/jit-cli/src/cmd/tests/x.rs")));
        assert!(is_test_file(Path::new("crates/jit-bash/src/tests.rs")));
        assert!(!is_test_file(Path::new("crates/jit-bash/src/syntax.rs")));
    }

    #[test]
    fn unsafe_code_allowed_outside_the_named_files_fails_and_a_stale_name_too() {
        let allowed = ["crates/jit-cli/src/start.rs", "bench-tree/src/alloc.rs"];
        let entry = || file("crates/jit-cli/src/start.rs", "#![allow(unsafe_code)]\n");
        let alloc = || {
            file(
                "bench-tree/src/alloc.rs",
                "#![allow(\n    unsafe_code,\n)]\n",
            )
        };
        // Named in a comment or a string, the lint is allowed nowhere.
        let mention = file(
            "crates/jit-core/src/lib.rs",
            "// unsafe_code is forbidden\nconst S: &str = \"unsafe_code\";\n",
        );
        let ok = unsafe_allowed_in_few_files(&[entry(), alloc(), mention], &allowed);
        assert!(ok.problems.is_empty(), "{ok:?}");
        // A test module is code too.
        let test = file(
            "crates/jit-core/src/x.rs",
            "fn a() {}\n#[cfg(test)]\nmod tests {\n    #[allow(unsafe_code)]\n    fn b() {}\n}\n",
        );
        let checked = unsafe_allowed_in_few_files(&[entry(), alloc(), test], &allowed);
        assert_eq!(checked.problems.len(), 1, "{checked:?}");
        assert!(
            checked.problems[0].starts_with("crates/jit-core/src/x.rs:4: `unsafe_code` named"),
            "{checked:?}"
        );
        // A named file that allows nothing any more is stale.
        let checked = unsafe_allowed_in_few_files(&[entry()], &allowed);
        assert_eq!(checked.problems.len(), 1, "{checked:?}");
        assert!(checked.problems[0].starts_with("bench-tree/src/alloc.rs no longer allows"));
    }

    #[test]
    fn a_crates_own_lint_table_is_the_workspaces_but_for_unsafe_code() {
        let workspace = "[workspace]\nmembers = []\n\n[workspace.lints.rust]\n\
                         unsafe_code = \"forbid\"\nunused_qualifications = \"warn\"\n\n\
                         [workspace.lints.clippy]\n# Why.\nall = { level = \"warn\", priority = -1 }\n\
                         unwrap_used = \"deny\"\n\n[profile.release]\nlto = \"fat\"\n";
        let own = |rust: &str, clippy: &str| {
            format!(
                "[package]\nname = \"x\"\n\n# Why.\n[lints.rust]\n{rust}\n[lints.clippy]\n{clippy}\n[[bin]]\nname = \"x\"\n"
            )
        };
        let clippy = "all = { level = \"warn\", priority = -1 }\nunwrap_used = \"deny\"\n";
        let good = own(
            "unsafe_code = \"deny\"\nunused_qualifications = \"warn\"\n",
            clippy,
        );
        let checked = lint_tables(workspace, &[("x/Cargo.toml", good.clone())]);
        assert!(checked.problems.is_empty(), "{checked:?}");
        // The workspace itself only denying unsafe code.
        let denying = workspace.replace("\"forbid\"", "\"deny\"");
        let checked = lint_tables(&denying, &[("x/Cargo.toml", good)]);
        assert_eq!(checked.problems.len(), 1, "{checked:?}");
        assert!(checked.problems[0].starts_with("Cargo.toml: `unsafe_code`"));
        // A lint the crate lacks, a lint level that differs.
        let lacking = own("unsafe_code = \"deny\"\n", clippy);
        let allowing = own(
            "unsafe_code = \"allow\"\nunused_qualifications = \"warn\"\n",
            "all = { level = \"warn\", priority = -1 }\nunwrap_used = \"warn\"\n",
        );
        let checked = lint_tables(
            workspace,
            &[("a/Cargo.toml", lacking), ("b/Cargo.toml", allowing)],
        );
        let found: Vec<&str> = checked
            .problems
            .iter()
            .map(|p| p.split(" is ").next().unwrap())
            .collect();
        assert_eq!(
            found,
            [
                "a/Cargo.toml: [lints.rust]",
                "b/Cargo.toml: [lints.rust]",
                "b/Cargo.toml: [lints.clippy]"
            ]
        );
    }

    #[test]
    fn the_code_walk_skips_hidden_and_target_folders() {
        let dir = tempfile::tempdir().unwrap();
        for path in [
            "src/a.rs",
            "src/b.txt",
            ".hidden/c.rs",
            "target/d.rs",
            "fuzz/target/e.rs",
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let mut found = Vec::new();
        walk(dir.path(), dir.path(), &mut found).unwrap();
        assert_eq!(found, [PathBuf::from("src/a.rs")]);
    }
}
