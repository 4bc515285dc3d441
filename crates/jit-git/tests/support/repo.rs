//! A throwaway git repository for jit-git's tests, shared by its unit tests
//! (`src/lib.rs` includes it as `test_repo` for `src/untracked_cache/tests.rs`
//! and `src/stat_check/tests.rs`), its integration tests (`tests/git.rs`) and
//! its `signals` bench: each includes this file, and adds what it needs.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

/// A throwaway repository plus a throwaway `HOME` for the `git` it spawns.
pub(crate) struct Repo {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) home: tempfile::TempDir,
}

impl Repo {
    /// An empty repository on branch `main` with an identity of its own.
    pub(crate) fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A repository with `files` committed.
    pub(crate) fn with_commit(files: &[&str]) -> Repo {
        let repo = Repo::new();
        for file in files {
            repo.write(file, &format!("content of {file}\n"));
        }
        repo.commit_all("initial");
        repo
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `git` in the repository with no system or global configuration.
    pub(crate) fn git(&self, args: &[&str]) -> Vec<u8> {
        let output = self.git_command(args).output().unwrap();
        assert!(
            output.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    }

    pub(crate) fn git_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .args(args)
            .current_dir(self.root())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE");
        command
    }

    pub(crate) fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    pub(crate) fn write(&self, path: impl AsRef<Path>, content: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// Every path `git status --porcelain -z -uall` prints (both of a
    /// rename's), sorted, as bytes, with git run in the subdirectory `sub`
    /// (porcelain paths stay relative to the worktree root that git finds).
    /// git runs without optional locks: it leaves the index as it was.
    pub(crate) fn porcelain_paths_in(&self, sub: &str) -> Vec<Vec<u8>> {
        let output = self
            .git_command(&[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "-z",
                "-uall",
            ])
            .current_dir(self.root().join(sub))
            .output()
            .unwrap();
        assert!(output.status.success(), "git status failed in {sub:?}");
        let out = output.stdout;
        let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
        let mut paths = Vec::new();
        while let Some(record) = fields.next() {
            assert!(record.len() > 3, "short porcelain record {record:?}");
            let (xy, path) = (&record[..2], &record[3..]);
            paths.push(path.to_vec());
            // A rename or copy carries its original path in the next field.
            if xy.contains(&b'R') || xy.contains(&b'C') {
                paths.push(fields.next().unwrap().to_vec());
            }
        }
        paths.sort();
        paths.dedup();
        paths
    }
}

/// Sets the modification time of `dir` and every directory below it (git
/// directories aside) to `time`, so that none counts as changed in the
/// second an index written now is written (git's racy rule).
pub(crate) fn backdate(dir: &Path, time: SystemTime) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() && entry.file_name() != ".git" {
            backdate(&entry.path(), time);
        }
    }
    let times = std::fs::FileTimes::new().set_modified(time);
    std::fs::File::open(dir).unwrap().set_times(times).unwrap();
}

/// Sets the times of every file and symbolic link below `dir` (git
/// directories aside; links themselves, not their targets) to `time`, so
/// that an index written now holds none of them as changed in its second.
pub(crate) fn backdate_files(dir: &Path, time: SystemTime) {
    let since = time.duration_since(SystemTime::UNIX_EPOCH).unwrap();
    let at = rustix::event::Timespec {
        tv_sec: i64::try_from(since.as_secs()).unwrap(),
        tv_nsec: i64::from(since.subsec_nanos()),
    };
    let times = rustix::fs::Timestamps {
        last_access: at,
        last_modification: at,
    };
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".git" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            backdate_files(&entry.path(), time);
        } else {
            rustix::fs::utimensat(
                rustix::fs::CWD,
                entry.path(),
                &times,
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
            )
            .unwrap();
        }
    }
}
