//! Brace expansion of plain lists (`src/{a,b}`, `f{,.bak}`, `{a,{b,c}}/x`), bounded by [`MAX_BRACE_WORDS`].

/// The most words one brace expansion may produce. `{a,b}` repeated 30 times
/// makes 2^30 words from 150 bytes, so the count is computed before any word
/// is built, and a word that would expand to more is skipped as
/// [`SkipReason::TooManyExpansions`](crate::SkipReason::TooManyExpansions).
/// Real commands expand to a handful of words (`mkdir -p src/{a,b,c}`); the
/// largest list in a corpus of agent commands has a few dozen items.
pub const MAX_BRACE_WORDS: usize = 1024;

/// How a brace expansion came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expansion {
    /// The words, in the order bash produces them.
    Words(Vec<String>),
    /// The word would expand to more than [`MAX_BRACE_WORDS`] words.
    TooMany,
    /// The braces are not all plain lists (a sequence `{1..3}`, an unmatched
    /// or comma-less brace, a quote, escape or expansion in the word): the
    /// word stays skipped as a brace expansion.
    Unsupported,
}

/// Expands `raw`, a word as written, when every brace in it opens a plain
/// list: each `{` has its matching `}` with a comma between them at its own
/// level, there is no `..` sequence, and no quote, escape or expansion
/// anywhere in the word, so that every brace and comma is active.
///
/// The cost is linear in the word for the count, and bounded by
/// [`MAX_BRACE_WORDS`] times the word's length for the words; nothing
/// recurses, whatever the nesting.
pub(crate) fn expand(raw: &str) -> Expansion {
    if raw.contains(['\\', '\'', '"', '$', '`']) || raw.contains("..") {
        return Expansion::Unsupported;
    }
    match count(raw) {
        None => Expansion::Unsupported,
        Some(n) if n > MAX_BRACE_WORDS => Expansion::TooMany,
        Some(_) => Expansion::Words(words(raw)),
    }
}

/// The number of words `raw` expands to (saturating past the limit), or
/// `None` when some brace is not a plain list.
fn count(raw: &str) -> Option<usize> {
    /// One open brace level: the words of its finished alternatives, the
    /// words of the alternative being read, whether a comma was seen.
    struct Level {
        done: usize,
        current: usize,
        comma: bool,
    }
    let cap = MAX_BRACE_WORDS + 1;
    let mut stack = vec![Level {
        done: 0,
        current: 1,
        comma: false,
    }];
    for b in raw.bytes() {
        match b {
            b'{' => stack.push(Level {
                done: 0,
                current: 1,
                comma: false,
            }),
            b',' if stack.len() > 1 => {
                let level = stack.last_mut()?;
                level.done = level.done.saturating_add(level.current).min(cap);
                level.current = 1;
                level.comma = true;
            }
            b'}' => {
                if stack.len() < 2 {
                    return None;
                }
                let level = stack.pop()?;
                if !level.comma {
                    return None;
                }
                let alternatives = level.done.saturating_add(level.current).min(cap);
                let outer = stack.last_mut()?;
                outer.current = outer.current.saturating_mul(alternatives).min(cap);
            }
            _ => {}
        }
    }
    match stack.as_slice() {
        [top] => Some(top.current),
        _ => None,
    }
}

/// The words of `raw`, already checked by [`count`]: depth first, each word
/// has its first brace list replaced by each alternative in turn, so the
/// order is bash's and finished words come out as soon as they are complete.
fn words(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![raw.to_owned()];
    while let Some(word) = stack.pop() {
        let Some((open, close)) = first_list(&word) else {
            out.push(word);
            continue;
        };
        let prefix = word.get(..open).unwrap_or("");
        let inside = word.get(open + 1..close).unwrap_or("");
        let suffix = word.get(close + 1..).unwrap_or("");
        let alternatives = split_top_level(inside);
        for alternative in alternatives.iter().rev() {
            stack.push(format!("{prefix}{alternative}{suffix}"));
        }
    }
    out
}

/// The byte positions of the first `{` and its matching `}`.
fn first_list(word: &str) -> Option<(usize, usize)> {
    let open = word.find('{')?;
    let mut depth = 0usize;
    for (i, b) in word.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((open, i));
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits the inside of a brace list at its own commas, not at those of
/// nested lists.
fn split_top_level(inside: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, b) in inside.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                parts.push(inside.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inside.get(start..).unwrap_or(""));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(raw: &str, expected: &[&str]) {
        assert_eq!(
            expand(raw),
            Expansion::Words(expected.iter().map(|s| s.to_string()).collect()),
            "{raw}"
        );
    }

    #[test]
    fn plain_lists_expand_in_bash_order() {
        check("src/{a,b}", &["src/a", "src/b"]);
        check("f{,.bak}", &["f", "f.bak"]);
        check("{a,b}{c,d}", &["ac", "ad", "bc", "bd"]);
        check("src/{a,{b,c}}/x", &["src/a/x", "src/b/x", "src/c/x"]);
        check("{a,b}/{c,d}/e", &["a/c/e", "a/d/e", "b/c/e", "b/d/e"]);
    }

    #[test]
    fn anything_but_plain_lists_is_left_alone() {
        for raw in [
            "f{1..3}",
            "src/{a}.ts",
            "{a,b",
            "a,b}",
            "{a,b}{c}",
            "\"{a,b}\"",
            "{$x,b}",
            "{a,b}}",
        ] {
            assert_eq!(expand(raw), Expansion::Unsupported, "{raw}");
        }
    }

    #[test]
    fn an_expansion_past_the_limit_is_refused_before_any_word_is_built() {
        // 2^30 words from 150 bytes.
        assert_eq!(expand(&"{a,b}".repeat(30)), Expansion::TooMany);
        // 18,000 items in one list.
        let list = format!("{{{}}}", vec!["x"; 18_000].join(","));
        assert_eq!(expand(&list), Expansion::TooMany);
        // Exactly at the limit is fine: 2^10 words.
        match expand(&"{a,b}".repeat(10)) {
            Expansion::Words(words) => assert_eq!(words.len(), MAX_BRACE_WORDS),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deep_nesting_is_counted_without_recursion() {
        let deep = format!("{}x{}", "{a,".repeat(5_000), "}".repeat(5_000));
        assert_eq!(expand(&deep), Expansion::TooMany);
        let nested = format!("{}x{}", "{a,".repeat(500), "}".repeat(500));
        match expand(&nested) {
            Expansion::Words(words) => assert_eq!(words.len(), 501),
            other => panic!("{other:?}"),
        }
    }
}
