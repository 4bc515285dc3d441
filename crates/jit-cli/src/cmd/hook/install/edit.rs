//! Minimal edits to a JSON text: only the values that changed are written anew, every other byte of the file stays as it was.

use std::ops::Range;

use super::json::{self, Json, Object, Style};

/// The text of `new`, made by editing `text` (which parses to `old`) where
/// the two differ. Objects and arrays are edited item by item: an entry or
/// element added, removed or changed is written in the file's style, and
/// every other one keeps its bytes, so another tool's hooks, a one-line
/// `"allow": [...]` or a number written `1.50` stay as their owner wrote
/// them. When an edit cannot be placed (keys in a new order; repeated keys,
/// which `json::parse` refuses before any edit) or does not parse back to
/// `new`, the whole document is rendered in the file's style instead.
pub(super) fn rewrite(
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
    let span = scan(body.as_bytes(), body, skip_ws(body.as_bytes(), 0))?;
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

/// An object's entries or an array's elements as they sit in the text.
#[derive(Debug)]
struct Span {
    /// The bytes from `{` to `}` (or `[` to `]`), both included.
    whole: Range<usize>,
    items: Vec<Item>,
}

/// One entry of an object or element of an array.
#[derive(Debug)]
struct Item {
    /// The entry's key; `None` in an array.
    key: Option<String>,
    /// Where the item starts: its key, or its value in an array.
    start: usize,
    value: Range<usize>,
}

struct Editor<'a> {
    text: &'a str,
    style: &'a Style,
}

impl Editor<'_> {
    /// Adds the edits that turn the object at `span` (which holds `old`)
    /// into `new`, or returns `None` when only a rewrite of the whole object
    /// can do it. Kept entries keep their place; new ones come last.
    fn object(&self, span: &Span, old: &Object, new: &Object, edits: &mut Vec<Edit>) -> Option<()> {
        let old_keys: Vec<&str> = old.keys().collect();
        let span_keys: Vec<&str> = span.items.iter().filter_map(|i| i.key.as_deref()).collect();
        if span_keys != old_keys {
            // The text holds entries the parsed object does not (a repeated
            // key, were one ever let through).
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
        if kept.is_empty() {
            // Nothing of the old object stays: write it anew.
            edits.push(self.replace(span.whole.clone(), &Json::Object(new.clone())));
            return Some(());
        }
        for (item, key) in span.items.iter().zip(&old_keys) {
            if let (Some(old_value), Some(new_value)) = (old.get(key), new.get(key))
                && old_value != new_value
            {
                self.value(item, old_value, new_value, edits);
            }
        }
        let keep: Vec<bool> = old_keys.iter().map(|k| new.get(k).is_some()).collect();
        self.remove(span, &keep, edits)?;
        let added: Vec<(Option<&str>, &Json)> = added
            .into_iter()
            .map(|key| Some((Some(key), new.get(key)?)))
            .collect::<Option<_>>()?;
        self.insert(span, span.items.len(), &added, edits)
    }

    /// Like [`Editor::object`] for an array. Three changes are made in
    /// place: elements changed where they are, elements inserted (the old
    /// ones in order among the new), elements removed (the new ones in order
    /// among the old). Anything else rewrites the whole array.
    fn array(&self, span: &Span, old: &[Json], new: &[Json], edits: &mut Vec<Edit>) -> Option<()> {
        if span.items.len() != old.len() {
            return None;
        }
        if old.is_empty() || new.is_empty() {
            edits.push(self.replace(span.whole.clone(), &Json::Array(new.to_vec())));
            return Some(());
        }
        if old.len() == new.len() {
            for ((item, old), new) in span.items.iter().zip(old).zip(new) {
                if old != new {
                    self.value(item, old, new, edits);
                }
            }
            return Some(());
        }
        if old.len() < new.len() {
            // Where each old element sits among the new ones.
            let places = subsequence(old, new)?;
            let mut next = 0;
            for (before, place) in places.iter().chain(&[new.len()]).enumerate() {
                let run: Vec<(Option<&str>, &Json)> =
                    new.get(next..*place)?.iter().map(|v| (None, v)).collect();
                self.insert(span, before, &run, edits)?;
                next = place + 1;
            }
            return Some(());
        }
        let places = subsequence(new, old)?;
        let keep: Vec<bool> = (0..old.len()).map(|i| places.contains(&i)).collect();
        self.remove(span, &keep, edits)
    }

    /// Adds the edits that change one item's value: inside it when both
    /// values are objects or both arrays, else the whole value.
    fn value(&self, item: &Item, old: &Json, new: &Json, edits: &mut Vec<Edit>) {
        let mut inner = Vec::new();
        let done =
            scan(self.text.as_bytes(), self.text, item.value.start).and_then(|span| {
                match (old, new) {
                    (Json::Object(old), Json::Object(new)) => {
                        self.object(&span, old, new, &mut inner)
                    }
                    (Json::Array(old), Json::Array(new)) => self.array(&span, old, new, &mut inner),
                    _ => None,
                }
            });
        if done.is_some() {
            edits.extend(inner);
        } else {
            edits.push(self.replace(item.value.clone(), new));
        }
    }

    /// Removes the items whose `keep` is false; at least one is kept.
    fn remove(&self, span: &Span, keep: &[bool], edits: &mut Vec<Edit>) -> Option<()> {
        let first_kept = keep.iter().position(|k| *k)?;
        if first_kept > 0 {
            // Items before the first kept one go up to its start, taking
            // their trailing commas with them.
            edits.push(Edit {
                range: span.items.first()?.start..span.items.get(first_kept)?.start,
                text: String::new(),
            });
        }
        for (i, keep) in keep.iter().enumerate().skip(first_kept + 1) {
            if !keep {
                // From the end of the previous value: the comma before this
                // item goes with it.
                edits.push(Edit {
                    range: span.items.get(i - 1)?.value.end..span.items.get(i)?.value.end,
                    text: String::new(),
                });
            }
        }
        Some(())
    }

    /// Inserts `items` before the item at index `before` of a non-empty
    /// container (after the last one when `before` is its length), each on
    /// a line of its own indented like the first item, or, in a container
    /// written on one line, on that line.
    fn insert(
        &self,
        span: &Span,
        before: usize,
        items: &[(Option<&str>, &Json)],
        edits: &mut Vec<Edit>,
    ) -> Option<()> {
        if items.is_empty() {
            return Some(());
        }
        let first = span.items.first()?;
        let multiline = self.text.get(span.whole.start..first.start)?.contains('\n');
        // A container written on one line in a pretty file stays on its
        // line: the new items go there too, written compactly, so the items
        // beside them keep their bytes (an item on a line of its own would
        // look out of place, and rewriting the container would reflow
        // what its owner wrote).
        let one_line_in_pretty = self.style.indent().is_some() && !multiline;
        let prefix = line_indent(self.text, first.start);
        let separator = if multiline {
            format!(",{}{prefix}", self.style.newline())
        } else if one_line_in_pretty {
            ", ".to_owned()
        } else {
            ",".to_owned()
        };
        let mut rendered = Vec::new();
        for (key, value) in items {
            let mut text = String::new();
            if let Some(key) = key {
                text.push_str(&serde_json::to_string(key).ok()?);
                text.push_str(if multiline || one_line_in_pretty {
                    ": "
                } else {
                    ":"
                });
            }
            if one_line_in_pretty {
                text.push_str(&serde_json::to_string(value).ok()?);
            } else {
                text.push_str(&self.render_at(value, prefix)?);
            }
            rendered.push(text);
        }
        let edit = if before == 0 {
            let mut text = rendered.join(&separator);
            text.push_str(&separator);
            Edit {
                range: first.start..first.start,
                text,
            }
        } else {
            let at = span.items.get(before - 1)?.value.end;
            let mut text = separator.clone();
            text.push_str(&rendered.join(&separator));
            Edit {
                range: at..at,
                text,
            }
        };
        edits.push(edit);
        Some(())
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

/// Where each element of `short` sits in `long`, matching in order; `None`
/// when `short` is not a subsequence of `long`.
fn subsequence(short: &[Json], long: &[Json]) -> Option<Vec<usize>> {
    let mut places = Vec::with_capacity(short.len());
    let mut rest = long.iter().enumerate();
    for wanted in short {
        let (at, _) = rest.find(|(_, v)| *v == wanted)?;
        places.push(at);
    }
    Some(places)
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

/// The items of the object or array that opens at `open`.
fn scan(bytes: &[u8], text: &str, open: usize) -> Option<Span> {
    let (is_object, close) = match bytes.get(open)? {
        b'{' => (true, b'}'),
        b'[' => (false, b']'),
        _ => return None,
    };
    let mut items = Vec::new();
    let mut at = skip_ws(bytes, open + 1);
    if bytes.get(at) == Some(&close) {
        return Some(Span {
            whole: open..at + 1,
            items,
        });
    }
    loop {
        let start = at;
        let key = if is_object {
            let key_end = skip_string(bytes, at)?;
            let key: String = serde_json::from_str(text.get(at..key_end)?).ok()?;
            let colon = skip_ws(bytes, key_end);
            if bytes.get(colon) != Some(&b':') {
                return None;
            }
            at = skip_ws(bytes, colon + 1);
            Some(key)
        } else {
            None
        };
        let value_end = skip_value(bytes, at)?;
        items.push(Item {
            key,
            start,
            value: at..value_end,
        });
        at = skip_ws(bytes, value_end);
        match bytes.get(at)? {
            b',' => at = skip_ws(bytes, at + 1),
            b if *b == close => {
                return Some(Span {
                    whole: open..at + 1,
                    items,
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
            "{\n\t\"hooks\": {\n\t\t\"A\": [ 1 ],\n\t\t\"B\": [2, 3]\n\t},\n\t\"z\": {}\n}",
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
    fn array_elements_are_added_removed_and_changed_in_place() {
        // `{ "x": 1 }` would lose its inner spaces in a rewrite of the array.
        let before = "{\n  \"a\": [\n    { \"x\": 1 },\n    { \"y\": 2 }\n  ]\n}\n";
        check(
            before,
            r#"{"a": [{"x": 1}, {"y": 2}, {"z": 3}]}"#,
            "{\n  \"a\": [\n    { \"x\": 1 },\n    { \"y\": 2 },\n    {\n      \"z\": 3\n    }\n  ]\n}\n",
        );
        check(
            before,
            r#"{"a": [0, {"x": 1}, 1, {"y": 2}]}"#,
            "{\n  \"a\": [\n    0,\n    { \"x\": 1 },\n    1,\n    { \"y\": 2 }\n  ]\n}\n",
        );
        check(
            before,
            r#"{"a": [{"y": 2}]}"#,
            "{\n  \"a\": [\n    { \"y\": 2 }\n  ]\n}\n",
        );
        check(
            before,
            r#"{"a": [{"x": 1}]}"#,
            "{\n  \"a\": [\n    { \"x\": 1 }\n  ]\n}\n",
        );
        check(
            before,
            r#"{"a": [{"x": 5}, {"y": 2}]}"#,
            "{\n  \"a\": [\n    { \"x\": 5 },\n    { \"y\": 2 }\n  ]\n}\n",
        );
        check(before, r#"{"a": []}"#, "{\n  \"a\": []\n}\n");
    }

    #[test]
    fn an_array_changed_and_grown_at_once_is_rewritten_whole() {
        check(
            "{\n  \"a\": [\n    { \"x\": 1 }\n  ],\n  \"b\": [ ]\n}\n",
            r#"{"a": [{"x": 2}, 3], "b": []}"#,
            "{\n  \"a\": [\n    {\n      \"x\": 2\n    },\n    3\n  ],\n  \"b\": [ ]\n}\n",
        );
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
    fn a_one_line_container_in_a_pretty_file_keeps_its_items_bytes() {
        // Rewriting the whole `hooks` object would spread the user's `Stop`
        // entry over nine lines: a hook jit does not own, reflowed.
        check(
            "{\n  \"model\": \"x\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [1]}]}\n}\n",
            r#"{"model": "x", "hooks": {"Stop": [{"hooks": [1]}], "Start": [{"a": [2]}]}}"#,
            "{\n  \"model\": \"x\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [1]}], \"Start\": [{\"a\":[2]}]}\n}\n",
        );
        check(
            "{\n  \"a\": [1, 2.50]\n}\n",
            r#"{"a": [1, 2.5, {"b": 3}]}"#,
            "{\n  \"a\": [1, 2.50, {\"b\":3}]\n}\n",
        );
    }

    #[test]
    fn keys_in_a_new_order_rewrite_the_whole_document() {
        check(
            "{\"a\": 1, \"b\": 2}",
            r#"{"b": 2, "a": 1}"#,
            "{\"b\":2,\"a\":1}",
        );
        check(
            "{\n    \"a\": 1,\n    \"b\": 2\n}",
            r#"{"b": 2, "a": 1, "c": 3}"#,
            "{\n    \"b\": 2,\n    \"a\": 1,\n    \"c\": 3\n}",
        );
    }
}
