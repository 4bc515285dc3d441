//! Which rule conventions a command uses: `--conventions LIST`, else the `conventions` of the root's `jit.toml`, else every convention whose files exist in the repository.
//!
//! `jit.toml` sits at the project root; every key is optional:
//!
//! ```toml
//! # The conventions to use, in this order (default: the ones whose files exist).
//! conventions = ["claude", "agents", "cursor"]
//!
//! [index]
//! # The byte bound of the startup rule index (default 2048).
//! max_bytes = 2048
//! # `false`: no rule index at startup, and no walk of the project for it
//! # (default true).
//! enabled = true
//!
//! [agents]
//! # Names checked after AGENTS.override.md and AGENTS.md in each directory.
//! fallback_names = ["TEAM_GUIDE.md"]
//! # The startup chain's byte budget (default 32768, Codex's).
//! budget_bytes = 32768
//!
//! [gemini]
//! # Replaces GEMINI.md, as Gemini CLI's `context.fileName` does.
//! names = ["GEMINI.md", "CONTEXT.md"]
//! ```
//!
//! Each convention (`claude`, `agents`, `gemini`, `cursor`, `copilot`,
//! `cline`) takes a table with `names`, `fallback_names`, `extra_names` and
//! `budget_bytes`; a convention ignores the keys it has no use for. An
//! unknown key or convention is an error naming the file, never ignored.
//! Every name is one file name, looked for in each directory: a name with
//! a `/` or `\`, `.` or `..`, an empty or absolute one, or one with a NUL
//! byte is an error naming the file, the table, the key and the value (a
//! repository's `jit.toml` must not name `../.aws/credentials`).

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

use anyhow::Context;
use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{CONVENTIONS, DEFAULT_INDEX_BYTES, RuleSource, SourceOptions};
use serde::Deserialize;

/// The configuration file's name, at the project root.
pub(crate) const CONFIG_FILE: &str = "jit.toml";

/// The largest `jit.toml` read: far above any real one.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The `--conventions` flag, shared by every command that finds rules.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ConventionsArg {
    /// The rule conventions to use, comma-separated, in order: claude,
    /// agents, gemini, cursor, copilot, cline. Overrides `conventions` in
    /// the root's jit.toml; without either, every convention whose files
    /// exist under the root is used.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub conventions: Option<Vec<String>>,
}

/// Where the list of conventions came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `--conventions`.
    Flag,
    /// `conventions` in `jit.toml`.
    Config,
    /// The conventions whose files exist in the repository.
    Detected,
}

/// The conventions a command runs with, and the options `jit.toml` set.
#[derive(Debug, Clone)]
pub(crate) struct Conventions {
    /// The sources, in load order.
    pub sources: Vec<Arc<dyn RuleSource>>,
    /// Where their list came from.
    pub origin: Origin,
    /// The byte bound of the startup rule index, or `None` for no index
    /// (`[index] enabled = false`, or `--no-index`).
    pub index_bytes: Option<usize>,
    /// The walk that detected the conventions, when they were detected:
    /// the startup rule index reuses it instead of walking again.
    pub walk: Option<Arc<jit_core::ProjectWalk>>,
    /// Where a walk of the project keeps its listings (see
    /// [`crate::walk_cache`]), for the index's walk when none was made.
    pub walk_cache: Option<jit_core::WalkCache>,
}

impl Conventions {
    /// `options` with this project's rule index bound, and the detection
    /// walk for the index to reuse; unchanged when the index is off.
    pub(crate) fn startup_options(
        &self,
        options: jit_core::StartupOptions,
    ) -> jit_core::StartupOptions {
        let Some(bytes) = self.index_bytes else {
            return options;
        };
        let options = options.with_index(bytes);
        match (&self.walk, &self.walk_cache) {
            (Some(walk), _) => options.with_walk(Arc::clone(walk)),
            (None, Some(cache)) => options.with_walk_cache(cache.clone()),
            (None, None) => options,
        }
    }

    /// Adds `own` (an agent's own conventions, which it loads itself and so
    /// must be known to be recognised) after the sources found in the
    /// repository, unless already there. Conventions named by the flag or
    /// `jit.toml` are kept exactly as named.
    pub(crate) fn with_own(mut self, own: Vec<Box<dyn RuleSource>>) -> Self {
        if self.origin == Origin::Detected {
            for source in own {
                if !self.sources.iter().any(|s| s.name() == source.name()) {
                    self.sources.push(Arc::from(source));
                }
            }
        }
        self
    }

    /// The same conventions with the startup rule index off (`--no-index`).
    pub(crate) fn without_index(mut self) -> Self {
        self.index_bytes = None;
        self
    }

    /// The names of the sources, in order.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.sources.iter().map(|s| s.name()).collect()
    }
}

/// `jit.toml` as written.
#[derive(Debug, Default)]
pub(crate) struct Config {
    conventions: Option<Vec<String>>,
    index: Option<IndexConfig>,
    /// Each convention's table, by the convention's name.
    pub(crate) sources: BTreeMap<String, SourceConfig>,
}

/// The file's top level: the known keys, and every other table (checked
/// to be a convention's, then read as one).
#[derive(Debug, Deserialize)]
struct RawConfig {
    conventions: Option<Vec<String>>,
    index: Option<IndexConfig>,
    #[serde(flatten)]
    rest: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexConfig {
    max_bytes: Option<usize>,
    enabled: Option<bool>,
}

impl IndexConfig {
    /// The index's byte bound, or `None` when it is off.
    fn bytes(&self) -> Option<usize> {
        match self.enabled {
            Some(false) => None,
            Some(true) | None => Some(self.max_bytes.unwrap_or(DEFAULT_INDEX_BYTES)),
        }
    }
}

/// One convention's table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceConfig {
    pub(crate) names: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) fallback_names: Vec<String>,
    #[serde(default)]
    pub(crate) extra_names: Vec<String>,
    budget_bytes: Option<u64>,
}

impl SourceConfig {
    fn options(&self) -> SourceOptions {
        let mut options = SourceOptions::default()
            .with_fallback_names(self.fallback_names.iter().cloned())
            .with_extra_names(self.extra_names.iter().cloned());
        if let Some(names) = &self.names {
            options = options.with_names(names.iter().cloned());
        }
        if let Some(bytes) = self.budget_bytes {
            options = options.with_budget_bytes(bytes);
        }
        options
    }
}

/// Reads `root/jit.toml` (absent: every default). A file that cannot be
/// read or parsed, an unknown key, an unknown convention or a name that
/// is not a file name is an error.
fn read_config(root: &Utf8Path) -> anyhow::Result<Option<(Utf8PathBuf, Config)>> {
    let path = root.join(CONFIG_FILE);
    let file = match jit_core::open_regular(path.as_std_path()) {
        Ok((file, _)) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(anyhow::anyhow!("cannot read {path}: {err}")),
    };
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {path}"))?;
    anyhow::ensure!(
        text.len() as u64 <= MAX_CONFIG_BYTES,
        "{path} is larger than {MAX_CONFIG_BYTES} bytes"
    );
    let config = parse_config(&path, &text)?;
    Ok(Some((path, config)))
}

/// `text`, the contents of the configuration file at `path` (named in
/// the errors), read as [`read_config`] says.
pub(crate) fn parse_config(path: &Utf8Path, text: &str) -> anyhow::Result<Config> {
    let raw: RawConfig = toml::from_str(text).map_err(|err| anyhow::anyhow!("{path}: {err}"))?;
    let mut sources = BTreeMap::new();
    for (name, value) in raw.rest {
        anyhow::ensure!(
            CONVENTIONS.contains(&name.as_str()),
            "{path}: unknown key `{name}`; the keys are `conventions`, `[index]` and one table per convention ({})",
            CONVENTIONS.join(", ")
        );
        let source: SourceConfig = value
            .try_into()
            .map_err(|err| anyhow::anyhow!("{path}: in [{name}]: {err}"))?;
        // Every table's names, whether its convention is used or not: a
        // path where a file name goes is refused, never looked for.
        source
            .options()
            .validate()
            .map_err(|err| anyhow::anyhow!("{path}: in [{name}]: {err}"))?;
        sources.insert(name, source);
    }
    Ok(Config {
        conventions: raw.conventions,
        index: raw.index,
        sources,
    })
}

/// The conventions for the project at `root`: `flag` when given, else
/// `jit.toml`'s `conventions`, else the ones whose files exist (Claude's
/// when none do). `jit.toml`'s per-convention options apply in every case.
pub(crate) fn resolve(root: &Utf8Path, flag: Option<&[String]>) -> anyhow::Result<Conventions> {
    resolve_with(root, flag, Fallback::Detect)
}

/// Like [`resolve`], with `known` (when not empty) standing for the
/// conventions found in the repository: a hook records them at a
/// context's start and need not walk the repository on every call.
pub(crate) fn resolve_known(
    root: &Utf8Path,
    flag: Option<&[String]>,
    known: &[String],
) -> anyhow::Result<Conventions> {
    let fallback = if known.is_empty() {
        Fallback::Detect
    } else {
        Fallback::Known(known)
    };
    resolve_with(root, flag, fallback)
}

/// Like [`resolve`], but with every shipped convention (with `jit.toml`'s
/// options) where `resolve` would look for the ones present: for a caller
/// that finds the present ones its own way (`jit lint` walks the whole
/// repository anyway). The origin is still [`Origin::Detected`] then.
pub(crate) fn resolve_or_all(
    root: &Utf8Path,
    flag: Option<&[String]>,
) -> anyhow::Result<Conventions> {
    resolve_with(root, flag, Fallback::All)
}

/// What stands for the repository's conventions when neither the flag nor
/// `jit.toml` names them.
#[derive(Debug, Clone, Copy)]
enum Fallback<'a> {
    /// Look for the ones whose files exist.
    Detect,
    /// Look for the ones whose files exist at the root or on the way to
    /// these root-relative directories.
    DetectAlong(&'a [Utf8PathBuf]),
    /// The ones found earlier.
    Known(&'a [String]),
    /// Every shipped convention.
    All,
}

fn resolve_with(
    root: &Utf8Path,
    flag: Option<&[String]>,
    fallback: Fallback<'_>,
) -> anyhow::Result<Conventions> {
    let config = read_config(root)?;
    let (path, config) = match config {
        Some((path, config)) => (Some(path), config),
        None => (None, Config::default()),
    };
    let index_bytes = config
        .index
        .as_ref()
        .map_or(Some(DEFAULT_INDEX_BYTES), IndexConfig::bytes);
    let walk_cache = crate::walk_cache::for_root(root);
    let build = |names: &[String]| -> anyhow::Result<Vec<Arc<dyn RuleSource>>> {
        let mut sources: Vec<Arc<dyn RuleSource>> = Vec::new();
        for name in names {
            let name = name.trim();
            anyhow::ensure!(!name.is_empty(), "an empty convention name in the list");
            if sources.iter().any(|s| s.name() == name) {
                continue;
            }
            let options = config
                .sources
                .get(name)
                .map(SourceConfig::options)
                .unwrap_or_default();
            sources.push(jit_core::source_by_name(name, &options)?);
        }
        anyhow::ensure!(!sources.is_empty(), "the list of conventions is empty");
        Ok(sources)
    };
    if let Some(names) = flag {
        return Ok(Conventions {
            sources: build(names).context("--conventions")?,
            origin: Origin::Flag,
            index_bytes,
            walk: None,
            walk_cache,
        });
    }
    if let Some(names) = &config.conventions {
        let sources = build(names).with_context(|| {
            format!(
                "`conventions` in {}",
                path.as_ref().map_or(CONFIG_FILE, |p| p.as_str())
            )
        })?;
        return Ok(Conventions {
            sources,
            origin: Origin::Config,
            index_bytes,
            walk: None,
            walk_cache,
        });
    }
    let (detected, walk) = fallback_names(root, fallback, walk_cache.as_ref());
    Ok(Conventions {
        sources: build(&detected)?,
        origin: Origin::Detected,
        index_bytes,
        walk,
        walk_cache,
    })
}

/// The conventions a fallback names, and the walk that found them when
/// it looked.
fn fallback_names(
    root: &Utf8Path,
    fallback: Fallback<'_>,
    cache: Option<&jit_core::WalkCache>,
) -> (Vec<String>, Option<Arc<jit_core::ProjectWalk>>) {
    match fallback {
        Fallback::Detect => {
            let walk = Arc::new(project_walk(root, cache));
            let names = walk
                .conventions()
                .iter()
                .map(|s| s.name().to_owned())
                .collect();
            (names, Some(walk))
        }
        Fallback::DetectAlong(dirs) => (
            jit_core::detect_conventions_along(root, dirs)
                .iter()
                .map(|s| s.name().to_owned())
                .collect(),
            None,
        ),
        Fallback::Known(known) => (known.to_vec(), None),
        Fallback::All => (
            CONVENTIONS.iter().map(|&name| name.to_owned()).collect(),
            None,
        ),
    }
}

/// The conventions found in the repository, with default options: what
/// a caller that must not fail falls back on when `jit.toml` is broken.
pub(crate) fn detected(root: &Utf8Path) -> Conventions {
    let walk_cache = crate::walk_cache::for_root(root);
    let walk = Arc::new(project_walk(root, walk_cache.as_ref()));
    Conventions {
        sources: walk.conventions(),
        origin: Origin::Detected,
        index_bytes: Some(DEFAULT_INDEX_BYTES),
        walk: Some(walk),
        walk_cache,
    }
}

/// A walk of the project at `root`, through `cache` when there is one.
fn project_walk(root: &Utf8Path, cache: Option<&jit_core::WalkCache>) -> jit_core::ProjectWalk {
    match cache {
        Some(cache) => jit_core::ProjectWalk::with_cache(root, cache),
        None => jit_core::ProjectWalk::new(root),
    }
}

/// The engine for the project at `root` with the conventions `arg`,
/// `jit.toml` or the repository choose.
pub(crate) fn engine(
    root: &std::path::Path,
    arg: &ConventionsArg,
) -> anyhow::Result<(jit_core::Engine, Conventions)> {
    let engine = jit_core::Engine::new(root)?;
    let conventions = resolve(engine.root(), arg.conventions.as_deref())?;
    let engine = engine.with_sources(conventions.sources.iter().cloned());
    Ok((engine, conventions))
}

/// `engine` with its conventions, for a run that only discovers paths in
/// `dirs` (root-relative): detection looks at the root and the way to each
/// directory instead of walking the project, which decides the same for
/// those paths.
pub(crate) fn engine_along(
    engine: jit_core::Engine,
    arg: &ConventionsArg,
    dirs: &[Utf8PathBuf],
) -> anyhow::Result<(jit_core::Engine, Conventions)> {
    let conventions = resolve_with(
        engine.root(),
        arg.conventions.as_deref(),
        Fallback::DetectAlong(dirs),
    )?;
    let engine = engine.with_sources(conventions.sources.iter().cloned());
    Ok((engine, conventions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_with(config: Option<&str>, files: &[&str]) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        if let Some(config) = config {
            std::fs::write(root.join(CONFIG_FILE), config).unwrap();
        }
        for file in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "rule\n").unwrap();
        }
        (dir, root)
    }

    fn names(c: &Conventions) -> Vec<String> {
        c.names().into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn without_flag_or_config_the_conventions_present_are_used() {
        let (_dir, root) = root_with(None, &["AGENTS.md", ".cursor/rules/ts.mdc"]);
        let c = resolve(&root, None).unwrap();
        assert_eq!(
            (names(&c), c.origin),
            (
                vec!["agents".to_owned(), "cursor".to_owned()],
                Origin::Detected
            )
        );
        assert_eq!(c.index_bytes, Some(DEFAULT_INDEX_BYTES));
        // Nothing at all: Claude's, the engine's default.
        let (_dir, empty) = root_with(None, &[]);
        assert_eq!(names(&resolve(&empty, None).unwrap()), ["claude"]);
    }

    #[test]
    fn the_config_names_them_and_the_flag_overrides_it() {
        let config = "conventions = [\"gemini\", \"claude\"]\n[index]\nmax_bytes = 512\n";
        let (_dir, root) = root_with(Some(config), &["AGENTS.md"]);
        let c = resolve(&root, None).unwrap();
        assert_eq!(
            (names(&c), c.origin, c.index_bytes),
            (
                vec!["gemini".to_owned(), "claude".to_owned()],
                Origin::Config,
                Some(512)
            )
        );
        let flag = [
            "copilot".to_owned(),
            " cline".to_owned(),
            "copilot".to_owned(),
        ];
        let c = resolve(&root, Some(&flag)).unwrap();
        assert_eq!(
            (names(&c), c.origin),
            (vec!["copilot".to_owned(), "cline".to_owned()], Origin::Flag)
        );
    }

    #[test]
    fn the_index_is_on_unless_the_config_or_the_flag_turns_it_off() {
        for (config, wanted) in [
            ("[index]\nenabled = false\nmax_bytes = 512\n", None),
            ("[index]\nenabled = true\nmax_bytes = 512\n", Some(512)),
            ("[index]\nenabled = true\n", Some(DEFAULT_INDEX_BYTES)),
            ("[index]\n", Some(DEFAULT_INDEX_BYTES)),
        ] {
            let (_dir, root) = root_with(Some(config), &["AGENTS.md"]);
            // However the conventions are chosen.
            let detected = resolve(&root, None).unwrap();
            let named = resolve(&root, Some(&["claude".to_owned()])).unwrap();
            assert_eq!(
                (detected.index_bytes, named.index_bytes),
                (wanted, wanted),
                "{config:?}"
            );
            let options = |c: &Conventions| {
                c.startup_options(jit_core::StartupOptions::new(root.clone()))
                    .index_bytes
            };
            assert_eq!(options(&named), wanted, "{config:?}");
            let off = detected.without_index();
            assert_eq!((off.index_bytes, options(&off)), (None, None));
        }
        let (_dir, root) = root_with(Some("[index]\nenabled = \"no\"\n"), &[]);
        let err = format!("{:#}", resolve(&root, None).unwrap_err());
        assert!(err.contains("jit.toml") && err.contains("bool"), "{err}");
    }

    #[test]
    fn per_convention_options_reach_the_source() {
        let config =
            "[agents]\nfallback_names = [\"TEAM.md\"]\n[gemini]\nnames = [\"CONTEXT.md\"]\n";
        let (_dir, root) = root_with(Some(config), &[]);
        let flag = ["agents".to_owned(), "gemini".to_owned()];
        let c = resolve(&root, Some(&flag)).unwrap();
        assert!(c.sources[0].files().iter().any(|f| f == "TEAM.md"));
        assert_eq!(c.sources[1].files(), ["CONTEXT.md"]);
    }

    #[test]
    fn mistakes_are_errors_that_name_the_file_and_the_key() {
        for (config, wanted) in [
            ("conventions = [\"windsurf\"]\n", "windsurf"),
            ("convention = [\"claude\"]\n", "convention"),
            ("[agents]\nfallback = [\"X.md\"]\n", "fallback"),
            ("[index]\nbytes = 3\n", "bytes"),
            ("conventions = \"claude\"\n", "conventions"),
            ("conventions = []\n", "empty"),
            ("not toml at all", "jit.toml"),
        ] {
            let (_dir, root) = root_with(Some(config), &[]);
            let err = format!("{:#}", resolve(&root, None).unwrap_err());
            assert!(err.contains(wanted), "{config:?}: {err}");
            assert!(err.contains("jit.toml"), "{config:?}: {err}");
        }
        let (_dir, root) = root_with(None, &[]);
        let err = format!(
            "{:#}",
            resolve(&root, Some(&["claude".to_owned(), "nope".to_owned()])).unwrap_err()
        );
        assert!(
            err.contains("--conventions") && err.contains("nope"),
            "{err}"
        );
        let err = format!("{:#}", resolve(&root, Some(&[String::new()])).unwrap_err());
        assert!(err.contains("empty"), "{err}");
    }

    /// Every way a name in `jit.toml` can be more than one file name, as
    /// TOML writes it.
    const NOT_FILE_NAMES: [&str; 11] = [
        r#""../../../../../../../../../../etc/hostname""#,
        r#""../.aws/credentials""#,
        "\"..\"",
        "\".\"",
        "\"\"",
        r#""/etc/hostname""#,
        r#""docs/TEAM.md""#,
        r#""docs\\TEAM.md""#,
        r#""\\\\server\\share""#,
        r#""C:TEAM.md""#,
        r#""TEAM\u0000.md""#,
    ];

    /// `key` in every convention's table refuses each of
    /// [`NOT_FILE_NAMES`], whether the convention is used or not, with an
    /// error naming the file, the table, the key and the value, and saying
    /// how to fix it; however the conventions are chosen.
    #[track_caller]
    fn check_key(key: &str) {
        for convention in CONVENTIONS {
            for value in NOT_FILE_NAMES {
                let config = format!("[{convention}]\n{key} = [\"TEAM.md\", {value}]\n");
                let (_dir, root) = root_with(Some(&config), &["CLAUDE.md"]);
                let shown: String = toml::from_str::<toml::Value>(&format!("v = {value}")).unwrap()
                    ["v"]
                    .as_str()
                    .map(|name| format!("{name:?}"))
                    .unwrap();
                for flag in [None, Some(&["claude".to_owned()][..])] {
                    let err = format!("{:#}", resolve(&root, flag).unwrap_err());
                    let wanted = format!(
                        "{}: in [{convention}]: `{key}` holds {shown}, which is not a file name",
                        root.join(CONFIG_FILE)
                    );
                    assert!(err.starts_with(&wanted), "{config:?}: {err}");
                    assert!(err.contains("write the file's name alone"), "{err}");
                }
            }
        }
    }

    #[test]
    fn names_in_jit_toml_are_file_names() {
        check_key("names");
    }

    #[test]
    fn fallback_names_in_jit_toml_are_file_names() {
        check_key("fallback_names");
    }

    #[test]
    fn extra_names_in_jit_toml_are_file_names() {
        check_key("extra_names");
    }

    #[test]
    fn a_config_is_read_up_to_its_size_cap_and_refused_past_it() {
        let padded = |len: u64| {
            let head = "conventions = [\"agents\"]\n#";
            format!("{head}{}", "x".repeat(len as usize - head.len()))
        };
        let (_dir, root) = root_with(Some(&padded(MAX_CONFIG_BYTES)), &[]);
        assert_eq!(names(&resolve(&root, None).unwrap()), ["agents"]);
        let (_dir, root) = root_with(Some(&padded(MAX_CONFIG_BYTES + 1)), &[]);
        let err = format!("{:#}", resolve(&root, None).unwrap_err());
        assert!(err.contains("larger than 1048576 bytes"), "{err}");
    }

    #[test]
    fn a_config_that_is_not_a_regular_file_is_refused_without_blocking() {
        let (_dir, root) = root_with(None, &[]);
        std::fs::create_dir(root.join(CONFIG_FILE)).unwrap();
        let err = format!("{:#}", resolve(&root, None).unwrap_err());
        assert!(err.contains("jit.toml"), "{err}");
    }
}
