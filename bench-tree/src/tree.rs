//! The generated monorepo: its [`Spec`], the [`Tree`] it yields, and [`generate`], which writes it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rng::SplitMix64;

/// The deepest directory level of a generated tree (the root is level 0).
pub const DEPTH: usize = 8;

/// The benchmark chain: the directories from the root down to the one that
/// holds [`Tree::deep_file`], one name per level.
pub const CHAIN: [&str; DEPTH] = [
    "services", "billing", "src", "features", "invoices", "ui", "forms", "inputs",
];

/// The scoped rules of the root `.claude/rules` folder: file name and its
/// `paths:` pattern. The first two match [`Tree::deep_file`]; the other ten
/// do not.
pub const ROOT_RULES: [(&str, &str); 12] = [
    ("billing.md", "services/billing/**"),
    ("react.md", "**/*.tsx"),
    ("auth.md", "services/auth/**"),
    ("css.md", "**/*.css"),
    ("docs.md", "docs/**"),
    ("go.md", "**/*.go"),
    ("migrations.md", "**/migrations/**"),
    ("python.md", "**/*.py"),
    ("rust.md", "**/*.rs"),
    ("scripts.md", "scripts/**"),
    ("sql.md", "**/*.sql"),
    ("tests.md", "**/test/**"),
];

/// The scoped rules of each nested `.claude/rules` folder: the first one
/// matches [`Tree::deep_file`] when its folder is on the chain; the second
/// matches nothing in the tree.
const NESTED_RULES: [(&str, &str); 2] = [("forms.md", "**/ui/forms/**"), ("sql.md", "**/*.sql")];

/// The chain level (1-based) holding the nested `.claude/rules` folder
/// that is on the chain.
const NESTED_LEVEL: usize = 3;
/// Chain levels with a `CLAUDE.md`.
const CLAUDE_LEVELS: [usize; 4] = [2, 4, 6, 8];
/// Chain levels with an `AGENTS.md` (a rule of the `agents` convention, not
/// of `claude`).
const AGENTS_LEVELS: [usize; 2] = [1, 5];
/// The files the root `CLAUDE.md` imports with `@`.
const IMPORTS: [&str; 4] = [
    "docs/architecture.md",
    "docs/style.md",
    "docs/testing.md",
    "docs/review.md",
];
/// Files at the root besides the rules.
const ROOT_FILES: [&str; 3] = ["package.json", "README.md", "tsconfig.json"];
/// The benchmark file and its sibling, at the bottom of the chain.
const DEEP_NAME: &str = "AmountField.tsx";
const SIBLING_NAME: &str = "CurrencyField.tsx";

/// Relative weights of directory levels 1 to [`DEPTH`]: most directories of
/// a monorepo sit three to five levels down, few at the top or the bottom.
const LEVEL_WEIGHTS: [usize; DEPTH] = [1, 4, 9, 12, 10, 7, 4, 2];
/// Directory name stems (a unique number follows each).
const DIR_WORDS: [&str; 24] = [
    "api",
    "app",
    "assets",
    "cli",
    "common",
    "components",
    "config",
    "core",
    "data",
    "domain",
    "handlers",
    "hooks",
    "internal",
    "lib",
    "models",
    "pages",
    "pkg",
    "routes",
    "schemas",
    "server",
    "shared",
    "store",
    "utils",
    "views",
];
/// File name stems (a unique number follows each).
const FILE_WORDS: [&str; 16] = [
    "index", "service", "client", "handler", "model", "util", "types", "store", "view", "route",
    "schema", "config", "helper", "widget", "parser", "cache",
];
/// File extensions, repeated to weight them as in a TypeScript-heavy
/// monorepo with some Rust, Python and Go.
const EXTENSIONS: [&str; 16] = [
    "ts", "ts", "ts", "ts", "tsx", "tsx", "tsx", "js", "json", "md", "css", "rs", "rs", "py", "go",
    "sql",
];
/// Distinct contents per extension: few distinct blobs keep a git commit of
/// the tree small.
const VARIANTS: usize = 16;

/// What to generate. [`Spec::monorepo_20k`] and [`Spec::monorepo_100k`] are
/// the benchmark trees; fields can be changed for smaller ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The PRNG seed: the same spec always gives the same tree.
    pub seed: u64,
    /// Ordinary files (sources, configs, docs), besides the rule files and
    /// the root `CLAUDE.md`'s imports. At least `dirs + 4`: every
    /// directory holds one, the root three, and the chain's bottom two.
    pub files: usize,
    /// Directories below the root, the chain and `docs` included, the
    /// `.claude` and `.claude/rules` folders not. At least [`DEPTH`]` + 1`.
    pub dirs: usize,
    /// `CLAUDE.md` and `AGENTS.md` files in all: the root's, the chain's
    /// (four `CLAUDE.md`, two `AGENTS.md`), and the rest spread over the
    /// other directories, one in three an `AGENTS.md`. At least 7.
    pub memory_files: usize,
    /// Whether to write scoped rules: the root `.claude/rules` folder
    /// ([`ROOT_RULES`]) and the nested ones. Without them the tree is the
    /// same, file for file, less its `.claude` folders.
    pub scoped_rules: bool,
    /// Nested `.claude/rules` folders (two rules each): the first on the
    /// chain, the others in other directories.
    pub nested_rule_dirs: usize,
    /// Whether to make the tree a git repository with everything committed
    /// (slow on large trees): `git init`, `git add -A`, one commit with a
    /// fixed author and date, no system or user git configuration.
    pub git: bool,
}

impl Spec {
    /// 20,000 files in 2,000 directories, 50 `CLAUDE.md`/`AGENTS.md`, a
    /// dozen scoped rules at the root and one nested rule folder; no git.
    pub fn monorepo_20k() -> Self {
        Spec {
            seed: 0x6a69_745f_6265_6e63,
            files: 20_000,
            dirs: 2_000,
            memory_files: 50,
            scoped_rules: true,
            nested_rule_dirs: 1,
            git: false,
        }
    }

    /// 100,000 files in 10,000 directories with the 20k tree's rule
    /// density: 250 `CLAUDE.md`/`AGENTS.md`, five nested rule folders (the
    /// root's dozen scoped rules stay a dozen); no git.
    pub fn monorepo_100k() -> Self {
        Spec {
            files: 100_000,
            dirs: 10_000,
            memory_files: 250,
            nested_rule_dirs: 5,
            ..Spec::monorepo_20k()
        }
    }

    /// The same spec, committed to git.
    pub fn with_git(self) -> Self {
        Spec { git: true, ..self }
    }

    /// The same tree with no scoped rule at all (no `.claude` folder).
    pub fn without_scoped_rules(self) -> Self {
        Spec {
            scoped_rules: false,
            ..self
        }
    }
}

/// A generated tree, and where its benchmark path is. Paths are
/// root-relative and `/`-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The root, canonical.
    pub root: PathBuf,
    /// A file [`DEPTH`] directories down ([`CHAIN`]) with eight Claude rules
    /// on its chain ([`Tree::chain_rules`]; five without scoped rules).
    pub deep_file: String,
    /// Another file in the deep file's directory.
    pub sibling_file: String,
    /// Every generated directory (not the root, not the `.claude`
    /// folders), each after its parent.
    pub dirs: Vec<String>,
    /// One ordinary file in each directory of [`Tree::dirs`], in the same
    /// order ([`Tree::deep_file`] for the deep directory).
    pub dir_files: Vec<String>,
    /// Ordinary files written ([`Spec::files`]).
    pub files: usize,
    /// Every `CLAUDE.md` and `AGENTS.md`, the root's first.
    pub memory_files: Vec<String>,
    /// Every file in a `.claude/rules` folder, the root's first.
    pub scoped_rules: Vec<String>,
    /// The files the root `CLAUDE.md` imports.
    pub imports: Vec<String>,
    /// The Claude rules a touch of [`Tree::deep_file`] loads, from the root
    /// down: every `CLAUDE.md` on the chain and every scoped rule on it
    /// whose pattern matches the file.
    pub chain_rules: Vec<String>,
    /// The `AGENTS.md` files on the deep file's chain, from the root down.
    pub chain_agents: Vec<String>,
}

/// Writes the tree `spec` describes at `root`, which must be missing or an
/// empty directory, and describes it.
///
/// Errors: `InvalidInput` when the spec's counts are below their minimums,
/// `AlreadyExists` when `root` holds anything, and any error writing the
/// tree or running `git`.
pub fn generate(root: &Path, spec: &Spec) -> io::Result<Tree> {
    check(spec)?;
    fs::create_dir_all(root)?;
    if fs::read_dir(root)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is not empty; give an empty or missing directory",
                root.display()
            ),
        ));
    }
    let mut rng = SplitMix64::new(spec.seed);
    let mut out = Writer {
        root,
        tree: Tree {
            root: root.to_path_buf(),
            deep_file: String::new(),
            sibling_file: String::new(),
            dirs: Vec::with_capacity(spec.dirs),
            dir_files: Vec::with_capacity(spec.dirs),
            files: 0,
            memory_files: Vec::new(),
            scoped_rules: Vec::new(),
            imports: Vec::new(),
            chain_rules: Vec::new(),
            chain_agents: Vec::new(),
        },
    };
    let levels = directories(&mut out, &mut rng, spec)?;
    ordinary_files(&mut out, &mut rng, spec)?;
    // Everything below draws from its own generator, so that the switch
    // for scoped rules changes nothing else in the tree.
    let mut placement = SplitMix64::new(spec.seed ^ 0x5275_6c65_5374_6174);
    let off_chain: Vec<usize> = (0..out.tree.dirs.len())
        .filter(|&i| levels[i] == 0)
        .collect();
    let mut off_chain = shuffled(off_chain, &mut placement);
    memory_files(&mut out, spec, &mut off_chain)?;
    if spec.scoped_rules {
        scoped_rules(&mut out, spec, &mut off_chain)?;
    }
    out.tree.chain_rules.sort_by_key(|rule| chain_order(rule));
    if spec.git {
        commit(root)?;
    }
    let mut tree = out.tree;
    tree.root = fs::canonicalize(root)?;
    Ok(tree)
}

fn check(spec: &Spec) -> io::Result<()> {
    let invalid = |what: String| Err(io::Error::new(io::ErrorKind::InvalidInput, what));
    if spec.dirs < DEPTH + 1 {
        return invalid(format!(
            "a tree needs at least {} directories (the chain and docs), not {}",
            DEPTH + 1,
            spec.dirs
        ));
    }
    let fixed_files = ROOT_FILES.len() + 1;
    if spec.files < spec.dirs + fixed_files {
        return invalid(format!(
            "{} directories need at least {} files (one each, three at the root, two at the \
             bottom of the chain), not {}",
            spec.dirs,
            spec.dirs + fixed_files,
            spec.files
        ));
    }
    let fixed_memory = 1 + CLAUDE_LEVELS.len() + AGENTS_LEVELS.len();
    if spec.memory_files < fixed_memory {
        return invalid(format!(
            "the root and the chain hold {fixed_memory} CLAUDE.md/AGENTS.md; {} is too few",
            spec.memory_files
        ));
    }
    let spread = spec.memory_files - fixed_memory + spec.nested_rule_dirs.saturating_sub(1);
    if spread > spec.dirs - DEPTH {
        return invalid(format!(
            "{} memory files and {} nested rule folders do not fit in {} directories off the chain",
            spec.memory_files,
            spec.nested_rule_dirs,
            spec.dirs - DEPTH
        ));
    }
    Ok(())
}

/// Writes files and records what it wrote.
struct Writer<'a> {
    root: &'a Path,
    tree: Tree,
}

impl Writer<'_> {
    fn write(&self, rel: &str, text: &str) -> io::Result<()> {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, text)
    }
}

/// Creates the chain, `docs`, and the rest of [`Spec::dirs`] at random
/// levels under random parents. Returns, per directory, its chain level (1
/// to [`DEPTH`]) or 0 off the chain.
fn directories(out: &mut Writer<'_>, rng: &mut SplitMix64, spec: &Spec) -> io::Result<Vec<usize>> {
    // `by_level[l]`: the indices in `dirs` of the directories at level
    // `l + 1`; the root (level 0) is `None` as a parent.
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); DEPTH];
    let mut chain_levels = Vec::with_capacity(spec.dirs);
    let mut path = String::new();
    for (i, name) in CHAIN.iter().enumerate() {
        if i > 0 {
            path.push('/');
        }
        path.push_str(name);
        by_level[i].push(out.tree.dirs.len());
        out.tree.dirs.push(path.clone());
        chain_levels.push(i + 1);
    }
    by_level[0].push(out.tree.dirs.len());
    out.tree.dirs.push("docs".to_owned());
    chain_levels.push(0);
    let total: usize = LEVEL_WEIGHTS.iter().sum();
    let mut serial = 0;
    while out.tree.dirs.len() < spec.dirs {
        let mut draw = rng.below(total);
        let mut level = 0;
        while draw >= LEVEL_WEIGHTS[level] {
            draw -= LEVEL_WEIGHTS[level];
            level += 1;
        }
        let name = format!("{}{serial}", rng.pick(&DIR_WORDS));
        serial += 1;
        let path = if level == 0 {
            name
        } else {
            let parent = *rng.pick(&by_level[level - 1]);
            format!("{}/{name}", out.tree.dirs[parent])
        };
        by_level[level].push(out.tree.dirs.len());
        out.tree.dirs.push(path);
        chain_levels.push(0);
    }
    for dir in &out.tree.dirs {
        fs::create_dir(out.root.join(dir))?;
    }
    Ok(chain_levels)
}

/// Writes [`Spec::files`] ordinary files: three at the root, the deep file
/// and its sibling, one in every other directory, and the rest in
/// directories drawn at random.
fn ordinary_files(out: &mut Writer<'_>, rng: &mut SplitMix64, spec: &Spec) -> io::Result<()> {
    for name in ROOT_FILES {
        out.write(name, &content(name, 0))?;
    }
    let deep_dir = CHAIN.join("/");
    out.tree.deep_file = format!("{deep_dir}/{DEEP_NAME}");
    out.tree.sibling_file = format!("{deep_dir}/{SIBLING_NAME}");
    for file in [&out.tree.deep_file, &out.tree.sibling_file] {
        out.write(file, &content(file, 1))?;
    }
    let mut written = ROOT_FILES.len() + 2;
    let mut serial = 0;
    let mut name = |rng: &mut SplitMix64| {
        let name = format!(
            "{}{serial}.{}",
            rng.pick(&FILE_WORDS),
            rng.pick(&EXTENSIONS)
        );
        serial += 1;
        name
    };
    for i in 0..out.tree.dirs.len() {
        let file = if out.tree.dirs[i] == deep_dir {
            out.tree.deep_file.clone()
        } else {
            let file = format!("{}/{}", out.tree.dirs[i], name(rng));
            out.write(&file, &content(&file, rng.below(VARIANTS)))?;
            written += 1;
            file
        };
        out.tree.dir_files.push(file);
    }
    while written < spec.files {
        let dir = rng.below(out.tree.dirs.len());
        let file = format!("{}/{}", out.tree.dirs[dir], name(rng));
        out.write(&file, &content(&file, rng.below(VARIANTS)))?;
        written += 1;
    }
    out.tree.files = written;
    Ok(())
}

/// A small file's text, one of [`VARIANTS`] per extension.
fn content(file: &str, variant: usize) -> String {
    let ext = file.rsplit_once('.').map_or("", |(_, ext)| ext);
    match ext {
        "ts" | "tsx" | "js" => format!(
            "// Generated module, variant {variant}.\nexport const value{variant} = {variant};\n"
        ),
        "rs" => {
            format!("//! Generated module, variant {variant}.\npub const VALUE: u32 = {variant};\n")
        }
        "py" => format!("\"\"\"Generated module, variant {variant}.\"\"\"\nVALUE = {variant}\n"),
        "go" => format!("// Package gen is generated, variant {variant}.\npackage gen\n"),
        "sql" => format!("-- Generated migration, variant {variant}.\nSELECT {variant};\n"),
        "css" => {
            format!("/* Generated styles, variant {variant}. */\n.v{variant} {{ margin: 0; }}\n")
        }
        "json" => format!("{{\"variant\": {variant}}}\n"),
        _ => format!("# Generated notes\n\nVariant {variant}.\n"),
    }
}

/// Writes the root `CLAUDE.md` and its imports, the chain's `CLAUDE.md` and
/// `AGENTS.md`, and the rest of [`Spec::memory_files`] in directories off
/// the chain (taken from the end of `off_chain`).
fn memory_files(out: &mut Writer<'_>, spec: &Spec, off_chain: &mut Vec<usize>) -> io::Result<()> {
    let mut root_text = String::from("# Project\n\nRead these before changing anything:\n\n");
    for import in IMPORTS {
        root_text.push_str(&format!("- @{import}\n"));
    }
    root_text.push_str("\n- Run the tests before every commit.\n- Keep modules small.\n");
    out.write("CLAUDE.md", &root_text)?;
    out.tree.memory_files.push("CLAUDE.md".to_owned());
    out.tree.chain_rules.push("CLAUDE.md".to_owned());
    for import in IMPORTS {
        let text = format!(
            "# {import}\n\n{}\n",
            "A sentence of project guidance. ".repeat(12)
        );
        out.write(import, &text)?;
        out.tree.imports.push(import.to_owned());
    }
    for level in 1..=DEPTH {
        let dir = CHAIN[..level].join("/");
        if CLAUDE_LEVELS.contains(&level) {
            let file = format!("{dir}/CLAUDE.md");
            out.write(&file, &memory_text(&dir))?;
            out.tree.memory_files.push(file.clone());
            out.tree.chain_rules.push(file);
        }
        if AGENTS_LEVELS.contains(&level) {
            let file = format!("{dir}/AGENTS.md");
            out.write(&file, &memory_text(&dir))?;
            out.tree.memory_files.push(file.clone());
            out.tree.chain_agents.push(file);
        }
    }
    let spread = spec.memory_files - out.tree.memory_files.len();
    for n in 0..spread {
        let Some(dir) = off_chain.pop() else {
            break;
        };
        let name = if n % 3 == 2 { "AGENTS.md" } else { "CLAUDE.md" };
        let dir = &out.tree.dirs[dir];
        let file = format!("{dir}/{name}");
        out.write(&file, &memory_text(dir))?;
        out.tree.memory_files.push(file);
    }
    Ok(())
}

fn memory_text(dir: &str) -> String {
    format!(
        "# {dir}\n\n- Code in {dir} follows the module's existing patterns.\n- Add a test with \
         every change here.\n- Ask before adding a dependency.\n"
    )
}

/// Writes the root `.claude/rules` folder and [`Spec::nested_rule_dirs`]
/// nested ones: the first at chain level [`NESTED_LEVEL`], the others in
/// directories off the chain (taken from the end of `off_chain`).
fn scoped_rules(out: &mut Writer<'_>, spec: &Spec, off_chain: &mut Vec<usize>) -> io::Result<()> {
    let deep = out.tree.deep_file.clone();
    let mut folders = vec![String::new()];
    if spec.nested_rule_dirs > 0 {
        folders.push(CHAIN[..NESTED_LEVEL].join("/"));
    }
    for _ in 1..spec.nested_rule_dirs {
        if let Some(dir) = off_chain.pop() {
            folders.push(out.tree.dirs[dir].clone());
        }
    }
    for (n, dir) in folders.iter().enumerate() {
        let rules: &[(&str, &str)] = if n == 0 { &ROOT_RULES } else { &NESTED_RULES };
        let on_chain = dir.is_empty() || deep.starts_with(&format!("{dir}/"));
        for (name, glob) in rules {
            let file = if dir.is_empty() {
                format!(".claude/rules/{name}")
            } else {
                format!("{dir}/.claude/rules/{name}")
            };
            let text = format!(
                "---\npaths: [\"{glob}\"]\n---\n# {name}\n\n- A scoped rule for `{glob}`.\n"
            );
            out.write(&file, &text)?;
            if on_chain && matches(glob, &deep) {
                out.tree.chain_rules.push(file.clone());
            }
            out.tree.scoped_rules.push(file);
        }
    }
    Ok(())
}

/// Whether `glob` matches the root-relative `path`, for the patterns this
/// generator writes: `**` (any number of segments), `*` within a segment
/// (as a prefix wildcard, `*.tsx`), and literal segments.
fn matches(glob: &str, path: &str) -> bool {
    let glob: Vec<&str> = glob.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    matches_segments(&glob, &path)
}

fn matches_segments(glob: &[&str], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| matches_segments(rest, &path[skip..])),
        Some((segment, rest)) => path.split_first().is_some_and(|(first, tail)| {
            let hit = match segment.strip_prefix('*') {
                Some(suffix) => first.ends_with(suffix),
                None => first == segment,
            };
            hit && matches_segments(rest, tail)
        }),
    }
}

/// Where a rule of the deep file's chain sits, for the root-first order:
/// the level of the directory it belongs to (a rule folder's rules belong
/// to the directory holding `.claude`), the directory's own `CLAUDE.md`
/// before its rule folder (as the engine judges them), then the name.
fn chain_order(rule: &str) -> (usize, bool, String) {
    let (owner, in_folder) = match rule.split_once(".claude/rules/") {
        Some((dir, _)) => (dir.trim_end_matches('/'), true),
        None => (rule.rsplit_once('/').map_or("", |(dir, _)| dir), false),
    };
    (
        owner.matches('/').count() + usize::from(!owner.is_empty()),
        in_folder,
        rule.to_owned(),
    )
}

/// A Fisher-Yates shuffle.
fn shuffled(mut items: Vec<usize>, rng: &mut SplitMix64) -> Vec<usize> {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
    items
}

/// Commits everything under `root` to a new git repository, with no system
/// or user configuration and a fixed author and date, then lets the index
/// settle.
fn commit(root: &Path) -> io::Result<()> {
    let home = tempfile::tempdir()?;
    let git = |args: &[&str]| -> io::Result<()> {
        let status = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env("GIT_AUTHOR_NAME", "Bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.com")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_NAME", "Bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.com")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "`git {}` in {} failed: {status}",
                args.join(" "),
                root.display()
            )))
        }
    };
    git(&["-c", "init.defaultBranch=main", "init", "-q"])?;
    git(&["add", "-A"])?;
    git(&["commit", "-qm", "Generated benchmark tree"])?;
    // A fresh commit leaves the index "racily clean" (files as new as the
    // index itself), which makes every status hash every file until the
    // index is written again. A repository in use has a settled index:
    // settle this one the same way, a second on.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    git(&["update-index", "-q", "--refresh"])
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        reason = "a test that cannot build its tree should fail loudly"
    )]

    use super::*;
    use std::collections::BTreeSet;

    /// Every file (path and bytes) and every directory under `root`,
    /// root-relative and sorted, `.git` left out.
    fn snapshot(root: &Path) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        let mut pending = vec![String::new()];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(root.join(&dir)).unwrap() {
                let entry = entry.unwrap();
                let name = entry.file_name().into_string().unwrap();
                if name == ".git" {
                    continue;
                }
                let rel = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if entry.file_type().unwrap().is_dir() {
                    dirs.push(rel.clone());
                    pending.push(rel);
                } else {
                    files.push((rel.clone(), fs::read(entry.path()).unwrap()));
                }
            }
        }
        files.sort();
        dirs.sort();
        (files, dirs)
    }

    fn small() -> Spec {
        Spec {
            files: 600,
            dirs: 120,
            memory_files: 15,
            nested_rule_dirs: 3,
            ..Spec::monorepo_20k()
        }
    }

    #[test]
    fn the_same_spec_gives_a_byte_identical_tree() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let spec = Spec::monorepo_20k();
        let first = generate(a.path(), &spec).unwrap();
        let second = generate(b.path(), &spec).unwrap();
        assert_eq!(snapshot(a.path()), snapshot(b.path()));
        // One 20,000-file tree is slow enough to generate: check its counts
        // on this one.
        check_counts_of(&spec, &first);
        assert_eq!(
            Tree {
                root: PathBuf::new(),
                ..first
            },
            Tree {
                root: PathBuf::new(),
                ..second
            }
        );
    }

    #[test]
    fn another_seed_gives_another_tree() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        generate(a.path(), &small()).unwrap();
        let other = Spec {
            seed: small().seed + 1,
            ..small()
        };
        generate(b.path(), &other).unwrap();
        assert_ne!(snapshot(a.path()).1, snapshot(b.path()).1);
    }

    /// Checks what is on disk under a tree generated from `spec` against
    /// the spec's counts.
    #[track_caller]
    fn check_counts(spec: &Spec) {
        let dir = tempfile::tempdir().unwrap();
        let tree = generate(dir.path(), spec).unwrap();
        check_counts_of(spec, &tree);
    }

    #[track_caller]
    fn check_counts_of(spec: &Spec, tree: &Tree) {
        let (files, dirs) = snapshot(&tree.root);
        let is_rule_folder = |d: &String| d.ends_with(".claude") || d.ends_with(".claude/rules");
        let plain_dirs: Vec<&String> = dirs.iter().filter(|d| !is_rule_folder(d)).collect();
        assert_eq!(plain_dirs.len(), spec.dirs);
        assert_eq!(
            plain_dirs.iter().map(|d| d.matches('/').count() + 1).max(),
            Some(DEPTH)
        );
        let name = |f: &str| f.rsplit('/').next().unwrap().to_owned();
        let memory: Vec<&String> = files
            .iter()
            .map(|(f, _)| f)
            .filter(|f| ["CLAUDE.md", "AGENTS.md"].contains(&name(f).as_str()))
            .collect();
        assert_eq!(memory.len(), spec.memory_files);
        let agents = memory.iter().filter(|f| f.ends_with("AGENTS.md")).count();
        assert!(agents >= 2 && agents < spec.memory_files / 2, "{agents}");
        let rules: Vec<&String> = files
            .iter()
            .map(|(f, _)| f)
            .filter(|f| f.contains(".claude/rules/"))
            .collect();
        let nested = if spec.scoped_rules {
            spec.nested_rule_dirs
        } else {
            0
        };
        let root_rules = if spec.scoped_rules {
            ROOT_RULES.len()
        } else {
            0
        };
        assert_eq!(rules.len(), root_rules + NESTED_RULES.len() * nested);
        let folders: BTreeSet<&str> = rules
            .iter()
            .map(|f| f.split_once(".claude/rules/").unwrap().0)
            .collect();
        assert_eq!(folders.len(), usize::from(spec.scoped_rules) + nested);
        let ordinary = files.len() - memory.len() - rules.len() - IMPORTS.len();
        assert_eq!(ordinary, spec.files);
        assert_eq!(tree.files, spec.files);
        assert_eq!(tree.dirs.len(), spec.dirs);
        assert_eq!(tree.dir_files.len(), spec.dirs);
        for (dir, file) in tree.dirs.iter().zip(&tree.dir_files) {
            assert_eq!(file.rsplit_once('/').unwrap().0, dir);
            assert!(tree.root.join(file).is_file(), "{file}");
        }
        assert_eq!(tree.memory_files.len(), spec.memory_files);
        assert_eq!(tree.scoped_rules.len(), rules.len());
        assert_eq!(tree.root.join(".git").exists(), spec.git);
    }

    #[test]
    fn a_small_tree_with_several_nested_rule_folders_has_the_counts_of_its_spec() {
        check_counts(&small());
        check_counts(&small().without_scoped_rules());
    }

    /// The rules on the deep file's chain, found by walking it on disk:
    /// every `CLAUDE.md` in a directory from the root down to the file's,
    /// and every rule of a `.claude/rules` folder in one of them whose
    /// pattern matches the file.
    fn rules_on_chain(root: &Path, deep: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let parts: Vec<&str> = deep.split('/').collect();
        for level in 0..parts.len() {
            let dir = parts[..level].join("/");
            let prefix = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            if root.join(&prefix).join("CLAUDE.md").is_file() {
                found.insert(format!("{prefix}CLAUDE.md"));
            }
            let Ok(entries) = fs::read_dir(root.join(&prefix).join(".claude/rules")) else {
                continue;
            };
            for entry in entries {
                let name = entry.unwrap().file_name().into_string().unwrap();
                let file = format!("{prefix}.claude/rules/{name}");
                let text = fs::read_to_string(root.join(&file)).unwrap();
                let glob = text
                    .split_once("paths: [\"")
                    .and_then(|(_, rest)| rest.split_once("\"]"))
                    .unwrap()
                    .0;
                if matches(glob, deep) {
                    found.insert(file);
                }
            }
        }
        found
    }

    #[test]
    fn the_deep_file_has_the_chain_rules_the_tree_names() {
        for spec in [small(), small().without_scoped_rules()] {
            let dir = tempfile::tempdir().unwrap();
            let tree = generate(dir.path(), &spec).unwrap();
            assert_eq!(tree.deep_file.matches('/').count(), DEPTH);
            let named: BTreeSet<String> = tree.chain_rules.iter().cloned().collect();
            assert_eq!(named.len(), tree.chain_rules.len());
            assert_eq!(rules_on_chain(&tree.root, &tree.deep_file), named);
            assert_eq!(named.len(), if spec.scoped_rules { 8 } else { 5 });
            // The chain's rules come root first.
            assert_eq!(tree.chain_rules[0], "CLAUDE.md");
            assert!(
                tree.chain_rules
                    .last()
                    .unwrap()
                    .starts_with(&CHAIN.join("/"))
            );
            for agents in &tree.chain_agents {
                assert!(
                    tree.deep_file
                        .starts_with(agents.trim_end_matches("AGENTS.md"))
                );
                assert!(tree.root.join(agents).is_file());
            }
            let sibling = tree.root.join(&tree.sibling_file);
            assert!(sibling.is_file());
            assert_eq!(sibling.parent(), tree.root.join(&tree.deep_file).parent());
        }
    }

    #[test]
    fn without_scoped_rules_the_tree_is_the_same_less_its_rule_folders() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        generate(a.path(), &small()).unwrap();
        generate(b.path(), &small().without_scoped_rules()).unwrap();
        let (mut files, mut dirs) = snapshot(a.path());
        files.retain(|(f, _)| !f.contains(".claude"));
        dirs.retain(|d| !d.contains(".claude"));
        assert_eq!((files, dirs), snapshot(b.path()));
    }

    #[test]
    fn the_glob_check_matches_as_the_patterns_mean() {
        let deep = "services/billing/src/features/invoices/ui/forms/inputs/AmountField.tsx";
        for (glob, hit) in [
            ("services/billing/**", true),
            ("**/*.tsx", true),
            ("**/ui/forms/**", true),
            ("services/auth/**", false),
            ("**/*.ts", false),
            ("**/test/**", false),
            ("docs/**", false),
        ] {
            assert_eq!(matches(glob, deep), hit, "{glob}");
        }
    }

    #[test]
    fn a_spec_below_its_minimums_and_a_full_directory_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for spec in [
            Spec { dirs: 5, ..small() },
            Spec {
                files: 100,
                ..small()
            },
            Spec {
                memory_files: 3,
                ..small()
            },
            Spec {
                memory_files: 500,
                ..small()
            },
        ] {
            let err = generate(&dir.path().join("a"), &spec).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{spec:?}");
        }
        fs::write(dir.path().join("x"), "x").unwrap();
        let err = generate(dir.path(), &small()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    }

    #[test]
    fn with_git_everything_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let tree = generate(dir.path(), &small().with_git()).unwrap();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(&tree.root)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(git(&["status", "--porcelain", "-uall"]), "");
        assert_eq!(git(&["rev-list", "--count", "HEAD"]).trim(), "1");
        let tracked = git(&["ls-files"]).lines().count();
        assert_eq!(tracked, snapshot(dir.path()).0.len());
    }
}
