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
    let mut bytes = Vec::new();
    let result = read_sized(file, meta.len(), cap, &mut bytes);
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

/// Reads `file`, whose metadata gave it `len` bytes, into `bytes`, never
/// more than `cap + 1` bytes. The buffer holds one byte more than `len`: a
/// read that stops short at exactly `len` bytes is the end the metadata saw,
/// without the empty read `read_to_end` makes to see it; a file that reads
/// longer (it grew, or its size says 0) is read on. (`jit_base::read_capped`
/// does the same; this crate depends on no other of the workspace.)
fn read_sized(file: impl Read, len: u64, cap: u64, bytes: &mut Vec<u8>) -> io::Result<()> {
    let limit = cap.saturating_add(1);
    let mut file = file.take(limit);
    let expected = usize::try_from(len.min(limit)).unwrap_or(0);
    bytes.resize(expected.saturating_add(1), 0);
    let mut filled = 0;
    let result = loop {
        if filled == bytes.len() {
            break Ok(());
        }
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                filled += n;
                if filled == expected {
                    break Ok(());
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => break Err(err),
        }
    };
    bytes.truncate(filled);
    result?;
    if filled > expected {
        file.read_to_end(bytes)?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use std::io::{self, Read};

    use super::read_sized;

    /// `data` handed out at most `chunk` bytes a read, after one
    /// interrupted read; counts the reads that were not interrupted.
    struct Chunked<'a> {
        data: &'a [u8],
        chunk: usize,
        reads: usize,
        interrupted: bool,
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

    fn read(data: &[u8], chunk: usize, len: u64, cap: u64) -> (Vec<u8>, usize) {
        let mut file = Chunked {
            data,
            chunk,
            reads: 0,
            interrupted: false,
        };
        let mut bytes = Vec::new();
        read_sized(&mut file, len, cap, &mut bytes).unwrap();
        (bytes, file.reads)
    }

    #[test]
    fn a_file_of_its_metadata_size_takes_one_read_and_the_cap_holds() {
        assert_eq!(read(b"Notes.", 64, 6, 100), (b"Notes.".to_vec(), 1));
        assert_eq!(read(b"Notes.", 4, 6, 100), (b"Notes.".to_vec(), 2));
        // Grown since its metadata: read on, never past `cap + 1` bytes.
        assert_eq!(read(b"Notes, more.", 64, 6, 100).0, b"Notes, more.");
        assert_eq!(read(b"Notes, more.", 64, 6, 8).0, b"Notes, mo");
        assert_eq!(read(b"Notes, more.", 64, 0, 100).0, b"Notes, more.");
        // Shrunk: ends where the reads end.
        assert_eq!(read(b"No", 64, 6, 100), (b"No".to_vec(), 2));
        assert_eq!(read(b"", 64, 0, 100), (Vec::new(), 1));
    }

    #[test]
    fn a_read_error_is_returned_with_what_was_read() {
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 {
                    return Err(io::ErrorKind::PermissionDenied.into());
                }
                self.0 = true;
                buf[..2].copy_from_slice(b"No");
                Ok(2)
            }
        }
        let mut bytes = Vec::new();
        let err = read_sized(Failing(false), 6, 100, &mut bytes).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(bytes, b"No");
    }
}
