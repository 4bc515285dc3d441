//! A program planted in a repository's git configuration, shared by jit-git's
//! integration tests (`tests/git/planted_programs.rs`) and its unit tests
//! (`src/worktree/tests.rs`): each includes this file next to `repo.rs`.

use std::path::{Path, PathBuf};

use super::Repo;

/// A script in a directory of its own that leaves a marker file behind
/// when it runs, then exits at once when its first argument is `exit` (as
/// a long-running filter process, which would otherwise wait for the end
/// of a handshake that never comes), and otherwise passes its input on
/// lowercased (a clean filter that hides a change of case).
pub(crate) struct Planted {
    pub(crate) dir: tempfile::TempDir,
}

impl Planted {
    pub(crate) fn new() -> Planted {
        let planted = Planted {
            dir: tempfile::tempdir().unwrap(),
        };
        let script = format!(
            "#!/bin/sh\ntouch '{}'\n[ \"$1\" = exit ] && exit 0\nexec tr A-Z a-z\n",
            planted.marker().display()
        );
        std::fs::write(planted.script(), script).unwrap();
        let mut permissions = std::fs::metadata(planted.script()).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(planted.script(), permissions).unwrap();
        planted
    }

    pub(crate) fn script(&self) -> PathBuf {
        self.dir.path().join("planted.sh")
    }

    pub(crate) fn marker(&self) -> PathBuf {
        self.dir.path().join("ran")
    }

    /// `config` with every `PROGRAM` replaced by the script.
    pub(crate) fn naming_it(&self, config: &str) -> String {
        config.replace("PROGRAM", &self.script().display().to_string())
    }

    #[track_caller]
    pub(crate) fn assert_not_run(&self, case: &str) {
        assert!(
            !self.marker().exists(),
            "{case}: the planted program ran while the signals were read"
        );
    }
}

/// Every program-running key there is to plant: filter drivers (required),
/// diff drivers, the fsmonitor hook, credential programs and a few that
/// only other git commands run. `PROGRAM` stands for the program.
pub(crate) const EVERY_KEY: &str = "\
[filter \"planted\"]
\tprocess = PROGRAM exit
\tclean = PROGRAM
\tsmudge = PROGRAM
\trequired = true
[diff \"planted\"]
\ttextconv = PROGRAM
\tcommand = PROGRAM
[core]
\tfsmonitor = PROGRAM
\taskPass = PROGRAM
\tsshCommand = PROGRAM
[credential]
\thelper = !PROGRAM
[gpg]
\tprogram = PROGRAM
";

/// Appends `config` to the git configuration file at `path`.
pub(crate) fn append_config(path: &Path, config: &str) {
    let mut text = std::fs::read_to_string(path).unwrap();
    text.push_str(config);
    std::fs::write(path, text).unwrap();
}

/// A repository with `modified.txt`, `hidden.txt` and a `.gitattributes`
/// giving every `.txt` file the filter and the diff driver `planted`,
/// committed; then `config` (naming the planted program) appended to
/// `.git/config`, and both files changed without changing their size, so
/// that their content has to be compared: `modified.txt` for real,
/// `hidden.txt` only in case, which the planted clean filter would hide.
pub(crate) fn fixture(planted: &Planted, config: &str) -> Repo {
    let repo = Repo::new();
    repo.write(".gitattributes", "*.txt filter=planted diff=planted\n");
    repo.write("modified.txt", "before\n");
    repo.write("hidden.txt", "hidden\n");
    repo.commit_all("initial");
    append_config(&repo.root().join(".git/config"), &planted.naming_it(config));
    repo.write("modified.txt", "after!\n");
    repo.write("hidden.txt", "HIDDEN\n");
    repo
}
