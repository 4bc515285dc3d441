//! Minimal edits to a JSON text: only the values that changed are written anew, every other byte of the file stays as it was.

use std::ops::Range;

use super::json::{self, Json, Object, Style};

/// The text of `new`, made by editing `text` (which parses to `old`) where
/// the two differ. An entry whose value changed is rewritten in the file's
/// style; nested objects are edited the same way, so another tool's hooks
/// under another event, or an inline `"allow": [...]` in `permissions`, keep
/// their bytes. When an edit cannot be placed (repeated keys, keys in a new
/// order) or does not parse back to `new`, the whole document is rendered
/// in the file's style instead.
pub fn rewrite(
    text: &str,
    old: &Json,
    new: &Json,
    style: &Style,
) -> Result<String, serde_json::Error> {
    match splice(text, old, new, style) {
        Some(edited) if json::parse(&edited).is_ok_and(|(value, _)| value == *new) => Ok(edited),
        _ => json::render(new, style),
    }
}

fn splice(text: &str, old: &Json, new: &Json, style: &Style) -> Option<String> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", text),
    };
    let (Json::Object(old), Json::Object(new)) = (old, new) else {
        return None;
    };
    let editor = Editor { text: body, style };
    let span = scan_object(body.as_bytes(), body, skip_ws(body.as_bytes(), 0))?;
    let mut edits = Vec::new();
    editor.object(&span, old, new, &mut edits)?;
    // Later edits first, so earlier ranges still point at the right bytes.
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.range.start));
    let mut out = body.to_owned();
    for edit in edits {
        out.replace_range(edit.range, &edit.text);
    }
    out.insert_str(0, bom);
    Some(out)
}

/// One replacement of a byte range of the text.
#[derive(Debug)]
struct Edit {
    range: Range<usize>,
    text: String,
}

/// An object's entries as they sit in the text.
#[derive(Debug)]
struct ObjectSpan {
    /// The bytes from `{` to `}`, both included.
    whole: Range<usize>,
    entries: Vec<EntrySpan>,
}

#[derive(Debug)]
struct EntrySpan {
    key: String,
    key_start: usize,
    value: Range<usize>,
}

struct Editor<'a> {
    text: &'a str,
    style: &'a Style,
}

impl Editor<'_> {
    /// Adds the edits that turn the object at `span` (which holds `old`)
    /// into `new`, or returns `None` when only a rewrite of the whole object
    /// can do it.
    fn object(
        &self,
        span: &ObjectSpan,
        old: &Object,
        new: &Object,
        edits: &mut Vec<Edit>,
    ) -> Option<()> {
        let old_keys: Vec<&str> = old.keys().collect();
        let span_keys: Vec<&str> = span.entries.iter().map(|e| e.key.as_str()).collect();
        if span_keys != old_keys {
            // A repeated key: the text holds entries the parsed object does not.
            return None;
        }
        let kept: Vec<&str> = old_keys
            .iter()
            .copied()
            .filter(|k| new.get(k).is_some())
            .collect();
        let added: Vec<&str> = new.keys().filter(|k| old.get(k).is_none()).collect();
        let in_order: Vec<&str> = kept.iter().chain(&added).copied().collect();
        if new.keys().collect::<Vec<_>>() != in_order {
            return None;
        }
        let multiline = span
            .entries
            .first()
            .is_some_and(|first| self.text[span.whole.start..first.key_start].contains('\n'));
        let pretty = self.style.indent().is_some();
        let Some(first_kept) = span.entries.iter().position(|e| new.get(&e.key).is_some()) else {
            // Nothing of the old object stays: write it anew.
            edits.push(self.replace(span.whole.clone(), &Json::Object(new.clone())));
            return Some(());
        };
        if pretty && !multiline && !added.is_empty() {
            // An object written on one line in a pretty file: an entry added
            // on a line of its own would look out of place.
            return None;
        }

        for (i, entry) in span.entries.iter().enumerate() {
            let old_value = old.get(&entry.key)?;
            match new.get(&entry.key) {
                Some(new_value) if new_value == old_value => {}
                Some(new_value) => self.value(entry, old_value, new_value, edits),
                None if i < first_kept => {}
                None => {
                    // From the end of the previous value: the comma before
                    // this entry goes with it.
                    let previous = span.entries.get(i.checked_sub(1)?)?;
                    edits.push(Edit {
                        range: previous.value.end..entry.value.end,
                        text: String::new(),
                    });
                }
            }
        }
        if first_kept > 0 {
            // Entries before the first kept one go up to its key, taking
            // their trailing commas with them.
            let first = span.entries.first()?;
            edits.push(Edit {
                range: first.key_start..span.entries.get(first_kept)?.key_start,
                text: String::new(),
            });
        }
        if !added.is_empty() {
            let first = span.entries.first()?;
            let last = span.entries.last()?;
            let prefix = line_indent(self.text, first.key_start);
            let mut text = String::new();
            for key in added {
                let value = new.get(key)?;
                let key = serde_json::to_string(key).ok()?;
                if multiline {
                    text.push_str(&format!(",{}{prefix}{key}: ", self.style.newline()));
                } else {
                    text.push_str(&format!(",{key}:"));
                }
                text.push_str(&self.render_at(value, prefix)?);
            }
            edits.push(Edit {
                range: last.value.end..last.value.end,
                text,
            });
        }
        Some(())
    }

    /// Adds the edits that change one entry's value: inside it when both
    /// values are objects, else the whole value.
    fn value(&self, entry: &EntrySpan, old: &Json, new: &Json, edits: &mut Vec<Edit>) {
        if let (Json::Object(old), Json::Object(new)) = (old, new)
            && let Some(span) = scan_object(self.text.as_bytes(), self.text, entry.value.start)
        {
            let mut inner = Vec::new();
            if self.object(&span, old, new, &mut inner).is_some() {
                edits.extend(inner);
                return;
            }
        }
        edits.push(self.replace(entry.value.clone(), new));
    }

    fn replace(&self, range: Range<usize>, value: &Json) -> Edit {
        let prefix = line_indent(self.text, range.start);
        // A value that cannot be rendered leaves a text that does not parse
        // back, and `rewrite` then renders the whole document.
        let text = self.render_at(value, prefix).unwrap_or_default();
        Edit { range, text }
    }

    /// `value` in the file's style, its inner lines indented to sit on a
    /// line that starts with `prefix`.
    fn render_at(&self, value: &Json, prefix: &str) -> Option<String> {
        let text = json::render(value, &self.style.inline()).ok()?;
        Some(if self.style.indent().is_some() {
            text.replace('\n', &format!("{}{prefix}", self.style.newline()))
        } else {
            text
        })
    }
}

/// The spaces and tabs that start the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..at];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The end of the string that opens at `at`.
fn skip_string(bytes: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

/// The end of the value that starts at `at`. The text is already known to
/// be valid JSON, so only strings and brackets need to be tracked.
fn skip_value(bytes: &[u8], mut at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = skip_string(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            while bytes
                .get(at)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                at += 1;
            }
            Some(at)
        }
    }
}

/// The entries of the object that opens at `open`.
fn scan_object(bytes: &[u8], text: &str, open: usize) -> Option<ObjectSpan> {
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let mut entries = Vec::new();
    let mut at = skip_ws(bytes, open + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(ObjectSpan {
            whole: open..at + 1,
            entries,
        });
    }
    loop {
        let key_end = skip_string(bytes, at)?;
        let key: String = serde_json::from_str(text.get(at..key_end)?).ok()?;
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(bytes, colon + 1);
        let value_end = skip_value(bytes, value_start)?;
        entries.push(EntrySpan {
            key,
            key_start: at,
            value: value_start..value_end,
        });
        at = skip_ws(bytes, value_end);
        match bytes.get(at)? {
            b',' => at = skip_ws(bytes, at + 1),
            b'}' => {
                return Some(ObjectSpan {
                    whole: open..at + 1,
                    entries,
                });
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edits `before` into the document `after` and checks the exact text.
    #[track_caller]
    fn check(before: &str, after: &str, expected: &str) {
        let (old, style) = json::parse(before).unwrap();
        let (new, _) = json::parse(after).unwrap();
        assert_eq!(rewrite(before, &old, &new, &style).unwrap(), expected);
    }

    #[test]
    fn an_added_key_goes_last_and_the_rest_keeps_its_bytes() {
        check(
            "{\n  \"allow\": [\"a\",  \"b\"],\n  \"n\": 1.50\n}\n",
            r#"{"allow": ["a", "b"], "n": 1.50, "hooks": {"S": [1]}}"#,
            "{\n  \"allow\": [\"a\",  \"b\"],\n  \"n\": 1.50,\n  \"hooks\": {\n    \"S\": [\n      1\n    ]\n  }\n}\n",
        );
    }

    #[test]
    fn a_changed_nested_value_is_rewritten_alone() {
        check(
            "{\n\t\"hooks\": {\n\t\t\"A\": [ 1 ],\n\t\t\"B\": [2]\n\t},\n\t\"z\": {}\n}",
            r#"{"hooks": {"A": [1], "B": [2, 3]}, "z": {}}"#,
            "{\n\t\"hooks\": {\n\t\t\"A\": [ 1 ],\n\t\t\"B\": [\n\t\t\t2,\n\t\t\t3\n\t\t]\n\t},\n\t\"z\": {}\n}",
        );
    }

    #[test]
    fn removed_keys_take_their_commas_with_them() {
        // A rewrite of the whole document would write `2.00` as `2.0` and
        // `[ ]` as `[]`: seeing them proves the edit was made in place.
        let before = "{\r\n  \"a\": 1,\r\n  \"b\": 2.00,\r\n  \"c\": [ ],\r\n  \"d\": 4\r\n}\r\n";
        check(
            before,
            r#"{"b": 2.0, "d": 4}"#,
            "{\r\n  \"b\": 2.00,\r\n  \"d\": 4\r\n}\r\n",
        );
        check(
            before,
            r#"{"a": 1, "b": 2.0}"#,
            "{\r\n  \"a\": 1,\r\n  \"b\": 2.00\r\n}\r\n",
        );
        check(before, r#"{"c": []}"#, "{\r\n  \"c\": [ ]\r\n}\r\n");
        check(
            before,
            r#"{"a": 1, "d": 4}"#,
            "{\r\n  \"a\": 1,\r\n  \"d\": 4\r\n}\r\n",
        );
        check(before, r#"{}"#, "{}\r\n");
    }

    #[test]
    fn a_one_line_file_stays_on_one_line() {
        check(
            r#"{"a":{"x":1.50},"b":2}"#,
            r#"{"a":{"x":1.5,"y":[true]},"c":3}"#,
            r#"{"a":{"x":1.50,"y":[true]},"c":3}"#,
        );
    }

    #[test]
    fn keys_in_a_new_order_or_repeated_keys_rewrite_the_whole_document() {
        check(
            "{\"a\": 1, \"b\": 2}",
            r#"{"b": 2, "a": 1}"#,
            "{\"b\":2,\"a\":1}",
        );
        check(
            "{\n    \"a\": 1,\n    \"a\": 2\n}",
            r#"{"a": 2, "b": 3}"#,
            "{\n    \"a\": 2,\n    \"b\": 3\n}",
        );
    }
}
