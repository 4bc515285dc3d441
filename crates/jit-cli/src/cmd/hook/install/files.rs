//! Reading, backing up and atomically replacing a settings file, and the diff a dry run prints.
//!
//! A settings file is opened as the project's other files are
//! (`jit_core::open_regular`: no blocking, no final link followed, the type
//! judged on the open descriptor), so a named pipe, a device or a directory
//! in its place is refused at once. Its replacement gets the owner, group
//! and mode of the file it replaces, and a file its owner made read-only is
//! refused rather than replaced.

use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A settings file as it was read.
#[derive(Debug)]
pub(super) struct Existing {
    pub text: String,
    /// Taken from the open descriptor the text was read from.
    pub meta: Metadata,
}

/// The regular file at `path`, its bytes and its metadata, or `None` when
/// there is no such file. Anything else in its place is an error naming it.
fn read_regular(path: &Path) -> anyhow::Result<Option<(Vec<u8>, Metadata)>> {
    let (mut file, meta) = match jit_core::open_regular(path) {
        Ok(opened) => opened,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) if err.kind() == std::io::ErrorKind::InvalidInput => anyhow::bail!(
            "cannot edit {}: {err}; jit reads and replaces only a regular file",
            path.display()
        ),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some((bytes, meta)))
}

/// The file's bytes, or `None` when there is no such file.
pub(super) fn read_if_exists(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    Ok(read_regular(path)?.map(|(bytes, _)| bytes))
}

/// The settings file's text and metadata, or `None` when there is no such file.
pub(super) fn read_settings(path: &Path) -> anyhow::Result<Option<Existing>> {
    read_regular(path)?
        .map(|(bytes, meta)| {
            let text = String::from_utf8(bytes)
                .map_err(|err| anyhow::anyhow!("{} is not UTF-8 text: {err}", path.display()))?;
            Ok(Existing { text, meta })
        })
        .transpose()
}

/// Refuses to change a file its owner cannot write: a settings file made
/// read-only (`chmod a-w`, or a file a configuration manager keeps) is
/// meant to stay as it is, and a rename over it, or a root user, would
/// change it anyway.
pub(super) fn check_writable(path: &Path, meta: &Metadata) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o200 == 0 {
            anyhow::bail!(
                "{0} is read-only (mode {mode:04o}): jit does not replace a file its owner \
                 made read-only; make it writable (chmod u+w {0}) and run the command again",
                path.display()
            );
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        anyhow::bail!(
            "{0} is read-only: jit does not replace a read-only file; make it writable \
             and run the command again",
            path.display()
        );
    }
    Ok(())
}

/// `<file name>.jit-backup`, next to `path`.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".jit-backup");
    path.with_file_name(name)
}

/// Copies `original` (the bytes just read from a file whose metadata is
/// `like`) to `backup`, with that file's owner, group and mode, unless a
/// backup is already there: that one holds the file as it was before jit's
/// first install, which is what an uninstall should come back to, and it
/// is never written over. Returns whether a backup was written.
pub(super) fn back_up(original: &[u8], backup: &Path, like: &Metadata) -> anyhow::Result<bool> {
    // `create_new` makes the file or fails: it never opens one that is
    // there, nor follows a link planted in its place.
    let created = private_file_options().open(backup);
    let file = match created {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(err) => {
            return Err(err).with_context(|| format!("cannot create {}", backup.display()));
        }
    };
    let written = fill(&file, original, Some(like), backup);
    if written.is_err() {
        // Best effort: a half-written backup would be taken for the first
        // install's by the next one; the error that matters is returned.
        let _ = std::fs::remove_file(backup);
    }
    written.map(|()| true)
}

/// Replaces `path` with `bytes` so that a reader never sees half a file: the
/// bytes go to a temporary file in the same folder (a rename across file
/// systems would not be atomic), which is then renamed over `path`. When
/// `like` is the metadata of the file replaced, the new one gets its owner,
/// group and mode before the rename; without it (a new file) it is made
/// as any new file is.
pub(super) fn write_atomic(
    path: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".jit-tmp-{}", std::process::id()));
    let temp = dir.join(name);
    let result = write_then_rename(&temp, path, bytes, like);
    if result.is_err() {
        // Best effort: the error that matters is the one being returned.
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn write_then_rename(
    temp: &Path,
    path: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> anyhow::Result<()> {
    let mut options = private_file_options();
    #[cfg(unix)]
    if like.is_none() {
        // A new settings file: the mode any new file gets (umask applies).
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
    }
    let file = options
        .open(temp)
        .with_context(|| format!("cannot create {}", temp.display()))?;
    fill(&file, bytes, like, path)?;
    std::fs::rename(temp, path)
        .with_context(|| format!("cannot replace {} with {}", path.display(), temp.display()))
}

/// Options that create a new file only (never one already there, nor
/// through a link), readable by its owner alone until [`fill`] gives it
/// the mode it is to have.
fn private_file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Writes `bytes` to the new `file`, gives it the owner, group and mode of
/// `like` (the file it stands for, `name` in messages), and flushes it to
/// the disk.
fn fill(file: &File, bytes: &[u8], like: Option<&Metadata>, name: &Path) -> anyhow::Result<()> {
    let mut writer = file;
    writer
        .write_all(bytes)
        .with_context(|| format!("cannot write {}", name.display()))?;
    if let Some(like) = like {
        take_identity(file, like, name)?;
    }
    file.sync_all()
        .with_context(|| format!("cannot write {}", name.display()))
}

/// Gives the open `file` the owner, group and mode of `like`: through the
/// descriptor (`fchown`, then `fchmod`, since a change of owner clears the
/// set-user-id and set-group-id bits), so no other file can take its place.
fn take_identity(file: &File, like: &Metadata, name: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let own = file.metadata().with_context(|| {
            format!(
                "cannot read the metadata of a new file for {}",
                name.display()
            )
        })?;
        if (own.uid(), own.gid()) != (like.uid(), like.gid()) {
            std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid())).with_context(
                || {
                    format!(
                        "cannot keep the owner and group of {} (uid {}, gid {}) on the file that \
                     replaces it; run the command as its owner",
                        name.display(),
                        like.uid(),
                        like.gid()
                    )
                },
            )?;
        }
    }
    file.set_permissions(like.permissions())
        .with_context(|| format!("cannot keep the mode of {}", name.display()))
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
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "first").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let backup = backup_path(&path);
        assert_eq!(backup.file_name().unwrap(), "settings.json.jit-backup");
        assert!(back_up(b"first", &backup, &meta).unwrap());
        assert!(!back_up(b"second", &backup, &meta).unwrap());
        assert_eq!(std::fs::read(&backup).unwrap(), b"first");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_place_of_the_backup_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, backup_path(&path)).unwrap();
        assert!(!back_up(b"{}", &backup_path(&path), &meta).unwrap());
        assert!(!elsewhere.exists());
        // And reading one back refuses the link.
        assert!(read_if_exists(&backup_path(&path)).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn the_replacement_and_the_backup_get_the_mode_of_the_original() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        for mode in [0o600, 0o640, 0o664, 0o604] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let meta = std::fs::metadata(&path).unwrap();
            write_atomic(&path, b"{ }", Some(&meta)).unwrap();
            let got = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(got, mode, "{mode:o}");
            let backup = backup_path(&path);
            assert!(back_up(b"{}", &backup, &meta).unwrap());
            let got = std::fs::metadata(&backup).unwrap().permissions().mode() & 0o7777;
            assert_eq!(got, mode, "{mode:o}");
            std::fs::remove_file(&backup).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn only_a_file_its_owner_can_write_is_changed() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        for (mode, writable) in [(0o644, true), (0o200, true), (0o444, false), (0o464, false)] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let meta = std::fs::metadata(&path).unwrap();
            assert_eq!(check_writable(&path, &meta).is_ok(), writable, "{mode:o}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn what_is_not_a_regular_file_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("settings.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_settings(&fifo).unwrap_err().to_string();
        assert!(err.contains("not a regular file (a named pipe)"), "{err}");
        let err = read_settings(dir.path()).unwrap_err().to_string();
        assert!(err.contains("not a regular file (a directory)"), "{err}");
        assert!(
            read_settings(&dir.path().join("missing"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/settings.json");
        write_atomic(&path, b"{}\n", None).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        write_atomic(&path, b"{ }\n", Some(&meta)).unwrap();
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
