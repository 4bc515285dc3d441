//! Reading a file found in a project without ever blocking and without reading more than the cap.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use crate::FileStamp;

/// Why a file could not be read as text, before it is put in words.
#[derive(Debug)]
pub(crate) enum ReadFailure {
    /// Opening or reading failed.
    Io(io::Error),
    /// The path is not a regular file: the kind it is, as a phrase.
    NotRegularFile(&'static str),
    /// Larger than the cap: the size seen (from metadata, or the bytes read when it grew).
    TooLarge(u64),
    /// Contains NUL bytes.
    Binary,
    /// Not UTF-8.
    NotUtf8,
}

/// Whether the final component of the path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Follow a final link: the top-level rule file, named by the caller.
    Follow,
    /// Refuse a final link: an import, whose real path was resolved already,
    /// so a link there now was swapped in since.
    Refuse,
}

/// Reads `path` as UTF-8 text of at most `cap` bytes.
///
/// The open cannot block (`O_NONBLOCK`: a named pipe opens at once instead
/// of waiting for a writer) and the file's type and size are judged on the
/// open descriptor, so a file swapped for a pipe after a type check is
/// caught where it counts. A file over the cap is refused from its metadata
/// without reading; otherwise at most `cap + 1` bytes are read, so a file
/// that grows meanwhile is refused too. Adds the bytes read to `bytes_read`,
/// whatever the outcome. Returns the text with the file's stamp, taken from
/// the descriptor before it was read.
pub(crate) fn read_text(
    path: &Path,
    cap: u64,
    links: Links,
    bytes_read: &mut u64,
) -> Result<(String, FileStamp), ReadFailure> {
    let (file, meta) = open_regular(path, links)?;
    if meta.len() > cap {
        return Err(ReadFailure::TooLarge(meta.len()));
    }
    // The size is a hint only: the file may change between fstat and read.
    let hint = usize::try_from(meta.len().min(cap)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(hint.saturating_add(1));
    let result = file.take(cap.saturating_add(1)).read_to_end(&mut bytes);
    if let Err(err) = result {
        *bytes_read = bytes_read.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        return Err(ReadFailure::Io(err));
    }
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    *bytes_read = bytes_read.saturating_add(read);
    if read > cap {
        return Err(ReadFailure::TooLarge(read));
    }
    if bytes.contains(&0) {
        return Err(ReadFailure::Binary);
    }
    let text = String::from_utf8(bytes).map_err(|_| ReadFailure::NotUtf8)?;
    Ok((text, FileStamp::of(&meta)))
}

/// Opens `path` for reading without blocking and returns it with the
/// metadata of the open descriptor, only if it is a regular file.
fn open_regular(path: &Path, links: Links) -> Result<(File, Metadata), ReadFailure> {
    let mut options = OpenOptions::new();
    options.read(true);
    set_flags(&mut options, links);
    let file = options.open(path).map_err(|err| {
        if links == Links::Refuse && is_link_refusal(&err) {
            ReadFailure::NotRegularFile("a symbolic link swapped in after it was resolved")
        } else {
            ReadFailure::Io(err)
        }
    })?;
    let meta = file.metadata().map_err(ReadFailure::Io)?;
    if !meta.is_file() {
        return Err(ReadFailure::NotRegularFile(describe(&meta)));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn set_flags(options: &mut OpenOptions, links: Links) {
    use std::os::unix::fs::OpenOptionsExt;
    let no_follow = match links {
        Links::Follow => 0,
        Links::Refuse => libc::O_NOFOLLOW,
    };
    options.custom_flags(libc::O_NONBLOCK | no_follow);
}

#[cfg(not(unix))]
fn set_flags(_options: &mut OpenOptions, _links: Links) {}

/// Whether an open with `O_NOFOLLOW` failed because the final component is a link.
fn is_link_refusal(err: &io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// What a non-regular file is, for messages.
fn describe(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
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
    "neither a file nor a directory"
}
