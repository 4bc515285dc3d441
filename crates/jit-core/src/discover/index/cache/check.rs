//! The check that proves a cache's listings: one `statx` of each stored directory, made while the walk runs.
//!
//! The walk asks for the directories in the order the cache stored them
//! and checks each itself as it takes it, unless a helper thread got there
//! first: helpers go through the directories from the end of their share
//! back to its start, so the walk and the helpers meet wherever the walk's
//! own work puts them, and the check takes no time of its own before the
//! walk starts. Each directory is checked once, by whichever claims it.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use camino::Utf8Path;

use super::{DirId, StoredDir};

/// A directory's check: not claimed yet, being made, or its answer.
const UNCHECKED: u8 = 0;
const CHECKING: u8 = 1;
const HOLDS: u8 = 2;
const CHANGED: u8 = 3;

/// The identity checks of a cache's directories, shared by the walk and
/// its helper threads.
pub(in crate::discover::index) struct Checks<'a> {
    root: &'a Utf8Path,
    /// The stored directories, root-relative, each with the identity it
    /// was listed at.
    dirs: &'a [StoredDir<'a>],
    states: Vec<AtomicU8>,
    /// The walk is over: the helpers stop.
    done: AtomicBool,
    /// How many checks were made, by anyone (to pin "once each").
    #[cfg(test)]
    made: std::sync::atomic::AtomicUsize,
}

impl<'a> Checks<'a> {
    /// The checks of `stored`, the directories of a cache of `root`, none
    /// made yet.
    pub(in crate::discover::index) fn new(root: &'a Utf8Path, stored: &'a [StoredDir<'a>]) -> Self {
        Checks {
            root,
            dirs: stored,
            states: stored.iter().map(|_| AtomicU8::new(UNCHECKED)).collect(),
            done: AtomicBool::new(false),
            #[cfg(test)]
            made: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The root the directories are below.
    pub(in crate::discover::index) fn root(&self) -> &'a Utf8Path {
        self.root
    }

    /// Runs `walk` beside one helper thread per core past the first (at
    /// most three), and stops the helpers when it returns.
    pub(in crate::discover::index) fn run<'c, T>(&'c self, walk: impl FnOnce(&'c Self) -> T) -> T {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        self.run_with(threads - 1, walk)
    }

    /// [`Checks::run`] with `helpers` helper threads, each taking an equal
    /// share of the directories from its end.
    fn run_with<'c, T>(&'c self, helpers: usize, walk: impl FnOnce(&'c Self) -> T) -> T {
        let share = self.dirs.len().div_ceil(helpers.max(1)).max(1);
        std::thread::scope(|scope| {
            // A helper that cannot be started (a process at its thread
            // limit) leaves its share to the walk.
            let handles: Vec<_> = (0..helpers)
                .filter_map(|i| {
                    let start = (i * share).min(self.dirs.len());
                    let end = (start + share).min(self.dirs.len());
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || self.help(start, end))
                        .ok()
                })
                .collect();
            let out = walk(self);
            self.done.store(true, Ordering::Relaxed);
            // A helper that failed left its claimed check answered
            // "changed" (see `Claim`); joined here, its panic is not the
            // walk's.
            for handle in handles {
                let _ = handle.join();
            }
            out
        })
    }

    /// A helper's share, `start..end`, from its end back, until the walk
    /// is done or a directory is claimed already (the walk's, from there
    /// down).
    fn help(&self, start: usize, end: usize) {
        let mut checker = Checker::new(self.root);
        for i in (start..end).rev() {
            if self.done.load(Ordering::Relaxed) {
                return;
            }
            match self.claim(i) {
                Some(claim) => {
                    self.check(i, claim, &mut checker);
                }
                None => return,
            }
        }
    }

    /// Whether directory `i` (in the cache's order) is as it was: checked
    /// now with `checker` unless someone did or is doing it.
    pub(in crate::discover::index) fn holds(&self, i: usize, checker: &mut Checker) -> bool {
        let Some(state) = self.states.get(i) else {
            return false;
        };
        loop {
            match self.claim(i) {
                Some(claim) => return self.check(i, claim, checker),
                None => match state.load(Ordering::Acquire) {
                    HOLDS => return true,
                    CHECKING => std::thread::yield_now(),
                    _ => return false,
                },
            }
        }
    }

    /// Claims directory `i`'s check, if no one has.
    fn claim(&self, i: usize) -> Option<Claim<'_>> {
        let state = self.states.get(i)?;
        state
            .compare_exchange(UNCHECKED, CHECKING, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| Claim {
                state,
                answer: CHANGED,
            })
    }

    /// Makes the claimed check of directory `i`: its answer.
    fn check(&self, i: usize, mut claim: Claim<'_>, checker: &mut Checker) -> bool {
        #[cfg(test)]
        self.made.fetch_add(1, Ordering::Relaxed);
        let holds = self
            .dirs
            .get(i)
            .is_some_and(|StoredDir(dir, id, _)| checker.id(dir) == Some(*id));
        claim.answer = if holds { HOLDS } else { CHANGED };
        holds
    }
}

/// A claimed check: its answer is published when it is dropped, "changed"
/// unless the check set another, so a thread that fails in the middle of
/// a check never leaves the walk waiting.
struct Claim<'s> {
    state: &'s AtomicU8,
    answer: u8,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.state.store(self.answer, Ordering::Release);
    }
}

/// What one thread checks directories with: the root opened once (Linux),
/// so each `statx` walks the path below the root only; where that cannot be
/// done, `lstat` of the path joined to the root.
pub(in crate::discover::index) struct Checker {
    root: camino::Utf8PathBuf,
    #[cfg(target_os = "linux")]
    opened: Option<Option<rustix::fd::OwnedFd>>,
}

impl Checker {
    pub(in crate::discover::index) fn new(root: &Utf8Path) -> Self {
        Checker {
            root: root.to_owned(),
            #[cfg(target_os = "linux")]
            opened: None,
        }
    }

    /// The identity of `dir` (root-relative) now. A stored path is below
    /// the root: a path that is absolute or climbs out names something
    /// else, but the walk asks for no such key, so its listing is never
    /// used.
    fn id(&mut self, dir: &str) -> Option<DirId> {
        #[cfg(target_os = "linux")]
        {
            let root = self.root.as_str();
            if let Some(fd) = self
                .opened
                .get_or_insert_with(|| super::linux::open_root(root))
                && let Ok(id) = super::linux::id_at(fd, dir)
            {
                return id;
            }
        }
        if dir.is_empty() {
            DirId::of_std(&self.root)
        } else {
            DirId::of_std(&crate::discover::join(&self.root, dir))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::fs;
    use std::sync::atomic::Ordering;

    use camino::Utf8PathBuf;

    use super::*;

    /// How many checks were made.
    fn made(checks: &Checks<'_>) -> usize {
        checks.made.load(Ordering::Relaxed)
    }

    /// A root with `n` directories and the stored form of each, their
    /// identities as they are now.
    fn tree(n: usize) -> (tempfile::TempDir, Utf8PathBuf, Vec<StoredDir<'static>>) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        let stored = (0..n)
            .map(|i| {
                let rel = format!("d{i}");
                fs::create_dir(root.join(&rel)).unwrap();
                let id = DirId::of(&root.join(&rel)).unwrap();
                StoredDir(rel.into(), id, (0, 0))
            })
            .collect();
        (dir, root, stored)
    }

    /// However many helpers run beside the walk, every directory is
    /// checked exactly once and the walk gets each answer: a directory
    /// changed since (here, removed, or another one's identity) does not
    /// hold.
    #[test]
    fn each_directory_is_checked_once_whoever_claims_it() {
        let (_dir, root, mut stored) = tree(300);
        fs::remove_dir(root.join("d7")).unwrap();
        stored[250].1 = stored[251].1;
        for helpers in [0, 1, 3] {
            let checks = Checks::new(&root, &stored);
            let answers: Vec<bool> = checks.run_with(helpers, |checks| {
                let mut checker = Checker::new(&root);
                (0..stored.len())
                    .map(|i| checks.holds(i, &mut checker))
                    .collect()
            });
            let changed: Vec<usize> = (0..answers.len()).filter(|&i| !answers[i]).collect();
            assert_eq!(changed, [7, 250], "{helpers} helpers");
            assert_eq!(made(&checks), 300, "{helpers} helpers");
            // Asked again, the answer is the one made.
            let mut checker = Checker::new(&root);
            assert!(checks.holds(0, &mut checker) && !checks.holds(7, &mut checker));
            assert!(!checks.holds(300, &mut checker), "past the end");
            assert_eq!(made(&checks), 300);
        }
    }

    /// The helpers check what the walk does not reach before it is done,
    /// all of it between them however many they are, and stop once it is.
    #[test]
    fn helpers_check_ahead_of_the_walk_and_stop_with_it() {
        let (_dir, root, stored) = tree(50);
        for helpers in [1, 3] {
            let checks = Checks::new(&root, &stored);
            let answered = |checks: &Checks<'_>| {
                checks
                    .states
                    .iter()
                    .all(|s| s.load(Ordering::Acquire) >= HOLDS)
            };
            checks.run_with(helpers, |checks| {
                // The walk waits for its helpers to check everything.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
                while !answered(checks) && std::time::Instant::now() < deadline {
                    std::thread::yield_now();
                }
            });
            assert!(answered(&checks), "{helpers} helpers left some unchecked");
            assert_eq!(made(&checks), 50);
            let held = |state: &AtomicU8| state.load(Ordering::Relaxed) == HOLDS;
            assert!(checks.states.iter().all(held));
        }

        let checks = Checks::new(&root, &stored);
        checks.done.store(true, Ordering::Relaxed);
        checks.run_with(2, |_| ());
        assert_eq!(made(&checks), 0, "done: nothing checked");
    }

    /// The walk that asks for a directory a helper is checking waits for
    /// that answer (it neither checks again nor takes it as changed).
    #[test]
    fn the_walk_waits_for_a_check_being_made() {
        let (_dir, root, stored) = tree(1);
        let checks = Checks::new(&root, &stored);
        let mut claim = checks.claim(0).unwrap();
        std::thread::scope(|scope| {
            let walk = scope.spawn(|| checks.holds(0, &mut Checker::new(&root)));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!walk.is_finished(), "the walk waits");
            claim.answer = HOLDS;
            drop(claim);
            assert!(walk.join().unwrap(), "the helper's answer");
        });
        assert_eq!(made(&checks), 0, "checked by no one here");
    }

    /// A check dropped before its answer (a thread failing in the middle)
    /// answers "changed": no one waits for it.
    #[test]
    fn a_check_left_unanswered_answers_changed() {
        let (_dir, root, stored) = tree(2);
        let checks = Checks::new(&root, &stored);
        let claim = checks.claim(1).unwrap();
        assert!(checks.claim(1).is_none(), "claimed once");
        assert_eq!(checks.states[1].load(Ordering::Relaxed), CHECKING);
        drop(claim);
        let mut checker = Checker::new(&root);
        assert!(!checks.holds(1, &mut checker));
        assert!(checks.holds(0, &mut checker));
        assert_eq!(made(&checks), 1);
    }
}
