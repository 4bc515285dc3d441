//! The index compared with the worktree through gix's plumbing, with no filter driver, diff driver or other program able to run.
//!
//! gix's status, as [`gix::Repository::status`] sets it up, compares a
//! tracked file's content through the filter pipeline the configuration
//! describes: a `filter.<driver>.clean` or `.process` program (from the
//! repository's `.git/config`, a file it includes, or the user's global
//! configuration) runs for every file whose attributes name the driver. A
//! repository jit is started in is untrusted input, so the comparison here
//! is set up by hand from the same parts, with two differences made at the
//! source:
//!
//! * the filter pipeline has no driver at all (and the diff pipeline no
//!   diff driver, so no `textconv` or external diff either): no setting
//!   can make the comparison spawn a process;
//! * a tracked file whose comparison would have needed a driver (its
//!   `filter` attribute names one with a `clean` or `process` program)
//!   counts as changed without its content being read: a conservative
//!   signal instead of a command. A file its `stat` data proves unchanged
//!   needs no comparison, and is not listed.
//!
//! Submodules are checked the same way, through this crate's own status of
//! the submodule's worktree rather than gix's, which would set up the
//! submodule's filter pipeline from its configuration.
//!
//! Nothing else gix does during a status runs a program: `core.fsmonitor`
//! is not implemented by the gix features this crate enables, hooks run
//! only when something is written (nothing is), and credential helpers,
//! `core.askPass` and `core.sshCommand` serve remote operations only.

use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::dir::walk::EmissionMode;
use gix::status::plumbing::index_as_worktree::EntryStatus;
use gix::status::plumbing::index_as_worktree::traits::{
    CompareBlobs, FastEq, ReadData, SubmoduleStatus,
};
use gix::status::plumbing::index_as_worktree_with_renames as with_renames;
use gix::worktree::stack::state::{attributes, ignore};

use crate::status::{Changed, GitChanges, changed_paths_of};

/// What the worktree pass looks at besides the tracked files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Untracked {
    /// Untracked files are listed one by one (`-uall`).
    Files,
    /// No directory walk: tracked files only.
    None,
}

/// Adds to `changed` every tracked file of `index` that differs from the
/// worktree and, with [`Untracked::Files`], every untracked file, limited
/// to `patterns` (a pathspec; empty for the whole worktree); returns how
/// many directories the walk could not read.
///
/// `git` says how submodules found in `index` are opened for their own
/// status.
pub(crate) fn index_worktree(
    repo: &gix::Repository,
    index: &gix::index::State,
    patterns: &[BString],
    untracked: Untracked,
    git: &GitChanges,
    changed: &mut Changed,
) -> Result<u32, gix::Error> {
    let Some(workdir) = repo.workdir() else {
        return Ok(0);
    };
    let (resource_cache, drivers) = without_drivers(repo, index, workdir)?;
    let pathspec = repo
        .pathspec(
            false,
            patterns,
            true,
            index,
            attributes::Source::WorktreeThenIdMapping,
        )?
        .into_parts()
        .0;
    let objects = repo
        .objects
        .clone()
        .into_arc()
        .map_err(gix::Error::from_error)?;
    let compare = Compare::new(repo, index, &drivers, objects.clone())?;
    let submodules = Submodules {
        repo: repo.clone().into_sync(),
        git: git.clone(),
    };
    let fs = repo.filesystem_options()?;
    let ignore_case_lookup = fs.ignore_case.then(|| index.prepare_icase_backing());
    let git_dir_realpath = gix::path::realpath_opts(
        repo.git_dir(),
        repo.current_dir(),
        gix::path::realpath::MAX_SYMLINKS,
    )
    .map_err(gix::Error::from_error)?;
    let outcome = gix::status::plumbing::index_as_worktree_with_renames(
        index,
        workdir,
        &mut Collect { changed },
        compare,
        submodules,
        objects,
        &mut gix::progress::Discard,
        with_renames::Context {
            pathspec,
            resource_cache,
            should_interrupt: &AtomicBool::new(false),
            dirwalk: with_renames::DirwalkContext {
                git_dir_realpath: &git_dir_realpath,
                current_dir: repo.current_dir(),
                ignore_case_index_lookup: ignore_case_lookup.as_ref(),
            },
        },
        with_renames::Options {
            sorting: None,
            tracked_file_modifications: gix::status::plumbing::index_as_worktree::Options {
                fs,
                stat: repo.stat_options()?,
                ..Default::default()
            },
            fscache: false,
            dirwalk: dirwalk_options(repo, untracked)?,
            // Rename detection only pairs paths that are listed anyway (a
            // rename is a deletion plus an addition), and it would diff.
            rewrites: None,
        },
    )?;
    Ok(outcome.dirwalk.map_or(0, |dirwalk| dirwalk.read_dir_errors))
}

/// The parts gix's status compares file contents with (attributes,
/// ignore files, a filter pipeline, a diff pipeline), set up as gix sets
/// them up but with no filter driver and no diff driver; and the names of
/// the filter drivers taken out that have a `clean` or `process` program,
/// to tell which files would have needed one.
fn without_drivers(
    repo: &gix::Repository,
    index: &gix::index::State,
    workdir: &std::path::Path,
) -> Result<(gix::diff::blob::Platform, Vec<BString>), gix::Error> {
    let attributes_and_ignores = repo
        .attributes(
            index,
            attributes::Source::WorktreeThenIdMapping,
            ignore::Source::WorktreeThenIdMappingIfNotSkipped,
            None,
        )?
        .detach();
    // gix's own filter options (end-of-line conversion, encodings…), with
    // the drivers taken out.
    let mut filter_options = gix::filter::Pipeline::options(repo)?;
    let drivers: Vec<BString> = std::mem::take(&mut filter_options.drivers)
        .into_iter()
        .filter(|driver| driver.clean.is_some() || driver.process.is_some())
        .map(|driver| driver.name)
        .collect();
    let filter = gix::filter::plumbing::Pipeline::new(
        // The context only ever reaches driver programs, and there are none.
        gix::command::Context::default(),
        repo.object_hash(),
        filter_options,
    );
    let resource_cache = gix::diff::blob::Platform::new(
        gix::diff::blob::platform::Options::default(),
        gix::diff::blob::Pipeline::new(
            gix::diff::blob::pipeline::WorktreeRoots {
                old_root: None,
                new_root: Some(workdir.to_owned()),
            },
            filter,
            // No diff driver: no `textconv`, no external diff. (Nothing is
            // diffed anyway: rename tracking is off.)
            Vec::new(),
            gix::diff::blob::pipeline::Options::default(),
        ),
        gix::diff::blob::pipeline::Mode::ToGit,
        attributes_and_ignores,
    );
    Ok((resource_cache, drivers))
}

/// The directory walk `git status --porcelain -uall` does: each untracked
/// file on its own, no ignored file, no empty directory; none for
/// [`Untracked::None`].
fn dirwalk_options(
    repo: &gix::Repository,
    untracked: Untracked,
) -> Result<Option<gix::dir::walk::Options<'static>>, gix::Error> {
    Ok(match untracked {
        Untracked::Files => Some(
            repo.dirwalk_options()?
                .emit_untracked(EmissionMode::Matching)
                .emit_ignored(None)
                .emit_empty_directories(false)
                .into(),
        ),
        Untracked::None => None,
    })
}

/// Compares a tracked file with its index entry as gix's [`FastEq`] does,
/// except that a file whose comparison needs a filter driver counts as
/// changed without being read.
#[derive(Clone)]
struct Compare<'a> {
    /// The index's path storage, to name an entry.
    paths: &'a gix::index::PathStorageRef,
    /// The configured filter drivers that have a `clean` or `process`
    /// program; usually none.
    drivers: &'a [BString],
    /// The attributes stack, when there are drivers to look for.
    attributes: Option<gix::worktree::Stack>,
    objects: gix::OdbHandleArc,
}

impl<'a> Compare<'a> {
    /// A comparison of the entries of `index` that looks for `drivers`.
    fn new(
        repo: &gix::Repository,
        index: &'a gix::index::State,
        drivers: &'a [BString],
        objects: gix::OdbHandleArc,
    ) -> Result<Self, gix::Error> {
        // Without drivers there is nothing to look for: no attribute
        // stack, no lookup per file.
        let attributes = if drivers.is_empty() {
            None
        } else {
            Some(
                repo.attributes_only(index, attributes::Source::WorktreeThenIdMapping)?
                    .detach(),
            )
        };
        Ok(Compare {
            paths: index.path_backing(),
            drivers,
            attributes,
            objects,
        })
    }

    /// Whether `entry`'s `filter` attribute names one of the drivers.
    fn needs_a_driver(&mut self, entry: &gix::index::Entry) -> Result<bool, gix::Error> {
        let Some(stack) = self.attributes.as_mut() else {
            return Ok(false);
        };
        let mut outcome = gix::attrs::search::Outcome::default();
        outcome.initialize_with_selection(&Default::default(), ["filter"]);
        let platform = stack
            .at_entry(entry.path_in(self.paths), Some(entry.mode), &self.objects)
            .map_err(gix::Error::from_error)?;
        platform.matching_attributes(&mut outcome);
        Ok(outcome
            .iter_selected()
            .any(|found| match found.assignment.state {
                gix::attrs::StateRef::Value(name) => {
                    let name = name.as_bstr();
                    self.drivers.iter().any(|driver| driver == name)
                }
                _ => false,
            }))
    }
}

impl CompareBlobs for Compare<'_> {
    type Output = ();

    fn compare_blobs<'a, 'b>(
        &mut self,
        entry: &gix::index::Entry,
        worktree_blob_size: u64,
        data: impl ReadData<'a>,
        buf: &mut Vec<u8>,
    ) -> Result<Option<()>, gix::Error> {
        // A size that differs is a change without a read, as in `FastEq`
        // (and git): no driver would be asked either.
        if u64::from(entry.stat.size) != worktree_blob_size
            && (entry.id.is_empty_blob() || entry.stat.size != 0)
        {
            return Ok(Some(()));
        }
        if self.needs_a_driver(entry)? {
            return Ok(Some(()));
        }
        FastEq.compare_blobs(entry, worktree_blob_size, data, buf)
    }
}

/// The status of a submodule, as git's default: dirty when its checkout
/// is at another commit than the index records, or (unless its `ignore`
/// setting says otherwise) when its own status lists anything. Its own
/// status is this crate's, so no program runs there either.
#[derive(Clone)]
struct Submodules {
    repo: gix::ThreadSafeRepository,
    git: GitChanges,
}

impl SubmoduleStatus for Submodules {
    type Output = ();

    fn status(
        &mut self,
        entry: &gix::index::Entry,
        rela_path: &BStr,
    ) -> Result<Option<()>, gix::Error> {
        use gix::submodule::config::Ignore;
        let repo = self.repo.to_thread_local();
        let ignore = submodule_ignore(&repo, rela_path)?;
        if ignore == Ignore::All {
            return Ok(None);
        }
        let Some(workdir) = repo.workdir() else {
            return Ok(None);
        };
        let checkout = workdir.join(gix::path::from_bstr(rela_path)?);
        // Not checked out (not initialised, or its worktree emptied): git
        // does not call that a change.
        if std::fs::symlink_metadata(checkout.join(".git")).is_err() {
            return Ok(None);
        }
        let submodule = gix::open_opts(&checkout, self.git.open_options())?;
        let head = submodule.head_id().ok().map(gix::Id::detach);
        if head != Some(entry.id) {
            return Ok(Some(()));
        }
        if ignore == Ignore::Dirty {
            return Ok(None);
        }
        let untracked = if ignore == Ignore::Untracked {
            Untracked::None
        } else {
            Untracked::Files
        };
        let (changed, _) = changed_paths_of(&submodule, b"", untracked, &self.git)?;
        Ok((!changed.paths.is_empty()).then_some(()))
    }
}

/// The `ignore` setting of the submodule at `rela_path`, as gix's status
/// reads it: `diff.ignoreSubmodules` from a trusted file, else the
/// submodule's own `submodule.<name>.ignore`, else none.
fn submodule_ignore(
    repo: &gix::Repository,
    rela_path: &BStr,
) -> Result<gix::submodule::config::Ignore, gix::Error> {
    let key = &gix::config::tree::Diff::IGNORE_SUBMODULES;
    let global = repo
        .config_snapshot()
        .plumbing()
        .string_filter(key, &mut gix::config::section::is_trusted)
        // An invalid value is left aside, as gix's lenient reading does.
        .and_then(|value| key.try_into_ignore(value).ok());
    if let Some(ignore) = global {
        return Ok(ignore);
    }
    if let Some(submodules) = repo.submodules()? {
        for submodule in submodules {
            if submodule.path()?.as_bstr() == rela_path {
                return Ok(submodule.ignore()?.unwrap_or_default());
            }
        }
    }
    Ok(Default::default())
}

/// Collects the worktree pass's findings into a [`Changed`].
struct Collect<'a> {
    changed: &'a mut Changed,
}

impl<'index> with_renames::VisitEntry<'index> for Collect<'_> {
    type ContentChange = ();
    type SubmoduleStatus = ();

    fn visit_entry(&mut self, entry: with_renames::Entry<'index, (), ()>) {
        match entry {
            with_renames::Entry::Modification {
                rela_path, status, ..
            } => {
                // `NeedsUpdate` means only the stat data was stale and the
                // content is unchanged: git lists nothing for it.
                if !matches!(status, EntryStatus::NeedsUpdate(_)) {
                    self.changed.paths.insert(rela_path.to_owned());
                }
            }
            with_renames::Entry::DirectoryContents { entry, .. } => {
                self.changed.add_dirwalk_entry(entry);
            }
            with_renames::Entry::Rewrite {
                source,
                dirwalk_entry,
                ..
            } => {
                self.changed.paths.insert(source.rela_path().to_owned());
                self.changed.add_dirwalk_entry(dirwalk_entry);
            }
        }
    }
}

#[cfg(test)]
mod tests;
