//! The git change source the commands give the startup load: asked for the session's cwd subtree only, and started ahead of the project walk when the repository has a rule folder, so the two overlap.

use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{ChangeSet, ChangeSource, all_sources, relative_to};

/// What a change source answers.
type Answer = Result<ChangeSet, Box<dyn std::error::Error + Send + Sync>>;

/// Changed files of the cwd subtree, from git.
///
/// The startup signals are the changed files inside the cwd subtree, so the
/// status is asked for that subtree alone (a pathspec: in a monorepo, a
/// fraction of the work) and its answer made root-relative again. The
/// status runs only when the startup load asks, which it does when a scoped
/// rule needs the signals; when the root holds a rule folder (where scoped
/// rules live), it is started at once on its own thread, so it runs while
/// the project is walked for conventions and the rule index.
#[derive(Debug)]
pub(crate) struct StartupGit {
    root: Utf8PathBuf,
    /// The cwd relative to `root`; empty at the root or outside it.
    subtree: Utf8PathBuf,
    /// The answer of the status started ahead, until it is taken.
    ahead: Mutex<Option<Receiver<Answer>>>,
}

impl StartupGit {
    /// The source for a session in `cwd` of the project at `root` (both
    /// canonical), started ahead when `root` holds a rule folder.
    pub(crate) fn new(root: &Utf8Path, cwd: &Utf8Path) -> Arc<Self> {
        let source = Self::lazy(root, cwd);
        if has_rule_folder(root) {
            source.start();
        }
        source
    }

    /// The source for a session in `cwd` of the project at `root`, which
    /// runs the status only when asked (a hook call that may not start a
    /// context at all).
    pub(crate) fn lazy(root: &Utf8Path, cwd: &Utf8Path) -> Arc<Self> {
        let subtree = relative_to(cwd, root)
            .map(Utf8Path::to_owned)
            .unwrap_or_default();
        Arc::new(StartupGit {
            root: root.to_owned(),
            subtree,
            ahead: Mutex::new(None),
        })
    }

    /// Starts the status on its own thread; its answer waits for the ask.
    fn start(&self) {
        let (send, receive) = mpsc::channel();
        let (root, subtree) = (self.root.clone(), self.subtree.clone());
        let started = std::thread::Builder::new()
            .name("jit-git-ahead".to_owned())
            .spawn(move || {
                // The receiver may be gone (no scoped rule asked): nothing to do.
                let _ = send.send(status(&root, &subtree));
            });
        if started.is_ok()
            && let Ok(mut ahead) = self.ahead.lock()
        {
            *ahead = Some(receive);
        }
    }
}

impl ChangeSource for StartupGit {
    fn changed_files(&self, root: &Utf8Path) -> Answer {
        if root != self.root {
            return status(root, Utf8Path::new(""));
        }
        let ahead = self.ahead.lock().ok().and_then(|mut ahead| ahead.take());
        match ahead.map(|receive| receive.recv()) {
            Some(Ok(answer)) => answer,
            // Not started, or its thread is gone: ask now.
            Some(Err(_)) | None => status(&self.root, &self.subtree),
        }
    }
}

/// The changed files under `root/subtree`, relative to `root`.
fn status(root: &Utf8Path, subtree: &Utf8Path) -> Answer {
    let mut changes = jit_git::GitChanges::new().changes(root.join(subtree).as_std_path())?;
    if !subtree.as_str().is_empty() {
        for file in &mut changes.files {
            *file = subtree.join(&*file);
        }
    }
    Ok(changes)
}

/// Whether the root holds a rule folder of a shipped convention
/// (`.claude/rules`, `.cursor/rules`, `.github/instructions`, ...), where
/// scoped rules usually live: worth starting the status ahead.
fn has_rule_folder(root: &Utf8Path) -> bool {
    all_sources().iter().any(|source| {
        source
            .rule_dirs()
            .iter()
            .any(|dir| root.join(&dir.path).is_dir())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Utf8Path, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", dir.as_str())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn repo(rule_folder: bool) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        for path in ["CLAUDE.md", "src/ui/a.ts", "docs/b.md"] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x\n").unwrap();
        }
        if rule_folder {
            std::fs::create_dir_all(root.join(".claude/rules")).unwrap();
        }
        git(&root, &["init", "-q"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-qm", "init"]);
        std::fs::write(root.join("src/ui/a.ts"), "changed\n").unwrap();
        std::fs::write(root.join("src/ui/new.ts"), "new\n").unwrap();
        std::fs::write(root.join("docs/b.md"), "changed\n").unwrap();
        (dir, root)
    }

    fn files(answer: Answer) -> Vec<String> {
        let mut files: Vec<String> = answer
            .unwrap()
            .files
            .iter()
            .map(ToString::to_string)
            .collect();
        files.sort();
        files
    }

    /// From a subdirectory, only its changed files, root-relative; from the
    /// root, all of them. Started ahead or not, the answer is the same.
    #[test]
    fn the_cwd_subtree_alone_root_relative_ahead_or_not() {
        for rule_folder in [false, true] {
            let (_dir, root) = repo(rule_folder);
            let source = StartupGit::new(&root, &root.join("src"));
            assert_eq!(
                source.ahead.lock().unwrap().is_some(),
                rule_folder,
                "started ahead only with a rule folder"
            );
            assert_eq!(
                files(source.changed_files(&root)),
                ["src/ui/a.ts", "src/ui/new.ts"]
            );
            // Asked again (the answer ahead is taken once), the same.
            assert_eq!(
                files(source.changed_files(&root)),
                ["src/ui/a.ts", "src/ui/new.ts"]
            );
            let whole = StartupGit::lazy(&root, &root);
            assert!(whole.ahead.lock().unwrap().is_none());
            assert_eq!(
                files(whole.changed_files(&root)),
                ["docs/b.md", "src/ui/a.ts", "src/ui/new.ts"]
            );
        }
    }

    /// Outside a repository the error comes through, as from git itself.
    #[test]
    fn outside_a_repository_the_error_comes_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        std::fs::create_dir_all(root.join(".claude/rules")).unwrap();
        let source = StartupGit::new(&root, &root);
        let err = source.changed_files(&root).unwrap_err().to_string();
        assert!(err.contains("not inside a git repository"), "{err}");
    }
}
