//! The `stat` comparison against repositories `git` wrote: a worktree as
//! git last saw it is proven unchanged, every kind of change and every
//! entry gix must look at itself is left to gix.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use std::time::{Duration, SystemTime};

use gix::bstr::ByteSlice;
use gix::index::entry::stat::Time;
use gix::index::entry::{Flags, Mode};
use rustix::fd::AsFd;

use super::linux::{FEWEST_TO_GIVE_UP, open_dir, same_on_disk, same_time};
use super::{provable, unproven};
use crate::test_repo::{Repo, backdate, backdate_files};

impl Repo {
    /// Dates the whole worktree a minute back and lets `git status`
    /// record every file's `stat` data in an index written now: the
    /// worktree exactly as git last saw it.
    fn settle(&self) {
        let past = SystemTime::now() - Duration::from_secs(60);
        backdate_files(self.root(), past);
        backdate(self.root(), past);
        self.git(&["status", "--porcelain"]);
    }

    fn index(&self) -> gix::index::File {
        let repo = self.opened();
        repo.open_index().unwrap()
    }

    /// The paths the comparison leaves to gix under `prefix`.
    fn unproven(&self, prefix: &str) -> Vec<String> {
        let index = self.index();
        let positions = unproven(&index, self.root(), prefix.as_bytes()).unwrap();
        positions
            .into_iter()
            .map(|position| index.entries()[position].path(&index).to_string())
            .collect()
    }
}

const FILES: &[&str] = &[
    "README.md",
    "src/main.rs",
    "src/ui/Badge.tsx",
    "src/ui/Card.tsx",
];

#[test]
fn a_worktree_as_git_last_saw_it_is_proven_unchanged() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    assert_eq!(repo.unproven(""), Vec::<String>::new());
}

#[test]
fn every_kind_of_change_is_left_to_gix() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    // The same size, other bytes; a deletion; the executable bit.
    repo.write("README.md", "CONTENT OF README.md\n");
    std::fs::remove_file(repo.root().join("src/main.rs")).unwrap();
    let card = repo.root().join("src/ui/Card.tsx");
    let mut permissions = std::fs::metadata(&card).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&card, permissions).unwrap();
    assert_eq!(
        repo.unproven(""),
        ["README.md", "src/main.rs", "src/ui/Card.tsx"]
    );
}

#[test]
fn files_behind_a_directory_turned_into_a_link_are_left_to_gix() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    // Moved whole, the files keep every field of their `stat` data: only
    // the link on their path tells them apart.
    std::fs::rename(repo.root().join("src/ui"), repo.root().join("moved")).unwrap();
    std::os::unix::fs::symlink("../moved", repo.root().join("src/ui")).unwrap();
    assert_eq!(repo.unproven(""), ["src/ui/Badge.tsx", "src/ui/Card.tsx"]);
    let root = rustix::fs::open(
        repo.root(),
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY,
        rustix::fs::Mode::empty(),
    )
    .unwrap();
    assert!(open_dir(root.as_fd(), b"src".as_bstr()).is_ok());
    assert_eq!(
        open_dir(root.as_fd(), b"src/ui".as_bstr()).unwrap_err(),
        rustix::io::Errno::LOOP
    );
}

#[test]
fn a_link_is_compared_as_a_link() {
    let repo = Repo::with_commit(FILES);
    std::os::unix::fs::symlink("README.md", repo.root().join("link")).unwrap();
    repo.commit_all("a link");
    repo.settle();
    assert_eq!(repo.unproven(""), Vec::<String>::new());
    // The link replaced by a file of the same size.
    std::fs::remove_file(repo.root().join("link")).unwrap();
    repo.write("link", "README.m\n");
    assert_eq!(repo.unproven(""), ["link"]);
}

#[test]
fn entries_gix_passes_over_are_not_listed_and_those_it_reads_are() {
    let repo = Repo::with_commit(FILES);
    repo.git(&["update-index", "--skip-worktree", "src/main.rs"]);
    repo.git(&["update-index", "--assume-unchanged", "README.md"]);
    repo.write("new.txt", "new\n");
    repo.git(&["add", "-N", "new.txt"]);
    let blob = String::from_utf8(repo.git(&["hash-object", "-w", "README.md"])).unwrap();
    let blob = blob.trim();
    // A conflict (stages 1 to 3) and a submodule commit.
    let info = format!(
        "100644 {blob} 1\tclash.txt\n100644 {blob} 2\tclash.txt\n100644 {blob} 3\tclash.txt\n"
    );
    let mut update = repo.git_command(&["update-index", "--index-info"]);
    update.stdin(std::process::Stdio::piped());
    let mut child = update.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), info.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    let commit = String::from_utf8(repo.git(&["rev-parse", "HEAD"])).unwrap();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},sub", commit.trim()),
    ]);
    repo.write("clash.txt", "content of README.md\n");
    std::fs::create_dir(repo.root().join("sub")).unwrap();
    repo.settle();
    // Changed, but flagged: gix does not look, and neither does this.
    repo.write("src/main.rs", "changed\n");
    repo.write("README.md", "changed\n");
    assert_eq!(
        repo.unproven(""),
        ["clash.txt", "clash.txt", "clash.txt", "new.txt", "sub"]
    );
}

#[test]
fn only_entries_under_the_prefix_are_compared() {
    let files = ["a/b/c", "a/x", "a-b/y", "ab/z", "b"];
    let repo = Repo::with_commit(&files);
    repo.settle();
    for file in files {
        std::fs::remove_file(repo.root().join(file)).unwrap();
    }
    assert_eq!(repo.unproven("a"), ["a/b/c", "a/x"]);
    assert_eq!(repo.unproven("a/b"), ["a/b/c"]);
    assert_eq!(repo.unproven("c"), Vec::<String>::new());
    assert_eq!(repo.unproven(""), ["a-b/y", "a/b/c", "a/x", "ab/z", "b"]);
}

#[test]
fn a_large_index_is_compared_in_chunks_on_threads() {
    let files: Vec<String> = (0..1_700)
        .map(|i| format!("d{:02}/f{i:04}.txt", i / 60))
        .collect();
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let repo = Repo::with_commit(&names);
    repo.settle();
    let changed = [3, 499, 500, 1_200, 1_699].map(|i| files[i].clone());
    for file in &changed {
        repo.write(file, "changed\n");
    }
    assert_eq!(repo.unproven(""), changed);
}

#[test]
fn no_answer_without_a_worktree_to_open() {
    let repo = Repo::with_commit(FILES);
    let index = repo.index();
    assert_eq!(unproven(&index, &repo.root().join("missing"), b""), None);
}

#[test]
fn an_entry_is_provable_only_as_git_would_trust_its_stat_data() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    let index = repo.index();
    let entry = index.entries()[0].clone();
    let secs = i64::from(entry.stat.mtime.secs);
    assert!(provable(&entry, secs + 1));
    // Changed in the second the index was written, or after it: racy.
    assert!(!provable(&entry, secs));
    assert!(!provable(&entry, secs - 1));

    let with = |change: &dyn Fn(&mut gix::index::Entry)| {
        let mut changed = entry.clone();
        change(&mut changed);
        provable(&changed, secs + 1)
    };
    assert!(!with(&|e| e.flags |= Flags::from_bits_retain(1 << 12)));
    assert!(!with(&|e| e.flags |= Flags::from_bits_retain(3 << 12)));
    assert!(!with(&|e| e.flags |= Flags::INTENT_TO_ADD));
    assert!(with(&|e| e.mode = Mode::FILE_EXECUTABLE));
    assert!(with(&|e| e.mode = Mode::SYMLINK));
    assert!(!with(&|e| e.mode = Mode::COMMIT));
    assert!(!with(&|e| e.mode = Mode::DIR));
    let empty = gix::ObjectId::empty_blob(gix::hash::Kind::Sha1);
    assert!(!with(&|e| e.id = empty));
    assert!(with(&|e| {
        e.id = empty;
        e.stat.size = 0;
    }));
}

/// A change made to an entry's record.
type Change = fn(&mut gix::index::Entry);

#[test]
fn every_field_git_keeps_must_match() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    let index = repo.index();
    let position = index.entry_index_by_path(b"README.md".into()).unwrap();
    let entry = index.entries()[position].clone();
    let root = rustix::fs::open(
        repo.root(),
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY,
        rustix::fs::Mode::empty(),
    )
    .unwrap();
    let name = b"README.md".as_bstr();
    assert!(same_on_disk(root.as_fd(), name, &entry));
    assert!(!same_on_disk(root.as_fd(), b"missing".as_bstr(), &entry));
    assert!(!same_on_disk(root.as_fd(), b"src".as_bstr(), &entry));

    let changes: [(&str, Change); 11] = [
        ("mtime", |e| e.stat.mtime.secs += 1),
        ("mtime nanoseconds", |e| e.stat.mtime.nsecs ^= 1),
        ("ctime", |e| e.stat.ctime.secs += 1),
        ("ctime nanoseconds", |e| e.stat.ctime.nsecs ^= 1),
        ("device", |e| e.stat.dev ^= 1),
        ("inode", |e| e.stat.ino ^= 1),
        ("owner", |e| e.stat.uid ^= 1),
        ("group", |e| e.stat.gid ^= 1),
        ("size", |e| e.stat.size += 1),
        ("executable", |e| e.mode = Mode::FILE_EXECUTABLE),
        ("link", |e| e.mode = Mode::SYMLINK),
    ];
    for (field, change) in changes {
        let mut changed = entry.clone();
        change(&mut changed);
        assert!(
            !same_on_disk(root.as_fd(), name, &changed),
            "a different {field} is taken as the same"
        );
    }
}

#[test]
fn times_match_as_git_records_them() {
    let at = |secs, nsecs| Time { secs, nsecs };
    assert!(same_time(5, 7, at(5, 7)));
    assert!(!same_time(5, 7, at(5, 8)));
    assert!(!same_time(6, 7, at(5, 7)));
    // git keeps the seconds' low 32 bits.
    assert!(same_time((1 << 32) + 5, 7, at(5, 7)));
    // Before 1970 gix records zero: never a match.
    assert!(!same_time(-1, 0, at(u32::MAX, 0)));
    assert!(!same_time(5, 1_000_000_000, at(5, 1_000_000_000)));
}

#[test]
fn a_directory_turned_into_a_fifo_is_left_to_gix_without_blocking() {
    let repo = Repo::with_commit(FILES);
    repo.settle();
    std::fs::remove_dir_all(repo.root().join("src/ui")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        repo.root().join("src/ui"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    // Opened for reading, a FIFO would wait for a writer forever.
    assert_eq!(repo.unproven(""), ["src/ui/Badge.tsx", "src/ui/Card.tsx"]);
}

#[test]
fn the_comparison_gives_up_past_a_quarter_of_the_entries_and_a_hundred() {
    for (count, most) in [(FEWEST_TO_GIVE_UP + 1, FEWEST_TO_GIVE_UP), (1_000, 250)] {
        let files: Vec<String> = (0..count)
            .map(|i| format!("d{:02}/f{i:04}.txt", i / 50))
            .collect();
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let repo = Repo::with_commit(&names);
        repo.settle();
        for file in &files[..most] {
            std::fs::remove_file(repo.root().join(file)).unwrap();
        }
        assert_eq!(repo.unproven("").len(), most, "{count} files");
        std::fs::remove_file(repo.root().join(&files[most])).unwrap();
        let index = repo.index();
        assert_eq!(
            unproven(&index, repo.root(), b""),
            None,
            "{count} files, {} left to gix",
            most + 1
        );
    }
}
