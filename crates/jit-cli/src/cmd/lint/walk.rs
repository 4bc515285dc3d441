//! The walk of the repository for `jit lint`: the directories git would enter and the files it would track, with `.gitignore`, `.ignore`, `.git/info/exclude` and the global excludes file honoured, each read only up to [`MAX_IGNORE_FILE_BYTES`].
//!
//! The precedence is the `ignore` crate's (ripgrep's) as the linter used
//! it before, without requiring a repository: for a path, the nearest
//! `.ignore` that matches it decides; else the nearest `.gitignore`; else
//! the nearest `info/exclude` (of a directory that holds a `.git`); else
//! the global excludes file. Ignore files above the root count too, and a
//! nested repository does not stop those above it. A test holds the walk
//! to the crate's on a tree of every kind of rule. What changed is how the files
//! are read: the crate read each whole and compiled every line into one
//! matcher (a 4 MiB `.gitignore` took 1.6 GB), and it opened them
//! with a plain `open`, which waits forever on a named pipe. Here each is
//! opened without blocking or following a link (as git, which ignores a
//! `.gitignore` that is a link), only a regular file is read, and only its
//! first [`MAX_IGNORE_FILE_BYTES`], cut at the last whole line, and no more
//! than [`MAX_IGNORE_BYTES_IN_FORCE`] of patterns are in force for one
//! directory (its own ignore files, those of the directories above it and
//! the global one), so nested directories each with a large ignore file
//! cannot add up. Each file cut or refused is reported, so the lint can
//! say so.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use camino::Utf8Path;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::repo::join;

/// The most bytes of one ignore file (`.gitignore`, `.ignore`,
/// `info/exclude`, the global excludes file) the walk reads; the lines
/// past the last whole line within it are not honoured. Each line becomes
/// a pattern compiled for matching, which costs far more than its bytes
/// (about 8 KiB of memory per pattern); real ignore files are a few KiB
/// (GitHub's largest templates are under 10 KiB), and this one bounds the
/// memory a hostile file can take to tens of MiB.
pub(super) const MAX_IGNORE_FILE_BYTES: u64 = 64 * 1024;

/// The most bytes of ignore files in force for one directory: its own,
/// those of every directory above it (the root's parents included) and
/// the global excludes file. An ignore file is read only as far as what
/// is left of it; the walk keeps the patterns of one chain of directories
/// at a time, so this bounds the patterns compiled at once.
pub(super) const MAX_IGNORE_BYTES_IN_FORCE: u64 = 2 * MAX_IGNORE_FILE_BYTES;

/// An ignore file the walk honoured only in part, or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IgnoreCut {
    /// The file: root-relative inside the root, absolute elsewhere.
    pub file: String,
    /// What happened to it.
    pub cut: Cut,
}

/// How an ignore file was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cut {
    /// Over [`MAX_IGNORE_FILE_BYTES`] (`in_force: None`), or over what was
    /// left of [`MAX_IGNORE_BYTES_IN_FORCE`] after the `in_force` bytes of
    /// the ignore files in force before it: `size` bytes, of which the
    /// first `lines` whole lines were honoured.
    TooLarge {
        size: u64,
        lines: usize,
        in_force: Option<u64>,
    },
    /// Not read at all (not a regular file, a link, unreadable): why.
    Unread(String),
}

/// What the walk found.
#[derive(Debug, Default)]
pub(super) struct Walked {
    /// Files not ignored, root-relative, in walk order.
    pub files: Vec<String>,
    /// Directories entered, root-relative (`""` for the root), each with
    /// the names of all its entries.
    pub dirs: Vec<(String, HashSet<String>)>,
    /// Directories not entered: `.git` and ignored ones, root-relative.
    pub skipped_dirs: Vec<String>,
    /// Ignore files cut or refused.
    pub cuts: Vec<IgnoreCut>,
}

/// The ignore rules one directory adds.
#[derive(Debug, Default)]
struct Level {
    /// The bytes of ignore files in force here, this directory's and those
    /// above it.
    in_force: u64,
    /// `.ignore`.
    ignore: Option<Gitignore>,
    /// `.gitignore`.
    gitignore: Option<Gitignore>,
    /// `info/exclude` of the repository whose `.git` is here.
    exclude: Option<Gitignore>,
}

/// A directory's level with its parent's: the chain of rules that applies
/// inside it, nearest first. Only the chains of the directories on the way
/// to those still to walk are alive.
#[derive(Debug)]
struct Chain {
    level: Level,
    parent: Option<Rc<Chain>>,
}

impl Chain {
    fn levels(&self) -> impl Iterator<Item = &Level> {
        std::iter::successors(Some(self), |c| c.parent.as_deref()).map(|c| &c.level)
    }
}

/// Reads ignore files for the walk, noting each one cut.
struct Reader<'r> {
    root: &'r Utf8Path,
    cuts: Vec<IgnoreCut>,
    /// The bytes of the global excludes file read, in force everywhere.
    global_bytes: u64,
}

impl Reader<'_> {
    /// The matcher of the ignore file `file`, whose patterns are relative
    /// to `base`; `None` when there is no such file (or it holds nothing).
    /// `in_force` is the bytes of ignore files in force already, and grows
    /// by what is read of this one.
    fn matcher(&mut self, file: &Path, base: &Path, in_force: &mut u64) -> Option<Gitignore> {
        let left = MAX_IGNORE_BYTES_IN_FORCE.saturating_sub(*in_force);
        let cap = MAX_IGNORE_FILE_BYTES.min(left);
        let text = match read_head(file, cap) {
            Ok(Some(head)) => {
                if let Some(size) = head.cut_from {
                    let lines = head.text.lines().count();
                    // The smaller of the two limits cut it.
                    let in_force = (cap < MAX_IGNORE_FILE_BYTES).then_some(*in_force);
                    self.cut(
                        file,
                        Cut::TooLarge {
                            size,
                            lines,
                            in_force,
                        },
                    );
                }
                *in_force += head.text.len() as u64;
                head.text
            }
            Ok(None) => return None,
            Err(why) => {
                self.cut(file, Cut::Unread(why));
                return None;
            }
        };
        let mut builder = GitignoreBuilder::new(base);
        for (i, line) in text.lines().enumerate() {
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            // A line that is no valid pattern is skipped, as git skips it.
            let _ = builder.add_line(Some(file.to_path_buf()), line);
        }
        builder.build().ok().filter(|gi| !gi.is_empty())
    }

    fn cut(&mut self, file: &Path, cut: Cut) {
        let file = match file.strip_prefix(self.root.as_std_path()) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => file.display().to_string(),
        };
        self.cuts.push(IgnoreCut { file, cut });
    }

    /// The rules `dir` adds under those of `above`.
    fn level(&mut self, dir: &Path, above: Option<&Chain>) -> Level {
        let mut in_force = above.map_or(self.global_bytes, |chain| chain.level.in_force);
        let git = dir.join(".git");
        let ignore = self.matcher(&dir.join(".ignore"), dir, &mut in_force);
        let gitignore = self.matcher(&dir.join(".gitignore"), dir, &mut in_force);
        let exclude = if fs::symlink_metadata(&git).is_ok() {
            git_dir(&git)
                .and_then(|git_dir| self.matcher(&git_dir.join("info/exclude"), dir, &mut in_force))
        } else {
            None
        };
        Level {
            in_force,
            ignore,
            gitignore,
            exclude,
        }
    }
}

/// The first bytes of an ignore file, cut at its last whole line when the
/// file is longer.
struct Head {
    text: String,
    /// The file's size, when it was cut.
    cut_from: Option<u64>,
}

/// Reads at most `cap` bytes of `file`, cut at the last whole line:
/// `Ok(None)` when there is no such file, an error saying why when it is
/// there but cannot be read.
fn read_head(file: &Path, cap: u64) -> Result<Option<Head>, String> {
    let (handle, meta) = match jit_core::open_regular(file) {
        Ok(opened) => opened,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            // A link is refused by the open (`O_NOFOLLOW`): say so plainly.
            let why = if fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
                "a symbolic link, which git does not follow for an ignore file".to_owned()
            } else {
                err.to_string()
            };
            return Err(why);
        }
    };
    let mut bytes =
        jit_core::read_capped(handle, meta.len(), cap).map_err(|err| err.to_string())?;
    let cut_from = if bytes.len() as u64 > cap {
        let end = bytes
            .iter()
            .take(usize::try_from(cap).unwrap_or(usize::MAX))
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        bytes.truncate(end);
        Some(meta.len().max(cap + 1))
    } else {
        None
    };
    Ok(Some(Head {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        cut_from,
    }))
}

/// The git directory a `.git` entry stands for: itself, or the directory a
/// `.git` file (a worktree, a submodule) names, or that directory's common
/// directory when it names one (where `info/exclude` lives).
fn git_dir(git: &Path) -> Option<PathBuf> {
    if fs::symlink_metadata(git).ok()?.is_dir() {
        return Some(git.to_path_buf());
    }
    let small = |path: &Path| -> Option<String> {
        let (file, meta) = jit_core::open_regular(path).ok()?;
        let bytes = jit_core::read_capped(file, meta.len(), 4096).ok()?;
        Some(String::from_utf8_lossy(&bytes).trim().to_owned())
    };
    let named = small(git)?;
    let dir = git.parent()?.join(named.strip_prefix("gitdir:")?.trim());
    match small(&dir.join("commondir")) {
        Some(common) => Some(dir.join(common)),
        None => Some(dir),
    }
}

/// Whether `path` (absolute) is ignored under `chain`, then the global
/// excludes: the `ignore` crate's precedence (see the module docs).
fn ignored(chain: &Chain, global: Option<&Gitignore>, path: &Path, is_dir: bool) -> bool {
    let decided = |matched: Match<&ignore::gitignore::Glob>| match matched {
        Match::Ignore(_) => Some(true),
        Match::Whitelist(_) => Some(false),
        Match::None => None,
    };
    // The nearest file of one kind that matches decides.
    let nearest = |pick: fn(&Level) -> Option<&Gitignore>| {
        chain
            .levels()
            .find_map(|level| pick(level).and_then(|gi| decided(gi.matched(path, is_dir))))
    };
    nearest(|l| l.ignore.as_ref())
        .or_else(|| nearest(|l| l.gitignore.as_ref()))
        .or_else(|| nearest(|l| l.exclude.as_ref()))
        .or_else(|| global.and_then(|gi| decided(gi.matched(path, is_dir))))
        .unwrap_or(false)
}

/// Walks `root` (canonical), with `global` the global excludes file, if
/// any (git's `core.excludesFile`, by default `~/.config/git/ignore`).
pub(super) fn walk(root: &Utf8Path, global: Option<PathBuf>) -> Walked {
    let mut reader = Reader {
        root,
        cuts: Vec::new(),
        global_bytes: 0,
    };
    let mut global_bytes = 0;
    let global = global
        .and_then(|path| fs::canonicalize(path).ok())
        .and_then(|path| reader.matcher(&path, root.as_std_path(), &mut global_bytes));
    reader.global_bytes = global_bytes;
    // The directories above the root, farthest first.
    let mut above: Option<Rc<Chain>> = None;
    let ancestors: Vec<&Path> = root.as_std_path().ancestors().skip(1).collect();
    for dir in ancestors.into_iter().rev() {
        let level = reader.level(dir, above.as_deref());
        above = Some(Rc::new(Chain {
            level,
            parent: above,
        }));
    }
    let mut walked = Walked::default();
    let mut stack: Vec<(String, Option<Rc<Chain>>)> = vec![(String::new(), above)];
    while let Some((rel, parent)) = stack.pop() {
        let dir = root.as_std_path().join(&rel);
        let chain = Rc::new(Chain {
            level: reader.level(&dir, parent.as_deref()),
            parent,
        });
        let mut names = HashSet::new();
        let Ok(entries) = fs::read_dir(&dir) else {
            walked.dirs.push((rel, names));
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let child = join(&rel, &name);
            let skip = name == ".git" || ignored(&chain, global.as_ref(), &dir.join(&name), is_dir);
            match (is_dir, skip) {
                (true, true) => walked.skipped_dirs.push(child),
                (true, false) => stack.push((child, Some(Rc::clone(&chain)))),
                (false, false) => walked.files.push(child),
                (false, true) => {}
            }
            names.insert(name);
        }
        walked.dirs.push((rel, names));
    }
    walked.cuts = reader.cuts;
    walked
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use camino::Utf8PathBuf;

    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// The files and entered directories the `ignore` crate's walk finds,
    /// configured as the linter configured it before this module (without
    /// the global excludes, which live in the home directory).
    fn crate_walk(root: &Utf8Path) -> (BTreeSet<String>, BTreeSet<String>) {
        let (mut files, mut dirs) = (BTreeSet::new(), BTreeSet::new());
        let walk = ignore::WalkBuilder::new(root)
            .hidden(false)
            .parents(true)
            .require_git(false)
            .git_global(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        for entry in walk.flatten() {
            let rel = entry.path().strip_prefix(root).unwrap();
            let rel = rel.to_str().unwrap().to_owned();
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                dirs.insert(rel);
            } else {
                files.insert(rel);
            }
        }
        (files, dirs)
    }

    /// A tree with every kind of rule the walk honours: negations, rules
    /// for directories only, anchored and unanchored patterns, `**`,
    /// `.ignore` over `.gitignore`, `info/exclude`, a nested repository,
    /// and an ignore file above the root.
    fn tree() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        write(&top, ".gitignore", "*.secret\n");
        let root = top.join("repo");
        let r = root.as_path();
        fs::create_dir_all(r.join(".git/info")).unwrap();
        write(r, ".git/info/exclude", "excluded/\n*.tmp\n");
        write(
            r,
            ".gitignore",
            "build/\n/only-root.txt\n*.log\n!keep.log\ndocs/**/gen/\nnode_modules\n",
        );
        write(r, ".ignore", "!build/\nvendor/\n");
        for file in [
            "a.txt",
            "only-root.txt",
            "x.secret",
            "sub/only-root.txt",
            "sub/a.log",
            "sub/keep.log",
            "sub/.gitignore",
            "sub/b.md",
            "sub/deep/c.md",
            "build/out.js",
            "vendor/v.js",
            "excluded/e.txt",
            "z.tmp",
            "docs/x/gen/g.md",
            "docs/x/real.md",
            "node_modules/pkg/index.js",
            "nested/.git/HEAD",
            "nested/inner.log",
            "nested/inner.tmp",
            "nested/sub/n.md",
        ] {
            write(r, file, "x\n");
        }
        write(r, "sub/.gitignore", "b.md\n!a.log\ndeep/\n");
        // A linked worktree: its `.git` file names a git directory (by its
        // absolute path, as git writes it) whose `commondir` holds
        // `info/exclude`.
        let gitdir = format!("gitdir: {}\n", r.join("gitdirs/wt").display());
        write(r, "wt/.git", &gitdir);
        write(r, "gitdirs/wt/commondir", "../common\n");
        write(r, "gitdirs/common/info/exclude", "*.wtx\n");
        write(r, "wt/a.wtx", "x\n");
        write(r, "wt/b.md", "x\n");
        write(r, "nested/.gitignore", "sub/\n");
        (dir, Utf8PathBuf::from_path_buf(root).unwrap())
    }

    #[test]
    fn the_walk_finds_what_the_ignore_crates_walk_finds() {
        let (_dir, root) = tree();
        let walked = walk(&root, None);
        let files: BTreeSet<String> = walked.files.iter().cloned().collect();
        let dirs: BTreeSet<String> = walked.dirs.iter().map(|(d, _)| d.clone()).collect();
        let (crate_files, crate_dirs) = crate_walk(&root);
        pretty_assertions::assert_eq!(files, crate_files);
        pretty_assertions::assert_eq!(dirs, crate_dirs);
        // And the tree holds something of each kind.
        for kept in [
            "sub/a.log",
            "sub/keep.log",
            "build/out.js",
            "docs/x/real.md",
        ] {
            assert!(files.contains(kept), "{kept}");
        }
        for left in [
            "x.secret",
            "only-root.txt",
            "z.tmp",
            "sub/b.md",
            "vendor/v.js",
            "wt/a.wtx",
        ] {
            assert!(!files.contains(left), "{left}");
        }
        assert!(walked.cuts.is_empty(), "{:?}", walked.cuts);
    }

    #[test]
    fn the_global_excludes_file_counts_last() {
        let (dir, root) = tree();
        let global = dir.path().join("global-ignore");
        fs::write(&global, "*.md\n!b.md\n").unwrap();
        let walked = walk(&root, Some(global));
        let files: BTreeSet<&str> = walked.files.iter().map(String::as_str).collect();
        // `sub/.gitignore` ignores `b.md` before the global file can keep it.
        assert!(!files.contains("sub/b.md") && !files.contains("docs/x/real.md"));
        assert!(files.contains("a.txt"));
    }

    #[test]
    fn only_the_chain_being_walked_is_kept() {
        // Siblings each with a large ignore file do not add up: each is in
        // force only inside its own directory.
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        let mut big = String::new();
        while (big.len() as u64) < MAX_IGNORE_FILE_BYTES - 16 {
            big.push_str("f12345\n");
        }
        for i in 0..8 {
            write(root.as_std_path(), &format!("p{i}/.gitignore"), &big);
            write(root.as_std_path(), &format!("p{i}/a.md"), "x\n");
        }
        let walked = walk(&root, None);
        assert!(walked.cuts.is_empty(), "{:?}", walked.cuts);
        assert_eq!(
            walked.files.iter().filter(|f| f.ends_with("a.md")).count(),
            8
        );
    }
}
