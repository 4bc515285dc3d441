//! The changed files of a worktree, read through gix: the equivalent of `git status --porcelain -z -uall`.

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use camino::{Utf8Path, Utf8PathBuf};
use gix::bstr::{BStr, BString, ByteSlice};
use jit_base::{ChangeSet, ChangeSource};

use crate::error::{Error, ErrorKind};
use crate::staged::staged_paths;
use crate::worktree::{Untracked, index_worktree};
use crate::{stat_check, untracked_cache};

/// Lists a worktree's changed files through gix, without spawning `git`.
///
/// The answer holds the same paths as `git status --porcelain -z -uall`:
/// staged, modified, deleted, renamed (both the old and the new path, as the
/// porcelain prints both), unmerged, intent-to-add and untracked files, each
/// untracked file on its own line, ignored files left out. An untracked
/// nested repository is listed as its directory with a trailing `/`, as git
/// lists it.
///
/// `root` may be the worktree root or any directory inside it; paths are
/// relative to `root` and only changes inside `root` are listed.
///
/// An untracked cache in the index (`core.untrackedCache`) answers for the
/// directories unchanged since git wrote it; the crate documentation says
/// when it is trusted.
///
/// By default the user's and the system's git configuration are read, as
/// `git` itself does (they decide, for example, `core.excludesFile`).
/// [`GitChanges::repository_config_only`] reads only the repository's own
/// configuration and no environment variables, for reproducible runs.
///
/// Whatever any configuration says, no program runs: no filter driver
/// (`filter.<driver>.clean`, `.smudge`, `.process`), no `textconv` or
/// external diff, no `core.fsmonitor` hook, no hook, no credential helper
/// or `core.askPass`. A tracked file whose comparison would need a filter
/// driver counts as changed instead (unless its `stat` data proves it
/// unchanged, which needs no comparison).
#[derive(Debug, Clone, Default)]
pub struct GitChanges {
    repository_config_only: bool,
}

impl GitChanges {
    /// A source that reads git configuration the way `git` does.
    pub fn new() -> Self {
        Self::default()
    }

    /// Read only the repository's own configuration (`.git/config`), never
    /// the system or global files nor `GIT_*` environment variables.
    ///
    /// This matches `git` run with `GIT_CONFIG_NOSYSTEM=1` and
    /// `GIT_CONFIG_GLOBAL=/dev/null`.
    pub fn repository_config_only(mut self) -> Self {
        self.repository_config_only = true;
        self
    }

    /// The changed files under `root`, relative to `root` and `/`-separated.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] if `root` cannot be resolved,
    /// [`ErrorKind::NotARepository`] if neither `root` nor a parent is a git
    /// repository, [`ErrorKind::NoWorktree`] for a bare repository,
    /// [`ErrorKind::OutsideWorktree`] if `root` is not inside the worktree,
    /// and [`ErrorKind::Git`] when gix cannot read the repository.
    pub fn changes(&self, root: &Path) -> Result<ChangeSet, Error> {
        let root = canonical_root(root)?;
        let repo = self.open(&root)?;
        let prefix = worktree_prefix(&repo, &root)?;
        let paths = changed_paths(&repo, &root, &prefix, self)?;
        Ok(relative_to_prefix(paths, &prefix))
    }

    /// How every repository is opened, the one found from a root and the
    /// submodules in it.
    pub(crate) fn open_options(&self) -> gix::open::Options {
        if self.repository_config_only {
            gix::open::Options::isolated()
        } else {
            gix::open::Options::default()
        }
        // The index is read as `git status` reads it: without hashing the
        // whole file to check its trailing checksum, which git does only
        // in `git fsck` (on a 100,000-file repository the index is 12 MB
        // and hashing it a tenth of the start).
        .config_overrides(["index.skipHash=true"])
    }

    pub(crate) fn open(&self, root: &Path) -> Result<gix::Repository, Error> {
        gix::discover_opts(root, Default::default(), self.open_options()).map_err(|err| {
            let kind = match err.downcast_any_ref::<gix::discover::upwards::Error>() {
                Some(
                    gix::discover::upwards::Error::NoGitRepository { .. }
                    | gix::discover::upwards::Error::NoGitRepositoryWithinCeiling { .. }
                    | gix::discover::upwards::Error::NoGitRepositoryWithinFs { .. },
                ) => ErrorKind::NotARepository,
                _ => ErrorKind::Git,
            };
            let message = match kind {
                ErrorKind::NotARepository => format!(
                    "{} is not inside a git repository (no repository in it or any parent directory)",
                    root.display()
                ),
                _ => format!(
                    "cannot open the git repository of {}: {}",
                    root.display(),
                    describe(&err)
                ),
            };
            Error::with_source(kind, message, err)
        })
    }
}

impl ChangeSource for GitChanges {
    fn changed_files(
        &self,
        root: &Utf8Path,
    ) -> Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>> {
        Ok(self.changes(root.as_std_path())?)
    }
}

/// `root` resolved to its real path, or an [`ErrorKind::Io`] error naming it.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(root).map_err(|err| {
        Error::with_source(
            ErrorKind::Io,
            format!("cannot resolve {}: {err}", root.display()),
            err,
        )
    })
}

/// The changed files under `root`, read the way `git` would (see [`GitChanges`]).
///
/// ```no_run
/// let changes = jit_git::changed_files(std::path::Path::new("."))?;
/// for file in &changes.files {
///     println!("{file}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`GitChanges::changes`].
pub fn changed_files(root: &Path) -> Result<ChangeSet, Error> {
    GitChanges::new().changes(root)
}

/// The path of `root` inside the worktree, as `/`-separated bytes without a
/// trailing `/` (empty at the worktree root itself).
pub(crate) fn worktree_prefix(repo: &gix::Repository, root: &Path) -> Result<BString, Error> {
    let Some(workdir) = repo.workdir() else {
        return Err(Error::new(
            ErrorKind::NoWorktree,
            format!(
                "the git repository {} found from {} is bare: it has no working tree",
                repo.git_dir().display(),
                root.display()
            ),
        ));
    };
    // The worktree is resolved like `root` so that a symlinked spelling of
    // either one still yields the right prefix.
    let workdir: PathBuf = std::fs::canonicalize(workdir).map_err(|err| {
        Error::with_source(
            ErrorKind::Io,
            format!(
                "cannot resolve the working tree {} of {}: {err}",
                workdir.display(),
                root.display()
            ),
            err,
        )
    })?;
    let outside = || {
        Error::new(
            ErrorKind::OutsideWorktree,
            format!(
                "{} is not inside the working tree {}",
                root.display(),
                workdir.display()
            ),
        )
    };
    let relative = root.strip_prefix(&workdir).map_err(|_| outside())?;
    let mut prefix = BString::default();
    for component in relative.components() {
        let std::path::Component::Normal(name) = component else {
            return Err(outside());
        };
        if name == ".git" {
            return Err(outside());
        }
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(gix::path::os_str_into_bstr(name).map_err(|_| outside())?);
    }
    Ok(prefix)
}

/// Every path `git status --porcelain -z -uall` would print, repository-relative,
/// limited to `prefix` (the directory of the worktree that `root` is, or
/// empty for the whole worktree), with a diagnostic when directories could
/// not be read.
fn changed_paths(
    repo: &gix::Repository,
    root: &Path,
    prefix: &[u8],
    git: &GitChanges,
) -> Result<Changed, Error> {
    let (mut changed, errors) =
        changed_paths_of(repo, prefix, Untracked::Files, git).map_err(|err| {
            let message = format!(
                "cannot read the git status of {}: {}",
                root.display(),
                describe(&err)
            );
            Error::with_source(ErrorKind::Git, message, err)
        })?;
    if errors > 0 {
        changed.diagnostics.push(format!(
            "{errors} directories under {} could not be read; untracked files in them are not listed",
            root.display()
        ));
    }
    Ok(changed)
}

/// The changed paths of `repo` under `prefix`, repository-relative, with
/// untracked files as `untracked` says; and how many directories could not
/// be read. Submodules in it are opened as `git` says.
///
/// When the index has an untracked cache that still holds for the
/// directories under `prefix` ([`untracked_cache`]), their untracked files
/// come from it and only the directories it cannot vouch for are walked.
pub(crate) fn changed_paths_of(
    repo: &gix::Repository,
    prefix: &[u8],
    untracked: Untracked,
    git: &GitChanges,
) -> Result<(Changed, u32), gix::Error> {
    let index = repo.index_or_empty()?;
    let head_tree = repo.head_tree_id_or_empty()?.detach();

    // A project root below the worktree root limits the walk to its
    // subtree, which matters in a large monorepo.
    let patterns: Vec<BString> = if prefix.is_empty() {
        Vec::new()
    } else {
        vec![literal_pattern(prefix)]
    };

    let mut changed = Changed::default();
    let errors = if index.is_sparse() {
        sparse_status(
            repo,
            &index,
            head_tree,
            &patterns,
            untracked,
            git,
            &mut changed,
        )?
    } else {
        let cached = match untracked {
            Untracked::Files => untracked_cache::listing(repo, &index, prefix, || {
                excludes_file(repo, git.repository_config_only)
            }),
            Untracked::None => None,
        };
        worktree_status(
            repo,
            &index,
            head_tree,
            (prefix, patterns),
            untracked,
            cached,
            git,
            &mut changed,
        )?
    };
    Ok((changed, errors))
}

/// The status of a sparse index into `changed`; how many directories could
/// not be read. A sparse index holds whole directories as entries, which
/// the cached-tree comparison does not handle: gix compares all of HEAD.
fn sparse_status(
    repo: &gix::Repository,
    index: &gix::index::State,
    head_tree: gix::ObjectId,
    patterns: &[BString],
    untracked: Untracked,
    git: &GitChanges,
    changed: &mut Changed,
) -> Result<u32, gix::Error> {
    let mut pathspec = repo.pathspec(
        false,
        patterns,
        true,
        index,
        gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping,
    )?;
    repo.tree_index_status(
        &head_tree,
        index,
        Some(&mut pathspec),
        gix::status::tree_index::TrackRenames::Disabled,
        |change, _, _| {
            let (location, source) = change_locations(&change);
            changed.paths.insert(location.to_owned());
            if let Some(source) = source {
                changed.paths.insert(source.to_owned());
            }
            Ok(std::ops::ControlFlow::Continue(()))
        },
    )?;
    index_worktree(repo, index, patterns, untracked, git, changed)
}

/// The status of a whole index into `changed`, its untracked files from
/// the untracked cache's `cached` listing when there is one, else as
/// `untracked` says; how many directories could not be read. `prefix` is
/// the worktree-relative directory the status is limited to, `patterns`
/// its pathspec.
///
/// With a listing, the tracked files are first compared with their `stat`
/// data ([`stat_check`]), and gix checks only those the comparison cannot
/// prove unchanged, from an index of just those entries.
#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one status, each used once"
)]
fn worktree_status(
    repo: &gix::Repository,
    index: &gix::index::State,
    head_tree: gix::ObjectId,
    (prefix, patterns): (&[u8], Vec<BString>),
    untracked: Untracked,
    cached: Option<untracked_cache::Listing>,
    git: &GitChanges,
    changed: &mut Changed,
) -> Result<u32, gix::Error> {
    with_staged(repo, index, head_tree, changed, |changed| {
        let Some(cached) = cached else {
            return index_worktree(repo, index, &patterns, untracked, git, changed);
        };
        // Found once for both indexes of some entries below, when one is made.
        let rule_files = OnceCell::new();
        let rule_files = || rule_files.get_or_init(|| ignore_and_attribute_files(index));
        let unproven = repo
            .workdir()
            .and_then(|workdir| stat_check::unproven(index, workdir, prefix));
        let mut errors = match unproven {
            Some(unproven) if unproven.is_empty() => 0,
            Some(unproven) => {
                let some = only(repo, index, &unproven, rule_files());
                index_worktree(repo, &some, &patterns, Untracked::None, git, changed)?
            }
            None => index_worktree(repo, index, &patterns, Untracked::None, git, changed)?,
        };
        changed.paths.extend(cached.files);
        if !cached.walk.is_empty() {
            // The directories the cache cannot vouch for, walked whole,
            // with the index entries the walk may look up (a pass over the
            // whole index costs as much again for every pathspec); their
            // tracked files are checked again, which only repeats answers
            // already in the set.
            let patterns: Vec<BString> =
                cached.walk.iter().map(|dir| literal_pattern(dir)).collect();
            let entries = only(
                repo,
                index,
                &walked_entries(index, &cached.walk),
                rule_files(),
            );
            errors += index_worktree(repo, &entries, &patterns, Untracked::Files, git, changed)?;
        }
        Ok(errors)
    })
}

/// Runs `worktree` on `changed` while the staged changes ([`staged_paths`])
/// are found on another thread, then adds them to `changed`.
fn with_staged(
    repo: &gix::Repository,
    index: &gix::index::State,
    head_tree: gix::ObjectId,
    changed: &mut Changed,
    worktree: impl FnOnce(&mut Changed) -> Result<u32, gix::Error>,
) -> Result<u32, gix::Error> {
    let staged_repo = repo.clone().into_sync();
    std::thread::scope(|scope| {
        let staged = scope.spawn(move || {
            let mut paths = BTreeSet::new();
            staged_paths(&staged_repo.to_thread_local(), index, head_tree, &mut paths)
                .map(|()| paths)
        });
        let errors = worktree(changed);
        let staged = staged
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        changed.paths.extend(staged);
        errors
    })
}

/// An index of the entries of `index` at the positions `wanted` and
/// `rule_files` (the [`ignore_and_attribute_files`] of `index`), in
/// `index`'s order, with `index`'s time, which decides what is racy.
fn only(
    repo: &gix::Repository,
    index: &gix::index::State,
    wanted: &[usize],
    rule_files: &[usize],
) -> gix::index::File {
    let mut positions: Vec<usize> = wanted.iter().chain(rule_files).copied().collect();
    positions.sort_unstable();
    positions.dedup();
    let mut state = gix::index::State::new(repo.object_hash());
    let entries = index.entries();
    for position in positions {
        let entry = &entries[position];
        state.dangerously_push_entry(
            entry.stat,
            entry.id,
            entry.flags,
            entry.mode,
            entry.path(index),
        );
    }
    state.set_timestamp(index.timestamp());
    gix::index::File::from_state(state, repo.index_path())
}

/// The positions of every `.gitattributes` and `.gitignore` entry of
/// `index`, which an index of some of its entries ([`only`]) keeps: gix
/// reads a comparison's attributes and a walk's ignore rules from the
/// worktree, and from the index it is given where the worktree has no such
/// file (one left out by a sparse checkout, say), wherever it is, under
/// the prefix or not.
fn ignore_and_attribute_files(index: &gix::index::State) -> Vec<usize> {
    index
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, entry)| {
            matches!(
                entry
                    .path(index)
                    .rsplit_str("/")
                    .next()
                    .map(ByteSlice::as_bytes),
                Some(b".gitattributes" | b".gitignore")
            )
        })
        .map(|(position, _)| position)
        .collect()
}

/// The positions of the index entries a walk of the directories `dirs`
/// (worktree-relative, none inside another) may look up, sorted: every
/// entry under them, and the first entry under each directory above them,
/// so that gix tells a tracked directory on the way from an untracked one
/// as it would with the whole index.
fn walked_entries(index: &gix::index::State, dirs: &[BString]) -> Vec<usize> {
    let mut positions = Vec::new();
    for dir in dirs {
        let mut prefix = BString::default();
        for name in dir.split_str("/") {
            prefix.extend_from_slice(name);
            prefix.push(b'/');
            let Some(range) = index.prefixed_entries_range(prefix.as_bstr()) else {
                continue;
            };
            if prefix.len() == dir.len() + 1 {
                positions.extend(range);
            } else if !range.is_empty() {
                positions.push(range.start);
            }
        }
    }
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// A pathspec for the directory `dir` (worktree-relative) and everything in
/// it. `top` makes it relative to the worktree root rather than to the
/// process's current directory, and `literal` keeps `*`, `?` and `[` in
/// names literal.
fn literal_pattern(dir: &[u8]) -> BString {
    let mut pattern = BString::from(":(top,literal)");
    pattern.extend_from_slice(dir);
    pattern
}

/// The global ignore file the status applies: `core.excludesFile` (a
/// relative path taken from the worktree's top, as git takes it), else
/// [`default_excludes_file`] unless only the repository's own
/// configuration is read.
pub(crate) fn excludes_file(
    repo: &gix::Repository,
    repository_config_only: bool,
) -> Option<PathBuf> {
    let configured = repo
        .config_snapshot()
        .trusted_path("core.excludesFile")
        .ok()
        .flatten();
    match configured {
        // An absolute path joined stays itself.
        Some(path) => Some(match repo.workdir() {
            Some(workdir) => workdir.join(path),
            None => path,
        }),
        None if repository_config_only => None,
        None => default_excludes_file(|name| std::env::var_os(name)),
    }
}

/// git's global ignore file when `core.excludesFile` is not set:
/// `$XDG_CONFIG_HOME/git/ignore`, else `$HOME/.config/git/ignore`, with
/// the environment read through `var`.
pub(crate) fn default_excludes_file(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let config_home = var("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config_home.join("git").join("ignore"))
}

/// The path of a staged change, and the old path of a staged rename or copy.
fn change_locations<'a>(
    change: &'a gix::diff::index::ChangeRef<'_, '_>,
) -> (&'a BStr, Option<&'a BStr>) {
    use gix::diff::index::ChangeRef;
    match change {
        ChangeRef::Rewrite {
            source_location,
            location,
            ..
        } => (location.as_ref(), Some(source_location.as_ref())),
        other => (other.location(), None),
    }
}

/// Repository-relative changed paths, collected from the status items.
#[derive(Default)]
pub(crate) struct Changed {
    pub(crate) paths: BTreeSet<BString>,
    pub(crate) diagnostics: Vec<String>,
}

impl Changed {
    /// Adds an untracked file or directory the walk found.
    pub(crate) fn add_dirwalk_entry(&mut self, entry: gix::dir::Entry) {
        use gix::dir::entry::{Kind, Status};
        if entry.status != Status::Untracked {
            return;
        }
        let mut path = entry.rela_path;
        // git never enters an untracked nested repository and prints it as
        // a directory, with a trailing `/`.
        if matches!(entry.disk_kind, Some(Kind::Repository | Kind::Directory)) {
            path.push(b'/');
        }
        self.paths.insert(path);
    }
}

/// Keeps the paths under `prefix`, relative to it, and turns non-UTF-8 paths
/// into diagnostics.
fn relative_to_prefix(changed: Changed, prefix: &[u8]) -> ChangeSet {
    let mut out = ChangeSet {
        files: Vec::with_capacity(changed.paths.len()),
        diagnostics: changed.diagnostics,
    };
    for path in changed.paths {
        let relative = if prefix.is_empty() {
            path.as_slice()
        } else {
            match path
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix(b"/"))
            {
                Some(rest) if !rest.is_empty() => rest,
                _ => continue,
            }
        };
        match std::str::from_utf8(relative) {
            Ok(text) => out.files.push(Utf8PathBuf::from(text)),
            Err(_) => out.diagnostics.push(format!(
                "git lists a changed path that is not valid UTF-8, so no rule can match it: {:?}",
                relative.as_bstr()
            )),
        }
    }
    out
}

/// gix's error with its causes, on one line.
pub(crate) fn describe(err: &gix::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.iter_errors() {
        let text = cause.to_string();
        if !text.is_empty() && !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.join(": ")
    }
}

#[cfg(test)]
mod tests;
