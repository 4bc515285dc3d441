//! YAML frontmatter of rule files: fence splitting, tolerant parsing, and literal recovery of scope keys.
//!
//! Real rule files are messy. Fences may carry a BOM, CRLF line endings or
//! trailing spaces, and the most common scope values (`paths: **/*.cs`,
//! `globs: {src,lib}/**`) are not valid YAML at all. This module reads all of
//! them, and whatever it has to guess is said in a warning; a scope that cannot
//! be read at all makes the whole frontmatter invalid, never absent.

use serde_json::{Map, Value};

/// The parsed head of a rule file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Keys parsed as YAML. Empty when the file has no frontmatter.
    values: Map<String, Value>,
    /// Scope keys whose YAML was rejected and whose line was read literally.
    recovered: Vec<(String, Vec<String>)>,
    /// Whether the file had a frontmatter block at all.
    present: bool,
}

/// What a scope key (`paths:`, `globs:`, `applyTo:`) holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patterns {
    /// The key is not there.
    Absent,
    /// The key is there with no pattern (`paths:` or `paths: []`).
    Empty,
    /// One or more patterns, in the order written, `./` dropped.
    Some(Vec<String>),
    /// The key holds something that is not a pattern list (a mapping, say).
    Invalid(String),
}

/// A rule file split into its frontmatter and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The frontmatter (empty when there is none).
    pub frontmatter: Frontmatter,
    /// The body, LF line endings, BOM removed.
    pub body: String,
    /// Things a user should fix, each saying how.
    pub warnings: Vec<String>,
}

/// The frontmatter could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// The parser's message, with line and column.
    pub message: String,
}

impl Frontmatter {
    /// Whether the file had a frontmatter block.
    pub fn is_present(&self) -> bool {
        self.present
    }

    /// The raw YAML value of `key`, if it parsed.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }

    /// A boolean flag such as Cursor's `alwaysApply`, which is often written
    /// as the string `"true"`.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.values.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" => Some(true),
                "false" | "no" | "off" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// The patterns of a scope key, whatever shape they were written in: a
    /// YAML list (every item counts), a single string, or a comma-separated
    /// string (commas inside `{...}` or `[...]` do not split).
    pub fn patterns(&self, key: &str) -> Patterns {
        if let Some((_, items)) = self.recovered.iter().find(|(k, _)| k == key) {
            return finish(items.clone());
        }
        match self.values.get(key) {
            None => Patterns::Absent,
            Some(Value::Null) => Patterns::Empty,
            Some(Value::String(s)) => finish(split_patterns(s)),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Value::String(s) => out.extend(split_patterns(s)),
                        Value::Number(n) => out.push(n.to_string()),
                        Value::Bool(b) => out.push(b.to_string()),
                        Value::Null => {}
                        other => {
                            return Patterns::Invalid(format!(
                                "`{key}` has an item that is not a pattern: {other}"
                            ));
                        }
                    }
                }
                finish(out)
            }
            Some(Value::Number(n)) => finish(vec![n.to_string()]),
            Some(other) => Patterns::Invalid(format!(
                "`{key}` must be a pattern or a list of patterns, found {other}"
            )),
        }
    }
}

/// Drops `./`, blanks and duplicates; an empty result is [`Patterns::Empty`].
fn finish(items: Vec<String>) -> Patterns {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let mut p = item.trim();
        while let Some(rest) = p.strip_prefix("./") {
            p = rest;
        }
        if !p.is_empty() && !out.iter().any(|o| o == p) {
            out.push(p.to_owned());
        }
    }
    if out.is_empty() {
        Patterns::Empty
    } else {
        Patterns::Some(out)
    }
}

/// Splits `a, {b,c}/**, d` on the commas that are outside brace and bracket sets.
pub(crate) fn split_patterns(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth_brace = 0usize;
    let mut depth_bracket = 0usize;
    let mut current = String::new();
    let mut escaped = false;
    for ch in s.chars() {
        if escaped {
            current.push(ch);
            escaped = false;
            continue;
        }
        match ch {
            '\\' => {
                escaped = true;
                current.push(ch);
            }
            '{' => {
                depth_brace += 1;
                current.push(ch);
            }
            '}' => {
                depth_brace = depth_brace.saturating_sub(1);
                current.push(ch);
            }
            '[' => {
                depth_bracket += 1;
                current.push(ch);
            }
            ']' => {
                depth_bracket = depth_bracket.saturating_sub(1);
                current.push(ch);
            }
            ',' if depth_brace == 0 && depth_bracket == 0 => {
                out.push(std::mem::take(&mut current).trim().to_owned());
            }
            _ => current.push(ch),
        }
    }
    out.push(current.trim().to_owned());
    out.retain(|p| !p.is_empty());
    out
}

/// Whether `line` is a `---` fence (trailing spaces and tabs allowed).
fn is_fence(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

/// Splits and parses a rule file's text. `scope_keys` are the keys whose lines
/// are read literally when strict YAML rejects them.
pub fn parse(text: &str, scope_keys: &[&str]) -> Result<Parsed, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized;
    let text = if text.contains('\r') {
        normalized = text.replace("\r\n", "\n");
        normalized.as_str()
    } else {
        text
    };
    let mut warnings = Vec::new();

    let Some((yaml, body)) = split_fences(text) else {
        let first = text.lines().next().unwrap_or_default();
        if is_fence(first) {
            warnings.push(
                "frontmatter opened with `---` on line 1 but never closed: the whole file is read \
                 as body and no scope applies; add a closing `---` line"
                    .to_owned(),
            );
        }
        return Ok(Parsed {
            frontmatter: Frontmatter::default(),
            body: text.to_owned(),
            warnings,
        });
    };

    let frontmatter = parse_yaml(yaml, scope_keys, &mut warnings)?;
    Ok(Parsed {
        frontmatter,
        body: body.to_owned(),
        warnings,
    })
}

/// Returns (yaml, body) when `text` opens with a fence that is closed later.
fn split_fences(text: &str) -> Option<(&str, &str)> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if !is_fence(first.trim_end_matches('\n')) {
        return None;
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_fence(line.trim_end_matches('\n')) {
            let yaml = &text[yaml_start..offset];
            let body = &text[offset + line.len()..];
            return Some((yaml, body));
        }
        offset += line.len();
    }
    None
}

fn parse_yaml(
    yaml: &str,
    scope_keys: &[&str],
    warnings: &mut Vec<String>,
) -> Result<Frontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Frontmatter {
            present: true,
            ..Frontmatter::default()
        });
    }
    // The leading newline stands for the opening fence, so the parser's line
    // numbers are the file's.
    match parse_map(&format!("\n{yaml}")) {
        Ok(values) => {
            // `paths: {src,lib}/**` is valid YAML, but a mapping, not the
            // brace pattern its author meant: read such keys literally.
            let misread: Vec<&str> = scope_keys
                .iter()
                .copied()
                .filter(|key| values.get(*key).is_some_and(holds_mapping))
                .collect();
            if misread.is_empty() {
                return Ok(Frontmatter {
                    values,
                    recovered: Vec::new(),
                    present: true,
                });
            }
            let why = "it reads as a YAML mapping, not a pattern";
            recover(yaml, &misread, Some(values), why, warnings).map_err(|err| FrontmatterError {
                message: if err.message.is_empty() {
                    format!(
                        "`{}`: {why}; write it as a quoted list: `{}: [\"src/**\"]`",
                        misread.join("`, `"),
                        misread.first().copied().unwrap_or("paths")
                    )
                } else {
                    err.message
                },
            })
        }
        Err(strict_error) => {
            let why = format!("it is not valid YAML: {strict_error}");
            recover(yaml, scope_keys, None, &why, warnings).map_err(|err| FrontmatterError {
                message: if err.message.is_empty() {
                    strict_error
                } else {
                    err.message
                },
            })
        }
    }
}

fn holds_mapping(value: &Value) -> bool {
    match value {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(|item| matches!(item, Value::Object(_))),
        _ => false,
    }
}

/// Strict YAML: the frontmatter must be a mapping.
fn parse_map(yaml: &str) -> Result<Map<String, Value>, String> {
    match serde_saphyr::from_str::<Value>(yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(format!(
            "frontmatter must be a mapping of keys to values, found {other}"
        )),
        Err(err) => Err(first_line(&err.to_string())),
    }
}

/// The parser's message without its source snippet: one line, with the
/// position (`line 2 column 8: alias references unknown anchor`).
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    line.strip_prefix("error: ").unwrap_or(line).to_owned()
}

/// Reads the lines of `keys` literally: the value on the key's line, then
/// the indented lines under it (`- item` or a bare pattern). `base` holds the
/// other keys when strict YAML parsed; otherwise what remains is parsed
/// again so other keys still count.
///
/// A key whose lines yield no pattern is an error (never an empty, that is
/// unscoped, rule). An error with an empty message means no scope key was
/// found at all; the caller reports the parser's message then.
fn recover(
    yaml: &str,
    keys: &[&str],
    base: Option<Map<String, Value>>,
    why: &str,
    warnings: &mut Vec<String>,
) -> Result<Frontmatter, FrontmatterError> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut recovered: Vec<(String, Vec<String>)> = Vec::new();
    let mut consumed = vec![false; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some((key, value)) = key_line(line, keys) else {
            i += 1;
            continue;
        };
        consumed[i] = true;
        let mut items = Vec::new();
        let mut nested_mapping = false;
        let value = strip_comment(value.trim());
        if !value.is_empty() {
            let inner = value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .unwrap_or(value);
            items.extend(split_patterns(inner).iter().map(|p| unquote(p).to_owned()));
        }
        // Indented lines under the key: block-list items or continued patterns.
        let mut j = i + 1;
        while j < lines.len() {
            let next = lines[j];
            let trimmed = next.trim();
            if trimmed.is_empty() {
                consumed[j] = true;
            } else if next.starts_with([' ', '\t']) || trimmed.starts_with('-') {
                consumed[j] = true;
                let item = trimmed.strip_prefix('-').map(str::trim).unwrap_or(trimmed);
                let item = strip_comment(item);
                if item.ends_with(':') || item.contains(": ") {
                    nested_mapping = true;
                } else {
                    items.extend(split_patterns(item).iter().map(|p| unquote(p).to_owned()));
                }
            } else {
                break;
            }
            j += 1;
        }
        i = j;
        let written = line.trim();
        if nested_mapping || items.is_empty() {
            return Err(FrontmatterError {
                message: format!(
                    "`{written}`: {why}, and no pattern could be read from its lines; \
                     write it as a quoted list: `{key}: [\"src/**\"]`"
                ),
            });
        }
        let quoted: Vec<String> = items.iter().map(|p| format!("\"{p}\"")).collect();
        warnings.push(format!(
            "`{written}`: {why}; it was read literally as {items:?}. \
             Quote the patterns so every tool reads them the same: `{key}: [{}]`",
            quoted.join(", ")
        ));
        recovered.push((key.to_owned(), items));
    }

    if recovered.is_empty() {
        return Err(FrontmatterError {
            message: String::new(),
        });
    }

    let values = match base {
        Some(mut values) => {
            for (key, _) in &recovered {
                values.remove(key);
            }
            values
        }
        None => {
            let rest: String = lines
                .iter()
                .zip(&consumed)
                .filter(|(_, c)| !**c)
                .map(|(l, _)| format!("{l}\n"))
                .collect();
            if rest.trim().is_empty() {
                Map::new()
            } else {
                match parse_map(&rest) {
                    Ok(values) => values,
                    Err(err) => {
                        warnings.push(format!(
                            "the other frontmatter keys are not valid YAML either and were ignored: {err}"
                        ));
                        Map::new()
                    }
                }
            }
        }
    };
    Ok(Frontmatter {
        values,
        recovered,
        present: true,
    })
}

/// `paths: value` at the start of a line, for one of the scope keys.
fn key_line<'a>(line: &'a str, scope_keys: &[&str]) -> Option<(&'a str, &'a str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim_end();
    if key.starts_with([' ', '\t']) {
        return None;
    }
    let bare = unquote(key);
    scope_keys.contains(&bare).then_some((bare, value))
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Drops a trailing ` # comment` (YAML comments need a space before `#`).
fn strip_comment(s: &str) -> &str {
    match s.find(" #") {
        Some(i) => s[..i].trim_end(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: Patterns, warnings: usize) {
        let parsed = parse(text, &["paths", "globs"]).unwrap();
        assert_eq!(parsed.frontmatter.patterns("paths"), expected, "{text:?}");
        assert_eq!(parsed.warnings.len(), warnings, "{:?}", parsed.warnings);
    }

    fn some(items: &[&str]) -> Patterns {
        Patterns::Some(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn shapes() {
        check(
            "---\npaths: [\"a/**\", \"b/**\"]\n---\nx",
            some(&["a/**", "b/**"]),
            0,
        );
        check(
            "---\npaths:\n  - a/**\n  - 'b/**'\n---\n",
            some(&["a/**", "b/**"]),
            0,
        );
        check("---\npaths: src/**\n---\n", some(&["src/**"]), 0);
        check(
            "---\npaths: \"src/**/*.{ts,tsx}, lib/** \"\n---\n",
            some(&["src/**/*.{ts,tsx}", "lib/**"]),
            0,
        );
        check("---\npaths: ./src/**\n---\n", some(&["src/**"]), 0);
        check("---\npaths: []\n---\n", Patterns::Empty, 0);
        check("---\npaths:\n---\n", Patterns::Empty, 0);
        check("no frontmatter", Patterns::Absent, 0);
        check("---\ndescription: x\n---\n", Patterns::Absent, 0);
    }

    #[test]
    fn messy_fences() {
        let clean = "---\npaths: [\"src/**\"]\n---\nbody\n";
        for text in [
            "\u{feff}---\npaths: [\"src/**\"]\n---\nbody\n",
            "---\r\npaths: [\"src/**\"]\r\n---\r\nbody\r\n",
            "---  \npaths: [\"src/**\"]\n--- \t\nbody\n",
        ] {
            let parsed = parse(text, &["paths"]).unwrap();
            let expected = parse(clean, &["paths"]).unwrap();
            assert_eq!(parsed, expected, "{text:?}");
        }
        let eof = parse("---\npaths: src/**\n---", &["paths"]).unwrap();
        assert_eq!(eof.frontmatter.patterns("paths"), some(&["src/**"]));
        assert_eq!(eof.body, "");
    }

    #[test]
    fn unclosed_fence_is_body_with_warning() {
        let parsed = parse("---\npaths: src/**\nbody\n", &["paths"]).unwrap();
        assert!(!parsed.frontmatter.is_present());
        assert_eq!(parsed.body, "---\npaths: src/**\nbody\n");
        assert_eq!(parsed.warnings.len(), 1);
    }

    #[test]
    fn recovers_values_strict_yaml_rejects() {
        check("---\npaths: **/*.cs\n---\n", some(&["**/*.cs"]), 1);
        check(
            "---\npaths: {src,lib}/**/*.ts, tests/**\n---\n",
            some(&["{src,lib}/**/*.ts", "tests/**"]),
            1,
        );
        check(
            "---\npaths:\n  - **/*.cs\n  - \"src/**\"\n---\n",
            some(&["**/*.cs", "src/**"]),
            1,
        );
        let parsed = parse("---\nglobs: *.ts\nalwaysApply: \"true\"\n---\n", &["globs"]).unwrap();
        assert_eq!(parsed.frontmatter.patterns("globs"), some(&["*.ts"]));
        assert_eq!(parsed.frontmatter.flag("alwaysApply"), Some(true));
        assert!(
            parsed.warnings[0].contains("globs: [\"*.ts\"]"),
            "{:?}",
            parsed.warnings
        );
    }

    #[test]
    fn unrecoverable_yaml_is_an_error_with_position() {
        let err = parse("---\ndescription: [unclosed\n---\n", &["paths"]).unwrap_err();
        assert!(err.message.contains("line"), "{}", err.message);
    }

    #[test]
    fn mapping_value_is_invalid_not_unscoped() {
        let err = parse("---\npaths:\n  a: b\n---\n", &["paths"]).unwrap_err();
        assert!(err.message.contains("mapping"), "{}", err.message);
    }

    #[test]
    fn a_brace_pattern_yaml_reads_as_a_mapping_is_recovered() {
        check("---\npaths: {src,lib}\n---\n", some(&["{src,lib}"]), 1);
        check(
            "---\npaths: {src,lib}/**/*.ts\n---\n",
            some(&["{src,lib}/**/*.ts"]),
            1,
        );
    }

    #[test]
    fn indented_lines_under_a_scope_key_are_patterns() {
        check("---\npaths:\n  **/*.cs\n---\n", some(&["**/*.cs"]), 1);
        check(
            "---\npaths: **/*.cs\n  **/*.vb\n---\n",
            some(&["**/*.cs", "**/*.vb"]),
            1,
        );
    }

    #[test]
    fn a_scope_that_cannot_be_read_is_an_error_never_empty() {
        let err = parse("---\ndescription: *x\npaths:\n  src: 1\n---\n", &["paths"]).unwrap_err();
        assert!(err.message.contains("paths"), "{}", err.message);
    }

    #[test]
    fn parser_positions_are_file_lines() {
        let err = parse("---\ndescription: [unclosed\n---\n", &["paths"]).unwrap_err();
        assert!(err.message.contains("line 2"), "{}", err.message);
    }
}
