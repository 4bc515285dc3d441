//! Opening files found in a repository without ever blocking: no FIFO can stall a read, no link swapped in is followed, and the type is judged on the open descriptor.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
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
    let file = options.open(path)?;
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
    let file = options.open(path).map_err(|err| {
        // A FIFO without a reader refuses a non-blocking writer with ENXIO.
        #[cfg(unix)]
        if err.raw_os_error() == Some(libc::ENXIO) {
            return io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a named pipe or device with no reader)",
            );
        }
        err
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", describe(&meta)),
        ));
    }
    Ok(file)
}

#[cfg(unix)]
fn no_block_no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
}

#[cfg(not(unix))]
fn no_block_no_follow(_options: &mut OpenOptions) {}

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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once_and_a_file_opens() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("rule.md");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
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
}
