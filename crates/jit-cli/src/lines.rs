//! Foreign text read line by line with a cap on each line's length: memory stays bounded whatever the input holds.

use std::io::BufRead;
use std::ops::ControlFlow;

/// How much of a file is read at a time: a few hundred typical lines, so
/// most lines are passed from the buffer uncopied and reads are few.
pub(crate) const READ_BUFFER_BYTES: usize = 256 * 1024;

/// One line as [`for_each_line`] hands it over, without its line break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// The whole line.
    Whole(&'a [u8]),
    /// A line longer than the cap: its first `max` bytes. The rest was
    /// read past, never held.
    Cut(&'a [u8]),
}

/// Calls `f` with each line of `reader`, at most `max` bytes of it, until
/// the reader ends or `f` breaks. A line that lies whole in the reader's
/// buffer is passed from there, uncopied; a longer one is gathered up to
/// `max` bytes, and the rest of a line past `max` is read and dropped, so
/// no line ever takes more than `max` bytes of memory (a file of zeros
/// with no line break is read through in buffer-sized pieces).
pub(crate) fn for_each_line(
    mut reader: impl BufRead,
    max: usize,
    mut f: impl FnMut(Line<'_>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        // The common case: a whole line in the buffer.
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        if let Some(at) = memchr::memchr(b'\n', chunk)
            && at <= max
        {
            let flow = f(Line::Whole(&chunk[..at]));
            reader.consume(at + 1);
            if flow.is_break() {
                return Ok(());
            }
            continue;
        }
        // A line longer than the buffer, or than `max`: gathered (up to
        // `max` bytes) across reads.
        line.clear();
        let mut over = false;
        loop {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (at, true),
                None => (chunk.len(), false),
            };
            let room = max.saturating_sub(line.len());
            if take > room {
                over = true;
            }
            line.extend_from_slice(&chunk[..take.min(room)]);
            reader.consume(if done { take + 1 } else { take });
            if done {
                break;
            }
        }
        let gathered = if over {
            Line::Cut(&line)
        } else {
            Line::Whole(&line)
        };
        if f(gathered).is_break() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Read};

    use super::*;

    /// The lines of `text` (a cut one marked with a trailing `\0`), read
    /// through a 3-byte buffer (lines gathered across reads) and through a
    /// 64-byte one (lines whole in the buffer): both must agree.
    fn lines(text: &[u8], max: usize) -> Vec<Vec<u8>> {
        let read = |capacity: usize| {
            let mut out = Vec::new();
            for_each_line(BufReader::with_capacity(capacity, text), max, |line| {
                out.push(match line {
                    Line::Whole(l) => l.to_vec(),
                    Line::Cut(l) => [l, b"\0"].concat(),
                });
                ControlFlow::Continue(())
            })
            .unwrap();
            out
        };
        let small = read(3);
        assert_eq!(small, read(64), "{text:?}");
        small
    }

    #[test]
    fn lines_are_split_and_long_ones_cut() {
        assert_eq!(lines(b"ab\ncd\n", 10), [b"ab".to_vec(), b"cd".to_vec()]);
        assert_eq!(lines(b"ab\ncd", 10), [b"ab".to_vec(), b"cd".to_vec()]);
        assert_eq!(lines(b"", 10), Vec::<Vec<u8>>::new());
        assert_eq!(lines(b"\n\n", 10), [Vec::<u8>::new(), Vec::new()]);
        // At the limit a line is whole; past it, cut and marked.
        assert_eq!(lines(b"abcd\nx", 4), [b"abcd".to_vec(), b"x".to_vec()]);
        assert_eq!(lines(b"abcdef\nx", 4), [b"abcd\0".to_vec(), b"x".to_vec()]);
    }

    /// A reader that counts the bytes taken from it.
    struct Counted<R> {
        inner: R,
        read: u64,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn a_long_line_is_read_past_holding_only_the_cap() {
        // 64 MiB of zeros with no line break, as `/dev/zero` gives.
        let zeros = std::io::repeat(0).take(1 << 26);
        let mut reader = BufReader::with_capacity(
            64 * 1024,
            Counted {
                inner: zeros,
                read: 0,
            },
        );
        let mut seen = Vec::new();
        for_each_line(&mut reader, 1024, |line| {
            seen.push(match line {
                Line::Whole(l) => (false, l.len()),
                Line::Cut(l) => (true, l.len()),
            });
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(seen, [(true, 1024)]);
        assert_eq!(reader.get_ref().read, 1 << 26);
    }

    #[test]
    fn a_break_stops_the_reading() {
        let text = b"a\nb\nc\n".repeat(100_000);
        let mut reader = BufReader::with_capacity(
            16,
            Counted {
                inner: &text[..],
                read: 0,
            },
        );
        let mut taken = 0;
        for_each_line(&mut reader, 1024, |_| {
            taken += 1;
            if taken == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!(taken, 2);
        assert_eq!(reader.get_ref().read, 16);
    }
}
