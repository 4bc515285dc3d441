//! A repository's git configuration naming programs: the change signals run none of them.
//!
//! Each case plants one kind of program-running key naming a script that
//! leaves a marker behind when it runs ([`Planted`]), in the repository of
//! [`fixture`], where two tracked files changed at their size must be
//! compared: one for real, one only in a way the planted clean filter would
//! hide. The signals must list both and the marker must not exist. Where
//! some git command runs the planted program, the case shows it, so that
//! each plant is known to be live.

use std::process::Stdio;

use pretty_assertions::assert_eq;

use super::planted::{EVERY_KEY, Planted, append_config, fixture};
use super::*;

/// Plants `config`, reads the changes, and asserts that nothing ran and
/// that both changed files are listed (the one the filter would hide too).
#[track_caller]
fn check(case: &str, config: &str) -> (Planted, Repo) {
    let planted = Planted::new();
    let repo = fixture(&planted, config);
    let changes = GitChanges::new()
        .repository_config_only()
        .changes(repo.root())
        .unwrap_or_else(|err| panic!("{case}: {err}"));
    planted.assert_not_run(case);
    let files: Vec<&str> = changes.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(files, ["hidden.txt", "modified.txt"], "{case}");
    assert_eq!(changes.diagnostics, Vec::<String>::new(), "{case}");
    // The startup signals, which jit builds from the same source.
    let root = repo.utf8_root();
    let signals = startup_signals(&root, &root, &GitChanges::new().repository_config_only());
    planted.assert_not_run(case);
    assert_eq!(signals.signals, ["hidden.txt", "modified.txt"], "{case}");
    (planted, repo)
}

/// Runs `git args` in the repository (with `input` on stdin), whatever its
/// exit status: to show that git itself runs the planted program.
fn git_runs(repo: &Repo, args: &[&str], input: &str) {
    let mut child = repo
        .git_command(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        // These would take the place of `core.askPass`.
        .env_remove("GIT_ASKPASS")
        .env_remove("SSH_ASKPASS")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    child.wait().unwrap();
}

#[test]
fn a_filter_process_never_runs() {
    check(
        "filter.planted.process",
        "[filter \"planted\"]\n\tprocess = PROGRAM exit\n",
    );
}

#[test]
fn a_required_filter_process_never_runs() {
    check(
        "filter.planted.process, required",
        "[filter \"planted\"]\n\tprocess = PROGRAM exit\n\trequired = true\n",
    );
}

#[test]
fn a_clean_filter_never_runs_and_what_it_would_hide_is_listed() {
    let (planted, repo) = check(
        "filter.planted.clean",
        "[filter \"planted\"]\n\tclean = PROGRAM\n",
    );
    // git runs the filter, which hides the change of case: the case is live.
    assert_eq!(repo.porcelain_paths(), [b"modified.txt".to_vec()]);
    assert!(
        planted.marker().exists(),
        "git did not run the clean filter"
    );
}

#[test]
fn a_required_clean_filter_never_runs() {
    check(
        "filter.planted.clean, required",
        "[filter \"planted\"]\n\tclean = PROGRAM\n\trequired = true\n",
    );
}

#[test]
fn a_smudge_filter_never_runs() {
    let (planted, repo) = check(
        "filter.planted.smudge, required",
        "[filter \"planted\"]\n\tsmudge = PROGRAM\n\trequired = true\n",
    );
    // git runs it when it checks a file out (given a clean filter, which a
    // required filter needs to read the file it replaces).
    repo.git(&[
        "-c",
        "filter.planted.clean=cat",
        "checkout",
        "--",
        "modified.txt",
    ]);
    assert!(
        planted.marker().exists(),
        "git did not run the smudge filter"
    );
}

#[test]
fn a_textconv_never_runs() {
    let (planted, repo) = check(
        "diff.planted.textconv",
        "[diff \"planted\"]\n\ttextconv = PROGRAM\n",
    );
    git_runs(&repo, &["diff"], "");
    assert!(planted.marker().exists(), "git did not run the textconv");
}

#[test]
fn an_external_diff_never_runs() {
    check(
        "diff.planted.command",
        "[diff \"planted\"]\n\tcommand = PROGRAM\n",
    );
}

#[test]
fn an_fsmonitor_hook_never_runs() {
    let (planted, repo) = check("core.fsmonitor", "[core]\n\tfsmonitor = PROGRAM\n");
    git_runs(&repo, &["status", "--porcelain"], "");
    assert!(
        planted.marker().exists(),
        "git did not run the fsmonitor hook"
    );
}

#[test]
fn an_askpass_program_never_runs() {
    let (planted, repo) = check("core.askPass", "[core]\n\taskPass = PROGRAM\n");
    git_runs(
        &repo,
        &["credential", "fill"],
        "protocol=https\nhost=example.invalid\n\n",
    );
    assert!(planted.marker().exists(), "git did not run core.askPass");
}

#[test]
fn a_credential_helper_never_runs() {
    let (planted, repo) = check("credential.helper", "[credential]\n\thelper = !PROGRAM\n");
    git_runs(
        &repo,
        &["credential", "fill"],
        "protocol=https\nhost=example.invalid\n\n",
    );
    assert!(
        planted.marker().exists(),
        "git did not run the credential helper"
    );
}

#[test]
fn hooks_never_run() {
    let planted = Planted::new();
    let repo = fixture(&planted, "");
    for hook in [
        "post-index-change",
        "pre-commit",
        "post-checkout",
        "fsmonitor-watchman",
    ] {
        let path = repo.root().join(".git/hooks").join(hook);
        std::fs::copy(planted.script(), &path).unwrap();
    }
    let changes = repo.changes("");
    planted.assert_not_run("hooks");
    let files: Vec<&str> = changes.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(files, ["hidden.txt", "modified.txt"]);
}

/// A file the filter covers is listed when its content would have to be
/// compared, even with the very content the index holds (`rewritten.txt`,
/// written again: its `stat` data no longer proves it unchanged, and only
/// the driver could say), and not when its `stat` data proves it unchanged
/// (`untouched.txt`: nothing to compare, nothing to run). Every key is
/// planted.
#[test]
fn a_filtered_file_is_listed_when_it_needs_comparing_and_only_then() {
    let planted = Planted::new();
    let repo = Repo::new();
    repo.write(".gitattributes", "*.txt filter=planted diff=planted\n");
    repo.write("modified.txt", "before\n");
    repo.write("rewritten.txt", "same\n");
    repo.write("untouched.txt", "same\n");
    repo.commit_all("initial");
    // The files dated back and their `stat` data recorded again, so that
    // the index proves them unchanged, before anything is planted.
    backdate_files(repo.root(), SystemTime::now() - Duration::from_secs(60));
    repo.git(&["update-index", "--refresh"]);
    append_config(
        &repo.root().join(".git/config"),
        &planted.naming_it(EVERY_KEY),
    );
    repo.write("modified.txt", "after!\n");
    repo.write("rewritten.txt", "same\n");
    let changes = repo.changes("");
    planted.assert_not_run("every key");
    let files: Vec<&str> = changes.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(files, ["modified.txt", "rewritten.txt"]);
}

#[test]
fn every_key_at_once_runs_nothing() {
    let planted = Planted::new();
    let repo = fixture(&planted, EVERY_KEY);
    let changes = repo.changes("");
    planted.assert_not_run("every key");
    let files: Vec<&str> = changes.files.iter().map(|file| file.as_str()).collect();
    assert_eq!(files, ["hidden.txt", "modified.txt"]);
}

/// A submodule's own configuration (in `.git/modules/NAME/config`, which a
/// repository can ship like the rest of `.git`) is read for the
/// submodule's status: nothing it names runs either, and the submodule
/// with a changed file is listed.
#[test]
fn programs_a_submodule_configures_never_run() {
    let planted = Planted::new();
    let library = Repo::new();
    library.write(".gitattributes", "*.txt filter=planted diff=planted\n");
    library.write("lib.txt", "before\n");
    library.commit_all("initial");
    let repo = Repo::with_commit(&["README.md"]);
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        library.root().to_str().unwrap(),
        "vendor/library",
    ]);
    repo.commit_all("add the submodule");
    // The submodule's files dated back and their `stat` data recorded
    // again: a file that needs a comparison, which a filter driver would
    // make, counts as changed, and one the index proves unchanged needs
    // none.
    backdate_files(repo.root(), SystemTime::now() - Duration::from_secs(60));
    repo.git(&["-C", "vendor/library", "update-index", "--refresh"]);
    append_config(
        &repo.root().join(".git/modules/vendor/library/config"),
        &planted.naming_it(EVERY_KEY),
    );
    assert_eq!(repo.changes("").files, Vec::<Utf8PathBuf>::new());
    planted.assert_not_run("a clean submodule");
    repo.write("vendor/library/lib.txt", "after!\n");
    assert_eq!(
        repo.changes("").files,
        [Utf8PathBuf::from("vendor/library")]
    );
    planted.assert_not_run("a submodule with a changed file");
}

/// A driver named through an attribute macro (`[attr]NAME filter=…`) is
/// found as one named directly is. `modified.txt` is written again with
/// the content the index holds: its `stat` data no longer proves it
/// unchanged, its content would go through the driver, so it is listed
/// (git, running the filter, lists nothing), and nothing runs.
#[test]
fn a_driver_named_through_a_macro_never_runs_and_its_files_are_listed() {
    let planted = Planted::new();
    let repo = fixture(&planted, "[filter \"planted\"]\n\tclean = PROGRAM\n");
    repo.write(
        ".gitattributes",
        "[attr]planted-macro filter=planted\n*.txt planted-macro\n",
    );
    repo.commit_all("the filter through a macro");
    repo.write("modified.txt", "after!\n");
    std::fs::remove_file(planted.marker()).unwrap();
    let changes = repo.changes("");
    planted.assert_not_run("a macro");
    let files: Vec<&str> = changes.files.iter().map(|file| file.as_str()).collect();
    assert!(files.contains(&"modified.txt"), "{files:?}");
    assert_eq!(repo.porcelain_paths(), Vec::<Vec<u8>>::new());
    assert!(
        planted.marker().exists(),
        "git did not run the clean filter"
    );
}
