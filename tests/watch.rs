//! An engine that watches the tree (`Engine::watch`) decides exactly what one that takes a `stat` of every path decides, whatever changes between touches, and a warm touch of an unchanged tree asks the file system nothing.
#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use camino::Utf8Path;
use jit_core::{Discovery, DiscoveryState, Engine};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Directories that hold a `CLAUDE.md` now and then.
const RULE_DIRS: &[&str] = &["", "a", "a/b", "a/b/c", "a/b2", "d"];
/// Paths the touches name (a directory among them).
const TOUCHED: &[&str] = &[
    "a/b/c/x.ts",
    "a/b/c/y.md",
    "a/b/z.ts",
    "a/b2/c/w.ts",
    "d/e.ts",
    "d/c/f.ts",
    "a/b/c/",
    "top.ts",
];
/// `paths:` of the root's scoped rule.
const SCOPES: &[&str] = &["a/**/*.ts", "**/*.md", "d/**", "nothing/**"];

/// One change to the tree between touches.
#[derive(Debug, Clone)]
enum Change {
    /// Writes a `CLAUDE.md` (the text's length varies, and sometimes not).
    Rule(usize, u8),
    /// Removes a `CLAUDE.md`.
    NoRule(usize),
    /// Writes the root's scoped rule with one of [`SCOPES`].
    Scoped(usize),
    /// Removes the root's scoped rule.
    NoScoped,
    /// Writes or removes a scoped rule in `a/.claude/rules`.
    Nested(bool),
    /// Swaps `a/b` and `a/b2` by renaming.
    Swap,
    /// Turns `d` into a link to `a/b`, or back into its directory.
    Link,
    /// Sets a rule's modification time, leaving its text.
    Touch(usize, u64),
    /// Writes a rule through a second hard link to it, in a directory no
    /// touch looks at (made now if there is none).
    ThroughLink(usize, u8),
    /// Nothing: the touch after it is a plain warm touch.
    Nothing,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (0..RULE_DIRS.len(), 0u8..4).prop_map(|(d, t)| Change::Rule(d, t)),
        (0..RULE_DIRS.len()).prop_map(Change::NoRule),
        (0..SCOPES.len()).prop_map(Change::Scoped),
        Just(Change::NoScoped),
        any::<bool>().prop_map(Change::Nested),
        Just(Change::Swap),
        Just(Change::Link),
        (0..RULE_DIRS.len(), 1u64..1000).prop_map(|(d, s)| Change::Touch(d, s)),
        (0..RULE_DIRS.len(), 0u8..4).prop_map(|(d, t)| Change::ThroughLink(d, t)),
        Just(Change::Nothing),
        Just(Change::Nothing),
    ]
}

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("proj");
        for d in [
            "a/b/c",
            "a/b2/c",
            "d/c",
            ".claude/rules",
            "a/.claude/rules",
            "links",
        ] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        let tree = Tree { _dir: dir, root };
        for (i, _) in RULE_DIRS.iter().enumerate() {
            tree.apply(&Change::Rule(i, 0));
        }
        tree.apply(&Change::Scoped(0));
        tree
    }

    fn rule(&self, dir: usize) -> PathBuf {
        self.root.join(RULE_DIRS[dir]).join("CLAUDE.md")
    }

    fn apply(&self, change: &Change) {
        let root = &self.root;
        match *change {
            Change::Rule(d, text) => {
                let body = ["one\n", "two\n", "three\n", "a longer rule text\n"][text as usize];
                let _ = fs::write(self.rule(d), format!("{} {body}", RULE_DIRS[d]));
            }
            Change::NoRule(d) => {
                let _ = fs::remove_file(self.rule(d));
            }
            Change::Scoped(s) => fs::write(
                root.join(".claude/rules/s.md"),
                format!("---\npaths: [\"{}\"]\n---\nScoped {s}.\n", SCOPES[s]),
            )
            .unwrap(),
            Change::NoScoped => {
                let _ = fs::remove_file(root.join(".claude/rules/s.md"));
            }
            Change::Nested(true) => fs::write(
                root.join("a/.claude/rules/n.md"),
                "---\npaths: [\"b/**\"]\n---\nNested.\n",
            )
            .unwrap(),
            Change::Nested(false) => {
                let _ = fs::remove_file(root.join("a/.claude/rules/n.md"));
            }
            Change::Swap => {
                fs::rename(root.join("a/b"), root.join("a/tmp")).unwrap();
                fs::rename(root.join("a/b2"), root.join("a/b")).unwrap();
                fs::rename(root.join("a/tmp"), root.join("a/b2")).unwrap();
            }
            Change::Link => {
                let d = root.join("d");
                if fs::symlink_metadata(&d).unwrap().file_type().is_symlink() {
                    fs::remove_file(&d).unwrap();
                    fs::rename(root.join("d-real"), &d).unwrap();
                } else {
                    fs::rename(&d, root.join("d-real")).unwrap();
                    symlink(root.join("a/b"), &d).unwrap();
                }
            }
            Change::Touch(d, secs) => {
                if let Ok(file) = fs::File::options().write(true).open(self.rule(d)) {
                    file.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
                        .unwrap();
                }
            }
            Change::ThroughLink(d, text) => {
                let link = self.root.join(format!("links/{d}.md"));
                if !link.exists() {
                    let _ = fs::hard_link(self.rule(d), &link);
                }
                if link.exists() {
                    let body = ["one\n", "two\n", "three\n", "through a link\n"][text as usize];
                    fs::write(&link, format!("{} {body}", RULE_DIRS[d])).unwrap();
                }
            }
            Change::Nothing => {}
        }
    }
}

/// A discovery without its timing.
fn decided(mut discovery: Discovery) -> Discovery {
    discovery.elapsed_us = 0;
    discovery
}

fn touch(engine: &Engine, state: &mut DiscoveryState, path: &str) -> Discovery {
    decided(engine.discover(state, Utf8Path::new(path), engine.root()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_watched_engine_decides_what_a_stat_engine_decides(
        steps in prop::collection::vec((change(), 0..TOUCHED.len()), 1..24),
    ) {
        let tree = Tree::new();
        let plain = Engine::new(&tree.root).unwrap();
        let mut watched = Engine::new(&tree.root).unwrap();
        watched.watch().unwrap();
        let (mut by_stat, mut by_watch) = (DiscoveryState::default(), DiscoveryState::default());
        for (change, touched) in &steps {
            tree.apply(change);
            let path = TOUCHED[*touched];
            let expected = touch(&plain, &mut by_stat, path);
            let found = touch(&watched, &mut by_watch, path);
            prop_assert_eq!(found, expected, "after {:?}, touching {}", change, path);
        }
    }
}

/// The chain of `a/b/c` with a rule on every level: once a touch has
/// asked what the first one's scans stamped, a warm touch asks the file
/// system nothing through the watch (only, as always, whether the touched
/// path is a directory, which is not remembered).
#[test]
fn a_warm_touch_of_an_unchanged_tree_asks_the_file_system_nothing() {
    let tree = Tree::new();
    let mut engine = Engine::new(&tree.root).unwrap();
    engine.watch().unwrap();
    let mut state = DiscoveryState::default();
    let first = touch(&engine, &mut state, "a/b/c/x.ts");
    assert_eq!(first.loaded.len(), 5, "{first:#?}");
    touch(&engine, &mut state, "a/b/c/y.md");
    let before = engine.watch_stats().unwrap();
    let third = touch(&engine, &mut state, "a/b/c/z.ts");
    let after = engine.watch_stats().unwrap();
    assert!(third.loaded.is_empty(), "{third:#?}");
    assert_eq!(after.asked, before.asked, "{before:?} {after:?}");
    assert!(after.answered > before.answered + 8, "{before:?} {after:?}");
    // A change in the middle of the chain is asked again, and read again.
    tree.apply(&Change::Rule(2, 3));
    let fourth = touch(&engine, &mut state, "a/b/c/z.ts");
    assert_eq!(fourth.loaded.len(), 1, "{fourth:#?}");
    assert_eq!(fourth.loaded[0].file, "a/b/CLAUDE.md");
    assert!(engine.watch_stats().unwrap().asked > after.asked);
}

/// Without [`Engine::watch`] there is nothing to report; a second call
/// keeps the watch there is, with what it remembers.
#[test]
fn watch_stats_exist_once_watching_and_a_second_watch_keeps_them() {
    let tree = Tree::new();
    let mut engine = Engine::new(&tree.root).unwrap();
    assert_eq!(engine.watch_stats(), None);
    engine.watch().unwrap();
    let mut state = DiscoveryState::default();
    touch(&engine, &mut state, "a/b/x.ts");
    assert_eq!(
        engine.watch_stats().unwrap().remembered,
        0,
        "a cold touch asks nothing"
    );
    touch(&engine, &mut state, "a/b/x.ts");
    let remembered = engine.watch_stats().unwrap().remembered;
    assert!(remembered > 0);
    engine.watch().unwrap();
    assert_eq!(engine.watch_stats().unwrap().remembered, remembered);
}
