//! Cheap checks that keep pathological input away from the shell parser.
//!
//! `brush-parser` 0.4 recurses once per nesting level, and its tokenizer loops
//! forever (queueing tokens until memory runs out) on some inputs that end
//! while a here-document is pending: an empty delimiter (`<< ''`), or a
//! `$(…)` construct left open around a `<<`. Neither is a panic that could be
//! caught, so such input is refused before parsing.
//! Every check here errs towards refusing: a refusal is a miss, which is the
//! safe direction.

/// Deepest nesting the parser is given. Real commands stay far below this.
pub(crate) const MAX_NESTING: usize = 32;

/// Deepest nesting of parentheses the parser is given. Its backtracking is
/// exponential in open parentheses on some malformed input (each one more
/// roughly doubles the time: 22 take seconds), so they get a tighter limit.
pub(crate) const MAX_PAREN_NESTING: usize = 10;

/// An upper estimate of the parenthesis depth of `command`, counted like
/// [`nesting_estimate`].
pub(crate) fn paren_estimate(command: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    for b in command.bytes() {
        match b {
            b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// An upper estimate of the nesting depth of `command`: opening brackets and
/// compound-command keywords count up, their closers count down. Quoting and
/// here-document bodies are not told apart, which can only overestimate.
/// Backquotes are not counted: they open and close with the same character,
/// and nesting them takes escapes that no one writes deep.
pub(crate) fn nesting_estimate(command: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let words = command.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|');
    for word in words {
        let opens = match word {
            "if" | "while" | "until" | "for" | "select" | "case" => 1,
            "fi" | "done" | "esac" => 0,
            _ => word.bytes().filter(|b| matches!(b, b'(' | b'{')).count(),
        };
        let closes = match word {
            "fi" | "done" | "esac" => 1,
            _ => word.bytes().filter(|b| matches!(b, b')' | b'}')).count(),
        };
        depth += opens;
        max = max.max(depth);
        depth = depth.saturating_sub(closes);
    }
    max
}

/// Whether `command` has a run of ten or more digits right before `<` or
/// `>`: a descriptor number that overflows the parser's integer, which it
/// unwraps. Bash rejects it too ("file descriptor out of range").
pub(crate) fn oversized_descriptor(command: &str) -> bool {
    let mut digits = 0usize;
    for b in command.bytes() {
        match b {
            b'0'..=b'9' => digits += 1,
            b'<' | b'>' if digits >= 10 => return true,
            _ => digits = 0,
        }
    }
    false
}

/// Whether some `${` in the raw text reaches a newline before its `}`. The
/// parser unwraps a character that is not there on such input (inside
/// here-documents in particular), and no one writes a parameter expansion
/// across lines.
pub(crate) fn multiline_parameter(command: &str) -> bool {
    let mut rest = command;
    while let Some(start) = rest.find("${") {
        let after = rest.get(start + 2..).unwrap_or_default();
        match after.find(['}', '\n']) {
            Some(end) if after.get(end..).is_some_and(|t| t.starts_with('\n')) => return true,
            Some(_) => {}
            None => return false,
        }
        rest = after;
    }
    false
}

/// Whether `command` holds a here-document operator and is not plainly
/// complete: it ends inside a quote, a construct or a here-document body, or
/// has a `<<` without a (non-empty) delimiter word. Bash rejects all of these
/// but the empty delimiter, which no one types on purpose, so refusing them
/// loses nothing.
/// Returns the problem found, as a message.
pub(crate) fn incomplete_with_heredoc(command: &str) -> Option<&'static str> {
    if !command.contains("<<") {
        None
    } else if operator_without_word(command) {
        Some(MISSING_WORD)
    } else {
        Scanner::new(command).complete().err()
    }
}

/// A command whose last line opens here-documents and ends there
/// (`cat > src/ui/Badge.tsx <<EOF`), with the missing delimiter lines added:
/// bash runs it with empty bodies ("delimited by end-of-file"), so the
/// redirection is as certain as with a body. `None` for anything else, in
/// particular a body that starts and never closes, which stays a parse error.
pub(crate) fn close_trailing_heredocs(command: &str) -> Option<String> {
    if !command.contains("<<") || operator_without_word(command) {
        return None;
    }
    let mut scanner = Scanner::new(command);
    scanner.run().ok()?;
    if !scanner.stack.is_empty() || scanner.pending.is_empty() {
        return None;
    }
    let mut closed = command.to_owned();
    for (word, _) in &scanner.pending {
        closed.push('\n');
        closed.push_str(std::str::from_utf8(word).ok()?);
    }
    closed.push('\n');
    Some(closed)
}

/// Whether `command` ends inside a `$(…)`, `$((…))` or `$[…]` construct.
/// The parser fails on such input anyway, but only after backtracking that
/// can take seconds on a few hundred bytes, so it is refused up front.
pub(crate) fn unclosed_construct(command: &str) -> bool {
    (command.contains("$(") || command.contains("$["))
        && Scanner::new(command).ends_inside_construct()
}

/// Whether some `<<` or `<<-` anywhere in the raw text (quotes and comments
/// included, so that no lexer disagreement can hide one) is followed by
/// blanks and then no word: an operator, a newline, the end, or an empty
/// quoted word. These give the parser an empty delimiter, which it matches
/// forever at the end of input.
fn operator_without_word(command: &str) -> bool {
    let bytes = command.as_bytes();
    let mut from = 0;
    while let Some(found) = command.get(from..).and_then(|rest| rest.find("<<")) {
        let mut i = from + found + 2;
        from = i;
        match bytes.get(i) {
            Some(b'<') => {
                from += 1;
                continue;
            }
            Some(b'-') => i += 1,
            _ => {}
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let after = bytes.get(i..).unwrap_or_default();
        let no_word = match after {
            [] => true,
            [b'\'', b'\'', ..] | [b'"', b'"', ..] => true,
            [first, ..] => matches!(
                first,
                b'\n' | b'&' | b';' | b'|' | b'(' | b')' | b'<' | b'>'
            ),
        };
        if no_word {
            return true;
        }
    }
    false
}

const UNTERMINATED_HEREDOC: &str = "unterminated here-document (no closing delimiter line)";
const MISSING_WORD: &str = "here-document operator `<<` without a delimiter word";
const UNTERMINATED: &str = "unterminated quote or substitution in a command with a here-document";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// `$(…)`, counting the parentheses opened inside it.
    Substitution(usize),
    /// `$((…))`, where `<<` is a shift, counting its open parentheses.
    Arithmetic(usize),
    /// `$[…]`, counting the brackets opened inside it.
    Bracket(usize),
    DoubleQuote,
    Backquote,
}

/// A deliberately simple bash lexer: quotes, escapes, comments, `$(…)`,
/// `$[…]`, backquotes and here-document bodies.
struct Scanner<'a> {
    bytes: &'a [u8],
    i: usize,
    stack: Vec<Context>,
    /// Delimiters of here-documents whose bodies start at the next newline,
    /// with whether leading tabs are stripped (`<<-`).
    pending: Vec<(Vec<u8>, bool)>,
}

impl<'a> Scanner<'a> {
    fn new(command: &'a str) -> Self {
        Self {
            bytes: command.as_bytes(),
            i: 0,
            stack: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.i + ahead).copied()
    }

    /// Scans the whole input; fails when it is incomplete.
    fn complete(mut self) -> Result<(), &'static str> {
        self.run()?;
        if !self.pending.is_empty() {
            Err(UNTERMINATED_HEREDOC)
        } else if !self.stack.is_empty() {
            Err(UNTERMINATED)
        } else {
            Ok(())
        }
    }

    /// Whether the scan stops inside a `$(…)`, `$((…))` or `$[…]`.
    fn ends_inside_construct(mut self) -> bool {
        let _ = self.run();
        self.stack.iter().any(|c| {
            matches!(
                c,
                Context::Substitution(_) | Context::Arithmetic(_) | Context::Bracket(_)
            )
        })
    }

    /// Scans until the end or the first sure sign of incompleteness.
    fn run(&mut self) -> Result<(), &'static str> {
        while let Some(b) = self.peek(0) {
            match self.stack.last().copied() {
                Some(Context::DoubleQuote) => self.in_double_quote(b),
                Some(Context::Backquote) => match b {
                    b'\\' => self.i += 1,
                    b'`' => {
                        self.stack.pop();
                    }
                    _ => {}
                },
                context => self.in_code(b, context)?,
            }
            self.i += 1;
        }
        Ok(())
    }

    fn in_double_quote(&mut self, b: u8) {
        match b {
            b'\\' => self.i += 1,
            b'"' => {
                self.stack.pop();
            }
            b'`' => self.stack.push(Context::Backquote),
            b'$' => self.dollar(),
            _ => {}
        }
    }

    fn dollar(&mut self) {
        match self.peek(1) {
            Some(b'(') if self.peek(2) == Some(b'(') => {
                self.i += 2;
                self.stack.push(Context::Arithmetic(2));
            }
            Some(b'(') => {
                self.i += 1;
                self.stack.push(Context::Substitution(1));
            }
            Some(b'[') => {
                self.i += 1;
                self.stack.push(Context::Bracket(1));
            }
            _ => {}
        }
    }

    fn in_code(&mut self, b: u8, context: Option<Context>) -> Result<(), &'static str> {
        let at_word_start = self.i == 0
            || self
                .bytes
                .get(self.i - 1)
                .is_some_and(|p| matches!(p, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'('));
        match b {
            b'\\' => self.i += 1,
            b'\'' => {
                let Some(end) = self.bytes.get(self.i + 1..).and_then(|r| find(r, b'\'')) else {
                    return Err(UNTERMINATED);
                };
                self.i += end + 1;
            }
            b'"' => self.stack.push(Context::DoubleQuote),
            b'`' => self.stack.push(Context::Backquote),
            // An ANSI-C string may hold an escaped quote.
            b'$' if self.peek(1) == Some(b'\'') => {
                self.i += 2;
                while let Some(c) = self.peek(0) {
                    match c {
                        b'\\' => self.i += 2,
                        b'\'' => break,
                        _ => self.i += 1,
                    }
                }
                if self.peek(0).is_none() {
                    return Err(UNTERMINATED);
                }
            }
            b'$' => self.dollar(),
            b'#' if at_word_start => {
                while self.peek(1).is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            }
            b'(' | b'[' => self.nest(context, b, 1),
            b')' | b']' => self.nest(context, b, -1),
            b'<' if self.peek(1) == Some(b'<') => {
                // `<<<` is a here-string; `<<` inside `$((…))` is a shift.
                if self.peek(2) == Some(b'<') || matches!(context, Some(Context::Arithmetic(_))) {
                    self.i += 2;
                } else {
                    return self.heredoc_operator();
                }
            }
            b'\n' => return self.bodies(),
            _ => {}
        }
        Ok(())
    }

    fn nest(&mut self, context: Option<Context>, b: u8, step: isize) {
        let (n, rebuild): (usize, fn(usize) -> Context) = match (context, b) {
            (Some(Context::Substitution(n)), b'(' | b')') => (n, Context::Substitution),
            (Some(Context::Arithmetic(n)), b'(' | b')') => (n, Context::Arithmetic),
            (Some(Context::Bracket(n)), b'[' | b']') => (n, Context::Bracket),
            _ => return,
        };
        let n = n.saturating_add_signed(step);
        self.stack.pop();
        if n > 0 {
            self.stack.push(rebuild(n));
        }
    }

    /// Reads `<<` or `<<-` and its delimiter word, which must not be empty.
    fn heredoc_operator(&mut self) -> Result<(), &'static str> {
        self.i += 2;
        let strip_tabs = self.peek(0) == Some(b'-');
        if strip_tabs {
            self.i += 1;
        }
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        let mut word = Vec::new();
        while let Some(c) = self.peek(0) {
            if matches!(
                c,
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
            ) {
                break;
            }
            if !matches!(c, b'\'' | b'"' | b'\\') {
                word.push(c);
            }
            self.i += 1;
        }
        // Leave the byte after the word to the main loop.
        self.i -= 1;
        if word.is_empty() {
            return Err(MISSING_WORD);
        }
        self.pending.push((word, strip_tabs));
        Ok(())
    }

    /// At a newline: skips the bodies of the pending here-documents; fails
    /// when one has no closing delimiter line.
    fn bodies(&mut self) -> Result<(), &'static str> {
        for (word, strip_tabs) in std::mem::take(&mut self.pending) {
            loop {
                let start = self.i + 1;
                if start >= self.bytes.len() {
                    return Err(UNTERMINATED_HEREDOC);
                }
                let rest = self.bytes.get(start..).unwrap_or_default();
                let len = find(rest, b'\n').unwrap_or(rest.len());
                let mut line = rest.get(..len).unwrap_or_default();
                if strip_tabs {
                    while let [b'\t', tail @ ..] = line {
                        line = tail;
                    }
                }
                self.i = start + len;
                if line == word.as_slice() {
                    break;
                }
            }
        }
        // The loop ends on the newline after the last delimiter line; the
        // main loop steps past it.
        if self.i >= self.bytes.len() {
            self.i = self.bytes.len().saturating_sub(1);
        }
        Ok(())
    }
}

fn find(bytes: &[u8], wanted: u8) -> Option<usize> {
    bytes.iter().position(|&b| b == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_trailing_heredoc_operators_are_closed() {
        assert_eq!(
            close_trailing_heredocs("cat > a.ts <<EOF").as_deref(),
            Some("cat > a.ts <<EOF\nEOF\n")
        );
        assert_eq!(
            close_trailing_heredocs("cat <<A <<'B'").as_deref(),
            Some("cat <<A <<'B'\nA\nB\n")
        );
        assert_eq!(close_trailing_heredocs("cat > a <<EOF\nbody"), None);
        assert_eq!(close_trailing_heredocs("cat > a <<"), None);
        assert_eq!(close_trailing_heredocs("echo \"$(cat <<EOF"), None);
        assert_eq!(close_trailing_heredocs("cat <<EOF\nx\nEOF"), None);
    }

    #[test]
    fn parenthesis_depth_is_bounded_where_the_parser_backtracks() {
        let slow = format!("t>((((((\"\"\"\"{}>(u", "(".repeat(22));
        assert!(paren_estimate(&slow) > MAX_PAREN_NESTING);
        assert_eq!(paren_estimate("f() { (a) && ( (b) ); }"), 2);
    }

    #[test]
    fn unclosed_substitutions_are_found() {
        assert!(unclosed_construct("echo $(date"));
        assert!(unclosed_construct("echo \"$(ls 'x"));
        assert!(unclosed_construct("x=$[1+"));
        assert!(!unclosed_construct("echo \"$(echo \"it's\")\" > a"));
        assert!(!unclosed_construct(
            "echo $(case $x in a) echo;; esac) $((1<<2))"
        ));
        assert!(!unclosed_construct("echo '$(' \"$\"( # $("));
    }

    #[test]
    fn parameter_expansions_across_lines_are_found() {
        assert!(multiline_parameter("cat <<'EOF' > s\n${_c\n_}\nEOF"));
        assert!(!multiline_parameter("echo ${a} ${b:-x}\n${c}"));
    }

    #[test]
    fn oversized_descriptor_numbers_are_found() {
        assert!(oversized_descriptor("echo 66666666666666> x"));
        assert!(!oversized_descriptor("echo 666666666> x 12345678901 > y"));
    }

    #[test]
    fn complete_commands_with_substitutions_and_heredocs_pass() {
        for ok in [
            "git commit -m \"$(cat <<'EOF'\nfix: don't (break)\nEOF\n)\" && touch a",
            "x=$(cat <<-EOF\n\tbody\n\tEOF\n)",
            "echo $(cat <<< x) <<EOF\n$(date)\nEOF",
            "cat <<A <<B\na\nA\nb\nB\necho $(ls)",
            "echo $[1+2] # << not a heredoc",
            "echo $((1 << 4)) > shifted.txt",
            "echo $'it\\'s' <<EOF\nbody\nEOF",
            "cat <<EOF > a.txt\nplain\nEOF",
        ] {
            assert_eq!(incomplete_with_heredoc(ok), None, "{ok:?}");
        }
    }

    #[test]
    fn incomplete_commands_with_substitutions_and_heredocs_are_refused() {
        for bad in [
            "$( << & x",
            "` ` <<- $( << while #",
            "echo $(cat <<EOF\nbody\n",
            "echo \"$(cat <<EOF\nbody\nEOF\n",
            "x=$(cat <<'EOF",
            "$[ << ;",
            ") >> sed ) )) install $ 2> << '' & case | in mv  ",
            "cat << ''",
            "cat <<EOF\nno end",
            "${ # $( <<  ",
            "echo '<< &' <<EOF\nx\nEOF",
        ] {
            assert!(incomplete_with_heredoc(bad).is_some(), "{bad:?}");
        }
    }
}
