//! The repository as the linter sees it: the files git tracks or would track, the directories the engine may walk, and the folders it never enters.

use std::collections::{BTreeSet, HashSet};
use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

/// How many directory entries the search of ignored folders and `.git` for
/// stray rule files reads at most, and how deep it goes: a `node_modules`
/// can hold a million files, and a rule deep inside one matters little.
const STRAY_ENTRY_BUDGET: usize = 20_000;
const STRAY_MAX_DEPTH: usize = 4;

/// What one scan of the repository found.
#[derive(Debug, Default)]
pub(super) struct Repo {
    /// The root, canonical.
    pub root: Utf8PathBuf,
    /// Files git tracks or would track (untracked but not ignored),
    /// root-relative, sorted.
    pub files: Vec<String>,
    /// Directories the walk entered (not ignored), root-relative, `""` for
    /// the root, sorted; with the names of their entries.
    pub dirs: Vec<(String, HashSet<String>)>,
    /// Folders the walk did not enter: `.git` and ignored folders,
    /// root-relative.
    pub skipped_dirs: Vec<String>,
    /// Whether the root is inside a git worktree.
    pub git: bool,
    /// Ignore files the walk honoured only in part, or not at all.
    pub ignore_cuts: Vec<super::walk::IgnoreCut>,
}

impl Repo {
    /// Scans `root`: the git index (when there is one) plus a walk that
    /// honours `.gitignore`, `.git/info/exclude` and the global excludes
    /// (see [`super::walk`]).
    pub(super) fn scan(root: &Utf8Path) -> anyhow::Result<Repo> {
        let mut files: BTreeSet<String> = BTreeSet::new();
        let git = match jit_git::GitChanges::new().tracked_files(root.as_std_path()) {
            Ok(tracked) => {
                files.extend(tracked.files);
                true
            }
            Err(_) => false,
        };
        let global = ignore::gitignore::gitconfig_excludes_path();
        let walked = super::walk::walk(root, global);
        files.extend(walked.files);
        let mut listed = walked.dirs;
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut skipped_dirs = walked.skipped_dirs;
        skipped_dirs.sort();
        Ok(Repo {
            root: root.to_owned(),
            files: files.into_iter().collect(),
            dirs: listed,
            skipped_dirs,
            git,
            ignore_cuts: walked.cuts,
        })
    }

    /// Files below the skipped folders (`.git`, ignored folders) for which
    /// `wanted` holds, root-relative, each with the skipped folder it is in.
    /// The search is bounded (see [`STRAY_ENTRY_BUDGET`]).
    pub(super) fn stray_files(&self, wanted: impl Fn(&str) -> bool) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut budget = STRAY_ENTRY_BUDGET;
        for top in &self.skipped_dirs {
            let mut stack = vec![(top.clone(), 0usize)];
            while let Some((dir, depth)) = stack.pop() {
                let Ok(entries) = fs::read_dir(self.root.join(&dir)) else {
                    continue;
                };
                for entry in entries.flatten() {
                    if budget == 0 {
                        return out;
                    }
                    budget -= 1;
                    let Ok(name) = entry.file_name().into_string() else {
                        continue;
                    };
                    let path = join(&dir, &name);
                    match entry.file_type() {
                        Ok(t) if t.is_dir() => {
                            // Git's object store holds no rule files.
                            let objects = dir == ".git" && name == "objects";
                            if depth < STRAY_MAX_DEPTH && !objects {
                                stack.push((path, depth + 1));
                            }
                        }
                        Ok(t) if t.is_file() && wanted(&path) => out.push((path, top.clone())),
                        _ => {}
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Every file and every directory marker (`src/ui/`) of the repository:
    /// what a scope pattern can match, as the engine's subjects look.
    pub(super) fn subjects(&self) -> Vec<String> {
        let mut markers: BTreeSet<&str> = BTreeSet::new();
        for file in &self.files {
            let mut rest = file.as_str();
            while let Some((dir, _)) = rest.rsplit_once('/') {
                if !markers.insert(dir) {
                    break;
                }
                rest = dir;
            }
        }
        let mut out = self.files.clone();
        out.extend(markers.into_iter().map(|d| format!("{d}/")));
        out
    }
}

/// `dir/name`, or `name` at the root.
pub(super) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}
