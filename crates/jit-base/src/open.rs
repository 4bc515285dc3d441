//! Opening files found in a repository without ever blocking: no FIFO can stall a read, no link swapped in is followed, and the type is judged on the open descriptor.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read as _};
use std::path::Path;

/// Opens `path` for reading and returns it with its metadata, taken from
/// the open descriptor, only if it is a regular file.
///
/// The open itself cannot block (`O_NONBLOCK`: a FIFO with no writer opens
/// at once instead of waiting for one) and does not follow a final symlink
/// (`O_NOFOLLOW`), so a file swapped for a FIFO or a link between a type
/// check and the open is caught here, where it counts. A non-regular file
/// is an error of kind [`io::ErrorKind::InvalidInput`] whose message says
/// what it is.
///
/// ```
/// use std::io::Read as _;
/// let dir = tempfile::tempdir()?;
/// let rule = dir.path().join("CLAUDE.md");
/// std::fs::write(&rule, "Use tabs.\n")?;
/// let (mut file, meta) = jit_base::open_regular(&rule)?;
/// assert_eq!(meta.len(), 10);
/// let mut text = String::new();
/// file.read_to_string(&mut text)?;
/// assert_eq!(text, "Use tabs.\n");
///
/// // Anything but a regular file is refused, saying what it is.
/// let err = jit_base::open_regular(dir.path()).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// assert!(err.to_string().starts_with("not a regular file"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let mut options = OpenOptions::new();
    options.read(true);
    no_block_no_follow(&mut options);
    regular(options.open(path)?)
}

/// Reads `file`, a regular file whose metadata gave it `len` bytes, to
/// its end, but never more than `cap + 1` bytes (so a caller can tell a
/// file over `cap`, grown since its metadata was taken, from one at it).
///
/// The file is read into a buffer one byte longer than `len`: a read that
/// stops short at exactly `len` bytes is taken as the end of the file (the
/// end its metadata saw), without the empty read `read_to_end` makes to
/// see it. A file that reads longer than
/// its metadata said (it grew, or it is one of the kernel's files whose
/// size says 0) is read on to its end or to the limit; one that reads
/// shorter ends where its reads end.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let rule = dir.path().join("CLAUDE.md");
/// std::fs::write(&rule, "Use tabs.\n")?;
/// let (file, meta) = jit_base::open_regular(&rule)?;
/// assert_eq!(jit_base::read_capped(file, meta.len(), 1024)?, b"Use tabs.\n");
///
/// // Over the cap: `cap + 1` bytes, never more.
/// let (file, meta) = jit_base::open_regular(&rule)?;
/// assert_eq!(jit_base::read_capped(file, meta.len(), 4)?, b"Use t");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_capped(file: impl io::Read, len: u64, cap: u64) -> io::Result<Vec<u8>> {
    let limit = cap.saturating_add(1);
    let mut file = file.take(limit);
    // The size the metadata gave, as far as the limit lets it be read.
    let expected = usize::try_from(len.min(limit)).unwrap_or(0);
    let mut bytes = vec![0; expected.saturating_add(1)];
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if filled == expected {
                    // Short of the buffer by the byte kept for this: the end.
                    break;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    bytes.truncate(filled);
    if filled > expected {
        // Longer than its metadata said: read on, within the limit.
        file.read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// `file` with its metadata, taken from the open descriptor, if it is a
/// regular file; an error of kind [`io::ErrorKind::InvalidInput`] saying
/// what it is otherwise.
fn regular(file: File) -> io::Result<(File, Metadata)> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", describe(&meta)),
        ));
    }
    Ok((file, meta))
}

/// Opens `path` for appending (created if missing) without blocking: a
/// FIFO where a log should be is refused instead of waiting for a reader.
/// A link is followed (a log path is the user's choice, and may be one);
/// the target must be a regular file.
///
/// ```
/// use std::io::Write as _;
/// let dir = tempfile::tempdir()?;
/// let log = dir.path().join("events.jsonl");
/// // Each open appends after what is there: whole lines from each writer.
/// jit_base::open_append(&log)?.write_all(b"{\"step\":1}\n")?;
/// jit_base::open_append(&log)?.write_all(b"{\"step\":2}\n")?;
/// assert_eq!(std::fs::read_to_string(&log)?, "{\"step\":1}\n{\"step\":2}\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    no_block(&mut options);
    let (file, _) = regular(options.open(path).map_err(refused_for_writing)?)?;
    Ok(file)
}

/// Replaces the contents of the regular file at `path` (created if
/// missing) with `bytes`, in place: what goes past the file's current end
/// is written first, then the rest from the start, and the file is cut to
/// their length.
///
/// Cheaper than writing a temporary file and renaming it over `path`: on
/// ext4, a rename over an existing file makes the kernel write the new
/// file's data out at once, and the old file's blocks are freed (0.1 to
/// 0.6 ms together on the machine the benchmarks run on, against a few µs
/// here). The price is atomicity: a reader must hold a lock the writer
/// holds too, and a writer killed in the middle leaves a mix of new and old
/// bytes, which a caller must be able to tell (a JSON document cut short,
/// or followed by more bytes, does not parse). Running out of space while
/// the file grows is met before the old bytes are touched, where a file
/// system overwrites blocks in place (ext4, xfs).
///
/// Like [`open_regular`], the open cannot block and does not follow a final
/// link; anything but a regular file is an error of kind
/// [`io::ErrorKind::InvalidInput`]. It is a file jit keeps to itself (the
/// hook's state): created with mode `0600` whatever the umask, and one
/// another user owns is refused, of kind
/// [`io::ErrorKind::PermissionDenied`], as [`open_private_append`] does.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let state = dir.path().join("state.json");
/// jit_base::overwrite(&state, b"{\"step\":10}\n")?;
/// jit_base::overwrite(&state, b"{\"step\":9}\n")?;
/// assert_eq!(std::fs::read_to_string(&state)?, "{\"step\":9}\n");
///
/// let err = jit_base::overwrite(dir.path(), b"x").unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn overwrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    private(&mut options);
    let (file, meta) = regular(options.open(path).map_err(refused_for_writing)?)?;
    owned(&meta)?;
    let kept = usize::try_from(meta.len()).map_or(bytes.len(), |old| old.min(bytes.len()));
    let (head, tail) = bytes.split_at(kept);
    write_all_at(&file, tail, kept as u64)?;
    write_all_at(&file, head, 0)?;
    file.set_len(bytes.len() as u64)
}

/// Opens `path` for appending in a directory jit keeps to itself (the
/// hook's state directory; see [`private_dir`]), created with mode `0600`
/// (whatever the umask) when missing. A lock file opens this way too.
///
/// Unlike [`open_append`], a final link is refused, never followed, so a
/// link planted where jit writes cannot send its writes elsewhere; the open
/// cannot block; and the file opened must be a regular file the effective
/// user owns. A link or anything but a regular file is an error of kind
/// [`io::ErrorKind::InvalidInput`], a file of another user one of kind
/// [`io::ErrorKind::PermissionDenied`]; each message says what was found.
///
/// ```
/// use std::io::Write as _;
/// let dir = tempfile::tempdir()?;
/// let log = dir.path().join("hook.log");
/// jit_base::open_private_append(&log)?.write_all(b"one\n")?;
/// jit_base::open_private_append(&log)?.write_all(b"two\n")?;
/// assert_eq!(std::fs::read_to_string(&log)?, "one\ntwo\n");
///
/// // A link in its place is not followed: what it points to is left alone.
/// # #[cfg(unix)] {
/// let elsewhere = dir.path().join("elsewhere");
/// std::fs::write(&elsewhere, "kept")?;
/// let link = dir.path().join("events.jsonl");
/// std::os::unix::fs::symlink(&elsewhere, &link)?;
/// let err = jit_base::open_private_append(&link).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// assert!(err.to_string().contains("a symbolic link"), "{err}");
/// assert_eq!(std::fs::read_to_string(&elsewhere)?, "kept");
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    private(&mut options);
    let (file, meta) = regular(options.open(path).map_err(refused_for_writing)?)?;
    owned(&meta)?;
    Ok(file)
}

/// Creates the file `path`, which must not exist, for writing, with mode
/// `0600` (whatever the umask): a temporary file jit writes in a directory
/// it keeps to itself before renaming it into place.
///
/// Anything already at `path`, a link included, is an error of kind
/// [`io::ErrorKind::AlreadyExists`]: nothing is opened through it.
///
/// ```
/// use std::io::Write as _;
/// let dir = tempfile::tempdir()?;
/// let temp = dir.path().join(".cache.tmp");
/// jit_base::create_private(&temp)?.write_all(b"new")?;
/// let err = jit_base::create_private(&temp).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    private(&mut options);
    options.open(path)
}

/// Whether a directory jit keeps files in may be reached through a link in
/// its own place (see [`private_dir`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DirLink {
    /// A link is refused: jit made the directory, and never makes a link
    /// (the state directory's `walks/`).
    Refused,
    /// A link the effective user owns is followed, to a directory that
    /// passes the same checks: the user put it there (a state directory
    /// kept on another disk). A link of another user is refused.
    Own,
}

/// Creates the directory `dir` where it is missing, with its missing
/// parents, mode `0700` (whatever the umask), and checks that what is
/// there is a directory jit may keep its files in: a directory, not a
/// link (but as `link` allows), owned by the effective user, and not
/// writable by every user unless its sticky bit is set (as `/tmp`'s is:
/// then nobody can move or remove another user's entries). A directory its
/// group may write in is accepted: the group is trusted as its owner chose.
///
/// Only `dir` itself is checked, not the path above it: a state directory
/// under a home directory reached through a link is as good as any.
///
/// A link, or anything but a directory, is an error of kind
/// [`io::ErrorKind::InvalidInput`]; a directory of another user, or one
/// every user may write in, one of kind
/// [`io::ErrorKind::PermissionDenied`]. Each message says what was found.
///
/// ```
/// use jit_base::DirLink;
/// let dir = tempfile::tempdir()?;
/// let state = dir.path().join("state/jit");
/// jit_base::private_dir(&state, DirLink::Refused)?;
/// assert!(state.is_dir());
/// # #[cfg(unix)] {
/// use std::os::unix::fs::PermissionsExt as _;
/// assert_eq!(std::fs::metadata(&state)?.permissions().mode() & 0o777, 0o700);
///
/// // A link in a directory's place is refused, or followed when it is the
/// // user's own and `DirLink::Own` allows it.
/// let link = dir.path().join("walks");
/// std::os::unix::fs::symlink(&state, &link)?;
/// let err = jit_base::private_dir(&link, DirLink::Refused).unwrap_err();
/// assert!(err.to_string().contains("a symbolic link"), "{err}");
/// jit_base::private_dir(&link, DirLink::Own)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn private_dir(dir: &Path, link: DirLink) -> io::Result<()> {
    match check_private_dir(dir, link) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)?;
            check_private_dir(dir, link)
        }
        checked => checked,
    }
}

/// [`private_dir`]'s checks of `dir`, without creating it: an error of
/// kind [`io::ErrorKind::NotFound`] when it does not exist.
///
/// ```
/// use jit_base::DirLink;
/// let dir = tempfile::tempdir()?;
/// jit_base::check_private_dir(dir.path(), DirLink::Refused)?;
/// let missing = jit_base::check_private_dir(&dir.path().join("walks"), DirLink::Refused);
/// assert_eq!(missing.unwrap_err().kind(), std::io::ErrorKind::NotFound);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_private_dir(dir: &Path, link: DirLink) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    let meta = if meta.file_type().is_symlink() {
        if link == DirLink::Refused {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a symbolic link (jit makes a directory here, never a link, and does not follow one)",
            ));
        }
        owned(&meta).map_err(|err| {
            io::Error::new(err.kind(), format!("a symbolic link {err}: not followed"))
        })?;
        std::fs::metadata(dir).map_err(|err| match err.kind() {
            io::ErrorKind::NotFound => io::Error::new(
                io::ErrorKind::InvalidInput,
                "a symbolic link to nothing (not followed)",
            ),
            _ => err,
        })?
    } else {
        meta
    };
    private_dir_meta(&meta, euid())
}

/// The checks of a directory jit keeps its files in, on its metadata, for
/// the user `uid`.
fn private_dir_meta(meta: &Metadata, uid: Option<u32>) -> io::Result<()> {
    if !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a directory ({})", describe(meta)),
        ));
    }
    owned_by(meta, uid)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let mode = meta.mode() & 0o7777;
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "writable by every user (mode {mode:04o}) without the sticky bit, so anyone could put a link where jit writes (chmod o-w, or +t)"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that `meta` is of a file the effective user owns.
fn owned(meta: &Metadata) -> io::Result<()> {
    owned_by(meta, euid())
}

/// Checks that `meta` is of a file the user `uid` owns (`None`: no owners
/// on this platform, nothing to check).
fn owned_by(meta: &Metadata, uid: Option<u32>) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if let Some(uid) = uid
            && meta.uid() != uid
        {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "owned by another user (uid {}), not by uid {uid}, who runs jit",
                    meta.uid()
                ),
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, uid);
    Ok(())
}

/// The effective user id, where files have owners.
#[cfg(unix)]
fn euid() -> Option<u32> {
    Some(rustix::process::geteuid().as_raw())
}

#[cfg(not(unix))]
fn euid() -> Option<u32> {
    None
}

/// An open for writing that failed because of what the path is, said as
/// a refusal of kind [`io::ErrorKind::InvalidInput`]; other errors as they
/// are.
#[cfg(unix)]
fn refused_for_writing(err: io::Error) -> io::Error {
    let what = match err.raw_os_error() {
        // A FIFO without a reader refuses a non-blocking writer.
        Some(libc::ENXIO) => "not a regular file (a named pipe or device with no reader)",
        Some(libc::EISDIR) => "not a regular file (a directory)",
        // `O_NOFOLLOW` met a link where the file should be.
        Some(libc::ELOOP) => "a symbolic link (not followed)",
        _ => return err,
    };
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

#[cfg(not(unix))]
fn refused_for_writing(err: io::Error) -> io::Error {
    err
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, bytes: &[u8], at: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(at))?;
    file.write_all(bytes)
}

#[cfg(unix)]
fn no_block_no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
}

#[cfg(not(unix))]
fn no_block_no_follow(_options: &mut OpenOptions) {}

/// The options of a file jit keeps to itself: not blocking, no final link
/// followed, created with mode `0600`.
#[cfg(unix)]
fn private(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .mode(0o600);
}

#[cfg(not(unix))]
fn private(_options: &mut OpenOptions) {}

#[cfg(unix)]
fn no_block(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK);
}

#[cfg(not(unix))]
fn no_block(_options: &mut OpenOptions) {}

/// What a non-regular file is, for messages.
pub fn describe(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_file() {
        return "a regular file";
    }
    if kind.is_dir() {
        return "a directory";
    }
    if kind.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    "not a regular file"
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    /// A named pipe `name` in `dir`, with no reader or writer.
    fn fifo(dir: &Path, name: &str) -> std::path::PathBuf {
        let fifo = dir.join(name);
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        fifo
    }

    #[test]
    fn a_fifo_is_refused_at_once_and_a_file_opens() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = fifo(dir.path(), "rule.md");
        let err = open_regular(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a named pipe"), "{err}");
        let err = open_append(&fifo).unwrap_err();
        assert!(err.to_string().contains("a named pipe"), "{err}");

        let file = dir.path().join("ok.md");
        std::fs::write(&file, "x").unwrap();
        let (_, meta) = open_regular(&file).unwrap();
        assert_eq!(meta.len(), 1);
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(open_regular(&link).is_err(), "a final link is not followed");
        assert!(open_regular(dir.path()).is_err());
        let err = open_regular(&dir.path().join("missing")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn overwrite_replaces_the_contents_whatever_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("state.json");
        for text in [
            "",
            "{\"step\":1}",
            "{\"step\":100000}\n",
            "{}",
            "",
            "[1, 2, 3]",
        ] {
            overwrite(&file, text.as_bytes()).unwrap();
            assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        }
        // Written in place: the same file, not a new one renamed over it.
        use std::os::unix::fs::MetadataExt;
        let inode = std::fs::metadata(&file).unwrap().ino();
        overwrite(&file, b"{\"step\":2}").unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().ino(), inode);
    }

    #[test]
    fn overwrite_refuses_what_is_not_a_regular_file_and_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = fifo(dir.path(), "state.json");
        let err = overwrite(&fifo, b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a named pipe"), "{err}");

        let err = overwrite(dir.path(), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a directory"), "{err}");

        let target = dir.path().join("target");
        std::fs::write(&target, "kept").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(
            overwrite(&link, b"x").is_err(),
            "a final link is not followed"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    }
}

#[cfg(test)]
#[cfg(unix)]
mod private_tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::io::Write as _;
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _, symlink};

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    #[test]
    fn private_files_are_created_0600_and_no_link_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("hook.log");
        open_private_append(&log).unwrap().write_all(b"a").unwrap();
        assert_eq!(mode(&log), 0o600);
        let state = dir.path().join("state.json");
        overwrite(&state, b"{}").unwrap();
        assert_eq!(mode(&state), 0o600);
        let temp = dir.path().join(".walk.tmp");
        create_private(&temp).unwrap();
        assert_eq!(mode(&temp), 0o600);

        // Links, to a file or to nothing: refused, nothing written or made.
        let target = dir.path().join("target");
        std::fs::write(&target, "kept").unwrap();
        let nowhere = dir.path().join("nowhere");
        for (name, to) in [("file", &target), ("dangling", &nowhere)] {
            let link = dir.path().join(name);
            symlink(to, &link).unwrap();
            let err = open_private_append(&link).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{name}");
            assert_eq!(err.to_string(), "a symbolic link (not followed)", "{name}");
            let err = overwrite(&link, b"x").unwrap_err();
            assert_eq!(err.to_string(), "a symbolic link (not followed)", "{name}");
            let err = create_private(&link).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{name}");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        assert!(std::fs::symlink_metadata(&nowhere).is_err());

        // A directory or a FIFO in the file's place.
        let err = open_private_append(dir.path()).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let err = open_private_append(&fifo).unwrap_err();
        assert!(err.to_string().contains("a named pipe"), "{err}");
    }

    #[test]
    fn a_file_of_another_user_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let meta = std::fs::metadata(dir.path()).unwrap();
        owned_by(&meta, Some(meta.uid())).unwrap();
        let other = meta.uid().wrapping_add(1);
        let err = owned_by(&meta, Some(other)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(
            err.to_string(),
            format!(
                "owned by another user (uid {}), not by uid {other}, who runs jit",
                meta.uid()
            )
        );
        let err = private_dir_meta(&meta, Some(other)).unwrap_err();
        assert!(
            err.to_string().starts_with("owned by another user"),
            "{err}"
        );
    }

    #[test]
    fn a_private_dir_is_made_0700_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("xdg/jit");
        private_dir(&state, DirLink::Refused).unwrap();
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&dir.path().join("xdg")), 0o700);
        // An existing one is checked, not changed.
        private_dir(&state, DirLink::Refused).unwrap();

        // Every user may write in it: refused, unless sticky.
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = check_private_dir(&state, DirLink::Refused).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(
            err.to_string()
                .starts_with("writable by every user (mode 0777) without the sticky bit"),
            "{err}"
        );
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o1777)).unwrap();
        check_private_dir(&state, DirLink::Refused).unwrap();
        // Its group may: the owner's choice.
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o770)).unwrap();
        check_private_dir(&state, DirLink::Refused).unwrap();

        // Not a directory.
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = private_dir(&file, DirLink::Own).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "not a directory (a regular file)");

        // A link: refused, or the user's own followed to what it names,
        // which is checked in turn; a link to nothing makes nothing.
        let link = dir.path().join("walks");
        symlink(&state, &link).unwrap();
        let err = private_dir(&link, DirLink::Refused).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().starts_with("a symbolic link"), "{err}");
        private_dir(&link, DirLink::Own).unwrap();
        let to_file = dir.path().join("to-file");
        symlink(&file, &to_file).unwrap();
        let err = private_dir(&to_file, DirLink::Own).unwrap_err();
        assert_eq!(err.to_string(), "not a directory (a regular file)");
        let dangling = dir.path().join("dangling");
        let nowhere = dir.path().join("nowhere");
        symlink(&nowhere, &dangling).unwrap();
        let err = private_dir(&dangling, DirLink::Own).unwrap_err();
        assert_eq!(err.to_string(), "a symbolic link to nothing (not followed)");
        assert!(std::fs::symlink_metadata(&nowhere).is_err());
        let err = private_dir(&dangling, DirLink::Refused).unwrap_err();
        assert!(err.to_string().starts_with("a symbolic link"), "{err}");

        let missing = check_private_dir(&dir.path().join("missing"), DirLink::Refused);
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(!dir.path().join("missing").exists(), "checked, not made");
    }
}

#[cfg(test)]
mod read_tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::io::{self, Read};

    use super::read_capped;

    /// A file as the kernel hands it out: `data`, at most `chunk` bytes a
    /// read, with an interruption before the first; counts the reads.
    struct Chunked<'a> {
        data: &'a [u8],
        chunk: usize,
        reads: usize,
        interrupted: bool,
    }

    impl<'a> Chunked<'a> {
        fn new(data: &'a [u8], chunk: usize) -> Self {
            Self {
                data,
                chunk,
                reads: 0,
                interrupted: false,
            }
        }
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if !self.interrupted {
                self.interrupted = true;
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.reads += 1;
            let n = buf.len().min(self.chunk).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// What `read_capped` returns for `data` whose metadata said `len`,
    /// and how many reads it made.
    fn read(data: &[u8], chunk: usize, len: u64, cap: u64) -> (Vec<u8>, usize) {
        let mut file = Chunked::new(data, chunk);
        let bytes = read_capped(&mut file, len, cap).unwrap();
        (bytes, file.reads)
    }

    #[test]
    fn a_file_of_the_size_its_metadata_gave_takes_one_read() {
        assert_eq!(read(b"Use tabs.", 64, 9, 100), (b"Use tabs.".to_vec(), 1));
        // In pieces, the reads it takes, and no empty one after them.
        assert_eq!(read(b"Use tabs.", 4, 9, 100), (b"Use tabs.".to_vec(), 3));
        // At the cap exactly.
        assert_eq!(read(b"Use tabs.", 64, 9, 9), (b"Use tabs.".to_vec(), 1));
    }

    #[test]
    fn a_file_that_grew_is_read_on_to_the_limit() {
        // One read to the buffer's end, then `read_to_end`'s two.
        assert_eq!(
            read(b"Use tabs, always.", 64, 9, 100),
            (b"Use tabs, always.".to_vec(), 3)
        );
        // Unless a read stops short at exactly the size the metadata gave:
        // that is the end the metadata (and a stamp taken from it) saw.
        assert_eq!(read(b"Use tabs, always.", 3, 9, 100).0, b"Use tabs,");
        assert_eq!(
            read(b"Use tabs, always.", 2, 9, 100).0,
            b"Use tabs, always."
        );
        // Never more than `cap + 1` bytes.
        assert_eq!(read(b"Use tabs, always.", 64, 9, 11).0, b"Use tabs, al");
        assert_eq!(read(b"Use tabs.", 64, 9, 5).0, b"Use ta");
        // A kernel file whose size says 0.
        assert_eq!(read(b"cpu MHz", 2, 0, 100).0, b"cpu MHz");
    }

    #[test]
    fn a_file_that_shrank_or_is_empty_ends_where_its_reads_end() {
        assert_eq!(read(b"Use", 64, 9, 100), (b"Use".to_vec(), 2));
        assert_eq!(read(b"", 64, 0, 100), (Vec::new(), 1));
        assert_eq!(read(b"", 64, 0, 0), (Vec::new(), 1));
    }

    #[test]
    fn an_error_is_returned() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::PermissionDenied.into())
            }
        }
        let err = read_capped(Failing, 9, 100).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    }
}
