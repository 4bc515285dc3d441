//! What every command shares at its edges: a buffered stdout whose closed pipe ends the program quietly, stdin read under a cap, and the escaping of untrusted text for a terminal.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufWriter, Read as _, StdoutLock, Write as _};

use anyhow::{Context as _, bail};

/// Standard output, locked and buffered.
///
/// Whoever writes to it calls `flush` at the end and returns its error: a
/// buffered writer that is dropped unflushed loses the error of its last
/// write, and a closed pipe must reach [`is_broken_pipe`] in `main`.
pub(crate) fn stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::new(io::stdout().lock())
}

/// Writes one line to standard error, returning the write's error instead of
/// panicking as `eprintln!` does when stderr is a closed pipe.
pub(crate) fn stderr_line(line: fmt::Arguments<'_>) -> io::Result<()> {
    let mut err = io::stderr().lock();
    err.write_fmt(line)?;
    err.write_all(b"\n")
}

/// Whether `err` comes from writing to a closed pipe (`jit … | head -1`): the
/// reader has all it wanted, so the command ends quietly with status 0, as
/// ripgrep and the core utilities do.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let kind = if let Some(io) = cause.downcast_ref::<io::Error>() {
            Some(io.kind())
        } else {
            // serde_json keeps the writer's error inside its own type.
            cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}

/// The most that `-` reads from standard input: far above any command or
/// tool input an agent sends, and a bound on what a runaway producer costs.
pub(crate) const STDIN_LIMIT: u64 = 16 * 1024 * 1024;

/// Reads all of standard input as UTF-8 text, up to [`STDIN_LIMIT`] bytes;
/// `what` names the input in error messages ("the command").
pub(crate) fn read_stdin(what: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .take(STDIN_LIMIT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} from standard input"))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > STDIN_LIMIT {
        bail!(
            "{what} on standard input is over the limit of {} MiB",
            STDIN_LIMIT / (1024 * 1024)
        );
    }
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{what} on standard input is not UTF-8"))
}

/// `text` made safe to show on a terminal, the way `ls -b` shows file names:
/// `\e` for ESC, `\n`, `\r` and `\t`, `\xNN` for the other C0 controls and
/// DEL, `\u{NN}` for the C1 controls (U+0080 to U+009F), and `\\` for a
/// backslash, so that every escape reads back unambiguously.
///
/// A file name or rule text comes from the repository, and raw control
/// characters in it could clear the screen, retitle the window, or print a
/// line that looks like jit's own. JSON output needs none of this: serde
/// escapes control characters itself.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\\' || c.is_control()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c => push_char(&mut out, c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line `text` (a rule file's body) made safe to show on a terminal:
/// like [`escape`], but line feeds, tabs and the carriage return of a CRLF
/// line end stay as they are, and so do backslashes, which are common in
/// rule text and harmless without a control character to form an escape.
pub(crate) fn escape_text(text: &str) -> Cow<'_, str> {
    let unsafe_char = |(i, c): (usize, char)| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && text[i + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        if unsafe_char((i, c)) {
            push_char(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Pushes `c`, escaped when it is a control character.
fn push_char(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\x1b' => out.push_str("\\e"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        // Writing to a String cannot fail.
        c if u32::from(c) < 0x80 && c.is_control() => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &str) {
        assert_eq!(escape(text), expected, "{text:?}");
    }

    #[test]
    fn control_characters_are_escaped_like_ls_b() {
        check("src/ui/CLAUDE.md", "src/ui/CLAUDE.md");
        check("文档/说明.md", "文档/说明.md");
        check("\x1b]0;title\x07", "\\e]0;title\\x07");
        check("\x1b[2J", "\\e[2J");
        check("a\nb\tc\rd", "a\\nb\\tc\\rd");
        check("\0\x7f", "\\x00\\x7f");
        check("\u{9b}31m", "\\u{9b}31m");
        check(r"C:\rules", r"C:\\rules");
    }

    #[test]
    fn every_escape_reads_back_unambiguously() {
        // A literal backslash-e is not the escape of ESC.
        assert_ne!(escape("\\e"), escape("\x1b"));
        assert_eq!(escape("\\e"), "\\\\e");
    }

    #[test]
    fn text_keeps_its_lines_and_backslashes() {
        assert_eq!(escape_text("a\r\n\tb \\d+\n"), "a\r\n\tb \\d+\n");
        assert_eq!(escape_text("a\x1b[2Jb\rc\n"), "a\\e[2Jb\\rc\n");
        assert_eq!(escape_text("end\r"), "end\\r");
    }

    #[test]
    fn a_broken_pipe_is_found_anywhere_in_the_chain() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&anyhow::Error::new(pipe())));
        assert!(is_broken_pipe(
            &anyhow::Error::new(pipe()).context("writing the table")
        ));
        let json = serde_json::Error::io(pipe());
        assert!(is_broken_pipe(&anyhow::Error::new(json)));
        let other = io::Error::from(io::ErrorKind::PermissionDenied);
        assert!(!is_broken_pipe(&anyhow::Error::new(other)));
    }
}
