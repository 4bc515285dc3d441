//! YAML frontmatter of rule files: fence splitting, tolerant parsing, and literal recovery of scope keys.
//!
//! Real rule files are messy. Fences may carry a BOM, CRLF line endings or
//! trailing spaces, and the most common scope values (`paths: **/*.cs`,
//! `globs: {src,lib}/**`) are not valid YAML at all. This module reads all of
//! them, and whatever it has to guess is said in a warning; a scope that cannot
//! be read at all makes the whole frontmatter invalid, never absent.
//!
//! # A scoped rule never silently becomes unscoped
//!
//! A file whose first non-blank line starts with `---` (after any spaces,
//! tabs or [hidden characters](invisible), and with hidden characters among
//! the dashes set aside) opens a frontmatter. For a convention with scope keys (`paths:`,
//! `globs:`, `applyTo:`) such a file is read with its frontmatter, or refused
//! with a reason; it is never read as an unscoped body, because the
//! frontmatter it fails to open may hold a scope. Each damaged shape was
//! decided on its own:
//!
//! | The file | Outcome |
//! |---|---|
//! | a BOM before `---` | read, no warning: an encoding mark that editors add and nobody sees |
//! | CRLF line endings, or CRLF mixed with LF | read, no warning: ordinary Windows line endings |
//! | bare CR line endings (`\r` alone) | read as line breaks, with a warning: other tools see one long line and no frontmatter |
//! | blank lines before the opening `---` | read, with a warning: other tools look for a frontmatter on line 1 only |
//! | spaces or tabs before the opening `---` | `invalid_frontmatter`: an indented `---` is not a fence, and whether the lines under it are YAML or markdown cannot be known |
//! | more after the dashes (`--- yaml`, `---yaml`, `----`) | `invalid_frontmatter`: not a fence, yet too close to one to be read as body |
//! | closed with `...` (YAML's end-of-document marker) instead of `---` | read, with a warning to write `---` |
//! | never closed | `invalid_frontmatter`: where the frontmatter ends cannot be known |
//! | a hidden character before, among or after the dashes of the opening `---`, after a BOM or not: a format character (`Cf`, the whole category: U+200B ZERO WIDTH SPACE, U+200E LEFT-TO-RIGHT MARK, U+2060 WORD JOINER, U+00AD SOFT HYPHEN, a second U+FEFF, …), a default-ignorable one (U+3164 HANGUL FILLER, a variation selector, …), a control character, a space other than ASCII's (U+00A0 NO-BREAK SPACE, form feed), U+2800 BRAILLE PATTERN BLANK | `invalid_frontmatter`, the line and the code point named (`U+200B ZERO WIDTH SPACE`): the author sees a fence that no other tool sees, and they load the rule everywhere. The set and the reason for each part are in the `invisible` module |
//! | a line above the opening `---` that looks blank but holds a hidden character other than whitespace | `invalid_frontmatter`, the line and the code point named: it is no blank line to other tools, so for them the file opens with text |
//! | a hidden character in the closing `---` (or `...`) | `invalid_frontmatter`, the line and the code point named: without it, the frontmatter would run on to some later `---` |
//! | a scope key with a hidden character (`U+200B` then `paths:`) | `invalid_frontmatter`, the line and the code point named: it is another key, and the rule would load everywhere |
//! | the frontmatter is over [`MAX_FRONTMATTER_BYTES`], or its YAML over [`MAX_YAML_NODES`], [`MAX_YAML_ALIASES`] or [`MAX_YAML_DEPTH`] | `yaml_too_complex`, refused before (or while) the YAML is parsed, so the cost stays bounded |
//!
//! A file whose first non-blank line does not start with `---` has no
//! frontmatter: a later `---` is a markdown rule line. A convention without
//! scope keys (`AGENTS.md`, `GEMINI.md`) has no scope to lose, so for it a
//! damaged opening is read as body, with a warning.

use std::borrow::Cow;

use serde_json::{Map, Value};
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::granit_parser::ErrorKind as ScanErrorKind;
use serde_saphyr::{
    Error as YamlError, ExternalMessageSource, MessageFormatter, UserMessageFormatter,
};

use crate::rule::SkipReason;

pub(crate) mod invisible;
mod plain;

/// The largest frontmatter read, in bytes between the fences. A real
/// frontmatter holds a few lines; a larger one is refused as
/// `yaml_too_complex` before its YAML is parsed.
pub const MAX_FRONTMATTER_BYTES: usize = 65_536;

/// The most YAML values (scalars, lists, mappings) a frontmatter may hold,
/// counting the copies its aliases expand to; past it the rule is refused as
/// `yaml_too_complex`. An alias bomb ("billion laughs") stops here after a
/// bounded amount of work.
pub const MAX_YAML_NODES: usize = 10_000;

/// The most YAML aliases (`*name`) and anchors (`&name`) a frontmatter may
/// use; past it the rule is refused as `yaml_too_complex`.
pub const MAX_YAML_ALIASES: usize = 64;

/// The deepest nesting of YAML lists and mappings in a frontmatter; past it
/// the rule is refused as `yaml_too_complex`.
pub const MAX_YAML_DEPTH: usize = 16;

/// The parsed head of a rule file.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
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
pub(crate) struct Parsed {
    /// The frontmatter (empty when there is none).
    pub frontmatter: Frontmatter,
    /// The body, LF line endings, BOM removed.
    pub body: String,
    /// Things a user should fix, each saying how.
    pub warnings: Vec<String>,
}

/// The frontmatter could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontmatterError {
    /// `invalid_frontmatter`, or `yaml_too_complex` when a limit was hit.
    pub reason: SkipReason,
    /// What is wrong and where (the line), for a person.
    pub message: String,
}

impl FrontmatterError {
    fn invalid(message: impl Into<String>) -> Self {
        FrontmatterError {
            reason: SkipReason::InvalidFrontmatter,
            message: message.into(),
        }
    }

    fn too_complex(message: impl Into<String>) -> Self {
        FrontmatterError {
            reason: SkipReason::YamlTooComplex,
            message: message.into(),
        }
    }
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
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        // One pattern (no comma): taken as it is.
                        Value::String(s) if !s.contains(',') => out.push(s.clone()),
                        Value::String(s) => out.extend(split_patterns(s)),
                        Value::Number(n) => out.push(n.to_string()),
                        Value::Bool(b) => out.push(b.to_string()),
                        Value::Null => {}
                        other => {
                            return Patterns::Invalid(format!(
                                "`{key}`: item {} is {}, not a pattern; write each pattern \
                                 as a quoted string: `{key}: [\"src/**\"]`",
                                i + 1,
                                describe(other)
                            ));
                        }
                    }
                }
                finish(out)
            }
            Some(Value::Number(n)) => finish(vec![n.to_string()]),
            Some(other) => Patterns::Invalid(format!(
                "`{key}` must be a pattern or a list of patterns, but it is {}; \
                 write it as a quoted list: `{key}: [\"src/**\"]`",
                describe(other)
            )),
        }
    }
}

/// A YAML value as a person would name it.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a true/false value",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping (`key: value` lines)",
    }
}

/// Drops `./`, blanks and duplicates (the first of each is kept, in order);
/// an empty result is [`Patterns::Empty`]. Linear in the number of patterns.
fn finish(items: Vec<String>) -> Patterns {
    // A scope lists a few patterns: below this many, a duplicate is looked
    // for among those kept, without hashing every pattern.
    const FEW: usize = 16;
    let few = items.len() <= FEW;
    let mut seen: crate::Set<String> = crate::Set::default();
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let mut p = item.trim();
        while let Some(rest) = p.strip_prefix("./") {
            p = rest;
        }
        if p.is_empty() {
            continue;
        }
        let new = if few {
            !out.iter().any(|kept| kept == p)
        } else {
            seen.insert(p.to_owned())
        };
        if new {
            // A pattern written bare (most) is kept without a copy.
            out.push(if p.len() == item.len() {
                item
            } else {
                p.to_owned()
            });
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
    if !s.contains(',') {
        // Nothing to split at: the one pattern, trimmed (what the loop
        // below makes of it, without copying it a character at a time).
        let one = s.trim();
        return if one.is_empty() {
            Vec::new()
        } else {
            vec![one.to_owned()]
        };
    }
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

/// Whether `line` is YAML's end-of-document marker `...`, which some tools
/// accept as the closing fence.
fn is_document_end(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "..."
}

/// Whether `line` starts like a fence once its hidden characters and
/// leading whitespace are set aside: `---`, ` ---`, `--- yaml`, `----`,
/// `U+200B---`, `-U+200B--`.
fn is_fence_like(line: &str) -> bool {
    invisible::without_hidden(line)
        .trim_start()
        .starts_with("---")
}

/// Whether `line` shows nothing: whitespace and hidden characters only.
fn looks_blank(line: &str) -> bool {
    line.chars()
        .all(|c| c.is_whitespace() || invisible::is_hidden(c))
}

/// Whether the first line of `text` that shows something starts like a
/// fence: a file that does is never read as a body without a frontmatter
/// when its convention has scope keys. Line breaks are `\n`, `\r\n` or a
/// bare `\r`; a leading BOM is skipped.
#[doc(hidden)]
pub fn opens_like_frontmatter(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split(['\n', '\r'])
        .find(|line| !looks_blank(line))
        .is_some_and(is_fence_like)
}

/// `line` for a message: at most 60 characters, control characters escaped.
fn shown(line: &str) -> String {
    let mut out: String = line
        .chars()
        .take(60)
        .flat_map(char::escape_default)
        .collect();
    if line.chars().nth(60).is_some() {
        out.push('…');
    }
    out
}

/// Splits and parses a rule file's text. `scope_keys` are the keys whose lines
/// are read literally when strict YAML rejects them; a convention with scope
/// keys never gets a file that opens like a frontmatter back as a plain body
/// (see the module docs).
pub(crate) fn parse(text: &str, scope_keys: &[&str]) -> Result<Parsed, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (text, bare_cr) = normalize_line_endings(text);
    let mut warnings = Vec::new();

    let block = match split_fences(&text, &mut warnings) {
        Ok(Some(block)) => block,
        Ok(None) => {
            return Ok(Parsed {
                frontmatter: Frontmatter::default(),
                body: text.into_owned(),
                warnings,
            });
        }
        Err(message) if scope_keys.is_empty() => {
            // No scope can be lost: the file is read as it is, and the
            // damage is said.
            return Ok(Parsed {
                frontmatter: Frontmatter::default(),
                body: text.into_owned(),
                warnings: vec![format!(
                    "{message}; the whole file was read as the rule's text"
                )],
            });
        }
        Err(message) => {
            return Err(FrontmatterError::invalid(format!(
                "{message}; the rule is not loaded, because a scope it may declare cannot be read"
            )));
        }
    };
    if bare_cr {
        warnings.push(
            "the file ends its lines with a bare CR (`\\r`, old Mac style); they were read as \
             line breaks, but other tools see one long line and no frontmatter: save the file \
             with LF line endings"
                .to_owned(),
        );
    }
    if block.yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError::too_complex(format!(
            "the frontmatter (lines {}-{}) is {} bytes, over the limit of {MAX_FRONTMATTER_BYTES} \
             bytes; a scope needs only a few lines",
            block.first_line.saturating_sub(1),
            block.last_line,
            block.yaml.len()
        )));
    }
    let frontmatter = parse_yaml(block.yaml, block.first_line, scope_keys, &mut warnings)?;
    if let Some(message) = hidden_scope_key(&frontmatter, block.yaml, block.first_line, scope_keys)
    {
        return Err(FrontmatterError::invalid(message));
    }
    Ok(Parsed {
        frontmatter,
        body: block.body.to_owned(),
        warnings,
    })
}

/// `text` with CRLF and bare CR line breaks turned into LF, and whether a
/// bare CR was seen.
fn normalize_line_endings(text: &str) -> (Cow<'_, str>, bool) {
    if !text.contains('\r') {
        return (Cow::Borrowed(text), false);
    }
    let crlf = text.replace("\r\n", "\n");
    if crlf.contains('\r') {
        (Cow::Owned(crlf.replace('\r', "\n")), true)
    } else {
        (Cow::Owned(crlf), false)
    }
}

/// A frontmatter block found between its fences.
struct Block<'a> {
    yaml: &'a str,
    body: &'a str,
    /// The file's line number of the first YAML line (the one after the
    /// opening fence).
    first_line: usize,
    /// The file's line number of the closing fence.
    last_line: usize,
}

/// Finds the frontmatter block. `Ok(None)`: the file does not open like a
/// frontmatter. `Err`: it opens like one, but the block cannot be told
/// (the message says where and why).
fn split_fences<'a>(
    text: &'a str,
    warnings: &mut Vec<String>,
) -> Result<Option<Block<'a>>, String> {
    let mut lines = text.split_inclusive('\n');
    let mut offset = 0;
    let mut line_no = 0;
    // The first line above the fence that looks blank but is not (a
    // zero-width space alone, say), with its first hidden character.
    let mut hidden_above: Option<(usize, char)> = None;
    let opening = loop {
        let Some(line) = lines.next() else {
            return Ok(None);
        };
        line_no += 1;
        if !looks_blank(line) {
            break line;
        }
        if hidden_above.is_none() && !line.trim().is_empty() {
            hidden_above = invisible::first_hidden(line).map(|(_, c)| (line_no, c));
        }
        offset += line.len();
    };
    let fence = opening.trim_end_matches('\n');
    if !is_fence_like(fence) {
        return Ok(None);
    }
    judge_opening(fence, line_no, hidden_above)?;
    let open_line = line_no;
    let yaml_start = offset + opening.len();
    let mut end = yaml_start;
    for line in lines {
        line_no += 1;
        let content = line.trim_end_matches('\n');
        let closes_with_dots = is_document_end(content);
        if !closes_with_dots && !is_fence(content) {
            hidden_in_closing_fence(content, line_no, open_line)?;
        }
        if is_fence(content) || closes_with_dots {
            if open_line > 1 {
                warnings.push(format!(
                    "the frontmatter opens on line {open_line}, after blank lines; it was read, \
                     but other tools look for it on line 1 only: remove the blank lines above it"
                ));
            }
            if closes_with_dots {
                warnings.push(format!(
                    "the frontmatter is closed with `...` on line {line_no}; it was read, but \
                     other tools close a frontmatter only with `---`: write `---` there"
                ));
            }
            return Ok(Some(Block {
                yaml: &text[yaml_start..end],
                body: &text[end + line.len()..],
                first_line: open_line + 1,
                last_line: line_no,
            }));
        }
        end += line.len();
    }
    Err(format!(
        "line {open_line} opens a frontmatter with `---`, but no later line closes it: \
         add a `---` line where the frontmatter ends"
    ))
}

/// Whether `fence`, the first line that shows something (line `line_no`)
/// and starts like a fence, opens a frontmatter: an error naming the
/// damage when it does not. `hidden_above` is the first line above it that
/// looks blank but holds a hidden character, with that character.
fn judge_opening(
    fence: &str,
    line_no: usize,
    hidden_above: Option<(usize, char)>,
) -> Result<(), String> {
    if let Some((at, c)) = hidden_above {
        return Err(format!(
            "line {at} looks blank but holds {}, an invisible character, above the `---` on \
             line {line_no}: other tools see text there, not a frontmatter, and load the rule \
             everywhere; delete the character",
            invisible::name(c)
        ));
    }
    if let Some((column, c)) = invisible::first_hidden(fence) {
        let dashes_before = fence.chars().take(column).filter(|&c| c == '-').count();
        let place = match dashes_before {
            0 => "before",
            1 | 2 => "among the dashes of",
            _ => "after",
        };
        return Err(format!(
            "line {line_no} `{}` has {}, an invisible character, {place} its `---`: a fence is \
             `---` alone on its line, and other tools see no fence here and load the rule \
             everywhere; delete the character",
            shown(fence),
            invisible::name(c)
        ));
    }
    if fence.starts_with(|c: char| c.is_whitespace()) {
        return Err(format!(
            "line {line_no} `{}` is an indented `---`, which does not open a frontmatter: \
             a fence is `---` at the start of its line",
            shown(fence)
        ));
    }
    if !is_fence(fence) {
        return Err(format!(
            "line {line_no} `{}` opens like a frontmatter fence, but a fence is `---` alone \
             on its line",
            shown(fence)
        ));
    }
    Ok(())
}

/// An error when `line` (line `line_no`) would close the frontmatter
/// opened on line `open_line` but for a hidden character: without the
/// refusal the frontmatter would run on to some later `---`.
fn hidden_in_closing_fence(line: &str, line_no: usize, open_line: usize) -> Result<(), String> {
    let Some((_, c)) = invisible::first_hidden(line) else {
        return Ok(());
    };
    let visible = invisible::without_hidden(line);
    if !is_fence(&visible) && !is_document_end(&visible) {
        return Ok(());
    }
    Err(format!(
        "line {line_no} `{}` has {}, an invisible character, in the `{}` that closes the \
         frontmatter opened on line {open_line}: other tools see no closing fence there; \
         delete the character",
        shown(line),
        invisible::name(c),
        visible.trim_end_matches([' ', '\t'])
    ))
}

/// A message when a key of `frontmatter` is one of `scope_keys` but for a
/// hidden character (`U+200B` then `paths`): read as another key, it would
/// leave the rule unscoped.
fn hidden_scope_key(
    frontmatter: &Frontmatter,
    yaml: &str,
    first_line: usize,
    scope_keys: &[&str],
) -> Option<String> {
    frontmatter.values.keys().find_map(|key| {
        let (_, c) = invisible::first_hidden(key)?;
        let visible = invisible::without_hidden(key);
        let meant = scope_keys
            .iter()
            .find(|k| **k == visible.trim() && !frontmatter.values.contains_key(**k))?;
        let line = yaml
            .lines()
            .position(|line| line.contains(key.as_str()))
            .map_or(first_line, |i| first_line + i);
        Some(format!(
            "line {line}: the key `{}` has {}, an invisible character, so it is not `{meant}` \
             and the rule would load everywhere; delete the character",
            shown(key),
            invisible::name(c)
        ))
    })
}

fn parse_yaml(
    yaml: &str,
    first_line: usize,
    scope_keys: &[&str],
    warnings: &mut Vec<String>,
) -> Result<Frontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Frontmatter {
            present: true,
            ..Frontmatter::default()
        });
    }
    match parse_map(yaml, first_line)? {
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
            recover(yaml, first_line, &misread, Some(values), why, warnings).map_err(|err| {
                if err.message.is_empty() {
                    FrontmatterError::invalid(format!(
                        "`{}`: {why}; write it as a quoted list: `{}: [\"src/**\"]`",
                        misread.join("`, `"),
                        misread.first().copied().unwrap_or("paths")
                    ))
                } else {
                    err
                }
            })
        }
        Err(strict_error) => {
            let why = format!("it is not valid YAML ({strict_error})");
            recover(yaml, first_line, scope_keys, None, &why, warnings).map_err(|err| {
                if err.message.is_empty() {
                    FrontmatterError::invalid(format!(
                        "the frontmatter is not valid YAML: {strict_error}"
                    ))
                } else {
                    err
                }
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

/// Strict YAML under the limits: the frontmatter must be a mapping. The
/// outer error is a limit that was hit (the rule is refused whatever its
/// scope keys); the inner one a message for a person. `yaml` starts on the
/// file's line `first_line`. A frontmatter of plain `key: value` lines is
/// read without the parser ([`plain`]), which reports no line numbers.
fn parse_map(
    yaml: &str,
    first_line: usize,
) -> Result<Result<Map<String, Value>, String>, FrontmatterError> {
    if let Some(map) = plain::parse(yaml) {
        return Ok(Ok(map));
    }
    // Blank lines stand for the lines above the YAML, so the parser's line
    // numbers are the file's.
    let lead = first_line.saturating_sub(1);
    let mut padded = String::with_capacity(lead + yaml.len());
    padded.extend(std::iter::repeat_n('\n', lead));
    padded.push_str(yaml);
    parse_map_yaml(&padded)
}

/// [`parse_map`] by the YAML parser.
fn parse_map_yaml(yaml: &str) -> Result<Result<Map<String, Value>, String>, FrontmatterError> {
    let mut options = serde_saphyr::Options::default();
    options.with_snippet = false;
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = MAX_YAML_NODES;
    budget.max_events = 4 * MAX_YAML_NODES;
    budget.max_recorded_anchor_events = MAX_YAML_NODES;
    budget.max_aliases = MAX_YAML_ALIASES;
    budget.max_anchors = MAX_YAML_ALIASES;
    budget.max_depth = MAX_YAML_DEPTH;
    budget.flow_nesting_limit = MAX_YAML_DEPTH;
    budget.max_total_scalar_bytes = 2 * MAX_FRONTMATTER_BYTES;
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = MAX_YAML_NODES;
    options.alias_limits.max_replay_stack_depth = MAX_YAML_DEPTH;
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Object(map)) => Ok(Ok(map)),
        Ok(Value::Null) => Ok(Ok(Map::new())),
        Ok(other) => Ok(Err(format!(
            "a frontmatter is a mapping of keys to values (`key: value` lines), but this one \
             is {}",
            describe(&other)
        ))),
        Err(err) => match limit_hit(&err) {
            Some(what) => Err(FrontmatterError::too_complex(format!(
                "the frontmatter YAML {what}{}; a scope needs only a few plain lines",
                at_line(&err)
            ))),
            None => Ok(Err(err.render_with_formatter(&Messages))),
        },
    }
}

/// The error under any wrappers.
fn original(mut err: &YamlError) -> &YamlError {
    while let YamlError::WithSnippet { error, .. } | YamlError::AliasError { error, .. } = err {
        err = error;
    }
    err
}

/// ` (line N)` when the parser knows where.
fn at_line(err: &YamlError) -> String {
    match err.location() {
        Some(location) if location.line() > 0 => format!(" (line {})", location.line()),
        _ => String::new(),
    }
}

/// Which limit a parser error stands for, said for a person; `None` when
/// it is an ordinary syntax error.
fn limit_hit(err: &YamlError) -> Option<String> {
    let nodes = format!("expands to more than {MAX_YAML_NODES} values");
    let depth = format!("nests deeper than {MAX_YAML_DEPTH} levels");
    let said = match original(err) {
        YamlError::Budget { breach, .. } => match breach {
            BudgetBreach::Aliases { .. } | BudgetBreach::Anchors { .. } => {
                format!("uses more than {MAX_YAML_ALIASES} aliases or anchors (`*name`, `&name`)")
            }
            BudgetBreach::Depth { .. } => depth,
            _ => nodes,
        },
        YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayCounterOverflow { .. } => nodes,
        YamlError::AliasReplayStackDepthExceeded { .. } => depth,
        YamlError::ExternalMessage { source, .. }
            if matches!(
                source.as_ref(),
                ExternalMessageSource::Parser(scan)
                    if matches!(scan.kind(), ScanErrorKind::RecursionLimitExceeded)
            ) =>
        {
            depth
        }
        _ => return None,
    };
    Some(said)
}

/// The parser's messages for a person: its user-facing wording, with the
/// cases that read like internals said plainly.
struct Messages;

impl MessageFormatter for Messages {
    fn format_message<'a>(&self, err: &'a YamlError) -> Cow<'a, str> {
        match err {
            YamlError::UnknownAnchor { .. } => Cow::Borrowed(
                "`*` starts a YAML alias here, and no anchor of that name is defined \
                 (quote a value that starts with `*`)",
            ),
            YamlError::DuplicateMappingKey { key: Some(key), .. } => {
                Cow::Owned(format!("the key `{key}` is written twice"))
            }
            YamlError::DuplicateMappingKey { key: None, .. } => {
                Cow::Borrowed("a key is written twice")
            }
            _ => UserMessageFormatter.format_message(err),
        }
    }
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
    first_line: usize,
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
        let (items, nested_mapping, next) = literal_items(&lines, i, value, &mut consumed);
        let written = shown(line.trim());
        let line_no = first_line + i;
        i = next;
        if nested_mapping || items.is_empty() {
            return Err(FrontmatterError::invalid(format!(
                "line {line_no} `{written}`: {why}, and no pattern could be read from its lines; \
                 write it as a quoted list: `{key}: [\"src/**\"]`"
            )));
        }
        let quoted = items
            .iter()
            .map(|p| format!("\"{}\"", shown(p)))
            .collect::<Vec<_>>()
            .join(", ");
        warnings.push(format!(
            "line {line_no} `{written}`: {why}; it was read literally as {quoted}. \
             Quote the patterns so every tool reads them the same: `{key}: [{quoted}]`"
        ));
        recovered.push((key.to_owned(), items));
    }

    if recovered.is_empty() {
        return Err(FrontmatterError::invalid(String::new()));
    }

    let values = match base {
        Some(mut values) => {
            for (key, _) in &recovered {
                values.remove(key);
            }
            values
        }
        None => other_keys(&lines, &consumed, first_line, warnings)?,
    };
    Ok(Frontmatter {
        values,
        recovered,
        present: true,
    })
}

/// Reads the scope key on line `at` literally: the patterns of its `value`
/// (a flow list or a comma-separated line), then of the indented or `-`
/// lines under it, marking them consumed. Returns the patterns, whether a
/// nested mapping was met (which no literal reading can make a scope of),
/// and the first line after the key's.
fn literal_items(
    lines: &[&str],
    at: usize,
    value: &str,
    consumed: &mut [bool],
) -> (Vec<String>, bool, usize) {
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
    let mut j = at + 1;
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
    (items, nested_mapping, j)
}

/// Decides the other keys of a frontmatter strict YAML refused: the lines
/// not read literally, parsed again; none, with a warning, when they are
/// not valid YAML either.
fn other_keys(
    lines: &[&str],
    consumed: &[bool],
    first_line: usize,
    warnings: &mut Vec<String>,
) -> Result<Map<String, Value>, FrontmatterError> {
    // The lines read literally are blanked, not dropped, so the
    // parser's line numbers stay the file's.
    let mut rest = String::new();
    for (line, consumed) in lines.iter().zip(consumed) {
        if !consumed {
            rest.push_str(line);
        }
        rest.push('\n');
    }
    if rest.trim().is_empty() {
        return Ok(Map::new());
    }
    Ok(match parse_map(&rest, first_line)? {
        Ok(values) => values,
        Err(err) => {
            warnings.push(format!(
                "the other frontmatter keys are not valid YAML either and were ignored: {err}"
            ));
            Map::new()
        }
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
    use crate::rule::SkipReason;

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
        // A list item is split at its commas as a single string is, and
        // cleaned the same way.
        check(
            "---\npaths: [\"a/**, b/**\", \" ./c/** \", \"\", \"d/{x,y}\"]\n---\n",
            some(&["a/**", "b/**", "c/**", "d/{x,y}"]),
            0,
        );
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
    fn unclosed_fence_is_invalid_where_a_scope_can_be_lost() {
        let err = parse("---\npaths: src/**\nbody\n", &["paths"]).unwrap_err();
        assert_eq!(err.reason, SkipReason::InvalidFrontmatter);
        assert!(err.message.contains("line 1"), "{}", err.message);
        // A convention without scope keys has no scope to lose.
        let parsed = parse("---\npaths: src/**\nbody\n", &[]).unwrap();
        assert!(!parsed.frontmatter.is_present());
        assert_eq!(parsed.body, "---\npaths: src/**\nbody\n");
        assert_eq!(parsed.warnings.len(), 1);
    }

    /// Every shape of the module docs' table: the patterns read (or the
    /// refusal) and the number of warnings.
    #[test]
    fn damaged_openings_follow_the_table() {
        let scoped = |text: &str, warnings: usize| check(text, some(&["src/**"]), warnings);
        scoped("\u{feff}---\npaths: src/**\n---\n", 0);
        scoped("---\r\npaths: src/**\r\n---\r\n", 0);
        scoped("---\r\npaths: src/**\n---\r\nbody\n", 0);
        scoped("---\rpaths: src/**\r---\rbody\r", 1);
        scoped("\n\n---\npaths: src/**\n---\n", 1);
        scoped(" \t\n---\npaths: src/**\n---\n", 1);
        scoped("---\npaths: src/**\n...\nbody\n", 1);
        scoped("\u{feff}\r\r---\rpaths: src/**\r...\r", 3);
        for text in [
            " ---\npaths: src/**\n---\n",
            "\t---\npaths: src/**\n---\n",
            "--- yaml\npaths: src/**\n---\n",
            "---yaml\npaths: src/**\n---\n",
            "----\npaths: src/**\n----\n",
            "\n---\npaths: src/**\n",
            "\u{feff}\u{feff}---\npaths: src/**\n---\n",
        ] {
            let err = parse(text, &["paths"]).unwrap_err();
            assert_eq!(err.reason, SkipReason::InvalidFrontmatter, "{text:?}");
            assert!(err.message.contains("line "), "{text:?}: {}", err.message);
        }
        // A hidden character: refused, the line and the code point named.
        for (text, said) in [
            (
                "\u{200b}---\npaths: src/**\n---\n",
                "line 1 `\\u{200b}---` has U+200B ZERO WIDTH SPACE, an invisible character, before",
            ),
            (
                "\u{feff}\u{200b}---\npaths: src/**\n---\n",
                "U+200B ZERO WIDTH SPACE, an invisible character, before",
            ),
            (
                "\u{feff}\u{feff}---\npaths: src/**\n---\n",
                "U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible character, before",
            ),
            (
                "-\u{ad}--\npaths: src/**\n---\n",
                "U+00AD SOFT HYPHEN, an invisible character, among the dashes",
            ),
            (
                "---\u{2060}\npaths: src/**\n---\n",
                "U+2060 WORD JOINER, an invisible character, after",
            ),
            ("\u{a0}---\npaths: src/**\n---\n", "U+00A0 NO-BREAK SPACE"),
            ("\u{c}---\npaths: src/**\n---\n", "U+000C FORM FEED"),
            ("\u{3164}---\npaths: src/**\n---\n", "U+3164 HANGUL FILLER"),
            (
                "\u{200e}\n\n---\npaths: src/**\n---\n",
                "line 1 looks blank but holds U+200E LEFT-TO-RIGHT MARK, an invisible character, above the `---` on line 3",
            ),
            (
                "---\npaths: src/**\n\u{200b}---\nbody\n---\n",
                "line 3 `\\u{200b}---` has U+200B ZERO WIDTH SPACE, an invisible character, in the `---` that closes the frontmatter opened on line 1",
            ),
            (
                "---\npaths: src/**\n..\u{200c}.\nbody\n---\n",
                "in the `...` that closes",
            ),
            (
                "---\n\u{200b}paths: [src/**]\n---\nbody\n",
                "line 2: the key `\\u{200b}paths` has U+200B ZERO WIDTH SPACE, an invisible character, so it is not `paths`",
            ),
        ] {
            let err = parse(text, &["paths"]).unwrap_err();
            assert_eq!(err.reason, SkipReason::InvalidFrontmatter, "{text:?}");
            assert!(err.message.contains(said), "{text:?}: {}", err.message);
        }
        // Hidden characters that open no fence change nothing: a line of
        // whitespace is blank, a hidden character in text is text.
        scoped("\u{a0}\n---\npaths: src/**\n---\n", 1);
        scoped("---\ndescription: a\u{200d}b\npaths: src/**\n---\n", 0);
        check(
            "\u{200b}\n# Title\n---\npaths: src/**\n---\n",
            Patterns::Absent,
            0,
        );
        check("# Ti\u{200b}tle\n---\n", Patterns::Absent, 0);
        // Without scope keys nothing is lost: the file is read, with the
        // character named in a warning.
        let parsed = parse("\u{200b}---\npaths: src/**\n---\n", &[]).unwrap();
        assert!(
            parsed.warnings[0].contains("U+200B"),
            "{:?}",
            parsed.warnings
        );
        // What the fuzz target holds the parser to sees them the same way.
        for text in [
            "\u{200b}---\n",
            "\u{200b}\n-\u{ad}--\n",
            "\u{feff}\u{2060}---",
        ] {
            assert!(opens_like_frontmatter(text), "{text:?}");
        }
        assert!(!opens_like_frontmatter("\u{200b}\n# Title\n---\n"));
        // A later `---` is a markdown rule line, not a frontmatter.
        check("# Title\n---\npaths: src/**\n---\n", Patterns::Absent, 0);
    }

    #[test]
    fn warnings_name_the_line() {
        let parsed = parse("\n\n---\npaths: src/**\n...\n", &["paths"]).unwrap();
        assert!(
            parsed.warnings[0].contains("line 3"),
            "{:?}",
            parsed.warnings
        );
        assert!(
            parsed.warnings[1].contains("line 5"),
            "{:?}",
            parsed.warnings
        );
        let parsed = parse("---\ndescription: x\npaths: **/*.cs\n---\n", &["paths"]).unwrap();
        assert!(
            parsed.warnings[0].contains("line 3"),
            "{:?}",
            parsed.warnings
        );
    }

    #[test]
    fn messages_carry_no_parser_internals() {
        let cases = [
            "---\ndescription: a\ndescription: b\n---\n",
            "---\npaths:\n  - [a, {b: c}]\n---\n",
            "---\npaths: 3\ndescription: *x\n---\n",
            "---\n- a\n- b\n---\n",
            "---\ndescription: !!int x\n---\n",
            "---\na: &a [x]\nb: [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n---\n",
        ];
        for text in cases {
            let said = match parse(text, &["paths"]) {
                Ok(parsed) => match parsed.frontmatter.patterns("paths") {
                    Patterns::Invalid(message) => message,
                    _ => parsed.warnings.join("\n"),
                },
                Err(err) => err.message,
            };
            assert!(!said.is_empty(), "{text:?}");
            for internal in [
                "Some(",
                "None",
                "Options",
                "{ ",
                "::",
                "invalid type",
                "Policy",
            ] {
                assert!(!said.contains(internal), "{text:?}: {said}");
            }
        }
    }

    #[test]
    fn patterns_split_at_commas_outside_sets_and_escapes() {
        for (text, want) in [
            ("src/**", vec!["src/**"]),
            ("  {a b}/[x y]/**  ", vec!["{a b}/[x y]/**"]),
            ("a\\b", vec!["a\\b"]),
            ("   ", vec![]),
            ("", vec![]),
            ("a, b", vec!["a", "b"]),
            ("{a,b}/**, c", vec!["{a,b}/**", "c"]),
            ("[a,b]/**, [c]/d,e", vec!["[a,b]/**", "[c]/d", "e"]),
            ("x/{a,[b,c]}, y", vec!["x/{a,[b,c]}", "y"]),
            ("a\\,b, c", vec!["a\\,b", "c"]),
            ("a],b", vec!["a]", "b"]),
        ] {
            assert_eq!(split_patterns(text), want, "{text:?}");
        }
    }

    #[test]
    fn duplicates_are_dropped_keeping_the_first_in_order() {
        let items = ["b", "./a", "b", "c", "a", " c ", "./././d", "d"];
        let got = finish(items.iter().map(|s| s.to_string()).collect());
        assert_eq!(got, some(&["b", "a", "c", "d"]));
        // Many duplicates: still every first one, in order.
        let many: Vec<String> = (0..20_000).map(|i| format!("p{}", i % 1_000)).collect();
        let Patterns::Some(kept) = finish(many) else {
            panic!("patterns expected")
        };
        let expected: Vec<String> = (0..1_000).map(|i| format!("p{i}")).collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn limits_are_refused_as_too_complex() {
        let deep = format!("---\npaths: {}a{}\n---\n", "[".repeat(40), "]".repeat(40));
        let big = format!(
            "---\ndescription: \"{}\"\n---\n",
            "x".repeat(MAX_FRONTMATTER_BYTES)
        );
        let mut bomb = String::from("---\na: &a [x,x,x,x,x,x,x,x,x]\n");
        for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
        {
            bomb.push_str(&format!(
                "{name}: &{name} [{}]\n",
                vec![format!("*{prev}"); 9].join(",")
            ));
        }
        bomb.push_str("paths: *i\n---\n");
        for text in [deep, big, bomb] {
            let err = parse(&text, &["paths"]).unwrap_err();
            assert_eq!(err.reason, SkipReason::YamlTooComplex, "{}", err.message);
        }
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
