//! Staged changes: `HEAD`'s tree against the index, skipping every subtree the index's cached tree proves unchanged.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::extension::Tree as CachedTree;
use gix::index::{Entry, State};
use gix::object::tree::EntryKind;

/// Adds to `out` every path whose index entry differs from `head_tree`:
/// added, deleted, modified (content or kind), unmerged.
///
/// git keeps a cached tree in the index (the `TREE` extension): for each
/// directory, the id of the tree the index holds there, invalidated along the
/// path of every change. Where a directory's cached id equals `HEAD`'s tree id
/// for that directory, nothing in it is staged and it is skipped — the same
/// shortcut `git status` takes. Only the directories along staged changes are
/// read and compared entry by entry, instead of expanding all of `HEAD` into a
/// second index.
///
/// The index must not be sparse (a sparse index holds directories as entries).
pub(crate) fn staged_paths(
    repo: &gix::Repository,
    index: &State,
    head_tree: ObjectId,
    out: &mut BTreeSet<BString>,
) -> Result<(), gix::Error> {
    let head = (!head_tree.is_empty_tree()).then_some(head_tree);
    let mut diff = Diff { repo, index, out };
    diff.level(
        &mut BString::default(),
        head,
        index.tree(),
        0..index.entries().len(),
    )
}

struct Diff<'a> {
    repo: &'a gix::Repository,
    index: &'a State,
    out: &'a mut BTreeSet<BString>,
}

impl Diff<'_> {
    /// Compares the directory `prefix` (empty or ending in `/`) of `HEAD`
    /// (`head`, absent if `HEAD` has no such directory) with the index
    /// entries in `range`, all of which lie under `prefix`.
    fn level(
        &mut self,
        prefix: &mut BString,
        head: Option<ObjectId>,
        cached: Option<&CachedTree>,
        range: Range<usize>,
    ) -> Result<(), gix::Error> {
        if let (Some(head), Some(cached)) = (head, cached)
            && proves_unchanged(cached, head, range.len())
        {
            return Ok(());
        }
        let (mut head_files, mut head_dirs) = self.head_entries(head)?;
        let index = self.index;
        let entries = index.entries();
        let mut start = range.start;
        while start < range.end {
            let path = entries[start].path(index);
            let rest = &path[prefix.len()..];
            if let Some(slash) = rest.find_byte(b'/') {
                // Entries sharing a directory are contiguous in the sorted index.
                let dir = &path[..prefix.len() + slash + 1];
                let name = &rest[..slash];
                let end = start
                    + entries[start..range.end]
                        .partition_point(|entry| entry.path(index).starts_with(dir));
                match head_dirs.remove(name) {
                    Some(head_dir) => {
                        let child = cached.and_then(|cached| {
                            cached
                                .children
                                .iter()
                                .find(|child| child.name.as_slice() == name)
                        });
                        let saved = prefix.len();
                        prefix.extend_from_slice(&dir[saved..]);
                        self.level(prefix, Some(head_dir), child, start..end)?;
                        prefix.truncate(saved);
                    }
                    None => {
                        for entry in &entries[start..end] {
                            self.out.insert(entry.path(index).to_owned());
                        }
                    }
                }
                start = end;
            } else {
                let end = start
                    + entries[start..range.end].partition_point(|entry| entry.path(index) == path);
                if file_changed(&entries[start], end - start, head_files.remove(rest)) {
                    self.out.insert(path.to_owned());
                }
                start = end;
            }
        }
        self.head_only(prefix, head_files, head_dirs)
    }

    /// The files and the subdirectories of `HEAD`'s directory `head` (none
    /// when `HEAD` has no such directory), by name.
    fn head_entries(&self, head: Option<ObjectId>) -> Result<HeadEntries, gix::Error> {
        let mut head_files: BTreeMap<BString, (EntryKind, ObjectId)> = BTreeMap::new();
        let mut head_dirs: BTreeMap<BString, ObjectId> = BTreeMap::new();
        if let Some(head) = head {
            for entry in self.repo.find_tree(head)?.iter() {
                let entry = entry?;
                let name = entry.filename().to_owned();
                if entry.mode().is_tree() {
                    head_dirs.insert(name, entry.object_id());
                } else {
                    head_files.insert(name, (entry.kind(), entry.object_id()));
                }
            }
        }
        Ok((head_files, head_dirs))
    }

    /// Adds the files and the whole subdirectories of `HEAD`'s directory
    /// `prefix` that the index has nothing for: all staged deletions.
    fn head_only(
        &mut self,
        prefix: &mut BString,
        head_files: BTreeMap<BString, (EntryKind, ObjectId)>,
        head_dirs: BTreeMap<BString, ObjectId>,
    ) -> Result<(), gix::Error> {
        for name in head_files.keys() {
            self.out.insert(joined(prefix.as_bstr(), name.as_bstr()));
        }
        for (name, tree) in head_dirs {
            let saved = prefix.len();
            prefix.extend_from_slice(&name);
            prefix.push(b'/');
            self.all_files(prefix, tree)?;
            prefix.truncate(saved);
        }
        Ok(())
    }

    /// Adds every file of `HEAD`'s directory `prefix` (tree `tree`): the index
    /// has nothing there, so all of them are staged deletions.
    fn all_files(&mut self, prefix: &mut BString, tree: ObjectId) -> Result<(), gix::Error> {
        for entry in self.repo.find_tree(tree)?.iter() {
            let entry = entry?;
            if entry.mode().is_tree() {
                let saved = prefix.len();
                prefix.extend_from_slice(entry.filename());
                prefix.push(b'/');
                self.all_files(prefix, entry.object_id())?;
                prefix.truncate(saved);
            } else {
                self.out.insert(joined(prefix.as_bstr(), entry.filename()));
            }
        }
        Ok(())
    }
}

/// The entries of one directory of `HEAD`, by name: its files with their
/// kind and id, and its subdirectories with their tree id.
type HeadEntries = (
    BTreeMap<BString, (EntryKind, ObjectId)>,
    BTreeMap<BString, ObjectId>,
);

/// Whether the index entry `entry`, one of `count` for its path (more than
/// one when it is unmerged), differs from `HEAD`'s file there (`head`,
/// absent if none).
fn file_changed(entry: &Entry, count: usize, head: Option<(EntryKind, ObjectId)>) -> bool {
    match head {
        None => true,
        Some((kind, id)) => {
            count > 1
                || entry.stage_raw() != 0
                || entry.id != id
                || entry.mode.to_tree_entry_mode().map(|mode| mode.kind()) != Some(kind)
        }
    }
}

/// Whether the cached tree of a directory proves that the index holds exactly
/// `head` there. Any doubt (an invalidated node, an entry count that does not
/// add up, which git itself says can happen) means comparing entry by entry.
fn proves_unchanged(cached: &CachedTree, head: ObjectId, entries: usize) -> bool {
    cached.id == head
        && cached
            .num_entries
            .is_some_and(|count| usize::try_from(count).is_ok_and(|count| count == entries))
}

fn joined(prefix: &BStr, name: &BStr) -> BString {
    let mut path = BString::from(prefix.to_vec());
    path.extend_from_slice(name);
    path
}
