//! The result of an analysis: the written paths, and every word skipped with its reason.

use std::collections::HashSet;
use std::fmt;

/// What [`written_paths`](crate::written_paths) found in one command.
///
/// `paths` holds the files and directories the command certainly writes, in
/// order of appearance, deduplicated, spelled exactly as the command names
/// them (quotes removed, relative paths left relative, a trailing `/` kept).
/// `skipped` holds every word that might name a written file but was left
/// out, each with the reason, so that a caller can show why nothing came back.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The written paths, in order of appearance, without duplicates.
    pub paths: Vec<String>,
    /// The words that were left out, in order of appearance, without duplicates.
    pub skipped: Vec<Skipped>,
}

/// One word that was not reported as a path, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Skipped {
    /// The word as written in the command (quotes kept), the command name for
    /// a command-level refusal, or the parser's message for a parse error.
    pub word: String,
    /// Why the word was left out.
    pub reason: SkipReason,
}

/// Why a word was not reported as a written path.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// The word holds a parameter expansion (`$OUT`, `"${dir}/a"`): its value
    /// is known only at run time.
    Variable,
    /// The word holds a command substitution (`$(mktemp)`, `` `date` ``).
    CommandSubstitution,
    /// The word holds an arithmetic expansion (`$((n+1))`).
    ArithmeticSubstitution,
    /// The word starts with a tilde (`~/notes.md`): it names a home directory,
    /// which depends on the environment.
    Tilde,
    /// The word is a pathname pattern (`src/*.ts`, `a?.txt`, `[ab].md`).
    Glob,
    /// The word holds a brace expansion (`src/{a,b}`), which becomes several
    /// words.
    BraceExpansion,
    /// The word uses quoting this crate does not decode: an ANSI-C `$'…'`
    /// string with escapes, or a word the word parser rejects.
    Quoting,
    /// The path is a device (`/dev/null`, `/dev/stderr`), not a project file.
    Device,
    /// The path is under `/tmp` or `/var/tmp`, not a project file.
    Temp,
    /// The word is a lone `-`, which names standard input or output.
    Stdio,
    /// The word is empty (`touch ""`).
    Empty,
    /// The command text is not valid bash (unterminated quote, incomplete
    /// here-document, …), or the parser could not read it with certainty; the
    /// word says what and where. It comes alone, without paths.
    ParseError,
    /// Commands nest deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) levels
    /// (subshells, groups, bodies, substitutions). The whole text is refused;
    /// the word says where. It comes alone, without paths.
    TooDeep,
    /// The parser spent its work budget,
    /// [`PARSE_BUDGET_PER_BYTE`](crate::PARSE_BUDGET_PER_BYTE) times the
    /// length of the text: its error recovery re-reads hostile text (hundreds
    /// of `<<EOF` on a line, `x=( ` repeated) over and over, in time that
    /// grows with the square of the length. The whole text is refused; it
    /// comes alone, without paths.
    TooComplex,
    /// The command text is longer than
    /// [`MAX_COMMAND_BYTES`](crate::MAX_COMMAND_BYTES): it is not parsed at
    /// all, and the word says how long it is. It comes alone, without paths.
    TooLarge,
    /// A brace expansion would make more than
    /// [`MAX_BRACE_WORDS`](crate::MAX_BRACE_WORDS) words (`{a,b}` repeated 30
    /// times makes 2^30); the word is skipped whole.
    TooManyExpansions,
    /// The command runs a program whose writes cannot be known statically
    /// (`python gen.py`, `make`, `npm run build`); the word is the command name.
    UnsupportedCommand,
    /// The command deletes files (`rm`, `rmdir`, `unlink`); deletions are
    /// deliberately never reported, because the rules of a deleted file's
    /// directory no longer apply to it. The word is the command name.
    Delete,
    /// The command line could not be parsed with certainty: an option this
    /// crate does not know how to read, too few operands for the command, or
    /// an option that makes the write depend on what exists (`touch -c`).
    /// The word is the command name.
    UncertainArguments,
}

impl SkipReason {
    /// The reason's stable snake_case name, as used in JSON output.
    ///
    /// ```
    /// assert_eq!(jit_bash::SkipReason::CommandSubstitution.as_str(), "command_substitution");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Variable => "variable",
            Self::CommandSubstitution => "command_substitution",
            Self::ArithmeticSubstitution => "arithmetic_substitution",
            Self::Tilde => "tilde",
            Self::Glob => "glob",
            Self::BraceExpansion => "brace_expansion",
            Self::Quoting => "quoting",
            Self::Device => "device",
            Self::Temp => "temp",
            Self::Stdio => "stdio",
            Self::Empty => "empty",
            Self::ParseError => "parse_error",
            Self::TooDeep => "too_deep",
            Self::TooComplex => "too_complex",
            Self::TooLarge => "too_large",
            Self::TooManyExpansions => "too_many_expansions",
            Self::UnsupportedCommand => "unsupported_command",
            Self::Delete => "delete",
            Self::UncertainArguments => "uncertain_arguments",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.word, self.reason)
    }
}

/// Builds an [`Analysis`], dropping repeated paths and repeated skipped
/// words in time linear in their number (a hash set remembers what is
/// listed), and keeping the first-seen order.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    analysis: Analysis,
    seen_paths: HashSet<String>,
    seen_skipped: HashSet<(String, SkipReason)>,
}

impl Collector {
    /// Records a written path unless it is already listed.
    pub(crate) fn push_path(&mut self, path: &str) {
        if self.seen_paths.insert(path.to_owned()) {
            self.analysis.paths.push(path.to_owned());
        }
    }

    /// Records a skipped word unless the same word was already skipped for the
    /// same reason.
    pub(crate) fn push_skipped(&mut self, word: &str, reason: SkipReason) {
        if self.seen_skipped.insert((word.to_owned(), reason)) {
            self.analysis.skipped.push(Skipped {
                word: word.to_owned(),
                reason,
            });
        }
    }

    pub(crate) fn finish(self) -> Analysis {
        self.analysis
    }
}
