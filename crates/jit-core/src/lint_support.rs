//! What a rule-file linter needs from the engine: a rule's text judged exactly as the engine judges it, with the file lines its findings point at.

use crate::rule::frontmatter::{self, Frontmatter};
use crate::rule::source::{RuleSource, ScopeSpec};
use crate::rule::{RuleScope, SkipReason, parse_rule};

/// A rule file's text, judged by the engine's own parser and scope rules.
///
/// ```
/// use jit_core::{ClaudeSource, RuleScopeCheck, check_rule_text};
///
/// let text = "---\ndescription: UI\npaths: [\"src/ui/**\"]\n---\nNo emoji.\n";
/// let check = check_rule_text(text, &ClaudeSource::default());
/// assert_eq!(check.verdict, Ok(RuleScopeCheck::Paths(vec!["src/ui/**".to_owned()])));
/// assert_eq!(check.key_line("paths"), Some(3));
/// assert_eq!(check.body_line, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RuleCheck {
    /// What the engine does with the file: load it with this scope, or skip
    /// it with this reason and detail.
    pub verdict: Result<RuleScopeCheck, (SkipReason, String)>,
    /// The warnings the engine attaches to the loaded rule (a recovered
    /// frontmatter, an empty scope), each saying how to fix it.
    pub warnings: Vec<String>,
    /// The parsed frontmatter, when the frontmatter could be read.
    pub frontmatter: Option<Frontmatter>,
    /// The scope patterns the source read from the frontmatter, even when
    /// they then failed to compile (a brace split across list items).
    pub patterns: Option<Vec<String>>,
    /// The top-level keys of the frontmatter with their file lines, in order.
    pub keys: Vec<(String, usize)>,
    /// The file lines of the frontmatter (opening fence to closing fence).
    pub frontmatter_lines: Option<(usize, usize)>,
    /// The body the engine injects (frontmatter removed, LF line endings).
    pub body: String,
    /// The file line the body starts on.
    pub body_line: usize,
}

/// The scope a loadable rule file has.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleScopeCheck {
    /// Unscoped: it applies to its whole directory.
    Always,
    /// Scoped by these patterns.
    Paths(Vec<String>),
    /// Attached by hand only, for this reason.
    Manual(String),
}

impl RuleCheck {
    /// The file line of the top-level frontmatter key `key`.
    pub fn key_line(&self, key: &str) -> Option<usize> {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map(|&(_, line)| line)
    }

    /// The file line inside the frontmatter that holds `needle` (a pattern),
    /// or the line of `key` when none does.
    pub fn line_of(&self, text: &str, key: &str, needle: &str) -> Option<usize> {
        if let Some((first, last)) = self.frontmatter_lines {
            let found = normalized_lines(text)
                .enumerate()
                .skip(first)
                .take(last.saturating_sub(first))
                .find(|(_, line)| line.contains(needle))
                .map(|(i, _)| i + 1);
            if found.is_some() {
                return found;
            }
        }
        self.key_line(key)
    }
}

/// Judges `text` as the engine judges a rule file of `source`: the same
/// frontmatter parser, the same scope mapping, the same pattern limits and
/// glob compilation.
pub fn check_rule_text(text: &str, source: &dyn RuleSource) -> RuleCheck {
    let verdict = match parse_rule(text, source) {
        Ok(parsed) => Ok((
            match parsed.scope {
                RuleScope::Always => RuleScopeCheck::Always,
                RuleScope::Paths(scope) => RuleScopeCheck::Paths(scope.patterns().to_vec()),
                RuleScope::Manual(why) | RuleScope::Excluded(why) => RuleScopeCheck::Manual(why),
            },
            parsed.warnings,
        )),
        Err(rejection) => Err((rejection.reason, rejection.detail)),
    };
    let keys: Vec<&str> = source.scope_keys().iter().map(String::as_str).collect();
    let (frontmatter, patterns, body) = match frontmatter::parse(text, &keys) {
        Ok(parsed) => {
            let patterns = match source.scope(&parsed.frontmatter) {
                ScopeSpec::Paths(globs) => Some(globs),
                _ => None,
            };
            (Some(parsed.frontmatter), patterns, parsed.body)
        }
        Err(_) => (None, None, String::new()),
    };
    let (keys, frontmatter_lines) = scan_keys(text);
    let total = normalized_lines(text).count();
    let body_lines = if body.is_empty() {
        0
    } else {
        body.split_inclusive('\n').count()
    };
    let body_line = if frontmatter_lines.is_some() {
        total.saturating_sub(body_lines) + 1
    } else {
        1
    };
    let (verdict, warnings) = match verdict {
        Ok((scope, warnings)) => (Ok(scope), warnings),
        Err(err) => (Err(err), Vec::new()),
    };
    RuleCheck {
        verdict,
        warnings,
        frontmatter,
        patterns,
        keys,
        frontmatter_lines,
        body,
        body_line,
    }
}

/// `U+200B ZERO WIDTH SPACE` when `c` is a character a reader does not see
/// (the set that refuses a fence: format characters, default-ignorable
/// code points, control characters, whitespace other than the ASCII space
/// and tab, the blank Braille cell); `None` for every other character.
///
/// ```
/// assert_eq!(
///     jit_core::invisible_character('\u{200b}').as_deref(),
///     Some("U+200B ZERO WIDTH SPACE")
/// );
/// assert_eq!(jit_core::invisible_character('a'), None);
/// ```
pub fn invisible_character(c: char) -> Option<String> {
    frontmatter::invisible::is_hidden(c).then(|| frontmatter::invisible::name(c))
}

/// The file lines of a frontmatter's opening and closing fences.
type Fences = (usize, usize);

/// The lines of `text` as the parser sees them: BOM dropped, CRLF and bare
/// CR read as line breaks.
fn normalized_lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        if current.is_empty() {
            rest = None;
            return None;
        }
        match current.find(['\n', '\r']) {
            Some(i) => {
                let skip = if current[i..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&current[i + skip..]);
                Some(&current[..i])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// The top-level keys of the frontmatter with their lines, and the lines of
/// its fences, found without YAML: a line that starts with neither a space,
/// a tab, `-` nor `#` and holds a `:` names a key.
fn scan_keys(text: &str) -> (Vec<(String, usize)>, Option<Fences>) {
    let mut lines = normalized_lines(text).enumerate();
    let opening = lines.by_ref().find(|(_, line)| !line.trim().is_empty());
    let Some((open, line)) = opening else {
        return (Vec::new(), None);
    };
    if line.trim_end_matches([' ', '\t']) != "---" {
        return (Vec::new(), None);
    }
    let mut keys = Vec::new();
    for (i, line) in lines {
        let end = line.trim_end_matches([' ', '\t']);
        if end == "---" || end == "..." {
            return (keys, Some((open + 1, i + 1)));
        }
        if line.starts_with([' ', '\t', '-', '#']) {
            continue;
        }
        if let Some((key, _)) = line.split_once(':') {
            let key = key.trim();
            let key = key
                .strip_prefix(['"', '\''])
                .and_then(|k| k.strip_suffix(['"', '\'']))
                .unwrap_or(key);
            if !key.is_empty() {
                keys.push((key.to_owned(), i + 1));
            }
        }
    }
    (keys, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::source::ClaudeSource;

    #[test]
    fn lines_are_file_lines_with_crlf_and_blank_lines_before_the_fence() {
        let text = "\r\n---\r\npaths: **/*.cs\r\nglobs: x\r\n---\r\nbody\r\n";
        let check = check_rule_text(text, &ClaudeSource::default());
        assert_eq!(check.frontmatter_lines, Some((2, 5)));
        assert_eq!(check.key_line("paths"), Some(3));
        assert_eq!(check.key_line("globs"), Some(4));
        assert_eq!(check.body_line, 6);
        assert_eq!(check.line_of(text, "paths", "**/*.cs"), Some(3));
        // The blank lines, and each scope key read literally (`globs:` is
        // a Claude rule's fallback scope key).
        assert_eq!(check.warnings.len(), 3, "{:?}", check.warnings);
    }

    #[test]
    fn a_split_brace_keeps_its_patterns_and_is_invalid() {
        let text = "---\npaths: [\"src/**/*.{js\", \"ts\", \"vue}\"]\n---\nx\n";
        let check = check_rule_text(text, &ClaudeSource::default());
        // The source refuses the split pattern itself and says what happened.
        match &check.verdict {
            Err((SkipReason::InvalidFrontmatter, detail)) => {
                assert!(detail.contains("split across 3 list items"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_file_without_frontmatter_starts_its_body_on_line_one() {
        let check = check_rule_text("# Title\n---\nx\n", &ClaudeSource::default());
        assert_eq!(check.verdict, Ok(RuleScopeCheck::Always));
        assert_eq!(check.body_line, 1);
        assert!(check.keys.is_empty());
    }
}
