//! Programs named in a file the repository's configuration includes: the worktree pass runs none of them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests fail loudly on broken fixtures"
)]

use crate::GitChanges;
use crate::status::changed_paths_of;
use crate::test_repo::Repo;

use super::Untracked;

#[path = "../../tests/support/planted.rs"]
mod planted;
use planted::{EVERY_KEY, Planted, fixture};

/// `GitChanges::repository_config_only` does not follow includes, and
/// `GitChanges::new` would read the user's own configuration: the
/// repository is opened here with its own configuration and the files it
/// includes, nothing else, and given to the same status.
#[test]
fn programs_named_in_an_included_file_never_run() {
    let planted = Planted::new();
    let included = planted.dir.path().join("included.gitconfig");
    std::fs::write(&included, planted.naming_it(EVERY_KEY)).unwrap();
    let config = format!(
        "[include]\n\tpath = {0}\n[includeIf \"gitdir:/\"]\n\tpath = {0}\n",
        included.display()
    );
    let repo = fixture(&planted, &config);
    let mut options = gix::open::Options::isolated();
    options.permissions.config.includes = true;
    let opened = gix::open_opts(repo.root(), options).unwrap();
    // The include is live: the planted keys are in the configuration.
    let config = opened.config_snapshot();
    for key in [
        "filter.planted.process",
        "filter.planted.clean",
        "core.fsmonitor",
    ] {
        assert!(config.string(key).is_some(), "{key} was not included");
    }
    let git = GitChanges::new().repository_config_only();
    let (changed, errors) = changed_paths_of(&opened, b"", Untracked::Files, &git).unwrap();
    planted.assert_not_run("include.path");
    assert_eq!(errors, 0);
    let paths: Vec<String> = changed.paths.iter().map(ToString::to_string).collect();
    assert_eq!(paths, ["hidden.txt", "modified.txt"]);
}
