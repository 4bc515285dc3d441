//! The watch remembers only what an event would name, and forgets what each event names.

#![allow(clippy::unwrap_used, reason = "test fixtures fail loudly")]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

fn tree() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let root = root.to_str().unwrap().to_owned();
    fs::create_dir_all(format!("{root}/a/b")).unwrap();
    fs::write(format!("{root}/a/b/CLAUDE.md"), "one\n").unwrap();
    (dir, root)
}

/// A fixture tree and a new watch.
fn watched() -> (tempfile::TempDir, String, Watch) {
    let (dir, root) = tree();
    (dir, root, Watch::new().unwrap())
}

/// After a refresh, `path` is asked again and said as a `stat` says it now.
fn asked_again(watch: &Watch, path: &str) {
    watch.refresh();
    let (seen, from_memory) = answered(watch, path);
    assert!(!from_memory, "{path} was answered from memory");
    assert_eq!(seen.map(|s| s.stamp), stamp_now(path), "{path}");
}

/// Asks `path` and says whether the answer came from memory.
fn answered(watch: &Watch, path: &str) -> (Option<Seen>, bool) {
    let before = watch.stats().answered;
    let seen = watch.stat(path);
    (seen, watch.stats().answered > before)
}

fn stamp_now(path: &str) -> Option<Stamp> {
    fs::metadata(path).ok().map(|m| Stamp::of(&m))
}

use crate::rule::Stamp;

#[test]
fn an_unchanged_path_is_answered_from_memory_after_one_ask() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    let (first, from_memory) = answered(&watch, &file);
    assert!(!from_memory);
    assert_eq!(first.map(|s| s.stamp), stamp_now(&file));
    watch.refresh();
    let (again, from_memory) = answered(&watch, &file);
    assert!(from_memory);
    assert_eq!(again, first);
    let stats = watch.stats();
    assert_eq!((stats.asked, stats.answered), (1, 1));
    // Every directory from `/` down to the file's is watched.
    let depth = Path::new(&root).components().count() + 2;
    assert_eq!(stats.dirs, depth);
    assert_eq!(stats.remembered, 1);
}

#[test]
fn a_write_of_the_same_length_is_seen_on_the_next_refresh() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    fs::write(&file, "two\n").unwrap();
    // Not before the refresh: a touch reads the queue first.
    assert!(answered(&watch, &file).1);
    asked_again(&watch, &file);
    assert!(watch.stats().events > 0);
}

#[test]
fn a_changed_modification_time_alone_is_seen() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    let handle = fs::File::options().write(true).open(&file).unwrap();
    handle
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(7))
        .unwrap();
    asked_again(&watch, &file);
}

#[test]
fn a_new_entry_changes_the_directory_and_an_absent_path() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    let rules = format!("{root}/a/b/.claude");
    assert_eq!(watch.lstat(&rules, None), None);
    let dir_seen = watch.lstat(&dir, None);
    watch.refresh();
    assert!(
        answered(&watch, &rules).1,
        "an absent path is remembered too"
    );
    fs::create_dir(&rules).unwrap();
    watch.refresh();
    let (now, from_memory) = answered(&watch, &rules);
    assert!(!from_memory);
    assert!(now.is_some_and(Seen::is_dir));
    let (dir_now, from_memory) = answered(&watch, &dir);
    assert!(
        !from_memory,
        "the directory's own stamp changed with its entries"
    );
    assert_eq!(dir_now.map(|s| s.stamp), stamp_now(&dir));
    assert_ne!(dir_now, None);
    let _ = dir_seen;
}

#[test]
fn a_removed_file_is_seen() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    fs::remove_file(&file).unwrap();
    watch.refresh();
    assert_eq!(answered(&watch, &file), (None, false));
}

#[test]
fn a_directory_swapped_for_a_link_drops_everything_below_it() {
    let (_dir, root) = tree();
    fs::create_dir_all(format!("{root}/other/b")).unwrap();
    fs::write(format!("{root}/other/b/CLAUDE.md"), "elsewhere, longer\n").unwrap();
    let watch = Watch::new().unwrap();
    let file = format!("{root}/a/b/CLAUDE.md");
    let first = watch.stat(&file);
    fs::rename(format!("{root}/a"), format!("{root}/gone")).unwrap();
    symlink(format!("{root}/other"), format!("{root}/a")).unwrap();
    watch.refresh();
    let (seen, from_memory) = answered(&watch, &file);
    assert!(!from_memory);
    assert_ne!(seen, first);
    assert_eq!(seen.map(|s| s.stamp), stamp_now(&file));
    // Below a link nothing is remembered: the link can change without an
    // event in the directories it leads to.
    watch.refresh();
    assert!(!answered(&watch, &file).1);
    assert_eq!(watch.stats().remembered, 0);
}

#[test]
fn a_renamed_ancestor_is_seen_through_its_own_watch() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    fs::rename(format!("{root}/a/b"), format!("{root}/b2")).unwrap();
    watch.refresh();
    assert_eq!(answered(&watch, &file), (None, false));
}

#[test]
fn a_link_is_remembered_but_its_target_is_asked_every_time() {
    let (_dir, root) = tree();
    let link = format!("{root}/a/LINK.md");
    symlink(format!("{root}/a/b/CLAUDE.md"), &link).unwrap();
    let watch = Watch::new().unwrap();
    let target = watch.stat(&link);
    assert!(target.is_some_and(|s| s.kind == Kind::Other));
    watch.refresh();
    let asked = watch.stats().asked;
    assert_eq!(watch.stat(&link), target);
    assert_eq!(watch.lstat(&link, None).map(|s| s.kind), Some(Kind::Link));
    // The link's `lstat` came from memory; its target was asked.
    assert_eq!(watch.stats().asked, asked);
}

#[test]
fn a_write_through_another_hard_link_is_seen() {
    let (_dir, root) = tree();
    let file = format!("{root}/a/b/CLAUDE.md");
    fs::create_dir(format!("{root}/x")).unwrap();
    let other = format!("{root}/x/other.md");
    fs::hard_link(&file, &other).unwrap();
    let watch = Watch::new().unwrap();
    watch.stat(&file);
    watch.refresh();
    assert!(answered(&watch, &file).1);
    assert_eq!(watch.stats().files, 1);
    fs::write(&other, "changed through the other name\n").unwrap();
    asked_again(&watch, &file);
}

#[test]
fn a_second_name_of_a_remembered_file_is_asked_every_time() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    let other = format!("{root}/a/other.md");
    fs::hard_link(&file, &other).unwrap();
    watch.stat(&file);
    watch.stat(&other);
    watch.refresh();
    assert!(answered(&watch, &file).1);
    assert!(!answered(&watch, &other).1, "one watch, one name");
    assert_eq!(watch.stats().files, 1);
}

#[test]
fn a_forgotten_file_drops_its_own_watch() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    assert_eq!(watch.stats().files, 1);
    fs::write(&file, "edited\n").unwrap();
    watch.refresh();
    let stats = watch.stats();
    assert_eq!((stats.files, stats.remembered), (0, 0));
    let wds = watch.lock().by_wd.len();
    assert_eq!(wds, stats.dirs, "no watch descriptor left for the file");
}

#[test]
fn paths_that_are_not_clean_are_never_remembered() {
    let (_dir, root, watch) = watched();
    for path in [
        format!("{root}/a/../a/b/CLAUDE.md"),
        format!("{root}/a/./b/CLAUDE.md"),
        format!("{root}/a//b/CLAUDE.md"),
        "a/b/CLAUDE.md".to_owned(),
    ] {
        watch.stat(&path);
        watch.refresh();
        assert!(!answered(&watch, &path).1, "{path}");
    }
    assert_eq!(watch.stats().remembered, 0);
}

#[test]
fn an_overflow_forgets_everything_and_drops_every_watch() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    watch.lock().apply(-1, ReadFlags::QUEUE_OVERFLOW, None);
    let stats = watch.stats();
    assert_eq!((stats.dirs, stats.remembered, stats.overflows), (0, 0, 1));
    assert!(!answered(&watch, &file).1);
}

#[test]
fn attributes_of_a_directory_forget_what_is_below_it() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    let other = format!("{root}/a/x");
    watch.stat(&file);
    watch.stat(&other);
    let wd = wd_of(&watch, &format!("{root}/a/b"));
    let dirs = watch.stats().dirs;
    watch.lock().apply(wd, ReadFlags::ATTRIB, None);
    assert_eq!(
        watch.stats().dirs,
        dirs,
        "the directory is still itself: still watched"
    );
    assert!(!answered(&watch, &file).1);
    assert!(
        answered(&watch, &other).1,
        "a sibling of the directory is kept"
    );
}

/// The watch descriptor of a watched directory.
fn wd_of(watch: &Watch, dir: &str) -> i32 {
    watch.lock().by_dir.get(dir).unwrap().wd
}

#[test]
fn a_directory_gone_from_its_path_loses_its_watch_and_those_below() {
    let (_dir, root) = tree();
    fs::create_dir(format!("{root}/a/b/c")).unwrap();
    let watch = Watch::new().unwrap();
    let deep = format!("{root}/a/b/c/CLAUDE.md");
    let other = format!("{root}/a/x");
    watch.stat(&deep);
    watch.stat(&other);
    let dirs = watch.stats().dirs;
    let wd = wd_of(&watch, &format!("{root}/a/b"));
    for gone in [
        ReadFlags::MOVE_SELF,
        ReadFlags::DELETE_SELF,
        ReadFlags::IGNORED,
    ] {
        watch.lock().apply(wd, gone, None);
    }
    assert_eq!(watch.stats().dirs, dirs - 2, "a/b and a/b/c");
    assert!(!answered(&watch, &deep).1);
    assert!(answered(&watch, &other).1);
}

#[test]
fn a_directory_a_watch_already_stands_for_under_another_path_is_not_covered() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    let mut inner = watch.lock();
    // As a bind mount would: the kernel hands back a watch that already
    // stands for another path, whose events would name only that one.
    let wd = inotify::add_watch(&inner.queue.as_ref().unwrap().fd, dir.as_str(), MASK).unwrap();
    inner.by_wd.insert(wd, Arc::from("/elsewhere"));
    assert!(inner.cover(&format!("{root}/a")));
    assert!(!inner.cover(&dir));
    drop(inner);
    let file = format!("{dir}/CLAUDE.md");
    watch.stat(&file);
    watch.refresh();
    assert!(!answered(&watch, &file).1);
}

#[test]
fn seen_tells_a_directory_from_a_file_and_a_link() {
    let (_dir, root) = tree();
    let link = format!("{root}/link");
    symlink(format!("{root}/a"), &link).unwrap();
    let watch = Watch::new().unwrap();
    let kind = |path: &str| watch.lstat(path, None).map(|s| (s.kind, s.is_dir()));
    assert_eq!(kind(&format!("{root}/a")), Some((Kind::Dir, true)));
    assert_eq!(
        kind(&format!("{root}/a/b/CLAUDE.md")),
        Some((Kind::Other, false))
    );
    assert_eq!(kind(&link), Some((Kind::Link, false)));
    assert_eq!(watch.stat(&link).map(Seen::is_dir), Some(true));
}

#[test]
fn its_debug_form_shows_what_it_holds() {
    let (_dir, root, watch) = watched();
    watch.stat(&format!("{root}/a/b/CLAUDE.md"));
    let shown = format!("{watch:?}");
    assert!(shown.starts_with("Watch { stats: WatchStats {"), "{shown}");
    assert!(shown.contains("remembered: 1"), "{shown}");
}

#[test]
fn an_event_for_an_unknown_watch_changes_nothing() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    watch.lock().apply(999_999, ReadFlags::ATTRIB, None);
    assert!(answered(&watch, &file).1);
}

#[test]
fn a_name_that_is_not_utf8_only_changes_its_directory() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    watch.lstat(&dir, None);
    let wd = wd_of(&watch, &dir);
    watch.lock().apply(wd, ReadFlags::CREATE, Some(None));
    assert!(answered(&watch, &file).1);
    assert!(!answered(&watch, &dir).1);
}

#[test]
fn a_modified_file_does_not_change_its_directory() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    watch.lstat(&dir, None);
    fs::write(&file, "changed\n").unwrap();
    watch.refresh();
    assert!(answered(&watch, &dir).1);
    assert!(!answered(&watch, &file).1);
}

#[test]
fn a_directory_that_cannot_be_watched_is_asked_every_time_without_retrying() {
    let (_dir, root, watch) = watched();
    // Below a regular file: the kernel refuses the watch.
    let below = format!("{root}/a/b/CLAUDE.md/x");
    watch.lstat(&below, None);
    assert!(
        watch
            .lock()
            .refused
            .contains(format!("{root}/a/b/CLAUDE.md").as_str())
    );
    watch.refresh();
    assert!(!answered(&watch, &below).1);
}

#[test]
fn paths_are_split_and_compared_by_whole_components() {
    assert_eq!(parent("/a/b"), Some("/a"));
    assert_eq!(parent("/a"), Some("/"));
    assert_eq!(parent("/"), None);
    assert_eq!(join("/", "a"), "/a");
    assert_eq!(join("/a", "b"), "/a/b");
    assert!(is_at_or_below("/a/b", "/a"));
    assert!(is_at_or_below("/a", "/a"));
    assert!(!is_at_or_below("/ab", "/a"));
    assert!(is_at_or_below("/anything", "/"));
    assert!(is_clean("/"));
    assert!(is_clean("/a/.claude/rules"));
    assert!(!is_clean("/a/"));
    assert!(!is_clean(""));
}

#[test]
fn a_remembered_directory_hears_of_its_own_entries() {
    let (_dir, root, watch) = watched();
    // Nothing below it asked: only its own watch hears of a new entry.
    let dir = format!("{root}/a/b");
    watch.lstat(&dir, None);
    watch.refresh();
    assert!(answered(&watch, &dir).1);
    fs::write(format!("{dir}/new.md"), "").unwrap();
    asked_again(&watch, &dir);
}

#[test]
fn a_directory_is_remembered_once_with_the_callers_string() {
    let (_dir, root, watch) = watched();
    let level: Arc<str> = Arc::from(format!("{root}/a/b"));
    watch.lstat(&level, Some(&level));
    assert_eq!(
        Arc::strong_count(&level),
        3,
        "the caller's, and the watch's two maps"
    );
    let inner = watch.lock();
    assert!(inner.seen.is_empty(), "kept beside its watch, not in seen");
    assert!(inner.by_dir[&*level].seen.is_some());
    drop(inner);
    watch.refresh();
    assert!(answered(&watch, &level).1);
    assert_eq!(watch.stats().remembered, 1);
}

#[test]
fn a_watched_directory_forgets_its_own_stamp_but_keeps_its_watch() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a");
    watch.lstat(&dir, None);
    let dirs = watch.stats().dirs;
    fs::write(format!("{dir}/new.md"), "").unwrap();
    watch.refresh();
    assert_eq!(watch.stats().remembered, 0);
    assert_eq!(watch.stats().dirs, dirs);
    assert!(!answered(&watch, &dir).1);
}

#[test]
fn a_write_through_a_hard_link_made_after_the_file_was_remembered_is_seen() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    watch.refresh();
    assert!(answered(&watch, &file).1);
    // A second name in a directory no watch looks at, made and written
    // after the file was remembered with one link.
    fs::create_dir(format!("{root}/x")).unwrap();
    let other = format!("{root}/x/other.md");
    fs::hard_link(&file, &other).unwrap();
    fs::write(&other, "changed through the other name\n").unwrap();
    asked_again(&watch, &file);
}

/// The watches the kernel holds on the watch's queue, from its `fdinfo`.
fn kernel_watches(watch: &Watch) -> usize {
    use std::os::fd::AsRawFd;
    let fd = watch.lock().queue.as_ref().unwrap().fd.as_raw_fd();
    let info = fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap();
    info.lines()
        .filter(|l| l.starts_with("inotify wd:"))
        .count()
}

#[test]
fn the_kernel_holds_exactly_the_watches_the_maps_name() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    let link = format!("{root}/a/link.md");
    symlink(&file, &link).unwrap();
    watch.stat(&file);
    watch.stat(&link);
    // Not clean, so not remembered: and no watch left behind for it.
    fs::write(format!("{root}/a/x.md"), "x\n").unwrap();
    watch.stat(&format!("{root}/a/./x.md"));
    let stats = watch.stats();
    assert_eq!(stats.files, 2, "the file and the link: {stats:?}");
    assert_eq!(kernel_watches(&watch), watch.lock().by_wd.len());
    assert_eq!(kernel_watches(&watch), stats.dirs + stats.files);
    fs::write(&file, "edited\n").unwrap();
    fs::rename(format!("{root}/a/b"), format!("{root}/a/c")).unwrap();
    watch.refresh();
    // The kernel drops a watch on its own when its file goes; a removed
    // watch is acknowledged on the queue.
    watch.refresh();
    assert_eq!(kernel_watches(&watch), watch.lock().by_wd.len());
}

#[test]
fn a_writer_closing_the_file_is_heard_even_when_nothing_was_written() {
    // A write that fails after the kernel set the modification time raises
    // no `MODIFY`; the writer's close is heard instead.
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    drop(fs::File::options().write(true).open(&file).unwrap());
    watch.refresh();
    assert!(!answered(&watch, &file).1);
}

#[test]
fn a_link_changed_through_a_hard_link_to_it_is_seen() {
    use rustix::fs::{AtFlags, CWD, Timespec, Timestamps, utimensat};
    let (_dir, root, watch) = watched();
    let link = format!("{root}/a/LINK.md");
    symlink("b/CLAUDE.md", &link).unwrap();
    fs::create_dir(format!("{root}/x")).unwrap();
    // `link` (not following): a second name for the link itself.
    let other = format!("{root}/x/other");
    fs::hard_link(&link, &other).unwrap();
    assert!(fs::symlink_metadata(&other).unwrap().is_symlink());
    let first = watch.lstat(&link, None);
    watch.refresh();
    assert_eq!(watch.lstat(&link, None), first);
    assert_eq!(watch.stats().answered, 1);
    let epoch = Timespec {
        tv_sec: 7,
        tv_nsec: 0,
    };
    let times = Timestamps {
        last_access: epoch,
        last_modification: epoch,
    };
    utimensat(CWD, other.as_str(), &times, AtFlags::SYMLINK_NOFOLLOW).unwrap();
    watch.refresh();
    let before = watch.stats().answered;
    let now = watch.lstat(&link, None);
    assert_eq!(watch.stats().answered, before, "asked again");
    let meta = fs::symlink_metadata(&link).unwrap();
    assert_eq!(now.map(|s| s.stamp), Some(Stamp::of(&meta)));
    assert_ne!(now, first);
}

#[test]
fn a_watched_directory_replaced_by_a_file_gets_no_file_watch() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    watch.lstat(&dir, None);
    fs::rename(&dir, format!("{root}/gone")).unwrap();
    fs::write(&dir, "a file now\n").unwrap();
    // As if asked between the change and the refresh that reads its
    // event: the path is still a watched directory's.
    watch.lock().by_dir.get_mut(dir.as_str()).unwrap().seen = None;
    let seen = watch.lstat(&dir, None);
    assert_eq!(seen.map(|s| s.kind), Some(Kind::Other));
    assert_eq!(watch.stats().files, 0);
    assert_eq!(kernel_watches(&watch), watch.lock().by_wd.len());
    watch.refresh();
    assert!(!watch.lock().by_dir.contains_key(dir.as_str()));
    assert_eq!(kernel_watches(&watch), watch.lock().by_wd.len());
}

#[test]
fn a_second_watch_on_a_watched_directory_leaves_its_mask_alone() {
    let (_dir, root, watch) = watched();
    let dir = format!("{root}/a/b");
    watch.lstat(&dir, None);
    // A race that makes the directory look like a file under some path:
    // the kernel refuses, rather than replacing its mask with a file's.
    assert_eq!(watch.lock().add_watch(&dir, FILE_MASK), None);
    fs::write(format!("{dir}/new.md"), "").unwrap();
    asked_again(&watch, &dir);
}

#[test]
fn a_watch_the_kernel_hands_back_for_another_path_is_refused() {
    // As a kernel older than 4.18 does, ignoring `MASK_CREATE`: it hands
    // back the watch that already stands for another path. Descriptors are
    // handed out in turn, so the next one is known.
    let (_dir, root, watch) = watched();
    watch.lstat(&format!("{root}/a"), None);
    let mut inner = watch.lock();
    let next = inner.by_wd.keys().max().unwrap() + 1;
    inner.by_wd.insert(next, Arc::from("/elsewhere"));
    assert_eq!(inner.add_watch(&format!("{root}/a/b"), MASK), None);
}

#[test]
fn a_child_process_forgets_everything_and_opens_its_own_queue() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.stat(&file);
    let parents = kernel_watches(&watch);
    // As after `fork`: the process is not the one that opened the queue.
    watch.lock().pid ^= 1;
    watch.refresh();
    let stats = watch.stats();
    assert_eq!(
        (stats.forks, stats.dirs, stats.remembered, stats.remounts),
        (1, 0, 0, 0)
    );
    assert!(parents > 0);
    assert_eq!(kernel_watches(&watch), 0, "a queue of its own");
    assert!(!answered(&watch, &file).1);
    watch.refresh();
    assert!(answered(&watch, &file).1);
    fs::write(&file, "changed in the child\n").unwrap();
    asked_again(&watch, &file);
    assert_eq!(watch.stats().forks, 1);
}

#[test]
fn without_a_queue_everything_is_asked() {
    let (_dir, root, watch) = watched();
    let file = format!("{root}/a/b/CLAUDE.md");
    watch.lock().queue = None;
    assert_eq!(watch.stat(&file).map(|s| s.stamp), stamp_now(&file));
    watch.refresh();
    assert!(!answered(&watch, &file).1);
    let stats = watch.stats();
    assert_eq!((stats.dirs, stats.remembered, stats.remounts), (0, 0, 0));
}

#[test]
fn only_local_file_systems_without_case_folding_are_trusted() {
    let ext4 = 0xEF53;
    let nfs = 0x6969;
    let xfs = 0x5846_5342;
    let tmpfs = 0x0102_1994;
    assert!(trusted_kind(ext4, || Ok(0)));
    assert!(!trusted_kind(ext4, || Ok(CASEFOLD)));
    assert!(trusted_kind(ext4, || Ok(!CASEFOLD)));
    assert!(!trusted_kind(ext4, || Err(Errno::ACCESS)));
    assert!(
        trusted_kind(tmpfs, || Err(Errno::NOTTY)),
        "no flags, no folding"
    );
    assert!(!trusted_kind(nfs, || Ok(0)));
    assert!(!trusted_kind(0x6573_5546, || Ok(0)), "FUSE");
    // A file system that cannot fold a directory is not asked.
    assert!(trusted_kind(xfs, || panic!("xfs folds no directory")));
    for kind in FOLDING {
        assert!(LOCAL.contains(&kind));
        assert!(!trusted_kind(kind, || Ok(CASEFOLD)));
    }
}

#[test]
fn a_directory_is_trusted_by_what_its_file_system_says() {
    let (_dir, root) = tree();
    assert!(trusted(&root), "the test's own temporary directory");
    assert!(!trusted("/proc"), "not a file system of files");
    assert!(!trusted(&format!("{root}/absent")));
    assert!(!trusted(&format!("{root}/a/b/CLAUDE.md")));
    let link = format!("{root}/link");
    symlink(format!("{root}/a"), &link).unwrap();
    assert!(!trusted(&link), "a link is not followed");
}

#[test]
fn a_directory_on_an_untrusted_file_system_is_not_watched() {
    let watch = Watch::new().unwrap();
    let path = "/proc/self/cmdline";
    watch.lstat(path, None);
    assert!(watch.lock().refused.contains("/proc"));
    assert_eq!(watch.stats().dirs, 1, "only `/`");
    watch.refresh();
    assert!(!answered(&watch, path).1);
}
