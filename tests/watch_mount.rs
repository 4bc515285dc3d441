//! A file system mounted over a directory an engine watches raises no event there: the watch hears of it through the mount table, and decides what a `stat` engine decides. Its own test binary, so that its mount does not drop what the other tests' watches remember while they run.
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::fs;
use std::process::Command;

use camino::Utf8Path;
use jit_core::{DiscoveryState, Engine};

/// Unmounts what it mounted, whatever the test did.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Needs the right to mount (root in a container that allows it):
/// skipped, saying so, where `mount` is refused.
#[test]
fn a_file_system_mounted_over_a_watched_directory_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("a/b")).unwrap();
    fs::write(root.join("a/b/CLAUDE.md"), "Hidden by the mount.\n").unwrap();
    let plain = Engine::new(&root).unwrap();
    let mut watched = Engine::new(&root).unwrap();
    watched.watch().unwrap();
    let (mut by_stat, mut by_watch) = (DiscoveryState::default(), DiscoveryState::default());
    let touch = |engine: &Engine, state: &mut DiscoveryState, path: &str| {
        let mut found = engine.discover(state, Utf8Path::new(path), engine.root());
        found.elapsed_us = 0;
        found
    };
    for path in ["a/b/x.ts", "a/b/y.ts"] {
        assert_eq!(
            touch(&watched, &mut by_watch, path),
            touch(&plain, &mut by_stat, path)
        );
    }
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "tmpfs"])
        .arg(root.join("a/b"))
        .output();
    match &out {
        Ok(out) if out.status.success() => {}
        _ => {
            eprintln!("skipped: `mount -t tmpfs` could not run here: {out:?}");
            return;
        }
    }
    let _mounted = Mounted(root.join("a/b"));
    fs::write(root.join("a/b/CLAUDE.md"), "On the mounted file system.\n").unwrap();
    let expected = touch(&plain, &mut by_stat, "a/b/z.ts");
    assert_eq!(expected.loaded.len(), 1, "{expected:#?}");
    assert_eq!(touch(&watched, &mut by_watch, "a/b/z.ts"), expected);
    assert_eq!(watched.watch_stats().unwrap().remounts, 1);
}
