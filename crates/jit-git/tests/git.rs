//! jit-git against real repositories: gix's answer compared with `git status --porcelain -z -uall`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::ChangeSet;
use jit_git::{ErrorKind, GitChanges, narrow_to_cwd, startup_signals};
use pretty_assertions::assert_eq;

#[path = "support/repo.rs"]
#[allow(
    dead_code,
    reason = "shared with the unit tests, which use other parts"
)]
mod support;
use support::{Repo, backdate, backdate_files};

#[path = "support/planted.rs"]
mod planted;

#[path = "git/planted_programs.rs"]
mod planted_programs;

impl Repo {
    fn utf8_root(&self) -> Utf8PathBuf {
        Utf8PathBuf::from_path_buf(self.root().canonicalize().unwrap()).unwrap()
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.root().join(path)).unwrap();
    }

    /// Every path `git status --porcelain -z -uall` prints, sorted, as bytes.
    fn porcelain_paths(&self) -> Vec<Vec<u8>> {
        self.porcelain_paths_in("")
    }

    /// gix's answer for the worktree (or the subdirectory `sub` of it).
    fn changes(&self, sub: &str) -> ChangeSet {
        GitChanges::new()
            .repository_config_only()
            .changes(&self.root().join(sub))
            .unwrap()
    }
}

/// Asserts that git lists exactly `expected` and that gix agrees with git,
/// with no diagnostics.
#[track_caller]
fn check(repo: &Repo, expected: &[&str]) {
    let git: Vec<String> = repo
        .porcelain_paths()
        .into_iter()
        .map(|path| String::from_utf8(path).unwrap())
        .collect();
    assert_eq!(git, expected, "git itself lists something else");
    let ours = repo.changes("");
    let ours: Vec<&str> = ours.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(ours, git, "gix disagrees with git");
    assert_eq!(repo.changes("").diagnostics, Vec::<String>::new());

    // Again with the index's untracked cache written by git, its
    // directories dated back so that it is trusted: the answer read
    // through it is the same. (The cache stays on for the test's later
    // checks, whose changes it must then notice.)
    repo.git(&["config", "core.untrackedCache", "true"]);
    backdate(repo.root(), SystemTime::now() - Duration::from_secs(60));
    repo.git(&["status", "--porcelain"]);
    let ours = repo.changes("");
    let ours: Vec<&str> = ours.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(
        ours, git,
        "the untracked cache leads to another answer than git's"
    );

    // Once more with every file dated back too and its `stat` data
    // recorded again by git, so that the tracked files are proven
    // unchanged by their `stat` data instead of being left to gix as
    // changed in the second the index was written. (The directories keep
    // their times: git compares whole seconds, and would not record a
    // directory dated back again in the same second, which the cache's
    // nanoseconds would then tell apart.)
    backdate_files(repo.root(), SystemTime::now() - Duration::from_secs(60));
    repo.git(&["status", "--porcelain"]);
    let again: Vec<Vec<u8>> = git.iter().map(|path| path.as_bytes().to_vec()).collect();
    assert_eq!(repo.porcelain_paths(), again, "git's own answer changed");
    let ours = repo.changes("");
    let ours: Vec<&str> = ours.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(
        ours, git,
        "the stat comparison leads to another answer than git's"
    );
}

#[test]
fn clean_worktree_lists_nothing() {
    let repo = Repo::with_commit(&["README.md", "src/ui/Badge.tsx"]);
    check(&repo, &[]);
}

#[test]
fn untracked_files_in_new_directories_are_listed_one_by_one() {
    let repo = Repo::with_commit(&["README.md"]);
    repo.write("web/app/main.py", "print()\n");
    repo.write("web/app/lib/util.py", "x = 1\n");
    repo.write("web/index.html", "<p>\n");
    repo.write("notes.txt", "n\n");
    // An empty directory is not a change, for git or for us.
    std::fs::create_dir_all(repo.root().join("empty/deeper")).unwrap();
    check(
        &repo,
        &[
            "notes.txt",
            "web/app/lib/util.py",
            "web/app/main.py",
            "web/index.html",
        ],
    );
}

#[test]
fn modified_and_deleted_files_are_listed() {
    let repo = Repo::with_commit(&["a.rs", "src/b.rs", "src/c.rs", "keep.rs"]);
    repo.write("a.rs", "changed\n");
    repo.remove("src/b.rs");
    check(&repo, &["a.rs", "src/b.rs"]);
}

#[test]
fn staged_additions_modifications_and_deletions_are_listed() {
    let repo = Repo::with_commit(&["a.rs", "b.rs", "c.rs"]);
    repo.write("new/staged.rs", "new\n");
    repo.write("a.rs", "staged change\n");
    repo.git(&["add", "new/staged.rs", "a.rs"]);
    repo.git(&["rm", "-q", "b.rs"]);
    // Staged, then changed again in the worktree: listed once.
    repo.write("a.rs", "changed again\n");
    check(&repo, &["a.rs", "b.rs", "new/staged.rs"]);
}

#[test]
fn soft_reset_lists_what_the_index_holds_beyond_head() {
    // The index keeps a valid cached tree, but it is no longer HEAD's tree:
    // the staged difference must still be found.
    let repo = Repo::with_commit(&["a.rs", "b.rs"]);
    repo.write("a.rs", "second\n");
    repo.write("c.rs", "added\n");
    repo.commit_all("second");
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    check(&repo, &["a.rs", "c.rs"]);
}

#[test]
fn staged_changes_deep_among_unchanged_siblings_are_found() {
    let mut files = Vec::new();
    for top in ["a", "b", "c"] {
        for sub in ["x", "y", "z"] {
            for file in ["1.rs", "2.rs", "3.rs"] {
                files.push(format!("{top}/{sub}/deeper/{file}"));
            }
        }
    }
    files.extend(["f", "g.txt", "exec.sh", "gone/one.rs", "gone/sub/two.rs"].map(String::from));
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let repo = Repo::with_commit(&names);

    repo.write("b/y/deeper/2.rs", "staged change\n");
    repo.write("c/new/dir/added.rs", "staged addition\n");
    repo.git(&["add", "b/y/deeper/2.rs", "c/new/dir/added.rs"]);
    repo.git(&["rm", "-q", "-r", "gone"]);
    // A file replaced by a directory of the same name.
    repo.git(&["rm", "-q", "f"]);
    repo.write("f/inside.rs", "x\n");
    repo.git(&["add", "f/inside.rs"]);
    // A staged mode change and a staged type change.
    repo.git(&["update-index", "--chmod=+x", "exec.sh"]);
    repo.remove("g.txt");
    #[cfg(unix)]
    std::os::unix::fs::symlink("a", repo.root().join("g.txt")).unwrap();
    #[cfg(not(unix))]
    repo.write("g.txt", "changed\n");
    repo.git(&["add", "g.txt"]);
    check(
        &repo,
        &[
            "b/y/deeper/2.rs",
            "c/new/dir/added.rs",
            "exec.sh",
            "f",
            "f/inside.rs",
            "g.txt",
            "gone/one.rs",
            "gone/sub/two.rs",
        ],
    );
}

#[test]
fn names_that_sort_differently_in_trees_and_the_index_are_compared_right() {
    // Trees order the directory `a` as `a/`, after `a.c`; the index orders
    // `a/x` after `a.c` too but before `a0`: both sides must still pair up.
    let repo = Repo::with_commit(&["a-b", "a.c", "a/x", "a/y/z", "a0", "ab/c"]);
    repo.write("a.c", "changed\n");
    repo.write("a/y/z", "changed\n");
    repo.write("a0", "changed\n");
    repo.git(&["add", "a.c", "a/y/z", "a0"]);
    repo.write("a-b", "unstaged\n");
    check(&repo, &["a-b", "a.c", "a/y/z", "a0"]);
}

#[test]
fn staging_then_unstaging_leaves_nothing_staged() {
    // Unstaging leaves the index's cached tree invalid along the path, so the
    // comparison goes entry by entry there and must still find nothing.
    let repo = Repo::with_commit(&["src/ui/a.ts", "src/ui/b.ts", "docs/c.md"]);
    repo.write("src/ui/a.ts", "changed\n");
    repo.git(&["add", "src/ui/a.ts"]);
    repo.git(&["reset", "-q", "--", "src/ui/a.ts"]);
    repo.git(&["checkout", "--", "src/ui/a.ts"]);
    check(&repo, &[]);
}

#[test]
fn index_rebuilt_without_a_cached_tree_still_compares_right() {
    let repo = Repo::with_commit(&["a/1.rs", "a/2.rs", "b/3.rs"]);
    // `read-tree` writes an index from HEAD; then an update-index drops
    // the cached tree along the path.
    repo.git(&["read-tree", "HEAD"]);
    repo.write("b/3.rs", "changed\n");
    repo.git(&["update-index", "b/3.rs"]);
    check(&repo, &["b/3.rs"]);
}

#[test]
fn staged_rename_lists_both_paths() {
    let repo = Repo::with_commit(&["src/old_name.rs", "other.rs"]);
    repo.git(&["mv", "src/old_name.rs", "src/new_name.rs"]);
    check(&repo, &["src/new_name.rs", "src/old_name.rs"]);
}

#[test]
fn unstaged_rename_is_a_deletion_and_an_untracked_file() {
    let repo = Repo::with_commit(&["src/old_name.rs"]);
    std::fs::rename(
        repo.root().join("src/old_name.rs"),
        repo.root().join("src/new_name.rs"),
    )
    .unwrap();
    check(&repo, &["src/new_name.rs", "src/old_name.rs"]);
}

#[test]
fn ignored_files_are_left_out_but_tracked_ones_still_count() {
    let repo = Repo::with_commit(&["README.md", "tracked.log"]);
    repo.write(".gitignore", "*.log\nbuild/\n/secret.txt\n");
    repo.write("debug.log", "x\n");
    repo.write("src/deep/trace.log", "x\n");
    repo.write("build/out/bin.o", "x\n");
    repo.write("secret.txt", "x\n");
    repo.write("src/secret.txt", "not ignored: the pattern is anchored\n");
    repo.write("tracked.log", "tracked files are never ignored\n");
    check(&repo, &[".gitignore", "src/secret.txt", "tracked.log"]);
}

#[test]
fn names_with_spaces_and_non_ascii_are_kept_verbatim() {
    let repo = Repo::with_commit(&["README.md", "docs/日本語.md"]);
    repo.write("my dir/a file.ts", "x\n");
    repo.write("café/naïve ü.txt", "x\n");
    repo.write("docs/日本語.md", "changed\n");
    repo.write("quote\"and\\back.txt", "x\n");
    check(
        &repo,
        &[
            "café/naïve ü.txt",
            "docs/日本語.md",
            "my dir/a file.ts",
            "quote\"and\\back.txt",
        ],
    );
}

#[test]
fn names_with_tabs_and_newlines_are_kept_verbatim() {
    let repo = Repo::with_commit(&["README.md"]);
    repo.write("tab\there.txt", "x\n");
    repo.write("new\nline.txt", "x\n");
    check(&repo, &["new\nline.txt", "tab\there.txt"]);
}

#[test]
fn info_exclude_and_nested_gitignore_files_are_honoured() {
    let repo = Repo::with_commit(&["README.md", "sub/keep.rs"]);
    repo.write(".git/info/exclude", "*.tmp\n");
    repo.write("sub/.gitignore", "generated/\n!important.tmp\n");
    repo.write("a.tmp", "x\n");
    repo.write("sub/important.tmp", "x\n");
    repo.write("sub/generated/out.rs", "x\n");
    repo.write("generated/top.rs", "only ignored inside sub\n");
    check(
        &repo,
        &["generated/top.rs", "sub/.gitignore", "sub/important.tmp"],
    );
}

#[cfg(unix)]
#[test]
fn mode_and_type_changes_are_listed() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::with_commit(&["script.sh", "becomes_link.txt", "target.txt"]);
    let script = repo.root().join("script.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.remove("becomes_link.txt");
    std::os::unix::fs::symlink("target.txt", repo.root().join("becomes_link.txt")).unwrap();
    std::os::unix::fs::symlink("sub", repo.root().join("dir_link")).unwrap();
    check(&repo, &["becomes_link.txt", "dir_link", "script.sh"]);
}

/// A repository whose `.gitattributes` (`*.txt text eol=crlf`) is flagged
/// with `flag` and gone from the worktree, as a sparse checkout leaves a
/// file out, and whose `file` is checked out again with `\r\n`, as the
/// attributes say: git and gix read the attributes from the index, and
/// under them the file is unchanged.
fn attributes_only_in_the_index(file: &str, flag: &str) -> Repo {
    let repo = Repo::new();
    repo.write(".gitattributes", "*.txt text eol=crlf\n");
    repo.write(file, "a\n");
    repo.commit_all("initial");
    repo.remove(file);
    repo.git(&["checkout", "--", file]);
    repo.git(&["update-index", flag, ".gitattributes"]);
    repo.remove(".gitattributes");
    repo
}

#[test]
fn attributes_only_in_the_index_still_decide_a_comparison() {
    let repo = attributes_only_in_the_index("a.txt", "--skip-worktree");
    check(&repo, &[]);
}

#[test]
fn attributes_only_in_the_index_above_the_project_root_still_decide() {
    let repo = attributes_only_in_the_index("sub/a.txt", "--assume-unchanged");
    repo.git(&["config", "core.untrackedCache", "true"]);
    backdate(repo.root(), SystemTime::now() - Duration::from_secs(60));
    repo.git(&["status", "--porcelain"]);
    assert_eq!(repo.porcelain_paths_in("sub"), Vec::<Vec<u8>>::new());
    assert_eq!(repo.changes("sub").files, Vec::<Utf8PathBuf>::new());
}

#[test]
fn attributes_deleted_from_the_worktree_no_longer_decide_a_comparison() {
    let repo = Repo::new();
    repo.write(".gitattributes", "*.txt text\n");
    repo.write("a.txt", "b\n");
    repo.commit_all("initial");
    // Under `text`, `\r\n` would read as the committed `\n`; but git
    // takes the attributes of a comparison from the worktree, where the
    // file is gone (and so does gix, also when it is given an index of
    // the unproven entries only): a change.
    repo.write("a.txt", "b\r\n");
    repo.remove(".gitattributes");
    check(&repo, &[".gitattributes", "a.txt"]);
}

#[test]
fn assume_unchanged_and_skip_worktree_files_are_not_listed() {
    let repo = Repo::with_commit(&["assumed.rs", "skipped.rs", "normal.rs"]);
    repo.git(&["update-index", "--assume-unchanged", "assumed.rs"]);
    repo.git(&["update-index", "--skip-worktree", "skipped.rs"]);
    repo.write("assumed.rs", "changed\n");
    repo.write("skipped.rs", "changed\n");
    repo.write("normal.rs", "changed\n");
    check(&repo, &["normal.rs"]);
}

#[test]
fn submodule_changes_are_listed_as_the_submodule_path() {
    let library = Repo::with_commit(&["lib.rs"]);
    let repo = Repo::with_commit(&["README.md"]);
    let url = library.root().to_str().unwrap();
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        url,
        "vendor/library",
    ]);
    repo.commit_all("add the submodule");
    check(&repo, &[]);
    // A modified file inside the submodule makes the submodule dirty.
    repo.write("vendor/library/lib.rs", "changed\n");
    check(&repo, &["vendor/library"]);
}

#[test]
fn linked_worktree_lists_its_own_changes() {
    let repo = Repo::with_commit(&["a.rs", "b.rs"]);
    repo.git(&["worktree", "add", "-q", "-b", "feature", "linked"]);
    repo.write("linked/a.rs", "changed in the linked worktree\n");
    repo.write("linked/new.rs", "x\n");
    repo.write("b.rs", "changed in the main worktree\n");

    // The main worktree sees the linked one as a nested repository.
    check(&repo, &["b.rs", "linked/"]);

    let git: Vec<String> = repo
        .porcelain_paths_in("linked")
        .into_iter()
        .map(|path| String::from_utf8(path).unwrap())
        .collect();
    assert_eq!(git, ["a.rs", "new.rs"]);
    let ours = repo.changes("linked");
    assert_eq!(
        ours.files,
        [Utf8PathBuf::from("a.rs"), Utf8PathBuf::from("new.rs")]
    );
}

#[test]
fn repository_without_commits_lists_staged_and_untracked_files() {
    let repo = Repo::new();
    repo.write("staged.rs", "x\n");
    repo.git(&["add", "staged.rs"]);
    repo.write("src/untracked.rs", "x\n");
    check(&repo, &["src/untracked.rs", "staged.rs"]);
}

#[test]
fn intent_to_add_is_listed() {
    let repo = Repo::with_commit(&["README.md"]);
    repo.write("later.rs", "x\n");
    repo.git(&["add", "-N", "later.rs"]);
    check(&repo, &["later.rs"]);
}

#[test]
fn merge_conflicts_are_listed() {
    let repo = Repo::with_commit(&["shared.txt", "other.txt"]);
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.write("shared.txt", "topic side\n");
    repo.commit_all("topic");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("shared.txt", "main side\n");
    repo.commit_all("main");
    let merge = repo
        .git_command(&["merge", "-q", "topic"])
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the merge must conflict");
    check(&repo, &["shared.txt"]);
}

#[test]
fn untracked_nested_repository_is_listed_as_a_directory() {
    let repo = Repo::with_commit(&["README.md"]);
    let nested = repo.root().join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    repo.git(&["init", "-q", "vendor/lib"]);
    repo.write("vendor/lib/inner.rs", "x\n");
    check(&repo, &["vendor/lib/"]);
}

#[cfg(unix)]
#[test]
fn non_utf8_names_become_diagnostics() {
    use std::os::unix::ffi::OsStrExt;
    let repo = Repo::with_commit(&["README.md"]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    repo.write(PathBuf::from("src").join(name), "x\n");
    repo.write("src/good.txt", "x\n");

    let git = repo.porcelain_paths();
    assert_eq!(
        git,
        [b"src/bad\xffname.txt".to_vec(), b"src/good.txt".to_vec()]
    );

    let ours = repo.changes("");
    assert_eq!(ours.files, [Utf8PathBuf::from("src/good.txt")]);
    assert_eq!(ours.diagnostics.len(), 1, "{:?}", ours.diagnostics);
    assert!(
        ours.diagnostics[0].contains(r"src/bad\xffname.txt"),
        "the diagnostic names the path: {}",
        ours.diagnostics[0]
    );
}

#[test]
fn root_in_a_subdirectory_lists_its_subtree_relative_to_it() {
    let repo = Repo::with_commit(&["app/src/main.rs", "app-old/x.rs", "top.rs"]);
    repo.write("app/src/main.rs", "changed\n");
    repo.write("app/new/mod.py", "x\n");
    repo.write("app-old/x.rs", "changed\n");
    repo.write("top.rs", "changed\n");
    let ours = repo.changes("app");
    assert_eq!(
        ours.files,
        [
            Utf8PathBuf::from("new/mod.py"),
            Utf8PathBuf::from("src/main.rs")
        ]
    );
}

#[test]
fn root_in_a_subdirectory_with_pattern_characters_is_taken_literally() {
    let repo = Repo::with_commit(&["my app[1]/a.rs", "my app1/b.rs", "my appX/c.rs"]);
    repo.write("my app[1]/a.rs", "changed\n");
    repo.write("my app[1]/new dir/n.py", "x\n");
    repo.write("my app1/b.rs", "changed\n");
    repo.write("my appX/c.rs", "changed\n");
    let ours = repo.changes("my app[1]");
    assert_eq!(
        ours.files,
        [Utf8PathBuf::from("a.rs"), Utf8PathBuf::from("new dir/n.py")]
    );
    // Staged changes take the other path through gix: still only the subtree.
    repo.git(&["add", "my app1/b.rs", "my app[1]/a.rs"]);
    let ours = repo.changes("my app[1]");
    assert_eq!(
        ours.files,
        [Utf8PathBuf::from("a.rs"), Utf8PathBuf::from("new dir/n.py")]
    );
}

#[test]
fn change_source_trait_answers_like_the_inherent_method() {
    let repo = Repo::with_commit(&["a.rs"]);
    repo.write("a.rs", "changed\n");
    let source: &dyn jit_base::ChangeSource = &GitChanges::new().repository_config_only();
    let changes = source.changed_files(&repo.utf8_root()).unwrap();
    assert_eq!(changes.files, [Utf8PathBuf::from("a.rs")]);
}

mod errors {
    use super::*;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check_error(path: &Path, kind: ErrorKind) -> String {
        let err = GitChanges::new()
            .repository_config_only()
            .changes(path)
            .unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        let message = err.to_string();
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            message.contains(&*name),
            "the message names the path: {message}"
        );
        message
    }

    #[test]
    fn not_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("plain-dir");
        std::fs::create_dir(&sub).unwrap();
        check_error(&sub, ErrorKind::NotARepository);
        // The convenience function reports the same.
        assert_eq!(
            jit_git::changed_files(&sub).unwrap_err().kind(),
            ErrorKind::NotARepository
        );
    }

    #[test]
    fn missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        check_error(&dir.path().join("does-not-exist"), ErrorKind::Io);
    }

    #[test]
    fn bare_repository_has_no_worktree() {
        let repo = Repo::new();
        repo.git(&["init", "-q", "--bare", "bare.git"]);
        check_error(&repo.root().join("bare.git"), ErrorKind::NoWorktree);
    }

    #[test]
    fn inside_the_git_directory_is_outside_the_worktree() {
        let repo = Repo::with_commit(&["a.rs"]);
        let message = check_error(&repo.root().join(".git/refs"), ErrorKind::OutsideWorktree);
        assert!(message.contains("not inside the working tree"), "{message}");
    }

    #[test]
    fn corrupt_index_is_a_git_error() {
        let repo = Repo::with_commit(&["a.rs"]);
        std::fs::write(repo.root().join(".git/index"), b"DIRC garbage").unwrap();
        let err = GitChanges::new()
            .repository_config_only()
            .changes(repo.root())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Git, "{err}");
        assert!(
            err.to_string().contains(&*repo.root().to_string_lossy()),
            "{err}"
        );
    }
}

mod signals {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The fixture of the startup table: a UI component, docs, a clean tree.
    fn fixture() -> Repo {
        Repo::with_commit(&["README.md", "src/ui/Badge.tsx", "docs/guide.md"])
    }

    #[track_caller]
    fn check_signals(repo: &Repo, cwd: &str, expected: &[&str]) -> jit_git::Signals {
        let root = repo.utf8_root();
        let source = GitChanges::new().repository_config_only();
        let signals = startup_signals(&root, &root.join(cwd), &source);
        assert_eq!(signals.signals, expected, "cwd {cwd:?}");
        signals
    }

    #[test]
    fn root_clean() {
        let signals = check_signals(&fixture(), "", &[]);
        assert_eq!(signals.fallback_reason, None);
    }

    #[test]
    fn root_with_badge_modified() {
        let repo = fixture();
        repo.write("src/ui/Badge.tsx", "changed\n");
        check_signals(&repo, "", &["src/ui/Badge.tsx"]);
    }

    #[test]
    fn cwd_src_ui_clean() {
        check_signals(&fixture(), "src/ui", &["src/ui/"]);
    }

    #[test]
    fn cwd_docs_clean() {
        check_signals(&fixture(), "docs", &["docs/"]);
    }

    #[test]
    fn dirty_ui_file_does_not_count_in_docs() {
        let repo = fixture();
        repo.write("src/ui/Badge.tsx", "changed\n");
        repo.write("docs/new.md", "x\n");
        check_signals(&repo, "docs", &["docs/", "docs/new.md"]);
    }

    #[test]
    fn untracked_python_file_in_a_new_directory_is_a_signal() {
        let repo = fixture();
        repo.write("tools/gen/run.py", "x\n");
        check_signals(&repo, "", &["tools/gen/run.py"]);
    }

    #[test]
    fn not_a_repository_falls_back_to_the_cwd_marker() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/ui")).unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        let signals = startup_signals(
            &root,
            &root.join("src/ui"),
            &GitChanges::new().repository_config_only(),
        );
        assert_eq!(signals.signals, ["src/ui/"]);
        let reason = signals.fallback_reason.unwrap();
        assert!(reason.contains("not inside a git repository"), "{reason}");
    }

    #[test]
    fn narrowing_real_changes_is_by_segment() {
        let repo = Repo::with_commit(&["src/ui/a.ts", "src/ui-old/b.ts"]);
        repo.write("src/ui/a.ts", "changed\n");
        repo.write("src/ui-old/b.ts", "changed\n");
        let narrowed = narrow_to_cwd(repo.changes(""), Utf8Path::new("src/ui"));
        assert_eq!(narrowed.files, [Utf8PathBuf::from("src/ui/a.ts")]);
    }
}

#[test]
fn an_index_whose_checksum_is_wrong_is_read_as_git_reads_it() {
    let repo = Repo::with_commit(&["README.md", "src/a.rs"]);
    // A repository's own setting (git reads it for writing an index) does
    // not turn the check back on.
    repo.git(&["config", "index.skipHash", "false"]);
    repo.write("src/a.rs", "changed\n");
    repo.write("new.rs", "new\n");
    check(&repo, &["new.rs", "src/a.rs"]);
    // `git status` does not check the index's trailing checksum (only `git
    // fsck` does): neither does the change source, which reads the entries.
    let index = repo.root().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    // Read before git, which may write the index again.
    let ours = repo.changes("");
    let ours: Vec<&str> = ours.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(ours, ["new.rs", "src/a.rs"]);
    check(&repo, &["new.rs", "src/a.rs"]);
}
