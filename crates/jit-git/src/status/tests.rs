//! The indexes of some entries that the status hands gix.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use gix::bstr::BString;

use super::{ignore_and_attribute_files, only, walked_entries};
use crate::test_repo::Repo;

const FILES: &[&str] = &[
    ".gitignore",
    "a/.gitattributes",
    "a/a0",
    "a/b/b0",
    "a/b/c/x",
    "a/b/c/y",
    "a/bb/z",
    "d/e",
];

fn paths(index: &gix::index::State, positions: &[usize]) -> Vec<String> {
    positions
        .iter()
        .map(|&position| index.entries()[position].path(index).to_string())
        .collect()
}

#[test]
fn a_walk_looks_up_the_entries_under_its_directories_and_one_above_each() {
    let repo = Repo::with_commit(FILES);
    let index = repo.opened().open_index().unwrap();
    let walk = |dirs: &[&str]| {
        let dirs: Vec<BString> = dirs.iter().map(|dir| BString::from(*dir)).collect();
        paths(&index, &walked_entries(&index, &dirs))
    };
    assert_eq!(
        walk(&["a/b/c"]),
        ["a/.gitattributes", "a/b/b0", "a/b/c/x", "a/b/c/y"]
    );
    assert_eq!(walk(&["a/b/c", "d"]).last().unwrap(), "d/e");
    assert_eq!(
        walk(&["a/b"]),
        ["a/.gitattributes", "a/b/b0", "a/b/c/x", "a/b/c/y"]
    );
    // `a/b` is not `a/bb`; a directory with nothing tracked has no entry.
    assert_eq!(walk(&["a/bb"]), ["a/.gitattributes", "a/bb/z"]);
    assert_eq!(walk(&["new/dir"]), Vec::<String>::new());
}

#[test]
fn an_index_of_some_entries_keeps_the_attributes_and_ignore_files() {
    let repo = Repo::with_commit(FILES);
    let index = repo.opened().open_index().unwrap();
    let wanted = [4, 7];
    assert_eq!(paths(&index, &wanted), ["a/b/c/x", "d/e"]);
    let rule_files = ignore_and_attribute_files(&index);
    assert_eq!(
        paths(&index, &rule_files),
        [".gitignore", "a/.gitattributes"]
    );
    let some = only(&repo.opened(), &index, &wanted, &rule_files);
    let kept: Vec<String> = some
        .entries()
        .iter()
        .map(|entry| entry.path(&some).to_string())
        .collect();
    assert_eq!(kept, [".gitignore", "a/.gitattributes", "a/b/c/x", "d/e"]);
    assert_eq!(some.timestamp(), index.timestamp());
    // A position in both lists is kept once.
    let twice = only(&repo.opened(), &index, &[1, 4], &rule_files);
    assert_eq!(twice.entries().len(), 3);
}
