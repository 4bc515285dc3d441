//! Real paths for one expansion, looked up below directories already known
//! to be real instead of from `/` every time.
//!
//! `realpath` reads every component of a path as a link, from the root of
//! the file system: for a project at `/home/me/src/app` and an import
//! `docs/a.md`, six lookups, the first four the same for every import of
//! the expansion. Once a directory's real path is known (the project root,
//! or the folder of a file just resolved), a path below it needs only its
//! own components checked: each exists and is no link, so the path is its
//! own real path. Anything else (a link, a `..`, a missing component, a
//! trailing `/`) is resolved by `realpath` as before, which then also gives
//! the exact error.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Resolves paths to real paths, remembering which directories are real.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    /// Directories whose path is their real path: each was checked, or is
    /// the result of a `realpath`, or the parent of one.
    real_dirs: crate::Set<PathBuf>,
}

impl Resolver {
    /// The real path of `path`, as `realpath` gives it; the same error when
    /// it has none.
    pub(crate) fn resolve(&mut self, path: &Path) -> io::Result<PathBuf> {
        if let Some(real) = self.below_known(path) {
            return Ok(real);
        }
        let real = real_path(path)?;
        self.learn(&real);
        Ok(real)
    }

    /// Remembers the folder of `real`, a real path: a `realpath` result
    /// has no link and no `..` left in it, so neither has its folder.
    fn learn(&mut self, real: &Path) {
        if let Some(parent) = real.parent() {
            self.real_dirs.insert(parent.to_path_buf());
        }
    }

    /// The real path of `path` when it lies below a directory known to be
    /// real and each component after the deepest such directory exists and
    /// is no link (one `lstat` each); `None` when that cannot be told this
    /// way.
    fn below_known(&mut self, path: &Path) -> Option<PathBuf> {
        let bytes = path.as_os_str().as_encoded_bytes();
        if !cfg!(unix) || bytes.ends_with(b"/") || bytes.split(|&b| b == b'/').any(|s| s == b".") {
            // `x.md/` and `x.md/.` are errors for `realpath` that components
            // cannot show: they drop a final `/` and every `.`.
            return None;
        }
        let base = path
            .ancestors()
            .skip(1)
            .find(|dir| self.real_dirs.contains(*dir))?;
        let rest = path.strip_prefix(base).ok()?;
        let names: Vec<_> = rest
            .components()
            .map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect::<Option<_>>()?;
        // `base` is the deepest directory known: every component after it
        // is looked at.
        let mut real = base.to_path_buf();
        for (i, name) in names.iter().enumerate() {
            real.push(name);
            let last = i + 1 == names.len();
            let meta = lstat(&real).ok()?;
            if meta.file_type().is_symlink() || (!last && !meta.is_dir()) {
                return None;
            }
            if meta.is_dir() {
                self.real_dirs.insert(real.clone());
            }
        }
        Some(real)
    }

    /// The real path of the directory `dir` (`realpath`), remembered as
    /// one to resolve paths below.
    pub(crate) fn real_dir(&mut self, dir: &Path) -> io::Result<PathBuf> {
        let real = real_path(dir)?;
        self.real_dirs.insert(real.clone());
        Ok(real)
    }
}

/// `realpath`: a lookup of every component of `path` (tests count the calls).
fn real_path(path: &Path) -> io::Result<PathBuf> {
    #[cfg(test)]
    counts::RESOLVED.with(|n| n.set(n.get() + 1));
    fs::canonicalize(path)
}

/// `lstat` of one component (tests count the calls).
fn lstat(path: &Path) -> io::Result<fs::Metadata> {
    #[cfg(test)]
    counts::LSTATS.with(|n| n.set(n.get() + 1));
    fs::symlink_metadata(path)
}

/// What the tests count.
#[cfg(test)]
pub(crate) mod counts {
    use std::cell::Cell;

    thread_local! {
        /// How many paths this thread resolved with `realpath`.
        pub(crate) static RESOLVED: Cell<usize> = const { Cell::new(0) };
        /// How many components this thread checked with `lstat`.
        pub(crate) static LSTATS: Cell<usize> = const { Cell::new(0) };
    }

    /// The `realpath` and `lstat` calls `f` makes on this thread.
    pub(crate) fn calls_of(f: impl FnOnce()) -> (usize, usize) {
        let before = (RESOLVED.with(Cell::get), LSTATS.with(Cell::get));
        f();
        (
            RESOLVED.with(Cell::get) - before.0,
            LSTATS.with(Cell::get) - before.1,
        )
    }
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(
        clippy::unwrap_used,
        reason = "a failed setup should stop the test loudly"
    )]

    use std::os::unix::fs::symlink;

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed, TestRunner};

    use super::counts::calls_of;
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("docs/deep")).unwrap();
        fs::write(root.join("docs/a.md"), "a").unwrap();
        fs::write(root.join("docs/b.md"), "b").unwrap();
        fs::write(root.join("docs/deep/c.md"), "c").unwrap();
        (dir, root)
    }

    #[test]
    fn below_a_real_root_each_directory_is_checked_once_and_nothing_realpathed() {
        let (_dir, root) = tree();
        let mut resolver = Resolver::default();
        resolver.real_dir(&root).unwrap();
        let (realpaths, lstats) = calls_of(|| {
            for name in ["docs/a.md", "docs/b.md", "docs/deep/c.md"] {
                assert_eq!(resolver.resolve(&root.join(name)).unwrap(), root.join(name));
            }
        });
        // docs, a.md; b.md; deep, c.md.
        assert_eq!((realpaths, lstats), (0, 5));
    }

    #[test]
    fn without_a_known_directory_the_path_is_realpathed_and_its_folder_learnt() {
        let (_dir, root) = tree();
        let mut resolver = Resolver::default();
        let (realpaths, _) = calls_of(|| {
            assert_eq!(
                resolver.resolve(&root.join("docs/a.md")).unwrap(),
                root.join("docs/a.md")
            );
        });
        assert_eq!(realpaths, 1);
        let (realpaths, lstats) = calls_of(|| {
            assert_eq!(
                resolver.resolve(&root.join("docs/b.md")).unwrap(),
                root.join("docs/b.md")
            );
        });
        assert_eq!((realpaths, lstats), (0, 1));
    }

    #[test]
    fn links_dot_dots_missing_parts_and_trailing_slashes_go_to_realpath() {
        let (_dir, root) = tree();
        symlink("docs", root.join("link")).unwrap();
        symlink("a.md", root.join("docs/alias.md")).unwrap();
        let cases = [
            ("link/a.md", Some("docs/a.md")),
            ("docs/alias.md", Some("docs/a.md")),
            ("docs/deep/../a.md", Some("docs/a.md")),
            ("docs/gone.md", None),
            ("docs/a.md/x.md", None),
            ("docs/a.md/", None),
            ("docs/a.md/.", None),
            ("docs/./a.md", Some("docs/a.md")),
        ];
        for (path, real) in cases {
            let mut resolver = Resolver::default();
            resolver.real_dir(&root).unwrap();
            let mut got = None;
            let (realpaths, _) = calls_of(|| got = Some(resolver.resolve(&root.join(path))));
            assert_eq!(realpaths, 1, "{path}");
            match (got.unwrap(), real) {
                (Ok(got), Some(real)) => assert_eq!(got, root.join(real), "{path}"),
                (Err(_), None) => {}
                (got, real) => panic!("{path}: {got:?}, expected {real:?}"),
            }
        }
    }

    /// One entry of a random tree: a file, a folder, or a link to another
    /// entry, to a folder above the tree, or to nothing.
    #[derive(Debug, Clone)]
    enum Entry {
        File,
        Dir,
        Link(String),
    }

    fn entries() -> impl Strategy<Value = Vec<(String, Entry)>> {
        let name = prop::sample::select(vec!["a", "b", "c.md", "d.md"]);
        let path = prop::collection::vec(name, 1..3).prop_map(|parts| parts.join("/"));
        let target = prop::sample::select(vec![
            "a", "b/c.md", "../a", "..", "d.md", "a/b", "gone", "/", "c.md",
        ])
        .prop_map(str::to_owned);
        let entry = prop_oneof![
            3 => Just(Entry::File),
            3 => Just(Entry::Dir),
            2 => target.prop_map(Entry::Link),
        ];
        prop::collection::vec((path, entry), 4..20)
    }

    fn queries() -> impl Strategy<Value = Vec<String>> {
        let part = prop_oneof![
            8 => prop::sample::select(vec!["a", "b", "c.md", "d.md"]),
            1 => prop::sample::select(vec!["..", "."]),
        ];
        let slash = prop::sample::select(vec![false, false, false, true]);
        let query = (prop::collection::vec(part, 1..4), slash).prop_map(|(parts, slash)| {
            let mut query = parts.join("/");
            if slash {
                query.push('/');
            }
            query
        });
        prop::collection::vec(query, 1..12)
    }

    /// Builds `entries` under `root`, skipping those whose folder is not
    /// a directory or that already exist.
    fn build(root: &Path, entries: &[(String, Entry)]) {
        for (path, entry) in entries {
            let path = root.join(path);
            if fs::symlink_metadata(&path).is_ok()
                || !path
                    .parent()
                    .is_some_and(|p| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
            {
                continue;
            }
            match entry {
                Entry::File => fs::write(&path, "x").unwrap(),
                Entry::Dir => fs::create_dir(&path).unwrap(),
                Entry::Link(target) => symlink(target, &path).unwrap(),
            }
        }
    }

    /// Whatever the tree and the queries, one resolver answers each query
    /// in turn as `realpath` does: the same real path, or an error of the
    /// same kind.
    #[test]
    fn a_resolver_agrees_with_realpath_on_random_trees() {
        let mut runner = TestRunner::new(Config {
            cases: 192,
            rng_seed: RngSeed::Fixed(0x5EED_0011),
            ..Config::default()
        });
        let fast = std::cell::Cell::new(0);
        runner
            .run(&(entries(), queries()), |(entries, queries)| {
                let dir = tempfile::tempdir().unwrap();
                let top = dir.path().canonicalize().unwrap();
                let root = top.join("root");
                fs::create_dir(&root).unwrap();
                build(&root, &entries);
                let mut resolver = Resolver::default();
                resolver.real_dir(&root).unwrap();
                for query in &queries {
                    let path = root.join(query);
                    let expected = fs::canonicalize(&path);
                    let mut got = None;
                    let (realpaths, _) = calls_of(|| got = Some(resolver.resolve(&path)));
                    let got = got.unwrap();
                    if realpaths == 0 {
                        fast.set(fast.get() + 1);
                    }
                    match (&got, &expected) {
                        (Ok(got), Ok(expected)) => prop_assert_eq!(got, expected, "{}", query),
                        (Err(got), Err(expected)) => {
                            prop_assert_eq!(got.kind(), expected.kind(), "{}", query);
                        }
                        _ => prop_assert!(false, "{}: {:?} vs realpath {:?}", query, got, expected),
                    }
                }
                Ok(())
            })
            .unwrap();
        // The property must have exercised the fast path, not only realpath.
        let fast = fast.get();
        assert!(fast >= 120, "only {fast} queries resolved without realpath");
    }
}
