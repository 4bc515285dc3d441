//! Static prefix of a glob pattern: the leading whole path segments that contain no glob syntax.

use std::iter::Peekable;
use std::str::Chars;

use camino::Utf8PathBuf;

/// The directory a glob pattern is certain to stay inside: its leading whole
/// path segments that hold no glob syntax, unescaped and lexically
/// normalised. `None` when there is no such segment (`**/*.ts`).
///
/// Only whole segments count: `src/ui*/x` gives `src`, never `src/ui`. A
/// pattern with no glob syntax at all is its own prefix. Escaped
/// metacharacters (`\*`) are literal and stay in the prefix, unescaped; a
/// class with a single member (`[[]`, `[*]`, `[]]`) is that literal
/// character. Every other `*`, `?`, `[...]` class (including `[!...]`),
/// `{a,b}` brace set, stray `}`, and extglob opener (`@(`, `!(`, `+(`) ends
/// the prefix before the segment that holds it. Malformed syntax (an unclosed
/// class, a dangling `\`) ends it too: a shorter prefix only means fewer
/// directories are searched for rules, while a longer wrong one would bring in
/// rules that do not apply.
///
/// ```
/// use jit_tools::static_prefix;
/// assert_eq!(static_prefix("src/ui/**/*.tsx"), Some("src/ui".into()));
/// assert_eq!(static_prefix("./src/api/*.ts"), Some("src/api".into()));
/// assert_eq!(static_prefix("src/{ui,api}/*.ts"), Some("src".into()));
/// assert_eq!(static_prefix(r"app/\[id\]/*.tsx"), Some("app/[id]".into()));
/// assert_eq!(static_prefix("**/*.ts"), None);
/// ```
pub fn static_prefix(pattern: &str) -> Option<Utf8PathBuf> {
    let mut segments: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = pattern.chars().peekable();
    let literal_to_the_end = loop {
        let Some(c) = chars.next() else { break true };
        match c {
            '/' => push_segment(&mut segments, std::mem::take(&mut current)),
            '*' | '?' | '{' | '}' => break false,
            '@' | '!' | '+' if chars.peek() == Some(&'(') => break false,
            // An escaped `/` would be a separator that globset matches
            // literally; too odd to interpret, so it ends the prefix.
            '\\' => match chars.next() {
                None | Some('/') => break false,
                Some(escaped) => current.push(escaped),
            },
            '[' => match single_member_class(&mut chars) {
                Some(member) => current.push(member),
                None => break false,
            },
            c => current.push(c),
        }
    };
    if literal_to_the_end {
        push_segment(&mut segments, current);
    }
    let absolute = pattern.starts_with('/');
    if segments.is_empty() && !absolute {
        return None;
    }
    let joined = segments.join("/");
    Some(Utf8PathBuf::from(if absolute {
        format!("/{joined}")
    } else {
        joined
    }))
}

/// Keeps a finished segment unless it is empty (`//`) or `.`.
fn push_segment(segments: &mut Vec<String>, segment: String) {
    if !segment.is_empty() && segment != "." {
        segments.push(segment);
    }
}

/// After a `[`: the class's only member if it has exactly one plain
/// character (`[]]` is the class holding `]`), consuming the class. Anything
/// else (negated `[!...]`/`[^...]`, several members, ranges, POSIX classes,
/// an unclosed class, a `/` or `\` member whose meaning differs between glob
/// dialects) is `None` and consumes nothing.
fn single_member_class(chars: &mut Peekable<Chars<'_>>) -> Option<char> {
    let mut ahead = chars.clone();
    let member = ahead.next()?;
    if matches!(member, '!' | '^' | '/' | '\\') {
        return None;
    }
    if ahead.next()? != ']' {
        return None;
    }
    *chars = ahead;
    Some(member)
}
