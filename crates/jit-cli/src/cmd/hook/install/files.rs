//! Reading, backing up and atomically replacing a settings file, and the diff a dry run prints.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The file's bytes, or `None` when there is no such file.
pub(super) fn read_if_exists(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The file's text, or `None` when there is no such file.
pub(super) fn read_text_if_exists(path: &Path) -> anyhow::Result<Option<String>> {
    read_if_exists(path)?
        .map(|bytes| {
            String::from_utf8(bytes)
                .map_err(|err| anyhow::anyhow!("{} is not UTF-8 text: {err}", path.display()))
        })
        .transpose()
}

/// `<file name>.jit-backup`, next to `path`.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".jit-backup");
    path.with_file_name(name)
}

/// Copies `original` (the bytes just read from `path`) to `backup`, unless a
/// backup is already there: that one holds the file as it was before jit's
/// first install, which is what an uninstall should come back to. Returns
/// whether a backup was written.
pub(super) fn back_up(original: &[u8], backup: &Path) -> anyhow::Result<bool> {
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(backup);
    let mut file = match created {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(err) => {
            return Err(err).with_context(|| format!("cannot create {}", backup.display()));
        }
    };
    file.write_all(original)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", backup.display()))?;
    Ok(true)
}

/// Replaces `path` with `bytes` so that a reader never sees half a file: the
/// bytes go to a temporary file in the same folder (a rename across file
/// systems would not be atomic), which is then renamed over `path`. The
/// replaced file's permissions carry over.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".jit-tmp-{}", std::process::id()));
    let temp = dir.join(name);
    let result = write_then_rename(&temp, path, bytes);
    if result.is_err() {
        // Best effort: the error that matters is the one being returned.
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn write_then_rename(temp: &Path, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file =
        std::fs::File::create(temp).with_context(|| format!("cannot create {}", temp.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", temp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(temp, meta.permissions())
            .with_context(|| format!("cannot set the permissions of {}", temp.display()))?;
    }
    std::fs::rename(temp, path)
        .with_context(|| format!("cannot replace {} with {}", path.display(), temp.display()))
}

/// A unified diff from `old` to `new`, both labelled `label` (a path
/// relative to the folder the change applies in, as `git diff` writes it).
pub(super) fn unified_diff(old: &str, new: &str, label: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{label}"), &format!("b/{label}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_backup_keeps_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let backup = backup_path(&dir.path().join("settings.json"));
        assert_eq!(backup.file_name().unwrap(), "settings.json.jit-backup");
        assert!(back_up(b"first", &backup).unwrap());
        assert!(!back_up(b"second", &backup).unwrap());
        assert_eq!(std::fs::read(&backup).unwrap(), b"first");
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/settings.json");
        write_atomic(&path, b"{}\n").unwrap();
        write_atomic(&path, b"{ }\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{ }\n");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["settings.json"]);
    }

    #[test]
    fn the_diff_has_git_style_headers() {
        let diff = unified_diff("{\n}\n", "{\n  \"a\": 1\n}\n", ".codex/hooks.json");
        assert_eq!(
            diff,
            "--- a/.codex/hooks.json\n+++ b/.codex/hooks.json\n@@ -1,2 +1,3 @@\n {\n+  \"a\": 1\n }\n"
        );
    }
}
