//! An order-preserving JSON document and the layout (indentation, line ends) of the file it came from.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose objects keep their keys in file order.
///
/// `serde_json::Value` sorts object keys unless serde_json's `preserve_order`
/// feature is on, and that feature would also change the key order of every
/// other `serde_json::Map` in the build (`jit bash --json` prints one), so
/// settings files get this small type of their own.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Object),
}

impl Json {
    /// What the value is, for error messages ("an array").
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// The string, if the value is one.
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value`, whose equality ignores key order.
    pub(super) fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => serde_json::Value::Number(n.clone()),
            Json::String(s) => serde_json::Value::String(s.clone()),
            Json::Array(items) => {
                serde_json::Value::Array(items.iter().map(Json::to_value).collect())
            }
            Json::Object(object) => serde_json::Value::Object(
                object
                    .0
                    .iter()
                    .map(|(key, value)| (key.clone(), value.to_value()))
                    .collect(),
            ),
        }
    }
}

/// A JSON object: its entries in file order, keys unique.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Object(Vec<(String, Json)>);

impl Object {
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`: in place when it is there, else as the last entry.
    pub(super) fn insert(&mut self, key: &str, value: Json) {
        match self.get_mut(key) {
            Some(slot) => *slot = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }

    /// The value at `key`, first set to `make()` as the last entry when absent.
    pub(super) fn get_or_insert_with(
        &mut self,
        key: &str,
        make: impl FnOnce() -> Json,
    ) -> &mut Json {
        let index = match self.0.iter().position(|(k, _)| k == key) {
            Some(index) => index,
            None => {
                self.0.push((key.to_owned(), make()));
                self.0.len() - 1
            }
        };
        &mut self.0[index].1
    }

    pub(super) fn remove(&mut self, key: &str) -> Option<Json> {
        let index = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(index).1)
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut Json)> {
        self.0.iter_mut().map(|(k, v)| (k.as_str(), v))
    }
}

impl<const N: usize> From<[(&str, Json); N]> for Object {
    fn from(entries: [(&str, Json); N]) -> Self {
        let mut object = Object::default();
        for (key, value) in entries {
            object.insert(key, value);
        }
        object
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a JSON number")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        // A repeated key is refused, wherever it is. The agents read these
        // files with JavaScript's JSON.parse, which keeps the last value,
        // so the first one is text the agent never sees; an edit written
        // from either value would lose the other's text, and the user would
        // not know which one jit changed.
        let mut entries = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key {} appears twice in one object",
                    serde_json::to_string(&key).unwrap_or_default()
                )));
            }
            entries.push((key, map.next_value()?));
        }
        Ok(Json::Object(Object(entries)))
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.0.len()))?;
                for (key, value) in &object.0 {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// How a settings file is laid out, so a rewrite looks like its owner's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Style {
    /// One level of indentation; `None` for a file written on one line.
    indent: Option<String>,
    crlf: bool,
    final_newline: bool,
    bom: bool,
}

impl Style {
    /// The layout of a file jit creates: two spaces, a final newline.
    pub(super) fn new_file() -> Self {
        Style {
            indent: Some("  ".to_owned()),
            crlf: false,
            final_newline: true,
            bom: false,
        }
    }

    /// One level of indentation; `None` for a file written on one line.
    pub(super) fn indent(&self) -> Option<&str> {
        self.indent.as_deref()
    }

    /// The file's line end.
    pub(super) fn newline(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }

    /// The same indentation, for a value inside the file: `\n` line ends,
    /// no final newline, no byte-order mark.
    pub(super) fn inline(&self) -> Self {
        Style {
            indent: self.indent.clone(),
            crlf: false,
            final_newline: false,
            bom: false,
        }
    }

    /// Reads the layout of `text`. The first indented line is one level deep
    /// in any pretty-printed object, so its leading whitespace is the unit.
    pub(super) fn detect(text: &str) -> Self {
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        // `{}` on one line says nothing about how its owner indents; only a
        // one-line file with entries is kept on one line.
        let one_line = !body.trim_end().contains('\n') && body.contains(':');
        let indent = if one_line {
            None
        } else {
            let unit = body
                .lines()
                .skip(1)
                .map(|line| {
                    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
                    &line[..width]
                })
                .find(|lead| !lead.is_empty());
            Some(match unit {
                Some(lead) if lead.starts_with('\t') => "\t".to_owned(),
                Some(lead) => " ".repeat(lead.len()),
                None => "  ".to_owned(),
            })
        };
        Style {
            indent,
            crlf: body.contains("\r\n"),
            final_newline: body.ends_with('\n'),
            bom: body.len() != text.len(),
        }
    }
}

/// Parses a settings file's text (a leading byte-order mark is allowed).
pub(super) fn parse(text: &str) -> Result<(Json, Style), serde_json::Error> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value = serde_json::from_str(body)?;
    Ok((value, Style::detect(text)))
}

/// Writes `value` out in `style`.
pub(super) fn render(value: &Json, style: &Style) -> Result<String, serde_json::Error> {
    let bytes = match &style.indent {
        Some(indent) => {
            let mut out = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            value.serialize(&mut serializer)?;
            out
        }
        None => serde_json::to_vec(value)?,
    };
    // serde_json writes UTF-8, and a string's own line breaks are escaped,
    // so every raw newline here is layout and may take the file's line end.
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if style.final_newline {
        text.push('\n');
    }
    if style.crlf {
        text = text.replace('\n', "\r\n");
    }
    if style.bom {
        text.insert(0, '\u{feff}');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that `text` parses and renders back to exactly itself.
    #[track_caller]
    fn check_round_trip(text: &str) {
        let (value, style) = parse(text).unwrap();
        assert_eq!(render(&value, &style).unwrap(), text);
    }

    #[test]
    fn pretty_files_round_trip_in_their_own_layout() {
        check_round_trip("{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}\n");
        check_round_trip("{\n    \"z\": {\n        \"b\": \"x\",\n        \"a\": -2.5\n    }\n}");
        check_round_trip("{\n\t\"z\": {\n\t\t\"a\": []\n\t},\n\t\"b\": {}\n}\n");
        check_round_trip("{\r\n  \"model\": \"opus\"\r\n}\r\n");
        check_round_trip("\u{feff}{\n  \"model\": \"opus\"\n}\n");
        check_round_trip("{\"z\":1,\"a\":{\"c\":2,\"b\":3}}");
    }

    #[test]
    fn keys_keep_file_order() {
        let (value, _) = parse(r#"{"b": 1, "a": 2, "c": {"z": 3, "y": 4}}"#).unwrap();
        let Json::Object(object) = value else {
            panic!("not an object")
        };
        let keys: Vec<&str> = object.keys().collect();
        assert_eq!(keys, ["b", "a", "c"]);
        let Some(Json::Object(inner)) = object.get("c") else {
            panic!("not an object")
        };
        assert_eq!(inner.keys().collect::<Vec<_>>(), ["z", "y"]);
    }

    /// serde_json keeps the last of two equal keys without a word; here
    /// the text would be lost, so a repeated key is an error naming it and
    /// where it is, at any depth.
    #[test]
    fn a_repeated_key_is_an_error_naming_it_at_any_depth() {
        for (text, message) in [
            (
                r#"{"hooks": {}, "hooks": {"Stop": []}}"#,
                r#"the key "hooks" appears twice in one object at line 1 column 21"#,
            ),
            (
                "{\n  \"hooks\": {\"Stop\": [{\"matcher\": \"a\",\n \"matcher\": \"b\"}]}\n}",
                r#"the key "matcher" appears twice in one object at line 3 column 10"#,
            ),
            (
                r#"[{"a\u0022": 1, "a\"": 2}]"#,
                r#"the key "a\"" appears twice in one object at line 1 column 21"#,
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.to_string(), message, "{text}");
            assert!(err.is_data(), "{text}");
        }
        // The same key in two objects is no repeat.
        assert!(parse(r#"{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}"#).is_ok());
    }

    #[test]
    fn a_file_without_indented_lines_gets_two_spaces() {
        assert_eq!(Style::detect("{\n}\n").indent.as_deref(), Some("  "));
        assert_eq!(Style::detect("{}\n").indent.as_deref(), Some("  "));
        assert_eq!(Style::detect("{\"a\":1}\n").indent, None);
    }
}
