//! Which files a shell command writes, for the high-certainty forms only.
//!
//! An agent's bash tool receives command text; [`written_paths`] tells which
//! project files that text certainly writes, so that the rules of their
//! directories can be loaded just in time. It parses the text with a real
//! bash parser and reports only forms whose target is known without running
//! anything. A false hit costs tokens and can make the model follow the wrong
//! rules; a miss only falls back to the behaviour without just-in-time rules.
//! So when a word is uncertain it is left out, and [`Analysis::skipped`] says
//! why.
//!
//! ```
//! use jit_bash::{written_paths, SkipReason};
//!
//! let analysis = written_paths("mkdir -p src/ui/sub && cp a.ts b.ts src/ui/ 2> build/err.log");
//! assert_eq!(analysis.paths, ["src/ui/sub", "src/ui/", "build/err.log"]);
//!
//! let analysis = written_paths(r#"echo x > "$OUT"; rm src/old.ts"#);
//! assert!(analysis.paths.is_empty());
//! assert_eq!(analysis.skipped[0].word, r#""$OUT""#);
//! assert_eq!(analysis.skipped[0].reason, SkipReason::Variable);
//! assert_eq!(analysis.skipped[1].reason.as_str(), "delete");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is reported
//!
//! * Redirections that open a file for writing: `>`, `>>`, `>|`, `&>`, `&>>`,
//!   `>&file`, `<>`, with or without a descriptor number (`2> err.log`), on
//!   simple commands, compound commands and function bodies, and `exec 3> f`.
//! * `cp`, `mv`, `install`: the target (the last operand, or the directory of
//!   `-t DIR` / `--target-directory=DIR`); with several sources, only the
//!   target directory. `install -d` creates every operand.
//! * `touch` (not with `-c`), `mkdir`, `tee`: every operand.
//! * `sed -i` (GNU `-i`, `-iSUFFIX`, `--in-place[=SUFFIX]`; BSD `-i ''`,
//!   `-i .bak`): the files after the script or the `-e` / `-f` scripts.
//! * Commands anywhere in lists, pipelines, subshells, brace groups, `if`,
//!   `for`, `while`, `until`, `case` bodies and function bodies, behind
//!   leading assignments (`FOO=1 touch f`) and behind `command`, `nohup`,
//!   `builtin`, `exec`, `time` and `coproc`.
//!
//! Paths come out exactly as the command names them after quote removal:
//! `"src/my dir/a.ts"` gives `src/my dir/a.ts`, relative paths stay relative
//! to the call's working directory, a trailing `/` is kept.
//!
//! # What is deliberately not reported
//!
//! * Any word with a variable, command or arithmetic substitution, a leading
//!   tilde or a glob: its value is known only at run time. Single-quoted text
//!   is literal (`> 'src/$x.txt'` writes exactly that). Brace expansion is
//!   done when every brace of an unquoted argument opens a plain list
//!   (`mkdir -p src/{a,b}`, `cp f{,.bak}`, `src/{a,{b,c}}`); sequences
//!   (`{1..3}`) and braces in a redirection target are skipped.
//! * `/dev/*` (devices), `/tmp/*` and `/var/tmp/*` (not project files), a
//!   lone `-` (standard input or output), an empty word.
//! * Deletions (`rm`, `rmdir`, `unlink`, `shred`): the rules of a deleted
//!   file's directory no longer apply to it. This is permanent, not a gap.
//! * Programs (`python gen.py`, `make`, `npm run build`, `git checkout`):
//!   a program may write any file, so it is skipped as an unsupported command.
//! * `cd` is not followed: paths stay relative to the call's working
//!   directory, as written.
//! * Here-document and here-string bodies are data, never commands; the
//!   commands of `$(…)` are analysed (the word holding it is skipped), those
//!   of backquotes, of `${x:-…}` defaults and of arithmetic are not.
//! * Text that is not valid bash (an unterminated quote, a here-document
//!   body that never reaches its closing line), or that the grammar cannot
//!   read with certainty, yields no paths and one [`SkipReason::ParseError`]
//!   entry saying what and where, never a guess from a partial parse. A
//!   command that ends right after `<<EOF` is valid: bash runs it with an
//!   empty body, and so its redirections are reported.
//!
//! # Limits
//!
//! The work is bounded, and each limit is named:
//! [`MAX_COMMAND_BYTES`] of command text (a longer text is refused whole
//! with [`SkipReason::TooLarge`], unparsed), [`MAX_DEPTH`] levels of nested
//! commands (deeper text is refused whole with [`SkipReason::TooDeep`]) and [`MAX_BRACE_WORDS`] words from one brace
//! expansion (a word that would make more is skipped with
//! [`SkipReason::TooManyExpansions`]), and a parse work budget of
//! [`PARSE_BUDGET_PER_BYTE`] (text on which the grammar's error recovery
//! spends more is refused whole with [`SkipReason::TooComplex`]). No real
//! command comes near any of them. One known gap: tree-sitter's stack
//! merging is exponential on some broken pipelines within a single parse
//! action, which no budget interrupts (see the crate README).
//!
//! The function does no I/O and never panics. It parses with
//! `tree-sitter-bash` (the grammar Codex CLI uses for model-issued commands),
//! which with `tree-sitter` pulls seven crates; nothing of git or YAML.
#![deny(missing_docs)]

mod analysis;
mod braces;
mod commands;
mod extract;
mod syntax;

pub use analysis::{Analysis, SkipReason, Skipped};
pub use braces::MAX_BRACE_WORDS;
pub use extract::{MAX_COMMAND_BYTES, written_paths};
pub use syntax::{MAX_DEPTH, PARSE_BUDGET_PER_BYTE};
