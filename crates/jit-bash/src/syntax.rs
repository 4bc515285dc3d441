//! The only module that knows `brush-parser`: it turns command text into a flat list of steps.
//!
//! Everything else in the crate works on the small types defined here, so the
//! parser could be swapped by rewriting this file alone.

use std::io::{self, BufRead, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast::{
    self, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{ParseError, ParserOptions, TokenizerError};

use crate::SkipReason;
use crate::guard;

/// One shell word, decoded as far as it can be known without running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word as written in the command, quotes included.
    pub(crate) raw: String,
    /// The word's text after quote removal. When `uncertain` is set, this is
    /// only the part before the first piece whose value is unknown, which is
    /// still enough to tell an option (`--mode=$M`) from an operand.
    pub(crate) text: String,
    /// Why the word's value cannot be known statically, if it cannot.
    pub(crate) uncertain: Option<SkipReason>,
}

/// An element of a simple command, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// The command name or one of its arguments.
    Word(Word),
    /// The target of a redirection that opens a file for writing.
    WriteRedirect(Word),
}

/// One unit of work for the extractor, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A simple command: its name, arguments and writing redirections in
    /// source order. Leading assignments are dropped: they never hide the
    /// command. The list may hold only redirections (`> file`).
    Simple(Vec<Item>),
    /// A writing redirection attached to a compound command or a function
    /// body (`{ …; } > out.log`).
    WriteRedirect(Word),
}

/// Parses `command` into steps, or returns a message saying why it is not
/// valid bash. A panic inside the parser is reported as a parse error rather
/// than unwinding into the caller.
pub(crate) fn parse(command: &str) -> Result<Vec<Step>, String> {
    match catch_unwind(AssertUnwindSafe(|| parse_unguarded(command))) {
        Ok(result) => result,
        Err(_) => Err(String::from("the shell parser failed on this input")),
    }
}

fn options() -> ParserOptions {
    ParserOptions::default()
}

/// How many times the parser may read past the end of the input. A second
/// line of defence behind [`guard`]: some tokenizer loops at the end of input
/// keep reading, and an error from the reader stops them. A complete parse
/// reads the end only a few times.
const EOF_READS: u32 = 256;

/// The command text as a reader that fails once it has reported the end of
/// input [`EOF_READS`] times.
struct EofBudget<'a> {
    rest: &'a [u8],
    eof_reads: u32,
}

impl<'a> EofBudget<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            rest: text.as_bytes(),
            eof_reads: 0,
        }
    }
}

impl Read for EofBudget<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for EofBudget<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.rest.is_empty() {
            self.eof_reads += 1;
            if self.eof_reads > EOF_READS {
                return Err(io::Error::other(
                    "the parser did not stop at the end of input",
                ));
            }
        }
        Ok(self.rest)
    }

    fn consume(&mut self, amt: usize) {
        self.rest = self.rest.get(amt..).unwrap_or_default();
    }
}

fn parse_unguarded(command: &str) -> Result<Vec<Step>, String> {
    if guard::nesting_estimate(command) > guard::MAX_NESTING {
        return Err(format!("nested deeper than {} levels", guard::MAX_NESTING));
    }
    if guard::paren_estimate(command) > guard::MAX_PAREN_NESTING {
        return Err(format!(
            "parentheses nested deeper than {} levels",
            guard::MAX_PAREN_NESTING
        ));
    }
    if guard::oversized_descriptor(command) {
        return Err(String::from("file descriptor number out of range"));
    }
    if guard::multiline_parameter(command) {
        return Err(String::from("parameter expansion `${…}` across lines"));
    }
    if guard::unclosed_construct(command) {
        return Err(String::from("unterminated `$(…)` or `$[…]` construct"));
    }
    let closed = guard::close_trailing_heredocs(command);
    let command = closed.as_deref().unwrap_or(command);
    if let Some(problem) = guard::incomplete_with_heredoc(command) {
        return Err(problem.to_owned());
    }
    let options = options();
    let mut parser = brush_parser::Parser::new(EofBudget::new(command), &options);
    let program = parser.parse_program().map_err(|err| describe(&err))?;
    let mut walker = Walker {
        options,
        steps: Vec::new(),
    };
    for list in &program.complete_commands {
        walker.compound_list(list);
    }
    Ok(walker.steps)
}

/// Turns a parser error into a short message. The here-document message of
/// the parser lists internal state, so it gets a plainer wording.
fn describe(err: &ParseError) -> String {
    match err {
        ParseError::Tokenizing {
            inner: TokenizerError::UnterminatedHereDocuments(..),
            position,
        } => match position {
            Some(p) => format!(
                "unterminated here-document (no closing delimiter line) near line {} col {}",
                p.line, p.column
            ),
            None => String::from("unterminated here-document (no closing delimiter line)"),
        },
        other => other.to_string(),
    }
}

struct Walker {
    options: ParserOptions,
    steps: Vec<Step>,
}

impl Walker {
    fn compound_list(&mut self, list: &CompoundList) {
        for item in &list.0 {
            let and_or = &item.0;
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p),
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound);
                self.redirect_list(redirects.as_ref());
            }
            Command::Function(function) => {
                self.compound(&function.body.0);
                self.redirect_list(function.body.1.as_ref());
            }
            Command::ExtendedTest(_, redirects) => self.redirect_list(redirects.as_ref()),
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::Arithmetic(_) => {}
            CompoundCommand::ArithmeticForClause(c) => self.compound_list(&c.body.list),
            CompoundCommand::BraceGroup(c) => self.compound_list(&c.list),
            CompoundCommand::Subshell(c) => self.compound_list(&c.list),
            CompoundCommand::ForClause(c) => {
                for value in c.values.iter().flatten() {
                    self.word(value);
                }
                self.compound_list(&c.body.list);
            }
            CompoundCommand::CaseClause(c) => {
                for case in &c.cases {
                    if let Some(list) = &case.cmd {
                        self.compound_list(list);
                    }
                }
            }
            CompoundCommand::IfClause(c) => {
                self.compound_list(&c.condition);
                self.compound_list(&c.then);
                for branch in c.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.compound_list(condition);
                    }
                    self.compound_list(&branch.body);
                }
            }
            CompoundCommand::WhileClause(c) | CompoundCommand::UntilClause(c) => {
                self.compound_list(&c.0);
                self.compound_list(&c.1.list);
            }
            CompoundCommand::Coprocess(c) => self.command(&c.body),
        }
    }

    fn redirect_list(&mut self, redirects: Option<&ast::RedirectList>) {
        for redirect in redirects.iter().flat_map(|list| list.0.iter()) {
            if let Some(target) = self.redirect(redirect) {
                self.steps.push(Step::WriteRedirect(target));
            }
        }
    }

    /// Returns the target of a redirection that opens a file for writing.
    /// Process substitutions are walked, since their commands run.
    fn redirect(&mut self, redirect: &IoRedirect) -> Option<Word> {
        match redirect {
            IoRedirect::File(fd, kind, target) => match (kind, target) {
                (_, IoFileRedirectTarget::ProcessSubstitution(_, subshell)) => {
                    self.compound_list(&subshell.list);
                    None
                }
                (
                    IoFileRedirectKind::Write
                    | IoFileRedirectKind::Append
                    | IoFileRedirectKind::Clobber
                    | IoFileRedirectKind::ReadAndWrite,
                    IoFileRedirectTarget::Filename(word),
                ) => Some(self.word(word)),
                // `>&word` without a descriptor number sends both stdout and
                // stderr to the file `word`, unless the word is a descriptor
                // number or `-` (close).
                (IoFileRedirectKind::DuplicateOutput, IoFileRedirectTarget::Duplicate(word))
                    if fd.is_none() =>
                {
                    let word = self.word(word);
                    let is_fd = word.uncertain.is_none()
                        && !word.text.is_empty()
                        && word
                            .text
                            .trim_end_matches('-')
                            .chars()
                            .all(|c| c.is_ascii_digit());
                    (!is_fd).then_some(word)
                }
                _ => None,
            },
            IoRedirect::OutputAndError(word, _append) => Some(self.word(word)),
            // A here-document or here-string body is data, never commands.
            IoRedirect::HereDocument(..) | IoRedirect::HereString(..) => None,
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand) {
        let mut items = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
        for item in prefix {
            // Leading assignments set variables for this command only; the
            // command itself still runs. Their substitutions run too.
            if let CommandPrefixOrSuffixItem::AssignmentWord(_, word) = item {
                self.word(word);
            } else {
                self.prefix_or_suffix(item, &mut items);
            }
        }
        if let Some(name) = &simple.word_or_name {
            self.argument(name, &mut items);
        }
        for item in suffix {
            self.prefix_or_suffix(item, &mut items);
        }
        self.steps.push(Step::Simple(items));
    }

    fn prefix_or_suffix(&mut self, item: &CommandPrefixOrSuffixItem, items: &mut Vec<Item>) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                if let Some(target) = self.redirect(redirect) {
                    items.push(Item::WriteRedirect(target));
                }
            }
            CommandPrefixOrSuffixItem::Word(word) => self.argument(word, items),
            // Bash does not brace-expand assignment words.
            CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                items.push(Item::Word(self.word(word)));
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                self.compound_list(&subshell.list);
                // The argument becomes a `/dev/fd/N` path at run time.
                let raw = match kind {
                    ast::ProcessSubstitutionKind::Read => "<(…)",
                    ast::ProcessSubstitutionKind::Write => ">(…)",
                };
                items.push(Item::Word(Word {
                    raw: raw.to_owned(),
                    text: String::new(),
                    uncertain: Some(SkipReason::Device),
                }));
            }
        }
    }

    /// Adds a command name or argument, brace-expanded into several words
    /// when its braces are a plain list (`src/{a,b}`, `f{,.bak}`).
    fn argument(&mut self, word: &ast::Word, items: &mut Vec<Item>) {
        let decoded = self.word(word);
        let expanded = (decoded.uncertain == Some(SkipReason::BraceExpansion))
            .then(|| expand_braces(&decoded.raw))
            .flatten();
        match expanded {
            Some(texts) => items.extend(texts.into_iter().map(|text| {
                // Bash expands a tilde that brace expansion puts at the
                // start of a word (`{~/x,b}`): it names a home directory.
                let uncertain = text.starts_with('~').then_some(SkipReason::Tilde);
                Item::Word(Word {
                    raw: decoded.raw.clone(),
                    text,
                    uncertain,
                })
            })),
            None => items.push(Item::Word(decoded)),
        }
    }

    /// Decodes a word. The commands of its `$(…)` substitutions run before
    /// the command that holds the word, so their steps come first.
    fn word(&mut self, word: &ast::Word) -> Word {
        let (word, substitutions) = decode(&word.value, &self.options);
        for inner in substitutions {
            // The outer text parsed, so the inner text does too; should it
            // not, its commands are simply not analysed.
            if let Ok(steps) = parse_unguarded(&inner) {
                self.steps.extend(steps);
            }
        }
        word
    }
}

/// Decodes one word: removes quotes and escapes, and finds the first piece
/// whose value is known only at run time. Also returns the text of every
/// `$(…)` command substitution in the word, since those commands run.
fn decode(raw: &str, options: &ParserOptions) -> (Word, Vec<String>) {
    let mut decoder = Decoder::default();
    // A word starting with a tilde names a home or stack directory whatever
    // follows. It is not handed to the word parser, which unwraps the number
    // of `~+N` / `~-N` and panics when it overflows.
    if raw.starts_with('~') {
        decoder.uncertain = Some(SkipReason::Tilde);
        let word = Word {
            raw: raw.to_owned(),
            text: String::new(),
            uncertain: decoder.uncertain,
        };
        return (word, Vec::new());
    }
    match brush_parser::word::parse(raw, options) {
        Ok(pieces) => decoder.pieces(&pieces, false),
        // The whole command parsed, so this is rare; `parse_error` is kept
        // for the whole command, and the word is merely not decoded.
        Err(_) => decoder.uncertain = Some(SkipReason::Quoting),
    }
    if decoder.uncertain.is_none() {
        decoder.uncertain = pattern_reason(&decoder.unquoted);
    }
    let word = Word {
        raw: raw.to_owned(),
        text: decoder.text,
        uncertain: decoder.uncertain,
    };
    (word, decoder.substitutions)
}

#[derive(Default)]
struct Decoder {
    text: String,
    /// The word with every quoted or escaped character replaced by a neutral
    /// one, so that pattern characters are only found where they are active.
    unquoted: String,
    uncertain: Option<SkipReason>,
    substitutions: Vec<String>,
}

impl Decoder {
    fn pieces(&mut self, pieces: &[WordPieceWithSource], quoted: bool) {
        for piece in pieces {
            self.piece(&piece.piece, quoted);
        }
    }

    /// Appends literal text, as long as nothing uncertain came before it.
    fn literal(&mut self, s: &str, quoted: bool) {
        if self.uncertain.is_some() {
            return;
        }
        self.text.push_str(s);
        if quoted {
            self.unquoted.extend(s.chars().map(|_| '_'));
        } else {
            self.unquoted.push_str(s);
        }
    }

    fn uncertain(&mut self, reason: SkipReason) {
        self.uncertain.get_or_insert(reason);
    }

    fn piece(&mut self, piece: &WordPiece, quoted: bool) {
        match piece {
            WordPiece::Text(s) => self.literal(s, quoted),
            WordPiece::SingleQuotedText(s) => self.literal(s, true),
            WordPiece::AnsiCQuotedText(s) => {
                // Without a backslash an ANSI-C string is plain text; decoding
                // its escapes is not worth the risk of a wrong path.
                if s.contains('\\') {
                    self.uncertain(SkipReason::Quoting);
                } else {
                    self.literal(s, true);
                }
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => self.pieces(inner, true),
            WordPiece::EscapeSequence(s) => {
                // A backslash-newline joins lines and leaves nothing behind.
                let escaped = s.strip_prefix('\\').unwrap_or(s);
                if escaped != "\n" {
                    self.literal(escaped, true);
                }
            }
            WordPiece::TildeExpansion(_) => self.uncertain(SkipReason::Tilde),
            WordPiece::ParameterExpansion(_) => self.uncertain(SkipReason::Variable),
            WordPiece::CommandSubstitution(inner) => {
                self.substitutions.push(inner.clone());
                self.uncertain(SkipReason::CommandSubstitution);
            }
            // The text of a backquoted substitution has its own escaping
            // rules, so its commands are not analysed.
            WordPiece::BackquotedCommandSubstitution(_) => {
                self.uncertain(SkipReason::CommandSubstitution);
            }
            WordPiece::ArithmeticExpression(_) => {
                self.uncertain(SkipReason::ArithmeticSubstitution);
            }
        }
    }
}

/// Expands a word, as written, whose only braces are one plain list: `{`
/// and `}` once each, commas between them, no `..` sequence, and no quote,
/// escape or expansion anywhere in the word, so that every brace and comma is
/// active. Anything else stays skipped.
fn expand_braces(text: &str) -> Option<Vec<String>> {
    let open = text.find('{')?;
    let close = text.rfind('}')?;
    let inside = text.get(open + 1..close)?;
    let prefix = text.get(..open)?;
    let suffix = text.get(close + 1..)?;
    let plain = |s: &str| !s.contains(['{', '}', '\\', '\'', '"', '$', '`']);
    if !plain(inside) || !plain(prefix) || !plain(suffix) || inside.contains("..") {
        return None;
    }
    let items: Vec<&str> = inside.split(',').collect();
    if items.len() < 2 {
        return None;
    }
    Some(
        items
            .into_iter()
            .map(|item| format!("{prefix}{item}{suffix}"))
            .collect(),
    )
}

/// Finds an active pathname pattern or brace expansion in the unquoted view
/// of a word.
fn pattern_reason(unquoted: &str) -> Option<SkipReason> {
    let bytes = unquoted.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        match b {
            b'*' | b'?' => return Some(SkipReason::Glob),
            // A bracket expression needs its closing bracket; `a[b` is literal.
            b'[' if bytes.get(i + 1..).is_some_and(|rest| rest.contains(&b']')) => {
                return Some(SkipReason::Glob);
            }
            // Extended patterns: `+(…)`, `@(…)`, `!(…)`.
            b'+' | b'@' | b'!' if next == Some(b'(') => return Some(SkipReason::Glob),
            _ => {}
        }
    }
    // A brace expansion needs a comma or a `..` sequence between braces.
    let mut rest = unquoted;
    while let Some(open) = rest.find('{') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find('}') else { break };
        let inside = after.get(..close).unwrap_or("");
        if inside.contains(',') || inside.contains("..") {
            return Some(SkipReason::BraceExpansion);
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_word(raw: &str, text: &str, uncertain: Option<SkipReason>) {
        let (word, _) = decode(raw, &options());
        assert_eq!(
            (word.text.as_str(), word.uncertain),
            (text, uncertain),
            "{raw}"
        );
    }

    #[test]
    fn words_decode_to_their_literal_text_or_a_reason() {
        check_word("a\\ b", "a b", None);
        check_word("\"x\\\"y\\a\"", "x\"y\\a", None);
        check_word("'s/$l'", "s/$l", None);
        check_word("'*.ts'", "*.ts", None);
        check_word("\\*", "*", None);
        check_word("a$", "a$", None);
        check_word("fo[o", "fo[o", None);
        check_word("\"{a,b}\"", "{a,b}", None);
        check_word("--mode=$M", "--mode=", Some(SkipReason::Variable));
        check_word("~/x", "", Some(SkipReason::Tilde));
        check_word("~777777000000000000077", "", Some(SkipReason::Tilde));
        check_word("$((1+2))", "", Some(SkipReason::ArithmeticSubstitution));
        check_word("`d`", "", Some(SkipReason::CommandSubstitution));
        check_word("src/*.ts", "src/*.ts", Some(SkipReason::Glob));
        check_word("a[12].ts", "a[12].ts", Some(SkipReason::Glob));
        check_word("src/{a,b}", "src/{a,b}", Some(SkipReason::BraceExpansion));
        check_word("f{1..3}", "f{1..3}", Some(SkipReason::BraceExpansion));
        check_word("$'a\\nb'", "", Some(SkipReason::Quoting));
    }

    #[test]
    fn deep_nesting_is_refused_before_it_can_overflow_the_stack() {
        let deep = format!("echo {}{}", "$(".repeat(200), ")".repeat(200));
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || parse(&deep))
            .unwrap();
        let err = handle.join().unwrap().unwrap_err();
        assert!(err.starts_with("nested deeper than"), "{err}");
        let ok = format!("{}touch a{}", "{ ".repeat(20), "; }".repeat(20));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn inputs_that_loop_the_parser_are_refused_first() {
        for looping in ["$( << & x", "$( << & - #", "echo $(cat <<- ;"] {
            let err = parse(looping).unwrap_err();
            assert!(!err.is_empty(), "{looping}");
        }
        // The usual commit-message form still parses.
        let commit = "git commit -m \"$(cat <<'EOF'\nfix: it\nEOF\n)\" && touch a";
        assert!(parse(commit).is_ok());
        // A here-string is not a here-document.
        assert!(parse("echo $(cat <<< x)").is_ok());
    }

    #[test]
    fn a_here_document_body_that_never_closes_is_a_parse_error() {
        let err = parse("cat > a.txt <<EOF\nbody").unwrap_err();
        assert!(err.starts_with("unterminated here-document"), "{err}");
    }

    #[test]
    fn a_trailing_here_document_operator_ends_at_the_end_of_input_as_in_bash() {
        assert!(parse("cat > a.txt <<EOF").is_ok());
    }
}
