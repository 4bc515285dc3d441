//! Differential oracle: real `/bin/bash` runs the corpus commands that only create files, and every reported path must be among what it wrote.
//!
//! The crate promises the paths a command *certainly* writes. This test holds
//! it to that against bash itself: each eligible command of
//! `tests/cases/*.txt` runs in a fresh temporary tree (working directory
//! `root/work`, `HOME` at `root/home`), with the files it reads seeded and
//! dated in the past, and a `PATH` holding only file utilities (no `rm`, no
//! network, no interpreter). The tree is compared before and after; every
//! path `written_paths` reports must be new or changed (content, time or
//! identity), or a directory whose entries changed: reported ⊆ written.
//!
//! A command is eligible when it runs every command it names: no `||`, `if`,
//! `while`, `until`, `case`, function definitions or background jobs (the
//! crate reports the writes of every branch, which bash runs at most one of),
//! and no absolute path outside `/dev` (nothing may be written outside the
//! temporary tree). It counts only when bash exits with 0 under
//! `set -e -o pipefail`, so every command in it ran and succeeded, and when
//! the crate reports at least one path. A minimum of such cases is required,
//! so the filter cannot quietly empty the test. `ORACLE_DEBUG=1` lists the
//! commands that failed under bash (a missing program, BSD-only syntax).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a broken fixture should stop the test loudly"
)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use jit_bash::written_paths;

/// Fewer checked cases than this means the filter or the environment broke.
const MIN_CHECKED: usize = 120;

/// The programs on `PATH` while a command runs.
const TOOLS: &[&str] = &[
    "touch", "mkdir", "cp", "mv", "install", "tee", "sed", "sort", "uniq", "cat", "ls", "head",
    "tail", "grep", "wc", "tr", "printf", "echo", "true", "diff", "chmod", "nohup",
];

#[path = "common/cases.rs"]
mod cases;
use cases::cases;

/// Why a command is not run, if it is not.
fn ineligible(command: &str) -> Option<&'static str> {
    let padded = format!(" {command} ");
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || ";|&()".contains(c))
        .collect();
    if command.contains("||") {
        return Some("`||` runs its right side only on failure");
    }
    for keyword in ["if", "while", "until", "case", "function", "false"] {
        if words.contains(&keyword) {
            return Some("a branch or loop that may not run");
        }
    }
    if command.contains(">(") || command.contains("<(") || words.contains(&"coproc") {
        return Some("a process substitution or coprocess runs asynchronously");
    }
    if command.contains("()") {
        return Some("a function body runs only when called");
    }
    // A lone `&` puts a job in the background; `&&`, `&>`, `>&` do not.
    let bytes = padded.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'&' {
            let prev = bytes.get(i.wrapping_sub(1)).copied().unwrap_or(b' ');
            let next = bytes.get(i + 1).copied().unwrap_or(b' ');
            if !matches!(prev, b'&' | b'>' | b'<') && !matches!(next, b'&' | b'>') {
                return Some("a background job");
            }
        }
    }
    // Absolute paths other than devices, and a climb out of the tree.
    for (i, _) in padded.match_indices('/') {
        let before = padded
            .as_bytes()
            .get(i.wrapping_sub(1))
            .copied()
            .unwrap_or(b' ');
        if b" \t\n=<>|;&('\"".contains(&before) && !padded[i..].starts_with("/dev/") {
            return Some("an absolute path outside /dev");
        }
    }
    // `cd` is deliberately not followed (paths stay relative to the call's
    // directory, see `cd_is_not_followed` in tests/corpus.rs), so after a
    // `cd` a reported path names another file than the one bash writes.
    if words.contains(&"cd") || words.contains(&"pushd") {
        return Some("cd is not followed, by design");
    }
    if command.contains("../..") {
        return Some("a path out of the temporary tree");
    }
    None
}

/// What the tree holds at one path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    dir: bool,
    inode: u64,
    mtime: (i64, i64),
    content: Vec<u8>,
}

/// Every path under `root`, walked without recursion.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let content = if meta.is_file() {
                fs::read(&path).unwrap()
            } else {
                Vec::new()
            };
            if meta.is_dir() {
                stack.push(path.clone());
            }
            out.insert(
                path,
                Entry {
                    dir: meta.is_dir(),
                    inode: meta.ino(),
                    mtime: (meta.mtime(), meta.mtime_nsec()),
                    content,
                },
            );
        }
    }
    out
}

/// Words that name commands or shell syntax rather than files.
const NOT_FILES: &[&str] = &[
    "EOF", "do", "done", "then", "fi", "in", "for", "nohup", "command", "exec", "builtin", "time",
    "coproc", "export", "sudo", "make", "npm", "cargo", "git", "python", "python3",
];

/// The plain words of a command (only path characters, not an option, not a
/// command name), any of which it may read.
fn plain_words(command: &str) -> Vec<String> {
    command
        .split(|c: char| c.is_whitespace() || ";|&()<>\"'`=".contains(c))
        .filter(|w| !w.is_empty() && !w.starts_with('-') && !w.starts_with('/'))
        .filter(|w| {
            w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c))
        })
        .filter(|w| !w.split('/').any(|part| part == ".."))
        .filter(|w| !TOOLS.contains(w) && !NOT_FILES.contains(w))
        .map(str::to_owned)
        .collect()
}

/// Seeds what a command may read, as a real repository would hold it: the
/// parent directory of every word and reported path, every plain word it
/// does not report (a directory when it ends in `/`), the reported files it
/// edits in place (`sed -i`), and the reported directories it copies into
/// (`cp … dir/`, `cp -t dir`). Everything seeded is dated in the past, so any
/// write shows.
fn seed(work: &Path, command: &str, reported: &[String]) {
    let in_place = command.contains("sed ");
    let copies_into = ["cp ", "mv ", "install "]
        .iter()
        .any(|c| command.contains(c));
    let target_option = command.contains(" -t") || command.contains("--target");
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for path in reported {
        if let Some(parent) = Path::new(path).parent() {
            dirs.push(parent.to_path_buf());
        }
    }
    for word in plain_words(command) {
        let is_reported = reported
            .iter()
            .any(|r| r.trim_end_matches('/') == word.trim_end_matches('/'));
        if let Some(parent) = Path::new(&word).parent() {
            dirs.push(parent.to_path_buf());
        }
        if word.ends_with('/') || (is_reported && copies_into && target_option) {
            if !is_reported || copies_into {
                dirs.push(PathBuf::from(&word));
            }
        } else if !is_reported || in_place {
            files.push(word);
        }
    }
    for dir in &dirs {
        let _ = fs::create_dir_all(work.join(dir));
    }
    for file in &files {
        let path = work.join(file);
        if path.exists() {
            continue;
        }
        if fs::write(&path, "a foo old line\nb\n").is_ok() {
            let f = fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(old).unwrap();
        }
    }
    // Directories last, since creating their entries touched them.
    let mut stack = vec![work.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            }
        }
        fs::File::open(&dir).unwrap().set_modified(old).unwrap();
    }
}

/// A directory holding a link to each tool, to be the whole `PATH`.
fn tool_dir() -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    for tool in TOOLS {
        for dir in ["/usr/bin", "/bin"] {
            let target = Path::new(dir).join(tool);
            if target.exists() {
                std::os::unix::fs::symlink(&target, bin.path().join(tool)).unwrap();
                break;
            }
        }
    }
    bin
}

/// Runs one command under bash in a fresh tree and returns whether it
/// succeeded, the tree root, and the snapshots before and after.
fn run(
    command: &str,
    reported: &[String],
    bin: &Path,
) -> (
    bool,
    tempfile::TempDir,
    BTreeMap<PathBuf, Entry>,
    BTreeMap<PathBuf, Entry>,
) {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let home = root.path().join("home");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(&home).unwrap();
    seed(&work, command, reported);
    let before = snapshot(root.path());
    let status = Command::new("/bin/bash")
        .args([
            "--norc",
            "--noprofile",
            "-e",
            "-o",
            "pipefail",
            "-c",
            command,
        ])
        .current_dir(&work)
        .env_clear()
        .env("PATH", bin)
        .env("HOME", &home)
        .env("TMPDIR", root.path())
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let after = snapshot(root.path());
    (status.success(), root, before, after)
}

/// Whether `reported`, relative to `work`, was written: new or changed, or a
/// directory with a new or changed entry below it.
fn was_written(
    work: &Path,
    reported: &str,
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
) -> bool {
    let mut path = work.to_path_buf();
    for part in reported.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            other => path.push(other),
        }
    }
    let changed = |p: &PathBuf| after.get(p).is_some() && after.get(p) != before.get(p);
    changed(&path) || after.keys().any(|p| p.starts_with(&path) && changed(p))
}

#[test]
fn every_reported_path_is_written_by_bash() {
    if !Path::new("/bin/bash").exists() {
        panic!("/bin/bash is needed for the differential oracle");
    }
    let bin = tool_dir();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut checked = 0;
    let mut paths_checked = 0;
    let mut failures = Vec::new();
    let mut skipped_filter = 0;
    let mut failed_runs = 0;
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for command in cases(&text) {
            if ineligible(&command).is_some() {
                skipped_filter += 1;
                continue;
            }
            let analysis = written_paths(&command);
            if analysis.paths.is_empty() {
                continue;
            }
            let (ok, root, before, after) = run(&command, &analysis.paths, bin.path());
            if !ok {
                failed_runs += 1;
                if std::env::var_os("ORACLE_DEBUG").is_some() {
                    eprintln!("failed: {command:?} {:?}", analysis.paths);
                }
                continue;
            }
            checked += 1;
            let work = root.path().join("work");
            for path in &analysis.paths {
                paths_checked += 1;
                if !was_written(&work, path, &before, &after) {
                    failures.push(format!(
                        "{command:?} reports {path:?}, which bash did not write"
                    ));
                }
            }
        }
    }
    eprintln!(
        "{checked} commands ran and were checked, {paths_checked} reported paths, {skipped_filter} left out by the filter, {failed_runs} failed under bash"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= MIN_CHECKED,
        "only {checked} commands ran and were checked ({paths_checked} paths); expected at least {MIN_CHECKED}"
    );
}

#[test]
fn the_oracle_catches_a_path_that_is_not_written() {
    // The check itself must be able to fail: a command that writes `a.txt`
    // does not write `b.txt`.
    let bin = tool_dir();
    let (ok, root, before, after) = run("touch a.txt", &["a.txt".to_owned()], bin.path());
    assert!(ok);
    let work = root.path().join("work");
    assert!(was_written(&work, "a.txt", &before, &after));
    assert!(!was_written(&work, "b.txt", &before, &after));
    // A seeded file that a command only reads is not written.
    let (ok, root, before, after) =
        run("cat in.txt > out.txt", &["out.txt".to_owned()], bin.path());
    assert!(ok);
    let work = root.path().join("work");
    assert!(was_written(&work, "out.txt", &before, &after));
    assert!(!was_written(&work, "in.txt", &before, &after));
}

#[test]
fn the_filter_leaves_out_what_may_not_run_or_escapes() {
    for command in [
        "touch a || touch b",
        "if true; then touch a; fi",
        "f() { touch a; }",
        "touch bg & touch fg",
        "echo x > /tmp/x",
        "cd /elsewhere; mkdir out",
        "touch ../../x",
        "coproc touch c",
        "echo a > >(tee t)",
    ] {
        assert!(ineligible(command).is_some(), "{command}");
    }
    for command in [
        "touch a && touch b",
        "make 2>&1 | tee log",
        "echo x &> all.log",
        "echo x > /dev/null",
    ] {
        assert_eq!(ineligible(command), None, "{command}");
    }
}
