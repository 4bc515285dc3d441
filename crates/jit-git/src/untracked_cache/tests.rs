//! The untracked cache against `git` itself: repositories whose cache `git
//! status` wrote, changed in the ways that must (or must not) send a
//! directory back to the walk, each answer compared with `git status
//! --porcelain -z -uall`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use std::process::Command;
use std::time::{Duration, SystemTime};

use gix::bstr::BString;

use super::{Listing, MOST_WALKS, listing};
use crate::GitChanges;
use crate::test_repo::{Repo, backdate};

impl Repo {
    /// Dates every directory of the worktree a minute back, so that none
    /// was changed in the second the index is written (git's racy rule),
    /// then lets `git status` (with `args`) write its untracked cache.
    fn cache(&self, args: &[&str]) {
        let past = SystemTime::now() - Duration::from_secs(60);
        backdate(self.root(), past);
        let mut status = vec!["-c", "core.untrackedCache=true"];
        status.extend(args);
        status.extend(["status", "--porcelain"]);
        self.git(&status);
    }

    /// What the cache tells about the worktree below `prefix`, sorted.
    fn listing(&self, prefix: &str) -> Option<Listing> {
        let repo = self.opened();
        let index = repo.index_or_empty().unwrap();
        sorted(listing(&repo, &index, prefix.as_bytes(), || None))
    }

    /// Every path `git status --porcelain -z -uall` prints, as text.
    fn porcelain(&self) -> Vec<String> {
        self.porcelain_paths_in("")
            .into_iter()
            .map(|path| String::from_utf8(path).unwrap())
            .collect()
    }

    /// Asserts that the status read through the cache lists what git does.
    #[track_caller]
    fn check(&self, expected: &[&str]) {
        assert_eq!(
            self.porcelain(),
            expected,
            "git itself lists something else"
        );
        let ours = GitChanges::new()
            .repository_config_only()
            .changes(self.root())
            .unwrap();
        let ours: Vec<&str> = ours.files.iter().map(|file| file.as_str()).collect();
        assert_eq!(
            ours, expected,
            "the status through the cache disagrees with git"
        );
    }
}

fn listed(files: &[&str], walk: &[&str]) -> Option<Listing> {
    let owned = |paths: &[&str]| paths.iter().map(|p| BString::from(*p)).collect::<Vec<_>>();
    Some(Listing {
        files: owned(files),
        walk: owned(walk),
    })
}

/// Sorted, for comparing with [`listed`].
fn sorted(listing: Option<Listing>) -> Option<Listing> {
    listing.map(|mut listing| {
        listing.files.sort();
        listing.walk.sort();
        listing
    })
}

/// The fixture most cases start from: tracked files in three levels, an
/// untracked file in a tracked directory, an untracked directory, ignored
/// files beside a `.gitignore`.
fn fixture() -> Repo {
    let repo = Repo::with_commit(&[
        "README.md",
        "src/lib.rs",
        "src/ui/Badge.tsx",
        "docs/guide.md",
        "docs/.gitignore",
    ]);
    repo.write("docs/.gitignore", "*.tmp\n");
    repo.git(&["commit", "-qam", "ignore"]);
    repo.write("src/ui/New.tsx", "new\n");
    repo.write("docs/draft.tmp", "ignored\n");
    repo.write("tools/gen/run.py", "print()\n");
    repo.write("tools/gen/lib/util.py", "pass\n");
    repo
}

const FIXTURE_STATUS: [&str; 3] = [
    "src/ui/New.tsx",
    "tools/gen/lib/util.py",
    "tools/gen/run.py",
];

#[test]
fn an_unchanged_worktree_is_listed_from_the_cache() {
    let repo = fixture();
    repo.cache(&[]);
    // `git status` collapses the untracked directory to `tools/`: it is
    // walked, so that its files are listed one by one.
    assert_eq!(repo.listing(""), listed(&["src/ui/New.tsx"], &["tools"]));
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn a_cache_written_for_every_file_lists_new_directories_file_by_file() {
    let repo = fixture();
    repo.cache(&["-c", "status.showUntrackedFiles=all"]);
    assert_eq!(repo.listing(""), listed(&FIXTURE_STATUS, &[]));
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn a_directory_changed_since_is_walked_whole() {
    let repo = fixture();
    repo.cache(&[]);
    repo.write("src/ui/Other.tsx", "x\n");
    assert_eq!(repo.listing(""), listed(&[], &["src/ui", "tools"]));
    repo.check(&[
        "src/ui/New.tsx",
        "src/ui/Other.tsx",
        "tools/gen/lib/util.py",
        "tools/gen/run.py",
    ]);
}

#[test]
fn a_gitignore_changed_in_place_sends_its_directory_back_to_the_walk() {
    let repo = fixture();
    repo.cache(&[]);
    // The same file rewritten: the directory's own data does not change.
    repo.write("docs/.gitignore", "*.md\n");
    assert_eq!(
        repo.listing(""),
        listed(&["src/ui/New.tsx"], &["docs", "tools"])
    );
    repo.check(&[
        "docs/.gitignore",
        "docs/draft.tmp",
        "src/ui/New.tsx",
        "tools/gen/lib/util.py",
        "tools/gen/run.py",
    ]);
}

#[test]
fn a_changed_global_ignore_file_or_top_directory_leaves_the_cache_unused() {
    let repo = fixture();
    repo.cache(&[]);
    repo.write(".git/info/exclude", "*.py\n");
    assert_eq!(repo.listing(""), None);
    repo.check(&["src/ui/New.tsx"]);

    let repo = fixture();
    repo.cache(&[]);
    repo.write("TOP.md", "new at the top\n");
    assert_eq!(repo.listing(""), None);
    let mut expected = vec!["TOP.md"];
    expected.extend(FIXTURE_STATUS);
    repo.check(&expected);
}

#[test]
fn a_cache_written_in_the_second_of_a_change_is_not_trusted() {
    let repo = fixture();
    // Every directory dated a minute ahead: each counts as changed in (or
    // after) the second the index is written, and could have changed again
    // unseen. (Dating them now would straddle a second now and then.)
    backdate(repo.root(), SystemTime::now() + Duration::from_secs(60));
    repo.git(&["-c", "core.untrackedCache=true", "status", "--porcelain"]);
    let opened = repo.opened();
    assert!(opened.index_or_empty().unwrap().untracked().is_some());
    assert_eq!(repo.listing(""), None);
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn no_cache_no_listing() {
    let repo = fixture();
    backdate(repo.root(), SystemTime::now() - Duration::from_secs(60));
    // `core.untrackedCache` unset: git writes no cache.
    repo.git(&["status", "--porcelain"]);
    assert_eq!(repo.listing(""), None);
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn a_project_below_the_worktree_root_reads_its_own_subtree() {
    let repo = fixture();
    repo.write(".gitignore", "*.log\n");
    repo.cache(&[]);
    assert_eq!(repo.listing("src"), listed(&["src/ui/New.tsx"], &[]));
    assert_eq!(repo.listing("src/ui"), listed(&["src/ui/New.tsx"], &[]));
    // A directory the cache has no record of: nothing to answer from.
    assert_eq!(repo.listing("nowhere"), None);
    // A `.gitignore` above the prefix rewritten in place (the directory
    // holding it unchanged) changes what is ignored in it.
    repo.write(".gitignore", "New.tsx\n");
    let top = std::fs::metadata(repo.root()).unwrap().modified().unwrap();
    assert!(top < SystemTime::now() - Duration::from_secs(30));
    assert_eq!(repo.listing("src"), None);
}

#[test]
fn an_untracked_nested_repository_is_walked_and_listed_as_a_directory() {
    let repo = fixture();
    repo.git(&["init", "-q", "vendor/lib"]);
    repo.write("vendor/lib/inner.rs", "x\n");
    repo.cache(&[]);
    let listing = repo.listing("").unwrap();
    assert!(
        listing.walk.contains(&BString::from("vendor")),
        "{listing:?}"
    );
    let mut expected = FIXTURE_STATUS.to_vec();
    expected.push("vendor/lib/");
    repo.check(&expected);
}

#[test]
fn a_directory_of_ignored_files_only_is_answered_from_the_cache() {
    let repo = fixture();
    repo.write("build/out.tmp", "ignored\n");
    repo.write(".git/info/exclude", "*.tmp\n");
    repo.cache(&[]);
    assert_eq!(repo.listing(""), listed(&["src/ui/New.tsx"], &["tools"]));
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn more_changed_directories_than_pathspecs_are_worth_is_the_whole_walk() {
    let files: Vec<String> = (0..=MOST_WALKS).map(|n| format!("d{n}/f.rs")).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let repo = Repo::with_commit(&files);
    repo.cache(&[]);
    for n in 0..MOST_WALKS {
        repo.write(format!("d{n}/new.rs"), "x\n");
    }
    assert_eq!(repo.listing("").unwrap().walk.len(), MOST_WALKS);
    repo.write(format!("d{MOST_WALKS}/new.rs"), "x\n");
    assert_eq!(repo.listing(""), None);
    let expected: Vec<String> = (0..=MOST_WALKS).map(|n| format!("d{n}/new.rs")).collect();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    expected.sort_unstable();
    repo.check(&expected);
}

#[cfg(unix)]
#[test]
fn a_global_ignore_file_swapped_for_a_fifo_is_not_waited_for() {
    let repo = fixture();
    repo.cache(&[]);
    let exclude = repo.root().join(".git/info/exclude");
    std::fs::remove_file(&exclude).unwrap();
    let made = Command::new("mkfifo").arg(&exclude).status().unwrap();
    assert!(made.success());
    // git recorded a file's text; a FIFO has none to compare (and opening
    // it to read would wait for a writer that never comes).
    assert_eq!(repo.listing(""), None);
}

#[cfg(unix)]
#[test]
fn the_global_ignore_file_is_followed_through_a_link() {
    let repo = fixture();
    let target = repo.home.path().join("ignore-target");
    std::fs::write(&target, "*.py\n").unwrap();
    let link = repo.home.path().join("ignore");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    repo.git(&["config", "core.excludesFile", link.to_str().unwrap()]);
    repo.cache(&[]);
    let configured = |repo: &Repo| {
        let opened = repo.opened();
        let index = opened.index_or_empty().unwrap();
        listing(&opened, &index, b"", || Some(link.clone()))
    };
    // `tools/` holds only ignored files now: git did not list it.
    assert_eq!(sorted(configured(&repo)), listed(&["src/ui/New.tsx"], &[]));
    repo.check(&["src/ui/New.tsx"]);
    std::fs::write(&target, "*.tsx\n").unwrap();
    assert_eq!(configured(&repo), None);
}

/// Commits `text` as `docs/.gitignore`, lets git write the cache, and
/// checks that the file is taken as changed: `docs` is walked whole.
fn a_docs_gitignore_is_taken_as_changed(text: &str) {
    let repo = fixture();
    repo.write("docs/.gitignore", text);
    repo.git(&["commit", "-qam", "a long ignore file"]);
    repo.cache(&[]);
    assert_eq!(
        repo.listing(""),
        listed(&["src/ui/New.tsx"], &["docs", "tools"])
    );
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn a_gitignore_too_long_to_compare_is_taken_as_changed() {
    let mut long = "*.tmp\n".to_owned();
    long.push_str(&"# padding\n".repeat((super::IGNORE_FILE_CAP / 10) as usize + 1));
    a_docs_gitignore_is_taken_as_changed(&long);
}

#[test]
fn a_gitignore_one_byte_over_the_cap_is_taken_as_changed_though_its_start_matches() {
    // What the comparison reads of it (the cap and one byte) is the whole
    // file git recorded, so its hash matches; a line appended since, which
    // the read would not reach, must not go unseen.
    let cap = usize::try_from(super::IGNORE_FILE_CAP).unwrap();
    let mut text = "*.tmp\n".to_owned();
    text.push_str(&"#".repeat(cap - text.len()));
    text.push('\n');
    assert_eq!(text.len(), cap + 1);
    a_docs_gitignore_is_taken_as_changed(&text);
}

/// Rewrites, in place, bytes of the index's untracked cache extension:
/// `old` (found after `from`, once) becomes `new`, of the same length. The
/// index's checksum goes stale, which the status does not check (as `git
/// status` does not).
fn patch_cache(repo: &Repo, from: &[u8], old: &[u8], new: &[u8]) {
    assert_eq!(old.len(), new.len());
    let path = repo.root().join(".git/index");
    let mut bytes = std::fs::read(&path).unwrap();
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let untr = find(&bytes, b"UNTR").expect("an untracked cache");
    let start = if from.is_empty() {
        untr
    } else {
        untr + find(&bytes[untr..], from).expect("the anchor")
    };
    let at = start + find(&bytes[start..], old).expect("the bytes to patch");
    bytes[at..at + old.len()].copy_from_slice(new);
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn a_cache_for_another_ignore_file_name_or_listing_mode_is_not_used() {
    let repo = fixture();
    repo.cache(&[]);
    assert!(repo.listing("").is_some());
    patch_cache(&repo, b"", b".gitignore\0", b".gitignorf\0");
    assert_eq!(repo.listing(""), None);

    // The listing flags sit before the two ignore files' ids (20 bytes
    // each with SHA-1) and the ignore file name (the extension's; the
    // index's entries name `docs/.gitignore` before it).
    let repo = fixture();
    repo.cache(&[]);
    let path = repo.root().join(".git/index");
    let mut bytes = std::fs::read(&path).unwrap();
    let untr = bytes.windows(4).position(|w| w == b"UNTR").unwrap();
    let name = untr
        + bytes[untr..]
            .windows(11)
            .position(|w| w == b".gitignore\0")
            .unwrap();
    assert_eq!(
        bytes[name - 44..name - 40],
        super::FLAGS_NORMAL.to_be_bytes()
    );
    // `DIR_SHOW_IGNORED` as well: a listing of another kind.
    bytes[name - 41] |= 1;
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(repo.listing(""), None);
    repo.check(&FIXTURE_STATUS);
}

#[test]
fn a_cache_naming_what_no_directory_holds_is_not_used() {
    for (old, new) in [
        (&b"Q\0"[..], &b".\0"[..]),
        (b"zz\0", b"..\0"),
        (b"W1Z\0", b"W/Z\0"),
        (b"gitx\0", b".git\0"),
    ] {
        let repo = Repo::with_commit(&["zz/a.rs", "yy/b.rs", "gitx/c.rs"]);
        repo.write("yy/Q", "x\n");
        repo.write("yy/W1Z", "x\n");
        repo.cache(&[]);
        assert_eq!(repo.listing(""), listed(&["yy/Q", "yy/W1Z"], &[]));
        patch_cache(&repo, b".gitignore\0", old, new);
        assert_eq!(repo.listing(""), None, "{new:?}");
    }
}

#[test]
fn the_default_global_ignore_file_is_xdg_config_home_then_home() {
    use std::ffi::OsString;

    use crate::status::default_excludes_file;
    let env = |pairs: &'static [(&str, &str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    };
    assert_eq!(
        default_excludes_file(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
        Some("/x/git/ignore".into())
    );
    assert_eq!(
        default_excludes_file(env(&[("XDG_CONFIG_HOME", ""), ("HOME", "/h")])),
        Some("/h/.config/git/ignore".into())
    );
    assert_eq!(default_excludes_file(env(&[])), None);
}

#[test]
fn a_configured_global_ignore_file_is_taken_from_the_worktree_top() {
    use crate::status::excludes_file;
    let repo = fixture();
    // Only the repository's configuration, and nothing configured: none;
    // with the user's, git's default (the environment is read for the
    // path, and no file is opened).
    assert_eq!(excludes_file(&repo.opened(), true), None);
    assert_eq!(
        excludes_file(&repo.opened(), false),
        crate::status::default_excludes_file(|name| std::env::var_os(name))
    );
    repo.git(&["config", "core.excludesFile", "my-ignore"]);
    let workdir = repo.opened().workdir().unwrap().to_owned();
    assert_eq!(
        excludes_file(&repo.opened(), true),
        Some(workdir.join("my-ignore"))
    );
    repo.git(&["config", "core.excludesFile", "/etc/elsewhere"]);
    assert_eq!(
        excludes_file(&repo.opened(), false),
        Some("/etc/elsewhere".into())
    );
}
