//! Extraction of `@path` tokens from rule text: where an import starts, where it ends, and what is code.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};
use serde::Serialize;

/// CJK punctuation that ends an import token and may stand right before its `@`.
///
/// A Chinese or Japanese sentence puts no space between a path and the
/// punctuation after it (`见 @NOTE.md，然后继续`), so these characters must end
/// the token during extraction; stripping them afterwards cannot work once
/// ordinary text follows the punctuation.
pub const CJK_PUNCTUATION: &str = "，。、；：！？（）【】「」『』〈〉《》〔〕“”‘’…—～·";

/// ASCII punctuation stripped from the end of a token: it belongs to the sentence, not the path.
const TRAILING_ASCII: &[char] = &['.', ',', ';', ':', '!', '?', ')', ']', '}', '\'', '"'];

/// ASCII characters after which an `@` may start an import: opening brackets and quotes.
const ASCII_OPENERS: &[char] = &['(', '[', '{', '"', '\''];

/// One `@path` import found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Import {
    /// The path as written, with `\ ` resolved to a space and the `#fragment`
    /// and trailing sentence punctuation dropped (`NOTE.md`, `docs/a b.md`).
    pub target: String,
    /// The `#fragment` that followed the path, without the `#`, if any.
    pub fragment: Option<String>,
    /// The token exactly as it stands in the text, `@` included, without the
    /// trailing punctuation that was dropped (`@NOTE.md#标题`, `@my\ notes.md`).
    pub raw: String,
    /// Byte range of [`Import::raw`] in the text: replacing it inlines the import.
    pub range: Range<usize>,
    /// 1-based line of the `@`.
    pub line: usize,
}

impl Import {
    /// This import cut before a run of CJK letters glued to its end, for a second try.
    ///
    /// Japanese text writes `タスクは@docs/TODO.mdで確認` with no space, so the
    /// token runs on into the sentence. When the whole token does not resolve,
    /// the part before the CJK run is tried once. A token is cut only where an
    /// ASCII character other than `/` runs straight into a CJK letter, and only
    /// when the rest contains no `/` or `.`, so a path that is CJK itself
    /// (`文档/说明.md`) is never cut. Returns `None` when there is nothing to cut.
    ///
    /// ```
    /// let text = "タスクは@docs/TODO.mdで確認";
    /// let import = &jit_imports::extract(text)[0];
    /// assert_eq!(import.target, "docs/TODO.mdで確認");
    /// let short = import.without_trailing_cjk().unwrap();
    /// assert_eq!(short.target, "docs/TODO.md");
    /// assert_eq!(&text[short.range.clone()], "@docs/TODO.md");
    ///
    /// let whole = &jit_imports::extract("见 @文档/说明.md，后续")[0];
    /// assert_eq!(whole.without_trailing_cjk(), None);
    /// ```
    pub fn without_trailing_cjk(&self) -> Option<Import> {
        // With a fragment, the glued text belongs to the fragment, not the path.
        if self.fragment.is_some() {
            return None;
        }
        let mut prev: Option<char> = None;
        let mut cut = None;
        for (i, c) in self.target.char_indices() {
            if is_cjk_letter(c) && prev.is_some_and(|p| p.is_ascii() && p != '/' && p != ' ') {
                cut = Some(i);
                break;
            }
            prev = Some(c);
        }
        let cut = cut?;
        let rest = &self.target[cut..];
        if rest.contains(['/', '.', ' ']) {
            return None;
        }
        let mut target = self.target[..cut].to_owned();
        // The rest holds no escapes (no spaces), so it is as long in the raw token as in the target.
        let mut end = self.range.end.checked_sub(rest.len())?;
        while let Some(c) = target
            .chars()
            .next_back()
            .filter(|c| TRAILING_ASCII.contains(c))
        {
            target.pop();
            end = end.checked_sub(c.len_utf8())?;
        }
        if target.is_empty() {
            return None;
        }
        let raw_len = end.checked_sub(self.range.start)?;
        Some(Import {
            target,
            fragment: None,
            raw: self.raw.get(..raw_len)?.to_owned(),
            range: self.range.start..end,
            line: self.line,
        })
    }
}

/// Finds every `@path` import in `text`, in order. Pure: no I/O.
///
/// An `@` starts an import at the start of the text, after whitespace, after
/// CJK punctuation or an opening bracket or quote, or right after a CJK
/// letter; never after anything else, so `user@example.com` is not an import.
/// The token ends at whitespace (`\ ` is an escaped space and continues it),
/// at a backslash before anything else, or at [`CJK_PUNCTUATION`]. Then
/// trailing ASCII sentence punctuation is dropped (the `.` inside `a.b.md`
/// stays) and a `#fragment` is split off. Nothing inside a Markdown code span
/// or code block is an import; those are found with a CommonMark parser.
///
/// ```
/// use jit_imports::extract;
///
/// let text = "见「@NOTE.md」后续, see @docs/my\\ notes.md#usage. Mail user@example.com, not `@code`.";
/// let targets: Vec<_> = extract(text).into_iter().map(|i| i.target).collect();
/// assert_eq!(targets, ["NOTE.md", "docs/my notes.md"]);
///
/// let import = &extract("详见 @NOTE.md#标题，")[0];
/// assert_eq!(import.raw, "@NOTE.md#标题");
/// assert_eq!(import.fragment.as_deref(), Some("标题"));
/// assert_eq!(&"详见 @NOTE.md#标题，"[import.range.clone()], "@NOTE.md#标题");
/// ```
pub fn extract(text: &str) -> Vec<Import> {
    let mut out = Vec::new();
    if !text.contains('@') {
        return out;
    }
    let code = code_ranges(text);
    let mut code_idx = 0;
    let mut scanned_to = 0;
    let mut line = 1;
    let mut line_counted_to = 0;
    for (at, _) in text.match_indices('@') {
        if at < scanned_to {
            // Part of the previous token (`@a\ @b`).
            continue;
        }
        while code.get(code_idx).is_some_and(|r| r.end <= at) {
            code_idx += 1;
        }
        let next_code = code.get(code_idx);
        if next_code.is_some_and(|r| r.start <= at) {
            continue;
        }
        if !starts_import(text[..at].chars().next_back()) {
            continue;
        }
        let limit = next_code.map_or(text.len(), |r| r.start);
        let Some(token) = scan_token(text, at, limit) else {
            continue;
        };
        scanned_to = token.scanned_to;
        line += text[line_counted_to..at].matches('\n').count();
        line_counted_to = at;
        out.push(Import {
            target: token.target,
            fragment: token.fragment,
            raw: text[at..token.end].to_owned(),
            range: at..token.end,
            line,
        });
    }
    out
}

/// A token read from the text, before it becomes an [`Import`].
struct Token {
    target: String,
    fragment: Option<String>,
    /// End of the token once trailing punctuation is dropped.
    end: usize,
    /// End of everything the scan consumed, trailing punctuation included.
    scanned_to: usize,
}

/// Reads the token after the `@` at byte `at`, stopping at `limit` (the next code span).
///
/// An `@` that cannot start a token is turned down from the character after
/// it, before any scan: `@#…` has an empty path and `@@…` a path starting
/// with `@`. A failed token does not move the scan past its text (a later
/// `@` in it may start a real import, as in `(@#(@NOTE.md`), so scanning a
/// whole run only to turn it down would make a run of `(@#` quadratic.
fn scan_token(text: &str, at: usize, limit: usize) -> Option<Token> {
    let start = at + 1;
    let rest = text.get(start..limit)?;
    if rest.starts_with(['#', '@']) {
        return None;
    }
    let mut unescaped = String::new();
    let mut chars = rest.char_indices().peekable();
    let mut end = start;
    while let Some((i, c)) = chars.next() {
        #[cfg(test)]
        tests::SCANNED.with(|n| n.set(n.get() + 1));
        if c == '\\' {
            if chars.peek().is_some_and(|&(_, n)| n == ' ') {
                chars.next();
                unescaped.push(' ');
                end = start + i + 2;
                continue;
            }
            break;
        }
        if c.is_whitespace() || is_cjk_punctuation(c) {
            break;
        }
        unescaped.push(c);
        end = start + i + c.len_utf8();
    }
    let scanned_to = end;
    // Escapes produce only spaces, which are never stripped, so each stripped
    // character is one byte of the text as well as of the unescaped token.
    while let Some(c) = unescaped
        .chars()
        .next_back()
        .filter(|c| TRAILING_ASCII.contains(c))
    {
        unescaped.pop();
        end -= c.len_utf8();
    }
    let (target, fragment) = match unescaped.split_once('#') {
        Some((path, fragment)) => (path.to_owned(), Some(fragment.to_owned())),
        None => (unescaped, None),
    };
    // `@@x` is not an import of `@x`: an import target never starts with `@`.
    if target.is_empty() || target.starts_with('@') {
        return None;
    }
    Some(Token {
        target,
        fragment,
        end,
        scanned_to,
    })
}

/// Whether an `@` preceded by `prev` (`None` at the start of the text) starts an import.
fn starts_import(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => {
            c.is_whitespace()
                || is_cjk_punctuation(c)
                || ASCII_OPENERS.contains(&c)
                || is_cjk_letter(c)
        }
    }
}

/// Whether `c` is one of [`CJK_PUNCTUATION`].
pub(crate) fn is_cjk_punctuation(c: char) -> bool {
    // Every member is outside ASCII; the check keeps ASCII text on the fast path.
    !c.is_ascii() && CJK_PUNCTUATION.contains(c)
}

/// Whether `c` is a Han, kana or Hangul letter: text that writes no spaces between words.
pub(crate) fn is_cjk_letter(c: char) -> bool {
    matches!(c,
        '\u{3005}'                    // 々 ideographic iteration mark
        | '\u{3040}'..='\u{309F}'     // Hiragana
        | '\u{30A0}'..='\u{30FA}'     // Katakana, without the middle dot 30FB
        | '\u{30FC}'..='\u{30FF}'     // Katakana prolonged sound mark and iteration marks
        | '\u{31F0}'..='\u{31FF}'     // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'     // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'     // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}'     // Hangul syllables
        | '\u{1100}'..='\u{11FF}'     // Hangul jamo
        | '\u{3130}'..='\u{318F}'     // Hangul compatibility jamo
        | '\u{F900}'..='\u{FAFF}'     // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'     // Halfwidth katakana
        | '\u{20000}'..='\u{3134F}'   // CJK extensions B to G
    )
}

/// Byte ranges of Markdown code spans and code blocks, sorted and disjoint.
///
/// Most rule files hold no code at all, and the Markdown parser is the
/// largest code an import expansion runs: it runs only on a text that
/// could hold some (see [`may_hold_code`]).
fn code_ranges(text: &str) -> Vec<Range<usize>> {
    if !may_hold_code(text) {
        return Vec::new();
    }
    parsed_code_ranges(text)
}

/// Whether `text` could hold a code span or a code block. Only a backtick
/// opens a code span, only a run of backticks or tildes a fenced block, and
/// an indented block needs four columns of indentation after its
/// containers' markers (a block quote's `>` and the space after it, a list
/// item's content indent): four spaces in a row, or a tab. A text with none
/// of these has no code; one with any of them is parsed.
fn may_hold_code(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, b'`' | b'~' | b'\t')) || text.contains("    ")
}

/// [`code_ranges`] as the Markdown parser finds them.
fn parsed_code_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Parser::new_ext(text, Options::empty())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Code(_) | Event::Start(Tag::CodeBlock(_)) => Some(range),
            _ => None,
        })
        .collect();
    ranges.sort_by_key(|r| r.start);
    // Merge overlaps so that the scan in `extract` can walk them in one pass.
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        /// Characters `scan_token` has visited on this thread: the work extraction does.
        pub(super) static SCANNED: Cell<usize> = const { Cell::new(0) };
    }

    /// Extracts `text` and returns the import count and the characters scanned.
    fn scanned(text: &str) -> (usize, usize) {
        SCANNED.with(|n| n.set(0));
        let found = extract(text).len();
        (found, SCANNED.with(Cell::get))
    }

    #[test]
    fn turned_down_tokens_are_not_scanned_again_and_again() {
        // Each `@` here may start a token (it follows `(`) and each is turned
        // down (`@#` has an empty path); scanning every one to the end of the
        // run was quadratic: 30,000 `(@#` (90 KB) took 1.35 billion steps.
        for unit in ["(@#", "(@@", "「@#"] {
            let text = unit.repeat(30_000);
            let (found, steps) = scanned(&text);
            assert_eq!(found, 0, "{unit}");
            assert!(
                steps <= text.len(),
                "{unit}: {steps} steps for {} bytes",
                text.len()
            );
        }
        // A real import after a turned-down one is still found.
        assert_eq!(extract("(@#(@NOTE.md")[0].target, "NOTE.md");
        let (found, steps) = scanned(&"(@a ".repeat(30_000));
        assert_eq!(found, 30_000);
        assert!(steps <= 4 * 30_000, "{steps}");
    }

    /// Extracts `text` and compares the targets with `expected`.
    #[track_caller]
    fn check(text: &str, expected: &[&str]) {
        let got: Vec<String> = extract(text).into_iter().map(|i| i.target).collect();
        assert_eq!(got, expected, "extracting from {text:?}");
    }

    #[test]
    fn design_forms_end_at_the_punctuation() {
        check("see @NOTE.md, then go", &["NOTE.md"]);
        check("见 @NOTE.md，然后继续", &["NOTE.md"]);
        check("见 @NOTE.md。然后继续", &["NOTE.md"]);
        check("详见 @NOTE.md，", &["NOTE.md"]);
        check("（已脱离 @NOTE.md）。**后续", &["NOTE.md"]);
        check("见 @NOTE.md、以及别的", &["NOTE.md"]);
        check("见「@NOTE.md」后续", &["NOTE.md"]);
        check("见 @NOTE.md！后续", &["NOTE.md"]);
    }

    #[test]
    fn sentinels_keep_cjk_paths_and_inner_dots() {
        check("见 @文档/说明.md，后续", &["文档/说明.md"]);
        check("见 @a.b.md，后续", &["a.b.md"]);
    }

    #[test]
    fn start_of_an_import() {
        check("@NOTE.md", &["NOTE.md"]);
        check("（@x.md）", &["x.md"]);
        check("(@x.md)", &["x.md"]);
        check("[@x.md]", &["x.md"]);
        check("\"@x.md\"", &["x.md"]);
        check("タスクは@docs/TODO.mdで確認", &["docs/TODO.mdで確認"]);
        check("user@example.com", &[]);
        check("a1@x.md", &[]);
        check("x/@y.md", &[]);
        check("see @ alone", &[]);
        check("@. @# @#frag @@x.md", &[]);
    }

    #[test]
    fn fragments_escapes_and_backslashes() {
        check("@NOTE.md#标题", &["NOTE.md"]);
        check("@my\\ notes.md next", &["my notes.md"]);
        check("@a\\b.md", &["a"]);
        check("@a\\ @b.md", &["a @b.md"]);
    }

    /// Lines made of the pieces Markdown builds blocks and spans from:
    /// container markers, indentation, fences, backticks, imports, words.
    fn markdown_lines() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "> ", ">", "- ", "-", "* ", "1. ", " ", "  ", "    ", "\t", "`", "``", "```", "~",
            "~~~", "@a.md", "a", "<b>", "# ", "\n", "\n\n",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// A text the parser is skipped for holds no code the parser would
        /// find, and every text gets the ranges the parser gives.
        #[test]
        fn a_text_without_code_markers_has_no_code(text in markdown_lines()) {
            let parsed = parsed_code_ranges(&text);
            if !may_hold_code(&text) {
                proptest::prop_assert!(parsed.is_empty(), "{:?}: {:?}", text, parsed);
            }
            proptest::prop_assert_eq!(code_ranges(&text), parsed);
        }
    }

    #[test]
    fn only_code_markers_send_a_text_to_the_parser() {
        for text in [
            "a `b`",
            "~~~\n@a\n~~~",
            "\t@a",
            "> a\n>\n>     @a",
            "-     @a",
        ] {
            assert!(may_hold_code(text), "{text:?}");
            assert!(!parsed_code_ranges(text).is_empty(), "{text:?}");
        }
        for text in ["- @a\n  - @b", "> @a\n>\n>   @b", "   @a", "# @a\n\n1. @b"] {
            assert!(!may_hold_code(text), "{text:?}");
        }
    }

    #[test]
    fn code_is_never_an_import() {
        check("`@NOTE.md` and @a.md", &["a.md"]);
        check("```\n@NOTE.md\n```\n@b.md", &["b.md"]);
        check("para\n\n    @NOTE.md\n", &[]);
        check("~~~md\n见 @NOTE.md，\n~~~", &[]);
        check("@x.md`code`", &["x.md"]);
        // Between two code spans is no code.
        check("`a` @x.md `b`", &["x.md"]);
    }

    #[test]
    fn lines_are_counted_from_one() {
        let lines: Vec<usize> = extract("@a.md\n\n@b.md @c.md\n@d.md")
            .iter()
            .map(|i| i.line)
            .collect();
        assert_eq!(lines, [1, 3, 3, 4]);
    }

    #[test]
    fn trailing_cjk_retry_is_cut_only_after_ascii() {
        let cut = |text: &str| {
            extract(text)
                .first()
                .and_then(Import::without_trailing_cjk)
                .map(|i| (i.target, i.raw))
        };
        assert_eq!(cut("見て@NOTE.md。"), None, "nothing glued, nothing to cut");
        assert_eq!(
            cut("@docs/TODO.mdで確認"),
            Some(("docs/TODO.md".into(), "@docs/TODO.md".into()))
        );
        assert_eq!(
            cut("见 @NOTE.md.后续"),
            Some(("NOTE.md".into(), "@NOTE.md".into()))
        );
        assert_eq!(cut("@docs/说明"), None, "a CJK file name after / is a path");
        assert_eq!(
            cut("@readme中文.md"),
            None,
            "a CJK run with a dot is a path"
        );
        assert_eq!(cut("@NOTE.md后续#x"), None, "fragment present");
    }
}
