//! Candidate names that climb out of their directory (`..`, a folder on the way that links out, an absolute name): whatever a rule source names, at startup, on a touch, in the rule index and in the user tier, nothing outside the project root or the user folder is read, and each refusal is an `outside_root` row.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    DiscoveryState, Engine, Frontmatter, LoadedRule, RuleDir, RuleSource, ScopeSpec, SkipReason,
    StartupOptions, UserLevel,
};

/// The text of every file outside the project and the user folder: it
/// must never reach a report, whether as a rule's body or as its
/// description in the rule index.
const SENTINEL: &str = "SENTINEL-OUTSIDE-7f3a";

/// A rule source that names whatever it is given: no configuration check
/// stands between these names and the engine.
#[derive(Debug)]
struct Hostile {
    files: Vec<String>,
    root_files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    user: UserLevel,
}

impl RuleSource for Hostile {
    fn name(&self) -> &str {
        "hostile"
    }
    fn files(&self) -> &[String] {
        &self.files
    }
    fn root_files(&self) -> &[String] {
        &self.root_files
    }
    fn rule_dirs(&self) -> &[RuleDir] {
        &self.rule_dirs
    }
    fn scope_keys(&self) -> &[String] {
        &[]
    }
    fn scope(&self, _frontmatter: &Frontmatter) -> ScopeSpec {
        ScopeSpec::Always
    }
    fn user_level(&self) -> Option<&UserLevel> {
        Some(&self.user)
    }
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|&n| n.to_owned()).collect()
}

/// `base/proj` (the root, with a link `vendor` to `base/outside` and the
/// folders `sub` and `src/deep`), `base/home` (with the user folder
/// `.hostile`), and the sentinel in `base/secret.md`,
/// `base/outside/rules/x.md`, `base/home/secret.md` and
/// `base/home/.hostile/../up.md`.
struct Tree {
    _dir: tempfile::TempDir,
    base: Utf8PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        let secret = format!("---\ndescription: {SENTINEL}\n---\n{SENTINEL}\n");
        for file in [
            "secret.md",
            "outside/rules/x.md",
            "home/secret.md",
            "home/up.md",
        ] {
            let path = base.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, &secret).unwrap();
        }
        for folder in ["proj/sub", "proj/src/deep", "home/.hostile"] {
            fs::create_dir_all(base.join(folder)).unwrap();
        }
        fs::write(base.join("proj/CLAUDE.md"), "Inside.\n").unwrap();
        fs::write(base.join("home/.hostile/OWN.md"), "Own.\n").unwrap();
        symlink("../outside", base.join("proj/vendor")).unwrap();
        Tree { _dir: dir, base }
    }

    fn root(&self) -> Utf8PathBuf {
        self.base.join("proj")
    }
}

/// Every spelling of a way out a name can take, in each of a source's
/// lists, and one plain name inside that still loads.
fn hostile() -> Hostile {
    Hostile {
        files: owned(&[
            "CLAUDE.md",
            "../secret.md",
            "./../secret.md",
            "sub/../../secret.md",
            "src/../../secret.md",
            "deep/../../../secret.md",
            "vendor/rules/x.md",
            "..",
            ".",
            "",
            "/etc/hostname",
        ]),
        root_files: owned(&["sub/../../secret.md"]),
        rule_dirs: vec![
            RuleDir::new("..", ".md", false),
            RuleDir::new("../outside/rules", ".md", true),
            RuleDir::new("sub/../..", ".md", false),
            RuleDir::new("vendor/rules", ".md", true),
        ],
        user: UserLevel {
            dir: ".hostile".to_owned(),
            files: owned(&["OWN.md", "../secret.md", "..", "../up.md"]),
            rule_dirs: vec![RuleDir::new("..", ".md", false)],
        },
    }
}

/// Everything a report says: its JSON, and the text of every rule it
/// loaded (which the JSON leaves out).
fn seen(loaded: &[LoadedRule], json: Result<String, serde_json::Error>) -> String {
    let mut all = json.unwrap();
    for rule in loaded {
        all.push_str(&rule.content);
    }
    all
}

#[test]
fn no_candidate_name_reads_outside_the_root_or_the_user_folder() {
    let tree = Tree::new();
    let sources: Vec<Arc<dyn RuleSource>> = vec![Arc::new(hostile())];
    let engine = Engine::new(tree.root()).unwrap().with_sources(sources);
    let mut state = DiscoveryState::default();
    let options = StartupOptions::new(tree.root())
        .with_managed(None)
        .with_home(Some(tree.base.join("home")))
        .with_index(jit_core::DEFAULT_INDEX_BYTES);
    let report = engine.startup(&mut state, &options);
    let mut everything = seen(&report.loaded, serde_json::to_string(&report));
    let mut outside: Vec<String> = report
        .skipped
        .iter()
        .filter(|s| s.reason == SkipReason::OutsideRoot)
        .map(|s| s.file.clone())
        .collect();
    // Touches in every directory a name climbs from.
    for path in ["a.ts", "sub/a.ts", "src/a.ts", "vendor/rules/y.ts"] {
        let found = engine.discover(&mut state, Utf8Path::new(path), engine.root());
        everything.push_str(&seen(&found.loaded, serde_json::to_string(&found)));
        outside.extend(
            found
                .skipped
                .iter()
                .filter(|s| s.reason == SkipReason::OutsideRoot)
                .map(|s| s.file.clone()),
        );
    }
    assert!(!everything.contains(SENTINEL), "{everything}");
    // What is inside still loads.
    let loaded: Vec<&str> = report.loaded.iter().map(|l| l.file.as_str()).collect();
    assert!(loaded.contains(&"CLAUDE.md"), "{loaded:?}");
    assert!(loaded.iter().any(|f| f.ends_with("OWN.md")), "{loaded:?}");
    // Each way out is refused with a visible reason.
    let home = tree.base.join("home/.hostile");
    for refused in [
        "../secret.md".to_owned(),
        "sub/../../secret.md".to_owned(),
        "src/../../secret.md".to_owned(),
        "src/deep/../../../secret.md".to_owned(),
        "vendor/rules/x.md".to_owned(),
        "..".to_owned(),
        "../outside/rules".to_owned(),
        format!("{home}/../secret.md"),
        format!("{home}/.."),
    ] {
        assert!(
            outside.contains(&refused),
            "{refused} not refused as outside_root: {outside:?}"
        );
    }
}

/// A user level named by a path that climbs out of the home directory is
/// refused whole, with a row: its folder would be a boundary anywhere.
#[test]
fn a_user_folder_that_climbs_out_of_the_home_directory_is_refused() {
    let tree = Tree::new();
    let climber = Hostile {
        files: owned(&["CLAUDE.md"]),
        root_files: Vec::new(),
        rule_dirs: Vec::new(),
        user: UserLevel {
            dir: "..".to_owned(),
            files: owned(&["secret.md"]),
            rule_dirs: vec![RuleDir::new("outside/rules", ".md", false)],
        },
    };
    let sources: Vec<Arc<dyn RuleSource>> = vec![Arc::new(climber)];
    let engine = Engine::new(tree.root()).unwrap().with_sources(sources);
    let options = StartupOptions::new(tree.root())
        .with_managed(None)
        .with_home(Some(tree.base.join("home")));
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let seen = seen(&report.loaded, serde_json::to_string(&report));
    assert!(!seen.contains(SENTINEL), "{seen}");
    let row = report
        .skipped
        .iter()
        .find(|s| s.file == format!("{}/home/..", tree.base))
        .unwrap_or_else(|| panic!("no row for the user folder: {:?}", report.skipped));
    assert_eq!(row.reason, SkipReason::OutsideRoot);
    assert!(
        row.detail.contains("not a folder below the home"),
        "{row:?}"
    );
}

/// The rule index reads each file's description: a name that climbs out
/// must not put an outside file's there either. From `src`,
/// `deep/../../../secret.md` climbs out; the startup chain (the root
/// alone) does not go there, the index's walk does.
#[test]
fn the_rule_index_lists_nothing_outside_the_root() {
    let tree = Tree::new();
    let sources: Vec<Arc<dyn RuleSource>> = vec![Arc::new(hostile())];
    let engine = Engine::new(tree.root()).unwrap().with_sources(sources);
    let options = StartupOptions::new(tree.root())
        .with_managed(None)
        .with_index(jit_core::DEFAULT_INDEX_BYTES);
    let report = engine.startup(&mut DiscoveryState::default(), &options);
    let index = serde_json::to_string(&report.index).unwrap();
    assert!(!index.contains(SENTINEL), "{index}");
    assert!(!index.contains("secret"), "{index}");
}
