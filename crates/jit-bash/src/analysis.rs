//! The result of an analysis: the written paths, and every word skipped with its reason.

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
    /// here-document, …); the word is the parser's message.
    ParseError,
    /// The command runs a program whose writes cannot be known statically
    /// (`python gen.py`, `make`, `npm run build`); the word is the command name.
    UnsupportedCommand,
    /// The command deletes files (`rm`, `rmdir`, `unlink`); deletions are
    /// deliberately never reported, because the rules of a deleted file's
    /// directory no longer apply to it. The word is the command name.
    Delete,
    /// The command line could not be parsed with certainty: an option this
    /// crate does not know how to read, or too few operands for the command.
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

impl Analysis {
    /// Records a written path unless it is already listed.
    pub(crate) fn push_path(&mut self, path: &str) {
        if !self.paths.iter().any(|p| p == path) {
            self.paths.push(path.to_owned());
        }
    }

    /// Records a skipped word unless the same word was already skipped for the
    /// same reason.
    pub(crate) fn push_skipped(&mut self, word: &str, reason: SkipReason) {
        if !self
            .skipped
            .iter()
            .any(|s| s.reason == reason && s.word == word)
        {
            self.skipped.push(Skipped {
                word: word.to_owned(),
                reason,
            });
        }
    }
}
